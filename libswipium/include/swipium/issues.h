/* swipium/issues.h: the project's issue ledger (.swipium/issues-log.jsonl): log, fix, verify, suppress, history,
 * metrics. */
#ifndef SWIPIUM_ISSUES_H
#define SWIPIUM_ISSUES_H

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sw_redactor;

/**
 * Runs one issue-ledger operation on `<project_root>/.swipium/issues-log.jsonl`, an append-only
 * file of JSON events (one per line) shared by every process working on the project; each call
 * takes a cross-process lock (`issues-log.jsonl.lock`), replays the file and, for the writing
 * modes, appends one event. Cost is linear in the file.
 *
 * @request_json is the qa_issue_log argument object: {"mode": "history"|"log"|"mark_fixed"|
 * "verify_fixed"|"suppress"|"metrics" (default history), and the mode's fields:
 *   history: state?, category?, severity?, platform?, since? (ISO), includeSuppressed?
 *   log: title (required), summary?, failureCode?, category? (default app_bug), severity?
 *        (default medium), platform? (default unknown), evidenceUris?[]
 *   mark_fixed: issueId? | fingerprint?, fixedInCommit?, fixedInVersion?, howFixed?, fixedBy?
 *   verify_fixed: issueId? | fingerprint?, reportUri? | testCaseId? | auditCheckId? | evidenceUris?[]
 *   suppress: issueId? | fingerprint?, suppressionReason?, suppressedUntil? (ISO; alias until),
 *        suppressionScope?, unsuppress?
 *   metrics: since?, until?, groupBy? (day|week|month, default week), includeSuppressed?}
 * plus optional "sessionId" and "source" recorded with logged events.
 *
 * @redactor (nullable): when given, title, summary, howFixed, suppressionReason and fixedBy are
 * redacted with it before anything is written or returned.
 *
 * Identity of a logged issue: the title lower-cased with numbers and id-like tokens scrubbed,
 * plus the failure code (or the category when there is none), plus the platform. Logging an
 * existing issue again counts an occurrence; a fixed issue observed again is reopened.
 *
 * On success @result_json (transfer full) is a mode-specific object (see docs/tools/issues.md).
 * Failures: SW_EINVAL / INVALID_ARGUMENT (bad request), ISSUE_LOG_TOO_VAGUE, ISSUE_NOT_FOUND,
 * ISSUE_STATE_INVALID, ISSUE_EVIDENCE_REQUIRED (failure codes on @err), SW_EIO for file errors.
 */
SW_API int sw_issues_run(const char *project_root, const char *request_json, struct sw_redactor *redactor,
                         char **result_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
