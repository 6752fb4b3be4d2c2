/* check-device.c: device control (device/) on the scripted driver, without adb: what each call asks the
 * driver, what it records in the session, and a clear error (and a session that still works) when any
 * slot fails. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scripted-driver.h"
#include "sw-internal.h"

static char tmp[256];

struct rig {
	sw_ctx *ctx;
	sw_store *store;
	sw_session *s;
	sw_device *dev;
};

static void rig_up(struct rig *r)
{
	snprintf(tmp, sizeof(tmp), "/tmp/check-device-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	char home[512];
	snprintf(home, sizeof(home), "%s/home", tmp);
	ck_assert_int_eq(mkdir(home, 0700), 0);
	sd_reset();
	sd_register();
	ck_assert_int_eq(sw_ctx_new(&r->ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(r->ctx, home, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(r->ctx, &r->store, NULL), SW_OK);
	ck_assert_int_eq(sw_session_create(r->store, tmp, "arg", NULL, &r->s, NULL), SW_OK);
	ck_assert_int_eq(
	    sw_session_set_json(r->s, "device", "{\"serial\":\"emulator-5554\",\"platform\":\"scripted\"}", NULL), SW_OK);
	ck_assert_int_eq(sw_session_set_json(r->s, "appId", "\"com.example.app\"", NULL), SW_OK);
	ck_assert_int_eq(sw_device_open(r->ctx, sd_ops(), NULL, &r->dev, NULL), SW_OK);
	sd.calls[0] = '\0';
	sd.ncalls = 0;
}

static void rig_down(struct rig *r)
{
	sw_device_free(r->dev);
	sw_store_free(r->store);
	sw_ctx_free(r->ctx);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

/* (the call is evaluated before its out-parameters are read: pass their addresses) */
static json_t *ok_json(int rc, char **outp, sw_error **errp)
{
	sw_error *err = *errp;
	ck_assert_msg(rc == SW_OK, "call failed: %s %s", err ? sw_error_failure_code(err) : "",
	              err ? sw_error_message(err) : "");
	json_t *j = json_loads(*outp, 0, NULL);
	ck_assert_ptr_nonnull(j);
	sw_free(*outp);
	*outp = NULL;
	return j;
}

static json_t *state_field(sw_session *s, const char *key)
{
	char *t = NULL;
	ck_assert_int_eq(sw_session_get_json(s, key, &t, NULL), SW_OK);
	json_t *v = t ? json_loads(t, JSON_DECODE_ANY, NULL) : json_null();
	sw_free(t);
	return v;
}

static bool env_has(sw_session *s, const char *needle)
{
	json_t *env = state_field(s, "envChanges");
	bool found = false;
	size_t i;
	json_t *e;
	json_array_foreach(env, i, e) found = found || (json_string_value(e) && strstr(json_string_value(e), needle));
	json_decref(env);
	return found;
}

START_TEST(info_turns_the_screen_with_the_rotation)
{
	struct rig r;
	rig_up(&r);
	sd.rotation = 1;
	char *out = NULL;
	sw_error *err = NULL;
	json_t *j = ok_json(sw_devctl_info(r.ctx, r.s, r.dev, "{\"packageFilter\":\"other\"}", &out, &err), &out, &err);
	ck_assert_str_eq(json_string_value(json_object_get(j, "platform")), "scripted");
	ck_assert_str_eq(json_string_value(json_object_get(j, "serial")), "emulator-5554");
	ck_assert_str_eq(json_string_value(json_object_get(j, "orientation")), "landscape");
	json_t *screen = json_object_get(j, "screen");
	ck_assert_int_eq(json_integer_value(json_object_get(screen, "width")), 2400);
	ck_assert_int_eq(json_integer_value(json_object_get(screen, "height")), 1080);
	ck_assert_int_eq(json_integer_value(json_object_get(screen, "density")), 420);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "props"), "model")), "sdk_gphone64_x86_64");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "installedThirdPartyCount")), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "packages")), 1);
	ck_assert_ptr_nonnull(strstr(sd.calls, "properties packages rotation"));
	json_decref(j);
	rig_down(&r);
}
END_TEST

START_TEST(orientation_asks_the_driver)
{
	struct rig r;
	rig_up(&r);
	char *out = NULL;
	sw_error *err = NULL;
	json_t *j = ok_json(sw_devctl_orientation(r.ctx, r.s, r.dev, "landscape", &out, &err), &out, &err);
	ck_assert_ptr_nonnull(strstr(sd.calls, "set_rotation(1)"));
	ck_assert_str_eq(json_string_value(json_object_get(j, "orientation")), "landscape");
	ck_assert(json_is_false(json_object_get(j, "autoRotate")));
	json_decref(j);
	j = ok_json(sw_devctl_orientation(r.ctx, r.s, r.dev, "auto", &out, &err), &out, &err);
	ck_assert_ptr_nonnull(strstr(sd.calls, "set_rotation(-1)"));
	ck_assert(json_is_true(json_object_get(j, "autoRotate")));
	json_decref(j);
	ck_assert(env_has(r.s, "orientation set to landscape on emulator-5554"));
	ck_assert_int_eq(sw_devctl_orientation(r.ctx, r.s, r.dev, "sideways", &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	rig_down(&r);
}
END_TEST

START_TEST(network_records_the_original_and_restores_without_a_device)
{
	struct rig r;
	rig_up(&r);
	char *out = NULL;
	sw_error *err = NULL;
	json_t *j = ok_json(sw_devctl_network(r.ctx, r.s, r.dev, "offline", &out, &err), &out, &err);
	ck_assert_str_eq(json_string_value(json_object_get(j, "network")), "offline");
	ck_assert(json_is_true(json_object_get(j, "restoreAvailable")));
	json_decref(j);
	ck_assert_int_eq(sd.airplane, 1);
	/* a second change keeps the first original */
	j = ok_json(sw_devctl_network(r.ctx, r.s, r.dev, "online", &out, &err), &out, &err);
	json_decref(j);
	j = ok_json(sw_devctl_network(r.ctx, r.s, r.dev, "offline", &out, &err), &out, &err);
	json_decref(j);
	json_t *net = state_field(r.s, "network");
	ck_assert(json_is_false(json_object_get(net, "originalAirplane")));
	ck_assert(json_is_true(json_object_get(net, "changed")));
	json_decref(net);
	/* restore binds the session's own device through its driver */
	sd.calls[0] = '\0';
	j = ok_json(sw_devctl_network_restore(r.ctx, r.s, "qa_report", &out, &err), &out, &err);
	ck_assert(json_is_true(json_object_get(j, "restored")));
	json_decref(j);
	ck_assert_ptr_nonnull(strstr(sd.calls, "probe set_airplane_mode(0)"));
	ck_assert_int_eq(sd.airplane, 0);
	net = state_field(r.s, "network");
	ck_assert(json_is_true(json_object_get(net, "restored")));
	json_decref(net);
	ck_assert(env_has(r.s, "network restored (qa_report)"));
	/* nothing left to restore */
	j = ok_json(sw_devctl_network_restore(r.ctx, r.s, "qa_report", &out, &err), &out, &err);
	ck_assert_str_eq(json_string_value(json_object_get(j, "networkRestore")), "not-needed");
	json_decref(j);
	rig_down(&r);
}
END_TEST

START_TEST(network_refused_changes_nothing)
{
	struct rig r;
	rig_up(&r);
	sd.airplane_refuse = true;
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_lt(sw_devctl_network(r.ctx, r.s, r.dev, "offline", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "rejected"));
	sw_error_free(err);
	json_t *net = state_field(r.s, "network");
	ck_assert(!json_is_true(json_object_get(net, "changed")));
	json_decref(net);
	rig_down(&r);
}
END_TEST

START_TEST(restore_with_the_device_gone_stays_pending)
{
	struct rig r;
	rig_up(&r);
	char *out = NULL;
	sw_error *err = NULL;
	json_decref(ok_json(sw_devctl_network(r.ctx, r.s, r.dev, "offline", &out, &err), &out, &err));
	sd.fail_slot = "probe";
	ck_assert_int_lt(sw_devctl_network_restore(r.ctx, r.s, "restore", &out, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "NO_DEVICE");
	sw_error_free(err);
	err = NULL;
	json_t *net = state_field(r.s, "network");
	ck_assert(!json_is_true(json_object_get(net, "restored")));
	ck_assert_ptr_nonnull(json_object_get(net, "restoreFailed"));
	json_decref(net);
	ck_assert(env_has(r.s, "network restore (restore) failed"));
	/* the device comes back: the restore goes through */
	sd.fail_slot = NULL;
	json_t *j = ok_json(sw_devctl_network_restore(r.ctx, r.s, "restore", &out, &err), &out, &err);
	ck_assert(json_is_true(json_object_get(j, "restored")));
	json_decref(j);
	net = state_field(r.s, "network");
	ck_assert_ptr_null(json_object_get(net, "restoreFailed"));
	json_decref(net);
	rig_down(&r);
}
END_TEST

START_TEST(geolocation_and_app_control)
{
	struct rig r;
	rig_up(&r);
	char *out = NULL;
	sw_error *err = NULL;
	json_t *j = ok_json(sw_devctl_geolocation(r.ctx, r.s, r.dev, 48.8584, 2.2945, &out, &err), &out, &err);
	ck_assert(json_is_true(json_object_get(j, "set")));
	json_decref(j);
	ck_assert_ptr_nonnull(strstr(sd.calls, "geo_fix(48.8584,2.2945)"));
	ck_assert_int_eq(sw_devctl_geolocation(r.ctx, r.s, r.dev, 91, 0, &out, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;

	sd.calls[0] = '\0';
	j = ok_json(sw_devctl_app(r.ctx, r.s, r.dev, "{\"action\":\"restart\"}", &out, &err), &out, &err);
	ck_assert_ptr_nonnull(strstr(sd.calls, "force_stop(com.example.app) launch(com.example.app)"));
	ck_assert(json_is_true(json_object_get(j, "processKilled")));
	ck_assert(json_is_true(json_object_get(j, "foregroundIsApp")));
	json_decref(j);
	sd.calls[0] = '\0';
	j = ok_json(sw_devctl_app(r.ctx, r.s, r.dev, "{\"action\":\"fresh_start\"}", &out, &err), &out, &err);
	ck_assert_ptr_nonnull(strstr(sd.calls, "clear_app_data(com.example.app) launch(com.example.app)"));
	json_decref(j);
	ck_assert(env_has(r.s, "fresh_start: app data of com.example.app wiped on emulator-5554"));
	sd.calls[0] = '\0';
	j = ok_json(sw_devctl_app(r.ctx, r.s, r.dev, "{\"action\":\"background\"}", &out, &err), &out, &err);
	ck_assert_ptr_nonnull(strstr(sd.calls, "press_key(home)"));
	ck_assert(json_is_false(json_object_get(j, "foregroundIsApp")));
	json_decref(j);
	rig_down(&r);
}
END_TEST

START_TEST(recording_is_kept_as_an_artifact)
{
	struct rig r;
	rig_up(&r);
	char *out = NULL;
	sw_error *err = NULL;
	json_t *j = ok_json(sw_devctl_record(r.ctx, r.s, r.dev, "{\"action\":\"start\"}", &out, &err), &out, &err);
	ck_assert(json_is_true(json_object_get(j, "capturing")));
	json_decref(j);
	ck_assert_int_lt(sw_devctl_record(r.ctx, r.s, r.dev, "{\"action\":\"start\"}", &out, &err), 0);
	sw_error_free(err);
	err = NULL;
	j = ok_json(sw_devctl_record(r.ctx, r.s, r.dev, "{\"action\":\"stop\"}", &out, &err), &out, &err);
	ck_assert(json_is_string(json_object_get(j, "uri")));
	ck_assert_int_gt(json_integer_value(json_object_get(j, "bytes")), 0);
	json_decref(j);
	ck_assert_ptr_nonnull(strstr(sd.calls, "record_start(180) record_stop(save)"));
	/* on_failure without a failure: discarded */
	json_decref(ok_json(sw_devctl_record(r.ctx, r.s, r.dev, "{\"action\":\"start\",\"save\":\"on_failure\"}", &out, &err),
	                    &out, &err));
	j = ok_json(sw_devctl_record(r.ctx, r.s, r.dev, "{\"action\":\"stop\"}", &out, &err), &out, &err);
	ck_assert(json_is_true(json_object_get(j, "discarded")));
	json_decref(j);
	ck_assert_ptr_nonnull(strstr(sd.calls, "record_stop(discard)"));
	rig_down(&r);
}
END_TEST

START_TEST(wait_for_the_device)
{
	struct rig r;
	rig_up(&r);
	char *out = NULL;
	sw_error *err = NULL;
	json_t *j = ok_json(sw_devctl_wait(r.ctx, r.s, "{\"for\":\"device_online\"}", NULL, NULL, &out, &err), &out, &err);
	ck_assert(json_is_true(json_object_get(j, "satisfied")));
	json_decref(j);
	sd.devices = "[{\"serial\":\"emulator-5554\",\"state\":\"offline\"}]";
	j = ok_json(sw_devctl_wait(r.ctx, r.s, "{\"for\":\"device_online\",\"timeoutMs\":200}", NULL, NULL, &out, &err),
	            &out, &err);
	ck_assert(json_is_true(json_object_get(j, "timedOut")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "state"), "device")), "offline");
	json_decref(j);
	rig_down(&r);
}
END_TEST

/* ---- every slot fails in turn ------------------------------------------------------------- */

typedef int (*op_fn)(struct rig *r, char **out, sw_error **err);

static int op_info(struct rig *r, char **out, sw_error **err)
{
	return sw_devctl_info(r->ctx, r->s, r->dev, NULL, out, err);
}
static int op_orientation(struct rig *r, char **out, sw_error **err)
{
	return sw_devctl_orientation(r->ctx, r->s, r->dev, "portrait", out, err);
}
static int op_offline(struct rig *r, char **out, sw_error **err)
{
	return sw_devctl_network(r->ctx, r->s, r->dev, "offline", out, err);
}
static int op_geo(struct rig *r, char **out, sw_error **err)
{
	return sw_devctl_geolocation(r->ctx, r->s, r->dev, 1.5, 2.5, out, err);
}
static int op_fresh(struct rig *r, char **out, sw_error **err)
{
	return sw_devctl_app(r->ctx, r->s, r->dev, "{\"action\":\"fresh_start\"}", out, err);
}
static int op_restart(struct rig *r, char **out, sw_error **err)
{
	return sw_devctl_app(r->ctx, r->s, r->dev, "{\"action\":\"restart\"}", out, err);
}
static int op_record(struct rig *r, char **out, sw_error **err)
{
	int rc = sw_devctl_record(r->ctx, r->s, r->dev, "{\"action\":\"start\"}", out, err);
	if (rc != SW_OK)
		return rc;
	sw_free(*out);
	*out = NULL;
	return sw_devctl_record(r->ctx, r->s, r->dev, "{\"action\":\"stop\"}", out, err);
}
static int op_health(struct rig *r, char **out, sw_error **err)
{
	return sw_health_check(r->ctx, r->s, r->dev, NULL, out, err);
}

static const struct {
	const char *name;
	op_fn fn;
} ops[] = {{"info", op_info},         {"orientation", op_orientation}, {"offline", op_offline},
           {"geolocation", op_geo},   {"fresh_start", op_fresh},       {"restart", op_restart},
           {"record", op_record},     {"health", op_health}};

START_TEST(each_slot_fails_in_turn)
{
	for (size_t o = 0; o < SW_ARRAY_SIZE(ops); o++) {
		/* which slots the call uses: a clean run tells */
		struct rig r;
		rig_up(&r);
		char *out = NULL;
		sw_error *err = NULL;
		ck_assert_msg(ops[o].fn(&r, &out, &err) == SW_OK, "%s failed on a healthy device: %s", ops[o].name,
		              err ? sw_error_message(err) : "");
		sw_free(out);
		char used[4200];
		snprintf(used, sizeof(used), " %s", sd.calls);
		rig_down(&r);
		for (size_t k = 0; sd_slots[k]; k++) {
			char pat[64];
			snprintf(pat, sizeof(pat), " %s", sd_slots[k]);
			const char *hit = strstr(used, pat);
			bool uses = hit && (hit[strlen(pat)] == ' ' || hit[strlen(pat)] == '(');
			if (!uses)
				continue;
			rig_up(&r);
			sd.fail_slot = sd_slots[k];
			sd.fail_code = "DEVICE_NOT_READY";
			out = NULL;
			err = NULL;
			int rc = ops[o].fn(&r, &out, &err);
			if (!strcmp(ops[o].name, "health")) {
				/* health survives one failed read and says it could not look */
				if (rc == SW_OK) {
					json_t *j = json_loads(out, 0, NULL);
					bool degraded_or_found = !json_is_true(json_object_get(j, "healthy")) ||
					                         !strcmp(sd_slots[k], "clock_offset");
					ck_assert_msg(degraded_or_found, "health with %s failing said healthy: %s", sd_slots[k],
					              out);
					json_decref(j);
				} else {
					ck_assert_str_eq(sw_error_failure_code(err), "DEVICE_NOT_READY");
				}
			} else if (rc == SW_OK && !strcmp(sd_slots[k], "foreground")) {
				/* app control reports the foreground after the change, best effort: unknown, not made up */
				json_t *j = json_loads(out, 0, NULL);
				ck_assert_msg(json_is_null(json_object_get(j, "foreground")), "%s: %s", ops[o].name, out);
				ck_assert(json_is_null(json_object_get(j, "foregroundIsApp")));
				json_decref(j);
			} else {
				ck_assert_msg(rc < 0, "%s succeeded with %s failing", ops[o].name, sd_slots[k]);
				ck_assert_ptr_nonnull(err);
				ck_assert_msg(sw_error_message(err)[0], "%s: an empty error", ops[o].name);
			}
			sw_free(out);
			sw_error_free(err);
			/* the session still works once the device answers again */
			sd.fail_slot = NULL;
			sd.recording = 0;
			out = NULL;
			err = NULL;
			json_decref(ok_json(op_info(&r, &out, &err), &out, &err));
			rig_down(&r);
		}
	}
}
END_TEST

START_TEST(version_one_tables_keep_working)
{
	/* a table written for version 1 is shorter: the library must never read a version 2 slot from it */
	struct sw_driver_ops v1 = *sd_ops();
	v1.version = 1;
	struct rig r;
	rig_up(&r);
	sw_device *dev = NULL;
	ck_assert_int_eq(sw_device_open(r.ctx, &v1, NULL, &dev, NULL), SW_OK);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_device_properties(dev, &out, &err), SW_EUNSUPPORTED);
	ck_assert_str_eq(sw_error_failure_code(err), "BACKEND_UNSUPPORTED");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_devctl_orientation(r.ctx, r.s, dev, "portrait", &out, &err), SW_EUNSUPPORTED);
	sw_error_free(err);
	err = NULL;
	ck_assert_ptr_null(strstr(sd.calls, "set_rotation"));
	sw_device_free(dev);
	/* a newer table than the library knows is refused */
	struct sw_driver_ops v9 = *sd_ops();
	v9.version = SW_DRIVER_OPS_VERSION + 1;
	ck_assert_int_eq(sw_device_open(r.ctx, &v9, NULL, &dev, &err), SW_EUNSUPPORTED);
	sw_error_free(err);
	rig_down(&r);
}
END_TEST


static int fake_reverse_add(void *state, int device_port, int host_port, sw_error **err)
{
	(void)state;
	(void)err;
	strncat(sd.calls, "reverse_add ", sizeof(sd.calls) - strlen(sd.calls) - 1);
	return device_port == host_port ? SW_OK : SW_EIO;
}

START_TEST(version_three_tables_have_no_reverse)
{
	/* the reverse slots came with version 4: a version 3 table that claims the bit is never read there */
	struct sw_driver_ops v3 = *sd_ops();
	v3.version = 3;
	v3.caps |= SW_DRIVER_CAP_REVERSE;
	v3.reverse_add = fake_reverse_add;
	struct rig r;
	rig_up(&r);
	sw_device *dev = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_device_open(r.ctx, &v3, NULL, &dev, NULL), SW_OK);
	ck_assert_int_eq(sw_device_reverse_add(dev, 8081, 8081, &err), SW_EUNSUPPORTED);
	ck_assert_str_eq(sw_error_failure_code(err), "BACKEND_UNSUPPORTED");
	sw_error_free(err);
	err = NULL;
	ck_assert_ptr_null(strstr(sd.calls, "reverse_add"));
	sw_device_free(dev);
	/* the same table as version 4 is served, and ports are checked before the driver is asked */
	struct sw_driver_ops v4 = v3;
	v4.version = 4;
	ck_assert_int_eq(sw_device_open(r.ctx, &v4, NULL, &dev, NULL), SW_OK);
	ck_assert_int_eq(sw_device_reverse_add(dev, 0, 8081, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_ptr_null(strstr(sd.calls, "reverse_add"));
	ck_assert_int_eq(sw_device_reverse_add(dev, 8081, 8081, &err), SW_OK);
	ck_assert_ptr_nonnull(strstr(sd.calls, "reverse_add"));
	/* a driver without the list slot answers BACKEND_UNSUPPORTED for it */
	char *out = NULL;
	ck_assert_int_eq(sw_device_reverse_list(dev, &out, &err), SW_EUNSUPPORTED);
	sw_error_free(err);
	sw_device_free(dev);
	rig_down(&r);
}
END_TEST

START_TEST(observe_falls_back_to_the_older_slots)
{
	/* a driver without the observe slot is served by dump_ui, keyboard and log_read */
	struct rig r;
	rig_up(&r);
	sw_device *dev = NULL;
	ck_assert_int_eq(sw_device_open(r.ctx, sd_ops(), NULL, &dev, NULL), SW_OK);
	sd.keyboard = true;
	sw_observe_request q = SW_OBSERVE_REQUEST_INIT;
	q.want_keyboard = 1;
	q.want_log = 1;
	q.log_since = "12-01 20:30:00.000";
	sw_observation o;
	ck_assert_int_eq(sw_device_observe(dev, &q, &o, NULL), SW_OK);
	ck_assert_uint_eq(o.version, SW_OBSERVATION_VERSION);
	ck_assert_str_eq(o.xml, sd.xml);
	ck_assert_int_eq(o.keyboard_shown, 1);
	ck_assert_ptr_nonnull(o.log);
	ck_assert_int_eq(o.frames_before, -1);
	ck_assert_ptr_nonnull(strstr(sd.calls, "dump_ui"));
	ck_assert_ptr_nonnull(strstr(sd.calls, "log_read"));
	sw_observation_clear(&o);
	/* a failed dump is not an error: no hierarchy, the reason */
	sd.fail_slot = "dump_ui";
	sd.fail_code = "SNAPSHOT_FAILED";
	ck_assert_int_eq(sw_device_observe(dev, &q, &o, NULL), SW_OK);
	ck_assert_ptr_null(o.xml);
	ck_assert_ptr_nonnull(o.dump_error);
	sw_observation_clear(&o);
	/* a lost device is */
	sw_error *err = NULL;
	sd.fail_code = "NO_DEVICE";
	ck_assert_int_lt(sw_device_observe(dev, &q, &o, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "NO_DEVICE");
	sw_error_free(err);
	err = NULL;
	/* an unknown request version is refused */
	q.version = 0;
	ck_assert_int_eq(sw_device_observe(dev, &q, &o, &err), SW_EINVAL);
	sw_error_free(err);
	sw_device_free(dev);
	rig_down(&r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("device");
	TCase *tc = tcase_create("scripted");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, info_turns_the_screen_with_the_rotation);
	tcase_add_test(tc, orientation_asks_the_driver);
	tcase_add_test(tc, network_records_the_original_and_restores_without_a_device);
	tcase_add_test(tc, network_refused_changes_nothing);
	tcase_add_test(tc, restore_with_the_device_gone_stays_pending);
	tcase_add_test(tc, geolocation_and_app_control);
	tcase_add_test(tc, recording_is_kept_as_an_artifact);
	tcase_add_test(tc, wait_for_the_device);
	tcase_add_test(tc, each_slot_fails_in_turn);
	tcase_add_test(tc, version_one_tables_keep_working);
	tcase_add_test(tc, observe_falls_back_to_the_older_slots);
	tcase_add_test(tc, version_three_tables_have_no_reverse);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
