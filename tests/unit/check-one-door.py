#!/usr/bin/env python3
"""check-one-door: one door to child processes and to the device.

Fails when
  - any C file of the product (libswipium/, swipium-mcp/, swipium-cli/, bindings/) forks or execs
    (fork, vfork, exec*, posix_spawn*, popen, system, clone) outside libswipium/core/proc.c, the one
    runner (the CLI files listed in CLI_EXCEPTIONS, each with its reason, are the only others);
  - any file outside libswipium/drivers/ starts a device tool (adb, xcrun, emulator, simctl, xcodebuild, idb): it runs
    the core runner with such a name, looks adb up (sw__android_find_adb, sw__android_tools_find) or
    includes the Android driver's internals;
  - an exception listed below no longer needs to be one (so the list stays true).

Usage: check-one-door.py SOURCE_ROOT       (the test)
       check-one-door.py --self-test       (proves the scanner catches what it must)
"""
import os
import re
import sys
import tempfile

SPAWN = re.compile(r"\b(fork|vfork|execv|execve|execvp|execvpe|execl|execle|execlp|posix_spawnp?|popen|system|clone)\s*\(")
RUNNER = re.compile(r"\b(sw__proc_(run|run_inherit|spawn|open|exec)|sw_process_(run_attached|exec)|sw_peer_start)\s*\(")
DEVICE_TOOL = re.compile(r"(\{\s*|argv\[0\]\s*=\s*|sw__argv_add\s*\([^,]+,\s*)\"(adb|xcrun|emulator|simctl|xcodebuild|idb)\"")
ADB_LOOKUP = re.compile(r"\b(sw__android_find_adb|sw__android_tools_find|sw__android_adb|sw__android_shell)\b|android-internal\.h")

SCANNED = ("libswipium", "swipium-mcp", "swipium-cli", "bindings")
RUNNER_FILE = "libswipium/core/proc.c"
DRIVERS = "libswipium/drivers/"

# Files allowed to fork or exec themselves, each with its reason. Empty: the frontends' own children
# (swipium serve's exec, init's client CLI, verify's server peer) go through swipium/process.h too.
CLI_EXCEPTIONS = {
}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def scan(root, exceptions=None):
    exceptions = CLI_EXCEPTIONS if exceptions is None else exceptions
    problems = []
    used_exceptions = set()
    for top in SCANNED:
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.startswith(("build", "."))]
            for name in filenames:
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = strip_comments(f.read())
                for n, line in enumerate(text.splitlines(), 1):
                    m = SPAWN.search(line)
                    if m and rel != RUNNER_FILE:
                        if rel in exceptions:
                            used_exceptions.add(rel)
                        else:
                            problems.append("%s:%d: %s() outside the core runner (%s)" % (rel, n, m.group(1), RUNNER_FILE))
                    if rel.startswith(DRIVERS) or rel == RUNNER_FILE:
                        continue
                    if ADB_LOOKUP.search(line):
                        problems.append("%s:%d: reaches into the Android driver's adb outside %s" % (rel, n, DRIVERS))
                if not rel.startswith(DRIVERS) and rel != RUNNER_FILE and RUNNER.search(text) and DEVICE_TOOL.search(text):
                    problems.append("%s: runs processes and names a device tool (%s) outside %s"
                                    % (rel, DEVICE_TOOL.search(text).group(2), DRIVERS))
    for rel in sorted(set(exceptions) - used_exceptions):
        problems.append("%s: listed as an exception but no longer spawns; remove it from CLI_EXCEPTIONS" % rel)
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def put(rel, text):
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        put("libswipium/core/proc.c", "int x(void){return fork();}\n")
        put("libswipium/drivers/android/a.c", "#include \"android-internal.h\"\nstatic const char *t = \"adb\";\n")
        listed = {"swipium-cli/cmd-serve.c": "a test exception"}
        put("swipium-cli/cmd-serve.c", "void f(void){ execv(p, a); }\n")
        clean = scan(root, listed)
        assert clean == [], clean
        put("swipium-cli/cmd-verify.c", "void f(void){ pid_t p = fork(); }\n")
        put("libswipium/device/bad.c", "/* fork() in a comment is fine */\nvoid f(void){ pid_t p = fork(); }\n")
        put("libswipium/health/bad.c", "const char *a[] = {\"adb\", 0}; void g(void){ sw__proc_run(a, 0, 0, 0); }\n")
        put("swipium-mcp/bad.c", "char *adb = sw__android_find_adb(ctx);\n")
        put("libswipium/visual/wda.c", "void g(sw__argv *a){ sw__argv_add(a, \"xcodebuild\"); sw__proc_spawn(0, 0, -1, 0, 0); }\n")
        put("swipium-cli/cmd-x.c", "void g(void){ const char *a[] = {\"adb\", 0}; sw_process_run_attached(a, 0, 0, 0, 0, 0); }\n")
        put("libswipium/drivers/ios/ok.c", "void g(sw__argv *a){ sw__argv_add(a, \"xcrun\"); sw__proc_run(0, 0, 0, 0); }\n")
        put("swipium-cli/cmd-serve.c", "int main(void){return 0;}\n")
        got = scan(root, listed)
        want = ["swipium-cli/cmd-verify.c:1: fork()", "libswipium/device/bad.c:2: fork()", "libswipium/health/bad.c: runs processes and names a device tool (adb)",
                "swipium-mcp/bad.c:1: reaches into",
                "libswipium/visual/wda.c: runs processes and names a device tool (xcodebuild)",
                "swipium-cli/cmd-x.c: runs processes and names a device tool (adb)", "swipium-cli/cmd-serve.c: listed as an exception"]
        for w in want:
            assert any(g.startswith(w) for g in got), (w, got)
        assert len(got) == len(want), got
    print("self-test: the scanner flags a fork (library or CLI), a device tool on the runner, an adb lookup and a stale exception")


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        self_test()
        return 0
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    self_test()
    problems = scan(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        print("one door: %d problem(s); start processes with sw__proc_run/sw__proc_spawn (libswipium/core/sw-proc.h) "
              "and reach devices only through sw_device_* (the driver ops table)" % len(problems))
        return 1
    print("one door: no fork/exec outside %s, no device tool outside %s" % (RUNNER_FILE, DRIVERS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
