"""qa_flow_check and qa_flow_repair through the server (issue 11 item 22, docs/threat-model.md): every error and
warning carries a machine-readable code, its line and its message (INVALID_FLOW for syntax and schema errors);
a hostile, long non-ASCII locator still gives its warning; repair compares text with Unicode spaces folded
(a label with U+00A0 or U+202F is the exact match it looks like). Run through meson test."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "mcp"))
from mcpclient import ServerTestCase  # noqa: E402
from test_confinement import DeviceBase, sc  # noqa: E402

class Lint(ServerTestCase):
    def check(self, yaml_text):
        s = self.server()
        s.initialize()
        r = s.tool("qa_flow_check", {"flowYaml": yaml_text})
        s.close()
        return r["result"]

    def test_every_error_and_warning_has_code_line_message(self):
        res = self.check("name: x\nsteps:\n  - tapp: y\n  - tapAt: [10, 20]\n  - tap: \"xpath=//a\"\n")
        out = res["structuredContent"]
        self.assertFalse(out["valid"])
        self.assertGreaterEqual(len(out["errors"]), 1)
        self.assertGreaterEqual(len(out["warnings"]), 2)
        for item in out["errors"] + out["warnings"]:
            self.assertIsInstance(item.get("code"), str, item)
            self.assertRegex(item["code"], r"^[A-Z][A-Z0-9_]+$")
            self.assertIsInstance(item.get("line"), int, item)
            self.assertIsInstance(item.get("message"), str, item)
        self.assertEqual({e["code"] for e in out["errors"]}, {"INVALID_FLOW"})
        self.assertEqual(out["errors"][0]["line"], 3)
        codes = {w["code"] for w in out["warnings"]}
        self.assertIn("BRITTLE_LOCATOR", codes)

    def test_whole_flow_warning_has_a_line(self):
        out = self.check("name: x\nsteps:\n  - tapAt: [10, 20]\n")["structuredContent"]
        flow_wide = [w for w in out["warnings"] if w["code"] == "COORDINATE_ONLY_FLOW"]
        self.assertEqual(len(flow_wide), 1, out)
        self.assertEqual(flow_wide[0]["line"], 1)

    def test_long_non_ascii_locator_keeps_its_warning(self):
        # the message used to be cut at 512 bytes inside a character: jansson refused it and the warning vanished
        sel = "xpath=//" + "\u6f22" * 600
        out = self.check("name: x\nsteps:\n  - tap: \"%s\"\n" % sel)["structuredContent"]
        w = [w for w in out["warnings"] if w["code"] == "BRITTLE_LOCATOR"]
        self.assertEqual(len(w), 1, out)
        self.assertIn("\u6f22\u6f22", w[0]["message"])
        self.assertLessEqual(len(w[0]["message"]), 500)

    def test_yaml_syntax_error_is_invalid_flow_with_line_and_column(self):
        res = self.check("name: x\nsteps:\n  - tap: [unclosed\n  - tap: y\n")
        self.assertTrue(res.get("isError"), res)
        e = res["structuredContent"]
        self.assertEqual(e["failureCode"], "INVALID_FLOW")
        self.assertIsInstance(e.get("line"), int, e)
        self.assertIsInstance(e.get("column"), int, e)
        self.assertIn("YAML syntax error", e["what"])


class Repair(DeviceBase):
    app_name = "spaces"  # tests/vdevice/apps/spaces.yaml: labels padded with U+00A0 and U+202F

    def test_labels_with_unicode_spaces_are_exact_matches(self):
        flows = os.path.join(self.app, ".swipium", "flows")
        os.makedirs(flows)
        with open(os.path.join(flows, "old.yaml"), "w") as f:
            f.write("name: old\nappId: com.example.spaces\nsteps:\n  - tap: \"Sign in\"\n  - tap: \"pay now\"\n")
        s = self.server()
        sid = self.session(s)
        for step, want in ((0, "Sign\u00a0in\u00a0"), (1, "Pay\u202fnow ")):
            r = s.tool("qa_flow_repair", {"sessionId": sid, "flow": "old", "failedStep": step})
            rep = sc(r)
            self.assertEqual(rep["best"]["confidence"], "high", json.dumps(rep)[:2000])
            self.assertEqual(rep["best"]["text"], want)
        # apply:true patches the step with the label as the screen shows it
        r = s.tool("qa_flow_repair", {"sessionId": sid, "flow": "old", "failedStep": 0, "apply": True})
        self.assertTrue(sc(r)["applied"], sc(r))
        with open(os.path.join(flows, "old.yaml"), encoding="utf-8") as f:
            self.assertIn("Sign\u00a0in\u00a0", f.read())


if __name__ == "__main__":
    unittest.main(verbosity=2)
