#!/usr/bin/env python3
"""The device tools on an iOS session, through the server, against the simctl stand-in (tests/ios/xcrun).

A session bound by qa_ios boot is driven through the library's iOS driver: qa_screenshot and qa_visual
capture with `simctl io screenshot`, qa_screen_record records with `simctl io recordVideo` (SIGINT ends
it), qa_app_control launches and terminates with simctl, qa_device_info answers the iOS shape. Without
WebDriverAgent the session is visual-only and the tools say so: qa_status reports the mode, qa_snapshot
answers BACKEND_UNSUPPORTED, qa_orientation too (simctl cannot rotate).
"""
import json
import os
import plistlib
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcpclient  # noqa: E402
from test_ios import IPHONE15PRO, IosCase  # noqa: E402

INFO = {"CFBundleIdentifier": "com.example.shop", "CFBundleName": "Shop", "CFBundleExecutable": "Shop",
        "CFBundleSupportedPlatforms": ["iPhoneSimulator"], "DTPlatformName": "iphonesimulator"}


class DriveCase(IosCase):
    def tool(self, s, tool_name, sid, timeout=90, **args):
        args["sessionId"] = sid
        return s.tool(tool_name, args, timeout=timeout)["result"]

    def tool_ok(self, s, tool_name, sid, **args):
        r = self.tool(s, tool_name, sid, **args)
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        return r["structuredContent"]

    def tool_fails(self, s, tool_name, sid, code, **args):
        r = self.tool(s, tool_name, sid, **args)
        self.assertTrue(r.get("isError"), json.dumps(r)[:1500])
        self.assertEqual(r["structuredContent"]["failureCode"], code, json.dumps(r)[:1500])
        return r["structuredContent"]

    def with_consent(self, s, tool_name, sid, **args):
        r = self.tool(s, tool_name, sid, **args)
        env = r["structuredContent"]
        if env.get("requiresConsent"):
            r = self.tool(s, tool_name, sid, consentId=env["consentId"], approve=True, **args)
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        return r["structuredContent"]

    def ready(self):
        """A session with iPhone 15 Pro booted and Shop installed and launched."""
        s, sid = self.start()
        self.booted(s, sid)
        self.make_app("Shop.app", INFO)
        self.approved(s, sid, action="install", app="Shop.app")
        sc = self.ok(s, sid, action="launch", bundleId="com.example.shop")
        self.assertTrue(sc.get("sessionApp"), sc)
        return s, sid


class TestIosVisualOnly(DriveCase):
    def test_status_mode_and_device_info_shape(self):
        s, sid = self.ready()
        st = self.tool_ok(s, "qa_status", sid)
        self.assertEqual(st["mode"], "visual-only")
        self.assertEqual(st["device"]["platform"], "ios")
        self.assertEqual(st["appId"], "com.example.shop")
        info = self.tool_ok(s, "qa_device_info", sid)
        self.assertEqual(info["platform"], "ios")
        self.assertEqual(info["serial"], IPHONE15PRO)
        self.assertEqual(info["name"], "iPhone 15 Pro")
        self.assertEqual(info["runtime"], "iOS 17.5")
        self.assertEqual(info["orientation"], "unknown")
        # the stand-in writes 1179x2556 pixels; an iPhone 15 Pro is @3x: 393x852 points
        self.assertEqual((info["screen"]["width"], info["screen"]["height"], info["screen"]["unit"]),
                         (393, 852, "points"))
        self.assertIn("packages", info["unsupported"])
        self.assertEqual(info["mode"], "visual-only")
        self.assertEqual(s.close(), 0)

    def test_screenshot_and_visual_baseline(self):
        s, sid = self.ready()
        sc = self.tool_ok(s, "qa_screenshot", sid)
        blob = json.dumps(sc)
        self.assertIn("swipium://", blob)
        self.assertEqual(sc["coordinateSpace"]["width"], 393, sc)
        self.assertAlmostEqual(sc["coordinateSpace"]["scale"], 3.0, places=2)
        # the tree cannot be read without WDA: the secure-field check says so instead of "clear"
        self.assertEqual(sc["secureFieldCheck"], "unverified", sc)
        vis = self.tool_ok(s, "qa_visual", sid, mode="baseline", name="home")
        self.assertTrue(os.path.isfile(os.path.join(self.app, ".swipium", "baselines", "home.png")), vis)
        self.assertEqual(s.close(), 0)

    def test_snapshot_orientation_and_typing_are_unsupported(self):
        s, sid = self.ready()
        sc = self.tool_fails(s, "qa_snapshot", sid, "BACKEND_UNSUPPORTED")
        self.assertIn("visual-only", sc["what"])
        self.assertIn("WebDriverAgent", sc["what"])
        sc = self.tool_fails(s, "qa_orientation", sid, "BACKEND_UNSUPPORTED", orientation="landscape")
        self.assertIn("ios", sc["what"])
        self.assertEqual(s.close(), 0)

    def test_app_control_launch_stop_restart(self):
        s, sid = self.ready()
        sc = self.tool_ok(s, "qa_app_control", sid, action="force_stop")
        self.assertTrue(sc["processKilled"])
        # without WDA the foreground app cannot be told: unknown, never a guess
        self.assertIsNone(sc["foreground"])
        self.assertNotIn("com.example.shop", self.device(IPHONE15PRO).get("running", []))
        # a second stop: simctl's "found nothing to terminate" is no failure
        self.tool_ok(s, "qa_app_control", sid, action="force_stop")
        self.tool_ok(s, "qa_app_control", sid, action="restart")
        self.assertIn("com.example.shop", self.device(IPHONE15PRO)["running"])
        self.assertEqual(self.device(IPHONE15PRO)["foreground"], "com.example.shop")
        self.assertEqual(s.close(), 0)

    def test_screen_record_start_stop_saves_mp4(self):
        s, sid = self.ready()
        sc = self.with_consent(s, "qa_screen_record", sid, action="start")
        self.assertTrue(sc["recording"], sc)
        st = self.tool_ok(s, "qa_screen_record", sid, action="status")
        self.assertTrue(st["capturing"], st)
        sc = self.tool_ok(s, "qa_screen_record", sid, action="stop")
        self.assertTrue(sc["uri"].startswith("swipium://"), sc)
        self.assertGreater(sc["bytes"], 16)
        self.assertEqual(s.close(), 0)

    def test_record_that_ignores_sigint_is_reported_incomplete(self):
        s, sid = self.ready()
        self.knobs({"ignoreSigint": True})
        self.with_consent(s, "qa_screen_record", sid, action="start")
        r = self.tool(s, "qa_screen_record", sid, timeout=60, action="stop")
        self.assertTrue(r.get("isError"), json.dumps(r)[:800])
        self.assertIn("incomplete", r["structuredContent"]["what"])
        self.knobs({})
        # the session still works
        self.tool_ok(s, "qa_screenshot", sid)
        self.assertEqual(s.close(), 0)

    def test_simctl_screenshot_failure_is_a_clear_error(self):
        s, sid = self.ready()
        self.knobs({"fail": {"io": [1, "An error was encountered processing the command (domain=SimulatorKit, "
                                      "code=2):\nFailed to capture the screen."]}})
        sc = self.tool_fails(s, "qa_screenshot", sid, "DEVICE_NOT_READY")
        self.assertIn("Failed to capture the screen", sc["what"])
        self.knobs({})
        self.tool_ok(s, "qa_screenshot", sid)
        self.assertEqual(s.close(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
