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

/* Appends @s escaped for a double-quoted attribute value: plain runs in one copy each. */
static void put_escaped(sw_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	for (;; p++) {
		if (!SPECIAL[*p])
			continue;
		if (p > run)
			sw__buf_append(b, run, (size_t)(p - run));
		run = p + 1;
		switch (*p) {
		case '\0': return;
		case '&': sw__buf_append(b, "&amp;", 5); break;
		case '<': sw__buf_append(b, "&lt;", 4); break;
		case '>': sw__buf_append(b, "&gt;", 4); break;
		case '"': sw__buf_append(b, "&quot;", 6); break;
		case '\n': sw__buf_append(b, "&#10;", 5); break;
		case '\r': sw__buf_append(b, "&#13;", 5); break;
		case '\t': sw__buf_append(b, "&#9;", 4); break;
		default: break; /* other control characters: not XML 1.0 characters */
		}
	}
}

static void put_attr(sw_buf *b, const char *name, size_t nlen, const char *value)
{
	sw__buf_append(b, name, nlen);
	put_escaped(b, value);
	sw__buf_putc(b, '"');
}
#define PUT_ATTR(b, lit, v) put_attr((b), " " lit "=\"", sizeof(" " lit "=\"") - 1, (v))

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
	sw__buf_reserve(b, expect);
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
	if (b->len + 6 * raw + 512 > SW__WDA_HIERARCHY_MAX_BYTES) {
		size_t exact = 0;
		for (size_t i = 0; i < SW_ARRAY_SIZE(texts); i++)
			exact += escaped_len(texts[i]);
		if (b->len + exact + 512 > SW__WDA_HIERARCHY_MAX_BYTES)
			return false;
	}
	/* the class is always the long XCUIElementType name, whichever form the source came in */
	sw__buf_append(b, "<node class=\"", 13);
	if (*type && strncmp(type, "XCUIElementType", 15) != 0)
		sw__buf_append(b, "XCUIElementType", 15);
	put_escaped(b, type);
	sw__buf_putc(b, '"');
	/* only what differs from the parser's defaults (empty strings, false, enabled): a 50,000-element
	 * source stays small */
	if (*text)
		PUT_ATTR(b, "text", text);
	if (*id)
		PUT_ATTR(b, "resource-id", id);
	if (package && *package)
		PUT_ATTR(b, "package", package);
	if (*desc)
		PUT_ATTR(b, "content-desc", desc);
	if (ph && *ph)
		PUT_ATTR(b, "hint", ph);
	if (is_switch)
		sw__buf_puts(b, " checkable=\"true\"");
	if (is_switch && value && !strcmp(value, "1"))
		sw__buf_puts(b, " checked=\"true\"");
	if (pressable || field)
		sw__buf_puts(b, " clickable=\"true\"");
	if (!a->enabled)
		sw__buf_puts(b, " enabled=\"false\"");
	if (field)
		sw__buf_puts(b, " focusable=\"true\"");
	if (a->focused)
		sw__buf_puts(b, " focused=\"true\"");
	if (scroller)
		sw__buf_puts(b, " scrollable=\"true\"");
	if (secure)
		sw__buf_puts(b, " password=\"true\"");
	if (a->selected)
		sw__buf_puts(b, " selected=\"true\"");
	if (!visible)
		sw__buf_puts(b, " visible-to-user=\"false\"");
	if (a->geo && a->w > 0 && a->h > 0) {
		char bounds[128], *d = bounds;
		memcpy(d, " bounds=\"[", 10);
		d += 10;
		d = put_long(d, coord(a->x));
		*d++ = ',';
		d = put_long(d, coord(a->y));
		*d++ = ']';
		*d++ = '[';
		d = put_long(d, coord(a->x + a->w));
		*d++ = ',';
		d = put_long(d, coord(a->y + a->h));
		memcpy(d, "]\">", 3);
		d += 3;
		sw__buf_append(b, bounds, (size_t)(d - bounds));
	} else {
		if (a->geo)
			st->empty_frames++;
		sw__buf_append(b, " bounds=\"\">", 11);
	}
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
} xstate;

static void stop(xstate *x, int error)
{
	if (!x->error)
		x->error = error;
	xmlStopParser(x->ctxt);
}

/* Copies one attribute value into the scratch area; NULL when it does not fit (the caller grew it). */
static const char *scratch_put(xstate *x, size_t *used, const xmlChar *v, const xmlChar *vend)
{
	size_t n = (size_t)(vend - v);
	char *d = x->scratch + *used, *start = d;
	const char *s = (const char *)v, *e = (const char *)vend;
	if (!memchr(s, '&', n)) {
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

static void x_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri, int nb_ns,
                    const xmlChar **ns, int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
	(void)prefix;
	(void)uri;
	(void)nb_ns;
	(void)ns;
	(void)nb_defaulted;
	xstate *x = ((xmlParserCtxtPtr)ctx)->_private;
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

static void x_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
	(void)prefix;
	(void)uri;
	xstate *x = ((xmlParserCtxtPtr)ctx)->_private;
	x->level--;
	if (x->error || !strcmp((const char *)localname, "AppiumAUT"))
		return;
	if (x->open > 0) {
		x->open--;
		sw__buf_append(&x->out, "</node>", 7);
	}
}

static void x_dtd(void *ctx, const xmlChar *name, const xmlChar *external_id, const xmlChar *system_id)
{
	(void)name;
	(void)external_id;
	(void)system_id;
	stop(((xmlParserCtxtPtr)ctx)->_private, X_DTD);
}

int sw__wda_source_convert(const char *xml, size_t len, const char *package, size_t node_limit, char **out,
                           size_t *out_len, sw__wda_source_stats *stats, sw_error **err)
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
	xmlInitParser();
	x->ctxt = xmlCreateMemoryParserCtxt(xml, (int)len);
	if (!x->ctxt) {
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
	/* a 50,000-element source converts to about 100 bytes per element */
	sw__wda_emit_head(&x->out, len / 2 + 256);
	xmlParseDocument(x->ctxt);
	bool well_formed = x->ctxt->wellFormed;
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
	if (x->ctxt->myDoc)
		xmlFreeDoc(x->ctxt->myDoc);
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
