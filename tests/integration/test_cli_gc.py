#!/usr/bin/python3
"""`swipium gc` driven through argv, exit codes and output over a synthetic ~/.swipium tree."""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

BUILD = os.environ.get("SWIPIUM_BUILD_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
SWIPIUM = os.path.join(BUILD, "swipium-cli", "swipium")
DAY = 86400


def fmt_bytes(n):
    """The reference's byte formatting (1024-based, JavaScript toFixed rounding of exact binary values)."""
    if n < 1024:
        return "%d B" % n
    if n < 1 << 20:
        t = (n * 10 + 512) >> 10
        return "%d.%d KB" % (t // 10, t % 10)
    if n < 1 << 30:
        t = (n * 10 + (1 << 19)) >> 20
        return "%d.%d MB" % (t // 10, t % 10)
    t = (n * 100 + (1 << 29)) >> 30
    return "%d.%02d GB" % (t // 100, t % 100)


class GcTest(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="sw-gc-")
        self.sw = os.path.join(self.home, ".swipium")
        self.runs = os.path.join(self.sw, "runs")
        os.makedirs(self.runs, mode=0o700)

    def tearDown(self):
        shutil.rmtree(self.home, ignore_errors=True)

    def run_gc(self, *args, env_extra=None):
        env = {"HOME": self.home, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        env.update(env_extra or {})
        return subprocess.run([SWIPIUM, "gc", *args], env=env, capture_output=True, text=True, timeout=120)

    def build_tree(self, projects=10, per_project=100):
        """1,000 sessions: ages 0..99 days (unique per project), every 7th registered, sizes vary."""
        now = time.time()
        sessions = {}
        registry = []
        for p in range(projects):
            proj = "%016x" % (0xABC000 + p)
            for i in range(per_project):
                sid = "%02x%06x" % (p, i)
                d = os.path.join(self.runs, proj, sid)
                os.makedirs(os.path.join(d, "screenshots"), mode=0o700)
                size = 100 + (i * 37 + p) % 900
                with open(os.path.join(d, "state.json"), "w") as f:
                    f.write("x" * size)
                with open(os.path.join(d, "screenshots", "s.png"), "wb") as f:
                    f.write(b"\0" * 50)
                age = (i * 7 + p) % per_project  # a permutation of 0..99 within the project
                t = now - age * DAY - 3600
                for path in (os.path.join(d, "screenshots", "s.png"), os.path.join(d, "screenshots"),
                             os.path.join(d, "state.json"), d):
                    os.utime(path, (t, t))
                registered = (i % 7) == 3
                if registered:
                    registry.append({"id": sid, "dir": d})
                sessions[d] = {"project": proj, "age": age, "bytes": size + 50, "registered": registered}
        with open(os.path.join(self.sw, "registry.json"), "w") as f:
            json.dump(registry, f, indent=2)
        return sessions

    @staticmethod
    def load(path):
        with open(path) as f:
            return json.load(f)

    @staticmethod
    def expected(sessions, days, keep):
        by_project = {}
        for d, s in sessions.items():
            by_project.setdefault(s["project"], []).append((s["age"], d))
        doomed = set()
        for items in by_project.values():
            items.sort()  # youngest (newest activity) first
            for rank, (age, d) in enumerate(items):
                if rank >= keep and age >= days and not sessions[d]["registered"]:
                    doomed.add(d)
        return doomed

    def remaining(self):
        out = set()
        for proj in os.listdir(self.runs):
            for sid in os.listdir(os.path.join(self.runs, proj)):
                out.add(os.path.join(self.runs, proj, sid))
        return out

    def test_deletes_exactly_the_expected_set(self):
        sessions = self.build_tree()
        doomed = self.expected(sessions, 30, 20)
        self.assertTrue(100 < len(doomed) < 1000)
        r = self.run_gc()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.remaining(), set(sessions) - doomed)
        nbytes = sum(sessions[d]["bytes"] for d in doomed)
        self.assertEqual(r.stdout,
                         "swipium gc: scanned 1000 session dir(s) under %s\n"
                         "  deleted %d session dir(s) older than 30 day(s) (not registered; newest 20 per project kept)\n"
                         "  reclaimed: %s\n"
                         "  projects.json: 0 > 0 entries\n" % (self.runs, len(doomed), fmt_bytes(nbytes)))

    def test_flags_days_and_keep(self):
        sessions = self.build_tree()
        doomed = self.expected(sessions, 10, 5)
        r = self.run_gc("--days=10", "--keep", "5")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.remaining(), set(sessions) - doomed)
        self.assertIn("  deleted %d session dir(s) older than 10 day(s) (not registered; newest 5 per project kept)\n"
                      % len(doomed), r.stdout)

    def test_days_zero_keeps_only_registered_and_newest(self):
        sessions = self.build_tree(projects=2, per_project=30)
        r = self.run_gc("--days", "0", "--keep=0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.remaining(), {d for d, s in sessions.items() if s["registered"]})

    def test_dry_run_deletes_nothing(self):
        sessions = self.build_tree()
        doomed = self.expected(sessions, 30, 20)
        for flag in ("--dry-run", "-n"):
            r = self.run_gc(flag)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.remaining(), set(sessions))
            nbytes = sum(sessions[d]["bytes"] for d in doomed)
            self.assertEqual(r.stdout,
                             "swipium gc (dry run): scanned 1000 session dir(s) under %s\n"
                             "  would delete %d session dir(s) older than 30 day(s) (not registered; newest 20 per project kept)\n"
                             "  reclaimable: %s\n"
                             "  projects.json: 0 > 0 entries\n" % (self.runs, len(doomed), fmt_bytes(nbytes)))

    def test_corrupt_registry_is_rebuilt_and_protects_every_session(self):
        sessions = self.build_tree(projects=3, per_project=40)
        for n, bad in enumerate(('[{"id": "x", "dir"', '{"not": "an array"}', "\x00\x01")):
            with open(os.path.join(self.sw, "registry.json"), "w") as f:
                f.write(bad)
            r = self.run_gc("--days", "0", "--keep", "0")
            self.assertEqual(r.returncode, 0, r.stderr)
            # every session folder is registered again, so even --days 0 --keep 0 deletes none
            self.assertEqual(self.remaining(), set(sessions))
            self.assertIn("  registry.json was corrupt: set aside and rebuilt from the session folders "
                          "(120 registered again)\n", r.stdout)
            self.assertIn("  deleted 0 session dir(s)", r.stdout)
            with open(os.path.join(self.sw, "registry.json")) as f:
                reg = json.load(f)
            self.assertEqual({e["dir"] for e in reg}, set(sessions))
            self.assertEqual({e["id"] for e in reg}, {os.path.basename(d) for d in sessions})
            # the corrupt file is set aside for a human to look at
            asides = [x for x in os.listdir(self.sw) if x.startswith("registry.json.corrupt-")]
            self.assertEqual(len(asides), n + 1)
        # the rebuilt registry is an ordinary one: a second gc finds nothing wrong
        r = self.run_gc("--days", "0", "--keep", "0")
        self.assertNotIn("corrupt", r.stdout)
        self.assertEqual(self.remaining(), set(sessions))

    def test_missing_registry_means_nothing_registered(self):
        sessions = self.build_tree(projects=1, per_project=30)
        os.unlink(os.path.join(self.sw, "registry.json"))
        r = self.run_gc("--keep", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.remaining(), {d for d, s in sessions.items() if s["age"] < 30})

    def test_empty_project_dir_removed(self):
        self.build_tree(projects=1, per_project=5)
        os.unlink(os.path.join(self.sw, "registry.json"))
        r = self.run_gc("--days", "0", "--keep", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(self.runs), [])

    def test_bytes_formatting_rounds_like_javascript(self):
        d = os.path.join(self.runs, "p" * 16, "deadbeef")
        os.makedirs(d)
        with open(os.path.join(d, "state.json"), "wb") as f:
            f.write(b"x" * 1280)  # exactly 1.25 KB: JavaScript's toFixed(1) gives 1.3
        old = time.time() - 90 * DAY
        os.utime(os.path.join(d, "state.json"), (old, old))
        os.utime(d, (old, old))
        r = self.run_gc("--keep", "0", "-n")
        self.assertIn("  reclaimable: 1.3 KB\n", r.stdout)
        self.assertIn("  would delete 1 session dir(s)", r.stdout)

    def test_projects_json_compaction(self):
        root = os.path.join(self.home, "app")
        os.mkdir(root)
        doc = {"schemaVersion": 1, "projects": {
            "a": {"projectId": "a", "root": root, "lastSeenAt": "2026-05-01T00:00:00.000Z", "appMapPath": "m"},
            "b": {"projectId": "b", "root": "/gone/away", "lastSeenAt": "2026-05-02T00:00:00.000Z"},
            "c": {"projectId": "c", "lastSeenAt": "2026-05-03T00:00:00.000Z"},
        }}
        path = os.path.join(self.sw, "projects.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        r = self.run_gc("--dry-run")
        self.assertIn("  projects.json: 3 > 1 entry (2 stale would be removed)\n", r.stdout)
        self.assertEqual(len(self.load(path)["projects"]), 3)
        r = self.run_gc()
        self.assertIn("  projects.json: 3 > 1 entry (2 stale removed)\n", r.stdout)
        self.assertEqual(list(self.load(path)["projects"]), ["a"])
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)

    def test_bad_numbers_are_usage_errors(self):
        self.build_tree(projects=1, per_project=30)
        before = self.remaining()
        cases = [
            (["--days="], "--days", "nothing"),
            (["--days"], "--days", "nothing"),
            (["--days", "1e1"], "--days", "1e1"),
            (["--days", "-1"], "--days", "-1"),
            (["--days", "0.5"], "--days", "0.5"),
            (["--keep=abc"], "--keep", "abc"),
            (["--keep", " 3"], "--keep", " 3"),
            (["--keep", ""], "--keep", "nothing"),
        ]
        for args, flag, got in cases:
            r = self.run_gc(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(r.stdout, "")
            self.assertTrue(r.stderr.startswith("swipium gc: %s expects a non-negative integer (got %s)\n\nUsage: swipium gc"
                                                % (flag, got)), (args, r.stderr))
        r = self.run_gc("--force")
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith("swipium gc: unknown option --force\n"))
        self.assertEqual(self.remaining(), before)

    def test_help(self):
        for flag in ("--help", "-h"):
            r = self.run_gc(flag)
            self.assertEqual(r.returncode, 0)
            self.assertTrue(r.stdout.startswith("Usage: swipium gc [--dry-run | -n] [--days N] [--keep N]\n"))
        r = subprocess.run([SWIPIUM, "--help"], capture_output=True, text=True, env={"HOME": self.home})
        self.assertIn("swipium gc [--dry-run] [--days N] [--keep N]", r.stdout)

    def test_environment_defaults(self):
        sessions = self.build_tree(projects=2, per_project=40)
        # a bad value falls back to the default with a warning; "off" means the default 30 for gc
        r = self.run_gc("-n", env_extra={"SWIPIUM_RETENTION_DAYS": "0.5", "SWIPIUM_RETENTION_KEEP": "3"})
        self.assertEqual(r.returncode, 0)
        self.assertIn("SWIPIUM_RETENTION_DAYS", r.stderr)
        self.assertIn("older than 30 day(s) (not registered; newest 3 per project kept)", r.stdout)
        r = self.run_gc("-n", env_extra={"SWIPIUM_RETENTION_DAYS": "off", "SWIPIUM_RETENTION_KEEP": "0"})
        self.assertIn("older than 30 day(s) (not registered; newest 0 per project kept)", r.stdout)
        r = self.run_gc(env_extra={"SWIPIUM_RETENTION_DAYS": "12", "SWIPIUM_RETENTION_KEEP": "4"})
        self.assertEqual(self.remaining(), set(sessions) - self.expected(sessions, 12, 4))


if __name__ == "__main__":
    unittest.main()
