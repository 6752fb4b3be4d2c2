"""qa_test_feature through a real MCP client, the real adb and the virtual device's autopilot app
(tests/vdevice/apps/autopilot.yaml). The project is a small native Android tree whose manifest declares the app's
activities, so the app map's code scan knows the features; what was touched is read from the device's touch log,
never from what the server says it did."""

import glob
import json
import os
import shutil
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402
import apkgen  # noqa: E402

PKG = "com.example.autopilot"
APK_REL = "app/build/outputs/apk/debug/app-debug.apk"
ACTIVITIES = ["Main", "Onboarding", "Login", "SignUp", "Otp", "Home", "Receipt", "Profile", "Settings", "About",
              "Licenses", "Paywall"]
# every control of the app that must never be touched on the tool's own initiative
DESTRUCTIVE = {"Log out", "Delete account", "Upgrade to Pro", "Invite friends", "Export my data",
               "Clear all receipts", "Send feedback", "Share receipt", "While using the app", "Only this time",
               "Don't allow", "Subscribe for $4.99/month", "Start free trial", "Delete", "Sign in", "Sign up",
               "Create account", "Verify"}


def sc(resp):
    return resp["result"]["structuredContent"]


def write_project(root):
    os.makedirs(os.path.join(root, "app", "src", "main", "java", "com", "example", "autopilot"))
    with open(os.path.join(root, "settings.gradle"), "w") as f:
        f.write("rootProject.name = \"Receipts\"\ninclude ':app'\n")
    with open(os.path.join(root, "app", "build.gradle"), "w") as f:
        f.write("android {\n    namespace 'com.example.autopilot'\n"
                "    defaultConfig { applicationId \"com.example.autopilot\" }\n}\n")
    acts = "\n".join('    <activity android:name=".%sActivity"/>' % a for a in ACTIVITIES[1:])
    with open(os.path.join(root, "app", "src", "main", "AndroidManifest.xml"), "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n'
                '<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="%s">\n'
                '  <application android:label="Receipts">\n'
                '    <activity android:name=".MainActivity" android:exported="true"><intent-filter>'
                '<action android:name="android.intent.action.MAIN"/>'
                '<category android:name="android.intent.category.LAUNCHER"/></intent-filter></activity>\n'
                '%s\n  </application>\n</manifest>\n' % (PKG, acts))
    for a in ACTIVITIES:
        with open(os.path.join(root, "app", "src", "main", "java", "com", "example", "autopilot",
                               "%sActivity.kt" % a), "w") as f:
            f.write("package com.example.autopilot\n\nclass %sActivity : android.app.Activity()\n" % a)


class Base(unittest.TestCase):
    device_args = ()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-feature-")
        self.project = os.path.join(self.tmp, "receipts")
        write_project(self.project)
        self.touch_log = os.path.join(self.tmp, "touches.jsonl")
        self.apk = os.path.join(self.tmp, "receipts.apk")
        m = apkgen.manifest(PKG, [("versionCode", apkgen.T_INT_DEC, 31), ("versionName", apkgen.T_STRING, "3.1.0")])
        apkgen.write_apk(self.apk, m)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def env(self):
        return VDeviceEnv(app="autopilot", device_args=["--touch-log", self.touch_log] + list(self.device_args))

    def touches(self):
        if not os.path.exists(self.touch_log):
            return []
        with open(self.touch_log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def touched_labels(self):
        return [t["element"]["label"] for t in self.touches() if t.get("element")]

    def server(self, env, extra=None):
        e = dict(env.env)
        e["HOME"] = env.server.home
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        return s

    def close(self, s):
        """Closes the server; it must exit cleanly (under SWIPIUM_MCP_WRAPPER=valgrind, with no error)."""
        code = s.close()
        self.assertEqual(code, 0, s.stderr[-4000:])

    def start(self, env, s, screen=".HomeActivity"):
        """Installs the app, opens @screen by activity (None: the launcher) and binds a session to it."""
        self.assertEqual(env.adb("install", self.apk).returncode, 0)
        if screen:
            env.shell("am start -n %s/%s" % (PKG, screen))
        r = s.tool("qa_start_session", {"projectRoot": self.project,
                                        "budget": {"maxActions": 1000, "maxNoChangeActions": 1000}})
        self.assertFalse(r["result"].get("isError"), r)
        sid = sc(r)["sessionId"]
        r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": PKG})
        self.assertFalse(r["result"].get("isError"), r)
        return sid

    def feature(self, s, args):
        return s.tool("qa_test_feature", args, timeout=120)

    def run_job(self, s, sid, wait=True, **args):
        a = {"sessionId": sid, "mode": "execute"}
        a.update(args)
        r = self.feature(s, a)
        self.assertFalse(r["result"].get("isError"), r)
        self.assertEqual(sc(r)["state"], "running", r)
        job = sc(r)["jobId"]
        if not wait:
            return job, None
        return job, self.wait_job(s, sid, job)

    def wait_job(self, s, sid, job):
        deadline = time.time() + 180
        while time.time() < deadline:
            st = sc(s.tool("qa_job_status", {"sessionId": sid, "jobId": job, "waitMs": 20000}, timeout=40))
            if st["status"] != "running":
                return st
        self.fail("the qa_test_feature job did not finish")

    def cases(self, res):
        return {c["kind"]: c for c in res["cases"]}

    def report_file(self, home, uri):
        name = uri.rsplit("/", 1)[1]
        paths = glob.glob(os.path.join(home, ".swipium", "**", name), recursive=True)
        self.assertTrue(paths, uri)
        return paths[0]


class Plan(Base):
    def test_plan_scopes_the_feature_and_changes_nothing(self):
        os.makedirs(os.path.dirname(os.path.join(self.project, APK_REL)))
        shutil.copy(self.apk, os.path.join(self.project, APK_REL))
        with self.env() as env:
            s = self.server(env)
            before = sorted(os.listdir(self.project))
            r = self.feature(s, {"projectRoot": self.project, "feature": "settings"})
            self.assertFalse(r["result"].get("isError"), r)
            plan = sc(r)
            self.assertEqual(plan["mode"], "plan")
            self.assertEqual(plan["featureId"], "settings")
            self.assertEqual(plan["scopeSource"], "code-scan")
            self.assertEqual([t["name"] for t in plan["targets"]], ["SettingsActivity"])
            self.assertEqual([c["kind"] for c in plan["cases"]], ["reach", "controls", "back"])
            self.assertEqual([st["step"] for st in plan["steps"]],
                             ["scope", "bootstrap", "navigate", "check", "update_map", "report"])
            # no session: the device would be prepared inside the job, after one test_this_plan consent
            self.assertEqual(plan["steps"][1]["status"], "planned", plan["steps"][1])
            self.assertTrue(plan["consent"]["required"], plan["consent"])
            self.assertEqual(plan["consent"]["action"], "test_this_plan")
            self.assertEqual(plan["nextRecommendedAction"]["tool"], "qa_test_feature")
            self.assertIn("Objective", r["result"]["content"][0]["text"])
            # side-effect free: nothing in the project, no session, nothing installed
            self.assertEqual(sorted(os.listdir(self.project)), before)
            self.assertFalse(glob.glob(os.path.join(env.server.home, ".swipium", "runs", "*", "*", "state.json")))
            self.assertNotIn(PKG, env.shell("pm list packages")[1])
            self.assertEqual(self.touches(), [])
            self.close(s)

    def test_creativity_shapes_the_cases(self):
        with self.env() as env:
            s = self.server(env)
            kinds = lambda a: [c["kind"] for c in sc(self.feature(s, dict(
                {"projectRoot": self.project, "feature": "settings"}, **a)))["cases"]]
            self.assertEqual(kinds({"creativity": "conservative"}), ["reach"])
            self.assertEqual(kinds({"creativity": "creative"}), ["reach", "controls", "back", "revisit"])
            self.assertEqual(kinds({"generateCases": False}), ["reach"])
            # adversarial without allowAdversarial is refused down to creative, and said so
            p = sc(self.feature(s, {"projectRoot": self.project, "feature": "settings", "creativity": "adversarial"}))
            self.assertEqual(p["creativity"], "creative")
            self.assertTrue(any("allowAdversarial" in n for n in p["notes"]), p)
            self.assertIn("relaunch", kinds({"creativity": "adversarial", "allowAdversarial": True}))
            # a high-impact feature gets a case that is never run, and the fixture it would need
            p = sc(self.feature(s, {"projectRoot": self.project, "feature": "upgrade paywall"}))
            self.assertEqual(p["featureId"], "paywall", p)
            self.assertIn("act", [c["kind"] for c in p["cases"]])
            self.assertIn("disposable_state", [f["kind"] for f in p["requiredFixtures"]])
            self.close(s)

    def test_unknown_feature_is_a_clear_error_with_what_to_do(self):
        with self.env() as env:
            s = self.server(env)
            r = self.feature(s, {"projectRoot": self.project, "feature": "teleportation"})
            self.assertTrue(r["result"].get("isError"), r)
            err = sc(r)
            self.assertEqual(err["failureCode"], "INVALID_ARGUMENT")
            self.assertIn("teleportation", err["what"])
            self.assertTrue(any("qa_app_map_read" in n for n in err["nextSteps"]), err)
            # with a map, the error names the features it knows
            self.assertFalse(s.tool("qa_app_map_build", {"projectRoot": self.project})["result"].get("isError"))
            err = sc(self.feature(s, {"projectRoot": self.project, "feature": "teleportation"}))
            self.assertIn("settings", [f["id"] for f in err["knownFeatures"]], err)
            self.assertTrue(any("Settings" in n for n in err["nextSteps"]), err)
            # empty and oversized names, unknown arguments: INVALID_ARGUMENT, nothing runs
            for bad in ({"feature": "   "}, {"feature": "x" * 5000}, {"feature": "settings", "bogus": 1},
                        {"feature": "settings", "maxActions": -1}, {}):
                bad = dict(bad, projectRoot=self.project)
                r = self.feature(s, bad)
                self.assertTrue(r["result"].get("isError"), (bad, r))
                self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT", r)
            self.close(s)

    def test_hostile_feature_names(self):
        with self.env() as env:
            s = self.server(env)
            for name in ["Réglages \"dangereux\" ✓", "settings\"}]; rm -rf /", "设置 \u202e\u200b", "'\\u0000'"]:
                r = self.feature(s, {"projectRoot": self.project, "feature": name})
                out = sc(r)
                json.dumps(out)  # a valid result either way
                if r["result"].get("isError"):
                    self.assertEqual(out["failureCode"], "INVALID_ARGUMENT", out)
                else:
                    self.assertEqual(out["feature"], name)
                    self.assertEqual(out["featureId"], "settings", out)
            self.close(s)

    def test_swipium_folder_linking_out_of_the_project_is_refused(self):
        outside = os.path.join(self.tmp, "outside")
        os.makedirs(outside)
        os.symlink(outside, os.path.join(self.project, ".swipium"))
        with self.env() as env:
            s = self.server(env)
            r = self.feature(s, {"projectRoot": self.project, "feature": "settings"})
            self.assertTrue(r["result"].get("isError"), r)
            self.assertEqual(sc(r)["failureCode"], "UNSAFE_ACTION_REFUSED", r)
            self.assertEqual(os.listdir(outside), [])
            self.close(s)

    def test_apk_linking_out_of_the_project_asks_first(self):
        os.makedirs(os.path.dirname(os.path.join(self.project, APK_REL)))
        os.symlink(self.apk, os.path.join(self.project, APK_REL))
        with self.env() as env:
            s = self.server(env)
            plan = sc(self.feature(s, {"projectRoot": self.project, "feature": "settings"}))
            boot = plan["bootstrap"]
            self.assertEqual(boot["needsInput"]["kind"], "artifact_outside_root", boot)
            self.assertEqual(plan["steps"][1]["status"], "needs_input")
            self.assertFalse(plan["consent"]["required"])
            self.close(s)


class Execute(Base):
    def test_reaches_settings_and_runs_its_cases_touching_nothing_destructive(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            job, st = self.run_job(s, sid, feature="settings", creativity="creative")
            self.assertEqual(st["status"], "done", st)
            res = st["result"]
            self.assertEqual(res["state"], "completed", res)
            cases = self.cases(res)
            self.assertEqual(cases["reach"]["status"], "pass", cases)
            self.assertEqual(cases["reach"]["screenTitle"], "Settings")
            self.assertEqual(cases["controls"]["status"], "pass", cases)
            self.assertIn("About", cases["controls"]["touched"])
            self.assertIn("Invite friends", [c["label"] for c in cases["controls"]["notTouched"]])
            self.assertEqual(cases["back"]["status"], "pass", cases)
            self.assertEqual(cases["revisit"]["status"], "pass", cases)
            self.assertEqual(res["tally"], {"pass": 4, "fail": 0, "blocked": 0})
            # the walk went there through Profile, from the device's own log
            labels = self.touched_labels()
            self.assertIn("Profile", labels)
            self.assertIn("Settings", labels)
            self.assertIn("About", labels)
            self.assertEqual(DESTRUCTIVE.intersection(labels), set())
            # the app map holds the cases, the feature's coverage, and the report is saved
            with open(os.path.join(self.project, ".swipium", "app-map.json")) as f:
                amap = json.load(f)
            mine = [c for c in amap["testSuite"]["cases"] if c.get("featureId") == "settings"]
            self.assertEqual(sorted(c["status"] for c in mine), ["pass"] * 4)
            self.assertEqual(amap["coverage"]["features"]["settings"], "covered")
            self.assertTrue(res["appMap"]["updated"], res["appMap"])
            with open(self.report_file(env.server.home, res["reportUri"])) as f:
                rep = json.load(f)
            self.assertIn("qa_test_feature: Reach SettingsActivity", json.dumps(rep))
            # a second call while one runs starts nothing
            self.close(s)

    def test_an_earlier_crawl_gives_the_shortest_known_way_there(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            r = s.tool("qa_explore", {"sessionId": sid, "maxActions": 30, "depth": 3, "maxScreens": 20})
            self.assertFalse(r["result"].get("isError"), r)
            st = self.wait_job(s, sid, sc(r)["jobId"])
            self.assertEqual(st["status"], "done", st)
            env.shell("am start -n %s/.HomeActivity" % PKG)
            n = len(self.touches())
            job, st = self.run_job(s, sid, feature="settings", creativity="conservative")
            res = st["result"]
            self.assertEqual(self.cases(res)["reach"]["status"], "pass", res)
            self.assertIn("knownPath", res)
            # straight there: no detour through the crashing tabs this time
            self.assertEqual(res["path"], ["Profile", "Settings"], res)
            self.assertEqual([t["element"]["label"] for t in self.touches()[n:] if t.get("element")],
                             ["Profile", "Settings"])
            self.assertEqual(res["findings"], [])
            self.close(s)

    def test_a_crash_on_the_feature_screen_fails_its_case_with_evidence(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            job, st = self.run_job(s, sid, feature="home", maxActions=12)
            res = st["result"]
            cases = self.cases(res)
            self.assertEqual(cases["reach"]["status"], "pass", cases)
            self.assertEqual(cases["controls"]["status"], "fail", cases)
            self.assertTrue(cases["controls"]["evidence"][0].startswith("swipium://session/"), cases)
            # restarted after each crash, the other controls were tried too: both bad tabs are named
            self.assertEqual(sorted(cases["controls"]["failedOn"]), ["Insights", "Live"], cases)
            self.assertEqual(sorted(f["kind"] for f in res["findings"]), ["anr", "native_crash"], res)
            self.assertEqual(len(cases["controls"]["evidence"]), 2, cases)
            self.assertEqual(DESTRUCTIVE.intersection(self.touched_labels()), set())
            # "Scan receipt" opened the camera prompt: nothing on it was pressed, not even BACK
            self.assertIn("Scan receipt", cases["controls"]["touched"])
            self.assertIn("permission_prompt", [w["kind"] for w in res["walls"]])
            self.assertFalse([t for t in self.touches() if t.get("dialog") == "camera_permission"],
                             [t for t in self.touches() if t.get("dialog")])
            self.close(s)

    def test_behind_a_login_wall_cases_are_blocked_with_guidance_not_failed(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=None)  # fresh install: onboarding, then the login wall
            job, st = self.run_job(s, sid, feature="settings")
            self.assertEqual(st["status"], "done", st)
            res = st["result"]
            self.assertEqual(res["stoppedReason"], "auth_wall", res)
            self.assertEqual(res["tally"]["fail"], 0, res)
            for c in res["cases"]:
                self.assertEqual(c["status"], "blocked", c)
                self.assertIn("login wall", c["reason"])
                self.assertIn("credentials", c["setupGuidance"])
            self.assertIn("login_wall", [w["kind"] for w in res["walls"]])
            self.assertEqual(res["optionalQuestion"]["kind"], "credentials")
            # nothing on the sign-in screen was touched or typed
            self.assertFalse([t for t in self.touches() if t["screen"] == "login" and t["kind"] != "key"])
            # interactive stops at the first question instead
            job, st = self.run_job(s, sid, feature="settings", mode="interactive")
            res = st["result"]
            self.assertEqual(res["state"], "needs_input", res)
            self.assertEqual(res["needsInput"]["kind"], "credentials")
            self.assertEqual(res["needsInput"]["resume"]["tool"], "qa_test_feature")
            self.close(s)


class Unsupported(Base):
    def test_ios_is_said_up_front_and_the_blocked_run_still_writes_its_report(self):
        with self.env() as env:
            s = self.server(env)
            plan = sc(self.feature(s, {"projectRoot": self.project, "feature": "settings", "platform": "ios"}))
            self.assertEqual(plan["blockers"][0]["failureCode"], "BACKEND_UNSUPPORTED", plan)
            self.assertEqual(plan["nextRecommendedAction"]["tool"], "qa_explain_blocker")
            sid = self.start(env, s)
            n = len(self.touches())
            job, st = self.run_job(s, sid, feature="settings", platform="ios")
            self.assertEqual(st["status"], "failed", st)
            res = st["result"]
            self.assertEqual(res["state"], "blocked")
            self.assertEqual(res["failureCode"], "BACKEND_UNSUPPORTED")
            self.assertTrue(res["reportUri"], res)
            self.assertEqual(res["tally"]["fail"], 0)
            self.assertTrue(all(c["status"] == "blocked" and c["failureCode"] == "BACKEND_UNSUPPORTED"
                                for c in res["cases"]), res["cases"])
            self.assertEqual(len(self.touches()), n, "a blocked run touched the device")
            self.close(s)


class Secrets(Base):
    SECRET = "Qm4-walrus-Tz81-heron"

    def test_an_answered_password_on_screen_never_leaves_the_device(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            r = s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                                    "values": {"SWIPIUM_TEST_USERNAME": "qa@example.com",
                                                               "SWIPIUM_TEST_PASSWORD": self.SECRET}})
            self.assertFalse(r["result"].get("isError"), r)
            # home shows the secret in one of its controls, and the agent even pastes it into the feature's name
            env.shell("am start -a android.intent.action.VIEW -d receipts://hello/%s" % self.SECRET)
            job, st = self.run_job(s, sid, feature="home " + self.SECRET, creativity="creative")
            res = st["result"]
            self.assertEqual(res["featureId"], "home", res)
            self.assertEqual(self.cases(res)["reach"]["status"], "pass", res)
            self.assertNotIn(self.SECRET, json.dumps(st))
            self.assertIn("home ", res["feature"])  # echoed, its secret part masked
            self.assertNotIn(self.SECRET, json.dumps(sc(s.tool("qa_report", {"sessionId": sid, "format": "markdown"}))))
            leaks = []
            for top in (env.server.home, self.project):
                for root, _, files in os.walk(top):
                    for fn in files:
                        p = os.path.join(root, fn)
                        with open(p, "rb") as f:
                            if self.SECRET.encode() in f.read():
                                leaks.append(p)
            self.assertEqual(leaks, [], "the secret reached disk")
            self.close(s)


class Bootstrap(Base):
    def test_without_a_session_one_consent_prepares_the_device_inside_the_job(self):
        os.makedirs(os.path.dirname(os.path.join(self.project, APK_REL)))
        shutil.copy(self.apk, os.path.join(self.project, APK_REL))
        with self.env() as env:
            s = self.server(env)
            args = {"projectRoot": self.project, "feature": "settings", "mode": "execute"}
            envl = sc(self.feature(s, args))
            self.assertTrue(envl.get("requiresConsent"), envl)
            self.assertEqual(envl["action"], "test_this_plan")
            self.assertIn("install", envl["exactCommand"])
            # the one plan-consent builder: the prompt names the feature, the approval is bound to it and the APK
            self.assertIn("Prepare the emulator for qa_test_feature on", envl["explain"])
            self.assertIn("install the project's APK", envl["explain"])
            self.assertTrue(envl["affects"]["feature"], envl)
            self.assertTrue(envl["affects"]["insideProjectRoot"], envl)
            self.assertTrue(envl["affects"]["steps"], envl)
            self.assertNotIn("sessionId", envl)  # the envelope carries sessionId for qa_test_this only
            self.assertNotIn(PKG, env.shell("pm list packages")[1])  # nothing before the consent
            r = self.feature(s, dict(args, consentId=envl["consentId"], approve=True))
            self.assertFalse(r["result"].get("isError"), r)
            sid = sc(r)["sessionId"]
            self.assertEqual(sc(r)["state"], "running")

            st = self.wait_job(s, sid, sc(r)["jobId"])
            res = st["result"]
            self.assertIn(PKG, env.shell("pm list packages")[1])
            self.assertTrue(res["prepared"]["installed"], res)
            # a fresh install starts at onboarding and a login wall: the cases are blocked, never failed
            self.assertEqual(res["tally"]["fail"], 0, res)
            self.assertEqual(res["stoppedReason"], "auth_wall", res)
            self.assertTrue(res["reportUri"])
            # the used consentId is not accepted again: a fresh challenge that names it
            again = sc(self.feature(s, dict(args, consentId=envl["consentId"], approve=True)))
            self.assertTrue(again.get("requiresConsent"), again)
            self.assertEqual(again.get("previousConsentId"), envl["consentId"])
            self.close(s)


class Cancel(Base):
    device_args = ("--latency", "emulator:0.1")

    def test_cancel_stops_before_the_next_device_command(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            job, _ = self.run_job(s, sid, wait=False, feature="licenses", maxActions=60, maxScreens=30)
            deadline = time.time() + 30
            while len(self.touches()) < 2 and time.time() < deadline:
                time.sleep(0.1)
            self.assertGreaterEqual(len(self.touches()), 2, "the walk never started touching")
            # a second call while the job runs starts nothing and names the running job
            r = self.feature(s, {"sessionId": sid, "mode": "execute", "feature": "about"})
            self.assertTrue(sc(r)["alreadyRunning"], r)
            self.assertEqual(sc(r)["jobId"], job)
            r = s.tool("qa_job_cancel", {"sessionId": sid, "jobId": job})
            self.assertTrue(sc(r)["cancelled"], r)
            st = sc(s.tool("qa_job_status", {"sessionId": sid, "jobId": job}))
            self.assertEqual(st["status"], "cancelled", st)
            self.assertNotIn("result", st)
            time.sleep(1.5)  # an in-flight command may land; none after it
            n = len(self.touches())
            time.sleep(3)
            self.assertEqual(len(self.touches()), n, "the walk kept touching after the cancel")
            # the session still works, and a new run can start
            self.assertFalse(s.tool("qa_snapshot", {"sessionId": sid})["result"].get("isError"))
            self.close(s)


if __name__ == "__main__":
    unittest.main()
