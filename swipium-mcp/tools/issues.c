/* issues.c: qa_issue_log (group `issues`): the project's issue ledger through sw_issues_run(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

#define STATES                                                                                                         \
	"[\"open\",\"observed_again\",\"fixed\",\"reopened\",\"suppressed\",\"expected_environment_noise\",\"needs_"   \
	"triage\"]"
#define CATEGORIES                                                                                                     \
	"[\"app_bug\",\"blocker_app_bug\",\"environment_noise\",\"expected_gate\",\"hard_gate\",\"improvement\","      \
	"\"missing_test_data\",\"mcp_limitation\",\"security_privacy\",\"store_compliance\",\"accessibility_"          \
	"readiness\"]"
#define SEVERITIES "[\"blocker\",\"high\",\"medium\",\"low\",\"info\"]"
#define PLATFORMS "[\"ios\",\"android\",\"web\",\"unknown\"]"

static void qa_issue_log(mcp_call *call, json_t *args)
{
	const char *sid = json_string_value(json_object_get(args, "sessionId"));
	const char *root_arg = json_string_value(json_object_get(args, "projectRoot"));
	sw_session *s = NULL;
	if (sid && mcp_call_session(call, sid, &s) != 0)
		return;
	char *root = NULL, *source = NULL;
	if (s && !root_arg) {
		root = strdup(sw_session_root(s));
	} else if (mcp_call_project_root(call, root_arg, &root, &source) != 0) {
		return;
	}
	json_t *req = json_deep_copy(args);
	json_object_del(req, "projectRoot");
	json_object_set_new(req, "source", json_string("qa_issue_log"));
	char *req_text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = req_text ? sw_issues_run(root, req_text, s ? sw_session_redactor(s) : NULL, &out, &err) : SW_ENOMEM;
	free(req_text);
	if (rc != SW_OK) {
		free(root);
		sw_free(source);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *o = json_loads(out, 0, NULL);
	sw_free(out);
	if (!o) {
		free(root);
		sw_free(source);
		mcp_fail(call, "UNKNOWN", "The issue ledger answered with something unreadable.", NULL);
		return;
	}
	json_object_set_new(o, "projectRoot", json_string(root));
	if (source)
		json_object_set_new(o, "rootSource", json_string(source));
	const char *mode = json_string_value(json_object_get(o, "mode"));
	json_t *issue = json_object_get(o, "issue");
	char summary[400];
	if (!strcmp(mode, "history"))
		sw_text_snprintf(summary, sizeof(summary), "%lld issue(s) shown of %lld in the ledger (%lld suppressed).",
		         (long long)json_integer_value(json_object_get(o, "count")),
		         (long long)json_integer_value(json_object_get(o, "total")),
		         (long long)json_integer_value(json_object_get(o, "suppressed")));
	else if (!strcmp(mode, "metrics"))
		sw_text_snprintf(summary, sizeof(summary), "Issue metrics by %s over %lld issue(s).",
		         json_string_value(json_object_get(o, "groupBy")),
		         (long long)json_integer_value(json_object_get(o, "issues")));
	else
		sw_text_snprintf(summary, sizeof(summary), "Issue %s \"%s\": %s (state %s).",
		         json_string_value(json_object_get(issue, "issueId")),
		         mcp_cap(call, json_string_value(json_object_get(issue, "title")), 200),
		         json_string_value(json_object_get(o, "outcome")),
		         json_string_value(json_object_get(issue, "state")));
	free(root);
	sw_free(source);
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_issue_log = {
    .name = "qa_issue_log",
    .group = "issues",
    .description = "Project issue ledger (.swipium/issues-log.jsonl): history, log, mark_fixed, verify_fixed, "
                   "suppress, metrics. Re-observed fixed issues reopen.",
    .schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"projectRoot\":{\"type\":\"string\"},"
        "\"sessionId\":{\"type\":\"string\",\"description\":\"Scrubs the session's secrets.\"},"
        "\"mode\":{\"type\":\"string\",\"enum\":[\"history\",\"log\",\"mark_fixed\",\"verify_fixed\",\"suppress\","
        "\"metrics\"]},"
        "\"state\":{\"type\":\"string\",\"enum\":" STATES "},"
        "\"category\":{\"type\":\"string\",\"enum\":" CATEGORIES "},"
        "\"severity\":{\"type\":\"string\",\"enum\":" SEVERITIES "},"
        "\"platform\":{\"type\":\"string\",\"enum\":" PLATFORMS "},"
        "\"since\":{\"type\":\"string\",\"description\":\"ISO date.\"},"
        "\"includeSuppressed\":{\"type\":\"boolean\"},"
        "\"title\":{\"type\":\"string\",\"description\":\"log: what is wrong, where.\"},"
        "\"summary\":{\"type\":\"string\"},"
        "\"failureCode\":{\"type\":\"string\"},"
        "\"evidenceUris\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
        "\"issueId\":{\"type\":\"string\"},"
        "\"fingerprint\":{\"type\":\"string\"},"
        "\"fixedInCommit\":{\"type\":\"string\"},"
        "\"fixedInVersion\":{\"type\":\"string\"},"
        "\"howFixed\":{\"type\":\"string\"},"
        "\"fixedBy\":{\"type\":\"string\"},"
        "\"reportUri\":{\"type\":\"string\"},"
        "\"testCaseId\":{\"type\":\"string\"},"
        "\"auditCheckId\":{\"type\":\"string\"},"
        "\"suppressionReason\":{\"type\":\"string\"},"
        "\"suppressedUntil\":{\"type\":\"string\",\"description\":\"ISO date.\"},"
        "\"suppressionScope\":{\"type\":\"string\"},"
        "\"unsuppress\":{\"type\":\"boolean\"},"
        "\"until\":{\"type\":\"string\",\"description\":\"Deprecated alias of suppressedUntil; metrics: end.\"},"
        "\"groupBy\":{\"type\":\"string\",\"enum\":[\"day\",\"week\",\"month\"]}}}",
    .annot = MCP_ANNOT_W,
    .handler = qa_issue_log,
};
