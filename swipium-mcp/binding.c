/* binding.c: the one session -> bound Android device table the tool families share (drive, visual, flows),
 * and the budget stop they check before driving the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

/*
 * Threading: only tool handlers use this table, and handlers run one at a time on the server's
 * worker thread (jobs on other threads open their own device, as qa_prepare_target's job does),
 * so no lock is taken. A binding handed out stays valid until the next mcp_binding_* call.
 */
#define MAX_BINDINGS 64
static mcp_binding bindings[MAX_BINDINGS];

/* The drive hook that masks the session's known secrets in text the drive returns; NULL = unchanged. */
static char *hook_redact(const char *text, void *ud)
{
	sw_redactor *r = sw_session_redactor(ud);
	if (!r || sw_redactor_count(r) == 0)
		return NULL;
	char *out = NULL;
	if (sw_redactor_redact_text(r, text, strlen(text), &out, NULL, NULL, NULL) != SW_OK)
		return NULL;
	if (!strcmp(out, text)) {
		sw_free(out);
		return NULL;
	}
	return out;
}

/* The drive hook that registers a value the drive typed as a secret of the session. */
static void hook_secret(const char *value, void *ud)
{
	sw_redactor *r = sw_session_redactor(ud);
	if (r)
		sw_redactor_add_secret(r, value, NULL);
}

/* The serial a session is bound to, from its persisted state (a session only rebinds to its own device). */
static char *session_serial(sw_session *s)
{
	char *dev = NULL;
	if (sw_session_get_json(s, "device", &dev, NULL) != SW_OK || !dev)
		return NULL;
	json_t *j = json_loads(dev, JSON_DECODE_ANY, NULL);
	sw_free(dev);
	const char *serial = json_string_value(json_object_get(j, "serial"));
	char *copy = serial ? strdup(serial) : NULL;
	json_decref(j);
	return copy;
}

/* Records the device a session without one took: device {platform, serial} and driverKind "adb". */
static void record_device(sw_session *s, sw_device *dev)
{
	char *desc = NULL;
	if (sw_device_describe(dev, &desc, NULL) != SW_OK)
		return;
	json_t *d = json_loads(desc, 0, NULL);
	sw_free(desc);
	json_t *rec = json_pack("{s:s,s:O}", "platform", "android", "serial", json_object_get(d, "serial"));
	char *rj = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
	if (rj) {
		sw_session_set_json(s, "device", rj, NULL);
		sw_session_set_json(s, "driverKind", "\"adb\"", NULL);
	}
	free(rj);
	json_decref(rec);
	json_decref(d);
}

/* Applies the session's budget.maxSnapshotFailures to the drive's tracker (when dumps go visual-only). */
static void apply_budget(sw_session *s, sw_drive *drive)
{
	char *budget = NULL;
	if (sw_session_get_json(s, "budget", &budget, NULL) == SW_OK && budget) {
		json_t *bj = json_loads(budget, 0, NULL);
		json_t *m = json_object_get(bj, "maxSnapshotFailures");
		if (json_is_number(m) && json_number_value(m) >= 1)
			sw_snapshot_tracker_set_max_failures(sw_drive_tracker(drive), (unsigned)json_number_value(m));
		json_decref(bj);
	}
	sw_free(budget);
}

static void slot_clear(mcp_binding *b)
{
	sw_drive_free(b->drive);
	sw_device_free(b->dev);
	memset(b, 0, sizeof(*b));
}

mcp_binding *mcp_binding_get(mcp_call *call, sw_session *s)
{
	return mcp_binding_get_then(call, s, NULL);
}

mcp_binding *mcp_binding_get_then(mcp_call *call, sw_session *s, const char *then)
{
	const char *sid = sw_session_id(s);
	mcp_binding *slot = NULL;
	for (size_t i = 0; i < MAX_BINDINGS; i++) {
		if (bindings[i].dev && !strcmp(bindings[i].sid, sid))
			return &bindings[i];
		if (!bindings[i].dev && !slot)
			slot = &bindings[i];
	}
	const char *disabled = getenv("SWIPIUM_DISABLE_DEVICE_DISCOVERY");
	if (disabled && !strcmp(disabled, "1")) {
		mcp_fail(call, "NO_DEVICE", "Device discovery is disabled (SWIPIUM_DISABLE_DEVICE_DISCOVERY=1).", NULL);
		return NULL;
	}
	char *serial = session_serial(s);
	json_t *opts = json_object();
	if (serial)
		json_object_set_new(opts, "serial", json_string(serial));
	char *oj = opts ? json_dumps(opts, JSON_COMPACT) : NULL;
	json_decref(opts);
	if (!oj) {
		free(serial);
		mcp_fail(call, "UNKNOWN", "Out of memory while binding the session's device.", NULL);
		return NULL;
	}
	sw_device *dev = NULL;
	sw_drive *drive = NULL;
	sw_error *err = NULL;
	int rc = sw_device_open(mcp_call_ctx(call), sw_driver_android(), oj, &dev, &err);
	free(oj);
	if (rc == SW_OK)
		rc = sw_drive_new(dev, &drive, &err);
	if (rc != SW_OK) {
		sw_device_free(dev);
		mcp_fail_err(call, err);
		if (serial && !strcmp(sw_error_failure_code(err), "NO_DEVICE"))
			mcp_fail_step(call, "this session is bound to %s; start that emulator again%s%s", serial,
			              then ? ", then " : "", then ? then : "");
		sw_error_free(err);
		free(serial);
		return NULL;
	}
	if (!serial)
		record_device(s, dev);
	free(serial);
	sw_drive_hooks hooks = {hook_secret, NULL, hook_redact, s};
	sw_drive_set_hooks(drive, &hooks);
	sw_drive_set_session(drive, mcp_call_ctx(call), s);
	apply_budget(s, drive);
	if (!slot) {
		/* the table is full: drop the first binding; its session re-binds on its next call */
		slot = &bindings[0];
		slot_clear(slot);
	}
	snprintf(slot->sid, sizeof(slot->sid), "%s", sid);
	slot->dev = dev;
	slot->drive = drive;
	return slot;
}

void mcp_binding_drop(const char *sid)
{
	for (size_t i = 0; i < MAX_BINDINGS; i++)
		if (bindings[i].dev && !strcmp(bindings[i].sid, sid))
			slot_clear(&bindings[i]);
}

bool mcp_budget_stopped(mcp_call *call, sw_session *s)
{
	char *reason = NULL;
	if (sw_session_budget_exhausted(s, &reason) != 1) {
		sw_free(reason);
		return false;
	}
	json_t *o = json_pack("{s:b,s:s}", "stopped", 1, "reason", reason ? reason : "budget reached");
	mcp_next(call, "qa_report {sessionId: \"%s\"}", sw_session_id(s));
	mcp_ok(call, o, reason ? reason : "Budget reached.");
	sw_free(reason);
	return true;
}
