"""qa_test_this end to end: a real MCP connection to swipium-mcp, the real adb (a private server) and the virtual
device. Plans change nothing (an adb argv recorder sits first on PATH), every ending writes its report, consent
comes once for the whole run, and qa_status walks the rungs after it.

APKs: the completed run installs an APK written by apkgen.py whose manifest declares com.example.login (the
vdevice's login app); the no-artifact run uses the real React Native template tree of tests/data/apptrees
(PROVENANCE there)."""

import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402
import apkgen as g  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
RN_TEMPLATE = os.path.join(SOURCE_ROOT, "tests", "data", "apptrees", "rn-community-template")
APK_REL = "android/app/build/outputs/apk/debug/app-debug.apk"
# adb subcommands and shell words that change a device: none may appear while planning
CHANGING = ("install", "uninstall", "monkey", " am ", "input", "emu", "pm ", "reboot", "settings put", "svc")


def sc(resp):
    return resp["result"]["structuredContent"]


def write_apk(path, package):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    g.write_apk(path, g.manifest(package, [("versionCode", g.T_INT_DEC, 3), ("versionName", g.T_STRING, "1.4.2")],
                                 [("minSdkVersion", g.T_INT_DEC, 23)]))


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-test-this-")
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write('{"name": "demo"}')
        # the adb recorder: logs every argv, then runs the real adb
        real_adb = os.environ.get("VDEVICE_ADB") or shutil.which("adb")
        if not real_adb:
            self.skipTest("adb is not installed (scripts/install-deps.sh installs it)")
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        self.adb_log = os.path.join(self.tmp, "adb-argv.log")
        rec = os.path.join(self.bin, "adb")
        with open(rec, "w") as f:
            f.write("#!/bin/sh\nprintf '%%s\\n' \"$*\" >> '%s'\nexec '%s' \"$@\"\n" % (self.adb_log, real_adb))
        os.chmod(rec, stat.S_IRWXU)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def server(self, env, extra=None):
        e = dict(env.env)
        e["HOME"] = env.server.home
        e["PATH"] = self.bin + os.pathsep + e.get("PATH", "")
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        self.home = env.server.home
        return s

    def adb_calls(self):
        if not os.path.exists(self.adb_log):
            return []
        with open(self.adb_log) as f:
            return f.read().splitlines()

    def call(self, s, args, ok=True):
        r = s.tool("qa_test_this", args, timeout=90)
        if ok:
            self.assertFalse(r["result"].get("isError"), r)
        return r

    def approve(self, s, args):
        """execute: the one test_this_plan envelope, then the approved re-call. Returns (envelope, result)."""
        r = self.call(s, dict(args, mode="execute"))
        env = sc(r)
        self.assertTrue(env.get("requiresConsent"), env)
        self.assertEqual(env["action"], "test_this_plan")
        r = self.call(s, dict(args, mode="execute", consentId=env["consentId"], approve=True))
        return env, sc(r)

    def wait_job(self, s, sid, job):
        for _ in range(60):
            r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job, "waitMs": 20000}, timeout=60)
            st = sc(r)
            if st["status"] != "running":
                return st
        self.fail("job %s never ended" % job)

    def report_file(self, uri):
        sid, name = uri.split("/")[3], uri.rsplit("/", 1)[1]
        for root, _, files in os.walk(os.path.join(self.home, ".swipium")):
            if name in files and sid in root:
                return os.path.join(root, name)
        self.fail("report %s not on disk" % uri)


class Plan(Base):
    def test_plan_is_side_effect_free_and_lists_the_pipeline(self):
        write_apk(os.path.join(self.project, APK_REL), "com.example.login")
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            names = [t["name"] for t in s.call("tools/list")["result"]["tools"]]
            self.assertIn("qa_test_this", names)
            before = sorted(os.listdir(self.project))
            open(self.adb_log, "w").close()
            r = self.call(s, {"projectRoot": self.project})
            plan = sc(r)
            self.assertEqual([st["step"] for st in plan["steps"]],
                             ["resolve_project", "find_artifact", "pick_target", "prepare", "smoke", "explore",
                              "report", "suite"])
            prep = plan["steps"][3]
            self.assertEqual(prep["tool"]["tool"], "qa_prepare_target")
            self.assertEqual(prep["tool"]["args"]["appId"], "com.example.login")  # from the APK's manifest
            self.assertEqual(plan["artifactChoice"]["appIdSource"], "apk")
            self.assertEqual(plan["consent"]["risk"], "low")
            self.assertEqual(plan["consent"]["steps"][0]["argv"][3:5], ["install", "-r"])
            self.assertEqual(plan["targetChoice"]["selected"]["serial"], env.serial)
            # the explore and suite steps say honestly that they do not run
            self.assertEqual(plan["steps"][7]["status"], "skipped")
            self.assertIn("not part of this build", plan["steps"][7]["why"])
            self.assertIn("1. resolve_project", r["result"]["content"][0]["text"])
            calls = self.adb_calls()
            self.assertTrue(calls, "the plan read the device list through adb")
            for c in calls:
                for word in CHANGING:
                    self.assertNotIn(word, " %s " % c, "plan ran a device-changing adb command: %s" % c)
            self.assertEqual(sorted(os.listdir(self.project)), before)
            self.assertFalse(os.path.exists(os.path.join(self.home, ".swipium", "runs")), "plan made a session")
            self.assertFalse(any("foreground" in l or "dumpsys" in l for l in calls), calls)
            s.close()

    def test_goal_table_and_explicit_flags(self):
        write_apk(os.path.join(self.project, APK_REL), "com.example.login")
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            want = {None: (False, False, False), "smoke": (False, False, False), "explore": (True, False, False),
                    "create_automation_suite": (True, True, False), "release_gate": (True, False, False),
                    "test_login": (False, False, True), "reproduce_bug": (True, False, False)}
            for goal, (ex, su, stop) in want.items():
                args = {"projectRoot": self.project}
                if goal:
                    args["goal"] = goal
                f = sc(self.call(s, args))["flags"]
                self.assertEqual((f["explore"], f["generateSuite"], f["stopOnNeedsInput"]), (ex, su, stop), goal)
            f = sc(self.call(s, {"projectRoot": self.project, "goal": "smoke"}))["flags"]
            self.assertTrue(f["fastSmoke"])
            self.assertTrue(sc(self.call(s, {"projectRoot": self.project}))["flags"]["suiteAttempted"])
            f = sc(self.call(s, {"projectRoot": self.project, "goal": "explore", "explore": False,
                                 "stopOnNeedsInput": True}))["flags"]
            self.assertEqual((f["explore"], f["stopOnNeedsInput"]), (False, True))
            self.assertEqual(f["sources"]["explore"], "explicit")
            p = sc(self.call(s, {"projectRoot": self.project, "goal": "reproduce_bug", "goalText": "cart total"}))
            self.assertEqual(p["flags"]["focus"], "cart total")
            # explore asked for: the step is the qa_explore call the job makes (strict, within its bounds)
            ex = [st for st in p["steps"] if st["step"] == "explore"][0]
            self.assertEqual(ex["status"], "planned")
            self.assertEqual(ex["tool"]["tool"], "qa_explore")
            self.assertEqual(ex["tool"]["args"]["goal"], "cart total")
            self.assertEqual(ex["tool"]["args"]["safeMode"], "strict")
            self.assertEqual(ex["tool"]["args"]["maxActions"], 20)
            self.assertFalse(ex["tool"]["args"]["stopOnAuth"])
            ex = [st for st in sc(self.call(s, {"projectRoot": self.project}))["steps"] if st["step"] == "explore"][0]
            self.assertEqual(ex["status"], "skipped")
            self.assertIn("not asked for", ex["why"])
            s.close()

    def test_bad_arguments_run_nothing(self):
        write_apk(os.path.join(self.project, APK_REL), "com.example.login")
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            open(self.adb_log, "w").close()
            for bad in ({"timeoutMs": -1}, {"timeoutMs": 1.5}, {"bogus": 1}, {"goal": "everything"}):
                r = self.call(s, dict({"projectRoot": self.project, "mode": "execute"}, **bad), ok=False)
                self.assertTrue(r["result"]["isError"], bad)
                self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT", bad)
            self.assertEqual(self.adb_calls(), [])
            r = self.call(s, {"projectRoot": self.project, "mode": "execute", "bogus": 1}, ok=False)
            self.assertIn("bogus", json.dumps(sc(r)))
            # a real phone is never used, even when none is attached
            for mode in ("plan", "execute"):
                r = self.call(s, {"projectRoot": self.project, "mode": mode, "preferRealDevice": True}, ok=False)
                self.assertEqual(sc(r)["failureCode"], "PHYSICAL_DEVICE_UNSUPPORTED")
            self.assertFalse(os.path.exists(os.path.join(self.home, ".swipium", "runs")))
            s.close()


class Runs(Base):
    def test_completed_run_with_one_consent_and_its_report(self):
        write_apk(os.path.join(self.project, APK_REL), "com.example.login")
        with VDeviceEnv(app="login") as env:
            env.shell("pm uninstall com.example.login")
            s = self.server(env)
            envl, res = self.approve(s, {"projectRoot": self.project})
            sid = envl["sessionId"]  # the envelope carries the session made for this call
            self.assertEqual(envl["risk"], "low")
            self.assertIn("'install' '-r'", envl["exactCommand"])
            self.assertIn("Run qa_test_this on", envl["explain"])
            self.assertIn("install the project's APK", envl["explain"])
            self.assertEqual(envl["affects"]["sessionId"], sid)
            self.assertNotIn("feature", envl["affects"])
            self.assertEqual(envl["affects"]["appId"], "com.example.login")
            self.assertEqual(res["state"], "running")
            self.assertEqual(res["sessionId"], sid)
            st = self.wait_job(s, sid, res["jobId"])
            self.assertEqual(st["status"], "done", st)
            out = st["result"]
            self.assertEqual(out["state"], "completed", out)
            self.assertEqual(out["artifactChoice"]["appId"], "com.example.login")
            self.assertEqual(out["targetChoice"]["selected"]["serial"], env.serial)
            self.assertEqual([a["step"] for a in out["attempted"] if a["status"] == "done"],
                             ["resolve_project", "find_artifact", "pick_target", "prepare", "smoke", "report"])
            for k in ("blockers", "workaroundsAttempted", "nextRecommendedAction", "reportUri"):
                self.assertIn(k, out)
            self.assertIn("com.example.login", env.shell("pm list packages")[1])
            self.assertIn(".LoginActivity", env.shell("dumpsys window | grep mCurrentFocus")[1])
            with open(self.report_file(out["reportUri"])) as f:
                rep = json.load(f)
            self.assertIn("smoke: baseline", json.dumps(rep))
            # the used consentId is not accepted again: a fresh challenge that names it
            r = self.call(s, {"projectRoot": self.project, "mode": "execute", "consentId": envl["consentId"],
                              "approve": True, "sessionId": sid})
            again = sc(r)
            self.assertTrue(again.get("requiresConsent"), again)
            self.assertEqual(again["previousConsentId"], envl["consentId"])
            self.assertTrue(again["consentNote"])
            self.assertEqual(again["sessionId"], sid)
            # qa_status: the run completed; the next rung is about the report, not the job
            nba = sc(s.tool("qa_status", {"sessionId": sid}))["nextBestAction"]
            self.assertNotIn(nba["tool"], ("qa_job_status", "qa_explain_blocker"))
            s.close()

    def test_no_artifact_is_blocked_with_a_report_and_status_rungs(self):
        shutil.copytree(RN_TEMPLATE, os.path.join(self.tmp, "rn"))
        root = os.path.join(self.tmp, "rn")
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            plan = sc(self.call(s, {"projectRoot": root}))
            self.assertEqual(plan["blockers"][0]["failureCode"], "NO_BUILD_ARTIFACT")
            self.assertFalse(plan["consent"]["required"])
            # the plan names qa_build only because this server lists it
            listed = [t["name"] for t in s.call("tools/list", {})["result"]["tools"]]
            self.assertIn("qa_build", listed)
            self.assertEqual(plan["nextRecommendedAction"]["tool"], "qa_build")
            self.assertEqual(plan["nextRecommendedAction"]["args"]["projectRoot"], root)
            r = self.call(s, {"projectRoot": root, "mode": "execute"})
            res = sc(r)
            self.assertEqual(res["state"], "running")  # nothing privileged: no consent asked
            sid = res["sessionId"]
            st = self.wait_job(s, sid, res["jobId"])
            self.assertEqual(st["status"], "failed")
            out = st["result"]
            self.assertEqual(out["state"], "blocked")
            b = out["blockers"][0]
            self.assertEqual(b["failureCode"], "NO_BUILD_ARTIFACT")
            for k in ("owner", "retrySafe", "canSwipiumFix", "whatItMeans", "howToFix"):
                self.assertIn(k, b)
            self.assertTrue(os.path.exists(self.report_file(out["reportUri"])))
            # the run's own next step is the build (qa_build is listed); qa_status's rung still asks to explain first
            self.assertEqual(out["nextRecommendedAction"]["tool"], "qa_build")
            nba = sc(s.tool("qa_status", {"sessionId": sid}))["nextBestAction"]
            self.assertEqual(nba["tool"], "qa_explain_blocker")
            self.assertEqual(nba["args"], {"failureCode": "NO_BUILD_ARTIFACT", "sessionId": sid})
            self.assertFalse(s.tool("qa_explain_blocker", nba["args"])["result"].get("isError"))
            nba = sc(s.tool("qa_status", {"sessionId": sid}))["nextBestAction"]
            self.assertNotEqual(nba["tool"], "qa_explain_blocker", "explaining moves the rung on")
            s.close()

    def test_apk_that_installs_but_has_nothing_to_launch(self):
        write_apk(os.path.join(self.project, APK_REL), "com.example.ghost")
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            envl, res = self.approve(s, {"projectRoot": self.project})
            st = self.wait_job(s, envl["sessionId"], res["jobId"])
            self.assertEqual(st["status"], "failed", st)
            out = st["result"]
            self.assertEqual(out["state"], "blocked")
            self.assertEqual(out["blockers"][0]["failureCode"], "APP_LAUNCH_FAILED", out["blockers"])
            self.assertTrue(os.path.exists(self.report_file(out["reportUri"])))
            self.assertTrue(any(a["step"] == "prepare" and a["status"] == "failed" for a in out["attempted"]))
            # the session still works
            self.assertFalse(s.tool("qa_status", {"sessionId": envl["sessionId"]})["result"].get("isError"))
            s.close()

    def test_symlinked_out_apk_asks_then_needs_allow_outside_root(self):
        outside = os.path.join(self.tmp, "elsewhere", "app.apk")
        write_apk(outside, "com.example.login")
        link = os.path.join(self.project, APK_REL)
        os.makedirs(os.path.dirname(link))
        os.symlink(outside, link)
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            plan = sc(self.call(s, {"projectRoot": self.project}))
            self.assertEqual(plan["needsInput"]["kind"], "artifact_outside_root", plan)
            self.assertTrue(plan["needsInput"]["resume"]["args"]["allowOutsideRoot"])
            self.assertFalse(plan["consent"]["required"])
            r = self.call(s, {"projectRoot": self.project, "mode": "execute"})
            res = sc(r)
            st = self.wait_job(s, res["sessionId"], res["jobId"])
            self.assertEqual(st["status"], "done")
            self.assertEqual(st["result"]["state"], "needs_input")
            self.assertTrue(os.path.exists(self.report_file(st["result"]["reportUri"])))
            self.assertNotIn("install", " ".join(self.adb_calls()))
            # allowOutsideRoot: a medium-risk install of the real file, named by its hash
            plan = sc(self.call(s, {"projectRoot": self.project, "allowOutsideRoot": True}))
            self.assertFalse(plan["artifactChoice"]["insideProjectRoot"])
            self.assertEqual(plan["artifactChoice"]["path"], os.path.realpath(outside))
            self.assertEqual(plan["consent"]["risk"], "medium")
            r = self.call(s, {"projectRoot": self.project, "mode": "execute", "allowOutsideRoot": True,
                              "sessionId": res["sessionId"]})
            envl = sc(r)
            self.assertEqual(envl["risk"], "medium")
            self.assertEqual(len(envl["affects"]["sha256"]), 64)
            with open(outside, "rb") as f:
                self.assertEqual(envl["affects"]["sha256"], hashlib.sha256(f.read()).hexdigest())
            self.assertIn("install an APK from outside the project", envl["explain"])
            s.close()

    def test_wait_for_completion_and_its_clamp(self):
        write_apk(os.path.join(self.project, APK_REL), "com.example.login")
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            envl, _ = self.approve(s, {"projectRoot": self.project, "waitForCompletion": True, "timeoutMs": 0})
            sid = envl["sessionId"]
            # the approved call above waited 0 ms: still running, with its job
            r = self.call(s, {"projectRoot": self.project, "mode": "execute", "sessionId": sid,
                              "waitForCompletion": True, "timeoutMs": 120000})
            envl2 = sc(r)
            if envl2.get("requiresConsent"):
                r = self.call(s, {"projectRoot": self.project, "mode": "execute", "sessionId": sid,
                                  "waitForCompletion": True, "timeoutMs": 120000, "consentId": envl2["consentId"],
                                  "approve": True})
            res = sc(r)
            if res.get("alreadyRunning"):
                self.wait_job(s, sid, res["jobId"])
                r = self.call(s, {"projectRoot": self.project, "mode": "execute", "sessionId": sid,
                                  "waitForCompletion": True, "timeoutMs": 120000})
                e3 = sc(r)
                r = self.call(s, {"projectRoot": self.project, "mode": "execute", "sessionId": sid,
                                  "waitForCompletion": True, "timeoutMs": 120000, "consentId": e3["consentId"],
                                  "approve": True})
                res = sc(r)
            self.assertEqual(res["state"], "completed", res)
            self.assertTrue(any("clamped to 50000" in n for n in res["notes"]), res)
            s.close()

    def test_timed_out_wait_returns_running(self):
        write_apk(os.path.join(self.project, APK_REL), "com.example.login")
        with VDeviceEnv(app="login", device_args=["--latency", "emulator"]) as env:
            s = self.server(env)
            _, res = self.approve(s, {"projectRoot": self.project, "waitForCompletion": True, "timeoutMs": 200})
            self.assertEqual(res["state"], "running")
            self.assertTrue(res["timedOutWaiting"])
            self.assertTrue(res["jobId"])
            # a second call on the same session while it runs: the running job, nothing started twice
            r = self.call(s, {"projectRoot": self.project, "mode": "execute", "sessionId": res["sessionId"]})
            two = sc(r)
            self.assertTrue(two.get("alreadyRunning"), two)
            self.assertEqual(two["jobId"], res["jobId"])
            nba = sc(s.tool("qa_status", {"sessionId": res["sessionId"]}))["nextBestAction"]
            self.assertEqual(nba["tool"], "qa_job_status")
            st = self.wait_job(s, res["sessionId"], res["jobId"])
            self.assertEqual(st["result"]["state"], "completed")
            state = sc(s.tool("qa_status", {"sessionId": res["sessionId"]}))
            self.assertEqual(state["lastJob"]["jobId"], res["jobId"], "one job, not two")
            s.close()

    def test_adb_server_killed_during_a_job(self):
        write_apk(os.path.join(self.project, APK_REL), "com.example.login")
        with VDeviceEnv(app="login", device_args=["--latency", "emulator"]) as env:
            s = self.server(env)
            envl, res = self.approve(s, {"projectRoot": self.project})
            env.server.kill()
            st = self.wait_job(s, envl["sessionId"], res["jobId"])
            env.server.started = True  # a client may have restarted it: let cleanup stop it
            self.assertEqual(st["status"], "failed", st)
            out = st["result"]
            self.assertEqual(out["state"], "blocked")
            self.assertTrue(out["blockers"][0]["failureCode"], out)
            self.assertTrue(os.path.exists(self.report_file(out["reportUri"])))
            self.assertFalse(s.tool("qa_status", {"sessionId": envl["sessionId"]})["result"].get("isError"))
            s.close()

    def test_login_wall_needs_input_answered_and_resumed(self):
        write_apk(os.path.join(self.project, APK_REL), "com.example.login")
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            envl, res = self.approve(s, {"projectRoot": self.project, "goal": "test_login"})
            sid = envl["sessionId"]
            st = self.wait_job(s, sid, res["jobId"])
            self.assertEqual(st["status"], "done")
            out = st["result"]
            self.assertEqual(out["state"], "needs_input", out)
            ni = out["needsInput"]
            self.assertEqual(ni["kind"], "credentials")
            self.assertEqual([f["name"] for f in ni["fields"]], ["SWIPIUM_TEST_EMAIL", "SWIPIUM_TEST_PASSWORD"])
            self.assertEqual(ni["resume"]["args"]["goal"], "test_login")
            self.assertTrue(os.path.exists(self.report_file(out["reportUri"])))
            nba = sc(s.tool("qa_status", {"sessionId": sid}))["nextBestAction"]
            self.assertEqual(nba["tool"], "qa_continue_from_blocker")
            time.sleep(0.01)
            r = s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                                    "values": {"SWIPIUM_TEST_EMAIL": "ann@example.com",
                                                               "SWIPIUM_TEST_PASSWORD": "hunter2"}})
            self.assertFalse(r["result"].get("isError"), r)
            self.assertEqual(sc(r)["nextAction"]["args"]["goal"], "test_login")
            nba = sc(s.tool("qa_status", {"sessionId": sid}))["nextBestAction"]
            self.assertEqual(nba["tool"], "qa_test_this")
            self.assertEqual(nba["args"]["goal"], "test_login")
            r = self.call(s, nba["args"])
            e2 = sc(r)
            r = self.call(s, dict(nba["args"], consentId=e2["consentId"], approve=True))
            st = self.wait_job(s, sid, sc(r)["jobId"])
            self.assertEqual(st["result"]["state"], "completed", st["result"])
            s.close()
            for root, _, files in os.walk(os.path.join(self.home, ".swipium")):
                for f in files:
                    with open(os.path.join(root, f), "rb") as fh:
                        self.assertNotIn(b"hunter2", fh.read(), os.path.join(root, f))


AUTOPILOT = "com.example.autopilot"
# controls of the autopilot app a crawl must never touch on its own (tests/vdevice/apps/autopilot.yaml)
NEVER = {"Log out", "Delete account", "Upgrade to Pro", "Invite friends", "Export my data", "Clear all receipts",
         "Send feedback", "Share receipt", "While using the app", "Only this time", "Don't allow",
         "Subscribe for $4.99/month", "Start free trial", "Delete", "Sign in", "Sign up", "Create account", "Verify"}


class Explores(Base):
    """Goals that explore run the real crawl inside the qa_test_this job: taps read from the device's touch log."""

    def env(self, extra=()):
        self.touch_log = os.path.join(self.tmp, "touches.jsonl")
        write_apk(os.path.join(self.project, APK_REL), AUTOPILOT)
        return VDeviceEnv(app="autopilot", device_args=["--touch-log", self.touch_log] + list(extra))

    def touched(self):
        if not os.path.exists(self.touch_log):
            return []
        with open(self.touch_log) as f:
            return [json.loads(l)["element"]["label"] for l in f if l.strip() and json.loads(l).get("element")]

    def test_goal_explore_crawls_writes_the_graph_and_reports_it(self):
        with self.env() as env:
            s = self.server(env)
            envl, res = self.approve(s, {"projectRoot": self.project, "goal": "explore"})
            sid = envl["sessionId"]
            st = self.wait_job(s, sid, res["jobId"])
            self.assertEqual(st["status"], "done", st)
            out = st["result"]
            self.assertEqual(out["state"], "completed", out)
            steps = {a["step"]: a["status"] for a in out["attempted"]}
            self.assertEqual(steps["explore"], "done", out["attempted"])
            self.assertEqual(out["workaroundsAttempted"], [])
            ex = out["explore"]
            self.assertGreaterEqual(ex["actions"], 1, ex)
            self.assertGreaterEqual(ex["screens"], 2, ex)
            self.assertEqual(ex["stoppedReason"], "auth_wall")  # the wall is recorded; nothing typed there
            # the device really was tapped: onboarding's controls (labels in child nodes), nothing risky
            labels = self.touched()
            self.assertEqual(len(labels), ex["actions"], labels)
            self.assertTrue({"Next", "Skip"}.intersection(labels), labels)
            self.assertEqual(NEVER.intersection(labels), set(), labels)
            # the graph of this job, at <session dir>/explore/<jobId>/graph.json, with the screens seen
            self.assertTrue(ex["graphPath"].endswith("/%s/explore/%s/graph.json" % (sid, res["jobId"])), ex)
            with open(ex["graphPath"]) as f:
                g = json.load(f)
            self.assertEqual(g["jobId"], res["jobId"])
            self.assertEqual(len(g["nodes"]), ex["screens"])
            self.assertIn("login_wall", [n.get("blocked") for n in g["nodes"]])  # recorded, not typed into
            self.assertTrue(ex["graphUri"].startswith("swipium://"), ex)
            # a wall reached without stopping for questions: the question is offered, not forced
            self.assertEqual(out["optionalQuestion"]["kind"], "credentials")
            with open(self.report_file(out["reportUri"])) as f:
                rep = json.dumps(json.load(f))
            self.assertIn("explore: crawl", rep)
            s.close()

    def test_interactive_explore_stops_at_the_login_wall_with_a_question(self):
        with self.env() as env:
            s = self.server(env)
            r = self.call(s, {"projectRoot": self.project, "goal": "explore", "mode": "interactive"})
            envl = sc(r)
            r = self.call(s, {"projectRoot": self.project, "goal": "explore", "mode": "interactive",
                              "consentId": envl["consentId"], "approve": True})
            res = sc(r)
            st = self.wait_job(s, envl["sessionId"], res["jobId"])
            out = st["result"]
            self.assertEqual(out["state"], "needs_input", out)
            self.assertEqual(out["explore"]["stoppedReason"], "auth_wall")
            self.assertEqual(out["needsInput"]["kind"], "credentials")
            self.assertEqual(out["needsInput"]["resume"]["args"]["goal"], "explore")
            self.assertEqual({a["step"]: a["status"] for a in out["attempted"]}["explore"], "needs_input")
            self.assertEqual(NEVER.intersection(self.touched()), set())
            self.assertTrue(os.path.exists(self.report_file(out["reportUri"])))
            s.close()

    def test_cancel_mid_crawl(self):
        with self.env(["--latency", "emulator:0.1"]) as env:
            s = self.server(env)
            envl, res = self.approve(s, {"projectRoot": self.project, "goal": "explore", "explore": True})
            sid = envl["sessionId"]
            deadline = time.time() + 60
            phase = None
            while time.time() < deadline and not self.touched():
                time.sleep(0.1)
            self.assertTrue(self.touched(), "the crawl never touched the device")
            st = sc(s.tool("qa_job_status", {"sessionId": sid, "jobId": res["jobId"]}))
            phase = json.dumps(st)
            self.assertIn("explore", phase)  # the job's progress names the crawl
            r = s.tool("qa_job_cancel", {"sessionId": sid, "jobId": res["jobId"]})
            self.assertFalse(r["result"].get("isError"), r)
            st = self.wait_job(s, sid, res["jobId"])
            self.assertEqual(st["status"], "cancelled", st)
            time.sleep(1.5)
            n = len(self.touched())
            time.sleep(2.5)
            self.assertEqual(len(self.touched()), n, "the crawl kept touching after the cancel")
            self.assertFalse(s.tool("qa_status", {"sessionId": sid})["result"].get("isError"))
            s.close()


PAYWALL_APP = """# an app that opens on a paywall: every control is a purchase (qa_test_this must end unsafe, touching nothing)
package: com.example.paywall
label: Paywall
version: "1.0"
installed: false
launcher_activity: .PaywallActivity
start: paywall
screens:
  paywall:
    activity: .PaywallActivity
    nodes:
      - class: android.widget.TextView
        text: Go Pro to continue
        bounds: [60, 200, 1020, 320]
      - class: android.widget.Button
        text: Subscribe for $9.99/month
        resource-id: com.example.paywall:id/subscribe
        bounds: [60, 1500, 1020, 1640]
        on_tap: {log: "W/BillingClient: purchase flow started"}
      - class: android.widget.Button
        text: Buy lifetime access
        resource-id: com.example.paywall:id/buy
        bounds: [60, 1700, 1020, 1840]
        on_tap: {log: "W/BillingClient: purchase flow started"}
"""


class Unsafe(Base):
    def test_an_app_that_opens_on_a_paywall_ends_unsafe_with_nothing_touched(self):
        app = os.path.join(self.tmp, "paywall.yaml")
        with open(app, "w") as f:
            f.write(PAYWALL_APP)
        write_apk(os.path.join(self.project, APK_REL), "com.example.paywall")
        touch_log = os.path.join(self.tmp, "touches.jsonl")
        with VDeviceEnv(app=app, device_args=["--touch-log", touch_log]) as env:
            s = self.server(env)
            envl, res = self.approve(s, {"projectRoot": self.project, "goal": "explore"})
            sid = envl["sessionId"]
            st = self.wait_job(s, sid, res["jobId"])
            self.assertEqual(st["status"], "failed", st)
            out = st["result"]
            self.assertEqual(out["state"], "unsafe", out)
            self.assertEqual(out["blockers"][0]["failureCode"], "DESTRUCTIVE_REFUSED")
            self.assertEqual({a["step"]: a["status"] for a in out["attempted"]}["explore"], "refused")
            self.assertEqual(out["explore"]["actions"], 0)
            self.assertTrue(os.path.exists(self.report_file(out["reportUri"])))
            self.assertEqual(out["nextRecommendedAction"]["tool"], "qa_explain_blocker")
            touched = []
            if os.path.exists(touch_log):
                with open(touch_log) as f:
                    touched = [json.loads(l) for l in f if l.strip()]
            self.assertEqual([t for t in touched if t.get("element")], [], "a purchase control was touched")
            nba = sc(s.tool("qa_status", {"sessionId": sid}))["nextBestAction"]
            self.assertEqual(nba["args"], {"failureCode": "DESTRUCTIVE_REFUSED", "sessionId": sid})
            s.close()


class AnsweredValues(Base):
    LOGIN_FLOW = ("name: login\nappId: com.example.login\nsteps:\n"
                  "  - prepareTarget\n"
                  "  - inputText: {into: \"id=email\", text: \"${SWIPIUM_TEST_EMAIL}\"}\n"
                  "  - inputText: {into: \"id=password\", text: \"${shopPassword}\"}\n"
                  "  - tap: \"Sign in\"\n"
                  "  - assertVisible: \"Hello, ann@example.com\"\n")

    def test_answers_reach_flow_variables_and_typing(self):
        with VDeviceEnv(app="login") as env:
            env.shell("monkey -p com.example.login -c android.intent.category.LAUNCHER 1")
            s = self.server(env)
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
            r = s.tool("qa_flow_run", {"sessionId": sid, "flowYaml": self.LOGIN_FLOW})
            self.assertEqual(sc(r)["failureCode"], "MISSING_FIXTURE", r)  # nothing answered yet
            r = s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                                    "values": {"SWIPIUM_TEST_EMAIL": "ann@example.com",
                                                               "shopPassword": "hunter2"}})
            self.assertFalse(r["result"].get("isError"), r)
            env.shell("am force-stop com.example.login")
            r = s.tool("qa_flow_run", {"sessionId": sid, "flowYaml": self.LOGIN_FLOW})
            self.assertFalse(r["result"].get("isError"), r)
            self.assertTrue(sc(r)["passed"], sc(r))
            # explicit variables still win over the answers
            env.shell("am force-stop com.example.login")
            r = s.tool("qa_flow_run", {"sessionId": sid, "flowYaml": self.LOGIN_FLOW,
                                       "variables": {"shopPassword": "wrong-one"}})
            self.assertFalse(sc(r).get("passed"), sc(r))
            # qa_act types an answered ${SWIPIUM_*} value too
            env.shell("am force-stop com.example.login")
            env.shell("monkey -p com.example.login -c android.intent.category.LAUNCHER 1")
            r = s.tool("qa_act", {"sessionId": sid, "action": "type", "target": {"id": "email"},
                                  "text": "${SWIPIUM_TEST_EMAIL}"})
            self.assertFalse(r["result"].get("isError"), r)
            self.assertEqual(sc(r)["placeholders"], ["SWIPIUM_TEST_EMAIL"])
            s.close()
            for root, _, files in os.walk(os.path.join(self.home, ".swipium")):
                for f in files:
                    with open(os.path.join(root, f), "rb") as fh:
                        self.assertNotIn(b"hunter2", fh.read(), os.path.join(root, f))


if __name__ == "__main__":
    unittest.main(verbosity=2)
