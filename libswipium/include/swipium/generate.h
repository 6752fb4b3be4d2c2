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

#ifdef __cplusplus
}
#endif

#endif
