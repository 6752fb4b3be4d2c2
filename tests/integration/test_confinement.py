"""Files the product writes or locks inside a project stay inside it (issue 11 item 3, docs/threat-model.md).

A cloned repository can hold symbolic links that lead out of it: a .swipium folder, the issue ledger or its
lock, a flow, a baselines folder. Every write through the server and the CLI must then be refused
(UNSAFE_ACTION_REFUSED; qa_visual says VISUAL_PATH_REFUSED, its own code for the same rule) and the file
outside must keep its bytes and its modification time. Links that stay inside the project keep working.
Run through meson test (SWIPIUM_MCP, SWIPIUM_CLI, VDEVICE_BIN are set there)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from mcpclient import Server, ServerTestCase  # noqa: E402

CLI = os.environ.get("SWIPIUM_CLI")

RENAMED = """name: renamed button
appId: com.example.login
steps:
  - prepareTarget
  - tap: "Sign in to your account"
"""


def sc(resp):
    return resp["result"]["structuredContent"]


class Outside:
    """A file outside the project whose bytes and mtime must not change."""

    def __init__(self, path, data=b"precious: do not touch\n"):
        self.path = path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        past = time.time() - 3600
        os.utime(path, (past, past))
        self.data = data
        self.mtime = os.stat(path).st_mtime_ns

    def assert_untouched(self, tc):
        with open(self.path, "rb") as f:
            tc.assertEqual(f.read(), self.data, "%s was written" % self.path)
        tc.assertEqual(os.stat(self.path).st_mtime_ns, self.mtime, "%s was touched" % self.path)


class Ledger(ServerTestCase):
    """qa_issue_log: .swipium, .swipium/issues-log.jsonl and its lock are confined."""

    def setUp(self):
        super().setUp()
        self.out = tempfile.mkdtemp(prefix="sw-outside-")

    def tearDown(self):
        shutil.rmtree(self.out, ignore_errors=True)
        super().tearDown()

    def log(self, title="Checkout button does nothing"):
        s = self.server()
        s.initialize()
        r = s.tool("qa_issue_log", {"projectRoot": self.app, "mode": "log", "title": title, "category": "app_bug"})
        self.assertEqual(s.close(), 0)
        return r

    def refused(self, r):
        res = r["result"]
        self.assertTrue(res.get("isError"), json.dumps(r)[:2000])
        self.assertEqual(res["structuredContent"]["failureCode"], "UNSAFE_ACTION_REFUSED", json.dumps(r)[:2000])
        return res["structuredContent"]

    def test_control_a_plain_ledger_is_written(self):
        r = self.log()
        self.assertFalse(r["result"].get("isError"), r)
        with open(os.path.join(self.app, ".swipium", "issues-log.jsonl")) as f:
            self.assertIn("Checkout button", f.read())

    def test_swipium_folder_linked_out(self):
        victim = Outside(os.path.join(self.out, "issues-log.jsonl"))
        os.symlink(self.out, os.path.join(self.app, ".swipium"))
        e = self.refused(self.log())
        self.assertIn(self.out.split("/")[-1], e["what"])
        victim.assert_untouched(self)
        self.assertEqual(sorted(os.listdir(self.out)), ["issues-log.jsonl"])  # no lock file made out there
        # the history mode (read only) refuses too rather than reading the file outside
        s = self.server()
        s.initialize()
        self.refused(s.tool("qa_issue_log", {"projectRoot": self.app}))
        s.close()

    def test_ledger_file_linked_out(self):
        victim = Outside(os.path.join(self.out, "notes.txt"))
        os.makedirs(os.path.join(self.app, ".swipium"))
        os.symlink(victim.path, os.path.join(self.app, ".swipium", "issues-log.jsonl"))
        self.refused(self.log())
        victim.assert_untouched(self)

    def test_lock_file_linked_out(self):
        victim = Outside(os.path.join(self.out, "bashrc"))
        os.makedirs(os.path.join(self.app, ".swipium"))
        os.symlink(victim.path, os.path.join(self.app, ".swipium", "issues-log.jsonl.lock"))
        self.refused(self.log())
        victim.assert_untouched(self)
        self.assertFalse(os.path.exists(os.path.join(self.app, ".swipium", "issues-log.jsonl")))

    def test_dangling_lock_link_creates_nothing_outside(self):
        target = os.path.join(self.out, "created-by-swipium")
        os.makedirs(os.path.join(self.app, ".swipium"))
        os.symlink(target, os.path.join(self.app, ".swipium", "issues-log.jsonl.lock"))
        self.refused(self.log())
        self.assertFalse(os.path.lexists(target))

    def test_ledger_hard_link_refused(self):
        victim = Outside(os.path.join(self.out, "notes.txt"))
        os.makedirs(os.path.join(self.app, ".swipium"))
        try:
            os.link(victim.path, os.path.join(self.app, ".swipium", "issues-log.jsonl"))
        except OSError as ex:  # another file system
            self.skipTest("no hard link possible: %s" % ex)
        self.refused(self.log())
        victim.assert_untouched(self)

    def test_swipium_linked_inside_the_project_works(self):
        shared = os.path.join(self.app, "config", "swipium")
        os.makedirs(shared)
        os.symlink(shared, os.path.join(self.app, ".swipium"))
        r = self.log()
        self.assertFalse(r["result"].get("isError"), r)
        self.assertTrue(os.path.isfile(os.path.join(shared, "issues-log.jsonl")))


@unittest.skipUnless(CLI, "SWIPIUM_CLI is not set (run through meson test)")
class InitFlows(unittest.TestCase):
    """`swipium init flows` writes starter flows under .swipium/flows: never through a link leading out."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-confine-")
        self.app = os.path.join(self.tmp, "app")
        self.out = os.path.join(self.tmp, "outside")
        os.makedirs(self.app)
        os.makedirs(self.out)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def init(self, *extra):
        env = dict(os.environ, HOME=self.tmp)
        return subprocess.run([CLI, "init", "flows", "--root", self.app] + list(extra), env=env,
                              capture_output=True, text=True, timeout=60)

    def test_flows_folder_linked_out(self):
        victim = Outside(os.path.join(self.out, "launch-smoke.yaml"))
        os.makedirs(os.path.join(self.app, ".swipium"))
        os.symlink(self.out, os.path.join(self.app, ".swipium", "flows"))
        r = self.init("--force")
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("UNSAFE_ACTION_REFUSED", r.stderr + r.stdout)
        victim.assert_untouched(self)
        self.assertEqual(os.listdir(self.out), ["launch-smoke.yaml"])

    def test_template_file_linked_out_with_force(self):
        victim = Outside(os.path.join(self.out, "profile"))
        flows = os.path.join(self.app, ".swipium", "flows")
        os.makedirs(flows)
        os.symlink(victim.path, os.path.join(flows, "launch-smoke.yaml"))
        r = self.init("--force")
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("UNSAFE_ACTION_REFUSED", r.stderr + r.stdout)
        victim.assert_untouched(self)

    def test_plain_project_gets_its_templates(self):
        r = self.init()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.app, ".swipium", "flows", "launch-smoke.yaml")))


class DeviceBase(unittest.TestCase):
    app_name = "login"

    def setUp(self):
        if not os.environ.get("SWIPIUM_MCP") or not CLI:
            raise unittest.SkipTest("SWIPIUM_MCP / SWIPIUM_CLI are not set (run through meson test)")
        from vdevice_env import VDeviceEnv
        self.tmp = tempfile.mkdtemp(prefix="sw-confine-")
        self.app = os.path.join(self.tmp, "app")
        self.out = os.path.join(self.tmp, "outside")
        os.makedirs(os.path.join(self.app, ".swipium"))
        os.makedirs(self.out)
        with open(os.path.join(self.app, "package.json"), "w") as f:
            f.write("{}")
        self.env = VDeviceEnv(app=self.app_name)
        self.env.__enter__()
        self.env.shell("monkey -p com.example.%s -c android.intent.category.LAUNCHER 1" % self.app_name)
        self.servers = []

    def tearDown(self):
        codes = [s.close() if s.proc.poll() is None else s.proc.returncode for s in self.servers]
        self.env.__exit__(None, None, None)
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.assertEqual(codes, [0] * len(codes))

    def server(self):
        e = dict(self.env.env)
        for k in ("SWIPIUM_CONSENT_PREAPPROVE", "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE", "SWIPIUM_REQUIRE_ELICITATION"):
            e.pop(k, None)
        s = Server(env=e)
        s.initialize()
        self.servers.append(s)
        return s

    def session(self, s):
        r = s.tool("qa_start_session", {"projectRoot": self.app,
                                         "budget": {"maxScreenshots": 100, "maxActions": 100}})
        self.assertFalse(r["result"].get("isError"), r)
        return sc(r)["sessionId"]

    def assert_code(self, r, code):
        self.assertTrue(r["result"].get("isError"), json.dumps(r)[:2000])
        self.assertEqual(sc(r)["failureCode"], code, json.dumps(r)[:2000])


class RepairAndBaselines(DeviceBase):
    def test_repair_apply_on_a_flow_linked_out(self):
        victim = Outside(os.path.join(self.out, "renamed.yaml"), RENAMED.encode())
        flows = os.path.join(self.app, ".swipium", "flows")
        os.makedirs(flows)
        os.symlink(victim.path, os.path.join(flows, "renamed.yaml"))
        s = self.server()
        sid = self.session(s)
        r = s.tool("qa_flow_repair", {"sessionId": sid, "flow": "renamed", "failedStep": 1, "apply": True})
        self.assert_code(r, "UNSAFE_ACTION_REFUSED")
        victim.assert_untouched(self)

    def test_repair_apply_through_a_link_inside_writes_the_target(self):
        shared = os.path.join(self.app, "qa")
        os.makedirs(shared)
        with open(os.path.join(shared, "renamed.yaml"), "w") as f:
            f.write(RENAMED)
        os.chmod(os.path.join(shared, "renamed.yaml"), 0o640)
        flows = os.path.join(self.app, ".swipium", "flows")
        os.makedirs(flows)
        link = os.path.join(flows, "renamed.yaml")
        os.symlink("../../qa/renamed.yaml", link)
        s = self.server()
        sid = self.session(s)
        r = s.tool("qa_flow_repair", {"sessionId": sid, "flow": "renamed", "failedStep": 1, "apply": True})
        self.assertFalse(r["result"].get("isError"), r)
        self.assertTrue(sc(r)["applied"], sc(r))
        self.assertTrue(os.path.islink(link))  # the link is still a link, its target got the patch
        with open(os.path.join(shared, "renamed.yaml")) as f:
            self.assertIn('tap: "Sign in"', f.read())
        self.assertEqual(os.stat(os.path.join(shared, "renamed.yaml")).st_mode & 0o777, 0o640)

    def test_baseline_through_a_linked_folder(self):
        victim = Outside(os.path.join(self.out, "home.png"), b"\x89PNG not really\n")
        os.symlink(self.out, os.path.join(self.app, ".swipium", "baselines"))
        s = self.server()
        sid = self.session(s)
        # qa_visual's failure code for its refused paths (TOOLS.md qa_visual) is VISUAL_PATH_REFUSED
        r = s.tool("qa_visual", {"sessionId": sid, "mode": "baseline", "name": "home"})
        self.assert_code(r, "VISUAL_PATH_REFUSED")
        r = s.tool("qa_visual", {"sessionId": sid, "mode": "baseline", "name": "fresh"})
        self.assert_code(r, "VISUAL_PATH_REFUSED")
        victim.assert_untouched(self)
        self.assertEqual(os.listdir(self.out), ["home.png"])
        # a flow comparing with that baseline is refused before it runs
        r = s.tool("qa_flow_run", {"sessionId": sid, "flowYaml":
                                   "name: diff\nappId: com.example.login\nsteps:\n  - assertDiff: home\n"})
        self.assert_code(r, "UNSAFE_ACTION_REFUSED")
        r = s.tool("qa_flow_check", {"projectRoot": self.app, "flowYaml":
                                     "name: diff\nappId: com.example.login\nsteps:\n  - assertDiff: home\n"})
        self.assertIn("UNSAFE_ACTION_REFUSED", [w.get("code") for w in sc(r).get("warnings", [])], sc(r))
        victim.assert_untouched(self)

    def test_swipium_folder_linked_out_for_baselines(self):
        os.rmdir(os.path.join(self.app, ".swipium"))
        os.symlink(self.out, os.path.join(self.app, ".swipium"))
        s = self.server()
        sid = self.session(s)
        r = s.tool("qa_visual", {"sessionId": sid, "mode": "baseline", "name": "home"})
        self.assert_code(r, "VISUAL_PATH_REFUSED")
        self.assertEqual(os.listdir(self.out), [])  # not even a baselines folder was made out there


if __name__ == "__main__":
    unittest.main(verbosity=2)
