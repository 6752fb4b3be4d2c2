/* render-summary.c: the GitHub step summary export: escaped Markdown, capped below GitHub's 1 MiB limit. */
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"

/* Characters of the release-gate reason shown in the summary (the whole reason is in the JSON export). */
#define GATE_REASON_MAX 4000

static const char TRUNCATION_NOTE[] =
    "\n\n> \xE2\x9A\xA0\xEF\xB8\x8F Summary truncated at 900 KB (GitHub's step-summary "
    "limit is 1 MiB). See the JUnit/SARIF/Markdown exports for the full report.";

const char *sw__risk_badge(const json_t *risk);
const char *sw__outcome_mark(const json_t *outcome);

const char *sw__risk_badge(const json_t *risk)
{
	if (sw__js_is(risk, "ship"))
		return "\xF0\x9F\x9F\xA2 SHIP";
	if (sw__js_is(risk, "caution"))
		return "\xF0\x9F\x9F\xA1 CAUTION";
	if (sw__js_is(risk, "block"))
		return "\xF0\x9F\x94\xB4 BLOCK";
	return NULL;
}

const char *sw__outcome_mark(const json_t *outcome)
{
	static const struct {
		const char *outcome, *mark;
	} marks[] = {
	    {"pass", "\xE2\x9C\x85"},           {"fail", "\xE2\x9D\x8C"},
	    {"blocked", "\xE2\x9B\x94"},        {"skipped", "\xE2\x8F\xAD\xEF\xB8\x8F"},
	    {"not_applicable", "\xE2\x9E\x96"},
	};
	for (size_t i = 0; i < SW_ARRAY_SIZE(marks); i++)
		if (sw__js_is(outcome, marks[i].outcome))
			return marks[i].mark;
	return NULL;
}

/* Upper case of String(v) as Markdown text on one line. */
static void upper(sw_buf *b, const json_t *v)
{
	sw_buf s = SW_BUF_INIT;
	sw__js_upper(&s, v);
	sw__md_text_line(b, sw__buf_cstr(&s), s.len);
	sw__buf_free(&s);
}

typedef void (*text_fn)(sw_buf *, const char *, size_t);

static void put_js(sw_buf *b, const json_t *v, text_fn fn)
{
	sw_buf s = sw__js_string_buf(v);
	fn(b, sw__buf_cstr(&s), s.len);
	sw__buf_free(&s);
}

static void put_js_or(sw_buf *b, const json_t *v, const char *fallback, text_fn fn)
{
	if (sw__js_nullish(v))
		fn(b, fallback, strlen(fallback));
	else
		put_js(b, v, fn);
}

static void code_cell(sw_buf *b, const json_t *v)
{
	sw_buf code = SW_BUF_INIT;
	put_js(&code, v, sw__md_code);
	sw__table_cell(b, sw__buf_cstr(&code), code.len);
	sw__buf_free(&code);
}

static int severity_rank(const json_t *sev)
{
	if (sw__js_is(sev, "high"))
		return 0;
	if (sw__js_is(sev, "medium"))
		return 1;
	if (sw__js_is(sev, "low"))
		return 2;
	return 3;
}

char *sw__summary_cap(char *body, size_t len, size_t cap, size_t *len_out)
{
	if (len <= cap) {
		if (len_out)
			*len_out = len;
		return body;
	}
	size_t note = sizeof(TRUNCATION_NOTE) - 1;
	size_t budget = cap > note ? cap - note : 0;
	size_t used = 0, keep = 0; /* keep = bytes of whole leading lines, joined by \n */
	size_t start = 0;
	bool first = true;
	while (start <= len) {
		const char *nl = memchr(body + start, '\n', len - start);
		size_t line = nl ? (size_t)(nl - (body + start)) : len - start;
		if (used + line + 1 > budget)
			break;
		used += line + 1;
		keep = first ? line : keep + 1 + line;
		first = false;
		if (!nl)
			break;
		start += line + 1;
	}
	sw_buf b = SW_BUF_INIT;
	sw__buf_append(&b, body, keep);
	sw__buf_append(&b, TRUNCATION_NOTE, note);
	free(body);
	return sw__buf_steal(&b, len_out);
}

char *sw__render_github_summary(const json_t *r, const json_t *gate, size_t *len)
{
	sw_buf b = SW_BUF_INIT;
	const json_t *summary = sw__js_get(r, "executiveSummary");
	const json_t *risk = sw__js_get(summary, "risk");
	const json_t *findings = sw__js_get(r, "findings");
	const json_t *outcomes = sw__js_get(r, "testOutcomes");
	size_t nf = sw__js_array_len(findings), no = sw__js_array_len(outcomes);

	sw__buf_puts(&b, "## Swipium QA: ");
	const char *badge = sw__risk_badge(risk);
	if (badge)
		sw__buf_puts(&b, badge);
	else
		upper(&b, risk);
	sw__buf_puts(&b, "\n\nApp ");
	put_js_or(&b, sw__js_get(r, "appId"), "unknown", sw__md_code);
	sw__buf_puts(&b, " on ");
	put_js_or(&b, sw__js_get(r, "device"), "device", sw__md_code);
	sw__buf_puts(&b, ", session ");
	put_js(&b, sw__js_get(r, "sessionId"), sw__md_code);
	sw__buf_puts(&b, ".\n\n");
	if (gate) {
		sw__buf_puts(&b, "**Release gate (policy):** ");
		sw__buf_puts(&b,
		             json_is_true(sw__js_get(gate, "block")) ? "\xE2\x9D\x8C FAIL: " : "\xE2\x9C\x85 PASS: ");
		/* The verdict survives the 900 KB cap: the reason is capped (head and tail), not the line dropped. */
		sw_buf reason = sw__js_string_buf(sw__js_get(gate, "reason"));
		char *shown = sw__utf8_cap(sw__buf_cstr(&reason), reason.len, GATE_REASON_MAX, SW_CAP_HEAD_TAIL);
		sw__buf_free(&reason);
		if (shown)
			sw__md_text_line(&b, shown, strlen(shown));
		free(shown);
		sw__buf_puts(&b, "\n\n");
	}
	sw__buf_puts(&b, "**Next action:** ");
	put_js_or(&b, sw__js_get(summary, "nextAction"), "", sw__md_text_line);
	sw__buf_puts(&b, "\n\n");

	size_t counts[4] = {0, 0, 0, 0};
	for (size_t i = 0; i < nf; i++)
		counts[severity_rank(sw__js_get(json_array_get(findings, i), "severity"))]++;
	sw__buf_printf(&b, "Findings: **%zu high** \xC2\xB7 %zu medium \xC2\xB7 %zu low. Workflows: ", counts[0],
	               counts[1], counts[2]);
	const json_t *tally = sw__js_get(r, "outcomeTally");
	if (json_is_object(tally) && json_object_size(tally) > 0) {
		const char *k;
		size_t klen;
		json_t *v;
		bool firstk = true;
		json_object_keylen_foreach((json_t *)tally, k, klen, v)
		{
			if (!firstk)
				sw__buf_puts(&b, " \xC2\xB7 ");
			firstk = false;
			json_t *kj = json_stringn_nocheck(k, klen);
			const char *mark = sw__outcome_mark(kj);
			json_decref(kj);
			sw__buf_puts(&b, mark ? mark : "\xE2\x80\xA2");
			sw__buf_putc(&b, ' ');
			sw__md_text_line(&b, k, klen);
			sw__buf_putc(&b, '=');
			put_js(&b, v, sw__md_text_line);
		}
	} else {
		sw__buf_puts(&b, "none recorded");
	}
	sw__buf_putc(&b, '.');

	if (nf) {
		sw__buf_puts(
		    &b, "\n\n### Top findings\n\n| Severity | Code | Detail | Evidence |\n| --- | --- | --- | --- |");
		size_t shown = 0;
		for (int rank = 0; rank < 4 && shown < 10; rank++) {
			for (size_t i = 0; i < nf && shown < 10; i++) {
				const json_t *f = json_array_get(findings, i);
				if (severity_rank(sw__js_get(f, "severity")) != rank)
					continue;
				shown++;
				sw__buf_puts(&b, "\n| ");
				put_js(&b, sw__js_get(f, "severity"), sw__md_cell);
				sw__buf_puts(&b, " | ");
				code_cell(&b, sw__js_coalesce(sw__js_get(f, "failureCode"), sw__js_get(f, "kind")));
				sw__buf_puts(&b, " | ");
				const json_t *detail = sw__js_get(f, "detail");
				put_js_or(&b, detail, "", sw__md_cell);
				const json_t *count = sw__js_get(f, "count");
				if (sw__js_number_coerce(count) > 1) {
					sw__buf_puts(&b, " (\xC3\x97");
					sw__js_string(&b, count);
					sw__buf_putc(&b, ')');
				}
				sw__buf_puts(&b, " | ");
				const json_t *shot = sw__js_get(f, "screenshotUri");
				if (sw__js_truthy(shot)) {
					sw__buf_puts(&b, "[screenshot](");
					put_js(&b, shot, sw__md_link_dest);
					sw__buf_putc(&b, ')');
				} else {
					sw__buf_putc(&b, '-');
				}
				sw__buf_puts(&b, " |");
			}
		}
	}

	bool header = false;
	for (size_t i = 0; i < no; i++) {
		const json_t *o = json_array_get(outcomes, i);
		const json_t *outcome = sw__js_get(o, "outcome");
		if (sw__js_is(outcome, "pass"))
			continue;
		if (!header) {
			sw__buf_puts(
			    &b, "\n\n### Failed / blocked workflows\n\n| Workflow | Outcome | Reason | Evidence |\n"
			        "| --- | --- | --- | --- |");
			header = true;
		}
		sw__buf_puts(&b, "\n| ");
		put_js(&b, sw__js_get(o, "workflow"), sw__md_cell);
		sw__buf_puts(&b, " | ");
		const char *mark = sw__outcome_mark(outcome);
		if (mark) {
			sw__buf_puts(&b, mark);
			sw__buf_putc(&b, ' ');
		}
		put_js(&b, outcome, sw__md_cell);
		sw__buf_puts(&b, " | ");
		sw_buf reason = SW_BUF_INIT;
		static const char *const keys[] = {"category", "reason", "missingPrecondition"};
		bool any = false;
		for (size_t k = 0; k < 3; k++) {
			const json_t *v = sw__js_get(o, keys[k]);
			if (!sw__js_truthy(v))
				continue;
			if (any)
				sw__buf_puts(&reason, ": ");
			sw__js_string(&reason, v);
			any = true;
		}
		if (!any)
			sw__buf_putc(&reason, '-');
		sw__md_cell(&b, sw__buf_cstr(&reason), reason.len);
		sw__buf_free(&reason);
		sw__buf_puts(&b, " | ");
		const json_t *uris = sw__js_get(o, "artifactUris");
		size_t nu = sw__js_array_len(uris);
		for (size_t k = 0; k < nu; k++) {
			sw__buf_printf(&b, "%s[%zu](", k ? " " : "", k + 1);
			put_js(&b, json_array_get(uris, k), sw__md_link_dest);
			sw__buf_putc(&b, ')');
		}
		if (!nu)
			sw__buf_putc(&b, '-');
		sw__buf_puts(&b, " |");
	}

	const json_t *artifacts = sw__js_get(r, "artifacts");
	size_t shown = 0;
	for (size_t i = 0; i < sw__js_array_len(artifacts) && shown < 10; i++) {
		const json_t *a = json_array_get(artifacts, i);
		const json_t *kind = sw__js_get(a, "kind");
		if (!sw__js_is(kind, "screenshot") && !sw__js_is(kind, "recording") && !sw__js_is(kind, "report"))
			continue;
		if (!shown)
			sw__buf_puts(&b, "\n\n### Evidence\n");
		shown++;
		sw__buf_puts(&b, "\n- ");
		put_js(&b, sw__js_get(a, "uri"), sw__md_code);
		sw__buf_puts(&b, " (");
		put_js(&b, kind, sw__md_text_line);
		const json_t *label = sw__js_get(a, "label");
		if (sw__js_truthy(label)) {
			sw__buf_puts(&b, ": ");
			put_js(&b, label, sw__md_text_line);
		}
		sw__buf_putc(&b, ')');
	}
	sw__buf_puts(&b, "\n\n_Generated by Swipium._");
	size_t n = 0;
	char *raw = sw__buf_steal(&b, &n);
	char *body = sw__nul_to_replacement(raw, n, &n);
	if (!body)
		return NULL;
	return sw__summary_cap(body, n, SW__SUMMARY_CAP, len);
}
