"""test_app_map.py: the app-map tools and resources through real swipium-mcp processes (issue 14 items 3-5):
reading, querying and updating a map, the locked store under two servers, a corrupt map, a project whose
.swipium cannot be written, projectRoot checks, the .gitignore rule (also with .git as a file) and a `git`
stand-in first on PATH that fails the test if anything ever runs it."""
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mcpclient import ServerTestCase  # noqa: E402

SOURCE_ROOT = os.environ.get("SWIPIUM_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
APPTREES = os.path.join(SOURCE_ROOT, "tests", "data", "apptrees")


def hand_map():
    """A small map in the documented format (docs/app-map.md), written by hand for the read/query/update tests."""
    return {
        "schemaVersion": 1,
        "project": {"root": "x", "framework": "expo", "platforms": ["android", "ios"]},
        "appIdentity": {"android": {"id": "com.acme.shop", "source": "app.json"}},
        "staticTopology": {
            "framework": "expo", "router": "expo-router",
            "screens": [
                {"id": "route:/login", "name": "Login", "route": "/login", "kind": "screen",
                 "sourceFiles": ["app/login.tsx"], "confidence": 0.9, "reasons": ["file route app/login.tsx"],
                 "auth": True},
                {"id": "route:/cart", "name": "Cart", "route": "/cart", "kind": "screen",
                 "sourceFiles": ["app/cart.tsx"], "confidence": 0.9, "reasons": ["file route app/cart.tsx"]},
                {"id": "route:/checkout/[step]", "name": "CheckoutStep", "route": "/checkout/[step]",
                 "kind": "screen", "sourceFiles": ["app/checkout/[step].tsx"], "confidence": 0.8,
                 "reasons": ["file route"]},
            ],
            "edges": [{"from": "route:/cart", "to": "route:/checkout/[step]", "kind": "link"}],
            "deepLinks": [], "parserNotes": []},
        "runtimeTopology": {"screens": [{"id": "rt-1", "title": "Shopping cart", "activity": ".MainActivity",
                                         "health": "ok", "visits": 2, "elements": [{"label": "Pay now"}]}],
                            "edges": [], "sources": []},
        "features": [
            {"id": "auth", "title": "Sign in", "sourceFiles": ["app/login.tsx"], "staticScreens": ["route:/login"],
             "confidence": 0.8},
            {"id": "checkout", "title": "Checkout", "sourceFiles": ["app/cart.tsx", "app/checkout/[step].tsx"],
             "staticScreens": ["route:/cart", "route:/checkout/[step]"], "confidence": 0.7},
        ],
        "auth": {"likely": True, "screens": ["route:/login"], "libraries": [], "reasons": ["login route"]},
        "codeIndex": {"files": [{"path": "src/api/payments.ts", "symbols": ["chargeCard"]}]},
        "testSuite": {"cases": []},
        "automation": {"suites": []},
        "provenance": [],
        "confidence": {"overall": 0.8},
        "coverage": {"features": {}},
    }


def tree_hash(root):
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files + dirs):
            p = os.path.join(d, name)
            st = os.lstat(p)
            h.update(("%s %o %d\n" % (os.path.relpath(p, root), st.st_mode, st.st_size)).encode())
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


class AppMapCase(ServerTestCase):
    """A private HOME, the app project, a recording `git` stand-in first on PATH, and helpers."""
    home_prefix = "swipium-appmap-"

    def setUp(self):
        super().setUp()
        # a `git` that records every call: nothing Swipium does may ever run it
        self.bin = os.path.join(self.home, "bin")
        os.makedirs(self.bin)
        self.git_log = os.path.join(self.home, "git-calls.log")
        with open(os.path.join(self.bin, "git"), "w") as f:
            f.write("#!/bin/sh\necho \"$@\" >> '%s'\nexit 1\n" % self.git_log)
        os.chmod(os.path.join(self.bin, "git"), 0o755)
        self.server_env = {"SWIPIUM_PROJECT_ROOT": "", "CLAUDE_PROJECT_DIR": "", "SWIPIUM_LOG_LEVEL": "error",
                           "PATH": self.bin + os.pathsep + os.environ.get("PATH", "")}

    def tearDown(self):
        # nothing ran git during the test
        if os.path.exists(self.git_log):
            with open(self.git_log) as f:
                self.fail("something ran git: " + f.read())
        super().tearDown()

    def server(self, env=None):
        s = super().server(env)
        s.initialize()
        return s

    def ok(self, s, name, args):
        r = s.tool(name, args)["result"]
        self.assertNotIn("isError", r, json.dumps(r)[:3000])
        return r["structuredContent"]

    def err(self, s, name, args, code):
        r = s.tool(name, args)["result"]
        self.assertTrue(r.get("isError"), json.dumps(r)[:3000])
        self.assertEqual(r["structuredContent"]["failureCode"], code, r["structuredContent"])
        return r["structuredContent"]

    def write_map(self, root=None, doc=None):
        d = os.path.join(root or self.app, ".swipium")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "app-map.json"), "w") as f:
            json.dump(doc or hand_map(), f)
        return os.path.join(d, "app-map.json")

    def load_map(self, root=None):
        with open(os.path.join(root or self.app, ".swipium", "app-map.json")) as f:
            return json.load(f)



class AppMap(AppMapCase):
    """qa_app_map_read, _query, _update and the resources on maps written by hand."""

    # ---- read -----------------------------------------------------------------------------------------

    def test_listed_with_the_spec_annotations(self):
        s = self.server()
        tools = {t["name"]: t for t in s.call("tools/list")["result"]["tools"]}
        for name in ("qa_app_map_read", "qa_app_map_query"):
            self.assertTrue(tools[name]["annotations"]["readOnlyHint"], name)
        self.assertTrue(tools["qa_app_map_update"]["annotations"]["destructiveHint"])
        self.assertEqual(tools["qa_app_map_query"]["inputSchema"]["required"], ["query"])

    def test_no_map_is_no_app_map(self):
        s = self.server()
        for name, args in (("qa_app_map_read", {}), ("qa_app_map_query", {"query": "login"}),
                           ("qa_app_map_update", {"note": "x"})):
            args = dict(args, projectRoot=self.app)
            self.err(s, name, args, "NO_APP_MAP")
        # the failed update created nothing but the lock
        self.assertFalse(os.path.exists(os.path.join(self.app, ".swipium", "app-map.json")))

    def test_read_sections_and_entries(self):
        self.write_map()
        s = self.server()
        sc = self.ok(s, "qa_app_map_read", {"projectRoot": self.app})
        self.assertEqual(sc["section"], "summary")
        self.assertEqual(sc["counts"]["staticScreens"], 3)
        self.assertEqual(sc["counts"]["runtimeScreens"], 1)
        self.assertEqual(sc["counts"]["authScreens"], 1)
        self.assertEqual(sc["framework"], "expo")
        self.assertRegex(sc["uri"], r"^swipium://project/[0-9a-f]{16}/app-map$")
        self.assertEqual(sc["projectRoot"], os.path.realpath(self.app))
        self.assertEqual(sc["rootSource"], "arg")
        scr = self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "section": "screens"})
        self.assertEqual([x["id"] for x in scr["staticScreens"]],
                         ["route:/login", "route:/cart", "route:/checkout/[step]"])
        self.assertTrue(scr["staticScreens"][2]["uri"].endswith("/app-map/screen/route%3A%2Fcheckout%2F%5Bstep%5D"))
        for section in ("features", "auth", "automation", "testSuite"):
            self.assertEqual(self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "section": section})["section"],
                             section)
        auth = self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "section": "auth"})
        self.assertEqual([x["id"] for x in auth["screens"]], ["route:/login"])
        full = self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "section": "full"})
        self.assertNotIn("staticTopology", full)  # never the whole map inline
        self.assertEqual(full["uri"], sc["uri"])
        f = self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "featureId": "checkout"})
        self.assertEqual(f["feature"]["title"], "Checkout")
        self.assertEqual(len(f["screens"]), 2)
        one = self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "screenId": "rt-1"})
        self.assertEqual(one["screenSource"], "runtime")
        e = self.err(s, "qa_app_map_read", {"projectRoot": self.app, "featureId": "nope"}, "INVALID_ARGUMENT")
        self.assertIn("nope", e["what"])
        self.assertIn("checkout", e["what"])
        self.err(s, "qa_app_map_read", {"projectRoot": self.app, "screenId": "nope"}, "INVALID_ARGUMENT")

    def test_large_sections_are_capped_and_counted(self):
        doc = hand_map()
        doc["staticTopology"]["screens"] = [{"id": "s%d" % i, "name": "Screen %d" % i, "kind": "screen",
                                             "sourceFiles": ["src/s%d.tsx" % i]} for i in range(450)]
        self.write_map(doc=doc)
        s = self.server()
        sc = self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "section": "screens"})
        self.assertEqual(len(sc["staticScreens"]) + len(sc["runtimeScreens"]) + sc["omitted"], 451)
        self.assertEqual(sc["staticTotal"], 450)
        self.assertLessEqual(len(sc["staticScreens"]), 100)

    def test_unknown_and_mistyped_arguments(self):
        self.write_map()
        s = self.server()
        e = self.err(s, "qa_app_map_read", {"projectRoot": self.app, "sectoin": "screens"}, "INVALID_ARGUMENT")
        self.assertEqual(e["unknownArguments"], ["sectoin"])
        self.err(s, "qa_app_map_read", {"projectRoot": self.app, "section": "everything"}, "INVALID_ARGUMENT")
        self.err(s, "qa_app_map_query", {"projectRoot": self.app}, "INVALID_ARGUMENT")
        self.err(s, "qa_app_map_query", {"projectRoot": self.app, "query": 5}, "INVALID_ARGUMENT")
        self.err(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": "t1"}, "INVALID_ARGUMENT")
        self.err(s, "qa_app_map_update", {"projectRoot": self.app, "sessionId": "deadbeef", "note": "x"},
                 "INVALID_ARGUMENT")

    def test_project_root_relative_missing_or_a_file(self):
        self.write_map()
        s = self.server()
        a_file = os.path.join(self.app, "package.json")
        for bad in ("app", os.path.join(self.home, "missing"), a_file):
            for name, args in (("qa_app_map_read", {}), ("qa_app_map_update", {"note": "x"}),
                               ("qa_app_map_query", {"query": "login"})):
                e = self.err(s, name, dict(args, projectRoot=bad), "INVALID_ARGUMENT")
                self.assertIn("projectRoot", e["what"] + " ".join(e.get("nextSteps", [])), e)
        self.assertEqual(self.load_map(), hand_map())

    # ---- query ----------------------------------------------------------------------------------------

    def test_query_ranks_with_provenance_and_a_listed_next_tool(self):
        self.write_map()
        s = self.server()
        listed = {t["name"] for t in s.call("tools/list")["result"]["tools"]}
        sc = self.ok(s, "qa_app_map_query", {"projectRoot": self.app, "query": "checkout"})
        res = sc["results"]
        self.assertEqual(res[0]["type"], "feature")
        self.assertEqual(res[0]["id"], "checkout")
        self.assertIn("route:/checkout/[step]", [r["id"] for r in res])
        scores = [r["score"] for r in res]
        self.assertEqual(scores, sorted(scores, reverse=True))
        for r in res:
            for key in ("type", "id", "title", "score", "confidence", "provenance", "sourceFiles", "screens",
                        "recommendedNextTool"):
                self.assertIn(key, r, r)
            self.assertIn(r["recommendedNextTool"]["tool"], listed, r)
            self.assertTrue(r["provenance"], r)
        code = self.ok(s, "qa_app_map_query", {"projectRoot": self.app, "query": "charge card", "intent": "code"})
        self.assertEqual(code["results"][0]["id"], "src/api/payments.ts")
        rt = self.ok(s, "qa_app_map_query", {"projectRoot": self.app, "query": "pay now"})
        self.assertEqual(rt["results"][0]["type"], "runtime_screen")
        lim = self.ok(s, "qa_app_map_query", {"projectRoot": self.app, "query": "checkout cart login", "limit": 1})
        self.assertEqual(len(lim["results"]), 1)
        self.assertGreater(lim["omitted"], 0)
        none = self.ok(s, "qa_app_map_query", {"projectRoot": self.app, "query": "zebra"})
        self.assertEqual(none["results"], [])

    # ---- update ---------------------------------------------------------------------------------------

    def test_update_overwrites_by_id_and_path(self):
        self.write_map()
        s = self.server()
        self.ok(s, "qa_app_map_update", {"projectRoot": self.app,
                                         "testCases": [{"id": "t1", "title": "Log in", "featureId": "auth"},
                                                       {"id": "t2", "title": "Pay", "featureId": "checkout"}]})
        sc = self.ok(s, "qa_app_map_update", {"projectRoot": self.app,
                                              "testCases": [{"id": "t1", "title": "Log in again", "status": "pass"}],
                                              "automationSuite": {"name": "smoke", "path": ".swipium/flows/smoke.yaml",
                                                                  "linkedFeatureIds": ["checkout"]},
                                              "environment": "staging",
                                              "featureCoverage": {"featureId": "checkout", "coverage": "partial"},
                                              "note": "checkout needs a card fixture"})
        self.assertEqual(sc["updated"]["testCases"], {"added": 0, "replaced": 1})
        self.assertEqual(sc["updated"]["automationSuite"], "added")
        self.ok(s, "qa_app_map_update", {"projectRoot": self.app,
                                         "automationSuite": {"name": "smoke v2", "path": ".swipium/flows/smoke.yaml",
                                                             "linkedFeatureIds": ["checkout", "auth"]}})
        m = self.load_map()
        cases = {c["id"]: c for c in m["testSuite"]["cases"]}
        self.assertEqual(sorted(cases), ["t1", "t2"])
        self.assertEqual(cases["t1"]["title"], "Log in again")
        self.assertEqual(len(m["automation"]["suites"]), 1)
        self.assertEqual(m["automation"]["suites"][0]["name"], "smoke v2")
        self.assertEqual(m["automation"]["environment"], "staging")
        self.assertEqual(m["coverage"]["features"]["checkout"], "partial")
        self.assertIn("user_note", [p["kind"] for p in m["provenance"]])
        # every earlier version is in history
        hist = os.listdir(os.path.join(self.app, ".swipium", "app-map.history"))
        self.assertEqual(len(hist), 3, hist)
        # the feature's tests through read
        f = self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "featureId": "checkout"})
        self.assertEqual([c["id"] for c in f["testCases"]], ["t2"])
        self.assertEqual(len(f["suites"]), 1)

    def test_bad_updates_leave_the_map_as_it_was(self):
        path = self.write_map()
        with open(path, "rb") as f:
            before = f.read()
        s = self.server()
        e = self.err(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": [
            {"id": "t1", "title": "ok", "featureId": "auth"}, {"id": "t2", "title": "x", "featureId": "ghost"}]},
            "INVALID_ARGUMENT")
        self.assertIn("ghost", e["what"])
        self.err(s, "qa_app_map_update", {"projectRoot": self.app,
                                          "featureCoverage": {"featureId": "ghost", "coverage": "covered"}},
                 "INVALID_ARGUMENT")
        self.err(s, "qa_app_map_update", {"projectRoot": self.app}, "INVALID_ARGUMENT")
        self.err(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": []}, "INVALID_ARGUMENT")
        self.err(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": [{"id": "", "title": "x"}]},
                 "INVALID_ARGUMENT")
        with open(path, "rb") as f:
            self.assertEqual(f.read(), before)
        self.assertFalse(os.path.exists(os.path.join(self.app, ".swipium", "app-map.history")))

    def test_two_servers_updating_one_map_lose_nothing(self):
        self.write_map()
        a, b = self.server(), self.server()
        errors = []

        def run(srv, tag):
            try:
                for i in range(20):
                    self.ok(srv, "qa_app_map_update", {"projectRoot": self.app, "testCases": [
                        {"id": "%s-%d" % (tag, i), "title": "case %s %d" % (tag, i)}]})
                    # a reader never sees half a file
                    with open(os.path.join(self.app, ".swipium", "app-map.json")) as f:
                        json.load(f)
            except Exception as ex:  # noqa: BLE001 (reported below)
                errors.append(repr(ex))

        ta = threading.Thread(target=run, args=(a, "a"))
        tb = threading.Thread(target=run, args=(b, "b"))
        ta.start()
        tb.start()
        ta.join()
        tb.join()
        self.assertEqual(errors, [])
        ids = {c["id"] for c in self.load_map()["testSuite"]["cases"]}
        self.assertEqual(ids, {"%s-%d" % (t, i) for t in "ab" for i in range(20)})
        hist = os.listdir(os.path.join(self.app, ".swipium", "app-map.history"))
        self.assertEqual(len(hist), 30)  # the newest 30 kept

    # ---- hostile files --------------------------------------------------------------------------------

    def test_corrupt_map_is_kept_aside_and_history_restored(self):
        self.write_map()
        s = self.server()
        self.ok(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": [{"id": "t1", "title": "one"}]})
        self.ok(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": [{"id": "t2", "title": "two"}]})
        path = os.path.join(self.app, ".swipium", "app-map.json")
        with open(path, "w") as f:
            f.write('{"schemaVersion": 1, "features": [tru')
        sc = self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "section": "testSuite"})
        self.assertTrue(any("corrupt" in n and "restored" in n for n in sc["notes"]), sc)
        # the newest good copy was the map before the last update: it had t1 only
        self.assertEqual([c["id"] for c in sc["cases"]], ["t1"])
        aside = [n for n in os.listdir(os.path.dirname(path)) if n.startswith("app-map.json.corrupt-")]
        self.assertEqual(len(aside), 1)
        with open(os.path.join(os.path.dirname(path), aside[0])) as f:
            self.assertEqual(f.read(), '{"schemaVersion": 1, "features": [tru')
        self.assertEqual([c["id"] for c in self.load_map()["testSuite"]["cases"]], ["t1"])
        # a map of the wrong shape counts as corrupt too; an update goes on from the restored copy
        with open(path, "w") as f:
            json.dump({"features": {"not": "a list"}}, f)
        sc = self.ok(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": [{"id": "t3", "title": "3"}]})
        self.assertTrue(any("restored" in n for n in sc["notes"]), sc)
        self.assertEqual(sorted(c["id"] for c in self.load_map()["testSuite"]["cases"]), ["t1", "t3"])
        self.assertEqual(len([n for n in os.listdir(os.path.dirname(path)) if ".corrupt-" in n]), 2)

    def test_corrupt_map_without_history_is_no_app_map(self):
        path = self.write_map()
        with open(path, "w") as f:
            f.write("\x00\x01 not json")
        s = self.server()
        e = self.err(s, "qa_app_map_read", {"projectRoot": self.app}, "NO_APP_MAP")
        self.assertTrue(os.listdir(os.path.join(self.app, ".swipium")))
        self.assertTrue([n for n in os.listdir(os.path.join(self.app, ".swipium")) if ".corrupt-" in n], e)

    def test_swipium_is_a_file(self):
        with open(os.path.join(self.app, ".swipium"), "w") as f:
            f.write("user data")
        s = self.server()
        e = self.err(s, "qa_app_map_update", {"projectRoot": self.app, "note": "x"}, "ARTIFACT_PATH_UNWRITABLE")
        self.assertIn(".swipium", e["what"])
        with open(os.path.join(self.app, ".swipium")) as f:
            self.assertEqual(f.read(), "user data")
        # read-only tools still answer (there is no map: NO_APP_MAP, not a crash or a write)
        self.err(s, "qa_app_map_read", {"projectRoot": self.app}, "NO_APP_MAP")

    def read_only(self, path):
        if os.geteuid() != 0:
            os.chmod(path, 0o555)
            self.addCleanup(os.chmod, path, 0o755)
            return
        r = subprocess.run(["mount", "--bind", path, path], capture_output=True, text=True)
        if r.returncode != 0:
            self.skipTest("cannot bind-mount here: %s" % r.stderr.strip())
        self.addCleanup(subprocess.run, ["umount", "-l", path], capture_output=True)
        r = subprocess.run(["mount", "-o", "remount,ro,bind", path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_read_only_tree(self):
        self.write_map()
        s = self.server()
        self.ok(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": [{"id": "t1", "title": "one"}]})
        before = tree_hash(self.app)
        self.read_only(self.app)
        e = self.err(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": [{"id": "t2", "title": "2"}]},
                     "ARTIFACT_PATH_UNWRITABLE")
        self.assertIn("nothing was replaced", e["what"])
        self.assertEqual(tree_hash(self.app), before)
        sc = self.ok(s, "qa_app_map_read", {"projectRoot": self.app, "section": "testSuite"})
        self.assertEqual([c["id"] for c in sc["cases"]], ["t1"])
        self.ok(s, "qa_app_map_query", {"projectRoot": self.app, "query": "login"})

    def test_corrupt_map_in_a_read_only_tree_uses_history_in_memory(self):
        self.write_map()
        s = self.server()
        self.ok(s, "qa_app_map_update", {"projectRoot": self.app, "testCases": [{"id": "t1", "title": "one"}]})
        with open(os.path.join(self.app, ".swipium", "app-map.json"), "w") as f:
            f.write("{broken")
        before = tree_hash(self.app)
        self.read_only(self.app)
        sc = self.ok(s, "qa_app_map_read", {"projectRoot": self.app})
        self.assertTrue(any("cannot be written" in n for n in sc["notes"]), sc)
        self.assertEqual(sc["counts"]["staticScreens"], 3)
        self.assertEqual(tree_hash(self.app), before)

    def test_symlinked_map_out_of_the_project_is_refused(self):
        outside = os.path.join(self.home, "outside")
        os.makedirs(outside)
        self.write_map(root=outside)
        os.symlink(os.path.join(outside, ".swipium"), os.path.join(self.app, ".swipium"))
        s = self.server()
        self.err(s, "qa_app_map_read", {"projectRoot": self.app}, "UNSAFE_ACTION_REFUSED")
        self.err(s, "qa_app_map_update", {"projectRoot": self.app, "note": "x"}, "UNSAFE_ACTION_REFUSED")
        self.assertEqual(os.listdir(os.path.join(outside, ".swipium")), ["app-map.json"])

    # ---- resources ------------------------------------------------------------------------------------

    def read_resource(self, s, uri):
        return s.call("resources/read", {"uri": uri})

    def test_resources_read_whole_map_and_entries_after_a_restart(self):
        self.write_map()
        self.ok(self.server(), "qa_app_map_update", {"projectRoot": self.app, "testCases": [
            {"id": "t1", "title": "Log in"}], "automationSuite": {"name": "smoke", "path": "flows/smoke.yaml"}})
        s = self.server()
        uri = self.ok(s, "qa_app_map_read", {"projectRoot": self.app})["uri"]
        for srv in (s, self.server()):  # the second server knows the project only from ~/.swipium/projects.json
            r = self.read_resource(srv, uri)
            c = r["result"]["contents"][0]
            self.assertEqual(c["mimeType"], "application/json")
            self.assertEqual(json.loads(c["text"])["staticTopology"]["router"], "expo-router")
            feat = json.loads(self.read_resource(srv, uri + "/feature/checkout")["result"]["contents"][0]["text"])
            self.assertEqual(feat["title"], "Checkout")
            scr = json.loads(self.read_resource(srv, uri + "/screen/route%3A%2Fcart")["result"]["contents"][0]["text"])
            self.assertEqual(scr["name"], "Cart")
            suite = json.loads(self.read_resource(srv, uri + "/test-suite/flows-smoke-yaml")["result"]["contents"][0]
                               ["text"])
            self.assertEqual(suite["path"], "flows/smoke.yaml")
        with open(os.path.join(self.home, ".swipium", "projects.json")) as f:
            reg = json.load(f)
        pid = uri.split("/")[3]
        self.assertEqual(reg["projects"][pid]["root"], os.path.realpath(self.app))
        # URIs that match a template but name nothing
        other = "swipium://project/0123456789abcdef/app-map"
        for bad in (other, uri + "/feature/ghost", uri + "/screen/ghost", uri + "/widget/x", uri + "/feature/",
                    uri + "/feature/%zz"):
            r = self.read_resource(s, bad)
            self.assertEqual(r["error"]["code"], -32602, r)
            self.assertEqual(r["error"]["data"]["uri"], bad)
        # a project without a map
        bare = os.path.join(self.home, "bare")
        os.makedirs(bare)
        self.err(s, "qa_app_map_read", {"projectRoot": bare}, "NO_APP_MAP")
        bare_uri = "swipium://project/%s/app-map" % hashlib.sha256(os.path.realpath(bare).encode()).hexdigest()[:16]
        r = self.read_resource(s, bare_uri)
        self.assertEqual(r["error"]["code"], -32602, r)

    def test_resources_list_shows_the_maps_of_sessions_used(self):
        self.write_map()
        s = self.server()
        self.ok(s, "qa_start_session", {"projectRoot": self.app})
        res = s.call("resources/list")["result"]["resources"]
        maps = [r for r in res if r["uri"].startswith("swipium://project/")]
        pid = hashlib.sha256(os.path.realpath(self.app).encode()).hexdigest()[:16]
        self.assertEqual([m["uri"] for m in maps], ["swipium://project/%s/app-map" % pid])
        json.loads(self.read_resource(s, maps[0]["uri"])["result"]["contents"][0]["text"])

    # ---- .gitignore -------------------------------------------------------------------------------------

    def first_write(self, root):
        s = self.server()
        self.ok(s, "qa_app_map_update", {"projectRoot": root, "note": "first"})
        self.ok(s, "qa_app_map_update", {"projectRoot": root, "note": "second"})

    def test_updates_of_an_existing_map_leave_gitignore_alone(self):
        # a worktree or submodule: .git is a file naming the real git dir
        with open(os.path.join(self.home, ".git"), "w") as f:
            f.write("gitdir: /elsewhere/.git/worktrees/app\n")
        with open(os.path.join(self.app, ".gitignore"), "w") as f:
            f.write("node_modules/\n*.log")
        self.write_map()
        # the map exists: Swipium's writes are not the first, so .gitignore stays as the user left it
        self.first_write(self.app)
        with open(os.path.join(self.app, ".gitignore")) as f:
            self.assertEqual(f.read(), "node_modules/\n*.log")


class AppMapBuild(AppMapCase):
    """qa_app_map_build and qa_app_map_feature_scope on the real app trees (tests/data/apptrees)."""

    def copy_tree(self, name, dest=None):
        dest = dest or os.path.join(self.home, name)
        shutil.copytree(os.path.join(APPTREES, name), dest, symlinks=True)
        return dest

    def graph(self, sid, job, finished, nodes, edges=()):
        d = os.path.join(self.session_dir(sid), "explore", job)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "graph.json"), "w") as f:
            json.dump({"schemaVersion": 1, "jobId": job, "sessionId": sid, "appId": "com.acme", "startedAt": finished,
                       "finishedAt": finished, "stoppedReason": "budget", "nodes": nodes, "edges": list(edges)}, f)

    def session_dir(self, sid):
        for root, dirs, _ in os.walk(os.path.join(self.home, ".swipium", "runs")):
            if sid in dirs:
                return os.path.join(root, sid)
        self.fail("no folder for session %s" % sid)

    def test_build_the_expo_template(self):
        root = self.copy_tree("expo-template-tabs")
        s = self.server()
        sc = self.ok(s, "qa_app_map_build", {"projectRoot": root})
        self.assertTrue(sc["created"])
        self.assertTrue(sc["scanned"])
        self.assertRegex(sc["uri"], r"^swipium://project/[0-9a-f]{16}/app-map$")
        m = self.load_map(root)
        routes = sorted(x.get("route") for x in m["staticTopology"]["screens"] if x.get("kind") == "screen")
        self.assertEqual(routes, ["/", "/modal", "/two"])
        self.assertEqual(m["staticTopology"]["router"], "expo-router")
        self.assertEqual(m["project"]["framework"], "expo")
        self.assertEqual(m["auth"]["screens"], [])
        self.assertTrue(m["features"])
        for f in m["features"]:
            for p in f["sourceFiles"]:
                self.assertTrue(os.path.isfile(os.path.join(root, p)), p)
        # outside git: no .gitignore
        self.assertFalse(os.path.exists(os.path.join(root, ".gitignore")))
        # the read tools see it
        r = self.ok(s, "qa_app_map_read", {"projectRoot": root, "section": "screens"})
        self.assertGreaterEqual(r["staticTotal"], 3)

    def test_build_the_rn_template_and_scan_keeps_runtime_and_tests(self):
        root = self.copy_tree("rn-community-template")
        s = self.server()
        sid = self.ok(s, "qa_start_session", {"projectRoot": root})["sessionId"]
        self.ok(s, "qa_app_map_build", {"projectRoot": root, "mode": "static_only"})
        self.graph(sid, "job1", "2026-12-01T10:00:00.000Z", [
            {"signature": "sig-home", "title": "Welcome", "activity": "com.helloworld.MainActivity", "health": "ok",
             "visits": 2, "elements": [{"label": "Learn More", "role": "button"}]},
            {"signature": "sig-crash", "title": "Boom", "health": "crash", "visits": 1, "elements": []}],
            [{"from": "sig-home", "to": "sig-crash", "action": {"kind": "tap", "label": "Learn More"},
              "outcome": "crash", "evidence": []}])
        self.graph(sid, "job0", "2026-11-30T10:00:00.000Z", [{"signature": "old", "title": "Old", "visits": 1}])
        sc = self.ok(s, "qa_app_map_build", {"sessionId": sid, "mode": "runtime_merge"})
        self.assertFalse(sc["scanned"])
        self.assertEqual(sc["merged"]["jobId"], "job1")  # the greatest finishedAt
        self.assertEqual(sc["merged"]["newScreens"], 2)
        self.assertEqual(sc["merged"]["crashOrAnrScreens"], 1)
        # merging the same graph again adds nothing and counts no visit twice
        sc = self.ok(s, "qa_app_map_build", {"sessionId": sid, "mode": "runtime_merge"})
        self.assertTrue(sc["merged"]["alreadyMerged"])
        m = self.load_map(root)
        rt = {x["title"]: x for x in m["runtimeTopology"]["screens"]}
        self.assertEqual(sorted(rt), ["Boom", "Welcome"])
        self.assertEqual(rt["Welcome"]["visits"], 2)
        self.assertEqual(len(m["runtimeTopology"]["edges"]), 1)
        self.ok(s, "qa_app_map_update", {"projectRoot": root, "testCases": [{"id": "t1", "title": "opens"}]})
        # a static rescan keeps runtime screens and test cases
        self.ok(s, "qa_app_map_build", {"projectRoot": root, "mode": "static_only", "forceRescan": True})
        m = self.load_map(root)
        self.assertEqual(len(m["runtimeTopology"]["screens"]), 2)
        self.assertEqual([c["id"] for c in m["testSuite"]["cases"]], ["t1"])
        # runtime_merge without a session, or with a session and no graph
        self.err(s, "qa_app_map_build", {"projectRoot": root, "mode": "runtime_merge"}, "INVALID_ARGUMENT")
        sid2 = self.ok(s, "qa_start_session", {"projectRoot": root})["sessionId"]
        self.err(s, "qa_app_map_build", {"sessionId": sid2, "mode": "runtime_merge"}, "INVALID_ARGUMENT")
        self.err(s, "qa_app_map_build", {"projectRoot": root, "mode": "deep"}, "INVALID_ARGUMENT")

    def test_gitignore_once_in_a_git_repo_keeping_lines(self):
        os.makedirs(os.path.join(self.home, ".git"))  # the repository top is above the app (a monorepo)
        root = self.copy_tree("expo-template-tabs", os.path.join(self.home, "apps", "mobile"))
        with open(os.path.join(root, ".gitignore"), "w") as f:
            f.write("node_modules/\n# keep me\n*.log")
        s = self.server()
        self.ok(s, "qa_app_map_build", {"projectRoot": root})
        self.ok(s, "qa_app_map_build", {"projectRoot": root, "forceRescan": True})
        with open(os.path.join(root, ".gitignore")) as f:
            text = f.read()
        self.assertTrue(text.startswith("node_modules/\n# keep me\n*.log\n"), text)
        self.assertEqual(text.count(".swipium/"), 1)

    def test_gitignore_with_git_as_a_file_and_outside_git(self):
        root = self.copy_tree("rn-community-template")
        with open(os.path.join(root, ".git"), "w") as f:
            f.write("gitdir: /elsewhere/.git/worktrees/app\n")
        s = self.server()
        sc = self.ok(s, "qa_app_map_build", {"projectRoot": root})
        with open(os.path.join(root, ".gitignore")) as f:
            self.assertIn(".swipium/\n", f.read())
        self.assertTrue(any(".gitignore" in n for n in sc.get("notes", [])), sc)

    def test_feature_scope_without_a_map_writes_nothing(self):
        root = self.copy_tree("expo-template-tabs")
        before = tree_hash(root)
        s = self.server()
        sc = self.ok(s, "qa_app_map_feature_scope", {"projectRoot": root, "query": "modal"})
        self.assertEqual(sc["source"], "code-scan")
        self.assertTrue(sc["candidates"], sc)
        for key in ("objective", "staticScreens", "runtimeScreens", "existingTests", "coverageGaps", "strategy",
                    "codeSymbols"):
            self.assertIn(key, sc)
        self.assertEqual(tree_hash(root), before)
        self.err(s, "qa_app_map_feature_scope", {"projectRoot": root}, "INVALID_ARGUMENT")
        self.err(s, "qa_app_map_feature_scope", {"projectRoot": root, "featureId": "ghost"}, "INVALID_ARGUMENT")
        # with a map: by featureId, and the map is not rewritten
        self.ok(s, "qa_app_map_build", {"projectRoot": root})
        fid = self.load_map(root)["features"][0]["id"]
        mp = os.path.join(root, ".swipium", "app-map.json")
        mtime = os.stat(mp).st_mtime_ns
        sc = self.ok(s, "qa_app_map_feature_scope", {"projectRoot": root, "featureId": fid})
        self.assertEqual(sc["source"], "app-map")
        self.assertEqual(sc["feature"]["id"], fid)
        self.assertEqual(os.stat(mp).st_mtime_ns, mtime)

    def test_build_refused_in_an_unwritable_project(self):
        root = self.copy_tree("expo-template-tabs")
        with open(os.path.join(root, ".swipium"), "w") as f:
            f.write("mine")
        s = self.server()
        self.err(s, "qa_app_map_build", {"projectRoot": root}, "ARTIFACT_PATH_UNWRITABLE")
        with open(os.path.join(root, ".swipium")) as f:
            self.assertEqual(f.read(), "mine")
        # the read-only scope still works, from the code
        self.assertEqual(self.ok(s, "qa_app_map_feature_scope", {"projectRoot": root, "query": "two"})["source"],
                         "code-scan")


if __name__ == "__main__":
    unittest.main()
