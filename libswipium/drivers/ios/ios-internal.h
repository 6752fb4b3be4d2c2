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

#endif
