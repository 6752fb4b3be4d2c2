"""The virtual device's autopilot app (tests/vdevice/apps/autopilot.yaml) through the real adb: the package
exists only once an APK that declares it is installed, Compose-style labels in child nodes, deep links to
any screen by activity, the crash and ANR tabs, signed-in state that survives the process dying, and the
touch log that records every touch with the element it landed on."""

import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from vdevice_env import VDeviceEnv  # noqa: E402
import apkgen  # noqa: E402

PKG = "com.example.autopilot"


def make_apk(path, package=PKG):
    """A small real APK (binary manifest in a deflated zip) that declares @package."""
    m = apkgen.manifest(package, [("versionCode", apkgen.T_INT_DEC, 31), ("versionName", apkgen.T_STRING, "3.1.0")])
    apkgen.write_apk(path, m)


def touches(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class AutopilotApp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-autopilot-app-")
        self.log = os.path.join(self.tmp, "touches.jsonl")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def env(self):
        return VDeviceEnv(app="autopilot", device_args=["--touch-log", self.log])

    def test_package_exists_only_after_installing_an_apk_that_declares_it(self):
        with self.env() as env:
            rc, out, _ = env.shell("pm list packages")
            self.assertNotIn("package:" + PKG, out.split())
            rc, out, err = env.shell("am start -n %s/.HomeActivity" % PKG)
            self.assertIn("does not exist", out + err)
            other = os.path.join(self.tmp, "other.apk")
            make_apk(other, "com.example.other")
            r = env.adb("install", other)
            self.assertEqual(r.returncode, 0, r)
            rc, out, _ = env.shell("pm list packages")
            self.assertIn("package:com.example.other", out.split())
            self.assertNotIn("package:" + PKG, out.split())
            apk = os.path.join(self.tmp, "receipts.apk")
            make_apk(apk)
            r = env.adb("install", apk)
            self.assertEqual(r.returncode, 0, r)
            rc, out, _ = env.shell("pm list packages")
            self.assertIn("package:" + PKG, out.split())

    def test_onboarding_labels_live_in_children_and_touches_are_logged(self):
        with self.env() as env:
            apk = os.path.join(self.tmp, "receipts.apk")
            make_apk(apk)
            self.assertEqual(env.adb("install", apk).returncode, 0)
            env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % PKG)
            rc, xml, _ = env.shell("uiautomator dump /dev/tty")
            self.assertIn('text="Skip"', xml)
            # the clickable parent of "Skip" has no text of its own
            self.assertRegex(xml, r'text="" resource-id="" class="android.view.View" package="%s" '
                                  r'content-desc="" checkable="false" checked="false" clickable="true"' % PKG)
            env.shell("input tap 270 2170")  # Skip
            rc, xml, _ = env.shell("uiautomator dump /dev/tty")
            self.assertIn("Sign in to Receipts", xml)
            t = touches(self.log)
            self.assertEqual(t[-1]["screen"], "onboarding")
            self.assertEqual(t[-1]["element"]["label"], "Skip")
            self.assertEqual(t[-1]["outcome"], "element")
            env.shell("input keyevent 4")
            self.assertEqual(touches(self.log)[-1]["kind"], "key")

    def test_deep_links_crash_anr_and_persisted_sign_in(self):
        with self.env() as env:
            apk = os.path.join(self.tmp, "receipts.apk")
            make_apk(apk)
            self.assertEqual(env.adb("install", apk).returncode, 0)
            for act, marker in ((".ProfileActivity", "Your profile"), (".PaywallActivity", "Go Pro"),
                                (".OtpActivity", "6-digit code"), (".HomeActivity", "Scan receipt")):
                env.shell("am start -n %s/%s" % (PKG, act))
                rc, xml, _ = env.shell("uiautomator dump /dev/tty")
                self.assertIn(marker, xml, act)
            env.shell("logcat -c")
            env.shell("input tap 405 2260")  # Insights: the app crashes
            rc, log, _ = env.shell("logcat -d")
            self.assertIn("FATAL EXCEPTION", log)
            # signed in survives the process dying: the launcher lands on home
            env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % PKG)
            rc, xml, _ = env.shell("uiautomator dump /dev/tty")
            self.assertIn("Scan receipt", xml)
            env.shell("input tap 675 2260")  # Live: ANR
            rc, log, _ = env.shell("logcat -d")
            self.assertIn("ANR in %s" % PKG, log)
            # pm clear forgets the sign-in: onboarding again
            env.shell("pm clear %s" % PKG)
            env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % PKG)
            rc, xml, _ = env.shell("uiautomator dump /dev/tty")
            self.assertIn("Every receipt, in one place", xml)
            labels = [x["element"]["label"] for x in touches(self.log) if x.get("element")]
            self.assertEqual(labels, ["Insights", "Live"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
