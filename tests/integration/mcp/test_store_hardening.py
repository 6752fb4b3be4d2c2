"""test_store_hardening.py: the session store under two servers, a read-only disk and a corrupt registry,
through real swipium-mcp processes sharing one HOME (issue 11 items 7 and 19)."""
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcpclient import ServerTestCase  # noqa: E402


class StoreHardening(ServerTestCase):
    home_prefix = "swipium-store-hard-"
    server_env = {"SWIPIUM_PROJECT_ROOT": "", "CLAUDE_PROJECT_DIR": "", "SWIPIUM_LOG_LEVEL": "error"}

    def server(self):
        s = super().server()
        s.initialize()
        return s

    def ok(self, s, name, args):
        r = s.tool(name, args)["result"]
        self.assertNotIn("isError", r, json.dumps(r)[:2000])
        return r["structuredContent"]

    def session_dir(self, sid):
        for root, dirs, _ in os.walk(os.path.join(self.home, ".swipium", "runs")):
            if sid in dirs:
                return os.path.join(root, sid)
        self.fail("no folder for session %s" % sid)

    def report(self, s, sid):
        sc = self.ok(s, "qa_report", {"sessionId": sid, "format": "json"})
        text = s.call("resources/read", {"uri": sc["reportUri"]})["result"]["contents"][0]["text"]
        return sc, json.loads(text)

    def test_two_servers_on_one_session_lose_no_note(self):
        a, b = self.server(), self.server()
        sid = self.ok(a, "qa_start_session", {"projectRoot": self.app})["sessionId"]
        # B has the session loaded before A records the failure
        self.assertEqual(self.ok(b, "qa_status", {"sessionId": sid})["notes"], 0)
        note = self.ok(a, "qa_note", {"sessionId": sid, "workflow": "checkout", "outcome": "fail",
                                      "reason": "total shows NaN"})
        self.assertTrue(note["persisted"])
        time.sleep(0.5)  # A's debounced save is on disk
        for i in range(200):
            self.ok(b, "qa_note", {"sessionId": sid, "workflow": "screen %d" % i, "outcome": "pass"})
        time.sleep(0.5)  # B's debounced saves are on disk
        # each server sees the other's notes
        self.assertEqual(self.ok(a, "qa_status", {"sessionId": sid})["notes"], 201)
        sc, rep = self.report(b, sid)
        self.assertNotEqual(sc["executiveSummary"]["risk"], "ship", sc["executiveSummary"])
        self.assertIn("checkout", [o["workflow"] for o in rep["testOutcomes"]])
        self.assertEqual(a.close(), 0)
        self.assertEqual(b.close(), 0)
        # a third server, after both are gone, reads every note back
        c = self.server()
        self.assertEqual(self.ok(c, "qa_status", {"sessionId": sid})["notes"], 201)
        sc, rep = self.report(c, sid)
        self.assertEqual(sc["executiveSummary"]["risk"], "block", sc["executiveSummary"])
        outcomes = {o["workflow"]: o["outcome"] for o in rep["testOutcomes"]}
        self.assertEqual(outcomes["checkout"], "fail")
        self.assertEqual(len(outcomes), 201)
        self.assertEqual(c.close(), 0)

    def mount_read_only(self, path):
        if os.geteuid() != 0:
            self.skipTest("a read-only bind mount needs root")
        r = subprocess.run(["mount", "--bind", path, path], capture_output=True, text=True)
        if r.returncode != 0:
            self.skipTest("cannot bind-mount here: %s" % r.stderr.strip())
        self.addCleanup(subprocess.run, ["umount", "-l", path], capture_output=True)
        r = subprocess.run(["mount", "-o", "remount,ro,bind", path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with self.assertRaises(OSError):
            open(os.path.join(path, "probe"), "w")

    def test_note_on_a_read_only_disk_says_it_is_not_saved(self):
        s = self.server()
        sid = self.ok(s, "qa_start_session", {"projectRoot": self.app})["sessionId"]
        d = self.session_dir(sid)
        self.mount_read_only(d)
        r = s.tool("qa_note", {"sessionId": sid, "workflow": "checkout", "outcome": "fail"})["result"]
        sc = r["structuredContent"]
        self.assertTrue(sc["recorded"])
        self.assertFalse(sc["persisted"], sc)
        self.assertEqual(len(sc["warnings"]), 1, sc)
        self.assertIn("Read-only file system", sc["warnings"][0])
        self.assertIn("NOT saved to disk", r["content"][0]["text"])
        st = self.ok(s, "qa_status", {"sessionId": sid})
        self.assertEqual(st["notes"], 1)
        self.assertTrue(st.get("warnings"), st)
        # the disk comes back: the next note is saved, and the first one with the next checkpoint
        self.assertEqual(subprocess.run(["umount", d]).returncode, 0)
        sc = self.ok(s, "qa_note", {"sessionId": sid, "workflow": "login", "outcome": "pass"})
        self.assertTrue(sc["persisted"], sc)
        self.assertNotIn("warnings", sc)
        self.assertEqual(s.close(), 0)
        s2 = self.server()
        self.assertEqual(self.ok(s2, "qa_status", {"sessionId": sid})["notes"], 2)
        self.assertEqual(s2.close(), 0)

    def test_corrupt_registry_keeps_earlier_sessions_known(self):
        s = self.server()
        sid = self.ok(s, "qa_start_session", {"projectRoot": self.app})["sessionId"]
        self.ok(s, "qa_note", {"sessionId": sid, "workflow": "checkout", "outcome": "fail"})
        self.assertEqual(s.close(), 0)
        reg = os.path.join(self.home, ".swipium", "registry.json")
        with open(reg, "w") as f:
            f.write('[{"id": "')
        s = self.server()
        self.assertEqual(self.ok(s, "qa_status", {"sessionId": sid})["notes"], 1)
        self.assertEqual(s.close(), 0)
        with open(reg) as f:
            self.assertEqual([e["id"] for e in json.load(f)], [sid])


if __name__ == "__main__":
    unittest.main(verbosity=2)
