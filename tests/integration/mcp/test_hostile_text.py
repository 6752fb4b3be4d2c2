"""test_hostile_text.py: non-ASCII, invalid and over-long text at every echo point of swipium-mcp.

Each test sends text that used to be cut in the middle of a UTF-8 sequence (or was invalid to begin with)
and checks that the server answers that request exactly once, with valid JSON whose strings are valid
UTF-8, keeps running, and shows a capped copy of the text (never a cut character).
"""
import json
import os
import stat
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcpclient import ServerTestCase, meta  # noqa: E402

MARKER = "\u2026"
# The same text at two alignments, so a byte cut at any fixed offset lands inside a character once.
ALIGNED = ["é" * 300, "x" + "é" * 300, "中" * 300, "x" + "中" * 300, "😀" * 200]


def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)


class Base(ServerTestCase):
    home_prefix = "swipium-hostile-"
    server_env = {"SWIPIUM_PROJECT_ROOT": "", "CLAUDE_PROJECT_DIR": ""}

    def answer(self, s, method, params, timeout=30, probe=("ping", None)):
        """Sends one request; returns its answer, after checking every string is valid and the server lives."""
        rid = s.request(method, params)
        msg = s.wait_for(rid, timeout)
        for text in strings(msg):
            self.assertNotIn("\ufffd\ufffd\ufffd\ufffd", text)  # no mass damage from a cut
            text.encode("utf-8")  # a lone surrogate (from a bad escape) would raise here
        # the server is still there and nothing more was sent for that id
        self.assertIn("result", s.call(*probe))
        return msg

    def finish(self, s):
        self.assertEqual(s.close(), 0, s.stderr[-2000:])
        ids = [json.loads(line).get("id") for line in s.raw_lines]
        answered = [i for i in ids if i is not None]
        self.assertEqual(len(answered), len(set(answered)), "a request was answered twice")
        s.assert_stdout_protocol_only(self)


class EchoPoints(Base):
    def test_unknown_argument_with_non_ascii_name(self):
        s = self.server()
        s.initialize()
        for name in ALIGNED:
            r = self.answer(s, "tools/call", {"name": "qa_status", "arguments": {name: 1}})["result"]
            self.assertTrue(r["isError"])
            sc = r["structuredContent"]
            self.assertEqual(sc["failureCode"], "INVALID_ARGUMENT")
            self.assertIn("does not accept", sc["what"])
            self.assertIn(MARKER, sc["what"])
            shown = sc["unknownArguments"][0]
            self.assertLessEqual(len(shown.encode("utf-16-le")) // 2, 100)
            self.assertTrue(shown.startswith(name[:10]) and shown.endswith(name[-10:]), shown)
            self.assertIn(sc["what"].splitlines()[0], r["content"][0]["text"])
        self.finish(s)

    def test_long_non_ascii_failure_code(self):
        s = self.server()
        s.initialize()
        for code in ALIGNED:
            r = self.answer(s, "tools/call", {"name": "qa_explain_blocker", "arguments": {"failureCode": code}})
            sc = r["result"]["structuredContent"]
            self.assertEqual(sc["failureCode"], "INVALID_ARGUMENT")
            self.assertIn("Unknown failureCode", sc["what"])
            self.assertIn(code[-5:] + '".', sc["what"])  # the tail is kept around the marker
        self.finish(s)

    def test_prompt_name_resource_uri_method_and_tool_name(self):
        s = self.server()
        s.initialize()
        for text in ALIGNED:
            e = self.answer(s, "prompts/get", {"name": text})["error"]
            self.assertEqual(e["code"], -32602)
            self.assertIn("not found", e["message"])
            e = self.answer(s, "resources/read", {"uri": "swipium://session/" + text * 5})["error"]
            self.assertIn("Resource not found", e["message"])
            e = self.answer(s, text, {})["error"]
            self.assertEqual(e["code"], -32601)
            self.assertIn(MARKER, e["message"])
            r = self.answer(s, "tools/call", {"name": text, "arguments": {}})["result"]
            self.assertTrue(r["isError"])
            self.assertIn("not found", r["content"][0]["text"])
        self.finish(s)

    def test_invalid_argument_path_and_stateless_version(self):
        s = self.server()
        s.initialize()
        for text in ALIGNED:
            # a nested unknown key deep inside an object argument: path and message are capped
            r = self.answer(s, "tools/call", {"name": "qa_continue_from_blocker",
                                              "arguments": {"sessionId": text, "kind": text, "values": {text: text}}})
            self.assertIn("result", r)
        self.finish(s)
        s = self.server()
        for text in ALIGNED:
            e = self.answer(s, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": text}},
                            probe=("prompts/list", {"_meta": meta()}))
            self.assertIn("error", e)
        self.finish(s)

    def test_cjk_template_path(self):
        s = self.server()
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": self.app})["result"]["structuredContent"]["sessionId"]
        for text in ALIGNED:
            r = self.answer(s, "tools/call", {"name": "qa_visual", "arguments": {
                "sessionId": sid, "mode": "find_image", "template": "模板/" + text + ".png"}})["result"]
            self.assertTrue(r["isError"])
            self.assertTrue(r["structuredContent"]["what"])
            r = self.answer(s, "tools/call", {"name": "qa_visual", "arguments": {
                "sessionId": sid, "mode": "baseline", "name": text}})["result"]
            self.assertTrue(r["isError"])
        self.finish(s)

    def test_device_output_with_non_ascii_at_the_cap_offset(self):
        # A stand-in adb: one online emulator, and every other command fails with 600 non-ASCII characters.
        bindir = os.path.join(self.home, "bin")
        os.makedirs(bindir)
        adb = os.path.join(bindir, "adb")
        with open(adb, "w") as f:
            f.write('#!/bin/sh\n'
                    'case "$*" in\n'
                    '*devices*) printf "List of devices attached\\nemulator-5554\\tdevice\\n"; exit 0;;\n'
                    '*getprop*) printf "[ro.kernel.qemu]: [1]\\n[ro.build.version.sdk]: [34]\\n[sys.boot_completed]: [1]\\n"; exit 0;;\n'
                    'esac\n'
                    'python3 -c \'import sys; t = "x" + "\\u00e9" * 700 + "\\n"; sys.stdout.write(t); '
                    'sys.stderr.write(t)\'\n'
                    'exit 1\n')
        os.chmod(adb, stat.S_IRWXU)
        s = self.server({"PATH": bindir + ":/usr/bin:/bin", "ANDROID_HOME": "", "ANDROID_SDK_ROOT": ""})
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": self.app})["result"]["structuredContent"]["sessionId"]
        # qa_orientation quotes the device's refusal (capped at 200), qa_snapshot the failed dump (500)
        r = self.answer(s, "tools/call", {"name": "qa_orientation",
                                          "arguments": {"sessionId": sid, "orientation": "landscape"}},
                        timeout=60)["result"]
        what = r["structuredContent"]["what"]
        # the answer says what failed (the wording moved with the one-door device layer)
        self.assertRegex(what, "device refused|accelerometer_rotation")
        self.assertIn("xé", what)
        self.assertIn(MARKER, what)
        self.assertNotIn("\ufffd", what)
        r = self.answer(s, "tools/call", {"name": "qa_snapshot", "arguments": {"sessionId": sid}},
                        timeout=60)["result"]
        self.assertTrue(r["isError"])
        self.assertNotIn("\ufffd", json.dumps(r, ensure_ascii=False))
        self.finish(s)


class RequestDecoding(Base):
    def test_lone_surrogate_gets_a_normal_answer(self):
        s = self.server()
        s.initialize()
        s.send_raw(b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"qa_status",'
                   b'"arguments":{"zz\\ud800":"a\\ud800b"}}}\n')
        msg = s.wait_for(77)
        self.assertIn("result", msg)
        sc = msg["result"]["structuredContent"]
        self.assertEqual(sc["failureCode"], "INVALID_ARGUMENT")  # the unknown name is echoed back
        self.assertEqual(sc["unknownArguments"], ["zz\ufffd"])
        s.send_raw(b'{"jsonrpc":"2.0","id":78,"method":"prompts/get","params":{"name":"x\\udc00\\ud83d\\ude00"}}\n')
        e = s.wait_for(78)["error"]
        self.assertIn("x\ufffd\U0001F600", e["message"])
        self.finish(s)

    def test_invalid_utf8_bytes_become_replacement_characters(self):
        s = self.server()
        s.initialize()
        s.send_raw(b'{"jsonrpc":"2.0","id":79,"method":"prompts/get","params":{"name":"a\xff\xc3b"}}\n')
        e = s.wait_for(79)["error"]
        self.assertIn("a\ufffd\ufffdb", e["message"])
        self.finish(s)


if __name__ == "__main__":
    unittest.main(verbosity=2)
