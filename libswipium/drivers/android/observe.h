/* observe.h: the act loop's one-invocation observation (observe.c): the script and its parser; never installed. */
#ifndef SW_ANDROID_OBSERVE_H
#define SW_ANDROID_OBSERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "android-internal.h"

typedef struct sw__android_obs_req {
	const char *nonce;      /* 4-32 letters and digits: the marker lines carry it */
	const char *frames_pkg; /* nullable: read this app's frame counter before and after the dump */
	bool stream_dump;       /* `uiautomator dump /dev/tty` (else the dump file, removed first, then cat) */
	bool want_keyboard;     /* `dumpsys input_method`: is the soft keyboard shown */
	bool want_log;          /* the device log (main, system, crash) ... */
	const char *log_since;  /* ... since this threadtime stamp "MM-DD hh:mm:ss.mmm" (nullable: all of it) */
} sw__android_obs_req;

typedef struct sw__android_obs {
	char *xml;                        /* the hierarchy, or NULL with dump_error */
	size_t xml_len;
	char *dump_error;                 /* what the dump printed instead of a hierarchy */
	bool stream_unsupported;          /* /dev/tty printed no hierarchy and no uiautomator error */
	long frames_before, frames_after; /* "Total frames rendered" around the dump; -1 when unknown */
	char *focus;                      /* "pkg/full.Activity" of the app's visible window (gfxinfo), or NULL */
	int ime_shown;                    /* 1, 0, or -1 when not read */
	char *log;                        /* the log lines, or NULL when not read or when logcat failed */
	size_t log_len;
} sw__android_obs;

/* The observe slot (struct sw_driver_ops.observe). */
int sw__android_observe(void *state, const sw_observe_request *req, sw_observation *out, sw_error **err);

/* The shell script of one observation, for one `adb exec-out`. NULL on a bad nonce or no memory. (transfer full) */
char *sw__android_observe_script(const sw__android_obs_req *q);
/* Parses the script's output; -1 when it did not run to its end (fields are then cleared). */
int sw__android_observe_parse(const char *out, size_t len, const char *nonce, sw__android_obs *o);
void sw__android_obs_clear(sw__android_obs *o);

#endif
