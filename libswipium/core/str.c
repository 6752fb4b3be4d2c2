/* str.c: string and UTF-8 helpers (JavaScript-compatible length rules included). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"

char *sw__strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *sw__strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *sw__asprintf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

bool sw__str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool sw__str_has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

bool sw__str_one_of(const char *s, const char *const *set)
{
	for (size_t i = 0; s && set[i]; i++)
		if (!strcmp(s, set[i]))
			return true;
	return false;
}

size_t sw__utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	if (len == 0)
		return 0;
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t n;
	uint32_t v, min;
	if ((c & 0xE0) == 0xC0) {
		n = 2, v = c & 0x1F, min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		n = 3, v = c & 0x0F, min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return n;
}

size_t sw__utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

bool sw__utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = sw__utf8_decode(p + i, len - i, &cp);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

char *sw__utf8_sanitize(const char *s, size_t len)
{
	sw_buf b = SW_BUF_INIT;
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	sw__buf_reserve(&b, len);
	while (i < len) {
		uint32_t cp;
		size_t n = sw__utf8_decode(p + i, len - i, &cp);
		if (n) {
			sw__buf_append(&b, p + i, n);
			i += n;
		} else {
			sw__buf_append(&b, "\xEF\xBF\xBD", 3);
			i++;
		}
	}
	return sw__buf_steal(&b, NULL);
}

size_t sw__utf16_len(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t units = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = p[i];
		if ((c & 0xC0) == 0x80)
			continue; /* continuation byte */
		units += (c >= 0xF0) ? 2 : 1;
	}
	return units;
}

size_t sw__utf16_prefix_bytes(const char *s, size_t len, size_t units)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, i = 0;
	while (i < len) {
		unsigned char c = p[i];
		size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
		size_t u = n == 4 ? 2 : 1;
		if (used + u > units || i + n > len)
			break;
		used += u;
		i += n;
	}
	return i;
}

size_t sw__utf16_suffix_start(const char *s, size_t len, size_t units)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, i = len;
	while (i > 0) {
		size_t j = i - 1;
		/* back to the lead byte of the character ending at i (at most 3 continuation bytes) */
		while (j > 0 && i - j < 4 && (p[j] & 0xC0) == 0x80)
			j--;
		size_t u = p[j] >= 0xF0 ? 2 : 1;
		if (used + u > units)
			break;
		used += u;
		i = j;
	}
	return i;
}

void sw__buf_cap(sw_buf *b, const char *s, size_t len, size_t max, unsigned mode)
{
	static const char marker[] = SW_CAP_MARKER;
	if (!s)
		s = "", len = 0;
	char *clean = NULL;
	if (!sw__utf8_valid(s, len)) {
		clean = sw__utf8_sanitize(s, len);
		if (!clean) {
			b->failed = true;
			return;
		}
		s = clean, len = strlen(clean);
	}
	/* Cheap exit: a UTF-16 length never exceeds the byte length. */
	if (len <= max || sw__utf16_len(s, len) <= max) {
		sw__buf_append(b, s, len);
	} else if (max == 0) {
		/* nothing fits, not even the marker */
	} else if (mode == SW_CAP_HEAD) {
		sw__buf_append(b, s, sw__utf16_prefix_bytes(s, len, max - 1));
		sw__buf_append(b, marker, sizeof(marker) - 1);
	} else if (mode == SW_CAP_TAIL) {
		size_t from = sw__utf16_suffix_start(s, len, max - 1);
		sw__buf_append(b, marker, sizeof(marker) - 1);
		sw__buf_append(b, s + from, len - from);
	} else {
		size_t keep = max - 1, head_units = keep - keep / 2;
		size_t head = sw__utf16_prefix_bytes(s, len, head_units);
		/* a surrogate pair that did not fit in the head leaves its unit to the tail */
		size_t tail_units = keep - sw__utf16_len(s, head);
		size_t from = sw__utf16_suffix_start(s + head, len - head, tail_units) + head;
		sw__buf_append(b, s, head);
		sw__buf_append(b, marker, sizeof(marker) - 1);
		sw__buf_append(b, s + from, len - from);
	}
	free(clean);
}

char *sw__utf8_cap(const char *s, size_t len, size_t max, unsigned mode)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_reserve(&b, 16);
	sw__buf_cap(&b, s, s ? len : 0, max, mode);
	return sw__buf_steal(&b, NULL);
}

char *sw__cap(const char *s, size_t max)
{
	return sw__utf8_cap(s, s ? strlen(s) : 0, max, SW_CAP_HEAD_TAIL);
}

SW_API char *sw_text_cap(const char *s, size_t len, size_t max_chars, enum sw_cap_mode mode)
{
	if (s && len == (size_t)-1)
		len = strlen(s);
	return sw__utf8_cap(s, len, max_chars, (unsigned)mode);
}

SW_API char *sw_text_capf(size_t max_chars, enum sw_cap_mode mode, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *out = sw__utf8_cap(s, (size_t)n, max_chars, (unsigned)mode);
	free(s);
	return out;
}

SW_API bool sw_text_is_valid(const char *s, size_t len)
{
	return s && sw__utf8_valid(s, len);
}

SW_API size_t sw_text_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	if (!buf || size == 0)
		return 0;
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	char *clean = sw__utf8_valid(s, (size_t)n) ? NULL : sw__utf8_sanitize(s, (size_t)n);
	const char *t = clean ? clean : s;
	size_t len = strlen(t), out;
	if (len < size) {
		memcpy(buf, t, len + 1);
		out = len;
	} else {
		static const char marker[] = SW_CAP_MARKER;
		size_t room = size - 1, keep = 0;
		if (room >= sizeof(marker) - 1) {
			keep = room - (sizeof(marker) - 1);
			while (keep > 0 && ((unsigned char)t[keep] & 0xC0) == 0x80)
				keep--; /* t[keep] is the first byte left out: back to a lead byte */
		} else {
			keep = room;
			while (keep > 0 && ((unsigned char)t[keep] & 0xC0) == 0x80)
				keep--;
		}
		memcpy(buf, t, keep);
		out = keep;
		if (room >= sizeof(marker) - 1) {
			memcpy(buf + keep, marker, sizeof(marker) - 1);
			out += sizeof(marker) - 1;
		}
		buf[out] = '\0';
	}
	free(clean);
	free(s);
	return out;
}

int sw__hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The code unit of a `\uXXXX` escape at p, or -1. */
static long escape_unit(const char *p, const char *end)
{
	if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
		return -1;
	long v = 0;
	for (int i = 2; i < 6; i++) {
		int h = sw__hex_digit(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

void sw__json_fix_lone_surrogates(char *s, size_t len)
{
	char *p = s, *end = s + len;
	bool in_string = false;
	while (p < end) {
		if (!in_string) {
			if (*p == '"')
				in_string = true;
			p++;
			continue;
		}
		if (*p == '"') {
			in_string = false;
			p++;
			continue;
		}
		if (*p != '\\') {
			p++;
			continue;
		}
		long u = escape_unit(p, end);
		if (u < 0) {
			p += (end - p >= 2) ? 2 : 1; /* other escape: skip it whole */
			continue;
		}
		if (u >= 0xD800 && u <= 0xDBFF) {
			long lo = escape_unit(p + 6, end);
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				p += 12;
				continue;
			}
		}
		if (u >= 0xD800 && u <= 0xDFFF)
			memcpy(p, "\\ufffd", 6);
		p += 6;
	}
}

SW_API void sw_json_fix_lone_surrogates(char *s, size_t len)
{
	if (s)
		sw__json_fix_lone_surrogates(s, len);
}

char *sw__fold_alnum(const char *s)
{
	sw_buf b = SW_BUF_INIT;
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
		if (isalnum(*p))
			sw__buf_putc(&b, (char)tolower(*p));
	char *r = sw__buf_steal(&b, NULL);
	return r ? r : sw__strdup("");
}
