/* wda-source-json.c: the JSON form of a WebDriverAgent page source (GET /source?format=json), and the
 * small pull tokenizer it and the source fetch read JSON with.
 *
 * The JSON form nests one object per element: type (the short name, "Button"), name, label, value (a
 * string, a number or null), rawIdentifier, rect {x, y, width, height}, frame ("{{x, y}, {w, h}}"),
 * isEnabled / isVisible / isAccessible / isFocused as the strings "1" and "0", and children[]. Its keys
 * come in any order (children may come before the element's own keys), so each element gets one small
 * record in document order (the order its object opens) and the hierarchy is written once the document
 * has been read: at most node_limit records, never a tree of the whole document.
 *
 * The tokenizer decodes every string where it stands in the caller's buffer (a decoded string is never
 * longer than its escaped form) and NUL-terminates it there, so a 10 MB source is not copied again.
 * No JSON library of the system reads that way: jansson loads whole documents, and libyajl (Debian's
 * libyajl-dev) copies each escaped string into a buffer of its own; see docs/ios.md.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wda-source-internal.h"

/* ---- the tokenizer --------------------------------------------------------------------------- */

void sw__jpull_init(sw__jpull *j, char *buf, size_t len)
{
	memset(j, 0, sizeof(*j));
	j->p = buf;
	j->end = buf + len;
	j->want = 0;
}

static enum sw__jtok jfail(sw__jpull *j, const char *why)
{
	j->why = why;
	j->want = -1;
	return SW__J_ERROR;
}

static void skip_ws(sw__jpull *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
		j->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool hex4(const char *p, const char *end, unsigned *out)
{
	if (end - p < 4)
		return false;
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(p[i]);
		if (h < 0)
			return false;
		v = v << 4 | (unsigned)h;
	}
	*out = v;
	return true;
}

static char *put_utf8(char *d, unsigned cp)
{
	if (cp < 0x80)
		*d++ = (char)cp;
	else if (cp < 0x800) {
		*d++ = (char)(0xc0 | cp >> 6);
		*d++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*d++ = (char)(0xe0 | cp >> 12);
		*d++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*d++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*d++ = (char)(0xf0 | cp >> 18);
		*d++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*d++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*d++ = (char)(0x80 | (cp & 0x3f));
	}
	return d;
}

/* The length of the UTF-8 sequence at @p (0: not valid UTF-8). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0];
	size_t n;
	unsigned cp;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* Byte classes inside a string: 0 plain, 1 '"', 2 '\\', 3 a control character, 4 a non-ASCII byte. */
static const unsigned char SCLASS[256] = {
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 1, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
};

/* Whether any of the 8 bytes of @w is special inside a string: '"', '\\', below 0x20 or above 0x7f. */
static inline bool has_special(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
	/* a zero byte in x shows as (x - ones) & ~x & highs; bytes below 0x20 as (w - 0x20 * ones) & ~w & highs */
	uint64_t t = ((quote - ones) & ~quote) | ((slash - ones) & ~slash) | ((w - ones * 0x20) & ~w) | w;
	return (t & highs) != 0;
}

/* Reads the string whose '"' is at j->p, decoding it in place; j->s/j->n get it, NUL-terminated. */
static bool read_string(sw__jpull *j)
{
	unsigned char *p = (unsigned char *)j->p + 1, *end = (unsigned char *)j->end;
	unsigned char *start = p, *d = NULL; /* d: the write position once an escape was seen */
	if (j->dst && !j->dry) {
		/* decoded to the place asked for from the first byte on, plain runs too */
		start = d = (unsigned char *)j->dst;
	}
	j->dst = NULL;
	for (;;) {
		/* the plain run: the common case for element names and the whole of an XML source's text */
		if (d && !j->dry) {
			/* moving down as it goes, eight plain bytes at a time while there are (an XML source
			 * escapes every attribute's quotes, so the runs are short) */
			while (end - p >= 8) {
				uint64_t w;
				memcpy(&w, p, 8);
				if (has_special(w))
					break;
				memcpy(d, &w, 8);
				d += 8;
				p += 8;
			}
			while (p < end && !SCLASS[*p])
				*d++ = *p++;
		} else {
			while (end - p >= 8) {
				uint64_t w;
				memcpy(&w, p, 8);
				if (has_special(w))
					break;
				p += 8;
			}
			while (p < end && !SCLASS[*p])
				p++;
		}
		if (p >= end)
			return jfail(j, "a string is not closed"), false;
		unsigned char c = *p;
		if (c == '"')
			break;
		if (c < 0x20)
			return jfail(j, "a string holds a raw control character"), false;
		if (c >= 0x80) {
			size_t n = utf8_len(p, end);
			if (!n)
				return jfail(j, "a string is not valid UTF-8"), false;
			if (d) {
				memmove(d, p, n);
				d += n;
			}
			p += n;
			continue;
		}
		/* an escape: from here on the text is written back at d (a dry read writes nothing) */
		unsigned char dry_out[4];
		if (j->dry)
			d = dry_out;
		else if (!d)
			d = p;
		if (end - p < 2)
			return jfail(j, "a string ends inside an escape"), false;
		unsigned char e = p[1];
		p += 2;
		switch (e) {
		case '"': *d++ = '"'; break;
		case '\\': *d++ = '\\'; break;
		case '/': *d++ = '/'; break;
		case 'b': *d++ = '\b'; break;
		case 'f': *d++ = '\f'; break;
		case 'n': *d++ = '\n'; break;
		case 'r': *d++ = '\r'; break;
		case 't': *d++ = '\t'; break;
		case 'u': {
			unsigned cp;
			if (!hex4((char *)p, (char *)end, &cp))
				return jfail(j, "a \\u escape is not four hex digits"), false;
			p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				unsigned lo;
				if (end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
				    hex4((char *)p + 2, (char *)end, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				} else
					cp = 0xfffd; /* a lone surrogate */
			} else if (cp >= 0xdc00 && cp <= 0xdfff)
				cp = 0xfffd;
			if (cp == 0)
				cp = 0xfffd; /* a NUL would end the text early */
			/* 6 escaped bytes give at most 3; 12 give 4: d never passes p */
			d = (unsigned char *)put_utf8((char *)d, cp);
			break;
		}
		default: return jfail(j, "a string holds an unknown escape"), false;
		}
		if (j->dry)
			d = NULL;
	}
	if (j->dry) {
		j->s = (char *)start;
		j->n = (size_t)(p - start);
		j->p = (char *)p + 1;
		return true;
	}
	unsigned char *stop = d ? d : p;
	j->s = (char *)start;
	j->n = (size_t)(stop - start);
	*stop = '\0'; /* at or before the closing quote, which is read already */
	j->p = (char *)p + 1;
	return true;
}

static bool read_number(sw__jpull *j)
{
	const char *p = j->p, *end = j->end, *s = p;
	if (p < end && *p == '-')
		p++;
	if (p >= end || !(*p >= '0' && *p <= '9'))
		return false;
	if (*p == '0')
		p++;
	else
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	if (p < end && *p == '.') {
		p++;
		if (p >= end || !(*p >= '0' && *p <= '9'))
			return false;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || !(*p >= '0' && *p <= '9'))
			return false;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	j->s = (char *)s;
	j->n = (size_t)(p - s);
	j->p = (char *)p;
	return true;
}

static bool word(sw__jpull *j, const char *w, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return false;
	j->p += n;
	return true;
}

/* After a value: what the container expects next. */
static void after_value(sw__jpull *j)
{
	j->want = j->depth ? 2 : 4;
}

enum sw__jtok sw__jpull_next(sw__jpull *j)
{
	if (j->want < 0)
		return SW__J_ERROR;
	skip_ws(j);
	if (j->want == 4) {
		if (j->p != j->end)
			return jfail(j, "text follows the document");
		return SW__J_END;
	}
	if (j->p >= j->end)
		return jfail(j, "the document is cut short");
	char c = *j->p;
	if (j->want == 2) {
		/* ',' or the end of the container */
		unsigned char top = j->stack[j->depth - 1];
		if (c == ',') {
			j->p++;
			skip_ws(j);
			if (j->p >= j->end)
				return jfail(j, "the document is cut short");
			c = *j->p;
			j->want = top == 'o' ? 1 : 0;
			j->first = false;
		} else if ((c == '}' && top == 'o') || (c == ']' && top == 'a')) {
			j->p++;
			j->depth--;
			after_value(j);
			return c == '}' ? SW__J_OBJ_END : SW__J_ARR_END;
		} else
			return jfail(j, "a ',' or a closing bracket is missing");
	}
	if (j->want == 1) {
		/* a key, or '}' right after '{' */
		if (c == '}' && j->first) {
			j->p++;
			j->depth--;
			after_value(j);
			return SW__J_OBJ_END;
		}
		if (c != '"')
			return jfail(j, "a member name is not a string");
		if (!read_string(j))
			return SW__J_ERROR;
		skip_ws(j);
		if (j->p >= j->end || *j->p != ':')
			return jfail(j, "a ':' is missing after a member name");
		j->p++;
		j->want = 0;
		j->first = false;
		return SW__J_KEY;
	}
	/* a value */
	if (c == ']' && j->first && j->depth && j->stack[j->depth - 1] == 'a') {
		j->p++;
		j->depth--;
		after_value(j);
		return SW__J_ARR_END;
	}
	j->first = false;
	switch (c) {
	case '{':
	case '[':
		if (j->depth >= SW__JSON_MAX_NESTING)
			return jfail(j, "the document nests too deeply");
		j->stack[j->depth++] = c == '{' ? 'o' : 'a';
		j->p++;
		j->want = c == '{' ? 1 : 0;
		j->first = true;
		return c == '{' ? SW__J_OBJ : SW__J_ARR;
	case '"':
		if (!read_string(j))
			return SW__J_ERROR;
		after_value(j);
		return SW__J_STR;
	case 't':
		if (!word(j, "true", 4))
			break;
		after_value(j);
		return SW__J_TRUE;
	case 'f':
		if (!word(j, "false", 5))
			break;
		after_value(j);
		return SW__J_FALSE;
	case 'n':
		if (!word(j, "null", 4))
			break;
		after_value(j);
		return SW__J_NULL;
	default:
		if (!read_number(j))
			break;
		after_value(j);
		return SW__J_NUM;
	}
	return jfail(j, "a value is not JSON");
}

bool sw__jpull_skip(sw__jpull *j, enum sw__jtok tok)
{
	if (tok != SW__J_OBJ && tok != SW__J_ARR)
		return tok != SW__J_ERROR && tok != SW__J_END;
	size_t base = j->depth - 1;
	for (;;) {
		enum sw__jtok t = sw__jpull_next(j);
		if (t == SW__J_ERROR || t == SW__J_END)
			return false;
		if ((t == SW__J_OBJ_END || t == SW__J_ARR_END) && j->depth == base)
			return true;
	}
}

/* ---- the JSON source ------------------------------------------------------------------------- */

/* One element's record, in document order. */
typedef struct jel {
	sw__wda_el a;
	const char *rect_x, *rect_y, *rect_w, *rect_h; /* numbers as they stand (not terminated) */
	size_t rx_n, ry_n, rw_n, rh_n;
	bool rect_seen;
	const char *frame;
	const char *value_num; /* a value given as a number (a slider, a switch): terminated once read */
	size_t value_n;
	int depth;
} jel;

/* A JSON number's text to a double; false unless finite. */
static bool jnum(const char *s, size_t n, double *out)
{
	char tmp[64];
	if (!s || !n || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *end = NULL;
	double d = strtod(tmp, &end);
	if (end != tmp + n || !isfinite(d))
		return false;
	*out = d;
	return true;
}

/* "{{x, y}, {w, h}}" (NSStringFromCGRect), which may say inf or nan. */
static bool frame_of(const char *f, double v[4])
{
	if (!f)
		return false;
	double t[4];
	if (sscanf(f, " {{%lf , %lf} , {%lf , %lf}}", &t[0], &t[1], &t[2], &t[3]) != 4)
		return false;
	for (int i = 0; i < 4; i++) {
		if (!isfinite(t[i]))
			return false;
		v[i] = t[i];
	}
	return true;
}

static bool flag_of(enum sw__jtok t, const sw__jpull *j, bool *out)
{
	if (t == SW__J_TRUE || t == SW__J_FALSE) {
		*out = t == SW__J_TRUE;
		return true;
	}
	if (t == SW__J_STR) {
		*out = !strcmp(j->s, "1") || !strcmp(j->s, "true");
		return true;
	}
	if (t == SW__J_NUM) {
		*out = !(j->n == 1 && j->s[0] == '0');
		return true;
	}
	return false;
}

enum { J_OK, J_SYNTAX, J_SHAPE, J_TOO_DEEP, J_TOO_MANY, J_NOMEM, J_W3C };

typedef struct jstate {
	sw__jpull j;
	jel *els;
	size_t n, cap, node_limit;
	int error;
	const char *shape; /* what was wrong with the shape */
	const char *w3c_error, *w3c_message;
} jstate;

static bool read_rect(jstate *s, jel *e)
{
	sw__jpull *j = &s->j;
	for (;;) {
		enum sw__jtok t = sw__jpull_next(j);
		if (t == SW__J_OBJ_END)
			return true;
		if (t != SW__J_KEY) {
			s->error = J_SYNTAX;
			return false;
		}
		const char *k = j->s;
		t = sw__jpull_next(j);
		if (t == SW__J_NUM) {
			if (!strcmp(k, "x"))
				e->rect_x = j->s, e->rx_n = j->n;
			else if (!strcmp(k, "y"))
				e->rect_y = j->s, e->ry_n = j->n;
			else if (!strcmp(k, "width"))
				e->rect_w = j->s, e->rw_n = j->n;
			else if (!strcmp(k, "height"))
				e->rect_h = j->s, e->rh_n = j->n;
		} else if (!sw__jpull_skip(j, t)) {
			s->error = J_SYNTAX;
			return false;
		}
	}
}

/*
 * Reads one element object into s->els, then its children. Its '{' and the token after it (@t: a key or
 * the '}') were read by the caller.
 */
static bool read_element(jstate *s, int depth, enum sw__jtok t)
{
	sw__jpull *j = &s->j;
	if (depth >= SW__WDA_MAX_DEPTH) {
		s->error = J_TOO_DEEP;
		return false;
	}
	if (s->n >= s->node_limit) {
		s->error = J_TOO_MANY;
		return false;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 256;
		if (nc > s->node_limit)
			nc = s->node_limit;
		jel *ne = realloc(s->els, nc * sizeof(*ne));
		if (!ne) {
			s->error = J_NOMEM;
			return false;
		}
		s->els = ne;
		s->cap = nc;
	}
	size_t me = s->n++;
	memset(&s->els[me], 0, sizeof(jel));
	sw__wda_el_init(&s->els[me].a);
	s->els[me].depth = depth;
	for (bool first = true;; first = false) {
		if (!first)
			t = sw__jpull_next(j);
		if (t == SW__J_OBJ_END)
			return true;
		if (t != SW__J_KEY) {
			s->error = J_SYNTAX;
			return false;
		}
		const char *k = j->s;
		t = sw__jpull_next(j);
		if (t == SW__J_ERROR) {
			s->error = J_SYNTAX;
			return false;
		}
		jel *e = &s->els[me]; /* (taken again each time: the children may have moved the array) */
		if (!strcmp(k, "children")) {
			if (t == SW__J_NULL)
				continue;
			if (t != SW__J_ARR) {
				s->error = J_SHAPE;
				s->shape = "an element's children are not an array";
				return false;
			}
			for (;;) {
				t = sw__jpull_next(j);
				if (t == SW__J_ARR_END)
					break;
				if (t != SW__J_OBJ) {
					s->error = t == SW__J_ERROR ? J_SYNTAX : J_SHAPE;
					s->shape = "a child is not an element object";
					return false;
				}
				if (!read_element(s, depth + 1, sw__jpull_next(j)))
					return false;
			}
			continue;
		}
		if (!strcmp(k, "rect")) {
			if (t == SW__J_OBJ) {
				e->rect_seen = true;
				if (!read_rect(s, e))
					return false;
			} else if (!sw__jpull_skip(j, t)) {
				s->error = J_SYNTAX;
				return false;
			}
			continue;
		}
		const char **slot = NULL;
		bool *flag = NULL;
		if (!strcmp(k, "type"))
			slot = &e->a.type;
		else if (!strcmp(k, "name"))
			slot = &e->a.name;
		else if (!strcmp(k, "label"))
			slot = &e->a.label;
		else if (!strcmp(k, "value"))
			slot = &e->a.value;
		else if (!strcmp(k, "placeholderValue"))
			slot = &e->a.ph;
		else if (!strcmp(k, "rawIdentifier")) {
			e->a.has_ident = true;
			slot = &e->a.ident;
		} else if (!strcmp(k, "frame"))
			slot = &e->frame;
		else if (!strcmp(k, "isVisible"))
			flag = &e->a.visible;
		else if (!strcmp(k, "isEnabled"))
			flag = &e->a.enabled;
		else if (!strcmp(k, "isFocused"))
			flag = &e->a.focused;
		else if (!strcmp(k, "isSelected"))
			flag = &e->a.selected;
		if (slot && t == SW__J_STR)
			*slot = j->s;
		else if (slot && t == SW__J_NUM) {
			if (slot == &e->a.value) {
				/* a slider's or a switch's value may come as a number */
				e->value_num = j->s;
				e->value_n = j->n;
			}
		} else if (flag && flag_of(t, j, flag)) {
			/* read */
		} else if (!sw__jpull_skip(j, t)) {
			s->error = J_SYNTAX;
			return false;
		}
	}
}

/* The answer {"value": tree, "sessionId": ...} (or a bare tree object), read where it stands. */
static void read_source(jstate *s, char *buf, size_t len)
{
	sw__jpull *j = &s->j;
	sw__jpull_init(j, buf, len);
	enum sw__jtok t = sw__jpull_next(j);
	if (t != SW__J_OBJ) {
		s->error = t == SW__J_ERROR ? J_SYNTAX : J_SHAPE;
		s->shape = "the source is not a JSON object";
		return;
	}
	t = sw__jpull_next(j);
	if (t == SW__J_ERROR) {
		s->error = J_SYNTAX;
		return;
	}
	bool envelope =
	    t == SW__J_KEY && (!strcmp(j->s, "value") || !strcmp(j->s, "sessionId") || !strcmp(j->s, "status"));
	if (!envelope) {
		/* a bare element object */
		if (read_element(s, 0, t) && sw__jpull_next(j) != SW__J_END)
			s->error = J_SYNTAX;
		return;
	}
	bool tree_read = false;
	for (;;) {
		/* j->s: the member name just read */
		bool is_value = !strcmp(j->s, "value");
		t = sw__jpull_next(j);
		if (t == SW__J_ERROR) {
			s->error = J_SYNTAX;
			return;
		}
		if (is_value && t == SW__J_OBJ && !tree_read) {
			t = sw__jpull_next(j);
			if (t == SW__J_KEY && !strcmp(j->s, "error")) {
				/* a W3C error {error, message, traceback}: no element has an "error" member */
				t = sw__jpull_next(j);
				s->error = J_W3C;
				s->w3c_error = t == SW__J_STR ? j->s : "unknown error";
				if (t == SW__J_STR && sw__jpull_next(j) == SW__J_KEY && !strcmp(j->s, "message") &&
				    sw__jpull_next(j) == SW__J_STR)
					s->w3c_message = j->s;
				return;
			}
			if (t == SW__J_OBJ_END) {
				s->error = J_SHAPE;
				s->shape = "the source's value is an empty object";
				return;
			}
			if (!read_element(s, 0, t))
				return;
			tree_read = true;
		} else if (is_value && !tree_read) {
			s->error = J_SHAPE;
			s->shape = t == SW__J_STR ? "the source's value is text (the XML form), not a JSON tree"
			                          : "the source's value is not an element object";
			return;
		} else if (!sw__jpull_skip(j, t)) {
			s->error = J_SYNTAX;
			return;
		}
		t = sw__jpull_next(j);
		if (t == SW__J_OBJ_END)
			break;
		if (t != SW__J_KEY) {
			s->error = J_SYNTAX;
			return;
		}
	}
	if (sw__jpull_next(j) != SW__J_END) {
		s->error = J_SYNTAX;
		return;
	}
	if (!tree_read) {
		s->error = J_SHAPE;
		s->shape = "the answer has no \"value\" tree";
	}
}

int sw__wda_source_convert_json(char *json, size_t len, const char *package, size_t node_limit, char **out,
                                size_t *out_len, sw__wda_source_stats *stats, sw_error **err)
{
	if (!node_limit)
		node_limit = SW__WDA_NODE_LIMIT;
	jstate *s = calloc(1, sizeof(*s));
	if (!s)
		return sw__error_nomem(err);
	s->node_limit = node_limit;
	read_source(s, json, len);
	int rc = SW_OK;
	if (!s->error && s->n > 0 && !sw__wda_type_is_app(s->els[0].a.type)) {
		rc = sw__error_set(
		    err, SW_EDEVICE, "SNAPSHOT_FAILED",
		    "Check that WebDriverAgent serves an app (qa_wda {action: \"status\"})",
		    "The WebDriverAgent JSON source starts with an element of type \"%s\", not Application",
		    s->els[0].a.type ? s->els[0].a.type : "(none)");
	}
	switch (rc == SW_OK ? s->error : J_OK) {
	case J_SYNTAX:
		rc = sw__error_set(
		    err, SW_EDEVICE, "SNAPSHOT_FAILED", "Retry; if it repeats, restart WebDriverAgent",
		    "The WebDriverAgent JSON source is not well-formed: %s (read %zu element(s) before the "
		    "error)",
		    s->j.why ? s->j.why : "unexpected token", s->n);
		break;
	case J_SHAPE:
		rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "Retry; if it repeats, restart WebDriverAgent",
		                   "The WebDriverAgent JSON source is not a source: %s",
		                   s->shape ? s->shape : "unexpected content");
		break;
	case J_TOO_DEEP:
		rc = sw__error_set(err, SW_ELIMIT, "SNAPSHOT_TOO_DEEP", "Simplify the screen's view nesting",
		                   "The WebDriverAgent source nests deeper than %d elements", SW__WDA_MAX_DEPTH);
		break;
	case J_TOO_MANY:
		rc = sw__error_set(err, SW_ELIMIT, "WDA_HIERARCHY_TOO_LARGE",
		                   "Scroll to a smaller part of the screen or narrow it (fewer rows), then retry",
		                   "The WebDriverAgent source has more than %zu elements; it was not read further",
		                   node_limit);
		break;
	case J_W3C: {
		char *m =
		    s->w3c_message ? sw__utf8_cap(s->w3c_message, strlen(s->w3c_message), 300, SW_CAP_HEAD_TAIL) : NULL;
		char *e = sw__utf8_cap(s->w3c_error, strlen(s->w3c_error), 100, SW_CAP_HEAD);
		rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "Retry; if it repeats, restart WebDriverAgent",
		                   "WebDriverAgent answered the source request with an error: %s (%s)", e ? e : "?",
		                   m ? m : "no message");
		free(m);
		free(e);
		break;
	}
	case J_NOMEM: rc = sw__error_nomem(err); break;
	default: break;
	}
	if (rc == SW_OK && s->n == 0)
		rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "Retry; if it repeats, restart WebDriverAgent",
		                   "The WebDriverAgent JSON source has no elements");
	sw_buf b = SW_BUF_INIT;
	sw__wda_source_stats st = {0};
	if (rc == SW_OK) {
		sw__wda_emit_head(&b, s->n * 128 + 256);
		bool hidden_at[SW__WDA_MAX_DEPTH + 2] = {false};
		int open = 0;
		for (size_t i = 0; i < s->n && !b.failed; i++) {
			jel *e = &s->els[i];
			while (open > e->depth) {
				sw__buf_append(&b, "</node>", 7);
				open--;
			}
			/* rect is the frame with WDA's infinities turned to 0 (FBwdRectNoInf); frame still says inf or
			 * nan, and such an element is skipped as in the XML form */
			double v[4], fv[4];
			bool frame_ok = e->frame && frame_of(e->frame, fv);
			if (e->rect_seen && jnum(e->rect_x, e->rx_n, &v[0]) && jnum(e->rect_y, e->ry_n, &v[1]) &&
			    jnum(e->rect_w, e->rw_n, &v[2]) && jnum(e->rect_h, e->rh_n, &v[3]))
				e->a.geo = !e->frame || frame_ok;
			else if (!e->rect_seen && frame_ok) {
				memcpy(v, fv, sizeof(v));
				e->a.geo = true;
			} else
				e->a.geo = false;
			if (e->a.geo) {
				e->a.x = v[0];
				e->a.y = v[1];
				e->a.w = v[2];
				e->a.h = v[3];
			}
			if (!e->a.value && e->value_num && e->value_num + e->value_n < s->j.end) {
				/* the text is read: the byte after the number (a ',', a '}' or a blank) can be its end
				 */
				((char *)e->value_num)[e->value_n] = '\0';
				e->a.value = e->value_num;
			}
			st.nodes++;
			bool hidden = false;
			if (!sw__wda_emit_node(&b, &e->a, package, hidden_at[e->depth], &hidden, &st)) {
				rc = sw__error_set(
				    err, SW_ELIMIT, "WDA_HIERARCHY_TOO_LARGE",
				    "Scroll to a smaller part of the screen or narrow it (fewer rows), then retry",
				    "The WebDriverAgent source's %zu elements carry too much text for the %zu MiB "
				    "hierarchy; it "
				    "was not read further",
				    s->n, SW__WDA_HIERARCHY_MAX_BYTES >> 20);
				break;
			}
			if (hidden)
				st.hidden++;
			open = e->depth + 1;
			hidden_at[open] = hidden;
		}
		while (open-- > 0)
			sw__buf_append(&b, "</node>", 7);
		sw__wda_emit_tail(&b);
		if (rc == SW_OK && b.failed)
			rc = sw__error_nomem(err);
	}
	free(s->els);
	free(s);
	if (rc != SW_OK) {
		sw__buf_free(&b);
		return rc;
	}
	*out = sw__buf_steal(&b, out_len);
	if (stats)
		*stats = st;
	return SW_OK;
}
