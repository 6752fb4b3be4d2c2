#!/usr/bin/env python3
"""agent_demo.py: the README's main job. Starts a virtual Android device behind a private adb server,
then drives swipium-mcp over stdio exactly as an AI agent's MCP client would: open a session, prepare
the app, read the screen as @eN element lines, log in, record outcomes, write the report, and finally
render it for CI with `swipium report --format junit`. Prints what happens at each step.

Usage: agent_demo.py --build BUILD_DIR [--out DIR]
Exit status: 0 when every step behaved as expected, 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "integration", "mcp"))

from vdevice_env import VDeviceEnv  # noqa: E402
import mcpclient  # noqa: E402

STEP = [0]


def step(title):
    STEP[0] += 1
    print(f"\n[{STEP[0]}] {title}", flush=True)


def show(label, value):
    print(f"    {label}: {value}", flush=True)


class DemoFailed(Exception):
    pass


def call(server, name, args):
    """Calls a tool and returns its structuredContent; a tool error stops the demo with its message."""
    resp = server.tool(name, args)
    result = resp.get("result")
    if result is None:
        raise DemoFailed(f"{name}: JSON-RPC error {resp.get('error')}")
    sc = result.get("structuredContent", {})
    if result.get("isError"):
        raise DemoFailed(f"{name} failed: {sc.get('failureCode')}: {sc.get('what')}")
    return sc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="meson build directory holding swipium-mcp, swipium, vdevice")
    ap.add_argument("--out", help="where to keep the project, HOME and exports (default: a temporary directory)")
    opts = ap.parse_args()
    build = os.path.abspath(opts.build)
    mcp_bin = os.path.join(build, "swipium-mcp", "swipium-mcp")
    cli_bin = os.path.join(build, "swipium-cli", "swipium")
    os.environ.setdefault("VDEVICE_BIN", os.path.join(build, "tests", "vdevice", "vdevice"))
    out = os.path.abspath(opts.out) if opts.out else tempfile.mkdtemp(prefix="swipium-demo-")
    project = os.path.join(out, "login-app")
    os.makedirs(project, exist_ok=True)
    with open(os.path.join(project, "package.json"), "w") as f:
        json.dump({"name": "login-app", "private": True}, f)

    step("Start a virtual Android device (the login sample app) behind a private adb server")
    with VDeviceEnv(app="login") as env:
        show("adb sees", env.adb("devices").stdout.decode().strip().splitlines()[-1])
        home = os.path.join(out, "home")
        os.makedirs(home, exist_ok=True)
        server_env = dict(env.env)
        server_env["HOME"] = home
        # The password comes from the environment, as a CI secret would; swipium never writes it anywhere.
        server_env["SWIPIUM_TEST_PASSWORD"] = "hunter2"
        server_env["SWIPIUM_TEST_EMAIL"] = "ann@example.com"

        step("Start swipium-mcp over stdio and initialize, as an MCP client does")
        mcpclient.SERVER = mcp_bin
        server = mcpclient.Server(env=server_env)
        try:
            init = server.initialize()["result"]
            show("server", f"{init['serverInfo']['name']} {init['serverInfo']['version']}, protocol {init['protocolVersion']}")
            tools = server.call("tools/list")["result"]["tools"]
            show("tools", f"{len(tools)} available")

            step("qa_start_session: open a QA session for the project")
            sid = call(server, "qa_start_session", {"projectRoot": project})["sessionId"]
            show("sessionId", sid)

            step("qa_prepare_target: pick the emulator and launch the app")
            prep = call(server, "qa_prepare_target", {"sessionId": sid, "appId": "com.example.login"})
            show("device", prep.get("device", {}).get("serial"))
            show("app in foreground", prep.get("foregroundIsApp"))

            step("qa_snapshot: read the screen as compact element lines")
            snap = call(server, "qa_snapshot", {"sessionId": sid})
            for line in snap["elements"]:
                print("      " + line)

            step("qa_act: type the e-mail and the password (a secret), then tap Sign in")
            call(server, "qa_act", {"sessionId": sid, "action": "type", "target": {"id": "email"},
                                    "text": "${SWIPIUM_TEST_EMAIL}"})
            call(server, "qa_act", {"sessionId": sid, "action": "type", "target": {"id": "password"},
                                    "text": "${SWIPIUM_TEST_PASSWORD}"})
            act = call(server, "qa_act", {"sessionId": sid, "action": "tap", "target": {"text": "Sign in"}})
            show("screen changed", act.get("changed"))

            step("qa_snapshot: check where the login led")
            snap = call(server, "qa_snapshot", {"sessionId": sid})
            for line in snap["elements"]:
                print("      " + line)
            logged_in = any("Sign out" in line for line in snap["elements"])
            if not logged_in:
                raise DemoFailed("the home screen did not appear after signing in")

            step("qa_screenshot: keep a picture as evidence")
            shot = call(server, "qa_screenshot", {"sessionId": sid})
            show("artifact", shot.get("uri") or shot.get("artifactUri"))

            step("qa_note: record the outcomes the agent observed")
            call(server, "qa_note", {"sessionId": sid, "workflow": "login", "outcome": "pass",
                                     "reason": "signed in with the test account and reached the home screen"})
            call(server, "qa_note", {"sessionId": sid, "workflow": "password reset", "outcome": "blocked",
                                     "category": "missing_test_data",
                                     "reason": "no inbox is available to receive the reset e-mail"})
            show("recorded", "login=pass, password reset=blocked")

            step("qa_report: assemble and save the session report")
            rep = call(server, "qa_report", {"sessionId": sid, "format": "junit"})
            show("summary", rep.get("summary"))
        finally:
            server.close()

    step("swipium report --latest --format junit: what a CI job runs afterwards")
    cienv = dict(os.environ, HOME=home)
    junit = os.path.join(out, "junit.xml")
    r = subprocess.run([cli_bin, "report", "--latest", "--root", project, "--format", "junit", "--out", junit],
                       env=cienv, capture_output=True, text=True)
    print(r.stderr.rstrip())
    if r.returncode != 0:
        raise DemoFailed(f"swipium report exited {r.returncode}")
    with open(junit) as f:
        print(f.read())
    xsd = os.path.join(SOURCE_ROOT, "tests", "data", "schemas", "junit-10.xsd")
    v = subprocess.run(["xmllint", "--noout", "--schema", xsd, junit], capture_output=True, text=True)
    if v.returncode != 0:
        raise DemoFailed(f"the JUnit file does not validate against junit-10.xsd: {v.stderr.strip()}")
    show("xmllint", "junit.xml validates against the Jenkins junit-10.xsd")
    secret_hits = subprocess.run(["grep", "-rl", "hunter2", home], capture_output=True, text=True).stdout
    if secret_hits:
        raise DemoFailed(f"the password reached disk: {secret_hits}")
    show("secret check", f"the password appears in no file under {home}")
    print(f"\nDemo finished. Project, HOME and exports are in {out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except DemoFailed as e:
        print(f"\nDEMO FAILED: {e}", file=sys.stderr)
        sys.exit(1)
