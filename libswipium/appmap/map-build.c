/* map-build.c: building the app map (static scan, runtime merge of an exploration graph) and a feature's scope. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/appmap.h>
#include <swipium/appscan.h>
#include <swipium/util.h>

#include "map-internal.h"

#define RT_ELEMENTS_KEEP 60

static int parse_request(const char *request_json, json_t **out, sw_error **err)
{
	json_t *r = request_json && *request_json ? json_loads(request_json, 0, NULL) : json_object();
	if (!json_is_object(r)) {
		json_decref(r);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "The request is not a JSON object");
	}
	*out = r;
	return SW_OK;
}

static bool opt_bool(json_t *req, const char *key, bool def)
{
	json_t *v = json_object_get(req, key);
	return json_is_boolean(v) ? json_is_true(v) : def;
}

/* ---- the static side ----------------------------------------------------------------------------------- */

/* Runs the static scanner. (transfer full) */
static json_t *scan(const char *root, bool code_index, sw_error **err)
{
	json_t *opts = json_pack("{s:b}", "codeIndex", code_index);
	char *ot = sw__json_compact(opts);
	json_decref(opts);
	char *out = NULL;
	int rc = ot ? sw_appscan_static(root, ot, &out, err) : sw__error_nomem(err);
	free(ot);
	if (rc != SW_OK)
		return NULL;
	json_t *topo = json_loads(out, 0, NULL);
	sw_free(out);
	if (!json_is_object(topo)) {
		json_decref(topo);
		sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "the static scanner answered with something unreadable");
		return NULL;
	}
	return topo;
}

static const char *const suffixes[] = {"ViewController", "Controller", "Screen", "Activity", "Fragment", "Page",
                                       "View",           "Dialog",     "Scene",  "Route",    NULL};

/* The feature a static screen belongs to: its first route segment, else its name without the kind suffix. */
static char *feature_key(json_t *screen)
{
	if (json_is_object(json_object_get(screen, "auth")) || json_is_true(json_object_get(screen, "auth")))
		return sw__strdup("auth");
	const char *route = sw__mj_str(screen, "route");
	if (route && (route[0] == '/' || !sw__mj_str(screen, "name"))) {
		const char *p = route;
		while (*p == '/')
			p++;
		while (*p == '(' || *p == '[' || *p == ':' || *p == '{') {
			/* a parameter or group first: take the next segment */
			const char *n = strchr(p, '/');
			if (!n)
				break;
			p = n + 1;
		}
		size_t n = strcspn(p, "/?#");
		if (!n || *p == '[' || *p == ':' || *p == '{')
			return sw__strdup("home");
		char *seg = sw__strndup(p, n);
		char *k = sw__map_slug(seg);
		free(seg);
		if (k && *k)
			return k;
		free(k);
		return sw__strdup("home");
	}
	const char *name = sw__mj_str(screen, "name");
	if (!name)
		name = sw__mj_str(screen, "id");
	if (!name)
		return NULL;
	char *base = sw__strdup(name);
	for (int i = 0; base && suffixes[i]; i++) {
		size_t bl = strlen(base), sl = strlen(suffixes[i]);
		if (bl > sl && !strcmp(base + bl - sl, suffixes[i])) {
			base[bl - sl] = '\0';
			break;
		}
	}
	/* camelCase -> words before the slug */
	sw_buf b = SW_BUF_INIT;
	for (const char *p = base; p && *p; p++) {
		if (p != base && isupper((unsigned char)*p) && islower((unsigned char)p[-1]))
			sw__buf_putc(&b, ' ');
		sw__buf_putc(&b, *p);
	}
	free(base);
	char *spaced = sw__buf_steal(&b, NULL);
	char *k = spaced ? sw__map_slug(spaced) : NULL;
	free(spaced);
	if (k && !*k) {
		free(k);
		return sw__strdup("home");
	}
	return k;
}

static char *titled(const char *key)
{
	if (!strcmp(key, "auth"))
		return sw__strdup("Sign in");
	char *t = sw__strdup(key);
	bool start = true;
	for (char *p = t; p && *p; p++) {
		if (*p == '-' || *p == ':')
			*p = ' ';
		else if (start)
			*p = (char)toupper((unsigned char)*p);
		start = *p == ' ';
	}
	return t;
}

static void add_unique(json_t *arr, json_t *v)
{
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) if (json_equal(e, v)) return;
	json_array_append(arr, v);
}

/* Features from the static screens; old features still named by tests, suites or coverage are kept as stale. */
static json_t *derive_features(json_t *map, json_t *old_features)
{
	json_t *screens = sw__mj_arr(sw__mj_obj(map, "staticTopology"), "screens");
	json_t *apps = json_object();
	size_t i;
	json_t *s;
	json_array_foreach(screens, i, s)
	{
		const char *app = sw__mj_str(s, "app");
		if (app)
			json_object_set_new(apps, app, json_true());
	}
	bool by_app = json_object_size(apps) > 1;
	json_decref(apps);
	json_t *features = json_array();
	json_t *index = json_object();
	json_array_foreach(screens, i, s)
	{
		const char *kind = sw__mj_str(s, "kind");
		const char *sid = sw__mj_str(s, "id");
		if (!json_is_object(s) || !sid || (kind && !strcmp(kind, "not-found")))
			continue;
		char *key = feature_key(s);
		if (!key)
			continue;
		const char *app = sw__mj_str(s, "app");
		char *id = by_app && app && strcmp(app, ".") ? sw__asprintf("%s:%s", app, key) : sw__strdup(key);
		json_t *f = id ? json_object_get(index, id) : NULL;
		if (id && !f) {
			char *title = titled(key);
			f = json_pack("{s:s, s:s, s:[], s:[], s:[], s:[], s:f}", "id", id, "title", title ? title : key,
			              "sourceFiles", "staticScreens", "runtimeScreens", "reasons", "confidence", 0.0);
			free(title);
			json_array_append_new(json_object_get(f, "reasons"),
			                      json_string(sw__mj_str(s, "route") ? "grouped by first route segment"
			                                                         : "grouped by screen name"));
			if (by_app && app)
				json_object_set_new(f, "app", json_string(app));
			json_array_append_new(features, f);
			json_object_set(index, id, f);
		}
		free(id);
		free(key);
		if (!f)
			continue;
		json_array_append_new(json_object_get(f, "staticScreens"), json_string(sid));
		size_t j;
		json_t *file;
		json_array_foreach(json_object_get(s, "sourceFiles"), j, file) if (json_is_string(file))
		    add_unique(json_object_get(f, "sourceFiles"), file);
		json_t *c = json_object_get(s, "confidence");
		double n = (double)json_array_size(json_object_get(f, "staticScreens"));
		double prev = json_number_value(json_object_get(f, "confidence"));
		double v = json_is_number(c) ? json_number_value(c) : 0.5;
		json_object_set_new(f, "confidence", json_real(round((prev * (n - 1) + v) / n * 1000) / 1000));
		if (!strcmp(sw__mj_str(f, "id"), "auth"))
			json_object_set_new(f, "auth", json_true());
	}
	/* coverage and stale features */
	json_t *covmap = sw__mj_obj(sw__mj_obj(map, "coverage"), "features");
	json_t *referenced = json_object();
	json_array_foreach(sw__mj_arr(sw__mj_obj(map, "testSuite"), "cases"), i, s)
	{
		if (sw__mj_str(s, "featureId"))
			json_object_set_new(referenced, sw__mj_str(s, "featureId"), json_true());
	}
	json_array_foreach(sw__mj_arr(sw__mj_obj(map, "automation"), "suites"), i, s)
	{
		size_t j;
		json_t *x;
		json_array_foreach(json_object_get(s, "linkedFeatureIds"), j, x) if (json_is_string(x))
		    json_object_set_new(referenced, json_string_value(x), json_true());
	}
	const char *k;
	json_t *v;
	json_object_foreach(covmap, k, v) json_object_set_new(referenced, k, json_true());
	json_array_foreach(old_features, i, s)
	{
		const char *fid = sw__mj_str(s, "id");
		if (!fid || json_object_get(index, fid) || !json_object_get(referenced, fid))
			continue;
		json_t *keep = json_deep_copy(s);
		json_object_set_new(keep, "stale", json_true());
		json_object_set_new(
		    keep, "staleReason",
		    json_string("no longer found by the static scan; kept because tests, suites or coverage "
		                "name it"));
		json_array_append_new(features, keep);
		json_object_set(index, fid, keep);
	}
	json_array_foreach(features, i, s)
	{
		json_t *cv = json_object_get(covmap, sw__mj_str(s, "id"));
		if (json_is_string(cv))
			json_object_set(s, "coverage", cv);
	}
	json_decref(referenced);
	json_decref(index);
	return features;
}

/* Replaces the static side of @map with @topo (taken). Keeps runtime screens, tests, suites and coverage. */
static void apply_static(const char *root, json_t *map, json_t *topo, bool code_index)
{
	json_t *fresh = sw__map_new(root);
	json_object_set(map, "project", json_object_get(fresh, "project"));
	json_object_set(map, "appIdentity", json_object_get(fresh, "appIdentity"));
	json_decref(fresh);
	json_t *code = json_object_get(topo, "codeIndex");
	if (code_index && json_is_object(code))
		json_object_set(map, "codeIndex", code);
	else
		json_object_set_new(map, "codeIndex", json_pack("{s:[], s:b}", "files", "omitted", 1));
	json_t *auth = json_object_get(topo, "auth");
	json_t *auth_screens = sw__mj_arr(auth, "screens");
	json_t *libs = sw__mj_arr(auth, "libraries");
	json_t *reasons = json_array();
	if (json_array_size(auth_screens))
		json_array_append_new(reasons,
		                      json_string("screens named or built like a login (see each screen's reasons)"));
	if (json_array_size(libs))
		json_array_append_new(reasons, json_string("an authentication library is a dependency"));
	json_object_set_new(
	    map, "auth",
	    json_pack("{s:b, s:O, s:O, s:O, s:o}", "likely", json_array_size(auth_screens) || json_array_size(libs),
	              "screens", auth_screens ? auth_screens : json_array(), "libraries", libs ? libs : json_array(),
	              "passwordFields",
	              sw__mj_arr(auth, "passwordFields") ? sw__mj_arr(auth, "passwordFields") : json_array(), "reasons",
	              reasons));
	json_object_del(topo, "codeIndex");
	json_object_del(topo, "auth");
	char *now = sw__iso_now();
	json_object_set_new(topo, "scannedAt", json_string(now ? now : ""));
	free(now);
	if (!json_is_array(json_object_get(topo, "screens")))
		json_object_set_new(topo, "screens", json_array());
	json_object_set(map, "staticTopology", topo);
	json_t *old = json_incref(sw__mj_arr(map, "features"));
	json_object_set_new(map, "features", derive_features(map, old));
	json_decref(old);
}

/* ---- the runtime side ---------------------------------------------------------------------------------- */

/* The static screen a runtime screen shows: same normalised name, component, route segment or activity. */
static const char *link_static(json_t *map, json_t *node)
{
	const char *title = sw__mj_str(node, "title");
	const char *activity = sw__mj_str(node, "activity");
	if (activity && strrchr(activity, '.'))
		activity = strrchr(activity, '.') + 1;
	char *nt = sw__fold_alnum(title), *na = sw__fold_alnum(activity);
	const char *found = NULL;
	size_t i;
	json_t *s;
	json_array_foreach(sw__mj_arr(sw__mj_obj(map, "staticTopology"), "screens"), i, s)
	{
		static const char *const keys[] = {"name", "component", "route"};
		for (size_t k = 0; k < 3 && !found; k++) {
			char *v = sw__fold_alnum(sw__mj_str(s, keys[k]));
			if (v && *v && ((nt && !strcmp(v, nt)) || (na && !strcmp(v, na))))
				found = sw__mj_str(s, "id");
			free(v);
		}
		if (found)
			break;
	}
	/* a title "Login" also names the screen "LoginScreen" */
	for (i = 0;
	     !found && nt && *nt && i < json_array_size(sw__mj_arr(sw__mj_obj(map, "staticTopology"), "screens"));
	     i++) {
		s = json_array_get(sw__mj_arr(sw__mj_obj(map, "staticTopology"), "screens"), i);
		char *v = sw__fold_alnum(sw__mj_str(s, "name"));
		for (int k = 0; v && suffixes[k]; k++) {
			char *sfx = sw__fold_alnum(suffixes[k]);
			size_t vl = strlen(v), sl = sfx ? strlen(sfx) : 0;
			if (sfx && vl > sl && !strcmp(v + vl - sl, sfx)) {
				v[vl - sl] = '\0';
				free(sfx);
				break;
			}
			free(sfx);
		}
		if (v && *v && !strcmp(v, nt))
			found = sw__mj_str(s, "id");
		free(v);
	}
	free(nt);
	free(na);
	return found;
}

static bool seen_in(json_t *entry, const char *job)
{
	size_t i;
	json_t *j;
	json_array_foreach(json_object_get(entry, "seenIn"), i,
	                   j) if (json_string_value(j) && !strcmp(json_string_value(j), job)) return true;
	return false;
}

static void health_worst(json_t *entry, const char *health)
{
	static const char *const order[] = {"unchecked", "ok", "anr", "crash"};
	int cur = -1, neu = -1;
	const char *h = sw__mj_str(entry, "health");
	for (int i = 0; i < 4; i++) {
		if (h && !strcmp(h, order[i]))
			cur = i;
		if (health && !strcmp(health, order[i]))
			neu = i;
	}
	if (neu > cur)
		json_object_set_new(entry, "health", json_string(order[neu]));
}

/* Merges @graph (the exploration graph format of PROTOCOL/docs) into map.runtimeTopology. */
static json_t *merge_graph(json_t *map, json_t *graph, const char *graph_ref)
{
	json_t *rt = sw__mj_obj_ensure(map, "runtimeTopology");
	json_t *screens = sw__mj_arr_ensure(rt, "screens");
	json_t *edges = sw__mj_arr_ensure(rt, "edges");
	json_t *sources = sw__mj_arr_ensure(rt, "sources");
	const char *job = sw__mj_str(graph, "jobId");
	if (!job)
		job = graph_ref;
	const char *sid = sw__mj_str(graph, "sessionId");
	const char *fin = sw__mj_str(graph, "finishedAt");
	bool again = false;
	size_t i;
	json_t *e;
	json_array_foreach(sources, i, e) if (sw__mj_str(e, "jobId") && !strcmp(sw__mj_str(e, "jobId"), job)) again =
	    true;
	size_t added = 0, updated = 0, new_edges = 0, crashes = 0, skipped = 0;
	json_t *by_sig = json_object(); /* signature -> runtime id */
	json_array_foreach(json_object_get(graph, "nodes"), i, e)
	{
		const char *sig = sw__mj_str(e, "signature");
		if (!json_is_object(e) || !sig || !*sig) {
			skipped++;
			continue;
		}
		char hex[65];
		sw_sha256_hex(sig, strlen(sig), hex);
		char id[16] = "rt:"; /* the id keeps the first 12 hex digits (ASCII) */
		memcpy(id + 3, hex, 12);
		id[15] = '\0';
		json_object_set_new(by_sig, sig, json_string(id));
		json_t *cur = sw__mj_find(screens, "id", id, NULL);
		json_t *visits = json_object_get(e, "visits");
		json_int_t nv = json_is_integer(visits) ? json_integer_value(visits) : 1;
		if (!cur) {
			cur = json_pack("{s:s, s:s, s:I, s:[], s:s?, s:s?}", "id", id, "signature", sig, "visits", nv,
			                "seenIn", "firstSeenAt", fin, "sessionId", sid);
			json_array_append_new(screens, cur);
			added++;
		} else {
			if (!seen_in(cur, job))
				json_object_set_new(
				    cur, "visits",
				    json_integer(json_integer_value(json_object_get(cur, "visits")) + nv));
			updated++;
		}
		if (!seen_in(cur, job))
			json_array_append_new(sw__mj_arr_ensure(cur, "seenIn"), json_string(job));
		static const char *const keys[] = {"title", "activity", NULL};
		for (int k = 0; keys[k]; k++)
			if (json_is_string(json_object_get(e, keys[k])))
				json_object_set(cur, keys[k], json_object_get(e, keys[k]));
		const char *health = sw__mj_str(e, "health");
		if (!json_object_get(cur, "health"))
			json_object_set_new(cur, "health", json_string("unchecked"));
		health_worst(cur, health);
		if (health && (!strcmp(health, "crash") || !strcmp(health, "anr")))
			crashes++;
		json_t *els = json_object_get(e, "elements");
		if (json_is_array(els)) {
			json_t *keep = json_array();
			for (size_t k = 0; k < json_array_size(els) && k < RT_ELEMENTS_KEEP; k++)
				if (json_is_object(json_array_get(els, k)))
					json_array_append(keep, json_array_get(els, k));
			json_object_set_new(cur, "elements", keep);
			if (json_array_size(els) > RT_ELEMENTS_KEEP)
				json_object_set_new(
				    cur, "elementsOmitted",
				    json_integer((json_int_t)(json_array_size(els) - RT_ELEMENTS_KEEP)));
		}
		if (fin)
			json_object_set_new(cur, "lastSeenAt", json_string(fin));
		const char *link = link_static(map, cur);
		if (link)
			json_object_set_new(cur, "staticScreenId", json_string(link));
		json_object_set_new(cur, "provenance",
		                    json_pack("[{s:s, s:s?, s:s, s:s?}]", "source", "runtime_merge", "sessionId", sid,
		                              "jobId", job, "at", fin));
	}
	json_array_foreach(json_object_get(graph, "edges"), i, e)
	{
		const char *from =
		    json_string_value(json_object_get(by_sig, sw__mj_str(e, "from") ? sw__mj_str(e, "from") : ""));
		const char *to =
		    json_string_value(json_object_get(by_sig, sw__mj_str(e, "to") ? sw__mj_str(e, "to") : ""));
		json_t *action = json_object_get(e, "action");
		if (!from || !json_is_object(action)) {
			skipped++;
			continue;
		}
		json_t *found = NULL;
		size_t k;
		json_t *x;
		json_array_foreach(edges, k, x)
		{
			if (!strcmp(sw__mj_str(x, "from") ? sw__mj_str(x, "from") : "", from) &&
			    !strcmp(sw__mj_str(x, "to") ? sw__mj_str(x, "to") : "", to ? to : "") &&
			    json_equal(json_object_get(json_object_get(x, "action"), "kind"),
			               json_object_get(action, "kind")) &&
			    json_equal(json_object_get(json_object_get(x, "action"), "label"),
			               json_object_get(action, "label"))) {
				found = x;
				break;
			}
		}
		if (!found) {
			found = json_pack("{s:s, s:s?, s:O, s:[]}", "from", from, "to", to, "action", action, "seenIn");
			json_array_append_new(edges, found);
			new_edges++;
		}
		if (json_is_string(json_object_get(e, "outcome")))
			json_object_set(found, "outcome", json_object_get(e, "outcome"));
		if (json_is_array(json_object_get(e, "evidence")))
			json_object_set(found, "evidence", json_object_get(e, "evidence"));
		if (!seen_in(found, job))
			json_array_append_new(sw__mj_arr_ensure(found, "seenIn"), json_string(job));
	}
	json_decref(by_sig);
	if (!again)
		json_array_append_new(
		    sources, json_pack("{s:s, s:s?, s:O?, s:s?, s:O?, s:s, s:I, s:I}", "jobId", job, "sessionId", sid,
		                       "appId", json_object_get(graph, "appId"), "finishedAt", fin, "stoppedReason",
		                       json_object_get(graph, "stoppedReason"), "graph", graph_ref, "nodes",
		                       (json_int_t)json_array_size(json_object_get(graph, "nodes")), "edges",
		                       (json_int_t)json_array_size(json_object_get(graph, "edges"))));
	json_t *r =
	    json_pack("{s:s, s:s?, s:s, s:b, s:I, s:I, s:I, s:I}", "jobId", job, "sessionId", sid, "graph", graph_ref,
	              "alreadyMerged", again, "newScreens", (json_int_t)added, "updatedScreens", (json_int_t)updated,
	              "newEdges", (json_int_t)new_edges, "crashOrAnrScreens", (json_int_t)crashes);
	if (skipped)
		json_object_set_new(r, "skippedEntries", json_integer((json_int_t)skipped));
	return r;
}

/* Links runtime screens to features, and recomputes coverage counts and confidence. */
static void recompute(json_t *map)
{
	json_t *st = sw__mj_arr(sw__mj_obj(map, "staticTopology"), "screens");
	json_t *rt = sw__mj_arr(sw__mj_obj(map, "runtimeTopology"), "screens");
	size_t i;
	json_t *e;
	json_t *seen = json_object();
	json_array_foreach(rt, i, e)
	{
		const char *link = sw__mj_str(e, "staticScreenId");
		if (!link)
			link = link_static(map, e);
		if (link) {
			json_object_set_new(e, "staticScreenId", json_string(link));
			json_t *ids = json_object_get(seen, link);
			if (!ids) {
				ids = json_array();
				json_object_set_new(seen, link, ids);
			}
			json_array_append(ids, json_object_get(e, "id"));
		}
	}
	json_array_foreach(sw__mj_arr(map, "features"), i, e)
	{
		json_t *rts = json_array();
		size_t j;
		json_t *sid;
		json_array_foreach(json_object_get(e, "staticScreens"), j, sid)
		{
			json_t *ids = json_object_get(seen, json_string_value(sid) ? json_string_value(sid) : "");
			size_t k;
			json_t *x;
			json_array_foreach(ids, k, x) add_unique(rts, x);
		}
		json_object_set_new(e, "runtimeScreens", rts);
	}
	size_t n_static = 0, n_seen = 0;
	double conf = 0;
	json_array_foreach(st, i, e)
	{
		if (!json_is_object(e))
			continue;
		n_static++;
		json_t *c = json_object_get(e, "confidence");
		conf += json_is_number(c) ? json_number_value(c) : 0.5;
		if (sw__mj_str(e, "id") && json_object_get(seen, sw__mj_str(e, "id")))
			n_seen++;
	}
	json_decref(seen);
	json_t *cov = sw__mj_obj_ensure(map, "coverage");
	sw__mj_obj_ensure(cov, "features");
	json_object_set_new(cov, "staticScreens", json_integer((json_int_t)n_static));
	json_object_set_new(cov, "staticScreensSeenAtRuntime", json_integer((json_int_t)n_seen));
	json_object_set_new(cov, "runtimeScreens", json_integer((json_int_t)json_array_size(rt)));
	json_object_set_new(cov, "runtimeRatio",
	                    json_real(n_static ? round((double)n_seen / (double)n_static * 1000) / 1000 : 0));
	double cs = n_static ? round(conf / (double)n_static * 1000) / 1000 : 0;
	double cr = n_static && json_array_size(rt) ? round((double)n_seen / (double)n_static * 1000) / 1000 : 0;
	double overall = json_array_size(rt) ? round((cs * 0.6 + cr * 0.4) * 1000) / 1000 : cs;
	json_object_set_new(map, "confidence",
	                    json_pack("{s:f, s:f, s:f}", "overall", overall, "static", cs, "runtime", cr));
}

/* ---- qa_app_map_build ---------------------------------------------------------------------------------- */

SW_API int sw_appmap_build(sw_ctx *ctx, const char *root, const char *request_json, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_appmap_build: out_json is NULL");
	json_t *req;
	int rc = parse_request(request_json, &req, err);
	if (rc < 0)
		return rc;
	const char *mode = sw__mj_str(req, "mode");
	if (!mode)
		mode = "full";
	if (strcmp(mode, "static_only") && strcmp(mode, "runtime_merge") && strcmp(mode, "full")) {
		json_decref(req);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Use static_only, runtime_merge or full.",
		                     "Unknown mode \"%s\"", mode);
	}
	const char *session_dir = sw__mj_str(req, "sessionDir");
	const char *session_id = sw__mj_str(req, "sessionId");
	bool code_index = opt_bool(req, "includeCodeIndex", true), force = opt_bool(req, "forceRescan", false);
	if (!strcmp(mode, "runtime_merge") && !session_dir) {
		json_decref(req);
		return sw__error_set(
		    err, SW_EINVAL, "INVALID_ARGUMENT",
		    "Pass the sessionId of the session whose exploration to merge (qa_explore writes it).",
		    "mode runtime_merge needs a sessionId");
	}
	/* the graph is read before the lock: it is the session's file, not the project's */
	json_t *graph = NULL;
	char *graph_path = NULL;
	sw_error *gerr = NULL;
	bool want_graph = session_dir && strcmp(mode, "static_only");
	if (want_graph && sw__map_latest_graph(session_dir, &graph, &graph_path, &gerr) != SW_OK)
		graph = NULL;
	sw__map h;
	rc = sw__map_open(ctx, root, SW__MAP_WRITE, &h, err);
	if (rc < 0)
		goto out;
	bool had_map = h.map != NULL;
	bool do_scan = strcmp(mode, "runtime_merge") || force || !had_map;
	if (!strcmp(mode, "runtime_merge") && !graph && had_map) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Run qa_explore in the session first.",
		                   "Nothing to merge: session %s has no exploration graph (explore/<jobId>/graph.json)",
		                   session_id ? session_id : "?");
		goto out;
	}
	json_t *map = had_map ? json_deep_copy(h.map) : sw__map_new(h.root);
	if (!map) {
		rc = sw__error_nomem(err);
		goto out;
	}
	char *now = sw__iso_now();
	json_t *answer = sw__map_answer(&h);
	json_t *stats = NULL;
	if (do_scan) {
		json_t *topo = scan(h.root, code_index, err);
		if (!topo) {
			rc = err && *err ? sw_error_code(*err) : SW_EIO;
			json_decref(map);
			json_decref(answer);
			free(now);
			goto out;
		}
		stats = json_incref(json_object_get(topo, "stats"));
		size_t notes = json_array_size(json_object_get(topo, "parserNotes"));
		apply_static(h.root, map, topo, code_index);
		json_decref(topo); /* the map holds its own reference */
		sw__map_push_provenance(map, json_pack("{s:s, s:s, s:s, s:I}", "kind", "static_scan", "at",
		                                       now ? now : "", "detail", "static scan of the source",
		                                       "parserNotes", (json_int_t)notes));
	}
	json_t *merged = NULL;
	if (graph) {
		char *ref = sw__asprintf("swipium-session:%s/%s", session_id ? session_id : "?",
		                         graph_path + strlen(session_dir) + (graph_path[strlen(session_dir)] == '/'));
		merged = merge_graph(map, graph, ref ? ref : graph_path);
		free(ref);
		json_t *p =
		    json_pack("{s:s, s:s, s:O?, s:O?}", "kind", "runtime_merge", "at", now ? now : "", "jobId",
		              json_object_get(merged, "jobId"), "sessionId", json_object_get(merged, "sessionId"));
		sw__map_push_provenance(map, p);
	} else if (want_graph) {
		sw__map_note(&h, "no exploration graph merged: %s", gerr ? sw_error_message(gerr) : "none found");
	}
	free(now);
	recompute(map);
	rc = sw__map_commit(&h, map, err);
	if (rc < 0) {
		json_decref(map);
		json_decref(answer);
		json_decref(merged);
		json_decref(stats);
		goto out;
	}
	json_t *summary = sw__map_summary(map, h.uri);
	json_decref(map);
	json_object_update(answer, summary);
	json_decref(summary);
	json_object_set_new(answer, "section", json_string("summary"));
	json_object_set_new(answer, "mode", json_string(mode));
	json_object_set_new(answer, "scanned", json_boolean(do_scan));
	json_object_set_new(answer, "created", json_boolean(!had_map));
	if (!do_scan)
		json_object_set_new(
		    answer, "scanSkipped",
		    json_string("runtime_merge keeps the static topology; pass forceRescan to scan again"));
	if (stats)
		json_object_set_new(answer, "scanStats", stats);
	if (merged)
		json_object_set_new(answer, "merged", merged);
	sw__map_answer_notes(&h, answer);
	char *t = sw__json_compact(answer);
	json_decref(answer);
	rc = t ? SW_OK : sw__error_nomem(err);
	*out_json = t;
out:
	sw_error_free(gerr);
	json_decref(graph);
	free(graph_path);
	json_decref(req);
	sw__map_close(&h);
	return rc;
}

/* ---- qa_app_map_feature_scope ------------------------------------------------------------------------- */

static bool platform_fits(json_t *screen, const char *platform)
{
	if (!platform)
		return true;
	const char *router = sw__mj_str(screen, "router");
	if (!router)
		return true;
	static const char *const android[] = {"android-manifest", "jetpack-navigation", "compose-navigation",
	                                      "navigation3"};
	static const char *const ios[] = {"swiftui", "uikit", "storyboard"};
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(router, android[i]))
			return !strcmp(platform, "android");
	for (size_t i = 0; i < 3; i++)
		if (!strcmp(router, ios[i]))
			return !strcmp(platform, "ios");
	return true;
}

typedef struct {
	double score;
	json_t *feature;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	return x->score < y->score ? 1 : x->score > y->score ? -1 : 0;
}

SW_API int sw_appmap_feature_scope(sw_ctx *ctx, const char *root, const char *request_json, char **out_json,
                                   sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_appmap_feature_scope: out_json is NULL");
	json_t *req;
	int rc = parse_request(request_json, &req, err);
	if (rc < 0)
		return rc;
	const char *feature_id = sw__mj_str(req, "featureId"), *query = sw__mj_str(req, "query");
	const char *platform = sw__mj_str(req, "platform");
	bool include_code = opt_bool(req, "includeCode", true);
	json_t *lim = json_object_get(req, "limit");
	long limit = json_is_number(lim) ? (long)json_number_value(lim) : 8;
	if ((!feature_id || !*feature_id) && (!query || !*query)) {
		json_decref(req);
		return sw__error_set(
		    err, SW_EINVAL, "INVALID_ARGUMENT",
		    "Pass featureId (from qa_app_map_read {section:\"features\"}) or query (a few words).",
		    "qa_app_map_feature_scope needs featureId or query");
	}
	if (limit < 1 || limit > 100) {
		json_decref(req);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass limit between 1 and 100.",
		                     "limit %ld is out of range", limit);
	}
	if (platform && strcmp(platform, "android") && strcmp(platform, "ios")) {
		json_decref(req);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "platform is android or ios");
	}
	sw__map h;
	json_t *map = NULL, *qwords = json_array(), *answer = NULL;
	ranked *rk = NULL;
	rc = sw__map_open(ctx, root, SW__MAP_NO_REPAIR, &h, err);
	if (rc < 0)
		goto out;
	const char *source = "app-map";
	if (h.map) {
		map = json_deep_copy(h.map);
	} else {
		/* no map: scan in memory; nothing is written into the project */
		json_t *topo = scan(h.root, include_code, err);
		if (!topo) {
			rc = err && *err ? sw_error_code(*err) : SW_EIO;
			goto out;
		}
		map = sw__map_new(h.root);
		apply_static(h.root, map, topo, include_code);
		json_decref(topo);
		source = "code-scan";
		sw__map_note(&h, "no app map: the source was scanned in memory and nothing was written; "
		                 "qa_app_map_build keeps the result");
	}
	const char *session_dir = sw__mj_str(req, "sessionDir");
	if (session_dir) {
		json_t *graph = NULL;
		char *gp = NULL;
		if (sw__map_latest_graph(session_dir, &graph, &gp, NULL) == SW_OK) {
			json_decref(merge_graph(map, graph, gp));
			json_decref(graph);
			free(gp);
		}
	}
	recompute(map);
	json_t *features = sw__mj_arr(map, "features");
	size_t nf = json_array_size(features), nr = 0, i;
	rk = calloc(nf ? nf : 1, sizeof(*rk));
	json_t *all = json_array();
	sw__map_words(query, all);
	json_t *w;
	json_array_foreach(all, i, w) if (!sw__map_stopword(json_string_value(w))) json_array_append(qwords, w);
	json_decref(all);
	static const sw__field_spec ff[] = {{"id", 3}, {"title", 3}, {NULL, 0}};
	static const sw__field_spec sf[] = {{"name", 3}, {"route", 2.5}, {"id", 2}, {NULL, 0}};
	json_t *f;
	json_array_foreach(features, i, f)
	{
		if (!sw__mj_str(f, "id") || !rk)
			continue;
		double s;
		if (feature_id)
			s = !strcmp(sw__mj_str(f, "id"), feature_id) ? 1 : 0;
		else {
			s = sw__map_score(qwords, f, ff, true);
			/* a feature also matches through its screens */
			size_t j;
			json_t *sid;
			json_array_foreach(json_object_get(f, "staticScreens"), j, sid)
			{
				json_t *scr = sw__mj_find(sw__mj_arr(sw__mj_obj(map, "staticTopology"), "screens"),
				                          "id", json_string_value(sid), NULL);
				if (scr)
					s = fmax(s, 0.9 * sw__map_score(qwords, scr, sf, false));
			}
		}
		if (s > 0)
			rk[nr++] = (ranked){round(s * 1000) / 1000, f};
	}
	if (nr)
		qsort(rk, nr, sizeof(*rk), cmp_ranked);
	if (feature_id && !nr) {
		json_t *ids = json_array();
		json_array_foreach(features, i, f) if (json_array_size(ids) < 20 && sw__mj_str(f, "id"))
		    json_array_append(ids, json_object_get(f, "id"));
		char *list = sw__json_compact(ids);
		json_decref(ids);
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                   "Pick a featureId from qa_app_map_read {section:\"features\"}, or pass query.",
		                   "No feature \"%s\" in the %s (known: %s)", feature_id,
		                   h.map ? "app map" : "scanned code", list ? list : "[]");
		free(list);
		goto out;
	}
	answer = sw__map_answer(&h);
	json_object_set_new(answer, "source", json_string(source));
	if (query)
		json_object_set_new(answer, "query", json_string(query));
	json_t *candidates = json_array();
	for (size_t k = 0; k < nr && (long)k < limit; k++)
		json_array_append_new(candidates,
		                      json_pack("{s:O, s:O?, s:f}", "id", json_object_get(rk[k].feature, "id"), "title",
		                                json_object_get(rk[k].feature, "title"), "score", rk[k].score));
	json_object_set_new(answer, "candidates", candidates);
	if (nr > (size_t)limit)
		json_object_set_new(answer, "candidatesOmitted", json_integer((json_int_t)(nr - (size_t)limit)));
	if (!nr) {
		json_object_set_new(answer, "feature", json_null());
		json_object_set_new(
		    answer, "coverageGaps",
		    json_pack("[s]", "nothing in the map matches the query: no screen, feature or file"));
		json_object_set_new(
		    answer, "strategy",
		    json_pack("[s,s]", "qa_app_map_query with other words, or qa_app_map_read {section:\"features\"}",
		              "explore the app to find the feature at run time"));
		goto done;
	}
	if (!feature_id && nr > 1 && rk[0].score == rk[1].score)
		json_object_set_new(answer, "question",
		                    json_sprintf("Which one: \"%s\" or \"%s\"?",
		                                 sw__mj_str(rk[0].feature, "title") ? sw__mj_str(rk[0].feature, "title")
		                                                                    : sw__mj_str(rk[0].feature, "id"),
		                                 sw__mj_str(rk[1].feature, "title") ? sw__mj_str(rk[1].feature, "title")
		                                                                    : sw__mj_str(rk[1].feature, "id")));
	json_t *top = rk[0].feature;
	const char *fid = sw__mj_str(top, "id");
	json_object_set_new(answer, "feature",
	                    json_pack("{s:s, s:O?, s:O?, s:O?, s:O?}", "id", fid, "title",
	                              json_object_get(top, "title"), "confidence", json_object_get(top, "confidence"),
	                              "coverage", json_object_get(top, "coverage"), "stale",
	                              json_object_get(top, "stale")));
	json_t *stat_list = json_array(), *rt_list = json_array(), *gaps = json_array();
	size_t j;
	json_t *sid;
	json_t *all_static = sw__mj_arr(sw__mj_obj(map, "staticTopology"), "screens");
	json_t *all_rt = sw__mj_arr(sw__mj_obj(map, "runtimeTopology"), "screens");
	json_t *cases = sw__mj_arr(sw__mj_obj(map, "testSuite"), "cases");
	json_t *tests = json_array();
	size_t untested = 0, unseen = 0, omitted_static = 0;
	json_array_foreach(json_object_get(top, "staticScreens"), j, sid)
	{
		json_t *scr = sw__mj_find(all_static, "id", json_string_value(sid), NULL);
		if (!scr || !platform_fits(scr, platform))
			continue;
		if ((long)json_array_size(stat_list) < limit)
			json_array_append_new(stat_list, sw__map_compact_screen(scr, h.uri));
		else
			omitted_static++;
		bool tested = false, seen = false;
		size_t k;
		json_t *c;
		json_array_foreach(cases, k, c)
		{
			if (sw__mj_str(c, "screenId") && !strcmp(sw__mj_str(c, "screenId"), json_string_value(sid)))
				tested = true;
		}
		json_array_foreach(all_rt, k, c)
		{
			if (sw__mj_str(c, "staticScreenId") &&
			    !strcmp(sw__mj_str(c, "staticScreenId"), json_string_value(sid))) {
				seen = true;
				if ((long)json_array_size(rt_list) < limit)
					json_array_append_new(rt_list, sw__map_compact_screen(c, h.uri));
			}
		}
		untested += !tested;
		unseen += !seen;
	}
	size_t k;
	json_t *c;
	json_array_foreach(cases, k, c)
	{
		const char *cf = sw__mj_str(c, "featureId"), *cs = sw__mj_str(c, "screenId");
		bool mine = cf && !strcmp(cf, fid);
		size_t m;
		json_t *x;
		json_array_foreach(json_object_get(top, "staticScreens"), m,
		                   x) if (cs && json_string_value(x) && !strcmp(cs, json_string_value(x))) mine = true;
		if (mine && (long)json_array_size(tests) < limit)
			json_array_append(tests, c);
	}
	json_t *suites = json_array();
	json_array_foreach(sw__mj_arr(sw__mj_obj(map, "automation"), "suites"), k, c)
	{
		size_t m;
		json_t *x;
		json_array_foreach(json_object_get(c, "linkedFeatureIds"), m,
		                   x) if (json_string_value(x) && !strcmp(json_string_value(x), fid))
		{
			json_array_append(suites, c);
			break;
		}
	}
	json_t *code = json_array();
	if (include_code) {
		json_array_foreach(sw__mj_arr(sw__mj_obj(map, "codeIndex"), "files"), k, c)
		{
			const char *p = sw__mj_str(c, "path");
			bool in_feature = false;
			size_t m;
			json_t *x;
			json_array_foreach(json_object_get(top, "sourceFiles"), m,
			                   x) if (p && json_string_value(x) && !strcmp(p, json_string_value(x)))
			    in_feature = true;
			if ((in_feature || (json_array_size(qwords) &&
			                    sw__map_score(qwords, c, (sw__field_spec[]){{NULL, 0}}, true) > 0.5)) &&
			    (long)json_array_size(code) < limit)
				json_array_append_new(code, json_pack("{s:s, s:O?, s:O?}", "path", p, "lang",
				                                      json_object_get(c, "lang"), "symbols",
				                                      json_object_get(c, "symbols")));
		}
		if (!json_array_size(code)) {
			json_array_foreach(json_object_get(top, "sourceFiles"), k,
			                   c) if ((long)json_array_size(code) < limit)
			    json_array_append_new(code, json_pack("{s:O}", "path", c));
		}
	}
	if (unseen)
		json_array_append_new(gaps, json_sprintf("%zu screen(s) never seen at run time", unseen));
	if (untested)
		json_array_append_new(gaps, json_sprintf("%zu screen(s) without a test case", untested));
	if (!json_array_size(tests))
		json_array_append_new(gaps, json_string("no test case names this feature"));
	if (!json_array_size(suites))
		json_array_append_new(gaps, json_string("no automation suite covers this feature"));
	json_t *strategy = json_array();
	if (json_is_true(json_object_get(top, "auth")) || !strcmp(fid, "auth"))
		json_array_append_new(strategy,
		                      json_string("needs test credentials: declare them in .swipium/fixtures.json"));
	if (unseen)
		json_array_append_new(strategy,
		                      json_string("reach the unseen screens first (explore or drive to them), then "
		                                  "merge with qa_app_map_build {mode:\"runtime_merge\"}"));
	json_array_append_new(strategy, json_string("cover the main path of the feature, then its error states"));
	json_array_append_new(strategy, json_string("record what was tested with qa_app_map_update {testCases, "
	                                            "featureCoverage}"));
	char *names = NULL;
	{
		sw_buf b = SW_BUF_INIT;
		size_t m;
		json_t *x;
		json_array_foreach(stat_list, m, x)
		{
			if (m >= 4)
				break;
			sw__buf_printf(&b, "%s%s", m ? ", " : "", sw__mj_str(x, "name") ? sw__mj_str(x, "name") : "?");
		}
		names = sw__buf_steal(&b, NULL);
	}
	const char *title = sw__mj_str(top, "title") ? sw__mj_str(top, "title") : fid;
	json_object_set_new(answer, "objective",
	                    names && *names ? json_sprintf("Verify %s end to end across %s.", title, names)
	                                    : json_sprintf("Verify %s end to end.", title));
	free(names);
	json_object_set_new(answer, "staticScreens", stat_list);
	if (omitted_static)
		json_object_set_new(answer, "staticScreensOmitted", json_integer((json_int_t)omitted_static));
	json_object_set_new(answer, "runtimeScreens", rt_list);
	json_object_set_new(answer, "existingTests", json_pack("{s:o, s:o}", "testCases", tests, "suites", suites));
	json_object_set_new(answer, "codeSymbols", code);
	json_object_set_new(answer, "coverageGaps", gaps);
	json_object_set_new(answer, "strategy", strategy);
done:
	sw__map_answer_notes(&h, answer);
	{
		char *t = sw__json_compact(answer);
		rc = t ? SW_OK : sw__error_nomem(err);
		*out_json = t;
	}
out:
	free(rk);
	json_decref(answer);
	json_decref(map);
	json_decref(qwords);
	json_decref(req);
	sw__map_close(&h);
	return rc;
}
