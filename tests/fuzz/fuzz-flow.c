/* fuzz-flow.c: libFuzzer target for the Flow V2 parser, the static check and the pack reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flow-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *flow = NULL, *errors = NULL;
	int rc = sw__flow_parse((const char *)data, size, "fuzz.yaml", &flow, &errors, NULL);
	if (rc == SW_OK) {
		if (!json_is_object(flow) || !json_is_array(errors))
			abort();
		/* every kept step carries its position and kind */
		const char *phases[] = {"setup", "steps", "teardown"};
		for (size_t p = 0; p < 3; p++) {
			size_t i;
			json_t *st;
			json_array_foreach(json_object_get(flow, phases[p]), i, st)
			{
				if (!json_is_string(json_object_get(st, "kind")) ||
				    json_integer_value(json_object_get(st, "line")) < 1)
					abort();
			}
		}
		json_t *lint = sw__flow_lint(flow, errors, "cross-platform", true, NULL, NULL);
		if (!lint)
			abort();
		json_decref(lint);
	}
	json_decref(flow);
	json_decref(errors);
	json_t *names = json_array();
	sw__flow_parse_pack((const char *)data, size, "fuzz-pack.yaml", names, NULL);
	json_decref(names);
	return 0;
}
