#!/usr/bin/env python3
"""bench-status.py: qa_status cost against the number of notes, and an agent that polls qa_status after every note.

Usage: bench-status.py <path to swipium-mcp> [runs]
Prints, in one run against the same server binary:
- qa_status median round trip after 100 and after 10,000 notes, against a ping in between (the baseline);
  the ratio 10,000 / 100 must stay near 1 (qa_status reads counters, it does not copy the notes);
- N x (qa_note + qa_status) for N = 1,000 and N = 10,000: the total must grow about 10x (linear), not 100x.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SERVER = sys.argv[1] if len(sys.argv) > 1 else "swipium-mcp"
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 200
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}


class Conn:
    def __init__(self, home):
        env = dict(os.environ, HOME=home, SWIPIUM_LOG_LEVEL="error", SWIPIUM_PROJECT_ROOT="", CLAUDE_PROJECT_DIR="")
        self.p = subprocess.Popen([SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.id = 1
        self.send([INIT])

    def send(self, msgs):
        """Writes the messages (in chunks bounded by the pipes) and reads one reply per request."""
        out = []
        for i in range(0, len(msgs), 200):
            chunk = msgs[i:i + 200]
            self.p.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in chunk))
            self.p.stdin.flush()
            for _ in chunk:
                out.append(self.p.stdout.readline())
        return out

    def req(self, method, params=None):
        self.id += 1
        m = {"jsonrpc": "2.0", "id": self.id, "method": method}
        if params is not None:
            m["params"] = params
        return m

    def tool(self, name, args):
        return self.req("tools/call", {"name": name, "arguments": args})

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def session(c, app):
    line = c.send([c.tool("qa_start_session", {"projectRoot": app})])[0]
    return json.loads(line)["result"]["structuredContent"]["sessionId"]


def notes(c, sid, n, start=0):
    c.send([c.tool("qa_note", {"sessionId": sid, "workflow": f"workflow {i}", "outcome": "pass",
                               "reason": f"observation number {i}"}) for i in range(start, start + n)])


def status_ms(c, sid):
    """Median qa_status and ping round trips (ms), interleaved so load changes hit both alike."""
    st, pg = [], []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        line = c.send([c.tool("qa_status", {"sessionId": sid})])[0]
        st.append(time.perf_counter() - t0)
        assert b'"isError"' not in line, line[:300]
        t0 = time.perf_counter()
        c.send([c.req("ping")])
        pg.append(time.perf_counter() - t0)
    return statistics.median(st) * 1000, statistics.median(pg) * 1000


def poll_after_every_note(app, c, n):
    sid = session(c, app)
    msgs = []
    for i in range(n):
        msgs.append(c.tool("qa_note", {"sessionId": sid, "workflow": f"w{i}", "outcome": "pass"}))
        msgs.append(c.tool("qa_status", {"sessionId": sid}))
    t0 = time.perf_counter()
    c.send(msgs)
    return time.perf_counter() - t0


def main():
    home = tempfile.mkdtemp(prefix="bench-status-")
    app = os.path.join(home, "app")
    os.makedirs(app)
    open(os.path.join(app, "package.json"), "w").close()
    try:
        c = Conn(home)
        sid = session(c, app)
        notes(c, sid, 100)
        s100, p100 = status_ms(c, sid)
        notes(c, sid, 9900, 100)
        s10k, p10k = status_ms(c, sid)
        print(f"qa_status after 100 notes: median {s100:.3f} ms (ping {p100:.3f} ms); after 10,000 notes: "
              f"{s10k:.3f} ms (ping {p10k:.3f} ms); ratio 10,000/100 = {s10k / s100:.2f}x (target about 1x)")
        c.close()
        c = Conn(home)
        t1k = poll_after_every_note(app, c, 1000)
        t10k = poll_after_every_note(app, c, 10000)
        print(f"qa_note + qa_status after each: 1,000 pairs {t1k:.3f} s, 10,000 pairs {t10k:.3f} s; "
              f"ratio {t10k / t1k:.1f}x for 10x the notes (linear is 10x, quadratic 100x)")
        c.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
