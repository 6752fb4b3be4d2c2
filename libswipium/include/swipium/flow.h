/* swipium/flow.h: Flow V2 replayable YAML flows: check, plan, run, repair, packs and starter templates. */
#ifndef SWIPIUM_FLOW_H
#define SWIPIUM_FLOW_H

#include <swipium/actions.h>
#include <swipium/common.h>
#include <swipium/consent.h>
#include <swipium/context.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * qa_flow_check: parses and lints one flow without touching a device.
 *
 * @options_json: {root?: project root, flow?: name under .swipium/flows (with or
 * without .yaml) or a path inside the root, flowYaml?: inline YAML,
 * platform?: android|ios|cross-platform, ci?: bool, variables?: {NAME: value}}.
 *
 * Result: {ok, valid, name, mode, stepCount, errors[{line, column, phase?,
 * step?, kind?, message}], warnings[{code, message, phase?, step?, kind?,
 * line?}], variables[], mutatingSteps[], needsConsent, usesVisualSteps,
 * path?, ci?{policyFound, missingVariables[], mutationsNotAllowed[], ready}}.
 * Schema problems (unknown steps, wrong types) are result errors; YAML that
 * does not parse or breaks a limit (10 MB, anchors/aliases, tabs, duplicate
 * keys) fails with INVALID_FLOW and line:column in the message. A missing
 * flow fails with FLOW_NOT_FOUND, neither flow nor flowYaml with
 * INVALID_ARGUMENT. @result_json: (transfer full)
 */
SW_API int sw_flow_check(const char *options_json, char **result_json, sw_error **err);

/**
 * qa_flow_run mode plan (read-only): how each step would run on each backend.
 * @options_json: as sw_flow_check plus backend?: one of android-direct,
 * ios-raw-simulator, ios-wda, appium-uiautomator2, appium-xcuitest.
 * Result: {name, mode, steps[{phase, index, kind, line}], backends{<name>:
 * [{phase, index, kind, support: native|fallback|visual_only|unsupported}]},
 * consent{required, action, risk, explain, exactCommand[], affects[]},
 * variables[]}. An invalid flow fails with INVALID_FLOW. (transfer full)
 */
SW_API int sw_flow_plan(const char *options_json, char **result_json, sw_error **err);

/** Version of struct sw_flow_run_options described here. */
#define SW_FLOW_RUN_OPTIONS_VERSION 1

/** What sw_flow_run() needs. Strings and handles are borrowed for the call. */
typedef struct sw_flow_run_options {
	unsigned version;           /**< SW_FLOW_RUN_OPTIONS_VERSION */
	const char *root;           /**< project root (flows by name, template/baseline confinement) */
	const char *flow;           /**< (nullable) flow name or path inside @root */
	const char *flow_yaml;      /**< (nullable) inline YAML */
	const char *variables_json; /**< (nullable) {NAME: value}: the first source of ${NAME} */
	sw_session *session;        /**< the session the run is recorded in */
	sw_drive *drive;            /**< drive state of the session's device */
	sw_device *device;          /**< the device behind @drive */
	/**
	 * Non-zero when the frontend obtained the flow_mutation_run consent (see
	 * sw_flow_plan()'s consent object). Without it a flow with mutating or OCR
	 * steps runs nothing and is recorded blocked (CONSENT_REFUSED).
	 */
	int mutations_approved;
	const volatile int *cancel; /**< (nullable) non-zero stops between steps with CANCELLED */
	sw_ctx *ctx;                /**< (nullable) logs and adb discovery of the network steps */
} sw_flow_run_options;

#define SW_FLOW_RUN_OPTIONS_INIT                                                                                       \
	{                                                                                                              \
		SW_FLOW_RUN_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL                   \
	}

/**
 * qa_flow_run mode run: setup, then steps (fail-fast; mutating steps never
 * retried), then teardown, which always runs. ${NAME} resolves from
 * @variables_json, then the environment for SWIPIUM_* names only; any other
 * name fails its step with MISSING_FIXTURE and is never read. Values of
 * credential-like names are registered with the session redactor before use.
 *
 * Result (also when the flow fails; the flow's outcome is data):
 * {name, path?, outcome: pass|fail|blocked, passed, failedAtStep?,
 * failedPhase?, failedKind?, failureCode?, message?, screenshotUri?,
 * steps[{phase, index, kind, ok, skipped?, durationMs, summary?, failureCode?}],
 * nextSteps[], durationMs}. One test outcome (note) named after the flow is
 * appended to the session. Errors (SW_E*) only for bad input: INVALID_FLOW,
 * FLOW_NOT_FOUND, INVALID_ARGUMENT. @result_json: (transfer full)
 */
SW_API int sw_flow_run(const sw_flow_run_options *opts, char **result_json, sw_error **err);

/**
 * sw_flow_run(), and every act the run makes (not its settle waits) is recorded in @opts's session the
 * way qa_act's are (TOOLS.md §7.4), as tool @tool (e.g. "qa_smoke"), so qa_generate can use the run: a typed
 * text is recorded as the step wrote it (its ${VAR}, never the resolved value), a step marked secret whose
 * text is a literal is recorded without it.
 */
SW_API int sw_flow_run_recorded(const sw_flow_run_options *opts, const char *tool, char **result_json, sw_error **err);

/**
 * qa_smoke's flow part: runs every saved flow under <root>/.swipium/flows (by
 * file name) in @opts's session, never with consent. A flow with mutating or
 * OCR steps never runs implicitly: it is recorded blocked (category
 * destructive_refused) with a pointer to qa_flow_run; an unreadable or invalid
 * flow is recorded as a failure; the acts of the flows that run are recorded as sw_flow_run_recorded()'s
 * (tool qa_smoke). @opts->flow, flow_yaml and
 * mutations_approved are ignored. Result: {flows: [{flow, name?, outcome,
 * category?, failureCode?, failedAtStep?, failedPhase?, next?}], passed,
 * failed, blocked}. @result_json: (transfer full)
 */
SW_API int sw_flow_run_saved(const sw_flow_run_options *opts, char **result_json, sw_error **err);

/**
 * Takes the flow_mutation_run consent a flow needs through sw_consent_gate(),
 * so every frontend asks the same question and records the same rows.
 *
 * @store: the process's consent store (with the frontend's host, if any).
 * @session: (nullable) the session the ledger rows are appended to.
 * @options_json: what sw_flow_plan() takes (root, flow or flowYaml, ...).
 * @gate_json: (nullable) frontend members of the gate request: "tool"
 *   (default "qa_flow_run"), "canElicit", "consentId", "approve",
 *   "elicitationAnswer", "target"; and "operatorAnswer": a text naming an
 *   explicit operator instruction (e.g. "swipium run --approve
 *   flow_mutation_run") the host answers from without a prompt: an approval
 *   reached through the host is then recorded as operator-policy with that
 *   text as the row's detail; "explainMaxBytes": a positive integer, the
 *   most bytes of explain the gate is given (cut at a UTF-8 boundary; default
 *   no cap; the MCP server passes 699). The flow supplies action, risk, explain,
 *   exactCommand (one step per line), affects and sessionId.
 *
 * Every ledger row the gate returns is appended to @session and dropped from
 * what is returned. On SW_OK @result_json (transfer full) is
 * {"required": false} for a flow without mutating or OCR steps, else the
 * gate's result plus "required": true (approved, requiresConsent or
 * elicitationRequired). A refusal is the gate's SW_EDENIED error
 * (CONSENT_DECLINED, CONSENT_CANCELLED, CONSENT_REFUSED); an invalid flow
 * fails as sw_flow_plan() does.
 */
SW_API int sw_flow_consent(sw_consent_store *store, sw_session *session, const char *options_json,
                           const char *gate_json, char **result_json, sw_error **err);

/**
 * qa_flow_repair: proposes replacement selectors for step @failed_step
 * (zero-based over `steps`) from the device's current screen.
 * @options_json: {root?, flow?, flowYaml?, failedStep: int, apply?: bool}.
 * Result: {step{index, kind, selector}, candidates[{ref, role, text?, label?,
 * id?, selector, confidence: high|medium|low, reason}], best?, applied,
 * note?, patch?{path, line, from, to}, appCodeSuggestion}. Candidates keep
 * the failed target's role. apply:true patches a simple one-line selector
 * step of a file flow inside @root at high/medium confidence (atomically)
 * and appends a ledger row to @session; never inline YAML.
 * @result_json: (transfer full)
 */
SW_API int sw_flow_repair(sw_session *session, sw_drive *drive, const char *options_json, char **result_json,
                          sw_error **err);

/**
 * Resolves what `swipium run` was given: a pack name under .swipium/packs/
 * (with or without .yaml), a flow name under .swipium/flows/, or a path
 * inside @root. Result: {kind: flow|pack, name, flows: [paths]}. A pack is a
 * YAML file {name?, flows: [flow names or paths]}. (transfer full)
 */
SW_API int sw_flow_resolve_target(const char *root, const char *target, char **result_json, sw_error **err);

/**
 * `swipium init flows`: writes the starter flows under <root>/.swipium/flows
 * and the smoke pack .swipium/packs/smoke.yaml. Existing files are kept
 * unless @force. Result: {written[], kept[]} (paths relative to @root).
 * @result_json: (transfer full)
 */
SW_API int sw_flow_init_templates(const char *root, int force, char **result_json, sw_error **err);

/**
 * Saves the report of @session (sw_report_assemble(), deep-redacted with the
 * session's secrets) as its `report` artifact `report-<ms>.json`, so
 * `swipium report --latest` renders it. @meta_json: (transfer full)
 * (nullable) the artifact metadata.
 */
SW_API int sw_flow_save_report(sw_session *session, char **meta_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
