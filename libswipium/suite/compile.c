/* compile.c: qa_flow_compile: a POM suite (.swipium/suites/<suite>) into one checked Flow V2 file per test. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/flow.h>
#include <swipium/suite.h>

#include "suite-internal.h"

#define DEFAULT_SUITE "suites/smoke.yaml"

/* Number or bool scalars where text is wanted read as their text; NULL for anything else. (transfer full) */
static char *as_text(const json_t *v)
{
	if (json_is_string(v))
		return sw__strdup(json_string_value(v));
	if (json_is_integer(v))
		return sw__asprintf("%lld", (long long)json_integer_value(v));
	if (json_is_real(v)) {
		sw_buf b = SW_BUF_INIT;
		sw__buf_js_number(&b, json_real_value(v));
		return sw__buf_steal(&b, NULL);
	}
	if (json_is_boolean(v))
		return sw__strdup(json_is_true(v) ? "true" : "false");
	return NULL;
}

char *sw_suite_slug(const char *name)
{
	sw_buf b = SW_BUF_INIT;
	bool run = false;
	for (const unsigned char *p = (const unsigned char *)(name ? name : ""); *p; p++) {
		if (isalnum(*p) || *p == '_' || *p == '.' || *p == '-') {
			sw__buf_putc(&b, (char)*p);
			run = false;
		} else if (!run) {
			sw__buf_putc(&b, '-');
			run = true;
		}
	}
	sw__buf_putc(&b, '\0'); /* an empty name gives "" */
	return sw__buf_steal(&b, NULL);
}

typedef struct cc {
	const json_t *pages; /* name -> {file, elements} */
	json_t *vars;        /* merged variables */
	json_t *errors;      /* this test's errors */
	const char *test;    /* file shown in messages */
} cc;

static void cerr(cc *c, const char *where, const char *fmt, ...) SW_PRINTF(3, 4);
static void cerr(cc *c, const char *where, const char *fmt, ...)
{
	char *raw = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	char *msg = sw__cap(raw ? raw : "", 600);
	json_array_append_new(c->errors, json_pack("{s:s, s:s, s:s}", "file", c->test, "at", where, "message",
	                                           msg ? msg : ""));
	free(msg);
	free(raw);
}

static bool ident_span(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* "Page.element" (two identifiers, one dot): split, else false. */
static bool is_ref(const char *s, const char **dot)
{
	const char *d = strchr(s, '.');
	if (!d || strchr(d + 1, '.'))
		return false;
	if (!ident_span(s, (size_t)(d - s)) || !ident_span(d + 1, strlen(d + 1)))
		return false;
	*dot = d;
	return true;
}

/*
 * The longest stretch of @s that holds no ${...} reference, trimmed: text a flow could never read as a
 * variable. (transfer full; "" when nothing is left)
 */
static char *without_refs(const char *s)
{
	size_t best_at = 0, best_len = 0, len = strlen(s), start = 0;
	for (size_t i = 0; i <= len; i++) {
		bool cut = i == len || (s[i] == '$' && s[i + 1] == '{');
		if (!cut)
			continue;
		size_t a = start, z = i;
		while (a < z && isspace((unsigned char)s[a]))
			a++;
		while (z > a && isspace((unsigned char)s[z - 1]))
			z--;
		if (z - a > best_len) {
			best_at = a;
			best_len = z - a;
		}
		if (i == len)
			break;
		const char *close = strchr(s + i, '}');
		if (!close)
			break; /* "${" without "}" up to the end: nothing after it is safe */
		start = (size_t)(close - s) + 1;
		i = start - 1;
	}
	return sw__strndup(s + best_at, best_len);
}

/* Resolves a selector position. Sets *@sel (transfer full) or *@coords (new [x, y]); false on error. */
static bool resolve(cc *c, const char *where, const json_t *v, char **sel, json_t **coords, bool *secret)
{
	const json_t *loc = NULL;
	json_t *own = NULL;
	char *page = NULL, *element = NULL;
	bool ok = false;
	if (json_is_object(v) && json_object_get(v, "page")) {
		page = as_text(json_object_get(v, "page"));
		element = as_text(json_object_get(v, "element"));
		if (!page || !element || json_object_size(v) != 2) {
			cerr(c, where, "a reference map is {page: <Page>, element: <element>} and nothing else");
			goto out;
		}
	} else if (json_is_object(v)) {
		const char *why = NULL;
		own = sw__suite_locator_parse(v, &why);
		if (!own) {
			cerr(c, where, "%s", why);
			goto out;
		}
		loc = own;
	} else {
		char *s = as_text(v);
		const char *dot = NULL;
		if (!s || !*s) {
			free(s);
			cerr(c, where, "the step needs a target: a page-object reference <Page>.<element> or a selector");
			goto out;
		}
		if (is_ref(s, &dot)) {
			page = sw__strndup(s, (size_t)(dot - s));
			element = sw__strdup(dot + 1);
			free(s);
		} else {
			*sel = s;
			ok = true;
			goto out;
		}
	}
	if (page) {
		json_t *p = json_object_get(c->pages, page);
		if (!p) {
			char *shown = sw__cap(page, 100);
			cerr(c, where, "unknown page object \"%s\": no file under .swipium/pages has name: %s (to match text of "
			               "that shape, write {text: \"...\"})",
			     shown, shown);
			free(shown);
			goto out;
		}
		loc = json_object_get(json_object_get(p, "elements"), element);
		if (!loc) {
			char *pe = sw__cap(page, 100), *ee = sw__cap(element, 100);
			cerr(c, where, "page %s (%s) has no element \"%s\"", pe,
			     json_string_value(json_object_get(p, "file")), ee);
			free(pe);
			free(ee);
			goto out;
		}
	}
	if (json_is_true(json_object_get(loc, "secret")) && secret)
		*secret = true;
	const char *kind = json_string_value(json_object_get(loc, "kind"));
	if (!strcmp(kind, "coordinates")) {
		*coords = json_pack("[I, I]", json_integer_value(json_object_get(loc, "x")),
		                    json_integer_value(json_object_get(loc, "y")));
		ok = true;
		goto out;
	}
	const char *value = json_string_value(json_object_get(loc, "value"));
	if (!strcmp(kind, "text")) {
		char *t = strstr(value, "${") ? without_refs(value) : sw__strdup(value);
		if (!t || !*t) {
			free(t);
			cerr(c, where, "the element's text is only ${...} references, which a flow would read as variables; "
			               "give the element an id: or accessibilityId:");
			goto out;
		}
		*sel = t;
	} else {
		*sel = sw__suite_locator_selector(loc);
	}
	ok = *sel != NULL;
out:
	json_decref(own);
	free(page);
	free(element);
	return ok;
}

/* One pass of ${NAME} substitution for names in @vars; others stay. (transfer full) */
static char *subst(const json_t *vars, const char *s)
{
	if (!json_object_size(vars) || !strstr(s, "${"))
		return sw__strdup(s);
	sw_buf b = SW_BUF_INIT;
	for (const char *p = s; *p;) {
		const char *close = p[0] == '$' && p[1] == '{' ? strchr(p + 2, '}') : NULL;
		if (close) {
			char *name = sw__strndup(p + 2, (size_t)(close - p - 2));
			const json_t *v = name ? json_object_get(vars, name) : NULL;
			free(name);
			if (v) {
				sw__buf_puts(&b, json_string_value(v));
				p = close + 1;
				continue;
			}
		}
		sw__buf_putc(&b, *p++);
	}
	sw__buf_putc(&b, '\0');
	return sw__buf_steal(&b, NULL);
}

/* Substitutes variables in every string of @v, in place. */
static void subst_all(const json_t *vars, json_t *v)
{
	if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
		{
			if (json_is_string(x)) {
				char *n = subst(vars, json_string_value(x));
				json_array_set_new(v, i, json_string(n ? n : ""));
				free(n);
			} else {
				subst_all(vars, x);
			}
		}
	} else if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x)
		{
			if (json_is_string(x)) {
				char *n = subst(vars, json_string_value(x));
				json_object_set_new(v, k, json_string(n ? n : ""));
				free(n);
			} else {
				subst_all(vars, x);
			}
		}
	}
}

/* Steps whose whole value is a selector. */
static const char *const SELECTOR_STEPS[] = {"tap", "assertVisible", "assertNotVisible", "waitForVisible", "scrollTo"};

static json_t *compile_step(cc *c, const json_t *st, const char *phase, size_t idx)
{
	char where[96];
	snprintf(where, sizeof(where), "%s[%zu]", phase, idx);
	if (json_is_string(st))
		return json_incref((json_t *)st); /* a bare word: the flow checker judges it */
	if (!json_is_object(st) || json_object_size(st) != 1) {
		cerr(c, where, "a step is a bare word or a map with exactly one key (tap:, type:, assertVisible: ...)");
		return NULL;
	}
	const char *kind = NULL;
	json_t *v = NULL;
	json_object_foreach((json_t *)st, kind, v)
		break;
	if (!strcmp(kind, "visualCheck"))
		kind = "assertVisual";
	else if (!strcmp(kind, "assertText"))
		kind = "assertVisible";
	else if (!strcmp(kind, "type"))
		kind = "inputText";
	for (size_t i = 0; i < SW_ARRAY_SIZE(SELECTOR_STEPS); i++) {
		if (strcmp(kind, SELECTOR_STEPS[i]))
			continue;
		if (!strcmp(kind, "waitForVisible") && json_is_object(v) && !json_object_get(v, "page") &&
		    (json_object_get(v, "timeoutMs") || json_object_get(v, "accessibility id")))
			return json_pack("{s:O}", kind, v); /* the flow's own map form */
		char *sel = NULL;
		json_t *coords = NULL;
		if (!resolve(c, where, v, &sel, &coords, NULL))
			return NULL;
		if (coords) {
			if (strcmp(kind, "tap") != 0) {
				json_decref(coords);
				cerr(c, where, "%s cannot use a coordinate-only element (a point cannot be %s); give the element "
				               "an id",
				     kind, !strcmp(kind, "scrollTo") ? "scrolled to" : "asserted");
				return NULL;
			}
			return json_pack("{s:o}", "tapAt", coords);
		}
		json_t *out = json_pack("{s:s}", kind, sel);
		free(sel);
		return out;
	}
	if (!strcmp(kind, "inputText") && json_is_object(v)) {
		json_t *out = json_object();
		const char *k;
		json_t *x;
		bool secret = false;
		json_object_foreach(v, k, x)
		{
			if (!strcmp(k, "into")) {
				char *sel = NULL;
				json_t *coords = NULL;
				if (!resolve(c, where, x, &sel, &coords, &secret)) {
					json_decref(out);
					return NULL;
				}
				if (coords) {
					json_decref(coords);
					json_decref(out);
					cerr(c, where, "type into a coordinate-only element is not possible; give the field an id");
					return NULL;
				}
				json_object_set_new(out, "into", json_string(sel));
				free(sel);
			} else if (!strcmp(k, "text")) {
				char *t = as_text(x);
				json_object_set_new(out, "text", t ? json_string(t) : json_incref(x));
				free(t);
			} else {
				json_object_set(out, k, x);
			}
		}
		if (secret && !json_object_get(out, "secret"))
			json_object_set_new(out, "secret", json_true());
		return json_pack("{s:o}", "inputText", out);
	}
	if (!strcmp(kind, "wait") && json_is_object(v) && json_object_get(v, "text")) {
		json_t *out = json_deep_copy(v);
		char *sel = NULL;
		json_t *coords = NULL;
		if (!resolve(c, where, json_object_get(v, "text"), &sel, &coords, NULL)) {
			json_decref(out);
			return NULL;
		}
		if (coords) {
			json_decref(coords);
			json_decref(out);
			cerr(c, where, "wait for a coordinate-only element is not possible; give the element an id");
			return NULL;
		}
		json_object_set_new(out, "text", json_string(sel));
		free(sel);
		return json_pack("{s:o}", kind, out);
	}
	/* Every other step goes through unchanged; numbers in text positions become text. */
	if (json_is_integer(v) || json_is_real(v)) {
		if (!strcmp(kind, "assertVisual") || !strcmp(kind, "note") || !strcmp(kind, "screenshot") ||
		    !strcmp(kind, "openUrl") || !strcmp(kind, "seed") || !strcmp(kind, "inputText")) {
			char *t = as_text(v);
			json_t *out = json_pack("{s:s}", kind, t ? t : "");
			free(t);
			return out;
		}
	}
	return json_pack("{s:O}", kind, v);
}

static json_t *compile_steps(cc *c, const json_t *list, const char *phase, bool required)
{
	json_t *out = json_array();
	if (list == NULL || json_is_null(list)) {
		if (required)
			cerr(c, phase, "the test needs `steps:`, a list with at least one step");
		return out;
	}
	if (!json_is_array(list) || (required && json_array_size(list) == 0)) {
		cerr(c, phase, "`%s:` must be a list of steps%s", phase, required ? " with at least one step" : "");
		return out;
	}
	size_t i;
	json_t *st;
	json_array_foreach(list, i, st)
	{
		json_t *o = compile_step(c, st, phase, i);
		if (o) {
			subst_all(c->vars, o);
			json_array_append_new(out, o);
		}
	}
	return out;
}

/* Merges a `variables:` map into @into (text values only). */
static void merge_vars(json_t *into, const json_t *vars, cc *c, const char *where)
{
	if (!vars || json_is_null(vars))
		return;
	if (!json_is_object(vars)) {
		cerr(c, where, "`variables:` must be a map of NAME: text");
		return;
	}
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)vars, k, v)
	{
		char *t = as_text(v);
		if (!t) {
			cerr(c, where, "variable %s must be text", k);
			continue;
		}
		json_object_set_new(into, k, json_string(t));
		free(t);
	}
}

static void collect_vars(const json_t *v, json_t *names)
{
	if (json_is_string(v)) {
		for (const char *p = json_string_value(v); (p = strstr(p, "${"));) {
			const char *close = strchr(p + 2, '}');
			if (!close)
				break;
			char *n = sw__strndup(p + 2, (size_t)(close - p - 2));
			if (n && *n) {
				bool seen = false;
				size_t i;
				json_t *x;
				json_array_foreach(names, i, x) seen |= !strcmp(json_string_value(x), n);
				if (!seen)
					json_array_append_new(names, json_string(n));
			}
			free(n);
			p = close + 1;
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x) collect_vars(x, names);
	} else if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)v, k, x) collect_vars(x, names);
	}
}

/* The path (relative to the project root) of a suite-relative name. (transfer full) */
static char *under_swipium(const char *rel)
{
	return rel[0] == '/' ? sw__strdup(rel) : sw__asprintf(".swipium/%s", rel);
}

static int refuse_outside(const char *what, const char *rel, sw_error **err)
{
	char *shown = sw__cap(rel, 200);
	int rc = sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
	                       "Suites and tests are repository content: keep their paths inside the project (no ../, "
	                       "no link that points outside).",
	                       "%s %s resolves outside the project root after following links; nothing was read or written",
	                       what, shown ? shown : "");
	free(shown);
	return rc;
}

/* Confines @rel; SW_EDENIED becomes the refusal, a missing file SW_ENOTFOUND. */
static int confine_input(const char *root, const char *what, const char *rel, sw_error **err)
{
	char *path = under_swipium(rel), *real = NULL;
	sw_error *e = NULL;
	int rc = path ? sw__confine(root, path, 0, &real, &e) : SW_ENOMEM;
	free(path);
	free(real);
	sw_error_free(e);
	if (rc == SW_EDENIED)
		return refuse_outside(what, rel, err);
	if (rc < 0)
		return rc == SW_ENOMEM ? sw__error_nomem(err) : sw__error_set(err, rc, NULL, NULL, "%s %s: cannot resolve", what, rel);
	return SW_OK;
}

static const sw__opt COMPILE_OPTS[] = {{"suite", SW__OPT_STRING, true}, {NULL, 0, false}};

SW_API int sw_suite_compile(const char *project_root, const char *request_json, char **result_json, sw_error **err)
{
	if (!project_root || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_suite_compile: root and result are required");
	json_t *req = NULL, *suite = NULL, *pages = json_object(), *items = json_array(), *tests = json_array();
	json_t *flows = json_array(), *slugs = json_object(), *suite_vars = json_object();
	char *text = NULL;
	size_t len = 0;
	int rc = sw__options_load(request_json, COMPILE_OPTS, "qa_flow_compile", &req, err);
	if (rc < 0)
		goto out;
	const char *suite_rel = json_string_value(json_object_get(req, "suite"));
	if (!suite_rel || !*suite_rel)
		suite_rel = DEFAULT_SUITE;
	char *suite_path = under_swipium(suite_rel);
	if (!suite_path) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if ((rc = confine_input(project_root, "suite", suite_rel, err)) < 0) {
		free(suite_path);
		goto out;
	}
	sw_error *e = NULL;
	rc = sw__suite_read_confined(project_root, suite_path, SW_SUITE_YAML_MAX_BYTES, &text, &len, NULL, &e);
	if (rc == SW_ENOTFOUND) {
		sw_error_free(e);
		char *shown = sw__cap(suite_path, 200);
		rc = sw__error_set(err, SW_ENOTFOUND, "FLOW_NOT_FOUND",
		                   "Write the suite (docs/page-objects.md), or generate one with qa_generate {target:\"suite\"}.",
		                   "no suite file at %s (checked %s)", suite_rel, shown ? shown : "");
		free(shown);
		free(suite_path);
		goto out;
	}
	if (rc < 0) {
		sw__error_propagate(err, e);
		free(suite_path);
		goto out;
	}
	rc = sw__suite_yaml_load(text, len, suite_path, "INVALID_FLOW", &suite, err);
	free(suite_path);
	if (rc < 0)
		goto out;
	json_t *entries = json_object_get(suite, "tests");
	if (!json_is_array(entries) || json_array_size(entries) == 0) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_FLOW",
		                   "List the tests: `tests: [tests/login.yaml]` (paths relative to .swipium/).",
		                   "suite %s has no `tests:` list", suite_rel);
		goto out;
	}
	size_t i;
	json_t *en;
	json_array_foreach(entries, i, en)
	{
		const json_t *p = json_is_object(en) ? json_object_get(en, "path") : en;
		if (!json_is_string(p) || !*json_string_value(p)) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_FLOW", "Each entry is a path string or {path: ...}.",
			                   "suite %s: tests[%zu] is not a path", suite_rel, i);
			goto out;
		}
		if ((rc = confine_input(project_root, "test", json_string_value(p), err)) < 0)
			goto out;
		json_array_append(tests, (json_t *)p);
	}
	json_t *page_files = json_object_get(suite, "pages");
	if (page_files && !json_is_null(page_files) && !json_is_array(page_files)) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_FLOW", NULL, "suite %s: `pages:` must be a list of paths",
		                   suite_rel);
		goto out;
	}
	if ((rc = sw__suite_pages_load(project_root, json_is_array(page_files) ? page_files : NULL, true, pages, items,
	                               NULL, err)) < 0)
		goto out;

	cc sc = {.pages = pages, .vars = suite_vars, .errors = json_array(), .test = suite_rel};
	merge_vars(suite_vars, json_object_get(suite, "variables"), &sc, "variables");
	const char *sk;
	json_t *sv;
	json_object_foreach(suite, sk, sv)
	{
		static const char *const known[] = {"name", "description", "appId", "variables", "pages", "tests"};
		bool ok = false;
		for (size_t j = 0; j < SW_ARRAY_SIZE(known); j++)
			ok |= !strcmp(sk, known[j]);
		if (!ok)
			cerr(&sc, sk, "unknown key \"%s\" in a suite (allowed: name, description, appId, variables, pages, tests)",
			     sk);
	}
	char *suite_app = as_text(json_object_get(suite, "appId"));
	size_t ok_count = 0;
	json_array_foreach(tests, i, en)
	{
		const char *trel = json_string_value(en);
		char *tpath = under_swipium(trel), *ttext = NULL;
		size_t tlen = 0;
		json_t *test = NULL, *vars = json_deep_copy(suite_vars);
		cc c = {.pages = pages, .vars = vars, .errors = json_array(), .test = trel};
		json_t *entry = json_pack("{s:s}", "test", trel);
		sw_error *te = NULL;
		if (sw__suite_read_confined(project_root, tpath, SW_SUITE_YAML_MAX_BYTES, &ttext, &tlen, NULL, &te) != SW_OK ||
		    sw__suite_yaml_load(ttext, tlen, tpath, "INVALID_FLOW", &test, &te) != SW_OK) {
			cerr(&c, "file", "%s", te ? sw_error_message(te) : "cannot read the test");
			goto done;
		}
		char *name = as_text(json_object_get(test, "name"));
		if (!name || !*name) {
			free(name);
			cerr(&c, "name", "the test needs a non-empty `name:` (the flow's name)");
			goto done;
		}
		char *slug = sw_suite_slug(name);
		json_object_set_new(entry, "name", json_string(name));
		json_object_set_new(entry, "slug", json_string(slug ? slug : ""));
		merge_vars(vars, json_object_get(test, "variables"), &c, "variables");
		json_t *flow = json_pack("{s:s}", "name", name);
		char *app = as_text(json_object_get(test, "appId"));
		if (app || suite_app)
			json_object_set_new(flow, "appId", json_string(app ? app : suite_app));
		free(app);
		json_object_set_new(flow, "setup", compile_steps(&c, json_object_get(test, "setup"), "setup", false));
		json_object_set_new(flow, "steps", compile_steps(&c, json_object_get(test, "steps"), "steps", true));
		json_object_set_new(flow, "teardown", compile_steps(&c, json_object_get(test, "teardown"), "teardown", false));
		const char *k;
		json_t *x;
		json_object_foreach(test, k, x)
		{
			static const char *const known[] = {"name", "description", "appId", "variables", "setup", "steps",
			                                    "teardown", "tags"};
			bool ok = false;
			for (size_t j = 0; j < SW_ARRAY_SIZE(known); j++)
				ok |= !strcmp(k, known[j]);
			if (!ok)
				cerr(&c, k, "unknown key \"%s\" in a test (allowed: name, description, appId, variables, setup, "
				            "steps, teardown, tags)",
				     k);
		}
		if (slug && json_object_get(slugs, slug))
			cerr(&c, "name", "another test of this suite (%s) compiles to the same file flows/%s.yaml; rename one",
			     json_string_value(json_object_get(slugs, slug)), slug);
		else if (slug)
			json_object_set_new(slugs, slug, json_string(trel));
		json_t *names = json_array();
		collect_vars(flow, names);
		json_object_set_new(entry, "variables", names);
		if (json_array_size(c.errors) == 0 && slug && *slug) {
			sw_buf b = SW_BUF_INIT;
			sw__suite_flow_yaml(&b, flow);
			size_t ylen = 0;
			char *yaml = sw__buf_steal(&b, &ylen);
			json_t *copts = json_pack("{s:s, s:s}", "root", project_root, "flowYaml", yaml ? yaml : "");
			char *copts_text = copts ? json_dumps(copts, JSON_COMPACT) : NULL;
			char *check = NULL;
			sw_error *ce = NULL;
			json_decref(copts);
			if (!copts_text || sw_flow_check(copts_text, &check, &ce) != SW_OK) {
				cerr(&c, "flow", "the compiled flow does not pass the flow checker: %s",
				     ce ? sw_error_message(ce) : "out of memory");
			} else {
				json_t *cr = json_loads(check, 0, NULL);
				json_t *cerrs = json_object_get(cr, "errors");
				json_t *ew;
				size_t j;
				json_array_foreach(cerrs, j, ew)
					cerr(&c, "flow", "flow check: %s", json_string_value(json_object_get(ew, "message")));
				json_object_set(entry, "warnings", json_object_get(cr, "warnings") ? json_object_get(cr, "warnings")
				                                                                   : json_array());
				json_object_set_new(entry, "valid", json_boolean(json_is_true(json_object_get(cr, "valid"))));
				json_decref(cr);
			}
			sw_free(check);
			sw_error_free(ce);
			free(copts_text);
			if (json_array_size(c.errors) == 0) {
				char *fp = sw__asprintf(".swipium/flows/%s.yaml", slug);
				char *cp = sw__asprintf(".swipium/compiled/%s.flow.yaml", slug);
				sw_error *we = NULL;
				if (!fp || !cp ||
				    sw_project_write_file(project_root, fp, yaml, ylen, SW_WRITE_MKDIRS | SW_WRITE_SHARED, &we) != SW_OK ||
				    sw_project_write_file(project_root, cp, yaml, ylen, SW_WRITE_MKDIRS | SW_WRITE_SHARED, &we) != SW_OK) {
					cerr(&c, "write", "could not write the flow: %s", we ? sw_error_message(we) : "out of memory");
				} else {
					json_object_set_new(entry, "flowPath", json_string(fp));
					json_object_set_new(entry, "compiledPath", json_string(cp));
					json_object_set_new(entry, "stepCount",
					                    json_integer((json_int_t)json_array_size(json_object_get(flow, "steps"))));
				}
				sw_error_free(we);
				free(fp);
				free(cp);
			}
			free(yaml);
		} else if (slug && !*slug) {
			cerr(&c, "name", "the test name gives an empty file name");
		}
		json_decref(flow);
		free(slug);
		free(name);
	done:
		json_object_set_new(entry, "ok", json_boolean(json_array_size(c.errors) == 0));
		json_object_set_new(entry, "errors", c.errors);
		if (json_array_size(c.errors) == 0)
			ok_count++;
		json_array_append_new(flows, entry);
		sw_error_free(te);
		json_decref(test);
		json_decref(vars);
		free(ttext);
		free(tpath);
	}
	free(suite_app);
	size_t page_errors = 0;
	json_array_foreach(items, i, en) page_errors += !strcmp(json_string_value(json_object_get(en, "level")), "error");
	char *sname = as_text(json_object_get(suite, "name"));
	bool all_ok = ok_count == json_array_size(tests) && ok_count > 0 && json_array_size(sc.errors) == 0;
	json_t *res = json_pack("{s:b, s:s, s:s, s:s?, s:I, s:I, s:I, s:o, s:O, s:o}", "ok", all_ok, "projectRoot", project_root, "suite",
	                        suite_rel, "suiteName", sname, "tests", (json_int_t)json_array_size(tests), "compiled",
	                        (json_int_t)ok_count, "failed", (json_int_t)(json_array_size(tests) - ok_count), "flows",
	                        flows, "pageIssues", items, "suiteErrors", sc.errors);
	free(sname);
	flows = NULL;
	json_object_set_new(res, "pageErrorCount", json_integer((json_int_t)page_errors));
	*result_json = sw__json_pretty(res);
	json_decref(res);
	rc = *result_json ? SW_OK : sw__error_nomem(err);
out:
	json_decref(req);
	json_decref(suite);
	json_decref(pages);
	json_decref(items);
	json_decref(tests);
	json_decref(flows);
	json_decref(slugs);
	json_decref(suite_vars);
	free(text);
	return rc;
}
