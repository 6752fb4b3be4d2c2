/* devctl-internal.h: shared by device/ and health/: running adb for a session's device; never installed. */
#ifndef SW_DEVCTL_INTERNAL_H
#define SW_DEVCTL_INTERNAL_H

#include <stdbool.h>

#include "../drivers/android/android-internal.h"
#include "sw-internal.h"
#include <swipium/device.h>
#include <swipium/health.h>

/* One device's adb: the adb binary and the serial (both owned). */
typedef struct sw__dc {
	sw_ctx *ctx;
	char *adb;
	char *serial;
} sw__dc;

/* From a bound device (its serial via describe). ADB_NOT_FOUND / NO_DEVICE. */
int sw__dc_from_device(sw_ctx *ctx, sw_device *dev, sw__dc *dc, sw_error **err);
/* From the serial recorded in the session's `device` record. NO_DEVICE when none is recorded. */
int sw__dc_from_session(sw_ctx *ctx, sw_session *s, sw__dc *dc, sw_error **err);
void sw__dc_clear(sw__dc *dc);

/*
 * Runs `adb -s SERIAL <args...>`. An adb-level failure (device gone, offline)
 * fails with the driver's failure code (NO_DEVICE ...); otherwise SW_OK with
 * the result in @r (the command's own exit status in r->status).
 */
int sw__dc_adb(sw__dc *dc, const char *const *args, int timeout_ms, sw__proc_result *r, sw_error **err);
/* `adb shell <cmd>`: stdout (transfer full, trimmed of trailing newlines) and the exit status. */
int sw__dc_shell(sw__dc *dc, const char *cmd, int timeout_ms, char **out, int *status, sw_error **err);

/* The ISO 8601 UTC time of now (transfer full). */
/* Appends an "executed"/"restored" ledger row; failures are logged only. */
void sw__dc_ledger(sw_session *s, const char *tool, const char *action, const char *risk, json_t *target,
                   const char *status, const char *detail);
/* The session's appId, or NULL. (transfer full) */
char *sw__dc_session_app(sw_session *s);
/* A session's state field parsed (never NULL: json null when unset). */
json_t *sw__dc_session_get(sw_session *s, const char *key);
int sw__dc_session_set(sw_session *s, const char *key, json_t *v, sw_error **err);

#endif
