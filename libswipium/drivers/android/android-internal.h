/* android-internal.h: the adb driver's internals: process runner, tool discovery, parsers; never installed. */
#ifndef SW_ANDROID_INTERNAL_H
#define SW_ANDROID_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sw-internal.h"
#include <swipium/driver.h>

/* ---- processes ---------------------------------------------------------- */

typedef struct sw__proc_opts {
	int timeout_ms;             /* 0: 30 s */
	size_t max_out;             /* 0: 64 MiB per stream */
	const volatile int *cancel; /* nullable; non-zero stops and kills the child */
	bool same_group;            /* keep the child in our process group (a daemon it starts must survive) */
} sw__proc_opts;

typedef struct sw__proc_result {
	int status; /* exit status, -1 when killed or signalled */
	bool timed_out, cancelled, truncated;
	char *out, *err; /* NUL-terminated */
	size_t out_len, err_len;
} sw__proc_result;

/* Runs argv[0] (an absolute path) with argv; fails only when it could not be started. */
int sw__proc_run(const char *const argv[], const sw__proc_opts *opts, sw__proc_result *res, sw_error **err);
void sw__proc_result_clear(sw__proc_result *r);

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

#endif
