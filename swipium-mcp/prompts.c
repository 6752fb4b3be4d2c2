/* prompts.c: the server instructions and the five prompts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

static bool have_tool(const char *name)
{
	for (size_t i = 0; mcp_tools[i]; i++)
		if (!strcmp(mcp_tools[i]->name, name))
			return true;
	return false;
}

const char *mcp_instructions(void)
{
	static char text[2048];
	if (text[0])
		return text;
	/* The first 512 characters stand on their own: some clients show only that much. */
	const char *first =
	    have_tool("qa_test_this")
	        ? "Swipium tests mobile apps on Android emulators and iOS simulators. First call: "
	          "qa_test_this {mode: \"execute\"}; then poll qa_job_status {sessionId, jobId, waitMs: "
	          "45000} until the job is done or failed. "
	        : "Swipium tests mobile apps on Android emulators and iOS simulators. Start with "
	          "qa_start_session {projectRoot}; record each checked workflow with qa_note; finish "
	          "with qa_report {sessionId}. ";
	bool report = have_tool("qa_report");
	if (!report && !have_tool("qa_test_this"))
		first = "Swipium tests mobile apps on Android emulators and iOS simulators. Start with "
		        "qa_start_session {projectRoot}; record each checked workflow with qa_note. ";
	snprintf(
	    text, sizeof(text),
	    "%s"
	    "qa_status {} orients you; qa_status {sessionId} returns nextBestAction.\n"
	    "Rules:\n"
	    "- needs_input: ask the user the question verbatim, then call qa_continue_from_blocker "
	    "{sessionId, kind, values}. Never invent credentials.\n"
	    "- Blocker (failureCode): call qa_explain_blocker {failureCode, sessionId} and relay howToFix; do not "
	    "retry when retrySafe is false.\n"
	    "- Consent: when a result has requiresConsent, show the user explain and exactCommand, and re-call the "
	    "same tool with consentId and approve:true only after the user agreed.\n"
	    "- Stop when the session budget says stopped:true%s.\n"
	    "- iOS without WebDriverAgent is visual-only: screenshots and visual checks, no taps by ref.\n"
	    "- Long work runs as a job: poll, never wait in a loop of your own.\n"
	    "Project root order: projectRoot argument, MCP roots, SWIPIUM_PROJECT_ROOT, CLAUDE_PROJECT_DIR, "
	    "the server's working directory.\n"
	    "Artifacts are swipium:// URIs: read them with qa_get_artifact or resources/read.",
	    first, report ? " and call qa_report" : "");
	return text;
}

static const struct prompt {
	const char *name;
	const char *description;
	const char *arg;      /* nullable */
	const char *arg_desc; /* nullable */
	bool arg_required;
	const char *text; /* %s = the argument value (or a default) */
} prompts[] = {
    {"swipium_setup_check", "Can Swipium test this project, and what blocks it?", "projectRoot",
     "Absolute path of the app repository (optional).", false,
     "Check whether Swipium can test the app in %s. Call qa_doctor first and report every row that is not ok "
     "with its fix. Then start a session with qa_start_session and say which platform and device would be used. "
     "Do not install or build anything; list what the user must do, in order."},
    {"swipium_guardrail_validation", "Verify that Swipium refuses a data wipe that would lose a debug RN/Expo bundle.",
     NULL, NULL, false,
     "Validate Swipium's guardrails on this project%s. Start a session, then ask qa_app_control to clear the app "
     "data of a debug React Native or Expo build without acknowledgeBundleRisk. The expected outcome is a "
     "BUNDLE_LOSS_REFUSED error with nothing changed. Record the result with qa_note (workflow "
     "\"guardrail: bundle-loss refusal\") and finish with qa_report."},
    {"swipium_full_smoke", "Plan, prepare the device, run the top READY workflows and report.", "projectRoot",
     "Absolute path of the app repository (optional).", false,
     "Run a full smoke test of the app in %s. Start a session, prepare the target (ask for consent where a tool "
     "requires it), run the smoke baseline, then exercise the most important workflows one by one. Record every "
     "workflow with qa_note (pass, fail, blocked or skipped, with a reason) and end with qa_report."},
    {"swipium_bug_repro", "Drive the app to a described bug and capture deterministic evidence.", "bug",
     "What the bug is and how it shows itself.", true,
     "Reproduce this bug: %s\nStart a session, drive the app step by step toward the described state, take a "
     "snapshot and a screenshot at the moment the bug shows, and record the outcome with qa_note (fail when it "
     "reproduced, pass when it did not, blocked when something stopped you). Finish with qa_report."},
    {"swipium_convert_run_to_flow", "Turn the steps just performed into a saved flow and validate it.", "sessionId",
     "The session whose recorded actions become the flow (optional).", false,
     "Convert the actions recorded in session %s into a flow: call qa_report with format \"flow\" to get the "
     "recorded actions as Flow V2 YAML, save it under .swipium/flows/<name>.yaml, replace literal secrets with "
     "${SWIPIUM_*} variables, and validate it with qa_flow_check."},
};

json_t *mcp_prompts_list(void)
{
	json_t *list = json_array();
	for (size_t i = 0; i < sizeof(prompts) / sizeof(prompts[0]); i++) {
		json_t *p = json_pack("{s:s,s:s}", "name", prompts[i].name, "description", prompts[i].description);
		json_t *args = json_array();
		if (prompts[i].arg)
			json_array_append_new(args,
			                      json_pack("{s:s,s:s,s:b}", "name", prompts[i].arg, "description",
			                                prompts[i].arg_desc, "required", prompts[i].arg_required));
		json_object_set_new(p, "arguments", args);
		json_array_append_new(list, p);
	}
	return list;
}

void mcp_prompts_get(struct mcp_server *s, const json_t *id, json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	if (!name) {
		mcp_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: prompts/get needs a \"name\" string", NULL);
		return;
	}
	json_t *args = json_object_get(params, "arguments");
	for (size_t i = 0; i < sizeof(prompts) / sizeof(prompts[0]); i++) {
		const struct prompt *p = &prompts[i];
		if (strcmp(p->name, name) != 0)
			continue;
		const char *val = p->arg ? json_string_value(json_object_get(args, p->arg)) : NULL;
		if (p->arg_required && (!val || !*val)) {
			char msg[200];
			snprintf(msg, sizeof(msg), "Invalid params: prompt %s needs the argument \"%s\"", p->name,
			         p->arg);
			mcp_send_error(s, id, RPC_INVALID_PARAMS, msg, NULL);
			return;
		}
		const char *fill = val && *val ? val : (p->arg ? "the current project" : "");
		if (p->arg && !strcmp(p->arg, "sessionId") && !(val && *val))
			fill = "(the current session)";
		char *text = NULL;
		/* The template is one of ours; the caller's value is only ever the argument. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		if (asprintf(&text, p->text, fill) < 0)
			text = NULL;
#pragma GCC diagnostic pop
		if (!text) {
			mcp_send_error(s, id, RPC_INTERNAL_ERROR, "Internal error: out of memory", NULL);
			return;
		}
		json_t *r = json_pack("{s:s,s:[{s:s,s:{s:s,s:o}}]}", "description", p->description, "messages", "role",
		                      "user", "content", "type", "text", "text", mcp_json_text(text));
		free(text);
		if (s->era == MCP_ERA_STATELESS)
			json_object_set_new(r, "resultType", json_string("complete"));
		mcp_send_result(s, id, r);
		return;
	}
	char *shown = sw_text_cap(name, (size_t)-1, 120, SW_CAP_HEAD_TAIL);
	char msg[600];
	sw_text_snprintf(msg, sizeof(msg), "Invalid params: prompt %s not found", shown ? shown : "");
	sw_free(shown);
	mcp_send_error(s, id, RPC_INVALID_PARAMS, msg, NULL);
}
