"""Device control and app health through swipium-mcp, the real adb and the virtual device (tests/vdevice):
qa_check_health, qa_clear_overlay, qa_wait, qa_device_info, qa_orientation, qa_network, qa_geolocation,
qa_app_control, qa_screen_record, qa_smoke."""

import json
import re
import os
import shutil
import signal
import struct
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402

APP = "com.example.shop"
ALL_CONSENTS = "network_change,geo_set,app_clear_data,app_fresh_start,screen_record"
TOOLS = ("qa_check_health", "qa_clear_overlay", "qa_wait", "qa_device_info", "qa_orientation", "qa_network",
         "qa_geolocation", "qa_app_control", "qa_screen_record", "qa_smoke")


def sc(resp):
    return resp["result"]["structuredContent"]


def is_error(resp):
    return bool(resp["result"].get("isError"))


def text(resp):
    return "\n".join(c.get("text", "") for c in resp["result"].get("content", []))


def mp4_boxes(data):
    """Top-level MP4 boxes as (type, size); raises on a malformed file."""
    boxes, off = [], 0
    while off < len(data):
        size, kind = struct.unpack(">I4s", data[off:off + 8])
        if size < 8 or off + size > len(data):
            raise ValueError("bad box at %d" % off)
        boxes.append((kind.decode("ascii"), size))
        off += size
    return boxes


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-devctl-")
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write('{"name": "shop"}')

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def server(self, env, extra=None):
        e = dict(env.env)
        e["HOME"] = env.server.home
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        return s

    def state_path(self, env, sid):
        runs = os.path.join(env.server.home, ".swipium", "runs")
        for root, dirs, files in os.walk(runs):
            if os.path.basename(root) == sid and "state.json" in files:
                return os.path.join(root, "state.json")
        raise AssertionError("no state.json for " + sid)

    def state(self, env, sid):
        with open(self.state_path(env, sid)) as f:
            return json.load(f)

    def with_app(self, s, sid):
        r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": APP, "bindOnly": True})
        self.assertFalse(is_error(r), r)
        return sid

    def launch(self, env):
        rc, out, err = env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % APP)
        self.assertEqual(rc, 0, err)

    def airplane(self, env):
        rc, out, _ = env.shell("settings get global airplane_mode_on")
        return out.strip()


class Listing(Base):
    def test_tools_listed_with_annotations(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            tools = {t["name"]: t for t in s.call("tools/list")["result"]["tools"]}
            for n in TOOLS:
                self.assertIn(n, tools)
            self.assertTrue(tools["qa_check_health"]["annotations"]["readOnlyHint"])
            self.assertTrue(tools["qa_wait"]["annotations"]["readOnlyHint"])
            self.assertTrue(tools["qa_app_control"]["annotations"]["destructiveHint"])
            self.assertTrue(tools["qa_network"]["annotations"]["idempotentHint"])
            s.close()


class Health(Base):
    def test_crash_in_the_middle_of_a_tap_sequence(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            sid = self.with_app(s, sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"])
            self.launch(env)
            r = s.tool("qa_check_health", {"sessionId": sid})
            self.assertFalse(is_error(r), r)
            self.assertTrue(sc(r)["healthy"], r)
            acts = [s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": text}})
                    for text in ("Add to cart", "Checkout", "Pay")]
            self.assertTrue(sc(acts[0])["health"]["healthy"], acts[0])
            # the health check after every qa_act catches the crash in the tap that caused it
            h = sc(acts[1])["health"]
            codes = [f["failureCode"] for f in h["findings"]]
            self.assertIn("NATIVE_CRASH", codes, h)
            self.assertTrue(h["crashed"])
            crash = [f for f in h["findings"] if f["failureCode"] == "NATIVE_CRASH"][0]
            self.assertEqual(crash["kind"], "native_crash")
            self.assertEqual(crash["severity"], "high")
            self.assertEqual(crash["layer"], "native")
            self.assertIn("SIGSEGV", crash["detail"])
            self.assertFalse(h["healthy"])
            # the app is gone: the launcher is in front
            self.assertIn("WRONG_FOREGROUND", codes)
            self.assertFalse(h["foregroundIsApp"])
            # the crash is reported once; a later check finds no new crash
            r = s.tool("qa_check_health", {"sessionId": sid})
            self.assertIn("WRONG_FOREGROUND", [f["failureCode"] for f in sc(r)["findings"]])
            self.assertNotIn("NATIVE_CRASH", [f["failureCode"] for f in sc(r)["findings"]])
            s.close()
            st = self.state(env, sid)
            kinds = [f["kind"] for f in st["findings"]]
            self.assertEqual(kinds.count("native_crash"), 1, st["findings"])
            self.assertTrue(all("at" in f for f in st["findings"]))

    def test_act_records_a_crash_without_a_health_call(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            sid = self.with_app(s, sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"])
            self.launch(env)
            r = s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "Pay"}})
            # a crash after a successful tap is a result, not a tool error
            self.assertFalse(is_error(r), r)
            res = sc(r)
            self.assertTrue(res["changedState"])
            h = res["health"]
            self.assertFalse(h["healthy"], h)
            self.assertTrue(h["crashed"])
            self.assertTrue(h["checked"]["logcat"] and h["checked"]["ui"] and h["checked"]["foreground"], h)
            crash = [f for f in h["findings"] if f["failureCode"] == "NATIVE_CRASH"]
            self.assertEqual(len(crash), 1, h)
            self.assertIn("IllegalStateException", crash[0]["detail"])
            # a later act does not report the same crash again
            r = s.tool("qa_act", {"sessionId": sid, "action": "press", "key": "back"})
            self.assertFalse(is_error(r), r)
            self.assertFalse(sc(r)["health"]["crashed"], sc(r)["health"])
            s.close()
            # recorded on the session once, without any qa_check_health call
            st = self.state(env, sid)
            recorded = [f for f in st["findings"] if f["kind"] == "native_crash"]
            self.assertEqual(len(recorded), 1, st["findings"])
            self.assertEqual(recorded[0]["failureCode"], "NATIVE_CRASH")
            self.assertEqual(recorded[0]["severity"], "high")
            self.assertIn("at", recorded[0])

    def test_java_crash_and_anr_while_waiting(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            sid = self.with_app(s, sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"])
            self.launch(env)
            s.tool("qa_check_health", {"sessionId": sid})
            # the ANR happens while the agent waits
            rid = s.request("tools/call", {"name": "qa_wait", "arguments": {"sessionId": sid, "for": "device_online"}})
            env.shell("input tap 500 810")  # Sync: the app freezes
            r = s.wait_for(rid, 60)
            self.assertTrue(sc(r)["satisfied"], r)
            h = sc(s.tool("qa_check_health", {"sessionId": sid}))
            anr = [f for f in h["findings"] if f["failureCode"] == "ANR"]
            self.assertEqual(len(anr), 1, h)
            self.assertEqual(anr[0]["kind"], "anr")
            self.assertIn("Input dispatching timed out", anr[0]["detail"])
            # the app is still in front during an ANR
            self.assertTrue(h["foregroundIsApp"])
            env.shell("input tap 500 660")  # Pay: a Java FATAL EXCEPTION
            h = sc(s.tool("qa_check_health", {"sessionId": sid}))
            crash = [f for f in h["findings"] if f["failureCode"] == "NATIVE_CRASH"]
            self.assertEqual(len(crash), 1, h)
            self.assertIn("IllegalStateException", crash[0]["detail"])
            s.close()

    def test_error_surfaces_on_screen(self):
        with VDeviceEnv(app="health") as env:
            self.launch(env)
            s = self.server(env)
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            env.shell("input tap 500 1110")  # LogBox warning
            h = sc(s.tool("qa_check_health", {"sessionId": sid}))
            self.assertEqual([f["failureCode"] for f in h["findings"]], ["LOGBOX"], h)
            self.assertEqual(h["findings"][0]["layer"], "app")
            self.assertEqual(h["findings"][0]["severity"], "medium")
            env.shell("input tap 500 960")  # RedBox
            h = sc(s.tool("qa_check_health", {"sessionId": sid}))
            codes = [f["failureCode"] for f in h["findings"]]
            self.assertIn("REDBOX", codes, h)
            red = [f for f in h["findings"] if f["failureCode"] == "REDBOX"][0]
            self.assertIn("Render Error", red["detail"])
            self.assertIn("Invariant Violation", red["evidence"])
            r = sc(s.tool("qa_clear_overlay", {"sessionId": s and sid}))
            self.assertIn("rn_redbox", r["cleared"], r)
            env.shell("input tap 500 1260")  # Profile: an error boundary
            h = sc(s.tool("qa_check_health", {"sessionId": sid}))
            eb = [f for f in h["findings"] if f["failureCode"] == "ERROR_BOUNDARY"]
            self.assertEqual(len(eb), 1, h)
            self.assertEqual(eb[0]["kind"], "app_error_boundary")
            self.assertEqual(eb[0]["severity"], "high")
            s.close()


class FalseHealth(Base):
    """After the device drops its connection, a health check never says healthy, and the report does not ship."""

    def test_a_dropped_device_is_not_healthy(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            sid = self.with_app(s, sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"])
            self.launch(env)
            r = s.tool("qa_check_health", {"sessionId": sid})
            self.assertTrue(sc(r)["healthy"], r)
            self.assertEqual(sc(r)["verdict"], "healthy", r)
            # the device drops off adb (it comes back in 20 s, after the check)
            env.adb("shell", "setprop", "debug.vdevice.offline_ms", "20000")
            r = s.tool("qa_check_health", {"sessionId": sid})
            body = sc(r)
            self.assertNotIn("Health OK", text(r))
            if is_error(r):
                self.assertIn(body["failureCode"], ("NO_DEVICE", "DEVICE_NOT_READY"), r)
            else:
                self.assertFalse(body["healthy"], r)
                self.assertEqual(body["verdict"], "degraded", r)
                self.assertFalse(all(body["checked"].values()), r)
            r = s.tool("qa_report", {"sessionId": sid, "format": "json"})
            self.assertFalse(is_error(r), r)
            report_dir = os.path.join(os.path.dirname(self.state_path(env, sid)), "report")
            reports = sorted(f for f in os.listdir(report_dir) if re.match(r"report-\d+\.json$", f))
            with open(os.path.join(report_dir, reports[-1])) as f:
                rep = json.load(f)
            self.assertNotEqual(rep["executiveSummary"]["risk"], "ship", rep["executiveSummary"])
            self.assertTrue(any("could not look" in x for x in rep["executiveSummary"]["reasons"]),
                            rep["executiveSummary"])
            s.close()
            st = self.state(env, sid)
            self.assertTrue(any(f["kind"] == "health_unchecked" for f in st["findings"]), st["findings"])


class Overlays(Base):
    def test_back_dismissible_vs_not_and_bare_screen(self):
        with VDeviceEnv(app="health") as env:
            self.launch(env)
            s = self.server(env)
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            # a bare screen: BACK would leave the app, so nothing is pressed
            r = s.tool("qa_clear_overlay", {"sessionId": sid, "strategy": "press_back"})
            self.assertFalse(is_error(r), r)
            self.assertTrue(sc(r)["nothingCleared"])
            self.assertIsNone(sc(r)["applied"])
            rc, out, _ = env.shell("dumpsys window")
            self.assertIn("mCurrentFocus=Window{2b8c4d1 u0 %s/" % APP, out)
            # an alert BACK closes
            env.shell("input tap 500 1410")
            h = sc(s.tool("qa_check_health", {"sessionId": sid}))
            self.assertEqual([f["failureCode"] for f in h["findings"]], ["NATIVE_ALERT"], h)
            r = sc(s.tool("qa_clear_overlay", {"sessionId": sid}))
            self.assertEqual(r["applied"], "press_back")
            self.assertEqual(r["cleared"], ["native_alert"])
            self.assertFalse(r["nothingCleared"])
            self.assertEqual(r["remaining"], [])
            # an alert BACK does not close: reported honestly, and the app under it did not move
            env.shell("input tap 500 1560")
            r = sc(s.tool("qa_clear_overlay", {"sessionId": sid}))
            self.assertEqual(r["applied"], "press_back")
            self.assertTrue(r["nothingCleared"], r)
            self.assertEqual(r["remaining"], ["native_alert"])
            rc, out, _ = env.shell("uiautomator dump /dev/tty")
            self.assertIn("Update required", out)
            # the keyboard
            env.shell("input tap 200 1700")
            r = sc(s.tool("qa_clear_overlay", {"sessionId": sid}))
            s.close()

    def test_keyboard_hidden_and_unknown_strategy(self):
        with VDeviceEnv(app="health") as env:
            self.launch(env)
            s = self.server(env)
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            env.shell("input tap 500 1700")  # the search field: keyboard up
            r = sc(s.tool("qa_clear_overlay", {"sessionId": sid}))
            self.assertEqual(r["applied"], "hide_keyboard", r)
            self.assertTrue(r["keyboardHidden"])
            self.assertEqual(r["cleared"], ["keyboard"])
            rc, out, _ = env.shell("dumpsys input_method")
            self.assertIn("mInputShown=false", out)
            r = s.tool("qa_clear_overlay", {"sessionId": sid, "strategy": "explode"})
            self.assertTrue(is_error(r))
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT")
            s.close()

    def test_undismissable_keyboard(self):
        with VDeviceEnv(app="health", device_args=["--sticky-keyboard"]) as env:
            self.launch(env)
            s = self.server(env)
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            env.shell("input tap 500 1700")
            r = s.tool("qa_clear_overlay", {"sessionId": sid, "strategy": "hide_keyboard"})
            self.assertTrue(is_error(r), r)
            self.assertEqual(sc(r)["failureCode"], "KEYBOARD_NOT_DISMISSIBLE")
            self.assertFalse(sc(r)["retrySafe"])
            self.assertTrue(any("tap_outside" in n for n in sc(r)["nextSteps"]))
            s.close()


class Network(Base):
    def test_offline_online_restore_with_ledger(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            r = sc(s.tool("qa_network", {"sessionId": sid, "action": "status"}))
            self.assertEqual(r["network"], "online")
            self.assertFalse(r["restoreAvailable"])
            r = sc(s.tool("qa_network", {"sessionId": sid, "action": "offline"}))
            self.assertEqual(r["network"], "offline")
            self.assertTrue(r["restoreAvailable"])
            self.assertEqual(self.airplane(env), "1")
            st = self.state(env, sid)
            self.assertTrue(st["network"]["changed"])
            self.assertFalse(st["network"]["originalAirplane"])
            # a second change keeps the first original
            sc(s.tool("qa_network", {"sessionId": sid, "action": "online"}))
            sc(s.tool("qa_network", {"sessionId": sid, "action": "offline"}))
            self.assertFalse(self.state(env, sid)["network"]["originalAirplane"])
            r = sc(s.tool("qa_network", {"sessionId": sid, "action": "restore"}))
            self.assertTrue(r["restored"])
            self.assertEqual(r["network"], "online")
            self.assertEqual(self.airplane(env), "0")
            r = sc(s.tool("qa_network", {"sessionId": sid, "action": "restore"}))
            self.assertFalse(r["restored"])
            s.close()
            st = self.state(env, sid)
            statuses = [(m["action"], m["status"]) for m in st["mutations"]]
            self.assertIn(("network_change", "executed"), statuses)
            self.assertIn(("network_change", "restored"), statuses)
            # a change made under an approved consent carries that consent, not approved:false
            approvals = [m for m in st["mutations"] if m["status"] == "approved"]
            self.assertTrue(approvals, st["mutations"])
            ids = {m["consent"]["consentId"] for m in approvals}
            for m in st["mutations"]:
                if m["status"] in ("executed", "restored"):
                    self.assertTrue(m["consent"]["approved"], m)
                    self.assertTrue(m["consent"]["required"], m)
                    self.assertEqual(m["consent"]["approvalMechanism"], "operator-policy", m)
                    self.assertIn(m["consent"]["consentId"], ids, m)
            self.assertTrue(any("network set offline" in c for c in st["envChanges"]), st["envChanges"])
            self.assertTrue(any("network restored" in c for c in st["envChanges"]))

    def test_refused_consent_changes_nothing(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            r = s.tool("qa_network", {"sessionId": sid, "action": "offline"})
            env_ = sc(r)
            self.assertTrue(env_.get("requiresConsent"), r)
            self.assertEqual(env_["action"], "network_change")
            r = s.tool("qa_network", {"sessionId": sid, "action": "offline", "consentId": env_["consentId"],
                                      "approve": False})
            self.assertEqual(sc(r)["failureCode"], "CONSENT_DECLINED")
            self.assertEqual(self.airplane(env), "0")
            s.close()
            st = self.state(env, sid)
            self.assertFalse(st["network"]["changed"])
            self.assertIn("refused", [m["status"] for m in st["mutations"]])

    def test_shutdown_restores_and_offline_device_then_back(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            sc(s.tool("qa_network", {"sessionId": sid, "action": "offline"}))
            self.assertEqual(self.airplane(env), "1")
            # stdin closes: the server restores the network on its way out
            self.assertEqual(s.close(), 0)
            self.assertEqual(self.airplane(env), "0")
            st = self.state(env, sid)
            self.assertTrue(st["network"]["restored"])
            self.assertTrue(any("server shutdown" in c for c in st["envChanges"]), st["envChanges"])

    def test_report_restores_the_network(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            sc(s.tool("qa_network", {"sessionId": sid, "action": "offline"}))
            self.assertEqual(self.airplane(env), "1")
            r = s.tool("qa_report", {"sessionId": sid, "format": "json"})
            self.assertFalse(r["result"].get("isError"), r)
            # qa_report puts airplane mode back before it records the final network state
            self.assertEqual(self.airplane(env), "0")
            st = self.state(env, sid)
            self.assertTrue(st["network"]["restored"])
            self.assertTrue(any("qa_report" in c for c in st["envChanges"]), st["envChanges"])
            report_dir = os.path.join(os.path.dirname(self.state_path(env, sid)), "report")
            reports = sorted(f for f in os.listdir(report_dir) if re.match(r"report-\d+\.json$", f))
            with open(os.path.join(report_dir, reports[-1])) as f:
                rep = json.load(f)
                self.assertEqual(rep["finalNetwork"], "online", json.dumps(rep["mutationLedger"]))
            s.close()

    def test_sigterm_restores_and_stops_the_recorder(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            sc(s.tool("qa_network", {"sessionId": sid, "action": "offline"}))
            sc(s.tool("qa_screen_record", {"sessionId": sid, "action": "start"}))
            s.proc.send_signal(signal.SIGTERM)
            self.assertEqual(s.proc.wait(30), 128 + signal.SIGTERM)
            s.close()
            self.assertEqual(self.airplane(env), "0")
            st = self.state(env, sid)
            self.assertTrue(st["network"]["restored"])
            self.assertEqual(len([a for a in st["artifacts"] if a["kind"] == "recording"]), 1)

    def test_device_offline_while_airplane_on(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            sc(s.tool("qa_network", {"sessionId": sid, "action": "offline"}))
            # the device drops off adb for 5 s (it keeps its state, as after a network blip)
            env.adb("shell", "setprop", "debug.vdevice.offline_ms", "5000")
            r = s.tool("qa_network", {"sessionId": sid, "action": "restore"})
            self.assertTrue(is_error(r), r)
            self.assertIn(sc(r)["failureCode"], ("NO_DEVICE", "DEVICE_NOT_READY"), r)
            st = self.state(env, sid)
            self.assertFalse(st["network"]["restored"])
            self.assertIn("restoreFailed", st["network"])
            self.assertTrue(any("network restore (restore) failed" in c for c in st["envChanges"]), st["envChanges"])
            r = s.tool("qa_wait", {"sessionId": sid, "for": "device_online", "timeoutMs": 20000})
            self.assertTrue(sc(r)["satisfied"], r)
            r = s.tool("qa_network", {"sessionId": sid, "action": "restore"})
            self.assertFalse(is_error(r), r)
            self.assertEqual(self.airplane(env), "0")
            st = self.state(env, sid)
            self.assertTrue(st["network"]["restored"])
            self.assertNotIn("restoreFailed", st["network"])
            s.close()

    def test_sigkill_then_restart_restores(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            sc(s.tool("qa_network", {"sessionId": sid, "action": "offline"}))
            s.proc.send_signal(signal.SIGKILL)
            s.proc.wait(10)
            self.assertEqual(self.airplane(env), "1")  # nobody restored it
            s2 = self.server(env)
            deadline = time.monotonic() + 30
            while self.airplane(env) != "0" and time.monotonic() < deadline:
                time.sleep(0.2)
            self.assertEqual(self.airplane(env), "0")
            deadline = time.monotonic() + 10
            while not self.state(env, sid)["network"].get("restored") and time.monotonic() < deadline:
                time.sleep(0.2)
            st = self.state(env, sid)
            self.assertTrue(st["network"]["restored"])
            self.assertTrue(any("server restart" in c for c in st["envChanges"]), st["envChanges"])
            s2.close()


class DeviceState(Base):
    def test_info_orientation_geolocation(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            r = s.tool("qa_device_info", {"sessionId": sid, "packageFilter": "shop"})
            info = sc(r)
            self.assertEqual(info["platform"], "android")
            self.assertEqual(info["serial"], env.serial)
            self.assertEqual(info["props"]["sdk"], "33")
            self.assertEqual(info["screen"], {"width": 1080, "height": 2400, "density": 420})
            self.assertEqual(info["orientation"], "portrait")
            self.assertEqual(info["packages"], [APP])
            r = sc(s.tool("qa_orientation", {"sessionId": sid, "orientation": "landscape"}))
            self.assertEqual((r["orientation"], r["rotation"], r["autoRotate"]), ("landscape", 1, False))
            info = sc(s.tool("qa_device_info", {"sessionId": sid}))
            self.assertEqual(info["screen"]["width"], 2400)
            r = sc(s.tool("qa_orientation", {"sessionId": sid, "orientation": "auto"}))
            self.assertTrue(r["autoRotate"])
            r = s.tool("qa_orientation", {"sessionId": sid, "orientation": "sideways"})
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT")
            r = sc(s.tool("qa_geolocation", {"sessionId": sid, "lat": 48.8584, "lng": 2.2945}))
            self.assertEqual((r["lat"], r["lng"], r["set"]), (48.8584, 2.2945, True))
            rc, out, _ = env.shell("dumpsys location")
            self.assertIn("gps 48.858400,2.294500", out)
            r = s.tool("qa_geolocation", {"sessionId": sid, "lat": 91, "lng": 0})
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT")
            s.close()
            st = self.state(env, sid)
            self.assertTrue(any("orientation set to landscape" in c for c in st["envChanges"]))
            self.assertIn(("geo_set", "executed"), [(m["action"], m["status"]) for m in st["mutations"]])

    def test_wait_clamp_metro_and_cancel(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            r = sc(s.tool("qa_wait", {"sessionId": sid, "for": "device_online", "timeoutMs": 60000}))
            self.assertTrue(r["satisfied"])
            self.assertEqual(r["timeoutMs"], 50000)
            self.assertTrue(any("clamped to 50000" in n for n in r["notes"]))
            r = sc(s.tool("qa_wait", {"sessionId": sid, "for": "metro_ready", "timeoutMs": 0}))
            self.assertFalse(r["satisfied"])
            self.assertTrue(r["timedOut"])
            # cancel a long wait: CANCELLED at once
            # cancel a 45 s wait: the worker is free again long before the wait would have ended
            rid = s.request("tools/call", {"name": "qa_wait", "arguments": {"sessionId": sid, "for": "metro_ready"}})
            time.sleep(0.5)
            s.notify("notifications/cancelled", {"requestId": rid})
            r = s.tool("qa_wait", {"sessionId": sid, "for": "device_online"}, timeout=30)
            self.assertTrue(sc(r)["satisfied"], r)
            r = s.tool("qa_wait", {"sessionId": sid, "for": "job_done"})
            self.assertTrue(is_error(r))
            self.assertIn(sc(r)["failureCode"], ("STALE_CLIENT", "INVALID_ARGUMENT"))
            s.close()


class AppControl(Base):
    def app_session(self, s, env):
        return self.with_app(s, sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"])

    def test_lifecycle_and_wipe_consent(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            sid = self.app_session(s, env)
            r = sc(s.tool("qa_app_control", {"sessionId": sid, "action": "launch"}))
            self.assertTrue(r["foregroundIsApp"], r)
            self.assertFalse(r["processKilled"])
            r = sc(s.tool("qa_app_control", {"sessionId": sid, "action": "background"}))
            self.assertFalse(r["foregroundIsApp"], r)
            r = sc(s.tool("qa_app_control", {"sessionId": sid, "action": "restart"}))
            self.assertTrue(r["processKilled"])
            self.assertTrue(r["foregroundIsApp"])
            r = s.tool("qa_app_control", {"sessionId": sid, "action": "clear_data", "appId": APP})
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT")
            # clear_data without consent: the envelope, then a decline; nothing wiped
            env.shell("input tap 500 360")  # Add to cart: state a wipe would lose
            r = s.tool("qa_app_control", {"sessionId": sid, "action": "clear_data"})
            envl = sc(r)
            self.assertTrue(envl.get("requiresConsent"), r)
            self.assertEqual(envl["action"], "app_clear_data")
            self.assertEqual(envl["risk"], "high")
            r = s.tool("qa_app_control", {"sessionId": sid, "action": "clear_data", "consentId": envl["consentId"],
                                          "approve": False})
            self.assertEqual(sc(r)["failureCode"], "CONSENT_DECLINED")
            self.assertFalse(sc(r)["changedState"])
            rc, out, _ = env.shell("logcat -d")
            self.assertNotIn("Force stopping %s" % APP, out.split("added to cart")[-1])
            # approved: wiped
            r = s.tool("qa_app_control", {"sessionId": sid, "action": "clear_data"})
            envl = sc(r)
            r = sc(s.tool("qa_app_control", {"sessionId": sid, "action": "clear_data",
                                             "consentId": envl["consentId"], "approve": True}))
            self.assertTrue(r["processKilled"])
            self.assertFalse(r["foregroundIsApp"])
            s.close()
            st = self.state(env, sid)
            rows = [(m["action"], m["status"]) for m in st["mutations"]]
            self.assertIn(("app_clear_data", "refused"), rows)
            self.assertIn(("app_clear_data", "executed"), rows)

    def test_bundle_loss_refused_on_debug_rn(self):
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write('{"name": "shop", "dependencies": {"react-native": "0.74.0"}}')
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = self.app_session(s, env)
            r = s.tool("qa_app_control", {"sessionId": sid, "action": "fresh_start"})
            self.assertTrue(is_error(r))
            self.assertEqual(sc(r)["failureCode"], "BUNDLE_LOSS_REFUSED")
            self.assertFalse(sc(r)["changedState"])
            r = sc(s.tool("qa_app_control", {"sessionId": sid, "action": "fresh_start",
                                             "acknowledgeBundleRisk": True}))
            self.assertTrue(r["foregroundIsApp"], r)
            s.close()
            st = self.state(env, sid)
            self.assertTrue(any("acknowledgeBundleRisk" in c for c in st["envChanges"]))
            self.assertIn(("app_fresh_start", "blocked"), [(m["action"], m["status"]) for m in st["mutations"]])


class Recording(Base):
    def test_record_mp4_artifact_and_second_start(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            r = s.tool("qa_screen_record", {"sessionId": sid, "action": "stop"})
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT")
            r = sc(s.tool("qa_screen_record", {"sessionId": sid, "action": "start"}))
            self.assertTrue(r["recording"], r)
            r = s.tool("qa_screen_record", {"sessionId": sid, "action": "start"})
            self.assertTrue(is_error(r))
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT")
            r = sc(s.tool("qa_screen_record", {"sessionId": sid, "action": "status"}))
            self.assertTrue(r["recording"])
            r = sc(s.tool("qa_screen_record", {"sessionId": sid, "action": "stop"}))
            self.assertFalse(r["recording"])
            uri = r["uri"]
            self.assertTrue(uri.startswith("swipium://session/%s/recording/" % sid), r)
            self.assertGreater(r["bytes"], 0)
            art = sc(s.tool("qa_get_artifact", {"uri": uri}))
            s.close()
            st = self.state(env, sid)
            rec = [a for a in st["artifacts"] if a["uri"] == uri][0]
            self.assertEqual(rec["mime"], "video/mp4")
            with open(rec["path"], "rb") as f:
                data = f.read()
            kinds = [k for k, _ in mp4_boxes(data)]
            self.assertEqual(kinds[0], "ftyp")
            self.assertIn("moov", kinds)
            del art

    def test_refused_in_sensitive_session(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            r = s.tool("qa_start_session", {"projectRoot": self.project, "sensitive": True})
            sid = sc(r)["sessionId"]
            r = s.tool("qa_screen_record", {"sessionId": sid, "action": "start"})
            self.assertEqual(sc(r)["failureCode"], "SENSITIVE_MODE_REFUSED")
            s.close()

    def test_discard_on_success_and_stop_at_shutdown(self):
        with VDeviceEnv(app="health") as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": ALL_CONSENTS})
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            sc(s.tool("qa_screen_record", {"sessionId": sid, "action": "start", "save": "on_failure"}))
            r = sc(s.tool("qa_screen_record", {"sessionId": sid, "action": "stop", "failed": False}))
            self.assertTrue(r["discarded"])
            self.assertNotIn("uri", r)
            sc(s.tool("qa_screen_record", {"sessionId": sid, "action": "start"}))
            self.assertEqual(s.close(), 0)
            st = self.state(env, sid)
            self.assertEqual(len([a for a in st["artifacts"] if a["kind"] == "recording"]), 1, st["artifacts"])
            with open(os.path.join(env.server.home, ".swipium", "processes.json")) as f:
                procs = json.load(f)
            self.assertEqual([p for p in procs if p.get("kind") == "recording"], [])


class ReleaseGate(Base):
    def test_crash_blocks_the_release_gate(self):
        """The issue's end-to-end check: a tapped crash becomes a finding, qa_report saves it, the CI gate blocks."""
        import subprocess
        cli = os.environ.get("SWIPIUM_CLI")
        if not cli:
            self.skipTest("SWIPIUM_CLI is not set (run through meson test)")
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            sid = self.with_app(s, sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"])
            self.launch(env)
            h = sc(s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "Checkout"}}))["health"]
            self.assertIn("NATIVE_CRASH", [f["failureCode"] for f in h["findings"]])
            r = s.tool("qa_report", {"sessionId": sid, "format": "junit"})
            self.assertFalse(is_error(r), r)
            s.close()
            e = dict(env.env)
            e["HOME"] = env.server.home
            run = subprocess.run([cli, "report", "--root", self.project, "--format", "junit", "--fail-on-gate"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=60)
            err = run.stderr.decode()
            self.assertEqual(run.returncode, 1, err)
            self.assertIn("Release gate: BLOCK: ", err)
            self.assertIn("NATIVE_CRASH", err)
            self.assertIn(b"native_crash", run.stdout)
            os.makedirs(os.path.join(self.project, ".swipium"), exist_ok=True)
            with open(os.path.join(self.project, ".swipium", "policy.json"), "w") as f:
                json.dump({"ignoreKnown": ["NATIVE_CRASH"]}, f)
            run = subprocess.run([cli, "report", "--root", self.project, "--format", "junit", "--fail-on-gate"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=60)
            self.assertEqual(run.returncode, 0, run.stderr.decode())
            self.assertIn("Release gate: PASS", run.stderr.decode())


class Smoke(Base):
    def test_smoke_baseline_without_flows(self):
        with VDeviceEnv(app="health") as env:
            self.launch(env)
            s = self.server(env)
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            r = s.tool("qa_smoke", {"sessionId": sid})
            self.assertFalse(is_error(r), r)
            sm = sc(r)
            self.assertTrue(sm["health"]["healthy"], sm)
            self.assertTrue(sm["screenshotUri"].startswith("swipium://session/%s/screenshot/" % sid))
            self.assertEqual(sm["flows"], [])
            self.assertIn("only the baseline ran", sm["note"])
            s.close()
            st = self.state(env, sid)
            self.assertIn("smoke", st["milestones"])
            self.assertIn(("smoke: baseline", "pass"), [(n["workflow"], n["outcome"]) for n in st["notes"]])

    def test_smoke_runs_safe_flows_and_blocks_mutating_ones(self):
        flows = os.path.join(self.project, ".swipium", "flows")
        os.makedirs(flows)
        with open(os.path.join(flows, "a-cart.yaml"), "w") as f:
            f.write("name: cart\nappId: com.example.shop\nsteps:\n  - tap: \"Add to cart\"\n"
                    "  - assertVisible: \"Checkout\"\n")
        with open(os.path.join(flows, "b-restart.yaml"), "w") as f:
            f.write("name: restart\nappId: com.example.shop\nsteps:\n  - restartApp\n"
                    "  - assertVisible: \"Shop\"\n")
        with open(os.path.join(flows, "c-missing.yaml"), "w") as f:
            f.write("name: missing\nappId: com.example.shop\nsteps:\n  - assertVisible: \"Gift cards\"\n")
        with VDeviceEnv(app="health") as env:
            s = self.server(env)
            sid = self.with_app(s, sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"])
            r = s.tool("qa_smoke", {"sessionId": sid})
            self.assertFalse(is_error(r), r)
            sm = sc(r)
            self.assertTrue(sm["launched"])
            got = {f["flow"]: f["outcome"] for f in sm["flows"]}
            self.assertEqual(got, {"a-cart.yaml": "pass", "b-restart.yaml": "blocked", "c-missing.yaml": "fail"}, sm)
            blocked = [f for f in sm["flows"] if f["outcome"] == "blocked"][0]
            self.assertIn("qa_flow_run", blocked["reason"])
            s.close()
            st = self.state(env, sid)
            notes = {(n["workflow"], n["outcome"], n.get("category")) for n in st["notes"]}
            self.assertIn(("b-restart.yaml", "blocked", "destructive_refused"), notes)
            # the restart flow never ran: the cart state survived
            rc, out, _ = env.shell("logcat -d")
            self.assertNotIn("Force stopping com.example.shop", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
