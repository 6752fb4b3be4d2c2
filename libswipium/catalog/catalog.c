/* catalog.c: the 137 product failure codes with their triage fields and plain-language guidance. */
#include <stdlib.h>
#include <string.h>

#include "catalog-internal.h"

/*
 * Bucket, owner, severity, retry safety and canSwipiumFix follow the reference's
 * catalog. For the codes introduced in 2.0 that it leaves without severity or
 * retry safety, this project chose the values (documented in docs/report-formats.md).
 * Marks: R = reserved (named for evidence and policy, not returned yet),
 * F = appears as a report health finding.
 * Result: the one sw_result every raise of the code returns (UNKNOWN: SW_OK, the failure's own result);
 * tests/unit/check-catalog-results.py holds the sources to it, sw__catalog_result() serves computed codes.
 */
#define E(code, result, bucket, owner, sev, retry, fix, marks, summary, recovery)                                      \
	{                                                                                                              \
#code, result, bucket, owner, sev, retry, fix, marks, summary, recovery                                \
	}

static const sw__catalog_entry entries[] = {
    /* ---- app_bug ---- */
    E(NATIVE_CRASH, SW_ESTATE, "app_bug", "app", "high", false, false, "F", "The app process crashed natively",
      "Read the crash stack in the device logs, fix the crash in the app, then rebuild and run again."),
    E(ANR, SW_ESTATE, "app_bug", "app", "high", false, false, "F", "The app stopped responding (Application Not Responding)",
      "Find the work blocking the main thread (logs and traces show it), move it off the UI thread, then rerun."),
    E(ERROR_BOUNDARY, SW_ESTATE, "app_bug", "app", "high", false, false, "F",
      "The app showed an error boundary or a failed web view instead of its screen",
      "Open the screenshot and the logs for the error that reached the boundary, fix it in the app and rerun."),
    E(REDBOX, SW_ESTATE, "app_bug", "app", "high", false, false, "F", "React Native showed a red box (fatal JavaScript error)",
      "Fix the JavaScript error named in the red box and the Metro output, reload the bundle and rerun."),
    E(LOGBOX, SW_ESTATE, "app_bug", "app", "medium", true, false, "F", "React Native showed a LogBox error or warning",
      "Read the LogBox message and fix or silence its cause in the app; the run itself can be retried."),
    E(BACKEND_ERROR, SW_ESTATE, "app_bug", "app", "high", false, false, "F",
      "The app displayed an error surface, usually from a failing backend call",
      "Check the backend the app talks to and the request logs around the screenshot, fix the failure, rerun."),
    E(ASSERTION_FAILED, SW_ESTATE, "app_bug", "app", "high", false, false, "",
      "An expected element, text or visual state was not there",
      "Compare the screenshot with the expectation; fix the app if it regressed or update the flow if the app "
      "changed on purpose."),
    E(WDA_MAIN_THREAD_BUSY, SW_ESTATE, "app_bug", "app", "medium", true, false, "",
      "The iOS app kept its main thread too busy for WebDriverAgent to read it",
      "Retry once the app settles; if it repeats, profile the screen for main-thread work and reduce it."),
    E(BLANK_SCREEN, SW_ESTATE, "app_bug", "app", "high", false, false, "R", "The app showed a blank screen",
      "Check the logs for a rendering or loading failure on that screen and fix it in the app."),
    E(INFINITE_SPINNER, SW_ESTATE, "app_bug", "app", "high", false, false, "R", "The app kept showing a loading indicator",
      "Check the request or task behind the spinner for a hang or a missing timeout, fix it and rerun."),

    /* ---- environment ---- */
    E(NO_DEVICE, SW_ENOTFOUND, "environment", "environment", "high", true, false, "", "No emulator, simulator or device is available",
      "Start an Android emulator or boot an iOS simulator (or connect one), then call the tool again."),
    E(ADB_NOT_FOUND, SW_ENOTFOUND, "environment", "environment", "high", true, false, "", "The adb tool could not be found",
      "Install the Android SDK platform-tools and put adb on PATH, or set ANDROID_HOME, then retry."),
    E(DEVICE_NOT_READY, SW_EDEVICE, "environment", "environment", "high", true, false, "",
      "The device is still booting or did not answer property queries",
      "Wait until the device has fully booted (boot animation finished) and retry."),
    E(EMULATOR_BOOT_FAILED, SW_EDEVICE, "environment", "environment", "high", true, false, "",
      "The Android emulator failed to boot",
      "Check the emulator output for the cause (AVD, disk space, acceleration), fix it and boot again."),
    E(SIMULATOR_RUNTIME_MISSING, SW_ENOTFOUND, "environment", "environment", "high", true, false, "",
      "The requested iOS simulator runtime is not installed",
      "Install the runtime from Xcode settings (Platforms) or pick a simulator whose runtime is installed."),
    E(SIMULATOR_BOOT_FAILED, SW_EDEVICE, "environment", "environment", "high", true, false, "", "The iOS simulator failed to boot",
      "Read the simctl error, shut down or erase the simulator if it is stuck, and boot it again."),
    E(SIMULATOR_BOOT_TIMEOUT, SW_ETIMEOUT, "environment", "environment", "high", true, false, "",
      "The iOS simulator did not finish booting in time",
      "Give the machine more resources or boot the simulator ahead of time, then retry."),
    E(MULTIPLE_DEVICES, SW_EINVAL, "environment", "environment", "medium", true, false, "",
      "More than one device is online and none was chosen",
      "Name the device to use (its serial or UDID) or stop the devices you do not want, then retry."),
    E(WRONG_FOREGROUND, SW_ESTATE, "environment", "environment", "medium", true, false, "F",
      "Another app was in the foreground instead of the app under test",
      "Bring the app under test back to the foreground (relaunch it) and dismiss whatever took over."),
    E(PERMISSION_DIALOG, SW_ESTATE, "environment", "environment", "medium", false, false, "F",
      "A system permission dialog covered the app",
      "Decide whether to grant the permission, answer the dialog (or pre-grant it), then continue."),
    E(NATIVE_ALERT, SW_ESTATE, "environment", "environment", "medium", false, false, "F", "A native system alert covered the app",
      "Read the alert, dismiss or answer it deliberately, then continue the run."),
    E(WDA_UNREACHABLE, SW_EDEVICE, "environment", "environment", "high", true, false, "",
      "WebDriverAgent did not answer at its URL",
      "Start or restart WebDriverAgent for this simulator and check that its port is reachable, then retry."),
    E(WDA_BUILD_FAILED, SW_EIO, "environment", "environment", "high", true, false, "", "Building WebDriverAgent failed",
      "Read the xcodebuild log, fix the toolchain or project problem it names, and build again."),
    E(WDA_SIGNING_FAILED, SW_EIO, "environment", "environment", "high", false, false, "",
      "WebDriverAgent could not be code-signed",
      "Configure a valid signing team and provisioning for WebDriverAgent, then build it again."),
    E(WDA_START_FAILED, SW_EDEVICE, "environment", "environment", "high", true, false, "", "WebDriverAgent failed to start",
      "Check the WebDriverAgent log for the start error, stop stale instances and start it again."),
    E(WDA_SESSION_FAILED, SW_EDEVICE, "environment", "environment", "high", true, false, "",
      "WebDriverAgent refused to create a session",
      "Restart WebDriverAgent and make sure the app bundle id is installed on the simulator, then retry."),
    E(WDA_PORT_CONFLICT, SW_EIO, "environment", "environment", "medium", true, false, "",
      "The WebDriverAgent port is already taken",
      "Stop the process holding the port or choose another port for WebDriverAgent, then retry."),
    E(STALE_WDA_DEVICE, SW_ESTATE, "environment", "environment", "high", false, false, "",
      "WebDriverAgent is attached to a different device than the session",
      "Restart WebDriverAgent against the session's simulator before continuing."),
    E(DEV_SERVER_DOWN, SW_EIO, "environment", "environment", "high", true, false, "R", "The development server is not running",
      "Start the app's development server (for example Metro) and retry."),
    E(NETWORK_SERVICE_UNAVAILABLE, SW_EIO, "environment", "environment", "high", true, false, "R",
      "A network service the app needs is unavailable",
      "Bring the service back or point the app at a working environment, then retry."),
    E(NETWORK_OFFLINE, SW_EDEVICE, "environment", "environment", "medium", true, false, "R", "The device has no network connection",
      "Restore the device's network (turn off airplane mode, check the host connection) and retry."),
    E(DEVICE_BOOT_FAILED, SW_EDEVICE, "environment", "swipium", "high", true, true, "R", "The device failed to boot",
      "Let Swipium retry the boot, or boot the device by hand and check its logs."),
    E(PROJECT_ROOT_UNRESOLVED, SW_ENOTFOUND, "environment", "user", "high", true, false, "",
      "The project root could not be determined",
      "Pass the project root explicitly or run from inside the app's repository."),
    E(PROJECT_ROOT_EMPTY, SW_ENOTFOUND, "environment", "user", "high", true, false, "", "The project root has no project files",
      "Point the tool at the directory that holds the mobile app's sources."),
    E(NOT_MOBILE_PROJECT, SW_EUNSUPPORTED, "environment", "user", "high", true, false, "",
      "The project root does not look like a mobile app",
      "Choose the directory of the Android, iOS, React Native, Expo or Flutter app, or pass a built artifact."),
    E(UNSUPPORTED_FRAMEWORK, SW_EUNSUPPORTED, "environment", "user", "high", false, false, "",
      "The app's framework is not supported for building",
      "Build the app yourself and hand the APK or .app to Swipium instead."),
    E(NO_BUILD_ARTIFACT, SW_ENOTFOUND, "environment", "swipium", "high", true, true, "", "No installable build of the app was found",
      "Build the app with the project's own build (e.g. ./gradlew assembleDebug) and pass the APK or .app path."),
    E(NO_ARTIFACT, SW_ENOTFOUND, "environment", "environment", "high", true, false, "",
      "A required file (APK, WebDriverAgent project or flow app id) is missing",
      "Provide the missing file or setting named in the message and retry."),
    E(ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL, SW_EDENIED, "environment", "user", "medium", true, false, "",
      "The build artifact lies outside the project root",
      "Approve using that artifact explicitly or copy it inside the project root."),
    E(AAB_NEEDS_BUNDLETOOL, SW_EUNSUPPORTED, "environment", "environment", "high", true, false, "",
      "An Android App Bundle needs bundletool to install",
      "Install bundletool and retry, or build an APK instead (e.g. ./gradlew assembleDebug)."),
    E(BUNDLETOOL_MISSING, SW_ENOTFOUND, "environment", "environment", "high", true, false, "", "bundletool is not installed",
      "Install bundletool and make it available on PATH, then retry."),
    E(AAB_BUILD_APKS_FAILED, SW_EIO, "environment", "environment", "high", true, false, "",
      "bundletool could not build APKs from the bundle",
      "Read the bundletool output, fix the bundle or signing problem it names and retry."),
    E(AAB_DEVICE_SPEC_FAILED, SW_EDEVICE, "environment", "environment", "high", true, false, "",
      "bundletool could not read the device specification",
      "Make sure exactly one booted device is reachable through adb and retry."),
    E(AAB_INSTALL_FAILED, SW_EDEVICE, "environment", "environment", "high", true, false, "",
      "Installing the APKs built from the bundle failed",
      "Read the install error (space, signature, SDK level), fix it and install again."),
    E(INSTALL_FAILED, SW_EDEVICE, "environment", "environment", "high", true, false, "", "Installing the app failed",
      "Read the installer's error code, free space or uninstall conflicting builds, and install again."),
    E(WRONG_ARCH, SW_EUNSUPPORTED, "environment", "environment", "high", true, false, "",
      "The build does not match the device's CPU architecture",
      "Use a device image with a matching architecture or build the app for the device's ABI."),
    E(APK_ARCH_INCOMPATIBLE, SW_EUNSUPPORTED, "environment", "environment", "high", true, false, "",
      "The APK has no native libraries for the device's ABI",
      "Build the APK with the device's ABI included, or use an emulator image with a supported ABI."),
    E(ANDROID_MIN_SDK_INCOMPATIBLE, SW_EUNSUPPORTED, "environment", "environment", "high", false, false, "",
      "The device's Android version is below the app's minimum SDK",
      "Use an emulator or device running at least the app's minSdkVersion."),
    E(ANDROID_SIGNING_FAILED, SW_EIO, "environment", "environment", "high", true, false, "", "Signing the Android build failed",
      "Check the keystore settings of the build and retry."),
    E(ANDROID_SIGNATURE_CONFLICT, SW_EDEVICE, "environment", "swipium", "high", false, true, "",
      "An installed build with another signature blocks the install",
      "Uninstall the existing app (after approving the data loss) and install again."),
    E(IPA_NEEDS_REAL_DEVICE, SW_EUNSUPPORTED, "environment", "user", "high", false, false, "",
      "An .ipa build cannot run on the iOS simulator",
      "Build the app for the simulator (a .app from an iphonesimulator build) and use that."),
    E(IPA_INSTALL_UNSUPPORTED, SW_EUNSUPPORTED, "environment", "environment", "high", false, false, "",
      "Installing an .ipa is not supported here", "Provide a simulator .app build instead of an .ipa."),
    E(IOS_APP_WRONG_ARCH, SW_EUNSUPPORTED, "environment", "environment", "high", true, false, "",
      "The .app was built for a different architecture than the simulator",
      "Rebuild the app for the simulator's architecture (arm64 on Apple silicon) and retry."),
    E(IOS_SIMULATOR_APP_MISSING, SW_ENOTFOUND, "environment", "swipium", "high", true, true, "",
      "No simulator build of the iOS app was found",
      "Build the app for the simulator with xcodebuild and pass the path of its .app bundle."),
    E(BUNDLE_ID_NOT_FOUND, SW_ENOTFOUND, "environment", "environment", "high", true, false, "",
      "The app's bundle id or package is not installed on the device",
      "Install the app on the device or correct the bundle id, then retry."),
    E(APP_LAUNCH_FAILED, SW_EDEVICE, "environment", "environment", "high", true, false, "", "The app could not be launched",
      "Check the launch error in the device logs, reinstall the app if needed and retry."),
    E(BUILD_FAILED, SW_EIO, "environment", "app", "high", false, false, "", "Building the app failed",
      "Read the build log, fix the compile or configuration error in the app, and build again."),
    E(GRADLE_FAILED, SW_EIO, "environment", "app", "high", false, false, "", "The Gradle build failed",
      "Open the Gradle log, fix the failing task or dependency, and build again."),
    E(XCODEBUILD_FAILED, SW_EIO, "environment", "app", "high", false, false, "", "xcodebuild failed",
      "Open the xcodebuild log, fix the failing target or setting, and build again."),
    E(FLUTTER_BUILD_FAILED, SW_EIO, "environment", "app", "high", false, false, "", "The Flutter build failed",
      "Run the Flutter build locally, fix the reported error and build again."),
    E(BUILD_COMMAND_UNAVAILABLE, SW_ENOTFOUND, "environment", "environment", "high", true, false, "",
      "The build tool for this project is not installed",
      "Install the build tool the project needs (Gradle wrapper, Xcode, Flutter) and retry."),
    E(DEPENDENCY_INSTALL_REQUIRED, SW_ESTATE, "environment", "environment", "medium", true, false, "",
      "Project dependencies are not installed",
      "Install the project's dependencies (for example npm ci or pod install) and retry."),
    E(BUILD_TIMED_OUT, SW_ETIMEOUT, "environment", "environment", "high", true, false, "", "The build took too long and was stopped",
      "Build once outside Swipium to warm the caches, or allow more time, then retry."),
    E(EXPO_PREBUILD_REQUIRED, SW_ESTATE, "environment", "swipium", "medium", true, true, "",
      "The Expo project needs native folders generated first",
      "Run expo prebuild (Swipium can do it with approval) and build again."),
    E(BUILD_ARTIFACT_UNRESOLVED_AFTER_SUCCESS, SW_EIO, "environment", "swipium", "high", true, true, "",
      "The build succeeded but its output could not be located",
      "Pass the path of the built APK or .app explicitly, or retry so Swipium searches again."),
    E(METRO_REQUIRED, SW_ESTATE, "environment", "swipium", "high", true, true, "",
      "This debug build needs the Metro bundler running",
      "Start Metro (npx react-native start or npx expo start) before launching the app, or use a release build."),
    E(METRO_FAILED, SW_EIO, "environment", "environment", "high", true, false, "", "Metro could not be connected to the device",
      "Check that Metro is running and that adb reverse works for its port, then retry."),
    E(INVALID_FLOW, SW_EINVAL, "environment", "environment", "high", true, false, "",
      "The flow file is not valid YAML or does not match the flow format",
      "Fix the flow at the line named in the message (qa_flow_check helps) and run it again."),
    E(FLOW_NOT_FOUND, SW_ENOTFOUND, "environment", "user", "medium", false, false, "", "The named flow does not exist",
      "Check the flow name against .swipium/flows/ (the message lists the paths tried)."),
    E(SEED_FAILED, SW_EIO, "environment", "environment", "medium", true, false, "", "Seeding test data failed",
      "Check the seed command or endpoint and its output, fix it, then retry."),
    E(OCR_NOT_CONFIGURED, SW_ENOTFOUND, "environment", "user", "medium", false, false, "", "No OCR provider is configured",
      "Configure an OCR provider (for example a tesseract script) or use a structured locator instead."),
    E(OCR_PROVIDER_FAILED, SW_EIO, "environment", "user", "medium", true, false, "", "The OCR provider failed",
      "Run the OCR provider by hand with the same input, fix its error, then retry."),
    E(ARTIFACT_PATH_UNWRITABLE, SW_EIO, "environment", "environment", "high", true, false, "R",
      "An artifact could not be written", "Free disk space or fix the permissions of the session directory."),
    E(REPORT_UPLOAD_SKIPPED, SW_EIO, "environment", "environment", "medium", true, false, "R",
      "Uploading the report was skipped", "Check the upload settings and credentials of the CI job."),
    E(MONOREPO_TARGET_AMBIGUOUS, SW_EINVAL, "environment", "user", "medium", true, false, "R",
      "The monorepo holds several apps and none was chosen", "Name the app directory to test."),
    E(MULTIPLE_ARTIFACTS_AMBIGUOUS, SW_EINVAL, "environment", "user", "medium", true, false, "R",
      "Several builds match and none was chosen", "Name the artifact to install."),
    E(IPA_SIGNING_REQUIRED, SW_EUNSUPPORTED, "environment", "user", "high", false, false, "R", "The .ipa needs signing for a device",
      "Sign the build with a profile that includes the device."),
    E(REAL_DEVICE_NOT_CONNECTED, SW_ENOTFOUND, "environment", "user", "high", true, false, "R",
      "The physical device is not connected", "Connect and unlock the device, then retry."),
    E(REAL_DEVICE_UDID_NOT_PROVISIONED, SW_EUNSUPPORTED, "environment", "user", "high", false, false, "R",
      "The device is not in the provisioning profile", "Add the device's UDID to the profile and re-sign."),
    E(REAL_DEVICE_BUNDLE_ID_MISMATCH, SW_EUNSUPPORTED, "environment", "user", "high", false, false, "R",
      "The profile does not match the app's bundle id", "Use a provisioning profile made for this bundle id."),
    E(REAL_DEVICE_TEAM_MISMATCH, SW_EUNSUPPORTED, "environment", "user", "high", false, false, "R",
      "The signing team does not match the profile", "Sign with the team that owns the provisioning profile."),

    /* ---- missing_data ---- */
    E(AUTH_GATE, SW_ENOTFOUND, "missing_data", "user", "medium", false, false, "", "A login screen blocks the way forward",
      "Provide test credentials (as secret inputs or fixtures) so the run can sign in, then continue."),
    E(MISSING_FIXTURE, SW_ENOTFOUND, "missing_data", "user", "medium", false, false, "",
      "A fixture or flow variable the run needs is not defined",
      "Add the missing fixture to .swipium/fixtures.json or pass the variable, then run again."),
    E(MISSING_TEST_DATA, SW_ENOTFOUND, "missing_data", "user", "medium", false, false, "",
      "A test-data placeholder could not be resolved",
      "Define the referenced SWIPIUM_ value (input or fixture) before typing it, then retry."),
    E(ISSUE_LOG_TOO_VAGUE, SW_EINVAL, "missing_data", "user", "low", false, false, "",
      "The issue title is too vague to identify the problem",
      "Give the issue a title that names the screen and what goes wrong."),
    E(ISSUE_NOT_FOUND, SW_ENOTFOUND, "missing_data", "user", "low", false, false, "", "No logged issue has that id",
      "List the logged issues and use one of their ids."),
    E(ISSUE_EVIDENCE_REQUIRED, SW_EINVAL, "missing_data", "user", "low", false, false, "",
      "Verifying a fix needs evidence from a fixed issue",
      "Mark the issue fixed first and attach the evidence of a passing run."),
    E(NO_APP_MAP, SW_ENOTFOUND, "missing_data", "swipium", "medium", true, true, "", "The project has no app map yet",
      "Build it with qa_app_map_build {projectRoot}: a static scan of the source, no device needed."),
    E(NO_RECORDED_ACTIONS, SW_ENOTFOUND, "missing_data", "swipium", "medium", false, false, "",
      "The session has no recorded actions to generate from",
      "Drive the app in this session first so there are actions to turn into a test."),
    E(MISSING_SECRET, SW_ENOTFOUND, "missing_data", "user", "medium", false, false, "R", "A required secret was not provided",
      "Provide the secret as a secret input and rerun."),
    E(AUTH_REQUIRED, SW_ENOTFOUND, "missing_data", "user", "medium", false, false, "R", "The step needs an authenticated user",
      "Sign in first or provide credentials for the run."),

    /* ---- mcp_limitation ---- */
    E(VISUAL_ONLY_SCREEN, SW_EUNSUPPORTED, "mcp_limitation", "swipium", "low", false, false, "",
      "The screen's structure could not be read, so only screenshots work here",
      "Continue with visual checks, or make the screen accessible (labels, test ids) for structured runs."),
    E(SNAPSHOT_FAILED, SW_EDEVICE, "mcp_limitation", "swipium", "low", true, false, "", "Reading the UI hierarchy failed",
      "Retry the snapshot once the screen is idle; a screenshot still works meanwhile."),
    E(STALE_REF, SW_ESTATE, "mcp_limitation", "swipium", "low", true, false, "", "The element reference is from an older snapshot",
      "Take a fresh snapshot and use its references."),
    E(ELEMENT_NOT_FOUND, SW_ENOTFOUND, "mcp_limitation", "swipium", "low", true, false, "", "No element matched the selector",
      "Take a snapshot to see what is on screen and adjust the selector."),
    E(ELEMENT_NOT_HITTABLE, SW_EUNSUPPORTED, "mcp_limitation", "swipium", "medium", true, false, "",
      "The element exists but cannot be tapped", "Scroll it into view or close what covers it, then act again."),
    E(AMBIGUOUS_SELECTOR, SW_EINVAL, "mcp_limitation", "swipium", "medium", false, false, "",
      "The selector matched more than one element",
      "Make the selector specific (id, index or a parent scope) and retry."),
    E(INVALID_SELECTOR, SW_EINVAL, "mcp_limitation", "swipium", "low", true, false, "", "The selector is malformed",
      "Fix the selector syntax as the message describes and retry."),
    E(KEYBOARD_OBSTRUCTION, SW_EDEVICE, "mcp_limitation", "swipium", "low", true, false, "",
      "The on-screen keyboard covers the target",
      "Dismiss the keyboard (qa_clear_overlay) or scroll the target into view, then retry."),
    E(KEYBOARD_NOT_DISMISSIBLE, SW_ESTATE, "mcp_limitation", "swipium", "medium", false, false, "",
      "The on-screen keyboard could not be closed",
      "Move focus away from the text field in the app, or act on elements the keyboard leaves visible."),
    E(OVERLAY_OBSTRUCTION, SW_EDEVICE, "mcp_limitation", "swipium", "low", true, false, "", "An overlay covers the target element",
      "Close the overlay (qa_clear_overlay) and retry."),
    E(TEXT_INPUT_UNSUPPORTED, SW_EUNSUPPORTED, "mcp_limitation", "swipium", "medium", false, false, "",
      "This text cannot be typed on the device",
      "Type plain ASCII text, or set the value through test data instead of typing it."),
    E(BACKEND_UNSUPPORTED, SW_EUNSUPPORTED, "mcp_limitation", "swipium", "low", false, false, "",
      "The current device backend cannot do this",
      "Use a backend that supports it (for example WebDriverAgent on iOS) or skip this step."),
    E(UI_IDLE_TIMEOUT, SW_ETIMEOUT, "mcp_limitation", "swipium", "medium", true, false, "", "The UI never became idle in time",
      "Retry once animations and loading settle, or wait explicitly."),
    E(ANIMATION_IDLE_BLOCKED, SW_ETIMEOUT, "mcp_limitation", "swipium", "medium", true, false, "",
      "A running animation kept the UI from becoming idle",
      "Disable device animations for test runs or wait for the animation to end, then retry."),
    E(WDA_SOURCE_SLOW, SW_ETIMEOUT, "mcp_limitation", "swipium", "medium", true, false, "",
      "WebDriverAgent took too long to return the UI tree",
      "Retry, or tune WebDriverAgent's snapshot settings for this app."),
    E(WDA_APP_NOT_IDLE, SW_ETIMEOUT, "mcp_limitation", "swipium", "medium", true, false, "",
      "WebDriverAgent waited for the app to go idle and gave up",
      "Retry later or relax WebDriverAgent's idle wait for this app."),
    E(WDA_HIERARCHY_TOO_LARGE, SW_ELIMIT, "mcp_limitation", "swipium", "medium", true, false, "",
      "The iOS UI tree is too large to read", "Reduce the snapshot depth or read a smaller part of the screen."),
    E(WDA_XPATH_REFUSED, SW_EUNSUPPORTED, "mcp_limitation", "swipium", "medium", false, false, "",
      "XPath lookups are refused for this iOS screen", "Use an accessibility id or label selector instead."),
    E(WEBVIEW_UNAVAILABLE, SW_EUNSUPPORTED, "mcp_limitation", "swipium", "medium", true, false, "",
      "The web view's content cannot be inspected",
      "Enable web view debugging in the debug build, or check it visually."),
    E(VISUAL_LOCATOR_DRIFT, SW_ESTATE, "mcp_limitation", "swipium", "medium", true, false, "",
      "A visual locator no longer matches the screen",
      "Refresh the visual locator from a current screenshot, or switch to a structured one."),
    E(UNEMITTABLE_STEP, SW_EUNSUPPORTED, "mcp_limitation", "swipium", "low", false, false, "",
      "A recorded step cannot be expressed in the generated test",
      "Replace the step with one that has a durable locator, or edit the generated test by hand."),
    E(STALE_CLIENT, SW_ESTATE, "mcp_limitation", "swipium", "medium", true, false, "",
      "The client called a tool or parameter that no longer exists",
      "Use the replacement named in the message and refresh the client's tool list."),
    E(UNKNOWN, SW_OK, "mcp_limitation", "swipium", "low", true, false, "", "An unclassified failure occurred",
      "Read the message and the linked evidence; retry once, then report it with the session id if it repeats."),
    E(MISSING_DURABLE_LOCATOR, SW_EUNSUPPORTED, "mcp_limitation", "app", "medium", false, false, "",
      "The element has no durable locator (test id or accessibility id)",
      "Add a testID or accessibility identifier to the element in the app."),
    E(COORDINATE_ONLY_FLOW, SW_EUNSUPPORTED, "mcp_limitation", "app", "medium", false, false, "",
      "The flow relies only on screen coordinates",
      "Give the touched elements stable ids and record the flow again with them."),
    E(SNAPSHOT_TOO_DEEP, SW_ELIMIT, "mcp_limitation", "swipium", "medium", true, false, "R",
      "The UI tree is nested too deeply to read", "Read a smaller part of the screen."),
    E(NO_CHANGE_LOOP, SW_ESTATE, "mcp_limitation", "swipium", "medium", false, false, "R",
      "Repeated actions left the screen unchanged", "Stop repeating the action and look at the screen state."),
    E(VISUAL_ONLY_ASSERTION, SW_EUNSUPPORTED, "mcp_limitation", "swipium", "low", false, false, "R",
      "The assertion could only be checked visually", "Add a structured locator so it can be checked exactly."),
    E(VISUAL_MASKING_STATUS_MISSING, SW_EUNSUPPORTED, "mcp_limitation", "user", "medium", false, false, "R",
      "The visual baseline does not say what is masked", "Declare the masked regions of the baseline."),
    E(EVIDENCE_RETENTION_UNDECLARED, SW_EUNSUPPORTED, "mcp_limitation", "user", "low", true, false, "R",
      "How long evidence is kept was not declared", "Declare an evidence retention period for the project."),

    /* ---- unsafe_refused ---- */
    E(INVALID_ARGUMENT, SW_EINVAL, "unsafe_refused", "user", "low", false, false, "",
      "The call had a missing, unknown or malformed argument",
      "Fix the arguments as the message lists (accepted parameters are named) and call again."),
    E(CANCELLED, SW_ECANCELLED, "unsafe_refused", "user", "low", true, false, "", "The operation was cancelled",
      "Nothing to fix; run it again when you want it to finish."),
    E(CONSENT_DECLINED, SW_EDENIED, "unsafe_refused", "user", "low", false, false, "", "The user declined the requested action",
      "Respect the decision; do not ask again in a loop. Choose another way or stop."),
    E(CONSENT_CANCELLED, SW_EDENIED, "unsafe_refused", "user", "low", true, false, "", "The consent prompt was dismissed",
      "Ask again only if the user still wants the action."),
    E(CONSENT_REFUSED, SW_EDENIED, "unsafe_refused", "user", "low", false, false, "",
      "The action needs an interactive approval that this client cannot give",
      "Use a client that supports consent prompts, or pre-approve the action in the project policy."),
    E(DESTRUCTIVE_REFUSED, SW_EDENIED, "unsafe_refused", "user", "low", false, false, "",
      "A destructive action was refused without approval",
      "Approve the specific action explicitly if it is really wanted, or leave it out."),
    E(UNSAFE_ACTION_REFUSED, SW_EDENIED, "unsafe_refused", "user", "low", false, false, "",
      "The action was refused as unsafe (for example a path outside the project)",
      "Keep paths inside the project root and avoid the refused operation."),
    E(BUNDLE_LOSS_REFUSED, SW_EDENIED, "unsafe_refused", "user", "low", false, false, "",
      "Wiping the app would lose its development bundle",
      "Acknowledge the bundle risk explicitly, or restart Metro afterwards, before wiping."),
    E(PHYSICAL_DEVICE_UNSUPPORTED, SW_EDENIED, "unsafe_refused", "user", "medium", false, false, "",
      "Physical devices are not supported for this action", "Use an emulator or simulator."),
    E(CAPTURE_WITHHELD_SECURE, SW_EDENIED, "unsafe_refused", "user", "low", false, false, "",
      "The capture was withheld because the screen is marked secure",
      "Pass force:true only if capturing this screen is acceptable."),
    E(SENSITIVE_MODE_REFUSED, SW_EDENIED, "unsafe_refused", "user", "low", false, false, "", "Sensitive mode forbids this action",
      "Turn sensitive mode off for the session if the action is safe."),
    E(VISUAL_PATH_REFUSED, SW_EDENIED, "unsafe_refused", "user", "low", false, false, "", "The visual file path was refused",
      "Use a path inside the project's .swipium directory."),
    E(GIT_SCOPE_FORBIDDEN, SW_EDENIED, "unsafe_refused", "user", "low", false, false, "", "Running git is not allowed here",
      "Use a different provider or command; git cannot be spawned by Swipium tools."),
    E(ISSUE_STATE_INVALID, SW_ESTATE, "unsafe_refused", "user", "low", false, false, "",
      "The issue is not in a state that allows this change", "Check the issue's state and apply a valid change."),
    E(SECRET_IN_GENERATED_OUTPUT, SW_ESECRET, "unsafe_refused", "swipium", "high", false, false, "",
      "Generated output would have contained a secret, so nothing was written",
      "Use variables for secret values in the source instead of literal values, then generate again."),
    E(SECRET_ARTIFACT_IN_EVIDENCE, SW_EDENIED, "unsafe_refused", "user", "high", false, false, "R",
      "An evidence artifact contains a secret", "Delete the artifact and rotate the exposed secret."),
};

const sw__catalog_entry *sw__catalog_find(const char *code, size_t len)
{
	for (size_t i = 0; i < SW_ARRAY_SIZE(entries); i++)
		if (strlen(entries[i].code) == len && memcmp(entries[i].code, code, len) == 0)
			return &entries[i];
	return NULL;
}

int sw__catalog_result(const char *code, int fallback)
{
	const sw__catalog_entry *e = code ? sw__catalog_find(code, strlen(code)) : NULL;
	return e && e->result != SW_OK ? e->result : fallback;
}

size_t sw__catalog_size(void)
{
	return SW_ARRAY_SIZE(entries);
}

const sw__catalog_entry *sw__catalog_at(size_t i)
{
	return i < SW_ARRAY_SIZE(entries) ? &entries[i] : NULL;
}

static json_t *entry_json(const sw__catalog_entry *e)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:b, s:b, s:s, s:s}", "code", e->code, "bucket", e->bucket,
	                 "owner", e->owner, "severity", e->severity, "retrySafe", e->retry_safe, "canSwipiumFix",
	                 e->can_fix, "reserved", strchr(e->marks, 'R') != NULL, "finding",
	                 strchr(e->marks, 'F') != NULL, "summary", e->summary, "recovery", e->recovery);
}

SW_API int sw_catalog_lookup(const char *code, char **entry_json_out, sw_error **err)
{
	if (!code || !entry_json_out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_catalog_lookup: code and out are required");
	const sw__catalog_entry *e = sw__catalog_find(code, strlen(code));
	if (!e)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Use one of the codes listed by sw_catalog_list_json().",
		                     "Unknown failure code \"%s\".", code);
	json_t *j = entry_json(e);
	char *text = j ? sw__json_compact(j) : NULL;
	json_decref(j);
	if (!text)
		return sw__error_nomem(err);
	*entry_json_out = text;
	return SW_OK;
}

SW_API int sw_catalog_list_json(char **out, sw_error **err)
{
	if (!out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_catalog_list_json: out is required");
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < SW_ARRAY_SIZE(entries); i++)
		if (json_array_append_new(arr, entry_json(&entries[i]))) {
			json_decref(arr);
			arr = NULL;
		}
	char *text = arr ? sw__json_compact(arr) : NULL;
	json_decref(arr);
	if (!text)
		return sw__error_nomem(err);
	*out = text;
	return SW_OK;
}

SW_API size_t sw_catalog_count(void)
{
	return SW_ARRAY_SIZE(entries);
}
