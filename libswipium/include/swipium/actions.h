/* swipium/actions.h: observe and act on a bound device: snapshots, qa_act actions, settling, screenshots. */
#ifndef SWIPIUM_ACTIONS_H
#define SWIPIUM_ACTIONS_H

#include <stddef.h>

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/driver.h>
#include <swipium/session.h>
#include <swipium/snapshot.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The drive state of one session on one device: the device (borrowed), its
 * snapshot tracker (owned) and the last dump.
 */
typedef struct sw_drive sw_drive;

/**
 * What only the caller knows: the session's secrets and inputs. Every slot
 * may be NULL.
 */
typedef struct sw_drive_hooks {
	/** Registers a typed value as a secret (the session redactor). */
	void (*register_secret)(const char *value, void *userdata);
	/** A session input for a `${SWIPIUM_*}` name, or NULL; the result is freed with free(). */
	char *(*lookup_input)(const char *name, void *userdata);
	/** Redaction of any text leaving the library (see sw_snapshot_redact_fn). */
	sw_snapshot_redact_fn redact;
	void *userdata;
} sw_drive_hooks;

/**
 * Binds @s to a device, the one library call every frontend uses: the device
 * is the one named by @options_json {serial?} (a string; any other key is
 * INVALID_ARGUMENT), else the serial recorded in the session's `device` (a
 * session only rebinds to its own device), else the only online device. A
 * session without a device, or one given another serial, records `device`
 * {platform, serial} and `driverKind` "adb". The drive gets the session's
 * redaction hooks (typed secrets are registered, returned text is masked),
 * its budget's maxSnapshotFailures, and the session with @ctx attached
 * (sw_drive_set_session: the health check after every act), so
 * sw_drive_act(), sw_drive_snapshot(), sw_drive_tap_point() and
 * sw_drive_screenshot_save() keep the session's books themselves.
 *
 * The session owns the drive and its device: a second call returns the same
 * drive (transfer none), valid until sw_drive_unbind() or until the store that
 * holds @s is freed; @ctx must outlive it. One thread at a time. When
 * SWIPIUM_DISABLE_DEVICE_DISCOVERY=1 the call fails with NO_DEVICE; a
 * NO_DEVICE failure of a session bound to a serial carries `boundSerial` in
 * its details.
 */
SW_API int sw_drive_bind(sw_ctx *ctx, sw_session *s, const char *options_json, sw_drive **drive, sw_error **err);
/** Closes the drive and device bound to @s, if any (the next sw_drive_bind() opens the device again). */
SW_API void sw_drive_unbind(sw_session *s);

/**
 * qa_prepare_target's run (consent is the caller's, before this): the session's drive is unbound, then
 * sw_android_prepare() with @options_json (device, avd, headless, apk, appId, bindOnly, ...), and the
 * session records what it now drives: device {platform, serial}, driverKind and, when @options_json names
 * one, appId. @out_json: sw_android_prepare()'s result. (transfer full)
 */
SW_API int sw_prepare_target_run(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json,
                                 sw_error **err);
/**
 * sw_prepare_target_run() as a background job of @s (kind "prepare_target"), for a boot or an install that
 * can take minutes: the drive is unbound before this returns; qa_job_cancel stops the boot or install at
 * once (no emulator left behind); a failure leaves the job `failed` with result.failureCode.
 * (@job_id: transfer full)
 */
SW_API int sw_prepare_target_start(sw_ctx *ctx, sw_session *s, const char *options_json, char **job_id,
                                   sw_error **err);
/** The device behind @d. (transfer none) */
SW_API sw_device *sw_drive_device(sw_drive *d);

/** Creates drive state on @dev, which must outlive it. */
SW_API int sw_drive_new(sw_device *dev, sw_drive **out, sw_error **err);
/** Frees @d (not the device). NULL is accepted. */
SW_API void sw_drive_free(sw_drive *d);
/** Installs the hooks (copied). */
SW_API void sw_drive_set_hooks(sw_drive *d, const sw_drive_hooks *hooks);
/**
 * Polled by waits, settling and scrolling; when it returns non-zero the
 * action stops with CANCELLED (changedState true once something was done).
 * NULL removes it. (The MCP server passes mcp_call_abort.)
 */
SW_API void sw_drive_set_abort(sw_drive *d, int (*abort_fn)(void *userdata), void *userdata);
/**
 * Attaches @s (and @ctx; both borrowed, they must outlive the drive or be
 * detached with NULL): every sw_drive_act() then ends with the health check
 * of sw_health_check() on the dump it settled on (no new dump), its findings
 * recorded on @s, and the result under `health` (see sw_drive_act()); and
 * the drive calls keep the session's books: sw_drive_act() appends the action
 * to `recordedActions` (arguments as given, tool "qa_act", failureCode on
 * failure) and counts `actions` / `noChangeActions`, sw_drive_snapshot()
 * counts `snapshotFailures`, and both take `verbose` from the session's
 * responseMode when not given. sw_drive_bind() attaches the session itself.
 */
SW_API void sw_drive_set_session(sw_drive *d, sw_ctx *ctx, sw_session *s);
/** The snapshot tracker. (transfer none) */
SW_API sw_snapshot_tracker *sw_drive_tracker(sw_drive *d);

/**
 * qa_snapshot: dumps the UI, reads the keyboard state and screen size, and
 * returns sw_snapshot_take_xml()'s result. @options_json: {filter?, diff?,
 * verbose?}. A failed dump counts towards visual-only mode.
 * @out_json: (transfer full)
 */
SW_API int sw_drive_snapshot(sw_drive *d, const char *options_json, char **out_json, sw_error **err);

/**
 * qa_act: @args_json holds the tool's arguments without sessionId
 * (action, target, text, mode, submit, direction, untilVisible, maxScrolls,
 * key, url, durationMs, ignoreOverlay, for, observe, timeoutMs, verbose;
 * health: false skips the health check).
 * Result: {action, changed, settled, quality, elements | added+removed,
 * stateChanged, ..., health?}. With a session attached (sw_drive_set_session)
 * `health` is sw_health_check()'s result without overlays plus `crashed`
 * (a native crash or ANR was found), or {healthy: null, error} when the check
 * itself failed; it never makes the action fail. Failures carry the catalog codes of TOOLS.md
 * (STALE_REF, ELEMENT_NOT_FOUND, KEYBOARD_OBSTRUCTION, OVERLAY_OBSTRUCTION,
 * TEXT_INPUT_UNSUPPORTED, MISSING_TEST_DATA, ...) and details with
 * changedState (and blockedByOverlay, keyboardHidden where they apply).
 * @out_json: (transfer full)
 */
SW_API int sw_drive_act(sw_drive *d, const char *args_json, char **out_json, sw_error **err);

/**
 * qa_screenshot's capture: a PNG and its metadata {width, height,
 * coordinateSpace {kind, width, height, scale}, secureOnScreen,
 * sensitiveForced}. A secure field on screen (from a fresh dump) refuses
 * with CAPTURE_WITHHELD_SECURE unless @force. (transfer full)
 */
SW_API int sw_drive_screenshot(sw_drive *d, int force, unsigned char **png, size_t *png_len, char **meta_json,
                               sw_error **err);

/**
 * qa_screenshot on a bound drive (sw_drive_bind): refuses with
 * SENSITIVE_MODE_REFUSED in a sensitive session, captures as
 * sw_drive_screenshot(), saves the PNG as the session's `screenshot` artifact
 * "screenshot-NNN.png" (numbered per drive) labelled @reason (nullable) and
 * counts it. @meta_json: (transfer full) sw_drive_screenshot()'s metadata plus
 * uri and reason.
 */
SW_API int sw_drive_screenshot_save(sw_drive *d, int force, const char *reason, char **meta_json, sw_error **err);

/**
 * One coordinate tap (observe none) as an action of the session: with a
 * session attached it is counted and @record_json (nullable; an object such
 * as {"tool": "qa_visual", ...}) is appended to recordedActions, with
 * failureCode when the tap failed. @out_json: (transfer full) as sw_drive_act().
 */
SW_API int sw_drive_tap_point(sw_drive *d, int x, int y, const char *record_json, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
