/* testthis-run.c: the qa_test_this job: prepare, smoke, (explore), report, (suite), and the one terminal result
 * every ending shares (completed, blocked, unsafe, needs_input), each with its saved report. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autopilot-internal.h"
#include "testthis-internal.h"

#define TT_KIND "test_this"

/* Serialises "is one running? then start one" across threads, so two calls at once never start two jobs. */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

static void attempt(json_t *attempted, const char *step, const char *status, const char *detail, const char *code)
{
	json_t *a = json_pack("{s:s,s:s}", "step", step, "status", status);
	if (detail)
		json_object_set_new(a, "detail", json_string(detail));
	if (code)
		json_object_set_new(a, "failureCode", json_string(code));
	json_array_append_new(attempted, a);
}

struct run {
	sw_ctx *ctx;
	sw_job *job;
	sw_session *s;
	json_t *plan, *res, *attempted, *blockers, *notes, *workarounds;
	const char *state;
	char *serial;
	bool login_wall;
};

static void blocked_by(struct run *r, const char *step, const sw_error *e, const char *fallback_code)
{
	const char *code = e && sw_error_failure_code(e) ? sw_error_failure_code(e) : fallback_code;
	const char *msg = e ? sw_error_message(e) : code;
	json_array_append_new(r->blockers, sw__tt_blocker(code, msg));
	attempt(r->attempted, step, "failed", msg, code);
	char *wf = sw__asprintf("qa_test_this: %s", step);
	ap_add_note(r->s, wf ? wf : step, "blocked", "other", msg, code);
	free(wf);
	r->state = "blocked";
}

static int step_prepare(struct run *r, json_t *step)
{
	json_t *args = json_object_get(json_object_get(step, "tool"), "args");
	char *oj = ap_prepare_request(args);
	(void)sw_job_set_progress(r->job, "prepare: installing and launching the app",
	                          "{\"phase\":\"prepare\",\"statusText\":\"boot (if needed), install, launch\","
	                          "\"userActionRequired\":false}",
	                          NULL);
	char *out = NULL;
	sw_error *e = NULL;
	int rc = sw_android_prepare_abortable(r->ctx, oj, sw_job_abort, r->job, &out, &e);
	free(oj);
	if (sw_job_cancelled(r->job)) {
		sw_error_free(e);
		sw_free(out);
		return SW_ECANCELLED;
	}
	if (rc != SW_OK) {
		blocked_by(r, "prepare", e, "APP_LAUNCH_FAILED");
		sw_error_free(e);
		return SW_OK;
	}
	json_t *prep = json_loads(out, 0, NULL);
	sw_free(out);
	const char *app = json_string_value(json_object_get(args, "appId"));
	ap_remember(r->s, prep, app);
	const char *serial = json_string_value(json_object_get(json_object_get(prep, "device"), "serial"));
	r->serial = serial ? sw__strdup(serial) : NULL;
	char *d = sw__asprintf("%s%s on %s, %s in front", json_is_true(json_object_get(prep, "booted")) ? "booted; " : "",
	                       json_is_true(json_object_get(prep, "installed")) ? "installed" : "not installed",
	                       serial ? serial : "?", app ? app : "?");
	attempt(r->attempted, "prepare", "done", d, NULL);
	free(d);
	json_object_set(r->res, "prepared", prep);
	json_decref(prep);
	return SW_OK;
}

static int step_smoke(struct run *r)
{
	(void)sw_job_set_progress(r->job, "smoke: baseline health and evidence",
	                          "{\"phase\":\"smoke\",\"statusText\":\"baseline health, screenshot\","
	                          "\"userActionRequired\":false}",
	                          NULL);
	json_t *o = r->serial ? json_pack("{s:s}", "serial", r->serial) : json_object();
	char *oj = sw__json_compact(o);
	json_decref(o);
	sw_device *dev = NULL;
	sw_error *e = NULL;
	int rc = sw_device_open(r->ctx, sw_driver_android(), oj, &dev, &e);
	free(oj);
	if (rc != SW_OK) {
		blocked_by(r, "smoke", e, "NO_DEVICE");
		sw_error_free(e);
		return SW_OK;
	}
	char *hout = NULL;
	rc = sw_health_check(r->ctx, r->s, dev, NULL, &hout, &e);
	if (rc != SW_OK) {
		blocked_by(r, "smoke", e, "NO_DEVICE");
		sw_error_free(e);
		sw_device_free(dev);
		return SW_OK;
	}
	json_t *health = json_loads(hout, 0, NULL);
	sw_free(hout);
	bool healthy = json_is_true(json_object_get(health, "healthy"));
	json_t *smoke = json_pack("{s:b}", "healthy", healthy);
	if (json_object_get(health, "findings"))
		json_object_set(smoke, "findings", json_object_get(health, "findings"));
	if (sw_session_is_sensitive(r->s)) {
		json_array_append_new(r->notes, json_string("sensitive session: no evidence screenshot was taken"));
	} else {
		unsigned char *png = NULL;
		size_t len = 0;
		char *meta = NULL;
		if (sw_device_screencap(dev, &png, &len, &e) == SW_OK &&
		    sw_artifact_save(r->s, "screenshot", "test-this-smoke.png", "image/png", png, len,
		                     "qa_test_this smoke baseline", &meta, &e) == SW_OK) {
			json_t *m = json_loads(meta, 0, NULL);
			json_object_set(smoke, "screenshotUri", json_object_get(m, "uri"));
			if (json_is_string(json_object_get(m, "uri")))
				(void)sw_job_add_artifact(r->job, json_string_value(json_object_get(m, "uri")), NULL);
			json_decref(m);
			(void)sw_session_counter_add(r->s, "screenshots", 1, NULL);
		} else {
			char *w = sw__asprintf("no evidence screenshot: %s", e ? sw_error_message(e) : "capture failed");
			json_array_append_new(r->notes, json_string(w ? w : "no evidence screenshot"));
			free(w);
			sw_error_free(e);
			e = NULL;
		}
		sw_free(meta);
		sw_free(png);
	}
	/* a login wall: a password field on the first screen (read only: nothing is touched or typed) */
	char *xml = NULL;
	size_t xlen = 0;
	if (sw_device_dump_ui(dev, &xml, &xlen, NULL) == SW_OK && xml)
		r->login_wall = strstr(xml, "password=\"true\"") != NULL;
	sw_free(xml);
	json_object_set_new(smoke, "loginWall", json_boolean(r->login_wall));
	sw_device_free(dev);
	ap_add_note(r->s, "smoke: baseline", healthy ? "pass" : "fail", healthy ? NULL : "app_bug",
	            healthy ? NULL : "the baseline health check found problems; see the findings", NULL);
	(void)sw_session_mark_milestone(r->s, "smoke", NULL);
	attempt(r->attempted, "smoke", "done", healthy ? "baseline healthy" : "baseline has findings", NULL);
	json_object_set_new(r->res, "smoke", smoke);
	json_decref(health);
	return SW_OK;
}

/* The crawl touched nothing because its first screen held only destructive controls (and something to touch). */
static bool refused_everything(const json_t *ex)
{
	json_t *st = json_object_get(ex, "startScreen");
	return json_integer_value(json_object_get(ex, "actions")) == 0 && json_is_object(st) &&
	       !json_object_get(st, "blocked") && json_integer_value(json_object_get(st, "safe")) == 0 &&
	       json_integer_value(json_object_get(st, "destructive")) > 0;
}

/* The explore step: the same crawl as qa_explore, run inside this job (its cancel, its progress, its id: the graph
 * is <session dir>/explore/<this jobId>/graph.json). Its findings are the session's (the health check after each
 * tap records them), so the report carries them; the crawl's own summary goes into the result. */
static int step_explore(struct run *r, json_t *step)
{
	json_t *args = json_deep_copy(json_object_get(json_object_get(step, "tool"), "args"));
	if (!json_is_object(args)) {
		json_decref(args);
		args = json_object();
	}
	json_object_del(args, "sessionId");
	char *aj = sw__json_compact(args);
	json_decref(args);
	(void)sw_job_set_progress(r->job, "explore: crawling the app's safe controls",
	                          "{\"phase\":\"explore\",\"statusText\":\"crawl: safe controls only, health after each "
	                          "tap\",\"userActionRequired\":false}",
	                          NULL);
	char *out = NULL;
	sw_error *e = NULL;
	int rc = aj ? ap_explore_run(r->ctx, r->s, aj, sw_job_abort, r->job, sw_job_id(r->job), r->job, &out, &e)
	            : sw__error_nomem(&e);
	free(aj);
	json_t *ex = rc == SW_OK ? json_loads(out, 0, NULL) : NULL;
	sw_free(out);
	const char *stopped = json_string_value(json_object_get(ex, "stoppedReason"));
	if (sw_job_cancelled(r->job) || (stopped && !strcmp(stopped, "cancelled"))) {
		sw_error_free(e);
		json_decref(ex);
		return SW_ECANCELLED;
	}
	if (rc != SW_OK || !ex) {
		blocked_by(r, "explore", e, "UNKNOWN");
		sw_error_free(e);
		json_decref(ex);
		return SW_OK;
	}
	const char *xstate = json_string_value(json_object_get(ex, "state"));
	json_t *findings = json_object_get(ex, "findings");
	char *graph_path = sw__asprintf("%s/explore/%s/graph.json", sw_session_dir(r->s), sw_job_id(r->job));
	json_t *sum = json_pack("{s:O*,s:O*,s:O*,s:O*,s:O*,s:O*,s:O*,s:O*,s:O*,s:O*,s:O*,s:O*,s:s*}", "state",
	                        json_object_get(ex, "state"), "stoppedReason", json_object_get(ex, "stoppedReason"),
	                        "summary", json_object_get(ex, "summary"), "screens", json_object_get(ex, "screens"),
	                        "actions", json_object_get(ex, "actions"), "relaunches", json_object_get(ex, "relaunches"),
	                        "findings", findings, "graphUri", json_object_get(ex, "graphUri"), "graphMarkdownUri",
	                        json_object_get(ex, "graphMarkdownUri"), "skippedFields",
	                        json_object_get(ex, "skippedFields"), "suitePromotion",
	                        json_object_get(ex, "suitePromotion"), "appMap", json_object_get(ex, "appMap"),
	                        "graphPath", graph_path);
	free(graph_path);
	if (sum && json_array_size(json_object_get(ex, "warnings")))
		json_object_set(sum, "warnings", json_object_get(ex, "warnings"));
	if (sum && json_array_size(json_object_get(ex, "notes")))
		json_object_set(sum, "notes", json_object_get(ex, "notes"));
	json_object_set_new(r->res, "explore", sum ? sum : json_null());
	const char *uri = json_string_value(json_object_get(ex, "graphUri"));
	if (uri)
		(void)sw_job_add_artifact(r->job, uri, NULL);
	const char *summary = json_string_value(json_object_get(ex, "summary"));
	bool found = json_array_size(findings) > 0;
	ap_add_note(r->s, "explore: crawl", found ? "fail" : "pass", found ? "app_bug" : NULL,
	            found ? "the crawl found crashes or ANRs; see the findings and the screen graph" : summary, NULL);
	if (xstate && !strcmp(xstate, "blocked")) {
		/* the crawl could not go on (the device went away, the app left the screen for good): its code blocks */
		json_t *w = json_array_get(json_object_get(ex, "warnings"), json_array_size(json_object_get(ex, "warnings")) - 1);
		const char *code = json_string_value(json_object_get(w, "failureCode"));
		if (stopped && !strcmp(stopped, "app_not_in_foreground"))
			code = "APP_LAUNCH_FAILED";
		if (!code)
			code = stopped && !strcmp(stopped, "auth_wall") ? NULL : "UNKNOWN";
		if (code) {
			json_array_append_new(r->blockers, sw__tt_blocker(code, summary));
			attempt(r->attempted, "explore", "failed", summary, code);
			r->state = "blocked";
		} else {
			/* only a login wall stood in the way (stopOnAuth false): what was reachable was explored */
			attempt(r->attempted, "explore", "done", summary, NULL);
			r->login_wall = true;
		}
	} else if (xstate && !strcmp(xstate, "needs_input")) {
		attempt(r->attempted, "explore", "needs_input", summary, NULL);
		if (sw__tt_have_credentials(r->s)) {
			json_array_append_new(r->notes, json_string("the crawl stopped at a sign-in screen although a test "
			                                            "account was given: qa_explore does not sign in"));
		} else {
			json_object_set_new(r->res, "needsInput",
			                    sw__tt_credentials_question(r->plan, "The crawl reached a sign-in screen and no test "
			                                                         "account was given; nothing was typed there."));
			r->state = "needs_input";
		}
	} else if (refused_everything(ex)) {
		/* the app opens on controls the safety rules refuse (a paywall, a purchase, a delete): nothing was touched */
		char *d = sw__asprintf("every control of the first screen is destructive (%lld of them: payment, delete, "
		                       "logout...) and none is safe; the crawl touched nothing",
		                       (long long)json_integer_value(
		                           json_object_get(json_object_get(ex, "startScreen"), "destructive")));
		json_array_append_new(r->blockers, sw__tt_blocker("DESTRUCTIVE_REFUSED", d));
		attempt(r->attempted, "explore", "refused", d, "DESTRUCTIVE_REFUSED");
		ap_add_note(r->s, "qa_test_this: explore", "blocked", "destructive_refused", d, "DESTRUCTIVE_REFUSED");
		free(d);
		r->state = "unsafe";
	} else {
		attempt(r->attempted, "explore", "done", summary, NULL);
		if (stopped && !strcmp(stopped, "auth_wall"))
			r->login_wall = true;
	}
	json_decref(ex);
	return SW_OK;
}

/* The report of this ending, whatever it is; its failure is said, never hidden. */
static void step_report(struct run *r, json_t *step)
{
	(void)sw_job_set_progress(r->job, "report: saving the report",
	                          "{\"phase\":\"report\",\"statusText\":\"saving\",\"userActionRequired\":false}", NULL);
	const char *format = json_string_value(json_object_get(json_object_get(json_object_get(step, "tool"), "args"),
	                                                       "format"));
	json_t *o = json_pack("{s:s}", "tool", "qa_test_this");
	if (format)
		json_object_set_new(o, "format", json_string(format));
	char *oj = sw__json_compact(o);
	json_decref(o);
	char *out = NULL, *body = NULL;
	sw_error *e = NULL;
	if (sw_report_save(r->ctx, r->s, oj, &out, &body, &e) == SW_OK) {
		json_t *rep = json_loads(out, 0, NULL);
		json_object_set(r->res, "reportUri", json_object_get(rep, "reportUri"));
		if (json_is_string(json_object_get(rep, "reportUri")))
			(void)sw_job_add_artifact(r->job, json_string_value(json_object_get(rep, "reportUri")), NULL);
		json_object_set_new(r->res, "reportSummary",
		                    json_pack("{s:O*,s:O*,s:O*,s:O*,s:O*}", "executiveSummary",
		                              json_object_get(rep, "executiveSummary"), "appVerdict",
		                              json_object_get(rep, "appVerdict"), "coverageVerdict",
		                              json_object_get(rep, "coverageVerdict"), "toolVerdict",
		                              json_object_get(rep, "toolVerdict"), "outcomeTally",
		                              json_object_get(rep, "outcomeTally")));
		if (json_object_get(rep, "releaseGate"))
			json_object_set(r->res, "releaseGate", json_object_get(rep, "releaseGate"));
		if (json_object_get(rep, "exportUri"))
			json_object_set(r->res, "exportUri", json_object_get(rep, "exportUri"));
		attempt(r->attempted, "report", "done", json_string_value(json_object_get(rep, "reportUri")), NULL);
		json_decref(rep);
	} else {
		json_object_set_new(r->res, "reportUri", json_null());
		attempt(r->attempted, "report", "failed", sw_error_message(e), sw_error_failure_code(e));
		char *w = sw__asprintf("the report could not be saved: %s", sw_error_message(e));
		json_array_append_new(r->notes, json_string(w ? w : "the report could not be saved"));
		free(w);
	}
	sw_error_free(e);
	sw_free(out);
	sw_free(body);
}

static json_t *next_action(struct run *r)
{
	const char *sid = sw_session_id(r->s);
	if (!strcmp(r->state, "needs_input")) {
		json_t *a = json_deep_copy(json_object_get(json_object_get(r->res, "needsInput"), "answerWith"));
		if (a)
			json_object_set_new(a, "why", json_string("Ask the user the question, then answer it; the answer "
			                                          "resumes the same goal."));
		return a ? a : json_null();
	}
	if (!strcmp(r->state, "blocked") || !strcmp(r->state, "unsafe")) {
		const char *code = json_string_value(json_object_get(json_array_get(r->blockers, 0), "failureCode"));
		if (code && !strcmp(code, "NO_BUILD_ARTIFACT") && sw__tt_listed(r->plan, "qa_build"))
			return sw__tt_action("qa_build",
			                     json_pack("{s:s,s:s,s:s}", "mode", "plan", "projectRoot", sw_session_root(r->s),
			                               "platform", "android"),
			                     "No APK was found: plan the build of one.");
		return sw__tt_action("qa_explain_blocker", json_pack("{s:s,s:s}", "failureCode", code ? code : "UNKNOWN",
		                                                     "sessionId", sid),
		                     "The run was blocked: see what the failure code means and who fixes it.");
	}
	const char *uri = json_string_value(json_object_get(r->res, "reportUri"));
	if (uri)
		return sw__tt_action("qa_get_artifact", json_pack("{s:s}", "uri", uri), "Read the saved report.");
	return sw__tt_action("qa_report", json_pack("{s:s}", "sessionId", sid), "Save the report.");
}

static void run_free(struct run *r)
{
	json_decref(r->res);
	json_decref(r->attempted);
	json_decref(r->blockers);
	json_decref(r->notes);
	json_decref(r->workarounds);
	free(r->serial);
	sw_ctx_free(r->ctx);
}

static int tt_run(sw_job *job, void *ud, char **result_json, sw_error **err)
{
	struct ap_job *j = ud;
	struct run r = {.job = job, .s = sw_job_session(job), .plan = j->plan, .state = "completed"};
	int rc = sw_ctx_new(&r.ctx, err);
	if (rc != SW_OK)
		return rc;
	if (j->home)
		(void)sw_ctx_set_home(r.ctx, j->home, NULL);
	json_t *flags = json_object_get(r.plan, "flags");
	r.res = json_pack("{s:s,s:s,s:O,s:O,s:O}", "sessionId", sw_session_id(r.s), "goal",
	                  json_string_value(json_object_get(flags, "goal")), "flags", flags, "artifactChoice",
	                  json_object_get(r.plan, "artifactChoice"), "targetChoice",
	                  json_object_get(r.plan, "targetChoice"));
	if (json_is_string(json_object_get(json_object_get(r.plan, "call"), "goalText")))
		json_object_set(r.res, "goalText", json_object_get(json_object_get(r.plan, "call"), "goalText"));
	r.attempted = json_array();
	r.blockers = json_deep_copy(json_object_get(r.plan, "blockers"));
	if (!json_is_array(r.blockers)) {
		json_decref(r.blockers);
		r.blockers = json_array();
	}
	r.notes = json_array();
	r.workarounds = json_array();
	json_t *report_step = NULL;
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(r.plan, "steps"), i, st)
	{
		const char *name = json_string_value(json_object_get(st, "step"));
		const char *status = json_string_value(json_object_get(st, "status"));
		const char *why = json_string_value(json_object_get(st, "why"));
		if (!name || !status)
			continue;
		if (!strcmp(name, "report")) {
			report_step = st;
			continue;
		}
		if (sw_job_cancelled(job))
			break;
		if (strcmp(r.state, "completed") != 0) {
			attempt(r.attempted, name, "skipped", "not reached: the run stopped earlier", NULL);
			continue;
		}
		if (!strcmp(status, "done")) {
			attempt(r.attempted, name, "done", why, NULL);
		} else if (!strcmp(status, "blocked")) {
			const char *code = json_string_value(json_object_get(st, "failureCode"));
			attempt(r.attempted, name, "blocked", why, code);
			char *wf = sw__asprintf("qa_test_this: %s", name);
			ap_add_note(r.s, wf ? wf : name, "blocked", "other", why, code);
			free(wf);
			r.state = "blocked";
		} else if (!strcmp(status, "needs_input")) {
			attempt(r.attempted, name, "needs_input", why, NULL);
			json_object_set(r.res, "needsInput", json_object_get(r.plan, "needsInput"));
			r.state = "needs_input";
		} else if (!strcmp(status, "skipped")) {
			attempt(r.attempted, name, "skipped", why, NULL);
			if (!strcmp(name, "explore") && json_is_true(json_object_get(flags, "explore")))
				json_array_append_new(
				    r.workarounds,
				    json_pack("{s:s,s:s}", "step", "explore", "what",
				              "exploration was asked for but is not available in this build; the run went on "
				              "with the smoke baseline only"));
		} else if (!strcmp(name, "prepare")) {
			if (step_prepare(&r, st) == SW_ECANCELLED)
				break;
		} else if (!strcmp(name, "explore")) {
			if (step_explore(&r, st) == SW_ECANCELLED)
				break;
			if (!strcmp(r.state, "completed") && r.login_wall && !sw__tt_have_credentials(r.s) &&
			    !json_object_get(r.res, "optionalQuestion"))
				json_object_set_new(r.res, "optionalQuestion",
				                    sw__tt_credentials_question(r.plan, "The crawl reached a sign-in screen; it "
				                                                        "covered what is reachable without signing in."));
		} else if (!strcmp(name, "smoke")) {
			step_smoke(&r);
			if (!strcmp(r.state, "completed") && r.login_wall && !sw__tt_have_credentials(r.s)) {
				if (json_is_true(json_object_get(flags, "stopOnNeedsInput"))) {
					json_object_set_new(r.res, "needsInput",
					                    sw__tt_credentials_question(
					                        r.plan, "The app opens on a sign-in screen (a password field) and "
					                                "no test account was given."));
					r.state = "needs_input";
				} else {
					json_object_set_new(
					    r.res, "optionalQuestion",
					    sw__tt_credentials_question(r.plan, "The app opens on a sign-in screen; the run covered "
					                                        "what is reachable without signing in."));
				}
			}
		}
	}
	if (sw_job_cancelled(job)) {
		run_free(&r);
		return SW_ECANCELLED;
	}
	/* every ending writes its report */
	if (report_step)
		step_report(&r, report_step);
	json_object_set_new(r.res, "state", json_string(r.state));
	json_object_set(r.res, "blockers", r.blockers);
	json_object_set(r.res, "attempted", r.attempted);
	json_object_set(r.res, "workaroundsAttempted", r.workarounds);
	json_object_set_new(r.res, "nextRecommendedAction", next_action(&r));
	if (json_array_size(r.notes))
		json_object_set(r.res, "notes", r.notes);
	const char *code = json_string_value(json_object_get(json_array_get(r.blockers, 0), "failureCode"));
	if (code)
		json_object_set_new(r.res, "failureCode", json_string(code));
	*result_json = sw__json_compact(r.res);
	run_free(&r);
	return *result_json ? SW_OK : sw__error_nomem(err);
}

char *sw_test_this_running(sw_session *s)
{
	return ap_running_job(s, TT_KIND);
}

int sw_test_this_start(sw_ctx *ctx, sw_session *s, const char *plan_json, char **job_id, sw_error **err)
{
	if (!s || !plan_json || !job_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "session, plan and job_id are required");
	json_t *plan = json_loads(plan_json, 0, NULL);
	if (!json_is_object(plan) || !json_is_array(json_object_get(plan, "steps"))) {
		json_decref(plan);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "the plan is not a qa_test_this plan");
	}
	static const struct ap_job_kind kind = {
	    .kind = TT_KIND,
	    .tool = "qa_test_this",
	    .hint = "Poll it with qa_job_status, or cancel it with qa_job_cancel, then call again",
	    .call_key = "lastTestThisArgs",
	    .lock = &start_lock,
	    .run = tt_run,
	};
	return ap_job_start_once(ctx, s, &kind, plan, job_id, err);
}
