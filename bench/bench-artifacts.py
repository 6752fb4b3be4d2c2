#!/usr/bin/env python3
"""bench-artifacts.py: artifact metadata and artifact search against the stock tools, in one run.

Usage: bench-artifacts.py <path to libswipium.so> [RUNS] [FILES]
(SWIPIUM_APK_CACHE: where tests/data/apks/real-apks.json's npm packages are unpacked, as the tests do.)

1. qa_resolve_artifact's library call (sw_artifact_resolve: walk, rank, and the metadata of every candidate)
   over a generated project of FILES files (default 20,000) holding a dozen APKs (Gradle debug/release, Flutter,
   androidTest, stray copies), against `find ROOT ( -name '*.apk' -o -name '*.aab' -o -name '*.ipa' -o -name
   '*.app' )` over the same tree (a listing only: no metadata).
2. sw_artifact_inspect of a real ~3 MB APK (io.appium.settings 8.0.10's settings_apk-debug.apk, from npm;
   provenance in tests/data/apks/real-apks.json) in process, against one `aapt dump badging` of it; the
   package, versionCode, versionName and minSdk must agree.
Medians of RUNS (default 10) interleaved runs. Exits 1 when the values disagree or the inspect is slower
than aapt (issue 13's target).
"""
import ctypes
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration", "mcp"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
from test_artifacts import fetch_real_apks  # noqa: E402

LIB = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 10
FILES = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
AAPT = shutil.which("aapt")

APK_PLACES = [
    "app/build/outputs/apk/debug/app-debug.apk",
    "app/build/outputs/apk/release/app-release.apk",
    "app/build/outputs/apk/androidTest/debug/app-debug-androidTest.apk",
    "feature/build/outputs/apk/debug/feature-debug.apk",
    "android/app/build/outputs/apk/debug/app-debug.apk",
    "android/app/build/outputs/apk/release/app-release.apk",
    "build/app/outputs/flutter-apk/app-debug.apk",
    "build/app/outputs/flutter-apk/app-release.apk",
    "dist/old/app-1.0.apk",
    "dist/old/app-1.1.apk",
    "tools/fixtures/sample.apk",
    "docs/downloads/demo.apk",
]


def make_tree(root, apk):
    """FILES files: sources spread over nested folders, the dozen APKs (hard links of @apk) among them."""
    n = 0
    for i, rel in enumerate(APK_PLACES):
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        try:
            os.link(apk, p)
        except OSError:
            shutil.copyfile(apk, p)
        n += 1
    with open(os.path.join(root, "settings.gradle"), "w") as f:
        f.write("include ':app', ':feature'\n")
    n += 1
    i = 0
    while n < FILES:
        d = os.path.join(root, "app", "src", "main", "java", "com", "example", "m%02d" % (i % 40), "s%03d" % (i // 40 % 25))
        os.makedirs(d, exist_ok=True)
        for k in range(20):
            if n >= FILES:
                break
            with open(os.path.join(d, "C%05d.kt" % n), "w") as f:
                f.write("package com.example\nclass C%d { fun f() = %d }\n" % (n, n))
            n += 1
        i += 1
    return n


def median_ms(xs):
    return statistics.median(xs) * 1000.0


def aapt_values(apk):
    out = subprocess.run([AAPT, "dump", "badging", apk], capture_output=True, text=True).stdout
    m = re.search(r"package: name='([^']*)' versionCode='([^']*)' versionName='([^']*)'", out)
    sdk = re.search(r"sdkVersion:'(\d+)'", out)
    return {"appId": m.group(1), "versionCode": m.group(2), "versionName": m.group(3),
            "minSdk": sdk.group(1) if sdk else None} if m else None


def main():
    if not AAPT:
        print("bench-artifacts: aapt is not installed (apt-get install aapt)")
        return 1
    real, skipped = fetch_real_apks()
    if "io.appium.settings" not in real:
        print("bench-artifacts: the real APK could not be fetched: %s" % skipped.get("io.appium.settings"))
        return 1
    apk = [p for p in real["io.appium.settings"] if p.endswith(".apk")][0]
    lib = ctypes.CDLL(LIB)
    vp = ctypes.c_void_p
    lib.sw_ctx_new.argtypes = [ctypes.POINTER(vp), ctypes.POINTER(vp)]
    lib.sw_ctx_free.argtypes = [vp]
    lib.sw_ctx_set_home.argtypes = [vp, ctypes.c_char_p, ctypes.POINTER(vp)]
    lib.sw_artifact_resolve.argtypes = [vp, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(vp), ctypes.POINTER(vp)]
    lib.sw_artifact_inspect.argtypes = [ctypes.c_char_p, ctypes.POINTER(vp), ctypes.POINTER(vp)]
    lib.sw_free.argtypes = [vp]
    lib.sw_error_free.argtypes = [vp]
    tmp = tempfile.mkdtemp(prefix="swipium-bench-artifacts-")
    try:
        root = os.path.join(tmp, "project")
        os.makedirs(root)
        t0 = time.monotonic()
        n = make_tree(root, apk)
        made_s = time.monotonic() - t0
        ctx = vp()
        assert lib.sw_ctx_new(ctypes.byref(ctx), None) == 0
        lib.sw_ctx_set_home(ctx, os.path.join(tmp, "home").encode(), None)

        def resolve():
            out, err = vp(), vp()
            rc = lib.sw_artifact_resolve(ctx, root.encode(), b'{"platform":"android"}', ctypes.byref(out),
                                         ctypes.byref(err))
            text = ctypes.string_at(out).decode() if out.value else None
            lib.sw_free(out)
            lib.sw_error_free(err)
            if rc != 0:
                raise SystemExit("sw_artifact_resolve failed (%d)" % rc)
            return json.loads(text)

        find_argv = ["find", root, "(", "-name", "*.apk", "-o", "-name", "*.aab", "-o", "-name", "*.ipa", "-o",
                     "-name", "*.app", ")", "-print"]

        def find():
            return subprocess.run(find_argv, capture_output=True, text=True, check=True).stdout.split()

        def inspect():
            out, err = vp(), vp()
            rc = lib.sw_artifact_inspect(apk.encode(), ctypes.byref(out), ctypes.byref(err))
            text = ctypes.string_at(out).decode() if out.value else None
            lib.sw_free(out)
            lib.sw_error_free(err)
            if rc != 0:
                raise SystemExit("sw_artifact_inspect failed (%d)" % rc)
            return json.loads(text)

        def aapt():
            return subprocess.run([AAPT, "dump", "badging", apk], capture_output=True, check=True).stdout

        # warm both (page cache, the library's lazy tables), then interleave
        res, found = resolve(), find()
        inspect()
        aapt()
        t_res, t_find, t_ins, t_aapt = [], [], [], []
        for _ in range(RUNS):
            a = time.perf_counter(); resolve(); t_res.append(time.perf_counter() - a)
            a = time.perf_counter(); find(); t_find.append(time.perf_counter() - a)
            a = time.perf_counter(); inspect(); t_ins.append(time.perf_counter() - a)
            a = time.perf_counter(); aapt(); t_aapt.append(time.perf_counter() - a)
        ours = inspect()
        theirs = aapt_values(apk)
        agree = theirs is not None and all(str(ours.get(k)) == str(theirs[k]) for k in theirs)
        cands = res.get("candidates", [])
        print("swipium bench-artifacts: medians of %d interleaved runs" % RUNS)
        print("tree: %d files (made in %.1f s), %d APKs (hard links of %s, %d bytes); find lists %d"
              % (n, made_s, len(APK_PLACES), os.path.basename(apk), os.path.getsize(apk), len(found)))
        print("  find over the tree (baseline)              %8.2f ms" % median_ms(t_find))
        print("  sw_artifact_resolve (qa_resolve_artifact) %8.2f ms  (%.2fx find; walk + rank + metadata of the "
              "candidates; best %s, %d candidates shown%s)"
              % (median_ms(t_res), median_ms(t_res) / median_ms(t_find),
                 os.path.relpath(res["best"]["path"], root) if res.get("best") else None, len(cands),
                 ", %s more" % res["moreCandidates"] if res.get("moreCandidates") else ""))
        print("apk: %s, %d bytes" % (os.path.basename(apk), os.path.getsize(apk)))
        print("  aapt dump badging (baseline)               %8.2f ms" % median_ms(t_aapt))
        print("  sw_artifact_inspect (in process)           %8.2f ms  (%.3fx aapt; %.1fx faster)"
              % (median_ms(t_ins), median_ms(t_ins) / median_ms(t_aapt), median_ms(t_aapt) / median_ms(t_ins)))
        print("  values: ours %s, aapt %s: %s" % ({k: ours.get(k) for k in ("appId", "versionCode", "versionName",
                                                                            "minSdk")}, theirs,
                                                  "equal" if agree else "DIFFERENT"))
        lib.sw_ctx_free(ctx)
        return 0 if agree and median_ms(t_ins) < median_ms(t_aapt) else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
