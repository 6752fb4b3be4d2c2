/* apkfacts.c: the release facts of an APK's binary AndroidManifest.xml that store_compliance needs and the
 * artifact reader does not give: targetSdkVersion, application debuggable, requested permissions. Bounded:
 * the manifest is read up to 8 MiB inflated, every offset is checked against the chunk it is in. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "audit-internal.h"

#define MAX_MANIFEST ((zip_uint64_t)8 << 20)
#define MAX_PERMISSIONS 500

/* android: attribute resource ids (public.xml of the framework) */
#define ATTR_NAME 0x01010003u
#define ATTR_DEBUGGABLE 0x0101000fu
#define ATTR_TARGET_SDK 0x01010270u
#define ATTR_MIN_SDK 0x0101020cu

#define T_REFERENCE 0x01
#define T_STRING 0x03
#define T_INT_DEC 0x10
#define T_INT_HEX 0x11
#define T_BOOLEAN 0x12

static uint16_t u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct pool {
	const uint8_t *base; /* the chunk */
	size_t size;
	uint32_t count;
	uint32_t strings_start;
	bool utf8;
	const uint8_t *offsets;
} pool;

/* String @i of the pool as UTF-8 (transfer full), NULL when out of range or malformed. */
static char *pool_string(const pool *p, uint32_t i)
{
	if (!p->base || i >= p->count)
		return NULL;
	size_t off = (size_t)p->strings_start + u32(p->offsets + 4 * (size_t)i);
	if (off >= p->size)
		return NULL;
	const uint8_t *s = p->base + off;
	size_t left = p->size - off;
	if (p->utf8) {
		size_t k = (left > 0 && (s[0] & 0x80)) ? 2 : 1; /* UTF-16 length, skipped */
		if (left < k + 1)
			return NULL;
		size_t n = s[k];
		size_t h = k + 1;
		if (n & 0x80) {
			if (left < k + 2)
				return NULL;
			n = (n & 0x7f) << 8 | s[k + 1];
			h = k + 2;
		}
		if (left < h + n)
			return NULL;
		return sw__utf8_sanitize((const char *)s + h, n);
	}
	if (left < 2)
		return NULL;
	size_t n = u16(s), h = 2;
	if (n & 0x8000) {
		if (left < 4)
			return NULL;
		n = (n & 0x7fff) << 16 | u16(s + 2);
		h = 4;
	}
	if (n > (left - h) / 2)
		return NULL;
	sw_buf b = SW_BUF_INIT;
	for (size_t j = 0; j < n; j++) {
		uint32_t cp = u16(s + h + 2 * j);
		if (cp >= 0xd800 && cp < 0xdc00 && j + 1 < n) {
			uint32_t lo = u16(s + h + 2 * (j + 1));
			if (lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				j++;
			}
		}
		if (cp >= 0xd800 && cp < 0xe000)
			cp = 0xfffd;
		char enc[4];
		size_t el = sw__utf8_encode(cp, enc);
		sw__buf_append(&b, enc, el);
	}
	char *out = sw__buf_steal(&b, NULL);
	return out ? out : sw__strdup("");
}

/* Whether attribute @a (20 bytes) is the framework attribute @id: through the resource map, else its name. */
static bool attr_is(const uint8_t *a, const uint8_t *resmap, uint32_t nres, const pool *p, uint32_t id,
                    const char *name)
{
	uint32_t ni = u32(a + 4);
	if (resmap && ni < nres)
		return u32(resmap + 4 * (size_t)ni) == id;
	char *s = pool_string(p, ni);
	bool eq = s && !strcmp(s, name);
	free(s);
	return eq;
}

/* Walks the binary XML: fills @facts {targetSdk, debuggable, permissions[], warnings[]}. */
static void walk(const uint8_t *x, size_t len, json_t *facts, long *min_sdk)
{
	json_t *warnings = json_object_get(facts, "warnings");
	if (len < 8 || u16(x) != 0x0003) {
		json_array_append_new(warnings, json_string("AndroidManifest.xml is not a binary XML document"));
		return;
	}
	pool p = {0};
	const uint8_t *resmap = NULL;
	uint32_t nres = 0;
	json_t *perms = json_object_get(facts, "permissions");
	size_t dropped = 0, elements = 0;
	if (u32(x + 4) > len)
		json_array_append_new(warnings, json_string("AndroidManifest.xml is truncated"));
	size_t off = u16(x + 2);
	while (off + 8 <= len) {
		uint16_t type = u16(x + off);
		uint16_t hsize = u16(x + off + 2);
		uint32_t size = u32(x + off + 4);
		if (size < 8 || size > len - off || hsize > size) {
			json_array_append_new(warnings, json_string("AndroidManifest.xml has a malformed chunk"));
			return;
		}
		const uint8_t *c = x + off;
		if (type == 0x0001 && size >= 28 && !p.base) {
			p.base = c;
			p.size = size;
			p.count = u32(c + 8);
			p.utf8 = (u32(c + 16) & 0x100) != 0;
			p.strings_start = u32(c + 20);
			p.offsets = c + hsize;
			if ((size_t)hsize + 4 * (size_t)p.count > size || p.strings_start > size)
				p.base = NULL;
		} else if (type == 0x0180) {
			resmap = c + 8;
			nres = (size - 8) / 4;
		} else if (type == 0x0102 && size >= 36) {
			char *el = pool_string(&p, u32(c + 20));
			elements++;
			uint16_t astart = u16(c + 24), asize = u16(c + 26), acount = u16(c + 28);
			size_t base = 16 + (size_t)astart;
			if (el && asize >= 20 && base + (size_t)acount * asize <= size) {
				for (uint16_t i = 0; i < acount; i++) {
					const uint8_t *a = c + base + (size_t)i * asize;
					uint8_t dt = a[15];
					uint32_t data = u32(a + 16);
					if (!strcmp(el, "uses-sdk") && attr_is(a, resmap, nres, &p, ATTR_MIN_SDK, "minSdkVersion")) {
						if (dt == T_INT_DEC || dt == T_INT_HEX)
							*min_sdk = (int32_t)data;
					} else if (!strcmp(el, "uses-sdk") &&
					           attr_is(a, resmap, nres, &p, ATTR_TARGET_SDK, "targetSdkVersion")) {
						if (dt == T_INT_DEC || dt == T_INT_HEX)
							json_object_set_new(facts, "targetSdk", json_integer((int32_t)data));
						else
							json_array_append_new(warnings,
							                      json_string("targetSdkVersion is not a plain number"));
					} else if (!strcmp(el, "application") &&
					           attr_is(a, resmap, nres, &p, ATTR_DEBUGGABLE, "debuggable")) {
						if (dt == T_BOOLEAN || dt == T_INT_DEC)
							json_object_set_new(facts, "debuggable", json_boolean(data != 0));
						else
							json_array_append_new(warnings, json_string("android:debuggable is a reference"));
					} else if ((!strcmp(el, "uses-permission") || !strcmp(el, "uses-permission-sdk-23")) &&
					           attr_is(a, resmap, nres, &p, ATTR_NAME, "name")) {
						char *v = dt == T_STRING ? pool_string(&p, data) : pool_string(&p, u32(a + 8));
						if (v && json_array_size(perms) < MAX_PERMISSIONS)
							json_array_append_new(perms, json_string(v));
						else if (v)
							dropped++;
						free(v);
					}
				}
			}
			if (el && !strcmp(el, "application") && !json_object_get(facts, "debuggable"))
				json_object_set_new(facts, "debuggable", json_false()); /* absent: false, as Android reads it */
			free(el);
		}
		off += size;
	}
	if (!elements)
		json_array_append_new(warnings, json_string("AndroidManifest.xml holds no element"));
	if (dropped) {
		char *t = sw__asprintf("%zu more permission(s) not listed (cap %d)", dropped, MAX_PERMISSIONS);
		json_array_append_new(warnings, json_string(t ? t : "permissions capped"));
		free(t);
	}
}

json_t *sw__audit_apk_facts(const char *path)
{
	json_t *facts = json_pack("{s:n,s:n,s:[],s:[]}", "targetSdk", "debuggable", "permissions", "warnings");
	/* "debuggable" stays null until an <application> element is seen */
	json_object_del(facts, "debuggable");
	int zerr = 0;
	zip_t *z = path ? zip_open(path, ZIP_RDONLY, &zerr) : NULL;
	if (!z) {
		json_array_append_new(json_object_get(facts, "warnings"), json_string("the APK is not a readable zip"));
		return facts;
	}
	zip_stat_t st;
	zip_stat_init(&st);
	zip_int64_t idx = zip_name_locate(z, "AndroidManifest.xml", 0);
	if (idx < 0 || zip_stat_index(z, (zip_uint64_t)idx, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) ||
	    st.size > MAX_MANIFEST) {
		json_array_append_new(json_object_get(facts, "warnings"),
		                      json_string("no AndroidManifest.xml of at most 8 MiB in the APK"));
		zip_close(z);
		return facts;
	}
	zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)idx, 0);
	uint8_t *buf = f ? malloc(st.size ? st.size : 1) : NULL;
	zip_int64_t got = buf ? zip_fread(f, buf, st.size) : -1;
	long min_sdk = -1;
	if (got == (zip_int64_t)st.size)
		walk(buf, (size_t)got, facts, &min_sdk);
	else
		json_array_append_new(json_object_get(facts, "warnings"), json_string("AndroidManifest.xml could not be read"));
	if (json_is_null(json_object_get(facts, "targetSdk")) && min_sdk >= 0) {
		/* no targetSdkVersion: Android targets the minSdkVersion */
		json_object_set_new(facts, "targetSdk", json_integer(min_sdk));
		json_array_append_new(json_object_get(facts, "warnings"),
		                      json_string("no targetSdkVersion: Android takes the minSdkVersion as the target"));
	}
	free(buf);
	if (f)
		zip_fclose(f);
	zip_close(z);
	return facts;
}
