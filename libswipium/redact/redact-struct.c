/* redact-struct.c: structural redaction of JSON (text and jansson trees), XML and artifacts by mime type. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "redact-internal.h"

#define MAX_JSON_DEPTH 10000

bool sw__redact_is_geometry_key(const char *key, size_t len)
{
	static const char *const keys[] = {"bounds", "x", "y", "width", "height", "index", "instance", "rect", "frame"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++)
		if (strlen(keys[i]) == len && memcmp(keys[i], key, len) == 0)
			return true;
	return false;
}

/* ---- key collisions ---------------------------------------------------- */

/*
 * Makes @key unique in @seen (an object used as a set) the way the reference
 * does: the first spelling stays, later ones become key#2, key#3 ...
 * Returns a new string in *unique (NULL when @key was free), or false on OOM.
 */
static bool unique_key(json_t *seen, const char *key, size_t len, char **unique, size_t *ulen)
{
	*unique = NULL;
	if (!json_object_getn(seen, key, len))
		return json_object_setn_new_nocheck(seen, key, len, json_true()) == 0;
	for (unsigned n = 2;; n++) {
		sw_buf b = SW_BUF_INIT;
		sw__buf_append(&b, key, len);
		sw__buf_printf(&b, "#%u", n);
		if (b.failed)
			return false;
		if (!json_object_getn(seen, b.data, b.len)) {
			if (json_object_setn_new_nocheck(seen, b.data, b.len, json_true()) != 0) {
				sw__buf_free(&b);
				return false;
			}
			*unique = sw__buf_steal(&b, ulen);
			return *unique != NULL;
		}
		sw__buf_free(&b);
	}
}

/* ---- jansson trees ----------------------------------------------------- */

json_t *sw__redactor_redact_jansson(sw_redactor *r, json_t *v)
{
	if (!r || !v)
		return NULL;
	switch (json_typeof(v)) {
	case JSON_STRING: {
		char *s;
		size_t n;
		if (sw__redactor_redact_str(r, json_string_value(v), json_string_length(v), &s, &n) < 0)
			return NULL;
		json_t *res = json_stringn_nocheck(s, n);
		free(s);
		return res;
	}
	case JSON_ARRAY: {
		json_t *res = json_array();
		size_t i;
		json_t *item;
		if (!res)
			return NULL;
		json_array_foreach(v, i, item)
		{
			if (json_array_append_new(res, sw__redactor_redact_jansson(r, item)) != 0) {
				json_decref(res);
				return NULL;
			}
		}
		return res;
	}
	case JSON_OBJECT: {
		json_t *res = json_object();
		json_t *seen = json_object();
		const char *key;
		size_t klen;
		json_t *item;
		if (!res || !seen)
			goto fail;
		json_object_keylen_foreach(v, key, klen, item)
		{
			char *nk, *uk;
			size_t nlen, ulen;
			if (sw__redactor_redact_str(r, key, klen, &nk, &nlen) < 0)
				goto fail;
			if (!unique_key(seen, nk, nlen, &uk, &ulen)) {
				free(nk);
				goto fail;
			}
			json_t *nv = sw__redact_is_geometry_key(key, klen) ? json_incref(item)
			                                                   : sw__redactor_redact_jansson(r, item);
			int rc = nv ? json_object_setn_new_nocheck(res, uk ? uk : nk, uk ? ulen : nlen, nv) : -1;
			free(nk);
			free(uk);
			if (rc != 0)
				goto fail;
		}
		json_decref(seen);
		return res;
	fail:
		json_decref(res);
		json_decref(seen);
		return NULL;
	}
	default: return json_incref(v);
	}
}

/* ---- JSON text --------------------------------------------------------- */

typedef struct frame {
	bool object;
	json_t *seen; /* object keys written so far */
} frame;

typedef struct jparser {
	const char *s;
	size_t n, i;
	frame *stack;
	size_t depth, cap;
	size_t verbatim_depth; /* 0 or the depth at which a geometry value started */
	sw_buf tmp;            /* decoded string */
} jparser;

static void skip_ws(jparser *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static bool read_hex4(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	for (int k = 0; k < 4; k++) {
		int h = sw__hex_digit(s[k]);
		if (h < 0)
			return false;
		v = v * 16 + (uint32_t)h;
	}
	*out = v;
	return true;
}

/* Decodes the string token at p->i (which is '"') into p->tmp; p->i ends after the closing quote. */
static bool decode_string(jparser *p)
{
	p->tmp.len = 0;
	if (p->tmp.data)
		p->tmp.data[0] = '\0';
	p->i++;
	while (p->i < p->n) {
		const char *run = p->s + p->i;
		size_t k = 0;
		while (p->i + k < p->n && run[k] != '"' && run[k] != '\\' && (unsigned char)run[k] >= 0x20)
			k++;
		sw__buf_append(&p->tmp, run, k);
		p->i += k;
		if (p->i >= p->n)
			return false;
		char c = p->s[p->i];
		if (c == '"') {
			p->i++;
			return !p->tmp.failed;
		}
		if ((unsigned char)c < 0x20)
			return false;
		/* backslash */
		if (p->i + 1 >= p->n)
			return false;
		char e = p->s[p->i + 1];
		p->i += 2;
		switch (e) {
		case '"': sw__buf_putc(&p->tmp, '"'); break;
		case '\\': sw__buf_putc(&p->tmp, '\\'); break;
		case '/': sw__buf_putc(&p->tmp, '/'); break;
		case 'b': sw__buf_putc(&p->tmp, '\b'); break;
		case 'f': sw__buf_putc(&p->tmp, '\f'); break;
		case 'n': sw__buf_putc(&p->tmp, '\n'); break;
		case 'r': sw__buf_putc(&p->tmp, '\r'); break;
		case 't': sw__buf_putc(&p->tmp, '\t'); break;
		case 'u': {
			uint32_t cp, lo;
			if (p->i + 4 > p->n || !read_hex4(p->s + p->i, &cp))
				return false;
			p->i += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF && p->i + 6 <= p->n && p->s[p->i] == '\\' &&
			    p->s[p->i + 1] == 'u' && read_hex4(p->s + p->i + 2, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				p->i += 6;
			}
			char u8[4];
			/* a lone surrogate keeps its 3-byte form; the original token is written when unchanged */
			size_t m = sw__utf8_encode(cp, u8);
			sw__buf_append(&p->tmp, u8, m);
			break;
		}
		default: return false;
		}
	}
	return false;
}

static bool scan_number(jparser *p)
{
	size_t i = p->i;
	const char *s = p->s;
	if (i < p->n && s[i] == '-')
		i++;
	if (i >= p->n)
		return false;
	if (s[i] == '0') {
		i++;
	} else if (s[i] >= '1' && s[i] <= '9') {
		while (i < p->n && s[i] >= '0' && s[i] <= '9')
			i++;
	} else {
		return false;
	}
	if (i < p->n && s[i] == '.') {
		i++;
		size_t d = i;
		while (i < p->n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < p->n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t d = i;
		while (i < p->n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	p->i = i;
	return true;
}

static bool push(jparser *p, bool object)
{
	if (p->depth >= MAX_JSON_DEPTH)
		return false;
	if (p->depth == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 32;
		frame *n = realloc(p->stack, ncap * sizeof(*n));
		if (!n)
			return false;
		p->stack = n;
		p->cap = ncap;
	}
	json_t *seen = NULL;
	if (object && !(seen = json_object()))
		return false;
	p->stack[p->depth++] = (frame){object, seen};
	return true;
}

static void pop(jparser *p)
{
	p->depth--;
	json_decref(p->stack[p->depth].seen);
}

/*
 * Streams the JSON text, copying every byte except string tokens whose
 * redaction differs. Returns SW_OK, SW_EPARSE or SW_ENOMEM.
 */
static int redact_json_stream(sw_redactor *r, jparser *p, sw_buf *out)
{
	enum { VALUE, AFTER_VALUE, KEY_OR_END, KEY, COLON, VALUE_OR_END } st = VALUE;
	for (;;) {
		size_t ws = p->i;
		skip_ws(p);
		sw__buf_append(out, p->s + ws, p->i - ws);
		if (out->failed || p->tmp.failed)
			return SW_ENOMEM;
		if (p->i >= p->n)
			return st == AFTER_VALUE && p->depth == 0 ? SW_OK : SW_EPARSE;
		char c = p->s[p->i];
		if (st == AFTER_VALUE) {
			/* the geometry value started at this depth is complete */
			if (p->verbatim_depth && p->depth <= p->verbatim_depth)
				p->verbatim_depth = 0;
			if (p->depth == 0)
				return SW_EPARSE; /* trailing content */
			frame *f = &p->stack[p->depth - 1];
			if (c == ',') {
				sw__buf_putc(out, c);
				p->i++;
				st = f->object ? KEY : VALUE;
			} else if (c == (f->object ? '}' : ']')) {
				sw__buf_putc(out, c);
				p->i++;
				pop(p);
				st = AFTER_VALUE;
			} else {
				return SW_EPARSE;
			}
			continue;
		}
		if (st == COLON) {
			if (c != ':')
				return SW_EPARSE;
			sw__buf_putc(out, c);
			p->i++;
			st = VALUE;
			continue;
		}
		if (st == KEY_OR_END && c == '}') {
			sw__buf_putc(out, c);
			p->i++;
			pop(p);
			st = AFTER_VALUE;
			continue;
		}
		if (st == VALUE_OR_END && c == ']') {
			sw__buf_putc(out, c);
			p->i++;
			pop(p);
			st = AFTER_VALUE;
			continue;
		}
		if (st == KEY || st == KEY_OR_END) {
			if (c != '"')
				return SW_EPARSE;
			size_t start = p->i;
			if (!decode_string(p))
				return p->tmp.failed ? SW_ENOMEM : SW_EPARSE;
			frame *f = &p->stack[p->depth - 1];
			char *nk = NULL, *uk = NULL;
			size_t nlen = 0, ulen = 0;
			bool geometry = sw__redact_is_geometry_key(p->tmp.data ? p->tmp.data : "", p->tmp.len);
			int changed = 0;
			if (!p->verbatim_depth) {
				changed =
				    sw__redactor_redact_str(r, p->tmp.data ? p->tmp.data : "", p->tmp.len, &nk, &nlen);
				if (changed < 0)
					return SW_ENOMEM;
			} else {
				nk = sw__strndup(p->tmp.data ? p->tmp.data : "", p->tmp.len);
				nlen = p->tmp.len;
				if (!nk)
					return SW_ENOMEM;
			}
			if (!unique_key(f->seen, nk, nlen, &uk, &ulen)) {
				free(nk);
				return SW_ENOMEM;
			}
			if (changed || uk)
				sw__buf_json_string(out, uk ? uk : nk, uk ? ulen : nlen);
			else
				sw__buf_append(out, p->s + start, p->i - start);
			free(nk);
			free(uk);
			if (geometry && !p->verbatim_depth)
				p->verbatim_depth = p->depth; /* the value that follows is kept as it is */
			st = COLON;
			continue;
		}
		/* a value */
		if (c == '{' || c == '[') {
			if (!push(p, c == '{'))
				return p->depth >= MAX_JSON_DEPTH ? SW_EPARSE : SW_ENOMEM;
			sw__buf_putc(out, c);
			p->i++;
			st = c == '{' ? KEY_OR_END : VALUE_OR_END;
			continue;
		}
		if (c == '"') {
			size_t start = p->i;
			if (!decode_string(p))
				return p->tmp.failed ? SW_ENOMEM : SW_EPARSE;
			if (p->verbatim_depth) {
				sw__buf_append(out, p->s + start, p->i - start);
			} else {
				char *ns;
				size_t nlen;
				int changed =
				    sw__redactor_redact_str(r, p->tmp.data ? p->tmp.data : "", p->tmp.len, &ns, &nlen);
				if (changed < 0)
					return SW_ENOMEM;
				if (changed)
					sw__buf_json_string(out, ns, nlen);
				else
					sw__buf_append(out, p->s + start, p->i - start);
				free(ns);
			}
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			size_t start = p->i;
			if (!scan_number(p))
				return SW_EPARSE;
			sw__buf_append(out, p->s + start, p->i - start);
		} else {
			static const char *const lits[] = {"true", "false", "null"};
			bool ok = false;
			for (size_t k = 0; k < SW_ARRAY_SIZE(lits) && !ok; k++) {
				size_t l = strlen(lits[k]);
				if (p->n - p->i >= l && memcmp(p->s + p->i, lits[k], l) == 0) {
					sw__buf_append(out, lits[k], l);
					p->i += l;
					ok = true;
				}
			}
			if (!ok)
				return SW_EPARSE;
		}
		st = AFTER_VALUE;
	}
}

SW_API int sw_redactor_redact_json(sw_redactor *r, const char *json_in, char **json_out, sw_error **err)
{
	if (!r || !json_in || !json_out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_redactor_redact_json: NULL argument");
	jparser p = {.s = json_in, .n = strlen(json_in), .tmp = SW_BUF_INIT};
	sw_buf out = SW_BUF_INIT;
	int rc = redact_json_stream(r, &p, &out);
	while (p.depth)
		pop(&p);
	free(p.stack);
	sw__buf_free(&p.tmp);
	if (rc == SW_OK && out.failed)
		rc = SW_ENOMEM;
	if (rc == SW_OK) {
		char *s = sw__buf_steal(&out, NULL);
		if (!s)
			return sw__error_nomem(err);
		*json_out = s;
		return SW_OK;
	}
	sw__buf_free(&out);
	if (rc == SW_ENOMEM)
		return sw__error_nomem(err);
	return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
	                     "Pass a complete JSON text, or redact it as plain text.",
	                     "The text to redact is not valid JSON (stopped at byte %zu).", p.i);
}

/* ---- XML text ---------------------------------------------------------- */

static bool is_xml_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Copies @open, redacts up to @close, copies @close. False when @close is missing. */
static bool xml_section(sw_redactor *r, sw_buf *out, const char *s, size_t n, size_t *i, const char *open,
                        const char *close)
{
	size_t lo = strlen(open), lc = strlen(close);
	const char *end = memmem(s + *i + lo, n - *i - lo, close, lc);
	if (!end)
		return false;
	sw__buf_append(out, open, lo);
	sw__redactor_redact_into(r, out, s + *i + lo, (size_t)(end - (s + *i + lo)));
	sw__buf_append(out, close, lc);
	*i = (size_t)(end - s) + lc;
	return true;
}

/* A start or end tag at s[*i] == '<'. False when it is not well formed. */
static bool xml_tag(sw_redactor *r, sw_buf *out, const char *s, size_t n, size_t *pi)
{
	size_t i = *pi + 1;
	size_t mark = out->len;
	if (i < n && s[i] == '/')
		i++;
	size_t name = i;
	while (i < n && !is_xml_space(s[i]) && s[i] != '>' && s[i] != '/' && s[i] != '<' && s[i] != '=' &&
	       s[i] != '"' && s[i] != '\'')
		i++;
	if (i == name)
		return false;
	sw__buf_append(out, s + *pi, i - *pi);
	for (;;) {
		size_t ws = i;
		while (i < n && is_xml_space(s[i]))
			i++;
		sw__buf_append(out, s + ws, i - ws);
		if (i >= n)
			goto bad;
		if (s[i] == '>') {
			sw__buf_putc(out, '>');
			*pi = i + 1;
			return true;
		}
		if (s[i] == '/' && i + 1 < n && s[i + 1] == '>') {
			sw__buf_append(out, "/>", 2);
			*pi = i + 2;
			return true;
		}
		size_t an = i;
		while (i < n && !is_xml_space(s[i]) && s[i] != '=' && s[i] != '>' && s[i] != '/' && s[i] != '<' &&
		       s[i] != '"' && s[i] != '\'')
			i++;
		if (i == an)
			goto bad;
		size_t alen = i - an;
		sw__buf_append(out, s + an, alen);
		ws = i;
		while (i < n && is_xml_space(s[i]))
			i++;
		if (i >= n || s[i] != '=')
			goto bad;
		i++;
		while (i < n && is_xml_space(s[i]))
			i++;
		if (i >= n || (s[i] != '"' && s[i] != '\''))
			goto bad;
		sw__buf_append(out, s + ws, i - ws);
		char q = s[i];
		const char *end = memchr(s + i + 1, q, n - i - 1);
		if (!end)
			goto bad;
		size_t vs = i + 1, vlen = (size_t)(end - (s + vs));
		sw__buf_putc(out, q);
		if (sw__redact_is_geometry_key(s + an, alen))
			sw__buf_append(out, s + vs, vlen);
		else
			sw__redactor_redact_into(r, out, s + vs, vlen);
		sw__buf_putc(out, q);
		i = vs + vlen + 1;
	}
bad:
	out->len = mark;
	if (out->data)
		out->data[mark] = '\0';
	return false;
}

SW_API int sw_redactor_redact_xml(sw_redactor *r, const char *in, size_t len, char **out, size_t *out_len,
                                  sw_error **err)
{
	if (!r || (!in && len) || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_redactor_redact_xml: NULL argument");
	const char *s = in ? in : "";
	sw_buf b = SW_BUF_INIT;
	sw__buf_reserve(&b, len + 1);
	size_t i = 0;
	while (i < len && !b.failed) {
		const char *lt = memchr(s + i, '<', len - i);
		size_t stop = lt ? (size_t)(lt - s) : len;
		sw__redactor_redact_into(r, &b, s + i, stop - i);
		i = stop;
		if (!lt)
			break;
		size_t rest = len - i;
		bool ok;
		if (rest >= 4 && memcmp(s + i, "<!--", 4) == 0)
			ok = xml_section(r, &b, s, len, &i, "<!--", "-->");
		else if (rest >= 9 && memcmp(s + i, "<![CDATA[", 9) == 0)
			ok = xml_section(r, &b, s, len, &i, "<![CDATA[", "]]>");
		else if (rest >= 2 && memcmp(s + i, "<?", 2) == 0)
			ok = xml_section(r, &b, s, len, &i, "<?", "?>");
		else if (rest >= 2 && memcmp(s + i, "<!", 2) == 0)
			ok = xml_section(r, &b, s, len, &i, "<!", ">");
		else
			ok = xml_tag(r, &b, s, len, &i);
		if (!ok) {
			/* not markup we understand: the rest is plain text */
			sw__redactor_redact_into(r, &b, s + i, len - i);
			i = len;
		}
	}
	if (b.failed) {
		sw__buf_free(&b);
		return sw__error_nomem(err);
	}
	if (!b.data && !sw__buf_reserve(&b, 1))
		return sw__error_nomem(err);
	size_t n;
	char *res = sw__buf_steal(&b, &n);
	if (!res)
		return sw__error_nomem(err);
	*out = res;
	if (out_len)
		*out_len = n;
	return SW_OK;
}

/* ---- artifacts --------------------------------------------------------- */

/* The media type without parameters, lowercased, into @buf. */
static const char *mime_base(const char *mime, char *buf, size_t cap)
{
	size_t i = 0;
	while (mime[i] == ' ')
		mime++;
	for (; mime[i] && mime[i] != ';' && mime[i] != ' ' && i + 1 < cap; i++)
		buf[i] = (char)((mime[i] >= 'A' && mime[i] <= 'Z') ? mime[i] + 32 : mime[i]);
	buf[i] = '\0';
	return buf;
}

SW_API int sw_redact_mime_is_text(const char *mime)
{
	static const char *const app[] = {"application/json",   "application/xml",        "application/yaml",
	                                  "application/x-yaml", "application/javascript", "application/x-ndjson"};
	char buf[128];
	if (!mime)
		return 0;
	const char *m = mime_base(mime, buf, sizeof(buf));
	if (sw__str_has_prefix(m, "text/"))
		return 1;
	for (size_t i = 0; i < SW_ARRAY_SIZE(app); i++)
		if (strcmp(m, app[i]) == 0)
			return 1;
	return sw__str_has_suffix(m, "+json") || sw__str_has_suffix(m, "+xml") || sw__str_has_suffix(m, "+yaml");
}

SW_API int sw_redactor_redact_artifact(sw_redactor *r, const char *mime, const char *in, size_t len, char **out,
                                       size_t *out_len, const char **tag_out, sw_error **err)
{
	if (!r || !mime || (!in && len) || !out || !out_len)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_redactor_redact_artifact: NULL argument");
	const char *s = in ? in : "";
	if (!sw_redact_mime_is_text(mime)) {
		char *copy = malloc(len + 1);
		if (!copy)
			return sw__error_nomem(err);
		memcpy(copy, s, len);
		copy[len] = '\0';
		*out = copy;
		*out_len = len;
		if (tag_out)
			*tag_out = "not-applied";
		return SW_OK;
	}
	char buf[128];
	const char *m = mime_base(mime, buf, sizeof(buf));
	int rc;
	bool as_text = true;
	if ((strcmp(m, "application/json") == 0 || sw__str_has_suffix(m, "+json")) && memchr(s, '\0', len) == NULL) {
		char *res = NULL;
		sw_error *jerr = NULL;
		rc = sw_redactor_redact_json(r, s, &res, &jerr);
		if (rc == SW_OK) {
			*out = res;
			*out_len = strlen(res);
			as_text = false;
		} else if (rc != SW_EINVAL) {
			/* SW_EINVAL (INVALID_ARGUMENT) is text that is not JSON: redacted as text below */
			sw__error_propagate(err, jerr);
			return rc;
		}
		sw_error_free(jerr);
	} else if (strcmp(m, "application/xml") == 0 || strcmp(m, "text/xml") == 0 || sw__str_has_suffix(m, "+xml")) {
		rc = sw_redactor_redact_xml(r, s, len, out, out_len, err);
		if (rc < 0)
			return rc;
		as_text = false;
	}
	if (as_text) {
		rc = sw_redactor_redact_text(r, s, len, out, out_len, NULL, err);
		if (rc < 0)
			return rc;
	}
	if (tag_out)
		*tag_out = sw_redactor_short_count(r) > 0 ? "partial" : "applied";
	return SW_OK;
}
