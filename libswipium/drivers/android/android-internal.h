/* android-internal.h: the adb driver's internals: process runner, tool discovery, parsers; never installed. */
#ifndef SW_ANDROID_INTERNAL_H
#define SW_ANDROID_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sw-internal.h"
#include "sw-proc.h"
#include <swipium/driver.h>

/* ---- tools -------------------------------------------------------------- */

typedef struct sw__android_tools {
	char *sdk, *sdk_source, *adb, *adb_source, *emulator;
} sw__android_tools;

/* Looks the tools up from the environment (@home for the default SDK path). Never fails; fields may be NULL. */
void sw__android_tools_find(const char *home, sw__android_tools *t);
void sw__android_tools_clear(sw__android_tools *t);
/* Finds an executable named @name on $PATH. (transfer full, nullable) */
char *sw__which(const char *name);

/* ---- parsers (pure, unit-tested) --------------------------------------- */

/* `adb devices -l` output to a JSON array of {serial, state, product, model, device, transportId}. */
json_t *sw__android_parse_devices(const char *out);
/* `getprop` output ("[key]: [value]" lines) to a JSON object. */
json_t *sw__android_parse_getprop(const char *out);
/* 1 emulator, 0 real hardware, judged from getprop properties. */
int sw__android_props_are_emulator(json_t *props);
/* true for serials of the form emulator-NNNN */
bool sw__android_serial_is_emulator(const char *serial);
/* Quotes @s for the device shell with single quotes. (transfer full) */
char *sw__android_shell_quote(const char *s);
/*
 * Splits @text into `input text` words (each already escaped and quoted for
 * the device shell). Returns the number of words or a negative code with
 * TEXT_INPUT_UNSUPPORTED for non-ASCII / control characters.
 */
int sw__android_input_text_words(const char *text, char ***words_out, size_t *n_out, sw_error **err);
void sw__strv_free(char **v, size_t n);
/* `wm size` output: the override size when set, else the physical size. */
bool sw__android_parse_wm_size(const char *out, int *w, int *h);
/* `dumpsys window` output: the focused package and activity. */
bool sw__android_parse_focus(const char *out, char **pkg, char **activity);
/* `dumpsys input_method` output: whether the soft keyboard is shown. */
bool sw__android_parse_ime_shown(const char *out);
/* The keyboard frame from `dumpsys window InputMethod`-style output. */
bool sw__android_parse_ime_frame(const char *out, int frame[4]);
/* Maps adb's stderr/stdout of a failed command to a catalog failure code. (transfer none) */
const char *sw__android_failure_code(const char *text);
/* Maps an install failure message (INSTALL_FAILED_...) to a catalog failure code. (transfer none) */
const char *sw__android_install_failure_code(const char *text);

/* ---- shared by android.c and prepare.c ------------------------------------ */

/* `adb devices -l` parsed (see sw__android_parse_devices). */
int sw__android_list_devices(const char *adb, json_t **out, sw_error **err);
/* `adb -s SERIAL shell getprop` parsed; DEVICE_NOT_READY when unreadable. */
int sw__android_read_props(const char *adb, const char *serial, json_t **out, sw_error **err);
/* Android package grammar: two or more segments of [A-Za-z][A-Za-z0-9_]*. */
bool sw__android_valid_package(const char *s);
/* adb from PATH, else the SDK. (transfer full, nullable) */
char *sw__android_find_adb(sw_ctx *ctx);


/* ---- the bound device (android.c), and its version 2 slots (control.c) ---- */

typedef struct sw__android_dev {
	sw_ctx *ctx;
	char *adb; /* found once, when the device is bound */
	char *serial;
	bool emulator;
	json_t *props;
	int width, height;
	bool clock_known; /* clock_offset read once per handle */
	long clock_offset_s;
	int (*abort_fn)(void *ud); /* nullable: every adb run of the handle stops (CANCELLED) when it says so */
	void *abort_ud;
	bool dump_via_file; /* observe: `uiautomator dump /dev/tty` printed no hierarchy here, use the dump file */
} sw__android_dev;

/*
 * Runs `adb [-s serial] args...` (no fixed argv table). Fails on adb-level errors (unknown device,
 * offline, no server) and timeouts; a device command's own non-zero exit comes back in r->status.
 */
int sw__android_adb(const char *adb, const char *serial, const char *const *args, int timeout_ms,
                    sw__proc_result *r, sw_error **err);
/* sw__android_adb with @in (nullable, @in_len bytes) on adb's stdin: text that must not be in an argv. */
int sw__android_adb_input(const char *adb, const char *serial, const char *const *args, const char *in, size_t in_len,
                          int timeout_ms, int (*abort_fn)(void *), void *abort_ud, sw__proc_result *r, sw_error **err);
/* sw__android_adb that kills adb and fails with SW_ECANCELLED / CANCELLED once @abort_fn answers non-zero. */
int sw__android_adb_abortable(const char *adb, const char *serial, const char *const *args, int timeout_ms,
                              int (*abort_fn)(void *), void *abort_ud, sw__proc_result *r, sw_error **err);
/* `adb -s SERIAL shell CMD`. */
int sw__android_shell(sw__android_dev *d, const char *cmd, int timeout_ms, sw__proc_result *r, sw_error **err);
/* A device command that must exit 0 and print no Java exception; else @failure_code. */
int sw__android_shell_ok(sw__android_dev *d, const char *cmd, const char *failure_code, sw_error **err);

/* The version 2 slots (control.c); see struct sw_driver_ops. */
int sw__android_properties(void *state, char **out_json, sw_error **err);
int sw__android_packages(void *state, char **out_json, sw_error **err);
int sw__android_rotation(void *state, int *rotation, int *auto_rotate, sw_error **err);
int sw__android_set_rotation(void *state, int rotation, sw_error **err);
int sw__android_airplane_mode(void *state, int *on, sw_error **err);
int sw__android_set_airplane_mode(void *state, int on, sw_error **err);
int sw__android_geo_fix(void *state, double lat, double lng, sw_error **err);
int sw__android_log_read(void *state, const char *since, char **text, size_t *len, sw_error **err);
int sw__android_clock_offset(void *state, long *offset_s, sw_error **err);
int sw__android_record_start(void *state, int time_limit_s, void **rec, long *pid, sw_error **err);
int sw__android_record_poll(void *rec);
int sw__android_record_stop(void *rec, const char *local_path, sw_error **err);
int sw__android_clear_app_data(void *state, const char *app_id, sw_error **err);
int sw__android_setting_get(void *state, const char *ns, const char *key, char **value, sw_error **err);
int sw__android_setting_put(void *state, const char *ns, const char *key, const char *value, sw_error **err);
int sw__android_devices_slot(sw_ctx *ctx, char **out_json, sw_error **err);
void sw__android_shutdown(sw_ctx *ctx);
/* The version 4 slots (reverse.c): adb reverse. */
int sw__android_reverse_add(void *state, int device_port, int host_port, sw_error **err);
int sw__android_reverse_list(void *state, char **out_json, sw_error **err);
int sw__android_reverse_remove(void *state, int device_port, int *removed, sw_error **err);
/* `adb reverse --list` output ("<transport> tcp:D tcp:H" lines) to [{device, host}]. */
json_t *sw__android_parse_reverse_list(const char *out);
/* rotation 0..3 from `dumpsys window` output (mCurrentRotation=ROTATION_90 or =1), -1 when unknown */
int sw__android_parse_rotation(const char *out);

#endif
