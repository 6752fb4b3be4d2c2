#!/usr/bin/env bash
# Installs the Debian packages swipium needs to build, test and run its demo.
# Idempotent: does nothing when everything is present. Needs root (or sudo).
set -euo pipefail

PKGS=(
	build-essential meson ninja-build pkg-config
	libjansson-dev libyaml-dev libxml2-dev libcurl4-openssl-dev libpng-dev zlib1g-dev nettle-dev
	libzip-dev libplist-dev
	check valgrind
	adb aapt
	libxml2-utils python3 python3-jsonschema python3-yaml cmark-gfm
	tesseract-ocr tesseract-ocr-eng python3-pil
	nodejs npm
	python3-selenium python3-pytest
)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
# The machine may carry its own node/npm outside Debian's packages; accept those.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
	filtered=()
	for p in "${missing[@]}"; do
		case "$p" in nodejs|npm) ;; *) filtered+=("$p") ;; esac
	done
	missing=("${filtered[@]+"${filtered[@]}"}")
fi

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all packages present"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq </dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
