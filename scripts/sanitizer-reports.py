#!/usr/bin/env python3
"""sanitizer-reports.py: count (and show) the sanitizer reports of the ASan stage of scripts/test.sh.

A report is counted wherever it landed:
  - a file in REPORTS_DIR (ASAN_OPTIONS / UBSAN_OPTIONS log_path: asan.<pid>, ubsan.<pid>), and
  - a report printed to a process's stderr instead (a child that did not honour log_path, or one whose
    environment was replaced) that reached a test's output: each meson test log given is scanned for
    the reports' first lines: `==<pid>==ERROR: AddressSanitizer` / `LeakSanitizer`, and UBSan's
    `<file>:<line>:<col>: runtime error: `.
An ASan/LSan report seen twice (in a file and a log, or quoted again in a failed assertion: same pid)
is counted once; a UBSan line carries no pid and counts each time it is seen.

Usage: sanitizer-reports.py REPORTS_DIR [MESON_TESTLOG.txt ...]   prints the reports, then `count: N`
"""
import os
import re
import sys

ASAN_HEAD = re.compile(r"==(\d+)==ERROR: (AddressSanitizer|LeakSanitizer)\b")
UBSAN_HEAD = re.compile(r"^\S+:\d+:\d+: runtime error: ", re.M)


def line_at(text, pos):
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start:end if end >= 0 else len(text)].strip()


def heads(text):
    """(kind, pid or None, line) for each report that starts in @text."""
    out = [(m.group(2), m.group(1), line_at(text, m.start())) for m in ASAN_HEAD.finditer(text)]
    out += [("UndefinedBehaviorSanitizer", None, line_at(text, m.start())) for m in UBSAN_HEAD.finditer(text)]
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    count = 0
    seen_pids = set()
    reports_dir = argv[1]
    if os.path.isdir(reports_dir):
        for name in sorted(os.listdir(reports_dir)):
            path = os.path.join(reports_dir, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            pid = name.rsplit(".", 1)[-1]
            seen_pids.add(pid)
            print("sanitizer report %s:" % path)
            print(text)
            count += max(1, len(heads(text)))  # a file is at least one report, even if its head is unusual
    for log in argv[2:]:
        if not os.path.exists(log):
            continue
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for kind, pid, line in heads(text):
            if pid is not None and pid in seen_pids:
                continue  # in a file already, or quoted again (a failed assertion that prints the stderr)
            if pid is not None:
                seen_pids.add(pid)
            print("sanitizer report in %s (printed, not in a log_path file): %s" % (log, line))
            count += 1
    print("count: %d" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
