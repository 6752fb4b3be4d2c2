"""Fixture seeds (`seed: <fixture>` flow steps) at the user's boundary: qa_flow_run through a real MCP client and
`swipium run`, the real adb and the virtual device (login app), a real local HTTP service for `api` seeds and a
real program for `script` seeds. What ran is read from what the seed left behind (the program's marker file,
the requests the service received, the device's screen), never from what the server says."""

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402

CLI = os.environ.get("SWIPIUM_CLI")
MCP = os.environ.get("SWIPIUM_MCP")
TOKEN = "tok-SEED-9f3k-Qx71"
FIELD_SECRET = "Fixture-Pw-77-zeta"

SEED_SH = """#!/bin/sh
# the seed program: records each argument on its own line, then the marker of the run
out="$(dirname "$0")/../seed-marker.txt"
for a in "$@"; do printf '%s\\n' "$a" >> "$out"; done
"""
FAIL_SH = "#!/bin/sh\necho 'boom: the database is gone' >&2\nexit 3\n"


def sc(resp):
    return resp["result"]["structuredContent"]


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


class Service(http.server.BaseHTTPRequestHandler):
    """A real HTTP service: records every request; /fail answers 500."""
    seen = []

    def _any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode() if n else ""
        Service.seen.append({"method": self.command, "path": self.path, "auth": self.headers.get("Authorization"),
                             "body": body})
        code = 500 if self.path.startswith("/fail") else 201
        self.send_response(code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_POST = do_GET = do_DELETE = do_PUT = _any

    def log_message(self, *a):
        pass


class Base(unittest.TestCase):
    def setUp(self):
        if not CLI or not MCP:
            raise unittest.SkipTest("SWIPIUM_CLI / SWIPIUM_MCP are not set (run through meson test)")
        self.tmp = tempfile.mkdtemp(prefix="sw-seeds-")
        self.project = os.path.join(self.tmp, "app")
        write(os.path.join(self.project, "package.json"), "{}")
        write(os.path.join(self.project, "scripts", "seed.sh"), SEED_SH, 0o755)
        write(os.path.join(self.project, "scripts", "fail.sh"), FAIL_SH, 0o755)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Service)
        Service.seen = []
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.fixtures({})

    def tearDown(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fixtures(self, extra):
        fx = [
            {"name": "account", "description": "a seeded account", "environment": "test",
             "fields": {"password": {"value": FIELD_SECRET, "secret": True}},
             "seed": {"type": "script", "command": ["./scripts/seed.sh", "ann smith", "x;touch pwned"],
                      "cleanup": {"type": "script", "command": ["./scripts/seed.sh", "cleanup"]}}},
            {"name": "home", "seed": {"type": "deeplink", "url": "swipium-demo://home"}},
            {"name": "orders", "seed": {"type": "api", "url": self.base + "/seed/orders", "method": "POST",
                                        "headers": {"Authorization": "Bearer " + TOKEN},
                                        "body": {"orders": 3},
                                        "cleanup": {"type": "api", "url": self.base + "/seed/orders",
                                                    "method": "DELETE",
                                                    "headers": {"Authorization": "Bearer " + TOKEN}}}},
            {"name": "broken", "seed": {"type": "script", "command": ["./scripts/fail.sh"]}},
            {"name": "down", "seed": {"type": "api", "url": self.base + "/fail"}},
            {"name": "noseed", "value": "plain"},
        ]
        fx += extra.get("more", [])
        write(os.path.join(self.project, ".swipium", "fixtures.json"), json.dumps({"fixtures": fx}))

    def flow(self, name, steps, teardown=None):
        text = "name: %s\nappId: com.example.login\nsteps:\n" % name + "".join("  - %s\n" % s for s in steps)
        if teardown:
            text += "teardown:\n" + "".join("  - %s\n" % s for s in teardown)
        write(os.path.join(self.project, ".swipium", "flows", name + ".yaml"), text)

    def marker(self):
        p = os.path.join(self.project, "seed-marker.txt")
        if not os.path.exists(p):
            return []
        with open(p) as f:
            return f.read().splitlines()

    def server(self, env, home=None):
        from mcpclient import Server
        e = dict(env.env)
        if home:
            e["HOME"] = home
        s = Server(env=e)
        s.initialize()
        return s

    def session(self, s, **extra):
        r = s.tool("qa_start_session", dict({"projectRoot": self.project}, **extra))
        self.assertFalse(r["result"].get("isError"), r)
        return sc(r)["sessionId"]

    def run_approved(self, s, sid, flow):
        r = s.tool("qa_flow_run", {"sessionId": sid, "flow": flow})
        env = sc(r)
        self.assertTrue(env.get("requiresConsent"), env)
        r = s.tool("qa_flow_run", {"sessionId": sid, "flow": flow, "consentId": env["consentId"], "approve": True})
        res = sc(r)
        self.assertEqual(bool(r["result"].get("isError")), not res.get("passed"), r)  # a failed flow is an error
        return env, res

    def assert_nowhere(self, root, needle):
        for dirpath, _, files in os.walk(root):
            for f in files:
                p = os.path.join(dirpath, f)
                with open(p, "rb") as fh:
                    self.assertNotIn(needle.encode(), fh.read(), p)


class McpSeeds(Base):
    def test_consent_shows_each_seed_then_all_three_kinds_run_and_clean_up(self):
        self.flow("seeded", ["seed: account", "seed: orders", "seed: home", 'assertVisible: "Hello"'],
                  teardown=["note: done"])
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            sid = self.session(s)
            envl, res = self.run_approved(s, sid, "seeded")
            # the one flow_mutation_run prompt: high (a script seed), each seed's argv / URL, no token
            self.assertEqual(envl["action"], "flow_mutation_run")
            self.assertEqual(envl["risk"], "high")
            cmd = envl["exactCommand"]
            self.assertIn("script argv ['./scripts/seed.sh', 'ann smith', 'x;touch pwned']", cmd)
            self.assertIn("HTTP POST %s/seed/orders with headers Authorization: <hidden>" % self.base, cmd)
            self.assertIn("deep link swipium-demo://home", cmd)
            self.assertIn("repo-supplied, unreviewed", cmd)
            self.assertIn("cleanup at teardown", cmd)
            self.assertNotIn(TOKEN, json.dumps(envl))
            self.assertTrue(res["passed"], res)
            # the program ran as an argv (no shell: the ';' is data), then its cleanup after teardown
            self.assertEqual(self.marker(), ["ann smith", "x;touch pwned", "cleanup"])
            self.assertFalse(os.path.exists(os.path.join(self.project, "pwned")))
            # the service got the POST with its token and body, then the cleanup DELETE
            self.assertEqual([(r["method"], r["path"]) for r in Service.seen],
                             [("POST", "/seed/orders"), ("DELETE", "/seed/orders")])
            self.assertEqual(Service.seen[0]["auth"], "Bearer " + TOKEN)
            self.assertEqual(json.loads(Service.seen[0]["body"]), {"orders": 3})
            phases = [(st["phase"], st["kind"]) for st in res["steps"]]
            self.assertEqual(phases[-3:], [("teardown", "note"), ("cleanup", "seed"), ("cleanup", "seed")])
            # cleanups run last first: the api seed ran after the script seed, so its cleanup comes first
            self.assertEqual([st["seed"]["type"] for st in res["steps"] if st["phase"] == "cleanup"],
                             ["api", "script"])
            self.assertNotIn(TOKEN, json.dumps(res))
            s.close()
            self.assert_nowhere(env.server.home, TOKEN)
            self.assert_nowhere(env.server.home, FIELD_SECRET)

    def test_failing_seeds_are_seed_failed_and_missing_ones_missing_fixture(self):
        self.flow("broken", ["seed: broken", 'assertVisible: "never reached"'])
        self.flow("down", ["seed: down"])
        self.flow("ghost", ["seed: ghost"])
        self.flow("noseed", ["seed: noseed"])
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            sid = self.session(s)
            _, res = self.run_approved(s, sid, "broken")
            self.assertEqual(res["failureCode"], "SEED_FAILED", res)
            self.assertEqual((res["failedPhase"], res["failedAtStep"], res["failedKind"]), ("steps", 0, "seed"))
            self.assertIn("status 3", res["steps"][0]["message"])
            self.assertNotIn("database is gone", json.dumps(res))  # what the program printed is not kept
            _, res = self.run_approved(s, sid, "down")
            self.assertEqual(res["failureCode"], "SEED_FAILED")
            self.assertIn("HTTP 500", res["steps"][0]["message"])
            for flow in ("ghost", "noseed"):
                _, res = self.run_approved(s, sid, flow)
                self.assertEqual(res["failureCode"], "MISSING_FIXTURE", res)
                self.assertEqual(res["outcome"], "blocked")
            # only deeplink and api seeds: medium
            self.flow("gentle", ["seed: home"])
            envl, res = self.run_approved(s, sid, "gentle")
            self.assertEqual(envl["risk"], "medium")
            self.assertTrue(res["passed"], res)
            s.close()

    def test_fixtures_json_is_read_again_after_a_restart_and_inline_seeds_are_not_kept(self):
        self.flow("inline", ["seed: inl"])
        self.flow("late", ["seed: late"])
        with VDeviceEnv(app="login") as env:
            s = self.server(env)
            sid = self.session(s, fixtures=[{"name": "inl", "seed": {"type": "script",
                                                                      "command": ["./scripts/seed.sh", "inline"]}}])
            _, res = self.run_approved(s, sid, "inline")
            self.assertTrue(res["passed"], res)
            self.assertEqual(self.marker(), ["inline"])
            s.close()
            # a new server process: the session is rehydrated from disk
            self.fixtures({"more": [{"name": "late", "seed": {"type": "script",
                                                               "command": ["./scripts/seed.sh", "late"]}}]})
            s = self.server(env)
            _, res = self.run_approved(s, sid, "late")
            self.assertTrue(res["passed"], res)
            self.assertEqual(self.marker(), ["inline", "late"])
            _, res = self.run_approved(s, sid, "inline")  # its seed lived in memory only
            self.assertEqual(res["failureCode"], "MISSING_FIXTURE", res)
            s.close()


class CliSeeds(Base):
    def run_cli(self, env, *args):
        return subprocess.run([CLI] + list(args), env=dict(env.env), stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=300)

    def test_swipium_run_runs_seeds_with_the_approval_and_fails_on_a_broken_one(self):
        self.flow("seeded", ["seed: account", "seed: home", 'assertVisible: "Hello"'])
        self.flow("broken", ["seed: broken"])
        with VDeviceEnv(app="login") as env:
            p = self.run_cli(env, "run", "seeded", "--root", self.project)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)  # no terminal, no --approve: refused
            self.assertEqual(self.marker(), [])
            p = self.run_cli(env, "run", "seeded", "--root", self.project, "--approve", "flow_mutation_run")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertEqual(self.marker(), ["ann smith", "x;touch pwned", "cleanup"])
            p = self.run_cli(env, "run", "broken", "--root", self.project, "--approve", "flow_mutation_run")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("SEED_FAILED", p.stdout + p.stderr)
            self.assert_nowhere(env.server.home, FIELD_SECRET)


if __name__ == "__main__":
    unittest.main(verbosity=2)
