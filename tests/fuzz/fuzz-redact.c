/* fuzz-redact.c: libFuzzer target for the redactor (text, JSON, XML, guard) with fuzzer-chosen secrets. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../libswipium/redact/redact-internal.h"

/*
 * Input: up to 8 secrets, each ended by a NUL byte, after a first byte that
 * says how many (low 3 bits); the rest is the text. Properties checked:
 *   - nothing crashes or leaks (ASan/UBSan/LSan do the checking);
 *   - the redacted text passes the guard, and (checked without the matcher)
 *     no secret of 4+ characters is left outside a marker, unless a secret
 *     holds bytes of the marker's own quote characters;
 *   - JSON that jansson accepts still parses after structural redaction.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* UTF-16 length, an invalid byte counting as one (the redactor's rule). */
static size_t units(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = sw__utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (k == 0)
			k = 1, cp = 0xFFFD;
		n += cp >= 0x10000 ? 2 : 1;
		i += k;
	}
	return n;
}

/*
 * An oracle independent of the matcher: a secret matched anywhere (4+
 * characters, not a short number) may only appear inside a marker.
 */
static void check_absent(const char *out, size_t out_len, const char *sec)
{
	size_t l = strlen(sec);
	bool digits = l > 0;
	for (size_t k = 0; k < l; k++)
		digits &= sec[k] >= '0' && sec[k] <= '9';
	if (units(sec, l) < 4 || (digits && l < 8))
		return;
	const size_t ml = strlen(SW_REDACTED_MARKER);
	for (const char *p = out; (p = memmem(p, out_len - (size_t)(p - out), sec, l)); p++) {
		size_t at = (size_t)(p - out);
		bool inside = false;
		for (size_t q = at + l > ml ? at + l - ml : 0; q <= at && !inside; q++)
			inside = q + ml <= out_len && memcmp(out + q, SW_REDACTED_MARKER, ml) == 0;
		if (!inside)
			abort(); /* a registered secret survived */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t nsec = data[0] & 7;
	size_t i = 1;
	sw_redactor *r = NULL;
	if (sw_redactor_new(&r, NULL) != SW_OK)
		abort();
	bool marker_bytes = false;
	const char *secs[8];
	size_t nadded = 0;
	for (size_t k = 0; k < nsec && i < size; k++) {
		const uint8_t *end = memchr(data + i, 0, size - i);
		if (!end)
			break;
		const char *sec = (const char *)data + i;
		for (const char *p = sec; *p; p++)
			marker_bytes |=
			    (unsigned char)*p == 0xC2 || (unsigned char)*p == 0xAB || (unsigned char)*p == 0xBB;
		if (sw_redactor_add_secret(r, sec, NULL) != SW_OK)
			abort();
		secs[nadded++] = sec;
		i = (size_t)(end - data) + 1;
	}
	const char *text = (const char *)data + i;
	size_t len = size - i;

	char *out = NULL;
	size_t out_len = 0;
	if (sw_redactor_redact_text(r, text, len, &out, &out_len, NULL, NULL) != SW_OK)
		abort();
	if (!marker_bytes) {
		if (sw_redactor_guard(r, out, out_len, NULL) != SW_OK)
			abort(); /* a secret survived redaction */
		for (size_t k = 0; k < nadded; k++)
			check_absent(out, out_len, secs[k]);
	}
	free(out);

	if (sw_redactor_redact_xml(r, text, len, &out, &out_len, NULL) != SW_OK)
		abort();
	free(out);

	char *nul_term = malloc(len + 1);
	if (!nul_term)
		abort();
	memcpy(nul_term, text, len);
	nul_term[len] = '\0';
	json_error_t jerr;
	json_t *orig = json_loads(nul_term, JSON_DECODE_ANY, &jerr);
	sw_error *err = NULL;
	int rc = sw_redactor_redact_json(r, nul_term, &out, &err);
	if (rc == SW_OK) {
		if (orig && strlen(nul_term) == len) {
			json_t *again = json_loads(out, JSON_DECODE_ANY, &jerr);
			if (!again)
				abort(); /* structural redaction broke valid JSON */
			json_decref(again);
		}
		free(out);
	} else if (rc != SW_EPARSE) {
		abort();
	}
	sw_error_free(err);
	if (orig) {
		json_t *red = sw__redactor_redact_jansson(r, orig);
		if (!red)
			abort();
		json_decref(red);
		json_decref(orig);
	}
	free(nul_term);
	sw_redactor_free(r);
	return 0;
}
