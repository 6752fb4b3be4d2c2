/* lint.c: qa_suite_lint (the cases and the page objects) and `swipium suite lint` (the page objects). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/suite.h>

#include "suite-internal.h"

#define ITEMS_CAP 200

typedef struct lint {
	json_t *errors, *warnings;
	size_t n_errors, n_warnings;
	/* while reading: the errors other than DUPLICATE_ID (the first ITEMS_CAP, with their case), merged with the
	 * DUPLICATE_ID ones once every id is counted */
	json_t *other;
	size_t *other_at, n_other, cur;
	const char **case_id; /* per case: its id (in @ids) or NULL */
	size_t n, cap;
	sw__sindex ids; /* id -> how many cases use it */
	const char *th;
	const json_t *live;
} lint;

static void add(lint *l, bool error, const char *code, const char *id, const char *fmt, ...) SW_PRINTF(5, 6);
static void add(lint *l, bool error, const char *code, const char *id, const char *fmt, ...)
{
	size_t *n = error ? l->other ? &l->n_other : &l->n_errors : &l->n_warnings;
	if ((*n)++ >= ITEMS_CAP)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *msg = sw__suite_vmsg(500, fmt, ap);
	va_end(ap);
	json_t *it = json_pack("{s:s, s:s}", "code", code, "message", msg ? msg : "");
	if (id)
		json_object_set_new(it, "caseId", json_string(id));
	if (error && l->other) {
		l->other_at[*n - 1] = l->cur;
		json_array_append_new(l->other, it);
	} else {
		json_array_append_new(error ? l->errors : l->warnings, it);
	}
	free(msg);
}

static bool has_text(const json_t *c, const char *key)
{
	const char *s = json_string_value(json_object_get(c, key));
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return true;
	return false;
}

static bool tagged(const json_t *c, const char *tag)
{
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(c, "tags"), i, t) if (json_is_string(t) && !strcmp(json_string_value(t), tag))
	    return true;
	return false;
}

/* The checks of one case, while the file is read (@i == SIZE_MAX: start again). */
static int lint_case(void *ud, size_t i, const json_t *c, sw_error **err)
{
	lint *l = ud;
	if (!c) {
		json_array_clear(l->other);
		json_array_clear(l->warnings);
		l->n_other = l->n_warnings = l->n = 0;
		sw__sindex_free(&l->ids);
		sw__sindex_init(&l->ids);
		return SW_OK;
	}
	if (i >= l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		const char **ci = realloc(l->case_id, cap * sizeof(*ci));
		if (!ci)
			return sw__error_nomem(err);
		l->case_id = ci;
		l->cap = cap;
	}
	l->cur = i;
	l->n = i + 1;
	l->case_id[i] = NULL;
	const char *cid = json_string_value(json_object_get(c, "id"));
	if (cid) {
		long *n = sw__sindex_put_key(&l->ids, cid, 0, NULL, &l->case_id[i]);
		if (!n)
			return sw__error_nomem(err);
		(*n)++;
	}
	const char *id = json_string_value(json_object_get(c, "id"));
	const char *status = json_string_value(json_object_get(c, "status"));
	const char *res = json_string_value(json_object_get(c, "lastResult"));
	char idx[32];
	snprintf(idx, sizeof(idx), "cases[%zu]", i);
	const char *who = id ? id : idx;
	if (!id)
		add(l, true, "MISSING_ID", NULL, "%s has no id; give it one (TC-<FEATURE>-NNN) or let qa_suite_update add it",
		    idx);
	/* DUPLICATE_ID comes here too, once every id is counted (merge_duplicates) */
	if (status && !strcmp(status, "deprecated"))
		return SW_OK;
	if (!has_text(c, "expected"))
		add(l, true, "MISSING_EXPECTED_RESULT", who, "%s has no expected result; say what must be true after the "
		                                              "steps",
		    who);
	if (res && (!strcmp(res, "passed") || !strcmp(res, "failed") || !strcmp(res, "blocked")) &&
	    !has_text(c, "actual"))
		add(l, false, "MISSING_ACTUAL_RESULT", who, "%s was run (%s) but records no actual result", who, res);
	const json_t *links = json_object_get(c, "links");
	const char *fid = json_string_value(json_object_get(links, "featureId"));
	if (!fid)
		fid = json_string_value(json_object_get(c, "feature"));
	if (!fid || !*fid)
		add(l, false, "UNLINKED_CASE", who, "%s is linked to no feature; set feature (an app-map feature id)", who);
	else if (l->live && !json_object_get(l->live, fid))
		add(l, false, "STALE_LINK", who, "%s links feature \"%s\", which is not among the live features", who, fid);
	const json_t *a = json_object_get(c, "automation");
	const char *grade = json_string_value(json_object_get(a, "locatorGrade"));
	if (grade && ((!strcmp(l->th, "C") && (!strcmp(grade, "C") || !strcmp(grade, "D"))) ||
	              (!strcmp(l->th, "D") && !strcmp(grade, "D"))))
		add(l, false, "BRITTLE_AUTOMATION", who,
		    "%s is automated with locator grade %s (threshold %s): its flow relies on text or coordinates; add "
		    "durable ids to the app",
		    who, grade, l->th);
	const char *type = json_string_value(json_object_get(c, "type"));
	bool adversarial = (type && !strcmp(type, "adversarial")) || tagged(c, "adversarial");
	const json_t *safety = json_object_get(c, "safety");
	if (adversarial && (!json_is_object(safety) || json_object_size(safety) == 0))
		add(l, true, "ADVERSARIAL_WITHOUT_SAFETY", who,
		    "%s is adversarial but has no safety metadata (data policy, destructive, disposable account); add "
		    "safety before anyone runs it",
		    who);
	return SW_OK;
}

/* The errors in case order: each case's DUPLICATE_ID (when its id is shared) before its other errors. */
static void merge_duplicates(lint *l)
{
	json_t *other = l->other;
	l->other = NULL; /* add() files DUPLICATE_ID among the errors now */
	size_t o = 0, n_other_kept = json_array_size(other);
	for (size_t i = 0; i < l->n; i++) {
		long n = 0;
		if (l->case_id[i] && sw__sindex_get(&l->ids, l->case_id[i], &n) && n > 1) {
			char idx[32];
			snprintf(idx, sizeof(idx), "cases[%zu]", i);
			add(l, true, "DUPLICATE_ID", l->case_id[i], "%s is used by %lld cases (%s is one); give each its own id",
			    l->case_id[i], (long long)n, idx);
		}
		for (; o < n_other_kept && l->other_at[o] == i; o++) {
			if (l->n_errors++ < ITEMS_CAP)
				json_array_append(l->errors, json_array_get(other, o));
		}
	}
	l->n_errors += l->n_other - o; /* the other errors past the ones kept were counted only */
	l->other = other;
}

static const sw__opt LINT_OPTS[] = {{"brittleThreshold", SW__OPT_STRING, true},
                                    {"liveFeatureIds", SW__OPT_STRING_ARRAY, true},
                                    {"sessionId", SW__OPT_STRING, true},
                                    {NULL, 0, false}};

SW_API int sw_suite_lint(const char *project_root, const char *request_json, char **result_json, sw_error **err)
{
	if (!project_root || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_suite_lint: root and result are required");
	json_t *req = NULL, *live = NULL, *pages = json_object(), *items = json_array();
	lint l = {.errors = json_array(), .warnings = json_array(), .other = json_array(),
	          .other_at = malloc(ITEMS_CAP * sizeof(size_t))};
	sw__suite_file d = {.lock_fd = -1};
	sw__sindex_init(&l.ids);
	int rc = sw__options_load(request_json, LINT_OPTS, "qa_suite_lint", &req, err);
	if (rc < 0)
		goto out;
	const char *th = json_string_value(json_object_get(req, "brittleThreshold"));
	if (!th)
		th = "C";
	if (strcmp(th, "C") && strcmp(th, "D")) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "brittleThreshold must be C or D");
		goto out;
	}
	const json_t *live_ids = json_object_get(req, "liveFeatureIds");
	if (live_ids) {
		live = json_object();
		size_t i;
		json_t *x;
		json_array_foreach(live_ids, i, x) json_object_set_new(live, json_string_value(x), json_true());
	}
	/* one pass, a case at a time while the file is read; the duplicate ids once all are counted: linear */
	if (!l.errors || !l.warnings || !l.other || !l.other_at) {
		rc = sw__error_nomem(err);
		goto out;
	}
	l.th = th;
	l.live = live;
	if ((rc = sw__suite_file_open(project_root, false, false, &d, NULL, lint_case, &l, err)) < 0)
		goto out;
	merge_duplicates(&l);
	size_t i;
	bool found = false;
	if ((rc = sw__suite_pages_load(project_root, NULL, false, pages, items, &found, err)) < 0)
		goto out;
	json_t *it;
	json_array_foreach(items, i, it)
	{
		bool e = !strcmp(json_string_value(json_object_get(it, "level")), "error");
		size_t *n = e ? &l.n_errors : &l.n_warnings;
		if ((*n)++ < ITEMS_CAP)
			json_array_append(e ? l.errors : l.warnings, it);
	}
	json_t *res = json_pack("{s:b, s:o, s:o, s:{s:I, s:I, s:I}, s:s, s:b}", "ok", l.n_errors == 0, "errors", l.errors,
	                        "warnings", l.warnings, "counts", "cases", (json_int_t)d.n, "errors",
	                        (json_int_t)l.n_errors, "warnings", (json_int_t)l.n_warnings, "brittleThreshold", th,
	                        "suiteExists", d.existed);
	l.errors = l.warnings = NULL;
	json_object_set_new(res, "pages", json_pack("{s:b, s:I}", "found", found, "count", (json_int_t)json_object_size(pages)));
	if (l.n_errors > ITEMS_CAP || l.n_warnings > ITEMS_CAP)
		json_object_set_new(res, "omitted",
		                    json_pack("{s:I, s:I, s:s}", "errors",
		                              (json_int_t)(l.n_errors > ITEMS_CAP ? l.n_errors - ITEMS_CAP : 0), "warnings",
		                              (json_int_t)(l.n_warnings > ITEMS_CAP ? l.n_warnings - ITEMS_CAP : 0), "reason",
		                              "at most 200 errors and 200 warnings are listed; counts has them all"));
	*result_json = sw__json_pretty(res);
	json_decref(res);
	rc = *result_json ? SW_OK : sw__error_nomem(err);
out:
	sw__suite_file_close(&d);
	sw__sindex_free(&l.ids);
	json_decref(l.other);
	free(l.other_at);
	free(l.case_id);
	json_decref(req);
	json_decref(live);
	json_decref(pages);
	json_decref(items);
	json_decref(l.errors);
	json_decref(l.warnings);
	return rc;
}

SW_API int sw_suite_pages_lint(const char *project_root, char **result_json, sw_error **err)
{
	if (!project_root || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_suite_pages_lint: root and result are required");
	json_t *pages = json_object(), *items = json_array();
	bool found = false;
	int rc = sw__suite_pages_load(project_root, NULL, false, pages, items, &found, err);
	if (rc == SW_OK) {
		size_t i, ne = 0, nw = 0;
		json_t *it;
		json_array_foreach(items, i, it)
		{
			if (!strcmp(json_string_value(json_object_get(it, "level")), "error"))
				ne++;
			else
				nw++;
		}
		json_t *res = json_pack("{s:b, s:I, s:O, s:I, s:I}", "pagesFound", found, "pages",
		                        (json_int_t)json_object_size(pages), "items", items, "errors", (json_int_t)ne,
		                        "warnings", (json_int_t)nw);
		*result_json = sw__json_pretty(res);
		json_decref(res);
		rc = *result_json ? SW_OK : sw__error_nomem(err);
	}
	json_decref(pages);
	json_decref(items);
	return rc;
}

SW_API const char *sw_suite_init_guide(void)
{
	return "A POM suite in six steps (formats: docs/page-objects.md):\n"
	       "1. Record a run: drive the app with qa_act (or qa_smoke / qa_explore) in a session.\n"
	       "2. Generate the files: qa_generate {target:\"suite\"} writes .swipium/pages/, .swipium/tests/ and\n"
	       "   .swipium/suites/smoke.yaml (or write them by hand).\n"
	       "3. Name what the tests touch: one page object per screen in .swipium/pages/<page>.yaml, each element\n"
	       "   found by id: or accessibilityId: where the app has one.\n"
	       "4. Audit the locators: swipium suite lint [projectRoot] (exit 1 on coordinate-only or broken pages).\n"
	       "5. Compile: swipium suite compile [projectRoot] [--suite suites/smoke.yaml] writes .swipium/flows/\n"
	       "   and .swipium/compiled/, each flow checked like qa_flow_check.\n"
	       "6. Replay in CI: swipium run <flow>, then swipium report --format junit --latest.\n";
}
