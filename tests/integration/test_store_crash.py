#!/usr/bin/python3
"""Crash safety: a process writing sessions is killed with SIGKILL at random moments, 200 times.
After every kill, state.json, registry.json and the mutation ledger must parse, and every
registered session must reload."""
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

HELPER = os.environ.get("SWIPIUM_STORE_HELPER")
KILLS = int(os.environ.get("SWIPIUM_CRASH_KILLS", "200"))


class CrashSafetyTest(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="sw-crash-")
        self.root = os.path.join(self.home, "app")
        os.mkdir(self.root)
        self.env = {"HOME": self.home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "SWIPIUM_RETENTION_DAYS": "off", "SWIPIUM_LOG_LEVEL": "error"}

    def tearDown(self):
        shutil.rmtree(self.home, ignore_errors=True)

    def check_tree(self, kill_no):
        sw = os.path.join(self.home, ".swipium")
        reg_path = os.path.join(sw, "registry.json")
        ids = []
        if os.path.exists(reg_path):
            with open(reg_path) as f:
                reg = json.load(f)  # raises on a torn file
            self.assertIsInstance(reg, list)
            for e in reg:
                self.assertIsInstance(e["id"], str)
                ids.append(e["id"])
        for path in glob.glob(os.path.join(sw, "runs", "*", "*", "state.json")):
            with open(path) as f:
                try:
                    st = json.load(f)
                except ValueError as e:
                    self.fail("kill %d: %s does not parse: %s" % (kill_no, path, e))
            self.assertIsInstance(st["id"], str)
            self.assertIsInstance(st["mutations"], list)
            for row in st["mutations"]:
                self.assertEqual(row["tool"], "qa_network")
                self.assertEqual(row["status"], "executed")
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        self.assertEqual(glob.glob(os.path.join(sw, "**", "*.corrupt-*"), recursive=True), [])
        return ids

    def test_sigkill_many_times(self):
        self.assertTrue(HELPER and os.path.exists(HELPER), "SWIPIUM_STORE_HELPER not built")
        rng = random.Random(20261130)
        ids = []
        for k in range(KILLS):
            p = subprocess.Popen([HELPER, "write", self.root], env=self.env, stderr=subprocess.PIPE)
            # random moments: right at start-up, mid-creation, and deep in the write loop
            time.sleep(rng.choice([0.002, 0.01, 0.05, 0.1]) * rng.random())
            p.send_signal(signal.SIGKILL)
            p.wait()
            err = p.stderr.read().decode()
            p.stderr.close()
            self.assertNotIn("store-helper:", err, "the writer failed before it was killed: " + err)
            ids = self.check_tree(k)
        self.assertGreater(len(ids), 0, "no session was ever registered; the kills came too early")
        rows = 0
        for path in glob.glob(os.path.join(self.home, ".swipium", "runs", "*", "*", "state.json")):
            with open(path) as f:
                rows += len(json.load(f)["mutations"])
        self.assertGreater(rows, 0, "no ledger row was ever written; the kills came too early")
        # every registered session reloads (rehydration after a crash)
        r = subprocess.run([HELPER, "reload", *ids], env=self.env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
