"""qa_generate end to end (issue 16): a run recorded through swipium-mcp on the virtual device (real adb) against an
app whose labels are hostile, every target generated from it, the flow checked with qa_flow_check and replayed with
qa_flow_run (the device's touch log shows the same taps, the form gets the same values), every YAML output loaded
with PyYAML, and no output carrying the password typed during the run. Run with /usr/bin/python3 via meson test."""

import glob
import json
import os
import shutil
import sys
import tempfile
import time
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402

PKG = "com.example.hostile"
PASSWORD = "s3cr3t-Pa55"
VISUAL = 'Logo "looks" ${d} right */ """ \\ done'
# in a flow a description that would read as ${d} is written "$ {d}": it never becomes a variable reference
VISUAL_IN_FLOW = VISUAL.replace("${", "$ {")
# the form's title: a text assertion on it carries both quote kinds, an ampersand and a backslash
TITLE = "He said \"hi\" & it's 'fine' \\ back"


from gen_common import RecordedRun, code_of, is_error, sc  # noqa: E402


class Generate(RecordedRun, unittest.TestCase):
    PREFIX = "sw-generate-"
    PASSWORD = PASSWORD
    TOOL_TIMEOUT = 120

    @classmethod
    def setUpClass(cls):
        cls.open(touch_log=True)
        cls.record()

    @classmethod
    def tearDownClass(cls):
        cls.close()

    # ---- the recording -------------------------------------------------------------------

    @classmethod
    def touches(cls):
        if not os.path.exists(cls.touch_log):
            return []
        with open(cls.touch_log) as f:
            return [json.loads(line) for line in f if line.strip()]

    @classmethod
    def taps(cls, touches):
        """(screen, element resource id or label) of every tap that landed on an element."""
        return [(t["screen"], t["element"]["resourceId"] or t["element"]["label"]) for t in touches
                if t["kind"] == "tap" and t.get("element")]

    @classmethod
    def record(cls):
        cls.start_on_form()
        cls.tool("qa_snapshot", {"sessionId": cls.sid})
        sid = cls.sid
        start = len(cls.touches())
        # the text assertions an agent makes: a wait for a text that shows (an assertion), one that never does
        r = cls.tool("qa_act", {"sessionId": sid, "action": "wait", "for": {"text": TITLE}})
        assert sc(r).get("satisfied") is True, sc(r)
        r = cls.tool("qa_act", {"sessionId": sid, "action": "wait", "for": {"text": "No such label"}, "timeoutMs": 300})
        assert sc(r).get("satisfied") is False, sc(r)
        acts = [
            {"action": "type", "target": {"id": "name"}, "text": "Ann"},
            {"action": "type", "target": {"id": "password"}, "text": PASSWORD},
            {"action": "tap", "target": {"text": "Line one"}},
            {"action": "tap", "target": {"text": "close"}},
            {"action": "tap", "target": {"text": "Überprüfen"}},
            {"action": "tap", "target": {"text": "Continue"}},
            {"action": "tap", "target": {"text": "None"}},
            {"action": "tap", "target": {"x": 540, "y": 1440}},
            # a part of a label that goes on to read as ${HOME}, on an element without an id
            {"action": "wait", "for": {"text": "Pay the bill"}},
            {"action": "tap", "target": {"text": "Pay the bill"}},
        ]
        for a in acts:
            a["sessionId"] = sid
            cls.tool("qa_act", a)
        cls.tool("qa_visual", {"sessionId": sid, "mode": "assert", "assertion": VISUAL})
        cls.tool("qa_act", {"sessionId": sid, "action": "swipe", "direction": "up"})
        # the confirm screen shows the password typed on the form: asserting it is never written into a test
        cls.tool("qa_act", {"sessionId": sid, "action": "wait", "for": {"text": "your code " + PASSWORD}})
        # the agent taps the button by that label
        cls.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "your code " + PASSWORD}})
        # the done screen's text, asserted by the element's id
        cls.tool("qa_act", {"sessionId": sid, "action": "wait", "for": {"id": "done"}})
        cls.recorded_touches = cls.touches()[start:]
        cls.recorded_taps = cls.taps(cls.recorded_touches)

    # ---- helpers ---------------------------------------------------------------------------

    def swipium_files(self):
        out = {}
        for p in glob.glob(os.path.join(self.project, ".swipium", "**", "*"), recursive=True):
            if os.path.isfile(p):
                with open(p, "rb") as f:
                    out[os.path.relpath(p, self.project)] = f.read()
        return out

    def assert_no_secret_anywhere(self):
        for path, data in self.swipium_files().items():
            self.assertNotIn(PASSWORD.encode(), data, path)
            self.assertNotIn(PASSWORD, path)

    def generate(self, args, ok=True):
        a = {"sessionId": self.sid}
        a.update(args)
        return self.tool("qa_generate", a, ok=ok, timeout=240)

    # ---- the tests -------------------------------------------------------------------------

    def test_00_recording_holds_what_was_acted_on(self):
        self.assertEqual(len(self.recorded_taps), 10, self.recorded_touches)
        home = self.env.server.home
        states = glob.glob(os.path.join(home, ".swipium", "**", self.sid, "state.json"), recursive=True)
        self.assertEqual(len(states), 1)
        # the saver writes state.json shortly after the last change: wait for the 17 records
        deadline = time.time() + 10
        while True:
            with open(states[0], "rb") as f:
                raw = f.read()
            rec = json.loads(raw)["recordedActions"]
            if len(rec) >= 17 or time.time() > deadline:
                break
            time.sleep(0.2)
        self.assertNotIn(PASSWORD.encode(), raw)
        self.assertEqual(len(rec), 17)
        waits = [a for a in rec if a.get("action") == "wait"]
        self.assertEqual([a.get("satisfied") for a in waits], [True, False, True, True, True])
        self.assertEqual(waits[0]["element"]["resourceId"], "com.example.hostile:id/title")
        self.assertEqual(waits[4]["element"]["text"], "All done")
        typed = [a for a in rec if a.get("action") == "type"]
        self.assertEqual(typed[0]["element"]["resourceId"], "com.example.hostile:id/name")
        self.assertEqual(typed[0]["text"], "Ann")
        self.assertTrue(typed[1]["secret"])
        self.assertEqual(typed[1]["secretKind"], "password")
        self.assertEqual(typed[1]["text"], "${SWIPIUM_TEST_PASSWORD}")
        self.assertEqual(typed[0]["screen"], "FormActivity")
        coords = [a for a in rec if a.get("action") == "tap" and "x" in (a.get("target") or {})]
        self.assertEqual(len(coords), 1, json.dumps([(a.get("action"), a.get("target")) for a in rec]))
        self.assertEqual(coords[0]["element"]["bounds"], [60, 1380, 1020, 1500])
        visual = [a for a in rec if a.get("action") == "visualCheck"]
        self.assertEqual(len(visual), 1)
        self.assertEqual(visual[0]["assertion"], VISUAL)
        self.assertEqual([a["seq"] for a in rec], list(range(1, len(rec) + 1)))

    def test_10_flow_checks_loads_and_replays_the_same_taps(self):
        r = self.generate({"target": "flow", "name": "hostile run", "save": True})
        res = sc(r)
        self.assertTrue(res["saved"])
        self.assertEqual([f["path"] for f in res["files"]], [".swipium/flows/hostile-run.yaml"])
        path = os.path.join(self.project, ".swipium", "flows", "hostile-run.yaml")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if os.environ.get("GENERATE_SHOW"):
            sys.stderr.write(text + "\n" + json.dumps(res) + "\n")
        doc = yaml.safe_load(text)
        self.assertEqual(doc["name"], "hostile run")
        steps = doc["steps"]
        self.assertEqual(steps[0], "prepareTarget")
        self.assertIn({"inputText": {"into": "id=com.example.hostile:id/password", "text": "${SWIPIUM_TEST_PASSWORD}",
                                     "secret": True}}, steps)
        self.assertIn({"tapAt": [540, 1440]}, steps)
        # a label holding a line break and a line of code: one line of it, a quoted string, data only
        self.assertIn({"tap": '");process.exit(1);//'}, steps)
        self.assertIn({"tap": '*/ close """ now'}, steps)
        self.assertIn({"assertVisual": VISUAL_IN_FLOW}, steps)
        # a label that reads as ${HOME} is matched by a part of it that holds none
        self.assertIn({"tap": "Pay the bill"}, steps)
        self.assertNotIn("${HOME}", text)
        self.assertNotIn("${", text.replace("${SWIPIUM_TEST_PASSWORD}", ""))
        # the password shown on the confirm screen: matched by the label's other part, never quoted
        self.assertIn({"tap": "Hi Ann, your code"}, steps)
        self.assertNotIn(PASSWORD, text)
        # the text assertions: the title as data (quotes, backslash), the done screen's text by its element; the
        # wait that timed out and the one on the password are not assertions in the flow, and are counted
        self.assertEqual([x for x in steps if isinstance(x, dict) and "assertVisible" in x],
                         [{"assertVisible": TITLE}, {"assertVisible": "Pay the bill"}, {"assertVisible": "All done"}])
        reasons = [k["reason"] for k in res["skipped"]]
        self.assertEqual(len(reasons), 2, res["skipped"])
        self.assertTrue(any("timed out" in x for x in reasons), reasons)
        self.assertTrue(any("secret" in x for x in reasons), reasons)
        self.assertTrue(res["check"]["valid"], res["check"])
        r = self.tool("qa_flow_check", {"projectRoot": self.project, "flow": "hostile-run"})
        self.assertEqual(sc(r)["errors"], [], sc(r))

        # replay from a fresh start: the same fields typed, the same elements tapped
        self.env.shell("am force-stop %s" % PKG)
        start = len(self.touches())
        r = self.tool("qa_flow_run", {"sessionId": self.sid, "flow": "hostile-run",
                                      "variables": {"SWIPIUM_TEST_PASSWORD": PASSWORD}}, ok=False, timeout=300)
        self.assertFalse(is_error(r), json.dumps(r)[:3000])
        self.assertTrue(sc(r)["passed"], sc(r))
        replay = self.taps(self.touches()[start:])
        self.assertEqual(replay, self.recorded_taps)
        # the swipe replays as a swipe on the same screen
        self.assertEqual([t["screen"] for t in self.touches()[start:] if t["kind"] == "swipe"],
                         [t["screen"] for t in self.recorded_touches if t["kind"] == "swipe"])
        # the form got the same values: the password reached the confirm screen's label (then the done screen)
        dump = self.env.shell("uiautomator dump /dev/tty")[1]
        self.assertIn("All done", dump)
        self.assert_no_secret_anywhere()

    def test_20_pom_pages_and_locator_audit(self):
        r = self.generate({"target": "pom", "save": True, "name": "hostile"})
        res = sc(r)
        paths = sorted(f["path"] for f in res["files"])
        self.assertIn(".swipium/locators/hostile.yaml", paths)
        pages = [p for p in paths if p.startswith(".swipium/pages/")]
        # the done screen has a page too: its text is asserted through its element
        self.assertEqual(sorted(pages), [".swipium/pages/ConfirmActivityPage.yaml", ".swipium/pages/DoneActivityPage.yaml",
                                         ".swipium/pages/FormActivityPage.yaml"])
        for p in paths:
            with open(os.path.join(self.project, p), encoding="utf-8") as f:
                yaml.safe_load(f)
        with open(os.path.join(self.project, ".swipium/pages/FormActivityPage.yaml"), encoding="utf-8") as f:
            form = yaml.safe_load(f)
        els = form["elements"]
        self.assertEqual(form["name"], "FormActivityPage")
        for name in els:
            self.assertRegex(name, r"^[A-Za-z_][A-Za-z0-9_]*$")
        self.assertEqual(els["password"]["id"], "com.example.hostile:id/password")
        self.assertTrue(els["password"]["secret"])
        self.assertIn("e2faCheck", els)
        self.assertEqual(els["e2faCheck"]["label"], "Überprüfen ✓ straße")
        brittle = [e for e in els.values() if e["quality"] == "brittle"]
        self.assertEqual(len(brittle), 1)
        self.assertEqual(brittle[0]["coordinates"], [540, 1440])
        self.assertIn("fix", brittle[0])
        labels = [e.get("label") for e in els.values()]
        self.assertIn("Line one\n\");process.exit(1);//", labels)
        with open(os.path.join(self.project, ".swipium/locators/hostile.yaml"), encoding="utf-8") as f:
            audit = yaml.safe_load(f)
        s = audit["summary"]
        self.assertEqual(s["total"], s["durable"] + s["semi"] + s["brittle"])
        self.assertEqual(s["brittle"], 1)
        self.assertEqual(res["locatorAudit"]["brittle"], 1)
        self.assert_no_secret_anywhere()

    def test_30_testcases_yaml_and_markdown(self):
        r = self.generate({"target": "testcases", "name": "hostile", "save": True, "budgetProfile": "guardrail"})
        res = sc(r)
        self.assertEqual(res["ignoredParameters"], ["budgetProfile"])
        self.assertTrue(any("budgetProfile" in n for n in res["notes"]))
        paths = sorted(f["path"] for f in res["files"])
        self.assertEqual(paths, [".swipium/testcases/hostile.md", ".swipium/testcases/hostile/TC-001.yaml",
                                 ".swipium/testcases/hostile/TC-002.yaml"])
        with open(os.path.join(self.project, ".swipium/testcases/hostile/TC-002.yaml"), encoding="utf-8") as f:
            tc2 = yaml.safe_load(f)
        self.assertEqual(tc2["title"], "MANUAL visual check: " + VISUAL)
        self.assertEqual(tc2["automation"]["status"], "manual")
        with open(os.path.join(self.project, ".swipium/testcases/hostile/TC-001.yaml"), encoding="utf-8") as f:
            tc1 = yaml.safe_load(f)
        for k in ("purpose", "priority", "preconditions", "steps", "expected", "actual", "automation",
                  "replayStatus", "evidence"):
            self.assertIn(k, tc1)
        self.assertTrue(any("${SWIPIUM_TEST_PASSWORD}" in p for p in tc1["preconditions"]))
        self.assertIn('Check that "%s" is shown' % TITLE, tc1["steps"])
        self.assertIn('"All done"', tc1["expected"])
        with open(os.path.join(self.project, ".swipium/testcases/hostile.md"), encoding="utf-8") as f:
            md = f.read()
        # Markdown: the label's specials are escaped, the line break is gone, nothing becomes a heading or code
        self.assertIn("\\*/ close", md)
        self.assertNotIn("\n\");process", md)
        self.assertIn("Überprüfen", md)
        self.assert_no_secret_anywhere()

    def test_40_suite_compiles_checks_and_replays(self):
        r = self.generate({"target": "suite", "name": "hostile suite", "replay": "dry_run", "format": "yaml"})
        res = sc(r)
        self.assertTrue(res["saved"])  # the suite target saves by default
        self.assertEqual(res["ignoredParameters"], ["format"])
        paths = sorted(f["path"] for f in res["files"])
        for want in (".swipium/suites/smoke.yaml", ".swipium/tests/hostile-suite.yaml",
                     ".swipium/flows/hostile-suite.yaml", ".swipium/compiled/hostile-suite.flow.yaml",
                     ".swipium/locators/hostile-suite.yaml", ".swipium/testcases/hostile-suite.md"):
            self.assertIn(want, paths)
        for p in paths:
            with open(os.path.join(self.project, p), encoding="utf-8") as f:
                if p.endswith(".yaml"):
                    yaml.safe_load(f)
        with open(os.path.join(self.project, ".swipium/tests/hostile-suite.yaml"), encoding="utf-8") as f:
            test = yaml.safe_load(f)
        self.assertIn({"type": {"into": "FormActivityPage.password", "text": "${SWIPIUM_TEST_PASSWORD}",
                                "secret": True}}, test["steps"])
        self.assertIn({"visualCheck": VISUAL_IN_FLOW}, test["steps"])
        self.assertIn({"assertText": {"text": TITLE}}, test["steps"])
        self.assertIn({"assertText": {"text": "All done"}}, test["steps"])
        with open(os.path.join(self.project, ".swipium/suites/smoke.yaml"), encoding="utf-8") as f:
            suite = yaml.safe_load(f)
        self.assertEqual(suite["tests"], ["tests/hostile-suite.yaml"])
        self.assertEqual(res["replay"]["status"], "validated")
        self.assertFalse(res["ciReady"])
        self.assertIn("compiled", res["readiness"])
        r = self.tool("qa_flow_check", {"projectRoot": self.project, "flow": "hostile-suite"})
        self.assertEqual(sc(r)["errors"], [])

        # the suite compiles with qa_flow_compile (the page objects resolved to selectors), and the compiled flow
        # checks clean and keeps the same steps as the flow qa_generate compiled itself
        with open(os.path.join(self.project, ".swipium/flows/hostile-suite.yaml"), encoding="utf-8") as f:
            ours_text = f.read()
            ours = yaml.safe_load(ours_text)
        self.assertTrue(res["compile"]["ok"], res["compile"])
        # the suite compiler's private folder is gone
        tmpdir = self.env.env.get("TMPDIR") or "/tmp"
        self.assertEqual(glob.glob(os.path.join(tmpdir, "swipium-gen-compile-*")), [])
        r = self.tool("qa_flow_compile", {"sessionId": self.sid})
        comp = sc(r)
        self.assertTrue(comp["ok"], json.dumps(comp)[:3000])
        self.assertEqual(comp["compiled"], 1, comp)
        # the lint's one error is the control found by a point only, as the locator audit says
        self.assertEqual([i["code"] for i in comp["pageIssues"] if i["level"] == "error"], ["COORDINATE_ONLY_LOCATOR"])
        with open(os.path.join(self.project, ".swipium/flows/hostile-suite.yaml"), encoding="utf-8") as f:
            theirs = yaml.safe_load(f)
        flat = lambda d: [x for x in (d.get("setup") or []) + d["steps"]]  # noqa: E731
        self.assertEqual(flat(theirs), flat(ours))
        # one compile path: qa_generate's compiled flow is the suite compiler's, byte for byte
        with open(os.path.join(self.project, ".swipium/compiled/hostile-suite.flow.yaml"), encoding="utf-8") as f:
            self.assertEqual(f.read(), ours_text)
        r = self.tool("qa_flow_check", {"projectRoot": self.project, "flow": "hostile-suite"})
        self.assertEqual(sc(r)["errors"], [])

        # fresh_state without a state profile: blocked, nothing run, never CI ready
        before = len(self.touches())
        r = self.generate({"target": "suite", "name": "hostile suite", "replay": "fresh_state"})
        self.assertEqual(sc(r)["replay"]["status"], "blocked")
        self.assertFalse(sc(r)["ciReady"])
        self.assertEqual(len(self.touches()), before)

        # same_session: the compiled flow replays on the device now
        self.env.shell("am force-stop %s" % PKG)
        start = len(self.touches())
        r = self.generate({"target": "suite", "name": "hostile suite", "replay": "same_session"}, ok=False)
        self.assertFalse(is_error(r), json.dumps(r)[:3000])
        res = sc(r)
        rep = res["replay"]
        self.assertEqual(rep["status"], "passed", rep)
        self.assertEqual(self.taps(self.touches()[start:]), self.recorded_taps)
        self.assertIn("replayed", res["readiness"])
        # one coordinate locator of ten is under the 40 % brittle threshold; SWIPIUM_* variables resolve in CI
        self.assertTrue(res["ciReady"], (res.get("ciReadyBlockers"), rep["check"].get("ci")))
        self.assertIn("ci_ready", res["readiness"])
        self.assert_no_secret_anywhere()

    def write_profile(self, name, text):
        d = os.path.join(self.project, ".swipium", "state")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name + ".yaml"), "w") as f:
            f.write(text)

    def test_45_fresh_state_with_a_state_profile(self):
        self.write_profile("fresh", "description: clean install, then relaunch\n"
                                    "prepare:\n  - clearState\n  - restartApp\nteardown:\n  - restartApp\n")
        args = {"target": "suite", "name": "hostile suite", "replay": "fresh_state", "stateProfile": "fresh"}
        # mode plan reads and checks the profile, asks nothing, runs nothing
        before = len(self.touches())
        r = self.generate(dict(args, mode="plan"))
        self.assertEqual(sc(r)["replay"]["status"], "planned", json.dumps(sc(r))[:1500])
        self.assertEqual(sc(r)["replay"]["stateProfile"], {"path": ".swipium/state/fresh.yaml", "risk": "high"})
        self.assertEqual(len(self.touches()), before)
        # the consent names every step of the profile; refused, nothing runs
        r = self.generate(args, ok=False)
        c = sc(r)
        self.assertTrue(c.get("requiresConsent"), json.dumps(r)[:1500])
        self.assertEqual(c["action"], "suite_fresh_state_replay")
        self.assertEqual(c["risk"], "high")  # clearState wipes the app's data
        prompt = json.dumps(r)
        for line in ("prepare 1: clearState", "prepare 2: restartApp", "teardown 1: restartApp"):
            self.assertIn(line, prompt)
        refused = dict(args, consentId=c["consentId"], approve=False)
        r = self.generate(refused, ok=False)
        self.assertEqual(code_of(r), "CONSENT_DECLINED", json.dumps(r)[:1500])
        self.assertEqual(len(self.touches()), before)
        # approved: prepare (clear + relaunch), the compiled suite, teardown; then CI ready
        c = sc(self.generate(args, ok=False))
        start = len(self.touches())
        r = self.generate(dict(args, consentId=c["consentId"], approve=True), ok=False)
        self.assertFalse(is_error(r), json.dumps(r)[:3000])
        res = sc(r)
        rep = res["replay"]
        self.assertEqual(rep["status"], "passed", json.dumps(rep)[:3000])
        self.assertEqual(rep["stateProfile"]["path"], ".swipium/state/fresh.yaml")
        self.assertEqual(rep["prepare"][0], {"step": "clearState", "outcome": "pass"})
        self.assertEqual([x["outcome"] for x in rep["prepare"] + rep["teardown"]], ["pass", "pass", "pass"])
        self.assertEqual([s["kind"] for s in rep["teardown"][0]["steps"]], ["restartApp"])
        self.assertEqual(self.taps(self.touches()[start:]), self.recorded_taps)
        self.assertTrue(res["ciReady"], res.get("ciReadyBlockers"))
        # a caller cannot skip the consent by passing the library's approval flag
        r = self.generate(dict(args, freshStateApproved=True), ok=False)
        self.assertEqual(code_of(r), "INVALID_ARGUMENT", json.dumps(r)[:1500])
        self.assert_no_secret_anywhere()

    def test_47_failed_prepare_skips_the_suite_and_still_tears_down(self):
        self.write_profile("broken", "prepare:\n  - assertVisible: \"No such screen\"\nteardown:\n  - restartApp\n")
        args = {"target": "suite", "name": "hostile suite", "replay": "fresh_state", "stateProfile": "broken"}
        c = sc(self.generate(args, ok=False))
        self.assertEqual(c.get("risk"), "medium", json.dumps(c)[:1500])  # restartApp mutates; nothing clears data
        start = len(self.touches())
        r = self.generate(dict(args, consentId=c["consentId"], approve=True), ok=False)
        rep = sc(r)["replay"]
        self.assertEqual(rep["status"], "failed", json.dumps(rep)[:2000])
        self.assertNotIn("run", rep)  # the suite never ran
        self.assertEqual([x["outcome"] for x in rep["prepare"]], ["fail"])
        self.assertEqual([x["outcome"] for x in rep["teardown"]], ["pass"])
        self.assertEqual(self.taps(self.touches()[start:]), [])
        self.assertFalse(sc(r)["ciReady"])

    def test_46_state_profile_escaping_by_symlink_is_refused(self):
        outside = os.path.join(self.tmp, "outside-state")
        os.makedirs(outside, exist_ok=True)
        with open(os.path.join(outside, "evil.yaml"), "w") as f:
            f.write("prepare:\n  - clearState\n")
        state = os.path.join(self.project, ".swipium", "state")
        if os.path.isdir(state) and not os.path.islink(state):
            shutil.rmtree(state)
        os.symlink(outside, state)
        try:
            before = len(self.touches())
            r = self.generate({"target": "suite", "name": "hostile suite", "replay": "fresh_state",
                               "stateProfile": "evil"}, ok=False)
            self.assertTrue(is_error(r))
            self.assertEqual(code_of(r), "UNSAFE_ACTION_REFUSED", json.dumps(r)[:1500])
            self.assertEqual(len(self.touches()), before)
            # a bad profile is refused before any consent or device work
            r = self.generate({"target": "suite", "replay": "fresh_state", "stateProfile": "../x"}, ok=False)
            self.assertEqual(code_of(r), "INVALID_ARGUMENT", json.dumps(r)[:1500])
        finally:
            os.remove(state)

    def test_50_plan_writes_nothing(self):
        before = self.swipium_files()
        for target in ("flow", "pom", "suite", "testcases"):
            r = self.generate({"target": target, "mode": "plan", "name": "planned", "save": True})
            res = sc(r)
            self.assertFalse(res["saved"], target)
            self.assertTrue(res["files"], target)
        self.assertEqual(self.swipium_files(), before)

    def test_55_empty_name_takes_the_default(self):
        r = self.generate({"target": "flow", "name": ""})
        self.assertEqual(sc(r)["name"], "hostile-recorded")
        self.assertTrue(sc(r)["check"]["valid"])
        self.assertEqual(yaml.safe_load(sc(r)["content"])["name"], "hostile-recorded")

    def test_60_secret_in_a_name_is_refused_and_nothing_written(self):
        before = self.swipium_files()
        for target in ("flow", "suite", "testcases"):
            r = self.generate({"target": target, "name": "run " + PASSWORD, "save": True}, ok=False)
            self.assertTrue(is_error(r), target)
            self.assertEqual(code_of(r), "SECRET_IN_GENERATED_OUTPUT", json.dumps(r)[:1500])
            self.assertNotIn(PASSWORD, json.dumps(r))
        self.assertEqual(self.swipium_files(), before)

    def test_70_nothing_recorded(self):
        r = self.tool("qa_start_session", {"projectRoot": self.project})
        fresh = sc(r)["sessionId"]
        before = self.swipium_files()
        for target in ("flow", "pom", "suite", "testcases", "appium"):
            r = self.tool("qa_generate", {"sessionId": fresh, "target": target}, ok=False)
            self.assertTrue(is_error(r), target)
            self.assertEqual(code_of(r), "NO_RECORDED_ACTIONS", json.dumps(r)[:1500])
        self.assertEqual(self.swipium_files(), before)

    def test_75_smoke_runs_are_recorded(self):
        # a second project whose only saved flow is the suite's compiled flow (typed password by placeholder)
        proj = os.path.join(self.tmp, "smoke-app")
        os.makedirs(os.path.join(proj, ".swipium", "flows"), exist_ok=True)
        with open(os.path.join(proj, "package.json"), "w") as f:
            f.write("{}")
        src = os.path.join(self.project, ".swipium", "flows", "hostile-suite.yaml")
        shutil.copy(src, os.path.join(proj, ".swipium", "flows", "hostile-suite.yaml"))
        with open(src, encoding="utf-8") as f:
            flow = yaml.safe_load(f)
        r = self.tool("qa_start_session", {"projectRoot": proj,
                                           "budget": {"maxActions": 1000, "maxNoChangeActions": 1000}})
        sid = sc(r)["sessionId"]
        self.tool("qa_prepare_target", {"sessionId": sid, "appId": PKG})
        self.env.shell("am force-stop %s" % PKG)
        start = len(self.touches())
        r = self.tool("qa_smoke", {"sessionId": sid}, timeout=240)
        got = {f["flow"]: f["outcome"] for f in sc(r)["flows"]}
        self.assertEqual(got, {"hostile-suite.yaml": "pass"}, json.dumps(sc(r))[:2000])
        self.assertEqual(self.taps(self.touches()[start:]), self.recorded_taps)
        # qa_generate after the smoke has steps: the same steps as the flow the smoke ran
        r = self.tool("qa_generate", {"sessionId": sid, "target": "flow", "name": "from smoke", "save": True})
        self.assertGreater(sc(r)["steps"], 0)
        with open(os.path.join(proj, ".swipium", "flows", "from-smoke.yaml"), encoding="utf-8") as f:
            again = yaml.safe_load(f)
        # the smoke's acts are in the recording (tool qa_smoke), the password only as its placeholder
        states = glob.glob(os.path.join(self.env.server.home, ".swipium", "**", sid, "state.json"), recursive=True)
        self.assertEqual(len(states), 1)
        deadline = time.time() + 10
        while True:
            with open(states[0], encoding="utf-8") as f:
                raw = f.read()
            recs = json.loads(raw).get("recordedActions") or []
            if len(recs) >= sc(r)["steps"] or time.time() > deadline:
                break
            time.sleep(0.2)
        self.assertNotIn(PASSWORD, raw)
        self.assertTrue(recs)
        self.assertEqual({x["tool"] for x in recs}, {"qa_smoke"})
        typed = [x for x in recs if x["action"] == "type"]
        self.assertEqual([x["text"] for x in typed], ["Ann", "${SWIPIUM_TEST_PASSWORD}"])
        # the same steps (selectors, placeholders), less the visual checkpoint, which a flow run does not record
        plain = lambda d: [x for x in (d.get("setup") or []) + d["steps"]  # noqa: E731
                           if not (isinstance(x, dict) and "assertVisual" in x)]
        self.assertEqual(plain(again), plain(flow))

    def test_80_appium(self):
        before = self.swipium_files()
        r = self.generate({"target": "appium", "language": "python"}, ok=False)
        sys.stderr.write("appium target: %s\n" % ("refused " + str(code_of(r)) if is_error(r) else "generated"))
        if is_error(r):
            # until the Appium emitter is merged: refused, nothing written
            self.assertEqual(code_of(r), "UNEMITTABLE_STEP", json.dumps(r)[:1500])
            self.assertEqual(self.swipium_files(), before)
        else:
            files = sc(r)["files"]
            self.assertTrue(files)
            for f in files:
                self.assertTrue(f["path"].startswith(".swipium/automation/python/"), f)
                full = os.path.join(self.project, f["path"])
                if f["path"].endswith(".py"):
                    with open(full, encoding="utf-8") as fh:
                        compile(fh.read(), full, "exec")  # every module is valid Python
            self.assert_no_secret_anywhere()
            # the text assertions are real Python assertions; the title only inside a string literal
            with open(os.path.join(self.project, ".swipium/automation/python/tests/test_smoke.py"),
                      encoding="utf-8") as fh:
                smoke = fh.read()
            self.assertIn("assert_text_visible(", smoke)
            self.assertIn("assert_element_text(", smoke)
            self.assertNotIn("\n" + TITLE, smoke)
            # integrateIntoProject asks automation_project_write first and never overwrites a file
            first = files[0]["path"]
            with open(os.path.join(self.project, first), "w") as fh:
                fh.write("# edited by a person\n")
            args = {"target": "appium", "language": "python", "integrateIntoProject": True}
            r = self.generate(args, ok=False)
            c = sc(r)
            self.assertTrue(c.get("requiresConsent"), json.dumps(r)[:1500])
            self.assertEqual(c["action"], "automation_project_write")
            args.update({"consentId": c["consentId"], "approve": True})
            r = self.generate(args)
            self.assertIn(first, sc(r)["keptExisting"])
            with open(os.path.join(self.project, first)) as fh:
                self.assertEqual(fh.read(), "# edited by a person\n")

    def test_90_symlinked_output_folder_is_refused(self):
        outside = os.path.join(self.tmp, "outside")
        os.makedirs(outside, exist_ok=True)
        flows = os.path.join(self.project, ".swipium", "flows")
        moved = flows + ".real"
        os.rename(flows, moved)
        os.symlink(outside, flows)
        try:
            r = self.generate({"target": "flow", "name": "escape", "save": True}, ok=False)
            self.assertTrue(is_error(r))
            self.assertEqual(code_of(r), "UNSAFE_ACTION_REFUSED", json.dumps(r)[:1500])
            self.assertEqual(os.listdir(outside), [])
        finally:
            os.remove(flows)
            os.rename(moved, flows)


if __name__ == "__main__":
    unittest.main(verbosity=2)
