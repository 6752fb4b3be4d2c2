"""The Android driver, snapshots and actions through the real adb against the virtual device.

Every test runs tests/integration/android-cli (a small C program over the public libswipium API)
inside a private adb server with one or more virtual devices (vdevice_env.VDeviceEnv).
"""

import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from vdevice_env import VDeviceEnv  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
OBSTRUCT_APP = os.path.join(SOURCE_ROOT, "tests", "data", "android", "obstruct.yaml")


def find_cli():
    if os.environ.get("ANDROID_CLI"):
        return os.environ["ANDROID_CLI"]
    root = os.environ.get("SWIPIUM_BUILD_ROOT", os.path.join(SOURCE_ROOT, "build"))
    return os.path.join(root, "tests", "integration", "android-cli")


CLI = find_cli()


def run(env, steps, on_pause=None, extra_env=None):
    """Runs the steps; on each "pause" step calls on_pause(index) then continues. Returns the result lines."""
    e = dict(env.env)
    if extra_env:
        e.update(extra_env)
    results = []
    pauses = 0
    with subprocess.Popen([CLI, json.dumps(steps)], env=e, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as p:
        try:
            for line in p.stdout:
                r = json.loads(line)
                results.append(r)
                if r["op"] == "pause":
                    if on_pause:
                        on_pause(pauses)
                    pauses += 1
                    p.stdin.write("\n")
                    p.stdin.flush()
            p.stdin.close()
            err = p.stderr.read()
            rc = p.wait(timeout=300)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
    if rc != 0:
        raise AssertionError("android-cli exited %d: %s" % (rc, err))
    if len(results) != len(steps):
        raise AssertionError("android-cli stopped after %d of %d steps: %s" % (len(results), len(steps), err))
    return results


def ok(r):
    if not r["ok"]:
        raise AssertionError("step %s failed: %s %s" % (r["op"], r.get("failureCode"), r.get("message")))
    return r["result"]


def code(r):
    if r["ok"]:
        raise AssertionError("step %s succeeded, expected a failure: %s" % (r["op"], r["result"]))
    return r["failureCode"]


def wait_gone(env, serial, timeout=10.0):
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and serial in env.server.devices():
        time.sleep(0.05)


class Devices(unittest.TestCase):
    def test_listing_and_emulator_detection(self):
        with VDeviceEnv(app="login") as env:
            r = run(env, [{"op": "devices", "probe": True}, {"op": "open"}])
            devs = ok(r[0])
            self.assertEqual([d["serial"] for d in devs], [env.serial])
            self.assertEqual(devs[0]["state"], "device")
            self.assertIs(devs[0]["emulator"], True)
            desc = ok(r[1])
            self.assertEqual(desc["serial"], env.serial)
            self.assertIs(desc["emulator"], True)

    def test_second_device_is_multiple_devices(self):
        with VDeviceEnv(app="login") as env:
            second = env.add_device(app="list")
            r = run(env, [{"op": "open"}, {"op": "open", "serial": second.serial}, {"op": "launch",
                                                                                     "app": "com.example.list"},
                          {"op": "open", "serial": "emulator-1"}])
            self.assertEqual(code(r[0]), "MULTIPLE_DEVICES")
            self.assertEqual(sorted(r[0]["details"]["devices"]), sorted([env.serial, second.serial]))
            self.assertIn(env.serial, r[0]["message"])
            self.assertEqual(ok(r[1])["serial"], second.serial)
            ok(r[2])
            self.assertEqual(code(r[3]), "NO_DEVICE")

    def test_physical_device_refused(self):
        with VDeviceEnv(app="login", physical=True) as env:
            r = run(env, [{"op": "devices", "probe": True}, {"op": "open"}, {"op": "open", "serial": env.serial}])
            devs = ok(r[0])
            self.assertEqual(len(devs), 1)
            self.assertFalse(env.serial.startswith("emulator-"))
            self.assertIs(devs[0]["emulator"], False)
            self.assertEqual(code(r[1]), "PHYSICAL_DEVICE_UNSUPPORTED")
            self.assertEqual(code(r[2]), "PHYSICAL_DEVICE_UNSUPPORTED")

    def test_phone_plus_emulator_counts_as_multiple(self):
        with VDeviceEnv(app="login") as env:
            phone = env.add_device(app="login", physical=True)
            r = run(env, [{"op": "open"}, {"op": "open", "serial": phone.serial}, {"op": "open",
                                                                                   "serial": env.serial}])
            self.assertEqual(code(r[0]), "MULTIPLE_DEVICES")
            self.assertEqual(code(r[1]), "PHYSICAL_DEVICE_UNSUPPORTED")
            ok(r[2])

    def test_booting_device_not_ready(self):
        with VDeviceEnv(app="login", device_args=["--boot-after", "1000"]) as env:
            r = run(env, [{"op": "open"}])
            self.assertEqual(code(r[0]), "DEVICE_NOT_READY")

    def test_no_device(self):
        with VDeviceEnv(app="login") as env:
            env.device.stop()
            wait_gone(env, env.serial)
            r = run(env, [{"op": "devices"}, {"op": "open"}])
            self.assertEqual(ok(r[0]), [])
            self.assertEqual(code(r[1]), "NO_DEVICE")

    def test_no_adb(self):
        with VDeviceEnv(app="login") as env:
            r = run(env, [{"op": "devices"}, {"op": "open"}], extra_env={"PATH": "/nonexistent",
                                                                        "ANDROID_HOME": "/nonexistent"})
            self.assertEqual(code(r[0]), "ADB_NOT_FOUND")
            self.assertEqual(code(r[1]), "ADB_NOT_FOUND")


class Drive(unittest.TestCase):
    def test_login_flow(self):
        with VDeviceEnv(app="login") as env:
            shot = os.path.join(env.server.root, "home.png")
            r = run(env, [
                {"op": "open"},
                {"op": "launch", "app": "com.example.login"},
                {"op": "snapshot"},
                {"op": "act", "args": {"action": "type", "target": {"id": "email"}, "text": "ann@example.com"}},
                {"op": "act", "args": {"action": "type", "target": {"id": "password"}, "text": "hunter2"}},
                {"op": "screenshot"},
                {"op": "act", "args": {"action": "tap", "target": {"ref": "@e5"}}},
                {"op": "foreground"},
                {"op": "secrets"},
                {"op": "screenshot", "out": shot},
                {"op": "inspect", "ref": "@e5"},
            ])
            snap = ok(r[2])
            self.assertEqual(snap["elements"], [
                '@e1 [text] "Welcome back" #title [60,260][1020,380] (non-clickable)',
                '@e2 [text-field] "Email" #email [60,520][1020,660]',
                '@e3 [text-field] "\u00absecure\u00bb" #password [60,700][1020,840] (secure)',
                '@e4 [button] "Remember me" #remember [60,880][1020,980]',
                '@e5 [button] "Sign in" #sign_in [60,1040][1020,1180]',
                '@e6 [button] "Forgot password?" #forgot [60,1220][1020,1320]',
            ])
            self.assertEqual(snap["package"], "com.example.login")
            self.assertEqual(snap["quality"], "good")
            typed = ok(r[3])
            self.assertTrue(typed["changed"])
            self.assertEqual(typed["stateChanged"][0]["to"], "ann@example.com")
            self.assertTrue(typed["keyboard"]["shown"])
            pw = ok(r[4])
            self.assertTrue(pw["secret"])
            self.assertTrue(pw["changed"])
            self.assertNotIn("hunter2", json.dumps(r[4]))
            self.assertEqual(code(r[5]), "CAPTURE_WITHHELD_SECURE")
            tap = ok(r[6])
            self.assertTrue(tap["changed"])
            self.assertTrue(tap["diffAsFull"])
            self.assertIn('"Hello, ann@example.com"', tap["elements"][0])
            self.assertEqual(ok(r[7])["activity"], "com.example.login.HomeActivity")
            self.assertEqual(ok(r[8]), ["hunter2"])
            meta = ok(r[9])
            self.assertEqual(meta["secureFieldCheck"], "clear")
            self.assertEqual((meta["width"], meta["height"]), (1080, 2400))
            with open(shot, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertEqual(code(r[10]), "STALE_REF")

    def test_text_escaping_reaches_the_field(self):
        tricky = "a b'c\"$(id);&|*?[x]{y}~#!\\%s 50% off"
        with VDeviceEnv(app="login") as env:
            r = run(env, [
                {"op": "open"},
                {"op": "launch", "app": "com.example.login"},
                {"op": "act", "args": {"action": "type", "target": {"id": "email"}, "text": tricky}},
                {"op": "resolve", "target": {"id": "email"}},
                {"op": "act", "args": {"action": "type", "target": {"id": "email"}, "text": "caf\u00e9"}},
                {"op": "act", "args": {"action": "type", "target": {"id": "email"}, "text": "x",
                                       "mode": "append"}},
                {"op": "resolve", "target": {"id": "email"}},
                {"op": "act", "args": {"action": "clear", "target": {"id": "email"}}},
                {"op": "resolve", "target": {"id": "email"}},
            ])
            ok(r[2])
            self.assertEqual(ok(r[3])["text"], tricky)
            self.assertEqual(code(r[4]), "TEXT_INPUT_UNSUPPORTED")
            self.assertIs(r[4]["details"]["changedState"], False)
            ok(r[5])
            self.assertEqual(ok(r[6])["text"], tricky + "x")
            ok(r[7])
            self.assertNotEqual(ok(r[8])["text"], tricky + "x")

    def test_placeholders(self):
        with VDeviceEnv(app="login") as env:
            steps = [
                {"op": "open"},
                {"op": "launch", "app": "com.example.login"},
                {"op": "act", "args": {"action": "type", "target": {"id": "email"}, "text": "${SWIPIUM_NOPE}"}},
                {"op": "act", "args": {"action": "type", "target": {"id": "email"},
                                       "text": "${SWIPIUM_TEST_EMAIL}"}},
                {"op": "act", "args": {"action": "type", "target": {"id": "password"},
                                       "text": "${SWIPIUM_TEST_PASSWORD}"}},
                {"op": "secrets"},
                {"op": "resolve", "target": {"id": "email"}},
            ]
            r = run(env, steps, extra_env={"SWIPIUM_TEST_EMAIL": "bob@example.com",
                                           "SWIPIUM_TEST_PASSWORD": "s3cret-pw", "SWIPIUM_NOPE": ""})
            # an empty variable is a value: typing it is a no-op, not missing data
            ok(r[2])
            email = ok(r[3])
            self.assertEqual(email["placeholders"], ["SWIPIUM_TEST_EMAIL"])
            self.assertNotIn("bob@example.com", json.dumps(email["placeholders"]))
            pw = ok(r[4])
            self.assertTrue(pw["secret"])
            self.assertEqual(ok(r[5]), ["s3cret-pw"])
            self.assertEqual(ok(r[6])["text"], "bob@example.com")
            r = run(env, [{"op": "open"}, {"op": "act", "args": {"action": "type", "target": {"id": "email"},
                                                                  "text": "${SWIPIUM_UNSET_VALUE}"}}])
            self.assertEqual(code(r[1]), "MISSING_TEST_DATA")
            self.assertIs(r[1]["details"]["changedState"], False)

    def test_scroll_until_visible_and_end_of_list(self):
        with VDeviceEnv(app="list") as env:
            r = run(env, [
                {"op": "open"},
                {"op": "launch", "app": "com.example.list"},
                {"op": "snapshot"},
                {"op": "act", "args": {"action": "scroll", "direction": "down",
                                       "untilVisible": {"text": "Item 30"}}},
                {"op": "act", "args": {"action": "scroll", "direction": "down", "maxScrolls": 20,
                                       "untilVisible": {"text": "No such row"}}},
                {"op": "act", "args": {"action": "tap", "target": {"text": "Item 49"}}},
                {"op": "act", "args": {"action": "press", "key": "back"}},
                {"op": "act", "args": {"action": "swipe", "direction": "down"}},
                {"op": "act", "args": {"action": "scroll", "direction": "sideways"}},
            ])
            snap = ok(r[2])
            self.assertTrue(any('"Item 1"' in line for line in snap["elements"]))
            s1 = ok(r[3])
            self.assertTrue(s1["untilVisibleFound"])
            self.assertGreater(s1["swipes"], 0)
            self.assertEqual(s1["anchoredIn"], "scrollable")
            self.assertIn('"Item 30"', s1["found"])
            s2 = ok(r[4])
            self.assertFalse(s2["untilVisibleFound"])
            self.assertTrue(s2["endOfList"])
            self.assertLess(s2["swipes"], 20)
            tap = ok(r[5])
            self.assertTrue(tap["changed"])
            self.assertTrue(any('"Item 49"' in line for line in tap["elements"]))
            back = ok(r[6])
            self.assertTrue(back["changed"])
            swipe = ok(r[7])
            self.assertTrue(swipe["changed"])
            self.assertEqual(code(r[8]), "INVALID_ARGUMENT")

    def test_keyboard_and_overlay_obstruction(self):
        with VDeviceEnv(app=OBSTRUCT_APP) as env:
            r = run(env, [
                {"op": "open"},
                {"op": "launch", "app": "com.example.obstruct"},
                {"op": "snapshot"},
                {"op": "act", "args": {"action": "tap", "target": {"text": "Buy"}}},
                {"op": "act", "args": {"action": "tap", "target": {"id": "note"}}},
                {"op": "act", "args": {"action": "tap", "target": {"text": "Save"}}},
                {"op": "foreground"},
                {"op": "act", "args": {"action": "press", "key": "back"}},
            ])
            snap = ok(r[2])
            self.assertEqual(snap["overlays"][0]["kind"], "snackbar")
            self.assertEqual(code(r[3]), "OVERLAY_OBSTRUCTION")
            self.assertEqual(r[3]["details"]["blockedByOverlay"]["label"], "Item added to cart")
            self.assertIs(r[3]["details"]["changedState"], False)
            self.assertTrue(ok(r[4])["keyboard"]["shown"])
            save = ok(r[5])
            self.assertTrue(save["keyboardHidden"])
            self.assertEqual(ok(r[6])["activity"], "com.example.obstruct.SavedActivity")
            with VDeviceEnv(app=OBSTRUCT_APP) as env2:
                r = run(env2, [
                    {"op": "open"},
                    {"op": "launch", "app": "com.example.obstruct"},
                    {"op": "act", "args": {"action": "tap", "target": {"text": "Buy"}, "ignoreOverlay": True}},
                ])
                self.assertTrue(ok(r[2])["changedState"])

    def test_open_url_and_wait(self):
        with VDeviceEnv(app="login") as env:
            r = run(env, [
                {"op": "open"},
                {"op": "act", "args": {"action": "open_url", "url": "swipium-demo://home"}},
                {"op": "foreground"},
                {"op": "act", "args": {"action": "wait", "for": {"text": "Sign out"}, "timeoutMs": 1000}},
                {"op": "act", "args": {"action": "wait", "for": {"text": "Never there"}, "timeoutMs": 300}},
                {"op": "act", "args": {"action": "wait", "timeoutMs": -1}},
                {"op": "act", "args": {"action": "wait", "timeoutMs": 90000}},
                {"op": "act", "args": {"action": "press", "key": "back", "observe": "none"}},
                {"op": "act", "args": {"action": "press", "key": "enter", "observe": "full"}},
                {"op": "act", "args": {"action": "press", "key": "menu"}},
            ])
            ok(r[1])
            self.assertEqual(ok(r[2])["activity"], "com.example.login.HomeActivity")
            self.assertTrue(ok(r[3])["satisfied"])
            w = ok(r[4])
            self.assertFalse(w["satisfied"])
            self.assertTrue(w["timedOut"])
            self.assertEqual(code(r[5]), "INVALID_ARGUMENT")
            self.assertIn("timeoutMs was clamped to 50000", ok(r[6])["notes"])
            quiet = ok(r[7])
            self.assertNotIn("elements", quiet)
            self.assertIn("changed", quiet)
            full = ok(r[8])
            self.assertIn("elements", full)
            self.assertIn("elementsOmitted", full)
            self.assertEqual(code(r[9]), "INVALID_ARGUMENT")


class Boot(unittest.TestCase):
    def test_avd_boot_through_the_emulator_binary(self):
        import signal
        import tempfile
        with VDeviceEnv(app="list") as env, tempfile.TemporaryDirectory() as sdk:
            os.makedirs(os.path.join(sdk, "emulator"))
            os.symlink(os.path.join(HERE, "emulator-standin.sh"), os.path.join(sdk, "emulator", "emulator"))
            extra = {"ANDROID_HOME": sdk, "VDEVICE_BIN": os.environ.get("VDEVICE_BIN", ""),
                     "SWIPIUM_SOURCE_ROOT": SOURCE_ROOT}
            r = run(env, [{"op": "tools"},
                          {"op": "boot", "avd": "Pixel_7_API_34", "options": {"timeoutMs": 60000}},
                          {"op": "devices", "probe": True},
                          {"op": "boot", "avd": "broken", "options": {"timeoutMs": 20000}},
                          {"op": "boot", "avd": "../etc"}], extra_env=extra)
            tools = ok(r[0])
            self.assertEqual(tools["sdk"], sdk)
            self.assertEqual(tools["emulator"], os.path.join(sdk, "emulator", "emulator"))
            booted = ok(r[1])
            try:
                self.assertNotEqual(booted["serial"], env.serial)
                self.assertTrue(booted["serial"].startswith("emulator-"))
                serials = {d["serial"]: d for d in ok(r[2])}
                self.assertEqual(set(serials), {env.serial, booted["serial"]})
                self.assertTrue(serials[booted["serial"]]["emulator"])
                self.assertEqual(code(r[3]), "EMULATOR_BOOT_FAILED")
                self.assertEqual(code(r[4]), "INVALID_ARGUMENT")
                r = run(env, [{"op": "open", "serial": booted["serial"]}, {"op": "foreground"}], extra_env=extra)
                ok(r[0])
            finally:
                os.kill(booted["pid"], signal.SIGTERM)


class Hostile(unittest.TestCase):
    def test_garbage_dumps_go_visual_only_and_the_session_survives(self):
        for mode, first in (("garbage", "SNAPSHOT_FAILED"), ("empty", "SNAPSHOT_FAILED"),
                            ("fail", "SNAPSHOT_FAILED")):
            with self.subTest(mode=mode):
                with VDeviceEnv(app="login", device_args=["--dump", mode]) as env:
                    r = run(env, [{"op": "open"}, {"op": "snapshot"}, {"op": "snapshot"}, {"op": "snapshot"},
                                  {"op": "snapshot"}, {"op": "foreground"}])
                    self.assertEqual(code(r[1]), first)
                    self.assertEqual(code(r[2]), "SNAPSHOT_FAILED")
                    self.assertEqual(code(r[3]), "VISUAL_ONLY_SCREEN")
                    self.assertEqual(code(r[4]), "VISUAL_ONLY_SCREEN")
                    ok(r[5])

    def test_huge_dump(self):
        with VDeviceEnv(app="list", device_args=["--dump", "huge", "--huge-nodes", "5000"]) as env:
            r = run(env, [{"op": "open"}, {"op": "snapshot"}])
            snap = ok(r[1])
            self.assertLessEqual(len(snap["elements"]), 60)
            self.assertGreater(snap["snapshotQuality"]["signals"]["nodeCount"], 5000)

    def test_device_disappears_mid_session(self):
        with VDeviceEnv(app="login") as env:
            def vanish(_):
                env.device.stop()
                wait_gone(env, env.serial)

            r = run(env, [{"op": "open"}, {"op": "launch", "app": "com.example.login"}, {"op": "snapshot"},
                          {"op": "pause"},
                          {"op": "act", "args": {"action": "tap", "target": {"ref": "@e5"}}},
                          {"op": "snapshot"}, {"op": "devices"}], on_pause=vanish)
            self.assertEqual(code(r[4]), "NO_DEVICE")
            # the loss is noticed before anything is tapped
            self.assertIs(r[4]["details"]["changedState"], False)
            self.assertEqual(code(r[5]), "NO_DEVICE")
            self.assertEqual(ok(r[6]), [])
            # a new device works in the same process
            env.add_device(app="list")
            r = run(env, [{"op": "open"}, {"op": "snapshot"}])
            ok(r[1])

    def test_device_drops_connection_mid_action(self):
        with VDeviceEnv(app="login", device_args=["--disconnect-after", "12"]) as env:
            steps = [{"op": "open"}, {"op": "launch", "app": "com.example.login"}]
            steps += [{"op": "act", "args": {"action": "tap", "target": {"text": "Remember me"}}}] * 4
            r = run(env, steps)
            failures = [x for x in r[2:] if not x["ok"]]
            self.assertTrue(failures, "the device never dropped the connection")
            self.assertIn(failures[0]["failureCode"], ("NO_DEVICE", "DEVICE_NOT_READY"))

    def test_adb_server_killed(self):
        with VDeviceEnv(app="login") as env:
            def kill(_):
                env.server.kill()

            r = run(env, [{"op": "open"}, {"op": "snapshot"}, {"op": "pause"}, {"op": "snapshot"},
                          {"op": "devices"}], on_pause=kill)
            ok(r[1])
            # either the restarted server found the device again, or a clear device error
            if not r[3]["ok"]:
                self.assertIn(r[3]["failureCode"], ("NO_DEVICE", "DEVICE_NOT_READY"))
                self.assertTrue(r[3]["message"])
            self.assertTrue(r[4]["ok"], r[4])
            env.server.started = True  # the client restarted it; let cleanup stop it


if __name__ == "__main__":
    unittest.main(verbosity=2)
