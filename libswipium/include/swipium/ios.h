/* swipium/ios.h: the iOS Simulator through `xcrun simctl`: toolchain detection, simulator control (qa_ios). */
#ifndef SWIPIUM_IOS_H
#define SWIPIUM_IOS_H

#include <swipium/common.h>
#include <swipium/context.h>
#include <swipium/driver.h>
#include <swipium/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * What this machine has for iOS, decided by the tools and never by the OS name: `xcrun simctl help`
 * exiting 0 (xcrun looked up on PATH) turns iOS on; `xcodebuild -version` gates WebDriverAgent builds;
 * `idb` (optional) gates visual-only taps. The answer is cached for a few seconds per process; nothing is
 * looked up before the first call.
 *
 * @out_json (transfer full): `{available, xcrun: {path, ok, detail}, xcodebuild: {path, version},
 * idb: {path}, reason?, nextSteps?}` (a missing tool's path is null).
 */
SW_API int sw_ios_toolchain(sw_ctx *ctx, char **out_json, sw_error **err);

/**
 * SW_OK when iOS is available; otherwise SW_EUNSUPPORTED / BACKEND_UNSUPPORTED whose message names the
 * missing or failing tool and whose details carry `nextSteps` (how to get it).
 */
SW_API int sw_ios_check(sw_ctx *ctx, sw_error **err);

/**
 * The simulators `xcrun simctl list devices -j` reports, in one spawn:
 * `{simulators: [{udid, name, state, runtime ("iOS 17.5"), runtimeId, booted}], booted: [udid...],
 *   runtimes: [{name, identifier, devices}], omitted: {unavailable: [{udid, name, runtime, availabilityError}],
 *   otherPlatforms: [{udid, name, runtime}]}}`. Only available iOS simulators are targets: unavailable
 * devices and watchOS / tvOS / visionOS ones are listed under `omitted`, counted, never dropped silently.
 * Output simctl cannot have written (garbage, empty, truncated JSON) is BACKEND_ERROR.
 */
SW_API int sw_ios_simulators(sw_ctx *ctx, char **out_json, sw_error **err);

/**
 * What one qa_ios action would run, without running anything that changes the simulator (it lists
 * the simulators and reads the app's Info.plist): `{action, udid, name, state, commands: [{label, argv[]}],
 * app?: {path, bundleId, urlSchemes[], insideProjectRoot}}`. The consent prompt shows `commands` whole.
 * @options_json: as sw_ios_run(). Fails as sw_ios_run() would before it starts a command (NO_DEVICE,
 * MULTIPLE_DEVICES, IPA_NEEDS_REAL_DEVICE, IOS_SIMULATOR_APP_MISSING, IOS_APP_WRONG_ARCH, ...).
 */
SW_API int sw_ios_plan(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err);

/**
 * Runs one qa_ios action (TOOLS.md §1.2): @options_json `{action: list|boot|install|launch|terminate|openurl|
 * logs|privacy_reset|erase, device? (UDID or case-insensitive name substring), app? (.app, absolute or
 * relative to the session's project), bundleId?, url?, last? (=5m), service? (=all), bootWaitMs? (<= 40000)}`.
 * Consent is the caller's job (sw_ios_plan() gives the commands to show).
 *
 * Without a device the session's bound simulator is used, else the only booted one. `boot` binds the
 * simulator to @s and waits for Booted at most bootWaitMs (40 s; SWIPIUM_IOS_BOOT_WAIT_MS lowers it), then
 * answers `status:"booting"` with {udid, name, elapsedMs, next}. `logs` saves the lines as an artifact of @s.
 * Every simctl call has a timeout; a simctl failure carries its domain, code, exit status and reason.
 * @abort_fn (nullable) stops a long call (boot wait, install). (transfer full)
 */
SW_API int sw_ios_run(sw_ctx *ctx, sw_session *s, const char *options_json, int (*abort_fn)(void *ud), void *abort_ud,
                      char **out_json, sw_error **err);

/**
 * qa_wait {for: "simulator_booted"}: polls simctl's list until the session's simulator (else the only one
 * booting or booted) is Booted, at most @timeout_ms. Result `{for, satisfied, timedOut, waitedMs, timeoutMs,
 * state: {udid, name, simulator}}`. Still not Booted then: SIMULATOR_BOOT_TIMEOUT (details {udid, name, state,
 * waitedMs}); none booting: NO_DEVICE. (transfer full)
 */
SW_API int sw_ios_wait_booted(sw_ctx *ctx, sw_session *s, long timeout_ms, int (*abort_fn)(void *ud), void *abort_ud,
                              char **out_json, sw_error **err);

/**
 * qa_resolve_target {platform: "ios"}: @options_json {device?, include?: ["context"]}. Prefers a booted
 * simulator (else the session's, else the first available, planned with `willBoot:true`; nothing is
 * booted). Result `{platform, selected: {kind, udid, name, runtime, state}, reason, alternatives,
 * preconditions, willBoot, context?: {iosBooted, iosAvailable, iosOmitted}}`. (transfer full)
 */
SW_API int sw_ios_resolve_target(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json,
                                 sw_error **err);

/**
 * qa_wda's plan: {action, url (base), loopback, remoteAllowedByEnv, needsNonLoopbackConsent}. A URL that is
 * not loopback (localhost, 127.0.0.0/8, [::1] read from its host) and not listed in SWIPIUM_ALLOW_REMOTE_WDA
 * fails DESTRUCTIVE_REFUSED unless allowNonLoopback is true (then the caller asks wda_non_loopback consent
 * and passes nonLoopbackApproved:true). Nothing is sent. (transfer full)
 */
SW_API int sw_ios_wda_plan(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err);
/**
 * qa_wda: status, doctor, diagnose, tune (reports only), attach (binds the URL to the session: mode
 * structured), logs and stop (no WDA is managed by this server), build/start (BACKEND_UNSUPPORTED here).
 * (transfer full)
 */
SW_API int sw_ios_wda_run(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err);

/**
 * qa_wait {for: "wda_ready"}: polls the session's attached WebDriverAgent (else http://127.0.0.1:8100) until
 * its /status says ready or @timeout_ms passes ({satisfied, timedOut, url, status}). A non-loopback attached
 * URL is not polled here (DESTRUCTIVE_REFUSED). (transfer full)
 */
SW_API int sw_ios_wait_wda(sw_ctx *ctx, sw_session *s, long timeout_ms, int (*abort_fn)(void *ud), void *abort_ud,
                           char **out_json, sw_error **err);

/**
 * For server shutdown: leaves every WebDriverAgent this server started (qa_wda start) running, for the next
 * server to adopt (or stop, when its /status is not ready), and registers each one's log so far in its
 * session. @store: (nullable) finds each runner's session. Nothing is signalled.
 */
SW_API void sw_ios_wda_shutdown(sw_ctx *ctx, sw_store *store);

/**
 * qa_prepare_ios_target's plan (nothing runs): {app {path, bundleId, insideProjectRoot}?, bundleId, udid?,
 * commands[], risk (install_app: low inside the project root, medium outside, on realpaths), attachWda}.
 * @options_json {app?, bundleId?, device?, launch?, attachWda? auto|required|skip}. (transfer full)
 */
SW_API int sw_ios_prepare_plan(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err);
/**
 * qa_prepare_ios_target: boots (waits ≤30 s; past that answers {status:"booting", jobId} and a job of kind
 * prepare_ios finishes), installs, launches, records the app as the session's, and settles the mode:
 * attachWda auto attaches a ready loopback WebDriverAgent (the session's URL, else http://127.0.0.1:8100) or
 * stays visual-only with a workaround; required fails with its WDA_* code; skip probes nothing. Consent is
 * the caller's. (transfer full)
 */
SW_API int sw_ios_prepare_run(sw_ctx *ctx, sw_session *s, const char *options_json, int (*abort_fn)(void *ud),
                              void *abort_ud, char **out_json, sw_error **err);

/**
 * The iOS Simulator driver: simctl for screenshots, recordings, apps and URLs; WebDriverAgent (when the
 * bind options carry {"wda": {"url", "sessionId"?}}) for the UI tree and input; without it visual-only
 * (taps through idb when it is on PATH). @options_json of sw_device_open: {serial? (UDID), appId?, wda?}.
 * (transfer none)
 */
SW_API const struct sw_driver_ops *sw_driver_ios(void);

#ifdef __cplusplus
}
#endif

#endif
