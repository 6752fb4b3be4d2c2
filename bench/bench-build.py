"""bench-build.py: build-job overhead. A Gradle project whose wrapper is one step that ends at once (it writes
the APK path and exits); from the qa_build run call (pre-approved, so approval is immediate) to qa_job_status
answering `done`, against spawning the same step directly, interleaved in the same run. Prints medians and
the ratio. Usage: python3 bench/bench-build.py build/swipium-mcp/swipium-mcp [RUNS]"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration", "mcp"))
os.environ["SWIPIUM_MCP"] = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SWIPIUM_MCP", "swipium-mcp")
import mcpclient  # noqa: E402

mcpclient.SERVER = os.environ["SWIPIUM_MCP"]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 20

STEP = "#!/bin/sh\nmkdir -p app/build/outputs/apk/debug && : > app/build/outputs/apk/debug/app-debug.apk\n"


def main():
    home = tempfile.mkdtemp(prefix="swipium-bench-build-")
    try:
        app = os.path.join(home, "app")
        os.makedirs(app)
        with open(os.path.join(app, "settings.gradle"), "w") as f:
            f.write("include ':app'\n")
        wrapper = os.path.join(app, "gradlew")
        with open(wrapper, "w") as f:
            f.write(STEP)
        os.chmod(wrapper, 0o755)
        s = mcpclient.Server(env={"HOME": home, "SWIPIUM_CONSENT_PREAPPROVE": "build_from_source",
                                  "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE": "1", "SWIPIUM_PROJECT_ROOT": ""})
        s.initialize()
        sid = s.tool("qa_start_session", {"projectRoot": app})["result"]["structuredContent"]["sessionId"]
        job_ms, direct_ms = [], []
        for i in range(RUNS + 2):
            t0 = time.perf_counter()
            r = s.tool("qa_build", {"sessionId": sid, "mode": "run", "platform": "android"})
            job = r["result"]["structuredContent"]
            st = s.tool("qa_job_status", {"sessionId": sid, "jobId": job["jobId"], "waitMs": 45000})
            t1 = time.perf_counter()
            status = st["result"]["structuredContent"]["status"]
            if status != "done":
                raise SystemExit("the build job ended %s: %s" % (status, json.dumps(st)[:2000]))
            t2 = time.perf_counter()
            subprocess.run(["./gradlew", "assembleDebug"], cwd=app, check=True)
            t3 = time.perf_counter()
            if i >= 2:  # two warm-up rounds
                job_ms.append((t1 - t0) * 1000)
                direct_ms.append((t3 - t2) * 1000)
        s.close()
        jm, dm = statistics.median(job_ms), statistics.median(direct_ms)
        print("swipium bench-build: %d runs (median), one step that exits at once" % RUNS)
        print("spawning the step directly (baseline)  %8.2f ms" % dm)
        print("qa_build run -> qa_job_status done    %8.2f ms  (%.1fx the baseline, %.2f ms overhead)"
              % (jm, jm / dm, jm - dm))
        print("job min/max %.2f/%.2f ms; direct min/max %.2f/%.2f ms"
              % (min(job_ms), max(job_ms), min(direct_ms), max(direct_ms)))
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
