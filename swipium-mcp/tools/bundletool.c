/* bundletool.c: qa_bundletool, an Android App Bundle turned into an installable APK (libswipium/artifacts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

static void qa_bundletool(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	bool connected = json_is_true(json_object_get(args, "connectedDevice"));
	bool install = json_is_true(json_object_get(args, "install"));
	if (install && !connected) {
		mcp_fail(call, "INVALID_ARGUMENT", "install needs connectedDevice: true (the APK is installed on that device).",
		         json_pack("{s:b}", "install", 1));
		return;
	}
	json_t *o = json_object();
	if (json_object_get(args, "aab"))
		json_object_set(o, "aab", json_object_get(args, "aab"));
	if (json_object_get(args, "force"))
		json_object_set(o, "force", json_object_get(args, "force"));
	char *oj = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	char *pj = NULL;
	sw_error *err = NULL;
	int rc = sw_bundletool_plan(sw_session_root(s), oj, &pj, &err);
	free(oj);
	if (rc != SW_OK) {
		const char *code = sw_error_failure_code(err);
		mcp_fail_err(call, err);
		if (!strcmp(code, "NO_BUILD_ARTIFACT") && mcp_tool_listed("qa_build"))
			mcp_fail_step(call, "qa_build {sessionId: \"%s\", platform: \"android\"} to plan the project's build",
			              sw_session_id(s));
		sw_error_free(err);
		return;
	}
	json_t *plan = json_loads(pj, 0, NULL);
	sw_free(pj);
	bool cached = json_is_true(json_object_get(plan, "fromCache"));
	const char *apk = json_string_value(json_object_get(plan, "generatedApk"));
	char *device_opts = NULL;
	if (connected) {
		/* no device named: the library takes the session's bound device, else the single online one */
		const char *want = json_string_value(json_object_get(args, "device"));
		json_t *d = json_pack("{s:b}", "install", install);
		if (want)
			json_object_set_new(d, "device", json_string(want));
		device_opts = json_dumps(d, JSON_COMPACT);
		json_decref(d);
	}
	if (install) {
		/* the install is what the person approves: the conversion (if any) and the adb install, each step whole */
		json_t *commands = json_array();
		if (!cached)
			json_array_append_new(commands, json_pack("{s:s,s:O,s:s}", "label", "bundletool", "argv",
			                                          json_object_get(plan, "argv"), "origin", "the aab argument"));
		json_array_append_new(commands, json_pack("{s:s,s:[s,s,s,s],s:s}", "label", "install", "argv", "adb", "install",
		                                          "-r", apk, "origin", "the generated APK"));
		json_t *affects = json_pack("{s:O,s:s}", "aab", json_object_get(plan, "aab"), "generatedApk", apk);
		char explain[1200];
		sw_text_snprintf(explain, sizeof(explain), "%s %s, then install %s on the device.",
		                 cached ? "Reuse the universal APK converted earlier from" : "Convert", 
		                 json_string_value(json_object_get(plan, "aab")), apk);
		struct mcp_consent_request req = {
		    .action = "install_app",
		    .risk = "medium",
		    .explain = explain,
		    .affects = affects,
		    .session = s,
		    .commands = commands,
		};
		enum mcp_consent_outcome oc = mcp_call_consent_take(call, args, &req);
		if (oc == MCP_CONSENT_ANSWERED) {
			json_decref(plan);
			free(device_opts);
			return;
		}
	}
	char *plan_text = json_dumps(plan, JSON_COMPACT);
	if (cached && !connected) {
		char *out = NULL;
		/* nothing to run: the APK converted earlier is newer than the bundle */
		rc = sw_bundletool_run(mcp_call_ctx(call), s, plan_text, NULL, NULL, NULL, &out, &err);
		free(plan_text);
		if (rc != SW_OK) {
			json_decref(plan);
			mcp_fail_err(call, err);
			sw_error_free(err);
			return;
		}
		json_t *res = json_loads(out, 0, NULL);
		sw_free(out);
		mcp_next(call, "qa_prepare_target {sessionId: \"%s\", apk: \"%s\"} to install and launch it", sw_session_id(s),
		         apk);
		json_decref(plan); /* apk points into it */
		mcp_ok(call, res, "The universal APK converted earlier is newer than the bundle: reused (force:true rebuilds).");
		return;
	}
	json_decref(plan);
	char *job_id = NULL;
	rc = sw_bundletool_start(mcp_call_ctx(call), s, plan_text, device_opts, &job_id, &err);
	free(plan_text);
	free(device_opts);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_pack("{s:s,s:s}", "jobId", job_id, "status", "running");
	mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000}", sw_session_id(s), job_id);
	sw_free(job_id);
	mcp_ok(call, res, cached ? "Checking the cached universal APK against the device in the background."
	                         : "Converting the bundle in the background (bundletool build-apks).");
}

const struct mcp_tool mcp_tool_qa_bundletool = {
    .name = "qa_bundletool",
    .group = "build",
    .description = "Turns an .aab into a universal APK with bundletool (BUNDLETOOL_JAR or PATH) in .swipium/artifacts "
                   "as a job, cached until the bundle changes; connectedDevice checks it against the device and "
                   "install installs it (consent install_app).",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
              "\"aab\":{\"type\":\"string\",\"description\":\"Default: the best .aab in the project.\"},"
              "\"force\":{\"type\":\"boolean\",\"description\":\"Rebuild even when the cached APK is newer.\"},"
              "\"connectedDevice\":{\"type\":\"boolean\"},"
              "\"install\":{\"type\":\"boolean\",\"description\":\"With connectedDevice.\"},"
              "\"device\":{\"type\":\"string\",\"description\":\"adb serial.\"},"
              "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}},"
              "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_bundletool,
};
