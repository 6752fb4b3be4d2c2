/* catalog-glue.c: default retry safety of a failure code, from the library's failure-code catalog. */
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

bool mcp_catalog_retry_safe(const char *code)
{
	if (!code)
		return false;
	/* Codes the catalog leaves open but the docs settle (TOOLS.md §2). */
	if (!strcmp(code, "CANCELLED") || !strcmp(code, "CONSENT_CANCELLED") || !strcmp(code, "STALE_CLIENT") ||
	    !strcmp(code, "UNKNOWN"))
		return true;
	if (!strcmp(code, "INVALID_ARGUMENT") || !strcmp(code, "CONSENT_DECLINED") || !strcmp(code, "CONSENT_REFUSED"))
		return false;
	char *text = NULL;
	bool safe = false;
	if (sw_catalog_lookup(code, &text, NULL) == SW_OK) {
		json_t *e = json_loads(text, 0, NULL);
		safe = json_is_true(json_object_get(e, "retrySafe"));
		json_decref(e);
	}
	sw_free(text);
	return safe;
}
