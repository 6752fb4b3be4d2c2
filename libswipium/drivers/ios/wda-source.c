/* wda-source.c: a WebDriverAgent page source (XML) turned into the hierarchy the snapshot parser reads.
 *
 * WDA's `GET /source` is an XML tree of XCUIElementType* elements with type, name, label, value,
 * placeholderValue, enabled, visible, x, y, width, height (points). The snapshot module reads
 * uiautomator-shaped dumps (<hierarchy><node class= bounds= ...>), so each WDA element becomes one
 * <node> whose class keeps the XCUIElementType name; the roles follow docs/ios.md (text fields, buttons,
 * text, images, scroll containers). The document goes through libxml2's SAX2 callbacks: no tree is
 * built, each element is written out as its start tag is read, and reading stops at the first element
 * past the node limit. The JSON form of the source (wda-source-json.c) is written by the same
 * sw__wda_emit_node, so both give the same element lines.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "wda-source-internal.h"

static bool type_is(const char *t, const char *const *list)
{
	if (!t)
		return false;
	if (!strncmp(t, "XCUIElementType", 15))
		t += 15;
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(t, list[i]))
			return true;
	return false;
}

static const char *const FIELDS[] = {"TextField", "SecureTextField", "SearchField", "TextView", NULL};
/* pressable: Button, Cell, Link, Switch, Key, MenuItem, Tab; scroll containers: ScrollView, Table,
 * CollectionView, WebView (kind_of below) */

bool sw__wda_type_is_field(const char *type)
{
	return type_is(type, FIELDS);
}

bool sw__wda_type_is_app(const char *type)
{
	return type_is(type, (const char *const[]){"Application", NULL});
}

enum { K_FIELD = 1, K_SECURE = 2, K_PRESS = 4, K_SCROLL = 8, K_SWITCH = 16, K_TEXT = 32, K_APP = 64 };

/* What the role rules need to know of a type, in one look (the lists above, and three single types). */
static unsigned kind_of(const char *t)
{
	if (!strncmp(t, "XCUIElementType", 15))
		t += 15;
	switch (t[0]) {
	case 'A': return !strcmp(t, "Application") ? K_APP : 0;
	case 'B': return !strcmp(t, "Button") ? K_PRESS : 0;
	case 'C':
		if (!strcmp(t, "Cell"))
			return K_PRESS;
		return !strcmp(t, "CollectionView") ? K_SCROLL : 0;
	case 'K': return !strcmp(t, "Key") ? K_PRESS : 0;
	case 'L': return !strcmp(t, "Link") ? K_PRESS : 0;
	case 'M': return !strcmp(t, "MenuItem") ? K_PRESS : 0;
	case 'S':
		if (!strcmp(t, "StaticText"))
			return K_TEXT;
		if (!strcmp(t, "Switch"))
			return K_PRESS | K_SWITCH;
		if (!strcmp(t, "SecureTextField"))
			return K_FIELD | K_SECURE;
		if (!strcmp(t, "SearchField"))
			return K_FIELD;
		return !strcmp(t, "ScrollView") ? K_SCROLL : 0;
	case 'T':
		if (!strcmp(t, "TextField") || !strcmp(t, "TextView"))
			return K_FIELD;
		if (!strcmp(t, "Table"))
			return K_SCROLL;
		return !strcmp(t, "Tab") ? K_PRESS : 0;
	case 'W': return !strcmp(t, "WebView") ? K_SCROLL : 0;
	default: return 0;
	}
}

void sw__wda_el_init(sw__wda_el *a)
{
	memset(a, 0, sizeof(*a));
	a->visible = a->enabled = true;
}

/* Characters that an attribute value cannot carry as they are (and control characters, dropped). */
static const unsigned char SPECIAL[256] = {
    [0] = 1,  [1] = 1,  [2] = 1,  [3] = 1,  [4] = 1,  [5] = 1,   [6] = 1,   [7] = 1,   [8] = 1,
    [9] = 1,  [10] = 1, [11] = 1, [12] = 1, [13] = 1, [14] = 1,  [15] = 1,  [16] = 1,  [17] = 1,
    [18] = 1, [19] = 1, [20] = 1, [21] = 1, [22] = 1, [23] = 1,  [24] = 1,  [25] = 1,  [26] = 1,
    [27] = 1, [28] = 1, [29] = 1, [30] = 1, [31] = 1, ['&'] = 1, ['<'] = 1, ['>'] = 1, ['"'] = 1,
};

/* A long as decimal digits, without printf. */
static char *put_long(char *d, long v)
{
	char tmp[24];
	int n = 0;
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*d++ = '-';
	while (n)
		*d++ = tmp[--n];
	return d;
}

/* A frame coordinate rounded like lround, clamped into the range the snapshot parser accepts. */
static long coord(double v)
{
	if (v > 1e6)
		return 1000000;
	if (v < -1e6)
		return -1000000;
	return lround(v);
}

void sw__wda_emit_head(sw_buf *b, size_t expect)
{
	if (sw__buf_reserve(b, expect))
		sw__hint_huge_pages(b->data, b->cap);
	sw__buf_puts(b, "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">");
}

void sw__wda_emit_tail(sw_buf *b)
{
	sw__buf_puts(b, "</hierarchy>");
}

/* The bytes @s takes once escaped by put_escaped. */
static size_t escaped_len(const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': n += 5; break;
		case '<':
		case '>': n += 4; break;
		case '"': n += 6; break;
		case '\n':
		case '\r': n += 5; break;
		case '\t': n += 4; break;
		default: n += *p >= 0x20; break;
		}
	}
	return n;
}

static size_t escaped_len_all(const char *const *texts, size_t n)
{
	size_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += escaped_len(texts[i]);
	return sum;
}

/* put_escaped, writing at @d (room checked by the caller); returns the new end. */
static char *esc_to(char *d, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	for (;; p++) {
		if (!SPECIAL[*p])
			continue;
		if (p > run) {
			memcpy(d, run, (size_t)(p - run));
			d += p - run;
		}
		run = p + 1;
		switch (*p) {
		case '\0': return d;
		case '&': memcpy(d, "&amp;", 5), d += 5; break;
		case '<': memcpy(d, "&lt;", 4), d += 4; break;
		case '>': memcpy(d, "&gt;", 4), d += 4; break;
		case '"': memcpy(d, "&quot;", 6), d += 6; break;
		case '\n': memcpy(d, "&#10;", 5), d += 5; break;
		case '\r': memcpy(d, "&#13;", 5), d += 5; break;
		case '\t': memcpy(d, "&#9;", 4), d += 4; break;
		default: break; /* other control characters: not XML 1.0 characters */
		}
	}
}

bool sw__wda_emit_node(sw_buf *b, const sw__wda_el *a, const char *package, bool hidden_parent, bool *out_hidden,
                       sw__wda_source_stats *st)
{
	const char *type = a->type ? a->type : "";
	const char *name = a->name, *label = a->label, *value = a->value, *ph = a->ph;
	bool visible = !hidden_parent && a->visible;
	*out_hidden = !visible;
	if (!a->geo)
		st->bad_frames++;
	unsigned k = kind_of(type);
	bool field = k & K_FIELD, secure = k & K_SECURE, pressable = k & K_PRESS, scroller = k & K_SCROLL;
	bool is_switch = k & K_SWITCH, statictext = k & K_TEXT;
	const char *lab = label && *label ? label : NULL;
	/* #id: the accessibility identifier. The XML form has it as name when it differs from the label; the
	 * JSON form names it (rawIdentifier), shown under the same rule so that both forms give one line. */
	const char *ident = a->has_ident ? a->ident : name;
	const char *id = ident && *ident && (!lab || strcmp(ident, lab) != 0) ? ident : "";
	const char *text = "", *desc = lab ? lab : "";
	if (statictext) {
		text = value && *value ? value : (lab ? lab : "");
		desc = "";
	} else if (field) {
		/* a field's value is what was typed; WDA reports the placeholder as the value of an empty one */
		if (value && *value && !(ph && !strcmp(value, ph)))
			text = value;
	} else if (!is_switch && value && *value && (!lab || strcmp(value, lab) != 0))
		text = value;
	if (k & K_APP)
		desc = ""; /* the app's name is no element of the screen */
	/* the hierarchy stays under its cap: an element whose text would take it past is not written at all,
	 * so one element with a huge label costs no more memory than the cap (escaping can make text 6x) */
	const char *texts[] = {type, text, id, package ? package : "", desc, ph ? ph : ""};
	size_t raw = 0;
	for (size_t i = 0; i < SW_ARRAY_SIZE(texts); i++)
		raw += strlen(texts[i]);
	size_t need = 6 * raw; /* escaping makes text at most 6x */
	if (b->len + need + 512 > SW__WDA_HIERARCHY_MAX_BYTES) {
		need = escaped_len_all(texts, SW_ARRAY_SIZE(texts));
		if (b->len + need + 512 > SW__WDA_HIERARCHY_MAX_BYTES)
			return false;
	}
	/* room for all of it at once (the escaped texts plus under 400 bytes of names, flags and bounds),
	 * then written straight into the buffer */
	if (!sw__buf_reserve(b, need + 512))
		return true; /* out of memory: b->failed says so to the caller */
	char *d = b->data + b->len;
#define LIT(s) (memcpy(d, (s), sizeof(s) - 1), d += sizeof(s) - 1)
	/* the class is always the long XCUIElementType name, whichever form the source came in */
	LIT("<node class=\"");
	if (*type && strncmp(type, "XCUIElementType", 15) != 0)
		LIT("XCUIElementType");
	d = esc_to(d, type);
	*d++ = '"';
	/* only what differs from the parser's defaults (empty strings, false, enabled): a 50,000-element
	 * source stays small */
	if (*text) {
		LIT(" text=\"");
		d = esc_to(d, text);
		*d++ = '"';
	}
	if (*id) {
		LIT(" resource-id=\"");
		d = esc_to(d, id);
		*d++ = '"';
	}
	if (package && *package) {
		LIT(" package=\"");
		d = esc_to(d, package);
		*d++ = '"';
	}
	if (*desc) {
		LIT(" content-desc=\"");
		d = esc_to(d, desc);
		*d++ = '"';
	}
	if (ph && *ph) {
		LIT(" hint=\"");
		d = esc_to(d, ph);
		*d++ = '"';
	}
	if (is_switch)
		LIT(" checkable=\"true\"");
	if (is_switch && value && !strcmp(value, "1"))
		LIT(" checked=\"true\"");
	if (pressable || field)
		LIT(" clickable=\"true\"");
	if (!a->enabled)
		LIT(" enabled=\"false\"");
	if (field)
		LIT(" focusable=\"true\"");
	if (a->focused)
		LIT(" focused=\"true\"");
	if (scroller)
		LIT(" scrollable=\"true\"");
	if (secure)
		LIT(" password=\"true\"");
	if (a->selected)
		LIT(" selected=\"true\"");
	if (!visible)
		LIT(" visible-to-user=\"false\"");
	if (a->geo && a->w > 0 && a->h > 0) {
		LIT(" bounds=\"[");
		d = put_long(d, coord(a->x));
		*d++ = ',';
		d = put_long(d, coord(a->y));
		*d++ = ']';
		*d++ = '[';
		d = put_long(d, coord(a->x + a->w));
		*d++ = ',';
		d = put_long(d, coord(a->y + a->h));
		LIT("]\">");
	} else {
		if (a->geo)
			st->empty_frames++;
		LIT(" bounds=\"\">");
	}
#undef LIT
	b->len = (size_t)(d - b->data);
	b->data[b->len] = '\0';
	return true;
}

/* ---- the XML form, through SAX2 ------------------------------------------------------------ */

/* A WDA number; false when missing or not finite (inf, nan). */
static bool num_of(const char *v, double *out)
{
	if (!v)
		return false;
	/* the usual "24", "-3" or "120.5": at most 15 digits are exact in a double, and one division by an
	 * exact power of ten rounds as strtod does */
	const char *p = v;
	bool neg = *p == '-';
	if (neg)
		p++;
	unsigned long long m = 0;
	int digits = 0, frac = -1;
	for (; *p && digits <= 15; p++) {
		if (*p >= '0' && *p <= '9') {
			m = m * 10 + (unsigned)(*p - '0');
			digits++;
			if (frac >= 0)
				frac++;
		} else if (*p == '.' && frac < 0 && digits)
			frac = 0;
		else
			break;
	}
	if (!*p && digits && digits <= 15 && frac != 0) {
		static const double P10[] = {1,   1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
		                             1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
		double d = (double)m;
		if (frac > 0)
			d /= P10[frac];
		*out = neg ? -d : d;
		return true;
	}
	char *end = NULL;
	double d = strtod(v, &end);
	if (!end || end == v || *end != '\0' || !isfinite(d))
		return false;
	*out = d;
	return true;
}

enum { X_OK, X_NOT_APP, X_TOO_DEEP, X_TOO_MANY, X_TOO_BIG, X_DTD, X_NOMEM };

typedef struct xstate {
	sw_buf out;
	const char *package;
	size_t node_limit;
	sw__wda_source_stats st;
	int open;  /* converted elements open */
	int level; /* every element open (the wrapper too) */
	int error;
	bool root_seen;
	char root_name[64];
	bool hidden_at[SW__WDA_MAX_DEPTH + 2];
	/* the current start tag's attribute values, copied NUL-terminated ("&#38;" back to '&') */
	char *scratch;
	size_t scratch_cap;
	xmlParserCtxtPtr ctxt;
	bool values_terminated; /* the plain reader's values end with a NUL: used where they stand */
} xstate;

static void stop(xstate *x, int error)
{
	if (!x->error)
		x->error = error;
	if (x->ctxt)
		xmlStopParser(x->ctxt);
}

/* Copies one attribute value into the scratch area; NULL when it does not fit (the caller grew it). */
static const char *scratch_put(xstate *x, size_t *used, const xmlChar *v, const xmlChar *vend)
{
	size_t n = (size_t)(vend - v);
	char *d = x->scratch + *used, *start = d;
	const char *s = (const char *)v, *e = (const char *)vend;
	bool amp = memchr(s, '&', n) != NULL;
	if (!amp && x->values_terminated)
		return s;
	if (!amp) {
		memcpy(d, s, n);
		d += n;
	} else {
		while (s < e) {
			if (*s == '&' && e - s >= 5 && !memcmp(s, "&#38;", 5)) {
				*d++ = '&';
				s += 5;
			} else
				*d++ = *s++;
		}
	}
	*d++ = '\0';
	*used += (size_t)(d - start);
	return start;
}

/* One start tag, as libxml2's SAX2 hands it over (attributes: localname, prefix, URI, value, end). */
static void el_start(xstate *x, const xmlChar *localname, int nb_attributes, const xmlChar **attributes)
{
	x->level++;
	if (x->error)
		return;
	const char *nm = (const char *)localname;
	if (!strcmp(nm, "AppiumAUT"))
		return;
	if (!x->root_seen) {
		x->root_seen = true;
		if (strcmp(nm, "XCUIElementTypeApplication") != 0) {
			snprintf(x->root_name, sizeof(x->root_name), "%s", nm);
			stop(x, X_NOT_APP);
			return;
		}
	}
	int depth = x->open;
	if (depth >= SW__WDA_MAX_DEPTH) {
		stop(x, X_TOO_DEEP);
		return;
	}
	if (++x->st.nodes > x->node_limit) {
		stop(x, X_TOO_MANY);
		return;
	}
	/* the values take at most their raw bytes plus a NUL each */
	size_t need = 0;
	for (int k = 0; k < nb_attributes; k++)
		need += (size_t)(attributes[5 * k + 4] - attributes[5 * k + 3]) + 1;
	if (need > x->scratch_cap) {
		size_t nc = x->scratch_cap ? x->scratch_cap : 4096;
		while (nc < need)
			nc *= 2;
		char *ns2 = realloc(x->scratch, nc);
		if (!ns2) {
			stop(x, X_NOMEM);
			return;
		}
		x->scratch = ns2;
		x->scratch_cap = nc;
	}
	sw__wda_el a;
	sw__wda_el_init(&a);
	const char *xs = NULL, *ys = NULL, *ws = NULL, *hs = NULL;
	size_t used = 0;
	for (int k = 0; k < nb_attributes; k++) {
		const xmlChar **at = attributes + 5 * k;
		const char *key = (const char *)at[0];
		if (at[1]) /* a prefixed attribute is none of WDA's */
			continue;
		const char **slot = NULL;
		bool *flag = NULL;
		switch (key[0]) {
		case 't': slot = !strcmp(key, "type") ? &a.type : NULL; break;
		case 'n': slot = !strcmp(key, "name") ? &a.name : NULL; break;
		case 'l': slot = !strcmp(key, "label") ? &a.label : NULL; break;
		case 'v':
			if (!strcmp(key, "value"))
				slot = &a.value;
			else if (!strcmp(key, "visible"))
				flag = &a.visible;
			break;
		case 'p': slot = !strcmp(key, "placeholderValue") ? &a.ph : NULL; break;
		case 'x': slot = !key[1] ? &xs : NULL; break;
		case 'y': slot = !key[1] ? &ys : NULL; break;
		case 'w': slot = !strcmp(key, "width") ? &ws : NULL; break;
		case 'h': slot = !strcmp(key, "height") ? &hs : NULL; break;
		case 'e': flag = !strcmp(key, "enabled") ? &a.enabled : NULL; break;
		case 'f': flag = !strcmp(key, "focused") ? &a.focused : NULL; break;
		case 's': flag = !strcmp(key, "selected") ? &a.selected : NULL; break;
		default: break;
		}
		if (flag) {
			size_t n = (size_t)(at[4] - at[3]);
			*flag = (n == 4 && !memcmp(at[3], "true", 4)) || (n == 1 && at[3][0] == '1');
		} else if (slot && !*slot)
			*slot = scratch_put(x, &used, at[3], at[4]);
	}
	if (!a.type)
		a.type = nm;
	a.geo = num_of(xs, &a.x) && num_of(ys, &a.y) && num_of(ws, &a.w) && num_of(hs, &a.h);
	bool hidden = false;
	if (!sw__wda_emit_node(&x->out, &a, x->package, x->hidden_at[depth], &hidden, &x->st)) {
		stop(x, X_TOO_BIG);
		return;
	}
	if (hidden)
		x->st.hidden++;
	x->open++;
	x->hidden_at[x->open] = hidden;
}

static void x_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri, int nb_ns,
                    const xmlChar **ns, int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
	(void)prefix;
	(void)uri;
	(void)nb_ns;
	(void)ns;
	(void)nb_defaulted;
	el_start(((xmlParserCtxtPtr)ctx)->_private, localname, nb_attributes, attributes);
}

static void el_end(xstate *x, const xmlChar *localname)
{
	x->level--;
	if (x->error || !strcmp((const char *)localname, "AppiumAUT"))
		return;
	if (x->open > 0) {
		x->open--;
		sw__buf_append(&x->out, "</node>", 7);
	}
}

static void x_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
	(void)prefix;
	(void)uri;
	el_end(((xmlParserCtxtPtr)ctx)->_private, localname);
}

static void x_dtd(void *ctx, const xmlChar *name, const xmlChar *external_id, const xmlChar *system_id)
{
	(void)name;
	(void)external_id;
	(void)system_id;
	stop(((xmlParserCtxtPtr)ctx)->_private, X_DTD);
}

/* ---- the plain reader ---------------------------------------------------------------------------
 *
 * WebDriverAgent writes its XML in one plain shape: a declaration, elements with double-quoted
 * attributes, whitespace between tags, the predefined entities and &#9; &#10; &#13;, UTF-8. That shape
 * is read here in one pass, each start and end tag handed to el_start/el_end exactly as libxml2's SAX2
 * would hand it (values decoded, an escaped '&' as "&#38;"). Anything else (a DTD, a comment, a CDATA
 * section, a namespace, text, another entity, a literal tab or line break in a value, bytes that are not
 * well-formed UTF-8 or not XML characters, a repeated attribute, a mismatched end tag, deep nesting)
 * makes it give up before the end, and the whole source is read again by libxml2, which then decides.
 * A limit that el_start reaches (the node limit, the depth, the hierarchy's size, a root that is no
 * Application) is final: libxml2 would have reached it at the same element with the same state, since
 * everything before it was read the same. check-wda-readers compares the two on every seed and on
 * damaged copies.
 */

#define PX_MAX_DEPTH 200 /* libxml2 refuses past 256 levels: deeper sources are its to judge */
#define PX_MAX_ATTRS 64
#define PX_MAX_NAME 200

typedef struct px {
	xstate *x;
	const char *p, *end;
	char *buf; /* one tag's names and decoded values, NUL-terminated */
	size_t cap, used;
	const char *open_name[PX_MAX_DEPTH];
	size_t open_len[PX_MAX_DEPTH];
	size_t depth;
} px;

static inline bool px_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

static inline void px_skip_ws(px *r)
{
	while (r->p < r->end && px_ws(*r->p))
		r->p++;
}

/* Name bytes of the plain shape: 1 may start a name, 2 may follow (ASCII letters, '_'; digits, '-', '.'). */
static const unsigned char PX_NAME[256] = {
    ['-'] = 2, ['.'] = 2, ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2, ['7'] = 2,
    ['8'] = 2, ['9'] = 2, ['_'] = 3, ['A'] = 3, ['B'] = 3, ['C'] = 3, ['D'] = 3, ['E'] = 3, ['F'] = 3, ['G'] = 3,
    ['H'] = 3, ['I'] = 3, ['J'] = 3, ['K'] = 3, ['L'] = 3, ['M'] = 3, ['N'] = 3, ['O'] = 3, ['P'] = 3, ['Q'] = 3,
    ['R'] = 3, ['S'] = 3, ['T'] = 3, ['U'] = 3, ['V'] = 3, ['W'] = 3, ['X'] = 3, ['Y'] = 3, ['Z'] = 3, ['a'] = 3,
    ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3, ['g'] = 3, ['h'] = 3, ['i'] = 3, ['j'] = 3, ['k'] = 3,
    ['l'] = 3, ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3, ['r'] = 3, ['s'] = 3, ['t'] = 3, ['u'] = 3,
    ['v'] = 3, ['w'] = 3, ['x'] = 3, ['y'] = 3, ['z'] = 3,
};

static bool px_name_char(unsigned char c, bool first)
{
	return PX_NAME[c] & (first ? 1 : 2);
}

/* A name at r->p: its length (0: none, too long, or one of the reserved xml names). */
static size_t px_name(px *r)
{
	const char *n = r->p;
	if (r->p >= r->end || !px_name_char((unsigned char)*r->p, true))
		return 0;
	while (r->p < r->end && px_name_char((unsigned char)*r->p, false))
		r->p++;
	size_t len = (size_t)(r->p - n);
	if (len > PX_MAX_NAME || (len >= 3 && (n[0] | 0x20) == 'x' && (n[1] | 0x20) == 'm' && (n[2] | 0x20) == 'l'))
		return 0;
	return len;
}

/* Room for @n more bytes in the tag buffer (offsets into it stay valid, pointers do not). */
static bool px_room(px *r, size_t n)
{
	if (n <= r->cap - r->used)
		return true;
	size_t nc = r->cap ? r->cap : 4096;
	while (nc - r->used < n)
		nc *= 2;
	char *nb = realloc(r->buf, nc);
	if (!nb)
		return false;
	r->buf = nb;
	r->cap = nc;
	return true;
}

static size_t px_copy(px *r, const char *s, size_t n)
{
	size_t at = r->used;
	memcpy(r->buf + at, s, n);
	r->buf[at + n] = '\0';
	r->used += n + 1;
	return at;
}

/* Printable ASCII a value holds as it is: all but the quotes, '&' and '<'. */
static const unsigned char PX_SAFE[256] = {
#define R8(v) v, v, v, v, v, v, v, v
    R8(0), R8(0), R8(0), R8(0),                                  /* 0x00-0x1f */
    1,     1,     0,     1,     1, 1, 0, 0, R8(1), R8(1), 1, 1, 1, 1, 0, 1, 1, 1, /* 0x20-0x3f */
    R8(1), R8(1), R8(1), R8(1), R8(1), R8(1), R8(1), 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40-0x7f */
#undef R8
};

/* A quoted value at r->p, decoded into the tag buffer as libxml2 hands it over: its offset and length. */
static bool px_value(px *r, size_t *off, size_t *vlen)
{
	if (r->p >= r->end || (*r->p != '"' && *r->p != '\''))
		return false;
	char q = *r->p++;
	const char *close = memchr(r->p, q, (size_t)(r->end - r->p));
	/* decoding never lengthens ("&amp;" stays five bytes, as "&#38;") */
	if (!close || !px_room(r, (size_t)(close - r->p) + 1))
		return false;
	char *dst = r->buf + r->used, *d = dst;
	const unsigned char *p = (const unsigned char *)r->p, *e = (const unsigned char *)close;
	while (p < e) {
		const unsigned char *run = p;
		while (p < e && PX_SAFE[*p])
			p++;
		memcpy(d, run, (size_t)(p - run));
		d += p - run;
		if (p == e)
			break;
		unsigned char c = *p;
		if (c >= 0x80) {
			uint32_t cp = 0;
			size_t n = sw__utf8_decode(p, (size_t)(e - p), &cp);
			if (n < 2 || cp == 0xfffe || cp == 0xffff)
				return false;
			memcpy(d, p, n);
			d += n;
			p += n;
			continue;
		}
		if (c == '"' || c == '\'') {
			*d++ = (char)c;
			p++;
			continue;
		}
		if (c != '&')
			return false; /* '<', a control character, or a tab or line break libxml2 would normalise */
		static const struct {
			const char *ent, *as;
			size_t n;
		} ents[] = {{"&amp;", "&#38;", 5}, {"&lt;", "<", 4},    {"&gt;", ">", 4},    {"&quot;", "\"", 6},
		            {"&apos;", "'", 6},    {"&#10;", "\n", 5},  {"&#13;", "\r", 5},  {"&#9;", "\t", 4},
		            {"&#38;", "&#38;", 5}};
		size_t k = 0;
		while (k < SW_ARRAY_SIZE(ents) &&
		       ((size_t)(e - p) < ents[k].n || memcmp(p, ents[k].ent, ents[k].n) != 0))
			k++;
		if (k == SW_ARRAY_SIZE(ents))
			return false;
		size_t an = strlen(ents[k].as);
		memcpy(d, ents[k].as, an);
		d += an;
		p += ents[k].n;
	}
	*d = '\0';
	*off = r->used;
	*vlen = (size_t)(d - dst);
	r->used += *vlen + 1;
	r->p = close + 1;
	return true;
}

/* One start tag at r->p (just past '<'), handed to el_start (and el_end when empty). */
static bool px_start_tag(px *r)
{
	const char *name = r->p;
	size_t nlen = px_name(r);
	if (!nlen || r->p >= r->end || (!px_ws(*r->p) && *r->p != '>' && *r->p != '/'))
		return false;
	r->used = 0;
	size_t an_off[PX_MAX_ATTRS], an_len[PX_MAX_ATTRS], av_off[PX_MAX_ATTRS], av_len[PX_MAX_ATTRS];
	const char *an_raw[PX_MAX_ATTRS];
	size_t n = 0;
	bool empty = false;
	for (;;) {
		bool spaced = r->p < r->end && px_ws(*r->p);
		px_skip_ws(r);
		if (r->p >= r->end)
			return false;
		if (*r->p == '>' || (*r->p == '/' && r->end - r->p >= 2 && r->p[1] == '>')) {
			empty = *r->p == '/';
			r->p += empty ? 2 : 1;
			break;
		}
		if (!spaced || n == PX_MAX_ATTRS)
			return false;
		const char *an = r->p;
		size_t al = px_name(r);
		if (!al)
			return false;
		for (size_t i = 0; i < n; i++)
			if (an_len[i] == al && an_raw[i][0] == an[0] && !memcmp(an_raw[i], an, al))
				return false; /* a repeated attribute: libxml2's error to report */
		px_skip_ws(r);
		if (r->p >= r->end || *r->p != '=')
			return false;
		r->p++;
		px_skip_ws(r);
		if (!px_room(r, al + 1))
			return false;
		an_raw[n] = an;
		an_len[n] = al;
		an_off[n] = px_copy(r, an, al);
		if (!px_value(r, &av_off[n], &av_len[n]))
			return false;
		n++;
	}
	if (!px_room(r, nlen + 1))
		return false;
	size_t name_off = px_copy(r, name, nlen);
	const xmlChar *atts[5 * PX_MAX_ATTRS];
	for (size_t i = 0; i < n; i++) {
		atts[5 * i] = (const xmlChar *)r->buf + an_off[i];
		atts[5 * i + 1] = atts[5 * i + 2] = NULL;
		atts[5 * i + 3] = (const xmlChar *)r->buf + av_off[i];
		atts[5 * i + 4] = atts[5 * i + 3] + av_len[i];
	}
	const xmlChar *nm = (const xmlChar *)r->buf + name_off;
	el_start(r->x, nm, (int)n, atts);
	if (empty)
		el_end(r->x, nm);
	else {
		if (r->depth == PX_MAX_DEPTH)
			return false;
		r->open_name[r->depth] = name;
		r->open_len[r->depth++] = nlen;
	}
	return true;
}

/*
 * The whole source in the plain shape: true when it was read to its end or el_start stopped it (x->error),
 * false when the reader gave up (x then half-filled: the caller starts again with libxml2).
 */
static bool px_read(xstate *x, const char *xml, size_t len)
{
	px r = {.x = x, .p = xml, .end = xml + len};
	bool ok = false;
	x->values_terminated = true;
	static const char decl[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
	if ((size_t)(r.end - r.p) >= sizeof(decl) - 1 && !memcmp(r.p, decl, sizeof(decl) - 1))
		r.p += sizeof(decl) - 1;
	bool root_done = false;
	for (;;) {
		px_skip_ws(&r);
		if (root_done || x->error) {
			ok = x->error || r.p == r.end;
			break;
		}
		if (r.end - r.p < 2 || *r.p != '<')
			break; /* text, or the end before the root closed */
		if (r.p[1] == '/') {
			r.p += 2;
			const char *n = r.p;
			size_t nl = px_name(&r);
			if (!nl || !r.depth || r.open_len[r.depth - 1] != nl || memcmp(r.open_name[r.depth - 1], n, nl) != 0)
				break;
			px_skip_ws(&r);
			if (r.p >= r.end || *r.p != '>')
				break;
			r.p++;
			char nm[PX_MAX_NAME + 1];
			memcpy(nm, n, nl);
			nm[nl] = '\0';
			r.depth--;
			el_end(x, (const xmlChar *)nm);
			root_done = r.depth == 0;
			continue;
		}
		r.p++;
		bool was_empty_doc = r.depth == 0;
		size_t before = r.depth;
		if (!px_start_tag(&r))
			break;
		if (was_empty_doc && r.depth == before)
			root_done = true; /* <Root/> */
	}
	free(r.buf);
	return ok;
}

int sw__wda_source_convert(const char *xml, size_t len, const char *package, size_t node_limit, char **out,
                           size_t *out_len, sw__wda_source_stats *stats, sw_error **err)
{
	return sw__wda_source_convert_with(xml, len, package, node_limit, true, out, out_len, stats, err);
}

int sw__wda_source_convert_with(const char *xml, size_t len, const char *package, size_t node_limit,
                                bool plain_reader, char **out, size_t *out_len, sw__wda_source_stats *stats,
                                sw_error **err)
{
	size_t skip = 0;
	while (skip < len && (xml[skip] == ' ' || xml[skip] == '\t' || xml[skip] == '\n' || xml[skip] == '\r'))
		skip++;
	if (skip < len && xml[skip] == '{') {
		/* the JSON form: its reader decodes in place, so it gets a copy of what the caller lent */
		char *copy = sw__strndup(xml, len);
		if (!copy)
			return sw__error_nomem(err);
		int rc = sw__wda_source_convert_json(copy, len, package, node_limit, out, out_len, stats, err);
		free(copy);
		return rc;
	}
	if (!node_limit)
		node_limit = SW__WDA_NODE_LIMIT;
	if (len > INT32_MAX)
		return sw__error_set(err, SW_ELIMIT, "WDA_HIERARCHY_TOO_LARGE",
		                     "Narrow the screen (fewer rows) and retry",
		                     "The WebDriverAgent source is %zu bytes, too large to read", len);
	if (len == 0)
		return sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "Retry; if it repeats, restart WebDriverAgent",
		                     "The WebDriverAgent source is empty");
	xstate *x = calloc(1, sizeof(*x));
	if (!x)
		return sw__error_nomem(err);
	x->package = package;
	x->node_limit = node_limit;
	/* a 50,000-element source converts to about 100 bytes per element */
	sw__wda_emit_head(&x->out, len / 2 + 256);
	size_t head_len = x->out.len;
	bool well_formed = true;
	if (plain_reader && px_read(x, xml, len)) {
		x->st.plain = true;
		goto read;
	}
	/* the plain reader gave up: everything again, through libxml2 */
	if (x->out.data) {
		x->out.len = head_len;
		x->out.data[head_len] = '\0';
	}
	memset(&x->st, 0, sizeof(x->st));
	x->values_terminated = false;
	x->open = x->level = x->error = 0;
	x->root_seen = false;
	x->root_name[0] = '\0';
	xmlInitParser();
	x->ctxt = xmlCreateMemoryParserCtxt(xml, (int)len);
	if (!x->ctxt) {
		sw__buf_free(&x->out);
		free(x->scratch);
		free(x);
		return sw__error_nomem(err);
	}
	/* no network, no entity substitution, no DTD (refused as soon as one is declared) */
	xmlCtxtUseOptions(x->ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA |
	                               XML_PARSE_NOBLANKS);
	xmlSAXHandlerPtr sax = x->ctxt->sax;
	sax->startElementNs = x_start;
	sax->endElementNs = x_end;
	sax->internalSubset = x_dtd;
	sax->externalSubset = x_dtd;
	sax->characters = NULL;
	sax->ignorableWhitespace = NULL;
	sax->cdataBlock = NULL;
	sax->comment = NULL;
	sax->processingInstruction = NULL;
	sax->reference = NULL;
	sax->startDocument = NULL; /* no document object either */
	sax->endDocument = NULL;
	x->ctxt->_private = x;
	xmlParseDocument(x->ctxt);
	well_formed = x->ctxt->wellFormed;
read:;
	int rc = SW_OK;
	switch (x->error) {
	case X_NOT_APP:
		rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED",
		                   "Check that WebDriverAgent serves an app (qa_wda {action: \"status\"})",
		                   "The WebDriverAgent source starts with <%s>, not <XCUIElementTypeApplication>",
		                   x->root_name);
		break;
	case X_TOO_DEEP:
		rc = sw__error_set(err, SW_ELIMIT, "SNAPSHOT_TOO_DEEP", "Simplify the screen's view nesting",
		                   "The WebDriverAgent source nests deeper than %d elements", SW__WDA_MAX_DEPTH);
		break;
	case X_TOO_MANY:
		rc = sw__error_set(err, SW_ELIMIT, "WDA_HIERARCHY_TOO_LARGE",
		                   "Scroll to a smaller part of the screen or narrow it (fewer rows), then retry",
		                   "The WebDriverAgent source has more than %zu elements; it was not read further",
		                   node_limit);
		break;
	case X_TOO_BIG:
		rc = sw__error_set(err, SW_ELIMIT, "WDA_HIERARCHY_TOO_LARGE",
		                   "Scroll to a smaller part of the screen or narrow it (fewer rows), then retry",
		                   "The WebDriverAgent source's %zu elements carry too much text for the %zu MiB "
		                   "hierarchy; it was not read "
		                   "further",
		                   x->st.nodes, SW__WDA_HIERARCHY_MAX_BYTES >> 20);
		break;
	case X_DTD:
		rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "Check that the URL is WebDriverAgent's",
		                   "The WebDriverAgent source declares a DTD, which is not accepted");
		break;
	case X_NOMEM: rc = sw__error_nomem(err); break;
	default:
		if (!well_formed)
			rc = sw__error_set(
			    err, SW_EDEVICE, "SNAPSHOT_FAILED", "Retry; if it repeats, restart WebDriverAgent",
			    "The WebDriverAgent source is not well-formed XML (read %zu element(s) before the "
			    "error)",
			    x->st.nodes);
		else if (!x->root_seen)
			rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED",
			                   "Retry; if it repeats, restart WebDriverAgent",
			                   "The WebDriverAgent source has no elements");
	}
	if (x->ctxt && x->ctxt->myDoc)
		xmlFreeDoc(x->ctxt->myDoc);
	if (x->ctxt)
		xmlFreeParserCtxt(x->ctxt);
	free(x->scratch);
	if (rc == SW_OK) {
		sw__wda_emit_tail(&x->out);
		if (x->out.failed)
			rc = sw__error_nomem(err);
	}
	if (rc != SW_OK) {
		sw__buf_free(&x->out);
		free(x);
		return rc;
	}
	*out = sw__buf_steal(&x->out, out_len);
	if (stats)
		*stats = x->st;
	free(x);
	return SW_OK;
}
