/* render-junit.c: the JUnit XML export (workflows and findings as test suites), valid against junit-10.xsd. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report-internal.h"

enum verdict { V_PASS, V_SKIPPED, V_LENIENT, V_FAILURE };

/* policy.warned -> "warned", policy.suppressed -> "suppressed" (suppressed wins). */
static json_t *lenient_map(const json_t *gate)
{
	json_t *map = json_object();
	static const char *const kinds[] = {"warned", "suppressed"};
	for (size_t k = 0; map && k < 2; k++) {
		const json_t *list = sw__js_get(gate, kinds[k]);
		for (size_t i = 0; i < sw__js_array_len(list); i++) {
			const json_t *key = json_array_get(list, i);
			if (json_is_string(key))
				json_object_setn_new(map, json_string_value(key), json_string_length(key),
				                     json_string(kinds[k]));
		}
	}
	return map;
}

static const json_t *lenient_get(const json_t *map, const sw_buf *key)
{
	return json_object_getn(map, sw__buf_cstr(key), key->len);
}

/* Seconds with at most three decimals, as the schema's SUREFIRE_TIME wants. */
static void time_attr(sw_buf *b, double ms)
{
	if (!isfinite(ms) || ms < 0)
		ms = 0;
	char tmp[400];
	snprintf(tmp, sizeof(tmp), "%.3f", ms / 1000.0);
	size_t n = strlen(tmp);
	while (n > 0 && tmp[n - 1] == '0')
		n--;
	if (n > 0 && tmp[n - 1] == '.')
		n--;
	sw__buf_append(b, tmp, n);
}

/*
 * Attribute values are clipped: libxml2 and other parsers refuse attributes of
 * many megabytes by default, and the full text is still in the element body.
 */
#define ATTR_MAX_UNITS 4096

static void esc_attr(sw_buf *b, const sw_buf *s)
{
	sw_buf c = SW_BUF_INIT;
	sw__clip(&c, sw__buf_cstr(s), s->len, ATTR_MAX_UNITS);
	sw__xml_escape(b, sw__buf_cstr(&c), c.len);
	sw__buf_free(&c);
}

static void esc_attr_js(sw_buf *b, const json_t *v)
{
	sw_buf s = sw__js_string_buf(v);
	esc_attr(b, &s);
	sw__buf_free(&s);
}

static void esc_buf(sw_buf *b, const sw_buf *s)
{
	sw__xml_escape(b, sw__buf_cstr(s), s->len);
}

/* [category, reason, missingPrecondition] truthy joined ": ", or the outcome. */
static void case_text(sw_buf *b, const json_t *o)
{
	static const char *const keys[] = {"category", "reason", "missingPrecondition"};
	bool any = false;
	for (size_t i = 0; i < 3; i++) {
		const json_t *v = sw__js_get(o, keys[i]);
		if (!sw__js_truthy(v))
			continue;
		if (any)
			sw__buf_puts(b, ": ");
		sw__js_string(b, v);
		any = true;
	}
	if (!any) {
		const json_t *outcome = sw__js_get(o, "outcome");
		if (!sw__js_nullish(outcome))
			sw__js_string(b, outcome);
	}
}

static void system_out(sw_buf *b, const json_t *const *lines, size_t n)
{
	sw_buf joined = SW_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (i)
			sw__buf_putc(&joined, '\n');
		sw__js_string(&joined, lines[i]);
	}
	sw__buf_puts(b, "\n      <system-out>");
	esc_buf(b, &joined);
	sw__buf_puts(b, "</system-out>");
	sw__buf_free(&joined);
}

static void open_case(sw_buf *b, const json_t *name_v, const sw_buf *name_s, const sw_buf *classname)
{
	sw__buf_puts(b, "\n    <testcase name=\"");
	if (name_s)
		esc_attr(b, name_s);
	else
		esc_attr_js(b, name_v);
	sw__buf_puts(b, "\" classname=\"");
	esc_attr(b, classname);
	sw__buf_puts(b, "\">");
}

static enum verdict case_verdict(const json_t *o, const json_t *lenient, const char **why)
{
	const json_t *outcome = sw__js_get(o, "outcome");
	if (sw__js_is(outcome, "pass"))
		return V_PASS;
	if (!sw__js_is(outcome, "fail"))
		return V_SKIPPED;
	sw_buf key = sw__js_string_buf(sw__js_get(o, "workflow"));
	sw__buf_puts(&key, ": ");
	sw__outcome_fail_code(&key, o);
	const json_t *l = lenient_get(lenient, &key);
	sw__buf_free(&key);
	if (l) {
		*why = json_string_value(l);
		return V_LENIENT;
	}
	return V_FAILURE;
}

static enum verdict finding_verdict(const json_t *f, const json_t *lenient, const char **why)
{
	if (!sw__js_is(sw__js_get(f, "severity"), "high"))
		return V_PASS;
	const json_t *kind = sw__js_get(f, "kind");
	sw_buf key = SW_BUF_INIT;
	sw__buf_puts(&key, "finding:");
	sw__js_string(&key, kind);
	sw__buf_puts(&key, ": ");
	sw__finding_code(&key, f);
	const json_t *l = lenient_get(lenient, &key);
	sw__buf_free(&key);
	if (l) {
		*why = json_string_value(l);
		return V_LENIENT;
	}
	return V_FAILURE;
}

static void suite_open(sw_buf *b, const sw_buf *name, size_t tests, size_t failures, size_t skipped, double ms)
{
	sw__buf_puts(b, "\n  <testsuite name=\"");
	esc_attr(b, name);
	sw__buf_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"", tests, failures,
	               skipped);
	time_attr(b, ms);
	sw__buf_puts(b, "\">");
}

char *sw__render_junit(const json_t *r, const json_t *gate, size_t *len)
{
	json_t *lenient = lenient_map(gate);
	sw_buf b = SW_BUF_INIT;
	sw_buf suite = SW_BUF_INIT, fsuite = SW_BUF_INIT, cases = SW_BUF_INIT, fcases = SW_BUF_INIT;
	const json_t *outcomes = sw__js_get(r, "testOutcomes");
	const json_t *findings = sw__js_get(r, "findings");
	size_t nout = sw__js_array_len(outcomes), nfind = sw__js_array_len(findings);
	size_t cf = 0, cs = 0, ff = 0, fs = 0;
	double ms = sw__js_number(sw__js_get(sw__js_get(r, "phaseTimings"), "totalMs"), 0);
	char *out = NULL;
	if (!lenient)
		goto done;

	const json_t *app = sw__js_get(r, "appId");
	sw__buf_puts(&suite, "swipium.");
	if (sw__js_nullish(app))
		sw__buf_puts(&suite, "app");
	else
		sw__js_string(&suite, app);
	sw__buf_append(&fsuite, suite.data, suite.len);
	sw__buf_puts(&fsuite, ".findings");

	for (size_t i = 0; i < nout; i++) {
		const json_t *o = json_array_get(outcomes, i);
		const char *why = NULL;
		enum verdict v = case_verdict(o, lenient, &why);
		sw_buf text = SW_BUF_INIT, body = SW_BUF_INIT;
		if (v != V_PASS)
			case_text(&text, o);
		if (v == V_FAILURE) {
			cf++;
			sw__buf_puts(&body, "\n      <failure message=\"");
			esc_attr(&body, &text);
			sw__buf_puts(&body, "\">");
			esc_buf(&body, &text);
			sw__buf_puts(&body, "</failure>");
		} else if (v == V_SKIPPED || v == V_LENIENT) {
			cs++;
			sw__buf_puts(&body, "\n      <skipped message=\"");
			if (v == V_LENIENT) {
				sw_buf w = SW_BUF_INIT;
				sw__buf_printf(&w, "policy %s (release gate not blocked): ", why);
				sw__buf_append(&w, text.data, text.len);
				esc_attr(&body, &w);
				sw__buf_free(&w);
			} else {
				esc_attr(&body, &text);
			}
			sw__buf_puts(&body, "\"></skipped>");
		}
		const json_t *uris = sw__js_get(o, "artifactUris");
		size_t nuris = sw__js_array_len(uris);
		open_case(&cases, sw__js_get(o, "workflow"), NULL, &suite);
		if (body.len == 0 && nuris == 0) {
			sw__buf_puts(&cases, "</testcase>");
		} else {
			sw__buf_append(&cases, body.data, body.len);
			if (nuris) {
				sw_buf joined = SW_BUF_INIT;
				for (size_t k = 0; k < nuris; k++) {
					if (k)
						sw__buf_putc(&joined, '\n');
					const json_t *u = json_array_get(uris, k);
					if (!json_is_null(u))
						sw__js_string(&joined, u);
				}
				sw__buf_puts(&cases, "\n      <system-out>");
				esc_buf(&cases, &joined);
				sw__buf_puts(&cases, "</system-out>");
				sw__buf_free(&joined);
			}
			sw__buf_puts(&cases, "\n    </testcase>");
		}
		sw__buf_free(&text);
		sw__buf_free(&body);
	}

	for (size_t i = 0; i < nfind; i++) {
		const json_t *f = json_array_get(findings, i);
		const char *why = NULL;
		enum verdict v = finding_verdict(f, lenient, &why);
		const json_t *kind = sw__js_get(f, "kind");
		const json_t *code = sw__js_coalesce(sw__js_get(f, "failureCode"), kind);
		const json_t *shot = sw__js_get(f, "screenshotUri");
		sw_buf name = SW_BUF_INIT, detail = SW_BUF_INIT;
		sw__buf_putc(&name, '[');
		sw__js_string(&name, sw__js_get(f, "severity"));
		sw__buf_puts(&name, "] ");
		const json_t *layer = sw__js_get(f, "layer");
		if (sw__js_nullish(layer))
			sw__buf_putc(&name, '?');
		else
			sw__js_string(&name, layer);
		sw__buf_putc(&name, '/');
		sw__js_string(&name, kind);
		sw__finding_text(&detail, f);
		json_t *detail_v = json_stringn_nocheck(sw__buf_cstr(&detail), detail.len);
		open_case(&fcases, NULL, &name, &fsuite);
		if (v == V_FAILURE) {
			ff++;
			sw__buf_puts(&fcases, "\n      <failure message=\"");
			esc_attr_js(&fcases, code);
			sw__buf_puts(&fcases, "\">");
			esc_buf(&fcases, &detail);
			sw__buf_puts(&fcases, "</failure>");
			if (sw__js_truthy(shot))
				system_out(&fcases, &shot, 1);
		} else {
			if (v == V_LENIENT) {
				fs++;
				sw_buf w = SW_BUF_INIT;
				sw__buf_printf(&w, "policy %s (release gate not blocked): ", why);
				sw__js_string(&w, code);
				sw__buf_puts(&fcases, "\n      <skipped message=\"");
				esc_attr(&fcases, &w);
				sw__buf_puts(&fcases, "\"></skipped>");
				sw__buf_free(&w);
			}
			const json_t *lines[2] = {detail_v, shot};
			system_out(&fcases, lines, sw__js_truthy(shot) ? 2 : 1);
		}
		sw__buf_puts(&fcases, "\n    </testcase>");
		json_decref(detail_v);
		sw__buf_free(&name);
		sw__buf_free(&detail);
	}

	bool block = json_is_true(sw__js_get(gate, "block"));
	sw__buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
	esc_attr(&b, &suite);
	sw__buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"", nout + nfind, cf + ff);
	time_attr(&b, ms);
	sw__buf_puts(&b, "\">");
	suite_open(&b, &suite, nout, cf, cs, ms);
	if (gate) {
		sw__buf_puts(&b, "\n    <properties>\n      <property name=\"swipium.releaseGate\" value=\"");
		sw__buf_puts(&b, block ? "fail" : "pass");
		sw__buf_puts(&b, "\"></property>\n      <property name=\"swipium.releaseGate.reason\" value=\"");
		esc_attr_js(&b, sw__js_get(gate, "reason"));
		sw__buf_puts(&b, "\"></property>");
		/* The schema forbids `skipped` on <testsuites>; the total travels here instead. */
		sw__buf_printf(&b, "\n      <property name=\"swipium.skipped\" value=\"%zu\"></property>", cs + fs);
		sw__buf_puts(&b, "\n    </properties>");
	}
	sw__buf_append(&b, cases.data, cases.len);
	sw__buf_puts(&b, "\n  </testsuite>");
	if (nfind) {
		suite_open(&b, &fsuite, nfind, ff, fs, 0);
		sw__buf_append(&b, fcases.data, fcases.len);
		sw__buf_puts(&b, "\n  </testsuite>");
	}
	sw__buf_puts(&b, "\n</testsuites>");
	if (suite.failed || fsuite.failed || cases.failed || fcases.failed)
		b.failed = true;
	out = sw__buf_steal(&b, len);
done:
	json_decref(lenient);
	sw__buf_free(&b);
	sw__buf_free(&suite);
	sw__buf_free(&fsuite);
	sw__buf_free(&cases);
	sw__buf_free(&fcases);
	return out;
}
