/* job.c: background jobs of a session: a thread per job, progress, long-polling, cancellation of children. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <swipium/job.h>

#include "store-internal.h"

#define WAIT_CLAMP_MS SW_LONG_POLL_MAX_MS
#define KILL_GRACE_MS 2000L
#define MAX_CHILDREN 32
#define RESTART_MESSAGE "server restarted while job was running (child process gone)"

struct sw_job {
	sw_session *s;
	char id[9];
	char *kind;
	sw_job_fn fn;
	void *userdata;
	sw_job_free_fn free_fn;
	pthread_t thread;
	bool started;
	atomic_int cancelled;
	json_t *rec; /* the record inside the session's "jobs" array (own reference) */
	int children[MAX_CHILDREN];
	size_t n_children;
};

/* Record keys in the order state.json writes them. */
/* clang-format off */
static const char *const rec_keys[] = {
	"jobId", "kind", "status", "startedAt", "endedAt", "progress", "progressDetail", "error", "failureCode",
	"resultText", "result", "artifactUris",
};
/* clang-format on */

/* Sets rec[key] (stealing @v; NULL deletes) and keeps the documented key order. Caller holds s->lock. */
static void rec_set(json_t *rec, const char *key, json_t *v)
{
	if (v)
		json_object_set_new(rec, key, v);
	else
		json_object_del(rec, key);
	json_t *tmp = json_object();
	if (!tmp)
		return;
	for (size_t i = 0; i < SW_ARRAY_SIZE(rec_keys); i++) {
		json_t *x = json_object_get(rec, rec_keys[i]);
		if (x)
			json_object_set(tmp, rec_keys[i], x);
	}
	const char *k;
	json_t *x;
	json_object_foreach(rec, k, x)
	{
		if (!json_object_get(tmp, k))
			json_object_set(tmp, k, x);
	}
	json_object_clear(rec);
	json_object_update(rec, tmp);
	json_decref(tmp);
}

static json_t *now_iso(void)
{
	char *iso = sw__iso_now();
	json_t *v = iso ? json_string(iso) : json_null();
	free(iso);
	return v;
}

void sw__jobs_fail_stale(json_t *jobs)
{
	size_t i;
	json_t *rec;
	json_array_foreach(jobs, i, rec)
	{
		const char *st = json_string_value(json_object_get(rec, "status"));
		if (json_is_object(rec) && st && !strcmp(st, "running")) {
			rec_set(rec, "status", json_string("failed"));
			rec_set(rec, "error", json_string(RESTART_MESSAGE));
			if (!json_object_get(rec, "endedAt"))
				rec_set(rec, "endedAt", now_iso());
		}
	}
}

static bool is_running(const json_t *rec)
{
	const char *st = json_string_value(json_object_get(rec, "status"));
	return st && !strcmp(st, "running");
}

static void *job_main(void *arg)
{
	sw_job *job = arg;
	sw_session *s = job->s;
	char *result = NULL;
	sw_error *err = NULL;
	int rc = job->fn(job, job->userdata, &result, &err);
	pthread_mutex_lock(&s->lock);
	/* a cancelled job keeps its status; the worker's late answer is dropped */
	if (is_running(job->rec) && !atomic_load(&job->cancelled)) {
		if (rc == SW_OK) {
			json_t *res = result ? json_loads(result, 0, NULL) : NULL;
			const char *state = json_string_value(json_object_get(res, "state"));
			const char *code = json_string_value(json_object_get(res, "failureCode"));
			bool failed = code || (state && (!strcmp(state, "blocked") || !strcmp(state, "unsafe")));
			rec_set(job->rec, "status", json_string(failed ? "failed" : "done"));
			if (code)
				rec_set(job->rec, "failureCode", json_string(code));
			if (json_is_object(res))
				rec_set(job->rec, "result", json_incref(res));
			else if (result && !res)
				rec_set(job->rec, "resultText", json_string(result));
			json_decref(res);
		} else {
			rec_set(job->rec, "status", json_string("failed"));
			rec_set(job->rec, "error", json_string(err ? sw_error_message(err) : sw_strerror(rc)));
			/* the failure's catalog code (and what it said) ride on the record's result */
			const char *code = err ? sw_error_failure_code(err) : NULL;
			if (code && *code) {
				json_t *res = json_pack("{s:s,s:s}", "failureCode", code, "what", sw_error_message(err));
				const char *hint = sw_error_hint(err);
				if (res && hint && *hint)
					json_object_set_new(res, "next", json_string(hint));
				const char *dj = sw_error_details_json(err);
				json_t *det = dj ? json_loads(dj, 0, NULL) : NULL;
				if (res && json_is_object(det))
					json_object_set(res, "details", det);
				json_decref(det);
				if (res)
					rec_set(job->rec, "result", res);
			}
		}
		rec_set(job->rec, "endedAt", now_iso());
		sw__session_touch(s);
	}
	pthread_cond_broadcast(&s->job_cond);
	pthread_mutex_unlock(&s->lock);
	free(result);
	sw_error_free(err);
	if (job->free_fn)
		job->free_fn(job->userdata);
	job->userdata = NULL;
	return NULL;
}

SW_API int sw_job_start(sw_session *s, const char *kind, sw_job_fn fn, void *userdata, sw_job_free_fn free_fn,
                        char **job_id, sw_error **err)
{
	if (!s || !kind || !*kind || !fn)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_job_start: session, kind and fn are required");
	sw_job *job = calloc(1, sizeof(*job));
	char *idcopy = NULL;
	if (!job || !(job->kind = sw__strdup(kind))) {
		free(job);
		return sw__error_nomem(err);
	}
	job->s = s;
	job->fn = fn;
	job->userdata = userdata;
	job->free_fn = free_fn;
	pthread_mutex_lock(&s->lock);
	for (bool clash = true; clash;) {
		sw__store_random_id(job->id);
		clash = false;
		for (size_t i = 0; i < s->n_jobs; i++)
			clash = clash || !strcmp(s->jobs[i]->id, job->id);
	}
	json_t *jobs = json_object_get(s->state, "jobs");
	if (!json_is_array(jobs)) {
		jobs = json_array();
		json_object_set_new(s->state, "jobs", jobs);
	}
	job->rec = json_pack("{s:s, s:s, s:s, s:o, s:[]}", "jobId", job->id, "kind", kind, "status", "running",
	                     "startedAt", now_iso(), "artifactUris");
	if (s->n_jobs == s->cap_jobs) {
		size_t nc = s->cap_jobs ? s->cap_jobs * 2 : 8;
		sw_job **nj = realloc(s->jobs, nc * sizeof(*nj));
		if (nj) {
			s->jobs = nj;
			s->cap_jobs = nc;
		}
	}
	idcopy = sw__strdup(job->id);
	if (!job->rec || !idcopy || s->n_jobs == s->cap_jobs || json_array_append(jobs, job->rec) != 0) {
		pthread_mutex_unlock(&s->lock);
		json_decref(job->rec);
		free(idcopy);
		free(job->kind);
		free(job);
		return sw__error_nomem(err);
	}
	s->jobs[s->n_jobs++] = job;
	sw__session_touch(s);
	if (pthread_create(&job->thread, NULL, job_main, job) != 0) {
		rec_set(job->rec, "status", json_string("failed"));
		rec_set(job->rec, "error", json_string("could not start a thread for the job"));
		rec_set(job->rec, "endedAt", now_iso());
		pthread_mutex_unlock(&s->lock);
		free(idcopy);
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "could not start a thread for the job");
	}
	job->started = true;
	pthread_mutex_unlock(&s->lock);
	if (job_id)
		*job_id = idcopy;
	else
		free(idcopy);
	return SW_OK;
}

SW_API const char *sw_job_id(const sw_job *job)
{
	return job ? job->id : NULL;
}

SW_API sw_session *sw_job_session(const sw_job *job)
{
	return job ? job->s : NULL;
}

SW_API int sw_job_cancelled(const sw_job *job)
{
	return job ? atomic_load(&((sw_job *)job)->cancelled) : 0;
}

SW_API int sw_job_abort(void *job)
{
	return sw_job_cancelled(job);
}

SW_API int sw_job_sleep(sw_job *job, long ms)
{
	if (!job)
		return SW_EINVAL;
	sw_session *s = job->s;
	struct timespec dl;
	sw__deadline_in(&dl, ms < 0 ? 0 : ms);
	pthread_mutex_lock(&s->lock);
	int r = 0;
	while (!atomic_load(&job->cancelled) && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&s->job_cond, &s->lock, &dl);
	pthread_mutex_unlock(&s->lock);
	return atomic_load(&job->cancelled) ? SW_ECANCELLED : SW_OK;
}

SW_API int sw_job_set_progress(sw_job *job, const char *progress, const char *detail_json, sw_error **err)
{
	if (!job)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_job_set_progress: job is NULL");
	json_t *detail = NULL;
	if (detail_json) {
		detail = json_loads(detail_json, 0, NULL);
		if (!json_is_object(detail)) {
			json_decref(detail);
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "progress detail must be a JSON object");
		}
	}
	sw_session *s = job->s;
	pthread_mutex_lock(&s->lock);
	if (progress)
		rec_set(job->rec, "progress", json_string(progress));
	if (detail) {
		json_t *old = json_object_get(job->rec, "progressDetail");
		json_t *started = json_object_get(old, "startedAt");
		json_object_set_new(detail, "startedAt", started ? json_incref(started) : now_iso());
		json_object_set_new(detail, "updatedAt", now_iso());
		if (!json_object_get(detail, "userActionRequired"))
			json_object_set_new(detail, "userActionRequired", json_false());
		rec_set(job->rec, "progressDetail", detail);
	}
	sw__session_touch(s);
	pthread_mutex_unlock(&s->lock);
	return SW_OK;
}

SW_API int sw_job_add_artifact(sw_job *job, const char *uri, sw_error **err)
{
	if (!job || !uri)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_job_add_artifact: bad arguments");
	pthread_mutex_lock(&job->s->lock);
	json_array_append_new(json_object_get(job->rec, "artifactUris"), json_string(uri));
	sw__session_touch(job->s);
	pthread_mutex_unlock(&job->s->lock);
	return SW_OK;
}

SW_API int sw_job_add_child(sw_job *job, int pid, sw_error **err)
{
	if (!job || pid <= 0)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_job_add_child: bad arguments");
	int rc = SW_OK;
	bool kill_now = false;
	pthread_mutex_lock(&job->s->lock);
	if (job->n_children >= MAX_CHILDREN)
		rc = sw__error_set(err, SW_ELIMIT, "UNKNOWN", NULL, "a job can track at most %d child processes",
		                   MAX_CHILDREN);
	else
		job->children[job->n_children++] = pid;
	kill_now = atomic_load(&job->cancelled);
	pthread_mutex_unlock(&job->s->lock);
	if (rc == SW_OK && kill_now)
		kill(getpgid(pid) == pid ? -pid : pid, SIGTERM); /* started after the cancel */
	return rc;
}

SW_API void sw_job_remove_child(sw_job *job, int pid)
{
	if (!job)
		return;
	pthread_mutex_lock(&job->s->lock);
	for (size_t i = 0; i < job->n_children; i++) {
		if (job->children[i] == pid) {
			job->children[i] = job->children[--job->n_children];
			break;
		}
	}
	pthread_cond_broadcast(&job->s->job_cond);
	pthread_mutex_unlock(&job->s->lock);
}

static sw_job *find_job_locked(sw_session *s, const char *id)
{
	for (size_t i = 0; i < s->n_jobs; i++)
		if (!strcmp(s->jobs[i]->id, id))
			return s->jobs[i];
	return NULL;
}

static json_t *find_rec_locked(sw_session *s, const char *id)
{
	size_t i;
	json_t *rec;
	json_array_foreach(json_object_get(s->state, "jobs"), i, rec)
	{
		const char *rid = json_string_value(json_object_get(rec, "jobId"));
		if (rid && !strcmp(rid, id))
			return rec;
	}
	return NULL;
}

static void signal_children(int *pids, size_t n, int sig)
{
	for (size_t i = 0; i < n; i++)
		kill(getpgid(pids[i]) == pids[i] ? -pids[i] : pids[i], sig);
}

/* Cancels @job (caller holds s->lock); returns whether it was running. Children are signalled by the caller. */
static bool cancel_locked(sw_job *job, int *pids, size_t *n_pids)
{
	*n_pids = 0;
	if (!is_running(job->rec) || atomic_load(&job->cancelled))
		return false;
	atomic_store(&job->cancelled, 1);
	rec_set(job->rec, "status", json_string("cancelled"));
	rec_set(job->rec, "endedAt", now_iso());
	rec_set(job->rec, "result", NULL);
	memcpy(pids, job->children, job->n_children * sizeof(int));
	*n_pids = job->n_children;
	sw__session_touch(job->s);
	pthread_cond_broadcast(&job->s->job_cond);
	return true;
}

/* SIGTERM now; SIGKILL for children still registered (not reaped) after the grace period. */
static void stop_children(sw_job *job, int *pids, size_t n)
{
	if (!n)
		return;
	signal_children(pids, n, SIGTERM);
	sw_session *s = job->s;
	struct timespec dl;
	sw__deadline_in(&dl, KILL_GRACE_MS);
	pthread_mutex_lock(&s->lock);
	int r = 0;
	while (job->n_children > 0 && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&s->job_cond, &s->lock, &dl);
	int left[MAX_CHILDREN];
	size_t nl = job->n_children;
	memcpy(left, job->children, nl * sizeof(int));
	pthread_mutex_unlock(&s->lock);
	signal_children(left, nl, SIGKILL);
}

SW_API int sw_job_cancel(sw_session *s, const char *job_id, int *cancelled, sw_error **err)
{
	if (!s || !job_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_job_cancel: bad arguments");
	int pids[MAX_CHILDREN];
	size_t n = 0;
	pthread_mutex_lock(&s->lock);
	sw_job *job = find_job_locked(s, job_id);
	bool was = job && cancel_locked(job, pids, &n);
	pthread_mutex_unlock(&s->lock);
	if (was)
		stop_children(job, pids, n);
	if (cancelled)
		*cancelled = was ? 1 : 0;
	return SW_OK;
}

SW_API int sw_job_status_json(sw_session *s, const char *job_id, long wait_ms, sw_abort_fn abort_fn,
                              void *abort_userdata, char **out, sw_error **err)
{
	if (!s || !job_id || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_job_status_json: bad arguments");
	if (wait_ms < 0)
		wait_ms = 0;
	if (wait_ms > WAIT_CLAMP_MS)
		wait_ms = WAIT_CLAMP_MS;
	int64_t t0 = sw_monotonic_ms();
	bool timed_out = false, aborted = false;
	pthread_mutex_lock(&s->lock);
	json_t *rec = find_rec_locked(s, job_id);
	if (!rec) {
		pthread_mutex_unlock(&s->lock);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Use the jobId returned by the call that started the job.",
		                     "Unknown jobId \"%s\" in session %s", job_id, s->id);
	}
	while (wait_ms > 0 && is_running(rec)) {
		int64_t left = wait_ms - (sw_monotonic_ms() - t0);
		if (left <= 0) {
			timed_out = true;
			break;
		}
		if (abort_fn) {
			pthread_mutex_unlock(&s->lock);
			aborted = abort_fn(abort_userdata) != 0;
			pthread_mutex_lock(&s->lock);
			if (aborted)
				break;
		}
		struct timespec dl;
		sw__deadline_in(&dl, left < 100 ? left : 100);
		pthread_cond_timedwait(&s->job_cond, &s->lock, &dl);
		rec = find_rec_locked(s, job_id);
		if (!rec)
			break;
	}
	json_t *copy = rec ? sw__session_redacted_copy(s, rec) : NULL;
	pthread_mutex_unlock(&s->lock);
	if (aborted) {
		json_decref(copy);
		return sw__error_set(err, SW_ECANCELLED, "CANCELLED",
		                     "The job keeps running; poll it again with qa_job_status.",
		                     "the wait for job %s was cancelled", job_id);
	}
	if (!copy)
		return sw__error_nomem(err);
	json_t *outj = json_object();
	/* clang-format off */
	static const char *const keys[] = {
		"jobId", "kind", "status", "progress", "progressDetail", "error", "failureCode", "result", "artifactUris",
	};
	/* clang-format on */
	for (size_t i = 0; outj && i < SW_ARRAY_SIZE(keys); i++) {
		json_t *v = json_object_get(copy, keys[i]);
		if (v)
			json_object_set(outj, keys[i], v);
	}
	if (outj && !json_object_get(outj, "artifactUris"))
		json_object_set_new(outj, "artifactUris", json_array());
	if (outj && wait_ms > 0)
		json_object_set_new(
		    outj, "waited",
		    json_pack("{s:I, s:b}", "waitedMs", (json_int_t)(sw_monotonic_ms() - t0), "timedOut", timed_out));
	json_decref(copy);
	char *text = outj ? sw__json_compact(outj) : NULL;
	json_decref(outj);
	if (!text)
		return sw__error_nomem(err);
	*out = text;
	return SW_OK;
}

void sw__session_jobs_shutdown(struct sw_session *s)
{
	int pids[MAX_CHILDREN];
	size_t n;
	for (size_t i = 0; i < s->n_jobs; i++) {
		sw_job *job = s->jobs[i];
		pthread_mutex_lock(&s->lock);
		bool was = cancel_locked(job, pids, &n);
		pthread_mutex_unlock(&s->lock);
		if (was)
			stop_children(job, pids, n);
	}
	for (size_t i = 0; i < s->n_jobs; i++) {
		sw_job *job = s->jobs[i];
		if (job->started)
			pthread_join(job->thread, NULL);
		json_decref(job->rec);
		free(job->kind);
		free(job);
	}
	s->n_jobs = 0;
}

SW_API void sw_store_cancel_jobs(sw_store *store)
{
	if (!store)
		return;
	pthread_mutex_lock(&store->lock);
	size_t ns = store->n_sessions;
	pthread_mutex_unlock(&store->lock);
	for (size_t k = 0; k < ns; k++) {
		pthread_mutex_lock(&store->lock);
		sw_session *s = store->sessions[k];
		pthread_mutex_unlock(&store->lock);
		int pids[MAX_CHILDREN];
		size_t n;
		pthread_mutex_lock(&s->lock);
		size_t nj = s->n_jobs;
		pthread_mutex_unlock(&s->lock);
		for (size_t i = 0; i < nj; i++) {
			pthread_mutex_lock(&s->lock);
			sw_job *job = s->jobs[i];
			bool was = cancel_locked(job, pids, &n);
			pthread_mutex_unlock(&s->lock);
			if (was)
				stop_children(job, pids, n);
		}
	}
}
