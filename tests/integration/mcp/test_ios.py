#!/usr/bin/env python3
"""qa_ios end to end at the MCP boundary, against the simctl stand-in (tests/ios/xcrun) first on PATH.

Every server runs with a private HOME (the stand-in keeps its state under it) and the stand-ins' folder
first on PATH; nothing in the driver knows it talks to a stand-in. The last class runs with no xcrun on
PATH at all and proves every iOS action answers BACKEND_UNSUPPORTED naming xcrun, with nextSteps.
"""
import json
import os
import plistlib
import struct
import sys
import time
import unittest
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcpclient  # noqa: E402

STANDINS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "ios")
IPHONE15 = "5A1C2F0B-8D3E-4C71-9B2A-1F6E0D4C3B21"
IPHONE15PRO = "9E4B7C12-3A5D-4F88-A1C6-7D2E9B0F4A63"
ACTIONS = ["list", "boot", "install", "launch", "terminate", "openurl", "logs", "privacy_reset", "erase"]


def path_without_xcrun():
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not os.path.exists(os.path.join(d, "xcrun")) and os.path.abspath(d) != STANDINS]
    return os.pathsep.join(dirs)


class IosCase(mcpclient.ServerTestCase):
    home_prefix = "swipium-ios-home-"
    server_env = {"SWIPIUM_CONSENT_PREAPPROVE": "", "SWIPIUM_REQUIRE_ELICITATION": ""}
    with_standins = True

    def setUp(self):
        super().setUp()
        self.knobs({})

    def server(self, env=None):
        e = {"PATH": (STANDINS + os.pathsep if self.with_standins else "") + path_without_xcrun(),
             "SWIPIUM_IOS_BOOT_WAIT_MS": "8000"}
        e.update(env or {})
        return super().server(e)

    # ---- stand-in control ----
    def knobs(self, k):
        d = os.path.join(self.home, ".fake-simctl")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "knobs.json"), "w") as f:
            json.dump(k, f)

    def sim_state(self):
        with open(os.path.join(self.home, ".fake-simctl", "state.json")) as f:
            return json.load(f)

    def device(self, udid):
        for devs in self.sim_state()["devices"].values():
            for d in devs:
                if d["udid"] == udid:
                    return d
        return None

    # ---- app bundles ----
    def make_app(self, rel, info, fmt=plistlib.FMT_BINARY, raw=None):
        path = os.path.join(self.app, rel)
        os.makedirs(path, exist_ok=True)
        if raw is not None:
            with open(os.path.join(path, "Info.plist"), "wb") as f:
                f.write(raw)
        elif info is not None:
            with open(os.path.join(path, "Info.plist"), "wb") as f:
                plistlib.dump(info, f, fmt=fmt)
        return path

    # ---- calls ----
    def start(self):
        s = self.server()
        s.initialize()
        r = s.tool("qa_start_session", {"projectRoot": self.app})["result"]
        return s, r["structuredContent"]["sessionId"]

    def call(self, s, sid, **args):
        args["sessionId"] = sid
        return s.tool("qa_ios", args, timeout=90)["result"]

    def ok(self, s, sid, **args):
        r = self.call(s, sid, **args)
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        return r["structuredContent"]

    def fails(self, s, sid, code, **args):
        r = self.call(s, sid, **args)
        self.assertTrue(r.get("isError"), json.dumps(r)[:1500])
        sc = r["structuredContent"]
        self.assertEqual(sc["failureCode"], code, json.dumps(sc)[:1500])
        return sc

    def approved(self, s, sid, **args):
        """Calls a gated action, checks its consent envelope, approves it and returns the result."""
        r = self.call(s, sid, **args)
        env = r["structuredContent"]
        self.assertTrue(env.get("requiresConsent"), json.dumps(r)[:1500])
        r2 = self.call(s, sid, consentId=env["consentId"], approve=True, **args)
        self.assertFalse(r2.get("isError"), json.dumps(r2)[:1500])
        return env, r2["structuredContent"]

    def booted(self, s, sid, device="iPhone 15 Pro"):
        sc = self.ok(s, sid, action="boot", device=device)
        self.assertEqual(sc["status"], "booted", sc)
        return sc


class TestIosList(IosCase):
    def test_list_keeps_only_available_ios_and_counts_the_rest(self):
        s, sid = self.start()
        sc = self.ok(s, sid, action="list")
        names = sorted(d["name"] for d in sc["simulators"])
        self.assertEqual(names, ["iPhone 15", "iPhone 15 Pro"])
        self.assertEqual({d["runtime"] for d in sc["simulators"]}, {"iOS 17.5"})
        self.assertEqual(sc["booted"], [])
        un = sc["omitted"]["unavailable"]
        self.assertEqual([u["name"] for u in un], ["iPhone 8"])
        self.assertIn("runtime profile not found", un[0]["availabilityError"])
        self.assertEqual([o["runtime"] for o in sc["omitted"]["otherPlatforms"]], ["watchOS 10.5"])
        # the empty iOS 16.4 runtime array is a runtime with no devices, not an error
        rts = {r["name"]: r["devices"] for r in sc["runtimes"]}
        self.assertEqual(rts, {"iOS 17.5": 2, "iOS 16.4": 0})
        self.assertIn("2 iOS simulator(s), 0 booted", s and self.call(s, sid, action="list")["content"][0]["text"])
        self.assertEqual(s.close(), 0)

    def test_garbage_empty_and_truncated_lists_are_clear_errors(self):
        s, sid = self.start()
        for mode, word in (("garbage", "not JSON"), ("empty", "nothing"), ("truncated", "not JSON")):
            self.knobs({"list": mode})
            sc = self.fails(s, sid, "DEVICE_NOT_READY", action="list")
            self.assertIn(word, sc["what"])
        self.knobs({"fail": {"list": [1, "CoreSimulatorService connection interrupted"]}})
        sc = self.fails(s, sid, "DEVICE_NOT_READY", action="list")
        self.assertIn("CoreSimulatorService connection interrupted", sc["what"])
        self.knobs({})
        self.ok(s, sid, action="list")  # the session still works
        self.assertEqual(s.close(), 0)


class TestIosBoot(IosCase):
    def test_boot_binds_and_second_boot_is_success(self):
        s, sid = self.start()
        sc = self.booted(s, sid, "15 pro")  # case-insensitive substring
        self.assertEqual(sc["udid"], IPHONE15PRO)
        self.assertFalse(sc["alreadyBooted"])
        self.assertEqual(self.device(IPHONE15PRO)["state"], "Booted")
        # bound: the session's device record names the simulator
        st = s.tool("qa_status", {"sessionId": sid})["result"]["structuredContent"]
        self.assertIn(IPHONE15PRO, json.dumps(st))
        # simctl's exit 149 "current state: Booted" is success
        sc = self.ok(s, sid, action="boot", device=IPHONE15PRO)
        self.assertEqual(sc["status"], "booted")
        # the bound simulator is used without device
        self.ok(s, sid, action="openurl", url="https://example.com/a")
        self.assertEqual(self.sim_state()["opened"], [[IPHONE15PRO, "https://example.com/a"]])
        self.assertEqual(s.close(), 0)

    def test_ambiguous_watch_unavailable_and_unknown(self):
        s, sid = self.start()
        sc = self.fails(s, sid, "MULTIPLE_DEVICES", action="boot", device="iphone 1")
        self.assertEqual(len(sc["simulators"]), 2)
        self.fails(s, sid, "MULTIPLE_DEVICES", action="boot")  # never guesses among two
        sc = self.fails(s, sid, "NO_DEVICE", action="boot", device="Apple Watch")
        self.assertIn("watchOS", sc["what"])
        sc = self.fails(s, sid, "SIMULATOR_RUNTIME_MISSING", action="boot", device="iPhone 8")
        self.assertIn("runtime profile not found", sc["what"])
        self.fails(s, sid, "NO_DEVICE", action="boot", device="Pixel")
        self.assertEqual(self.device(IPHONE15)["state"], "Shutdown")
        self.assertEqual(s.close(), 0)

    def test_stuck_booting_answers_booting_then_wait_times_out(self):
        self.knobs({"stuckBooting": True})
        s = self.server({"SWIPIUM_IOS_BOOT_WAIT_MS": "1500"})
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": self.app})["result"]["structuredContent"]["sessionId"]
        sc = self.ok(s, sid, action="boot", device="iPhone 15")
        self.assertEqual(sc["status"], "booting")
        self.assertEqual(sc["udid"], IPHONE15)
        self.assertGreaterEqual(sc["elapsedMs"], 1400)
        self.assertIn("simulator_booted", json.dumps(sc["next"]))
        # actions needing Booted say so
        self.fails(s, sid, "DEVICE_NOT_READY", action="logs")
        self.knobs({})
        self.ok(s, sid, action="logs")
        self.assertEqual(s.close(), 0)

    def test_boot_failure_carries_simctl_error(self):
        self.knobs({"fail": {"boot": [60, "An error was encountered processing the command (domain=NSPOSIXErrorDomain"
                                          ", code=60):\nUnable to boot the Simulator.\nlaunchd failed to respond.\n"
                                          "Underlying error (domain=com.apple.SimLaunchHostService.RequestError, "
                                          "code=4):\n\tFailed to start launchd_sim"]}})
        s, sid = self.start()
        sc = self.fails(s, sid, "SIMULATOR_BOOT_FAILED", action="boot", device="iPhone 15")
        self.assertIn("Unable to boot the Simulator. launchd failed to respond.", sc["what"])
        self.assertIn("domain=NSPOSIXErrorDomain, code=60", sc["what"])
        self.assertEqual(sc["simctl"]["exitStatus"], 60)
        self.assertNotIn("Underlying", sc["simctl"]["reason"])
        self.assertEqual(s.close(), 0)


class TestIosApps(IosCase):
    INFO = {"CFBundleIdentifier": "com.example.shop", "CFBundleSupportedPlatforms": ["iPhoneSimulator"],
            "DTPlatformName": "iphonesimulator", "CFBundleURLTypes": [{"CFBundleURLSchemes": ["shop"]}]}

    def test_install_launch_terminate_with_binary_and_xml_plists(self):
        s, sid = self.start()
        self.booted(s, sid)
        for rel, fmt, bid in (("build/Debug-iphonesimulator/Shop.app", plistlib.FMT_BINARY, "com.example.shop"),
                              ("build/Xml.app", plistlib.FMT_XML, "com.example.xml")):
            info = dict(self.INFO, CFBundleIdentifier=bid)
            self.make_app(rel, info, fmt)
            env, sc = self.approved(s, sid, action="install", app=rel)
            self.assertEqual(env["risk"], "medium")
            self.assertEqual(env["action"], "install_app")
            self.assertIn("simctl", json.dumps(env))
            self.assertEqual(sc["bundleId"], bid)
            self.assertEqual(sc["app"]["urlSchemes"], ["shop"])
            self.assertIn(bid, self.device(IPHONE15PRO)["apps"])
        # launch without bundleId: the plist names it
        sc = self.ok(s, sid, action="launch", app="build/Xml.app")
        self.assertEqual(sc["bundleId"], "com.example.xml")
        self.assertGreater(sc["pid"], 0)
        sc = self.ok(s, sid, action="terminate", bundleId="com.example.xml")
        self.assertTrue(sc["wasRunning"])
        # "found nothing to terminate" is no error
        sc = self.ok(s, sid, action="terminate", bundleId="com.example.xml")
        self.assertFalse(sc["wasRunning"])
        sc = self.fails(s, sid, "BUNDLE_ID_NOT_FOUND", action="launch", bundleId="com.example.missing")
        self.assertIn("failed to launch com.example.missing", sc["what"])
        self.assertEqual(sc["simctl"]["domain"], "FBSOpenApplicationServiceErrorDomain")
        self.assertEqual(s.close(), 0)

    def test_bad_bundles_fail_before_anything_is_installed(self):
        s, sid = self.start()
        self.booted(s, sid)
        with open(os.path.join(self.app, "Shop.ipa"), "wb") as f:
            with zipfile.ZipFile(f, "w") as z:
                z.writestr("Payload/Shop.app/Info.plist", plistlib.dumps(self.INFO))
        self.fails(s, sid, "IPA_NEEDS_REAL_DEVICE", action="install", app="Shop.ipa")
        self.make_app("dev/Device.app", dict(self.INFO, CFBundleSupportedPlatforms=["iPhoneOS"],
                                             DTPlatformName="iphoneos"))
        sc = self.fails(s, sid, "IOS_APP_WRONG_ARCH", action="install", app="dev/Device.app")
        self.assertIn("device build", sc["what"])
        self.make_app("dev/Dt.app", {"CFBundleIdentifier": "com.x", "DTPlatformName": "iphoneos"})
        self.fails(s, sid, "IOS_APP_WRONG_ARCH", action="install", app="dev/Dt.app")
        self.fails(s, sid, "IOS_SIMULATOR_APP_MISSING", action="install", app="nowhere/Gone.app")
        self.make_app("bad/NoPlist.app", None)
        sc = self.fails(s, sid, "IOS_SIMULATOR_APP_MISSING", action="install", app="bad/NoPlist.app")
        self.assertIn("Info.plist", sc["what"])
        self.make_app("bad/Corrupt.app", None, raw=b"bplist00\x00\x01garbage that is not a plist")
        sc = self.fails(s, sid, "IOS_SIMULATOR_APP_MISSING", action="install", app="bad/Corrupt.app")
        self.assertIn("property list", sc["what"])
        self.make_app("bad/NoId.app", {"CFBundleName": "x"}, plistlib.FMT_XML)
        sc = self.fails(s, sid, "IOS_SIMULATOR_APP_MISSING", action="install", app="bad/NoId.app")
        self.assertIn("CFBundleIdentifier", sc["what"])
        self.assertEqual(self.device(IPHONE15PRO)["apps"], {})  # nothing reached simctl install
        self.assertEqual(s.close(), 0)

    def test_app_symlinked_out_of_the_project_is_shown_as_outside(self):
        outside = os.path.join(self.home, "elsewhere", "Out.app")
        os.makedirs(outside)
        with open(os.path.join(outside, "Info.plist"), "wb") as f:
            plistlib.dump(dict(self.INFO, CFBundleIdentifier="com.example.out"), f, fmt=plistlib.FMT_BINARY)
        os.symlink(outside, os.path.join(self.app, "Linked.app"))
        s, sid = self.start()
        self.booted(s, sid)
        env, sc = self.approved(s, sid, action="install", app="Linked.app")
        self.assertIn("outside the project", env["explain"] if "explain" in env else json.dumps(env))
        self.assertEqual(sc["app"]["path"], os.path.realpath(outside))
        self.assertFalse(sc["app"]["insideProjectRoot"])
        self.assertEqual(s.close(), 0)

    def test_install_failure_and_not_booted(self):
        s, sid = self.start()
        self.make_app("Shop.app", self.INFO)
        # nothing booted: no guess
        self.fails(s, sid, "NO_DEVICE", action="install", app="Shop.app")
        self.fails(s, sid, "DEVICE_NOT_READY", action="install", app="Shop.app", device="iPhone 15 Pro")
        self.booted(s, sid)
        self.knobs({"fail": {"install": [13, "An error was encountered processing the command (domain=IXErrorDomain, "
                                             "code=13):\nSimulator device failed to install the application.\n"
                                             "Missing bundle ID."]}})
        r = self.call(s, sid, action="install", app="Shop.app")
        r = self.call(s, sid, action="install", app="Shop.app", consentId=r["structuredContent"]["consentId"],
                      approve=True)
        sc = r["structuredContent"]
        self.assertEqual(sc["failureCode"], "INSTALL_FAILED")
        self.assertEqual(sc["simctl"]["code"], 13)
        self.assertEqual(s.close(), 0)


class TestIosDeviceActions(IosCase):
    def test_logs_privacy_erase(self):
        s, sid = self.start()
        self.booted(s, sid)
        sc = self.ok(s, sid, action="logs", last="10m")
        self.assertEqual(sc["lines"], 4)
        art = s.tool("qa_get_artifact", {"uri": sc["logUri"]})["result"]
        self.assertIn("request failed", json.dumps(art))
        self.fails(s, sid, "INVALID_ARGUMENT", action="logs", last="5 minutes; rm -rf /")
        env, sc = self.approved(s, sid, action="privacy_reset", service="location", bundleId="com.example.shop")
        self.assertEqual(env["risk"], "low")
        self.assertEqual(self.sim_state()["privacy"], [[IPHONE15PRO, "reset", "location", "com.example.shop"]])
        self.fails(s, sid, "INVALID_ARGUMENT", action="privacy_reset", service="--all")
        env, sc = self.approved(s, sid, action="erase", device=IPHONE15PRO)
        self.assertEqual(env["risk"], "high")
        self.assertEqual(env["action"], "erase_device")
        text = json.dumps(env)
        self.assertIn("shutdown", text)  # the prompt shows both steps
        self.assertIn("erase", text)
        self.assertEqual(self.device(IPHONE15PRO)["state"], "Shutdown")
        self.assertEqual(sc["wasState"], "Booted")
        self.assertEqual(s.close(), 0)

    def test_refused_consent_runs_nothing(self):
        s, sid = self.start()
        self.booted(s, sid)
        r = self.call(s, sid, action="erase", device=IPHONE15PRO)
        self.assertTrue(r["structuredContent"]["requiresConsent"])
        r = self.call(s, sid, action="erase", device=IPHONE15PRO, consentId=r["structuredContent"]["consentId"],
                      approve=False)
        self.assertTrue(r.get("isError") or not r["structuredContent"].get("erased"))
        self.assertEqual(self.device(IPHONE15PRO)["state"], "Booted")
        self.assertEqual(s.close(), 0)

    def test_each_subcommand_failing(self):
        s, sid = self.start()
        self.booted(s, sid)
        for sub, args in (("openurl", {"url": "shop://x"}), ("spawn", {}), ("privacy", {"service": "all"}),
                          ("terminate", {"bundleId": "com.a"})):
            self.knobs({"fail": {sub: [2, "An error was encountered processing the command (domain=NSPOSIXErrorDomain"
                                          ", code=2):\nNo such file or directory"]}})
            action = {"spawn": "logs", "privacy": "privacy_reset"}.get(sub, sub)
            r = self.call(s, sid, action=action, **args)
            if r["structuredContent"].get("requiresConsent"):
                r = self.call(s, sid, action=action, consentId=r["structuredContent"]["consentId"], approve=True,
                              **args)
            sc = r["structuredContent"]
            self.assertTrue(r.get("isError"), (sub, sc))
            self.assertIn("No such file or directory", sc["what"])
            self.assertEqual(sc["simctl"]["exitStatus"], 2)
        self.knobs({"hang": {"openurl": 30}})
        t0 = time.monotonic()
        # a hung simctl is stopped by its timeout (15 s), never waited on forever
        sc = self.fails(s, sid, "DEVICE_NOT_READY", action="openurl", url="shop://slow")
        self.assertIn("did not answer", sc["what"])
        self.assertLess(time.monotonic() - t0, 25)
        self.knobs({})
        self.ok(s, sid, action="openurl", url="shop://fine")
        self.assertEqual(s.close(), 0)

    def test_legacy_actions_are_stale(self):
        s, sid = self.start()
        for action, repl in (("screenshot", "qa_screenshot"), ("wda_status", "qa_"), ("wda_attach", "qa_")):
            sc = self.call(s, sid, action=action)["structuredContent"]
            self.assertEqual(sc["failureCode"], "STALE_CLIENT")
            self.assertIn(repl, sc["replacement"])
        self.assertEqual(s.close(), 0)


class TestIosOtherTools(IosCase):
    def test_doctor_rows_wait_and_resolve_target(self):
        s, sid = self.start()
        d = s.tool("qa_doctor", {})["result"]["structuredContent"]
        self.assertEqual(d["platform"], "both")  # xcrun on PATH, not the OS name, decides
        rows = {r["id"]: r for r in d["checks"]}
        self.assertEqual(rows["xcrun-simctl"]["status"], "ok")
        self.assertIn("idb", rows)
        # resolve_target: nothing booted, so the first available one is planned (willBoot) and nothing boots
        r = s.tool("qa_resolve_target", {"sessionId": sid, "platform": "ios", "include": ["context"]})["result"]
        sc = r["structuredContent"]
        self.assertTrue(sc["willBoot"], sc)
        self.assertEqual(sc["context"]["iosBooted"], [])
        self.assertEqual(len(sc["context"]["iosAvailable"]), 2)
        self.assertEqual(self.device(IPHONE15)["state"], "Shutdown")
        r = s.tool("qa_resolve_target", {"sessionId": sid, "platform": "ios", "device": "watch"})["result"]
        self.assertEqual(r["structuredContent"]["failureCode"], "NO_DEVICE")
        # a slow boot: qa_ios answers booting, qa_wait simulator_booted finishes the wait
        self.knobs({"bootDelayS": 3})
        s2 = self.server({"SWIPIUM_IOS_BOOT_WAIT_MS": "500"})
        s2.initialize()
        sid2 = s2.tool("qa_start_session", {"projectRoot": self.app})["result"]["structuredContent"]["sessionId"]
        sc = self.ok(s2, sid2, action="boot", device="iPhone 15")
        self.assertEqual(sc["status"], "booting")
        w = s2.tool("qa_wait", {"sessionId": sid2, "for": "simulator_booted", "timeoutMs": 10000})["result"]
        self.assertFalse(w.get("isError"), w)
        self.assertEqual(w["structuredContent"]["state"]["udid"], IPHONE15)
        # booted now: resolve_target prefers it
        sc = s2.tool("qa_resolve_target", {"sessionId": sid2, "platform": "ios"})["result"]["structuredContent"]
        self.assertEqual(sc["selected"]["udid"], IPHONE15)
        self.assertFalse(sc["willBoot"])
        self.assertEqual(s2.close(), 0)
        self.assertEqual(s.close(), 0)

    def test_stuck_booting_wait_is_simulator_boot_timeout(self):
        self.knobs({"stuckBooting": True})
        s = self.server({"SWIPIUM_IOS_BOOT_WAIT_MS": "300"})
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": self.app})["result"]["structuredContent"]["sessionId"]
        self.assertEqual(self.ok(s, sid, action="boot", device="iPhone 15")["status"], "booting")
        w = s.tool("qa_wait", {"sessionId": sid, "for": "simulator_booted", "timeoutMs": 1500})["result"]
        self.assertTrue(w.get("isError"))
        self.assertEqual(w["structuredContent"]["failureCode"], "SIMULATOR_BOOT_TIMEOUT")
        self.assertEqual(w["structuredContent"]["state"], "Booting")
        self.assertEqual(s.close(), 0)


class TestIosWithoutXcrun(IosCase):
    with_standins = False

    def test_every_action_is_backend_unsupported_naming_xcrun(self):
        s, sid = self.start()
        self.make_app("Shop.app", TestIosApps.INFO)
        for action in ACTIONS:
            args = {"action": action, "device": "iPhone 15", "app": "Shop.app", "bundleId": "com.example.shop",
                    "url": "shop://x"}
            sc = self.fails(s, sid, "BACKEND_UNSUPPORTED", **args)
            self.assertIn("xcrun", sc["what"], action)
            self.assertTrue(sc.get("nextSteps"), action)
        for name, args in (("qa_wait", {"sessionId": sid, "for": "simulator_booted"}),
                           ("qa_wait", {"sessionId": sid, "for": "wda_ready"}),
                           ("qa_resolve_target", {"sessionId": sid, "platform": "ios"}),
                           ("qa_prepare_ios_target", {"sessionId": sid, "bundleId": "com.example.shop"}),
                           ("qa_wda", {"sessionId": sid, "action": "attach", "device": "iPhone 15"}),
                           ("qa_wda", {"sessionId": sid, "action": "doctor"}),
                           ("qa_wda", {"sessionId": sid, "action": "build", "device": "iPhone 15"})):
            sc = s.tool(name, args)["result"]["structuredContent"]
            self.assertEqual(sc["failureCode"], "BACKEND_UNSUPPORTED", (name, sc))
            self.assertIn("xcrun", sc["what"])
        rows = {r["id"]: r for r in s.tool("qa_doctor", {"platform": "ios"})["result"]["structuredContent"]["checks"]}
        self.assertEqual(rows["xcrun-simctl"]["status"], "error")
        self.assertIn("xcrun", rows["xcrun-simctl"]["detail"])
        self.assertFalse(os.path.exists(os.path.join(self.home, ".fake-simctl", "state.json")))
        self.assertEqual(s.close(), 0)

    def test_tools_list_has_qa_ios_and_startup_spawns_nothing(self):
        s = self.server()
        s.initialize()
        names = [t["name"] for t in s.call("tools/list")["result"]["tools"]]
        for n in ("qa_ios", "qa_wda", "qa_prepare_ios_target"):
            self.assertIn(n, names)
        with open("/proc/%d/maps" % s.proc.pid) as f:
            self.assertNotIn("libcurl", f.read())
        self.assertEqual(s.close(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
