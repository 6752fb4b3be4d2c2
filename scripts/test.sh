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

# Sanitizer stage: the server protocol suites again, against an ASan+UBSan build (build-asan/).
# Any sanitizer report fails the stage: reports are written to files (log_path), so one from a
# server process the Python client does not wait on still counts; one printed to a process's stderr
# instead (log_path not honoured in a child) counts when it reaches a test's output, which the MCP test
# client makes sure of (it echoes a server's sanitizer lines): scripts/sanitizer-reports.py counts both. SWIPIUM_ASAN=0 skips the stage;
# so does a compiler without the sanitizer runtimes (said on the log, never a failure).
ASAN_BUILD=${SWIPIUM_ASAN_BUILD_DIR:-build-asan}
ASAN_TESTS=(mcp-protocol mcp-consent mcp-hostile-text mcp-result-redaction mcp-suite mcp-generate mcp-ios-source mcp-ios-paths)
logs=("$BUILD/meson-logs/testlog.json")
sanitizer_reports=0
if [ "${SWIPIUM_ASAN:-1}" = 0 ]; then
	echo "asan stage: skipped (SWIPIUM_ASAN=0)"
elif [ $# -gt 0 ]; then
	echo "asan stage: skipped (a targeted run: meson test arguments were given)"
elif ! printf 'int main(void){return 0;}\n' | ${CC:-cc} -x c -fsanitize=address,undefined -o /dev/null - 2>/dev/null; then
	echo "asan stage: skipped (${CC:-cc} cannot link -fsanitize=address,undefined)"
else
	asan_start=$(date +%s)
	if [ ! -f "$ASAN_BUILD/build.ninja" ]; then
		meson setup "$ASAN_BUILD" --werror -Db_sanitize=address,undefined -Db_lundef=false </dev/null >/dev/null
	else
		meson setup --reconfigure "$ASAN_BUILD" --werror -Db_sanitize=address,undefined -Db_lundef=false \
			</dev/null >/dev/null
	fi
	# Only what those suites run: the server, its consent test build, the CLI and the virtual device.
	ninja -C "$ASAN_BUILD" swipium-mcp/swipium-mcp tests/integration/swipium-mcp-consent-test \
		swipium-cli/swipium tests/vdevice/vdevice </dev/null >/dev/null
	asan_logs="$PWD/$ASAN_BUILD/sanitizer-reports"
	rm -rf "$asan_logs" && mkdir -p "$asan_logs"
	SWIPIUM_SANITIZERS=address,undefined ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$asan_logs/asan" \
		UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$asan_logs/ubsan" \
		meson test -C "$ASAN_BUILD" --no-rebuild --print-errorlogs --num-processes 2 "${ASAN_TESTS[@]}" \
		</dev/null || status=$?
	logs+=("$ASAN_BUILD/meson-logs/testlog.json")
	counted=$(/usr/bin/python3 scripts/sanitizer-reports.py "$asan_logs" "$ASAN_BUILD/meson-logs/testlog.txt") ||
		counted="count: 1" # the counter itself failed: never a silent zero
	printf '%s\n' "$counted" | sed '$d'
	sanitizer_reports=$(printf '%s\n' "$counted" | sed -n '$s/^count: //p')
	sanitizer_reports=${sanitizer_reports:-1}
	if [ "$sanitizer_reports" != 0 ]; then
		status=1
	fi
	echo "asan stage: ${ASAN_TESTS[*]} in $(($(date +%s) - asan_start)) s (build included), $sanitizer_reports sanitizer report(s)"
fi

# One closing line that any CI reader understands (a sanitizer report counts as one failed test).
/usr/bin/python3 - "$sanitizer_reports" "${logs[@]}" <<'PY'
import json, sys
passed = failed = skipped = 0
failed += int(sys.argv[1])
for path in sys.argv[2:]:
    for line in open(path):
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
