/* bind.c: a session's device and its books: sw_drive_bind() and the drive calls that keep the session's
 * counters and recorded actions (qa_act, qa_snapshot, qa_screenshot, qa_visual's tap). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions-internal.h"
#include <swipium/generate.h>
#include "../drivers/ios/ios-internal.h"
#include <swipium/ios.h>
#include <swipium/session.h>
#include <swipium/util.h>

/* ---- redaction hooks ------------------------------------------------------------------ */

/* ${SWIPIUM_*} typed by qa_act: a value answered through qa_continue_from_blocker (memory only) first. */
static char *hook_input(const char *name, void *ud)
{
	return sw_session_input_get(ud, name);
}

/* Masks the session's known secrets in text the drive returns; NULL = unchanged. */
static char *hook_redact(const char *text, void *ud)
{
	sw_redactor *r = sw_session_redactor(ud);
	if (!r || sw_redactor_count(r) == 0)
		return NULL;
	char *out = NULL;
	if (sw_redactor_redact_text(r, text, strlen(text), &out, NULL, NULL, NULL) != SW_OK)
		return NULL;
	if (!strcmp(out, text)) {
		sw_free(out);
		return NULL;
	}
	return out;
}

/* Registers a value the drive typed as a secret of the session. */
static void hook_secret(const char *value, void *ud)
{
	sw_redactor *r = sw_session_redactor(ud);
	if (r)
		sw_redactor_add_secret(r, value, NULL);
}

/* ---- binding ----------------------------------------------------------------------------- */

/* The serial a session is bound to, from its persisted state. (transfer full, nullable) */
static char *session_serial(sw_session *s)
{
	json_t *dev = NULL;
	if (sw__session_get(s, "device", &dev, NULL) < 0)
		return NULL;
	const char *serial = json_string_value(json_object_get(dev, "serial"));
	char *copy = serial ? sw__strdup(serial) : NULL;
	json_decref(dev);
	return copy;
}

/* Records the device the session took: device {platform, serial} and driverKind "adb". */
static void record_device(sw_session *s, sw_device *dev)
{
	char *desc = NULL;
	if (sw_device_describe(dev, &desc, NULL) != SW_OK)
		return;
	json_t *d = json_loads(desc, 0, NULL);
	sw_free(desc);
	bool ios = sw_device_ops(dev) == sw_driver_ios();
	json_t *rec = ios ? json_pack("{s:s,s:O,s:O*,s:O*}", "platform", "ios", "serial", json_object_get(d, "serial"), "name",
	                              json_object_get(d, "name"), "runtime", json_object_get(d, "runtime"))
	                  : json_pack("{s:s,s:O}", "platform", "android", "serial", json_object_get(d, "serial"));
	json_t *kind = json_string(ios ? "simctl" : "adb");
	if (rec && kind) {
		sw__session_set(s, "device", rec, NULL);
		sw__session_set(s, "driverKind", kind, NULL);
	}
	json_decref(kind);
	json_decref(rec);
	json_decref(d);
}

/* The session's recorded platform ("android" when none is recorded). */
static bool session_is_ios(sw_session *s)
{
	json_t *dev = NULL;
	if (sw__session_get(s, "device", &dev, NULL) < 0)
		return false;
	const char *p = json_string_value(json_object_get(dev, "platform"));
	bool ios = p && !strcmp(p, "ios");
	json_decref(dev);
	return ios;
}

/* The iOS driver's bind options beyond the serial: the session's app and its attached WebDriverAgent. */
static void ios_bind_options(sw_session *s, json_t *dopts)
{
	json_t *v = NULL;
	if (sw__session_get(s, "appId", &v, NULL) == SW_OK && json_is_string(v))
		json_object_set(dopts, "appId", v);
	json_decref(v);
	v = NULL;
	if (sw__session_get(s, "wdaUrl", &v, NULL) == SW_OK && json_is_string(v)) {
		json_t *w = json_pack("{s:O}", "url", v);
		/* ios.wda.capabilities (.swipium/config.json), as attach asked for them: the driver's own WDA session and
		 * its recreation after "invalid session id" ask for the same */
		json_t *caps = w ? sw__wda_setting(s, "capabilities") : NULL;
		if (json_is_object(caps))
			json_object_set(w, "capabilities", caps);
		json_decref(caps);
		if (w)
			json_object_set_new(dopts, "wda", w);
	}
	json_decref(v);
}

/* Applies the session's budget.maxSnapshotFailures to the drive's tracker (when dumps go visual-only). */
static void apply_budget(sw_session *s, sw_drive *drive)
{
	json_t *budget = NULL;
	if (sw__session_get(s, "budget", &budget, NULL) < 0)
		return;
	json_t *m = json_object_get(budget, "maxSnapshotFailures");
	if (json_is_number(m) && json_number_value(m) >= 1)
		sw_snapshot_tracker_set_max_failures(sw_drive_tracker(drive), (unsigned)json_number_value(m));
	json_decref(budget);
}

static void drive_free_attached(void *d)
{
	sw_drive_free(d);
}

static const sw__opt bind_opts[] = {{"serial", SW__OPT_STRING, false}, {NULL}};

SW_API int sw_drive_bind(sw_ctx *ctx, sw_session *s, const char *options_json, sw_drive **out, sw_error **err)
{
	if (!ctx || !s || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "ctx, session and out must not be NULL");
	*out = NULL;
	json_t *opts = NULL;
	int rc = sw__options_load(options_json, bind_opts, "sw_drive_bind options", &opts, err);
	if (rc < 0)
		return rc;
	sw_drive *bound = sw__session_attached(s);
	const char *asked = json_string_value(json_object_get(opts, "serial"));
	if (bound) {
		char *serial = asked ? session_serial(s) : NULL;
		bool same = !asked || (serial && !strcmp(serial, asked));
		free(serial);
		if (same) {
			json_decref(opts);
			*out = bound;
			return SW_OK;
		}
		sw_drive_unbind(s);
	}
	const char *disabled = getenv("SWIPIUM_DISABLE_DEVICE_DISCOVERY");
	if (disabled && !strcmp(disabled, "1")) {
		json_decref(opts);
		return sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE", NULL,
		                     "Device discovery is disabled (SWIPIUM_DISABLE_DEVICE_DISCOVERY=1).");
	}
	char *recorded = session_serial(s);
	const char *serial = asked ? asked : recorded;
	json_t *dopts = json_object();
	if (dopts && serial)
		json_object_set_new(dopts, "serial", json_string(serial));
	bool ios = session_is_ios(s);
	if (dopts && ios)
		ios_bind_options(s, dopts);
	char *doj = dopts ? sw__json_compact(dopts) : NULL;
	json_decref(dopts);
	json_decref(opts);
	if (!doj) {
		free(recorded);
		return sw__error_nomem(err);
	}
	sw_device *dev = NULL;
	sw_drive *drive = NULL;
	rc = sw_device_open(ctx, ios ? sw_driver_ios() : sw_driver_android(), doj, &dev, err);
	free(doj);
	if (rc == SW_OK)
		rc = sw_drive_new(dev, &drive, err);
	if (rc != SW_OK) {
		sw_device_free(dev);
		/* a session only rebinds to its own device: say which one it waits for */
		if (recorded && !asked && err && *err && !strcmp(sw_error_failure_code(*err), "NO_DEVICE")) {
			json_t *d = sw__error_details(*err);
			if (d)
				json_object_set_new(d, "boundSerial", json_string(recorded));
			else
				sw__error_take_details(*err, json_pack("{s:s}", "boundSerial", recorded));
		}
		free(recorded);
		return rc;
	}
	if (!recorded || (asked && strcmp(asked, recorded) != 0))
		record_device(s, dev);
	free(recorded);
	sw__drive_own_device(drive, dev);
	sw_drive_hooks hooks = {hook_secret, hook_input, hook_redact, s};
	sw_drive_set_hooks(drive, &hooks);
	sw_drive_set_session(drive, ctx, s);
	apply_budget(s, drive);
	sw__session_attach(s, drive, drive_free_attached);
	*out = drive;
	return SW_OK;
}

SW_API void sw_drive_unbind(sw_session *s)
{
	if (s && sw__session_attached(s))
		sw__session_attach(s, NULL, NULL);
}

/* ---- the books of each drive call ------------------------------------------------------- */

/* Adds what the driver reported on the side (an iOS WebDriverAgent session recreated) to @res's warnings. */
static void driver_warnings(sw_drive *d, json_t *res)
{
	json_t *w = sw__ios_take_warnings(sw_drive_device(d));
	if (!w)
		return;
	json_t *have = json_object_get(res, "warnings");
	if (json_is_array(have))
		json_array_extend(have, w);
	else
		json_object_set(res, "warnings", w);
	json_decref(w);
}

static bool verbose_mode(sw_session *s)
{
	json_t *m = NULL;
	bool v = false;
	if (sw__session_get(s, "responseMode", &m, NULL) == SW_OK)
		v = json_is_string(m) && strstr(json_string_value(m), "verbose") != NULL;
	json_decref(m);
	return v;
}

/*
 * The sequence number of the next recorded action: one more than the last one kept. The session keeps the
 * last 300 records; the numbers go on, so a reader tells how many older ones were dropped (seq of the
 * first kept minus 1).
 */
static json_int_t next_seq(sw_session *s)
{
	json_t *arr = NULL;
	json_int_t seq = 1;
	if (sw__session_get(s, "recordedActions", &arr, NULL) == SW_OK && json_array_size(arr) > 0) {
		json_t *last = json_array_get(arr, json_array_size(arr) - 1);
		json_int_t prev = json_integer_value(json_object_get(last, "seq"));
		seq = prev > 0 ? prev + 1 : (json_int_t)json_array_size(arr) + 1;
	}
	json_decref(arr);
	return seq;
}

/* Appends one recordedActions entry: @rec (borrowed) plus seq, at, and failureCode when the action failed. */
static void record_action(sw_session *s, json_t *rec, int rc, sw_error **err)
{
	if (!rec)
		return;
	if (rc < 0 && err && *err)
		json_object_set_new(rec, "failureCode", json_string(sw_error_failure_code(*err)));
	json_object_set_new(rec, "seq", json_integer(next_seq(s)));
	json_object_set_new(rec, "at", json_integer((json_int_t)sw_wall_ms()));
	sw__session_append(s, "recordedActions", rec, NULL);
}

/* The placeholder a secret of @kind is recorded as (TOOLS.md §7.4); NULL for the generic kind, numbered later. */
static const char *kind_placeholder(const char *kind)
{
	if (!kind)
		return NULL;
	if (!strcmp(kind, "password"))
		return "${SWIPIUM_TEST_PASSWORD}";
	if (!strcmp(kind, "otp"))
		return "${SWIPIUM_TEST_OTP}";
	if (!strcmp(kind, "token"))
		return "${SWIPIUM_TEST_TOKEN}";
	if (!strcmp(kind, "pin"))
		return "${SWIPIUM_TEST_PIN}";
	return NULL;
}

/* True when @text is a single ${NAME} reference and nothing else. */
static bool only_placeholder(const char *text)
{
	size_t n = text ? strlen(text) : 0;
	if (n < 4 || text[0] != '$' || text[1] != '{' || text[n - 1] != '}')
		return false;
	for (size_t i = 2; i + 1 < n; i++)
		if (!(isalnum((unsigned char)text[i]) || text[i] == '_'))
			return false;
	return true;
}

/*
 * Adds what the act touched (sw__drive_take_acted) to the record @rec of its arguments. A secret value is
 * never recorded: the text becomes the placeholder of its kind, or stays the ${VAR} the caller typed.
 */
static void record_acted(sw_drive *d, json_t *rec)
{
	json_t *acted = sw__drive_take_acted(d);
	if (!rec || !acted) {
		json_decref(acted);
		return;
	}
	static const char *const keys[] = {"element", "screen", "point", "secretKind", "placeholders", "satisfied"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++)
		if (json_object_get(acted, keys[i]))
			json_object_set(rec, keys[i], json_object_get(acted, keys[i]));
	if (json_is_true(json_object_get(acted, "secret"))) {
		const char *text = json_string_value(json_object_get(rec, "text"));
		json_object_set_new(rec, "secret", json_true());
		if (!only_placeholder(text)) {
			const char *ph = kind_placeholder(json_string_value(json_object_get(acted, "secretKind")));
			/* the generic kind is numbered at generation (SWIPIUM_SECRET_<n>); the value is gone either way
			 */
			json_object_set_new(rec, "text", ph ? json_string(ph) : json_null());
			json_object_set_new(rec, "textPlaceholder", json_string(ph ? "kind" : "numbered"));
		}
	}
	json_decref(acted);
}

void sw__drive_record(sw_drive *d, sw_session *s, const json_t *args, const char *tool, const char *record_text,
                      bool secret, int rc, sw_error **err)
{
	if (!s && d)
		s = sw__drive_session(d);
	if (!s || !args) {
		json_decref(d ? sw__drive_take_acted(d) : NULL);
		return;
	}
	json_t *rec = json_copy((json_t *)args);
	if (!rec) {
		json_decref(sw__drive_take_acted(d));
		return;
	}
	json_object_del(rec, "observe");
	json_object_set_new(rec, "tool", json_string(tool));
	if (json_object_get(rec, "text"))
		json_object_set_new(rec, "text", record_text ? json_string(record_text) : json_null());
	if (secret && !only_placeholder(json_string_value(json_object_get(rec, "text")))) {
		json_object_set_new(rec, "text", json_null());
		json_object_set_new(rec, "textPlaceholder", json_string("numbered"));
	}
	if (secret)
		json_object_set_new(rec, "secret", json_true());
	record_acted(d, rec);
	record_action(s, rec, rc, err);
	json_decref(rec);
}

SW_API int sw_drive_act(sw_drive *d, const char *args_json, char **out_json, sw_error **err)
{
	if (!d || !args_json || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "drive, args and out_json must not be NULL");
	json_t *args = json_loads(args_json, 0, NULL);
	if (!json_is_object(args)) {
		json_decref(args);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "qa_act arguments must be an object");
	}
	sw_session *s = sw__drive_session(d);
	json_t *run = args;
	if (s && !json_object_get(args, "verbose") && verbose_mode(s)) {
		run = json_copy(args);
		if (run)
			json_object_set_new(run, "verbose", json_true());
	}
	json_t *res = NULL;
	int rc = run ? sw__drive_act(d, run, &res, err) : sw__error_nomem(err);
	if (run != args)
		json_decref(run);
	if (s) {
		/* the action is recorded with its arguments as given: placeholders, never resolved values */
		json_t *rec = json_copy(args);
		if (rec)
			json_object_set_new(rec, "tool", json_string("qa_act"));
		record_acted(d, rec);
		record_action(s, rec, rc, err);
		json_decref(rec);
		if (rc == SW_OK) {
			sw_session_counter_add(s, "actions", 1, NULL);
			if (json_is_true(json_object_get(res, "changed")))
				sw_session_counter_reset(s, "noChangeActions", NULL);
			else
				sw_session_counter_add(s, "noChangeActions", 1, NULL);
		}
	}
	json_decref(args);
	const char *back_via = sw__ios_take_back_via(sw_drive_device(d)); /* iOS: how "back" went */
	if (rc < 0)
		return rc;
	driver_warnings(d, res);
	if (back_via)
		json_object_set_new(res, "backVia", json_string(back_via));
	*out_json = sw__json_compact(res);
	json_decref(res);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

SW_API int sw_drive_snapshot(sw_drive *d, const char *options_json, char **out_json, sw_error **err)
{
	if (!d || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "drive and out_json must not be NULL");
	json_t *opts = NULL;
	int rc = sw__options_load(options_json, sw__drive_snapshot_opts, "snapshot options", &opts, err);
	if (rc < 0)
		return rc;
	sw_session *s = sw__drive_session(d);
	if (s && !json_object_get(opts, "verbose") && verbose_mode(s))
		json_object_set_new(opts, "verbose", json_true());
	json_t *res = NULL;
	rc = sw__drive_snapshot(d, opts, &res, err);
	json_decref(opts);
	if (s) {
		if (rc < 0)
			sw_session_counter_add(s, "snapshotFailures", 1, NULL);
		else
			sw_session_counter_reset(s, "snapshotFailures", NULL);
	}
	if (rc < 0)
		return rc;
	driver_warnings(d, res);
	*out_json = sw__json_compact(res);
	json_decref(res);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

SW_API int sw_drive_tap_point(sw_drive *d, int x, int y, const char *record_json, char **out_json, sw_error **err)
{
	if (!d || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "drive and out_json must not be NULL");
	json_t *rec = NULL;
	if (record_json) {
		rec = json_loads(record_json, 0, NULL);
		if (!json_is_object(rec)) {
			json_decref(rec);
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "record must be a JSON object");
		}
	}
	json_t *args = json_pack("{ss,s{si,si},ss}", "action", "tap", "target", "x", x, "y", y, "observe", "none");
	json_t *res = NULL;
	int rc;
	if (sw__ios_visual_only(sw_drive_device(d))) {
		/* an iOS simulator without WebDriverAgent has no UI tree to settle on: the tap itself (idb), unobserved */
		rc = sw_device_tap(sw_drive_device(d), x, y, 0, err);
		res = rc == SW_OK ? json_pack("{s:s,s:[i,i],s:b,s:b,s:[s]}", "action", "tap", "point", x, y, "changedState", 1,
		                              "observed", 0, "notes", "visual-only: tapped through idb without reading the screen")
		                  : NULL;
		if (rc == SW_OK && !res)
			rc = sw__error_nomem(err);
	} else
		rc = args ? sw__drive_act(d, args, &res, err) : sw__error_nomem(err);
	json_decref(args);
	sw_session *s = sw__drive_session(d);
	json_decref(sw__drive_take_acted(d));
	if (s) {
		record_action(s, rec, rc, err);
		if (rc == SW_OK)
			sw_session_counter_add(s, "actions", 1, NULL);
	}
	json_decref(rec);
	if (rc < 0)
		return rc;
	*out_json = sw__json_compact(res);
	json_decref(res);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

SW_API int sw_drive_screenshot_save(sw_drive *d, int force, const char *reason, char **meta_json, sw_error **err)
{
	sw_session *s = sw__drive_session(d);
	if (!d || !meta_json || !s)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "a drive bound to a session (sw_drive_bind) and meta_json are required");
	if (sw_session_is_sensitive(s))
		return sw__error_set(err, SW_EDENIED, "SENSITIVE_MODE_REFUSED", NULL,
		                     "This session is sensitive: screenshots are refused.");
	unsigned char *png = NULL;
	size_t len = 0;
	char *meta = NULL;
	int rc = sw_drive_screenshot(d, force, &png, &len, &meta, err);
	if (rc < 0)
		return rc;
	/* numbering goes on across qa_prepare_target, restarts and processes: the store knows the names in use */
	char *name = NULL;
	char *saved = NULL;
	rc = sw_artifact_next_name(s, "screenshot", "screenshot", ".png", &name, err);
	if (rc == SW_OK)
		rc = sw_artifact_save(s, "screenshot", name, "image/png", png, len, reason, &saved, err);
	sw_free(name);
	sw_free(png);
	if (rc < 0) {
		sw_free(meta);
		return rc;
	}
	sw_session_counter_add(s, "screenshots", 1, NULL);
	json_t *res = json_loads(meta, 0, NULL);
	json_t *art = json_loads(saved, 0, NULL);
	sw_free(meta);
	sw_free(saved);
	if (res) {
		json_object_set(res, "uri", json_object_get(art, "uri"));
		if (reason)
			json_object_set_new(res, "reason", json_string(reason));
	}
	json_decref(art);
	*meta_json = res ? sw__json_compact(res) : NULL;
	json_decref(res);
	return *meta_json ? SW_OK : sw__error_nomem(err);
}

SW_API sw_device *sw_drive_device(sw_drive *d)
{
	return d ? sw__drive_dev(d) : NULL;
}

SW_API int sw_session_record_checkpoint(sw_session *s, const char *assertion, const char *screenshot_uri, int pass,
                                        sw_error **err)
{
	if (!s || !assertion)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "a session and an assertion are required");
	json_t *rec = json_pack("{ss,ss,ss,sb}", "tool", "qa_visual", "action", "visualCheck", "assertion", assertion,
	                        "pass", pass != 0);
	if (!rec)
		return sw__error_nomem(err);
	if (screenshot_uri)
		json_object_set_new(rec, "screenshotUri", json_string(screenshot_uri));
	record_action(s, rec, SW_OK, NULL);
	json_decref(rec);
	return SW_OK;
}
