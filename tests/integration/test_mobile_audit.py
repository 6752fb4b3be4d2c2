"""qa_mobile_audit through swipium-mcp, the real adb and the virtual device (tests/vdevice/apps/audit.yaml):
plan runs no device command, execute of each profile with evidence, the airplane state put back as found (on
or off) at the end, after a failure midway and on cancellation, a refused consent touching nothing, the
account cycle without allowGeneratedData typing and tapping nothing, failed and blocked checks in the issue
ledger with their evidence, and issue recurrence read from the ledger."""

import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv, SOURCE_ROOT  # noqa: E402
from mcpclient import Server  # noqa: E402
import apkgen  # noqa: E402
import test_artifacts as real_apks  # noqa: E402  (fetch_real_apks: the APKs of tests/data/apks/real-apks.json)

APP = "com.example.audit"
APP_MODEL = os.path.join(SOURCE_ROOT, "tests", "vdevice", "apps", "audit.yaml")
ARM_CRASH = (540, 1110)  # the "Arm crash" button: every later launch crashes natively


def release_manifest(package, target_sdk, debuggable, permissions):
    """A binary AndroidManifest.xml with <uses-sdk>, <application android:debuggable> and <uses-permission>s,
    from apkgen's pieces (aapt dump badging judges what it says)."""
    ids = {"name": 0x01010003, "debuggable": 0x0101000F, "versionCode": 0x0101021B, "versionName": 0x0101021C,
           "minSdkVersion": 0x0101020C, "targetSdkVersion": 0x01010270}
    pool = apkgen.Pool(list(ids))
    resmap = list(ids.values())
    ns_prefix, ns_uri = pool.idx("android"), pool.idx(apkgen.ANDROID_NS)

    def attr(ns, name, typ, val):
        raw = pool.idx(val) if typ == apkgen.T_STRING else 0xFFFFFFFF
        data = raw if typ == apkgen.T_STRING else val
        return struct.pack("<IIIHBBI", ns, pool.idx(name), raw, 8, 0, typ, data & 0xFFFFFFFF)

    def start(name, alist):
        body = struct.pack("<IIHHHHHH", 0xFFFFFFFF, pool.idx(name), 20, 20, len(alist), 0, 0, 0) + b"".join(alist)
        return struct.pack("<HHIII", 0x0102, 16, 16 + len(body), 1, 0xFFFFFFFF) + body

    def end(name):
        return struct.pack("<HHIIIII", 0x0103, 16, 24, 1, 0xFFFFFFFF, 0xFFFFFFFF, pool.idx(name))

    nodes = start("manifest", [attr(ns_uri, "versionCode", apkgen.T_INT_DEC, 14),
                               attr(ns_uri, "versionName", apkgen.T_STRING, "1.4.0"),
                               attr(0xFFFFFFFF, "package", apkgen.T_STRING, package)])
    nodes += start("uses-sdk", [attr(ns_uri, "minSdkVersion", apkgen.T_INT_DEC, 24),
                                attr(ns_uri, "targetSdkVersion", apkgen.T_INT_DEC, target_sdk)]) + end("uses-sdk")
    for p in permissions:
        nodes += start("uses-permission", [attr(ns_uri, "name", apkgen.T_STRING, p)]) + end("uses-permission")
    nodes += start("application", [attr(ns_uri, "debuggable", 0x12, 0xFFFFFFFF if debuggable else 0)])
    nodes += end("application") + end("manifest")
    ns_start = struct.pack("<HHIIIII", 0x0100, 16, 24, 1, 0xFFFFFFFF, ns_prefix, ns_uri)
    ns_end = struct.pack("<HHIIIII", 0x0101, 16, 24, 1, 0xFFFFFFFF, ns_prefix, ns_uri)
    sp = apkgen.string_pool(pool.strings)
    rm = struct.pack("<HHI", 0x0180, 8, 8 + 4 * len(resmap)) + b"".join(struct.pack("<I", r) for r in resmap)
    body = sp + rm + ns_start + nodes + ns_end
    return struct.pack("<HHI", 0x0003, 8, 8 + len(body)) + body


def sc(resp):
    return resp["result"]["structuredContent"]


def is_error(resp):
    return bool(resp["result"].get("isError"))


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-audit-")
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write('{"name": "notes"}')
        self.stats = os.path.join(self.tmp, "stats.jsonl")
        self.touch = os.path.join(self.tmp, "touch.jsonl")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def device(self):
        return VDeviceEnv(app=APP_MODEL, device_args=["--stats", self.stats, "--touch-log", self.touch])

    def server(self, env, extra=None):
        e = dict(env.env)
        e["HOME"] = env.server.home
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        return s

    def session(self, s):
        sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
        r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": APP, "bindOnly": True})
        self.assertFalse(is_error(r), r)
        return sid

    def commands(self):
        """Every adb invocation the device served so far (its --stats log)."""
        if not os.path.exists(self.stats):
            return []
        with open(self.stats) as f:
            return [json.loads(line)["cmd"] for line in f if line.strip()]

    def touches(self):
        if not os.path.exists(self.touch):
            return []
        with open(self.touch) as f:
            return [json.loads(line) for line in f if line.strip()]

    def airplane(self, env):
        rc, out, _ = env.shell("settings get global airplane_mode_on")
        self.assertEqual(rc, 0)
        return out.strip()

    def set_airplane(self, env, on):
        rc, _, err = env.shell("cmd connectivity airplane-mode %s" % ("enable" if on else "disable"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.airplane(env), "1" if on else "0")

    def launch(self, env):
        rc, _, err = env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % APP)
        self.assertEqual(rc, 0, err)

    def rotation(self, env):
        rc, out, _ = env.shell("settings get system user_rotation")
        return out.strip()

    def ledger(self, s, sid):
        r = s.tool("qa_issue_log", {"sessionId": sid, "mode": "history"})
        self.assertFalse(is_error(r), r)
        return sc(r)["issues"]

    def audit_issues(self, s, sid):
        return [i for i in self.ledger(s, sid) if i["title"].startswith("Mobile audit")]

    def assert_evidence_rule(self, result):
        for c in result["checks"]:
            if c["status"] == "pass":
                self.assertTrue(c["evidence"], c)  # never a pass without evidence
            self.assertIn(c["status"], ("pass", "fail", "blocked", "not_evaluated"), c)


class Arguments(Base):
    def test_listed_and_argument_errors(self):
        with self.device() as env:
            s = self.server(env)
            tools = {t["name"]: t for t in s.call("tools/list")["result"]["tools"]}
            self.assertIn("qa_mobile_audit", tools)
            ann = tools["qa_mobile_audit"]["annotations"]
            self.assertFalse(ann["readOnlyHint"])
            self.assertFalse(ann["destructiveHint"])
            self.assertFalse(ann["idempotentHint"])
            sid = self.session(s)
            # waitForCompletion was removed: INVALID_ARGUMENT (not STALE_CLIENT), nothing runs
            before = len(self.commands())
            r = s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "smoke", "mode": "execute",
                                           "waitForCompletion": True})
            self.assertTrue(is_error(r))
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT", r)
            self.assertIn("waitForCompletion", json.dumps(sc(r)))
            for bad in ({"profile": "everything"}, {"profile": "smoke", "mode": "run"},
                        {"profile": "smoke", "sourceRevision": {"commit": 3}},
                        {"profile": "smoke", "sourceRevision": {"tag": "v1"}}, {}):
                r = s.tool("qa_mobile_audit", dict(bad, sessionId=sid))
                self.assertTrue(is_error(r), (bad, r))
                self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT", (bad, r))
            # execute needs a prepared session
            r = s.tool("qa_mobile_audit", {"projectRoot": self.project, "profile": "smoke", "mode": "execute"})
            self.assertEqual(sc(r)["failureCode"], "INVALID_ARGUMENT", r)
            self.assertIn("sessionId", sc(r)["what"] if "what" in sc(r) else json.dumps(sc(r)))
            self.assertEqual(len(self.commands()), before, "an argument error ran a device command")
            s.close()


class Plan(Base):
    def test_plan_runs_no_device_command(self):
        with self.device() as env:
            s = self.server(env)
            sid = self.session(s)
            self.launch(env)
            before = self.commands()
            plans = {}
            for profile in ("smoke", "account_cycle", "store_compliance", "resilience", "release_gate"):
                r = s.tool("qa_mobile_audit", {"sessionId": sid, "profile": profile,
                                               "sourceRevision": {"commit": "abc123", "branch": "main"},
                                               "targetApp": "Notes"})
                self.assertFalse(is_error(r), r)
                plans[profile] = sc(r)
            # without a session too
            r = s.tool("qa_mobile_audit", {"projectRoot": self.project, "profile": "release_gate"})
            self.assertFalse(is_error(r), r)
            self.assertEqual(self.commands(), before, "a plan ran a device command")
            self.assertEqual(self.touches(), [])
            self.assertEqual(self.airplane(env), "0")
            # the checklist and the safety contract
            ids = lambda p: [c["id"] for c in plans[p]["checks"]]  # noqa: E731
            self.assertEqual(plans["smoke"]["mode"], "plan")
            self.assertEqual(ids("smoke"), ["smoke.launch", "smoke.health", "smoke.screen"])
            gate = ids("release_gate")
            for p in ("smoke", "account_cycle", "store_compliance", "resilience"):
                for i in ids(p):
                    self.assertIn(i, gate)
            self.assertIn("release.locator_readiness", gate)
            self.assertIn("release.issue_recurrence", gate)
            for p in ("resilience", "release_gate"):
                self.assertEqual(plans[p]["consent"]["action"], "network_change")
                self.assertEqual(plans[p]["consent"]["risk"], "medium")
                self.assertIn("network", plans[p]["safetyContract"])
            for p in ("smoke", "account_cycle", "store_compliance"):
                self.assertFalse(plans[p]["consent"]["required"])
            acc = plans["account_cycle"]
            self.assertTrue(all("allowGeneratedData" in c["blockedBecause"] for c in acc["checks"]), acc)
            self.assertIn("never deleted", acc["safetyContract"]["deletion"])
            self.assertEqual(plans["smoke"]["audited"]["sourceRevision"], {"commit": "abc123", "branch": "main"})
            self.assertEqual(plans["smoke"]["audited"]["targetApp"], "Notes")
            s.close()


class Execute(Base):
    def test_smoke_passes_with_evidence(self):
        with self.device() as env:
            s = self.server(env)
            sid = self.session(s)
            r = s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "smoke", "mode": "execute"}, timeout=120)
            self.assertFalse(is_error(r), r)
            res = sc(r)
            self.assert_evidence_rule(res)
            self.assertEqual([c["status"] for c in res["checks"]], ["pass", "pass", "pass"], res)
            self.assertEqual(res["releaseImpact"]["verdict"], "ship")
            self.assertFalse(res["network"]["managed"])
            kinds = {e["kind"] for c in res["checks"] for e in c["evidence"]}
            self.assertTrue({"screenshot", "ui_dump", "log"} <= kinds, kinds)
            # the evidence exists: the screenshot is a PNG, the dump is the app's hierarchy
            shot = [e["uri"] for c in res["checks"] for e in c["evidence"] if e["kind"] == "screenshot"][0]
            a = sc(s.tool("qa_get_artifact", {"uri": shot}))
            self.assertEqual(a.get("mime") or a.get("mimeType"), "image/png", a)
            dump = [e["uri"] for c in res["checks"] for e in c["evidence"] if e["kind"] == "ui_dump"][0]
            d = s.call("resources/read", {"uri": dump})
            self.assertIn("Privacy policy", json.dumps(d))
            self.assertTrue(res.get("reportUri", "").startswith("swipium://"), res)
            # smoke changes no network: no airplane command at all
            self.assertFalse([c for c in self.commands() if "airplane" in c], self.commands())
            self.assertEqual(self.audit_issues(s, sid), [])
            s.close()

    def test_sensitive_session_keeps_no_pixels_and_still_needs_evidence(self):
        with self.device() as env:
            s = self.server(env)
            sid = sc(s.tool("qa_start_session", {"projectRoot": self.project, "sensitive": True}))["sessionId"]
            self.assertFalse(is_error(s.tool("qa_prepare_target", {"sessionId": sid, "appId": APP,
                                                                  "bindOnly": True})))
            res = sc(s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "smoke", "mode": "execute"},
                            timeout=120))
            self.assert_evidence_rule(res)
            kinds = {e["kind"] for c in res["checks"] for e in c["evidence"]}
            self.assertNotIn("screenshot", kinds)
            self.assertNotIn("ui_dump", kinds)
            self.assertEqual([c["status"] for c in res["checks"]], ["pass", "pass", "pass"], res)
            launch = res["checks"][0]
            self.assertTrue(any("sensitive" in n for n in launch.get("notes", [])), launch)
            screen = res["checks"][2]
            self.assertIn("not kept", screen["evidence"][0]["line"])
            s.close()

    def test_store_compliance_and_release_build_not_faked(self):
        with self.device() as env:
            s = self.server(env)
            sid = self.session(s)
            self.launch(env)
            res = sc(s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "store_compliance",
                                                "mode": "execute"}, timeout=120))
            self.assert_evidence_rule(res)
            st = {c["id"]: c for c in res["checks"]}
            for i in ("store.privacy_policy", "store.terms", "store.account_deletion", "store.paywall"):
                self.assertEqual(st[i]["status"], "pass", st[i])
            self.assertEqual(st["store.build_metadata"]["status"], "blocked")  # no APK in the project
            self.assertEqual(st["store.release_build"]["status"], "blocked")
            self.assertEqual(st["store.release_build"]["failureCode"], "NO_BUILD_ARTIFACT")
            self.assertNotEqual(res["releaseImpact"]["verdict"], "ship")
            # nothing was tapped to find them (Delete account above all)
            self.assertEqual(self.touches(), [])
            s.close()


class ReleaseBuild(Base):
    def audit_with_apk(self, target_sdk, debuggable, permissions):
        out = os.path.join(self.project, "android", "app", "build", "outputs", "apk", "debug")
        os.makedirs(out, exist_ok=True)
        apk = os.path.join(out, "app-debug.apk")
        apkgen.write_apk(apk, release_manifest(APP, target_sdk, debuggable, permissions))
        # the judge: aapt reads the same facts from the same file
        badging = subprocess.run(["aapt", "dump", "badging", apk], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True)
        self.assertIn("package: name='%s'" % APP, badging.stdout, badging.stderr)
        self.assertIn("targetSdkVersion:'%d'" % target_sdk, badging.stdout)
        self.assertEqual("application-debuggable" in badging.stdout, debuggable, badging.stdout)
        for p in permissions:
            self.assertIn("uses-permission: name='%s'" % p, badging.stdout)
        with self.device() as env:
            s = self.server(env)
            sid = self.session(s)
            self.launch(env)
            res = sc(s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "store_compliance",
                                                "mode": "execute"}, timeout=120))
            s.close()
        self.assert_evidence_rule(res)
        return {c["id"]: c for c in res["checks"]}, res

    def test_debuggable_old_target_and_restricted_permission_fail(self):
        st, res = self.audit_with_apk(30, True, ["android.permission.INTERNET", "android.permission.READ_SMS"])
        self.assertEqual(st["store.build_metadata"]["status"], "pass", st["store.build_metadata"])
        rb = st["store.release_build"]
        self.assertEqual(rb["status"], "fail", rb)
        self.assertIn("debuggable", rb["reason"])
        self.assertEqual(rb["facts"]["targetSdk"], 30)
        self.assertTrue(rb["facts"]["debuggable"])
        self.assertEqual(rb["facts"]["permissions"], ["android.permission.INTERNET", "android.permission.READ_SMS"])
        self.assertEqual(res["releaseImpact"]["verdict"], "block")

    def test_old_target_fails_then_restricted_permission_then_pass(self):
        st, _ = self.audit_with_apk(30, False, [])
        self.assertEqual(st["store.release_build"]["status"], "fail")
        self.assertIn("targetSdkVersion 30", st["store.release_build"]["reason"])
        st, _ = self.audit_with_apk(35, False, ["android.permission.ACCESS_BACKGROUND_LOCATION"])
        self.assertEqual(st["store.release_build"]["status"], "fail")
        self.assertEqual(st["store.release_build"]["severity"], "medium")
        self.assertIn("ACCESS_BACKGROUND_LOCATION", st["store.release_build"]["reason"])
        st, _ = self.audit_with_apk(35, False, ["android.permission.INTERNET"])
        self.assertEqual(st["store.release_build"]["status"], "pass", st["store.release_build"])
        self.assertTrue([e for e in st["store.release_build"]["evidence"] if e["kind"] == "facts"])


def aapt_release_facts(apk):
    """What `aapt dump badging` says of the facts store.release_build reads."""
    out = subprocess.run(["aapt", "dump", "badging", apk], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True).stdout
    pkg = re.search(r"^package: name='([^']*)'", out, re.M).group(1)
    target = re.search(r"^targetSdkVersion:'(\d+)'", out, re.M)
    sdk = re.search(r"^sdkVersion:'(\d+)'", out, re.M)
    # aapt also lists permissions it infers (uses-implied-permission); the manifest's own are the others
    implied = set(re.findall(r"^uses-implied-permission: name='([^']*)'", out, re.M))
    perms = [p for p in re.findall(r"^uses-permission: name='([^']*)'", out, re.M) if p not in implied]
    return {"appId": pkg, "targetSdk": int(target.group(1)) if target else (int(sdk.group(1)) if sdk else None),
            "targetDeclared": bool(target), "debuggable": "application-debuggable" in out.splitlines(),
            "permissions": perms}


class RealApks(Base):
    def test_release_facts_of_real_apks_match_aapt(self):
        got, skipped = real_apks.fetch_real_apks()
        apks = [a for paths in got.values() for a in paths]
        if not apks:
            self.skipTest("no real APK could be fetched: %s" % skipped)
        with self.device() as env:
            s = self.server(env)
            for apk in apks:
                with self.subTest(apk=os.path.basename(apk)):
                    judge = aapt_release_facts(apk)
                    project = tempfile.mkdtemp(dir=self.tmp)
                    with open(os.path.join(project, "package.json"), "w") as f:
                        f.write("{}")
                    out = os.path.join(project, "android", "app", "build", "outputs", "apk", "debug")
                    os.makedirs(out)
                    shutil.copy(apk, out)
                    sid = sc(s.tool("qa_start_session", {"projectRoot": project}))["sessionId"]
                    r = s.tool("qa_prepare_target", {"sessionId": sid, "appId": judge["appId"], "bindOnly": True})
                    self.assertFalse(is_error(r), r)
                    res = sc(s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "store_compliance",
                                                        "mode": "execute"}, timeout=120))
                    self.assert_evidence_rule(res)
                    rb = [c for c in res["checks"] if c["id"] == "store.release_build"][0]
                    facts = rb["facts"]
                    self.assertEqual(facts["targetSdk"], judge["targetSdk"], (facts, judge))
                    self.assertEqual(facts["debuggable"], judge["debuggable"], (facts, judge))
                    self.assertEqual(facts["permissions"], judge["permissions"], (facts, judge))
                    if not judge["targetDeclared"]:
                        self.assertTrue(any("minSdkVersion" in w for w in facts["warnings"]), facts)
                    # the verdict follows from the facts
                    if judge["debuggable"] or (judge["targetSdk"] or 0) < 35:
                        self.assertEqual(rb["status"], "fail", rb)
            s.close()


class Network(Base):
    def run_resilience(self, found_on, arm_crash=False):
        with self.device() as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": "network_change"})
            sid = self.session(s)
            self.launch(env)
            if arm_crash:
                rc, _, err = env.shell("input tap %d %d" % ARM_CRASH)
                self.assertEqual(rc, 0, err)
            self.set_airplane(env, found_on)
            rot_before = self.rotation(env)
            n0 = len(self.commands())
            r = s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "resilience", "mode": "execute"},
                       timeout=120)
            self.assertFalse(is_error(r), r)
            res = sc(r)
            self.assert_evidence_rule(res)
            # the state found first is the state at the end
            self.assertEqual(self.airplane(env), "1" if found_on else "0")
            self.assertEqual(res["network"]["found"], "on" if found_on else "off")
            self.assertTrue(res["network"]["restored"], res["network"])
            self.assertEqual(self.rotation(env), rot_before)
            self.assertTrue(res["orientation"]["restored"])
            cmds = self.commands()[n0:]
            # the state was read before the first toggle, and the toggles did happen
            first_read = next(i for i, c in enumerate(cmds) if "airplane_mode_on" in c)
            toggles = [i for i, c in enumerate(cmds) if "airplane-mode enable" in c or "airplane-mode disable" in c]
            self.assertTrue(toggles, cmds)
            self.assertLess(first_read, toggles[0])
            self.assertTrue(any("airplane-mode disable" in cmds[i] for i in toggles), cmds)
            if not found_on:
                self.assertTrue(any("airplane-mode enable" in cmds[i] for i in toggles), cmds)
            else:
                # already on: not toggled on first; turned off for the reconnect check, then on again at the end
                last = cmds[toggles[-1]]
                self.assertIn("enable", last)
            st = self.state(env, sid)
            s_network = st.get("network") or {}
            statuses = [(m["action"], m["status"]) for m in st["mutations"]]
            self.assertIn(("network_change", "approved"), statuses)
            self.assertIn(("network_change", "executed"), statuses)
            self.assertFalse(s_network.get("changed") and not s_network.get("restored"), s_network)
            self.assertTrue(any("airplane mode found" in c for c in st["envChanges"]), st["envChanges"])
            return s, sid, res, env

    def state(self, env, sid):
        runs = os.path.join(env.server.home, ".swipium", "runs")
        for root, dirs, files in os.walk(runs):
            if os.path.basename(root) == sid and "state.json" in files:
                with open(os.path.join(root, "state.json")) as f:
                    return json.load(f)
        raise AssertionError("no state.json for " + sid)

    def test_airplane_already_on_is_restored_to_on(self):
        s, sid, res, env = self.run_resilience(True)
        st = {c["id"]: c["status"] for c in res["checks"]}
        self.assertEqual(st, {"resilience.offline": "pass", "resilience.reconnect": "pass",
                              "resilience.relaunch": "pass", "resilience.rotation": "pass"}, res)
        off = [c for c in res["checks"] if c["id"] == "resilience.offline"][0]
        self.assertIn("already on", json.dumps(off["evidence"]))
        s.close()

    def test_airplane_off_is_restored_to_off(self):
        s, sid, res, env = self.run_resilience(False)
        self.assertEqual(res["releaseImpact"]["verdict"], "ship", res)
        s.close()

    def test_failure_midway_restores_on_and_logs_evidence(self):
        for found_on in (True, False):
            with self.subTest(found_on=found_on):
                s, sid, res, env = self.run_resilience(found_on, arm_crash=True)
                st = {c["id"]: c for c in res["checks"]}
                self.assertEqual(st["resilience.offline"]["status"], "pass")
                self.assertEqual(st["resilience.relaunch"]["status"], "fail", st["resilience.relaunch"])
                self.assertEqual(st["resilience.relaunch"]["failureCode"], "NATIVE_CRASH")
                self.assertEqual(st["resilience.rotation"]["status"], "fail")
                self.assertEqual(res["releaseImpact"]["verdict"], "block")
                self.assertIn("resilience.relaunch", res["releaseImpact"]["blockingChecks"])
                # the ledger has the failed checks with their evidence
                issues = {i["title"]: i for i in self.audit_issues(s, sid)}
                relaunch = [i for t, i in issues.items() if "(resilience.relaunch)" in t]
                self.assertEqual(len(relaunch), 1, issues)
                self.assertEqual(relaunch[0]["failureCode"], "NATIVE_CRASH")
                self.assertTrue(relaunch[0]["evidenceUris"], relaunch[0])
                self.assertTrue(all(u.startswith("swipium://") for u in relaunch[0]["evidenceUris"]))
                self.assertIn("native_crash", relaunch[0]["summary"])
                self.assertEqual(st["resilience.relaunch"]["issueId"], relaunch[0]["issueId"])
                # the same project's ledger: the second run counts an occurrence of the same issue
                self.assertEqual(st["resilience.relaunch"]["issueOutcome"], "created" if found_on else "observed_again")
                self.assertEqual(res["ledger"]["logged"], 2, res["ledger"])
                s.close()

    def test_offline_mode_false_toggles_nothing(self):
        with self.device() as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": "network_change"})
            sid = self.session(s)
            self.launch(env)
            n0 = len(self.commands())
            res = sc(s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "resilience", "mode": "execute",
                                                "offlineMode": False}, timeout=120))
            self.assert_evidence_rule(res)
            st = {c["id"]: c for c in res["checks"]}
            for i in ("resilience.offline", "resilience.reconnect"):
                self.assertEqual(st[i]["status"], "not_evaluated", st[i])
                self.assertIn("offlineMode", st[i]["reason"])
            self.assertEqual(st["resilience.relaunch"]["status"], "pass")
            self.assertFalse([c for c in self.commands()[n0:] if "airplane-mode" in c], self.commands()[n0:])
            self.assertTrue(res["network"]["restored"])
            self.assertEqual(self.airplane(env), "0")
            s.close()

    def test_consent_refused_runs_nothing_on_the_device(self):
        with self.device() as env:
            s = self.server(env)
            sid = self.session(s)
            self.launch(env)
            self.set_airplane(env, True)
            before = self.commands()
            args = {"sessionId": sid, "profile": "release_gate", "mode": "execute"}
            r = s.tool("qa_mobile_audit", args)
            env_ = sc(r)
            self.assertTrue(env_.get("requiresConsent"), r)
            self.assertEqual(env_["action"], "network_change")
            self.assertEqual(env_["risk"], "medium")
            self.assertIn("airplane-mode enable", env_["exactCommand"])
            r = s.tool("qa_mobile_audit", dict(args, consentId=env_["consentId"], approve=False))
            self.assertEqual(sc(r)["failureCode"], "CONSENT_DECLINED", r)
            self.assertEqual(self.commands(), before, "a refused consent ran a device command")
            self.assertEqual(self.touches(), [])
            self.assertEqual(self.airplane(env), "1")
            self.assertEqual(self.audit_issues(s, sid), [])
            s.close()

    def test_envelope_approval_runs_and_ledgers_the_consent(self):
        with self.device() as env:
            s = self.server(env)
            sid = self.session(s)
            self.launch(env)
            args = {"sessionId": sid, "profile": "resilience", "mode": "execute"}
            env_ = sc(s.tool("qa_mobile_audit", args))
            self.assertTrue(env_.get("requiresConsent"), env_)
            r = s.tool("qa_mobile_audit", dict(args, consentId=env_["consentId"], approve=True), timeout=120)
            self.assertFalse(is_error(r), r)
            self.assertTrue(sc(r)["network"]["restored"])
            self.assertEqual(self.airplane(env), "0")
            # the id is single use
            r = s.tool("qa_mobile_audit", dict(args, consentId=env_["consentId"], approve=True))
            self.assertTrue(sc(r).get("requiresConsent") or is_error(r), r)
            st = Network.state(self, env, sid)
            mech = [m["consent"].get("approvalMechanism") for m in st["mutations"] if m["status"] == "approved"]
            self.assertIn("client-assertion", mech)
            s.close()

    def test_cancel_restores_the_airplane_state(self):
        with self.device() as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": "network_change"})
            sid = self.session(s)
            self.launch(env)
            rid = s.request("tools/call", {"name": "qa_mobile_audit", "arguments": {
                "sessionId": sid, "profile": "resilience", "mode": "execute"}})
            deadline = time.monotonic() + 20
            while self.airplane(env) != "1":  # the offline check is under way
                self.assertLess(time.monotonic(), deadline, "airplane mode never went on")
                time.sleep(0.05)
            s.notify("notifications/cancelled", {"requestId": rid})
            # the cancelled call gets no answer; the next one shows the worker is free and the state is back
            r = s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "smoke"}, timeout=60)
            self.assertFalse(is_error(r), r)
            self.assertEqual(self.airplane(env), "0")
            # an interrupted check is not evidence: nothing is logged for it
            self.assertEqual(self.audit_issues(s, sid), [])
            st = Network.state(self, env, sid)
            self.assertTrue(st["network"]["restored"], st["network"])
            s.close()


    def test_server_shutdown_mid_audit_puts_airplane_back_on(self):
        with self.device() as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": "network_change"})
            sid = self.session(s)
            self.launch(env)
            self.set_airplane(env, True)
            s.request("tools/call", {"name": "qa_mobile_audit", "arguments": {
                "sessionId": sid, "profile": "resilience", "mode": "execute"}})
            deadline = time.monotonic() + 30
            while self.airplane(env) != "0":  # the reconnect check turned it off
                self.assertLess(time.monotonic(), deadline, "airplane mode never went off")
                time.sleep(0.05)
            self.assertEqual(s.close(), 0)  # stdin closed mid-call: the server ends the call and exits
            self.assertEqual(self.airplane(env), "1")
            st = Network.state(self, env, sid)
            self.assertTrue(st["network"]["restored"], st["network"])


class Accounts(Base):
    def test_account_cycle_without_generated_data_types_and_taps_nothing(self):
        with self.device() as env:
            s = self.server(env)
            sid = self.session(s)
            self.launch(env)
            n0 = len(self.commands())
            res = sc(s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "account_cycle", "mode": "execute",
                                                "allowTestAccountDeletion": True}, timeout=120))
            self.assertEqual([c["status"] for c in res["checks"]], ["blocked"] * 4, res)
            for c in res["checks"]:
                self.assertIn("allowGeneratedData", c["reason"])
            self.assertEqual(self.touches(), [])
            self.assertFalse([c for c in self.commands()[n0:] if c.startswith("input ") or " input " in c],
                             self.commands()[n0:])
            self.assertTrue(any("deletes no account" in n for n in res["notes"]), res["notes"])
            # blocked checks are in the ledger, as gates
            issues = self.audit_issues(s, sid)
            self.assertEqual(len(issues), 4, issues)
            self.assertTrue(all(i["category"] == "expected_gate" for i in issues), issues)
            self.assertEqual(res["releaseImpact"]["verdict"], "caution")
            s.close()


class GeneratedAccount(Base):
    MODEL = os.path.join(SOURCE_ROOT, "tests", "vdevice", "apps", "audit-accounts.yaml")

    def run_cycle(self, policy):
        if policy is not None:
            os.makedirs(os.path.join(self.project, ".swipium"), exist_ok=True)
            with open(os.path.join(self.project, ".swipium", "test-data-policy.json"), "w") as f:
                json.dump(policy, f)
        env = VDeviceEnv(app=self.MODEL, device_args=["--stats", self.stats, "--touch-log", self.touch])
        env.__enter__()
        self.addCleanup(env.__exit__, None, None, None)
        s = self.server(env)
        sid = sc(s.tool("qa_start_session", {"projectRoot": self.project}))["sessionId"]
        self.assertFalse(is_error(s.tool("qa_prepare_target", {"sessionId": sid, "appId": "com.example.accounts",
                                                              "bindOnly": True})))
        rc, _, err = env.shell("monkey -p com.example.accounts -c android.intent.category.LAUNCHER 1")
        self.assertEqual(rc, 0, err)
        r = s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "account_cycle", "mode": "execute",
                                       "allowGeneratedData": True}, timeout=120)
        self.assertFalse(is_error(r), r)
        return env, s, sid, sc(r)

    def test_cycle_with_a_disposable_account(self):
        env, s, sid, res = self.run_cycle({"environment": "test"})
        self.assert_evidence_rule(res)
        self.assertEqual([(c["id"], c["status"]) for c in res["checks"]],
                         [("account.create", "pass"), ("account.logout", "pass"),
                          ("account.forgot_password", "pass"), ("account.login", "pass")], res)
        _, log, _ = env.shell("logcat -d")
        created = [l.split("account created for ")[1] for l in log.splitlines() if "account created for" in l]
        self.assertEqual(len(created), 1, log)
        email, password = created[0].split(" with password ")
        self.assertRegex(email, r"^swipium_\d+@yopmail\.com$")
        self.assertGreaterEqual(len(password), 16)
        # the login reused the account sign-up created
        self.assertIn("signed in as " + email, log)
        # never tapped: account deletion and the reset submission
        labels = [t["element"]["label"] for t in self.touches() if t.get("element")]
        self.assertNotIn("Delete account", labels)
        self.assertNotIn("Send reset link", labels)
        self.assertNotIn("DELETE ACCOUNT TAPPED", log)
        self.assertNotIn("RESET SENT", log)
        # the generated password is a secret: not in the result, the ledger, the session or its artifacts
        s.tool("qa_report", {"sessionId": sid})
        s.close()
        self.assertNotIn(password, json.dumps(res))
        for root, dirs, files in os.walk(os.path.join(env.server.home, ".swipium")):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    self.assertNotIn(password.encode(), f.read(), os.path.join(root, name))
        for root, dirs, files in os.walk(os.path.join(self.project, ".swipium")):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    self.assertNotIn(password.encode(), f.read(), name)

    def test_store_labels_from_every_screen_seen(self):
        """The store label checks read every screen the session saw (here: the account cycle's dumps), not only
        the current one, name the screen in the evidence and count the recorded screens they could not read."""
        env, s, sid, res = self.run_cycle({"environment": "test"})
        dumps = []
        for root, dirs, files in os.walk(os.path.join(env.server.home, ".swipium", "runs")):
            dumps += [os.path.join(root, n) for n in files if n.startswith("audit-") and n.endswith(".xml")]
        self.assertGreater(len(dumps), 3, dumps)
        gone = [d for d in dumps if os.path.basename(d).startswith("audit-signup-before")]
        self.assertEqual(len(gone), 1, dumps)
        os.remove(gone[0])  # a recorded screen whose file is missing: counted, never silently skipped
        touched = len(self.touches())
        r = s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "store_compliance", "mode": "execute"},
                   timeout=120)
        self.assertFalse(is_error(r), r)
        out = sc(r)
        self.assert_evidence_rule(out)
        st = {c["id"]: c for c in out["checks"]}
        # the current screen is home: "Delete account" is only on the profile screen the cycle visited
        dele = st["store.account_deletion"]
        self.assertEqual(dele["status"], "pass", dele)
        self.assertIn("saw earlier", dele["reason"])
        ev = dele["evidence"][0]
        self.assertEqual(ev["kind"], "ui_dump")
        self.assertNotIn("audit-store", ev["uri"])
        self.assertIn("Delete account", ev["line"])
        self.assertIn(os.path.basename(ev["uri"]), ev["line"])
        got = s.call("resources/read", {"uri": ev["uri"]})["result"]["contents"][0]["text"]
        self.assertIn("Delete account", got)
        screens = out["storeScreens"]
        self.assertEqual(screens["checked"], len(dumps), screens)  # the other dumps and the current screen
        self.assertEqual(screens["screens"][0]["name"], "the current screen")
        self.assertEqual(screens["notAvailable"], 1, screens)
        self.assertIn(os.path.basename(gone[0]), screens["notAvailableReasons"][0])
        self.assertEqual(dele["screens"], {"checked": screens["checked"], "notAvailable": 1})
        # nowhere in the app: blocked, saying how many screens were looked at and how many were not available
        priv = st["store.privacy_policy"]
        self.assertEqual(priv["status"], "blocked", priv)
        self.assertIn("any of the %d screen(s)" % screens["checked"], priv["reason"])
        self.assertIn("1 recorded screen(s) not available", priv["reason"])
        # nothing tapped by the store checks
        self.assertEqual(len(self.touches()), touched)
        labels = [t["element"]["label"] for t in self.touches() if t.get("element")]
        self.assertNotIn("Delete account", labels)
        s.close()

    def test_no_test_environment_refuses_sign_up_and_types_nothing(self):
        env, s, sid, res = self.run_cycle(None)
        st = {c["id"]: c for c in res["checks"]}
        self.assertEqual(st["account.create"]["status"], "blocked")
        self.assertIn("not test or staging", st["account.create"]["reason"])
        self.assertTrue(all(c["status"] == "blocked" for c in res["checks"]), res)
        self.assertEqual(self.touches(), [])
        self.assertFalse([c for c in self.commands() if c.startswith("input ")])
        s.close()


class ReleaseGate(Base):
    def test_release_gate_reads_recurrence_and_keeps_not_evaluated_honest(self):
        with self.device() as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": "network_change"})
            sid = self.session(s)
            self.launch(env)
            # a fixed issue that came back
            r = sc(s.tool("qa_issue_log", {"sessionId": sid, "mode": "log", "title": "Checkout button crashes",
                                           "failureCode": "NATIVE_CRASH"}))
            iid = r["issue"]["issueId"]
            sc(s.tool("qa_issue_log", {"sessionId": sid, "mode": "mark_fixed", "issueId": iid,
                                       "fixedInCommit": "deadbeef"}))
            r = sc(s.tool("qa_issue_log", {"sessionId": sid, "mode": "log", "title": "Checkout button crashes",
                                           "failureCode": "NATIVE_CRASH"}))
            self.assertEqual(r["outcome"], "reopened")
            res = sc(s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "release_gate", "mode": "execute",
                                                "sourceRevision": {"commit": "abc123"}}, timeout=180))
            self.assert_evidence_rule(res)
            st = {c["id"]: c for c in res["checks"]}
            self.assertEqual(st["release.issue_recurrence"]["status"], "fail")
            self.assertIn(iid, st["release.issue_recurrence"]["reason"])
            # no .swipium/pages: nothing to lint, said so, never a pass
            self.assertEqual(st["release.locator_readiness"]["status"], "not_evaluated")
            self.assertIn("no page objects", st["release.locator_readiness"]["reason"])
            self.assertEqual(res["releaseImpact"]["verdict"], "block")
            self.assertEqual(res["audited"]["sourceRevision"], {"commit": "abc123"})
            self.assertEqual(self.airplane(env), "0")
            self.assertEqual(res["counts"]["total"], len(res["checks"]))
            s.close()


class LocatorReadiness(Base):
    def write_page(self, elements):
        pages = os.path.join(self.project, ".swipium", "pages")
        os.makedirs(pages, exist_ok=True)
        with open(os.path.join(pages, "notes.yaml"), "w") as f:
            f.write("name: NotesPage\nscreen: home\nelements:\n" + elements)

    def gate(self, s, sid):
        res = sc(s.tool("qa_mobile_audit", {"sessionId": sid, "profile": "release_gate", "mode": "execute",
                                            "offlineMode": False}, timeout=180))
        self.assert_evidence_rule(res)
        return [c for c in res["checks"] if c["id"] == "release.locator_readiness"][0], res

    def test_page_object_lint_decides_locator_readiness(self):
        with self.device() as env:
            s = self.server(env, {"SWIPIUM_CONSENT_PREAPPROVE": "network_change"})
            sid = self.session(s)
            self.launch(env)
            # a coordinate-only element is a lint error: the check fails with the lint items as evidence
            self.write_page("  privacy:\n    id: com.example.audit:id/privacy\n"
                            "  canvas:\n    coordinates: [540, 1200]\n")
            lr, res = self.gate(s, sid)
            self.assertEqual(lr["status"], "fail", lr)
            lines = " ".join(e.get("line", "") for e in lr["evidence"])
            self.assertIn("COORDINATE_ONLY_LOCATOR", lines)
            self.assertIn("1 error(s)", lines)
            self.assertTrue(any("(release.locator_readiness) failed" in i["title"]
                                for i in self.audit_issues(s, sid)))
            # durable ids (and a text locator, a warning): ready
            self.write_page("  privacy:\n    id: com.example.audit:id/privacy\n"
                            "  terms:\n    accessibilityId: terms\n  title:\n    text: Notes\n")
            lr, res = self.gate(s, sid)
            self.assertEqual(lr["status"], "pass", lr)
            self.assertIn("0 error(s)", lr["evidence"][0]["line"])
            # a page object that is not YAML is an error item naming the file
            pages = os.path.join(self.project, ".swipium", "pages")
            with open(os.path.join(pages, "broken.yaml"), "w") as f:
                f.write("name: [unclosed\n\tkey: : :\n")
            lr, res = self.gate(s, sid)
            self.assertEqual(lr["status"], "fail", lr)
            self.assertIn("broken.yaml", " ".join(e.get("line", "") for e in lr["evidence"]))
            s.close()


if __name__ == "__main__":
    unittest.main()
