/* testthis-plan.c: qa_test_this's goal table and its side-effect-free plan (project, artifact, target, steps,
 * the one combined test_this_plan consent). */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testthis-internal.h"

/* ---- shared helpers -------------------------------------------------------------------------------------- */

json_t *sw__tt_blocker(const char *code, const char *detail)
{
	char *text = NULL;
	json_t *e = NULL;
	if (sw_catalog_lookup(code, &text, NULL) == SW_OK)
		e = json_loads(text, 0, NULL);
	sw_free(text);
	const char *summary = json_string_value(json_object_get(e, "summary"));
	const char *fix = json_string_value(json_object_get(e, "recovery"));
	char *what = detail && summary ? sw__asprintf("%s: %s", summary, detail)
	             : detail          ? sw__strdup(detail)
	                               : sw__strdup(summary ? summary : code);
	json_t *b = json_pack("{s:s,s:s,s:b,s:b,s:s,s:s}", "failureCode", code, "owner",
	                      json_string_value(json_object_get(e, "owner")) ? json_string_value(json_object_get(e, "owner"))
	                                                                     : "user",
	                      "retrySafe", json_is_true(json_object_get(e, "retrySafe")), "canSwipiumFix",
	                      json_is_true(json_object_get(e, "canSwipiumFix")), "whatItMeans", what ? what : code,
	                      "howToFix", fix ? fix : "See qa_explain_blocker for this code.");
	free(what);
	json_decref(e);
	return b;
}

json_t *sw__tt_action(const char *tool, json_t *args, const char *why)
{
	return json_pack("{s:s,s:o,s:s}", "tool", tool, "args", args ? args : json_object(), "why", why);
}

bool sw__tt_listed(const json_t *plan, const char *name)
{
	json_t *list = json_object_get(plan, "listedTools");
	if (!json_is_array(list))
		return true;
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), name)) return true;
	return false;
}

static bool icontains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return false;
}

bool sw__tt_have_credentials(sw_session *s)
{
	const char *env = getenv("SWIPIUM_TEST_PASSWORD");
	if (env && *env)
		return true;
	if (!s)
		return false;
	char *v = sw_session_input_get(s, "SWIPIUM_TEST_PASSWORD");
	bool have = v != NULL;
	sw_free(v);
	if (have)
		return true;
	/* another password-like answer given this session (its value is kept in memory only) */
	json_t *inputs = NULL;
	if (sw__session_get(s, "inputs", &inputs, NULL) != SW_OK)
		return false;
	size_t i;
	json_t *in;
	json_array_foreach(inputs, i, in)
	{
		const char *name = json_string_value(json_object_get(in, "varName"));
		if (name && icontains(name, "pass")) {
			char *val = sw_session_input_get(s, name);
			have = have || val != NULL;
			sw_free(val);
		}
	}
	json_decref(inputs);
	return have;
}

json_t *sw__tt_resume(const json_t *plan, const json_t *extra)
{
	json_t *call = json_deep_copy(json_object_get(plan, "call"));
	if (!json_is_object(call)) {
		json_decref(call);
		call = json_object();
	}
	const char *sid = json_string_value(json_object_get(plan, "sessionId"));
	if (sid)
		json_object_set_new(call, "sessionId", json_string(sid));
	json_object_set_new(call, "mode", json_string("execute"));
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)extra, k, v) json_object_set(call, k, v);
	return call;
}

json_t *sw__tt_credentials_question(const json_t *plan, const char *why)
{
	json_t *fields = json_pack("[{s:s,s:s,s:b},{s:s,s:s,s:b}]", "name", "SWIPIUM_TEST_EMAIL", "label",
	                           "Test account email or username", "secret", 0, "name", "SWIPIUM_TEST_PASSWORD", "label",
	                           "Test account password", "secret", 1);
	char *q = sw__asprintf("%s Which test account should Swipium use? Answer with qa_continue_from_blocker {kind: "
	                       "\"credentials\", values: {SWIPIUM_TEST_EMAIL, SWIPIUM_TEST_PASSWORD}}; the password is "
	                       "redacted everywhere and kept in memory only.",
	                       why ? why : "The app needs an account.");
	json_t *resume = sw__tt_action("qa_test_this", sw__tt_resume(plan, NULL),
	                               "Runs the same goal again once the credentials are answered.");
	json_t *o = json_pack("{s:s,s:s,s:o,s:o,s:o}", "kind", "credentials", "question", q ? q : "Credentials needed.",
	                      "fields", fields, "resume", resume, "answerWith",
	                      json_pack("{s:s,s:{s:s,s:s}}", "tool", "qa_continue_from_blocker", "args", "sessionId",
	                                json_string_value(json_object_get(plan, "sessionId"))
	                                    ? json_string_value(json_object_get(plan, "sessionId"))
	                                    : "<sessionId>",
	                                "kind", "credentials"));
	free(q);
	return o;
}

/* The explorer (include/swipium/explore.h, autopilot/explore.c) is part of this build: the explore step runs it
 * inside the job when the server also lists qa_explore. */
bool sw__tt_explore_available(void)
{
	return true;
}

/* ---- the goal table --------------------------------------------------------------------------------------- */

static const struct goal_row {
	const char *goal;
	bool explore, suite, stop, fast, gate;
} goals[] = {
    {"none", false, false, false, false, false},
    {"smoke", false, false, false, true, false},
    {"explore", true, false, false, false, false},
    {"create_automation_suite", true, true, false, false, false},
    {"release_gate", true, false, false, false, true},
    {"test_login", false, false, true, false, false},
    {"reproduce_bug", true, false, false, false, false},
};

static int opt_bool(json_t *opts, const char *key, int *out, sw_error **err)
{
	json_t *v = json_object_get(opts, key);
	if (!v) {
		*out = -1;
		return SW_OK;
	}
	if (!json_is_boolean(v))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s must be true or false", key);
	*out = json_is_true(v);
	return SW_OK;
}

static json_t *flags_of(json_t *opts, sw_error **err)
{
	json_t *g = json_object_get(opts, "goal");
	if (g && !json_is_string(g) && !json_is_null(g)) {
		sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "goal must be a string");
		return NULL;
	}
	const char *goal = json_is_string(g) ? json_string_value(g) : "none";
	const struct goal_row *row = NULL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(goals); i++)
		if (!strcmp(goals[i].goal, goal) && (i > 0 || !json_is_string(g)))
			row = &goals[i];
	if (!row) {
		sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		              "goal is one of smoke, explore, create_automation_suite, release_gate, test_login, "
		              "reproduce_bug, or absent",
		              "unknown goal \"%s\"", goal);
		return NULL;
	}
	int ex, su, st, fs;
	if (opt_bool(opts, "explore", &ex, err) < 0 || opt_bool(opts, "generateSuite", &su, err) < 0 ||
	    opt_bool(opts, "stopOnNeedsInput", &st, err) < 0 || opt_bool(opts, "fastSmoke", &fs, err) < 0)
		return NULL;
	bool fast = fs >= 0 ? fs : row->fast;
	/* fastSmoke is the smoke goal's meaning: the fastest run, nothing after the smoke unless asked explicitly */
	bool explore = ex >= 0 ? ex : (fast ? false : row->explore);
	bool suite = su >= 0 ? su : (fast ? false : row->suite);
	json_t *o = json_pack("{s:s,s:b,s:b,s:b,s:b,s:b,s:b,s:{s:s,s:s,s:s}}", "goal", row->goal, "explore", explore,
	                      "generateSuite", suite, "suiteAttempted", suite || (!strcmp(row->goal, "none") && su < 0),
	                      "stopOnNeedsInput", st >= 0 ? st : row->stop, "fastSmoke", fast, "releaseGateSummary",
	                      row->gate, "sources", "explore", ex >= 0 ? "explicit" : "goal", "generateSuite",
	                      su >= 0 ? "explicit" : "goal", "stopOnNeedsInput", st >= 0 ? "explicit" : "goal");
	const char *text = json_string_value(json_object_get(opts, "goalText"));
	if (!strcmp(row->goal, "reproduce_bug") && text)
		json_object_set_new(o, "focus", json_string(text));
	return o;
}

int sw_test_this_flags(const char *options_json, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(opts)) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	}
	json_t *f = flags_of(opts, err);
	json_decref(opts);
	if (!f)
		return SW_EINVAL;
	*out_json = sw__json_compact(f);
	json_decref(f);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* ---- the plan ----------------------------------------------------------------------------------------------- */

/* True when @root holds nothing but dot entries (.git, .swipium, .DS_Store...). */
static bool root_is_empty(const char *root)
{
	DIR *d = opendir(root);
	if (!d)
		return false;
	struct dirent *e;
	bool empty = true;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

static int risk_rank(const char *r)
{
	return !r ? 0 : !strcmp(r, "high") ? 3 : !strcmp(r, "medium") ? 2 : !strcmp(r, "low") ? 1 : 0;
}

struct planner {
	json_t *plan, *steps, *blockers;
	const char *sid;   /* nullable */
	const char *stop;  /* the step that blocked or asks, NULL while everything goes */
	json_t *opts;
};

/* The sessionId argument of a step's tool call: the session's, or the placeholder qa_start_session fills. */
static json_t *sid_args(struct planner *p)
{
	return json_pack("{s:s}", "sessionId", p->sid ? p->sid : "<sessionId from qa_start_session>");
}

static json_t *add_step(struct planner *p, const char *name, const char *status, const char *tool, json_t *args,
                        const char *why)
{
	if (p->stop && strcmp(name, "report") != 0 && strcmp(status, "done") != 0) {
		char *w = sw__asprintf("not reached: the %s step stops the run first", p->stop);
		json_decref(args);
		json_t *st = json_pack("{s:s,s:s,s:n,s:s}", "step", name, "status", "skipped", "tool", "why",
		                       w ? w : "not reached");
		free(w);
		json_array_append_new(p->steps, st);
		return st;
	}
	json_t *st = json_pack("{s:s,s:s,s:s}", "step", name, "status", status, "why", why);
	json_object_set_new(st, "tool", tool ? sw__tt_action(tool, args, why) : (json_decref(args), json_null()));
	if (tool)
		json_object_del(json_object_get(st, "tool"), "why");
	json_array_append_new(p->steps, st);
	if (!strcmp(status, "blocked") || !strcmp(status, "needs_input"))
		p->stop = name;
	return st;
}

static void block(struct planner *p, json_t *st, const char *code, const char *detail)
{
	json_object_set_new(st, "failureCode", json_string(code));
	json_array_append_new(p->blockers, sw__tt_blocker(code, detail));
}

static json_t *load_take(char *text)
{
	json_t *v = text ? json_loads(text, 0, NULL) : NULL;
	sw_free(text);
	return v;
}

int sw_test_this_plan(sw_ctx *ctx, sw_session *s, const char *root, const char *options_json, char **plan_json,
                      sw_error **err)
{
	if (!root || !plan_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "root and plan_json must not be NULL");
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(opts)) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	}
	int rc = SW_OK;
	json_t *flags = flags_of(opts, err);
	if (!flags) {
		json_decref(opts);
		return SW_EINVAL;
	}
	if (json_is_true(json_object_get(opts, "preferRealDevice"))) {
		json_decref(flags);
		json_decref(opts);
		return sw__error_set(err, SW_EDENIED, "PHYSICAL_DEVICE_UNSUPPORTED",
		                     "Leave preferRealDevice out (or false) to test on an Android emulator",
		                     "Physical devices are not supported: Swipium tests on emulators only, so "
		                     "preferRealDevice:true is refused whatever is attached");
	}
	const char *mode = json_string_value(json_object_get(opts, "mode"));
	const char *platform = json_string_value(json_object_get(opts, "platform"));
	const char *device = json_string_value(json_object_get(opts, "device"));
	bool allow_outside = json_is_true(json_object_get(opts, "allowOutsideRoot"));

	/* the original call, replayed by a resume: everything the caller chose, never the consent pair */
	json_t *call = json_object();
	static const char *const keep[] = {"projectRoot",       "goal",          "goalText", "fastSmoke",
	                                   "platform",          "device",        "allowOutsideRoot", "buildIfNeeded",
	                                   "generateSuite",     "explore",       "stopOnNeedsInput", "responseMode"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keep); i++)
		if (json_object_get(opts, keep[i]))
			json_object_set(call, keep[i], json_object_get(opts, keep[i]));
	if (!json_object_get(call, "projectRoot"))
		json_object_set_new(call, "projectRoot", json_string(root));

	struct planner P = {.steps = json_array(), .blockers = json_array(), .sid = s ? sw_session_id(s) : NULL,
	                    .opts = opts};
	json_t *plan = json_pack("{s:s,s:s,s:s,s:O,s:O}", "mode", mode ? mode : "plan", "projectRoot", root, "platform",
	                         "android", "flags", flags, "call", call);
	P.plan = plan;
	if (P.sid)
		json_object_set_new(plan, "sessionId", json_string(P.sid));
	if (json_object_get(opts, "listedTools"))
		json_object_set(plan, "listedTools", json_object_get(opts, "listedTools"));
	json_t *notes = json_array();
	json_t *consent_steps = json_array();

	/* ---- what the project is, and its artifact (both read-only) ---- */
	json_t *proj = NULL;
	char *pj = NULL;
	sw_error *perr = NULL;
	if (sw_project_detect(root, &pj, &perr) == SW_OK)
		proj = load_take(pj);
	else
		json_array_append_new(notes, json_string(sw_error_message(perr)));
	sw_error_free(perr);
	const char *framework = json_string_value(json_object_get(proj, "framework"));
	json_object_set_new(plan, "project",
	                    json_pack("{s:s,s:O*,s:O*,s:O*}", "framework", framework ? framework : "unknown", "appId",
	                              json_object_get(proj, "appId"), "platforms", json_object_get(proj, "platforms"),
	                              "monorepo", json_object_get(proj, "monorepo")));

	json_t *ao = json_pack("{s:s}", "platform", "android");
	if (allow_outside)
		json_object_set_new(ao, "allowOutsideRoot", json_true());
	char *aoj = sw__json_compact(ao);
	json_decref(ao);
	char *aout = NULL;
	sw_error *aerr = NULL;
	int arc = sw_artifact_resolve(ctx, root, aoj, &aout, &aerr);
	free(aoj);
	json_t *art = arc == SW_OK ? load_take(aout) : NULL;
	const char *acode = arc == SW_OK ? NULL : sw_error_failure_code(aerr);
	json_t *best = json_object_get(art, "best");

	/* 1. resolve the project */
	json_t *rp_args = json_pack("{s:s,s:[s]}", "projectRoot", root, "include", "context");
	if (platform && !strcmp(platform, "ios")) {
		json_t *st = add_step(&P, "resolve_project", "blocked", "qa_resolve_target", rp_args,
		                      "iOS runs are not part of qa_test_this in this build");
		block(&P, st, "BACKEND_UNSUPPORTED",
		      "qa_test_this drives Android emulators here; pass platform \"android\" (or leave it out)");
	} else if (root_is_empty(root)) {
		json_t *st = add_step(&P, "resolve_project", "blocked", "qa_resolve_target", rp_args,
		                      "the project root holds no files");
		char *d = sw__asprintf("%s has no project files", root);
		block(&P, st, "PROJECT_ROOT_EMPTY", d);
		free(d);
	} else if (json_is_string(json_object_get(proj, "nonMobileKind")) ||
	           ((!framework || !strcmp(framework, "unknown")) && !best && acode &&
	            !strcmp(acode, "NO_BUILD_ARTIFACT"))) {
		json_t *st = add_step(&P, "resolve_project", "blocked", "qa_resolve_target", rp_args,
		                      "neither a mobile framework nor a built app was found");
		char *d = json_is_string(json_object_get(proj, "nonMobileKind"))
		              ? sw__asprintf("%s looks like a %s project", root,
		                             json_string_value(json_object_get(proj, "nonMobileKind")))
		              : sw__asprintf("%s has no Android, iOS, React Native, Expo or Flutter app and no built APK",
		                             root);
		block(&P, st, "NOT_MOBILE_PROJECT", d);
		free(d);
	} else {
		char *why = sw__asprintf("project detected (%s)", framework ? framework : "unknown framework");
		add_step(&P, "resolve_project", "done", "qa_resolve_target", rp_args, why ? why : "project detected");
		free(why);
	}

	/* 2. find the artifact */
	json_t *artifact = json_null();
	json_t *fa_args = json_pack("{s:s,s:s}", "projectRoot", root, "platform", "android");
	if (allow_outside)
		json_object_set_new(fa_args, "allowOutsideRoot", json_true());
	bool inside = true;
	const char *app_id = NULL;
	if (best) {
		const char *path = json_string_value(json_object_get(best, "path"));
		char *real = path ? sw__path_real_or_resolved(path) : NULL;
		inside = !json_is_true(json_object_get(best, "outsideRoot"));
		app_id = json_string_value(json_object_get(best, "appId"));
		const char *id_source = "apk";
		if (!app_id) {
			app_id = json_string_value(json_object_get(proj, "appId"));
			id_source = app_id ? "project files (the APK's manifest could not be read)" : NULL;
		}
		artifact = json_pack("{s:s,s:s*,s:O*,s:O*,s:O*,s:b,s:s*}", "path", real ? real : path, "appId", app_id,
		                     "versionName", json_object_get(best, "versionName"), "buildType",
		                     json_object_get(best, "buildType"), "type", json_object_get(best, "type"),
		                     "insideProjectRoot", inside, "appIdSource", id_source);
		if (path && real && strcmp(path, real) != 0)
			json_object_set_new(artifact, "foundAt", json_string(path));
		free(real);
		if (!app_id) {
			json_t *st = add_step(&P, "find_artifact", "blocked", "qa_resolve_artifact", fa_args,
			                      "the APK's package name could not be read");
			block(&P, st, "NO_ARTIFACT", "the APK's manifest gives no package name to launch");
		} else {
			char *why = sw__asprintf("%s (%s) from %s%s", path, app_id, id_source,
			                         inside ? "" : "; outside the project root, approved by allowOutsideRoot");
			add_step(&P, "find_artifact", "done", "qa_resolve_artifact", fa_args, why ? why : "artifact found");
			free(why);
		}
	} else if (!P.stop && acode && !strcmp(acode, "ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL")) {
		json_t *st = add_step(&P, "find_artifact", "needs_input", "qa_resolve_artifact", fa_args,
		                      "the only APK found resolves outside the project root");
		json_object_set_new(st, "failureCode", json_string(acode));
		json_t *det = sw__error_details(aerr);
		char *q = sw__asprintf("The APK found for this project resolves outside the project root (%s). Swipium "
		                       "never installs such a file as the project's own. Install it anyway (a medium-risk "
		                       "step, shown in the consent prompt)?",
		                       sw_error_message(aerr));
		json_t *extra = json_pack("{s:b}", "allowOutsideRoot", 1);
		json_object_set_new(
		    plan, "needsInput",
		    json_pack("{s:s,s:s,s:[{s:s,s:s,s:s}],s:o,s:o,s:o*}", "kind", "artifact_outside_root", "question",
		              q ? q : "Install the APK outside the project root?", "fields", "name", "allowOutsideRoot",
		              "type", "boolean", "label", "Install the APK outside the project root", "resume",
		              sw__tt_action("qa_test_this", sw__tt_resume(plan, extra),
		                            "Runs again with allowOutsideRoot:true once approved."),
		              "answerWith",
		              json_pack("{s:s,s:{s:s,s:s,s:{s:b}}}", "tool", "qa_continue_from_blocker", "args", "sessionId",
		                        P.sid ? P.sid : "<sessionId>", "kind", "artifact_outside_root", "values",
		                        "allowOutsideRoot", 1),
		              "details", det));
		json_decref(extra);
		free(q);
	} else if (!P.stop) {
		const char *code = acode ? acode : "NO_BUILD_ARTIFACT";
		json_t *st = add_step(&P, "find_artifact", "blocked", "qa_resolve_artifact", fa_args,
		                      !strcmp(code, "NO_BUILD_ARTIFACT") ? "no installable build of the app was found"
		                                                         : sw_error_message(aerr));
		bool build_listed = sw__tt_listed(plan, "qa_build");
		char *d = !strcmp(code, "NO_BUILD_ARTIFACT")
		              ? sw__asprintf("no .apk under %s%s", root,
		                             build_listed && !json_is_false(json_object_get(opts, "buildIfNeeded"))
		                                 ? "; qa_build can build one (qa_test_this does not run builds itself yet)"
		                                 : "; build it with the project's own build (e.g. ./gradlew assembleDebug)")
		              : sw__strdup(aerr ? sw_error_message(aerr) : code);
		block(&P, st, code, d);
		free(d);
	} else {
		add_step(&P, "find_artifact", "skipped", NULL, fa_args, "");
	}
	json_object_set_new(plan, "artifactChoice", artifact);
	sw_error_free(aerr);

	/* 3. pick the emulator (reads the adb device list; boots nothing) */
	json_t *target = json_null();
	json_t *pt_args = P.sid ? sid_args(&P) : json_object();
	if (device)
		json_object_set_new(pt_args, "device", json_string(device));
	const char *serial = NULL, *avd = NULL;
	if (!P.stop) {
		json_t *to = device ? json_pack("{s:s}", "device", device) : json_object();
		char *toj = sw__json_compact(to);
		json_decref(to);
		char *tout = NULL;
		sw_error *terr = NULL;
		if (sw_android_resolve_target(ctx, toj, &tout, &terr) == SW_OK) {
			json_t *t = load_take(tout);
			json_t *sel = json_object_get(t, "selected");
			target = json_pack("{s:O,s:O,s:O,s:O}", "selected", sel, "reason", json_object_get(t, "reason"),
			                   "willBoot", json_object_get(t, "willBoot"), "alternatives",
			                   json_object_get(t, "alternatives"));
			json_decref(t);
			serial = json_string_value(json_object_get(json_object_get(target, "selected"), "serial"));
			avd = json_string_value(json_object_get(json_object_get(target, "selected"), "avd"));
			add_step(&P, "pick_target", "done", "qa_resolve_target", pt_args,
			         json_string_value(json_object_get(target, "reason")));
		} else {
			const char *code = sw_error_failure_code(terr) ? sw_error_failure_code(terr) : "NO_DEVICE";
			json_t *st = add_step(&P, "pick_target", "blocked", "qa_resolve_target", pt_args,
			                      sw_error_message(terr));
			block(&P, st, code, sw_error_message(terr));
			target = json_pack("{s:n,s:s}", "selected", "reason", sw_error_message(terr));
		}
		sw_error_free(terr);
		free(toj);
	} else {
		add_step(&P, "pick_target", "skipped", "qa_resolve_target", pt_args, "");
	}
	json_object_set_new(plan, "targetChoice", target);

	/* 4. prepare: boot (low), install (low inside the project, medium outside), launch, verify */
	json_t *pr_args = sid_args(&P);
	const char *apk = json_string_value(json_object_get(json_object_get(plan, "artifactChoice"), "path"));
	if (apk)
		json_object_set_new(pr_args, "apk", json_string(apk));
	if (app_id)
		json_object_set_new(pr_args, "appId", json_string(app_id));
	if (serial)
		json_object_set_new(pr_args, "device", json_string(serial));
	else if (avd)
		json_object_set_new(pr_args, "avd", json_string(avd));
	json_t *prep = add_step(&P, "prepare", "planned", "qa_prepare_target", pr_args,
	                        "install the artifact on the emulator, launch it and check it is in front");
	if (!strcmp(json_string_value(json_object_get(prep, "status")), "planned")) {
		if (avd && !serial)
			json_array_append_new(consent_steps,
			                      json_pack("{s:s,s:s,s:[s,s,s,s,s,s],s:s}", "kind", "boot", "risk", "low", "argv",
			                                "emulator", "-avd", avd, "-no-boot-anim", "-no-audio", "-no-window",
			                                "origin", "the AVD chosen by qa_resolve_target"));
		json_t *install = json_pack("{s:s,s:s,s:[s,s,s,s,s,s],s:s}", "kind", "install", "risk",
		                            inside ? "low" : "medium", "argv", "adb", "-s",
		                            serial ? serial : "<the booted emulator>", "install", "-r", apk, "origin",
		                            inside ? "the project's build output" : "an APK outside the project root");
		json_array_append_new(consent_steps, install);
		json_object_set_new(prep, "risk", json_string(inside ? "low" : "medium"));
	}

	/* 5. smoke */
	json_t *sm_args = sid_args(&P);
	add_step(&P, "smoke", "planned", "qa_smoke", sm_args,
	         "baseline health, an evidence screenshot and a note (saved flows: run them with qa_smoke)");

	/* 6. explore */
	bool want_explore = json_is_true(json_object_get(flags, "explore"));
	bool have_explore = sw__tt_explore_available() && sw__tt_listed(plan, "qa_explore");
	json_t *ex_args = sid_args(&P);
	if (json_object_get(flags, "focus"))
		json_object_set(ex_args, "goal", json_object_get(flags, "focus"));
	/* the crawl's own bounds (qa_explore's defaults); the session budget bounds it as well. A login wall stops
	 * the crawl with the credentials question only when the run stops for questions. */
	json_object_set_new(ex_args, "depth", json_integer(3));
	json_object_set_new(ex_args, "maxActions", json_integer(20));
	json_object_set_new(ex_args, "maxScreens", json_integer(12));
	json_object_set_new(ex_args, "safeMode", json_string("strict"));
	json_object_set_new(ex_args, "stopOnAuth", json_boolean(json_is_true(json_object_get(flags, "stopOnNeedsInput"))));
	if (!want_explore)
		add_step(&P, "explore", "skipped", NULL, ex_args, "not asked for by the goal or the explore flag");
	else if (!have_explore)
		add_step(&P, "explore", "skipped", NULL, ex_args,
		         "asked for, but qa_explore is not part of this build: exploration is not done and not "
		         "reported as done");
	else
		add_step(&P, "explore", "planned", "qa_explore", ex_args,
		         "crawl the app's safe controls (strict: nothing destructive, nothing typed), health after each tap; "
		         "the screen graph goes to <session dir>/explore/<jobId>/graph.json");

	/* 7. report (always: every ending writes one) */
	json_t *rep_args = sid_args(&P);
	if (json_is_true(json_object_get(flags, "releaseGateSummary")))
		json_object_set_new(rep_args, "format", json_string("junit"));
	json_t *rep = add_step(&P, "report", "planned", "qa_report", rep_args, "save the report, whatever the outcome");
	(void)rep;

	/* 8. suite */
	json_t *su_args = sid_args(&P);
	json_object_set_new(su_args, "target", json_string("suite"));
	if (json_is_true(json_object_get(flags, "suiteAttempted")))
		add_step(&P, "suite", "skipped", NULL, su_args,
		         "suite generation is not part of this build yet: no suite is written and none is claimed");
	else
		add_step(&P, "suite", "skipped", NULL, su_args, "not asked for by the goal or the generateSuite flag");

	/* the one combined consent: the maximum risk of its steps */
	const char *risk = NULL;
	size_t i;
	json_t *cs;
	json_array_foreach(consent_steps, i, cs) if (risk_rank(json_string_value(json_object_get(cs, "risk"))) >
	                                             risk_rank(risk)) risk = json_string_value(json_object_get(cs, "risk"));
	json_object_set_new(plan, "consent",
	                    json_pack("{s:b,s:s,s:s,s:o}", "required", json_array_size(consent_steps) > 0, "action",
	                              "test_this_plan", "risk", risk ? risk : "low", "steps", consent_steps));

	json_object_set_new(plan, "steps", P.steps);
	json_object_set_new(plan, "blockers", P.blockers);
	json_t *pre = json_array();
	if (avd && !serial)
		json_array_append_new(pre, json_string("an AVD boots headless (sys.boot_completed within 180 s)"));
	if (json_array_size(json_object_get(plan, "consent") ? json_object_get(json_object_get(plan, "consent"), "steps")
	                                                      : NULL))
		json_array_append_new(pre, json_string("one test_this_plan consent covers the boot and install steps"));
	json_object_set_new(plan, "preconditions", pre);

	/* what to do next with this plan */
	json_t *nra;
	json_t *first_blocker = json_array_get(P.blockers, 0);
	const char *bcode = json_string_value(json_object_get(first_blocker, "failureCode"));
	if (json_object_get(plan, "needsInput")) {
		nra = json_deep_copy(json_object_get(json_object_get(plan, "needsInput"), "answerWith"));
		json_object_set_new(nra, "why", json_string("Ask the user the question, then answer it."));
	} else if (bcode && !strcmp(bcode, "NO_BUILD_ARTIFACT") && sw__tt_listed(plan, "qa_build")) {
		nra = sw__tt_action("qa_build", json_pack("{s:s,s:s,s:s}", "mode", "plan", "projectRoot", root, "platform",
		                                          "android"),
		                    "No APK was found: plan the build of one.");
	} else if (bcode) {
		nra = sw__tt_action("qa_explain_blocker", json_pack("{s:s}", "failureCode", bcode),
		                    "The run cannot start: see what the blocker means and how to fix it.");
		if (P.sid)
			json_object_set_new(json_object_get(nra, "args"), "sessionId", json_string(P.sid));
	} else {
		nra = sw__tt_action("qa_test_this", sw__tt_resume(plan, NULL),
		                    "Run the plan as a job (one test_this_plan consent first).");
	}
	json_object_set_new(plan, "nextRecommendedAction", nra);
	if (json_array_size(notes))
		json_object_set(plan, "notes", notes);
	json_decref(notes);

	*plan_json = sw__json_compact(plan);
	if (!*plan_json)
		rc = sw__error_nomem(err);
	json_decref(plan);
	json_decref(flags);
	json_decref(call);
	json_decref(art);
	json_decref(proj);
	json_decref(opts);
	return rc;
}
