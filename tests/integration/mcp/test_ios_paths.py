#!/usr/bin/env python3
"""The iOS paths of the existing tools, through the server, against the stand-ins in tests/ios/.

qa_act on an iOS session with WebDriverAgent attached (tests/ios/wda.py): scroll inside the largest table,
10% inside its edges, with the geometry WDA's /window/size gives; untilVisible that counts only what the
snapshot shows (cells clipped out of their table do not count); press back through the navigation bar's
button, else the left-edge swipe, and the result's backVia; target.selector resolved by WDA's POST /element
with the strategy given; non-ASCII text typed as is; ${SWIPIUM_*} placeholders and secure fields redacted; a
WDA session that dies in the middle of an act recreated once without relaunching the app.

Every server runs with a private HOME and the stand-ins first on PATH (see test_ios.py).
"""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ios  # noqa: E402
from test_ios import IPHONE15, IPHONE15PRO, IosCase  # noqa: E402
from test_ios_drive import INFO, DriveCase, WdaCase  # noqa: E402

SECRET = "s3cr3t-\u03a9-pass"


class PathsCase(WdaCase):
    def act(self, s, sid, **args):
        return self.tool_ok(s, "qa_act", sid, **args)

    def act_fails(self, s, sid, code, **args):
        return self.tool_fails(s, "qa_act", sid, code, **args)

    def login(self, s, sid):
        """From the stand-in's login screen to its home screen (a table of 20 rows)."""
        self.act(s, sid, action="type", target={"id": "email"}, text="ann@example.com")
        self.act(s, sid, action="type", target={"id": "password"}, text="hunter2")
        act = self.act(s, sid, action="tap", target={"text": "Sign in"}, observe="full")
        self.assertTrue(any("Item 1" in l for l in act["elements"]), act["elements"])
        return act

    def sent(self, method, suffix):
        return [r for r in self.requests() if r["method"] == method and r["path"].split("?")[0].endswith(suffix)]

    def secret_nowhere(self, blob_or_none=None):
        for root, _, files in os.walk(os.path.join(self.home, ".swipium")):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    self.assertNotIn(SECRET.encode(), fh.read(), os.path.join(root, f))


class TestIosScroll(PathsCase):
    def test_scroll_swipes_inside_the_table_until_the_row_is_really_on_screen(self):
        s, sid = self.attached()
        self.login(s, sid)
        # cells below the table's visible area are visible="false" (as WDA marks them): Item 13's frame
        # (820..880) has its center on the 852-point screen, yet it is not on screen
        self.wda_knobs({"clipRows": True})
        self.tool_ok(s, "qa_snapshot", sid)
        n0 = len(self.sent("POST", "/wda/dragfromtoforduration"))
        act = self.act(s, sid, action="scroll", direction="down", untilVisible={"text": "Item 13"})
        self.assertTrue(act["untilVisibleFound"], act)
        self.assertEqual(act["swipes"], 1, act)
        self.assertEqual(act["anchoredIn"], "scrollable")
        drags = self.sent("POST", "/wda/dragfromtoforduration")[n0:]
        self.assertEqual(len(drags), 1, drags)
        b = drags[0]["body"]
        # the table is [0,100][393,800]: 10% inside its edges is y 730 -> 170, in its middle column
        self.assertEqual((b["fromX"], b["fromY"], b["toX"], b["toY"]), (196, 730, 196, 170), b)
        found = json.dumps(act["found"])
        self.assertIn("Item 13", found)
        # a row that does not exist: the list stops moving, and that is said
        act = self.act(s, sid, action="scroll", direction="down", untilVisible={"text": "Item 99"}, maxScrolls=5)
        self.assertFalse(act["untilVisibleFound"], act)
        self.assertTrue(act["endOfList"], act)
        self.assertLessEqual(act["swipes"], 2, act)
        self.assertEqual(s.close(), 0)

    def test_geometry_comes_from_the_live_window(self):
        # a 600x1000-point window (its source's Application frame and /window/size): a screen without a
        # scroll view is swiped in its middle 3/5, 10% inside: x 300, y 740 -> 260 (never a fixed screen)
        self.wda_knobs({"windowSize": [600, 1000]})
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        act = self.act(s, sid, action="scroll", direction="down")
        self.assertEqual(act["anchoredIn"], "screen", act)
        self.assertEqual(act["swipes"], 1)
        b = self.sent("POST", "/wda/dragfromtoforduration")[-1]["body"]
        self.assertEqual((b["fromX"], b["fromY"], b["toX"], b["toY"]), (300, 740, 300, 260), b)
        act = self.act(s, sid, action="scroll", direction="right")
        b = self.sent("POST", "/wda/dragfromtoforduration")[-1]["body"]
        self.assertEqual((b["fromX"], b["toX"], b["fromY"]), (540, 60, 500), b)
        self.assertEqual(s.close(), 0)

    def test_until_visible_selector_found_by_wda_but_clipped_does_not_count(self):
        s, sid = self.attached()
        self.login(s, sid)
        # WDA's POST /element finds hidden elements too; only the snapshot tells what is on screen
        self.wda_knobs({"clipRows": True, "findHidden": True})
        self.tool_ok(s, "qa_snapshot", sid)
        taps = len(self.sent("POST", "/wda/tap"))
        sc = self.act_fails(s, sid, "ELEMENT_NOT_FOUND", action="tap",
                            target={"selector": {"using": "accessibility id", "value": "row13"}})
        self.assertIn("not on screen", sc["what"])
        self.assertEqual(len(self.sent("POST", "/wda/tap")), taps)  # nothing was tapped
        act = self.act(s, sid, action="scroll", direction="down",
                       untilVisible={"selector": {"using": "predicate string", "value": "label == 'Item 13'"}})
        self.assertTrue(act["untilVisibleFound"], act)
        self.assertEqual(act["swipes"], 1, act)
        finds = [r["body"] for r in self.sent("POST", "/element")]
        self.assertIn({"using": "predicate string", "value": "label == 'Item 13'"}, finds)
        # now it is on screen: the selector taps it
        act = self.act(s, sid, action="tap", target={"selector": {"using": "accessibility id", "value": "row13"}})
        self.assertEqual(len(self.sent("POST", "/wda/tap")), taps + 1)
        self.assertEqual(s.close(), 0)


class TestIosSelectors(PathsCase):
    def test_each_strategy_is_sent_to_wda(self):
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        self.act(s, sid, action="type", target={"selector": {"using": "accessibility id", "value": "email"}},
                 text="ann@example.com")
        self.act(s, sid, action="type", target={"selector": {"using": "predicate string",
                                                             "value": "label == 'Password'"}}, text="hunter2")
        act = self.act(s, sid, action="tap", target={"selector": {"using": "class chain",
                                                                  "value": "**/XCUIElementTypeButton"}},
                       observe="full")
        self.assertTrue(any("Item 1" in l for l in act["elements"]), act)
        self.act(s, sid, action="tap", target={"selector": {"using": "name", "value": "Back"}})
        finds = [r["body"] for r in self.sent("POST", "/element")]
        for using, value in (("accessibility id", "email"), ("predicate string", "label == 'Password'"),
                             ("class chain", "**/XCUIElementTypeButton"), ("name", "Back")):
            self.assertIn({"using": using, "value": value}, finds)
        rects = self.sent("GET", "/rect")
        self.assertGreaterEqual(len(rects), 4, rects)
        # the login screen again, reached through the selector's tap
        snap = self.tool_ok(s, "qa_snapshot", sid)
        self.assertIn("Sign in", json.dumps(snap))
        self.assertEqual(s.close(), 0)

    def test_unknown_and_missing_selectors(self):
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        n = len(self.sent("POST", "/element"))
        sc = self.act_fails(s, sid, "ELEMENT_NOT_FOUND", action="tap",
                            target={"selector": {"using": "accessibility id", "value": "nothing-here"}})
        self.assertFalse(sc.get("changedState"), sc)
        self.assertEqual(len(self.sent("POST", "/element")), n + 1)
        r = self.tool(s, "qa_act", sid, action="tap", target={"selector": {"using": "xpath", "value": "//*"}})
        self.assertTrue(r.get("isError"), r)
        self.assertIn(r["structuredContent"]["failureCode"], ("INVALID_SELECTOR", "INVALID_ARGUMENT"))
        self.assertEqual(len(self.sent("POST", "/element")), n + 1)  # never sent to WDA
        # frames WDA reports that cannot be acted on: non-finite, empty, off the screen
        for value, word in (("broken", "no usable frame"), ("zero", "no usable frame"), ("far", "not on screen")):
            sc = self.act_fails(s, sid, "ELEMENT_NOT_FOUND", action="tap",
                                target={"selector": {"using": "accessibility id", "value": value}})
            self.assertIn(word, sc["what"], value)
        # a value past 4096 bytes is refused before any request
        n = len(self.sent("POST", "/element"))
        r = self.tool(s, "qa_act", sid, action="tap",
                      target={"selector": {"using": "predicate string", "value": "label == '" + "x" * 5000 + "'"}})
        self.assertEqual(r["structuredContent"]["failureCode"], "INVALID_SELECTOR", r)
        self.assertEqual(len(self.sent("POST", "/element")), n)
        taps = len(self.sent("POST", "/wda/tap"))
        # the session still works
        self.act(s, sid, action="tap", target={"selector": {"using": "accessibility id", "value": "email"}})
        self.assertEqual(len(self.sent("POST", "/wda/tap")), taps + 1)
        self.assertEqual(s.close(), 0)


class TestIosBack(PathsCase):
    def test_back_through_the_nav_button_else_the_edge_swipe(self):
        s, sid = self.attached()
        self.login(s, sid)
        act = self.act(s, sid, action="press", key="back", observe="full")
        self.assertEqual(act["backVia"], "nav_button", act)
        self.assertTrue(any("Email" in l for l in act["elements"]), act["elements"])
        self.login(s, sid)
        self.wda_knobs({"noBackButton": True})
        self.tool_ok(s, "qa_snapshot", sid)
        act = self.act(s, sid, action="press", key="back", observe="full")
        self.assertEqual(act["backVia"], "edge_swipe", act)
        self.assertTrue(any("Email" in l for l in act["elements"]), act["elements"])
        b = self.sent("POST", "/wda/dragfromtoforduration")[-1]["body"]
        self.assertLessEqual(b["fromX"], 5, b)
        self.assertGreater(b["toX"], b["fromX"] + 100, b)
        # another action says nothing about back
        act = self.act(s, sid, action="tap", target={"id": "email"})
        self.assertNotIn("backVia", act)
        self.assertEqual(s.close(), 0)

    def test_visual_only_back_is_backend_unsupported(self):
        s, sid = self.ready()
        sc = self.act_fails(s, sid, "BACKEND_UNSUPPORTED", action="press", key="back")
        self.assertIn("visual-only", sc["what"])
        self.assertEqual(s.close(), 0)


class TestIosTyping(PathsCase):
    def test_non_ascii_text_is_typed_as_is(self):
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        text = "Zo\u00eb \u6771\u4eac \u2713 caf\u00e9"
        act = self.act(s, sid, action="type", target={"id": "email"}, text=text, observe="full")
        self.assertNotIn("TEXT_INPUT_UNSUPPORTED", json.dumps(act))
        self.assertIn(text, json.dumps(act["elements"], ensure_ascii=False))
        vals = [r["body"] for r in self.sent("POST", "/value")]
        self.assertEqual(vals[-1]["value"], list(text), vals[-1])
        self.assertEqual(vals[-1]["text"], text)
        # control characters are still refused before anything is sent
        sc = self.act_fails(s, sid, "TEXT_INPUT_UNSUPPORTED", action="type", target={"id": "email"}, text="a\x07b")
        self.assertFalse(sc.get("changedState"), sc)
        self.assertEqual(s.close(), 0)

    def test_inspect_through_wda_masks_the_secure_field(self):
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        self.act(s, sid, action="type", target={"id": "password"}, text="hunter2")
        snap = self.tool_ok(s, "qa_snapshot", sid)
        line = [l for l in snap["elements"] if '"Password"' in l][0]
        ref = line.split()[0]
        self.assertTrue(ref.startswith("@e"), line)
        el = self.tool_ok(s, "qa_inspect", sid, ref=ref)
        blob = json.dumps(el, ensure_ascii=False)
        self.assertIn("XCUIElementTypeSecureTextField", blob)
        self.assertNotIn("hunter2", blob)
        self.assertNotIn("\u2022", blob)
        self.assertEqual(s.close(), 0)

    def test_placeholders_and_secure_fields_are_redacted(self):
        self.server_env = dict(self.server_env, SWIPIUM_TEST_PASSWORD=SECRET)
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        act = self.act(s, sid, action="type", target={"id": "password"}, text="${SWIPIUM_TEST_PASSWORD}")
        blob = json.dumps(act, ensure_ascii=False)
        self.assertNotIn(SECRET, blob)
        self.assertEqual(act["placeholders"], ["SWIPIUM_TEST_PASSWORD"])
        self.assertTrue(act["redacted"] and act["secret"], act)
        # a secret typed literally into a secure field is not echoed either
        act = self.act(s, sid, action="type", target={"id": "password"}, text=SECRET + "x")
        self.assertNotIn(SECRET, json.dumps(act, ensure_ascii=False))
        snap = self.tool_ok(s, "qa_snapshot", sid)
        self.assertNotIn(SECRET, json.dumps(snap, ensure_ascii=False))
        self.assertNotIn("\u2022", json.dumps(snap, ensure_ascii=False))
        st = self.tool_ok(s, "qa_status", sid)
        self.assertNotIn(SECRET, json.dumps(st, ensure_ascii=False))
        # WDA did get the value (the placeholder was resolved, then typed)
        vals = [r["body"] for r in self.sent("POST", "/value")]
        self.assertEqual("".join(vals[0]["value"]), SECRET)
        self.assertEqual(s.close(), 0)
        self.secret_nowhere()


class TestIosSessionDiesMidAct(PathsCase):
    def test_tap_retried_on_a_new_session_without_relaunch(self):
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        self.act(s, sid, action="type", target={"id": "email"}, text="ann@example.com")
        self.act(s, sid, action="type", target={"id": "password"}, text="hunter2")
        creates = len(self.sent("POST", "/session"))
        taps = len(self.sent("POST", "/wda/tap"))
        # the session dies on the act's tap, after the act looked at the screen
        self.wda_knobs({"invalidateOn": {"route": "/wda/tap", "n": 1}})
        act = self.act(s, sid, action="tap", target={"text": "Sign in"}, observe="full")
        self.assertTrue(act["changed"], act)
        self.assertTrue(any("Item 1" in l for l in act["elements"]), act["elements"])
        warn = [w for w in act.get("warnings", []) if "recreated without relaunching" in w]
        self.assertEqual(len(warn), 1, act)
        made = self.sent("POST", "/session")[creates:]
        self.assertEqual(len(made), 1, made)  # recreated once
        caps = made[0]["body"]["capabilities"]["alwaysMatch"]
        self.assertFalse(caps["forceAppLaunch"])
        self.assertFalse(caps["shouldTerminateApp"])
        self.assertEqual(len(self.sent("POST", "/wda/tap")), taps + 2)  # the failed tap and its one retry
        # the next act has no warning
        act = self.act(s, sid, action="press", key="back")
        self.assertFalse(any("recreated" in w for w in act.get("warnings", [])), act)
        self.assertEqual(s.close(), 0)

    def test_selector_lookup_survives_a_dead_session_and_a_failing_rect(self):
        s, sid = self.attached()
        self.tool_ok(s, "qa_snapshot", sid)
        # the session dies on the selector's POST /element: recreated once, the lookup retried, the act done
        self.wda_knobs({"invalidateOn": {"route": "/element", "n": 1}})
        act = self.act(s, sid, action="type", target={"selector": {"using": "accessibility id", "value": "email"}},
                       text="ann@example.com", observe="full")
        self.assertTrue(any("ann@example.com" in l for l in act["elements"]), act["elements"])
        self.assertEqual(len([w for w in act.get("warnings", []) if "recreated without relaunching" in w]), 1, act)
        # WDA answers 500 for the element's frame: the act fails with WDA's words, nothing typed, and goes on after
        self.wda_knobs({"status500": ["/element/E-login-password/rect"]})
        r = self.tool(s, "qa_act", sid, action="type",
                      target={"selector": {"using": "accessibility id", "value": "password"}}, text="hunter2")
        sc = r["structuredContent"]
        self.assertTrue(r.get("isError"), sc)
        self.assertFalse(sc.get("changedState"), sc)
        self.assertIn("status500", json.dumps(sc))
        self.wda_knobs({})
        self.act(s, sid, action="type", target={"selector": {"using": "accessibility id", "value": "password"}},
                 text="hunter2")
        self.assertEqual(s.close(), 0)


CRASH = ("[General] *** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: "
         "'-[ShopCart addItem:]: unrecognized selector sent to instance 0x600000c0c000'")


class TestIosLogsAndApps(PathsCase):
    def test_device_info_lists_the_user_installed_apps(self):
        s, sid = self.ready()
        # a second app whose name is not ASCII: simctl escapes it as \U00e9 in its old-style plist
        self.make_app("Cafe.app", dict(INFO, CFBundleIdentifier="com.example.caf\u00e9-menu".replace("\u00e9", "e"),
                                       CFBundleName="Caf\u00e9", CFBundleExecutable="Cafe"))
        self.approved(s, sid, action="install", app="Cafe.app")
        info = self.tool_ok(s, "qa_device_info", sid)
        # the user apps, sorted; simctl also lists Safari and Settings (System), which are left out
        self.assertEqual(info["packages"], ["com.example.cafe-menu", "com.example.shop"], info)
        self.assertEqual(info["installedThirdPartyCount"], 2)
        self.assertNotIn("packages", info["unsupported"])
        info = self.tool_ok(s, "qa_device_info", sid, packageFilter="shop")
        self.assertEqual(info["packages"], ["com.example.shop"])
        self.assertEqual(info["installedThirdPartyCount"], 2)
        self.assertEqual(s.close(), 0)

    def test_listapps_that_cannot_be_read_is_a_clear_error(self):
        s, sid = self.ready()
        for mode in ("garbage", "truncated"):
            self.knobs({"listapps": mode})
            sc = self.tool_fails(s, "qa_device_info", sid, "DEVICE_NOT_READY")
            self.assertIn("listapps", sc["what"])
            self.assertIn("cannot be read", sc["what"])
        self.knobs({"fail": {"listapps": [2, "An error was encountered processing the command (domain=NSPOSIXErrorDomain"
                                              ", code=2):\nNo such file or directory"]}})
        sc = self.tool_fails(s, "qa_device_info", sid, "DEVICE_NOT_READY")
        self.assertIn("No such file or directory", sc["what"])
        # hostile old-style plists: each is refused with what was wrong, never a crash or a guess
        for raw, word in (("{ a = " * 100 + "b" + "; }" * 100, "64 levels"), ("(" * 100 + ")" * 100, "64 levels"),
                          ("{ " + "{ a = b; }" + " = c; }", "value was expected"),
                          ('{ "a" = { ApplicationType = User; };', "not closed"),
                          ('{ "caf\xe9" = { ApplicationType = User; }; }', "UTF-8"),
                          ('{ a = "x\\U0000y"; }', "UTF-8"),
                          ('{ a = <12zz>; }', "hexadecimal"),
                          ('{ a = (1, 2; }', "array"),
                          ('{ a = b } trailing', "followed by ;"),
                          ("( User )", "not a dictionary"),
                          ("", "ends where a value")):
            self.knobs({"listappsRaw": raw})
            sc = self.tool_fails(s, "qa_device_info", sid, "DEVICE_NOT_READY")
            self.assertIn(word, sc["what"], raw)
        # comments, an empty dictionary, data and escapes are fine
        self.knobs({"listappsRaw": '/* apps */ { "com.x.y" = { ApplicationType = User; GroupContainers = { }; '
                                   'Tags = ( "a\\"b", c, ); Blob = <0fbd 77aa>; CFBundleName = "Caf\\U00e9"; }; '
                                   '// end\n "com.apple.z" = { ApplicationType = System; }; }'})
        self.assertEqual(self.tool_ok(s, "qa_device_info", sid)["packages"], ["com.x.y"])
        self.knobs({})
        self.assertEqual(self.tool_ok(s, "qa_device_info", sid)["packages"], ["com.example.shop"])
        self.assertEqual(s.close(), 0)

    def test_health_reads_the_simulator_log(self):
        s, sid = self.attached()
        h = self.tool_ok(s, "qa_check_health", sid)
        self.assertTrue(h["checked"]["logcat"], h)
        self.assertTrue(h["healthy"], h)
        # asked for the time since the session began (a few seconds), not the whole log
        last = self.sim_state()["logLast"]
        self.assertRegex(last, r"^[0-9]+s$")
        self.assertLess(int(last[:-1]), 600)
        # the app (executable Shop, bundle com.example.shop) dies of an uncaught exception: a crash finding
        self.knobs({"logExtra": [["E ", "Shop[4102:31c2]", CRASH]]})
        h = self.tool_ok(s, "qa_check_health", sid)
        crashes = [f for f in h["findings"] if f["kind"] == "native_crash"]
        self.assertEqual(len(crashes), 1, h)
        self.assertIn("com.example.shop", crashes[0]["detail"])
        self.assertIn("NSInvalidArgumentException", crashes[0]["detail"])
        self.assertFalse(h["healthy"])
        # another process's crash is not the app's
        self.knobs({"logExtra": [["E ", "Weather[5120:41c2]", CRASH]]})
        h = self.tool_ok(s, "qa_check_health", sid)
        self.assertFalse([f for f in h["findings"] if f["kind"] == "native_crash"], h)
        # log lines of other shapes, a long line and a non-ASCII one do not stop the check
        self.knobs({"logExtra": [["Df", "Shop[4102:31c2]", "x" * 20000], ["I ", "caf\u00e9d[77:1]", "\u6771\u4eac"],
                                 ["??", "no-brackets", ""], ["E ", "Shop[zz:qq]", "odd ids"]]})
        h = self.tool_ok(s, "qa_check_health", sid)
        self.assertTrue(h["checked"]["logcat"], h)
        self.assertTrue(h["healthy"], h)
        # qa_act's health check after an action sees it too (another crash line: the same line within the same
        # second is the same event, recorded once)
        self.knobs({"logExtra": [["E ", "Shop[4102:31c9]", CRASH.replace("0x600000c0c000", "0x600000d1d000")]]})
        self.tool_ok(s, "qa_snapshot", sid)
        act = self.act(s, sid, action="tap", target={"id": "email"})
        self.assertTrue(act["health"]["crashed"], act["health"])
        self.knobs({})
        self.assertEqual(s.close(), 0)

    def streams(self):
        try:
            with open(os.path.join(self.home, ".fake-simctl", "log-streams")) as f:
                return [int(l.split()[0]) for l in f if l.strip()]
        except OSError:
            return []

    def test_act_loop_reads_the_log_from_one_stream(self):
        s, sid = self.attached()
        n = [0]

        def step():  # an act that changes the screen (the no-change budget would stop taps on one field)
            n[0] += 1
            return self.act(s, sid, action="type", target={"id": "email"}, text="ann%d@example.com" % n[0])

        self.tool_ok(s, "qa_snapshot", sid)
        # the first act's look reads `log show` and starts `log stream` for the next ones
        step()
        self.assertEqual(len(self.streams()), 1, self.streams())
        shows = self.sim_state().get("logShows", 0)
        for _ in range(4):
            act = step()
            self.assertFalse(act["health"]["crashed"], act["health"])
        self.assertEqual(self.sim_state().get("logShows", 0), shows, "a `log show` per act")
        self.assertEqual(len(self.streams()), 1, self.streams())
        # a crash logged while the stream runs: an act finds it (its line may need a look or two to arrive)
        self.knobs({"logExtra": [["E ", "Shop[4102:31c2]", CRASH]]})
        crashed = None
        for _ in range(10):  # within the session's 20 actions
            act = step()
            if act["health"]["crashed"]:
                crashed = act
                break
            time.sleep(0.1)
        self.assertIsNotNone(crashed, "the stream's crash line was never found")
        self.assertEqual(self.sim_state().get("logShows", 0), shows)
        # an explicit health check still reads the whole log from the newest line seen: the crash is not new
        h = self.tool_ok(s, "qa_check_health", sid)
        self.assertTrue(h["checked"]["logcat"], h)
        self.assertEqual(self.sim_state().get("logShows", 0), shows + 1)
        self.knobs({})
        pid = self.streams()[0]
        os.kill(pid, 0)  # still running while the session is
        self.assertEqual(s.close(), 0)
        # the server's exit ends the stream (closed pipe or its parent gone)
        deadline = time.time() + 5
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            self.fail("log stream %d outlived the server" % pid)

    def test_visual_only_health_looks_at_the_log_and_says_what_it_could_not(self):
        s, sid = self.ready()
        h = self.tool_ok(s, "qa_check_health", sid)
        self.assertTrue(h["checked"]["logcat"], h)
        self.assertFalse(h["healthy"])  # the foreground and the screen need WebDriverAgent
        self.assertTrue(any(f["kind"] == "health_unchecked" for f in h["findings"]), h)
        # more log than the runner keeps: not scanned (its newest lines would be the ones cut), and said
        self.knobs({"logHugeMiB": 17})
        h = self.tool(s, "qa_check_health", sid)
        text = json.dumps(h)
        self.assertIn("was not scanned", text)
        self.assertNotIn('"healthy": true', text)
        self.knobs({"fail": {"spawn": [1, "An error was encountered processing the command (domain=NSPOSIXErrorDomain"
                                          ", code=1):\nlog: could not open the log store"]}})
        h = self.tool(s, "qa_check_health", sid)
        text = json.dumps(h)
        self.assertIn("could not open the log store", text)
        self.assertNotIn('"healthy": true', text)
        self.knobs({})
        self.assertEqual(s.close(), 0)


class TestIosOtherPaths(PathsCase):
    def test_resolve_target_device_substring_plans_a_boot_and_boots_nothing(self):
        s, sid = self.start()
        sc = self.tool_ok(s, "qa_resolve_target", sid, platform="ios", device="15 pro", include=["context"])
        self.assertEqual(sc["selected"]["udid"], IPHONE15PRO, sc)
        self.assertTrue(sc["willBoot"], sc)
        self.assertEqual(sc["context"]["iosBooted"], [])
        self.assertEqual(len(sc["context"]["iosAvailable"]), 2)
        self.assertEqual(self.device(IPHONE15PRO)["state"], "Shutdown")
        self.assertEqual(self.device(IPHONE15)["state"], "Shutdown")
        # once one is booted it is preferred, and listed as booted
        self.booted(s, sid, "iPhone 15 Pro")
        sc = self.tool_ok(s, "qa_resolve_target", sid, platform="ios", include=["context"])
        self.assertEqual(sc["selected"]["udid"], IPHONE15PRO)
        self.assertFalse(sc["willBoot"])
        self.assertEqual(sc["context"]["iosBooted"], [IPHONE15PRO], sc["context"])
        self.assertEqual(s.close(), 0)

    def test_doctor_ios_rows(self):
        rel = "node_modules/appium-xcuitest-driver/node_modules/appium-webdriveragent/WebDriverAgent.xcodeproj"
        ahome = os.path.join(self.home, "appium")
        s = self.server({"APPIUM_HOME": ahome})
        s.initialize()
        rows = {r["id"]: r for r in s.tool("qa_doctor", {"platform": "ios"})["result"]["structuredContent"]["checks"]}
        for rid in ("xcrun-simctl", "xcodebuild", "wda", "wda-project", "idb"):
            self.assertIn(rid, rows)
        self.assertEqual(rows["xcrun-simctl"]["status"], "ok")
        # nothing answers at the default URL: a warning naming it, and how to get one
        self.assertEqual(rows["wda"]["status"], "warn", rows["wda"])
        self.assertIn("127.0.0.1:8100", rows["wda"]["detail"])
        self.assertEqual(rows["wda-project"]["status"], "warn", rows["wda-project"])
        self.assertIn("searched", rows["wda-project"]["detail"])
        os.makedirs(os.path.join(ahome, rel))
        rows = {r["id"]: r for r in s.tool("qa_doctor", {"platform": "ios"})["result"]["structuredContent"]["checks"]}
        self.assertEqual(rows["wda-project"]["status"], "ok", rows["wda-project"])
        self.assertIn(os.path.join(ahome, rel), rows["wda-project"]["detail"])
        self.assertEqual(s.close(), 0)

    def test_orientation_geolocation_and_network_are_backend_unsupported(self):
        s, sid = self.ready()
        for name, args in (("qa_orientation", {"orientation": "landscape"}),
                           ("qa_geolocation", {"lat": 48.85, "lng": 2.35}),
                           ("qa_network", {"action": "offline"}),
                           ("qa_network", {"action": "status"})):
            r = self.tool(s, name, sid, **args)
            env = r["structuredContent"]
            if env.get("requiresConsent"):
                r = self.tool(s, name, sid, consentId=env["consentId"], approve=True, **args)
            sc = r["structuredContent"]
            self.assertTrue(r.get("isError"), (name, sc))
            self.assertEqual(sc["failureCode"], "BACKEND_UNSUPPORTED", (name, sc))
            self.assertIn("ios", sc["what"], (name, sc))
        # nothing was changed, and the session still works
        self.tool_ok(s, "qa_screenshot", sid)
        self.assertEqual(s.close(), 0)


# qa_wda's actions: the library checks xcrun for every one of them (drivers/ios/wda-tool.c); the second group
# answered without it until the merge with the WDA lifecycle branch, and is checked on its own below
WDA_ACTIONS_CHECKED = ("doctor", "build", "start", "attach")
WDA_ACTIONS_GAP = ("status", "diagnose", "tune", "logs", "stop")


class TestIosToolsWithoutXcrun(IosCase):
    """Without xcrun on PATH, every iOS tool and every one of its actions answers BACKEND_UNSUPPORTED naming xcrun."""
    with_standins = False

    def test_every_ios_tool_and_action(self):
        s, sid = self.start()
        self.make_app("Shop.app", INFO)
        calls = []
        for action in test_ios.ACTIONS:
            calls.append(("qa_ios", {"action": action, "device": "iPhone 15", "app": "Shop.app",
                                     "bundleId": "com.example.shop", "url": "shop://x"}))
        for action in WDA_ACTIONS_CHECKED:
            calls.append(("qa_wda", {"action": action, "device": "iPhone 15",
                                     "webDriverAgentUrl": "http://127.0.0.1:8100"}))
        calls += [("qa_prepare_ios_target", {"app": "Shop.app", "device": "iPhone 15"}),
                  ("qa_prepare_ios_target", {"bundleId": "com.example.shop"}),
                  ("qa_wait", {"for": "simulator_booted"}),
                  ("qa_wait", {"for": "wda_ready"}),
                  ("qa_resolve_target", {"platform": "ios"}),
                  ("qa_resolve_target", {"platform": "ios", "device": "iPhone 15", "include": ["context"]})]
        answered = []
        for name, args in calls:
            args = dict(args, sessionId=sid)
            r = s.tool(name, args)["result"]
            sc = r["structuredContent"]
            if sc.get("requiresConsent"):  # a gated action: approving it must not get further either
                r = s.tool(name, dict(args, consentId=sc["consentId"], approve=True))["result"]
                sc = r["structuredContent"]
            answered.append((name, args.get("action") or args.get("for"), sc.get("failureCode")))
            self.assertTrue(r.get("isError"), (name, args, sc))
            self.assertEqual(sc["failureCode"], "BACKEND_UNSUPPORTED", (name, args, sc))
            self.assertIn("xcrun", sc["what"], (name, args))
            self.assertTrue(sc.get("nextSteps"), (name, args))
        self.assertEqual(len(answered), len(calls))
        rows = {r["id"]: r for r in s.tool("qa_doctor", {"platform": "ios"})["result"]["structuredContent"]["checks"]}
        self.assertEqual(rows["xcrun-simctl"]["status"], "error")
        # nothing reached a simulator (the stand-in never ran: it would have written its state)
        self.assertFalse(os.path.exists(os.path.join(self.home, ".fake-simctl", "state.json")))
        self.assertEqual(s.close(), 0)

    def test_wda_http_actions_are_refused_without_xcrun_too(self):
        s, sid = self.start()
        try:
            for action in WDA_ACTIONS_GAP:
                sc = s.tool("qa_wda", {"sessionId": sid, "action": action,
                                       "webDriverAgentUrl": "http://127.0.0.1:8100"})["result"]["structuredContent"]
                self.assertEqual(sc.get("failureCode"), "BACKEND_UNSUPPORTED", (action, sc))
                self.assertIn("xcrun", sc["what"])
        finally:
            s.close()


IDB_BIN = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "ios", "idb-bin")
BOX = [300, 600, 120, 90, [250, 200, 20]]  # pixels of the 1179x2556 (@3x) screenshot


def png(width, height, rgb, box=None, origin=(0, 0)):
    import struct
    import zlib
    rows = []
    for y in range(height):
        row = bytearray(bytes(rgb) * width)
        if box:
            bx, by, bw, bh, col = box
            bx, by = bx - origin[0], by - origin[1]
            if by <= y < by + bh:
                row[3 * max(bx, 0):3 * min(bx + bw, width)] = bytes(col) * (min(bx + bw, width) - max(bx, 0))
        rows.append(b"\x00" + bytes(row))

    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b""))


class TestIosVisualTaps(DriveCase):
    """Visual-only: qa_visual's tap goes through idb in points when idb is on PATH, else gives the point and the way."""

    with_idb = False

    def server(self, env=None):
        e = dict(env or {})
        if self.with_idb:
            e["PATH"] = IDB_BIN + os.pathsep + test_ios.STANDINS + os.pathsep + test_ios.path_without_xcrun()
        return super().server(e)

    def setUp(self):
        super().setUp()
        self.knobs({"box": BOX})
        # the template: the box and 20 pixels of the screen around it
        with open(os.path.join(self.app, "button.png"), "wb") as f:
            f.write(png(160, 130, (40, 90, 200), BOX, origin=(280, 580)))

    def idb_calls(self):
        try:
            with open(os.path.join(self.home, ".fake-idb", "calls.jsonl")) as f:
                return [json.loads(l) for l in f]
        except OSError:
            return []

    def find(self, s, sid):
        return self.tool_ok(s, "qa_visual", sid, mode="find_image", template="button.png", tap=True)

    def test_tap_through_idb_in_points(self):
        self.with_idb = True
        s, sid = self.ready()
        sc = self.find(s, sid)
        self.assertTrue(sc["found"], sc)
        # the match's center (360, 645) in pixels is (120, 215) in points
        self.assertEqual((sc["devicePoint"]["x"], sc["devicePoint"]["y"]), (120, 215), sc)
        self.assertTrue(sc["tapped"], sc)
        self.assertEqual(self.idb_calls(), [["ui", "tap", "120", "215", "--udid", IPHONE15PRO]])
        # idb failing is said, with its words
        with open(os.path.join(self.home, ".fake-idb", "knobs.json"), "w") as f:
            json.dump({"fail": [1, "idb: error: companion not reachable"]}, f)
        sc = self.find(s, sid)
        self.assertFalse(sc["tapped"], sc)
        self.assertIn("companion not reachable", sc["tapError"])
        self.assertEqual(s.close(), 0)

    def test_without_idb_the_point_and_how_to_get_idb(self):
        s, sid = self.ready()
        sc = self.find(s, sid)
        self.assertTrue(sc["found"], sc)
        self.assertEqual((sc["devicePoint"]["x"], sc["devicePoint"]["y"]), (120, 215), sc)
        self.assertFalse(sc["tapped"], sc)
        self.assertIn("idb", sc["tapError"])
        self.assertEqual(self.idb_calls(), [])
        self.assertEqual(s.close(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
