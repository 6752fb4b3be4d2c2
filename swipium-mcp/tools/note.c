/* note.c: qa_note, the test-outcome record of the `drive` group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

/* Logs the failed workflow as an app_bug issue (owner app, severity medium); the note stands either way. */
static void log_issue(sw_session *s, json_t *args, json_t *out)
{
	const char *workflow = json_string_value(json_object_get(args, "workflow"));
	const char *reason = json_string_value(json_object_get(args, "reason"));
	char *title = NULL;
	if (asprintf(&title, "%s%s%s", workflow, reason ? ": " : "", reason ? reason : "") < 0)
		return;
	json_t *req = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "mode", "log", "title", title, "category", "app_bug",
	                        "severity", "medium", "sessionId", sw_session_id(s), "source", "qa_note");
	free(title);
	if (json_is_array(json_object_get(args, "artifactUris")))
		json_object_set(req, "evidenceUris", json_object_get(args, "artifactUris"));
	char *text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	char *result = NULL;
	sw_error *err = NULL;
	if (text && sw_issues_run(sw_session_root(s), text, sw_session_redactor(s), &result, &err) == SW_OK) {
		json_t *r = json_loads(result, 0, NULL);
		json_t *issue = json_object_get(r, "issue");
		json_object_set(out, "issueId", json_object_get(issue, "issueId"));
		json_object_set(out, "issueState", json_object_get(issue, "state"));
		json_decref(r);
	} else {
		json_object_set_new(out, "issueLogged", json_false());
		if (err)
			json_object_set_new(out, "issueNote", json_string(sw_error_message(err)));
	}
	sw_error_free(err);
	sw_free(result);
	free(text);
}

static void qa_note(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *outcome = json_string_value(json_object_get(args, "outcome"));
	json_t *note = json_object();
	static const char *const keys[] = {
	    "workflow",      "outcome",          "category",     "reason",           "missingPrecondition",
	    "requiredState", "recommendedSetup", "artifactUris", "verifiedVisually", NULL};
	for (int i = 0; keys[i]; i++)
		if (json_object_get(args, keys[i]))
			json_object_set(note, keys[i], json_object_get(args, keys[i]));
	/* A failure without a category is an app bug, and goes to the project's issue ledger. */
	bool ledger = !strcmp(outcome, "fail") && !json_object_get(note, "category");
	if (ledger)
		json_object_set_new(note, "category", json_string("app_bug"));
	char *text = json_dumps(note, JSON_COMPACT | JSON_PRESERVE_ORDER);
	sw_error *err = NULL;
	int persisted = 0;
	char *warning = NULL;
	int rc = text ? sw_session_append_json_persisted(s, "notes", text, &persisted, &warning, &err) : SW_ENOMEM;
	free(text);
	if (rc != SW_OK) {
		json_decref(note);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	const char *category = json_string_value(json_object_get(note, "category"));
	const char *workflow = json_string_value(json_object_get(args, "workflow"));
	json_t *o = json_pack("{s:b,s:b,s:s,s:s,s:s*}", "recorded", 1, "persisted", persisted, "workflow", workflow,
	                      "outcome", outcome, "category", category);
	if (warning)
		json_object_set_new(o, "warnings", json_pack("[s]", warning));
	if (ledger)
		log_issue(s, args, o);
	char summary[400];
	sw_text_snprintf(summary, sizeof(summary), "Recorded %s for \"%s\"%s%s%s%s.", outcome, mcp_cap(call, workflow, 200),
	                 category ? " (" : "", category ? category : "", category ? ")" : "",
	                 persisted ? "" : ", in memory only: NOT saved to disk (see warnings)");
	sw_free(warning);
	json_decref(note);
	if (mcp_tool_listed("qa_report"))
		mcp_next(call, "qa_report {sessionId: \"%s\"} when the run is complete", sw_session_id(s));
	else
		mcp_next(call, "qa_status {sessionId: \"%s\"} for the next step", sw_session_id(s));
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_note = {
    .name = "qa_note",
    .group = "drive",
    .description = "Records one workflow's outcome. fail without category = app_bug; mcp_limitation marks the tool "
                   "verdict BLOCKED in the report.",
    .schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"sessionId\":{\"type\":\"string\"},"
        "\"workflow\":{\"type\":\"string\",\"description\":\"Name of the user journey checked.\"},"
        "\"outcome\":{\"type\":\"string\",\"enum\":[\"pass\",\"fail\",\"blocked\",\"skipped\",\"not_applicable\"]},"
        "\"category\":{\"type\":\"string\",\"enum\":[\"app_bug\",\"mcp_limitation\",\"missing_test_data\","
        "\"intentionally_skipped\",\"destructive_refused\",\"other\"]},"
        "\"reason\":{\"type\":\"string\"},"
        "\"missingPrecondition\":{\"type\":\"string\"},"
        "\"requiredState\":{\"type\":\"string\"},"
        "\"recommendedSetup\":{\"type\":\"string\"},"
        "\"artifactUris\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"Evidence URIs.\"},"
        "\"verifiedVisually\":{\"type\":\"boolean\"}},"
        "\"required\":[\"sessionId\",\"workflow\",\"outcome\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_note,
};
