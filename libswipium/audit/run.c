/* run.c: qa_mobile_audit execute: every check of the profile on the session's bound device, evidence first,
 * the airplane state and orientation put back as they were found, failed and blocked checks to the ledger. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/random.h>

#include "audit-internal.h"
#include "../autopilot/autopilot-internal.h"
#include <swipium/artifacts.h>
#include <swipium/device.h>
#include <swipium/explore.h>
#include <swipium/health.h>
#include <swipium/issues.h>
#include <swipium/redact.h>
#include <swipium/suite.h>

typedef struct run {
	sw_ctx *ctx;
	sw_session *s;
	sw_drive *d;
	sw_device *dev;
	const sw__audit_opts *o;
	sw_abort_fn abort_fn;
	void *abort_ud;
	char *app;
	json_t *checks;
	json_t *notes;
	bool cancelled;
	/* network */
	bool net_managed;
	int net_found;
	json_t *network;
	/* orientation */
	bool rot_saved;
	int rot_found, auto_found;
	json_t *orientation;
	/* ledger */
	json_int_t logged;
	json_t *ledger_errors;
	json_t *history; /* the ledger as found, before this run logs (release gate) */
	char *history_error;
	/* account cycle */
	bool account_created, logged_out;
	/* store compliance: the project's build, found by store.build_metadata */
	char *apk;
	json_t *screens; /* the screens the label checks looked at (sw__audit_seen_screens + the current one) */
} run;

static bool aborted(run *r)
{
	if (!r->cancelled && r->abort_fn && r->abort_fn(r->abort_ud))
		r->cancelled = true;
	return r->cancelled;
}

/* Sleeps @ms in 50 ms steps, watching for cancellation; false when cancelled. */
static bool nap(run *r, long ms)
{
	for (long t = 0; t < ms; t += 50) {
		if (aborted(r))
			return false;
		sw__sleep_ms(ms - t < 50 ? ms - t : 50);
	}
	return !aborted(r);
}

static const sw__audit_check_def *def_of(const char *id)
{
	for (size_t i = 0; i < sw__audit_check_count; i++)
		if (!strcmp(sw__audit_checks[i].id, id))
			return &sw__audit_checks[i];
	return NULL;
}

static json_t *check_new(const char *id)
{
	const sw__audit_check_def *d = def_of(id);
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:[]}", "id", id, "title", d ? d->title : id, "status", "running",
	                 "severity", d ? d->severity : "medium", "category", d ? d->category : "app_bug", "evidence");
}

static void ev_line(json_t *c, const char *kind, const char *line)
{
	json_t *e = json_pack("{s:s,s:s}", "kind", kind, "line", line ? line : "");
	json_array_append_new(json_object_get(c, "evidence"), e);
}

static void ev_uri(json_t *c, const char *kind, const char *uri, const char *line)
{
	json_t *e = json_pack("{s:s,s:s,s:s*}", "kind", kind, "uri", uri, "line", line);
	json_array_append_new(json_object_get(c, "evidence"), e);
}

static void check_note(json_t *c, const char *text)
{
	json_t *n = json_object_get(c, "notes");
	if (!n) {
		n = json_array();
		json_object_set_new(c, "notes", n);
	}
	json_array_append_new(n, json_string(text));
}

/* A screenshot as evidence; a refusal (sensitive session, a secure field on screen) is a note, not evidence. */
static void ev_screenshot(run *r, json_t *c, const char *reason)
{
	char *meta = NULL;
	sw_error *e = NULL;
	if (sw_drive_screenshot_save(r->d, 0, reason, &meta, &e) == SW_OK) {
		json_t *m = json_loads(meta, 0, NULL);
		const char *uri = json_string_value(json_object_get(m, "uri"));
		if (uri)
			ev_uri(c, "screenshot", uri, NULL);
		json_decref(m);
	} else {
		char *t = sw__asprintf("no screenshot: %s", e ? sw_error_message(e) : "capture failed");
		check_note(c, t ? t : "no screenshot");
		free(t);
	}
	sw_free(meta);
	sw_error_free(e);
}

/* Dumps the UI, keeps the dump as evidence (a `dump` artifact) and returns its labelled nodes (NULL when the
 * dump failed: the reason is in @why, transfer full). */
static json_t *ev_dump(run *r, json_t *c, const char *stem, char **why)
{
	char *xml = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	*why = NULL;
	if (sw_device_dump_ui(r->dev, &xml, &len, &e) != SW_OK) {
		*why = sw__asprintf("the UI could not be read: %s", e ? sw_error_message(e) : "dump failed");
		sw_error_free(e);
		return NULL;
	}
	json_t *nodes = sw__audit_dump_nodes(xml, len);
	size_t labelled = 0, i;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		const char *l = json_string_value(json_object_get(n, "label"));
		if (l && *l)
			labelled++;
	}
	char *name = NULL, *meta = NULL;
	if (sw_artifact_next_name(r->s, "dump", stem, ".xml", &name, NULL) == SW_OK &&
	    sw_artifact_save(r->s, "dump", name, "application/xml", xml, len, "qa_mobile_audit UI dump", &meta, &e) ==
	        SW_OK) {
		json_t *m = json_loads(meta, 0, NULL);
		const char *uri = json_string_value(json_object_get(m, "uri"));
		char *line = sw__asprintf("UI dump with %zu labelled node(s)", labelled);
		if (uri)
			ev_uri(c, "ui_dump", uri, line);
		free(line);
		json_decref(m);
	} else {
		/* a sensitive session keeps no dump: what was read is the evidence, as a log line */
		char *line = sw__asprintf("UI read (%zu labelled node(s)); the dump is not kept: %s", labelled,
		                          e ? sw_error_message(e) : "not saved");
		ev_line(c, "log", line);
		free(line);
	}
	sw_error_free(e);
	sw_free(name);
	sw_free(meta);
	sw_free(xml);
	return nodes;
}

/* The health check with its verdict as a log line of @c. NULL when it could not run (*why set). */
static json_t *health(run *r, json_t *c, char **why)
{
	char *out = NULL;
	sw_error *e = NULL;
	json_t *opts = json_pack("{s:s}", "appId", r->app);
	char *oj = sw__json_compact(opts);
	json_decref(opts);
	int rc = sw_health_check(r->ctx, r->s, r->dev, oj, &out, &e);
	free(oj);
	*why = NULL;
	if (rc != SW_OK) {
		*why = sw__asprintf("the health check could not run: %s", e ? sw_error_message(e) : "failed");
		sw_error_free(e);
		sw_free(out);
		return NULL;
	}
	json_t *h = json_loads(out, 0, NULL);
	sw_free(out);
	sw_buf b = SW_BUF_INIT;
	json_t *fg = json_object_get(h, "foreground");
	sw__buf_printf(&b, "health: %s; foreground %s/%s", json_is_true(json_object_get(h, "healthy")) ? "healthy" : "not healthy",
	               json_string_value(json_object_get(fg, "package")) ? json_string_value(json_object_get(fg, "package"))
	                                                                  : "?",
	               json_string_value(json_object_get(fg, "activity")) ? json_string_value(json_object_get(fg, "activity"))
	                                                                   : "?");
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(h, "findings"), i, f) {
		if (i >= 8) {
			sw__buf_printf(&b, "; and %zu more finding(s)", json_array_size(json_object_get(h, "findings")) - i);
			break;
		}
		const char *detail = json_string_value(json_object_get(f, "detail"));
		char *cut = sw__cap(detail ? detail : "", 160);
		sw__buf_printf(&b, "; %s (%s): %s", json_string_value(json_object_get(f, "kind")),
		               json_string_value(json_object_get(f, "failureCode")), cut ? cut : "");
		free(cut);
	}
	char *line = sw__buf_steal(&b, NULL);
	ev_line(c, "log", line);
	free(line);
	return h;
}

/* The first finding that means the app did not survive (crash, ANR, RedBox, error boundary), or NULL. */
static json_t *fatal_finding(json_t *h)
{
	static const char *const kinds[] = {"native_crash", "anr", "rn_redbox", "app_error_boundary"};
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(h, "findings"), i, f) {
		const char *k = json_string_value(json_object_get(f, "kind"));
		for (size_t j = 0; k && j < SW_ARRAY_SIZE(kinds); j++)
			if (!strcmp(k, kinds[j]))
				return f;
	}
	return NULL;
}

/*
 * Ends a check: sets status and reason, turns a pass without evidence into blocked, logs a failed or
 * blocked check to the ledger and appends it to the run. @blocked_cat is the ledger category of a blocked
 * check (NULL: expected_gate).
 */
static void check_done(run *r, json_t *c, const char *status, const char *reason, const char *code,
                       const char *blocked_cat)
{
	if (!strcmp(status, "pass") && !json_array_size(json_object_get(c, "evidence"))) {
		status = "blocked";
		reason = "no evidence could be collected, so the check does not pass";
		blocked_cat = "mcp_limitation";
	}
	json_object_set_new(c, "status", json_string(status));
	json_object_set_new(c, "reason", json_string(reason ? reason : ""));
	if (code)
		json_object_set_new(c, "failureCode", json_string(code));
	if (!strcmp(status, "blocked"))
		json_object_set_new(c, "blockedCategory", json_string(blocked_cat ? blocked_cat : "expected_gate"));
	if (!strcmp(status, "fail") || !strcmp(status, "blocked")) {
		sw_error *e = NULL;
		if (sw__audit_log_issue(r->s, r->o->profile, c, &e) == SW_OK) {
			r->logged++;
		} else {
			char *t = sw__asprintf("%s: %s", json_string_value(json_object_get(c, "id")),
			                       e ? sw_error_message(e) : "not logged");
			json_array_append_new(r->ledger_errors, json_string(t ? t : "not logged"));
			free(t);
		}
		sw_error_free(e);
	}
	json_array_append_new(r->checks, c);
}

/* A check that was interrupted by cancellation: dropped, never logged. */
static void check_drop(json_t *c)
{
	json_decref(c);
}

/* A fixed reason of a check, built with printf (transfer full). */
#define REASON(...) sw__asprintf(__VA_ARGS__)

/* ---- labels on screen ---------------------------------------------------------------------- */

/* The first node whose folded label contains one of @kw (NULL-terminated), or NULL. (transfer none) */
static json_t *find_label(json_t *nodes, const char *const *kw, bool clickable_only)
{
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		const char *l = json_string_value(json_object_get(n, "label"));
		if (!l || !*l)
			continue;
		if (clickable_only && !json_is_true(json_object_get(n, "clickable")))
			continue;
		for (const char *const *k = kw; *k; k++)
			if (strstr(l, *k))
				return n;
	}
	return NULL;
}

/* The center of a node's bounds. */
static void center(json_t *n, int *x, int *y)
{
	json_t *b = json_object_get(n, "bounds");
	*x = (int)((json_integer_value(json_array_get(b, 0)) + json_integer_value(json_array_get(b, 2))) / 2);
	*y = (int)((json_integer_value(json_array_get(b, 1)) + json_integer_value(json_array_get(b, 3))) / 2);
}

/* Taps @n as an action of the session (recorded with tool qa_mobile_audit). */
static int tap_node(run *r, json_t *n, const char *check_id, sw_error **err)
{
	int x, y;
	center(n, &x, &y);
	json_t *rec = json_pack("{s:s,s:s,s:s}", "tool", "qa_mobile_audit", "check", check_id, "label",
	                        json_string_value(json_object_get(n, "text")));
	char *rj = sw__json_compact(rec);
	json_decref(rec);
	char *out = NULL;
	int rc = sw_drive_tap_point(r->d, x, y, rj, &out, err);
	free(rj);
	sw_free(out);
	return rc;
}

/* ---- smoke ---------------------------------------------------------------------------------- */

static void smoke(run *r)
{
	sw_error *e = NULL;
	char *why = NULL, *reason = NULL;
	/* launch */
	json_t *c = check_new("smoke.launch");
	if (sw_device_launch(r->dev, r->app, &e) != SW_OK) {
		reason = REASON("the app did not launch: %s", sw_error_message(e));
		ev_line(c, "log", reason);
		check_done(r, c, "fail", reason, sw_error_failure_code(e) ? sw_error_failure_code(e) : "APP_LAUNCH_FAILED",
		           NULL);
		sw_error_free(e);
		free(reason);
		e = NULL;
	} else if (!nap(r, 1200)) {
		check_drop(c);
		return;
	} else {
		char *fj = NULL;
		if (sw_device_foreground(r->dev, &fj, &e) != SW_OK) {
			reason = REASON("the foreground window could not be read: %s", sw_error_message(e));
			check_done(r, c, "blocked", reason, NULL, "environment_noise");
			sw_error_free(e);
			e = NULL;
		} else {
			json_t *f = json_loads(fj, 0, NULL);
			const char *pkg = json_string_value(json_object_get(f, "package"));
			const char *act = json_string_value(json_object_get(f, "activity"));
			char *line = REASON("foreground after launch: %s/%s", pkg ? pkg : "?", act ? act : "?");
			ev_line(c, "log", line);
			free(line);
			ev_screenshot(r, c, "qa_mobile_audit smoke.launch");
			if (pkg && !strcmp(pkg, r->app)) {
				reason = REASON("%s is in front after launch", r->app);
				check_done(r, c, "pass", reason, NULL, NULL);
			} else {
				reason = REASON("after launch %s is in front, not %s", pkg ? pkg : "nothing", r->app);
				check_done(r, c, "fail", reason, "WRONG_FOREGROUND", NULL);
			}
			json_decref(f);
		}
		sw_free(fj);
		free(reason);
	}
	reason = NULL;
	if (aborted(r))
		return;
	/* baseline health */
	c = check_new("smoke.health");
	json_t *h = health(r, c, &why);
	if (!h) {
		check_done(r, c, "blocked", why, NULL, "environment_noise");
	} else if (json_is_true(json_object_get(h, "healthy"))) {
		check_done(r, c, "pass", "the health check found nothing (log, foreground, screen all read)", NULL, NULL);
	} else {
		json_t *f = json_array_get(json_object_get(h, "findings"), 0);
		const char *k = json_string_value(json_object_get(f, "kind"));
		if (k && !strcmp(k, "health_unchecked") && json_array_size(json_object_get(h, "findings")) == 1)
			check_done(r, c, "blocked", "the health check could not look at every part", NULL,
			           "environment_noise");
		else
			check_done(r, c, "fail", "the health check found problems (see the evidence)",
			           json_string_value(json_object_get(f, "failureCode")), NULL);
	}
	json_decref(h);
	free(why);
	why = NULL;
	if (aborted(r))
		return;
	/* content */
	c = check_new("smoke.screen");
	json_t *nodes = ev_dump(r, c, "audit-smoke", &why);
	if (!nodes) {
		check_done(r, c, "blocked", why, "SNAPSHOT_FAILED", "environment_noise");
	} else {
		size_t labelled = 0, i;
		json_t *n;
		json_array_foreach(nodes, i, n) {
			const char *l = json_string_value(json_object_get(n, "label"));
			if (l && *l)
				labelled++;
		}
		if (labelled) {
			reason = REASON("the screen shows %zu labelled node(s)", labelled);
			check_done(r, c, "pass", reason, NULL, NULL);
		} else {
			check_done(r, c, "fail", "the screen has no labelled node: blank or still loading", "BLANK_SCREEN",
			           NULL);
		}
		free(reason);
	}
	json_decref(nodes);
	free(why);
}

/* ---- account cycle ---------------------------------------------------------------------------- */

static const char *const LOGOUT_KW[] = {"log out", "logout", "sign out", "signout", NULL};
static const char *const LOGIN_KW[] = {"log in", "login", "sign in", "signin", NULL};
static const char *const FORGOT_KW[] = {"forgot", "reset password", NULL};
static const char *const NAV_KW[] = {"profile", "settings", "account", NULL};

static void account_blocked_all(run *r, const char *reason)
{
	static const char *const ids[] = {"account.create", "account.logout", "account.forgot_password",
	                                  "account.login"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(ids); i++)
		check_done(r, check_new(ids[i]), "blocked", reason, NULL, "expected_gate");
}

static const char *const SIGNUP_KW[] = {"sign up", "signup", "create account", "create an account", "register",
                                        "get started", NULL};

/* A random password of 20 characters: letters, digits and a symbol, every class present (transfer full). */
static char *generated_password(void)
{
	static const char set[] = "ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz3456789";
	unsigned char raw[20];
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return NULL;
	char *p = malloc(sizeof(raw) + 1);
	if (!p)
		return NULL;
	for (size_t i = 0; i < 16; i++)
		p[i] = set[raw[i] % (sizeof(set) - 1)];
	p[16] = (char)('A' + raw[16] % 26);
	p[17] = (char)('a' + raw[17] % 26);
	p[18] = (char)('2' + raw[18] % 8);
	p[19] = "!#%+-_=@"[raw[19] % 8];
	p[20] = '\0';
	return p;
}

/* The sign-up form on @nodes: an e-mail or user field, at least one password field and a sign-up button. */
static bool signup_form(json_t *nodes, json_t **user, json_t **btn)
{
	*user = NULL;
	*btn = find_label(nodes, SIGNUP_KW, true);
	bool pw = false;
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		const char *idv = json_string_value(json_object_get(n, "id"));
		const char *l = json_string_value(json_object_get(n, "label"));
		if (json_is_true(json_object_get(n, "password")))
			pw = true;
		else if (!*user && ((idv && (strstr(idv, "email") || strstr(idv, "user"))) ||
		                    (l && (strstr(l, "email") || strstr(l, "username")))))
			*user = n;
	}
	return pw && *user && *btn;
}

static int type_into(run *r, json_t *field, const char *text);

static void account_create(run *r)
{
	json_t *c = check_new("account.create");
	char *why = NULL, *reason = NULL;
	/* the environment first: sign-up only in a test or staging environment, before anything is typed */
	bool disposable = false;
	json_t *envev = json_array();
	const char *env = ap_environment(r->s, NULL, &disposable, envev);
	char *line = REASON("environment: %s (from %zu source(s): a disposable fixture or .swipium/test-data-policy.json)",
	                    env, json_array_size(envev));
	ev_line(c, "log", line);
	free(line);
	json_decref(envev);
	if (strcmp(env, "test") && strcmp(env, "staging")) {
		reason = REASON("sign-up is refused: the environment is %s, not test or staging (declare it in "
		                ".swipium/test-data-policy.json {\"environment\": \"test\"} or with a disposable fixture); "
		                "nothing was typed",
		                env);
		check_done(r, c, "blocked", reason, NULL, "expected_gate");
		free(reason);
		return;
	}
	json_t *nodes = ev_dump(r, c, "audit-signup-before", &why);
	json_t *user = NULL, *btn = NULL;
	if (nodes && !signup_form(nodes, &user, &btn)) {
		/* a login-or-create screen: one tap on its sign-up control, when the risk rules call it safe */
		json_t *open = find_label(nodes, SIGNUP_KW, true);
		const char *risk = open ? sw_risk_classify(json_string_value(json_object_get(open, "text")),
		                                           json_string_value(json_object_get(open, "id")), NULL, NULL)
		                        : NULL;
		if (open && risk && strcmp(risk, "destructive") && tap_node(r, open, "account.create", NULL) == SW_OK &&
		    nap(r, 800)) {
			json_decref(nodes);
			nodes = ev_dump(r, c, "audit-signup-form", &why);
			if (nodes && !signup_form(nodes, &user, &btn))
				user = btn = NULL;
		}
	}
	if (aborted(r)) {
		json_decref(nodes);
		free(why);
		check_drop(c);
		return;
	}
	if (!nodes) {
		check_done(r, c, "blocked", why, "SNAPSHOT_FAILED", "environment_noise");
		free(why);
		return;
	}
	if (!user || !btn) {
		check_done(r, c, "blocked", "no sign-up form (an e-mail field, a password field and a Sign up button) on "
		           "the current screen; open it and run the audit again",
		           NULL, "missing_test_data");
		json_decref(nodes);
		free(why);
		return;
	}
	/* the disposable account: a generated e-mail and a random password, a secret before it goes anywhere */
	char *pw = generated_password();
	char *email = REASON("swipium_%lld@yopmail.com", (long long)sw_wall_ms());
	if (!pw || !email || sw_redactor_add_secret(sw_session_redactor(r->s), pw, NULL) != SW_OK ||
	    sw_session_input_set(r->s, "SWIPIUM_TEST_USERNAME", email, NULL) != SW_OK ||
	    sw_session_input_set(r->s, "SWIPIUM_TEST_PASSWORD", pw, NULL) != SW_OK) {
		check_done(r, c, "blocked", "the generated account could not be prepared", NULL, "mcp_limitation");
		free(pw);
		free(email);
		json_decref(nodes);
		free(why);
		return;
	}
	free(pw);
	int rc = type_into(r, user, "${SWIPIUM_TEST_USERNAME}");
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n)
		if (rc == SW_OK && json_is_true(json_object_get(n, "password")))
			rc = type_into(r, n, "${SWIPIUM_TEST_PASSWORD}");
	if (rc == SW_OK)
		rc = tap_node(r, btn, "account.create", NULL);
	if (rc != SW_OK || !nap(r, 1200)) {
		if (aborted(r))
			check_drop(c);
		else
			check_done(r, c, "blocked", "the sign-up form could not be filled in or sent", NULL,
			           "environment_noise");
	} else {
		json_decref(nodes);
		nodes = ev_dump(r, c, "audit-signup-after", &why);
		ev_screenshot(r, c, "qa_mobile_audit account.create");
		line = REASON("generated account %s (password kept as a secret: SWIPIUM_TEST_PASSWORD)", email);
		ev_line(c, "log", line);
		free(line);
		bool still = false;
		json_array_foreach(nodes, i, n)
			if (json_is_true(json_object_get(n, "password")))
				still = true;
		if (nodes && !still) {
			r->account_created = true;
			check_done(r, c, "pass", "a disposable account was created: the sign-up form is gone", NULL, NULL);
		} else {
			check_done(r, c, "fail", "after Sign up the sign-up form is still shown", NULL, NULL);
		}
	}
	free(email);
	json_decref(nodes);
	free(why);
}

static void account_logout(run *r)
{
	json_t *c = check_new("account.logout");
	char *why = NULL, *reason = NULL;
	if (!r->account_created) {
		check_done(r, c, "blocked", "logs out only the account this run created, and none was created", NULL,
		           "expected_gate");
		return;
	}
	json_t *nodes = ev_dump(r, c, "audit-logout-before", &why);
	json_t *ctl = nodes ? find_label(nodes, LOGOUT_KW, true) : NULL;
	if (nodes && !ctl) {
		/* one step to a profile or settings screen, through a control the risk rules call safe */
		json_t *nav = find_label(nodes, NAV_KW, true);
		const char *risk = nav ? sw_risk_classify(json_string_value(json_object_get(nav, "text")),
		                                          json_string_value(json_object_get(nav, "id")), NULL, NULL)
		                       : NULL;
		if (nav && risk && !strcmp(risk, "safe") && tap_node(r, nav, "account.logout", NULL) == SW_OK &&
		    nap(r, 800)) {
			json_decref(nodes);
			nodes = ev_dump(r, c, "audit-logout-nav", &why);
			ctl = nodes ? find_label(nodes, LOGOUT_KW, true) : NULL;
		}
	}
	if (aborted(r)) {
		json_decref(nodes);
		free(why);
		check_drop(c);
		return;
	}
	const char *hi = NULL;
	if (ctl)
		(void)sw_risk_classify(json_string_value(json_object_get(ctl, "text")),
		                       json_string_value(json_object_get(ctl, "id")), NULL, &hi);
	if (!nodes) {
		check_done(r, c, "blocked", why, "SNAPSHOT_FAILED", "environment_noise");
	} else if (!ctl || !hi || strcmp(hi, "logout")) {
		check_done(r, c, "blocked", "no Log out / Sign out control on the home, profile or settings screen", NULL,
		           "missing_test_data");
	} else if (tap_node(r, ctl, "account.logout", NULL) != SW_OK || !nap(r, 1000)) {
		if (aborted(r)) {
			check_drop(c);
		} else {
			check_done(r, c, "blocked", "the Log out control could not be tapped", NULL, "environment_noise");
		}
	} else {
		json_decref(nodes);
		nodes = ev_dump(r, c, "audit-logout-after", &why);
		ev_screenshot(r, c, "qa_mobile_audit account.logout");
		if (nodes && find_label(nodes, LOGIN_KW, false)) {
			r->logged_out = true;
			check_done(r, c, "pass", "after Log out the login screen is shown", NULL, NULL);
		} else {
			reason = REASON("after Log out no login control is shown%s%s", why ? ": " : "", why ? why : "");
			check_done(r, c, "fail", reason, NULL, NULL);
		}
	}
	free(reason);
	free(why);
	json_decref(nodes);
}

static void account_forgot(run *r)
{
	json_t *c = check_new("account.forgot_password");
	char *why = NULL;
	if (!r->logged_out) {
		check_done(r, c, "blocked", "needs the login screen reached by logging out the generated account", NULL,
		           "expected_gate");
		return;
	}
	json_t *before = ev_dump(r, c, "audit-forgot-before", &why);
	json_t *ctl = before ? find_label(before, FORGOT_KW, true) : NULL;
	if (!before) {
		check_done(r, c, "blocked", why, "SNAPSHOT_FAILED", "environment_noise");
	} else if (!ctl) {
		check_done(r, c, "fail", "the login screen has no Forgot password control", "ELEMENT_NOT_FOUND", NULL);
	} else if (tap_node(r, ctl, "account.forgot_password", NULL) != SW_OK || !nap(r, 1000)) {
		if (aborted(r))
			check_drop(c);
		else
			check_done(r, c, "blocked", "the Forgot password control could not be tapped", NULL,
			           "environment_noise");
	} else {
		json_t *after = ev_dump(r, c, "audit-forgot-after", &why);
		ev_screenshot(r, c, "qa_mobile_audit account.forgot_password");
		/* a reset screen: something changed and the login button is gone, or it speaks of a reset */
		static const char *const RESET_KW[] = {"reset", "recover", "send link", "send code", NULL};
		bool changed = after && !json_equal(before, after);
		if (after && changed && (find_label(after, RESET_KW, false) || !find_label(after, LOGIN_KW, true)))
			check_done(r, c, "pass", "Forgot password opens a reset screen (nothing was submitted)", NULL, NULL);
		else
			check_done(r, c, "fail", "Forgot password did not open a reset screen", NULL, NULL);
		json_decref(after);
		sw_error *e = NULL;
		(void)sw_device_press_key(r->dev, "back", &e);
		sw_error_free(e);
		(void)nap(r, 600);
	}
	json_decref(before);
	free(why);
}

static int type_into(run *r, json_t *field, const char *text)
{
	const char *id = json_string_value(json_object_get(field, "id"));
	json_t *args = json_pack("{s:s,s:s,s:s}", "action", "type", "text", text, "observe", "none");
	if (id && *id)
		json_object_set_new(args, "target", json_pack("{s:s}", "id", id));
	else
		json_object_set_new(args, "target", json_pack("{s:s}", "text", json_string_value(json_object_get(field, "text"))));
	char *aj = sw__json_compact(args);
	json_decref(args);
	char *out = NULL;
	sw_error *e = NULL;
	int rc = aj ? sw_drive_act(r->d, aj, &out, &e) : SW_ENOMEM;
	free(aj);
	sw_free(out);
	sw_error_free(e);
	return rc;
}

static void account_login(run *r)
{
	json_t *c = check_new("account.login");
	char *why = NULL;
	if (!r->logged_out) {
		check_done(r, c, "blocked", "needs the generated account logged out first", NULL, "expected_gate");
		return;
	}
	json_t *nodes = ev_dump(r, c, "audit-login-before", &why);
	json_t *user = NULL, *pass = NULL, *btn = nodes ? find_label(nodes, LOGIN_KW, true) : NULL;
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n) {
		const char *idv = json_string_value(json_object_get(n, "id"));
		const char *l = json_string_value(json_object_get(n, "label"));
		if (json_is_true(json_object_get(n, "password")) && !pass)
			pass = n;
		else if (!user && ((idv && (strstr(idv, "email") || strstr(idv, "user"))) ||
		                   (l && (strstr(l, "email") || strstr(l, "username")))))
			user = n;
	}
	if (!nodes) {
		check_done(r, c, "blocked", why, "SNAPSHOT_FAILED", "environment_noise");
	} else if (!user || !pass || !btn) {
		check_done(r, c, "blocked", "the login screen's e-mail field, password field or Log in button was not found",
		           "ELEMENT_NOT_FOUND", "missing_test_data");
	} else if (type_into(r, user, "${SWIPIUM_TEST_USERNAME}") != SW_OK ||
	           type_into(r, pass, "${SWIPIUM_TEST_PASSWORD}") != SW_OK) {
		if (aborted(r))
			check_drop(c);
		else
			check_done(r, c, "blocked", "the generated account could not be typed (SWIPIUM_TEST_USERNAME / "
			           "SWIPIUM_TEST_PASSWORD)", "MISSING_TEST_DATA", "missing_test_data");
	} else if (tap_node(r, btn, "account.login", NULL) != SW_OK || !nap(r, 1200)) {
		if (aborted(r))
			check_drop(c);
		else
			check_done(r, c, "blocked", "the Log in button could not be tapped", NULL, "environment_noise");
	} else {
		json_decref(nodes);
		nodes = ev_dump(r, c, "audit-login-after", &why);
		ev_screenshot(r, c, "qa_mobile_audit account.login");
		bool still = false;
		json_array_foreach(nodes, i, n)
			if (json_is_true(json_object_get(n, "password")))
				still = true;
		if (nodes && !still)
			check_done(r, c, "pass", "the generated account logged back in (the login form is gone)", NULL, NULL);
		else
			check_done(r, c, "fail", "after Log in the login form is still shown", "AUTH_REQUIRED", NULL);
	}
	json_decref(nodes);
	free(why);
}

static void account_cycle(run *r)
{
	if (!r->o->allow_generated) {
		account_blocked_all(r, "allowGeneratedData is not true: the account cycle needs a disposable generated "
		                       "account, so nothing was typed or tapped for it");
		return;
	}
	account_create(r);
	if (aborted(r))
		return;
	account_logout(r);
	if (aborted(r))
		return;
	account_forgot(r);
	if (aborted(r))
		return;
	account_login(r);
}

/* ---- store compliance ------------------------------------------------------------------------ */

/* The label checks look at every screen the session has seen: r->screens {screens[{name, uri, nodes}], ...}. */
static void screens_counts(run *r, json_t *c)
{
	json_object_set_new(c, "screens",
	                    json_pack("{s:I,s:O}", "checked", (json_int_t)json_array_size(json_object_get(r->screens, "screens")),
	                              "notAvailable", json_object_get(r->screens, "notAvailable")));
}

/* The first screen with a label of @kw: *@node the node (transfer none). */
static json_t *find_on_screens(run *r, const char *const *kw, json_t **node)
{
	size_t i;
	json_t *sc;
	json_array_foreach(json_object_get(r->screens, "screens"), i, sc)
	{
		json_t *n = find_label(json_object_get(sc, "nodes"), kw, false);
		if (n) {
			*node = n;
			return sc;
		}
	}
	*node = NULL;
	return NULL;
}

static void ev_screen(json_t *c, json_t *sc, const char *line)
{
	const char *uri = json_string_value(json_object_get(sc, "uri"));
	if (uri)
		ev_uri(c, json_string_value(json_object_get(sc, "source")), uri, line);
	else
		ev_line(c, "log", line);
}

static void store_label_check(run *r, const char *id, const char *const *kw, const char *what, const char *where)
{
	json_t *c = check_new(id);
	screens_counts(r, c);
	json_t *n = NULL;
	json_t *sc = find_on_screens(r, kw, &n);
	size_t checked = json_array_size(json_object_get(r->screens, "screens"));
	long long na = (long long)json_integer_value(json_object_get(r->screens, "notAvailable"));
	if (sc) {
		const char *name = json_string_value(json_object_get(sc, "name"));
		char *line = REASON("label on %s: \"%s\"", name, json_string_value(json_object_get(n, "text")));
		ev_screen(c, sc, line);
		free(line);
		char *reason = json_array_get(json_object_get(r->screens, "screens"), 0) == sc
		                   ? REASON("found on the current screen")
		                   : REASON("found on %s, a screen the session saw earlier", name);
		check_done(r, c, "pass", reason, NULL, NULL);
		free(reason);
	} else {
		char *reason = REASON("no %s on any of the %zu screen(s) the session has seen (%lld recorded screen(s) not "
		                      "available): open %s (or explore the app) and run the audit again",
		                      what, checked, na, where);
		check_done(r, c, "blocked", reason, NULL, "store_compliance");
		free(reason);
	}
}

/* Permissions Google Play restricts: each needs a declaration in the Play Console (or must go). */
static const char *const RESTRICTED[] = {
    "android.permission.READ_SMS", "android.permission.RECEIVE_SMS", "android.permission.SEND_SMS",
    "android.permission.RECEIVE_MMS", "android.permission.RECEIVE_WAP_PUSH", "android.permission.READ_CALL_LOG",
    "android.permission.WRITE_CALL_LOG", "android.permission.PROCESS_OUTGOING_CALLS",
    "android.permission.ACCESS_BACKGROUND_LOCATION", "android.permission.MANAGE_EXTERNAL_STORAGE",
    "android.permission.QUERY_ALL_PACKAGES", "android.permission.REQUEST_INSTALL_PACKAGES",
    "android.permission.USE_FULL_SCREEN_INTENT", "android.permission.READ_MEDIA_IMAGES",
    "android.permission.READ_MEDIA_VIDEO", NULL};

static void store_release_build(run *r)
{
	json_t *c = check_new("store.release_build");
	if (!r->apk) {
		check_done(r, c, "blocked", "no APK of the app in the project to read (build one, or see "
		           "store.build_metadata)", "NO_BUILD_ARTIFACT", "missing_test_data");
		return;
	}
	json_t *f = sw__audit_apk_facts(r->apk);
	json_t *tsdk = json_object_get(f, "targetSdk");
	json_t *dbg = json_object_get(f, "debuggable");
	json_t *restricted = json_array();
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(f, "permissions"), i, p) {
		for (const char *const *k = RESTRICTED; *k; k++)
			if (!strcmp(json_string_value(p), *k))
				json_array_append(restricted, p);
	}
	char *perms = json_dumps(json_object_get(f, "permissions"), JSON_COMPACT);
	char *warn = json_dumps(json_object_get(f, "warnings"), JSON_COMPACT);
	char *line = REASON("%s: targetSdk %lld, debuggable %s, permissions %s%s%s", r->apk,
	                    json_is_integer(tsdk) ? (long long)json_integer_value(tsdk) : -1LL,
	                    json_is_true(dbg) ? "true" : json_is_false(dbg) ? "false" : "unknown", perms ? perms : "[]",
	                    json_array_size(json_object_get(f, "warnings")) ? ", warnings " : "",
	                    json_array_size(json_object_get(f, "warnings")) ? warn : "");
	ev_line(c, "facts", line);
	free(line);
	free(perms);
	free(warn);
	json_object_set(c, "facts", f);
	char *reason = NULL;
	if (json_is_true(dbg)) {
		check_done(r, c, "fail", "the build is debuggable (android:debuggable=\"true\"): stores reject it; ship "
		           "a release build", NULL, NULL);
	} else if (json_is_integer(tsdk) && json_integer_value(tsdk) < SW__AUDIT_MIN_TARGET_SDK) {
		reason = REASON("targetSdkVersion %lld is below %d, the lowest Google Play takes for new apps and updates",
		                (long long)json_integer_value(tsdk), SW__AUDIT_MIN_TARGET_SDK);
		check_done(r, c, "fail", reason, NULL, NULL);
	} else if (!json_is_integer(tsdk) || !json_is_boolean(dbg)) {
		check_done(r, c, "blocked", "the manifest's target SDK or debuggable flag could not be read (see the "
		           "warnings)", NULL, "mcp_limitation");
	} else if (json_array_size(restricted)) {
		char *list = json_dumps(restricted, JSON_COMPACT);
		reason = REASON("restricted permission(s) %s need a Play Console declaration (or must be removed)",
		                list ? list : "?");
		free(list);
		json_object_set_new(c, "severity", json_string("medium"));
		check_done(r, c, "fail", reason, NULL, NULL);
	} else {
		check_done(r, c, "pass", "not debuggable, a current target SDK, no restricted permission", NULL, NULL);
	}
	free(reason);
	json_decref(restricted);
	json_decref(f);
}

static void store(run *r)
{
	/* the current screen first, then every screen the session has seen (its dumps and explore graphs) */
	json_t *shared = check_new("store.privacy_policy");
	char *why = NULL;
	json_t *nodes = ev_dump(r, shared, "audit-store", &why);
	const char *uri = json_string_value(json_object_get(json_array_get(json_object_get(shared, "evidence"), 0), "uri"));
	json_decref(r->screens);
	r->screens = sw__audit_seen_screens(r->s, uri);
	if (nodes && json_array_size(nodes)) {
		json_t *cur = json_pack("{s:s,s:s,s:s*,s:O}", "source", "ui_dump", "name", "the current screen", "uri", uri,
		                        "nodes", nodes);
		json_array_insert_new(json_object_get(r->screens, "screens"), 0, cur);
	}
	json_decref(shared);
	if (!json_array_size(json_object_get(r->screens, "screens"))) {
		static const char *const ids[] = {"store.privacy_policy", "store.terms", "store.account_deletion",
		                                  "store.subscription", "store.paywall"};
		for (size_t i = 0; i < SW_ARRAY_SIZE(ids); i++) {
			json_t *c = check_new(ids[i]);
			screens_counts(r, c);
			check_done(r, c, "blocked", why ? why : "no screen of the session could be read", "SNAPSHOT_FAILED",
			           "environment_noise");
		}
	} else {
		if (why) {
			char *t = REASON("store labels: the current screen could not be read (%s); the screens seen earlier "
			                 "were checked", why);
			json_array_append_new(r->notes, json_string(t ? t : "the current screen could not be read"));
			free(t);
		}
		static const char *const PRIV[] = {"privacy", NULL};
		static const char *const TERMS[] = {"terms of service", "terms of use", "terms and conditions",
		                                    "terms & conditions", "terms", NULL};
		static const char *const DEL[] = {"delete account", "delete my account", "close account",
		                                  "deactivate account", "account deletion", NULL};
		static const char *const SUB[] = {"manage subscription", "subscription", "restore purchase", NULL};
		store_label_check(r, "store.privacy_policy", PRIV, "privacy policy link",
		                  "the screen that should show it (settings, about, sign-up)");
		store_label_check(r, "store.terms", TERMS, "terms of service", "the screen that should show them");
		store_label_check(r, "store.account_deletion", DEL, "account deletion entry point",
		                  "the account or settings screen (nothing is ever tapped for it)");
		store_label_check(r, "store.subscription", SUB, "subscription management or restore control",
		                  "the subscription or settings screen");
		/* paywall: judged on each screen that shows one; restore and terms/privacy must be on that screen */
		static const char *const PAY[] = {"upgrade", "premium", "free trial", "per month", "/month", "per year",
		                                  "/year", "subscribe", NULL};
		static const char *const RESTORE[] = {"restore", NULL};
		static const char *const LEGAL[] = {"terms", "privacy", NULL};
		json_t *c = check_new("store.paywall");
		screens_counts(r, c);
		size_t i, paywalls = 0, bad = 0;
		json_t *sc;
		const char *fail_reason = NULL;
		json_array_foreach(json_object_get(r->screens, "screens"), i, sc)
		{
			json_t *sn = json_object_get(sc, "nodes");
			json_t *p = find_label(sn, PAY, false);
			if (!p)
				continue;
			paywalls++;
			json_t *rs = find_label(sn, RESTORE, false), *lg = find_label(sn, LEGAL, false);
			char *line = REASON("paywall label \"%s\" on %s; restore: %s; terms/privacy: %s",
			                    json_string_value(json_object_get(p, "text")),
			                    json_string_value(json_object_get(sc, "name")),
			                    rs ? json_string_value(json_object_get(rs, "text")) : "none",
			                    lg ? json_string_value(json_object_get(lg, "text")) : "none");
			ev_screen(c, sc, line);
			free(line);
			if (!(rs && lg)) {
				bad++;
				if (!fail_reason)
					fail_reason = rs ? "a paywall has no terms or privacy link"
					                 : "a paywall offers no way to restore purchases";
			}
			if (paywalls >= 20)
				break;
		}
		if (!paywalls) {
			char *reason = REASON("no paywall on any of the %zu screen(s) the session has seen (%lld not available): "
			                      "open it (nothing is bought) and run the audit again",
			                      json_array_size(json_object_get(r->screens, "screens")),
			                      (long long)json_integer_value(json_object_get(r->screens, "notAvailable")));
			check_done(r, c, "blocked", reason, NULL, "store_compliance");
			free(reason);
		} else if (bad) {
			check_done(r, c, "fail", fail_reason, NULL, NULL);
		} else {
			check_done(r, c, "pass", "every paywall seen offers restore purchases and a terms or privacy link", NULL,
			           NULL);
		}
	}
	json_decref(nodes);
	free(why);
	if (aborted(r))
		return;
	/* the build's facts */
	json_t *c = check_new("store.build_metadata");
	char *out = NULL;
	sw_error *e = NULL;
	if (sw_artifact_resolve(r->ctx, sw_session_root(r->s), "{\"platform\":\"android\"}", &out, &e) != SW_OK) {
		char *reason = REASON("no installable build found in the project: %s", sw_error_message(e));
		check_done(r, c, "blocked", reason, sw_error_failure_code(e), "missing_test_data");
		free(reason);
	} else {
		json_t *res = json_loads(out, 0, NULL);
		json_t *best = json_object_get(res, "best");
		if (!json_is_object(best))
			best = json_array_get(json_object_get(res, "candidates"), 0);
		const char *path = json_string_value(json_object_get(best, "path"));
		const char *type = json_string_value(json_object_get(best, "type"));
		const char *appid = json_string_value(json_object_get(best, "appId"));
		if (path && type && !strcmp(type, "apk") && appid && !strcmp(appid, r->app))
			r->apk = sw__strdup(path); /* store.release_build reads only the audited app's APK */
		json_t *vn = json_object_get(best, "versionName"), *vc = json_object_get(best, "versionCode");
		char *vcs = json_is_null(vc) || !vc ? NULL : json_dumps(vc, JSON_ENCODE_ANY);
		char *line = REASON("artifact %s: appId %s, versionName %s, versionCode %s, minSdk %lld",
		                    path ? path : "?", appid ? appid : "?",
		                    json_string_value(vn) ? json_string_value(vn) : "?", vcs ? vcs : "?",
		                    (long long)json_integer_value(json_object_get(best, "minSdk")));
		ev_line(c, "facts", line);
		free(line);
		if (!appid) {
			check_done(r, c, "fail", "the build's manifest could not be read (see its warnings)", NULL, NULL);
		} else if (strcmp(appid, r->app)) {
			char *reason = REASON("the build in the project is %s, not the audited app %s", appid, r->app);
			check_done(r, c, "fail", reason, "BUNDLE_ID_NOT_FOUND", NULL);
			free(reason);
		} else if (!json_string_value(vn) || !vcs) {
			check_done(r, c, "fail", "the build has no version name or version code", NULL, NULL);
		} else {
			check_done(r, c, "pass", "the build identifies the audited app with a version", NULL, NULL);
		}
		free(vcs);
		json_decref(res);
	}
	sw_free(out);
	sw_error_free(e);
	store_release_build(r);
}

/* ---- resilience ------------------------------------------------------------------------------ */

/* Sets airplane mode through the device layer (session record, env change, ledger row). */
static int set_airplane(run *r, bool on, sw_error **err)
{
	char *out = NULL;
	int rc = sw_devctl_network(r->ctx, r->s, r->dev, on ? "offline" : "online", &out, err);
	sw_free(out);
	return rc;
}

/* One health-after-a-change check: @c gets a screenshot and the verdict. */
static void survive(run *r, json_t *c, const char *what)
{
	char *why = NULL, *reason = NULL;
	json_t *h = health(r, c, &why);
	char *label = REASON("qa_mobile_audit %s", json_string_value(json_object_get(c, "id")));
	ev_screenshot(r, c, label);
	free(label);
	if (!h) {
		check_done(r, c, "blocked", why, NULL, "environment_noise");
	} else {
		json_t *f = fatal_finding(h);
		bool front = json_is_true(json_object_get(h, "foregroundIsApp"));
		if (f) {
			reason = REASON("%s: %s", what, json_string_value(json_object_get(f, "kind")));
			check_done(r, c, "fail", reason, json_string_value(json_object_get(f, "failureCode")), NULL);
		} else if (!front) {
			reason = REASON("%s: the app is no longer in front", what);
			check_done(r, c, "fail", reason, "WRONG_FOREGROUND", NULL);
		} else {
			reason = REASON("%s: the app stayed in front without a crash, ANR or error screen", what);
			check_done(r, c, "pass", reason, NULL, NULL);
		}
	}
	free(reason);
	free(why);
	json_decref(h);
}

/* The resilience checks start from the app in front: launched when another window is. */
static void bring_app(run *r)
{
	char *fj = NULL;
	sw_error *e = NULL;
	bool front = false;
	if (sw_device_foreground(r->dev, &fj, &e) == SW_OK) {
		json_t *f = json_loads(fj, 0, NULL);
		const char *pkg = json_string_value(json_object_get(f, "package"));
		front = pkg && !strcmp(pkg, r->app);
		json_decref(f);
	}
	sw_free(fj);
	sw_error_free(e);
	e = NULL;
	if (!front) {
		if (sw_device_launch(r->dev, r->app, &e) == SW_OK)
			(void)nap(r, 1200);
		sw_error_free(e);
	}
}

static void resilience(run *r)
{
	sw_error *e = NULL;
	bring_app(r);
	if (aborted(r))
		return;
	/* offline, then back online */
	if (!r->o->offline_mode || !r->net_managed) {
		const char *why = !r->o->offline_mode ? "not evaluated: offlineMode is false"
		                                      : "not evaluated: the airplane state could not be read first";
		static const char *const ids[] = {"resilience.offline", "resilience.reconnect"};
		for (size_t i = 0; i < SW_ARRAY_SIZE(ids); i++) {
			json_t *c = check_new(ids[i]);
			if (r->net_managed) {
				json_object_set_new(c, "status", json_string("not_evaluated"));
				json_object_set_new(c, "reason", json_string(why));
				json_array_append_new(r->checks, c);
			} else {
				check_done(r, c, "blocked", why, NULL, "environment_noise");
			}
		}
	} else {
		json_t *c = check_new("resilience.offline");
		int rc = r->net_found ? SW_OK : set_airplane(r, true, &e);
		if (rc != SW_OK) {
			char *reason = REASON("airplane mode could not be turned on: %s", sw_error_message(e));
			check_done(r, c, "blocked", reason, sw_error_failure_code(e), "environment_noise");
			free(reason);
			sw_error_free(e);
			e = NULL;
		} else {
			ev_line(c, "log", r->net_found ? "airplane mode was already on: the app is offline as found"
			                               : "airplane mode turned on");
			if (!nap(r, 1500)) {
				check_drop(c);
				return;
			}
			survive(r, c, "offline");
		}
		if (aborted(r))
			return;
		c = check_new("resilience.reconnect");
		if (set_airplane(r, false, &e) != SW_OK) {
			char *reason = REASON("airplane mode could not be turned off: %s", sw_error_message(e));
			check_done(r, c, "blocked", reason, sw_error_failure_code(e), "environment_noise");
			free(reason);
			sw_error_free(e);
			e = NULL;
		} else {
			ev_line(c, "log", "airplane mode turned off");
			if (!nap(r, 1500)) {
				check_drop(c);
				return;
			}
			survive(r, c, "back online");
		}
	}
	if (aborted(r))
		return;
	/* relaunch */
	json_t *c = check_new("resilience.relaunch");
	char *out = NULL;
	if (sw_devctl_app(r->ctx, r->s, r->dev, "{\"action\":\"restart\"}", &out, &e) != SW_OK) {
		char *reason = REASON("the app did not relaunch after a force stop: %s", sw_error_message(e));
		ev_line(c, "log", reason);
		check_done(r, c, "fail", reason, sw_error_failure_code(e) ? sw_error_failure_code(e) : "APP_LAUNCH_FAILED",
		           NULL);
		free(reason);
		sw_error_free(e);
		e = NULL;
	} else {
		ev_line(c, "log", "force-stopped and launched again");
		if (!nap(r, 1200)) {
			sw_free(out);
			check_drop(c);
			return;
		}
		survive(r, c, "after a relaunch");
	}
	sw_free(out);
	out = NULL;
	if (aborted(r))
		return;
	/* rotation */
	c = check_new("resilience.rotation");
	int rot = -1, aut = -1;
	if (sw_device_rotation(r->dev, &rot, &aut, &e) != SW_OK) {
		char *reason = REASON("the orientation could not be read: %s", sw_error_message(e));
		check_done(r, c, "blocked", reason, sw_error_failure_code(e), "environment_noise");
		free(reason);
		sw_error_free(e);
		return;
	}
	r->rot_saved = true;
	r->rot_found = rot;
	r->auto_found = aut;
	if (sw_devctl_orientation(r->ctx, r->s, r->dev, "landscape", &out, &e) != SW_OK) {
		char *reason = REASON("the device did not rotate: %s", sw_error_message(e));
		check_done(r, c, "blocked", reason, sw_error_failure_code(e), "environment_noise");
		free(reason);
		sw_error_free(e);
		return;
	}
	json_t *o = json_loads(out, 0, NULL);
	sw_free(out);
	char *line = REASON("rotation read back: %lld (%s)", (long long)json_integer_value(json_object_get(o, "rotation")),
	                    json_string_value(json_object_get(o, "orientation")));
	ev_line(c, "log", line);
	free(line);
	json_decref(o);
	if (!nap(r, 1000)) {
		check_drop(c);
		return;
	}
	survive(r, c, "in landscape");
}

/* Puts the orientation back as it was found. */
static void rotation_restore(run *r)
{
	if (!r->rot_saved)
		return;
	sw_error *e = NULL;
	int target = r->auto_found == 1 ? -1 : (r->rot_found >= 0 ? r->rot_found : 0);
	int rc = sw_device_set_rotation(r->dev, target, &e);
	r->orientation = json_pack("{s:i,s:b,s:b}", "foundRotation", r->rot_found, "foundAutoRotate", r->auto_found == 1,
	                           "restored", rc == SW_OK);
	char *t = rc == SW_OK ? REASON("qa_mobile_audit: orientation put back (rotation %d, auto-rotate %s)",
	                               r->rot_found, r->auto_found == 1 ? "on" : "off")
	                      : REASON("qa_mobile_audit: orientation not put back: %s", sw_error_message(e));
	if (t)
		sw_session_add_env_change(r->s, t, NULL);
	if (rc != SW_OK)
		json_object_set_new(r->orientation, "error", json_string(sw_error_message(e)));
	free(t);
	sw_error_free(e);
}

/* Puts airplane mode back as it was found before the first check. */
static void network_restore(run *r)
{
	if (!r->net_managed)
		return;
	sw_error *e = NULL;
	int now = -1;
	int rc = sw_device_airplane_mode(r->dev, &now, &e);
	json_t *rec = NULL;
	(void)sw__session_get(r->s, "network", &rec, NULL);
	bool pending = json_is_true(json_object_get(rec, "changed")) && !json_is_true(json_object_get(rec, "restored"));
	bool orig = json_is_true(json_object_get(rec, "originalAirplane"));
	json_decref(rec);
	char *out = NULL;
	if (rc == SW_OK && pending && orig == (r->net_found != 0)) {
		/* the session's own record holds the same original: restoring it also closes the record */
		rc = sw_devctl_network(r->ctx, r->s, r->dev, "restore", &out, &e);
	} else if (rc == SW_OK && now != r->net_found) {
		rc = set_airplane(r, r->net_found != 0, &e);
	}
	sw_free(out);
	int after = -1;
	if (rc == SW_OK)
		rc = sw_device_airplane_mode(r->dev, &after, &e);
	bool ok = rc == SW_OK && after == r->net_found;
	json_object_set_new(r->network, "restoredTo", json_string(r->net_found ? "on" : "off"));
	json_object_set_new(r->network, "restored", json_boolean(ok));
	if (!ok) {
		const char *why = e ? sw_error_message(e) : "the device reports another state";
		json_object_set_new(r->network, "error", json_string(why));
		char *t = REASON("qa_mobile_audit: airplane mode could not be put back %s: %s; restore it with qa_network "
		                 "{action: \"restore\"} or by hand",
		                 r->net_found ? "on" : "off", why);
		if (t)
			sw_session_add_env_change(r->s, t, NULL);
		free(t);
		sw_session_flush(r->s, NULL);
	}
	sw_error_free(e);
}

/* ---- release gate ------------------------------------------------------------------------------ */

/* The page objects' locators, through the suite concern's lint (`swipium suite lint`). */
static void locator_readiness(run *r)
{
	json_t *c = check_new("release.locator_readiness");
	char *out = NULL;
	sw_error *e = NULL;
	if (sw_suite_pages_lint(sw_session_root(r->s), &out, &e) != SW_OK) {
		char *reason = REASON("the page objects could not be linted: %s", sw_error_message(e));
		check_done(r, c, "blocked", reason, sw_error_failure_code(e), "environment_noise");
		free(reason);
		sw_error_free(e);
		return;
	}
	json_t *l = json_loads(out, 0, NULL);
	sw_free(out);
	if (!json_is_true(json_object_get(l, "pagesFound"))) {
		json_object_set_new(c, "status", json_string("not_evaluated"));
		json_object_set_new(c, "reason", json_string("not evaluated: the project has no page objects "
		                                             "(.swipium/pages) to lint; qa_generate target pom or suite "
		                                             "writes them"));
		json_array_append_new(r->checks, c);
		json_decref(l);
		return;
	}
	json_int_t errors = json_integer_value(json_object_get(l, "errors"));
	json_int_t warnings = json_integer_value(json_object_get(l, "warnings"));
	char *line = REASON("locator lint of .swipium/pages: %lld page(s), %lld error(s), %lld warning(s)",
	                    (long long)json_integer_value(json_object_get(l, "pages")), (long long)errors,
	                    (long long)warnings);
	ev_line(c, "log", line);
	free(line);
	/* the first items as evidence lines, the count of the rest */
	size_t i, shown = 0;
	json_t *it;
	json_array_foreach(json_object_get(l, "items"), i, it) {
		if (shown == 10)
			break;
		const char *msg = json_string_value(json_object_get(it, "message"));
		char *cut = sw__cap(msg ? msg : "", 240);
		char *t = REASON("%s %s: %s", json_string_value(json_object_get(it, "level")),
		                 json_string_value(json_object_get(it, "code")), cut ? cut : "");
		ev_line(c, "lint", t);
		free(t);
		free(cut);
		shown++;
	}
	size_t total = json_array_size(json_object_get(l, "items"));
	if (total > shown) {
		char *t = REASON("%zu more lint item(s) not listed; swipium suite lint shows them all", total - shown);
		ev_line(c, "lint", t);
		free(t);
	}
	if (errors) {
		char *reason = REASON("%lld locator error(s) in the page objects (coordinate-only or invalid): automation "
		                      "built on them breaks; give those elements durable ids",
		                      (long long)errors);
		check_done(r, c, "fail", reason, NULL, NULL);
		free(reason);
	} else {
		char *reason = REASON("no locator error in the page objects (%lld warning(s))", (long long)warnings);
		check_done(r, c, "pass", reason, NULL, NULL);
		free(reason);
	}
	json_decref(l);
}

static void gate(run *r)
{
	locator_readiness(r);
	json_t *c = check_new("release.issue_recurrence");
	if (!r->history) {
		char *reason = REASON("the issue ledger could not be read: %s", r->history_error ? r->history_error : "?");
		check_done(r, c, "blocked", reason, NULL, "environment_noise");
		free(reason);
		return;
	}
	json_t *reopened = json_array();
	size_t i, open = 0;
	json_t *is;
	json_array_foreach(json_object_get(r->history, "issues"), i, is) {
		const char *st = json_string_value(json_object_get(is, "state"));
		if (st && !strcmp(st, "reopened"))
			json_array_append(reopened, json_object_get(is, "issueId"));
		else if (st && (!strcmp(st, "open") || !strcmp(st, "observed_again")))
			open++;
	}
	char *ids = json_dumps(reopened, JSON_COMPACT);
	char *line = REASON("issue ledger before this run: %zu issue(s), %zu reopened %s, %zu open",
	                    json_array_size(json_object_get(r->history, "issues")), json_array_size(reopened),
	                    ids ? ids : "[]", open);
	ev_line(c, "log", line);
	free(line);
	if (json_array_size(reopened)) {
		char *reason = REASON("%zu fixed issue(s) came back (reopened): %s", json_array_size(reopened), ids);
		check_done(r, c, "fail", reason, NULL, NULL);
		free(reason);
	} else {
		check_done(r, c, "pass", "no fixed issue has come back", NULL, NULL);
	}
	free(ids);
	json_decref(reopened);
}

/* ---- the run ----------------------------------------------------------------------------------- */

static void read_history(run *r)
{
	char *out = NULL;
	sw_error *e = NULL;
	if (sw_issues_run(sw_session_root(r->s), "{\"mode\":\"history\"}", sw_session_redactor(r->s), &out, &e) ==
	    SW_OK) {
		r->history = json_loads(out, 0, NULL);
	} else {
		r->history_error = sw__strdup(e ? sw_error_message(e) : "unreadable");
	}
	sw_free(out);
	sw_error_free(e);
}

int sw_audit_execute(sw_ctx *ctx, sw_session *s, sw_drive *drive, const char *options_json, sw_abort_fn abort_fn,
                     void *abort_ud, char **out_json, sw_error **err)
{
	*out_json = NULL;
	if (!s || !drive)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "prepare a session (qa_start_session, "
		                     "qa_prepare_target) and pass its sessionId",
		                     "execute needs a prepared session with a bound device");
	sw__audit_opts o;
	int rc = sw__audit_opts_load(options_json, &o, err);
	if (rc != SW_OK)
		return rc;
	if (!o.execute) {
		sw__audit_opts_clear(&o);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_audit_execute runs mode execute; a plan comes from sw_audit_plan");
	}
	run r = {.ctx = ctx, .s = s, .d = drive, .dev = sw_drive_device(drive), .o = &o, .abort_fn = abort_fn,
	         .abort_ud = abort_ud};
	json_t *v = NULL;
	if (sw__session_get(s, "appId", &v, NULL) == SW_OK && json_is_string(v))
		r.app = sw__strdup(json_string_value(v));
	json_decref(v);
	if (!r.app) {
		sw__audit_opts_clear(&o);
		return sw__error_set(err, SW_ENOTFOUND, "BUNDLE_ID_NOT_FOUND",
		                     "run qa_prepare_target (or qa_start_session with the app) so the session knows its app",
		                     "the session has no app id; the audit always works on the session's app");
	}
	r.checks = json_array();
	r.notes = json_array();
	r.ledger_errors = json_array();
	r.network = json_pack("{s:b}", "managed", 0);
	/* first of all, before any check: the airplane state as found */
	if (sw__audit_needs_network(o.mask)) {
		sw_error *e = NULL;
		if (sw_device_airplane_mode(r.dev, &r.net_found, &e) == SW_OK) {
			r.net_managed = true;
			json_object_set_new(r.network, "managed", json_true());
			json_object_set_new(r.network, "found", json_string(r.net_found ? "on" : "off"));
			char *t = REASON("qa_mobile_audit: airplane mode found %s before the first check; it is put back at the end",
			                 r.net_found ? "on" : "off");
			if (t)
				sw_session_add_env_change(s, t, NULL);
			free(t);
		} else {
			json_object_set_new(r.network, "error", json_string(sw_error_message(e)));
		}
		sw_error_free(e);
	}
	if (o.mask & SW__AUDIT_GATE)
		read_history(&r);
	if (o.allow_deletion)
		json_array_append_new(r.notes, json_string("allowTestAccountDeletion: this build deletes no account, not even "
		                                           "the disposable one it created; delete it by hand"));
	if (!aborted(&r) && (o.mask & SW__AUDIT_SMOKE))
		smoke(&r);
	if (!aborted(&r) && (o.mask & SW__AUDIT_ACCOUNT))
		account_cycle(&r);
	if (!aborted(&r) && (o.mask & SW__AUDIT_STORE))
		store(&r);
	if (!aborted(&r) && (o.mask & SW__AUDIT_RESILIENCE))
		resilience(&r);
	if (!aborted(&r) && (o.mask & SW__AUDIT_GATE))
		gate(&r);
	/* whatever happened: the state found is put back */
	rotation_restore(&r);
	network_restore(&r);
	json_t *res = json_pack("{s:s,s:s,s:O,s:o,s:o,s:O,s:o?,s:{s:I,s:O},s:o,s:O}", "mode", "execute", "profile",
	                        o.profile, "checks", r.checks, "counts", sw__audit_counts(r.checks), "releaseImpact",
	                        sw__audit_release_impact(r.checks), "network", r.network, "orientation", r.orientation,
	                        "ledger", "logged", r.logged, "errors", r.ledger_errors, "audited",
	                        sw__audit_audited(s, NULL, &o), "notes", r.notes);
	if (r.screens && res) {
		/* which screens the store label checks looked at, and how many recorded ones could not be read */
		json_t *list = json_array();
		size_t i, shown = 0;
		json_t *sc;
		json_array_foreach(json_object_get(r.screens, "screens"), i, sc)
		{
			if (shown++ >= 50)
				break;
			json_array_append_new(list, json_pack("{s:O,s:O,s:O?,s:I}", "source", json_object_get(sc, "source"),
			                                      "name", json_object_get(sc, "name"), "uri",
			                                      json_object_get(sc, "uri"), "labelledNodes",
			                                      (json_int_t)json_array_size(json_object_get(sc, "nodes"))));
		}
		size_t total = json_array_size(json_object_get(r.screens, "screens"));
		json_t *ss = json_pack("{s:I,s:o,s:O,s:O}", "checked", (json_int_t)total, "screens", list, "notAvailable",
		                       json_object_get(r.screens, "notAvailable"), "notAvailableReasons",
		                       json_object_get(r.screens, "notAvailableReasons"));
		if (total > 50)
			json_object_set_new(ss, "omitted", json_integer((json_int_t)(total - 50)));
		json_object_set_new(res, "storeScreens", ss);
	}
	r.orientation = NULL;
	if (r.cancelled) {
		json_t *d = json_pack("{s:b,s:I,s:O,s:O}", "changedState", 1, "completedChecks",
		                      (json_int_t)json_array_size(r.checks), "network", r.network, "checks", r.checks);
		rc = sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL,
		                   "qa_mobile_audit was cancelled after %zu check(s); the interrupted check is not logged",
		                   json_array_size(r.checks));
		if (err && *err)
			sw__error_take_details(*err, d);
		else
			json_decref(d);
		json_decref(res);
		res = NULL;
	} else if (res) {
		/* the whole result is kept with the session as the audit's report */
		char *text = sw__json_pretty(res);
		char *name = NULL, *meta = NULL;
		char *stem = REASON("audit-%s", o.profile);
		if (text && stem && sw_artifact_next_name(s, "audit", stem, ".json", &name, NULL) == SW_OK &&
		    sw_artifact_save(s, "audit", name, "application/json", text, strlen(text), "qa_mobile_audit result", &meta,
		                     NULL) == SW_OK) {
			json_t *m = json_loads(meta, 0, NULL);
			if (json_object_get(m, "uri"))
				json_object_set(res, "reportUri", json_object_get(m, "uri"));
			json_decref(m);
		}
		free(stem);
		free(text);
		sw_free(name);
		sw_free(meta);
		*out_json = sw__json_compact(res);
		rc = *out_json ? SW_OK : sw__error_nomem(err);
	} else {
		rc = sw__error_nomem(err);
	}
	json_decref(res);
	json_decref(r.checks);
	json_decref(r.notes);
	json_decref(r.ledger_errors);
	json_decref(r.network);
	json_decref(r.orientation);
	json_decref(r.history);
	free(r.history_error);
	free(r.apk);
	json_decref(r.screens);
	free(r.app);
	sw__audit_opts_clear(&o);
	return rc;
}
