#!/usr/bin/env python3
"""ios_demo.py: the iOS loop on Linux, against the stand-ins in tests/ios (a fake `xcrun simctl` and a
loopback WebDriverAgent), driven through swipium-mcp over stdio as an agent's MCP client would: list and
boot a simulator, install and launch an app, look at it visual-only (screenshot), attach WebDriverAgent,
read the screen as @eN element lines, log in, record the outcome and write the report. On a Mac with Xcode
the same server drives the real simulators; only PATH differs.

Usage: ios_demo.py --build BUILD_DIR
Exit status: 0 when every step behaved as expected, 1 otherwise.
"""
import argparse
import json
import os
import plistlib
import shutil
import subprocess
import sys
import tempfile
import time

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDINS = os.path.join(SOURCE_ROOT, "tests", "ios")
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "integration", "mcp"))
import mcpclient  # noqa: E402

STEP = [0]


class DemoFailed(Exception):
    pass


def step(title):
    STEP[0] += 1
    print(f"\n[{STEP[0]}] {title}", flush=True)


def call(server, name, args, expect_ok=True):
    r = server.tool(name, args, timeout=90)["result"]
    sc = r.get("structuredContent", {})
    if sc.get("requiresConsent"):
        print(f"    consent asked: {sc.get('action', sc.get('consentAction', ''))} — approving", flush=True)
        r = server.tool(name, dict(args, consentId=sc["consentId"], approve=True), timeout=90)["result"]
        sc = r.get("structuredContent", {})
    if expect_ok and r.get("isError"):
        raise DemoFailed(f"{name} failed: {json.dumps(sc)[:400]}")
    print("    " + r["content"][0]["text"].splitlines()[0], flush=True)
    return sc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    args = ap.parse_args()
    mcpclient.SERVER = os.path.abspath(os.path.join(args.build, "swipium-mcp", "swipium-mcp"))
    home = tempfile.mkdtemp(prefix="swipium-ios-demo-")
    wda = None
    try:
        app = os.path.join(home, "Shop")
        os.makedirs(os.path.join(app, "build", "Shop.app"))
        with open(os.path.join(app, "package.json"), "w") as f:
            f.write("{}")
        with open(os.path.join(app, "build", "Shop.app", "Info.plist"), "wb") as f:
            plistlib.dump({"CFBundleIdentifier": "com.example.shop", "CFBundleName": "Shop",
                           "CFBundleSupportedPlatforms": ["iPhoneSimulator"], "DTPlatformName": "iphonesimulator"},
                          f, fmt=plistlib.FMT_BINARY)
        env = {"HOME": home, "PATH": STANDINS + os.pathsep + os.environ.get("PATH", ""),
               "SWIPIUM_CONSENT_PREAPPROVE": "", "SWIPIUM_IOS_BOOT_WAIT_MS": "10000",
               "SWIPIUM_DEMO_PASSWORD": "correct horse"}
        pf = os.path.join(home, "wda.port")
        wda = subprocess.Popen([sys.executable, os.path.join(STANDINS, "wda.py"), "--port", "0", "--port-file", pf],
                               env=dict(os.environ, HOME=home), stderr=subprocess.DEVNULL)
        s = mcpclient.Server(env=env)
        s.initialize()
        step("qa_start_session")
        sid = call(s, "qa_start_session", {"projectRoot": app})["sessionId"]
        step("qa_ios list: the simulators simctl knows")
        call(s, "qa_ios", {"sessionId": sid, "action": "list"})
        step("qa_ios boot: binds the simulator to the session")
        call(s, "qa_ios", {"sessionId": sid, "action": "boot", "device": "iPhone 15 Pro"})
        step("qa_ios install (consent install_app) and launch")
        call(s, "qa_ios", {"sessionId": sid, "action": "install", "app": "build/Shop.app"})
        call(s, "qa_ios", {"sessionId": sid, "action": "launch", "bundleId": "com.example.shop"})
        step("visual-only: qa_status and qa_screenshot through simctl io screenshot")
        st = call(s, "qa_status", {"sessionId": sid})
        print(f"    mode: {st['mode']}")
        call(s, "qa_screenshot", {"sessionId": sid, "reason": "launch screen"})
        step("qa_wda attach: WebDriverAgent on the loopback")
        for _ in range(200):
            if os.path.exists(pf):
                break
            time.sleep(0.05)
        url = "http://127.0.0.1:%s" % open(pf).read().strip()
        call(s, "qa_wda", {"sessionId": sid, "action": "attach", "webDriverAgentUrl": url})
        step("qa_snapshot: the screen as element lines")
        snap = call(s, "qa_snapshot", {"sessionId": sid})
        for line in snap["elements"]:
            print("      " + line)
        step("qa_act: log in (the password is a ${SWIPIUM_*} placeholder, never echoed)")
        call(s, "qa_act", {"sessionId": sid, "action": "type", "target": {"id": "email"}, "text": "ann@example.com"})
        call(s, "qa_act", {"sessionId": sid, "action": "type", "target": {"id": "password"},
                           "text": "${SWIPIUM_DEMO_PASSWORD}"})
        act = call(s, "qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "Sign in"}})
        if not any("Item 1" in l for l in act.get("elements", [])):
            raise DemoFailed("the home screen did not appear after Sign in")
        step("qa_note and qa_report")
        call(s, "qa_note", {"sessionId": sid, "workflow": "login", "outcome": "pass"})
        rep = call(s, "qa_report", {"sessionId": sid})
        print(f"    report: {rep.get('uri') or rep.get('reportUri')}")
        s.close()
        print("\niOS demo: every step behaved (stand-ins in tests/ios; a Mac drives real simulators)")
        return 0
    except DemoFailed as e:
        print(f"\nDEMO FAILED: {e}", flush=True)
        return 1
    finally:
        if wda:
            wda.kill()
            wda.wait()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
