"""qa_generate target appium end to end (issue 16): a run recorded through swipium-mcp on the virtual device (real adb)
against the hostile-label app, then the Appium suites qa_generate writes into the project, checked by their consumers:
tsc --noEmit against webdriverio 9 and the @wdio 9 types, node --check, py_compile and imports with Debian's
python3-selenium and the Appium client's module layout (appium/standin). Also: plan mode writes nothing and reports
primaryPlatform/platformSource, the password typed during the run is in no file, a name holding it is refused with
SECRET_IN_GENERATED_OUTPUT and nothing written. Run with /usr/bin/python3 via meson test."""

import glob
import json
import os
import re
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
import apkgen  # noqa: E402

PKG = "com.example.hostile"
PASSWORD = "s3cr3t-Pa55-appium"
NODE_MODULES = os.path.join(HERE, "node_modules")
STANDIN = os.path.join(HERE, "appium", "standin")


from gen_common import RecordedRun, code_of, is_error, sc  # noqa: E402



def text_matches(selector):
    """The pattern of a `new UiSelector().textMatches("...")` selector, its string literal unescaped as
    UiAutomator's selector parser does (backslash-quote, backslash-backslash)."""
    body = selector[len('new UiSelector().textMatches("'):-len('")')]
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append(body[i + 1])
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def java_matches(pairs):
    """For each (pattern, text): whether UiSelector.textMatches(pattern) takes an element showing text, by
    java.util.regex (the engine UiAutomator uses) when a JDK is here; else by Python's re, which reads these
    patterns the same way ((?is), .*, ASCII punctuation escaped with a backslash)."""
    if shutil.which("java"):
        p = subprocess.run(["java", os.path.join(HERE, "appium", "TextMatches.java")] + [x for pt in pairs for x in pt],
                           capture_output=True, text=True, timeout=180)
        assert p.returncode == 0, p.stderr
        return [line == "1" for line in p.stdout.split()]
    return [re.fullmatch(pat, text) is not None for pat, text in pairs]


class GenerateAppium(RecordedRun, unittest.TestCase):
    PREFIX = "sw-gen-appium-"
    PASSWORD = PASSWORD
    TOOL_TIMEOUT = 240

    @classmethod
    def setUpClass(cls):
        cls.open()
        cls.start_on_form()
        cls.tool("qa_snapshot", {"sessionId": cls.sid})
        for a in ({"action": "wait", "for": {"text": "He said \"hi\" & it's 'fine' \\ back"}},
                  {"action": "type", "target": {"id": "name"}, "text": "Ann"},
                  {"action": "type", "target": {"id": "password"}, "text": PASSWORD},
                  {"action": "tap", "target": {"text": "Line one"}},
                  {"action": "tap", "target": {"text": "close"}},
                  {"action": "tap", "target": {"text": "\u00dcberpr\u00fcfen"}},
                  {"action": "tap", "target": {"text": "Continue"}},
                  {"action": "tap", "target": {"text": "None"}},
                  {"action": "tap", "target": {"x": 540, "y": 1440}},
                  {"action": "wait", "for": {"text": "Pay the bill"}},
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
        self.assertEqual((sc(r)["primaryPlatform"], sc(r)["platformSource"]), ("android", "session_device"))
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
        # the agent's text assertion is a real assertion, its text only inside a string literal
        self.assertIn("await assertTextVisible('He said \\\"hi\\\" & it\\'s \\'fine\\' \\\\ back');", spec)
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
        # only sessionId: the emitter still looks at the session's project (its package.json)
        r = self.generate({"language": "auto", "save": False})
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
            r = self.generate({"language": "python"})  # the session's project, its pytest.ini
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
        # the text assertion looks for an element whose text contains the asserted text, case ignored as the flow
        # runner does: the UiSelector literal is read back as UiAutomator reads it and its regex run on texts
        title = "He said \"hi\" & it's 'fine' \\ back"
        patterns = [text_matches(f) for f in finds if f.startswith("new UiSelector().textMatches(")]
        self.assertTrue(patterns, finds)
        texts = [title, "Title: " + title.upper() + "!", title.replace("\\", "/"), "PAY THE BILL now", "Pay the bil"]
        m = java_matches([(p, t) for p in patterns for t in texts])
        rows = [dict(zip(texts, m[i * len(texts):(i + 1) * len(texts)])) for i in range(len(patterns))]
        own = [r for r in rows if r[title]]
        self.assertTrue(own, patterns)
        for r in own:
            self.assertTrue(r["Title: " + title.upper() + "!"], patterns)
            self.assertFalse(r[title.replace("\\", "/")], patterns)  # the backslash is literal, not regex
        # a part of a label on an element without an id: contained, as the flow runner matches it
        self.assertTrue(any(r["PAY THE BILL now"] for r in rows), patterns)
        self.assertFalse(any(r["Pay the bil"] for r in rows), patterns)
        self.assertGreaterEqual(len(fake.sent("/actions")), 2)  # the coordinate tap and the swipe

    def test_50_secret_in_name_is_refused(self):
        before = self.automation_files()
        r = self.generate({"language": "python", "name": "suite " + PASSWORD}, ok=False)
        self.assertTrue(is_error(r))
        self.assertEqual(code_of(r), "SECRET_IN_GENERATED_OUTPUT", json.dumps(r)[:1500])
        self.assertNotIn(PASSWORD, json.dumps(r))
        self.assertEqual(self.automation_files(), before)


class Bootstrap(unittest.TestCase):
    """target appium with nothing recorded: without sessionId it records first from projectRoot (one consent:
    install the project's APK, launch, a short crawl of safe controls), then writes the suite from that recording.
    What was touched is read from the device's touch log, never from what the server says."""

    APK_REL = "android/app/build/outputs/apk/debug/app-debug.apk"
    LIST = "com.example.list"  # the vdevice's list app: rows that open a detail screen, no login wall

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-gen-boot-")
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "tsconfig.json"), "w") as f:
            f.write("{}")
        apk = os.path.join(self.project, self.APK_REL)
        os.makedirs(os.path.dirname(apk))
        apkgen.write_apk(apk, apkgen.manifest(self.LIST, [("versionCode", apkgen.T_INT_DEC, 1),
                                                    ("versionName", apkgen.T_STRING, "1.0.0")]))
        self.touch_log = os.path.join(self.tmp, "touches.jsonl")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def touches(self):
        if not os.path.exists(self.touch_log):
            return []
        with open(self.touch_log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def swipium_files(self, root=None):
        root = root or self.project
        return sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, ".swipium", "**", "*"),
                                                                   recursive=True) if os.path.isfile(p))

    def server(self, env):
        e = dict(env.env)
        e["HOME"] = env.server.home
        s = Server(env=e)
        s.initialize()
        return s

    def test_records_first_then_writes_the_suite(self):
        with VDeviceEnv(app="list", device_args=["--touch-log", self.touch_log]) as env:
            s = self.server(env)
            try:
                args = {"target": "appium", "projectRoot": self.project}
                # plan: what would be done, nothing run or written
                r = s.tool("qa_generate", dict(args, mode="plan"), timeout=120)
                self.assertFalse(is_error(r), json.dumps(r)[:2000])
                p = sc(r)
                self.assertEqual([st["step"] for st in p["bootstrap"]["steps"]],
                                 ["resolve_project", "find_artifact", "pick_target", "prepare", "record"])
                self.assertEqual(p["appium"]["language"], "typescript")  # the project's tsconfig.json
                self.assertEqual(p["primaryPlatform"], "android")
                self.assertNotEqual(p["platformSource"], "session_device")  # there is no session device yet
                self.assertTrue(p["consent"]["required"])
                self.assertEqual(p["files"], [])
                self.assertEqual(self.touches(), [])
                self.assertEqual(self.swipium_files(), [])

                # bootstrap false: nothing recorded, nothing run, nothing written
                r = s.tool("qa_generate", dict(args, bootstrap=False), timeout=120)
                self.assertTrue(is_error(r))
                self.assertEqual(code_of(r), "NO_RECORDED_ACTIONS", json.dumps(r)[:1500])
                r = s.tool("qa_generate", dict(args, bootstrap="sometimes"), timeout=120)
                self.assertEqual(code_of(r), "INVALID_ARGUMENT", json.dumps(r)[:1500])
                self.assertEqual(self.touches(), [])

                # generate: one test_this_plan consent first, nothing touched before it
                envl = sc(s.tool("qa_generate", args, timeout=120))
                self.assertTrue(envl.get("requiresConsent"), envl)
                self.assertEqual(envl["action"], "test_this_plan")
                self.assertIn("install", envl["exactCommand"])
                self.assertEqual(self.touches(), [])
                self.assertEqual(self.swipium_files(), [])
                r = s.tool("qa_generate", dict(args, consentId=envl["consentId"], approve=True), timeout=300)
                self.assertFalse(is_error(r), json.dumps(r)[:3000])
                res = sc(r)
                sid = res["sessionId"]
                boot = res["bootstrap"]
                self.assertTrue(boot["prepared"]["installed"], boot)
                taps = [t for t in self.touches() if t["kind"] == "tap"]
                self.assertGreater(len(taps), 0, "the crawl touched nothing")
                self.assertGreater(res["steps"], 0)
                self.assertTrue(res["saved"])
                self.assertEqual(res["appium"]["language"], "typescript")
                self.assertEqual((res["primaryPlatform"], res["platformSource"]), ("android", "session_device"))
                root = os.path.join(self.project, ".swipium", "automation", "js")
                self.assertTrue(os.path.exists(os.path.join(root, "specs", "smoke.e2e.ts")))
                # every tap the crawl made is in the session's recording, which the other targets now read
                r = s.tool("qa_generate", {"sessionId": sid, "target": "flow"}, timeout=120)
                self.assertFalse(is_error(r), json.dumps(r)[:2000])
                self.assertEqual(sc(r)["steps"], res["steps"])
                # a second appium call with the session records nothing new (bootstrap auto is off with a session)
                before = len(self.touches())
                r = s.tool("qa_generate", {"sessionId": sid, "target": "appium", "mode": "plan"}, timeout=120)
                self.assertFalse(is_error(r), json.dumps(r)[:2000])
                self.assertNotIn("bootstrap", sc(r))
                self.assertEqual(len(self.touches()), before)
                tsc = os.path.join(NODE_MODULES, ".bin", "tsc")
                if os.path.exists(tsc):
                    link = os.path.join(root, "node_modules")
                    os.symlink(NODE_MODULES, link)
                    try:
                        p = subprocess.run([tsc, "--noEmit", "-p", root], capture_output=True, text=True,
                                           timeout=300)
                        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                    finally:
                        os.unlink(link)
            finally:
                s.close()

    def test_a_login_wall_records_nothing_and_writes_nothing(self):
        apk = os.path.join(self.project, self.APK_REL)
        apkgen.write_apk(apk, apkgen.manifest(PKG, [("versionCode", apkgen.T_INT_DEC, 1)]))
        with VDeviceEnv(app="hostile", device_args=["--touch-log", self.touch_log]) as env:
            s = self.server(env)
            try:
                args = {"target": "appium", "projectRoot": self.project}
                envl = sc(s.tool("qa_generate", args, timeout=120))
                r = s.tool("qa_generate", dict(args, consentId=envl["consentId"], approve=True), timeout=300)
                # the app opens on a password form: the strict crawl types nothing and stops at the wall
                self.assertTrue(is_error(r))
                self.assertEqual(code_of(r), "NO_RECORDED_ACTIONS", json.dumps(r)[:1500])
                self.assertIn("auth_wall", json.dumps(r))
                self.assertEqual([t for t in self.touches() if t["kind"] == "tap"], [])
                self.assertEqual([f for f in self.swipium_files() if "automation" in f], [])
            finally:
                s.close()

    def test_a_session_records_first_only_when_asked(self):
        with VDeviceEnv(app="list", device_args=["--touch-log", self.touch_log]) as env:
            s = self.server(env)
            try:
                sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
                args = {"sessionId": sid, "target": "appium", "language": "python"}
                # with a session, bootstrap auto is off: nothing recorded is NO_RECORDED_ACTIONS, nothing touched
                r = s.tool("qa_generate", args, timeout=120)
                self.assertEqual(code_of(r), "NO_RECORDED_ACTIONS", json.dumps(r)[:1500])
                self.assertEqual(self.touches(), [])
                # bootstrap true: the same consent, then the recording goes into this session
                envl = sc(s.tool("qa_generate", dict(args, bootstrap=True), timeout=120))
                self.assertEqual(envl.get("action"), "test_this_plan", envl)
                r = s.tool("qa_generate", dict(args, bootstrap=True, consentId=envl["consentId"], approve=True),
                           timeout=300)
                self.assertFalse(is_error(r), json.dumps(r)[:3000])
                self.assertEqual(sc(r)["sessionId"], sid)
                self.assertGreater(sc(r)["steps"], 0)
                self.assertEqual(sc(r)["appium"]["language"], "python")
                py = [p for p in self.swipium_files() if p.endswith(".py")]
                self.assertTrue(py)
                for p in py:
                    py_compile.compile(os.path.join(self.project, p), doraise=True,
                                       cfile=os.path.join(self.tmp, "pyc"))
                # recorded now: bootstrap true again records nothing more
                before = len(self.touches())
                r = s.tool("qa_generate", dict(args, bootstrap=True, mode="plan"), timeout=120)
                self.assertFalse(is_error(r), json.dumps(r)[:1500])
                self.assertNotIn("bootstrap", sc(r))
                self.assertEqual(len(self.touches()), before)
            finally:
                s.close()

    def test_ios_only_project_plan_names_the_project_profile(self):
        ios = os.path.join(self.tmp, "ios-app")
        os.makedirs(os.path.join(ios, "App.xcodeproj"))
        with VDeviceEnv(app="hostile", device_args=["--touch-log", self.touch_log]) as env:
            s = self.server(env)
            try:
                r = s.tool("qa_generate", {"target": "appium", "projectRoot": ios, "mode": "plan"}, timeout=120)
                self.assertFalse(is_error(r), json.dumps(r)[:2000])
                p = sc(r)
                self.assertEqual((p["primaryPlatform"], p["platformSource"]), ("ios", "project_profile"))
                r = s.tool("qa_generate", {"target": "appium", "projectRoot": ios, "mode": "plan",
                                           "platform": "android"}, timeout=120)
                self.assertEqual((sc(r)["primaryPlatform"], sc(r)["platformSource"]), ("android", "argument"))
                self.assertEqual(self.touches(), [])
                self.assertEqual(self.swipium_files(ios), [])
            finally:
                s.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
