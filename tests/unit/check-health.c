/* check-health.c: unit tests of app health: the kind->code table, logcat crash/ANR scanning with markers, on-screen
 * error surfaces and overlays, hostile input. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scripted-driver.h"
#include "sw-internal.h"

static json_t *scan_logcat(const char *log, const char *opts)
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_health_scan_logcat(log, opts, &out, &err);
	ck_assert_msg(rc == SW_OK, "scan failed: %s", err ? sw_error_message(err) : "?");
	json_t *j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(j);
	sw_free(out);
	return j;
}

static json_t *scan_ui(const char *xml, const char *opts)
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_health_scan_ui(xml, strlen(xml), opts, &out, &err);
	ck_assert_msg(rc == SW_OK, "scan failed: %s", err ? sw_error_message(err) : "?");
	json_t *j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(j);
	sw_free(out);
	return j;
}

static const char *code_at(json_t *r, size_t i)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(r, "findings"), i), "failureCode"));
}

static const char *field_at(json_t *r, size_t i, const char *k)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(r, "findings"), i), k));
}

START_TEST(kind_codes)
{
	ck_assert_str_eq(sw_health_kind_code("native_crash"), "NATIVE_CRASH");
	ck_assert_str_eq(sw_health_kind_code("anr"), "ANR");
	ck_assert_str_eq(sw_health_kind_code("wrong_foreground_app"), "WRONG_FOREGROUND");
	ck_assert_str_eq(sw_health_kind_code("wda_unreachable"), "WDA_UNREACHABLE");
	ck_assert_str_eq(sw_health_kind_code("permission_dialog"), "PERMISSION_DIALOG");
	ck_assert_str_eq(sw_health_kind_code("native_alert"), "NATIVE_ALERT");
	ck_assert_str_eq(sw_health_kind_code("rn_redbox"), "REDBOX");
	ck_assert_str_eq(sw_health_kind_code("rn_logbox_error"), "LOGBOX");
	ck_assert_str_eq(sw_health_kind_code("app_error_boundary"), "ERROR_BOUNDARY");
	ck_assert_str_eq(sw_health_kind_code("webview_error"), "ERROR_BOUNDARY");
	ck_assert_str_eq(sw_health_kind_code("unknown_error_surface"), "BACKEND_ERROR");
	ck_assert_str_eq(sw_health_kind_code("something_else"), "UNKNOWN");
	ck_assert_str_eq(sw_health_kind_code(NULL), "UNKNOWN");
}
END_TEST

static const char native_log[] =
    "--------- beginning of main\n"
    "11-30 10:00:00.100   512   529 I ActivityManager: Start proc 4242:com.example.shop/u0a163\n"
    "11-30 10:00:01.200  4242  4259 F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in "
    "tid 4259 (RenderThread), pid 4242 (com.example.shop)\n"
    "11-30 10:00:01.300  4270  4270 F DEBUG   : *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\n"
    "11-30 10:00:01.300  4270  4270 F DEBUG   : pid: 4242, tid: 4259, name: RenderThread  >>> com.example.shop <<<\n"
    "11-30 10:00:01.400   512   529 I ActivityManager: Process com.example.shop (pid 4242) has died: fg  TOP\n";

START_TEST(native_crash_is_one_finding)
{
	json_t *r = scan_logcat(native_log, "{\"appId\":\"com.example.shop\"}");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 1);
	ck_assert_str_eq(code_at(r, 0), "NATIVE_CRASH");
	ck_assert_str_eq(field_at(r, 0, "kind"), "native_crash");
	ck_assert_str_eq(field_at(r, 0, "severity"), "high");
	ck_assert_str_eq(field_at(r, 0, "layer"), "native");
	ck_assert_str_eq(field_at(r, 0, "logcatAt"), "11-30 10:00:01.200");
	ck_assert_ptr_nonnull(strstr(field_at(r, 0, "detail"), "Fatal signal 11 (SIGSEGV)"));
	ck_assert_ptr_nonnull(strstr(field_at(r, 0, "detail"), "com.example.shop"));
	ck_assert_uint_eq(json_integer_value(json_object_get(r, "linesScanned")), 5);
	json_decref(r);
}
END_TEST

START_TEST(tombstone_alone_and_java_crash)
{
	const char *log =
	    "11-30 10:00:01.300  4270  4270 F DEBUG   : *** *** *** *** *** *** *** ***\n"
	    "11-30 10:00:01.300  4270  4270 F DEBUG   : pid: 4242, tid: 4259, name: x  >>> com.example.shop <<<\n"
	    "11-30 10:00:02.000  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main\n"
	    "11-30 10:00:02.000  4242  4242 E AndroidRuntime: Process: com.example.shop, PID: 4242\n"
	    "11-30 10:00:02.000  4242  4242 E AndroidRuntime: java.lang.NullPointerException: boom\n";
	json_t *r = scan_logcat(log, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 2);
	ck_assert_ptr_nonnull(strstr(field_at(r, 0, "detail"), "tombstone"));
	ck_assert_ptr_nonnull(strstr(field_at(r, 1, "detail"), "java.lang.NullPointerException: boom"));
	ck_assert_str_eq(code_at(r, 1), "NATIVE_CRASH");
	json_decref(r);
}
END_TEST

START_TEST(anr_and_other_apps)
{
	const char *log =
	    "11-30 10:00:03.000   512   530 E ActivityManager: ANR in com.example.shop (com.example.shop/.Main)\n"
	    "11-30 10:00:03.000   512   530 E ActivityManager: PID: 4242\n"
	    "11-30 10:00:03.000   512   530 E ActivityManager: Reason: Input dispatching timed out\n"
	    "11-30 10:00:04.000   512   530 E ActivityManager: ANR in com.other.app\n"
	    "11-30 10:00:05.000  5000  5000 E AndroidRuntime: FATAL EXCEPTION: main\n"
	    "11-30 10:00:05.000  5000  5000 E AndroidRuntime: Process: com.other.app, PID: 5000\n"
	    "11-30 10:00:06.000  6000  6000 E AndroidRuntime: FATAL EXCEPTION: main\n"
	    "11-30 10:00:06.000  6000  6000 E AndroidRuntime: Process: com.example.shop:sync, PID: 6000\n";
	json_t *r = scan_logcat(log, "{\"appId\":\"com.example.shop\"}");
	/* the other app's ANR and crash do not count; the app's own :sync process does */
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 2);
	ck_assert_str_eq(code_at(r, 0), "ANR");
	ck_assert_str_eq(field_at(r, 0, "kind"), "anr");
	ck_assert_ptr_nonnull(strstr(field_at(r, 0, "detail"), "Input dispatching timed out"));
	ck_assert_str_eq(code_at(r, 1), "NATIVE_CRASH");
	json_decref(r);
	/* without an app, every app counts */
	r = scan_logcat(log, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 4);
	json_decref(r);
}
END_TEST

START_TEST(marker_and_since)
{
	json_t *r = scan_logcat(native_log, NULL);
	const char *m = json_string_value(json_object_get(r, "marker"));
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(strncmp(m, "11-30 10:00:01.400#", 19), 0);
	/* the same log after the marker: nothing new */
	char opts[256];
	snprintf(opts, sizeof(opts), "{\"marker\":\"%s\"}", m);
	json_t *r2 = scan_logcat(native_log, opts);
	ck_assert_uint_eq(json_array_size(json_object_get(r2, "findings")), 0);
	ck_assert_uint_eq(json_integer_value(json_object_get(r2, "linesScanned")), 0);
	/* new lines after the marker are read */
	char *more = NULL;
	ck_assert_int_ge(asprintf(&more, "%s%s", native_log,
	                          "11-30 10:00:09.000   512   530 E ActivityManager: ANR in com.example.shop\n"),
	                 0);
	json_t *r3 = scan_logcat(more, opts);
	ck_assert_uint_eq(json_array_size(json_object_get(r3, "findings")), 1);
	ck_assert_str_eq(code_at(r3, 0), "ANR");
	free(more);
	/* lines older than `since` are ignored when the marker is gone (log cleared) */
	json_t *r4 =
	    scan_logcat(native_log, "{\"marker\":\"01-01 00:00:00.000#0000\",\"since\":\"11-30 10:00:01.350\"}");
	ck_assert_uint_eq(json_array_size(json_object_get(r4, "findings")), 0);
	json_decref(r);
	json_decref(r2);
	json_decref(r3);
	json_decref(r4);
}
END_TEST

START_TEST(hostile_logcat)
{
	/* garbage, truncated lines, a lone FATAL EXCEPTION at the end, CRLF endings, invalid UTF-8 */
	const char *log = "\x01\x02garbage\n11-30\n11-30 10:00:0\n"
	                  "11-30 10:00:02.000  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main\r\n"
	                  "11-30 10:00:02.500  4242  4242 X Weird: level\n"
	                  "11-30 10:00:03.000  4242  4242 E ActivityManager: ANR in \xff\xfe\n";
	json_t *r = scan_logcat(log, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 2);
	ck_assert_ptr_nonnull(strstr(field_at(r, 0, "detail"), "(unknown)"));
	ck_assert_ptr_nonnull(json_dumps(r, 0)); /* valid UTF-8 all the way */
	json_decref(r);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_health_scan_logcat("", "[1]", &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_health_scan_logcat(NULL, NULL, &out, &err), SW_EINVAL);
	sw_error_free(err);
	json_t *e = scan_logcat("", NULL);
	ck_assert(json_is_null(json_object_get(e, "marker")));
	json_decref(e);
}
END_TEST

#define HIER_OPEN "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
#define NODE(cls, text, rid, desc, pkg, b)                                                                             \
	"<node index=\"0\" text=\"" text "\" resource-id=\"" rid "\" class=\"" cls "\" package=\"" pkg                 \
	"\" content-desc=\"" desc "\" clickable=\"true\" bounds=\"" b "\" />"

START_TEST(redbox_logbox_boundary)
{
	const char *xml =
	    HIER_OPEN NODE("android.widget.TextView", "Render Error", "com.example.shop:id/rn_redbox_title", "",
	                   "com.example.shop", "[30,100][1050,220]")
	        NODE("android.widget.TextView", "Invariant Violation: Element type is invalid", "", "",
	             "com.example.shop", "[30,240][1050,600]")
	            NODE("android.widget.Button", "Dismiss (ESC)", "com.example.shop:id/rn_redbox_dismiss_button", "",
	                 "com.example.shop", "[30,2180][520,2300]") "</hierarchy>";
	json_t *r = scan_ui(xml, "{\"appId\":\"com.example.shop\"}");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 1);
	ck_assert_str_eq(code_at(r, 0), "REDBOX");
	ck_assert_str_eq(field_at(r, 0, "layer"), "app");
	ck_assert_str_eq(field_at(r, 0, "detail"), "React Native RedBox: Render Error");
	ck_assert_str_eq(field_at(r, 0, "evidence"), "Invariant Violation: Element type is invalid");
	json_t *ov = json_array_get(json_object_get(r, "overlays"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(ov, "kind")), "rn_redbox");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(ov, "dismiss"), "x")), 275);
	ck_assert(json_is_false(json_object_get(ov, "backDismissible")));
	json_decref(r);

	xml = HIER_OPEN NODE("android.view.ViewGroup", "", "", "LogBox notification: Warning: key", "com.example.shop",
	                     "[20,2180][1060,2320]") NODE("android.widget.TextView", "! Warning: unique key", "", "",
	                                                  "com.example.shop", "[60,2200][900,2300]")
	    NODE("android.widget.TextView", "Something went wrong", "", "", "com.example.shop", "[60,300][1020,420]")
	        NODE("android.widget.TextView", "TypeError: x is undefined", "", "", "com.example.shop",
	             "[60,450][1020,570]") "</hierarchy>";
	r = scan_ui(xml, "{\"appId\":\"com.example.shop\"}");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 2);
	ck_assert_str_eq(code_at(r, 0), "LOGBOX");
	ck_assert_str_eq(field_at(r, 0, "severity"), "medium");
	ck_assert_str_eq(code_at(r, 1), "ERROR_BOUNDARY");
	ck_assert_str_eq(field_at(r, 1, "kind"), "app_error_boundary");
	json_decref(r);
}
END_TEST

START_TEST(dialogs)
{
	const char *perm = HIER_OPEN NODE("android.widget.TextView", "Allow Shop to send you notifications?",
	                                  "com.android.permissioncontroller:id/permission_message", "",
	                                  "com.google.android.permissioncontroller", "[120,840][960,1100]")
	    NODE("android.widget.Button", "Allow", "com.android.permissioncontroller:id/permission_allow_button", "",
	         "com.google.android.permissioncontroller", "[120,1200][960,1340]")
	        NODE("android.widget.Button", "Don&apos;t allow",
	             "com.android.permissioncontroller:id/permission_deny_button", "",
	             "com.google.android.permissioncontroller", "[120,1380][960,1520]") "</hierarchy>";
	json_t *r = scan_ui(perm, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 1);
	ck_assert_str_eq(code_at(r, 0), "PERMISSION_DIALOG");
	ck_assert_str_eq(field_at(r, 0, "evidence"), "Allow Shop to send you notifications?");
	json_t *ov = json_array_get(json_object_get(r, "overlays"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(ov, "allow"), "y")), 1270);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(ov, "deny"), "y")), 1450);
	json_decref(r);

	const char *alert = HIER_OPEN NODE("android.widget.TextView", "Delete account?", "android:id/alertTitle", "",
	                                   "com.example.shop", "[150,1000][930,1100]")
	    NODE("android.widget.Button", "Cancel", "android:id/button2", "", "com.example.shop",
	         "[150,1300][500,1420]") "</hierarchy>";
	r = scan_ui(alert, NULL);
	ck_assert_str_eq(code_at(r, 0), "NATIVE_ALERT");
	ck_assert_str_eq(field_at(r, 0, "detail"), "Native alert: Delete account?");
	ov = json_array_get(json_object_get(r, "overlays"), 0);
	ck_assert(json_is_true(json_object_get(ov, "backDismissible")));
	json_decref(r);

	const char *anr = HIER_OPEN NODE("android.widget.TextView", "Shop isn't responding", "android:id/alertTitle",
	                                 "", "android", "[150,1000][930,1100]") "</hierarchy>";
	r = scan_ui(anr, NULL);
	ck_assert_str_eq(code_at(r, 0), "ANR");
	json_decref(r);
	const char *crash = HIER_OPEN NODE("android.widget.TextView", "Shop keeps stopping", "android:id/alertTitle",
	                                   "", "android", "[150,1000][930,1100]") "</hierarchy>";
	r = scan_ui(crash, NULL);
	ck_assert_str_eq(code_at(r, 0), "NATIVE_CRASH");
	json_decref(r);
	/* an ordinary screen: nothing */
	const char *plain = HIER_OPEN NODE("android.widget.Button", "Add to cart", "com.example.shop:id/add", "",
	                                   "com.example.shop", "[60,300][1020,420]") "</hierarchy>";
	r = scan_ui(plain, "{\"appId\":\"com.example.shop\"}");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "overlays")), 0);
	json_decref(r);
}
END_TEST

START_TEST(hostile_ui)
{
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_health_scan_ui("not xml <<<", 11, NULL, &out, &err), SW_EDEVICE);
	ck_assert_str_eq(sw_error_failure_code(err), "SNAPSHOT_FAILED");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_health_scan_ui("", 0, NULL, &out, &err), SW_EDEVICE);
	sw_error_free(err);
	err = NULL;
	/* an external entity is never fetched; bad bounds are tolerated */
	const char *xxe = "<?xml version='1.0'?><!DOCTYPE h [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
	                  "<hierarchy><node text='&x;' bounds='garbage' class='' resource-id='' package='' "
	                  "content-desc=''/></hierarchy>";
	int rc = sw_health_scan_ui(xxe, strlen(xxe), NULL, &out, &err);
	if (rc == SW_OK) {
		ck_assert_ptr_null(strstr(out, "root:"));
		sw_free(out);
	} else {
		sw_error_free(err);
	}
}
END_TEST


/* ---- the whole check on the scripted driver (no adb) ------------------------------------ */

static char tmp[256];

struct rig {
	sw_ctx *ctx;
	sw_store *store;
	sw_session *s;
	sw_device *dev;
};

static void rig_up(struct rig *r)
{
	snprintf(tmp, sizeof(tmp), "/tmp/check-health-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	char home[512];
	snprintf(home, sizeof(home), "%s/home", tmp);
	ck_assert_int_eq(mkdir(home, 0700), 0);
	sd_reset();
	ck_assert_int_eq(sw_ctx_new(&r->ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(r->ctx, home, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(r->ctx, &r->store, NULL), SW_OK);
	ck_assert_int_eq(sw_session_create(r->store, tmp, "arg", NULL, &r->s, NULL), SW_OK);
	ck_assert_int_eq(
	    sw_session_set_json(r->s, "device", "{\"serial\":\"emulator-5554\",\"platform\":\"scripted\"}", NULL), SW_OK);
	ck_assert_int_eq(sw_session_set_json(r->s, "appId", "\"com.example.app\"", NULL), SW_OK);
	ck_assert_int_eq(sw_device_open(r->ctx, sd_ops(), NULL, &r->dev, NULL), SW_OK);
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

/* "MM-DD HH:MM:SS.000" @ahead seconds from now, UTC (the scripted device's log clock: offset 0). */
static void stamp(int ahead, char out[32])
{
	time_t t = time(NULL) + ahead;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%m-%d %H:%M:%S.000", &tm);
}

static json_t *check(struct rig *r, sw_error **err)
{
	char *out = NULL;
	int rc = sw_health_check(r->ctx, r->s, r->dev, NULL, &out, err);
	if (rc != SW_OK)
		return NULL;
	json_t *j = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_ptr_nonnull(j);
	return j;
}

static size_t recorded_of_kind(sw_session *s, const char *kind)
{
	char *t = NULL;
	ck_assert_int_eq(sw_session_get_json(s, "findings", &t, NULL), SW_OK);
	json_t *a = json_loads(t ? t : "[]", 0, NULL);
	sw_free(t);
	size_t n = 0, i;
	json_t *f;
	json_array_foreach(a, i, f) n += json_string_value(json_object_get(f, "kind")) &&
	                                !strcmp(json_string_value(json_object_get(f, "kind")), kind);
	json_decref(a);
	return n;
}

START_TEST(check_on_scripted_driver)
{
	struct rig r;
	rig_up(&r);
	sw_error *err = NULL;
	json_t *h = check(&r, &err);
	ck_assert_msg(h != NULL, "%s", err ? sw_error_message(err) : "");
	ck_assert(json_is_true(json_object_get(h, "healthy")));
	ck_assert_str_eq(json_string_value(json_object_get(h, "verdict")), "healthy");
	json_t *c = json_object_get(h, "checked");
	ck_assert(json_is_true(json_object_get(c, "logcat")) && json_is_true(json_object_get(c, "foreground")) &&
	          json_is_true(json_object_get(c, "ui")));
	json_decref(h);
	ck_assert_ptr_nonnull(strstr(sd.calls, "log_read"));
	ck_assert_ptr_nonnull(strstr(sd.calls, "foreground"));
	ck_assert_ptr_nonnull(strstr(sd.calls, "dump_ui"));

	/* a crash after the session started, then the app is gone from the foreground */
	char t1[32], t2[32];
	stamp(2, t1);
	stamp(3, t2);
	char *log = sw__asprintf("%s  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main\n"
	                         "%s  4242  4242 E AndroidRuntime: Process: com.example.app, PID: 4242\n"
	                         "%s  4242  4242 E AndroidRuntime: java.lang.IllegalStateException: boom\n",
	                         t1, t1, t2);
	sd.logcat = log;
	sd.fg_pkg = "com.android.launcher3";
	h = check(&r, &err);
	ck_assert_ptr_nonnull(h);
	ck_assert(json_is_false(json_object_get(h, "healthy")));
	ck_assert_str_eq(json_string_value(json_object_get(h, "verdict")), "findings");
	ck_assert_str_eq(code_at(h, 0), "NATIVE_CRASH");
	ck_assert_ptr_nonnull(strstr(field_at(h, 0, "detail"), "IllegalStateException"));
	ck_assert_str_eq(code_at(h, 1), "WRONG_FOREGROUND");
	json_decref(h);
	ck_assert_uint_eq(recorded_of_kind(r.s, "native_crash"), 1);
	/* the next check starts from the marker: the crash is not found twice */
	sd.fg_pkg = "com.example.app";
	h = check(&r, &err);
	ck_assert(json_is_true(json_object_get(h, "healthy")));
	json_decref(h);
	ck_assert_uint_eq(recorded_of_kind(r.s, "native_crash"), 1);
	free(log);
	rig_down(&r);
}
END_TEST

START_TEST(a_check_that_could_not_look_is_not_healthy)
{
	struct rig r;
	rig_up(&r);
	sw_error *err = NULL;
	/* one read fails: degraded, and the part that was not checked is named */
	sd.fail_slot = "dump_ui";
	sd.fail_code = "SNAPSHOT_FAILED";
	json_t *h = check(&r, &err);
	ck_assert_ptr_nonnull(h);
	ck_assert(json_is_false(json_object_get(h, "healthy")));
	ck_assert_str_eq(json_string_value(json_object_get(h, "verdict")), "degraded");
	ck_assert(json_is_false(json_object_get(json_object_get(h, "checked"), "ui")));
	ck_assert_str_eq(field_at(h, 0, "kind"), "health_unchecked");
	ck_assert_ptr_nonnull(strstr(field_at(h, 0, "detail"), "the screen"));
	json_decref(h);
	ck_assert_uint_eq(recorded_of_kind(r.s, "health_unchecked"), 1);

	/* the device dropped: an error naming the device, never "healthy", and the session keeps a finding */
	sd.fail_slot = NULL;
	sd.fail_all = true;
	sd.fail_code = "NO_DEVICE";
	h = check(&r, &err);
	ck_assert_ptr_null(h);
	ck_assert_str_eq(sw_error_failure_code(err), "NO_DEVICE");
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "could not reach the device"));
	json_t *d = sw__error_details(err);
	ck_assert(json_is_false(json_object_get(json_object_get(d, "checked"), "logcat")));
	ck_assert(json_is_false(json_object_get(json_object_get(d, "checked"), "foreground")));
	sw_error_free(err);
	err = NULL;
	ck_assert_uint_eq(recorded_of_kind(r.s, "health_unchecked"), 2);

	/* it comes back */
	sd.fail_all = false;
	h = check(&r, &err);
	ck_assert(json_is_true(json_object_get(h, "healthy")));
	json_decref(h);
	rig_down(&r);
}
END_TEST

START_TEST(clear_overlay_on_scripted_driver)
{
	struct rig r;
	rig_up(&r);
	sd.keyboard = true;
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_health_clear_overlay(r.ctx, r.s, r.dev, NULL, &out, &err), SW_OK);
	json_t *j = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_str_eq(json_string_value(json_object_get(j, "applied")), "hide_keyboard");
	ck_assert(json_is_true(json_object_get(j, "keyboardHidden")));
	json_decref(j);
	ck_assert_ptr_nonnull(strstr(sd.calls, "hide_keyboard"));
	/* nothing on screen: BACK is not pressed */
	sd.calls[0] = '\0';
	ck_assert_int_eq(sw_health_clear_overlay(r.ctx, r.s, r.dev, "{\"strategy\":\"press_back\"}", &out, &err), SW_OK);
	sw_free(out);
	ck_assert_ptr_null(strstr(sd.calls, "press_key(back)"));
	rig_down(&r);
}
END_TEST

/* iOS: the simulator driver's threadtime lines carry the app's bundle id as their tag */
START_TEST(ios_uncaught_exception)
{
	const char *log =
	    "12-02 10:00:00.100  1042 10779 I SpringBoard: [com.apple.SpringBoard:Common] Application launched\n"
	    "12-02 10:00:01.101  4102 12738 E com.example.shop: [General] *** Terminating app due to uncaught exception "
	    "'NSInvalidArgumentException', reason: '-[Cart add:]: unrecognized selector'\n"
	    "12-02 10:00:02.102  5120 16834 E Weather: [General] *** Terminating app due to uncaught exception 'X'\n";
	json_t *r = scan_logcat(log, "{\"appId\":\"com.example.shop\"}");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 1);
	ck_assert_str_eq(code_at(r, 0), "NATIVE_CRASH");
	ck_assert_ptr_nonnull(strstr(field_at(r, 0, "detail"), "com.example.shop"));
	ck_assert_ptr_nonnull(strstr(field_at(r, 0, "detail"), "NSInvalidArgumentException"));
	json_decref(r);
	r = scan_logcat(log, NULL); /* without an app, every app's crash counts */
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 2);
	json_decref(r);
}
END_TEST

static Suite *health_suite(void)
{
	Suite *s = suite_create("health");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, kind_codes);
	tcase_add_test(tc, native_crash_is_one_finding);
	tcase_add_test(tc, tombstone_alone_and_java_crash);
	tcase_add_test(tc, anr_and_other_apps);
	tcase_add_test(tc, marker_and_since);
	tcase_add_test(tc, hostile_logcat);
	tcase_add_test(tc, redbox_logbox_boundary);
	tcase_add_test(tc, dialogs);
	tcase_add_test(tc, hostile_ui);
	tcase_add_test(tc, ios_uncaught_exception);
	suite_add_tcase(s, tc);
	TCase *td = tcase_create("scripted");
	tcase_set_timeout(td, 60);
	tcase_add_test(td, check_on_scripted_driver);
	tcase_add_test(td, a_check_that_could_not_look_is_not_healthy);
	tcase_add_test(td, clear_overlay_on_scripted_driver);
	suite_add_tcase(s, td);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(health_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
