#!/usr/bin/env python3
"""A loopback stand-in for WebDriverAgent, for the iOS tests on Linux.

It serves the routes the driver uses (see PROVENANCE.md for where each JSON shape comes from) over a
scripted app made of screens: taps hit-test the elements on screen, buttons change screens, typing changes
the focused field's value (bullets for a SecureTextField), swipes scroll the scroll views. It listens on
127.0.0.1 only.

  wda.py --port N [--port-file F] [--bundle-id ID] [--udid UDID]

Knobs for hostile cases are read from $HOME/.fake-wda/knobs.json on every request:
  hang        {route: seconds}   sleep before answering (route: "/status", "/source", "/wda/tap", ...)
  status500   [route, ...]       answer HTTP 500 with a W3C "unknown error"
  garbage     [route, ...]       answer 200 with a body that is not JSON
  truncated   [route, ...]       answer the JSON cut in half
  hugeNodes   N                  /source has a table of N static texts
  hugeLabel   N                  /source (XML) has 8 more buttons, each labelled N '&' with the value N '<'
  xmlSourceFails true            GET /source (XML) answers WDA's 500 "Cannot get 'xml' source"; the JSON
                                 form (GET /source?format=json) still answers
  jsonSource  "garbage"          GET /source?format=json answers JSON cut inside an element
  escapeSlashes true             every answer writes '/' as '\/', as NSJSONSerialization does
  invalidate  N                  when N changes, the current session dies ("invalid session id")
  notReady    true               /status says ready:false
  windowSize  [w, h]             the window is this size: /window/size and the source's Application and
                                 Window frames (the screens' elements keep their own frames)
  clipRows    true               table rows outside the table's visible area are visible="false" (as WDA marks
                                 cells scrolled out of their table), not only the ones off the screen
  findHidden  true               POST /element also finds visible="false" elements (as WDA does)
  noBackButton true              the home screen has no navigation bar back button (back = edge swipe)
  invalidateOn {route, n}        when n changes, the session dies on the next request to route (mid-act)
Requests are appended to $HOME/.fake-wda/requests.jsonl ({method, path, body}) so a test can check what
was sent (and that nothing was sent at all).
"""
import argparse
import base64
import json
import os
import struct
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import quoteattr

HOME = os.environ.get("HOME", "/nonexistent")
DIR = os.path.join(HOME, ".fake-wda")
KNOBS = os.path.join(DIR, "knobs.json")
LOG = os.path.join(DIR, "requests.jsonl")
W, H = 393, 852
ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"


def knobs():
    try:
        with open(KNOBS) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


class App:
    """The scripted app: a few screens of elements, and what taps, typing and swipes do to them."""

    def __init__(self, bundle_id):
        self.bundle_id = bundle_id
        self.lock = threading.Lock()
        self.screen = "login"
        self.foreground = bundle_id
        self.values = {"email": "", "password": ""}
        self.focus = None
        self.scroll = 0
        self.sid = None
        self.invalidate_seen = None

    # ---- screens: (key, type, attrs, frame) with frame (x, y, w, h) in points ----
    def elements(self):
        if self.foreground != self.bundle_id:
            return [("springboard", "XCUIElementTypeIcon", {"name": "Shop", "label": "Shop"}, (20, 80, 60, 60))]
        if self.screen == "login":
            pw = self.values["password"]
            return [
                ("nav", "XCUIElementTypeNavigationBar", {"name": "Sign in"}, (0, 47, W, 44)),
                ("title", "XCUIElementTypeStaticText", {"name": "Welcome back", "label": "Welcome back",
                                                        "value": "Welcome back"}, (24, 120, 345, 30)),
                ("email", "XCUIElementTypeTextField",
                 {"name": "email", "label": "Email", "placeholderValue": "you@example.com",
                  "value": self.values["email"] or "you@example.com"}, (24, 180, 345, 44)),
                ("password", "XCUIElementTypeSecureTextField",
                 {"name": "password", "label": "Password", "placeholderValue": "Password",
                  # WDA reports a secure field's value as bullets, one per character
                  "value": "\u2022" * len(pw) if pw else "Password"}, (24, 240, 345, 44)),
                ("signin", "XCUIElementTypeButton", {"name": "signin", "label": "Sign in"}, (24, 310, 345, 50)),
                ("hidden", "XCUIElementTypeButton", {"name": "debugMenu", "label": "Debug menu", "visible": "false"},
                 (24, 380, 345, 50)),
                ("nan", "XCUIElementTypeButton", {"name": "broken", "label": "Broken frame"}, ("nan", "inf", 10, 10)),
                ("zero", "XCUIElementTypeButton", {"name": "zero", "label": "Zero size"}, (24, 400, 0, 0)),
                ("offscreen", "XCUIElementTypeButton", {"name": "far", "label": "Far away"}, (24, 2400, 200, 40)),
            ]
        # home: a table of rows that scrolls
        rows = [("nav", "XCUIElementTypeNavigationBar", {"name": "Home"}, (0, 47, W, 44)),
                ("back", "XCUIElementTypeButton", {"name": "Back", "label": "Back"}, (8, 47, 60, 44)),
                ("table", "XCUIElementTypeTable", {}, (0, 100, W, 700))]
        kn = knobs()
        if kn.get("noBackButton"):
            rows = [r for r in rows if r[0] != "back"]
        for i in range(1, 21):
            y = 100 + (i - 1) * 60 - self.scroll
            attrs = {"name": "row%d" % i, "label": "Item %d" % i}
            if kn.get("clipRows") and (y + 60 <= 100 or y >= 800):
                attrs["visible"] = "false"
            rows.append(("row%d" % i, "XCUIElementTypeCell", attrs, (0, y, W, 60)))
        return rows

    def find(self, key):
        for e in self.elements():
            if e[0] == key:
                return e
        return None

    def xml(self, huge=0):
        out = ['<?xml version="1.0" encoding="UTF-8"?>']
        app = "Shop" if self.foreground == self.bundle_id else "SpringBoard"
        W, H = knobs().get("windowSize") or (globals()["W"], globals()["H"])
        out.append('<XCUIElementTypeApplication type="XCUIElementTypeApplication" name=%s label=%s enabled="true" '
                   'visible="true" accessible="false" x="0" y="0" width="%d" height="%d" index="0">'
                   % (quoteattr(app), quoteattr(app), W, H))
        out.append('  <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" '
                   'accessible="false" x="0" y="0" width="%d" height="%d" index="0">' % (W, H))
        children_of_table = self.screen == "home"
        in_table = False
        for i, (key, typ, attrs, fr) in enumerate(self.elements()):
            a = ['type="%s"' % typ]
            for k in ("value", "name", "label", "placeholderValue"):
                if k in attrs:
                    a.append("%s=%s" % (k, quoteattr(attrs[k])))
            a.append('enabled="true"')
            a.append('visible=%s' % quoteattr(attrs.get("visible", "true")))
            a.append('accessible="%s"' % ("true" if typ != "XCUIElementTypeOther" else "false"))
            a.append('x="%s" y="%s" width="%s" height="%s" index="%d"' % (fr[0], fr[1], fr[2], fr[3], i))
            if key == self.focus:
                a.append('focused="true"')
            if typ == "XCUIElementTypeTable" and children_of_table:
                out.append("    <%s %s>" % (typ, " ".join(a)))
                in_table = True
                continue
            out.append("    %s<%s %s/>" % ("  " if in_table else "", typ, " ".join(a)))
        if knobs().get("hugeLabel"):
            n = int(knobs()["hugeLabel"])
            for k in range(8):
                out.append('    <XCUIElementTypeButton type="XCUIElementTypeButton" label=%s value=%s enabled="true" '
                           'visible="true" x="0" y="%d" width="%d" height="20" index="%d"/>'
                           % (quoteattr("&" * n), quoteattr("<" * n), 600 + 20 * k, W, 90 + k))
        if huge:
            out.append('    <XCUIElementTypeTable type="XCUIElementTypeTable" enabled="true" visible="true" '
                       'x="0" y="100" width="%d" height="700" index="99">' % W)
            for i in range(huge):
                out.append('      <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" value="Line %d" '
                           'name="Line %d" label="Line %d" enabled="true" visible="true" x="0" y="%d" width="%d" '
                           'height="20" index="%d"/>' % (i, i, i, 100 + (i * 20) % 700, W, i))
            out.append("    </XCUIElementTypeTable>")
        if in_table:
            out.append("    </XCUIElementTypeTable>")
        out.append("  </XCUIElementTypeWindow>")
        out.append("</XCUIElementTypeApplication>")
        return "\n".join(out) + "\n"

    def tree(self, huge=0):
        """The JSON form of the source (GET /source?format=json), shaped like WebDriverAgent's
        dictionaryForElement: short type names, "1"/"0" flags, rect with infinities as 0, frame as
        NSStringFromCGRect writes it (PROVENANCE.md)."""
        def num(v):
            try:
                f = float(v)
            except (TypeError, ValueError):
                return 0
            if f != f or f in (float("inf"), float("-inf")):
                return 0
            return int(f) if f == int(f) else f

        def el(typ, attrs, fr, children=None, focused=False):
            d = {"type": typ[len("XCUIElementType"):] if typ.startswith("XCUIElementType") else typ,
                 "rawIdentifier": attrs.get("name") if attrs.get("name") and attrs.get("name") != attrs.get("label")
                 else None,
                 "name": attrs.get("name") or attrs.get("label"),
                 "value": attrs.get("value"),
                 "label": attrs.get("label"),
                 "rect": {"x": num(fr[0]), "y": num(fr[1]), "width": num(fr[2]), "height": num(fr[3])},
                 "frame": "{{%s, %s}, {%s, %s}}" % tuple(str(v) for v in fr),
                 "isEnabled": "1",
                 "isVisible": "0" if attrs.get("visible") == "false" else "1",
                 "isAccessible": "0" if typ in ("XCUIElementTypeOther", "XCUIElementTypeWindow",
                                                "XCUIElementTypeApplication") else "1",
                 "isFocused": "1" if focused else "0"}
            if children:
                d["children"] = children
            return d

        app_name = "Shop" if self.foreground == self.bundle_id else "SpringBoard"
        kids, table = [], None
        for key, typ, attrs, fr in self.elements():
            e = el(typ, attrs, fr, focused=key == self.focus)
            if typ == "XCUIElementTypeTable" and self.screen == "home":
                table = e
                e["children"] = []
                kids.append(e)
            elif table is not None:
                table["children"].append(e)
            else:
                kids.append(e)
        if huge:
            rows = [el("XCUIElementTypeStaticText", {"name": "Line %d" % i, "label": "Line %d" % i,
                                                     "value": "Line %d" % i}, (0, 100 + (i * 20) % 700, W, 20))
                    for i in range(huge)]
            kids.append(el("XCUIElementTypeTable", {}, (0, 100, W, 700), rows))
        window = el("XCUIElementTypeWindow", {}, (0, 0, W, H), kids)
        return el("XCUIElementTypeApplication", {"name": app_name, "label": app_name}, (0, 0, W, H), [window])

    # ---- what input does ----
    def hit(self, x, y):
        best = None
        for e in self.elements():
            key, typ, attrs, fr = e
            if attrs.get("visible") == "false" or not all(isinstance(v, (int, float)) for v in fr):
                continue
            if fr[0] <= x < fr[0] + fr[2] and fr[1] <= y < fr[1] + fr[3] and typ != "XCUIElementTypeTable" \
                    and typ != "XCUIElementTypeNavigationBar":
                best = e
        return best

    def press(self, e):
        key, typ = e[0], e[1]
        if typ in ("XCUIElementTypeTextField", "XCUIElementTypeSecureTextField"):
            self.focus = key
        elif key == "signin":
            self.focus = None
            if self.values["email"] and self.values["password"]:
                self.screen = "home"
                self.scroll = 0
        elif key == "back":
            self.screen = "login"
        elif key.startswith("row"):
            pass

    def type(self, chars):
        if self.focus not in self.values:
            return False
        for c in chars:
            if c == "\b":
                self.values[self.focus] = self.values[self.focus][:-1]
            elif c == "\n":
                self.focus = None
            else:
                self.values[self.focus] += c
        return True

    def drag(self, fx, fy, tx, ty):
        if self.screen == "home" and fx <= 20 and tx - fx > 100:
            self.screen = "login"  # the edge swipe goes back
            return
        if self.screen == "home":
            self.scroll = max(0, min(20 * 60 - 700, self.scroll + int(fy - ty)))


def png(width, height, rgb):
    raw = (b"\x00" + bytes(rgb) * width) * height

    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "WDA-standin"

    def log_message(self, *a):
        pass

    def answer(self, status, obj, route):
        kn = knobs()
        if route in kn.get("garbage", []):
            body = b"<html>502 Bad Gateway</html>"
        else:
            body = json.dumps(obj).encode()
            if kn.get("escapeSlashes"):
                # NSJSONSerialization (WDA's FBResponsePayload) writes every '/' as '\/'
                body = body.replace(b"/", b"\\/")
            if route in kn.get("truncated", []):
                body = body[:len(body) // 2]
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def raw(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def w3c(self, status, error, message, route):
        self.answer(status, {"value": {"error": error, "message": message, "traceback": ""},
                             "sessionId": self.server.app.sid}, route)

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_DELETE(self):
        self.route("DELETE")

    def route(self, method):
        app = self.server.app
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = None
        path = self.path.split("?")[0]
        os.makedirs(DIR, exist_ok=True)
        with open(LOG, "a") as f:
            f.write(json.dumps({"method": method, "path": self.path, "body": body}) + "\n")
        parts = path.strip("/").split("/")
        sid = None
        if len(parts) >= 2 and parts[0] == "session":
            sid = parts[1]
            route = "/" + "/".join(parts[2:]) if len(parts) > 2 else "/session/:id"
        else:
            route = "/" + "/".join(parts)
        kn = knobs()
        if route in kn.get("hang", {}):
            time.sleep(float(kn["hang"][route]))
        if route in kn.get("status500", []):
            return self.w3c(500, "unknown error", "Internal error in the stand-in (status500 knob)", route)
        if body is None:
            return self.w3c(400, "invalid argument", "The body is not JSON", route)
        with app.lock:
            inv = kn.get("invalidate")
            if inv is not None and inv != app.invalidate_seen:
                app.invalidate_seen = inv
                app.sid = None
            inv_on = kn.get("invalidateOn")
            if isinstance(inv_on, dict) and inv_on.get("route") == route and \
                    inv_on.get("n") != getattr(app, "invalidate_on_seen", None):
                app.invalidate_on_seen = inv_on.get("n")
                app.sid = None
            if sid is not None and sid != app.sid:
                return self.w3c(404, "invalid session id", "Session does not exist", route)
            return self.dispatch(method, route, body, app, kn)

    def element_value(self, key):
        eid = "E-%s-%s" % (self.server.app.screen, key)
        return {"ELEMENT": eid, ELEMENT_KEY: eid}

    def dispatch(self, method, route, body, app, kn):
        ok = {"value": None, "sessionId": app.sid}
        if method == "GET" and route == "/status":
            return self.answer(200, {"value": {
                "ready": not kn.get("notReady"), "message": "WebDriverAgent is ready to accept commands",
                "state": "success",
                "os": {"name": "iOS", "version": "17.5", "sdkVersion": "17.5", "testmanagerdVersion": 65535},
                "ios": {"simulatorVersion": "17.5", "ip": None},
                "build": {"time": "Nov 30 2026 08:12:44", "productBundleIdentifier": "com.facebook.WebDriverAgentRunner"},
                "device": "iphone"}, "sessionId": app.sid}, route)
        if method == "POST" and route == "/session":
            caps = (body.get("capabilities") or {}).get("alwaysMatch") or {}
            app.sid = str(uuid.uuid4()).upper()
            if caps.get("bundleId") and caps["bundleId"] != app.bundle_id:
                app.sid = None
                return self.w3c(500, "session not created",
                                "Cannot launch %s application. Make sure the correct bundle identifier has been "
                                "provided in capabilities" % caps["bundleId"], route)
            if caps.get("forceAppLaunch", True) and caps.get("bundleId"):
                app.screen, app.foreground = "login", app.bundle_id
            return self.answer(200, {"value": {"sessionId": app.sid, "capabilities": {
                "device": "iphone", "browserName": "Shop", "sdkVersion": "17.5", "CFBundleIdentifier": app.bundle_id}},
                "sessionId": app.sid}, route)
        if method == "DELETE" and route == "/session/:id":
            app.sid = None
            return self.answer(200, ok, route)
        if method == "GET" and route == "/source" and "format=json" in self.path:
            if kn.get("jsonSource") == "garbage":
                return self.raw(200, b'{"value": {"type": "Application", "children": [{"type": "Butt')
            return self.answer(200, {"value": app.tree(int(kn.get("hugeNodes", 0))), "sessionId": app.sid}, route)
        if method == "GET" and route == "/source":
            if kn.get("xmlSourceFails"):
                # WDA could not write the XML form (its libxml2 writer refused a character)
                return self.w3c(500, "unknown error", "Cannot get 'xml' source of the current application", route)
            return self.answer(200, {"value": app.xml(int(kn.get("hugeNodes", 0))), "sessionId": app.sid}, route)
        if method == "GET" and route == "/window/size":
            ws = kn.get("windowSize") or [W, H]
            return self.answer(200, {"value": {"width": ws[0], "height": ws[1]}, "sessionId": app.sid}, route)
        if method == "GET" and route == "/wda/activeAppInfo":
            fg = app.foreground
            return self.answer(200, {"value": {"bundleId": fg, "name": "", "pid": 4102 if fg == app.bundle_id else 58,
                                               "processArguments": {"env": {}, "args": []}}, "sessionId": app.sid}, route)
        if method == "POST" and route == "/wda/homescreen":
            app.foreground = "com.apple.springboard"
            return self.answer(200, ok, route)
        if method == "POST" and route == "/wda/tap":
            e = app.hit(float(body.get("x", -1)), float(body.get("y", -1)))
            if e:
                app.press(e)
            return self.answer(200, ok, route)
        if method == "POST" and route == "/wda/touchAndHold":
            return self.answer(200, ok, route)
        if method == "POST" and route == "/wda/dragfromtoforduration":
            app.drag(float(body["fromX"]), float(body["fromY"]), float(body["toX"]), float(body["toY"]))
            return self.answer(200, ok, route)
        if method == "POST" and route == "/wda/keys":
            if not app.type(body.get("value") or []):
                return self.w3c(400, "invalid element state", "No element has the keyboard focus", route)
            return self.answer(200, ok, route)
        if method == "GET" and route == "/element/active":
            if not app.focus:
                return self.w3c(404, "no such element", "No element is focused", route)
            return self.answer(200, {"value": self.element_value(app.focus), "sessionId": app.sid}, route)
        if method == "POST" and route == "/element":
            key = self.lookup(app, body.get("using"), body.get("value") or "")
            if key is None:
                return self.w3c(404, "no such element", "Unable to find an element using '%s', value '%s'"
                                % (body.get("using"), body.get("value")), route)
            return self.answer(200, {"value": self.element_value(key), "sessionId": app.sid}, route)
        parts = route.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "element":
            eid, op = parts[1], parts[2]
            screen, _, key = eid[2:].partition("-")
            e = app.find(key) if screen == app.screen else None
            if not e:
                return self.w3c(404, "stale element reference", "The element '%s' is not on screen" % eid, route)
            if op == "rect" and method == "GET":
                fr = e[3]
                return self.answer(200, {"value": {"x": fr[0], "y": fr[1], "width": fr[2], "height": fr[3]},
                                         "sessionId": app.sid}, route)
            if op == "click":
                app.press(e)
                return self.answer(200, ok, route)
            if op == "value":
                app.focus = key
                chars = body.get("value") or list(body.get("text") or "")
                app.type(chars)
                return self.answer(200, ok, route)
            if op == "clear":
                if key in app.values:
                    app.values[key] = ""
                return self.answer(200, ok, route)
        if method == "GET" and route == "/screenshot":
            data = base64.b64encode(png(W * 3, H * 3, (40, 90, 200))).decode()
            return self.answer(200, {"value": data, "sessionId": app.sid}, route)
        return self.w3c(404, "unknown command", "Unhandled endpoint: %s %s" % (method, route), route)

    def lookup(self, app, using, value):
        els = [e for e in app.elements() if e[2].get("visible") != "false" or knobs().get("findHidden")]
        if using in ("accessibility id", "name", "id"):
            for e in els:
                if e[2].get("name") == value:
                    return e[0]
            return None
        if using == "predicate string":
            # the simple forms `label == 'X'` and `name == 'X'`
            for field in ("label", "name"):
                for q in ("'", '"'):
                    pre = "%s == %s" % (field, q)
                    if value.startswith(pre) and value.endswith(q):
                        want = value[len(pre):-1]
                        for e in els:
                            if e[2].get(field) == want:
                                return e[0]
            return None
        if using == "class chain":
            if value == "**/XCUIElementTypeNavigationBar/XCUIElementTypeButton[1]":
                for e in els:
                    if e[0] == "back":
                        return "back"
                return None
            typ = value[3:].split("[")[0] if value.startswith("**/") else value
            for e in els:
                if e[1] == typ:
                    return e[0]
            return None
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8100)
    ap.add_argument("--port-file")
    ap.add_argument("--bundle-id", default="com.example.shop")
    args = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    srv.daemon_threads = True
    srv.app = App(args.bundle_id)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(srv.server_address[1]))
        os.replace(tmp, args.port_file)
    sys.stderr.write("ServerURLHere->http://127.0.0.1:%d<-ServerURLHere\n" % srv.server_address[1])
    sys.stderr.flush()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
