/* swipium/suite.h: POM suites compiled to flows, and the canonical test suite (.swipium/test-suite.json). */
#ifndef SWIPIUM_SUITE_H
#define SWIPIUM_SUITE_H

#include <swipium/common.h>
#include <swipium/context.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sw_redactor;
struct sw_session;

/**
 * qa_flow_compile: compiles the POM suite `<project_root>/.swipium/<suite>` (default
 * `suites/smoke.yaml`) into one Flow V2 file per test, written to `.swipium/flows/<slug>.yaml` and
 * `.swipium/compiled/<slug>.flow.yaml` after each passes the flow checker (sw_flow_check). The
 * formats are in docs/page-objects.md.
 *
 * @request_json: {suite?: string}. The suite, its tests and its page objects are confined to the
 * project after following links; any outside is SW_EDENIED / UNSAFE_ACTION_REFUSED and nothing is
 * read or written. A missing suite is FLOW_NOT_FOUND, one that does not parse INVALID_FLOW.
 *
 * @result_json (transfer full): {ok (every test compiled and there was at least one), projectRoot,
 * suite, suiteName, tests, compiled, failed, flows[{test, name, slug, ok, errors[], warnings[],
 * variables[], valid?, flowPath?, compiledPath?, stepCount?}], pageIssues[], pageErrorCount,
 * suiteErrors[]}.
 */
SW_API int sw_suite_compile(const char *project_root, const char *request_json, char **result_json, sw_error **err);

/** The file-name slug of a flow name: every run of characters outside [A-Za-z0-9_.-] becomes `-`. (transfer full) */
SW_API char *sw_suite_slug(const char *name);

/**
 * The page-object locator audit (`swipium suite lint`): every YAML file in `.swipium/pages`.
 * @result_json (transfer full): {pagesFound (bool: .swipium/pages exists), pages, items[{level:
 * "error"|"warning", code, file, page?, element?, message}], errors, warnings}. A page object that does
 * not parse is an error item naming the file.
 */
SW_API int sw_suite_pages_lint(const char *project_root, char **result_json, sw_error **err);

/** The six steps `swipium suite init` prints (static text, transfer none). */
SW_API const char *sw_suite_init_guide(void);

/**
 * qa_suite_read: @request_json {functionality?, status?, format?: summary|json|markdown}.
 * @result_json (transfer full): {path, exists, total, shown, counts{status -> n}, functionalities[],
 * cases[] (json), markdown? (markdown), ...}. A test-suite.json that does not parse is SW_EPARSE,
 * never read as empty.
 */
SW_API int sw_suite_read(const char *project_root, const char *request_json, char **result_json, sw_error **err);

/**
 * qa_suite_update: @request_json {source, sourceUri?, cases?[], mergeMode?: append|update|
 * replace_generated}. Cases are matched by id, else by the dedupe key (feature + objective + steps,
 * trimmed, whitespace collapsed, case folded); new ids are TC-<FEATURE>-NNN, per feature, never reused.
 * Curated fields of a case whose source is "manual" are never overwritten: conflicts are returned.
 * @redactor (nullable): every text is redacted before it is written. @result_json (transfer full):
 * {created[], updated[], unchanged[], deprecated[], conflicts[], total, path, notes[]}.
 */
SW_API int sw_suite_update(const char *project_root, const char *request_json, struct sw_redactor *redactor,
                           char **result_json, sw_error **err);

/**
 * qa_suite_generate: cases from the app map's features (and the session's recorded actions when
 * @session is given), merged idempotently like sw_suite_update {source:"generate", mergeMode:"update"}.
 * @request_json {feature?, creativity?: conservative|standard|creative|adversarial, creativityLevel?
 * (deprecated alias), includeManualOnly?}. @result_json (transfer full): the update result plus
 * {generated[], skippedFeatures[], blockedFeatures[], coverageGaps[], creativity}.
 */
SW_API int sw_suite_generate(sw_ctx *ctx, const char *project_root, struct sw_session *session,
                             const char *request_json, char **result_json, sw_error **err);

/**
 * qa_suite_export: @request_json {format: markdown|yaml|json|junit, save?}. With save the files go
 * under `.swipium/test-suite-export/` (yaml: one file per case in a folder per functionality).
 * @result_json (transfer full): {format, content? (single-file formats), files[], cases, bytes}.
 */
SW_API int sw_suite_export(const char *project_root, const char *request_json, struct sw_redactor *redactor,
                           char **result_json, sw_error **err);

/**
 * qa_suite_lint: @request_json {brittleThreshold?: C|D, liveFeatureIds?[]}. Checks the cases (missing
 * expected / actual results, unlinked and stale links, duplicate ids, brittle automation, adversarial
 * cases without safety metadata) and, when `.swipium/pages` exists, the page objects' locators.
 * @result_json (transfer full): {ok, errors[], warnings[], counts, pages?}.
 */
SW_API int sw_suite_lint(const char *project_root, const char *request_json, char **result_json, sw_error **err);

/** The id of the canonical suite in the app-map entry template: .../app-map/test-suite/canonical. */
#define SW_SUITE_RESOURCE_ID "canonical"
/**
 * The resource URI of the canonical suite of @project_root,
 * `swipium://project/<projectId>/app-map/test-suite/canonical` (transfer full, in *@uri_out). The
 * project is recorded in ~/.swipium/projects.json so that the URI resolves in later processes too.
 * *@exists_out (nullable) is set to non-zero when `.swipium/test-suite.json` exists.
 */
SW_API int sw_suite_resource_uri(sw_ctx *ctx, const char *project_root, char **uri_out, int *exists_out,
                                 sw_error **err);
/**
 * resources/read of that URI: the whole `.swipium/test-suite.json` as pretty JSON, redacted by each of
 * @redactors (nullable entries are skipped), at most 1 MB (the qa_get_artifact text cap): a longer one
 * is its head, cut on a character boundary, and a line saying how much was left out (*@truncated_out,
 * nullable, set to non-zero). No file is SW_ENOTFOUND; a file that does not parse or is not a suite is
 * SW_EPARSE, never an empty suite. @text_out (transfer full), @len_out (nullable).
 */
SW_API int sw_suite_resource_read(const char *project_root, struct sw_redactor *const *redactors, size_t n_redactors,
                                  char **text_out, size_t *len_out, int *truncated_out, sw_error **err);
#ifdef __cplusplus
}
#endif

#endif
