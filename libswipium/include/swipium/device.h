/* swipium/device.h: device state under a session: info, rotation, network, location, app lifecycle, recording, waits.
 */
#ifndef SWIPIUM_DEVICE_H
#define SWIPIUM_DEVICE_H

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/driver.h>
#include <swipium/job.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every function below works on an Android device bound by sw_device_open()
 * (the adb driver) for session @s, runs adb through argv (never a host shell),
 * and logs each change in the session's environment changes; changes behind a
 * consent also get an `executed` (or `restored`) mutation-ledger row. Consent
 * itself is the caller's job. Results are JSON objects. (transfer full)
 */

/**
 * qa_device_info: {platform, serial, emulator, props{manufacturer, model, sdk,
 * release, abis[], locale, timezone}, screen{width, height, density},
 * orientation, rotation, autoRotate, installedThirdPartyCount, packages[]?}.
 * @options_json (nullable): {listPackages?, packageFilter?}.
 */
SW_API int sw_devctl_info(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json, char **out_json,
                          sw_error **err);

/** qa_orientation: @orientation portrait|landscape|auto. {orientation, rotation, autoRotate}. */
SW_API int sw_devctl_orientation(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *orientation, char **out_json,
                                 sw_error **err);

/**
 * qa_network: @action status|offline|online|restore. The original airplane
 * state is recorded once (in the session's `network` record, persisted) before
 * the first change; restore puts it back. A device that rejects the toggle
 * changes nothing. {network online|offline, airplaneMode, restoreAvailable,
 * changed, restored?}.
 */
SW_API int sw_devctl_network(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *action, char **out_json,
                             sw_error **err);

/**
 * Restores the original airplane state when this session changed it (a no-op
 * otherwise) without a bound device: it binds the session's own serial.
 * @reason ("qa_report", "shutdown", "restart" ...) goes into the env change.
 * {restored, networkRestore: "not-needed"|"restored"|"failed: <why>"}.
 * A device that is gone leaves the record pending and answers restored:false.
 */
SW_API int sw_devctl_network_restore(sw_ctx *ctx, sw_session *s, const char *reason, char **out_json, sw_error **err);

/**
 * Start-up recovery: every registered session (registry.json) whose network
 * record still says changed and not restored gets sw_devctl_network_restore()
 * with reason "restart". Slow (adb): run it on a background thread.
 * @summary_json: (nullable) {checked, restored, failed}.
 */
SW_API int sw_devctl_restore_pending(sw_ctx *ctx, sw_store *store, char **summary_json, sw_error **err);

/**
 * What a frontend runs once at start-up: the orphan-process sweep
 * (sw_store_sweep_processes()) and the pending network restores
 * (sw_devctl_restore_pending()). Slow (adb): run it on a background thread
 * with its own store. @summary_json: (nullable, transfer full)
 * {sweep?, network?: {checked, restored, failed}}.
 */
SW_API int sw_devctl_startup_recovery(sw_ctx *ctx, sw_store *store, char **summary_json, sw_error **err);

/**
 * What a frontend runs at shutdown: stops every screen recorder
 * (sw_devctl_record_stop_all()) and gives every live session of @store the
 * network back (sw_devctl_network_restore(), reason "server shutdown"); a
 * restore that fails is logged and listed. @summary_json: (nullable, transfer
 * full) {networkNotRestored: [{sessionId, error}]}.
 */
SW_API int sw_devctl_shutdown(sw_ctx *ctx, sw_store *store, char **summary_json, sw_error **err);

/** qa_geolocation through the emulator console (`adb emu geo fix <lng> <lat>`). {lat, lng, set}. */
SW_API int sw_devctl_geolocation(sw_ctx *ctx, sw_session *s, sw_device *dev, double lat, double lng, char **out_json,
                                 sw_error **err);

/**
 * The guard of qa_app_control before any consent: @options_json {action,
 * acknowledgeBundleRisk?}. Answers {consentAction: "app_clear_data" |
 * "app_fresh_start" | null, bundleRisk: bool}; a wipe on a debug React Native /
 * Expo project without acknowledgeBundleRisk fails with BUNDLE_LOSS_REFUSED.
 */
SW_API int sw_devctl_app_guard(sw_session *s, const char *options_json, char **out_json, sw_error **err);

/**
 * qa_app_control: @options_json {action: launch|foreground|background|
 * force_stop|restart|clear_data|fresh_start, acknowledgeBundleRisk?} on the
 * session's appId. {packageName, action, changedState, processKilled,
 * foreground, foregroundIsApp}. No appId: MISSING_FIXTURE... see docs.
 */
SW_API int sw_devctl_app(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json, char **out_json,
                         sw_error **err);

/**
 * qa_screen_record: @options_json {action: start|status|stop, save?:
 * always|on_failure, failed?}. One recorder per session (`adb shell
 * screenrecord --time-limit 180` in the background, listed in processes.json);
 * stop pulls the mp4 as a `recording` artifact. Sensitive sessions:
 * SENSITIVE_MODE_REFUSED. A second start: INVALID_ARGUMENT.
 * {recording, capturing, autoStopped, seconds, uri?, bytes?, discarded?}.
 */
SW_API int sw_devctl_record(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json, char **out_json,
                            sw_error **err);

/** Stops every recorder this process started (server shutdown); each recording is kept as an artifact. */
SW_API void sw_devctl_record_stop_all(sw_ctx *ctx, sw_store *store);

/**
 * qa_wait: @options_json {for: device_online|metro_ready, timeoutMs?}
 * (default 45000, clamped to 50000 with a note). Polls until satisfied, timed
 * out, or @abort_fn answers non-zero (SW_ECANCELLED / CANCELLED).
 * {for, satisfied, timedOut, waitedMs, state{...}, notes[]?}.
 */
SW_API int sw_devctl_wait(sw_ctx *ctx, sw_session *s, const char *options_json, sw_abort_fn abort_fn, void *userdata,
                          char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
