"""test_artifacts.py: qa_resolve_artifact through a real swipium-mcp: the metadata reader against `aapt dump
badging` on real APKs from npm packages and on APKs written from scratch, hostile files (not a zip, a Git LFS
pointer, zip bombs, 100,001 entries), the search layouts, ranking, realpath inside-ness and the error codes."""
import base64
import hashlib
import json
import os
import plistlib
import re
import shutil
import subprocess
import sys
import tarfile
import unittest
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mcpclient import ServerTestCase  # noqa: E402
import apkgen as g  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROVENANCE = os.path.join(HERE, "..", "..", "data", "apks", "real-apks.json")
CACHE = os.environ.get("SWIPIUM_APK_CACHE") or os.path.join(os.environ.get("TMPDIR", "/tmp"), "swipium-apk-cache")
AAPT = shutil.which("aapt")


def fetch_real_apks():
    """{package: [extracted apk paths]} and {package: why it was skipped}: npm pack into CACHE, integrity checked."""
    with open(PROVENANCE) as f:
        spec = json.load(f)
    os.makedirs(CACHE, exist_ok=True)
    got, skipped = {}, {}
    for p in spec["packages"]:
        name, ver = p["package"], p["version"]
        tgz = os.path.join(CACHE, f"{name}-{ver}.tgz")
        if not os.path.exists(tgz):
            try:
                r = subprocess.run(["npm", "pack", f"{name}@{ver}", "--pack-destination", CACHE, "--silent"],
                                   capture_output=True, text=True, timeout=300)
            except (OSError, subprocess.TimeoutExpired) as e:
                skipped[name] = f"npm pack failed: {e}"
                continue
            if r.returncode != 0 or not os.path.exists(tgz):
                skipped[name] = f"npm pack {name}@{ver} failed: {r.stderr.strip()[-300:]}"
                continue
        with open(tgz, "rb") as f:
            digest = "sha512-" + base64.b64encode(hashlib.sha512(f.read()).digest()).decode()
        if digest != p["integrity"]:
            os.unlink(tgz)
            raise AssertionError(f"{tgz}: integrity {digest} is not the recorded {p['integrity']}")
        out = os.path.join(CACHE, f"{name}-{ver}")
        paths = []
        with tarfile.open(tgz) as t:
            for member in p["apks"]:
                dest = os.path.join(out, os.path.basename(member))
                if not os.path.exists(dest):
                    os.makedirs(out, exist_ok=True)
                    with t.extractfile(member) as src, open(dest + ".part", "wb") as dst:
                        shutil.copyfileobj(src, dst)
                    os.replace(dest + ".part", dest)
                paths.append(dest)
        got[name] = paths
    return got, skipped


def aapt_badging(apk):
    """What aapt says: {appId, versionCode, versionName, minSdk, abis}, or None when aapt refuses the APK."""
    r = subprocess.run([AAPT, "dump", "badging", apk], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    out = {"minSdk": None, "abis": []}
    for line in r.stdout.splitlines():
        if line.startswith("package: "):
            m = re.match(r"package: name='(.*?)' versionCode='(.*?)' versionName='(.*?)'"
                         r"(?= platformBuildVersionName=| compileSdkVersion=|$)", line)
            out["appId"] = m.group(1)
            out["versionCode"] = int(m.group(2)) if m.group(2) else None
            out["versionName"] = m.group(3) or None
        elif line.startswith("sdkVersion:"):
            v = line.split(":", 1)[1].strip("'")
            out["minSdk"] = int(v) if v.isdigit() else v
        elif line.startswith("native-code:"):
            out["abis"] = re.findall(r"'([^']*)'", line)
    return out


class Base(ServerTestCase):
    home_prefix = "swipium-artifacts-"

    def resolve(self, s, **args):
        args.setdefault("projectRoot", self.app)
        r = s.tool("qa_resolve_artifact", args)["result"]
        return r["structuredContent"], r.get("isError", False)

    def ok(self, s, **args):
        sc, err = self.resolve(s, **args)
        self.assertFalse(err, sc)
        return sc

    def fail(self, s, code, **args):
        sc, err = self.resolve(s, **args)
        self.assertTrue(err, sc)
        self.assertEqual(sc["failureCode"], code, sc)
        return sc

    def put(self, rel, data=b"", src=None):
        p = os.path.join(self.app, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if src:
            shutil.copyfile(src, p)
        else:
            with open(p, "wb") as f:
                f.write(data)
        return p

    def assert_matches_aapt(self, s, apk):
        want = aapt_badging(apk)
        self.assertIsNotNone(want, f"aapt refuses {apk}")
        c = self.ok(s, path=apk, allowOutsideRoot=True)["best"]
        for k in ("appId", "versionCode", "versionName", "minSdk", "abis"):
            self.assertEqual(c[k], want[k], f"{os.path.basename(apk)}: {k}")
        return c


@unittest.skipUnless(AAPT, "aapt is not installed (scripts/install-deps.sh installs Debian's aapt)")
class AgainstAapt(Base):
    @classmethod
    def setUpClass(cls):
        cls.real, cls.skipped = fetch_real_apks()

    def test_real_apks_from_npm_equal_aapt(self):
        if not self.real:
            self.skipTest("no npm package could be fetched: " + "; ".join(self.skipped.values()))
        s = self.server()
        s.initialize()
        seen = 0
        for name, paths in self.real.items():
            for apk in paths:
                with self.subTest(apk=os.path.basename(apk)):
                    c = self.assert_matches_aapt(s, apk)
                    self.assertEqual(c["warnings"], [] if "androidTest" not in apk else c["warnings"])
                    seen += 1
        self.assertGreaterEqual(seen, 1)
        if self.skipped:
            print("skipped packages:", self.skipped, file=sys.stderr)

    def test_real_apk_with_native_libraries_equals_aapt(self):
        if "appium-unlock" not in self.real:
            self.skipTest(self.skipped.get("appium-unlock", "not fetched"))
        apk = os.path.join(self.home, "with-libs.apk")
        shutil.copyfile(self.real["appium-unlock"][0], apk)
        with zipfile.ZipFile(apk, "a") as z:
            for name in ("lib/x86_64/libapp.so", "lib/armeabi-v7a/libapp.so", "lib/x86/libapp.so",
                         "lib/x86_64/libother.so"):
                z.writestr(name, b"\x7fELF")
        s = self.server()
        s.initialize()
        c = self.assert_matches_aapt(s, apk)
        self.assertEqual(c["abis"], ["armeabi-v7a", "x86", "x86_64"])
        self.assertEqual(c["installableOn"], ["android-emulator", "android-real"])

    def test_written_apks_equal_aapt(self):
        """References through resources.arsc (chains, the default configuration over fr), UTF-8 and UTF-16
        pools, hex integers, codenames, quotes and non-ASCII text: aapt is the judge of each."""
        arsc, ids = g.resource_table("com.example.ref", {
            "string": [("version", [(b"fr", g.T_STRING, "3.1-fr"), (b"", g.T_STRING, "3.1-réf")]),
                       ("alias", [(b"", g.T_REF, 0x7F010000)]),
                       ("codename", [(b"", g.T_STRING, "UpsideDownCake")])],
        })
        cases = {}
        for utf8 in (False, True):
            cases[f"ref-utf8-{utf8}"] = (g.manifest(
                "com.example.ref", [("versionCode", g.T_INT_DEC, 7), ("versionName", g.T_REF, ids[("string", "alias")])],
                [("minSdkVersion", g.T_REF, ids[("string", "codename")])], utf8=utf8), arsc)
            cases[f"plain-utf8-{utf8}"] = (g.manifest(
                "org.example.plain", [("versionCode", g.T_INT_HEX, 0x1F), ("versionName", g.T_STRING, "1.0 'beta' ü 😀")],
                [("minSdkVersion", g.T_INT_DEC, 24), ("targetSdkVersion", g.T_INT_DEC, 34)], utf8=utf8), None)
        cases["no-uses-sdk"] = (g.manifest("a.b", [("versionCode", g.T_INT_DEC, 1)]), None)
        cases["codename"] = (g.manifest("a.c", [], [("minSdkVersion", g.T_STRING, "VanillaIceCream")]), None)
        s = self.server()
        s.initialize()
        for name, (m, table) in cases.items():
            with self.subTest(case=name):
                apk = os.path.join(self.home, name + ".apk")
                g.write_apk(apk, m, table, [("lib/arm64-v8a/libx.so", b"x")])
                self.assert_matches_aapt(s, apk)

    def test_integer_reference_is_refused_like_aapt(self):
        arsc, ids = g.resource_table("com.example.int", {"integer": [("min", [(b"", g.T_INT_DEC, 21)])]})
        apk = os.path.join(self.home, "intref.apk")
        g.write_apk(apk, g.manifest("com.example.int", [("versionCode", g.T_INT_DEC, 3)],
                                    [("minSdkVersion", g.T_REF, ids[("integer", "min")])]), arsc)
        self.assertIsNone(aapt_badging(apk), "aapt accepted an integer reference: the reader should follow it")
        s = self.server()
        s.initialize()
        c = self.ok(s, path=apk, allowOutsideRoot=True)["best"]
        self.assertEqual(c["appId"], "com.example.int")
        self.assertIsNone(c["minSdk"])
        self.assertTrue(any("aapt" in w for w in c["warnings"]), c["warnings"])


class Hostile(Base):
    def rss_peak_kb(self, s):
        with open(f"/proc/{s.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def test_not_a_zip_and_lfs_pointer_are_candidates_with_warnings(self):
        self.put("app/build/outputs/apk/debug/app-debug.apk", os.urandom(3000))
        lfs = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"a" * 64 + b"\nsize 4711\n"
        self.put("app/build/outputs/apk/release/app-release.apk", lfs)
        s = self.server()
        s.initialize()
        sc = self.ok(s, platform="android")
        by = {os.path.basename(c["path"]): c for c in sc["candidates"]}
        self.assertIsNone(by["app-debug.apk"]["appId"])
        self.assertIn("not a zip", " ".join(by["app-debug.apk"]["warnings"]))
        self.assertIn("Git LFS pointer", " ".join(by["app-release.apk"]["warnings"]))
        self.assertEqual(by["app-release.apk"]["installableOn"], [])

    def test_small_real_apk_is_not_suspect(self):
        p = self.put("app/build/outputs/apk/debug/app-debug.apk")
        g.write_apk(p, g.manifest("com.tiny", [("versionCode", g.T_INT_DEC, 1), ("versionName", g.T_STRING, "1")],
                                  [("minSdkVersion", g.T_INT_DEC, 21)]))
        self.assertLess(os.path.getsize(p), 4096)
        s = self.server()
        s.initialize()
        best = self.ok(s)["best"]
        self.assertEqual((best["appId"], best["warnings"]), ("com.tiny", []))

    def test_zip_bombs_are_refused_and_memory_stays_bounded(self):
        # 1: a 300 MiB manifest of zeros (honest header): over 8 MiB inflated
        big = self.put("a/build/outputs/apk/debug/big.apk")
        with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            with z.open("AndroidManifest.xml", "w", force_zip64=True) as f:
                chunk = b"\0" * (1 << 20)
                for _ in range(300):
                    f.write(chunk)
        # 2: 7 MiB of zeros: under the limit, but a ratio bomb
        ratio = self.put("b/build/outputs/apk/debug/ratio.apk")
        with zipfile.ZipFile(ratio, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            z.writestr("AndroidManifest.xml", b"\0" * (7 << 20))
        # 3: a lying header: the directory says 64 bytes, the data inflates to 300 MiB
        liar = self.put("c/build/outputs/apk/debug/liar.apk", src=big)
        with open(liar, "r+b") as f:
            data = bytearray(f.read())
            for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
                i = data.find(sig)
                if data[i + off:i + off + 4] != b"\xff\xff\xff\xff":
                    data[i + off:i + off + 4] = (64).to_bytes(4, "little")
            # zip64 extra fields carry the real size: make them say 64 too
            for i in [m.start() for m in re.finditer(b"\x01\x00[\x08\x10\x18]\x00", bytes(data))]:
                data[i + 4:i + 12] = (64).to_bytes(8, "little")
            f.seek(0)
            f.write(data)
        # 4: a manifest of 9 MiB that does not compress (no bomb, just too large)
        large = self.put("d/build/outputs/apk/debug/large.apk")
        with zipfile.ZipFile(large, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("AndroidManifest.xml", os.urandom(9 << 20))
        s = self.server()
        s.initialize()
        base = self.rss_peak_kb(s)
        for p, words in ((big, "over the 8 MiB limit"), (ratio, "bomb"), (liar, "more than the 8 MiB limit"),
                         (large, "over the 8 MiB limit")):
            with self.subTest(apk=os.path.basename(p)):
                c = self.ok(s, path=p)["best"]
                self.assertIsNone(c["appId"])
                self.assertTrue(c["warnings"], c)
                self.assertIn(words, " ".join(c["warnings"]))
                self.assertEqual(c["installableOn"], [])
        grown = self.rss_peak_kb(s) - base
        self.assertLess(grown, 64 * 1024, f"peak RSS grew by {grown} KiB reading bombs")
        self.assertIsNone(s.proc.poll())

    def test_more_than_100000_entries_is_refused(self):
        p = self.put("app/build/outputs/apk/debug/app-debug.apk")
        with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as z:
            z.writestr("AndroidManifest.xml", g.manifest("com.many", [("versionCode", g.T_INT_DEC, 1)]))
            for i in range(100000):
                z.writestr(f"assets/{i}", b"")
        s = self.server()
        s.initialize()
        c = self.ok(s, path=p)["best"]
        self.assertIsNone(c["appId"])
        self.assertIn("100000", " ".join(c["warnings"]))


class Search(Base):
    def apk(self, rel, package, version="1.0", test=False):
        p = self.put(rel)
        g.write_apk(p, g.manifest(package, [("versionCode", g.T_INT_DEC, 2), ("versionName", g.T_STRING, version)],
                                  [("minSdkVersion", g.T_INT_DEC, 23)]))
        return p

    def test_layouts_ranking_and_skipped_folders(self):
        debug = self.apk("android/app/build/outputs/apk/debug/app-debug.apk", "com.shop")
        release = self.apk("android/app/build/outputs/apk/release/app-release.apk", "com.shop", "1.0-r")
        test = self.apk("android/app/build/outputs/apk/androidTest/debug/app-debug-androidTest.apk", "com.shop.test")
        flutter = self.apk("build/app/outputs/flutter-apk/app-debug.apk", "com.flutter")
        for skipped in ("node_modules/some-lib/android/x.apk", ".git/lfs/y.apk", "ios/Pods/z.apk",
                        ".gradle/w.apk", ".swipium/artifacts/v.apk"):
            self.apk(skipped, "com.never")
        s = self.server()
        s.initialize()
        sc = self.ok(s, platform="android")
        paths = [c["path"] for c in sc["candidates"]]
        self.assertNotIn("com.never", [c["appId"] for c in sc["candidates"]])
        self.assertIn(paths[0], (debug, flutter))
        self.assertEqual(sc["best"]["buildType"], "debug")
        self.assertLess(paths.index(release), paths.index(test), "an app APK ranks above an androidTest APK")
        self.assertEqual(paths[-1], test)
        self.assertTrue(any("/android/app/build/outputs/apk" in loc for loc in sc["searchedLocations"]))
        self.assertEqual(sc["projectRoot"], self.app)
        rel = self.ok(s, platform="android", buildType="release")
        self.assertEqual(rel["best"]["path"], release)
        self.assertEqual(rel["best"]["versionName"], "1.0-r")
        self.assertFalse(rel["best"]["outsideRoot"])

    def test_ios_app_with_xml_and_binary_plists(self):
        info = {"CFBundleIdentifier": "com.example.ios", "CFBundleShortVersionString": "2.3",
                "CFBundleVersion": "45", "MinimumOSVersion": "15.0", "CFBundleSupportedPlatforms": ["iPhoneSimulator"]}
        self.put("build/Build/Products/Debug-iphonesimulator/Shop.app/Info.plist", plistlib.dumps(info))
        info2 = dict(info, CFBundleIdentifier="com.example.bin")
        self.put("ios/build/Build/Products/Release-iphonesimulator/Bin.app/Info.plist",
                 plistlib.dumps(info2, fmt=plistlib.FMT_BINARY))
        s = self.server()
        s.initialize()
        sc = self.ok(s, platform="ios")
        by = {c["appId"]: c for c in sc["candidates"]}
        self.assertEqual(set(by), {"com.example.ios", "com.example.bin"})
        c = by["com.example.ios"]
        self.assertEqual((c["type"], c["platform"], c["versionName"], c["versionCode"], c["minSdk"], c["buildType"]),
                         ("app", "ios", "2.3", "45", "15.0", "debug"))
        self.assertEqual(c["installableOn"], ["ios-simulator"])
        self.assertEqual(by["com.example.bin"]["buildType"], "release")
        self.assertEqual(sc["best"]["appId"], "com.example.ios")

    def test_no_artifact(self):
        s = self.server()
        s.initialize()
        sc = self.fail(s, "NO_BUILD_ARTIFACT", platform="android")
        self.assertIn(self.app, sc["what"])
        self.assertTrue(sc["searchedLocations"])
        self.assertFalse(sc["changedState"])

    def test_only_an_aab(self):
        p = self.put("app/build/outputs/bundle/debug/app-debug.aab")
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("base/manifest/AndroidManifest.xml", b"\x0a\x00")
            z.writestr("base/lib/x86_64/libx.so", b"x")
        s = self.server()
        s.initialize()
        sc = self.fail(s, "AAB_NEEDS_BUNDLETOOL", platform="android")
        self.assertEqual(sc["aab"], p)
        self.assertIn("bundle", sc["what"].lower())

    def test_outside_root_by_symlink_and_dotdot(self):
        outside = os.path.join(self.home, "elsewhere")
        os.makedirs(outside)
        ext = os.path.join(outside, "x.apk")
        g.write_apk(ext, g.manifest("com.outside", [("versionCode", g.T_INT_DEC, 1)]))
        link = os.path.join(self.app, "app/build/outputs/apk/debug/app-debug.apk")
        os.makedirs(os.path.dirname(link))
        os.symlink(ext, link)
        s = self.server()
        s.initialize()
        sc = self.fail(s, "ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL", platform="android")
        self.assertIn("allowOutsideRoot", " ".join(sc["nextSteps"]))
        sc = self.fail(s, "ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL", path="../elsewhere/x.apk")
        self.assertIn(os.path.realpath(ext), sc["what"])
        sc = self.fail(s, "ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL", path=link)
        ok = self.ok(s, platform="android", allowOutsideRoot=True)
        self.assertTrue(ok["best"]["outsideRoot"])
        self.assertEqual(ok["best"]["realPath"], os.path.realpath(ext))
        self.assertEqual(ok["best"]["appId"], "com.outside")
        # an inside APK next to the symlink: the symlink is counted, not used
        self.apk("app/build/outputs/apk/release/app-release.apk", "com.inside")
        sc = self.ok(s, platform="android")
        self.assertEqual([c["appId"] for c in sc["candidates"]], ["com.inside"])
        self.assertIn("outside the project root", " ".join(sc["warnings"]))

    def test_derived_data_only_with_allow_outside_root(self):
        dd = os.path.join(self.home, "Library/Developer/Xcode/DerivedData/Shop-abc/Build/Products/"
                          "Debug-iphonesimulator/Shop.app")
        os.makedirs(dd)
        with open(os.path.join(dd, "Info.plist"), "wb") as f:
            f.write(plistlib.dumps({"CFBundleIdentifier": "com.dd"}))
        s = self.server()
        s.initialize()
        self.fail(s, "NO_BUILD_ARTIFACT", platform="ios")
        sc = self.ok(s, platform="ios", allowOutsideRoot=True)
        self.assertEqual(sc["best"]["appId"], "com.dd")
        self.assertTrue(sc["best"]["outsideRoot"])
        self.assertTrue(any("DerivedData" in loc for loc in sc["searchedLocations"]))

    def test_bad_input(self):
        s = self.server()
        s.initialize()
        sc, err = self.resolve(s, platform="windows")
        self.assertTrue(err)
        self.assertEqual(sc["failureCode"], "INVALID_ARGUMENT")
        self.fail(s, "NO_BUILD_ARTIFACT", path="missing.apk")
        # a file name that is not UTF-8 cannot travel in JSON: left out and counted
        g.write_apk(os.path.join(self.app, "bad-\udcff.apk"), g.manifest("com.bad", []))
        self.apk("app/build/outputs/apk/debug/app-debug.apk", "com.good")
        sc = self.ok(s)
        self.assertEqual([c["appId"] for c in sc["candidates"]], ["com.good"])
        self.assertIn("1 artifact(s) left out: their paths are not valid UTF-8", sc["warnings"])
        self.put("notes.txt", b"hi")
        sc, err = self.resolve(s, path="notes.txt")
        self.assertTrue(err)
        self.assertEqual(sc["failureCode"], "INVALID_ARGUMENT")


if __name__ == "__main__":
    unittest.main(verbosity=2)
