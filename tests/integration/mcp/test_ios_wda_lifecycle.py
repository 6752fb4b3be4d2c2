#!/usr/bin/env python3
"""qa_wda's managed WebDriverAgent over its whole life, through the server, with the stand-ins of tests/ios first on
PATH (xcrun, xcodebuild, wda.py) and a private HOME:

- build is a job (kind wda_build): qa_job_status shows its progress and result, qa_job_cancel stops xcodebuild's
  whole process group (a hanging build with a child of its own), the kill timer ends a build that runs too long,
  and the build log is an artifact in every outcome;
- a managed WebDriverAgent outlives its server (kill -9, or stdin closed) and the next server adopts it when its
  /status is ready, or stops it when not; qa_wda stop ends an adopted one, also from a rehydrated session;
- the repository settings ios.wda.* (startupTimeoutMs, capabilities, url, allowNonLoopbackUrls);
- attach to another simulator's managed WebDriverAgent is STALE_WDA_DEVICE.
"""
import json
import os
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_ios import IPHONE15, IPHONE15PRO  # noqa: E402
import test_ios  # noqa: E402
import test_ios_drive  # noqa: E402
from test_ios_drive import free_port  # noqa: E402


class WdaCase(test_ios_drive.TestWdaManaged):
    def tearDown(self):
        # a hanging build a failed test left behind is not in processes.json: end its group from hang.pids
        try:
            with open(os.path.join(self.home, ".fake-xcodebuild", "hang.pids")) as f:
                pids = [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            pids = []
        for p in pids:
            try:
                with open("/proc/%d/cmdline" % p, "rb") as f:
                    cmd = f.read()
                if b"xcodebuild" not in cmd and b"sleep" not in cmd:
                    continue  # the pid now names something else
            except OSError:
                continue
            for target in (-p, p):
                try:
                    os.kill(target, signal.SIGKILL)
                except OSError:
                    pass
        super().tearDown()


    def wait_gone(self, pid, seconds=10):
        for _ in range(int(seconds * 10)):
            if not self.alive(pid):
                return True
            time.sleep(0.1)
        return False

    def start_build(self, s, sid):
        r = self.approve(s, sid, "build", "wda_build")
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        return r["structuredContent"]

    def hang_pids(self):
        path = os.path.join(self.home, ".fake-xcodebuild", "hang.pids")
        for _ in range(100):
            if os.path.exists(path):
                with open(path) as f:
                    return [int(x) for x in f.read().split()]
            time.sleep(0.1)
        self.fail("the hanging xcodebuild stand-in never wrote its pids")

    def read_artifact(self, s, sid, uri):
        r = s.tool("qa_get_artifact", {"uri": uri})["result"]
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        return json.dumps(r)


# the parent's own tests run in mcp-ios-drive, not again here (unittest skips attributes that are not callable)
for _name in [n for n in dir(test_ios_drive.TestWdaManaged) if n.startswith("test")]:
    setattr(WdaCase, _name, None)


class TestBuildJob(WdaCase):
    def test_build_answers_a_job_at_once_and_reports_progress(self):
        s, sid = self.ready()
        self.xb_knobs({"mode": "hang"})
        t0 = time.monotonic()
        b = self.start_build(s, sid)
        self.assertLess(time.monotonic() - t0, 20)
        self.assertEqual((b["status"], b["kind"]), ("running", "wda_build"), b)
        self.assertIn("qa_job_status", json.dumps(b))
        xb, child = self.hang_pids()
        j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"])
        self.assertEqual((j["status"], j["kind"]), ("running", "wda_build"), j)
        # progress: what runs, and the last line xcodebuild printed
        for _ in range(30):
            j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"])
            if "FBWebServer.o" in json.dumps(j.get("progressDetail")):
                break
            time.sleep(0.2)
        self.assertIn("build-for-testing", j["progress"])
        self.assertIn("FBWebServer.o", j["progressDetail"].get("lastEvent", ""), j)
        # a second build while one runs starts nothing
        r = self.approve(s, sid, "build", "wda_build")
        self.assertEqual(r["structuredContent"].get("failureCode"), "INVALID_ARGUMENT", r)
        self.assertIn(b["jobId"], json.dumps(r["structuredContent"]))
        # cancel stops xcodebuild and its child (the whole process group)
        c = self.tool_ok(s, "qa_job_cancel", sid, jobId=b["jobId"])
        self.assertTrue(c["cancelled"], c)
        self.assertTrue(self.wait_gone(xb), "xcodebuild still runs after qa_job_cancel")
        self.assertTrue(self.wait_gone(child), "xcodebuild's child still runs after qa_job_cancel")
        # the log is an artifact even of a cancelled build
        for _ in range(50):
            j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"])
            if j["artifactUris"]:
                break
            time.sleep(0.1)
        self.assertEqual(j["status"], "cancelled", j)
        self.assertEqual(len(j["artifactUris"]), 1, j)
        text = self.read_artifact(s, sid, j["artifactUris"][0])
        self.assertIn("FBWebServer.o", text)
        self.assertIn("cancelled", text)
        # the session still builds afterwards
        self.xb_knobs({})
        j = self.build(s, sid)
        self.assertEqual(j["status"], "done", j)
        self.assertTrue(j["result"]["built"])
        self.assertEqual(s.close(), 0)

    def test_kill_timer_stops_a_hanging_build(self):
        self.server_env = dict(self.server_env, SWIPIUM_WDA_BUILD_TIMEOUT_MS="1500")
        s, sid = self.ready()
        self.xb_knobs({"mode": "hang"})
        b = self.start_build(s, sid)
        xb, child = self.hang_pids()
        j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"], waitMs=30000)
        self.assertEqual((j["status"], j.get("failureCode")), ("failed", "WDA_BUILD_FAILED"), j)
        res = j["result"]
        self.assertTrue(res["timedOut"], res)
        self.assertFalse(res["built"])
        self.assertIn("ran past", res["what"])
        self.assertIn(res["logUri"], j["artifactUris"])
        self.assertIn("time limit", self.read_artifact(s, sid, res["logUri"]))
        self.assertTrue(self.wait_gone(xb) and self.wait_gone(child), "the timed-out build's group still runs")
        self.assertEqual(s.close(), 0)

    def test_server_killed_mid_build_the_next_server_stops_the_build(self):
        s, sid = self.ready()
        self.xb_knobs({"mode": "hang"})
        self.start_build(s, sid)
        xb, child = self.hang_pids()
        # while it runs the build is in processes.json (from its first output): a WDA entry of this server, with
        # no endpoint, whose command is the one that runs (the stand-in starts through /usr/bin/env)
        for _ in range(100):
            entries = [p for p in self.processes() if p.get("kind") == "wda"]
            if entries:
                break
            time.sleep(0.1)
        self.assertEqual([(p["pid"], p.get("endpoint"), p["serverPid"]) for p in entries], [(xb, None, s.proc.pid)])
        self.assertFalse(entries[0]["command"].startswith("/usr/bin/env"), entries[0])
        s.proc.kill()
        s.proc.wait()
        self.assertTrue(self.alive(xb) and self.alive(child), "kill -9 of the server already ended the build")
        s2 = self.server()
        s2.initialize()
        # the first iOS call's sweep: a build has no /status to be adopted by, so its whole group is stopped
        self.tool(s2, "qa_wda", sid, action="status")
        self.assertTrue(self.wait_gone(xb) and self.wait_gone(child), "the orphaned build's group still runs")
        self.assertEqual([p for p in self.processes() if p.get("kind") == "wda"], [])
        # and the new server builds as usual; the finished build leaves no entry behind
        self.xb_knobs({})
        j = self.build(s2, sid)
        self.assertEqual(j["status"], "done", j)
        self.assertEqual([p for p in self.processes() if p.get("kind") == "wda"], [])
        self.assertEqual(s2.close(), 0)

    def test_xcodebuild_that_cannot_start_still_leaves_a_log(self):
        # an xcodebuild on PATH whose interpreter is missing: found by the plan, exec fails in the job
        bad = os.path.join(self.home, "badbin")
        os.makedirs(bad)
        with open(os.path.join(bad, "xcodebuild"), "w") as f:
            f.write("#!/nonexistent/interpreter\n")
        os.chmod(os.path.join(bad, "xcodebuild"), 0o755)
        # the only xcodebuild on PATH (a PATH search would go on to the next one); xcrun is the stand-in's
        os.symlink(os.path.join(test_ios.STANDINS, "xcrun"), os.path.join(bad, "xcrun"))
        s = self.server({"PATH": bad + os.pathsep + test_ios.path_without_xcrun()})
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": self.app})["result"]["structuredContent"]["sessionId"]
        self.booted(s, sid)
        b = self.start_build(s, sid)
        j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"], waitMs=20000)
        self.assertEqual((j["status"], j.get("failureCode")), ("failed", "BACKEND_UNSUPPORTED"), j)
        self.assertEqual(len(j["artifactUris"]), 1, j)
        self.assertIn("could not be started", self.read_artifact(s, sid, j["artifactUris"][0]))
        self.assertEqual(s.close(), 0)

    def test_refused_consent_starts_no_job(self):
        s, sid = self.ready()
        r = self.wda(s, sid, "build")
        env = r["structuredContent"]
        self.assertTrue(env.get("requiresConsent"), env)
        r = self.wda(s, sid, "build", consentId=env["consentId"], approve=False)
        self.assertNotIn("jobId", json.dumps(r["structuredContent"]))
        self.assertFalse(os.path.exists(os.path.join(self.home, ".fake-xcodebuild", "hang.pids")))
        self.assertEqual(s.close(), 0)


class TestAcrossRestarts(WdaCase):
    def started(self):
        s, sid = self.ready()
        r = self.approve(s, sid, "start", "wda_start")
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        st = r["structuredContent"]
        self.assertEqual(st["status"], "ready", st)
        return s, sid, st["pid"]

    def kill9(self, s):
        s.proc.kill()
        s.proc.wait()

    def wda_entries(self):
        return [p for p in self.processes() if p.get("kind") == "wda"]

    def test_kill9_restart_adopts_and_the_old_session_stops_it(self):
        s, sid, pid = self.started()
        self.kill9(s)
        self.assertTrue(self.alive(pid), "kill -9 of the server took its WebDriverAgent down")
        s2 = self.server()
        s2.initialize()
        s2.call("tools/list", {})
        # the start-up sweep leaves the live runner to the first iOS call: no HTTP probe, libcurl not loaded
        time.sleep(1.5)
        with open("/proc/%d/maps" % s2.proc.pid) as f:
            self.assertFalse("libcurl" in f.read(), "libcurl was loaded at start-up")
        self.assertEqual([p["pid"] for p in self.wda_entries()], [pid])
        # the old session, rehydrated, sees its runner adopted by the new server
        r = self.tool(s2, "qa_wda", sid, action="status", webDriverAgentUrl=self.url)
        self.assertIn("adopted after a restart", r["content"][0]["text"])
        st = r["structuredContent"]
        self.assertTrue(st["status"]["ready"], st)
        self.assertEqual(st["managed"]["pid"], pid, st)
        self.assertTrue(st["managed"]["adopted"] and st["managed"]["ownSession"], st)
        self.assertEqual(st["managed"]["udid"], IPHONE15PRO)
        self.assertEqual([p["pid"] for p in self.wda_entries()], [pid])
        self.assertEqual(self.wda_entries()[0]["serverPid"], s2.proc.pid)
        # it still drives the app, and logs say what they can
        self.assertIn("Sign in", json.dumps(self.tool_ok(s2, "qa_snapshot", sid)))
        logs = self.tool_ok(s2, "qa_wda", sid, action="logs")
        self.assertTrue(logs["adopted"] and logs["running"], logs)
        # a second start is refused: the adopted one is the session's
        r = self.wda(s2, sid, "start")
        if r["structuredContent"].get("requiresConsent"):
            r = self.wda(s2, sid, "start", consentId=r["structuredContent"]["consentId"], approve=True)
        self.assertEqual(r["structuredContent"].get("failureCode"), "WDA_START_FAILED", r)
        self.assertEqual(r["structuredContent"].get("managedPid"), pid, r)
        r = self.tool(s2, "qa_wda", sid, action="stop")
        self.assertIn("stopped (adopted after a server restart)", r["content"][0]["text"])
        stop = r["structuredContent"]
        self.assertTrue(stop["stopped"] and stop["adopted"], stop)
        self.assertEqual(stop["pid"], pid)
        self.assertTrue(self.wait_gone(pid), "qa_wda stop left the adopted WebDriverAgent running")
        self.assertEqual(self.wda_entries(), [])
        self.assertEqual(s2.close(), 0)

    def session_state(self, sid):
        import glob
        paths = glob.glob(os.path.join(self.home, ".swipium", "runs", "*", sid, "state.json"))
        self.assertEqual(len(paths), 1, paths)
        with open(paths[0]) as f:
            return json.load(f)

    def test_stdin_closed_then_another_session_attaches_and_stops_it_by_url(self):
        s, sid, pid = self.started()
        self.assertEqual(s.close(), 0)
        self.assertTrue(self.alive(pid))
        # the runner's log so far is an artifact of its session
        logs = [a for a in self.session_state(sid).get("artifacts", []) if a.get("kind") == "wda" and "until the server stopped" in a.get("label", "")]
        self.assertTrue(logs, self.session_state(sid).get("artifacts"))
        s2, sid2 = self.start()
        self.booted(s2, sid2)
        st = self.tool_ok(s2, "qa_wda", sid2, action="status", webDriverAgentUrl=self.url)
        self.assertTrue(st["managed"]["adopted"], st)
        self.assertFalse(st["managed"]["ownSession"], st)
        a = self.tool_ok(s2, "qa_wda", sid2, action="attach", webDriverAgentUrl=self.url)
        self.assertEqual(a["mode"], "structured", a)
        # stop without the URL: this session started nothing
        none = self.tool_ok(s2, "qa_wda", sid2, action="stop")
        self.assertFalse(none["stopped"], none)
        self.assertTrue(self.alive(pid))
        stop = self.tool_ok(s2, "qa_wda", sid2, action="stop", webDriverAgentUrl=self.url)
        self.assertTrue(stop["stopped"] and stop["adopted"], stop)
        self.assertEqual(stop["mode"], "visual-only", stop)
        self.assertTrue(self.wait_gone(pid))
        self.assertEqual(self.wda_entries(), [])
        self.assertEqual(s2.close(), 0)

    def restart_with_wda_knobs(self, knobs):
        s, sid, pid = self.started()
        self.kill9(s)
        d = os.path.join(self.home, ".fake-wda")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "knobs.json"), "w") as f:
            json.dump(knobs, f)
        s2 = self.server()
        s2.initialize()
        st = self.tool_ok(s2, "qa_wda", sid, action="status", webDriverAgentUrl=self.url)
        self.assertFalse(st["managed"], st)
        self.assertTrue(self.wait_gone(pid), "a WebDriverAgent that was not ready at the restart still runs")
        self.assertEqual(self.wda_entries(), [])
        stop = self.tool_ok(s2, "qa_wda", sid, action="stop")
        self.assertFalse(stop["stopped"], stop)
        self.assertEqual(s2.close(), 0)

    def test_runner_whose_status_fails_at_restart_is_stopped(self):
        self.restart_with_wda_knobs({"status500": ["/status"]})

    def test_runner_not_ready_at_restart_is_stopped(self):
        self.restart_with_wda_knobs({"notReady": True})

    def test_attach_to_another_simulators_managed_wda_is_stale(self):
        s, sid, pid = self.started()
        s2, sid2 = self.start()
        self.booted(s2, sid2, device=IPHONE15)
        sc = self.tool_fails(s2, "qa_wda", sid2, "STALE_WDA_DEVICE", action="attach", webDriverAgentUrl=self.url)
        self.assertIn(IPHONE15PRO, sc["what"])
        self.assertEqual(sc.get("managedPid"), pid, sc)
        st = self.tool_ok(s2, "qa_status", sid2)
        self.assertEqual(st["mode"], "visual-only", st)
        # no device given and none bound: MULTIPLE_DEVICES, never a guess
        s3, sid3 = self.start()
        self.tool_fails(s3, "qa_wda", sid3, "MULTIPLE_DEVICES", action="attach", webDriverAgentUrl=self.url)
        self.assertTrue(self.tool_ok(s, "qa_wda", sid, action="stop")["stopped"])
        for x in (s, s2, s3):
            self.assertEqual(x.close(), 0)


class TestWithoutXcrun(WdaCase):
    with_standins = False

    def test_every_action_is_backend_unsupported_naming_xcrun(self):
        s, sid = self.start()
        for action in ("status", "doctor", "diagnose", "tune", "logs", "stop", "attach", "build", "start"):
            r = self.tool(s, "qa_wda", sid, action=action, webDriverAgentUrl=self.url, wdaProjectPath=self.proj)
            sc = r["structuredContent"]
            self.assertEqual(sc.get("failureCode"), "BACKEND_UNSUPPORTED", (action, sc))
            self.assertIn("xcrun", sc["what"], action)
            self.assertTrue(sc.get("nextSteps"), action)
        self.assertEqual(s.close(), 0)


class TestStartupTimeoutSetting(WdaCase):
    def config(self, wda):
        d = os.path.join(self.app, ".swipium")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"ios": {"wda": wda}}, f)

    def test_startup_timeout_spent_is_start_failed_and_nothing_stays(self):
        self.config({"startupTimeoutMs": 1500})
        s, sid = self.ready()
        # the runner would serve after 40 s: without the budget the call would wait its whole 45 s
        self.xb_knobs({"mode": "slow", "slowS": 40})
        t0 = time.monotonic()
        r = self.approve(s, sid, "start", "wda_start")
        self.assertLess(time.monotonic() - t0, 30)
        sc = r["structuredContent"]
        self.assertEqual(sc.get("failureCode"), "WDA_START_FAILED", sc)
        self.assertEqual(sc.get("startupTimeoutMs"), 1500, sc)
        self.assertIn("startupTimeoutMs", sc["what"])
        self.assertEqual([p for p in self.processes() if p.get("kind") == "wda"], [])
        self.assertEqual(s.close(), 0)

    def test_startup_timeout_sets_the_remaining_budget(self):
        self.config({"startupTimeoutMs": 60000})
        self.server_env = dict(self.server_env, SWIPIUM_WDA_START_WAIT_MS="800")
        s, sid = self.ready()
        self.xb_knobs({"mode": "slow"})
        r = self.approve(s, sid, "start", "wda_start")
        st = r["structuredContent"]
        self.assertEqual(st["status"], "starting", st)
        self.assertEqual(st["startupTimeoutMs"], 60000, st)
        self.assertTrue(50000 < st["remainingStartupMs"] < 60000, st)
        self.assertTrue(self.tool_ok(s, "qa_wda", sid, action="stop")["stopped"])
        self.assertEqual(s.close(), 0)


class TestWdaSettings(test_ios_drive.WdaCase):
    def config(self, wda):
        d = os.path.join(self.app, ".swipium")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"ios": {"wda": wda}}, f)

    def test_url_and_capabilities_from_the_repository(self):
        self.config({"url": self.url, "capabilities": {"snapshotMaxDepth": 62, "shouldTerminateApp": True}})
        s, sid = self.ready()
        st = self.tool_ok(s, "qa_wda", sid, action="status")
        self.assertEqual(st["url"], self.url, st)
        self.assertTrue(st["status"]["ready"])
        w = self.tool_ok(s, "qa_wait", sid, **{"for": "wda_ready", "timeoutMs": 3000})
        self.assertEqual(w["url"], self.url, w)
        a = self.tool_ok(s, "qa_wda", sid, action="attach")
        self.assertEqual((a["url"], a["mode"]), (self.url, "structured"), a)
        posts = [r for r in self.requests() if r["method"] == "POST" and r["path"] == "/session"]
        self.assertTrue(posts, self.requests())
        always = posts[-1]["body"]["capabilities"]["alwaysMatch"]
        self.assertEqual(always.get("snapshotMaxDepth"), 62, always)
        self.assertIs(always.get("shouldTerminateApp"), True, always)
        self.assertEqual(always.get("bundleId"), "com.example.shop", always)
        self.assertEqual(s.close(), 0)

    def test_a_recreated_session_asks_for_the_same_capabilities(self):
        # the driver's own WDA session (qa_snapshot, qa_act) and its recreation after "invalid session id" ask
        # for what attach asked: ios.wda.capabilities, then forceAppLaunch:false on the recreation
        self.config({"url": self.url, "capabilities": {"snapshotMaxDepth": 62}})
        s, sid = self.ready()
        self.tool_ok(s, "qa_wda", sid, action="attach")
        self.tool_ok(s, "qa_snapshot", sid)
        before = len([r for r in self.requests() if r["method"] == "POST" and r["path"] == "/session"])
        self.wda_knobs({"invalidateOn": {"route": "/wda/tap", "n": 1}})
        act = self.tool_ok(s, "qa_act", sid, action="tap", target={"text": "Sign in"})
        self.assertTrue(any("recreated without relaunching" in w for w in act.get("warnings", [])), act)
        posts = [r for r in self.requests() if r["method"] == "POST" and r["path"] == "/session"][before:]
        self.assertEqual(len(posts), 1, posts)
        always = posts[0]["body"]["capabilities"]["alwaysMatch"]
        self.assertEqual(always.get("snapshotMaxDepth"), 62, always)
        self.assertIs(always.get("forceAppLaunch"), False, always)
        self.assertEqual(s.close(), 0)

    def test_allow_non_loopback_urls_setting_approves_nothing(self):
        port = self.url.rsplit(":", 1)[1]
        remote = "http://0.0.0.0:%s" % port
        self.config({"url": remote, "allowNonLoopbackUrls": [remote, "*"]})
        s, sid = self.ready()
        before = len(self.requests())
        sc = self.tool_fails(s, "qa_wda", sid, "DESTRUCTIVE_REFUSED", action="status")
        self.assertIn("allowNonLoopbackUrls", json.dumps(sc))
        self.assertIn("0.0.0.0", sc["what"])
        self.tool_fails(s, "qa_wda", sid, "DESTRUCTIVE_REFUSED", action="attach")
        self.tool_fails(s, "qa_wait", sid, "DESTRUCTIVE_REFUSED", **{"for": "wda_ready", "timeoutMs": 1000})
        self.assertEqual(len(self.requests()), before, "a request reached the non-loopback URL")
        self.assertEqual(s.close(), 0)
        # only the server's environment approves it
        self.server_env = dict(self.server_env, SWIPIUM_ALLOW_REMOTE_WDA=remote + "/")
        s, sid = self.ready()
        st = self.tool_ok(s, "qa_wda", sid, action="status")
        self.assertTrue(st["status"]["ready"], st)
        self.assertEqual(s.close(), 0)

    def test_hostile_settings_are_ignored(self):
        d = os.path.join(self.app, ".swipium")
        os.makedirs(d, exist_ok=True)
        cfg = os.path.join(d, "config.json")
        s, sid = self.ready()
        default = "http://127.0.0.1:8100"
        # not JSON, not an object: no settings
        for text in ("{not json", "[1, 2]", json.dumps({"ios": {"wda": {"url": 5, "capabilities": "all"}}})):
            with open(cfg, "w") as f:
                f.write(text)
            st = self.tool_ok(s, "qa_wda", sid, action="status")
            self.assertEqual(st["url"], default, text)
        # a config.json that is a symlink out of the project is not read
        outside = os.path.join(self.home, "elsewhere.json")
        with open(outside, "w") as f:
            json.dump({"ios": {"wda": {"url": self.url}}}, f)
        os.remove(cfg)
        os.symlink(outside, cfg)
        self.assertEqual(self.tool_ok(s, "qa_wda", sid, action="status")["url"], default)
        # capabilities that are not an object change nothing in POST /session
        os.remove(cfg)
        with open(cfg, "w") as f:
            json.dump({"ios": {"wda": {"capabilities": ["x"], "startupTimeoutMs": "soon"}}}, f)
        self.tool_ok(s, "qa_wda", sid, action="attach", webDriverAgentUrl=self.url)
        posts = [q for q in self.requests() if q["method"] == "POST" and q["path"] == "/session"]
        self.assertEqual(sorted(posts[-1]["body"]["capabilities"]["alwaysMatch"]), ["bundleId", "shouldTerminateApp"])
        self.assertEqual(s.close(), 0)

    def prepare(self, s, sid, **args):
        return test_ios_drive.TestPrepareIos.prepare(self, s, sid, **args)[1]

    def test_prepare_ios_target_uses_the_configured_url(self):
        self.config({"url": self.url, "capabilities": {"snapshotMaxDepth": 40}})
        s, sid = self.start()
        self.make_app("Shop.app", test_ios_drive.INFO)
        r = self.prepare(s, sid, app="Shop.app", device="iPhone 15 Pro")
        sc = r["structuredContent"]
        self.assertEqual(sc["mode"], "structured", json.dumps(r)[:1500])
        self.assertEqual(sc["wda"]["url"], self.url)
        posts = [q for q in self.requests() if q["method"] == "POST" and q["path"] == "/session"]
        self.assertEqual(posts[-1]["body"]["capabilities"]["alwaysMatch"].get("snapshotMaxDepth"), 40)
        self.assertEqual(s.close(), 0)

    def test_prepare_ios_target_never_contacts_a_configured_remote_url(self):
        remote = "http://0.0.0.0:%s" % self.url.rsplit(":", 1)[1]
        self.config({"url": remote, "allowNonLoopbackUrls": [remote]})
        s, sid = self.start()
        self.make_app("Shop.app", test_ios_drive.INFO)
        r = self.prepare(s, sid, app="Shop.app", device="iPhone 15 Pro", attachWda="auto")
        sc = r["structuredContent"]
        self.assertEqual(sc["mode"], "visual-only", json.dumps(r)[:1500])
        self.assertEqual(sc["wda"]["failureCode"], "DESTRUCTIVE_REFUSED", sc)
        self.assertEqual(self.requests(), [])
        self.assertEqual(s.close(), 0)


for _name in [n for n in dir(test_ios_drive.WdaCase) if n.startswith("test")]:
    setattr(TestWdaSettings, _name, None)


if __name__ == "__main__":
    unittest.main(verbosity=2)
