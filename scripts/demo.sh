#!/usr/bin/env bash
# The README's main job: installs what is missing, builds swipium in build-demo/, starts the virtual
# Android device behind a private adb server, and drives it through swipium-mcp as an agent would
# (session, prepare, snapshot, log in, outcomes, report), then renders the report for CI.
# Usage: scripts/demo.sh [--out DIR]      (non-interactive; exit 0 when every step behaved)
#        scripts/demo.sh --ios             (the iOS loop on Linux against the stand-ins in tests/ios)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

BUILD=${SWIPIUM_DEMO_BUILD_DIR:-build-demo}
# Tests stay enabled in the build: the virtual device lives in tests/vdevice/.
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" -Dbench=false </dev/null
fi
ninja -C "$BUILD" swipium-mcp/swipium-mcp swipium-cli/swipium tests/vdevice/vdevice </dev/null

if [ "${1:-}" = "--ios" ]; then
	exec /usr/bin/python3 examples/demo/ios_demo.py --build "$BUILD"
fi
exec /usr/bin/python3 examples/demo/agent_demo.py --build "$BUILD" "$@"
