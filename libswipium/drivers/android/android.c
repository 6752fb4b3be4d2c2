/* android.c: the Android driver: every device operation as an `adb` argv, and adb failures mapped to catalog codes. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../catalog/catalog-internal.h"
#include "android-internal.h"
#include "observe.h"

#define ADB_TIMEOUT_MS 20000
#define INSTALL_TIMEOUT_MS 240000
#define DUMP_ATTEMPTS 3
#define DUMP_PATH "/sdcard/window_dump.xml"
#define TYPED_MARKER "swipium-typed-ok"

typedef sw__android_dev android_dev;

/* ---- running adb -------------------------------------------------------- */

static char *join_argv(const char *const *argv)
{
	sw_buf b = SW_BUF_INIT;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sw__buf_putc(&b, ' ');
		sw__buf_puts(&b, i == 0 ? "adb" : argv[i]);
	}
	return sw__buf_steal(&b, NULL);
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

/* ---- the adb server this process started -------------------------------- */

/*
 * When the adb server is gone, the next adb client starts a new daemon ("* daemon not running; starting
 * now"). That daemon is ours: it is stopped at exit (sw_drivers_shutdown), and the failure says that the
 * adb server went away instead of blaming the device.
 */
static pthread_mutex_t daemon_lock = PTHREAD_MUTEX_INITIALIZER;
static char *daemon_adb; /* the adb that started it (NULL: none started by us) */

static bool started_daemon(const sw__proc_result *r)
{
	return r->err && (strstr(r->err, "daemon not running") || strstr(r->err, "daemon started successfully"));
}

static void note_daemon(const char *adb)
{
	pthread_mutex_lock(&daemon_lock);
	if (!daemon_adb)
		daemon_adb = sw__strdup(adb);
	pthread_mutex_unlock(&daemon_lock);
}

void sw__android_shutdown(sw_ctx *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&daemon_lock);
	char *adb = daemon_adb;
	daemon_adb = NULL;
	pthread_mutex_unlock(&daemon_lock);
	if (!adb)
		return;
	/* the daemon we started when the adb server had gone: it must not outlive us */
	const char *argv[] = {adb, "kill-server", NULL};
	sw__proc_opts o = {.timeout_ms = 10000, .same_group = true};
	sw__proc_result r;
	if (sw__proc_run(argv, &o, &r, NULL) == SW_OK)
		sw__proc_result_clear(&r);
	free(adb);
}

/* An adb-level failure (not the device command's own exit status). */
static bool adb_level_error(const sw__proc_result *r)
{
	const char *e = r->err ? r->err : "";
	while (*e == '\n' || *e == ' ')
		e++;
	return sw__str_has_prefix(e, "error:") || sw__str_has_prefix(e, "adb: error") ||
	       sw__str_has_prefix(e, "* daemon") || strstr(e, "cannot connect to daemon") ||
	       strstr(e, "failed to start daemon") || sw__str_has_prefix(e, "adb: device");
}

/* Device output quoted in an error: at most 500 characters, head and tail, never cut inside a character. */
static void cap_message(char **msg)
{
	if (!*msg)
		return;
	char *capped = sw__cap(*msg, 500);
	if (capped) {
		free(*msg);
		*msg = capped;
	}
}

static int fail_from(const sw__proc_result *r, const char *const *argv, sw_error **err)
{
	char *cmd = join_argv(argv);
	char *msg = sw__strdup(r->err && r->err[0] ? r->err : (r->out ? r->out : ""));
	if (msg)
		trim(msg);
	cap_message(&msg);
	const char *code = sw__android_failure_code(msg);
	const char *hint = !strcmp(code, "NO_DEVICE") ? "Start the emulator (qa_prepare_target with avd) and try again"
	                   : !strcmp(code, "DEVICE_NOT_READY")
	                       ? "Wait for the device to finish booting (qa_wait device_online)"
	                       : NULL;
	int rc = sw__error_set(err, sw__catalog_result(code, SW_EDEVICE), code, hint, "%s failed: %s", cmd ? cmd : "adb",
	                       msg && msg[0] ? msg : "no output");
	if (err && *err && cmd)
		sw__error_take_details(*err, json_pack("{ss}", "commandAttempted", cmd));
	free(cmd);
	free(msg);
	return rc;
}

/*
 * Runs `adb [-s serial] args...`. Fails on adb-level errors (unknown device,
 * offline, no server) and timeouts; a device command's own non-zero exit
 * comes back in r->status for the caller to judge.
 */
int sw__android_adb(const char *adb, const char *serial, const char *const *args, int timeout_ms, sw__proc_result *r,
                   sw_error **err)
{
	return sw__android_adb_abortable(adb, serial, args, timeout_ms, NULL, NULL, r, err);
}

int sw__android_adb_abortable(const char *adb, const char *serial, const char *const *args, int timeout_ms,
                              int (*abort_fn)(void *), void *abort_ud, sw__proc_result *r, sw_error **err)
{
	return sw__android_adb_input(adb, serial, args, NULL, 0, timeout_ms, abort_fn, abort_ud, r, err);
}

int sw__android_adb_input(const char *adb, const char *serial, const char *const *args, const char *in, size_t in_len,
                          int timeout_ms, int (*abort_fn)(void *), void *abort_ud, sw__proc_result *r, sw_error **err)
{
	sw__argv a = SW_ARGV_INIT;
	sw__argv_add(&a, adb);
	if (serial) {
		sw__argv_add(&a, "-s");
		sw__argv_add(&a, serial);
	}
	sw__argv_addv(&a, args);
	const char *const *argv = sw__argv_finish(&a, err);
	if (!argv) {
		sw__argv_free(&a);
		memset(r, 0, sizeof(*r));
		return SW_ENOMEM;
	}
	sw__proc_opts opts = {.timeout_ms = timeout_ms,
	                      .same_group = true,
	                      .abort_fn = abort_fn,
	                      .abort_ud = abort_ud,
	                      .in = in,
	                      .in_len = in_len};
	int rc = sw__proc_run(argv, &opts, r, err);
	if (rc < 0) {
		sw_error_free(err ? *err : NULL);
		if (err)
			*err = NULL;
		rc = sw__error_set(err, SW_ENOTFOUND, "ADB_NOT_FOUND", "Install the Android SDK platform-tools",
		                   "adb could not be started (%s)", adb);
		goto out;
	}
	if (started_daemon(r))
		note_daemon(adb);
	if (r->status != 0 && started_daemon(r)) {
		/* the adb server had gone away: say so; the device itself was never asked */
		char *first = sw__strdup(r->err);
		char *nl = first ? strstr(first, "\n* daemon started successfully") : NULL;
		const char *after = nl ? strstr(r->err, "successfully") : NULL;
		after = after ? after + strlen("successfully") : r->err;
		char *said = sw__cap(after, 300);
		rc = sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE",
		                   "Restart the adb server (adb kill-server; adb start-server) or the emulator, then "
		                   "qa_wait {for: \"device_online\"}",
		                   "The adb server is gone (it stopped or was killed): adb had to start a new one, which "
		                   "does not know %s yet. The device was not asked. adb said: %s",
		                   serial ? serial : "the device", said ? said : "");
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:s}", "adbServer", "gone"));
		free(said);
		free(first);
		sw__proc_result_clear(r);
		goto out;
	}
	if (r->cancelled) {
		sw__proc_result_clear(r);
		rc = sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "adb %s was stopped: the call was cancelled",
		                   args[0] ? args[0] : "");
		goto out;
	}
	if (r->timed_out) {
		char *cmd = join_argv(argv);
		rc =
		    sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Check that the device is responsive and retry",
		                  "%s did not finish within %d ms", cmd ? cmd : "adb", timeout_ms);
		if (err && *err && cmd)
			sw__error_take_details(*err, json_pack("{ss}", "commandAttempted", cmd));
		free(cmd);
		sw__proc_result_clear(r);
		goto out;
	}
	if (r->status != 0 && (adb_level_error(r) || r->status == 255 || r->status < 0)) {
		rc = fail_from(r, argv, err);
		sw__proc_result_clear(r);
		goto out;
	}
	rc = SW_OK;
out:
	sw__argv_free(&a);
	return rc;
}

int sw__android_shell(sw__android_dev *d, const char *cmd, int timeout_ms, sw__proc_result *r, sw_error **err)
{
	const char *args[] = {"shell", cmd, NULL};
	return sw__android_adb_abortable(d->adb, d->serial, args, timeout_ms, d->abort_fn, d->abort_ud, r, err);
}

/* Runs a device command that must exit 0 and print no Java exception. */
int sw__android_shell_ok(sw__android_dev *d, const char *cmd, const char *failure_code, sw_error **err)
{
	sw__proc_result r;
	int rc = sw__android_shell(d, cmd, ADB_TIMEOUT_MS, &r, err);
	if (rc < 0)
		return rc;
	if (r.status != 0 || strstr(r.out, "Exception") || strstr(r.err, "Exception") ||
	    sw__str_has_prefix(r.out, "Error")) {
		char *msg = sw__strdup(r.err[0] ? r.err : r.out);
		if (msg)
			trim(msg);
		cap_message(&msg);
		rc = sw__error_set(err, sw__catalog_result(failure_code, SW_EDEVICE), failure_code, NULL, "adb shell %s failed: %s", cmd,
		                   msg && msg[0] ? msg : "exit status");
		if (err && *err)
			sw__error_take_details(*err, json_pack("{ss}", "commandAttempted", cmd));
		free(msg);
	}
	sw__proc_result_clear(&r);
	return rc;
}

int sw__android_list_devices(const char *adb, json_t **out, sw_error **err)
{
	sw__proc_result r;
	const char *args[] = {"devices", "-l", NULL};
	int rc = sw__android_adb(adb, NULL, args, ADB_TIMEOUT_MS, &r, err);
	if (rc < 0)
		return rc;
	if (r.status != 0) {
		const char *argv[] = {adb, "devices", "-l", NULL};
		rc = fail_from(&r, argv, err);
		sw__proc_result_clear(&r);
		return rc;
	}
	*out = sw__android_parse_devices(r.out);
	sw__proc_result_clear(&r);
	return *out ? SW_OK : sw__error_nomem(err);
}

int sw__android_read_props(const char *adb, const char *serial, json_t **out, sw_error **err)
{
	sw__proc_result r;
	const char *args[] = {"shell", "getprop", NULL};
	int rc = sw__android_adb(adb, serial, args, ADB_TIMEOUT_MS, &r, err);
	if (rc < 0) {
		/* a device that is listed but cannot answer is not ready */
		if (err && *err && strcmp(sw_error_failure_code(*err), "ADB_NOT_FOUND") != 0) {
			sw_error *e = *err;
			*err = NULL;
			rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Wait for the device to finish booting",
			                   "The properties of %s could not be read: %s", serial, sw_error_message(e));
			sw_error_free(e);
		}
		return rc;
	}
	json_t *props = sw__android_parse_getprop(r.out);
	sw__proc_result_clear(&r);
	if (!props)
		return sw__error_nomem(err);
	if (json_object_size(props) == 0) {
		json_decref(props);
		return sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Wait for the device to finish booting",
		                     "The properties of %s could not be read (getprop printed nothing)", serial);
	}
	*out = props;
	return SW_OK;
}

static int no_adb(sw_error **err)
{
	return sw__error_set(err, SW_ENOTFOUND, "ADB_NOT_FOUND",
	                     "Install the Android SDK platform-tools, or put adb on PATH, or set ANDROID_HOME",
	                     "adb was not found on PATH or in the Android SDK");
}

char *sw__android_find_adb(sw_ctx *ctx)
{
	sw__android_tools t;
	sw__android_tools_find(ctx ? sw_ctx_get_home(ctx) : getenv("HOME"), &t);
	char *adb = t.adb;
	t.adb = NULL;
	sw__android_tools_clear(&t);
	return adb;
}

/* ---- public, device-less calls ------------------------------------------ */

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

int sw_android_tools(sw_ctx *ctx, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	sw__android_tools t;
	sw__android_tools_find(ctx ? sw_ctx_get_home(ctx) : getenv("HOME"), &t);
	json_t *o =
	    json_pack("{sososososo}", "sdk", str_or_null(t.sdk), "sdkSource", str_or_null(t.sdk_source), "adb",
	              str_or_null(t.adb), "adbSource", str_or_null(t.adb_source), "emulator", str_or_null(t.emulator));
	sw__android_tools_clear(&t);
	char *txt = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	if (!txt)
		return sw__error_nomem(err);
	*out_json = txt;
	return SW_OK;
}

/* Sets d.emulator: true/false, or null when the probe could not tell. */
static void classify(const char *adb, json_t *d, bool probe)
{
	const char *serial = json_string_value(json_object_get(d, "serial"));
	const char *state = json_string_value(json_object_get(d, "state"));
	if (serial && sw__android_serial_is_emulator(serial)) {
		json_object_set_new(d, "emulator", json_true());
		return;
	}
	if (!probe || !serial || !state || strcmp(state, "device") != 0) {
		json_object_set_new(d, "emulator", json_null());
		return;
	}
	json_t *props = NULL;
	if (sw__android_read_props(adb, serial, &props, NULL) < 0) {
		json_object_set_new(d, "emulator", json_null());
		return;
	}
	json_object_set_new(d, "emulator", json_boolean(sw__android_props_are_emulator(props)));
	json_decref(props);
}

int sw_android_devices(sw_ctx *ctx, int probe, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	char *adb = sw__android_find_adb(ctx);
	if (!adb)
		return no_adb(err);
	json_t *list = NULL;
	int rc = sw__android_list_devices(adb, &list, err);
	if (rc == SW_OK) {
		size_t i;
		json_t *d;
		json_array_foreach(list, i, d) classify(adb, d, probe != 0);
		char *txt = sw__json_compact(list);
		if (!txt)
			rc = sw__error_nomem(err);
		else
			*out_json = txt;
	}
	json_decref(list);
	free(adb);
	return rc;
}

int sw_android_input_text_args(const char *text, char **out_json, sw_error **err)
{
	if (!text || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "text and out_json must not be NULL");
	char **words = NULL;
	size_t n = 0;
	int rc = sw__android_input_text_words(text, &words, &n, err);
	if (rc < 0)
		return rc;
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < n; i++)
		json_array_append_new(arr, json_string(words[i]));
	sw__strv_free(words, n);
	char *txt = arr ? sw__json_compact(arr) : NULL;
	json_decref(arr);
	if (!txt)
		return sw__error_nomem(err);
	*out_json = txt;
	return SW_OK;
}

/* ---- probe -------------------------------------------------------------- */

static json_t *serial_list(json_t *list, bool online_only)
{
	json_t *arr = json_array();
	size_t i;
	json_t *d;
	json_array_foreach(list, i, d)
	{
		if (online_only && strcmp(json_string_value(json_object_get(d, "state")), "device") != 0)
			continue;
		json_array_append(arr, json_object_get(d, "serial"));
	}
	return arr;
}

static int android_probe(sw_ctx *ctx, const char *options_json, void **state, sw_error **err)
{
	int rc = SW_OK;
	json_t *opts = NULL, *list = NULL, *props = NULL;
	android_dev *d = NULL;
	char *adb = NULL;
	if (options_json && options_json[0]) {
		opts = json_loads(options_json, 0, NULL);
		if (!json_is_object(opts)) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                   "driver options must be a JSON object");
			goto out;
		}
	}
	const char *want = json_string_value(json_object_get(opts, "serial"));
	adb = sw__android_find_adb(ctx);
	if (!adb) {
		rc = no_adb(err);
		goto out;
	}
	rc = sw__android_list_devices(adb, &list, err);
	if (rc < 0)
		goto out;
	json_t *chosen = NULL;
	size_t i;
	json_t *dv;
	if (want) {
		json_array_foreach(list, i, dv) if (!strcmp(json_string_value(json_object_get(dv, "serial")), want))
		    chosen = dv;
		if (!chosen) {
			rc = sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE",
			                   "Pick a serial from `adb devices`, or boot an AVD",
			                   "Device %s is not attached", want);
			if (err && *err)
				sw__error_take_details(*err, json_pack("{so}", "devices", serial_list(list, false)));
			goto out;
		}
	} else {
		size_t online = 0, attached = json_array_size(list);
		json_array_foreach(list, i, dv) if (!strcmp(json_string_value(json_object_get(dv, "state")), "device"))
		{
			online++;
			chosen = dv;
		}
		if (online > 1) {
			json_t *serials = serial_list(list, true);
			char *s = sw__json_compact(serials);
			rc = sw__error_set(err, SW_EINVAL, "MULTIPLE_DEVICES", "Pass device with one of the serials",
			                   "%zu devices are online (%s); say which one to use", online, s ? s : "");
			free(s);
			if (err && *err)
				sw__error_take_details(*err, json_pack("{so}", "devices", serials));
			else
				json_decref(serials);
			goto out;
		}
		if (online == 0) {
			if (attached > 0) {
				json_t *first = json_array_get(list, 0);
				rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY",
				                   "Wait for the device to come online (qa_wait device_online)",
				                   "Device %s is attached but %s",
				                   json_string_value(json_object_get(first, "serial")),
				                   json_string_value(json_object_get(first, "state")));
			} else
				rc = sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE",
				                   "Boot an emulator (qa_prepare_target with avd) and try again",
				                   "No Android device or emulator is attached");
			goto out;
		}
	}
	const char *serial = json_string_value(json_object_get(chosen, "serial"));
	const char *st = json_string_value(json_object_get(chosen, "state"));
	if (strcmp(st, "device") != 0) {
		rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Wait for the device to come online",
		                   "Device %s is %s", serial, st);
		goto out;
	}
	rc = sw__android_read_props(adb, serial, &props, err);
	if (rc < 0)
		goto out;
	bool emu = sw__android_serial_is_emulator(serial) || sw__android_props_are_emulator(props);
	if (!emu) {
		const char *model = json_string_value(json_object_get(props, "ro.product.model"));
		rc = sw__error_set(err, SW_EDENIED, "PHYSICAL_DEVICE_UNSUPPORTED",
		                   "Use an Android emulator (boot an AVD); physical phones are not driven",
		                   "%s%s%s%s is a physical device; only emulators are supported", serial,
		                   model ? " (" : "", model ? model : "", model ? ")" : "");
		goto out;
	}
	const char *boot = json_string_value(json_object_get(props, "sys.boot_completed"));
	if (!boot || strcmp(boot, "1") != 0) {
		rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY",
		                   "Wait for boot to finish (qa_wait device_online)",
		                   "Emulator %s is still booting (sys.boot_completed is not 1)", serial);
		goto out;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		rc = sw__error_nomem(err);
		goto out;
	}
	d->ctx = ctx;
	d->adb = adb;
	adb = NULL;
	d->serial = sw__strdup(serial);
	d->emulator = true;
	d->props = props;
	props = NULL;
	if (!d->serial) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*state = d;
	d = NULL;
out:
	if (d) {
		free(d->adb);
		free(d->serial);
		json_decref(d->props);
		free(d);
	}
	free(adb);
	json_decref(props);
	json_decref(list);
	json_decref(opts);
	return rc;
}

static void android_release(void *state)
{
	android_dev *d = state;
	if (!d)
		return;
	free(d->adb);
	free(d->serial);
	json_decref(d->props);
	free(d);
}

static int android_describe(void *state, char **out_json, sw_error **err)
{
	android_dev *d = state;
	const char *p[] = {"ro.product.manufacturer", "ro.product.model", "ro.build.version.sdk",
	                   "ro.build.version.release", "ro.product.cpu.abilist"};
	const char *k[] = {"manufacturer", "model", "sdk", "release", "abis"};
	json_t *o = json_pack("{sssssb}", "platform", "android", "serial", d->serial, "emulator", d->emulator);
	for (size_t i = 0; o && i < SW_ARRAY_SIZE(p); i++)
		json_object_set_new(o, k[i], str_or_null(json_string_value(json_object_get(d->props, p[i]))));
	char *txt = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	if (!txt)
		return sw__error_nomem(err);
	*out_json = txt;
	return SW_OK;
}

/* ---- observe ------------------------------------------------------------ */

static int android_dump_ui(void *state, char **xml, size_t *len, sw_error **err)
{
	android_dev *d = state;
	sw__proc_result r;
	char last[512] = "no output";
	for (int attempt = 0; attempt < DUMP_ATTEMPTS; attempt++) {
		int rc = sw__android_shell(d, "uiautomator dump " DUMP_PATH, ADB_TIMEOUT_MS, &r, err);
		if (rc < 0)
			return rc;
		bool ok = r.status == 0 && strstr(r.out, "dumped to") != NULL;
		snprintf(last, sizeof(last), "%s", r.err[0] ? r.err : r.out);
		trim(last);
		sw__proc_result_clear(&r);
		if (!ok)
			continue; /* "could not get idle state" and friends: try again, bounded */
		const char *args[] = {"exec-out", "cat " DUMP_PATH, NULL};
		rc = sw__android_adb(d->adb, d->serial, args, ADB_TIMEOUT_MS, &r, err);
		if (rc < 0)
			return rc;
		if (r.status == 0 && r.out_len > 0) {
			*xml = r.out;
			*len = r.out_len;
			r.out = NULL;
			sw__proc_result_clear(&r);
			return SW_OK;
		}
		snprintf(last, sizeof(last), "reading %s failed: %s", DUMP_PATH, r.err[0] ? r.err : "empty file");
		trim(last);
		sw__proc_result_clear(&r);
	}
	return sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "Take the snapshot again",
	                     "uiautomator dump failed %d times: %s", DUMP_ATTEMPTS, last);
}

static int android_screencap(void *state, unsigned char **png, size_t *len, sw_error **err)
{
	android_dev *d = state;
	sw__proc_result r;
	const char *args[] = {"exec-out", "screencap -p", NULL};
	int rc = sw__android_adb(d->adb, d->serial, args, ADB_TIMEOUT_MS, &r, err);
	if (rc < 0)
		return rc;
	if (r.status != 0 || r.out_len < 8 || memcmp(r.out, "\x89PNG\r\n\x1a\n", 8) != 0) {
		rc = sw__error_set(err, SW_EDEVICE, "UNKNOWN", "Retry the screenshot",
		                   "screencap did not return a PNG (%zu bytes, exit %d)", r.out_len, r.status);
		sw__proc_result_clear(&r);
		return rc;
	}
	*png = (unsigned char *)r.out;
	*len = r.out_len;
	r.out = NULL;
	sw__proc_result_clear(&r);
	return SW_OK;
}

static int android_screen_size(void *state, int *w, int *h, sw_error **err)
{
	android_dev *d = state;
	if (d->width > 0) {
		*w = d->width;
		*h = d->height;
		return SW_OK;
	}
	sw__proc_result r;
	int rc = sw__android_shell(d, "wm size", ADB_TIMEOUT_MS, &r, err);
	if (rc < 0)
		return rc;
	bool ok = sw__android_parse_wm_size(r.out, &d->width, &d->height);
	sw__proc_result_clear(&r);
	if (!ok)
		return sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", NULL,
		                     "`wm size` did not report a screen size");
	*w = d->width;
	*h = d->height;
	return SW_OK;
}

static int android_keyboard(void *state, char **out_json, sw_error **err)
{
	android_dev *d = state;
	sw__proc_result r;
	int rc = sw__android_shell(d, "dumpsys input_method", ADB_TIMEOUT_MS, &r, err);
	if (rc < 0)
		return rc;
	bool shown = sw__android_parse_ime_shown(r.out);
	sw__proc_result_clear(&r);
	json_t *frame = json_null();
	if (shown) {
		rc = sw__android_shell(d, "dumpsys window windows", ADB_TIMEOUT_MS, &r, err);
		if (rc < 0)
			return rc;
		int f[4];
		if (sw__android_parse_ime_frame(r.out, f))
			frame = json_pack("[iiii]", f[0], f[1], f[2], f[3]);
		sw__proc_result_clear(&r);
	}
	json_t *o = json_pack("{sbso}", "shown", shown, "frame", frame);
	char *txt = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	if (!txt)
		return sw__error_nomem(err);
	*out_json = txt;
	return SW_OK;
}

static int android_foreground(void *state, char **out_json, sw_error **err)
{
	android_dev *d = state;
	sw__proc_result r;
	int rc = sw__android_shell(d, "dumpsys window", ADB_TIMEOUT_MS, &r, err);
	if (rc < 0)
		return rc;
	char *pkg = NULL, *act = NULL;
	bool ok = sw__android_parse_focus(r.out, &pkg, &act);
	sw__proc_result_clear(&r);
	json_t *o = json_pack("{soso}", "package", ok ? json_string(pkg) : json_null(), "activity",
	                      ok ? json_string(act) : json_null());
	free(pkg);
	free(act);
	char *txt = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	if (!txt)
		return sw__error_nomem(err);
	*out_json = txt;
	return SW_OK;
}

/* ---- act ---------------------------------------------------------------- */

static int android_tap(void *state, int x, int y, int duration_ms, sw_error **err)
{
	char cmd[128];
	if (duration_ms > 0)
		snprintf(cmd, sizeof(cmd), "input swipe %d %d %d %d %d", x, y, x, y, duration_ms);
	else
		snprintf(cmd, sizeof(cmd), "input tap %d %d", x, y);
	return sw__android_shell_ok(state, cmd, "UNKNOWN", err);
}

static int android_swipe(void *state, int x1, int y1, int x2, int y2, int duration_ms, sw_error **err)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "input swipe %d %d %d %d %d", x1, y1, x2, y2, duration_ms > 0 ? duration_ms : 300);
	return sw__android_shell_ok(state, cmd, "UNKNOWN", err);
}

static int android_type_text(void *state, const char *text, sw_error **err)
{
	char **words = NULL;
	size_t n = 0;
	if (!text[0])
		return SW_OK;
	int rc = sw__android_input_text_words(text, &words, &n, err);
	if (rc < 0)
		return rc;
	/*
	 * The text never goes into an argv (every local user can read /proc/PID/cmdline while adb runs, and a
	 * typed password is a secret): `adb -s SERIAL shell` reads one script line from its stdin instead.
	 */
	android_dev *d = state;
	sw_buf script = SW_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		sw__buf_puts(&script, "input text ");
		sw__buf_puts(&script, words[i]);
		sw__buf_puts(&script, " && ");
	}
	sw__buf_puts(&script, "echo " TYPED_MARKER "\nexit\n");
	sw__strv_free(words, n);
	size_t slen = 0;
	char *in = sw__buf_steal(&script, &slen);
	if (!in)
		return sw__error_nomem(err);
	const char *args[] = {"shell", NULL};
	sw__proc_result r;
	sw_error *e = NULL;
	rc = sw__android_adb_input(d->adb, d->serial, args, in, slen, ADB_TIMEOUT_MS, d->abort_fn, d->abort_ud, &r, &e);
	explicit_bzero(in, slen);
	free(in);
	if (rc < 0) {
		/* never echo the typed text back in an error */
		rc = sw__error_set(err, sw_error_code(e), sw_error_failure_code(e), NULL, "adb shell input text failed");
		sw_error_free(e);
		return rc;
	}
	if (!strstr(r.out, TYPED_MARKER) || strstr(r.out, "Exception") || strstr(r.err, "Exception"))
		rc = sw__error_set(err, SW_EDEVICE, "UNKNOWN", NULL, "adb shell input text failed (exit %d)", r.status);
	sw__proc_result_clear(&r);
	return rc;
}

static int android_press_key(void *state, const char *key, sw_error **err)
{
	static const struct {
		const char *name;
		int code;
	} keys[] = {{"back", 4}, {"home", 3}, {"enter", 66}, {"escape", 111}, {"del", 67}, {"tab", 61}, {"end", 123}};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++) {
		if (!strcmp(keys[i].name, key)) {
			char cmd[64];
			snprintf(cmd, sizeof(cmd), "input keyevent %d", keys[i].code);
			return sw__android_shell_ok(state, cmd, "UNKNOWN", err);
		}
	}
	return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "key is one of back, home, enter",
	                     "Unknown key \"%s\"", key);
}

static int android_clear_text(void *state, size_t chars, sw_error **err)
{
	/* one key sequence in one `input` command: MOVE_END, then DEL for each character */
	if (chars > 1000)
		chars = 1000;
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "input keyevent 123");
	for (size_t i = 0; i < chars; i++)
		sw__buf_puts(&b, " 67");
	char *cmd = sw__buf_steal(&b, NULL);
	if (!cmd)
		return sw__error_nomem(err);
	int rc = sw__android_shell_ok(state, cmd, "UNKNOWN", err);
	free(cmd);
	return rc;
}

static int android_hide_keyboard(void *state, sw_error **err)
{
	/* ESCAPE closes the soft keyboard without navigating back */
	return sw__android_shell_ok(state, "input keyevent 111", "KEYBOARD_NOT_DISMISSIBLE", err);
}

static int android_open_url(void *state, const char *url, sw_error **err)
{
	char *q = sw__android_shell_quote(url);
	char *cmd = q ? sw__asprintf("am start -W -a android.intent.action.VIEW -d %s", q) : NULL;
	free(q);
	if (!cmd)
		return sw__error_nomem(err);
	int rc = sw__android_shell_ok(state, cmd, "APP_LAUNCH_FAILED", err);
	free(cmd);
	return rc;
}

bool sw__android_valid_package(const char *s)
{
	/* segments of [A-Za-z][A-Za-z0-9_]*, at least two */
	int segs = 0;
	const char *p = s;
	while (*p) {
		if (!isalpha((unsigned char)*p))
			return false;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		segs++;
		if (*p == '.')
			p++;
		else if (*p)
			return false;
		else
			break;
	}
	return segs >= 2 && p[-1] != '.';
}

static int check_package(const char *app_id, sw_error **err)
{
	if (!app_id || !sw__android_valid_package(app_id))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "An app id looks like com.example.app",
		                     "\"%s\" is not a valid Android package name", app_id ? app_id : "");
	return SW_OK;
}

static int android_launch(void *state, const char *app_id, sw_error **err)
{
	android_dev *d = state;
	if (check_package(app_id, err) < 0)
		return SW_EINVAL;
	char *cmd = sw__asprintf("monkey -p %s -c android.intent.category.LAUNCHER 1", app_id);
	if (!cmd)
		return sw__error_nomem(err);
	sw__proc_result r;
	int rc = sw__android_shell(d, cmd, ADB_TIMEOUT_MS, &r, err);
	free(cmd);
	if (rc < 0)
		return rc;
	if (r.status != 0 || strstr(r.out, "No activities found") || strstr(r.err, "No activities found") ||
	    strstr(r.out, "monkey aborted") || strstr(r.err, "monkey aborted"))
		rc = sw__error_set(err, SW_EDEVICE, "APP_LAUNCH_FAILED",
		                   "Check that the app is installed (qa_prepare_target)",
		                   "%s could not be launched: no launcher activity answered", app_id);
	sw__proc_result_clear(&r);
	return rc;
}

static int android_force_stop(void *state, const char *app_id, sw_error **err)
{
	if (check_package(app_id, err) < 0)
		return SW_EINVAL;
	char *cmd = sw__asprintf("am force-stop %s", app_id);
	if (!cmd)
		return sw__error_nomem(err);
	int rc = sw__android_shell_ok(state, cmd, "UNKNOWN", err);
	free(cmd);
	return rc;
}

static int android_install(void *state, const char *path, sw_error **err)
{
	android_dev *d = state;
	if (!path || !sw__is_file(path))
		return sw__error_set(err, SW_ENOTFOUND, "NO_ARTIFACT",
		                     "Build the APK with the project's own build (e.g. ./gradlew assembleDebug) and pass "
		                     "its path",
		                     "The APK %s does not exist", path ? path : "(none)");
	sw__proc_result r;
	const char *args[] = {"install", "-r", path, NULL};
	int rc = sw__android_adb_abortable(d->adb, d->serial, args, INSTALL_TIMEOUT_MS, d->abort_fn, d->abort_ud, &r, err);
	if (rc < 0) {
		/* adb prints install failures as "adb: failed to install ...: Failure [...]" */
		if (err && *err && strstr(sw_error_message(*err), "Failure")) {
			sw_error *e = *err;
			*err = NULL;
			const char *code = sw__android_install_failure_code(sw_error_message(e));
			rc = sw__error_set(err, sw__catalog_result(code, SW_EDEVICE), code, NULL, "%s", sw_error_message(e));
			sw_error_free(e);
		}
		return rc;
	}
	if (r.status != 0 || !strstr(r.out, "Success")) {
		char *msg =
		    sw__strdup(strstr(r.out, "Failure") ? strstr(r.out, "Failure") : (r.err[0] ? r.err : r.out));
		if (msg)
			trim(msg);
		cap_message(&msg);
		const char *code = sw__android_install_failure_code(msg);
		rc = sw__error_set(err, sw__catalog_result(code, SW_EDEVICE), code, NULL, "adb install failed: %s",
		                   msg && msg[0] ? msg : "no output");
		free(msg);
	}
	sw__proc_result_clear(&r);
	return rc;
}

static const struct sw_driver_ops android_ops = {
    .version = SW_DRIVER_OPS_VERSION,
    .name = "android",
    .caps = SW_DRIVER_CAP_DUMP | SW_DRIVER_CAP_SCREENCAP | SW_DRIVER_CAP_INPUT | SW_DRIVER_CAP_OPEN_URL |
            SW_DRIVER_CAP_APP | SW_DRIVER_CAP_KEYBOARD | SW_DRIVER_CAP_FOREGROUND | SW_DRIVER_CAP_PROPS |
            SW_DRIVER_CAP_ROTATION | SW_DRIVER_CAP_NETWORK | SW_DRIVER_CAP_GEO | SW_DRIVER_CAP_LOGS |
            SW_DRIVER_CAP_RECORD | SW_DRIVER_CAP_APP_DATA | SW_DRIVER_CAP_SETTINGS | SW_DRIVER_CAP_DEVICES |
            SW_DRIVER_CAP_OBSERVE | SW_DRIVER_CAP_REVERSE,
    .probe = android_probe,
    .release = android_release,
    .describe = android_describe,
    .dump_ui = android_dump_ui,
    .screencap = android_screencap,
    .screen_size = android_screen_size,
    .tap = android_tap,
    .type_text = android_type_text,
    .swipe = android_swipe,
    .press_key = android_press_key,
    .open_url = android_open_url,
    .keyboard = android_keyboard,
    .hide_keyboard = android_hide_keyboard,
    .foreground = android_foreground,
    .install = android_install,
    .launch = android_launch,
    .force_stop = android_force_stop,
    .clear_text = android_clear_text,
    /* version 2 (control.c) */
    .properties = sw__android_properties,
    .packages = sw__android_packages,
    .rotation = sw__android_rotation,
    .set_rotation = sw__android_set_rotation,
    .airplane_mode = sw__android_airplane_mode,
    .set_airplane_mode = sw__android_set_airplane_mode,
    .geo_fix = sw__android_geo_fix,
    .log_read = sw__android_log_read,
    .clock_offset = sw__android_clock_offset,
    .record_start = sw__android_record_start,
    .record_poll = sw__android_record_poll,
    .record_stop = sw__android_record_stop,
    .clear_app_data = sw__android_clear_app_data,
    .setting_get = sw__android_setting_get,
    .setting_put = sw__android_setting_put,
    .devices = sw__android_devices_slot,
    .shutdown = sw__android_shutdown,
    /* version 3 (observe.c) */
    .observe = sw__android_observe,
    /* version 4 (reverse.c) */
    .reverse_add = sw__android_reverse_add,
    .reverse_list = sw__android_reverse_list,
    .reverse_remove = sw__android_reverse_remove,
};

const struct sw_driver_ops *sw_driver_android(void)
{
	return &android_ops;
}

/* ---- AVD boot ----------------------------------------------------------- */

static bool valid_avd_name(const char *s)
{
	if (!s || !*s || strlen(s) > 128)
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

int sw_android_boot_avd(sw_ctx *ctx, const char *avd, const char *options_json, char **out_json, sw_error **err)
{
	return sw_android_boot_avd_abortable(ctx, avd, options_json, NULL, NULL, out_json, err);
}

int sw_android_boot_avd_abortable(sw_ctx *ctx, const char *avd, const char *options_json, int (*abort_fn)(void *),
                                  void *abort_ud, char **out_json, sw_error **err)
{
	int rc = SW_OK;
	json_t *opts = NULL, *before = NULL, *now = NULL;
	sw__android_tools t;
	pid_t pid = -1;
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	if (!valid_avd_name(avd))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "AVD names use letters, digits, '.', '_' and '-'",
		                     "\"%s\" is not a valid AVD name", avd ? avd : "");
	sw__android_tools_find(ctx ? sw_ctx_get_home(ctx) : getenv("HOME"), &t);
	if (options_json && options_json[0])
		opts = json_loads(options_json, 0, NULL);
	bool headless = !json_is_false(json_object_get(opts, "headless"));
	json_int_t timeout = json_integer_value(json_object_get(opts, "timeoutMs"));
	if (timeout <= 0 || timeout > 180000)
		timeout = 180000;
	if (!t.adb) {
		rc = no_adb(err);
		goto out;
	}
	if (!t.emulator) {
		rc = sw__error_set(err, SW_EDEVICE, "EMULATOR_BOOT_FAILED",
		                   "Install the Android emulator (sdkmanager \"emulator\") or set ANDROID_HOME",
		                   "The Android emulator binary was not found in the SDK or on PATH");
		goto out;
	}
	/* the serials online before the boot; only a new one is ours */
	rc = sw__android_list_devices(t.adb, &before, err);
	if (rc < 0)
		goto out;
	const char *argv[] = {t.emulator, "-avd", avd, "-no-boot-anim", "-no-audio", headless ? "-no-window" : NULL,
	                      NULL};
	/* its own session and process group: a cancel stops the emulator and whatever it started */
	sw_error *se = NULL;
	if (sw__proc_spawn(argv, NULL, -1, &pid, &se) != SW_OK) {
		pid = -1;
		rc = sw__error_set(err, SW_EDEVICE, "EMULATOR_BOOT_FAILED", NULL, "cannot start the emulator: %s",
		                   sw_error_message(se));
		sw_error_free(se);
		goto out;
	}
	int64_t deadline = sw_monotonic_ms() + timeout;
	char *seen_serial = NULL;
	while (sw_monotonic_ms() < deadline) {
		if (abort_fn && abort_fn(abort_ud)) {
			/* cancelled: no emulator is left behind */
			sw__proc_stop(pid, SIGTERM, 2000);
			pid = -1;
			free(seen_serial);
			rc = sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL,
			                   "the boot of AVD %s was cancelled; the emulator was stopped", avd);
			goto out;
		}
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			pid = -1;
			rc = sw__error_set(err, SW_EDEVICE, "EMULATOR_BOOT_FAILED",
			                   "Check the AVD with `emulator -list-avds`",
			                   "The emulator for AVD %s exited (status %d) before the device came online",
			                   avd, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			free(seen_serial);
			goto out;
		}
		json_decref(now);
		now = NULL;
		if (sw__android_list_devices(t.adb, &now, NULL) == SW_OK) {
			size_t i, j;
			json_t *d, *b;
			json_array_foreach(now, i, d)
			{
				const char *serial = json_string_value(json_object_get(d, "serial"));
				bool old = false;
				json_array_foreach(
				    before, j, b) if (!strcmp(serial, json_string_value(json_object_get(b, "serial"))))
				    old = true;
				if (old || strcmp(json_string_value(json_object_get(d, "state")), "device") != 0)
					continue;
				json_t *props = NULL;
				if (sw__android_read_props(t.adb, serial, &props, NULL) < 0)
					continue;
				bool emu =
				    sw__android_serial_is_emulator(serial) || sw__android_props_are_emulator(props);
				const char *boot = json_string_value(json_object_get(props, "sys.boot_completed"));
				bool booted = boot && !strcmp(boot, "1");
				json_decref(props);
				if (!emu)
					continue;
				if (!seen_serial)
					seen_serial = sw__strdup(serial);
				if (booted) {
					json_t *o =
					    json_pack("{sssssI}", "serial", serial, "avd", avd, "pid", (json_int_t)pid);
					char *txt = o ? sw__json_compact(o) : NULL;
					json_decref(o);
					free(seen_serial);
					if (!txt) {
						rc = sw__error_nomem(err);
						goto out;
					}
					*out_json = txt;
					pid = -1; /* the emulator keeps running */
					goto out;
				}
			}
		}
		struct timespec ts = {0, 250 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (seen_serial)
		rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Wait longer (qa_wait device_online)",
		                   "Emulator %s came online but did not finish booting within %lld ms", seen_serial,
		                   (long long)timeout);
	else
		rc = sw__error_set(err, SW_EDEVICE, "EMULATOR_BOOT_FAILED", "Check the AVD with `emulator -list-avds`",
		                   "No new emulator came online within %lld ms", (long long)timeout);
	free(seen_serial);
	pid = -1; /* leave a slow emulator running; a later qa_wait may still see it */
out:
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	json_decref(opts);
	json_decref(before);
	json_decref(now);
	sw__android_tools_clear(&t);
	return rc;
}
