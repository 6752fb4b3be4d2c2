"""bench-android-act.py: one tap + settle + observe through the real adb against the virtual device, against
a bare `adb shell true` in the same run.

Usage: /usr/bin/python3 bench/bench-android-act.py ANDROID_CLI [N]
(ANDROID_CLI is build/tests/integration/android-cli; VDEVICE_BIN or a build*/ tree must hold the vdevice.)
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
from vdevice_env import VDeviceEnv  # noqa: E402


def main():
    cli = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with VDeviceEnv(app="login") as env:
        # baseline: the cheapest adb round trip to the same device
        for _ in range(3):
            env.adb("shell", "true")
        t0 = time.monotonic()
        for _ in range(n):
            env.adb("shell", "true")
        bare = (time.monotonic() - t0) / n

        steps = [{"op": "open"}, {"op": "launch", "app": "com.example.login"}, {"op": "snapshot"}]
        steps += [{"op": "act", "args": {"action": "tap", "target": {"id": "remember"}}}] * n
        stamps = []
        with subprocess.Popen([cli, json.dumps(steps)], env=env.env, stdout=subprocess.PIPE, text=True) as p:
            for line in p.stdout:
                stamps.append((time.monotonic(), json.loads(line)))
        taps = stamps[3:]
        bad = [r for _, r in taps if not r["ok"] or not r["result"].get("changed")]
        if len(taps) != n or bad:
            print("bench-android-act: a tap failed or changed nothing: %r" % (bad[:1],))
            return 1
        per_tap = (taps[-1][0] - stamps[2][0]) / n
        print("one tap + settle + observe through the real adb, %d runs:" % n)
        print("  adb shell true (baseline)       %8.1f ms" % (bare * 1e3))
        print("  tap + settle + observe          %8.1f ms   (%.1fx the bare adb round trip)" % (
            per_tap * 1e3, per_tap / bare))
    return 0


if __name__ == "__main__":
    sys.exit(main())
