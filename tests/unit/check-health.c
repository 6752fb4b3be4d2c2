/* check-health.c: unit tests of app health: the kind->code table, logcat crash/ANR scanning with markers, on-screen
 * error surfaces and overlays, hostile input. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	ck_assert_int_eq(sw_health_scan_ui("not xml <<<", 11, NULL, &out, &err), SW_EPARSE);
	ck_assert_str_eq(sw_error_failure_code(err), "SNAPSHOT_FAILED");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_health_scan_ui("", 0, NULL, &out, &err), SW_EPARSE);
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
	suite_add_tcase(s, tc);
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
