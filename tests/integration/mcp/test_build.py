"""test_build.py: qa_build through a real swipium-mcp. Plans for real project layouts (npm templates in
tests/data/apptrees); runs whose gradlew, flutter, xcodebuild and pod are stand-ins that replay real build logs
(tests/data/buildlogs, each with its expected code); the real npm against a dead loopback registry; consent
(envelope, approve:false, pre-approval); hostile builds: a step that hangs with a child (timeout and cancel: the
whole process group gone, checked in /proc), a grandchild holding stdout, a registered secret printed by the
build (absent from every result, the log artifact and every file; the log still there), a wrapper that exits 0
and writes nothing, a missing tool."""
import json
import os
import shutil
import signal
import socket
import stat
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mcpclient import ServerTestCase  # noqa: E402
import apkgen as g  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
APPTREES = os.path.join(SOURCE, "tests", "data", "apptrees")
LOGS = os.path.join(SOURCE, "tests", "data", "buildlogs")
SECRET = "hunter2-Sw1p-build-9f3c"

# A stand-in for a build tool: when its arguments contain $SWB_ON it replays $SWB_LOG, copies $SWB_APK to
# $SWB_WRITE (relative to its folder) and exits $SWB_EXIT; any other call (pub get, pod install...) exits 0.
# Every call is appended to $SWB_TRACE.
STANDIN = r"""#!/bin/sh
echo "$(basename "$0") $*" >> "$SWB_TRACE"
case " $* " in
  *"$SWB_ON"*)
    [ -n "$SWB_LOG" ] && cat "$SWB_LOG"
    if [ -n "$SWB_WRITE" ]; then mkdir -p "$(dirname "$SWB_WRITE")" && cp "$SWB_APK" "$SWB_WRITE"; fi
    exit ${SWB_EXIT:-0} ;;
esac
exit 0
"""

# A step that hangs: a child that ignores SIGTERM and holds stdout, and the step itself sleeping.
HANG = r"""#!/bin/sh
echo "$(basename "$0") $*" >> "$SWB_TRACE"
sh -c 'trap "" TERM; echo child up; exec sleep 300' &
echo "step up $SWB_MARK"
sleep 300
"""

# A step that ignores SIGTERM itself: only the SIGKILL 5 s later ends it.
STUBBORN = r"""#!/bin/sh
trap '' TERM
sh -c 'trap "" TERM; exec sleep 300' &
echo "stubborn up"
while :; do sleep 1; done
"""

# A step that ends at once but leaves two grandchildren holding its stdout: one in its process group, one
# that left it (setsid). Writes nothing.
LEAVES = r"""#!/bin/sh
echo "$(basename "$0") $*" >> "$SWB_TRACE"
sleep 300 &
setsid sleep 301 &
echo "wrapper done, nothing written"
exit 0
"""


def sc(r):
    return r["result"]["structuredContent"]


def marked_pids(mark, servers=()):
    """Processes whose environment holds SWB_MARK=<mark> (read from /proc), the servers themselves left out."""
    out = []
    skip = {str(s.proc.pid) for s in servers}
    for p in os.listdir("/proc"):
        if not p.isdigit() or p in skip:
            continue
        try:
            with open(f"/proc/{p}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{p}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and f"SWB_MARK={mark}".encode() in env.split(b"\0"):
            out.append(int(p))
    return out


def dead_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there any more
    return port


class Base(ServerTestCase):
    home_prefix = "swipium-build-"
    server_env = {"SWIPIUM_CONSENT_PREAPPROVE": "", "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE": "",
                  "SWIPIUM_REQUIRE_ELICITATION": "", "SWIPIUM_PROJECT_ROOT": "", "CLAUDE_PROJECT_DIR": ""}

    def setUp(self):
        super().setUp()
        self.bin = os.path.join(self.home, "bin")
        os.makedirs(self.bin)
        self.trace = os.path.join(self.home, "trace.txt")
        self.mark = "m%d-%d" % (os.getpid(), int(time.time() * 1000))
        self.apk = os.path.join(self.home, "built.apk")
        g.write_apk(self.apk, g.manifest("com.helloworld", [("versionCode", g.T_INT_DEC, 1),
                                                            ("versionName", g.T_STRING, "1.0")],
                                         [("minSdkVersion", g.T_INT_DEC, 24)]))
        self.addCleanup(self.kill_marked)

    def kill_marked(self):
        for pid in marked_pids(self.mark, [s for s in self.servers if s.proc.poll() is None]):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def script(self, path, text=STANDIN):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)

    def tool_standin(self, name, text=STANDIN):
        self.script(os.path.join(self.bin, name), text)

    def project(self, tree, name="proj"):
        dst = os.path.join(self.home, name)
        shutil.copytree(os.path.join(APPTREES, tree), dst)
        return dst

    def flutter_project(self):
        # hand-written: the smallest Flutter app layout (pubspec.yaml and lib/main.dart)
        dst = os.path.join(self.home, "flutterapp")
        os.makedirs(os.path.join(dst, "lib"))
        with open(os.path.join(dst, "pubspec.yaml"), "w") as f:
            f.write("name: demo\nenvironment:\n  sdk: '>=3.0.0 <4.0.0'\ndependencies:\n  flutter:\n    sdk: flutter\n")
        with open(os.path.join(dst, "lib", "main.dart"), "w") as f:
            f.write("void main() {}\n")
        return dst

    def ios_project(self, rn):
        # the React Native template's ios/ folder plus a Podfile (the npm package ships one; not copied)
        with open(os.path.join(rn, "ios", "Podfile"), "w") as f:
            f.write("target 'HelloWorld' do\nend\n")

    def env(self, **extra):
        e = {"PATH": self.bin + ":/usr/bin:/bin", "SWB_TRACE": self.trace, "SWB_MARK": self.mark,
             "SWB_APK": self.apk}
        e.update(extra)
        return e

    def start(self, **env):
        s = self.server(self.env(**env))
        s.initialize()
        return s

    def session(self, s, root):
        r = s.tool("qa_start_session", {"projectRoot": root})
        return sc(r)["sessionId"]

    def traced(self):
        if not os.path.exists(self.trace):
            return []
        with open(self.trace) as f:
            return f.read().splitlines()

    def run_build(self, s, sid, platform="android", **args):
        args.update({"sessionId": sid, "mode": "run", "platform": platform})
        r = s.tool("qa_build", args)
        return sc(r), r["result"].get("isError", False)

    def wait(self, s, sid, job, limit=120):
        deadline = time.monotonic() + limit
        while True:
            st = sc(s.tool("qa_job_status", {"sessionId": sid, "jobId": job, "waitMs": 20000}, timeout=60))
            if st["status"] != "running" or time.monotonic() > deadline:
                return st
            
    def read_log(self, s, uri):
        r = s.tool("qa_get_artifact", {"uri": uri})
        self.assertFalse(r["result"].get("isError"), r)
        path = sc(r)["path"]
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace"), path


class Plan(Base):
    def test_plan_bare_react_native_runs_nothing(self):
        rn = self.project("rn-community-template")
        self.script(os.path.join(rn, "android", "gradlew"))
        self.tool_standin("npm")
        before = sorted((p, os.stat(os.path.join(p, f)).st_mtime_ns) for p, _, fs in os.walk(self.home) for f in fs)
        s = self.start()
        names = [t["name"] for t in s.call("tools/list")["result"]["tools"]]
        self.assertIn("qa_build", names)
        r = s.tool("qa_build", {"projectRoot": rn, "platform": "android"})
        self.assertFalse(r["result"].get("isError"), r)
        p = sc(r)["plan"]
        self.assertEqual(p["framework"], "bare-react-native")
        steps = p["prerequisites"] + p["build"]
        self.assertEqual([(st["argv"], st["cwd"]) for st in steps],
                         [(["npm", "install"], rn), (["./gradlew", "assembleDebug"], os.path.join(rn, "android"))])
        self.assertTrue(p["toolchainOk"])
        self.assertIn("./gradlew assembleDebug (in %s/android)" % rn, r["result"]["content"][0]["text"])
        self.assertEqual(self.traced(), [])  # nothing ran
        s.close()
        after = sorted((p, os.stat(os.path.join(p, f)).st_mtime_ns) for p, _, fs in os.walk(self.home) for f in fs
                       if not p.startswith(os.path.join(self.home, ".swipium")))
        self.assertEqual([x for x in before], [x for x in after])

    def test_plan_expo_and_refusals(self):
        expo = self.project("expo-template-tabs")
        self.tool_standin("npm")
        self.tool_standin("npx")
        s = self.start()
        p = sc(s.tool("qa_build", {"projectRoot": expo, "platform": "android"}))["plan"]
        self.assertEqual([st["command"] for st in p["prerequisites"] + p["build"]],
                         ["npm install", "npx expo prebuild --platform android --no-install", "./gradlew assembleDebug"])
        # a malformed android/ folder: EXPO_PREBUILD_REQUIRED, and the folder is left as it was
        os.makedirs(os.path.join(expo, "android", "app"))
        with open(os.path.join(expo, "android", "app", "build.gradle"), "w") as f:
            f.write("// half\n")
        r = s.tool("qa_build", {"projectRoot": expo, "platform": "android"})
        e = sc(r)
        self.assertEqual(e["failureCode"], "EXPO_PREBUILD_REQUIRED", e)
        self.assertTrue(any("npx expo prebuild --platform android --clean" in x for x in e["nextSteps"]), e)
        self.assertTrue(os.path.exists(os.path.join(expo, "android", "app", "build.gradle")))
        # no tool: BUILD_COMMAND_UNAVAILABLE with the plan; unknown layout: UNSUPPORTED_FRAMEWORK
        fl = self.flutter_project()
        e = sc(s.tool("qa_build", {"projectRoot": fl, "platform": "android"}))
        self.assertEqual(e["failureCode"], "BUILD_COMMAND_UNAVAILABLE", e)
        self.assertEqual(e["missingToolchain"], ["flutter"])
        self.assertEqual(e["plan"]["build"][0]["argv"], ["flutter", "build", "apk", "--debug"])
        e = sc(s.tool("qa_build", {"projectRoot": self.app, "platform": "android"}))
        self.assertEqual(e["failureCode"], "UNSUPPORTED_FRAMEWORK", e)
        e = sc(s.tool("qa_build", {"mode": "run", "projectRoot": expo, "platform": "android"}))
        self.assertEqual(e["failureCode"], "INVALID_ARGUMENT", e)
        self.assertEqual(self.traced(), [])
        s.close()


class Consent(Base):
    def test_envelope_decline_then_approve(self):
        rn = self.project("rn-community-template")
        os.makedirs(os.path.join(rn, "node_modules"))
        self.script(os.path.join(rn, "android", "gradlew"))
        s = self.start(SWB_ON="assembleDebug", SWB_LOG=os.path.join(LOGS, "gradle-success.log"),
                       SWB_WRITE="app/build/outputs/apk/debug/app-debug.apk")
        sid = self.session(s, rn)
        env1, _ = self.run_build(s, sid)
        self.assertTrue(env1.get("requiresConsent"), env1)
        self.assertEqual(env1["action"], "build_from_source")
        self.assertEqual(env1["risk"], "high")
        self.assertIn("'./gradlew' 'assembleDebug' (in '%s/android')" % rn, env1["exactCommand"])
        # approve:false: declined, nothing ran
        e, err = self.run_build(s, sid, consentId=env1["consentId"], approve=False)
        self.assertTrue(err)
        self.assertEqual(e["failureCode"], "CONSENT_DECLINED", e)
        self.assertEqual(self.traced(), [])
        env2, _ = self.run_build(s, sid)
        job, _ = self.run_build(s, sid, consentId=env2["consentId"], approve=True)
        self.assertEqual(job["status"], "running", job)
        st = self.wait(s, sid, job["jobId"])
        self.assertEqual(st["status"], "done", st)
        res = st["result"]
        self.assertTrue(res["built"])
        self.assertEqual(res["artifact"]["appId"], "com.helloworld")
        self.assertEqual(res["artifact"]["path"], os.path.join(rn, "android/app/build/outputs/apk/debug/app-debug.apk"))
        text, _ = self.read_log(s, res["logUri"])
        self.assertIn("BUILD SUCCESSFUL in 41s", text)
        self.assertIn(res["logUri"], st["artifactUris"])
        self.assertEqual(self.traced(), ["gradlew assembleDebug"])
        s.close()

    def test_preapproval_needs_the_run_code_switch(self):
        rn = self.project("rn-community-template")
        os.makedirs(os.path.join(rn, "node_modules"))
        self.script(os.path.join(rn, "android", "gradlew"))
        s = self.start(SWIPIUM_CONSENT_PREAPPROVE="build_from_source")
        sid = self.session(s, rn)
        env1, _ = self.run_build(s, sid)
        self.assertTrue(env1.get("requiresConsent"), env1)  # RUN_CODE tier: not pre-approved without the switch
        s.close()
        s = self.start(SWIPIUM_CONSENT_PREAPPROVE="build_from_source", SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE="1")
        sid = self.session(s, rn)
        job, _ = self.run_build(s, sid)
        self.assertEqual(job["status"], "running", job)
        st = self.wait(s, sid, job["jobId"])
        # the stand-in wrote nothing: the build "succeeded" without an app
        self.assertEqual(st["status"], "failed", st)
        self.assertEqual(st["failureCode"], "BUILD_ARTIFACT_UNRESOLVED_AFTER_SUCCESS", st)
        s.close()


class Replayed(Base):
    """Every real log of tests/data/buildlogs replayed by the stand-in of the tool that printed it."""
    server_env = dict(Base.server_env, SWIPIUM_CONSENT_PREAPPROVE="build_from_source",
                      SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE="1")

    def test_each_log_gives_its_code(self):
        with open(os.path.join(LOGS, "expected.json")) as f:
            cases = [c for c in json.load(f)["logs"] if c["replay"]]
        self.assertGreaterEqual(len(cases), 10)
        for c in cases:
            with self.subTest(log=c["log"], exit=c["exitStatus"]):
                self.one(c)

    def one(self, c):
        name = "p%d" % len(os.listdir(self.home))
        log = os.path.join(LOGS, c["log"])
        env = dict(SWB_LOG=log, SWB_EXIT=str(c["exitStatus"]))
        if c["replay"] == "gradlew":
            root = self.project("rn-community-template", name)
            os.makedirs(os.path.join(root, "node_modules"))
            self.script(os.path.join(root, "android", "gradlew"))
            env.update(SWB_ON="assembleDebug", SWB_WRITE="app/build/outputs/apk/debug/app-debug.apk")
            platform = "android"
        elif c["replay"] == "flutter":
            root = self.flutter_project()
            shutil.move(root, os.path.join(self.home, name))
            root = os.path.join(self.home, name)
            self.tool_standin("flutter")
            env.update(SWB_ON="build apk", SWB_WRITE="build/app/outputs/flutter-apk/app-debug.apk")
            platform = "android"
        else:
            root = self.project("rn-community-template", name)
            os.makedirs(os.path.join(root, "node_modules"))
            self.ios_project(root)
            self.tool_standin("pod")
            self.tool_standin("xcodebuild")
            env.update(SWB_ON="install" if c["replay"] == "pod" else "-scheme")
            platform = "ios"
        if c["exitStatus"] != 0:
            env["SWB_WRITE"] = ""
        s = self.start(**env)
        sid = self.session(s, root)
        job, _ = self.run_build(s, sid, platform=platform)
        st = self.wait(s, sid, job["jobId"])
        if c["code"] is None:
            self.assertEqual(st["status"], "done", st)
            self.assertTrue(st["result"]["built"], st)
        else:
            self.assertEqual(st["status"], "failed", st)
            self.assertEqual(st["result"]["failureCode"], c["code"], st)
            self.assertEqual(st["failureCode"], c["code"], st)
            self.assertFalse(st["result"]["built"])
            self.assertTrue(st["result"]["nextSteps"], st)
        text, _ = self.read_log(s, st["result"]["logUri"])
        with open(log, encoding="utf-8") as f:
            self.assertIn(f.read().strip(), text)  # the whole replayed log is in the build log
        s.close()


class Hostile(Base):
    server_env = dict(Base.server_env, SWIPIUM_CONSENT_PREAPPROVE="build_from_source",
                      SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE="1")

    def gradle_project(self, text):
        rn = self.project("rn-community-template")
        os.makedirs(os.path.join(rn, "node_modules"))
        self.script(os.path.join(rn, "android", "gradlew"), text)
        return rn

    def wait_gone(self, limit=15):
        deadline = time.monotonic() + limit
        while marked_pids(self.mark, self.servers) and time.monotonic() < deadline:
            time.sleep(0.1)
        return marked_pids(self.mark, self.servers)

    def test_hang_times_out_and_the_whole_group_goes(self):
        rn = self.gradle_project(HANG)
        s = self.start()
        sid = self.session(s, rn)
        t0 = time.monotonic()
        job, _ = self.run_build(s, sid, timeoutMs=1500)
        deadline, seen = time.monotonic() + 10, 0
        while seen < 2 and time.monotonic() < deadline:
            seen = len(marked_pids(self.mark, self.servers))
            time.sleep(0.02)
        self.assertGreaterEqual(seen, 2)  # the step and its child run
        st = self.wait(s, sid, job["jobId"])
        took = time.monotonic() - t0
        self.assertEqual(st["status"], "failed", st)
        self.assertEqual(st["result"]["failureCode"], "BUILD_TIMED_OUT", st)
        self.assertTrue(st["result"]["timedOut"])
        # the child ignores SIGTERM: it goes with the SIGKILL 5 s later at the latest
        self.assertLess(took, 1.5 + 5 + 8, took)
        self.assertEqual(self.wait_gone(2), [])
        text, _ = self.read_log(s, st["result"]["logUri"])
        self.assertIn("step up", text)
        self.assertIn("child up", text)
        self.assertIn("ran past its 1500 ms limit", text)
        s.close()

    def test_a_step_that_ignores_sigterm_gets_sigkill_after_5_s(self):
        rn = self.gradle_project(STUBBORN)
        s = self.start()
        sid = self.session(s, rn)
        t0 = time.monotonic()
        job, _ = self.run_build(s, sid, timeoutMs=1000)
        st = self.wait(s, sid, job["jobId"])
        took = time.monotonic() - t0
        self.assertEqual(st["result"]["failureCode"], "BUILD_TIMED_OUT", st)
        self.assertGreaterEqual(took, 1.0 + 5.0 - 0.5, took)  # SIGTERM was ignored: the grace ran out
        self.assertLess(took, 1.0 + 5.0 + 8, took)
        self.assertEqual(self.wait_gone(2), [])
        self.assertEqual(st["result"]["steps"][0]["signal"], signal.SIGKILL, st)
        s.close()

    def test_cancel_stops_the_group(self):
        rn = self.gradle_project(HANG)
        s = self.start()
        sid = self.session(s, rn)
        job, _ = self.run_build(s, sid)
        # count until the step and its child are both seen (a process in the middle of exec can miss one
        # reading of /proc/<pid>/environ, so the count that passed is the one asserted)
        deadline, seen = time.monotonic() + 30, 0
        while seen < 2 and time.monotonic() < deadline:
            seen = len(marked_pids(self.mark, self.servers))
            time.sleep(0.05)
        self.assertGreaterEqual(seen, 2)
        st = sc(s.tool("qa_job_status", {"sessionId": sid, "jobId": job["jobId"]}))
        self.assertEqual(st["status"], "running", st)
        self.assertEqual(st["progress"], "step 1/1: build the Android app (Gradle wrapper)", st)
        self.assertEqual(st["progressDetail"]["statusText"], "./gradlew assembleDebug (in %s/android)" % rn, st)
        r = sc(s.tool("qa_job_cancel", {"sessionId": sid, "jobId": job["jobId"]}))
        self.assertTrue(r.get("cancelled", True), r)
        self.assertEqual(self.wait_gone(), [])
        st = sc(s.tool("qa_job_status", {"sessionId": sid, "jobId": job["jobId"]}))
        self.assertEqual(st["status"], "cancelled", st)
        s.close()

    def test_grandchildren_holding_stdout_and_nothing_written(self):
        rn = self.gradle_project(LEAVES)
        # an APK from an earlier build lies where Gradle writes: it is older than the build, so it does not count
        old = os.path.join(rn, "android/app/build/outputs/apk/debug/app-debug.apk")
        os.makedirs(os.path.dirname(old))
        shutil.copyfile(self.apk, old)
        os.utime(old, (time.time() - 3600, time.time() - 3600))
        s = self.start()
        sid = self.session(s, rn)
        t0 = time.monotonic()
        job, _ = self.run_build(s, sid)
        st = self.wait(s, sid, job["jobId"])
        self.assertLess(time.monotonic() - t0, 10)  # not the 300 s the grandchildren sleep
        self.assertEqual(st["status"], "failed", st)
        res = st["result"]
        self.assertEqual(res["failureCode"], "BUILD_ARTIFACT_UNRESOLVED_AFTER_SUCCESS", st)
        self.assertTrue(res["searchedLocations"], res)
        self.assertEqual(res["olderArtifacts"], [old])
        # the grandchild in the step's group is gone; the one that left the group (setsid) is not ours to kill
        left = [p for p in marked_pids(self.mark, self.servers)]
        cmds = []
        for p in left:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                cmds.append(f.read().replace(b"\0", b" ").strip().decode())
        self.assertNotIn("sleep 300", cmds)
        text, _ = self.read_log(s, res["logUri"])
        self.assertIn("wrapper done, nothing written", text)
        s.close()

    def test_secret_printed_by_the_build(self):
        rn = self.gradle_project("#!/bin/sh\necho \"signing with password %s and $(printf %%s '%s' | rev)\"\n"
                                 "echo 'FAILURE: Build failed with an exception.'\n"
                                 "echo \"* What went wrong: keystore password was incorrect (%s)\"\nexit 1\n"
                                 % (SECRET, SECRET[::-1], SECRET))
        s = self.start()
        sid = self.session(s, rn)
        r = s.tool("qa_continue_from_blocker", {"sessionId": sid, "kind": "credentials",
                                                "values": {"password": SECRET}})
        self.assertFalse(r["result"].get("isError"), r)
        job, _ = self.run_build(s, sid)
        r = s.tool("qa_job_status", {"sessionId": sid, "jobId": job["jobId"], "waitMs": 45000})
        st = sc(r)
        self.assertEqual(st["result"]["failureCode"], "GRADLE_FAILED", st)
        self.assertNotIn(SECRET, json.dumps(r))
        text, path = self.read_log(s, st["result"]["logUri"])
        self.assertIn("FAILURE: Build failed with an exception.", text)  # the log is still there
        self.assertIn("signing with password", text)
        self.assertNotIn(SECRET, text)
        s.close()
        for dirpath, _, files in os.walk(self.home):
            for fn in files:
                p = os.path.join(dirpath, fn)
                if p.startswith(rn + "/android/gradlew") or not os.path.isfile(p) or os.path.islink(p):
                    continue
                with open(p, "rb") as f:
                    self.assertNotIn(SECRET.encode(), f.read(), p)

    def test_wrapper_linked_out_of_the_project_is_not_run(self):
        rn = self.gradle_project(STANDIN)
        outside = os.path.join(self.home, "elsewhere-gradlew")
        self.script(outside)
        s = self.start()
        sid = self.session(s, rn)
        # the plan sees a real wrapper; it is swapped for a link out of the project before the run
        plan = sc(s.tool("qa_build", {"sessionId": sid, "platform": "android"}))["plan"]
        self.assertTrue(plan["toolchainOk"])
        gw = os.path.join(rn, "android", "gradlew")
        os.unlink(gw)
        os.symlink(outside, gw)
        r = sc(s.tool("qa_build", {"sessionId": sid, "mode": "run", "platform": "android"}))
        if r.get("jobId"):
            st = self.wait(s, sid, r["jobId"])
            self.assertEqual(st["result"]["failureCode"], "BUILD_COMMAND_UNAVAILABLE", st)
        else:  # the plan of the run call already refuses the linked wrapper
            self.assertEqual(r["failureCode"], "BUILD_COMMAND_UNAVAILABLE", r)
        self.assertEqual(self.traced(), [])
        s.close()

    def test_failed_prebuild_is_expo_prebuild_required(self):
        expo = self.project("expo-template-tabs")
        os.makedirs(os.path.join(expo, "node_modules"))
        self.tool_standin("npx")
        s = self.start(SWB_ON="prebuild", SWB_EXIT="1")
        sid = self.session(s, expo)
        job, _ = self.run_build(s, sid)
        st = self.wait(s, sid, job["jobId"])
        self.assertEqual(st["result"]["failureCode"], "EXPO_PREBUILD_REQUIRED", st)
        self.assertTrue(any("npx expo prebuild --clean" in x for x in st["result"]["nextSteps"]), st)
        self.assertEqual(self.traced(), ["npx expo prebuild --platform android --no-install"])
        s.close()

    def test_missing_tool_at_run_time(self):
        # the wrapper runs, but what it calls is not there (exit 127 from the shell)
        rn = self.gradle_project("#!/bin/sh\nexec definitely-not-a-gradle-daemon-xyz \"$@\"\n")
        s = self.start()
        sid = self.session(s, rn)
        job, _ = self.run_build(s, sid)
        st = self.wait(s, sid, job["jobId"])
        self.assertEqual(st["result"]["failureCode"], "BUILD_COMMAND_UNAVAILABLE", st)
        self.assertEqual(st["result"]["exitStatus"], 127, st)
        s.close()


NPM = shutil.which("npm")


@unittest.skipUnless(NPM, "npm is not installed (scripts/install-deps.sh installs it)")
class RealNpm(Base):
    server_env = dict(Base.server_env, SWIPIUM_CONSENT_PREAPPROVE="build_from_source",
                      SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE="1")

    def test_install_that_cannot_reach_its_registry(self):
        expo = self.project("expo-template-tabs")
        self.tool_standin("npx")
        os.symlink(NPM, os.path.join(self.bin, "npm"))
        node = shutil.which("node")
        if node:
            os.symlink(node, os.path.join(self.bin, "node"))
        cache = os.path.join(self.home, "npm-cache")
        s = self.start(npm_config_registry="http://127.0.0.1:%d/" % dead_port(), npm_config_cache=cache,
                       npm_config_fetch_retries="0", npm_config_fetch_timeout="5000", npm_config_audit="false",
                       npm_config_fund="false", npm_config_update_notifier="false")
        sid = self.session(s, expo)
        job, _ = self.run_build(s, sid)
        st = self.wait(s, sid, job["jobId"], limit=300)
        self.assertEqual(st["status"], "failed", st)
        res = st["result"]
        self.assertEqual(res["failureCode"], "DEPENDENCY_INSTALL_REQUIRED", st)
        self.assertEqual(res["failedStep"], "install JavaScript dependencies (no lockfile)")
        self.assertIn("ECONNREFUSED", res.get("line", "") + res.get("signature", ""), res)
        text, _ = self.read_log(s, res["logUri"])
        self.assertIn("ECONNREFUSED", text)
        self.assertEqual(self.traced(), [])  # prebuild never ran after the failed install
        self.assertFalse(os.path.exists(os.path.join(expo, "android")))
        s.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
