/* swipium/redact.h: registered secrets and the redactor that scrubs them from every output. */
#ifndef SWIPIUM_REDACT_H
#define SWIPIUM_REDACT_H

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What replaces a secret: U+00AB "redacted" U+00BB, in UTF-8. */
#define SW_REDACTED_MARKER "\xc2\xabredacted\xc2\xbb"

/** Secrets shorter than this (in characters) are never matched; see sw_redactor_short_count(). */
#define SW_REDACT_MIN_CHARS 3

/**
 * A set of registered secret values and the matcher built from them.
 *
 * Matching rules (docs/redaction.md): a value of 4 or more characters is
 * replaced wherever it occurs; a 3-character value, and an all-digit value of
 * 3 to 7 digits, only as a whole token; a value under 3 characters is never
 * matched and makes every redaction "partial". Each value is matched in its
 * raw, JSON-string-escaped and XML-escaped spellings. The cost of a redaction
 * is linear in the text and does not grow with the number of secrets.
 *
 * Thread safety: any number of threads may redact, guard and count at the
 * same time, also while another thread adds secrets (adds take a write lock).
 */
typedef struct sw_redactor sw_redactor;

/** Creates an empty redactor. (transfer full) */
SW_API int sw_redactor_new(sw_redactor **out, sw_error **err);
/** Frees @r. NULL is accepted. */
SW_API void sw_redactor_free(sw_redactor *r);

/**
 * Registers @value (UTF-8, NUL-terminated) as a secret. Empty values and
 * values already registered are ignored (SW_OK). A value shorter than 3
 * characters is recorded but never matched (redactions become "partial").
 */
SW_API int sw_redactor_add_secret(sw_redactor *r, const char *value, sw_error **err);

/**
 * Registers @value as a secret when @name reads like a credential
 * (sw_redact_is_secret_name()). Returns 1 when it was registered, 0 when the
 * name is ordinary (nothing done), or a negative SW_E* code.
 */
SW_API int sw_redactor_add_value_if_secret_name(sw_redactor *r, const char *name, const char *value, sw_error **err);

/**
 * Registers @value when it equals or contains a registered secret (a typed
 * value that carries a secret becomes one). Returns 1 when registered, 0 when
 * not, or a negative SW_E* code.
 */
SW_API int sw_redactor_add_value_if_contains_secret(sw_redactor *r, const char *value, sw_error **err);

/**
 * 1 when a variable, field or input name reads like a credential: a
 * case-insensitive substring "pass", "secret", "token", "otp", "pin", "cvv",
 * "key" or "code" (so SWIPIUM_VERIFICATION_CODE is one), else 0.
 */
SW_API int sw_redact_is_secret_name(const char *name);

/**
 * 1 when a UI field id, label or description marks a secure field: password,
 * passwd, OTP, one-time, PIN (as a word end), CVV, card number, secret, token
 * or security code (case-insensitive), else 0. Fields flagged password="true"
 * by the platform are secure regardless; the caller checks that flag.
 */
SW_API int sw_redact_is_secure_label(const char *text);

/** Number of distinct registered values, including the ones too short to match. */
SW_API size_t sw_redactor_count(const sw_redactor *r);
/** Number of registered values shorter than 3 characters (never matched). */
SW_API size_t sw_redactor_short_count(const sw_redactor *r);

/**
 * The note that goes with a "partial" redaction, e.g. "1 secret value(s)
 * shorter than 3 characters were not redacted (matching them would corrupt
 * ordinary text).", or NULL (with SW_OK) when no short secret is registered.
 * (transfer full) (nullable)
 */
SW_API int sw_redactor_partial_note(const sw_redactor *r, char **out, sw_error **err);

/**
 * Replaces every registered secret in @in[0..@len) with SW_REDACTED_MARKER.
 * @out receives a NUL-terminated copy (transfer full), @out_len its length
 * (nullable). @partial_out (nullable) receives 1 when a short secret is
 * registered (the result may still hold it), else 0. Works on arbitrary bytes;
 * text that is not valid UTF-8 is handled byte by byte.
 */
SW_API int sw_redactor_redact_text(sw_redactor *r, const char *in, size_t len, char **out, size_t *out_len,
                                   int *partial_out, sw_error **err);

/**
 * Structural redaction of a JSON text: every string value and every object key
 * at any depth is redacted; numbers, literals, whitespace and indentation are
 * kept byte for byte; the values of geometry keys (bounds, x, y, width, height,
 * index, instance, rect, frame) are left untouched. Keys that collide after
 * redaction become "key#2", "key#3" ... in document order. SW_EINVAL
 * (INVALID_ARGUMENT) when @json_in is not JSON. (transfer full)
 */
SW_API int sw_redactor_redact_json(sw_redactor *r, const char *json_in, char **json_out, sw_error **err);

/**
 * Structural redaction of an XML text (e.g. a UI hierarchy dump): attribute
 * values (except geometry attributes), text, CDATA sections and comments are
 * redacted; element and attribute names and the markup are kept. Never fails
 * on malformed XML: what cannot be parsed is redacted as plain text.
 * @out_len is nullable. (transfer full)
 */
SW_API int sw_redactor_redact_xml(sw_redactor *r, const char *in, size_t len, char **out, size_t *out_len,
                                  sw_error **err);

/**
 * 1 when @mime is a text type that artifacts redact: text/ *, application/json,
 * xml, yaml, x-yaml, javascript, x-ndjson, and any +json / +xml / +yaml
 * suffix (parameters such as "; charset=utf-8" are ignored), else 0.
 */
SW_API int sw_redact_mime_is_text(const char *mime);

/**
 * Redacts the content of an artifact before it is saved: JSON mimes
 * structurally (falling back to plain text when it does not parse), XML mimes
 * structurally, other text mimes as plain text, binaries not at all.
 * @out gets the bytes to write (transfer full; a copy of @in for binaries),
 * @out_len their length, @tag_out (nullable) the artifact's redaction tag:
 * "applied", "partial" or "not-applied" (transfer none, static).
 */
SW_API int sw_redactor_redact_artifact(sw_redactor *r, const char *mime, const char *in, size_t len, char **out,
                                       size_t *out_len, const char **tag_out, sw_error **err);

/**
 * 1 when @text[0..@len) contains a registered secret (by the matching rules
 * above; occurrences inside an SW_REDACTED_MARKER do not count), else 0.
 */
SW_API int sw_redactor_contains(sw_redactor *r, const char *text, size_t len);

/**
 * The final check before generated output (suites, flows, reports, exports)
 * is written: SW_OK when @text holds no registered secret, otherwise
 * SW_ESECRET with failure code SECRET_IN_GENERATED_OUTPUT (the message never
 * quotes the secret). Write nothing when this fails.
 */
SW_API int sw_redactor_guard(sw_redactor *r, const char *text, size_t len, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
