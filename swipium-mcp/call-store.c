/* call-store.c: the session store as seen from a tool call: opening it lazily, finding the call's session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

sw_store *mcp_call_store(mcp_call *call)
{
	struct mcp_server *s = call->srv;
	if (!s->store) {
		sw_error *err = NULL;
		if (sw_store_open(s->ctx, &s->store, &err) != SW_OK) {
			mcp_fail_err(call, err);
			sw_error_free(err);
			return NULL;
		}
	}
	return s->store;
}

static void read_response_mode(mcp_call *call, sw_session *sess)
{
	char *mode = NULL;
	if (sw_session_get_json(sess, "responseMode", &mode, NULL) == SW_OK && mode) {
		json_t *m = json_loads(mode, JSON_DECODE_ANY, NULL);
		const char *v = json_string_value(m);
		if (v && (!strcmp(v, "compact") || !strcmp(v, "normal") || !strcmp(v, "verbose")))
			snprintf(call->response_mode, sizeof(call->response_mode), "%s", v);
		json_decref(m);
	}
	sw_free(mode);
}

int mcp_call_session(mcp_call *call, const char *session_id, sw_session **out)
{
	if (!session_id)
		session_id = json_string_value(json_object_get(call->args, "sessionId"));
	if (!session_id) {
		mcp_fail(call, "INVALID_ARGUMENT", "sessionId: Required", NULL);
		return -1;
	}
	sw_store *store = mcp_call_store(call);
	if (!store)
		return -1;
	sw_error *err = NULL;
	sw_session *sess = NULL;
	if (sw_store_get_session(store, session_id, &sess, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return -1;
	}
	call->session = sess;
	read_response_mode(call, sess);
	*out = sess;
	return 0;
}
