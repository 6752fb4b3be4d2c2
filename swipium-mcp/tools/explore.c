/* explore.c: qa_explore (group `run`): checks the arguments, asks the destructive_ui_candidate consent when one
 * candidate is approved, and starts the library's crawl as a job (libswipium/autopilot/explore.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

static void qa_explore(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	json_t *a = mcp_args_for_library(args, NULL);
	char *aj = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	char *consent = NULL;
	sw_error *err = NULL;
	if (!aj || sw_explore_check(s, aj, &consent, &err) != SW_OK) {
		free(aj);
		mcp_fail_err(call, err);
		if (err && !strcmp(sw_error_failure_code(err), "DESTRUCTIVE_REFUSED"))
			mcp_fail_step(call, "qa_explore {sessionId: \"%s\", safeMode: \"dry_run_destructive\"}", sw_session_id(s));
		sw_error_free(err);
		return;
	}
	json_t *c = json_loads(consent, JSON_DECODE_ANY, NULL);
	sw_free(consent);
	if (json_is_object(c)) {
		/* one destructive control, once: the prompt names it and the single action it approves */
		json_t *aff = json_object_get(c, "affects");
		char exact[700];
		const char *ls = json_string_value(json_object_get(json_object_get(aff, "locator"), "strategy"));
		const char *lv = json_string_value(json_object_get(json_object_get(aff, "locator"), "value"));
		const char *ss = json_string_value(json_object_get(aff, "screenSignature"));
		const char *cs = json_string_value(json_object_get(aff, "candidateSignature"));
		sw_text_snprintf(exact, sizeof(exact), "qa_act tap {%s: %s} once, on screen %s (control %s)", ls ? ls : "ref",
		                 lv ? lv : "?", ss ? ss : "?", cs ? cs : "?");
		struct mcp_consent_request req = {
		    .action = "destructive_ui_candidate",
		    .risk = "high",
		    .explain = json_string_value(json_object_get(c, "explain")),
		    .exact_command = exact,
		    .affects = aff,
		    .session = s,
		};
		enum mcp_consent_outcome oc = mcp_call_consent(call, args, &req);
		json_decref(c);
		if (oc == MCP_CONSENT_ANSWERED) {
			free(aj);
			return;
		}
	} else {
		json_decref(c);
	}
	char *job_id = NULL;
	int rc = sw_explore_start(mcp_call_ctx(call), s, aj, &job_id, &err);
	free(aj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_pack("{s:s,s:s,s:s}", "sessionId", sw_session_id(s), "jobId", job_id, "state", "running");
	mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000}", sw_session_id(s), job_id);
	sw_free(job_id);
	mcp_ok(call, res, "Exploring the app in the background; the job's result has the graph and the findings.");
}

const struct mcp_tool mcp_tool_qa_explore = {
    .name = "qa_explore",
    .group = "run",
    .description = "Job: crawls the app (safe controls only by default), health after every tap, screen graph JSON+"
                   "Markdown; stops at a login wall with needs_input. Poll with qa_job_status.",
    .schema =
        "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},\"goal\":{\"type\":\"string\"},"
        "\"depth\":{\"type\":\"number\"},\"maxActions\":{\"type\":\"number\"},\"maxScreens\":{\"type\":\"number\"},"
        "\"maxDurationMs\":{\"type\":\"number\"},"
        "\"strategy\":{\"type\":\"string\",\"enum\":[\"crawl\",\"task_planner\",\"hybrid\"]},"
        "\"safeMode\":{\"type\":\"string\",\"enum\":[\"strict\",\"balanced\",\"dry_run_destructive\","
        "\"approved_destructive_candidate\",\"approved_destructive\"]},"
        "\"destructiveCandidate\":{\"type\":\"object\",\"properties\":{\"screenSignature\":{\"type\":\"string\"},"
        "\"candidateSignature\":{\"type\":\"string\"},\"label\":{\"type\":\"string\"},"
        "\"locator\":{\"type\":\"object\",\"properties\":{\"strategy\":{\"type\":\"string\"},"
        "\"value\":{\"type\":\"string\"}}},\"riskClass\":{\"type\":\"string\"}},"
        "\"required\":[\"screenSignature\",\"candidateSignature\"]},"
        "\"confirmHighImpact\":{\"type\":\"boolean\"},\"generateSuite\":{\"type\":\"boolean\"},"
        "\"includeTextEntry\":{\"type\":\"boolean\"},\"stopOnAuth\":{\"type\":\"boolean\"},"
        "\"accountCycle\":{\"type\":\"boolean\"},\"allowGeneratedData\":{\"type\":\"boolean\"},"
        "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}},"
        "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_explore,
};
