#!/usr/bin/env python3
"""test_appium_consumers: the Appium suites swipium writes, checked by the tools their users run.

The emitter (libswipium/generate/appium*.c) is driven through tests/integration/appium-emit.c with step models
written as JSON fixtures (tests/integration/appium/models/): hostile.json carries every hostile label of issue 16
(both quotes, backslashes, ${...}, a newline followed by code, */, \"\"\", non-ASCII letters and symbols, a
leading digit, Continue / class / None, U+2028/2029, a bidi override, a coding declaration).

Checked, per language:
  - TypeScript: `tsc --noEmit -p .` against webdriverio 9 and the @wdio 9 types (tests/integration/node_modules);
    a broken copy must fail, so the check can fail.
  - JavaScript: `node --check` on every .js file (ESM, as package.json says).
  - Python (pytest and unittest): py_compile of every file, then every module imported with Debian's
    python3-selenium and the Appium client's module layout (appium/standin, see its PROVENANCE.md).
  - Labels are data: the token stream with identifiers and literals abstracted (comments dropped) is the same
    as for the same model with harmless labels, so no label changed the code's structure; every recorded
    value reads back from a real parser's string literal exactly; identifiers are plain ASCII words.
  - ci.example.yml loads as YAML and passes action-validator (GitHub's workflow schema).
  - UNEMITTABLE_STEP and NO_RECORDED_ACTIONS write no file; the platform chain reports its source.
A tool that is missing makes its part skip with the reason printed (the test still fails if nothing ran).
"""
import ast
import io
import json
import keyword
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import re
import tokenize

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "appium", "models")
STANDIN = os.path.join(HERE, "appium", "standin")
NODE_MODULES = os.path.join(HERE, "node_modules")
EMIT = os.environ.get("APPIUM_EMIT")

CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")

failures = []
skipped = []
ran = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def emit(model, params, out):
    """Runs the emitter; returns (exit code, parsed stdout)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as pf:
        json.dump(params, pf)
    try:
        p = subprocess.run([EMIT, model, pf.name, out], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(pf.name)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = None
    if p.returncode not in (0, 2):
        print(p.stdout, p.stderr)
    return p.returncode, doc


def files_under(root):
    out = []
    for d, _, names in os.walk(root):
        for n in names:
            out.append(os.path.join(d, n))
    return sorted(out)


# ---- the harmless twin of a model (for the structure comparison) ------------------------------------------


def benign_model(src, dst):
    """The same steps with every label, value, screen, expected text and app id replaced by a plain word."""
    with open(src, encoding="utf-8") as f:
        model = json.load(f)
    names = {}

    def plain(kind, raw):
        key = (kind, raw)
        if key not in names:
            names[key] = "%s%d" % (kind, len(names) + 1)
        return names[key]

    model["appId"] = "com.example.plain"
    for st in model["steps"]:
        if "screen" in st:
            st["screen"] = plain("screen", st["screen"])
        if "label" in st:
            st["label"] = plain("label", st["label"])
        if "expected" in st:
            st["expected"] = plain("expected", st["expected"])
        if "url" in st:
            st["url"] = plain("url", st["url"])
        for key in ("locator", "untilVisible"):
            loc = st.get(key)
            if isinstance(loc, dict) and "value" in loc:
                loc["value"] = plain("value", loc["value"])
        text = st.get("text")
        if isinstance(text, str) and "${SWIPIUM_" not in text:
            st["text"] = plain("text", text)
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(model, f)


def recorded_values(model_path):
    """The recorded strings that must come back, exactly, as string literals of the generated code."""
    with open(model_path, encoding="utf-8") as f:
        model = json.load(f)
    want = set()
    for st in model["steps"]:
        for key in ("locator", "untilVisible"):
            loc = st.get(key)
            if isinstance(loc, dict) and loc.get("value"):
                want.add(loc["value"])
        if st.get("expected"):
            want.add(st["expected"])
        if st.get("url"):
            want.add(st["url"])
        if st.get("kind") == "type" and st.get("text") and "${SWIPIUM_" not in st["text"] and not st.get("secretKind"):
            want.add(st["text"])
    want.add(model["appId"])
    return want


# ---- TypeScript / JavaScript -----------------------------------------------------------------------------

SCAN_JS = r"""
const ts = require(process.argv[2]);
const fs = require('fs');
const out = {};
for (const file of process.argv.slice(3)) {
  const text = fs.readFileSync(file, 'utf8');
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const shape = [], strings = [], idents = [];
  let kind;
  while ((kind = scanner.scan()) !== ts.SyntaxKind.EndOfFileToken) {
    if (kind === ts.SyntaxKind.StringLiteral || kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral) {
      shape.push('LIT');
      strings.push(scanner.getTokenValue());
    } else if (kind === ts.SyntaxKind.Identifier || kind === ts.SyntaxKind.PrivateIdentifier) {
      shape.push('ID');
      idents.push(scanner.getTokenText());
    } else if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.TemplateMiddle ||
               kind === ts.SyntaxKind.TemplateTail) {
      shape.push('TPL');
    } else {
      shape.push(scanner.getTokenText());
    }
    if (kind === ts.SyntaxKind.CloseBraceToken && scanner.reScanTemplateToken) {
      // a template continuation after "}" would be rescanned here; none of the generated files has one
    }
  }
  out[file] = { shape, strings, idents };
}
process.stdout.write(JSON.stringify(out));
"""


def node_tool():
    return shutil.which("node")


def ts_lib():
    path = os.path.join(NODE_MODULES, "typescript", "lib", "typescript.js")
    return path if os.path.exists(path) else None


def scan_js(files):
    with tempfile.NamedTemporaryFile("w", suffix=".cjs", delete=False) as f:
        f.write(SCAN_JS)
    try:
        p = subprocess.run([node_tool(), f.name, ts_lib()] + files, capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(f.name)
    if p.returncode != 0:
        raise RuntimeError("scanner failed: " + p.stderr)
    return json.loads(p.stdout)


def generated_code_files(root, exts):
    """The files whose text depends on the recording (screens, specs, recorded.*), not the fixed templates."""
    out = []
    for path in files_under(root):
        rel = os.path.relpath(path, root)
        if not rel.endswith(exts):
            continue
        if rel.startswith(("screens", "specs", "tests")) or os.path.basename(rel).startswith("recorded."):
            out.append(path)
    return out


def shape_key(root, path):
    rel = os.path.relpath(path, root)
    return rel


def js_shapes(root, exts):
    scanned = scan_js(generated_code_files(root, exts))
    # Screen files are named after screens: compare them in step order, by position.
    return {shape_key(root, p): v for p, v in scanned.items()}


def compare_shapes(hostile, benign, what):
    """Same files (by position in sorted order within each folder) with the same abstracted token streams."""
    def by_folder(d):
        groups = {}
        for rel in sorted(d):
            groups.setdefault(os.path.dirname(rel), []).append(d[rel])
        return groups
    h, b = by_folder(hostile), by_folder(benign)
    check(sorted(h) == sorted(b), "%s: same folders of generated code (%s vs %s)" % (what, sorted(h), sorted(b)))
    for folder in h:
        hs = sorted(json.dumps(x["shape"]) for x in h[folder])
        bs = sorted(json.dumps(x["shape"]) for x in b.get(folder, []))
        check(hs == bs, "%s: token structure of %s/ is the same as with harmless labels" % (what, folder))


def ident_ok(name):
    return name.isascii() and (name[0].isalpha() or name[0] in "_$") and all(c.isalnum() or c in "_$" for c in name)


def check_js_suite(lang, tmp):
    ext = "ts" if lang == "typescript" else "js"
    model = os.path.join(MODELS, "hostile.json")
    out = os.path.join(tmp, lang)
    rc, rep = emit(model, {"language": lang, "includeCi": True}, out)
    if not check(rc == 0 and rep, "%s: the emitter wrote the hostile suite (rc %s: %s)" % (lang, rc, rep)):
        return
    root = os.path.join(out, ".swipium", "automation", "js")
    check(rep["language"] == lang and rep["root"] == ".swipium/automation/js", "%s: report names the language and root" % lang)
    check(all(os.path.exists(os.path.join(out, p)) for p in rep["files"]), "%s: every reported file exists" % lang)
    check(rep["manualCheckpoints"] == 1 and rep["locators"]["brittle"] == 1, "%s: manual checkpoint and brittle count" % lang)
    spec = open(os.path.join(root, "specs", "smoke.e2e." + ext), encoding="utf-8").read()
    check("TODO(manual visual check, not automated)" in spec, "%s: the visual checkpoint is a TODO comment" % lang)
    # A visual checkpoint never becomes an assertion: the model has 2 assertText steps and 1 visualCheck.
    calls = spec.count("await assertTextVisible(") + spec.count("await assertElementText(")
    check(calls == 2, "%s: exactly the 2 text assertions are assertions (found %d)" % (lang, calls))
    check("PWNED" not in "".join(line for line in spec.splitlines() if line.strip().startswith("import")),
          "%s: no label in an import" % lang)

    if not node_tool() or not ts_lib():
        skipped.append("%s: node or typescript missing (run scripts/install-node-deps.sh)" % lang)
        return
    os.symlink(NODE_MODULES, os.path.join(root, "node_modules"))

    # Labels are data: structure equal to the harmless twin, values round-trip, identifiers plain.
    twin = os.path.join(tmp, lang + "-twin.json")
    benign_model(model, twin)
    out_b = os.path.join(tmp, lang + "-benign")
    rc_b, _ = emit(twin, {"language": lang}, out_b)
    check(rc_b == 0, "%s: the harmless twin generates" % lang)
    hostile = js_shapes(root, ("." + ext,))
    benign = js_shapes(os.path.join(out_b, ".swipium", "automation", "js"), ("." + ext,))
    compare_shapes(hostile, benign, lang)
    strings = set()
    for v in hostile.values():
        strings.update(v["strings"])
        for name in v["idents"]:
            check(ident_ok(name), "%s: identifier %r is plain ASCII" % (lang, name))
    for value in recorded_values(model):
        check(value in strings, "%s: recorded value %r reads back from a string literal" % (lang, value))
    ran.append(lang + " labels-as-data")

    if lang == "typescript":
        tsc = os.path.join(NODE_MODULES, ".bin", "tsc")
        p = subprocess.run([tsc, "--noEmit", "-p", root], capture_output=True, text=True, timeout=300)
        check(p.returncode == 0, "typescript: tsc --noEmit passes:\n" + p.stdout + p.stderr)
        # The check can fail: the same suite with one wrong call does not type-check.
        broken = os.path.join(tmp, "ts-broken")
        shutil.copytree(root, broken, symlinks=True)
        with open(os.path.join(broken, "specs", "smoke.e2e.ts"), "a", encoding="utf-8") as f:
            f.write("\nawait tap('not a locator');\n")
        p = subprocess.run([tsc, "--noEmit", "-p", broken], capture_output=True, text=True, timeout=300)
        check(p.returncode != 0 and "TS2345" in p.stdout, "typescript: a wrong call fails tsc (control): " + p.stdout[-400:])
        ran.append("tsc --noEmit (webdriverio 9, @wdio 9 types)")
    else:
        js_files = [p for p in files_under(root) if p.endswith(".js") and "/node_modules/" not in p]
        for path in js_files:
            p = subprocess.run([node_tool(), "--check", path], capture_output=True, text=True, timeout=60)
            check(p.returncode == 0, "javascript: node --check %s: %s" % (os.path.relpath(path, root), p.stderr))
        check(len(js_files) >= 6, "javascript: every file was checked (%d)" % len(js_files))
        bad = os.path.join(tmp, "bad.mjs")
        with open(bad, "w") as f:
            f.write("export const x = 'unterminated\n")
        p = subprocess.run([node_tool(), "--check", bad], capture_output=True, text=True, timeout=60)
        check(p.returncode != 0, "javascript: node --check rejects a broken file (control)")
        ran.append("node --check")
    replay_js(root, lang, model)
    if lang == "javascript":
        screens = [p for p in files_under(os.path.join(root, "screens"))]
        p = subprocess.run([node_tool(), "--input-type=module", "-e", SELECTORS_JS, root] + screens,
                           capture_output=True, text=True, timeout=120, cwd=root)
        if check(p.returncode == 0, "javascript: the screens and helpers load and run in node: " + p.stderr[-800:]):
            check_selectors(json.loads(p.stdout), "javascript")
            ran.append("javascript selectors at run time")
    check_ci(os.path.join(root, "ci.example.yml"), lang)


def quoted_args(selector):
    """The double-quoted strings of a UiSelector or iOS predicate, unescaped (\\ and \" only)."""
    out, i = [], 0
    while True:
        i = selector.find('"', i)
        if i < 0:
            return out
        j, buf = i + 1, []
        while j < len(selector) and selector[j] != '"':
            if selector[j] == "\\" and j + 1 < len(selector):
                j += 1
            buf.append(selector[j])
            j += 1
        out.append("".join(buf))
        i = j + 1


def check_selectors(pairs, what):
    """(strategy, value, selector) triples from the suite's own helpers at run time: the value survives intact."""
    n = 0
    for strategy, value, selector in pairs:
        if strategy == "accessibility_id" or (strategy == "id" and not selector.startswith(("android=", "-android"))):
            ok = selector in ("~" + value, value)
        else:
            args = quoted_args(selector)
            ok = bool(args) and all(a == value for a in args)
        check(ok, "%s: the selector for %s %r keeps the value as data: %r" % (what, strategy, value, selector))
        n += 1
    check(n >= 10, "%s: selectors checked (%d)" % (what, n))


SELECTORS_JS = r"""
const a = await import(process.argv[1] + '/support/actions.js');
const out = [];
for (const platform of ['android', 'ios']) {
  process.env.SWIPIUM_PLATFORM = platform;
  for (const file of process.argv.slice(2)) {
    const mod = await import(file);
    for (const cls of Object.values(mod)) {
      for (const loc of Object.values(cls)) {
        if (loc && loc.strategy && loc.strategy !== 'coordinates') out.push([loc.strategy, loc.value, a.selectorFor(loc)]);
      }
    }
  }
}
process.stdout.write(JSON.stringify(out));
"""

SELECTORS_PY = r"""
import importlib, json, os, sys
from swipium_support import actions
out = []
for platform in ("android", "ios"):
    os.environ["SWIPIUM_PLATFORM"] = platform
    for name in sys.argv[1:]:
        mod = importlib.import_module(name)
        for cls in vars(mod).values():
            for loc in vars(cls).values() if isinstance(cls, type) else ():
                if isinstance(loc, actions.Locator) and loc.strategy != "coordinates":
                    out.append([loc.strategy, loc.value, actions.by(loc)[1]])
print(json.dumps(out))
"""


# ---- Python ----------------------------------------------------------------------------------------------


def py_shape(path):
    shape, strings, idents = [], [], []
    with open(path, "rb") as f:
        for tok in tokenize.tokenize(f.readline):
            if tok.type == tokenize.STRING:
                shape.append("LIT")
                strings.append(ast.literal_eval(tok.string))
            elif tok.type == tokenize.NAME:
                if keyword.iskeyword(tok.string):
                    shape.append(tok.string)
                else:
                    shape.append("ID")
                    idents.append(tok.string)
            elif tok.type in (tokenize.COMMENT, tokenize.ENCODING, tokenize.NL):
                continue
            else:
                shape.append(tokenize.tok_name[tok.type] + ":" + tok.string)
    return {"shape": shape, "strings": strings, "idents": idents}


def py_shapes(root):
    return {os.path.relpath(p, root): py_shape(p) for p in generated_code_files(root, (".py",))}


def check_python_suite(tmp, runner):
    model = os.path.join(MODELS, "hostile.json")
    project = os.path.join(tmp, "project-" + runner)
    os.makedirs(project)
    if runner == "pytest":
        with open(os.path.join(project, "pytest.ini"), "w") as f:
            f.write("[pytest]\n")
    out = os.path.join(tmp, "py-" + runner)
    params = {"language": "python", "projectRoot": project, "includeCi": True}
    if runner == "unittest":
        params["platform"] = "both"  # both CI jobs in ci.example.yml
    rc, rep = emit(model, params, out)
    if not check(rc == 0 and rep, "python/%s: the emitter wrote the hostile suite (%s)" % (runner, rep)):
        return
    check(rep["runner"] == runner, "python: runner %s chosen from the project (got %s)" % (runner, rep["runner"]))
    root = os.path.join(out, ".swipium", "automation", "python")
    test_py = open(os.path.join(root, "tests", "test_smoke.py"), encoding="utf-8").read()
    check("TODO(manual visual check, not automated)" in test_py, "python: the visual checkpoint is a TODO comment")
    check(("import unittest" in test_py) == (runner == "unittest"), "python: %s layout" % runner)
    check(os.path.exists(os.path.join(root, "conftest.py")) == (runner == "pytest"), "python: conftest.py only for pytest")
    for path in files_under(root):
        if path.endswith(".py"):
            try:
                py_compile.compile(path, doraise=True)
            except py_compile.PyCompileError as e:
                check(False, "python: py_compile %s: %s" % (path, e))
            with open(path, encoding="utf-8") as f:
                head = f.read().split("\n")[:2]
            # PEP 263: a comment matching this on line 1 or 2 would change how the file is decoded.
            check(not any(CODING.match(line) for line in head),
                  "python: no coding declaration on lines 1-2 of %s" % os.path.relpath(path, root))
    ran.append("py_compile (%s)" % runner)

    twin = os.path.join(tmp, "py-twin-%s.json" % runner)
    benign_model(model, twin)
    out_b = os.path.join(tmp, "py-benign-" + runner)
    rc_b, _ = emit(twin, {"language": "python", "projectRoot": project}, out_b)
    check(rc_b == 0, "python: the harmless twin generates")
    hostile = py_shapes(root)
    compare_shapes(hostile, py_shapes(os.path.join(out_b, ".swipium", "automation", "python")), "python/" + runner)
    strings = set()
    for v in hostile.values():
        strings.update(s for s in v["strings"] if isinstance(s, str))
        for name in v["idents"]:
            check(ident_ok(name) and "$" not in name, "python: identifier %r is plain ASCII" % name)
    for value in recorded_values(model):
        check(value in strings, "python: recorded value %r reads back from a string literal" % value)

    # Every module imports with the real Selenium and the client's module layout.
    try:
        import selenium  # noqa: F401
    except ImportError:
        skipped.append("python imports: python3-selenium is not installed (scripts/install-deps.sh)")
        return
    modules = []
    for path in files_under(root):
        if not path.endswith(".py"):
            continue
        rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
        if rel.endswith(".__init__"):
            rel = rel[: -len(".__init__")]
        if rel == "conftest":
            try:
                import pytest  # noqa: F401
            except ImportError:
                skipped.append("python conftest import: pytest is not installed")
                continue
        modules.append(rel)
    code = ("import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
            "from screens.login_screen import LoginScreen\n"
            "from swipium_support import actions, capabilities\n"
            "locs = [v for v in vars(LoginScreen).values() if isinstance(v, actions.Locator)]\n"
            "sels = [actions.by(v) for v in locs if v.strategy != 'coordinates']\n"
            "assert len(sels) >= 8 and all(isinstance(s[1], str) for s in sels), sels\n"
            "caps = capabilities.options().to_capabilities()\n"
            "assert caps['appium:automationName'] == 'UiAutomator2', caps\n"
            "assert caps['appium:noReset'] is True, caps\n"
            "print(len(sys.argv) - 1)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, STANDIN]), SWIPIUM_NO_RESET="1",
               PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-c", code] + modules, capture_output=True, text=True, cwd=root, env=env,
                       timeout=120)
    check(p.returncode == 0 and p.stdout.strip() == str(len(modules)),
          "python/%s: every module imports (%d): %s" % (runner, len(modules), p.stderr[-800:]))
    # The check can fail: a module that imports a name the client does not have fails.
    bad = os.path.join(root, "swipium_support", "bad_import.py")
    with open(bad, "w") as f:
        f.write("from appium.webdriver.common.mobileby import MobileBy\n")
    p = subprocess.run([sys.executable, "-c", code, "swipium_support.bad_import"], capture_output=True, text=True,
                       cwd=root, env=env, timeout=120)
    check(p.returncode != 0 and "ModuleNotFoundError" in p.stderr, "python: a wrong import fails (control)")
    os.unlink(bad)
    # iOS capabilities from the environment.
    code_ios = ("from swipium_support import capabilities\n"
                "c = capabilities.options().to_capabilities()\n"
                "assert c['platformName'] == 'iOS' and c['appium:automationName'] == 'XCUITest', c\n"
                "assert c['appium:bundleId'] == 'com.example.ios' and c['appium:udid'] == 'U1', c\n"
                "assert capabilities.server_url() == 'http://10.0.0.5:4724/wd/hub', capabilities.server_url()\n")
    env_ios = dict(env, SWIPIUM_PLATFORM="ios", IOS_BUNDLE_ID="com.example.ios", IOS_UDID="U1",
                   APPIUM_HOST="http://10.0.0.5:4724/wd/hub")
    p = subprocess.run([sys.executable, "-c", code_ios], capture_output=True, text=True, cwd=root, env=env_ios,
                       timeout=120)
    check(p.returncode == 0, "python: SWIPIUM_PLATFORM=ios gives XCUITest capabilities from IOS_*: " + p.stderr[-600:])
    screens = [m for m in modules if m.startswith("screens.")]
    p = subprocess.run([sys.executable, "-c", SELECTORS_PY] + screens, capture_output=True, text=True, cwd=root,
                       env=env, timeout=120)
    if check(p.returncode == 0, "python: selectors at run time: " + p.stderr[-800:]):
        check_selectors(json.loads(p.stdout), "python/" + runner)
        ran.append("python selectors at run time (%s)" % runner)
    ran.append("python imports with python3-selenium + appium layout (%s)" % runner)
    replay_python(root, runner, model, env)
    check_ci(os.path.join(root, "ci.example.yml"), "python/" + runner)


REPLAY_SECRETS = {"SWIPIUM_TEST_PASSWORD": "pw-\"'${x}", "SWIPIUM_TEST_OTP": "424242", "SWIPIUM_TEST_PIN": "9876"}


def check_replay(fake, model, what, id_using, id_value):
    """The commands a generated suite sent to the fake Appium server are the recorded steps."""
    session = fake.sent("/session")[0]["capabilities"]["alwaysMatch"]
    check(session.get("platformName") == "Android" and session.get("appium:automationName") == "UiAutomator2"
          and session.get("appium:appPackage") == model["appId"] and session.get("appium:noReset") is False,
          "%s: the session asks for UiAutomator2 and the recorded app (%s)" % (what, session))
    typed = [b.get("text") for b in fake.sent("/value")]
    want = [model["steps"][2]["text"], REPLAY_SECRETS["SWIPIUM_TEST_PASSWORD"],
            "pre-" + REPLAY_SECRETS["SWIPIUM_TEST_OTP"] + "-post", REPLAY_SECRETS["SWIPIUM_TEST_PIN"], "shoes"]
    check(typed == want, "%s: the typed values, in order (%r != %r)" % (what, typed, want))
    finds = [(b["using"], b["value"]) for b in fake.sent("/element") + fake.sent("/elements")]
    for pair in ((id_using, id_value("com.example:id/sign_in")), ("accessibility id", "email_field"),
                 ("-android uiautomator", 'new UiSelector().text("end */ process.exit(3); /* PWNED")'),
                 ("-android uiautomator", 'new UiSelector().text("Results \\"PWNED\\"")'),
                 (id_using, id_value("com.example:id/greeting")), ("accessibility id", "class")):
        check(pair in finds, "%s: the suite looked the element up by %r" % (what, pair))
    scripts = [(b["script"], b["args"]) for b in fake.sent("/execute/sync") if b["script"].startswith("mobile:")]
    url = next(st["url"] for st in model["steps"] if st["kind"] == "openUrl")
    check(scripts == [("mobile: activateApp", [{"appId": model["appId"]}]),
                      ("mobile: pressKey", [{"keycode": 66}]),
                      ("mobile: deepLink", [{"url": url, "package": model["appId"]}]),
                      ("mobile: pressKey", [{"keycode": 66}])],
          "%s: launch, enter, deep link, submit (%r)" % (what, scripts))
    gestures = fake.sent("/actions")
    # coordinate tap, swipe up, swipe left, plain scroll up: four W3C pointer sequences of a touch finger
    check(len(gestures) == 4 and all(g["actions"][0]["parameters"]["pointerType"] == "touch" for g in gestures),
          "%s: four touch gestures (%d)" % (what, len(gestures)))
    if gestures:
        tap = gestures[0]["actions"][0]["actions"]
        check(any(a.get("type") == "pointerMove" and a.get("x") == 540 and a.get("y") == 1200 for a in tap),
              "%s: the coordinate tap lands on the recorded point" % what)
    check(len(fake.sent("/back")) == 1, "%s: one back" % what)
    check(len(fake.sent("/clear")) >= 2, "%s: fields cleared before typing and by the clear step" % what)
    check(fake.sent("/session/s1", method="DELETE") != [], "%s: the session is closed" % what)


def replay_js(root, lang, model_path):
    """Runs the generated spec with the WebdriverIO test runner against the recording fake Appium server."""
    wdio = os.path.join(NODE_MODULES, ".bin", "wdio")
    if not os.path.exists(wdio):
        skipped.append("%s replay: @wdio/cli is not installed (scripts/install-node-deps.sh)" % lang)
        return
    sys.path.insert(0, os.path.join(HERE, "appium"))
    from fake_webdriver import FakeAppium
    with open(model_path, encoding="utf-8") as f:
        model = json.load(f)
    greeting = next(st["expected"] for st in model["steps"] if st["kind"] == "assertText" and st.get("locator"))
    with FakeAppium(texts={'new UiSelector().resourceId("com.example:id/greeting")': greeting}) as fake:
        env = dict(os.environ, APPIUM_HOST=fake.url, SWIPIUM_PLATFORM="android", SWIPIUM_WAIT_MS="3000",
                   **REPLAY_SECRETS)
        env.pop("SWIPIUM_NO_RESET", None)
        conf = "wdio.conf.ts" if lang == "typescript" else "wdio.conf.js"
        p = subprocess.run([wdio, "run", conf], capture_output=True, text=True, cwd=root, env=env, timeout=300)
        if not check(p.returncode == 0, "%s: the generated spec passes under wdio against the fake server:\n%s%s" %
                     (lang, p.stdout[-2500:], p.stderr[-1500:])):
            return
        check_replay(fake, model, "%s replay" % lang, "-android uiautomator",
                     lambda v: 'new UiSelector().resourceId("%s")' % v)
    ran.append("%s spec run by the WebdriverIO test runner against a fake Appium server" % lang)


def replay_python_ios(root, model, base_env, cmd):
    """The same suite with SWIPIUM_PLATFORM=ios: XCUITest, predicates and accessibility ids, iOS deep link."""
    from fake_webdriver import FakeAppium
    greeting = next(st["expected"] for st in model["steps"] if st["kind"] == "assertText" and st.get("locator"))
    with FakeAppium(texts={"com.example:id/greeting": greeting}) as fake:
        env = dict(base_env, APPIUM_HOST=fake.url, SWIPIUM_PLATFORM="ios", IOS_BUNDLE_ID="com.example.ios",
                   SWIPIUM_WAIT_MS="3000", **REPLAY_SECRETS)
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=300)
        if not check(p.returncode == 0, "python/ios: the suite passes against the fake server:\n%s%s" %
                     (p.stdout[-1500:], p.stderr[-1500:])):
            return
        session = fake.sent("/session")[0]["capabilities"]["alwaysMatch"]
        check(session.get("platformName") == "iOS" and session.get("appium:automationName") == "XCUITest" and
              session.get("appium:bundleId") == "com.example.ios", "python/ios: an XCUITest session (%s)" % session)
        finds = [(b["using"], b["value"]) for b in fake.sent("/element")]
        q = '"end */ process.exit(3); /* PWNED"'
        for pair in (("accessibility id", "com.example:id/sign_in"),
                     ("-ios predicate string", "label == %s OR name == %s OR value == %s" % (q, q, q))):
            check(pair in finds, "python/ios: looked up by %r" % (pair,))
        scripts = [(b["script"], b["args"]) for b in fake.sent("/execute/sync") if b["script"].startswith("mobile:")]
        url = next(st["url"] for st in model["steps"] if st["kind"] == "openUrl")
        check(("mobile: deepLink", [{"url": url, "bundleId": "com.example.ios"}]) in scripts and
              not any(sc == "mobile: pressKey" for sc, _ in scripts), "python/ios: iOS commands (%r)" % scripts)
    ran.append("python suite replayed on iOS settings (XCUITest) against a fake Appium server")


def replay_python(root, runner, model_path, base_env):
    """Runs the generated test through real Selenium against a recording fake Appium server: the commands it
    sends must be the recorded steps, with every recorded value and every secret from the environment intact."""
    sys.path.insert(0, os.path.join(HERE, "appium"))
    from fake_webdriver import FakeAppium
    with open(model_path, encoding="utf-8") as f:
        model = json.load(f)
    greeting = next(st["expected"] for st in model["steps"] if st["kind"] == "assertText" and st.get("locator"))
    secrets = REPLAY_SECRETS
    with FakeAppium(texts={"com.example:id/greeting": greeting}) as fake:
        env = dict(base_env, APPIUM_HOST=fake.url, SWIPIUM_PLATFORM="android", SWIPIUM_WAIT_MS="3000", **secrets)
        env.pop("SWIPIUM_NO_RESET", None)
        cmd = ([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"] if runner == "pytest" else
               [sys.executable, "-m", "unittest", "discover", "-s", "tests", "-t", "."])
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env, timeout=300)
        if not check(p.returncode == 0, "python/%s: the generated test passes against the fake server:\n%s%s" %
                     (runner, p.stdout[-1500:], p.stderr[-1500:])):
            return
        check_replay(fake, model, "python/%s replay" % runner, "id", lambda v: v)
    if runner == "unittest":
        replay_python_ios(root, model, base_env, cmd)
        ran.append("python suite replayed through Selenium against a fake Appium server (%s)" % runner)


# ---- ci.example.yml ---------------------------------------------------------------------------------------


def check_ci(path, what):
    if not check(os.path.exists(path), "%s: includeCi wrote ci.example.yml" % what):
        return
    try:
        import yaml
    except ImportError:
        skipped.append("ci.example.yml: python3-yaml missing")
        return
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    check(isinstance(doc, dict) and "jobs" in doc, "%s: ci.example.yml loads" % what)
    if what == "python/unittest":
        check(sorted(doc["jobs"]) == ["smoke-android", "smoke-ios"], "platform both: an Android and an iOS job")
    env = doc["jobs"]["smoke-android"]["env"]
    check(env.get("SWIPIUM_TEST_PASSWORD") == "${{ secrets.SWIPIUM_TEST_PASSWORD }}",
          "%s: the CI example passes the placeholder secrets from repository secrets" % what)
    validator = os.path.join(NODE_MODULES, ".bin", "action-validator")
    if not os.path.exists(validator):
        skipped.append("ci.example.yml: action-validator missing (scripts/install-node-deps.sh)")
        return
    p = subprocess.run([validator, path], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "%s: action-validator accepts ci.example.yml: %s%s" % (what, p.stdout, p.stderr))
    ran.append("action-validator (%s)" % what)


# ---- refusals and the platform chain ----------------------------------------------------------------------


def check_refusals(tmp):
    for name, code in (("unemittable-no-locator.json", "UNEMITTABLE_STEP"), ("unemittable-direction.json", "UNEMITTABLE_STEP"),
                       ("unemittable-key.json", "UNEMITTABLE_STEP"), ("unemittable-kind.json", "UNEMITTABLE_STEP"),
                       ("empty.json", "NO_RECORDED_ACTIONS")):
        for lang in ("typescript", "python"):
            out = os.path.join(tmp, "refuse-%s-%s" % (name, lang))
            rc, doc = emit(os.path.join(MODELS, name), {"language": lang}, out)
            check(rc == 2 and doc and doc.get("failureCode") == code, "%s/%s: refused with %s (%s)" % (name, lang, code, doc))
            check(not os.path.exists(out) or not files_under(out), "%s/%s: nothing written" % (name, lang))
            if doc and code == "UNEMITTABLE_STEP":
                check(doc.get("hint") and "Step" in doc.get("message", ""), "%s: the message names the step and a hint" % name)
    rc, doc = emit(os.path.join(MODELS, "unemittable-no-locator.json"), {"language": "javascript"}, os.path.join(tmp, "r"))
    check(doc and doc.get("details", {}).get("step") == 2, "the refusal's details name step 2 (%s)" % doc)


def check_platforms(tmp):
    ios_project = os.path.join(tmp, "ios-project")
    os.makedirs(os.path.join(ios_project, "App.xcodeproj"))
    with open(os.path.join(ios_project, "App.xcodeproj", "project.pbxproj"), "w") as f:
        f.write("// !$*UTF8*$!\n{}\n")
    cases = [
        ("hostile.json", {"platform": "ios"}, "ios", "argument"),
        ("ios-brittle.json", {}, "ios", "session_device"),
        ("no-platform.json", {"projectRoot": ios_project}, None, "project_profile"),
        ("no-platform.json", {}, "android", "default"),
    ]
    for i, (model, params, want, source) in enumerate(cases):
        params = dict(params, language="typescript")
        rc, rep = emit(os.path.join(MODELS, model), params, os.path.join(tmp, "plat%d" % i))
        if not check(rc == 0 and rep, "platform case %d generates (%s)" % (i, rep)):
            continue
        check(rep["platformSource"] == source and (want is None or rep["primaryPlatform"] == want),
              "platform case %d: %s from %s (got %s from %s)" % (i, want, source, rep["primaryPlatform"], rep["platformSource"]))
    # Over the brittle threshold (2 of 3 coordinates) the suite is a candidate; a higher threshold makes it runnable.
    rc, rep = emit(os.path.join(MODELS, "ios-brittle.json"), {"language": "python"}, os.path.join(tmp, "brittle1"))
    check(rc == 0 and rep["status"] == "candidate" and rep["locators"]["overThreshold"], "brittle 67%% > 40%%: candidate (%s)" % rep)
    rc, rep = emit(os.path.join(MODELS, "ios-brittle.json"), {"language": "python", "brittleThreshold": 70},
                   os.path.join(tmp, "brittle2"))
    check(rc == 0 and rep["status"] == "runnable", "brittleThreshold 70: runnable")
    rc, rep = emit(os.path.join(MODELS, "ios-brittle.json"), {"language": "python", "brittleThreshold": 70,
                                                              "candidateOnly": True}, os.path.join(tmp, "brittle3"))
    check(rc == 0 and rep["status"] == "candidate", "candidateOnly: candidate")
    rc, rep = emit(os.path.join(MODELS, "ios-brittle.json"), {"language": "python", "brittleThreshold": 170},
                   os.path.join(tmp, "brittle4"))
    check(rc == 2 and rep and rep.get("failureCode") == "INVALID_ARGUMENT", "brittleThreshold 170: INVALID_ARGUMENT")


def check_random_labels(tmp):
    """A seeded batch of random hostile texts as labels, values, screens and expected texts: the structure and
    the round trip hold for every one (TS scanner, Python tokenize), and every Python file compiles."""
    import random
    rnd = random.Random(20261202)
    alphabet = ["'", '"', "\\", "$", "{", "}", "${", "`", "*/", "/*", "//", "#", '"""', "\n", "\r", "\t",
                "\u2028", "\u2029", "\u202e", "\u200b", "\ufeff", "\x7f", "\x01", "\u00e9", "\u20ac",
                "\U0001F600", "class", "None", "Continue", "2", " ", "a", "Z", "_", "-", ".", ":", "/", "(", ")",
                ";", "=", "+", "%s", "%", "\\u0041", "\\x41", "-*- coding: latin-1 -*-"]
    def text():
        return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 12)))
    steps = []
    for i in range(120):
        kind = rnd.choice(["tap", "type", "assertText", "scroll", "visualCheck", "openUrl"])
        st = {"kind": kind, "screen": text(), "label": text()}
        loc = {"strategy": rnd.choice(["id", "accessibility_id", "text"]), "value": text()}
        if kind == "tap":
            st["locator"] = loc
        elif kind == "type":
            st.update(locator=loc, text=text())
        elif kind == "assertText":
            st["expected"] = text()
            if rnd.random() < 0.5:
                st["locator"] = loc
        elif kind == "scroll":
            st.update(direction=rnd.choice(["up", "down", "left", "right"]), untilVisible=loc, maxScrolls=3)
        elif kind == "openUrl":
            st["url"] = text()
        steps.append(st)
    model = os.path.join(tmp, "random.json")
    with open(model, "w", encoding="utf-8") as f:
        json.dump({"appId": text(), "platform": "android", "steps": steps}, f)
    twin = os.path.join(tmp, "random-twin.json")
    benign_model(model, twin)
    want = recorded_values(model)
    for lang in ("javascript", "python"):
        out, out_b = os.path.join(tmp, "rnd-" + lang), os.path.join(tmp, "rnd-b-" + lang)
        rc, _ = emit(model, {"language": lang}, out)
        rc_b, _ = emit(twin, {"language": lang}, out_b)
        if not check(rc == 0 and rc_b == 0, "random labels (%s): both models generate" % lang):
            continue
        sub = os.path.join(".swipium", "automation", "python" if lang == "python" else "js")
        root, root_b = os.path.join(out, sub), os.path.join(out_b, sub)
        if lang == "python":
            for path in files_under(root):
                if path.endswith(".py"):
                    try:
                        py_compile.compile(path, doraise=True, cfile=os.path.join(tmp, "rnd.pyc"))
                    except py_compile.PyCompileError as e:
                        check(False, "random labels: py_compile %s: %s" % (path, e))
            hostile, benign = py_shapes(root), py_shapes(root_b)
        else:
            if not node_tool() or not ts_lib():
                skipped.append("random labels (javascript): node or typescript missing")
                continue
            hostile, benign = js_shapes(root, (".js",)), js_shapes(root_b, (".js",))
            # node --check on the spec and a sample of screens (the structure check covers the rest: same shape)
            js = [p for p in files_under(root) if p.endswith(".js") and "/screens/" not in p]
            js += [p for p in files_under(root) if "/screens/" in p][:12]
            for path in js:
                if path.endswith(".js"):
                    p = subprocess.run([node_tool(), "--check", path], capture_output=True, text=True, timeout=60)
                    check(p.returncode == 0, "random labels: node --check %s: %s" % (path, p.stderr[-300:]))
        compare_shapes(hostile, benign, "random labels (%s)" % lang)
        strings = set()
        for v in hostile.values():
            strings.update(x for x in v["strings"] if isinstance(x, str))
        missing = [w for w in want if w not in strings]
        check(not missing, "random labels (%s): every value reads back (%d missing, e.g. %r)" %
              (lang, len(missing), missing[:1]))
        ran.append("120 random hostile steps (%s)" % lang)


def main():
    if not EMIT or not os.path.exists(EMIT):
        print("APPIUM_EMIT is not set to the built appium-emit helper")
        return 1
    with tempfile.TemporaryDirectory(prefix="swipium-appium-") as tmp:
        check_refusals(tmp)
        check_random_labels(tmp)
        check_platforms(tmp)
        check_js_suite("typescript", tmp)
        check_js_suite("javascript", tmp)
        check_python_suite(tmp, "pytest")
        check_python_suite(tmp, "unittest")
    for s in skipped:
        print("SKIP:", s)
    print("ran:", ", ".join(ran))
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    if not ran:
        print("no consumer ran: nothing was checked")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
