"""test_consent.py: consent plumbing in both eras, and job long-polls, through test-only fixture tools.

Runs swipium-mcp-consent-test: the real server plus two fixture tools: qa_consent_probe asks for
install_app consent and then succeeds; qa_job_probe starts a real job that waits until it is cancelled.
"""
import json
import time
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcpclient import ServerTestCase, meta  # noqa: E402


class Base(ServerTestCase):
    home_prefix = "swipium-consent-"
    server_env = {"SWIPIUM_CONSENT_PREAPPROVE": "", "SWIPIUM_REQUIRE_ELICITATION": ""}

    def session(self, s, stateless=False):
        p = {"name": "qa_start_session", "arguments": {"projectRoot": self.app}}
        if stateless:
            p["_meta"] = meta()
        return s.call("tools/call", p)["result"]["structuredContent"]["sessionId"]

    def ledger(self, sid):
        for dirpath, _, files in os.walk(os.path.join(self.home, ".swipium", "runs")):
            if os.path.basename(dirpath) == sid and "state.json" in files:
                with open(os.path.join(dirpath, "state.json")) as f:
                    return json.load(f)["mutations"]
        return []


class Legacy(Base):
    def probe_with_prompt(self, s, answer, args=None):
        """Calls the probe, answers the elicitation/create request, returns (request, result)."""
        rid = s.request("tools/call", {"name": "qa_consent_probe", "arguments": args or {}})
        req = s.read_line()
        self.assertEqual(req["method"], "elicitation/create")
        if answer is not None:
            s.send({"jsonrpc": "2.0", "id": req["id"], "result": answer})
        return req, (s.wait_for(rid)["result"] if answer is not None else rid)

    def test_elicitation_accept_runs_and_ledgers(self):
        s = self.server()
        s.initialize(capabilities={"elicitation": {}})
        sid = self.session(s)
        req, r = self.probe_with_prompt(s, {"action": "accept", "content": {"approve": True}}, {"sessionId": sid})
        msg = req["params"]["message"]
        self.assertIn('for action "install_app"', msg)
        self.assertIn('adb install -r demo.apk', msg)
        self.assertEqual(req["params"]["requestedSchema"]["required"], ["approve"])
        self.assertEqual(req["params"].get("mode"), "form")  # 2025-11-25 names the form mode
        self.assertNotIn("isError", r)
        self.assertTrue(r["structuredContent"]["ran"])
        self.assertNotIn("consentId", json.dumps(r))  # the model never sees a consentId on this path
        self.assertTrue(s.close() == 0)
        rows = self.ledger(sid)
        self.assertTrue(any(row.get("consent", {}).get("approvalMechanism") == "elicitation" for row in rows), rows)

    def test_decline_and_cancel(self):
        s = self.server()
        s.initialize(version="2025-06-18", capabilities={"elicitation": {}})
        req, r = self.probe_with_prompt(s, {"action": "decline"})
        self.assertNotIn("mode", req["params"])  # 2025-06-18 has no mode field
        sc = r["structuredContent"]
        self.assertTrue(r["isError"])
        self.assertEqual(sc["failureCode"], "CONSENT_DECLINED")
        self.assertFalse(sc["retrySafe"])
        self.assertEqual(sc["action"], "install_app")
        self.assertIn("answeredInMs", sc)
        self.assertNotIn("ledgerRow", sc)
        _, r = self.probe_with_prompt(s, {"action": "accept", "content": {"approve": False}})
        self.assertEqual(r["structuredContent"]["failureCode"], "CONSENT_DECLINED")
        _, r = self.probe_with_prompt(s, {"action": "cancel"})
        self.assertEqual(r["structuredContent"]["failureCode"], "CONSENT_CANCELLED")
        self.assertTrue(r["structuredContent"]["retrySafe"])
        # the client answers the prompt with an error
        rid = s.request("tools/call", {"name": "qa_consent_probe", "arguments": {}})
        req = s.read_line()
        s.send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32603, "message": "no UI"}})
        sc = s.wait_for(rid)["result"]["structuredContent"]
        self.assertEqual(sc["failureCode"], "CONSENT_CANCELLED")
        self.assertFalse(sc["likelyAutomatic"])
        self.assertIn("elicitationFailure", sc)
        self.assertEqual(s.close(), 0)

    def test_cancelling_the_call_while_the_prompt_is_open(self):
        s = self.server()
        s.initialize(capabilities={"elicitation": {}})
        _, rid = self.probe_with_prompt(s, None)
        s.notify("notifications/cancelled", {"requestId": rid})
        seen = []
        r = s.wait_for(s.request("tools/call", {"name": "qa_status", "arguments": {}}), on_other=seen.append)
        self.assertIn("result", r)
        self.assertFalse([m for m in seen if m.get("id") == rid])
        self.assertEqual(s.close(), 0)

    def test_envelope_without_elicitation(self):
        s = self.server()
        s.initialize()
        sid = self.session(s)
        r = s.tool("qa_consent_probe", {"sessionId": sid, "target": "a.apk"})["result"]
        self.assertNotIn("isError", r)
        env = r["structuredContent"]
        self.assertTrue(env["requiresConsent"])
        self.assertRegex(env["consentId"], r"^[0-9a-f]{8,}$")  # the spec says 8; the gate mints longer ids
        self.assertTrue(r["content"][0]["text"].startswith("🔐 Consent required (low): "))
        cid = env["consentId"]
        # another target: refused without burning, nothing runs
        r = s.tool("qa_consent_probe", {"sessionId": sid, "target": "b.apk", "consentId": cid, "approve": True})["result"]
        self.assertNotIn("ran", r["structuredContent"])
        r = s.tool("qa_consent_probe", {"sessionId": sid, "target": "a.apk", "consentId": cid, "approve": True})["result"]
        self.assertTrue(r["structuredContent"]["ran"], r)
        # single use
        r = s.tool("qa_consent_probe", {"sessionId": sid, "target": "a.apk", "consentId": cid, "approve": True})["result"]
        self.assertNotIn("ran", r["structuredContent"])
        self.assertEqual(s.close(), 0)
        self.assertTrue(any(row.get("consent", {}).get("approvalMechanism") == "client-assertion"
                            for row in self.ledger(sid)))

    def test_envelope_shows_a_long_non_ascii_command_whole(self):
        s = self.server()
        s.initialize()
        sid = self.session(s)
        target = "/tmp/" + "\u00e9\u4e2d" * 150 + "-end.apk"  # 300 characters, 750 bytes: past the old byte cut
        env = s.tool("qa_consent_probe", {"sessionId": sid, "target": target})["result"]["structuredContent"]
        self.assertTrue(env["requiresConsent"], env)
        self.assertIn(target, env["exactCommand"])
        self.assertNotIn("\ufffd", env["exactCommand"])
        self.assertEqual(s.close(), 0)

    def test_require_elicitation_refuses_and_preapproval_wins(self):
        s = self.server({"SWIPIUM_REQUIRE_ELICITATION": "1"})
        s.initialize()
        r = s.tool("qa_consent_probe")["result"]
        self.assertEqual(r["structuredContent"]["failureCode"], "CONSENT_REFUSED")
        self.assertEqual(s.close(), 0)
        s = self.server({"SWIPIUM_REQUIRE_ELICITATION": "1", "SWIPIUM_CONSENT_PREAPPROVE": "install_app"})
        s.initialize(capabilities={"elicitation": {}})
        r = s.tool("qa_consent_probe")["result"]  # no elicitation/create is sent: the next line is the result
        self.assertTrue(r["structuredContent"]["ran"])
        self.assertEqual(s.close(), 0)


class Stateless(Base):
    def call(self, s, args, caps=None, extra=None):
        p = {"name": "qa_consent_probe", "arguments": args, "_meta": meta(caps)}
        p.update(extra or {})
        return s.call("tools/call", p)

    def test_input_required_round_trip(self):
        s = self.server()
        sid = self.session(s, stateless=True)
        args = {"sessionId": sid, "target": "a.apk"}
        r = self.call(s, args, {"elicitation": {}})["result"]
        self.assertEqual(r["resultType"], "input_required")
        ask = r["inputRequests"]["swipium_consent"]
        self.assertEqual(ask["method"], "elicitation/create")
        self.assertEqual(ask["params"]["mode"], "form")
        self.assertIn("install_app", ask["params"]["message"])
        state = r["requestState"]
        self.assertRegex(state, r"^swp1\.[A-Za-z0-9_-]{43}$")
        answer = {"swipium_consent": {"action": "accept", "content": {"approve": True}}}
        r = self.call(s, args, {"elicitation": {}}, {"requestState": state, "inputResponses": answer})["result"]
        self.assertEqual(r["resultType"], "complete")
        self.assertTrue(r["structuredContent"]["ran"], r)
        # reuse
        r = self.call(s, args, {"elicitation": {}}, {"requestState": state, "inputResponses": answer})
        self.assertEqual(r["error"]["code"], -32602)
        self.assertEqual(r["error"]["data"], {"reason": "invalid_request_state"})
        self.assertEqual(s.close(), 0)

    def test_retargeted_token_is_refused_and_burned(self):
        s = self.server()
        args = {"target": "a.apk"}
        r = self.call(s, args, {"elicitation": {"form": {}}})["result"]
        state = r["requestState"]
        answer = {"swipium_consent": {"action": "accept", "content": {"approve": True}}}
        r = self.call(s, {"target": "evil.apk"}, {"elicitation": {}}, {"requestState": state, "inputResponses": answer})
        self.assertEqual(r["error"]["message"], "Invalid or expired requestState")
        r = self.call(s, args, {"elicitation": {}}, {"requestState": state, "inputResponses": answer})
        self.assertEqual(r["error"]["code"], -32602)  # burned by the mismatch
        self.assertEqual(s.close(), 0)

    def test_missing_answer_asks_again_and_decline(self):
        s = self.server()
        r = self.call(s, {}, {"elicitation": {}})["result"]
        r2 = self.call(s, {}, {"elicitation": {}}, {"requestState": r["requestState"]})["result"]
        self.assertEqual(r2["resultType"], "input_required")
        self.assertNotEqual(r2["requestState"], r["requestState"])
        r3 = self.call(s, {}, {"elicitation": {}}, {"requestState": r2["requestState"],
                                                    "inputResponses": {"swipium_consent": {"action": "decline"}}})
        self.assertEqual(r3["result"]["structuredContent"]["failureCode"], "CONSENT_DECLINED")
        self.assertEqual(r3["result"]["resultType"], "complete")
        self.assertEqual(s.close(), 0)

    def test_url_only_or_no_elicitation_gets_the_envelope(self):
        s = self.server()
        for caps in ({}, {"elicitation": {"url": {}}}):
            r = self.call(s, {}, caps)["result"]
            self.assertEqual(r["resultType"], "complete")
            self.assertTrue(r["structuredContent"]["requiresConsent"])
        self.assertEqual(s.close(), 0)


class LongPoll(Base):
    """qa_job_status long-polls a real job (the qa_job_probe fixture waits until cancelled)."""

    def start_job(self, s, ms=600000):
        sid = self.session(s)
        r = s.tool("qa_job_probe", {"sessionId": sid, "ms": ms})["result"]["structuredContent"]
        return sid, r["jobId"]

    def test_long_poll_returns_when_the_job_ends(self):
        s = self.server()
        s.initialize()
        sid, job = self.start_job(s, ms=300)
        r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job, "waitMs": 45000})["result"]["structuredContent"]
        self.assertEqual(r["status"], "done")
        self.assertEqual(r["result"], {"waited": True})
        self.assertFalse(r["waited"]["timedOut"])
        self.assertEqual(s.close(), 0)

    def test_wait_ms_is_clamped_with_a_note(self):
        s = self.server()
        s.initialize()
        sid, job = self.start_job(s, ms=200)
        r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job, "waitMs": 120000})["result"]["structuredContent"]
        self.assertIn("clamped", " ".join(r["notes"]))
        self.assertEqual(r["status"], "done")
        self.assertEqual(s.close(), 0)

    def test_cancel_mid_long_poll_leaves_the_job_running(self):
        s = self.server()
        s.initialize()
        sid, job = self.start_job(s)
        rid = s.request("tools/call", {"name": "qa_job_status",
                                       "arguments": {"sessionId": sid, "jobId": job, "waitMs": 45000}})
        time.sleep(0.3)  # let the worker enter the long-poll (not an assertion: a queued call is cancelled too)
        s.notify("notifications/cancelled", {"requestId": rid, "reason": "user pressed Esc"})
        seen = []
        r = s.wait_for(s.request("tools/call", {"name": "qa_job_status", "arguments": {"sessionId": sid,
                                                                                          "jobId": job}}),
                       on_other=seen.append)
        self.assertEqual(r["result"]["structuredContent"]["status"], "running")  # the job keeps running
        self.assertFalse([m for m in seen if m.get("id") == rid])  # the cancelled call gets no response
        r = s.tool("qa_job_cancel", {"sessionId": sid, "jobId": job})["result"]["structuredContent"]
        self.assertTrue(r["cancelled"])
        r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job})["result"]["structuredContent"]
        self.assertEqual(r["status"], "cancelled")
        self.assertNotIn("result", r)
        self.assertEqual(s.close(), 0)
        self.assertFalse([l for l in s.raw_lines if json.loads(l).get("id") == rid])

    def test_stdin_closed_mid_long_poll(self):
        s = self.server()
        s.initialize()
        sid, job = self.start_job(s)
        rid = s.request("tools/call", {"name": "qa_job_status",
                                       "arguments": {"sessionId": sid, "jobId": job, "waitMs": 45000}})
        self.assertEqual(s.close(timeout=20), 0)  # exits promptly: the poll and the job are cancelled
        self.assertFalse([l for l in s.raw_lines if json.loads(l).get("id") == rid])
        for dirpath, _, files in os.walk(os.path.join(self.home, ".swipium", "runs")):
            if os.path.basename(dirpath) == sid:
                with open(os.path.join(dirpath, "state.json")) as f:
                    jobs = json.load(f)["jobs"]
                self.assertEqual(jobs[0]["status"], "cancelled")


class Report(Base):
    """qa_report: the saved, deep-redacted report that `swipium report` finds, and every export format."""

    def cli(self, *args):
        import subprocess
        return subprocess.run([os.environ["SWIPIUM_CLI"]] + list(args), env=dict(os.environ, HOME=self.home),
                              capture_output=True, text=True, timeout=120)

    def test_report_is_saved_redacted_and_found_by_swipium_report(self):
        s = self.server()
        s.initialize()
        sid = self.session(s)
        s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                            "values": {"password": "sup3r-secret-pw"}})
        s.tool("qa_note", {"sessionId": sid, "workflow": "login", "outcome": "pass"})
        s.tool("qa_note", {"sessionId": sid, "workflow": "checkout", "outcome": "fail",
                           "reason": "typed sup3r-secret-pw and got a 500"})
        exports = {}
        for fmt in ("summary", "json", "junit", "sarif", "github-summary", "markdown", "playwright", "flow"):
            r = s.tool("qa_report", {"sessionId": sid, "format": fmt})["result"]
            self.assertNotIn("isError", r, r)
            sc = r["structuredContent"]
            self.assertRegex(sc["reportUri"], r"^swipium://session/%s/report/report-\d+\.json$" % sid)
            self.assertIn("manifestUri", sc)
            exports[fmt] = sc
            self.assertNotIn("sup3r-secret-pw", json.dumps(r))
        self.assertRegex(exports["junit"]["exportUri"], r"/report/report-\d+\.xml$")
        self.assertRegex(exports["sarif"]["exportUri"], r"/report/report-\d+\.sarif\.json$")
        self.assertRegex(exports["github-summary"]["exportUri"], r"/report/report-\d+\.summary\.md$")
        self.assertRegex(exports["markdown"]["exportUri"], r"/report/report-\d+\.md$")
        self.assertRegex(exports["playwright"]["exportUri"], r"/report/report-\d+\.playwright\.json$")
        self.assertIn("releaseGate", exports["junit"])
        self.assertNotIn("exportUri", exports["summary"])
        self.assertNotIn("exportUri", exports["flow"])  # no qa_act was recorded: a warning, no file
        self.assertTrue(exports["flow"]["warnings"])
        text = s.call("resources/read", {"uri": exports["json"]["reportUri"]})["result"]["contents"][0]["text"]
        self.assertEqual([o["workflow"] for o in json.loads(text)["testOutcomes"]], ["login", "checkout"])
        self.assertIn("«redacted»", text)
        self.assertEqual(s.close(), 0)
        # everything on disk is redacted
        for dirpath, _, files in os.walk(os.path.join(self.home, ".swipium")):
            for name in files:
                with open(os.path.join(dirpath, name), "rb") as f:
                    self.assertNotIn(b"sup3r-secret-pw", f.read(), name)
        r = self.cli("report", "--format", "junit", "--root", self.app)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('name="checkout"', r.stdout)
        self.assertIn("Release gate: BLOCK", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
