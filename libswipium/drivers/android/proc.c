/* proc.c: run a tool as an argv vector (never through a shell) with pipes, a deadline, cancellation and a kill. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "android-internal.h"

void sw__proc_result_clear(sw__proc_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

static void child_exec(const char *const argv[], int out_fd, int err_fd, int report_fd, bool new_group)
{
	/* only async-signal-safe calls from here on */
	if (new_group)
		setpgid(0, 0);
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0 && devnull != 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	for (int fd = 3; fd < 1024; fd++)
		if (fd != report_fd)
			close(fd);
	signal(SIGPIPE, SIG_DFL);
	execv(argv[0], (char *const *)argv);
	int e = errno;
	ssize_t w = write(report_fd, &e, sizeof(e));
	(void)w;
	_exit(127);
}

int sw__proc_run(const char *const argv[], const sw__proc_opts *opts, sw__proc_result *res, sw_error **err)
{
	int rc = SW_OK;
	int out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, rep_p[2] = {-1, -1};
	sw_buf out = SW_BUF_INIT, errb = SW_BUF_INIT;
	pid_t pid = -1;
	int timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : 30000;
	size_t max_out = opts && opts->max_out ? opts->max_out : (size_t)64 * 1024 * 1024;

	memset(res, 0, sizeof(*res));
	if (!argv || !argv[0] || argv[0][0] != '/')
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "a tool must be run by its absolute path");
	if (pipe2(out_p, O_CLOEXEC) < 0 || pipe2(err_p, O_CLOEXEC) < 0 || pipe2(rep_p, O_CLOEXEC) < 0) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot start %s: %s", argv[0], strerror(errno));
		goto out;
	}
	if (pid == 0)
		child_exec(argv, out_p[1], err_p[1], rep_p[1], !(opts && opts->same_group));
	close(out_p[1]);
	close(err_p[1]);
	close(rep_p[1]);
	out_p[1] = err_p[1] = rep_p[1] = -1;

	int exec_errno = 0;
	ssize_t got = read(rep_p[0], &exec_errno, sizeof(exec_errno));
	if (got == (ssize_t)sizeof(exec_errno)) {
		waitpid(pid, NULL, 0);
		pid = -1;
		rc = sw__error_set(err, SW_ENOTFOUND, "UNKNOWN", NULL, "cannot run %s: %s", argv[0],
		                   strerror(exec_errno));
		goto out;
	}

	int64_t deadline = sw_monotonic_ms() + timeout_ms;
	bool open_out = true, open_err = true;
	while (open_out || open_err) {
		if (opts && opts->cancel && *opts->cancel) {
			res->cancelled = true;
			break;
		}
		int64_t left = deadline - sw_monotonic_ms();
		if (left <= 0) {
			res->timed_out = true;
			break;
		}
		struct pollfd pfd[2];
		nfds_t n = 0;
		if (open_out)
			pfd[n++] = (struct pollfd){out_p[0], POLLIN, 0};
		if (open_err)
			pfd[n++] = (struct pollfd){err_p[0], POLLIN, 0};
		int pr = poll(pfd, n, left > 100 ? 100 : (int)left);
		if (pr < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (nfds_t i = 0; i < n; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char chunk[65536];
			ssize_t r = read(pfd[i].fd, chunk, sizeof(chunk));
			bool is_out = pfd[i].fd == out_p[0];
			if (r <= 0) {
				if (r < 0 && errno == EINTR)
					continue;
				if (is_out)
					open_out = false;
				else
					open_err = false;
				continue;
			}
			sw_buf *dst = is_out ? &out : &errb;
			if (dst->len + (size_t)r > max_out) {
				res->truncated = true;
				size_t room = max_out > dst->len ? max_out - dst->len : 0;
				sw__buf_append(dst, chunk, room);
			} else {
				sw__buf_append(dst, chunk, (size_t)r);
			}
		}
	}
	int status = 0;
	if (res->timed_out || res->cancelled) {
		if (!(opts && opts->same_group))
			kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		res->status = -1;
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		res->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	pid = -1;
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
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (out_p[i] >= 0)
			close(out_p[i]);
		if (err_p[i] >= 0)
			close(err_p[i]);
		if (rep_p[i] >= 0)
			close(rep_p[i]);
	}
	sw__buf_free(&out);
	sw__buf_free(&errb);
	return rc;
}
