/* wda.c: qa_wda, WebDriverAgent for an iOS simulator: status, doctor, diagnose, tune, attach, build, start, logs, stop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool.h"

static void qa_wda(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	json_t *o = json_object();
	static const char *const keys[] = {
	    "action", "webDriverAgentUrl", "device", "udid", "bundleId", "wdaProjectPath", "derivedDataPath",
	    "scheme", "allowNonLoopback",  NULL};
	for (int i = 0; keys[i]; i++)
		if (json_object_get(args, keys[i]))
			json_object_set(o, keys[i], json_object_get(args, keys[i]));
	char *oj = json_dumps(o, JSON_COMPACT);
	char *pj = NULL;
	sw_error *err = NULL;
	if (!oj || sw_ios_wda_plan(mcp_call_ctx(call), s, oj, &pj, &err) != SW_OK) {
		if (err)
			mcp_fail_err(call, err);
		else
			mcp_fail(call, "UNKNOWN", "Out of memory.", NULL);
		sw_error_free(err);
		free(oj);
		json_decref(o);
		return;
	}
	json_t *plan = json_loads(pj, 0, NULL);
	sw_free(pj);
	if (json_is_true(json_object_get(plan, "needsNonLoopbackConsent"))) {
		/* a remote WebDriverAgent: asked every time; SWIPIUM_ALLOW_REMOTE_WDA is the only pre-approval */
		char why[600];
		sw_text_snprintf(
		    why, sizeof(why),
		    "Send WebDriverAgent commands (%s) to %s, which is not on this machine's loopback: it can "
		    "drive whatever device answers there.",
		    json_string_value(json_object_get(plan, "action")),
		    json_string_value(json_object_get(plan, "url")));
		json_t *affects = json_pack("{s:O,s:O}", "url", json_object_get(plan, "url"), "action",
		                            json_object_get(plan, "action"));
		struct mcp_consent_request req = {
		    .action = "wda_non_loopback", .risk = "medium", .explain = why, .affects = affects, .session = s};
		enum mcp_consent_outcome oc = mcp_call_consent(call, args, &req);
		json_decref(affects);
		if (oc != MCP_CONSENT_APPROVED) {
			json_decref(plan);
			json_decref(o);
			free(oj);
			return;
		}
		json_object_set_new(o, "nonLoopbackApproved", json_true());
		free(oj);
		oj = json_dumps(o, JSON_COMPACT);
	}
	const char *pa = json_string_value(json_object_get(plan, "action"));
	if (pa && (!strcmp(pa, "build") || !strcmp(pa, "start"))) {
		/* xcodebuild runs the WebDriverAgent project's code: asked with the whole command */
		bool build = !strcmp(pa, "build");
		char why[1600];
		sw_text_snprintf(why, sizeof(why), "%s WebDriverAgent for simulator %s by running: %s",
		                 build ? "Build" : "Start", json_string_value(json_object_get(plan, "udid")),
		                 json_string_value(json_object_get(plan, "commandLine")));
		json_t *affects = json_pack("{s:O,s:O,s:O,s:O}", "udid", json_object_get(plan, "udid"), "project",
		                            json_object_get(plan, "project"), "command",
		                            json_object_get(plan, "command"), "url", json_object_get(plan, "url"));
		struct mcp_consent_request req = {.action = build ? "wda_build" : "wda_start",
		                                  .risk = "medium",
		                                  .explain = why,
		                                  .affects = affects,
		                                  .session = s};
		enum mcp_consent_outcome oc = mcp_call_consent(call, args, &req);
		json_decref(affects);
		if (oc != MCP_CONSENT_APPROVED) {
			json_decref(plan);
			json_decref(o);
			free(oj);
			return;
		}
	}
	json_decref(plan);
	json_decref(o);
	char *out = NULL;
	int rc = oj ? sw_ios_wda_run(mcp_call_ctx(call), s, oj, &out, &err) : SW_ENOMEM;
	free(oj);
	if (rc != SW_OK) {
		if (err)
			mcp_fail_err(call, err);
		else
			mcp_fail(call, "UNKNOWN", "Out of memory.", NULL);
		sw_error_free(err);
		return;
	}
	json_t *r = json_loads(out, 0, NULL);
	sw_free(out);
	const char *action = json_string_value(json_object_get(r, "action"));
	json_t *st = json_object_get(r, "status");
	char sum[400];
	if (!strcmp(action, "attach")) {
		sw_text_snprintf(sum, sizeof(sum), "WebDriverAgent at %s attached to %s: the session is structured.",
		                 json_string_value(json_object_get(r, "url")),
		                 json_string_value(json_object_get(r, "name")));
		mcp_next(call, "qa_snapshot {sessionId: \"%s\"}", sw_session_id(s));
	} else if (!strcmp(action, "build")) {
		sw_text_snprintf(
		    sum, sizeof(sum),
		    "WebDriverAgent build for simulator %s started as job %s (xcodebuild build-for-testing).",
		    json_string_value(json_object_get(r, "udid")), json_string_value(json_object_get(r, "jobId")));
		mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000}", sw_session_id(s),
		         json_string_value(json_object_get(r, "jobId")));
		mcp_next(call, "qa_wda {sessionId: \"%s\", action: \"start\"} once the job is done", sw_session_id(s));
	} else if (!strcmp(action, "start")) {
		bool att = json_is_true(json_object_get(r, "attached"));
		sw_text_snprintf(sum, sizeof(sum), "WebDriverAgent started at %s (pid %lld)%s.",
		                 json_string_value(json_object_get(r, "url")),
		                 (long long)json_integer_value(json_object_get(r, "pid")),
		                 att ? " and attached: the session is structured" : ", still starting");
		if (att)
			mcp_next(call, "qa_snapshot {sessionId: \"%s\"}", sw_session_id(s));
		else
			mcp_next(call, "qa_wait {sessionId: \"%s\", for: \"wda_ready\"}", sw_session_id(s));
	} else if (!strcmp(action, "stop") && json_is_true(json_object_get(r, "stopped"))) {
		sw_text_snprintf(sum, sizeof(sum), "WebDriverAgent %lld at %s stopped%s.",
		                 (long long)json_integer_value(json_object_get(r, "pid")),
		                 json_string_value(json_object_get(r, "url")),
		                 json_is_true(json_object_get(r, "adopted")) ? " (adopted after a server restart)"
		                                                             : "");
	} else if (st && json_is_object(st)) {
		json_t *mg = json_object_get(r, "managed");
		char who[120] = "";
		if (json_is_object(mg))
			sw_text_snprintf(who, sizeof(who), " (managed runner pid %lld%s)",
			                 (long long)json_integer_value(json_object_get(mg, "pid")),
			                 json_is_true(json_object_get(mg, "adopted")) ? ", adopted after a restart"
			                                                              : "");
		sw_text_snprintf(
		    sum, sizeof(sum), "WebDriverAgent at %s: %s%s.", json_string_value(json_object_get(r, "url")),
		    json_is_true(json_object_get(st, "ready"))
		        ? "ready"
		        : (json_is_true(json_object_get(st, "reachable")) ? "answering, not ready" : "not answering"),
		    who);
	} else
		sw_text_snprintf(sum, sizeof(sum), "qa_wda %s: %s", action,
		                 json_string_value(json_object_get(r, "reason"))
		                     ? json_string_value(json_object_get(r, "reason"))
		                     : "done");
	mcp_ok(call, r, sum);
}

const struct mcp_tool mcp_tool_qa_wda = {
    .name = "qa_wda",
    .group = "setup",
    .description = "WebDriverAgent for an iOS simulator: status, doctor, diagnose, tune, attach (structured mode for "
                   "qa_snapshot/qa_act), build (xcodebuild as a background job) and start (with consent; start "
                   "attaches), logs, stop (also a WDA adopted after a restart); "
                   "loopback URLs only unless approved.",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
              "\"action\":{\"type\":\"string\",\"enum\":[\"status\",\"doctor\",\"build\",\"start\",\"stop\",\"attach\","
              "\"diagnose\",\"logs\",\"tune\"]},"
              "\"webDriverAgentUrl\":{\"type\":\"string\",\"description\":\"Default: the attached one, else "
              "ios.wda.url, else http://127.0.0.1:8100.\"},"
              "\"device\":{\"type\":\"string\",\"description\":\"Simulator UDID (default: the session's).\"},"
              "\"udid\":{\"type\":\"string\",\"description\":\"Deprecated alias of device.\"},"
              "\"bundleId\":{\"type\":\"string\"},\"wdaProjectPath\":{\"type\":\"string\"},"
              "\"derivedDataPath\":{\"type\":\"string\"},\"scheme\":{\"type\":\"string\"},"
              "\"allowNonLoopback\":{\"type\":\"boolean\"},"
              "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}},"
              "\"required\":[\"sessionId\",\"action\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_wda,
};
