/* swipium/explore.h: the autopilot's explorer (qa_explore), first-run handling (qa_first_run) and the risk classes
 * of controls. */
#ifndef SWIPIUM_EXPLORE_H
#define SWIPIUM_EXPLORE_H

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/job.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The risk of one control, from what a person reads on it (@label: its own
 * text or description, else the text of its descendants), its resource id
 * and role (both nullable). Returns "safe", "unknown" or "destructive"
 * (static strings). *@high_impact (nullable) receives NULL or the
 * high-impact class: payment, message_send, external_invite,
 * account_delete, bulk_delete, permission_change, logout, data_export (every
 * high-impact control is destructive). Labels are folded first (case,
 * full-width forms, invisible characters, look-alike Cyrillic letters,
 * punctuation), so "Ｄｅｌｅｔｅ", "Dеlete" and "Log\u200bout" are still read as
 * what they say. An empty label with no resource id is "unknown".
 */
SW_API const char *sw_risk_classify(const char *label, const char *resource_id, const char *role,
                                    const char **high_impact);

/**
 * Checks qa_explore's arguments (@args_json: the tool's object without
 * sessionId, consentId, approve) against the session, touching nothing.
 * Errors: INVALID_ARGUMENT (an unknown key or a bad value),
 * DESTRUCTIVE_REFUSED (safeMode approved_destructive; a
 * destructiveCandidate that no dry run of this session returned; a
 * high-impact candidate without confirmHighImpact:true),
 * MISSING_FIXTURE (approved_destructive_candidate without disposable state:
 * a session fixture with disposable:true or environment "test").
 * *@consent_json (transfer full): "null", or the consent the call needs
 * first: {action:"destructive_ui_candidate", risk:"high", explain, affects}.
 */
SW_API int sw_explore_check(sw_session *s, const char *args_json, char **consent_json, sw_error **err);

/**
 * The crawl, on the calling thread: opens its own device and drive on the
 * session's device (so it can run inside any job), explores within depth,
 * maxActions, maxScreens, maxDurationMs and the session budget, and writes
 * the screen graph to <session dir>/explore/<@job_id>/graph.json and
 * graph.md (atomically). @cancel (nullable) is polled before every device
 * command; once it returns non-zero the crawl stops with stoppedReason
 * "cancelled" and no finding for the current screen. @args_json as for
 * sw_explore_check(), which this calls first.
 * *@result_json (transfer full): {state: completed|needs_input|blocked,
 * stoppedReason, summary, destructiveCandidates[], needsInput|null,
 * suitePromotion, graphUri, graphMarkdownUri, findings[], screens, actions,
 * deviceCommands, relaunches, appMap}.
 */
SW_API int sw_explore_run(sw_ctx *ctx, sw_session *s, const char *args_json, sw_abort_fn cancel, void *cancel_ud,
                          const char *job_id, char **result_json, sw_error **err);

/**
 * sw_explore_check() then sw_explore_run() as a job of kind "explore" of @s
 * (qa_job_status, qa_job_cancel). @ctx's home is copied for the job.
 * @job_id: (transfer full).
 */
SW_API int sw_explore_start(sw_ctx *ctx, sw_session *s, const char *args_json, char **job_id, sw_error **err);

/**
 * qa_first_run. @args_json: {mode?: plan|continue, until?: one_step|
 * until_gate|until_home, allowGeneratedAccount?, testDataPolicyPath?,
 * maxSteps?, maxDurationMs?}. plan classifies the current screen (login,
 * create-account, login-or-create, OTP, onboarding, permissions, paywall,
 * home, feature, error) with confidence and evidence and touches nothing;
 * continue acts within until/maxSteps/maxDurationMs.
 * *@out_json: (transfer full).
 */
SW_API int sw_first_run(sw_ctx *ctx, sw_session *s, const char *args_json, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
