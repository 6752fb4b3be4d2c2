/* testthis.c: qa_test_this over libswipium's autopilot (swipium/autopilot.h): arguments in, plan or job out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

#define TT_WAIT_DEFAULT_MS 45000

/*
 * A test_this_plan consent asked for a call without sessionId belongs to the session created for it: the re-call
 * with the same arguments plus consentId finds that session here.
 */
static struct mcp_consent_sessions pending;
#define PENDING_CAP 64

/* The plan as text: one line per step with its status and tool call. */
static char *plan_text(json_t *plan, const char *head)
{
	size_t len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "%s", head);
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(plan, "steps"), i, st)
	{
		json_t *tool = json_object_get(st, "tool");
		char *args = json_is_object(tool) ? json_dumps(json_object_get(tool, "args"), JSON_COMPACT) : NULL;
		fprintf(f, "\n%zu. %s: %s%s%s%s%s", i + 1, json_string_value(json_object_get(st, "step")),
		        json_string_value(json_object_get(st, "status")),
		        json_object_get(st, "failureCode") ? " " : "",
		        json_object_get(st, "failureCode") ? json_string_value(json_object_get(st, "failureCode")) : "",
		        json_is_object(tool) ? " - " : "",
		        json_is_object(tool) ? json_string_value(json_object_get(tool, "tool")) : "");
		if (args)
			fprintf(f, " %s", args);
		const char *why = json_string_value(json_object_get(st, "why"));
		if (why && *why)
			fprintf(f, " (%s)", why);
		free(args);
	}
	fclose(f);
	return buf;
}

static void answer_result(mcp_call *call, json_t *res, json_t *notes, const char *job_id)
{
	if (job_id)
		json_object_set_new(res, "jobId", json_string(job_id));
	if (json_array_size(notes))
		json_object_set(res, "notes", notes);
	const char *state = json_string_value(json_object_get(res, "state"));
	char summary[600];
	const char *code = json_string_value(json_object_get(res, "failureCode"));
	const char *uri = json_string_value(json_object_get(res, "reportUri"));
	sw_text_snprintf(summary, sizeof(summary), "qa_test_this %s%s%s.%s%s", state ? state : "?", code ? ": " : "",
	                 code ? code : "", uri ? " Report: " : "", uri ? uri : "");
	json_t *q = json_object_get(json_object_get(res, "needsInput"), "question");
	if (json_is_string(q)) {
		size_t n = strlen(summary);
		sw_text_snprintf(summary + n, sizeof(summary) - n, "\nQuestion: %s", mcp_cap(call, json_string_value(q), 400));
		mcp_keep_whole_summary(call);
	}
	mcp_ok(call, res, summary);
}

static void qa_test_this(mcp_call *call, json_t *args)
{
	const char *mode = json_string_value(json_object_get(args, "mode"));
	if (!mode)
		mode = "plan";
	bool run = strcmp(mode, "plan") != 0;
	json_t *notes = json_array();
	json_int_t timeout = TT_WAIT_DEFAULT_MS;
	if (json_object_get(args, "timeoutMs")) {
		timeout = json_integer_value(json_object_get(args, "timeoutMs"));
		if (timeout > SW_LONG_POLL_MAX_MS) {
			char note[160];
			snprintf(note, sizeof(note), "timeoutMs %lld was clamped to %d (client timeouts are short)",
			         (long long)timeout, SW_LONG_POLL_MAX_MS);
			json_array_append_new(notes, json_string(note));
			timeout = SW_LONG_POLL_MAX_MS;
		}
	}

	/* the session: the given one, the one a pending consent was asked for, or (to run) a new one */
	sw_session *s = NULL;
	char *root = NULL, *source = NULL;
	if (mcp_call_session_root(call, args, run, &pending, PENDING_CAP, &s, &root, &source) != 0) {
		json_decref(notes);
		return;
	}
	static const char *const drop[] = {"waitForCompletion", "timeoutMs", NULL};
	json_t *opts = mcp_args_for_library(args, drop);
	if (!strcmp(mode, "interactive") && !json_object_get(opts, "stopOnNeedsInput"))
		json_object_set_new(opts, "stopOnNeedsInput", json_true()); /* until the first question */
	json_object_set_new(opts, "listedTools", mcp_listed_tools());

	/* preferRealDevice and bad options fail before any session is made */
	char *oj = json_dumps(opts, JSON_COMPACT);
	sw_error *err = NULL;
	char *pj = mcp_call_plan(call, sw_test_this_plan, run, &s, root, source, oj);
	if (!pj)
		goto out;
	json_t *plan = json_loads(pj, 0, NULL);
	const char *rmode = json_string_value(json_object_get(args, "responseMode"));
	if (s && rmode) {
		json_t *m = json_string(rmode);
		char *mj = json_dumps(m, JSON_ENCODE_ANY);
		(void)sw_session_set_json(s, "responseMode", mj, NULL);
		free(mj);
		json_decref(m);
	}
	if (root && source && !s)
		json_object_set_new(plan, "rootSource", json_string(source));

	if (!run) {
		json_object_del(plan, "listedTools");
		json_object_del(plan, "call");
		if (json_array_size(notes))
			json_object_set(plan, "notes", notes);
		size_t nb = json_array_size(json_object_get(plan, "blockers"));
		char head[400];
		sw_text_snprintf(head, sizeof(head), "qa_test_this plan for %s (goal %s): %s; consent %s (%s risk).",
		                 mcp_cap(call, root, 200), json_string_value(json_object_get(json_object_get(plan, "flags"), "goal")),
		                 json_object_get(plan, "needsInput") ? "needs an answer first"
		                 : nb                                  ? "blocked"
		                                                       : "ready to run",
		                 json_is_true(json_object_get(json_object_get(plan, "consent"), "required")) ? "test_this_plan"
		                                                                                            : "none",
		                 json_string_value(json_object_get(json_object_get(plan, "consent"), "risk")));
		char *text = plan_text(plan, head);
		mcp_keep_whole_summary(call);
		mcp_ok(call, plan, text ? text : head);
		free(text);
		goto out;
	}

	json_decref(plan);
	char *job_id = mcp_call_plan_start(call, args, s, pj, sw_test_this_running, sw_test_this_start, &pending,
	                                   PENDING_CAP, notes);
	if (!job_id)
		goto out;
	if (json_is_true(json_object_get(args, "waitForCompletion"))) {
		char *st = NULL;
		if (sw_job_status_json(s, job_id, (long)timeout, mcp_call_abort, call, &st, &err) != SW_OK) {
			sw_free(job_id);
			mcp_fail_err(call, err);
			sw_error_free(err);
			goto out;
		}
		json_t *status = json_loads(st, 0, NULL);
		sw_free(st);
		json_t *result = json_object_get(status, "result");
		if (json_is_object(result)) {
			json_t *res = json_deep_copy(result);
			json_object_set(res, "jobStatus", json_object_get(status, "status"));
			answer_result(call, res, notes, job_id);
			json_decref(status);
			sw_free(job_id);
			goto out;
		}
		const char *jst = json_string_value(json_object_get(status, "status"));
		if (jst && strcmp(jst, "running") != 0) {
			/* cancelled, or failed without a result */
			json_t *res = json_pack("{s:s,s:s,s:s,s:O}", "sessionId", sw_session_id(s), "jobId", job_id, "state",
			                        "blocked", "jobStatus", json_object_get(status, "status"));
			if (json_object_get(status, "error"))
				json_object_set(res, "error", json_object_get(status, "error"));
			answer_result(call, res, notes, NULL);
			json_decref(status);
			sw_free(job_id);
			goto out;
		}
		json_decref(status);
		json_t *res = json_pack("{s:s,s:s,s:s,s:b,s:I}", "sessionId", sw_session_id(s), "jobId", job_id, "state",
		                        "running", "timedOutWaiting", 1, "waitedMs", (json_int_t)timeout);
		if (json_array_size(notes))
			json_object_set(res, "notes", notes);
		mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000} until it leaves running",
		         sw_session_id(s), job_id);
		char summary[200];
		sw_text_snprintf(summary, sizeof(summary), "qa_test_this is still running after %lld ms (job %s).",
		                 (long long)timeout, job_id);
		sw_free(job_id);
		mcp_ok(call, res, summary);
		goto out;
	}
	mcp_ok_job(call, s, job_id, false, notes);
	sw_free(job_id);
out:
	json_decref(notes);
	json_decref(opts);
	free(oj);
	sw_free(pj);
	free(root);
	sw_free(source);
}

#define GOAL_ENUM                                                                                                      \
	"[\"smoke\",\"explore\",\"create_automation_suite\",\"release_gate\",\"test_login\",\"reproduce_bug\"]"

const struct mcp_tool mcp_tool_qa_test_this = {
    .name = "qa_test_this",
    .group = "start",
    .description = "Tests the app in one call: project, APK, emulator, install, launch, smoke, report. plan (default) "
                   "changes nothing; execute runs a job after one test_this_plan consent.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"mode\":{\"type\":\"string\",\"enum\":[\"plan\",\"execute\",\"interactive\"]},"
              "\"goal\":{\"type\":\"string\",\"enum\":" GOAL_ENUM "},"
              "\"goalText\":{\"type\":\"string\",\"description\":\"Focus for reproduce_bug.\"},"
              "\"fastSmoke\":{\"type\":\"boolean\"},"
              "\"platform\":{\"type\":\"string\",\"enum\":[\"android\",\"ios\"]},"
              "\"device\":{\"type\":\"string\"},"
              "\"preferRealDevice\":{\"type\":\"boolean\"},"
              "\"allowOutsideRoot\":{\"type\":\"boolean\"},"
              "\"buildIfNeeded\":{\"type\":\"boolean\"},"
              "\"generateSuite\":{\"type\":\"boolean\"},"
              "\"explore\":{\"type\":\"boolean\"},"
              "\"stopOnNeedsInput\":{\"type\":\"boolean\"},"
              "\"waitForCompletion\":{\"type\":\"boolean\"},"
              "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"Wait cap (default 45000, max "
              "50000).\"},"
              "\"responseMode\":{\"type\":\"string\",\"enum\":[\"compact\",\"normal\",\"verbose\"]},"
              "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}}}",
    .annot = MCP_ANNOT_W,
    .handler = qa_test_this,
};
