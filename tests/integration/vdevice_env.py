"""vdevice_env: a private adb server plus virtual Android devices, for tests and demos.

The fixture every Android test uses. It never touches the developer's adb server or
devices: each environment gets its own adb server port (ANDROID_ADB_SERVER_PORT, a free
port), its own HOME and TMPDIR (a temporary directory), and ADB_EMU=0 so the server does
not scan the 5555-5585 emulator ports.

Use from Python (run with /usr/bin/python3; put tests/integration on sys.path):

    from vdevice_env import VDeviceEnv

    with VDeviceEnv(app="login") as env:          # app: a name in tests/vdevice/apps or a path
        env.serial                                 # "emulator-NNNN"
        env.adb("shell", "getprop", "ro.kernel.qemu")   # CompletedProcess (bytes), real adb
        rc, out, err = env.shell("echo hi")        # text helpers
        env.env                                    # dict: os.environ + the private variables;
                                                   # pass it to any subprocess (swipium, node...)
        second = env.add_device(app="list")        # another device on the same server
        phys = env.add_device(app="login", physical=True)   # serial 127.0.0.1:<port>, real-phone props
        env.device.stop()                          # the device vanishes (SIGTERM)
        env.server.kill()                          # the adb server dies

    VDeviceEnv(app=..., device_args=["--dump", "garbage"])  # hostile options, see `vdevice --help`
    VDeviceEnv(app=..., console_token="secret")   # writes $HOME/.emulator_console_auth_token

Use from a shell (the demo and manual checks):

    /usr/bin/python3 tests/integration/vdevice_env.py --app login -- swipium ...   # runs the command
    /usr/bin/python3 tests/integration/vdevice_env.py --app login                  # prints env, waits

The command sees ANDROID_ADB_SERVER_PORT, HOME, TMPDIR, ADB_EMU and VDEVICE_SERIAL.
Everything is torn down on exit, including on errors and SIGTERM; the adb server (run as
`adb nodaemon server`) and the vdevices are children that get SIGTERM if the test process dies.

Locating things: the vdevice binary is $VDEVICE_BIN, else $SWIPIUM_BUILD_ROOT/tests/vdevice/vdevice,
else the first build*/tests/vdevice/vdevice under the source tree. adb is $VDEVICE_ADB or `adb` on PATH.
Device logs (vdevice stdout/stderr) go to the private directory, or to $VDEVICE_LOG_DIR when set.
"""

import glob
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
APPS_DIR = os.path.join(SOURCE_ROOT, "tests", "vdevice", "apps")
START_TIMEOUT = 30.0


class VDeviceError(RuntimeError):
    """The environment could not be set up (message says what failed and shows the logs)."""


def find_vdevice():
    cands = []
    if os.environ.get("VDEVICE_BIN"):
        cands.append(os.environ["VDEVICE_BIN"])
    if os.environ.get("SWIPIUM_BUILD_ROOT"):
        cands.append(os.path.join(os.environ["SWIPIUM_BUILD_ROOT"], "tests", "vdevice", "vdevice"))
    cands += sorted(glob.glob(os.path.join(SOURCE_ROOT, "build*", "tests", "vdevice", "vdevice")),
                    key=lambda p: -os.path.getmtime(p))
    for c in cands:
        if os.access(c, os.X_OK):
            return c
    raise VDeviceError("vdevice binary not found: build the project (ninja -C build) or set VDEVICE_BIN")


def find_app(app):
    if os.path.sep in app or app.endswith((".yaml", ".yml")):
        path = app
    else:
        path = os.path.join(APPS_DIR, app + ".yaml")
    if not os.path.isfile(path):
        raise VDeviceError("app model not found: %s (names in %s, or a path to a YAML file)" % (path, APPS_DIR))
    return os.path.abspath(path)


def free_port():
    """A free loopback port outside 5554-5585 (the adb server's emulator scan range)."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 5554 <= port <= 5585:
            return port
    raise VDeviceError("no free port found")


def _die_with_parent():
    """preexec_fn: the child gets SIGTERM when the test process dies, so nothing outlives a killed run."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _port_open(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def _tail(path, n=4000):
    try:
        with open(path, "rb") as f:
            data = f.read()
        return data[-n:].decode("utf-8", "replace")
    except OSError:
        return ""


class AdbServer:
    """A private adb server: its own port, HOME and TMPDIR."""

    def __init__(self, root=None, adb=None):
        self.adb_path = adb or os.environ.get("VDEVICE_ADB") or shutil.which("adb")
        if not self.adb_path:
            raise VDeviceError("adb not found: install the Debian package 'adb' (scripts/install-deps.sh)")
        self._own_root = root is None
        self.root = root or tempfile.mkdtemp(prefix="vdevice-env-")
        self.home = os.path.join(self.root, "home")
        self.tmp = os.path.join(self.root, "tmp")
        os.makedirs(self.home, exist_ok=True)
        os.makedirs(self.tmp, exist_ok=True)
        self.port = free_port()
        self.env = dict(os.environ)
        self.env.update({
            "ANDROID_ADB_SERVER_PORT": str(self.port),
            "HOME": self.home,
            "TMPDIR": self.tmp,
            "ADB_EMU": "0",
        })
        # A developer's ANDROID_SERIAL must not pick a device for our tests.
        self.env.pop("ANDROID_SERIAL", None)
        self.env.pop("ADB_VENDOR_KEYS", None)
        self.started = False
        self.proc = None
        self.log = os.path.join(self.root, "adb-server.log")

    def adb(self, *args, input=None, timeout=60, check=False):
        """Runs the real adb client against this server; returns CompletedProcess with bytes."""
        r = subprocess.run([self.adb_path] + [str(a) for a in args], input=input, env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           stdin=None if input is not None else subprocess.DEVNULL)
        if check and r.returncode != 0:
            raise VDeviceError("adb %s failed (%d): %s" % (" ".join(map(str, args)), r.returncode,
                                                          r.stderr.decode("utf-8", "replace")))
        return r

    def start(self):
        """Runs `adb nodaemon server` as our child (it dies with the test process)."""
        if not _port_open(self.port):
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen([self.adb_path, "nodaemon", "server"], env=self.env,
                                             stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                             preexec_fn=_die_with_parent)
            deadline = time.monotonic() + START_TIMEOUT
            while not _port_open(self.port):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise VDeviceError("adb server did not start:\n" + _tail(self.log))
                time.sleep(0.05)
        # else: an adb client started a daemon on our port (any adb command does when no server
        # answers); it has our environment, so it is adopted and stopped with kill-server.
        self.started = True
        return self

    def devices(self):
        """{serial: state} as `adb devices` prints it."""
        r = self.adb("devices", timeout=30)
        out = {}
        for line in r.stdout.decode("utf-8", "replace").splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 2:
                out[parts[0]] = parts[1]
        return out

    def kill(self):
        """Stops the server (as `adb kill-server` does); tests use it to simulate a dead server."""
        if self.started:
            try:
                self.adb("kill-server", timeout=30)
            except (subprocess.TimeoutExpired, OSError):
                pass
            self.started = False
        if self.proc:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def cleanup(self):
        self.kill()
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)


class VirtualDevice:
    """One vdevice process announced to an AdbServer."""

    def __init__(self, server, app="login", physical=False, args=(), name=None):
        self.server = server
        self.app = find_app(app)
        self.physical = physical
        self.args = list(args)
        self.name = name or "device%d" % id(self)
        self.proc = None
        self.serial = None
        self.port = None
        # VDEVICE_LOG_DIR keeps device logs after teardown (debugging, sanitizer reports).
        log_dir = os.environ.get("VDEVICE_LOG_DIR") or server.root
        self.log = os.path.join(log_dir, "%s-%d.log" % (self.name, os.getpid()))

    def start(self):
        binary = find_vdevice()
        rfd, wfd = os.pipe()
        cmd = [binary, "--app", self.app, "--ready-fd", str(wfd), "--adb-server-port", str(self.server.port)]
        if self.physical:
            cmd += ["--physical", "--announce", "connect"]
        cmd += self.args
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, env=self.server.env, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, pass_fds=(wfd,), preexec_fn=_die_with_parent)
        os.close(wfd)
        line = b""
        deadline = time.monotonic() + START_TIMEOUT
        try:
            while time.monotonic() < deadline and not line.endswith(b"\n"):
                ready, _, _ = select.select([rfd], [], [], 0.2)
                if ready:
                    chunk = os.read(rfd, 256)
                    if not chunk:
                        break
                    line += chunk
                elif self.proc.poll() is not None:
                    break
        finally:
            os.close(rfd)
        if not line.endswith(b"\n"):
            self.stop()
            raise VDeviceError("vdevice did not start:\n" + _tail(self.log))
        port, serial = line.decode().split()
        self.port, self.serial = int(port), serial
        self.wait_state("device")
        return self

    def wait_state(self, state="device", timeout=START_TIMEOUT):
        """Waits until `adb devices` lists this device in @state."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.server.devices().get(self.serial) == state:
                return
            if self.proc and self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise VDeviceError("device %s never became '%s' (devices: %r)\n%s" % (
            self.serial, state, self.server.devices(), _tail(self.log)))

    @property
    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM):
        """Ends the device process; the adb server then drops it (it disappears)."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.physical and self.serial and self.server.started:
            self.server.adb("disconnect", self.serial, timeout=30)
        return self.proc.returncode if self.proc else None

    def adb(self, *args, **kw):
        return self.server.adb("-s", self.serial, *args, **kw)

    def shell(self, cmd, timeout=60):
        """(exit code, stdout text, stderr text) of `adb -s SERIAL shell CMD`."""
        r = self.adb("shell", cmd, timeout=timeout)
        return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


class VDeviceEnv:
    """A private adb server with one virtual device (more with add_device). Context manager."""

    def __init__(self, app="login", physical=False, device_args=(), console_token=None):
        self.server = AdbServer()
        self.devices = []
        self._first = dict(app=app, physical=physical, args=device_args)
        if console_token is not None:
            with open(os.path.join(self.server.home, ".emulator_console_auth_token"), "w") as f:
                f.write(console_token)

    def __enter__(self):
        try:
            self.server.start()
            self.device = self.add_device(**self._first)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def add_device(self, app="login", physical=False, args=()):
        d = VirtualDevice(self.server, app=app, physical=physical, args=args, name="device%d" % len(self.devices))
        self.devices.append(d)
        return d.start()

    @property
    def serial(self):
        return self.device.serial

    @property
    def env(self):
        e = dict(self.server.env)
        e["VDEVICE_SERIAL"] = self.device.serial
        return e

    def adb(self, *args, **kw):
        return self.device.adb(*args, **kw)

    def shell(self, cmd, timeout=60):
        return self.device.shell(cmd, timeout)

    def close(self):
        for d in self.devices:
            try:
                d.stop()
            except Exception:
                pass
        self.server.cleanup()


def main(argv):
    import argparse
    p = argparse.ArgumentParser(description="Run a command against a private adb server and a virtual device.")
    p.add_argument("--app", default="login", help="app model name in tests/vdevice/apps or a YAML path")
    p.add_argument("--physical", action="store_true", help="a physical-looking device (serial 127.0.0.1:PORT)")
    p.add_argument("--device-arg", action="append", default=[], help="extra vdevice option (repeatable)")
    p.add_argument("--console-token", default=None, help="write this emulator console auth token")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- command to run with the environment")
    a = p.parse_args(argv)
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with VDeviceEnv(app=a.app, physical=a.physical, device_args=a.device_arg, console_token=a.console_token) as env:
        if cmd:
            return subprocess.call(cmd, env=env.env)
        for k in ("ANDROID_ADB_SERVER_PORT", "HOME", "TMPDIR", "ADB_EMU", "VDEVICE_SERIAL"):
            print("export %s=%s" % (k, env.env[k]))
        sys.stdout.flush()
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
