/* fuzz-openstep.c: libFuzzer target for the old-style (OpenStep) property list reader that reads
 * `simctl listapps` (libswipium/drivers/ios/listapps.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ios-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every value the reader builds is a dictionary, an array or a string. */
static void check(json_t *v, int depth)
{
	if (depth > 70)
		abort();
	if (json_is_string(v))
		return;
	const char *k;
	json_t *x;
	size_t i;
	if (json_is_object(v)) {
		json_object_foreach(v, k, x) check(x, depth + 1);
		return;
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, x) check(x, depth + 1);
		return;
	}
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly the right size, so that ASan sees any read past it */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	sw_error *err = NULL;
	json_t *v = sw__openstep_parse(buf, size, &err);
	if (v) {
		check(v, 0);
		if (err)
			abort();
	} else if (!err || !strstr(sw_error_message(err), "listapps"))
		abort();
	json_decref(v);
	sw_error_free(err);
	free(buf);
	return 0;
}
