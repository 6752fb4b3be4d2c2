/* prepare-ios.c: qa_prepare_ios_target: simulator, boot, install (consent install_app), launch, mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool.h"

static void qa_prepare_ios_target(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	json_t *o = json_object();
	static const char *const keys[] = {"app", "bundleId", "device", "launch", "attachWda", NULL};
	for (int i = 0; keys[i]; i++)
		if (json_object_get(args, keys[i]))
			json_object_set(o, keys[i], json_object_get(args, keys[i]));
	char *oj = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	char *pj = NULL;
	sw_error *err = NULL;
	if (!oj || sw_ios_prepare_plan(mcp_call_ctx(call), s, oj, &pj, &err) != SW_OK) {
		if (err)
			mcp_fail_err(call, err);
		else
			mcp_fail(call, "UNKNOWN", "Out of memory.", NULL);
		sw_error_free(err);
		free(oj);
		return;
	}
	json_t *plan = json_loads(pj, 0, NULL);
	sw_free(pj);
	json_t *app = json_object_get(plan, "app");
	if (app) {
		char why[1200];
		bool outside = json_is_false(json_object_get(app, "insideProjectRoot"));
		sw_text_snprintf(why, sizeof(why), "Install %s (%s)%s on the iOS simulator%s%s, then launch it.",
		                 json_string_value(json_object_get(app, "path")),
		                 json_string_value(json_object_get(app, "bundleId")), outside ? ", from outside the project" : "",
		                 json_is_string(json_object_get(plan, "name")) ? " " : "",
		                 json_is_string(json_object_get(plan, "name")) ? json_string_value(json_object_get(plan, "name"))
		                                                               : "");
		json_t *affects = json_pack("{s:s,s:O,s:O,s:O}", "action", "install", "path", json_object_get(app, "path"),
		                            "bundleId", json_object_get(app, "bundleId"), "insideProjectRoot",
		                            json_object_get(app, "insideProjectRoot"));
		json_t *commands = json_array();
		size_t k;
		json_t *c;
		json_array_foreach(json_object_get(plan, "commands"), k, c)
		{
			json_array_append_new(commands, json_pack("{s:O,s:O,s:s}", "label", json_object_get(c, "label"), "argv",
			                                          json_object_get(c, "argv"), "origin",
			                                          "the qa_prepare_ios_target arguments"));
		}
		if (!json_array_size(commands))
			json_array_append_new(commands,
			                      json_pack("{s:s,s:[s,s,s,s,O],s:s}", "label", "install (after the boot)", "argv",
			                                "xcrun", "simctl", "install", "<the booted simulator's UDID>",
			                                json_object_get(app, "path"), "origin", "the qa_prepare_ios_target arguments"));
		struct mcp_consent_request req = {.action = "install_app",
		                                  .risk = json_string_value(json_object_get(plan, "risk")),
		                                  .explain = why,
		                                  .affects = affects,
		                                  .session = s,
		                                  .commands = commands};
		enum mcp_consent_outcome oc = mcp_call_consent_take(call, args, &req);
		if (oc != MCP_CONSENT_APPROVED) {
			json_decref(plan);
			free(oj);
			return;
		}
	}
	json_decref(plan);
	char *out = NULL;
	int rc = sw_ios_prepare_run(mcp_call_ctx(call), s, oj, mcp_call_abort, call, &out, &err);
	free(oj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *r = json_loads(out, 0, NULL);
	sw_free(out);
	const char *sid = sw_session_id(s);
	char sum[400];
	if (json_is_string(json_object_get(r, "jobId"))) {
		sw_text_snprintf(sum, sizeof(sum), "%s is still booting; job %s finishes the install and launch.",
		                 json_string_value(json_object_get(r, "name")), json_string_value(json_object_get(r, "jobId")));
		mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 30000}", sid,
		         json_string_value(json_object_get(r, "jobId")));
	} else {
		const char *mode = json_string_value(json_object_get(r, "mode"));
		sw_text_snprintf(sum, sizeof(sum), "%s ready on %s (%s).", json_string_value(json_object_get(r, "bundleId")),
		                 json_string_value(json_object_get(r, "name")), mode ? mode : "?");
		mcp_next(call, "%s {sessionId: \"%s\"}", mode && !strcmp(mode, "structured") ? "qa_snapshot" : "qa_screenshot",
		         sid);
	}
	mcp_ok(call, r, sum);
}

const struct mcp_tool mcp_tool_qa_prepare_ios_target = {
    .name = "qa_prepare_ios_target",
    .group = "setup",
    .description = "iOS Simulator target in one call: pick and boot the simulator, install the .app (consent "
                   "install_app), launch it, report structured (WebDriverAgent) or visual-only.",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
              "\"app\":{\"type\":\"string\",\"description\":\"Simulator .app (absolute or project-relative).\"},"
              "\"bundleId\":{\"type\":\"string\"},"
              "\"device\":{\"type\":\"string\",\"description\":\"UDID or name substring.\"},"
              "\"launch\":{\"type\":\"boolean\"},"
              "\"attachWda\":{\"type\":\"string\",\"enum\":[\"auto\",\"required\",\"skip\"],\"default\":\"auto\"},"
              "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}},"
              "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_prepare_ios_target,
};
