/* devctl.c: device state under a session: info, orientation, network (with restore), location, app lifecycle, waits. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "devctl-internal.h"
#include <swipium/ios.h>

static int bad_options(const char *options_json, json_t **opts, sw_error **err)
{
	*opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(*opts)) {
		json_decref(*opts);
		*opts = NULL;
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	}
	return SW_OK;
}

static int finish(json_t *res, char **out_json, sw_error **err)
{
	*out_json = res ? json_dumps(res, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(res);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

static void env_change(sw_session *s, const char *fmt, ...) SW_PRINTF(2, 3);
static void env_change(sw_session *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *t = NULL;
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	if (t)
		sw_session_add_env_change(s, t, NULL);
	free(t);
}

/* ---- info / rotation ------------------------------------------------------ */

static json_t *rotation_fields(json_t *o, int rotation, int auto_rotate)
{
	json_object_set_new(o, "orientation",
	                    json_string(rotation < 0   ? "unknown"
	                                : rotation % 2 ? "landscape"
	                                               : "portrait"));
	json_object_set_new(o, "rotation", rotation < 0 ? json_null() : json_integer(rotation));
	json_object_set_new(o, "autoRotate", auto_rotate < 0 ? json_null() : json_boolean(auto_rotate));
	return o;
}

/* qa_device_info's iOS shape: the simulator, its runtime and screen in points; what simctl cannot tell is listed. */
static int ios_info(sw_device *dev, json_t *opts, json_t **out, sw_error **err)
{
	char *desc = NULL, *pj = NULL, *pk = NULL;
	int rc = sw_device_describe(dev, &desc, err);
	if (rc == SW_OK)
		rc = sw_device_properties(dev, &pj, err);
	if (rc == SW_OK)
		rc = sw_device_packages(dev, &pk, err); /* simctl listapps: the user-installed apps */
	if (rc != SW_OK) {
		sw_free(desc);
		sw_free(pj);
		return rc;
	}
	json_t *d = json_loads(desc, 0, NULL), *p = json_loads(pj, 0, NULL), *pkgs = json_loads(pk, 0, NULL);
	sw_free(desc);
	sw_free(pj);
	sw_free(pk);
	json_t *scr = json_object_get(p, "screen");
	json_t *res = json_pack("{s:s,s:O,s:b,s:O*,s:O*,s:s,s:O*,s:{s:O*,s:O*,s:s},s:s,s:n,s:n,s:O*,s:[s,s,s,s,s]}",
	                        "platform", "ios", "serial", json_object_get(d, "serial"), "emulator", 1, "name",
	                        json_object_get(d, "name"), "runtime", json_object_get(d, "runtime"), "state", "Booted",
	                        "deviceType", json_object_get(d, "deviceType"), "screen", "width",
	                        json_object_get(scr, "width"), "height", json_object_get(scr, "height"), "unit", "points",
	                        "orientation", "unknown", "rotation", "autoRotate", "mode", json_object_get(d, "mode"),
	                        "unsupported", "orientation", "rotation", "autoRotate", "abis", "density");
	/* the user-installed apps, always listed (a simulator has few), filtered as on Android */
	const char *filter = json_string_value(json_object_get(opts, "packageFilter"));
	json_t *list = json_array();
	size_t i;
	json_t *v;
	json_array_foreach(pkgs, i, v)
	{
		if (json_is_string(v) && (!filter || strstr(json_string_value(v), filter)))
			json_array_append(list, v);
	}
	if (res) {
		json_object_set_new(res, "installedThirdPartyCount", json_integer((json_int_t)json_array_size(pkgs)));
		json_object_set_new(res, "packages", list);
	} else
		json_decref(list);
	json_decref(pkgs);
	json_decref(d);
	json_decref(p);
	if (!res)
		return sw__error_nomem(err);
	*out = res;
	return SW_OK;
}

int sw_devctl_info(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json, char **out_json,
                   sw_error **err)
{
	(void)ctx;
	(void)s;
	json_t *opts, *res_ios = NULL;
	int rc = bad_options(options_json, &opts, err);
	if (rc != SW_OK)
		return rc;
	if (sw_device_ops(dev) == sw_driver_ios()) {
		rc = ios_info(dev, opts, &res_ios, err);
		json_decref(opts);
		return rc == SW_OK ? finish(res_ios, out_json, err) : rc;
	}
	char *desc = NULL, *pj = NULL, *pk = NULL;
	json_t *d = NULL, *p = NULL, *pkgs = NULL, *res = NULL;
	int rotation = -1, auto_rotate = -1;
	rc = sw_device_describe(dev, &desc, err);
	if (rc == SW_OK)
		rc = sw_device_properties(dev, &pj, err);
	if (rc == SW_OK)
		rc = sw_device_packages(dev, &pk, err);
	if (rc == SW_OK)
		rc = sw_device_rotation(dev, &rotation, &auto_rotate, err);
	if (rc != SW_OK)
		goto out;
	d = json_loads(desc, 0, NULL);
	p = json_loads(pj, 0, NULL);
	pkgs = json_loads(pk, 0, NULL);
	if (!json_is_object(p) || !json_is_array(pkgs)) {
		rc = sw__error_set(err, SW_EDEVICE, "UNKNOWN", NULL, "the driver answered device properties that are not JSON");
		goto out;
	}
	json_t *nat = json_object_get(p, "screen");
	json_t *screen = json_object();
	if (json_is_integer(json_object_get(nat, "width")) && json_is_integer(json_object_get(nat, "height"))) {
		/* the natural (portrait) size; the screen turns with the rotation */
		bool land = rotation >= 0 && rotation % 2;
		json_object_set(screen, "width", json_object_get(nat, land ? "height" : "width"));
		json_object_set(screen, "height", json_object_get(nat, land ? "width" : "height"));
	}
	json_t *dens = json_object_get(nat, "density");
	json_object_set_new(screen, "density", json_is_integer(dens) ? json_incref(dens) : json_null());
	json_t *list = json_array();
	const char *filter = json_string_value(json_object_get(opts, "packageFilter"));
	size_t i;
	json_t *v;
	json_array_foreach(pkgs, i, v)
	{
		const char *name = json_string_value(v);
		if (name && (!filter || strstr(name, filter)))
			json_array_append(list, v);
	}
	const char *serial = json_string_value(json_object_get(d, "serial"));
	const char *platform = json_string_value(json_object_get(d, "platform"));
	res = json_pack("{s:s,s:s,s:b}", "platform", platform ? platform : sw_device_ops(dev)->name, "serial",
	                serial ? serial : "", "emulator",
	                json_is_true(json_object_get(d, "emulator")) || json_is_true(json_object_get(p, "emulator")));
	json_t *props = json_object();
	const char *keys[] = {"manufacturer", "model", "sdk", "release", "abis", "locale", "timezone"};
	for (size_t k = 0; k < SW_ARRAY_SIZE(keys); k++) {
		json_t *pv = json_object_get(p, keys[k]);
		json_object_set_new(props, keys[k], pv ? json_incref(pv) : (k == 4 ? json_array() : json_null()));
	}
	json_object_set_new(res, "props", props);
	json_object_set_new(res, "screen", screen);
	rotation_fields(res, rotation, auto_rotate);
	json_object_set_new(res, "installedThirdPartyCount", json_integer((json_int_t)json_array_size(pkgs)));
	if (json_is_true(json_object_get(opts, "listPackages")) || filter)
		json_object_set_new(res, "packages", list);
	else
		json_decref(list);
	rc = finish(res, out_json, err);
	res = NULL;
out:
	json_decref(d);
	json_decref(p);
	json_decref(pkgs);
	sw_free(desc);
	sw_free(pj);
	sw_free(pk);
	json_decref(opts);
	return rc;
}

int sw_devctl_orientation(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *orientation, char **out_json,
                          sw_error **err)
{
	(void)ctx;
	if (!orientation ||
	    (strcmp(orientation, "portrait") && strcmp(orientation, "landscape") && strcmp(orientation, "auto")))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "orientation must be portrait, landscape or auto");
	int rc = sw_device_set_rotation(dev, !strcmp(orientation, "auto") ? -1 : !strcmp(orientation, "portrait") ? 0 : 1,
	                                err);
	int rotation = -1, auto_rotate = -1;
	if (rc == SW_OK)
		rc = sw_device_rotation(dev, &rotation, &auto_rotate, err);
	if (rc == SW_OK) {
		char *serial = sw__dc_serial(dev);
		env_change(s, "orientation set to %s on %s (rotation %d, auto-rotate %s)", orientation, serial,
		           rotation, auto_rotate == 1 ? "on" : "off");
		free(serial);
		json_t *res = json_pack("{s:s}", "requested", orientation);
		rotation_fields(res, rotation, auto_rotate);
		rc = finish(res, out_json, err);
	}
	return rc;
}

/* ---- network ------------------------------------------------------------------ */

static json_t *network_result(json_t *net, int airplane)
{
	bool changed = json_is_true(json_object_get(net, "changed"));
	bool restored = json_is_true(json_object_get(net, "restored"));
	json_t *r = json_pack("{s:s,s:b,s:b,s:b}", "network", airplane ? "offline" : "online", "airplaneMode", airplane,
	                      "restoreAvailable", changed && !restored, "changed", changed);
	json_t *orig = json_object_get(net, "originalAirplane");
	if (json_is_boolean(orig))
		json_object_set(r, "originalAirplane", orig);
	return r;
}

static json_t *network_record(sw_session *s)
{
	json_t *net = sw__dc_session_get(s, "network");
	if (!json_is_object(net)) {
		json_decref(net);
		net = json_pack("{s:b,s:n}", "changed", 0, "originalAirplane");
	}
	return net;
}

/* Puts the original airplane state back. *did is set when something was restored. */
static int restore_with(sw_device *dev, const char *serial, sw_session *s, json_t *net, const char *reason, bool *did, sw_error **err)
{
	*did = false;
	if (!json_is_true(json_object_get(net, "changed")) || json_is_true(json_object_get(net, "restored")))
		return SW_OK;
	int orig = json_is_true(json_object_get(net, "originalAirplane")) ? 1 : 0;
	int rc = sw_device_set_airplane_mode(dev, orig, err);
	if (rc != SW_OK) {
		const char *why = err && *err ? sw_error_message(*err) : "failed";
		json_object_set_new(net, "restoreFailed", json_string(why));
		sw__dc_session_set(s, "network", net, NULL);
		env_change(s, "network restore (%s) failed: %s; airplane mode may still be %s on %s", reason, why,
		           orig ? "off" : "on", serial);
		sw_session_flush(s, NULL);
		return rc;
	}
	json_object_set_new(net, "restored", json_true());
	json_object_del(net, "restoreFailed");
	char *now = sw__iso_now();
	if (now)
		json_object_set_new(net, "restoredAt", json_string(now));
	free(now);
	sw__dc_session_set(s, "network", net, NULL);
	env_change(s, "network restored (%s): airplane mode %s again on %s", reason, orig ? "on" : "off", serial);
	json_t *target = json_pack("{s:s,s:s}", "serial", serial, "network", orig ? "offline" : "online");
	sw__dc_ledger(s, "qa_network", "network_change", "medium", target, "restored", reason);
	json_decref(target);
	sw_session_flush(s, NULL);
	*did = true;
	return SW_OK;
}

int sw_devctl_network(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *action, char **out_json, sw_error **err)
{
	if (!action || (strcmp(action, "status") && strcmp(action, "offline") && strcmp(action, "online") &&
	                strcmp(action, "restore")))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "action must be status, offline, online or restore");
	(void)ctx;
	char *serial = sw__dc_serial(dev);
	json_t *net = network_record(s);
	int airplane = 0;
	int rc = sw_device_airplane_mode(dev, &airplane, err);
	if (rc != SW_OK)
		goto out;
	if (!strcmp(action, "restore")) {
		bool did = false;
		rc = restore_with(dev, serial, s, net, "restore", &did, err);
		if (rc != SW_OK)
			goto out;
		if (did)
			rc = sw_device_airplane_mode(dev, &airplane, err);
		if (rc != SW_OK)
			goto out;
		json_t *r = network_result(net, airplane);
		json_object_set_new(r, "restored", json_boolean(did));
		if (!did)
			json_object_set_new(
			    r, "note", json_string("nothing to restore: this session has not changed the network"));
		rc = finish(r, out_json, err);
		goto out;
	}
	if (!strcmp(action, "offline") || !strcmp(action, "online")) {
		int want = !strcmp(action, "offline");
		rc = sw_device_set_airplane_mode(dev, want, err);
		if (rc != SW_OK)
			goto out; /* rejected: nothing recorded */
		if (!json_is_true(json_object_get(net, "changed"))) {
			/* the original state, recorded once, before anything else is written */
			json_object_set_new(net, "changed", json_true());
			json_object_set_new(net, "originalAirplane", json_boolean(airplane));
			json_object_set_new(net, "serial", json_string(serial));
		}
		json_object_set_new(net, "restored", json_false());
		json_object_del(net, "restoreFailed");
		rc = sw__dc_session_set(s, "network", net, err);
		if (rc != SW_OK)
			goto out;
		env_change(s,
		           "network set %s (airplane mode %s) on %s; original state (airplane mode %s) is restored at "
		           "qa_report",
		           action, want ? "on" : "off", serial,
		           json_is_true(json_object_get(net, "originalAirplane")) ? "on" : "off");
		json_t *target = json_pack("{s:s,s:s}", "serial", serial, "network", action);
		sw__dc_ledger(s, "qa_network", "network_change", "medium", target, "executed", NULL);
		json_decref(target);
		sw_session_flush(s, NULL);
		airplane = want;
	}
	rc = finish(network_result(net, airplane), out_json, err);
out:
	json_decref(net);
	free(serial);
	return rc;
}

int sw_devctl_network_restore(sw_ctx *ctx, sw_session *s, const char *reason, char **out_json, sw_error **err)
{
	json_t *net = network_record(s);
	int rc = SW_OK;
	json_t *res = NULL;
	if (!json_is_true(json_object_get(net, "changed")) || json_is_true(json_object_get(net, "restored"))) {
		res = json_pack("{s:b,s:s}", "restored", 0, "networkRestore", "not-needed");
	} else {
		/* the device the change was made on (recorded with it), else the session's device */
		json_t *devrec = sw__dc_session_get(s, "device");
		const char *serial = json_string_value(json_object_get(net, "serial"));
		if (!serial)
			serial = json_string_value(json_object_get(devrec, "serial"));
		char *ser = serial ? sw__strdup(serial) : NULL;
		json_decref(devrec);
		sw_device *dev = NULL;
		bool did = false;
		if (!ser) {
			rc = sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE", NULL, "the session has no bound device");
		} else {
			rc = sw__dc_open_serial(ctx, s, ser, &dev, err);
			if (rc != SW_OK) {
				/* the device is gone: the restore stays pending, and the session says why */
				const char *why = err && *err ? sw_error_message(*err) : "the device is not reachable";
				json_object_set_new(net, "restoreFailed", json_string(why));
				sw__dc_session_set(s, "network", net, NULL);
				env_change(s, "network restore (%s) failed: %s; airplane mode may still be %s on %s",
				           reason ? reason : "restore", why,
				           json_is_true(json_object_get(net, "originalAirplane")) ? "off" : "on", ser);
				sw_session_flush(s, NULL);
			}
		}
		if (rc == SW_OK)
			rc = restore_with(dev, ser, s, net, reason ? reason : "restore", &did, err);
		sw_device_free(dev);
		free(ser);
		if (rc != SW_OK)
			goto out;
		res = json_pack("{s:b,s:s}", "restored", did, "networkRestore", did ? "restored" : "not-needed");
	}
	if (out_json)
		rc = finish(res, out_json, err);
	else
		json_decref(res);
out:
	json_decref(net);
	return rc;
}

int sw_devctl_restore_pending(sw_ctx *ctx, sw_store *store, char **summary_json, sw_error **err)
{
	char *path = sw__path_join(sw_store_dir(store), "registry.json");
	char *text = NULL;
	size_t len = 0;
	long checked = 0, restored = 0, failed = 0;
	if (path && sw__read_file(path, 16 * 1024 * 1024, &text, &len, NULL) == SW_OK) {
		json_t *reg = json_loads(text, 0, NULL);
		size_t i;
		json_t *e;
		json_array_foreach(reg, i, e)
		{
			const char *id = json_string_value(json_object_get(e, "id"));
			const char *dir = json_string_value(json_object_get(e, "dir"));
			if (!id || !dir)
				continue;
			/* a cheap look at state.json first: only sessions with a pending restore are loaded */
			char *sp = sw__path_join(dir, "state.json");
			char *st = NULL;
			size_t sl = 0;
			json_t *state = NULL;
			if (sp && sw__read_file(sp, 64 * 1024 * 1024, &st, &sl, NULL) == SW_OK)
				state = json_loads(st, 0, NULL);
			free(sp);
			sw_free(st);
			json_t *net = json_object_get(state, "network");
			bool pending = json_is_true(json_object_get(net, "changed")) &&
			               !json_is_true(json_object_get(net, "restored"));
			json_decref(state);
			if (!pending)
				continue;
			checked++;
			sw_session *s = NULL;
			if (sw_store_get_session(store, id, &s, NULL) != SW_OK)
				continue;
			char *out = NULL;
			sw_error *e2 = NULL;
			if (sw_devctl_network_restore(ctx, s, "server restart", &out, &e2) == SW_OK) {
				json_t *o = json_loads(out, 0, NULL);
				if (json_is_true(json_object_get(o, "restored")))
					restored++;
				json_decref(o);
			} else {
				failed++;
				sw__log_warn(ctx, "session %s: network not restored after restart: %s", id,
				             sw_error_message(e2));
			}
			sw_free(out);
			sw_error_free(e2);
		}
		json_decref(reg);
	}
	free(path);
	sw_free(text);
	if (summary_json) {
		json_t *r = json_pack("{s:I,s:I,s:I}", "checked", (json_int_t)checked, "restored", (json_int_t)restored,
		                      "failed", (json_int_t)failed);
		return finish(r, summary_json, err);
	}
	return SW_OK;
}

/* ---- geolocation ------------------------------------------------------------- */

int sw_devctl_geolocation(sw_ctx *ctx, sw_session *s, sw_device *dev, double lat, double lng, char **out_json,
                          sw_error **err)
{
	(void)ctx;
	if (!isfinite(lat) || !isfinite(lng) || lat < -90 || lat > 90 || lng < -180 || lng > 180)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "lat must be within -90..90 and lng within -180..180 (decimal degrees)");
	int rc = sw_device_geo_fix(dev, lat, lng, err);
	if (rc != SW_OK)
		return rc;
	char slat[32], slng[32];
	snprintf(slat, sizeof(slat), "%.6f", lat);
	snprintf(slng, sizeof(slng), "%.6f", lng);
	char *serial = sw__dc_serial(dev);
	env_change(s, "location set to %s,%s on %s (emulator console geo fix)", slat, slng, serial);
	json_t *target = json_pack("{s:s,s:f,s:f}", "serial", serial, "lat", lat, "lng", lng);
	sw__dc_ledger(s, "qa_geolocation", "geo_set", "medium", target, "executed", NULL);
	json_decref(target);
	free(serial);
	return finish(json_pack("{s:f,s:f,s:b}", "lat", lat, "lng", lng, "set", 1), out_json, err);
}

/* ---- app lifecycle ---------------------------------------------------------- */

static const char *const app_actions[] = {"launch",  "foreground", "background",  "force_stop",
                                          "restart", "clear_data", "fresh_start", NULL};

static bool valid_app_action(const char *a)
{
	for (size_t i = 0; a && app_actions[i]; i++)
		if (!strcmp(a, app_actions[i]))
			return true;
	return false;
}

/* A React Native / Expo project (its debug builds load the JS bundle from Metro or a cache a wipe loses). */
static bool rn_project(sw_session *s)
{
	const char *root = sw_session_root(s);
	char *p = root ? sw__path_join(root, "package.json") : NULL;
	char *text = NULL;
	size_t len = 0;
	bool rn = false;
	if (p && sw__read_file(p, 4 * 1024 * 1024, &text, &len, NULL) == SW_OK) {
		json_t *pkg = json_loads(text, 0, NULL);
		const char *sections[] = {"dependencies", "devDependencies"};
		for (size_t i = 0; i < 2; i++) {
			json_t *d = json_object_get(pkg, sections[i]);
			if (json_object_get(d, "react-native") || json_object_get(d, "expo"))
				rn = true;
		}
		json_decref(pkg);
	}
	free(p);
	sw_free(text);
	return rn;
}

int sw_devctl_app_guard(sw_session *s, const char *options_json, char **out_json, sw_error **err)
{
	json_t *opts;
	int rc = bad_options(options_json, &opts, err);
	if (rc != SW_OK)
		return rc;
	const char *action = json_string_value(json_object_get(opts, "action"));
	if (!valid_app_action(action)) {
		json_decref(opts);
		return sw__error_set(
		    err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		    "action must be launch, foreground, background, force_stop, restart, clear_data or fresh_start");
	}
	bool wipe = !strcmp(action, "clear_data") || !strcmp(action, "fresh_start");
	bool risk = wipe && rn_project(s);
	if (risk && !json_is_true(json_object_get(opts, "acknowledgeBundleRisk"))) {
		json_t *target = json_pack("{s:s}", "action", action);
		sw__dc_ledger(s, "qa_app_control", !strcmp(action, "clear_data") ? "app_clear_data" : "app_fresh_start",
		              "high", target, "blocked",
		              "BUNDLE_LOSS_REFUSED: debug React Native/Expo build without acknowledgeBundleRisk");
		json_decref(target);
		rc = sw__error_set(err, SW_EDENIED, "BUNDLE_LOSS_REFUSED",
		                   "pass acknowledgeBundleRisk:true if Metro is running or the bundle is embedded",
		                   "%s on a debug React Native/Expo build can lose the JS bundle; refused without "
		                   "acknowledgeBundleRisk",
		                   action);
		json_decref(opts);
		return rc;
	}
	json_t *res = json_pack(
	    "{s:o,s:b}", "consentAction",
	    !wipe ? json_null() : json_string(!strcmp(action, "clear_data") ? "app_clear_data" : "app_fresh_start"),
	    "bundleRisk", risk);
	json_decref(opts);
	return finish(res, out_json, err);
}

/* The foreground package (transfer full, nullable). */
static char *fg_package(sw_device *dev)
{
	char *fj = NULL;
	char *pkg = NULL;
	if (sw_device_foreground(dev, &fj, NULL) == SW_OK) {
		json_t *f = json_loads(fj, 0, NULL);
		const char *p = json_string_value(json_object_get(f, "package"));
		pkg = p ? strdup(p) : NULL;
		json_decref(f);
	}
	sw_free(fj);
	return pkg;
}

static void changed_detail(sw_error **err, bool changed)
{
	if (err && *err) {
		json_t *d = json_pack("{s:b}", "changedState", changed);
		sw__error_take_details(*err, d);
	}
}

int sw_devctl_app(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json, char **out_json, sw_error **err)
{
	char *guard = NULL;
	int rc = sw_devctl_app_guard(s, options_json, &guard, err);
	if (rc != SW_OK)
		return rc;
	sw_free(guard);
	json_t *opts = json_loads(options_json ? options_json : "{}", 0, NULL);
	const char *action = json_string_value(json_object_get(opts, "action"));
	char *app = sw__dc_session_app(s);
	if (!app) {
		json_decref(opts);
		return sw__error_set(
		    err, SW_ENOTFOUND, "BUNDLE_ID_NOT_FOUND",
		    "run qa_prepare_target (or qa_start_session with the app) so the session knows its app",
		    "the session has no app id; qa_app_control always works on the session's app");
	}
	(void)ctx;
	char *serial = sw__dc_serial(dev);
	bool killed = false, changed = false;
	if (!strcmp(action, "launch") || !strcmp(action, "foreground")) {
		rc = sw_device_launch(dev, app, err);
		changed = rc == SW_OK;
	} else if (!strcmp(action, "background")) {
		rc = sw_device_press_key(dev, "home", err);
		changed = rc == SW_OK;
		for (int i = 0; rc == SW_OK && i < 10; i++) {
			char *p = fg_package(dev);
			bool away = !p || strcmp(p, app);
			free(p);
			if (away)
				break;
			usleep(300 * 1000);
		}
	} else if (!strcmp(action, "force_stop")) {
		rc = sw_device_force_stop(dev, app, err);
		killed = changed = rc == SW_OK;
	} else if (!strcmp(action, "restart")) {
		rc = sw_device_force_stop(dev, app, err);
		killed = changed = rc == SW_OK;
		if (rc == SW_OK)
			rc = sw_device_launch(dev, app, err);
	} else if (!strcmp(action, "clear_data") || !strcmp(action, "fresh_start")) {
		rc = sw_device_clear_app_data(dev, app, err);
		killed = changed = rc == SW_OK;
		if (rc == SW_OK) {
			bool ack = json_is_true(json_object_get(opts, "acknowledgeBundleRisk"));
			env_change(s, "%s: app data of %s wiped on %s%s", action, app, serial,
			           ack ? " (acknowledgeBundleRisk)" : "");
			json_t *target = json_pack("{s:s,s:s}", "appId", app, "serial", serial);
			sw__dc_ledger(s, "qa_app_control",
			              !strcmp(action, "clear_data") ? "app_clear_data" : "app_fresh_start", "high",
			              target, "executed", NULL);
			json_decref(target);
		}
		if (rc == SW_OK && !strcmp(action, "fresh_start"))
			rc = sw_device_launch(dev, app, err);
	}
	if (rc != SW_OK) {
		changed_detail(err, changed);
		goto out;
	}
	if (strcmp(action, "clear_data") && strcmp(action, "fresh_start"))
		env_change(s, "app %s: %s on %s", action, app, serial);
	char *fg = fg_package(dev);
	json_t *res = json_pack("{s:s,s:s,s:b,s:b,s:o,s:o}", "packageName", app, "action", action, "changedState", 1,
	                        "processKilled", killed, "foreground", fg ? json_string(fg) : json_null(),
	                        "foregroundIsApp", fg ? json_boolean(!strcmp(fg, app)) : json_null());
	free(fg);
	rc = finish(res, out_json, err);
out:
	free(serial);
	free(app);
	json_decref(opts);
	return rc;
}

/* ---- waits -------------------------------------------------------------------- */

/* Metro's /status: "packager-status:running". The HTTP client (libcurl) is loaded on first use. */
static bool metro_status(const char *url, char **why)
{
	char *body = NULL;
	sw_error *e = NULL;
	int rc = sw__http_get(url, 1500, NULL, &body, 4096, &e);
	bool ok = rc == SW_OK && body && strstr(body, "packager-status:running");
	if (!ok)
		*why = strdup(rc != SW_OK ? sw_error_message(e) : "Metro answered but is not running");
	free(body);
	sw_error_free(e);
	return ok;
}

int sw_devctl_wait(sw_ctx *ctx, sw_session *s, const char *options_json, sw_abort_fn abort_fn, void *userdata,
                   char **out_json, sw_error **err)
{
	json_t *opts;
	int rc = bad_options(options_json, &opts, err);
	if (rc != SW_OK)
		return rc;
	const char *what = json_string_value(json_object_get(opts, "for"));
	json_t *tj = json_object_get(opts, "timeoutMs");
	json_t *notes = json_array();
	long timeout = SW_LONG_POLL_HINT_MS;
	if (tj) {
		double t = json_number_value(tj);
		if (!json_is_number(tj) || t < 0 || !isfinite(t)) {
			json_decref(notes);
			json_decref(opts);
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "timeoutMs must be a number >= 0");
		}
		if (t > SW_LONG_POLL_MAX_MS) {
			char *n = sw__asprintf("timeoutMs %.0f clamped to %d; call qa_wait again if it times out", t,
			                       SW_LONG_POLL_MAX_MS);
			if (n)
				json_array_append_new(notes, json_string(n));
			free(n);
			t = SW_LONG_POLL_MAX_MS;
		}
		timeout = (long)t;
	}
	if (!what || (strcmp(what, "device_online") && strcmp(what, "metro_ready"))) {
		bool sim = what && !strcmp(what, "simulator_booted"), wda = what && !strcmp(what, "wda_ready");
		json_decref(notes);
		json_decref(opts); /* @what pointed into it */
		if (sim)
			return sw_ios_wait_booted(ctx, s, timeout, abort_fn, userdata, out_json, err);
		if (wda) {
			int irc = sw_ios_check(ctx, err); /* no xcrun: BACKEND_UNSUPPORTED naming it */
			if (irc != SW_OK)
				return irc;
			return sw_ios_wait_wda(ctx, s, timeout, abort_fn, userdata, out_json, err);
		}
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "for must be device_online, metro_ready, wda_ready or simulator_booted");
	}
	bool device = !strcmp(what, "device_online");
	char *serial = NULL;
	const struct sw_driver_ops *ops = sw__dc_session_driver(s);
	if (device) {
		/* the session's device, else (no bound device yet) any online device counts */
		json_t *devrec = sw__dc_session_get(s, "device");
		const char *ser = json_string_value(json_object_get(devrec, "serial"));
		serial = ser ? sw__strdup(ser) : NULL;
		json_decref(devrec);
	}
	int64_t t0 = sw_monotonic_ms();
	bool satisfied = false;
	json_t *state = NULL;
	for (;;) {
		json_decref(state);
		state = json_object();
		if (device) {
			json_t *list = NULL;
			char *lj = NULL;
			sw_error *le = NULL;
			if (sw_driver_devices(ops, ctx, &lj, &le) == SW_OK)
				list = json_loads(lj, 0, NULL);
			sw_free(lj);
			if (le && !strcmp(sw_error_failure_code(le), "ADB_NOT_FOUND")) {
				json_decref(state);
				json_decref(notes);
				json_decref(opts);
				free(serial);
				sw__error_propagate(err, le);
				return SW_ENOTFOUND;
			}
			sw_error_free(le);
			if (json_is_array(list)) {
				size_t i;
				json_t *d;
				const char *st = "absent";
				json_array_foreach(list, i, d)
				{
					const char *ser = json_string_value(json_object_get(d, "serial"));
					const char *dst = json_string_value(json_object_get(d, "state"));
					if (!ser || !dst || (serial && strcmp(ser, serial)))
						continue;
					st = dst;
					if (!strcmp(dst, "device"))
						break;
				}
				json_object_set_new(state, "device", json_string(st));
				if (serial)
					json_object_set_new(state, "serial", json_string(serial));
				satisfied = !strcmp(st, "device");
				json_decref(list);
			} else {
				json_object_set_new(state, "device", json_string("unknown"));
			}
		} else {
			char *why = NULL;
			char url[64]; /* the one port rule (metro/metro.c): 8081 or the server's SWIPIUM_METRO_PORT */
			snprintf(url, sizeof(url), "http://127.0.0.1:%d/status", sw__metro_port());
			satisfied = metro_status(url, &why);
			json_object_set_new(state, "metro", json_string(satisfied ? "running" : "not running"));
			if (why)
				json_object_set_new(state, "reason", json_string(why));
			free(why);
		}
		if (satisfied)
			break;
		int64_t left = timeout - (sw_monotonic_ms() - t0);
		if (left <= 0)
			break;
		/* sleep up to 500 ms in 50 ms steps, watching for cancellation */
		bool cancelled = false;
		for (int k = 0; k < 10 && left > 0; k++, left -= 50) {
			if (abort_fn && abort_fn(userdata)) {
				cancelled = true;
				break;
			}
			usleep(50 * 1000);
		}
		if (cancelled || (abort_fn && abort_fn(userdata))) {
			json_decref(state);
			json_decref(notes);
			json_decref(opts);
			free(serial);
			return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_wait was cancelled");
		}
	}
	int64_t waited = sw_monotonic_ms() - t0;
	json_t *res =
	    json_pack("{s:s,s:b,s:b,s:I,s:I,s:o}", "for", what, "satisfied", satisfied, "timedOut", !satisfied,
	              "waitedMs", (json_int_t)waited, "timeoutMs", (json_int_t)timeout, "state", state);
	if (json_array_size(notes))
		json_object_set_new(res, "notes", notes);
	else
		json_decref(notes);
	json_decref(opts);
	free(serial);
	return finish(res, out_json, err);
}
