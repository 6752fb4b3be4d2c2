/* swipium/autopilot.h: "test this app" in one call: qa_test_this's plan and its job (resolve, artifact, target,
 * prepare, smoke, explore, report, suite). */
#ifndef SWIPIUM_AUTOPILOT_H
#define SWIPIUM_AUTOPILOT_H

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The flags a qa_test_this goal stands for (TOOLS.md §1.1's table), explicit flags winning.
 * @options_json: {goal?: smoke|explore|create_automation_suite|release_gate|test_login|reproduce_bug
 * (absent: the "none" row), explore?, generateSuite?, stopOnNeedsInput?, fastSmoke?: bool}.
 * @out_json (transfer full): {goal: "<goal>"|"none", explore, generateSuite, suiteAttempted, stopOnNeedsInput,
 * fastSmoke, releaseGateSummary, focus?, sources: {explore, generateSuite, stopOnNeedsInput: "goal"|"explicit"}}.
 * An unknown goal or a non-boolean flag is SW_EINVAL / INVALID_ARGUMENT.
 */
SW_API int sw_test_this_flags(const char *options_json, char **out_json, sw_error **err);

/**
 * The plan of a qa_test_this run on @root (absolute, resolved by the caller with the project-root rule), side-
 * effect free: it reads the project's files, the APK's own metadata and the adb device list, and changes
 * nothing on any device or outside @s. @s (nullable) is the session the run belongs to; its id goes into the
 * tool calls of the steps.
 *
 * @options_json: qa_test_this's arguments (goal, goalText, fastSmoke, platform, device, preferRealDevice,
 * allowOutsideRoot, buildIfNeeded, generateSuite, explore, stopOnNeedsInput, mode; others are ignored) plus
 * `listedTools` (array of the tool names the frontend lists, so the plan only names tools that exist).
 *
 * @plan_json (transfer full): {mode, projectRoot, sessionId?, platform, flags (sw_test_this_flags()), project,
 * artifactChoice, targetChoice, steps[{step, status: done|planned|blocked|skipped|needs_input, tool: {tool,
 * args}, why, risk?, kind?, argv?, failureCode?}] in pipeline order (resolve_project, find_artifact,
 * pick_target, prepare, smoke, explore, report, suite), blockers[{failureCode, owner, retrySafe, canSwipiumFix,
 * whatItMeans, howToFix}], needsInput?, preconditions[], consent {required, action: "test_this_plan", risk,
 * steps[{kind, risk, argv}]}, nextRecommendedAction}.
 *
 * preferRealDevice:true fails with PHYSICAL_DEVICE_UNSUPPORTED (SW_EDENIED) whatever is attached; a bad option
 * is INVALID_ARGUMENT. Every other problem is a blocked step, not an error.
 */
SW_API int sw_test_this_plan(sw_ctx *ctx, sw_session *s, const char *root, const char *options_json,
                             char **plan_json, sw_error **err);

/**
 * Starts the run of @plan_json (from sw_test_this_plan(), consent already given for its consent.steps) as the
 * job `test_this` of @s. The job follows the steps in order: prepare (boot, install, launch on the planned
 * target), smoke (baseline health, evidence screenshot, a note, the smoke milestone), explore when the flags ask
 * and the explorer is part of this build, the report (sw_report_save(), whatever the outcome) and the suite
 * (said honestly not available). It ends with a result {state: completed|blocked|unsafe|needs_input,
 * sessionId, goal, flags, reportUri, reportSummary, blockers[], artifactChoice, targetChoice, attempted[],
 * workaroundsAttempted[], nextRecommendedAction, needsInput?, optionalQuestion?, releaseGate?, notes[]}; the
 * job is `done` for completed and needs_input and `failed` for blocked and unsafe. The job's cancel stops the
 * boot or install at once.
 *
 * A qa_test_this job already running on @s is not started twice: SW_ESTATE (INVALID_ARGUMENT) with
 * details {jobId} of the running one. @job_id: (transfer full).
 */
SW_API int sw_test_this_start(sw_ctx *ctx, sw_session *s, const char *plan_json, char **job_id, sw_error **err);

/**
 * The id of the qa_test_this job running on @s, or NULL (transfer full).
 */
SW_API char *sw_test_this_running(sw_session *s);

/**
 * The test_this_plan consent the run of @plan_json asks for, built once for both autopilot plans: one from
 * sw_test_this_plan(), or one from sw_test_feature_plan() (it has featureId; the device's preparation is its
 * `bootstrap` plan). @s (nullable): the session the run belongs to (its id binds the approval: affects.sessionId;
 * without one affects has no sessionId). Reads nothing but the APK
 * of an artifact from outside the project (its sha256 names it).
 *
 * @request_json (transfer full): {required: false} when the plan asks none; else {required: true, action:
 * "test_this_plan", risk, explain (one sentence for the person approving), affects {sessionId, projectRoot,
 * feature? (featureId), steps[{kind, risk}], apk?, appId?, insideProjectRoot?, sha256?, target?}, commands[{label,
 * argv, origin}]} with one command per consent step, its argv whole (the prompt shows every command it approves).
 * A plan that is not a JSON object is INVALID_ARGUMENT.
 */
SW_API int sw_test_plan_consent(sw_session *s, const char *plan_json, char **request_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
