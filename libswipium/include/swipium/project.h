/* swipium/project.h: finding the app project a run works on (the project-root rule). */
#ifndef SWIPIUM_PROJECT_H
#define SWIPIUM_PROJECT_H

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/util.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Inputs of the project-root rule, in priority order. Any field may be NULL.
 * Environment values are read by the caller (or left NULL to read the
 * process environment: see use_process_env).
 */
typedef struct sw_root_request {
	unsigned version;            /**< SW_ROOT_REQUEST_VERSION */
	const char *project_root;    /**< explicit argument: must be an absolute, existing directory */
	const char *const *mcp_roots; /**< NULL-terminated list of client roots (paths, not URIs), or NULL */
	const char *cwd;             /**< the process working directory; NULL reads getcwd() */
	const char *home;            /**< $HOME to refuse as a fallback root; NULL reads the environment */
	int use_process_env;         /**< non-zero: read SWIPIUM_PROJECT_ROOT and CLAUDE_PROJECT_DIR */
} sw_root_request;

#define SW_ROOT_REQUEST_VERSION 1
#define SW_ROOT_REQUEST_INIT {SW_ROOT_REQUEST_VERSION, NULL, NULL, NULL, NULL, 1}

/**
 * Resolves the project root. On success @root_out receives the directory and
 * @source_out one of "arg", "mcp-roots", "env:SWIPIUM_PROJECT_ROOT",
 * "env:CLAUDE_PROJECT_DIR", "cwd" (both transfer full, free with sw_free()).
 * Fails with SW_EINVAL (failure code INVALID_ARGUMENT) for a bad explicit
 * argument and SW_ENOTFOUND (PROJECT_ROOT_UNRESOLVED) when nothing applies.
 */
SW_API int sw_project_root_resolve(const sw_root_request *req, char **root_out, char **source_out, sw_error **err);

/**
 * The environment variables an MCP client should pass through to swipium-mcp
 * (test data, SDK locations, providers, CI identity): Codex's `env_vars`, and
 * what qa_doctor reports as visible. A NULL-terminated static list. (transfer none)
 */
SW_API const char *const *sw_client_env_vars(void);

/**
 * The confinement rule for project files: @path (relative to @project_root,
 * or absolute) resolved through every symbolic link must lie inside the
 * real project root; otherwise SW_EDENIED with failure code
 * UNSAFE_ACTION_REFUSED. A path that does not exist yet is resolved through
 * its nearest existing folder; with @must_exist non-zero it is SW_ENOTFOUND.
 * @real_out: (transfer full) the real path.
 */
SW_API int sw_project_path_confine(const char *project_root, const char *path, int must_exist, char **real_out,
                                   sw_error **err);

/**
 * sw_file_write_atomic() for a file inside a project (@path relative to
 * @project_root, or absolute): the path is confined as by
 * sw_project_path_confine(), its folders are opened without following any
 * symbolic link, and the new file replaces the old name (a final symbolic
 * link is never followed; one that stays inside the project is resolved to
 * its target first). @flags: SW_WRITE_MKDIRS, SW_WRITE_SHARED (folders
 * 0755, file 0644 less the umask), SW_WRITE_KEEP_MODE. Refusals are
 * SW_EDENIED / UNSAFE_ACTION_REFUSED, and nothing is written.
 */
SW_API int sw_project_write_file(const char *project_root, const char *path, const void *data, size_t len,
                                 unsigned flags, sw_error **err);

/**
 * The project context of @root (an absolute, existing directory), the one detector shared by
 * qa_resolve_target's context, `swipium scan`, the app-map scanner and qa_build's plan. Reads
 * manifests only (package.json, app.json, pubspec.yaml, Gradle and Xcode files, workspace
 * manifests), never follows a symlinked folder and runs nothing. @out_json (transfer full):
 * {root, framework: "flutter"|"expo"|"bare-react-native"|"native-android"|"native-ios"|"unknown",
 * reasons[], platforms[], appRoot?, appFramework?, appPlatforms? (the one app of a monorepo),
 * nonMobileKind? ("web"|"desktop"), appIds[{platform, id, source}], appId?, appIdSource?,
 * monorepo{detected, workspaceManifests[], apps[{path, framework, platforms}], notMobile?[{path, kind}]},
 * notes?[], build?}. App paths are relative to @root ("apps/mobile"). `build` (when the app folder is known)
 * lists what a build depends on, relative to the app folder: {packageJson, lockfile (package-lock.json |
 * yarn.lock | pnpm-lock.yaml | null), nodeModules, pubspec, expoName, android{dir ("android" | "." | null),
 * exists, gradlew, settings}, ios{dir, exists, podfile, workspaces[], projects[], schemes[] (shared, sorted)}}.
 */
SW_API int sw_project_detect(const char *root, char **out_json, sw_error **err);

/** Flags of sw_project_scan(). */
enum {
	/** Inspect only (`swipium scan --check|--dry-run|--no-write`): write nothing. */
	SW_SCAN_NO_WRITE = 1u << 0,
};

/**
 * `swipium scan`: can @root (absolute, existing) be tested now. Detects the project
 * (sw_project_detect), looks for Android build outputs (.apk/.aab, symlinks not followed) and for
 * devices (the selection of qa_resolve_target; nothing boots). @out_json (transfer full): {root,
 * verdict: READY|PARTIAL|BLOCKED, framework, frameworkReasons, platforms, appRoot?, appId, appIdSource,
 * monorepo, artifacts[{path, kind}], installableArtifacts, devices{onlineEmulators, avds, selected},
 * metro{needed, why}, freshStart{safe, why}, likelyAuth{likely, why}, recommendedProfile, toFix[],
 * notes?, written[], kept[]}. READY: known framework, an installable APK and an online emulator or
 * an AVD; BLOCKED: no APK or no device; PARTIAL: the rest. Unless BLOCKED or SW_SCAN_NO_WRITE it
 * writes, through the project confinement rule, .swipium/config.json (the result under "scan"; other
 * keys kept), .swipium/fixtures.json and .swipium/flows/README.md only when absent, and
 * .swipium/packs/. Never touches .gitignore, never runs git. A refused or failed write is an error.
 */
SW_API int sw_project_scan(sw_ctx *ctx, const char *root, unsigned flags, char **out_json, sw_error **err);

/** Non-zero when @dir holds one of the project markers (package.json, android/, *.xcodeproj ...). */
SW_API int sw_project_has_marker(const char *dir);

#ifdef __cplusplus
}
#endif

#endif
