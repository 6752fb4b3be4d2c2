/* fuzz-wda-source.c: libFuzzer target for the WebDriverAgent page source converter (drivers/ios/wda-source.c):
 * any bytes give a clear error or a hierarchy the snapshot parser accepts or refuses cleanly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ios-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	char *xml = NULL;
	size_t len = 0;
	sw_error *err = NULL;
	if (sw__wda_source_convert(buf, size, "com.example.app", 2000, &xml, &len, NULL, &err) == SW_OK) {
		if (!xml || strlen(xml) != len)
			abort();
	} else if (!err || !sw_error_failure_code(err))
		abort();
	sw_error_free(err);
	free(xml);
	free(buf);
	return 0;
}
