#!/usr/bin/env python3
"""check-catalog-results: each catalog failure code is raised with its one sw_result.

The catalog (libswipium/catalog/catalog.c) gives every code one result: E(CODE, SW_E..., ...). This test
walks every C file of the product (libswipium/, swipium-mcp/, swipium-cli/) and fails when a raise names a
catalog code with another result: any `SW_E... , "CODE"` pair (sw__error_set, act_fail, ternaries on the
code, ...). UNKNOWN is the one code whose result is the failure's own (SW_OK in the table: a missing file,
a program that cannot start and a file over its cap stay SW_ENOTFOUND, SW_ENOTFOUND and SW_ELIMIT, which
callers tell apart); raises that compute their code at run time take sw__catalog_result() (check-core).

Fails also when a raised code is not in the catalog, or when the table names a result that is not one.

Usage: check-catalog-results.py SOURCE_ROOT   (the test)
       check-catalog-results.py --self-test   (proves the scanner catches a wrong pair and an unknown code)
"""
import os
import re
import sys
import tempfile

ENTRY = re.compile(r"^\s*E\(([A-Z][A-Z0-9_]*),\s*(SW_[A-Z]+),", re.M)
RAISE = re.compile(r"\b(SW_E[A-Z]+)\s*,\s*\"([A-Z][A-Z0-9_]+)\"")
RESULTS = {"SW_OK", "SW_EINVAL", "SW_ENOMEM", "SW_EIO", "SW_ENOTFOUND", "SW_EPARSE", "SW_EEXISTS", "SW_EDENIED",
           "SW_EUNSUPPORTED", "SW_ECANCELLED", "SW_ETIMEOUT", "SW_EDEVICE", "SW_ESECRET", "SW_ESTATE", "SW_ELIMIT"}
SCANNED = ("libswipium", "swipium-mcp", "swipium-cli")
CATALOG = "libswipium/catalog/catalog.c"
ANY_RESULT = "SW_OK"  # the failure's own result (UNKNOWN only)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def catalog(root):
    with open(os.path.join(root, CATALOG), encoding="utf-8") as f:
        return {m.group(1): m.group(2) for m in ENTRY.finditer(f.read())}


def scan(root):
    table = catalog(root)
    problems = []
    if len(table) < 100:
        problems.append("%s: only %d entries read; the E(CODE, SW_..., ...) layout changed?" % (CATALOG, len(table)))
    for code, res in sorted(table.items()):
        if res not in RESULTS:
            problems.append("%s: %s carries %s, which is not an sw_result" % (CATALOG, code, res))
        if res == ANY_RESULT and code != "UNKNOWN":
            problems.append("%s: %s has no result of its own (only UNKNOWN may)" % (CATALOG, code))
    pairs = 0
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = [d for d in dirnames if not d.startswith(("build", "."))]
            for name in sorted(filenames):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                if rel == CATALOG:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = strip_comments(f.read())
                for m in RAISE.finditer(text):
                    res, code = m.group(1), m.group(2)
                    line = text.count("\n", 0, m.start()) + 1
                    want = table.get(code)
                    pairs += 1
                    if want is None:
                        problems.append("%s:%d: %s is raised but is not in the catalog" % (rel, line, code))
                    elif want != ANY_RESULT and res != want:
                        problems.append("%s:%d: %s raised with %s; the catalog gives it %s" % (rel, line, code, res, want))
    if pairs < 200:
        problems.append("only %d raises found; the scanner no longer sees them?" % pairs)
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def put(rel, text):
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        put(CATALOG, "".join("    E(C%03d, SW_EIO, \"b\")\n" % i for i in range(120)) +
            "    E(INVALID_ARGUMENT, SW_EINVAL, \"b\")\n    E(UNKNOWN, SW_OK, \"b\")\n")
        put("libswipium/a/ok.c", "".join("x(err, SW_EIO, \"C%03d\");\n" % (i % 120) for i in range(200)) +
            "x(err, SW_ENOTFOUND, \"UNKNOWN\");\n/* x(err, SW_ENOTFOUND, \"INVALID_ARGUMENT\"); */\n")
        assert scan(root) == [], scan(root)
        put("libswipium/a/bad.c", "return act_fail(err, false,\n    SW_ENOTFOUND, \"INVALID_ARGUMENT\", NULL, \"x\");\n"
            "rc = sw__error_set(err, SW_EIO, \"NOT_A_CODE\", NULL, \"y\");\n")
        got = scan(root)
        assert any("bad.c:2: INVALID_ARGUMENT raised with SW_ENOTFOUND" in p for p in got), got
        assert any("bad.c:3: NOT_A_CODE is raised but is not in the catalog" in p for p in got), got
        assert len(got) == 2, got
    print("self-test: ok")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    self_test()
    problems = scan(sys.argv[1])
    for p in problems:
        print(p)
    print("check-catalog-results: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
