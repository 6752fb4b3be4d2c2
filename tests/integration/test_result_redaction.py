"""test_result_redaction.py: a registered secret never comes back in a tool result (TOOLS.md §7.4).

Two sides of one promise, through a real MCP connection:
- every listed tool is called with the secret in each of its string arguments (reason, workflow names,
  assertions, paths, ids ...): neither the text blocks nor structuredContent may hold it;
- on the virtual device, an app whose error dialog and log echo the typed password: snapshot, act,
  health findings, inspect and wait results may show the dialog but never the password.
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from mcpclient import Server  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
ECHO_APP = os.path.join(SOURCE_ROOT, "tests", "data", "android", "echo-secret.yaml")
SECRET = "Tr0ub4dor-zebra"
# Tools that wait for something (devices, jobs) are given the shortest wait their schema allows.
SHORT = {"waitMs": 0, "timeoutMs": 1000, "seconds": 1, "durationSec": 1}


def body(resp):
    return json.dumps(resp, ensure_ascii=False)


def fill(schema, secret, depth=0):
    """Arguments for every property: the secret in free strings, the first value of enums."""
    out = {}
    for name, p in (schema.get("properties") or {}).items():
        t = p.get("type")
        types = t if isinstance(t, list) else [t]
        if "enum" in p:
            out[name] = p["enum"][0]
        elif name in SHORT and ("integer" in types or "number" in types):
            out[name] = max(SHORT[name], p.get("minimum", SHORT[name]))
        elif "string" in types:
            out[name] = secret
        elif "array" in types and (p.get("items") or {}).get("type") == "string":
            out[name] = [secret]
        elif "object" in types and depth < 1 and p.get("properties"):
            out[name] = fill(p, secret, depth + 1)
        elif "object" in types:
            out[name] = {"field": secret}
    return out


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-redaction-")
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write("{}")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def register(self, s, sid):
        r = s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                                "values": {"password": SECRET}})
        self.assertFalse(r["result"].get("isError"), r)
        self.assertNotIn(SECRET, body(r))


class EveryTool(Base):
    def test_secret_in_every_argument_of_every_listed_tool(self):
        home = os.path.join(self.tmp, "home")
        os.makedirs(home)
        # an adb that sees no device (first on PATH, so the real one never starts a daemon on the
        # shared default port 5037): device tools fail fast (their errors still echo arguments)
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "adb"), "w") as f:
            f.write('#!/bin/sh\ncase "$*" in *devices*) printf "List of devices attached\\n\\n"; exit 0;; esac\n'
                    'echo "error: no devices/emulators found" >&2\nexit 1\n')
        os.chmod(os.path.join(bindir, "adb"), 0o700)
        s = Server(env={"HOME": home, "PATH": bindir + ":/usr/bin:/bin", "ANDROID_HOME": "", "ANDROID_SDK_ROOT": "",
                        "ADB_EMU": "0",
                        "SWIPIUM_PROJECT_ROOT": "", "CLAUDE_PROJECT_DIR": ""})
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": self.project})["result"]["structuredContent"]["sessionId"]
        self.register(s, sid)
        tools = s.call("tools/list")["result"]["tools"]
        self.assertGreater(len(tools), 20)
        checked = ran = 0
        for t in tools:
            name = t["name"]
            args = fill(t["inputSchema"], SECRET)
            if "sessionId" in args:
                args["sessionId"] = sid
            if "projectRoot" in args:
                args["projectRoot"] = self.project
            if name in ("qa_start_session", "qa_continue_from_blocker"):
                args.pop("values", None)
            r = s.tool(name, args, timeout=90)
            self.assertIn("result", r, (name, r))
            self.assertNotIn(SECRET, body(r), name)
            checked += 1
            if (r["result"].get("structuredContent") or {}).get("failureCode") != "INVALID_ARGUMENT":
                ran += 1  # got past argument checks: the handler itself answered
        self.assertEqual(checked, len(tools))
        self.assertGreater(ran, len(tools) // 2, "most calls never reached their handler")
        # error `what` texts that quote an argument: an unknown workflow / code / artifact
        for name, args in [("qa_note", {"sessionId": sid, "workflow": "login as " + SECRET, "outcome": "fail",
                                        "reason": "the field showed " + SECRET}),
                           ("qa_explain_blocker", {"failureCode": SECRET, "sessionId": sid}),
                           ("qa_get_artifact", {"uri": "swipium://session/%s/log/%s" % (sid, SECRET),
                                                "sessionId": sid}),
                           ("qa_status", {"sessionId": sid})]:
            r = s.tool(name, args)
            self.assertIn("result", r, (name, r))
            self.assertNotIn(SECRET, body(r), name)
            if name == "qa_note":
                self.assertIn("\u00abredacted\u00bb", body(r))
        self.assertEqual(s.close(), 0)


class InlineFixture(Base):
    def test_a_secret_field_of_an_inline_fixture_is_redacted_from_the_start(self):
        """Given to qa_start_session, before any seed or text entry reads it: a later result or file
        that would echo it shows the redaction mark instead (never state.json, never a result)."""
        home = os.path.join(self.tmp, "home")
        os.makedirs(home)
        s = Server(env={"HOME": home, "PATH": "/usr/bin:/bin", "ANDROID_HOME": "", "ANDROID_SDK_ROOT": "",
                        "ADB_EMU": "0", "SWIPIUM_PROJECT_ROOT": "", "CLAUDE_PROJECT_DIR": ""})
        s.initialize()
        fx = [{"name": "login", "fields": {"pin": {"value": SECRET, "secret": True},
                                           "password": {"value": SECRET[::-1]}}}]
        r = s.tool("qa_start_session", {"projectRoot": self.project, "fixtures": fx})
        self.assertFalse(r["result"].get("isError"), r)
        sid = r["result"]["structuredContent"]["sessionId"]
        for value in (SECRET, SECRET[::-1]):
            r = s.tool("qa_note", {"sessionId": sid, "workflow": "sign in as " + value, "outcome": "fail",
                                   "reason": "the field showed " + value})
            self.assertNotIn(value, body(r))
            self.assertIn("\u00abredacted\u00bb", body(r))
        self.assertEqual(s.close(), 0)
        for dirpath, _, files in os.walk(home):
            for name in files:
                with open(os.path.join(dirpath, name), "rb") as f:
                    data = f.read()
                for value in (SECRET, SECRET[::-1]):
                    self.assertNotIn(value.encode(), data, os.path.join(dirpath, name))


class OnScreen(Base):
    def test_dialog_and_log_that_echo_the_password(self):
        from vdevice_env import VDeviceEnv
        with VDeviceEnv(app=ECHO_APP) as env:
            env.shell("monkey -p com.example.echo -c android.intent.category.LAUNCHER 1")
            e = dict(env.env)
            e["HOME"] = env.server.home
            s = Server(env=e)
            s.initialize()
            sid = s.tool("qa_start_session", {"projectRoot": self.project})["result"]["structuredContent"][
                "sessionId"]
            self.register(s, sid)
            r = s.tool("qa_act", {"sessionId": sid, "action": "type", "target": {"id": "password"},
                                  "text": SECRET})
            self.assertNotIn(SECRET, body(r))
            r = s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "Sign in"}})
            self.assertNotIn(SECRET, body(r))
            seen_dialog = False
            for name, args in [("qa_snapshot", {}), ("qa_check_health", {}), ("qa_inspect", {"ref": "@e2"}),
                               ("qa_wait", {"for": "text", "text": SECRET, "timeoutMs": 1000}),
                               ("qa_resolve_target", {}), ("qa_status", {}), ("qa_clear_overlay", {})]:
                r = s.tool(name, dict(args, sessionId=sid), timeout=90)
                self.assertIn("result", r, (name, r))
                text = body(r)
                self.assertNotIn(SECRET, text, name)
                if "Sign-in failed for" in text:
                    seen_dialog = True
            self.assertTrue(seen_dialog, "no result showed the dialog: the test saw nothing to redact")
            s.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
