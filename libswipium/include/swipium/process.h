/* swipium/process.h: the frontends' child processes, started by the library's one process runner. */
#ifndef SWIPIUM_PROCESS_H
#define SWIPIUM_PROCESS_H

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Flags of the sw_process_* calls. */
enum {
	/** argv[0] may be a bare name, looked up on PATH (else it must be an absolute path). */
	SW_PROCESS_SEARCH_PATH = 1u << 0,
};

/**
 * Runs @argv (never through a shell) on the caller's stdin, stdout and stderr,
 * in the caller's process group, and waits for it. While it runs, SIGINT,
 * SIGQUIT, SIGTERM and SIGHUP sent to the caller alone are passed on to it
 * (the terminal's own Ctrl-C reaches both already). On return @exit_code is its
 * exit status or -1, @end_signal the signal that ended it or 0, and
 * @passed_signal (each nullable) the last such signal the caller received
 * meanwhile or 0, so the caller can end the way it was asked to. Fails with
 * SW_ENOTFOUND only when the program could not be started.
 */
SW_API int sw_process_run_attached(const char *const argv[], unsigned flags, int *exit_code, int *end_signal,
                                   int *passed_signal, sw_error **err);

/**
 * Replaces the calling process with @argv: no child is left between the caller's
 * parent and the program, so its signals and exit status are the program's own.
 * Returns only on failure (SW_ENOTFOUND, SW_EINVAL).
 */
SW_API int sw_process_exec(const char *const argv[], unsigned flags, sw_error **err);

/** A child that the caller talks to over its stdin and stdout. */
typedef struct sw_peer sw_peer;

/**
 * Starts @argv in its own session with a pipe on its stdin and one on its
 * stdout; its stderr is the caller's. @env (nullable, NULL-terminated
 * "NAME=value" strings) is set on top of the caller's environment.
 * @flags: SW_PROCESS_SEARCH_PATH.
 */
SW_API int sw_peer_start(const char *const argv[], const char *const env[], unsigned flags, sw_peer **out,
                         sw_error **err);
/** The descriptor to write the peer's input to (its stdin). */
SW_API int sw_peer_input_fd(const sw_peer *peer);
/** The descriptor to read the peer's output from (its stdout). */
SW_API int sw_peer_output_fd(const sw_peer *peer);
/**
 * Closes the peer's stdin, gives it @grace_ms to exit, then kills its process
 * group; reaps it and frees @peer. Returns its wait status (-1 when unknown).
 */
SW_API int sw_peer_finish(sw_peer *peer, int grace_ms);

#ifdef __cplusplus
}
#endif

#endif
