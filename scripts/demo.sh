#!/usr/bin/env bash
# Installs what is missing, builds swipium in build-demo/, and renders the bundled sample report to every
# CI export, printing the release gate. (The Android issue replaces this with a run on the virtual device.)
# Usage: scripts/demo.sh            (non-interactive; exit 0 when the demo ran)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

BUILD=${SWIPIUM_DEMO_BUILD_DIR:-build-demo}
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" -Dtests=false -Dbench=false </dev/null
fi
ninja -C "$BUILD" </dev/null

SWIPIUM="$BUILD/swipium-cli/swipium"
REPORT=examples/sample-report.json
OUT="$BUILD/demo"
rm -rf "$OUT"
mkdir -p "$OUT"

echo
echo "== swipium $("$SWIPIUM" --version): rendering $REPORT"
declare -A files=([junit]=junit.xml [sarif]=results.sarif [github-summary]=summary.md [markdown]=report.md
	[json]=report.json)
for format in junit sarif github-summary markdown json; do
	# --root: the policy (.swipium/policy.json) and the files SARIF results point at are looked up there.
	"$SWIPIUM" report --format "$format" --report "$REPORT" --root examples --out "$OUT/${files[$format]}"
done

echo
echo "== the GitHub step summary ($OUT/summary.md):"
echo
cat "$OUT/summary.md"

echo
echo "== the release gate decides the CI job (--fail-on-gate):"
status=0
"$SWIPIUM" report --format json --report "$REPORT" --root examples --out "$OUT/report.json" --fail-on-gate ||
	status=$?
if [ "$status" -eq 1 ]; then
	echo "exit 1: the gate blocks this release, so a CI job would fail here."
elif [ "$status" -eq 0 ]; then
	echo "exit 0: the gate passes."
else
	echo "exit $status: unexpected" >&2
	exit "$status"
fi
echo
echo "== files in $OUT:"
ls -l "$OUT"
