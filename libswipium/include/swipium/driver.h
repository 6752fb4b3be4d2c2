/* swipium/driver.h: device drivers (an ops table per platform) and the device handle the library drives. */
#ifndef SWIPIUM_DRIVER_H
#define SWIPIUM_DRIVER_H

#include <stddef.h>

#include <swipium/common.h>
#include <swipium/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Capability bits of a driver: a slot whose bit is clear may be NULL. */
enum sw_driver_cap {
	SW_DRIVER_CAP_DUMP = 1u << 0,       /**< dump_ui */
	SW_DRIVER_CAP_SCREENCAP = 1u << 1,  /**< screencap */
	SW_DRIVER_CAP_INPUT = 1u << 2,      /**< tap, type_text, swipe, press_key */
	SW_DRIVER_CAP_OPEN_URL = 1u << 3,   /**< open_url */
	SW_DRIVER_CAP_APP = 1u << 4,        /**< install, launch, force_stop */
	SW_DRIVER_CAP_KEYBOARD = 1u << 5,   /**< keyboard, hide_keyboard */
	SW_DRIVER_CAP_FOREGROUND = 1u << 6, /**< foreground */
};

/** The version of struct sw_driver_ops described here. Slots are only ever appended. */
#define SW_DRIVER_OPS_VERSION 1

/**
 * One platform driver. Every slot receives the state its probe returned.
 * Failures return a negative SW_E code and set @err with the product
 * failure code (NO_DEVICE, DEVICE_NOT_READY, ...).
 */
struct sw_driver_ops {
	unsigned version; /**< SW_DRIVER_OPS_VERSION the table was written for */
	const char *name; /**< "android" */
	unsigned caps;    /**< enum sw_driver_cap bits */
	/**
	 * Binds a device. @options_json (nullable) is {serial?}. Declines with
	 * SW_ENOTFOUND when the platform's tools are missing (ADB_NOT_FOUND) or no
	 * device is attached (NO_DEVICE); other refusals carry their own code
	 * (MULTIPLE_DEVICES, PHYSICAL_DEVICE_UNSUPPORTED, DEVICE_NOT_READY).
	 */
	int (*probe)(sw_ctx *ctx, const char *options_json, void **state, sw_error **err);
	void (*release)(void *state);
	/** {platform, serial, emulator, model, ...} (transfer full) */
	int (*describe)(void *state, char **out_json, sw_error **err);
	int (*dump_ui)(void *state, char **xml, size_t *len, sw_error **err);
	int (*screencap)(void *state, unsigned char **png, size_t *len, sw_error **err);
	int (*screen_size)(void *state, int *width, int *height, sw_error **err);
	int (*tap)(void *state, int x, int y, int duration_ms, sw_error **err);
	int (*type_text)(void *state, const char *text, sw_error **err);
	int (*swipe)(void *state, int x1, int y1, int x2, int y2, int duration_ms, sw_error **err);
	/** back | home | enter | escape | del | tab */
	int (*press_key)(void *state, const char *key, sw_error **err);
	int (*open_url)(void *state, const char *url, sw_error **err);
	/** {shown: bool, frame: [x1,y1,x2,y2] | null} (transfer full) */
	int (*keyboard)(void *state, char **out_json, sw_error **err);
	int (*hide_keyboard)(void *state, sw_error **err);
	/** {package, activity} (transfer full) */
	int (*foreground)(void *state, char **out_json, sw_error **err);
	int (*install)(void *state, const char *path, sw_error **err);
	int (*launch)(void *state, const char *app_id, sw_error **err);
	int (*force_stop)(void *state, const char *app_id, sw_error **err);
	/** Deletes @chars characters of the focused field (cursor to the end first). SW_DRIVER_CAP_INPUT. */
	int (*clear_text)(void *state, size_t chars, sw_error **err);
};

/** The Android driver (adb). (transfer none) */
SW_API const struct sw_driver_ops *sw_driver_android(void);

/** A bound device: a driver plus its state. */
typedef struct sw_device sw_device;

/**
 * Binds a device through @ops (for example sw_driver_android()).
 * @options_json (nullable): {serial?}. See struct sw_driver_ops.probe.
 * A table with a newer version than this library knows is refused.
 */
SW_API int sw_device_open(sw_ctx *ctx, const struct sw_driver_ops *ops, const char *options_json, sw_device **out,
                          sw_error **err);
/** Releases @dev. NULL is accepted. */
SW_API void sw_device_free(sw_device *dev);
/** The driver of @dev. (transfer none) */
SW_API const struct sw_driver_ops *sw_device_ops(const sw_device *dev);
/** {platform, serial, emulator, ...}. (transfer full) */
SW_API int sw_device_describe(sw_device *dev, char **out_json, sw_error **err);

/* Each call below answers SW_EUNSUPPORTED / BACKEND_UNSUPPORTED when the driver lacks the capability. */

/** The UI hierarchy (uiautomator XML on Android). (transfer full) */
SW_API int sw_device_dump_ui(sw_device *dev, char **xml, size_t *len, sw_error **err);
/** A PNG of the screen. (transfer full) */
SW_API int sw_device_screencap(sw_device *dev, unsigned char **png, size_t *len, sw_error **err);
SW_API int sw_device_screen_size(sw_device *dev, int *width, int *height, sw_error **err);
/** Taps (duration_ms > 0: a press of that length). */
SW_API int sw_device_tap(sw_device *dev, int x, int y, int duration_ms, sw_error **err);
/** Types ASCII text into the focused field; other characters: TEXT_INPUT_UNSUPPORTED. */
SW_API int sw_device_type_text(sw_device *dev, const char *text, sw_error **err);
SW_API int sw_device_swipe(sw_device *dev, int x1, int y1, int x2, int y2, int duration_ms, sw_error **err);
SW_API int sw_device_press_key(sw_device *dev, const char *key, sw_error **err);
SW_API int sw_device_open_url(sw_device *dev, const char *url, sw_error **err);
/** {shown, frame}. (transfer full) */
SW_API int sw_device_keyboard(sw_device *dev, char **out_json, sw_error **err);
SW_API int sw_device_hide_keyboard(sw_device *dev, sw_error **err);
/** {package, activity}. (transfer full) */
SW_API int sw_device_foreground(sw_device *dev, char **out_json, sw_error **err);
SW_API int sw_device_install(sw_device *dev, const char *path, sw_error **err);
SW_API int sw_device_launch(sw_device *dev, const char *app_id, sw_error **err);
SW_API int sw_device_force_stop(sw_device *dev, const char *app_id, sw_error **err);
/** Deletes @chars characters of the focused field, from its end. */
SW_API int sw_device_clear_text(sw_device *dev, size_t chars, sw_error **err);

/* ---- Android specifics (no device needed) ------------------------------- */

/**
 * Where the Android tools are: {sdk, sdkSource, adb, adbSource, emulator}
 * (values null when not found). SDK: ANDROID_HOME, ANDROID_SDK_ROOT, then
 * ~/Android/Sdk (~/Library/Android/sdk on macOS); adb from PATH first, else
 * the SDK's platform-tools; emulator from the SDK first, else PATH.
 * (transfer full)
 */
SW_API int sw_android_tools(sw_ctx *ctx, char **out_json, sw_error **err);

/**
 * The attached Android devices as a JSON array of {serial, state, emulator
 * (true|false|null when unknown), product, model, device, transportId}.
 * With @probe non-zero, non-`emulator-NNNN` serials in state "device" get
 * one getprop probe. ADB_NOT_FOUND when there is no adb. (transfer full)
 */
SW_API int sw_android_devices(sw_ctx *ctx, int probe, char **out_json, sw_error **err);

/**
 * Boots an AVD with the SDK's `emulator` (headless unless @options_json
 * says {"headless":false}), waits for a new emulator serial that is online
 * and reports sys.boot_completed=1 (at most {"timeoutMs"}, default 180000),
 * and returns {serial, avd, pid}. EMULATOR_BOOT_FAILED / DEVICE_NOT_READY.
 * (transfer full)
 */
SW_API int sw_android_boot_avd(sw_ctx *ctx, const char *avd, const char *options_json, char **out_json, sw_error **err);

/**
 * The `input text` argument for @text, as the device shell receives it:
 * spaces become %s, a literal "%s" is split across calls, everything is
 * single-quoted. Returns a JSON array of one or more shell words.
 * Non-ASCII or control characters: TEXT_INPUT_UNSUPPORTED. (transfer full)
 */
SW_API int sw_android_input_text_args(const char *text, char **out_json, sw_error **err);

/**
 * qa_resolve_target for Android, booting nothing. @options_json: {device?,
 * preferRealDevice?, include?: ["context","plan"]}. Result: {selected,
 * reason, alternatives, preconditions, willBoot, context?, plan?}. Prefers
 * an online emulator, else plans the boot of an AVD (`emulator -list-avds`).
 * A phone fails with PHYSICAL_DEVICE_UNSUPPORTED only when asked for, when
 * it is the only option, or with preferRealDevice; otherwise the reason
 * mentions it. On failure the requested sections ride on the error details.
 * (transfer full)
 */
SW_API int sw_android_resolve_target(sw_ctx *ctx, const char *options_json, char **out_json, sw_error **err);

/**
 * Prepares a target in the order device, install, launch, verify:
 * @options_json {device?, avd?, headless?, timeoutMs?, apk?, appId?,
 * bindOnly?}. Binds the online device (MULTIPLE_DEVICES, NO_DEVICE,
 * PHYSICAL_DEVICE_UNSUPPORTED, DEVICE_NOT_READY as sw_device_open); when
 * nothing is online and @avd is given, boots it first. Result: {device,
 * booted?, boot?, installed?, launched?, foreground?, foregroundIsApp?}.
 * Consent is the caller's job. (transfer full)
 */
SW_API int sw_android_prepare(sw_ctx *ctx, const char *options_json, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
