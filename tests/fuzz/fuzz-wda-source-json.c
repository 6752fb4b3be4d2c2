/* fuzz-wda-source-json.c: libFuzzer target for the JSON form of a WebDriverAgent page source
 * (drivers/ios/wda-source-json.c: the in-place pull tokenizer and the element reader): any bytes give a
 * clear error or a hierarchy that is NUL-free text; the tokenizer alone never reads past the buffer and
 * ends every document with END or ERROR. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wda-source-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exactly @size bytes (no terminator): a read past the end is a sanitizer report */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	char *xml = NULL;
	size_t len = 0;
	sw_error *err = NULL;
	if (sw__wda_source_convert_json(buf, size, "com.example.app", 2000, &xml, &len, NULL, &err) == SW_OK) {
		if (!xml || strlen(xml) != len)
			abort();
	} else if (!err || !sw_error_failure_code(err))
		abort();
	sw_error_free(err);
	free(xml);
	/* the tokenizer on its own, dry and decoding, over a fresh copy */
	for (int dry = 0; dry < 2; dry++) {
		memcpy(buf, data, size);
		sw__jpull j;
		sw__jpull_init(&j, buf, size);
		j.dry = dry;
		size_t tokens = 0;
		for (;;) {
			enum sw__jtok t = sw__jpull_next(&j);
			if (t == SW__J_END || t == SW__J_ERROR)
				break;
			if ((t == SW__J_STR || t == SW__J_KEY || t == SW__J_NUM) &&
			    (j.s < buf || j.s + j.n > buf + size))
				abort();
			if (++tokens > size + 1)
				abort(); /* every token consumes at least one byte */
		}
	}
	free(buf);
	return 0;
}
