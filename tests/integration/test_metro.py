"""qa_metro through a real swipium-mcp, the real adb and the virtual device: status, the start_metro consent
(the whole adb reverse and Metro commands), start (the reverse set on the device as `adb reverse --list` shows,
Metro as a managed process in its own group, processes.json, the session's metroPid), stop (the whole group
gone, the reverse removed, the log kept and redacted), a device that refuses the reverse (METRO_FAILED, nothing
started), a Metro that accepts and never answers (serving:false in bounded time), the port taken by something
that is not Metro, a Metro that exits at once, a project that is not React Native, and server shutdown stopping
Metro. Metro is tests/integration/standins/npx, which serves /status the way Metro does."""
import http.server
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402

STANDIN = os.path.join(HERE, "standins", "npx")
PREAPPROVE = {"SWIPIUM_CONSENT_PREAPPROVE": "start_metro", "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE": "1"}


def sc(resp):
    return resp["result"]["structuredContent"]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rev_list(env):
    r = env.adb("reverse", "--list")
    return r.stdout.decode("utf-8", "replace")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purpose
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[-1].split()[0] != "Z"
    except OSError:
        return False


def group_alive(pgid):
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    fields = f.read().split(") ")[-1].split()
                if int(fields[2]) == pgid and fields[0] != "Z":
                    return True
            except (OSError, IndexError, ValueError):
                pass
    return False


class Metro(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-metro-")
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            json.dump({"name": "shop", "dependencies": {"react": "18.2.0", "react-native": "0.74.1"}}, f)
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        os.symlink(STANDIN, os.path.join(self.bin, "npx"))
        self.calls = os.path.join(self.tmp, "calls.jsonl")
        self.port = free_port()
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            try:
                s.close()
            except Exception:
                pass
        for c in self.ncalls_list():
            if alive(c["pid"]):
                os.killpg(c["pgid"], 9)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def ncalls_list(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            return [json.loads(l) for l in f if l.strip()]

    def server(self, env, extra=None):
        e = dict(env.env)
        e.update({"HOME": self.home, "TMPDIR": self.tmp, "PATH": self.bin + ":" + e.get("PATH", os.environ["PATH"]),
                  "SWIPIUM_METRO_PORT": str(self.port), "STANDIN_CALLS": self.calls})
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        self.servers.append(s)
        return s

    def session(self, s):
        r = s.tool("qa_start_session", {"projectRoot": self.project})
        self.assertFalse(r["result"].get("isError"), r)
        return sc(r)["sessionId"]

    def processes(self):
        p = os.path.join(self.home, ".swipium", "processes.json")
        if not os.path.exists(p):
            return []
        with open(p) as f:
            return [e for e in json.load(f) if e.get("kind") == "metro"]

    def wait_ready(self, s, sid, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            st = sc(s.tool("qa_metro", {"sessionId": sid, "action": "status"}))
            if st.get("ready") or time.monotonic() > deadline:
                return st
            time.sleep(0.2)

    def test_status_consent_start_stop(self):
        with VDeviceEnv() as env:
            s = self.server(env)
            sid = self.session(s)
            st = sc(s.tool("qa_metro", {"sessionId": sid, "action": "status"}))
            self.assertEqual(st["framework"], "bare-react-native")
            self.assertEqual((st["metroListening"], st["serving"], st["reverseSet"], st["ready"]),
                             (False, False, False, False), st)
            self.assertIsNone(st["metroPid"])
            self.assertEqual(st["device"], env.serial)
            # consent: both commands shown whole, nothing run while asking
            c = sc(s.tool("qa_metro", {"sessionId": sid, "action": "start"}))
            self.assertTrue(c.get("requiresConsent"), c)
            self.assertEqual((c["action"], c["risk"]), ("start_metro", "medium"))
            cmd = c.get("exactCommand", "")
            self.assertIn("'adb' '-s' '%s' 'reverse' 'tcp:%d' 'tcp:%d'" % (env.serial, self.port, self.port), cmd)
            self.assertIn("'npx' 'react-native' 'start' '--port' '%d'" % self.port, cmd)
            self.assertIn(os.path.realpath(self.project), cmd)
            self.assertEqual(self.ncalls_list(), [])
            self.assertEqual(rev_list(env).strip(), "")
            # approved
            r = sc(s.tool("qa_metro", {"sessionId": sid, "action": "start", "consentId": c["consentId"],
                                       "approve": True}))
            self.assertTrue(r["started"], r)
            pid = r["metroPid"]
            self.assertIsInstance(pid, int)
            self.assertTrue(r["reverseSet"], r)
            calls = self.ncalls_list()
            self.assertEqual(len(calls), 1)
            self.assertEqual(calls[0]["argv"], ["react-native", "start", "--port", str(self.port)])
            self.assertEqual(os.path.realpath(calls[0]["cwd"]), os.path.realpath(self.project))
            self.assertEqual(calls[0]["pgid"], pid, "Metro leads its own process group")
            self.assertIn("tcp:%d tcp:%d" % (self.port, self.port), rev_list(env))
            self.assertEqual([e["pid"] for e in self.processes()], [pid])
            w = sc(s.tool("qa_wait", {"sessionId": sid, "for": "metro_ready", "timeoutMs": 20000}))
            self.assertTrue(w["satisfied"], w)  # qa_wait asks the same port
            st = self.wait_ready(s, sid)
            self.assertTrue(st["ready"], st)
            self.assertEqual(st["metroPid"], pid)
            # stop: the whole group, the reverse, the log
            r = sc(s.tool("qa_metro", {"sessionId": sid, "action": "stop"}))
            self.assertEqual((r["stopped"], r["pid"], r["reverseRemoved"]), (True, pid, True), r)
            self.assertFalse(group_alive(pid), "Metro's process group outlived stop")
            self.assertEqual(rev_list(env).strip(), "")
            self.assertEqual(self.processes(), [])
            self.assertTrue(r.get("logUri", "").startswith("swipium://"), r)
            self.assertRegex(r["logUri"], r"/metro-\d{3}\.log$", "the log is named <stem>-NNN.log")
            st = sc(s.tool("qa_metro", {"sessionId": sid, "action": "status"}))
            self.assertEqual((st["metroListening"], st["ready"], st["metroPid"]), (False, False, None), st)
            # stopping again signals nothing
            r = sc(s.tool("qa_metro", {"sessionId": sid, "action": "stop"}))
            self.assertEqual((r["stopped"], r["pid"]), (False, None), r)

    def test_refused_reverse_is_metro_failed_and_starts_nothing(self):
        with VDeviceEnv(device_args=("--busy-port", str(self.port))) as env:
            s = self.server(env, PREAPPROVE)
            sid = self.session(s)
            r = s.tool("qa_metro", {"sessionId": sid, "action": "start"})
            c = sc(r)
            self.assertTrue(r["result"]["isError"], c)
            self.assertEqual(c["failureCode"], "METRO_FAILED", c)
            self.assertIn("Address already in use", c["what"])
            self.assertEqual(self.ncalls_list(), [], "Metro was started although the reverse failed")
            self.assertEqual(self.processes(), [])
            self.assertFalse(c["changedState"], c)

    def test_metro_that_never_answers_is_not_serving_in_bounded_time(self):
        with VDeviceEnv() as env:
            s = self.server(env, dict(PREAPPROVE, STANDIN_METRO_MODE="silent"))
            sid = self.session(s)
            r = sc(s.tool("qa_metro", {"sessionId": sid, "action": "start"}, timeout=60))
            self.assertTrue(r["started"], r)
            self.assertFalse(r["serving"], r)
            t0 = time.monotonic()
            st = sc(s.tool("qa_metro", {"sessionId": sid, "action": "status"}))
            self.assertLess(time.monotonic() - t0, 15)
            self.assertTrue(st["metroListening"], st)
            self.assertFalse(st["serving"], st)
            self.assertFalse(st["ready"], st)
            self.assertIn("servingProblem", st)
            d = sc(s.tool("qa_metro", {"sessionId": sid, "action": "diagnose"}))
            self.assertIn("redBox", d)
            self.assertIsInstance(d["logEvidence"], list)
            self.assertTrue(any("not a running Metro" in x for x in d["recovery"]), d)
            sc(s.tool("qa_metro", {"sessionId": sid, "action": "stop"}))

    def test_port_taken_by_something_else(self):
        class NotMetro(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *a):
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), NotMetro)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        try:
            with VDeviceEnv() as env:
                s = self.server(env, PREAPPROVE)
                sid = self.session(s)
                c = sc(s.tool("qa_metro", {"sessionId": sid, "action": "start"}))
                self.assertEqual(c["failureCode"], "METRO_FAILED", c)
                self.assertIn("not a running Metro", c["what"])
                self.assertEqual(self.ncalls_list(), [])
                self.assertEqual(rev_list(env).strip(), "")
        finally:
            httpd.shutdown()
            httpd.server_close()

    def test_metro_that_exits_at_once(self):
        with VDeviceEnv() as env:
            s = self.server(env, dict(PREAPPROVE, STANDIN_METRO_MODE="crash", STANDIN_METRO_PRINT="tok_9f8e7d6c5b4a"))
            sid = self.session(s)
            r = s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                                    "values": {"password": "tok_9f8e7d6c5b4a"}})
            self.assertFalse(r["result"].get("isError"), r)
            c = sc(s.tool("qa_metro", {"sessionId": sid, "action": "start"}))
            self.assertEqual(c["failureCode"], "METRO_FAILED", c)
            self.assertIn("metro-config", c["what"])
            self.assertEqual(rev_list(env).strip(), "", "the reverse was left behind")
            self.assertEqual(self.processes(), [])
            st = sc(s.tool("qa_metro", {"sessionId": sid, "action": "status"}))
            self.assertIsNone(st["metroPid"])
            self.assertNotIn("tok_9f8e7d6c5b4a", json.dumps(c))
            for root, _, files in os.walk(os.path.join(self.home, ".swipium")):
                for f in files:
                    with open(os.path.join(root, f), "rb") as fh:
                        self.assertNotIn(b"tok_9f8e7d6c5b4a", fh.read(), f)

    def test_not_a_react_native_project(self):
        with open(os.path.join(self.project, "package.json"), "w") as f:
            json.dump({"name": "web", "dependencies": {"react": "18.2.0"}}, f)
        with VDeviceEnv() as env:
            s = self.server(env, PREAPPROVE)
            sid = self.session(s)
            c = sc(s.tool("qa_metro", {"sessionId": sid, "action": "start"}))
            self.assertEqual(c["failureCode"], "UNSUPPORTED_FRAMEWORK", c)
            self.assertEqual(self.ncalls_list(), [])

    def test_server_shutdown_stops_metro(self):
        with VDeviceEnv() as env:
            s = self.server(env, PREAPPROVE)
            sid = self.session(s)
            r = sc(s.tool("qa_metro", {"sessionId": sid, "action": "start"}))
            pid = r["metroPid"]
            self.assertTrue(alive(pid))
            # a second start while it runs starts nothing new
            again = sc(s.tool("qa_metro", {"sessionId": sid, "action": "start"}))
            self.assertEqual((again["started"], again["metroPid"]), (False, pid), again)
            self.assertEqual(len(self.ncalls_list()), 1)
            s.close()
            self.servers.remove(s)
            deadline = time.monotonic() + 15
            while group_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            self.assertFalse(group_alive(pid), "Metro outlived the server")
            self.assertEqual(rev_list(env).strip(), "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
