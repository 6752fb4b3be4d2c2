"""`swipium scan` through argv, exit codes, stdout and the files it leaves on disk: READY / PARTIAL /
BLOCKED, the starter files and what it must never touch (.gitignore, a user's fixtures.json, folders
outside the project, git itself)."""

import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

CLI = os.environ.get("SWIPIUM_CLI", "swipium")
HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, "emulator-standin.sh")


def write(root, rel, text=""):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text if isinstance(text, str) else json.dumps(text))


def tree(root):
    """Every path under root with its bytes (files) or None (folders, links as their target)."""
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                out[rel] = "->" + os.readlink(p)
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[rel] = f.read()
            else:
                out[rel] = None
    return out


class Scan(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-scan-")
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        # a git that leaves a mark: scan must never run it
        self.git_mark = os.path.join(self.tmp, "git-was-run")
        with open(os.path.join(self.bin, "git"), "w") as f:
            f.write("#!/bin/sh\ntouch %s\n" % self.git_mark)
        os.chmod(os.path.join(self.bin, "git"), 0o755)
        # an SDK whose adb lists no device and whose emulator knows two AVDs (the test stand-in)
        self.sdk = os.path.join(self.tmp, "sdk")
        os.makedirs(os.path.join(self.sdk, "platform-tools"))
        os.makedirs(os.path.join(self.sdk, "emulator"))
        adb = os.path.join(self.sdk, "platform-tools", "adb")
        with open(adb, "w") as f:
            f.write("#!/bin/sh\necho 'List of devices attached'\necho\n")
        os.chmod(adb, 0o755)
        os.symlink(STANDIN, os.path.join(self.sdk, "emulator", "emulator"))
        self.nosdk = os.path.join(self.tmp, "nosdk")
        os.makedirs(self.nosdk)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def scan(self, *args, cwd=None, sdk=True):
        env = {"HOME": self.home, "PATH": self.bin,
               "ANDROID_HOME": self.sdk if sdk else self.nosdk, "ANDROID_SDK_ROOT": self.sdk if sdk else self.nosdk}
        p = subprocess.run([CLI, "scan"] + list(args), cwd=cwd or self.tmp, env=env, capture_output=True,
                           timeout=60)
        self.assertFalse(os.path.exists(self.git_mark), "swipium scan ran git")
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def app(self, name="app", apk=True, extra=None):
        root = os.path.join(self.tmp, name)
        write(root, "package.json", {"dependencies": {"expo": "*", "react-native": "*",
                                                      "@react-native-firebase/auth": "*"}})
        write(root, "app.json", {"expo": {"android": {"package": "com.acme.shop"}}})
        if apk:
            write(root, "android/app/build/outputs/apk/debug/app-debug.apk", "PK")
        for rel, text in (extra or {}).items():
            write(root, rel, text)
        return root

    def test_help_and_bad_paths_write_nothing(self):
        root = self.app()
        before = tree(root)
        for flag in ("--help", "-h"):
            code, out, _ = self.scan(flag, cwd=root)
            self.assertEqual(code, 0)
            self.assertIn("Usage: swipium scan", out)
        code, out, _ = self.scan(os.path.join(self.tmp, "missing"))
        self.assertEqual(code, 2)
        self.assertEqual(out, "Path not found: %s\n" % os.path.join(self.tmp, "missing"))
        code, out, err = self.scan("--bogus", root)
        self.assertEqual(code, 2)
        self.assertIn("unknown flag --bogus", err)
        self.assertEqual(tree(root), before)

    def test_ready_writes_the_starters_once(self):
        root = self.app(extra={".gitignore": "node_modules/\n# keep me\n", ".git/HEAD": "ref: refs/heads/main\n"})
        with open(os.path.join(root, ".gitignore"), "rb") as f:
            gitignore = f.read()
        code, out, _ = self.scan(root)
        self.assertEqual(code, 0, out)
        lines = out.splitlines()
        self.assertEqual(lines[0], "Scanning %s" % os.path.realpath(root))
        self.assertEqual(lines[1], "READY")
        self.assertIn("framework: expo (package.json depends on expo with an Expo app config)", lines)
        self.assertIn("appId: com.acme.shop (from app.json expo.android.package)", lines)
        self.assertIn("artifacts: 1 installable (android/app/build/outputs/apk/debug/app-debug.apk)", lines)
        self.assertIn("devices: AVD(s) that can boot: Pixel_7_API_34, broken", lines)
        self.assertTrue(any(l.startswith("metro: needed for debug builds") for l in lines))
        self.assertTrue(any(l.startswith("fresh start: unsafe on debug builds") for l in lines))
        self.assertIn("likely auth: yes (@react-native-firebase/auth)", lines)
        self.assertIn("recommended profile: guardrail", lines)
        self.assertNotIn("to fix:", lines)
        sw = os.path.join(root, ".swipium")
        cfg = json.load(open(os.path.join(sw, "config.json")))
        self.assertEqual(cfg["scan"]["verdict"], "READY")
        self.assertEqual(cfg["scan"]["appId"], "com.acme.shop")
        fx = json.load(open(os.path.join(sw, "fixtures.json")))
        self.assertEqual(fx["fixtures"], [])
        self.assertIsInstance(fx["_doc"], str)
        self.assertTrue(os.path.isfile(os.path.join(sw, "flows", "README.md")))
        self.assertTrue(os.path.isdir(os.path.join(sw, "packs")))
        with open(os.path.join(root, ".gitignore"), "rb") as f:
            self.assertEqual(f.read(), gitignore)
        # a user's fixtures and settings stay; config.json's scan is rewritten
        with open(os.path.join(sw, "fixtures.json"), "w") as f:
            f.write('{"fixtures": [{"role": "mine"}]}')
        cfg["ocrCommand"] = ["my-ocr"]
        cfg["scan"]["verdict"] = "stale"
        with open(os.path.join(sw, "config.json"), "w") as f:
            json.dump(cfg, f)
        code, out, _ = self.scan(root)
        self.assertEqual(code, 0)
        self.assertIn("kept (already there): .swipium/fixtures.json, .swipium/flows/README.md", out)
        self.assertEqual(open(os.path.join(sw, "fixtures.json")).read(), '{"fixtures": [{"role": "mine"}]}')
        cfg = json.load(open(os.path.join(sw, "config.json")))
        self.assertEqual(cfg["ocrCommand"], ["my-ocr"])
        self.assertEqual(cfg["scan"]["verdict"], "READY")
        self.assertFalse(os.path.exists(os.path.join(self.home, ".gitignore")))

    def test_check_only_and_blocked_write_nothing(self):
        root = self.app()
        before = tree(root)
        for flag in ("--check", "--dry-run", "--no-write"):
            code, out, _ = self.scan(root, flag)
            self.assertEqual(code, 0)
            self.assertIn("\nREADY\n", out)
        self.assertEqual(tree(root), before)
        blocked = self.app("noapk", apk=False)
        before = tree(blocked)
        code, out, _ = self.scan(blocked)
        self.assertEqual(code, 0)
        self.assertIn("\nBLOCKED\n", out)
        self.assertIn("artifacts: none", out)
        self.assertIn("to fix:\n  - no installable build: build a debug APK", out)
        self.assertEqual(tree(blocked), before)
        code, out, _ = self.scan(root, sdk=False)
        self.assertIn("\nBLOCKED\n", out)
        self.assertIn("devices: none", out)
        self.assertIn("adb not found", out)
        self.assertIn("no emulator online and no AVD", out)

    def test_partial_and_monorepo_root(self):
        root = os.path.join(self.tmp, "mono")
        write(root, "package.json", {"workspaces": ["apps/*"]})
        write(root, "apps/mobile/package.json", {"dependencies": {"expo": "*", "expo-router": "*"}})
        write(root, "apps/tablet/package.json", {"dependencies": {"react-native": "*"}})
        write(root, "apps/web/package.json", {"dependencies": {"next": "*"}})
        write(root, "android/app/build/outputs/apk/release/app-release.apk", "PK")
        code, out, _ = self.scan(root)
        self.assertEqual(code, 0)
        self.assertIn("\nPARTIAL\n", out)
        self.assertIn("monorepo: 2 mobile app(s): apps/mobile (expo), apps/tablet (bare-react-native)", out)
        self.assertIn("  scan one: swipium scan apps/mobile\n", out)
        self.assertIn("pick one app of the monorepo", out)

    def test_refuses_writing_through_a_link_out(self):
        root = self.app()
        outside = os.path.join(self.tmp, "outside")
        os.makedirs(outside)
        os.symlink(outside, os.path.join(root, ".swipium"))
        code, out, err = self.scan(root)
        self.assertEqual(code, 1)
        self.assertIn("UNSAFE_ACTION_REFUSED", err)
        self.assertEqual(os.listdir(outside), [])
        # .swipium as a plain file: a clear error, the file untouched
        root2 = self.app("app2")
        write(root2, ".swipium", "not a folder")
        code, out, err = self.scan(root2)
        self.assertEqual(code, 1)
        self.assertIn("swipium scan:", err)
        with open(os.path.join(root2, ".swipium")) as f:
            self.assertEqual(f.read(), "not a folder")


    def test_real_app_trees(self):
        """The vendored real trees (tests/data/apptrees, see PROVENANCE) in check mode: the lines a user reads,
        and the tree left exactly as it was."""
        src = os.path.join(os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE)),
                           "tests", "data", "apptrees")
        cases = {"expo-template-tabs": "framework: expo", "rn-community-template": "framework: bare-react-native",
                 "t3-turbo-expo-react-navigation": "monorepo: "}
        for name, line in cases.items():
            if not os.path.isdir(os.path.join(src, name)):
                continue
            root = os.path.join(self.tmp, name)
            shutil.copytree(os.path.join(src, name), root, symlinks=True)
            before = tree(root)
            for flag in ("--check", "--dry-run", "--no-write"):
                code, out, _ = self.scan(root, flag)
                self.assertEqual(code, 0, out)
                self.assertTrue(out.startswith("Scanning %s\n" % os.path.realpath(root)), out)
                self.assertIn(line, out)
                self.assertRegex(out, r"\n(READY|PARTIAL|BLOCKED)\n")
                for prefix in ("appId:", "artifacts:", "devices:", "metro:", "fresh start:", "likely auth:",
                               "recommended profile:"):
                    self.assertIn("\n" + prefix, out)
            self.assertEqual(tree(root), before)

if __name__ == "__main__":
    unittest.main(verbosity=2)
