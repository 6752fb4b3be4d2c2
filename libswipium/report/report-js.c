/* report-js.c: reading untrusted report JSON with JavaScript's JSON.parse / String() semantics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"

/* A canonical array index ("0", "17"; not "01", not beyond 2^32-2). */
static bool index_key(const char *k, size_t len, unsigned long long *val)
{
	if (len == 0 || len > 10 || (len > 1 && k[0] == '0'))
		return false;
	unsigned long long v = 0;
	for (size_t i = 0; i < len; i++) {
		if (k[i] < '0' || k[i] > '9')
			return false;
		v = v * 10 + (unsigned)(k[i] - '0');
	}
	if (v > 4294967294ULL)
		return false;
	*val = v;
	return true;
}

struct ikey {
	unsigned long long v;
	const char *k;
	size_t len;
	json_t *val;
};

static int ikey_cmp(const void *a, const void *b)
{
	const struct ikey *x = a, *y = b;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* JavaScript lists array-index keys first, ascending, then the others in insertion order. */
static json_t *js_order(json_t *v, int depth)
{
	if (depth > 4096)
		return v;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++)
			js_order(json_array_get(v, i), depth + 1);
		return v;
	}
	if (!json_is_object(v))
		return v;
	size_t nidx = 0, n = json_object_size(v);
	const char *key;
	size_t klen;
	json_t *val;
	unsigned long long iv;
	json_object_keylen_foreach(v, key, klen, val)
	{
		js_order(val, depth + 1);
		if (index_key(key, klen, &iv))
			nidx++;
	}
	if (nidx == 0)
		return v;
	struct ikey *keys = calloc(nidx, sizeof(*keys));
	json_t *copy = json_object();
	if (!keys || !copy) {
		free(keys);
		json_decref(copy);
		return v;
	}
	size_t j = 0;
	json_object_keylen_foreach(v, key, klen, val)
	{
		if (index_key(key, klen, &iv))
			keys[j++] = (struct ikey){iv, key, klen, val};
	}
	qsort(keys, nidx, sizeof(*keys), ikey_cmp);
	for (size_t i = 0; i < nidx; i++)
		json_object_setn(copy, keys[i].k, keys[i].len, keys[i].val);
	json_object_keylen_foreach(v, key, klen, val)
	{
		if (!index_key(key, klen, &iv))
			json_object_setn(copy, key, klen, val);
	}
	free(keys);
	(void)n;
	/* Replace the content of v in place so parents keep their pointer. */
	json_object_clear(v);
	json_object_update(v, copy);
	json_decref(copy);
	return v;
}

json_t *sw__report_parse_json(const char *data, size_t len, char **msg)
{
	if (memchr(data, '\0', len)) {
		*msg = sw__strdup("the file contains a raw NUL byte, which is not valid JSON");
		return NULL;
	}
	/* Valid UTF-8 (the usual case) is copied as is; anything else is decoded the way Node does. */
	char *text;
	size_t tlen;
	if (sw__utf8_valid(data, len)) {
		text = malloc(len + 1);
		if (text) {
			memcpy(text, data, len);
			text[len] = '\0';
		}
		tlen = len;
	} else {
		text = sw__utf8_sanitize(data, len);
		tlen = text ? strlen(text) : 0;
	}
	if (!text) {
		*msg = sw__strdup("out of memory");
		return NULL;
	}
	sw__json_fix_lone_surrogates(text, tlen);
	json_error_t jerr;
	json_t *root = json_loadb(text, tlen, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL | JSON_DECODE_ANY, &jerr);
	free(text);
	if (!root) {
		*msg = sw__asprintf("%s (line %d, column %d)", jerr.text, jerr.line, jerr.column);
		return NULL;
	}
	return js_order(root, 0);
}

const json_t *sw__js_get(const json_t *obj, const char *key)
{
	return json_is_object(obj) ? json_object_get(obj, key) : NULL;
}

bool sw__js_nullish(const json_t *v)
{
	return !v || json_is_null(v);
}

bool sw__js_truthy(const json_t *v)
{
	if (!v)
		return false;
	switch (json_typeof(v)) {
	case JSON_NULL:
	case JSON_FALSE: return false;
	case JSON_STRING: return json_string_length(v) > 0;
	case JSON_REAL: {
		double d = json_real_value(v);
		return d != 0 && !isnan(d);
	}
	case JSON_INTEGER: return json_integer_value(v) != 0;
	default: return true;
	}
}

bool sw__js_is(const json_t *v, const char *str)
{
	size_t n = strlen(str);
	return json_is_string(v) && json_string_length(v) == n && memcmp(json_string_value(v), str, n) == 0;
}

static void js_string_depth(sw_buf *b, const json_t *v, int depth)
{
	if (!v) {
		sw__buf_puts(b, "undefined");
		return;
	}
	switch (json_typeof(v)) {
	case JSON_STRING: sw__buf_append(b, json_string_value(v), json_string_length(v)); break;
	case JSON_REAL: sw__buf_js_number(b, json_real_value(v)); break;
	case JSON_INTEGER: sw__buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
	case JSON_TRUE: sw__buf_puts(b, "true"); break;
	case JSON_FALSE: sw__buf_puts(b, "false"); break;
	case JSON_NULL: sw__buf_puts(b, "null"); break;
	case JSON_OBJECT: sw__buf_puts(b, "[object Object]"); break;
	case JSON_ARRAY:
		/* Array.prototype.toString: elements joined by ",", null/undefined empty. */
		if (depth > 64)
			break;
		for (size_t i = 0; i < json_array_size(v); i++) {
			const json_t *e = json_array_get(v, i);
			if (i)
				sw__buf_putc(b, ',');
			if (!json_is_null(e))
				js_string_depth(b, e, depth + 1);
		}
		break;
	}
}

void sw__js_string(sw_buf *b, const json_t *v)
{
	js_string_depth(b, v, 0);
}

sw_buf sw__js_string_buf(const json_t *v)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_reserve(&b, 16);
	sw__js_string(&b, v);
	return b;
}

const json_t *sw__js_coalesce(const json_t *a, const json_t *b)
{
	return sw__js_nullish(a) ? b : a;
}

size_t sw__js_array_len(const json_t *v)
{
	return json_is_array(v) ? json_array_size(v) : 0;
}

double sw__js_number(const json_t *v, double def)
{
	return json_is_number(v) ? json_number_value(v) : def;
}

double sw__js_number_coerce(const json_t *v)
{
	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_true(v))
		return 1;
	if (!json_is_string(v) || memchr(json_string_value(v), '\0', json_string_length(v)))
		return 0; /* NaN, null, false, objects: never greater than 1 */
	const char *s = json_string_value(v);
	char *end = NULL;
	double d = strtod(s, &end);
	while (end && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
		end++;
	return end && end != s && *end == '\0' ? d : 0;
}
