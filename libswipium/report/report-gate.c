/* report-gate.c: the release gate: per-flow verdicts of a report judged against .swipium/policy.json. */
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"

/* Policy files are small; anything larger is treated as unreadable (no policy). */
#define POLICY_MAX_BYTES (16u * 1024u * 1024u)

void sw__policy_norm(sw_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		unsigned char c = p[i];
		if (c < 0x80) {
			if (c >= 'A' && c <= 'Z')
				sw__buf_putc(b, (char)(c + 32));
			else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
				sw__buf_putc(b, (char)c);
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = sw__utf8_decode(p + i, len - i, &cp);
		i += n ? n : 1;
		/* The only non-ASCII letters whose JavaScript lower case keeps an ASCII letter. */
		if (cp == 0x130)
			sw__buf_putc(b, 'i');
		else if (cp == 0x212A)
			sw__buf_putc(b, 'k');
	}
}

static const struct {
	const char *token, *code;
} synonyms[] = {
    {"appbug", "assertionfailed"},
    {"visualdiff", "assertionfailed"},
    {"crash", "nativecrash"},
    {"errorboundary", "errorboundary"},
};

static bool buf_is(const sw_buf *b, const char *s)
{
	size_t n = strlen(s);
	return b->len == n && (n == 0 || memcmp(b->data, s, n) == 0);
}

static bool buf_eq(const sw_buf *a, const sw_buf *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

bool sw__policy_list_matches(const json_t *list, const char *code, size_t code_len, bool synonyms_on)
{
	sw_buf nc = SW_BUF_INIT;
	bool hit = false;
	sw__buf_reserve(&nc, code_len + 1);
	sw__policy_norm(&nc, code, code_len);
	for (size_t i = 0; !hit && i < sw__js_array_len(list); i++) {
		sw_buf raw = sw__js_string_buf(json_array_get(list, i));
		sw_buf nt = SW_BUF_INIT;
		sw__buf_reserve(&nt, raw.len + 1);
		sw__policy_norm(&nt, sw__buf_cstr(&raw), raw.len);
		if (buf_eq(&nt, &nc)) {
			hit = true;
		} else if (synonyms_on) {
			if (buf_is(&nt, "failedrequiredflow"))
				hit = true;
			for (size_t k = 0; !hit && k < SW_ARRAY_SIZE(synonyms); k++)
				if (buf_is(&nt, synonyms[k].token) && buf_is(&nc, synonyms[k].code))
					hit = true;
		}
		sw__buf_free(&raw);
		sw__buf_free(&nt);
	}
	sw__buf_free(&nc);
	return hit;
}

const json_t *sw__outcome_step_code(const json_t *outcome)
{
	const json_t *steps = sw__js_get(outcome, "steps");
	for (size_t i = 0; i < sw__js_array_len(steps); i++) {
		const json_t *code = sw__js_get(json_array_get(steps, i), "failureCode");
		if (sw__js_truthy(code))
			return code;
	}
	return NULL;
}

void sw__outcome_fail_code(sw_buf *b, const json_t *outcome)
{
	const json_t *code = sw__outcome_step_code(outcome);
	if (!code)
		code = sw__js_get(outcome, "category");
	if (sw__js_nullish(code))
		sw__buf_puts(b, "UNKNOWN");
	else
		sw__js_string(b, code);
}

void sw__finding_code(sw_buf *b, const json_t *finding)
{
	const json_t *code = sw__js_coalesce(sw__js_get(finding, "failureCode"), sw__js_get(finding, "kind"));
	if (sw__js_nullish(code))
		sw__buf_puts(b, "UNKNOWN");
	else
		sw__js_string(b, code);
}

json_t *sw__policy_load(const char *project_root)
{
	if (!project_root)
		return NULL;
	char *path = sw__path_join(project_root, ".swipium/policy.json");
	char *data = NULL;
	size_t len = 0;
	json_t *policy = NULL;
	if (!path || sw__read_file(path, POLICY_MAX_BYTES, &data, &len, NULL) != SW_OK)
		goto out;
	char *msg = NULL;
	policy = sw__report_parse_json(data, len, &msg);
	free(msg);
	/* JSON null makes the reference's property access throw: no policy. */
	if (policy && json_is_null(policy)) {
		json_decref(policy);
		policy = NULL;
	}
out:
	free(path);
	free(data);
	return policy;
}

static const json_t *policy_list(const json_t *policy, const char *key)
{
	const json_t *v = sw__js_get(policy, key);
	return json_is_array(v) ? v : NULL;
}

static void join(sw_buf *b, const json_t *arr)
{
	for (size_t i = 0; i < json_array_size(arr); i++) {
		if (i)
			sw__buf_puts(b, ", ");
		const json_t *s = json_array_get(arr, i);
		sw__buf_append(b, json_string_value(s), json_string_length(s));
	}
}

/* One failing verdict: flow and code decide where its key goes. */
static void judge(json_t *gate_lists[3], const json_t *policy, const char *flow, size_t flow_len, const char *code,
                  size_t code_len)
{
	sw_buf key = SW_BUF_INIT;
	sw__buf_append(&key, flow, flow_len);
	sw__buf_puts(&key, ": ");
	sw__buf_append(&key, code, code_len);
	json_t *k = json_stringn_nocheck(sw__buf_cstr(&key), key.len);
	sw__buf_free(&key);
	int where = 0; /* 0 blocked, 1 warned, 2 suppressed */
	if (policy) {
		const json_t *block_on = policy_list(policy, "blockOn");
		if (sw__policy_list_matches(policy_list(policy, "ignoreKnown"), code, code_len, false))
			where = 2;
		else if (sw__js_array_len(block_on) == 0 || sw__policy_list_matches(block_on, code, code_len, true))
			where = 0;
		else if (sw__policy_list_matches(policy_list(policy, "warnOn"), code, code_len, true))
			where = 1;
	}
	json_array_append_new(gate_lists[where], k);
}

json_t *sw__gate_eval(const json_t *report, const json_t *policy)
{
	json_t *lists[3] = {json_array(), json_array(), json_array()};
	json_t *gate = NULL;
	sw_buf reason = SW_BUF_INIT;
	if (!lists[0] || !lists[1] || !lists[2])
		goto out;
	const json_t *outcomes = sw__js_get(report, "testOutcomes");
	for (size_t i = 0; i < sw__js_array_len(outcomes); i++) {
		const json_t *o = json_array_get(outcomes, i);
		if (!sw__js_is(sw__js_get(o, "outcome"), "fail"))
			continue;
		sw_buf flow = sw__js_string_buf(sw__js_get(o, "workflow"));
		sw_buf code = SW_BUF_INIT;
		sw__outcome_fail_code(&code, o);
		judge(lists, policy, sw__buf_cstr(&flow), flow.len, sw__buf_cstr(&code), code.len);
		sw__buf_free(&flow);
		sw__buf_free(&code);
	}
	const json_t *findings = sw__js_get(report, "findings");
	for (size_t i = 0; i < sw__js_array_len(findings); i++) {
		const json_t *f = json_array_get(findings, i);
		if (!sw__js_is(sw__js_get(f, "severity"), "high"))
			continue;
		const json_t *kind = sw__js_get(f, "kind");
		sw_buf flow = SW_BUF_INIT;
		sw__buf_puts(&flow, "finding:");
		sw__js_string(&flow, kind);
		sw_buf code = SW_BUF_INIT;
		sw__finding_code(&code, f);
		judge(lists, policy, sw__buf_cstr(&flow), flow.len, sw__buf_cstr(&code), code.len);
		sw__buf_free(&flow);
		sw__buf_free(&code);
	}
	bool block = json_array_size(lists[0]) > 0;
	if (block) {
		sw__buf_puts(&reason, "release blocked: ");
		join(&reason, lists[0]);
	} else if (json_array_size(lists[1]) > 0) {
		sw__buf_puts(&reason, "passed with warnings: ");
		join(&reason, lists[1]);
	} else if (json_array_size(lists[2]) > 0) {
		sw__buf_puts(&reason, "passed (suppressed known issues: ");
		join(&reason, lists[2]);
		sw__buf_putc(&reason, ')');
	} else {
		sw__buf_puts(&reason, "all required flows passed");
	}
	if (reason.failed)
		goto out;
	gate = json_object();
	if (!gate || json_object_set_new(gate, "block", json_boolean(block)) ||
	    json_object_set(gate, "blocked", lists[0]) || json_object_set(gate, "warned", lists[1]) ||
	    json_object_set(gate, "suppressed", lists[2]) ||
	    json_object_set_new(gate, "reason", json_stringn_nocheck(reason.data, reason.len))) {
		json_decref(gate);
		gate = NULL;
	}
out:
	sw__buf_free(&reason);
	for (int i = 0; i < 3; i++)
		json_decref(lists[i]);
	return gate;
}
