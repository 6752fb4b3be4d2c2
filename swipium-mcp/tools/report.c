/* report.c: qa_report (group `run`): assemble, deep-redact and save the report, render the requested export. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

static void qa_report(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *format = json_string_value(json_object_get(args, "format"));
	if (!format)
		format = "summary";
	/* the library's one pipeline: network restore, assemble, deep-redact, save, manifest, export */
	json_t *opts = json_pack("{s:s,s:s}", "format", format, "tool", "qa_report");
	static const char *const passed[] = {"baseline", "trendRoot", NULL};
	for (int i = 0; opts && passed[i]; i++)
		if (json_object_get(args, passed[i]))
			json_object_set(opts, passed[i], json_object_get(args, passed[i]));
	char *oj = opts ? json_dumps(opts, JSON_COMPACT) : NULL;
	json_decref(opts);
	char *out = NULL, *body = NULL;
	sw_error *err = NULL;
	int rc = oj ? sw_report_save(mcp_call_ctx(call), s, oj, &out, &body, &err) : SW_ENOMEM;
	free(oj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *payload = json_loads(out, JSON_PRESERVE_ORDER, NULL);
	sw_free(out);
	json_object_del(payload, "networkRestored");
	json_object_del(payload, "reportPath");
	json_t *es = json_object_get(payload, "executiveSummary");
	const char *risk = json_string_value(json_object_get(es, "risk"));
	const char *next_action = json_string_value(json_object_get(es, "nextAction"));
	char *summary = NULL;
	if (asprintf(&summary, "Report saved (%s): release risk %s. %s", format, risk ? risk : "unknown",
	             next_action ? next_action : "") < 0)
		summary = NULL;
	if (body && strcmp(format, "summary") != 0) {
		/* Text exports are also shown inline (the saved file is complete; this copy is capped). */
		size_t len = strlen(body), cap = 1 << 20;
		json_t *t = json_stringn(body, len < cap ? len : cap);
		if (t)
			mcp_add_content(call, json_pack("{s:s,s:o}", "type", "text", "text", t));
	}
	sw_free(body);
	mcp_next(call, "swipium report --format junit --session %s (CI renders the saved report)", sw_session_id(s));
	mcp_ok(call, payload, summary ? summary : "Report saved.");
	free(summary);
}

const struct mcp_tool mcp_tool_qa_report = {
    .name = "qa_report",
    .group = "run",
    .description = "Saves the session's report (deep-redacted) for `swipium report` and renders an export: "
                   "summary, markdown, json, junit, sarif, github-summary, playwright, flow.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"format\":{\"type\":\"string\",\"enum\":[\"summary\",\"markdown\",\"json\",\"junit\",\"sarif\","
              "\"github-summary\",\"playwright\",\"flow\"]},"
              "\"baseline\":{\"type\":\"string\",\"description\":\"A baseline report.json path to compare with.\"},"
              "\"trendRoot\":{\"type\":\"string\",\"description\":\"Project root whose run history gives trends.\"}},"
              "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_report,
};
