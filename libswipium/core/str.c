/* str.c: string and UTF-8 helpers (JavaScript-compatible length rules included). */
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
