/* consent-probe.c: test-only fixture tools (a consent-gated tool, a long job), compiled into
 * swipium-mcp-consent-test (never installed). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

/* Asks for install_app consent on args.target, then reports how it was approved. */
static void qa_consent_probe(mcp_call *call, json_t *args)
{
	sw_session *s = NULL;
	if (json_object_get(args, "sessionId") && mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *target = json_string_value(json_object_get(args, "target"));
	json_t *affects = json_pack("{s:s}", "apk", target ? target : "demo.apk");
	/* the prompt shows the whole command: never cut (and never inside a character) */
	char *command = sw_text_capf(SIZE_MAX, SW_CAP_HEAD_TAIL, "adb install -r %s", target ? target : "demo.apk");
	struct mcp_consent_request req = {
	    .action = "install_app",
	    .risk = "low",
	    .explain = "Install the test build on the emulator.",
	    .exact_command = command,
	    .affects = affects,
	    .session = s,
	};
	enum mcp_consent_outcome o = mcp_call_consent(call, args, &req);
	json_decref(affects);
	sw_free(command);
	if (o != MCP_CONSENT_APPROVED)
		return;
	mcp_ok(call, json_pack("{s:b,s:s}", "ran", 1, "target", target ? target : "demo.apk"),
	       "Probe ran after consent.");
}

const struct mcp_tool mcp_tool_qa_consent_probe = {
    .name = "qa_consent_probe",
    .group = "start",
    .description = "Test fixture: asks for install_app consent, then succeeds.",
    .schema =
        "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
        "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}}}",
    .annot = MCP_ANNOT_W,
    .handler = qa_consent_probe,
};

/* A job that waits (cancellably) for args.ms milliseconds, then ends done: a real long-running job for the
 * long-poll and cancellation tests. */
static int wait_job(sw_job *job, void *userdata, char **result_json, sw_error **err)
{
	long ms = (long)(intptr_t)userdata;
	(void)err;
	(void)sw_job_set_progress(job, "waiting", NULL, NULL);
	if (sw_job_sleep(job, ms) != SW_OK)
		return SW_ECANCELLED;
	*result_json = strdup("{\"waited\":true}");
	return SW_OK;
}

static void qa_job_probe(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	json_int_t ms = json_integer_value(json_object_get(args, "ms"));
	char *job_id = NULL;
	sw_error *err = NULL;
	if (sw_job_start(s, "probe", wait_job, (void *)(intptr_t)ms, NULL, &job_id, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	mcp_ok(call, json_pack("{s:s,s:s}", "jobId", job_id, "status", "running"), "Probe job started.");
	sw_free(job_id);
}

const struct mcp_tool mcp_tool_qa_job_probe = {
    .name = "qa_job_probe",
    .group = "start",
    .description = "Test fixture: starts a job that waits ms milliseconds.",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},\"ms\":{\"type\":\"integer\","
              "\"minimum\":0}},\"required\":[\"sessionId\",\"ms\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_job_probe,
};
