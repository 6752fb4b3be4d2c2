#!/usr/bin/env bash
# Installs what is missing, builds swipium in build-test/, and runs the whole test suite.
# Usage: scripts/test.sh [extra meson test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/install-node-deps.sh

BUILD=${SWIPIUM_BUILD_DIR:-build-test}
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" --werror </dev/null
else
	meson setup --reconfigure "$BUILD" --werror </dev/null >/dev/null
fi
ninja -C "$BUILD" </dev/null

status=0
meson test -C "$BUILD" --print-errorlogs --num-processes 2 "$@" </dev/null || status=$?

# One closing line that any CI reader understands.
/usr/bin/python3 - "$BUILD/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    res = r.get("result")
    if res in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif res == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
