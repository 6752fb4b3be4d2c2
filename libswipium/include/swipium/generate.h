/* swipium/generate.h: qa_generate: a recorded run turned into flows, page objects, suites, test cases and code. */
#ifndef SWIPIUM_GENERATE_H
#define SWIPIUM_GENERATE_H

#include <swipium/actions.h>
#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Records a visual checkpoint in @s's recordedActions (qa_visual mode assert):
 * {tool: "qa_visual", action: "visualCheck", assertion, pass, screenshotUri?}.
 * Generation turns it into a manual checkpoint, never a text assertion.
 */
SW_API int sw_session_record_checkpoint(sw_session *s, const char *assertion, const char *screenshot_uri, int pass,
                                        sw_error **err);

/**
 * qa_generate over @s's recorded actions (@s may be NULL: NO_RECORDED_ACTIONS).
 *
 * @options_json: {target: flow|pom|suite|testcases|appium, mode?: plan|generate,
 * root?: project root (default the session's), name?, save?, budgetProfile?,
 * compile?, replay?: none|dry_run|same_session|fresh_state, stateProfile?,
 * freshStateApproved?: bool, format?: yaml|markdown|both, brittleThreshold?,
 * and the appium parameters (passed to the Appium emitter)}. Parameters another
 * target takes are ignored with a note; unknown ones are INVALID_ARGUMENT.
 * @drive (nullable): the session's bound drive, needed only by replay
 * same_session.
 *
 * Result: {target, mode, name, saved, files[{path, bytes, kind}], content?
 * (unsaved single documents), steps, skipped[], variables[], notes[],
 * ignoredParameters[], locatorAudit?, check?, replay?, readiness?, ciReady?}.
 * Failures: NO_RECORDED_ACTIONS, UNEMITTABLE_STEP, SECRET_IN_GENERATED_OUTPUT
 * (the final guard over every output, names and paths included, against the
 * session's registered secrets), UNSAFE_ACTION_REFUSED (a path outside the
 * project): nothing is written on any failure. (*result_json transfer full)
 */
SW_API int sw_generate(sw_ctx *ctx, sw_session *s, sw_drive *drive, const char *options_json, char **result_json,
                       sw_error **err);

/**
 * Reads and checks the state profile a fresh_state replay runs (our own format, see docs/generate.md):
 * @options_json {root, stateProfile: a name under .swipium/state/ or a .yaml path inside root}.
 * The path is confined to root after resolving symbolic links (UNSAFE_ACTION_REFUSED otherwise);
 * every step other than clearState is checked with the flow library. Result: {name, path, risk:
 * low|medium|high (the highest of its steps), prepare[], teardown[], exactCommand (every step, one
 * a line, for the suite_fresh_state_replay prompt)}. (*result_json transfer full)
 */
SW_API int sw_generate_state_profile(const char *options_json, char **result_json, sw_error **err);

/**
 * Non-zero when @s (nullable: 1) holds no recorded action qa_generate could replay (then target appium records
 * first when bootstrap asks for it).
 */
SW_API int sw_generate_needs_recording(sw_session *s);

/**
 * The plan of qa_generate target appium's bootstrap (nothing recorded yet), side-effect free: qa_test_this's plan
 * on @root (sw_test_this_plan(): the project's APK, the emulator, the prepare step and its one test_this_plan
 * consent), then a short crawl of the app's safe controls (qa_explore strict: nothing destructive, nothing typed)
 * whose taps are recorded. @s (nullable): the session the recording goes into. @options_json: qa_generate's
 * arguments (target must be appium; platform, device, language and the other appium parameters read as the
 * emitter reads them; bootstrap true, false or "auto"; listedTools?).
 *
 * *@plan_json (transfer full), also qa_generate's answer in mode plan: {target, mode, projectRoot, saved: false,
 * files: [], primaryPlatform, platformSource (argument, then the project profile, then the default: there is no
 * session device yet), bootstrap {needed, steps[] (resolve_project, find_artifact, pick_target, prepare, record),
 * crawl, appId?}, appium {language, runner, primaryPlatform, platformSource, notes[]}, consent {required, action:
 * "test_this_plan", risk, steps[]}, artifactChoice, targetChoice, blockers[], notes[]}.
 */
SW_API int sw_generate_bootstrap_plan(sw_ctx *ctx, sw_session *s, const char *root, const char *options_json,
                                      char **plan_json, sw_error **err);

/**
 * Runs a plan of sw_generate_bootstrap_plan() on @s (its consent already given when it was required): prepares the
 * device (sw_prepare_target_run(): boot if needed, install, launch; the session then knows its device and app),
 * then the crawl (sw_explore_run(), job id "generate-bootstrap"), whose every act lands in @s's recordedActions.
 * A plan with a blocker fails with the blocker's code and runs nothing. @cancel (nullable) is polled between
 * device commands (CANCELLED). *@result_json (transfer full): {prepared, crawl {state, stoppedReason, summary,
 * actions, screens, graphUri}}.
 */
SW_API int sw_generate_bootstrap_run(sw_ctx *ctx, sw_session *s, const char *plan_json, int (*cancel)(void *),
                                     void *cancel_ud, char **result_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
