/* sw-proc.h: the one runner of child processes (argv only, never a shell); never installed.
 *
 * Every child process of the library starts here: device tools (through drivers/ only), the OCR / mask
 * provider, `ps`. A test (tests/unit/check-one-door.sh) fails when any other file forks or execs.
 */
#ifndef SW_PROC_H
#define SW_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sw-internal.h"

/* ---- argv without a fixed table ---------------------------------------- */

/* A growable, NULL-terminated argv. Any failed append marks it failed; sw__argv_finish then reports it. */
typedef struct sw__argv {
	char **v;
	size_t n, cap;
	bool failed;
} sw__argv;

#define SW_ARGV_INIT {NULL, 0, 0, false}

void sw__argv_add(sw__argv *a, const char *s);
void sw__argv_addf(sw__argv *a, const char *fmt, ...) SW_PRINTF(2, 3);
/* Appends every string of the NULL-terminated @list. */
void sw__argv_addv(sw__argv *a, const char *const *list);
/* The vector (NULL-terminated), or NULL with ENOMEM in @err when an append failed. (transfer none) */
const char *const *sw__argv_finish(sw__argv *a, sw_error **err);
void sw__argv_free(sw__argv *a);

/* ---- running to completion ----------------------------------------------- */

typedef struct sw__proc_opts {
	int timeout_ms;             /* 0: 30 s */
	size_t max_out;             /* 0: 64 MiB; more stdout is dropped and `truncated` set */
	size_t max_err;             /* 0: max_out; more stderr is dropped and `err_truncated` set */
	bool kill_on_overflow;      /* stop the child when stdout passes max_out (instead of draining it) */
	const volatile int *cancel; /* nullable; non-zero stops and kills the child */
	int (*abort_fn)(void *ud);  /* nullable; non-zero stops and kills the child (polled every 50 ms) */
	void *abort_ud;
	bool same_group;  /* keep the child in our process group (a daemon it starts must survive) */
	bool search_path; /* argv[0] may be a bare name looked up on PATH */
	const char *cwd;  /* nullable */
	const char *in;   /* nullable: bytes for the child's stdin (else /dev/null) */
	size_t in_len;
	char *const *envp; /* nullable: inherit the environment */
	/* >0: a timeout or cancel sends SIGTERM to the child's group first, SIGKILL after this many ms */
	int term_grace_ms;
	/* nullable: stdout and stderr go to @sink as they arrive (interleaved), not into the result */
	void (*sink)(void *ud, const char *data, size_t len);
	void *sink_ud;
	/* the run ends when the child exits: what is still queued is read for up to 200 ms, then the pipes
	 * are closed and the group killed, so a grandchild holding stdout cannot keep the run going */
	bool exit_ends;
	/* nullable: called with the child's pid as soon as it runs, before anything is read (to record it) */
	void (*on_start)(void *ud, pid_t pid);
	void *start_ud;
} sw__proc_opts;

typedef struct sw__proc_result {
	int status; /* exit status, -1 when killed or signalled */
	int signal; /* the signal that ended it, 0 otherwise */
	bool timed_out, cancelled, truncated, err_truncated;
	int exec_errno; /* set (with a failed sw__proc_run) when the program could not be started */
	int forwarded_signal; /* sw__proc_run_inherit: the last signal that reached us while it ran, 0 if none */
	char *out, *err; /* NUL-terminated */
	size_t out_len, err_len;
} sw__proc_result;

/*
 * Runs argv[0] (an absolute path, or a bare name with search_path) with argv. Fails only when it
 * could not be started (SW_ENOTFOUND with the reason). Timeout and cancellation kill the child (and
 * its process group unless same_group) and come back as flags in @res.
 */
int sw__proc_run(const char *const argv[], const sw__proc_opts *opts, sw__proc_result *res, sw_error **err);
void sw__proc_result_clear(sw__proc_result *r);

/* ---- background children ------------------------------------------------- */

/*
 * Starts argv in the background in a new session (its own process group), stdin, stdout and stderr on
 * /dev/null (or @out_fd for stdout and stderr when >= 0). @opts: search_path, cwd, envp (others ignored).
 */
int sw__proc_spawn(const char *const argv[], const sw__proc_opts *opts, int out_fd, pid_t *pid, sw_error **err);
/* Reaps @pid when it has ended: true (and *status) then; false while it runs. */
bool sw__proc_ended(pid_t pid, int *status);
/*
 * Ends a background child and its process group: @first_sig (SIGINT, SIGTERM...), then SIGKILL
 * after @grace_ms; always reaps it. Returns its wait status (or -1 when it was not our child).
 */
int sw__proc_stop(pid_t pid, int first_sig, int grace_ms);

/* ---- frontends: a child on our terminal, exec, a peer on two pipes ------------- */

/*
 * Runs argv with our stdin, stdout and stderr, in our process group (so the terminal's Ctrl-C reaches
 * it as it reaches us), and waits for it. SIGINT, SIGQUIT, SIGTERM and SIGHUP are held while it runs:
 * one sent to us alone (kill) is passed on to the child, one from the terminal reached it already; the
 * last is kept in res->forwarded_signal so that the caller can end the same way. @opts: search_path,
 * cwd, envp, timeout_ms (0: no limit), cancel/abort_fn. res->out/err stay NULL. Fails (SW_ENOTFOUND,
 * res->exec_errno) only when it could not be started.
 */
int sw__proc_run_inherit(const char *const argv[], const sw__proc_opts *opts, sw__proc_result *res, sw_error **err);
/*
 * Replaces the calling process with argv (no child: the caller's pid, signals and exit status become the
 * program's). @opts: search_path, cwd, envp. Returns only when that failed (SW_ENOTFOUND).
 */
int sw__proc_exec(const char *const argv[], const sw__proc_opts *opts, sw_error **err);
/*
 * Starts argv in a new session with pipes on its stdin (*to_fd, ours to write) and stdout (*from_fd,
 * ours to read); its stderr is ours. @opts: search_path, cwd, envp. End it with sw__proc_stop().
 */
int sw__proc_open(const char *const argv[], const sw__proc_opts *opts, pid_t *pid, int *to_fd, int *from_fd,
                  sw_error **err);

#endif
