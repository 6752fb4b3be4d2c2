/* scripted-driver.h: a driver-ops table for unit tests: scripted answers, a log of calls, any slot made to fail.
 *
 * Device control (device/) and health (health/) are tested on it without adb: set the fields of
 * `sd` (the script), bind with sw_device_open(ctx, sd_ops(), NULL, ...), call, then look at `sd.calls`.
 * sd.fail_slot = "log_read" (for example) makes that slot fail with sd.fail_code. */
#ifndef SCRIPTED_DRIVER_H
#define SCRIPTED_DRIVER_H

#include <stdbool.h>

#include <swipium/swipium.h>

struct sd_script {
	const char *serial;   /* "emulator-5554" */
	bool emulator;        /* true */
	const char *fg_pkg;   /* foreground package (NULL: none) */
	const char *fg_act;   /* foreground activity */
	const char *xml;      /* the UI dump */
	const char *logcat;   /* log_read text */
	long clock_offset_s;  /* clock_offset */
	int airplane;         /* airplane_mode state (set_airplane_mode changes it) */
	bool airplane_refuse; /* set_airplane_mode answers but the state does not change */
	int rotation;         /* rotation state */
	int auto_rotate;
	const char *props;    /* properties JSON (NULL: a default phone) */
	const char *packages; /* packages JSON array */
	bool keyboard;        /* keyboard shown (hide_keyboard clears it) */
	int recording;        /* 1 while a recording captures */
	const char *devices;  /* devices JSON (NULL: [{serial, state:"device"}]) */

	const char *fail_slot; /* the slot that fails (its name as in struct sw_driver_ops), or NULL */
	const char *fail_code; /* its failure code (default NO_DEVICE) */
	bool fail_all;         /* every slot but probe/describe fails (a device that dropped) */

	char calls[4096]; /* "slot(args) " for each call, in order */
	int ncalls;
};

extern struct sd_script sd;

/* Resets the script to its defaults (an emulator showing a login screen, nothing failing). */
void sd_reset(void);
/* The scripted driver ("scripted", SW_DRIVER_OPS_VERSION, every capability). */
const struct sw_driver_ops *sd_ops(void);
/* The NULL-terminated names of every slot a device can fail in (for "fail each slot in turn"). */
extern const char *const sd_slots[];
/* Registers sd_ops() so a session recorded with platform "scripted" binds it (restores, waits). */
void sd_register(void);

#endif
