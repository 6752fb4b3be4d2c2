/* catalog-internal.h: direct access to the failure-code catalog for other libswipium modules. */
#ifndef SW_CATALOG_INTERNAL_H
#define SW_CATALOG_INTERNAL_H

#include "sw-internal.h"

#include <swipium/catalog.h>

typedef struct sw__catalog_entry {
	const char *code;
	int result; /* the one sw_result this code is raised with; SW_OK for UNKNOWN (the failure's own result) */
	const char *bucket;
	const char *owner;
	const char *severity;
	bool retry_safe;
	bool can_fix;
	const char *marks;    /* "R" reserved, "F" finding, or "" */
	const char *summary;  /* short phrase, no final period */
	const char *recovery; /* what to do, whole sentences */
} sw__catalog_entry;

/* The entry for code[0..len), or NULL. (transfer none) */
const sw__catalog_entry *sw__catalog_find(const char *code, size_t len);
size_t sw__catalog_size(void);
/*
 * The result @code is raised with (catalog.c's table), or @fallback for a code not in the catalog and for
 * UNKNOWN, whose result is the failure's own. Raises whose code is computed at run time use it; literal
 * raises spell the catalog's result (tests/unit/check-catalog-results.py).
 */
int sw__catalog_result(const char *code, int fallback);
const sw__catalog_entry *sw__catalog_at(size_t i);

#endif
