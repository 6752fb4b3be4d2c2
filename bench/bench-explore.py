"""bench-explore.py: qa_explore's cost per action against the device round trips it issues, in one run.

Usage: /usr/bin/python3 bench/bench-explore.py SWIPIUM_MCP [RUNS]
(VDEVICE_BIN or a build*/ tree must hold the vdevice.)

The virtual device's autopilot app (tests/vdevice/apps/autopilot.yaml) with the latency profile off. Each
run: a crawl from home (maxActions 30, depth 3) through swipium-mcp, polled with qa_job_status. From the
vdevice's --stats log: adb invocations during the crawl, per action. From the clock: the crawl's wall time
(qa_explore call to the job's end) per action, against the price of its own round trips, each priced as a
bare `adb shell true` measured in the same run (median of 30).

Targets (issue 15): wall time per action <= 3x the summed price of its round trips; <= 10 device commands per
action. Exits 1 when a target is missed.
"""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration", "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
import apkgen  # noqa: E402

PKG = "com.example.autopilot"


def stats_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def one_run(mcp, tmp, i):
    from mcpclient import Server
    stats = os.path.join(tmp, "stats-%d.jsonl" % i)
    project = os.path.join(tmp, "app-%d" % i)
    os.makedirs(project)
    with open(os.path.join(project, "package.json"), "w") as f:
        f.write("{}")
    apk = os.path.join(tmp, "receipts.apk")
    apkgen.write_apk(apk, apkgen.manifest(PKG, [("versionCode", apkgen.T_INT_DEC, 31)]))
    with VDeviceEnv(app="autopilot", device_args=["--stats", stats]) as env:
        env.adb("install", apk)
        env.shell("am start -n %s/.HomeActivity" % PKG)
        for _ in range(3):
            env.adb("shell", "true")
        bare = []
        for _ in range(30):
            t0 = time.monotonic()
            env.adb("shell", "true")
            bare.append(time.monotonic() - t0)
        e = dict(env.env)
        e["HOME"] = env.server.home
        s = Server(env=e)
        s.initialize()
        r = s.tool("qa_start_session", {"projectRoot": project,
                                        "budget": {"maxActions": 100000, "maxNoChangeActions": 100000}})
        sid = r["result"]["structuredContent"]["sessionId"]
        r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": PKG})
        before = len(stats_lines(stats))
        t0 = time.monotonic()
        r = s.tool("qa_explore", {"sessionId": sid, "maxActions": 30, "depth": 3, "maxScreens": 20})
        job = r["result"]["structuredContent"]["jobId"]
        while True:
            st = s.tool("qa_job_status", {"sessionId": sid, "jobId": job, "waitMs": 20000},
                        timeout=40)["result"]["structuredContent"]
            if st["status"] != "running":
                break
        wall = time.monotonic() - t0
        # the crawl's own invocations: those after the explore call, minus the status polls' (none: qa_job_status
        # never reaches the device)
        inv = stats_lines(stats)[before:]
        s.close()
    res = st.get("result") or {}
    actions = max(1, res.get("actions", 0))
    return {"actions": res.get("actions", 0), "screens": res.get("screens"), "findings": len(res.get("findings", [])),
            "invocations": len(inv), "wallS": wall, "bareS": statistics.median(bare),
            "byCommand": {c: sum(1 for l in inv if l["cmd"].split(" ")[0] == c)
                          for c in sorted({l["cmd"].split(" ")[0] for l in inv})},
            "perAction": {"invocations": len(inv) / actions, "wallMs": wall * 1000 / actions}}


def main():
    mcp = sys.argv[1] if len(sys.argv) > 1 else "swipium-mcp"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    os.environ["SWIPIUM_MCP"] = mcp
    tmp = tempfile.mkdtemp(prefix="sw-bench-explore-")
    try:
        rows = [one_run(mcp, tmp, i) for i in range(runs)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ratios = []
    for r in rows:
        priced = r["invocations"] * r["bareS"]
        ratios.append(r["wallS"] / priced if priced else float("inf"))
        print("run: %d actions, %d screens, %d findings; %d adb invocations (%.1f per action) %s; wall %.0f ms "
              "(%.1f ms per action); adb shell true %.2f ms; wall / (invocations x shell true) = %.2f"
              % (r["actions"], r["screens"], r["findings"], r["invocations"], r["perAction"]["invocations"],
                 json.dumps(r["byCommand"]), r["wallS"] * 1000, r["perAction"]["wallMs"], r["bareS"] * 1000,
                 ratios[-1]))
    per_action = statistics.median(r["perAction"]["invocations"] for r in rows)
    ratio = statistics.median(ratios)
    print("median: %.1f device commands per action (target <= 10); wall per action / its round trips priced as "
          "`adb shell true` = %.2fx (target <= 3x)" % (per_action, ratio))
    ok = per_action <= 10 and ratio <= 3
    print("bench-explore: %s" % ("PASS" if ok else "MISS"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
