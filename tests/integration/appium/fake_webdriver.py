"""fake_webdriver.py: a W3C WebDriver server that answers like an Appium server and records every command.

Used by test_appium_consumers.py to run a generated Python suite for real (Selenium's HTTP client, the suite's
helpers) and compare what it asked the "device" to do with what was recorded. Every element exists and is
displayed; an element's text comes from `texts` (keyed by the selector value it was found with).
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeAppium:
    def __init__(self, texts=None):
        self.commands = []
        self.texts = texts or {}
        self.elements = {}
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _reply(self, value, status=200):
                body = json.dumps({"value": value}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _handle(self, method):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                body = json.loads(raw) if raw else None
                with fake.lock:
                    fake.commands.append((method, self.path, body))
                    value = fake.answer(method, self.path.split("?")[0].rstrip("/").split("/"), body)
                self._reply(value)

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def do_DELETE(self):
                self._handle("DELETE")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def _element(self, body):
        eid = "e%d" % (len(self.elements) + 1)
        self.elements[eid] = body
        return {"element-6066-11e4-a52e-4f735466cecf": eid}

    def answer(self, method, parts, body):
        # parts: ['', 'session', sid, ...]
        if method == "POST" and parts[1:] == ["session"]:
            caps = (body or {}).get("capabilities", {}).get("alwaysMatch", {})
            return {"sessionId": "s1", "capabilities": caps}
        rest = parts[3:]
        if rest == ["element"] and method == "POST":
            return self._element(body)
        if rest == ["elements"]:
            return [self._element(body)]
        if rest == ["element", "active"]:
            return self._element({"using": "active", "value": ""})
        if rest == ["window", "rect"]:
            return {"x": 0, "y": 0, "width": 1080, "height": 2400}
        if len(rest) == 3 and rest[0] == "element":
            found = self.elements.get(rest[1]) or {}
            if rest[2] == "text":
                return self.texts.get(found.get("value"), "")
            if rest[2] == "rect":
                return {"x": 100, "y": 200, "width": 300, "height": 80}
            if rest[2] in ("displayed", "enabled"):
                return True
            return None
        if rest == ["execute", "sync"]:
            script = (body or {}).get("script", "")
            return True if "isDisplayed" in script else None
        return None

    def sent(self, suffix, method="POST"):
        """Bodies of the commands whose path ends with @suffix."""
        return [b for m, p, b in self.commands if m == method and p.endswith(suffix)]
