/* fuzz-element-lines.c: libFuzzer target for the element-line parser (sw_snapshot_parse_element_line). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/swipium.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	char *out = NULL;
	sw_error *err = NULL;
	if (sw_snapshot_parse_element_line(line, &out, &err) == SW_OK) {
		if (!out)
			abort();
		sw_free(out);
	} else if (out) {
		abort(); /* *out is untouched on failure */
	}
	sw_error_free(err);
	free(line);
	return 0;
}
