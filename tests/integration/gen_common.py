"""gen_common: what the qa_generate end-to-end tests (test_generate.py, test_generate_appium.py) share: a project
with a package.json, the virtual device with the hostile-label app behind a private adb server, a swipium-mcp
whose environment holds the test password (SWIPIUM_* names only, as CI would) and a session prepared on the form
screen. Each test keeps its own recording (the actions it acts out). Run with /usr/bin/python3; put tests/integration on sys.path."""

import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402

PKG = "com.example.hostile"


def sc(resp):
    return resp["result"].get("structuredContent") or {}


def is_error(resp):
    return bool(resp["result"].get("isError"))


def code_of(resp):
    c = sc(resp)
    return c.get("failureCode") or c.get("code") or (c.get("error") or {}).get("code")


class RecordedRun:
    """A mixin for a unittest.TestCase class: open() in setUpClass, close() in tearDownClass.
    Set PREFIX (the temporary folder's), PASSWORD and TOOL_TIMEOUT (seconds) on the class."""

    PREFIX = "sw-generate-"
    PASSWORD = None
    TOOL_TIMEOUT = 120

    @classmethod
    def open(cls, touch_log=False):
        """With @touch_log the device logs every touch to cls.touch_log (JSON lines)."""
        cls.tmp = tempfile.mkdtemp(prefix=cls.PREFIX)
        cls.project = os.path.join(cls.tmp, "app")
        os.makedirs(cls.project)
        with open(os.path.join(cls.project, "package.json"), "w") as f:
            f.write("{}")
        cls.touch_log = os.path.join(cls.tmp, "touches.jsonl") if touch_log else None
        cls.vd = VDeviceEnv(app="hostile", device_args=["--touch-log", cls.touch_log] if touch_log else [])
        cls.env = cls.vd.__enter__()
        try:
            e = dict(cls.env.env)
            e["HOME"] = cls.env.server.home
            e["SWIPIUM_TEST_PASSWORD"] = cls.PASSWORD
            cls.s = Server(env=e)
            cls.s.initialize()
        except BaseException:
            cls.vd.__exit__(None, None, None)
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise

    @classmethod
    def close(cls):
        try:
            cls.s.close()
        finally:
            cls.vd.__exit__(None, None, None)
            shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def tool(cls, name, args, ok=True, timeout=None):
        r = cls.s.tool(name, args, timeout=timeout or cls.TOOL_TIMEOUT)
        if ok and is_error(r):
            raise AssertionError("%s failed: %s" % (name, json.dumps(r)[:2000]))
        return r

    @classmethod
    def start_on_form(cls):
        """A session on the project with a budget for the whole run, prepared on the app's form screen (the
        caller takes the first snapshot)."""
        cls.env.shell("am start -n %s/.FormActivity" % PKG)
        r = cls.tool("qa_start_session", {"projectRoot": cls.project,
                                           "budget": {"maxActions": 1000, "maxNoChangeActions": 1000}})
        cls.sid = sc(r)["sessionId"]
        cls.tool("qa_prepare_target", {"sessionId": cls.sid, "appId": PKG})
