/* swipium/audit.h: the release audit (qa_mobile_audit): a checklist per profile, planned without a device or
 * executed on a prepared session, every verdict backed by evidence. */
#ifndef SWIPIUM_AUDIT_H
#define SWIPIUM_AUDIT_H

#include <swipium/actions.h>
#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/job.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The options of every call below are qa_mobile_audit's arguments without sessionId, projectRoot,
 * consentId and approve: {"profile": "smoke"|"account_cycle"|"store_compliance"|"resilience"|
 * "release_gate", "mode"?: "plan"|"execute" (default plan), "allowGeneratedData"?: bool,
 * "allowTestAccountDeletion"?: bool, "offlineMode"?: bool, "sourceRevision"?: {"commit"?, "buildVersion"?,
 * "branch"?: string}, "targetApp"?: string}. Any other key (waitForCompletion included: it was removed)
 * or a wrong type is SW_EINVAL / INVALID_ARGUMENT. docs/mobile-audit.md describes the checks.
 */

/**
 * The checklist and the safety contract of @options_json's profile, with no device command at all.
 * @s (nullable) and @root (nullable; the session's root wins) only fill in the app and the project.
 * @out_json (transfer full): {mode: "plan", profile, profiles[], checks[{id, profile, title, what,
 * evidence[], touchesDevice, typesText, blockedBecause?}], checkCount, safetyContract{...}, consent{required,
 * action?, risk?}, audited{targetApp, sourceRevision, projectRoot}, notes[]}.
 */
SW_API int sw_audit_plan(sw_session *s, const char *root, const char *options_json, char **out_json,
                         sw_error **err);

/**
 * What an execute of @options_json needs approved before anything runs on the device, read from the
 * session's state only (no device command): {required: false} or {required: true, action:
 * "network_change", risk: "medium", explain, exactCommand (one step per line), affects{...}}.
 */
SW_API int sw_audit_consent_request(sw_session *s, const char *options_json, char **out_json, sw_error **err);

/**
 * Runs every check of the profile on @drive (the session's bound drive, sw_drive_bind()) and returns when
 * all of them ran or @abort_fn (nullable) answered non-zero. The caller has obtained the consent that
 * sw_audit_consent_request() named. For resilience and release_gate the airplane state is read before the
 * first check and put back (on or off, as it was found) after the last one, after a failed check and on
 * cancellation; the orientation likewise. Each failed or blocked check is logged to the project's issue
 * ledger with its evidence; a check never passes without evidence (a screenshot, a UI dump, a log line).
 * @out_json (transfer full): {mode: "execute", profile, checks[{id, profile, title, status:
 * pass|fail|blocked|not_evaluated, severity, category, reason, evidence[{kind, uri?, line?}], failureCode?,
 * issueId?, issueState?}], counts, releaseImpact{verdict: ship|caution|block, reasons[], blockingChecks[]},
 * network{managed, found?, restoredTo?, restored?, error?}, orientation?, ledger{logged, errors[]},
 * audited{...}, reportUri?, notes[]}.
 * Cancelled: SW_ECANCELLED / CANCELLED with details {changedState: true, completedChecks, network}; the
 * interrupted check is not logged. No app id in the session: BUNDLE_ID_NOT_FOUND. mode plan:
 * INVALID_ARGUMENT (use sw_audit_plan()).
 */
SW_API int sw_audit_execute(sw_ctx *ctx, sw_session *s, sw_drive *drive, const char *options_json, sw_abort_fn abort_fn,
                            void *abort_ud, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
