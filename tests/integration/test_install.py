"""Installs the build into a staging tree and consumes it the way a third party would: via swipium.pc."""

import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_ROOT = os.environ.get("SWIPIUM_BUILD_ROOT")
VERSION = os.environ.get("SWIPIUM_EXPECTED_VERSION")
SAMPLE = os.path.join(SOURCE_ROOT, "examples", "sample-report.json")
MAKEFILE = os.path.join(SOURCE_ROOT, "examples", "Makefile")

# What a static consumer of libswipium must link, as -l names (libpng may be versioned, e.g. png16).
STATIC_NEEDS = {
    "jansson": r"jansson",
    "yaml": r"yaml",
    "xml2": r"xml2",
    # No curl: libswipium dlopen()s libcurl.so.4 on the first HTTP probe, so nobody links it. While some
    # module still calls libcurl directly, the NEEDED check below keeps -lcurl listed.
    "png": r"png\d*",
    "z": r"z",
    "nettle": r"nettle",
    "pthread": r"pthread",
    "m": r"m",
}


def junit_counts(root):
    """(tests, failures, skipped); skipped is summed over <testsuite> (the schema has none on <testsuites>)."""
    return root.get("tests"), root.get("failures"), str(sum(int(s.get("skipped", "0")) for s in root.findall("testsuite")))


def run(cmd, env=None, cwd=None, check=True):
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BUILD_ROOT:
            raise unittest.SkipTest("SWIPIUM_BUILD_ROOT is not set (run through meson test)")
        cls.tmp = tempfile.mkdtemp(prefix="swipium-install-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.destdir = os.path.join(cls.tmp, "stage")
        meson = shutil.which("meson") or "meson"
        run([meson, "install", "-C", BUILD_ROOT, "--no-rebuild", "--quiet", "--destdir", cls.destdir])
        pcs = glob.glob(os.path.join(cls.destdir, "**", "pkgconfig", "swipium.pc"), recursive=True)
        if len(pcs) != 1:
            raise AssertionError(f"expected one installed swipium.pc under {cls.destdir}, found {pcs}")
        cls.pc = pcs[0]
        cls.env = dict(os.environ)
        # The .pc file is used exactly as installed; the sysroot maps its prefix into the staging tree.
        cls.env["PKG_CONFIG_PATH"] = os.path.dirname(cls.pc)
        cls.env["PKG_CONFIG_SYSROOT_DIR"] = cls.destdir
        # Variables are read without the sysroot (pkgconf would prefix them, pkg-config would not).
        raw = dict(cls.env)
        del raw["PKG_CONFIG_SYSROOT_DIR"]
        cls.prefix = run(["pkg-config", "--variable=prefix", "swipium"], env=raw).stdout.strip()
        cls.libdir = cls.destdir + run(["pkg-config", "--variable=libdir", "swipium"], env=raw).stdout.strip()
        cls.includedir = cls.destdir + run(["pkg-config", "--variable=includedir", "swipium"], env=raw).stdout.strip()
        cls.run_env = dict(cls.env)
        cls.run_env["LD_LIBRARY_PATH"] = cls.libdir
        cls.out = os.path.join(cls.tmp, "out")
        os.mkdir(cls.out)

    @classmethod
    def pkgconfig(cls, *args):
        return run(["pkg-config", *args, "swipium"], env=cls.env).stdout

    # --- the pkg-config file -------------------------------------------------------------------

    def test_pc_version_and_paths(self):
        if VERSION:
            self.assertEqual(self.pkgconfig("--modversion").strip(), VERSION)
        self.assertTrue(os.path.isabs(self.prefix), self.prefix)
        self.assertTrue(self.libdir.startswith(self.destdir + self.prefix + "/"), self.libdir)
        # Relocatable: only the prefix line names the prefix; every other path is built from ${prefix}.
        with open(self.pc) as f:
            lines = f.read().splitlines()
        self.assertIn("prefix=" + self.prefix, lines)
        self.assertEqual([ln for ln in lines if self.prefix in ln and not ln.startswith("prefix=")], [])
        cflags = self.pkgconfig("--cflags").split()
        self.assertIn("-I" + self.includedir, cflags)
        libs = self.pkgconfig("--libs").split()
        self.assertIn("-L" + self.libdir, libs)
        self.assertIn("-lswipium", libs)
        # A shared consumer needs nothing but libswipium: the dependencies stay private.
        self.assertEqual([t for t in libs if t.startswith("-l")], ["-lswipium"])
        self.assertTrue(os.path.exists(os.path.join(self.libdir, "libswipium.so")))

    def test_static_libs_cover_every_dependency(self):
        libs = self.pkgconfig("--static", "--libs").split()
        names = {t[2:] for t in libs if t.startswith("-l")}
        missing = [k for k, pat in STATIC_NEEDS.items() if not any(re.fullmatch(pat, n) for n in names)]
        self.assertEqual(missing, [], f"pkg-config --static --libs swipium lacks {missing}: {' '.join(libs)}")
        # Whatever the shared library actually links must also be named for static consumers.
        lib = os.path.realpath(os.path.join(self.libdir, "libswipium.so"))
        dyn = run(["readelf", "-d", lib]).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[lib([^\].]+)\.so", dyn)
        self.assertTrue(needed, dyn)
        system = {"c", "dl", "rt", "gcc_s"}  # implied by the compiler driver
        # libyaml's soname is libyaml-0.so.2 while pkg-config names it -lyaml: drop a "-<digits>" suffix.
        unlisted = [n for n in needed if n not in system and n not in names and re.sub(r"-\d+$", "", n) not in names]
        self.assertEqual(unlisted, [], f"libswipium.so needs {unlisted} but swipium.pc does not list them")

    def test_every_public_header_is_installed_and_self_contained(self):
        src = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SOURCE_ROOT, "libswipium", "include", "swipium", "*.h")))
        inst_dir = os.path.join(self.includedir, "swipium")
        installed = sorted(os.listdir(inst_dir))
        self.assertEqual(installed, sorted(src + ["version.h"]))
        cflags = self.pkgconfig("--cflags").split()
        for h in installed:
            with self.subTest(header=h):
                unit = f"#include <swipium/{h}>\n#include <swipium/{h}>\nint swipium_header_probe;\n"
                p = subprocess.run(["cc", "-std=c11", "-pedantic-errors", "-Wall", "-Wextra", "-Werror", *cflags,
                                    "-fsyntax-only", "-x", "c", "-"], input=unit, capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stderr)

    # --- a consumer built with the Makefile ----------------------------------------------------

    def build_example(self):
        exe = os.path.join(self.out, "render-report")
        if not os.path.exists(exe):
            # Strict warnings: the example is also a check that the public headers need no allowances.
            run(["make", "--no-print-directory", "-f", MAKEFILE, "-C", self.out,
                 "WARNFLAGS=-Wall -Wextra -Wpedantic -Wstrict-prototypes -Wmissing-prototypes -Werror"], env=self.env)
        return exe

    def test_example_links_the_staged_library(self):
        exe = self.build_example()
        ldd = run(["ldd", exe], env=self.run_env).stdout
        line = next((ln for ln in ldd.splitlines() if "libswipium.so" in ln), "")
        self.assertIn(self.libdir, line, ldd)

    def test_example_renders_junit_and_exits_on_the_gate(self):
        exe = self.build_example()
        p = run([exe, SAMPLE, "junit"], env=self.run_env, check=False)
        self.assertEqual(p.returncode, 1, p.stderr)  # the sample report's gate blocks
        root = ET.fromstring(p.stdout.encode())
        self.assertEqual(junit_counts(root), ("7", "2", "1"))
        self.assertEqual(p.stderr, "Release gate: BLOCK: release blocked: checkout: ASSERTION_FAILED, "
                                   "finding:native_crash: NATIVE_CRASH\n")

    def test_example_every_format(self):
        exe = self.build_example()
        for fmt in ("junit", "sarif", "github-summary", "markdown", "json"):
            with self.subTest(fmt=fmt):
                p = run([exe, SAMPLE, fmt], env=self.run_env, check=False)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertTrue(p.stdout.endswith("\n") and not p.stdout.endswith("\n\n"))
                if fmt == "sarif":
                    self.assertEqual(len(json.loads(p.stdout)["runs"][0]["results"]), 4)
                elif fmt == "json":
                    self.assertIs(json.loads(p.stdout)["releaseGate"]["block"], True)
                elif fmt == "github-summary":
                    self.assertTrue(p.stdout.startswith("## Swipium QA: "))
                else:
                    self.assertTrue(p.stdout.startswith("<?xml") if fmt == "junit" else p.stdout.startswith("# QA report: "))

    def test_example_policy_passes_the_gate(self):
        exe = self.build_example()
        root = os.path.join(self.tmp, "project")
        os.makedirs(os.path.join(root, ".swipium"), exist_ok=True)
        with open(os.path.join(root, ".swipium", "policy.json"), "w") as f:
            json.dump({"ignoreKnown": ["ASSERTION_FAILED", "native_crash"]}, f)
        p = run([exe, SAMPLE, "junit", root], env=self.run_env, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stderr.startswith("Release gate: PASS: passed (suppressed known issues: "), p.stderr)
        tree = ET.fromstring(p.stdout.encode())
        self.assertEqual(junit_counts(tree), ("7", "0", "3"))

    def test_example_errors(self):
        exe = self.build_example()
        p = run([exe, os.path.join(self.tmp, "missing.json")], env=self.run_env, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("missing.json", p.stderr)
        self.assertEqual(p.stdout, "")
        notreport = os.path.join(self.tmp, "not-a-report.json")
        with open(notreport, "w") as f:
            f.write('{"name": "app"}')
        p = run([exe, notreport], env=self.run_env, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("is not a Swipium report JSON", p.stderr)
        self.assertIn("[SW_EINVAL", p.stderr)
        p = run([exe, SAMPLE, "html"], env=self.run_env, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn('unknown format "html"', p.stderr)

    @unittest.skipUnless(shutil.which("valgrind"), "valgrind not installed")
    def test_example_frees_everything_it_is_given(self):
        # The public API's ownership rules, followed by a consumer, leave no definite leak and no
        # invalid access: on success (every format) and on each error path.
        exe = self.build_example()
        notreport = os.path.join(self.tmp, "not-a-report-vg.json")
        with open(notreport, "w") as f:
            f.write('{"findings": {}}')
        cases = [[SAMPLE, fmt] for fmt in ("junit", "sarif", "github-summary", "markdown", "json")]
        cases += [[notreport], [os.path.join(self.tmp, "absent.json")]]
        for args in cases:
            with self.subTest(args=args):
                p = run(["valgrind", "-q", "--leak-check=full", "--errors-for-leak-kinds=definite",
                         "--error-exitcode=99", exe, *args], env=self.run_env, check=False)
                self.assertNotEqual(p.returncode, 99, p.stderr[-4000:])
                self.assertIn(p.returncode, (1, 2), p.stderr[-4000:])

    # --- the installed CLI ---------------------------------------------------------------------

    def test_installed_cli_runs_from_the_staged_tree(self):
        cli = self.destdir + self.prefix + "/bin/swipium"
        self.assertTrue(os.access(cli, os.X_OK), cli)
        p = run([cli, "--version"], env=self.run_env)
        if VERSION:
            self.assertIn(VERSION, p.stdout)
        ldd = run(["ldd", cli], env=self.run_env).stdout
        self.assertIn(self.libdir, next(ln for ln in ldd.splitlines() if "libswipium.so" in ln))
        # `swipium serve` execs the swipium-mcp installed beside it.
        if os.path.exists(os.path.join(BUILD_ROOT, "swipium-mcp", "swipium-mcp")):
            self.assertTrue(os.access(os.path.join(os.path.dirname(cli), "swipium-mcp"), os.X_OK))

    def test_installed_binaries_start_in_a_clean_environment(self):
        """Issue 11 item 21: outside the loader's default paths (the staging tree), with no LD_LIBRARY_PATH, the
        installed binaries find libswipium through their relative rpath, and still do after the tree moves."""
        bindir = self.destdir + self.prefix + "/bin"
        cli = os.path.join(bindir, "swipium")
        dyn = run(["readelf", "-d", cli]).stdout
        self.assertRegex(dyn, r"\((RUN)?PATH\).*\[\$ORIGIN/\.\./", dyn)
        home = tempfile.mkdtemp(dir=self.tmp)
        clean = {"PATH": "/usr/bin:/bin", "HOME": home}
        p = run([cli, "--version"], env=clean, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        if VERSION:
            self.assertIn(VERSION, p.stdout)
        if not os.path.exists(os.path.join(bindir, "swipium-mcp")):
            return
        p = run([cli, "verify"], env=clean, cwd=home, check=False)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("verify OK", p.stdout)
        # relocatable: the same tree copied elsewhere starts too
        moved = os.path.join(self.tmp, "moved")
        shutil.copytree(self.destdir + self.prefix, moved, symlinks=True)
        p = run([os.path.join(moved, "bin", "swipium-mcp"), "--version"], env=clean, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
