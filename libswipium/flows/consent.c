/* consent.c: the flow_mutation_run consent of a flow, taken through the consent gate for every frontend. */
#include <stdlib.h>
#include <string.h>

#include "flow-internal.h"

/* Members of @gate_json the flow decides; the frontend cannot override them. */
static const char *const FLOW_KEYS[] = {"action",    "risk",           "explain",         "exactCommand", "affects",
                                        "sessionId", "operatorAnswer", "explainMaxBytes", "showEveryStep", "commands"};

static void append_row(sw_session *session, json_t *row)
{
	if (!session || !json_is_object(row))
		return;
	char *text = sw__json_compact(row);
	if (text)
		sw_session_ledger_append(session, text, NULL);
	free(text);
}

/* Cuts @s to at most @max bytes (0 = no cap) without splitting a UTF-8 sequence. */
static void cap_utf8(char *s, size_t max)
{
	size_t len = strlen(s);
	if (!max || len <= max)
		return;
	size_t cut = max;
	while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
		cut--;
	s[cut] = '\0';
}

/* The gate request: the frontend's members, then the flow's (which win). */
static int build_request(json_t *plan, json_t *front, sw_session *session, json_t **out, sw_error **err)
{
	json_t *c = json_object_get(plan, "consent");
	json_t *req = json_object();
	if (!req)
		return sw__error_nomem(err);
	if (front)
		json_object_update(req, front);
	for (size_t i = 0; i < sizeof(FLOW_KEYS) / sizeof(FLOW_KEYS[0]); i++)
		json_object_del(req, FLOW_KEYS[i]);
	if (!json_is_string(json_object_get(req, "tool")))
		json_object_set_new(req, "tool", json_string("qa_flow_run"));

	sw_buf cmd = SW_BUF_INIT;
	size_t i;
	json_t *line;
	json_array_foreach(json_object_get(c, "exactCommand"), i, line)
	{
		if (i)
			sw__buf_putc(&cmd, '\n');
		sw__buf_puts(&cmd, json_string_value(line) ? json_string_value(line) : "");
	}
	const char *name = json_string_value(json_object_get(plan, "name"));
	char *explain = sw__asprintf(
	    "Run flow \"%s\": %s", name ? name : "",
	    json_string_value(json_object_get(c, "explain")) ? json_string_value(json_object_get(c, "explain")) : "");
	if (cmd.failed || !explain) {
		sw__buf_free(&cmd);
		free(explain);
		json_decref(req);
		return sw__error_nomem(err);
	}
	json_t *max = json_object_get(front, "explainMaxBytes");
	cap_utf8(explain, json_is_integer(max) ? (size_t)json_integer_value(max) : 0);
	json_object_set_new(req, "action", json_string("flow_mutation_run"));
	json_object_set(req, "risk", json_object_get(c, "risk"));
	json_object_set_new(req, "explain", json_string(explain));
	json_object_set_new(req, "exactCommand", json_string(cmd.data ? cmd.data : ""));
	if (json_object_get(c, "affects"))
		json_object_set(req, "affects", json_object_get(c, "affects"));
	if (json_is_true(json_object_get(c, "showEveryStep")))
		json_object_set_new(req, "showEveryStep", json_true());
	if (session)
		json_object_set_new(req, "sessionId", json_string(sw_session_id(session)));
	sw__buf_free(&cmd);
	free(explain);
	*out = req;
	return SW_OK;
}

/* The gate refused: record its row, hand the caller the same error without it. */
static int refused(sw_session *session, sw_error *gerr, sw_error **err)
{
	json_t *d = sw__error_details(gerr);
	append_row(session, json_object_get(d, "ledgerRow"));
	json_t *copy = d ? json_deep_copy(d) : NULL;
	json_object_del(copy, "ledgerRow");
	int rc = sw__error_set(err, sw_error_code(gerr), sw_error_failure_code(gerr), sw_error_hint(gerr), "%s",
	                       sw_error_message(gerr));
	if (err && *err && copy)
		sw__error_take_details(*err, copy);
	else
		json_decref(copy);
	sw_error_free(gerr);
	return rc;
}

SW_API int sw_flow_consent(sw_consent_store *store, sw_session *session, const char *options_json,
                           const char *gate_json, char **result_json, sw_error **err)
{
	if (!store || !options_json || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_flow_consent: store, options and result are required");
	json_t *front = NULL, *plan = NULL, *req = NULL, *res = NULL;
	char *plan_text = NULL, *req_text = NULL, *gate_out = NULL;
	int rc;
	if (gate_json) {
		front = json_loads(gate_json, 0, NULL);
		if (!json_is_object(front)) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                   "sw_flow_consent: the gate members are not a JSON object");
			goto out;
		}
	}
	json_t *oa = json_object_get(front, "operatorAnswer");
	if (oa && (!json_is_string(oa) || !json_string_value(oa)[0])) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "sw_flow_consent: operatorAnswer must be a non-empty string");
		goto out;
	}
	json_t *max = json_object_get(front, "explainMaxBytes");
	if (max && (!json_is_integer(max) || json_integer_value(max) < 1)) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "sw_flow_consent: explainMaxBytes must be a positive integer");
		goto out;
	}
	const char *operator_answer = json_string_value(oa);
	if ((rc = sw__flow_plan_for(options_json, session, &plan_text, err)) != SW_OK)
		goto out;
	plan = json_loads(plan_text, 0, NULL);
	if (!plan) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (!json_is_true(json_object_get(json_object_get(plan, "consent"), "required"))) {
		res = json_pack("{s:b, s:s}", "required", 0, "action", "flow_mutation_run");
		goto done;
	}
	if ((rc = build_request(plan, front, session, &req, err)) != SW_OK)
		goto out;
	req_text = sw__json_compact(req);
	if (!req_text) {
		rc = sw__error_nomem(err);
		goto out;
	}
	sw_error *gerr = NULL;
	if (sw_consent_gate(store, req_text, &gate_out, &gerr) != SW_OK) {
		rc = refused(session, gerr, err);
		goto out;
	}
	res = json_loads(gate_out, 0, NULL);
	if (!json_is_object(res)) {
		rc = sw__error_nomem(err);
		goto out;
	}
	json_t *row = json_incref(json_object_get(res, "ledgerRow"));
	json_object_del(res, "ledgerRow");
	const char *mech = json_string_value(json_object_get(res, "mechanism"));
	if (operator_answer && json_is_true(json_object_get(res, "approved")) && mech && !strcmp(mech, "elicitation")) {
		/* the host answered from the operator's explicit instruction, not from a prompt */
		json_object_set_new(res, "mechanism", json_string("operator-policy"));
		json_t *rc_obj = json_object_get(row, "consent");
		if (json_is_object(rc_obj))
			json_object_set_new(rc_obj, "approvalMechanism", json_string("operator-policy"));
		if (json_is_object(row))
			json_object_set_new(row, "detail", json_string(operator_answer));
	}
	append_row(session, row);
	json_decref(row);
	json_object_set_new(res, "required", json_true());
done:
	*result_json = sw__json_compact(res);
	rc = *result_json ? SW_OK : sw__error_nomem(err);
out:
	json_decref(front);
	json_decref(plan);
	json_decref(req);
	json_decref(res);
	free(plan_text);
	free(req_text);
	free(gate_out);
	return rc;
}
