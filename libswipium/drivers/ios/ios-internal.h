/* ios-internal.h: the simctl driver's internals (toolchain cache, simctl runner, list parsing, app bundles). */
#ifndef SW_IOS_INTERNAL_H
#define SW_IOS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sw-internal.h"
#include "sw-proc.h"
#include <swipium/ios.h>

/* Timeouts of the simctl calls (ms). */
#define SW__SIMCTL_QUICK_MS 15000   /* list, help, terminate, openurl, privacy, get_app_container */
#define SW__SIMCTL_BOOT_MS 120000   /* boot, shutdown, erase */
#define SW__SIMCTL_INSTALL_MS 180000
#define SW__SIMCTL_LAUNCH_MS 60000
#define SW__SIMCTL_SHOT_MS 20000
#define SW__SIMCTL_LOG_MS 60000
#define SW__IOS_BOOT_WAIT_MS 40000  /* qa_ios boot waits at most this long for Booted */

/* Finds an executable named @name on $PATH (drivers/android/tools.c). (transfer full, nullable) */
char *sw__which(const char *name);

/* The absolute path of a working xcrun (cached as sw_ios_check() decides), or NULL with BACKEND_UNSUPPORTED. */
char *sw__ios_xcrun(sw_error **err);

/*
 * Runs `xcrun simctl ARGS...` (argv only) within @timeout_ms. SW_OK once it ran (whatever its exit status:
 * read res->status); BACKEND_UNSUPPORTED without xcrun; BACKEND_ERROR when it timed out or could not start;
 * CANCELLED when @abort_fn stopped it.
 */
int sw__simctl(const char *const *args, int timeout_ms, int (*abort_fn)(void *), void *abort_ud,
               sw__proc_result *res, sw_error **err);

/* simctl's "An error was encountered processing the command (domain=D, code=N):" block, parsed. */
typedef struct sw__simctl_error {
	char *domain; /* NULL when the text has no such header */
	long code;    /* -1 when absent */
	char *reason; /* the first reason line(s), or the first non-empty line of the output */
} sw__simctl_error;
void sw__simctl_error_parse(const char *text, sw__simctl_error *out);
void sw__simctl_error_clear(sw__simctl_error *e);
/*
 * Fails @err with @failure_code for a simctl call that exited non-zero: "simctl SUB failed: REASON" plus
 * details {simctl: {subcommand, exitStatus, domain, code, reason}}. Returns the negative code.
 */
int sw__simctl_fail(const char *sub, const sw__proc_result *res, const char *failure_code, const char *hint,
                    sw_error **err);

/* `simctl list devices -j` text to sw_ios_simulators()'s object; NULL with BACKEND_ERROR for text simctl cannot have written. */
json_t *sw__simctl_parse_list(const char *text, size_t len, sw_error **err);
/* "com.apple.CoreSimulator.SimRuntime.iOS-17-5" -> "iOS 17.5" (older keys "iOS 12.1" stay). (transfer full) */
char *sw__simctl_runtime_name(const char *key);
/* The list, one spawn. */
int sw__simctl_list(json_t **out, sw_error **err);

/*
 * Chooses a simulator from a parsed list: @device (UDID, or a case-insensitive name substring; a booted
 * match wins among several), else @bound_udid, else the only booted one (@any_for_boot: else the only
 * available one). Fails NO_DEVICE, MULTIPLE_DEVICES, SIMULATOR_RUNTIME_MISSING (unavailable device).
 * *out borrowed from @list.
 */
int sw__simctl_pick(json_t *list, const char *device, const char *bound_udid, bool any_for_boot, json_t **out,
                    sw_error **err);

/*
 * Checks an app bundle for the simulator before anything is installed: IPA_NEEDS_REAL_DEVICE (.ipa),
 * IOS_SIMULATOR_APP_MISSING (missing path, not an .app folder, Info.plist missing or unreadable),
 * IOS_APP_WRONG_ARCH (CFBundleSupportedPlatforms iPhoneOS only / DTPlatformName iphoneos).
 * @out (transfer full): {path (realpath), bundleId, urlSchemes[], platforms[], dtPlatformName}.
 */
int sw__ios_app_check(const char *path, json_t **out, sw_error **err);

/* ---- WebDriverAgent (wda.c, wda-source.c) --------------------------------------------------- */

#define SW__WDA_STATUS_MS 1500     /* a /status probe */
#define SW__WDA_COMMAND_MS 30000   /* every other request (less when the caller's deadline is nearer) */
#define SW__WDA_BODY_MAX ((size_t)64 << 20)
#define SW__WDA_NODE_LIMIT 50000   /* elements converted from one source (the snapshot parser reads at most 50,000 nodes) */
#define SW__WDA_MAX_DEPTH 256
#define SW__WDA_DEFAULT_URL "http://127.0.0.1:8100"

/*
 * Parses a WDA URL: *base_out (transfer full) is scheme://host[:port][/path] without a trailing '/';
 * *loopback is true only for localhost, 127.0.0.0/8 and [::1] read from the URL's host (never with a
 * user-info part). INVALID_ARGUMENT for anything that is not an http(s) URL with a host.
 */
int sw__wda_url_parse(const char *url, char **base_out, bool *loopback, sw_error **err);
/* Whether SWIPIUM_ALLOW_REMOTE_WDA (comma-separated exact base URLs, trailing '/' ignored) names @base. */
bool sw__wda_remote_allowed(const char *base);

/* A WDA endpoint and its session. */
typedef struct sw__wda {
	char *base;        /* no trailing '/' */
	char *sid;         /* the WDA session, NULL until created */
	char *bundle_id;   /* capabilities.alwaysMatch.bundleId (nullable) */
	json_t *extra_caps; /* merged into alwaysMatch (ios.wda.capabilities), nullable */
	json_t *warnings;  /* strings the caller reports (a recreated session) */
} sw__wda;
sw__wda *sw__wda_new(const char *base, const char *sid, const char *bundle_id);
void sw__wda_free(sw__wda *w);
/* POST /session with alwaysMatch {bundleId, shouldTerminateApp:false[, forceAppLaunch:false]}. */
int sw__wda_session_new(sw__wda *w, bool recovering, sw_error **err);
/*
 * One request: @path after the base (or after /session/<sid> with @in_session, creating the session
 * first). *out gets WDA's "value" (transfer full; nullable @out). W3C errors map to ELEMENT_NOT_FOUND,
 * STALE_REF, INVALID_SELECTOR, WDA_SESSION_FAILED or UNKNOWN; no answer to WDA_UNREACHABLE (a slow
 * /source to WDA_SOURCE_SLOW); a body that is not a JSON object to WDA_UNREACHABLE. "invalid session id"
 * recreates the session once (forceAppLaunch:false), retries, and adds a warning.
 */
int sw__wda_call(sw__wda *w, const char *method, const char *path, bool in_session, json_t *body, long timeout_ms,
                 json_t **out, sw_error **err);
/* GET /status within @timeout_ms (0: 1.5 s). */
int sw__wda_status(const char *base, long timeout_ms, json_t **out, sw_error **err);
/* GET /session/<sid>/source: the XML text, or the JSON form's answer (SWIPIUM_WDA_SOURCE_FORMAT, or the
 * fallback when WDA cannot write XML); sw__wda_source_convert reads either. */
int sw__wda_source(sw__wda *w, long timeout_ms, char **xml, size_t *len, sw_error **err);
/* The same, read out of the answer's own buffer (wda-source-fetch.c). (transfer full) */
int sw__wda_source_get(sw__wda *w, long timeout_ms, char **out, size_t *out_len, sw_error **err);

typedef struct sw__wda_source_stats {
	size_t nodes, hidden, bad_frames, empty_frames;
	bool plain; /* the XML was read by the plain reader, not by libxml2 (wda-source.c) */
} sw__wda_source_stats;
/*
 * WDA source XML (root XCUIElementTypeApplication, an <AppiumAUT> wrapper accepted) to the uiautomator-
 * shaped hierarchy the snapshot parser reads (class = the XCUIElementType). Text starting with '{' is
 * read as the JSON form (wda-source-json.c), into the same hierarchy. Streaming; more than
 * @node_limit (0: SW__WDA_NODE_LIMIT) elements fail with WDA_HIERARCHY_TOO_LARGE, malformed XML with
 * SNAPSHOT_FAILED. (transfer full)
 */
int sw__wda_source_convert(const char *xml, size_t len, const char *package, size_t node_limit, char **out,
                           size_t *out_len, sw__wda_source_stats *stats, sw_error **err);
bool sw__wda_type_is_field(const char *type);

/*
 * An old-style (OpenStep) property list, as `simctl listapps` prints it, to JSON (dictionaries, arrays, strings;
 * <data> kept as its hex text). Bounded: 64 levels, 16 MiB. NULL with DEVICE_NOT_READY naming what could not be
 * read and where (listapps.c). (transfer full)
 */
json_t *sw__openstep_parse(const char *text, size_t len, sw_error **err);
/* `simctl listapps <udid>`: {bundleId: {ApplicationType, CFBundleExecutable, ...}}. (transfer full) */
int sw__simctl_listapps(const char *udid, json_t **out, sw_error **err);

/* The simulator driver (driver-ios.c). */
const struct sw_driver_ops *sw__driver_ios(void);
/* The WDA warnings (a recreated session) of a bound iOS device since the last call; NULL when none. (transfer full) */
json_t *sw__ios_take_warnings(sw_device *dev);
/* How the last "back" of a bound iOS device went: "nav_button" | "edge_swipe"; NULL when none (taken once). */
const char *sw__ios_take_back_via(sw_device *dev);
/*
 * qa_act's target.selector {using, value} resolved by WebDriverAgent (POST /element with that strategy, then
 * GET /element/:id/rect): the element's bounds [x1,y1,x2,y2] in points. *handled is false (and nothing is
 * asked) when @dev is not an iOS simulator with WDA attached. INVALID_SELECTOR for a strategy other than
 * accessibility id, name, predicate string or class chain; ELEMENT_NOT_FOUND when WDA finds none.
 */
int sw__ios_selector_bounds(sw_device *dev, json_t *sel, int b[4], bool *handled, sw_error **err);
/*
 * `log show --style compact` text as threadtime lines ("MM-DD HH:MM:SS.mmm PID TID L Tag: message"), the tag being
 * the bundle id of @apps (listapps' object, nullable) whose CFBundleExecutable is the process. (transfer full)
 */
char *sw__ios_log_convert(const char *text, size_t len, json_t *apps, size_t *out_len);
/*
 * A `xcrun simctl spawn <udid> log stream --style compact` read by a thread into a bounded buffer (logstream.c).
 * Stamps are threadtime's "MM-DD HH:MM:SS.mmm" on the simulator's log clock.
 */
typedef struct sw__ios_logstream sw__ios_logstream;
int sw__ios_logstream_start(const char *udid, sw__ios_logstream **out, sw_error **err);
/* Waits at most @timeout_ms for its first output: true once it is live. */
bool sw__ios_logstream_wait_live(sw__ios_logstream *ls, int timeout_ms);
bool sw__ios_logstream_ended(sw__ios_logstream *ls);
/* Before a `log show`: what the stream vouches for now (@out "" when not live), for _shown() after it. */
void sw__ios_logstream_mark_live(sw__ios_logstream *ls, char out[19]);
/* After a complete `log show` from @since that started when _mark_live() gave @live_at: its raw output. */
void sw__ios_logstream_shown(sw__ios_logstream *ls, const char *live_at, const char *since, const char *text,
                             size_t len);
/*
 * The raw lines stamped at or after @since: 1 with *text (transfer full), 0 when the stream does not hold all of
 * them (run `log show`), -1 when the stream has ended.
 */
int sw__ios_logstream_read(sw__ios_logstream *ls, const char *since, char **text, size_t *len);
/* Stops the stream (SIGTERM to its group) and frees it. NULL is accepted. */
void sw__ios_logstream_free(sw__ios_logstream *ls);
/* Whether @dev is an iOS simulator without WebDriverAgent (no UI tree: taps go through idb, unobserved). */
bool sw__ios_visual_only(sw_device *dev);

/* The WebDriverAgent this server builds and starts (wda-managed.c). */
json_t *sw__wda_xcodebuild_argv(const char *project, const char *scheme, const char *udid, const char *derived,
                                const char *action);
int sw__wda_managed_build(sw_ctx *ctx, sw_session *s, json_t *argv, int (*abort_fn)(void *), void *abort_ud,
                          json_t *o, sw_error **err);
int sw__wda_managed_start(sw_ctx *ctx, sw_session *s, json_t *argv, const char *base, json_t *o, sw_error **err);
json_t *sw__wda_managed_stop(sw_session *s);
json_t *sw__wda_managed_logs(sw_session *s);
char *sw__wda_managed_url(sw_session *s);
/* qa_wda build as a job of kind "wda_build": @base {udid, command, url...} starts its result. (job_id: transfer
 * full) INVALID_ARGUMENT while the session runs another build. */
int sw__wda_build_job(sw_session *s, json_t *argv, json_t *base, char **job_id, sw_error **err);
/* stop with a URL the caller named: the session's runner, else an adopted one at @url (nullable). */
json_t *sw__wda_managed_stop_url(sw_session *s, const char *url);
/* The managed runner recorded at @url (this server's or processes.json's): {pid, udid, sessionId, adopted,
 * ownSession, thisServer}, NULL when none runs there. (transfer full) */
json_t *sw__wda_managed_at(sw_session *s, const char *url);
/* Once per server: adopt the ready WebDriverAgents an earlier server left running, stop the others. */
void sw__wda_adopt(sw_ctx *ctx, sw_session *s);
/* qa_wait saw the session's starting runner at @url become ready: its processes.json record is refreshed. */
void sw__wda_managed_ready(sw_session *s, const char *url);
/* The repository setting ios.wda.<key> from <project>/.swipium/config.json (nested {"ios":{"wda":{...}}} or the
 * dotted key "ios.wda.<key>"), read through the project confinement; NULL when unset or unreadable. (transfer
 * full) */
json_t *sw__wda_setting(sw_session *s, const char *key);

#endif
