"""Flow V2 through the real stack: `swipium run` and the flow tools of swipium-mcp, driving the virtual
Android device (tests/vdevice) through the real adb. Run with /usr/bin/python3 through meson test."""

import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import termios
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
CLI = os.environ.get("SWIPIUM_CLI")
MCP = os.environ.get("SWIPIUM_MCP")
JUNIT_XSD = os.path.join(SOURCE_ROOT, "tests", "data", "schemas", "junit-10.xsd")
PASSWORD = "hunter2"
CREDS = {"SWIPIUM_TEST_PASSWORD": PASSWORD, "SWIPIUM_TEST_EMAIL": "ann@example.com"}

LOGIN = """name: login
appId: com.example.login
steps:
  - prepareTarget
  - inputText: {into: "Email", text: "${SWIPIUM_TEST_EMAIL}"}
  - inputText: {into: "Password", text: "${SWIPIUM_TEST_PASSWORD}"}
  - tap: "Sign in"
  - assertVisible: "Hello, ${SWIPIUM_TEST_EMAIL}"
"""

WRONG = """name: wrong password
appId: com.example.login
steps:
  - prepareTarget
  - inputText: {into: "Email", text: "ann@example.com"}
  - inputText: {into: "Password", text: "not-the-password"}
  - tap: "Sign in"
  - assertVisible: "Hello, ann@example.com"
teardown:
  - press: back
"""

RENAMED = """name: renamed button
appId: com.example.login
steps:
  - prepareTarget
  - tap: "Sign in to your account"
"""

MUTATING = """name: restart
appId: com.example.login
steps:
  - prepareTarget
  - restartApp
  - assertVisible: "Welcome back"
"""

OFFLINE = """name: offline
appId: com.example.login
steps:
  - prepareTarget
  - networkOffline
  - assertVisible: "Welcome back"
teardown:
  - networkOnline
"""

# a mutating flow that types the password: the consent prompt and the ledger show the ${...} template only
LOGIN_AFTER_RESTART = """name: login after restart
appId: com.example.login
steps:
  - restartApp
  - inputText: {into: "Email", text: "${SWIPIUM_TEST_EMAIL}"}
  - inputText: {into: "Password", text: "${SWIPIUM_TEST_PASSWORD}"}
  - tap: "Sign in"
  - assertVisible: "Hello, ${SWIPIUM_TEST_EMAIL}"
"""

# no operator pre-approval or elicitation policy leaks in from the environment running the tests
NO_POLICY = {"SWIPIUM_CONSENT_PREAPPROVE": "", "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE": "",
             "SWIPIUM_REQUIRE_ELICITATION": ""}
LOGIN_APP = "com.example.login"

SCROLL = """name: scroll to a row
appId: com.example.list
steps:
  - prepareTarget
  - scrollTo: "Item 30"
  - tap: "Item 30"
  - assertNotVisible: "Fruits"
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


BUDGET_TAPS = """name: budget taps
appId: com.example.login
steps:
  - prepareTarget
""" + '  - tap: "Remember me"\n' * 6


class Base(unittest.TestCase):
    def setUp(self):
        if not CLI:
            raise unittest.SkipTest("SWIPIUM_CLI is not set (run through meson test)")
        self.tmp = tempfile.mkdtemp(prefix="sw-flows-")
        self.project = os.path.join(self.tmp, "app")
        write(os.path.join(self.project, "package.json"), "{}")
        flows = os.path.join(self.project, ".swipium", "flows")
        for name, text in (("login", LOGIN), ("wrong", WRONG), ("renamed", RENAMED), ("restart", MUTATING), ("offline", OFFLINE),
                           ("scroll", SCROLL), ("relogin", LOGIN_AFTER_RESTART), ("budget", BUDGET_TAPS)):
            write(os.path.join(flows, name + ".yaml"), text)
        write(os.path.join(self.project, ".swipium", "packs", "ci.yaml"), "name: ci\nflows:\n  - login\n  - wrong\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_cli(self, env, *args, extra=None):
        e = dict(env.env)
        e.update(extra or {})
        return subprocess.run([CLI] + list(args), env=e, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=300)

    def assert_junit_valid(self, xml):
        path = os.path.join(self.tmp, "junit.xml")
        with open(path, "w") as f:
            f.write(xml)
        v = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_XSD, path], capture_output=True, text=True)
        self.assertEqual(v.returncode, 0, v.stderr[-3000:])

    def assert_no_password(self, home):
        leaks = []
        for root, _, files in os.walk(home):
            for f in files:
                p = os.path.join(root, f)
                try:
                    with open(p, "rb") as fh:
                        if PASSWORD.encode() in fh.read():
                            leaks.append(p)
                except OSError:
                    pass
        self.assertEqual(leaks, [], "the password reached files under HOME")


class CliRun(Base):
    def test_login_passes_and_report_renders(self):
        with VDeviceEnv(app="login") as env:
            p = self.run_cli(env, "run", "login", "--root", self.project, extra=CREDS)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("PASS  login (5 steps", p.stdout)
            self.assertIn("1 of 1 flow(s) passed", p.stdout)
            r = self.run_cli(env, "report", "--latest", "--root", self.project, "--format", "junit")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assert_junit_valid(r.stdout)
            cases = [c.get("name") for c in ET.fromstring(r.stdout).iter("testcase")]
            self.assertTrue(any("login" in (c or "") for c in cases), cases)
            self.assertNotIn(PASSWORD, r.stdout + p.stdout + p.stderr)
            self.assert_no_password(env.server.home)

    def test_failing_flow_and_pack_exit_1(self):
        with VDeviceEnv(app="login") as env:
            p = self.run_cli(env, "run", "wrong", "--root", self.project)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("FAIL  wrong password at steps[4] assertVisible: ASSERTION_FAILED", p.stdout)
            p = self.run_cli(env, "run", "ci", "--root", self.project, extra=CREDS)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("PASS  login", p.stdout)
            self.assertIn("1 of 2 flow(s) passed", p.stdout)
            r = self.run_cli(env, "report", "--latest", "--root", self.project, "--format", "junit")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assert_junit_valid(r.stdout)
            failures = list(ET.fromstring(r.stdout).iter("failure"))
            self.assertTrue(failures, r.stdout)
            self.assert_no_password(env.server.home)

    def test_mutating_flow_needs_approve(self):
        with VDeviceEnv(app="login") as env:
            # no terminal and no --approve: refused, nothing ran
            p = self.run_cli(env, "run", "restart", "--root", self.project)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("BLOCK restart: CONSENT_REFUSED", p.stdout)
            p = self.run_cli(env, "run", "restart", "--root", self.project, "--approve", "flow_mutation_run")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("PASS  restart", p.stdout)
            # the ledger of the approved run names the mechanism
            runs = os.path.join(env.server.home, ".swipium", "runs")
            states = []
            for root, _, files in os.walk(runs):
                if "state.json" in files:
                    with open(os.path.join(root, "state.json")) as f:
                        states.append(json.load(f))
            rows = [m for s in states for m in s.get("mutations", []) if m.get("action") == "flow_mutation_run"]
            self.assertEqual(sorted(m["status"] for m in rows), ["approved", "refused"])

    def test_network_steps_toggle_and_restore(self):
        with VDeviceEnv(app="login") as env:
            p = self.run_cli(env, "run", "offline", "--root", self.project)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("BLOCK offline: CONSENT_REFUSED", p.stdout)
            p = self.run_cli(env, "run", "offline", "--root", self.project, "--approve", "flow_mutation_run")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("PASS  offline (4 steps", p.stdout)
            rc, out, _ = env.shell("settings get global airplane_mode_on")
            self.assertEqual(out.strip(), "0")

    def test_scroll_to_a_row(self):
        with VDeviceEnv(app="list") as env:
            p = self.run_cli(env, "run", "scroll", "--root", self.project)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("PASS  scroll to a row", p.stdout)

    def test_usage_errors(self):
        with VDeviceEnv(app="login") as env:
            for args, what in ((["run"], "name a flow or a pack"),
                               (["run", "login", "--frobnicate"], "unknown option --frobnicate"),
                               (["run", "login", "--root", self.project, "--approve", "everything"],
                                "not a consent action"),
                               (["run", "login", "--root", self.project, "--variables", "NOEQUALS"],
                                "NAME=VALUE"),
                               (["run", "nope", "--root", self.project], "not found")):
                p = self.run_cli(env, *args)
                self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
                self.assertIn(what, p.stderr)


class CliRunConsent(Base):
    """`swipium run` takes flow_mutation_run through the library's consent gate."""

    def ledger(self, env):
        rows = []
        for root, _, files in os.walk(os.path.join(env.server.home, ".swipium", "runs")):
            if "state.json" in files:
                with open(os.path.join(root, "state.json")) as f:
                    rows += [m for m in json.load(f).get("mutations", []) if m.get("action") == "flow_mutation_run"]
        return sorted(rows, key=lambda m: m["at"])

    def stopped(self, env):
        env.shell("am force-stop " + LOGIN_APP)
        self.assertFalse(self.app_running(env))

    def app_running(self, env):
        rc, out, _ = env.shell("pidof " + LOGIN_APP)
        return rc == 0 and out.strip() != ""

    def run_consent(self, env, *args, extra=None):
        e = dict(NO_POLICY)
        e.update(extra or {})
        return self.run_cli(env, "run", *args, "--root", self.project, extra=e)

    def test_no_terminal_no_approve_refuses_and_nothing_runs(self):
        with VDeviceEnv(app="login") as env:
            self.stopped(env)
            p = self.run_consent(env, "restart")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("BLOCK restart: CONSENT_REFUSED", p.stdout)
            self.assertIn("--approve flow_mutation_run", p.stderr)
            self.assertIn("SWIPIUM_CONSENT_PREAPPROVE", p.stderr)
            self.assertIn("no terminal", p.stderr)
            self.assertFalse(self.app_running(env), "a refused flow started the app")
            rows = self.ledger(env)
            self.assertEqual([(m["status"], m["consent"]["approved"]) for m in rows], [("refused", False)], rows)
            self.assertEqual(rows[0]["tool"], "swipium run")
            self.assertEqual(rows[0]["target"], "restart")

    def test_preapproval_env_runs_with_operator_policy(self):
        with VDeviceEnv(app="login") as env:
            self.stopped(env)
            p = self.run_consent(env, "restart", extra={"SWIPIUM_CONSENT_PREAPPROVE": "flow_mutation_run",
                                                         "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE": "1"})
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("PASS  restart", p.stdout)
            self.assertIn("operator policy", p.stderr)  # the gate's warning for every policy approval
            self.assertTrue(self.app_running(env))
            rows = self.ledger(env)
            self.assertEqual(len(rows), 1, rows)
            self.assertEqual(rows[0]["status"], "approved")
            self.assertEqual(rows[0]["consent"]["approvalMechanism"], "operator-policy")
            self.assertTrue(rows[0]["consent"]["approved"])
            self.assertNotIn("detail", rows[0])  # the environment, not --approve

    def test_preapproval_without_run_code_tier_does_not_run(self):
        with VDeviceEnv(app="login") as env:
            self.stopped(env)
            for run_code in ("", "0", "yes"):
                p = self.run_consent(env, "restart", extra={"SWIPIUM_CONSENT_PREAPPROVE": "flow_mutation_run",
                                                             "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE": run_code})
                self.assertEqual(p.returncode, 1, (run_code, p.stdout + p.stderr))
                self.assertIn("BLOCK restart: CONSENT_REFUSED", p.stdout)
                self.assertIn("SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE=1", p.stderr)
                self.assertFalse(self.app_running(env), run_code)
            rows = self.ledger(env)
            self.assertEqual([m["status"] for m in rows], ["refused"] * 3, rows)
            self.assertNotIn("operator-policy", json.dumps(rows))

    def test_approve_flag_records_operator_policy(self):
        with VDeviceEnv(app="login") as env:
            self.stopped(env)
            p = self.run_consent(env, "restart", "--approve", "flow_mutation_run")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("PASS  restart", p.stdout)
            self.assertTrue(self.app_running(env))
            rows = self.ledger(env)
            self.assertEqual(len(rows), 1, rows)
            self.assertEqual(rows[0]["status"], "approved")
            self.assertEqual(rows[0]["consent"]["approvalMechanism"], "operator-policy")
            self.assertEqual(rows[0]["detail"], "swipium run --approve flow_mutation_run")
            # --approve of another action does not cover flows
            self.stopped(env)
            p = self.run_consent(env, "restart", "--approve", "app_clear_data")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertFalse(self.app_running(env))

    def test_password_never_on_disk(self):
        with VDeviceEnv(app="login") as env:
            p = self.run_consent(env, "relogin", extra=dict(CREDS, SWIPIUM_CONSENT_PREAPPROVE="flow_mutation_run",
                                                             SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE="1"))
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("PASS  login after restart", p.stdout)
            rows = self.ledger(env)
            self.assertEqual(rows[0]["consent"]["approvalMechanism"], "operator-policy")
            self.assertNotIn(PASSWORD, p.stdout + p.stderr)
            self.assert_no_password(env.server.home)
            self.assert_no_password(self.project)

    def run_on_tty(self, env, answer, *args):
        """Runs `swipium run` with a pseudo-terminal as stdin and controlling terminal; answers the prompt."""
        master, slave = os.openpty()
        e = dict(env.env)
        e.update(NO_POLICY)

        def take_tty():
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        proc = subprocess.Popen([CLI, "run", *args, "--root", self.project], env=e, stdin=slave,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                                preexec_fn=take_tty)
        os.close(slave)
        seen = b""
        try:
            while b"Approve? [y/N]" not in seen:
                ready, _, _ = select.select([master], [], [], 120)
                if not ready:
                    break
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            if b"Approve? [y/N]" in seen:
                os.write(master, answer.encode() + b"\n")
            out, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            os.close(master)
        return proc.returncode, seen.decode("utf-8", "replace"), out, err

    def test_terminal_prompt_answers_through_the_gate(self):
        with VDeviceEnv(app="login") as env:
            self.stopped(env)
            rc, prompt, out, err = self.run_on_tty(env, "n", "restart")
            self.assertIn("flow_mutation_run", prompt)
            self.assertIn("Approve? [y/N]", prompt)
            self.assertEqual(rc, 1, out + err)
            self.assertIn("declined", err)
            self.assertFalse(self.app_running(env))
            rc, prompt, out, err = self.run_on_tty(env, "y", "restart")
            self.assertEqual(rc, 0, prompt + out + err)
            self.assertIn("PASS  restart", out)
            self.assertTrue(self.app_running(env))
            rows = self.ledger(env)
            self.assertEqual([(m["status"], m["consent"]["approvalMechanism"]) for m in rows],
                             [("refused", "elicitation"), ("approved", "elicitation")], rows)


@unittest.skipUnless(MCP, "SWIPIUM_MCP is not set")
class McpFlows(Base):
    def server(self, env, extra=None):
        from mcpclient import Server
        e = dict(env.env)
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        return s

    def session(self, s):
        r = s.tool("qa_start_session", {"projectRoot": self.project})
        self.assertFalse(r["result"].get("isError"), r)
        return r["result"]["structuredContent"]["sessionId"]

    def test_the_action_budget_holds_inside_flows_both_ways(self):
        """A budget stop ends the flow at that step, the same through qa_flow_run and `swipium run`."""
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            results = []
            for how in ("qa_flow_run", "swipium run"):
                r = s.tool("qa_start_session", {"projectRoot": self.project, "budget": {"maxActions": 3}})
                sid = r["result"]["structuredContent"]["sessionId"]
                if how == "qa_flow_run":
                    res = s.tool("qa_flow_run", {"sessionId": sid, "flow": "budget"})["result"]["structuredContent"]
                    results.append((res["failedAtStep"], res["failedPhase"], res["reason"]))
                    self.assertIs(res["passed"], False)
                    self.assertIs(res["stopped"], True)
                    self.assertEqual(res["outcome"], "blocked")
                    self.assertIn("action budget reached", res["reason"])
                    self.assertTrue(res["steps"][-1]["stopped"])
                else:
                    p = self.run_cli(env, "run", "budget", "--root", self.project, "--session", sid)
                    self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                    m = re.search(r"BLOCK budget taps at (\w+)\[(\d+)\] tap: stopped: (.*)", p.stdout)
                    self.assertIsNotNone(m, p.stdout)
                    results.append((int(m.group(2)), m.group(1), m.group(3)))
            self.assertEqual(results[0], results[1])
            # the flow stopped before its last taps: the budget held
            self.assertLess(results[0][0], 6)
            s.close()

    def test_tools_run_check_repair(self):
        with VDeviceEnv(app="login") as env:
            s = self.server(env, CREDS)
            names = [t["name"] for t in s.call("tools/list")["result"]["tools"]]
            for n in ("qa_flow_check", "qa_flow_run", "qa_flow_repair"):
                self.assertIn(n, names)
            r = s.tool("qa_flow_check", {"projectRoot": self.project, "flow": "login", "ci": True})
            sc = r["result"]["structuredContent"]
            self.assertTrue(sc["valid"], sc)
            self.assertEqual([m["name"] for m in sc["ci"]["missingVariables"]], [])
            r = s.tool("qa_flow_check", {"flowYaml": "name: x\nsteps:\n  - tapp: y\n"})
            self.assertFalse(r["result"]["structuredContent"]["valid"])
            sid = self.session(s)
            r = s.tool("qa_flow_run", {"sessionId": sid, "flow": "login"})
            self.assertFalse(r["result"].get("isError"), r)
            self.assertTrue(r["result"]["structuredContent"]["passed"])
            # a failing flow: failedAtStep, no repair pointer for an assertion (each flow starts the app afresh)
            env.shell("am force-stop com.example.login")
            r = s.tool("qa_flow_run", {"sessionId": sid, "flow": "wrong"})
            self.assertTrue(r["result"]["isError"], r)
            sc = r["result"]["structuredContent"]
            self.assertEqual(sc["failureCode"], "ASSERTION_FAILED", json.dumps(r)[:3000])
            self.assertEqual(sc["failedAtStep"], 4)
            # a renamed button: ELEMENT_NOT_FOUND, repair proposes "Sign in" at medium, never the email field
            env.shell("am force-stop com.example.login")
            r = s.tool("qa_flow_run", {"sessionId": sid, "flow": "renamed"})
            sc = r["result"]["structuredContent"]
            self.assertEqual(sc["failureCode"], "ELEMENT_NOT_FOUND", sc)
            self.assertEqual(sc["failedAtStep"], 1)
            self.assertIn("qa_flow_repair", json.dumps(sc))
            r = s.tool("qa_flow_repair", {"sessionId": sid, "flow": "renamed", "failedStep": 1})
            rep = r["result"]["structuredContent"]
            self.assertEqual(rep["best"]["selector"], "Sign in", rep)
            self.assertEqual(rep["best"]["confidence"], "medium")
            for c in rep["candidates"]:
                self.assertNotEqual(c.get("id"), "email", rep)
                self.assertNotEqual(c["role"], "text-field")
            # variables outside SWIPIUM_* are never read
            r = s.tool("qa_flow_run", {"sessionId": sid, "flowYaml":
                                       "name: home\nsteps:\n  - inputText: {into: Email, text: \"${HOME}\"}\n"})
            sc = r["result"]["structuredContent"]
            self.assertEqual(sc["failureCode"], "MISSING_FIXTURE")
            self.assertNotIn("qa_flow_repair", json.dumps(sc))
            # a mutating flow asks for consent (portable envelope on this client) and runs nothing
            r = s.tool("qa_flow_run", {"sessionId": sid, "flow": "restart"})
            sc = r["result"]["structuredContent"]
            self.assertTrue(sc.get("requiresConsent"), sc)
            self.assertEqual(sc["action"], "flow_mutation_run")
            r = s.tool("qa_flow_run", {"sessionId": sid, "flow": "restart", "consentId": sc["consentId"],
                                       "approve": True})
            self.assertFalse(r["result"].get("isError"), r)
            # plan is read-only and needs no session
            r = s.tool("qa_flow_run", {"mode": "plan", "projectRoot": self.project, "flow": "restart"})
            plan = r["result"]["structuredContent"]
            self.assertEqual(len(plan["backends"]), 5)
            self.assertTrue(plan["consent"]["required"])
            s.close()
            self.assert_no_password(env.server.home)

    def flow_rows(self, home, sid):
        for dirpath, _, files in os.walk(home):
            if os.path.basename(dirpath) == sid and "state.json" in files:
                with open(os.path.join(dirpath, "state.json")) as f:
                    return [m for m in json.load(f).get("mutations", []) if m.get("action") == "flow_mutation_run"]
        return []

    def test_flow_consent_per_era(self):
        """qa_flow_run takes flow_mutation_run the way the connection allows, with the library's request."""
        from mcpclient import Server, meta
        with VDeviceEnv(app="login") as env:
            # 2025 era with form elicitation: elicitation/create; a decline runs nothing and is ledgered
            s = Server(env=dict(env.env))
            s.initialize(capabilities={"elicitation": {}})
            sid = self.session(s)
            rid = s.request("tools/call", {"name": "qa_flow_run", "arguments": {"sessionId": sid, "flow": "restart"}})
            ask = s.read_line()
            self.assertEqual(ask.get("method"), "elicitation/create", ask)
            self.assertIn("flow_mutation_run", ask["params"]["message"])
            self.assertIn("restartApp", ask["params"]["message"])
            s.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}})
            r = s.wait_for(rid)["result"]
            self.assertEqual(r["structuredContent"]["failureCode"], "CONSENT_DECLINED", r)
            # the explain is capped at 699 bytes on a UTF-8 boundary (a name of 2-byte characters)
            long_flow = "name: " + "\u00e9" * 500 + "\nappId: com.example.login\nsteps:\n  - restartApp\n"
            self.assertEqual(s.close(), 0)
            s = self.server(env)  # a client without elicitation: the portable envelope
            r = s.tool("qa_flow_run", {"sessionId": sid, "flowYaml": long_flow})
            sc = r["result"]["structuredContent"]
            self.assertTrue(sc.get("requiresConsent"), sc)
            self.assertTrue(sc["explain"].startswith('Run flow "\u00e9\u00e9'), sc["explain"][:40])
            self.assertLessEqual(len(sc["explain"].encode("utf-8")), 699)
            self.assertGreaterEqual(len(sc["explain"].encode("utf-8")), 690)
            self.assertEqual(s.close(), 0)
            self.assertEqual([m["status"] for m in self.flow_rows(env.server.home, sid)],
                             ["requested", "refused", "requested"])
            # 2026-07-28: InputRequiredResult, then the retry with requestState runs the flow
            s = Server(env=dict(env.env))
            r = s.call("tools/call", {"name": "qa_start_session", "arguments": {"projectRoot": self.project},
                                      "_meta": meta()})
            sid = r["result"]["structuredContent"]["sessionId"]
            call = {"name": "qa_flow_run", "arguments": {"sessionId": sid, "flow": "restart"},
                    "_meta": meta({"elicitation": {}})}
            r = s.call("tools/call", call)["result"]
            self.assertEqual(r["resultType"], "input_required", r)
            self.assertIn("flow_mutation_run", r["inputRequests"]["swipium_consent"]["params"]["message"])
            retry = dict(call, requestState=r["requestState"],
                         inputResponses={"swipium_consent": {"action": "accept", "content": {"approve": True}}})
            r = s.call("tools/call", retry, timeout=120)["result"]
            self.assertEqual(r["resultType"], "complete")
            self.assertFalse(r.get("isError"), r)
            self.assertTrue(r["structuredContent"]["passed"], r)
            self.assertEqual(s.close(), 0)
            rows = self.flow_rows(env.server.home, sid)
            self.assertEqual([(m["status"], m["consent"]["approvalMechanism"]) for m in rows][-1:],
                             [("approved", "elicitation")], rows)
            self.assertNotIn("refused", [m["status"] for m in rows])



CRASH = """name: checkout crash
appId: com.example.shop
steps:
  - prepareTarget
  - tap: "Add to cart"
  - tap: "Checkout"
  - assertVisible: "Add to cart"
"""


class SameLibraryPath(Base):
    """`swipium run` and qa_flow_run bind the device through the same library call (sw_drive_bind), so a
    flow that taps into a crash yields the same health findings (checked after each action) through both."""

    def setUp(self):
        super().setUp()
        write(os.path.join(self.project, ".swipium", "flows", "crash.yaml"), CRASH)

    def session_state(self, home, sid):
        for dirpath, _, files in os.walk(os.path.join(home, ".swipium")):
            if os.path.basename(dirpath) == sid and "state.json" in files:
                with open(os.path.join(dirpath, "state.json")) as f:
                    return json.load(f)
        self.fail("no state.json for session " + sid)

    def health_findings(self, state):
        return sorted((f.get("kind"), f.get("failureCode"), f.get("severity"), f.get("layer"))
                      for f in state.get("findings", []))

    def test_crash_findings_equal_through_cli_and_mcp(self):
        with VDeviceEnv(app="health") as env:
            p = self.run_cli(env, "run", "crash", "--root", self.project)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("FAIL  checkout crash at steps[3]", p.stdout)
            cli_sid = p.stdout.split("; session ")[1].split(";")[0]
            cli_state = self.session_state(env.server.home, cli_sid)
            self.assertEqual(cli_state["device"]["serial"], env.serial)
            self.assertEqual(cli_state["driverKind"], "adb")

            from mcpclient import Server
            s = Server(env=dict(env.env))
            s.initialize()
            r = s.tool("qa_start_session", {"projectRoot": self.project})
            sid = r["result"]["structuredContent"]["sessionId"]
            r = s.tool("qa_flow_run", {"sessionId": sid, "flow": "crash"})
            self.assertTrue(r["result"]["isError"], r)
            sc = r["result"]["structuredContent"]
            self.assertEqual(sc["failedAtStep"], 3, sc)
            s.close()
            mcp_state = self.session_state(env.server.home, sid)

        cli = self.health_findings(cli_state)
        self.assertIn(("native_crash", "NATIVE_CRASH", "high", "native"), cli, cli_state.get("findings"))
        self.assertEqual(cli, self.health_findings(mcp_state))
        # the same books: every action counted once, the same number through both
        self.assertEqual(cli_state["counters"]["actions"], mcp_state["counters"]["actions"])


if __name__ == "__main__":
    unittest.main()
