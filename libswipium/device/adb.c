/* adb.c: running adb for a session's device (argv only), and small session helpers shared by device/ and health/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devctl-internal.h"

void sw__dc_clear(sw__dc *dc)
{
	free(dc->adb);
	free(dc->serial);
	memset(dc, 0, sizeof(*dc));
}

static int find_adb(sw_ctx *ctx, sw__dc *dc, sw_error **err)
{
	dc->ctx = ctx;
	dc->adb = sw__android_find_adb(ctx);
	if (!dc->adb)
		return sw__error_set(err, SW_ENOTFOUND, "ADB_NOT_FOUND",
		                     "install the Android platform-tools or set ANDROID_HOME",
		                     "adb was not found on PATH or in the Android SDK");
	return SW_OK;
}

int sw__dc_from_device(sw_ctx *ctx, sw_device *dev, sw__dc *dc, sw_error **err)
{
	memset(dc, 0, sizeof(*dc));
	char *desc = NULL;
	int rc = sw_device_describe(dev, &desc, err);
	if (rc != SW_OK)
		return rc;
	json_t *d = json_loads(desc, 0, NULL);
	sw_free(desc);
	const char *serial = json_string_value(json_object_get(d, "serial"));
	dc->serial = serial ? strdup(serial) : NULL;
	json_decref(d);
	if (!dc->serial)
		return sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE", NULL, "the bound device has no serial");
	rc = find_adb(ctx, dc, err);
	if (rc != SW_OK)
		sw__dc_clear(dc);
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

int sw__dc_from_session(sw_ctx *ctx, sw_session *s, sw__dc *dc, sw_error **err)
{
	memset(dc, 0, sizeof(*dc));
	json_t *d = sw__dc_session_get(s, "device");
	const char *serial = json_string_value(json_object_get(d, "serial"));
	dc->serial = serial ? strdup(serial) : NULL;
	json_decref(d);
	if (!dc->serial)
		return sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE", NULL, "the session has no bound device");
	int rc = find_adb(ctx, dc, err);
	if (rc != SW_OK)
		sw__dc_clear(dc);
	return rc;
}

int sw__dc_adb(sw__dc *dc, const char *const *args, int timeout_ms, sw__proc_result *r, sw_error **err)
{
	const char *argv[32];
	size_t n = 0;
	argv[n++] = dc->adb;
	argv[n++] = "-s";
	argv[n++] = dc->serial;
	for (size_t i = 0; args[i] && n < SW_ARRAY_SIZE(argv) - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	sw__proc_opts o = {.timeout_ms = timeout_ms};
	int rc = sw__proc_run(argv, &o, r, err);
	if (rc != SW_OK)
		return rc;
	if (r->timed_out) {
		rc = sw__error_set(err, SW_ETIMEOUT, "DEVICE_NOT_READY", NULL, "adb %s timed out on %s", args[0],
		                   dc->serial);
		sw__proc_result_clear(r);
		return rc;
	}
	/* adb's own failures (device gone, offline, unauthorized) are on stderr with "error:" */
	const char *e = r->err ? r->err : "";
	bool adb_level = !strncmp(e, "error:", 6) || !strncmp(e, "adb: error:", 11) || strstr(e, "\nerror:");
	if (r->status != 0 && adb_level) {
		const char *code = sw__android_failure_code(e);
		if (!code || !strcmp(code, "UNKNOWN"))
			code = "NO_DEVICE";
		char first[300];
		snprintf(first, sizeof(first), "%s", e);
		char *nl = strchr(first, '\n');
		if (nl)
			*nl = '\0';
		rc = sw__error_set(err, SW_EDEVICE, code, "check `adb devices`; start the emulator again",
		                   "device %s is not reachable: %s", dc->serial, first);
		sw__proc_result_clear(r);
		return rc;
	}
	return SW_OK;
}

int sw__dc_shell(sw__dc *dc, const char *cmd, int timeout_ms, char **out, int *status, sw_error **err)
{
	const char *args[] = {"shell", cmd, NULL};
	sw__proc_result r;
	int rc = sw__dc_adb(dc, args, timeout_ms, &r, err);
	if (rc != SW_OK)
		return rc;
	if (status)
		*status = r.status;
	if (out) {
		size_t n = r.out ? strlen(r.out) : 0;
		while (n && (r.out[n - 1] == '\n' || r.out[n - 1] == '\r'))
			n--;
		*out = sw__strndup(r.out ? r.out : "", n);
		if (!*out) {
			sw__proc_result_clear(&r);
			return sw__error_nomem(err);
		}
	}
	sw__proc_result_clear(&r);
	return SW_OK;
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
