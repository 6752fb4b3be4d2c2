/* render-markdown.c: the human-readable Markdown report (no release gate), section by section. */
#include <math.h>
#include <string.h>

#include "report-internal.h"

const char *sw__risk_badge(const json_t *risk);
const char *sw__outcome_mark(const json_t *outcome);

typedef struct md {
	sw_buf b;
	const json_t *r;
} md;

static void put(md *m, const char *s)
{
	sw__buf_puts(&m->b, s);
}

/* Free text on one line: line breaks become spaces so a value cannot start a block. */
static void text(md *m, const json_t *v)
{
	sw_buf s = sw__js_string_buf(v);
	for (size_t i = 0; i < s.len; i++)
		if (s.data[i] == '\n' || s.data[i] == '\r')
			s.data[i] = ' ';
	sw__buf_append(&m->b, s.data, s.len);
	sw__buf_free(&s);
}

static void text_or(md *m, const json_t *v, const char *fallback)
{
	if (sw__js_nullish(v))
		put(m, fallback);
	else
		text(m, v);
}

static void code(md *m, const json_t *v, const char *fallback)
{
	if (sw__js_nullish(v)) {
		sw__md_code(&m->b, fallback, strlen(fallback));
		return;
	}
	sw_buf s = sw__js_string_buf(v);
	sw__md_code(&m->b, sw__buf_cstr(&s), s.len);
	sw__buf_free(&s);
}

/* A table cell: compactValue, then pipes escaped and line breaks as <br>. */
static void cell(md *m, const json_t *v)
{
	sw_buf s = SW_BUF_INIT;
	sw__compact_value(&s, v, 180);
	const char *p = sw__buf_cstr(&s);
	for (size_t i = 0; i < s.len; i++) {
		if (p[i] == '|') {
			put(m, "\\|");
		} else if (p[i] == '\r' || p[i] == '\n') {
			if (p[i] == '\r' && i + 1 < s.len && p[i + 1] == '\n')
				i++;
			put(m, "<br>");
		} else {
			sw__buf_putc(&m->b, p[i]);
		}
	}
	sw__buf_free(&s);
}

static const json_t *get(const json_t *o, const char *k)
{
	return sw__js_get(o, k);
}

static void upper_risk(md *m, const json_t *risk)
{
	const char *badge = sw__risk_badge(risk);
	if (badge) {
		put(m, badge);
		return;
	}
	sw_buf s = SW_BUF_INIT;
	sw__js_upper(&s, risk);
	sw__js_line(&m->b, &s);
	sw__buf_free(&s);
}

static void js_line_or(sw_buf *b, const json_t *v, const char *fallback)
{
	if (sw__js_nullish(v))
		sw__buf_puts(b, fallback);
	else
		sw__js_line_value(b, v);
}

static bool is_app_fail(const json_t *o)
{
	const json_t *cat = get(o, "category");
	return sw__js_is(get(o, "outcome"), "fail") &&
	       (sw__js_nullish(cat) || sw__js_is(cat, "app_bug") || sw__js_is(cat, "other"));
}

/* The lines of the PR summary block, one per line, no fence. */
static void pr_summary(sw_buf *s, const json_t *r)
{
	const json_t *es = get(r, "executiveSummary");
	const json_t *outcomes = get(r, "testOutcomes");
	size_t no = sw__js_array_len(outcomes);
	sw__buf_puts(s, "Swipium: ");
	sw__js_upper(s, get(es, "risk"));
	sw__buf_puts(s, "\nReason: ");
	const json_t *failed = NULL;
	for (size_t i = 0; i < no && !failed; i++)
		if (sw__js_is(get(json_array_get(outcomes, i), "outcome"), "fail"))
			failed = json_array_get(outcomes, i);
	if (failed) {
		sw__js_line_value(s, get(failed, "workflow"));
		sw__buf_puts(s, ": ");
		const json_t *why = get(failed, "reason");
		if (!sw__js_truthy(why))
			why = get(failed, "category");
		if (sw__js_truthy(why))
			sw__js_line_value(s, why);
		else
			sw__buf_puts(s, "failed");
	} else {
		const json_t *reasons = get(es, "reasons");
		if (sw__js_array_len(reasons))
			sw__js_line_value(s, json_array_get(reasons, 0));
		else
			sw__buf_puts(s, "no reason recorded");
	}
	sw__buf_puts(s, ".\nNative health: ");
	js_line_or(s, get(r, "nativeHealth"), "unknown");
	sw__buf_puts(s, ". App health: ");
	js_line_or(s, get(r, "appHealth"), "unknown");
	sw__buf_putc(s, '.');
	const json_t *desc = get(get(r, "automationBackend"), "description");
	if (sw__js_truthy(desc)) {
		sw__buf_puts(s, "\nBackend: ");
		sw__js_line_value(s, desc);
		sw__buf_putc(s, '.');
	}
	sw__buf_puts(s, "\nReadiness: ");
	const json_t *ready = get(r, "readiness");
	if (sw__js_array_len(ready)) {
		for (size_t i = 0; i < json_array_size(ready); i++) {
			if (i)
				sw__buf_puts(s, " > ");
			sw__js_line_value(s, json_array_get(ready, i));
		}
	} else {
		sw__buf_puts(s, "none");
	}
	sw__buf_putc(s, '.');
	const json_t *ar = get(r, "automationReadiness");
	if (json_is_object(ar)) {
		sw__buf_puts(s, "\nAutomation readiness: ");
		sw__js_line_value(s, get(ar, "grade"));
		sw__buf_puts(s, " (");
		sw__js_line_value(s, get(ar, "score"));
		sw__buf_puts(s, "/100).");
	}
	/* Likely category: the app when the app failed, the setup when only blockers remain. */
	size_t app_fails = 0, blocked = 0, high = 0;
	for (size_t i = 0; i < no; i++) {
		const json_t *o = json_array_get(outcomes, i);
		app_fails += is_app_fail(o);
		blocked += sw__js_is(get(o, "outcome"), "blocked");
	}
	const json_t *findings = get(r, "findings");
	for (size_t i = 0; i < sw__js_array_len(findings); i++)
		high += sw__js_is(get(json_array_get(findings, i), "severity"), "high");
	const json_t *grade = get(ar, "grade");
	const char *likely = app_fails || high                                ? "app regression"
	                     : blocked                                        ? "environment/setup"
	                     : sw__js_is(grade, "C") || sw__js_is(grade, "D") ? "automation readiness"
	                                                                      : "unknown";
	sw__buf_printf(s, "\nLikely category: %s.", likely);
	size_t shots = 0, arts = sw__js_array_len(get(r, "artifacts"));
	for (size_t i = 0; i < arts; i++)
		shots += sw__js_is(get(json_array_get(get(r, "artifacts"), i), "kind"), "screenshot");
	sw__buf_printf(s, "\nEvidence: %zu artifact(s), %zu screenshot(s), %zu workflow outcome(s).", arts, shots, no);
	sw__buf_puts(s, "\nNext action: ");
	js_line_or(s, get(es, "nextAction"), "-");
}

static void fence(md *m, const sw_buf *content)
{
	/* A fence longer than any backtick run inside, so the content cannot close it. */
	size_t run = 0, best = 0;
	for (size_t i = 0; i < content->len; i++) {
		run = content->data[i] == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	size_t n = best >= 3 ? best + 1 : 3;
	for (size_t i = 0; i < n; i++)
		sw__buf_putc(&m->b, '`');
	put(m, "text\n");
	sw__buf_append(&m->b, content->data, content->len);
	sw__buf_putc(&m->b, '\n');
	for (size_t i = 0; i < n; i++)
		sw__buf_putc(&m->b, '`');
}

static void verdict_line(md *m, const char *label, const json_t *v)
{
	if (!json_is_object(v))
		return;
	put(m, "\n**");
	put(m, label);
	put(m, ":** ");
	text_or(m, get(v, "status"), "-");
	put(m, " - ");
	text_or(m, get(v, "summary"), "");
}

static void list_section(md *m, const char *title, const json_t *list)
{
	if (!sw__js_array_len(list))
		return;
	put(m, "\n\n## ");
	put(m, title);
	put(m, "\n");
	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *v = json_array_get(list, i);
		put(m, "\n- ");
		if (json_is_string(v))
			text(m, v);
		else
			cell(m, v);
	}
}

static void seconds(md *m, const json_t *ms)
{
	if (!json_is_number(ms)) {
		put(m, "-");
		return;
	}
	double s = floor(json_number_value(ms) / 1000.0 + 0.5); /* Math.round: half up */
	sw__buf_js_number(&m->b, s);
	put(m, "s");
}


/* The cells of @o's @keys on one table row, separated by " | ". */
static void cells(md *m, const json_t *o, const char *const *keys, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (k)
			put(m, " | ");
		cell(m, get(o, keys[k]));
	}
}

static void section_automation(md *m, const json_t *ar)
{
	if (!json_is_object(ar))
		return;
	put(m, "\n\n## Automation readiness\n\nGrade **");
	text_or(m, get(ar, "grade"), "-");
	put(m, "** (");
	text_or(m, get(ar, "score"), "-");
	put(m, "/100)");
	const json_t *lc = get(ar, "locatorCoverage");
	if (json_is_object(lc)) {
		put(m, "\n\n| Actions | Durable | Native fallback | Text | Coordinate | Durable % |\n"
		       "| --- | --- | --- | --- | --- | --- |\n| ");
		static const char *const keys[] = {"totalActions", "durableActions",    "nativeFallbackActions",
		                                   "textActions",  "coordinateActions", "durablePct"};
		cells(m, lc, keys, SW_ARRAY_SIZE(keys));
		put(m, " |");
	}
	const json_t *wg = get(ar, "workflowGrades");
	if (sw__js_array_len(wg)) {
		put(m, "\n\n| Workflow | Grade | Outcome | Evidence | Fix |\n| --- | --- | --- | --- | --- |");
		for (size_t i = 0; i < json_array_size(wg); i++) {
			const json_t *g = json_array_get(wg, i);
			static const char *const keys[] = {"workflow", "grade", "outcome", "evidence", "fix"};
			put(m, "\n| ");
			cells(m, g, keys, SW_ARRAY_SIZE(keys));
			put(m, " |");
		}
	}
	const json_t *sg = get(ar, "screenGrades");
	if (sw__js_array_len(sg)) {
		put(m, "\n\n| Screen | Grade | Score | Actions | Durable % | Weak actions |\n"
		       "| --- | --- | --- | --- | --- | --- |");
		for (size_t i = 0; i < json_array_size(sg); i++) {
			const json_t *g = json_array_get(sg, i);
			static const char *const keys[] = {
			    "screen", "grade", "score", "actionCount", "durableLocatorPct", "weakActions"};
			put(m, "\n| ");
			cells(m, g, keys, SW_ARRAY_SIZE(keys));
			put(m, " |");
		}
	}
	const json_t *fixes = get(ar, "topFixes");
	for (size_t i = 0; i < sw__js_array_len(fixes); i++) {
		put(m, i ? "\n- " : "\n\nTop fixes:\n\n- ");
		const json_t *f = json_array_get(fixes, i);
		if (json_is_string(f))
			text(m, f);
		else
			cell(m, f);
	}
}

static void section_workflows(md *m, const json_t *outcomes)
{
	put(m, "\n\n## Workflows\n");
	if (!sw__js_array_len(outcomes)) {
		put(m, "\nNo workflow outcomes were recorded.");
		return;
	}
	put(m, "\n| Workflow | Outcome | Category | Reason | Evidence |\n| --- | --- | --- | --- | --- |");
	for (size_t i = 0; i < json_array_size(outcomes); i++) {
		const json_t *o = json_array_get(outcomes, i);
		const json_t *outcome = get(o, "outcome");
		put(m, "\n| ");
		cell(m, get(o, "workflow"));
		put(m, " | ");
		const char *mark = sw__outcome_mark(outcome);
		if (mark) {
			put(m, mark);
			put(m, " ");
		}
		cell(m, outcome);
		put(m, " | ");
		cell(m, get(o, "category"));
		put(m, " | ");
		const json_t *why = sw__js_truthy(get(o, "reason")) ? get(o, "reason") : get(o, "missingPrecondition");
		cell(m, why);
		put(m, " | ");
		const json_t *uris = get(o, "artifactUris");
		size_t n = sw__js_array_len(uris);
		for (size_t k = 0; k < n; k++) {
			sw__buf_printf(&m->b, "%s[%zu](", k ? " " : "", k + 1);
			sw_buf u = sw__js_string_buf(json_array_get(uris, k));
			sw__md_link_dest(&m->b, sw__buf_cstr(&u), u.len);
			sw__buf_free(&u);
			put(m, ")");
		}
		if (!n)
			put(m, "-");
		put(m, " |");
	}
}

static void section_evidence_quality(md *m, const json_t *r)
{
	const json_t *tax = get(r, "evidenceTaxonomy");
	json_t *computed = NULL;
	if (!json_is_object(tax)) {
		/* Recomputed from the outcomes: how each verdict was established. */
		computed = json_object();
		const json_t *outcomes = get(r, "testOutcomes");
		for (size_t i = 0; computed && i < sw__js_array_len(outcomes); i++) {
			const json_t *o = json_array_get(outcomes, i);
			const json_t *kind = get(o, "evidenceKind");
			if (!json_is_string(kind))
				kind = get(o, "method");
			const char *k = json_is_string(kind) ? json_string_value(kind) : "unspecified";
			size_t klen = json_is_string(kind) ? json_string_length(kind) : strlen(k);
			const json_t *cur = json_object_getn(computed, k, klen);
			json_object_setn_new(computed, k, klen, json_real(sw__js_number(cur, 0) + 1));
		}
		tax = computed;
	}
	if (json_object_size(tax) == 0) {
		json_decref(computed);
		return;
	}
	put(m, "\n\n## Evidence quality\n\n| Evidence | Count |\n| --- | --- |");
	const char *k;
	size_t klen;
	json_t *v;
	json_object_keylen_foreach((json_t *)tax, k, klen, v)
	{
		json_t *kj = json_stringn_nocheck(k, klen);
		put(m, "\n| ");
		cell(m, kj);
		put(m, " | ");
		cell(m, v);
		put(m, " |");
		json_decref(kj);
	}
	json_decref(computed);
}

static void section_flakes(md *m, const json_t *fc)
{
	const json_t *list = json_is_array(fc) ? fc : get(fc, "entries");
	bool header = false;
	for (size_t i = 0; i < sw__js_array_len(list); i++) {
		const json_t *e = json_array_get(list, i);
		if (sw__js_number(get(e, "repeat"), 0) <= 1)
			continue;
		if (!header) {
			put(m, "\n\n## Flake classification\n\n| Workflow | Repeats | Classification | Outcomes |\n"
			       "| --- | --- | --- | --- |");
			header = true;
		}
		put(m, "\n| ");
		cell(m, get(e, "workflow"));
		put(m, " | ");
		cell(m, get(e, "repeat"));
		put(m, " | ");
		cell(m, sw__js_coalesce(get(e, "classification"), get(e, "verdict")));
		put(m, " | ");
		cell(m, get(e, "outcomes"));
		put(m, " |");
	}
}

static void section_generated(md *m, const json_t *values)
{
	if (!sw__js_array_len(values))
		return;
	put(m, "\n\n## Generated test data\n\n| Fixture | Field | Variable | Generator | Value |\n"
	       "| --- | --- | --- | --- | --- |");
	for (size_t i = 0; i < json_array_size(values); i++) {
		const json_t *g = json_array_get(values, i);
		static const char *const keys[] = {"fixture", "field", "varName", "generator"};
		put(m, "\n| ");
		for (size_t k = 0; k < SW_ARRAY_SIZE(keys); k++) {
			cell(m, get(g, keys[k]));
			put(m, " | ");
		}
		if (json_is_true(get(g, "secret")))
			put(m, "&lt;redacted&gt;");
		else
			cell(m, get(g, "value"));
		put(m, " |");
	}
}

static void section_findings(md *m, const json_t *findings)
{
	put(m, "\n\n## Findings\n");
	if (!sw__js_array_len(findings)) {
		put(m, "\nNo findings.");
		return;
	}
	for (size_t i = 0; i < json_array_size(findings); i++) {
		const json_t *f = json_array_get(findings, i);
		put(m, "\n- **[");
		text_or(m, get(f, "severity"), "?");
		put(m, "]** ");
		code(m, sw__js_coalesce(get(f, "failureCode"), get(f, "kind")), "UNKNOWN");
		if (!sw__js_nullish(get(f, "bucket"))) {
			put(m, " ");
			text(m, get(f, "bucket"));
		}
		if (!sw__js_nullish(get(f, "retrySafe"))) {
			put(m, " retrySafe=");
			text(m, get(f, "retrySafe"));
		}
		put(m, " ");
		text_or(m, get(f, "layer"), "?");
		put(m, "/");
		text_or(m, get(f, "kind"), "?");
		put(m, ": ");
		text_or(m, get(f, "detail"), "");
		const json_t *count = get(f, "count");
		if (sw__js_number_coerce(count) > 1) {
			put(m, " (\xC3\x97");
			text(m, count);
			put(m, ")");
		}
		if (sw__js_truthy(get(f, "evidence"))) {
			put(m, ": _\"");
			text(m, get(f, "evidence"));
			put(m, "\"_");
		}
		const json_t *shot = get(f, "screenshotUri");
		if (sw__js_truthy(shot)) {
			put(m, " ([screenshot](");
			sw_buf u = sw__js_string_buf(shot);
			sw__md_link_dest(&m->b, sw__buf_cstr(&u), u.len);
			sw__buf_free(&u);
			put(m, "))");
		}
		if (sw__js_truthy(get(f, "nextStep"))) {
			put(m, " Next: ");
			text(m, get(f, "nextStep"));
		}
	}
}

static void section_ledger(md *m, const json_t *ledger)
{
	if (!sw__js_array_len(ledger))
		return;
	put(m, "\n\n## Mutation ledger\n\n| Time | Tool | Action | Risk | Status | Consent | Evidence | Target / "
	       "detail |\n"
	       "| --- | --- | --- | --- | --- | --- | --- | --- |");
	for (size_t i = 0; i < json_array_size(ledger); i++) {
		const json_t *row = json_array_get(ledger, i);
		put(m, "\n| ");
		cell(m, get(row, "at"));
		put(m, " | ");
		cell(m, get(row, "tool"));
		put(m, " | ");
		cell(m, get(row, "action"));
		put(m, " | ");
		cell(m, get(row, "risk"));
		put(m, " | ");
		cell(m, get(row, "status"));
		put(m, " | ");
		const json_t *consent = get(row, "consent");
		if (!json_is_object(consent)) {
			put(m, "not recorded");
		} else if (!json_is_true(get(consent, "required"))) {
			put(m, "not required");
		} else {
			put(m, json_is_true(get(consent, "approved")) ? "approved" : "not approved");
			if (sw__js_truthy(get(consent, "consentId"))) {
				put(m, " (");
				cell(m, get(consent, "consentId"));
				put(m, ")");
			}
		}
		put(m, " | ");
		bool any = false;
		if (sw__js_truthy(get(row, "ledgerUri"))) {
			put(m, "[ledger](");
			sw_buf u = sw__js_string_buf(get(row, "ledgerUri"));
			sw__md_link_dest(&m->b, sw__buf_cstr(&u), u.len);
			sw__buf_free(&u);
			put(m, ")");
			any = true;
		}
		const json_t *hash = get(consent, "payloadHash");
		if (json_is_string(hash)) {
			put(m, any ? "; payload " : "payload ");
			size_t keep = sw__utf16_prefix_bytes(json_string_value(hash), json_string_length(hash), 12);
			json_t *short_hash = json_stringn_nocheck(json_string_value(hash), keep);
			cell(m, short_hash);
			json_decref(short_hash);
			any = true;
		}
		if (!any)
			put(m, "-");
		put(m, " | ");
		const json_t *target = get(row, "target");
		cell(m, sw__js_truthy(get(row, "detail")) ? get(row, "detail") : target);
		put(m, " |");
	}
}

static void section_timing(md *m, const json_t *r)
{
	const json_t *pt = get(r, "phaseTimings");
	put(m, "\n\n## Timing & artifacts\n\n- Total: ");
	seconds(m, get(pt, "totalMs"));
	put(m, " (setup ");
	seconds(m, get(pt, "setupMs"));
	put(m, ", active ");
	seconds(m, get(pt, "activeMs"));
	put(m, ")");
	if (json_is_number(get(pt, "timeToLoginMs"))) {
		put(m, "\n- Time to login: ");
		seconds(m, get(pt, "timeToLoginMs"));
	}
	const json_t *arts = get(r, "artifacts");
	for (size_t i = 0; i < sw__js_array_len(arts); i++) {
		const json_t *a = json_array_get(arts, i);
		put(m, "\n- ");
		code(m, get(a, "uri"), "");
		put(m, " (");
		text_or(m, get(a, "kind"), "artifact");
		if (sw__js_truthy(get(a, "label"))) {
			put(m, ": ");
			text(m, get(a, "label"));
		}
		put(m, ")");
	}
}

char *sw__render_markdown(const json_t *r, size_t *len)
{
	md m = {SW_BUF_INIT, r};
	const json_t *es = get(r, "executiveSummary");
	put(&m, "# QA report: ");
	text_or(&m, get(r, "appId"), "app");
	put(&m, "\n\n## PR summary\n\n");
	sw_buf pr = SW_BUF_INIT;
	pr_summary(&pr, r);
	fence(&m, &pr);
	sw__buf_free(&pr);
	put(&m, "\n\n**Release risk: ");
	upper_risk(&m, get(es, "risk"));
	put(&m, "**");
	verdict_line(&m, "App status", get(r, "appVerdict"));
	verdict_line(&m, "Coverage status", get(r, "coverageVerdict"));
	verdict_line(&m, "Tool status", get(r, "toolVerdict"));
	put(&m, "\n\n**Next action:** ");
	text_or(&m, get(es, "nextAction"), "");
	const json_t *reasons = get(es, "reasons");
	if (sw__js_array_len(reasons)) {
		put(&m, "\n");
		for (size_t i = 0; i < json_array_size(reasons); i++) {
			put(&m, "\n- ");
			text(&m, json_array_get(reasons, i));
		}
	}
	const json_t *issues = get(r, "issuesMarkdown");
	if (json_is_string(issues) && json_string_length(issues)) {
		put(&m, "\n\n");
		sw__buf_append(&m.b, json_string_value(issues), json_string_length(issues));
	}
	put(&m, "\n\n> ");
	text_or(&m, get(r, "coverage"), "Coverage not recorded");
	put(&m, ". Session ");
	code(&m, get(r, "sessionId"), "unknown");
	put(&m, " on ");
	code(&m, get(r, "device"), "device");
	put(&m, ".");
	const json_t *backend = get(r, "automationBackend");
	if (json_is_object(backend)) {
		put(&m, "\n\nBackend: ");
		text_or(&m, get(backend, "kind"), "unknown");
		if (!sw__js_nullish(get(backend, "mode"))) {
			put(&m, " (");
			text(&m, get(backend, "mode"));
			put(&m, ")");
		}
		if (sw__js_truthy(get(backend, "description"))) {
			put(&m, ": ");
			text(&m, get(backend, "description"));
		}
	}
	list_section(&m, "Capability readiness", get(r, "readiness"));
	const json_t *wda = get(r, "wda");
	if (json_is_object(wda)) {
		put(&m, "\n\n## WDA tuning\n\n- Status: ");
		const json_t *st = get(wda, "status");
		text_or(&m, get(st, "message"), json_is_true(get(st, "ready")) ? "ready" : "not ready");
		const json_t *recs = get(get(wda, "tuning"), "recommendations");
		for (size_t i = 0; i < sw__js_array_len(recs); i++) {
			const json_t *rec = json_array_get(recs, i);
			put(&m, "\n- ");
			code(&m, get(rec, "setting"), "?");
			put(&m, " = ");
			cell(&m, get(rec, "value"));
			put(&m, ": ");
			text_or(&m, get(rec, "reason"), "");
		}
	}
	section_automation(&m, get(r, "automationReadiness"));
	put(&m, "\n\n## Health\n\n- Native: ");
	put(&m, sw__js_is(get(r, "nativeHealth"), "error") ? "\xE2\x9D\x8C error" : "\xE2\x9C\x85 OK");
	put(&m, "\n- App: ");
	const json_t *app = get(r, "appHealth");
	put(&m, sw__js_is(app, "error")      ? "\xE2\x9D\x8C error"
	        : sw__js_is(app, "degraded") ? "\xE2\x9A\xA0\xEF\xB8\x8F degraded"
	                                     : "\xE2\x9C\x85 OK");
	put(&m, "\n- Auth: ");
	text_or(&m, get(r, "authState"), "unknown");
	section_workflows(&m, get(r, "testOutcomes"));
	section_evidence_quality(&m, r);
	section_flakes(&m, get(r, "flakeClassification"));
	section_generated(&m, get(r, "generatedValues"));
	section_findings(&m, get(r, "findings"));
	const json_t *env = get(r, "environmentChanges");
	if (sw__js_array_len(env) || sw__js_array_len(get(r, "guardrailOverrides")) ||
	    !sw__js_nullish(get(r, "finalNetwork"))) {
		put(&m, "\n\n## Environment\n");
		for (size_t i = 0; i < sw__js_array_len(env); i++) {
			put(&m, "\n- ");
			text(&m, json_array_get(env, i));
		}
		const json_t *ov = get(r, "guardrailOverrides");
		for (size_t i = 0; i < sw__js_array_len(ov); i++) {
			put(&m, "\n- Guardrail override: ");
			text(&m, json_array_get(ov, i));
		}
		if (!sw__js_nullish(get(r, "finalNetwork"))) {
			put(&m, "\n- Final network: ");
			text(&m, get(r, "finalNetwork"));
		}
	}
	list_section(&m, "CI mutations", get(r, "ciMutations"));
	section_ledger(&m, get(r, "mutationLedger"));
	if (json_is_true(get(r, "redactionDegraded")))
		put(&m,
		    "\n\n## Redaction\n\nSecrets were entered during this run. They were redacted from this report, "
		    "but screenshots and recordings may still show them: review the evidence before sharing it.");
	section_timing(&m, r);
	put(&m, "\n\n---\n\n_Generated by Swipium._");
	size_t n = 0;
	char *body = sw__buf_steal(&m.b, &n);
	return sw__nul_to_replacement(body, n, len);
}
