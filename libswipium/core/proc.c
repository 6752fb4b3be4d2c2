/* proc.c: the one runner of child processes: argv only (never a shell), pipes, stdin, a deadline, cancellation. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sw-proc.h"

extern char **environ;

/* ---- argv ------------------------------------------------------------------ */

static void argv_push(sw__argv *a, char *s)
{
	if (!s || a->failed) {
		a->failed = true;
		free(s);
		return;
	}
	if (a->n + 2 > a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 16;
		char **nv = realloc(a->v, nc * sizeof(*nv));
		if (!nv) {
			a->failed = true;
			free(s);
			return;
		}
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void sw__argv_add(sw__argv *a, const char *s)
{
	argv_push(a, s ? sw__strdup(s) : NULL);
}

void sw__argv_addf(sw__argv *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	argv_push(a, s);
}

void sw__argv_addv(sw__argv *a, const char *const *list)
{
	for (size_t i = 0; list && list[i]; i++)
		sw__argv_add(a, list[i]);
}

const char *const *sw__argv_finish(sw__argv *a, sw_error **err)
{
	if (a->failed || !a->v) {
		if (!a->failed && !a->v)
			sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "an empty command line");
		else
			sw__error_nomem(err);
		return NULL;
	}
	return (const char *const *)a->v;
}

void sw__argv_free(sw__argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* ---- running ---------------------------------------------------------------- */

void sw__proc_result_clear(sw__proc_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* Starts @argv with posix_spawn: glibc clones with CLONE_VM|CLONE_VFORK, so nothing of the (large,
 * threaded) server's address space is copied, and it returns once the program is running or could not be.
 * @in_fd < 0: stdin is /dev/null. Every other descriptor is closed in the child. Returns 0 or the errno of
 * the failed step (open, dup2, chdir, exec), after which glibc has reaped the child. */
static int start_child(const char *const argv[], const sw__proc_opts *o, int in_fd, int out_fd, int err_fd,
                       bool new_group, bool new_session, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int e = posix_spawn_file_actions_init(&fa);
	if (e)
		return e;
	if ((e = posix_spawnattr_init(&at)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return e;
	}
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	if (new_session)
		flags |= POSIX_SPAWN_SETSID;
	else if (new_group)
		flags |= POSIX_SPAWN_SETPGROUP; /* group id 0: the child leads its own group */
	sigset_t none, dfl;
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	if (!e)
		e = posix_spawnattr_setflags(&at, flags);
	if (!e && new_group && !new_session)
		e = posix_spawnattr_setpgroup(&at, 0);
	if (!e)
		e = posix_spawnattr_setsigmask(&at, &none);
	if (!e)
		e = posix_spawnattr_setsigdefault(&at, &dfl);
	if (!e)
		e = in_fd >= 0 ? posix_spawn_file_actions_adddup2(&fa, in_fd, 0)
		               : posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!e)
		e = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (!e)
		e = posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	if (!e && o && o->cwd)
		e = posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
	if (!e)
		e = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (!e) {
		char *const *envp = o && o->envp ? o->envp : environ;
		if (o && o->search_path && !strchr(argv[0], '/'))
			e = posix_spawnp(pid, argv[0], &fa, &at, (char *const *)argv, envp);
		else
			e = posix_spawn(pid, argv[0], &fa, &at, (char *const *)argv, envp);
	}
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return e;
}

static int check_argv(const char *const argv[], const sw__proc_opts *opts, sw_error **err)
{
	if (!argv || !argv[0] || !argv[0][0])
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "no command to run");
	if (argv[0][0] != '/' && !(opts && opts->search_path))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "a tool must be run by its absolute path");
	return SW_OK;
}

/* A descriptor that polls readable when @pid has exited (pidfd, Linux 5.3 and later), or -1. */
static int exit_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

static bool should_stop(const sw__proc_opts *o)
{
	return o && ((o->cancel && *o->cancel) || (o->abort_fn && o->abort_fn(o->abort_ud)));
}

int sw__proc_run(const char *const argv[], const sw__proc_opts *opts, sw__proc_result *res, sw_error **err)
{
	int rc = SW_OK;
	int out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, in_p[2] = {-1, -1};
	sw_buf out = SW_BUF_INIT, errb = SW_BUF_INIT;
	pid_t pid = -1;
	int pidfd = -2; /* -2: not opened yet */
	int timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : 30000;
	size_t max_out = opts && opts->max_out ? opts->max_out : (size_t)64 * 1024 * 1024;
	size_t max_err = opts && opts->max_err ? opts->max_err : max_out;
	bool own_group = !(opts && opts->same_group);
	bool feed = opts && opts->in;

	memset(res, 0, sizeof(*res));
	if ((rc = check_argv(argv, opts, err)) != SW_OK)
		return rc;
	if (pipe2(out_p, O_CLOEXEC) < 0 || pipe2(err_p, O_CLOEXEC) < 0 ||
	    (feed && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_p) < 0)) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	int exec_errno = start_child(argv, opts, feed ? in_p[1] : -1, out_p[1], err_p[1], own_group, false, &pid);
	if (exec_errno == EAGAIN || exec_errno == ENOMEM) {
		pid = -1;
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot start %s: %s", argv[0], strerror(exec_errno));
		goto out;
	}
	if (exec_errno) {
		pid = -1; /* glibc reaped the failed child */
		res->exec_errno = exec_errno;
		rc = sw__error_set(err, SW_ENOTFOUND, "UNKNOWN", NULL, "cannot run %s: %s", argv[0],
		                   strerror(exec_errno));
		goto out;
	}
	if (opts && opts->on_start)
		opts->on_start(opts->start_ud, pid);
	close(out_p[1]);
	close(err_p[1]);
	out_p[1] = err_p[1] = -1;
	if (feed) {
		close(in_p[1]);
		in_p[1] = -1;
		fcntl(in_p[0], F_SETFL, fcntl(in_p[0], F_GETFL) | O_NONBLOCK);
	}

	int64_t deadline = sw_monotonic_ms() + timeout_ms;
	bool open_out = true, open_err = true;
	size_t in_off = 0;
	if (feed && opts->in_len == 0) {
		shutdown(in_p[0], SHUT_WR);
		feed = false;
	}
	int status = 0;
	bool reaped = false;
	bool exit_ends = opts && opts->exit_ends;
	int64_t drain_until = 0;
	long nap_us = 100; /* without a pidfd: naps that grow from 0.1 ms to 10 ms */
	while (open_out || open_err || !reaped) {
		if (exit_ends && (open_out || open_err)) {
			if (!reaped) {
				pid_t w = waitpid(pid, &status, WNOHANG);
				if (w == pid) {
					reaped = true;
					drain_until = sw_monotonic_ms() + 200;
				}
			} else if (sw_monotonic_ms() >= drain_until) {
				break; /* the child is gone; whoever still holds the pipes does not keep us here */
			}
		}
		if (should_stop(opts)) {
			res->cancelled = true;
			break;
		}
		int64_t left = deadline - sw_monotonic_ms();
		if (left <= 0) {
			res->timed_out = true;
			break;
		}
		if (!open_out && !open_err) {
			/* both pipes closed: wait for the exit, still watching the deadline and the abort flag */
			pid_t w = waitpid(pid, &status, WNOHANG);
			if (w == pid) {
				reaped = true;
				break;
			}
			if (w < 0 && errno != EINTR)
				break;
			/* it closed its output and is still exiting, which takes microseconds: wait on its exit itself
			 * (a fixed 10 ms nap here once cost more than the whole `adb shell true` it waited on) */
			if (pidfd == -2)
				pidfd = exit_fd(pid);
			if (pidfd >= 0) {
				struct pollfd pp = {pidfd, POLLIN, 0};
				(void)poll(&pp, 1, left > 50 ? 50 : (int)left);
			} else {
				struct timespec ts = {0, nap_us * 1000L};
				nanosleep(&ts, NULL);
				nap_us = nap_us * 2 > 10000 ? 10000 : nap_us * 2;
			}
			continue;
		}
		struct pollfd pfd[3];
		nfds_t n = 0;
		int idx_out = -1, idx_err = -1, idx_in = -1;
		if (open_out) {
			idx_out = (int)n;
			pfd[n++] = (struct pollfd){out_p[0], POLLIN, 0};
		}
		if (open_err) {
			idx_err = (int)n;
			pfd[n++] = (struct pollfd){err_p[0], POLLIN, 0};
		}
		if (feed) {
			idx_in = (int)n;
			pfd[n++] = (struct pollfd){in_p[0], POLLOUT, 0};
		}
		int pr = poll(pfd, n, left > 50 ? 50 : (int)left);
		if (pr < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (idx_in >= 0 && (pfd[idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t k = send(in_p[0], opts->in + in_off, opts->in_len - in_off, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (k > 0)
				in_off += (size_t)k;
			if (k < 0 && errno != EAGAIN && errno != EINTR)
				in_off = opts->in_len; /* the child stopped reading */
			if (in_off >= opts->in_len) {
				shutdown(in_p[0], SHUT_WR);
				feed = false;
			}
		}
		for (int which = 0; which < 2; which++) {
			int i = which == 0 ? idx_out : idx_err;
			if (i < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char chunk[65536];
			ssize_t r = read(pfd[i].fd, chunk, sizeof(chunk));
			if (r <= 0) {
				if (r < 0 && (errno == EINTR || errno == EAGAIN))
					continue;
				if (which == 0)
					open_out = false;
				else
					open_err = false;
				continue;
			}
			if (opts && opts->sink) {
				opts->sink(opts->sink_ud, chunk, (size_t)r);
				continue;
			}
			sw_buf *dst = which == 0 ? &out : &errb;
			size_t cap = which == 0 ? max_out : max_err;
			if (dst->len + (size_t)r > cap) {
				if (which == 0)
					res->truncated = true;
				else
					res->err_truncated = true;
				size_t room = cap > dst->len ? cap - dst->len : 0;
				sw__buf_append(dst, chunk, room);
			} else {
				sw__buf_append(dst, chunk, (size_t)r);
			}
		}
		if (res->truncated && opts && opts->kill_on_overflow)
			break;
	}
	if (!reaped && (res->timed_out || res->cancelled) && opts && opts->term_grace_ms > 0) {
		/* ask first: the whole group gets SIGTERM, SIGKILL only when the leader outlives the grace */
		if (own_group)
			kill(-pid, SIGTERM);
		kill(pid, SIGTERM);
		int64_t until = sw_monotonic_ms() + opts->term_grace_ms;
		while (!reaped && sw_monotonic_ms() < until) {
			pid_t w = waitpid(pid, &status, WNOHANG);
			if (w == pid)
				reaped = true;
			else if (w < 0 && errno != EINTR)
				break;
			else {
				struct timespec ts = {0, 20 * 1000 * 1000};
				nanosleep(&ts, NULL);
			}
		}
	}
	if (!reaped) {
		if (res->timed_out || res->cancelled || res->truncated || open_out || open_err) {
			if (own_group)
				kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (own_group)
		kill(-pid, SIGKILL); /* descendants left in the group must not outlive the call */
	pid = -1;
	if (res->timed_out || res->cancelled) {
		res->status = -1;
		res->signal = reaped && WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
	} else if (WIFEXITED(status)) {
		res->status = WEXITSTATUS(status);
	} else {
		res->status = -1;
		res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	}
	if (out.failed || errb.failed) {
		rc = sw__error_nomem(err);
		goto out;
	}
	res->out = sw__buf_steal(&out, &res->out_len);
	res->err = sw__buf_steal(&errb, &res->err_len);
	if (!res->out || !res->err) {
		sw__proc_result_clear(res);
		rc = sw__error_nomem(err);
		goto out;
	}
out:
	if (pidfd >= 0)
		close(pidfd);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (out_p[i] >= 0)
			close(out_p[i]);
		if (err_p[i] >= 0)
			close(err_p[i]);
		if (in_p[i] >= 0)
			close(in_p[i]);
	}
	sw__buf_free(&out);
	sw__buf_free(&errb);
	return rc;
}

/* ---- background ------------------------------------------------------------------ */

int sw__proc_spawn(const char *const argv[], const sw__proc_opts *opts, int out_fd, pid_t *pid_out, sw_error **err)
{
	int rc = check_argv(argv, opts, err);
	if (rc != SW_OK)
		return rc;
	int nul = -1;
	if (out_fd < 0)
		out_fd = nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out_fd < 0)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot open /dev/null: %s", strerror(errno));
	pid_t pid = -1;
	int e = start_child(argv, opts, -1, out_fd, out_fd, true, true, &pid);
	if (e == EAGAIN || e == ENOMEM)
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot start %s: %s", argv[0], strerror(e));
	else if (e)
		rc = sw__error_set(err, SW_ENOTFOUND, "UNKNOWN", NULL, "cannot run %s: %s", argv[0], strerror(e));
	else
		*pid_out = pid;
	if (nul >= 0)
		close(nul);
	return rc;
}

bool sw__proc_ended(pid_t pid, int *status)
{
	int st = 0;
	pid_t w;
	while ((w = waitpid(pid, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (w == pid || (w < 0 && errno == ECHILD)) {
		if (status)
			*status = w == pid ? st : -1;
		return true;
	}
	return false;
}

int sw__proc_stop(pid_t pid, int first_sig, int grace_ms)
{
	if (pid <= 0)
		return -1;
	int st = 0;
	if (sw__proc_ended(pid, &st)) {
		kill(-pid, SIGKILL); /* what it left in its group */
		return st;
	}
	kill(-pid, first_sig);
	kill(pid, first_sig);
	int64_t deadline = sw_monotonic_ms() + (grace_ms > 0 ? grace_ms : 0);
	while (sw_monotonic_ms() < deadline) {
		if (sw__proc_ended(pid, &st)) {
			kill(-pid, SIGKILL);
			return st;
		}
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* ---- children on our terminal, exec, pipe peers --------------------------------- */

/* The signals a frontend passes on to the child it waits for. */
static void forward_set(sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGINT);
	sigaddset(s, SIGQUIT);
	sigaddset(s, SIGTERM);
	sigaddset(s, SIGHUP);
}

int sw__proc_run_inherit(const char *const argv[], const sw__proc_opts *opts, sw__proc_result *res, sw_error **err)
{
	memset(res, 0, sizeof(*res));
	int rc = check_argv(argv, opts, err);
	if (rc != SW_OK)
		return rc;
	/* Block what we pass on before the child exists, so none of it is lost or kills us first; the child
	 * starts with an empty mask and default dispositions (start_child). */
	sigset_t fwd, old;
	forward_set(&fwd);
	pthread_sigmask(SIG_BLOCK, &fwd, &old);
	pid_t pid = -1;
	int e = start_child(argv, opts, STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO, false, false, &pid);
	if (e) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		res->exec_errno = e;
		if (e == EAGAIN || e == ENOMEM)
			return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot start %s: %s", argv[0], strerror(e));
		return sw__error_set(err, SW_ENOTFOUND, "UNKNOWN", NULL, "cannot run %s: %s", argv[0], strerror(e));
	}
	int timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : 0; /* 0: wait as long as it runs */
	int64_t deadline = timeout_ms ? sw_monotonic_ms() + timeout_ms : 0;
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = 0;
			break;
		}
		if (deadline && sw_monotonic_ms() >= deadline) {
			res->timed_out = true;
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		if (should_stop(opts)) {
			res->cancelled = true;
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		siginfo_t si;
		struct timespec tick = {0, 50 * 1000 * 1000};
		int sig = sigtimedwait(&fwd, &si, &tick);
		if (sig > 0) {
			/* The terminal sends its Ctrl-C / Ctrl-\ / hangup to the whole foreground group, the child
			 * included (it shares ours): only what was sent to us alone is passed on. */
			if (si.si_code != SI_KERNEL)
				kill(pid, sig);
			res->forwarded_signal = sig;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (WIFEXITED(status)) {
		res->status = WEXITSTATUS(status);
	} else {
		res->status = -1;
		res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	}
	return SW_OK;
}

int sw__proc_exec(const char *const argv[], const sw__proc_opts *opts, sw_error **err)
{
	int rc = check_argv(argv, opts, err);
	if (rc != SW_OK)
		return rc;
	if (opts && opts->cwd && chdir(opts->cwd) != 0)
		return sw__error_set(err, SW_ENOTFOUND, "UNKNOWN", NULL, "cannot enter %s: %s", opts->cwd, strerror(errno));
	char *const *envp = opts && opts->envp ? opts->envp : environ;
	if (opts && opts->search_path && !strchr(argv[0], '/'))
		execvpe(argv[0], (char *const *)argv, envp);
	else
		execve(argv[0], (char *const *)argv, envp);
	int e = errno;
	return sw__error_set(err, SW_ENOTFOUND, "UNKNOWN", NULL, "cannot run %s: %s", argv[0], strerror(e));
}

int sw__proc_open(const char *const argv[], const sw__proc_opts *opts, pid_t *pid_out, int *to_fd, int *from_fd,
                  sw_error **err)
{
	int rc = check_argv(argv, opts, err);
	if (rc != SW_OK)
		return rc;
	int in_p[2] = {-1, -1}, out_p[2] = {-1, -1};
	if (pipe2(in_p, O_CLOEXEC) < 0 || pipe2(out_p, O_CLOEXEC) < 0) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot create a pipe: %s", strerror(errno));
		goto fail;
	}
	pid_t pid = -1;
	int e = start_child(argv, opts, in_p[0], out_p[1], STDERR_FILENO, true, true, &pid);
	if (e) {
		rc = sw__error_set(err, e == EAGAIN || e == ENOMEM ? SW_EIO : SW_ENOTFOUND, "UNKNOWN", NULL,
		                   "cannot run %s: %s", argv[0], strerror(e));
		goto fail;
	}
	close(in_p[0]);
	close(out_p[1]);
	*pid_out = pid;
	*to_fd = in_p[1];
	*from_fd = out_p[0];
	return SW_OK;
fail:
	for (int i = 0; i < 2; i++) {
		if (in_p[i] >= 0)
			close(in_p[i]);
		if (out_p[i] >= 0)
			close(out_p[i]);
	}
	return rc;
}
