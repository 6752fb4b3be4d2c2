#!/usr/bin/python3
"""The real adb client and server drive the virtual device (tests/vdevice) the way a driver would."""

import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vdevice_env import VDeviceEnv, find_vdevice, APPS_DIR  # noqa: E402

LOGIN = "com.example.login"
LIST = "com.example.list"


def dump(dev):
    """The current uiautomator hierarchy as an ElementTree root, through `exec-out uiautomator dump /dev/tty`."""
    r = dev.adb("exec-out", "uiautomator dump /dev/tty")
    text = r.stdout.decode("utf-8")
    tail = "UI hierchary dumped to: /dev/tty\n"
    assert text.endswith(tail), text[-200:]
    return ET.fromstring(text[: -len(tail)])


def nodes(root, **attrs):
    return [n for n in root.iter("node") if all(n.get(k) == v for k, v in attrs.items())]


def center(node):
    x1, y1, x2, y2 = map(int, re.findall(r"-?\d+", node.get("bounds")))
    return (x1 + x2) // 2, (y1 + y2) // 2


def tap(dev, node):
    x, y = center(node)
    rc, out, err = dev.shell("input tap %d %d" % (x, y))
    assert rc == 0, err


def parse_png(data):
    """Returns (width, height, rows of raw RGB bytes) or raises: a minimal PNG reader with zlib."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:16]
    pos, idat = 8, b""
    w = h = None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        assert zlib.crc32(kind + body) & 0xffffffff == crc, "bad CRC in %r" % kind
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert (depth, ctype) == (8, 2), (depth, ctype)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = 1 + w * 3
    assert len(raw) == h * stride, (len(raw), h * stride)
    return w, h, raw, stride


class LoginApp(unittest.TestCase):
    """One device with the login app; each test restarts the app."""

    @classmethod
    def setUpClass(cls):
        cls.env = VDeviceEnv(app="login", console_token="t0ken-for-tests").__enter__()
        cls.dev = cls.env.device

    @classmethod
    def tearDownClass(cls):
        cls.env.close()

    def setUp(self):
        self.dev.shell("am force-stop %s" % LOGIN)
        rc, out, _ = self.dev.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % LOGIN)
        self.assertEqual(rc, 0, out)

    def test_devices_lists_an_emulator(self):
        out = self.env.server.adb("devices", "-l").stdout.decode()
        line = [l for l in out.splitlines() if l.startswith(self.dev.serial)]
        self.assertEqual(len(line), 1, out)
        self.assertRegex(self.dev.serial, r"^emulator-\d+$")
        self.assertIn(" device ", line[0] + " ")
        self.assertIn("model:sdk_gphone64_x86_64", line[0])
        self.assertEqual(self.env.adb("get-state").stdout.decode().strip(), "device")

    def test_shell_exit_codes_and_streams(self):
        self.assertEqual(self.dev.shell("true")[0], 0)
        self.assertEqual(self.dev.shell("false")[0], 1)
        rc, out, err = self.dev.shell("echo out; echo err >&2; exit 3")
        self.assertEqual((rc, out, err), (3, "out\n", "err\n"))
        rc, out, err = self.dev.shell("frobnicate --now")
        self.assertEqual(rc, 127)
        self.assertEqual(out, "")
        self.assertEqual(err, "/system/bin/sh: frobnicate: inaccessible or not found\n")
        rc, out, _ = self.dev.shell("false || echo fallback && echo chained; echo $?")
        self.assertEqual(out, "fallback\nchained\n0\n")
        rc, out, _ = self.dev.shell("echo '$HOME' \"$HOME\" a\\ b")
        self.assertEqual(out, "$HOME / a b\n")

    def test_shell_punishes_unescaped_text_like_mksh(self):
        """Unescaped text misbehaves as on a device, so a driver's escaping bugs show up here too."""
        self.assertEqual(self.dev.shell("echo a*")[1], "acct apex\n")  # globs match the root directory
        self.assertEqual(self.dev.shell("echo 'a*' zz*")[1], "a* zz*\n")
        self.assertEqual(self.dev.shell("echo #tag")[1], "\n")
        self.assertEqual(self.dev.shell("echo ~")[1], "/\n")
        for text, err in (("echo it's", "unterminated quoted string"), ("echo (x)", "'(' unexpected"),
                          ("echo ok; echo $(id)", "command substitution"), ("echo `id`", "command substitution")):
            rc, out, e = self.dev.shell(text)
            self.assertEqual((rc, out), (1, ""), text)
            self.assertIn(err, e)
        self.assertEqual(self.dev.shell("input text it\\'s\\ \\(ok\\)")[0], 0)

    def test_stdin_reaches_the_command(self):
        r = self.dev.adb("shell", "cat > /sdcard/in.txt", input=b"from stdin\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.dev.shell("cat /sdcard/in.txt")[1], "from stdin\n")

    def test_getprop(self):
        self.assertEqual(self.dev.shell("getprop ro.kernel.qemu")[1], "1\n")
        self.assertEqual(self.dev.shell("getprop ro.hardware")[1], "ranchu\n")
        self.assertEqual(self.dev.shell("getprop sys.boot_completed")[1], "1\n")
        self.assertEqual(self.dev.shell("getprop no.such.prop")[1], "\n")
        allprops = self.dev.shell("getprop")[1]
        self.assertIn("[ro.build.version.sdk]: [33]\n", allprops)
        self.assertIn("[ro.product.model]: [sdk_gphone64_x86_64]\n", allprops)

    def test_wm_and_settings(self):
        self.assertEqual(self.dev.shell("wm size")[1], "Physical size: 1080x2400\n")
        self.assertEqual(self.dev.shell("wm density")[1], "Physical density: 420\n")
        self.assertEqual(self.dev.shell("settings get global airplane_mode_on")[1], "0\n")
        self.dev.shell("settings put global airplane_mode_on 1")
        self.assertEqual(self.dev.shell("settings get global airplane_mode_on")[1], "1\n")
        self.dev.shell("settings put global airplane_mode_on 0")

    def test_screencap_is_a_png_of_the_screen(self):
        r = self.dev.adb("exec-out", "screencap -p")
        self.assertEqual(r.returncode, 0)
        w, h, raw, stride = parse_png(r.stdout)
        self.assertEqual((w, h), (1080, 2400))
        # The sign-in button (blue) is drawn where the dump says it is.
        button = nodes(dump(self.dev), text="Sign in")[0]
        x, y = center(button)
        self.assertEqual(raw[y * stride], 0, "rows are written without PNG filters")
        px = raw[y * stride + 1 + x * 3: y * stride + 1 + x * 3 + 3]
        self.assertEqual(px, bytes([0x1a, 0x73, 0xe8]))
        # The focused field brings the keyboard: the bottom of the screen changes.
        tap(self.dev, nodes(dump(self.dev), **{"resource-id": LOGIN + ":id/email"})[0])
        _, _, raw2, _ = parse_png(self.dev.adb("exec-out", "screencap -p").stdout)
        row = 2000 * stride
        self.assertNotEqual(raw[row:row + stride], raw2[row:row + stride])

    def test_screencap_to_file_then_pull(self):
        self.assertEqual(self.dev.shell("screencap -p /sdcard/s.png")[0], 0)
        with tempfile.TemporaryDirectory() as d:
            r = self.dev.adb("pull", "/sdcard/s.png", os.path.join(d, "s.png"))
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(d, "s.png"), "rb") as f:
                self.assertEqual(parse_png(f.read())[:2], (1080, 2400))

    def test_push_pull_round_trip(self):
        payload = os.urandom(300000) + b"\x00end"
        with tempfile.TemporaryDirectory() as d:
            src, back = os.path.join(d, "src.bin"), os.path.join(d, "back.bin")
            with open(src, "wb") as f:
                f.write(payload)
            r = self.dev.adb("push", src, "/data/local/tmp/x.bin")
            self.assertEqual(r.returncode, 0, r.stderr)
            r = self.dev.adb("pull", "/data/local/tmp/x.bin", back)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(back, "rb") as f:
                self.assertEqual(f.read(), payload)
            self.assertIn("x.bin", self.dev.shell("ls /data/local/tmp")[1])
            r = self.dev.adb("push", src, "/system/x.bin")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(b"Permission denied", r.stdout + r.stderr)
            r = self.dev.adb("pull", "/sdcard/missing.bin", back)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(b"No such file or directory", r.stdout + r.stderr)  # adb 29 prints it on stdout
        self.assertEqual(self.dev.shell("rm /data/local/tmp/x.bin")[0], 0)
        rc, _, err = self.dev.shell("rm /data/local/tmp/x.bin")
        self.assertEqual(rc, 1)
        self.assertIn("No such file or directory", err)

    def test_streamed_install(self):
        with tempfile.TemporaryDirectory() as d:
            apk = os.path.join(d, "extra.apk")
            with open(apk, "wb") as f:
                f.write(b"vdevice-package: com.example.extra\n" + os.urandom(5000))
            r = self.dev.adb("install", "-r", apk)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(b"Success", r.stdout)
        pkgs = self.dev.shell("pm list packages -3")[1].split()
        self.assertIn("package:com.example.extra", pkgs)
        self.assertIn("package:" + LOGIN, pkgs)
        rc, out, _ = self.dev.shell("pm path com.example.extra")
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"^package:/data/app/.*/base\.apk\n$")
        self.assertEqual(self.dev.shell("pm path com.example.nothere")[0], 1)

    def test_emu_console_with_auth_token(self):
        r = self.env.server.adb("-s", self.dev.serial, "emu", "geo", "fix", "2.35", "48.85")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"OK", r.stdout)
        self.assertIn("gps fix lon=2.35 lat=48.85", self.dev.shell("logcat -d")[1])
        self.assertIn(b"vdevice_api33", self.env.server.adb("emu", "avd", "name").stdout)
        # Without the right token the console refuses commands.
        port = int(self.dev.serial.split("-")[1])
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"auth wrong\r\ngeo fix 1 2\r\nauth t0ken-for-tests\r\nping\r\nquit\r\n")
            got = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
        text = got.decode()
        self.assertIn("Authentication required", text)
        self.assertIn("KO: authentication token does not match", text)
        self.assertIn("KO: unknown command", text)
        self.assertIn("I am alive!", text)

    def test_foreground_activity(self):
        out = self.dev.shell("dumpsys window")[1]
        self.assertIn("mCurrentFocus=Window{", out)
        self.assertRegex(out, r"mCurrentFocus=Window\{\w+ u0 com\.example\.login/com\.example\.login\.LoginActivity\}")
        self.assertRegex(out, r"mFocusedApp=ActivityRecord\{\w+ u0 com\.example\.login/\.LoginActivity t\d+\}")
        acts = self.dev.shell("dumpsys activity activities")[1]
        self.assertRegex(acts, r"ResumedActivity: ActivityRecord\{\w+ u0 com\.example\.login/\.LoginActivity t\d+\}")
        self.dev.shell("input keyevent KEYCODE_HOME")
        self.assertIn("nexuslauncher", self.dev.shell("dumpsys window | grep mCurrentFocus")[1])
        rc, out, _ = self.dev.shell("am start -n %s/.LoginActivity" % LOGIN)
        self.assertEqual((rc, out), (0, "Starting: Intent { cmp=com.example.login/.LoginActivity }\n"))
        rc, _, err = self.dev.shell("am start -n %s/.NoSuchActivity" % LOGIN)
        self.assertEqual(rc, 255)
        self.assertIn("does not exist", err)

    def test_sign_in_flow(self):
        root = dump(self.dev)
        email = nodes(root, **{"resource-id": LOGIN + ":id/email"})[0]
        password = nodes(root, **{"resource-id": LOGIN + ":id/password"})[0]
        self.assertEqual(email.get("text"), "Email")  # hint of an empty field, as Android reports it
        self.assertEqual(password.get("password"), "true")

        # Focus shows the keyboard, like real devices report it.
        self.assertIn("mInputShown=false", self.dev.shell("dumpsys input_method")[1])
        tap(self.dev, email)
        self.assertIn("mInputShown=true", self.dev.shell("dumpsys input_method")[1])
        self.assertIn("mImeShowing=true", self.dev.shell("dumpsys window")[1])
        self.assertEqual(nodes(dump(self.dev), **{"resource-id": LOGIN + ":id/email"})[0].get("focused"), "true")

        self.assertEqual(self.dev.shell("input text 'qa%suser@example.com'")[0], 0)
        tap(self.dev, password)
        self.dev.shell("input text hunter2")
        root = dump(self.dev)
        self.assertEqual(nodes(root, **{"resource-id": LOGIN + ":id/email"})[0].get("text"), "qa user@example.com")
        masked = nodes(root, **{"resource-id": LOGIN + ":id/password"})[0].get("text")
        self.assertEqual(masked, "\u2022" * 7)
        self.assertNotIn("hunter2", ET.tostring(root).decode())

        # BACK hides the keyboard first and stays on the screen.
        self.dev.shell("input keyevent KEYCODE_BACK")
        self.assertIn("mInputShown=false", self.dev.shell("dumpsys input_method")[1])
        self.assertTrue(nodes(dump(self.dev), text="Sign in"))

        tap(self.dev, nodes(dump(self.dev), text="Sign in")[0])
        root = dump(self.dev)
        self.assertFalse(nodes(root, text="Sign in"))
        self.assertEqual(nodes(root, **{"resource-id": LOGIN + ":id/greeting"})[0].get("text"),
                         "Hello, qa user@example.com")
        self.assertIn(".HomeActivity", self.dev.shell("dumpsys window | grep mFocusedApp")[1])
        log = self.dev.shell("logcat -d")[1]
        self.assertIn("I LoginActivity: sign-in succeeded for qa user@example.com", log)

    def test_wrong_password_shows_a_dialog(self):
        root = dump(self.dev)
        tap(self.dev, nodes(root, **{"resource-id": LOGIN + ":id/email"})[0])
        self.dev.shell("input text a@b.c")
        tap(self.dev, nodes(root, **{"resource-id": LOGIN + ":id/password"})[0])
        self.dev.shell("input text nope")
        tap(self.dev, nodes(root, text="Sign in")[0])
        root = dump(self.dev)
        self.assertEqual([n.get("text") for n in nodes(root, **{"resource-id": "android:id/message"})],
                         ["Wrong password. Try again."])
        self.assertFalse(nodes(root, text="Sign in"), "the dump shows the dialog window only")
        tap(self.dev, nodes(root, text="OK")[0])
        root = dump(self.dev)
        self.assertTrue(nodes(root, text="Sign in"))
        self.assertEqual(nodes(root, **{"resource-id": LOGIN + ":id/password"})[0].get("text"), "Password")
        self.assertRegex(self.dev.shell("logcat -d")[1],
                         r"\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ W LoginActivity: sign-in failed: wrong password")

    def test_tap_under_the_keyboard_hits_the_keyboard(self):
        root = dump(self.dev)
        tap(self.dev, nodes(root, **{"resource-id": LOGIN + ":id/email"})[0])
        self.dev.shell("input text x@y.z")
        # A tap at y=2000 lands on the keyboard, not on what lies below it.
        self.dev.shell("input tap 540 2000")
        self.assertIn("mInputShown=true", self.dev.shell("dumpsys input_method")[1])
        self.assertIn(".LoginActivity", self.dev.shell("dumpsys window | grep mCurrentFocus")[1])

    def test_uiautomator_dump_to_file(self):
        rc, out, _ = self.dev.shell("uiautomator dump")
        self.assertEqual((rc, out), (0, "UI hierchary dumped to: /sdcard/window_dump.xml\n"))
        xml = self.dev.adb("exec-out", "cat /sdcard/window_dump.xml").stdout
        self.assertTrue(xml.startswith(b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy"))
        ET.fromstring(xml)
        rc, out, _ = self.dev.shell("uiautomator dump /sdcard/other.xml && ls /sdcard")
        self.assertIn("other.xml", out)

    def test_logcat_threadtime(self):
        lines = [l for l in self.dev.shell("logcat -d")[1].splitlines() if not l.startswith("-----")]
        self.assertTrue(lines)
        for l in lines:
            self.assertRegex(l, r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] [^:]+: ")
        last = self.dev.shell("logcat -t 1")[1].splitlines()
        self.assertEqual(last, ["--------- beginning of main", lines[-1]])
        self.assertEqual(self.dev.shell("logcat -c")[0], 0)
        self.assertEqual(self.dev.shell("logcat -d")[1], "--------- beginning of main\n")

    def test_garbage_on_the_transport_does_not_hurt(self):
        port = self.dev.port
        for junk in (b"\xff" * 100, b"CNXN" + b"\x00" * 20, os.urandom(5000),
                     struct.pack("<6I", 0x4e584e43, 0x01000001, 4096, 0x7fffffff, 0, 0x4e584e43 ^ 0xffffffff)):
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.sendall(junk)
        with socket.create_connection(("127.0.0.1", port - 1)) as s:
            s.sendall(os.urandom(20000) + b"\n" * 3)
        self.assertEqual(self.dev.shell("echo still here"), (0, "still here\n", ""))


class ListApp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.env = VDeviceEnv(app="list").__enter__()
        cls.dev = cls.env.device

    @classmethod
    def tearDownClass(cls):
        cls.env.close()

    def setUp(self):
        self.dev.shell("am force-stop %s" % LIST)

    def test_list_scrolls_and_opens_details(self):
        self.dev.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % LIST)
        root = dump(self.dev)
        lst = nodes(root, scrollable="true")
        self.assertEqual(len(lst), 1)
        rows = [n.get("text") for n in nodes(root, **{"resource-id": LIST + ":id/row_title"})]
        self.assertEqual(rows[0], "Item 1")
        self.assertNotIn("Item 40", rows)
        first_b = nodes(root, text="Item 2")[0].get("bounds")
        self.dev.shell("input swipe 540 1800 540 600 300")
        root = dump(self.dev)
        rows2 = [n.get("text") for n in nodes(root, **{"resource-id": LIST + ":id/row_title"})]
        self.assertNotIn("Item 1", rows2)
        self.assertIn("Item 14", rows2)
        # Scroll to the end: the last row appears and further swipes stop moving.
        for _ in range(10):
            self.dev.shell("input swipe 540 1800 540 300")
        root = dump(self.dev)
        last = nodes(root, text="Item 50")
        self.assertEqual(len(last), 1)
        before = ET.tostring(root)
        self.dev.shell("input swipe 540 1800 540 300")
        self.assertEqual(ET.tostring(dump(self.dev)), before)
        tap(self.dev, last[0])
        root = dump(self.dev)
        self.assertEqual(nodes(root, **{"resource-id": LIST + ":id/detail_title"})[0].get("text"), "Item 50")
        self.assertIn(".DetailActivity", self.dev.shell("dumpsys window | grep mCurrentFocus")[1])
        switch = nodes(root, **{"resource-id": LIST + ":id/favorite"})[0]
        self.assertEqual(switch.get("checked"), "false")
        tap(self.dev, switch)
        self.assertEqual(nodes(dump(self.dev), **{"resource-id": LIST + ":id/favorite"})[0].get("checked"), "true")
        self.dev.shell("input keyevent 4")
        root = dump(self.dev)
        self.assertTrue(nodes(root, text="Item 50"), "BACK returns to the list where it was")
        self.assertNotEqual(nodes(root, text="Item 50")[0].get("bounds"), first_b)

    def test_deep_link(self):
        rc, out, _ = self.dev.shell("am start -a android.intent.action.VIEW -d swipium-demo://item/Kiwi")
        self.assertEqual(rc, 0)
        self.assertEqual(nodes(dump(self.dev), **{"resource-id": LIST + ":id/detail_title"})[0].get("text"), "Kiwi")
        rc, _, err = self.dev.shell("am start -a android.intent.action.VIEW -d nothing://here")
        self.assertEqual(rc, 255)
        self.assertIn("unable to resolve Intent", err)


class ObstaclesApp(unittest.TestCase):
    """Keyboard-covered targets, a banner overlay, a permission dialog and a secure screen."""

    @classmethod
    def setUpClass(cls):
        cls.env = VDeviceEnv(app="obstacles").__enter__()
        cls.dev = cls.env.device

    @classmethod
    def tearDownClass(cls):
        cls.env.close()

    def setUp(self):
        self.dev.shell("am force-stop com.example.obstacles")
        self.dev.shell("monkey -p com.example.obstacles -c android.intent.category.LAUNCHER 1")

    def rid(self, root, name):
        return nodes(root, **{"resource-id": "com.example.obstacles:id/" + name})

    def test_keyboard_covers_the_checkbox(self):
        root = dump(self.dev)
        tap(self.dev, self.rid(root, "name")[0])
        terms = self.rid(root, "terms")[0]
        tap(self.dev, terms)  # lands on the keyboard
        self.assertEqual(self.rid(dump(self.dev), "terms")[0].get("checked"), "false")
        self.dev.shell("input keyevent 4")
        self.assertIn("mInputShown=false", self.dev.shell("dumpsys input_method")[1])
        tap(self.dev, terms)
        self.assertEqual(self.rid(dump(self.dev), "terms")[0].get("checked"), "true")

    def test_banner_swallows_taps_until_dismissed(self):
        root = dump(self.dev)
        help_button = self.rid(root, "help")[0]
        self.assertTrue(self.rid(root, "snackbar"))
        tap(self.dev, help_button)
        self.assertIn(".SignUpActivity", self.dev.shell("dumpsys window | grep mCurrentFocus")[1])
        tap(self.dev, self.rid(root, "snackbar_action")[0])
        root = dump(self.dev)
        self.assertFalse(self.rid(root, "snackbar"))
        tap(self.dev, self.rid(root, "help")[0])
        self.assertTrue(self.rid(dump(self.dev), "help_title"))

    def test_permission_dialog_then_secure_screen(self):
        root = dump(self.dev)
        tap(self.dev, self.rid(root, "name")[0])
        self.dev.shell("input text Ada")
        self.dev.shell("input keyevent KEYCODE_ESCAPE")
        tap(self.dev, self.rid(root, "create")[0])
        root = dump(self.dev)
        allow = nodes(root, **{"resource-id": "com.android.permissioncontroller:id/permission_allow_button"})
        self.assertEqual(len(allow), 1)
        self.assertEqual(allow[0].get("package"), "com.google.android.permissioncontroller")
        self.assertEqual(root[0].get("package"), "com.google.android.permissioncontroller")
        self.assertIn("u0 com.google.android.permissioncontroller/com.android.permissioncontroller.permission.ui."
                      "GrantPermissionsActivity}", self.dev.shell("dumpsys window | grep mCurrentFocus")[1])
        tap(self.dev, allow[0])
        root = dump(self.dev)
        self.assertEqual(self.rid(root, "welcome")[0].get("text"), "Welcome, Ada")
        self.assertIn(".WelcomeActivity", self.dev.shell("dumpsys window | grep mCurrentFocus")[1])
        tap(self.dev, self.rid(root, "add_card")[0])
        self.assertTrue(self.rid(dump(self.dev), "card_number"))
        w, h, raw, stride = parse_png(self.dev.adb("exec-out", "screencap -p").stdout)
        self.assertEqual(raw.count(b"\x00"), len(raw), "a secure window captures as black")
        self.assertIn("fl=SECURE", self.dev.shell("dumpsys window")[1])


class HealthApp(unittest.TestCase):
    """health.yaml: crashes, an ANR, RN-looking error screens; rotation, airplane mode, geo fix, screenrecord."""

    def test_native_and_java_crash_and_anr_in_logcat(self):
        with VDeviceEnv(app="health") as env:
            env.shell("monkey -p com.example.shop -c android.intent.category.LAUNCHER 1")
            env.shell("input tap 500 810")  # Sync: ANR, the app stays in front
            log = env.shell("logcat -d")[1]
            self.assertRegex(log, r"E ActivityManager: ANR in com\.example\.shop \(com\.example\.shop/\.MainActivity\)")
            self.assertIn("Reason: Input dispatching timed out", log)
            self.assertIn("u0 com.example.shop/", env.shell("dumpsys window | grep mCurrentFocus")[1])
            env.shell("input tap 500 510")  # Checkout: native crash
            log = env.shell("logcat -d")[1]
            self.assertRegex(log, r"F libc +: Fatal signal 11 \(SIGSEGV\).*pid 4242 \(com\.example\.shop\)")
            self.assertIn("F DEBUG   : *** *** *** ***", log)
            self.assertIn(">>> com.example.shop <<<", log)
            # the process died: the launcher is in front, the app's state is gone
            self.assertIn("nexuslauncher", env.shell("dumpsys window | grep mCurrentFocus")[1])
            env.shell("monkey -p com.example.shop -c android.intent.category.LAUNCHER 1")
            env.shell("input tap 500 660")  # Pay: Java crash
            log = env.shell("logcat -d")[1]
            self.assertIn("E AndroidRuntime: FATAL EXCEPTION: main", log)
            self.assertIn("E AndroidRuntime: Process: com.example.shop, PID: 4242", log)

    def test_rotation_airplane_geo_and_screenrecord(self):
        with VDeviceEnv(app="health") as env:
            self.assertEqual(env.shell("settings get system user_rotation")[1], "0\n")
            self.assertEqual(env.shell("settings put system user_rotation 1")[0], 0)
            out = env.shell("dumpsys window")[1]
            self.assertIn("mCurrentRotation=ROTATION_90", out)
            self.assertIn("cur=2400x1080", out)
            self.assertEqual(env.shell("settings put system user_rotation 7")[0], 255)
            self.assertEqual(env.shell("settings put system accelerometer_rotation 1")[0], 0)
            self.assertEqual(env.shell("settings get system accelerometer_rotation")[1], "1\n")
            self.assertEqual(env.shell("cmd connectivity airplane-mode enable")[0], 0)
            self.assertEqual(env.shell("settings get global airplane_mode_on")[1], "1\n")
            self.assertEqual(env.shell("cmd connectivity airplane-mode")[1], "enabled\n")
            self.assertEqual(env.shell("cmd connectivity airplane-mode sideways")[0], 255)
            env.shell("cmd connectivity airplane-mode disable")
            self.assertEqual(env.shell("settings get global airplane_mode_on")[1], "0\n")
            self.assertNotIn("gps", env.shell("dumpsys location")[1])
            self.assertEqual(env.adb("emu", "geo", "fix", "2.2945", "48.8584").returncode, 0)
            self.assertIn("gps 48.8584,2.2945", env.shell("dumpsys location")[1])
            rc, _, err = env.shell("screenrecord --time-limit 180 /sdcard/r.mp4")
            self.assertEqual(rc, 0, err)
            data = env.adb("exec-out", "cat /sdcard/r.mp4").stdout
            self.assertEqual(data[4:8], b"ftyp")
            kinds, off = [], 0
            while off < len(data):
                size, kind = struct.unpack(">I4s", data[off:off + 8])
                self.assertGreaterEqual(size, 8)
                kinds.append(kind)
                off += size
            self.assertEqual(off, len(data))
            self.assertEqual(kinds, [b"ftyp", b"moov", b"mdat"])
            self.assertEqual(env.shell("screenrecord /system/x.mp4")[0], 1)
            self.assertEqual(env.shell("screenrecord")[0], 2)
            self.assertEqual(env.shell("screenrecord --time-limit 999 /sdcard/y.mp4")[0], 2)
            self.assertEqual(env.shell("pkill -INT screenrecord")[0], 1)
            rc, out, _ = env.shell("date +%Y-%m-%dT%H:%M:%S")
            self.assertEqual(rc, 0)
            self.assertRegex(out, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n$")
            self.assertEqual(env.shell("date tomorrow")[0], 1)

    def test_offline_blip_keeps_state(self):
        with VDeviceEnv(app="health") as env:
            env.shell("cmd connectivity airplane-mode enable")
            env.adb("shell", "setprop", "debug.vdevice.offline_ms", "3000")
            listed = env.adb("devices").stdout.decode()
            self.assertNotIn(env.serial + "\tdevice", listed)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if env.serial + "\tdevice" in env.adb("devices").stdout.decode():
                    break
                time.sleep(0.2)
            self.assertEqual(env.shell("settings get global airplane_mode_on")[1], "1\n")

    def test_bad_crash_kind_refused(self):
        binary = find_vdevice()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.yaml")
            with open(path, "w") as f:
                f.write("package: com.x\nscreens:\n  a:\n    nodes:\n      - bounds: [0,0,1,1]\n"
                        "        on_tap: {crash: segfault}\n")
            r = subprocess.run([binary, "--app", path, "--announce", "none"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=30)
            self.assertEqual(r.returncode, 2)
            self.assertIn("'crash' must be java or native", r.stderr.decode())


def read_stats(path):
    import json
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


class LatencyAndSignals(unittest.TestCase):
    """The latency profile, the per-invocation stats, and the signals an act loop reads (frames, logcat since)."""

    def test_stats_count_invocations_bytes_and_modelled_cost(self):
        with tempfile.TemporaryDirectory() as tmp:
            stats = os.path.join(tmp, "stats.jsonl")
            with VDeviceEnv(app="login", device_args=["--stats", stats]) as env:
                env.shell("input tap 10 10")
                xml = env.adb("exec-out", "uiautomator dump /dev/tty").stdout
                env.shell("dumpsys gfxinfo %s; logcat -c" % LOGIN)
                lines = read_stats(stats)
                cmds = [(l["service"], l["cmd"]) for l in lines]
                self.assertIn(("shell", "input tap 10 10"), cmds)
                self.assertIn(("exec", "uiautomator dump /dev/tty"), cmds)
                tapl = [l for l in lines if l["cmd"] == "input tap 10 10"][0]
                dumpl = [l for l in lines if l["cmd"] == "uiautomator dump /dev/tty"][0]
                both = [l for l in lines if l["cmd"].startswith("dumpsys gfxinfo")][0]
                self.assertEqual(tapl["modelMs"], 630.0)  # 30 ms round trip + 600 ms input
                self.assertEqual(dumpl["bytes"], len(xml))
                self.assertAlmostEqual(dumpl["modelMs"], 2130.0 + len(xml) / 10000.0, delta=0.2)
                self.assertGreaterEqual(both["modelMs"], 30.0 + 100.0 + 50.0)  # one invocation, two programs
                self.assertFalse(tapl["latency"])
                self.assertEqual([l["seq"] for l in lines], list(range(1, len(lines) + 1)))

    def test_latency_profile_sleeps_the_scaled_cost(self):
        with VDeviceEnv(app="login", device_args=["--latency", "emulator:0.05"]) as env:
            t0 = time.monotonic()
            env.adb("exec-out", "uiautomator dump /dev/tty")
            slow = time.monotonic() - t0
            t0 = time.monotonic()
            env.shell("true")
            fast = time.monotonic() - t0
            self.assertGreaterEqual(slow, 2.13 * 0.05)  # the dump's 2130 ms, scaled
            self.assertLess(fast, slow)
        for bad in ("bogus", "emulator:0", "emulator:x", "emulator:11"):
            r = subprocess.run([find_vdevice(), "--app", os.path.join(APPS_DIR, "login.yaml"), "--latency", bad,
                                "--announce", "none"], capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("--latency must be", r.stderr)

    def test_frame_counter_and_a_screen_that_never_settles(self):
        with VDeviceEnv(app="login") as env:
            env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % LOGIN)

            def frames():
                out = env.shell("dumpsys gfxinfo %s | grep 'Total frames'" % LOGIN)[1]
                return int(re.search(r"Total frames rendered: (\d+)", out).group(1))

            a = frames()
            self.assertEqual(frames(), a)  # an idle screen renders nothing
            self.assertEqual(dump(env.device).tag, "hierarchy")
            self.assertEqual(frames(), a)
            env.shell("input tap 5 5")
            self.assertGreater(frames(), a)
            self.assertIn("No process found for: com.example.other", env.shell("dumpsys gfxinfo com.example.other")[1])
            env.shell("setprop debug.vdevice.animating 1")
            b = frames()
            self.assertGreater(frames(), b)
            d1 = env.adb("exec-out", "uiautomator dump /dev/tty").stdout
            d2 = env.adb("exec-out", "uiautomator dump /dev/tty").stdout
            self.assertNotEqual(d1, d2)
            self.assertIn(b"android.widget.ProgressBar", d2)
            ET.fromstring(d2.split(b"UI hierchary")[0])
            env.shell("setprop debug.vdevice.animating 0")
            self.assertEqual(env.adb("exec-out", "uiautomator dump /dev/tty").stdout,
                             env.adb("exec-out", "uiautomator dump /dev/tty").stdout)

    def test_served_dump_file_and_override_size(self):
        with VDeviceEnv(app="login") as env:
            land = ('<?xml version=\'1.0\' encoding=\'UTF-8\' standalone=\'yes\' ?><hierarchy rotation="1">'
                    '<node index="0" text="" class="android.widget.FrameLayout" package="com.example.login" '
                    'bounds="[0,0][2400,1080]"><node index="0" text="Far right" class="android.widget.Button" '
                    'package="com.example.login" clickable="true" bounds="[2000,500][2300,600]" /></node></hierarchy>')
            with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
                f.write(land)
            try:
                self.assertEqual(env.adb("push", f.name, "/sdcard/land.xml").returncode, 0)
            finally:
                os.unlink(f.name)
            env.shell("setprop debug.vdevice.dump_file /sdcard/land.xml")
            root = dump(env.device)
            self.assertEqual(root.get("rotation"), "1")
            self.assertEqual(nodes(root, text="Far right")[0].get("bounds"), "[2000,500][2300,600]")
            env.shell("setprop debug.vdevice.dump_file /sdcard/missing.xml")
            self.assertIn("null root node", env.shell("uiautomator dump")[2])
            env.shell("setprop debug.vdevice.dump_file none")
            self.assertEqual(dump(env.device).get("rotation"), "0")
            self.assertEqual(env.shell("wm size 720x1600")[0], 0)
            self.assertEqual(env.shell("wm size")[1], "Physical size: 1080x2400\nOverride size: 720x1600\n")
            self.assertEqual(env.shell("wm size 12")[0], 255)
            env.shell("wm size reset")
            self.assertEqual(env.shell("wm size")[1], "Physical size: 1080x2400\n")

    def test_logcat_since_a_time_and_a_buffer_that_wraps(self):
        with VDeviceEnv(app="health") as env:
            lines = [l for l in env.shell("logcat -d")[1].splitlines() if not l.startswith("-----")]
            stamp = lines[-1][:18]
            since = env.shell("logcat -d -T '%s'" % stamp)[1].splitlines()
            self.assertEqual(since[0], "--------- beginning of main")
            self.assertTrue(all(l[:18] >= stamp for l in since[1:]))
            self.assertIn(lines[-1], since)
            self.assertEqual(env.shell("logcat -d -T '12-31 23:59:59.999'")[1], "--------- beginning of main\n")
            self.assertEqual(env.shell("logcat -d -T 'garbage: x'")[0], 1)
            # several MB of chatter in a 1 MiB ring buffer: the oldest lines are gone, the size holds
            env.shell("setprop debug.vdevice.logcat_max 1048576")
            env.shell("setprop debug.vdevice.logcat_spam 3000000")
            r = env.adb("exec-out", "logcat -d")
            self.assertLessEqual(len(r.stdout), 1048576 + 64)
            self.assertGreater(len(r.stdout), 900000)
            self.assertNotIn(lines[0].encode(), r.stdout)
            self.assertEqual(env.shell("setprop debug.vdevice.logcat_max 12")[0], 1)


class HostileConditions(unittest.TestCase):
    def test_dump_modes(self):
        with VDeviceEnv(app="login", device_args=["--dump", "garbage"]) as env:
            xml = env.adb("exec-out", "uiautomator dump /dev/tty").stdout
            with self.assertRaises(ET.ParseError):
                ET.fromstring(xml.split(b"UI hierchary")[0])
            env.add_device(app="login", args=["--dump", "empty"])
            empty = env.devices[1]
            self.assertEqual(empty.shell("uiautomator dump")[0], 0)
            self.assertEqual(empty.adb("exec-out", "cat /sdcard/window_dump.xml").stdout, b"")
            env.add_device(app="login", args=["--dump", "huge"])
            huge = env.devices[2]
            root = ET.fromstring(huge.adb("exec-out", "uiautomator dump /dev/tty").stdout.split(b"UI hierchary")[0])
            self.assertGreater(len(list(root.iter("node"))), 5000)
            env.add_device(app="login", args=["--dump", "fail"])
            rc, out, err = env.devices[3].shell("uiautomator dump")
            self.assertIn("could not get idle state", err)
            # Several devices on one server: adb refuses an unqualified command.
            r = env.server.adb("shell", "true")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(b"more than one", r.stderr)

    def test_runtime_controls(self):
        with VDeviceEnv(app="login", device_args=["--dump", "fail", "--dump-count", "2"]) as env:
            errs = [env.shell("uiautomator dump")[2] for _ in range(3)]
            self.assertEqual(errs[:2], ["ERROR: could not get idle state.\n"] * 2)
            self.assertEqual(errs[2], "")
            self.assertEqual(env.shell("setprop debug.vdevice.dump empty && setprop debug.vdevice.dump_count 1")[0], 0)
            env.shell("uiautomator dump")
            self.assertEqual(env.adb("exec-out", "cat /sdcard/window_dump.xml").stdout, b"")
            env.shell("uiautomator dump")
            ET.fromstring(env.adb("exec-out", "cat /sdcard/window_dump.xml").stdout)
            rc, _, err = env.shell("setprop debug.vdevice.dump bogus")
            self.assertEqual(rc, 1)
            self.assertIn("Failed to set property", err)
            # A keyboard that BACK cannot hide.
            env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % LOGIN)
            env.shell("setprop debug.vdevice.sticky_keyboard 1")
            tap(env.device, nodes(dump(env.device), **{"resource-id": LOGIN + ":id/email"})[0])
            env.shell("input keyevent 4")
            env.shell("input keyevent 111")
            self.assertIn("mInputShown=true", env.shell("dumpsys input_method")[1])
            env.shell("setprop debug.vdevice.sticky_keyboard 0")
            env.shell("input keyevent 4")
            self.assertIn("mInputShown=false", env.shell("dumpsys input_method")[1])

    def test_disconnect_after_n_commands(self):
        with VDeviceEnv(app="login", device_args=["--disconnect-after", "2"]) as env:
            self.assertEqual(env.shell("echo 1")[0], 0)
            self.assertEqual(env.shell("echo 2")[0], 0)
            rc, out, _ = env.shell("echo 3")
            self.assertNotEqual((rc, out), (0, "3\n"))
            deadline = time.monotonic() + 20
            while env.device.serial in env.server.devices() and time.monotonic() < deadline:
                time.sleep(0.1)
            self.assertNotIn(env.device.serial, env.server.devices())
            # It stays gone: its ports are closed, even to a new adb server.
            time.sleep(1.5)
            self.assertNotIn(env.device.serial, env.server.devices())
            with self.assertRaises(OSError):
                socket.create_connection(("127.0.0.1", env.device.port), timeout=5).close()
            self.assertTrue(env.device.alive)

    def test_physical_looking_device(self):
        with VDeviceEnv(app="login", physical=True) as env:
            self.assertRegex(env.serial, r"^127\.0\.0\.1:\d+$")
            self.assertEqual(env.server.devices()[env.serial], "device")
            self.assertEqual(env.shell("getprop ro.kernel.qemu")[1], "\n")
            self.assertEqual(env.shell("getprop ro.hardware")[1], "qcom\n")
            self.assertNotIn("qemu", env.shell("getprop")[1])

    def test_device_vanishes_on_sigterm(self):
        with VDeviceEnv(app="login") as env:
            self.assertEqual(env.device.stop(), 0, "clean exit on SIGTERM")
            deadline = time.monotonic() + 20
            while env.device.serial in env.server.devices() and time.monotonic() < deadline:
                time.sleep(0.1)
            self.assertNotIn(env.device.serial, env.server.devices())
            r = env.adb("shell", "true")
            self.assertNotEqual(r.returncode, 0)

    def test_device_returns_after_the_adb_server_restarts(self):
        with VDeviceEnv(app="login") as env:
            env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % LOGIN)
            env.server.kill()
            r = env.adb("shell", "true")
            self.assertNotEqual(r.returncode, 0)
            env.server.start()
            env.device.wait_state("device")  # the emulator is found again, as the server's port scan would
            self.assertEqual(env.shell("echo back"), (0, "back\n", ""))
            self.assertIn(".LoginActivity", env.shell("dumpsys window | grep mCurrentFocus")[1],
                          "the device kept its state")

    def test_emu_kill_ends_the_device(self):
        with VDeviceEnv(app="login") as env:
            r = env.server.adb("-s", env.serial, "emu", "kill")
            self.assertEqual(r.returncode, 0, r.stderr)
            env.device.proc.wait(timeout=20)
            self.assertEqual(env.device.proc.returncode, 0)

    def test_boot_after(self):
        with VDeviceEnv(app="login", device_args=["--boot-after", "2"]) as env:
            outs = [env.shell("getprop sys.boot_completed")[1] for _ in range(3)]
            self.assertEqual(outs, ["\n", "\n", "1\n"])

    def test_protocol_fuzz(self):
        """Well-framed packets with random services and payloads (fixed seed) never bring the device down."""
        import random
        rnd = random.Random(1234)

        def packet(cmd, a0, a1, data=b""):
            c = struct.unpack("<I", cmd)[0]
            return struct.pack("<6I", c, a0, a1, len(data), sum(data) & 0xffffffff, c ^ 0xffffffff) + data

        services = [b"shell,v2,raw:", b"shell:", b"exec:", b"sync:", b"", b"framebuffer:", b"jdwp:1"]
        words = [b"cat", b"ls", b"input", b"tap", b"uiautomator", b"dump", b"'", b'"', b"|", b"&&", b";", b">",
                 b"screencap", b"am", b"start", b"-n", b"pm", b"install", b"-S", b"99", b"$", b"${", b"\\", b"%s"]
        with VDeviceEnv(app="login") as env:
            port = env.device.port
            for round_ in range(30):
                with socket.create_connection(("127.0.0.1", port)) as s:
                    s.settimeout(5)
                    s.sendall(packet(b"CNXN", 0x01000001, 256 * 1024, b"host::\0"))
                    for i in range(40):
                        kind = rnd.randrange(4)
                        if kind == 0:
                            cmd = b" ".join(rnd.choice(words) for _ in range(rnd.randrange(6)))
                            s.sendall(packet(b"OPEN", rnd.randrange(1, 50), 0, rnd.choice(services) + cmd + b"\0"))
                        elif kind == 1:
                            s.sendall(packet(b"WRTE", rnd.randrange(0, 50), rnd.randrange(0, 50),
                                             bytes(rnd.randrange(256) for _ in range(rnd.randrange(64)))))
                        elif kind == 2:
                            s.sendall(packet(b"OKAY", rnd.randrange(0, 50), rnd.randrange(0, 50)))
                        else:
                            s.sendall(packet(b"CLSE", rnd.randrange(0, 50), rnd.randrange(0, 50)))
            self.assertTrue(env.device.alive)
            self.assertEqual(env.shell("echo alive"), (0, "alive\n", ""))

    def test_bad_app_models_are_refused_clearly(self):
        binary = find_vdevice()
        cases = {
            "package: com.x\nscreens: {}\n": "'screens' is empty",
            "package: com.x\nscreens:\n  a:\n    nodes:\n      - class: X\n": "'bounds' is required",
            "package: com.x\nscreens:\n  a:\n    nodes:\n      - bounds: [0,0,1,1]\n        colour: red\n":
                "unknown key 'colour'",
            "package: com.x\nscreens:\n  a:\n    nodes:\n      - bounds: [0,0,1,1]\n        on_tap: {go: b}\n":
                "'go: b' names no screen",
            "package: [\n": "YAML error",
            "": "the file is empty",
        }
        with tempfile.TemporaryDirectory() as d:
            for i, (text, msg) in enumerate(cases.items()):
                path = os.path.join(d, "bad%d.yaml" % i)
                with open(path, "w") as f:
                    f.write(text)
                r = subprocess.run([binary, "--app", path, "--announce", "none"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=30)
                self.assertEqual(r.returncode, 2, text)
                self.assertIn(msg, r.stderr.decode(), text)
        r = subprocess.run([binary, "--app", os.path.join(APPS_DIR, "login.yaml"), "--port", "5560"],
                           stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"outside 5555-5585", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
