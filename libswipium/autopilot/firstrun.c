/*
 * firstrun.c: qa_first_run. `plan` says what the current screen is (login, create-account, login-or-create,
 * OTP, onboarding, permissions, paywall, home, feature, error) with a confidence and the evidence for it, and
 * what a safe next step would be; it touches nothing. `continue` walks the first-run screens: onboarding
 * advances through Next / Continue / Skip, a sign-up form gets a generated account only in a test or staging
 * environment (the password random each time and a secret of the session before it is typed), an OTP screen
 * asks exactly one question, a paywall is recorded and left without buying, a permission prompt is left to the
 * guardrails.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "actions-internal.h"
#include "autopilot-internal.h"
#include <swipium/redact.h>
#include <swipium/util.h>

static const sw__opt first_run_opts[] = {
    {"mode", SW__OPT_STRING, false},     {"until", SW__OPT_STRING, false},
    {"allowGeneratedAccount", SW__OPT_BOOL, false}, {"testDataPolicyPath", SW__OPT_STRING, false},
    {"maxSteps", SW__OPT_NUMBER, false}, {"maxDurationMs", SW__OPT_NUMBER, false},
    {NULL}};

static bool has(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

static bool any(const char *hay, const char *const *words)
{
	for (size_t i = 0; words[i]; i++)
		if (has(hay, words[i]))
			return true;
	return false;
}

/* ---- the environment -------------------------------------------------------------------------------------- */

const char *ap_environment(sw_session *s, const char *policy_path, bool *disposable, json_t *evidence)
{
	*disposable = false;
	json_t *fx = NULL;
	const char *env = NULL;
	/* the session's fixtures and .swipium/fixtures.json, read now (after a restart too) */
	if ((fx = sw__fixtures_load(s, sw_session_root(s), NULL)) != NULL) {
		size_t i;
		json_t *f;
		json_array_foreach(fx, i, f)
		{
			const char *e = json_string_value(json_object_get(f, "environment"));
			if (json_is_true(json_object_get(f, "disposable"))) {
				*disposable = true;
				if (!env)
					env = "test";
				json_array_append_new(evidence, json_pack("{s:s,s:O?}", "source", "session fixture (disposable)",
				                                          "fixture", json_object_get(f, "name")));
			}
			if (e) {
				env = !strcmp(e, "test") ? "test" : !strcmp(e, "staging") ? "staging"
				      : !strcmp(e, "production") || !strcmp(e, "prod") ? "production" : env;
				json_array_append_new(evidence, json_pack("{s:s,s:s}", "source", "session fixture environment",
				                                          "environment", e));
			}
		}
	}
	json_decref(fx);
	if (env)
		return env;
	/* .swipium/test-data-policy.json, confined to the project */
	const char *rel = policy_path && *policy_path ? policy_path : ".swipium/test-data-policy.json";
	char *real = NULL;
	sw_error *e = NULL;
	if (sw__confine(sw_session_root(s), rel, 0, &real, &e) == SW_OK && real) {
		char *text = NULL;
		size_t len = 0;
		if (sw__read_file(real, 64 * 1024, &text, &len, NULL) == SW_OK) {
			json_t *p = json_loadb(text, len, 0, NULL);
			const char *pe = json_string_value(json_object_get(p, "environment"));
			if (pe && (!strcmp(pe, "test") || !strcmp(pe, "staging")))
				env = !strcmp(pe, "test") ? "test" : "staging";
			else if (pe)
				env = "production";
			if (json_is_false(json_object_get(p, "allowGeneratedAccounts")))
				env = "production"; /* the policy forbids generated accounts: treat it as production-like */
			json_array_append_new(evidence, json_pack("{s:s,s:s,s:s?}", "source", "test-data policy", "path", rel,
			                                          "environment", pe));
			json_decref(p);
		}
		free(text);
	}
	sw_error_free(e);
	free(real);
	return env ? env : "unknown";
}

/* ---- classification ----------------------------------------------------------------------------------------- */

typedef struct fr_class {
	const char *name;
	double confidence;
	json_t *evidence;
} fr_class;

static const ap_control *find_named(const ap_screen *v, const char *const *words, bool safe_only)
{
	for (size_t i = 0; i < v->n; i++) {
		const ap_control *c = &v->c[i];
		if (c->edit || c->foreign || (safe_only && strcmp(c->risk, "safe") != 0))
			continue;
		for (size_t k = 0; words[k]; k++)
			if (!strcasecmp(c->name, words[k]))
				return c;
	}
	for (size_t i = 0; i < v->n; i++) {
		const ap_control *c = &v->c[i];
		if (c->edit || c->foreign || (safe_only && strcmp(c->risk, "safe") != 0))
			continue;
		if (any(c->name, words))
			return c;
	}
	return NULL;
}

static const char *const advance_words[] = {"skip", "next", "continue", "get started", "got it", "done", "start", NULL};
static const char *const leave_words[] = {"not now", "no thanks", "maybe later", "close", "skip", "later",
                                          "navigate up", "dismiss", "cancel", NULL};
static const char *const signup_words[] = {"sign up", "create account", "register", "create an account",
                                           "join", NULL};
static const char *const login_words[] = {"sign in", "log in", "login", NULL};

static size_t count_fields(const ap_screen *v, bool secure)
{
	size_t n = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->c[i].edit && (!secure || v->c[i].secure))
			n++;
	return n;
}

static void ev_add(fr_class *c, char *s)
{
	json_array_append_new(c->evidence, json_string(s ? s : ""));
	free(s);
}
#define ev(c, fmt, arg) ev_add((c), sw__asprintf(fmt, (arg) ? (arg) : ""))

static fr_class classify(const ap_screen *v)
{
	fr_class c = {"feature", 0.4, json_array()};
	size_t secure = count_fields(v, true), fields = count_fields(v, false);
	const ap_control *signup = find_named(v, signup_words, false);
	const ap_control *login = find_named(v, login_words, false);
	size_t payments = 0, tabs = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (v->c[i].klass && !strcmp(v->c[i].klass, "payment"))
			payments++;
		if (v->height > 0 && v->c[i].b[1] >= v->height * 85 / 100 && !v->c[i].edit)
			tabs++;
	}
	static const char *const error_words[] = {"something went wrong", "an error occurred", "unexpected error",
	                                          "try again later", "keeps stopping", "isn't responding", NULL};
	static const char *const paywall_words[] = {"pro", "premium", "subscri", "trial", "plan", "unlock", NULL};
	static const char *const confirm_words[] = {"confirm", "repeat", "again", NULL};
	if (v->permission_prompt) {
		c.name = "permissions";
		c.confidence = 0.95;
		ev(&c, "a permission prompt owned by the permission controller%s", "");
	} else if (v->otp) {
		c.name = "OTP";
		c.confidence = 0.9;
		for (size_t i = 0; i < v->n; i++)
			if (v->c[i].edit)
				ev(&c, "a code field: \"%s\"", v->c[i].name);
	} else if (secure >= 2 || (secure >= 1 && any(v->all_text, confirm_words) && signup)) {
		c.name = "create-account";
		c.confidence = secure >= 2 ? 0.9 : 0.75;
		ev(&c, "%s", secure >= 2 ? "a password field and a confirm-password field" : "a password field and a sign-up button");
		if (signup)
			ev(&c, "a sign-up button: \"%s\"", signup->name);
	} else if (v->login_wall && signup) {
		c.name = "login-or-create";
		c.confidence = 0.85;
		ev(&c, "a sign-in form%s", secure ? " with a password field" : "");
		ev(&c, "a way to create an account: \"%s\"", signup->name);
	} else if (v->login_wall) {
		c.name = "login";
		c.confidence = secure ? 0.9 : 0.7;
		ev(&c, "%s", secure ? "a password field" : "an account field and a sign-in button");
		if (login)
			ev(&c, "a sign-in button: \"%s\"", login->name);
	} else if (payments >= 1 && any(v->all_text, paywall_words)) {
		c.name = "paywall";
		c.confidence = payments >= 2 ? 0.9 : 0.75;
		for (size_t i = 0; i < v->n; i++)
			if (v->c[i].klass && !strcmp(v->c[i].klass, "payment"))
				ev(&c, "a purchase control: \"%s\"", v->c[i].name);
	} else if (any(v->all_text, error_words)) {
		c.name = "error";
		c.confidence = 0.75;
		ev(&c, "error wording on screen%s", "");
	} else if (fields == 0 && find_named(v, advance_words, true) && tabs < 3) {
		c.name = "onboarding";
		c.confidence = 0.75;
		ev(&c, "an advance control: \"%s\"", find_named(v, advance_words, true)->name);
		ev(&c, "no text fields and no tab bar%s", "");
	} else if (tabs >= 3) {
		c.name = "home";
		c.confidence = 0.7;
		ev_add(&c, sw__asprintf("a tab bar with %zu controls", tabs));
	} else {
		ev(&c, "none of the first-run patterns%s", "");
	}
	return c;
}

static json_t *safe_plan(const char *klass, const ap_screen *v)
{
	json_t *p = json_array();
	if (!strcmp(klass, "onboarding")) {
		const ap_control *c = find_named(v, advance_words, true);
		char *s = sw__asprintf("tap \"%s\" (safe) to advance", c ? c->name : "Next");
		json_array_append_new(p, json_string(s ? s : ""));
		free(s);
	} else if (!strcmp(klass, "login") || !strcmp(klass, "login-or-create") || !strcmp(klass, "create-account")) {
		json_array_append_new(p, json_string("in a test or staging environment: a generated account "
		                                     "(SWIPIUM_TEST_USERNAME, a random password kept as a secret)"));
		json_array_append_new(p, json_string("anywhere else: one credentials question, nothing typed"));
	} else if (!strcmp(klass, "OTP")) {
		json_array_append_new(p, json_string("one question for the code (qa_continue_from_blocker)"));
	} else if (!strcmp(klass, "paywall")) {
		json_array_append_new(p, json_string("record the paywall; never touch a purchase control; leave with a "
		                                     "safe control (Not now, Close) or back"));
	} else if (!strcmp(klass, "permissions")) {
		json_array_append_new(p, json_string("left to the guardrails: qa_clear_overlay with allow_permission or "
		                                     "deny_permission is your decision, never the autopilot's"));
	} else if (!strcmp(klass, "home")) {
		json_array_append_new(p, json_string("first run is over: qa_explore from here"));
	} else {
		json_array_append_new(p, json_string("nothing to do for first run here: qa_explore or qa_snapshot"));
	}
	return p;
}

/* ---- generated accounts ------------------------------------------------------------------------------------- */

/* A new random password every time (never a constant): 20 characters with upper, lower, digits, symbols. */
static char *random_password(void)
{
	static const char set[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
	unsigned char raw[20];
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return NULL;
	char *p = malloc(24);
	if (!p)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < 16; i++)
		p[n++] = set[raw[i] % (sizeof(set) - 1)];
	p[n++] = 'A' + raw[16] % 26;
	p[n++] = 'a' + raw[17] % 26;
	p[n++] = '2' + raw[18] % 8;
	p[n++] = "!#%+-_=@"[raw[19] % 8];
	p[n] = '\0';
	return p;
}

/* ---- continue ----------------------------------------------------------------------------------------------- */

typedef struct fr_run {
	sw_session *s;
	sw_drive *d;
	const char *app_id;
	json_t *steps, *paywalls;
	json_t *needs_input;
	const char *stopped;
	const char *env;
	json_t *env_evidence;
	json_t *generated;
} fr_run;

static int fr_act(fr_run *r, json_t *args, sw_error **err)
{
	char *aj = sw__json_compact(args);
	char *out = NULL;
	int rc = aj ? sw_drive_act(r->d, aj, &out, err) : sw__error_nomem(err);
	free(aj);
	sw_free(out);
	return rc;
}

static json_t *target_of(const ap_control *c)
{
	if (!strcmp(c->loc_strategy, "id"))
		return json_pack("{s:s}", "id", c->loc_value);
	if (!strcmp(c->loc_strategy, "text"))
		return json_pack("{s:s}", "text", c->loc_value);
	return json_pack("{s:s}", "ref", c->loc_value);
}

static int tap(fr_run *r, const ap_control *c, const char *why, sw_error **err)
{
	json_t *args = json_pack("{s:s,s:o,s:s}", "action", "tap", "target", target_of(c), "observe", "none");
	int rc = fr_act(r, args, err);
	json_decref(args);
	if (rc == SW_OK)
		json_array_append_new(r->steps, json_pack("{s:s,s:s,s:s}", "action", "tap", "label", c->name, "why", why));
	return rc;
}

static int type_into(fr_run *r, const ap_control *c, const char *text, const char *shown, sw_error **err)
{
	json_t *args = json_pack("{s:s,s:o,s:s,s:s}", "action", "type", "target", target_of(c), "text", text, "observe",
	                         "none");
	int rc = fr_act(r, args, err);
	json_decref(args);
	if (rc == SW_OK)
		json_array_append_new(r->steps, json_pack("{s:s,s:s,s:s}", "action", "type", "label", c->name, "value", shown));
	return rc;
}

static void ask(fr_run *r, const char *kind, const char *question, json_t *fields)
{
	r->needs_input = json_pack("{s:s,s:s,s:o,s:{s:s,s:s}}", "kind", kind, "question", question, "fields", fields,
	                           "resume", "tool", "qa_first_run", "mode", "continue");
}

/* Fills a sign-up form with a generated account (test/staging only). */
static int sign_up(fr_run *r, const ap_screen *v, sw_error **err)
{
	char *password = random_password();
	if (!password)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "no random bytes for a generated password");
	/* a secret of the session before it goes anywhere */
	sw_redactor_add_secret(sw_session_redactor(r->s), password, NULL);
	char *email = sw__asprintf("swipium_%lld@yopmail.com", (long long)sw_wall_ms());
	json_t *gen = json_pack("{s:s,s:s,s:s}", "name", "SWIPIUM_TEST_USERNAME", "value", email ? email : "", "source",
	                        "qa_first_run");
	sw__session_append(r->s, "generatedValues", gen, NULL);
	json_decref(gen);
	gen = json_pack("{s:s,s:b,s:s}", "name", "SWIPIUM_TEST_PASSWORD", "secret", 1, "source", "qa_first_run");
	sw__session_append(r->s, "generatedValues", gen, NULL);
	json_decref(gen);
	r->generated = json_pack("{s:s,s:b,s:s}", "SWIPIUM_TEST_USERNAME", email ? email : "", "passwordRegisteredAsSecret",
	                         1, "passwordName", "SWIPIUM_TEST_PASSWORD");
	int rc = SW_OK;
	for (size_t i = 0; i < v->n && rc == SW_OK; i++) {
		const ap_control *c = &v->c[i];
		if (!c->edit)
			continue;
		if (c->secure || has(c->name, "password"))
			rc = type_into(r, c, password, "\xc2\xabsecret: SWIPIUM_TEST_PASSWORD\xc2\xbb", err);
		else if (has(c->name, "email") || has(c->name, "user") || has(c->name, "login"))
			rc = type_into(r, c, email, "SWIPIUM_TEST_USERNAME", err);
		else
			json_array_append_new(r->steps, json_pack("{s:s,s:s,s:s}", "action", "skip", "label", c->name, "why",
			                                          "no generated value for this field"));
	}
	const ap_control *submit = rc == SW_OK ? find_named(v, signup_words, false) : NULL;
	if (submit && rc == SW_OK)
		rc = tap(r, submit, "submit the sign-up form (test environment)", err);
	explicit_bzero(password, strlen(password));
	free(password);
	free(email);
	return rc;
}

static int first_run_continue(fr_run *r, const char *until, long max_steps, long max_ms, fr_class *last,
                              ap_screen *v, sw_error **err)
{
	int64_t t0 = sw_monotonic_ms();
	int rc = SW_OK;
	for (long step = 0;; step++) {
		if (step >= max_steps) {
			r->stopped = "max_steps";
			break;
		}
		if (sw_monotonic_ms() - t0 >= max_ms) {
			r->stopped = "max_duration";
			break;
		}
		const char *k = last->name;
		if (!strcmp(k, "home")) {
			r->stopped = "home";
			break;
		}
		if (!strcmp(k, "onboarding")) {
			const ap_control *c = find_named(v, advance_words, true);
			if (!c) {
				r->stopped = "no_safe_advance";
				break;
			}
			if ((rc = tap(r, c, "advance the onboarding", err)) < 0)
				break;
		} else if (!strcmp(k, "OTP")) {
			ask(r, "otp", "The app sent a one-time code. What is it?",
			    json_pack("[{s:s,s:s,s:b}]", "name", "otp", "type", "string", "secret", 1));
			r->stopped = "otp";
			break;
		} else if (!strcmp(k, "permissions")) {
			r->stopped = "permission_prompt";
			json_array_append_new(r->steps, json_pack("{s:s,s:s}", "action", "none", "why",
			                                          "a permission prompt is left to the guardrails, never to Allow"));
			break;
		} else if (!strcmp(k, "paywall")) {
			json_t *ctl = json_array();
			for (size_t i = 0; i < v->n; i++)
				if (v->c[i].klass && !strcmp(v->c[i].klass, "payment"))
					json_array_append_new(ctl, json_string(v->c[i].name));
			json_array_append_new(r->paywalls, json_pack("{s:s,s:s,s:o,s:b}", "screenSignature", v->sig, "title",
			                                             v->title ? v->title : "", "purchaseControls", ctl,
			                                             "purchased", 0));
			if (!strcmp(until, "until_gate")) {
				r->stopped = "paywall";
				break;
			}
			const ap_control *c = find_named(v, leave_words, true);
			if (c) {
				if ((rc = tap(r, c, "leave the paywall without buying", err)) < 0)
					break;
			} else {
				json_t *args = json_pack("{s:s,s:s,s:s}", "action", "press", "key", "back", "observe", "none");
				rc = fr_act(r, args, err);
				json_decref(args);
				if (rc < 0)
					break;
				json_array_append_new(r->steps, json_pack("{s:s,s:s}", "action", "back", "why",
				                                          "leave the paywall without buying"));
			}
		} else if (!strcmp(k, "login") || !strcmp(k, "create-account") || !strcmp(k, "login-or-create")) {
			bool testish = !strcmp(r->env, "test") || !strcmp(r->env, "staging");
			if (!testish) {
				ask(r, "credentials",
				    "The app asks to sign in, and this is not a test or staging environment (no disposable fixture, "
				    "no test-data policy): which test account should be used?",
				    json_pack("[{s:s,s:s,s:b},{s:s,s:s,s:b}]", "name", "SWIPIUM_TEST_USERNAME", "type", "string",
				              "secret", 0, "name", "SWIPIUM_TEST_PASSWORD", "type", "string", "secret", 1));
				r->stopped = "needs_credentials";
				break;
			}
			if (!strcmp(k, "create-account")) {
				if ((rc = sign_up(r, v, err)) < 0)
					break;
			} else {
				const ap_control *c = find_named(v, signup_words, false);
				if (!c) {
					ask(r, "credentials", "The app asks to sign in and offers no sign-up: which test account should "
					                      "be used?",
					    json_pack("[{s:s,s:s,s:b},{s:s,s:s,s:b}]", "name", "SWIPIUM_TEST_USERNAME", "type",
					              "string", "secret", 0, "name", "SWIPIUM_TEST_PASSWORD", "type", "string",
					              "secret", 1));
					r->stopped = "needs_credentials";
					break;
				}
				if ((rc = tap(r, c, "open the sign-up form (test environment)", err)) < 0)
					break;
			}
		} else {
			r->stopped = !strcmp(k, "error") ? "error_screen" : "not_first_run";
			break;
		}
		/* the screen the step settled on */
		ap_screen_free(v);
		if ((rc = ap_screen_read(r->d, r->app_id, v, err)) < 0)
			break;
		json_decref(last->evidence);
		*last = classify(v);
		if (!strcmp(until, "one_step")) {
			r->stopped = "one_step";
			break;
		}
		if (!strcmp(until, "until_gate") &&
		    (!strcmp(last->name, "paywall") || !strcmp(last->name, "OTP") || !strcmp(last->name, "permissions"))) {
			r->stopped = "gate";
			break;
		}
	}
	return rc;
}

SW_API int sw_first_run(sw_ctx *ctx, sw_session *s, const char *args_json, char **out_json, sw_error **err)
{
	if (!ctx || !s || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "ctx, session and out_json are required");
	*out_json = NULL;
	json_t *a = NULL;
	int rc = sw__options_load(args_json, first_run_opts, "qa_first_run arguments", &a, err);
	if (rc < 0)
		return rc;
	const char *mode = json_string_value(json_object_get(a, "mode"));
	const char *until = json_string_value(json_object_get(a, "until"));
	mode = mode ? mode : "plan";
	until = until ? until : "one_step";
	json_t *notes = json_array();
	if (strcmp(mode, "plan") && strcmp(mode, "continue")) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "mode must be plan or continue (got %s)", mode);
		goto done;
	}
	if (strcmp(until, "one_step") && strcmp(until, "until_gate") && strcmp(until, "until_home")) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "until must be one_step, until_gate or until_home (got %s)", until);
		goto done;
	}
	long max_steps = 0, max_ms = 0;
	if ((rc = sw__opt_whole(a, "maxSteps", !strcmp(until, "one_step") ? 1 : 12, 1, 50, &max_steps, notes, err)) < 0 ||
	    (rc = sw__opt_whole(a, "maxDurationMs", 120000, 1, 600000, &max_ms, notes, err)) < 0)
		goto done;
	if (!strcmp(mode, "plan") &&
	    (json_object_get(a, "until") || json_object_get(a, "maxSteps") || json_object_get(a, "maxDurationMs")))
		json_array_append_new(notes, json_string("until, maxSteps and maxDurationMs are ignored in plan mode"));
	json_t *app = NULL;
	sw__session_get(s, "appId", &app, NULL);
	fr_run r = {.s = s, .steps = json_array(), .paywalls = json_array(), .env_evidence = json_array()};
	r.app_id = json_string_value(app);
	bool disposable = false;
	r.env = ap_environment(s, json_string_value(json_object_get(a, "testDataPolicyPath")), &disposable, r.env_evidence);
	if (json_is_false(json_object_get(a, "allowGeneratedAccount")))
		r.env = "not allowed (allowGeneratedAccount false)";
	ap_screen v = {0};
	fr_class first = {0}, last = {0};
	rc = ap_drive_open(ctx, s, &r.d, err);
	if (rc == SW_OK) {
		json_t *res = NULL;
		rc = sw__drive_snapshot(r.d, NULL, &res, err);
		json_decref(res);
		if (rc == SW_OK)
			rc = ap_screen_read(r.d, r.app_id, &v, err);
	}
	if (rc == SW_OK) {
		first = classify(&v);
		last = (fr_class){first.name, first.confidence, json_deep_copy(first.evidence)};
		if (!strcmp(mode, "continue"))
			rc = first_run_continue(&r, until, max_steps, max_ms, &last, &v, err);
	}
	if (r.d)
		ap_drive_close(r.d);
	if (rc == SW_OK) {
		const char *state = r.needs_input ? "needs_input" : "done";
		json_t *res = json_pack(
		    "{s:s,s:{s:s,s:f,s:O,s:s?},s:o,s:{s:s,s:o},s:s,s:O,s:O,s:O?,s:O?,s:O}", "mode", mode, "classification",
		    "screenClass", first.name, "confidence", first.confidence, "evidence", first.evidence, "title", v.title,
		    "safePlan", safe_plan(first.name, &v), "environment", "name", r.env, "evidence", r.env_evidence, "state",
		    state, "steps", r.steps, "paywalls", r.paywalls, "needsInput", r.needs_input, "generated", r.generated,
		    "notes", notes);
		r.env_evidence = NULL;
		if (res && !strcmp(mode, "continue")) {
			json_object_set_new(res, "stoppedReason", json_string(r.stopped ? r.stopped : "done"));
			json_object_set_new(res, "now", json_pack("{s:s,s:f,s:O}", "screenClass", last.name, "confidence",
			                                          last.confidence, "evidence", last.evidence));
		}
		char *text = res ? sw__json_compact(res) : NULL;
		json_decref(res);
		*out_json = text ? ap_redact(s, text) : NULL;
		free(text);
		rc = *out_json ? SW_OK : sw__error_nomem(err);
	}
	ap_screen_free(&v);
	json_decref(first.evidence);
	json_decref(last.evidence);
	json_decref(r.steps);
	json_decref(r.paywalls);
	json_decref(r.needs_input);
	json_decref(r.generated);
	json_decref(r.env_evidence);
	json_decref(app);
done:
	json_decref(notes);
	json_decref(a);
	return rc;
}
