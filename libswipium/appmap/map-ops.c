/* map-ops.c: reading, querying and updating the app map (qa_app_map_read, _query, _update) and its resources. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/appmap.h>

#include "map-internal.h"

#define INLINE_ITEMS 100
#define INLINE_BYTES (48u * 1024u)
#define PROVENANCE_KEEP 500

/* ---- request parsing ---------------------------------------------------------------------------- */

static int parse_request(const char *request_json, json_t **out, sw_error **err)
{
	json_error_t je;
	json_t *r = request_json ? json_loads(request_json, 0, &je) : json_object();
	if (!json_is_object(r)) {
		json_decref(r);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "The request is not a JSON object");
	}
	*out = r;
	return SW_OK;
}

static int finish(json_t *answer, char **out_json, sw_error **err)
{
	char *t = answer ? sw__json_compact(answer) : NULL;
	json_decref(answer);
	if (!t)
		return sw__error_nomem(err);
	*out_json = t;
	return SW_OK;
}

static int no_map(const sw__map *h, sw_error **err)
{
	int rc = sw__error_set(err, SW_ENOTFOUND, "NO_APP_MAP",
	                       "Build it with qa_app_map_build {projectRoot} (a static scan of the source).",
	                       "The project %s has no app map yet (.swipium/app-map.json)", h->root);
	if (err && *err && json_array_size(h->notes))
		sw__error_take_details(*err, json_pack("{s:O}", "notes", h->notes));
	return rc;
}

/* ---- entry URIs ------------------------------------------------------------------------------------ */

static void pct(sw_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (isalnum(*p) || strchr("-._~", *p))
			sw__buf_putc(b, (char)*p);
		else {
			sw__buf_putc(b, '%');
			sw__buf_putc(b, hex[*p >> 4]);
			sw__buf_putc(b, hex[*p & 15]);
		}
	}
}

json_t *sw__map_entry_uri(const char *map_uri, const char *kind, const char *id)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_printf(&b, "%s/%s/", map_uri, kind);
	pct(&b, id ? id : "");
	char *s = sw__buf_steal(&b, NULL);
	json_t *v = json_string(s ? s : "");
	free(s);
	return v;
}

/* ---- shapes of the map used by several calls --------------------------------------------------------- */

static json_t *static_screens(json_t *map)
{
	return sw__mj_arr(sw__mj_obj(map, "staticTopology"), "screens");
}

static json_t *runtime_screens(json_t *map)
{
	return sw__mj_arr(sw__mj_obj(map, "runtimeTopology"), "screens");
}

static json_t *test_cases(json_t *map)
{
	return sw__mj_arr(sw__mj_obj(map, "testSuite"), "cases");
}

static json_t *suites(json_t *map)
{
	return sw__mj_arr(sw__mj_obj(map, "automation"), "suites");
}

static size_t count_objects(json_t *arr)
{
	size_t n = 0, i;
	json_t *e;
	json_array_foreach(arr, i, e) n += json_is_object(e);
	return n;
}

json_t *sw__map_summary(const json_t *cmap, const char *uri)
{
	json_t *map = (json_t *)cmap;
	json_t *st = sw__mj_obj(map, "staticTopology");
	json_t *rt = sw__mj_obj(map, "runtimeTopology");
	json_t *features = sw__mj_arr(map, "features");
	json_t *auth = sw__mj_obj(map, "auth");
	json_t *flist = json_array();
	size_t i;
	json_t *f;
	json_array_foreach(features, i, f)
	{
		if (json_array_size(flist) >= 20)
			break;
		if (json_is_object(f) && sw__mj_str(f, "id"))
			json_array_append_new(flist, json_pack("{s:O, s:O?}", "id", json_object_get(f, "id"), "title",
			                                       json_object_get(f, "title")));
	}
	json_t *prov = sw__mj_arr(map, "provenance");
	size_t np = json_array_size(prov);
	json_t *last = json_array();
	for (size_t k = np > 3 ? np - 3 : 0; k < np; k++)
		json_array_append(last, json_array_get(prov, k));
	json_t *s = json_pack(
	    "{s:s, s:O?, s:O?, s:O?, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:o, s:o, s:O?, s:O?, s:O?, s:o,"
	    " s:s?}",
	    "section", "summary", "project", json_object_get(map, "project"), "appIdentity",
	    json_object_get(map, "appIdentity"), "router", json_object_get(st, "router"), "counts", "staticScreens",
	    (json_int_t)count_objects(sw__mj_arr(st, "screens")), "runtimeScreens",
	    (json_int_t)count_objects(sw__mj_arr(rt, "screens")), "staticEdges",
	    (json_int_t)json_array_size(sw__mj_arr(st, "edges")), "features", (json_int_t)count_objects(features),
	    "authScreens", (json_int_t)json_array_size(sw__mj_arr(auth, "screens")), "testCases",
	    (json_int_t)count_objects(test_cases(map)), "automationSuites", (json_int_t)count_objects(suites(map)),
	    "codeFiles", (json_int_t)json_array_size(sw__mj_arr(sw__mj_obj(map, "codeIndex"), "files")), "parserNotes",
	    (json_int_t)json_array_size(sw__mj_arr(st, "parserNotes")), "features", flist, "recentProvenance", last,
	    "confidence", json_object_get(map, "confidence"), "coverage", json_object_get(map, "coverage"), "updatedAt",
	    json_object_get(map, "updatedAt"), "sections",
	    json_pack("[s,s,s,s,s,s,s]", "summary", "screens", "features", "auth", "automation", "testSuite", "full"),
	    "uri", uri);
	json_t *framework = json_object_get(st, "framework");
	if (!framework)
		framework = json_object_get(sw__mj_obj(map, "project"), "framework");
	if (framework && s)
		json_object_set(s, "framework", framework);
	return s;
}

/* A list answered inline up to the caps; the rest counted and left to the resource. */
static json_t *capped_list(json_t *arr, json_t *(*compact)(json_t *, const char *), const char *map_uri,
                           size_t *omitted)
{
	json_t *out = json_array();
	size_t bytes = 0, i;
	json_t *e;
	*omitted = 0;
	json_array_foreach(arr, i, e)
	{
		if (!json_is_object(e))
			continue;
		json_t *c = compact ? compact(e, map_uri) : json_incref(e);
		char *t = c ? sw__json_compact(c) : NULL;
		size_t n = t ? strlen(t) : 0;
		free(t);
		if (json_array_size(out) >= INLINE_ITEMS || bytes + n > INLINE_BYTES) {
			json_decref(c);
			(*omitted)++;
			continue;
		}
		bytes += n;
		json_array_append_new(out, c);
	}
	return out;
}

static json_t *files_head(json_t *files, size_t n)
{
	json_t *out = json_array();
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f)
	{
		if (json_array_size(out) >= n)
			break;
		if (json_is_string(f))
			json_array_append(out, f);
	}
	return out;
}

/* An entry's @keys, its first @n source files (how many more is sourceFilesOmitted) and its @kind URI. */
static json_t *compact_entry(json_t *e, const char *const *keys, size_t n, const char *uri, const char *kind)
{
	json_t *o = json_object();
	for (int i = 0; keys[i]; i++)
		if (json_object_get(e, keys[i]))
			json_object_set(o, keys[i], json_object_get(e, keys[i]));
	json_t *files = json_object_get(e, "sourceFiles");
	if (json_is_array(files)) {
		json_object_set_new(o, "sourceFiles", files_head(files, n));
		if (json_array_size(files) > n)
			json_object_set_new(o, "sourceFilesOmitted", json_integer((json_int_t)(json_array_size(files) - n)));
	}
	if (sw__mj_str(e, "id"))
		json_object_set_new(o, "uri", sw__map_entry_uri(uri, kind, sw__mj_str(e, "id")));
	return o;
}

json_t *sw__map_compact_screen(json_t *e, const char *uri)
{
	static const char *const keys[] = {"id",      "name",     "title",  "route",  "kind",           "confidence",
	                                   "auth",    "activity", "health", "visits", "staticScreenId", "layout",
	                                   "dynamic", NULL};
	return compact_entry(e, keys, 3, uri, "screen");
}

static json_t *compact_feature(json_t *e, const char *uri)
{
	static const char *const keys[] = {"id",       "title",      "staticScreens", "runtimeScreens",
	                                   "coverage", "confidence", "auth",          NULL};
	return compact_entry(e, keys, 5, uri, "feature");
}

static json_t *linked(json_t *arr, const char *key, const char *id)
{
	json_t *out = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
	{
		const char *v = sw__mj_str(e, key);
		if (v && id && !strcmp(v, id))
			json_array_append(out, e);
		json_t *ids = json_object_get(e, key);
		if (json_is_array(ids)) {
			size_t j;
			json_t *x;
			json_array_foreach(ids, j, x) if (json_string_value(x) && !strcmp(json_string_value(x), id))
			{
				json_array_append(out, e);
				break;
			}
		}
	}
	return out;
}

static json_t *id_list(json_t *arr, size_t max)
{
	json_t *out = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
	{
		if (json_array_size(out) >= max)
			break;
		const char *id = sw__mj_str(e, "id");
		if (id)
			json_array_append_new(out, json_string(id));
	}
	return out;
}

/* ---- qa_app_map_read ------------------------------------------------------------------------------ */

static json_t *section_answer(json_t *map, const char *section, const char *uri)
{
	size_t omitted = 0;
	json_t *o = NULL;
	if (!strcmp(section, "screens")) {
		json_t *st = capped_list(static_screens(map), sw__map_compact_screen, uri, &omitted);
		size_t omitted_rt = 0;
		json_t *rt = capped_list(runtime_screens(map), sw__map_compact_screen, uri, &omitted_rt);
		o = json_pack("{s:s, s:o, s:o, s:I, s:I, s:O?}", "section", section, "staticScreens", st,
		              "runtimeScreens", rt, "staticTotal", (json_int_t)count_objects(static_screens(map)),
		              "runtimeTotal", (json_int_t)count_objects(runtime_screens(map)), "parserNotes",
		              json_object_get(sw__mj_obj(map, "staticTopology"), "parserNotes"));
		omitted += omitted_rt;
		json_t *edges = sw__mj_arr(sw__mj_obj(map, "staticTopology"), "edges");
		json_object_set_new(o, "staticEdgeCount", json_integer((json_int_t)json_array_size(edges)));
		json_t *deep = json_object_get(sw__mj_obj(map, "staticTopology"), "deepLinks");
		if (deep)
			json_object_set(o, "deepLinks", deep);
	} else if (!strcmp(section, "features")) {
		json_t *fl = capped_list(sw__mj_arr(map, "features"), compact_feature, uri, &omitted);
		o = json_pack("{s:s, s:o, s:I}", "section", section, "features", fl, "total",
		              (json_int_t)count_objects(sw__mj_arr(map, "features")));
	} else if (!strcmp(section, "auth")) {
		json_t *auth = sw__mj_obj(map, "auth");
		o = json_pack("{s:s, s:O?}", "section", section, "auth", auth);
		json_t *screens = json_array();
		size_t i;
		json_t *id;
		json_array_foreach(sw__mj_arr(auth, "screens"), i, id)
		{
			const char *sid = json_is_string(id) ? json_string_value(id) : sw__mj_str(id, "id");
			json_t *e = sw__mj_find(static_screens(map), "id", sid, NULL);
			if (e)
				json_array_append_new(screens, sw__map_compact_screen(e, uri));
		}
		json_object_set_new(o, "screens", screens);
	} else if (!strcmp(section, "automation")) {
		json_t *a = sw__mj_obj(map, "automation");
		json_t *sl = capped_list(suites(map), NULL, uri, &omitted);
		o = json_pack("{s:s, s:o, s:I, s:O?}", "section", section, "suites", sl, "total",
		              (json_int_t)count_objects(suites(map)), "environment", json_object_get(a, "environment"));
	} else if (!strcmp(section, "testSuite")) {
		json_t *cl = capped_list(test_cases(map), NULL, uri, &omitted);
		o = json_pack("{s:s, s:o, s:I}", "section", section, "cases", cl, "total",
		              (json_int_t)count_objects(test_cases(map)));
	}
	if (o && omitted) {
		json_object_set_new(o, "omitted", json_integer((json_int_t)omitted));
		json_object_set_new(
		    o, "omittedNote",
		    json_string("More entries than fit inline: read the whole map from the uri (resources/"
		                "read) or one entry by its own uri."));
	}
	return o;
}

SW_API int sw_appmap_read(sw_ctx *ctx, const char *root, const char *request_json, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_appmap_read: out_json is NULL");
	json_t *req;
	int rc = parse_request(request_json, &req, err);
	if (rc < 0)
		return rc;
	const char *section = sw__mj_str(req, "section");
	const char *feature_id = sw__mj_str(req, "featureId"), *screen_id = sw__mj_str(req, "screenId");
	static const char *const known[] = {"summary",    "screens",   "features", "auth",
	                                    "automation", "testSuite", "full"};
	bool ok = !section;
	for (size_t i = 0; section && i < sizeof(known) / sizeof(known[0]); i++)
		ok |= !strcmp(section, known[i]);
	if (!ok) {
		json_decref(req);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Use summary, screens, features, auth, automation, testSuite or full.",
		                     "Unknown app-map section \"%s\"", section);
	}
	sw__map h;
	rc = sw__map_open(ctx, root, 0, &h, err);
	if (rc < 0) {
		json_decref(req);
		sw__map_close(&h);
		return rc;
	}
	if (!h.map) {
		rc = no_map(&h, err);
		goto out;
	}
	json_t *answer = sw__map_answer(&h);
	if (feature_id) {
		json_t *f = sw__mj_find(sw__mj_arr(h.map, "features"), "id", feature_id, NULL);
		if (!f) {
			json_t *ids = id_list(sw__mj_arr(h.map, "features"), 20);
			char *list = sw__json_compact(ids);
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
			                   "Pick a featureId from qa_app_map_read {section:\"features\"}.",
			                   "No feature \"%s\" in the app map (known: %s)", feature_id,
			                   list ? list : "[]");
			free(list);
			json_decref(ids);
			json_decref(answer);
			goto out;
		}
		json_t *screens = json_array();
		size_t i;
		json_t *sid;
		json_array_foreach(json_object_get(f, "staticScreens"), i, sid)
		{
			json_t *e = sw__mj_find(static_screens(h.map), "id", json_string_value(sid), NULL);
			if (e)
				json_array_append_new(screens, sw__map_compact_screen(e, h.uri));
		}
		json_object_set_new(answer, "section", json_string("feature"));
		json_object_set(answer, "feature", f);
		json_object_set_new(answer, "screens", screens);
		json_object_set_new(answer, "testCases", linked(test_cases(h.map), "featureId", feature_id));
		json_object_set_new(answer, "suites", linked(suites(h.map), "linkedFeatureIds", feature_id));
		json_object_set_new(answer, "entryUri", sw__map_entry_uri(h.uri, "feature", feature_id));
	}
	if (screen_id) {
		const char *where = "static";
		json_t *e = sw__mj_find(static_screens(h.map), "id", screen_id, NULL);
		if (!e) {
			e = sw__mj_find(runtime_screens(h.map), "id", screen_id, NULL);
			where = "runtime";
		}
		if (!e) {
			json_t *ids = id_list(static_screens(h.map), 20);
			char *list = sw__json_compact(ids);
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
			                   "Pick a screenId from qa_app_map_read {section:\"screens\"}.",
			                   "No screen \"%s\" in the app map (static screens: %s)", screen_id,
			                   list ? list : "[]");
			free(list);
			json_decref(ids);
			json_decref(answer);
			goto out;
		}
		if (!feature_id)
			json_object_set_new(answer, "section", json_string("screen"));
		json_object_set(answer, "screen", e);
		json_object_set_new(answer, "screenSource", json_string(where));
		json_object_set_new(answer, "screenTestCases", linked(test_cases(h.map), "screenId", screen_id));
		json_object_set_new(answer, "screenUri", sw__map_entry_uri(h.uri, "screen", screen_id));
	}
	if (!feature_id && !screen_id) {
		const char *sec = section ? section : "summary";
		if (!strcmp(sec, "summary")) {
			json_t *s = sw__map_summary(h.map, h.uri);
			json_object_update(answer, s);
			json_decref(s);
		} else if (!strcmp(sec, "full")) {
			json_t *s = sw__map_summary(h.map, h.uri);
			json_object_update(answer, s);
			json_decref(s);
			json_object_set_new(answer, "section", json_string("full"));
			json_object_set_new(answer, "bytes", json_integer((json_int_t)h.raw_len));
			json_object_set_new(
			    answer, "fullByUri",
			    json_string("The whole map is not answered inline: read it with resources/read "
			                "on the uri, or one section at a time."));
		} else {
			json_t *s = section_answer(h.map, sec, h.uri);
			json_object_update(answer, s);
			json_decref(s);
		}
	}
	sw__map_answer_notes(&h, answer);
	rc = finish(answer, out_json, err);
out:
	json_decref(req);
	sw__map_close(&h);
	return rc;
}

/* ---- qa_app_map_query ------------------------------------------------------------------------------- */

/* Lower-cased words of @s; camelCase and digits split ("LoginScreen2" -> login, screen, 2). */
void sw__map_words(const char *s, json_t *out)
{
	if (!s)
		return;
	char w[128];
	size_t n = 0;
	for (const char *p = s;; p++) {
		unsigned char c = (unsigned char)*p;
		bool alnum = c && (isalnum(c) || c >= 0x80);
		bool split = alnum && n > 0 && isupper(c) && islower((unsigned char)p[-1]);
		if ((!alnum || split) && n) {
			w[n] = '\0';
			json_array_append_new(out, json_string(w));
			n = 0;
		}
		if (!c)
			break;
		if (alnum && n < sizeof(w) - 1)
			w[n++] = (char)tolower(c);
	}
}

bool sw__map_stopword(const char *w)
{
	static const char *const stop[] = {"the", "a",    "an", "of", "to",    "for",  "and",   "or",  "in",
	                                   "on",  "with", "my", "is", "where", "what", "which", "how", "does"};
	for (size_t i = 0; i < sizeof(stop) / sizeof(stop[0]); i++)
		if (!strcmp(w, stop[i]))
			return true;
	return false;
}

/* How well one field (weight @w) matches query word @q: exact word, prefix, substring. */
static double field_match(const char *q, const char *field, double w)
{
	if (!field || !*field)
		return 0;
	json_t *fw = json_array();
	sw__map_words(field, fw);
	double best = 0;
	size_t ql = strlen(q), i;
	json_t *x;
	json_array_foreach(fw, i, x)
	{
		const char *f = json_string_value(x);
		size_t fl = strlen(f);
		if (!strcmp(f, q))
			best = fmax(best, w);
		else if (ql >= 3 && fl >= 3 && (!strncmp(f, q, ql < fl ? ql : fl)))
			best = fmax(best, w * 0.6);
		else if (ql >= 4 && strstr(f, q))
			best = fmax(best, w * 0.4);
	}
	json_decref(fw);
	return best;
}

double sw__map_score(json_t *qwords, json_t *e, const sw__field_spec *fields, bool files)
{
	size_t nq = json_array_size(qwords), i;
	if (!nq)
		return 0;
	double total = 0;
	json_t *qw;
	json_array_foreach(qwords, i, qw)
	{
		const char *q = json_string_value(qw);
		double best = 0;
		for (const sw__field_spec *f = fields; f->key; f++)
			best = fmax(best, field_match(q, sw__mj_str(e, f->key), f->weight));
		if (files) {
			size_t j;
			json_t *p;
			json_array_foreach(json_object_get(e, "sourceFiles"), j, p) best =
			    fmax(best, field_match(q, json_string_value(p), 1.5));
			const char *path = sw__mj_str(e, "path");
			if (path)
				best = fmax(best, field_match(q, path, 2.0));
			json_array_foreach(json_object_get(e, "symbols"), j, p) best =
			    fmax(best, field_match(q, json_string_value(p), 2.5));
		}
		total += best;
	}
	return total / (3.0 * (double)nq);
}

static bool tool_ok(json_t *tools, const char *name)
{
	if (!json_is_array(tools))
		return !strcmp(name, "qa_app_map_read");
	size_t i;
	json_t *t;
	json_array_foreach(tools, i, t) if (json_string_value(t) && !strcmp(json_string_value(t), name)) return true;
	return false;
}

/* The first of @prefs (tool, args, why triples) that the caller can call; qa_app_map_read is the fallback. */
json_t *sw__map_next_tool(json_t *tools, const char *type, const char *id, const char *query)
{
	if (!strcmp(type, "feature")) {
		if (tool_ok(tools, "qa_test_feature"))
			return json_pack("{s:s, s:{s:s}, s:s}", "tool", "qa_test_feature", "args", "featureId", id,
			                 "why", "plan a test of this feature");
		if (tool_ok(tools, "qa_app_map_feature_scope"))
			return json_pack("{s:s, s:{s:s}, s:s}", "tool", "qa_app_map_feature_scope", "args", "featureId",
			                 id, "why", "see its screens, code, tests and coverage gaps");
		return json_pack("{s:s, s:{s:s}, s:s}", "tool", "qa_app_map_read", "args", "featureId", id, "why",
		                 "read the feature's screens and tests");
	}
	if (!strcmp(type, "screen") || !strcmp(type, "runtime_screen"))
		return json_pack("{s:s, s:{s:s}, s:s}", "tool", "qa_app_map_read", "args", "screenId", id, "why",
		                 "read the screen's source files, route and tests");
	if (!strcmp(type, "code")) {
		if (tool_ok(tools, "qa_app_map_feature_scope"))
			return json_pack("{s:s, s:{s:s}, s:s}", "tool", "qa_app_map_feature_scope", "args", "query",
			                 query, "why", "find the feature this code belongs to");
		return json_pack("{s:s, s:{s:s}, s:s}", "tool", "qa_app_map_read", "args", "section", "features", "why",
		                 "see which feature lists this file");
	}
	if (!strcmp(type, "suite") && tool_ok(tools, "qa_flow_check") && id && sw__str_has_suffix(id, ".yaml"))
		return json_pack("{s:s, s:{s:s}, s:s}", "tool", "qa_flow_check", "args", "path", id, "why",
		                 "check the flow before running it");
	return json_pack("{s:s, s:{s:s}, s:s}", "tool", "qa_app_map_read", "args", "section",
	                 !strcmp(type, "suite") ? "automation" : "testSuite", "why", "read the existing tests");
}

json_t *sw__map_provenance_of(json_t *e, const char *source)
{
	json_t *p = json_object_get(e, "provenance");
	if (json_is_array(p))
		return json_incref(p);
	json_t *out = json_array();
	json_t *reasons = json_object_get(e, "reasons");
	json_t *o = json_pack("{s:s}", "source", source);
	if (json_array_size(reasons))
		json_object_set(o, "detail", json_array_get(reasons, 0));
	if (sw__mj_str(e, "sessionId"))
		json_object_set(o, "sessionId", json_object_get(e, "sessionId"));
	if (sw__mj_str(e, "jobId"))
		json_object_set(o, "jobId", json_object_get(e, "jobId"));
	if (sw__mj_str(e, "source"))
		json_object_set(o, "detail", json_object_get(e, "source"));
	json_array_append_new(out, o);
	return out;
}

typedef struct {
	double score;
	int order;
	json_t *result;
} hit;

static int cmp_hit(const void *a, const void *b)
{
	const hit *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->order - y->order;
}

static void add_hit(hit **hits, size_t *n, size_t *cap, double score, int order, json_t *r)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		hit *nh = realloc(*hits, nc * sizeof(hit));
		if (!nh) {
			json_decref(r);
			return;
		}
		*hits = nh;
		*cap = nc;
	}
	(*hits)[(*n)++] = (hit){score, order, r};
}

static double conf_of(json_t *e, double def)
{
	json_t *c = json_object_get(e, "confidence");
	return json_is_number(c) ? json_number_value(c) : def;
}

static json_t *str_array(const char *s)
{
	json_t *a = json_array();
	if (s)
		json_array_append_new(a, json_string(s));
	return a;
}

SW_API int sw_appmap_query(sw_ctx *ctx, const char *root, const char *request_json, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_appmap_query: out_json is NULL");
	json_t *req;
	int rc = parse_request(request_json, &req, err);
	if (rc < 0)
		return rc;
	const char *query = sw__mj_str(req, "query");
	const char *intent = sw__mj_str(req, "intent");
	json_t *tools = json_object_get(req, "tools");
	json_t *lim = json_object_get(req, "limit");
	long limit = json_is_number(lim) ? (long)json_number_value(lim) : 10;
	json_t *qwords = json_array();
	json_t *allw = json_array();
	sw__map_words(query, allw);
	size_t i;
	json_t *w;
	json_array_foreach(allw, i, w) if (!sw__map_stopword(json_string_value(w))) json_array_append(qwords, w);
	json_decref(allw);
	if (!query || !json_array_size(qwords)) {
		json_decref(qwords);
		json_decref(req);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Pass query as a few words naming a feature, screen, file or test (\"login\").",
		                     "query has no searchable words");
	}
	if (limit < 1 || limit > 50) {
		json_decref(qwords);
		json_decref(req);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass limit between 1 and 50.",
		                     "limit %ld is out of range", limit);
	}
	sw__map h;
	rc = sw__map_open(ctx, root, 0, &h, err);
	if (rc < 0)
		goto out0;
	if (!h.map) {
		rc = no_map(&h, err);
		goto out0;
	}
	hit *hits = NULL;
	size_t n = 0, cap = 0;
	static const sw__field_spec feature_f[] = {{"id", 3}, {"title", 3}, {NULL, 0}};
	static const sw__field_spec screen_f[] = {{"name", 3}, {"id", 3}, {"route", 2.5}, {"kind", 1}, {NULL, 0}};
	static const sw__field_spec runtime_f[] = {{"title", 3}, {"activity", 2}, {"signature", 1}, {NULL, 0}};
	static const sw__field_spec case_f[] = {
	    {"title", 3}, {"id", 2.5}, {"featureId", 2}, {"screenId", 2}, {NULL, 0}};
	static const sw__field_spec suite_f[] = {{"name", 3}, {"path", 2}, {"framework", 1}, {NULL, 0}};
	static const sw__field_spec file_f[] = {{NULL, 0}};
	const double boost = 1.25;
	json_t *e;
	json_array_foreach(sw__mj_arr(h.map, "features"), i, e)
	{
		double s = sw__map_score(qwords, e, feature_f, true);
		if (s <= 0 || !sw__mj_str(e, "id"))
			continue;
		if (intent && !strcmp(intent, "feature"))
			s *= boost;
		add_hit(&hits, &n, &cap, s, 0,
		        json_pack("{s:s, s:O, s:O?, s:O, s:o, s:o, s:O?}", "type", "feature", "id",
		                  json_object_get(e, "id"), "title", json_object_get(e, "title"), "sourceFiles",
		                  json_is_array(json_object_get(e, "sourceFiles")) ? json_object_get(e, "sourceFiles")
		                                                                   : json_array(),
		                  "screens",
		                  json_is_array(json_object_get(e, "staticScreens"))
		                      ? json_incref(json_object_get(e, "staticScreens"))
		                      : json_array(),
		                  "provenance", sw__map_provenance_of(e, "static_scan"), "coverage",
		                  json_object_get(e, "coverage")));
		json_object_set_new(hits[n - 1].result, "confidence", json_real(conf_of(e, 0.6)));
	}
	json_array_foreach(static_screens(h.map), i, e)
	{
		double s = sw__map_score(qwords, e, screen_f, true);
		if (s <= 0 || !sw__mj_str(e, "id"))
			continue;
		if (intent && !strcmp(intent, "screen"))
			s *= boost;
		json_t *files = json_object_get(e, "sourceFiles");
		add_hit(&hits, &n, &cap, s, 1,
		        json_pack("{s:s, s:O, s:O?, s:o, s:o, s:o, s:O?}", "type", "screen", "id",
		                  json_object_get(e, "id"), "title", json_object_get(e, "name"), "sourceFiles",
		                  json_is_array(files) ? json_incref(files) : json_array(), "screens",
		                  str_array(sw__mj_str(e, "id")), "provenance", sw__map_provenance_of(e, "static_scan"),
		                  "route", json_object_get(e, "route")));
		json_object_set_new(hits[n - 1].result, "confidence", json_real(conf_of(e, 0.6)));
	}
	json_array_foreach(runtime_screens(h.map), i, e)
	{
		double s = sw__map_score(qwords, e, runtime_f, false);
		size_t j;
		json_t *el;
		json_array_foreach(json_object_get(e, "elements"), j, el)
		{
			if (j >= 60)
				break;
			static const sw__field_spec el_f[] = {{"label", 1.5}, {"id", 1}, {NULL, 0}};
			s = fmax(s, sw__map_score(qwords, el, el_f, false));
		}
		if (s <= 0 || !sw__mj_str(e, "id"))
			continue;
		if (intent && !strcmp(intent, "screen"))
			s *= boost;
		json_t *scr = str_array(sw__mj_str(e, "id"));
		if (sw__mj_str(e, "staticScreenId"))
			json_array_append(scr, json_object_get(e, "staticScreenId"));
		add_hit(&hits, &n, &cap, s, 2,
		        json_pack("{s:s, s:O, s:O?, s:[], s:o, s:o}", "type", "runtime_screen", "id",
		                  json_object_get(e, "id"), "title", json_object_get(e, "title"), "sourceFiles",
		                  "screens", scr, "provenance", sw__map_provenance_of(e, "runtime_merge")));
		json_object_set_new(hits[n - 1].result, "confidence", json_real(conf_of(e, 0.9)));
	}
	json_array_foreach(sw__mj_arr(sw__mj_obj(h.map, "codeIndex"), "files"), i, e)
	{
		double s = sw__map_score(qwords, e, file_f, true);
		const char *path = sw__mj_str(e, "path");
		if (s <= 0 || !path)
			continue;
		if (intent && !strcmp(intent, "code"))
			s *= boost;
		json_t *scr = json_is_array(json_object_get(e, "screens")) ? json_incref(json_object_get(e, "screens"))
		                                                           : json_array();
		add_hit(&hits, &n, &cap, s, 3,
		        json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "type", "code", "id", path, "title", path,
		                  "sourceFiles", str_array(path), "screens", scr, "provenance",
		                  sw__map_provenance_of(e, "static_scan")));
		json_object_set_new(hits[n - 1].result, "confidence", json_real(conf_of(e, 0.5)));
	}
	json_array_foreach(test_cases(h.map), i, e)
	{
		double s = sw__map_score(qwords, e, case_f, false);
		if (s <= 0 || !sw__mj_str(e, "id"))
			continue;
		if (intent && !strcmp(intent, "test"))
			s *= boost;
		add_hit(&hits, &n, &cap, s, 4,
		        json_pack("{s:s, s:O, s:O?, s:[], s:o, s:o, s:O?}", "type", "test", "id",
		                  json_object_get(e, "id"), "title", json_object_get(e, "title"), "sourceFiles",
		                  "screens", str_array(sw__mj_str(e, "screenId")), "provenance",
		                  sw__map_provenance_of(e, "qa_app_map_update"), "status",
		                  json_object_get(e, "status")));
		json_object_set_new(hits[n - 1].result, "confidence",
		                    json_real(json_is_true(json_object_get(e, "stale")) ? 0.4 : conf_of(e, 0.8)));
	}
	json_array_foreach(suites(h.map), i, e)
	{
		double s = sw__map_score(qwords, e, suite_f, false);
		if (s <= 0 || !sw__mj_str(e, "path"))
			continue;
		if (intent && !strcmp(intent, "test"))
			s *= boost;
		json_t *scr = json_is_array(json_object_get(e, "linkedScreenIds"))
		                  ? json_incref(json_object_get(e, "linkedScreenIds"))
		                  : json_array();
		add_hit(&hits, &n, &cap, s, 5,
		        json_pack("{s:s, s:O, s:O?, s:o, s:o, s:o}", "type", "suite", "id", json_object_get(e, "path"),
		                  "title", json_object_get(e, "name"), "sourceFiles", str_array(sw__mj_str(e, "path")),
		                  "screens", scr, "provenance", sw__map_provenance_of(e, "qa_app_map_update")));
		json_object_set_new(hits[n - 1].result, "confidence", json_real(conf_of(e, 0.8)));
	}
	if (n)
		qsort(hits, n, sizeof(hit), cmp_hit);
	json_t *results = json_array();
	for (size_t k = 0; k < n; k++) {
		if ((long)k < limit) {
			json_t *r = hits[k].result;
			double sc = hits[k].score > 1 ? 1 : hits[k].score;
			json_object_set_new(r, "score", json_real(round(sc * 1000) / 1000));
			json_object_set_new(
			    r, "recommendedNextTool",
			    sw__map_next_tool(tools, sw__mj_str(r, "type"), sw__mj_str(r, "id"), query));
			json_array_append_new(results, r);
		} else {
			json_decref(hits[k].result);
		}
	}
	free(hits);
	json_t *answer = sw__map_answer(&h);
	json_object_set_new(answer, "query", json_string(query));
	if (intent)
		json_object_set_new(answer, "intent", json_string(intent));
	json_object_set_new(answer, "results", results);
	json_object_set_new(answer, "matched", json_integer((json_int_t)n));
	if (n > (size_t)limit)
		json_object_set_new(answer, "omitted", json_integer((json_int_t)(n - (size_t)limit)));
	sw__map_answer_notes(&h, answer);
	rc = finish(answer, out_json, err);
out0:
	json_decref(qwords);
	json_decref(req);
	sw__map_close(&h);
	return rc;
}

/* ---- qa_app_map_update ------------------------------------------------------------------------------ */

void sw__map_push_provenance(json_t *map, json_t *entry)
{
	json_t *prov = sw__mj_arr_ensure(map, "provenance");
	json_array_append_new(prov, entry);
	while (json_array_size(prov) > PROVENANCE_KEEP)
		json_array_remove(prov, 0);
}

char *sw__map_slug(const char *s)
{
	sw_buf b = SW_BUF_INIT;
	bool dash = false;
	for (const unsigned char *p = (const unsigned char *)s; p && *p && b.len < 120; p++) {
		if (isalnum(*p)) {
			if (dash && b.len)
				sw__buf_putc(&b, '-');
			sw__buf_putc(&b, (char)tolower(*p));
			dash = false;
		} else {
			dash = true;
		}
	}
	return sw__buf_steal(&b, NULL);
}

static const char *unknown_feature(json_t *map, json_t *req)
{
	json_t *features = sw__mj_arr(map, "features");
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(req, "testCases"), i, c)
	{
		const char *f = sw__mj_str(c, "featureId");
		if (f && !sw__mj_find(features, "id", f, NULL))
			return f;
	}
	const char *f = sw__mj_str(json_object_get(req, "featureCoverage"), "featureId");
	if (f && !sw__mj_find(features, "id", f, NULL))
		return f;
	json_array_foreach(json_object_get(json_object_get(req, "automationSuite"), "linkedFeatureIds"), i, c)
	{
		const char *x = json_string_value(c);
		if (x && !sw__mj_find(features, "id", x, NULL))
			return x;
	}
	return NULL;
}

static int check_update(json_t *req, sw_error **err)
{
	json_t *cases = json_object_get(req, "testCases");
	json_t *suite = json_object_get(req, "automationSuite");
	json_t *cov = json_object_get(req, "featureCoverage");
	const char *note = sw__mj_str(req, "note"), *env = sw__mj_str(req, "environment");
	if (cases && !json_is_array(cases))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "testCases must be an array");
	if (!json_array_size(cases) && !suite && !cov && !(note && *note) && !(env && *env))
		return sw__error_set(
		    err, SW_EINVAL, "INVALID_ARGUMENT",
		    "Pass at least one of note, testCases, automationSuite, environment or featureCoverage.",
		    "Nothing to update: the call names no test case, suite, environment, coverage or note");
	size_t i;
	json_t *c;
	json_array_foreach(cases, i, c)
	{
		const char *id = sw__mj_str(c, "id"), *title = sw__mj_str(c, "title");
		if (!json_is_object(c) || !id || !*id || !title || !*title)
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
			                     "Give every test case a non-empty id and title.",
			                     "testCases[%zu] needs a non-empty id and title", i);
	}
	if (suite) {
		const char *name = sw__mj_str(suite, "name"), *path = sw__mj_str(suite, "path");
		if (!json_is_object(suite) || !name || !*name || !path || !*path)
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "automationSuite needs a non-empty name and path");
	}
	if (cov) {
		const char *f = sw__mj_str(cov, "featureId"), *v = sw__mj_str(cov, "coverage");
		if (!json_is_object(cov) || !f || !v ||
		    (strcmp(v, "none") && strcmp(v, "partial") && strcmp(v, "covered")))
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "featureCoverage needs featureId and coverage none|partial|covered");
	}
	return SW_OK;
}

SW_API int sw_appmap_update(sw_ctx *ctx, const char *root, const char *request_json, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_appmap_update: out_json is NULL");
	json_t *req;
	int rc = parse_request(request_json, &req, err);
	if (rc < 0)
		return rc;
	if ((rc = check_update(req, err)) < 0) {
		json_decref(req);
		return rc;
	}
	sw__map h;
	rc = sw__map_open(ctx, root, SW__MAP_WRITE, &h, err);
	if (rc < 0)
		goto out;
	if (!h.map) {
		rc = no_map(&h, err);
		goto out;
	}
	const char *bad = unknown_feature(h.map, req);
	if (bad) {
		json_t *ids = id_list(sw__mj_arr(h.map, "features"), 20);
		char *list = sw__json_compact(ids);
		rc = sw__error_set(
		    err, SW_EINVAL, "INVALID_ARGUMENT",
		    "Use a featureId the map has (qa_app_map_read {section:\"features\"}); nothing was changed.",
		    "No feature \"%s\" in the app map (known: %s); the map was left as it was", bad,
		    list ? list : "[]");
		free(list);
		json_decref(ids);
		goto out;
	}
	json_t *map = json_deep_copy(h.map);
	if (!map) {
		rc = sw__error_nomem(err);
		goto out;
	}
	char *now = sw__iso_now();
	const char *sid = sw__mj_str(req, "sessionId");
	size_t added = 0, replaced = 0, i;
	json_t *c;
	json_t *cases = sw__mj_arr_ensure(sw__mj_obj_ensure(map, "testSuite"), "cases");
	json_array_foreach(json_object_get(req, "testCases"), i, c)
	{
		json_t *entry =
		    json_pack("{s:O, s:O}", "id", json_object_get(c, "id"), "title", json_object_get(c, "title"));
		static const char *const opt[] = {"featureId", "screenId", "status", "source", "stale", NULL};
		for (int k = 0; opt[k]; k++)
			if (json_object_get(c, opt[k]))
				json_object_set(entry, opt[k], json_object_get(c, opt[k]));
		if (!json_object_get(entry, "source"))
			json_object_set_new(entry, "source", json_string("qa_app_map_update"));
		json_object_set_new(entry, "updatedAt", json_string(now ? now : ""));
		if (sid)
			json_object_set_new(entry, "sessionId", json_string(sid));
		size_t at;
		json_t *old = sw__mj_find(cases, "id", sw__mj_str(c, "id"), &at);
		if (old) {
			json_t *created = json_object_get(old, "createdAt");
			json_object_set(entry, "createdAt", created ? created : json_object_get(entry, "updatedAt"));
			json_array_set_new(cases, at, entry);
			replaced++;
		} else {
			json_object_set(entry, "createdAt", json_object_get(entry, "updatedAt"));
			json_array_append_new(cases, entry);
			added++;
		}
	}
	json_t *answer = sw__map_answer(&h);
	json_t *changes = json_object();
	if (added || replaced)
		json_object_set_new(
		    changes, "testCases",
		    json_pack("{s:I, s:I}", "added", (json_int_t)added, "replaced", (json_int_t)replaced));
	json_t *suite = json_object_get(req, "automationSuite");
	if (suite) {
		json_t *automation = sw__mj_obj_ensure(map, "automation");
		json_t *list = sw__mj_arr_ensure(automation, "suites");
		json_t *entry = json_deep_copy(suite);
		char *id = sw__map_slug(sw__mj_str(suite, "path"));
		json_object_set_new(entry, "id", json_string(id && *id ? id : "suite"));
		free(id);
		json_object_set_new(entry, "updatedAt", json_string(now ? now : ""));
		size_t at;
		bool exists = sw__mj_find(list, "path", sw__mj_str(suite, "path"), &at) != NULL;
		if (exists)
			json_array_set_new(list, at, entry);
		else
			json_array_append_new(list, entry);
		json_object_set_new(changes, "automationSuite", json_string(exists ? "replaced" : "added"));
	}
	const char *env = sw__mj_str(req, "environment");
	if (env && *env) {
		json_object_set_new(sw__mj_obj_ensure(map, "automation"), "environment", json_string(env));
		json_object_set_new(changes, "environment", json_string(env));
	}
	json_t *cov = json_object_get(req, "featureCoverage");
	if (cov) {
		const char *fid = sw__mj_str(cov, "featureId");
		json_t *covmap = sw__mj_obj_ensure(sw__mj_obj_ensure(map, "coverage"), "features");
		json_object_set(covmap, fid, json_object_get(cov, "coverage"));
		json_t *f = sw__mj_find(sw__mj_arr(map, "features"), "id", fid, NULL);
		if (f)
			json_object_set(f, "coverage", json_object_get(cov, "coverage"));
		json_object_set(changes, "featureCoverage", cov);
	}
	const char *note = sw__mj_str(req, "note");
	if (note && *note) {
		json_t *p = json_pack("{s:s, s:s, s:s}", "kind", "user_note", "at", now ? now : "", "note", note);
		if (sid)
			json_object_set_new(p, "sessionId", json_string(sid));
		sw__map_push_provenance(map, p);
		json_object_set_new(changes, "note", json_true());
	}
	char *detail = sw__json_compact(changes);
	json_t *p =
	    json_pack("{s:s, s:s, s:s}", "kind", "update", "at", now ? now : "", "detail", detail ? detail : "");
	free(detail);
	if (sid)
		json_object_set_new(p, "sessionId", json_string(sid));
	sw__map_push_provenance(map, p);
	free(now);
	rc = sw__map_commit(&h, map, err);
	json_decref(map);
	if (rc < 0) {
		json_decref(answer);
		json_decref(changes);
		goto out;
	}
	json_object_set_new(answer, "updated", changes);
	json_t *now_map = json_loads(h.raw, 0, NULL);
	json_object_set_new(answer, "counts",
	                    json_pack("{s:I, s:I}", "testCases", (json_int_t)count_objects(test_cases(now_map)),
	                              "automationSuites", (json_int_t)count_objects(suites(now_map))));
	json_decref(now_map);
	sw__map_answer_notes(&h, answer);
	rc = finish(answer, out_json, err);
out:
	json_decref(req);
	sw__map_close(&h);
	return rc;
}

/* ---- resources ------------------------------------------------------------------------------------------ */

SW_API int sw_appmap_resource(sw_ctx *ctx, const char *root, const char *kind, const char *id, char **out_json,
                              sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_appmap_resource: out_json is NULL");
	sw__map h;
	int rc = sw__map_open(ctx, root, 0, &h, err);
	if (rc < 0)
		goto out;
	if (!h.map) {
		rc = sw__error_set(err, SW_ENOTFOUND, "NO_APP_MAP", NULL, "the project has no app map");
		goto out;
	}
	json_t *doc = NULL;
	if (!kind) {
		doc = h.map;
	} else if (id && !strcmp(kind, "feature")) {
		doc = sw__mj_find(sw__mj_arr(h.map, "features"), "id", id, NULL);
	} else if (id && !strcmp(kind, "screen")) {
		doc = sw__mj_find(static_screens(h.map), "id", id, NULL);
		if (!doc)
			doc = sw__mj_find(runtime_screens(h.map), "id", id, NULL);
	} else if (id && !strcmp(kind, "test-suite")) {
		doc = sw__mj_find(suites(h.map), "id", id, NULL);
		if (!doc)
			doc = sw__mj_find(suites(h.map), "path", id, NULL);
		if (!doc)
			doc = sw__mj_find(suites(h.map), "name", id, NULL);
		if (!doc)
			doc = sw__mj_find(test_cases(h.map), "id", id, NULL);
	}
	if (!doc) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "no app-map %s entry with that id",
		                   kind ? kind : "?");
		goto out;
	}
	char *t = sw__json_pretty(doc);
	if (!t) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*out_json = t;
	rc = SW_OK;
out:
	sw__map_close(&h);
	return rc;
}

SW_API int sw_appmap_check(const char *text, size_t len, char **out_json, sw_error **err)
{
	if (!text)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_appmap_check: text is NULL");
	json_error_t je;
	json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	const char *why = "it is not valid JSON";
	if (!v || !sw__map_valid(v, &why)) {
		json_decref(v);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "not a usable app map: %s", why);
	}
	int rc = SW_OK;
	if (out_json) {
		json_t *s = sw__map_summary(v, "swipium://project/0000000000000000/app-map");
		/* the section renderers must take any map the check accepts */
		static const char *const secs[] = {"screens", "features", "auth", "automation", "testSuite"};
		for (size_t i = 0; s && i < sizeof(secs) / sizeof(secs[0]); i++) {
			json_t *x = section_answer(v, secs[i], "swipium://project/0000000000000000/app-map");
			json_object_set_new(s, secs[i], x ? x : json_null());
		}
		rc = finish(s, out_json, err);
	}
	json_decref(v);
	return rc;
}
