/* record.c: screen recording through the driver (sw_device_record_start), one per session, kept as an mp4 artifact.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "devctl-internal.h"

#define MAX_RECORDERS 16
#define TIME_LIMIT_S 180

struct recorder {
	bool used;
	char sid[64];
	sw_recording *rec; /* the driver's recording (outlives the device handle) */
	long pid;          /* its local capturing process (processes.json), or 0 */
	bool exited;       /* the capture ended */
	int64_t started_ms, exited_ms;
	char serial[128];
	bool on_failure; /* save: on_failure */
	sw_store *store;
};

static struct recorder recorders[MAX_RECORDERS];
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;

/* Reaps the child when it ended on its own (screenrecord's time limit, or the device went away). */
static void poll_child(struct recorder *r)
{
	if (r->exited)
		return;
	if (!sw_recording_poll(r->rec)) {
		r->exited = true;
		r->exited_ms = sw_monotonic_ms();
	}
}

static struct recorder *find(const char *sid)
{
	for (size_t i = 0; i < MAX_RECORDERS; i++)
		if (recorders[i].used && !strcmp(recorders[i].sid, sid))
			return &recorders[i];
	return NULL;
}

static json_t *status_of(struct recorder *r)
{
	if (!r)
		return json_pack("{s:b,s:b,s:b,s:i}", "recording", 0, "capturing", 0, "autoStopped", 0, "seconds", 0);
	poll_child(r);
	int64_t end = r->exited ? r->exited_ms : sw_monotonic_ms();
	double secs = (double)(end - r->started_ms) / 1000.0;
	/* screenrecord stops itself at its time limit: an exit near it is the auto-stop */
	bool auto_stopped = r->exited && secs >= TIME_LIMIT_S - 5;
	return json_pack("{s:b,s:b,s:b,s:f}", "recording", 1, "capturing", !r->exited, "autoStopped", auto_stopped,
	                 "seconds", secs);
}

static int start(sw_ctx *ctx, sw_session *s, sw_device *dev, json_t *opts, char **out_json, sw_error **err)
{
	const char *sid = sw_session_id(s);
	if (sw_session_is_sensitive(s))
		return sw__error_set(err, SW_EDENIED, "SENSITIVE_MODE_REFUSED", NULL,
		                     "screen recording is refused in a sensitive session");
	const char *save = json_string_value(json_object_get(opts, "save"));
	if (save && strcmp(save, "always") && strcmp(save, "on_failure"))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "save must be always or on_failure");
	(void)ctx;
	char *serial = sw__dc_serial(dev);
	if (!serial)
		return sw__error_nomem(err);
	pthread_mutex_lock(&rec_lock);
	struct recorder *r = find(sid);
	if (r) {
		pthread_mutex_unlock(&rec_lock);
		free(serial);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "qa_screen_record {action:\"stop\"} first",
		                     "a recording is already running for this session (one per session)");
	}
	for (size_t i = 0; i < MAX_RECORDERS && !r; i++)
		if (!recorders[i].used)
			r = &recorders[i];
	if (!r) {
		pthread_mutex_unlock(&rec_lock);
		free(serial);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "too many recordings are running in this server");
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->sid, sizeof(r->sid), "%s", sid);
	snprintf(r->serial, sizeof(r->serial), "%s", serial);
	r->on_failure = save && !strcmp(save, "on_failure");
	r->store = sw_session_store(s);
	int rc = sw_device_record_start(dev, TIME_LIMIT_S, &r->rec, &r->pid, err);
	if (rc != SW_OK) {
		memset(r, 0, sizeof(*r));
		pthread_mutex_unlock(&rec_lock);
		free(serial);
		return rc;
	}
	r->used = true;
	r->started_ms = sw_monotonic_ms();
	json_t *st = status_of(r);
	pthread_mutex_unlock(&rec_lock);
	if (r->pid > 0)
		sw_store_process_add(sw_session_store(s), (int)r->pid, "recording", sid, serial, NULL);
	sw_session_add_env_change(s, "screen recording started (auto-stop after 180 s)", NULL);
	json_t *target = json_pack("{s:s,s:s}", "serial", serial, "file", "screen recording");
	sw__dc_ledger(s, "qa_screen_record", "screen_record", "medium", target, "executed", NULL);
	json_decref(target);
	free(serial);
	json_object_set_new(st, "save", json_string(r->on_failure ? "on_failure" : "always"));
	*out_json = json_dumps(st, JSON_COMPACT);
	json_decref(st);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/*
 * Stops @r's capture, pulls the file and registers it (unless discarded). Called with
 * rec_lock held; @r is released on return. @out (nullable) gets the result object.
 */
static int stop_locked(sw_ctx *ctx, sw_session *s, struct recorder *r, bool discard, json_t **out, sw_error **err)
{
	(void)ctx;
	int rc = SW_OK;
	poll_child(r);
	bool was_capturing = !r->exited;
	json_t *st = status_of(r);
	json_object_set_new(st, "recording", json_false());
	json_object_set_new(st, "capturing", json_false());
	json_object_set_new(st, "wasCapturing", json_boolean(was_capturing));
	if (r->pid > 0)
		sw_store_process_remove(r->store, (int)r->pid, NULL);
	char name[160];
	snprintf(name, sizeof(name), "screenrecord-%s-%ld.mp4", r->sid, (long)time(NULL));
	if (discard) {
		rc = sw_recording_stop(r->rec, NULL, err);
		r->rec = NULL;
		json_object_set_new(st, "discarded", json_true());
		sw_session_add_env_change(s, "screen recording stopped and discarded (save: on_failure, no failure)",
		                          NULL);
	} else {
		char *local = NULL;
		rc = sw_artifact_path(s, "recording", name, &local, err);
		/* the driver stops the capture, and saves it when it has a path */
		int src = sw_recording_stop(r->rec, rc == SW_OK ? local : NULL, rc == SW_OK ? err : NULL);
		r->rec = NULL;
		if (rc == SW_OK)
			rc = src;
		if (rc == SW_OK) {
			char *meta = NULL;
			rc = sw_artifact_register(s, "recording", name, "video/mp4", "screen recording", &meta, err);
			if (rc == SW_OK) {
				json_t *m = json_loads(meta, 0, NULL);
				json_object_set(st, "uri", json_object_get(m, "uri"));
				json_object_set(st, "bytes", json_object_get(m, "bytes"));
				json_decref(m);
				sw_session_add_env_change(s, "screen recording stopped and saved", NULL);
			}
			sw_free(meta);
		}
		free(local);
	}
	if (out && rc == SW_OK)
		*out = st;
	else
		json_decref(st);
	memset(r, 0, sizeof(*r));
	return rc;
}

int sw_devctl_record(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json, char **out_json,
                     sw_error **err)
{
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : NULL;
	const char *action = json_string_value(json_object_get(opts, "action"));
	int rc;
	if (!json_is_object(opts) || !action) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "action must be start, status or stop");
	} else if (!strcmp(action, "start")) {
		rc = start(ctx, s, dev, opts, out_json, err);
	} else if (!strcmp(action, "status")) {
		pthread_mutex_lock(&rec_lock);
		json_t *st = status_of(find(sw_session_id(s)));
		pthread_mutex_unlock(&rec_lock);
		*out_json = json_dumps(st, JSON_COMPACT);
		json_decref(st);
		rc = *out_json ? SW_OK : sw__error_nomem(err);
	} else if (!strcmp(action, "stop")) {
		pthread_mutex_lock(&rec_lock);
		struct recorder *r = find(sw_session_id(s));
		if (!r) {
			pthread_mutex_unlock(&rec_lock);
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
			                   "qa_screen_record {action:\"start\"} first",
			                   "no recording is running for this session");
		} else {
			bool discard = r->on_failure && !json_is_true(json_object_get(opts, "failed"));
			json_t *st = NULL;
			rc = stop_locked(ctx, s, r, discard, &st, err);
			pthread_mutex_unlock(&rec_lock);
			if (rc == SW_OK) {
				*out_json = json_dumps(st, JSON_COMPACT);
				rc = *out_json ? SW_OK : sw__error_nomem(err);
			}
			json_decref(st);
		}
	} else {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "action must be start, status or stop");
	}
	json_decref(opts);
	return rc;
}

void sw_devctl_record_stop_all(sw_ctx *ctx, sw_store *store)
{
	pthread_mutex_lock(&rec_lock);
	for (size_t i = 0; i < MAX_RECORDERS; i++) {
		struct recorder *r = &recorders[i];
		if (!r->used || (store && r->store != store))
			continue;
		sw_session *s = NULL;
		if (sw_store_get_session(r->store, r->sid, &s, NULL) != SW_OK) {
			sw_recording_stop(r->rec, NULL, NULL);
			memset(r, 0, sizeof(*r));
			continue;
		}
		sw_error *e = NULL;
		if (stop_locked(ctx, s, r, false, NULL, &e) != SW_OK)
			sw__log_warn(ctx, "recording of session %s not saved at shutdown: %s", sw_session_id(s),
			             sw_error_message(e));
		sw_error_free(e);
	}
	pthread_mutex_unlock(&rec_lock);
}
