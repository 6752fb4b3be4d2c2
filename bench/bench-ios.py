#!/usr/bin/env python3
"""bench-ios: the iOS paths against their bare baselines, in the same run, on the stand-ins (tests/ios).

1. qa_ios {action: "list"} through the server against one bare `xcrun simctl list devices -j` spawn of the
   same stand-in (target: at most 1.5x; the library spawns simctl once per list).
2. qa_snapshot through WebDriverAgent (the wda.py stand-in serving a source of N static texts) against one
   bare GET /source of the same document over HTTP from this process (target: at most 2x).

Usage: bench-ios.py SWIPIUM_MCP [RUNS] [NODES]     (RUNS default 15, NODES default 20000)
Prints medians of interleaved runs and the ratios. Everything talks to 127.0.0.1 only and stops by itself.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
STANDINS = os.path.join(os.path.dirname(HERE), "tests", "ios")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "integration", "mcp"))
import mcpclient  # noqa: E402


def main():
    mcp = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    nodes = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    mcpclient.SERVER = os.path.abspath(mcp)
    home = tempfile.mkdtemp(prefix="swipium-bench-ios-")
    app = os.path.join(home, "app")
    os.makedirs(app)
    with open(os.path.join(app, "package.json"), "w") as f:
        f.write("{}")
    path = STANDINS + os.pathsep + os.environ.get("PATH", "")
    env = {"HOME": home, "PATH": path, "SWIPIUM_CONSENT_PREAPPROVE": "", "SWIPIUM_IOS_BOOT_WAIT_MS": "8000"}
    wda = None
    try:
        s = mcpclient.Server(env=env)
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": app})["result"]["structuredContent"]["sessionId"]
        xcrun = os.path.join(STANDINS, "xcrun")
        bare, tool = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([xcrun, "simctl", "list", "devices", "-j"], env=dict(os.environ, HOME=home),
                           stdout=subprocess.DEVNULL, check=True)
            bare.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = s.tool("qa_ios", {"sessionId": sid, "action": "list"})["result"]
            tool.append(time.perf_counter() - t0)
            assert not r.get("isError"), r
        b, t = statistics.median(bare), statistics.median(tool)
        print("ios list: bare simctl spawn %.1f ms, qa_ios list %.1f ms, ratio %.2fx (target <= 1.5x)"
              % (b * 1000, t * 1000, t / b))

        # a booted simulator, the app's session, WDA attached
        s.tool("qa_ios", {"sessionId": sid, "action": "boot", "device": "iPhone 15 Pro"}, timeout=60)
        pf = os.path.join(home, "wda.port")
        os.makedirs(os.path.join(home, ".fake-wda"), exist_ok=True)
        with open(os.path.join(home, ".fake-wda", "knobs.json"), "w") as f:
            json.dump({"hugeNodes": nodes}, f)
        wda = subprocess.Popen([sys.executable, os.path.join(STANDINS, "wda.py"), "--port", "0", "--port-file", pf],
                               env=dict(os.environ, HOME=home), stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(pf):
                break
            time.sleep(0.05)
        url = "http://127.0.0.1:%s" % open(pf).read().strip()
        r = s.tool("qa_wda", {"sessionId": sid, "action": "attach", "webDriverAgentUrl": url})["result"]
        assert not r.get("isError"), r
        size = len(urllib.request.urlopen(url + "/source", timeout=30).read())
        bare, tool = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            urllib.request.urlopen(url + "/source", timeout=30).read()
            bare.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = s.tool("qa_snapshot", {"sessionId": sid})["result"]
            tool.append(time.perf_counter() - t0)
            assert not r.get("isError"), json.dumps(r)[:300]
        b, t = statistics.median(bare), statistics.median(tool)
        print("wda snapshot (%d nodes, %.1f MB source): bare GET /source %.1f ms, qa_snapshot %.1f ms, ratio %.2fx "
              "(target <= 2x)" % (nodes, size / 1e6, b * 1000, t * 1000, t / b))
        s.close()
    finally:
        if wda:
            wda.kill()
            wda.wait()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
