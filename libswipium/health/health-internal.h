/* health-internal.h: what the act loop asks of the health check; never installed. */
#ifndef SW_HEALTH_INTERNAL_H
#define SW_HEALTH_INTERNAL_H

#include <swipium/driver.h>
#include <swipium/session.h>

/*
 * The threadtime stamp the next sw_health_check() of @s reads the device log from: the last marker's
 * time, else the session's start on the device's clock. A caller that reads the log itself from this stamp
 * passes it with the text ({"log", "logSince"}) and the check reads nothing again.
 */
void sw__health_log_since(sw_session *s, sw_device *dev, char out[40]);

#endif
