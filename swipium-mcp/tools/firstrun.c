/* firstrun.c: qa_first_run (group `first-run`): classify the first-run screen (plan) or walk it (continue);
 * the logic is the library's (libswipium/autopilot/firstrun.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

static void qa_first_run(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	json_t *a = json_deep_copy(args);
	json_object_del(a, "sessionId");
	char *aj = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = aj ? sw_first_run(mcp_call_ctx(call), s, aj, &out, &err) : SW_ENOMEM;
	free(aj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(out, JSON_PRESERVE_ORDER, NULL);
	sw_free(out);
	json_t *cls = json_object_get(res, "classification");
	const char *sc = json_string_value(json_object_get(cls, "screenClass"));
	const char *state = json_string_value(json_object_get(res, "state"));
	char summary[300];
	sw_text_snprintf(summary, sizeof(summary), "First-run screen: %s (confidence %.2f)%s%s.", sc ? sc : "?",
	                 json_number_value(json_object_get(cls, "confidence")),
	                 state && !strcmp(state, "needs_input") ? "; needs input: " : "",
	                 state && !strcmp(state, "needs_input")
	                     ? json_string_value(json_object_get(json_object_get(res, "needsInput"), "question"))
	                     : "");
	if (state && !strcmp(state, "needs_input"))
		mcp_next(call, "qa_continue_from_blocker {sessionId: \"%s\", ...} with the answer", sw_session_id(s));
	mcp_ok(call, res, summary);
}

const struct mcp_tool mcp_tool_qa_first_run = {
    .name = "qa_first_run",
    .group = "first-run",
    .description = "plan: classifies the first-run screen (login, OTP, onboarding, paywall...) with evidence, touching "
                   "nothing; continue: advances onboarding, test-env sign-up, never buys or allows.",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
              "\"mode\":{\"type\":\"string\",\"enum\":[\"plan\",\"continue\"]},"
              "\"until\":{\"type\":\"string\",\"enum\":[\"one_step\",\"until_gate\",\"until_home\"]},"
              "\"allowGeneratedAccount\":{\"type\":\"boolean\"},\"testDataPolicyPath\":{\"type\":\"string\"},"
              "\"maxSteps\":{\"type\":\"number\"},\"maxDurationMs\":{\"type\":\"number\"}},"
              "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_first_run,
};
