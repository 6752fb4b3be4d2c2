/* swipium/artifacts.h: installable apps: what an .apk/.aab/.ipa/.app is, finding them in a project, its framework. */
#ifndef SWIPIUM_ARTIFACTS_H
#define SWIPIUM_ARTIFACTS_H

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/session.h>

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

/* ---- bundletool: an App Bundle turned into one installable APK (qa_bundletool) ---- */

/**
 * What converting a bundle would do, run nothing: `{aab (realpath), name, apksPath, generatedApk, fromCache,
 * force, argv[], command, bundletool {source: BUNDLETOOL_JAR|PATH, argv} | null, looked[]}`. bundletool is
 * `java -jar $BUNDLETOOL_JAR` (the file exists and java is on PATH), else `bundletool` on PATH; the command is
 * `<bundletool> build-apks --bundle <aab> --output <root>/.swipium/artifacts/<name>.apks --overwrite --mode
 * universal`, the APK `<root>/.swipium/artifacts/<name>-universal.apk`. `fromCache` when that APK is newer than the
 * bundle and @options_json's force is not set.
 *
 * @options_json (nullable): `{aab?, force?}`; without aab the project's best-ranked .aab. Errors: NO_BUILD_ARTIFACT
 * (no bundle, or aab names no file), ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL (its realpath is outside @root),
 * INVALID_ARGUMENT (not an .aab), AAB_NEEDS_BUNDLETOOL (neither bundletool, and no fresh cache; details.looked).
 * (@out_json: transfer full)
 */
SW_API int sw_bundletool_plan(const char *root, const char *options_json, char **out_json, sw_error **err);

/**
 * Runs @plan_json (sw_bundletool_plan()'s) for session @s: bundletool in the project root (10 minutes at most,
 * stopped when @abort_fn answers non-zero), its output saved as a `logs` artifact (redacted), then universal.apk
 * copied out of the APK set with libzip in 64 KiB steps, bounded by the declared size (and 2 GiB, and the bomb
 * ratio), through a temporary name. Nothing runs when the plan says fromCache. @device_json (nullable):
 * `{device?, install?}`, then sw_bundletool_device() follows. Result `{converted, fromCache, originalArtifact,
 * generatedApk, apksPath, command, logUri?}` (+ the device part). Failures: ANDROID_SIGNING_FAILED (bundletool's
 * output names the keystore or signing), AAB_BUILD_APKS_FAILED (other failures, timeout, no universal.apk),
 * UNSAFE_ACTION_REFUSED (a link where the set goes), CANCELLED; details.logUri. (@out_json: transfer full)
 */
SW_API int sw_bundletool_run(sw_ctx *ctx, sw_session *s, const char *plan_json, const char *device_json,
                             int (*abort_fn)(void *userdata), void *abort_userdata, char **out_json, sw_error **err);

/**
 * sw_bundletool_run() as a background job of session @s (kind "bundletool"): @plan_json as above,
 * @device_json (nullable) `{device?, install?}`, where a missing device means the session's bound one
 * (else the single online one). The job's result is sw_bundletool_run()'s; its log is a job artifact; a
 * failure leaves the job `failed` with the code in result.failureCode; qa_job_cancel stops bundletool
 * and the install. Consent (install_app) is the caller's, before this. (@job_id: transfer full)
 */
SW_API int sw_bundletool_start(sw_ctx *ctx, sw_session *s, const char *plan_json, const char *device_json,
                               char **job_id, sw_error **err);

/**
 * @apk (a generated universal APK) against the device @options_json names (`{device?, install?}`; else the single
 * online one): the install checks of sw_artifact_install_check() through the driver, and with install the install
 * itself. `{device, deviceCheck, installed}`. AAB_DEVICE_SPEC_FAILED when the device's properties cannot be read;
 * APK_ARCH_INCOMPATIBLE, ANDROID_MIN_SDK_INCOMPATIBLE, ANDROID_SIGNATURE_CONFLICT, AAB_INSTALL_FAILED (any other
 * refusal). (@out_json: transfer full)
 */
SW_API int sw_bundletool_device(sw_ctx *ctx, const char *apk, const char *options_json, int (*abort_fn)(void *userdata),
                                void *abort_userdata, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
