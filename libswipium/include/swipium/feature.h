/* swipium/feature.h: qa_test_feature: one named feature scoped through the app map, its checks planned, then
 * tested on the device by a bounded walk toward it (safe controls only) and reported. */
#ifndef SWIPIUM_FEATURE_H
#define SWIPIUM_FEATURE_H

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The plan of a qa_test_feature run on @root (absolute; resolved by the caller with the project-root rule).
 * Side-effect free: it scopes the feature with sw_appmap_feature_scope() (which scans the code in memory when the
 * project has no map), reads nothing from a device except, with `bootstrap`, what sw_test_this_plan() reads (the
 * adb device list), and writes nothing.
 *
 * @s (nullable): the session the run belongs to (its device is used, its exploration graph adds runtime
 * evidence, its answered credentials count as a fixture).
 *
 * @options_json: {feature! (non-empty text), mode?: plan|execute|interactive, platform?: android|ios, device?,
 * creativity?: conservative|standard|creative|adversarial (default standard; adversarial needs allowAdversarial,
 * else the plan uses creative and says so), allowAdversarial?, maxScreens? (default 8), maxActions? (default 20),
 * timeoutMs? (the job's time cap, default 300000), generateCases? (default true), includeCode?, limit? (default 8),
 * bootstrap? (prepare the device inside the job through qa_test_this's plan: the call had no sessionId),
 * listedTools? (the tool names the frontend lists)}. An unknown key or a bad value is INVALID_ARGUMENT.
 *
 * @plan_json (transfer full): {mode, projectRoot, sessionId?, feature (as given), featureId, featureTitle,
 * scopeSource, objective, question?, creativity, limits, scope, targets[], cases[{id, title, kind: reach|controls|
 * back|revisit|relaunch|act, screenId?, screenName?, expected}], requiredFixtures[], steps[{step, status, why,
 * tool?}], bootstrap?, consent {required, action: "test_this_plan", risk, steps[]}, blockers[], notes[],
 * nextRecommendedAction}.
 *
 * A feature that neither the app map nor the code knows is INVALID_ARGUMENT naming the known features and what to
 * do; the scope's own codes (NO_APP_MAP, UNSAFE_ACTION_REFUSED for a .swipium that leads out of the project) pass
 * through.
 */
SW_API int sw_test_feature_plan(sw_ctx *ctx, sw_session *s, const char *root, const char *options_json,
                                char **plan_json, sw_error **err);

/**
 * Starts the run of @plan_json (from sw_test_feature_plan(); the test_this_plan consent of plan.consent already
 * given when it was required) as the job `test_feature` of @s. The job prepares the device when the plan
 * bootstraps, walks toward the feature's screens touching only safe controls (never a destructive one, never a
 * text field, never a permission prompt), runs the planned cases there with a health check after every action,
 * records each case (pass, fail or blocked with setup guidance), updates the app map and saves a report. Result:
 * {state: completed|blocked|needs_input, sessionId, featureId, objective, cases[], tally, path[], walls[],
 * findings[], notTouched[], stoppedReason, actions, screens, reportUri, reportSummary, appMap, blockers[],
 * needsInput?, optionalQuestion?, nextRecommendedAction, notes[]}; the job is `done` for completed and needs_input
 * and `failed` for blocked. Cancelling the job stops it before its next device command (status `cancelled`).
 * A qa_test_feature job already running on @s is not started twice: INVALID_ARGUMENT with details {jobId}.
 * @job_id: (transfer full).
 */
SW_API int sw_test_feature_start(sw_ctx *ctx, sw_session *s, const char *plan_json, char **job_id, sw_error **err);

/**
 * The id of the qa_test_feature job running on @s, or NULL (transfer full).
 */
SW_API char *sw_test_feature_running(sw_session *s);

#ifdef __cplusplus
}
#endif

#endif
