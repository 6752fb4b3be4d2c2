"""Process hardening of the two binaries (issue 11 item 5, docs/threat-model.md): a crash of swipium-mcp or
swipium never writes a core file (it would hold secrets, in the working directory, usually the repository).
Both set RLIMIT_CORE to 0 and clear PR_SET_DUMPABLE at start; checked on the running processes through
/proc/<pid>/limits and the ownership of /proc/<pid>/status (the kernel gives a non-dumpable process's /proc
files to root), with the process run as an unprivileged user when the tests run as root."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "mcp"))

MCP = os.environ.get("SWIPIUM_MCP")
CLI = os.environ.get("SWIPIUM_CLI")
NOBODY = 65534


def core_limits(pid):
    with open("/proc/%d/limits" % pid) as f:
        for line in f:
            if line.startswith("Max core file size"):
                return line.split()[4:6]
    raise AssertionError("no core limit line in /proc/%d/limits" % pid)


class CoreDumps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-harden-")
        os.chmod(self.tmp, 0o777)
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, argv, **kw):
        """Starts @argv as an unprivileged user when running as root (so /proc ownership tells dumpability),
        with a soft core limit that would allow a core file."""
        prefix = []
        if os.getuid() == 0:
            if not shutil.which("setpriv"):
                self.skipTest("setpriv is needed to drop root for this check")
            prefix = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups"]
        env = dict(os.environ, HOME=self.tmp)

        def allow_cores():
            import resource
            resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

        p = subprocess.Popen(prefix + argv, cwd=self.tmp, env=env, preexec_fn=allow_cores, **kw)
        self.procs.append(p)
        return p

    def wait_started(self, p, argv0):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with open("/proc/%d/cmdline" % p.pid, "rb") as f:
                    cmd = f.read().split(b"\0")[0]
                if os.path.basename(cmd.decode()) == os.path.basename(argv0):
                    # the process runs the binary (setpriv has exec'd it); give main() a moment to start
                    time.sleep(0.3)
                    return
            except OSError:
                pass
            time.sleep(0.05)
        self.fail("%s did not start" % argv0)

    def assert_hardened(self, p):
        self.assertEqual(core_limits(p.pid), ["0", "0"])
        st = os.stat("/proc/%d/status" % p.pid)
        with open("/proc/%d/status" % p.pid) as f:
            uid = int([line for line in f if line.startswith("Uid:")][0].split()[1])
        if uid == 0:
            self.skipTest("cannot tell dumpability of a root process")
        self.assertEqual(st.st_uid, 0, "/proc/<pid>/status still belongs to the process: PR_SET_DUMPABLE is not 0")

    def assert_no_core_after_crash(self, p):
        p.send_signal(signal.SIGSEGV)
        p.wait(10)
        self.assertEqual(p.returncode, -signal.SIGSEGV)
        self.assertEqual([f for f in os.listdir(self.tmp) if f.startswith("core")], [])

    @unittest.skipUnless(MCP, "SWIPIUM_MCP is not set (run through meson test)")
    def test_server(self):
        p = self.start([MCP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.wait_started(p, MCP)
        self.assert_hardened(p)
        self.assert_no_core_after_crash(p)

    @unittest.skipUnless(CLI, "SWIPIUM_CLI is not set (run through meson test)")
    def test_cli(self):
        fifo = os.path.join(self.tmp, "report.json")
        os.mkfifo(fifo)
        os.chmod(fifo, 0o666)
        # `swipium report <fifo>` blocks opening the FIFO: the CLI is alive long enough to look at
        p = self.start([CLI, "report", "--format", "json", "--report", fifo], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_started(p, CLI)
        self.assert_hardened(p)
        self.assert_no_core_after_crash(p)


if __name__ == "__main__":
    unittest.main(verbosity=2)
