"""bench-android-act.py: the act loop against the virtual device with the emulator latency profile, in one run.

Usage: /usr/bin/python3 bench/bench-android-act.py SWIPIUM_MCP SWIPIUM_CLI [RUNS] [SCALE]
(VDEVICE_BIN or a build*/ tree must hold the vdevice; SCALE defaults to 0.02.)

1. With the profile on (`--latency emulator:SCALE`): adb invocations, bytes read and modelled milliseconds
   (milliseconds of a real x86_64 emulator, from the vdevice's --stats log) per qa_act tap, type, swipe and
   qa_snapshot through swipium-mcp, and tap+observe against the stock-tools minimum measured in the same run
   (one `adb shell input tap` + one `adb exec-out uiautomator dump /dev/tty`). Target: at most 1.2x.
2. With the profile off: wall time per qa_act tap against a bare `adb shell true` in the same run. Target: at
   most 3x.
3. A flow of ten tap steps through `swipium run` and through qa_flow_run: the same figures per step.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration", "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402

LOGIN = "com.example.login"
FLOW0 = "name: bench zero\nappId: %s\nsteps:\n  - prepareTarget\n" % LOGIN
FLOW = FLOW0.replace("bench zero", "bench ten") + '  - tap: "Remember me"\n' * 10


class Stats:
    """The vdevice's per-invocation log: one JSON line per adb invocation."""

    def __init__(self, path):
        self.path = path
        self.pos = 0

    def lines(self):
        if not os.path.exists(self.path):
            return []
        with open(self.path) as f:
            return [json.loads(l) for l in f if l.strip()]

    def mark(self):
        self.pos = len(self.lines())

    def since(self):
        got = self.lines()[self.pos:]
        self.mark()
        return got


def summary(invocations):
    return {"invocations": len(invocations), "bytes": sum(l["bytes"] for l in invocations),
            "modelMs": sum(l["modelMs"] for l in invocations)}


def server(env, project):
    from mcpclient import Server
    e = dict(env.env)
    e["HOME"] = env.server.home
    s = Server(env=e)
    s.initialize()
    # a budget the bench cannot spend (the default stops a session after 20 actions)
    r = s.tool("qa_start_session", {"projectRoot": project,
                                    "budget": {"maxActions": 100000, "maxNoChangeActions": 100000}})
    sid = r["result"]["structuredContent"]["sessionId"]
    return s, sid


def ok(r, what):
    if r.get("result", {}).get("isError") or "error" in r or r["result"]["structuredContent"].get("stopped"):
        raise SystemExit("bench-android-act: %s failed: %s" % (what, json.dumps(r)[:2000]))
    return r["result"]["structuredContent"]


def find_ref(snap, label):
    needle = label if label.startswith("#") else '"%s"' % label
    for line in snap["elements"]:
        if needle in line:
            return line.split()[0]
    raise SystemExit("bench-android-act: no %r on screen: %r" % (label, snap["elements"]))


def median_of(rows):
    keys = rows[0].keys()
    return {k: statistics.median(r[k] for r in rows) for k in keys}


def fmt(name, m, base=None):
    ratio = "   %5.2fx" % (m["modelMs"] / base) if base else ""
    return "  %-28s %5.1f %9.0f %10.0f%s" % (name, m["invocations"], m["bytes"], m["modelMs"], ratio)


def profile_on(mcp, runs, scale, project, tmp):
    stats = Stats(os.path.join(tmp, "stats-on.jsonl"))
    with VDeviceEnv(app="login", device_args=["--latency", "emulator:%g" % scale, "--stats", stats.path]) as env:
        env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % LOGIN)
        # the stock-tools minimum: one input, one streamed dump
        stock = []
        for _ in range(runs):
            stats.mark()
            env.adb("shell", "input", "tap", "540", "930")
            env.adb("exec-out", "uiautomator dump /dev/tty")
            stock.append(summary(stats.since()))
        stock = median_of(stock)
        s, sid = server(env, project)
        stats.mark()
        snap = ok(s.tool("qa_snapshot", {"sessionId": sid}), "qa_snapshot")
        first = summary(stats.since())
        rows = {"qa_snapshot": [], "qa_act tap": [], "qa_act type": [], "qa_act swipe": []}
        for _ in range(runs):
            stats.mark()
            snap = ok(s.tool("qa_snapshot", {"sessionId": sid}), "qa_snapshot")
            rows["qa_snapshot"].append(summary(stats.since()))
            ref = find_ref(snap, "Remember me")
            r = ok(s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"ref": ref}}), "tap")
            rows["qa_act tap"].append(summary(stats.since()))
            if not r.get("changed") or not r.get("settled") or "health" not in r:
                raise SystemExit("bench-android-act: the tap did not change, settle and check health: %r" % r)
        for i in range(runs):
            snap = ok(s.tool("qa_snapshot", {"sessionId": sid}), "qa_snapshot")
            ref = find_ref(snap, "#email")
            stats.mark()
            ok(s.tool("qa_act", {"sessionId": sid, "action": "type", "target": {"ref": ref},
                                 "text": "ann%d@example.com" % i}), "type")
            rows["qa_act type"].append(summary(stats.since()))
            env.shell("input keyevent 111")  # hide the keyboard again for the next round
        for _ in range(runs):
            stats.mark()
            ok(s.tool("qa_act", {"sessionId": sid, "action": "swipe", "direction": "up"}), "swipe")
            rows["qa_act swipe"].append(summary(stats.since()))
        s.close()
    return stock, first, {k: median_of(v) for k, v in rows.items()}


def profile_off(mcp, runs, project, tmp):
    with VDeviceEnv(app="login") as env:
        env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % LOGIN)
        for _ in range(3):
            env.adb("shell", "true")
        s, sid = server(env, project)
        snap = ok(s.tool("qa_snapshot", {"sessionId": sid}), "qa_snapshot")
        # interleaved, one bare `adb shell true` before each tap: both see the same load on a shared machine
        bare, taps = [], []
        for _ in range(runs):
            t0 = time.monotonic()
            env.adb("shell", "true")
            bare.append(time.monotonic() - t0)
            ref = find_ref(snap, "Remember me")
            t0 = time.monotonic()
            r = ok(s.tool("qa_act", {"sessionId": sid, "action": "tap", "target": {"ref": ref},
                                     "observe": "full"}), "tap")
            taps.append(time.monotonic() - t0)
            snap = {"elements": r["elements"]}
        s.close()
    return statistics.median(bare), statistics.median(taps)


def flows_wall(mcp, cli, runs, project):
    """Profile off: wall ms per flow step (ten taps minus prepareTarget alone), against `adb shell true`."""
    out = {}
    with VDeviceEnv(app="login") as env:
        e = dict(env.env)
        e["HOME"] = env.server.home
        bare = []
        for _ in range(runs):
            t0 = time.monotonic()
            env.adb("shell", "true")
            bare.append(time.monotonic() - t0)
        s, sid = server(env, project)

        def cli_run(name):
            t0 = time.monotonic()
            p = subprocess.run([cli, "run", name, "--root", project], env=e, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                raise SystemExit("bench-android-act: swipium run %s failed: %s %s" % (name, p.stdout, p.stderr))
            return time.monotonic() - t0

        def mcp_run(name):
            t0 = time.monotonic()
            ok(s.tool("qa_flow_run", {"sessionId": sid, "flow": name}, timeout=600), "qa_flow_run")
            return time.monotonic() - t0

        for label, fn in (("swipium run", cli_run), ("qa_flow_run", mcp_run)):
            per = []
            for _ in range(max(3, runs // 3)):
                per.append((fn("bench-ten") - fn("bench-zero")) / 10.0)
            out[label] = statistics.median(per)
        s.close()
    return statistics.median(bare), out


def flows(mcp, cli, scale, project, tmp):
    stats = Stats(os.path.join(tmp, "stats-flow.jsonl"))
    out = {}
    with VDeviceEnv(app="login", device_args=["--latency", "emulator:%g" % scale, "--stats", stats.path]) as env:
        e = dict(env.env)
        e["HOME"] = env.server.home
        stats.mark()
        p = subprocess.run([cli, "run", "bench-ten", "--root", project], env=e, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise SystemExit("bench-android-act: swipium run failed (%d): %s %s" % (p.returncode, p.stdout, p.stderr))
        out["swipium run"] = stats.since()
        s, sid = server(env, project)
        stats.mark()
        r = ok(s.tool("qa_flow_run", {"sessionId": sid, "flow": "bench-ten"}, timeout=600), "qa_flow_run")
        if not r.get("passed"):
            raise SystemExit("bench-android-act: qa_flow_run did not pass: %r" % r)
        out["qa_flow_run"] = stats.since()
        s.close()
    res = {}
    for name, lines in out.items():
        # the ten steps: from the first input on (prepareTarget's launch and first look come before)
        first_input = next(i for i, l in enumerate(lines) if l["cmd"].startswith("input "))
        res[name] = (summary(lines), summary(lines[first_input:]))
    return res


def main():
    mcp, cli = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    scale = float(sys.argv[4]) if len(sys.argv) > 4 else 0.02
    os.environ["SWIPIUM_MCP"] = mcp
    tmp = tempfile.mkdtemp(prefix="bench-act-")
    try:
        project = os.path.join(tmp, "app")
        os.makedirs(os.path.join(project, ".swipium", "flows"))
        with open(os.path.join(project, "package.json"), "w") as f:
            f.write("{}")
        with open(os.path.join(project, ".swipium", "flows", "bench-ten.yaml"), "w") as f:
            f.write(FLOW)
        with open(os.path.join(project, ".swipium", "flows", "bench-zero.yaml"), "w") as f:
            f.write(FLOW0)
        stock, first, rows = profile_on(mcp, runs, scale, project, tmp)
        bare, tap_wall = profile_off(mcp, runs, project, tmp)
        fl = flows(mcp, cli, scale, project, tmp)
        fbare, fwall = flows_wall(mcp, cli, runs, project)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    base = stock["modelMs"]
    print("bench-android-act: vdevice with --latency emulator:%g, medians of %d runs; modelled ms are milliseconds"
          " of a real x86_64 emulator (bench/README.md)" % (scale, runs))
    print("  %-28s %5s %9s %10s %8s" % ("call", "adb", "bytes", "model ms", "vs stock"))
    print(fmt("stock: input + dump", stock, base))
    print(fmt("qa_snapshot (binds device)", first))
    for k, m in rows.items():
        print(fmt(k, m, base if k == "qa_act tap" else None))
    tap_ratio = rows["qa_act tap"]["modelMs"] / base
    print("  tap+observe vs stock minimum: %.2fx (target <= 1.2x on a screen that settles at once)" % tap_ratio)
    print("profile off: adb shell true %.1f ms, qa_act tap %.1f ms: %.2fx (target <= 3x)" % (
        bare * 1e3, tap_wall * 1e3, tap_wall / bare))
    print("flow of ten taps (prepareTarget, then 10 x tap \"Remember me\"), profile on:")
    print("  %-28s %5s %9s %10s %8s" % ("run (whole / per step)", "adb", "bytes", "model ms", "vs stock"))
    for name, (whole, steps) in fl.items():
        per = {k: v / 10.0 for k, v in steps.items()}
        print(fmt(name + " whole flow", whole))
        print(fmt(name + " per step", per, base))
    for name, per in fwall.items():
        print("profile off: %s, one flow step %.1f ms vs adb shell true %.1f ms: %.2fx (target <= 3x)" % (
            name, per * 1e3, fbare * 1e3, per / fbare))
    return 0


if __name__ == "__main__":
    sys.exit(main())
