/* common.c: small session helpers shared by device/ and health/ (no process is started here: devices are
 * driven only through sw_device_* and the driver's ops table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devctl-internal.h"

char *sw__dc_serial(sw_device *dev)
{
	char *desc = NULL;
	char *serial = NULL;
	if (sw_device_describe(dev, &desc, NULL) == SW_OK) {
		json_t *d = json_loads(desc, 0, NULL);
		const char *v = json_string_value(json_object_get(d, "serial"));
		serial = v ? sw__strdup(v) : NULL;
		json_decref(d);
	}
	sw_free(desc);
	return serial ? serial : sw__strdup("(unknown device)");
}

bool sw__dc_is_emulator(sw_device *dev)
{
	char *desc = NULL;
	bool emu = false;
	if (sw_device_describe(dev, &desc, NULL) == SW_OK) {
		json_t *d = json_loads(desc, 0, NULL);
		emu = json_is_true(json_object_get(d, "emulator"));
		json_decref(d);
	}
	sw_free(desc);
	return emu;
}

const struct sw_driver_ops *sw__dc_session_driver(sw_session *s)
{
	json_t *d = sw__dc_session_get(s, "device");
	const char *platform = json_string_value(json_object_get(d, "platform"));
	const struct sw_driver_ops *ops = sw_driver_find(platform ? platform : "android");
	json_decref(d);
	return ops ? ops : sw_driver_android();
}

int sw__dc_open_serial(sw_ctx *ctx, sw_session *s, const char *serial, sw_device **dev, sw_error **err)
{
	json_t *o = json_pack("{s:s}", "serial", serial);
	char *oj = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!oj)
		return sw__error_nomem(err);
	int rc = sw_device_open(ctx, sw__dc_session_driver(s), oj, dev, err);
	free(oj);
	return rc;
}

json_t *sw__dc_session_get(sw_session *s, const char *key)
{
	char *t = NULL;
	json_t *v = NULL;
	if (sw_session_get_json(s, key, &t, NULL) == SW_OK && t)
		v = json_loads(t, JSON_DECODE_ANY, NULL);
	sw_free(t);
	return v ? v : json_null();
}

int sw__dc_session_set(sw_session *s, const char *key, json_t *v, sw_error **err)
{
	char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!t)
		return sw__error_nomem(err);
	int rc = sw_session_set_json(s, key, t, err);
	free(t);
	return rc;
}

void sw__dc_ledger(sw_session *s, const char *tool, const char *action, const char *risk, json_t *target,
                   const char *status, const char *detail)
{
	json_t *spec = json_pack("{s:s,s:s,s:s,s:o,s:s}", "tool", tool, "action", action, "risk", risk, "target",
	                         target ? json_incref(target) : json_object(), "status", status);
	if (!spec)
		return;
	if (detail)
		json_object_set_new(spec, "detail", json_string(detail));
	/* a change made (or undone) under a consent carries that consent: the latest approved row of this action */
	if (s && (!strcmp(status, "executed") || !strcmp(status, "restored"))) {
		json_t *rows = sw__dc_session_get(s, "mutations");
		for (size_t i = json_array_size(rows); i-- > 0;) {
			json_t *r = json_array_get(rows, i);
			const char *rs = json_string_value(json_object_get(r, "status"));
			const char *rt = json_string_value(json_object_get(r, "tool"));
			const char *ra = json_string_value(json_object_get(r, "action"));
			json_t *c = json_object_get(r, "consent");
			if (rs && rt && ra && !strcmp(rs, "approved") && !strcmp(rt, tool) && !strcmp(ra, action) &&
			    json_is_object(c) && json_is_true(json_object_get(c, "approved"))) {
				json_object_set(spec, "consent", c);
				break;
			}
		}
		json_decref(rows);
	}
	char *st = json_dumps(spec, JSON_COMPACT);
	json_decref(spec);
	char *row = NULL;
	if (st && sw_consent_ledger_row(st, &row, NULL) == SW_OK)
		sw_session_ledger_append(s, row, NULL);
	sw_free(row);
	free(st);
}

char *sw__dc_session_app(sw_session *s)
{
	json_t *v = sw__dc_session_get(s, "appId");
	char *r = json_is_string(v) && json_string_length(v) ? strdup(json_string_value(v)) : NULL;
	json_decref(v);
	return r;
}
