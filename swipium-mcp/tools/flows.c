/* flows.c: the flows group: qa_flow_check, qa_flow_run (plan and run) and qa_flow_repair over libswipium's flows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

/*
 * The project root of a flow call: projectRoot, else the session's root, else the
 * project-root rule. Inline YAML alone needs no root (*root stays NULL).
 * Returns -1 when the call has been answered.
 */
static int flow_root(mcp_call *call, json_t *args, sw_session *s, char **root)
{
	const char *arg = json_string_value(json_object_get(args, "projectRoot"));
	*root = NULL;
	if (!arg && s) {
		*root = strdup(sw_session_root(s));
		return 0;
	}
	if (!arg && !json_object_get(args, "flow"))
		return 0;
	char *source = NULL;
	if (mcp_call_project_root(call, arg, root, &source) != 0)
		return -1;
	sw_free(source);
	return 0;
}

/* Optional session: looked up only when sessionId is given. Returns -1 when answered. */
static int opt_session(mcp_call *call, json_t *args, sw_session **s)
{
	*s = NULL;
	if (!json_object_get(args, "sessionId"))
		return 0;
	return mcp_call_session(call, NULL, s);
}

static json_t *base_options(json_t *args, const char *root)
{
	json_t *o = json_object();
	if (root)
		json_object_set_new(o, "root", json_string(root));
	const char *keys[] = {"flow", "flowYaml", "platform", "ci", "variables", "backend"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_object_get(args, keys[i]))
			json_object_set(o, keys[i], json_object_get(args, keys[i]));
	return o;
}

/* ---- qa_flow_check ------------------------------------------------------------------- */

static void qa_flow_check(mcp_call *call, json_t *args)
{
	sw_session *s;
	char *root = NULL;
	if (opt_session(call, args, &s) != 0 || flow_root(call, args, s, &root) != 0)
		return;
	json_t *o = base_options(args, root);
	free(root);
	char *oj = json_dumps(o, JSON_COMPACT), *out = NULL;
	json_decref(o);
	sw_error *err = NULL;
	int rc = sw_flow_check(oj, &out, &err);
	free(oj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	size_t ne = json_array_size(json_object_get(res, "errors")),
	       nw = json_array_size(json_object_get(res, "warnings"));
	char summary[600];
	json_t *ci = json_object_get(res, "ci");
	sw_text_snprintf(summary, sizeof(summary), "Flow \"%s\": %s, %zu error(s), %zu warning(s)%s",
	         json_string_value(json_object_get(res, "name")), ne ? "invalid" : "valid", ne, nw,
	         ci ? (json_is_true(json_object_get(ci, "ready")) ? "; CI ready" : "; not CI ready") : "");
	for (size_t i = 0; i < ne && i < 5; i++) {
		json_t *e = json_array_get(json_object_get(res, "errors"), i);
		size_t l = strlen(summary);
		sw_text_snprintf(summary + l, sizeof(summary) - l, "\n%lld:%lld %s",
		         (long long)json_integer_value(json_object_get(e, "line")),
		         (long long)json_integer_value(json_object_get(e, "column")),
		         json_string_value(json_object_get(e, "message")));
	}
	if (!ne)
		mcp_next(call, "qa_flow_run {mode: \"plan\"} to see how each step runs, then qa_flow_run to run it");
	mcp_ok(call, res, summary);
}

const struct mcp_tool mcp_tool_qa_flow_check = {
    .name = "qa_flow_check",
    .group = "flows",
    .description =
        "Lint a Flow V2 YAML flow without a device: schema errors with line:column, brittle or "
        "platform-specific locators; ci:true adds unresolvable variables and mutations the CI policy forbids.",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},\"projectRoot\":{\"type\":"
              "\"string\"},\"flow\":{\"type\":\"string\"},\"flowYaml\":{\"type\":\"string\"},\"platform\":{\"type\":"
              "\"string\",\"enum\":[\"android\",\"ios\",\"cross-platform\"]},\"ci\":{\"type\":\"boolean\"}}}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_flow_check,
};

/* ---- qa_flow_run ---------------------------------------------------------------------- */

/* The most bytes of a flow's consent explain this server puts in front of the human. */
#define FLOW_EXPLAIN_MAX 699

/* What qa_flow_run's consent gate needs besides the server's members. */
struct flow_gate_data {
	const char *options; /* the plan options (root, flow or flowYaml) */
	sw_session *session; /* nullable */
};

/*
 * The consent gate of qa_flow_run: sw_flow_consent() builds the request from the flow and appends
 * the ledger rows to the session. A flow that no longer needs the consent (its file changed since
 * the plan) counts as approved.
 */
static int flow_gate(sw_consent_store *store, const char *gate_json, char **result_json, sw_error **err, void *ud)
{
	const struct flow_gate_data *fg = ud;
	json_t *g = json_loads(gate_json, 0, NULL);
	if (!json_is_object(g)) {
		json_decref(g);
		return SW_ENOMEM;
	}
	json_object_set_new(g, "explainMaxBytes", json_integer(FLOW_EXPLAIN_MAX));
	char *gj = json_dumps(g, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(g);
	if (!gj)
		return SW_ENOMEM;
	char *out = NULL;
	int rc = sw_flow_consent(store, fg->session, fg->options, gj, &out, err);
	free(gj);
	if (rc != SW_OK)
		return rc;
	json_t *r = json_loads(out, 0, NULL);
	if (r && !json_is_true(json_object_get(r, "required"))) {
		sw_free(out);
		out = strdup("{\"approved\":true,\"required\":false}");
		if (!out)
			rc = SW_ENOMEM;
	}
	json_decref(r);
	*result_json = out;
	return rc;
}

static void qa_flow_run(mcp_call *call, json_t *args)
{
	const char *mode = json_string_value(json_object_get(args, "mode"));
	bool plan = mode && !strcmp(mode, "plan");
	sw_session *s;
	char *root = NULL;
	if (!plan && !json_object_get(args, "sessionId")) {
		mcp_fail(call, "INVALID_ARGUMENT",
		         "qa_flow_run mode run needs sessionId (start one with qa_start_session).", NULL);
		return;
	}
	if (!json_object_get(args, "flow") && !json_object_get(args, "flowYaml")) {
		mcp_fail(call, "INVALID_ARGUMENT", "Pass flow (a name under .swipium/flows) or flowYaml.", NULL);
		return;
	}
	if (opt_session(call, args, &s) != 0 || flow_root(call, args, s, &root) != 0)
		return;
	json_t *o = base_options(args, root);
	char *oj = json_dumps(o, JSON_COMPACT), *out = NULL;
	json_decref(o);
	sw_error *err = NULL;
	int rc = sw_flow_plan(oj, &out, &err);
	if (rc != SW_OK) {
		free(oj);
		free(root);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *p = json_loads(out, 0, NULL);
	sw_free(out);
	if (plan) {
		free(oj);
		free(root);
		char summary[300];
		sw_text_snprintf(summary, sizeof(summary), "Plan for \"%s\": %zu step(s) on %zu backend(s)%s",
		         json_string_value(json_object_get(p, "name")), json_array_size(json_object_get(p, "steps")),
		         json_object_size(json_object_get(p, "backends")),
		         json_is_true(json_object_get(json_object_get(p, "consent"), "required"))
		             ? "; running it needs the flow_mutation_run consent"
		             : "");
		mcp_ok(call, p, summary);
		return;
	}
	/* consent for mutating and OCR steps, shown with every repo-supplied command: the library builds the
	 * request from the flow (as for `swipium run`); this server asks the way the connection allows */
	int approved = 0;
	if (json_is_true(json_object_get(json_object_get(p, "consent"), "required"))) {
		struct mcp_consent_request req = {.action = "flow_mutation_run", .session = s};
		struct flow_gate_data fg = {oj, s};
		enum mcp_consent_outcome oc = mcp_call_consent_via(call, args, &req, flow_gate, &fg);
		if (oc == MCP_CONSENT_ANSWERED) {
			free(oj);
			json_decref(p);
			free(root);
			return;
		}
		approved = 1;
	}
	free(oj);
	sw_drive *b = mcp_drive_get(call, s);
	if (!b) {
		json_decref(p);
		free(root);
		return;
	}
	json_int_t repeat =
	    json_is_integer(json_object_get(args, "repeat")) ? json_integer_value(json_object_get(args, "repeat")) : 1;
	char *vars =
	    json_object_get(args, "variables") ? json_dumps(json_object_get(args, "variables"), JSON_COMPACT) : NULL;
	sw_flow_run_options ro = SW_FLOW_RUN_OPTIONS_INIT;
	ro.root = root;
	ro.flow = json_string_value(json_object_get(args, "flow"));
	ro.flow_yaml = json_string_value(json_object_get(args, "flowYaml"));
	ro.variables_json = vars;
	ro.session = s;
	ro.drive = b;
	ro.device = sw_drive_device(b);
	ro.mutations_approved = approved;
	ro.ctx = mcp_call_ctx(call);
	json_t *res = NULL;
	json_int_t passes = 0;
	for (json_int_t n = 0; n < repeat; n++) {
		rc = sw_flow_run(&ro, &out, &err);
		if (rc != SW_OK)
			break;
		json_decref(res);
		res = json_loads(out, 0, NULL);
		sw_free(out);
		if (json_is_true(json_object_get(res, "passed")))
			passes++;
		else if (repeat == 1 || strcmp(json_string_value(json_object_get(res, "outcome")), "blocked") == 0)
			break;
		if (mcp_call_cancelled(call))
			break;
	}
	free(vars);
	free(root);
	json_decref(p);
	if (rc != SW_OK) {
		json_decref(res);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	if (repeat > 1) {
		json_object_set_new(res, "repeat", json_integer(repeat));
		json_object_set_new(res, "passRate", json_real((double)passes / (double)repeat));
		json_object_set_new(res, "stability",
		                    json_string(passes == repeat ? "deterministic-pass"
		                                : passes == 0    ? "deterministic-fail"
		                                                 : "flaky"));
	}
	const char *name = json_string_value(json_object_get(res, "name"));
	if (json_is_true(json_object_get(res, "passed"))) {
		char summary[300];
		sw_text_snprintf(summary, sizeof(summary), "Flow \"%s\" passed (%zu step(s))", name,
		         json_array_size(json_object_get(res, "steps")));
		mcp_next(call, "qa_report {sessionId: \"%s\"} to export the run", sw_session_id(s));
		mcp_ok(call, res, summary);
		return;
	}
	char code[64];
	sw_text_snprintf(code, sizeof(code), "%s",
	         json_string_value(json_object_get(res, "failureCode"))
	             ? json_string_value(json_object_get(res, "failureCode"))
	             : "UNKNOWN");
	char what[900];
	if (json_object_get(res, "failedAtStep"))
		sw_text_snprintf(what, sizeof(what), "Flow \"%s\" %s at %s[%lld] %s: %s", name,
		         json_string_value(json_object_get(res, "outcome")) &&
		                 !strcmp(json_string_value(json_object_get(res, "outcome")), "blocked")
		             ? "was blocked"
		             : "failed",
		         json_string_value(json_object_get(res, "failedPhase")),
		         (long long)json_integer_value(json_object_get(res, "failedAtStep")),
		         json_string_value(json_object_get(res, "failedKind")),
		         json_string_value(json_object_get(res, "message")));
	else
		sw_text_snprintf(what, sizeof(what), "Flow \"%s\" did not run: %s", name,
		         json_string_value(json_object_get(res, "message")));
	json_t *next = json_incref(json_object_get(res, "nextSteps"));
	json_object_del(res, "nextSteps");
	json_object_del(res, "message");
	json_object_del(res, "failureCode");
	mcp_fail(call, code, what, res);
	size_t i;
	json_t *n;
	json_array_foreach(next, i, n) mcp_fail_step(call, "%s", json_string_value(n));
	json_decref(next);
	mcp_fail_flags(call, json_array_size(json_object_get(res, "steps")) > 0, false);
}

const struct mcp_tool mcp_tool_qa_flow_run = {
    .name = "qa_flow_run",
    .group = "flows",
    .description = "Run a Flow V2 flow on the session's device (setup, fail-fast steps, teardown) or plan it "
                   "per backend; mutating and OCR steps need the flow_mutation_run consent.",
    .schema =
        "{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\",\"enum\":[\"plan\",\"run\"]},"
        "\"sessionId\":{\"type\":\"string\"},\"projectRoot\":{\"type\":\"string\"},\"flow\":{\"type\":\"string\"},"
        "\"flowYaml\":{\"type\":\"string\"},\"variables\":{\"type\":\"object\",\"additionalProperties\":{\"type\":"
        "\"string\"}},\"repeat\":{\"type\":\"integer\","
        "\"minimum\":1,\"maximum\":10},\"backend\":{\"type\":\"string\",\"enum\":[\"android-direct\",\"ios-raw-"
        "simulator\",\"ios-wda\",\"appium-uiautomator2\",\"appium-xcuitest\"]},\"appium\":{\"type\":\"object\","
        "\"properties\":{\"automationName\":{\"type\":\"string\"},\"platformName\":{\"type\":\"string\"},"
        "\"webviewContextsAvailable\":{\"type\":\"boolean\"}}},\"consentId\":{\"type\":\"string\"},\"approve\":{"
        "\"type\":\"boolean\"}}}",
    .annot = MCP_ANNOT_W,
    .handler = qa_flow_run,
};

/* ---- qa_flow_repair ------------------------------------------------------------------------ */

static void qa_flow_repair(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	if (!json_object_get(args, "flow") && !json_object_get(args, "flowYaml")) {
		mcp_fail(call, "INVALID_ARGUMENT", "Pass flow (a name under .swipium/flows) or flowYaml.", NULL);
		return;
	}
	sw_drive *b = mcp_drive_get(call, s);
	if (!b)
		return;
	json_t *o = json_pack("{ss,sO}", "root", sw_session_root(s), "failedStep", json_object_get(args, "failedStep"));
	const char *keys[] = {"flow", "flowYaml", "apply"};
	for (size_t i = 0; i < 3; i++)
		if (json_object_get(args, keys[i]))
			json_object_set(o, keys[i], json_object_get(args, keys[i]));
	char *oj = json_dumps(o, JSON_COMPACT), *out = NULL;
	json_decref(o);
	sw_error *err = NULL;
	int rc = sw_flow_repair(s, b, oj, &out, &err);
	free(oj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	json_t *best = json_object_get(res, "best");
	char summary[600];
	if (best)
		sw_text_snprintf(summary, sizeof(summary), "Best candidate for step %lld: %s (%s confidence)%s",
		         (long long)json_integer_value(json_object_get(args, "failedStep")),
		         json_string_value(json_object_get(best, "selector")),
		         json_string_value(json_object_get(best, "confidence")),
		         json_is_true(json_object_get(res, "applied")) ? "; the flow file was patched" : "");
	else
		sw_text_snprintf(summary, sizeof(summary), "No candidate for step %lld on the current screen",
		         (long long)json_integer_value(json_object_get(args, "failedStep")));
	mcp_ok(call, res, summary);
}

const struct mcp_tool mcp_tool_qa_flow_repair = {
    .name = "qa_flow_repair",
    .group = "flows",
    .description = "Propose replacement selectors for a failed flow step from the current screen (same role, "
                   "confidence high/medium/low); apply:true patches a simple selector step in a flow file.",
    .schema =
        "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},\"flow\":{\"type\":\"string\"},"
        "\"flowYaml\":{\"type\":\"string\"},\"failedStep\":{\"type\":\"integer\",\"minimum\":0},\"apply\":{\"type\":"
        "\"boolean\"}},\"required\":[\"sessionId\",\"failedStep\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_flow_repair,
};
