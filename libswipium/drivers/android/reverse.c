/* reverse.c: the Android driver's version 4 slots: `adb reverse` (a host port the device reaches on its loopback). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../catalog/catalog-internal.h"
#include "android-internal.h"

#define REVERSE_TIMEOUT_MS 15000

/* What adb said (stderr, else stdout), capped, without its "adb: error: " prefix. (transfer full) */
static char *adb_said(const sw__proc_result *r)
{
	const char *t = r->err && r->err[0] ? r->err : (r->out ? r->out : "");
	const char *p = strstr(t, "error: ");
	char *said = sw__cap(p ? p + 7 : t, 300);
	if (said) {
		size_t n = strlen(said);
		while (n > 0 && (said[n - 1] == '\n' || said[n - 1] == '\r' || said[n - 1] == ' '))
			said[--n] = '\0';
	}
	return said;
}

/* A failed `adb reverse ...`: adb's own trouble (device gone, offline) keeps its code; a device's refusal is UNKNOWN
 * to the driver (the caller knows what the reverse was for and names it). */
static int refused(const sw__android_dev *d, const char *what, const sw__proc_result *r, sw_error **err)
{
	char *said = adb_said(r);
	const char *code = sw__android_failure_code(said);
	int rc = sw__error_set(err, sw__catalog_result(code, SW_EDEVICE), code,
	                       "Check the device with adb devices, then retry",
	                       "%s refused %s: %s", d->serial, what, said && said[0] ? said : "no output");
	if (err && *err)
		sw__error_take_details(*err, json_pack("{s:s,s:i}", "adbSaid", said ? said : "", "exitCode", r->status));
	free(said);
	return rc;
}

int sw__android_reverse_add(void *state, int device_port, int host_port, sw_error **err)
{
	sw__android_dev *d = state;
	char dev_spec[16], host_spec[16];
	snprintf(dev_spec, sizeof(dev_spec), "tcp:%d", device_port);
	snprintf(host_spec, sizeof(host_spec), "tcp:%d", host_port);
	const char *args[] = {"reverse", dev_spec, host_spec, NULL};
	sw__proc_result r;
	int rc = sw__android_adb_abortable(d->adb, d->serial, args, REVERSE_TIMEOUT_MS, d->abort_fn, d->abort_ud, &r, err);
	if (rc < 0)
		return rc;
	if (r.status != 0) {
		char what[64];
		snprintf(what, sizeof(what), "adb reverse %s %s", dev_spec, host_spec);
		rc = refused(d, what, &r, err);
	}
	sw__proc_result_clear(&r);
	return rc;
}

json_t *sw__android_parse_reverse_list(const char *out)
{
	json_t *arr = json_array();
	const char *p = out ? out : "";
	while (arr && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			/* "<transport> <device spec> <host spec>": the transport's name differs between adbd versions */
			char a[128], b[128], c[128];
			if (sscanf(line, "%127s %127s %127s", a, b, c) == 3)
				json_array_append_new(arr, json_pack("{s:s,s:s}", "device", b, "host", c));
		}
		p += n + (nl ? 1 : 0);
	}
	return arr;
}

int sw__android_reverse_list(void *state, char **out_json, sw_error **err)
{
	sw__android_dev *d = state;
	const char *args[] = {"reverse", "--list", NULL};
	sw__proc_result r;
	int rc = sw__android_adb_abortable(d->adb, d->serial, args, REVERSE_TIMEOUT_MS, d->abort_fn, d->abort_ud, &r, err);
	if (rc < 0)
		return rc;
	if (r.status != 0) {
		rc = refused(d, "adb reverse --list", &r, err);
		sw__proc_result_clear(&r);
		return rc;
	}
	json_t *arr = sw__android_parse_reverse_list(r.out);
	sw__proc_result_clear(&r);
	*out_json = arr ? sw__json_compact(arr) : NULL;
	json_decref(arr);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

int sw__android_reverse_remove(void *state, int device_port, int *removed, sw_error **err)
{
	sw__android_dev *d = state;
	char dev_spec[16];
	snprintf(dev_spec, sizeof(dev_spec), "tcp:%d", device_port);
	const char *args[] = {"reverse", "--remove", dev_spec, NULL};
	sw__proc_result r;
	*removed = 0;
	int rc = sw__android_adb_abortable(d->adb, d->serial, args, REVERSE_TIMEOUT_MS, d->abort_fn, d->abort_ud, &r, err);
	if (rc < 0)
		return rc;
	if (r.status == 0) {
		*removed = 1;
	} else if (!(strstr(r.err ? r.err : "", "not found") && strstr(r.err ? r.err : "", "listener"))) {
		char what[64];
		snprintf(what, sizeof(what), "adb reverse --remove %s", dev_spec);
		rc = refused(d, what, &r, err);
	} /* "listener 'tcp:N' not found": there was none, which is what was asked */
	sw__proc_result_clear(&r);
	return rc;
}
