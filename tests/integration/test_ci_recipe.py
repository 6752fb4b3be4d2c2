"""Runs the `swipium report` steps of examples/github-actions/swipium-report.yml as GitHub would, with the built CLI."""

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

import jsonschema
import yaml

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_ROOT = os.environ.get("SWIPIUM_BUILD_ROOT")
RECIPE = os.path.join(SOURCE_ROOT, "examples", "github-actions", "swipium-report.yml")
SAMPLE = os.path.join(SOURCE_ROOT, "examples", "sample-report.json")
SESSION_ID = "3f2a9c1e"


class RecipeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BUILD_ROOT:
            raise unittest.SkipTest("SWIPIUM_BUILD_ROOT is not set (run through meson test)")
        cls.cli_dir = os.path.join(BUILD_ROOT, "swipium-cli")
        with open(RECIPE) as f:
            cls.workflow = yaml.safe_load(f)
        cls.job = cls.workflow["jobs"]["qa"]
        cls.steps = cls.job["steps"]

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="swipium-recipe-")
        self.home = os.path.join(self.tmp, "home")
        self.checkout = os.path.join(self.tmp, "work", "app")
        os.makedirs(self.home)
        os.makedirs(self.checkout)
        self.summary = os.path.join(self.tmp, "step-summary.md")
        open(self.summary, "w").close()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def save_session(self):
        """Leaves a session with a saved report where the agent's qa_report would have put it."""
        root = os.path.realpath(self.checkout)
        project = hashlib.sha256(root.encode()).hexdigest()[:16]
        sdir = os.path.join(self.home, ".swipium", "runs", project, SESSION_ID)
        os.makedirs(os.path.join(sdir, "report"))
        with open(os.path.join(sdir, "state.json"), "w") as f:
            json.dump({"id": SESSION_ID, "root": root, "dir": sdir, "createdAt": 1764496800000}, f)
        shutil.copy(SAMPLE, os.path.join(sdir, "report", "report-1764497150000.json"))

    def report_steps(self):
        steps = [s for s in self.steps if "swipium report" in s.get("run", "")]
        self.assertGreaterEqual(len(steps), 4)
        return steps

    def run_step(self, step):
        env = {
            "PATH": self.cli_dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "GITHUB_STEP_SUMMARY": self.summary,
            "RUNNER_TEMP": self.tmp,
            "GITHUB_WORKSPACE": self.checkout,
            "CI": "true",
        }
        env.update({k: str(v) for k, v in self.job.get("env", {}).items()})
        env.update({k: str(v) for k, v in step.get("env", {}).items()})
        # GitHub runs `run:` with bash -e {0}.
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                              cwd=self.checkout, env=env, capture_output=True, text=True)

    def test_workflow_validates_against_the_github_schema(self):
        # action-validator checks a workflow against SchemaStore's GitHub workflow schema.
        tool = os.path.join(SOURCE_ROOT, "tests", "integration", "node_modules", ".bin", "action-validator")
        self.assertTrue(os.path.exists(tool), f"{tool} missing: run scripts/install-node-deps.sh")
        p = subprocess.run([tool, RECIPE], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # The validator does reject a broken workflow (a misspelt key), so the pass above means something.
        with open(RECIPE) as f:
            broken = f.read().replace("runs-on:", "runs_on:", 1)
        bad = os.path.join(self.tmp, "broken.yml")
        with open(bad, "w") as f:
            f.write(broken)
        p = subprocess.run([tool, bad], capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("runs_on", p.stdout + p.stderr)

    def test_every_command_is_a_report_command_with_known_flags(self):
        allowed = {"--latest", "--format", "--out", "--fail-on-gate", "--root", "--session", "--report"}
        for step in self.report_steps():
            for line in step["run"].splitlines():
                m = re.search(r"swipium report (.*)", line)
                if not m:
                    continue
                flags = set(re.findall(r"(--[a-z-]+)", m.group(1)))
                self.assertLessEqual(flags, allowed, line)

    def test_recipe_publishes_every_export_and_the_gate_blocks(self):
        self.save_session()
        results = {}
        for step in self.report_steps():
            p = self.run_step(step)
            results[step["name"]] = p
            self.assertRegex(p.stderr, r"Release gate: BLOCK: release blocked: ", step["name"])
        last = self.report_steps()[-1]
        self.assertIn("--fail-on-gate", last["run"])
        for name, p in results.items():
            want = 1 if name == last["name"] else 0
            self.assertEqual(p.returncode, want, f"{name}: {p.stderr}")

        # Every file a later step uploads exists where the export steps wrote it.
        for step in self.steps:
            w = step.get("with", {})
            for key in ("sarif_file", "report_paths", "path"):
                if key in w and "swipium-reports" in w[key]:
                    self.assertTrue(glob.glob(os.path.join(self.checkout, w[key])), f"{step['name']}: {w[key]} missing")

        reports = os.path.join(self.checkout, self.job["env"]["REPORTS"])
        # What the uploads receive is what GitHub's consumers accept: schema-valid JUnit and SARIF.
        schemas = os.path.join(SOURCE_ROOT, "tests", "data", "schemas")
        p = subprocess.run(["xmllint", "--noout", "--schema", os.path.join(schemas, "junit-10.xsd"),
                            os.path.join(reports, "junit.xml")], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(schemas, "sarif-schema-2.1.0.json")) as f:
            sarif_schema = json.load(f)
        with open(os.path.join(reports, "swipium.sarif")) as f:
            jsonschema.validate(json.load(f), sarif_schema)
        junit = ET.parse(os.path.join(reports, "junit.xml")).getroot()
        self.assertEqual((junit.get("tests"), junit.get("failures")), ("7", "2"))
        with open(os.path.join(reports, "swipium.sarif")) as f:
            sarif = json.load(f)
        self.assertEqual(sarif["version"], "2.1.0")
        self.assertEqual(len(sarif["runs"][0]["results"]), 4)
        with open(self.summary, encoding="utf-8") as f:
            summary = f.read()
        self.assertTrue(summary.startswith("## Swipium QA: "), summary[:200])
        self.assertTrue(summary.endswith("_Generated by Swipium._\n"), summary[-200:])
        with open(os.path.join(reports, "report.json")) as f:
            self.assertIs(json.load(f)["releaseGate"]["block"], True)

    def test_policy_in_the_checkout_lets_the_gate_pass(self):
        self.save_session()
        os.makedirs(os.path.join(self.checkout, ".swipium"))
        with open(os.path.join(self.checkout, ".swipium", "policy.json"), "w") as f:
            json.dump({"blockOn": ["crash"], "ignoreKnown": ["NATIVE_CRASH"], "warnOn": ["app_bug"]}, f)
        gate = self.run_step(self.report_steps()[-1])
        self.assertEqual(gate.returncode, 0, gate.stderr)
        self.assertIn("Release gate: PASS: passed with warnings: checkout: ASSERTION_FAILED", gate.stderr)

    def test_without_a_report_the_steps_fail_loudly(self):
        for step in self.report_steps():
            p = self.run_step(step)
            self.assertEqual(p.returncode, 2, f"{step['name']}: {p.stderr}")
            self.assertIn("No Swipium session with a report found for project", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.checkout, self.job["env"]["REPORTS"], "junit.xml")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
