/* driver.c: the device handle: binds a driver's ops table and answers BACKEND_UNSUPPORTED for missing slots. */
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"
#include <swipium/driver.h>
#include <swipium/ios.h>

struct sw_device {
	const struct sw_driver_ops *ops;
	void *state;
};

int sw_device_open(sw_ctx *ctx, const struct sw_driver_ops *ops, const char *options_json, sw_device **out,
                   sw_error **err)
{
	if (!ops || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "ops and out must not be NULL");
	if (ops->version == 0 || ops->version > SW_DRIVER_OPS_VERSION || !ops->probe)
		return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", NULL,
		                     "Driver %s uses ops version %u; this library knows up to %d",
		                     ops->name ? ops->name : "?", ops->version, SW_DRIVER_OPS_VERSION);
	sw_device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return sw__error_nomem(err);
	dev->ops = ops;
	int rc = ops->probe(ctx, options_json, &dev->state, err);
	if (rc < 0) {
		free(dev);
		return rc;
	}
	*out = dev;
	return SW_OK;
}

void sw_device_free(sw_device *dev)
{
	if (!dev)
		return;
	if (dev->ops->release)
		dev->ops->release(dev->state);
	free(dev);
}

const struct sw_driver_ops *sw_device_ops(const sw_device *dev)
{
	return dev ? dev->ops : NULL;
}

void *sw__device_state(sw_device *dev)
{
	return dev ? dev->state : NULL;
}

static int unsupported(const sw_device *dev, const char *what, sw_error **err)
{
	if (!dev)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "device must not be NULL");
	return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", NULL, "The %s driver cannot %s",
	                     dev->ops->name ? dev->ops->name : "device", what);
}

#define HAS(dev, cap, slot) ((dev) && ((dev)->ops->caps & (cap)) && (dev)->ops->slot)
/* a version 2 slot: never read from a table written for version 1 (it is shorter) */
#define HAS2(dev, cap, slot) ((dev) && (dev)->ops->version >= 2 && ((dev)->ops->caps & (cap)) && (dev)->ops->slot)
/* a version 3 slot */
#define HAS3(dev, cap, slot) ((dev) && (dev)->ops->version >= 3 && ((dev)->ops->caps & (cap)) && (dev)->ops->slot)
/* a version 4 slot */
#define HAS4(dev, cap, slot) ((dev) && (dev)->ops->version >= 4 && ((dev)->ops->caps & (cap)) && (dev)->ops->slot)

int sw_device_describe(sw_device *dev, char **out_json, sw_error **err)
{
	if (!dev || !dev->ops->describe || !out_json)
		return unsupported(dev, "describe the device", err);
	return dev->ops->describe(dev->state, out_json, err);
}

int sw_device_dump_ui(sw_device *dev, char **xml, size_t *len, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_DUMP, dump_ui) || !xml || !len)
		return unsupported(dev, "read the UI hierarchy", err);
	return dev->ops->dump_ui(dev->state, xml, len, err);
}

int sw_device_screencap(sw_device *dev, unsigned char **png, size_t *len, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_SCREENCAP, screencap) || !png || !len)
		return unsupported(dev, "capture the screen", err);
	return dev->ops->screencap(dev->state, png, len, err);
}

int sw_device_screen_size(sw_device *dev, int *width, int *height, sw_error **err)
{
	if (!dev || !dev->ops->screen_size || !width || !height)
		return unsupported(dev, "report the screen size", err);
	return dev->ops->screen_size(dev->state, width, height, err);
}

int sw_device_tap(sw_device *dev, int x, int y, int duration_ms, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, tap))
		return unsupported(dev, "tap", err);
	return dev->ops->tap(dev->state, x, y, duration_ms, err);
}

int sw_device_type_text(sw_device *dev, const char *text, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, type_text) || !text)
		return unsupported(dev, "type text", err);
	return dev->ops->type_text(dev->state, text, err);
}

int sw_device_swipe(sw_device *dev, int x1, int y1, int x2, int y2, int duration_ms, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, swipe))
		return unsupported(dev, "swipe", err);
	return dev->ops->swipe(dev->state, x1, y1, x2, y2, duration_ms, err);
}

int sw_device_press_key(sw_device *dev, const char *key, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, press_key) || !key)
		return unsupported(dev, "press keys", err);
	return dev->ops->press_key(dev->state, key, err);
}

int sw_device_open_url(sw_device *dev, const char *url, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_OPEN_URL, open_url) || !url)
		return unsupported(dev, "open URLs", err);
	return dev->ops->open_url(dev->state, url, err);
}

int sw_device_keyboard(sw_device *dev, char **out_json, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_KEYBOARD, keyboard) || !out_json)
		return unsupported(dev, "report the keyboard", err);
	return dev->ops->keyboard(dev->state, out_json, err);
}

int sw_device_hide_keyboard(sw_device *dev, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_KEYBOARD, hide_keyboard))
		return unsupported(dev, "hide the keyboard", err);
	return dev->ops->hide_keyboard(dev->state, err);
}

int sw_device_foreground(sw_device *dev, char **out_json, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_FOREGROUND, foreground) || !out_json)
		return unsupported(dev, "report the foreground app", err);
	return dev->ops->foreground(dev->state, out_json, err);
}

int sw_device_install(sw_device *dev, const char *path, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_APP, install) || !path)
		return unsupported(dev, "install apps", err);
	return dev->ops->install(dev->state, path, err);
}

int sw_device_launch(sw_device *dev, const char *app_id, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_APP, launch))
		return unsupported(dev, "launch apps", err);
	return dev->ops->launch(dev->state, app_id, err);
}

int sw_device_force_stop(sw_device *dev, const char *app_id, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_APP, force_stop))
		return unsupported(dev, "stop apps", err);
	return dev->ops->force_stop(dev->state, app_id, err);
}

int sw_device_clear_text(sw_device *dev, size_t chars, sw_error **err)
{
	if (!HAS(dev, SW_DRIVER_CAP_INPUT, clear_text))
		return unsupported(dev, "clear text fields", err);
	return dev->ops->clear_text(dev->state, chars, err);
}

/* ---- version 2 ---------------------------------------------------------------- */

int sw_device_properties(sw_device *dev, char **out_json, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_PROPS, properties) || !out_json)
		return unsupported(dev, "report device properties", err);
	return dev->ops->properties(dev->state, out_json, err);
}

int sw_device_packages(sw_device *dev, char **out_json, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_PROPS, packages) || !out_json)
		return unsupported(dev, "list installed apps", err);
	return dev->ops->packages(dev->state, out_json, err);
}

int sw_device_rotation(sw_device *dev, int *rotation, int *auto_rotate, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_ROTATION, rotation) || !rotation || !auto_rotate)
		return unsupported(dev, "report the rotation", err);
	return dev->ops->rotation(dev->state, rotation, auto_rotate, err);
}

int sw_device_set_rotation(sw_device *dev, int rotation, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_ROTATION, set_rotation))
		return unsupported(dev, "rotate the screen", err);
	if (rotation < -1 || rotation > 3)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "rotation must be 0..3 or -1 (auto)");
	return dev->ops->set_rotation(dev->state, rotation, err);
}

int sw_device_airplane_mode(sw_device *dev, int *on, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_NETWORK, airplane_mode) || !on)
		return unsupported(dev, "report the network state", err);
	return dev->ops->airplane_mode(dev->state, on, err);
}

int sw_device_set_airplane_mode(sw_device *dev, int on, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_NETWORK, set_airplane_mode))
		return unsupported(dev, "toggle the network", err);
	return dev->ops->set_airplane_mode(dev->state, on ? 1 : 0, err);
}

int sw_device_geo_fix(sw_device *dev, double lat, double lng, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_GEO, geo_fix))
		return unsupported(dev, "set the location", err);
	return dev->ops->geo_fix(dev->state, lat, lng, err);
}

int sw_device_log_read(sw_device *dev, const char *since, char **text, size_t *len, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_LOGS, log_read) || !text)
		return unsupported(dev, "read the device log", err);
	size_t l = 0;
	return dev->ops->log_read(dev->state, since, text, len ? len : &l, err);
}

int sw_device_clock_offset(sw_device *dev, long *offset_s, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_LOGS, clock_offset) || !offset_s)
		return unsupported(dev, "read the device clock", err);
	return dev->ops->clock_offset(dev->state, offset_s, err);
}

int sw_device_clear_app_data(sw_device *dev, const char *app_id, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_APP_DATA, clear_app_data) || !app_id)
		return unsupported(dev, "clear app data", err);
	return dev->ops->clear_app_data(dev->state, app_id, err);
}

int sw_device_setting_get(sw_device *dev, const char *ns, const char *key, char **value, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_SETTINGS, setting_get) || !ns || !key || !value)
		return unsupported(dev, "read settings", err);
	*value = NULL;
	return dev->ops->setting_get(dev->state, ns, key, value, err);
}

int sw_device_setting_put(sw_device *dev, const char *ns, const char *key, const char *value, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_SETTINGS, setting_put) || !ns || !key || !value)
		return unsupported(dev, "change settings", err);
	return dev->ops->setting_put(dev->state, ns, key, value, err);
}

struct sw_recording {
	const struct sw_driver_ops *ops;
	void *rec;
};

int sw_device_record_start(sw_device *dev, int time_limit_s, sw_recording **out, long *pid, sw_error **err)
{
	if (!HAS2(dev, SW_DRIVER_CAP_RECORD, record_start) || !dev->ops->record_poll || !dev->ops->record_stop || !out)
		return unsupported(dev, "record the screen", err);
	sw_recording *r = calloc(1, sizeof(*r));
	if (!r)
		return sw__error_nomem(err);
	long p = 0;
	r->ops = dev->ops;
	int rc = dev->ops->record_start(dev->state, time_limit_s, &r->rec, &p, err);
	if (rc < 0) {
		free(r);
		return rc;
	}
	if (pid)
		*pid = p;
	*out = r;
	return SW_OK;
}

int sw_recording_poll(sw_recording *rec)
{
	return rec ? rec->ops->record_poll(rec->rec) : 0;
}

int sw_recording_stop(sw_recording *rec, const char *local_path, sw_error **err)
{
	if (!rec)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "no recording");
	int rc = rec->ops->record_stop(rec->rec, local_path, err);
	free(rec);
	return rc;
}

int sw_driver_devices(const struct sw_driver_ops *ops, sw_ctx *ctx, char **out_json, sw_error **err)
{
	if (!ops || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "ops and out_json must not be NULL");
	if (ops->version < 2 || !(ops->caps & SW_DRIVER_CAP_DEVICES) || !ops->devices)
		return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", NULL, "The %s driver cannot list devices",
		                     ops->name ? ops->name : "device");
	return ops->devices(ctx, out_json, err);
}

static const struct sw_driver_ops *registered[8];

void sw__driver_register(const struct sw_driver_ops *ops)
{
	for (size_t i = 0; i < SW_ARRAY_SIZE(registered); i++) {
		if (registered[i] == ops)
			return;
		if (!registered[i]) {
			registered[i] = ops;
			return;
		}
	}
}

const struct sw_driver_ops *sw_driver_find(const char *name)
{
	const struct sw_driver_ops *known[] = {sw_driver_android(), sw_driver_ios()};
	for (size_t i = 0; name && i < SW_ARRAY_SIZE(known); i++)
		if (known[i]->name && !strcmp(known[i]->name, name))
			return known[i];
	for (size_t i = 0; name && i < SW_ARRAY_SIZE(registered) && registered[i]; i++)
		if (registered[i]->name && !strcmp(registered[i]->name, name))
			return registered[i];
	return NULL;
}

void sw_drivers_shutdown(sw_ctx *ctx)
{
	const struct sw_driver_ops *known[] = {sw_driver_android(), sw_driver_ios()};
	for (size_t i = 0; i < SW_ARRAY_SIZE(known); i++)
		if (known[i]->version >= 2 && known[i]->shutdown)
			known[i]->shutdown(ctx);
}

/* ---- version 3 ---------------------------------------------------------------- */

void sw_observation_clear(sw_observation *o)
{
	if (!o)
		return;
	free(o->xml);
	free(o->dump_error);
	free(o->focus);
	free(o->log);
	memset(o, 0, sizeof(*o));
	o->version = SW_OBSERVATION_VERSION;
	o->frames_before = o->frames_after = -1;
	o->keyboard_shown = -1;
}

int sw_device_observe(sw_device *dev, const sw_observe_request *req, sw_observation *out, sw_error **err)
{
	if (!dev || !req || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "device, request and out must not be NULL");
	if (req->version == 0 || req->version > SW_OBSERVE_REQUEST_VERSION)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_observe_request version %u is not known (this library knows up to %d)",
		                     req->version, SW_OBSERVE_REQUEST_VERSION);
	memset(out, 0, sizeof(*out)); /* @out may be uninitialised: nothing in it is freed */
	out->version = SW_OBSERVATION_VERSION;
	out->frames_before = out->frames_after = -1;
	out->keyboard_shown = -1;
	if (HAS3(dev, SW_DRIVER_CAP_OBSERVE, observe))
		return dev->ops->observe(dev->state, req, out, err);
	/* the same look through the older slots, one call each */
	if (!HAS(dev, SW_DRIVER_CAP_DUMP, dump_ui))
		return unsupported(dev, "read the UI hierarchy", err);
	sw_error *e = NULL;
	int rc = dev->ops->dump_ui(dev->state, &out->xml, &out->xml_len, &e);
	if (rc < 0) {
		if (!e || strcmp(sw_error_failure_code(e), "SNAPSHOT_FAILED") != 0) {
			sw__error_propagate(err, e);
			return rc;
		}
		out->xml = NULL;
		out->dump_error = sw__strdup(sw_error_message(e));
		sw_error_free(e);
	}
	if (req->want_keyboard && HAS(dev, SW_DRIVER_CAP_KEYBOARD, keyboard)) {
		char *kb = NULL;
		if (dev->ops->keyboard(dev->state, &kb, NULL) == SW_OK && kb) {
			json_t *k = json_loads(kb, 0, NULL);
			out->keyboard_shown = json_is_true(json_object_get(k, "shown")) ? 1 : 0;
			json_decref(k);
		}
		free(kb);
	}
	if (req->want_log && HAS2(dev, SW_DRIVER_CAP_LOGS, log_read)) {
		if (dev->ops->log_read(dev->state, req->log_since, &out->log, &out->log_len, NULL) < 0) {
			out->log = NULL;
			out->log_len = 0;
		}
	}
	return SW_OK;
}

/* ---- version 4 ---------------------------------------------------------------- */

static int check_port(int port, const char *which, sw_error **err)
{
	if (port < 1 || port > 65535)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "the %s port must be 1..65535, not %d", which,
		                     port);
	return SW_OK;
}

int sw_device_reverse_add(sw_device *dev, int device_port, int host_port, sw_error **err)
{
	if (!HAS4(dev, SW_DRIVER_CAP_REVERSE, reverse_add))
		return unsupported(dev, "forward a device port back to the host (reverse)", err);
	int rc = check_port(device_port, "device", err);
	if (rc == SW_OK)
		rc = check_port(host_port, "host", err);
	return rc == SW_OK ? dev->ops->reverse_add(dev->state, device_port, host_port, err) : rc;
}

int sw_device_reverse_list(sw_device *dev, char **out_json, sw_error **err)
{
	if (!HAS4(dev, SW_DRIVER_CAP_REVERSE, reverse_list) || !out_json)
		return unsupported(dev, "list its reverse port forwards", err);
	*out_json = NULL;
	return dev->ops->reverse_list(dev->state, out_json, err);
}

int sw_device_reverse_remove(sw_device *dev, int device_port, int *removed, sw_error **err)
{
	if (!HAS4(dev, SW_DRIVER_CAP_REVERSE, reverse_remove))
		return unsupported(dev, "remove a reverse port forward", err);
	int rc = check_port(device_port, "device", err);
	if (rc != SW_OK)
		return rc;
	int got = 0;
	rc = dev->ops->reverse_remove(dev->state, device_port, &got, err);
	if (removed)
		*removed = got;
	return rc;
}
