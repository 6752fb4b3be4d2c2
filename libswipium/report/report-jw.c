/* report-jw.c: a streaming writer of JSON text laid out exactly as JSON.stringify(value, null, 2) does. */
#include <string.h>

#include "report-internal.h"

/* Appends without a function call when the buffer has room (the writer emits many tiny pieces). */
static inline void out_n(sw_buf *b, const char *s, size_t n)
{
	if (b->data && b->len + n + 1 <= b->cap) {
		memcpy(b->data + b->len, s, n);
		b->len += n;
		b->data[b->len] = '\0';
	} else {
		sw__buf_append(b, s, n);
	}
}

static inline void out_c(sw_buf *b, char c)
{
	out_n(b, &c, 1);
}

static void newline_indent(sw__jw *w)
{
	static const char spaces[] = "\n                                                                ";
	size_t n = (size_t)w->depth * 2 + 1;
	const char *p = spaces;
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		out_n(w->b, p, k);
		n -= k;
		p = spaces + 1;
	}
}

/* A JSON string as JSON.stringify writes it: runs of plain bytes copied at once. */
static void jw_string(sw_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	sw__buf_reserve(b, len + 2);
	out_c(b, '"');
	size_t start = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		out_n(b, s + start, i - start);
		start = i + 1;
		char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
		size_t n = 2;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default: esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = hex[c >> 4], esc[5] = hex[c & 15]; n = 6;
		}
		out_n(b, esc, n);
	}
	out_n(b, s + start, len - start);
	out_c(b, '"');
}

/* Starts an element of the current container: separator and indentation, unless a key precedes it. */
static void element(sw__jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (w->count[w->depth]++)
		out_c(w->b, ',');
	newline_indent(w);
}

void sw__jw_init(sw__jw *w, sw_buf *b)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
}

void sw__jw_open(sw__jw *w, char bracket)
{
	element(w);
	out_c(w->b, bracket);
	if (w->depth + 1 < SW__JW_MAX_DEPTH)
		w->depth++;
	w->count[w->depth] = 0;
}

void sw__jw_close(sw__jw *w, char bracket)
{
	bool any = w->count[w->depth] > 0;
	if (w->depth > 0)
		w->depth--;
	if (any)
		newline_indent(w);
	out_c(w->b, bracket);
}

void sw__jw_key(sw__jw *w, const char *key)
{
	sw__jw_keyn(w, key, strlen(key));
}

void sw__jw_keyn(sw__jw *w, const char *key, size_t len)
{
	element(w);
	jw_string(w->b, key, len);
	out_n(w->b, ": ", 2);
	w->after_key = true;
}

void sw__jw_str(sw__jw *w, const char *s, size_t len)
{
	element(w);
	jw_string(w->b, s, len);
}

void sw__jw_raw(sw__jw *w, const char *text)
{
	element(w);
	out_n(w->b, text, strlen(text));
}

void sw__jw_value(sw__jw *w, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		sw__jw_open(w, '{');
		const char *key;
		size_t klen;
		json_t *val;
		json_object_keylen_foreach((json_t *)v, key, klen, val)
		{
			element(w);
			jw_string(w->b, key, klen);
			out_n(w->b, ": ", 2);
			w->after_key = true;
			sw__jw_value(w, val);
		}
		sw__jw_close(w, '}');
		break;
	}
	case JSON_ARRAY:
		sw__jw_open(w, '[');
		for (size_t i = 0; i < json_array_size(v); i++)
			sw__jw_value(w, json_array_get(v, i));
		sw__jw_close(w, ']');
		break;
	case JSON_STRING: sw__jw_str(w, json_string_value(v), json_string_length(v)); break;
	case JSON_REAL:
		element(w);
		sw__buf_js_number(w->b, json_real_value(v));
		break;
	case JSON_INTEGER:
		element(w);
		sw__buf_printf(w->b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_TRUE: sw__jw_raw(w, "true"); break;
	case JSON_FALSE: sw__jw_raw(w, "false"); break;
	case JSON_NULL: sw__jw_raw(w, "null"); break;
	}
}
