/* swipium/catalog.h: the failure-code catalog: what each product failure code means and who fixes it. */
#ifndef SWIPIUM_CATALOG_H
#define SWIPIUM_CATALOG_H

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Looks up a failure code ("NATIVE_CRASH", "NO_DEVICE", ...; exact, case-sensitive).
 * @entry_json receives one object (transfer full):
 * {code, bucket, owner, severity, retrySafe, canSwipiumFix, reserved, finding, summary, recovery}
 * where bucket is app_bug|environment|missing_data|mcp_limitation|unsafe_refused,
 * owner app|environment|swipium|user, severity low|medium|high, summary a short
 * phrase without a final period and recovery one or two sentences saying what to do.
 * Fails with SW_EINVAL (failure code INVALID_ARGUMENT) for an unknown code.
 */
SW_API int sw_catalog_lookup(const char *code, char **entry_json, sw_error **err);

/** Every catalog entry, in catalog order, as a JSON array of the objects above. (transfer full) */
SW_API int sw_catalog_list_json(char **out, sw_error **err);

/** The number of codes in the catalog (137). */
SW_API size_t sw_catalog_count(void);

#ifdef __cplusplus
}
#endif

#endif
