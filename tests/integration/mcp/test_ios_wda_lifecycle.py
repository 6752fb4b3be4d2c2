#!/usr/bin/env python3
"""qa_wda's managed WebDriverAgent over its whole life, through the server, with the stand-ins of tests/ios first on
PATH (xcrun, xcodebuild, wda.py) and a private HOME:

- build is a job (kind wda_build): qa_job_status shows its progress and result, qa_job_cancel stops xcodebuild's
  whole process group (a hanging build with a child of its own), the kill timer ends a build that runs too long,
  and the build log is an artifact in every outcome;
- a managed WebDriverAgent outlives its server (kill -9, or stdin closed) and the next server adopts it when its
  /status is ready, or stops it when not; qa_wda stop ends an adopted one, also from a rehydrated session;
- the repository settings ios.wda.* (startupTimeoutMs, capabilities, url, allowNonLoopbackUrls);
- attach to another simulator's managed WebDriverAgent is STALE_WDA_DEVICE.
"""
import json
import os
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_ios import IPHONE15PRO  # noqa: E402
import test_ios_drive  # noqa: E402
from test_ios_drive import free_port  # noqa: E402


class WdaCase(test_ios_drive.TestWdaManaged):

    def wait_gone(self, pid, seconds=10):
        for _ in range(int(seconds * 10)):
            if not self.alive(pid):
                return True
            time.sleep(0.1)
        return False

    def start_build(self, s, sid):
        r = self.approve(s, sid, "build", "wda_build")
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        return r["structuredContent"]

    def hang_pids(self):
        path = os.path.join(self.home, ".fake-xcodebuild", "hang.pids")
        for _ in range(100):
            if os.path.exists(path):
                with open(path) as f:
                    return [int(x) for x in f.read().split()]
            time.sleep(0.1)
        self.fail("the hanging xcodebuild stand-in never wrote its pids")

    def read_artifact(self, s, sid, uri):
        r = s.tool("qa_get_artifact", {"uri": uri})["result"]
        self.assertFalse(r.get("isError"), json.dumps(r)[:1500])
        return json.dumps(r)


# the parent's own tests run in mcp-ios-drive, not again here (unittest skips attributes that are not callable)
for _name in [n for n in dir(test_ios_drive.TestWdaManaged) if n.startswith("test")]:
    setattr(WdaCase, _name, None)


class TestBuildJob(WdaCase):
    def test_build_answers_a_job_at_once_and_reports_progress(self):
        s, sid = self.ready()
        self.xb_knobs({"mode": "hang"})
        t0 = time.monotonic()
        b = self.start_build(s, sid)
        self.assertLess(time.monotonic() - t0, 20)
        self.assertEqual((b["status"], b["kind"]), ("running", "wda_build"), b)
        self.assertIn("qa_job_status", json.dumps(b))
        xb, child = self.hang_pids()
        j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"])
        self.assertEqual((j["status"], j["kind"]), ("running", "wda_build"), j)
        # progress: what runs, and the last line xcodebuild printed
        for _ in range(30):
            j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"])
            if "FBWebServer.o" in json.dumps(j.get("progressDetail")):
                break
            time.sleep(0.2)
        self.assertIn("build-for-testing", j["progress"])
        self.assertIn("FBWebServer.o", j["progressDetail"].get("lastEvent", ""), j)
        # a second build while one runs starts nothing
        r = self.approve(s, sid, "build", "wda_build")
        self.assertEqual(r["structuredContent"].get("failureCode"), "INVALID_ARGUMENT", r)
        self.assertIn(b["jobId"], json.dumps(r["structuredContent"]))
        # cancel stops xcodebuild and its child (the whole process group)
        c = self.tool_ok(s, "qa_job_cancel", sid, jobId=b["jobId"])
        self.assertTrue(c["cancelled"], c)
        self.assertTrue(self.wait_gone(xb), "xcodebuild still runs after qa_job_cancel")
        self.assertTrue(self.wait_gone(child), "xcodebuild's child still runs after qa_job_cancel")
        # the log is an artifact even of a cancelled build
        for _ in range(50):
            j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"])
            if j["artifactUris"]:
                break
            time.sleep(0.1)
        self.assertEqual(j["status"], "cancelled", j)
        self.assertEqual(len(j["artifactUris"]), 1, j)
        text = self.read_artifact(s, sid, j["artifactUris"][0])
        self.assertIn("FBWebServer.o", text)
        self.assertIn("cancelled", text)
        # the session still builds afterwards
        self.xb_knobs({})
        j = self.build(s, sid)
        self.assertEqual(j["status"], "done", j)
        self.assertTrue(j["result"]["built"])
        self.assertEqual(s.close(), 0)

    def test_kill_timer_stops_a_hanging_build(self):
        self.server_env = dict(self.server_env, SWIPIUM_WDA_BUILD_TIMEOUT_MS="1500")
        s, sid = self.ready()
        self.xb_knobs({"mode": "hang"})
        b = self.start_build(s, sid)
        xb, child = self.hang_pids()
        j = self.tool_ok(s, "qa_job_status", sid, jobId=b["jobId"], waitMs=30000)
        self.assertEqual((j["status"], j.get("failureCode")), ("failed", "WDA_BUILD_FAILED"), j)
        res = j["result"]
        self.assertTrue(res["timedOut"], res)
        self.assertFalse(res["built"])
        self.assertIn("ran past", res["what"])
        self.assertIn(res["logUri"], j["artifactUris"])
        self.assertIn("time limit", self.read_artifact(s, sid, res["logUri"]))
        self.assertTrue(self.wait_gone(xb) and self.wait_gone(child), "the timed-out build's group still runs")
        self.assertEqual(s.close(), 0)

    def test_refused_consent_starts_no_job(self):
        s, sid = self.ready()
        r = self.wda(s, sid, "build")
        env = r["structuredContent"]
        self.assertTrue(env.get("requiresConsent"), env)
        r = self.wda(s, sid, "build", consentId=env["consentId"], approve=False)
        self.assertNotIn("jobId", json.dumps(r["structuredContent"]))
        self.assertFalse(os.path.exists(os.path.join(self.home, ".fake-xcodebuild", "hang.pids")))
        self.assertEqual(s.close(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
