"""mcpclient.py: a tiny raw JSON-RPC driver for swipium-mcp used by the protocol tests (no SDK on purpose)."""
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

SERVER = os.environ.get("SWIPIUM_MCP", "swipium-mcp")
# e.g. SWIPIUM_MCP_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full" runs every server under valgrind
WRAPPER = os.environ.get("SWIPIUM_MCP_WRAPPER", "").split()
LEGACY_VERSION = "2025-11-25"
ERA_2026 = "2026-07-28"


SANITIZER_LINE = re.compile(r"==\d+==ERROR: (AddressSanitizer|LeakSanitizer)|^\S+:\d+:\d+: runtime error: ", re.M)


def pass_on_sanitizer_reports(text):
    """A sanitizer report a server printed to its stderr (log_path not honoured) goes to the test's own
    stderr, so that it is in the test log scripts/sanitizer-reports.py counts instead of lost in a pipe."""
    if text and SANITIZER_LINE.search(text):
        sys.stderr.write("---- server stderr with a sanitizer report ----\n%s\n---- end ----\n" % text)
        sys.stderr.flush()


def read_what_is_there(pipe):
    """What a dead process left in @pipe, without waiting on a descendant that may still hold it open."""
    chunks = []
    try:
        os.set_blocking(pipe.fileno(), False)
        while True:
            b = pipe.read(65536)
            if not b:
                break
            chunks.append(b)
    except (OSError, ValueError, TypeError):
        pass
    return b"".join(chunks).decode("utf-8", "replace")


class Server:
    """One swipium-mcp process driven over its stdin/stdout pipes."""

    def __init__(self, env=None, args=None):
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        self.proc = subprocess.Popen(WRAPPER + [SERVER] + (args or []), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=full_env)
        self.buf = b""
        self.raw_lines = []  # every stdout line, for the "only protocol on stdout" checks
        self.next_id = 1000

    # ---- sending ----
    def send_raw(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg):
        self.send_raw(json.dumps(msg).encode() + b"\n")

    def request(self, method, params=None, id=None):
        if id is None:
            self.next_id += 1
            id = self.next_id
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    # ---- receiving ----
    def read_line(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from swipium-mcp")
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if not r:
                continue
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise EOFError("swipium-mcp closed stdout")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        self.raw_lines.append(line)
        return json.loads(line)

    def wait_for(self, id, timeout=30.0, on_other=None):
        """Reads messages until the response with @id; other messages go to on_other (or are kept)."""
        while True:
            msg = self.read_line(timeout)
            if msg.get("id") == id and ("result" in msg or "error" in msg):
                return msg
            if on_other:
                on_other(msg)

    def call(self, method, params=None, timeout=30.0):
        return self.wait_for(self.request(method, params), timeout)

    def initialize(self, version=LEGACY_VERSION, capabilities=None):
        r = self.call("initialize", {"protocolVersion": version, "capabilities": capabilities or {},
                                     "clientInfo": {"name": "swipium-tests", "version": "1"}})
        self.notify("notifications/initialized")
        return r

    def tool(self, name, arguments=None, timeout=60.0):
        return self.call("tools/call", {"name": name, "arguments": arguments or {}}, timeout)

    def close(self, timeout=30):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            rest = self.proc.stdout.read()
        except ValueError:
            rest = b""
        self.buf += rest or b""
        for line in self.buf.split(b"\n"):
            if line:
                self.raw_lines.append(line)
        self.buf = b""
        code = self.proc.wait(timeout)
        self.stderr = self.proc.stderr.read().decode("utf-8", "replace")
        pass_on_sanitizer_reports(self.stderr)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code

    def assert_stdout_protocol_only(self, testcase):
        for line in self.raw_lines:
            msg = json.loads(line)  # raises on a non-JSON line
            testcase.assertEqual(msg.get("jsonrpc"), "2.0", line[:200])


def meta(caps=None):
    return {"io.modelcontextprotocol/protocolVersion": ERA_2026,
            "io.modelcontextprotocol/clientCapabilities": caps if caps is not None else {}}


class ServerTestCase(unittest.TestCase):
    """A private HOME with an app project in it, and every server started by server() killed and closed
    after the test. Subclasses set server_env for the variables their servers must (not) see."""

    home_prefix = "swipium-mcp-home-"
    server_env = {}

    def setUp(self):
        self.home = tempfile.mkdtemp(prefix=self.home_prefix)
        self.app = os.path.join(self.home, "app")
        os.makedirs(self.app)
        with open(os.path.join(self.app, "package.json"), "w") as f:
            f.write("{}")
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            if s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait()
            if s.proc.stderr and not s.proc.stderr.closed:
                pass_on_sanitizer_reports(read_what_is_there(s.proc.stderr))
            for f in (s.proc.stdin, s.proc.stdout, s.proc.stderr):
                try:
                    f.close()
                except Exception:
                    pass
        shutil.rmtree(self.home, ignore_errors=True)

    def server(self, env=None):
        e = {"HOME": self.home}
        e.update(self.server_env)
        e.update(env or {})
        s = Server(env=e)
        self.servers.append(s)
        return s
