/* check-android.c: unit tests of the adb driver's pure parts: text escaping, devices -l, getprop, dumpsys, discovery.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sw-internal.h"
#include <swipium/artifacts.h>
#include "../../libswipium/drivers/android/android-internal.h"
#include "../../libswipium/drivers/android/observe.h"

static char *words_json(const char *text)
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_android_input_text_args(text, &out, &err);
	ck_assert_msg(rc == 0, "rejected: %s", text);
	return out;
}

START_TEST(test_reverse_list_parse)
{
	/* adbd names the transport differently across versions; the last two fields are what counts */
	json_t *a = sw__android_parse_reverse_list("host-19 tcp:8081 tcp:8081\nUsbFfs tcp:9000 tcp:9001\n\ngarbage\n");
	ck_assert_uint_eq(json_array_size(a), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 1), "device")), "tcp:9000");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 1), "host")), "tcp:9001");
	json_decref(a);
	a = sw__android_parse_reverse_list("");
	ck_assert_uint_eq(json_array_size(a), 0);
	json_decref(a);
}
END_TEST

START_TEST(test_input_text_escaping)
{
	char *j;
	j = words_json("hello world");
	ck_assert_str_eq(j, "[\"'hello%sworld'\"]");
	sw_free(j);
	/* shell-special characters stay literal inside single quotes; a quote is closed, escaped, reopened */
	j = words_json("a'b\"c$d`e\\f*g?h[i]{j}|k;l&m<n>o(p)~#!");
	ck_assert_str_eq(j, "[\"'a'\\\\''b\\\"c$d`e\\\\f*g?h[i]{j}|k;l&m<n>o(p)~#!'\"]");
	sw_free(j);
	/* a literal %s is split so input never turns it into a space */
	j = words_json("50%sale");
	ck_assert_str_eq(j, "[\"'50%'\",\"'sale'\"]");
	sw_free(j);
	j = words_json("% s");
	ck_assert_str_eq(j, "[\"'%%ss'\"]");
	sw_free(j);
	j = words_json("");
	ck_assert_str_eq(j, "[\"''\"]");
	sw_free(j);

	const char *bad[] = {"caf\xc3\xa9", "tab\there", "new\nline", "\x7f"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(bad); i++) {
		char *out = NULL;
		sw_error *err = NULL;
		ck_assert_int_eq(sw_android_input_text_args(bad[i], &out, &err), SW_EUNSUPPORTED);
		ck_assert_str_eq(sw_error_failure_code(err), "TEXT_INPUT_UNSUPPORTED");
		ck_assert_ptr_null(out);
		sw_error_free(err);
	}
}
END_TEST

START_TEST(test_shell_quote)
{
	char *q = sw__android_shell_quote("it's");
	ck_assert_str_eq(q, "'it'\\''s'");
	free(q);
	q = sw__android_shell_quote("https://x.test/a?b=1&c=$(reboot)");
	ck_assert_str_eq(q, "'https://x.test/a?b=1&c=$(reboot)'");
	free(q);
}
END_TEST

START_TEST(test_devices_parse)
{
	const char *out =
	    "* daemon not running; starting now at tcp:5037\n"
	    "* daemon started successfully\n"
	    "List of devices attached\n"
	    "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 "
	    "device:emu64xa transport_id:1\r\n"
	    "R58M123ABC             unauthorized usb:1-1 transport_id:2\n"
	    "localhost:5555         offline transport_id:3\n"
	    "0123456789ABCDEF       no permissions (user in plugdev group; are your udev rules wrong?); see "
	    "[http://developer.android.com/tools/device.html] usb:1-2 transport_id:4\n"
	    "\n";
	json_t *a = sw__android_parse_devices(out);
	ck_assert_int_eq(json_array_size(a), 4);
	json_t *d = json_array_get(a, 0);
	ck_assert_str_eq(json_string_value(json_object_get(d, "serial")), "emulator-5554");
	ck_assert_str_eq(json_string_value(json_object_get(d, "state")), "device");
	ck_assert_str_eq(json_string_value(json_object_get(d, "model")), "sdk_gphone64_x86_64");
	ck_assert_str_eq(json_string_value(json_object_get(d, "transportId")), "1");
	d = json_array_get(a, 1);
	ck_assert_str_eq(json_string_value(json_object_get(d, "state")), "unauthorized");
	ck_assert(json_is_null(json_object_get(d, "model")));
	d = json_array_get(a, 3);
	ck_assert_str_eq(json_string_value(json_object_get(d, "serial")), "0123456789ABCDEF");
	ck_assert_str_eq(json_string_value(json_object_get(d, "state")), "no permissions");
	ck_assert_str_eq(json_string_value(json_object_get(d, "transportId")), "4");
	json_decref(a);
	a = sw__android_parse_devices("List of devices attached\n\n");
	ck_assert_int_eq(json_array_size(a), 0);
	json_decref(a);
	a = sw__android_parse_devices("garbage-without-state\n\x01\x02\n");
	ck_assert_int_eq(json_array_size(a), 0);
	json_decref(a);
}
END_TEST

START_TEST(test_serial_rule)
{
	ck_assert(sw__android_serial_is_emulator("emulator-5554"));
	ck_assert(sw__android_serial_is_emulator("emulator-40001"));
	ck_assert(!sw__android_serial_is_emulator("emulator-"));
	ck_assert(!sw__android_serial_is_emulator("emulator-55x4"));
	ck_assert(!sw__android_serial_is_emulator("localhost:5555"));
	ck_assert(!sw__android_serial_is_emulator("R58M123ABC"));
}
END_TEST

START_TEST(test_getprop_parse_and_detection)
{
	json_t *p = sw__android_parse_getprop("[ro.kernel.qemu]: [1]\n[ro.product.model]: [sdk gphone]\r\n"
	                                      "[multi]: [line\nbroken]\n[empty]: []\nnot a prop line\n");
	ck_assert_str_eq(json_string_value(json_object_get(p, "ro.kernel.qemu")), "1");
	ck_assert_str_eq(json_string_value(json_object_get(p, "ro.product.model")), "sdk gphone");
	ck_assert_str_eq(json_string_value(json_object_get(p, "empty")), "");
	ck_assert_ptr_null(json_object_get(p, "multi"));
	ck_assert_int_eq(sw__android_props_are_emulator(p), 1);
	json_decref(p);

	const char *emu[] = {"[ro.boot.qemu]: [1]\n", "[ro.hardware]: [ranchu]\n", "[ro.hardware]: [goldfish]\n",
	                     "[ro.product.manufacturer]: [Genymotion]\n", "[ro.product.device]: [vbox86p]\n"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(emu); i++) {
		p = sw__android_parse_getprop(emu[i]);
		ck_assert_msg(sw__android_props_are_emulator(p) == 1, "not an emulator: %s", emu[i]);
		json_decref(p);
	}
	p = sw__android_parse_getprop(
	    "[ro.kernel.qemu]: [0]\n[ro.hardware]: [qcom]\n[ro.product.manufacturer]: [samsung]\n");
	ck_assert_int_eq(sw__android_props_are_emulator(p), 0);
	json_decref(p);
}
END_TEST

START_TEST(test_dumpsys_parsers)
{
	char *pkg, *act;
	ck_assert(sw__android_parse_focus(
	    "  mCurrentFocus=Window{3b1e2f u0 com.example.login/com.example.login.MainActivity}\n", &pkg, &act));
	ck_assert_str_eq(pkg, "com.example.login");
	ck_assert_str_eq(act, "com.example.login.MainActivity");
	free(pkg);
	free(act);
	ck_assert(sw__android_parse_focus("  mFocusedApp=ActivityRecord{9c u0 com.x.y/.Main t12}\n", &pkg, &act));
	ck_assert_str_eq(pkg, "com.x.y");
	ck_assert_str_eq(act, "com.x.y.Main");
	free(pkg);
	free(act);
	ck_assert(!sw__android_parse_focus("mCurrentFocus=null\n", &pkg, &act));

	ck_assert(sw__android_parse_ime_shown("  mInputShown=true\n"));
	ck_assert(!sw__android_parse_ime_shown("  mInputShown=false\n"));
	int f[4];
	ck_assert(
	    sw__android_parse_ime_frame("Window #3 Window{a u0 InputMethod}:\n    mFrame=[0,1500][1080,2400]\n", f));
	ck_assert_int_eq(f[1], 1500);
	ck_assert_int_eq(f[3], 2400);
	ck_assert(!sw__android_parse_ime_frame("nothing here", f));
	/* `dumpsys window windows`: only the InputMethod window's own frame counts */
	const char *windows = "  Window #0 Window{2b8c4d1 u0 com.x/com.x.Main}:\n"
	                      "    Frames: parent=[0,0][1080,2400] display=[0,0][1080,2400] frame=[0,0][1080,2400]\n"
	                      "  Window #1 Window{4c3a1f2 u0 InputMethod}:\n"
	                      "    mHaveFrame=true\n"
	                      "    Frames: parent=[0,0][1080,2400] display=[0,0][1080,2400] frame=[0,1560][1080,2400]\n"
	                      "  Window #2 Window{7d u0 com.x/com.x.Other}:\n    frame=[0,0][10,10]\n";
	ck_assert(sw__android_parse_ime_frame(windows, f));
	ck_assert_int_eq(f[1], 1560);
	ck_assert_int_eq(f[2], 1080);

	int w, h;
	ck_assert(sw__android_parse_wm_size("Physical size: 1080x2400\n", &w, &h));
	ck_assert_int_eq(w, 1080);
	ck_assert(sw__android_parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n", &w, &h));
	ck_assert_int_eq(w, 720);
	ck_assert(!sw__android_parse_wm_size("error", &w, &h));
}
END_TEST

START_TEST(test_failure_codes)
{
	ck_assert_str_eq(sw__android_failure_code("error: device 'emulator-5556' not found"), "NO_DEVICE");
	ck_assert_str_eq(sw__android_failure_code("error: no devices/emulators found"), "NO_DEVICE");
	ck_assert_str_eq(sw__android_failure_code("error: device offline"), "DEVICE_NOT_READY");
	ck_assert_str_eq(sw__android_failure_code("error: device unauthorized."), "DEVICE_NOT_READY");
	ck_assert_str_eq(sw__android_failure_code("error: more than one device/emulator"), "MULTIPLE_DEVICES");
	ck_assert_str_eq(sw__android_failure_code("error: closed"), "NO_DEVICE");
	ck_assert_str_eq(sw__android_install_failure_code("Failure [INSTALL_FAILED_NO_MATCHING_ABIS: x]"),
	                 "APK_ARCH_INCOMPATIBLE");
	ck_assert_str_eq(sw__android_install_failure_code("Failure [INSTALL_FAILED_OLDER_SDK]"),
	                 "ANDROID_MIN_SDK_INCOMPATIBLE");
	ck_assert_str_eq(sw__android_install_failure_code("Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: sig]"),
	                 "ANDROID_SIGNATURE_CONFLICT");
	ck_assert_str_eq(sw__android_install_failure_code("Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]"),
	                 "INSTALL_FAILED");
	/* the lines real devices print (adb install on Android 7-14) */
	static const struct {
		const char *line, *code;
	} real[] = {
	    {"adb: failed to install app.apk: Failure [INSTALL_FAILED_NO_MATCHING_ABIS: INSTALL_FAILED_NO_MATCHING_ABIS: "
	     "Failed to extract native libraries, res=-113]",
	     "APK_ARCH_INCOMPATIBLE"},
	    {"Failure [INSTALL_FAILED_CPU_ABI_INCOMPATIBLE]", "APK_ARCH_INCOMPATIBLE"},
	    {"adb: failed to install app.apk: Failure [INSTALL_FAILED_OLDER_SDK: Failed parse during installPackageLI: "
	     "/data/app/vmdl1418865208.tmp/base.apk (at Binary XML file line #7): Requires newer sdk version #34 "
	     "(current version is #33)]",
	     "ANDROID_MIN_SDK_INCOMPATIBLE"},
	    {"Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package com.example signatures do not match previously "
	     "installed version; ignoring!]",
	     "ANDROID_SIGNATURE_CONFLICT"},
	    {"Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package com.example signatures do not match newer "
	     "version; ignoring!]",
	     "ANDROID_SIGNATURE_CONFLICT"},
	    {"Failure [INSTALL_PARSE_FAILED_INCONSISTENT_CERTIFICATES: Package couldn't be installed in "
	     "/data/app/com.example-1: Package /data/app/com.example-1/base.apk has mismatched certificates at entry "
	     "AndroidManifest.xml]",
	     "ANDROID_SIGNATURE_CONFLICT"},
	    {"Failure [INSTALL_FAILED_VERSION_DOWNGRADE]", "INSTALL_FAILED"},
	    {"Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/vmdl.tmp/base.apk]", "INSTALL_FAILED"},
	};
	for (size_t i = 0; i < SW_ARRAY_SIZE(real); i++)
		ck_assert_str_eq(sw__android_install_failure_code(real[i].line), real[i].code);
}
END_TEST

START_TEST(test_install_check)
{
	static const char props[] = "{\"sdk\":\"33\",\"abis\":[\"x86_64\",\"arm64-v8a\"]}";
	sw_error *err = NULL;
	char *out = NULL;
	/* no native code, minSdk below: fine, and the comparison is reported */
	ck_assert_int_eq(sw_artifact_install_check("{\"minSdk\":21,\"abis\":[]}", props, &out, &err), SW_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"deviceSdk\":33"));
	sw_free(out);
	ck_assert_int_eq(sw_artifact_install_check("{\"minSdk\":33,\"abis\":[\"armeabi-v7a\",\"x86_64\"]}", props,
	                                           NULL, NULL),
	                 SW_OK);
	/* arm only on an x86_64 image */
	ck_assert_int_eq(sw_artifact_install_check("{\"minSdk\":21,\"abis\":[\"armeabi-v7a\"]}", props, NULL, &err),
	                 SW_EUNSUPPORTED);
	ck_assert_str_eq(sw_error_failure_code(err), "APK_ARCH_INCOMPATIBLE");
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "armeabi-v7a"));
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_artifact_install_check("{\"minSdk\":34,\"abis\":null}", props, NULL, &err), SW_EUNSUPPORTED);
	ck_assert_str_eq(sw_error_failure_code(err), "ANDROID_MIN_SDK_INCOMPATIBLE");
	ck_assert_ptr_nonnull(strstr(sw_error_details_json(err), "\"minSdk\":34"));
	sw_error_free(err);
	err = NULL;
	/* what either side does not tell is left to the device */
	ck_assert_int_eq(sw_artifact_install_check("{\"minSdk\":\"UpsideDownCake\",\"abis\":[\"mips\"]}",
	                                           "{\"sdk\":null,\"abis\":[]}", &out, NULL),
	                 SW_OK);
	ck_assert_ptr_nonnull(strstr(out, "the device itself decides"));
	sw_free(out);
	ck_assert_int_eq(sw_artifact_install_check("not json", props, NULL, NULL), SW_EINVAL);
}
END_TEST

static void make_exec(const char *path)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	chmod(path, 0755);
}

START_TEST(test_tool_discovery)
{
	char tmpl[] = "/tmp/sw-android-XXXXXX";
	char *dir = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(dir);
	char path[512];
	snprintf(path, sizeof(path), "%s/sdk/platform-tools", dir);
	ck_assert_int_eq(sw__mkdirs(path, 0700, NULL), 0);
	snprintf(path, sizeof(path), "%s/sdk/emulator", dir);
	ck_assert_int_eq(sw__mkdirs(path, 0700, NULL), 0);
	snprintf(path, sizeof(path), "%s/sdk/platform-tools/adb", dir);
	make_exec(path);
	snprintf(path, sizeof(path), "%s/sdk/emulator/emulator", dir);
	make_exec(path);
	snprintf(path, sizeof(path), "%s/bin", dir);
	ck_assert_int_eq(sw__mkdirs(path, 0700, NULL), 0);
	snprintf(path, sizeof(path), "%s/home/Android/Sdk", dir);
	ck_assert_int_eq(sw__mkdirs(path, 0700, NULL), 0);

	char sdk[512], bin[512], home[512];
	snprintf(sdk, sizeof(sdk), "%s/sdk", dir);
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(home, sizeof(home), "%s/home", dir);
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	/* ANDROID_HOME wins, adb not on PATH: the SDK copy */
	setenv("PATH", bin, 1);
	setenv("ANDROID_HOME", sdk, 1);
	setenv("ANDROID_SDK_ROOT", "/nonexistent", 1);
	sw__android_tools t;
	sw__android_tools_find(home, &t);
	ck_assert_str_eq(t.sdk, sdk);
	ck_assert_str_eq(t.sdk_source, "env:ANDROID_HOME");
	ck_assert_str_eq(t.adb_source, "sdk");
	ck_assert_ptr_nonnull(strstr(t.emulator, "/sdk/emulator/emulator"));
	sw__android_tools_clear(&t);

	/* adb on PATH comes first */
	snprintf(path, sizeof(path), "%s/bin/adb", dir);
	make_exec(path);
	sw__android_tools_find(home, &t);
	ck_assert_str_eq(t.adb, path);
	ck_assert_str_eq(t.adb_source, "PATH");
	sw__android_tools_clear(&t);

	/* no env: ~/Android/Sdk */
	unsetenv("ANDROID_HOME");
	unsetenv("ANDROID_SDK_ROOT");
	sw__android_tools_find(home, &t);
	ck_assert_str_eq(t.sdk_source, "default");
	ck_assert_ptr_nonnull(strstr(t.sdk, "/home/Android/Sdk"));
	ck_assert_ptr_null(t.emulator);
	sw__android_tools_clear(&t);

	/* no adb anywhere: ADB_NOT_FOUND from the public calls */
	unlink(path);
	sw_ctx *ctx = NULL;
	ck_assert_int_eq(sw_ctx_new(&ctx, NULL), 0);
	sw_ctx_set_home(ctx, home, NULL);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_lt(sw_android_devices(ctx, 0, &out, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "ADB_NOT_FOUND");
	sw_error_free(err);
	err = NULL;
	sw_device *dev = NULL;
	ck_assert_int_lt(sw_device_open(ctx, sw_driver_android(), NULL, &dev, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "ADB_NOT_FOUND");
	ck_assert_ptr_null(dev);
	sw_error_free(err);
	sw_ctx_free(ctx);
	if (old_path) {
		setenv("PATH", old_path, 1);
		free(old_path);
	}
}
END_TEST

START_TEST(test_proc_runner)
{
	sw__proc_result r;
	const char *ok[] = {"/bin/sh", "-c", "printf out; printf err >&2; exit 3", NULL};
	ck_assert_int_eq(sw__proc_run(ok, NULL, &r, NULL), 0);
	ck_assert_str_eq(r.out, "out");
	ck_assert_str_eq(r.err, "err");
	ck_assert_int_eq(r.status, 3);
	sw__proc_result_clear(&r);
	/* a hung child is killed at the deadline */
	const char *hang[] = {"/bin/sh", "-c", "sleep 30", NULL};
	sw__proc_opts o = {.timeout_ms = 200};
	ck_assert_int_eq(sw__proc_run(hang, &o, &r, NULL), 0);
	ck_assert(r.timed_out);
	ck_assert_int_eq(r.status, -1);
	sw__proc_result_clear(&r);
	/* cancellation */
	volatile int cancel = 1;
	sw__proc_opts oc = {.timeout_ms = 10000, .cancel = &cancel};
	ck_assert_int_eq(sw__proc_run(hang, &oc, &r, NULL), 0);
	ck_assert(r.cancelled);
	sw__proc_result_clear(&r);
	/* no shell interpretation of arguments */
	const char *echo[] = {"/bin/echo", "$(id)", ";", "rm -rf /", NULL};
	ck_assert_int_eq(sw__proc_run(echo, NULL, &r, NULL), 0);
	ck_assert_str_eq(r.out, "$(id) ; rm -rf /\n");
	sw__proc_result_clear(&r);
	/* missing tool, relative path */
	sw_error *err = NULL;
	const char *missing[] = {"/nonexistent/adb", NULL};
	ck_assert_int_lt(sw__proc_run(missing, NULL, &r, &err), 0);
	sw_error_free(err);
	err = NULL;
	const char *rel[] = {"adb", NULL};
	ck_assert_int_eq(sw__proc_run(rel, NULL, &r, &err), SW_EINVAL);
	sw_error_free(err);
}
END_TEST


/* The act loop's one-invocation observation: the script it sends and how its output is read. */
START_TEST(test_observe_script_and_parse)
{
	sw__android_obs_req q = {.nonce = "k3y9", .frames_pkg = "com.example.login", .stream_dump = true,
	                         .want_keyboard = true, .want_log = true, .log_since = "12-01 20:30:00.123"};
	char *script = sw__android_observe_script(&q);
	ck_assert_ptr_nonnull(script);
	ck_assert_ptr_nonnull(strstr(script, "dumpsys gfxinfo com.example.login"));
	ck_assert_ptr_nonnull(strstr(script, "uiautomator dump /dev/tty"));
	ck_assert_ptr_nonnull(strstr(script, "-T '12-01 20:30:00.123'"));
	ck_assert_ptr_nonnull(strstr(script, "echo @@swipium-obs-k3y9:end"));
	free(script);
	/* a package or stamp the shell would interpret is never pasted in; a bad nonce builds nothing */
	sw__android_obs_req bad = {.nonce = "k3y9", .frames_pkg = "a;reboot", .want_log = true, .log_since = "'; reboot"};
	script = sw__android_observe_script(&bad);
	ck_assert_ptr_null(strstr(script, "reboot"));
	ck_assert_ptr_nonnull(strstr(script, "rm -f /sdcard/window_dump.xml; uiautomator dump /sdcard/window_dump.xml"));
	free(script);
	bad.nonce = "a b";
	ck_assert_ptr_null(sw__android_observe_script(&bad));

	const char *out = "@@swipium-obs-k3y9:f0\nTotal frames rendered: 120\n"
	                  "\tcom.example.login/com.example.login.LoginActivity/android.view.ViewRootImpl@5f0e7b1 "
	                  "(visibility=0)\n@@swipium-obs-k3y9:dump\n<?xml version='1.0' encoding='UTF-8' "
	                  "standalone='yes' ?><hierarchy rotation=\"0\"><node text=\"@@swipium-obs-k3y9:end\" "
	                  "bounds=\"[0,0][10,10]\" /></hierarchy>UI hierchary dumped to: /dev/tty\n"
	                  "@@swipium-obs-k3y9:f1\nTotal frames rendered: 120\n@@swipium-obs-k3y9:ime\n"
	                  "    mInputShown=true\n@@swipium-obs-k3y9:log\n--------- beginning of main\n"
	                  "12-01 20:30:00.200  4242  4259 I LoginActivity: shown\n@@swipium-obs-k3y9:end\n";
	sw__android_obs o;
	ck_assert_int_eq(sw__android_observe_parse(out, strlen(out), "k3y9", &o), 0);
	ck_assert_ptr_nonnull(o.xml);
	ck_assert(sw__str_has_prefix(o.xml, "<?xml"));
	ck_assert_ptr_nonnull(strstr(o.xml, "</hierarchy>"));
	ck_assert_ptr_null(strstr(o.xml, "dumped to"));
	ck_assert_int_eq(o.frames_before, 120);
	ck_assert_int_eq(o.frames_after, 120);
	ck_assert_str_eq(o.focus, "com.example.login/com.example.login.LoginActivity");
	ck_assert_int_eq(o.ime_shown, 1);
	ck_assert_ptr_nonnull(strstr(o.log, "LoginActivity: shown"));
	sw__android_obs_clear(&o);
	/* another nonce: the markers of the output are not ours */
	ck_assert_int_eq(sw__android_observe_parse(out, strlen(out), "zzzz", &o), -1);
	ck_assert_ptr_null(o.xml);

	/* cut short (the device vanished mid-script): nothing is trusted */
	const char *cut = "@@swipium-obs-k3y9:f0\nTotal frames rendered: 5\n@@swipium-obs-k3y9:dump\n<?xml "
	                  "version='1.0'?><hierarchy><node text=\"\n@@swipium-obs-k3y9:end\"";
	ck_assert_int_eq(sw__android_observe_parse(cut, strlen(cut), "k3y9", &o), -1);
	ck_assert_int_eq(o.frames_before, -1);
	sw__android_obs_clear(&o);

	/* a failed dump, /dev/tty not served, a logcat that refused a buffer */
	const char *failed = "@@swipium-obs-k3y9:dump\nERROR: could not get idle state.\n@@swipium-obs-k3y9:log\n"
	                     "logcat: Unknown buffer 'crash'\n@@swipium-obs-k3y9:end\n";
	ck_assert_int_eq(sw__android_observe_parse(failed, strlen(failed), "k3y9", &o), 0);
	ck_assert_ptr_null(o.xml);
	ck_assert_str_eq(o.dump_error, "ERROR: could not get idle state.");
	ck_assert(!o.stream_unsupported);
	ck_assert_ptr_null(o.log);
	ck_assert_int_eq(o.frames_before, -1);
	ck_assert_int_eq(o.ime_shown, -1);
	sw__android_obs_clear(&o);
	const char *notty = "@@swipium-obs-k3y9:dump\n/dev/tty: No such device or address\n@@swipium-obs-k3y9:end\n";
	ck_assert_int_eq(sw__android_observe_parse(notty, strlen(notty), "k3y9", &o), 0);
	ck_assert(o.stream_unsupported);
	sw__android_obs_clear(&o);
}
END_TEST

static Suite *android_suite(void)
{
	Suite *s = suite_create("android");
	TCase *tc = tcase_create("escaping");
	tcase_add_test(tc, test_input_text_escaping);
	tcase_add_test(tc, test_shell_quote);
	suite_add_tcase(s, tc);
	tc = tcase_create("parsers");
	tcase_add_test(tc, test_devices_parse);
	tcase_add_test(tc, test_serial_rule);
	tcase_add_test(tc, test_getprop_parse_and_detection);
	tcase_add_test(tc, test_dumpsys_parsers);
	tcase_add_test(tc, test_failure_codes);
	tcase_add_test(tc, test_install_check);
	tcase_add_test(tc, test_observe_script_and_parse);
	suite_add_tcase(s, tc);
	tc = tcase_create("tools");
	tcase_add_test(tc, test_tool_discovery);
	tcase_add_test(tc, test_proc_runner);
	tcase_add_test(tc, test_reverse_list_parse);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(android_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
