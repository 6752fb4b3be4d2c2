"""qa_generate target appium end to end (issue 16): a run recorded through swipium-mcp on the virtual device (real adb)
against the hostile-label app, then the Appium suites qa_generate writes into the project, checked by their consumers:
tsc --noEmit against webdriverio 9 and the @wdio 9 types, node --check, py_compile and imports with Debian's
python3-selenium and the Appium client's module layout (appium/standin). Also: plan mode writes nothing and reports
primaryPlatform/platformSource, the password typed during the run is in no file, a name holding it is refused with
SECRET_IN_GENERATED_OUTPUT and nothing written. Run with /usr/bin/python3 via meson test."""

import glob
import json
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402

PKG = "com.example.hostile"
PASSWORD = "s3cr3t-Pa55-appium"
NODE_MODULES = os.path.join(HERE, "node_modules")
STANDIN = os.path.join(HERE, "appium", "standin")


from gen_common import RecordedRun, code_of, is_error, sc  # noqa: E402


class GenerateAppium(RecordedRun, unittest.TestCase):
    PREFIX = "sw-gen-appium-"
    PASSWORD = PASSWORD
    TOOL_TIMEOUT = 240

    @classmethod
    def setUpClass(cls):
        cls.open()
        cls.start_on_form()
        cls.tool("qa_snapshot", {"sessionId": cls.sid})
        for a in ({"action": "type", "target": {"id": "name"}, "text": "Ann"},
                  {"action": "type", "target": {"id": "password"}, "text": PASSWORD},
                  {"action": "tap", "target": {"text": "Line one"}},
                  {"action": "tap", "target": {"text": "close"}},
                  {"action": "tap", "target": {"text": "\u00dcberpr\u00fcfen"}},
                  {"action": "tap", "target": {"text": "Continue"}},
                  {"action": "tap", "target": {"text": "None"}},
                  {"action": "tap", "target": {"x": 540, "y": 1440}},
                  {"action": "tap", "target": {"text": "Pay the bill"}},
                  {"action": "swipe", "direction": "up"}):
            a["sessionId"] = cls.sid
            cls.tool("qa_act", a)
        cls.tool("qa_visual", {"sessionId": cls.sid, "mode": "assert", "assertion": 'Logo "ok" */ """ ${x}'})

    @classmethod
    def tearDownClass(cls):
        cls.close()

    def automation_files(self):
        out = {}
        for p in glob.glob(os.path.join(self.project, ".swipium", "automation", "**", "*"), recursive=True):
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    out[os.path.relpath(p, self.project)] = f.read()
        return out

    def generate(self, args, ok=True):
        a = {"sessionId": self.sid, "target": "appium"}
        a.update(args)
        return self.tool("qa_generate", a, ok=ok)

    def assert_no_password(self):
        for path, data in self.automation_files().items():
            self.assertNotIn(PASSWORD.encode(), data, path)
            self.assertNotIn(PASSWORD, path)

    def test_10_plan_writes_nothing(self):
        before = self.automation_files()
        r = self.generate({"mode": "plan", "language": "typescript"})
        rep = sc(r)["appium"]
        self.assertEqual(rep["primaryPlatform"], "android")
        self.assertEqual(rep["platformSource"], "session_device")
        self.assertEqual(rep["language"], "typescript")
        self.assertFalse(sc(r)["saved"])
        self.assertEqual(self.automation_files(), before)
        self.assertNotIn(PASSWORD, json.dumps(r))

    def test_20_typescript_type_checks(self):
        r = self.generate({"language": "typescript", "includeCi": True})
        self.assertTrue(sc(r)["saved"], json.dumps(sc(r))[:1500])
        rep = sc(r)["appium"]
        self.assertEqual(rep["manualCheckpoints"], 1)
        self.assert_no_password()
        root = os.path.join(self.project, ".swipium", "automation", "js")
        with open(os.path.join(root, "specs", "smoke.e2e.ts"), encoding="utf-8") as f:
            spec = f.read()
        self.assertIn("requireEnv('SWIPIUM_TEST_PASSWORD')", spec)
        self.assertIn("TODO(manual visual check, not automated)", spec)
        self.assertIn("await swipe('up', null);", spec)
        tsc = os.path.join(NODE_MODULES, ".bin", "tsc")
        if not os.path.exists(tsc):
            self.skipTest("typescript is not installed (scripts/install-node-deps.sh)")
        link = os.path.join(root, "node_modules")
        os.symlink(NODE_MODULES, link)
        try:
            p = subprocess.run([tsc, "--noEmit", "-p", root], capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertGreater(len(glob.glob(os.path.join(root, "screens", "*.ts"))), 0)
            # The suite replays the recorded run: run it under wdio against a recording fake Appium server.
            wdio = os.path.join(NODE_MODULES, ".bin", "wdio")
            if os.path.exists(wdio):
                fake = self.replay([wdio, "run", "wdio.conf.ts"], root, {})
                self.check_commands(fake, 'new UiSelector().resourceId("com.example.hostile:id/name")')
        finally:
            os.unlink(link)

    def test_30_javascript_auto_from_package_json(self):
        # projectRoot given: qa_generate hands the emitter the root it resolved (see the notes on the session root)
        r = self.generate({"language": "auto", "save": False, "projectRoot": self.project})
        rep = sc(r)["appium"]
        self.assertEqual(rep["language"], "javascript")  # the project has a package.json and no TypeScript
        contents = sc(r)["contents"]
        with tempfile.TemporaryDirectory() as d:
            checked = 0
            for c in contents:
                path = os.path.join(d, c["path"])
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(c["content"])
            for c in contents:
                if c["path"].endswith(".js"):
                    p = subprocess.run(["node", "--check", os.path.join(d, c["path"])], capture_output=True,
                                       text=True, timeout=60)
                    self.assertEqual(p.returncode, 0, c["path"] + ": " + p.stderr)
                    checked += 1
            self.assertGreaterEqual(checked, 6)

    def test_40_python_imports(self):
        with open(os.path.join(self.project, "pytest.ini"), "w") as f:
            f.write("[pytest]\n")
        try:
            r = self.generate({"language": "python", "projectRoot": self.project})
        finally:
            os.unlink(os.path.join(self.project, "pytest.ini"))
        rep = sc(r)["appium"]
        self.assertEqual(rep["runner"], "pytest")
        self.assert_no_password()
        root = os.path.join(self.project, ".swipium", "automation", "python")
        modules = []
        for path in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
            py_compile.compile(path, doraise=True, cfile=os.path.join(self.tmp, "pyc"))
            rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
            modules.append(rel[: -len(".__init__")] if rel.endswith(".__init__") else rel)
        try:
            import selenium  # noqa: F401
            import pytest  # noqa: F401
        except ImportError as e:
            self.skipTest("python3-selenium / python3-pytest missing (scripts/install-deps.sh): %s" % e)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, STANDIN]), PYTHONDONTWRITEBYTECODE="1")
        code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
        p = subprocess.run([sys.executable, "-c", code] + modules, capture_output=True, text=True, cwd=root, env=env,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("tests.test_smoke", modules)
        fake = self.replay([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], root,
                           {"PYTHONPATH": os.pathsep.join([root, STANDIN])})
        self.check_commands(fake, "com.example.hostile:id/name")

    def replay(self, cmd, root, extra_env):
        """Runs a written suite against the recording fake Appium server; returns the server's record."""
        sys.path.insert(0, os.path.join(HERE, "appium"))
        from fake_webdriver import FakeAppium
        with FakeAppium() as fake:
            env = dict(os.environ, APPIUM_HOST=fake.url, SWIPIUM_PLATFORM="android", SWIPIUM_WAIT_MS="3000",
                       SWIPIUM_TEST_PASSWORD=PASSWORD, PYTHONDONTWRITEBYTECODE="1", **extra_env)
            p = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-2000:])
        return fake

    def check_commands(self, fake, name_field):
        """The replay typed what the agent typed (the password from the environment) into the recorded fields."""
        session = fake.sent("/session")[0]["capabilities"]["alwaysMatch"]
        self.assertEqual(session.get("appium:appPackage"), PKG)
        self.assertEqual([b.get("text") for b in fake.sent("/value")], ["Ann", PASSWORD])
        finds = [b["value"] for b in fake.sent("/element")]
        self.assertIn(name_field, finds)
        self.assertGreaterEqual(len(fake.sent("/actions")), 2)  # the coordinate tap and the swipe

    def test_50_secret_in_name_is_refused(self):
        before = self.automation_files()
        r = self.generate({"language": "python", "name": "suite " + PASSWORD}, ok=False)
        self.assertTrue(is_error(r))
        self.assertEqual(code_of(r), "SECRET_IN_GENERATED_OUTPUT", json.dumps(r)[:1500])
        self.assertNotIn(PASSWORD, json.dumps(r))
        self.assertEqual(self.automation_files(), before)


if __name__ == "__main__":
    unittest.main(verbosity=2)
