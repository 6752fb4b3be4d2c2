/* swipium/exports.h: the qa_report exports that are not CI formats: Playwright-style JSON and a recorded Flow V2. */
#ifndef SWIPIUM_EXPORTS_H
#define SWIPIUM_EXPORTS_H

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Renders a report (the report JSON text) in the style of Playwright's JSON reporter: one suite for
 * the session, one spec per test outcome (pass → passed/expected, fail → failed/unexpected with the
 * reason as the error, blocked/skipped/not_applicable → skipped), evidence URIs as attachments, and
 * stats {expected, unexpected, skipped, flaky}. Pretty JSON (two-space indent).
 * SW_EINVAL (INVALID_ARGUMENT) when @report_json is not JSON or not a report (needs a `testOutcomes` array).
 * @out: (transfer full)
 */
SW_API int sw_export_playwright(const char *report_json, char **out, sw_error **err);

/**
 * Turns recorded actions (the session's `recordedActions` JSON array: qa_act arguments plus `tool`
 * and, for failed ones, `failureCode`) into a Flow V2 YAML document named @name (nullable: "recorded")
 * for @app_id (nullable). Taps, typing, swipes, scrolls, key presses, URLs and waits become steps;
 * selectors prefer ids (`id=<id>`), then WDA selectors, then text, then coordinates (`tapAt`).
 * Actions that cannot be replayed (a bare `@eN` ref, failed actions) become YAML comments, never steps.
 * Typed text is written as given (recorded placeholders such as ${SWIPIUM_TEST_PASSWORD} stay
 * placeholders). SW_ENOTFOUND (NO_RECORDED_ACTIONS) when nothing can be replayed.
 * @yaml_out: (transfer full)
 */
SW_API int sw_export_flow(const char *recorded_actions_json, const char *name, const char *app_id, char **yaml_out,
                          sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
