/* swipium/build.h: building the app from source: the plan, the build job, and the log classifier. */
#ifndef SWIPIUM_BUILD_H
#define SWIPIUM_BUILD_H

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Default time limit of one build step, in milliseconds (20 minutes). */
#define SW_BUILD_STEP_TIMEOUT_MS 1200000
/** How long a build step may take to end after SIGTERM before its process group gets SIGKILL. */
#define SW_BUILD_KILL_GRACE_MS 5000

/**
 * Plans the build of the project at @root (absolute, existing) for one platform. Side-effect free: it
 * reads manifests and looks tools up on PATH, runs nothing and writes nothing. The framework comes from
 * sw_project_detect() (the app of a monorepo is built in its own folder).
 *
 * @options_json: `{platform: android|ios (required), variant?: debug|release}`.
 * @out_json (transfer full): `{framework, platform, variant, appRoot, prerequisites[], build[],
 * expectedArtifactGlobs[], toolchainOk, missingToolchain[], notes[], costEstimate}`; each step is
 * `{label, kind: dependencies|prebuild|build, command, argv[], cwd, tool}` (cwd absolute, `command` the
 * argv as one line for people). Steps run in order: prerequisites, then build.
 *
 * Failure codes: UNSUPPORTED_FRAMEWORK (SW_EUNSUPPORTED: no known app layout, or the framework cannot
 * build that platform); BUILD_COMMAND_UNAVAILABLE (SW_ENOTFOUND: a step's program is not on PATH, or no
 * Gradle wrapper; details.plan holds the plan with its missingToolchain); EXPO_PREBUILD_REQUIRED
 * (SW_EUNSUPPORTED: an Expo project whose native folder exists but holds no Gradle wrapper nor settings
 * file; details.nextSteps names `npx expo prebuild --platform <p> --clean`; the folder is never touched).
 */
SW_API int sw_build_plan(const char *root, const char *options_json, char **out_json, sw_error **err);

/**
 * Classifies a failed build step from its log (the signature table, sw_build_signatures_json()).
 * @step_json: a plan step (`kind` and `tool` are read). @exit_status: the exit status (-1 when killed);
 * @exec_errno: non-zero when the program could not be started; @timed_out: the step hit its limit.
 * @out_json (transfer full): `{failureCode, signature?, line?, why}`: `line` is the log line that matched
 * (at most 300 characters).
 */
SW_API int sw_build_classify(const char *step_json, int exit_status, int exec_errno, int timed_out,
                             const char *log, size_t len, char **out_json, sw_error **err);

/** The classifier's signature table, in match order: `[{code, tool, match, why}]`. (transfer full) */
SW_API int sw_build_signatures_json(char **out_json, sw_error **err);

/**
 * Runs @plan_json (sw_build_plan()'s object) on the calling thread for session @s: every step argv only,
 * in its own process group, in its cwd, at most @step_timeout_ms each (<= 0: SW_BUILD_STEP_TIMEOUT_MS).
 * A timeout or @abort_fn (nullable, polled every 50 ms) sends SIGTERM to the step's whole group and
 * SIGKILL SW_BUILD_KILL_GRACE_MS later; when the step's leader exits, its pipes are closed, so a
 * grandchild holding them cannot keep the build going. Every step's output goes into one build log,
 * redacted with the session's secrets before it is written, saved as a `logs` artifact on success and
 * failure alike. After the last step the artifact is found again (sw_artifact_resolve()): only one written
 * since the build started counts.
 *
 * @out_json (transfer full) is always set when SW_OK is returned: success `{built: true, artifact, logUri,
 * steps[]}`; a failed build `{built: false, failureCode, failedStep, exitStatus, timedOut, what,
 * signature?, line?, logUri, steps[], searchedLocations?, nextSteps[]}`. Codes:
 * BUILD_COMMAND_UNAVAILABLE, DEPENDENCY_INSTALL_REQUIRED, EXPO_PREBUILD_REQUIRED, GRADLE_FAILED,
 * FLUTTER_BUILD_FAILED, XCODEBUILD_FAILED, BUILD_FAILED, BUILD_TIMED_OUT,
 * BUILD_ARTIFACT_UNRESOLVED_AFTER_SUCCESS, CANCELLED (aborted). A negative return is an internal failure.
 */
SW_API int sw_build_run(sw_ctx *ctx, sw_session *s, const char *plan_json, long step_timeout_ms,
                        int (*abort_fn)(void *), void *abort_ud, char **out_json, sw_error **err);

/**
 * sw_build_run() as a background job of kind "build" of @s. The job ends `done` with the success result,
 * or `failed` with the failure result (its `failureCode` is also on the job record); qa_job_cancel stops
 * the running step as above. @ctx is borrowed only for the call (the job uses its own).
 * @job_id: (transfer full).
 */
SW_API int sw_build_start(sw_ctx *ctx, sw_session *s, const char *plan_json, long step_timeout_ms, char **job_id,
                          sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
