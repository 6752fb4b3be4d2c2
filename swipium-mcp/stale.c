/* stale.c: STALE_CLIENT for tool names and call shapes removed in 2.0 (the 1.5.0 migration table). */
#include <stdio.h>
#include <string.h>

#include "mcp.h"

static const struct {
	const char *name;
	const char *replacement;
} removed[] = {
    {"qa_agent_brief", "the server instructions, or qa_status {} (no sessionId) for the same orientation"},
    {"qa_capabilities", "qa_status {} (no sessionId) and read capabilityGroups"},
    {"qa_next_best_action", "qa_status {sessionId, goal} and read nextBestAction"},
    {"qa_detect_context", "qa_resolve_target {projectRoot, include: [\"context\"]}"},
    {"qa_plan", "qa_resolve_target {sessionId, include: [\"plan\"]}"},
    {"qa_assert_visual", "qa_visual {mode: \"assert\", assertion, pass}"},
};

#define CLIENT_HINT                                                                                                    \
	"Your MCP client is using a tool list from Swipium 1.5. Restart the client (or reload its MCP servers) so "    \
	"it fetches the current tools/list."

static void stale(mcp_call *call, const char *removed_call, const char *replacement)
{
	char what[1024];
	sw_text_snprintf(what, sizeof(what), "%s was removed in Swipium 2.0; use %s instead.", removed_call, replacement);
	mcp_fail(call, "STALE_CLIENT", what,
	         json_pack("{s:o,s:o,s:s}", "removedCall", mcp_json_text(removed_call), "replacement",
	                   mcp_json_text(replacement), "clientHint", CLIENT_HINT));
	mcp_fail_step(call, "Call %s.", replacement);
	mcp_fail_step(call, "Restart the MCP client so it reloads the tool list.");
	mcp_fail_flags(call, false, true);
}

bool mcp_stale_check(mcp_call *call, const char *name, json_t *args)
{
	for (size_t i = 0; i < sizeof(removed) / sizeof(removed[0]); i++) {
		if (!strcmp(name, removed[i].name)) {
			stale(call, name, removed[i].replacement);
			return true;
		}
	}
	const char *action = json_string_value(json_object_get(args, "action"));
	if (!strcmp(name, "qa_ios") && action) {
		if (!strcmp(action, "screenshot")) {
			stale(call, "qa_ios {action: \"screenshot\"}", "qa_screenshot {sessionId}");
			return true;
		}
		if (!strncmp(action, "wda_", 4)) {
			char removed_call[400], replacement[400];
			char *shown = sw_text_cap(action, (size_t)-1, 60, SW_CAP_HEAD_TAIL);
			char *rest = sw_text_cap(action + 4, (size_t)-1, 60, SW_CAP_HEAD_TAIL);
			sw_text_snprintf(removed_call, sizeof(removed_call), "qa_ios {action: \"%s\"}", shown ? shown : "");
			if (mcp_tool_listed("qa_wda"))
				sw_text_snprintf(replacement, sizeof(replacement), "qa_wda {sessionId, action: \"%s\"%s}",
				                 rest ? rest : "", !strcmp(action, "wda_attach") ? ", device" : "");
			else /* no WebDriverAgent here: qa_doctor says what this server can drive */
				snprintf(replacement, sizeof(replacement),
				         "qa_doctor {} (this server drives Android emulators; WebDriverAgent actions are not "
				         "available)");
			sw_free(shown);
			sw_free(rest);
			stale(call, removed_call, replacement);
			return true;
		}
	}
	const char *for_what = json_string_value(json_object_get(args, "for"));
	if (!strcmp(name, "qa_wait") && for_what && !strcmp(for_what, "job_done")) {
		stale(call, "qa_wait {for: \"job_done\"}", "qa_job_status {sessionId, jobId, waitMs: 45000}");
		return true;
	}
	return false;
}
