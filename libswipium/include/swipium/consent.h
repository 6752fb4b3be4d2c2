/* swipium/consent.h: the consent gate every privileged action passes, and its mutation-ledger rows. */
#ifndef SWIPIUM_CONSENT_H
#define SWIPIUM_CONSENT_H

#include <swipium/common.h>
#include <swipium/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Lifetime of a consent id, in milliseconds (30 minutes). */
#define SW_CONSENT_TTL_MS 1800000
/** At most this many consents are pending; minting one more drops the oldest. */
#define SW_CONSENT_MAX_PENDING 200
/** A prompt answered faster than this (ms) is flagged likelyAutomatic. */
#define SW_CONSENT_AUTOMATIC_MS 1500
/** How long a consent prompt may stay open (10 minutes). */
#define SW_CONSENT_PROMPT_TIMEOUT_MS 600000

/** Version of sw_host_ops understood by this library. */
#define SW_HOST_OPS_VERSION 1

/**
 * Things only the frontend can do. The MCP server answers ask_consent with an
 * elicitation request, the CLI with a terminal prompt. Slots may be NULL;
 * new slots are only ever appended (check @version).
 */
typedef struct sw_host_ops {
	unsigned version; /**< SW_HOST_OPS_VERSION */
	/**
	 * Shows a consent prompt to a human and waits (at most
	 * SW_CONSENT_PROMPT_TIMEOUT_MS) for the answer.
	 *
	 * @request_json: {"consentId", "action", "risk", "message",
	 *   "requestedSchema", "timeoutMs"}; "message" is already sanitised and
	 *   capped, "requestedSchema" is the MCP form schema {approve: boolean}.
	 * @answer_json: set on success to a malloc()ed JSON text
	 *   {"action": "accept"|"decline"|"cancel", "content"?: {"approve": bool},
	 *   "answeredInMs"?: number}; the library frees it with free().
	 *
	 * Returns SW_OK when the human answered; SW_ETIMEOUT when the prompt timed
	 * out; SW_ECANCELLED when the call was aborted; any other negative code for
	 * a transport failure. Every failure ends as CONSENT_CANCELLED.
	 */
	int (*ask_consent)(void *userdata, const char *request_json, char **answer_json);
} sw_host_ops;

/**
 * Pending consents of one process. Thread-safe: the gate may be called from
 * several threads; a prompt in progress does not block other gates.
 */
typedef struct sw_consent_store sw_consent_store;

/**
 * Creates a store. @ctx (nullable, borrowed: it must outlive the store)
 * receives the log lines: at creation one warning for unknown names in
 * SWIPIUM_CONSENT_PREAPPROVE (with the nearest valid name), one for names
 * that can never or not without SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE=1 be
 * pre-approved, one info line listing the honoured names; a warning each
 * time operator policy approves an action.
 */
SW_API int sw_consent_store_new(sw_ctx *ctx, sw_consent_store **out, sw_error **err);
/** Frees @s. NULL is accepted. */
SW_API void sw_consent_store_free(sw_consent_store *s);

/**
 * Sets the host interface used to ask a human (copied; @userdata borrowed).
 * NULL @ops removes it. Without one, a client that can elicit gets a
 * deferred prompt (see sw_consent_gate()).
 */
SW_API int sw_consent_store_set_host(sw_consent_store *s, const sw_host_ops *ops, void *userdata, sw_error **err);

/** Number of consents currently pending (expired ones are pruned first). */
SW_API size_t sw_consent_store_pending(sw_consent_store *s);

/**
 * The one gate every privileged tool calls before it changes anything.
 *
 * @request_json: {
 *   "sessionId"?: string,        issuing / redeeming session
 *   "tool": string,              e.g. "qa_app_control"
 *   "action": string,            one of the consent action names (docs/consent.md)
 *   "risk"?: "low"|"medium"|"high"   default: the action's table risk
 *   "target"?: string,           short human target for the ledger row
 *   "targets"?: any JSON,        what the consent is bound to (default: "affects")
 *   "explain": string,           why, in one or two sentences
 *   "exactCommand"?: string | [string],  what will run (one step per line/element)
 *   "affects"?: any JSON,        shown to the user
 *   "consentId"?: string, "approve"?: bool,   the re-call half of the envelope
 *   "canElicit"?: bool,          the client supports form elicitation
 *   "elicitationAnswer"?: {"action", "content"?, "answeredInMs"?, "failure"?},
 *                                answer to a deferred prompt (with consentId)
 *   "includeSessionId"?: bool    put sessionId into the envelope (qa_test_this)
 * }
 *
 * Decision order: operator pre-approval (process environment only); a valid
 * consentId with approve:true minted as an envelope (client-assertion); a
 * prompt when canElicit (through the host, or deferred when no host is set);
 * SWIPIUM_REQUIRE_ELICITATION=1 refuses; otherwise a new envelope.
 *
 * On SW_OK @result_json (transfer full) is one of:
 *   {"approved": true, "mechanism": "operator-policy"|"client-assertion"|"elicitation",
 *    "consentId", "action", "risk", "ledgerRow": {...}}
 *   {"requiresConsent": true, "envelope": {...structuredContent...}, "text": "...",
 *    "ledgerRow": {...}}  (the portable envelope; a consentId that was refused
 *    adds "consentNote" and "previousConsentId" to the envelope)
 *   {"elicitationRequired": true, "consentId", "elicitation": {"message", "requestedSchema"},
 *    "ledgerRow": {...}}  (deferred prompt: ask, then call again with consentId +
 *    elicitationAnswer)
 * A refusal returns SW_EDENIED with failure code CONSENT_DECLINED,
 * CONSENT_CANCELLED or CONSENT_REFUSED; sw_error_details_json() holds
 * {"action", "retrySafe", "changedState": false, "answeredInMs"?, "likelyAutomatic"?,
 *  "elicitationFailure"?, "reason"?, "ledgerRow"}. Append every "ledgerRow"
 * to the session's mutation ledger (and drop it from what the client sees).
 * SW_EINVAL (INVALID_ARGUMENT) for a malformed request or unknown action.
 */
SW_API int sw_consent_gate(sw_consent_store *s, const char *request_json, char **result_json, sw_error **err);

/**
 * Builds the elicitation prompt for a gate request (same JSON as
 * sw_consent_gate()): {"message", "requestedSchema"}. Every repository-derived
 * value is sanitised, JSON-quoted and capped. (transfer full)
 */
SW_API int sw_consent_prompt(const char *request_json, char **prompt_json, sw_error **err);

/**
 * Sanitises one prompt field: control, line-separator, zero-width and bidi
 * characters become spaces, whitespace runs collapse to one space, the ends
 * are trimmed, and the result is cut to @max_chars UTF-16 units (the last one
 * being "…" when cut). Invalid UTF-8 becomes U+FFFD. (transfer full)
 */
SW_API int sw_consent_sanitize(const char *in, size_t len, size_t max_chars, char **out, sw_error **err);

/**
 * Builds one mutation-ledger row from @spec_json: {"tool", "action", "risk"?,
 * "target"?, "status": "requested"|"approved"|"executed"|"refused"|"blocked"|"restored",
 * "consent"?: {"required"?, "consentId"?, "approved"?, "payloadHash"?, "approvalMechanism"?},
 * "detail"?}. The row gets a fresh 8-hex "id" and "at" (epoch ms):
 * {id, at, tool, action, risk, target, consent{required, consentId?, approved,
 * payloadHash?, approvalMechanism}, status, detail?}. (transfer full)
 */
SW_API int sw_consent_ledger_row(const char *spec_json, char **row_json, sw_error **err);

/**
 * The consent action table as JSON: [{"action", "risk", "runsCode", "preapprovable"}...]
 * in name order. (transfer full)
 */
SW_API int sw_consent_actions_json(char **out, sw_error **err);

/**
 * How the current environment's SWIPIUM_CONSENT_PREAPPROVE is read:
 * {"honoured": [...], "blocked": [{"name", "why"}], "unknown": [{"name", "suggestion"?}],
 *  "requireElicitation": bool}. (transfer full)
 */
SW_API int sw_consent_preapproval_json(char **out, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
