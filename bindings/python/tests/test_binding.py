"""Tests of the Python binding against the real libswipium (set SWIPIUM_LIBRARY to pick the build)."""

import gc
import hashlib
import json
import subprocess
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
SOURCE_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SAMPLE = os.path.join(SOURCE_ROOT, "examples", "sample-report.json")
SCHEMAS = os.path.join(SOURCE_ROOT, "tests", "data", "schemas")

import swipium  # noqa: E402


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def assert_junit_valid(test, body):
    """The JUnit body validates against the Jenkins junit-10.xsd kept in tests/data/schemas."""
    with tempfile.NamedTemporaryFile(suffix=".xml") as f:
        f.write(body)
        f.flush()
        p = subprocess.run(["xmllint", "--noout", "--schema", os.path.join(SCHEMAS, "junit-10.xsd"), f.name],
                           capture_output=True, text=True)
    test.assertEqual(p.returncode, 0, p.stderr)


def assert_sarif_valid(doc):
    """The SARIF document validates against the SARIF 2.1.0 schema kept in tests/data/schemas."""
    import jsonschema
    with open(os.path.join(SCHEMAS, "sarif-schema-2.1.0.json")) as f:
        jsonschema.validate(doc, json.load(f))


def junit_counts(root):
    """(tests, failures, skipped) of a JUnit document. The skipped count is summed over the <testsuite>
    elements: the Jenkins schema allows no skipped attribute on <testsuites>."""
    skipped = sum(int(s.get("skipped", "0")) for s in root.findall("testsuite"))
    self_check = sum(1 for c in root.iter("testcase") if c.find("skipped") is not None)
    assert skipped == self_check, (skipped, self_check)
    return int(root.get("tests")), int(root.get("failures")), skipped


def big_report(n):
    """The sample report with @n extra findings and outcomes, so that a leak per render is visible."""
    with open(SAMPLE, encoding="utf-8") as f:
        r = json.load(f)
    for i in range(n):
        r["findings"].append({"at": "2026-11-30T10:00:00.000Z", "severity": "medium", "kind": "rn_logbox_error",
                              "detail": f"warning number {i} " + "x" * 200, "layer": "app", "screen": f"S{i}",
                              "failureCode": "LOGBOX", "count": 1})
        r["testOutcomes"].append({"at": "2026-11-30T10:00:00.000Z", "workflow": f"wf {i}", "outcome": "pass"})
    return json.dumps(r).encode("utf-8")


class CoreTest(unittest.TestCase):
    def test_library_comes_from_the_environment(self):
        want = os.environ.get("SWIPIUM_LIBRARY")
        if want:
            self.assertEqual(swipium.library_path(), want)

    def probe(self, env_value):
        env = {k: v for k, v in os.environ.items() if k != "SWIPIUM_LIBRARY"}
        if env_value is not None:
            env["SWIPIUM_LIBRARY"] = env_value
        code = ("import sys; sys.path.insert(0, sys.argv[1]); import swipium\n"
                "try:\n    print(swipium.library_path())\n"
                "except swipium.LibraryNotFound as e:\n    print('NOTFOUND', e)\n")
        p = subprocess.run([sys.executable, "-c", code, os.path.dirname(HERE)], env=env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.strip()

    def test_library_lookup_order(self):
        # An explicit SWIPIUM_LIBRARY is final: a wrong path is reported, not silently replaced.
        out = self.probe("/nonexistent/libswipium.so")
        self.assertTrue(out.startswith("NOTFOUND SWIPIUM_LIBRARY=/nonexistent/libswipium.so could not be loaded"), out)
        # Without it, a meson build directory of this checkout is found (when the build is inside it).
        built = os.environ.get("SWIPIUM_LIBRARY", "")
        if os.path.realpath(built).startswith(os.path.realpath(SOURCE_ROOT) + os.sep):
            out = self.probe(None)
            self.assertTrue(out.startswith(SOURCE_ROOT + os.sep) and out.endswith("/libswipium/libswipium.so.0"), out)

    def test_a_sanitizer_build_is_passed_over(self):
        # A checkout with two build trees: the newer one was built with ASan (here: the same library with the
        # runtime's name in it, which is what the loader reads). Loading it would end the process, so the
        # lookup must take the older, plain one and say why it passed over the newer.
        real = swipium.library_path()
        with tempfile.TemporaryDirectory() as tmp:
            pkg = os.path.join(tmp, "bindings", "python")
            os.makedirs(pkg)
            subprocess.run(["cp", "-r", os.path.join(os.path.dirname(HERE), "swipium"), pkg], check=True)
            plain = os.path.join(tmp, "build-a", "libswipium", "libswipium.so.0")
            asan = os.path.join(tmp, "build-b", "libswipium", "libswipium.so.0")
            for path in (plain, asan):
                os.makedirs(os.path.dirname(path))
                with open(real, "rb") as src, open(path, "wb") as dst:
                    dst.write(src.read())
            with open(asan, "ab") as f:
                f.write(b"\0libasan.so.8\0")
            os.utime(plain, (1_000_000, 1_000_000))
            env = {k: v for k, v in os.environ.items() if k not in ("SWIPIUM_LIBRARY", "LD_PRELOAD")}
            code = ("import sys; sys.path.insert(0, sys.argv[1]); import swipium, swipium._lib as l\n"
                    "print(swipium.library_path()); print(l._missing_sanitizer(sys.argv[2]))\n")
            p = subprocess.run([sys.executable, "-c", code, pkg, asan], env=env, capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.split(), [plain, "libasan.so"])

    def test_versions(self):
        self.assertRegex(swipium.version(), r"^\d+\.\d+\.\d+$")
        self.assertEqual(swipium.compatible_with(), "2.2.0")
        want = os.environ.get("SWIPIUM_EXPECTED_VERSION")
        if want:
            self.assertEqual(swipium.version(), want)

    def test_strerror(self):
        self.assertEqual(swipium.strerror(0), "SW_OK")
        self.assertEqual(swipium.strerror(-1), "SW_EINVAL")
        self.assertEqual(swipium.strerror(-5), "SW_EPARSE")

    def test_sha256_matches_hashlib(self):
        for data in (b"", b"abc", bytes(range(256)) * 1000, b"\0\0\0"):
            self.assertEqual(swipium.sha256_hex(data), hashlib.sha256(data).hexdigest())
        self.assertEqual(swipium.sha256_hex("é"), hashlib.sha256("é".encode()).hexdigest())

    def test_write_file_atomic(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "a", "b", "out.txt")
            with self.assertRaises(swipium.SwipiumError) as cm:
                swipium.write_file_atomic(p, "x")
            self.assertEqual(cm.exception.code_name, "SW_EIO")
            self.assertFalse(os.path.exists(p))
            swipium.write_file_atomic(p, "hello\n", mkdirs=True)
            with open(p, "rb") as f:
                self.assertEqual(f.read(), b"hello\n")
            self.assertEqual(os.stat(p).st_mode & 0o777, 0o600)
            with self.assertRaises(ValueError):
                swipium.write_file_atomic(p + "\0x", "y")

    def test_project_root(self):
        with tempfile.TemporaryDirectory() as d:
            app = os.path.join(d, "app")
            os.mkdir(app)
            bare = os.path.join(d, "bare")
            os.mkdir(bare)
            open(os.path.join(app, "package.json"), "w").close()
            self.assertTrue(swipium.has_project_marker(app))
            self.assertFalse(swipium.has_project_marker(bare))

            r = swipium.resolve_project_root(app, use_process_env=False)
            self.assertEqual((r.root, r.source), (app, "arg"))
            r = swipium.resolve_project_root(mcp_roots=[os.path.join(d, "missing"), bare, app],
                                             use_process_env=False, cwd=bare, home=d)
            self.assertEqual(r, (app, "mcp-roots"))
            r = swipium.resolve_project_root(cwd=app, home=d, use_process_env=False)
            self.assertEqual(r, (app, "cwd"))

            with self.assertRaises(swipium.InvalidArgumentError) as cm:
                swipium.resolve_project_root("relative/dir")
            self.assertEqual(cm.exception.failure_code, "INVALID_ARGUMENT")
            self.assertIn("relative/dir", cm.exception.message)
            self.assertTrue(cm.exception.hint)
            with self.assertRaises(swipium.NotFoundError) as cm:
                swipium.resolve_project_root(cwd=bare, home=d, use_process_env=False)
            self.assertEqual(cm.exception.failure_code, "PROJECT_ROOT_UNRESOLVED")
            self.assertEqual(cm.exception.code, -4)

    def test_context(self):
        with swipium.Context() as ctx:
            ctx.home = "/tmp/somewhere"
            self.assertEqual(ctx.home, "/tmp/somewhere")
            ctx.log_level = "WARN"
            self.assertEqual(ctx.log_level, "warn")
            with self.assertRaises(ValueError):
                ctx.log_level = "loud"
        with self.assertRaises(ValueError):
            ctx.home
        self.assertEqual(swipium.parse_log_level("Debug"), "debug")

    def test_log_handler_receives_library_records(self):
        # The consent store logs at creation about SWIPIUM_CONSENT_PREAPPROVE; it is the simplest
        # library call that logs through a context, reached here through the raw ctypes handle.
        import ctypes
        lib = swipium._L()
        lib.sw_consent_store_new.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        lib.sw_consent_store_new.restype = ctypes.c_int
        lib.sw_consent_store_free.argtypes = [ctypes.c_void_p]

        def make_store(ctx):
            store = ctypes.c_void_p()
            self.assertEqual(lib.sw_consent_store_new(ctx, ctypes.byref(store), None), 0)
            lib.sw_consent_store_free(store)

        old = os.environ.get("SWIPIUM_CONSENT_PREAPPROVE")
        os.environ["SWIPIUM_CONSENT_PREAPPROVE"] = "no_such_action"
        try:
            with swipium.Context() as ctx:
                got = []
                ctx.set_log_handler(lambda level, msg, fields: got.append((level, msg, fields)))
                make_store(ctx)
                warn = [g for g in got if g[0] == "warn"]
                self.assertEqual(len(warn), 1, got)
                self.assertIn("SWIPIUM_CONSENT_PREAPPROVE", warn[0][1])
                self.assertEqual(warn[0][2]["unknown"][0]["name"], "no_such_action")

                got.clear()
                ctx.log_level = "error"  # below the threshold: not delivered
                make_store(ctx)
                self.assertEqual(got, [])

                ctx.log_level = "debug"
                ctx.set_log_handler(lambda *a: 1 / 0)  # a failing handler must not break the call
                make_store(ctx)
                ctx.set_log_handler(None)
                make_store(ctx)
        finally:
            if old is None:
                del os.environ["SWIPIUM_CONSENT_PREAPPROVE"]
            else:
                os.environ["SWIPIUM_CONSENT_PREAPPROVE"] = old


class CatalogTest(unittest.TestCase):
    def test_lookup_and_list(self):
        entry = swipium.catalog_lookup("NATIVE_CRASH")
        self.assertEqual((entry["code"], entry["bucket"], entry["owner"], entry["severity"]),
                         ("NATIVE_CRASH", "app_bug", "app", "high"))
        self.assertIs(entry["retrySafe"], False)
        self.assertTrue(entry["recovery"])
        entries = swipium.catalog_list()
        self.assertEqual(len(entries), swipium.catalog_count())
        self.assertEqual(swipium.catalog_count(), 137)
        self.assertEqual(len({e["code"] for e in entries}), len(entries))
        buckets = {}
        for e in entries:
            buckets[e["bucket"]] = buckets.get(e["bucket"], 0) + 1
        self.assertEqual(buckets, {"app_bug": 10, "environment": 71, "missing_data": 10, "mcp_limitation": 30,
                                   "unsafe_refused": 16})

    def test_unknown_code(self):
        for code in ("native_crash", "NOPE", ""):
            with self.assertRaises(swipium.InvalidArgumentError, msg=code) as cm:
                swipium.catalog_lookup(code)
            self.assertEqual(cm.exception.failure_code, "INVALID_ARGUMENT")


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.report = swipium.Report.from_file(SAMPLE)

    def tearDown(self):
        self.report.close()

    def test_session_id_and_gate_without_policy(self):
        self.assertEqual(self.report.session_id, "3f2a9c1e-7b4d-4e8a-9c21-5d6e7f8a9b0c")
        gate = self.report.gate()
        self.assertEqual(list(gate), ["block", "blocked", "warned", "suppressed", "reason"])
        self.assertIs(gate["block"], True)
        self.assertEqual(gate["blocked"], ["checkout: ASSERTION_FAILED", "finding:native_crash: NATIVE_CRASH"])
        self.assertEqual(gate["reason"],
                         "release blocked: checkout: ASSERTION_FAILED, finding:native_crash: NATIVE_CRASH")

    def test_junit_parses_and_counts(self):
        body, gate = self.report.render_bytes("junit")
        self.assertTrue(body.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n'))
        assert_junit_valid(self, body)
        self.assertFalse(body.endswith(b"\n"))
        self.assertIs(gate["block"], True)
        root = ET.fromstring(body)
        self.assertEqual(root.tag, "testsuites")
        # 4 workflows + 3 findings; checkout and the high native crash fail; the blocked workflow is skipped.
        self.assertEqual(junit_counts(root), (7, 2, 1))
        suites = root.findall("testsuite")
        self.assertEqual([s.get("name") for s in suites], ["swipium.com.example.shop", "swipium.com.example.shop.findings"])
        self.assertEqual(len(suites[0].findall("testcase")), 4)
        self.assertEqual(len(suites[1].findall("testcase")), 3)
        props = {p.get("name"): p.get("value") for p in suites[0].iter("property")}
        self.assertEqual(props["swipium.releaseGate"], "fail")
        failed = [c.get("name") for c in root.iter("testcase") if c.find("failure") is not None]
        self.assertEqual(failed, ["checkout", "[high] native/native_crash"])
        skipped = [c.get("name") for c in root.iter("testcase") if c.find("skipped") is not None]
        self.assertEqual(skipped, ["edit profile"])

    def test_sarif_parses_and_counts(self):
        sarif = json.loads(self.report.render("sarif"))
        assert_sarif_valid(sarif)
        self.assertEqual(sarif["version"], "2.1.0")
        run = sarif["runs"][0]
        self.assertEqual(run["tool"]["driver"]["name"], "swipium")
        results = run["results"]
        self.assertEqual([r["ruleId"] for r in results], ["NATIVE_CRASH", "LOGBOX", "PERMISSION_DIALOG", "ASSERTION_FAILED"])
        self.assertEqual([r["level"] for r in results], ["error", "warning", "note", "error"])
        self.assertEqual(run["properties"]["releaseGateVerdict"], "block")
        self.assertEqual(len({r["partialFingerprints"]["swipium/v1"] for r in results}), 4)

    def test_json_adds_release_gate(self):
        out = json.loads(self.report.render("json"))
        with open(SAMPLE, encoding="utf-8") as f:
            original = json.load(f)
        self.assertEqual(list(out)[-1], "releaseGate")
        self.assertEqual(out["releaseGate"], self.report.gate())
        del out["releaseGate"]
        self.assertEqual(out, original)

    def test_github_summary_and_markdown(self):
        summary = self.report.render("github-summary")
        lines = summary.split("\n")
        self.assertEqual(lines[0], "## Swipium QA: 🔴 BLOCK")
        self.assertIn("Findings: **1 high** · 1 medium · 1 low.", summary)
        self.assertTrue(summary.endswith("_Generated by Swipium._"))
        md = self.report.render("markdown")
        self.assertTrue(md.startswith("# QA report: com.example.shop\n"))

    def test_policy_changes_the_gate(self):
        with tempfile.TemporaryDirectory() as root:
            os.mkdir(os.path.join(root, ".swipium"))
            with open(os.path.join(root, ".swipium", "policy.json"), "w") as f:
                json.dump({"blockOn": ["crash"], "warnOn": ["app_bug"]}, f)
            gate = self.report.gate(project_root=root)
            self.assertEqual(gate["blocked"], ["finding:native_crash: NATIVE_CRASH"])
            self.assertEqual(gate["warned"], ["checkout: ASSERTION_FAILED"])
            body = self.report.render_bytes("junit", project_root=root)[0]
            assert_junit_valid(self, body)
            junit = ET.fromstring(body)
            self.assertEqual(junit_counts(junit), (7, 1, 2))

    def test_from_bytes_equals_from_file(self):
        with open(SAMPLE, "rb") as f:
            data = f.read()
        with swipium.Report.from_bytes(data) as r:
            for fmt in swipium.FORMATS:
                self.assertEqual(r.render_bytes(fmt), self.report.render_bytes(fmt), fmt)


class FindReportTest(unittest.TestCase):
    def test_finds_the_newest_session_report(self):
        with tempfile.TemporaryDirectory() as d:
            home = os.path.join(d, "home")
            root = os.path.realpath(os.path.join(d, "app"))
            os.makedirs(root)
            with self.assertRaises(swipium.InvalidArgumentError) as cm:
                swipium.find_report(root, home=home)
            self.assertIn(f"No Swipium session with a report found for project {root}", cm.exception.message)

            project = hashlib.sha256(root.encode()).hexdigest()[:16]
            paths = {}
            for sid, created, ms in (("aaaa1111", 1000, "1700000000001"), ("bbbb2222", 2000, "1700000000002")):
                sdir = os.path.join(home, ".swipium", "runs", project, sid)
                os.makedirs(os.path.join(sdir, "report"))
                with open(os.path.join(sdir, "state.json"), "w") as f:
                    json.dump({"id": sid, "root": root, "createdAt": created}, f)
                paths[sid] = os.path.join(sdir, "report", f"report-{ms}.json")
                with open(paths[sid], "w") as f:
                    f.write("{}")
            # Not a report by name: must be ignored.
            open(os.path.join(os.path.dirname(paths["bbbb2222"]), "report-9999999999999.sarif.json"), "w").close()

            self.assertEqual(swipium.find_report(root, home=home), paths["bbbb2222"])
            self.assertEqual(swipium.find_report(root, home=home, session_id="aaaa1111"), paths["aaaa1111"])
            with self.assertRaises(swipium.InvalidArgumentError) as cm:
                swipium.find_report(root, home=home, session_id="cccc3333")
            self.assertEqual(cm.exception.message, f'No persisted Swipium session "cccc3333" for project {root}.')


class ReportErrorTest(unittest.TestCase):
    def test_json_that_is_not_a_report(self):
        for text in (b'{"foo": 1}', b"[]", b'{"findings": [], "testOutcomes": {}}', b'"findings"'):
            with self.assertRaises(swipium.InvalidArgumentError, msg=text) as cm:
                swipium.Report.from_bytes(text)
            e = cm.exception
            self.assertEqual(e.code_name, "SW_EINVAL")
            self.assertIn("not a Swipium report JSON (missing findings/testOutcomes)", e.message)

    def test_file_that_is_not_a_report_names_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "package.json")
            with open(p, "w") as f:
                f.write('{"name": "app"}')
            with self.assertRaises(swipium.InvalidArgumentError) as cm:
                swipium.Report.from_file(p)
            self.assertIn(p, cm.exception.message)

    def test_not_json(self):
        for text in (b"", b'{"findings": [', b"not json", b"\xff\xfe"):
            with self.assertRaises(swipium.InvalidArgumentError, msg=text) as cm:
                swipium.Report.from_bytes(text)
            self.assertEqual(cm.exception.code, -1)
            self.assertEqual(cm.exception.failure_code, "INVALID_ARGUMENT")
            self.assertTrue(cm.exception.message)

    def test_missing_file(self):
        with self.assertRaises(swipium.InvalidArgumentError) as cm:
            swipium.Report.from_file("/nonexistent/report-1.json")
        self.assertIn("/nonexistent/report-1.json", cm.exception.message)

    def test_unknown_format_and_closed_report(self):
        r = swipium.Report.from_file(SAMPLE)
        with self.assertRaises(ValueError):
            r.render("html")
        with self.assertRaises(ValueError):
            r.render("JUnit ")
        r.close()
        r.close()
        with self.assertRaises(ValueError):
            r.render("junit")

    def test_hostile_strings_render_valid_output(self):
        with open(SAMPLE, encoding="utf-8") as f:
            r = json.load(f)
        r["appId"] = "\x1b[31mred\x00</testsuite><x>&"
        r["testOutcomes"][2]["reason"] = "a | b <script>alert(1)</script> \ud800 end"
        data = json.dumps(r).encode("ascii")  # lone surrogate travels as \ud800
        with swipium.Report.from_bytes(data) as rep:
            junit = rep.render_bytes("junit")[0]
            ET.fromstring(junit)
            assert_junit_valid(self, junit)
            assert_sarif_valid(json.loads(rep.render("sarif")))
            out = json.loads(rep.render("json"))
            self.assertTrue(out["appId"].startswith("\x1b[31mred"))

    def test_multi_megabyte_strings_cross_intact(self):
        with open(SAMPLE, encoding="utf-8") as f:
            r = json.load(f)
        big = "é" * (3 << 20)  # 6 MiB of UTF-8
        r["findings"][0]["detail"] = big
        with swipium.Report.from_bytes(json.dumps(r, ensure_ascii=False)) as rep:
            sarif = json.loads(rep.render("sarif"))
            self.assertTrue(sarif["runs"][0]["results"][0]["message"]["text"].startswith(big))
            self.assertEqual(json.loads(rep.render("json"))["findings"][0]["detail"], big)


class CheckedOptionsTest(unittest.TestCase):
    """The library's one options loader: unknown keys and wrong types are refused, never ignored."""

    FLOW = "name: x\nsteps:\n  - tap: Sign in\n"

    def test_valid_options_lint(self):
        res = swipium.flow_check({"flowYaml": self.FLOW, "platform": "android"})
        self.assertTrue(res["valid"], res)

    def test_misspelt_key_is_named(self):
        with self.assertRaises(swipium.InvalidArgumentError) as cm:
            swipium.flow_check({"flowYaml": self.FLOW, "fitler": "Sign"})
        e = cm.exception
        self.assertEqual(e.failure_code, "INVALID_ARGUMENT")
        self.assertIn('"fitler"', e.message)
        self.assertEqual(e.details["unknownOptions"], ["fitler"])

    def test_wrong_type_is_named(self):
        with self.assertRaises(swipium.InvalidArgumentError) as cm:
            swipium.flow_check({"flowYaml": self.FLOW, "ci": "yes"})
        self.assertIn('"ci" must be a boolean', cm.exception.message)
        self.assertEqual(cm.exception.details["wrongTypes"], ["ci"])


class MemoryTest(unittest.TestCase):
    def test_render_many_times_without_growth(self):
        data = big_report(300)
        # Warm up: the allocator and Python's caches settle on their working set first.
        for fmt in swipium.FORMATS:
            with swipium.Report.from_bytes(data) as r:
                r.render_bytes(fmt)
                r.gate()
        gc.collect()
        before = rss_kib()
        size = 0
        for i in range(1000):
            with swipium.Report.from_bytes(data) as r:
                body, gate = r.render_bytes(swipium.FORMATS[i % len(swipium.FORMATS)])
                size += len(body)
                r.gate()
        gc.collect()
        grown = rss_kib() - before
        # 1,000 renders hand out more than ten times the bound, so losing even the output buffers (or
        # the loaded reports, which are larger) would exceed it.
        bound = 8 * 1024
        self.assertGreater(size // 1024, 10 * bound, "report too small to reveal a leak")
        self.assertLess(grown, bound, f"RSS grew by {grown} KiB over 1,000 renders ({size // 1024} KiB rendered)")


if __name__ == "__main__":
    unittest.main(verbosity=2)
