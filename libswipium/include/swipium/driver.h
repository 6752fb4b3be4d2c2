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
	/* ---- version 2 ---- */
	SW_DRIVER_CAP_PROPS = 1u << 7,     /**< properties, packages */
	SW_DRIVER_CAP_ROTATION = 1u << 8,  /**< rotation, set_rotation */
	SW_DRIVER_CAP_NETWORK = 1u << 9,   /**< airplane_mode, set_airplane_mode */
	SW_DRIVER_CAP_GEO = 1u << 10,      /**< geo_fix */
	SW_DRIVER_CAP_LOGS = 1u << 11,     /**< log_read, clock_offset */
	SW_DRIVER_CAP_RECORD = 1u << 12,   /**< record_start, record_poll, record_stop */
	SW_DRIVER_CAP_APP_DATA = 1u << 13, /**< clear_app_data */
	SW_DRIVER_CAP_SETTINGS = 1u << 14, /**< setting_get, setting_put */
	SW_DRIVER_CAP_DEVICES = 1u << 15,  /**< devices (no bound device needed) */
	/* ---- version 3 ---- */
	SW_DRIVER_CAP_OBSERVE = 1u << 16, /**< observe */
	/* ---- version 4 ---- */
	SW_DRIVER_CAP_REVERSE = 1u << 17, /**< reverse_add, reverse_list, reverse_remove */
};

/** The version of sw_observe_request described here. */
#define SW_OBSERVE_REQUEST_VERSION 1
/** What one observation reads besides the UI hierarchy (see struct sw_driver_ops.observe). */
typedef struct sw_observe_request {
	unsigned version; /**< SW_OBSERVE_REQUEST_VERSION */
	/** nullable: the app whose frame counter is read just before and just after the hierarchy */
	const char *frames_app;
	int want_keyboard; /**< also read whether the soft keyboard is shown */
	int want_log;      /**< also read the device log... */
	/** ...from this threadtime stamp "MM-DD hh:mm:ss.mmm" on (nullable: all of it) */
	const char *log_since;
} sw_observe_request;
#define SW_OBSERVE_REQUEST_INIT {SW_OBSERVE_REQUEST_VERSION, NULL, 0, 0, NULL}

/** The version of sw_observation described here (the library fills it). */
#define SW_OBSERVATION_VERSION 1
/** One look at the screen. Release with sw_observation_clear(). */
typedef struct sw_observation {
	unsigned version; /**< SW_OBSERVATION_VERSION, set by the library */
	char *xml;                        /**< the UI hierarchy, or NULL when the dump failed (dump_error says why) */
	size_t xml_len;
	char *dump_error;                 /**< what the dump said instead; NULL with xml */
	long frames_before, frames_after; /**< frames the app had rendered before / after the dump; -1 unknown */
	char *focus;                      /**< "package/Activity" of frames_app's visible window, or NULL */
	int keyboard_shown;               /**< 1 shown, 0 hidden, -1 not read */
	char *log;                        /**< the log lines (threadtime), or NULL when not read */
	size_t log_len;
} sw_observation;

/**
 * The version of struct sw_driver_ops described here. Slots are only ever appended: a table written
 * for version N has exactly the slots up to the "version N" line below, and the library never reads
 * a slot past its table's version (version 1 tables keep working, without the version 2 capabilities).
 */
#define SW_DRIVER_OPS_VERSION 4

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

	/* ---- version 2: what device control and health need ---- */

	/**
	 * {manufacturer, model, sdk, release, abis[], locale, timezone, emulator, screen{width, height,
	 * density}}: read now (not cached); screen is the natural (rotation 0) size. Unknown values null.
	 * SW_DRIVER_CAP_PROPS. (transfer full)
	 */
	int (*properties)(void *state, char **out_json, sw_error **err);
	/** A JSON array of the third-party (user-installed) app ids. SW_DRIVER_CAP_PROPS. (transfer full) */
	int (*packages)(void *state, char **out_json, sw_error **err);
	/** The rotation 0..3 (-1 unknown) and whether it follows the sensor (1, 0, -1 unknown). SW_DRIVER_CAP_ROTATION. */
	int (*rotation)(void *state, int *rotation, int *auto_rotate, sw_error **err);
	/** Fixes the rotation (0..3), or follows the sensor with -1. SW_DRIVER_CAP_ROTATION. */
	int (*set_rotation)(void *state, int rotation, sw_error **err);
	/** 1 when airplane mode is on (the device is offline), 0 otherwise. SW_DRIVER_CAP_NETWORK. */
	int (*airplane_mode)(void *state, int *on, sw_error **err);
	/** Turns airplane mode on or off and checks that it took; a refusal changes nothing. SW_DRIVER_CAP_NETWORK. */
	int (*set_airplane_mode)(void *state, int on, sw_error **err);
	/** Sets the device's location (decimal degrees). SW_DRIVER_CAP_GEO; BACKEND_UNSUPPORTED when this device cannot. */
	int (*geo_fix)(void *state, double lat, double lng, sw_error **err);
	/**
	 * Device log lines in Android's threadtime format ("MM-DD HH:MM:SS.mmm PID TID L Tag: msg"), at or
	 * after @since (that format, on the device's log clock; NULL: everything buffered). SW_DRIVER_CAP_LOGS.
	 * (transfer full)
	 */
	int (*log_read)(void *state, const char *since, char **text, size_t *len, sw_error **err);
	/** Seconds to add to the host's UTC time to get the device's log clock. SW_DRIVER_CAP_LOGS. */
	int (*clock_offset)(void *state, long *offset_s, sw_error **err);
	/**
	 * Starts a screen recording of at most @time_limit_s: an opaque recording, and the pid of the
	 * local process that captures it (for processes.json; 0 when none). SW_DRIVER_CAP_RECORD.
	 */
	int (*record_start)(void *state, int time_limit_s, void **rec, long *pid, sw_error **err);
	/** 1 while the recording captures, 0 once it ended on its own. Needs no device handle. */
	int (*record_poll)(void *rec);
	/** Stops the capture, saves the video to @local_path (NULL: discard), and frees @rec. Needs no device handle. */
	int (*record_stop)(void *rec, const char *local_path, sw_error **err);
	/** Wipes the data of @app_id (the app is stopped). SW_DRIVER_CAP_APP_DATA. */
	int (*clear_app_data)(void *state, const char *app_id, sw_error **err);
	/** A device setting: @ns system|global|secure; *value NULL when unset. SW_DRIVER_CAP_SETTINGS. (transfer full) */
	int (*setting_get)(void *state, const char *ns, const char *key, char **value, sw_error **err);
	int (*setting_put)(void *state, const char *ns, const char *key, const char *value, sw_error **err);
	/** The attached devices [{serial, state}] without binding one. SW_DRIVER_CAP_DEVICES. (transfer full) */
	int (*devices)(sw_ctx *ctx, char **out_json, sw_error **err);
	/** Stops what the driver started in the background for this process (a tool daemon); may be NULL. */
	void (*shutdown)(sw_ctx *ctx);

	/* ---- version 3: the act loop ---- */

	/**
	 * One look at the screen in one device round trip: the UI hierarchy and, as @req asks, the frame
	 * counter around it (a settle signal: unchanged, nothing was drawn while the hierarchy was read),
	 * the keyboard state and the log since a stamp. A failed dump is not an error: out->xml is NULL
	 * and out->dump_error says why. SW_DRIVER_CAP_OBSERVE.
	 */
	int (*observe)(void *state, const sw_observe_request *req, sw_observation *out, sw_error **err);

	/* ---- version 4: a host port the device reaches on its own loopback (adb reverse) ---- */

	/**
	 * Makes the device's tcp:@device_port lead to the host's tcp:@host_port (replacing a reverse of the
	 * same device port). A refusal of the device (the port taken there, ...) fails with the device's
	 * own words in the message. SW_DRIVER_CAP_REVERSE.
	 */
	int (*reverse_add)(void *state, int device_port, int host_port, sw_error **err);
	/** The reverses set on the device: [{device: "tcp:8081", host: "tcp:8081"}]. SW_DRIVER_CAP_REVERSE. (transfer full) */
	int (*reverse_list)(void *state, char **out_json, sw_error **err);
	/** Removes the reverse of tcp:@device_port; *@removed 0 when there was none (not an error). SW_DRIVER_CAP_REVERSE. */
	int (*reverse_remove)(void *state, int device_port, int *removed, sw_error **err);
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

/* ---- version 2 calls (SW_EUNSUPPORTED / BACKEND_UNSUPPORTED without the capability) ---- */

/** See struct sw_driver_ops.properties. (transfer full) */
SW_API int sw_device_properties(sw_device *dev, char **out_json, sw_error **err);
/** The third-party app ids as a JSON array. (transfer full) */
SW_API int sw_device_packages(sw_device *dev, char **out_json, sw_error **err);
SW_API int sw_device_rotation(sw_device *dev, int *rotation, int *auto_rotate, sw_error **err);
/** 0..3 fixes the rotation; -1 follows the sensor. */
SW_API int sw_device_set_rotation(sw_device *dev, int rotation, sw_error **err);
SW_API int sw_device_airplane_mode(sw_device *dev, int *on, sw_error **err);
SW_API int sw_device_set_airplane_mode(sw_device *dev, int on, sw_error **err);
SW_API int sw_device_geo_fix(sw_device *dev, double lat, double lng, sw_error **err);
/** Log lines since @since (nullable). (transfer full) */
SW_API int sw_device_log_read(sw_device *dev, const char *since, char **text, size_t *len, sw_error **err);
SW_API int sw_device_clock_offset(sw_device *dev, long *offset_s, sw_error **err);
SW_API int sw_device_clear_app_data(sw_device *dev, const char *app_id, sw_error **err);
/** (transfer full; *value NULL when unset) */
SW_API int sw_device_setting_get(sw_device *dev, const char *ns, const char *key, char **value, sw_error **err);
SW_API int sw_device_setting_put(sw_device *dev, const char *ns, const char *key, const char *value, sw_error **err);

/** A screen recording that outlives the device handle that started it. */
typedef struct sw_recording sw_recording;
/** Starts a recording of at most @time_limit_s; *pid (nullable) gets the local capturing process or 0. */
SW_API int sw_device_record_start(sw_device *dev, int time_limit_s, sw_recording **out, long *pid, sw_error **err);
/** 1 while capturing, 0 once it ended on its own. */
SW_API int sw_recording_poll(sw_recording *rec);
/** Stops, saves to @local_path (NULL: discards) and frees @rec (always, even on failure). */
SW_API int sw_recording_stop(sw_recording *rec, const char *local_path, sw_error **err);

/* ---- version 3 ---- */

/**
 * One look at the screen (see struct sw_driver_ops.observe). A driver without the observe slot is
 * served by its dump_ui, keyboard and log_read slots, one call each (frames stay -1).
 */
SW_API int sw_device_observe(sw_device *dev, const sw_observe_request *req, sw_observation *out, sw_error **err);
/** Frees what @o holds and zeroes it. NULL is accepted. */
SW_API void sw_observation_clear(sw_observation *o);

/* ---- version 4 (SW_EUNSUPPORTED / BACKEND_UNSUPPORTED without SW_DRIVER_CAP_REVERSE) ---- */

/** See struct sw_driver_ops.reverse_add (ports 1..65535). */
SW_API int sw_device_reverse_add(sw_device *dev, int device_port, int host_port, sw_error **err);
/** [{device, host}]. (transfer full) */
SW_API int sw_device_reverse_list(sw_device *dev, char **out_json, sw_error **err);
/** *@removed (nullable) 1 when a reverse of @device_port was there and is gone, 0 when there was none. */
SW_API int sw_device_reverse_remove(sw_device *dev, int device_port, int *removed, sw_error **err);

/** The devices @ops can see, without binding one: [{serial, state}]. (transfer full) */
SW_API int sw_driver_devices(const struct sw_driver_ops *ops, sw_ctx *ctx, char **out_json, sw_error **err);
/** The built-in driver called @name ("android"), or NULL. (transfer none) */
SW_API const struct sw_driver_ops *sw_driver_find(const char *name);
/** Calls every built-in driver's shutdown slot (stops a tool daemon this process started). Call once at exit. */
SW_API void sw_drivers_shutdown(sw_ctx *ctx);

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
 * sw_android_boot_avd that polls @abort_fn (nullable; e.g. a job's cancellation) while it waits: once it
 * answers non-zero the emulator's process group gets SIGTERM (SIGKILL after 2 s), it is reaped, and the call
 * fails at once with SW_ECANCELLED / CANCELLED. No emulator is left behind.
 */
SW_API int sw_android_boot_avd_abortable(sw_ctx *ctx, const char *avd, const char *options_json,
                                         int (*abort_fn)(void *userdata), void *abort_userdata, char **out_json,
                                         sw_error **err);

/**
 * The `input text` argument for @text, as the device shell receives it:
 * spaces become %s, a literal "%s" is split across calls, everything is
 * single-quoted. Returns a JSON array of one or more shell words.
 * Non-ASCII or control characters: TEXT_INPUT_UNSUPPORTED. (transfer full)
 */
SW_API int sw_android_input_text_args(const char *text, char **out_json, sw_error **err);

/**
 * qa_resolve_target for Android, booting nothing. @options_json: {device?,
 * preferRealDevice?, include?: ["context","plan"], projectRoot?}. With
 * projectRoot the context also carries sw_project_detect()'s framework,
 * platforms, app ids and monorepo. Result: {selected,
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
 * bindOnly?, launch? (default true), checkOnly? (compare the APK with the
 * device, install nothing; AAB_DEVICE_SPEC_FAILED when the device's
 * properties cannot be read)}. Binds the online device (MULTIPLE_DEVICES, NO_DEVICE,
 * PHYSICAL_DEVICE_UNSUPPORTED, DEVICE_NOT_READY as sw_device_open); when
 * nothing is online and @avd is given, boots it first. Before an install the
 * APK's ABIs and minSdk are compared with the device's properties
 * (sw_artifact_install_check: APK_ARCH_INCOMPATIBLE,
 * ANDROID_MIN_SDK_INCOMPATIBLE, nothing sent to the device); the device's own
 * `Failure [...]` answers map to the same codes, ANDROID_SIGNATURE_CONFLICT
 * (the installed app is never uninstalled to get past it) or INSTALL_FAILED.
 * Without appId the APK's own app id is launched. Result: {device, booted?,
 * boot?, installCheck?, installed?, appId?, launched?, foreground?,
 * foregroundIsApp?}. Consent is the caller's job. (transfer full)
 */
SW_API int sw_android_prepare(sw_ctx *ctx, const char *options_json, char **out_json, sw_error **err);
/**
 * Whether @app_id is installed on the device @options_json ({device?}) names, or the single online one:
 * *@installed 1 or 0 (the driver's packages slot). Nothing online (or several without a device) is not an
 * error: *@installed is -1 (unknown) and SW_OK is returned, so a caller that will boot first asks anyway.
 */
SW_API int sw_android_app_installed(sw_ctx *ctx, const char *options_json, const char *app_id, int *installed,
                                    sw_error **err);
/**
 * sw_android_prepare where every step that runs a process (the boot, each adb call of the install and
 * launch) stops when @abort_fn (nullable) answers non-zero: its process is killed and the call fails with
 * SW_ECANCELLED / CANCELLED.
 */
SW_API int sw_android_prepare_abortable(sw_ctx *ctx, const char *options_json, int (*abort_fn)(void *userdata),
                                        void *abort_userdata, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
