/* swipium/appscan.h: the static app scanner (screens and navigation found in a project's source). */
#ifndef SWIPIUM_APPSCAN_H
#define SWIPIUM_APPSCAN_H

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Scans the source tree under @root (an absolute, existing directory) and answers its static topology.
 * Needs no Node, Kotlin, Swift or Dart toolchain and runs nothing: each language has its own tokenizer
 * (JS/TS/JSX/TSX, Kotlin and Gradle, Swift, Dart) and XML (Android manifests, Navigation graphs, layouts,
 * storyboards) goes through libxml2 with no network and no entity expansion. The scanner never writes
 * anything; the same call serves an in-memory scan (qa_app_map_feature_scope) and the map build.
 *
 * Walk limits: the folders node_modules, build, dist, Pods, .gradle, .dart_tool, DerivedData, .git,
 * .swipium (and .expo, .build, .cxx, .idea) are not entered; symlinked folders are never followed; a
 * symlinked file is read only when its real path is inside the real @root; a file over 2 MB is not read
 * (not even hashed) and a file with a NUL byte in its first 8 KB is not parsed; a file name that is not
 * UTF-8 is skipped, its name escaped in the note; depth and file count are capped. Every skip that
 * matters is said in parserNotes (with counts where there are many).
 *
 * @options_json: NULL, "" or an object with (all optional):
 *   "maxFiles" (integer, default 50000: files looked at), "maxDepth" (integer, default 32),
 *   "codeIndex" (bool, default true: include codeIndex), "project" (object: the sw_project_detect()
 *   result when the caller already has it; otherwise the scanner calls sw_project_detect itself).
 *   Unknown keys or wrong types are SW_EINVAL / INVALID_ARGUMENT.
 *
 * @out_json (transfer full, free with sw_free()), the staticTopology object:
 * {
 *   "framework": "expo"|"bare-react-native"|"native-android"|"native-ios"|"flutter"|"unknown"
 *                (sw_project_detect's; at a monorepo root with one app, that app's),
 *   "router": "expo-router"|"react-navigation"|"android-manifest"|"jetpack-navigation"|"compose-navigation"|
 *             "navigation3"|"swiftui"|"uikit"|"storyboard"|"flutter-routes"|"go_router"|"auto_route"|"none"
 *             (the one that found the most screens; "routers" lists them all),
 *   "routers": [string...],
 *   "screens": [{
 *       "id": "<router>:<route or name>" (stable: built from router + route/name, never from order; a
 *             clash gets "#<source file>" appended),
 *       "name": string, "route"?: string (Expo/Compose/Flutter routes, React Navigation screen name),
 *       "kind": "screen"|"not-found"|"activity"|"fragment"|"dialog"|"view-controller"|"scene"|"view",
 *       "router": string, "app"?: string (the monorepo app holding it, as sw_project_detect names it
 *       ("apps/mobile"), or "." when the root is the app; absent when neither applies),
 *       "component"?: string (the component/class/composable/widget shown),
 *       "sourceFiles": [project-relative paths of files that exist, the defining file first],
 *       "title"?: string (a label: android:label, go_router name:, storyboard title), "params"?: [string]
 *       (Expo Router [id] params), "launcher"?: true (the Android launcher activity),
 *       "confidence": 0..1, "reasons": [string...],
 *       "auth"?: {"likely": true, "reasons": [string...]}    (only on auth screens)
 *   }],
 *   "layouts": [{"id", "route", "sourceFiles"}]            (Expo Router _layout files; not screens),
 *   "graphs": [{"id", "kind": "navigation", "route"?, "sourceFiles"}] (Compose navigation<G>/navigation(route=),
 *             nested Jetpack <navigation> graphs; not screens),
 *   "edges": [{"from": screen id (for "alias": the alias class), "to": screen id, "kind": "action"|"segue"|"alias",
 *             "source": path}],
 *   "deepLinks": [{"uri"?: string (Jetpack <deepLink>), "scheme"?, "host"?, "path"? (manifest intent filters),
 *                 "screen": screen id, "source": path}],
 *   "auth": {"screens": [screen ids], "libraries": [{"name", "source"}], "passwordFields": [{"file", "marker"}]},
 *   "parserNotes": [{"code": string, "message": string, "count": integer, "paths": [up to 10 project paths]}],
 *       codes: "file-too-large", "binary-file", "symlink-folder-not-followed", "symlink-outside-project",
 *       "bad-file-name", "depth-cap", "file-cap", "dynamic-routes", "computed-screen-name",
 *       "unresolved-screen-name", "auto-route", "xml-parse-error", "no-router-found", "module-missing",
 *       "manifest-outside-modules", "not-a-screen", "broken-symlink", "unreadable-folder", "abstract-base",
 *       "json-parse-error", "code-index-cap"
 *   "codeIndex"?: {"files": [{"path", "lang": "js"|"ts"|"kotlin"|"java"|"swift"|"dart"|"xml",
 *                             "symbols": [string...]}], "truncated": bool},
 *   "stats": {"filesSeen", "filesRead", "filesNotRead", "bytesRead", "foldersSkipped", "ms"}
 * }
 * Fails with SW_EINVAL (INVALID_ARGUMENT) for a bad @root or bad options, SW_ENOMEM when out of memory.
 * A file that cannot be read or parsed is a note, never a failure.
 */
SW_API int sw_appscan_static(const char *root, const char *options_json, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
