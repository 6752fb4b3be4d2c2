/* prepare.c: choosing an Android target (qa_resolve_target) and preparing it (boot, install, launch, verify). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../catalog/catalog-internal.h"
#include "android-internal.h"

#include <swipium/artifacts.h>

static json_t *list_avds(const char *emulator)
{
	json_t *arr = json_array();
	if (!emulator || !arr)
		return arr;
	const char *argv[] = {emulator, "-list-avds", NULL};
	sw__proc_opts o = {.timeout_ms = 10000};
	sw__proc_result r;
	if (sw__proc_run(argv, &o, &r, NULL) < 0)
		return arr;
	if (r.status == 0) {
		char *save = NULL;
		for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			size_t n = strlen(l);
			while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
				l[--n] = '\0';
			/* the emulator prints INFO/WARNING lines before the names */
			if (n && !strchr(l, ' ') && !strchr(l, '|') && sw__utf8_valid(l, n))
				json_array_append_new(arr, json_string(l));
		}
	}
	sw__proc_result_clear(&r);
	return arr;
}

static bool has_string(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), s)) return true;
	return false;
}

/* The project's side of the context, from the one detector (swipium/project.h). */
static void add_project_context(json_t *ctxo, const char *root)
{
	char *pj = NULL;
	sw_error *perr = NULL;
	if (sw_project_detect(root, &pj, &perr) != SW_OK) {
		json_object_set_new(ctxo, "framework", json_string("unknown"));
		json_object_set_new(ctxo, "frameworkError", json_string(sw_error_message(perr)));
		sw_error_free(perr);
		return;
	}
	json_t *p = json_loads(pj, 0, NULL);
	sw_free(pj);
	static const char *const keys[] = {"framework", "platforms", "appRoot", "appFramework", "appPlatforms",
	                                   "appId", "appIdSource", "appIds", "monorepo", "nonMobileKind"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++)
		if (json_object_get(p, keys[i]))
			json_object_set(ctxo, keys[i], json_object_get(p, keys[i]));
	if (json_object_get(p, "reasons"))
		json_object_set(ctxo, "frameworkReasons", json_object_get(p, "reasons"));
	json_decref(p);
}

/* @options_json parsed into *opts (NULL or "" leave it NULL); anything but a JSON object is INVALID_ARGUMENT. */
static int load_options(const char *options_json, json_t **opts, sw_error **err)
{
	if (!options_json || !options_json[0])
		return SW_OK;
	*opts = json_loads(options_json, 0, NULL);
	if (!json_is_object(*opts))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	return SW_OK;
}

int sw_android_resolve_target(sw_ctx *ctx, const char *options_json, char **out_json, sw_error **err)
{
	int rc = SW_OK;
	json_t *opts = NULL, *list = NULL, *avds = NULL, *res = NULL, *emus = json_array(), *phones = json_array(),
	       *waiting = json_array();
	sw__android_tools t;
	sw__android_tools_find(ctx ? sw_ctx_get_home(ctx) : getenv("HOME"), &t);
	if (!out_json) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
		goto out;
	}
	if ((rc = load_options(options_json, &opts, err)) < 0)
		goto out;
	const char *want = json_string_value(json_object_get(opts, "device"));
	bool prefer_real = json_is_true(json_object_get(opts, "preferRealDevice"));
	json_t *include = json_object_get(opts, "include");
	bool want_context = has_string(include, "context"), want_plan = has_string(include, "plan");
	avds = list_avds(t.emulator);
	if (t.adb) {
		rc = sw__android_list_devices(t.adb, &list, err);
		if (rc < 0)
			goto out;
		size_t i;
		json_t *d;
		json_array_foreach(list, i, d)
		{
			const char *serial = json_string_value(json_object_get(d, "serial"));
			const char *state = json_string_value(json_object_get(d, "state"));
			if (strcmp(state, "device") != 0) {
				json_array_append_new(waiting, json_pack("{ssss}", "serial", serial, "state", state));
				continue;
			}
			json_t *props = NULL;
			bool emu = sw__android_serial_is_emulator(serial);
			if (!emu && sw__android_read_props(t.adb, serial, &props, NULL) == SW_OK)
				emu = sw__android_props_are_emulator(props);
			json_decref(props);
			json_array_append_new(emu ? emus : phones, json_string(serial));
		}
	}
	json_t *selected = json_null(), *alternatives = json_array(), *pre = json_array();
	bool will_boot = false;
	char reason[600] = "";
	const char *fail_code = NULL;
	char fail_msg[400] = "";
	if (!t.adb && !json_array_size(avds)) {
		fail_code = "ADB_NOT_FOUND";
		snprintf(fail_msg, sizeof(fail_msg), "adb was not found on PATH or in the Android SDK");
	} else if (want) {
		if (has_string(emus, want)) {
			selected = json_pack("{ssssss}", "platform", "android", "kind", "emulator", "serial", want);
			snprintf(reason, sizeof(reason), "%s is an online emulator, as requested", want);
		} else if (has_string(phones, want)) {
			fail_code = "PHYSICAL_DEVICE_UNSUPPORTED";
			snprintf(fail_msg, sizeof(fail_msg), "%s is a physical device; only emulators are supported",
			         want);
		} else if (has_string(avds, want)) {
			selected = json_pack("{ssssss}", "platform", "android", "kind", "avd", "avd", want);
			will_boot = true;
			snprintf(reason, sizeof(reason), "AVD %s is not running; qa_prepare_target will boot it", want);
		} else {
			fail_code = "NO_DEVICE";
			snprintf(fail_msg, sizeof(fail_msg), "%s is neither an attached device nor a known AVD", want);
		}
	} else if (prefer_real && json_array_size(phones)) {
		fail_code = "PHYSICAL_DEVICE_UNSUPPORTED";
		snprintf(fail_msg, sizeof(fail_msg), "Physical devices (%s) are not supported; use an emulator",
		         json_string_value(json_array_get(phones, 0)));
	} else if (json_array_size(emus)) {
		const char *s = json_string_value(json_array_get(emus, 0));
		selected = json_pack("{ssssss}", "platform", "android", "kind", "emulator", "serial", s);
		snprintf(reason, sizeof(reason), "online emulator %s%s", s,
		         json_array_size(emus) > 1 ? " (several are online: pass device to qa_prepare_target)" : "");
	} else if (json_array_size(avds)) {
		const char *a = json_string_value(json_array_get(avds, 0));
		selected = json_pack("{ssssss}", "platform", "android", "kind", "avd", "avd", a);
		will_boot = true;
		snprintf(reason, sizeof(reason), "no emulator is online; AVD %s can be booted by qa_prepare_target", a);
	} else if (json_array_size(phones)) {
		fail_code = "PHYSICAL_DEVICE_UNSUPPORTED";
		snprintf(fail_msg, sizeof(fail_msg), "The only Android device (%s) is a physical one; boot an emulator",
		         json_string_value(json_array_get(phones, 0)));
	} else {
		fail_code = json_array_size(waiting) ? "DEVICE_NOT_READY" : "NO_DEVICE";
		snprintf(fail_msg, sizeof(fail_msg), "%s",
		         json_array_size(waiting) ? "A device is attached but not online yet"
		                                  : "No emulator is online and no AVD was found");
	}
	if (!fail_code && json_array_size(phones) && reason[0]) {
		size_t n = strlen(reason);
		snprintf(reason + n, sizeof(reason) - n, "; physical device %s ignored",
		         json_string_value(json_array_get(phones, 0)));
	}
	size_t i;
	json_t *v;
	json_array_foreach(emus, i, v) if (!json_equal(json_object_get(selected, "serial"), v))
	    json_array_append_new(alternatives, json_pack("{sssO}", "kind", "emulator", "serial", v));
	json_array_foreach(avds, i, v) if (!json_equal(json_object_get(selected, "avd"), v))
	    json_array_append_new(alternatives, json_pack("{sssO}", "kind", "avd", "avd", v));
	if (will_boot)
		json_array_append_new(pre, json_string("boot the AVD (qa_prepare_target with avd)"));
	res = json_pack("{sosssososbs[]}", "selected", selected, "reason", fail_code ? fail_msg : reason,
	                "alternatives", alternatives, "preconditions", pre, "willBoot", will_boot, "notes");
	if (want_context) {
		json_t *ctxo =
		    json_pack("{sOsOsOsOs{sbsb}}", "onlineEmulators", emus, "physicalDevices", phones, "waitingDevices",
		              waiting, "avds", avds, "toolchain", "adb", t.adb != NULL, "emulator", t.emulator != NULL);
		json_object_set_new(ctxo, "iosBooted", json_array());
		json_object_set_new(ctxo, "iosAvailable", json_false());
		const char *root = json_string_value(json_object_get(opts, "projectRoot"));
		if (root)
			add_project_context(ctxo, root);
		json_t *blockers = json_array();
		if (!t.adb)
			json_array_append_new(blockers, json_string("adb was not found (install the Android SDK platform-tools)"));
		if (!json_array_size(emus) && !json_array_size(avds))
			json_array_append_new(blockers, json_string("no emulator is online and no AVD exists"));
		json_object_set_new(ctxo, "blockers", blockers);
		json_object_set_new(res, "context", ctxo);
	}
	if (want_plan) {
		json_t *plan =
		    fail_code ? json_pack("{ssssssssss}", "status", "BLOCKED", "category",
		                          !strcmp(fail_code, "ADB_NOT_FOUND") ? "missing_toolchain" : "missing_device",
		                          "requiredState", "an online Android emulator", "unblock",
		                          "boot an AVD (qa_prepare_target with avd) or install the SDK", "failureCode",
		                          fail_code)
		              : json_pack("{sssss[s]}", "status", "READY", "budgetProfile", "guardrail",
		                          "satisfiedPreconditions", will_boot ? "bootable AVD" : "online emulator");
		json_object_set_new(res, "plan", plan);
	}
	if (fail_code) {
		rc = sw__error_set(err, sw__catalog_result(fail_code, SW_ENOTFOUND), fail_code, "Boot an Android emulator (an AVD) and try again", "%s", fail_msg);
		/* the requested sections ride on the error */
		json_t *det = json_object();
		if (json_object_get(res, "context"))
			json_object_set(det, "context", json_object_get(res, "context"));
		if (json_object_get(res, "plan"))
			json_object_set(det, "plan", json_object_get(res, "plan"));
		if (err && *err && json_object_size(det))
			sw__error_take_details(*err, det);
		else
			json_decref(det);
		goto out;
	}
	*out_json = sw__json_compact(res);
	if (!*out_json)
		rc = sw__error_nomem(err);
out:
	sw__android_tools_clear(&t);
	json_decref(opts);
	json_decref(list);
	json_decref(avds);
	json_decref(res);
	json_decref(emus);
	json_decref(phones);
	json_decref(waiting);
	return rc;
}

/* ---- prepare ------------------------------------------------------------- */

int sw_android_prepare(sw_ctx *ctx, const char *options_json, char **out_json, sw_error **err)
{
	return sw_android_prepare_abortable(ctx, options_json, NULL, NULL, out_json, err);
}

int sw_android_prepare_abortable(sw_ctx *ctx, const char *options_json, int (*abort_fn)(void *), void *abort_ud,
                                 char **out_json, sw_error **err)
{
	int rc = SW_OK;
	json_t *opts = NULL, *res = json_object();
	sw_device *dev = NULL;
	char *boot = NULL, *fg = NULL, *desc = NULL, *app_owned = NULL;
	if (!out_json || !res) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
		goto out;
	}
	if ((rc = load_options(options_json, &opts, err)) < 0)
		goto out;
	const char *serial = json_string_value(json_object_get(opts, "device"));
	const char *avd = json_string_value(json_object_get(opts, "avd"));
	const char *apk = json_string_value(json_object_get(opts, "apk"));
	const char *app = json_string_value(json_object_get(opts, "appId"));
	bool bind_only = json_is_true(json_object_get(opts, "bindOnly"));
	bool check_only = json_is_true(json_object_get(opts, "checkOnly")); /* compare the APK, install nothing */
	bool launch = !json_is_false(json_object_get(opts, "launch"));
	if (app && !sw__android_valid_package(app)) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "An app id looks like com.example.app",
		                   "appId \"%s\" is not a valid Android package name", app);
		goto out;
	}
	if (apk && !sw__is_file(apk)) {
		rc = sw__error_set(err, SW_ENOTFOUND, "NO_ARTIFACT",
		                   "Build the APK with the project's own build (e.g. ./gradlew assembleDebug) and pass its "
		                   "path as apk, or pass appId of an app already installed",
		                   "The APK %s does not exist", apk);
		goto out;
	}
	/* nothing online and an AVD named: boot it (an offline leftover does not count) */
	bool need_boot = false;
	if (avd && !serial) {
		char *adb = sw__android_find_adb(ctx);
		json_t *list = NULL;
		if (adb && sw__android_list_devices(adb, &list, NULL) == SW_OK) {
			size_t i, online = 0;
			json_t *d;
			json_array_foreach(
			    list, i, d) if (!strcmp(json_string_value(json_object_get(d, "state")), "device")) online++;
			need_boot = online == 0;
		}
		json_decref(list);
		free(adb);
	}
	json_t *o;
	char *oj;
	if (need_boot) {
		json_t *bo = json_pack("{sb}", "headless", !json_is_false(json_object_get(opts, "headless")));
		if (json_object_get(opts, "timeoutMs"))
			json_object_set(bo, "timeoutMs", json_object_get(opts, "timeoutMs"));
		char *boj = sw__json_compact(bo);
		json_decref(bo);
		rc = sw_android_boot_avd_abortable(ctx, avd, boj, abort_fn, abort_ud, &boot, err);
		free(boj);
		if (rc < 0)
			goto out;
		json_t *b = json_loads(boot, 0, NULL);
		json_object_set_new(res, "booted", json_true());
		json_object_set(res, "boot", b);
		o = json_pack("{sO}", "serial", json_object_get(b, "serial"));
		json_decref(b);
	} else {
		o = serial ? json_pack("{ss}", "serial", serial) : json_object();
	}
	oj = sw__json_compact(o);
	json_decref(o);
	rc = sw_device_open(ctx, sw_driver_android(), oj, &dev, err);
	free(oj);
	if (rc < 0)
		goto out;
	/* every adb run of this handle (install is the long one) stops when the caller aborts */
	sw__android_dev *ad = sw__device_state(dev);
	ad->abort_fn = abort_fn;
	ad->abort_ud = abort_ud;
	rc = sw_device_describe(dev, &desc, err);
	if (rc < 0)
		goto out;
	json_object_set_new(res, "device", json_loads(desc, 0, NULL));
	if (avd && !need_boot) {
		/* the online device is used as is: say so rather than pretend the AVD was booted */
		const char *on = json_string_value(json_object_get(json_object_get(res, "device"), "serial"));
		char note[400];
		snprintf(note, sizeof(note), "AVD %s was not booted: the online device %s was used instead", avd,
		         on ? on : "(unknown)");
		json_object_set_new(res, "notes", json_pack("[s]", note));
	}
	if (bind_only) {
		json_object_set_new(res, "bindOnly", json_true());
		goto done;
	}
	if (apk) {
		/* what the APK is, and whether this device can take it, before a byte is sent */
		json_t *meta = NULL;
		char *mtext = NULL;
		sw_error *ierr = NULL;
		if (sw_artifact_inspect(apk, &mtext, &ierr) == SW_OK)
			meta = json_loads(mtext, 0, NULL);
		sw_free(mtext);
		sw_error_free(ierr);
		const char *apk_app = json_string_value(json_object_get(meta, "appId"));
		if (!app && apk_app) {
			app = apk_app; /* lives as long as meta, to the end of this call */
		}
		char *props = NULL;
		sw_error *perr = NULL;
		if (meta && sw_device_properties(dev, &props, &perr) == SW_OK) {
			char *mj = sw__json_compact(meta), *chk = NULL;
			rc = sw_artifact_install_check(mj, props, &chk, err);
			free(mj);
			sw_free(props);
			if (rc < 0) {
				json_decref(meta);
				goto out;
			}
			json_object_set_new(res, "installCheck", chk ? json_loads(chk, 0, NULL) : json_null());
			sw_free(chk);
		} else if (meta) {
			char note[400];
			snprintf(note, sizeof(note), "the device's ABIs and SDK level were not read (%s): the device decides",
			         perr ? sw_error_message(perr) : "no properties");
			json_object_set_new(res, "installCheck", json_pack("{s:[s]}", "notes", note));
			sw_error_free(perr);
		}
		if (check_only) {
			if (!json_object_get(json_object_get(res, "installCheck"), "abiOk")) {
				json_decref(meta);
				rc = sw__error_set(err, SW_EDEVICE, "AAB_DEVICE_SPEC_FAILED",
				                   "Check that the device is online (adb devices) and try again",
				                   "The device's ABIs and SDK level could not be read, so the APK could not be "
				                   "checked against it");
				goto out;
			}
			json_decref(meta);
			goto done;
		}
		rc = sw_device_install(dev, apk, err);
		if (rc < 0) {
			json_decref(meta);
			goto out;
		}
		json_object_set_new(res, "installed", json_true());
		if (app) {
			json_object_set_new(res, "appId", json_string(app));
			app_owned = sw__strdup(app);
			app = app_owned;
		}
		json_decref(meta);
	}
	if (app && launch) {
		rc = sw_device_launch(dev, app, err);
		if (rc < 0)
			goto out;
		json_object_set_new(res, "launched", json_true());
		rc = sw_device_foreground(dev, &fg, err);
		if (rc < 0)
			goto out;
		json_t *f = json_loads(fg, 0, NULL);
		json_object_set(res, "foreground", f);
		bool is_app = json_is_string(json_object_get(f, "package")) &&
		              !strcmp(json_string_value(json_object_get(f, "package")), app);
		json_decref(f);
		json_object_set_new(res, "foregroundIsApp", json_boolean(is_app));
		if (!is_app) {
			rc = sw__error_set(err, SW_EDEVICE, "APP_LAUNCH_FAILED",
			                   "Check the app id and its launcher activity",
			                   "%s was launched but is not in the foreground", app);
			goto out;
		}
	}
done:
	*out_json = sw__json_compact(res);
	if (!*out_json)
		rc = sw__error_nomem(err);
out:
	sw_device_free(dev);
	free(app_owned);
	free(boot);
	free(fg);
	free(desc);
	json_decref(opts);
	json_decref(res);
	return rc;
}

int sw_android_app_installed(sw_ctx *ctx, const char *options_json, const char *app_id, int *installed,
                             sw_error **err)
{
	if (!app_id || !installed)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_android_app_installed: app_id and installed are required");
	*installed = -1;
	if (!sw__android_valid_package(app_id))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "An app id looks like com.example.app",
		                     "appId \"%s\" is not a valid Android package name", app_id);
	json_t *opts = options_json && options_json[0] ? json_loads(options_json, 0, NULL) : json_object();
	const char *serial = json_string_value(json_object_get(opts, "device"));
	json_t *o = serial ? json_pack("{ss}", "serial", serial) : json_object();
	char *oj = sw__json_compact(o);
	json_decref(o);
	json_decref(opts);
	sw_device *dev = NULL;
	sw_error *derr = NULL;
	int rc = sw_device_open(ctx, sw_driver_android(), oj, &dev, &derr);
	free(oj);
	if (rc < 0) {
		sw_error_free(derr); /* nothing to ask about yet: the caller boots or binds first */
		return SW_OK;
	}
	char *pk = NULL;
	if (sw_device_packages(dev, &pk, &derr) == SW_OK) {
		json_t *arr = json_loads(pk, 0, NULL);
		*installed = has_string(arr, app_id) ? 1 : 0;
		json_decref(arr);
	} else {
		sw_error_free(derr);
	}
	sw_free(pk);
	sw_device_free(dev);
	return SW_OK;
}
