/* prepare.c: qa_prepare_target's run: the device prepared (boot, install, launch), then taken by the session. */
#include <stdlib.h>
#include <string.h>

#include "actions-internal.h"
#include <swipium/actions.h>
#include <swipium/driver.h>
#include <swipium/job.h>
#include <swipium/session.h>

/* Records what the session now drives: device {platform, serial}, driverKind "adb" and the app (when known). */
static void take_target(sw_session *s, const json_t *res, const char *app)
{
	json_t *rec = json_pack("{s:s,s:O}", "platform", "android", "serial",
	                        json_object_get(json_object_get(res, "device"), "serial"));
	json_t *kind = json_string("adb");
	if (rec && kind) {
		sw__session_set(s, "device", rec, NULL);
		sw__session_set(s, "driverKind", kind, NULL);
	}
	json_decref(rec);
	json_decref(kind);
	if (app) {
		json_t *a = json_string(app);
		if (a)
			sw__session_set(s, "appId", a, NULL);
		json_decref(a);
	}
}

/* The app the options launch (appId), or NULL. (transfer full) */
static char *options_app(const char *options_json)
{
	json_t *o = options_json ? json_loads(options_json, 0, NULL) : NULL;
	const char *app = json_string_value(json_object_get(o, "appId"));
	char *copy = app ? sw__strdup(app) : NULL;
	json_decref(o);
	return copy;
}

static int prepare_and_take(sw_ctx *ctx, sw_session *s, const char *options_json, int (*abort_fn)(void *),
                            void *abort_ud, char **out_json, sw_error **err)
{
	char *out = NULL;
	int rc = sw_android_prepare_abortable(ctx, options_json, abort_fn, abort_ud, &out, err);
	if (rc != SW_OK)
		return rc;
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	if (!res)
		return sw__error_nomem(err);
	char *app = options_app(options_json);
	take_target(s, res, app);
	free(app);
	*out_json = sw__json_compact(res);
	json_decref(res);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

SW_API int sw_prepare_target_run(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err)
{
	if (!ctx || !s || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_prepare_target_run: ctx, session and out_json are required");
	*out_json = NULL;
	sw_drive_unbind(s); /* whatever drive the session held is stale once the target is prepared again */
	return prepare_and_take(ctx, s, options_json, NULL, NULL, out_json, err);
}

struct prepare_job {
	char *home, *options;
};

static void prepare_job_free(void *ud)
{
	struct prepare_job *pj = ud;
	free(pj->home);
	free(pj->options);
	free(pj);
}

static int prepare_job_run(sw_job *job, void *ud, char **result_json, sw_error **err)
{
	struct prepare_job *pj = ud;
	sw_ctx *ctx = NULL;
	int rc = sw_ctx_new(&ctx, err);
	if (rc != SW_OK)
		return rc;
	if (pj->home)
		sw_ctx_set_home(ctx, pj->home, NULL);
	sw_job_set_progress(job, "preparing the device (boot, install, launch)", NULL, NULL);
	/* the job's cancel (qa_job_cancel, shutdown) stops the boot / install at once and leaves no emulator */
	rc = prepare_and_take(ctx, sw_job_session(job), pj->options, sw_job_abort, job, result_json, err);
	sw_ctx_free(ctx);
	return rc;
}

SW_API int sw_prepare_target_start(sw_ctx *ctx, sw_session *s, const char *options_json, char **job_id, sw_error **err)
{
	if (!s || !job_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_prepare_target_start: session and job_id are required");
	struct prepare_job *pj = calloc(1, sizeof(*pj));
	if (!pj)
		return sw__error_nomem(err);
	const char *home = ctx ? sw_ctx_get_home(ctx) : NULL;
	pj->home = home ? sw__strdup(home) : NULL;
	pj->options = sw__strdup(options_json && *options_json ? options_json : "{}");
	if (!pj->options || (home && !pj->home)) {
		prepare_job_free(pj);
		return sw__error_nomem(err);
	}
	sw_drive_unbind(s); /* here, on the caller's thread: the job never touches a drive someone else may use */
	int rc = sw_job_start(s, "prepare_target", prepare_job_run, pj, prepare_job_free, job_id, err);
	if (rc != SW_OK)
		prepare_job_free(pj);
	return rc;
}
