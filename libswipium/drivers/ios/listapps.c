/* listapps.c: `simctl listapps <udid>`, whose output is an old-style (OpenStep) property list.
 *
 * simctl prints NSDictionary's description: { key = value; ... }, ( a, b ), "quoted" or bare strings,
 * <hex data>. libplist reads that format only from version 2.3 on (plist_from_openstep); the libplist the
 * project builds against (2.2, Debian's) has XML and binary readers only, so this file reads the old-style
 * text itself, bounded: at most 64 levels deep, 16 MiB of text, every string a valid UTF-8 JSON string.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ios-internal.h"

#define OS_MAX_DEPTH 64

typedef struct os_reader {
	const char *p, *end;
	const char *err; /* what went wrong (static), NULL while fine */
	size_t err_at;
	const char *start;
} os_reader;

static void fail(os_reader *r, const char *what)
{
	if (!r->err) {
		r->err = what;
		r->err_at = (size_t)(r->p - r->start);
	}
}

/* Skips white space and comments. */
static void skip(os_reader *r)
{
	while (r->p < r->end) {
		if (isspace((unsigned char)*r->p))
			r->p++;
		else if (r->end - r->p >= 2 && r->p[0] == '/' && r->p[1] == '/') {
			while (r->p < r->end && *r->p != '\n')
				r->p++;
		} else if (r->end - r->p >= 2 && r->p[0] == '/' && r->p[1] == '*') {
			const char *c = r->p + 2;
			while (c + 1 < r->end && !(c[0] == '*' && c[1] == '/'))
				c++;
			if (c + 1 >= r->end) {
				fail(r, "a comment is not closed");
				r->p = r->end;
				return;
			}
			r->p = c + 2;
		} else
			return;
	}
}

static bool bare_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_$+/:.-", c) != NULL;
}

/* Appends code point @cp as UTF-8 (surrogates and out-of-range become U+FFFD). */
static void put_cp(sw_buf *b, unsigned long cp)
{
	char u[4];
	if (cp >= 0xD800 && cp <= 0xDFFF)
		cp = 0xFFFD;
	if (cp < 0x80)
		u[0] = (char)cp, sw__buf_append(b, u, 1);
	else if (cp < 0x800)
		u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), sw__buf_append(b, u, 2);
	else if (cp < 0x10000)
		u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F)),
		sw__buf_append(b, u, 3);
	else
		put_cp(b, 0xFFFD);
}

static json_t *read_string(os_reader *r)
{
	sw_buf b = SW_BUF_INIT;
	if (*r->p == '"') {
		r->p++;
		for (;;) {
			if (r->p >= r->end) {
				fail(r, "a quoted string is not closed");
				break;
			}
			char c = *r->p++;
			if (c == '"')
				break;
			if (c != '\\') {
				sw__buf_append(&b, &c, 1);
				continue;
			}
			if (r->p >= r->end) {
				fail(r, "a quoted string ends in a backslash");
				break;
			}
			char e = *r->p++;
			if (e == 'n')
				sw__buf_puts(&b, "\n");
			else if (e == 't')
				sw__buf_puts(&b, "\t");
			else if (e == 'r')
				sw__buf_puts(&b, "\r");
			else if (e == 'U' || e == 'u') {
				unsigned long cp = 0;
				int k = 0;
				for (; k < 4 && r->p < r->end && isxdigit((unsigned char)*r->p); k++, r->p++)
					cp = cp * 16 + (unsigned long)(isdigit((unsigned char)*r->p) ? *r->p - '0'
					                                                               : (tolower((unsigned char)*r->p) - 'a' + 10));
				put_cp(&b, k ? cp : 0xFFFD);
			} else if (e >= '0' && e <= '7') {
				unsigned long v = (unsigned long)(e - '0');
				for (int k = 0; k < 2 && r->p < r->end && *r->p >= '0' && *r->p <= '7'; k++, r->p++)
					v = v * 8 + (unsigned long)(*r->p - '0');
				put_cp(&b, v);
			} else
				sw__buf_append(&b, &e, 1);
		}
	} else {
		const char *s = r->p;
		while (r->p < r->end && bare_char(*r->p))
			r->p++;
		if (r->p == s)
			fail(r, "a value was expected");
		sw__buf_append(&b, s, (size_t)(r->p - s));
	}
	size_t n = 0;
	char *text = sw__buf_steal(&b, &n);
	if (!text) {
		fail(r, "out of memory");
		return NULL;
	}
	/* json_stringn refuses invalid UTF-8 and embedded NUL: such a string is named, not guessed at */
	json_t *v = memchr(text, '\0', n) ? NULL : json_stringn(text, n);
	free(text);
	if (!v && !r->err)
		fail(r, "a string is not valid UTF-8");
	return v;
}

static json_t *read_value(os_reader *r, int depth);

static json_t *read_data(os_reader *r)
{
	/* <0fbd7 7aa2e>: kept as the hex text */
	const char *s = ++r->p;
	while (r->p < r->end && *r->p != '>') {
		if (!isxdigit((unsigned char)*r->p) && !isspace((unsigned char)*r->p)) {
			fail(r, "data holds a character that is not hexadecimal");
			return NULL;
		}
		r->p++;
	}
	if (r->p >= r->end) {
		fail(r, "data is not closed with >");
		return NULL;
	}
	json_t *v = json_stringn(s, (size_t)(r->p - s));
	r->p++;
	return v;
}

static json_t *read_dict(os_reader *r, int depth)
{
	json_t *o = json_object();
	r->p++; /* { */
	for (;;) {
		skip(r);
		if (r->err || r->p >= r->end) {
			fail(r, "a dictionary is not closed with }");
			break;
		}
		if (*r->p == '}') {
			r->p++;
			return o;
		}
		json_t *k = read_string(r);
		skip(r);
		if (!k || r->err || r->p >= r->end || *r->p != '=') {
			json_decref(k);
			fail(r, "a dictionary key is not followed by =");
			break;
		}
		r->p++;
		json_t *v = read_value(r, depth + 1);
		skip(r);
		if (!v || r->err || r->p >= r->end || *r->p != ';') {
			json_decref(k);
			json_decref(v);
			fail(r, "a dictionary value is not followed by ;");
			break;
		}
		r->p++;
		json_object_set_new(o, json_string_value(k), v);
		json_decref(k);
	}
	json_decref(o);
	return NULL;
}

static json_t *read_array(os_reader *r, int depth)
{
	json_t *a = json_array();
	r->p++; /* ( */
	for (;;) {
		skip(r);
		if (r->err || r->p >= r->end) {
			fail(r, "an array is not closed with )");
			break;
		}
		if (*r->p == ')') {
			r->p++;
			return a;
		}
		json_t *v = read_value(r, depth + 1);
		skip(r);
		if (!v || r->err || r->p >= r->end || (*r->p != ',' && *r->p != ')')) {
			json_decref(v);
			fail(r, "an array item is not followed by , or )");
			break;
		}
		json_array_append_new(a, v);
		if (*r->p == ',')
			r->p++;
	}
	json_decref(a);
	return NULL;
}

static json_t *read_value(os_reader *r, int depth)
{
	if (depth > OS_MAX_DEPTH) {
		fail(r, "the property list nests more than 64 levels");
		return NULL;
	}
	skip(r);
	if (r->err || r->p >= r->end) {
		fail(r, "the text ends where a value was expected");
		return NULL;
	}
	switch (*r->p) {
	case '{': return read_dict(r, depth);
	case '(': return read_array(r, depth);
	case '<': return read_data(r);
	default: return read_string(r);
	}
}

json_t *sw__openstep_parse(const char *text, size_t len, sw_error **err)
{
	if (!text || len > ((size_t)16 << 20)) {
		sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", NULL,
		              "simctl listapps printed %s; not read", text ? "more than 16 MiB" : "nothing");
		return NULL;
	}
	os_reader r = {text, text + len, NULL, 0, text};
	json_t *v = read_value(&r, 0);
	skip(&r);
	if (!r.err && r.p < r.end)
		fail(&r, "text follows the property list");
	if (r.err || !v) {
		json_decref(v);
		sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Run `xcrun simctl listapps <udid>` in a terminal",
		              "simctl listapps printed a property list that cannot be read: %s (at byte %zu)",
		              r.err ? r.err : "nothing was read", r.err_at);
		return NULL;
	}
	return v;
}

int sw__simctl_listapps(const char *udid, json_t **out, sw_error **err)
{
	const char *args[] = {"listapps", udid, NULL};
	sw__proc_result r;
	int rc = sw__simctl(args, SW__SIMCTL_QUICK_MS, NULL, NULL, &r, err);
	if (rc != SW_OK)
		return rc;
	if (r.status != 0) {
		rc = sw__simctl_fail("listapps", &r, "DEVICE_NOT_READY", "Check that the simulator is Booted and retry", err);
		sw__proc_result_clear(&r);
		return rc;
	}
	json_t *v = r.truncated ? NULL : sw__openstep_parse(r.out ? r.out : "", r.out_len, err);
	if (r.truncated)
		sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", NULL, "simctl listapps printed more than 16 MiB; not read");
	sw__proc_result_clear(&r);
	if (!v)
		return SW_EDEVICE;
	if (!json_is_object(v)) {
		json_decref(v);
		return sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Run `xcrun simctl listapps <udid>` in a terminal",
		                     "simctl listapps printed a property list that is not a dictionary of apps");
	}
	*out = v;
	return SW_OK;
}
