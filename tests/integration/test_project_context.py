"""The project-context detector as a user meets it: qa_resolve_target include:["context"] through the real
server, on project trees written here (every framework, a monorepo with mobile, web and desktop workspaces)
and on the vendored real app trees, with no device tools on PATH so the context rides the error envelope."""

import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "mcp"))
from mcpclient import Server  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
APPTREES = os.path.join(SOURCE_ROOT, "tests", "data", "apptrees")


def sc(resp):
    return resp["result"]["structuredContent"]


def write(root, rel, text=""):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text if isinstance(text, str) else json.dumps(text))


class Context(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-context-")
        self.home = os.path.join(self.tmp, "home")
        self.empty_sdk = os.path.join(self.tmp, "sdk")
        os.makedirs(self.home)
        os.makedirs(self.empty_sdk)
        # no adb, no emulator: selection fails, the context must still be on the error envelope
        self.s = Server(env={"HOME": self.home, "PATH": os.path.join(self.tmp, "nobin"),
                             "ANDROID_HOME": self.empty_sdk, "ANDROID_SDK_ROOT": self.empty_sdk})
        self.s.initialize()

    def tearDown(self):
        self.s.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def context(self, root):
        r = self.s.tool("qa_resolve_target", {"projectRoot": root, "include": ["context"]})
        res = sc(r)
        self.assertTrue(r["result"].get("isError"), res)
        self.assertEqual(res["failureCode"], "ADB_NOT_FOUND")
        self.assertIn("context", res, res)
        return res["context"]

    def project(self, name, files):
        root = os.path.join(self.tmp, name)
        os.makedirs(root)
        for rel, text in files.items():
            if rel.endswith("/"):
                os.makedirs(os.path.join(root, rel), exist_ok=True)
            else:
                write(root, rel, text)
        return root

    def test_frameworks(self):
        cases = {
            "expo-config": ({"package.json": {"dependencies": {"expo": "~51.0.0", "react-native": "0.74.0"}},
                             "app.json": {"expo": {"name": "x", "android": {"package": "com.acme.shop"}}}},
                            "expo", "com.acme.shop", "app.json expo.android.package"),
            "expo-router": ({"package.json": {"dependencies": {"expo": "*", "expo-router": "*"}}}, "expo", None, None),
            "expo-modules-bare": ({"package.json": {"dependencies": {"expo": "*", "react-native": "*"}},
                                   "android/app/build.gradle": "android {\n  // applicationId \"com.commented.out\"\n"
                                                               "  defaultConfig { applicationId \"com.acme.bare\" }\n}\n",
                                   "ios/": ""},
                                  "bare-react-native", "com.acme.bare", "android/app/build.gradle applicationId"),
            "rn": ({"package.json": {"dependencies": {"react-native": "0.73.0"}}, "android/": "", "ios/": ""},
                   "bare-react-native", None, None),
            "flutter": ({"pubspec.yaml": "name: x\ndependencies:\n  flutter:\n    sdk: flutter\n",
                         "lib/main.dart": "void main() {}\n"}, "flutter", None, None),
            "android": ({"settings.gradle.kts": "include(\":app\")\n",
                         "app/build.gradle.kts": "android { namespace = \"com.acme.native\" }\n"},
                        "native-android", "com.acme.native", "app/build.gradle.kts namespace"),
            "ios": ({"Acme.xcodeproj/project.pbxproj": "PRODUCT_BUNDLE_IDENTIFIER = com.acme.iosTests;\n"
                                                       "PRODUCT_BUNDLE_IDENTIFIER = com.acme.ios;\n"},
                    "native-ios", None, None),
            "web": ({"package.json": {"dependencies": {"next": "14", "react-dom": "18"}}}, "unknown", None, None),
            "dart-lib": ({"pubspec.yaml": "name: util\n"}, "unknown", None, None),
        }
        for name, (files, fw, app_id, source) in cases.items():
            with self.subTest(name):
                root = self.project(name, files)
                ctx = self.context(root)
                self.assertEqual(ctx["framework"], fw, ctx)
                self.assertFalse(ctx["monorepo"]["detected"], ctx)
                if app_id:
                    self.assertEqual(ctx["appId"], app_id)
                    self.assertEqual(ctx["appIdSource"], source)
                else:
                    self.assertNotIn("appId", ctx)
        ctx = self.context(os.path.join(self.tmp, "ios"))
        self.assertEqual(ctx["appIds"], [{"platform": "ios", "id": "com.acme.ios",
                                          "source": "./Acme.xcodeproj/project.pbxproj PRODUCT_BUNDLE_IDENTIFIER"}])
        self.assertEqual(ctx["platforms"], ["ios"])
        ctx = self.context(os.path.join(self.tmp, "web"))
        self.assertEqual(ctx["nonMobileKind"], "web")

    def test_monorepo(self):
        root = self.project("mono", {
            "package.json": {"private": True, "workspaces": ["apps/*", "packages/*", "../outside", "!apps/skip"]},
            "pnpm-workspace.yaml": "packages:\n  - 'tools/*'\n  - \"mobile\"\n",
            "apps/mobile/package.json": {"dependencies": {"expo": "*", "expo-router": "*", "react-native": "*"}},
            "apps/mobile/app.json": {"expo": {"android": {"package": "com.acme.mobile"}}},
            "apps/web/package.json": {"dependencies": {"next": "*", "react-dom": "*"}},
            "apps/desktop/package.json": {"dependencies": {"electron": "*"}},
            "packages/ui/package.json": {"peerDependencies": {"react-native": "*"}},
            "tools/flutter_app/pubspec.yaml": "dependencies:\n  flutter:\n    sdk: flutter\n",
            "tools/flutter_app/lib/main.dart": "",
            "mobile/settings.gradle": "",
        })
        # a symlinked workspace folder is not followed
        os.symlink(os.path.join(self.tmp, "mono", "apps", "mobile"), os.path.join(root, "apps", "linked"))
        ctx = self.context(root)
        mono = ctx["monorepo"]
        self.assertTrue(mono["detected"])
        self.assertEqual(mono["workspaceManifests"], ["package.json workspaces", "pnpm-workspace.yaml"])
        self.assertEqual([(a["path"], a["framework"]) for a in mono["apps"]],
                         [("apps/mobile", "expo"), ("tools/flutter_app", "flutter"), ("mobile", "native-android")])
        self.assertEqual(sorted((n["path"], n["kind"]) for n in mono["notMobile"]),
                         [("apps/desktop", "desktop"), ("apps/web", "web")])
        self.assertEqual(ctx["framework"], "unknown")
        self.assertNotIn("appRoot", ctx)

    def test_single_app_monorepo_and_native_pair(self):
        root = self.project("one", {
            "package.json": {"workspaces": {"packages": ["apps/*"]}},
            "apps/mobile/package.json": {"dependencies": {"react-native": "*"}},
            "apps/mobile/android/app/build.gradle": "defaultConfig { applicationId 'com.one.app' }",
        })
        ctx = self.context(root)
        self.assertTrue(ctx["monorepo"]["detected"])
        self.assertEqual(ctx["appRoot"], "apps/mobile")
        self.assertEqual(ctx["appFramework"], "bare-react-native")
        self.assertEqual(ctx["appId"], "com.one.app")
        pair = self.project("pair", {"android/settings.gradle": "", "ios/App.xcodeproj/project.pbxproj": ""})
        ctx = self.context(pair)
        self.assertEqual([(a["path"], a["framework"]) for a in ctx["monorepo"]["apps"]],
                         [("android", "native-android"), ("ios", "native-ios")])

    def test_real_trees(self):
        with open(os.path.join(APPTREES, "expected-context.json")) as f:
            expected = json.load(f)
        self.assertGreaterEqual(len(expected), 2)
        for name, want in expected.items():
            with self.subTest(name):
                ctx = self.context(os.path.join(APPTREES, name))
                self.assertEqual(ctx["framework"], want["framework"], ctx)
                self.assertEqual(ctx["monorepo"]["detected"], want.get("monorepo", False))
                if "apps" in want:
                    self.assertEqual([[a["path"], a["framework"]] for a in ctx["monorepo"]["apps"]], want["apps"])
                self.assertEqual(ctx.get("appId"), want.get("appId"))
                self.assertEqual(ctx["platforms"], ["android", "ios"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
