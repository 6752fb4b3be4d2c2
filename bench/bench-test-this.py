#!/usr/bin/env python3
"""bench-test-this.py: what qa_test_this's plan costs against qa_resolve_artifact alone, and what qa_status and
qa_job_status cost while a qa_test_this job runs.

Usage: bench-test-this.py <path to swipium-mcp> [runs]   (VDEVICE_BIN and SWIPIUM_SOURCE_ROOT as for the tests)
Prints, in one run against the same server and the same virtual device:
- on a project of 20,000 files (an APK among them): the median round trip of qa_resolve_artifact {projectRoot}
  (the baseline) and of qa_test_this {projectRoot} (plan); the target is a ratio under 2;
- while a qa_test_this job runs (the vdevice's emulator latency profile keeps it busy): the median and the
  worst round trip of qa_status {sessionId} and of qa_job_status {sessionId, jobId} (no wait), against a ping;
  the target is under 5 ms each, and the job must still be running after the last call (nothing waited on it).
"""
import os
import shutil
import statistics
import sys
import tempfile
import time

SERVER = sys.argv[1] if len(sys.argv) > 1 else "swipium-mcp"
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 15
SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "integration", "mcp"))
os.environ["SWIPIUM_MCP"] = os.path.abspath(SERVER)
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402
import apkgen as g  # noqa: E402


def big_project(root, files=20000):
    os.makedirs(root)
    with open(os.path.join(root, "package.json"), "w") as f:
        f.write('{"name": "big"}')
    per_dir = 200
    for d in range(files // per_dir):
        sub = os.path.join(root, "src", "m%03d" % (d // 10), "d%03d" % d)
        os.makedirs(sub)
        for i in range(per_dir):
            with open(os.path.join(sub, "f%03d.ts" % i), "w") as f:
                f.write("export const x = %d;\n" % i)
    apk = os.path.join(root, "android/app/build/outputs/apk/debug/app-debug.apk")
    os.makedirs(os.path.dirname(apk))
    g.write_apk(apk, g.manifest("com.example.login", [("versionCode", g.T_INT_DEC, 1)]))


def timed(s, name, args):
    t0 = time.perf_counter()
    r = s.tool(name, args, timeout=120)
    dt = (time.perf_counter() - t0) * 1000
    if r["result"].get("isError"):
        raise SystemExit("%s failed: %s" % (name, r["result"]["structuredContent"]))
    return dt, r["result"]["structuredContent"]


def main():
    tmp = tempfile.mkdtemp(prefix="sw-bench-tt-")
    try:
        root = os.path.join(tmp, "big")
        big_project(root)
        with VDeviceEnv(app="login", device_args=["--latency", "emulator:10"]) as env:
            e = dict(env.env, HOME=env.server.home, SWIPIUM_LOG_LEVEL="error")
            s = Server(env=e)
            s.initialize()
            timed(s, "qa_resolve_artifact", {"projectRoot": root})  # warm the page cache for both
            timed(s, "qa_test_this", {"projectRoot": root})
            base, plan = [], []
            for _ in range(RUNS):
                base.append(timed(s, "qa_resolve_artifact", {"projectRoot": root})[0])
                plan.append(timed(s, "qa_test_this", {"projectRoot": root})[0])
            b, p = statistics.median(base), statistics.median(plan)
            print("20,000-file project: qa_resolve_artifact median %.1f ms, qa_test_this plan median %.1f ms, "
                  "ratio %.2f (target < 2)" % (b, p, p / b))

            # a running job: qa_status / qa_job_status never wait on it
            _, env1 = timed(s, "qa_test_this", {"projectRoot": root, "mode": "execute"})
            _, res = timed(s, "qa_test_this", {"projectRoot": root, "mode": "execute",
                                               "consentId": env1["consentId"], "approve": True})
            sid, job = res["sessionId"], res["jobId"]
            ping, status, jstat = [], [], []
            for _ in range(RUNS * 4):
                t0 = time.perf_counter()
                s.call("ping")
                ping.append((time.perf_counter() - t0) * 1000)
                status.append(timed(s, "qa_status", {"sessionId": sid})[0])
                dt, st = timed(s, "qa_job_status", {"sessionId": sid, "jobId": job})
                jstat.append(dt)
            still = st["status"]
            print("while the job runs (%d calls each): ping median %.2f ms; qa_status median %.2f ms, max %.2f ms; "
                  "qa_job_status median %.2f ms, max %.2f ms (target < 5 ms); job after the last call: %s"
                  % (len(status), statistics.median(ping), statistics.median(status), max(status),
                     statistics.median(jstat), max(jstat), still))
            s.tool("qa_job_cancel", {"sessionId": sid, "jobId": job})
            s.close()
            ok = p / b < 2 and statistics.median(status) < 5 and statistics.median(jstat) < 5 and still == "running"
            print("RESULT: %s" % ("PASS" if ok else "MISS"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
