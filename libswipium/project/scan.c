/* scan.c: `swipium scan`: can this project be tested now (READY / PARTIAL / BLOCKED), and its .swipium/ starter files. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sw-internal.h"

/* Build outputs are looked for this deep under each output folder, at most this many. */
#define ARTIFACT_DEPTH 4
#define ARTIFACTS_MAX 20

static void artifacts_under(const char *root, const char *rel, int depth, json_t *out)
{
	char *dir = sw__path_join(root, rel);
	DIR *d = dir ? opendir(dir) : NULL;
	free(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) && json_array_size(out) < ARTIFACTS_MAX) {
		if (e->d_name[0] == '.' || !sw__utf8_valid(e->d_name, strlen(e->d_name)))
			continue;
		char *sub = sw__asprintf("%s/%s", rel, e->d_name);
		char *full = sub ? sw__path_join(root, sub) : NULL;
		struct stat st;
		if (full && lstat(full, &st) == 0) { /* symlinks are neither followed nor listed */
			if (S_ISREG(st.st_mode) && sw__str_has_suffix(e->d_name, ".apk"))
				json_array_append_new(out, json_pack("{ssss}", "path", sub, "kind", "apk"));
			else if (S_ISREG(st.st_mode) && sw__str_has_suffix(e->d_name, ".aab"))
				json_array_append_new(out, json_pack("{ssss}", "path", sub, "kind", "aab"));
			else if (S_ISDIR(st.st_mode) && depth > 0)
				artifacts_under(root, sub, depth - 1, out);
		}
		free(full);
		free(sub);
	}
	closedir(d);
}

/* The Android build outputs of the app (Gradle's and Flutter's folders). */
static json_t *find_artifacts(const char *root, const char *app_root)
{
	static const char *const dirs[] = {"app/build/outputs", "android/app/build/outputs", "build/app/outputs"};
	json_t *out = json_array();
	for (size_t i = 0; i < SW_ARRAY_SIZE(dirs); i++) {
		char *rel = strcmp(app_root, ".") ? sw__asprintf("%s/%s", app_root, dirs[i]) : sw__strdup(dirs[i]);
		if (rel)
			artifacts_under(root, rel, ARTIFACT_DEPTH, out);
		free(rel);
	}
	return out;
}

/* Auth libraries that make a login screen likely. */
static const char *auth_dependency(const char *root, const char *app_root)
{
	static const char *const libs[] = {"@react-native-firebase/auth", "firebase", "expo-auth-session",
	                                   "@clerk/clerk-expo", "@supabase/supabase-js", "aws-amplify",
	                                   "react-native-auth0", "@react-native-google-signin/google-signin",
	                                   "next-auth", "@okta/okta-react-native"};
	char *dir = strcmp(app_root, ".") ? sw__path_join(root, app_root) : sw__strdup(root);
	char *pkg_path = dir ? sw__path_join(dir, "package.json") : NULL;
	free(dir);
	char *text = NULL;
	const char *hit = NULL;
	if (pkg_path && sw__is_file(pkg_path) && sw__read_file(pkg_path, 1024 * 1024, &text, NULL, NULL) == SW_OK) {
		json_t *pkg = json_loads(text, 0, NULL);
		for (size_t i = 0; !hit && i < SW_ARRAY_SIZE(libs); i++)
			if (json_object_get(json_object_get(pkg, "dependencies"), libs[i]))
				hit = libs[i];
		json_decref(pkg);
	}
	free(text);
	free(pkg_path);
	return hit;
}

/* The device side: the same selection qa_resolve_target makes (nothing boots). */
static json_t *devices(sw_ctx *ctx)
{
	char *out = NULL;
	sw_error *err = NULL;
	json_t *res = NULL;
	if (sw_android_resolve_target(ctx, "{\"include\":[\"context\"]}", &out, &err) == SW_OK) {
		res = json_loads(out, 0, NULL);
		sw_free(out);
	} else {
		res = json_object();
		const char *det = sw_error_details_json(err);
		json_t *d = det ? json_loads(det, 0, NULL) : NULL;
		if (json_object_get(d, "context"))
			json_object_set(res, "context", json_object_get(d, "context"));
		json_decref(d);
		json_object_set_new(res, "failureCode", json_string(sw_error_failure_code(err)));
		json_object_set_new(res, "reason", json_string(sw_error_message(err)));
		sw_error_free(err);
	}
	return res;
}

static const char fixtures_doc[] =
    "Test data for flows and qa_test_this: each fixture names a role (e.g. a test account) and where its "
    "values come from (SWIPIUM_* environment variables), never the secrets themselves.";

static const char flows_readme[] =
    "# Flows\n\n"
    "Saved test flows (Flow V2 YAML) live here; `swipium run <flow>` replays one on an emulator and\n"
    "`swipium init flows` writes starter flows. See docs/flows.md in the swipium sources.\n";

/* Writes one starter file through the confinement rule, unless it exists and @only_if_absent. */
static int write_starter(const char *root, const char *rel, const char *text, bool only_if_absent, json_t *written,
                         json_t *kept, sw_error **err)
{
	char *full = sw__path_join(root, rel);
	struct stat st;
	bool exists = full && lstat(full, &st) == 0;
	free(full);
	if (exists && only_if_absent) {
		json_array_append_new(kept, json_string(rel));
		return SW_OK;
	}
	int rc = sw_project_write_file(root, rel, text, strlen(text), SW_WRITE_MKDIRS | SW_WRITE_SHARED, err);
	if (rc == SW_OK)
		json_array_append_new(written, json_string(rel));
	return rc;
}

/* config.json: the scan result under "scan"; the user's other settings (ocrCommand, ios ...) stay. */
static char *config_text(const char *root, json_t *result)
{
	char *path = sw__path_join(root, ".swipium/config.json"), *old = NULL;
	json_t *cfg = NULL;
	if (path && sw__is_file(path) && sw__read_file(path, 1024 * 1024, &old, NULL, NULL) == SW_OK)
		cfg = json_loads(old, 0, NULL);
	free(old);
	free(path);
	if (!json_is_object(cfg)) {
		json_decref(cfg);
		cfg = json_object();
	}
	json_object_set(cfg, "scan", result);
	char *text = sw__json_pretty(cfg);
	json_decref(cfg);
	char *withnl = text ? sw__asprintf("%s\n", text) : NULL;
	free(text);
	return withnl;
}

SW_API int sw_project_scan(sw_ctx *ctx, const char *root, unsigned flags, char **out_json, sw_error **err)
{
	if (!root || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_project_scan: root and out_json are required");
	char *dj = NULL;
	int rc = sw_project_detect(root, &dj, err);
	if (rc != SW_OK)
		return rc;
	json_t *det = json_loads(dj, 0, NULL);
	sw_free(dj);
	const char *fw = json_string_value(json_object_get(det, "framework"));
	const char *app_root = json_string_value(json_object_get(det, "appRoot"));
	if (!strcmp(fw, "unknown") && json_string_value(json_object_get(det, "appFramework")))
		fw = json_string_value(json_object_get(det, "appFramework"));
	json_t *apps = json_object_get(json_object_get(det, "monorepo"), "apps");
	bool mono_root = !app_root && json_array_size(apps) > 1;

	json_t *arts = find_artifacts(root, app_root ? app_root : ".");
	size_t installable = 0, i;
	json_t *v;
	json_array_foreach(arts, i, v) if (!strcmp(json_string_value(json_object_get(v, "kind")), "apk")) installable++;
	json_t *dev = devices(ctx);
	json_t *dctx = json_object_get(dev, "context");
	json_t *emus = json_object_get(dctx, "onlineEmulators"), *avds = json_object_get(dctx, "avds");
	bool device_ok = json_array_size(emus) > 0 || json_array_size(avds) > 0;
	bool fw_known = strcmp(fw, "unknown") != 0;
	bool js = !strcmp(fw, "expo") || !strcmp(fw, "bare-react-native");

	json_t *fix = json_array();
	if (!fw_known)
		json_array_append_new(fix, json_string(mono_root ? "pick one app of the monorepo: swipium scan <app path>"
		                                                 : "no mobile framework found: run swipium scan in the app's folder"));
	if (!installable)
		json_array_append_new(fix, json_string(json_array_size(arts)
		                                           ? "only an .aab was found: qa_bundletool makes an installable APK"
		                                           : "no installable build: build a debug APK (qa_build {platform: \"android\"})"));
	if (!json_object_get(dctx, "toolchain") || !json_is_true(json_object_get(json_object_get(dctx, "toolchain"), "adb")))
		json_array_append_new(fix, json_string("adb not found: install the Android SDK platform-tools or set ANDROID_HOME"));
	if (!device_ok)
		json_array_append_new(fix, json_string("no emulator online and no AVD: create one (avdmanager create avd) or boot one"));
	const char *verdict = !installable || !device_ok ? "BLOCKED" : fw_known ? "READY" : "PARTIAL";

	const char *auth_lib = auth_dependency(root, app_root ? app_root : ".");
	json_t *res = json_object();
	json_object_set_new(res, "root", json_string(root));
	json_object_set_new(res, "verdict", json_string(verdict));
	json_object_set_new(res, "framework", json_string(fw));
	json_object_set(res, "frameworkReasons", json_object_get(det, "reasons"));
	json_object_set(res, "platforms", json_object_get(det, "appPlatforms") ? json_object_get(det, "appPlatforms")
	                                                                         : json_object_get(det, "platforms"));
	if (app_root)
		json_object_set_new(res, "appRoot", json_string(app_root));
	json_object_set(res, "appId", json_object_get(det, "appId") ? json_object_get(det, "appId") : json_null());
	json_object_set(res, "appIdSource", json_object_get(det, "appIdSource") ? json_object_get(det, "appIdSource") : json_null());
	json_object_set(res, "monorepo", json_object_get(det, "monorepo"));
	json_object_set_new(res, "artifacts", arts);
	json_object_set_new(res, "installableArtifacts", json_integer((json_int_t)installable));
	json_object_set_new(res, "devices", json_pack("{sOsOsO}", "onlineEmulators", emus ? emus : json_array(), "avds",
	                                              avds ? avds : json_array(), "selected",
	                                              json_object_get(dev, "selected") ? json_object_get(dev, "selected") : json_null()));
	json_object_set_new(res, "metro", json_pack("{sbss}", "needed", js, "why",
	                                            js ? "a debug build of a React Native app loads its JavaScript from Metro: "
	                                                 "start it (npx expo start / npx react-native start) or test a release build"
	                                               : "no JavaScript bundle server is involved"));
	json_object_set_new(res, "freshStart", json_pack("{sbss}", "safe", !js, "why",
	                                                 js ? "clearing app data of a debug React Native build loses its bundle "
	                                                      "cache; fresh_start is refused unless acknowledged"
	                                                    : "clearing app data only resets the app"));
	json_object_set_new(res, "likelyAuth", auth_lib ? json_pack("{sbss}", "likely", 1, "why", auth_lib)
	                                                : json_pack("{sbss}", "likely", 0, "why", "no auth library in package.json"));
	json_object_set_new(res, "recommendedProfile", json_string(!strcmp(verdict, "READY") ? "guardrail" : "setup"));
	json_object_set_new(res, "toFix", fix);
	if (json_object_get(det, "notes"))
		json_object_set(res, "notes", json_object_get(det, "notes"));
	json_decref(det);
	json_decref(dev);

	json_t *written = json_array(), *kept = json_array();
	bool write = !(flags & SW_SCAN_NO_WRITE) && strcmp(verdict, "BLOCKED") != 0;
	if (write) {
		char *cfg = config_text(root, res);
		rc = cfg ? write_starter(root, ".swipium/config.json", cfg, false, written, kept, err) : sw__error_nomem(err);
		free(cfg);
		if (rc == SW_OK) {
			char *fx = NULL;
			json_t *f = json_pack("{sss[]}", "_doc", fixtures_doc, "fixtures");
			char *ft = sw__json_pretty(f);
			json_decref(f);
			fx = ft ? sw__asprintf("%s\n", ft) : NULL;
			free(ft);
			rc = fx ? write_starter(root, ".swipium/fixtures.json", fx, true, written, kept, err) : sw__error_nomem(err);
			free(fx);
		}
		if (rc == SW_OK)
			rc = write_starter(root, ".swipium/flows/README.md", flows_readme, true, written, kept, err);
		if (rc == SW_OK) {
			rc = sw__confine_mkdirs(root, ".swipium/packs", 0755, NULL, err);
			if (rc == SW_OK)
				json_array_append_new(written, json_string(".swipium/packs/"));
		}
	}
	json_object_set_new(res, "written", written);
	json_object_set_new(res, "kept", kept);
	if (rc == SW_OK) {
		*out_json = sw__json_compact(res);
		if (!*out_json)
			rc = sw__error_nomem(err);
	}
	json_decref(res);
	return rc;
}
