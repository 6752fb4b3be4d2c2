/* swipium/appmap.h: the app map (.swipium/app-map.json): Swipium's durable memory of one project. */
#ifndef SWIPIUM_APPMAP_H
#define SWIPIUM_APPMAP_H

#include <swipium/common.h>
#include <swipium/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The map file lives at <root>/.swipium/app-map.json (format: docs/app-map.md). Every call below takes
 * the project root (an absolute, existing directory; it is resolved to its real path) and confines every
 * file it touches to it (sw_project_path_confine()). Writes happen under the lock file
 * .swipium/app-map.json.lock as read-modify-write, land with a temporary file and a rename, and first
 * keep the previous good map in .swipium/app-map.history/ (the newest 30). A map that does not parse is
 * renamed aside (app-map.json.corrupt-<time>, never deleted) and the newest good history copy is
 * restored and used; the answer's notes[] say so. The first write in a git repository (the nearest
 * ancestor holding .git, a folder or a file) adds ".swipium/" to <root>/.gitignore once; git itself is
 * never run. Each call records the project in ~/.swipium/projects.json (the context's home) so that
 * swipium://project/<projectId>/app-map URIs resolve after a restart.
 *
 * Requests and answers are JSON text; answers (transfer full) are freed with sw_free(). Every answer
 * carries projectId, uri (swipium://project/<projectId>/app-map) and, when something was recovered,
 * skipped or cut, notes[]. Failure codes on @err: INVALID_ARGUMENT, NO_APP_MAP, UNSAFE_ACTION_REFUSED
 * (a path leading out of the project), ARTIFACT_PATH_UNWRITABLE (.swipium cannot be written: nothing is
 * replaced and the read-only calls keep working).
 */

/**
 * qa_app_map_read. @request_json: {section?: "summary"|"screens"|"features"|"auth"|"automation"|
 * "testSuite"|"full" (default summary), featureId?, screenId?}. An unknown featureId or screenId is
 * INVALID_ARGUMENT; "full" and sections over the inline cap answer with counts and resource URIs.
 */
SW_API int sw_appmap_read(sw_ctx *ctx, const char *root, const char *request_json, char **out_json, sw_error **err);

/**
 * qa_app_map_query. @request_json: {query!, intent?: "feature"|"screen"|"code"|"test"|"freeform",
 * limit? (1..50, default 10), tools?: [names]}. Ranked results {type, id, title, score, confidence,
 * provenance[], sourceFiles[], screens[], recommendedNextTool{tool, args, why}}; the tool is one of
 * @tools (the tools the caller can actually call) when that list is given.
 */
SW_API int sw_appmap_query(sw_ctx *ctx, const char *root, const char *request_json, char **out_json, sw_error **err);

/**
 * qa_app_map_update. @request_json: {note?, testCases?[{id!, title!, featureId?, screenId?, status?,
 * source?, stale?}], automationSuite?{name!, path!, framework?, linkedFeatureIds?[], linkedScreenIds?[]},
 * environment?, featureCoverage?{featureId!, coverage!: none|partial|covered}, sessionId?}. A test case
 * with an existing id and a suite with an existing path are overwritten, never duplicated. An empty
 * update or an unknown featureId is INVALID_ARGUMENT and leaves the map as it was.
 */
SW_API int sw_appmap_update(sw_ctx *ctx, const char *root, const char *request_json, char **out_json, sw_error **err);

/**
 * qa_app_map_build. @request_json: {mode?: "static_only"|"runtime_merge"|"full" (default full),
 * includeCodeIndex? (default true), forceRescan?, sessionId?, sessionDir?}. A static scan refreshes the
 * static topology, features, auth and code index and keeps runtime screens, test cases, suites and
 * coverage. With sessionDir, the session's latest exploration graph (<sessionDir>/explore/<jobId>/
 * graph.json, the greatest finishedAt) is merged into runtimeTopology; runtime_merge rescans only with
 * forceRescan or when there is no map yet.
 */
SW_API int sw_appmap_build(sw_ctx *ctx, const char *root, const char *request_json, char **out_json, sw_error **err);

/**
 * qa_app_map_feature_scope. @request_json: {featureId? | query?, platform?: "android"|"ios",
 * includeCode? (default true), limit? (default 8 per list), sessionDir?}. Read-only: without a map the
 * code is scanned in memory and nothing is written into the project. Neither featureId nor query is
 * INVALID_ARGUMENT.
 */
SW_API int sw_appmap_feature_scope(sw_ctx *ctx, const char *root, const char *request_json, char **out_json,
                                   sw_error **err);

/**
 * The resource behind swipium://project/<projectId>/app-map (@kind NULL: the whole map) or
 * .../app-map/<kind>/<id> (@kind "feature", "screen" or "test-suite"). No map, or no entry of that
 * kind and id, is SW_ENOTFOUND. @out_json: the map or the entry (transfer full).
 */
SW_API int sw_appmap_resource(sw_ctx *ctx, const char *root, const char *kind, const char *id, char **out_json,
                              sw_error **err);

/**
 * Records @root (its real path) in ~/.swipium/projects.json and gives its project id (the first 16
 * hex digits of the SHA-256 of the real path) in @id_out. @has_map_out (nullable) is set to non-zero
 * when the project has an app-map.json.
 */
SW_API int sw_appmap_project_register(sw_ctx *ctx, const char *root, char id_out[17], int *has_map_out, sw_error **err);

/**
 * The root of project @project_id from ~/.swipium/projects.json, when it still exists and still has
 * that id. SW_ENOTFOUND otherwise. @root_out: (transfer full).
 */
SW_API int sw_appmap_project_root(sw_ctx *ctx, const char *project_id, char **root_out, sw_error **err);

/**
 * Checks @text as the map loader does (a JSON object whose known sections have the right types) and,
 * when it passes, renders the summary section from it. For fuzzing and tools that inspect a copy.
 * @out_json (nullable, transfer full): the summary. SW_EPARSE when @text is not a usable map.
 */
SW_API int sw_appmap_check(const char *text, size_t len, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
