/* json.c: JSON text the way JavaScript's JSON.stringify writes it (numbers, escapes, indentation). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"

void sw__buf_js_number(sw_buf *b, double d)
{
	if (isnan(d) || isinf(d)) {
		sw__buf_puts(b, "null"); /* JSON.stringify writes null for these */
		return;
	}
	if (d == 0) {
		sw__buf_putc(b, '0');
		return;
	}
	/* Shortest digit string that reads back as the same double. */
	char tmp[40];
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	/* tmp = [-]D.DDDDe[+-]XX; split into digits and exponent. */
	const char *p = tmp;
	bool neg = false;
	if (*p == '-') {
		neg = true;
		p++;
	}
	char digits[20];
	int nd = 0;
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	int exp10 = atoi(p + 1); /* value = 0.DIGITS * 10^(exp10+1) */
	int n = exp10 + 1;        /* ECMAScript's n: position of the decimal point */
	if (neg)
		sw__buf_putc(b, '-');
	if (nd <= n && n <= 21) {
		sw__buf_append(b, digits, (size_t)nd);
		for (int i = nd; i < n; i++)
			sw__buf_putc(b, '0');
	} else if (0 < n && n <= 21) {
		sw__buf_append(b, digits, (size_t)n);
		sw__buf_putc(b, '.');
		sw__buf_append(b, digits + n, (size_t)(nd - n));
	} else if (-6 < n && n <= 0) {
		sw__buf_puts(b, "0.");
		for (int i = 0; i < -n; i++)
			sw__buf_putc(b, '0');
		sw__buf_append(b, digits, (size_t)nd);
	} else {
		sw__buf_putc(b, digits[0]);
		if (nd > 1) {
			sw__buf_putc(b, '.');
			sw__buf_append(b, digits + 1, (size_t)(nd - 1));
		}
		sw__buf_printf(b, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
	}
}

void sw__buf_json_string(sw_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	sw__buf_reserve(b, len + 2);
	sw__buf_putc(b, '"');
	size_t run = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char u[7];
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			if (c < 0x20) {
				u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0';
				u[4] = hex[c >> 4], u[5] = hex[c & 15], u[6] = '\0';
				esc = u;
			}
		}
		if (esc) {
			sw__buf_append(b, s + i - run, run);
			run = 0;
			sw__buf_puts(b, esc);
		} else {
			run++;
		}
	}
	sw__buf_append(b, s + len - run, run);
	sw__buf_putc(b, '"');
}

static void indent(sw_buf *b, int width, int depth)
{
	if (width <= 0)
		return;
	size_t n = (size_t)width * (size_t)depth;
	if (!sw__buf_reserve(b, 1 + n))
		return;
	b->data[b->len++] = '\n';
	memset(b->data + b->len, ' ', n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void dump(sw_buf *b, const json_t *v, int width, int depth)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		if (json_object_size(v) == 0) {
			sw__buf_puts(b, "{}");
			break;
		}
		sw__buf_putc(b, '{');
		const char *key;
		size_t klen;
		json_t *val;
		bool first = true;
		void *it;
		for (it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it)) {
			key = json_object_iter_key(it);
			klen = json_object_iter_key_len(it);
			val = json_object_iter_value(it);
			if (!first)
				sw__buf_putc(b, ',');
			first = false;
			indent(b, width, depth + 1);
			sw__buf_json_string(b, key, klen);
			sw__buf_puts(b, width > 0 ? ": " : ":");
			dump(b, val, width, depth + 1);
		}
		indent(b, width, depth);
		sw__buf_putc(b, '}');
		break;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(v);
		if (n == 0) {
			sw__buf_puts(b, "[]");
			break;
		}
		sw__buf_putc(b, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				sw__buf_putc(b, ',');
			indent(b, width, depth + 1);
			dump(b, json_array_get(v, i), width, depth + 1);
		}
		indent(b, width, depth);
		sw__buf_putc(b, ']');
		break;
	}
	case JSON_STRING:
		sw__buf_json_string(b, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER: {
		char digits[32];
		int n = snprintf(digits, sizeof(digits), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		sw__buf_append(b, digits, (size_t)n);
		break;
	}
	case JSON_REAL:
		sw__buf_js_number(b, json_real_value(v));
		break;
	case JSON_TRUE: sw__buf_puts(b, "true"); break;
	case JSON_FALSE: sw__buf_puts(b, "false"); break;
	case JSON_NULL: sw__buf_puts(b, "null"); break;
	}
}

void sw__json_pretty_at(sw_buf *b, const json_t *v, int depth)
{
	dump(b, v, 2, depth);
}

char *sw__json_pretty(const json_t *v)
{
	sw_buf b = SW_BUF_INIT;
	dump(&b, v, 2, 0);
	return sw__buf_steal(&b, NULL);
}

char *sw__json_compact(const json_t *v)
{
	sw_buf b = SW_BUF_INIT;
	dump(&b, v, 0, 0);
	return sw__buf_steal(&b, NULL);
}
