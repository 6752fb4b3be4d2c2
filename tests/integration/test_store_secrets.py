#!/usr/bin/python3
"""Secret scan: after a session used secrets of every kind (notes, findings, tool errors, env changes,
inputs, ledger rows, artifacts, a job), no file under $HOME/.swipium holds any of them in any spelling,
and every file is 0600 and every directory 0700."""
import json
import re
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

HELPER = os.environ.get("SWIPIUM_STORE_HELPER")

PASSWORD = 'p&ss<"W0rd!\'x'
TOKEN = "ghp_T0kenValue1234567890"
PIN = "4821"
THREE = "k9z"


def spellings(value):
    """Raw, JSON-string-escaped and XML-escaped (both apostrophe forms) spellings of a secret."""
    out = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    xml = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    out.add(xml.replace("'", "&apos;"))
    out.add(xml.replace("'", "&#39;"))
    return out


# The redactor matches 3-character and short all-digit secrets only as whole tokens (docs/redaction.md),
# so "4821" inside a random hex id such as "554821dd" is not that secret: look for whole tokens there.
WHOLE_TOKEN = {PIN, THREE}


def holds(data, secret, needle):
    if secret in WHOLE_TOKEN:
        return re.search(rb"(?<![0-9A-Za-z])" + re.escape(needle) + rb"(?![0-9A-Za-z])", data) is not None
    return needle in data


class SecretScanTest(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="sw-secrets-")
        self.root = os.path.join(self.home, "app")
        os.mkdir(self.root)

    def tearDown(self):
        shutil.rmtree(self.home, ignore_errors=True)

    def test_no_secret_on_disk(self):
        self.assertTrue(HELPER and os.path.exists(HELPER), "SWIPIUM_STORE_HELPER not built")
        env = {"HOME": self.home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SWIPIUM_RETENTION_DAYS": "off"}
        r = subprocess.run([HELPER, "secrets", self.root, PASSWORD, TOKEN, PIN, THREE], env=env,
                           capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        sid, status = r.stdout.decode().splitlines()[:2]
        # the job status handed to the client is redacted too
        for secret in (PASSWORD, TOKEN, PIN):
            for sp in spellings(secret):
                self.assertFalse(holds(status.encode(), secret, sp.encode()), "job status holds %r" % secret)
        self.assertIn('"status":"done"', status)
        sw = os.path.join(self.home, ".swipium")
        files = 0
        needles = [(s, sp.encode()) for s in (PASSWORD, TOKEN, PIN, THREE) for sp in spellings(s)]
        for dirpath, dirnames, filenames in os.walk(sw):
            self.assertEqual(stat.S_IMODE(os.stat(dirpath).st_mode), 0o700, dirpath)
            for name in filenames:
                path = os.path.join(dirpath, name)
                files += 1
                self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600, path)
                with open(path, "rb") as f:
                    data = f.read()
                for secret, needle in needles:
                    self.assertFalse(holds(data, secret, needle), "%s holds a spelling of %r" % (path, secret))
        # state.json, registry.json and three artifacts at least: the scan really looked at files
        self.assertGreaterEqual(files, 5)
        state = None
        for dirpath, _, filenames in os.walk(os.path.join(sw, "runs")):
            if "state.json" in filenames:
                with open(os.path.join(dirpath, "state.json")) as f:
                    state = json.load(f)
        self.assertEqual(state["id"], sid)
        # the records are there, just scrubbed
        self.assertEqual(len(state["notes"]), 1)
        self.assertEqual(len(state["findings"]), 1)
        self.assertEqual(len(state["mutations"]), 1)
        self.assertEqual(len(state["artifacts"]), 3)
        self.assertNotIn("value", state["inputs"][0])
        self.assertEqual(state["generatedValues"][0]["value"], "<redacted>")
        self.assertIn("\u00abredacted\u00bb", json.dumps(state, ensure_ascii=False))
        self.assertEqual(state["jobs"][0]["status"], "done")


if __name__ == "__main__":
    unittest.main()
