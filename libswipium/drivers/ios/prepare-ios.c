/* prepare-ios.c: qa_prepare_ios_target's library side: pick the simulator, boot it (≤30 s, then a job of
 * kind prepare_ios finishes), install the .app, launch it, check the foreground, and settle the mode
 * (structured with WebDriverAgent, else visual-only) as attachWda asks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ios-internal.h"
#include <swipium/job.h>

#define PREPARE_BOOT_WAIT_MS 30000

static const sw__opt prep_opts[] = {{"app", SW__OPT_STRING, true},      {"bundleId", SW__OPT_STRING, true},
                                    {"device", SW__OPT_STRING, true},   {"launch", SW__OPT_BOOL, true},
                                    {"attachWda", SW__OPT_STRING, true}, {"bootWaitMs", SW__OPT_INTEGER, true},
                                    {NULL}};

/* One qa_ios action through sw_ios_run; *out (transfer full) its result. */
static int ios_action(sw_ctx *ctx, sw_session *s, json_t *args, int (*abort_fn)(void *), void *ud, json_t **out,
                      sw_error **err)
{
	char *aj = sw__json_compact(args);
	json_decref(args);
	if (!aj)
		return sw__error_nomem(err);
	char *res = NULL;
	int rc = sw_ios_run(ctx, s, aj, abort_fn, ud, &res, err);
	free(aj);
	if (rc == SW_OK) {
		*out = json_loads(res, 0, NULL);
		free(res);
		if (!*out)
			return sw__error_nomem(err);
	}
	return rc;
}

int sw_ios_prepare_plan(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err)
{
	json_t *opts = NULL;
	int rc = sw__options_load(options_json, prep_opts, "qa_prepare_ios_target options", &opts, err);
	if (rc < 0)
		return rc;
	const char *aw = json_string_value(json_object_get(opts, "attachWda"));
	if (aw && strcmp(aw, "auto") && strcmp(aw, "required") && strcmp(aw, "skip")) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "attachWda must be auto, required or skip");
	}
	const char *app = json_string_value(json_object_get(opts, "app"));
	json_t *o = json_object();
	if (app) {
		/* the install plan names the simulator, the realpath and whether it is inside the project */
		json_t *a = json_pack("{s:s,s:s,s:O*}", "action", "install", "app", app, "device", json_object_get(opts, "device"));
		char *aj = a ? sw__json_compact(a) : NULL, *pj = NULL;
		json_decref(a);
		sw_error *e = NULL;
		rc = aj ? sw_ios_plan(ctx, s, aj, &pj, &e) : sw__error_nomem(err);
		free(aj);
		if (rc != SW_OK && e &&
		    (!strcmp(sw_error_failure_code(e), "DEVICE_NOT_READY") || !strcmp(sw_error_failure_code(e), "NO_DEVICE"))) {
			/* not booted yet (or none booted): plan the bundle alone; the boot step picks the simulator and
			 * the install runs after it */
			sw_error_free(e);
			e = NULL;
			json_t *ap = NULL;
			char *path = app[0] == '/' ? sw__strdup(app) : sw__path_join(sw_session_root(s), app);
			rc = path ? sw__ios_app_check(path, &ap, &e) : sw__error_nomem(&e);
			free(path);
			if (rc == SW_OK) {
				char *root = realpath(sw_session_root(s), NULL);
				const char *rp = json_string_value(json_object_get(ap, "path"));
				size_t rl = root ? strlen(root) : 0;
				json_object_set_new(ap, "insideProjectRoot",
				                    json_boolean(root && rp && !strncmp(rp, root, rl) && rp[rl] == '/'));
				free(root);
				json_object_set_new(o, "app", ap);
				json_object_set_new(o, "bundleId", json_incref(json_object_get(ap, "bundleId")));
				json_object_set_new(o, "commands", json_array());
			}
		} else if (rc == SW_OK) {
			json_t *p = json_loads(pj, 0, NULL);
			free(pj);
			json_object_update(o, p);
			json_decref(p);
		}
		if (rc != SW_OK) {
			sw__error_propagate(err, e);
			json_decref(o);
			json_decref(opts);
			return rc;
		}
	}
	const char *bid = json_string_value(json_object_get(opts, "bundleId"));
	if (bid)
		json_object_set_new(o, "bundleId", json_string(bid));
	if (!json_object_get(o, "bundleId") || json_is_null(json_object_get(o, "bundleId"))) {
		json_decref(o);
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass app (the simulator .app) or bundleId",
		                     "qa_prepare_ios_target needs app or bundleId");
	}
	bool inside = !json_is_false(json_object_get(json_object_get(o, "app"), "insideProjectRoot"));
	json_object_set_new(o, "risk", json_string(app && !inside ? "medium" : "low"));
	json_object_set_new(o, "attachWda", json_string(aw ? aw : "auto"));
	json_decref(opts);
	*out_json = sw__json_compact(o);
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* After the boot: install, launch, foreground, mode. */
static int prepare_rest(sw_ctx *ctx, sw_session *s, json_t *opts, const char *udid, int (*abort_fn)(void *), void *ud,
                        json_t *o, sw_error **err)
{
	const char *app = json_string_value(json_object_get(opts, "app"));
	const char *bid = json_string_value(json_object_get(opts, "bundleId"));
	json_t *r = NULL;
	int rc = SW_OK;
	if (app) {
		rc = ios_action(ctx, s, json_pack("{s:s,s:s,s:s}", "action", "install", "app", app, "device", udid), abort_fn,
		                ud, &r, err);
		if (rc != SW_OK)
			return rc;
		json_object_set_new(o, "installed", json_true());
		if (!bid)
			bid = json_string_value(json_object_get(r, "bundleId"));
		json_object_set(o, "app", json_object_get(r, "app"));
		json_object_set_new(o, "bundleId", json_string(bid));
		json_decref(r);
		r = NULL;
		bid = json_string_value(json_object_get(o, "bundleId"));
	} else
		json_object_set_new(o, "bundleId", json_string(bid));
	/* the prepared app is the session's app */
	json_t *v = json_string(bid);
	if (v)
		sw__session_set(s, "appId", v, NULL);
	json_decref(v);
	if (!json_is_false(json_object_get(opts, "launch"))) {
		rc = ios_action(ctx, s, json_pack("{s:s,s:s,s:s}", "action", "launch", "bundleId", bid, "device", udid),
		                abort_fn, ud, &r, err);
		if (rc != SW_OK)
			return rc;
		json_object_set_new(o, "launched", json_true());
		json_decref(r);
		r = NULL;
	}
	const char *aw = json_string_value(json_object_get(opts, "attachWda"));
	aw = aw ? aw : "auto";
	json_t *wda = json_object();
	bool structured = false;
	if (strcmp(aw, "skip") != 0) {
		json_t *wurl = NULL;
		sw__session_get(s, "wdaUrl", &wurl, NULL);
		/* no URL given: qa_wda's own choice (the attached one, else ios.wda.url, else the default); a
		 * configured non-loopback URL is refused there before any request */
		json_t *a = json_pack("{s:s,s:s,s:s,s:s?}", "action", "attach", "device", udid, "bundleId", bid,
		                      "webDriverAgentUrl", json_is_string(wurl) ? json_string_value(wurl) : NULL);
		json_decref(wurl);
		char *aj = a ? sw__json_compact(a) : NULL, *res = NULL;
		json_decref(a);
		sw_error *e = NULL;
		int wrc = aj ? sw_ios_wda_run(ctx, s, aj, &res, &e) : SW_ENOMEM;
		free(aj);
		if (wrc == SW_OK) {
			structured = true;
			json_object_set_new(wda, "attached", json_true());
			json_t *wr = json_loads(res, 0, NULL);
			json_object_set(wda, "url", json_object_get(wr, "url"));
			json_decref(wr);
		} else if (!strcmp(aw, "required")) {
			sw__error_propagate(err, e);
			sw_free(res);
			json_decref(wda);
			return wrc;
		} else {
			json_object_set_new(wda, "attached", json_false());
			json_object_set_new(wda, "failureCode", json_string(e ? sw_error_failure_code(e) : "UNKNOWN"));
			json_object_set_new(wda, "why", json_string(e ? sw_error_message(e) : "out of memory"));
			sw_error_free(e);
		}
		sw_free(res);
	} else
		json_object_set_new(wda, "skipped", json_true());
	json_object_set_new(o, "wda", wda);
	json_object_set_new(o, "mode", json_string(structured ? "structured" : "visual-only"));
	json_t *mode = json_string(structured ? "structured" : "visual-only");
	if (mode)
		sw__session_set(s, "mode", mode, NULL);
	json_decref(mode);
	if (!structured) {
		json_t *w = json_string("iOS without WebDriverAgent: visual-only (qa_screenshot, qa_visual); attach WDA with "
		                        "qa_wda for qa_snapshot and qa_act");
		if (w)
			sw__session_append(s, "workarounds", w, NULL);
		json_decref(w);
	}
	/* the foreground: only WebDriverAgent can tell; simctl cannot */
	json_object_set_new(o, "foreground", json_null());
	json_object_set_new(o, "foregroundIsApp", json_null());
	if (structured) {
		sw__wda *w = sw__wda_new(json_string_value(json_object_get(wda, "url")), NULL, bid);
		json_t *info = NULL;
		if (w && sw__wda_call(w, "GET", "/wda/activeAppInfo", false, NULL, 0, &info, NULL) == SW_OK) {
			const char *fg = json_string_value(json_object_get(info, "bundleId"));
			json_object_set_new(o, "foreground", fg ? json_string(fg) : json_null());
			json_object_set_new(o, "foregroundIsApp", fg ? json_boolean(!strcmp(fg, bid)) : json_null());
		}
		json_decref(info);
		sw__wda_free(w);
	}
	json_object_set_new(o, "status", json_string("ready"));
	return SW_OK;
}

typedef struct prep_job {
	sw_ctx *ctx;
	char *opts;
	char *udid;
} prep_job;

static void prep_job_free(void *p)
{
	prep_job *j = p;
	free(j->opts);
	free(j->udid);
	free(j);
}

static int prep_job_run(sw_job *job, void *userdata, char **result_json, sw_error **err)
{
	prep_job *j = userdata;
	sw_session *s = sw_job_session(job);
	char *w = NULL;
	int rc = sw_ios_wait_booted(j->ctx, s, 180000, sw_job_abort, job, &w, err);
	free(w);
	if (rc != SW_OK)
		return rc;
	json_t *opts = json_loads(j->opts, 0, NULL);
	json_t *o = json_pack("{s:s,s:b}", "udid", j->udid, "booted", 1);
	rc = prepare_rest(j->ctx, s, opts, j->udid, sw_job_abort, job, o, err);
	json_decref(opts);
	if (rc == SW_OK)
		*result_json = sw__json_compact(o);
	json_decref(o);
	return rc;
}

int sw_ios_prepare_run(sw_ctx *ctx, sw_session *s, const char *options_json, int (*abort_fn)(void *ud), void *abort_ud,
                       char **out_json, sw_error **err)
{
	json_t *opts = NULL;
	int rc = sw__options_load(options_json, prep_opts, "qa_prepare_ios_target options", &opts, err);
	if (rc < 0)
		return rc;
	long wait = PREPARE_BOOT_WAIT_MS;
	json_t *bw = json_object_get(opts, "bootWaitMs");
	if (json_is_integer(bw) && json_integer_value(bw) >= 0 && json_integer_value(bw) < wait)
		wait = (long)json_integer_value(bw);
	const char *env = getenv("SWIPIUM_IOS_BOOT_WAIT_MS");
	if (env && atol(env) >= 0 && atol(env) < wait)
		wait = atol(env);
	json_t *boot = NULL;
	rc = ios_action(ctx, s,
	                json_pack("{s:s,s:O*,s:I}", "action", "boot", "device", json_object_get(opts, "device"), "bootWaitMs",
	                          (json_int_t)wait),
	                abort_fn, abort_ud, &boot, err);
	if (rc != SW_OK) {
		json_decref(opts);
		return rc;
	}
	const char *udid = json_string_value(json_object_get(boot, "udid"));
	json_t *o = json_pack("{s:O,s:O,s:O*,s:b}", "udid", json_object_get(boot, "udid"), "name",
	                      json_object_get(boot, "name"), "runtime", json_object_get(boot, "runtime"), "booted",
	                      !json_is_true(json_object_get(boot, "alreadyBooted")));
	if (!strcmp(json_string_value(json_object_get(boot, "status")), "booting")) {
		/* slower than the wait: a prepare_ios job finishes under the consent already given */
		prep_job *j = calloc(1, sizeof(*j));
		char *id = NULL;
		if (j) {
			j->ctx = ctx;
			j->opts = sw__json_compact(opts);
			j->udid = sw__strdup(udid);
		}
		rc = j && j->opts && j->udid ? sw_job_start(s, "prepare_ios", prep_job_run, j, prep_job_free, &id, err)
		                             : sw__error_nomem(err);
		if (rc != SW_OK && j)
			prep_job_free(j);
		if (rc == SW_OK) {
			json_object_set_new(o, "status", json_string("booting"));
			json_object_set_new(o, "jobId", json_string(id));
			json_object_set(o, "elapsedMs", json_object_get(boot, "elapsedMs"));
		}
		sw_free(id);
	} else
		rc = prepare_rest(ctx, s, opts, udid, abort_fn, abort_ud, o, err);
	if (rc == SW_OK) {
		*out_json = sw__json_compact(o);
		if (!*out_json)
			rc = sw__error_nomem(err);
	}
	json_decref(o);
	json_decref(boot);
	json_decref(opts);
	return rc;
}
