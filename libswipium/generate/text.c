/* text.c: YAML through libyaml's emitter, Markdown escaping, identifiers and slugs for generated files. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "gen-text.h"
#include <swipium/redact.h>

static bool plain_ok(const char *s)
{
	if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return false;
	static const char *const special[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(special); i++)
		if (!strcasecmp(s, special[i]))
			return false;
	return true;
}

typedef struct ybuf {
	sw_buf b;
} ybuf;

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	ybuf *y = data;
	sw__buf_append(&y->b, buffer, size);
	return y->b.failed ? 0 : 1;
}

static int scalar(yaml_emitter_t *e, const char *s, bool allow_plain)
{
	yaml_event_t ev;
	bool plain = allow_plain && plain_ok(s);
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), plain, !plain,
	                                  plain ? YAML_PLAIN_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE))
		return 0;
	return yaml_emitter_emit(e, &ev);
}

static int node(yaml_emitter_t *e, const json_t *v, int depth)
{
	yaml_event_t ev;
	char num[64];
	if (depth > 32)
		return 0;
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) ||
		    !yaml_emitter_emit(e, &ev))
			return 0;
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)v, k, x)
		{
			if (!scalar(e, k, true) || !node(e, x, depth + 1))
				return 0;
		}
		return yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(e, &ev);
	}
	case JSON_ARRAY: {
		/* short lists of numbers (points, bounds) read best inline */
		bool numbers = json_array_size(v) > 0 && json_array_size(v) <= 4;
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x) if (!json_is_number(x)) numbers = false;
		if (!yaml_sequence_start_event_initialize(
		        &ev, NULL, NULL, 1, numbers ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE) ||
		    !yaml_emitter_emit(e, &ev))
			return 0;
		json_array_foreach(v, i, x) if (!node(e, x, depth + 1)) return 0;
		return yaml_sequence_end_event_initialize(&ev) && yaml_emitter_emit(e, &ev);
	}
	case JSON_STRING: return scalar(e, json_string_value(v), true);
	case JSON_INTEGER: snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v)); goto plain;
	case JSON_REAL: snprintf(num, sizeof(num), "%.17g", json_real_value(v)); goto plain;
	case JSON_TRUE: strcpy(num, "true"); goto plain;
	case JSON_FALSE: strcpy(num, "false"); goto plain;
	default:
		strcpy(num, "null");
	plain:
		if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)num, (int)strlen(num), 1, 0,
		                                  YAML_PLAIN_SCALAR_STYLE))
			return 0;
		return yaml_emitter_emit(e, &ev);
	}
}

int sw__gen_yaml(const json_t *doc, const char *comment, char **out, sw_error **err)
{
	ybuf y = {SW_BUF_INIT};
	if (comment) {
		sw__buf_puts(&y.b, "# ");
		for (const char *p = comment; *p; p++)
			sw__buf_putc(&y.b, (*p == '\n' || *p == '\r') ? ' ' : *p);
		sw__buf_putc(&y.b, '\n');
	}
	yaml_emitter_t e;
	yaml_event_t ev;
	if (!yaml_emitter_initialize(&e)) {
		sw__buf_free(&y.b);
		return sw__error_nomem(err);
	}
	yaml_emitter_set_output(&e, write_handler, &y);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	yaml_emitter_set_indent(&e, 2);
	int ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&e, &ev) &&
	         yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && yaml_emitter_emit(&e, &ev) &&
	         node(&e, doc, 0) && yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&e, &ev) &&
	         yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&e, &ev) && yaml_emitter_flush(&e);
	char problem[160];
	snprintf(problem, sizeof(problem), "%s", e.problem ? e.problem : "unknown");
	yaml_emitter_delete(&e);
	if (!ok || y.b.failed) {
		sw__buf_free(&y.b);
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "the YAML emitter failed: %s", problem);
	}
	*out = sw__buf_steal(&y.b, NULL);
	return *out ? SW_OK : sw__error_nomem(err);
}

void sw__gen_md_text(sw_buf *b, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		switch (*p) {
		case '&': sw__buf_puts(b, "&amp;"); break;
		case '<': sw__buf_puts(b, "&lt;"); break;
		case '>': sw__buf_puts(b, "&gt;"); break;
		case '\n':
		case '\r':
		case '\t': sw__buf_putc(b, ' '); break;
		case '\\':
		case '`':
		case '*':
		case '_':
		case '[':
		case ']':
		case '#':
		case '|':
		case '~':
			sw__buf_putc(b, '\\');
			sw__buf_putc(b, *p);
			break;
		default:
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				sw__buf_putc(b, ' ');
			else
				sw__buf_putc(b, *p);
		}
	}
}

/* The ASCII spelling of a Latin-1 letter (U+00C0..U+00FF), or NULL. */
static const char *latin_ascii(uint32_t cp)
{
	static const char *const upper[] = {"A", "A",  "A", "A", "A", "A", "AE", "C", "E",  "E", "E",
	                                    "E", "I",  "I", "I", "I", "D", "N",  "O", "O",  "O", "O",
	                                    "O", NULL, "O", "U", "U", "U", "U",  "Y", "TH", "ss"};
	if (cp >= 0xC0 && cp <= 0xDF)
		return upper[cp - 0xC0];
	if (cp >= 0xE0 && cp <= 0xFF && cp != 0xF7) {
		static const char *const lower[] = {"a", "a",  "a", "a", "a", "a", "ae", "c", "e",  "e", "e",
		                                    "e", "i",  "i", "i", "i", "d", "n",  "o", "o",  "o", "o",
		                                    "o", NULL, "o", "u", "u", "u", "u",  "y", "th", "y"};
		return lower[cp - 0xE0];
	}
	return NULL;
}

char *sw__gen_ident(const char *text, bool upper_first, const char *prefix, const char *fallback)
{
	sw_buf b = SW_BUF_INIT;
	bool new_word = upper_first, any = false;
	const unsigned char *p = (const unsigned char *)(text ? text : "");
	size_t len = strlen((const char *)p);
	while (*p && b.len < 48) {
		uint32_t cp = *p;
		size_t n = 1;
		char one[2] = {(char)*p, 0};
		const char *piece = one;
		if (*p >= 0x80) {
			n = sw__utf8_decode(p, len, &cp);
			piece = n ? latin_ascii(cp) : NULL;
			if (!n)
				n = 1;
		} else if (!isalnum(*p)) {
			piece = NULL;
		}
		p += n;
		len -= n;
		if (!piece) {
			new_word = any || upper_first;
			continue;
		}
		for (const char *q = piece; *q; q++) {
			unsigned char c = (unsigned char)*q;
			if (!any && isdigit(c) && prefix)
				sw__buf_puts(&b, prefix);
			sw__buf_putc(
			    &b, (char)(new_word ? toupper(c) : (any ? c : (upper_first ? toupper(c) : tolower(c)))));
			new_word = false;
			any = true;
		}
	}
	if (!any) {
		sw__buf_free(&b);
		return sw__strdup(fallback);
	}
	return sw__buf_steal(&b, NULL);
}

char *sw__gen_slug(const char *name)
{
	sw_buf b = SW_BUF_INIT;
	bool dash = false;
	for (const char *p = name ? name : ""; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (isalnum(c) || c == '_' || c == '.' || c == '-') {
			if (c == '.' && b.len == 0)
				continue;
			if (dash)
				sw__buf_putc(&b, '-');
			dash = false;
			sw__buf_putc(&b, (char)c);
		} else {
			dash = b.len > 0;
		}
	}
	if (b.len > 80)
		b.data[80] = '\0', b.len = 80;
	if (!b.len) {
		sw__buf_free(&b);
		return sw__strdup("recorded");
	}
	return sw__buf_steal(&b, NULL);
}

char *sw__gen_safe_part(const char *text)
{
	if (!text)
		return NULL;
	const char *marker = SW_REDACTED_MARKER;
	size_t mlen = strlen(marker);
	const char *best = NULL;
	size_t best_len = 0;
	const char *p = text;
	while (*p) {
		/* the next cut: a "${" or a marker */
		const char *cut = NULL;
		size_t skip = 0;
		const char *v = strstr(p, "${"), *m = strstr(p, marker);
		if (v && (!m || v < m)) {
			cut = v;
			const char *close = strchr(v, '}');
			skip = close ? (size_t)(close - v + 1) : strlen(v);
		} else if (m) {
			cut = m;
			skip = mlen;
		}
		const char *end = cut ? cut : p + strlen(p);
		/* a part may not end in a '$' that a following '{' would complete */
		const char *s = p, *e = end;
		while (s < e && isspace((unsigned char)*s))
			s++;
		while (e > s && (isspace((unsigned char)e[-1]) || e[-1] == '$'))
			e--;
		if ((size_t)(e - s) > best_len) {
			best = s;
			best_len = (size_t)(e - s);
		}
		if (!cut)
			break;
		p = cut + skip;
	}
	if (!best || best_len < 2)
		return NULL;
	char *r = sw__strndup(best, best_len);
	if (!r || !strpbrk(r, "\n\r"))
		return r;
	/* a selector is one line: keep the longest line of it, trimmed */
	const char *line = NULL;
	size_t ll = 0;
	for (const char *q = r; *q;) {
		size_t n = strcspn(q, "\n\r");
		const char *a = q, *z = q + n;
		while (a < z && isspace((unsigned char)*a))
			a++;
		while (z > a && isspace((unsigned char)z[-1]))
			z--;
		if ((size_t)(z - a) > ll)
			line = a, ll = (size_t)(z - a);
		q += n;
		while (*q == '\n' || *q == '\r')
			q++;
	}
	char *one = line && ll >= 2 ? sw__strndup(line, ll) : NULL;
	free(r);
	return one;
}
