/*
 * apk.c: the package an installed APK declares: the zip's central directory, its AndroidManifest.xml (stored
 * or deflated) and the binary XML's <manifest package="...">. Bounded reads everywhere; anything that does not
 * parse gives NULL, and the install then falls back to the model's own package.
 */
#include "vdevice.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_MANIFEST (4u * 1024 * 1024)

static uint16_t u16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The bytes of AndroidManifest.xml (malloc'd), or NULL. */
static unsigned char *manifest_bytes(const unsigned char *z, size_t len, size_t *out_len)
{
	if (len < 22)
		return NULL;
	size_t eocd = 0;
	bool found = false;
	for (size_t i = len - 22 + 1; i-- > 0 && len - i < 22 + 65536;)
		if (u32(z + i) == 0x06054b50) {
			eocd = i;
			found = true;
			break;
		}
	if (!found)
		return NULL;
	size_t n = u16(z + eocd + 10), cd = u32(z + eocd + 16);
	for (size_t k = 0; k < n; k++) {
		if (cd + 46 > len || u32(z + cd) != 0x02014b50)
			return NULL;
		unsigned method = u16(z + cd + 10);
		size_t csize = u32(z + cd + 20), usize = u32(z + cd + 24);
		size_t nlen = u16(z + cd + 28), xlen = u16(z + cd + 30), clen = u16(z + cd + 32);
		size_t lho = u32(z + cd + 42);
		if (cd + 46 + nlen > len)
			return NULL;
		bool is_manifest = nlen == 19 && memcmp(z + cd + 46, "AndroidManifest.xml", 19) == 0;
		cd += 46 + nlen + xlen + clen;
		if (!is_manifest)
			continue;
		if (lho + 30 > len || u32(z + lho) != 0x04034b50 || usize > MAX_MANIFEST)
			return NULL;
		size_t data = lho + 30 + u16(z + lho + 26) + u16(z + lho + 28);
		if (data > len || csize > len - data)
			return NULL;
		unsigned char *out = malloc(usize ? usize : 1);
		if (!out)
			return NULL;
		if (method == 0 && csize == usize) {
			memcpy(out, z + data, usize);
		} else if (method == 8) {
			z_stream s = {0};
			if (inflateInit2(&s, -15) != Z_OK) {
				free(out);
				return NULL;
			}
			s.next_in = (unsigned char *)(z + data);
			s.avail_in = (uInt)csize;
			s.next_out = out;
			s.avail_out = (uInt)usize;
			int rc = inflate(&s, Z_FINISH);
			inflateEnd(&s);
			if (rc != Z_STREAM_END || s.total_out != usize) {
				free(out);
				return NULL;
			}
		} else {
			free(out);
			return NULL;
		}
		*out_len = usize;
		return out;
	}
	return NULL;
}

/* String @i of the pool chunk at @pool (ASCII only; anything else gives NULL). */
static char *pool_string(const unsigned char *x, size_t len, size_t pool, uint32_t i)
{
	if (pool + 28 > len)
		return NULL;
	uint32_t count = u32(x + pool + 8), flags = u32(x + pool + 16), start = u32(x + pool + 20);
	size_t hsize = u16(x + pool + 2);
	if (i >= count || pool + hsize + 4 * (size_t)i + 4 > len)
		return NULL;
	size_t at = pool + start + u32(x + pool + hsize + 4 * (size_t)i);
	if (at + 4 > len)
		return NULL;
	size_t n;
	char buf[256];
	if (flags & 0x100) { /* UTF-8: char count, byte count, bytes */
		at += (x[at] & 0x80) ? 2 : 1;
		if (at + 2 > len)
			return NULL;
		n = x[at] & 0x80 ? (size_t)((x[at] & 0x7f) << 8 | x[at + 1]) : x[at];
		at += (x[at] & 0x80) ? 2 : 1;
		if (n >= sizeof(buf) || at + n > len)
			return NULL;
		memcpy(buf, x + at, n);
	} else {
		n = u16(x + at);
		at += 2;
		if (n >= sizeof(buf) || at + 2 * n > len)
			return NULL;
		for (size_t k = 0; k < n; k++) {
			uint16_t c = u16(x + at + 2 * k);
			if (c >= 0x80)
				return NULL;
			buf[k] = (char)c;
		}
	}
	buf[n] = '\0';
	return vd_strdup(buf);
}

/* <manifest package="..."> of a binary AndroidManifest.xml, or NULL. */
static char *axml_package(const unsigned char *x, size_t len)
{
	if (len < 8 || u16(x) != 0x0003)
		return NULL;
	size_t pool = 0, at = u16(x + 2);
	bool have_pool = false;
	while (at + 8 <= len) {
		uint16_t type = u16(x + at);
		size_t size = u32(x + at + 4);
		if (size < 8 || size > len - at)
			return NULL;
		if (type == 0x0001 && !have_pool) {
			pool = at;
			have_pool = true;
		} else if (type == 0x0102 && have_pool && size >= 36) {
			/* the first start element: it must be <manifest> */
			char *name = pool_string(x, len, pool, u32(x + at + 20));
			bool manifest = name && strcmp(name, "manifest") == 0;
			free(name);
			if (!manifest)
				return NULL;
			size_t astart = u16(x + at + 24), asize = u16(x + at + 26), acount = u16(x + at + 28);
			for (size_t k = 0; k < acount; k++) {
				size_t a = at + 16 + astart + k * asize;
				if (asize < 20 || a + 20 > at + size)
					return NULL;
				char *an = pool_string(x, len, pool, u32(x + a + 4));
				bool pkg = an && strcmp(an, "package") == 0;
				free(an);
				if (pkg && x[a + 15] == 0x03) /* a string value */
					return pool_string(x, len, pool, u32(x + a + 16));
			}
			return NULL;
		}
		at += size;
	}
	return NULL;
}

char *vd_apk_package(const char *data, size_t len)
{
	size_t mlen = 0;
	unsigned char *m = manifest_bytes((const unsigned char *)data, len, &mlen);
	if (!m)
		return NULL;
	char *pkg = axml_package(m, mlen);
	free(m);
	if (!pkg)
		return NULL;
	for (const char *p = pkg; *p; p++)
		if (!(*p == '.' || *p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9'))) {
			free(pkg);
			return NULL;
		}
	return pkg;
}
