"""qa_bundletool through a real swipium-mcp: bundletool missing (AAB_NEEDS_BUNDLETOOL at once, no job), no bundle
(NO_BUILD_ARTIFACT), a conversion by a bundletool stand-in (tests/integration/standins/bundletool) that writes a real
APK set around Appium's real ApiDemos-debug.apk from npm, the cache (reused while newer than the bundle, force
rebuilds), BUNDLETOOL_JAR through `java -jar`, a signing failure and a set without universal.apk (typed codes, the
log kept, nothing half-written), a secret printed by bundletool kept out of the log, and connectedDevice + install on
the virtual device behind the install_app consent.

The .aab files are written here (a zip with base/manifest/AndroidManifest.xml and BundleConfig.pb: the stand-in
does not read them); the APK inside the set is the real one."""
import json
import os
import shutil
import sys
import tempfile
import time
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402
from test_artifacts import fetch_real_apks  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
APIDEMOS_APP = os.path.join(SOURCE_ROOT, "tests", "data", "android", "apidemos.yaml")
STANDIN = os.path.join(HERE, "standins", "bundletool")


def sc(resp):
    return resp["result"]["structuredContent"]


def write_aab(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("BundleConfig.pb", b"\x0a\x05\x0a\x031.15")
        z.writestr("base/manifest/AndroidManifest.xml", b"\x0a\x1cio.appium.android.apis")
        z.writestr("base/dex/classes.dex", b"dex\n035\x00")


class Bundletool(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        real, skipped = fetch_real_apks()
        if "android-apidemos" not in real:
            raise unittest.SkipTest("ApiDemos not fetched: %s" % skipped.get("android-apidemos"))
        cls.apidemos = real["android-apidemos"][0]

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-bundletool-")
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write("{}")
        self.aab = os.path.join(self.project, "app", "build", "outputs", "bundle", "debug", "app-debug.aab")
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        self.calls = os.path.join(self.tmp, "calls.jsonl")
        # a PATH with the basics (python3 for the stand-in) but no real bundletool or java
        self.base_path = os.path.join(self.tmp, "sysbin")
        os.makedirs(self.base_path)
        # the interpreter itself (a pyenv shim is a bash script, and bash is not on this PATH)
        os.symlink(os.path.realpath(sys.executable), os.path.join(self.base_path, "python3"))
        self.env = {"STANDIN_APK": self.apidemos, "STANDIN_CALLS": self.calls,
                    "PATH": self.bin + ":" + self.base_path}
        self.artifacts = os.path.join(self.project, ".swipium", "artifacts")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def with_standin(self, name="bundletool"):
        os.symlink(STANDIN, os.path.join(self.bin, name))

    def server(self, extra=None, base=None):
        e = dict(base or os.environ)
        e.update({"HOME": self.home, "TMPDIR": self.tmp})
        e.pop("BUNDLETOOL_JAR", None)
        e.update(self.env)
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        self.addCleanup(s.close)
        return s

    def session(self, s):
        r = s.tool("qa_start_session", {"projectRoot": self.project})
        self.assertFalse(r["result"].get("isError"), r)
        return sc(r)["sessionId"]

    def first_call(self):
        with open(self.calls) as f:
            return f.read().splitlines()[0]

    def ncalls(self):
        if not os.path.exists(self.calls):
            return 0
        with open(self.calls) as f:
            return len(f.read().splitlines())

    def wait(self, s, sid, job):
        self.assertEqual(job.get("status"), "running", job)
        return sc(s.tool("qa_job_status", {"sessionId": sid, "jobId": job["jobId"], "waitMs": 45000}))

    # ---- before any job ---------------------------------------------------------------------

    def test_missing_bundletool_answers_at_once(self):
        write_aab(self.aab)
        s = self.server()
        sid = self.session(s)
        r = s.tool("qa_bundletool", {"sessionId": sid})
        c = sc(r)
        self.assertTrue(r["result"]["isError"])
        self.assertEqual(c["failureCode"], "AAB_NEEDS_BUNDLETOOL", c)
        self.assertNotIn("jobId", c)
        self.assertIn("BUNDLETOOL_JAR", json.dumps(c))
        self.assertFalse(os.path.exists(os.path.join(self.artifacts, "app-debug-universal.apk")))
        # a BUNDLETOOL_JAR that is not there does not count either
        s2 = self.server({"BUNDLETOOL_JAR": os.path.join(self.tmp, "nope.jar")})
        sid2 = self.session(s2)
        c = sc(s2.tool("qa_bundletool", {"sessionId": sid2}))
        self.assertEqual(c["failureCode"], "AAB_NEEDS_BUNDLETOOL", c)
        self.assertIn("no such file", json.dumps(c))

    def test_no_bundle(self):
        self.with_standin()
        s = self.server()
        sid = self.session(s)
        c = sc(s.tool("qa_bundletool", {"sessionId": sid}))
        self.assertEqual(c["failureCode"], "NO_BUILD_ARTIFACT", c)
        c = sc(s.tool("qa_bundletool", {"sessionId": sid, "aab": "missing.aab"}))
        self.assertEqual(c["failureCode"], "NO_BUILD_ARTIFACT", c)
        self.assertEqual(self.ncalls(), 0)

    def test_bundle_outside_the_project(self):
        self.with_standin()
        outside = os.path.join(self.tmp, "elsewhere", "x.aab")
        write_aab(outside)
        s = self.server()
        sid = self.session(s)
        c = sc(s.tool("qa_bundletool", {"sessionId": sid, "aab": "../elsewhere/x.aab"}))
        self.assertEqual(c["failureCode"], "ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL", c)
        self.assertEqual(self.ncalls(), 0)

    # ---- conversion and cache ---------------------------------------------------------------

    def test_convert_then_cache_then_force(self):
        write_aab(self.aab)
        self.with_standin()
        s = self.server()
        sid = self.session(s)
        st = self.wait(s, sid, sc(s.tool("qa_bundletool", {"sessionId": sid})))
        self.assertEqual(st["status"], "done", st)
        res = st["result"]
        apk = os.path.join(os.path.realpath(self.artifacts), "app-debug-universal.apk")
        self.assertEqual(res["generatedApk"], apk)
        self.assertEqual(res["apksPath"], os.path.join(os.path.realpath(self.artifacts), "app-debug.apks"))
        self.assertEqual(res["originalArtifact"], os.path.realpath(self.aab))
        self.assertTrue(res["converted"])
        self.assertFalse(res["fromCache"])
        self.assertIn("build-apks --bundle %s --output %s --overwrite --mode universal"
                      % (os.path.realpath(self.aab), res["apksPath"]), res["command"])
        with open(apk, "rb") as a, open(self.apidemos, "rb") as b:
            self.assertEqual(a.read(), b.read())  # universal.apk copied out whole
        self.assertTrue(res["logUri"].startswith("swipium://session/%s/" % sid), res)
        call = json.loads(self.first_call())
        self.assertEqual(call["argv"], ["build-apks", "--bundle", os.path.realpath(self.aab), "--output",
                                        res["apksPath"], "--overwrite", "--mode", "universal"])
        self.assertEqual(os.path.realpath(call["cwd"]), os.path.realpath(self.project))
        # the resolver now finds the generated APK? no: .swipium is never walked; the agent gets its path
        # cached: no job, bundletool not run
        r = s.tool("qa_bundletool", {"sessionId": sid})
        c = sc(r)
        self.assertFalse(r["result"].get("isError"), r)
        self.assertNotIn("jobId", c)
        self.assertTrue(c["fromCache"])
        self.assertEqual(c["generatedApk"], apk)
        self.assertEqual(self.ncalls(), 1)
        # force rebuilds
        st = self.wait(s, sid, sc(s.tool("qa_bundletool", {"sessionId": sid, "force": True})))
        self.assertEqual(st["status"], "done", st)
        self.assertFalse(st["result"]["fromCache"])
        self.assertEqual(self.ncalls(), 2)
        # a newer bundle rebuilds too
        later = time.time() + 5
        os.utime(self.aab, (later, later))
        st = self.wait(s, sid, sc(s.tool("qa_bundletool", {"sessionId": sid})))
        self.assertEqual(st["status"], "done", st)
        self.assertEqual(self.ncalls(), 3)

    def test_bundletool_jar_runs_through_java(self):
        write_aab(self.aab)
        self.with_standin("java")
        jar = os.path.join(self.tmp, "bundletool-all-1.15.6.jar")
        with open(jar, "wb") as f:
            f.write(b"PK\x05\x06" + b"\x00" * 18)
        s = self.server({"BUNDLETOOL_JAR": jar})
        sid = self.session(s)
        st = self.wait(s, sid, sc(s.tool("qa_bundletool", {"sessionId": sid})))
        self.assertEqual(st["status"], "done", st)
        call = json.loads(self.first_call())
        self.assertEqual(call["prog"], "java")
        self.assertEqual(call["argv"][:3], ["-jar", jar, "build-apks"])
        self.assertTrue(st["result"]["command"].startswith("java -jar " + jar + " build-apks"), st["result"])

    def test_signing_failure_is_typed_and_leaves_nothing(self):
        write_aab(self.aab)
        self.with_standin()
        s = self.server({"STANDIN_MODE": "signing"})
        sid = self.session(s)
        st = self.wait(s, sid, sc(s.tool("qa_bundletool", {"sessionId": sid})))
        self.assertEqual(st["status"], "failed", st)
        self.assertEqual(st["result"]["failureCode"], "ANDROID_SIGNING_FAILED", st)
        self.assertIn("Keystore was tampered with", st["result"]["what"])
        log_uri = st["result"]["details"]["logUri"]
        self.assertIn(log_uri, st["artifactUris"]) if st.get("artifactUris") else None
        r = s.tool("qa_get_artifact", {"uri": log_uri})
        self.assertIn("Unable to load the keystore", json.dumps(r))
        self.assertFalse(os.path.exists(os.path.join(self.artifacts, "app-debug-universal.apk")))
        self.assertEqual([f for f in os.listdir(self.artifacts) if ".part" in f], [])

    def test_set_without_universal_apk(self):
        write_aab(self.aab)
        self.with_standin()
        s = self.server({"STANDIN_MODE": "no-universal"})
        sid = self.session(s)
        st = self.wait(s, sid, sc(s.tool("qa_bundletool", {"sessionId": sid})))
        self.assertEqual(st["status"], "failed", st)
        self.assertEqual(st["result"]["failureCode"], "AAB_BUILD_APKS_FAILED", st)
        self.assertIn("universal.apk", st["result"]["what"])
        self.assertFalse(os.path.exists(os.path.join(self.artifacts, "app-debug-universal.apk")))

    def test_planted_link_is_refused(self):
        write_aab(self.aab)
        self.with_standin()
        os.makedirs(self.artifacts)
        victim = os.path.join(self.tmp, "victim")
        with open(victim, "w") as f:
            f.write("keep me")
        os.symlink(victim, os.path.join(self.artifacts, "app-debug.apks"))
        s = self.server()
        sid = self.session(s)
        st = self.wait(s, sid, sc(s.tool("qa_bundletool", {"sessionId": sid})))
        self.assertEqual(st["status"], "failed", st)
        self.assertEqual(st["result"]["failureCode"], "UNSAFE_ACTION_REFUSED", st)
        with open(victim) as f:
            self.assertEqual(f.read(), "keep me")
        self.assertEqual(self.ncalls(), 0)

    def test_secret_printed_by_bundletool_stays_out_of_the_log(self):
        write_aab(self.aab)
        self.with_standin()
        secret = "Str0ngKeystorePass!42"
        s = self.server({"STANDIN_MODE": "secret", "STANDIN_SECRET": secret})
        sid = self.session(s)
        # the secret is registered as the person's answer to a credentials blocker
        r = s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                                "values": {"password": secret}})
        self.assertFalse(r["result"].get("isError"), r)
        st = self.wait(s, sid, sc(s.tool("qa_bundletool", {"sessionId": sid})))
        self.assertEqual(st["status"], "done", st)
        r = s.tool("qa_get_artifact", {"uri": st["result"]["logUri"]})
        body = json.dumps(r)
        self.assertIn("using signing password", body)
        if secret in body:
            self.fail("the registered secret reached the bundletool log")
        for root, _, files in os.walk(os.path.join(self.home, ".swipium")):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    self.assertNotIn(secret.encode(), fh.read(), f)

    # ---- the device -------------------------------------------------------------------------

    def test_connected_device_install_behind_consent(self):
        write_aab(self.aab)
        self.with_standin()
        with VDeviceEnv(app=APIDEMOS_APP) as env:
            s = self.server({"PATH": self.bin + ":" + env.env.get("PATH", os.environ["PATH"])}, base=env.env)
            sid = self.session(s)
            args = {"sessionId": sid, "connectedDevice": True, "install": True}
            c = sc(s.tool("qa_bundletool", args))
            self.assertTrue(c.get("requiresConsent"), c)
            self.assertEqual(c["action"], "install_app")
            self.assertEqual(c["risk"], "medium")
            self.assertIn("'build-apks' '--bundle'", c.get("exactCommand", ""))
            self.assertIn("'adb' 'install' '-r'", c.get("exactCommand", ""))
            self.assertEqual(self.ncalls(), 0)  # nothing ran while asking
            args.update({"consentId": c["consentId"], "approve": True})
            st = self.wait(s, sid, sc(s.tool("qa_bundletool", args)))
            self.assertEqual(st["status"], "done", st)
            self.assertTrue(st["result"]["installed"], st)
            self.assertEqual(st["result"]["device"]["serial"], env.serial)
            self.assertEqual(st["result"]["deviceCheck"]["minSdk"], 17)
            _, out, _ = env.shell("pm list packages io.appium.android.apis")
            self.assertIn("package:io.appium.android.apis", out.split())
            # install without connectedDevice is refused
            c = sc(s.tool("qa_bundletool", {"sessionId": sid, "install": True}))
            self.assertEqual(c["failureCode"], "INVALID_ARGUMENT")


if __name__ == "__main__":
    unittest.main(verbosity=2)
