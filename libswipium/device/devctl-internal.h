/* devctl-internal.h: shared by device/ and health/: session helpers over sw_device_*; never installed. */
#ifndef SW_DEVCTL_INTERNAL_H
#define SW_DEVCTL_INTERNAL_H

#include <stdbool.h>

#include "sw-internal.h"
#include <swipium/device.h>
#include <swipium/health.h>

/* The serial a bound device describes (transfer full; "(unknown device)" when it has none). */
char *sw__dc_serial(sw_device *dev);
/* Whether the bound device describes itself as an emulator. */
bool sw__dc_is_emulator(sw_device *dev);
/* The driver of the session's device record (its platform; Android when unrecorded). (transfer none) */
const struct sw_driver_ops *sw__dc_session_driver(sw_session *s);
/* Binds @serial with the session's driver (for work that has no bound device: restores, recovery). */
int sw__dc_open_serial(sw_ctx *ctx, sw_session *s, const char *serial, sw_device **dev, sw_error **err);

/* Appends an "executed"/"restored" ledger row; failures are logged only. */
void sw__dc_ledger(sw_session *s, const char *tool, const char *action, const char *risk, json_t *target,
                   const char *status, const char *detail);
/* The session's appId, or NULL. (transfer full) */
char *sw__dc_session_app(sw_session *s);
/* A session's state field parsed (never NULL: json null when unset). */
json_t *sw__dc_session_get(sw_session *s, const char *key);
int sw__dc_session_set(sw_session *s, const char *key, json_t *v, sw_error **err);

#endif
