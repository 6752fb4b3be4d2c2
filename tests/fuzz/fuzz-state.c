/* fuzz-state.c: libFuzzer target for loading state.json: parse, normalise, re-serialise; the result must be stable. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *loaded = json_loadb((const char *)data, size, 0, NULL);
	if (!loaded)
		return 0;
	bool degraded = false;
	json_t *norm = sw__state_normalize(loaded, &degraded);
	json_decref(loaded);
	if (!norm)
		return 0;
	/* what the store writes back must load again to the very same document */
	char *text = sw__json_pretty(norm);
	if (!text)
		abort();
	json_t *again = json_loads(text, 0, NULL);
	if (!again)
		abort();
	bool degraded2 = false;
	json_t *norm2 = sw__state_normalize(again, &degraded2);
	if (!norm2 || degraded2 != degraded)
		abort();
	char *text2 = sw__json_pretty(norm2);
	if (!text2 || strcmp(text, text2) != 0)
		abort();
	/* jobs that were running never survive a reload */
	size_t i;
	json_t *job;
	json_array_foreach(json_object_get(norm2, "jobs"), i, job)
	{
		const char *st = json_string_value(json_object_get(job, "status"));
		if (st && !strcmp(st, "running"))
			abort();
	}
	free(text);
	free(text2);
	json_decref(again);
	json_decref(norm);
	json_decref(norm2);
	return 0;
}
