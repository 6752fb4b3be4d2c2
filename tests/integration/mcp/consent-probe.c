/* consent-probe.c: a test-only consent-gated tool, compiled into swipium-mcp-consent-test (never installed). */
#include <stdio.h>
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
	char command[300];
	snprintf(command, sizeof(command), "adb install -r %.200s", target ? target : "demo.apk");
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
	if (o != MCP_CONSENT_APPROVED)
		return;
	mcp_ok(call, json_pack("{s:b,s:s}", "ran", 1, "target", target ? target : "demo.apk"), "Probe ran after consent.");
}

const struct mcp_tool mcp_tool_qa_consent_probe = {
	.name = "qa_consent_probe",
	.group = "start",
	.description = "Test fixture: asks for install_app consent, then succeeds.",
	.schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
		  "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}}}",
	.annot = MCP_ANNOT_W,
	.handler = qa_consent_probe,
};
