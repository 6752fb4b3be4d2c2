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
import subprocess
import sys
import time
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
        self.assertEqual(info["packages"], ["com.example.shop"])  # simctl listapps, user apps only
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


WDA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "ios", "wda.py")


class WdaCase(DriveCase):
    """A WebDriverAgent stand-in (tests/ios/wda.py) on a free loopback port for each test."""

    def setUp(self):
        super().setUp()
        pf = os.path.join(self.home, "wda.port")
        self.wda = subprocess.Popen([sys.executable, WDA, "--port", "0", "--port-file", pf],
                                    env=dict(os.environ, HOME=self.home), stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(pf):
                break
            time.sleep(0.05)
        with open(pf) as f:
            self.url = "http://127.0.0.1:%s" % f.read().strip()

    def tearDown(self):
        self.wda.kill()
        self.wda.wait()
        super().tearDown()

    def wda_knobs(self, k):
        d = os.path.join(self.home, ".fake-wda")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "knobs.json"), "w") as f:
            json.dump(k, f)

    def requests(self):
        try:
            with open(os.path.join(self.home, ".fake-wda", "requests.jsonl")) as f:
                return [json.loads(line) for line in f]
        except OSError:
            return []

    def attached(self, env=None):
        s, sid = self.ready()
        sc = self.tool_ok(s, "qa_wda", sid, action="attach", webDriverAgentUrl=self.url)
        self.assertTrue(sc["attached"])
        self.assertEqual(sc["mode"], "structured")
        self.assertEqual(sc["udid"], IPHONE15PRO)
        return s, sid


class TestWda(WdaCase):
    def test_snapshot_element_lines_from_the_wda_source(self):
        s, sid = self.attached()
        st = self.tool_ok(s, "qa_status", sid)
        self.assertEqual(st["mode"], "structured")
        snap = self.tool_ok(s, "qa_snapshot", sid)
        lines = snap["elements"]
        blob = "\n".join(lines)
        self.assertIn('[text-field] "Email" #email', blob)
        self.assertIn('[button] "Sign in" #signin [24,310][369,360]', blob)
        pw = [l for l in lines if '"Password" #password' in l]
        self.assertTrue(pw and "secure" in pw[0] and "\u00absecure\u00bb" in pw[0], blob)
        self.assertNotIn("\u2022", blob)
        self.assertNotIn("XCUIElementTypeApplication", blob)
        # hidden, non-finite, zero-size and off-screen elements are not lines
        for gone in ("Debug menu", "Broken frame", "Zero size", "Far away"):
            self.assertNotIn(gone, blob)
        self.assertEqual(s.close(), 0)

    def test_login_through_wda_type_tap_and_back(self):
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        act = self.tool_ok(s, "qa_act", sid, action="type", target={"id": "email"}, text="ann@example.com")
        self.assertTrue(act["changed"], act)
        act = self.tool_ok(s, "qa_act", sid, action="type", target={"id": "password"}, text="hunter2")
        blob = json.dumps(act)
        self.assertNotIn("hunter2", blob)
        self.assertNotIn("\u2022" * 7, blob)  # WDA's bullets give the length away: never shown
        act = self.tool_ok(s, "qa_act", sid, action="tap", target={"text": "Sign in"})
        self.assertTrue(act["changed"])
        self.assertTrue(any("Item 1" in l for l in act["elements"]), act["elements"])
        # typing went through WDA's element value route with both text and the character array
        vals = [r for r in self.requests() if r["path"].endswith("/value")]
        self.assertTrue(vals and vals[0]["body"]["value"] == list("ann@example.com"), vals)
        # back: the navigation bar's back button
        act = self.tool_ok(s, "qa_act", sid, action="press", key="back")
        self.assertTrue(any("Email" in l for l in act["elements"]), act["elements"])
        self.assertEqual(s.close(), 0)
        for root, _, files in os.walk(os.path.join(self.home, ".swipium")):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    self.assertNotIn(b"hunter2", fh.read(), f)

    def test_a_tap_reads_the_screen_once_before_tapping(self):
        # WDA looks carry no focus (Android's activity): the act asks for it once, not with a whole extra
        # GET /source before every act
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        self.tool_ok(s, "qa_act", sid, action="type", target={"id": "email"}, text="ann@example.com")
        self.tool_ok(s, "qa_act", sid, action="type", target={"id": "password"}, text="hunter2")
        before = []
        for text in ("Sign in", "Back", "Sign in"):
            n = len(self.requests())
            act = self.tool_ok(s, "qa_act", sid, action="tap", target={"text": text})
            self.assertTrue(act["changed"] and not act.get("stopped"), act)
            sent = self.requests()[n:]
            taps = [i for i, r in enumerate(sent) if r["path"].endswith("/wda/tap")]
            self.assertEqual(len(taps), 1, sent)
            before.append(len([r for r in sent[:taps[0]] if r["method"] == "GET" and r["path"].endswith("/source")]))
        self.assertEqual(before[1:], [1, 1], "an act read the screen more than once before its tap: %s" % before)
        self.assertEqual(s.close(), 0)

    def test_dead_session_is_recreated_once_with_a_warning(self):
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        self.wda_knobs({"invalidate": 1})
        snap = self.tool_ok(s, "qa_snapshot", sid)
        self.assertTrue(snap["elements"])
        self.assertTrue(any("recreated without relaunching" in w for w in snap.get("warnings", [])), snap)
        # said once: the next call has no such warning
        snap = self.tool_ok(s, "qa_snapshot", sid)
        self.assertFalse(any("recreated" in w for w in snap.get("warnings", [])), snap)
        creates = [r for r in self.requests() if r["method"] == "POST" and r["path"] == "/session"]
        self.assertFalse(creates[-1]["body"]["capabilities"]["alwaysMatch"]["forceAppLaunch"], creates[-1])
        self.assertFalse(creates[-1]["body"]["capabilities"]["alwaysMatch"]["shouldTerminateApp"])
        self.assertEqual(s.close(), 0)

    def test_hostile_sources(self):
        s, sid = self.attached()
        for knob, code in (({"status500": ["/source"]}, "UNKNOWN"), ({"garbage": ["/source"]}, "WDA_UNREACHABLE"),
                           ({"truncated": ["/source"]}, "WDA_UNREACHABLE")):
            self.wda_knobs(knob)
            r = self.tool(s, "qa_snapshot", sid)
            self.assertTrue(r.get("isError"), json.dumps(r)[:600])
            self.assertIn(r["structuredContent"]["failureCode"], (code, "SNAPSHOT_FAILED", "VISUAL_ONLY_SCREEN"),
                          json.dumps(r)[:600])
        self.wda_knobs({"hugeNodes": 20000})
        snap = self.tool_ok(s, "qa_snapshot", sid)
        self.assertLessEqual(len(snap["elements"]), 61)
        self.assertGreater(snap["elementsOmitted"], 0)
        # past the node limit: a clear refusal, never memory exhaustion
        self.wda_knobs({"hugeNodes": 50000})
        sc = self.tool_fails(s, "qa_snapshot", sid, "WDA_HIERARCHY_TOO_LARGE")
        self.assertIn("50000", sc["what"])
        self.wda_knobs({})
        self.tool_ok(s, "qa_snapshot", sid)  # the session still works
        self.assertEqual(s.close(), 0)

    def test_wait_wda_ready(self):
        s, sid = self.attached()
        w = self.tool_ok(s, "qa_wait", sid, **{"for": "wda_ready", "timeoutMs": 2000})
        self.assertTrue(w["satisfied"], w)
        self.assertEqual(w["url"], self.url)
        self.wda_knobs({"notReady": True})
        w = self.tool_ok(s, "qa_wait", sid, **{"for": "wda_ready", "timeoutMs": 700})
        self.assertFalse(w["satisfied"])
        self.assertTrue(w["timedOut"])
        self.assertEqual(s.close(), 0)

    def test_remote_url_listed_in_the_env_needs_no_consent(self):
        port = self.url.rsplit(":", 1)[1]
        remote = "http://0.0.0.0:%s" % port  # reaches this machine, but is not loopback
        s = self.server({"SWIPIUM_ALLOW_REMOTE_WDA": "http://example.invalid, %s/" % remote,
                         "SWIPIUM_CONSENT_PREAPPROVE": "wda_non_loopback"})
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": self.app})["result"]["structuredContent"]["sessionId"]
        st = self.tool_ok(s, "qa_wda", sid, action="status", webDriverAgentUrl=remote)
        self.assertTrue(st["status"]["ready"], st)
        self.assertFalse(st["loopback"])
        # another port of the same host is not listed: refused, and pre-approval does not cover wda_non_loopback
        self.tool_fails(s, "qa_wda", sid, "DESTRUCTIVE_REFUSED", action="status", webDriverAgentUrl="http://0.0.0.0:9")
        r = self.tool(s, "qa_wda", sid, action="status", webDriverAgentUrl="http://0.0.0.0:9", allowNonLoopback=True)
        self.assertTrue(r["structuredContent"].get("requiresConsent"), json.dumps(r)[:600])
        self.assertEqual(s.close(), 0)

    def test_attach_refusals(self):
        s, sid = self.start()
        # nothing bound and no device: never guesses
        self.tool_fails(s, "qa_wda", sid, "MULTIPLE_DEVICES", action="attach", webDriverAgentUrl=self.url)
        self.booted(s, sid)
        for url in ("http://0.0.0.0:8100", "http://127.0.0.1.nip.io:8100", "http://localhost.example:8100",
                    "http://127.0.0.1@example.com:8100", "http://10.0.0.5:8100"):
            sc = self.tool_fails(s, "qa_wda", sid, "DESTRUCTIVE_REFUSED", action="attach", webDriverAgentUrl=url)
            self.assertIn("no request was sent", sc["what"])
        # allowNonLoopback asks the wda_non_loopback consent (never pre-approved)
        r = self.tool(s, "qa_wda", sid, action="status", webDriverAgentUrl="http://10.0.0.5:8100", allowNonLoopback=True)
        self.assertTrue(r["structuredContent"].get("requiresConsent"), json.dumps(r)[:600])
        # a WDA that does not answer
        self.tool_fails(s, "qa_wda", sid, "WDA_UNREACHABLE", action="attach", webDriverAgentUrl="http://127.0.0.1:9")
        self.wda_knobs({"notReady": True})
        self.tool_fails(s, "qa_wda", sid, "WDA_UNREACHABLE", action="attach", webDriverAgentUrl=self.url)
        self.assertEqual(self.requests()[-1]["path"], "/status")
        self.wda_knobs({})
        st = self.tool_ok(s, "qa_wda", sid, action="status", webDriverAgentUrl=self.url + "/")
        self.assertTrue(st["status"]["ready"])
        self.assertEqual(st["url"], self.url)
        doc = self.tool_ok(s, "qa_wda", sid, action="doctor", webDriverAgentUrl=self.url)
        self.assertIn("searched", doc["wdaProject"])
        self.assertEqual(s.close(), 0)


class TestPrepareIos(WdaCase):
    def prepare(self, s, sid, **args):
        r = self.tool(s, "qa_prepare_ios_target", sid, **args)
        env = r["structuredContent"]
        self.assertTrue(env.get("requiresConsent"), json.dumps(r)[:800])
        r = self.tool(s, "qa_prepare_ios_target", sid, consentId=env["consentId"], approve=True, **args)
        return env, r

    def test_visual_only_when_no_wda_answers(self):
        s, sid = self.start()
        self.make_app("Shop.app", INFO)
        env, r = self.prepare(s, sid, app="Shop.app", device="iPhone 15 Pro", attachWda="auto")
        self.assertIn("low", json.dumps(env))  # an .app inside the project root
        sc = r["structuredContent"]
        self.assertFalse(r.get("isError"), json.dumps(r)[:1200])
        self.assertTrue(sc["installed"] and sc["launched"], sc)
        self.assertEqual(sc["mode"], "visual-only")
        self.assertFalse(sc["wda"]["attached"])
        self.assertIsNone(sc["foreground"])  # simctl cannot tell: unknown, not guessed
        self.assertEqual(self.device(IPHONE15PRO)["foreground"], "com.example.shop")
        st = self.tool_ok(s, "qa_status", sid)
        self.assertEqual((st["mode"], st["appId"]), ("visual-only", "com.example.shop"))
        self.assertTrue(st["workarounds"], st)
        # required: the WDA failure is the answer
        r = self.prepare(s, sid, app="Shop.app", attachWda="required")[1]
        self.assertEqual(r["structuredContent"]["failureCode"], "WDA_UNREACHABLE", json.dumps(r)[:800])
        self.assertEqual(s.close(), 0)

    def test_structured_with_the_attached_wda(self):
        s, sid = self.start()
        self.booted(s, sid)
        self.tool_ok(s, "qa_wda", sid, action="attach", webDriverAgentUrl=self.url, bundleId="com.example.shop")
        self.make_app("Shop.app", INFO)
        sc = self.prepare(s, sid, app="Shop.app")[1]["structuredContent"]
        self.assertEqual(sc["mode"], "structured", sc)
        self.assertTrue(sc["foregroundIsApp"], sc)
        snap = self.tool_ok(s, "qa_snapshot", sid)
        self.assertTrue(any('"Sign in"' in l for l in snap["elements"]))
        self.assertEqual(s.close(), 0)

    def test_slow_boot_finishes_in_a_job(self):
        self.knobs({"bootDelayS": 3})
        s = self.server({"SWIPIUM_IOS_BOOT_WAIT_MS": "500"})
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": self.app})["result"]["structuredContent"]["sessionId"]
        self.make_app("Shop.app", INFO)
        sc = self.prepare(s, sid, app="Shop.app", device="iPhone 15", attachWda="skip")[1]["structuredContent"]
        self.assertEqual(sc["status"], "booting", sc)
        job = sc["jobId"]
        for _ in range(20):
            st = self.tool_ok(s, "qa_job_status", sid, jobId=job, waitMs=5000)
            if st["status"] != "running":
                break
        self.assertEqual(st["status"], "done", st)
        self.assertIn("com.example.shop", self.device("5A1C2F0B-8D3E-4C71-9B2A-1F6E0D4C3B21")["apps"])
        self.assertEqual(s.close(), 0)

    def test_refusals_before_anything_runs(self):
        s, sid = self.start()
        self.make_app("dev/Device.app", dict(INFO, CFBundleSupportedPlatforms=["iPhoneOS"], DTPlatformName="iphoneos"))
        self.tool_fails(s, "qa_prepare_ios_target", sid, "IOS_APP_WRONG_ARCH", app="dev/Device.app")
        self.tool_fails(s, "qa_prepare_ios_target", sid, "IOS_SIMULATOR_APP_MISSING", app="Nope.app")
        self.tool_fails(s, "qa_prepare_ios_target", sid, "INVALID_ARGUMENT")
        # nothing booted and no device among two simulators: the consent is asked, then the boot never guesses
        self.make_app("Shop.app", INFO)
        r = self.prepare(s, sid, app="Shop.app")[1]
        self.assertEqual(r["structuredContent"]["failureCode"], "MULTIPLE_DEVICES", json.dumps(r)[:600])
        # nothing was booted (the stand-in has not even written its state)
        st = os.path.join(self.home, ".fake-simctl", "state.json")
        self.assertTrue(not os.path.exists(st) or self.device(IPHONE15PRO)["state"] == "Shutdown")
        self.assertEqual(s.close(), 0)



def free_port():
    import socket
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


class TestWdaManaged(DriveCase):
    """qa_wda build / start / stop through xcodebuild (the stand-in tests/ios/xcodebuild runs tests/ios/wda.py)."""

    def setUp(self):
        super().setUp()
        self.proj = os.path.join(self.home, "wda", "WebDriverAgent.xcodeproj")
        os.makedirs(self.proj)
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port

    def tearDown(self):
        # a managed WebDriverAgent outlives its server: end what a test left behind (its whole group)
        for p in self.processes():
            if p.get("kind") == "wda" and isinstance(p.get("pid"), int) and p["pid"] > 1:
                try:
                    with open("/proc/%d/cmdline" % p["pid"], "rb") as f:
                        if b"xcodebuild" not in f.read():
                            continue  # gone; the pid names something else now
                except OSError:
                    continue
                for target in (-p["pid"], p["pid"]):
                    try:
                        os.kill(target, 9)
                    except OSError:
                        pass
        super().tearDown()

    def xb_knobs(self, k):
        d = os.path.join(self.home, ".fake-xcodebuild")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "knobs.json"), "w") as f:
            json.dump(k, f)

    def wda(self, s, sid, action, **extra):
        return self.tool(s, "qa_wda", sid, action=action, wdaProjectPath=self.proj, webDriverAgentUrl=self.url, **extra)

    def approve(self, s, sid, action, consent, **extra):
        r = self.wda(s, sid, action, **extra)
        env = r["structuredContent"]
        self.assertTrue(env.get("requiresConsent"), json.dumps(r)[:1500])
        self.assertEqual(env["action"], consent)
        text = json.dumps(env)
        # the whole command is shown
        self.assertIn("xcodebuild -project " + self.proj, text)
        self.assertIn("-destination id=" + IPHONE15PRO, text)
        return self.wda(s, sid, action, consentId=env["consentId"], approve=True, **extra)

    def build(self, s, sid, **extra):
        """qa_wda build with consent: the call answers a wda_build job at once; returns the job's record."""
        r = self.approve(s, sid, "build", "wda_build", **extra)
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        b = r["structuredContent"]
        self.assertEqual((b["status"], b["kind"]), ("running", "wda_build"), b)
        self.assertEqual(b["command"][-1], "build-for-testing")
        for _ in range(10):
            j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"], waitMs=20000)
            if j["status"] != "running":
                return j
        self.fail("the wda_build job did not end: %s" % json.dumps(j)[:1500])

    def processes(self):
        try:
            with open(os.path.join(self.home, ".swipium", "processes.json")) as f:
                d = json.load(f)
        except OSError:
            return []
        return d.get("processes", d) if isinstance(d, dict) else d

    def alive(self, pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        # a zombie of the server's child counts as gone
        try:
            with open("/proc/%d/stat" % pid) as f:
                return f.read().split(") ")[1][0] != "Z"
        except OSError:
            return False

    def test_build_start_snapshot_stop(self):
        s, sid = self.ready()
        j = self.build(s, sid)
        self.assertEqual((j["status"], j["kind"]), ("done", "wda_build"), j)
        b = j["result"]
        self.assertTrue(b["built"], b)
        self.assertTrue(b["logUri"], b)
        self.assertIn(b["logUri"], j["artifactUris"])
        self.assertEqual(b["command"][-1], "build-for-testing")
        r = self.approve(s, sid, "start", "wda_start")
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        st = r["structuredContent"]
        self.assertEqual(st["status"], "ready", st)
        self.assertTrue(st["attached"], st)
        self.assertEqual(st["mode"], "structured")
        self.assertEqual(st["command"][-1], "test-without-building")
        pid = st["pid"]
        self.assertTrue(self.alive(pid))
        procs = [p for p in self.processes() if p.get("kind") == "wda"]
        self.assertEqual([p["pid"] for p in procs], [pid], procs)
        self.assertEqual(procs[0].get("endpoint"), self.url)
        # the session drives the started WebDriverAgent
        snap = self.tool_ok(s, "qa_snapshot", sid)
        self.assertIn("Sign in", json.dumps(snap))
        # a second start while it runs is refused with the pid
        r = self.wda(s, sid, "start")
        env = r["structuredContent"]
        if env.get("requiresConsent"):
            r = self.wda(s, sid, "start", consentId=env["consentId"], approve=True)
        self.assertTrue(r.get("isError"), json.dumps(r)[:1500])
        self.assertEqual(r["structuredContent"]["failureCode"], "WDA_START_FAILED")
        self.assertIn(str(pid), json.dumps(r["structuredContent"]))
        logs = self.tool_ok(s, "qa_wda", sid, action="logs")
        self.assertTrue(logs["managed"] and logs["running"], logs)
        self.assertIn("ServerURLHere", logs["logTail"])
        stop = self.tool_ok(s, "qa_wda", sid, action="stop", webDriverAgentUrl=self.url)
        self.assertTrue(stop["stopped"] and stop["managed"], stop)
        self.assertEqual(stop["pid"], pid)
        self.assertEqual(stop["mode"], "visual-only")
        self.assertTrue(stop["logUri"])
        self.assertFalse(self.alive(pid))
        self.assertEqual([p for p in self.processes() if p.get("kind") == "wda"], [])
        self.tool_fails(s, "qa_snapshot", sid, "BACKEND_UNSUPPORTED")
        # nothing managed any more: stop signals nothing
        again = self.tool_ok(s, "qa_wda", sid, action="stop")
        self.assertFalse(again["stopped"] or again["managed"], again)
        self.assertEqual(s.close(), 0)

    def test_server_shutdown_leaves_the_managed_wda_running(self):
        s, sid = self.ready()
        r = self.approve(s, sid, "start", "wda_start")
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        pid = r["structuredContent"]["pid"]
        self.assertTrue(self.alive(pid))
        self.assertEqual(s.close(), 0)
        time.sleep(1)
        # the next server adopts it (mcp-ios-wda-lifecycle follows it across the restart)
        self.assertTrue(self.alive(pid))
        self.assertEqual([p["pid"] for p in self.processes() if p.get("kind") == "wda"], [pid])

    def test_build_failures(self):
        s, sid = self.ready()
        self.xb_knobs({"mode": "signing"})
        j = self.build(s, sid)
        self.assertEqual((j["status"], j.get("failureCode")), ("failed", "WDA_SIGNING_FAILED"), j)
        sc = j["result"]
        self.assertEqual(sc["failureCode"], "WDA_SIGNING_FAILED", sc)
        self.assertFalse(sc["built"])
        self.assertIn("requires a development team", json.dumps(sc))
        self.assertTrue(sc["logUri"] and sc["nextSteps"], sc)
        self.xb_knobs({"mode": "buildfail"})
        j = self.build(s, sid)
        sc = j["result"]
        self.assertEqual((j.get("failureCode"), sc["failureCode"]), ("WDA_BUILD_FAILED", "WDA_BUILD_FAILED"), sc)
        self.assertIn("FBWebServer.m", json.dumps(sc))
        self.assertTrue(sc["logUri"], sc)
        self.assertEqual(s.close(), 0)

    def test_start_failures(self):
        s, sid = self.ready()
        self.xb_knobs({"mode": "startfail"})
        r = self.approve(s, sid, "start", "wda_start")
        sc = r["structuredContent"]
        self.assertEqual(sc.get("failureCode"), "WDA_START_FAILED", sc)
        self.assertIn("Early unexpected exit", json.dumps(sc))
        self.assertEqual([p for p in self.processes() if p.get("kind") == "wda"], [])
        # the port is taken by something else: nothing is started
        self.xb_knobs({})
        import socket
        with socket.socket() as so:
            so.bind(("127.0.0.1", self.port))
            so.listen(1)
            r = self.approve(s, sid, "start", "wda_start")
            sc = r["structuredContent"]
            self.assertEqual(sc.get("failureCode"), "WDA_PORT_CONFLICT", sc)
        self.assertEqual([p for p in self.processes() if p.get("kind") == "wda"], [])
        # the runner starts on this machine: a remote URL is refused before anything runs
        sc = self.tool_fails(s, "qa_wda", sid, "INVALID_ARGUMENT", action="start", wdaProjectPath=self.proj,
                             webDriverAgentUrl="http://10.0.0.5:8100")
        self.assertIn("loopback", sc["what"])
        self.tool_fails(s, "qa_wda", sid, "NO_ARTIFACT", action="build",
                        wdaProjectPath=os.path.join(self.home, "none.xcodeproj"))
        self.assertEqual(s.close(), 0)

    def test_slow_start_answers_starting_then_wait_and_attach(self):
        self.server_env = dict(self.server_env, SWIPIUM_WDA_START_WAIT_MS="800")
        s, sid = self.ready()
        self.xb_knobs({"mode": "slow"})
        r = self.approve(s, sid, "start", "wda_start")
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        st = r["structuredContent"]
        self.assertEqual(st["status"], "starting", st)
        self.assertFalse(st["attached"], st)
        self.assertIn("wda_ready", json.dumps(r))
        # qa_wait polls the managed runner's URL (not the default 8100)
        w = self.tool_ok(s, "qa_wait", sid, **{"for": "wda_ready", "timeoutMs": 10000})
        self.assertTrue(w["satisfied"], w)
        self.assertEqual(w["url"], self.url)
        a = self.tool_ok(s, "qa_wda", sid, action="attach", webDriverAgentUrl=self.url)
        self.assertEqual(a["mode"], "structured")
        self.assertTrue(self.tool_ok(s, "qa_wda", sid, action="stop")["stopped"])
        self.assertEqual(s.close(), 0)

    def test_no_device_bound(self):
        s, sid = self.start()
        self.tool_fails(s, "qa_wda", sid, "NO_DEVICE", action="start", wdaProjectPath=self.proj)
        self.assertEqual(s.close(), 0)

if __name__ == "__main__":
    unittest.main(verbosity=2)
