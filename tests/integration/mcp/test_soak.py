"""test_soak.py: 100,000 tool calls in one swipium-mcp process; resident memory must grow by less than 1 MB.

A resource test, not a timing test: it reads VmRSS from /proc/<pid>/status after a warm-up and at the end.
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcpclient import Server  # noqa: E402

TOTAL = int(os.environ.get("SWIPIUM_SOAK_CALLS", "100000"))
WARMUP = 10000
CHUNK = 500


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Soak(unittest.TestCase):
    def test_rss_stays_flat_over_100000_calls(self):
        home = tempfile.mkdtemp(prefix="swipium-soak-")
        app = os.path.join(home, "app")
        os.makedirs(app)
        open(os.path.join(app, "package.json"), "w").close()
        s = Server(env={"HOME": home, "SWIPIUM_LOG_LEVEL": "warn"})
        try:
            s.initialize()
            sid = s.tool("qa_start_session", {"projectRoot": app})["result"]["structuredContent"]["sessionId"]
            # A mix of success and error paths; none of them accumulates session state.
            calls = [
                ("qa_explain_blocker", {"failureCode": "NO_DEVICE"}),
                ("qa_status", {}),
                ("qa_status", {"sessionId": sid}),
                ("qa_job_status", {"sessionId": sid, "jobId": "00000000"}),
                ("qa_note", {"sessionId": sid, "workflow": "w", "outcome": "pass", "bogus": 1}),
                ("qa_get_artifact", {"uri": "swipium://session/%s/report/none.json" % sid}),
                ("qa_agent_brief", {}),
            ]
            payloads = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "tools/call",
                                    "params": {"name": n, "arguments": a}}) for n, a in calls]
            done = 0
            before = None
            errors = 0
            while done < TOTAL:
                n = min(CHUNK, TOTAL - done)
                batch = []
                for i in range(n):
                    p = payloads[(done + i) % len(payloads)]
                    batch.append(p.replace('"id": 0', '"id": %d' % (done + i + 1), 1))
                s.send_raw(("\n".join(batch) + "\n").encode())
                for i in range(n):
                    msg = s.read_line(timeout=120)
                    self.assertIn("result", msg)
                    errors += 1 if msg["result"].get("isError") else 0
                s.raw_lines.clear()
                done += n
                if before is None and done >= WARMUP:
                    before = rss_kb(s.proc.pid)
            after = rss_kb(s.proc.pid)
            print(f"soak: {TOTAL} calls ({errors} error results), VmRSS {before} kB after {WARMUP} calls, "
                  f"{after} kB at the end, growth {after - before} kB", file=sys.stderr)
            self.assertGreater(errors, 0)
            self.assertLess(after - before, 1024)
            self.assertEqual(s.close(), 0)
        finally:
            if s.proc.poll() is None:
                s.proc.kill()
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
