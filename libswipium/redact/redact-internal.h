/* redact-internal.h: in-library entry points of the redactor (jansson trees, raw strings); never installed. */
#ifndef SW_REDACT_INTERNAL_H
#define SW_REDACT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "sw-internal.h"

/*
 * A deep redacted copy of @v (new reference): every string and object key at
 * any depth, numbers and literals untouched, the values of geometry keys
 * (bounds, x, y, width, height, index, instance, rect, frame) shared as they
 * are, colliding keys renamed "key#2", "key#3" in iteration order.
 * NULL on allocation failure or when @v is NULL.
 */
json_t *sw__redactor_redact_jansson(sw_redactor *r, json_t *v);

/*
 * Redacts s[0..len) into a new NUL-terminated string (*out, *out_len nullable).
 * Returns 1 when something was replaced, 0 when the copy equals the input,
 * SW_ENOMEM on allocation failure (*out untouched).
 */
int sw__redactor_redact_str(sw_redactor *r, const char *s, size_t len, char **out, size_t *out_len);

/* Appends the redaction of s[0..len) to @b. Returns true when something was replaced. */
bool sw__redactor_redact_into(sw_redactor *r, sw_buf *b, const char *s, size_t len);

/* True when @key (len bytes) names a geometry field whose value redaction leaves alone. */
bool sw__redact_is_geometry_key(const char *key, size_t len);

/* True when code point @cp is a Unicode letter or number (\p{L} or \p{N}). */
bool sw__unicode_is_alnum(uint32_t cp);

#endif
