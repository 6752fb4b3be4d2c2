#!/usr/bin/env python3
"""WebDriverAgent page sources through the server: the XML and the JSON form, big and hostile ones.

qa_snapshot on an iOS session reads GET /source (XML) from the wda.py stand-in, or its JSON form
(GET /source?format=json) when SWIPIUM_WDA_SOURCE_FORMAT=json says so or when WDA cannot write the XML.
Both give the same element lines. A source of 50,000 elements answers; one more is WDA_HIERARCHY_TOO_LARGE;
garbage, a cut answer and a 500 are SNAPSHOT_FAILED (three in a row: VISUAL_ONLY_SCREEN); a hang is
WDA_SOURCE_SLOW. After each, the session still takes a snapshot.
"""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcpclient  # noqa: E402,F401
from test_ios_drive import WDA, WdaCase  # noqa: E402

sys.path.insert(0, os.path.dirname(WDA))
import wda as wda_standin  # noqa: E402

LIMIT = 50000


def base_elements():
    """Elements of the stand-in's login screen plus the table that holds the hugeNodes rows."""
    xml = wda_standin.App("com.example.shop").xml(0)
    return len(re.findall(r"<XCUIElementType\w+[ >/]", xml)) + 1


class SourceCase(WdaCase):
    def snap(self, s, sid):
        return self.tool_ok(s, "qa_snapshot", sid)

    def source_requests(self):
        return [r["path"].split("/", 3)[-1] for r in self.requests() if "/source" in r["path"]]

    def check_login_lines(self, lines):
        blob = "\n".join(lines)
        self.assertIn('[text-field] "Email" #email', blob)
        self.assertIn('[button] "Sign in" #signin [24,310][369,360]', blob)
        pw = [l for l in lines if '"Password" #password' in l]
        self.assertTrue(pw and "(secure" in pw[0] and "\u00absecure\u00bb" in pw[0], blob)
        self.assertNotIn("\u2022", blob)
        for gone in ("Debug menu", "Broken frame", "Zero size", "Far away", "XCUIElementTypeApplication"):
            self.assertNotIn(gone, blob)


class TestSourceForms(SourceCase):
    def test_json_fallback_gives_the_same_lines(self):
        s, sid = self.attached()
        xml_lines = self.snap(s, sid)["elements"]
        self.check_login_lines(xml_lines)
        # WDA cannot write the XML form: the JSON form is read instead, and the answer says so
        self.wda_knobs({"xmlSourceFails": True})
        snap = self.snap(s, sid)
        self.check_login_lines(snap["elements"])
        self.assertTrue(any("JSON form was read" in w for w in snap.get("warnings", [])), snap)
        self.assertEqual(self.source_requests()[-2:], ["source", "source?format=json"])

        # the same lines but one: the JSON form has no placeholderValue, so an empty field shows its
        # placeholder as text (docs/ios.md)
        def norm(lines):
            return sorted(re.sub(r' text="you@example.com"', "", re.sub(r"^@e\d+ ", "", l)) for l in lines)
        self.assertEqual(norm(snap["elements"]), norm(xml_lines))
        self.assertEqual(s.close(), 0)

    def test_escaped_slashes_as_wda_writes_them(self):
        s, sid = self.attached()
        plain = self.snap(s, sid)["elements"]
        # NSJSONSerialization escapes every '/', which turns "</XCUIElementType...>" into "<\/XCUIElementType...>"
        self.wda_knobs({"escapeSlashes": True})
        self.assertEqual(self.snap(s, sid)["elements"], plain)
        self.wda_knobs({"escapeSlashes": True, "xmlSourceFails": True})
        self.check_login_lines(self.snap(s, sid)["elements"])
        self.assertEqual(s.close(), 0)

    def test_json_form_by_setting_drives_a_login(self):
        self.server_env = dict(self.server_env, SWIPIUM_WDA_SOURCE_FORMAT="json")
        s, sid = self.attached()
        self.check_login_lines(self.snap(s, sid)["elements"])
        self.tool_ok(s, "qa_act", sid, action="type", target={"id": "email"}, text="ann@example.com")
        act = self.tool_ok(s, "qa_act", sid, action="type", target={"id": "password"}, text="hunter2")
        self.assertNotIn("\u2022", json.dumps(act))
        act = self.tool_ok(s, "qa_act", sid, action="tap", target={"text": "Sign in"})
        self.assertTrue(any("Item 1" in l for l in act["elements"]), act["elements"])
        # every source read asked for the JSON form
        srcs = self.source_requests()
        self.assertTrue(srcs and all(p == "source?format=json" for p in srcs), srcs)
        self.assertNotIn("hunter2", json.dumps(act))
        self.assertEqual(s.close(), 0)


class TestBigSources(SourceCase):
    def big(self, s, sid):
        extra = LIMIT - base_elements()
        self.wda_knobs(dict(self.form, hugeNodes=extra))
        snap = self.snap(s, sid)
        self.assertLessEqual(len(snap["elements"]), 61)
        self.assertGreater(snap["elementsOmitted"], 0)
        self.assertEqual(snap["snapshotQuality"]["signals"]["nodeCount"], LIMIT, snap["snapshotQuality"])
        # one element more: refused, not read further
        self.wda_knobs(dict(self.form, hugeNodes=extra + 1))
        sc = self.tool_fails(s, "qa_snapshot", sid, "WDA_HIERARCHY_TOO_LARGE")
        self.assertIn(str(LIMIT), sc["what"])
        self.wda_knobs({})
        self.check_login_lines(self.snap(s, sid)["elements"])  # the session still works

    def test_50000_elements_xml(self):
        self.form = {}
        s, sid = self.attached()
        self.big(s, sid)
        self.assertEqual(s.close(), 0)

    def test_50000_elements_json(self):
        self.form = {"xmlSourceFails": True}
        s, sid = self.attached()
        self.big(s, sid)
        self.assertEqual(s.close(), 0)


class TestHugeText(SourceCase):
    def test_one_huge_label_is_refused_within_bounded_memory(self):
        s, sid = self.attached()
        self.snap(s, sid)
        # 8 buttons, each labelled 500,000 '&' and valued 500,000 '<' (libxml2 itself refuses one attribute
        # of about 10 MB): 4.5 MB each once escaped again for the hierarchy, so the fourth would take it past
        # its 16 MiB cap and is refused before any of its text is copied
        self.wda_knobs({"hugeLabel": 500000})
        sc = self.tool_fails(s, "qa_snapshot", sid, "WDA_HIERARCHY_TOO_LARGE")
        self.assertIn("16 MiB", sc["what"])
        with open("/proc/%d/status" % s.proc.pid) as f:
            hwm = [int(l.split()[1]) for l in f if l.startswith("VmHWM:")][0]
        # the answer is ~36 MB of JSON: the body, the decoded XML in the same buffer, the hierarchy under
        # 16 MiB and one element's values
        # (not under ASan, scripts/test.sh sets SWIPIUM_SANITIZERS: its quarantine keeps freed buffers and its
        # shadow memory adds to every page, so the same run peaks near 250 MB there)
        if not os.environ.get("SWIPIUM_SANITIZERS"):
            self.assertLess(hwm, 160 * 1024, "peak RSS %d kB" % hwm)
        self.wda_knobs({})
        self.check_login_lines(self.snap(s, sid)["elements"])
        self.assertEqual(s.close(), 0)


class TestHostileSources(SourceCase):
    server_env = dict(WdaCase.server_env, SWIPIUM_WDA_SOURCE_TIMEOUT_MS="1500")

    def fails_then_recovers(self, s, sid, knob, code, words):
        self.wda_knobs(knob)
        sc = self.tool_fails(s, "qa_snapshot", sid, code)
        for w in words:
            self.assertIn(w, sc["what"], sc)
        self.assertTrue(sc["nextSteps"], sc)
        self.wda_knobs({})
        self.check_login_lines(self.snap(s, sid)["elements"])
        return sc

    def test_each_hostile_answer_has_its_code_and_the_session_goes_on(self):
        s, sid = self.attached()
        self.snap(s, sid)
        self.fails_then_recovers(s, sid, {"garbage": ["/source"]}, "SNAPSHOT_FAILED", ["not its JSON", "502"])
        self.fails_then_recovers(s, sid, {"truncated": ["/source"]}, "SNAPSHOT_FAILED", ["cut short"])
        sc = self.fails_then_recovers(s, sid, {"status500": ["/source"]}, "SNAPSHOT_FAILED", ["HTTP 500"])
        self.assertIn("unknown error", sc["what"])
        # the JSON form cut inside an element (WDA cannot write XML, and its JSON answer is cut)
        self.fails_then_recovers(s, sid, {"xmlSourceFails": True, "jsonSource": "garbage"}, "SNAPSHOT_FAILED",
                                 ["JSON source is not well-formed", "not closed"])
        # a hang: the source's own timeout (SWIPIUM_WDA_SOURCE_TIMEOUT_MS here), then the next call works
        sc = self.fails_then_recovers(s, sid, {"hang": {"/source": 6}}, "WDA_SOURCE_SLOW", ["1500 ms"])
        self.assertEqual(s.close(), 0)

    def test_json_form_hostile(self):
        self.server_env = dict(self.server_env, SWIPIUM_WDA_SOURCE_FORMAT="json")
        s, sid = self.attached()
        self.snap(s, sid)
        self.fails_then_recovers(s, sid, {"jsonSource": "garbage"}, "SNAPSHOT_FAILED", ["not well-formed"])
        self.fails_then_recovers(s, sid, {"truncated": ["/source"]}, "SNAPSHOT_FAILED", ["not well-formed"])
        self.fails_then_recovers(s, sid, {"garbage": ["/source"]}, "SNAPSHOT_FAILED", ["not its JSON", "502"])
        self.fails_then_recovers(s, sid, {"status500": ["/source"]}, "SNAPSHOT_FAILED", ["HTTP 500"])
        self.assertEqual(s.close(), 0)

    def test_three_failed_sources_make_the_screen_visual_only_then_it_recovers(self):
        s, sid = self.attached()
        self.snap(s, sid)
        self.wda_knobs({"garbage": ["/source"]})
        codes = [self.tool(s, "qa_snapshot", sid)["structuredContent"]["failureCode"] for _ in range(3)]
        self.assertEqual(codes, ["SNAPSHOT_FAILED", "SNAPSHOT_FAILED", "VISUAL_ONLY_SCREEN"])
        self.wda_knobs({})
        snap = self.snap(s, sid)
        self.assertTrue(snap.get("modeRecovered"), snap)
        self.check_login_lines(snap["elements"])
        self.assertEqual(s.close(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
