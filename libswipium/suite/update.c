/* update.c: qa_suite_update and qa_suite_generate: the linear, idempotent merge into test-suite.json. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/redact.h>
#include <swipium/session.h>
#include <swipium/suite.h>

#include "suite-internal.h"

static const char *const SOURCES[] = {"report", "exploration", "feature", "ticket", "manual", "generate", "suite"};
static const char *const MODES[] = {"append", "update", "replace_generated"};
static const char *const STATUSES[] = {"active", "draft", "deprecated", "blocked", "manual_only"};
static const char *const PRIORITIES[] = {"critical", "high", "medium", "low"};
static const char *const RESULTS[] = {"passed", "failed", "blocked", "skipped", "not_run"};
/* Fields a person curates: never overwritten on a case whose source is "manual". */
static const char *const CURATED[] = {"title",    "objective",     "steps", "expected", "priority",
                                      "preconditions", "functionality", "type",  "status"};

static bool one_of(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

typedef struct merge {
	sw_redactor *redactor;
	json_t *notes;
	size_t redacted;
} merge;

/* A text field of @c: strings as they are, numbers as their digits; redacted. (transfer full, nullable) */
static char *text_of(merge *m, const json_t *v)
{
	char *clean = NULL;
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		clean = sw__utf8_sanitize(s, strlen(s));
	} else if (json_is_integer(v)) {
		char digits[32];
		snprintf(digits, sizeof(digits), "%lld", (long long)json_integer_value(v));
		clean = sw__utf8_sanitize(digits, strlen(digits));
	}
	if (!clean || !m->redactor)
		return clean;
	char *out = NULL;
	if (sw_redactor_redact_text(m->redactor, clean, strlen(clean), &out, NULL, NULL, NULL) != SW_OK) {
		free(clean);
		return NULL;
	}
	if (strcmp(out, clean))
		m->redacted++;
	free(clean);
	char *own = sw__strdup(out);
	sw_free(out);
	return own;
}

static void set_text(merge *m, json_t *c, const char *key, const json_t *v)
{
	char *t = text_of(m, v);
	if (t && *t)
		json_object_set_new(c, key, json_string(t));
	free(t);
}

/* A list of texts from an array of strings or one text with a line per entry. */
static json_t *text_list(merge *m, const json_t *v)
{
	json_t *out = json_array();
	if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
		{
			const json_t *t = json_is_object(x) ? json_object_get(x, "action") ? json_object_get(x, "action")
			                                                                    : json_object_get(x, "text")
			                                    : x;
			char *s = text_of(m, t);
			if (s && *s)
				json_array_append_new(out, json_string(s));
			free(s);
		}
	} else if (json_is_string(v)) {
		char *s = text_of(m, v);
		for (char *line = s, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			while (*line == ' ' || *line == '\t' || *line == '-' || *line == '*')
				line++;
			if (*line)
				json_array_append_new(out, json_string(line));
			if (!next)
				break;
		}
		free(s);
	}
	return out;
}

/*
 * A caller's (possibly partial) case in the suite's shape, or NULL with *@why. Only known fields are kept;
 * aliases (featureId, expectedResult, actualResult, screenId) are folded in.
 */
static json_t *normalize(merge *m, const json_t *in, const char *source, const char *source_uri, const char **why)
{
	if (!json_is_object(in)) {
		*why = "a case must be an object";
		return NULL;
	}
	json_t *c = json_object();
	const json_t *links = json_object_get(in, "links");
	const json_t *feature = json_object_get(in, "feature");
	if (!feature)
		feature = json_object_get(in, "featureId");
	if (!feature && json_is_object(links))
		feature = json_object_get(links, "featureId");
	set_text(m, c, "feature", feature);
	set_text(m, c, "title", json_object_get(in, "title"));
	set_text(m, c, "objective", json_object_get(in, "objective"));
	set_text(m, c, "functionality", json_object_get(in, "functionality"));
	json_object_set_new(c, "steps", text_list(m, json_object_get(in, "steps")));
	json_object_set_new(c, "preconditions", text_list(m, json_object_get(in, "preconditions")));
	const json_t *exp = json_object_get(in, "expected");
	set_text(m, c, "expected", exp ? exp : json_object_get(in, "expectedResult"));
	const json_t *act = json_object_get(in, "actual");
	set_text(m, c, "actual", act ? act : json_object_get(in, "actualResult"));
	set_text(m, c, "type", json_object_get(in, "type"));
	/* defaults (priority medium, status active, manual automation) are filled only when a case is created */
	const char *prio = json_string_value(json_object_get(in, "priority"));
	if (one_of(prio, PRIORITIES, SW_ARRAY_SIZE(PRIORITIES)))
		json_object_set_new(c, "priority", json_string(prio));
	const char *status = json_string_value(json_object_get(in, "status"));
	if (one_of(status, STATUSES, SW_ARRAY_SIZE(STATUSES)))
		json_object_set_new(c, "status", json_string(status));
	const char *res = json_string_value(json_object_get(in, "lastResult"));
	if (one_of(res, RESULTS, SW_ARRAY_SIZE(RESULTS)))
		json_object_set_new(c, "lastResult", json_string(res));
	json_object_set_new(c, "tags", text_list(m, json_object_get(in, "tags")));
	json_t *l = json_object();
	if (json_object_get(c, "feature"))
		json_object_set(l, "featureId", json_object_get(c, "feature"));
	json_t *screens = text_list(m, json_is_object(links) ? json_object_get(links, "screenIds") : NULL);
	if (json_object_get(in, "screenId")) {
		char *sid = text_of(m, json_object_get(in, "screenId"));
		if (sid && *sid)
			json_array_append_new(screens, json_string(sid));
		free(sid);
	}
	json_object_set_new(l, "screenIds", screens);
	json_object_set_new(c, "links", l);
	const json_t *auto_in = json_object_get(in, "automation");
	if (json_is_object(auto_in)) {
		json_t *a = json_object();
		set_text(m, a, "status", json_object_get(auto_in, "status"));
		set_text(m, a, "flow", json_object_get(auto_in, "flow"));
		set_text(m, a, "locatorGrade", json_object_get(auto_in, "locatorGrade"));
		if (!json_object_get(a, "status"))
			json_object_set_new(a, "status", json_string(json_object_get(a, "flow") ? "automated" : "manual"));
		json_object_set_new(c, "automation", a);
	}
	const json_t *safety = json_object_get(in, "safety");
	if (json_is_object(safety)) {
		char *t = sw__json_compact(safety);
		json_t *tj = t ? json_string(t) : NULL;
		char *red = tj ? text_of(m, tj) : NULL; /* redacted through its text form */
		json_decref(tj);
		json_t *back = red ? json_loads(red, 0, NULL) : NULL;
		if (back)
			json_object_set_new(c, "safety", back);
		free(t);
		free(red);
	}
	json_object_set_new(c, "source", json_string(source));
	if (source_uri) {
		json_t *u = json_string(source_uri);
		set_text(m, c, "sourceUri", u);
		json_decref(u);
	}
	if (!json_object_get(c, "title")) {
		const json_t *alt = json_object_get(c, "objective");
		if (!alt)
			alt = json_array_get(json_object_get(c, "steps"), 0);
		if (!alt) {
			json_decref(c);
			*why = "a case needs at least a title, an objective or a step";
			return NULL;
		}
		json_object_set_new(c, "title", json_string(json_string_value(alt)));
	}
	if (!json_object_get(c, "objective"))
		json_object_set(c, "objective", json_object_get(c, "title"));
	if (!json_object_get(c, "functionality")) {
		const json_t *f = json_object_get(c, "feature");
		json_object_set_new(c, "functionality", json_string(f ? json_string_value(f) : "General"));
	}
	return c;
}

static bool same(const json_t *a, const json_t *b)
{
	return (a == NULL && b == NULL) || (a && b && json_equal(a, b));
}

typedef struct result {
	json_t *created, *updated, *unchanged, *deprecated, *conflicts;
} result;

/* What the read of the suite gathers, a case at a time: the indexes the merge looks cases up in. */
typedef struct gather {
	sw__sindex by_id, by_key, maxes; /* id -> case, dedupe key -> case (first wins), token -> highest number */
	sw__sindex dups;                 /* ids used by more than one case */
	sw_buf dup_list;                 /* the first ten of them, in the order they were found */
	unsigned char *old;              /* per case: may be deprecated by replace_generated */
	sw__suite_file *file;            /* where a case an incoming one may match is kept parsed */
	size_t n_incoming;
	size_t n_read;                   /* cases read (g->old holds as many) */
	size_t cap;
	sw__sindex want;                 /* the incoming cases' dedupe keys and given ids */
	const char *source;
	sw_buf key;
} gather;

static void gather_init(gather *g, const char *source)
{
	memset(g, 0, sizeof(*g));
	sw__sindex_init(&g->by_id);
	sw__sindex_init(&g->by_key);
	sw__sindex_init(&g->maxes);
	sw__sindex_init(&g->dups);
	sw__sindex_init(&g->want);
	g->source = source;
}

static void gather_free(gather *g)
{
	sw__sindex_free(&g->by_id);
	sw__sindex_free(&g->by_key);
	sw__sindex_free(&g->maxes);
	sw__sindex_free(&g->dups);
	sw__sindex_free(&g->want);
	sw__buf_free(&g->dup_list);
	sw__buf_free(&g->key);
	free(g->old);
	g->old = NULL;
	g->cap = 0;
}

static int gather_case(void *ud, size_t i, const json_t *c, sw_error **err)
{
	gather *g = ud;
	if (!c) { /* start again: the suite was set aside, or is read again whole */
		const char *source = g->source;
		sw__sindex want = g->want; /* what the request holds stays */
		sw__suite_file *file = g->file;
		sw__sindex_init(&g->want);
		gather_free(g);
		gather_init(g, source);
		g->want = want;
		g->file = file;
		return SW_OK;
	}
	if (i == 0) { /* sized once for the file's cases and the incoming ones: no rehash of a large table */
		size_t n = g->file->cap + g->n_incoming;
		if (!sw__sindex_reserve(&g->by_id, n) || !sw__sindex_reserve(&g->by_key, n))
			return sw__error_nomem(err);
	}
	if (i >= g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		while (cap <= i)
			cap *= 2;
		unsigned char *o = realloc(g->old, cap);
		if (!o)
			return sw__error_nomem(err);
		g->old = o;
		g->cap = cap;
	}
	const char *id = json_string_value(json_object_get(c, "id"));
	const char *src = json_string_value(json_object_get(c, "source"));
	const char *st = json_string_value(json_object_get(c, "status"));
	g->n_read = i + 1;
	g->old[i] = id && src && !strcmp(src, g->source) && strcmp(src, "manual") && !(st && !strcmp(st, "deprecated"));
	if (id) {
		bool seen = false;
		if (!sw__sindex_put(&g->by_id, id, (long)i, &seen))
			return sw__error_nomem(err);
		if (seen) {
			bool again = false;
			if (!sw__sindex_put(&g->dups, id, 1, &again))
				return sw__error_nomem(err);
			if (!again && g->dups.n <= 10)
				sw__buf_printf(&g->dup_list, "%s%s", g->dups.n > 1 ? ", " : "", id);
		}
		const char *dash = strrchr(id, '-');
		if (!strncmp(id, "TC-", 3) && dash && dash > id + 3) {
			char *tok = sw__strndup(id + 3, (size_t)(dash - id - 3));
			long n = tok ? sw__suite_id_number(id, tok) : -1;
			if (n > 0) {
				long *m = tok ? sw__sindex_put(&g->maxes, tok, 0, NULL) : NULL;
				if (!m) {
					free(tok);
					return sw__error_nomem(err);
				}
				if (n > *m)
					*m = n;
			}
			free(tok);
		}
	}
	sw__suite_case_key_into(&g->key, c);
	if (g->key.failed || !sw__sindex_put(&g->by_key, g->key.data, (long)i, NULL))
		return sw__error_nomem(err);
	/* a case an incoming one may match is kept parsed for the merge */
	if ((id && sw__sindex_get(&g->want, id, NULL)) || sw__sindex_get(&g->want, g->key.data, NULL))
		sw__suite_file_keep(g->file, i, c);
	return SW_OK;
}

/*
 * The cases of a request: a parsed array (qa_suite_generate's, or a request read whole), or the request's text
 * with the bytes of each case, parsed one at a time when it is merged (the request never becomes one tree).
 */
typedef struct raw_list {
	json_t *array;     /* the parsed cases (borrowed), or NULL */
	bool consume;      /* array: each case freed once used (the caller does not read them again) */
	const char *text;  /* else: the request's text ... */
	const size_t *span; /* ... and the offset and length of each case in it */
	size_t n;
} raw_list;

static size_t raw_count(const raw_list *l)
{
	return l->array ? json_array_size(l->array) : l->n;
}

/* Case @i of the request. (transfer full; NULL when out of memory) */
static json_t *raw_get(const raw_list *l, size_t i)
{
	if (l->array)
		return json_incref(json_array_get(l->array, i));
	/* the flags of sw__options_load's parse: a repeated key keeps its last value, as before */
	return json_loadb(l->text + l->span[2 * i], l->span[2 * i + 1], 0, NULL);
}

static void raw_done(raw_list *l, size_t i)
{
	if (l->array && l->consume)
		json_array_set_new(l->array, i, json_null()); /* used: freed now, not in one sweep at the end */
}

/* The dedupe key and given id of @c into @want (the cases the read keeps parsed). */
static bool want_case(sw__sindex *want, sw_buf *key, const json_t *c)
{
	const char *gid = json_string_value(json_object_get(c, "id"));
	sw__suite_case_key_into(key, c);
	return !key->failed && sw__sindex_put(want, key->data, 0, NULL) && (!gid || sw__sindex_put(want, gid, 0, NULL));
}

/* Merges one normalized case @c (given with the id @gid, nullable) into @f. */
static int merge_one(sw__suite_file *f, gather *g, json_t *c, const char *gid, const char *mode, const char *source,
                     json_t *counters, sw__sindex *touched, const char *now, result *r, sw_error **err)
{
	int rc = SW_OK;
	long at = -1;
	bool found = gid && sw__sindex_get(&g->by_id, gid, &at);
	sw__suite_case_key_into(&g->key, c);
	if (g->key.failed)
		return sw__error_nomem(err);
	if (!found)
		found = sw__sindex_get(&g->by_key, g->key.data, &at);
	if (!found) {
		char *tok = sw__suite_feature_token(json_string_value(json_object_get(c, "feature")));
		long n = (long)json_integer_value(json_object_get(counters, tok));
		long seen = 0;
		sw__sindex_get(&g->maxes, tok, &seen);
		if (seen > n)
			n = seen;
		n++;
		char *id = sw__asprintf("TC-%s-%03ld", tok, n);
		json_object_set_new(counters, tok, json_integer(n));
		long *mx = sw__sindex_put(&g->maxes, tok, n, NULL);
		if (mx)
			*mx = n;
		json_t *nc = json_pack("{s:s}", "id", id);
		json_object_update(nc, c);
		json_object_set_new(nc, "createdAt", json_string(now ? now : ""));
		json_object_set_new(nc, "updatedAt", json_string(now ? now : ""));
		if (gid)
			json_object_set_new(nc, "externalId", json_string(gid));
		if (!json_object_get(nc, "lastResult"))
			json_object_set_new(nc, "lastResult", json_string("not_run"));
		if (!json_object_get(nc, "priority"))
			json_object_set_new(nc, "priority", json_string("medium"));
		if (!json_object_get(nc, "status"))
			json_object_set_new(nc, "status", json_string("active"));
		if (!json_object_get(nc, "automation"))
			json_object_set_new(nc, "automation", json_pack("{s:s}", "status", "manual"));
		long idx = (long)f->n;
		rc = sw__suite_file_put(f, f->n, nc, err);
		json_decref(nc);
		long *pi = rc == SW_OK ? sw__sindex_put(&g->by_id, id, idx, NULL) : NULL;
		long *pk = pi ? sw__sindex_put(&g->by_key, g->key.data, idx, NULL) : NULL;
		if (pi && pk && sw__sindex_put(touched, id, 1, NULL)) {
			*pi = *pk = idx;
			json_array_append_new(r->created, json_string(id));
		} else if (rc == SW_OK) {
			rc = sw__error_nomem(err);
		}
		free(id);
		free(tok);
		return rc;
	}
	json_t *cur = sw__suite_file_case(f, (size_t)at);
	if (!cur)
		return sw__error_nomem(err);
	const char *id = json_string_value(json_object_get(cur, "id"));
	if (!sw__sindex_put(touched, id ? id : "", 1, NULL)) {
		json_decref(cur);
		return sw__error_nomem(err);
	}
	if (!strcmp(mode, "append")) {
		json_array_append_new(r->unchanged, json_string(id ? id : ""));
		json_decref(cur);
		return sw__suite_file_release(f, (size_t)at, err);
	}
	const char *cur_src = json_string_value(json_object_get(cur, "source"));
	bool curated = cur_src && !strcmp(cur_src, "manual") && strcmp(source, "manual") != 0;
	bool overwrite = !strcmp(mode, "replace_generated") && !curated;
	bool changed = false;
	const char *k;
	json_t *v;
	json_object_foreach(c, k, v)
	{
		if (!strcmp(k, "source") && curated)
			continue;
		bool is_curated = one_of(k, CURATED, SW_ARRAY_SIZE(CURATED));
		json_t *old = json_object_get(cur, k);
		if (same(old, v))
			continue;
		/* a partial update never clears: an empty list or a default only fills a gap */
		if (!overwrite && old && json_is_array(v) && json_array_size(v) == 0)
			continue;
		if (curated && is_curated) {
			json_array_append_new(r->conflicts,
			                      json_pack("{s:s, s:s, s:O?, s:O, s:s}", "id", id ? id : "", "field", k,
			                                "current", old, "proposed", v, "reason",
			                                "the case is curated (source manual); its field was kept"));
			continue;
		}
		json_object_set(cur, k, v); /* never "id": a normalized case has none, so @id stays valid */
		changed = true;
	}
	if (changed) {
		json_object_set_new(cur, "updatedAt", json_string(now ? now : ""));
		json_array_append_new(r->updated, json_string(id ? id : ""));
		rc = sw__suite_file_put(f, (size_t)at, cur, err);
	} else {
		json_array_append_new(r->unchanged, json_string(id ? id : ""));
	}
	json_decref(cur);
	return rc == SW_OK ? sw__suite_file_release(f, (size_t)at, err) : rc;
}

/*
 * Merges @raw_cases into @f, whose cases @g indexed while it was read: each case normalized, merged (hash lookups:
 * linear) and freed in turn, while it is still in the cache. A case that is not one is counted in *@skipped and the
 * first 20 are said in @skips.
 */
static int merge_cases(sw__suite_file *f, gather *g, raw_list *raw_cases, const char *source_uri,
                       const char *mode, const char *source, merge *m, result *r, json_t *skips, size_t *skipped,
                       sw_error **err)
{
	json_t *counters = json_object_get(f->head, "idCounters");
	if (!json_is_object(counters)) {
		counters = json_object();
		json_object_set_new(f->head, "idCounters", counters);
	}
	sw__sindex touched;
	sw__sindex_init(&touched);
	if (!sw__sindex_reserve(&touched, raw_count(raw_cases)))
		return sw__error_nomem(err);
	size_t i;
	json_t *raw;
	int rc = SW_OK;
	if (g->dups.n) {
		char *shown = sw__cap(g->dup_list.data ? g->dup_list.data : "", 400);
		json_array_append_new(m->notes,
		                      json_sprintf("test-suite.json holds %zu duplicate id(s) (%s%s); a case given by such an "
		                                   "id updates the first one. Run qa_suite_lint and renumber by hand",
		                                   g->dups.n, shown ? shown : "", g->dups.n > 10 ? ", ..." : ""));
		free(shown);
	}
	char *now = sw__iso_now();
	size_t n_raw = raw_count(raw_cases);
	for (i = 0; i < n_raw; i++) {
		if (!(raw = raw_get(raw_cases, i))) {
			rc = sw__error_nomem(err);
			break;
		}
		const char *why = NULL;
		json_t *c = normalize(m, raw, source, source_uri, &why);
		if (!c) {
			if ((*skipped)++ < 20)
				json_array_append_new(skips, json_sprintf("cases[%zu] was left out: %s", i, why));
		} else {
			rc = merge_one(f, g, c, json_string_value(json_object_get(raw, "id")), mode, source, counters, &touched,
			               now, r, err);
			json_decref(c);
		}
		json_decref(raw);
		raw_done(raw_cases, i);
		if (rc < 0)
			break;
	}
	if (rc == SW_OK && !strcmp(mode, "replace_generated")) {
		size_t n_old = g->n_read;
		for (i = 0; i < f->n && rc == SW_OK; i++) {
			if (i >= n_old || !g->old[i]) /* new cases are touched; the rest could not be deprecated when read */
				continue;
			json_t *x = sw__suite_file_case(f, i);
			if (!x) {
				rc = sw__error_nomem(err);
				break;
			}
			const char *id = json_string_value(json_object_get(x, "id"));
			const char *src = json_string_value(json_object_get(x, "source"));
			const char *st = json_string_value(json_object_get(x, "status"));
			if (id && !sw__sindex_get(&touched, id, NULL) && src && !strcmp(src, source) && strcmp(src, "manual") &&
			    !(st && !strcmp(st, "deprecated"))) {
				json_array_append_new(r->deprecated, json_string(id));
				json_object_set_new(x, "status", json_string("deprecated"));
				json_object_set_new(x, "updatedAt", json_string(now ? now : ""));
				rc = sw__suite_file_put(f, i, x, err);
			}
			json_decref(x);
		}
	}
	free(now);
	sw__sindex_free(&touched);
	return rc;
}

static const sw__opt UPDATE_OPTS[] = {{"source", SW__OPT_STRING, false},   {"sourceUri", SW__OPT_STRING, true},
                                      {"cases", SW__OPT_ARRAY, true},      {"mergeMode", SW__OPT_STRING, true},
                                      {"sessionId", SW__OPT_STRING, true}, {NULL, 0, false}};

static json_t *new_result(result *r)
{
	r->created = json_array();
	r->updated = json_array();
	r->unchanged = json_array();
	r->deprecated = json_array();
	r->conflicts = json_array();
	return json_pack("{s:O, s:O, s:O, s:O, s:O}", "created", r->created, "updated", r->updated, "unchanged",
	                 r->unchanged, "deprecated", r->deprecated, "conflicts", r->conflicts);
}

static void free_result(result *r)
{
	json_decref(r->created);
	json_decref(r->updated);
	json_decref(r->unchanged);
	json_decref(r->deprecated);
	json_decref(r->conflicts);
}

/*
 * The shared body of update and generate: open (setting a corrupt file aside), merge, save. @want (nullable;
 * emptied): the keys and ids of @raw_cases, when the caller gathered them already.
 */
static int run_merge(const char *root, raw_list *raw_cases, sw__sindex *want, const char *source,
                     const char *source_uri, const char *mode, sw_redactor *redactor, json_t *out, sw_error **err)
{
	merge m = {.redactor = redactor, .notes = json_array()};
	result r;
	json_t *res = new_result(&r);
	json_t *skips = json_array();
	sw__suite_file d;
	gather g;
	gather_init(&g, source);
	g.file = &d;
	char *aside = NULL;
	size_t i;
	size_t skipped = 0;
	int rc = SW_OK;
	/* the cases an incoming one may match, told by their dedupe key and id as given: the read keeps those parsed
	 * (a miss here only costs a second parse of the case) */
	g.n_incoming = raw_count(raw_cases);
	if (want) {
		g.want = *want;
		sw__sindex_init(want);
	} else if (!sw__sindex_reserve(&g.want, 2 * g.n_incoming)) {
		rc = sw__error_nomem(err);
		goto out;
	} else {
		for (i = 0; i < g.n_incoming; i++)
			if (!want_case(&g.want, &g.key, json_array_get(raw_cases->array, i))) {
				rc = sw__error_nomem(err);
				goto out;
			}
	}
	rc = sw__suite_file_open(root, true, true, &d, &aside, gather_case, &g, err);
	if (rc < 0)
		goto out;
	rc = merge_cases(&d, &g, raw_cases, source_uri, mode, source, &m, &r, skips, &skipped, err);
	/* the notes in their order: the cases left out, the suite set aside, then what the merge found */
	if (skipped > 20)
		json_array_append_new(skips, json_sprintf("%zu more cases were left out for the same kind of reason", skipped - 20));
	if (aside)
		json_array_append_new(skips, json_string(aside));
	json_array_extend(skips, m.notes);
	json_decref(m.notes);
	m.notes = skips;
	skips = NULL;
	bool dirty = json_array_size(r.created) || json_array_size(r.updated) || json_array_size(r.deprecated) ||
	             !d.existed;
	if (rc == SW_OK && dirty)
		rc = sw__suite_file_save(&d, err);
	if (rc == SW_OK) {
		json_object_update(out, res);
		json_object_set_new(out, "total", json_integer((json_int_t)d.n));
		json_object_set_new(out, "path", json_string(SW_SUITE_FILE));
		json_object_set_new(out, "mergeMode", json_string(mode));
		json_object_set_new(out, "source", json_string(source));
		json_object_set_new(out, "skippedCases", json_integer((json_int_t)skipped));
		json_object_set_new(out, "written", json_boolean(dirty));
		if (m.redacted)
			json_array_append_new(m.notes, json_sprintf("%zu text field(s) held a registered secret and were "
			                                            "redacted before writing",
			                                            m.redacted));
		json_object_set(out, "notes", m.notes);
	}
	sw__suite_file_close(&d);
out:
	gather_free(&g);
	free(aside);
	json_decref(res);
	free_result(&r);
	json_decref(skips);
	json_decref(m.notes);
	return rc;
}

/*
 * Reads the request a case at a time: its options from the scanner, each case parsed alone (and freed) to check
 * it and to note its key and id in @want. False when anything is unusual (the request is then parsed whole by
 * sw__options_load, which gives every error as before); on true, @s holds the options and each case's bytes.
 */
static bool read_request(const char *text, sw__suite_scan *s, sw__sindex *want)
{
	if (!sw__suite_scan_text(text, strlen(text), s))
		return false;
	sw_buf key = SW_BUF_INIT;
	bool ok = sw__sindex_reserve(want, 2 * s->n);
	for (size_t i = 0; ok && i < s->n; i++) {
		json_t *c = json_loadb(text + s->span[2 * i], s->span[2 * i + 1], 0, NULL);
		ok = c && want_case(want, &key, c);
		json_decref(c);
	}
	sw__buf_free(&key);
	if (!ok) {
		sw__suite_scan_free(s);
		sw__sindex_free(want);
		sw__sindex_init(want);
	}
	return ok;
}

SW_API int sw_suite_update(const char *project_root, const char *request_json, sw_redactor *redactor,
                           char **result_json, sw_error **err)
{
	if (!project_root || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_suite_update: root and result are required");
	json_t *req = NULL, *out = json_object();
	sw__suite_scan scan = {0};
	sw__sindex want;
	sw__sindex_init(&want);
	int rc;
	bool streamed = request_json && request_json[0] && read_request(request_json, &scan, &want);
	if (streamed) {
		req = scan.head; /* the request's options; "cases" an empty array in its place */
		scan.head = NULL;
		rc = sw__options_check(req, UPDATE_OPTS, "qa_suite_update", err);
	} else {
		rc = sw__options_load(request_json, UPDATE_OPTS, "qa_suite_update", &req, err);
	}
	if (rc < 0)
		goto out;
	const char *source = json_string_value(json_object_get(req, "source"));
	const char *mode = json_string_value(json_object_get(req, "mergeMode"));
	if (!one_of(source, SOURCES, SW_ARRAY_SIZE(SOURCES))) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "source must be one of report, exploration, feature, ticket, manual, generate, suite");
		goto out;
	}
	if (!mode)
		mode = "update";
	if (!one_of(mode, MODES, SW_ARRAY_SIZE(MODES))) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "mergeMode must be append, update or replace_generated");
		goto out;
	}
	json_t *cases = json_object_get(req, "cases");
	json_t *none = json_array();
	raw_list list = {.array = cases ? cases : none, .consume = true};
	if (streamed)
		list = (raw_list){.text = request_json, .span = scan.span, .n = scan.n};
	rc = run_merge(project_root, &list, streamed ? &want : NULL, source,
	               json_string_value(json_object_get(req, "sourceUri")), mode, redactor, out, err);
	json_decref(none);
	if (rc == SW_OK) {
		*result_json = sw__json_pretty(out);
		rc = *result_json ? SW_OK : sw__error_nomem(err);
	}
out:
	sw__suite_scan_free(&scan);
	sw__sindex_free(&want);
	json_decref(req);
	json_decref(out);
	return rc;
}

/* ---- qa_suite_generate --------------------------------------------------------------------------- */

static json_t *gen_case(const char *fid, const char *title, const char *type, const char *objective, json_t *steps,
                        const char *expected, const char *priority, const char *screen)
{
	json_t *c = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:[s]}", "feature", fid, "title", title, "type",
	                      type, "objective", objective, "steps", steps, "expected", expected, "priority", priority,
	                      "functionality", fid, "tags", type);
	if (screen)
		json_object_set_new(c, "screenId", json_string(screen));
	return c;
}

/* The cases a feature gets at @level (0 conservative .. 3 adversarial). Labels are data: only in strings. */
static void feature_cases(const json_t *f, int level, bool manual_only, json_t *out)
{
	const char *fid = json_string_value(json_object_get(f, "id"));
	const char *ft = json_string_value(json_object_get(f, "title"));
	const char *title = ft && *ft ? ft : fid;
	const char *screen = json_string_value(json_array_get(json_object_get(f, "staticScreens"), 0));
	if (!screen)
		screen = json_string_value(json_array_get(json_object_get(f, "runtimeScreens"), 0));
	bool auth = json_is_true(json_object_get(f, "auth"));
	char *t = sw__asprintf("%s opens and shows its content", title);
	char *s1 = sw__asprintf("Navigate to the %s screen", title);
	char *e = sw__asprintf("The %s screen shows without an error, crash or blank area", title);
	json_array_append_new(out, gen_case(fid, t, "smoke", t, json_pack("[s, s]", "Launch the app", s1), e, "high", screen));
	free(t);
	free(e);
	if (level >= 1) {
		t = sw__asprintf("%s main action completes", title);
		e = sw__asprintf("The main action of %s completes and the app shows its result", title);
		json_array_append_new(out, gen_case(fid, t, "functional", t,
		                                    json_pack("[s, s, s]", "Launch the app", s1,
		                                              "Perform the screen's main action with valid data"),
		                                    e, "medium", screen));
		free(t);
		free(e);
		if (auth) {
			json_array_append_new(out, gen_case(fid, "Sign-in rejects a wrong password", "negative",
			                                    "Sign-in rejects a wrong password",
			                                    json_pack("[s, s, s]", "Launch the app", s1,
			                                              "Sign in with the test account and a wrong password"),
			                                    "An error message shows and the user stays signed out", "high",
			                                    screen));
		}
	}
	if (level >= 2) {
		t = sw__asprintf("%s survives rotation and relaunch", title);
		e = sw__asprintf("%s keeps its state after a rotation and shows again after a relaunch", title);
		json_array_append_new(out, gen_case(fid, t, "edge", t,
		                                    json_pack("[s, s, s, s]", "Launch the app", s1, "Rotate the device",
		                                              "Relaunch the app and return to the screen"),
		                                    e, "low", screen));
		free(t);
		free(e);
	}
	if (level >= 3) {
		t = sw__asprintf("%s handles hostile input", title);
		e = sw__asprintf("%s refuses or escapes the input; nothing crashes and no data is lost", title);
		json_t *c = gen_case(fid, t, "adversarial", t,
		                     json_pack("[s, s, s]", "Launch the app", s1,
		                               "Enter very long text, emoji and markup in each field and submit"),
		                     e, "medium", screen);
		json_object_set_new(c, "safety", json_pack("{s:s, s:b, s:b, s:s}", "dataPolicy", "generated test data only",
		                                           "destructive", 0, "needsDisposableAccount", auth ? 1 : 0,
		                                           "note", "never against production data"));
		json_array_append_new(out, c);
		free(t);
		free(e);
	}
	if (manual_only) {
		t = sw__asprintf("%s looks right (MANUAL visual check)", title);
		json_t *c = gen_case(fid, t, "visual", t, json_pack("[s, s, s]", "Launch the app", s1,
		                                                    "Compare the screen with the design by eye"),
		                     "Layout, text and images match the design; nothing is cut off or overlaps", "low",
		                     screen);
		json_object_set_new(c, "status", json_string("manual_only"));
		json_array_append_new(out, c);
		free(t);
	}
	free(s1);
}

/* A step line for one recorded qa_act action: what was acted on, never the typed value. (transfer full) */
static char *action_line(const json_t *a)
{
	const char *action = json_string_value(json_object_get(a, "action"));
	const json_t *target = json_object_get(a, "target");
	const char *what = NULL;
	/* what the act touched, as the recording keeps it; a secure field is named, never read out */
	const json_t *el = json_object_get(a, "element");
	if (json_is_object(el)) {
		bool secure = json_is_true(json_object_get(el, "secure")) || json_is_true(json_object_get(a, "secret"));
		static const char *const ekeys[] = {"label", "text", "accessibilityId", "hint", "id"};
		for (size_t i = 0; !what && i < SW_ARRAY_SIZE(ekeys); i++)
			if (!(secure && !strcmp(ekeys[i], "text")))
				what = json_string_value(json_object_get(el, ekeys[i]));
	}
	if (!what)
		what = json_string_value(target);
	if (!what && json_is_object(target)) {
		static const char *const keys[] = {"text", "label", "id", "resourceId", "accessibilityId", "ref"};
		for (size_t i = 0; !what && i < SW_ARRAY_SIZE(keys); i++)
			what = json_string_value(json_object_get(target, keys[i]));
	}
	if (!what)
		what = json_string_value(json_object_get(a, "label"));
	if (!action)
		return NULL;
	char *shown = what ? sw__cap(what, 80) : NULL;
	char *line;
	if (!strcmp(action, "type"))
		line = sw__asprintf("Type the test value into \"%s\"", shown ? shown : "the focused field");
	else if (shown)
		line = sw__asprintf("%c%s \"%s\"", toupper((unsigned char)action[0]), action + 1, shown);
	else
		line = sw__asprintf("%c%s", toupper((unsigned char)action[0]), action + 1);
	free(shown);
	return line;
}

static json_t *recorded_case(sw_session *s, json_t *notes)
{
	char *text = NULL;
	if (sw_session_get_json(s, "recordedActions", &text, NULL) != SW_OK)
		return NULL;
	json_t *acts = json_loads(text, 0, NULL);
	sw_free(text);
	if (!json_is_array(acts) || json_array_size(acts) == 0) {
		json_decref(acts);
		return NULL;
	}
	json_t *steps = json_array();
	bool failed = false;
	size_t i, left = 0;
	json_t *a;
	json_array_foreach(acts, i, a)
	{
		failed |= json_object_get(a, "failureCode") != NULL;
		if (json_array_size(steps) >= 50) {
			left++;
			continue;
		}
		char *line = action_line(a);
		if (line)
			json_array_append_new(steps, json_string(line));
		free(line);
	}
	json_decref(acts);
	if (left)
		json_array_append_new(notes, json_sprintf("the recorded run has %zu more actions than the 50 kept as steps",
		                                          left));
	if (!json_array_size(steps)) {
		json_decref(steps);
		return NULL;
	}
	char *sid = sw__asprintf("Replay the recorded run of session %s", sw_session_id(s));
	json_t *c = gen_case("recorded-run", sid, "regression", sid, steps,
	                     "Every step succeeds as it did in the recorded run", "medium", NULL);
	json_object_set_new(c, "functionality", json_string("Recorded runs"));
	json_object_set_new(c, "lastResult", json_string(failed ? "failed" : "passed"));
	json_object_set_new(c, "actual", json_string(failed ? "At least one recorded action failed; see the session report"
	                                                    : "Every recorded action succeeded"));
	json_object_set_new(c, "sourceUri", json_sprintf("swipium://session/%s", sw_session_id(s)));
	free(sid);
	return c;
}

static const sw__opt GEN_OPTS[] = {{"feature", SW__OPT_STRING, true},          {"creativity", SW__OPT_STRING, true},
                                   {"creativityLevel", SW__OPT_ANY, true},     {"includeManualOnly", SW__OPT_BOOL, true},
                                   {"sessionId", SW__OPT_STRING, true},        {NULL, 0, false}};

SW_API int sw_suite_generate(sw_ctx *ctx, const char *project_root, sw_session *session, const char *request_json,
                             char **result_json, sw_error **err)
{
	if (!project_root || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_suite_generate: root and result are required");
	static const char *const LEVELS[] = {"conservative", "standard", "creative", "adversarial"};
	json_t *req = NULL, *out = json_object(), *gen = json_array(), *notes = json_array();
	json_t *skipped = json_array(), *blocked = json_array(), *gaps = json_array(), *map = NULL;
	char *mtext = NULL;
	int rc = sw__options_load(request_json, GEN_OPTS, "qa_suite_generate", &req, err);
	if (rc < 0)
		goto out;
	const char *cr = json_string_value(json_object_get(req, "creativity"));
	const json_t *legacy = json_object_get(req, "creativityLevel");
	if (!cr && legacy) {
		if (json_is_string(legacy))
			cr = json_string_value(legacy);
		else if (json_is_integer(legacy) && json_integer_value(legacy) >= 0 && json_integer_value(legacy) <= 3)
			cr = LEVELS[json_integer_value(legacy)];
		json_array_append_new(notes, json_string("creativityLevel is deprecated; pass creativity instead"));
	}
	int level = 1;
	if (cr) {
		level = -1;
		for (int i = 0; i < 4; i++)
			if (!strcmp(cr, LEVELS[i]))
				level = i;
		if (level < 0) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                   "creativity must be conservative, standard, creative or adversarial");
			goto out;
		}
	}
	const char *only = json_string_value(json_object_get(req, "feature"));
	bool manual = json_is_true(json_object_get(req, "includeManualOnly"));
	size_t mlen = 0;
	sw_error *me = NULL;
	if (sw__suite_read_confined(project_root, ".swipium/app-map.json", SW_SUITE_JSON_MAX_BYTES, &mtext, &mlen, NULL,
	                            &me) == SW_OK)
		map = json_loadb(mtext, mlen, 0, NULL);
	else if (sw_error_code(me) == SW_EDENIED) {
		rc = sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED", NULL,
		                   ".swipium/app-map.json resolves outside the project; it was not read");
		sw_error_free(me);
		goto out;
	}
	sw_error_free(me);
	json_t *features = json_object_get(map, "features");
	if (!map)
		json_array_append_new(gaps, json_string("no readable app map (.swipium/app-map.json): run qa_app_map_build to "
		                                        "generate cases per feature"));
	size_t i, matched = 0;
	json_t *f;
	json_array_foreach(features, i, f)
	{
		const char *fid = json_string_value(json_object_get(f, "id"));
		if (!fid)
			continue;
		if (only && strcmp(only, fid)) {
			const char *ft = json_string_value(json_object_get(f, "title"));
			char *a = sw__suite_norm(only), *b = sw__suite_norm(ft);
			bool hit = a && b && !strcmp(a, b);
			free(a);
			free(b);
			if (!hit)
				continue;
		}
		matched++;
		if (json_is_true(json_object_get(f, "stale"))) {
			json_array_append_new(skipped, json_pack("{s:s, s:s}", "featureId", fid, "reason",
			                                         "the feature is stale in the app map (its code is gone)"));
			continue;
		}
		if (level >= 3 && json_is_true(json_object_get(f, "auth")))
			json_array_append_new(blocked, json_pack("{s:s, s:s}", "featureId", fid, "reason",
			                                         "adversarial cases behind sign-in need a disposable test "
			                                         "account; they are generated with safety metadata, run them "
			                                         "only on test data"));
		size_t screens = json_array_size(json_object_get(f, "staticScreens")) +
		                 json_array_size(json_object_get(f, "runtimeScreens"));
		if (screens == 0)
			json_array_append_new(gaps, json_sprintf("feature %s has no screen in the map", fid));
		else if (json_array_size(json_object_get(f, "runtimeScreens")) == 0)
			json_array_append_new(gaps, json_sprintf("feature %s was never reached at run time (no runtime screen)", fid));
		feature_cases(f, level, manual, gen);
	}
	if (only && matched == 0)
		json_array_append_new(skipped, json_pack("{s:s, s:s}", "featureId", only, "reason",
		                                         "no feature of the app map has this id or title"));
	if (session && !only) {
		json_t *rc_case = recorded_case(session, notes);
		if (rc_case)
			json_array_append_new(gen, rc_case);
	}
	if (json_array_size(gen) == 0) {
		json_array_append_new(notes, json_string("nothing to generate: no app-map feature and no recorded run; run "
		                                         "qa_app_map_build or drive the app first"));
	}
	raw_list list = {.array = gen};
	rc = run_merge(project_root, &list, NULL, "generate", NULL, "update",
	               session ? sw_session_redactor(session) : NULL, out, err);
	if (rc < 0)
		goto out;
	json_t *generated = json_array();
	json_t *c;
	json_array_foreach(gen, i, c) json_array_append_new(
	    generated, json_pack("{s:O, s:O, s:O}", "feature", json_object_get(c, "feature"), "title",
	                         json_object_get(c, "title"), "type", json_object_get(c, "type")));
	json_object_set_new(out, "generated", generated);
	json_object_set(out, "skippedFeatures", skipped);
	json_object_set(out, "blockedFeatures", blocked);
	json_object_set(out, "coverageGaps", gaps);
	json_object_set_new(out, "creativity", json_string(LEVELS[level]));
	json_array_extend(json_object_get(out, "notes"), notes);
	*result_json = sw__json_pretty(out);
	rc = *result_json ? SW_OK : sw__error_nomem(err);
	(void)ctx;
out:
	json_decref(req);
	json_decref(out);
	json_decref(gen);
	json_decref(notes);
	json_decref(skipped);
	json_decref(blocked);
	json_decref(gaps);
	json_decref(map);
	free(mtext);
	return rc;
}
