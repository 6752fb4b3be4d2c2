"""qa_visual through a real MCP connection, the real adb and the virtual device: baselines, diffs with a
diff PNG, template matching (and tapping a match), OCR with the tesseract provider, hostile providers,
confined paths, secure screens and sensitive sessions."""

import glob
import io
import json
import os
import shutil
import stat
import sys
import tempfile
import unittest

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from vdevice_env import VDeviceEnv  # noqa: E402
from mcpclient import Server  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
TESSERACT_PROVIDER = os.path.join(SOURCE_ROOT, "examples", "ocr", "tesseract-ocr.py")
PY = "/usr/bin/python3"


def sc(resp):
    return resp["result"]["structuredContent"]


def text(resp):
    return "\n".join(c.get("text", "") for c in resp["result"]["content"])


class Base(unittest.TestCase):
    app = "list"

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sw-visual-")
        self.project = os.path.join(self.tmp, "app")
        os.makedirs(self.project)
        with open(os.path.join(self.project, "package.json"), "w") as f:
            f.write("{}")
        self.env = VDeviceEnv(app=self.app)
        self.env.__enter__()
        pkg = "com.example.list" if self.app == "list" else "com.example.login"
        self.env.shell("monkey -p %s -c android.intent.category.LAUNCHER 1" % pkg)
        self.servers = []

    def tearDown(self):
        codes = []
        for s in self.servers:
            if s.proc.poll() is None:
                codes.append(s.close())
            else:
                codes.append(s.proc.returncode)
        self.env.__exit__(None, None, None)
        shutil.rmtree(self.tmp, ignore_errors=True)
        # the server shuts down cleanly (under SWIPIUM_MCP_WRAPPER=valgrind: without memory errors)
        self.assertEqual(codes, [0] * len(codes))

    def server(self, extra=None):
        e = dict(self.env.env)
        e["HOME"] = self.env.server.home
        for k in ("SWIPIUM_OCR_CMD", "SWIPIUM_VISUAL_MASK_CMD", "SWIPIUM_CONSENT_PREAPPROVE",
                  "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE"):
            e.pop(k, None)
        e.update(extra or {})
        s = Server(env=e)
        s.initialize()
        self.servers.append(s)
        return s

    def session(self, s, **kw):
        args = {"projectRoot": self.project, "budget": {"maxScreenshots": 100, "maxActions": 100}}
        args.update(kw)
        r = s.tool("qa_start_session", args)
        self.assertFalse(r["result"].get("isError"), r)
        return sc(r)["sessionId"]

    def visual(self, s, sid, **kw):
        kw["sessionId"] = sid
        return s.tool("qa_visual", kw, timeout=120)

    def ok(self, r):
        self.assertFalse(r["result"].get("isError"), json.dumps(r)[:2000])
        return sc(r)

    def err(self, r, code):
        self.assertTrue(r["result"].get("isError"), json.dumps(r)[:2000])
        self.assertEqual(sc(r)["failureCode"], code, json.dumps(r)[:2000])
        return sc(r)

    def artifact_path(self, uri):
        parts = uri.split("/")  # swipium://session/<sid>/<kind>/<name>
        hits = glob.glob(os.path.join(self.env.server.home, ".swipium", "runs", "*", parts[3], "screenshots",
                                      parts[5]))
        self.assertEqual(len(hits), 1, uri)
        return hits[0]

    def state(self, sid):
        hits = glob.glob(os.path.join(self.env.server.home, ".swipium", "runs", "*", sid, "state.json"))
        self.assertEqual(len(hits), 1)
        with open(hits[0]) as f:
            return json.load(f)


class Baselines(Base):
    def test_listed_baseline_diff_and_diff_image(self):
        s = self.server()
        names = [t["name"] for t in s.call("tools/list")["result"]["tools"]]
        self.assertIn("qa_visual", names)
        sid = self.session(s)
        r = self.ok(self.visual(s, sid, mode="baseline", name="fruits"))
        self.assertEqual(r["baselinePath"], ".swipium/baselines/fruits.png")
        self.assertFalse(r["replaced"])
        self.assertEqual(r["coordinateSpace"]["width"], 1080)
        base = os.path.join(self.project, ".swipium", "baselines", "fruits.png")
        with Image.open(base) as im:
            self.assertEqual(im.size, (1080, 2400))
        self.assertEqual(stat.S_IMODE(os.stat(base).st_mode), 0o600)
        # nothing moved: the diff passes with no region
        r = self.ok(self.visual(s, sid, mode="diff", name="fruits"))
        self.assertTrue(r["pass"])
        self.assertEqual(r["changedPixels"], 0)
        self.assertIsNone(r["changedBox"])
        # scroll the list: rows move, the diff fails with regions and a diff PNG that shows them
        self.ok(s.tool("qa_act", {"sessionId": sid, "action": "scroll", "direction": "down"}))
        resp = self.visual(s, sid, mode="diff", name="fruits", threshold=0.01)
        r = self.ok(resp)
        self.assertFalse(r["pass"], r)
        self.assertGreater(r["changedRatio"], 0.01)
        self.assertGreater(len(r["regions"]), 0)
        box = r["changedBox"]["screenshot"]
        self.assertGreaterEqual(box["y"], 210)  # the toolbar above the list did not change
        self.assertEqual(r["changedBox"]["device"], box)  # Android: device pixels, scale 1
        self.assertIn("FAIL", text(resp))
        diff_png = self.artifact_path(r["diffUri"])
        with Image.open(diff_png) as im:
            self.assertEqual(im.size, (1080, 2400))
            rgb = im.convert("RGB")
            reg = r["regions"][0]
            # changes are red, unchanged pixels a dimmed gray (the toolbar title area)
            reds = sum(1 for x in range(reg["x"], reg["x"] + reg["width"], 3)
                       for y in range(reg["y"], min(reg["y"] + reg["height"], reg["y"] + 60), 3)
                       if rgb.getpixel((x, y))[0] == 255 and rgb.getpixel((x, y))[1] < 80)
            self.assertGreater(reds, 0)
            p = rgb.getpixel((540, 100))
            self.assertTrue(p[0] == p[1] == p[2] and p[0] < 255, p)
        self.assertEqual(r["evidence"], [r["currentUri"], r["diffUri"]])
        if os.environ.get("SWIPIUM_VISUAL_KEEP_DIFF"):
            shutil.copy(diff_png, os.environ["SWIPIUM_VISUAL_KEEP_DIFF"])
        # a baseline taken again replaces the file
        r = self.ok(self.visual(s, sid, mode="baseline", name="fruits"))
        self.assertTrue(r["replaced"])

    def test_hostile_baselines_and_missing_arguments(self):
        s = self.server()
        sid = self.session(s)
        for args, code in (({"mode": "diff"}, "INVALID_ARGUMENT"),
                           ({"mode": "baseline", "name": ""}, "INVALID_ARGUMENT"),
                           ({"mode": "assert"}, "INVALID_ARGUMENT"),
                           ({"mode": "find_text"}, "INVALID_ARGUMENT"),
                           ({"mode": "find_image"}, "INVALID_ARGUMENT"),
                           ({"mode": "baseline", "name": "../evil"}, "VISUAL_PATH_REFUSED"),
                           ({"mode": "baseline", "name": ".hidden"}, "VISUAL_PATH_REFUSED"),
                           ({"mode": "diff", "name": "never-taken"}, "INVALID_ARGUMENT")):
            self.err(self.visual(s, sid, **args), code)
        self.assertFalse(os.path.exists(os.path.join(self.project, "evil.png")))
        self.assertFalse(os.path.exists(os.path.join(self.project, ".swipium", "evil.png")))
        bdir = os.path.join(self.project, ".swipium", "baselines")
        os.makedirs(bdir)
        # a baseline of another size: a clear result, not an error
        Image.new("RGB", (540, 1200), "white").save(os.path.join(bdir, "small.png"))
        resp = self.visual(s, sid, mode="diff", name="small")
        r = self.ok(resp)
        self.assertTrue(r["sizeMismatch"])
        self.assertFalse(r["pass"])
        self.assertIsNone(r["diffUri"])
        self.assertIn("sizeMismatch", text(resp))
        # palette and 16-bit baselines decode like any other
        Image.new("P", (1080, 2400), 3).save(os.path.join(bdir, "palette.png"))
        r = self.ok(self.visual(s, sid, mode="diff", name="palette"))
        self.assertFalse(r["pass"])
        Image.new("I;16", (1080, 2400), 40000).save(os.path.join(bdir, "gray16.png"))
        self.ok(self.visual(s, sid, mode="diff", name="gray16"))
        # truncated, garbage and absurd baselines: clear errors
        with open(os.path.join(bdir, "fruits.png"), "wb") as f:
            buf = io.BytesIO()
            Image.new("RGB", (1080, 2400), "white").save(buf, "PNG")
            f.write(buf.getvalue()[:len(buf.getvalue()) // 2])
        e = self.err(self.visual(s, sid, mode="diff", name="fruits"), "INVALID_ARGUMENT")
        self.assertIn("truncated", e["what"])
        with open(os.path.join(bdir, "junk.png"), "wb") as f:
            f.write(b"this is not a png at all")
        e = self.err(self.visual(s, sid, mode="diff", name="junk"), "INVALID_ARGUMENT")
        self.assertIn("not a PNG", e["what"])
        # a baseline symlinked out of the project
        outside = os.path.join(self.tmp, "outside.png")
        Image.new("RGB", (1080, 2400), "white").save(outside)
        os.symlink(outside, os.path.join(bdir, "escape.png"))
        self.err(self.visual(s, sid, mode="diff", name="escape"), "VISUAL_PATH_REFUSED")
        self.err(self.visual(s, sid, mode="baseline", name="escape"), "VISUAL_PATH_REFUSED")
        with Image.open(outside) as im:
            self.assertEqual(im.getpixel((5, 5)), (255, 255, 255))  # untouched

    def test_assert_records_a_visually_verified_note(self):
        s = self.server()
        sid = self.session(s)
        r = self.ok(self.visual(s, sid, mode="assert", assertion="The fruit list shows its rows"))
        self.assertTrue(r["pass"])
        first = r["screenshotUri"]
        self.assertTrue(r["screenshotUri"].startswith("swipium://session/%s/screenshot/" % sid))
        r = self.ok(self.visual(s, sid, mode="assert", assertion="Prices are shown", **{"pass": False},
                                reason="no price column"))
        self.assertFalse(r["pass"])
        self.assertEqual(self.ok(s.tool("qa_status", {"sessionId": sid}))["counters"]["screenshots"], 2)
        self.assertEqual(s.close(), 0)  # the session state is flushed on shutdown
        notes = self.state(sid)["notes"]
        self.assertEqual([n["outcome"] for n in notes], ["pass", "fail"])
        self.assertTrue(all(n["verifiedVisually"] for n in notes))
        self.assertEqual(notes[1]["category"], "app_bug")
        self.assertEqual(notes[0]["artifactUris"], [first])
        self.assertTrue(os.path.isfile(self.artifact_path(first)))


class Templates(Base):
    def test_find_image_and_tap(self):
        s = self.server()
        sid = self.session(s)
        self.ok(self.visual(s, sid, mode="baseline", name="list"))
        with Image.open(os.path.join(self.project, ".swipium", "baselines", "list.png")) as im:
            os.makedirs(os.path.join(self.project, "img"))
            # "Item 3": rows are 160 px high from y=210; the template is 200 x 80 of its text
            im.crop((40, 210 + 2 * 160 + 40, 240, 210 + 2 * 160 + 120)).save(
                os.path.join(self.project, "img", "item3.png"))
            Image.new("RGB", (2000, 100), "red").save(os.path.join(self.project, "img", "huge.png"))
            noise = Image.effect_noise((200, 80), 80).convert("RGB")
            noise.save(os.path.join(self.project, "img", "absent.png"))
        r = self.ok(self.visual(s, sid, mode="find_image", template="img/item3.png"))
        self.assertTrue(r["found"], r)
        self.assertEqual(r["bbox"], {"x": 40, "y": 570, "width": 200, "height": 80})
        self.assertGreater(r["score"], 0.99)
        self.assertEqual(r["devicePoint"], {"x": 140, "y": 610})
        r = self.ok(self.visual(s, sid, mode="find_image", template="img/absent.png"))
        self.assertFalse(r["found"])
        self.assertLess(r["score"], 0.85)
        e = self.err(self.visual(s, sid, mode="find_image", template="img/huge.png"), "INVALID_ARGUMENT")
        self.assertIn("larger than the screen", e["what"])
        for bad in ("../outside.png", "/etc/hostname", os.path.join(self.tmp, "x.png")):
            self.err(self.visual(s, sid, mode="find_image", template=bad), "VISUAL_PATH_REFUSED")
        # the same template as a swipium:// artifact of this session works too
        shot = self.ok(s.tool("qa_screenshot", {"sessionId": sid}))["uri"]
        r = self.ok(self.visual(s, sid, mode="find_image", template=shot))
        self.assertTrue(r["found"])
        self.assertEqual(r["bbox"]["x"], 0)
        # tap:true taps the match: Item 3's detail screen opens
        r = self.ok(self.visual(s, sid, mode="find_image", template="img/item3.png", tap=True))
        self.assertTrue(r["tapped"])
        snap = self.ok(s.tool("qa_snapshot", {"sessionId": sid}))
        self.assertTrue(any("Details of Item 3" in line for line in snap["elements"]), snap["elements"])
        self.assertEqual(self.ok(s.tool("qa_status", {"sessionId": sid}))["counters"]["actions"], 1)


class SecureScreens(Base):
    app = "login"

    def test_withheld_on_password_screen_unless_forced(self):
        s = self.server()
        sid = self.session(s)
        for mode, extra in (("baseline", {"name": "login"}), ("assert", {"assertion": "login shown"})):
            self.err(self.visual(s, sid, mode=mode, **extra), "CAPTURE_WITHHELD_SECURE")
        self.assertFalse(os.path.exists(os.path.join(self.project, ".swipium", "baselines", "login.png")))
        r = self.ok(self.visual(s, sid, mode="baseline", name="login", force=True))
        self.assertEqual(r["secureFieldCheck"], "forced")
        self.assertTrue(r["sensitiveForced"])

    def test_sensitive_session_refuses(self):
        s = self.server()
        sid = self.session(s, sensitive=True)
        for mode, extra in (("baseline", {"name": "x"}), ("diff", {"name": "x"}), ("find_text", {"query": "x"}),
                            ("assert", {"assertion": "x"})):
            self.err(self.visual(s, sid, mode=mode, force=True, **extra), "SENSITIVE_MODE_REFUSED")


def write_provider(path, body):
    with open(path, "w") as f:
        f.write("#!/usr/bin/python3\nimport sys, os, time, json\n" + body + "\n")
    os.chmod(path, 0o755)
    return path


class Ocr(Base):
    @unittest.skipUnless(shutil.which("tesseract"), "tesseract-ocr is installed by scripts/install-deps.sh")
    def test_find_text_with_tesseract_consent_envelope_and_tap(self):
        s = self.server({"SWIPIUM_OCR_CMD": "%s %s {image}" % (PY, TESSERACT_PROVIDER)})
        sid = self.session(s)
        resp = self.visual(s, sid, mode="find_text", query="Fruits")
        env = sc(resp)
        self.assertTrue(env["requiresConsent"], env)
        self.assertEqual(env["action"], "ocr_run")
        self.assertIn("tesseract-ocr.py", json.dumps(env))
        counters = self.ok(s.tool("qa_status", {"sessionId": sid}))["counters"]
        self.assertEqual(counters.get("screenshots", 0), 0)  # nothing ran yet
        r = self.ok(self.visual(s, sid, mode="find_text", query="Fruits", consentId=env["consentId"], approve=True))
        self.assertTrue(r["found"], r)
        self.assertGreaterEqual(r["confidence"], 0.8)
        bb = r["bbox"]
        self.assertTrue(0 <= bb["x"] < 540 and 63 <= bb["y"] and bb["y"] + bb["height"] <= 210, bb)
        # the consent was single use: the next call asks again
        self.assertTrue(sc(self.visual(s, sid, mode="find_text", query="Fruits"))["requiresConsent"])

    @unittest.skipUnless(shutil.which("tesseract"), "tesseract-ocr is installed by scripts/install-deps.sh")
    def test_find_text_tap_opens_the_row(self):
        s = self.server({"SWIPIUM_OCR_CMD": "%s %s {image}" % (PY, TESSERACT_PROVIDER),
                         "SWIPIUM_CONSENT_PREAPPROVE": "ocr_run", "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE": "1"})
        sid = self.session(s)
        r = self.ok(self.visual(s, sid, mode="find_text", query="item 2", tap=True))
        self.assertTrue(r["found"], r)
        self.assertTrue(r["tapped"])
        snap = self.ok(s.tool("qa_snapshot", {"sessionId": sid}))
        self.assertTrue(any("Details of Item 2" in line for line in snap["elements"]), snap["elements"])
        r = self.ok(self.visual(s, sid, mode="find_text", query="no such words on screen"))
        self.assertFalse(r["found"])

    def test_hostile_providers(self):
        pdir = os.path.join(self.tmp, "providers")
        os.makedirs(pdir)
        pidfile = os.path.join(self.tmp, "hang.pid")
        hang = write_provider(os.path.join(pdir, "hang.py"),
                              "open(%r, 'w').write(str(os.getpid()))\nsys.stdout.write('[')\nsys.stdout.flush()\n"
                              "time.sleep(120)" % pidfile)
        garbage = write_provider(os.path.join(pdir, "garbage.py"), "print('Tesseract 5.3: found 3 words')")
        broken = write_provider(os.path.join(pdir, "broken.py"),
                                "sys.stderr.write('cannot load model for token s3cr3t-value-9\\n'); sys.exit(3)")
        base = {"SWIPIUM_CONSENT_PREAPPROVE": "ocr_run", "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE": "1"}
        s = self.server(base)
        sid = self.session(s)
        e = self.err(self.visual(s, sid, mode="find_text", query="x"), "OCR_NOT_CONFIGURED")
        self.assertEqual(e["exampleProvider"]["ocrCommand"], ["python3", ".swipium/ocr_tesseract.py", "{image}"])
        os.makedirs(os.path.join(self.project, ".swipium"))
        cfg = os.path.join(self.project, ".swipium", "config.json")

        def configure(cmd):
            with open(cfg, "w") as f:
                json.dump({"ocrCommand": cmd}, f)

        configure({"command": [hang, "{image}"], "timeoutMs": 1500})
        e = self.err(self.visual(s, sid, mode="find_text", query="x"), "OCR_PROVIDER_FAILED")
        self.assertTrue(e["timedOut"])
        self.assertIsNone(e["exitCode"])
        self.assertIn("hang.py", e["provider"])
        with open(pidfile) as f:
            pid = int(f.read())
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)  # killed, and reaped
        configure([garbage, "{image}"])
        e = self.err(self.visual(s, sid, mode="find_text", query="x"), "OCR_PROVIDER_FAILED")
        self.assertEqual(e["exitCode"], 0)
        self.assertFalse(e["timedOut"])
        configure([broken])
        e = self.err(self.visual(s, sid, mode="find_text", query="x"), "OCR_PROVIDER_FAILED")
        self.assertEqual(e["exitCode"], 3)
        self.assertIn("cannot load model", e["stderr"])
        configure(["/usr/bin/git", "log"])
        self.err(self.visual(s, sid, mode="find_text", query="x"), "GIT_SCOPE_FORBIDDEN")
        # the server is still fine
        self.ok(self.visual(s, sid, mode="baseline", name="after"))


class OcrRedaction(Base):
    app = "login"

    def test_provider_stderr_is_redacted(self):
        broken = write_provider(os.path.join(self.tmp, "broken.py"),
                                "sys.stderr.write('cannot load model for s3cr3t-value-9\\n'); sys.exit(3)")
        s = self.server({"SWIPIUM_OCR_CMD": broken, "SWIPIUM_TEST_PASSWORD": "s3cr3t-value-9",
                         "SWIPIUM_CONSENT_PREAPPROVE": "ocr_run", "SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE": "1"})
        sid = self.session(s)
        self.ok(s.tool("qa_act", {"sessionId": sid, "action": "type", "target": {"id": "password"},
                                  "text": "${SWIPIUM_TEST_PASSWORD}"}))
        # a password field is on screen: withheld unless forced
        self.err(self.visual(s, sid, mode="find_text", query="x"), "CAPTURE_WITHHELD_SECURE")
        e = self.err(self.visual(s, sid, mode="find_text", query="x", force=True), "OCR_PROVIDER_FAILED")
        self.assertEqual(e["exitCode"], 3)
        self.assertIn("cannot load model", e["stderr"])
        self.assertNotIn("s3cr3t-value-9", json.dumps(e))


if __name__ == "__main__":
    unittest.main(verbosity=2)
