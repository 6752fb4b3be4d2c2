/* record.c: screen recording: `adb shell screenrecord` in the background, one per session, pulled as an mp4 artifact.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "devctl-internal.h"

extern char **environ;

#define MAX_RECORDERS 16
#define TIME_LIMIT_S 180

struct recorder {
	bool used;
	char sid[64];
	pid_t pid;
	bool exited; /* the adb child has been reaped */
	int64_t started_ms, exited_ms;
	char remote[128];
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
	int st;
	if (waitpid(r->pid, &st, WNOHANG) == r->pid) {
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
	sw__dc dc;
	int rc = sw__dc_from_device(ctx, dev, &dc, err);
	if (rc != SW_OK)
		return rc;
	pthread_mutex_lock(&rec_lock);
	struct recorder *r = find(sid);
	if (r) {
		pthread_mutex_unlock(&rec_lock);
		sw__dc_clear(&dc);
		return sw__error_set(err, SW_EEXISTS, "INVALID_ARGUMENT", "qa_screen_record {action:\"stop\"} first",
		                     "a recording is already running for this session (one per session)");
	}
	for (size_t i = 0; i < MAX_RECORDERS && !r; i++)
		if (!recorders[i].used)
			r = &recorders[i];
	if (!r) {
		pthread_mutex_unlock(&rec_lock);
		sw__dc_clear(&dc);
		return sw__error_set(err, SW_ELIMIT, "INVALID_ARGUMENT", NULL,
		                     "too many recordings are running in this server");
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->sid, sizeof(r->sid), "%s", sid);
	snprintf(r->serial, sizeof(r->serial), "%s", dc.serial);
	snprintf(r->remote, sizeof(r->remote), "/sdcard/swipium-rec-%s-%ld.mp4", sid, (long)time(NULL));
	r->on_failure = save && !strcmp(save, "on_failure");
	r->store = sw_session_store(s);
	char limit[16];
	snprintf(limit, sizeof(limit), "%d", TIME_LIMIT_S);
	const char *argv[] = {dc.adb, "-s", dc.serial, "shell", "screenrecord", "--time-limit", limit, r->remote, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&at, 0);
	pid_t pid;
	int e = posix_spawn(&pid, dc.adb, &fa, &at, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (e != 0) {
		pthread_mutex_unlock(&rec_lock);
		sw__dc_clear(&dc);
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "could not start adb screenrecord: %s", strerror(e));
	}
	r->used = true;
	r->pid = pid;
	r->started_ms = sw_monotonic_ms();
	json_t *st = status_of(r);
	pthread_mutex_unlock(&rec_lock);
	sw_store_process_add(sw_session_store(s), pid, "recording", sid, dc.serial, NULL);
	sw_session_add_env_change(s, "screen recording started (adb shell screenrecord, auto-stop after 180 s)", NULL);
	json_t *target = json_pack("{s:s,s:s}", "serial", dc.serial, "file", r->remote);
	sw__dc_ledger(s, "qa_screen_record", "screen_record", "medium", target, "executed", NULL);
	json_decref(target);
	sw__dc_clear(&dc);
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
	sw__dc dc = {0};
	dc.ctx = ctx;
	dc.adb = sw__android_find_adb(ctx);
	dc.serial = strdup(r->serial);
	int rc = SW_OK;
	if (!dc.adb || !dc.serial) {
		rc = sw__error_set(err, SW_ENOTFOUND, "ADB_NOT_FOUND", NULL, "adb was not found");
		goto out;
	}
	poll_child(r);
	bool was_capturing = !r->exited;
	if (!r->exited) {
		/* screenrecord finishes its file on SIGINT; then the adb client ends */
		char *o = NULL;
		sw__dc_shell(&dc, "pkill -INT screenrecord", 10000, &o, NULL, NULL);
		sw_free(o);
		for (int i = 0; i < 50 && !r->exited; i++) {
			usleep(100 * 1000);
			poll_child(r);
		}
		if (!r->exited) {
			kill(-r->pid, SIGINT);
			for (int i = 0; i < 20 && !r->exited; i++) {
				usleep(100 * 1000);
				poll_child(r);
			}
		}
		if (!r->exited) {
			kill(-r->pid, SIGKILL);
			waitpid(r->pid, NULL, 0);
			r->exited = true;
			r->exited_ms = sw_monotonic_ms();
		}
	}
	json_t *st = status_of(r);
	json_object_set_new(st, "recording", json_false());
	json_object_set_new(st, "capturing", json_false());
	json_object_set_new(st, "wasCapturing", json_boolean(was_capturing));
	sw_store_process_remove(r->store, r->pid, NULL);
	char name[160];
	snprintf(name, sizeof(name), "screenrecord-%s-%ld.mp4", r->sid, (long)time(NULL));
	if (discard) {
		json_object_set_new(st, "discarded", json_true());
		sw_session_add_env_change(s, "screen recording stopped and discarded (save: on_failure, no failure)",
		                          NULL);
	} else {
		char *local = NULL;
		rc = sw_artifact_path(s, "recording", name, &local, err);
		if (rc == SW_OK) {
			const char *args[] = {"pull", r->remote, local, NULL};
			sw__proc_result pr;
			rc = sw__dc_adb(&dc, args, 60000, &pr, err);
			if (rc == SW_OK) {
				struct stat sb;
				if (pr.status != 0 || stat(local, &sb) != 0 || sb.st_size == 0) {
					char *said = sw__cap(pr.out, 200);
					rc = sw__error_set(err, SW_EIO, "UNKNOWN",
					                   "the device may have stopped the recording before any frame",
					                   "could not pull the recording %s: %s", r->remote,
					                   said ? said : "");
					free(said);
					unlink(local);
				}
				sw__proc_result_clear(&pr);
			}
		}
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
	{
		char *rm = sw__asprintf("rm -f %s", r->remote);
		char *o = NULL;
		if (rm)
			sw__dc_shell(&dc, rm, 10000, &o, NULL, NULL);
		sw_free(o);
		free(rm);
	}
	if (out)
		*out = st;
	else
		json_decref(st);
out:
	memset(r, 0, sizeof(*r));
	sw__dc_clear(&dc);
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
			rc = sw__error_set(err, SW_ESTATE, "INVALID_ARGUMENT",
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
			poll_child(r);
			if (!r->exited) {
				kill(-r->pid, SIGINT);
				waitpid(r->pid, NULL, 0);
			}
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
