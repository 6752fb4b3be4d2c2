/* swipium/job.h: background jobs of a session: threads, progress, long-polling, cancellation. */
#ifndef SWIPIUM_JOB_H
#define SWIPIUM_JOB_H

#include <swipium/common.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A running or finished background job. Owned by its session. */
typedef struct sw_job sw_job;

/**
 * The work of a job, run on its own thread. Return SW_OK and set
 * *@result_json (transfer full, allocate with malloc; nullable) to a JSON
 * object: the job ends `done`, or `failed` when the result's `state` is
 * "blocked" or "unsafe" (qa_test_this's terminal states) or it holds a
 * `failureCode` (copied to the job record as `failureCode`; the result is kept). A negative return
 * ends it `failed` with the error's message. Poll sw_job_cancelled() or
 * wait with sw_job_sleep(); once the job is cancelled, whatever the function
 * returns is ignored (a cancelled job keeps status `cancelled`, no result).
 */
typedef int (*sw_job_fn)(sw_job *job, void *userdata, char **result_json, sw_error **err);

/** Frees the userdata of a job after its function returned. */
typedef void (*sw_job_free_fn)(void *userdata);

/**
 * Starts @fn on a new thread as a job of @kind (e.g. "test_this",
 * "prepare_ios"). The job is recorded in the session (`jobs`, status
 * running) before this returns. @free_fn (nullable) releases @userdata
 * after the job ended; when this call fails, @userdata stays the caller's.
 * @job_id: (transfer full) the 8-hex-digit job id.
 */
SW_API int sw_job_start(sw_session *s, const char *kind, sw_job_fn fn, void *userdata, sw_job_free_fn free_fn,
                        char **job_id, sw_error **err);

/** The job's id. (transfer none) */
SW_API const char *sw_job_id(const sw_job *job);
/** The session the job belongs to. (transfer none) */
SW_API sw_session *sw_job_session(const sw_job *job);
/** Non-zero once the job was cancelled (sw_job_cancel or store shutdown). */
SW_API int sw_job_cancelled(const sw_job *job);
/**
 * Sleeps up to @ms milliseconds, waking early on cancellation.
 * Returns SW_OK, or SW_ECANCELLED when the job was cancelled.
 */
SW_API int sw_job_sleep(sw_job *job, long ms);

/**
 * Updates the job's progress text and (nullable) progressDetail object
 * ({phase, statusText, lastEvent?, nextExpected?, logUri?,
 * userActionRequired}; startedAt/updatedAt are filled in). Both redacted.
 */
SW_API int sw_job_set_progress(sw_job *job, const char *progress, const char *detail_json, sw_error **err);
/** Adds an evidence URI to the job's artifactUris. */
SW_API int sw_job_add_artifact(sw_job *job, const char *uri, sw_error **err);

/**
 * Registers a child process of the job: cancelling the job sends it SIGTERM
 * (its whole process group when it leads one), then SIGKILL after 2 s.
 */
SW_API int sw_job_add_child(sw_job *job, int pid, sw_error **err);
/** Forgets a child that has exited (call after reaping it). */
SW_API void sw_job_remove_child(sw_job *job, int pid);

/** Returns non-zero to stop a long poll early (the caller's own call was cancelled). */
typedef int (*sw_abort_fn)(void *userdata);

/** An sw_abort_fn whose userdata is an sw_job: non-zero once the job was cancelled. */
SW_API int sw_job_abort(void *job);

/**
 * The job record as qa_job_status returns it: {jobId, kind, status
 * running|done|failed|cancelled, progress?, progressDetail?, error?,
 * failureCode?, result?, artifactUris} plus waited{waitedMs, timedOut} when @wait_ms > 0.
 * @wait_ms (clamped to 0..50000) long-polls until the job leaves running.
 * @abort_fn (nullable) is polled while waiting; when it returns non-zero the
 * call fails with SW_ECANCELLED / CANCELLED and the job keeps running.
 * Unknown job: SW_EINVAL / INVALID_ARGUMENT. @out: (transfer full)
 */
SW_API int sw_job_status_json(sw_session *s, const char *job_id, long wait_ms, sw_abort_fn abort_fn,
                              void *abort_userdata, char **out, sw_error **err);

/**
 * Cancels a running job: status `cancelled`, child processes signalled.
 * *@cancelled (nullable) is 1 when it was running, 0 when it had already
 * finished or is unknown (not an error).
 */
SW_API int sw_job_cancel(sw_session *s, const char *job_id, int *cancelled, sw_error **err);

/** Cancels every running job of every session of @store (shutdown). */
SW_API void sw_store_cancel_jobs(sw_store *store);

#ifdef __cplusplus
}
#endif

#endif
