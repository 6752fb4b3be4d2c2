#!/bin/sh
# emulator-standin.sh: stands in for the SDK's `emulator` in tests; "booting" an AVD starts a virtual device.
# The AVD named "broken" fails like a missing engine; every other AVD boots the login app after a short boot.
avd=""
if [ "$1" = "-list-avds" ]; then
	echo "INFO    | Storing crashdata in: /tmp/android-unknown/emu-crash-34.1.19.db"
	echo "Pixel_7_API_34"
	echo "broken"
	exit 0
fi
while [ $# -gt 0 ]; do
	case "$1" in
	-avd) avd="$2"; shift 2 ;;
	*) shift ;;
	esac
done
if [ "$avd" = "broken" ] || [ -z "$avd" ]; then
	echo "PANIC: Unknown AVD name [$avd], use -list-avds to see valid list." >&2
	exit 1
fi
exec "$VDEVICE_BIN" --app "${VDEVICE_APP:-$SWIPIUM_SOURCE_ROOT/tests/vdevice/apps/login.yaml}" --boot-after "${VDEVICE_BOOT_AFTER:-3}"
