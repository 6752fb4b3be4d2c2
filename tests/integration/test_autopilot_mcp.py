"""qa_explore and qa_first_run through a real MCP client, the real adb and the virtual device's autopilot app
(tests/vdevice/apps/autopilot.yaml). What was touched is read from the device's touch log, never from what
the server says it did."""

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
# every control of the app that must never be touched on the autopilot's own initiative
DESTRUCTIVE = {"Log out", "Delete account", "Upgrade to Pro", "Invite friends", "Export my data",
               "Clear all receipts", "Send feedback", "Share receipt", "While using the app", "Only this time",
               "Don't allow", "Subscribe for $4.99/month", "Start free trial", "Delete", "Sign in", "Sign up",
               "Create account", "Verify"}


def sc(resp):
    return resp["result"]["structuredContent"]


class Base(unittest.TestCase):
    device_args = ()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-autopilot-")
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write("{}")
        self.touch_log = os.path.join(self.tmp, "touches.jsonl")
        self.apk = os.path.join(self.tmp, "receipts.apk")
        m = apkgen.manifest(PKG, [("versionCode", apkgen.T_INT_DEC, 31), ("versionName", apkgen.T_STRING, "3.1.0")])
        apkgen.write_apk(self.apk, m)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def env(self, extra_args=()):
        return VDeviceEnv(app="autopilot", device_args=["--touch-log", self.touch_log] + list(self.device_args) +
                          list(extra_args))

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
        self.stderr_path = os.path.join(self.tmp, "server.stderr")
        s = Server(env=e)
        s.initialize()
        return s

    def start(self, env, s, screen=".HomeActivity", fixtures=None):
        """Installs the app, opens @screen by activity (None: the launcher) and binds a session to it."""
        self.assertEqual(env.adb("install", self.apk).returncode, 0)
        if screen:
            env.shell("am start -n %s/%s" % (PKG, screen))
        args = {"projectRoot": self.project, "budget": {"maxActions": 1000, "maxNoChangeActions": 1000}}
        if fixtures:
            args["fixtures"] = fixtures
        r = s.tool("qa_start_session", args)
        self.assertFalse(r["result"].get("isError"), r)
        sid = sc(r)["sessionId"]
        r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": PKG})
        self.assertFalse(r["result"].get("isError"), r)
        return sid

    def explore(self, s, sid, wait=True, **args):
        a = {"sessionId": sid}
        a.update(args)
        r = s.tool("qa_explore", a)
        self.assertFalse(r["result"].get("isError"), r)
        job = sc(r)["jobId"]
        self.assertEqual(sc(r)["state"], "running")
        if not wait:
            return job, None
        return job, self.wait_job(s, sid, job)

    def wait_job(self, s, sid, job):
        deadline = time.time() + 120
        while time.time() < deadline:
            r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job, "waitMs": 20000}, timeout=40)
            st = sc(r)
            if st["status"] != "running":
                return st
        self.fail("the explore job did not finish")

    def graph(self, env, sid, job):
        paths = glob.glob(os.path.join(env.server.home, ".swipium", "**", sid, "explore", job, "graph.json"),
                          recursive=True)
        self.assertEqual(len(paths), 1, "graph.json at <session dir>/explore/<jobId>/")
        with open(paths[0]) as f:
            g = json.load(f)
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(paths[0]), "graph.md")))
        return g, paths[0]


class Crawl(Base):
    def test_crawl_finds_the_crash_and_the_anr_and_touches_nothing_destructive(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            job, st = self.explore(s, sid, maxActions=30, depth=3, maxScreens=20)
            self.assertEqual(st["status"], "done", st)
            res = st["result"]
            self.assertEqual(res["state"], "completed", res)
            kinds = sorted(f["kind"] for f in res["findings"])
            self.assertIn("native_crash", kinds, res)
            self.assertIn("anr", kinds, res)
            for f in res["findings"]:
                self.assertEqual(f["recovery"], "relaunched")
                self.assertTrue(f["evidence"], f)
            labels = self.touched_labels()
            self.assertIn("Insights", labels)
            self.assertIn("Live", labels)
            self.assertIn("Profile", labels)
            self.assertIn("Settings", labels)
            self.assertIn("Scan receipt", labels)
            hit = DESTRUCTIVE.intersection(labels)
            self.assertEqual(hit, set(), "destructive controls were touched: %s" % hit)
            # nothing on the permission prompt was touched (it is left to the guardrails)
            self.assertFalse([t for t in self.touches() if t.get("dialog") == "camera_permission" and
                              t.get("element")])
            g, _ = self.graph(env, sid, job)
            self.assertEqual(g["schemaVersion"], 1)
            self.assertEqual(g["jobId"], job)
            self.assertEqual(g["appId"], PKG)
            outcomes = {e["outcome"] for e in g["edges"]}
            self.assertIn("crash", outcomes)
            self.assertIn("anr", outcomes)
            self.assertIn("new_screen", outcomes)
            crash_edges = [e for e in g["edges"] if e["outcome"] == "crash"]
            self.assertEqual(crash_edges[0]["action"]["label"], "Insights")
            self.assertTrue(crash_edges[0]["evidence"][0].startswith("swipium://session/"))
            healths = {n["health"] for n in g["nodes"]}
            self.assertTrue({"crash", "anr"} & healths, healths)
            titles = {n["title"] for n in g["nodes"]}
            self.assertIn("Your profile", titles)
            # the Compose-style tabs are named from their child text; the destructive rows are classified
            home = [n for n in g["nodes"] if n["title"] == "Receipts"][0]
            names = {el["label"]: el for el in home["elements"]}
            self.assertEqual(names["Insights"]["risk"], "safe")
            prof = [n for n in g["nodes"] if n["title"] == "Your profile"][0]
            risks = {el["label"]: (el["risk"], el.get("riskClass")) for el in prof["elements"]}
            self.assertEqual(risks["Log out"], ("destructive", "logout"))
            self.assertEqual(risks["Delete account"], ("destructive", "account_delete"))
            self.assertEqual(risks["Upgrade to Pro"], ("destructive", "payment"))
            # the graph is also an artifact, and the taps are recorded for generation
            r = s.tool("qa_get_artifact", {"uri": res["graphUri"]})
            self.assertFalse(r["result"].get("isError"), r)
            self.assertIn("suitePromotion", res)
            s.close()

    def test_login_wall_ends_with_needs_input_and_nothing_typed_there(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=None)  # a fresh install: onboarding, then the login wall
            job, st = self.explore(s, sid, maxActions=10)
            self.assertEqual(st["status"], "done", st)
            res = st["result"]
            self.assertEqual(res["state"], "needs_input", res)
            self.assertEqual(res["stoppedReason"], "auth_wall")
            ni = res["needsInput"]
            self.assertEqual(ni["kind"], "credentials")
            self.assertEqual([f["name"] for f in ni["fields"]], ["SWIPIUM_TEST_USERNAME", "SWIPIUM_TEST_PASSWORD"])
            # onboarding was advanced through child-labelled controls; the login screen was never touched
            labels = self.touched_labels()
            self.assertTrue({"Next", "Skip", "Get started"} & set(labels), labels)
            self.assertFalse([t for t in self.touches() if t["screen"] == "login" and t["kind"] != "key"])
            rc, out, _ = env.shell("uiautomator dump /dev/tty")
            self.assertIn("Sign in to Receipts", out)
            s.close()

    def test_stop_on_auth_false_records_the_wall_and_keeps_exploring(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=None)
            job, st = self.explore(s, sid, maxActions=10, stopOnAuth=False)
            res = st["result"]
            self.assertNotEqual(res["state"], "needs_input", res)
            g, _ = self.graph(env, sid, job)
            self.assertIn("login_wall", {n.get("blocked") for n in g["nodes"]})
            self.assertFalse([t for t in self.touches() if t["screen"] == "login" and t["kind"] != "key"])
            s.close()


class Destructive(Base):
    FIXTURES = [{"name": "throwaway", "disposable": True}]

    def test_dry_run_then_one_approved_candidate(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=".ProfileActivity", fixtures=self.FIXTURES)
            job, st = self.explore(s, sid, maxActions=6, depth=1, safeMode="dry_run_destructive")
            res = st["result"]
            cands = {c["label"]: c for c in res["destructiveCandidates"]}
            self.assertIn("Log out", cands, res)
            self.assertIn("Delete account", cands)
            self.assertEqual(cands["Log out"]["riskClass"], "logout")
            self.assertEqual(DESTRUCTIVE.intersection(self.touched_labels()), set())
            # a candidate no dry run returned, and approved_destructive: refused
            fake = dict(cands["Log out"], candidateSignature="c:0000000000000000")
            r = s.tool("qa_explore", {"sessionId": sid, "safeMode": "approved_destructive_candidate",
                                      "destructiveCandidate": fake, "confirmHighImpact": True})
            self.assertEqual(sc(r)["failureCode"], "DESTRUCTIVE_REFUSED", r)
            r = s.tool("qa_explore", {"sessionId": sid, "safeMode": "approved_destructive"})
            self.assertEqual(sc(r)["failureCode"], "DESTRUCTIVE_REFUSED", r)
            # high impact without confirmHighImpact: refused
            r = s.tool("qa_explore", {"sessionId": sid, "safeMode": "approved_destructive_candidate",
                                      "destructiveCandidate": cands["Log out"]})
            self.assertEqual(sc(r)["failureCode"], "DESTRUCTIVE_REFUSED", r)
            # the real one: a consent first, then the job taps it once
            env.shell("am start -n %s/.ProfileActivity" % PKG)
            args = {"sessionId": sid, "safeMode": "approved_destructive_candidate",
                    "destructiveCandidate": cands["Log out"], "confirmHighImpact": True, "maxActions": 3,
                    "depth": 1}
            r = s.tool("qa_explore", args)
            c = sc(r)
            self.assertTrue(c.get("requiresConsent"), c)
            self.assertEqual(c["action"], "destructive_ui_candidate")
            self.assertEqual(c["risk"], "high")
            self.assertIn("Log out", json.dumps(c))  # the prompt names the one control it approves
            before = len(self.touches())
            job, st = self.explore(s, sid, consentId=c["consentId"], approve=True,
                                   **{k: v for k, v in args.items() if k != "sessionId"})
            self.assertTrue(st["result"]["approvedCandidateUsed"], st)
            after = [t["element"]["label"] for t in self.touches()[before:] if t.get("element")]
            self.assertEqual(after.count("Log out"), 1, after)
            self.assertEqual(DESTRUCTIVE.intersection(after), {"Log out"}, after)
            s.close()

    def test_no_disposable_state_is_missing_fixture(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=".ProfileActivity")
            job, st = self.explore(s, sid, maxActions=4, depth=1, safeMode="dry_run_destructive")
            cand = [c for c in st["result"]["destructiveCandidates"] if c["label"] == "Log out"][0]
            r = s.tool("qa_explore", {"sessionId": sid, "safeMode": "approved_destructive_candidate",
                                      "destructiveCandidate": cand, "confirmHighImpact": True})
            self.assertEqual(sc(r)["failureCode"], "MISSING_FIXTURE", r)
            r = s.tool("qa_explore", {"sessionId": sid, "maxActions": 1.5})
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT", r)
            self.assertNotIn("Log out", self.touched_labels())
            s.close()


class Cancel(Base):
    device_args = ("--latency", "emulator:0.1")

    def test_cancel_mid_crawl_stops_before_the_next_device_command(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            job, _ = self.explore(s, sid, wait=False, maxActions=40)
            deadline = time.time() + 30
            while len(self.touches()) < 2 and time.time() < deadline:
                time.sleep(0.1)
            self.assertGreaterEqual(len(self.touches()), 2, "the crawl never started touching")
            r = s.tool("qa_job_cancel", {"sessionId": sid, "jobId": job})
            self.assertFalse(r["result"].get("isError"), r)
            st = sc(s.tool("qa_job_status", {"sessionId": sid, "jobId": job}))
            self.assertEqual(st["status"], "cancelled", st)
            time.sleep(1.5)  # an in-flight command may land; none after it
            n = len(self.touches())
            time.sleep(3)
            self.assertEqual(len(self.touches()), n, "the crawl kept touching after the cancel")
            self.assertLess(n, 40)
            # the session still works
            r = s.tool("qa_snapshot", {"sessionId": sid})
            self.assertFalse(r["result"].get("isError"), r)
            s.close()


class HugeScreens(Base):
    device_args = ("--dump", "huge_below", "--huge-nodes", "5000")

    def test_crawl_on_5000_node_screens(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            job, st = self.explore(s, sid, maxActions=8, depth=1)
            self.assertEqual(st["status"], "done", st)
            res = st["result"]
            self.assertGreaterEqual(res["screens"], 2, res)
            self.assertIn("native_crash", [f["kind"] for f in res["findings"]], res)
            self.assertEqual(DESTRUCTIVE.intersection(self.touched_labels()), set())
            s.close()


class TextEntry(Base):
    PROMO = "PROMO-Sekrit-991-kite"

    def test_include_text_entry_types_fixture_values_never_risky_fields_and_updates_the_app_map(self):
        fixtures = [{"name": "shopper", "environment": "test",
                     "fields": {"search": {"value": "coffee"},
                                "voucher": {"value": self.PROMO, "secret": True},
                                "card number": {"value": "4111111111111111"}}}]
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=".SearchActivity", fixtures=fixtures)
            job, st = self.explore(s, sid, maxActions=6, depth=1, includeTextEntry=True, strategy="hybrid",
                                   generateSuite=True, accountCycle=True)
            self.assertEqual(st["status"], "done", st)
            res = st["result"]
            typed = {t["field"]: t for t in res["typedFields"]}
            self.assertEqual(set(typed), {"Search receipts", "Voucher"}, res)
            self.assertEqual(typed["Search receipts"]["source"], "fixture")
            self.assertFalse(typed["Search receipts"]["secret"])
            self.assertTrue(typed["Voucher"]["secret"])
            self.assertEqual(typed["Voucher"]["input"], "SWIPIUM_FIXTURE_VOUCHER")  # typed as a placeholder
            skipped = {f["field"]: f["reason"] for f in res["skippedFields"]}
            self.assertIn("risky", skipped["Card number"])  # a value exists, but the field is never typed
            self.assertIn("no value source", skipped["Memo"])
            self.assertEqual(res["stoppedReason"], "exhausted", res)
            touched = self.touched_labels()
            self.assertNotIn("Card number", touched)
            self.assertNotIn("Memo", touched)
            # what the app received: the search ran with the fixture's value
            env.shell("am start -n %s/.SearchActivity" % PKG)
            snap = json.dumps(sc(s.tool("qa_snapshot", {"sessionId": sid})))
            self.assertIn("Results for coffee", snap)
            self.assertNotIn(self.PROMO, snap)
            # options this build does not act on are said
            notes = " ".join(res["notes"])
            for word in ("strategy hybrid needs a goal", "accountCycle"):
                self.assertIn(word, notes)
            self.assertTrue(res["suite"]["done"], res["suite"])  # generateSuite merged cases
            # the app map got the crawl's screens and transitions
            self.assertTrue(res["appMap"]["updated"], res["appMap"])
            with open(os.path.join(self.project, ".swipium", "app-map.json")) as f:
                amap = json.load(f)
            g, _ = self.graph(env, sid, job)
            sigs = {n["signature"] for n in g["nodes"]}
            self.assertTrue(sigs.issubset({x["signature"] for x in amap["runtimeTopology"]["screens"]}))
            self.assertTrue(amap["runtimeTopology"]["edges"])
            self.assertNotIn(self.PROMO, json.dumps(res))
            s.close()
            for root in (env.server.home, self.project):
                for dirpath, _, files in os.walk(root):
                    for name in files:
                        with open(os.path.join(dirpath, name), "rb") as fh:
                            self.assertNotIn(self.PROMO.encode(), fh.read(), os.path.join(dirpath, name))

    def test_an_answered_value_reaches_text_entry(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=".SearchActivity")
            r = s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                                    "values": {"SWIPIUM_TEST_SEARCH": "latte"}})
            self.assertFalse(r["result"].get("isError"), r)
            job, st = self.explore(s, sid, maxActions=4, depth=1, includeTextEntry=True)
            typed = {t["field"]: t for t in st["result"]["typedFields"]}
            self.assertEqual(typed["Search receipts"]["source"], "answered", st["result"])
            self.assertEqual(typed["Search receipts"]["input"], "SWIPIUM_TEST_SEARCH")
            env.shell("am start -n %s/.SearchActivity" % PKG)
            self.assertIn("Results for latte", json.dumps(sc(s.tool("qa_snapshot", {"sessionId": sid}))))
            s.close()

    def test_no_value_source_types_nothing(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=".SearchActivity")
            job, st = self.explore(s, sid, maxActions=4, depth=1, includeTextEntry=True)
            res = st["result"]
            self.assertEqual(res["stoppedReason"], "exhausted", res)
            self.assertEqual(res["typedFields"], [])
            self.assertEqual({f["field"] for f in res["skippedFields"]},
                             {"Search receipts", "Voucher", "Card number", "Memo"}, res["skippedFields"])
            self.assertFalse({"Search receipts", "Voucher", "Card number", "Memo"}.intersection(
                self.touched_labels()))
            s.close()


class GenerateSuite(Base):
    def suite_file(self):
        with open(os.path.join(self.project, ".swipium", "test-suite.json")) as f:
            return json.load(f)

    def test_generate_suite_merges_the_crawls_screens_and_crashes_into_the_canonical_suite(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            job, st = self.explore(s, sid, maxActions=8, depth=1, generateSuite=True)
            self.assertEqual(st["status"], "done", st)
            res = st["result"]
            suite = res["suite"]
            self.assertTrue(suite["done"], suite)
            self.assertTrue(suite["created"], suite)
            doc = self.suite_file()
            cases = {c["id"]: c for c in doc["cases"]}
            self.assertEqual(set(suite["created"]), set(cases))
            for cid, c in cases.items():
                self.assertRegex(cid, r"^TC-[A-Z0-9_-]+-\d{3}$")
                self.assertEqual(c["source"], "exploration")
                self.assertTrue(c["steps"][0].startswith("Launch " + PKG))
            # every tap a case names is one the device really received, and every new screen has a case
            touched = set(self.touched_labels())
            for c in cases.values():
                for step in c["steps"][1:]:
                    label = step.split('"')[1]
                    self.assertIn(label, touched, step)
                self.assertEqual(DESTRUCTIVE.intersection(step.split('"')[1] for step in c["steps"][1:]), set())
            g, _ = self.graph(env, sid, job)
            linked = {sc_id for c in cases.values() for sc_id in c["links"]["screenIds"]}
            reached = {e["to"] for e in g["edges"] if e["outcome"] == "new_screen"} | {g["nodes"][0]["signature"]}
            blocked = {n["signature"] for n in g["nodes"] if n.get("blocked")}
            self.assertEqual(reached - blocked - linked, set(), "a screen reached by a tap has no case")
            crashes = [c for c in cases.values() if c["type"] == "regression"]
            self.assertEqual(len(crashes), len([f for f in res["findings"] if f["kind"] in ("native_crash", "anr")]))
            for c in crashes:
                self.assertEqual(c["lastResult"], "failed")
            # the same crawl again: merged, never duplicated
            env.shell("am start -n %s/.HomeActivity" % PKG)
            job2, st2 = self.explore(s, sid, maxActions=8, depth=1, generateSuite=True)
            suite2 = st2["result"]["suite"]
            self.assertTrue(suite2["done"], suite2)
            doc2 = self.suite_file()
            titles = [c["title"] for c in doc2["cases"]]
            self.assertEqual(len(titles), len(set(titles)), titles)
            self.assertTrue(set(cases).issubset({c["id"] for c in doc2["cases"]}))
            self.assertTrue(set(cases).intersection(suite2["unchanged"] + suite2["updated"]), suite2)
            s.close()

    def test_without_generate_suite_no_suite_is_written(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            job, st = self.explore(s, sid, maxActions=3, depth=1)
            self.assertNotIn("suite", st["result"])
            self.assertFalse(os.path.exists(os.path.join(self.project, ".swipium", "test-suite.json")))
            s.close()


class Strategy(Base):
    GOAL = "open the About screen"

    def test_task_planner_heads_for_the_goal_and_stops_there(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=".ProfileActivity")
            job, st = self.explore(s, sid, maxActions=12, depth=3, strategy="task_planner", goal=self.GOAL)
            res = st["result"]
            self.assertEqual(res["stoppedReason"], "goal_reached", res)
            self.assertEqual(res["strategy"]["goalWords"], ["about"])
            self.assertTrue(res["strategy"]["goalReached"])
            labels = self.touched_labels()
            self.assertEqual(len(self.touches()), res["actions"])
            self.assertEqual(labels[-1], "About", labels)  # the goal's control was the last touch
            self.assertIn("Settings", labels)
            g, _ = self.graph(env, sid, job)
            goal = [n for n in g["nodes"] if n["signature"] == res["strategy"]["goalScreen"]]
            self.assertEqual(goal[0]["activity"].split(".")[-1], "AboutActivity")
            s.close()

    def test_hybrid_reaches_the_goal_and_keeps_crawling_while_crawl_ignores_it(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=".ProfileActivity")
            job, st = self.explore(s, sid, maxActions=12, depth=3, strategy="hybrid", goal=self.GOAL)
            res = st["result"]
            self.assertNotEqual(res["stoppedReason"], "goal_reached", res)
            self.assertTrue(res["strategy"]["goalReached"], res)
            self.assertGreater(res["actions"], res["strategy"]["actionsToGoal"])
            self.assertEqual(len(self.touches()), res["actions"])
            self.assertEqual(DESTRUCTIVE.intersection(self.touched_labels()), set())
            env.shell("am start -n %s/.ProfileActivity" % PKG)
            job, st = self.explore(s, sid, maxActions=12, depth=3, goal=self.GOAL)
            res = st["result"]
            self.assertEqual(res["strategy"], {"name": "crawl", "goalWords": []})  # the crawl does not plan
            self.assertNotEqual(res["stoppedReason"], "goal_reached")
            s.close()

    def test_task_planner_without_a_goal_says_it_crawled(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=".ProfileActivity")
            job, st = self.explore(s, sid, maxActions=2, depth=1, strategy="task_planner")
            res = st["result"]
            self.assertIn("strategy task_planner needs a goal", " ".join(res["notes"]))
            self.assertNotIn("goalReached", res["strategy"])
            s.close()


class Secrets(Base):
    SECRET = "Vq7-hunter-Zx93-plover"

    def test_an_answered_password_never_appears(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s)
            r = s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                                    "values": {"SWIPIUM_TEST_USERNAME": "qa@example.com",
                                                               "SWIPIUM_TEST_PASSWORD": self.SECRET}})
            self.assertFalse(r["result"].get("isError"), r)
            # the app shows the secret on screen, in a control the crawler reads and taps
            env.shell("am start -a android.intent.action.VIEW -d receipts://hello/%s" % self.SECRET)
            job, st = self.explore(s, sid, maxActions=6, depth=1)
            blob = json.dumps(st)
            self.assertNotIn(self.SECRET, blob)
            g, path = self.graph(env, sid, job)
            self.assertIn("Hi ", json.dumps(g))  # the control is there, its secret part masked
            leaks = []
            for root, _, files in os.walk(env.server.home):
                for fn in files:
                    p = os.path.join(root, fn)
                    try:
                        with open(p, "rb") as f:
                            if self.SECRET.encode() in f.read():
                                leaks.append(p)
                    except OSError:
                        pass
            self.assertEqual(leaks, [], "the secret reached disk")
            fr = s.tool("qa_first_run", {"sessionId": sid})
            self.assertNotIn(self.SECRET, json.dumps(fr))
            s.close()


class FirstRun(Base):
    def test_plan_classifies_and_touches_nothing(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=None)
            expect = [(None, "onboarding"), (".LoginActivity", "login-or-create"),
                      (".SignUpActivity", "create-account"), (".OtpActivity", "OTP"), (".PaywallActivity", "paywall"),
                      (".HomeActivity", "home"), (".AboutActivity", "feature")]
            for act, klass in expect:
                if act:
                    env.shell("am start -n %s/%s" % (PKG, act))
                before = len(self.touches())
                r = s.tool("qa_first_run", {"sessionId": sid, "until": "until_home"})
                self.assertFalse(r["result"].get("isError"), r)
                c = sc(r)
                self.assertEqual(c["classification"]["screenClass"], klass, (act, c))
                self.assertTrue(c["classification"]["evidence"], c)
                self.assertGreater(c["classification"]["confidence"], 0.3)
                self.assertIn("until, maxSteps and maxDurationMs are ignored in plan mode", c["notes"])
                self.assertEqual(len(self.touches()), before, "plan touched the device")
            # the permission prompt
            env.shell("am start -n %s/.HomeActivity" % PKG)
            env.shell("input tap 540 570")  # Scan receipt
            c = sc(s.tool("qa_first_run", {"sessionId": sid}))
            self.assertEqual(c["classification"]["screenClass"], "permissions", c)
            c = sc(s.tool("qa_first_run", {"sessionId": sid, "mode": "continue"}))
            self.assertEqual(c["stoppedReason"], "permission_prompt", c)
            self.assertFalse([t for t in self.touches() if t.get("dialog") == "camera_permission" and
                              t.get("element")])
            s.close()

    def test_continue_outside_a_test_environment_asks_and_types_nothing(self):
        with self.env() as env:
            s = self.server(env)
            sid = self.start(env, s, screen=None)
            c = sc(s.tool("qa_first_run", {"sessionId": sid, "mode": "continue", "until": "until_home"}))
            self.assertEqual(c["state"], "needs_input", c)
            self.assertEqual(c["needsInput"]["kind"], "credentials")
            self.assertEqual(c["environment"]["name"], "unknown")
            self.assertFalse([t for t in self.touches() if t["screen"] in ("login", "signup") and t["kind"] != "key"])
            s.close()

    def test_continue_in_a_test_environment_signs_up_with_a_fresh_secret_and_stops_at_otp(self):
        passwords = []
        for run in range(2):
            with self.env() as env:
                os.path.exists(self.touch_log) and os.remove(self.touch_log)
                s = self.server(env)
                sid = self.start(env, s, screen=None, fixtures=[{"name": "qa", "environment": "test"}])
                c = sc(s.tool("qa_first_run", {"sessionId": sid, "mode": "continue", "until": "until_home",
                                                "maxSteps": 10}))
                self.assertEqual(c["state"], "needs_input", c)
                self.assertEqual(c["needsInput"]["kind"], "otp", c)
                self.assertEqual(len(c["needsInput"]["fields"]), 1)
                self.assertTrue(c["generated"]["SWIPIUM_TEST_USERNAME"].endswith("@yopmail.com"))
                self.assertTrue(c["generated"]["passwordRegisteredAsSecret"])
                # what was typed reached the app; the password never reached a result
                rc, xml, _ = env.shell("uiautomator dump /dev/tty")
                self.assertIn("6-digit code", xml)
                rc, log, _ = env.shell("logcat -d -s SignUpActivity")
                self.assertIn("account created for swipium_", log)
                import re
                m = re.search(r"password (\S+), confirmed (\S+)\)", log)
                self.assertIsNotNone(m, log)
                self.assertEqual(m.group(1), m.group(2))
                pw = m.group(1)
                self.assertGreaterEqual(len(pw), 16)
                passwords.append(pw)
                self.assertNotIn(pw, json.dumps(c))
                leaks = []
                for root, _, files in os.walk(env.server.home):
                    for fn in files:
                        with open(os.path.join(root, fn), "rb") as f:
                            if pw.encode() in f.read():
                                leaks.append(fn)
                self.assertEqual(leaks, [], "the generated password reached disk")
                s.close()
        self.assertNotEqual(passwords[0], passwords[1], "the generated password must be new each time")


if __name__ == "__main__":
    unittest.main(verbosity=2)
