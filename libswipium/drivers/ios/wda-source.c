/* wda-source.c: a WebDriverAgent page source (XML) turned into the hierarchy the snapshot parser reads.
 *
 * WDA's `GET /source` is an XML tree of XCUIElementType* elements with type, name, label, value,
 * placeholderValue, enabled, visible, x, y, width, height (points). The snapshot module reads
 * uiautomator-shaped dumps (<hierarchy><node class= bounds= ...>), so each WDA element becomes one
 * <node> whose class keeps the XCUIElementType name; the roles follow docs/ios.md (text fields, buttons,
 * text, images, scroll containers). The document is read with libxml2's streaming reader, never as a
 * whole tree, and at most SW__WDA_NODE_LIMIT elements are converted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "ios-internal.h"

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
static const char *const PRESSABLE[] = {"Button", "Cell", "Link", "Switch", "Key", "MenuItem", "Tab", NULL};
static const char *const SCROLLERS[] = {"ScrollView", "Table", "CollectionView", "WebView", NULL};

bool sw__wda_type_is_field(const char *type)
{
	return type_is(type, FIELDS);
}

static void put_escaped(sw_buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sw__buf_puts(b, "&amp;"); break;
		case '<': sw__buf_puts(b, "&lt;"); break;
		case '>': sw__buf_puts(b, "&gt;"); break;
		case '"': sw__buf_puts(b, "&quot;"); break;
		case '\n': sw__buf_puts(b, "&#10;"); break;
		case '\r': sw__buf_puts(b, "&#13;"); break;
		case '\t': sw__buf_puts(b, "&#9;"); break;
		default:
			if ((unsigned char)*s >= 0x20)
				sw__buf_putc(b, *s);
		}
	}
}

static void put_attr(sw_buf *b, const char *name, const char *value)
{
	sw__buf_putc(b, ' ');
	sw__buf_puts(b, name);
	sw__buf_puts(b, "=\"");
	put_escaped(b, value);
	sw__buf_putc(b, '"');
}

/* The attributes of one WDA element, read in one pass over the reader's attributes. */
typedef struct wattrs {
	char *type, *name, *label, *value, *ph, *x, *y, *w, *h;
	bool visible, enabled, focused, selected;
} wattrs;

static void wattrs_read(xmlTextReaderPtr r, wattrs *a)
{
	memset(a, 0, sizeof(*a));
	a->visible = a->enabled = true;
	while (xmlTextReaderMoveToNextAttribute(r) == 1) {
		const char *k = (const char *)xmlTextReaderConstLocalName(r);
		const char *v = (const char *)xmlTextReaderConstValue(r);
		if (!k || !v)
			continue;
		char **slot = NULL;
		bool *flag = NULL;
		switch (k[0]) {
		case 't': slot = !strcmp(k, "type") ? &a->type : NULL; break;
		case 'n': slot = !strcmp(k, "name") ? &a->name : NULL; break;
		case 'l': slot = !strcmp(k, "label") ? &a->label : NULL; break;
		case 'v':
			if (!strcmp(k, "value"))
				slot = &a->value;
			else if (!strcmp(k, "visible"))
				flag = &a->visible;
			break;
		case 'p': slot = !strcmp(k, "placeholderValue") ? &a->ph : NULL; break;
		case 'x': slot = !k[1] ? &a->x : NULL; break;
		case 'y': slot = !k[1] ? &a->y : NULL; break;
		case 'w': slot = !strcmp(k, "width") ? &a->w : NULL; break;
		case 'h': slot = !strcmp(k, "height") ? &a->h : NULL; break;
		case 'e': flag = !strcmp(k, "enabled") ? &a->enabled : NULL; break;
		case 'f': flag = !strcmp(k, "focused") ? &a->focused : NULL; break;
		case 's': flag = !strcmp(k, "selected") ? &a->selected : NULL; break;
		default: break;
		}
		if (slot && !*slot)
			*slot = sw__strdup(v);
		if (flag)
			*flag = !strcmp(v, "true") || !strcmp(v, "1");
	}
	xmlTextReaderMoveToElement(r);
}

static void wattrs_clear(wattrs *a)
{
	char *all[] = {a->type, a->name, a->label, a->value, a->ph, a->x, a->y, a->w, a->h};
	for (size_t i = 0; i < SW_ARRAY_SIZE(all); i++)
		free(all[i]);
}

/* A WDA number; false when missing or not finite (inf, nan). */
static bool num_of(const char *v, double *out)
{
	if (!v)
		return false;
	char *end = NULL;
	double d = strtod(v, &end);
	if (!end || end == v || *end != '\0' || !isfinite(d))
		return false;
	*out = d;
	return true;
}

/* One element's <node ...> opening tag. @hidden: inside a visible="false" subtree. */
static void put_node(sw_buf *b, const wattrs *a, const char *type, const char *package, bool hidden, bool *out_hidden,
                     sw__wda_source_stats *st)
{
	const char *name = a->name, *label = a->label, *value = a->value, *ph = a->ph;
	bool visible = !hidden && a->visible;
	*out_hidden = !visible;
	double x = 0, y = 0, w = 0, h = 0;
	bool geo = num_of(a->x, &x) && num_of(a->y, &y) && num_of(a->w, &w) && num_of(a->h, &h);
	if (!geo)
		st->bad_frames++;
	bool field = type_is(type, FIELDS);
	bool secure = type_is(type, (const char *const[]){"SecureTextField", NULL});
	bool pressable = type_is(type, PRESSABLE);
	bool scroller = type_is(type, SCROLLERS);
	bool is_switch = type_is(type, (const char *const[]){"Switch", NULL});
	bool statictext = type_is(type, (const char *const[]){"StaticText", NULL});
	const char *lab = label && *label ? label : NULL;
	/* #id: the accessibility identifier, which WDA reports as name when it differs from the label */
	const char *id = name && *name && (!lab || strcmp(name, lab) != 0) ? name : "";
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
	if (type_is(type, (const char *const[]){"Application", NULL}))
		desc = ""; /* the app's name is no element of the screen */
	/* only what differs from the parser's defaults (empty strings, false, enabled): a 50,000-element
	 * source stays small */
	sw__buf_puts(b, "<node");
	put_attr(b, "class", type);
	if (*text)
		put_attr(b, "text", text);
	if (*id)
		put_attr(b, "resource-id", id);
	if (package && *package)
		put_attr(b, "package", package);
	if (*desc)
		put_attr(b, "content-desc", desc);
	if (ph && *ph)
		put_attr(b, "hint", ph);
	if (is_switch)
		put_attr(b, "checkable", "true");
	if (is_switch && value && !strcmp(value, "1"))
		put_attr(b, "checked", "true");
	if (pressable || field)
		put_attr(b, "clickable", "true");
	if (!a->enabled)
		put_attr(b, "enabled", "false");
	if (field)
		put_attr(b, "focusable", "true");
	if (a->focused)
		put_attr(b, "focused", "true");
	if (scroller)
		put_attr(b, "scrollable", "true");
	if (secure)
		put_attr(b, "password", "true");
	if (a->selected)
		put_attr(b, "selected", "true");
	if (!visible)
		put_attr(b, "visible-to-user", "false");
	if (geo && w > 0 && h > 0) {
		char bounds[128];
		snprintf(bounds, sizeof(bounds), "[%ld,%ld][%ld,%ld]", lround(x), lround(y), lround(x + w), lround(y + h));
		put_attr(b, "bounds", bounds);
	} else {
		if (geo)
			st->empty_frames++;
		put_attr(b, "bounds", "");
	}
	sw__buf_putc(b, '>');
}

int sw__wda_source_convert(const char *xml, size_t len, const char *package, size_t node_limit, char **out,
                           size_t *out_len, sw__wda_source_stats *stats, sw_error **err)
{
	sw__wda_source_stats st = {0};
	if (!node_limit)
		node_limit = SW__WDA_NODE_LIMIT;
	if (len > INT32_MAX)
		return sw__error_set(err, SW_ELIMIT, "WDA_HIERARCHY_TOO_LARGE", "Narrow the screen (fewer rows) and retry",
		                     "The WebDriverAgent source is %zu bytes, too large to read", len);
	xmlTextReaderPtr r = xmlReaderForMemory(xml, (int)len, NULL, "UTF-8", XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!r)
		return sw__error_nomem(err);
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">");
	/* hidden state per depth: a visible="false" element hides its whole subtree */
	bool hidden_at[SW__WDA_MAX_DEPTH + 2] = {false};
	int open = 0, ret, rc = SW_OK;
	bool root_seen = false;
	while ((ret = xmlTextReaderRead(r)) == 1) {
		int kind = xmlTextReaderNodeType(r);
		const char *nm = (const char *)xmlTextReaderConstLocalName(r);
		if (!nm)
			continue;
		bool wrapper = !strcmp(nm, "AppiumAUT");
		if (kind == XML_READER_TYPE_ELEMENT) {
			if (wrapper)
				continue;
			int depth = open;
			if (!root_seen) {
				root_seen = true;
				if (strcmp(nm, "XCUIElementTypeApplication") != 0) {
					rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED",
					                   "Check that WebDriverAgent serves an app (qa_wda {action: \"status\"})",
					                   "The WebDriverAgent source starts with <%s>, not <XCUIElementTypeApplication>",
					                   nm);
					break;
				}
			}
			if (depth >= SW__WDA_MAX_DEPTH) {
				rc = sw__error_set(err, SW_ELIMIT, "SNAPSHOT_TOO_DEEP", "Simplify the screen's view nesting",
				                   "The WebDriverAgent source nests deeper than %d elements", SW__WDA_MAX_DEPTH);
				break;
			}
			if (++st.nodes > node_limit) {
				rc = sw__error_set(err, SW_ELIMIT, "WDA_HIERARCHY_TOO_LARGE",
				                   "Scroll to a smaller part of the screen or narrow it (fewer rows), then retry",
				                   "The WebDriverAgent source has more than %zu elements; it was not read further",
				                   node_limit);
				break;
			}
			bool empty = xmlTextReaderIsEmptyElement(r) == 1;
			wattrs a;
			wattrs_read(r, &a);
			bool hidden = false;
			put_node(&b, &a, a.type ? a.type : nm, package, hidden_at[depth], &hidden, &st);
			wattrs_clear(&a);
			if (hidden)
				st.hidden++;
			if (empty)
				sw__buf_puts(&b, "</node>");
			else {
				open++;
				hidden_at[open] = hidden;
			}
		} else if (kind == XML_READER_TYPE_END_ELEMENT) {
			if (wrapper)
				continue;
			if (open > 0) {
				open--;
				sw__buf_puts(&b, "</node>");
			}
		}
	}
	if (rc == SW_OK && ret != 0)
		rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "Retry; if it repeats, restart WebDriverAgent",
		                   "The WebDriverAgent source is not well-formed XML (read %zu element(s) before the error)",
		                   st.nodes);
	if (rc == SW_OK && !root_seen)
		rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "Retry; if it repeats, restart WebDriverAgent",
		                   "The WebDriverAgent source has no elements");
	xmlFreeTextReader(r);
	if (rc != SW_OK) {
		sw__buf_free(&b);
		return rc;
	}
	sw__buf_puts(&b, "</hierarchy>");
	if (b.failed) {
		sw__buf_free(&b);
		return sw__error_nomem(err);
	}
	*out = sw__buf_steal(&b, out_len);
	if (stats)
		*stats = st;
	return SW_OK;
}
