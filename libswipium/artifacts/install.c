/* install.c: what installing an APK would mean (inside the project or not, its hash, its app) and whether the
 * device can take it (ABIs against ro.product.cpu.abilist, minSdk against ro.build.version.sdk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts-internal.h"

#include <swipium/artifacts.h>
#include <swipium/util.h>

SW_API int sw_artifact_install_plan(const char *root, const char *apk, char **out_json, sw_error **err)
{
	if (!root || !apk || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_artifact_install_plan: root, apk and out_json are required");
	*out_json = NULL;
	char *joined = apk[0] == '/' ? sw__strdup(apk) : sw__asprintf("%s/%s", root, apk);
	if (!joined)
		return sw__error_nomem(err);
	char *real = realpath(joined, NULL);
	free(joined);
	if (!real || !sw__is_file(real)) {
		free(real);
		int rc = sw__error_set(err, SW_ENOTFOUND, "NO_ARTIFACT",
		                       "Build the APK with the project's own build (e.g. ./gradlew "
		                       "assembleDebug) and pass its path as apk, or pass appId of an app already installed",
		                       "The APK %s does not exist (relative paths are taken from the project root %s)",
		                       apk, root);
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:s}", "apk", apk));
		return rc;
	}
	/* inside-ness by the realpath of both sides: a symlink out of the root and <root>/../x are outside */
	char *inside_real = NULL;
	int crc = sw__confine(root, real, SW__CONFINE_EXISTING, &inside_real, NULL);
	free(inside_real);
	bool inside = crc == SW_OK;
	char sha[65];
	uint64_t bytes = 0;
	int rc = sw_sha256_file_hex(real, sha, &bytes, err);
	if (rc != SW_OK) {
		free(real);
		return rc;
	}
	json_t *meta = NULL;
	sw_error *ierr = NULL;
	json_t *warnings = json_array();
	if (sw__artifact_inspect_json(real, &meta, &ierr) != SW_OK) {
		/* not an .apk by name (a .zip, no suffix): the device decides; say why nothing was read */
		json_array_append_new(warnings, json_string(sw_error_message(ierr)));
		sw_error_free(ierr);
	}
	json_t *o = json_pack("{s:s,s:s,s:s,s:b,s:s,s:I}", "apk", real, "requested", apk, "sha256", sha, "insideRoot",
	                      inside, "risk", inside ? "low" : "medium", "sizeBytes", (json_int_t)bytes);
	static const char *const keys[] = {"appId", "versionName", "versionCode", "minSdk", "abis", "type"};
	for (size_t i = 0; o && i < SW_ARRAY_SIZE(keys); i++) {
		json_t *v = json_object_get(meta, keys[i]);
		json_object_set(o, keys[i], v ? v : json_null());
	}
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(meta, "warnings"), i, w) json_array_append(warnings, w);
	if (o)
		json_object_set_new(o, "warnings", warnings);
	else
		json_decref(warnings);
	json_decref(meta);
	free(real);
	if (!o)
		return sw__error_nomem(err);
	*out_json = sw__json_compact(o);
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

static long as_long(json_t *v)
{
	if (json_is_integer(v))
		return (long)json_integer_value(v);
	if (json_is_string(v)) {
		char *end = NULL;
		long n = strtol(json_string_value(v), &end, 10);
		if (end && end != json_string_value(v) && !*end)
			return n;
	}
	return -1;
}

/* "a, b, c" of a JSON array of strings into @buf. */
static void join_list(json_t *arr, char *buf, size_t cap)
{
	size_t used = 0, i;
	json_t *v;
	buf[0] = '\0';
	json_array_foreach(arr, i, v)
	{
		if (!json_is_string(v) || used + 2 >= cap)
			continue;
		int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", json_string_value(v));
		if (n < 0 || (size_t)n >= cap - used)
			break;
		used += (size_t)n;
	}
}

SW_API int sw_artifact_install_check(const char *artifact_json, const char *properties_json, char **out_json,
                                     sw_error **err)
{
	if (out_json)
		*out_json = NULL;
	json_t *a = artifact_json ? json_loads(artifact_json, 0, NULL) : NULL;
	json_t *p = properties_json ? json_loads(properties_json, 0, NULL) : NULL;
	if (!json_is_object(a) || !json_is_object(p)) {
		json_decref(a);
		json_decref(p);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_artifact_install_check: the artifact and the device properties must be JSON objects");
	}
	json_t *apk_abis = json_object_get(a, "abis");
	json_t *dev_abis = json_object_get(p, "abis");
	long min_sdk = as_long(json_object_get(a, "minSdk"));
	long sdk = as_long(json_object_get(p, "sdk"));
	json_t *notes = json_array();
	int rc = SW_OK;
	/* ABIs: an APK without native code (no lib/<abi>/) runs anywhere; else one of its ABIs must be the device's */
	bool abi_known = json_array_size(dev_abis) > 0;
	bool abi_ok = true;
	if (json_array_size(apk_abis) && abi_known) {
		abi_ok = false;
		size_t i, j;
		json_t *x, *y;
		json_array_foreach(apk_abis, i, x) json_array_foreach(dev_abis, j, y) if (json_equal(x, y)) abi_ok = true;
	} else if (json_array_size(apk_abis) && !abi_known) {
		json_array_append_new(notes, json_string("the device did not report its ABIs (ro.product.cpu.abilist); the "
		                                         "device itself decides"));
	}
	bool sdk_ok = !(min_sdk > 0 && sdk > 0 && min_sdk > sdk);
	if (min_sdk > 0 && sdk <= 0)
		json_array_append_new(notes, json_string("the device did not report its SDK level (ro.build.version.sdk); "
		                                         "the device itself decides"));
	char have[512], want[512];
	join_list(apk_abis, have, sizeof(have));
	join_list(dev_abis, want, sizeof(want));
	if (!abi_ok) {
		rc = sw__error_set(err, SW_EUNSUPPORTED, "APK_ARCH_INCOMPATIBLE",
		                   "Build the APK for the device's ABI (or a universal one), or use an emulator image whose "
		                   "ABI the APK carries",
		                   "The APK carries native code for %s only; the device runs %s (ro.product.cpu.abilist), "
		                   "so it was not installed",
		                   have, want);
	} else if (!sdk_ok) {
		rc = sw__error_set(err, SW_EUNSUPPORTED, "ANDROID_MIN_SDK_INCOMPATIBLE",
		                   "Boot an emulator with a newer API level (at least the APK's minSdkVersion), or lower "
		                   "minSdkVersion in the app's build",
		                   "The APK needs Android API %ld (minSdkVersion); the device is API %ld "
		                   "(ro.build.version.sdk), so it was not installed",
		                   min_sdk, sdk);
	}
	json_t *o = json_pack("{s:O,s:O,s:o,s:o,s:b,s:b,s:o}", "apkAbis", apk_abis ? apk_abis : json_null(), "deviceAbis",
	                      dev_abis ? dev_abis : json_null(), "minSdk", min_sdk > 0 ? json_integer(min_sdk) : json_null(),
	                      "deviceSdk", sdk > 0 ? json_integer(sdk) : json_null(), "abiOk", abi_ok, "sdkOk", sdk_ok,
	                      "notes", notes);
	if (rc != SW_OK && err && *err && o)
		sw__error_take_details(*err, json_incref(o));
	if (rc == SW_OK && out_json) {
		*out_json = o ? sw__json_compact(o) : NULL;
		if (!*out_json)
			rc = sw__error_nomem(err);
	}
	json_decref(o);
	json_decref(a);
	json_decref(p);
	return rc;
}
