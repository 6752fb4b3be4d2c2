/* fuzz-uiautomator.c: libFuzzer target for the uiautomator XML parser behind snapshots (parse, lines, diff, inspect).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <swipium/swipium.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sw_snapshot_tracker *t = NULL;
	if (sw_snapshot_tracker_new(&t, NULL) != SW_OK)
		return 0;
	/* twice, so refs are reused and the diff runs over the same tree */
	for (int i = 0; i < 2; i++) {
		char *out = NULL;
		sw_error *err = NULL;
		if (sw_snapshot_take_xml(t, (const char *)data, size, i ? "{\"diff\":true,\"filter\":\"a\"}" : NULL,
		                         &out, &err) == SW_OK) {
			char *ins = NULL;
			if (sw_snapshot_inspect(t, "@e1", &ins, NULL) == SW_OK)
				sw_free(ins);
			sw_free(out);
		}
		sw_error_free(err);
	}
	sw_snapshot_tracker_free(t);
	return 0;
}
