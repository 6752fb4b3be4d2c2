/* fuzz-ios-log.c: libFuzzer target for the conversion of `log show --style compact` output into the threadtime
 * lines the health scanner reads (libswipium/drivers/ios/driver-ios.c, sw__ios_log_convert). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ios-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *apps;
	if (!apps)
		apps = json_pack("{s:{s:s},s:{s:s}}", "com.example.shop", "CFBundleExecutable", "Shop", "com.example.odd",
		                 "CFBundleExecutable", "");
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	size_t n = 0;
	char *out = sw__ios_log_convert(buf, size, apps, &n);
	if (!out)
		abort();
	/* every converted line is complete */
	if (n && out[n - 1] != '\n')
		abort();
	if (strlen(out) > n)
		abort();
	free(out);
	free(buf);
	return 0;
}
