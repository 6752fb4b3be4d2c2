/* check-jobs.c: unit tests of background jobs: results, status vs result.state, long polls, cancellation, restarts. */
#include <check.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sw-internal.h"

typedef struct {
	char *home;
	sw_ctx *ctx;
	sw_store *store;
	sw_session *s;
} fixture;

static void fx_open(fixture *f)
{
	char tmpl[] = "/tmp/sw-jobs-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	f->home = strdup(tmpl);
	ck_assert_int_eq(sw_ctx_new(&f->ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(f->ctx, f->home, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(f->ctx, &f->store, NULL), SW_OK);
	ck_assert_int_eq(sw_session_create(f->store, f->home, NULL, NULL, &f->s, NULL), SW_OK);
}

static void fx_close(fixture *f)
{
	sw_store_free(f->store);
	sw_ctx_free(f->ctx);
	char *cmd = sw__asprintf("rm -rf '%s'", f->home);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(f->home);
}

static json_t *status(fixture *f, const char *id, long wait_ms)
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_job_status_json(f->s, id, wait_ms, NULL, NULL, &out, &err);
	ck_assert_msg(rc == SW_OK, "status failed: %s", err ? sw_error_message(err) : "?");
	json_t *j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(j);
	sw_free(out);
	return j;
}

static const char *str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* ---- job functions -------------------------------------------------------- */

static int job_ok(sw_job *job, void *ud, char **result, sw_error **err)
{
	(void)ud;
	(void)err;
	ck_assert_int_eq(sw_job_set_progress(job, "halfway", "{\"phase\":\"smoke\",\"statusText\":\"tapping\"}", NULL),
	                 SW_OK);
	ck_assert_int_eq(sw_job_add_artifact(job, "swipium://session/x/report/r.json", NULL), SW_OK);
	*result = strdup("{\"state\":\"completed\",\"reportUri\":\"swipium://session/x/report/r.json\"}");
	return SW_OK;
}

static int job_blocked(sw_job *job, void *ud, char **result, sw_error **err)
{
	(void)job;
	(void)ud;
	(void)err;
	*result = strdup("{\"state\":\"blocked\",\"blockers\":[]}");
	return SW_OK;
}

static int job_error(sw_job *job, void *ud, char **result, sw_error **err)
{
	(void)job;
	(void)ud;
	(void)result;
	return sw__error_set(err, SW_EDEVICE, "NO_DEVICE", NULL, "no device is online");
}

static atomic_int slept_through;

/* Sleeps until cancelled, then tries to report success anyway. */
static int job_sleepy(sw_job *job, void *ud, char **result, sw_error **err)
{
	(void)ud;
	(void)err;
	int rc = sw_job_sleep(job, 30000);
	atomic_store(&slept_through, rc == SW_OK);
	ck_assert_int_eq(sw_job_cancelled(job), 1);
	*result = strdup("{\"state\":\"completed\"}");
	return SW_OK;
}

static int job_wait_pipe(sw_job *job, void *ud, char **result, sw_error **err)
{
	(void)job;
	(void)result;
	(void)err;
	int fd = *(int *)ud;
	char c;
	while (read(fd, &c, 1) < 0)
		;
	return SW_OK;
}

static atomic_int child_signal;

/* Starts `sleep 60` as a group leader and waits for it. */
static int job_child(sw_job *job, void *ud, char **result, sw_error **err)
{
	(void)ud;
	(void)result;
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	ck_assert_int_eq(sw_job_add_child(job, (int)pid, NULL), SW_OK);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		;
	sw_job_remove_child(job, (int)pid);
	atomic_store(&child_signal, WIFSIGNALED(st) ? WTERMSIG(st) : -1);
	return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "child ended");
}

/* ---- tests ---------------------------------------------------------------- */

START_TEST(test_done_with_result)
{
	fixture f;
	fx_open(&f);
	char *id = NULL;
	ck_assert_int_eq(sw_job_start(f.s, "test_this", job_ok, NULL, NULL, &id, NULL), SW_OK);
	ck_assert_uint_eq(strlen(id), 8);
	json_t *j = status(&f, id, 50000);
	ck_assert_str_eq(str(j, "status"), "done");
	ck_assert_str_eq(str(j, "kind"), "test_this");
	ck_assert_str_eq(str(j, "jobId"), id);
	ck_assert_str_eq(str(j, "progress"), "halfway");
	ck_assert_str_eq(str(json_object_get(j, "progressDetail"), "phase"), "smoke");
	ck_assert_str_eq(str(json_object_get(j, "result"), "state"), "completed");
	ck_assert_uint_eq(json_array_size(json_object_get(j, "artifactUris")), 1);
	json_t *w = json_object_get(j, "waited");
	ck_assert(json_is_false(json_object_get(w, "timedOut")));
	json_decref(j);
	/* without waitMs there is no waited block */
	j = status(&f, id, 0);
	ck_assert_ptr_null(json_object_get(j, "waited"));
	json_decref(j);
	/* persisted with the session */
	char *jobs = NULL;
	ck_assert_int_eq(sw_session_get_json(f.s, "jobs", &jobs, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(jobs, id));
	ck_assert_ptr_nonnull(strstr(jobs, "\"endedAt\""));
	sw_free(jobs);
	sw_free(id);
	fx_close(&f);
}
END_TEST

START_TEST(test_blocked_result_is_failed)
{
	fixture f;
	fx_open(&f);
	char *id = NULL;
	ck_assert_int_eq(sw_job_start(f.s, "test_this", job_blocked, NULL, NULL, &id, NULL), SW_OK);
	json_t *j = status(&f, id, 50000);
	ck_assert_str_eq(str(j, "status"), "failed");
	ck_assert_str_eq(str(json_object_get(j, "result"), "state"), "blocked");
	json_decref(j);
	sw_free(id);
	ck_assert_int_eq(sw_job_start(f.s, "build", job_error, NULL, NULL, &id, NULL), SW_OK);
	j = status(&f, id, 50000);
	ck_assert_str_eq(str(j, "status"), "failed");
	ck_assert_str_eq(str(j, "error"), "no device is online");
	/* the failure's catalog code rides on the record */
	ck_assert_str_eq(str(json_object_get(j, "result"), "failureCode"), "NO_DEVICE");
	ck_assert_str_eq(str(json_object_get(j, "result"), "what"), "no device is online");
	json_decref(j);
	sw_free(id);
	fx_close(&f);
}
END_TEST

START_TEST(test_unknown_job)
{
	fixture f;
	fx_open(&f);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_job_status_json(f.s, "nope", 0, NULL, NULL, &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	int cancelled = 7;
	ck_assert_int_eq(sw_job_cancel(f.s, "nope", &cancelled, NULL), SW_OK);
	ck_assert_int_eq(cancelled, 0);
	err = NULL;
	ck_assert_int_eq(sw_job_start(f.s, "", job_ok, NULL, NULL, &out, &err), SW_EINVAL);
	sw_error_free(err);
	fx_close(&f);
}
END_TEST

START_TEST(test_cancel_keeps_status)
{
	fixture f;
	fx_open(&f);
	char *id = NULL;
	ck_assert_int_eq(sw_job_start(f.s, "explore", job_sleepy, NULL, NULL, &id, NULL), SW_OK);
	json_t *j = status(&f, id, 0);
	ck_assert_str_eq(str(j, "status"), "running");
	json_decref(j);
	int cancelled = 0;
	ck_assert_int_eq(sw_job_cancel(f.s, id, &cancelled, NULL), SW_OK);
	ck_assert_int_eq(cancelled, 1);
	/* a second cancel is a no-op */
	ck_assert_int_eq(sw_job_cancel(f.s, id, &cancelled, NULL), SW_OK);
	ck_assert_int_eq(cancelled, 0);
	/* the worker's late "completed" never overwrites cancelled */
	sw_store_free(f.store); /* joins the job thread */
	ck_assert_int_eq(atomic_load(&slept_through), 0);
	ck_assert_int_eq(sw_store_open(f.ctx, &f.store, NULL), SW_OK);
	fx_close(&f);
	sw_free(id);
}
END_TEST

START_TEST(test_cancel_after_worker_returns)
{
	fixture f;
	fx_open(&f);
	char *id = NULL;
	ck_assert_int_eq(sw_job_start(f.s, "explore", job_sleepy, NULL, NULL, &id, NULL), SW_OK);
	int cancelled = 0;
	ck_assert_int_eq(sw_job_cancel(f.s, id, &cancelled, NULL), SW_OK);
	usleep(100000);
	json_t *j = status(&f, id, 1000);
	ck_assert_str_eq(str(j, "status"), "cancelled");
	ck_assert_ptr_null(json_object_get(j, "result"));
	json_decref(j);
	sw_free(id);
	fx_close(&f);
}
END_TEST

START_TEST(test_cancel_kills_child)
{
	fixture f;
	fx_open(&f);
	char *id = NULL;
	ck_assert_int_eq(sw_job_start(f.s, "build", job_child, NULL, NULL, &id, NULL), SW_OK);
	/* wait until the child is registered (the job is running and has forked) */
	usleep(200000);
	int cancelled = 0;
	ck_assert_int_eq(sw_job_cancel(f.s, id, &cancelled, NULL), SW_OK);
	ck_assert_int_eq(cancelled, 1);
	sw_store_free(f.store);
	f.store = NULL;
	ck_assert_int_eq(atomic_load(&child_signal), SIGTERM);
	ck_assert_int_eq(sw_store_open(f.ctx, &f.store, NULL), SW_OK);
	sw_free(id);
	fx_close(&f);
}
END_TEST

static int abort_now(void *ud)
{
	(void)ud;
	return 1;
}

START_TEST(test_long_poll_timeout_and_abort)
{
	fixture f;
	fx_open(&f);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	char *id = NULL;
	ck_assert_int_eq(sw_job_start(f.s, "wait", job_wait_pipe, &fds[0], NULL, &id, NULL), SW_OK);
	json_t *j = status(&f, id, 120);
	ck_assert_str_eq(str(j, "status"), "running");
	ck_assert(json_is_true(json_object_get(json_object_get(j, "waited"), "timedOut")));
	json_decref(j);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_job_status_json(f.s, id, 5000, abort_now, NULL, &out, &err), SW_ECANCELLED);
	ck_assert_str_eq(sw_error_failure_code(err), "CANCELLED");
	sw_error_free(err);
	/* the job kept running */
	j = status(&f, id, 0);
	ck_assert_str_eq(str(j, "status"), "running");
	json_decref(j);
	ck_assert_int_eq(write(fds[1], "x", 1), 1);
	j = status(&f, id, 50000);
	ck_assert_str_eq(str(j, "status"), "done");
	json_decref(j);
	close(fds[0]);
	close(fds[1]);
	sw_free(id);
	fx_close(&f);
}
END_TEST

START_TEST(test_restart_marks_running_failed)
{
	char tmpl[] = "/tmp/sw-jobs-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	int fds[2], idpipe[2];
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(pipe(idpipe), 0);
	pid_t pid = fork();
	if (pid == 0) {
		/* a "server" that starts a job, saves, and dies without shutting down */
		sw_ctx *ctx = NULL;
		sw_store *st = NULL;
		sw_session *s = NULL;
		char *jid = NULL;
		if (sw_ctx_new(&ctx, NULL) || sw_ctx_set_home(ctx, tmpl, NULL) || sw_store_open(ctx, &st, NULL) ||
		    sw_session_create(st, tmpl, NULL, NULL, &s, NULL) ||
		    sw_job_start(s, "test_this", job_wait_pipe, &fds[0], NULL, &jid, NULL) || sw_session_flush(s, NULL))
			_exit(1);
		char line[64];
		snprintf(line, sizeof(line), "%s %s\n", sw_session_id(s), jid);
		if (write(idpipe[1], line, strlen(line)) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	char buf[64] = {0};
	ssize_t n = 0;
	while (n <= 0)
		n = read(idpipe[0], buf, sizeof(buf) - 1);
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	char sid[16] = {0}, jid[16] = {0};
	ck_assert_int_eq(sscanf(buf, "%15s %15s", sid, jid), 2);
	sw_ctx *ctx = NULL;
	sw_store *store = NULL;
	sw_session *s = NULL;
	ck_assert_int_eq(sw_ctx_new(&ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(ctx, tmpl, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(ctx, &store, NULL), SW_OK);
	ck_assert_int_eq(sw_store_get_session(store, sid, &s, NULL), SW_OK);
	char *out = NULL;
	ck_assert_int_eq(sw_job_status_json(s, jid, 0, NULL, NULL, &out, NULL), SW_OK);
	json_t *j = json_loads(out, 0, NULL);
	ck_assert_str_eq(str(j, "status"), "failed");
	ck_assert_str_eq(str(j, "error"), "server restarted while job was running (child process gone)");
	json_decref(j);
	sw_free(out);
	int cancelled = 1;
	ck_assert_int_eq(sw_job_cancel(s, jid, &cancelled, NULL), SW_OK);
	ck_assert_int_eq(cancelled, 0);
	sw_store_free(store);
	sw_ctx_free(ctx);
	char *cmd = sw__asprintf("rm -rf '%s'", tmpl);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}
END_TEST

static Suite *jobs_suite(void)
{
	Suite *s = suite_create("jobs");
	TCase *tc = tcase_create("jobs");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_done_with_result);
	tcase_add_test(tc, test_blocked_result_is_failed);
	tcase_add_test(tc, test_unknown_job);
	tcase_add_test(tc, test_cancel_keeps_status);
	tcase_add_test(tc, test_cancel_after_worker_returns);
	tcase_add_test(tc, test_cancel_kills_child);
	tcase_add_test(tc, test_long_poll_timeout_and_abort);
	tcase_add_test(tc, test_restart_marks_running_failed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(jobs_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
