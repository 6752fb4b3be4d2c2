"""test_report_assembly.py: qa_report's assembled report through a real server, rendered by the real `swipium report`."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcpclient import ServerTestCase  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
JUNIT_XSD = os.path.join(SOURCE_ROOT, "tests", "data", "schemas", "junit-10.xsd")
CLI = os.environ.get("SWIPIUM_CLI")

# The reference's top-level report keys, in the order the report service writes them (PLATFORM.md §2.2).
KEYS = ["sessionId", "executiveSummary", "appId", "device", "coverage", "appVerdict", "coverageVerdict",
        "toolVerdict", "automationBackend", "readiness", "automationReadiness", "qaLevel", "runTestCatalog",
        "persistentSuite", "mode", "emulatorDisplay", "environmentChanges", "ciMutations", "mutationLedger",
        "workaroundsAttempted", "inputsProvided", "redactionDegraded", "generatedValues", "guardrailOverrides",
        "launchedWithoutMetroReady", "destructiveGuardrail", "finalNetwork", "networkRestore", "activeRecording",
        "findings", "findingOccurrences", "toolErrors", "highSeverityCount", "nativeHealth", "appHealth",
        "appHealthFindings", "testOutcomes", "outcomeTally", "categoryTally", "outcomeByCategory",
        "outcomesByWorkflow", "failureBuckets", "visualVerifications", "evidenceTaxonomy", "declaredPreconditions",
        "authState", "budgetProfile", "phaseTimings", "wda", "ci", "visualOnly", "generatedSuite", "exploration",
        "artifacts", "counters", "prSummary"]


class ReportAssembly(ServerTestCase):
    home_prefix = "swipium-assembly-home-"
    server_env = {"SWIPIUM_PROJECT_ROOT": "", "CLAUDE_PROJECT_DIR": ""}

    def server(self):
        s = super().server()
        s.initialize()
        return s

    def ok(self, s, name, args):
        r = s.tool(name, args)["result"]
        self.assertNotIn("isError", r, json.dumps(r)[:2000])
        return r["structuredContent"]

    def cli(self, *args):
        return subprocess.run([CLI, "report"] + list(args), env=dict(os.environ, HOME=self.home),
                              capture_output=True, text=True, timeout=120)

    def read_report(self, s, uri):
        text = s.call("resources/read", {"uri": uri})["result"]["contents"][0]["text"]
        return json.loads(text, object_pairs_hook=lambda pairs: dict(pairs)), text

    def test_tools_list_has_qa_report(self):
        s = self.server()
        names = [t["name"] for t in s.call("tools/list")["result"]["tools"]]
        self.assertIn("qa_report", names)
        self.assertEqual(s.close(), 0)

    def test_pass_fail_blocked_to_junit_and_gate(self):
        s = self.server()
        sid = self.ok(s, "qa_start_session", {"projectRoot": self.app})["sessionId"]
        self.ok(s, "qa_note", {"sessionId": sid, "workflow": "login", "outcome": "pass"})
        self.ok(s, "qa_note", {"sessionId": sid, "workflow": "checkout", "outcome": "fail", "category": "app_bug",
                               "reason": "total shows <NaN> & more"})
        self.ok(s, "qa_note", {"sessionId": sid, "workflow": "pay", "outcome": "blocked",
                               "missingPrecondition": "no test card", "recommendedSetup": "seed a test card"})
        sc = self.ok(s, "qa_report", {"sessionId": sid, "format": "junit"})
        self.assertEqual(sc["executiveSummary"]["risk"], "block")
        self.assertEqual(sc["executiveSummary"]["reasons"], ["1 workflow(s) failed"])
        self.assertEqual(sc["executiveSummary"]["nextAction"],
                         'Fix "checkout": total shows <NaN> & more before shipping.')
        self.assertEqual(sc["outcomeTally"], {"pass": 1, "fail": 1, "blocked": 1})
        self.assertEqual(sc["toolVerdict"]["status"], "PASS")
        self.assertEqual(sc["appVerdict"]["status"], "BLOCKED")
        self.assertEqual(sc["coverageVerdict"]["status"], "PARTIAL")
        self.assertTrue(sc["releaseGate"]["block"])
        self.assertRegex(sc["exportUri"], r"/report/report-\d+\.xml$")

        report, text = self.read_report(s, sc["reportUri"])
        self.assertEqual(list(report.keys()), KEYS)
        self.assertEqual(report["sessionId"], sid)
        self.assertEqual([o["workflow"] for o in report["testOutcomes"]], ["login", "checkout", "pay"])
        self.assertNotIn("releaseGate", report)
        self.assertTrue(text.startswith('{\n  "sessionId": '))
        self.assertEqual(s.close(), 0)

        # the CLI finds the saved report and renders a schema-valid JUnit file
        p = self.cli("--latest", "--root", self.app, "--format", "junit")
        self.assertEqual(p.returncode, 0, p.stderr)
        path = os.path.join(self.home, "out.xml")
        with open(path, "w") as f:
            f.write(p.stdout)
        v = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_XSD, path], capture_output=True, text=True)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn('failures="1"', p.stdout)
        self.assertIn('skipped="1"', p.stdout)
        self.assertIn("total shows &lt;NaN&gt; &amp; more", p.stdout)
        # the gate blocks on the failed workflow
        p = self.cli("--latest", "--root", self.app, "--format", "junit", "--fail-on-gate")
        self.assertEqual(p.returncode, 1, p.stderr)
        # every other format renders the same report
        for fmt in ("sarif", "github-summary", "markdown", "json"):
            p = self.cli("--latest", "--root", self.app, "--format", fmt)
            self.assertEqual(p.returncode, 0, (fmt, p.stderr))
            self.assertTrue(p.stdout.strip(), fmt)

    def test_passing_run_ships_and_passes_the_gate(self):
        s = self.server()
        sid = self.ok(s, "qa_start_session", {"projectRoot": self.app})["sessionId"]
        self.ok(s, "qa_note", {"sessionId": sid, "workflow": "login", "outcome": "pass"})
        self.ok(s, "qa_note", {"sessionId": sid, "workflow": "search", "outcome": "pass"})
        sc = self.ok(s, "qa_report", {"sessionId": sid, "format": "json"})
        self.assertEqual(sc["executiveSummary"],
                         {"risk": "ship", "reasons": ["no blocking findings; native + app healthy"],
                          "nextAction": "No blocking issues found in simulator/emulator evidence."})
        self.assertEqual(sc["exportUri"], sc["reportUri"])
        # a tool limitation blocks the tool verdict and cautions the release
        self.ok(s, "qa_note", {"sessionId": sid, "workflow": "scan", "outcome": "blocked",
                               "category": "mcp_limitation", "reason": "camera not available"})
        sc2 = self.ok(s, "qa_report", {"sessionId": sid})
        self.assertEqual(sc2["toolVerdict"]["status"], "BLOCKED")
        self.assertEqual(sc2["executiveSummary"]["risk"], "caution")
        self.assertEqual(s.close(), 0)
        p = self.cli("--session", sid, "--root", self.app, "--format", "junit", "--fail-on-gate")
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_bad_options_are_refused(self):
        s = self.server()
        sid = self.ok(s, "qa_start_session", {"projectRoot": self.app})["sessionId"]
        r = s.tool("qa_report", {"sessionId": sid, "baseline": 12})["result"]
        self.assertTrue(r.get("isError"), r)
        self.assertEqual(r["structuredContent"]["failureCode"], "INVALID_ARGUMENT")
        self.assertEqual(s.close(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
