/*
 * feature.c: qa_test_feature. The feature named in plain words is scoped through the app map
 * (sw_appmap_feature_scope: its screens, code, tests and gaps), its cases are planned from that scope, and the
 * job walks the app toward the feature's screens and runs the cases there.
 *
 * The walk follows the explorer's rules (docs/autopilot.md): only controls judged safe are touched, never a
 * destructive one, never a text field, never a button of a permission prompt, and nothing on a login wall. Every
 * tap goes through the drive layer, so it is recorded, counted against the session budget and followed by the
 * health check; a crash or an ANR is a finding with its evidence. A case that cannot be run because the feature
 * is behind a login wall, a paywall, a permission or a missing fixture is `blocked` with what to set up, never
 * `failed`.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "actions-internal.h"
#include "autopilot-internal.h"
#include "testthis-internal.h"
#include <swipium/appmap.h>
#include <swipium/feature.h>

#define TF_KIND "test_feature"
#define TF_FEATURE_MAX 400 /* bytes of the feature text */
#define TF_MAX_RELAUNCHES 3
#define TF_TARGETS_MAX 50

static pthread_mutex_t tf_start_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- small helpers -------------------------------------------------------------------------------------- */

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}


static const char *const kind_suffixes[] = {"viewcontroller", "controller", "screen", "activity", "fragment",
                                            "page",           "view",       "dialog", "scene",    "route",
                                            NULL};

static bool key_in(const json_t *keys, const char *folded);

/* Adds the folded @s, and @s without its kind suffix ("settingsactivity" and "settings"), to @keys. */
static void add_keys(json_t *keys, const char *s)
{
	char *f = sw__fold_alnum(s);
	if (!f || strlen(f) < 3) {
		free(f);
		return;
	}
	if (!key_in(keys, f))
		json_array_append_new(keys, json_string(f));
	for (int i = 0; kind_suffixes[i]; i++) {
		size_t fl = strlen(f), sl = strlen(kind_suffixes[i]);
		if (fl > sl + 2 && !strcmp(f + fl - sl, kind_suffixes[i])) {
			f[fl - sl] = '\0';
			if (!key_in(keys, f))
				json_array_append_new(keys, json_string(f));
			break;
		}
	}
	free(f);
}

static bool key_in(const json_t *keys, const char *folded)
{
	size_t i;
	json_t *k;
	if (!folded || !*folded)
		return false;
	json_array_foreach(keys, i, k) if (!strcmp(json_string_value(k), folded)) return true;
	return false;
}

/* The words of @text worth matching (folded, three characters or more): ASCII runs only, so any other script is
 * compared byte for byte as its own word. */
static json_t *words_of(const char *text)
{
	json_t *w = json_array();
	const char *p = text ? text : "";
	while (*p) {
		while (*p && (unsigned char)*p < 0x80 && !isalnum((unsigned char)*p))
			p++;
		const char *st = p;
		while (*p && ((unsigned char)*p >= 0x80 || isalnum((unsigned char)*p)))
			p++;
		if (p > st) {
			char *raw = sw__strndup(st, (size_t)(p - st));
			sw_buf b = SW_BUF_INIT;
			for (const unsigned char *q = (const unsigned char *)raw; q && *q; q++)
				sw__buf_putc(&b, (char)(*q < 0x80 ? tolower(*q) : *q));
			char *f = sw__buf_steal(&b, NULL);
			static const char *const stop[] = {"the", "and", "for", "with", "feature", "screen", "test", "page",
			                                   NULL};
			bool skip = !f || strlen(f) < 3;
			for (int i = 0; !skip && stop[i]; i++)
				skip = !strcmp(f, stop[i]);
			if (!skip)
				json_array_append_new(w, json_string(f));
			free(f);
			free(raw);
		}
	}
	return w;
}

static json_t *action(const char *tool, json_t *args, const char *why)
{
	return json_pack("{s:s,s:o,s:s}", "tool", tool, "args", args ? args : json_object(), "why", why);
}

/* ---- options ---------------------------------------------------------------------------------------------- */

static const sw__opt tf_opts[] = {
    {"feature", SW__OPT_STRING, false},      {"mode", SW__OPT_STRING, false},
    {"platform", SW__OPT_STRING, false},     {"device", SW__OPT_STRING, false},
    {"creativity", SW__OPT_STRING, false},   {"allowAdversarial", SW__OPT_BOOL, false},
    {"maxScreens", SW__OPT_NUMBER, false},   {"maxActions", SW__OPT_NUMBER, false},
    {"timeoutMs", SW__OPT_NUMBER, false},    {"generateCases", SW__OPT_BOOL, false},
    {"includeCode", SW__OPT_BOOL, false},    {"limit", SW__OPT_NUMBER, false},
    {"bootstrap", SW__OPT_BOOL, false},      {"listedTools", SW__OPT_ARRAY, false},
    {NULL, SW__OPT_ANY, false}};

/* ---- the plan --------------------------------------------------------------------------------------------- */

/* The known features' titles and ids, for the "what to do" of an unknown feature (NULL when there is no map). */
static json_t *known_features(sw_ctx *ctx, const char *root)
{
	char *out = NULL;
	sw_error *e = NULL;
	if (sw_appmap_read(ctx, root, "{\"section\":\"features\"}", &out, &e) != SW_OK) {
		sw_error_free(e);
		return NULL;
	}
	json_t *r = json_loads(out, 0, NULL);
	sw_free(out);
	json_t *list = json_array();
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(r, "features"), i, f)
	{
		if (json_array_size(list) >= 12)
			break;
		if (jstr(f, "id"))
			json_array_append_new(list, json_pack("{s:s,s:s}", "id", jstr(f, "id"), "title",
			                                      jstr(f, "title") ? jstr(f, "title") : jstr(f, "id")));
	}
	json_decref(r);
	return list;
}

static int unknown_feature(sw_ctx *ctx, const char *root, const char *feature, const char *source, sw_error **err)
{
	json_t *known = known_features(ctx, root);
	sw_buf b = SW_BUF_INIT;
	size_t i;
	json_t *f;
	json_array_foreach(known, i, f) sw__buf_printf(&b, "%s\"%s\"", i ? ", " : "", jstr(f, "title"));
	char *names = sw__buf_steal(&b, NULL);
	char *cut = sw__cap(feature, 120);
	char *hint = names && *names
	                 ? sw__asprintf("Call qa_test_feature again with one of the known features (%s) or other words; "
	                                "qa_app_map_read {section:\"features\"} lists them, and qa_app_map_build "
	                                "refreshes the map after the code changed.",
	                                names)
	                 : sw__strdup("Call qa_test_feature again with other words (a screen or route name works), or "
	                              "run qa_app_map_build and then qa_app_map_read {section:\"features\"} to see the "
	                              "features the code declares.");
	int rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", hint,
	                       "No feature of this project matches \"%s\": the %s has no feature, screen or source file "
	                       "with those words, so there is nothing to scope or test",
	                       cut ? cut : "", !strcmp(source, "app-map") ? "app map" : "code scan");
	if (err && *err)
		sw__error_take_details(*err, json_pack("{s:o,s:s}", "knownFeatures", known ? known : json_array(),
		                                       "scopeSource", source));
	else
		json_decref(known);
	free(names);
	free(cut);
	free(hint);
	return rc;
}

/* The screens the walk aims for: the scope's static screens, else its runtime screens, else the feature words. */
static json_t *make_targets(json_t *scope, const char *feature)
{
	json_t *targets = json_array();
	json_t *lists[2] = {json_object_get(scope, "staticScreens"), json_object_get(scope, "runtimeScreens")};
	for (int l = 0; l < 2 && !json_array_size(targets); l++) {
		size_t i;
		json_t *sc;
		json_array_foreach(lists[l], i, sc)
		{
			if (json_array_size(targets) >= TF_TARGETS_MAX)
				break;
			json_t *keys = json_array();
			const char *name = jstr(sc, "name") ? jstr(sc, "name") : jstr(sc, "title");
			add_keys(keys, name);
			add_keys(keys, jstr(sc, "component"));
			const char *route = jstr(sc, "route");
			if (route) {
				const char *seg = strrchr(route, '/');
				add_keys(keys, seg ? seg + 1 : route);
			}
			const char *act = jstr(sc, "activity");
			if (!act && jstr(sc, "id") && sw__str_has_prefix(jstr(sc, "id"), "android-manifest:"))
				act = jstr(sc, "id") + strlen("android-manifest:");
			if (act) {
				const char *dot = strrchr(act, '.');
				add_keys(keys, dot ? dot + 1 : act);
			}
			if (!json_array_size(keys)) {
				json_decref(keys);
				continue;
			}
			json_array_append_new(targets, json_pack("{s:s?,s:s?,s:s?,s:o}", "screenId", jstr(sc, "id"), "name",
			                                         name, "route", route, "keys", keys));
		}
	}
	if (!json_array_size(targets)) {
		json_t *w = words_of(feature);
		if (json_array_size(w))
			json_array_append_new(targets, json_pack("{s:s,s:o,s:b}", "name", feature, "words", w, "byText", 1));
		else
			json_decref(w);
	}
	return targets;
}

static json_t *make_case(const char *fid, const char *kind, size_t n, const char *title, const json_t *target,
                         const char *expected)
{
	json_t *c = json_pack("{s:o,s:s,s:s,s:s}", "id", json_sprintf("%s:%s:%zu", fid, kind, n), "title", title,
	                      "kind", kind, "expected", expected);
	if (target) {
		if (jstr(target, "screenId"))
			json_object_set(c, "screenId", json_object_get(target, "screenId"));
		if (jstr(target, "name"))
			json_object_set(c, "screenName", json_object_get(target, "name"));
	}
	return c;
}

static json_t *make_cases(const char *fid, const char *title, json_t *targets, const char *creativity,
                          bool generate, const char *feature_class, json_t *notes)
{
	json_t *cases = json_array();
	int level = !strcmp(creativity, "conservative") ? 0
	            : !strcmp(creativity, "standard")   ? 1
	            : !strcmp(creativity, "creative")   ? 2
	                                                : 3;
	if (!generate) {
		level = 0;
		json_array_append_new(notes, json_string("generateCases is false: only the reach check of each screen is "
		                                         "planned"));
	}
	size_t i;
	json_t *t;
	json_array_foreach(targets, i, t)
	{
		const char *name = jstr(t, "name") ? jstr(t, "name") : title;
		char *tt = sw__asprintf("Reach %s from the app's start and it stays healthy", name);
		json_array_append_new(cases, make_case(fid, "reach", i + 1, tt ? tt : "Reach the screen", t,
		                                       "the screen is shown, the app is in front, no crash or ANR"));
		free(tt);
		if (level >= 1) {
			tt = sw__asprintf("Every safe control of %s responds without a crash", name);
			json_array_append_new(cases,
			                      make_case(fid, "controls", i + 1, tt ? tt : "Safe controls respond", t,
			                                "each safe control is tapped once, health stays clean, the screen can "
			                                "be returned to"));
			free(tt);
			tt = sw__asprintf("Going back from %s keeps the app healthy", name);
			json_array_append_new(cases, make_case(fid, "back", i + 1, tt ? tt : "Back works", t,
			                                       "BACK returns to an app screen without a crash"));
			free(tt);
		}
		if (level >= 2) {
			tt = sw__asprintf("Opening %s a second time shows the same screen", name);
			json_array_append_new(cases, make_case(fid, "revisit", i + 1, tt ? tt : "Revisit", t,
			                                       "the same control leads to the same screen again"));
			free(tt);
		}
	}
	if (level >= 3)
		json_array_append_new(cases, make_case(fid, "relaunch", 1, "The app starts healthy again after being "
		                                                          "stopped on the feature",
		                                       NULL, "after a force-stop and a launch the app is in front, no crash"));
	if (feature_class) {
		char *tt = sw__asprintf("Use %s's own control (%s)", title, feature_class);
		json_array_append_new(cases, make_case(fid, "act", 1, tt ? tt : "Use the feature's control", NULL,
		                                       "never run by this tool: a high-impact control is only tapped after a "
		                                       "dry run, with disposable state and consent"));
		free(tt);
	}
	return cases;
}

static json_t *fixtures_needed(sw_session *s, json_t *scope, const char *feature_class)
{
	json_t *fx = json_array();
	bool auth = json_is_true(json_object_get(json_object_get(scope, "feature"), "auth")) ||
	            (jstr(json_object_get(scope, "feature"), "id") &&
	             !strcmp(jstr(json_object_get(scope, "feature"), "id"), "auth"));
	size_t i;
	json_t *sc;
	json_array_foreach(json_object_get(scope, "staticScreens"), i, sc)
	{
		json_t *a = json_object_get(sc, "auth");
		if (json_is_true(a) || json_is_object(a))
			auth = true;
	}
	if (auth)
		json_array_append_new(
		    fx, json_pack("{s:s,s:[s,s],s:b,s:s,s:s}", "kind", "credentials", "fields", "SWIPIUM_TEST_USERNAME",
		                  "SWIPIUM_TEST_PASSWORD", "present", sw__tt_have_credentials(s), "why",
		                  "the feature's screens are sign-in screens or sit behind one", "howToProvide",
		                  "qa_continue_from_blocker {sessionId, kind:\"credentials\", values:{SWIPIUM_TEST_USERNAME, "
		                  "SWIPIUM_TEST_PASSWORD}}, or the same names in the server's environment"));
	if (feature_class)
		json_array_append_new(
		    fx, json_pack("{s:s,s:s,s:b,s:s,s:s}", "kind", "disposable_state", "riskClass", feature_class,
		                  "present", false, "why",
		                  "the feature itself is a high-impact action; it is never performed without disposable "
		                  "state",
		                  "howToProvide",
		                  "a fixture with disposable:true or environment \"test\" in .swipium/fixtures.json, then "
		                  "qa_explore {safeMode:\"dry_run_destructive\"} and one approved candidate"));
	return fx;
}

/* The bootstrap part of qa_test_this's plan: artifact, target, prepare and their one consent. */
static int bootstrap_plan(sw_ctx *ctx, sw_session *s, const char *root, const json_t *o, json_t **out,
                          sw_error **err)
{
	*out = NULL;
	json_t *tt = json_pack("{s:s}", "goal", "smoke");
	static const char *const pass[] = {"platform", "device", "listedTools"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(pass); i++)
		if (json_object_get(o, pass[i]))
			json_object_set(tt, pass[i], json_object_get(o, pass[i]));
	char *tj = sw__json_compact(tt);
	json_decref(tt);
	char *pj = NULL;
	int rc = tj ? sw_test_this_plan(ctx, s, root, tj, &pj, err) : sw__error_nomem(err);
	free(tj);
	if (rc < 0)
		return rc;
	json_t *p = json_loads(pj, 0, NULL);
	sw_free(pj);
	json_t *steps = json_array(), *prepare = NULL;
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(p, "steps"), i, st)
	{
		const char *name = jstr(st, "step");
		if (name && (!strcmp(name, "find_artifact") || !strcmp(name, "pick_target") || !strcmp(name, "prepare") ||
		             !strcmp(name, "resolve_project"))) {
			json_array_append(steps, st);
			if (!strcmp(name, "prepare"))
				prepare = st;
		}
	}
	*out = json_pack("{s:o,s:O?,s:O?,s:O?,s:O?,s:O?,s:O*}", "steps", steps, "prepare", prepare, "artifactChoice",
	                 json_object_get(p, "artifactChoice"), "targetChoice", json_object_get(p, "targetChoice"),
	                 "consent", json_object_get(p, "consent"), "blockers", json_object_get(p, "blockers"),
	                 "needsInput", json_object_get(p, "needsInput"));
	json_decref(p);
	return *out ? SW_OK : sw__error_nomem(err);
}

static bool session_has_device(sw_session *s)
{
	json_t *dev = NULL;
	if (!s || sw__session_get(s, "device", &dev, NULL) != SW_OK)
		return false;
	bool ok = json_is_string(json_object_get(dev, "serial"));
	json_decref(dev);
	return ok;
}

int sw_test_feature_plan(sw_ctx *ctx, sw_session *s, const char *root, const char *options_json, char **plan_json,
                         sw_error **err)
{
	if (!root || !plan_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "root and plan_json are required");
	*plan_json = NULL;
	json_t *o = NULL;
	int rc = sw__options_load(options_json, tf_opts, "qa_test_feature arguments", &o, err);
	if (rc < 0)
		return rc;
	json_t *notes = json_array(), *scope = NULL, *plan = NULL, *boot = NULL;
	const char *feature = jstr(o, "feature");
	size_t flen = feature ? strlen(feature) : 0;
	const char *p = feature;
	while (p && *p && isspace((unsigned char)*p))
		p++;
	if (!feature || !*p) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                   "Name the feature in a few words, e.g. {feature: \"settings\"}.",
		                   "feature is required and must not be empty");
		goto out;
	}
	if (flen > TF_FEATURE_MAX) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Name the feature in a few words.",
		                   "feature is %zu bytes long; at most %d are accepted", flen, TF_FEATURE_MAX);
		goto out;
	}
	const char *mode = jstr(o, "mode") ? jstr(o, "mode") : "plan";
	static const char *const modes[] = {"plan", "execute", "interactive", NULL};
	static const char *const levels[] = {"conservative", "standard", "creative", "adversarial", NULL};
	static const char *const platforms[] = {"android", "ios", NULL};
	const char *creativity = jstr(o, "creativity") ? jstr(o, "creativity") : "standard";
	const char *platform = jstr(o, "platform");
	if (!sw__str_one_of(mode, modes) || !sw__str_one_of(creativity, levels) || (platform && !sw__str_one_of(platform, platforms))) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "mode is plan, execute or interactive; creativity is conservative, standard, creative or "
		                   "adversarial; platform is android or ios");
		goto out;
	}
	if (!strcmp(creativity, "adversarial") && !json_is_true(json_object_get(o, "allowAdversarial"))) {
		json_array_append_new(notes, json_string("creativity adversarial needs allowAdversarial:true; the plan uses "
		                                         "creative"));
		creativity = "creative";
	}
	long max_screens, max_actions, timeout_ms, limit;
	if ((rc = sw__opt_whole(o, "maxScreens", 8, 1, 50, &max_screens, notes, err)) < 0 ||
	    (rc = sw__opt_whole(o, "maxActions", 20, 1, 200, &max_actions, notes, err)) < 0 ||
	    (rc = sw__opt_whole(o, "timeoutMs", 300000, 0, 3600000, &timeout_ms, notes, err)) < 0 ||
	    (rc = sw__opt_whole(o, "limit", 8, 1, 50, &limit, notes, err)) < 0)
		goto out;

	/* the scope */
	json_t *sreq = json_pack("{s:s,s:b,s:I}", "query", feature, "includeCode",
	                         !json_is_false(json_object_get(o, "includeCode")), "limit", (json_int_t)limit);
	if (platform)
		json_object_set_new(sreq, "platform", json_string(platform));
	if (s)
		json_object_set_new(sreq, "sessionDir", json_string(sw_session_dir(s)));
	char *sj = sw__json_compact(sreq);
	json_decref(sreq);
	char *sout = NULL;
	rc = sj ? sw_appmap_feature_scope(ctx, root, sj, &sout, err) : sw__error_nomem(err);
	free(sj);
	if (rc < 0)
		goto out;
	scope = json_loads(sout, 0, NULL);
	sw_free(sout);
	if (!json_is_object(scope)) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "the feature scope could not be read");
		goto out;
	}
	json_t *fobj = json_object_get(scope, "feature");
	const char *source = jstr(scope, "source") ? jstr(scope, "source") : "app-map";
	if (!json_is_object(fobj)) {
		rc = unknown_feature(ctx, root, feature, source, err);
		goto out;
	}
	const char *fid = jstr(fobj, "id");
	const char *ftitle = jstr(fobj, "title") ? jstr(fobj, "title") : fid;
	const char *klass = NULL;
	const char *risk = sw_risk_classify(feature, NULL, NULL, &klass);
	const char *feature_class = risk && !strcmp(risk, "destructive") && klass ? klass : NULL;

	json_t *targets = make_targets(scope, feature);
	json_t *cases = make_cases(fid, ftitle, targets, creativity, !json_is_false(json_object_get(o, "generateCases")),
	                           feature_class, notes);
	json_t *fixtures = fixtures_needed(s, scope, feature_class);
	bool want_boot = json_is_true(json_object_get(o, "bootstrap"));
	if (want_boot && (rc = bootstrap_plan(ctx, s, root, o, &boot, err)) < 0) {
		json_decref(targets);
		json_decref(cases);
		json_decref(fixtures);
		goto out;
	}
	json_t *blockers = json_array();
	json_t *steps = json_array();
	{
		/* the walk drives Android devices only: an iOS target is said before anything runs */
		json_t *kind = NULL;
		bool ios = platform && !strcmp(platform, "ios");
		if (s && sw__session_get(s, "driverKind", &kind, NULL) == SW_OK && json_is_string(kind) &&
		    strcmp(json_string_value(kind), "adb") != 0)
			ios = true;
		json_decref(kind);
		if (ios)
			json_array_append_new(blockers,
			                      sw__tt_blocker("BACKEND_UNSUPPORTED", "qa_test_feature walks Android emulators "
			                                                            "only in this build; on iOS use qa_snapshot "
			                                                            "and qa_act by hand"));
	}
	json_t *scope_args = json_pack("{s:s,s:s}", "projectRoot", root, "query", feature);
	json_array_append_new(steps, json_pack("{s:s,s:s,s:o,s:o}", "step", "scope", "status", "done", "why",
	                                       json_sprintf("feature \"%s\" (%s, from the %s)", ftitle, fid,
	                                                    !strcmp(source, "app-map") ? "app map" : "code scan"),
	                                       "tool", action("qa_app_map_feature_scope", scope_args,
	                                                      "the same scope by hand")));
	if (boot) {
		size_t nb = json_array_size(json_object_get(boot, "blockers"));
		json_t *prep = json_object_get(boot, "prepare");
		const char *bstatus = nb                                 ? "blocked"
		                      : json_is_object(json_object_get(boot, "needsInput")) ? "needs_input"
		                                                           : "planned";
		json_t *bs = json_pack("{s:s,s:s,s:s}", "step", "bootstrap", "status", bstatus, "why",
		                       nb ? "the device cannot be prepared: see blockers"
		                       : json_is_object(json_object_get(boot, "needsInput"))
		                           ? "a question must be answered first (needsInput)"
		                           : "inside the job: boot when needed, install and launch the app (one "
		                             "test_this_plan consent)");
		if (json_is_object(json_object_get(prep, "tool")))
			json_object_set(bs, "tool", json_object_get(prep, "tool"));
		json_array_append_new(steps, bs);
		json_array_extend(blockers, json_object_get(boot, "blockers"));
	} else if (!session_has_device(s)) {
		json_array_append_new(
		    steps, json_pack("{s:s,s:s,s:s,s:s}", "step", "bootstrap", "status", "blocked", "failureCode",
		                     "NO_DEVICE", "why",
		                     s ? "the session has no device: prepare one with qa_prepare_target, or call "
		                         "qa_test_feature without sessionId to have it prepared"
		                       : "no session: execute without sessionId prepares the device inside the job"));
		if (s)
			json_array_append_new(blockers, sw__tt_blocker("NO_DEVICE", "the session has no device bound"));
	} else {
		json_array_append_new(steps, json_pack("{s:s,s:s,s:s}", "step", "bootstrap", "status", "skipped", "why",
		                                       "the session's device and app are used as they are"));
	}
	char *names = NULL;
	{
		sw_buf b = SW_BUF_INIT;
		size_t i;
		json_t *t;
		json_array_foreach(targets, i, t)
		{
			if (i >= 4) {
				sw__buf_printf(&b, " and %zu more", json_array_size(targets) - 4);
				break;
			}
			sw__buf_printf(&b, "%s%s", i ? ", " : "", jstr(t, "name"));
		}
		names = sw__buf_steal(&b, NULL);
	}
	json_array_append_new(
	    steps, json_pack("{s:s,s:s,s:o}", "step", "navigate", "status", "planned", "why",
	                     json_sprintf("walk toward %s touching safe controls only (no text entry, nothing "
	                                  "destructive, no permission answer), within %ld screens and %ld actions",
	                                  names && *names ? names : "the feature", max_screens, max_actions)));
	free(names);
	json_array_append_new(steps, json_pack("{s:s,s:s,s:o}", "step", "check", "status", "planned", "why",
	                                       json_sprintf("%zu case(s), a health check after every action",
	                                                    json_array_size(cases))));
	json_array_append_new(steps, json_pack("{s:s,s:s,s:s,s:o}", "step", "update_map", "status", "planned", "why",
	                                       "each case is recorded as a test case of the feature with its status, and "
	                                       "the feature's coverage",
	                                       "tool",
	                                       action("qa_app_map_update",
	                                              json_pack("{s:s,s:{s:s,s:s}}", "projectRoot", root,
	                                                        "featureCoverage", "featureId", fid, "coverage",
	                                                        "partial"),
	                                              "the same update by hand")));
	json_array_append_new(
	    steps, json_pack("{s:s,s:s,s:s,s:o}", "step", "report", "status", "planned", "why",
	                     "always, whatever the ending", "tool",
	                     action("qa_report", s ? json_pack("{s:s}", "sessionId", sw_session_id(s)) : NULL,
	                            "the same report by hand")));
	json_t *consent = boot && json_is_object(json_object_get(boot, "consent"))
	                      ? json_deep_copy(json_object_get(boot, "consent"))
	                      : json_pack("{s:b,s:s,s:s,s:[]}", "required", 0, "action", "test_this_plan", "risk", "low",
	                                  "steps");
	if (boot && (json_array_size(json_object_get(boot, "blockers")) || json_is_object(json_object_get(boot, "needsInput"))))
		json_object_set_new(consent, "required", json_false());
	plan = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:O?,s:s,s:{s:I,s:I,s:I},s:O,s:o,s:o,s:o,s:o,s:o,s:o}", "mode", mode,
	                 "projectRoot", root, "feature", feature, "featureId", fid, "featureTitle", ftitle,
	                 "scopeSource", source, "objective", json_object_get(scope, "objective"), "creativity",
	                 creativity, "limits", "maxScreens", (json_int_t)max_screens, "maxActions",
	                 (json_int_t)max_actions, "timeoutMs", (json_int_t)timeout_ms, "scope", scope, "targets", targets,
	                 "cases", cases, "requiredFixtures", fixtures, "steps", steps, "consent", consent, "blockers",
	                 blockers);
	if (s)
		json_object_set_new(plan, "sessionId", json_string(sw_session_id(s)));
	if (json_object_get(scope, "question"))
		json_object_set(plan, "question", json_object_get(scope, "question"));
	if (boot)
		json_object_set(plan, "bootstrap", boot);
	if (json_object_get(o, "listedTools"))
		json_object_set(plan, "listedTools", json_object_get(o, "listedTools"));
	if (json_array_size(notes))
		json_object_set(plan, "notes", notes);
	{
		json_t *next = json_pack("{s:s,s:s}", "feature", feature, "mode", "execute");
		if (s)
			json_object_set_new(next, "sessionId", json_string(sw_session_id(s)));
		else
			json_object_set_new(next, "projectRoot", json_string(root));
		json_object_set_new(plan, "nextRecommendedAction",
		                    json_array_size(blockers)
		                        ? action("qa_explain_blocker",
		                                 json_pack("{s:O}", "failureCode",
		                                           json_object_get(json_array_get(blockers, 0), "failureCode")),
		                                 "The run would be blocked: see what the code means and how to fix it.")
		                        : action("qa_test_feature", next, "Run the planned cases on the device."));
		if (json_array_size(blockers))
			json_decref(next);
	}
	*plan_json = sw__json_compact(plan);
	rc = *plan_json ? SW_OK : sw__error_nomem(err);
out:
	json_decref(plan);
	json_decref(scope);
	json_decref(boot);
	json_decref(notes);
	json_decref(o);
	return rc;
}

/* The credentials question of a run stopped at a login wall; answering it and calling again resumes the run. */
static json_t *credentials_question(const json_t *plan, sw_session *s, const char *why)
{
	json_t *fields = json_pack("[{s:s,s:s,s:b},{s:s,s:s,s:b}]", "name", "SWIPIUM_TEST_USERNAME", "label",
	                           "Test account email or username", "secret", 0, "name", "SWIPIUM_TEST_PASSWORD", "label",
	                           "Test account password", "secret", 1);
	char *q = sw__asprintf("%s Which test account should Swipium use? Answer with qa_continue_from_blocker {kind: "
	                       "\"credentials\", values: {SWIPIUM_TEST_USERNAME, SWIPIUM_TEST_PASSWORD}}; the password is "
	                       "redacted everywhere and kept in memory only.",
	                       why);
	json_t *again = json_pack("{s:s,s:O,s:s}", "sessionId", sw_session_id(s), "feature",
	                          json_object_get(plan, "feature"), "mode", jstr(plan, "mode") ? jstr(plan, "mode") : "execute");
	json_t *o = json_pack("{s:s,s:s,s:o,s:o,s:{s:s,s:{s:s,s:s}}}", "kind", "credentials", "question",
	                      q ? q : "Credentials needed.", "fields", fields, "resume",
	                      action("qa_test_feature", again, "Tests the same feature again once the account is given."),
	                      "answerWith", "tool", "qa_continue_from_blocker", "args", "sessionId", sw_session_id(s),
	                      "kind", "credentials");
	free(q);
	return o;
}

/* ---- the run ------------------------------------------------------------------------------------------- */

typedef struct tf_node {
	char sig[24];
	long parent;   /* node index or -1 */
	json_t *tried; /* {candidateSignature: true} */
	bool paywall_noted;
} tf_node;

typedef struct tf_run {
	sw_ctx *ctx;
	sw_job *job;
	sw_session *s;
	json_t *plan;
	sw_drive *d;
	char *app_id;
	char *activity;
	bool interactive;
	long max_actions, max_screens, timeout_ms;
	long actions, backs, relaunches;
	int64_t t0;
	tf_node *nodes;
	size_t n_nodes, cap_nodes;
	long cur;
	json_t *targets;  /* the plan's, each gaining reached/sig/status */
	json_t *cases;    /* the plan's, each gaining status/reason/evidence */
	json_t *path;     /* the labels tapped on the way, in order */
	json_t *walls;    /* {kind, screen, title} */
	json_t *findings; /* crash / ANR */
	json_t *not_touched;
	json_t *notes, *blockers, *res;
	const char *stopped;
	const char *state;
	json_t *needs_input;
	ap_control via; /* the control that led to the current screen (when have_via) */
	bool have_via;
	json_t *hints; /* {screenSignature: label}: the next tap toward the feature, from the session's last crawl */
	bool cancel;
} tf_run;

static bool cancelled(tf_run *r)
{
	if (r->cancel || sw_job_cancelled(r->job))
		r->cancel = true;
	return r->cancel;
}

static bool out_of_time(tf_run *r)
{
	return r->timeout_ms > 0 && sw_monotonic_ms() - r->t0 >= r->timeout_ms;
}

static void read_activity(tf_run *r)
{
	char *fg = NULL;
	if (sw_device_foreground(sw_drive_device(r->d), &fg, NULL) == SW_OK) {
		json_t *j = json_loads(fg, 0, NULL);
		const char *a = jstr(j, "activity");
		free(r->activity);
		r->activity = sw__strdup(a ? a : "");
		json_decref(j);
	}
	sw_free(fg);
}

static int look(tf_run *r, ap_screen *v, sw_error **err)
{
	int rc = ap_screen_fresh(r->d, r->app_id, v, err);
	if (rc == SW_OK)
		read_activity(r);
	return rc;
}

static long node_of(tf_run *r, const char *sig, long parent)
{
	for (size_t i = 0; i < r->n_nodes; i++)
		if (!strcmp(r->nodes[i].sig, sig))
			return (long)i;
	if (r->n_nodes == r->cap_nodes) {
		size_t cap = r->cap_nodes ? r->cap_nodes * 2 : 16;
		tf_node *n = realloc(r->nodes, cap * sizeof(*n));
		if (!n)
			return -1;
		r->nodes = n;
		r->cap_nodes = cap;
	}
	tf_node *n = &r->nodes[r->n_nodes];
	memset(n, 0, sizeof(*n));
	snprintf(n->sig, sizeof(n->sig), "%s", sig);
	n->parent = parent;
	n->tried = json_object();
	return (long)r->n_nodes++;
}

/* The crash or ANR a drive action's health found, or NULL. */
static const char *crash_of(json_t *res)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(json_object_get(res, "health"), "findings"), i, f)
	{
		const char *k = jstr(f, "kind");
		if (k && !strcmp(k, "anr"))
			return "anr";
		if (k && !strcmp(k, "native_crash"))
			return "crash";
	}
	return NULL;
}


/* BACK through the drive (recorded, health checked), counted in r->backs. */
static int press_back(tf_run *r, json_t **res, sw_error **err)
{
	json_t *args = json_pack("{s:s,s:s,s:s}", "action", "press", "key", "back", "observe", "none");
	int rc = ap_drive_act(r->d, args, res, err);
	json_decref(args);
	r->backs++;
	return rc;
}

static json_t *tap_args(const ap_control *c)
{
	return json_pack("{s:s,s:o,s:s}", "action", "tap", "target", ap_control_target(c), "observe", "none");
}

/* Saves the health findings of a crash as evidence: [uri] or []. */
static json_t *evidence(tf_run *r, json_t *res, const char *kind)
{
	json_t *ev = json_array();
	char *text = sw__json_pretty(json_object_get(json_object_get(res, "health"), "findings"));
	char *safe = text ? ap_redact(r->s, text) : NULL;
	char *name = NULL, *meta = NULL;
	if (safe && sw_artifact_next_name(r->s, "feature", kind, ".json", &name, NULL) == SW_OK &&
	    sw_artifact_save(r->s, "feature", name, "application/json", safe, strlen(safe),
	                     "qa_test_feature health evidence (logcat and screen)", &meta, NULL) == SW_OK) {
		json_t *m = json_loads(meta, 0, NULL);
		if (jstr(m, "uri")) {
			json_array_append(ev, json_object_get(m, "uri"));
			(void)sw_job_add_artifact(r->job, jstr(m, "uri"), NULL);
		}
		json_decref(m);
	}
	sw_free(name);
	sw_free(meta);
	free(safe);
	free(text);
	return ev;
}

static void record_crash(tf_run *r, const char *crash, const char *label, const char *screen_sig, json_t *ev)
{
	json_array_append_new(r->findings,
	                      json_pack("{s:s,s:s,s:s,s:s,s:s,s:O}", "kind", !strcmp(crash, "anr") ? "anr" : "native_crash",
	                                "failureCode", !strcmp(crash, "anr") ? "ANR" : "NATIVE_CRASH", "severity", "high",
	                                "screenSignature", screen_sig, "action", label ? label : "?", "evidence", ev));
}

/* Force-stops (when asked) and launches the app again; the walk starts over from its first screen. */
static int relaunch(tf_run *r, bool force_stop, sw_error **err)
{
	if (!r->app_id)
		return sw__error_set(err, SW_EDEVICE, "APP_LAUNCH_FAILED", "Prepare the app with qa_prepare_target first.",
		                     "the app cannot be relaunched: the session has no appId");
	if (cancelled(r))
		return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_test_feature was cancelled");
	sw_device *dev = sw_drive_device(r->d);
	if (force_stop) {
		sw_error *e = NULL;
		if (sw_device_force_stop(dev, r->app_id, &e) < 0)
			sw_error_free(e);
		if (cancelled(r))
			return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_test_feature was cancelled");
	}
	r->relaunches++;
	return sw_device_launch(dev, r->app_id, err);
}

/* The not-yet-reached target the screen @v shows, or -1. */
static long target_of(tf_run *r, const ap_screen *v)
{
	const char *act = r->activity;
	if (act) {
		const char *cut = strrchr(act, '.');
		const char *slash = strrchr(act, '/');
		act = cut ? cut + 1 : slash ? slash + 1 : act;
	}
	char *fa = sw__fold_alnum(act), *ft = sw__fold_alnum(v->title);
	long hit = -1;
	size_t i;
	json_t *t;
	json_array_foreach(r->targets, i, t)
	{
		if (json_is_true(json_object_get(t, "reached")))
			continue;
		if (json_is_true(json_object_get(t, "byText"))) {
			/* every word of the feature on screen */
			size_t k, n = 0;
			json_t *w;
			json_array_foreach(json_object_get(t, "words"), k, w)
			{
				const char *ww = json_string_value(w);
				if (ww && ((v->all_text && strcasestr(v->all_text, ww)) || (v->title && strcasestr(v->title, ww))))
					n++;
			}
			if (n && n == json_array_size(json_object_get(t, "words"))) {
				hit = (long)i;
				break;
			}
			continue;
		}
		json_t *keys = json_object_get(t, "keys");
		if (key_in(keys, fa) || key_in(keys, ft)) {
			hit = (long)i;
			break;
		}
	}
	free(fa);
	free(ft);
	return hit;
}

/* How much a control's name points at a target not yet reached: 2 a screen's name, 1 a feature word, 0. */
static int pointing(tf_run *r, const ap_control *c)
{
	char *fn = sw__fold_alnum(c->name);
	int score = 0;
	if (r->cur >= 0 && (size_t)r->cur < r->n_nodes) {
		const char *hint = jstr(r->hints, r->nodes[r->cur].sig);
		if (hint && c->name && !strcmp(hint, c->name)) {
			free(fn);
			return 3;
		}
	}
	size_t i;
	json_t *t;
	json_array_foreach(r->targets, i, t)
	{
		if (json_is_true(json_object_get(t, "reached")))
			continue;
		size_t k;
		json_t *kv;
		json_array_foreach(json_object_get(t, "keys"), k, kv)
		{
			const char *key = json_string_value(kv);
			if (key && fn && *fn && (!strcmp(fn, key) || (strlen(fn) >= 4 && strstr(key, fn)) || strstr(fn, key)))
				score = 2;
		}
		json_array_foreach(json_object_get(t, "words"), k, kv)
		{
			const char *w = json_string_value(kv);
			if (w && c->name && strcasestr(c->name, w) && score < 1)
				score = 1;
		}
	}
	if (!score) {
		json_t *fw = words_of(jstr(r->plan, "feature"));
		json_array_foreach(fw, i, t)
		{
			if (c->name && strcasestr(c->name, json_string_value(t)))
				score = 1;
		}
		json_decref(fw);
	}
	free(fn);
	return score;
}

static bool may_touch(const ap_control *c)
{
	return !c->foreign && !c->edit && c->risk && !strcmp(c->risk, "safe");
}

static bool is_way_back(const ap_control *c)
{
	static const char *const words[] = {"navigate up", "back", "close", "cancel", "not now", "dismiss", NULL};
	for (int i = 0; c->name && words[i]; i++)
		if (!strcasecmp(c->name, words[i]))
			return true;
	return false;
}

static void note_wall(tf_run *r, const char *kind, const ap_screen *v)
{
	size_t i;
	json_t *w;
	json_array_foreach(r->walls, i, w) if (!strcmp(jstr(w, "kind"), kind) && !strcmp(jstr(w, "screen"), v->sig)) return;
	char *title = ap_redact(r->s, v->title ? v->title : "");
	json_array_append_new(r->walls, json_pack("{s:s,s:s,s:s}", "kind", kind, "screen", v->sig, "title",
	                                          title ? title : ""));
	free(title);
}

/* A paywall: a purchase control on a screen that sells something. */
static bool is_paywall(const ap_screen *v)
{
	bool buy = false;
	for (size_t i = 0; i < v->n; i++)
		if (v->c[i].klass && !strcmp(v->c[i].klass, "payment"))
			buy = true;
	static const char *const words[] = {"subscribe", "free trial", "/month", "per month", "premium", "go pro", NULL};
	bool sells = false;
	for (int i = 0; v->all_text && words[i]; i++)
		if (strcasestr(v->all_text, words[i]))
			sells = true;
	return buy && sells;
}

static void note_untouched(tf_run *r, const ap_screen *v)
{
	for (size_t i = 0; i < v->n; i++) {
		const ap_control *c = &v->c[i];
		if (c->foreign || !c->risk || !strcmp(c->risk, "safe") || !pointing(r, c))
			continue;
		bool seen = false;
		size_t k;
		json_t *o;
		json_array_foreach(r->not_touched, k, o) if (!strcmp(jstr(o, "candidateSignature"), c->sig)) seen = true;
		if (seen)
			continue;
		char *label = ap_redact(r->s, c->name ? c->name : "");
		json_array_append_new(r->not_touched,
		                      json_pack("{s:s,s:s,s:s,s:s,s:s?}", "screenSignature", v->sig, "candidateSignature",
		                                c->sig, "label", label ? label : "", "risk", c->risk, "riskClass", c->klass));
		free(label);
	}
}

static json_t *case_of(tf_run *r, const char *kind, long target)
{
	json_t *t = target >= 0 ? json_array_get(r->targets, (size_t)target) : NULL;
	size_t i;
	json_t *c;
	json_array_foreach(r->cases, i, c)
	{
		if (strcmp(jstr(c, "kind"), kind) != 0 || json_object_get(c, "status"))
			continue;
		if (!t)
			return c;
		const char *a = jstr(c, "screenName"), *b = jstr(t, "name");
		if (a && b && !strcmp(a, b))
			return c;
	}
	return NULL;
}

static void settle(json_t *c, const char *status, const char *reason, json_t *extra)
{
	if (!c) {
		json_decref(extra);
		return;
	}
	json_object_set_new(c, "status", json_string(status));
	json_object_set_new(c, "reason", json_string(reason ? reason : ""));
	if (extra)
		json_object_update(c, extra);
	json_decref(extra);
}

static json_t *screenshot(tf_run *r, const char *stem)
{
	if (sw_session_is_sensitive(r->s))
		return NULL;
	unsigned char *png = NULL;
	size_t len = 0;
	char *name = NULL, *meta = NULL;
	json_t *uri = NULL;
	if (sw_device_screencap(sw_drive_device(r->d), &png, &len, NULL) == SW_OK &&
	    sw_artifact_next_name(r->s, "screenshot", stem, ".png", &name, NULL) == SW_OK &&
	    sw_artifact_save(r->s, "screenshot", name, "image/png", png, len, "qa_test_feature evidence", &meta, NULL) ==
	        SW_OK) {
		json_t *m = json_loads(meta, 0, NULL);
		if (jstr(m, "uri")) {
			uri = json_incref(json_object_get(m, "uri"));
			(void)sw_job_add_artifact(r->job, jstr(m, "uri"), NULL);
			(void)sw_session_counter_add(r->s, "screenshots", 1, NULL);
		}
		json_decref(m);
	}
	sw_free(png);
	sw_free(name);
	sw_free(meta);
	return uri;
}

/* The checks of one reached target, on its screen @v (entered by @via from node @parent). The device may be left
 * anywhere; the caller looks again. Returns a negative code only for a device error or a cancel. */
static int run_checks(tf_run *r, long ti, ap_screen *v, const ap_control *via, long parent, json_t *arrival,
                      sw_error **err)
{
	json_t *t = json_array_get(r->targets, (size_t)ti);
	json_object_set_new(t, "reached", json_true());
	json_object_set_new(t, "signature", json_string(v->sig));
	char fsig[24];
	snprintf(fsig, sizeof(fsig), "%s", v->sig);
	char *title = ap_redact(r->s, v->title ? v->title : "");
	json_t *shot = screenshot(r, "feature");
	json_t *ex = json_pack("{s:s,s:s,s:s,s:I}", "screenSignature", fsig, "screenTitle", title ? title : "",
	                       "activity", r->activity ? r->activity : "", "controls", (json_int_t)v->n);
	free(title);
	if (shot)
		json_object_set_new(ex, "evidence", json_pack("[o]", shot));
	json_t *hf = json_object_get(json_object_get(arrival, "health"), "findings");
	if (json_array_size(hf))
		json_object_set(ex, "healthFindings", hf);
	settle(case_of(r, "reach", ti), "pass", "reached; the app is in front and healthy", ex);

	/* controls: each safe control once, back to the screen after each */
	json_t *cc = case_of(r, "controls", ti);
	bool crashed = false;
	if (cc) {
		json_t *touched = json_array(), *skipped = json_array();
		size_t total = 0;
		const char *why = NULL;
		json_t *fail_ev = json_array(), *fail_labels = json_array();
		bool relaunched_away = false;
		/* the controls to try, copied: the screen is read again after each tap */
		size_t n = v->n;
		ap_control *list = calloc(n ? n : 1, sizeof(*list));
		size_t m = 0;
		for (size_t i = 0; list && i < n; i++) {
			const ap_control *c = &v->c[i];
			if (c->foreign || c->edit)
				continue;
			if (!may_touch(c)) {
				char *l = ap_redact(r->s, c->name ? c->name : "");
				json_array_append_new(skipped, json_pack("{s:s,s:s,s:s?}", "label", l ? l : "", "risk", c->risk,
				                                         "riskClass", c->klass));
				free(l);
				continue;
			}
			if (is_way_back(c))
				continue; /* the back case covers leaving the screen */
			ap_control_keep(&list[m], c);
			m++;
		}
		total = m;
		for (size_t i = 0; i < m && !why; i++) {
			if (cancelled(r))
				break;
			if (r->actions >= r->max_actions) {
				why = "maxActions reached";
				break;
			}
			if (out_of_time(r)) {
				why = "timeoutMs reached";
				break;
			}
			json_t *args = tap_args(&list[i]), *res = NULL;
			sw_error *e = NULL;
			int rc = ap_drive_act(r->d, args, &res, &e);
			json_decref(args);
			r->actions++;
			if (rc < 0) {
				if (cancelled(r) || rc == SW_ECANCELLED) {
					sw_error_free(e);
					break;
				}
				json_array_append_new(r->notes, json_sprintf("a tap on a control of the feature failed: %s",
				                                             e ? sw_error_message(e) : "?"));
				sw_error_free(e);
				continue;
			}
			char *l = ap_redact(r->s, list[i].name ? list[i].name : "");
			json_array_append_new(touched, json_string(l ? l : ""));
			const char *crash = crash_of(res);
			ap_screen now = {0};
			sw_error *le = NULL;
			if (crash) {
				json_t *ev = evidence(r, res, crash);
				record_crash(r, crash, l, fsig, ev);
				json_array_extend(fail_ev, ev);
				json_decref(ev);
				json_array_append_new(fail_labels, json_string(l ? l : ""));
				free(l);
				json_decref(res);
				crashed = true;
				/* the app is started again; when it comes back on this screen the other controls are tried too */
				if (r->relaunches >= 2 * TF_MAX_RELAUNCHES || relaunch(r, true, &le) < 0 || look(r, &now, &le) < 0) {
					sw_error_free(le);
					relaunched_away = true;
					break;
				}
				bool back_here = !strcmp(now.sig, fsig);
				ap_screen_free(&now);
				if (!back_here) {
					relaunched_away = true;
					break;
				}
				continue;
			}
			free(l);
			json_decref(res);
			if (look(r, &now, &le) < 0) {
				sw_error_free(le);
				why = "the screen could not be read after a tap";
				break;
			}
			bool home = !strcmp(now.sig, fsig);
			if (now.permission_prompt) {
				/* a prompt is left to the guardrails: not even BACK (it answers the prompt); the app is restarted */
				note_wall(r, "permission_prompt", &now);
				ap_screen_free(&now);
				if (relaunch(r, true, &le) < 0 || look(r, &now, &le) < 0) {
					sw_error_free(le);
					relaunched_away = true;
					why = "a permission prompt opened and the app could not be brought back";
					break;
				}
				home = !strcmp(now.sig, fsig);
				ap_screen_free(&now);
				if (!home) {
					relaunched_away = true;
					why = "a permission prompt opened; after a relaunch the app is not on this screen";
					break;
				}
				continue;
			}
			ap_screen_free(&now);
			if (home)
				continue;
			if (cancelled(r))
				break;
			rc = press_back(r, &res, &e);
			if (rc < 0) {
				sw_error_free(e);
				if (cancelled(r))
					break;
				why = "BACK failed";
				break;
			}
			const char *c2 = crash_of(res);
			if (c2) {
				json_t *ev = evidence(r, res, c2);
				record_crash(r, c2, "BACK", fsig, ev);
				json_array_extend(fail_ev, ev);
				json_decref(ev);
				json_array_append_new(fail_labels, json_string("BACK"));
				json_decref(res);
				crashed = true;
				relaunched_away = true;
				break;
			}
			json_decref(res);
			if (look(r, &now, &le) < 0) {
				sw_error_free(le);
				why = "the screen could not be read after BACK";
				break;
			}
			home = !strcmp(now.sig, fsig);
			ap_screen_free(&now);
			if (!home)
				why = "could not return to the screen after a control opened another one";
		}
		for (size_t i = 0; list && i < m; i++) {
			ap_control_drop(&list[i]);
		}
		free(list);
		if (cancelled(r)) {
			json_decref(touched);
			json_decref(skipped);
			json_decref(fail_ev);
			json_decref(fail_labels);
			return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_test_feature was cancelled");
		}
		json_t *x = json_pack("{s:o,s:o,s:I}", "touched", touched, "notTouched", skipped, "safeControls",
		                      (json_int_t)total);
		if (crashed) {
			sw_buf b = SW_BUF_INIT;
			size_t k;
			json_t *fl;
			json_array_foreach(fail_labels, k, fl) sw__buf_printf(&b, "%s\"%s\"", k ? ", " : "", json_string_value(fl));
			char *labels = sw__buf_steal(&b, NULL);
			char *reason = sw__asprintf("the app crashed or froze after %s%s", labels ? labels : "a tap",
			                            relaunched_away ? "" : " (each time it was restarted and the other controls were tried)");
			free(labels);
			json_object_set_new(x, "evidence", fail_ev);
			json_object_set(x, "failedOn", fail_labels);
			fail_ev = NULL;
			settle(cc, "fail", reason, x);
			free(reason);
		} else if (why && json_array_size(touched) == 0) {
			settle(cc, "blocked", why, x);
		} else {
			char *reason = why ? sw__asprintf("%zu of %zu safe control(s) tapped, health clean; stopped: %s",
			                                  json_array_size(touched), total, why)
			                   : sw__asprintf("%zu safe control(s) tapped, health clean after each",
			                                  json_array_size(touched));
			settle(cc, "pass", reason, x);
			free(reason);
		}
		json_decref(fail_ev);
		json_decref(fail_labels);
	}
	if (crashed) {
		const char *kinds[] = {"back", "revisit"};
		for (int k = 0; k < 2; k++)
			settle(case_of(r, kinds[k], ti), "blocked", "not run: the app crashed on this screen (see the controls "
			                                            "case); fix the crash first",
			       NULL);
		int rc = relaunch(r, true, err);
		return rc < 0 ? rc : SW_OK;
	}

	/* back: BACK from the screen keeps the app healthy (the device is on the screen when the controls case
	 * came back to it) */
	json_t *bc = case_of(r, "back", ti);
	json_t *rv = case_of(r, "revisit", ti);
	if (bc || rv) {
		ap_screen now = {0};
		int rc = look(r, &now, err);
		if (rc < 0)
			return rc;
		bool on = !strcmp(now.sig, fsig);
		ap_screen_free(&now);
		if (!on) {
			settle(bc, "blocked", "not run: the walk could not come back to the screen", NULL);
			settle(rv, "blocked", "not run: the walk could not come back to the screen", NULL);
			return SW_OK;
		}
		if (parent < 0 || !via) {
			settle(bc, "blocked",
			       "not run: the feature's screen is the app's first screen, and BACK there leaves the app", NULL);
			settle(rv, "blocked", "not run: the screen was not reached through a control", NULL);
			return SW_OK;
		}
		if (cancelled(r))
			return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_test_feature was cancelled");
		json_t *res = NULL;
		sw_error *e = NULL;
		rc = press_back(r, &res, &e);
		if (rc < 0) {
			if (cancelled(r)) {
				sw_error_free(e);
				return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_test_feature was cancelled");
			}
			settle(bc, "blocked", e ? sw_error_message(e) : "BACK failed", NULL);
			settle(rv, "blocked", "not run: BACK failed", NULL);
			sw_error_free(e);
			return SW_OK;
		}
		const char *crash = crash_of(res);
		if (crash) {
			json_t *ev = evidence(r, res, crash);
			record_crash(r, crash, "BACK", fsig, ev);
			settle(bc, "fail", "the app crashed or froze on BACK", json_pack("{s:o}", "evidence", ev));
			settle(rv, "blocked", "not run: the app crashed on BACK", NULL);
			json_decref(res);
			rc = relaunch(r, true, err);
			return rc < 0 ? rc : SW_OK;
		}
		json_decref(res);
		if ((rc = look(r, &now, err)) < 0)
			return rc;
		bool in_app = !r->app_id || !strcmp(now.pkg, r->app_id);
		bool at_parent = parent >= 0 && !strcmp(now.sig, r->nodes[parent].sig);
		ap_screen_free(&now);
		settle(bc, in_app ? "pass" : "fail",
		       in_app ? (at_parent ? "BACK returned to the screen the feature was opened from"
		                           : "BACK returned to another screen of the app")
		              : "BACK left the app from inside the feature",
		       NULL);
		if (rv) {
			if (!at_parent) {
				settle(rv, "blocked", "not run: BACK did not return to the screen the feature was opened from",
				       NULL);
			} else if (r->actions >= r->max_actions) {
				settle(rv, "blocked", "not run: maxActions reached", NULL);
			} else {
				if (cancelled(r))
					return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_test_feature was cancelled");
				json_t *args = tap_args(via);
				rc = ap_drive_act(r->d, args, &res, &e);
				json_decref(args);
				r->actions++;
				if (rc < 0) {
					settle(rv, "blocked", e ? sw_error_message(e) : "the tap failed", NULL);
					sw_error_free(e);
				} else if ((crash = crash_of(res)) != NULL) {
					json_t *ev = evidence(r, res, crash);
					record_crash(r, crash, via->name, r->nodes[parent].sig, ev);
					settle(rv, "fail", "the app crashed or froze opening the feature again",
					       json_pack("{s:o}", "evidence", ev));
					json_decref(res);
					rc = relaunch(r, true, err);
					return rc < 0 ? rc : SW_OK;
				} else {
					json_decref(res);
					if ((rc = look(r, &now, err)) < 0)
						return rc;
					bool same = !strcmp(now.sig, fsig);
					ap_screen_free(&now);
					settle(rv, same ? "pass" : "fail",
					       same ? "the same control led to the same screen again"
					            : "the same control led to a different screen the second time",
					       NULL);
				}
			}
		}
	}
	return SW_OK;
}

/* Does a node of an exploration graph show one of the targets? */
static bool graph_node_is_target(tf_run *r, const json_t *node)
{
	const char *act = jstr(node, "activity");
	if (act && strrchr(act, '.'))
		act = strrchr(act, '.') + 1;
	char *fa = sw__fold_alnum(act), *ft = sw__fold_alnum(jstr(node, "title"));
	bool hit = false;
	size_t i;
	json_t *t;
	json_array_foreach(r->targets, i, t)
	{
		if (json_is_true(json_object_get(t, "byText"))) {
			size_t k, n = 0;
			json_t *w;
			json_array_foreach(json_object_get(t, "words"), k, w) if (jstr(node, "title") &&
			                                                          strcasestr(jstr(node, "title"),
			                                                                     json_string_value(w))) n++;
			hit = hit || (n && n == json_array_size(json_object_get(t, "words")));
		} else {
			hit = hit || key_in(json_object_get(t, "keys"), fa) || key_in(json_object_get(t, "keys"), ft);
		}
	}
	free(fa);
	free(ft);
	return hit;
}

/* The shortest known way to the feature: from the session's last exploration graph (explore/<jobId>/graph.json),
 * for each screen the label of the tap that leads one step closer to a target screen. */
static void load_hints(tf_run *r)
{
	r->hints = json_object();
	json_t *ex = NULL;
	if (sw__session_get(r->s, "exploration", &ex, NULL) != SW_OK)
		return;
	const char *job = jstr(ex, "lastJobId");
	char *path = job && !strchr(job, '/') ? sw__asprintf("%s/explore/%s/graph.json", sw_session_dir(r->s), job) : NULL;
	json_decref(ex);
	char *text = NULL;
	size_t len = 0;
	if (!path || sw__read_file(path, 64u << 20, &text, &len, NULL) != SW_OK) {
		free(path);
		return;
	}
	free(path);
	json_t *g = json_loadb(text, len, 0, NULL);
	free(text);
	json_t *dist = json_object();
	size_t i;
	json_t *n;
	json_array_foreach(json_object_get(g, "nodes"), i, n) if (jstr(n, "signature") && graph_node_is_target(r, n))
	    json_object_set_new(dist, jstr(n, "signature"), json_integer(0));
	/* relax the tap edges backwards until nothing changes (graphs are small: at most a few hundred edges) */
	json_t *edges = json_object_get(g, "edges");
	for (size_t round = 0; round < 64 && json_object_size(dist); round++) {
		bool changed = false;
		json_array_foreach(edges, i, n)
		{
			const char *from = jstr(n, "from"), *to = jstr(n, "to");
			json_t *a = json_object_get(n, "action");
			const char *label = jstr(a, "label");
			if (!from || !to || !label || !*label || strcmp(from, to) == 0 || !jstr(n, "outcome") ||
			    strcmp(jstr(n, "outcome"), "new_screen") != 0)
				continue;
			json_t *dt = json_object_get(dist, to);
			if (!dt)
				continue;
			json_t *df = json_object_get(dist, from);
			if (!df || json_integer_value(df) > json_integer_value(dt) + 1) {
				json_object_set_new(dist, from, json_integer(json_integer_value(dt) + 1));
				json_object_set_new(r->hints, from, json_string(label));
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	json_decref(dist);
	json_decref(g);
}

/* Forgets the control that led to the current screen. */
static void via_clear(ap_control *via, bool *have)
{
	if (*have) {
		ap_control_drop(via);
	}
	memset(via, 0, sizeof(*via));
	*have = false;
}

/* The walk toward the targets. Returns a negative code for a device error or a cancel. */
static int walk(tf_run *r, sw_error **err)
{
	ap_screen v = {0};
	int rc;
	if (cancelled(r))
		return SW_ECANCELLED;
	if ((rc = look(r, &v, err)) < 0)
		return rc;
	if (r->app_id && strcmp(v.pkg, r->app_id) != 0 && !v.permission_prompt) {
		ap_screen_free(&v);
		if ((rc = relaunch(r, false, err)) < 0)
			return rc;
		r->relaunches--; /* bringing the app to the front is not a relaunch */
		if ((rc = look(r, &v, err)) < 0)
			return rc;
		if (strcmp(v.pkg, r->app_id) != 0) {
			ap_screen_free(&v);
			r->stopped = "app_not_in_foreground";
			json_array_append_new(r->blockers,
			                      sw__tt_blocker("APP_LAUNCH_FAILED", "the app does not come to the front"));
			r->state = "blocked";
			return SW_OK;
		}
	}
	r->cur = node_of(r, v.sig, -1);
	long via_parent = -1;
	json_t *arrival = NULL;
	for (;;) {
		if (r->cur < 0) {
			rc = sw__error_nomem(err);
			break;
		}
		if (cancelled(r)) {
			rc = SW_ECANCELLED;
			break;
		}
		note_untouched(r, &v);
		long ti = target_of(r, &v);
		if (ti >= 0) {
			rc = run_checks(r, ti, &v, r->have_via ? &r->via : NULL, r->have_via ? via_parent : -1, arrival, err);
			json_decref(arrival);
			arrival = NULL;
			ap_screen_free(&v);
			if (rc < 0)
				return rc;
			bool left = false;
			size_t i;
			json_t *t;
			json_array_foreach(r->targets, i, t) if (!json_is_true(json_object_get(t, "reached"))) left = true;
			if (!left) {
				r->stopped = "all_reached";
				return SW_OK;
			}
			if ((rc = look(r, &v, err)) < 0)
				return rc;
			r->cur = node_of(r, v.sig, -1);
			via_clear(&r->via, &r->have_via);
			continue;
		}
		json_decref(arrival);
		arrival = NULL;
		tf_node *n = &r->nodes[r->cur];
		if (v.login_wall || v.otp) {
			note_wall(r, v.otp ? "otp" : "login_wall", &v);
			if (r->interactive) {
				r->state = "needs_input";
				r->needs_input = credentials_question(
				    r->plan, r->s, v.otp ? "The app asks for a one-time code on the way to the feature."
				                   : "The app shows a sign-in screen on the way to the feature and no test "
				                     "account was given.");
			}
			r->stopped = "auth_wall";
			break; /* nothing is typed or touched on a wall */
		}
		if (v.permission_prompt) {
			note_wall(r, "permission_prompt", &v);
			ap_screen_free(&v);
			if (r->relaunches >= TF_MAX_RELAUNCHES) {
				r->stopped = "relaunch_limit";
				return SW_OK;
			}
			if ((rc = relaunch(r, true, err)) < 0)
				return rc;
			if ((rc = look(r, &v, err)) < 0)
				return rc;
			r->cur = node_of(r, v.sig, -1);
			via_clear(&r->via, &r->have_via);
			continue;
		}
		if (!n->paywall_noted && is_paywall(&v)) {
			n->paywall_noted = true;
			note_wall(r, "paywall", &v);
		}
		if (r->actions >= r->max_actions) {
			r->stopped = "max_actions";
			break;
		}
		if ((long)r->n_nodes > r->max_screens) {
			r->stopped = "max_screens";
			break;
		}
		if (out_of_time(r)) {
			r->stopped = "timeout";
			break;
		}
		char *why = NULL;
		if (sw_session_budget_exhausted(r->s, &why)) {
			sw_free(why);
			r->stopped = "budget";
			break;
		}
		sw_free(why);
		/* the best untried safe control: one that names the feature first, then the explorer's order */
		const ap_control *pick = NULL;
		int best = -1;
		for (size_t i = 0; i < v.n; i++) {
			const ap_control *c = &v.c[i];
			if (json_object_get(n->tried, c->sig) || !may_touch(c) || is_way_back(c))
				continue;
			int sc = pointing(r, c);
			if (sc > best) {
				best = sc;
				pick = c;
			}
		}
		if (pick) {
			json_object_set_new(n->tried, pick->sig, json_true());
			json_t *args = tap_args(pick), *res = NULL;
			long from = r->cur;
			if (r->have_via) {
				ap_control_drop(&r->via);
			}
			ap_control_keep(&r->via, pick);
			r->have_via = true;
			via_parent = from;
			sw_error *e = NULL;
			rc = ap_drive_act(r->d, args, &res, &e);
			json_decref(args);
			r->actions++;
			if (rc < 0) {
				if (cancelled(r)) {
					sw_error_free(e);
					rc = SW_ECANCELLED;
					break;
				}
				const char *code = e ? sw_error_failure_code(e) : "UNKNOWN";
				if (!strcmp(code, "NO_DEVICE") || !strcmp(code, "ADB_NOT_FOUND") || !strcmp(code, "DEVICE_NOT_READY")) {
					sw__error_propagate(err, e);
					break;
				}
				json_array_append_new(r->notes, json_sprintf("a tap on the way failed (%s): %s", code,
				                                             e ? sw_error_message(e) : ""));
				sw_error_free(e);
				continue;
			}
			char *label = ap_redact(r->s, pick->name ? pick->name : "");
			json_array_append_new(r->path, json_string(label ? label : ""));
			const char *crash = crash_of(res);
			ap_screen_free(&v);
			if (crash) {
				json_t *ev = evidence(r, res, crash);
				record_crash(r, crash, label, r->nodes[from].sig, ev);
				json_decref(ev);
				free(label);
				json_decref(res);
				if (r->relaunches >= TF_MAX_RELAUNCHES) {
					r->stopped = "crash_loop";
					break;
				}
				if ((rc = relaunch(r, true, err)) < 0)
					break;
				if ((rc = look(r, &v, err)) < 0)
					break;
				r->cur = node_of(r, v.sig, -1);
				via_clear(&r->via, &r->have_via);
				continue;
			}
			free(label);
			arrival = res;
			if ((rc = look(r, &v, err)) < 0)
				break;
			if (r->app_id && strcmp(v.pkg, r->app_id) != 0 && !v.permission_prompt) {
				/* the tap left the app: launch it again */
				ap_screen_free(&v);
				if ((rc = relaunch(r, false, err)) < 0)
					break;
				if ((rc = look(r, &v, err)) < 0)
					break;
				r->cur = node_of(r, v.sig, -1);
				via_clear(&r->via, &r->have_via);
				continue;
			}
			r->cur = node_of(r, v.sig, from);
			continue;
		}
		/* nothing left here: back to the screen it was reached from */
		if (n->parent < 0 || r->backs > 2 * r->max_actions + 8) {
			r->stopped = "exhausted";
			break;
		}
		long parent = n->parent;
		json_t *res = NULL;
		sw_error *e = NULL;
		rc = press_back(r, &res, &e);
		ap_screen_free(&v);
		if (rc < 0) {
			if (cancelled(r)) {
				sw_error_free(e);
				return SW_ECANCELLED;
			}
			sw__error_propagate(err, e);
			return rc;
		}
		json_decref(res);
		if ((rc = look(r, &v, err)) < 0)
			return rc;
		if (r->app_id && strcmp(v.pkg, r->app_id) != 0 && !v.permission_prompt) {
			ap_screen_free(&v);
			if ((rc = relaunch(r, false, err)) < 0)
				return rc;
			if ((rc = look(r, &v, err)) < 0)
				return rc;
		}
		long at = node_of(r, v.sig, parent >= 0 ? r->nodes[parent].parent : -1);
		if (at == r->cur)
			r->nodes[at].parent = -1; /* BACK did nothing: a dead end */
		r->cur = at;
		via_clear(&r->via, &r->have_via);
	}
	json_decref(arrival);
	ap_screen_free(&v);
	return rc < 0 ? rc : SW_OK;
}

/* The guidance of a case that was not reached. */
static void settle_unreached(tf_run *r)
{
	const char *wall = NULL;
	size_t i;
	json_t *w;
	json_array_foreach(r->walls, i, w)
	{
		const char *k = jstr(w, "kind");
		if (!wall || !strcmp(k, "login_wall") || !strcmp(k, "otp"))
			wall = k;
	}
	json_t *c;
	json_array_foreach(r->cases, i, c)
	{
		if (json_object_get(c, "status"))
			continue;
		const char *kind = jstr(c, "kind");
		if (!strcmp(kind, "act")) {
			settle(c, "blocked",
			       "the feature's own control is high-impact: qa_test_feature never taps it",
			       json_pack("{s:s,s:s}", "failureCode", "MISSING_FIXTURE", "setupGuidance",
			                 "Declare disposable state (a fixture with disposable:true or environment \"test\" in "
			                 ".swipium/fixtures.json), run qa_explore {safeMode:\"dry_run_destructive\"}, then approve "
			                 "exactly one candidate with qa_explore {safeMode:\"approved_destructive_candidate\"}."));
			continue;
		}
		const char *reason, *guidance, *code = NULL;
		if (!strcmp(r->state, "blocked")) {
			json_t *b0 = json_array_get(r->blockers, 0);
			char *full = sw__asprintf("not run: the run was blocked before it reached the feature (%s)",
			                          jstr(b0, "failureCode") ? jstr(b0, "failureCode") : "?");
			settle(c, "blocked", full ? full : "not run: the run was blocked",
			       json_pack("{s:s,s:s?}", "setupGuidance",
			                 jstr(b0, "howToFix") ? jstr(b0, "howToFix") : "See the run's blockers.", "failureCode",
			                 jstr(b0, "failureCode")));
			free(full);
			continue;
		}
		if (r->needs_input && !wall) {
			settle(c, "blocked", "not run: a question must be answered first (needsInput)",
			       json_pack("{s:s}", "setupGuidance", "Answer needsInput with qa_continue_from_blocker, then call "
			                                           "qa_test_feature again."));
			continue;
		}
		if (wall && (!strcmp(wall, "login_wall") || !strcmp(wall, "otp"))) {
			reason = !strcmp(wall, "otp") ? "behind a one-time-code screen" : "behind a login wall";
			guidance = "Give a test account: qa_continue_from_blocker {sessionId, kind:\"credentials\", "
			           "values:{SWIPIUM_TEST_USERNAME, SWIPIUM_TEST_PASSWORD}} or a credentials fixture in "
			           ".swipium/fixtures.json, sign in (qa_first_run or a flow), then call qa_test_feature again.";
			code = "MISSING_FIXTURE";
		} else if (wall && !strcmp(wall, "permission_prompt")) {
			reason = "behind a permission prompt the walk does not answer";
			guidance = "Grant or deny the permission yourself (qa_clear_overlay {action:\"allow_permission\"} or "
			           "\"deny_permission\"), then call qa_test_feature again.";
		} else if (wall && !strcmp(wall, "paywall")) {
			reason = "behind a paywall: nothing is bought";
			guidance = "Use a build or an account where the feature is unlocked (a test entitlement), then call "
			           "qa_test_feature again.";
			code = "MISSING_FIXTURE";
		} else if (json_array_size(r->not_touched)) {
			reason = "the only controls leading to it are destructive or unknown, and they are never tapped";
			guidance = "Open the screen yourself (a deep link, am start -n through qa_app_control, or qa_act), then "
			           "call qa_test_feature with that session; or approve one control through qa_explore's dry run.";
		} else {
			reason = "not reached within the walk's limits";
			guidance = "Raise maxActions or maxScreens, or open the feature's screen first (a deep link or qa_act) "
			           "and call qa_test_feature again with the session.";
		}
		char *full = r->stopped ? sw__asprintf("not run: the feature's screen was %s (walk stopped: %s)", reason,
		                                       r->stopped)
		                        : sw__asprintf("not run: the feature's screen was %s", reason);
		json_t *x = json_pack("{s:s}", "setupGuidance", guidance);
		if (code)
			json_object_set_new(x, "failureCode", json_string(code));
		settle(c, "blocked", full ? full : reason, x);
		free(full);
	}
}

static int relaunch_case(tf_run *r, sw_error **err)
{
	json_t *c = case_of(r, "relaunch", -1);
	if (!c)
		return SW_OK;
	bool reached = false;
	size_t i;
	json_t *t;
	json_array_foreach(r->targets, i, t) if (json_is_true(json_object_get(t, "reached"))) reached = true;
	if (!reached) {
		settle(c, "blocked", "not run: the feature was not reached", NULL);
		return SW_OK;
	}
	int rc = relaunch(r, true, err);
	if (rc < 0)
		return rc;
	char *hout = NULL;
	sw_error *e = NULL;
	if (sw_job_sleep(r->job, 500) != SW_OK)
		return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_test_feature was cancelled");
	rc = sw_health_check(r->ctx, r->s, sw_drive_device(r->d), NULL, &hout, &e);
	if (rc < 0) {
		settle(c, "blocked", e ? sw_error_message(e) : "the health check failed", NULL);
		sw_error_free(e);
		return SW_OK;
	}
	json_t *h = json_loads(hout, 0, NULL);
	sw_free(hout);
	bool front = json_is_true(json_object_get(h, "foregroundIsApp"));
	json_t *wrap = json_pack("{s:O}", "health", h);
	const char *crash = crash_of(wrap);
	json_decref(wrap);
	settle(c, crash || !front ? "fail" : "pass",
	       crash ? "the app crashed or froze starting again"
	       : front ? "the app came back in front, healthy"
	               : "the app is not in front after the launch",
	       NULL);
	json_decref(h);
	return SW_OK;
}

/* Each case as a test case of the feature in the app map, and the feature's coverage. */
static void update_map(tf_run *r)
{
	const char *root = jstr(r->plan, "projectRoot");
	const char *fid = jstr(r->plan, "featureId");
	json_t *tcs = json_array();
	size_t i, pass = 0, ran = 0;
	json_t *c;
	json_array_foreach(r->cases, i, c)
	{
		const char *st = jstr(c, "status");
		json_t *tc = json_pack("{s:O,s:O,s:s,s:s,s:s}", "id", json_object_get(c, "id"), "title",
		                       json_object_get(c, "title"), "featureId", fid, "status", st ? st : "blocked", "source",
		                       "qa_test_feature");
		if (jstr(c, "screenId"))
			json_object_set(tc, "screenId", json_object_get(c, "screenId"));
		json_array_append_new(tcs, tc);
		if (st && !strcmp(st, "pass"))
			pass++;
		if (st && strcmp(st, "blocked") != 0)
			ran++;
	}
	const char *coverage = !ran ? "none" : pass == json_array_size(r->cases) ? "covered" : "partial";
	json_t *req = json_pack("{s:o,s:{s:s,s:s},s:s}", "testCases", tcs, "featureCoverage", "featureId", fid, "coverage",
	                        coverage, "sessionId", sw_session_id(r->s));
	char *rj = sw__json_compact(req);
	json_decref(req);
	char *out = NULL;
	sw_error *e = NULL;
	json_t *am = json_pack("{s:b,s:s}", "updated", 0, "coverage", coverage);
	int rc = sw_appmap_update(r->ctx, root, rj, &out, &e);
	if (rc < 0 && e && (!strcmp(sw_error_failure_code(e), "NO_APP_MAP") ||
	                    !strcmp(sw_error_failure_code(e), "INVALID_ARGUMENT"))) {
		/* the scope came from a code scan: the map is made first, then updated */
		sw_error_free(e);
		e = NULL;
		char *bout = NULL;
		if (sw_appmap_build(r->ctx, root, "{\"mode\":\"static_only\"}", &bout, &e) == SW_OK) {
			json_object_set_new(am, "built", json_true());
			rc = sw_appmap_update(r->ctx, root, rj, &out, &e);
		} else {
			rc = SW_EIO;
		}
		sw_free(bout);
	}
	if (rc == SW_OK) {
		json_t *o = json_loads(out, 0, NULL);
		json_object_set_new(am, "updated", json_true());
		json_object_set_new(am, "testCases", json_integer((json_int_t)json_array_size(r->cases)));
		if (jstr(o, "uri"))
			json_object_set(am, "uri", json_object_get(o, "uri"));
		json_decref(o);
	} else {
		const char *code = e ? sw_error_failure_code(e) : "UNKNOWN";
		json_object_set_new(am, "failureCode", json_string(code));
		json_object_set_new(am, "why", json_string(e ? sw_error_message(e) : "the map could not be written"));
		json_array_append_new(r->notes, json_sprintf("the app map was not updated (%s): %s", code,
		                                             e ? sw_error_message(e) : "?"));
	}
	sw_error_free(e);
	sw_free(out);
	free(rj);
	json_object_set_new(r->res, "appMap", am);
}

static void save_report(tf_run *r)
{
	(void)sw_job_set_progress(r->job, "report: saving the report",
	                          "{\"phase\":\"report\",\"statusText\":\"saving\",\"userActionRequired\":false}", NULL);
	char *out = NULL, *body = NULL;
	sw_error *e = NULL;
	if (sw_report_save(r->ctx, r->s, "{\"tool\":\"qa_test_feature\"}", &out, &body, &e) == SW_OK) {
		json_t *rep = json_loads(out, 0, NULL);
		json_object_set(r->res, "reportUri", json_object_get(rep, "reportUri"));
		if (jstr(rep, "reportUri"))
			(void)sw_job_add_artifact(r->job, jstr(rep, "reportUri"), NULL);
		json_object_set_new(r->res, "reportSummary",
		                    json_pack("{s:O*,s:O*,s:O*,s:O*}", "executiveSummary",
		                              json_object_get(rep, "executiveSummary"), "appVerdict",
		                              json_object_get(rep, "appVerdict"), "coverageVerdict",
		                              json_object_get(rep, "coverageVerdict"), "outcomeTally",
		                              json_object_get(rep, "outcomeTally")));
		json_decref(rep);
	} else {
		json_object_set_new(r->res, "reportUri", json_null());
		json_array_append_new(r->notes, json_sprintf("the report could not be saved: %s", sw_error_message(e)));
	}
	sw_error_free(e);
	sw_free(out);
	sw_free(body);
}

/* Boot / install / launch inside the job. SW_ECANCELLED, SW_OK (prepared), or SW_OK with r->state blocked. */
static int bootstrap(tf_run *r)
{
	json_t *boot = json_object_get(r->plan, "bootstrap");
	if (!json_is_object(boot))
		return SW_OK;
	json_t *bl = json_object_get(boot, "blockers");
	if (json_array_size(bl)) {
		json_array_extend(r->blockers, bl);
		r->state = "blocked";
		r->stopped = "bootstrap_blocked";
		return SW_OK;
	}
	if (json_is_object(json_object_get(boot, "needsInput"))) {
		r->needs_input = json_deep_copy(json_object_get(boot, "needsInput"));
		r->state = "needs_input";
		r->stopped = "bootstrap_needs_input";
		return SW_OK;
	}
	json_t *args = json_object_get(json_object_get(json_object_get(boot, "prepare"), "tool"), "args");
	char *oj = ap_prepare_request(args);
	(void)sw_job_set_progress(r->job, "bootstrap: preparing the device",
	                          "{\"phase\":\"bootstrap\",\"statusText\":\"boot (if needed), install, launch\","
	                          "\"userActionRequired\":false}",
	                          NULL);
	char *out = NULL;
	sw_error *e = NULL;
	int rc = oj ? sw_android_prepare_abortable(r->ctx, oj, sw_job_abort, r->job, &out, &e) : SW_ENOMEM;
	free(oj);
	if (cancelled(r)) {
		sw_error_free(e);
		sw_free(out);
		return SW_ECANCELLED;
	}
	if (rc != SW_OK) {
		const char *code = e && sw_error_failure_code(e) ? sw_error_failure_code(e) : "APP_LAUNCH_FAILED";
		json_array_append_new(r->blockers, sw__tt_blocker(code, e ? sw_error_message(e) : NULL));
		ap_add_note(r->s, "qa_test_feature: bootstrap", "blocked", "other", e ? sw_error_message(e) : code,
		            code);
		sw_error_free(e);
		r->state = "blocked";
		r->stopped = "bootstrap_failed";
		return SW_OK;
	}
	json_t *prep = json_loads(out, 0, NULL);
	sw_free(out);
	ap_remember(r->s, prep, jstr(args, "appId"));
	json_object_set(r->res, "prepared", prep);
	json_decref(prep);
	return SW_OK;
}

static json_t *tally(json_t *cases)
{
	json_int_t p = 0, f = 0, b = 0;
	size_t i;
	json_t *c;
	json_array_foreach(cases, i, c)
	{
		const char *st = jstr(c, "status");
		if (st && !strcmp(st, "pass"))
			p++;
		else if (st && !strcmp(st, "fail"))
			f++;
		else
			b++;
	}
	return json_pack("{s:I,s:I,s:I}", "pass", p, "fail", f, "blocked", b);
}

static json_t *next_action(tf_run *r)
{
	const char *sid = sw_session_id(r->s);
	if (!strcmp(r->state, "needs_input")) {
		json_t *a = json_deep_copy(json_object_get(r->needs_input, "answerWith"));
		if (a) {
			json_object_set_new(a, "why", json_string("Ask the user the question, then answer it and call "
			                                          "qa_test_feature again."));
			return a;
		}
		return action("qa_continue_from_blocker",
		              json_pack("{s:s,s:s}", "sessionId", sid, "kind",
		                        jstr(r->needs_input, "kind") ? jstr(r->needs_input, "kind") : "credentials"),
		              "Answer the question, then call qa_test_feature again.");
	}
	if (!strcmp(r->state, "blocked")) {
		const char *code = jstr(json_array_get(r->blockers, 0), "failureCode");
		return action("qa_explain_blocker",
		              json_pack("{s:s,s:s}", "failureCode", code ? code : "UNKNOWN", "sessionId", sid),
		              "The run was blocked: see what the code means and who fixes it.");
	}
	const char *uri = jstr(r->res, "reportUri");
	if (uri)
		return action("qa_get_artifact", json_pack("{s:s}", "uri", uri), "Read the saved report.");
	return action("qa_report", json_pack("{s:s}", "sessionId", sid), "Save the report.");
}

static void run_free(tf_run *r)
{
	for (size_t i = 0; i < r->n_nodes; i++)
		json_decref(r->nodes[i].tried);
	free(r->nodes);
	free(r->app_id);
	free(r->activity);
	json_decref(r->targets);
	json_decref(r->cases);
	json_decref(r->path);
	json_decref(r->walls);
	json_decref(r->findings);
	json_decref(r->not_touched);
	json_decref(r->notes);
	json_decref(r->blockers);
	json_decref(r->res);
	json_decref(r->needs_input);
	json_decref(r->hints);
	via_clear(&r->via, &r->have_via);
	if (r->d)
		ap_drive_close(r->d);
	sw_ctx_free(r->ctx);
}

static int tf_run_job(sw_job *job, void *ud, char **result_json, sw_error **err)
{
	struct ap_job *j = ud;
	tf_run r = {.job = job, .s = sw_job_session(job), .plan = j->plan, .state = "completed", .cur = -1};
	int rc = sw_ctx_new(&r.ctx, err);
	if (rc != SW_OK)
		return rc;
	if (j->home)
		(void)sw_ctx_set_home(r.ctx, j->home, NULL);
	json_t *lim = json_object_get(r.plan, "limits");
	r.max_actions = (long)json_integer_value(json_object_get(lim, "maxActions"));
	r.max_screens = (long)json_integer_value(json_object_get(lim, "maxScreens"));
	r.timeout_ms = (long)json_integer_value(json_object_get(lim, "timeoutMs"));
	r.interactive = jstr(r.plan, "mode") && !strcmp(jstr(r.plan, "mode"), "interactive");
	r.t0 = sw_monotonic_ms();
	r.targets = json_deep_copy(json_object_get(r.plan, "targets"));
	r.cases = json_deep_copy(json_object_get(r.plan, "cases"));
	r.path = json_array();
	r.walls = json_array();
	r.findings = json_array();
	r.not_touched = json_array();
	r.notes = json_array();
	r.blockers = json_deep_copy(json_object_get(r.plan, "blockers"));
	if (!json_is_array(r.blockers)) {
		json_decref(r.blockers);
		r.blockers = json_array();
	}
	r.res = json_pack("{s:s,s:O,s:O,s:O,s:O}", "sessionId", sw_session_id(r.s), "feature",
	                  json_object_get(r.plan, "feature"), "featureId", json_object_get(r.plan, "featureId"),
	                  "featureTitle", json_object_get(r.plan, "featureTitle"), "objective",
	                  json_object_get(r.plan, "objective"));
	if (!r.targets || !r.cases || !r.res) {
		run_free(&r);
		return sw__error_nomem(err);
	}
	if (json_array_size(r.blockers)) {
		r.state = "blocked";
		r.stopped = "blocked_before_start";
	}
	if (!strcmp(r.state, "completed") && bootstrap(&r) == SW_ECANCELLED) {
		run_free(&r);
		return SW_ECANCELLED;
	}
	if (!strcmp(r.state, "completed")) {
		json_t *app = NULL;
		if (sw__session_get(r.s, "appId", &app, NULL) == SW_OK && json_is_string(app))
			r.app_id = sw__strdup(json_string_value(app));
		json_decref(app);
		sw_error *e = NULL;
		if (!session_has_device(r.s)) {
			json_array_append_new(r.blockers, sw__tt_blocker("NO_DEVICE", "the session has no device bound"));
			r.state = "blocked";
			r.stopped = "no_device";
		} else if (ap_drive_open(r.ctx, r.s, &r.d, &e) < 0) {
			const char *code = e && sw_error_failure_code(e) ? sw_error_failure_code(e) : "NO_DEVICE";
			json_array_append_new(r.blockers, sw__tt_blocker(code, e ? sw_error_message(e) : NULL));
			r.state = "blocked";
			r.stopped = "no_device";
		} else {
			(void)sw_job_set_progress(job, "navigate: walking toward the feature",
			                          "{\"phase\":\"navigate\",\"statusText\":\"safe controls only\","
			                          "\"userActionRequired\":false}",
			                          NULL);
			load_hints(&r);
			if (json_object_size(r.hints))
				json_object_set_new(r.res, "knownPath",
				                    json_pack("{s:s,s:I}", "source", "the session's last exploration graph",
				                              "screens", (json_int_t)json_object_size(r.hints)));
			rc = walk(&r, &e);
			if (rc == SW_OK && !cancelled(&r))
				rc = relaunch_case(&r, &e);
			if (cancelled(&r) || rc == SW_ECANCELLED) {
				sw_error_free(e);
				run_free(&r);
				return SW_ECANCELLED;
			}
			if (rc < 0) {
				const char *code = e && sw_error_failure_code(e) ? sw_error_failure_code(e) : "NO_DEVICE";
				json_array_append_new(r.blockers, sw__tt_blocker(code, e ? sw_error_message(e) : NULL));
				r.state = "blocked";
				r.stopped = "device_error";
			}
		}
		sw_error_free(e);
	}
	if (cancelled(&r)) {
		run_free(&r);
		return SW_ECANCELLED;
	}
	settle_unreached(&r);
	if (!strcmp(r.state, "completed") && json_array_size(r.walls)) {
		bool auth = false;
		size_t i;
		json_t *w;
		json_array_foreach(r.walls, i, w) if (!strcmp(jstr(w, "kind"), "login_wall") || !strcmp(jstr(w, "kind"), "otp"))
		    auth = true;
		if (auth && !sw__tt_have_credentials(r.s))
			json_object_set_new(r.res, "optionalQuestion",
			                    credentials_question(r.plan, r.s, "The feature sits behind a sign-in screen; the "
			                                                        "run covered what is reachable without it."));
	}
	/* every case in the session's notes, so the report shows them as outcomes */
	size_t i;
	json_t *c;
	json_array_foreach(r.cases, i, c)
	{
		char *wf = sw__asprintf("qa_test_feature: %s", jstr(c, "title"));
		const char *st = jstr(c, "status");
		ap_add_note(r.s, wf ? wf : "qa_test_feature", st, !strcmp(st, "fail") ? "app_bug" : NULL,
		            jstr(c, "reason"), jstr(c, "failureCode"));
		free(wf);
	}
	(void)sw_job_set_progress(job, "update_map: recording the cases", NULL, NULL);
	update_map(&r);
	save_report(&r);
	json_object_set_new(r.res, "state", json_string(r.state));
	json_object_set(r.res, "cases", r.cases);
	json_object_set_new(r.res, "tally", tally(r.cases));
	json_object_set(r.res, "path", r.path);
	json_object_set(r.res, "walls", r.walls);
	json_object_set(r.res, "findings", r.findings);
	json_object_set(r.res, "notTouched", r.not_touched);
	json_object_set(r.res, "blockers", r.blockers);
	json_object_set_new(r.res, "stoppedReason", r.stopped ? json_string(r.stopped) : json_null());
	json_object_set_new(r.res, "actions", json_integer(r.actions));
	json_object_set_new(r.res, "screens", json_integer((json_int_t)r.n_nodes));
	json_object_set_new(r.res, "relaunches", json_integer(r.relaunches < 0 ? 0 : r.relaunches));
	if (r.needs_input)
		json_object_set(r.res, "needsInput", r.needs_input);
	json_object_set_new(r.res, "nextRecommendedAction", next_action(&r));
	json_array_extend(r.notes, json_object_get(r.plan, "notes"));
	if (json_array_size(r.notes))
		json_object_set(r.res, "notes", r.notes);
	const char *code = jstr(json_array_get(r.blockers, 0), "failureCode");
	if (code && !strcmp(r.state, "blocked"))
		json_object_set_new(r.res, "failureCode", json_string(code));
	char *text = sw__json_compact(r.res);
	/* every text the job returns passes the session's redactor */
	*result_json = text ? ap_redact(r.s, text) : NULL;
	free(text);
	run_free(&r);
	return *result_json ? SW_OK : sw__error_nomem(err);
}

char *sw_test_feature_running(sw_session *s)
{
	return ap_running_job(s, TF_KIND);
}

int sw_test_feature_start(sw_ctx *ctx, sw_session *s, const char *plan_json, char **job_id, sw_error **err)
{
	if (!s || !plan_json || !job_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "session, plan and job_id are required");
	json_t *plan = json_loads(plan_json, 0, NULL);
	if (!json_is_object(plan) || !json_is_array(json_object_get(plan, "cases")) ||
	    !json_is_array(json_object_get(plan, "targets"))) {
		json_decref(plan);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "the plan is not a qa_test_feature plan");
	}
	static const struct ap_job_kind kind = {
	    .kind = TF_KIND,
	    .tool = "qa_test_feature",
	    .hint = "Poll it with qa_job_status, or cancel it with qa_job_cancel, then call again.",
	    .lock = &tf_start_lock,
	    .run = tf_run_job,
	};
	return ap_job_start_once(ctx, s, &kind, plan, job_id, err);
}
