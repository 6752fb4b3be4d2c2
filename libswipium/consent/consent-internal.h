/* consent-internal.h: consent internals shared with tests and other modules; never installed. */
#ifndef SW_CONSENT_INTERNAL_H
#define SW_CONSENT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "sw-internal.h"

/* Replaces the wall clock (epoch ms) the store uses for issue times and expiry. NULL restores it. */
void sw__consent_store_set_clock(sw_consent_store *s, int64_t (*now_ms)(void *userdata), void *userdata);

/* Canonical JSON (keys sorted recursively, compact) of @v; "null" for NULL. (transfer full) */
char *sw__json_canonical(const json_t *v);

/*
 * A mutation-ledger row with a fresh id and the current time. Strings may be
 * NULL (consentId, payloadHash, detail are then left out; others become "").
 */
json_t *sw__consent_ledger_row(const char *tool, const char *action, const char *risk, json_t *target,
                               bool required, const char *consent_id, bool approved, const char *payload_hash,
                               const char *mechanism, const char *status, const char *detail);

/* Levenshtein distance between two ASCII strings (bounded use: short names). */
size_t sw__consent_edit_distance(const char *a, const char *b);

/* The nearest action name for an unknown pre-approval name, or NULL when none is close enough. (transfer none) */
const char *sw__consent_suggest(const char *name);

/* Lowercase hex of @nbytes random bytes into @hex (2 * nbytes + 1). False when no randomness is available. */
bool sw__random_hex(char *hex, size_t nbytes);

#endif
