/* axml.c: Android's binary XML (AndroidManifest.xml) and resource table (resources.arsc), read within bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts-internal.h"

/* Chunk types (frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h). */
enum {
	CT_STRING_POOL = 0x0001,
	CT_TABLE = 0x0002,
	CT_XML = 0x0003,
	CT_XML_START_ELEMENT = 0x0102,
	CT_XML_END_ELEMENT = 0x0103,
	CT_XML_RESOURCE_MAP = 0x0180,
	CT_TABLE_PACKAGE = 0x0200,
	CT_TABLE_TYPE = 0x0201,
};

#define POOL_UTF8 0x100u
#define NO_INDEX 0xffffffffu
#define ATTR_VERSION_CODE 0x0101021bu
#define ATTR_VERSION_NAME 0x0101021cu
#define ATTR_MIN_SDK 0x0101020cu
#define MAX_DEPTH 256

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int fail(char *why, size_t whylen, const char *msg)
{
	if (why && whylen)
		sw_text_snprintf(why, whylen, "%s", msg);
	return -1;
}

/* A chunk header checked against the bytes that hold it: [off, off+size) within [0, len). */
typedef struct chunk {
	uint16_t type;
	uint16_t hsize;
	uint32_t size;
} chunk;

static bool chunk_at(const uint8_t *b, size_t len, size_t off, chunk *c)
{
	if (off > len || len - off < 8)
		return false;
	c->type = rd16(b + off);
	c->hsize = rd16(b + off + 2);
	c->size = rd32(b + off + 4);
	return c->hsize >= 8 && c->size >= c->hsize && c->size <= len - off;
}

/* ---- string pools ----------------------------------------------------------------------------- */

typedef struct pool {
	const uint8_t *base; /* the chunk */
	size_t size;         /* chunk size */
	uint32_t count;
	bool utf8;
	const uint8_t *offsets; /* count * 4 bytes */
	size_t strings;         /* offset of the string data within the chunk */
} pool;

static bool pool_init(pool *p, const uint8_t *b, size_t size, uint16_t hsize)
{
	memset(p, 0, sizeof(*p));
	if (hsize < 28 || size < 28)
		return false;
	uint32_t count = rd32(b + 8);
	uint32_t flags = rd32(b + 16);
	uint32_t strings_start = rd32(b + 20);
	if (count > (size - hsize) / 4)
		return false;
	if (strings_start > size)
		return false;
	p->base = b;
	p->size = size;
	p->count = count;
	p->utf8 = (flags & POOL_UTF8) != 0;
	p->offsets = b + hsize;
	p->strings = strings_start;
	return true;
}

static void put_cp(sw_buf *out, uint32_t cp)
{
	char enc[4];
	size_t n = sw__utf8_encode(cp, enc);
	sw__buf_append(out, enc, n);
}

/* String @idx of @p as new UTF-8 text (invalid sequences become U+FFFD), or NULL. */
static char *pool_string(const pool *p, uint32_t idx)
{
	if (!p->base || idx >= p->count)
		return NULL;
	uint32_t off = rd32(p->offsets + (size_t)idx * 4);
	if (off > p->size - p->strings)
		return NULL;
	const uint8_t *s = p->base + p->strings + off;
	size_t avail = p->size - p->strings - off;
	sw_buf out = SW_BUF_INIT;
	if (p->utf8) {
		/* u16 length (1 or 2 bytes), then the UTF-8 byte length (1 or 2 bytes), then the bytes */
		size_t pos = 0;
		for (int k = 0; k < 2; k++) {
			if (pos >= avail)
				return NULL;
			size_t n = s[pos++];
			if (n & 0x80) {
				if (pos >= avail)
					return NULL;
				n = ((n & 0x7f) << 8) | s[pos++];
			}
			if (k == 1) {
				if (n > avail - pos)
					return NULL;
				char *t = sw__utf8_sanitize((const char *)s + pos, n);
				return t;
			}
		}
		return NULL;
	}
	/* UTF-16LE: u16 length (or two when the high bit is set), then the code units */
	if (avail < 2)
		return NULL;
	size_t pos = 2;
	size_t n = rd16(s);
	if (n & 0x8000) {
		if (avail < 4)
			return NULL;
		n = ((n & 0x7fff) << 16) | rd16(s + 2);
		pos = 4;
	}
	if (n > (avail - pos) / 2)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint32_t u = rd16(s + pos + i * 2);
		if (u >= 0xd800 && u <= 0xdbff && i + 1 < n) {
			uint32_t lo = rd16(s + pos + (i + 1) * 2);
			if (lo >= 0xdc00 && lo <= 0xdfff) {
				put_cp(&out, 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00));
				i++;
				continue;
			}
		}
		if (u >= 0xd800 && u <= 0xdfff)
			u = 0xfffd;
		put_cp(&out, u);
	}
	if (out.failed) {
		sw__buf_free(&out);
		return NULL;
	}
	char *r = sw__buf_steal(&out, NULL);
	return r ? r : sw__strdup("");
}

static bool pool_equals(const pool *p, uint32_t idx, const char *want)
{
	char *s = pool_string(p, idx);
	bool eq = s && !strcmp(s, want);
	free(s);
	return eq;
}

/* ---- AndroidManifest.xml ---------------------------------------------------------------------- */

void sw__axml_manifest_clear(sw__axml_manifest *m)
{
	if (!m)
		return;
	free(m->package.str);
	free(m->version_code.str);
	free(m->version_name.str);
	free(m->min_sdk.str);
	memset(m, 0, sizeof(*m));
}

static bool is_ref(const sw__axml_value *v)
{
	return v->present && v->type == SW__RV_REFERENCE;
}

bool sw__axml_manifest_has_refs(const sw__axml_manifest *m)
{
	return is_ref(&m->version_code) || is_ref(&m->version_name) || is_ref(&m->min_sdk);
}

static void take_value(sw__axml_value *v, const pool *strs, const uint8_t *a)
{
	uint32_t raw = rd32(a + 8);
	uint8_t type = a[15];
	uint32_t data = rd32(a + 16);
	free(v->str);
	v->present = true;
	v->type = type;
	v->data = data;
	v->str = NULL;
	if (type == SW__RV_STRING)
		v->str = pool_string(strs, data);
	if (!v->str && raw != NO_INDEX)
		v->str = pool_string(strs, raw);
}

int sw__axml_parse_manifest(const uint8_t *xml, size_t len, sw__axml_manifest *out, char *why, size_t whylen)
{
	memset(out, 0, sizeof(*out));
	chunk top;
	if (!xml || !chunk_at(xml, len, 0, &top) || top.type != CT_XML)
		return fail(why, whylen, "AndroidManifest.xml is not Android binary XML");
	pool strs = {0};
	const uint8_t *resmap = NULL;
	size_t resmap_n = 0;
	int depth = 0;
	bool in_manifest = false, seen_manifest = false;
	size_t off = top.hsize;
	size_t end = top.size;
	while (off < end) {
		chunk c;
		if (!chunk_at(xml, end, off, &c))
			return fail(why, whylen, "AndroidManifest.xml has a truncated or malformed chunk");
		const uint8_t *b = xml + off;
		switch (c.type) {
		case CT_STRING_POOL:
			if (!strs.base && !pool_init(&strs, b, c.size, c.hsize))
				return fail(why, whylen, "AndroidManifest.xml has a malformed string pool");
			break;
		case CT_XML_RESOURCE_MAP:
			if (!resmap) {
				resmap = b + c.hsize;
				resmap_n = (c.size - c.hsize) / 4;
			}
			break;
		case CT_XML_START_ELEMENT: {
			if (++depth > MAX_DEPTH)
				return fail(why, whylen, "AndroidManifest.xml nests elements too deeply");
			/* node header (16) then ResXMLTree_attrExt (20) */
			if (c.hsize < 16 || c.size - c.hsize < 20)
				return fail(why, whylen, "AndroidManifest.xml has a malformed element");
			const uint8_t *ext = b + c.hsize;
			size_t ext_room = c.size - c.hsize;
			uint32_t name = rd32(ext + 4);
			uint16_t astart = rd16(ext + 8), asize = rd16(ext + 10), acount = rd16(ext + 12);
			bool want_manifest = depth == 1 && !seen_manifest && pool_equals(&strs, name, "manifest");
			bool want_sdk =
			    depth == 2 && in_manifest && !out->has_uses_sdk && pool_equals(&strs, name, "uses-sdk");
			if (depth == 1)
				in_manifest = want_manifest;
			if (!want_manifest && !want_sdk)
				break;
			if (want_manifest)
				seen_manifest = true;
			else
				out->has_uses_sdk = true;
			if (acount && (asize < 20 || astart > ext_room || (size_t)acount * asize > ext_room - astart))
				return fail(why, whylen, "AndroidManifest.xml has attributes outside their element");
			for (uint16_t i = 0; i < acount; i++) {
				const uint8_t *a = ext + astart + (size_t)i * asize;
				uint32_t ans = rd32(a), aname = rd32(a + 4);
				uint32_t resid = (resmap && aname < resmap_n) ? rd32(resmap + (size_t)aname * 4) : 0;
				if (want_manifest) {
					if (resid == ATTR_VERSION_CODE)
						take_value(&out->version_code, &strs, a);
					else if (resid == ATTR_VERSION_NAME)
						take_value(&out->version_name, &strs, a);
					else if (!resid && ans == NO_INDEX && pool_equals(&strs, aname, "package"))
						take_value(&out->package, &strs, a);
				} else if (resid == ATTR_MIN_SDK) {
					take_value(&out->min_sdk, &strs, a);
				}
			}
			break;
		}
		case CT_XML_END_ELEMENT:
			if (depth > 0)
				depth--;
			if (depth == 0)
				in_manifest = false;
			break;
		default: break;
		}
		off += c.size;
	}
	if (!seen_manifest)
		return fail(why, whylen, "AndroidManifest.xml has no <manifest> element");
	return 0;
}

/* ---- resources.arsc --------------------------------------------------------------------------- */

static bool config_is_default(const uint8_t *cfg, size_t room)
{
	if (room < 4)
		return false;
	uint32_t sz = rd32(cfg);
	if (sz < 4 || sz > room)
		return false;
	for (size_t i = 4; i < sz; i++)
		if (cfg[i])
			return false;
	return true;
}

/* The value of entry @ei in the type chunk @t (size @size, header @hsize); false when absent or complex. */
static bool type_entry(const uint8_t *t, size_t size, uint16_t hsize, uint32_t ei, uint8_t *type, uint32_t *data)
{
	if (hsize < 20)
		return false;
	uint8_t flags = t[9];
	uint32_t count = rd32(t + 12);
	uint32_t start = rd32(t + 16);
	if (start > size)
		return false;
	size_t idx_room = size - hsize;
	uint32_t eoff = NO_INDEX;
	if (flags & 0x01) { /* sparse: sorted {u16 index, u16 offset/4} */
		if (count > idx_room / 4)
			return false;
		for (uint32_t i = 0; i < count; i++) {
			const uint8_t *e = t + hsize + (size_t)i * 4;
			if (rd16(e) == ei) {
				eoff = (uint32_t)rd16(e + 2) * 4;
				break;
			}
		}
	} else if (flags & 0x02) { /* 16-bit offsets (offset/4), 0xffff for none */
		if (ei >= count || (size_t)count > idx_room / 2)
			return false;
		uint16_t o = rd16(t + hsize + (size_t)ei * 2);
		if (o != 0xffff)
			eoff = (uint32_t)o * 4;
	} else {
		if (ei >= count || (size_t)count > idx_room / 4)
			return false;
		eoff = rd32(t + hsize + (size_t)ei * 4);
	}
	if (eoff == NO_INDEX || eoff > size - start || size - start - eoff < 8)
		return false;
	const uint8_t *e = t + start + eoff;
	uint16_t esize = rd16(e), eflags = rd16(e + 2);
	if (eflags & 0x0008) { /* compact entry: {u16 key, u16 flags (type in the high byte), u32 data} */
		*type = (uint8_t)(eflags >> 8);
		*data = rd32(e + 4);
		return true;
	}
	if (eflags & 0x0001) /* a bag (style, array...), not a single value */
		return false;
	size_t room = size - start - eoff;
	if (esize < 8 || esize > room || room - esize < 8)
		return false;
	*type = e[esize + 3];
	*data = rd32(e + esize + 4);
	return true;
}

/* Looks @resid up in the table: false when no package/type/entry holds it. */
static bool table_lookup(const uint8_t *arsc, size_t len, uint32_t resid, uint8_t *type, uint32_t *data)
{
	chunk top;
	if (!chunk_at(arsc, len, 0, &top) || top.type != CT_TABLE || top.hsize < 12)
		return false;
	uint32_t pkg_id = resid >> 24, type_id = (resid >> 16) & 0xff, ei = resid & 0xffff;
	bool found_other = false;
	uint8_t other_type = 0;
	uint32_t other_data = 0;
	for (size_t off = top.hsize; off < top.size;) {
		chunk c;
		if (!chunk_at(arsc, top.size, off, &c))
			return false;
		if (c.type == CT_TABLE_PACKAGE && c.hsize >= 12 && rd32(arsc + off + 8) == pkg_id) {
			const uint8_t *p = arsc + off;
			for (size_t po = c.hsize; po < c.size;) {
				chunk t;
				if (!chunk_at(p, c.size, po, &t))
					break;
				if (t.type == CT_TABLE_TYPE && t.hsize >= 20 && p[po + 8] == type_id) {
					uint8_t ty;
					uint32_t da;
					if (type_entry(p + po, t.size, t.hsize, ei, &ty, &da)) {
						if (config_is_default(p + po + 20, t.hsize - 20)) {
							*type = ty;
							*data = da;
							return true;
						}
						if (!found_other) {
							found_other = true;
							other_type = ty;
							other_data = da;
						}
					}
				}
				po += t.size;
			}
		}
		off += c.size;
	}
	if (found_other) {
		*type = other_type;
		*data = other_data;
	}
	return found_other;
}

static bool table_pool(const uint8_t *arsc, size_t len, pool *out)
{
	chunk top;
	if (!chunk_at(arsc, len, 0, &top) || top.type != CT_TABLE || top.hsize < 12)
		return false;
	for (size_t off = top.hsize; off < top.size;) {
		chunk c;
		if (!chunk_at(arsc, top.size, off, &c))
			return false;
		if (c.type == CT_STRING_POOL)
			return pool_init(out, arsc + off, c.size, c.hsize);
		off += c.size;
	}
	return false;
}

int sw__arsc_resolve(const uint8_t *arsc, size_t len, sw__axml_value *v, char *why, size_t whylen)
{
	if (!v->present || v->type != SW__RV_REFERENCE)
		return 0;
	if (!arsc)
		return fail(why, whylen, "the value is a resource reference and the APK has no resources.arsc");
	uint8_t type = v->type;
	uint32_t data = v->data;
	for (int hop = 0; type == SW__RV_REFERENCE; hop++) {
		if (hop >= 8)
			return fail(why, whylen, "the resource reference loops or chains too deep");
		if (!table_lookup(arsc, len, data, &type, &data)) {
			char msg[96];
			sw_text_snprintf(msg, sizeof(msg), "resource 0x%08x is not in resources.arsc", (unsigned)data);
			return fail(why, whylen, msg);
		}
	}
	char *str = NULL;
	if (type == SW__RV_STRING) {
		pool p;
		if (!table_pool(arsc, len, &p) || !(str = pool_string(&p, data)))
			return fail(why, whylen, "resources.arsc has no readable string pool entry for the value");
	}
	free(v->str);
	v->type = type;
	v->data = data;
	v->str = str;
	return 0;
}
