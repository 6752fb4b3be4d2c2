/* fuzz-plist.c: libFuzzer target for the Info.plist reader (XML and binary bplist00, through libplist) that
 * decides an iOS app bundle's id, URL schemes and platform before anything is installed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly the right size, so that ASan sees any read past it */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	char why[200];
	json_t *out = NULL;
	if (sw__info_plist_read(buf, size, &out, why, sizeof(why)) == 0) {
		/* what the bundle check reads from it must be well-typed when present */
		json_t *id = json_object_get(out, "bundleId");
		if (id && !json_is_string(id) && !json_is_null(id))
			abort();
	} else if (!memchr(why, '\0', sizeof(why)))
		abort();
	json_decref(out);
	free(buf);
	return 0;
}
