"""Drives the built `swipium report` from the outside: flags, formats, discovery, errors, exit codes, hostile reports."""

import glob
import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

import jsonschema

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.normpath(
    os.path.join(os.path.dirname(__file__), "..", "..")
)
CLI = os.environ.get("SWIPIUM_CLI")
SAMPLE = os.path.join(SOURCE_ROOT, "examples", "sample-report.json")
REPORTS = os.path.join(SOURCE_ROOT, "tests", "data", "reports")
SCHEMAS = os.path.join(SOURCE_ROOT, "tests", "data", "schemas")
JUNIT_XSD = os.path.join(SCHEMAS, "junit-10.xsd")
FORMATS = ["junit", "sarif", "github-summary", "markdown", "json"]
NOT_REPORTS = {
    "truncated.json": "Could not read report {path}: ",
    "empty.json": "Could not read report {path}: ",
    "not-report.json": "{path} is not a Swipium report JSON (missing findings/testOutcomes).\n",
    "array-top.json": "{path} is not a Swipium report JSON (missing findings/testOutcomes).\n",
}

with open(os.path.join(SCHEMAS, "sarif-schema-2.1.0.json")) as _f:
    SARIF_SCHEMA = json.load(_f)


def js_json(value):
    """JSON.stringify(value, null, 2) for the values these tests use."""
    return json.dumps(value, indent=2, ensure_ascii=False)


class CliReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not CLI:
            raise unittest.SkipTest("SWIPIUM_CLI is not set (run through meson test)")
        with open(SAMPLE) as f:
            cls.sample = json.load(f)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="swipium-cli-report-")
        self.home = os.path.join(self.tmp, "home")
        self.root = os.path.join(self.tmp, "app")
        os.makedirs(self.home)
        os.makedirs(self.root)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- helpers -----------------------------------------------------------

    def run_cli(self, *args, cwd=None, home=None):
        env = dict(os.environ)
        env["HOME"] = home or self.home
        p = subprocess.run([CLI, "report", *args], cwd=cwd or self.root, env=env, capture_output=True, timeout=120)
        self.assertGreaterEqual(p.returncode, 0, "killed by signal %d: %s" % (-p.returncode, p.stderr[-2000:]))
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

    def usage(self):
        rc, out, _ = self.run_cli("--help")
        self.assertEqual(rc, 0)
        return out.decode()

    def assert_junit_valid(self, data):
        path = os.path.join(self.tmp, "check.xml")
        with open(path, "wb") as f:
            f.write(data)
        p = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_XSD, path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        return ET.fromstring(data)

    def assert_sarif_valid(self, data):
        doc = json.loads(data)
        jsonschema.validate(doc, SARIF_SCHEMA)
        return doc

    def gfm_html(self, data):
        p = subprocess.run(["cmark-gfm", "-e", "table", "-e", "strikethrough", "-e", "autolink"], input=data,
                           capture_output=True)
        self.assertEqual(p.returncode, 0)
        return p.stdout.decode("utf-8", "replace")

    def assert_valid(self, fmt, data, layout=True):
        self.assertTrue(data.endswith(b"\n"))
        data.decode("utf-8")  # every export is UTF-8
        if fmt == "junit":
            self.assert_junit_valid(data)
        elif fmt in ("sarif", "json"):
            doc = self.assert_sarif_valid(data) if fmt == "sarif" else json.loads(data)
            if layout:  # laid out as JSON.stringify(doc, null, 2) (Python prints some floats differently)
                self.assertEqual(data.decode(), js_json(doc) + "\n")
        elif fmt == "github-summary":
            self.assertLessEqual(len(data), 900 * 1024 + 1)
            self.gfm_html(data)

    def write_report(self, name, value):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            if isinstance(value, str):
                f.write(value)
            else:
                json.dump(value, f)
        return path

    def save_session(self, sid, created, report=None, root=None, artifacts=None, in_registry=False):
        """A session dir as the store leaves it; report=None leaves it without a report."""
        root = root or self.root
        project = hashlib.sha256(os.path.abspath(root).encode()).hexdigest()[:16]
        if in_registry:
            sdir = os.path.join(self.tmp, "elsewhere", sid)
        else:
            sdir = os.path.join(self.home, ".swipium", "runs", project, sid)
        os.makedirs(os.path.join(sdir, "report"), exist_ok=True)
        state = {"id": sid, "root": root, "dir": sdir, "createdAt": created}
        if artifacts is not None:
            state["artifacts"] = artifacts
        with open(os.path.join(sdir, "state.json"), "w") as f:
            json.dump(state, f)
        if report is not None:
            r = dict(report, sessionId=sid)
            with open(os.path.join(sdir, "report", "report-%d.json" % created), "w") as f:
                json.dump(r, f, indent=2)
        if in_registry:
            reg = os.path.join(self.home, ".swipium", "registry.json")
            os.makedirs(os.path.dirname(reg), exist_ok=True)
            entries = []
            if os.path.exists(reg):
                with open(reg) as f:
                    entries = json.load(f)
            entries.append({"id": sid, "dir": sdir})
            with open(reg, "w") as f:
                json.dump(entries, f)
        return sdir

    # ---- flags and usage ------------------------------------------------------

    def test_help(self):
        text = self.usage()
        self.assertIn("--format junit|sarif|github-summary|markdown|json", text)
        for flag in ["--latest", "--session", "--report", "--root", "--out", "--fail-on-gate"]:
            self.assertIn(flag, text)
        rc, out, err = self.run_cli("-h", "--bogus")
        self.assertEqual((rc, out.decode(), err), (0, text, ""))
        p = subprocess.run([CLI, "--help"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn("swipium report --format junit|sarif|github-summary|markdown|json", p.stdout)

    def test_parse_errors(self):
        usage = self.usage()
        cases = [
            (["--format"], "--format needs a value"),
            (["--format", "--latest"], "--format needs a value"),
            (["--format", "junit", "--out"], "--out needs a value"),
            (["--format", "junit", "--root", "--report", "x"], "--root needs a value"),
            (["--format", "junit", "--bogus"], "Unknown argument: --bogus"),
            (["--format", "junit", "extra"], "Unknown argument: extra"),
            (["--latest=1", "--format", "junit"], "Unknown argument: --latest=1"),
            (["--fail-on-gate=yes", "--format", "junit"], "Unknown argument: --fail-on-gate=yes"),
            ([], "--format is required"),
            (["--report", SAMPLE], "--format is required"),
            (["--format="], "--format is required"),
            (["--format", "xml"], 'Unknown --format "xml"'),
            (["--format=JUnit"], 'Unknown --format "JUnit"'),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                rc, out, err = self.run_cli(*args)
                self.assertEqual(rc, 2)
                self.assertEqual(out, b"")
                self.assertEqual(err, message + "\n\n" + usage)

    def test_each_format_from_file(self):
        expected_gate = ("Release gate: BLOCK: release blocked: checkout: ASSERTION_FAILED, "
                         "finding:native_crash: NATIVE_CRASH\n")
        outputs = {}
        for fmt in FORMATS:
            with self.subTest(fmt=fmt):
                rc, out, err = self.run_cli("--format", fmt, "--report", SAMPLE)
                self.assertEqual(rc, 0)
                self.assertEqual(err, expected_gate)
                self.assert_valid(fmt, out)
                outputs[fmt] = out
        # --flag=value spelling and a later --format overwriting an earlier one.
        rc, out, _ = self.run_cli("--format=markdown", "--report=" + SAMPLE, "--format", "junit")
        self.assertEqual((rc, out), (0, outputs["junit"]))
        # The JSON export is the report plus releaseGate, as JSON.stringify(..., null, 2) writes it.
        gate = json.loads(outputs["json"])["releaseGate"]
        self.assertEqual(gate, {
            "block": True,
            "blocked": ["checkout: ASSERTION_FAILED", "finding:native_crash: NATIVE_CRASH"],
            "warned": [], "suppressed": [],
            "reason": "release blocked: checkout: ASSERTION_FAILED, finding:native_crash: NATIVE_CRASH",
        })
        self.assertEqual(outputs["json"].decode(), js_json(dict(self.sample, releaseGate=gate)) + "\n")
        junit = ET.fromstring(outputs["junit"])
        suites = junit.findall("testsuite")
        self.assertEqual(junit.get("tests"), "7")
        self.assertEqual(junit.get("failures"), "2")
        self.assertIsNone(junit.get("skipped"))
        props = {p.get("name"): p.get("value") for p in suites[0].iter("property")}
        self.assertEqual(props["swipium.releaseGate"], "fail")
        self.assertEqual(props["swipium.skipped"], str(sum(int(s.get("skipped")) for s in suites)))
        sarif = json.loads(outputs["sarif"])
        self.assertEqual(sarif["runs"][0]["properties"]["releaseGateVerdict"], "block")
        self.assertEqual(sarif["runs"][0]["properties"]["releaseGate"], gate)
        self.assertTrue(outputs["markdown"].startswith(b"# QA report: com.example.shop\n"))
        summary = self.gfm_html(outputs["github-summary"])
        self.assertIn("<h2>Swipium QA: \U0001F534 BLOCK</h2>", summary)
        self.assertIn("<strong>Release gate (policy):</strong> \u274c FAIL", summary)

    def test_fail_on_gate_and_policy(self):
        rc, _, err = self.run_cli("--format", "junit", "--report", SAMPLE, "--fail-on-gate")
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith("Release gate: BLOCK: "))
        os.makedirs(os.path.join(self.root, ".swipium"))
        with open(os.path.join(self.root, ".swipium", "policy.json"), "w") as f:
            json.dump({"blockOn": ["ANR"], "warnOn": ["crash"], "ignoreKnown": ["ASSERTION_FAILED"]}, f)
        # --root relative to the working directory; the policy turns the block into a pass.
        rc, out, err = self.run_cli("--format", "junit", "--report", SAMPLE, "--root", "app", "--fail-on-gate",
                                    cwd=self.tmp)
        self.assertEqual(rc, 0)
        self.assertEqual(err, "Release gate: PASS: passed with warnings: finding:native_crash: NATIVE_CRASH\n")
        tree = self.assert_junit_valid(out)
        skipped = [s.get("message") for s in tree.iter("skipped")]
        self.assertIn("policy warned (release gate not blocked): NATIVE_CRASH", skipped)
        self.assertIn("policy suppressed (release gate not blocked): app_bug: Pay button did nothing after tapping it",
                      skipped)
        self.assertEqual(sum(1 for _ in tree.iter("failure")), 0)
        rc, out, _ = self.run_cli("--format", "json", "--report", SAMPLE, "--root", self.root)
        self.assertEqual(json.loads(out)["releaseGate"]["suppressed"], ["checkout: ASSERTION_FAILED"])

    def test_out_file(self):
        rc, expected, _ = self.run_cli("--format", "sarif", "--report", SAMPLE)
        self.assertEqual(rc, 0)
        rc, out, err = self.run_cli("--format", "sarif", "--report", SAMPLE, "--out", "ci/./x/../deep/results.sarif")
        target = os.path.join(self.root, "ci", "deep", "results.sarif")
        self.assertEqual(rc, 0)
        self.assertEqual(out, b"")
        self.assertEqual(err, "Wrote sarif for session %s > %s\nRelease gate: BLOCK: release blocked: checkout: "
                              "ASSERTION_FAILED, finding:native_crash: NATIVE_CRASH\n"
                         % (self.sample["sessionId"], target))
        with open(target, "rb") as f:
            self.assertEqual(f.read(), expected)
        self.assertFalse(stat.S_IMODE(os.stat(target).st_mode) & 0o022)
        self.assertTrue(stat.S_IMODE(os.stat(target).st_mode) & 0o400)
        self.assertEqual(os.listdir(os.path.dirname(target)), ["results.sarif"])
        # A report without sessionId prints it the way the reference does.
        bare = self.write_report("bare.json", {"findings": [], "testOutcomes": []})
        rc, _, err = self.run_cli("--format", "json", "--report", bare, "--out", os.path.join(self.tmp, "o.json"))
        self.assertEqual(rc, 0)
        self.assertTrue(err.startswith("Wrote json for session undefined > %s/o.json\n" % self.tmp))

    def test_out_never_partial(self):
        target = os.path.join(self.tmp, "out", "report.xml")
        for name in NOT_REPORTS:
            rc, _, _ = self.run_cli("--format", "junit", "--report", os.path.join(REPORTS, name), "--out", target)
            self.assertEqual(rc, 2)
            self.assertFalse(os.path.exists(os.path.dirname(target)))
        os.makedirs(os.path.dirname(target))
        with open(target, "w") as f:
            f.write("previous")
        rc, _, _ = self.run_cli("--format", "junit", "--report", os.path.join(REPORTS, "truncated.json"), "--out",
                                target)
        self.assertEqual(rc, 2)
        with open(target) as f:
            self.assertEqual(f.read(), "previous")
        self.assertEqual(os.listdir(os.path.dirname(target)), ["report.xml"])
        # The parent is a file: the write fails cleanly, nothing is left behind.
        blocker = os.path.join(self.tmp, "blocker")
        open(blocker, "w").close()
        rc, out, err = self.run_cli("--format", "junit", "--report", SAMPLE, "--out", os.path.join(blocker, "x.xml"))
        self.assertEqual(rc, 2)
        self.assertTrue(err.startswith("Could not write %s/x.xml: " % blocker), err)
        self.assertNotIn("Release gate", err)
        self.assertEqual(os.path.getsize(blocker), 0)

    def test_file_errors(self):
        rc, out, err = self.run_cli("--format", "junit", "--report", "./sub/../missing.json")
        self.assertEqual((rc, out), (2, b""))
        self.assertEqual(err, "Report file not found: %s/missing.json\n" % self.root)
        rc, out, err = self.run_cli("--format", "junit", "--report", "")
        self.assertEqual(err, "Could not read report %s: EISDIR: illegal operation on a directory, read\n" % self.root)
        for name, message in NOT_REPORTS.items():
            with self.subTest(name=name):
                path = os.path.join(REPORTS, name)
                rc, out, err = self.run_cli("--format", "json", "--report", path)
                self.assertEqual((rc, out), (2, b""))
                self.assertTrue(err.startswith(message.format(path=path)), err)
                self.assertEqual(err.count("\n"), 1)
        rc, _, err = self.run_cli("--format", "json", "--report", self.tmp)
        self.assertEqual(rc, 2)
        self.assertEqual(err, "Could not read report %s: EISDIR: illegal operation on a directory, read\n" % self.tmp)

    # ---- session discovery -------------------------------------------------------

    def test_discovery(self):
        swipium_home = os.path.join(self.home, ".swipium")
        none = ("No Swipium session with a report found for project %s (looked in %s).\nRun the agent step first and "
                "make sure it calls qa_report (any format) before the session ends.\n" % (self.root, swipium_home))
        rc, out, err = self.run_cli("--format", "json")
        self.assertEqual((rc, out, err), (2, b"", none))
        old = dict(self.sample, appId="old.app")
        new = dict(self.sample, appId="new.app")
        self.save_session("aaaa0001", 1000, report=old)
        self.save_session("aaaa0002", 2000, report=new)
        self.save_session("aaaa0003", 3000)  # newest, but no report yet
        self.save_session("bbbb0001", 9000, report=new, root=os.path.join(self.tmp, "other"))
        rc, out, err = self.run_cli("--format", "json")
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out)["sessionId"], "aaaa0002")
        rc, out, _ = self.run_cli("--format", "json", "--latest")
        self.assertEqual(json.loads(out)["sessionId"], "aaaa0002")
        rc, out, _ = self.run_cli("--format", "json", "--session", "aaaa0001")
        self.assertEqual((rc, json.loads(out)["appId"]), (0, "old.app"))
        # --latest resets an earlier --session; a later --session wins again.
        rc, out, _ = self.run_cli("--format", "json", "--session", "aaaa0001", "--latest")
        self.assertEqual(json.loads(out)["sessionId"], "aaaa0002")
        rc, out, _ = self.run_cli("--format", "json", "--latest", "--session=aaaa0001")
        self.assertEqual(json.loads(out)["sessionId"], "aaaa0001")
        rc, out, err = self.run_cli("--format", "json", "--session", "aaaa0003")
        self.assertEqual((rc, out, err), (2, b"", "Session aaaa0003 has no persisted report yet. Call qa_report for "
                                                  "it first.\n"))
        rc, out, err = self.run_cli("--format", "json", "--session", "bbbb0001")
        self.assertEqual((rc, err), (2, 'No persisted Swipium session "bbbb0001" for project %s.\n' % self.root))
        # From another directory with --root, relative to the working directory.
        os.makedirs(os.path.join(self.tmp, "other"), exist_ok=True)
        rc, out, _ = self.run_cli("--format", "json", "--root", "../app", cwd=os.path.join(self.tmp, "other"))
        self.assertEqual(json.loads(out)["sessionId"], "aaaa0002")
        # --report wins over discovery.
        rc, out, _ = self.run_cli("--format", "json", "--session", "aaaa0003", "--report", SAMPLE)
        self.assertEqual(json.loads(out)["sessionId"], self.sample["sessionId"])

    def test_discovery_artifacts_and_registry(self):
        sdir = self.save_session("cccc0001", 1000, report=self.sample)
        # Artifacts name the reports; the newest by createdAt wins, exports with other names do not count.
        newer = os.path.join(sdir, "report", "report-5.json")
        with open(newer, "w") as f:
            json.dump(dict(self.sample, appId="from.artifact"), f)
        export = os.path.join(sdir, "report", "report-9.sarif.json")
        with open(export, "w") as f:
            f.write("{}")
        state_path = os.path.join(sdir, "state.json")
        with open(state_path) as f:
            state = json.load(f)
        state["artifacts"] = [
            {"uri": "a", "path": newer, "kind": "report", "mime": "application/json",
             "createdAt": "2026-11-30T10:00:02.000Z"},
            {"uri": "b", "path": os.path.join(sdir, "report", "report-1000.json"), "kind": "report",
             "mime": "application/json", "createdAt": "2026-11-30T10:00:01.000Z"},
            {"uri": "c", "path": export, "kind": "report", "mime": "application/json",
             "createdAt": "2026-11-30T10:00:09.000Z"},
            {"uri": "d", "path": os.path.join(sdir, "report", "report-7.json"), "kind": "report",
             "mime": "application/json", "createdAt": "2026-11-30T10:00:08.000Z"},
        ]
        with open(state_path, "w") as f:
            json.dump(state, f)
        rc, out, _ = self.run_cli("--format", "json")
        self.assertEqual((rc, json.loads(out)["appId"]), (0, "from.artifact"))
        # A registered session outside runs/ is found too; a corrupt state.json elsewhere is skipped.
        self.save_session("dddd0001", 5000, report=dict(self.sample, appId="registered"), in_registry=True)
        broken = self.save_session("eeee0001", 6000, report=self.sample)
        with open(os.path.join(broken, "state.json"), "w") as f:
            f.write("{corrupt")
        rc, out, _ = self.run_cli("--format", "json")
        self.assertEqual((rc, json.loads(out)["appId"]), (0, "registered"))
        # An unreadable registry is ignored.
        with open(os.path.join(self.home, ".swipium", "registry.json"), "w") as f:
            f.write("not json")
        rc, out, _ = self.run_cli("--format", "json")
        self.assertEqual((rc, json.loads(out)["appId"]), (0, "from.artifact"))

    # ---- hostile input ------------------------------------------------------------

    def test_hostile_reports_render_valid(self):
        names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(REPORTS, "*.json")))
        self.assertGreaterEqual(len(names), 8)
        for name in names:
            if name in NOT_REPORTS:
                continue
            for fmt in FORMATS:
                with self.subTest(name=name, fmt=fmt):
                    rc, out, err = self.run_cli("--format", fmt, "--report", os.path.join(REPORTS, name))
                    self.assertEqual(rc, 0, err)
                    self.assert_valid(fmt, out, layout=name != "numbers-and-keys.json")
                    self.assertRegex(err, r"^Release gate: (PASS|BLOCK): [^\x00-\x09\x0b-\x1f]*\n$")

    def test_json_numbers_and_key_order(self):
        rc, out, _ = self.run_cli("--format", "json", "--report", os.path.join(REPORTS, "numbers-and-keys.json"))
        self.assertEqual(rc, 0)
        text = out.decode()
        # Array-index keys first as JavaScript orders them; releaseGate replaced where it was; JS number forms.
        keys = [line.split('"')[1] for line in text.splitlines() if line.startswith('  "')]
        self.assertEqual(keys, ["9", "10", "b", "a", "01", "sessionId", "big", "tiny", "e", "f", "g", "h", "findings",
                                "testOutcomes", "releaseGate", "z"])
        for expected in ['"a": 0,', '"big": 12345678901234567000,', '"tiny": 1.5e-7,', '"e": 1e+21,', '"f": 0.1,',
                         '"g": 100,', '"h": 2.5,', '"z": {\n    "1": 1,\n    "2": 2,\n    "x": 0\n  }']:
            self.assertIn(expected, text)

    def test_summary_keeps_the_gate_verdict_when_its_reason_is_huge(self):
        # A failing workflow whose name alone is larger than the 900 KB cap: the gate reason quotes it.
        with open(SAMPLE) as f:
            report = json.load(f)
        name = "checkout " + "é" * 600000
        report["testOutcomes"].append({"at": "2026-11-30T10:09:00.000Z", "workflow": name, "outcome": "fail",
                                       "failureCode": "ASSERTION_FAILED"})
        path = os.path.join(self.root, "huge-gate.json")
        with open(path, "w") as f:
            json.dump(report, f)
        rc, out, _ = self.run_cli("--format", "github-summary", "--report", path)
        self.assertEqual(rc, 0)
        text = out.decode()
        self.assertLessEqual(len(out), 900 * 1024 + 400)
        self.assertIn("**Release gate (policy):** \u274c FAIL: release blocked: ", text)
        gate_line = [line for line in text.splitlines() if line.startswith("**Release gate")][0]
        self.assertIn("\u2026", gate_line)  # capped around the marker, not dropped
        self.assertLess(len(gate_line), 10000)
        self.assertIn("**Next action:**", text)

    def test_terminal_gets_no_escape_sequences_files_stay_exact(self):
        import pty
        path = os.path.join(REPORTS, "hostile-escapes.json")
        env = dict(os.environ, HOME=self.home)
        for fmt in ("markdown", "github-summary"):
            with self.subTest(fmt=fmt):
                # a pipe (and --out) gets the bytes as rendered: the escapes are there
                rc, piped, _ = self.run_cli("--format", fmt, "--report", path)
                self.assertEqual(rc, 0)
                self.assertIn(b"\x1b", piped)
                out_file = os.path.join(self.tmp, "out-" + fmt)
                rc, _, _ = self.run_cli("--format", fmt, "--report", path, "--out", out_file)
                with open(out_file, "rb") as f:
                    self.assertEqual(f.read(), piped)
                # a terminal gets them neutralised
                master, slave = pty.openpty()
                p = subprocess.Popen([CLI, "report", "--format", fmt, "--report", path], stdout=slave,
                                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=self.root, env=env)
                os.close(slave)
                shown = b""
                while True:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:
                        break
                    if not chunk:
                        break
                    shown += chunk
                os.close(master)
                self.assertEqual(p.wait(30), 0)
                self.assertGreater(len(shown), 100)
                for bad in (b"\x1b", b"\x07", b"\x08", b"\xc2\x9b", b"\x7f"):
                    self.assertNotIn(bad, shown)
                self.assertIn("\ufffd".encode(), shown)
                # the text itself is all there (the pty turns \n into \r\n)
                self.assertEqual(shown.replace(b"\r\n", b"\n").count(b"\n"), piped.count(b"\n"))

    def test_hostile_summary_cannot_inject(self):
        path = os.path.join(REPORTS, "hostile-escapes.json")
        rc, out, _ = self.run_cli("--format", "github-summary", "--report", path)
        self.assertEqual(rc, 0)
        html = self.gfm_html(out)
        # (A bare URL is autolinked by GitHub as in any text; a Markdown link written in the text is not.)
        for bad in ["<script", "<img", "<b>", "<i>", ">link</a>", "<h1", "<h4", "<hr", "<del>", "<em>x",
                    "<strong>bold", "<li>list item"]:
            self.assertNotIn(bad, html)
        self.assertEqual(html.count("<h2>"), 1)
        self.assertEqual(html.count("<h3>"), 3)
        # Tables keep their shape: 4 cells per row, rows as in the report.
        tables = html.split("<table>")[1:]
        self.assertEqual(len(tables), 2)
        for table, rows in zip(tables, [2, 2]):
            body = table.split("<tbody>")[1].split("</tbody>")[0]
            self.assertEqual(body.count("<tr>"), rows)
            self.assertEqual(body.count("<td"), rows * 4)
        self.assertIn("\ufffd", out.decode())  # NUL and lone surrogates arrive as U+FFFD
        self.assertNotIn(b"\x00", out)
        rc, out, _ = self.run_cli("--format", "junit", "--report", path)
        self.assertNotIn(b"\x1b", out)
        self.assertNotIn(b"\x00", out)
        tree = self.assert_junit_valid(out)
        self.assertEqual(tree.find("testsuite").find("testcase").get("name"),
                         'login <b>&"quoted"</b> \ufffd[1mANSI\ufffd[0m')
        rc, out, _ = self.run_cli("--format", "json", "--report", path)
        doc = json.loads(out)
        self.assertEqual(doc["appId"][:9], "com.evil\x00")
        self.assertIn("lone \ufffd ", doc["testOutcomes"][0]["reason"])

    def test_several_mb_strings(self):
        big = "x\x1b[31m|<&>`" * (300 * 1024)  # about 3 MB of hostile text per field
        report = {
            "sessionId": "big", "appId": "com.big", "executiveSummary": {"risk": "block", "nextAction": big},
            "findings": [{"severity": "high", "kind": "anr", "detail": big, "evidence": big, "screen": big}],
            "testOutcomes": [{"workflow": big, "outcome": "fail", "reason": big, "artifactUris": [big]}],
        }
        path = self.write_report("big.json", report)
        for fmt in FORMATS:
            with self.subTest(fmt=fmt):
                rc, out, err = self.run_cli("--format", fmt, "--report", path, "--out", os.path.join(self.tmp, fmt))
                self.assertEqual(rc, 0, err[-500:])
                with open(os.path.join(self.tmp, fmt), "rb") as f:
                    self.assert_valid(fmt, f.read())

    def test_sarif_monorepo_anchor(self):
        repo = os.path.join(self.tmp, "repo")
        app = os.path.join(repo, "apps", "mobile")
        os.makedirs(os.path.join(repo, ".git"))
        os.makedirs(os.path.join(app, "ios", "Demo"))
        open(os.path.join(app, "ios", "Demo", "Info.plist"), "w").close()
        rc, out, _ = self.run_cli("--format", "sarif", "--report", SAMPLE, "--root", app)
        doc = self.assert_sarif_valid(out)
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
        self.assertEqual(uris, {"apps/mobile/ios/Demo/Info.plist"})
        open(os.path.join(app, "app.json"), "w").close()
        rc, out, _ = self.run_cli("--format", "sarif", "--report", SAMPLE, "--root", app)
        results = json.loads(out)["runs"][0]["results"]
        self.assertEqual(results[0]["locations"][0]["physicalLocation"]["artifactLocation"],
                         {"uri": "apps/mobile/app.json", "uriBaseId": "%SRCROOT%"})
        fps = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]
        self.assertEqual(len(set(fps)), len(fps))
        # Outside any git checkout there is no prefix, and the fallback anchor is package.json.
        rc, out, _ = self.run_cli("--format", "sarif", "--report", SAMPLE, "--root", self.root)
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in json.loads(out)["runs"][0]["results"]}
        self.assertEqual(uris, {"package.json"})
        # Fingerprints do not depend on volatile ids and timestamps.
        changed = json.loads(json.dumps(self.sample).replace("CheckoutActivity.onPay", "CheckoutActivity.onPay"))
        changed["findings"][0]["detail"] += " at 2026-12-01T09:09:09.000Z pid 4711"
        self.sample["findings"][0]["detail"] += " at 2026-11-30T10:00:00.000Z pid 1234"
        a = self.write_report("a.json", self.sample)
        b = self.write_report("b.json", changed)
        fa = json.loads(self.run_cli("--format", "sarif", "--report", a)[1])["runs"][0]["results"][0]
        fb = json.loads(self.run_cli("--format", "sarif", "--report", b)[1])["runs"][0]["results"][0]
        self.assertEqual(fa["partialFingerprints"], fb["partialFingerprints"])


MULTITOOL = os.path.join(SOURCE_ROOT, "tests", "integration", "node_modules", ".bin", "sarif-multitool")
# Rules of Microsoft's SARIF multitool that our output triggers on purpose, with the reason.
MULTITOOL_EXPECTED = {
    # The reference writes every rule as {id: CODE, name: CODE}; its consumers (and ours) key on both.
    "SARIF1001",
    # "Provide information that makes it easy to identify the tool": the driver carries name and
    # informationUri as the reference does, but no version/semanticVersion.
    "SARIF2005",
}


class SarifMultitool(unittest.TestCase):
    """Every SARIF file we write passes Microsoft's SARIF multitool `validate` with no error-level result.
    The multitool exits 0 even for invalid files, so its output log is read instead."""

    def test_multitool_finds_no_errors(self):
        self.assertTrue(os.access(MULTITOOL, os.X_OK), "run scripts/install-node-deps.sh: %s missing" % MULTITOOL)
        tmp = tempfile.mkdtemp(prefix="sw-multitool-")
        self.addCleanup(shutil.rmtree, tmp, True)
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        inputs = [SAMPLE] + [os.path.join(REPORTS, n) for n in sorted(os.listdir(REPORTS))
                             if n.endswith(".json") and n not in NOT_REPORTS and n != "invalid-utf8.json"]
        files = []
        for i, report in enumerate(inputs):
            out = os.path.join(tmp, "in-%02d.sarif" % i)
            p = subprocess.run([CLI, "report", "--format", "sarif", "--report", report, "--root",
                                os.path.join(SOURCE_ROOT, "examples"), "--out", out],
                               env=dict(os.environ, HOME=home), capture_output=True, text=True, timeout=120)
            if p.returncode == 0:
                files.append(out)
        self.assertGreaterEqual(len(files), 3, "too few reports rendered to check")
        for path in files:
            log = path + ".validation.sarif"
            p = subprocess.run([MULTITOOL, "validate", path, "-o", log, "--log", "ForceOverwrite"],
                               capture_output=True, text=True, timeout=300, cwd=tmp)
            self.assertTrue(os.path.exists(log), "multitool wrote no log for %s: %s %s" % (path, p.stdout[-2000:],
                                                                                      p.stderr[-2000:]))
            with open(log) as f:
                run = json.load(f)["runs"][0]
            rules = {r["id"]: r for r in run["tool"]["driver"].get("rules", [])}
            for res in run.get("results", []):
                rule = rules.get(res["ruleId"], {})
                level = res.get("level") or rule.get("defaultConfiguration", {}).get("level", "warning")
                self.assertNotEqual(level, "error", "%s: %s" % (path, res["message"]))
                self.assertIn(res["ruleId"], MULTITOOL_EXPECTED, "%s: %s" % (path, json.dumps(res["message"])))


if __name__ == "__main__":
    unittest.main()
