#!/usr/bin/env python3
"""bench-ios: the iOS paths against their bare baselines, in the same run, on the stand-ins (tests/ios).

1. qa_ios {action: "list"} through the server against one bare `xcrun simctl list devices -j` spawn of the
   same stand-in (target: at most 1.5x; the library spawns simctl once per list).
2. qa_snapshot through WebDriverAgent (the wda.py stand-in serving a source of NODES elements in all, a
   table of static texts under the login screen) against one bare GET /source of the same document over
   HTTP from this process (target: at most 2x at 50,000 elements). Both sides include the stand-in's own
   time to write the document (Python, ~100 ms for 11 MB), as a real WDA's would be included. Then the
   same with the JSON form (SWIPIUM_WDA_SOURCE_FORMAT=json, against a bare GET /source?format=json), one
   source one element over the node limit (WDA_HIERARCHY_TOO_LARGE, timed), and the server's peak RSS
   (VmHWM) against its RSS before the first snapshot and the source's size.
3. One qa_act tap (tap, settle by comparing dumps, observe) through WDA against one bare POST /wda/tap plus
   one GET /source round trip from this process, alternating Sign in (login to home) and Back (home to
   login) so that every tap changes the screen (target: at most 6x). It runs before the refusals of 2.,
   which spend the session's snapshot-failure budget.
4. initialize + tools/list with the stand-in xcrun on PATH against the same without it, in a fresh HOME:
   iOS detection is lazy, so both are the same (nothing is spawned at start-up).

Usage: bench-ios.py SWIPIUM_MCP [RUNS] [NODES]     (RUNS default 15, NODES default 50000)
Prints medians of interleaved runs and their ratios (and, for 2. and 3., the fastest run of each side and
their ratio, which moves less with the load of a shared machine). Everything talks to 127.0.0.1 only and stops by itself.
"""
import json
import os
import re
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

INFO_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>com.example.shop</string>
<key>CFBundleName</key><string>Shop</string><key>CFBundleExecutable</key><string>Shop</string>
<key>CFBundleSupportedPlatforms</key><array><string>iPhoneSimulator</string></array>
<key>DTPlatformName</key><string>iphonesimulator</string>
</dict></plist>
"""


def path_without_xcrun():
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not os.path.exists(os.path.join(d, "xcrun"))]
    return os.pathsep.join(dirs)


def kb_of(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def write_knobs(home, k):
    os.makedirs(os.path.join(home, ".fake-wda"), exist_ok=True)
    tmp = os.path.join(home, ".fake-wda", "knobs.json.tmp")
    with open(tmp, "w") as f:
        json.dump(k, f)
    os.replace(tmp, os.path.join(home, ".fake-wda", "knobs.json"))


def ms(v):
    return v * 1000


def log_shows(home):
    """How many `log show` the simctl stand-in has run (its state's logShows)."""
    try:
        with open(os.path.join(home, ".fake-simctl", "state.json")) as f:
            return json.load(f).get("logShows", 0)
    except (OSError, ValueError):
        return 0


class Bench:
    def __init__(self, mcp, runs, nodes):
        self.runs, self.nodes = runs, nodes
        mcpclient.SERVER = os.path.abspath(mcp)
        self.home = tempfile.mkdtemp(prefix="swipium-bench-ios-")
        self.app = os.path.join(self.home, "app")
        os.makedirs(os.path.join(self.app, "Shop.app"))
        with open(os.path.join(self.app, "package.json"), "w") as f:
            f.write("{}")
        with open(os.path.join(self.app, "Shop.app", "Info.plist"), "w") as f:
            f.write(INFO_PLIST)
        self.path = STANDINS + os.pathsep + path_without_xcrun()
        self.env = {"HOME": self.home, "PATH": self.path, "SWIPIUM_CONSENT_PREAPPROVE": "",
                    "SWIPIUM_IOS_BOOT_WAIT_MS": "8000"}
        self.wda = None
        self.url = None

    def start_wda(self):
        pf = os.path.join(self.home, "wda.port")
        write_knobs(self.home, {})
        self.wda = subprocess.Popen([sys.executable, os.path.join(STANDINS, "wda.py"), "--port", "0",
                                     "--port-file", pf], env=dict(os.environ, HOME=self.home),
                                    stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(pf):
                break
            time.sleep(0.05)
        self.url = "http://127.0.0.1:%s" % open(pf).read().strip()

    def server(self, extra=None):
        env = dict(self.env)
        env.update(extra or {})
        s = mcpclient.Server(env=env)
        s.initialize()
        # room for the act loop (the default budget is 20 actions)
        r = s.tool("qa_start_session", {"projectRoot": self.app, "budget": {"maxActions": 1000}})["result"]
        assert not r.get("isError"), json.dumps(r)[:400]
        return s, r["structuredContent"]["sessionId"]

    def attach(self, s, sid):
        s.tool("qa_ios", {"sessionId": sid, "action": "boot", "device": "iPhone 15 Pro"}, timeout=60)
        args = {"sessionId": sid, "action": "install", "app": "Shop.app"}
        r = s.tool("qa_ios", args, timeout=60)["result"]
        if r["structuredContent"].get("requiresConsent"):
            args.update(consentId=r["structuredContent"]["consentId"], approve=True)
            r = s.tool("qa_ios", args, timeout=60)["result"]
        assert not r.get("isError"), json.dumps(r)[:400]
        r = s.tool("qa_ios", {"sessionId": sid, "action": "launch", "bundleId": "com.example.shop"})["result"]
        assert not r.get("isError"), json.dumps(r)[:400]
        r = s.tool("qa_wda", {"sessionId": sid, "action": "attach", "webDriverAgentUrl": self.url})["result"]
        assert not r.get("isError"), json.dumps(r)[:400]
        write_knobs(self.home, {})
        r = s.tool("qa_snapshot", {"sessionId": sid})["result"]  # the WDA session's first request
        assert not r.get("isError"), json.dumps(r)[:400]

    def wda_sid(self):
        """The WDA session the server made (read from the stand-in's request log)."""
        sid = None
        with open(os.path.join(self.home, ".fake-wda", "requests.jsonl")) as f:
            for line in f:
                m = re.match(r"/session/([^/?]+)/", json.loads(line)["path"])
                if m:
                    sid = m.group(1)
        return sid

    def get(self, path):
        return urllib.request.urlopen(self.url + path, timeout=60).read()

    def post(self, path, body):
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        return urllib.request.urlopen(req, timeout=60).read()

    # ---- 1 ----
    def ios_list(self, s, sid):
        xcrun = os.path.join(STANDINS, "xcrun")
        bare, tool = [], []
        for _ in range(self.runs):
            t0 = time.perf_counter()
            subprocess.run([xcrun, "simctl", "list", "devices", "-j"], env=dict(os.environ, HOME=self.home),
                           stdout=subprocess.DEVNULL, check=True)
            bare.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = s.tool("qa_ios", {"sessionId": sid, "action": "list"})["result"]
            tool.append(time.perf_counter() - t0)
            assert not r.get("isError"), r
        b, t = statistics.median(bare), statistics.median(tool)
        print("ios list: bare simctl spawn %.1f ms, qa_ios list %.1f ms, ratio %.2fx (target <= 1.5x)"
              % (ms(b), ms(t), t / b))

    # ---- 2 ----
    def base_elements(self):
        write_knobs(self.home, {})
        xml = json.loads(self.get("/session/%s/source" % self.wda_sid()))["value"]
        return len(re.findall(r"<XCUIElementType\w+[ >/]", xml))

    def snapshot(self, s, sid, label, source_path, extra_rows):
        write_knobs(self.home, {"hugeNodes": extra_rows})
        wsid = self.wda_sid()
        size = len(self.get("/session/%s%s" % (wsid, source_path)))
        bare, tool = [], []
        for _ in range(self.runs):
            t0 = time.perf_counter()
            self.get("/session/%s%s" % (wsid, source_path))
            bare.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = s.tool("qa_snapshot", {"sessionId": sid})["result"]
            tool.append(time.perf_counter() - t0)
            assert not r.get("isError"), json.dumps(r)[:300]
            assert r["structuredContent"]["elementsOmitted"] > 0, json.dumps(r)[:300]
        b, t = statistics.median(bare), statistics.median(tool)
        print("wda snapshot, %s (%d elements, %.1f MB answer): bare GET %s %.1f ms, qa_snapshot %.1f ms, "
              "ratio %.2fx (target <= 2x); fastest runs %.1f ms and %.1f ms, ratio %.2fx"
              % (label, self.nodes, size / 1e6, source_path, ms(b), ms(t), t / b, ms(min(bare)), ms(min(tool)),
                 min(tool) / min(bare)))
        return size

    def over_limit(self, s, sid, extra_rows):
        write_knobs(self.home, {"hugeNodes": extra_rows + 1})
        times = []
        for _ in range(max(3, self.runs // 3)):
            t0 = time.perf_counter()
            r = s.tool("qa_snapshot", {"sessionId": sid})["result"]
            times.append(time.perf_counter() - t0)
            assert r.get("isError") and r["structuredContent"]["failureCode"] == "WDA_HIERARCHY_TOO_LARGE", \
                json.dumps(r)[:300]
        print("wda snapshot over the limit (%d elements): WDA_HIERARCHY_TOO_LARGE in %.1f ms (median)"
              % (self.nodes + 1, ms(statistics.median(times))))

    # ---- 3 ----
    def act(self, s, sid):
        write_knobs(self.home, {})
        wsid = self.wda_sid()
        s.tool("qa_snapshot", {"sessionId": sid})
        for key, text in (("email", "ann@example.com"), ("password", "hunter2")):
            r = s.tool("qa_act", {"sessionId": sid, "action": "type", "target": {"id": key}, "text": text})["result"]
            assert not r.get("isError"), json.dumps(r)[:400]
        # Sign in (login -> home) and Back (home -> login): every tap changes the screen
        steps = [("Sign in", (196, 335)), ("Back", (38, 69))]
        bare, tool = [], []
        shows = log_shows(self.home)
        for _ in range(self.runs):
            for _text, (x, y) in steps:
                t0 = time.perf_counter()
                self.post("/session/%s/wda/tap" % wsid, {"x": x, "y": y})
                self.get("/session/%s/source" % wsid)
                bare.append(time.perf_counter() - t0)
            for text, _xy in steps:
                t0 = time.perf_counter()
                r = s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"text": text}})["result"]
                tool.append(time.perf_counter() - t0)
                sc = r["structuredContent"]
                assert not r.get("isError") and not sc.get("stopped"), json.dumps(r)[:400]
                assert sc["settled"] and sc["changed"], json.dumps(r)[:400]
        b, t = statistics.median(bare), statistics.median(tool)
        print("wda act: bare POST /wda/tap + GET /source %.1f ms, qa_act tap (settled, observed) %.1f ms, "
              "ratio %.2fx (target <= 6x); fastest runs %.1f ms and %.1f ms, ratio %.2fx"
              % (ms(b), ms(t), t / b, ms(min(bare)), ms(min(tool)), min(tool) / min(bare)))
        print("wda act: %d qa_act, %d `simctl spawn log show` among them (the health check's log comes from the "
              "session's `log stream`)" % (len(tool), log_shows(self.home) - shows))

    # ---- 4 ----
    def startup(self):
        fresh = os.path.join(self.home, "fresh-home")  # no sessions, no managed processes
        os.makedirs(fresh, exist_ok=True)

        def once(path):
            t0 = time.perf_counter()
            s = mcpclient.Server(env={"HOME": fresh, "PATH": path})
            s.initialize()
            r = s.call("tools/list", {})
            dt = time.perf_counter() - t0
            assert r["result"]["tools"], r
            s.close()
            return dt
        with_x, without = [], []
        for _ in range(self.runs):
            with_x.append(once(self.path))
            without.append(once(path_without_xcrun()))
        a, b = statistics.median(with_x), statistics.median(without)
        print("startup: initialize + tools/list %.1f ms without xcrun on PATH, %.1f ms with the stand-in xcrun, "
              "ratio %.2fx (lazy detection: target about 1x)" % (ms(b), ms(a), a / b))

    def run(self):
        print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
        self.start_wda()
        s, sid = self.server()
        self.ios_list(s, sid)
        self.attach(s, sid)
        pid = s.proc.pid
        base = self.base_elements()
        extra = self.nodes - base - 1  # the rows' table is one more element
        rss0 = kb_of(pid, "VmRSS")
        size = self.snapshot(s, sid, "XML form", "/source", extra)
        hwm = kb_of(pid, "VmHWM")
        print("server memory: peak RSS %.1f MB after the XML runs (%.1f MB before the first snapshot; the "
              "answer is %.1f MB)" % (hwm / 1024, rss0 / 1024, size / 1e6))
        # the act loop before the refusals: three failed snapshots spend the session's snapshot-failure
        # budget (maxSnapshotFailures, 3), after which qa_act answers {stopped: true}
        self.act(s, sid)
        self.over_limit(s, sid, extra)
        s.close()
        # the JSON form, forced by the setting, in a server of its own
        s, sid = self.server({"SWIPIUM_WDA_SOURCE_FORMAT": "json"})
        self.attach(s, sid)
        pid = s.proc.pid
        rss0 = kb_of(pid, "VmRSS")
        size = self.snapshot(s, sid, "JSON form", "/source?format=json", extra)
        hwm = kb_of(pid, "VmHWM")
        print("server memory: peak RSS %.1f MB after the JSON runs (%.1f MB before the first snapshot; the "
              "answer is %.1f MB)" % (hwm / 1024, rss0 / 1024, size / 1e6))
        s.close()
        self.startup()
        print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())

    def cleanup(self):
        if self.wda:
            self.wda.kill()
            self.wda.wait()
        shutil.rmtree(self.home, ignore_errors=True)


def main():
    mcp = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    nodes = int(sys.argv[3]) if len(sys.argv) > 3 else 50000
    b = Bench(mcp, runs, nodes)
    try:
        b.run()
    finally:
        b.cleanup()


if __name__ == "__main__":
    main()
