/* swipium/health.h: app health checks: foreground app, crashes and ANRs in logcat, error surfaces and overlays on
 * screen. */
#ifndef SWIPIUM_HEALTH_H
#define SWIPIUM_HEALTH_H

#include <stddef.h>

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/driver.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A health finding is a JSON object {kind, severity, layer, failureCode, detail, evidence?, screen?}.
 * Kinds, severities, layers and codes (TOOLS.md §1.5, PLATFORM.md §2.3):
 *   native_crash (high, native, NATIVE_CRASH), anr (high, native, ANR),
 *   wrong_foreground_app (medium, native, WRONG_FOREGROUND),
 *   permission_dialog (medium, native, PERMISSION_DIALOG), native_alert (medium, native, NATIVE_ALERT),
 *   rn_redbox (high, app, REDBOX), rn_logbox_error (medium, app, LOGBOX),
 *   app_error_boundary and webview_error (high, app, ERROR_BOUNDARY).
 */

/**
 * The failure code of a finding kind (native_crash -> NATIVE_CRASH ...,
 * unknown_error_surface -> BACKEND_ERROR, anything else -> UNKNOWN). (transfer none)
 */
SW_API const char *sw_health_kind_code(const char *kind);

/**
 * Scans `logcat -d` text (threadtime lines) for native crashes (`Fatal signal N`,
 * tombstone `*** *** ***` blocks, Java `FATAL EXCEPTION`) and ANRs (`ANR in <pkg>`).
 * @options_json (nullable): {appId?: only events of this package count,
 * marker?: the marker a previous scan returned (only lines after it are read;
 * when it is not found, `since` decides), since?: "MM-DD HH:MM:SS.mmm" (lines
 * older than this are ignored)}.
 * Result: {findings: [finding + logcatAt], marker: string|null, linesScanned}.
 * One event gives one finding, however many lines it spans. (transfer full)
 */
SW_API int sw_health_scan_logcat(const char *logcat, const char *options_json, char **out_json, sw_error **err);

/**
 * Scans a uiautomator XML dump for error surfaces and overlays: RN RedBox,
 * LogBox, error boundaries, WebView error pages, permission dialogs, native
 * alerts and the system crash / ANR dialogs. @options_json (nullable): {appId?}.
 * Result: {findings: [finding + overlay?], overlays: [{kind, title, dismiss:
 * {text?, resourceId?, x, y}|null, allow?, deny?, backDismissible}]}.
 * Invalid XML: SW_EDEVICE / SNAPSHOT_FAILED (the catalog's result for that code). (transfer full)
 */
SW_API int sw_health_scan_ui(const char *xml, size_t len, const char *options_json, char **out_json, sw_error **err);

/**
 * Runs the whole check on a bound device: the foreground app against the
 * session's appId (or @options_json {appId}), logcat since the session's
 * last check (its marker is kept in the session's `device` record), and the
 * screen (a fresh dump, or @options_json {xml} when the caller has one).
 * Every finding is appended to the session's findings with `at`.
 * Result: {healthy, findings[], foreground{package, activity}|null,
 * foregroundIsApp|null, checked{foreground, logcat, ui}, overlays[],
 * warnings[]}. A failing part is reported in warnings, not as an error;
 * only a missing device fails (NO_DEVICE). (transfer full)
 */
SW_API int sw_health_check(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json, char **out_json,
                           sw_error **err);

/**
 * qa_clear_overlay: @options_json {strategy?: auto|hide_keyboard|press_back|
 * tap_outside|minimize_logbox|dismiss_logbox|allow_permission|deny_permission|
 * dismiss_toast_if_possible (default auto: the topmost overlay)}. BACK is only
 * pressed while an overlay (dialog, alert, keyboard) is on screen, never on a
 * bare screen. Result: {strategy, applied: what was done|null, before[],
 * cleared[], remaining[], nothingCleared, keyboardHidden?, note?}. A keyboard
 * that stays up fails with KEYBOARD_NOT_DISMISSIBLE. (transfer full)
 */
SW_API int sw_health_clear_overlay(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json,
                                   char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
