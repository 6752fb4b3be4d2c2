/* run.c: running a build plan: each step argv-only in its own process group, one redacted build log, the
 * artifact found again afterwards; as a job of its session. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <swipium/job.h>
#include <swipium/redact.h>

#include "build-internal.h"
#include "sw-proc.h"

/* The build log kept in memory (it is redacted before anything is written): its first LOG_HEAD bytes and
 * its last LOG_TAIL bytes; what lies between is counted and named in the log. */
#define LOG_HEAD ((size_t)1 << 20)
#define LOG_TAIL ((size_t)7 << 20)

typedef struct build_log {
	sw_buf head, tail;
	size_t dropped;
} build_log;

/* Appends to @tail and keeps its last @keep bytes once it holds twice that; returns how many bytes it dropped. */
static size_t tail_append(sw_buf *tail, const char *data, size_t len, size_t keep)
{
	sw__buf_append(tail, data, len);
	if (tail->len <= 2 * keep)
		return 0;
	size_t cut = tail->len - keep;
	memmove(tail->data, tail->data + cut, keep);
	tail->len = keep;
	tail->data[tail->len] = '\0';
	return cut;
}

static void log_put(build_log *l, const char *data, size_t len)
{
	if (l->head.len < LOG_HEAD) {
		size_t room = LOG_HEAD - l->head.len;
		size_t k = len < room ? len : room;
		sw__buf_append(&l->head, data, k);
		data += k;
		len -= k;
	}
	if (!len)
		return;
	l->dropped += tail_append(&l->tail, data, len, LOG_TAIL);
}

static void log_printf(build_log *l, const char *fmt, ...) SW_PRINTF(2, 3);
static void log_printf(build_log *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n > 0)
		log_put(l, s, (size_t)n);
	free(s);
}

/* What one step wrote goes into the log and, for the classifier, into its own tail (the last STEP_TAIL bytes). */
#define STEP_TAIL ((size_t)2 << 20)

typedef struct step_sink {
	build_log *log;
	sw_buf tail;
} step_sink;

static void log_sink(void *ud, const char *data, size_t len)
{
	step_sink *ss = ud;
	log_put(ss->log, data, len);
	(void)tail_append(&ss->tail, data, len, STEP_TAIL);
}

/* The whole log as one text (the dropped middle named). (transfer full) */
static char *log_text(build_log *l, size_t *len)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_append(&b, l->head.data ? l->head.data : "", l->head.len);
	if (l->dropped || l->tail.len > LOG_TAIL) {
		size_t skip = l->tail.len > LOG_TAIL ? l->tail.len - LOG_TAIL : 0;
		sw__buf_printf(&b, "\n[swipium: %zu bytes of build output left out here; the log keeps the first %zu "
		                   "and the last %zu bytes]\n",
		               l->dropped + skip, LOG_HEAD, LOG_TAIL);
		sw__buf_append(&b, l->tail.data + skip, l->tail.len - skip);
	} else if (l->tail.len) {
		sw__buf_append(&b, l->tail.data, l->tail.len);
	}
	if (b.failed) {
		sw__buf_free(&b);
		return NULL;
	}
	if (!b.data)
		return sw__strdup("");
	return sw__buf_steal(&b, len);
}

static void log_free(build_log *l)
{
	sw__buf_free(&l->head);
	sw__buf_free(&l->tail);
}

static int64_t mtime_ms(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

/* The argv as one line for the log: each word single-quoted when it is not plain. */
static void put_argv(sw_buf *b, json_t *argv)
{
	size_t i;
	json_t *a;
	json_array_foreach(argv, i, a)
	{
		const char *s = json_string_value(a);
		bool plain = s && *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,%") ==
		                               strlen(s);
		if (i)
			sw__buf_putc(b, ' ');
		if (plain) {
			sw__buf_puts(b, s);
			continue;
		}
		sw__buf_putc(b, '\'');
		for (const char *c = s ? s : ""; *c; c++)
			if (*c == '\'')
				sw__buf_puts(b, "'\\''");
			else
				sw__buf_putc(b, *c);
		sw__buf_putc(b, '\'');
	}
}

static void next_steps_for(json_t *res, const char *code, const json_t *step, const char *root)
{
	json_t *ns = json_array();
	const char *tool = json_string_value(json_object_get(step, "tool"));
	if (!strcmp(code, "BUILD_COMMAND_UNAVAILABLE"))
		json_array_append_new(ns, json_sprintf("Install %s (or put it on the server's PATH), then run the build "
		                                       "again", tool ? tool : "the missing tool"));
	else if (!strcmp(code, "DEPENDENCY_INSTALL_REQUIRED"))
		json_array_append_new(ns, json_sprintf("Run `%s` in %s yourself (network, registry, credentials) and "
		                                       "read its error; then run the build again",
		                                       json_string_value(json_object_get(step, "command")),
		                                       json_string_value(json_object_get(step, "cwd"))));
	else if (!strcmp(code, "EXPO_PREBUILD_REQUIRED"))
		json_array_append_new(ns, json_sprintf("Run npx expo prebuild --clean in %s (it rewrites the native "
		                                       "folders; commit your changes first)",
		                                       json_string_value(json_object_get(step, "cwd"))));
	else if (!strcmp(code, "BUILD_TIMED_OUT"))
		json_array_append_new(ns, json_string("Run the build again with a larger timeoutMs (a first build "
		                                      "downloads a lot), or run the step yourself to see where it hangs"));
	else if (!strcmp(code, "BUILD_ARTIFACT_UNRESOLVED_AFTER_SUCCESS"))
		json_array_append_new(ns, json_sprintf("The build ended well but wrote no app Swipium can find under %s: "
		                                       "check the build's output folder and pass its file to "
		                                       "qa_resolve_artifact {path}",
		                                       root));
	else
		json_array_append_new(ns, json_string("Read the build log (logUri with qa_get_artifact), fix the "
		                                      "project, then run the build again"));
	json_object_set_new(res, "nextSteps", ns);
}

/* Non-zero when @path exists and, every symlink resolved, lies inside @root. */
static bool confined(const char *root, const char *path)
{
	char *real = NULL;
	bool ok = sw_project_path_confine(root, path, 1, &real, NULL) == SW_OK;
	sw_free(real);
	return ok;
}

/* Runs one step; fills @st (its record) and returns the verdict when it failed, NULL when it succeeded. */
static json_t *run_step(const char *root, const json_t *step, size_t idx, size_t total, long timeout_ms,
                        int (*abort_fn)(void *), void *abort_ud, build_log *log, json_t *st, bool *aborted)
{
	const char *cwd = json_string_value(json_object_get(step, "cwd"));
	const char *label = json_string_value(json_object_get(step, "label"));
	const char *kind = json_string_value(json_object_get(step, "kind"));
	const char *tool = json_string_value(json_object_get(step, "tool"));
	json_t *argv = json_object_get(step, "argv");
	size_t n = json_array_size(argv);
	sw_buf line = SW_BUF_INIT;
	put_argv(&line, argv);
	log_printf(log, "[swipium] step %zu/%zu: %s\n[swipium] $ %s\n[swipium]   in %s\n", idx + 1, total,
	           label ? label : "", line.data ? line.data : "", cwd ? cwd : "");
	sw__buf_free(&line);
	step_sink ss = {log, SW_BUF_INIT};

	/* the program: a relative path (./gradlew) is the project's own, a bare name is looked up on PATH */
	const char *prog = json_string_value(json_array_get(argv, 0));
	char *abs = NULL;
	if (prog && strchr(prog, '/'))
		abs = prog[0] == '/' ? sw__strdup(prog) : sw__path_join(cwd, prog);
	else if (prog)
		abs = sw__build_which(prog);
	int64_t t0 = sw_monotonic_ms();
	sw__proc_result r = {0};
	int exec_errno = 0;
	/* the folder, and a program of the project's own (./gradlew), must stay inside the project once every
	 * symlink is resolved: a wrapper or android/ folder linked elsewhere is not run */
	const char *outside = NULL;
	if (cwd && !confined(root, cwd))
		outside = "the step's folder does not exist or resolves outside the project";
	else if (abs && prog && prog[0] != '/' && strchr(prog, '/') &&
	         !confined(root, abs))
		outside = "the project's program does not exist or resolves outside the project";
	if (outside) {
		exec_errno = ENOENT;
		log_printf(log, "[swipium] %s: %s\n", prog ? prog : "(no program)", outside);
	} else if (!abs || n == 0 || !cwd || !sw__is_dir(cwd)) {
		exec_errno = ENOENT;
		log_printf(log, "[swipium] %s: %s\n", prog ? prog : "(no program)",
		           !cwd || !sw__is_dir(cwd) ? "the step's folder does not exist" : "not found on PATH");
	} else {
		const char **av = calloc(n + 1, sizeof(*av));
		if (av) {
			av[0] = abs;
			for (size_t i = 1; i < n; i++)
				av[i] = json_string_value(json_array_get(argv, i));
			sw__proc_opts o = {
			    .timeout_ms = (int)timeout_ms,
			    .abort_fn = abort_fn,
			    .abort_ud = abort_ud,
			    .cwd = cwd,
			    .term_grace_ms = SW_BUILD_KILL_GRACE_MS,
			    .sink = log_sink,
			    .sink_ud = &ss,
			    .exit_ends = true,
			};
			sw_error *e = NULL;
			if (sw__proc_run(av, &o, &r, &e) != SW_OK) {
				exec_errno = r.exec_errno ? r.exec_errno : EIO;
				log_printf(log, "[swipium] %s\n", sw_error_message(e));
			}
			sw_error_free(e);
			free(av);
		} else {
			exec_errno = ENOMEM;
		}
	}
	int64_t took = sw_monotonic_ms() - t0;
	*aborted = r.cancelled;
	int status = exec_errno ? -1 : r.status;
	if (r.timed_out)
		log_printf(log, "\n[swipium] step %zu/%zu stopped: it ran past its %ld ms limit (SIGTERM to its process "
		                "group, SIGKILL after %d ms)\n",
		           idx + 1, total, timeout_ms, SW_BUILD_KILL_GRACE_MS);
	else if (r.cancelled)
		log_printf(log, "\n[swipium] step %zu/%zu stopped: the build was cancelled\n", idx + 1, total);
	else if (!exec_errno)
		log_printf(log, "\n[swipium] step %zu/%zu ended: %s %d after %.1f s\n", idx + 1, total,
		           r.status >= 0 ? "exit status" : "signal", r.status >= 0 ? r.status : r.signal, took / 1000.0);
	json_object_set_new(st, "label", json_string(label ? label : ""));
	json_object_set_new(st, "command", json_deep_copy(json_object_get(step, "command")));
	json_object_set_new(st, "exitStatus", status >= 0 ? json_integer(status) : json_null());
	if (r.signal)
		json_object_set_new(st, "signal", json_integer(r.signal));
	json_object_set_new(st, "durationMs", json_integer(took));
	if (r.timed_out)
		json_object_set_new(st, "timedOut", json_true());
	json_t *v = NULL;
	if (!r.cancelled && (exec_errno || r.timed_out || r.status != 0)) {
		/* classify what this step wrote */
		v = sw__build_classify(kind, tool, status, exec_errno, r.timed_out, ss.tail.data ? ss.tail.data : "",
		                       ss.tail.len);
	}
	sw__buf_free(&ss.tail);
	free(abs);
	sw__proc_result_clear(&r);
	return v;
}

/* Redacts and saves the log; returns its URI (transfer full) or NULL. */
static char *save_log(sw_session *s, build_log *log, json_t *warnings)
{
	size_t len = 0;
	char *text = log_text(log, &len);
	if (!text)
		return NULL;
	char *clean = NULL;
	size_t clean_len = 0;
	sw_error *e = NULL;
	sw_redactor *red = sw_session_redactor(s);
	if (red && sw_redactor_redact_text(red, text, len, &clean, &clean_len, NULL, &e) != SW_OK) {
		json_array_append_new(warnings, json_sprintf("the build log could not be redacted, so it was not saved: %s",
		                                             sw_error_message(e)));
		sw_error_free(e);
		free(text);
		return NULL;
	}
	free(text);
	if (!red) {
		json_array_append_new(warnings, json_string("the session has no redactor, so the build log was not saved"));
		return NULL;
	}
	char *name = NULL, *meta = NULL, *uri = NULL;
	if (sw_artifact_next_name(s, "logs", "build", ".log", &name, &e) == SW_OK &&
	    sw_artifact_save(s, "logs", name, "text/plain", clean, clean_len, "build log", &meta, &e) == SW_OK) {
		json_t *m = json_loads(meta, 0, NULL);
		const char *u = json_string_value(json_object_get(m, "uri"));
		uri = u ? sw__strdup(u) : NULL;
		json_decref(m);
	} else {
		json_array_append_new(warnings, json_sprintf("the build log could not be saved: %s", sw_error_message(e)));
	}
	sw_error_free(e);
	sw_free(name);
	sw_free(meta);
	sw_free(clean);
	return uri;
}

/* After a successful build: the best artifact written since @since_ms, or the failure result. */
static json_t *find_built(sw_ctx *ctx, const char *root, const json_t *plan, int64_t since_ms)
{
	json_t *o = json_pack("{s:O,s:O}", "platform", json_object_get(plan, "platform"), "buildType",
	                      json_object_get(plan, "variant"));
	char *oj = sw__json_compact(o);
	json_decref(o);
	char *out = NULL;
	sw_error *e = NULL;
	int rc = sw_artifact_resolve(ctx, root, oj, &out, &e);
	free(oj);
	json_t *res = rc == SW_OK ? json_loads(out, 0, NULL) : NULL;
	sw_free(out);
	json_t *searched = NULL;
	json_t *older = json_array();
	if (res) {
		searched = json_incref(json_object_get(res, "searchedLocations"));
		size_t i;
		json_t *c;
		json_array_foreach(json_object_get(res, "candidates"), i, c)
		{
			const char *path = json_string_value(json_object_get(c, "path"));
			/* file systems with coarse time stamps: a second of slack */
			if (path && mtime_ms(path) >= since_ms - 1000) {
				json_t *hit = json_pack("{s:O}", "artifact", c);
				json_decref(res);
				json_decref(searched);
				json_decref(older);
				sw_error_free(e);
				return hit;
			}
			if (path)
				json_array_append_new(older, json_string(path));
		}
	} else {
		json_t *d = e && sw_error_details_json(e) ? json_loads(sw_error_details_json(e), 0, NULL) : NULL;
		searched = json_incref(json_object_get(d, "searchedLocations"));
		json_decref(d);
	}
	json_t *fail = json_pack("{s:s,s:o}", "failureCode", "BUILD_ARTIFACT_UNRESOLVED_AFTER_SUCCESS",
	                         "searchedLocations", searched ? searched : json_array());
	char *what = sw__asprintf("Every build step ended well, but no %s app written by this build was found%s.",
	                          json_string_value(json_object_get(plan, "platform")),
	                          json_array_size(older) ? " (only older ones)" : "");
	json_object_set_new(fail, "what", json_string(what ? what : "No app was found after the build."));
	free(what);
	if (json_array_size(older))
		json_object_set(fail, "olderArtifacts", older);
	json_decref(older);
	json_decref(res);
	sw_error_free(e);
	return fail;
}

/* Called before each step with its number, the total and the step (nullable). */
typedef void (*progress_fn)(void *ud, size_t idx, size_t total, const json_t *step);

static int build_run(sw_ctx *ctx, sw_session *s, const char *plan_json, long step_timeout_ms,
                     int (*abort_fn)(void *), void *abort_ud, progress_fn progress, void *progress_ud,
                     char **out_json, sw_error **err)
{
	if (!s || !plan_json || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_build_run: session, plan and out_json are required");
	json_t *plan = json_loads(plan_json, 0, NULL);
	json_t *pre = json_object_get(plan, "prerequisites"), *bld = json_object_get(plan, "build");
	if (!json_is_object(plan) || !json_is_array(pre) || !json_is_array(bld) || json_array_size(bld) == 0) {
		json_decref(plan);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass the plan sw_build_plan() returned.",
		                     "The build plan has no build steps.");
	}
	if (step_timeout_ms <= 0)
		step_timeout_ms = SW_BUILD_STEP_TIMEOUT_MS;
	if (step_timeout_ms > INT32_MAX)
		step_timeout_ms = INT32_MAX;
	json_t *steps = json_array();
	size_t i;
	json_t *v;
	json_array_foreach(pre, i, v) json_array_append(steps, v);
	json_array_foreach(bld, i, v) json_array_append(steps, v);
	size_t total = json_array_size(steps);
	build_log log = {SW_BUF_INIT, SW_BUF_INIT, 0};
	json_t *records = json_array(), *warnings = json_array();
	json_t *res = NULL;
	bool aborted = false;
	int64_t since = sw_wall_ms();
	const char *root = sw_session_root(s);
	char started[SW_ISO_TIME_SIZE];
	log_printf(&log, "[swipium] build of %s (%s %s, %s) started %s\n",
	           json_string_value(json_object_get(plan, "appRoot")), json_string_value(json_object_get(plan, "platform")),
	           json_string_value(json_object_get(plan, "variant")), json_string_value(json_object_get(plan, "framework")),
	           sw_iso_time(since, started));
	for (i = 0; i < total && !res && !aborted; i++) {
		json_t *step = json_array_get(steps, i);
		if (progress)
			progress(progress_ud, i, total, step);
		json_t *st = json_object();
		json_t *verdict = run_step(root, step, i, total, step_timeout_ms, abort_fn, abort_ud, &log, st, &aborted);
		json_array_append_new(records, st);
		if (verdict) {
			res = json_pack("{s:b,s:O,s:O,s:O}", "built", 0, "failureCode", json_object_get(verdict, "failureCode"),
			                "failedStep", json_object_get(st, "label"), "exitStatus", json_object_get(st, "exitStatus"));
			json_object_set_new(res, "timedOut", json_boolean(json_is_true(json_object_get(st, "timedOut"))));
			const char *ln = json_string_value(json_object_get(verdict, "line"));
			sw_redactor *red = sw_session_redactor(s);
			if (ln) {
				char *clean = NULL;
				if (red && sw_redactor_redact_text(red, ln, strlen(ln), &clean, NULL, NULL, NULL) == SW_OK)
					json_object_set_new(verdict, "line", json_string(clean));
				else
					json_object_del(verdict, "line");
				sw_free(clean);
			}
			json_object_update_missing(res, verdict); /* signature, line, why */
			char *what = sw__asprintf("Build step %zu/%zu (%s) failed: %s.", i + 1, total,
			                          json_string_value(json_object_get(st, "label")),
			                          json_string_value(json_object_get(verdict, "why")));
			json_object_set_new(res, "what", json_string(what ? what : "A build step failed."));
			free(what);
			next_steps_for(res, json_string_value(json_object_get(verdict, "failureCode")), step, root);
			json_decref(verdict);
		}
	}
	if (aborted) {
		log_printf(&log, "[swipium] build cancelled\n");
		res = json_pack("{s:b,s:s,s:s}", "built", 0, "failureCode", "CANCELLED", "what", "The build was cancelled.");
	}
	if (!res) {
		log_printf(&log, "[swipium] every step ended well; looking for the app the build wrote\n");
		json_t *found = find_built(ctx, root, plan, since);
		if (json_object_get(found, "artifact")) {
			res = json_pack("{s:b,s:O}", "built", 1, "artifact", json_object_get(found, "artifact"));
			log_printf(&log, "[swipium] built: %s\n",
			           json_string_value(json_object_get(json_object_get(found, "artifact"), "path")));
		} else {
			res = json_pack("{s:b}", "built", 0);
			json_object_update(res, found);
			next_steps_for(res, "BUILD_ARTIFACT_UNRESOLVED_AFTER_SUCCESS", NULL, root);
			log_printf(&log, "[swipium] %s\n", json_string_value(json_object_get(found, "what")));
		}
		json_decref(found);
	}
	char *uri = save_log(s, &log, warnings);
	json_object_set_new(res, "logUri", uri ? json_string(uri) : json_null());
	free(uri);
	json_object_set(res, "steps", records);
	if (json_array_size(warnings))
		json_object_set(res, "warnings", warnings);
	*out_json = sw__json_compact(res);
	int rc = *out_json ? SW_OK : sw__error_nomem(err);
	json_decref(res);
	json_decref(records);
	json_decref(warnings);
	json_decref(steps);
	json_decref(plan);
	log_free(&log);
	return rc;
}

SW_API int sw_build_run(sw_ctx *ctx, sw_session *s, const char *plan_json, long step_timeout_ms,
                        int (*abort_fn)(void *), void *abort_ud, char **out_json, sw_error **err)
{
	return build_run(ctx, s, plan_json, step_timeout_ms, abort_fn, abort_ud, NULL, NULL, out_json, err);
}

/* ---- as a job ------------------------------------------------------------------------------------------ */

/* The job's progress: which step runs, its command and folder. */
static void job_progress(void *ud, size_t idx, size_t total, const json_t *step)
{
	sw_job *job = ud;
	char *text = sw__asprintf("step %zu/%zu: %s", idx + 1, total, json_string_value(json_object_get(step, "label")));
	char *status = sw__asprintf("%s (in %s)", json_string_value(json_object_get(step, "command")),
	                            json_string_value(json_object_get(step, "cwd")));
	json_t *d = json_pack("{s:s?,s:s?,s:b}", "phase", json_string_value(json_object_get(step, "kind")), "statusText",
	                      status, "userActionRequired", 0);
	free(status);
	char *dj = d ? sw__json_compact(d) : NULL;
	if (text)
		sw_job_set_progress(job, text, dj, NULL);
	free(dj);
	json_decref(d);
	free(text);
}

struct build_job {
	char *plan, *home;
	long timeout_ms;
};

static void build_job_free(void *ud)
{
	struct build_job *bj = ud;
	free(bj->plan);
	free(bj->home);
	free(bj);
}

static int build_job_run(sw_job *job, void *ud, char **result_json, sw_error **err)
{
	struct build_job *bj = ud;
	sw_ctx *ctx = NULL;
	int rc = sw_ctx_new(&ctx, err);
	if (rc != SW_OK)
		return rc;
	if (bj->home)
		sw_ctx_set_home(ctx, bj->home, NULL);
	sw_job_set_progress(job, "building (the steps run one after the other; the log is saved at the end)", NULL,
	                    NULL);
	char *out = NULL;
	rc = build_run(ctx, sw_job_session(job), bj->plan, bj->timeout_ms, sw_job_abort, job, job_progress, job, &out, err);
	sw_ctx_free(ctx);
	if (rc != SW_OK)
		return rc;
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	const char *uri = json_string_value(json_object_get(res, "logUri"));
	if (uri)
		sw_job_add_artifact(job, uri, NULL);
	*result_json = json_dumps(res, JSON_COMPACT);
	json_decref(res);
	return *result_json ? SW_OK : sw__error_nomem(err);
}

SW_API int sw_build_start(sw_ctx *ctx, sw_session *s, const char *plan_json, long step_timeout_ms, char **job_id,
                          sw_error **err)
{
	if (!s || !plan_json || !job_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_build_start: bad arguments");
	struct build_job *bj = calloc(1, sizeof(*bj));
	if (!bj)
		return sw__error_nomem(err);
	bj->plan = sw__strdup(plan_json);
	const char *home = ctx ? sw_ctx_get_home(ctx) : NULL;
	bj->home = home ? sw__strdup(home) : NULL;
	bj->timeout_ms = step_timeout_ms;
	if (!bj->plan) {
		build_job_free(bj);
		return sw__error_nomem(err);
	}
	int rc = sw_job_start(s, "build", build_job_run, bj, build_job_free, job_id, err);
	if (rc != SW_OK)
		build_job_free(bj);
	return rc;
}
