/* common.c: what the qa_test_this and qa_test_feature jobs share: notes, the session's device memory, and a job
 * start that never runs two jobs of one kind on a session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autopilot-internal.h"

void ap_job_free(void *ud)
{
	struct ap_job *j = ud;
	if (!j)
		return;
	free(j->home);
	json_decref(j->plan);
	free(j);
}

void ap_add_note(sw_session *s, const char *workflow, const char *outcome, const char *category, const char *reason,
                 const char *code)
{
	json_t *n = json_pack("{s:s,s:s}", "workflow", workflow, "outcome", outcome);
	if (category)
		json_object_set_new(n, "category", json_string(category));
	if (reason)
		json_object_set_new(n, "reason", json_string(reason));
	if (code)
		json_object_set_new(n, "failureCode", json_string(code));
	char *t = sw__json_compact(n);
	if (t)
		(void)sw_session_add_note(s, t, NULL);
	free(t);
	json_decref(n);
}

void ap_remember(sw_session *s, json_t *prep, const char *app)
{
	json_t *serial = json_object_get(json_object_get(prep, "device"), "serial");
	if (json_is_string(serial)) {
		json_t *rec = json_pack("{s:s,s:O}", "platform", "android", "serial", serial);
		(void)sw__session_set(s, "device", rec, NULL);
		json_decref(rec);
		json_t *kind = json_string("adb");
		(void)sw__session_set(s, "driverKind", kind, NULL);
		json_decref(kind);
	}
	if (app) {
		json_t *a = json_string(app);
		(void)sw__session_set(s, "appId", a, NULL);
		json_decref(a);
	}
}

char *ap_prepare_request(const json_t *args)
{
	json_t *o = json_object();
	static const char *const keys[] = {"device", "avd", "apk", "appId"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++)
		if (json_object_get(args, keys[i]))
			json_object_set(o, keys[i], json_object_get(args, keys[i]));
	char *oj = sw__json_compact(o);
	json_decref(o);
	return oj;
}

char *ap_running_job(sw_session *s, const char *kind)
{
	json_t *jobs = NULL;
	if (!s || sw__session_get(s, "jobs", &jobs, NULL) != SW_OK)
		return NULL;
	char *id = NULL;
	size_t i;
	json_t *jb;
	json_array_foreach(jobs, i, jb)
	{
		const char *k = json_string_value(json_object_get(jb, "kind"));
		const char *status = json_string_value(json_object_get(jb, "status"));
		if (k && status && !strcmp(k, kind) && !strcmp(status, "running")) {
			free(id);
			id = sw__strdup(json_string_value(json_object_get(jb, "jobId")));
		}
	}
	json_decref(jobs);
	return id;
}

int ap_job_start_once(sw_ctx *ctx, sw_session *s, const struct ap_job_kind *k, json_t *plan, char **job_id,
                      sw_error **err)
{
	pthread_mutex_lock(k->lock);
	char *running = ap_running_job(s, k->kind);
	if (running) {
		pthread_mutex_unlock(k->lock);
		int rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", k->hint,
		                       "a %s job (%s) is already running on session %s; nothing new was started",
		                       k->tool, running, sw_session_id(s));
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:s}", "jobId", running));
		free(running);
		json_decref(plan);
		return rc;
	}
	struct ap_job *j = calloc(1, sizeof(*j));
	if (!j) {
		pthread_mutex_unlock(k->lock);
		json_decref(plan);
		return sw__error_nomem(err);
	}
	j->home = ctx && sw_ctx_get_home(ctx) ? sw__strdup(sw_ctx_get_home(ctx)) : NULL;
	j->plan = plan;
	/* the job drives the device through a drive of its own */
	sw_drive_unbind(s);
	if (k->call_key) {
		json_t *last = json_deep_copy(json_object_get(plan, "call"));
		if (last) {
			(void)sw__session_set(s, k->call_key, last, NULL);
			json_decref(last);
		}
	}
	int rc = sw_job_start(s, k->kind, k->run, j, ap_job_free, job_id, err);
	pthread_mutex_unlock(k->lock);
	if (rc != SW_OK)
		ap_job_free(j);
	return rc;
}
