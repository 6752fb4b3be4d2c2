"""fuzz_tools.py: seeded fuzzing of every listed tool of swipium-mcp over stdio.

Random, non-ASCII-heavy arguments (right names with wrong or hostile values, unknown names, deep
objects, control and bidi characters, emoji, lone surrogates and invalid UTF-8 on the wire) go to
every tool in tools/list. The server must survive, answer every request exactly once with valid
JSON-RPC (a result or an error carrying the request's id), and exit 0 when stdin closes.

    SWIPIUM_MCP=build/swipium-mcp/swipium-mcp python3 tests/integration/mcp/fuzz_tools.py [--seed N] [--calls N]

The meson test `mcp-fuzz-tools` runs a fixed seed and budget so CI replays the same inputs; a failure
prints the seed and the request that broke it.
"""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcpclient import Server  # noqa: E402

ALPHABETS = [
    "abcXYZ019 _-./:",
    "éüßøñçÀÉÎÕÜ",
    "中文字符测试模板路径日本語한국어",
    "😀🚀👍🏽👨‍👩‍👧🇫🇷",
    "\u0301\u0308\u200b\u200d\ufeff",  # combining, zero-width
    "\u202e\u202d\u2066\u2069",  # bidi overrides
    "\x00\x01\x07\x08\x1b[31m\x7f\u0085\u009b",  # controls, ESC, C1 (CSI)
    "\"\\'`${}<>&%\n\r\t",
    "\u2028\u2029\ufffd\uffff",
]
WAIT_KEYS = ("Ms", "Sec", "seconds", "timeout", "wait")


def rand_text(rng, max_len=None):
    n = rng.choice([0, 1, 2, 5, 40, 99, 100, 101, 199, 200, 201, 600, 2100, 9000]) if max_len is None else \
        rng.randint(0, max_len)
    out = []
    while len(out) < n:
        alpha = rng.choice(ALPHABETS)
        out.extend(rng.choice(alpha) for _ in range(rng.randint(1, 30)))
    return "".join(out[:n])


def rand_value(rng, depth=0):
    kind = rng.randint(0, 9 if depth < 3 else 5)
    if kind <= 3:
        return rand_text(rng)
    if kind == 4:
        return rng.choice([0, -1, 1, 2 ** 31, -2 ** 63, 2 ** 64, 0.5, 1e308, -0.0])
    if kind == 5:
        return rng.choice([True, False, None])
    if kind <= 7:
        return [rand_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rand_text(rng, 20): rand_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def value_for(rng, name, prop):
    """Mostly plausible for the schema (so handlers run), sometimes anything."""
    if rng.random() < 0.25:
        return rand_value(rng)
    t = prop.get("type")
    types = t if isinstance(t, list) else [t]
    if "enum" in prop and rng.random() < 0.8:
        return rng.choice(prop["enum"])
    if ("integer" in types or "number" in types):
        if any(k in name for k in WAIT_KEYS):
            return rng.randint(0, 300)  # a budget, not a wait: every call stays short
        return rng.choice([0, 1, 3, 10, 100, -1])
    if "boolean" in types:
        return rng.random() < 0.5
    if "array" in types:
        items = prop.get("items") or {}
        return [value_for(rng, name, items) for _ in range(rng.randint(0, 3))]
    if "object" in types:
        props = prop.get("properties") or {}
        obj = {k: value_for(rng, k, p) for k, p in props.items() if rng.random() < 0.6}
        if not props or rng.random() < 0.3:
            obj[rand_text(rng, 30)] = rand_text(rng)
        return obj
    return rand_text(rng)


def arguments(rng, schema, sid, root):
    props = schema.get("properties") or {}
    args = {}
    for k, p in props.items():
        if rng.random() < 0.7:
            args[k] = value_for(rng, k, p)
    if "sessionId" in props and sid and rng.random() < 0.7:
        args["sessionId"] = sid
    if "projectRoot" in props and rng.random() < 0.6:
        args["projectRoot"] = root
    if rng.random() < 0.2:
        args[rand_text(rng)] = rand_value(rng)
    return args


def wire(rng, msg):
    """The request as bytes; sometimes with invalid UTF-8 or escaped lone surrogates inside strings."""
    data = json.dumps(msg, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
    r = rng.random()
    if not msg["params"]["arguments"]:
        pass  # (an insertion into {} would need no comma: keep the message valid JSON)
    elif r < 0.05:
        data = data.replace(b'"arguments": {', b'"arguments": {"\\ud800x": "\\udfff", ', 1)
    elif r < 0.10:
        data = data.replace(b'"arguments": {', b'"arguments": {"bad": "\xff\xc3(\xed\xa0\x80", ', 1)
    return data + b"\n"


def run(seed, calls, server_path, verbose=False):
    rng = random.Random(seed)
    home = tempfile.mkdtemp(prefix="sw-fuzz-tools-")
    root = os.path.join(home, "app")
    os.makedirs(root)
    with open(os.path.join(root, "package.json"), "w") as f:
        f.write("{}")
    import mcpclient
    mcpclient.SERVER = server_path
    # an adb that sees no device, first on PATH: the real adb would start a daemon on the shared
    # default port 5037 that outlives the test
    bindir = os.path.join(home, "bin")
    os.makedirs(bindir)
    with open(os.path.join(bindir, "adb"), "w") as f:
        f.write('#!/bin/sh\ncase "$*" in *devices*) printf "List of devices attached\\n\\n"; exit 0;; esac\n'
                'echo "error: no devices/emulators found" >&2\nexit 1\n')
    os.chmod(os.path.join(bindir, "adb"), 0o700)
    env = {"HOME": home, "PATH": bindir + ":/usr/bin:/bin", "ANDROID_HOME": "", "ANDROID_SDK_ROOT": "", "ADB_EMU": "0",
           "SWIPIUM_PROJECT_ROOT": "", "CLAUDE_PROJECT_DIR": "", "SWIPIUM_LOG_LEVEL": "error"}
    s = Server(env=env)
    try:
        s.initialize()
        tools = s.call("tools/list")["result"]["tools"]
        sid = s.tool("qa_start_session", {"projectRoot": root})["result"]["structuredContent"]["sessionId"]
        answers = {}
        for n in range(calls):
            t = tools[n % len(tools)] if n < len(tools) else rng.choice(tools)
            args = arguments(rng, t["inputSchema"], sid, root)
            rid = 100000 + n
            msg = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": t["name"],
                                                                                  "arguments": args}}
            data = wire(rng, msg)
            s.send_raw(data)
            while True:
                try:
                    m = s.read_line(timeout=90)
                except Exception as e:  # noqa: BLE001
                    raise AssertionError("seed %d call %d (%s): no answer: %s\nrequest: %r"
                                         % (seed, n, t["name"], e, data[:2000]))
                if "method" in m and "id" in m:  # a request from the server (none expected): refuse it
                    s.send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}})
                    continue
                if m.get("id") is None:
                    raise AssertionError("seed %d call %d (%s): answer without id: %r\nrequest: %r"
                                         % (seed, n, t["name"], m, data[:2000]))
                answers[m["id"]] = answers.get(m["id"], 0) + 1
                if m["id"] == rid:
                    break
            if not ("result" in m or "error" in m):
                raise AssertionError("seed %d call %d: neither result nor error: %r" % (seed, n, m))
            if "result" in m and not isinstance(m["result"].get("content"), list):
                raise AssertionError("seed %d call %d (%s): a result without content: %r" % (seed, n, t["name"], m))
            if verbose:
                print(n, t["name"], "error" if "error" in m else ("isError" if m["result"].get("isError") else "ok"))
        if s.call("ping").get("result") != {}:
            raise AssertionError("seed %d: the server stopped answering" % seed)
        code = s.close()
        if code != 0:
            raise AssertionError("seed %d: exit code %s\n%s" % (seed, code, s.stderr[-3000:]))
        for line in s.raw_lines:
            json.loads(line)
        twice = [i for i, c in answers.items() if c != 1]
        if twice:
            raise AssertionError("seed %d: answered more than once: %r" % (seed, twice[:10]))
        if len(answers) < calls:
            raise AssertionError("seed %d: %d of %d calls answered" % (seed, len(answers), calls))
        return len(tools)
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
        shutil.rmtree(home, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=int(os.environ.get("SWIPIUM_FUZZ_SEED", "20261201")))
    ap.add_argument("--calls", type=int, default=int(os.environ.get("SWIPIUM_FUZZ_CALLS", "400")))
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    n = run(a.seed, a.calls, os.environ.get("SWIPIUM_MCP", "swipium-mcp"), a.verbose)
    print("fuzz-tools: seed %d, %d calls over %d tools, every one answered once" % (a.seed, a.calls, n))


if __name__ == "__main__":
    main()
