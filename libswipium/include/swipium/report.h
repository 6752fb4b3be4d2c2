/* swipium/report.h: load a saved QA report, evaluate the release gate, render CI exports. */
#ifndef SWIPIUM_REPORT_H
#define SWIPIUM_REPORT_H

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded report (the reference's report JSON). Opaque. */
typedef struct sw_report sw_report;

/** Export formats of sw_report_render(). Values never change; new ones are appended. */
typedef enum sw_report_format {
	SW_REPORT_JUNIT = 0,
	SW_REPORT_SARIF = 1,
	SW_REPORT_GITHUB_SUMMARY = 2,
	SW_REPORT_MARKDOWN = 3,
	SW_REPORT_JSON = 4,
} sw_report_format;

/**
 * Parses a format name ("junit", "sarif", "github-summary", "markdown", "json").
 * Returns SW_EINVAL and leaves @out untouched for any other name.
 */
SW_API int sw_report_format_parse(const char *name, sw_report_format *out);
/** The name of @format ("junit", ...), or NULL for a value outside the enum. (transfer none) (nullable) */
SW_API const char *sw_report_format_name(sw_report_format format);

/**
 * Parses report JSON text of @len bytes. Fails with SW_EINVAL (INVALID_ARGUMENT)
 * when the text is not JSON or is JSON but not a report (not an object, or
 * `findings` / `testOutcomes` not arrays); the message says which. (transfer full) on @out.
 */
SW_API int sw_report_load_data(const char *data, size_t len, sw_report **out, sw_error **err);
/**
 * Reads and parses a report file. The error messages name @path as `swipium report`
 * prints them, all SW_EINVAL (INVALID_ARGUMENT): `Report file not found: <path>`;
 * `Could not read report <path>: <reason>`;
 * `<path> is not a Swipium report JSON (missing findings/testOutcomes).`
 */
SW_API int sw_report_load_file(const char *path, sw_report **out, sw_error **err);
/** Frees @report. NULL is accepted. */
SW_API void sw_report_free(sw_report *report);

/**
 * The report's sessionId as the reference prints it (JavaScript String(): a number 12 gives "12"),
 * or NULL when the report has none. (transfer none) (nullable)
 */
SW_API const char *sw_report_session_id(const sw_report *report);

/**
 * Evaluates the release gate of @report against the policy file
 * `<project_root>/.swipium/policy.json` (absent or unreadable: no policy,
 * every failure blocks). @project_root may be NULL (no policy).
 * @gate_json receives {block, blocked, warned, suppressed, reason}. (transfer full)
 */
SW_API int sw_report_gate(const sw_report *report, const char *project_root, char **gate_json, sw_error **err);

/**
 * Reads a gate verdict produced by sw_report_gate() / sw_report_render():
 * @block (nullable) receives 1 when the release is blocked, @reason (nullable,
 * transfer full) the gate's reason sentence. SW_EINVAL (INVALID_ARGUMENT) for anything else.
 */
SW_API int sw_report_gate_verdict(const char *gate_json, int *block, char **reason, sw_error **err);

/** Options of sw_report_render(). Initialise with SW_REPORT_RENDER_OPTIONS_INIT. */
typedef struct sw_report_render_options {
	unsigned version;         /**< SW_REPORT_RENDER_OPTIONS_VERSION */
	const char *project_root; /**< policy and SARIF anchor files are looked up here (nullable) */
} sw_report_render_options;

#define SW_REPORT_RENDER_OPTIONS_VERSION 1
#define SW_REPORT_RENDER_OPTIONS_INIT                                                                                  \
	{                                                                                                              \
		SW_REPORT_RENDER_OPTIONS_VERSION, NULL                                                                 \
	}

/**
 * Renders @report in @format, byte-compatible with the reference exporter.
 * The release gate is always evaluated (markdown does not show it).
 * On success @out (transfer full, NUL-terminated) and @len_out (nullable)
 * receive the body, without the final newline the CLI adds. @gate_json_out
 * (nullable) receives the gate verdict as in sw_report_gate().
 */
SW_API int sw_report_render(const sw_report *report, sw_report_format format, const sw_report_render_options *opts,
                            char **out, size_t *len_out, char **gate_json_out, sw_error **err);

/**
 * Finds the saved report JSON of a project's session under `<home>/.swipium`:
 * the sessions listed in `registry.json` and under `runs/<project hash>/` whose
 * state.json root is @root (compared by real path), oldest to newest by
 * `createdAt`; a session's report is its newest `report` artifact
 * (`report-<digits>.json`, application/json, still on disk), else the highest
 * `report/report-<digits>.json` in its directory.
 *
 * @home: (nullable) the home directory; NULL uses $HOME.
 * @root: (nullable) the project root, relative to the working directory; NULL is the working directory.
 * @session_id: (nullable) a session id; NULL picks the newest session that has a report.
 * @report_path: receives the absolute report path (transfer full).
 *
 * Fails with SW_EINVAL (INVALID_ARGUMENT); the error message is the one `swipium report` prints:
 * `No persisted Swipium session "<id>" for project <root>.`,
 * `Session <id> has no persisted report yet. Call qa_report for it first.` or
 * `No Swipium session with a report found for project <root> (looked in <home>/.swipium).` plus a
 * second line saying what to do.
 */
SW_API int sw_report_find(const char *home, const char *root, const char *session_id, char **report_path,
                          sw_error **err);

/**
 * The newest saved report of @s, by the one rule sw_report_find() also
 * applies to a session: a `report` artifact report-<digits>.json
 * (application/json) still on disk, the latest createdAt winning. @meta_json:
 * (transfer full) its artifact record {uri, path, kind, mime, createdAt, ...}.
 * SW_ENOTFOUND (NO_ARTIFACT) when the session has none.
 */
SW_API int sw_session_latest_report(sw_session *s, char **meta_json, sw_error **err);

/**
 * Assembles the report JSON of @s from its persisted state, with the
 * top-level keys and records of the reference's report (findings
 * deduplicated, verdicts, tallies; see docs/report-formats.md, "Report
 * assembly"). Linear in the number of notes, findings and tool errors.
 * Secret values never appear (inputs are listed by name only, secret
 * generated values as "<redacted>"); the caller still deep-redacts the
 * text before saving it. The release gate is not part of it.
 *
 * @options_json: (nullable) {baseline?, trendRoot?} (strings); a bad
 * option fails with SW_EINVAL / INVALID_ARGUMENT.
 * @report_json: (transfer full) pretty JSON text (JSON.stringify(r, null, 2)).
 */
SW_API int sw_report_assemble(sw_session *s, const char *options_json, char **report_json, sw_error **err);

/**
 * The report pipeline every frontend uses (qa_report, `swipium run`): puts back
 * the network a run turned off (with @ctx; skipped when @ctx is NULL or
 * restoreNetwork is false), assembles the report (sw_report_assemble()),
 * deep-redacts it with the session's redactor, saves it as the `report`
 * artifact `report-<ms>.json`, writes the artifact manifest
 * `manifest-<ms>.json` (each artifact's size and SHA-256, hashed while
 * streaming from disk), and renders and saves the export of @format.
 *
 * @options_json: (nullable) {format?: summary (default) | markdown | json |
 *   junit | sarif | github-summary | playwright | flow, baseline?, trendRoot?,
 *   restoreNetwork?: bool (default true), tool?: the name recorded with the
 *   network restore (default "qa_report")}; an unknown key or a wrong type is
 *   INVALID_ARGUMENT.
 * @result_json: (transfer full) {networkRestored?, sessionId, reportUri,
 *   reportPath, manifestUri?, exportUri?, exportFormat?, releaseGate?,
 *   warnings?, executiveSummary, appVerdict, coverageVerdict, toolVerdict,
 *   outcomeTally, findingOccurrences}.
 * @export_body: (nullable, transfer full) the export text (NULL for summary
 *   and json).
 */
SW_API int sw_report_save(sw_ctx *ctx, sw_session *s, const char *options_json, char **result_json,
                          char **export_body, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
