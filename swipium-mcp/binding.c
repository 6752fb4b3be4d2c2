/* binding.c: the tools' way to the session's device (sw_drive_bind, which keeps the books), and the budget stop
 * they check before driving the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

sw_drive *mcp_drive_get(mcp_call *call, sw_session *s)
{
	return mcp_drive_get_then(call, s, NULL);
}

sw_drive *mcp_drive_get_then(mcp_call *call, sw_session *s, const char *then)
{
	sw_drive *drive = NULL;
	sw_error *err = NULL;
	if (sw_drive_bind(mcp_call_ctx(call), s, NULL, &drive, &err) == SW_OK)
		return drive;
	json_t *details = sw_error_details_json(err) ? json_loads(sw_error_details_json(err), 0, NULL) : NULL;
	const char *bound = json_string_value(json_object_get(details, "boundSerial"));
	mcp_fail_err(call, err);
	if (bound)
		mcp_fail_step(call, "this session is bound to %s; start that emulator again%s%s", bound,
		              then ? ", then " : "", then ? then : "");
	json_decref(details);
	sw_error_free(err);
	return NULL;
}

bool mcp_budget_stopped(mcp_call *call, sw_session *s)
{
	char *reason = NULL;
	if (sw_session_budget_exhausted(s, &reason) != 1) {
		sw_free(reason);
		return false;
	}
	json_t *o = json_pack("{s:b,s:s}", "stopped", 1, "reason", reason ? reason : "budget reached");
	mcp_next(call, "qa_report {sessionId: \"%s\"}", sw_session_id(s));
	mcp_ok(call, o, reason ? reason : "Budget reached.");
	sw_free(reason);
	return true;
}
