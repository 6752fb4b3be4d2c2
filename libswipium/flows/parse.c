/* parse.c: Flow V2 YAML parsing with libyaml's event API, strict limits and line:column diagnostics. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "flow-internal.h"

/* ---- a small YAML tree with positions ------------------------------------ */

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

typedef struct ynode {
	enum ykind kind;
	char *val;  /* scalar text */
	bool plain; /* unquoted scalar: may be a number, bool or null */
	int line, col;
	struct ynode **kids; /* seq items; map: key, value, key, value ... */
	size_t n, cap;
} ynode;

static void ynode_free(ynode *y)
{
	if (!y)
		return;
	for (size_t i = 0; i < y->n; i++)
		ynode_free(y->kids[i]);
	free(y->kids);
	free(y->val);
	free(y);
}

typedef struct yparse {
	yaml_parser_t p;
	const char *path;
	size_t nodes;
	sw_error **err;
} yparse;

static int perr(yparse *yp, int line, int col, const char *fmt, ...) SW_PRINTF(4, 5);
static int perr(yparse *yp, int line, int col, const char *fmt, ...)
{
	char *raw = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	char *msg = sw__cap(raw ? raw : "", 500);
	free(raw);
	int rc = sw__error_set(yp->err, SW_EINVAL, "INVALID_FLOW",
	                       "Fix the flow file and run qa_flow_check (or `swipium run`) again.", "%s%s%d:%d: %s",
	                       yp->path ? yp->path : "", yp->path ? ":" : "", line, col, msg ? msg : "");
	/* where it is, machine-readable (the error envelope carries line and column) */
	if (yp->err && *yp->err && !sw__error_details(*yp->err))
		sw__error_take_details(*yp->err, json_pack("{si,si}", "line", line, "column", col));
	free(msg);
	return rc;
}

static int next_event(yparse *yp, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&yp->p, ev)) {
		const char *problem = yp->p.problem ? yp->p.problem : "invalid YAML";
		return perr(yp, (int)yp->p.problem_mark.line + 1, (int)yp->p.problem_mark.column + 1,
		            "YAML syntax error: %s%s%s", problem, yp->p.context ? " " : "",
		            yp->p.context ? yp->p.context : "");
	}
	return SW_OK;
}

static int add_kid(ynode *y, ynode *k)
{
	if (y->n == y->cap) {
		size_t nc = y->cap ? y->cap * 2 : 8;
		ynode **nk = realloc(y->kids, nc * sizeof(*nk));
		if (!nk)
			return SW_ENOMEM;
		y->kids = nk;
		y->cap = nc;
	}
	y->kids[y->n++] = k;
	return SW_OK;
}

static int build(yparse *yp, yaml_event_t *ev, int depth, ynode **out);

/* Builds the node that starts with @ev (consumed by the caller afterwards). */
static int build(yparse *yp, yaml_event_t *ev, int depth, ynode **out)
{
	int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
	if (ev->type == YAML_ALIAS_EVENT)
		return perr(
		    yp, line, col,
		    "aliases (*name) are not allowed in flows; write the value out instead of referring to an anchor");
	const yaml_char_t *anchor = ev->type == YAML_SCALAR_EVENT           ? ev->data.scalar.anchor
	                            : ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
	                            : ev->type == YAML_MAPPING_START_EVENT  ? ev->data.mapping_start.anchor
	                                                                    : NULL;
	if (anchor)
		return perr(yp, line, col, "anchors (&%s) are not allowed in flows; write each value out",
		            (const char *)anchor);
	if (++yp->nodes > SW_FLOW_MAX_NODES)
		return perr(yp, line, col, "the flow has more than %d YAML nodes; split it into smaller flows",
		            SW_FLOW_MAX_NODES);
	if (depth > SW_FLOW_MAX_DEPTH)
		return perr(yp, line, col, "the flow nests deeper than %d levels; flows need at most three",
		            SW_FLOW_MAX_DEPTH);
	ynode *y = calloc(1, sizeof(*y));
	if (!y)
		return sw__error_nomem(yp->err);
	y->line = line;
	y->col = col;
	int rc = SW_OK;
	if (ev->type == YAML_SCALAR_EVENT) {
		if (ev->data.scalar.length > SW_FLOW_MAX_SCALAR) {
			rc = perr(yp, line, col, "a value is longer than %d bytes", SW_FLOW_MAX_SCALAR);
			goto out;
		}
		y->kind = Y_SCALAR;
		y->val = sw__strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (!y->val) {
			rc = sw__error_nomem(yp->err);
			goto out;
		}
		if (strlen(y->val) != ev->data.scalar.length) {
			rc = perr(yp, line, col, "a value contains a NUL character");
			goto out;
		}
		y->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		if (ev->data.scalar.tag && !(y->plain && ev->data.scalar.plain_implicit) &&
		    strcmp((const char *)ev->data.scalar.tag, YAML_STR_TAG) != 0) {
			rc = perr(yp, line, col, "YAML tags (%s) are not allowed in flows",
			          (const char *)ev->data.scalar.tag);
			goto out;
		}
		goto out;
	}
	if (ev->type != YAML_SEQUENCE_START_EVENT && ev->type != YAML_MAPPING_START_EVENT) {
		rc = perr(yp, line, col, "unexpected YAML structure");
		goto out;
	}
	bool map = ev->type == YAML_MAPPING_START_EVENT;
	const yaml_char_t *tag = map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
	if (tag) {
		rc = perr(yp, line, col, "YAML tags (%s) are not allowed in flows", (const char *)tag);
		goto out;
	}
	y->kind = map ? Y_MAP : Y_SEQ;
	for (;;) {
		yaml_event_t kev;
		if ((rc = next_event(yp, &kev)) < 0)
			goto out;
		if (kev.type == (map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT)) {
			yaml_event_delete(&kev);
			break;
		}
		ynode *k = NULL;
		rc = build(yp, &kev, depth + 1, &k);
		int kl = (int)kev.start_mark.line + 1, kc = (int)kev.start_mark.column + 1;
		yaml_event_delete(&kev);
		if (rc < 0)
			goto out;
		if (map) {
			if (k->kind != Y_SCALAR) {
				ynode_free(k);
				rc = perr(yp, kl, kc, "a key must be a plain word, not a list or a map");
				goto out;
			}
			for (size_t i = 0; i < y->n; i += 2)
				if (!strcmp(y->kids[i]->val, k->val)) {
					rc = perr(yp, kl, kc, "duplicate key \"%s\" (first at line %d); keep only one",
					          k->val, y->kids[i]->line);
					ynode_free(k);
					goto out;
				}
		}
		if (add_kid(y, k) < 0) {
			ynode_free(k);
			rc = sw__error_nomem(yp->err);
			goto out;
		}
		if (map) {
			yaml_event_t vev;
			if ((rc = next_event(yp, &vev)) < 0)
				goto out;
			ynode *v = NULL;
			rc = build(yp, &vev, depth + 1, &v);
			yaml_event_delete(&vev);
			if (rc < 0)
				goto out;
			if (add_kid(y, v) < 0) {
				ynode_free(v);
				rc = sw__error_nomem(yp->err);
				goto out;
			}
		}
	}
out:
	if (rc < 0) {
		ynode_free(y);
		return rc;
	}
	*out = y;
	return SW_OK;
}

/* Tabs in indentation are a classic copy-paste error: name the line before libyaml's generic message. */
static int check_tabs(yparse *yp, const char *text, size_t len)
{
	int line = 1;
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '-')) {
			if (text[j] == '\t')
				return perr(yp, line, (int)(j - i) + 1,
				            "a tab in the indentation; YAML indents with spaces only, replace the tab "
				            "by spaces");
			j++;
		}
		while (j < len && text[j] != '\n')
			j++;
		i = j + 1;
		line++;
	}
	return SW_OK;
}

static int parse_tree(const char *text, size_t len, const char *path, ynode **root, sw_error **err)
{
	yparse yp = {.path = path, .err = err};
	if (len > SW_FLOW_MAX_BYTES)
		return sw__error_set(err, SW_EINVAL, "INVALID_FLOW", "Split the flow into smaller flows.",
		                     "%s%sthe flow is %zu bytes; flows over %u bytes are refused", path ? path : "",
		                     path ? ": " : "", len, SW_FLOW_MAX_BYTES);
	if (!sw__utf8_valid(text, len))
		return perr(&yp, 1, 1, "the flow is not valid UTF-8 text");
	int rc = check_tabs(&yp, text, len);
	if (rc < 0)
		return rc;
	if (!yaml_parser_initialize(&yp.p))
		return sw__error_nomem(err);
	yaml_parser_set_input_string(&yp.p, (const unsigned char *)text, len);
	ynode *doc = NULL;
	int docs = 0;
	for (;;) {
		yaml_event_t ev;
		if ((rc = next_event(&yp, &ev)) < 0)
			goto out;
		yaml_event_type_t t = ev.type;
		int line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			yaml_event_delete(&ev);
			rc = perr(&yp, line, col,
			          "a flow file holds one YAML document; remove the extra `---` document");
			goto out;
		}
		if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT || t == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		rc = build(&yp, &ev, 0, &doc);
		yaml_event_delete(&ev);
		if (rc < 0)
			goto out;
	}
	if (!doc) {
		rc = perr(&yp, 1, 1, "the flow is empty; it needs at least `name:` and `steps:`");
		goto out;
	}
	*root = doc;
	doc = NULL;
out:
	ynode_free(doc);
	yaml_parser_delete(&yp.p);
	return rc;
}

/* ---- schema --------------------------------------------------------------- */

typedef struct schema {
	json_t *errors;
	const char *phase;
	int index;
	const char *kind;
} schema;

static void serr(schema *sc, const ynode *at, const char *fmt, ...) SW_PRINTF(3, 4);
static void serr(schema *sc, const ynode *at, const char *fmt, ...)
{
	char *raw = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	char *msg = sw__cap(raw ? raw : "", 600);
	free(raw);
	json_t *e = json_pack("{ss,si,si,ss?}", "code", "INVALID_FLOW", "line", at->line, "column", at->col, "message",
	                      msg);
	free(msg);
	if (!e)
		return;
	if (sc->phase) {
		json_object_set_new(e, "phase", json_string(sc->phase));
		json_object_set_new(e, "step", json_integer(sc->index));
	}
	if (sc->kind)
		json_object_set_new(e, "kind", json_string(sc->kind));
	json_array_append_new(sc->errors, e);
}

static const ynode *map_get(const ynode *m, const char *key)
{
	for (size_t i = 0; m && m->kind == Y_MAP && i + 1 < m->n; i += 2)
		if (!strcmp(m->kids[i]->val, key))
			return m->kids[i + 1];
	return NULL;
}

static bool is_null(const ynode *y)
{
	return y->kind == Y_SCALAR && y->plain &&
	       (!y->val[0] || !strcmp(y->val, "~") || !strcmp(y->val, "null") || !strcmp(y->val, "Null") ||
	        !strcmp(y->val, "NULL"));
}

/* A number from a plain scalar. */
static bool as_number(const ynode *y, double *out)
{
	if (y->kind != Y_SCALAR || !y->plain || !y->val[0])
		return false;
	char *end = NULL;
	errno = 0;
	double d = strtod(y->val, &end);
	if (errno || *end || !isfinite(d) || strchr(y->val, 'x') || strchr(y->val, 'X'))
		return false;
	*out = d;
	return true;
}

static bool as_bool(const ynode *y, bool *out)
{
	if (y->kind != Y_SCALAR || !y->plain)
		return false;
	if (!strcmp(y->val, "true") || !strcmp(y->val, "True") || !strcmp(y->val, "TRUE")) {
		*out = true;
		return true;
	}
	if (!strcmp(y->val, "false") || !strcmp(y->val, "False") || !strcmp(y->val, "FALSE")) {
		*out = false;
		return true;
	}
	return false;
}

/* A non-empty text from any scalar (a plain number or word is its text). */
static const char *as_text(schema *sc, const ynode *y, const char *what)
{
	if (y->kind != Y_SCALAR || is_null(y)) {
		serr(sc, y, "%s must be a text, not %s", what,
		     y->kind == Y_SEQ   ? "a list"
		     : y->kind == Y_MAP ? "a map"
		                        : "empty");
		return NULL;
	}
	if (!y->val[0]) {
		serr(sc, y, "%s must not be empty", what);
		return NULL;
	}
	return y->val;
}

static bool num_field(schema *sc, const ynode *y, const char *what, double min, double max, double *out)
{
	if (!as_number(y, out)) {
		serr(sc, y, "%s must be a number", what);
		return false;
	}
	if (*out < min || *out > max) {
		serr(sc, y, "%s must be between %g and %g", what, min, max);
		return false;
	}
	return true;
}

/* A duration of 0..60000 ms: on success sets st[@key] to it as an integer; else reports it and returns false. */
static bool ms_field(schema *sc, const ynode *y, const char *what, json_t *st, const char *key)
{
	double d;
	if (!num_field(sc, y, what, 0, 60000, &d))
		return false;
	json_object_set_new(st, key, json_integer((json_int_t)d));
	return true;
}

/* Checks that map @m has only keys from @allowed (NULL-terminated). */
static bool only_keys(schema *sc, const ynode *m, const char *const *allowed)
{
	bool ok = true;
	for (size_t i = 0; i + 1 < m->n; i += 2) {
		const char *k = m->kids[i]->val;
		bool found = false;
		for (size_t j = 0; allowed[j]; j++)
			if (!strcmp(k, allowed[j]))
				found = true;
		if (!found) {
			sw_buf b = SW_BUF_INIT;
			for (size_t j = 0; allowed[j]; j++)
				sw__buf_printf(&b, "%s%s", j ? ", " : "", allowed[j]);
			serr(sc, m->kids[i], "unknown key \"%s\" in %s; allowed: %s", k, sc->kind ? sc->kind : "step",
			     b.data ? b.data : "");
			sw__buf_free(&b);
			ok = false;
		}
	}
	return ok;
}

static const char *const BARE_STEPS[] = {"prepareTarget", "restartApp",     "waitForIdle",
                                         "clearOverlay",  "networkOffline", "networkOnline"};
static const char *const ALL_STEPS[] = {"prepareTarget",  "restartApp",     "tap",
                                        "tapAt",          "tapImage",       "tapOcrText",
                                        "inputText",      "assertVisible",  "assertNotVisible",
                                        "assertImage",    "assertOcrText",  "assertVisual",
                                        "assertDiff",     "swipe",          "scrollTo",
                                        "press",          "openUrl",        "wait",
                                        "waitForIdle",    "waitForVisible", "clearOverlay",
                                        "networkOffline", "networkOnline",  "seed",
                                        "note",           "screenshot"};

static bool in_list(const char *s, const char *const *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, l[i]))
			return true;
	return false;
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

size_t sw__flow_edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	if (la > SW_FLOW_EDIT_MAX)
		la = SW_FLOW_EDIT_MAX;
	if (lb > SW_FLOW_EDIT_MAX)
		lb = SW_FLOW_EDIT_MAX;
	size_t prev[SW_FLOW_EDIT_MAX + 1], cur[SW_FLOW_EDIT_MAX + 1];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t v = prev[j - 1] + (ascii_lower(a[i - 1]) != ascii_lower(b[j - 1]));
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			cur[j] = v;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

/* The closest known step name (within 3 edits), for "did you mean". */
static const char *nearest_step(const char *name)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	size_t la = strlen(name);
	if (la > 40)
		return NULL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(ALL_STEPS); i++) {
		const char *s = ALL_STEPS[i];
		size_t lb = strlen(s);
		if (lb > 40)
			continue;
		size_t d = sw__flow_edit_distance(name, la, s, lb);
		if (d < best_d) {
			best_d = d;
			best = s;
		}
	}
	return best_d <= 3 ? best : NULL;
}

/* Parses a `template`-style form: a scalar path or {<key>!, <num>?}. */
static bool path_or_map(schema *sc, json_t *st, const ynode *v, const char *key, const char *num, double nmin,
                        double nmax)
{
	if (v->kind == Y_SCALAR) {
		const char *t = as_text(sc, v, key);
		if (!t)
			return false;
		json_object_set_new(st, key, json_string(t));
		return true;
	}
	if (v->kind != Y_MAP) {
		serr(sc, v, "%s takes a text or a map {%s, %s}", sc->kind, key, num);
		return false;
	}
	const char *allowed[] = {key, num, NULL};
	bool ok = only_keys(sc, v, allowed);
	const ynode *k = map_get(v, key);
	if (!k) {
		serr(sc, v, "%s needs `%s`", sc->kind, key);
		return false;
	}
	const char *t = as_text(sc, k, key);
	if (!t)
		return false;
	json_object_set_new(st, key, json_string(t));
	const ynode *n = map_get(v, num);
	double d;
	if (n) {
		if (!num_field(sc, n, num, nmin, nmax, &d))
			return false;
		json_object_set_new(st, num, json_real(d));
	}
	return ok;
}

/* Converts one step node into JSON; appends to @errors on problems and returns NULL. */
static json_t *step_json(schema *sc, const ynode *y)
{
	const char *kind = NULL;
	const ynode *v = NULL;
	if (y->kind == Y_SCALAR) {
		kind = y->val;
	} else if (y->kind == Y_MAP) {
		if (y->n != 2) {
			serr(sc, y,
			     "a step is one word or a map with exactly one key (the step name); this one has %zu keys",
			     y->n / 2);
			return NULL;
		}
		kind = y->kids[0]->val;
		v = y->kids[1];
	} else {
		serr(sc, y, "a step is one word or a one-key map, not a list");
		return NULL;
	}
	if (!in_list(kind, ALL_STEPS, SW_ARRAY_SIZE(ALL_STEPS))) {
		const char *near = nearest_step(kind);
		serr(sc, y, "unknown step \"%s\"%s%s%s", kind, near ? "; did you mean " : "", near ? near : "",
		     near ? "?" : "; see docs/flows.md for the step list");
		return NULL;
	}
	sc->kind = kind;
	json_t *st = json_pack("{ss,ss,si,si,si}", "kind", kind, "phase", sc->phase, "index", sc->index, "line",
	                       y->line, "column", y->col);
	if (!st)
		return NULL;
	bool ok = true;
	if (v && is_null(v) && in_list(kind, BARE_STEPS, SW_ARRAY_SIZE(BARE_STEPS)))
		v = NULL;
	if (!v) {
		if (!in_list(kind, BARE_STEPS, SW_ARRAY_SIZE(BARE_STEPS))) {
			serr(sc, y, "step %s needs a value, e.g. `- %s: ...`", kind, kind);
			ok = false;
		}
		goto out;
	}
	double d;
	if (!strcmp(kind, "prepareTarget") || !strcmp(kind, "restartApp") || !strcmp(kind, "clearOverlay") ||
	    !strcmp(kind, "networkOffline") || !strcmp(kind, "networkOnline")) {
		serr(sc, v, "step %s takes no value; write it as a bare `- %s`", kind, kind);
		ok = false;
	} else if (!strcmp(kind, "tap") || !strcmp(kind, "assertVisible") || !strcmp(kind, "assertNotVisible") ||
	           !strcmp(kind, "scrollTo")) {
		const char *t = as_text(sc, v, "the selector");
		ok = t != NULL;
		if (t)
			json_object_set_new(st, "selector", json_string(t));
	} else if (!strcmp(kind, "assertVisual") || !strcmp(kind, "screenshot")) {
		const char *t = as_text(sc, v, kind);
		ok = t != NULL;
		if (t)
			json_object_set_new(st, !strcmp(kind, "screenshot") ? "reason" : "description", json_string(t));
	} else if (!strcmp(kind, "openUrl")) {
		const char *t = as_text(sc, v, "the URL");
		ok = t != NULL;
		if (t)
			json_object_set_new(st, "url", json_string(t));
	} else if (!strcmp(kind, "seed")) {
		const char *t = as_text(sc, v, "the fixture name");
		ok = t != NULL;
		if (t)
			json_object_set_new(st, "fixture", json_string(t));
	} else if (!strcmp(kind, "tapAt")) {
		double x, yv;
		if (v->kind != Y_SEQ || v->n != 2) {
			serr(sc, v, "tapAt takes a list of two numbers [x, y]");
			ok = false;
		} else if (!num_field(sc, v->kids[0], "x", 0, 100000, &x) ||
		           !num_field(sc, v->kids[1], "y", 0, 100000, &yv)) {
			ok = false;
		} else {
			json_object_set_new(st, "x", json_integer((json_int_t)x));
			json_object_set_new(st, "y", json_integer((json_int_t)yv));
		}
	} else if (!strcmp(kind, "tapImage") || !strcmp(kind, "assertImage")) {
		ok = path_or_map(sc, st, v, "template", "minScore", 0, 1);
	} else if (!strcmp(kind, "assertDiff")) {
		ok = path_or_map(sc, st, v, "baseline", "threshold", 0, 1);
	} else if (!strcmp(kind, "tapOcrText") || !strcmp(kind, "assertOcrText")) {
		ok = path_or_map(sc, st, v, "text", "minConfidence", 0, 1);
	} else if (!strcmp(kind, "inputText")) {
		if (v->kind == Y_SCALAR) {
			const char *t = as_text(sc, v, "the text");
			ok = t != NULL;
			if (t)
				json_object_set_new(st, "text", json_string(t));
		} else if (v->kind == Y_MAP) {
			static const char *const allowed[] = {"into", "text", "secret", NULL};
			ok = only_keys(sc, v, allowed);
			const ynode *t = map_get(v, "text"), *into = map_get(v, "into"), *sec = map_get(v, "secret");
			if (!t) {
				serr(sc, v, "inputText needs `text`");
				ok = false;
			} else if (t->kind != Y_SCALAR || is_null(t)) {
				serr(sc, t, "inputText text must be a text");
				ok = false;
			} else {
				json_object_set_new(st, "text", json_string(t->val));
			}
			if (into) {
				const char *s = as_text(sc, into, "into");
				if (s)
					json_object_set_new(st, "into", json_string(s));
				else
					ok = false;
			}
			bool b;
			if (sec) {
				if (!as_bool(sec, &b)) {
					serr(sc, sec, "secret must be true or false");
					ok = false;
				} else {
					json_object_set_new(st, "secret", json_boolean(b));
				}
			}
		} else {
			serr(sc, v, "inputText takes a text or a map {into, text, secret}");
			ok = false;
		}
	} else if (!strcmp(kind, "swipe")) {
		static const char *const dirs[] = {"up", "down", "left", "right"};
		static const char *const areas[] = {"center", "top", "bottom", "left", "right"};
		const ynode *dir = v, *area = NULL, *dist = NULL;
		if (v->kind == Y_MAP) {
			static const char *const allowed[] = {"direction", "area", "distance", NULL};
			ok = only_keys(sc, v, allowed);
			dir = map_get(v, "direction");
			area = map_get(v, "area");
			dist = map_get(v, "distance");
			if (!dir) {
				serr(sc, v, "swipe needs `direction` (up, down, left or right)");
				ok = false;
			}
		} else if (v->kind != Y_SCALAR) {
			serr(sc, v, "swipe takes a direction or a map {direction, area, distance}");
			ok = false;
			dir = NULL;
		}
		if (dir && (dir->kind != Y_SCALAR || !in_list(dir->val, dirs, 4))) {
			serr(sc, dir, "swipe direction must be up, down, left or right");
			ok = false;
		} else if (dir) {
			json_object_set_new(st, "direction", json_string(dir->val));
		}
		if (area && (area->kind != Y_SCALAR || !in_list(area->val, areas, 5))) {
			serr(sc, area, "swipe area must be center, top, bottom, left or right");
			ok = false;
		} else if (area) {
			json_object_set_new(st, "area", json_string(area->val));
		}
		if (dist) {
			if (!num_field(sc, dist, "distance", 0.05, 1, &d))
				ok = false;
			else
				json_object_set_new(st, "distance", json_real(d));
		}
	} else if (!strcmp(kind, "press")) {
		static const char *const keys[] = {"back", "home", "enter"};
		if (v->kind != Y_SCALAR || !in_list(v->val, keys, 3)) {
			serr(sc, v, "press takes back, home or enter");
			ok = false;
		} else {
			json_object_set_new(st, "key", json_string(v->val));
		}
	} else if (!strcmp(kind, "wait")) {
		if (v->kind == Y_SCALAR) {
			if (!ms_field(sc, v, "wait (milliseconds)", st, "ms"))
				ok = false;
		} else if (v->kind == Y_MAP) {
			static const char *const allowed[] = {"text", "id", "timeoutMs", NULL};
			ok = only_keys(sc, v, allowed);
			const ynode *t = map_get(v, "text"), *id = map_get(v, "id"), *to = map_get(v, "timeoutMs");
			if ((!t) == (!id)) {
				serr(sc, v, "wait takes milliseconds or a map with one of `text` or `id`");
				ok = false;
			}
			const char *s = t ? as_text(sc, t, "text") : id ? as_text(sc, id, "id") : NULL;
			if (s)
				json_object_set_new(st, "selector", json_string(s));
			if (s && id)
				json_object_set_new(st, "by", json_string("id"));
			if ((t || id) && !s)
				ok = false;
			if (to) {
				if (!ms_field(sc, to, "timeoutMs", st, "timeoutMs"))
					ok = false;
			}
		} else {
			serr(sc, v, "wait takes milliseconds or a map {text} / {id}");
			ok = false;
		}
	} else if (!strcmp(kind, "waitForIdle")) {
		if (!ms_field(sc, v, "waitForIdle timeout (milliseconds)", st, "timeoutMs"))
			ok = false;
	} else if (!strcmp(kind, "waitForVisible")) {
		if (v->kind == Y_SCALAR) {
			const char *t = as_text(sc, v, "the selector");
			ok = t != NULL;
			if (t)
				json_object_set_new(st, "selector", json_string(t));
		} else if (v->kind == Y_MAP) {
			static const char *const allowed[] = {"text", "id", "accessibility id", "timeoutMs", NULL};
			ok = only_keys(sc, v, allowed);
			const ynode *t = map_get(v, "text"), *id = map_get(v, "id"),
			            *ax = map_get(v, "accessibility id"), *to = map_get(v, "timeoutMs");
			int count = !!t + !!id + !!ax;
			if (count != 1) {
				serr(sc, v, "waitForVisible needs exactly one of `text`, `id` or `accessibility id`");
				ok = false;
			} else {
				const ynode *w = t ? t : id ? id : ax;
				const char *s = as_text(sc, w, t ? "text" : id ? "id" : "accessibility id");
				if (!s) {
					ok = false;
				} else {
					json_object_set_new(st, "selector", json_string(s));
					if (!t)
						json_object_set_new(st, "by",
						                    json_string(id ? "id" : "accessibility id"));
				}
			}
			if (to) {
				if (!ms_field(sc, to, "timeoutMs", st, "timeoutMs"))
					ok = false;
			}
		} else {
			serr(sc, v, "waitForVisible takes a selector or a map {text|id|accessibility id, timeoutMs}");
			ok = false;
		}
	} else if (!strcmp(kind, "note")) {
		if (v->kind == Y_SCALAR) {
			const char *t = as_text(sc, v, "the note");
			ok = t != NULL;
			if (t) {
				json_object_set_new(st, "reason", json_string(t));
				json_object_set_new(st, "outcome", json_string("pass"));
			}
		} else if (v->kind == Y_MAP) {
			static const char *const allowed[] = {"outcome", "reason", NULL};
			static const char *const outcomes[] = {"pass", "fail", "blocked", "skipped", "not_applicable"};
			ok = only_keys(sc, v, allowed);
			const ynode *o = map_get(v, "outcome"), *r = map_get(v, "reason");
			const char *os = "pass";
			if (o && (o->kind != Y_SCALAR || !in_list(o->val, outcomes, 5))) {
				serr(sc, o, "note outcome must be pass, fail, blocked, skipped or not_applicable");
				ok = false;
			} else if (o) {
				os = o->val;
			}
			json_object_set_new(st, "outcome", json_string(os));
			if (r) {
				const char *s = as_text(sc, r, "reason");
				if (s)
					json_object_set_new(st, "reason", json_string(s));
				else
					ok = false;
			}
		} else {
			serr(sc, v, "note takes a text or a map {outcome, reason}");
			ok = false;
		}
	}
out:
	sc->kind = NULL;
	if (!ok) {
		json_decref(st);
		return NULL;
	}
	return st;
}

static json_t *steps_json(schema *sc, const ynode *seq, const char *phase, bool required, const ynode *parent)
{
	json_t *arr = json_array();
	sc->phase = NULL;
	if (!seq) {
		if (required)
			serr(sc, parent, "the flow needs `%s:` with at least one step", phase);
		return arr;
	}
	if (seq->kind != Y_SEQ) {
		serr(sc, seq, "`%s` must be a list of steps (lines starting with `- `)", phase);
		return arr;
	}
	if (required && seq->n == 0)
		serr(sc, seq, "`%s` must hold at least one step", phase);
	if (seq->n > SW_FLOW_MAX_STEPS) {
		serr(sc, seq, "`%s` has %zu steps; at most %d are allowed", phase, seq->n, SW_FLOW_MAX_STEPS);
		return arr;
	}
	for (size_t i = 0; i < seq->n; i++) {
		sc->phase = phase;
		sc->index = (int)i;
		json_t *st = step_json(sc, seq->kids[i]);
		if (st)
			json_array_append_new(arr, st);
	}
	sc->phase = NULL;
	return arr;
}

int sw__flow_parse(const char *text, size_t len, const char *path, json_t **flow, json_t **errors, sw_error **err)
{
	ynode *root = NULL;
	int rc = parse_tree(text, len, path, &root, err);
	if (rc < 0)
		return rc;
	json_t *f = json_object(), *errs = json_array();
	schema sc = {.errors = errs};
	if (!f || !errs) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (root->kind != Y_MAP) {
		serr(&sc, root, "a flow is a map with `name:` and `steps:`, not %s",
		     root->kind == Y_SEQ ? "a list" : "a text");
		json_object_set_new(f, "name", json_string(""));
		json_object_set_new(f, "mode", json_string("structured"));
		json_object_set_new(f, "setup", json_array());
		json_object_set_new(f, "steps", json_array());
		json_object_set_new(f, "teardown", json_array());
		goto done;
	}
	static const char *const top[] = {"name",  "steps",    "setup",         "teardown", "mode",
	                                  "appId", "fixtures", "budgetProfile", NULL};
	sc.kind = "the flow";
	only_keys(&sc, root, top);
	sc.kind = NULL;
	const ynode *name = map_get(root, "name");
	if (!name) {
		serr(&sc, root, "the flow needs a non-empty `name:`");
		json_object_set_new(f, "name", json_string(""));
	} else {
		const char *n = as_text(&sc, name, "name");
		json_object_set_new(f, "name", json_string(n ? n : ""));
	}
	const ynode *mode = map_get(root, "mode");
	const char *ms = "structured";
	if (mode) {
		static const char *const modes[] = {"structured", "visual", "auto"};
		if (mode->kind != Y_SCALAR || !in_list(mode->val, modes, 3))
			serr(&sc, mode, "mode must be structured, visual or auto");
		else
			ms = mode->val;
	}
	json_object_set_new(f, "mode", json_string(ms));
	const ynode *app = map_get(root, "appId");
	if (app) {
		const char *a = as_text(&sc, app, "appId");
		if (a)
			json_object_set_new(f, "appId", json_string(a));
	}
	const ynode *bp = map_get(root, "budgetProfile");
	if (bp) {
		const char *a = as_text(&sc, bp, "budgetProfile");
		if (a)
			json_object_set_new(f, "budgetProfile", json_string(a));
	}
	const ynode *fx = map_get(root, "fixtures");
	if (fx) {
		json_t *fa = json_array();
		if (fx->kind != Y_SEQ) {
			serr(&sc, fx, "fixtures must be a list of fixture names");
		} else {
			for (size_t i = 0; i < fx->n; i++) {
				const char *a = as_text(&sc, fx->kids[i], "a fixture name");
				if (a)
					json_array_append_new(fa, json_string(a));
			}
		}
		json_object_set_new(f, "fixtures", fa);
	}
	json_object_set_new(f, "setup", steps_json(&sc, map_get(root, "setup"), "setup", false, root));
	json_object_set_new(f, "steps", steps_json(&sc, map_get(root, "steps"), "steps", true, root));
	json_object_set_new(f, "teardown", steps_json(&sc, map_get(root, "teardown"), "teardown", false, root));
done:
	*flow = f;
	*errors = errs;
	f = errs = NULL;
out:
	json_decref(f);
	json_decref(errs);
	ynode_free(root);
	return rc;
}

/* ---- classification --------------------------------------------------------- */

static bool has_var(const char *s)
{
	const char *p = s ? strstr(s, "${") : NULL;
	return p && strchr(p, '}');
}

bool sw__flow_step_mutating(const json_t *step)
{
	const char *k = json_string_value(json_object_get(step, "kind"));
	if (!k)
		return false;
	if (!strcmp(k, "networkOffline") || !strcmp(k, "networkOnline") || !strcmp(k, "seed") ||
	    !strcmp(k, "restartApp"))
		return true;
	return !strcmp(k, "openUrl") && has_var(json_string_value(json_object_get(step, "url")));
}

const char *const *sw__flow_step_kinds(size_t *n)
{
	*n = SW_ARRAY_SIZE(ALL_STEPS);
	return ALL_STEPS;
}

bool sw__flow_step_ocr(const json_t *step)
{
	const char *k = json_string_value(json_object_get(step, "kind"));
	return k && (!strcmp(k, "tapOcrText") || !strcmp(k, "assertOcrText"));
}

bool sw__flow_step_visual(const json_t *step)
{
	const char *k = json_string_value(json_object_get(step, "kind"));
	return k && (!strcmp(k, "tapImage") || !strcmp(k, "assertImage") || !strcmp(k, "assertDiff") ||
	             sw__flow_step_ocr(step));
}

void sw__flow_step_variables(const json_t *step, json_t *names)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)step, key, v)
	{
		const char *s = json_string_value(v);
		if (!s || !strcmp(key, "kind") || !strcmp(key, "phase"))
			continue;
		for (const char *p = strstr(s, "${"); p; p = strstr(p, "${")) {
			const char *e = strchr(p + 2, '}');
			if (!e)
				break;
			json_t *n = json_stringn(p + 2, (size_t)(e - p - 2));
			bool dup = false;
			size_t i;
			json_t *x;
			json_array_foreach(names, i, x) if (json_equal(x, n)) dup = true;
			if (!dup && n && json_string_length(n) > 0)
				json_array_append(names, n);
			json_decref(n);
			p = e + 1;
		}
	}
}

int sw__flow_parse_pack(const char *text, size_t len, const char *path, json_t *names, sw_error **err)
{
	ynode *root = NULL;
	int rc = parse_tree(text, len, path, &root, err);
	if (rc < 0)
		return rc;
	const ynode *fl = map_get(root, "flows");
	if (!fl || fl->kind != Y_SEQ || fl->n == 0) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_FLOW", "List flow names under `flows:`.",
		                   "%s: a pack is a map with a non-empty `flows:` list", path);
		goto out;
	}
	for (size_t i = 0; i < fl->n; i++) {
		const ynode *y = fl->kids[i];
		if (y->kind != Y_SCALAR || !y->val[0]) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_FLOW", NULL,
			                   "%s:%d:%d: each pack entry is a flow name", path, y->line, y->col);
			goto out;
		}
		json_array_append_new(names, json_string(y->val));
	}
out:
	ynode_free(root);
	return rc;
}
