/* swipium/artifacts.h: installable apps: what an .apk/.aab/.ipa/.app is, finding them in a project, its framework. */
#ifndef SWIPIUM_ARTIFACTS_H
#define SWIPIUM_ARTIFACTS_H

#include <swipium/common.h>
#include <swipium/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Reads the metadata of one build artifact without any SDK: an .apk (binary AndroidManifest.xml, references
 * resolved through resources.arsc, ABIs from lib/<abi>/), an .aab (ABIs), an .ipa or an .app folder
 * (Info.plist, XML or binary). The values equal what `aapt dump badging` prints for an APK.
 *
 * @out_json (transfer full, sw_free) gets
 * `{path, type: apk|aab|ipa|app, platform: android|ios, appId, versionName, versionCode, minSdk, abis[],
 *   installableOn[], sizeBytes, warnings[]}` (unknown values are null). A file that is not a zip (a Git LFS
 * pointer, a truncated download), a manifest or plist over 8 MiB inflated, more than 100,000 zip entries or a
 * compression bomb is not an error: the values stay null and a warning says why. Memory stays bounded: entries
 * are inflated 64 KiB at a time up to their limit.
 *
 * Fails with SW_ENOTFOUND (NO_ARTIFACT) when @path does not exist and SW_EINVAL (INVALID_ARGUMENT) when it is
 * not one of the four kinds.
 */
SW_API int sw_artifact_inspect(const char *path, char **out_json, sw_error **err);

/**
 * Finds the installable app a project already built. Walks @root (depth 10, never into node_modules, .git,
 * .swipium, Pods, .gradle, nor through symlinked folders) for .apk, .aab, .ipa and .app; Gradle, Flutter and
 * Xcode output folders rank first; with allowOutsideRoot also ~/Library/Developer/Xcode/DerivedData/<id>/Build/
 * Products (home from @ctx, nullable).
 *
 * @options_json (nullable): `{platform?: android|ios|any, buildType?: debug|release|any, path?,
 * allowOutsideRoot?, requireInstallableOn?: android-emulator|android-real|ios-simulator|ios-real}`.
 * @out_json (transfer full): `{best, candidates[] (ranked, at most 5), searchedLocations[], warnings[],
 * moreCandidates?}`; each candidate is sw_artifact_inspect()'s object plus `buildType` (debug|release|unknown)
 * and `outsideRoot`. Inside-ness is decided on the realpath of both the file and the root.
 *
 * Failure codes: NO_BUILD_ARTIFACT (SW_ENOTFOUND; details.searchedLocations), AAB_NEEDS_BUNDLETOOL
 * (SW_EUNSUPPORTED; only an .aab for an Android target; details.aab), ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL
 * (SW_EDENIED; the path or every artifact found resolves outside the root and allowOutsideRoot is not set).
 */
SW_API int sw_artifact_resolve(sw_ctx *ctx, const char *root, const char *options_json, char **out_json,
                               sw_error **err);

/**
 * What installing @apk (absolute, or relative to @root) from a session on @root means, read before anyone is
 * asked: `{apk (its realpath), requested, sha256 (the whole file), sizeBytes, insideRoot, risk: low|medium,
 * appId, versionName, versionCode, minSdk, abis, type, warnings[]}`. Inside-ness is decided on the realpath of
 * both (a symlink out of the root and `<root>/../x.apk` are outside, risk medium). A file that is not a
 * readable APK keeps null values and a warning: the device has the last word.
 *
 * Fails with SW_ENOTFOUND (NO_ARTIFACT) when @apk does not resolve to a file. (@out_json: transfer full)
 */
SW_API int sw_artifact_install_plan(const char *root, const char *apk, char **out_json, sw_error **err);

/**
 * Whether a device can take an APK, before anything is sent to it: @artifact_json is sw_artifact_inspect()'s
 * (or sw_artifact_install_plan()'s) object, @properties_json the driver's properties ({sdk, abis[]}, see
 * struct sw_driver_ops.properties). An APK with native code (`lib/<abi>/`) needs one of its ABIs in the
 * device's list (ro.product.cpu.abilist), else APK_ARCH_INCOMPATIBLE; a minSdkVersion above the device's
 * ro.build.version.sdk is ANDROID_MIN_SDK_INCOMPATIBLE (both SW_EUNSUPPORTED, the comparison in the error's
 * details). A value the device or the APK does not tell is not a refusal: a note says the device decides.
 * @out_json (nullable, transfer full): `{apkAbis, deviceAbis, minSdk, deviceSdk, abiOk, sdkOk, notes[]}`.
 */
SW_API int sw_artifact_install_check(const char *artifact_json, const char *properties_json, char **out_json,
                                     sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
