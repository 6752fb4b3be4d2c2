"""qa_prepare_target installs through a real swipium-mcp, the real adb and the virtual device: the prepare_plan gate
(low inside the project, medium for an APK outside it or symlinked out of it, the whole SHA-256 in the prompt), an
installed app launched without a prompt unless force, the ABI / minSdk comparison before anything is sent, and the
device's own refusals (ABI, SDK, signature) mapped to their codes with the code in the job record.

The APKs are real: Appium's ApiDemos-debug.apk and appium-unlock's APK from npm (tests/data/apks/real-apks.json,
fetched with `npm pack`). Variants are made from them: native folders appended (the name is what matters), the
signature block of the other APK swapped in (another signer), and one manifest written from scratch with a preview
codename as minSdkVersion (apkgen.py, hand-written)."""
import hashlib
import json
import os
import shutil
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402
from test_artifacts import fetch_real_apks  # noqa: E402
import apkgen as g  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
APIDEMOS_APP = os.path.join(SOURCE_ROOT, "tests", "data", "android", "apidemos.yaml")
PKG = "io.appium.android.apis"


def sc(resp):
    return resp["result"]["structuredContent"]


def text(resp):
    return "\n".join(c.get("text", "") for c in resp["result"]["content"])


class InstallChecks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.real, cls.skipped = fetch_real_apks()
        if "android-apidemos" not in cls.real or "appium-unlock" not in cls.real:
            raise unittest.SkipTest("real APKs not fetched: %s" % cls.skipped)
        cls.apidemos = cls.real["android-apidemos"][0]
        cls.unlock = cls.real["appium-unlock"][0]

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-install-checks-")
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(os.path.join(self.project, "build"))
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write("{}")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- helpers ------------------------------------------------------------------------------

    def server(self, env, extra=None):
        e = dict(env.env)
        e["HOME"] = env.server.home
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        self.addCleanup(s.close)
        return s

    def session(self, s):
        r = s.tool("qa_start_session", {"projectRoot": self.project})
        self.assertFalse(r["result"].get("isError"), r)
        return sc(r)["sessionId"]

    def apk(self, name, src=None, add=(), cert_from=None):
        """A copy of @src (default ApiDemos) in the project's build/, with entries added or the v1 signature block
        of @cert_from swapped in."""
        path = os.path.join(self.project, "build", name)
        src = src or self.apidemos
        if cert_from is None:
            shutil.copyfile(src, path)
        else:
            with zipfile.ZipFile(cert_from) as z:
                other = [n for n in z.namelist() if n.startswith("META-INF/") and n.endswith(".RSA")][0]
                other_cert = z.read(other)
            with zipfile.ZipFile(src) as zi, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zo:
                for info in zi.infolist():
                    data = zi.read(info.filename)
                    if info.filename.startswith("META-INF/") and info.filename.endswith(".RSA"):
                        data = other_cert
                    zo.writestr(info, data)
        if add:
            with zipfile.ZipFile(path, "a") as z:
                for n, data in add:
                    z.writestr(n, data)
        return path

    def install(self, s, sid, apk, **kw):
        """Asks, approves, waits: (the consent envelope, the final job record)."""
        args = {"sessionId": sid, "apk": apk}
        args.update(kw)
        r = s.tool("qa_prepare_target", args)
        first = sc(r)
        if not first.get("requiresConsent"):
            return first, None
        args.update({"consentId": first["consentId"], "approve": True})
        r = s.tool("qa_prepare_target", args)
        job = sc(r)
        self.assertEqual(job.get("status"), "running", job)
        r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job["jobId"], "waitMs": 45000})
        return first, sc(r)

    def installed(self, env, pkg=PKG):
        return ("package:" + pkg) in env.shell("pm list packages " + pkg)[1].split()

    # ---- the gate -----------------------------------------------------------------------------

    def test_inside_low_outside_medium_with_the_whole_hash(self):
        apk = self.apk("ApiDemos-debug.apk")
        outside = os.path.join(self.tmp, "outside.apk")
        shutil.copyfile(self.apidemos, outside)
        link = os.path.join(self.project, "build", "linked.apk")
        os.symlink(outside, link)
        with open(apk, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        with VDeviceEnv(app=APIDEMOS_APP) as env:
            s = self.server(env)
            sid = self.session(s)
            for path, risk in (("build/ApiDemos-debug.apk", "low"), (outside, "medium"),
                               ("build/linked.apk", "medium"), ("../outside.apk", "medium")):
                with self.subTest(path=path):
                    r = s.tool("qa_prepare_target", {"sessionId": sid, "apk": path})
                    c = sc(r)
                    self.assertTrue(c.get("requiresConsent"), c)
                    self.assertEqual(c["action"], "prepare_plan")
                    self.assertEqual(c["risk"], risk)
                    self.assertEqual(c["affects"]["sha256"], sha)
                    self.assertIn(sha, text(r))
                    self.assertEqual(c["affects"]["insideProjectRoot"], risk == "low")
            # nothing was installed while asking
            self.assertFalse(self.installed(env))

    def test_declined_installs_nothing(self):
        apk = self.apk("ApiDemos-debug.apk")
        with VDeviceEnv(app=APIDEMOS_APP) as env:
            s = self.server(env)
            sid = self.session(s)
            c = sc(s.tool("qa_prepare_target", {"sessionId": sid, "apk": apk}))
            r = s.tool("qa_prepare_target", {"sessionId": sid, "apk": apk, "consentId": c["consentId"],
                                             "approve": False})
            self.assertEqual(sc(r)["failureCode"], "CONSENT_DECLINED")
            self.assertFalse(self.installed(env))

    def test_install_launches_the_apks_app_then_installed_app_skips_the_prompt(self):
        apk = self.apk("ApiDemos-debug.apk")
        with VDeviceEnv(app=APIDEMOS_APP) as env:
            s = self.server(env)
            sid = self.session(s)
            first, st = self.install(s, sid, apk)
            self.assertTrue(first.get("requiresConsent"))
            self.assertEqual(st["status"], "done", st)
            res = st["result"]
            self.assertTrue(res["installed"])
            self.assertEqual(res["appId"], PKG)  # launched the APK's own app id
            self.assertTrue(res["foregroundIsApp"], res)
            self.assertEqual(res["installCheck"]["deviceSdk"], 33)
            self.assertEqual(res["installCheck"]["minSdk"], 17)
            self.assertTrue(self.installed(env))
            # already installed: no prompt, no install, launched
            r = s.tool("qa_prepare_target", {"sessionId": sid, "apk": apk})
            c = sc(r)
            self.assertFalse(c.get("requiresConsent"), c)
            self.assertFalse(r["result"].get("isError"), r)
            self.assertFalse(c["installed"])
            self.assertIn("already installed", c["install"]["skipped"])
            self.assertTrue(c["foregroundIsApp"])
            # force: asked again
            c = sc(s.tool("qa_prepare_target", {"sessionId": sid, "apk": apk, "force": True}))
            self.assertTrue(c.get("requiresConsent"), c)

    # ---- checked before anything is sent ------------------------------------------------------

    def test_arch_incompatible_before_install(self):
        apk = self.apk("arm-only.apk", add=[("lib/armeabi-v7a/libnative.so", b"\x7fELF")])
        with VDeviceEnv(app=APIDEMOS_APP) as env:
            s = self.server(env)
            sid = self.session(s)
            _, st = self.install(s, sid, apk)
            self.assertEqual(st["status"], "failed", st)
            self.assertEqual(st["result"]["failureCode"], "APK_ARCH_INCOMPATIBLE", st)
            self.assertIn("armeabi-v7a", st["result"]["what"])
            self.assertEqual(st["result"]["details"]["deviceAbis"], ["x86_64", "arm64-v8a"])
            self.assertFalse(self.installed(env))
            # the vdevice was never asked: no install in its log
            self.assertNotIn("codePath changed", env.shell("logcat -d")[1])

    def test_min_sdk_incompatible_before_install(self):
        apk = self.apk("ApiDemos-debug.apk")  # minSdk 17
        with VDeviceEnv(app=APIDEMOS_APP, device_args=["--prop", "ro.build.version.sdk=16"]) as env:
            s = self.server(env)
            sid = self.session(s)
            _, st = self.install(s, sid, apk)
            self.assertEqual(st["status"], "failed", st)
            self.assertEqual(st["result"]["failureCode"], "ANDROID_MIN_SDK_INCOMPATIBLE", st)
            self.assertEqual(st["result"]["details"]["minSdk"], 17)
            self.assertEqual(st["result"]["details"]["deviceSdk"], 16)
            self.assertFalse(self.installed(env))

    # ---- the device's own refusals -------------------------------------------------------------

    def test_device_refuses_abi_when_it_does_not_list_them(self):
        apk = self.apk("arm-only.apk", add=[("lib/armeabi-v7a/libnative.so", b"\x7fELF")])
        with VDeviceEnv(app=APIDEMOS_APP, device_args=["--prop", "ro.product.cpu.abilist="]) as env:
            s = self.server(env)
            sid = self.session(s)
            _, st = self.install(s, sid, apk)
            self.assertEqual(st["status"], "failed", st)
            self.assertEqual(st["result"]["failureCode"], "APK_ARCH_INCOMPATIBLE", st)
            self.assertIn("INSTALL_FAILED_NO_MATCHING_ABIS", st["result"]["what"])
            self.assertFalse(self.installed(env))

    def test_device_refuses_a_preview_sdk(self):
        path = os.path.join(self.project, "build", "preview.apk")
        g.write_apk(path, g.manifest(PKG, [("versionCode", g.T_INT_DEC, 1), ("versionName", g.T_STRING, "1.0")],
                                     [("minSdkVersion", g.T_STRING, "UpsideDownCake")]))
        with VDeviceEnv(app=APIDEMOS_APP) as env:
            s = self.server(env)
            sid = self.session(s)
            _, st = self.install(s, sid, path)
            self.assertEqual(st["status"], "failed", st)
            self.assertEqual(st["result"]["failureCode"], "ANDROID_MIN_SDK_INCOMPATIBLE", st)
            self.assertIn("Requires development platform UpsideDownCake", st["result"]["what"])

    def test_device_refuses_another_signer_and_nothing_is_uninstalled(self):
        first_apk = self.apk("ApiDemos-debug.apk")
        other = self.apk("ApiDemos-other-signer.apk", cert_from=self.unlock)
        with VDeviceEnv(app=APIDEMOS_APP) as env:
            s = self.server(env)
            sid = self.session(s)
            _, st = self.install(s, sid, first_apk)
            self.assertEqual(st["status"], "done", st)
            _, st = self.install(s, sid, other, force=True)
            self.assertEqual(st["status"], "failed", st)
            self.assertEqual(st["result"]["failureCode"], "ANDROID_SIGNATURE_CONFLICT", st)
            self.assertIn("signatures do not match", st["result"]["what"])
            # the installed app stays: never uninstalled to get past the conflict
            self.assertTrue(self.installed(env))
            log = env.shell("logcat -d")[1]
            self.assertNotIn("uninstall", log.lower())
            # the same signer again is fine
            _, st = self.install(s, sid, first_apk, force=True)
            self.assertEqual(st["status"], "done", st)

    def test_not_an_apk_is_left_to_the_device(self):
        lfs = os.path.join(self.project, "build", "lfs.apk")
        with open(lfs, "w") as f:
            f.write("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize 6012345\n" % ("ab" * 32))
        with VDeviceEnv(app=APIDEMOS_APP) as env:
            s = self.server(env)
            sid = self.session(s)
            first, st = self.install(s, sid, lfs)
            self.assertTrue(first["requiresConsent"])
            # the vdevice takes any non-zip as its model's app (see docs/vdevice.md); the point is that the gate
            # and the job cope with an APK whose metadata cannot be read
            self.assertIn(st["status"], ("done", "failed"), st)

    def test_missing_apk(self):
        with VDeviceEnv(app=APIDEMOS_APP) as env:
            s = self.server(env)
            sid = self.session(s)
            r = s.tool("qa_prepare_target", {"sessionId": sid, "apk": "build/nope.apk"})
            self.assertEqual(sc(r)["failureCode"], "NO_ARTIFACT")
            self.assertIn("nope.apk", sc(r)["what"] if "what" in sc(r) else text(r))


if __name__ == "__main__":
    unittest.main(verbosity=2)
