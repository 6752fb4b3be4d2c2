/*
 * explore.c: qa_explore's crawl. A depth-first walk of the app's screens: on each screen the best ranked
 * control not tried yet that the safe mode allows is tapped, the outcome is read from the screen the tap
 * settled on (and the health check after it: logcat and screen), and when nothing is left the explorer goes
 * back. Crashes and ANRs are findings whose edge is marked; the app is relaunched (at most three times). A
 * login wall ends the crawl with a credentials question (stopOnAuth) without anything typed or touched there.
 * The screen graph is written in the shared format (<session dir>/explore/<jobId>/graph.json + graph.md).
 * strategy task_planner / hybrid rank the allowed controls by the goal's words (task_planner stops at the goal
 * screen); generateSuite merges the reached screens and crash transitions into .swipium/test-suite.json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "actions-internal.h"
#include "autopilot-internal.h"
#include <swipium/appmap.h>
#include <swipium/driver.h>
#include <swipium/redact.h>
#include <swipium/suite.h>
#include <swipium/util.h>

#define MAX_RELAUNCHES 3
#define CLAMP_ACTIONS 500
#define CLAMP_SCREENS 200
#define CLAMP_DEPTH 20
#define CLAMP_DURATION_MS 3600000L

/* ---- options --------------------------------------------------------------------------------------- */

typedef struct ex_opts {
	const char *goal, *strategy, *safe_mode;
	long depth, max_actions, max_screens, max_ms;
	const json_t *candidate;
	bool confirm_high, generate_suite, include_text, stop_on_auth, account_cycle, allow_generated;
	json_t *notes; /* clamping notes */
} ex_opts;

static const sw__opt explore_opts[] = {
    {"goal", SW__OPT_STRING, false},          {"depth", SW__OPT_NUMBER, false},
    {"maxActions", SW__OPT_NUMBER, false},    {"maxScreens", SW__OPT_NUMBER, false},
    {"maxDurationMs", SW__OPT_NUMBER, false}, {"strategy", SW__OPT_STRING, false},
    {"safeMode", SW__OPT_STRING, false},      {"destructiveCandidate", SW__OPT_OBJECT, false},
    {"confirmHighImpact", SW__OPT_BOOL, false}, {"generateSuite", SW__OPT_BOOL, false},
    {"includeTextEntry", SW__OPT_BOOL, false}, {"stopOnAuth", SW__OPT_BOOL, false},
    {"accountCycle", SW__OPT_BOOL, false},    {"allowGeneratedData", SW__OPT_BOOL, false},
    {NULL}};

#define bad(err, fmt, what) sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, fmt, what)

static const char *str0(const char *s)
{
	return s ? s : "";
}

static int parse_opts(const json_t *a, ex_opts *o, sw_error **err)
{
	memset(o, 0, sizeof(*o));
	o->notes = json_array();
	int rc = sw__options_check(a, explore_opts, "qa_explore arguments", err);
	if (rc < 0)
		return rc;
	if ((rc = sw__opt_whole(a, "depth", 3, 0, CLAMP_DEPTH, &o->depth, o->notes, err)) < 0 ||
	    (rc = sw__opt_whole(a, "maxActions", 20, 0, CLAMP_ACTIONS, &o->max_actions, o->notes, err)) < 0 ||
	    (rc = sw__opt_whole(a, "maxScreens", 12, 1, CLAMP_SCREENS, &o->max_screens, o->notes, err)) < 0 ||
	    (rc = sw__opt_whole(a, "maxDurationMs", 360000, 0, CLAMP_DURATION_MS, &o->max_ms, o->notes, err)) < 0)
		return rc;
	o->goal = json_string_value(json_object_get(a, "goal"));
	o->strategy = json_string_value(json_object_get(a, "strategy"));
	static const char *const strategies[] = {"crawl", "task_planner", "hybrid", NULL};
	if (!o->strategy)
		o->strategy = "crawl";
	if (!sw__str_one_of(o->strategy, strategies))
		return bad(err, "strategy must be crawl, task_planner or hybrid (got %s)", o->strategy);
	static const char *const modes[] = {"strict", "balanced", "dry_run_destructive",
	                                    "approved_destructive_candidate", "approved_destructive", NULL};
	o->safe_mode = json_string_value(json_object_get(a, "safeMode"));
	if (!o->safe_mode)
		o->safe_mode = "strict";
	if (!sw__str_one_of(o->safe_mode, modes))
		return bad(err,
		           "safeMode must be strict, balanced, dry_run_destructive, approved_destructive_candidate or "
		           "approved_destructive (got %s)",
		           o->safe_mode);
	o->candidate = json_object_get(a, "destructiveCandidate");
	o->confirm_high = json_is_true(json_object_get(a, "confirmHighImpact"));
	o->generate_suite = json_is_true(json_object_get(a, "generateSuite"));
	o->include_text = json_is_true(json_object_get(a, "includeTextEntry"));
	o->stop_on_auth = !json_is_false(json_object_get(a, "stopOnAuth"));
	o->account_cycle = json_is_true(json_object_get(a, "accountCycle"));
	o->allow_generated = json_is_true(json_object_get(a, "allowGeneratedData"));
	if (o->candidate) {
		if (!json_is_string(json_object_get(o->candidate, "screenSignature")) ||
		    !json_is_string(json_object_get(o->candidate, "candidateSignature")))
			return bad(err, "%s needs screenSignature and candidateSignature (strings from a dry run)",
			           "destructiveCandidate");
	}
	return SW_OK;
}

/* ---- session state: the dry runs' candidates --------------------------------------------------------- */

static json_t *state_get(sw_session *s, const char *key)
{
	json_t *v = NULL;
	if (sw__session_get(s, key, &v, NULL) < 0)
		return NULL;
	return v;
}

/* The candidate of a dry run of this session matching @cand (borrowed result inside *@hold), or NULL. */
static json_t *find_candidate(sw_session *s, const json_t *cand, json_t **hold)
{
	*hold = state_get(s, "exploration");
	json_t *list = json_object_get(*hold, "destructiveCandidates");
	size_t i;
	json_t *c;
	const char *ss = json_string_value(json_object_get(cand, "screenSignature"));
	const char *cs = json_string_value(json_object_get(cand, "candidateSignature"));
	json_array_foreach(list, i, c)
	{
		if (ss && cs && !strcmp(ss, str0(json_string_value(json_object_get(c, "screenSignature")))) &&
		    !strcmp(cs, str0(json_string_value(json_object_get(c, "candidateSignature")))))
			return c;
	}
	return NULL;
}

/* Disposable state: a fixture (the session's or .swipium/fixtures.json's) with disposable:true or environment
 * "test". */
static bool disposable_state(sw_session *s)
{
	json_t *fx = sw__fixtures_load(s, sw_session_root(s), NULL);
	size_t i;
	json_t *f;
	bool ok = false;
	json_array_foreach(fx, i, f)
	{
		const char *env = json_string_value(json_object_get(f, "environment"));
		if (json_is_true(json_object_get(f, "disposable")) || (env && !strcmp(env, "test")))
			ok = true;
	}
	json_decref(fx);
	return ok;
}

static int check_parsed(sw_session *s, ex_opts *o, json_t **consent, sw_error **err)
{
	*consent = json_null();
	if (!strcmp(o->safe_mode, "approved_destructive"))
		return sw__error_set(err, SW_EDENIED, "DESTRUCTIVE_REFUSED",
		                     "Run safeMode dry_run_destructive, then approve exactly one candidate with "
		                     "safeMode approved_destructive_candidate.",
		                     "safeMode approved_destructive is never run: destructive controls are approved one at a "
		                     "time, from a dry run.");
	if (strcmp(o->safe_mode, "approved_destructive_candidate") != 0) {
		if (o->candidate)
			return bad(err, "%s is only read with safeMode approved_destructive_candidate",
			           "destructiveCandidate");
		return SW_OK;
	}
	if (!o->candidate)
		return sw__error_set(err, SW_EDENIED, "DESTRUCTIVE_REFUSED",
		                     "Run qa_explore with safeMode dry_run_destructive and pass one of its "
		                     "destructiveCandidates[] as destructiveCandidate.",
		                     "safeMode approved_destructive_candidate needs the exact candidate a dry run returned.");
	json_t *hold = NULL;
	json_t *found = find_candidate(s, o->candidate, &hold);
	if (!found) {
		json_decref(hold);
		return sw__error_set(err, SW_EDENIED, "DESTRUCTIVE_REFUSED",
		                     "Pass a candidate exactly as a dry run of this session returned it (screenSignature and "
		                     "candidateSignature).",
		                     "No dry run of this session returned that destructive candidate.");
	}
	const char *klass = json_string_value(json_object_get(found, "riskClass"));
	bool high = klass && strcmp(klass, "destructive") != 0;
	if (!disposable_state(s)) {
		json_decref(hold);
		return sw__error_set(err, SW_ENOTFOUND, "MISSING_FIXTURE",
		                     "Declare a fixture with disposable:true (or environment \"test\") in the session "
		                     "(qa_start_session fixtures or .swipium/fixtures.json).",
		                     "A destructive control is only touched on disposable state, and this session has none.");
	}
	if (high && !o->confirm_high) {
		char *msg = sw__asprintf("The candidate is high impact (%s): confirmHighImpact:true is required.", klass);
		json_decref(hold);
		int rc = sw__error_set(err, SW_EDENIED, "DESTRUCTIVE_REFUSED",
		                       "Call again with confirmHighImpact:true once you are sure this control may be touched "
		                       "once.",
		                       "%s", msg ? msg : "high impact candidate");
		free(msg);
		return rc;
	}
	char *explain = sw__asprintf("Tap \"%s\" (%s, %s) once on screen %s of the app, with disposable test data. Nothing "
	                             "else destructive is touched.",
	                             str0(json_string_value(json_object_get(found, "label"))),
	                             klass ? klass : "destructive",
	                             str0(json_string_value(json_object_get(json_object_get(found, "locator"), "value"))),
	                             str0(json_string_value(json_object_get(found, "screenSignature"))));
	json_t *affects = json_pack("{s:O?,s:O?,s:O?,s:O?,s:O?}", "screenSignature",
	                            json_object_get(found, "screenSignature"), "candidateSignature",
	                            json_object_get(found, "candidateSignature"), "label", json_object_get(found, "label"),
	                            "locator", json_object_get(found, "locator"), "riskClass",
	                            json_object_get(found, "riskClass"));
	json_decref(*consent);
	*consent = json_pack("{s:s,s:s,s:s,s:o}", "action", "destructive_ui_candidate", "risk", "high", "explain",
	                     explain ? explain : "", "affects", affects ? affects : json_object());
	free(explain);
	json_decref(hold);
	return *consent ? SW_OK : sw__error_nomem(err);
}

SW_API int sw_explore_check(sw_session *s, const char *args_json, char **consent_json, sw_error **err)
{
	if (!s || !consent_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "session and consent_json are required");
	*consent_json = NULL;
	json_t *a = NULL;
	int rc = sw__options_load(args_json, explore_opts, "qa_explore arguments", &a, err);
	if (rc < 0)
		return rc;
	ex_opts o;
	json_t *consent = NULL;
	rc = parse_opts(a, &o, err);
	if (rc == SW_OK)
		rc = check_parsed(s, &o, &consent, err);
	json_decref(o.notes);
	json_decref(a);
	if (rc < 0) {
		json_decref(consent);
		return rc;
	}
	*consent_json = json_dumps(consent, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(consent);
	return *consent_json ? SW_OK : sw__error_nomem(err);
}

/* ---- the drive ------------------------------------------------------------------------------------------ */

char *ap_redact(sw_session *s, const char *text)
{
	sw_redactor *r = s ? sw_session_redactor(s) : NULL;
	char *out = NULL;
	if (r && sw_redactor_count(r) > 0 && sw_redactor_redact_text(r, text, strlen(text), &out, NULL, NULL, NULL) == SW_OK)
		return out;
	return sw__strdup(text);
}

static char *hook_redact(const char *text, void *ud)
{
	sw_redactor *r = sw_session_redactor(ud);
	if (!r || sw_redactor_count(r) == 0)
		return NULL;
	char *out = NULL;
	if (sw_redactor_redact_text(r, text, strlen(text), &out, NULL, NULL, NULL) != SW_OK)
		return NULL;
	return out;
}

static char *hook_input(const char *name, void *ud)
{
	return sw_session_input_get(ud, name);
}

static void hook_secret(const char *value, void *ud)
{
	sw_redactor *r = sw_session_redactor(ud);
	if (r)
		sw_redactor_add_secret(r, value, NULL);
}

int ap_drive_open(sw_ctx *ctx, sw_session *s, sw_drive **out, sw_error **err)
{
	*out = NULL;
	json_t *dev = state_get(s, "device");
	const char *serial = json_string_value(json_object_get(dev, "serial"));
	json_t *o = json_object();
	if (serial)
		json_object_set_new(o, "serial", json_string(serial));
	char *oj = sw__json_compact(o);
	json_decref(o);
	json_decref(dev);
	sw_device *d = NULL;
	int rc = oj ? sw_device_open(ctx, sw_driver_android(), oj, &d, err) : sw__error_nomem(err);
	free(oj);
	if (rc < 0)
		return rc;
	sw_drive *drive = NULL;
	if ((rc = sw_drive_new(d, &drive, err)) < 0) {
		sw_device_free(d);
		return rc;
	}
	sw__drive_own_device(drive, d);
	sw_drive_hooks hooks = {hook_secret, hook_input, hook_redact, s};
	sw_drive_set_hooks(drive, &hooks);
	sw_drive_set_session(drive, ctx, s);
	*out = drive;
	return SW_OK;
}

void ap_drive_close(sw_drive *d)
{
	sw_drive_free(d);
}

/* ---- the graph ---------------------------------------------------------------------------------------- */

typedef struct ex_node {
	char sig[24];
	char *title, *activity;
	const char *health; /* ok | crash | anr | unchecked */
	int visits;
	long depth;
	long parent; /* node index, -1 */
	json_t *elements;
	json_t *tried; /* {candidateSignature: true} */
	const char *blocked; /* login_wall, otp, permission_prompt, or NULL */
} ex_node;

typedef struct ex_run {
	sw_ctx *ctx;
	sw_session *s;
	sw_drive *d;
	ex_opts o;
	const char *app_id;
	sw_abort_fn cancel;
	void *cancel_ud;
	ex_node *nodes;
	size_t n_nodes, cap_nodes;
	json_t *edges, *findings, *candidates, *skipped, *warnings;
	long actions, relaunches, backs;
	int64_t t0;
	char started[SW_ISO_TIME_SIZE];
	const char *stopped;
	const char *state;
	json_t *needs_input;
	long cur;
	bool approved_done;
	char *approved_sig, *approved_screen;
	char *last_activity;
	sw_job *progress; /* nullable: the job whose progress the crawl reports after each action */
	json_t *fixtures; /* the session's fixtures (text entry values) */
	json_t *typed;    /* [{screenSignature, field, source, input?, secret}]: what was typed (never the value) */
	json_t *typed_keys; /* {field key: true}: each field is typed once per crawl */
	const char *env;  /* test | staging | production | unknown (generated data only in test/staging) */
	char goal_words[8][32]; /* task_planner / hybrid: the goal's words, case folded */
	size_t n_goal_words;
	bool planned;           /* strategy task_planner or hybrid with a goal that has words */
	long goal_node;         /* the first screen that matched the goal, -1 */
	long goal_actions;      /* actions taken when it was reached */
} ex_run;

/* ---- task_planner / hybrid: the goal's words rank the controls ------------------------------------------ */

static const char *const GOAL_STOP[] = {"the", "and", "for", "with", "from", "into", "that", "this", "then", "open",
                                        "go", "to", "a", "an", "of", "on", "in", "app", "screen", "page", "tap",
                                        "check", "test", "find", "reach", "show", "see", "view", NULL};

/* The next word of @p (ASCII letters/digits, folded, a plural s cut) into @w; returns the rest or NULL. */
static const char *next_word(const char *p, char w[32])
{
	while (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
		p++;
	if (!*p)
		return NULL;
	size_t n = 0;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) {
		if (n < 31)
			w[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		p++;
	}
	if (n > 3 && w[n - 1] == 's')
		n--;
	w[n] = 0;
	return p;
}

static void goal_parse(ex_run *r)
{
	char w[32];
	const char *p = r->o.goal;
	while (p && (p = next_word(p, w)) && r->n_goal_words < 8) {
		bool skip = strlen(w) < 3;
		for (size_t i = 0; GOAL_STOP[i] && !skip; i++)
			skip = !strcmp(w, GOAL_STOP[i]);
		for (size_t i = 0; i < r->n_goal_words && !skip; i++)
			skip = !strcmp(w, r->goal_words[i]);
		if (!skip)
			memcpy(r->goal_words[r->n_goal_words++], w, 32);
	}
}

/* How many of the goal's words are words of @text. */
static int goal_score(const ex_run *r, const char *text)
{
	int score = 0;
	bool seen[8] = {false};
	char w[32];
	const char *p = text;
	while (p && (p = next_word(p, w)))
		for (size_t i = 0; i < r->n_goal_words; i++)
			if (!seen[i] && !strcmp(w, r->goal_words[i])) {
				seen[i] = true;
				score++;
			}
	return score;
}

/* A screen matches the goal when its title, or its activity's class name, holds one of the goal's words. */
static bool goal_screen(const ex_run *r, const char *title, const char *activity)
{
	if (goal_score(r, title) > 0)
		return true;
	const char *dot = activity ? strrchr(activity, '.') : NULL;
	const char *cls = dot ? dot + 1 : activity;
	if (!cls)
		return false;
	char low[128];
	size_t n = 0;
	for (; cls[n] && n < sizeof(low) - 1; n++)
		low[n] = (char)(cls[n] >= 'A' && cls[n] <= 'Z' ? cls[n] - 'A' + 'a' : cls[n]);
	low[n] = 0;
	for (size_t i = 0; i < r->n_goal_words; i++)
		if (strstr(low, r->goal_words[i]))
			return true;
	return false;
}

static bool cancelled(ex_run *r)
{
	return r->cancel && r->cancel(r->cancel_ud);
}

static json_t *locator_json(const ap_control *c)
{
	return json_pack("{s:s,s:s}", "strategy", c->loc_strategy, "value", c->loc_value);
}

static long node_find(ex_run *r, const char *sig)
{
	for (size_t i = 0; i < r->n_nodes; i++)
		if (!strcmp(r->nodes[i].sig, sig))
			return (long)i;
	return -1;
}

static long node_add(ex_run *r, const ap_screen *v, long depth, long parent)
{
	long at = node_find(r, v->sig);
	if (at >= 0) {
		r->nodes[at].visits++;
		if (depth < r->nodes[at].depth)
			r->nodes[at].depth = depth;
		return at;
	}
	if (r->n_nodes == r->cap_nodes) {
		size_t cap = r->cap_nodes ? r->cap_nodes * 2 : 16;
		ex_node *nv = realloc(r->nodes, cap * sizeof(*nv));
		if (!nv)
			return -1;
		r->nodes = nv;
		r->cap_nodes = cap;
	}
	ex_node *n = &r->nodes[r->n_nodes];
	memset(n, 0, sizeof(*n));
	snprintf(n->sig, sizeof(n->sig), "%s", v->sig);
	n->title = sw__strdup(v->title ? v->title : "");
	n->activity = sw__strdup(r->last_activity ? r->last_activity : "");
	n->health = "ok";
	n->visits = 1;
	n->depth = depth;
	n->parent = parent;
	n->elements = json_array();
	n->tried = json_object();
	for (size_t i = 0; i < v->n; i++) {
		const ap_control *c = &v->c[i];
		json_t *el = json_pack("{s:s,s:s,s:s,s:o,s:s,s:s*}", "label", c->name, "role", c->edit ? "text-field" : c->role,
		                       "id", c->res_id, "locator", locator_json(c), "risk", c->risk, "riskClass", c->klass);
		if (el)
			json_object_set_new(el, "candidateSignature", json_string(c->sig));
		json_array_append_new(n->elements, el);
	}
	if (v->login_wall)
		n->blocked = "login_wall";
	else if (v->otp)
		n->blocked = "otp";
	else if (v->permission_prompt)
		n->blocked = "permission_prompt";
	return (long)r->n_nodes++;
}

static void edge_add(ex_run *r, long from, long to, const char *kind, const ap_control *c, const char *outcome,
                     json_t *evidence)
{
	json_t *action = json_pack("{s:s}", "kind", kind);
	if (c) {
		json_object_set_new(action, "label", json_string(c->name));
		json_object_set_new(action, "locator", locator_json(c));
		json_object_set_new(action, "candidateSignature", json_string(c->sig));
	}
	json_t *e = json_pack("{s:s,s:s?,s:o,s:s,s:o}", "from", r->nodes[from].sig, "to", to >= 0 ? r->nodes[to].sig : NULL,
	                      "action", action, "outcome", outcome, "evidence", evidence ? evidence : json_array());
	json_array_append_new(r->edges, e);
}

/* The graph as JSON text (redacted by the caller). */
static json_t *graph_json(ex_run *r, const char *job_id)
{
	json_t *nodes = json_array();
	for (size_t i = 0; i < r->n_nodes; i++) {
		ex_node *n = &r->nodes[i];
		json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:O}", "signature", n->sig, "title", n->title, "activity",
		                      n->activity, "health", n->health, "visits", n->visits, "depth", (int)n->depth,
		                      "elements", n->elements);
		if (o && n->blocked)
			json_object_set_new(o, "blocked", json_string(n->blocked));
		json_array_append_new(nodes, o);
	}
	char fin[SW_ISO_TIME_SIZE];
	sw_iso_time(sw_wall_ms(), fin);
	return json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:O}", "schemaVersion", 1, "jobId", job_id, "sessionId",
	                 sw_session_id(r->s), "appId", r->app_id ? r->app_id : "", "startedAt", r->started, "finishedAt",
	                 fin, "stoppedReason", r->stopped ? r->stopped : "completed", "nodes", nodes, "edges", r->edges);
}

static void md_cell(sw_buf *b, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		if (*p == '|')
			sw__buf_puts(b, "\\|");
		else if (*p == '\n' || *p == '\r')
			sw__buf_putc(b, ' ');
		else
			sw__buf_putc(b, *p);
	}
}

static char *graph_markdown(ex_run *r, const char *job_id)
{
	sw_buf b = {0};
	sw__buf_printf(&b, "# Screen graph of %s\n\nJob %s, stopped: %s. %zu screens, %zu transitions, %ld actions.\n\n",
	               r->app_id ? r->app_id : "the app", job_id, r->stopped ? r->stopped : "completed", r->n_nodes,
	               json_array_size(r->edges), r->actions);
	sw__buf_puts(&b, "## Screens\n\n| Signature | Title | Activity | Health | Depth | Controls |\n|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->n_nodes; i++) {
		ex_node *n = &r->nodes[i];
		sw__buf_printf(&b, "| %s | ", n->sig);
		md_cell(&b, n->title);
		sw__buf_puts(&b, " | ");
		md_cell(&b, n->activity);
		sw__buf_printf(&b, " | %s%s%s | %ld | ", n->health, n->blocked ? ", blocked: " : "",
		               n->blocked ? n->blocked : "", n->depth);
		size_t k;
		json_t *el;
		json_array_foreach(n->elements, k, el)
		{
			if (k)
				sw__buf_puts(&b, "; ");
			md_cell(&b, json_string_value(json_object_get(el, "label")));
			sw__buf_printf(&b, " (%s)", json_string_value(json_object_get(el, "risk")));
		}
		sw__buf_puts(&b, " |\n");
	}
	sw__buf_puts(&b, "\n## Transitions\n\n| From | Action | To | Outcome |\n|---|---|---|---|\n");
	size_t i;
	json_t *e;
	json_array_foreach(r->edges, i, e)
	{
		json_t *a = json_object_get(e, "action");
		sw__buf_printf(&b, "| %s | %s ", json_string_value(json_object_get(e, "from")),
		               json_string_value(json_object_get(a, "kind")));
		md_cell(&b, json_string_value(json_object_get(a, "label")));
		sw__buf_printf(&b, " | %s | %s |\n", (json_string_value(json_object_get(e, "to")) ? json_string_value(json_object_get(e, "to")) : "-"),
		               json_string_value(json_object_get(e, "outcome")));
	}
	return sw__buf_steal(&b, NULL);
}

/* Writes graph.json and graph.md (redacted, atomically) and saves the JSON as an artifact; returns its uri. */
static char *write_graph(ex_run *r, const char *job_id, char **md_uri, json_t *warnings)
{
	*md_uri = NULL;
	json_t *g = graph_json(r, job_id);
	char *text = g ? sw__json_pretty(g) : NULL;
	json_decref(g);
	char *md = graph_markdown(r, job_id);
	char *rtext = text ? ap_redact(r->s, text) : NULL, *rmd = md ? ap_redact(r->s, md) : NULL;
	free(text);
	free(md);
	char *uri = NULL;
	if (!rtext || !rmd) {
		json_array_append_new(warnings, json_string("the graph could not be built (out of memory)"));
		goto out;
	}
	char *dir = sw__asprintf("%s/explore/%s", sw_session_dir(r->s), job_id);
	sw_error *e = NULL;
	if (!dir || sw__mkdirs(dir, 0700, &e) < 0) {
		json_array_append_new(warnings, json_string("the explore folder could not be created"));
		sw_error_free(e);
		free(dir);
		goto out;
	}
	char *pj = sw__asprintf("%s/graph.json", dir), *pm = sw__asprintf("%s/graph.md", dir);
	if (!pj || !pm || sw_file_write_atomic(pj, rtext, strlen(rtext), 0, &e) < 0 ||
	    sw_file_write_atomic(pm, rmd, strlen(rmd), 0, &e) < 0) {
		json_array_append_new(warnings, json_string(e ? sw_error_message(e) : "the graph could not be written"));
		sw_error_free(e);
		e = NULL;
	}
	free(pj);
	free(pm);
	free(dir);
	char *name = sw__asprintf("graph-%s.json", job_id), *mname = sw__asprintf("graph-%s.md", job_id);
	char *meta = NULL;
	if (name && sw_artifact_save(r->s, "explore", name, "application/json", rtext, strlen(rtext), "qa_explore screen graph",
	                             &meta, &e) == SW_OK) {
		json_t *m = json_loads(meta, 0, NULL);
		uri = sw__strdup(json_string_value(json_object_get(m, "uri")));
		json_decref(m);
	}
	sw_free(meta);
	meta = NULL;
	sw_error_free(e);
	e = NULL;
	if (mname && sw_artifact_save(r->s, "explore", mname, "text/markdown", rmd, strlen(rmd), "qa_explore screen graph",
	                              &meta, &e) == SW_OK) {
		json_t *m = json_loads(meta, 0, NULL);
		*md_uri = sw__strdup(json_string_value(json_object_get(m, "uri")));
		json_decref(m);
	}
	sw_free(meta);
	sw_error_free(e);
	free(name);
	free(mname);
out:
	free(rtext);
	free(rmd);
	return uri;
}

/* ---- device steps --------------------------------------------------------------------------------------- */

/* The foreground activity, read once (at the start and after a relaunch). */
static void read_activity(ex_run *r)
{
	char *fg = NULL;
	if (sw_device_foreground(sw_drive_device(r->d), &fg, NULL) == SW_OK) {
		json_t *j = json_loads(fg, 0, NULL);
		const char *a = json_string_value(json_object_get(j, "activity"));
		free(r->last_activity);
		r->last_activity = sw__strdup(a ? a : "");
		json_decref(j);
	}
	sw_free(fg);
}

static void activity_from(ex_run *r, json_t *act)
{
	const char *a = json_string_value(json_object_get(json_object_get(json_object_get(act, "health"), "foreground"),
	                                                  "activity"));
	if (a) {
		free(r->last_activity);
		r->last_activity = sw__strdup(a);
	}
}

/* A fresh look at the screen (never the dump the last action settled on: a launch happened since). */
static int snapshot(ex_run *r, ap_screen *v, sw_error **err)
{
	return ap_screen_fresh(r->d, r->app_id, v, err);
}

/* One qa_act through the drive (recorded in the session's recordedActions, health checked after it). */
static int act(ex_run *r, json_t *args, json_t **res, sw_error **err)
{
	int rc = ap_drive_act(r->d, args, res, err);
	if (rc == SW_OK)
		activity_from(r, *res);
	return rc;
}

/* Force-stops (after a crash or ANR, or to leave a prompt) and launches the app again. */
static int relaunch(ex_run *r, bool force_stop, sw_error **err)
{
	if (!r->app_id || !*r->app_id)
		return sw__error_set(err, SW_EDEVICE, "APP_LAUNCH_FAILED", NULL,
		                     "the app cannot be relaunched: the session has no appId");
	r->relaunches++;
	sw_device *dev = sw_drive_device(r->d);
	if (force_stop && !cancelled(r)) {
		sw_error *e = NULL;
		if (sw_device_force_stop(dev, r->app_id, &e) < 0)
			sw_error_free(e);
	}
	if (cancelled(r))
		return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_explore was cancelled");
	int rc = sw_device_launch(dev, r->app_id, err);
	if (rc == SW_OK)
		read_activity(r);
	return rc;
}

static const char *crash_kind(json_t *act_res)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(json_object_get(act_res, "health"), "findings"), i, f)
	{
		const char *k = json_string_value(json_object_get(f, "kind"));
		if (k && !strcmp(k, "anr"))
			return "anr";
		if (k && !strcmp(k, "native_crash"))
			return "crash";
	}
	return NULL;
}

/* Saves the health findings of a crash as evidence; returns [uri] (or []). */
static json_t *save_evidence(ex_run *r, json_t *act_res, const char *kind)
{
	json_t *ev = json_array();
	json_t *h = json_object_get(act_res, "health");
	char *text = h ? sw__json_pretty(json_object_get(h, "findings")) : NULL;
	if (!text)
		return ev;
	char *name = NULL, *meta = NULL;
	if (sw_artifact_next_name(r->s, "explore", kind, ".json", &name, NULL) == SW_OK &&
	    sw_artifact_save(r->s, "explore", name, "application/json", text, strlen(text),
	                     "qa_explore health evidence (logcat and screen)", &meta, NULL) == SW_OK) {
		json_t *m = json_loads(meta, 0, NULL);
		if (json_string_value(json_object_get(m, "uri")))
			json_array_append(ev, json_object_get(m, "uri"));
		json_decref(m);
	}
	sw_free(name);
	sw_free(meta);
	free(text);
	return ev;
}

/* May the safe mode touch @c here? */
static bool allowed(ex_run *r, const ex_node *n, const ap_control *c)
{
	if (c->foreign)
		return false;
	if (c->edit)
		return false; /* text entry is handled apart (includeTextEntry) */
	if (!strcmp(c->risk, "safe"))
		return true;
	if (!strcmp(c->risk, "unknown"))
		return !strcmp(r->o.safe_mode, "balanced");
	/* destructive: only the approved candidate, once, on its screen */
	return r->approved_sig && !r->approved_done && !strcmp(c->sig, r->approved_sig) &&
	       !strcmp(n->sig, r->approved_screen);
}

static void remember_candidates(ex_run *r, const ap_screen *v)
{
	for (size_t i = 0; i < v->n; i++) {
		const ap_control *c = &v->c[i];
		if (strcmp(c->risk, "destructive") != 0 || c->foreign)
			continue;
		bool seen = false;
		size_t k;
		json_t *o;
		json_array_foreach(r->candidates, k, o)
		{
			if (!strcmp(json_string_value(json_object_get(o, "candidateSignature")), c->sig) &&
			    !strcmp(json_string_value(json_object_get(o, "screenSignature")), v->sig))
				seen = true;
		}
		if (!seen)
			json_array_append_new(r->candidates,
			                      json_pack("{s:s,s:s,s:s,s:o,s:s}", "screenSignature", v->sig, "candidateSignature",
			                                c->sig, "label", c->name, "locator", locator_json(c), "riskClass",
			                                c->klass ? c->klass : "destructive"));
	}
}

static bool has_w(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

/* Text fields the explorer may fill: a value source (a ${SWIPIUM_*} input) or they are skipped, said so. */
static const char *field_input(const ap_control *c)
{
	if (has_w(c->name, "password") || c->secure)
		return "SWIPIUM_TEST_PASSWORD";
	if (has_w(c->name, "email") || has_w(c->name, "e-mail"))
		return "SWIPIUM_TEST_EMAIL";
	if (has_w(c->name, "user"))
		return "SWIPIUM_TEST_USERNAME";
	if (has_w(c->name, "search"))
		return "SWIPIUM_TEST_SEARCH";
	if (has_w(c->name, "phone"))
		return "SWIPIUM_TEST_PHONE";
	return NULL;
}

/* Payment and identity fields: never typed into, whatever value there is. */
static bool risky_field(const ap_control *c)
{
	if (!strcmp(c->risk, "destructive"))
		return true;
	static const char *const words[] = {"card", "cvv", "cvc", "iban", "routing", "account number", "social security",
	                                    "ssn", "expiry", "expiration", "billing", "tax id", NULL};
	for (size_t i = 0; words[i]; i++)
		if (has_w(c->risk_text, words[i]) || has_w(c->name, words[i]) || has_w(c->res_id, words[i]))
			return true;
	return false;
}

/* Lower-case letters and digits of @in, the rest dropped ("Promo code" -> "promocode"). */
static void fold_key(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (const char *p = in ? in : ""; *p && n + 1 < cap; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
			out[n++] = *p;
		else if (*p >= 'A' && *p <= 'Z')
			out[n++] = (char)(*p - 'A' + 'a');
	out[n] = '\0';
}

/* The key a field is typed once by: its resource id, else its locator. */
static void field_key(const ap_control *c, char *out, size_t cap)
{
	sw_text_snprintf(out, cap, "%s", c->res_id && *c->res_id ? c->res_id : c->loc_value ? c->loc_value : c->sig);
}

typedef struct ex_value {
	char *text;         /* what is typed: "${NAME}" (resolved by the drive) or a plain non-secret value */
	const char *source; /* fixture | answered | environment | generated */
	char *input;        /* the variable name, or NULL */
	bool secret;
} ex_value;

static void value_free(ex_value *v)
{
	free(v->text);
	free(v->input);
	memset(v, 0, sizeof(*v));
}

/* A SWIPIUM_* name made from a fixture field's key ("promo code" -> SWIPIUM_FIXTURE_PROMO_CODE). */
static char *fixture_var(const char *key)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "SWIPIUM_FIXTURE_");
	bool us = false;
	for (const char *p = key; *p && b.len < 64; p++) {
		char ch = *p;
		if (ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		if ((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) {
			sw__buf_putc(&b, ch);
			us = false;
		} else if (!us) {
			sw__buf_putc(&b, '_');
			us = true;
		}
	}
	return sw__buf_steal(&b, NULL);
}

static bool valid_var(const char *v)
{
	if (!v || !sw__str_has_prefix(v, "SWIPIUM_") || !v[8])
		return false;
	for (const char *p = v; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* A field of a session fixture that matches @c (its key found in the field's name or resource id). */
static bool fixture_value(ex_run *r, const ap_control *c, ex_value *out)
{
	char name[256], rid[256];
	fold_key(c->name, name, sizeof(name));
	fold_key(c->res_id, rid, sizeof(rid));
	size_t i;
	json_t *f;
	json_array_foreach(r->fixtures, i, f)
	{
		const char *k;
		json_t *fld;
		json_object_foreach(json_object_get(f, "fields"), k, fld)
		{
			char key[128];
			fold_key(k, key, sizeof(key));
			if (!*key || (!strstr(name, key) && !strstr(rid, key)))
				continue;
			const char *value = json_string_value(json_object_get(fld, "value"));
			const char *var = json_string_value(json_object_get(fld, "var"));
			bool secret = json_is_true(json_object_get(fld, "secret")) || sw_redact_is_secret_name(k) ||
			              (var && sw_redact_is_secret_name(var)) || c->secure;
			if (var && !valid_var(var))
				var = NULL;
			if (value && *value) {
				if (!secret) {
					out->text = sw__strdup(value);
				} else {
					/* a secret is typed through a placeholder: the value lives in the session's memory only */
					out->input = var ? sw__strdup(var) : fixture_var(k);
					sw_redactor_add_secret(sw_session_redactor(r->s), value, NULL);
					if (out->input && sw_session_input_set(r->s, out->input, value, NULL) == SW_OK)
						out->text = sw__asprintf("${%s}", out->input);
				}
			} else if (var) {
				char *have = sw_session_input_get(r->s, var);
				if (have || getenv(var)) {
					out->input = sw__strdup(var);
					out->text = sw__asprintf("${%s}", var);
				}
				free(have);
			}
			if (out->text) {
				out->source = "fixture";
				out->secret = secret;
				return true;
			}
			value_free(out);
		}
	}
	return false;
}

static char *random_secret(void)
{
	static const char set[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
	unsigned char raw[20];
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return NULL;
	char *p = malloc(sizeof(raw) + 1);
	if (!p)
		return NULL;
	for (size_t i = 0; i < sizeof(raw); i++)
		p[i] = set[raw[i] % (sizeof(set) - 1)];
	p[sizeof(raw) - 2] = '7';
	p[sizeof(raw) - 1] = '#';
	p[sizeof(raw)] = '\0';
	return p;
}

/* Generated disposable data (allowGeneratedData, and only in a test or staging environment). */
static bool generated_value(ex_run *r, const char *input, ex_value *out)
{
	if (!r->o.allow_generated || !r->env || (strcmp(r->env, "test") != 0 && strcmp(r->env, "staging") != 0))
		return false;
	const char *name = NULL;
	char *value = NULL;
	bool secret = false;
	if (!strcmp(input, "SWIPIUM_TEST_PASSWORD")) {
		name = "SWIPIUM_TEST_PASSWORD";
		value = random_secret();
		secret = true;
	} else if (!strcmp(input, "SWIPIUM_TEST_EMAIL")) {
		name = "SWIPIUM_TEST_EMAIL";
		value = sw__asprintf("swipium.explore.%lld@example.com", (long long)sw_wall_ms());
	} else if (!strcmp(input, "SWIPIUM_TEST_USERNAME")) {
		name = "SWIPIUM_GEN_USERNAME";
		value = sw__asprintf("swipium_%lld", (long long)(sw_wall_ms() % 1000000000LL));
	} else if (!strcmp(input, "SWIPIUM_TEST_SEARCH")) {
		name = "SWIPIUM_GEN_SEARCH";
		value = sw__strdup("test");
	} else if (!strcmp(input, "SWIPIUM_TEST_PHONE")) {
		name = "SWIPIUM_GEN_PHONE";
		value = sw__strdup("5550100");
	}
	if (!name || !value) {
		free(value);
		return false;
	}
	if (secret)
		sw_redactor_add_secret(sw_session_redactor(r->s), value, NULL);
	int rc = sw_session_input_set(r->s, name, value, NULL);
	json_t *gen = secret ? json_pack("{s:s,s:b,s:s}", "name", name, "secret", 1, "source", "qa_explore")
	                     : json_pack("{s:s,s:s,s:s}", "name", name, "value", value, "source", "qa_explore");
	(void)sw__session_append(r->s, "generatedValues", gen, NULL);
	json_decref(gen);
	explicit_bzero(value, strlen(value));
	free(value);
	if (rc != SW_OK)
		return false;
	out->input = sw__strdup(name);
	out->text = sw__asprintf("${%s}", name);
	out->source = "generated";
	out->secret = secret;
	return out->text != NULL;
}

/* The value @c may be typed with, or NULL and why not (static text). */
static const char *value_for(ex_run *r, const ap_control *c, ex_value *out)
{
	memset(out, 0, sizeof(*out));
	if (!r->o.include_text)
		return "includeTextEntry is false";
	if (risky_field(c))
		return "risky field (payment or identity data): never typed";
	if (fixture_value(r, c, out))
		return NULL;
	const char *input = field_input(c);
	if (input) {
		char *answered = sw_session_input_get(r->s, input);
		bool env = !answered && getenv(input) && *getenv(input);
		free(answered);
		if (answered || env) {
			out->input = sw__strdup(input);
			out->text = sw__asprintf("${%s}", input);
			out->source = answered ? "answered" : "environment";
			out->secret = sw_redact_is_secret_name(input) || c->secure;
			return NULL;
		}
		if (!strcmp(input, "SWIPIUM_TEST_SEARCH")) {
			/* a fixture's plain `value` is the non-secret input for exploration (a search term) */
			size_t i;
			json_t *f;
			json_array_foreach(r->fixtures, i, f)
			{
				const char *v = json_string_value(json_object_get(f, "value"));
				if (v && *v) {
					out->text = sw__strdup(v);
					out->source = "fixture";
					return NULL;
				}
			}
		}
		if (generated_value(r, input, out))
			return NULL;
		return "no value source: the input is not set";
	}
	return "no value source for this field";
}

/* On arrival: every field judged once; those without a value are listed in skippedFields with the reason. */
static void note_fields(ex_run *r, const ex_node *n, const ap_screen *v)
{
	for (size_t i = 0; i < v->n; i++) {
		const ap_control *c = &v->c[i];
		if (!c->edit || json_object_get(n->tried, c->sig))
			continue;
		char key[300];
		field_key(c, key, sizeof(key));
		if (json_object_get(r->typed_keys, key))
			continue;
		ex_value val;
		const char *why = n->blocked ? "the screen is a sign-in wall or a prompt: nothing is typed there"
		                             : value_for(r, c, &val);
		if (why) {
			json_object_set_new(n->tried, c->sig, json_true());
			json_array_append_new(r->skipped, json_pack("{s:s,s:s,s:s,s:s*}", "screenSignature", v->sig, "field",
			                                            c->name, "reason", why, "input", field_input(c)));
		} else {
			json_object_set_new(n->tried, c->sig, json_string("fill"));
			value_free(&val);
		}
	}
}

/* ---- the crawl ------------------------------------------------------------------------------------------ */

/* The job's progress after each action: counts only (labels are app text and stay out of progress). */
static void report_progress(ex_run *r)
{
	if (!r->progress)
		return;
	char msg[160];
	sw_text_snprintf(msg, sizeof(msg), "explore: %ld of %ld actions, %zu screen%s", r->actions, r->o.max_actions,
	                 r->n_nodes, r->n_nodes == 1 ? "" : "s");
	json_t *d = json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,s:b}", "phase", "explore", "statusText", msg, "actions",
	                      (int)r->actions, "maxActions", (int)r->o.max_actions, "screens", (int)r->n_nodes,
	                      "findings", (int)json_array_size(r->findings), "userActionRequired", 0);
	char *dj = d ? sw__json_compact(d) : NULL;
	json_decref(d);
	(void)sw_job_set_progress(r->progress, msg, dj, NULL);
	free(dj);
}

static bool limits_reached(ex_run *r)
{
	if (cancelled(r)) {
		r->stopped = "cancelled";
		return true;
	}
	if (r->actions >= r->o.max_actions) {
		r->stopped = "max_actions";
		return true;
	}
	if (sw_monotonic_ms() - r->t0 >= r->o.max_ms) {
		r->stopped = "max_duration";
		return true;
	}
	char *why = NULL;
	if (sw_session_budget_exhausted(r->s, &why)) {
		sw_free(why);
		r->stopped = "budget";
		return true;
	}
	sw_free(why);
	return false;
}

/* After a device step: where are we now? Reads the screen and records the node. */
static long arrive(ex_run *r, ap_screen *v, long depth, long parent)
{
	long at = node_add(r, v, depth, parent);
	if (at >= 0 && !strcmp(r->o.safe_mode, "dry_run_destructive"))
		remember_candidates(r, v);
	if (at >= 0)
		note_fields(r, &r->nodes[at], v);
	return at;
}

static int crawl(ex_run *r, sw_error **err)
{
	ap_screen v;
	int rc;
	if (cancelled(r)) {
		r->stopped = "cancelled";
		return SW_OK;
	}
	if ((rc = snapshot(r, &v, err)) < 0)
		return rc;
	read_activity(r);
	if (r->app_id && *r->app_id && strcmp(v.pkg, r->app_id) != 0 && !v.permission_prompt) {
		/* the app is not in front: launch it once */
		ap_screen_free(&v);
		if ((rc = relaunch(r, false, err)) < 0)
			return rc;
		r->relaunches--; /* the first launch is not a relaunch */
		if ((rc = snapshot(r, &v, err)) < 0)
			return rc;
		if (strcmp(v.pkg, r->app_id) != 0) {
			ap_screen_free(&v);
			r->state = "blocked";
			r->stopped = "app_not_in_foreground";
			return SW_OK;
		}
	}
	r->cur = arrive(r, &v, 0, -1);
	for (;;) {
		if (r->cur < 0) {
			ap_screen_free(&v);
			return sw__error_nomem(err);
		}
		ex_node *n = &r->nodes[r->cur];
		if ((long)r->n_nodes > r->o.max_screens) {
			r->stopped = "max_screens";
			break;
		}
		if (n->blocked && (!strcmp(n->blocked, "login_wall") || !strcmp(n->blocked, "otp"))) {
			if (r->o.stop_on_auth) {
				/* nothing is typed or touched here: the agent is asked for credentials */
				r->state = "needs_input";
				r->stopped = "auth_wall";
				bool otp = !strcmp(n->blocked, "otp");
				r->needs_input = json_pack(
				    "{s:s,s:s,s:[{s:s,s:s,s:b},{s:s,s:s,s:b}],s:{s:s,s:s}}", "kind",
				    otp ? "otp" : "credentials", "question",
				    otp ? "The app asks for a one-time code. What code should be entered?"
				        : "The app shows a sign-in screen. Which test account should the explorer use?",
				    "fields", "name", otp ? "otp" : "SWIPIUM_TEST_USERNAME", "type", "string", "secret", otp,
				    "name", otp ? "-" : "SWIPIUM_TEST_PASSWORD", "type", "string", "secret", true, "resume",
				    "tool", "qa_explore", "note", "answer with qa_continue_from_blocker, then call qa_explore again");
				if (otp)
					json_array_remove(json_object_get(r->needs_input, "fields"), 1);
				break;
			}
		}
		if (r->planned && r->goal_node < 0 && goal_screen(r, n->title, n->activity)) {
			r->goal_node = r->cur;
			r->goal_actions = r->actions;
			if (!strcmp(r->o.strategy, "task_planner")) {
				r->stopped = "goal_reached";
				break;
			}
		}
		if (limits_reached(r))
			break;
		/* the next control to touch */
		const ap_control *pick = NULL;
		bool at_limit = n->depth >= r->o.depth;
		bool wall = n->blocked != NULL; /* login walls (stopOnAuth false) and prompts: nothing is touched */
		/* includeTextEntry: a field with a value source is typed first (once per field and crawl) */
		const ap_control *field = NULL;
		for (size_t i = 0; i < v.n && !at_limit && !wall && r->o.include_text; i++) {
			const char *mark = json_string_value(json_object_get(n->tried, v.c[i].sig));
			if (v.c[i].edit && mark && !strcmp(mark, "fill")) {
				field = &v.c[i];
				break;
			}
		}
		if (field) {
			json_object_set_new(n->tried, field->sig, json_true());
			char key[300];
			field_key(field, key, sizeof(key));
			json_object_set_new(r->typed_keys, key, json_true());
			ex_value val;
			const char *why = value_for(r, field, &val);
			if (why) {
				json_array_append_new(r->skipped, json_pack("{s:s,s:s,s:s}", "screenSignature", v.sig, "field",
				                                            field->name, "reason", why));
				continue;
			}
			json_t *target = ap_control_target(field);
			json_t *args = json_pack("{s:s,s:o,s:s,s:s}", "action", "type", "target", target, "text", val.text,
			                         "observe", "none");
			ap_control copy;
			ap_control_keep(&copy, field);
			json_t *tres = NULL;
			sw_error *e = NULL;
			rc = act(r, args, &tres, &e);
			json_decref(args);
			json_decref(tres);
			r->actions++;
			report_progress(r);
			long from = r->cur;
			if (rc < 0) {
				const char *code = e ? sw_error_failure_code(e) : "UNKNOWN";
				bool stop = !strcmp(code, "CANCELLED") || cancelled(r);
				if (!stop) {
					json_array_append_new(r->warnings, json_pack("{s:s,s:s,s:s}", "label", copy.name, "failureCode",
					                                             code, "message", e ? sw_error_message(e) : ""));
					edge_add(r, from, -1, "type", &copy, "error", NULL);
				}
				sw_error_free(e);
			} else {
				json_array_append_new(r->typed, json_pack("{s:s,s:s,s:s,s:s*,s:b}", "screenSignature", v.sig, "field",
				                                          copy.name, "source", val.source, "input", val.input,
				                                          "secret", val.secret));
				edge_add(r, from, from, "type", &copy, "same_screen", NULL);
			}
			ap_control_drop(&copy);
			value_free(&val);
			if (rc < 0) {
				if (cancelled(r) || r->stopped) {
					r->stopped = "cancelled";
					break;
				}
				continue;
			}
			/* the field now shows what was typed: the same screen, read again (its controls keep their marks) */
			ap_screen_free(&v);
			if ((rc = ap_screen_read(r->d, r->app_id, &v, err)) < 0)
				return rc;
			continue;
		}
		int best = 0;
		for (size_t i = 0; i < v.n && !at_limit && !wall; i++) {
			const ap_control *c = &v.c[i];
			if (json_object_get(n->tried, c->sig) || !allowed(r, n, c))
				continue;
			if (!r->planned) {
				pick = c;
				break;
			}
			/* task_planner / hybrid: the control sharing most words with the goal first, else the crawl's order */
			int sc = goal_score(r, c->name) + goal_score(r, c->res_id);
			if (!pick || sc > best) {
				pick = c;
				best = sc;
			}
		}
		if (pick && r->approved_sig && !strcmp(pick->sig, r->approved_sig))
			r->approved_done = true;
		json_t *res = NULL;
		if (pick) {
			json_object_set_new(n->tried, pick->sig, json_true());
			json_t *target = ap_control_target(pick);
			json_t *args = json_pack("{s:s,s:o,s:s}", "action", "tap", "target", target, "observe", "none");
			ap_control copy; /* v is replaced below */
			ap_control_keep(&copy, pick);
			long from = r->cur;
			sw_error *e = NULL;
			rc = act(r, args, &res, &e);
			json_decref(args);
			r->actions++;
			report_progress(r);
			if (rc < 0) {
				const char *code = e ? sw_error_failure_code(e) : "UNKNOWN";
				if (!strcmp(code, "CANCELLED") || cancelled(r)) {
					r->stopped = "cancelled";
					sw_error_free(e);
					ap_control_drop(&copy);
					break;
				}
				json_array_append_new(r->warnings,
				                      json_pack("{s:s,s:s,s:s}", "label", copy.name, "failureCode", code, "message",
				                                e ? sw_error_message(e) : ""));
				edge_add(r, from, -1, "tap", &copy, "error", NULL);
				sw_error_free(e);
				ap_control_drop(&copy);
				continue; /* tried; the screen stays */
			}
			const char *crash = crash_kind(res);
			ap_screen_free(&v);
			if (crash) {
				json_t *ev = save_evidence(r, res, crash);
				r->nodes[from].health = crash;
				edge_add(r, from, -1, "tap", &copy, crash, json_incref(ev));
				bool stop = r->relaunches >= MAX_RELAUNCHES;
				json_array_append_new(
				    r->findings,
				    json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:O,s:s}", "kind", !strcmp(crash, "anr") ? "anr" : "native_crash",
				              "failureCode", !strcmp(crash, "anr") ? "ANR" : "NATIVE_CRASH", "severity", "high",
				              "screenSignature", r->nodes[from].sig, "action", copy.name, "locator",
				              locator_json(&copy), "evidence", ev, "recovery", stop ? "stopped" : "relaunched"));
				json_decref(ev);
				ap_control_drop(&copy);
				json_decref(res);
				if (stop) {
					r->stopped = "crash_loop";
					return SW_OK;
				}
				if (cancelled(r)) {
					r->stopped = "cancelled";
					return SW_OK;
				}
				if ((rc = relaunch(r, true, err)) < 0)
					return rc;
				if (cancelled(r)) {
					r->stopped = "cancelled";
					return SW_OK;
				}
				if ((rc = snapshot(r, &v, err)) < 0)
					return rc;
				long known = node_find(r, v.sig);
				r->cur = arrive(r, &v, known >= 0 ? r->nodes[known].depth : 0, -1);
				continue;
			}
			if ((rc = ap_screen_read(r->d, r->app_id, &v, err)) < 0) {
				ap_control_drop(&copy);
				json_decref(res);
				return rc;
			}
			long known = node_find(r, v.sig);
			long to = arrive(r, &v, known >= 0 ? r->nodes[known].depth : r->nodes[from].depth + 1, from);
			edge_add(r, from, to, "tap", &copy, to == from ? "same_screen" : "new_screen", NULL);
			ap_control_drop(&copy);
			json_decref(res);
			r->cur = to;
			/* a permission prompt goes to the guardrails: nothing there is touched, the app is force-stopped and
			 * relaunched; a tap that left the app launches it again */
			bool prompt = to >= 0 && r->nodes[to].blocked && !strcmp(r->nodes[to].blocked, "permission_prompt");
			if (prompt || (r->app_id && *r->app_id && strcmp(v.pkg, r->app_id) != 0)) {
				ap_screen_free(&v);
				if (cancelled(r)) {
					r->stopped = "cancelled";
					return SW_OK;
				}
				if ((rc = relaunch(r, prompt, err)) < 0)
					return rc;
				if ((rc = snapshot(r, &v, err)) < 0)
					return rc;
				long k2 = node_find(r, v.sig);
				r->cur = arrive(r, &v, k2 >= 0 ? r->nodes[k2].depth : 0, -1);
			}
			continue;
		}
		/* nothing left here: back to where we came from */
		if (n->depth == 0 || n->parent < 0) {
			if (!at_limit && !wall) {
				r->stopped = "exhausted";
				break;
			}
			if (n->parent < 0 && n->depth == 0) {
				r->stopped = wall ? "auth_wall" : "exhausted";
				if (wall)
					r->state = "blocked";
				break;
			}
		}
		if (r->backs > 4 * (r->o.max_actions + 4)) {
			r->stopped = "exhausted";
			break;
		}
		if (cancelled(r)) {
			r->stopped = "cancelled";
			break;
		}
		long from = r->cur;
		json_t *args = json_pack("{s:s,s:s,s:s}", "action", "press", "key", "back", "observe", "none");
		sw_error *e = NULL;
		rc = act(r, args, &res, &e);
		json_decref(args);
		r->backs++;
		ap_screen_free(&v);
		if (rc < 0) {
			if (cancelled(r) || (e && !strcmp(sw_error_failure_code(e), "CANCELLED"))) {
				sw_error_free(e);
				r->stopped = "cancelled";
				return SW_OK;
			}
			sw__error_propagate(err, e);
			return rc;
		}
		json_decref(res);
		if ((rc = ap_screen_read(r->d, r->app_id, &v, err)) < 0)
			return rc;
		if (r->app_id && *r->app_id && strcmp(v.pkg, r->app_id) != 0 && !v.permission_prompt) {
			ap_screen_free(&v);
			if (cancelled(r)) {
				r->stopped = "cancelled";
				return SW_OK;
			}
			if ((rc = relaunch(r, false, err)) < 0)
				return rc;
			if ((rc = snapshot(r, &v, err)) < 0)
				return rc;
		}
		long known = node_find(r, v.sig);
		long parent = r->nodes[from].parent;
		long to = arrive(r, &v, known >= 0 ? r->nodes[known].depth : (parent >= 0 ? r->nodes[parent].depth : 0),
		                 known >= 0 ? r->nodes[known].parent : (parent >= 0 ? r->nodes[parent].parent : -1));
		edge_add(r, from, to, "back", NULL, "back", NULL);
		if (to == from) {
			/* back did nothing: this screen is a dead end for the crawl */
			r->nodes[from].parent = -1;
			if (r->nodes[from].depth == 0) {
				r->stopped = "exhausted";
				break;
			}
			r->nodes[from].depth = 0;
		}
		r->cur = to;
	}
	ap_screen_free(&v);
	return SW_OK;
}

static json_t *suite_promotion(ex_run *r)
{
	size_t new_edges = 0;
	size_t i;
	json_t *e;
	json_array_foreach(r->edges, i, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "outcome")), "new_screen"))
			new_edges++;
	}
	long score = (long)(r->n_nodes * 10 + new_edges * 5);
	if (score > 100)
		score = 100;
	json_t *reasons = json_array();
	char *a = sw__asprintf("%zu screens and %zu transitions to new screens were recorded", r->n_nodes, new_edges);
	json_array_append_new(reasons, json_string(a ? a : ""));
	free(a);
	if (json_array_size(r->findings))
		json_array_append_new(reasons, json_string("crashes or ANRs were found: promote after they are fixed"));
	bool promote = score >= 40 && json_array_size(r->findings) == 0 && r->n_nodes >= 2;
	return json_pack("{s:i,s:b,s:o,s:s}", "score", (int)score, "promote", promote, "reasons", reasons, "next",
	                 promote ? "qa_generate can turn the recorded taps into a suite"
	                         : "explore more (a larger maxActions, or past the login wall) before generating a suite");
}

static void save_exploration_state(ex_run *r, const char *job_id, const char *graph_uri)
{
	json_t *ex = state_get(r->s, "exploration");
	if (!json_is_object(ex)) {
		json_decref(ex);
		ex = json_object();
	}
	json_object_set_new(ex, "lastJobId", json_string(job_id));
	if (graph_uri)
		json_object_set_new(ex, "graphUri", json_string(graph_uri));
	if (!strcmp(r->o.safe_mode, "dry_run_destructive"))
		json_object_set(ex, "destructiveCandidates", r->candidates);
	if (r->approved_done) {
		/* the approved candidate was used: it is not approved again without a new dry run */
		json_t *list = json_object_get(ex, "destructiveCandidates");
		size_t i;
		json_t *c;
		json_array_foreach(list, i, c)
		{
			if (!strcmp(str0(json_string_value(json_object_get(c, "candidateSignature"))), r->approved_sig)) {
				json_array_remove(list, i);
				break;
			}
		}
	}
	sw__session_set(r->s, "exploration", ex, NULL);
	json_decref(ex);
}

/* The project's app map gets this crawl's screens and transitions (the graph just written, merged by the app map's
 * runtime_merge); a failure is said in the result, the crawl still counts. */
static json_t *update_app_map(ex_run *r, sw_ctx *ctx)
{
	if (r->n_nodes == 0 || !strcmp(r->stopped, "cancelled"))
		return json_pack("{s:b,s:s}", "updated", 0, "note",
		                 r->n_nodes ? "the crawl was cancelled: the app map was left as it was"
		                            : "no screen was seen: the app map was left as it was");
	json_t *req = json_pack("{s:s,s:s,s:s}", "mode", "runtime_merge", "sessionId", sw_session_id(r->s), "sessionDir",
	                        sw_session_dir(r->s));
	char *rj = req ? sw__json_compact(req) : NULL;
	json_decref(req);
	char *out = NULL;
	sw_error *e = NULL;
	int rc = rj ? sw_appmap_build(ctx, sw_session_root(r->s), rj, &out, &e) : sw__error_nomem(&e);
	free(rj);
	json_t *res;
	if (rc == SW_OK) {
		json_t *a = json_loads(out, 0, NULL);
		res = json_pack("{s:b,s:O*,s:O*}", "updated", 1, "uri", json_object_get(a, "uri"), "merged",
		                json_object_get(a, "merged"));
		json_decref(a);
	} else {
		res = json_pack("{s:b,s:s*,s:s}", "updated", 0, "failureCode", sw_error_failure_code(e), "note",
		                e ? sw_error_message(e) : "the app map could not be updated");
	}
	sw_free(out);
	sw_error_free(e);
	return res;
}

/* ---- generateSuite: the crawl's screens and transitions as canonical test cases ------------------------ */

static const char *node_name(const ex_node *n)
{
	if (n->title && *n->title)
		return n->title;
	if (n->activity && *n->activity) {
		const char *dot = strrchr(n->activity, '.');
		return dot && dot[1] ? dot + 1 : n->activity;
	}
	return n->sig;
}

/* The first tap that led to node @j (a new_screen edge), or NULL. */
static json_t *discovery_edge(ex_run *r, size_t j)
{
	size_t i;
	json_t *e;
	json_array_foreach(r->edges, i, e)
	{
		const char *to = json_string_value(json_object_get(e, "to"));
		if (to && !strcmp(to, r->nodes[j].sig) && !strcmp(str0(json_string_value(json_object_get(e, "outcome"))), "new_screen"))
			return e;
	}
	return NULL;
}

/* The steps from the launch to node @j ("Tap "X" on Y" each), or NULL when no tapped path is known. */
static json_t *path_steps(ex_run *r, size_t j, const char *app)
{
	json_t *rev = json_array();
	long at = (long)j;
	for (size_t guard = 0; at > 0 && guard <= r->n_nodes; guard++) {
		json_t *e = discovery_edge(r, (size_t)at);
		long from = e ? node_find(r, json_string_value(json_object_get(e, "from"))) : -1;
		if (from < 0 || from == at) {
			json_decref(rev);
			return NULL;
		}
		char *st = sw__asprintf("Tap \"%s\" on the %s screen",
		                        str0(json_string_value(json_object_get(json_object_get(e, "action"), "label"))),
		                        node_name(&r->nodes[from]));
		json_array_append_new(rev, json_string(st ? st : ""));
		free(st);
		at = from;
	}
	if (at != 0) {
		json_decref(rev);
		return NULL;
	}
	json_t *steps = json_array();
	char *launch = sw__asprintf("Launch %s from a fresh start", app);
	json_array_append_new(steps, json_string(launch ? launch : ""));
	free(launch);
	for (size_t k = json_array_size(rev); k > 0; k--)
		json_array_append(steps, json_array_get(rev, k - 1));
	json_decref(rev);
	return steps;
}

static json_t *screen_case(ex_run *r, size_t j, json_t *steps, const char *graph_uri)
{
	const char *name = node_name(&r->nodes[j]);
	char *title = j == 0 ? sw__asprintf("The app opens on the %s screen", name)
	                     : sw__asprintf("Reach the %s screen", name);
	char *objective = j == 0 ? sw__asprintf("Check that a fresh launch shows the %s screen without a crash or ANR", name)
	                         : sw__asprintf("Check that the %s screen opens from the path the explorer found", name);
	char *expected = sw__asprintf("The %s screen is shown (screen signature %s) and the app stays responsive", name,
	                              r->nodes[j].sig);
	json_t *c = json_pack("{s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:[s,s],s:s*}", "feature", name, "functionality", name,
	                      "title", title ? title : "", "objective", objective ? objective : "", "steps", steps,
	                      "expected", expected ? expected : "", "type", "navigation", "priority",
	                      j == 0 ? "high" : "medium", "screenId", r->nodes[j].sig, "tags", "exploration",
	                      "generated", "sourceUri", graph_uri);
	free(title);
	free(objective);
	free(expected);
	return c;
}

/* One case per screen reached by a known tapped path, one per crash/ANR transition; merged into
 * .swipium/test-suite.json through sw_suite_update (source exploration, mergeMode update: idempotent). */
static json_t *generate_suite(ex_run *r, const char *graph_uri)
{
	const char *app = r->app_id ? r->app_id : "the app";
	json_t *cases = json_array();
	size_t unreached = 0;
	for (size_t j = 0; j < r->n_nodes; j++) {
		if (r->nodes[j].blocked && j > 0)
			continue; /* a wall or prompt is a finding of the crawl, not a screen to test past */
		json_t *steps = path_steps(r, j, app);
		if (!steps) {
			unreached++;
			continue;
		}
		json_array_append_new(cases, screen_case(r, j, steps, graph_uri));
	}
	size_t i;
	json_t *e;
	json_array_foreach(r->edges, i, e)
	{
		const char *out = str0(json_string_value(json_object_get(e, "outcome")));
		if (strcmp(out, "native_crash") && strcmp(out, "anr") && strcmp(out, "crash"))
			continue;
		long from = node_find(r, str0(json_string_value(json_object_get(e, "from"))));
		json_t *steps = from >= 0 ? path_steps(r, (size_t)from, app) : NULL;
		if (!steps) {
			unreached++;
			continue;
		}
		const char *label = str0(json_string_value(json_object_get(json_object_get(e, "action"), "label")));
		const char *name = node_name(&r->nodes[from]);
		char *st = sw__asprintf("Tap \"%s\" on the %s screen", label, name);
		json_array_append_new(steps, json_string(st ? st : ""));
		free(st);
		char *title = sw__asprintf("Tapping \"%s\" on the %s screen does not %s", label, name,
		                           !strcmp(out, "anr") ? "freeze the app (ANR)" : "crash the app");
		json_array_append_new(
		    cases, json_pack("{s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:s,s:[s,s],s:s*}", "feature", name, "functionality",
		                     name, "title", title ? title : "", "objective", title ? title : "", "steps", steps,
		                     "expected", "The app stays open and responsive after the tap", "type", "regression",
		                     "priority", "high", "lastResult", "failed", "screenId", r->nodes[from].sig, "tags",
		                     "exploration", "generated", "sourceUri", graph_uri));
		free(title);
	}
	json_t *res;
	if (json_array_size(cases) == 0) {
		json_decref(cases);
		res = json_pack("{s:b,s:s}", "done", 0, "note",
		                "no screen was reached by a recorded tap: nothing was added to the test suite");
	} else {
		json_t *req = json_pack("{s:s,s:s*,s:s,s:o}", "source", "exploration", "sourceUri", graph_uri, "mergeMode",
		                        "update", "cases", cases);
		char *rj = req ? sw__json_compact(req) : NULL;
		json_decref(req);
		char *out = NULL;
		sw_error *err = NULL;
		int rc = rj ? sw_suite_update(sw_session_root(r->s), rj, sw_session_redactor(r->s), &out, &err)
		            : sw__error_nomem(&err);
		free(rj);
		if (rc == SW_OK) {
			json_t *u = json_loads(out, 0, NULL);
			res = json_pack("{s:b,s:O*,s:O*,s:O*,s:O*,s:O*,s:O*,s:O*}", "done", 1, "path", json_object_get(u, "path"),
			                "created", json_object_get(u, "created"), "updated", json_object_get(u, "updated"),
			                "unchanged", json_object_get(u, "unchanged"), "conflicts", json_object_get(u, "conflicts"),
			                "total", json_object_get(u, "total"), "notes", json_object_get(u, "notes"));
			json_decref(u);
		} else {
			res = json_pack("{s:b,s:s*,s:s}", "done", 0, "failureCode", sw_error_failure_code(err), "note",
			                err ? sw_error_message(err) : "the test suite could not be updated");
		}
		sw_free(out);
		sw_error_free(err);
	}
	if (res && unreached) {
		char *n = sw__asprintf("%zu screen%s or transition%s had no recorded tapped path from the start screen and "
		                       "got no case",
		                       unreached, unreached == 1 ? "" : "s", unreached == 1 ? "" : "s");
		json_object_set_new(res, "left", json_string(n ? n : ""));
		free(n);
	}
	if (res)
		json_object_set_new(res, "pomSuite", json_string("not written: this build merges canonical cases only; "
		                                                 "qa_generate writes page objects and flows"));
	return res;
}

SW_API int sw_explore_run(sw_ctx *ctx, sw_session *s, const char *args_json, sw_abort_fn cancel, void *cancel_ud,
                          const char *job_id, char **result_json, sw_error **err)
{
	return ap_explore_run(ctx, s, args_json, cancel, cancel_ud, job_id, NULL, result_json, err);
}

int ap_explore_run(sw_ctx *ctx, sw_session *s, const char *args_json, sw_abort_fn cancel, void *cancel_ud,
                   const char *job_id, sw_job *progress, char **result_json, sw_error **err)
{
	if (!ctx || !s || !result_json || !job_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "ctx, session, job id and result are required");
	*result_json = NULL;
	json_t *a = NULL;
	int rc = sw__options_load(args_json, explore_opts, "qa_explore arguments", &a, err);
	if (rc < 0)
		return rc;
	ex_run r;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.s = s;
	r.cancel = cancel;
	r.cancel_ud = cancel_ud;
	r.progress = progress;
	r.state = "completed";
	r.cur = -1;
	json_t *consent = NULL;
	if ((rc = parse_opts(a, &r.o, err)) < 0 || (rc = check_parsed(s, &r.o, &consent, err)) < 0) {
		json_decref(consent);
		json_decref(r.o.notes);
		json_decref(a);
		return rc;
	}
	json_decref(consent);
	if (r.o.candidate) {
		r.approved_screen = sw__strdup(json_string_value(json_object_get(r.o.candidate, "screenSignature")));
		r.approved_sig = sw__strdup(json_string_value(json_object_get(r.o.candidate, "candidateSignature")));
	}
	json_t *app = state_get(s, "appId");
	char *app_id = json_string_value(app) ? sw__strdup(json_string_value(app)) : NULL;
	json_decref(app);
	r.app_id = app_id;
	r.edges = json_array();
	r.findings = json_array();
	r.candidates = json_array();
	r.skipped = json_array();
	r.warnings = json_array();
	r.typed = json_array();
	r.typed_keys = json_object();
	r.fixtures = sw__fixtures_load(s, sw_session_root(s), r.warnings);
	if (r.o.include_text && r.o.allow_generated) {
		bool disposable = false;
		json_t *ev = json_array();
		r.env = ap_environment(s, NULL, &disposable, ev);
		json_decref(ev);
	}
	r.goal_node = -1;
	if (strcmp(r.o.strategy, "crawl") != 0) {
		goal_parse(&r);
		r.planned = r.n_goal_words > 0;
	}
	r.t0 = sw_monotonic_ms();
	sw_iso_time(sw_wall_ms(), r.started);
	rc = ap_drive_open(ctx, s, &r.d, err);
	if (rc == SW_OK) {
		sw_drive_set_abort(r.d, cancel, cancel_ud);
		sw__drive_trust_settled(r.d, true); /* the explorer is the only one acting: no dump before each tap */
		rc = crawl(&r, err);
		ap_drive_close(r.d);
	}
	if (rc < 0 && err && *err && !strcmp(sw_error_failure_code(*err), "CANCELLED")) {
		sw_error_free(*err);
		*err = NULL;
		rc = SW_OK;
		r.stopped = "cancelled";
	}
	if (rc < 0) {
		/* a device failure mid-crawl: the graph so far is still written, the job says why it stopped */
		if (r.n_nodes == 0)
			goto out;
		json_array_append_new(r.warnings, json_pack("{s:s,s:s}", "failureCode", sw_error_failure_code(*err), "message",
		                                            sw_error_message(*err)));
		r.state = "blocked";
		r.stopped = "device_error";
		sw_error_free(*err);
		*err = NULL;
		rc = SW_OK;
	}
	if (!r.stopped)
		r.stopped = "completed";
	if (!strcmp(r.stopped, "cancelled"))
		json_array_clear(r.findings); /* a cancelled crawl reports nothing for the screen it was on */
	char *md_uri = NULL;
	char *graph_uri = write_graph(&r, job_id, &md_uri, r.warnings);
	save_exploration_state(&r, job_id, graph_uri);
	char summary[400];
	sw_text_snprintf(summary, sizeof(summary), "Explored %zu screen%s with %ld action%s (%s); %zu crash/ANR finding%s%s%s.",
	                 r.n_nodes, r.n_nodes == 1 ? "" : "s", r.actions, r.actions == 1 ? "" : "s", r.stopped,
	                 json_array_size(r.findings), json_array_size(r.findings) == 1 ? "" : "s",
	                 json_array_size(r.candidates) ? "; destructive candidates listed" : "",
	                 r.needs_input ? "; stopped at a login wall, credentials needed" : "");
	json_t *appmap = update_app_map(&r, ctx);
	/* options this build does not act on are said, never dropped in silence */
	json_t *strat = json_pack("{s:s,s:[]}", "name", r.o.strategy, "goalWords");
	for (size_t i = 0; strat && i < r.n_goal_words; i++)
		json_array_append_new(json_object_get(strat, "goalWords"), json_string(r.goal_words[i]));
	if (strat && r.planned) {
		json_object_set_new(strat, "goalReached", json_boolean(r.goal_node >= 0));
		if (r.goal_node >= 0) {
			json_object_set_new(strat, "goalScreen", json_string(r.nodes[r.goal_node].sig));
			json_object_set_new(strat, "actionsToGoal", json_integer(r.goal_actions));
		}
	}
	if (strcmp(r.o.strategy, "crawl") != 0 && !r.planned) {
		char *n = sw__asprintf("strategy %s needs a goal with words to plan by (got %s): the crawl's order was used",
		                       r.o.strategy, r.o.goal ? "none usable" : "no goal");
		if (n)
			json_array_append_new(r.o.notes, json_string(n));
		free(n);
	} else if (r.planned && r.goal_node < 0) {
		json_array_append_new(r.o.notes,
		                      json_string("no screen whose title or activity matches the goal was reached; try a larger "
		                                  "maxActions or depth, or name the screen as it is titled"));
	}
	json_t *suite = NULL;
	if (r.o.generate_suite) {
		if (strcmp(r.stopped, "cancelled") != 0)
			suite = generate_suite(&r, graph_uri);
		else
			json_array_append_new(r.o.notes, json_string("generateSuite was not done: the crawl was cancelled"));
	}
	if (r.o.account_cycle)
		json_array_append_new(r.o.notes,
		                      json_string("accountCycle was not done: this build never logs out, not even a disposable "
		                                  "generated account; logout controls stayed untouched"));
	json_t *res = json_pack(
	    "{s:s,s:s,s:s,s:o,s:O,s:o,s:s?,s:s?,s:O,s:i,s:i,s:i,s:O,s:O,s:s,s:o,s:O}", "state", r.state, "stoppedReason",
	    r.stopped, "summary", summary, "destructiveCandidates",
	    !strcmp(r.o.safe_mode, "dry_run_destructive") ? json_incref(r.candidates) : json_array(), "needsInput",
	    r.needs_input ? r.needs_input : json_null(), "suitePromotion", suite_promotion(&r), "graphUri", graph_uri,
	    "graphMarkdownUri", md_uri, "findings", r.findings, "screens", (int)r.n_nodes, "actions", (int)r.actions,
	    "relaunches", (int)r.relaunches, "skippedFields", r.skipped, "warnings", r.warnings, "safeMode", r.o.safe_mode,
	    "appMap", appmap, "notes", r.o.notes);
	if (res)
		json_object_set(res, "typedFields", r.typed);
	if (res && r.n_nodes > 0) {
		/* what the first screen offered, by risk: a caller tells "nothing safe to touch" from "nothing to do" */
		int counts[3] = {0, 0, 0};
		size_t k;
		json_t *el;
		json_array_foreach(r.nodes[0].elements, k, el)
		{
			const char *risk = json_string_value(json_object_get(el, "risk"));
			counts[risk && !strcmp(risk, "safe") ? 0 : risk && !strcmp(risk, "destructive") ? 2 : 1]++;
		}
		json_object_set_new(res, "startScreen",
		                    json_pack("{s:s,s:s*,s:i,s:i,s:i}", "signature", r.nodes[0].sig, "blocked",
		                              r.nodes[0].blocked, "safe", counts[0], "unknown", counts[1], "destructive",
		                              counts[2]));
	}
	if (res && strat)
		json_object_set(res, "strategy", strat);
	json_decref(strat);
	if (res && suite)
		json_object_set(res, "suite", suite);
	json_decref(suite);
	if (res && r.approved_sig)
		json_object_set_new(res, "approvedCandidateUsed", json_boolean(r.approved_done));
	free(graph_uri);
	free(md_uri);
	char *text = res ? sw__json_compact(res) : NULL;
	json_decref(res);
	*result_json = text ? ap_redact(s, text) : NULL;
	free(text);
	rc = *result_json ? SW_OK : sw__error_nomem(err);
out:
	for (size_t i = 0; i < r.n_nodes; i++) {
		free(r.nodes[i].title);
		free(r.nodes[i].activity);
		json_decref(r.nodes[i].elements);
		json_decref(r.nodes[i].tried);
	}
	free(r.nodes);
	json_decref(r.edges);
	json_decref(r.findings);
	json_decref(r.candidates);
	json_decref(r.skipped);
	json_decref(r.warnings);
	json_decref(r.typed);
	json_decref(r.typed_keys);
	json_decref(r.fixtures);
	json_decref(r.needs_input);
	json_decref(r.o.notes);
	json_decref(a);
	free(r.approved_sig);
	free(r.approved_screen);
	free(r.last_activity);
	free(app_id);
	return rc;
}

/* ---- as a job ----------------------------------------------------------------------------------------------- */

typedef struct ex_job {
	char *home;
	char *args;
} ex_job;

static void ex_job_free(void *ud)
{
	ex_job *j = ud;
	free(j->home);
	free(j->args);
	free(j);
}

static int ex_job_run(sw_job *job, void *ud, char **result_json, sw_error **err)
{
	ex_job *j = ud;
	sw_ctx *ctx = NULL;
	int rc = sw_ctx_new(&ctx, err);
	if (rc != SW_OK)
		return rc;
	if (j->home)
		sw_ctx_set_home(ctx, j->home, NULL);
	sw_job_set_progress(job, "exploring the app", NULL, NULL);
	rc = ap_explore_run(ctx, sw_job_session(job), j->args, sw_job_abort, job, sw_job_id(job), job, result_json, err);
	sw_ctx_free(ctx);
	return rc;
}

SW_API int sw_explore_start(sw_ctx *ctx, sw_session *s, const char *args_json, char **job_id, sw_error **err)
{
	if (!ctx || !s || !job_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "ctx, session and job_id are required");
	char *consent = NULL;
	int rc = sw_explore_check(s, args_json, &consent, err);
	sw_free(consent);
	if (rc < 0)
		return rc;
	ex_job *j = calloc(1, sizeof(*j));
	if (!j)
		return sw__error_nomem(err);
	j->home = sw__strdup(sw_ctx_get_home(ctx));
	j->args = sw__strdup(args_json ? args_json : "{}");
	rc = sw_job_start(s, "explore", ex_job_run, j, ex_job_free, job_id, err);
	if (rc < 0)
		ex_job_free(j);
	return rc;
}
