/* audit.c: qa_mobile_audit (group `issues`): the release audit's plan (no device) and execute (a prepared
 * session, consent network_change first for resilience and release_gate); the work is libswipium/audit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

/* The library's options: the arguments without the ones this server handles. (transfer full) */
static char *audit_options(json_t *args)
{
	json_t *o = json_deep_copy(args);
	static const char *const drop[] = {"sessionId", "projectRoot", "consentId", "approve"};
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		json_object_del(o, drop[i]);
	char *t = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return t;
}

static void fail_lib(mcp_call *call, sw_error *err)
{
	mcp_fail_err(call, err);
	const char *code = sw_error_failure_code(err);
	if (code && !strcmp(code, "CANCELLED"))
		mcp_fail_flags(call, true, true);
	sw_error_free(err);
}

static void audit_plan(mcp_call *call, json_t *args, sw_session *s, const char *opts)
{
	char *root = NULL, *source = NULL;
	const char *root_arg = json_string_value(json_object_get(args, "projectRoot"));
	if (root_arg && mcp_call_project_root(call, root_arg, &root, &source) != 0)
		return;
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_audit_plan(s, root, opts, &out, &err);
	sw_free(root);
	sw_free(source);
	if (rc != SW_OK) {
		fail_lib(call, err);
		return;
	}
	json_t *r = json_loads(out, JSON_PRESERVE_ORDER, NULL);
	sw_free(out);
	char summary[300];
	sw_text_snprintf(summary, sizeof(summary), "Audit plan %s: %zu check(s)%s; nothing ran on a device.",
	                 json_string_value(json_object_get(r, "profile")), json_array_size(json_object_get(r, "checks")),
	                 json_is_true(json_object_get(json_object_get(r, "consent"), "required"))
	                     ? ", execute asks network_change consent first"
	                     : "");
	if (s)
		mcp_next(call, "qa_mobile_audit {sessionId: \"%s\", profile: \"%s\", mode: \"execute\"} to run it",
		         sw_session_id(s), json_string_value(json_object_get(r, "profile")));
	mcp_ok(call, r, summary);
}

static void qa_mobile_audit(mcp_call *call, json_t *args)
{
	const char *sid = json_string_value(json_object_get(args, "sessionId"));
	const char *mode = json_string_value(json_object_get(args, "mode"));
	sw_session *s = NULL;
	if (sid && mcp_call_session(call, sid, &s) != 0)
		return;
	char *opts = audit_options(args);
	if (!opts) {
		mcp_fail(call, "UNKNOWN", "Out of memory.", NULL);
		return;
	}
	if (!mode || !strcmp(mode, "plan")) {
		audit_plan(call, args, s, opts);
		free(opts);
		return;
	}
	char *cj = NULL;
	sw_error *err = NULL;
	if (sw_audit_consent_request(s, opts, &cj, &err) != SW_OK) {
		free(opts);
		fail_lib(call, err);
		return;
	}
	if (!s) {
		free(opts);
		sw_free(cj);
		mcp_fail(call, "INVALID_ARGUMENT", "mode execute needs a prepared session: pass sessionId.", NULL);
		mcp_fail_step(call, "qa_start_session, then qa_prepare_target, then qa_mobile_audit with the sessionId");
		return;
	}
	json_t *c = json_loads(cj, 0, NULL);
	sw_free(cj);
	if (json_is_true(json_object_get(c, "required"))) {
		struct mcp_consent_request req = {
		    .action = json_string_value(json_object_get(c, "action")),
		    .risk = json_string_value(json_object_get(c, "risk")),
		    .explain = json_string_value(json_object_get(c, "explain")),
		    .exact_command = json_string_value(json_object_get(c, "exactCommand")),
		    .affects = json_object_get(c, "affects"),
		    .session = s,
		};
		enum mcp_consent_outcome oc = mcp_call_consent(call, args, &req);
		json_decref(c);
		if (oc != MCP_CONSENT_APPROVED) {
			free(opts);
			return;
		}
	} else {
		json_decref(c);
	}
	sw_drive *d = mcp_drive_get(call, s);
	if (!d) {
		free(opts);
		return;
	}
	char *out = NULL;
	int rc = sw_audit_execute(mcp_call_ctx(call), s, d, opts, mcp_call_abort, call, &out, &err);
	free(opts);
	if (rc != SW_OK) {
		fail_lib(call, err);
		return;
	}
	json_t *r = json_loads(out, JSON_PRESERVE_ORDER, NULL);
	sw_free(out);
	json_t *counts = json_object_get(r, "counts");
	json_t *net = json_object_get(r, "network");
	char netpart[120] = "";
	if (json_is_true(json_object_get(net, "managed")))
		sw_text_snprintf(netpart, sizeof(netpart), "; airplane mode found %s, %s",
		                 json_string_value(json_object_get(net, "found")),
		                 json_is_true(json_object_get(net, "restored")) ? "put back" : "NOT put back");
	char summary[400];
	sw_text_snprintf(summary, sizeof(summary),
	                 "Audit %s: %s (%lld pass, %lld fail, %lld blocked, %lld not evaluated; %lld logged to the issue "
	                 "ledger)%s.",
	                 json_string_value(json_object_get(r, "profile")),
	                 json_string_value(json_object_get(json_object_get(r, "releaseImpact"), "verdict")),
	                 (long long)json_integer_value(json_object_get(counts, "pass")),
	                 (long long)json_integer_value(json_object_get(counts, "fail")),
	                 (long long)json_integer_value(json_object_get(counts, "blocked")),
	                 (long long)json_integer_value(json_object_get(counts, "notEvaluated")),
	                 (long long)json_integer_value(json_object_get(json_object_get(r, "ledger"), "logged")), netpart);
	mcp_next(call, "qa_issue_log {sessionId: \"%s\"} for the logged checks; qa_report {sessionId: \"%s\"} for the "
	               "session report",
	         sw_session_id(s), sw_session_id(s));
	mcp_ok(call, r, summary);
}

const struct mcp_tool mcp_tool_qa_mobile_audit = {
    .name = "qa_mobile_audit",
    .group = "issues",
    .description = "Release audit by profile: plan (checklist + safety contract, no device) or execute (every check "
                   "with evidence, failures to the issue ledger; resilience asks network_change consent).",
    .schema = "{\"type\":\"object\",\"properties\":{\"projectRoot\":{\"type\":\"string\"},\"sessionId\":{\"type\":"
              "\"string\"},\"profile\":{\"type\":\"string\",\"enum\":[\"smoke\",\"account_cycle\",\"store_"
              "compliance\",\"resilience\",\"release_gate\"]},\"mode\":{\"type\":\"string\",\"enum\":[\"plan\","
              "\"execute\"]},\"allowGeneratedData\":{\"type\":\"boolean\"},\"allowTestAccountDeletion\":{\"type\":"
              "\"boolean\"},\"offlineMode\":{\"type\":\"boolean\"},\"sourceRevision\":{\"type\":\"object\","
              "\"properties\":{\"commit\":{\"type\":\"string\"},\"buildVersion\":{\"type\":\"string\"},\"branch\":"
              "{\"type\":\"string\"}}},\"targetApp\":{\"type\":\"string\"},\"consentId\":{\"type\":\"string\"},"
              "\"approve\":{\"type\":\"boolean\"}},\"required\":[\"profile\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_mobile_audit,
};
