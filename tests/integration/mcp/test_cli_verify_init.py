"""test_cli_verify_init.py: `swipium verify` and `swipium init <client>` through argv, exit codes and files."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcpclient import pass_on_sanitizer_reports  # noqa: E402

CLI = os.environ["SWIPIUM_CLI"]


def children_of(pid):
    """The pids whose parent is @pid (processes that end while we look are skipped)."""
    out = []
    for c in os.listdir("/proc"):
        if not c.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % c) as f:
                if f.read().split(") ")[-1].split()[1] == str(pid):
                    out.append(int(c))
        except (OSError, IndexError):
            pass
    return out


class CliBase(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="swipium-cli-")
        self.app = os.path.join(self.home, "app")
        os.makedirs(self.app)

    def tearDown(self):
        shutil.rmtree(self.home, ignore_errors=True)

    def cli_env(self, path="/usr/bin:/bin"):
        env = dict(os.environ, HOME=self.home, CODEX_HOME=os.path.join(self.home, "codex"),
                   PATH=path)  # by default no claude/gemini CLIs here
        libdir = os.path.join(os.path.dirname(os.path.realpath(CLI)), "..", "libswipium")
        env["LD_LIBRARY_PATH"] = libdir + ":" + env.get("LD_LIBRARY_PATH", "")
        return env

    def fake_client(self, name, body):
        """A stand-in for an MCP client's own CLI (claude, gemini) on a PATH of its own."""
        bindir = os.path.join(self.home, "fakebin")
        os.makedirs(bindir, exist_ok=True)
        path = os.path.join(bindir, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
        return bindir + ":/usr/bin:/bin"

    def run_cli(self, *args, cli=CLI, cwd=None, path="/usr/bin:/bin"):
        env = self.cli_env(path)
        # A copied binary loses the build tree's rpath (cli_env points it at the library).
        r = subprocess.run([cli] + list(args), cwd=cwd or self.app, env=env, capture_output=True, text=True,
                           timeout=120)
        pass_on_sanitizer_reports(r.stderr)  # into the test log, where the ASan stage counts it
        return r


class Verify(CliBase):
    def test_verify_ok(self):
        r = self.run_cli("verify")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        first = r.stdout.splitlines()[0]
        self.assertRegex(first, r"^✅ verify OK: server starts, \d+ tools inject \(all \d+ expected present\), "
                                r"schema [0-9a-f]{16}, qa_doctor ran\.$")
        self.assertIn("qa_doctor", r.stdout.splitlines()[1])
        self.assertIn("swipium_bug_repro", r.stdout.splitlines()[2])

    def test_verify_fails_without_a_server_beside_it(self):
        lonely = os.path.join(self.home, "bin")
        os.makedirs(lonely)
        shutil.copy(CLI, os.path.join(lonely, "swipium"))
        r = self.run_cli("verify", cli=os.path.join(lonely, "swipium"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("verify FAILED", r.stdout)

    def test_verify_rejects_arguments(self):
        self.assertEqual(self.run_cli("verify", "--bogus").returncode, 2)


class Serve(CliBase):
    def test_bare_serve_and_flag_invocations_run_the_server(self):
        init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}) + "\n"
        for args in ([], ["serve"], ["--stdio"]):
            env = dict(os.environ, HOME=self.home, SWIPIUM_LOG_LEVEL="error")
            r = subprocess.run([CLI] + args, input=init, env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            reply = json.loads(r.stdout.splitlines()[0])
            self.assertEqual(reply["result"]["serverInfo"]["name"], "swipium", args)
            if args == ["--stdio"]:
                self.assertIn("swipium: ignoring unrecognized flag(s) --stdio, starting the stdio MCP server "
                              "(see swipium --help)", r.stderr)

    def test_serve_becomes_the_server_and_its_signals_are_the_servers(self):
        # exec, not fork: the pid the client started is swipium-mcp itself, so a client's SIGTERM reaches the
        # server directly and the exit status is the server's own answer to it
        mcp = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(CLI)), "..", "swipium-mcp",
                                            "swipium-mcp"))
        codes = {}
        for label, argv in (("direct", [mcp]), ("serve", [CLI, "serve"])):
            env = dict(os.environ, HOME=self.home, SWIPIUM_LOG_LEVEL="error")
            p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            try:
                p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
                              b'"2025-06-18","capabilities":{}}}\n')
                p.stdin.flush()
                self.assertIn(b'"serverInfo"', p.stdout.readline())  # it is up and serving
                if label == "serve":
                    self.assertEqual(os.path.realpath("/proc/%d/exe" % p.pid), mcp)
                    self.assertEqual(children_of(p.pid), [],
                                     "swipium serve left a process between the client and the server")
                p.send_signal(signal.SIGTERM)
                codes[label] = p.wait(timeout=30)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
                p.stdin.close()
                p.stdout.close()
                p.stderr.close()
        self.assertEqual(codes["serve"], codes["direct"], codes)


class Init(CliBase):
    def test_claude_cli_success_and_failure_exit_codes(self):
        log = os.path.join(self.home, "claude-argv")
        path = self.fake_client("claude", 'printf "%%s\\n" "$@" > %s\nexit "${FAKE_EXIT:-0}"\n' % log)
        r = self.run_cli("init", "claude", "--apply", path=path)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Registered swipium with Claude Code (local scope).", r.stdout)
        with open(log) as f:
            self.assertEqual(f.read().split("\n")[:4], ["mcp", "add", "swipium", "--"])
        os.environ["FAKE_EXIT"] = "3"
        try:
            r = self.run_cli("init", "claude", "--apply", path=path)
        finally:
            del os.environ["FAKE_EXIT"]
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("Could not run the claude CLI (it failed). Run this yourself:", r.stdout)

    def test_sigterm_to_init_reaches_the_client_cli_and_ends_init_the_same_way(self):
        mark = os.path.join(self.home, "claude-got-term")
        started = os.path.join(self.home, "claude-started")
        path = self.fake_client("claude", 'trap \'echo term > %s; exit 143\' TERM\n: > %s\n'
                                          'while :; do sleep 0.05; done\n' % (mark, started))
        p = subprocess.Popen([CLI, "init", "claude", "--apply"], cwd=self.app, env=self.cli_env(path),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 30
            while not os.path.exists(started) and time.monotonic() < deadline:
                time.sleep(0.02)
            self.assertTrue(os.path.exists(started), "the fake claude never started")
            p.send_signal(signal.SIGTERM)  # to swipium alone, as a supervisor would
            rc = p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()
            p.stderr.close()
        self.assertTrue(os.path.exists(mark), "SIGTERM was not passed on to the client's CLI")
        self.assertEqual(rc, -signal.SIGTERM)

    def test_preview_changes_nothing(self):
        r = self.run_cli("init", "cursor")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Preview only", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.app, ".cursor")))
        self.assertTrue(r.stdout.rstrip().endswith("Self-check anytime: swipium verify"))

    def test_vscode_apply_merges_and_keeps_other_keys(self):
        os.makedirs(os.path.join(self.app, ".vscode"))
        path = os.path.join(self.app, ".vscode", "mcp.json")
        with open(path, "w") as f:
            json.dump({"servers": {"other": {"command": "x"}}, "inputs": []}, f)
        r = self.run_cli("init", "VSCode", "--apply")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(path) as f:
            text = f.read()
        self.assertTrue(text.endswith("}\n"))
        doc = json.loads(text)
        self.assertEqual(list(doc["servers"]), ["other", "swipium"])
        self.assertEqual(doc["servers"]["swipium"], {"type": "stdio", "command": "swipium-mcp", "args": [],
                                                     "env": {"SWIPIUM_PROJECT_ROOT": "${workspaceFolder}"}})
        self.assertEqual(doc["inputs"], [])
        self.assertIn("verify OK", r.stdout)
        # a second run leaves the entry alone
        r = self.run_cli("init", "vscode", "--apply")
        self.assertIn("Already present", r.stdout)

    def test_cursor_refuses_invalid_json_and_leaves_it(self):
        os.makedirs(os.path.join(self.app, ".cursor"))
        path = os.path.join(self.app, ".cursor", "mcp.json")
        with open(path, "w") as f:
            f.write('{"mcpServers": {}, // comment\n}')
        r = self.run_cli("init", "cursor", "--apply")
        self.assertEqual(r.returncode, 2)
        self.assertIn('"swipium"', r.stderr)
        with open(path) as f:
            self.assertIn("// comment", f.read())

    def test_codex_appends_a_table_once(self):
        r = self.run_cli("init", "codex", "--apply", "--cwd", self.app)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(self.home, "codex", "config.toml")) as f:
            toml = f.read()
        self.assertIn("[mcp_servers.swipium]\ncommand = \"/", toml)
        self.assertIn('cwd = "%s"' % self.app, toml)
        self.assertIn("tool_timeout_sec = 600", toml)
        self.assertIn('env_vars = ["SWIPIUM_TEST_EMAIL", "SWIPIUM_TEST_USERNAME"', toml)
        self.assertIn('"BITBUCKET_BRANCH"]', toml)
        r = self.run_cli("init", "codex", "--apply", "--cwd", self.app)
        self.assertIn("Already present", r.stdout)
        with open(os.path.join(self.home, "codex", "config.toml")) as f:
            self.assertEqual(f.read().count("[mcp_servers.swipium]"), 1)

    def test_codex_apply_refuses_a_missing_cwd(self):
        r = self.run_cli("init", "codex", "--apply", "--cwd", os.path.join(self.home, "nope"))
        self.assertEqual(r.returncode, 2)

    def test_claude_without_its_cli_prints_the_manual_command(self):
        r = self.run_cli("init", "claude", "--scope", "project", "--apply")
        self.assertEqual(r.returncode, 1)
        self.assertIn("claude mcp add swipium --scope project -- swipium-mcp", r.stdout)

    def test_init_flows_writes_then_keeps(self):
        r = self.run_cli("init", "flows", "--root", self.app)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("  wrote .swipium/flows/login-smoke.yaml", r.stdout)
        self.assertIn("  wrote .swipium/packs/smoke.yaml", r.stdout)
        path = os.path.join(self.app, ".swipium", "flows", "login-smoke.yaml")
        with open(path, "w") as f:
            f.write("name: mine\nsteps:\n  - prepareTarget\n")
        r = self.run_cli("init", "flows", "--root", self.app)
        self.assertIn("  kept .swipium/flows/login-smoke.yaml", r.stdout)
        with open(path) as f:
            self.assertEqual(f.read(), "name: mine\nsteps:\n  - prepareTarget\n")
        r = self.run_cli("init", "flows", "--root", self.app, "--force")
        self.assertIn("  wrote .swipium/flows/login-smoke.yaml", r.stdout)
        self.assertEqual(self.run_cli("init", "flows", "--root", os.path.join(self.home, "none")).returncode, 2)

    def test_usage_errors(self):
        self.assertEqual(self.run_cli("init", "windsurf").returncode, 2)
        self.assertEqual(self.run_cli("init").returncode, 2)
        self.assertEqual(self.run_cli("init", "cursor", "--scope", "galaxy").returncode, 2)
        r = self.run_cli("init", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Usage: swipium init", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
