/*
 * apk-checks.c: what the package manager checks in an APK before it accepts it (apk.c reads its package): the native ABIs (lib/<abi>/ entries),
 * the minSdkVersion of the binary manifest and the signing certificate (the first X.509 certificate of the v1
 * signature block, META-INF/<name>.RSA|DSA|EC). The vdevice refuses an install with the same `Failure [...]`
 * lines a device prints for these three reasons. Everything here reads untrusted bytes: every offset is checked.
 */
#include "vdevice.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint16_t u16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The bytes of an entry (stored or deflated, at most @cap inflated), or NULL. (transfer full) */
static unsigned char *entry_data(const unsigned char *z, size_t len, uint32_t loc, uint16_t method, uint32_t csize,
                                 uint32_t usize, size_t cap, size_t *out_len)
{
	if ((size_t)loc + 30 > len || u32(z + loc) != 0x04034b50 || usize > cap)
		return NULL;
	size_t data = (size_t)loc + 30 + u16(z + loc + 26) + u16(z + loc + 28);
	if (data > len || csize > len - data)
		return NULL;
	unsigned char *out = malloc(usize ? usize : 1);
	if (!out)
		return NULL;
	if (method == 0) {
		if (csize != usize) {
			free(out);
			return NULL;
		}
		memcpy(out, z + data, usize);
	} else if (method == 8) {
		z_stream s = {0};
		if (inflateInit2(&s, -MAX_WBITS) != Z_OK) {
			free(out);
			return NULL;
		}
		s.next_in = (Bytef *)(z + data);
		s.avail_in = csize;
		s.next_out = out;
		s.avail_out = usize;
		int r = inflate(&s, Z_FINISH);
		inflateEnd(&s);
		if (r != Z_STREAM_END || s.total_out != usize) {
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

/* String @i of an AXML string pool chunk at @sp (ASCII copy into @buf), or false. */
static bool pool_string(const unsigned char *x, size_t len, size_t sp, uint32_t i, char *buf, size_t cap)
{
	if (sp + 28 > len)
		return false;
	uint32_t count = u32(x + sp + 8), flags = u32(x + sp + 16), strings = u32(x + sp + 20);
	if (i >= count || sp + 28 + 4 * (size_t)i + 4 > len)
		return false;
	size_t at = sp + strings + u32(x + sp + 28 + 4 * i);
	size_t n = 0;
	if (flags & 0x100) { /* UTF-8: utf16 length, utf8 length, bytes */
		if (at + 2 > len)
			return false;
		at += (x[at] & 0x80) ? 2 : 1;
		if (at + 2 > len)
			return false;
		size_t bl = x[at];
		if (bl & 0x80) {
			bl = (bl & 0x7f) << 8 | x[at + 1];
			at += 2;
		} else {
			at += 1;
		}
		for (; n < bl && n + 1 < cap && at + n < len; n++)
			buf[n] = (char)x[at + n];
	} else { /* UTF-16LE: length in units, then units */
		if (at + 2 > len)
			return false;
		size_t ul = u16(x + at);
		at += 2;
		if (ul & 0x8000) {
			if (at + 2 > len)
				return false;
			ul = (ul & 0x7fff) << 16 | u16(x + at);
			at += 2;
		}
		for (; n < ul && n + 1 < cap && at + 2 * n + 1 < len; n++) {
			uint16_t c = u16(x + at + 2 * n);
			buf[n] = c < 0x80 ? (char)c : '?';
		}
	}
	buf[n] = '\0';
	return true;
}

/* minSdkVersion (0x0101020c) of <uses-sdk>: a number, or a preview codename. */
static void manifest_min_sdk(const unsigned char *x, size_t len, struct vd_apk_info *out)
{
	if (len < 8 || u16(x) != 0x0003)
		return;
	size_t sp = 0, rm = 0, rm_n = 0;
	for (size_t at = u16(x + 2); at + 8 <= len;) {
		uint16_t type = u16(x + at), hsize = u16(x + at + 2);
		uint32_t size = u32(x + at + 4);
		if (size < 8 || size > len - at)
			return;
		if (type == 0x0001)
			sp = at;
		else if (type == 0x0180) {
			rm = at + hsize;
			rm_n = (size - hsize) / 4;
		} else if (type == 0x0102 && at + 36 <= len) {
			size_t ext = at + hsize;
			uint16_t astart = u16(x + ext + 8), asize = u16(x + ext + 10), acount = u16(x + ext + 12);
			for (uint16_t k = 0; k < acount; k++) {
				size_t a = ext + astart + (size_t)k * asize;
				if (asize < 20 || a + 20 > at + size)
					break;
				uint32_t name = u32(x + a + 4), raw = u32(x + a + 8), data = u32(x + a + 16);
				uint8_t dtype = x[a + 15];
				if (name >= rm_n || rm + 4 * (size_t)name + 4 > len || u32(x + rm + 4 * name) != 0x0101020c)
					continue;
				if (dtype >= 0x10 && dtype <= 0x1f)
					out->min_sdk = (long)(int32_t)data;
				else if (sp && pool_string(x, len, sp, dtype == 0x03 ? data : raw, out->min_sdk_code,
				                           sizeof(out->min_sdk_code))) {
					char *end = NULL;
					long v = strtol(out->min_sdk_code, &end, 10);
					if (end != out->min_sdk_code && !*end) {
						out->min_sdk = v;
						out->min_sdk_code[0] = '\0';
					}
				}
			}
		}
		at += size;
	}
}

/* DER: the header of the element at @p (tag, content offset and length); false when malformed. */
static bool der(const unsigned char *b, size_t len, size_t p, unsigned char *tag, size_t *content, size_t *clen)
{
	if (p + 2 > len)
		return false;
	*tag = b[p];
	size_t l = b[p + 1], at = p + 2;
	if (l & 0x80) {
		size_t n = l & 0x7f;
		if (n == 0 || n > 3 || at + n > len)
			return false;
		l = 0;
		for (size_t i = 0; i < n; i++)
			l = l << 8 | b[at + i];
		at += n;
	}
	if (l > len - at)
		return false;
	*content = at;
	*clen = l;
	return true;
}

/* CRC-32 of the first certificate of a PKCS#7 SignedData blob (the v1 signature file). */
static bool first_cert_crc(const unsigned char *b, size_t len, uint32_t *crc)
{
	unsigned char t;
	size_t c, l;
	/* ContentInfo SEQUENCE { OID, [0] { SignedData SEQUENCE { version, digestAlgorithms, contentInfo, [0] certs } } } */
	if (!der(b, len, 0, &t, &c, &l) || t != 0x30)
		return false;
	size_t p = c;
	if (!der(b, len, p, &t, &c, &l) || t != 0x06)
		return false;
	p = c + l;
	if (!der(b, len, p, &t, &c, &l) || t != 0xa0)
		return false;
	if (!der(b, len, c, &t, &c, &l) || t != 0x30)
		return false;
	p = c;
	for (int skip = 0; skip < 3; skip++) {
		if (!der(b, len, p, &t, &c, &l))
			return false;
		p = c + l;
	}
	if (!der(b, len, p, &t, &c, &l) || t != 0xa0)
		return false;
	size_t cert = c;
	if (!der(b, len, cert, &t, &c, &l) || t != 0x30)
		return false;
	*crc = (uint32_t)crc32(0L, b + cert, (uInt)(c + l - cert));
	return true;
}

static bool has_suffix(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

bool vd_apk_read(const char *data, size_t len, struct vd_apk_info *out)
{
	memset(out, 0, sizeof(*out));
	out->min_sdk = -1;
	const unsigned char *z = (const unsigned char *)data;
	if (len < 22 || u32(z) != 0x04034b50)
		return false;
	size_t eocd = 0;
	bool found = false;
	for (size_t back = 22; back <= len && back <= 22 + 65535; back++)
		if (u32(z + len - back) == 0x06054b50) {
			eocd = len - back;
			found = true;
			break;
		}
	if (!found)
		return false;
	uint16_t entries = u16(z + eocd + 10);
	size_t cd = u32(z + eocd + 16);
	out->zip = true;
	for (uint16_t i = 0; i < entries; i++) {
		if (cd + 46 > len || u32(z + cd) != 0x02014b50)
			break;
		uint16_t method = u16(z + cd + 10), nlen = u16(z + cd + 28);
		uint32_t csize = u32(z + cd + 20), usize = u32(z + cd + 24), loc = u32(z + cd + 42);
		if (cd + 46 + nlen > len)
			break;
		const char *name = (const char *)z + cd + 46;
		if (nlen > 4 && memcmp(name, "lib/", 4) == 0) {
			const char *slash = memchr(name + 4, '/', nlen - 4);
			size_t al = slash ? (size_t)(slash - name - 4) : 0;
			bool seen = al == 0 || al >= sizeof(out->abis[0]);
			for (int k = 0; !seen && k < out->n_abis; k++)
				seen = strlen(out->abis[k]) == al && memcmp(out->abis[k], name + 4, al) == 0;
			if (!seen && out->n_abis < (int)VD_ARRAY_SIZE(out->abis)) {
				memcpy(out->abis[out->n_abis], name + 4, al);
				out->abis[out->n_abis++][al] = '\0';
			}
		} else if (nlen == 19 && memcmp(name, "AndroidManifest.xml", 19) == 0) {
			size_t ml = 0;
			unsigned char *m = entry_data(z, len, loc, method, csize, usize, 8u << 20, &ml);
			if (m)
				manifest_min_sdk(m, ml, out);
			free(m);
		} else if (!out->has_cert && nlen > 9 && memcmp(name, "META-INF/", 9) == 0 &&
		           (has_suffix(name, nlen, ".RSA") || has_suffix(name, nlen, ".DSA") ||
		            has_suffix(name, nlen, ".EC"))) {
			size_t sl = 0;
			unsigned char *sig = entry_data(z, len, loc, method, csize, usize, 1u << 20, &sl);
			if (sig)
				out->has_cert = first_cert_crc(sig, sl, &out->cert_crc);
			free(sig);
		}
		cd += 46 + nlen + u16(z + cd + 30) + u16(z + cd + 32);
	}
	return true;
}
