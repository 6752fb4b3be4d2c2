#!/usr/bin/env python3
"""bench-mcp.py: swipium-mcp start-up, tools/list, memory and report cost, each against an in-run baseline.

Usage: bench-mcp.py <path to swipium-mcp> [runs]
Prints one line per measurement. Targets (issue 4): initialize reply < 10 ms from process start, RSS after
initialize < 8 MB, tools/list (55 tools) < 45 KB, qa_report after 10,000 notes < 0.3 s.
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
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 50
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "1"}}}).encode() + b"\n"


def env(home):
    return dict(os.environ, HOME=home, SWIPIUM_LOG_LEVEL="error")


def read_line(proc):
    return proc.stdout.readline()


def start_to_initialize(home):
    t0 = time.perf_counter()
    p = subprocess.Popen([SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env(home))
    p.stdin.write(INIT)
    p.stdin.flush()
    line = read_line(p)
    t1 = time.perf_counter()
    assert b'"protocolVersion"' in line
    p.stdin.close()
    p.wait()
    return t1 - t0


def bare_true():
    t0 = time.perf_counter()
    subprocess.run(["true"])
    return time.perf_counter() - t0


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


class Conn:
    def __init__(self, home):
        self.p = subprocess.Popen([SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env(home))
        self.id = 1
        self.call_raw(INIT)

    def call_raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()
        return read_line(self.p)

    def call(self, method, params=None):
        self.id += 1
        msg = {"jsonrpc": "2.0", "id": self.id, "method": method}
        if params is not None:
            msg["params"] = params
        return self.call_raw(json.dumps(msg).encode() + b"\n")

    def pipeline(self, msgs):
        """Sends every message, then reads every reply (one write, bounded by the pipe buffers on both sides)."""
        for i in range(0, len(msgs), 200):
            chunk = msgs[i:i + 200]
            self.p.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in chunk))
            self.p.stdin.flush()
            for _ in chunk:
                read_line(self.p)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    home = tempfile.mkdtemp(prefix="bench-mcp-")
    app = os.path.join(home, "app")
    os.makedirs(app)
    open(os.path.join(app, "package.json"), "w").close()
    try:
        inits = [start_to_initialize(home) for _ in range(RUNS)]
        trues = [bare_true() for _ in range(RUNS)]
        mi, mt = statistics.median(inits), statistics.median(trues)
        print(f"initialize: process start -> initialize reply median {mi * 1000:.2f} ms over {RUNS} runs; "
              f"bare `true` process start {mt * 1000:.2f} ms; ratio {mi / mt:.2f}x (target < 10 ms)")

        c = Conn(home)
        print(f"rss: VmRSS after initialize {rss_kb(c.p.pid)} kB (target < 8192 kB)")
        sizes, times = [], []
        for _ in range(RUNS * 4):
            t0 = time.perf_counter()
            line = c.call("tools/list")
            times.append(time.perf_counter() - t0)
            sizes.append(len(line))
        tools = json.loads(line)["result"]["tools"]
        result_bytes = len(json.dumps(json.loads(line)["result"], separators=(",", ":")).encode())
        t0 = time.perf_counter()
        pings = 0
        for _ in range(RUNS * 4):
            c.call("ping")
            pings += 1
        ping = (time.perf_counter() - t0) / pings
        print(f"tools/list: {len(tools)} tools, {result_bytes} bytes ({result_bytes / 1024:.1f} KB; 55-tool target "
              f"< 45 KB, {result_bytes / len(tools):.0f} B/tool), median round trip "
              f"{statistics.median(times) * 1e6:.0f} us vs ping {ping * 1e6:.0f} us")

        names = [t["name"] for t in tools]
        sid = json.loads(c.call("tools/call", {"name": "qa_start_session",
                                               "arguments": {"projectRoot": app}}))["result"]["structuredContent"][
            "sessionId"]
        notes = [{"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                  "params": {"name": "qa_note", "arguments": {
                      "sessionId": sid, "workflow": f"workflow {i % 500}",
                      "outcome": ("pass", "fail", "blocked", "skipped")[i % 4],
                      "reason": f"observation number {i}"}}} for i in range(10000)]
        t0 = time.perf_counter()
        c.pipeline(notes)
        tn = time.perf_counter() - t0
        print(f"qa_note: 10,000 outcomes in {tn:.3f} s ({tn / 10000 * 1e6:.0f} us each)")
        if "qa_report" in names:
            t0 = time.perf_counter()
            line = c.call("tools/call", {"name": "qa_report", "arguments": {"sessionId": sid, "format": "json"}})
            tr = time.perf_counter() - t0
            ok = not json.loads(line)["result"].get("isError")
            print(f"qa_report: after 10,000 notes {tr:.3f} s ({'ok' if ok else 'ERROR'}); "
                  f"{tr / tn:.2f}x the cost of the 10,000 notes (target < 0.3 s)")
        else:
            print("qa_report: not listed by this build (report assembly missing); not measured")
        c.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
