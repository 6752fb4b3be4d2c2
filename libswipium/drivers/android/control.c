/* control.c: the Android driver's version 2 slots: properties, rotation, network, location, logs, recording,
 * app data, settings, the device list. Every one is an adb argv on the handle's adb (found once, at probe). */
#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "android-internal.h"

#define SHELL_TIMEOUT_MS 20000
#define PULL_TIMEOUT_MS 60000

/* stdout of `adb shell CMD`, trailing newlines cut; *status (nullable) its exit status. (transfer full) */
static int shell_out(sw__android_dev *d, const char *cmd, int timeout_ms, char **out, int *status, sw_error **err)
{
	sw__proc_result r;
	int rc = sw__android_shell(d, cmd, timeout_ms, &r, err);
	if (rc < 0)
		return rc;
	if (status)
		*status = r.status;
	size_t n = r.out_len;
	while (n && (r.out[n - 1] == '\n' || r.out[n - 1] == '\r'))
		n--;
	*out = sw__strndup(r.out, n);
	sw__proc_result_clear(&r);
	return *out ? SW_OK : sw__error_nomem(err);
}

static json_t *prop_or_null(json_t *props, const char *key)
{
	const char *v = json_string_value(json_object_get(props, key));
	return v && *v ? json_string(v) : json_null();
}

static int finish(json_t *o, char **out_json, sw_error **err)
{
	*out_json = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* ---- properties ------------------------------------------------------------- */

int sw__android_properties(void *state, char **out_json, sw_error **err)
{
	sw__android_dev *d = state;
	char *gp = NULL, *size = NULL, *dens = NULL;
	int rc = shell_out(d, "getprop", SHELL_TIMEOUT_MS, &gp, NULL, err);
	if (rc == SW_OK)
		rc = shell_out(d, "wm size", SHELL_TIMEOUT_MS, &size, NULL, err);
	if (rc == SW_OK)
		rc = shell_out(d, "wm density", SHELL_TIMEOUT_MS, &dens, NULL, err);
	if (rc != SW_OK)
		goto out;
	json_t *props = sw__android_parse_getprop(gp);
	json_t *abis = json_array();
	const char *abil = json_string_value(json_object_get(props, "ro.product.cpu.abilist"));
	if (abil) {
		char *c = sw__strdup(abil), *save = NULL;
		for (char *t = c ? strtok_r(c, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
			json_array_append_new(abis, json_string(t));
		free(c);
	}
	json_t *locale = prop_or_null(props, "persist.sys.locale");
	if (json_is_null(locale)) {
		json_decref(locale);
		locale = prop_or_null(props, "ro.product.locale");
	}
	json_t *screen = json_object();
	int w = 0, h = 0;
	if (sw__android_parse_wm_size(size, &w, &h)) {
		json_object_set_new(screen, "width", json_integer(w));
		json_object_set_new(screen, "height", json_integer(h));
	} else {
		json_object_set_new(screen, "width", json_null());
		json_object_set_new(screen, "height", json_null());
	}
	const char *dp = dens ? strrchr(dens, ':') : NULL;
	json_object_set_new(screen, "density", dp ? json_integer(atoi(dp + 1)) : json_null());
	bool emu = sw__android_serial_is_emulator(d->serial) || sw__android_props_are_emulator(props) == 1;
	json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o}", "manufacturer",
	                      prop_or_null(props, "ro.product.manufacturer"), "model",
	                      prop_or_null(props, "ro.product.model"), "sdk", prop_or_null(props, "ro.build.version.sdk"),
	                      "release", prop_or_null(props, "ro.build.version.release"), "abis", abis, "locale", locale,
	                      "timezone", prop_or_null(props, "persist.sys.timezone"), "emulator", emu, "screen", screen);
	json_decref(props);
	rc = finish(o, out_json, err);
out:
	free(gp);
	free(size);
	free(dens);
	return rc;
}

int sw__android_packages(void *state, char **out_json, sw_error **err)
{
	char *pk = NULL;
	int rc = shell_out(state, "pm list packages -3", SHELL_TIMEOUT_MS, &pk, NULL, err);
	if (rc != SW_OK)
		return rc;
	json_t *a = json_array();
	char *save = NULL;
	for (char *t = strtok_r(pk, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		if (strncmp(t, "package:", 8))
			continue;
		char *name = t + 8;
		size_t nl = strlen(name);
		if (nl && name[nl - 1] == '\r')
			name[nl - 1] = '\0';
		json_array_append_new(a, json_string(name));
	}
	free(pk);
	return finish(a, out_json, err);
}

/* ---- rotation ------------------------------------------------------------------ */

int sw__android_parse_rotation(const char *out)
{
	const char *p = out ? strstr(out, "mCurrentRotation=") : NULL;
	if (!p)
		return -1;
	p += strlen("mCurrentRotation=");
	if (!strncmp(p, "ROTATION_", 9))
		return atoi(p + 9) / 90 % 4;
	if (*p >= '0' && *p <= '3')
		return *p - '0';
	return -1;
}

int sw__android_rotation(void *state, int *rotation, int *auto_rotate, sw_error **err)
{
	sw__android_dev *d = state;
	char *out = NULL;
	int rc = shell_out(d, "dumpsys window displays", 15000, &out, NULL, err);
	if (rc != SW_OK)
		return rc;
	*rotation = sw__android_parse_rotation(out);
	free(out);
	out = NULL;
	if (*rotation < 0) {
		rc = shell_out(d, "dumpsys window", 15000, &out, NULL, err);
		if (rc != SW_OK)
			return rc;
		*rotation = sw__android_parse_rotation(out);
		free(out);
		out = NULL;
	}
	rc = shell_out(d, "settings get system accelerometer_rotation", 10000, &out, NULL, err);
	if (rc != SW_OK)
		return rc;
	*auto_rotate = !strcmp(out, "1") ? 1 : !strcmp(out, "0") ? 0 : -1;
	free(out);
	return SW_OK;
}

int sw__android_set_rotation(void *state, int rotation, sw_error **err)
{
	sw__android_dev *d = state;
	if (rotation < 0)
		return sw__android_shell_ok(d, "settings put system accelerometer_rotation 1", "UNKNOWN", err);
	int rc = sw__android_shell_ok(d, "settings put system accelerometer_rotation 0", "UNKNOWN", err);
	if (rc != SW_OK)
		return rc;
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "settings put system user_rotation %d", rotation % 4);
	return sw__android_shell_ok(d, cmd, "UNKNOWN", err);
}

/* ---- network ------------------------------------------------------------------- */

int sw__android_airplane_mode(void *state, int *on, sw_error **err)
{
	char *out = NULL;
	int rc = shell_out(state, "settings get global airplane_mode_on", 10000, &out, NULL, err);
	if (rc != SW_OK)
		return rc;
	if (!strcmp(out, "1"))
		*on = 1;
	else if (!strcmp(out, "0") || !strcmp(out, "null"))
		*on = 0;
	else {
		char *said = sw__cap(out, 80);
		rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", NULL, "unexpected airplane_mode_on value: %s",
		                   said ? said : "");
		free(said);
	}
	free(out);
	return rc;
}

int sw__android_set_airplane_mode(void *state, int on, sw_error **err)
{
	char *out = NULL;
	int st = 0;
	int rc = shell_out(state, on ? "cmd connectivity airplane-mode enable" : "cmd connectivity airplane-mode disable",
	                   15000, &out, &st, err);
	if (rc != SW_OK)
		return rc;
	free(out);
	int now = -1;
	rc = sw__android_airplane_mode(state, &now, err);
	if (rc != SW_OK)
		return rc;
	if (st != 0 || now != on)
		return sw__error_set(err, SW_EDEVICE, "UNKNOWN", "this needs Android 11 or later (cmd connectivity airplane-mode)",
		                     "the device rejected the airplane-mode toggle; nothing was changed");
	return SW_OK;
}

/* ---- location ------------------------------------------------------------------ */

int sw__android_geo_fix(void *state, double lat, double lng, sw_error **err)
{
	sw__android_dev *d = state;
	if (!isfinite(lat) || !isfinite(lng) || lat < -90 || lat > 90 || lng < -180 || lng > 180)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "lat must be within -90..90 and lng within -180..180 (decimal degrees)");
	if (!sw__android_serial_is_emulator(d->serial))
		return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", NULL,
		                     "setting the location needs an emulator console; %s is not an emulator", d->serial);
	char slat[32], slng[32];
	snprintf(slat, sizeof(slat), "%.6f", lat);
	snprintf(slng, sizeof(slng), "%.6f", lng);
	const char *args[] = {"emu", "geo", "fix", slng, slat, NULL};
	sw__proc_result r;
	int rc = sw__android_adb(d->adb, d->serial, args, 15000, &r, err);
	if (rc < 0)
		return rc;
	if (r.status != 0 || strstr(r.out, "KO")) {
		char *said = sw__cap(r.out, 200), *said_err = sw__cap(r.err, 200);
		rc = sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE", "check that the emulator console port is reachable",
		                   "the emulator console refused geo fix: %s%s", said ? said : "", said_err ? said_err : "");
		free(said);
		free(said_err);
	}
	sw__proc_result_clear(&r);
	return rc;
}

/* ---- logs and the clock ---------------------------------------------------------- */

int sw__android_log_read(void *state, const char *since, char **text, size_t *len, sw_error **err)
{
	/* Only the lines from @since on (logcat -T): a read costs the bytes since the last look, not the buffer. */
	sw__android_dev *d = state;
	sw__proc_result r;
	bool stamp = since && strlen(since) >= 14 && strlen(since) <= 18 && since[2] == '-' && since[5] == ' ' &&
	             strspn(since, "0123456789- :.") == strlen(since);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "logcat -d -b main -b system -b crash -v threadtime%s%s%s", stamp ? " -T '" : "",
	         stamp ? since : "", stamp ? "'" : "");
	int rc = sw__android_shell(d, cmd, SHELL_TIMEOUT_MS, &r, err);
	if (rc < 0)
		return rc;
	if (r.status != 0) {
		/* an older logcat without the crash buffer: the default buffers, still from @since on */
		sw__proc_result_clear(&r);
		snprintf(cmd, sizeof(cmd), "logcat -d -v threadtime%s%s%s", stamp ? " -T '" : "", stamp ? since : "",
		         stamp ? "'" : "");
		rc = sw__android_shell(d, cmd, SHELL_TIMEOUT_MS, &r, err);
		if (rc < 0)
			return rc;
		if (r.status != 0) {
			char *said = sw__cap(r.err, 200);
			rc = sw__error_set(err, SW_EDEVICE, "UNKNOWN", NULL, "logcat failed (exit %d): %s", r.status,
			                   said ? said : "");
			free(said);
			sw__proc_result_clear(&r);
			return rc;
		}
	}
	*text = r.out;
	*len = r.out_len;
	r.out = NULL;
	sw__proc_result_clear(&r);
	return SW_OK;
}

int sw__android_clock_offset(void *state, long *offset_s, sw_error **err)
{
	sw__android_dev *d = state;
	if (d->clock_known) {
		*offset_s = d->clock_offset_s;
		return SW_OK;
	}
	char *out = NULL;
	int st = 0;
	int rc = shell_out(d, "date +%Y-%m-%dT%H:%M:%S", 10000, &out, &st, err);
	if (rc != SW_OK)
		return rc;
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *end = st == 0 ? strptime(out, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	free(out);
	if (!end)
		return sw__error_set(err, SW_EDEVICE, "UNKNOWN", NULL, "the device's `date` could not be read");
	time_t dev_local_as_utc = timegm(&tm);
	time_t now = time(NULL);
	/* whole quarter-hours only: the clocks themselves are in sync, the difference is the time zone */
	long off = (long)(dev_local_as_utc - now);
	d->clock_offset_s = (off >= 0 ? off + 450 : off - 450) / 900 * 900;
	d->clock_known = true;
	*offset_s = d->clock_offset_s;
	return SW_OK;
}

/* ---- screen recording ------------------------------------------------------------ */

struct android_rec {
	char *adb, *serial, *remote;
	pid_t pid;
	bool exited;
};

static void rec_free(struct android_rec *r)
{
	if (!r)
		return;
	free(r->adb);
	free(r->serial);
	free(r->remote);
	free(r);
}

int sw__android_record_start(void *state, int time_limit_s, void **rec_out, long *pid_out, sw_error **err)
{
	sw__android_dev *d = state;
	if (time_limit_s <= 0 || time_limit_s > 180)
		time_limit_s = 180;
	struct android_rec *r = calloc(1, sizeof(*r));
	if (!r)
		return sw__error_nomem(err);
	r->adb = sw__strdup(d->adb);
	r->serial = sw__strdup(d->serial);
	r->remote = sw__asprintf("/sdcard/swipium-rec-%ld-%ld.mp4", (long)getpid(), (long)time(NULL));
	sw__argv a = SW_ARGV_INIT;
	sw__argv_add(&a, d->adb);
	sw__argv_add(&a, "-s");
	sw__argv_add(&a, d->serial);
	sw__argv_add(&a, "shell");
	sw__argv_add(&a, "screenrecord");
	sw__argv_add(&a, "--time-limit");
	sw__argv_addf(&a, "%d", time_limit_s);
	sw__argv_add(&a, r->remote);
	const char *const *argv = r->adb && r->serial && r->remote ? sw__argv_finish(&a, err) : NULL;
	int rc = argv ? sw__proc_spawn(argv, NULL, -1, &r->pid, err) : (err && *err ? SW_ENOMEM : sw__error_nomem(err));
	sw__argv_free(&a);
	if (rc < 0) {
		rec_free(r);
		return rc;
	}
	*rec_out = r;
	*pid_out = r->pid;
	return SW_OK;
}

int sw__android_record_poll(void *rec)
{
	struct android_rec *r = rec;
	if (!r->exited && sw__proc_ended(r->pid, NULL))
		r->exited = true;
	return r->exited ? 0 : 1;
}

int sw__android_record_stop(void *rec, const char *local_path, sw_error **err)
{
	struct android_rec *r = rec;
	sw__android_dev d = {.adb = r->adb, .serial = r->serial};
	sw__proc_result pr;
	int rc = SW_OK;
	if (sw__android_record_poll(r)) {
		/* screenrecord finishes its file on SIGINT; then the adb client ends */
		if (sw__android_shell(&d, "pkill -INT screenrecord", 10000, &pr, NULL) == SW_OK)
			sw__proc_result_clear(&pr);
		for (int i = 0; i < 50 && sw__android_record_poll(r); i++)
			usleep(100 * 1000);
		if (!r->exited) {
			sw__proc_stop(r->pid, SIGINT, 2000);
			r->exited = true;
		}
	}
	if (local_path) {
		const char *args[] = {"pull", r->remote, local_path, NULL};
		rc = sw__android_adb(r->adb, r->serial, args, PULL_TIMEOUT_MS, &pr, err);
		if (rc == SW_OK) {
			struct stat sb;
			if (pr.status != 0 || stat(local_path, &sb) != 0 || sb.st_size == 0) {
				char *said = sw__cap(pr.out, 200);
				rc = sw__error_set(err, SW_EIO, "UNKNOWN",
				                   "the device may have stopped the recording before any frame",
				                   "could not pull the recording %s: %s", r->remote, said ? said : "");
				free(said);
				unlink(local_path);
			}
			sw__proc_result_clear(&pr);
		}
	}
	char *rm = sw__asprintf("rm -f %s", r->remote);
	if (rm && sw__android_shell(&d, rm, 10000, &pr, NULL) == SW_OK)
		sw__proc_result_clear(&pr);
	free(rm);
	rec_free(r);
	return rc;
}

/* ---- app data, settings ------------------------------------------------------------ */

int sw__android_clear_app_data(void *state, const char *app_id, sw_error **err)
{
	if (!app_id || !sw__android_valid_package(app_id))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "An app id looks like com.example.app",
		                     "\"%s\" is not a valid Android package name", app_id ? app_id : "");
	char *cmd = sw__asprintf("pm clear %s", app_id);
	if (!cmd)
		return sw__error_nomem(err);
	char *out = NULL;
	int st = 0;
	int rc = shell_out(state, cmd, 30000, &out, &st, err);
	free(cmd);
	if (rc == SW_OK && (st != 0 || !strstr(out, "Success"))) {
		char *said = sw__cap(out, 200);
		rc = sw__error_set(err, SW_ENOTFOUND, "BUNDLE_ID_NOT_FOUND", "check the session's app id with qa_status",
		                   "pm clear %s failed: %s", app_id, said ? said : "");
		free(said);
	}
	free(out);
	return rc;
}

static bool valid_setting(const char *ns, const char *key, sw_error **err)
{
	if (!ns || (strcmp(ns, "system") && strcmp(ns, "global") && strcmp(ns, "secure"))) {
		sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "a settings namespace is system, global or secure");
		return false;
	}
	bool ok = key && *key && strlen(key) <= 128;
	for (const char *p = key; ok && *p; p++)
		ok = isalnum((unsigned char)*p) || *p == '_' || *p == '.';
	if (!ok)
		sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		              "a setting name uses letters, digits, '_' and '.' (at most 128)");
	return ok;
}

int sw__android_setting_get(void *state, const char *ns, const char *key, char **value, sw_error **err)
{
	if (!valid_setting(ns, key, err))
		return SW_EINVAL;
	char *cmd = sw__asprintf("settings get %s %s", ns, key);
	if (!cmd)
		return sw__error_nomem(err);
	char *out = NULL;
	int rc = shell_out(state, cmd, 10000, &out, NULL, err);
	free(cmd);
	if (rc != SW_OK)
		return rc;
	if (!strcmp(out, "null")) {
		free(out);
		out = NULL;
	}
	*value = out;
	return SW_OK;
}

int sw__android_setting_put(void *state, const char *ns, const char *key, const char *value, sw_error **err)
{
	if (!valid_setting(ns, key, err))
		return SW_EINVAL;
	char *q = sw__android_shell_quote(value);
	char *cmd = q ? sw__asprintf("settings put %s %s %s", ns, key, q) : NULL;
	free(q);
	if (!cmd)
		return sw__error_nomem(err);
	int rc = sw__android_shell_ok(state, cmd, "UNKNOWN", err);
	free(cmd);
	return rc;
}

/* ---- devices ----------------------------------------------------------------------- */

int sw__android_devices_slot(sw_ctx *ctx, char **out_json, sw_error **err)
{
	char *adb = sw__android_find_adb(ctx);
	if (!adb)
		return sw__error_set(err, SW_ENOTFOUND, "ADB_NOT_FOUND",
		                     "Install the Android SDK platform-tools, or put adb on PATH, or set ANDROID_HOME",
		                     "adb was not found on PATH or in the Android SDK");
	json_t *list = NULL;
	int rc = sw__android_list_devices(adb, &list, err);
	free(adb);
	if (rc < 0)
		return rc;
	return finish(list, out_json, err);
}
