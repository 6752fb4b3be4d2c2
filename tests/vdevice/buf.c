/* buf.c: growable byte buffer, string helpers and the stderr log of the virtual device. */
#include "vdevice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool vd_verbose;

void vd_buf_free(struct vd_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}

void vd_buf_reset(struct vd_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static bool reserve(struct vd_buf *b, size_t extra)
{
	if (b->failed)
		return false;
	if (extra > SIZE_MAX / 2 - b->len)
		goto fail;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *p = realloc(b->data, cap);
	if (!p)
		goto fail;
	b->data = p;
	b->cap = cap;
	return true;
fail:
	b->failed = true;
	return false;
}

bool vd_buf_append(struct vd_buf *b, const void *data, size_t n)
{
	if (!reserve(b, n))
		return false;
	if (n)
		memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
	return true;
}

bool vd_buf_puts(struct vd_buf *b, const char *s)
{
	return vd_buf_append(b, s, strlen(s));
}

bool vd_buf_vprintf(struct vd_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || !reserve(b, (size_t)n))
		return false;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return true;
}

bool vd_buf_printf(struct vd_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool ok = vd_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return ok;
}

void vd_buf_consume(struct vd_buf *b, size_t n)
{
	if (n >= b->len) {
		vd_buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

bool vd_buf_xml(struct vd_buf *b, const char *s)
{
	bool ok = true;
	for (; s && *s && ok; s++) {
		switch (*s) {
		case '&': ok = vd_buf_puts(b, "&amp;"); break;
		case '<': ok = vd_buf_puts(b, "&lt;"); break;
		case '>': ok = vd_buf_puts(b, "&gt;"); break;
		case '"': ok = vd_buf_puts(b, "&quot;"); break;
		case '\'': ok = vd_buf_puts(b, "&apos;"); break;
		case '\n': ok = vd_buf_puts(b, "&#10;"); break;
		default: ok = vd_buf_append(b, s, 1);
		}
	}
	return ok;
}

char *vd_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *vd_strndup(const char *s, size_t n)
{
	return strndup(s, n);
}

char *vd_strdup_printf(const char *fmt, ...)
{
	struct vd_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	bool ok = vd_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!ok || !b.data) {
		vd_buf_free(&b);
		return ok ? strdup("") : NULL;
	}
	return b.data;
}

void vd_log(const char *fmt, ...)
{
	if (!vd_verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("vdevice: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
