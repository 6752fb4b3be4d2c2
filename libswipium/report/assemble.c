/* assemble.c: builds the reference's report JSON (PLATFORM.md §2.2-2.3) from one session's persisted state. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <swipium/report.h>
#include <swipium/session.h>

#include "catalog-internal.h"
#include "report-internal.h"

/* ---- small helpers ----------------------------------------------------- */

/* The string value of @o[@key], or NULL. */
static const char *sget(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A non-empty string value of @o[@key], or NULL (JavaScript truthiness of a string). */
static const char *tget(const json_t *o, const char *key)
{
	const char *v = sget(o, key);
	return v && *v ? v : NULL;
}

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Adds one to obj[key] (created at 1 in insertion order). */
static void tally(json_t *obj, const char *key)
{
	json_t *cur = json_object_get(obj, key);
	if (json_is_integer(cur))
		json_integer_set(cur, json_integer_value(cur) + 1);
	else
		json_object_set_new(obj, key, json_integer(1));
}

static json_int_t tally_get(const json_t *obj, const char *key)
{
	return json_integer_value(json_object_get(obj, key));
}

/* Sets obj[key] to a copy of @v, or JSON null when @v is NULL. */
static void set_or_null(json_t *obj, const char *key, json_t *v)
{
	json_object_set(obj, key, v ? v : json_null());
}

/* The report's `device` is a display string; sessions record the device as {platform, serial, ...}.
 * Returns a new reference, or NULL when there is no device. */
static json_t *device_label(json_t *dev)
{
	if (json_is_string(dev))
		return json_incref(dev);
	if (!json_is_object(dev))
		return NULL;
	json_t *serial = json_object_get(dev, "serial");
	if (!json_is_string(serial))
		serial = json_object_get(dev, "udid");
	if (!json_is_string(serial))
		serial = json_object_get(dev, "name");
	return json_is_string(serial) ? json_incref(serial) : NULL;
}

/* Copies obj[key] into @dst when present (undefined stays undefined). */
static void copy_key(json_t *dst, const json_t *src, const char *key)
{
	json_t *v = json_object_get(src, key);
	if (v)
		json_object_set(dst, key, v);
}

/* Case-insensitive: does @s contain any of @tokens? */
static bool contains_any_ci(const char *s, const char *const *tokens)
{
	if (!s)
		return false;
	for (size_t i = 0; tokens[i]; i++)
		if (strcasestr(s, tokens[i]))
			return true;
	return false;
}

/* Milliseconds since the epoch of an ISO 8601 UTC time `YYYY-MM-DDTHH:MM:SS[.mmm]Z`; -1 when it is not one. */
static int64_t iso_ms(const char *s)
{
	if (!s)
		return -1;
	struct tm tm = {0};
	int ms = 0, n = 0;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
	           &tm.tm_sec, &n) != 6)
		return -1;
	const char *p = s + n;
	if (*p == '.') {
		int digits = 0;
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 3)
				ms = ms * 10 + (*p - '0');
		for (; digits < 3 && digits > 0; digits++)
			ms *= 10;
	}
	if (*p != 'Z')
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	return (int64_t)t * 1000 + ms;
}

/* A duration in ms between the session start and an ISO time, as a JSON number, or JSON null. */
static json_t *ms_since(int64_t created, const char *iso)
{
	int64_t t = iso_ms(iso);
	if (t < 0 || created <= 0 || t < created)
		return json_null();
	return json_integer(t - created);
}

/* The catalog entry of @code, or the UNKNOWN entry. Never NULL. */
static const sw__catalog_entry *catalog_or_unknown(const char *code)
{
	const sw__catalog_entry *e = code ? sw__catalog_find(code, strlen(code)) : NULL;
	if (!e)
		e = sw__catalog_find("UNKNOWN", 7);
	return e;
}

/* ---- envChanges classes ------------------------------------------------ */

static const char *const guardrail_tokens[] = {"OVERRIDE",
                                               "GUARDRAIL",
                                               "external-APK",
                                               "clear_data",
                                               "fresh_start",
                                               "allowLaunchWithoutMetro",
                                               "acknowledgeBundleRisk",
                                               NULL};
static const char *const caution_override_tokens[] = {"OVERRIDE", "GUARDRAIL", "acknowledgeBundleRisk",
                                                      "allowLaunchWithoutMetro", NULL};

/* ---- findings (§2.3) --------------------------------------------------- */

/* Kind -> failure code for findings recorded without one. */
static const char *code_for_kind(const char *kind)
{
	static const struct {
		const char *kind, *code;
	} map[] = {
	    {"native_crash", "NATIVE_CRASH"},
	    {"anr", "ANR"},
	    {"wrong_foreground_app", "WRONG_FOREGROUND"},
	    {"wda_unreachable", "WDA_UNREACHABLE"},
	    {"permission_dialog", "PERMISSION_DIALOG"},
	    {"native_alert", "NATIVE_ALERT"},
	    {"rn_redbox", "REDBOX"},
	    {"rn_logbox_error", "LOGBOX"},
	    {"app_error_boundary", "ERROR_BOUNDARY"},
	    {"webview_error", "ERROR_BOUNDARY"},
	    {"unknown_error_surface", "BACKEND_ERROR"},
	};
	for (size_t i = 0; kind && i < SW_ARRAY_SIZE(map); i++)
		if (!strcmp(kind, map[i].kind))
			return map[i].code;
	return "UNKNOWN";
}

typedef struct agg {
	json_t *first; /* the first raw occurrence (borrowed from the state) */
	json_int_t count;
	const char *first_at, *last_at; /* borrowed */
	json_t *uris;                   /* distinct screenshot URIs, or NULL */
	json_t *uri_seen;               /* set of the above */
} agg;

static const char *str_or_empty(const json_t *o, const char *key)
{
	const char *v = sget(o, key);
	return v ? v : "";
}

/*
 * Deduplicates raw findings in one pass: the key is the compact JSON array
 * [failureCode, kind, severity, layer, screen, detail, evidence] looked up in a
 * jansson object, so the cost is linear in the number of findings.
 */
static json_t *dedupe_findings(const json_t *raw)
{
	size_t n = json_array_size(raw);
	agg *aggs = calloc(n ? n : 1, sizeof(*aggs));
	json_t *index = json_object(), *out = json_array();
	size_t used = 0;
	if (!aggs || !index || !out)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		json_t *f = json_array_get(raw, i);
		if (!json_is_object(f))
			continue;
		json_t *key = json_array();
		static const char *const parts[] = {"failureCode", "kind",   "severity", "layer",
		                                    "screen",      "detail", "evidence"};
		for (size_t k = 0; key && k < SW_ARRAY_SIZE(parts); k++) {
			json_t *v = json_object_get(f, parts[k]);
			/* kind and severity as given (a non-string stays distinct), the rest `?? ""` */
			if (!v || json_is_null(v))
				v = json_string("");
			else
				json_incref(v);
			json_array_append_new(key, v);
		}
		char *kt = key ? json_dumps(key, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
		json_decref(key);
		if (!kt)
			goto fail;
		json_t *slot = json_object_get(index, kt);
		agg *a;
		if (slot) {
			a = &aggs[json_integer_value(slot)];
			a->count++;
		} else {
			a = &aggs[used];
			a->first = f;
			a->count = 1;
			json_object_set_new(index, kt, json_integer((json_int_t)used));
			used++;
		}
		free(kt);
		const char *at = sget(f, "at");
		if (at) {
			if (!a->first_at || strcmp(at, a->first_at) < 0)
				a->first_at = at;
			if (!a->last_at || strcmp(at, a->last_at) > 0)
				a->last_at = at;
		}
		const char *uri = tget(f, "screenshotUri");
		if (uri) {
			if (!a->uris) {
				a->uris = json_array();
				a->uri_seen = json_object();
			}
			if (a->uri_seen && !json_object_get(a->uri_seen, uri)) {
				json_object_set_new(a->uri_seen, uri, json_true());
				json_array_append_new(a->uris, json_string(uri));
			}
		}
	}
	for (size_t i = 0; i < used; i++) {
		agg *a = &aggs[i];
		json_t *f = a->first, *o = json_object();
		static const char *const keep[] = {"at",    "severity", "kind",   "detail",
		                                   "layer", "evidence", "screen", "screenshotUri"};
		for (size_t k = 0; k < SW_ARRAY_SIZE(keep); k++)
			copy_key(o, f, keep[k]);
		const char *code = tget(f, "failureCode");
		if (!code)
			code = code_for_kind(sget(f, "kind"));
		json_object_set_new(o, "failureCode", json_string(code));
		json_object_set_new(o, "count", json_integer(a->count));
		if (a->first_at)
			json_object_set_new(o, "firstAt", json_string(a->first_at));
		if (a->last_at)
			json_object_set_new(o, "lastAt", json_string(a->last_at));
		if (a->uris)
			json_object_set(o, "screenshotUris", a->uris);
		const sw__catalog_entry *e = catalog_or_unknown(code);
		json_object_set_new(o, "bucket", json_string(e->bucket));
		json_object_set_new(o, "retrySafe", json_boolean(e->retry_safe));
		json_object_set_new(o, "nextStep", json_string(e->recovery));
		json_array_append_new(out, o);
	}
	goto out;
fail:
	json_decref(out);
	out = NULL;
out:
	for (size_t i = 0; aggs && i < used; i++) {
		json_decref(aggs[i].uris);
		json_decref(aggs[i].uri_seen);
	}
	free(aggs);
	json_decref(index);
	return out;
}

/* ---- tool errors ------------------------------------------------------- */

static bool is_probing(const char *code)
{
	return streq(code, "ELEMENT_NOT_FOUND") || streq(code, "STALE_REF") || streq(code, "AMBIGUOUS_SELECTOR") ||
	       streq(code, "INVALID_ARGUMENT");
}

static bool is_uncoded(const char *code)
{
	return !code || !*code || streq(code, "UNKNOWN") || streq(code, "UNCODED");
}

/* A tool error that says the tooling itself struggled (not a probe, not a refusal, not missing data). */
static bool is_degrading(const char *code)
{
	if (is_uncoded(code) || streq(code, "CANCELLED") || is_probing(code))
		return false;
	const sw__catalog_entry *e = sw__catalog_find(code, strlen(code));
	if (e && (streq(e->bucket, "unsafe_refused") || streq(e->bucket, "missing_data")))
		return false;
	return true;
}

/* Sorts {code:n} most frequent first; equal counts keep first-seen order. */
static json_t *sort_counts(const json_t *counts)
{
	size_t n = json_object_size(counts), i = 0;
	struct kv {
		const char *k;
		json_int_t v;
	} *items = calloc(n ? n : 1, sizeof(*items));
	json_t *out = json_object();
	if (!items || !out) {
		free(items);
		json_decref(out);
		return NULL;
	}
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)counts, k, v)
	{
		items[i].k = k;
		items[i].v = json_integer_value(v);
		i++;
	}
	/* insertion sort is stable; n is the number of distinct codes (the catalog has 137) */
	for (size_t a = 1; a < n; a++) {
		struct kv cur = items[a];
		size_t b = a;
		while (b > 0 && items[b - 1].v < cur.v) {
			items[b] = items[b - 1];
			b--;
		}
		items[b] = cur;
	}
	for (i = 0; i < n; i++)
		json_object_set_new(out, items[i].k, json_integer(items[i].v));
	free(items);
	return out;
}

/* ---- the assembly ------------------------------------------------------ */

typedef struct facts {
	const json_t *st;
	const json_t *notes, *raw_findings, *tool_errors, *env, *mutations, *actions;
	json_t *findings; /* deduped */
	json_int_t high_raw, pass, fail, blocked_notes, skipped, app_fail, blocked, overrides, mcp_limited;
	const json_t *first_app_fail, *first_blocked, *first_high;
	bool native_error, app_error, app_degraded, any_medium;
	const char *risk;
	json_t *outcome_tally;
	json_t *by_workflow;
	json_t *uri_seen; /* {workflow: {uri: true}}: distinct evidence per workflow in O(1) per URI */
	json_t *tool_by_code;
	json_int_t degrading, uncoded, probing;
	json_int_t unchecked; /* health checks that could not look at the device (kind health_unchecked) */
} facts;

static void scan_findings(facts *f)
{
	size_t i;
	json_t *x;
	json_array_foreach(f->raw_findings, i, x)
	{
		const char *sev = sget(x, "severity"), *layer = sget(x, "layer");
		if (streq(sev, "high")) {
			f->high_raw++;
			if (!f->first_high)
				f->first_high = x;
			if (streq(layer, "native"))
				f->native_error = true;
			if (streq(layer, "app"))
				f->app_error = true;
		} else if (streq(sev, "medium")) {
			f->any_medium = true;
			if (streq(sget(x, "kind"), "health_unchecked"))
				f->unchecked++;
			if (streq(layer, "app"))
				f->app_degraded = true;
		}
	}
}

static bool app_fail_category(const char *cat)
{
	return !cat || !*cat || streq(cat, "app_bug") || streq(cat, "other");
}

static int scan_notes(facts *f)
{
	f->outcome_tally = json_object();
	f->by_workflow = json_object();
	f->uri_seen = json_object();
	if (!f->outcome_tally || !f->by_workflow || !f->uri_seen)
		return SW_ENOMEM;
	size_t i;
	json_t *n;
	json_array_foreach(f->notes, i, n)
	{
		const char *outcome = sget(n, "outcome"), *cat = sget(n, "category");
		if (outcome)
			tally(f->outcome_tally, outcome);
		if (streq(outcome, "pass"))
			f->pass++;
		else if (streq(outcome, "fail")) {
			f->fail++;
			if (app_fail_category(cat)) {
				f->app_fail++;
				if (!f->first_app_fail)
					f->first_app_fail = n;
			}
			if (streq(cat, "mcp_limitation")) {
				f->blocked++;
				if (!f->first_blocked)
					f->first_blocked = n;
			}
		} else if (streq(outcome, "blocked")) {
			f->blocked_notes++;
			f->blocked++;
			if (!f->first_blocked)
				f->first_blocked = n;
		} else if (streq(outcome, "skipped") || streq(outcome, "not_applicable"))
			f->skipped++;
		if ((streq(outcome, "fail") || streq(outcome, "blocked")) && streq(cat, "mcp_limitation"))
			f->mcp_limited++;

		/* outcomesByWorkflow: the latest outcome of each workflow, evidence of all its notes */
		const char *wf = sget(n, "workflow");
		if (!wf)
			continue;
		json_t *w = json_object_get(f->by_workflow, wf);
		json_t *uris = w ? json_incref(json_object_get(w, "artifactUris")) : json_array();
		json_t *seen = json_object_get(f->uri_seen, wf);
		if (!seen && json_array_size(json_object_get(n, "artifactUris"))) {
			seen = json_object();
			json_object_set_new(f->uri_seen, wf, seen);
		}
		/* a fresh record keeps the key order outcome, category?, reason?, artifactUris */
		json_t *rec = json_object();
		copy_key(rec, n, "outcome");
		if (tget(n, "category"))
			copy_key(rec, n, "category");
		if (tget(n, "reason"))
			copy_key(rec, n, "reason");
		size_t k;
		json_t *u;
		json_array_foreach(json_object_get(n, "artifactUris"), k, u)
		{
			const char *us = json_string_value(u);
			if (us && !json_object_get(seen, us)) {
				json_object_set_new(seen, us, json_true());
				json_array_append_new(uris, json_string(us));
			}
		}
		json_object_set_new(rec, "artifactUris", uris);
		json_object_set_new(f->by_workflow, wf, rec);
	}
	return SW_OK;
}

static void scan_tool_errors(facts *f)
{
	f->tool_by_code = json_object();
	size_t i;
	json_t *e;
	json_array_foreach(f->tool_errors, i, e)
	{
		const char *code = tget(e, "failureCode");
		tally(f->tool_by_code, code ? code : "UNCODED");
		if (is_uncoded(code))
			f->uncoded++;
		else if (is_probing(code))
			f->probing++;
		if (is_degrading(code))
			f->degrading++;
	}
}

static void scan_env(facts *f)
{
	size_t i;
	json_t *e;
	json_array_foreach(f->env, i, e)
	{
		if (contains_any_ci(json_string_value(e), caution_override_tokens))
			f->overrides++;
	}
}

static json_t *executive_summary(facts *f)
{
	json_t *reasons = json_array();
	char *next = NULL;
	bool app_err = f->app_error;
	if (f->native_error || app_err || f->high_raw > 0 || f->app_fail > 0) {
		f->risk = "block";
		if (f->native_error)
			json_array_append_new(reasons, json_string("native crash/ANR detected"));
		if (app_err)
			json_array_append_new(reasons, json_string("app-level error surface (ErrorBoundary/RedBox)"));
		if (f->high_raw > 0)
			json_array_append_new(reasons,
			                      json_sprintf("%lld high-severity finding(s)", (long long)f->high_raw));
		if (f->app_fail > 0)
			json_array_append_new(reasons, json_sprintf("%lld workflow(s) failed", (long long)f->app_fail));
		if (f->first_app_fail) {
			const char *wf = sget(f->first_app_fail, "workflow"), *why = tget(f->first_app_fail, "reason");
			next = why ? sw__asprintf("Fix \"%s\": %s before shipping.", wf ? wf : "", why)
			           : sw__asprintf("Fix \"%s\" before shipping.", wf ? wf : "");
		} else if (f->first_high) {
			const char *d = sget(f->first_high, "detail");
			next = sw__asprintf("Investigate: %s", d ? d : "");
		} else
			next = sw__strdup("Resolve the blocking health issue before shipping.");
	} else if (f->app_degraded || f->blocked > 0 || f->overrides > 0 || f->unchecked > 0) {
		f->risk = "caution";
		if (f->app_degraded)
			json_array_append_new(reasons, json_string("app health degraded (non-fatal warnings/LogBox)"));
		if (f->unchecked > 0)
			json_array_append_new(reasons, json_sprintf("%lld health check(s) could not look at the device",
			                                            (long long)f->unchecked));
		if (f->blocked > 0)
			json_array_append_new(reasons, json_sprintf("%lld workflow(s) blocked by missing preconditions",
			                                            (long long)f->blocked));
		if (f->overrides > 0)
			json_array_append_new(reasons,
			                      json_sprintf("%lld guardrail override(s) used", (long long)f->overrides));
		const char *setup = NULL;
		if (f->first_blocked) {
			setup = tget(f->first_blocked, "recommendedSetup");
			if (!setup)
				setup = tget(f->first_blocked, "missingPrecondition");
		}
		if (setup)
			next = sw__asprintf("Provide setup for \"%s\": %s, then re-run.",
			                    str_or_empty(f->first_blocked, "workflow"), setup);
		else
			next = sw__strdup("Review the cautions below before shipping.");
	} else {
		f->risk = "ship";
		json_array_append_new(reasons, json_string("no blocking findings; native + app healthy"));
		next = sw__strdup("No blocking issues found in simulator/emulator evidence.");
	}
	json_t *es = json_pack("{s:s,s:o,s:s}", "risk", f->risk, "reasons", reasons, "nextAction", next ? next : "");
	free(next);
	return es;
}

static const char *native_health(const facts *f)
{
	return f->native_error ? "error" : "OK";
}

static const char *app_health(const facts *f)
{
	return f->app_error ? "error" : f->app_degraded ? "degraded" : "OK";
}

static json_t *coverage_string(const facts *f)
{
	size_t n = json_array_size(f->notes);
	const json_t *c = json_object_get(f->st, "counters");
	long long actions = json_integer_value(json_object_get(c, "actions"));
	long long shots = json_integer_value(json_object_get(c, "screenshots"));
	if (!n)
		return json_sprintf("No workflow outcomes recorded (%lld action(s), %lld screenshot(s))", actions,
		                    shots);
	return json_sprintf("%zu workflow outcome(s) across %zu workflow(s): %lld passed, %lld failed, %lld blocked, "
	                    "%lld skipped or not applicable (%lld action(s), %lld screenshot(s))",
	                    n, json_object_size(f->by_workflow), (long long)f->pass, (long long)f->fail,
	                    (long long)f->blocked_notes, (long long)f->skipped, actions, shots);
}

static json_t *app_verdict(const facts *f)
{
	if (f->native_error || f->app_error || f->high_raw > 0 || f->app_fail > 0) {
		char *s = sw__asprintf("%lld workflow(s) failed, %lld high-severity finding(s); native %s, app %s",
		                       (long long)f->app_fail, (long long)f->high_raw, native_health(f), app_health(f));
		json_t *v = json_pack("{s:s,s:s}", "status", "BLOCKED", "summary", s ? s : "");
		free(s);
		return v;
	}
	if (f->app_degraded || f->any_medium)
		return json_pack("{s:s,s:s}", "status", "PASS_WITH_WARNING", "summary",
		                 "no failed workflow or high-severity finding, but medium-severity findings were "
		                 "recorded");
	return json_pack("{s:s,s:s}", "status", "PASS", "summary",
	                 "no failed workflow and no high- or medium-severity finding");
}

static json_t *coverage_verdict(const facts *f)
{
	size_t workflows = json_object_size(f->by_workflow);
	json_int_t executed = f->pass + f->fail;
	const char *status, *tail;
	if (!json_array_size(f->notes)) {
		status = "SMOKE_ONLY";
		tail = "no workflow outcome was recorded; only the session's actions and findings count as evidence";
	} else if (!executed && f->blocked_notes > 0) {
		status = "BLOCKED";
		tail = "no workflow could be exercised";
	} else if (f->blocked_notes > 0 || f->skipped > 0) {
		status = "PARTIAL";
		tail = "some workflows were blocked or skipped";
	} else if (workflows < 2) {
		status = "SMOKE_ONLY";
		tail = "a single workflow was exercised";
	} else {
		status = "COVERED";
		tail = "every recorded workflow was exercised";
	}
	char *s = sw__asprintf("%zu workflow(s), %lld exercised (pass/fail), %lld blocked, %lld skipped: %s", workflows,
	                       (long long)executed, (long long)f->blocked_notes, (long long)f->skipped, tail);
	json_t *v = json_pack("{s:s,s:s}", "status", status, "summary", s ? s : tail);
	free(s);
	return v;
}

static json_t *tool_verdict(const facts *f)
{
	const char *status;
	char *summary;
	json_t *by = sort_counts(f->tool_by_code);
	if (f->mcp_limited > 0) {
		status = "BLOCKED";
		summary = sw__asprintf("%lld workflow(s) failed or blocked on a tool limitation (mcp_limitation)",
		                       (long long)f->mcp_limited);
	} else if (f->degrading > 0) {
		status = "DEGRADED";
		summary = sw__asprintf("%lld tool error(s) degraded the run (of %zu recorded)", (long long)f->degrading,
		                       json_array_size(f->tool_errors));
	} else {
		status = "PASS";
		summary = json_array_size(f->tool_errors)
		              ? sw__asprintf("no tool limitation; %zu tool error(s) were probes, refusals or uncoded",
		                             json_array_size(f->tool_errors))
		              : sw__strdup("no tool limitation and no tool error");
	}
	json_t *v = json_pack("{s:s,s:s,s:I,s:o,s:I,s:I,s:I}", "status", status, "summary", summary ? summary : "",
	                      "toolErrorCount", (json_int_t)json_array_size(f->tool_errors), "toolErrorsByCode",
	                      by ? by : json_object(), "degradingCount", f->degrading, "uncodedCount", f->uncoded,
	                      "probingCount", f->probing);
	free(summary);
	return v;
}

static json_t *automation_backend(const facts *f)
{
	const char *kind = sget(f->st, "driverKind");
	const char *mode = sget(f->st, "mode");
	if (!mode)
		mode = "structured";
	bool structured = !strcmp(mode, "structured");
	const char *what = !kind                      ? "no device driver bound yet"
	                   : streq(kind, "adb")       ? "Android device over adb (UI Automator hierarchy)"
	                   : streq(kind, "direct")    ? "Android device over adb (UI Automator hierarchy)"
	                   : streq(kind, "simulator") ? "iOS Simulator (simctl)"
	                   : streq(kind, "wda")       ? "iOS through WebDriverAgent"
	                   : streq(kind, "remote")    ? "remote device"
	                                              : kind;
	char *d = sw__asprintf("%s; %s", what,
	                       structured ? "structured element tree" : "visual fallback (screenshots and OCR)");
	json_t *v = json_pack("{s:s,s:s,s:b,s:s}", "kind", kind ? kind : "none", "mode", mode, "structured", structured,
	                      "description", d ? d : what);
	free(d);
	return v;
}

/* How an action's target was located. NULL for actions without a target. */
static const char *locator_kind(const json_t *a)
{
	const json_t *t = json_object_get(a, "target");
	if (json_is_object(json_object_get(a, "tapAt")))
		return "coordinate";
	if (!json_is_object(t))
		return NULL;
	if (tget(t, "id"))
		return "id";
	const json_t *sel = json_object_get(t, "selector");
	if (json_is_object(sel)) {
		const char *using = sget(sel, "using");
		return streq(using, "accessibility id") ? "accessibility_id" : "native_selector";
	}
	if (tget(t, "ref"))
		return "ref";
	if (tget(t, "text"))
		return "text";
	if (json_object_get(t, "x") || json_object_get(t, "y"))
		return "coordinate";
	return "other";
}

static json_t *automation_readiness(const facts *f)
{
	json_int_t total = 0, durable = 0, native = 0, text = 0, coord = 0;
	json_t *by_kind = json_object();
	size_t i;
	json_t *a;
	json_array_foreach(f->actions, i, a)
	{
		const char *k = locator_kind(a);
		if (!k)
			continue;
		total++;
		tally(by_kind, k);
		if (!strcmp(k, "id") || !strcmp(k, "accessibility_id"))
			durable++;
		else if (!strcmp(k, "native_selector"))
			native++;
		else if (!strcmp(k, "text") || !strcmp(k, "ref"))
			text++;
		else if (!strcmp(k, "coordinate"))
			coord++;
	}
	json_int_t durable_pct = total ? (durable * 100 + total / 2) / total : 0;
	json_int_t nod_pct = total ? ((durable + native) * 100 + total / 2) / total : 0;
	/* score: durable 100, native fallback 70, text/ref 40, coordinate 0 points per action, averaged */
	json_int_t points = durable * 100 + native * 70 + text * 40;
	json_int_t score = total ? (points + total / 2) / total : 0;
	const char *grade = score >= 85 ? "A" : score >= 70 ? "B" : score >= 50 ? "C" : "D";
	json_t *labels = json_array();
	if (!total)
		json_array_append_new(labels, json_string("no_recorded_actions"));
	else {
		if (durable_pct >= 80)
			json_array_append_new(labels, json_string("durable_locators"));
		if (coord > 0)
			json_array_append_new(labels, json_string("coordinate_taps"));
		if (text > 0)
			json_array_append_new(labels, json_string("text_locators"));
	}
	json_t *breakdown = json_pack("{s:I,s:I,s:I,s:I,s:I}", "durable", durable * 100, "nativeFallback", native * 70,
	                              "text", text * 40, "coordinate", (json_int_t)0, "actions", total);
	json_t *coverage =
	    json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "totalActions", total, "durableActions", durable,
	              "nativeFallbackActions", native, "textActions", text, "coordinateActions", coord, "durablePct",
	              durable_pct, "nativeOrDurablePct", nod_pct, "byKind", by_kind);
	/* workflow grades from the latest outcome of each workflow */
	json_t *wgrades = json_array();
	const char *wf;
	json_t *w;
	json_object_foreach(f->by_workflow, wf, w)
	{
		const char *outcome = sget(w, "outcome");
		const char *g = streq(outcome, "pass") ? "A" : streq(outcome, "fail") ? "D" : "C";
		size_t ev = json_array_size(json_object_get(w, "artifactUris"));
		json_t *row = json_pack("{s:s,s:s,s:s,s:s}", "workflow", wf, "grade", g, "outcome",
		                        outcome ? outcome : "", "evidence", ev ? "artifacts attached" : "note only");
		if (streq(outcome, "fail"))
			json_object_set_new(row, "fix",
			                    json_string("Fix the failure, then record the workflow again."));
		else if (!streq(outcome, "pass"))
			json_object_set_new(row, "fix",
			                    json_string("Provide the missing precondition and exercise the workflow."));
		json_array_append_new(wgrades, row);
	}
	json_t *fixes = json_array(), *comments = json_array();
	if (coord > 0)
		json_array_append_new(fixes, json_sprintf("Replace %lld coordinate tap(s) with durable ids (testID, "
		                                          "accessibilityIdentifier, resource-id).",
		                                          (long long)coord));
	if (text > 0)
		json_array_append_new(fixes, json_sprintf("Give the %lld element(s) located by text or snapshot ref a "
		                                          "durable id.",
		                                          (long long)text));
	if (total && (grade[0] == 'C' || grade[0] == 'D'))
		json_array_append_new(
		    comments, json_pack("{s:s,s:o}", "severity", "warning", "body",
		                        json_sprintf("Automation readiness %s (%lld/100): %lld of "
		                                     "%lld action(s) use durable locators.",
		                                     grade, (long long)score, (long long)durable, (long long)total)));
	return json_pack("{s:s,s:I,s:o,s:o,s:o,s:[],s:o,s:[],s:o,s:o}", "grade", grade, "score", score, "labels",
	                 labels, "scoreBreakdown", breakdown, "locatorCoverage", coverage, "locatorCoverageTrend",
	                 "workflowGrades", wgrades, "screenGrades", "topFixes", fixes, "prComments", comments);
}

static json_t *readiness(const facts *f)
{
	json_t *r = json_array();
	if (json_array_size(f->notes) || json_array_size(f->actions) || json_array_size(f->raw_findings))
		json_array_append_new(r, json_string("observed"));
	if (f->pass > 0)
		json_array_append_new(r, json_string("verified"));
	return r;
}

static json_t *qa_level(const facts *f)
{
	bool observed = json_array_size(f->notes) || json_array_size(f->actions) || json_array_size(f->raw_findings);
	const char *level = f->pass > 0 ? "smoke_tested" : observed ? "observed" : "not_observed";
	json_t *achieved = json_array();
	if (observed)
		json_array_append_new(achieved, json_string("observed"));
	if (f->pass > 0)
		json_array_append_new(achieved, json_string("smoke_tested"));
	const char *next = f->pass > 0 ? "automation_candidate" : observed ? "smoke_tested" : "observed";
	const char *req = f->pass > 0
	                      ? "Save the passing workflows as a flow (qa_report format flow) and check it with "
	                        "qa_flow_check."
	                  : observed ? "Record at least one passing workflow with qa_note."
	                             : "Drive the app (qa_snapshot, qa_act) and record outcomes with qa_note.";
	const char *why = f->pass > 0 ? "at least one workflow passed on a device"
	                  : observed  ? "the session drove the app but no workflow passed"
	                              : "nothing was observed in this session";
	return json_pack("{s:s,s:o,s:s,s:s,s:[],s:s,s:[]}", "level", level, "achieved", achieved, "next", next,
	                 "nextRequirement", req, "skipped", "rationale", why, "notes");
}

static json_t *run_test_catalog(const facts *f)
{
	json_t *entries = json_array();
	json_t *counts = json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "pass", 0, "fail", 0, "blocked", 0, "skipped", 0,
	                           "not_applicable", 0, "observed", 0);
	const char *wf;
	json_t *w;
	json_object_foreach(f->by_workflow, wf, w)
	{
		const char *outcome = sget(w, "outcome");
		json_t *e = json_pack("{s:s,s:s,s:s}", "workflow", wf, "outcome", outcome ? outcome : "observed",
		                      "source", "qa_note");
		copy_key(e, w, "category");
		json_array_append_new(entries, e);
		tally(counts, outcome && json_object_get(counts, outcome) ? outcome : "observed");
	}
	return json_pack("{s:o,s:o,s:I}", "entries", entries, "counts", counts, "total",
	                 (json_int_t)json_object_size(f->by_workflow));
}

static json_t *inputs_provided(const facts *f)
{
	json_t *out = json_array();
	size_t i;
	json_t *in;
	json_array_foreach(json_object_get(f->st, "inputs"), i, in)
	{
		json_t *row = json_object();
		set_or_null(row, "varName", json_object_get(in, "varName"));
		json_object_set_new(row, "secret", json_boolean(json_is_true(json_object_get(in, "secret"))));
		set_or_null(row, "source", json_object_get(in, "source"));
		json_array_append_new(out, row);
	}
	return out;
}

static json_t *generated_values(const facts *f)
{
	json_t *out = json_array();
	size_t i;
	json_t *g;
	json_array_foreach(json_object_get(f->st, "generatedValues"), i, g)
	{
		bool secret = json_is_true(json_object_get(g, "secret"));
		json_t *row = json_object();
		static const char *const keys[] = {"at", "fixture", "field", "varName", "generator"};
		for (size_t k = 0; k < SW_ARRAY_SIZE(keys); k++)
			copy_key(row, g, keys[k]);
		if (secret)
			json_object_set_new(row, "value", json_string("<redacted>"));
		else
			copy_key(row, g, "value");
		json_object_set_new(row, "secret", json_boolean(secret));
		copy_key(row, g, "artifactUri");
		json_array_append_new(out, row);
	}
	return out;
}

static json_t *guardrail_overrides(const facts *f)
{
	json_t *out = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(f->env, i, e)
	{
		if (contains_any_ci(json_string_value(e), guardrail_tokens))
			json_array_append(out, e);
	}
	return out;
}

static bool env_mentions(const facts *f, const char *token)
{
	const char *toks[] = {token, NULL};
	size_t i;
	json_t *e;
	json_array_foreach(f->env, i, e)
	{
		if (contains_any_ci(json_string_value(e), toks))
			return true;
	}
	return false;
}

static json_t *destructive_guardrail(const facts *f)
{
	bool refused = false, executed = false;
	size_t i;
	json_t *m;
	json_array_foreach(f->mutations, i, m)
	{
		const char *status = sget(m, "status"), *action = sget(m, "action");
		if (action && strcasestr(action, "bundle") && (streq(status, "refused") || streq(status, "blocked")))
			refused = true;
		if (streq(sget(m, "risk"), "high") && streq(status, "executed"))
			executed = true;
	}
	bool approved = env_mentions(f, "acknowledgeBundleRisk");
	const char *status = refused ? "refused" : approved ? "override_approved" : executed ? "executed" : "clear";
	return json_pack("{s:b,s:b,s:b,s:s}", "bundleRiskRefused", refused, "bundleRiskOverrideApproved", approved,
	                 "destructiveExecuted", executed, "status", status);
}

/* The network state left behind: the last executed or restored network change in the ledger. */
static const char *final_network(const facts *f)
{
	const char *last = NULL;
	size_t i;
	json_t *m;
	json_array_foreach(f->mutations, i, m)
	{
		const char *status = sget(m, "status");
		if (!streq(sget(m, "action"), "network_change") ||
		    !(streq(status, "executed") || streq(status, "restored")))
			continue;
		const char *net = sget(json_object_get(m, "target"), "network");
		if (streq(net, "offline") || streq(net, "online"))
			last = net;
	}
	return last ? last : "unknown";
}

static json_t *network_restore(const facts *f)
{
	const json_t *net = json_object_get(f->st, "network");
	if (!json_is_true(json_object_get(net, "changed")))
		return json_null();
	json_t *orig = json_object_get(net, "originalAirplane");
	json_t *r = json_pack("{s:b,s:b,s:s}", "changed", 1, "restored", json_is_true(json_object_get(net, "restored")),
	                      "original",
	                      json_is_true(orig)    ? "offline"
	                      : json_is_false(orig) ? "online"
	                                            : "unknown");
	copy_key(r, net, "restoredAt");
	copy_key(r, net, "restoreFailed");
	return r;
}

static json_t *active_recording(const facts *f)
{
	size_t i;
	json_t *j;
	json_array_foreach(json_object_get(f->st, "jobs"), i, j)
	{
		if (streq(sget(j, "status"), "running") && sget(j, "kind") && strstr(sget(j, "kind"), "record"))
			return json_pack("{s:O,s:O}", "jobId", json_object_get(j, "jobId"), "startedAt",
			                 json_object_get(j, "startedAt") ? json_object_get(j, "startedAt")
			                                                 : json_null());
	}
	return json_null();
}

static json_t *last_tool_errors(const facts *f)
{
	json_t *out = json_array();
	size_t n = json_array_size(f->tool_errors);
	for (size_t i = n > 50 ? n - 50 : 0; i < n; i++) {
		json_t *e = json_array_get(f->tool_errors, i), *row = json_object();
		copy_key(row, e, "at");
		copy_key(row, e, "tool");
		set_or_null(row, "failureCode", json_object_get(e, "failureCode"));
		const char *msg = sget(e, "message");
		if (msg) {
			size_t len = strlen(msg), cut = sw__utf16_prefix_bytes(msg, len, 500);
			json_object_set_new(row, "message", json_stringn(msg, cut));
		} else
			copy_key(row, e, "message");
		json_array_append_new(out, row);
	}
	return out;
}

/* The notes as test outcome records, `at` first as the reference writes them (the store appends it last). */
static json_t *test_outcomes(const facts *f)
{
	json_t *out = json_array();
	size_t i;
	json_t *n;
	json_array_foreach(f->notes, i, n)
	{
		void *it = json_object_iter(n);
		json_t *at = json_object_get(n, "at");
		if (!at || !it || !strcmp(json_object_iter_key(it), "at")) {
			json_array_append(out, n);
			continue;
		}
		json_t *o = json_object();
		json_object_set(o, "at", at);
		const char *k;
		json_t *v;
		json_object_foreach(n, k, v)
		{
			if (strcmp(k, "at"))
				json_object_set(o, k, v);
		}
		json_array_append_new(out, o);
	}
	return out;
}

static json_t *app_health_findings(const facts *f)
{
	json_t *out = json_array();
	size_t i;
	json_t *x;
	json_array_foreach(f->findings, i, x)
	{
		if (streq(sget(x, "layer"), "app"))
			json_array_append(out, x);
	}
	return out;
}

static json_t *category_tally(const facts *f, json_t **by_category)
{
	json_t *t = json_object(), *bc = json_object();
	size_t i;
	json_t *n;
	json_array_foreach(f->notes, i, n)
	{
		const char *cat = tget(n, "category"), *outcome = sget(n, "outcome");
		if (!cat)
			continue;
		tally(t, cat);
		json_t *row = json_object_get(bc, cat);
		if (!row) {
			row = json_object();
			json_object_set_new(bc, cat, row);
		}
		if (outcome)
			tally(row, outcome);
	}
	*by_category = bc;
	return t;
}

static const char *note_bucket(const json_t *n)
{
	const char *outcome = sget(n, "outcome"), *cat = tget(n, "category");
	if (streq(cat, "mcp_limitation"))
		return "mcp_limitation";
	if (streq(cat, "missing_test_data"))
		return "missing_data";
	if (streq(cat, "destructive_refused"))
		return "unsafe_refused";
	if (streq(cat, "intentionally_skipped"))
		return NULL;
	if (streq(outcome, "fail") && app_fail_category(cat))
		return "app_bug";
	return NULL;
}

static void bucket_example(json_t *examples, const char *bucket, json_t *text)
{
	json_t *list = json_object_get(examples, bucket);
	if (!list) {
		list = json_array();
		json_object_set_new(examples, bucket, list);
	}
	if (json_array_size(list) < 3 && text)
		json_array_append_new(list, text);
	else
		json_decref(text);
}

static json_t *failure_buckets(const facts *f)
{
	static const char *const names[] = {"app_bug", "environment", "missing_data", "mcp_limitation",
	                                    "unsafe_refused"};
	json_t *counts = json_object(), *examples = json_object();
	for (size_t i = 0; i < SW_ARRAY_SIZE(names); i++)
		json_object_set_new(counts, names[i], json_integer(0));
	json_int_t total = 0, classified = 0;
	size_t i;
	json_t *x;
	json_array_foreach(f->notes, i, x)
	{
		const char *outcome = sget(x, "outcome");
		if (!streq(outcome, "fail") && !streq(outcome, "blocked"))
			continue;
		if (streq(sget(x, "category"), "intentionally_skipped"))
			continue;
		total++;
		const char *b = note_bucket(x);
		if (!b)
			continue;
		classified++;
		tally(counts, b);
		const char *why = tget(x, "reason");
		bucket_example(examples, b,
		               why ? json_sprintf("%s: %s", str_or_empty(x, "workflow"), why)
		                   : json_string(str_or_empty(x, "workflow")));
	}
	json_array_foreach(f->findings, i, x)
	{
		total++;
		const char *code = sget(x, "failureCode");
		const sw__catalog_entry *e = code ? sw__catalog_find(code, strlen(code)) : NULL;
		if (!e || streq(code, "UNKNOWN"))
			continue;
		classified++;
		tally(counts, e->bucket);
		bucket_example(examples, e->bucket, json_sprintf("%s: %s", code, str_or_empty(x, "detail")));
	}
	const char *dominant = NULL;
	json_int_t best = 0;
	for (size_t k = 0; k < SW_ARRAY_SIZE(names); k++) {
		json_int_t c = tally_get(counts, names[k]);
		if (c > best) {
			best = c;
			dominant = names[k];
		}
	}
	json_int_t pct = total ? (classified * 100 + total / 2) / total : 100;
	return json_pack("{s:o,s:I,s:I,s:s?,s:o}", "counts", counts, "total", total, "classifiedPct", pct, "dominant",
	                 dominant, "examples", examples);
}

static json_t *visual_verifications(const facts *f)
{
	json_t *out = json_array();
	size_t i;
	json_t *n;
	json_array_foreach(f->notes, i, n)
	{
		const char *method = sget(n, "method");
		if (!json_is_true(json_object_get(n, "verifiedVisually")) && !streq(method, "visual") &&
		    !streq(method, "ocr"))
			continue;
		json_t *row = json_object();
		static const char *const keys[] = {"at",           "workflow",   "outcome",       "method",
		                                   "evidenceKind", "confidence", "minConfidence", "decision",
		                                   "artifactUris"};
		for (size_t k = 0; k < SW_ARRAY_SIZE(keys); k++)
			copy_key(row, n, keys[k]);
		json_array_append_new(out, row);
	}
	return out;
}

static json_t *evidence_taxonomy(const facts *f)
{
	json_t *t = json_object();
	size_t i;
	json_t *n;
	json_array_foreach(f->notes, i, n)
	{
		const char *k = sget(n, "evidenceKind");
		if (!k)
			k = sget(n, "method");
		tally(t, k ? k : "unspecified");
	}
	return t;
}

static json_t *declared_preconditions(const facts *f)
{
	/* fixtures are persisted as metadata only (the store drops values and seeds); copied as they are */
	json_t *fx = json_object_get(f->st, "fixtures");
	return json_is_array(fx) ? json_incref(fx) : json_array();
}

static const char *auth_state(const facts *f)
{
	const json_t *a = json_object_get(f->st, "auth");
	if (json_is_true(json_object_get(a, "loginPerformed")))
		return "logged_in_during_session";
	if (json_is_true(json_object_get(a, "authedAtStart")))
		return "authenticated_at_start";
	if (json_is_true(json_object_get(a, "loginScreenSeen")))
		return "login_screen_seen";
	return "unknown";
}

static json_t *phase_timings(const facts *f, int64_t created)
{
	json_t *total = created > 0 ? json_integer(sw_wall_ms() - created) : json_null();
	const char *first = sget(json_array_get(f->actions, 0), "at");
	if (!first)
		first = sget(json_array_get(f->notes, 0), "at");
	json_t *setup = ms_since(created, first);
	json_t *active = json_is_integer(setup) && json_is_integer(total)
	                     ? json_integer(json_integer_value(total) - json_integer_value(setup))
	                     : json_null();
	json_t *login = ms_since(created, sget(json_object_get(f->st, "auth"), "loginPerformedAt"));
	json_t *diag = json_object();
	static const char *const keys[] = {
	    "simulatorBootMs", "appInstallMs",     "appLaunchMs",      "wdaBuildMs",
	    "wdaStartMs",      "wdaReuseCheckMs",  "wdaStartupWaitMs", "wdaSessionCreateMs",
	    "wdaSourceMs",     "wdaFindElementMs", "wdaTapMs",         "wdaTypeMs",
	    "wdaClearMs",      "wdaScreenshotMs",  "flowRuntimeMs",    "waitMs"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++)
		json_object_set_new(diag, keys[i], json_null());
	copy_key(diag, json_object_get(f->st, "counters"), "screenshots");
	json_t *shots = json_object_get(diag, "screenshots");
	if (shots) {
		json_object_set(diag, "screenshotCount", shots);
		json_object_del(diag, "screenshots");
	}
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "totalMs", total, "setupMs", setup, "activeMs", active,
	                 "timeToLoginMs", login, "diagnostics", diag);
}

static json_t *artifacts(const facts *f)
{
	json_t *out = json_array();
	size_t i;
	json_t *a;
	json_array_foreach(json_object_get(f->st, "artifacts"), i, a)
	{
		json_t *row = json_object();
		copy_key(row, a, "uri");
		copy_key(row, a, "kind");
		copy_key(row, a, "mime");
		if (tget(a, "label"))
			copy_key(row, a, "label");
		json_array_append_new(out, row);
	}
	return out;
}

static const char *emulator_display(const facts *f)
{
	if (json_is_true(json_object_get(f->st, "headless")))
		return "headless";
	/* a device the session booted itself leaves an envChanges line naming the emulator it started */
	if (env_mentions(f, "emulator started") || env_mentions(f, "booted emulator"))
		return "visible window";
	return "pre-existing device";
}

static json_t *pr_summary(const facts *f, const json_t *es)
{
	sw_buf b = {0};
	char risk[16];
	snprintf(risk, sizeof(risk), "%s", f->risk);
	for (char *p = risk; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	sw__buf_printf(&b, "Swipium: %s\n", risk);
	const json_t *reasons = json_object_get(es, "reasons");
	sw__buf_puts(&b, "Reasons: ");
	for (size_t i = 0; i < json_array_size(reasons); i++) {
		if (i)
			sw__buf_puts(&b, "; ");
		sw__buf_puts(&b, json_string_value(json_array_get(reasons, i)));
	}
	sw__buf_printf(&b, "\nNative health: %s. App health: %s.\nNext action: %s", native_health(f), app_health(f),
	               str_or_empty(es, "nextAction"));
	json_t *v = json_pack("{s:s}", "text", sw__buf_cstr(&b));
	sw__buf_free(&b);
	return v;
}

/* ---- public entry point ------------------------------------------------ */

static const sw__opt assemble_opts[] = {
    {"baseline", SW__OPT_STRING, true}, {"trendRoot", SW__OPT_STRING, true}, {NULL}};

/* The checked options of sw_report_assemble() (the one options loader); NULL or "" is none. */
static int parse_options(const char *options_json, json_t **out, sw_error **err)
{
	*out = NULL;
	if (!options_json || !*options_json)
		return SW_OK;
	return sw__options_load(options_json, assemble_opts, "report options", out, err);
}

SW_API int sw_report_assemble(sw_session *s, const char *options_json, char **report_json, sw_error **err)
{
	if (!s || !report_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_report_assemble: bad arguments");
	*report_json = NULL;
	json_t *opts = NULL, *st = NULL, *r = NULL;
	char *state_text = NULL;
	facts f = {0};
	int rc = parse_options(options_json, &opts, err);
	if (rc != SW_OK)
		return rc;
	rc = sw_session_state_json(s, &state_text, err);
	if (rc != SW_OK)
		goto out;
	json_error_t je;
	st = json_loads(state_text, 0, &je);
	if (!json_is_object(st)) {
		rc = sw__error_set(err, SW_EPARSE, "UNKNOWN", NULL, "the session state is not a JSON object: %s",
		                   je.text);
		goto out;
	}
	f.st = st;
	f.notes = json_object_get(st, "notes");
	f.raw_findings = json_object_get(st, "findings");
	f.tool_errors = json_object_get(st, "toolErrors");
	f.env = json_object_get(st, "envChanges");
	f.mutations = json_object_get(st, "mutations");
	f.actions = json_object_get(st, "recordedActions");
	f.findings = dedupe_findings(f.raw_findings);
	if (!f.findings || scan_notes(&f) != SW_OK) {
		rc = sw__error_nomem(err);
		goto out;
	}
	scan_findings(&f);
	scan_tool_errors(&f);
	scan_env(&f);

	r = json_object();
	if (!r) {
		rc = sw__error_nomem(err);
		goto out;
	}
	json_object_set_new(r, "sessionId", json_string(sw_session_id(s)));
	json_t *es = executive_summary(&f);
	json_object_set_new(r, "executiveSummary", es);
	set_or_null(r, "appId", json_object_get(st, "appId"));
	json_t *dev_label = device_label(json_object_get(st, "device"));
	json_object_set_new(r, "device", dev_label ? dev_label : json_null());
	json_object_set_new(r, "coverage", coverage_string(&f));
	json_object_set_new(r, "appVerdict", app_verdict(&f));
	json_object_set_new(r, "coverageVerdict", coverage_verdict(&f));
	json_object_set_new(r, "toolVerdict", tool_verdict(&f));
	json_object_set_new(r, "automationBackend", automation_backend(&f));
	json_object_set_new(r, "readiness", readiness(&f));
	json_object_set_new(r, "automationReadiness", automation_readiness(&f));
	json_object_set_new(r, "qaLevel", qa_level(&f));
	json_object_set_new(r, "runTestCatalog", run_test_catalog(&f));
	json_object_set_new(r, "persistentSuite", json_null());
	const char *mode = sget(st, "mode");
	json_object_set_new(r, "mode", json_string(mode ? mode : "structured"));
	json_object_set_new(r, "emulatorDisplay", json_string(emulator_display(&f)));
	json_object_set_new(r, "environmentChanges",
	                    json_is_array(f.env) ? json_incref((json_t *)f.env) : json_array());
	json_object_set_new(r, "ciMutations", json_is_array(f.env) ? json_incref((json_t *)f.env) : json_array());
	json_object_set_new(r, "mutationLedger",
	                    json_is_array(f.mutations) ? json_incref((json_t *)f.mutations) : json_array());
	json_t *wk = json_object_get(st, "workarounds");
	json_object_set_new(r, "workaroundsAttempted", json_is_array(wk) ? json_incref(wk) : json_array());
	json_object_set_new(r, "inputsProvided", inputs_provided(&f));
	json_object_set_new(r, "redactionDegraded", json_boolean(sw_session_redaction_degraded(s)));
	json_object_set_new(r, "generatedValues", generated_values(&f));
	json_object_set_new(r, "guardrailOverrides", guardrail_overrides(&f));
	json_object_set_new(r, "launchedWithoutMetroReady", json_boolean(env_mentions(&f, "allowLaunchWithoutMetro")));
	json_object_set_new(r, "destructiveGuardrail", destructive_guardrail(&f));
	json_object_set_new(r, "finalNetwork", json_string(final_network(&f)));
	json_object_set_new(r, "networkRestore", network_restore(&f));
	json_object_set_new(r, "activeRecording", active_recording(&f));
	json_object_set(r, "findings", f.findings);
	json_object_set_new(r, "findingOccurrences", json_integer((json_int_t)json_array_size(f.raw_findings)));
	json_object_set_new(r, "toolErrors", last_tool_errors(&f));
	json_object_set_new(r, "highSeverityCount", json_integer(f.high_raw));
	json_object_set_new(r, "nativeHealth", json_string(native_health(&f)));
	json_object_set_new(r, "appHealth", json_string(app_health(&f)));
	json_object_set_new(r, "appHealthFindings", app_health_findings(&f));
	json_object_set_new(r, "testOutcomes", test_outcomes(&f));
	json_object_set(r, "outcomeTally", f.outcome_tally);
	json_t *by_category = NULL;
	json_object_set_new(r, "categoryTally", category_tally(&f, &by_category));
	json_object_set_new(r, "outcomeByCategory", by_category);
	json_object_set(r, "outcomesByWorkflow", f.by_workflow);
	json_object_set_new(r, "failureBuckets", failure_buckets(&f));
	json_object_set_new(r, "visualVerifications", visual_verifications(&f));
	json_object_set_new(r, "evidenceTaxonomy", evidence_taxonomy(&f));
	json_object_set_new(r, "declaredPreconditions", declared_preconditions(&f));
	json_object_set_new(r, "authState", json_string(auth_state(&f)));
	set_or_null(r, "budgetProfile", json_object_get(st, "budgetProfile"));
	json_object_set_new(r, "phaseTimings", phase_timings(&f, sw_session_created_at(s)));
	json_object_set_new(r, "wda", json_null());
	const char *ci = getenv("CI");
	json_object_set_new(r, "ci", json_pack("{s:b}", "env", ci && *ci));
	json_object_set_new(r, "visualOnly", json_boolean(streq(mode, "visual-fallback")));
	json_object_set_new(r, "generatedSuite", json_null());
	set_or_null(r, "exploration", json_object_get(st, "exploration"));
	json_object_set_new(r, "artifacts", artifacts(&f));
	json_t *counters = json_object_get(st, "counters");
	json_object_set_new(r, "counters", json_is_object(counters) ? json_incref(counters) : json_object());
	json_object_set_new(r, "prSummary", pr_summary(&f, es));
	if (opts && (tget(opts, "baseline") || tget(opts, "trendRoot"))) {
		json_t *links = json_object();
		if (tget(opts, "baseline"))
			copy_key(links, opts, "baseline");
		if (tget(opts, "trendRoot"))
			copy_key(links, opts, "trendRoot");
		json_object_set_new(r, "reportLinks", links);
	}
	char *text = sw__json_pretty(r);
	if (!text) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*report_json = text;
	rc = SW_OK;
out:
	json_decref(r);
	json_decref(f.findings);
	json_decref(f.outcome_tally);
	json_decref(f.by_workflow);
	json_decref(f.uri_seen);
	json_decref(f.tool_by_code);
	json_decref(st);
	json_decref(opts);
	sw_free(state_text);
	return rc;
}
