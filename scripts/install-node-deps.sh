#!/usr/bin/env bash
# Installs the npm packages the integration tests use (the official MCP SDK client
# and the MCP Inspector CLI) into tests/integration/node_modules, from the lock file.
# Also webdriverio 9, the @wdio 9 types and typescript: the generated Appium suites are type-checked against them.
set -euo pipefail
cd "$(dirname "$0")/../tests/integration"
[ -f package.json ] || exit 0
if [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
	exit 0
fi
if [ -f package-lock.json ]; then
	npm ci --no-audit --no-fund --loglevel=error </dev/null
else
	npm install --no-audit --no-fund --loglevel=error </dev/null
fi
# npm 11 does not run install scripts by default; the SARIF multitool's only script makes its
# native binary executable, so do that here.
for f in node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool; do
	[ -f "$f" ] && chmod u+x "$f"
done
exit 0
