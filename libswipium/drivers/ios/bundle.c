/* bundle.c: is this app bundle something the simulator can install? Decided from its Info.plist, before installing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../../artifacts/artifacts-internal.h"
#include "ios-internal.h"

static int missing(const char *what, const char *path, sw_error **err)
{
	int rc = sw__error_set(err, SW_ENOTFOUND, "IOS_SIMULATOR_APP_MISSING",
	                       "Build the app for the simulator (xcodebuild -sdk iphonesimulator ... build, or Xcode with a "
	                       "simulator destination) and pass the .app from Build/Products/<config>-iphonesimulator",
	                       "%s", what);
	if (err && *err)
		sw__error_take_details(*err, json_pack("{s:s}", "app", path));
	return rc;
}

static bool has_platform(json_t *plats, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(plats, i, v)
	{
		if (!strcasecmp(json_string_value(v), name))
			return true;
	}
	return false;
}

int sw__ios_app_check(const char *path, json_t **out, sw_error **err)
{
	char what[1200];
	if (!path || !*path)
		return missing("No app was given", "", err);
	if (sw__str_has_suffix(path, ".ipa") || sw__str_has_suffix(path, ".IPA")) {
		int rc = sw__error_set(err, SW_EUNSUPPORTED, "IPA_NEEDS_REAL_DEVICE",
		                       "Build the app for the simulator and pass its .app bundle (an .ipa is signed for "
		                       "real devices)",
		                       "%s is an .ipa, which only installs on a real device; the simulator takes a .app",
		                       path);
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:s}", "app", path));
		return rc;
	}
	char *real = realpath(path, NULL);
	struct stat st;
	if (!real || stat(real, &st) != 0) {
		free(real);
		snprintf(what, sizeof(what), "%s does not exist", path);
		return missing(what, path, err);
	}
	if (!S_ISDIR(st.st_mode) || !sw__str_has_suffix(real, ".app")) {
		snprintf(what, sizeof(what), "%s is not an .app bundle (a folder ending in .app)", path);
		free(real);
		return missing(what, path, err);
	}
	char *pl = sw__path_join(real, "Info.plist");
	char *data = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	if (!pl || sw__read_file(pl, (size_t)8 << 20, &data, &len, &e) != SW_OK) {
		snprintf(what, sizeof(what), "%s has no readable Info.plist (%s), so it is not a built app", path,
		         e ? sw_error_message(e) : "out of memory");
		sw_error_free(e);
		free(pl);
		free(real);
		return missing(what, path, err);
	}
	free(pl);
	json_t *info = NULL;
	char why[200];
	if (sw__info_plist_read(data, len, &info, why, sizeof(why)) != 0) {
		free(data);
		snprintf(what, sizeof(what), "%s: %s, so the bundle cannot be installed", path, why);
		free(real);
		return missing(what, path, err);
	}
	free(data);
	if (!json_is_string(json_object_get(info, "bundleId"))) {
		json_decref(info);
		snprintf(what, sizeof(what), "%s: Info.plist has no CFBundleIdentifier, so the bundle cannot be installed",
		         path);
		free(real);
		return missing(what, path, err);
	}
	json_t *plats = json_object_get(info, "platforms");
	const char *dt = json_string_value(json_object_get(info, "dtPlatformName"));
	bool sim = has_platform(plats, "iPhoneSimulator") || (dt && !strcasecmp(dt, "iphonesimulator"));
	bool device = has_platform(plats, "iPhoneOS") || (dt && !strcasecmp(dt, "iphoneos"));
	if (device && !sim) {
		int rc = sw__error_set(err, SW_EUNSUPPORTED, "IOS_APP_WRONG_ARCH",
		                       "Build for the simulator (xcodebuild -sdk iphonesimulator, or a simulator destination) "
		                       "and pass that .app",
		                       "%s is a device build (%s%s%s), not a simulator build", path,
		                       json_array_size(plats) ? "CFBundleSupportedPlatforms iPhoneOS" : "",
		                       json_array_size(plats) && dt ? ", " : "", dt ? "DTPlatformName iphoneos" : "");
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:s,s:O,s:O}", "app", path, "platforms", plats,
			                                       "dtPlatformName", json_object_get(info, "dtPlatformName")));
		json_decref(info);
		free(real);
		return rc;
	}
	json_object_set_new(info, "path", json_string(real));
	free(real);
	*out = info;
	return SW_OK;
}
