"""The device tools of swipium-mcp (qa_snapshot, qa_inspect, qa_act, qa_screenshot) through a real MCP
client connection, the real adb and the virtual device."""

import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
OBSTRUCT_APP = os.path.join(SOURCE_ROOT, "tests", "data", "android", "obstruct.yaml")


def sc(resp):
    return resp["result"]["structuredContent"]


def text(resp):
    return "\n".join(c.get("text", "") for c in resp["result"]["content"])


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-android-mcp-")
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write("{}")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def server(self, env, extra=None):
        e = dict(env.env)
        e["HOME"] = env.server.home
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        return s

    def session(self, s, **kw):
        args = {"projectRoot": self.project}
        args.update(kw)
        r = s.tool("qa_start_session", args)
        self.assertFalse(r["result"].get("isError"), r)
        return sc(r)["sessionId"]


class DeviceTools(Base):
    def test_tools_listed(self):
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            names = [t["name"] for t in s.call("tools/list")["result"]["tools"]]
            for n in ("qa_snapshot", "qa_inspect", "qa_act", "qa_screenshot", "qa_resolve_target",
                      "qa_prepare_target"):
                self.assertIn(n, names)
            s.close()

    def test_login_through_the_server(self):
        with VDeviceEnv(app="login") as env:
            env.shell("monkey -p com.example.login -c android.intent.category.LAUNCHER 1")
            s = self.server(env, {"SWIPIUM_TEST_PASSWORD": "hunter2"})
            sid = self.session(s)
            r = s.tool("qa_snapshot", {"sessionId": sid})
            self.assertFalse(r["result"].get("isError"), r)
            snap = sc(r)
            self.assertIn('@e5 [button] "Sign in" #sign_in [60,1040][1020,1180]', snap["elements"])
            self.assertIn('@e5 [button] "Sign in"', text(r))
            r = s.tool("qa_act", {"sessionId": sid, "action": "type", "target": {"ref": "@e2"},
                                  "text": "ann@example.com"})
            self.assertTrue(sc(r)["changed"], r)
            r = s.tool("qa_act", {"sessionId": sid, "action": "type", "target": {"id": "password"},
                                  "text": "${SWIPIUM_TEST_PASSWORD}"})
            act = sc(r)
            self.assertTrue(act["secret"])
            self.assertEqual(act["placeholders"], ["SWIPIUM_TEST_PASSWORD"])
            r = s.tool("qa_screenshot", {"sessionId": sid})
            self.assertTrue(r["result"]["isError"])
            self.assertEqual(sc(r)["failureCode"], "CAPTURE_WITHHELD_SECURE")
            r = s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "Sign in"}})
            act = sc(r)
            self.assertTrue(act["changed"])
            self.assertTrue(any("Hello, ann@example.com" in line for line in act["elements"]))
            r = s.tool("qa_inspect", {"sessionId": sid, "ref": "@e5"})
            self.assertEqual(sc(r)["failureCode"], "STALE_REF")
            r = s.tool("qa_screenshot", {"sessionId": sid, "reason": "home screen"})
            shot = sc(r)
            self.assertFalse(r["result"].get("isError"), r)
            self.assertTrue(shot["uri"].startswith("swipium://session/%s/screenshot/" % sid), shot)
            self.assertEqual(shot["coordinateSpace"]["width"], 1080)
            r = s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"ref": "@e99"}})
            self.assertEqual(sc(r)["failureCode"], "ELEMENT_NOT_FOUND")
            self.assertFalse(sc(r)["changedState"])
            s.close()
            # the password never reached the session's files
            runs = os.path.join(env.server.home, ".swipium")
            for root, _, files in os.walk(runs):
                for f in files:
                    with open(os.path.join(root, f), "rb") as fh:
                        self.assertNotIn(b"hunter2", fh.read(), os.path.join(root, f))

    def test_obstruction_errors_through_the_server(self):
        with VDeviceEnv(app=OBSTRUCT_APP) as env:
            env.shell("monkey -p com.example.obstruct -c android.intent.category.LAUNCHER 1")
            s = self.server(env)
            sid = self.session(s)
            r = s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "Buy"}})
            self.assertTrue(r["result"]["isError"])
            err = sc(r)
            self.assertEqual(err["failureCode"], "OVERLAY_OBSTRUCTION")
            self.assertEqual(err["blockedByOverlay"]["kind"], "snackbar")
            self.assertFalse(err["changedState"])
            s.close()

    def test_sensitive_session_refuses_screenshots(self):
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            sid = self.session(s, sensitive=True)
            r = s.tool("qa_screenshot", {"sessionId": sid, "force": True})
            self.assertEqual(sc(r)["failureCode"], "SENSITIVE_MODE_REFUSED")
            s.close()

    def test_action_budget_stops(self):
        with VDeviceEnv(app="login") as env:
            env.shell("monkey -p com.example.login -c android.intent.category.LAUNCHER 1")
            s = self.server(env)
            sid = self.session(s, budget={"maxActions": 1})
            r = s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "Remember me"}})
            self.assertFalse(r["result"].get("isError"), r)
            self.assertTrue(sc(r)["stateChanged"])
            r = s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "Remember me"}})
            res = sc(r)
            self.assertTrue(res["stopped"], res)
            self.assertIn("1/1", res["reason"])
            s.close()

    def test_multiple_devices_and_unknown_session(self):
        with VDeviceEnv(app="login") as env:
            env.add_device(app="list")
            s = self.server(env)
            sid = self.session(s)
            r = s.tool("qa_snapshot", {"sessionId": sid})
            self.assertEqual(sc(r)["failureCode"], "MULTIPLE_DEVICES")
            r = s.tool("qa_snapshot", {"sessionId": "nope"})
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT")
            r = s.tool("qa_act", {"sessionId": sid, "action": "fly"})
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT")
            s.close()


class Targets(Base):
    def test_resolve_target(self):
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            r = s.tool("qa_resolve_target", {"include": ["context", "plan"]})
            res = sc(r)
            self.assertEqual(res["selected"]["serial"], env.serial)
            self.assertFalse(res["willBoot"])
            self.assertEqual(res["plan"]["status"], "READY")
            self.assertEqual(res["context"]["onlineEmulators"], [env.serial])
            r = s.tool("qa_resolve_target", {"platform": "ios"})
            self.assertEqual(sc(r)["failureCode"], "BACKEND_UNSUPPORTED")
            s.close()
        with VDeviceEnv(app="login", physical=True) as env:
            s = self.server(env)
            r = s.tool("qa_resolve_target", {"include": ["context"]})
            err = sc(r)
            self.assertEqual(err["failureCode"], "PHYSICAL_DEVICE_UNSUPPORTED")
            self.assertEqual(err["context"]["physicalDevices"], [env.serial])
            s.close()

    def test_prepare_launch_and_bad_app_id(self):
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            sid = self.session(s)
            r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": "not a package"})
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT")
            r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": "com.example.login"})
            res = sc(r)
            self.assertFalse(r["result"].get("isError"), r)
            self.assertTrue(res["foregroundIsApp"])
            self.assertEqual(res["device"]["serial"], env.serial)
            r = s.tool("qa_snapshot", {"sessionId": sid})
            self.assertIn('@e1 [text] "Welcome back" #title [60,260][1020,380] (non-clickable)', sc(r)["elements"])
            s.close()

    def test_prepare_installs_with_consent_as_a_job(self):
        apk = os.path.join(self.project, "app-debug.apk")
        with open(apk, "wb") as f:
            f.write(b"PK\x03\x04 not really an apk")
        with VDeviceEnv(app="login") as env:
            env.shell("pm uninstall com.example.login")
            s = self.server(env)
            sid = self.session(s)
            args = {"sessionId": sid, "apk": "app-debug.apk", "appId": "com.example.login"}
            r = s.tool("qa_prepare_target", args)
            env1 = sc(r)
            self.assertTrue(env1.get("requiresConsent"), env1)
            self.assertEqual(env1["action"], "prepare_plan")
            self.assertEqual(env1["risk"], "low")
            args.update({"consentId": env1["consentId"], "approve": True})
            r = s.tool("qa_prepare_target", args)
            job = sc(r)
            self.assertEqual(job["status"], "running", job)
            r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job["jobId"], "waitMs": 45000})
            st = sc(r)
            self.assertEqual(st["status"], "done", st)
            self.assertTrue(st["result"]["installed"])
            self.assertTrue(st["result"]["foregroundIsApp"])
            s.close()

    def test_prepare_boots_an_avd(self):
        import signal
        with VDeviceEnv(app="list") as env:
            env.device.stop()
            sdk = os.path.join(self.tmp, "sdk")
            os.makedirs(os.path.join(sdk, "emulator"))
            os.symlink(os.path.join(HERE, "emulator-standin.sh"), os.path.join(sdk, "emulator", "emulator"))
            s = self.server(env, {"ANDROID_HOME": sdk, "SWIPIUM_SOURCE_ROOT": SOURCE_ROOT,
                                  "VDEVICE_BIN": os.environ.get("VDEVICE_BIN", "")})
            r = s.tool("qa_resolve_target", {"include": ["plan"]})
            res = sc(r)
            self.assertTrue(res["willBoot"], res)
            self.assertEqual(res["selected"]["avd"], "Pixel_7_API_34")
            sid = self.session(s)
            r = s.tool("qa_prepare_target", {"sessionId": sid, "avd": "Pixel_7_API_34", "appId": "com.example.login"})
            job = sc(r)
            r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job["jobId"], "waitMs": 45000})
            st = sc(r)
            try:
                self.assertEqual(st["status"], "done", st)
                self.assertTrue(st["result"]["booted"])
                r = s.tool("qa_snapshot", {"sessionId": sid})
                self.assertIn('@e5 [button] "Sign in" #sign_in [60,1040][1020,1180]', sc(r)["elements"])
            finally:
                pid = st.get("result", {}).get("boot", {}).get("pid")
                if pid:
                    os.kill(pid, signal.SIGTERM)
            s.close()

    def test_resolve_target_uses_project_root(self):
        apk_dir = os.path.join(self.project, "android", "app", "build", "outputs", "apk", "debug")
        os.makedirs(apk_dir)
        apk = os.path.join(apk_dir, "app-debug.apk")
        with open(apk, "wb") as f:
            f.write(b"PK\x03\x04")
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            r = s.tool("qa_resolve_target", {"projectRoot": self.project, "include": ["context"]})
            self.assertFalse(r["result"].get("isError"), r)
            res = sc(r)
            self.assertEqual(res["projectRoot"], os.path.realpath(self.project))
            self.assertEqual(res["rootSource"], "arg")
            self.assertEqual(res["context"]["prebuiltApks"], [os.path.realpath(apk)])
            # a session's root is used when projectRoot is absent (not freshly resolved: no rootSource)
            sid = self.session(s)
            res = sc(s.tool("qa_resolve_target", {"sessionId": sid}))
            self.assertEqual(res["projectRoot"], os.path.realpath(self.project))
            self.assertNotIn("rootSource", res)
            for bad in ("app", os.path.join(self.tmp, "missing"), apk):
                r = s.tool("qa_resolve_target", {"projectRoot": bad})
                self.assertTrue(r["result"]["isError"], bad)
                self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT", bad)
            s.close()

    def test_prepare_with_avd_notes_the_online_device(self):
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            sid = self.session(s)
            r = s.tool("qa_prepare_target", {"sessionId": sid, "avd": "Pixel_7_API_34", "appId": "com.example.login"})
            job = sc(r)
            r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job["jobId"], "waitMs": 45000})
            st = sc(r)
            self.assertEqual(st["status"], "done", st)
            self.assertNotIn("booted", st["result"])
            self.assertEqual(st["result"]["device"]["serial"], env.serial)
            self.assertEqual(st["result"]["notes"],
                             ["AVD Pixel_7_API_34 was not booted: the online device %s was used instead" % env.serial])
            s.close()


class NextSteps(Base):
    """An agent is never told to call a tool this server does not list."""

    def assert_callable(self, names, steps, what):
        self.assertTrue(steps, what)
        for step in steps:
            for tool in re.findall(r"\bqa_[a-z_]+", step):
                self.assertIn(tool, names, "%s: %r names %s" % (what, step, tool))

    def test_failures_name_only_listed_tools(self):
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            names = {t["name"] for t in s.call("tools/list")["result"]["tools"]}
            sid = self.session(s)
            cases = (
                ("qa_prepare_target", {"sessionId": sid, "apk": "build/missing.apk"}, "NO_ARTIFACT"),
                ("qa_prepare_target", {"sessionId": sid, "appId": "not a package"}, "INVALID_ARGUMENT"),
                ("qa_snapshot", {"sessionId": "nope"}, "INVALID_ARGUMENT"),
                ("qa_resolve_target", {"platform": "ios"}, "BACKEND_UNSUPPORTED"),
                ("qa_ios", {"action": "wda_status"}, "STALE_CLIENT"),
                ("qa_detect_context", {}, "STALE_CLIENT"),
            )
            for tool, args, code in cases:
                r = s.tool(tool, args)
                err = sc(r)
                self.assertEqual(err["failureCode"], code, (tool, err))
                self.assert_callable(names, err["nextSteps"], tool)
            r = s.tool("qa_prepare_target", {"sessionId": sid, "apk": "build/missing.apk"})
            steps = sc(r)["nextSteps"]
            self.assertTrue(any("./gradlew assembleDebug" in x for x in steps), steps)
            self.assertTrue(any(x.startswith("qa_prepare_target ") and "appId" in x for x in steps), steps)
            for code in ("NO_BUILD_ARTIFACT", "IOS_SIMULATOR_APP_MISSING", "METRO_REQUIRED", "NO_APP_MAP"):
                r = s.tool("qa_explain_blocker", {"failureCode": code})
                self.assertFalse(r["result"].get("isError"), r)
                self.assert_callable(names, [sc(r)["howToFix"]], code)
            s.close()


class Geometry(Base):
    """Each dump carries its geometry: landscape and windows larger than `wm size` lose nothing (issue 11, 20).
    The two dumps are written by hand in the format uiautomator writes (no real landscape dump is shipped)."""

    def push_dump(self, env, name):
        path = os.path.join(SOURCE_ROOT, "tests", "data", "uiautomator", name)
        self.assertEqual(env.adb("push", path, "/sdcard/" + name).returncode, 0)
        env.shell("setprop debug.vdevice.dump_file /sdcard/" + name)

    def test_landscape_and_a_window_larger_than_wm_size(self):
        stats = os.path.join(self.tmp, "stats.jsonl")
        with VDeviceEnv(app="login", device_args=["--stats", stats]) as env:
            env.shell("monkey -p com.example.login -c android.intent.category.LAUNCHER 1")
            s = self.server(env)
            sid = self.session(s)
            snap = sc(s.tool("qa_snapshot", {"sessionId": sid}))
            self.assertEqual(snap["screen"]["width"], 1080)
            r = s.tool("qa_orientation", {"sessionId": sid, "orientation": "landscape"})
            self.assertFalse(r["result"].get("isError"), r)
            self.push_dump(env, "landscape.xml")
            snap = sc(s.tool("qa_snapshot", {"sessionId": sid}))
            self.assertEqual((snap["screen"]["width"], snap["screen"]["height"], snap["screen"]["rotation"]),
                             (2400, 1080, 1))
            line = [l for l in snap["elements"] if '"Sign in"' in l][0]
            self.assertIn("[1500,800][2280,940]", line)
            self.assertEqual(snap["elementsLeftOut"], 0)
            ref = line.split()[0]
            r = s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"ref": ref}})
            self.assertFalse(r["result"].get("isError"), r)
            self.assertEqual(sc(r)["point"], [1890, 870])
            with open(stats) as f:
                cmds = [json.loads(l)["cmd"] for l in f]
            self.assertIn("input tap 1890 870", cmds)
            # a swipe uses the landscape geometry of the last dump
            r = s.tool("qa_act", {"sessionId": sid, "action": "swipe", "direction": "left"})
            self.assertEqual(sc(r)["from"], [1200, 540])
            # the window is larger than the size `wm size` reports
            env.shell("wm size 720x1600")
            self.push_dump(env, "tall.xml")
            snap = sc(s.tool("qa_snapshot", {"sessionId": sid}))
            self.assertTrue(any('"Help"' in l and "[800,1700][1060,1820]" in l for l in snap["elements"]), snap)
            self.assertEqual((snap["screen"]["width"], snap["screen"]["height"]), (1080, 2400))
            # the geometry came from the dumps: no `wm size` was ever asked
            with open(stats) as f:
                cmds = [json.loads(l)["cmd"] for l in f]
            self.assertEqual([c for c in cmds if c.startswith("wm size") and c != "wm size 720x1600"], [])
            s.close()


class Evidence(Base):
    """Screenshot names never repeat: not after qa_prepare_target, not after a restart, never over a file a
    note points to (issue 11 item 8)."""

    def shot(self, s, sid):
        r = s.tool("qa_screenshot", {"sessionId": sid, "force": True})  # the login screen has a password field
        self.assertFalse(r["result"].get("isError"), r)
        return sc(r)["uri"]

    def test_screenshot_names_continue_and_never_overwrite(self):
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            sid = self.session(s)
            r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": "com.example.login"})
            self.assertFalse(r["result"].get("isError"), r)
            uris = [self.shot(s, sid), self.shot(s, sid)]
            r = s.tool("qa_note", {"sessionId": sid, "workflow": "login", "outcome": "fail",
                                   "artifactUris": [uris[1]]})
            self.assertFalse(r["result"].get("isError"), r)
            folder = os.path.join(env.server.home, ".swipium", "runs")
            shots = {}
            for root, _, files in os.walk(folder):
                for f in files:
                    if f.endswith(".png"):
                        with open(os.path.join(root, f), "rb") as fh:
                            shots[f] = fh.read()
            # a new binding (qa_prepare_target again) goes on numbering
            r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": "com.example.login"})
            self.assertFalse(r["result"].get("isError"), r)
            uris.append(self.shot(s, sid))
            s.close()
            # so does a new server on the same session
            s = self.server(env)
            uris.append(self.shot(s, sid))
            s.close()
            names = [u.rsplit("/", 1)[1] for u in uris]
            self.assertEqual(names, ["screenshot-001.png", "screenshot-002.png", "screenshot-003.png",
                                     "screenshot-004.png"])
            # the files the first two names point to are exactly what they were
            for root, _, files in os.walk(folder):
                for f in files:
                    if f in shots:
                        with open(os.path.join(root, f), "rb") as fh:
                            self.assertEqual(fh.read(), shots[f], f)



class SecretsNotInArgv(Base):
    """A typed secret never appears in an adb command line (issue 11, 13): a wrapper adb first on PATH records
    every argv the server gives it, and the device still receives the text (through adb's stdin)."""

    def test_typed_secret_is_never_in_argv(self):
        secret = "hunter2-Zq9"
        with VDeviceEnv(app="login") as env:
            env.shell("monkey -p com.example.login -c android.intent.category.LAUNCHER 1")
            bindir = os.path.join(self.tmp, "bin")
            os.makedirs(bindir)
            log = os.path.join(self.tmp, "adb-argv.log")
            real = shutil.which("adb", path=env.env.get("PATH"))
            wrapper = os.path.join(bindir, "adb")
            with open(wrapper, "w") as f:
                f.write("#!/bin/sh\nfor a in \"$@\"; do printf '%%s\\037' \"$a\" >> '%s'; done\n"
                        "printf '\\n' >> '%s'\nexec '%s' \"$@\"\n" % (log, log, real))
            os.chmod(wrapper, 0o755)
            s = self.server(env, {"PATH": bindir + os.pathsep + env.env.get("PATH", ""),
                                  "SWIPIUM_TEST_PASSWORD": secret})
            sid = self.session(s)
            sc(s.tool("qa_snapshot", {"sessionId": sid}))
            r = s.tool("qa_act", {"sessionId": sid, "action": "type", "target": {"id": "password"},
                                  "text": "${SWIPIUM_TEST_PASSWORD}"})
            self.assertFalse(r["result"].get("isError"), r)
            self.assertTrue(sc(r)["secret"])
            # a plain text goes the same way, and typing still works
            r = s.tool("qa_act", {"sessionId": sid, "action": "type", "target": {"ref": "@e2"},
                                  "text": "ann@example.com"})
            self.assertTrue(sc(r)["changed"], r)
            s.close()
            with open(log) as f:
                argvs = [line.split("\x1f") for line in f.read().splitlines()]
            self.assertTrue(any("shell" in a for a in argvs), argvs)  # the wrapper did see the server's adb calls
            self.assertFalse([a for a in argvs if any(secret in x for x in a)], "the secret was in an adb argv")
            self.assertFalse([a for a in argvs if any("ann@example.com" in x for x in a)])
            # the device got it
            rc, out, _ = env.shell("uiautomator dump /sdcard/d.xml >/dev/null && cat /sdcard/d.xml")
            self.assertIn("ann@example.com", out)



class AdbServerGone(Base):
    """When the adb server dies mid-session, the tools say so (not "no device"), and the daemon adb had to start
    for us is stopped when the server exits (issue 11, 14)."""

    def test_dead_adb_server_is_named_and_no_daemon_is_left(self):
        import socket
        with VDeviceEnv(app="login") as env:
            env.shell("monkey -p com.example.login -c android.intent.category.LAUNCHER 1")
            s = self.server(env)
            sid = self.session(s)
            self.assertFalse(s.tool("qa_snapshot", {"sessionId": sid})["result"].get("isError"))
            env.server.kill()  # the private adb server dies
            r = s.tool("qa_snapshot", {"sessionId": sid})
            self.assertTrue(r["result"].get("isError"), r)
            self.assertIn("adb server is gone", sc(r)["what"], r)
            self.assertIn("The device was not asked", sc(r)["what"], r)

            def port_open():
                try:
                    socket.create_connection(("127.0.0.1", env.server.port), timeout=1).close()
                    return True
                except OSError:
                    return False

            self.assertTrue(port_open(), "adb did not start a daemon: the test proves nothing")
            self.assertEqual(s.close(timeout=30), 0)
            deadline = time.monotonic() + 10
            while port_open():
                self.assertLess(time.monotonic(), deadline, "the adb daemon we started outlived the server")
                time.sleep(0.1)


NEVER_BOOTS = "987654321"  # the stand-in's vdevice never reports sys.boot_completed=1 (and marks its command line)


def emulator_pids():
    """The stand-in emulators started for these tests that are still running."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read().split(b"\0")
            with open("/proc/%s/stat" % d) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue  # a zombie is gone already
        except OSError:
            continue
        if NEVER_BOOTS.encode() in cmd:
            pids.append(int(d))
    return pids


class CancelBoot(Base):
    """qa_job_cancel and every shutdown stop an emulator boot at once, and leave no emulator."""

    def start_boot(self, env):
        env.device.stop()
        sdk = os.path.join(self.tmp, "sdk")
        os.makedirs(os.path.join(sdk, "emulator"), exist_ok=True)
        link = os.path.join(sdk, "emulator", "emulator")
        if not os.path.exists(link):
            os.symlink(os.path.join(HERE, "emulator-standin.sh"), link)
        s = self.server(env, {"ANDROID_HOME": sdk, "SWIPIUM_SOURCE_ROOT": SOURCE_ROOT, "VDEVICE_BOOT_AFTER": NEVER_BOOTS,
                              "VDEVICE_BIN": os.environ.get("VDEVICE_BIN", "")})
        sid = self.session(s)
        job = sc(s.tool("qa_prepare_target", {"sessionId": sid, "avd": "Pixel_7_API_34", "appId": "com.example.login"}))
        self.assertEqual(job["status"], "running", job)
        deadline = time.monotonic() + 20
        while not emulator_pids():
            self.assertLess(time.monotonic(), deadline, "the stand-in emulator never started")
            time.sleep(0.1)
        return s, sid, job["jobId"]

    def assert_no_emulator(self, within=5.0):
        deadline = time.monotonic() + within
        while emulator_pids():
            self.assertLess(time.monotonic(), deadline, "an emulator outlived the cancel: %s" % emulator_pids())
            time.sleep(0.1)

    def job_record(self, env, sid, job_id):
        runs = os.path.join(env.server.home, ".swipium", "runs")
        for root, dirs, files in os.walk(runs):
            if os.path.basename(root) == sid and "state.json" in files:
                with open(os.path.join(root, "state.json")) as f:
                    st = json.load(f)
                return [j for j in st.get("jobs", []) if j.get("jobId") == job_id][0]
        raise AssertionError("no state.json for " + sid)

    def test_cancel_stops_the_boot_and_the_emulator(self):
        with VDeviceEnv(app="login") as env:
            s, sid, job_id = self.start_boot(env)
            t0 = time.monotonic()
            r = s.tool("qa_job_cancel", {"sessionId": sid, "jobId": job_id})
            self.assertFalse(r["result"].get("isError"), r)
            st = sc(s.tool("qa_job_status", {"sessionId": sid, "jobId": job_id}))
            self.assertEqual(st["status"], "cancelled", st)
            self.assert_no_emulator()
            self.assertLess(time.monotonic() - t0, 5.0)
            # the server is still fine, and a new call works
            self.assertFalse(s.tool("qa_status", {"sessionId": sid})["result"].get("isError"))
            t1 = time.monotonic()
            self.assertEqual(s.close(timeout=10), 0)
            self.assertLess(time.monotonic() - t1, 5.0)

    def test_every_shutdown_ends_a_boot_within_seconds(self):
        for how in ("eof", signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            with self.subTest(how=how), VDeviceEnv(app="login") as env:
                s, sid, job_id = self.start_boot(env)
                t0 = time.monotonic()
                if how == "eof":
                    code = s.close(timeout=15)
                else:
                    s.proc.send_signal(how)
                    code = s.close(timeout=15)
                elapsed = time.monotonic() - t0
                self.assertLess(elapsed, 5.0, "shutdown by %s took %.1f s" % (how, elapsed))
                self.assertEqual(code, 0 if how == "eof" else 128 + how, s.stderr[-2000:])
                self.assert_no_emulator()
                # the final flush: the job is on disk as cancelled
                self.assertEqual(self.job_record(env, sid, job_id)["status"], "cancelled")


class ActLoop(Base):
    """The act loop at the stock tools' minimum (issue 12, item 7), counted by the vdevice's --stats log."""

    def stats(self):
        with open(self.stats_path) as f:
            return [json.loads(l) for l in f if l.strip()]

    def since(self, mark):
        return self.stats()[mark:]

    def start(self, env_app="login", pkg="com.example.login"):
        self.stats_path = os.path.join(self.tmp, "stats.jsonl")
        self.env = VDeviceEnv(app=env_app, device_args=["--stats", self.stats_path]).__enter__()
        self.env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % pkg)
        self.s = self.server(self.env)
        self.sid = self.session(self.s, budget={"maxActions": 100, "maxNoChangeActions": 100})
        snap = sc(self.s.tool("qa_snapshot", {"sessionId": self.sid}))
        # the first act of a binding reads the device clock once (`date`, for the log stamps)
        r = self.s.tool("qa_act", {"sessionId": self.sid, "action": "wait", "timeoutMs": 100})
        self.assertIn("health", sc(r), r)
        return snap

    def tearDown(self):
        if getattr(self, "s", None):
            self.s.close()
        if getattr(self, "env", None):
            self.env.__exit__(None, None, None)
        super().tearDown()

    def ref(self, snap, needle):
        return [l for l in snap["elements"] if needle in l][0].split()[0]

    def test_tap_is_one_input_and_one_look(self):
        snap = self.start()
        mark = len(self.stats())
        r = self.s.tool("qa_act", {"sessionId": self.sid, "action": "tap",
                                   "target": {"ref": self.ref(snap, '"Remember me"')}})
        res = sc(r)
        self.assertTrue(res["changed"] and res["settled"], res)
        self.assertEqual(res["settleSignal"], "frames")
        self.assertIn("health", res)
        self.assertTrue(res["health"]["checked"]["logcat"] and res["health"]["checked"]["foreground"], res)
        cmds = [l["cmd"] for l in self.since(mark)]
        self.assertEqual(len(cmds), 2, cmds)
        self.assertEqual(cmds[0], "input tap 540 930")
        look = cmds[1]
        for part in ("uiautomator dump /dev/tty", "dumpsys input_method", "dumpsys gfxinfo com.example.login",
                     "logcat -d", " -T '"):
            self.assertIn(part, look)
        # never the old way: dump to a file and cat it, the window list, wm size, the whole log
        for l in self.stats():
            self.assertNotIn("cat /sdcard/window_dump.xml", l["cmd"])
            self.assertFalse(l["cmd"].startswith("wm size"), l["cmd"])
            self.assertFalse(l["cmd"].startswith("dumpsys window"), l["cmd"])

    def test_typing_is_one_input_per_phase(self):
        snap = self.start()
        email = self.ref(snap, "#email")
        mark = len(self.stats())
        res = sc(self.s.tool("qa_act", {"sessionId": self.sid, "action": "type", "target": {"ref": email},
                                        "text": "ann@example.com"}))
        self.assertEqual(res["typedChars"], 15)
        cmds = [l["cmd"] for l in self.since(mark)]
        # the field was not focused: one focusing tap, its text (the hint, 5 characters) cleared in one key
        # sequence, one input text, one look; the keyboard's frame is read once per rotation when it first shows
        self.assertEqual(cmds[0], "input tap 540 590")
        self.assertEqual(cmds[1], "input keyevent 123" + " 67" * 5)
        # the text on adb shell's stdin (never in an argv): one line, one invocation
        self.assertTrue(cmds[2].startswith("input text 'ann@example.com' && echo "), cmds)
        self.assertIn("uiautomator dump /dev/tty", cmds[3])
        self.assertEqual(cmds[4:], ["dumpsys input_method", "dumpsys window windows"])
        snap = sc(self.s.tool("qa_snapshot", {"sessionId": self.sid}))
        self.assertIn("(focused)", [l for l in snap["elements"] if "#email" in l][0])
        mark = len(self.stats())
        res = sc(self.s.tool("qa_act", {"sessionId": self.sid, "action": "type", "target": {"ref": email},
                                        "text": "bob@example.com"}))
        cmds = [l["cmd"] for l in self.since(mark)]
        # focused already: no tap; the 15 old characters go in one key sequence
        self.assertEqual(len(cmds), 3, cmds)
        self.assertEqual(cmds[0], "input keyevent 123" + " 67" * 15)
        self.assertTrue(cmds[1].startswith("input text "), cmds)
        snap = sc(self.s.tool("qa_snapshot", {"sessionId": self.sid}))
        self.assertIn('"bob@example.com"', [l for l in snap["elements"] if "#email" in l][0])

    def test_a_screen_that_never_settles_gives_up_at_the_deadline(self):
        snap = self.start()
        self.env.shell("setprop debug.vdevice.animating 1")
        t0 = time.monotonic()
        r = self.s.tool("qa_act", {"sessionId": self.sid, "action": "tap", "timeoutMs": 1500,
                                   "target": {"ref": self.ref(snap, '"Remember me"')}})
        took = time.monotonic() - t0
        res = sc(r)
        self.assertFalse(r["result"].get("isError"), r)
        self.assertIs(res["settled"], False)
        self.assertIs(res["settleTimedOut"], True)
        self.assertTrue(any("1500 ms deadline" in w for w in res["warnings"]), res)
        self.assertGreaterEqual(took, 1.4)
        self.assertLess(took, 20)
        self.assertIn("health", res)
        # the screen stops: the next act settles on the frame signal again
        self.env.shell("setprop debug.vdevice.animating 0")
        res = sc(self.s.tool("qa_act", {"sessionId": self.sid, "action": "tap",
                                        "target": {"ref": self.ref(snap, '"Remember me"')}}))
        self.assertTrue(res["settled"], res)

    def test_log_read_since_the_marker_survives_clear_and_wrap(self):
        snap = self.start(env_app="health", pkg="com.example.shop")
        add = self.ref(snap, '"Add to cart"')
        res = sc(self.s.tool("qa_act", {"sessionId": self.sid, "action": "tap", "target": {"ref": add}}))
        self.assertEqual(res["health"]["findings"], [], res)
        # several MB of chatter in a 2 MiB ring buffer: it wraps; the next read costs the lines since the marker
        self.env.shell("setprop debug.vdevice.logcat_spam 3000000")
        res = sc(self.s.tool("qa_act", {"sessionId": self.sid, "action": "tap", "target": {"ref": add}}))
        self.assertTrue(res["health"]["checked"]["logcat"], res)
        mark = len(self.stats())
        res = sc(self.s.tool("qa_act", {"sessionId": self.sid, "action": "tap", "target": {"ref": add}}))
        look = [l for l in self.since(mark) if "logcat" in l["cmd"]]
        self.assertEqual(len(look), 1)
        self.assertTrue(res["health"]["checked"]["logcat"], res)
        # the buffer holds about 2 MB, the read only what came since the marker
        self.assertGreater(len(self.env.adb("exec-out", "logcat -d").stdout), 1500000)
        self.assertLess(look[0]["bytes"], 64 * 1024, look[0])
        # then `logcat -c` between two looks, and a crash: still caught
        self.env.shell("logcat -c")
        snap = sc(self.s.tool("qa_snapshot", {"sessionId": self.sid}))
        mark = len(self.stats())
        res = sc(self.s.tool("qa_act", {"sessionId": self.sid, "action": "tap",
                                        "target": {"ref": self.ref(snap, '"Checkout"')}}))
        self.assertIn("health", res, res)
        kinds = [f["kind"] for f in res["health"]["findings"]]
        self.assertIn("native_crash", kinds, res)
        self.assertTrue(res["health"]["crashed"])
        small = [l for l in self.since(mark) if "logcat" in l["cmd"]]
        self.assertEqual(len(small), 1)
        self.assertLess(small[0]["bytes"], 64 * 1024, small[0])


    def test_check_health_reads_the_log_since_its_marker(self):
        """qa_check_health (driver slot log_read, version 2) reads logcat -T from the last marker, not the buffer."""
        self.start(env_app="health", pkg="com.example.shop")
        res = sc(self.s.tool("qa_check_health", {"sessionId": self.sid}))
        self.assertTrue(res["checked"]["logcat"], res)
        self.env.shell("setprop debug.vdevice.logcat_spam 3000000")
        res = sc(self.s.tool("qa_check_health", {"sessionId": self.sid}))
        self.assertTrue(res["checked"]["logcat"], res)
        mark = len(self.stats())
        res = sc(self.s.tool("qa_check_health", {"sessionId": self.sid}))
        reads = [l for l in self.since(mark) if "logcat" in l["cmd"]]
        self.assertEqual(len(reads), 1, reads)
        self.assertIn("-T", reads[0]["cmd"])
        self.assertGreater(len(self.env.adb("exec-out", "logcat -d").stdout), 1500000)
        self.assertLess(reads[0]["bytes"], 64 * 1024, reads[0])
        self.assertEqual(res["findings"], [], res)
        # a crash after the marker (the app's Checkout button, tapped behind the server's back) is in the next read
        self.env.shell("input tap 540 510")
        mark = len(self.stats())
        res = sc(self.s.tool("qa_check_health", {"sessionId": self.sid}))
        self.assertIn("native_crash", [f["kind"] for f in res["findings"]], res)
        reads = [l for l in self.since(mark) if "logcat" in l["cmd"]]
        self.assertEqual(len(reads), 1, reads)
        self.assertLess(reads[0]["bytes"], 64 * 1024, reads[0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
