/* buf.c: a growable, always NUL-terminated byte buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"

bool sw__buf_reserve(sw_buf *b, size_t extra)
{
	if (b->failed)
		return false;
	if (extra > SIZE_MAX - b->len - 1) {
		b->failed = true;
		return false;
	}
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	char *p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void sw__buf_append(sw_buf *b, const void *data, size_t len)
{
	if (!sw__buf_reserve(b, len))
		return;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void sw__buf_puts(sw_buf *b, const char *s)
{
	sw__buf_append(b, s, strlen(s));
}

void sw__buf_putc(sw_buf *b, char c)
{
	sw__buf_append(b, &c, 1);
}

void sw__buf_printf(sw_buf *b, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sw__buf_reserve(b, (size_t)n)) {
		if (n < 0)
			b->failed = true;
		va_end(ap2);
		return;
	}
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	b->len += (size_t)n;
}

char *sw__buf_steal(sw_buf *b, size_t *len_out)
{
	if (b->failed) {
		sw__buf_free(b);
		return NULL;
	}
	if (!b->data && !sw__buf_reserve(b, 0))
		return NULL;
	if (!b->data)
		return NULL;
	b->data[b->len] = '\0';
	char *d = b->data;
	if (len_out)
		*len_out = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return d;
}

void sw__buf_free(sw_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}
