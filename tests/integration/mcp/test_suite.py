"""test_suite.py: POM suites and the canonical test suite through real swipium-mcp processes and the `swipium`
CLI (issue 16 items 4-6): qa_flow_compile (flows that load as YAML and pass qa_flow_check, labels kept as data,
suites and tests that point out of the project by ../ or a symlink refused with nothing written), the
test-suite tools (ids, dedupe of re-spaced steps, manual cases never overwritten, replace_generated, ids never
reused, a corrupt or hand-edited test-suite.json), the exports checked by their consumers (xmllint --schema
junit-10.xsd, PyYAML), the lint, and `swipium suite lint|compile|init` exit codes."""
import glob
import json
import os
import re
import subprocess
import sys
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mcpclient import ServerTestCase  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
JUNIT_XSD = os.path.join(SOURCE_ROOT, "tests", "data", "schemas", "junit-10.xsd")
CLI = os.environ.get("SWIPIUM_CLI", "swipium")

# Labels a screen may show: both quotes, backslashes, ${...}, a newline followed by code, comment closers.
HOSTILE = 'Say "hi" it\'s \\ C:\\path ${HOME} */ """\nprocess.exit(1) // ü ✓ 3rd'

PAGE = """name: LoginPage
screen: login
elements:
  email:
    id: com.example:id/email
  password:
    id: password
    secret: true
  signIn:
    accessibilityId: sign_in
  welcome:
    text: "Welcome back"
"""

TEST = """name: login smoke
appId: com.example.app
setup:
  - prepareTarget
steps:
  - type: {into: LoginPage.email, text: "${SWIPIUM_TEST_EMAIL}"}
  - type: {into: LoginPage.password, text: "${SWIPIUM_TEST_PASSWORD}"}
  - tap: {page: LoginPage, element: signIn}
  - assertVisible: LoginPage.welcome
  - visualCheck: the avatar shows the initials
  - swipe: up
  - wait: 500
"""

SUITE = """name: smoke
tests:
  - tests/login.yaml
"""


class SuiteCase(ServerTestCase):
    home_prefix = "swipium-suite-home-"
    server_env = {"SWIPIUM_PROJECT_ROOT": "", "CLAUDE_PROJECT_DIR": "", "SWIPIUM_LOG_LEVEL": "error"}

    def server(self, env=None):
        s = super().server(env)
        s.initialize()
        return s

    def ok(self, s, name, args):
        r = s.tool(name, args)["result"]
        self.assertNotIn("isError", r, json.dumps(r)[:3000])
        return r["structuredContent"]

    def err(self, s, name, args, code):
        r = s.tool(name, args)["result"]
        self.assertTrue(r.get("isError"), json.dumps(r)[:3000])
        self.assertEqual(r["structuredContent"]["failureCode"], code, r["structuredContent"])
        return r["structuredContent"]

    def write(self, rel, text, root=None):
        path = os.path.join(root or self.app, ".swipium", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def pom(self, page=PAGE, test=TEST, suite=SUITE):
        self.write("pages/login.yaml", page)
        self.write("tests/login.yaml", test)
        self.write("suites/smoke.yaml", suite)

    def cli(self, *args):
        return subprocess.run([CLI] + list(args), capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, HOME=self.home))

    def suite_file(self):
        return os.path.join(self.app, ".swipium", "test-suite.json")

    def load_suite(self):
        with open(self.suite_file()) as f:
            return json.load(f)


class Compile(SuiteCase):
    def test_compiles_checked_flows_that_load(self):
        self.pom()
        s = self.server()
        r = self.ok(s, "qa_flow_compile", {"projectRoot": self.app})
        self.assertTrue(r["ok"], r)
        self.assertEqual((r["tests"], r["compiled"]), (1, 1))
        f = r["flows"][0]
        self.assertEqual(f["slug"], "login-smoke")
        self.assertEqual(sorted(f["variables"]), ["SWIPIUM_TEST_EMAIL", "SWIPIUM_TEST_PASSWORD"])
        for rel in (".swipium/flows/login-smoke.yaml", ".swipium/compiled/login-smoke.flow.yaml"):
            with open(os.path.join(self.app, rel)) as fh:
                doc = yaml.safe_load(fh)
            self.assertEqual(doc["name"], "login smoke")
            self.assertEqual(doc["appId"], "com.example.app")
            self.assertEqual(doc["setup"], ["prepareTarget"])
            self.assertEqual(doc["steps"], [
                {"inputText": {"into": "id=com.example:id/email", "text": "${SWIPIUM_TEST_EMAIL}"}},
                {"inputText": {"into": "id=password", "text": "${SWIPIUM_TEST_PASSWORD}", "secret": True}},
                {"tap": "accessibility id=sign_in"},
                {"assertVisible": "Welcome back"},
                {"assertVisual": "the avatar shows the initials"},
                {"swipe": "up"},
                {"wait": 500},
            ])
        # the real consumer of a compiled flow: our own checker, by name
        c = self.ok(s, "qa_flow_check", {"projectRoot": self.app, "flow": "login-smoke"})
        self.assertTrue(c["valid"], c)
        self.assertEqual(c["stepCount"], 8)  # setup + steps
        # idempotent: a second compile writes the same bytes
        with open(os.path.join(self.app, ".swipium/flows/login-smoke.yaml"), "rb") as fh:
            first = fh.read()
        self.ok(s, "qa_flow_compile", {"projectRoot": self.app, "suite": "suites/smoke.yaml"})
        with open(os.path.join(self.app, ".swipium/flows/login-smoke.yaml"), "rb") as fh:
            self.assertEqual(fh.read(), first)

    def test_labels_stay_data(self):
        page = PAGE + "  hostile:\n    text: %s\n  coord:\n    coordinates: [12, 34]\n" % json.dumps(HOSTILE)
        test = TEST.replace("  - swipe: up\n", "  - tap: LoginPage.hostile\n  - tap: LoginPage.coord\n"
                            "  - assertVisible: {text: %s}\n" % json.dumps("a\nb: c"))
        self.pom(page=page, test=test)
        s = self.server()
        r = self.ok(s, "qa_flow_compile", {"projectRoot": self.app})
        self.assertTrue(r["ok"], r)
        with open(os.path.join(self.app, ".swipium/flows/login-smoke.yaml")) as fh:
            text = fh.read()
        doc = yaml.safe_load(text)
        steps = doc["steps"]
        # ${HOME} is never a variable reference in a flow: the longest part without it is used
        hostile_tap = steps[5]["tap"]
        self.assertNotIn("${", hostile_tap)
        self.assertIn(hostile_tap, HOSTILE)
        self.assertTrue(hostile_tap.startswith("*/ \"\"\"\nprocess.exit(1)"), hostile_tap)
        self.assertEqual(steps[6], {"tapAt": [12, 34]})
        self.assertEqual(steps[7], {"assertVisible": "a\nb: c"})
        # the label never became YAML structure or a line of its own
        self.assertNotIn("\nprocess.exit", text)
        self.assertNotIn("HOME", r["flows"][0]["variables"])
        c = self.ok(s, "qa_flow_check", {"projectRoot": self.app, "flow": "login-smoke"})
        self.assertTrue(c["valid"], c)

    def test_slug_and_unknown_refs(self):
        self.pom(test=TEST.replace("name: login smoke", "name: \"Log in: ü/..\\\\x\"")
                 .replace("LoginPage.welcome", "LoginPage.nope").replace("{page: LoginPage, element: signIn}",
                                                                           "HomePage.signIn"))
        s = self.server()
        r = self.ok(s, "qa_flow_compile", {"projectRoot": self.app})
        self.assertFalse(r["ok"])
        f = r["flows"][0]
        self.assertEqual(f["slug"], "Log-in-..-x")
        msgs = " | ".join(e["message"] for e in f["errors"])
        self.assertIn('unknown page object "HomePage"', msgs)
        self.assertIn('no element "nope"', msgs)
        self.assertFalse(os.path.exists(os.path.join(self.app, ".swipium", "flows")))

    def test_escapes_refused_nothing_written(self):
        outside = os.path.join(self.home, "outside")
        os.makedirs(outside)
        with open(os.path.join(outside, "evil.yaml"), "w") as f:
            f.write(TEST)
        s = self.server()
        self.write("pages/login.yaml", PAGE)
        self.write("tests/login.yaml", TEST)
        cases = {
            "dotdot": "name: s\ntests:\n  - tests/login.yaml\n  - ../../outside/evil.yaml\n",
            "symlink": "name: s\ntests:\n  - tests/login.yaml\n  - tests/link.yaml\n",
            "map": "name: s\ntests:\n  - path: tests/login.yaml\n  - path: ../../outside/evil.yaml\n",
        }
        os.symlink(os.path.join(outside, "evil.yaml"), os.path.join(self.app, ".swipium", "tests", "link.yaml"))
        for label, suite in cases.items():
            self.write("suites/smoke.yaml", suite)
            e = self.err(s, "qa_flow_compile", {"projectRoot": self.app}, "UNSAFE_ACTION_REFUSED")
            self.assertIn("outside the project", e["what"], label)
            self.assertFalse(os.path.exists(os.path.join(self.app, ".swipium", "flows")), label)
            self.assertFalse(os.path.exists(os.path.join(self.app, ".swipium", "compiled")), label)
        # the suite itself through ../ and through a link
        self.err(s, "qa_flow_compile", {"projectRoot": self.app, "suite": "../../outside/evil.yaml"},
                 "UNSAFE_ACTION_REFUSED")
        os.symlink(os.path.join(outside, "evil.yaml"), os.path.join(self.app, ".swipium", "suites", "l.yaml"))
        self.err(s, "qa_flow_compile", {"projectRoot": self.app, "suite": "suites/l.yaml"}, "UNSAFE_ACTION_REFUSED")
        # a page object linked out of the project
        self.write("suites/smoke.yaml", SUITE)
        os.symlink(os.path.join(outside, "evil.yaml"), os.path.join(self.app, ".swipium", "pages", "evil.yaml"))
        self.err(s, "qa_flow_compile", {"projectRoot": self.app}, "UNSAFE_ACTION_REFUSED")
        self.assertFalse(os.path.exists(os.path.join(self.app, ".swipium", "flows")))
        # the CLI refuses the same way, exit 2
        p = self.cli("suite", "compile", self.app)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("outside the project", p.stderr)

    def test_pages_folder_linked_out(self):
        outside = os.path.join(self.home, "outside-pages")
        os.makedirs(outside)
        with open(os.path.join(outside, "login.yaml"), "w") as f:
            f.write(PAGE)
        self.write("tests/login.yaml", TEST)
        self.write("suites/smoke.yaml", SUITE)
        os.symlink(outside, os.path.join(self.app, ".swipium", "pages"))
        s = self.server()
        self.err(s, "qa_flow_compile", {"projectRoot": self.app}, "UNSAFE_ACTION_REFUSED")
        self.err(s, "qa_suite_lint", {"projectRoot": self.app}, "UNSAFE_ACTION_REFUSED")
        self.assertFalse(os.path.exists(os.path.join(self.app, ".swipium", "flows")))
        for sub in ("lint", "compile"):
            p = self.cli("suite", sub, self.app)
            self.assertEqual(p.returncode, 2, sub)
            self.assertIn("outside the project root", p.stderr, sub)

    def test_missing_and_broken_suite(self):
        s = self.server()
        self.err(s, "qa_flow_compile", {"projectRoot": self.app}, "FLOW_NOT_FOUND")
        self.write("suites/smoke.yaml", "name: [unclosed\n")
        e = self.err(s, "qa_flow_compile", {"projectRoot": self.app}, "INVALID_FLOW")
        self.assertIn("suites/smoke.yaml:", e["what"])
        self.write("suites/smoke.yaml", "a: &x 1\nb: *x\n")
        self.err(s, "qa_flow_compile", {"projectRoot": self.app}, "INVALID_FLOW")
        self.write("suites/smoke.yaml", "name: s\n")
        self.err(s, "qa_flow_compile", {"projectRoot": self.app}, "INVALID_FLOW")
        # an unknown key in a suite is an error of the suite: not ok, and the CLI exits 2
        self.pom(suite=SUITE + "retries: 3\n")
        r = self.ok(s, "qa_flow_compile", {"projectRoot": self.app})
        self.assertFalse(r["ok"])
        self.assertIn('unknown key "retries"', r["suiteErrors"][0]["message"])
        p = self.cli("suite", "compile", self.app)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn('suite: unknown key "retries"', p.stdout)

    def test_non_yaml_page_object(self):
        self.pom()
        self.write("pages/broken.yaml", "this: is: not: yaml: [\n\x00")
        self.write("pages/notes.yaml", "- just\n- a list\n")
        s = self.server()
        r = self.ok(s, "qa_flow_compile", {"projectRoot": self.app})
        self.assertTrue(r["ok"], r)  # the test does not use the broken pages
        files = sorted(i["file"] for i in r["pageIssues"] if i["code"] == "INVALID_PAGE_OBJECT")
        self.assertEqual(files, [".swipium/pages/broken.yaml", ".swipium/pages/notes.yaml"])
        p = self.cli("suite", "lint", self.app)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("broken.yaml", p.stdout)
        lint = self.ok(s, "qa_suite_lint", {"projectRoot": self.app})
        self.assertIn("INVALID_PAGE_OBJECT", [e["code"] for e in lint["errors"]])


class Cli(SuiteCase):
    def test_exit_codes(self):
        p = self.cli("suite", "lint", self.app)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)  # no .swipium/pages
        self.pom()
        p = self.cli("suite", "lint", self.app)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)  # text locator: a warning only
        self.assertIn("LOCALE_FRAGILE_LOCATOR", p.stdout)
        self.write("pages/map.yaml", "name: MapPage\nelements:\n  pin:\n    coordinates: [1, 2]\n  row:\n"
                   "    id: item_12345\n")
        p = self.cli("suite", "lint", self.app)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("COORDINATE_ONLY_LOCATOR", p.stdout)
        self.assertIn("DYNAMIC_LOCATOR", p.stdout)
        p = self.cli("suite", "compile", self.app)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(".swipium/flows/login-smoke.yaml", p.stdout)
        p = self.cli("suite", "compile", self.app, "--suite", "suites/none.yaml")
        self.assertEqual(p.returncode, 2)
        self.write("suites/bad.yaml", "name: bad\ntests:\n  - tests/bad.yaml\n")
        self.write("tests/bad.yaml", "name: bad\nsteps:\n  - tap: LoginPage.missing\n")
        p = self.cli("suite", "compile", self.app, "--suite=suites/bad.yaml")
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("FAIL", p.stdout)
        p = self.cli("suite", "init")
        self.assertEqual(p.returncode, 0)
        self.assertEqual(len([ln for ln in p.stdout.splitlines() if ln[:2] in ("1.", "2.", "3.", "4.", "5.", "6.")]), 6)
        for bad in (["suite"], ["suite", "frobnicate"], ["suite", "lint", "--bogus"], ["suite", "compile", "--suite"],
                    ["suite", "lint", self.app, "extra"]):
            p = self.cli(*bad)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("Usage: swipium suite", p.stderr, bad)
        # a long unknown option of non-ASCII letters is named, cut on a character boundary (valid UTF-8)
        long_opt = "--" + "\u00e9" * 300
        q = subprocess.run([CLI, "suite", "lint", long_opt], capture_output=True, timeout=60,
                           env=dict(os.environ, HOME=self.home))
        self.assertEqual(q.returncode, 2)
        err = q.stderr.decode("utf-8")  # raises on a split character
        self.assertIn("Unknown argument: --\u00e9\u00e9", err)
        self.assertIn("\u2026", err)
        p = self.cli("suite", "lint", os.path.join(self.home, "nope"))
        self.assertEqual(p.returncode, 2)
        # terminal safety: an ANSI escape in a page file never reaches stdout raw
        self.write("pages/ansi.yaml", "name: AnsiPage\nelements:\n  x:\n    text: \"\\e[31mred\\e[0m\"\n")
        p = self.cli("suite", "lint", self.app)
        self.assertNotIn("\x1b", p.stdout)


def case(feature, title, steps, **kw):
    c = {"feature": feature, "title": title, "objective": title, "steps": steps, "expected": "it works"}
    c.update(kw)
    return c


class CanonicalSuite(SuiteCase):
    def test_ids_dedupe_and_merge_twice(self):
        s = self.server()
        cases = [case("login", "Sign in works", ["Open app", "Sign in"]),
                 case("login", "Wrong password", ["Open app", "Sign in with a wrong password"]),
                 case("user profile", "Edit name", ["Open profile", "Edit the name"])]
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "report", "cases": cases})
        self.assertEqual(r["created"], ["TC-LOGIN-001", "TC-LOGIN-002", "TC-USER_PROFILE-001"])
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "report", "cases": cases})
        self.assertEqual((r["created"], r["updated"]), ([], []))
        self.assertEqual(len(r["unchanged"]), 3)
        # the same cases with re-spaced, re-cased steps are the same cases
        respaced = [dict(c, steps=["  " + st.upper().replace(" ", "   \t ") + " " for st in c["steps"]],
                         objective="  " + c["objective"].lower() + "\n") for c in cases]
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "report", "cases": respaced,
                                           "mergeMode": "append"})
        self.assertEqual(r["created"], [])
        self.assertEqual(len(self.load_suite()["cases"]), 3)
        # ids are never reused: remove TC-LOGIN-002 by hand, the next login case is 003
        doc = self.load_suite()
        doc["cases"] = [c for c in doc["cases"] if c["id"] != "TC-LOGIN-002"]
        with open(self.suite_file(), "w") as f:
            json.dump(doc, f)
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "ticket",
                                           "cases": [case("login", "Forgot password", ["Tap forgot"])]})
        self.assertEqual(r["created"], ["TC-LOGIN-003"])
        # partial cases are normalized; an empty one is left out and said so
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "manual",
                                           "cases": [{"title": "Only a title"}, {"priority": "high"}]})
        self.assertEqual(r["created"], ["TC-GENERAL-001"])
        self.assertEqual(r["skippedCases"], 1)
        self.assertTrue(any("left out" in n for n in r["notes"]), r["notes"])
        c = [c for c in self.load_suite()["cases"] if c["id"] == "TC-GENERAL-001"][0]
        self.assertEqual((c["objective"], c["status"], c["priority"], c["source"]),
                         ("Only a title", "active", "medium", "manual"))

    def test_manual_cases_are_never_overwritten(self):
        s = self.server()
        manual = case("checkout", "Pay with card", ["Open cart", "Pay"], expected="Receipt shows",
                      priority="critical")
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "manual", "cases": [manual]})
        cid = r["created"][0]
        gen = dict(manual, id=cid, expected="Something else", priority="low", actual="Receipt shown",
                   lastResult="passed")
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "report", "cases": [gen],
                                           "mergeMode": "replace_generated"})
        fields = sorted(c["field"] for c in r["conflicts"])
        self.assertEqual(fields, ["expected", "priority"])
        c = self.load_suite()["cases"][0]
        self.assertEqual((c["expected"], c["priority"], c["source"]), ("Receipt shows", "critical", "manual"))
        self.assertEqual((c["actual"], c["lastResult"]), ("Receipt shown", "passed"))  # not curated: updated
        self.assertEqual(r["updated"], [cid])

    def test_replace_generated_deprecates(self):
        s = self.server()
        a, b = case("feed", "Feed loads", ["Open feed"]), case("feed", "Feed refreshes", ["Pull down"])
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "generate", "cases": [a, b]})
        self.assertEqual(len(r["created"]), 2)
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "generate",
                                           "cases": [dict(a, expected="The feed shows 10 posts")],
                                           "mergeMode": "replace_generated"})
        self.assertEqual(r["updated"], ["TC-FEED-001"])
        self.assertEqual(r["deprecated"], ["TC-FEED-002"])
        st = {c["id"]: c["status"] for c in self.load_suite()["cases"]}
        self.assertEqual(st, {"TC-FEED-001": "active", "TC-FEED-002": "deprecated"})
        read = self.ok(s, "qa_suite_read", {"projectRoot": self.app, "status": "deprecated", "format": "json"})
        self.assertEqual([c["id"] for c in read["cases"]], ["TC-FEED-002"])

    def test_corrupt_suite_is_never_replaced_by_empty(self):
        s = self.server()
        os.makedirs(os.path.join(self.app, ".swipium"), exist_ok=True)
        bad = '{"cases": [{"id": "TC-A-001", "title": "kept"}'  # truncated
        with open(self.suite_file(), "w") as f:
            f.write(bad)
        for tool, args in (("qa_suite_read", {}), ("qa_suite_lint", {}), ("qa_suite_export", {"format": "json"})):
            e = self.err(s, tool, dict(args, projectRoot=self.app), "UNKNOWN")
            self.assertIn("cannot be read", e["what"], tool)
            self.assertIn("not treated as an empty suite", e["what"], tool)
            with open(self.suite_file()) as f:
                self.assertEqual(f.read(), bad, tool)
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "manual",
                                           "cases": [case("a", "new", ["x"])]})
        aside = glob.glob(self.suite_file() + ".corrupt-*")
        self.assertEqual(len(aside), 1)
        with open(aside[0]) as f:
            self.assertEqual(f.read(), bad)
        self.assertTrue(any(".corrupt-" in n for n in r["notes"]), r["notes"])
        self.assertEqual(len(self.load_suite()["cases"]), 1)
        # valid JSON that is not a suite is refused the same way
        with open(self.suite_file(), "w") as f:
            f.write('[1, 2]')
        self.err(s, "qa_suite_read", {"projectRoot": self.app}, "UNKNOWN")

    def test_hand_edited_duplicate_ids(self):
        s = self.server()
        self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "manual",
                                       "cases": [case("a", "one", ["x"]), case("a", "two", ["y"])]})
        doc = self.load_suite()
        doc["cases"][1]["id"] = doc["cases"][0]["id"]
        with open(self.suite_file(), "w") as f:
            json.dump(doc, f)
        lint = self.ok(s, "qa_suite_lint", {"projectRoot": self.app})
        self.assertFalse(lint["ok"])
        self.assertEqual([e["code"] for e in lint["errors"]].count("DUPLICATE_ID"), 2)
        r = self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "manual",
                                           "cases": [case("a", "three", ["z"])]})
        self.assertEqual(r["created"], ["TC-A-003"])  # 002 was given once; numbers are never reused
        self.assertTrue(any("duplicate id" in n for n in r["notes"]), r["notes"])
        ex = self.ok(s, "qa_suite_export", {"projectRoot": self.app, "format": "yaml", "save": True})
        self.assertEqual(len(ex["files"]), 3)  # both twins kept, none overwritten

    def test_lint_rules(self):
        s = self.server()
        self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "report", "cases": [
            {"feature": "a", "title": "no expected", "steps": ["x"]},
            case("a", "ran without actual", ["x"], lastResult="failed"),
            {"title": "unlinked", "steps": ["x"], "expected": "y"},
            case("gone", "stale", ["x"]),
            case("a", "brittle", ["x"], automation={"flow": "f", "locatorGrade": "C"}),
            case("a", "hostile", ["x"], type="adversarial"),
            case("a", "hostile but safe", ["x"], type="adversarial", safety={"dataPolicy": "test only"}),
        ]})
        lint = self.ok(s, "qa_suite_lint", {"projectRoot": self.app, "liveFeatureIds": ["a"]})
        codes = sorted([e["code"] for e in lint["errors"]] + [w["code"] for w in lint["warnings"]])
        self.assertEqual(codes, ["ADVERSARIAL_WITHOUT_SAFETY", "BRITTLE_AUTOMATION", "MISSING_ACTUAL_RESULT",
                                 "MISSING_EXPECTED_RESULT", "STALE_LINK", "UNLINKED_CASE"])
        lint = self.ok(s, "qa_suite_lint", {"projectRoot": self.app, "brittleThreshold": "D"})
        codes = [w["code"] for w in lint["warnings"]]
        self.assertNotIn("BRITTLE_AUTOMATION", codes)
        self.assertNotIn("STALE_LINK", codes)  # only with liveFeatureIds
        self.err(s, "qa_suite_lint", {"projectRoot": self.app, "brittleThreshold": "B"}, "INVALID_ARGUMENT")

    def test_exports_pass_their_consumers(self):
        s = self.server()
        titles = ["\x1b[31mRed\x1b[0m alert", "CDATA ]]> end <b>&amp;", "ctrl \x01\x07 \ufffe chars", HOSTILE]
        cases = [case("alerts", t, ["step " + t], functionality="Alerts & <Co>") for t in titles]
        cases[0]["lastResult"], cases[0]["actual"] = "failed", "crashed ]]> \x1b[0m"
        cases[1]["lastResult"], cases[1]["actual"] = "passed", "fine"
        cases[2]["status"] = "blocked"
        self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "report", "cases": cases})
        ex = self.ok(s, "qa_suite_export", {"projectRoot": self.app, "format": "junit", "save": True})
        self.assertEqual(ex["files"], [".swipium/test-suite-export/test-suite.junit.xml"])
        path = os.path.join(self.app, ex["files"][0])
        p = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_XSD, path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(path, "rb") as f:
            xml = f.read()
        self.assertNotIn(b"\x1b", xml)
        self.assertNotIn(b"\x01", xml)
        import xml.etree.ElementTree as ET
        root = ET.fromstring(xml)
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("errors")), ("4", "1", "1"))
        tcs = root.findall(".//testcase")
        self.assertEqual(len(tcs), 4)
        self.assertIn("CDATA ]]> end <b>&amp;", tcs[1].get("name"))
        # yaml: a file per case in a folder per functionality, each loads
        ex = self.ok(s, "qa_suite_export", {"projectRoot": self.app, "format": "yaml", "save": True})
        self.assertEqual(len(ex["files"]), 4)
        for rel in ex["files"]:
            self.assertTrue(rel.startswith(".swipium/test-suite-export/yaml/Alerts-Co-/"), rel)
            with open(os.path.join(self.app, rel)) as f:
                doc = yaml.safe_load(f)
            self.assertTrue(doc["id"].startswith("TC-ALERTS-"))
        with open(os.path.join(self.app, ex["files"][3])) as f:
            self.assertEqual(yaml.safe_load(f)["title"], HOSTILE)
        # markdown and json
        md = self.ok(s, "qa_suite_export", {"projectRoot": self.app, "format": "markdown"})
        self.assertNotIn("\x1b", md["content"])
        self.assertIn("\\[31mRed", md["content"])
        js = self.ok(s, "qa_suite_export", {"projectRoot": self.app, "format": "json"})
        self.assertEqual(len(json.loads(js["content"])["cases"]), 4)
        self.err(s, "qa_suite_export", {"projectRoot": self.app, "format": "pdf"}, "INVALID_ARGUMENT")
        self.assertNotIn("contentTruncated", js)

    def test_large_export_is_capped_inline_and_whole_on_disk(self):
        s = self.server()
        # under the server's 4 MB message limit as JSON, over the 1 MB inline cap as markdown
        big = [case("bulk", "case %d " % i + "ab" * 300 + "ü" * 20, ["step %d" % i]) for i in range(2000)]
        self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "report", "cases": big})
        ex = self.ok(s, "qa_suite_export", {"projectRoot": self.app, "format": "markdown"})
        t = ex["contentTruncated"]
        self.assertGreater(t["bytes"], 1024 * 1024)
        self.assertLess(len(ex["content"].encode()), t["bytes"])
        self.assertIn("save:true", t["reason"])
        rd = self.ok(s, "qa_suite_read", {"projectRoot": self.app, "format": "json"})
        self.assertEqual(rd["total"], 2000)
        self.assertEqual(len(rd["cases"]) + rd["omitted"]["cases"], 2000)
        self.assertGreater(rd["omitted"]["cases"], 0)
        rd = self.ok(s, "qa_suite_read", {"projectRoot": self.app, "format": "markdown"})
        self.assertGreater(rd["markdownTruncated"]["bytes"], 1024 * 1024)
        ex = self.ok(s, "qa_suite_export", {"projectRoot": self.app, "format": "junit", "save": True})
        path = os.path.join(self.app, ex["files"][0])
        self.assertEqual(os.path.getsize(path), ex["bytes"])
        p = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_XSD, path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])

    def test_generate_from_the_app_map_is_idempotent(self):
        s = self.server()
        os.makedirs(os.path.join(self.app, ".swipium"), exist_ok=True)
        amap = {"schemaVersion": 1, "features": [
            {"id": "auth", "title": "Sign in", "staticScreens": ["route:/login"], "auth": True},
            {"id": "cart", "title": "Cart", "staticScreens": ["route:/cart"], "runtimeScreens": ["rt-1"]},
        ]}
        with open(os.path.join(self.app, ".swipium", "app-map.json"), "w") as f:
            json.dump(amap, f)
        r = self.ok(s, "qa_suite_generate", {"projectRoot": self.app})
        self.assertEqual(r["creativity"], "standard")
        first = len(r["created"])
        self.assertGreaterEqual(first, 4)
        self.assertIn("TC-AUTH-001", r["created"])
        self.assertTrue(any("auth" in g for g in r["coverageGaps"]), r["coverageGaps"])
        r = self.ok(s, "qa_suite_generate", {"projectRoot": self.app})
        self.assertEqual(r["created"], [])
        self.assertEqual(len(self.load_suite()["cases"]), first)
        r = self.ok(s, "qa_suite_generate", {"projectRoot": self.app, "feature": "cart", "creativityLevel": "adversarial",
                                             "includeManualOnly": True})
        self.assertEqual(r["creativity"], "adversarial")
        self.assertTrue(any("deprecated" in n for n in r["notes"]))
        new = [c for c in self.load_suite()["cases"] if c["id"] in r["created"]]
        types = sorted(c["type"] for c in new)
        self.assertEqual(types, ["adversarial", "edge", "visual"])
        self.assertTrue(all(c["safety"] for c in new if c["type"] == "adversarial"))
        self.assertEqual([c["status"] for c in new if c["type"] == "visual"], ["manual_only"])
        lint = self.ok(s, "qa_suite_lint", {"projectRoot": self.app, "liveFeatureIds": ["auth", "cart"]})
        self.assertNotIn("ADVERSARIAL_WITHOUT_SAFETY", [e["code"] for e in lint["errors"]])
        self.err(s, "qa_suite_generate", {"projectRoot": self.app, "creativity": "wild"}, "INVALID_ARGUMENT")

    def test_two_servers_never_lose_an_update(self):
        import threading
        servers = [self.server(), self.server()]
        errors = []

        def worker(k):
            try:
                for i in range(15):
                    self.ok(servers[k], "qa_suite_update", {"projectRoot": self.app, "source": "report",
                                                            "cases": [case("f%d" % k, "case %d" % i, ["s%d" % i])]})
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(k,)) for k in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual(errors, [])
        ids = sorted(c["id"] for c in self.load_suite()["cases"])
        self.assertEqual(len(ids), 30)
        self.assertEqual(ids, sorted(["TC-F%d-%03d" % (k, i) for k in (0, 1) for i in range(1, 16)]))

    def test_suite_file_linked_out_is_refused(self):
        s = self.server()
        outside = os.path.join(self.home, "elsewhere.json")
        with open(outside, "w") as f:
            f.write('{"cases": []}')
        os.makedirs(os.path.join(self.app, ".swipium"), exist_ok=True)
        os.symlink(outside, self.suite_file())
        self.err(s, "qa_suite_read", {"projectRoot": self.app}, "UNSAFE_ACTION_REFUSED")
        self.err(s, "qa_suite_update", {"projectRoot": self.app, "source": "manual",
                                        "cases": [case("a", "b", ["c"])]}, "UNSAFE_ACTION_REFUSED")
        with open(outside) as f:
            self.assertEqual(f.read(), '{"cases": []}')


VDEVICE_PAGE = """name: LoginScreen
screen: login
elements:
  email: {id: email}
  password: {id: password, secret: true}
  signIn: {id: sign_in}
  greeting: {id: greeting}
"""

VDEVICE_TEST = """name: login replay
appId: com.example.login
setup:
  - prepareTarget
steps:
  - type: {into: LoginScreen.email, text: "${SWIPIUM_TEST_EMAIL}"}
  - type: {into: LoginScreen.password, text: "${SWIPIUM_TEST_PASSWORD}"}
  - tap: LoginScreen.signIn
  - assertVisible: LoginScreen.greeting
"""


SUITE_URI = re.compile(r"^swipium://project/[0-9a-f]{16}/app-map/test-suite/canonical$")


class SuiteResource(SuiteCase):
    """qa_suite_read gives the URI of the whole suite; resources/read and resources/list serve it."""

    def read(self, s, uri):
        return s.call("resources/read", {"uri": uri})

    def test_uri_read_listed_and_resolved_after_a_restart(self):
        s = self.server()
        cases = [case("login", "Sign in works", ["Open app", "Sign in"]), case("feed", "Feed ü ✓", ["Open feed"])]
        self.ok(s, "qa_suite_update", {"projectRoot": self.app, "source": "report", "cases": cases})
        r = self.ok(s, "qa_suite_read", {"projectRoot": self.app})
        uri = r["uri"]
        self.assertRegex(uri, SUITE_URI)
        got = self.read(s, uri)
        self.assertNotIn("error", got, got)
        content = got["result"]["contents"][0]
        self.assertEqual((content["uri"], content["mimeType"]), (uri, "application/json"))
        self.assertEqual(json.loads(content["text"]), self.load_suite())
        # a session of this process makes the root known: resources/list names the suite
        self.ok(s, "qa_start_session", {"projectRoot": self.app})
        listed = s.call("resources/list")["result"]["resources"]
        self.assertIn(uri, [x["uri"] for x in listed if x.get("name") == "test-suite"], listed)
        s.close()
        # a new process resolves the URI from ~/.swipium/projects.json, and sees a later change
        self.ok(self.server(), "qa_suite_update", {"projectRoot": self.app, "source": "manual",
                                                    "cases": [case("feed", "Second", ["Scroll"])]})
        s2 = self.server()
        text = self.read(s2, uri)["result"]["contents"][0]["text"]
        self.assertEqual(len(json.loads(text)["cases"]), 3)

    def test_missing_and_corrupt_suite(self):
        s = self.server()
        uri = self.ok(s, "qa_suite_read", {"projectRoot": self.app})["uri"]
        e = self.read(s, uri)["error"]
        self.assertEqual(e["code"], -32602, e)
        self.assertEqual(e["data"]["uri"], uri)
        self.assertIn("no .swipium/test-suite.json", e["message"])
        os.makedirs(os.path.join(self.app, ".swipium"), exist_ok=True)
        for bad in ('{"cases": [{"id": "TC-A-001", "title": "kept"}', '[1, 2]', '{"cases": {}}', ""):
            with open(self.suite_file(), "w") as f:
                f.write(bad)
            got = self.read(s, uri)
            self.assertNotIn("result", got, (bad, got))
            e = got["error"]
            self.assertEqual(e["code"], -32603, e)
            self.assertIn("not treated as an empty suite", e["message"], bad)
            self.assertEqual((e["data"]["uri"], e["data"]["failureCode"]), (uri, "UNKNOWN"))
            with open(self.suite_file()) as f:
                self.assertEqual(f.read(), bad)
        # an app-map entry URI of another id is still the app map's (no map here: not found)
        e = self.read(s, uri.replace("/canonical", "/smoke"))["error"]
        self.assertEqual(e["code"], -32602, e)
        # an unknown project id, and a percent-encoded kind that decodes to the same URI
        e = self.read(s, "swipium://project/0000000000000000/app-map/test-suite/canonical")["error"]
        self.assertEqual(e["code"], -32602, e)
        with open(self.suite_file(), "w") as f:
            json.dump({"cases": [{"id": "TC-A-001", "title": "t"}]}, f)
        got = self.read(s, uri.replace("/test-suite/", "/test%2Dsuite/"))
        self.assertEqual(json.loads(got["result"]["contents"][0]["text"])["cases"][0]["id"], "TC-A-001")
        # test-suite.json linked out of the project: refused, the outside file never shown
        outside = os.path.join(self.home, "elsewhere.json")
        with open(outside, "w") as f:
            json.dump({"cases": [{"id": "TC-OUT-001", "title": "outside-marker"}]}, f)
        os.remove(self.suite_file())
        os.symlink(outside, self.suite_file())
        got = self.read(s, uri)
        self.assertNotIn("result", got, got)
        self.assertEqual(got["error"]["code"], -32602, got)
        self.assertNotIn("outside-marker", json.dumps(got))

    def test_secret_redacted_and_big_suite_capped(self):
        s = self.server()
        sid = self.ok(s, "qa_start_session", {"projectRoot": self.app})["sessionId"]
        s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                            "values": {"password": "sup3r-secret-pw"}})
        uri = self.ok(s, "qa_suite_read", {"sessionId": sid})["uri"]
        # a secret pasted into the file by hand is redacted on the way out
        os.makedirs(os.path.join(self.app, ".swipium"), exist_ok=True)
        doc = {"schemaVersion": 1, "kind": "swipium.test-suite", "idCounters": {},
               "cases": [{"id": "TC-LOGIN-001", "title": "type sup3r-secret-pw", "steps": ["sup3r-secret-pw"]}]}
        with open(self.suite_file(), "w") as f:
            json.dump(doc, f)
        text = self.read(s, uri)["result"]["contents"][0]["text"]
        self.assertNotIn("sup3r-secret-pw", text)
        back = json.loads(text)
        self.assertEqual(back["cases"][0]["id"], "TC-LOGIN-001")
        self.assertNotIn("sup3r-secret-pw", back["cases"][0]["title"])
        # over 1 MB: the head, cut on a character boundary, and a line saying how much is left out
        doc["cases"] = [{"id": "TC-BULK-%04d" % i, "title": "ü✓" * 200 + " %d" % i, "steps": ["x"]}
                        for i in range(2000)]
        with open(self.suite_file(), "w") as f:
            json.dump(doc, f, ensure_ascii=False)
        text = self.read(s, uri)["result"]["contents"][0]["text"]
        whole = len(json.dumps(doc, ensure_ascii=False, indent=2).encode())
        self.assertGreater(whole, 1024 * 1024)
        head, _, note = text.rpartition("\n[swipium: truncated: ")
        self.assertLessEqual(len(head.encode()), 1024 * 1024)
        self.assertGreater(len(head.encode()), 1024 * 1024 - 4)
        self.assertIn("of the suite JSON", note)
        self.assertNotIn("\ufffd", text)
        self.assertTrue(head.startswith("{"))


@unittest.skipUnless(os.environ.get("VDEVICE_BIN"), "VDEVICE_BIN is not set (run through meson test)")
class Replay(SuiteCase):
    """A compiled flow replays through `swipium run` on the virtual device over the real adb."""

    def test_compiled_flow_replays_on_the_device(self):
        sys.path.insert(0, os.path.dirname(HERE))
        from vdevice_env import VDeviceEnv
        self.write("pages/login.yaml", VDEVICE_PAGE)
        self.write("tests/login.yaml", VDEVICE_TEST)
        self.write("suites/smoke.yaml", SUITE)
        p = self.cli("suite", "compile", self.app)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        creds = {"SWIPIUM_TEST_EMAIL": "ann@example.com", "SWIPIUM_TEST_PASSWORD": "hunter2"}
        with VDeviceEnv(app="login") as env:
            e = dict(env.env, HOME=self.home, **creds)
            r = subprocess.run([CLI, "run", "login-replay", "--root", self.app], env=e, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("PASS  login replay", r.stdout)
            # the replay judges: a wrong password ends on the error dialog, the greeting never shows
            e["SWIPIUM_TEST_PASSWORD"] = "not-the-password"
            r = subprocess.run([CLI, "run", "login-replay", "--root", self.app], env=e, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
