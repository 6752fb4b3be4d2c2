/* device.c: device control and app health tools: qa_check_health, qa_clear_overlay, qa_wait, qa_device_info,
 * qa_orientation, qa_network, qa_geolocation, qa_app_control, qa_screen_record, qa_smoke. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

/* ---- shared helpers ---------------------------------------------------------------- */

/* The next step a NO_DEVICE answer for the session's own serial ends with. */
#define WAIT_ONLINE "qa_wait {for: \"device_online\"}"

/* The session's device binding (mcp_drive_get); on failure the call has been answered and NULL is returned. */
static sw_drive *bind(mcp_call *call, sw_session *s)
{
	return mcp_drive_get_then(call, s, WAIT_ONLINE);
}

/* Answers the call with @err (freed) and, when the device is gone or not ready, drops the session's
 * binding so its next call opens the device again (a device that dropped off adb and came back). */
static void fail_device(mcp_call *call, sw_session *s, sw_error *err)
{
	const char *code = sw_error_failure_code(err);
	if (code && (!strcmp(code, "NO_DEVICE") || !strcmp(code, "DEVICE_NOT_READY")))
		sw_drive_unbind(s);
	mcp_fail_err(call, err);
	sw_error_free(err);
}

/* Runs a library call's result: fail on error, else parse. Returns NULL when the call was answered. */
static json_t *result_or_fail(mcp_call *call, sw_session *s, int rc, char *out, sw_error *err)
{
	if (rc != SW_OK) {
		fail_device(call, s, err);
		sw_free(out);
		return NULL;
	}
	json_t *r = json_loads(out, 0, NULL);
	sw_free(out);
	if (!r)
		mcp_fail(call, "UNKNOWN", "The library returned an unreadable result.", NULL);
	return r;
}

/* The options object of a library call: each of @keys (NULL-terminated) that @args has, as compact JSON. */
static char *options_json(json_t *args, const char *const *keys)
{
	json_t *o = json_object();
	for (; *keys; keys++)
		if (json_object_get(args, *keys))
			json_object_set(o, *keys, json_object_get(args, *keys));
	char *oj = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return oj;
}

/* Answers @r (consumed) with a formatted summary, or @fallback when formatting fails. */
__attribute__((format(printf, 4, 5))) static void ok_fmt(mcp_call *call, json_t *r, const char *fallback,
                                                         const char *fmt, ...)
{
	char *sum = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&sum, fmt, ap) < 0)
		sum = NULL;
	va_end(ap);
	mcp_ok(call, r, sum ? sum : fallback);
	free(sum);
}

/* A string member, or "?" when absent. */
static const char *str_or_q(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? v : "?";
}

/* The session's appId (NULL when none is set). */
static char *session_app(sw_session *s)
{
	char *aj = NULL, *app = NULL;
	if (sw_session_get_json(s, "appId", &aj, NULL) == SW_OK && aj) {
		json_t *a = json_loads(aj, JSON_DECODE_ANY, NULL);
		if (json_is_string(a))
			app = strdup(json_string_value(a));
		json_decref(a);
	}
	sw_free(aj);
	return app;
}

/* Asks for consent to a device change; @cmd and @affects are consumed. True when the change may go ahead
 * (otherwise the call has been answered). */
static bool consented(mcp_call *call, json_t *args, sw_session *s, const char *action, const char *risk,
                      const char *explain, char *cmd, json_t *affects)
{
	struct mcp_consent_request req = {
	    .action = action,
	    .risk = risk,
	    .explain = explain,
	    .exact_command = cmd,
	    .affects = affects,
	    .session = s,
	};
	enum mcp_consent_outcome oc = mcp_call_consent(call, args, &req);
	free(cmd);
	json_decref(affects);
	return oc == MCP_CONSENT_APPROVED;
}

#define SID_PROP "\"sessionId\":{\"type\":\"string\"}"
#define CONSENT_PROPS "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}"

/* ---- qa_check_health -------------------------------------------------------------- */

static char *findings_summary(json_t *findings)
{
	size_t n = json_array_size(findings);
	if (!n)
		return strdup("Health OK: no crash, ANR, error surface or wrong foreground app.");
	char *sum = NULL;
	if (asprintf(&sum, "Health: %zu finding(s)", n) < 0)
		return NULL;
	size_t i;
	json_t *f;
	json_array_foreach(findings, i, f)
	{
		char *t = NULL;
		if (asprintf(&t, "%s\n[%s] %s %s", sum, json_string_value(json_object_get(f, "severity")),
		             json_string_value(json_object_get(f, "failureCode")),
		             json_string_value(json_object_get(f, "detail"))) < 0)
			break;
		free(sum);
		sum = t;
	}
	return sum;
}

static void qa_check_health(mcp_call *call, json_t *args)
{
	(void)args;
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	sw_drive *b = bind(call, s);
	if (!b)
		return;
	sw_device *dev = sw_drive_device(b);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_health_check(mcp_call_ctx(call), s, dev, NULL, &out, &err);
	json_t *r = result_or_fail(call, s, rc, out, err);
	if (!r)
		return;
	char *sum = findings_summary(json_object_get(r, "findings"));
	if (json_array_size(json_object_get(r, "findings")))
		mcp_next(call, "qa_screenshot {sessionId: \"%s\", reason: \"health finding\"} for evidence",
		         sw_session_id(s));
	if (json_array_size(json_object_get(r, "overlays")))
		mcp_next(call, "qa_clear_overlay {sessionId: \"%s\"} to clear the overlay", sw_session_id(s));
	mcp_keep_whole_summary(call);
	mcp_ok(call, r, sum ? sum : "Health checked.");
	free(sum);
}

const struct mcp_tool mcp_tool_qa_check_health = {
    .name = "qa_check_health",
    .group = "drive",
    .description = "Check app health: native crash, ANR, RedBox/LogBox/error boundary, dialogs, foreground app.",
    .schema = "{\"type\":\"object\",\"properties\":{" SID_PROP "},\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_check_health,
};

/* ---- qa_clear_overlay ------------------------------------------------------------- */

static void qa_clear_overlay(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	sw_drive *b = bind(call, s);
	if (!b)
		return;
	sw_device *dev = sw_drive_device(b);
	char *oj = options_json(args, (const char *const[]){"strategy", NULL});
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_health_clear_overlay(mcp_call_ctx(call), s, dev, oj, &out, &err);
	free(oj);
	if (rc != SW_OK && !strcmp(sw_error_failure_code(err), "KEYBOARD_NOT_DISMISSIBLE")) {
		mcp_fail_err(call, err);
		mcp_fail_flags(call, false, false);
		mcp_fail_step(call, "qa_act {sessionId: \"%s\", action: \"press\", key: \"enter\"}", sw_session_id(s));
		mcp_fail_step(call, "tap the keyboard's Done key");
		mcp_fail_step(call, "qa_clear_overlay {sessionId: \"%s\", strategy: \"tap_outside\"}",
		              sw_session_id(s));
		sw_error_free(err);
		sw_free(out);
		return;
	}
	json_t *r = result_or_fail(call, s, rc, out, err);
	if (!r)
		return;
	const char *ref = json_string_value(json_object_get(args, "targetRef"));
	if (ref)
		json_object_set_new(r, "targetRef", json_string(ref));
	size_t nc = json_array_size(json_object_get(r, "cleared"));
	size_t nr = json_array_size(json_object_get(r, "remaining"));
	const char *applied = json_string_value(json_object_get(r, "applied"));
	if (nr)
		mcp_next(call, "qa_snapshot {sessionId: \"%s\"} to see what is still on screen", sw_session_id(s));
	ok_fmt(call, r, "Overlay check done.", "%s: %zu cleared, %zu remaining%s%s%s",
	       nc ? "Overlay cleared" : "Nothing cleared", nc, nr, applied ? " (" : "", applied ? applied : "",
	       applied ? ")" : "");
}

const struct mcp_tool mcp_tool_qa_clear_overlay = {
    .name = "qa_clear_overlay",
    .group = "drive",
    .description = "Clear the topmost overlay (keyboard, alert, LogBox, permission); BACK only over an overlay.",
    .schema = "{\"type\":\"object\",\"properties\":{" SID_PROP ",\"strategy\":{\"type\":\"string\",\"enum\":[\"auto\","
              "\"hide_keyboard\",\"press_back\",\"tap_outside\",\"minimize_logbox\",\"dismiss_logbox\","
              "\"allow_permission\",\"deny_permission\",\"dismiss_toast_if_possible\"]},\"targetRef\":{\"type\":"
              "\"string\"}},\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_clear_overlay,
};

/* ---- qa_wait ---------------------------------------------------------------------- */

static void qa_wait(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	char *oj = options_json(args, (const char *const[]){"for", "timeoutMs", NULL});
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_devctl_wait(mcp_call_ctx(call), s, oj, mcp_call_abort, call, &out, &err);
	free(oj);
	json_t *r = result_or_fail(call, s, rc, out, err);
	if (!r)
		return;
	const char *what = json_string_value(json_object_get(r, "for"));
	bool sat = json_is_true(json_object_get(r, "satisfied"));
	/* the device is back: the next device call opens it afresh rather than reuse a handle from before */
	if (sat && what && !strcmp(what, "device_online"))
		sw_drive_unbind(s);
	if (!sat)
		mcp_next(call, "qa_wait {sessionId: \"%s\", for: \"%s\"} to keep waiting", sw_session_id(s), what);
	ok_fmt(call, r, "Wait done.", "%s: %s after %lld ms", what,
	       sat ? "satisfied" : "timed out (call qa_wait again)",
	       (long long)json_integer_value(json_object_get(r, "waitedMs")));
}

const struct mcp_tool mcp_tool_qa_wait = {
    .name = "qa_wait",
    .group = "drive",
    .description = "Wait for device_online or metro_ready (timeoutMs default " MCP_STR(SW_LONG_POLL_HINT_MS)
                   ", max " MCP_STR(SW_LONG_POLL_MAX_MS) "); cancellable.",
    .schema = "{\"type\":\"object\",\"properties\":{" SID_PROP ",\"for\":{\"type\":\"string\",\"enum\":["
              "\"device_online\",\"metro_ready\",\"wda_ready\",\"simulator_booted\"]},\"timeoutMs\":{\"type\":"
              "\"integer\",\"minimum\":0}},\"required\":[\"sessionId\",\"for\"]}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_wait,
};

/* ---- qa_device_info ------------------------------------------------------------------ */

static void qa_device_info(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	sw_drive *b = bind(call, s);
	if (!b)
		return;
	sw_device *dev = sw_drive_device(b);
	char *oj = options_json(args, (const char *const[]){"listPackages", "packageFilter", NULL});
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_devctl_info(mcp_call_ctx(call), s, dev, oj, &out, &err);
	free(oj);
	json_t *r = result_or_fail(call, s, rc, out, err);
	if (!r)
		return;
	json_t *p = json_object_get(r, "props"), *sc = json_object_get(r, "screen");
	ok_fmt(call, r, "Device info.", "%s %s, Android %s (SDK %s), %lldx%lld %s", str_or_q(r, "serial"),
	       str_or_q(p, "model"), str_or_q(p, "release"), str_or_q(p, "sdk"),
	       (long long)json_integer_value(json_object_get(sc, "width")),
	       (long long)json_integer_value(json_object_get(sc, "height")), str_or_q(r, "orientation"));
}

const struct mcp_tool mcp_tool_qa_device_info = {
    .name = "qa_device_info",
    .group = "device",
    .description = "Device props, screen, orientation and installed packages.",
    .schema = "{\"type\":\"object\",\"properties\":{" SID_PROP ",\"listPackages\":{\"type\":\"boolean\"},"
              "\"packageFilter\":{\"type\":\"string\"}},\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_device_info,
};

/* ---- qa_orientation -------------------------------------------------------------------- */

static void qa_orientation(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	sw_drive *b = bind(call, s);
	if (!b)
		return;
	sw_device *dev = sw_drive_device(b);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_devctl_orientation(mcp_call_ctx(call), s, dev,
	                               json_string_value(json_object_get(args, "orientation")), &out, &err);
	json_t *r = result_or_fail(call, s, rc, out, err);
	if (!r)
		return;
	ok_fmt(call, r, "Orientation set.", "Orientation %s (rotation %lld, auto-rotate %s).",
	       str_or_q(r, "orientation"), (long long)json_integer_value(json_object_get(r, "rotation")),
	       json_is_true(json_object_get(r, "autoRotate")) ? "on" : "off");
}

const struct mcp_tool mcp_tool_qa_orientation = {
    .name = "qa_orientation",
    .group = "device",
    .description = "Rotate the screen: portrait, landscape, or auto (re-enables rotation). Android.",
    .schema = "{\"type\":\"object\",\"properties\":{" SID_PROP ",\"orientation\":{\"type\":\"string\",\"enum\":["
              "\"portrait\",\"landscape\",\"auto\"]}},\"required\":[\"sessionId\",\"orientation\"]}",
    .annot = MCP_ANNOT_I,
    .handler = qa_orientation,
};

/* ---- qa_network ---------------------------------------------------------------------- */

static void qa_network(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *action = json_string_value(json_object_get(args, "action"));
	json_t *restored = NULL;
	if (!strcmp(action, "restore")) {
		/* first, without binding: a device that is gone leaves the restore pending and says so in the session
		 */
		char *rout = NULL;
		sw_error *rerr = NULL;
		int rrc = sw_devctl_network_restore(mcp_call_ctx(call), s, "restore", &rout, &rerr);
		restored = result_or_fail(call, s, rrc, rout, rerr);
		if (!restored) {
			mcp_fail_step(call,
			              "qa_wait {sessionId: \"%s\", for: \"device_online\"}, then qa_network {action: "
			              "\"restore\"} again",
			              sw_session_id(s));
			return;
		}
		action = "status";
	}
	sw_drive *b = bind(call, s);
	if (!b) {
		json_decref(restored);
		return;
	}
	sw_device *dev = sw_drive_device(b);
	if (!strcmp(action, "offline") || !strcmp(action, "online")) {
		char *desc = NULL;
		json_t *d = NULL;
		if (sw_device_describe(dev, &desc, NULL) == SW_OK)
			d = json_loads(desc, 0, NULL);
		sw_free(desc);
		json_t *affects = json_pack("{s:s,s:O}", "network", action, "device", json_object_get(d, "serial"));
		char *cmd = NULL;
		if (asprintf(&cmd, "adb -s %s shell cmd connectivity airplane-mode %s", str_or_q(d, "serial"),
		             !strcmp(action, "offline") ? "enable" : "disable") < 0)
			cmd = NULL;
		json_decref(d);
		if (!consented(call, args, s, "network_change", "medium",
		               !strcmp(action, "offline") ? "Turn airplane mode on so the app is offline. The original "
		                                            "state is restored at qa_report."
		                                          : "Turn airplane mode off so the app is online. The original "
		                                            "state is restored at qa_report.",
		               cmd, affects))
			return;
	}
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_devctl_network(mcp_call_ctx(call), s, dev, action, &out, &err);
	json_t *r = result_or_fail(call, s, rc, out, err);
	if (!r) {
		json_decref(restored);
		return;
	}
	if (restored) {
		bool did = json_is_true(json_object_get(restored, "restored"));
		json_object_set_new(r, "restored", json_boolean(did));
		if (!did)
			json_object_set_new(
			    r, "note", json_string("nothing to restore: this session has not changed the network"));
		json_decref(restored);
	}
	ok_fmt(call, r, "Network.", "Network %s (airplane mode %s)%s", str_or_q(r, "network"),
	       json_is_true(json_object_get(r, "airplaneMode")) ? "on" : "off",
	       json_is_true(json_object_get(r, "restoreAvailable")) ? "; restored at qa_report or with action restore"
	                                                            : ".");
}

const struct mcp_tool mcp_tool_qa_network = {
    .name = "qa_network",
    .group = "device",
    .description = "Network status, offline/online (airplane mode; consent network_change), restore.",
    .schema =
        "{\"type\":\"object\",\"properties\":{" SID_PROP ",\"action\":{\"type\":\"string\",\"enum\":["
        "\"status\",\"offline\",\"online\",\"restore\"]}," CONSENT_PROPS "},\"required\":[\"sessionId\",\"action\"]}",
    .annot = MCP_ANNOT_I,
    .handler = qa_network,
};

/* ---- qa_geolocation -------------------------------------------------------------------- */

static void qa_geolocation(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	double lat = json_number_value(json_object_get(args, "lat"));
	double lng = json_number_value(json_object_get(args, "lng"));
	if (lat < -90 || lat > 90 || lng < -180 || lng > 180) {
		json_t *inv =
		    json_pack("{s:[s]}", "invalidArguments",
		              lat < -90 || lat > 90 ? "lat: must be within -90..90" : "lng: must be within -180..180");
		mcp_fail(call, "INVALID_ARGUMENT",
		         "lat must be within -90..90 and lng within -180..180 (decimal degrees).", inv);
		return;
	}
	sw_drive *b = bind(call, s);
	if (!b)
		return;
	sw_device *dev = sw_drive_device(b);
	json_t *affects = json_pack("{s:f,s:f}", "lat", lat, "lng", lng);
	char *cmd = NULL;
	if (asprintf(&cmd, "adb emu geo fix %.6f %.6f", lng, lat) < 0)
		cmd = NULL;
	if (!consented(call, args, s, "geo_set", "medium", "Set the emulator's GPS location through its console.", cmd,
	               affects))
		return;
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_devctl_geolocation(mcp_call_ctx(call), s, dev, lat, lng, &out, &err);
	json_t *r = result_or_fail(call, s, rc, out, err);
	if (!r)
		return;
	ok_fmt(call, r, "Location set.", "Location set to %.6f, %.6f.", lat, lng);
}

const struct mcp_tool mcp_tool_qa_geolocation = {
    .name = "qa_geolocation",
    .group = "device",
    .description = "Set the emulator GPS location (decimal degrees; consent geo_set). Android emulator.",
    .schema = "{\"type\":\"object\",\"properties\":{" SID_PROP ",\"lat\":{\"type\":\"number\"},\"lng\":{\"type\":"
              "\"number\"}," CONSENT_PROPS "},\"required\":[\"sessionId\",\"lat\",\"lng\"]}",
    .annot = MCP_ANNOT_I,
    .handler = qa_geolocation,
};

/* ---- qa_app_control ------------------------------------------------------------------ */

static void qa_app_control(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	char *oj = options_json(args, (const char *const[]){"action", "acknowledgeBundleRisk", NULL});
	char *gout = NULL;
	sw_error *err = NULL;
	/* the guard first: BUNDLE_LOSS_REFUSED never asks for consent */
	int grc = sw_devctl_app_guard(s, oj, &gout, &err);
	json_t *g = result_or_fail(call, s, grc, gout, err);
	if (!g) {
		free(oj);
		return;
	}
	char *app = session_app(s);
	sw_drive *b = bind(call, s);
	if (!b) {
		free(oj);
		free(app);
		json_decref(g);
		return;
	}
	sw_device *dev = sw_drive_device(b);
	const char *consent = json_string_value(json_object_get(g, "consentAction"));
	if (consent && app) {
		json_t *affects = json_pack("{s:s,s:O}", "appId", app, "action", json_object_get(args, "action"));
		char *cmd = NULL;
		if (asprintf(&cmd, "adb shell pm clear %s%s", app,
		             !strcmp(consent, "app_fresh_start") ? "\nadb shell monkey -p <app> 1 (launch)" : "") < 0)
			cmd = NULL;
		if (!consented(call, args, s, consent, "high",
		               !strcmp(consent, "app_clear_data")
		                   ? "Wipe the app's data (logins, caches, settings) on the device."
		                   : "Wipe the app's data and start it fresh.",
		               cmd, affects)) {
			free(oj);
			free(app);
			json_decref(g);
			return;
		}
	}
	json_decref(g);
	char *out = NULL;
	int rc = sw_devctl_app(mcp_call_ctx(call), s, dev, oj, &out, &err);
	free(oj);
	free(app);
	json_t *r = result_or_fail(call, s, rc, out, err);
	if (!r)
		return;
	const char *fg = json_string_value(json_object_get(r, "foreground"));
	ok_fmt(call, r, "App control done.", "%s %s done; foreground: %s", str_or_q(r, "packageName"),
	       str_or_q(r, "action"), fg ? fg : "unknown");
}

const struct mcp_tool mcp_tool_qa_app_control = {
    .name = "qa_app_control",
    .group = "device",
    .description = "Launch, foreground, background, force_stop, restart, clear_data or fresh_start the session app.",
    .schema =
        "{\"type\":\"object\",\"properties\":{" SID_PROP ",\"action\":{\"type\":\"string\",\"enum\":["
        "\"launch\",\"foreground\",\"background\",\"force_stop\",\"restart\",\"clear_data\",\"fresh_start\"]},"
        "\"acknowledgeBundleRisk\":{\"type\":\"boolean\"}," CONSENT_PROPS "},\"required\":[\"sessionId\",\"action\"]}",
    .annot = MCP_ANNOT_D,
    .handler = qa_app_control,
};

/* ---- qa_screen_record ------------------------------------------------------------------ */

static void qa_screen_record(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *action = json_string_value(json_object_get(args, "action"));
	if (!strcmp(action, "start") && sw_session_is_sensitive(s)) {
		mcp_fail(call, "SENSITIVE_MODE_REFUSED", "Screen recording is refused in a sensitive session.", NULL);
		return;
	}
	sw_drive *b = bind(call, s);
	if (!b)
		return;
	sw_device *dev = sw_drive_device(b);
	if (!strcmp(action, "start")) {
		/* a second start is refused before asking anyone */
		char *st = NULL;
		if (sw_devctl_record(mcp_call_ctx(call), s, dev, "{\"action\":\"status\"}", &st, NULL) == SW_OK) {
			json_t *sj = json_loads(st, 0, NULL);
			bool on = json_is_true(json_object_get(sj, "recording"));
			json_decref(sj);
			sw_free(st);
			if (on) {
				mcp_fail(call, "INVALID_ARGUMENT",
				         "A recording is already running for this session (one per session).", NULL);
				mcp_fail_step(call, "qa_screen_record {sessionId: \"%s\", action: \"stop\"}",
				              sw_session_id(s));
				return;
			}
		}
		json_t *affects = json_pack("{s:s}", "recording", "screen");
		if (!consented(call, args, s, "screen_record", "medium",
		               "Record the device screen as an mp4 (stops by itself after 180 s).",
		               strdup("adb shell screenrecord --time-limit 180 /sdcard/swipium-rec-<session>.mp4"),
		               affects))
			return;
	}
	char *oj = options_json(args, (const char *const[]){"action", "save", "failed", NULL});
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_devctl_record(mcp_call_ctx(call), s, dev, oj, &out, &err);
	free(oj);
	json_t *r = result_or_fail(call, s, rc, out, err);
	if (!r)
		return;
	const char *uri = json_string_value(json_object_get(r, "uri"));
	if (!strcmp(action, "start"))
		mcp_next(call, "qa_screen_record {sessionId: \"%s\", action: \"stop\"} to save it", sw_session_id(s));
	if (!strcmp(action, "stop") && uri)
		ok_fmt(call, r, "Recording.", "Recording saved: %s (%lld bytes)", uri,
		       (long long)json_integer_value(json_object_get(r, "bytes")));
	else
		mcp_ok(call, r,
		       !strcmp(action, "stop")                         ? "Recording stopped and discarded."
		       : !strcmp(action, "start")                      ? "Recording started (auto-stop after 180 s)."
		       : json_is_true(json_object_get(r, "recording")) ? "A recording is running."
		                                                       : "No recording is running.");
}

const struct mcp_tool mcp_tool_qa_screen_record = {
    .name = "qa_screen_record",
    .group = "device",
    .description = "Record the screen as an mp4 artifact: start (consent screen_record), status, stop.",
    .schema = "{\"type\":\"object\",\"properties\":{" SID_PROP ",\"action\":{\"type\":\"string\",\"enum\":["
              "\"start\",\"status\",\"stop\"]},\"save\":{\"type\":\"string\",\"enum\":[\"always\",\"on_failure\"]},"
              "\"failed\":{\"type\":\"boolean\"}," CONSENT_PROPS "},\"required\":[\"sessionId\",\"action\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_screen_record,
};

/* ---- qa_smoke ------------------------------------------------------------------------ */

static void add_note(sw_session *s, const char *workflow, const char *outcome, const char *category, const char *reason)
{
	json_t *n = json_pack("{s:s,s:s}", "workflow", workflow, "outcome", outcome);
	if (category)
		json_object_set_new(n, "category", json_string(category));
	if (reason)
		json_object_set_new(n, "reason", json_string(reason));
	char *t = json_dumps(n, JSON_COMPACT);
	if (t)
		sw_session_add_note(s, t, NULL);
	free(t);
	json_decref(n);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs one saved flow on the bound device and sets @entry's outcome (and failureCode) from its result. */
static void smoke_run_flow(sw_session *s, sw_drive *b, const char *flow, json_t *variables, json_t *entry)
{
	char *vars = variables ? json_dumps(variables, JSON_COMPACT) : NULL;
	sw_flow_run_options fo = SW_FLOW_RUN_OPTIONS_INIT;
	fo.root = sw_session_root(s);
	fo.flow = flow;
	fo.variables_json = vars;
	fo.session = s;
	fo.drive = b;
	fo.device = sw_drive_device(b);
	char *rr = NULL;
	sw_error *err = NULL;
	if (sw_flow_run_recorded(&fo, "qa_smoke", &rr, &err) == SW_OK) {
		json_t *rj = json_loads(rr, 0, NULL);
		json_object_set(entry, "outcome", json_object_get(rj, "outcome"));
		if (json_object_get(rj, "failureCode"))
			json_object_set(entry, "failureCode", json_object_get(rj, "failureCode"));
		json_decref(rj);
	} else {
		json_object_set_new(entry, "outcome", json_string("fail"));
		json_object_set_new(entry, "failureCode", json_string(sw_error_failure_code(err)));
		sw_error_free(err);
	}
	sw_free(rr);
	free(vars);
}

/* Runs each saved flow that is safe to run implicitly on the bound device and its drive (the session's
 * redaction hooks); the others are recorded blocked. */
static json_t *smoke_flows(mcp_call *call, sw_session *s, sw_drive *b, json_t *variables)
{
	json_t *res = json_array();
	char *dir = NULL;
	if (asprintf(&dir, "%s/.swipium/flows", sw_session_root(s)) < 0)
		return res;
	DIR *d = opendir(dir);
	char *names[256];
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) && n < 256) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] != '.' &&
		    ((l > 5 && !strcmp(e->d_name + l - 5, ".yaml")) || (l > 4 && !strcmp(e->d_name + l - 4, ".yml"))))
			names[n++] = strdup(e->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		if (mcp_call_cancelled(call))
			break;
		json_t *co = json_pack("{s:s,s:s}", "root", sw_session_root(s), "flow", names[i]);
		char *coj = json_dumps(co, JSON_COMPACT);
		json_decref(co);
		char *chk = NULL;
		sw_error *err = NULL;
		json_t *entry = json_pack("{s:s}", "flow", names[i]);
		if (sw_flow_check(coj, &chk, &err) != SW_OK) {
			json_object_set_new(entry, "outcome", json_string("fail"));
			json_object_set_new(entry, "failureCode", json_string(sw_error_failure_code(err)));
			json_object_set_new(entry, "message", json_string(sw_error_message(err)));
			add_note(s, names[i], "fail", "other", sw_error_message(err));
			sw_error_free(err);
		} else {
			json_t *c = json_loads(chk, 0, NULL);
			bool unsafe = json_is_true(json_object_get(c, "needsConsent")) ||
			              json_is_true(json_object_get(c, "usesVisualSteps")) ||
			              json_array_size(json_object_get(c, "mutatingSteps")) > 0;
			if (!json_is_true(json_object_get(c, "valid"))) {
				json_object_set_new(entry, "outcome", json_string("fail"));
				json_object_set_new(entry, "failureCode", json_string("INVALID_FLOW"));
				add_note(s, names[i], "fail", "other", "the flow is not valid; see qa_flow_check");
			} else if (unsafe) {
				char *why = NULL;
				if (asprintf(&why,
				             "not run implicitly: the flow has mutating or OCR/visual steps; run it "
				             "with qa_flow_run {sessionId, flow: \"%s\"}",
				             names[i]) < 0)
					why = NULL;
				json_object_set_new(entry, "outcome", json_string("blocked"));
				json_object_set_new(entry, "reason", json_string(why ? why : "not run implicitly"));
				add_note(s, names[i], "blocked", "destructive_refused", why);
				free(why);
			} else {
				smoke_run_flow(s, b, names[i], variables, entry);
			}
			json_decref(c);
		}
		sw_free(chk);
		free(coj);
		json_array_append_new(res, entry);
		free(names[i]);
		names[i] = NULL;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return res;
}

static void qa_smoke(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	sw_drive *b = bind(call, s);
	if (!b)
		return;
	sw_device *dev = sw_drive_device(b);
	sw_ctx *ctx = mcp_call_ctx(call);
	char *app = session_app(s);
	json_t *res = json_object();
	json_t *warnings = json_array();
	bool launch = app && !json_is_false(json_object_get(args, "launch"));
	sw_error *err = NULL;
	if (launch) {
		if (sw_device_launch(dev, app, &err) != SW_OK) {
			fail_device(call, s, err);
			free(app);
			json_decref(res);
			json_decref(warnings);
			return;
		}
		mcp_call_sleep(call, 800);
	}
	json_object_set_new(res, "launched", json_boolean(launch));
	json_object_set_new(res, "appId", app ? json_string(app) : json_null());
	/* baseline health */
	char *hout = NULL;
	json_t *health = NULL;
	if (sw_health_check(ctx, s, dev, NULL, &hout, &err) == SW_OK) {
		health = json_loads(hout, 0, NULL);
	} else {
		json_array_append_new(warnings, json_string(sw_error_message(err)));
		sw_error_free(err);
		err = NULL;
	}
	sw_free(hout);
	json_object_set_new(res, "health", health ? health : json_null());
	bool healthy = health && json_is_true(json_object_get(health, "healthy"));
	/* evidence screenshot (never in a sensitive session) */
	if (sw_session_is_sensitive(s)) {
		json_object_set_new(res, "screenshotUri", json_null());
		json_array_append_new(warnings, json_string("sensitive session: no evidence screenshot"));
	} else {
		unsigned char *png = NULL;
		size_t len = 0;
		char *meta = NULL;
		if (sw_device_screencap(dev, &png, &len, &err) == SW_OK &&
		    sw_artifact_save(s, "screenshot", "smoke-baseline.png", "image/png", png, len, "qa_smoke baseline",
		                     &meta, &err) == SW_OK) {
			json_t *m = json_loads(meta, 0, NULL);
			json_object_set(res, "screenshotUri", json_object_get(m, "uri"));
			json_decref(m);
			sw_session_counter_add(s, "screenshots", 1, NULL);
		} else {
			json_array_append_new(warnings, json_string(err ? sw_error_message(err) : "screenshot failed"));
			sw_error_free(err);
			err = NULL;
		}
		sw_free(meta);
		sw_free(png);
	}
	add_note(s, "smoke: baseline", healthy ? "pass" : "fail", healthy ? NULL : "app_bug",
	         healthy ? NULL : "the baseline health check found problems; see the findings");
	json_t *flows = json_is_false(json_object_get(args, "runFlows"))
	                    ? json_array()
	                    : smoke_flows(call, s, b, json_object_get(args, "variables"));
	json_object_set_new(res, "flows", flows);
	free(app);
	if (mcp_call_cancelled(call)) {
		json_decref(res);
		json_decref(warnings);
		mcp_fail(call, "CANCELLED", "qa_smoke was cancelled.", NULL);
		return;
	}
	sw_session_mark_milestone(s, "smoke", NULL);
	if (json_array_size(warnings))
		json_object_set_new(res, "warnings", warnings);
	else
		json_decref(warnings);
	size_t nf = json_array_size(flows);
	if (!nf)
		json_object_set_new(res, "note",
		                    json_string("no saved flow under .swipium/flows: only the baseline ran"));
	mcp_next(call, "qa_report {sessionId: \"%s\"} to save the report", sw_session_id(s));
	ok_fmt(call, res, "Smoke done.", "Smoke: baseline %s; %zu saved flow(s) considered.",
	       healthy ? "healthy" : "has findings", nf);
}

const struct mcp_tool mcp_tool_qa_smoke = {
    .name = "qa_smoke",
    .group = "run",
    .description = "Smoke test: launch, baseline health and screenshot, then the saved flows safe to run implicitly.",
    .schema =
        "{\"type\":\"object\",\"properties\":{" SID_PROP ",\"launch\":{\"type\":\"boolean\"},\"runFlows\":{"
        "\"type\":\"boolean\"},\"variables\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}},"
        "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_smoke,
};
