/* metro.c: qa_metro, the Metro bundler of a React Native / Expo project (libswipium/metro). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

/* Answers the call with a library result; the summary keeps all its lines (TOOLS.md: qa_metro's summary). */
static void answer(mcp_call *call, sw_session *s, int rc, char *out, sw_error *err, const char *action)
{
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		if (!strcmp(sw_error_failure_code(err), "NO_DEVICE"))
			mcp_fail_step(call, "qa_prepare_target {sessionId: \"%s\", bindOnly: true} or qa_wait {for: \"device_online\"}",
			              sw_session_id(s));
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	bool ready = json_is_true(json_object_get(res, "ready"));
	bool serving = json_is_true(json_object_get(res, "serving"));
	const char *device = json_string_value(json_object_get(res, "device"));
	char summary[600];
	if (!strcmp(action, "stop")) {
		snprintf(summary, sizeof(summary), "%s\nreverse removed: %s",
		         json_is_true(json_object_get(res, "stopped")) ? "Metro stopped (its whole process group)."
		                                                         : "No Metro started by this server for the session.",
		         json_is_true(json_object_get(res, "reverseRemoved")) ? "yes" : "no (none was set, or the device was not reachable)");
	} else {
		json_t *rev = json_object_get(res, "reverseSet");
		snprintf(summary, sizeof(summary), "Metro on port %d: %s.\nlistening: %s, serving: %s, adb reverse: %s%s%s",
		         (int)json_integer_value(json_object_get(res, "port")), ready ? "ready" : "not ready",
		         json_is_true(json_object_get(res, "metroListening")) ? "yes" : "no", serving ? "yes" : "no",
		         json_is_true(rev) ? "set" : json_is_false(rev) ? "not set" : "unknown", device ? " on " : "",
		         device ? device : "");
	}
	mcp_keep_whole_summary(call);
	if (!strcmp(action, "start") && ready)
		mcp_next(call, "qa_prepare_target {sessionId: \"%s\"} to relaunch the app so it loads the bundle", sw_session_id(s));
	else if (!strcmp(action, "start"))
		mcp_next(call, "qa_wait {sessionId: \"%s\", for: \"metro_ready\"}", sw_session_id(s));
	else if (!strcmp(action, "status") && !ready)
		mcp_next(call, "qa_metro {sessionId: \"%s\", action: \"diagnose\"}", sw_session_id(s));
	mcp_ok(call, res, summary);
}

static void qa_metro(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *action = json_string_value(json_object_get(args, "action"));
	char *out = NULL;
	sw_error *err = NULL;
	int rc;
	if (!strcmp(action, "status") || !strcmp(action, "diagnose")) {
		rc = sw_metro_status(mcp_call_ctx(call), s, !strcmp(action, "diagnose"), &out, &err);
	} else if (!strcmp(action, "stop")) {
		rc = sw_metro_stop(mcp_call_ctx(call), s, &out, &err);
	} else {
		char *pj = NULL;
		if (sw_metro_plan(mcp_call_ctx(call), s, &pj, &err) != SW_OK) {
			answer(call, s, SW_EIO, NULL, err, action);
			return;
		}
		json_t *plan = json_loads(pj, 0, NULL);
		sw_free(pj);
		const char *serial = json_string_value(json_object_get(plan, "device"));
		int port = (int)json_integer_value(json_object_get(plan, "port"));
		char ps[16];
		snprintf(ps, sizeof(ps), "tcp:%d", port);
		/* the prompt shows both commands whole: the reverse the driver runs and Metro in its folder */
		json_t *commands = json_array();
		if (serial)
			json_array_append_new(commands, json_pack("{s:s,s:[s,s,s,s,s,s],s:s}", "label", "adb reverse", "argv", "adb",
			                                          "-s", serial, "reverse", ps, ps, "origin", "the session's device"));
		json_array_append_new(commands, json_pack("{s:s,s:O,s:O,s:s}", "label", "metro", "argv",
		                                          json_object_get(plan, "argv"), "cwd", json_object_get(plan, "cwd"),
		                                          "origin", "the project's framework"));
		json_t *affects = json_pack("{s:O,s:i,s:o}", "cwd", json_object_get(plan, "cwd"), "port", port, "device",
		                            serial ? json_string(serial) : json_null());
		char explain[600];
		sw_text_snprintf(explain, sizeof(explain),
		                 "Start the %s Metro bundler from the project (it runs the project's own code) on port %d%s%s.",
		                 json_string_value(json_object_get(plan, "framework")), port,
		                 serial ? ", reachable from the device through adb reverse on " : "", serial ? serial : "");
		struct mcp_consent_request req = {
		    .action = "start_metro",
		    .risk = "medium",
		    .explain = explain,
		    .affects = affects,
		    .session = s,
		    .commands = commands,
		};
		enum mcp_consent_outcome oc = mcp_call_consent_take(call, args, &req);
		json_decref(plan);
		if (oc == MCP_CONSENT_ANSWERED)
			return;
		rc = sw_metro_start(mcp_call_ctx(call), s, &out, &err);
	}
	answer(call, s, rc, out, err, action);
}

const struct mcp_tool mcp_tool_qa_metro = {
    .name = "qa_metro",
    .group = "device",
    .description = "Metro bundler of a React Native / Expo project on port 8081: status, diagnose (red box, "
                   "device log, recovery), start (adb reverse + Metro as a managed process with a log; consent "
                   "start_metro), stop (the whole process group, the reverse removed).",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
              "\"action\":{\"type\":\"string\",\"enum\":[\"status\",\"diagnose\",\"start\",\"stop\"]},"
              "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}},"
              "\"required\":[\"sessionId\",\"action\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_metro,
};
