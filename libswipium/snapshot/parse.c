/* parse.c: uiautomator XML dumps to the screen model (interactive elements, roles, overlays, quality signals). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>

#include "snapshot-internal.h"

static const char empty_str[] = "";

/* The attributes of one uiautomator node, borrowed from the screen's arena. */
typedef struct raw_node {
	size_t attr_first, n_attrs;
	const char *text, *id, *cls, *pkg, *desc, *hint, *bounds;
	bool clickable, long_clickable, focusable, focused, password, scrollable, checkable, checked, selected, enabled;
	bool invisible;
	size_t depth;
	size_t subtree_end;
	int b[4];
	bool b_ok;
	bool absorbed;
	bool in_list;       /* a descendant of a list or recycler view */
	bool child_in_list; /* its children are */
} raw_node;

/* strtol(s, end, 10), with a fast path for the plain short numbers of a dump. */
static long read_long(const char *s, char **end)
{
	const char *p = s;
	bool neg = *p == '-';
	if (neg)
		p++;
	if (*p >= '0' && *p <= '9') {
		long v = 0;
		int n = 0;
		while (p[n] >= '0' && p[n] <= '9' && n < 12) {
			v = v * 10 + (p[n] - '0');
			n++;
		}
		if (n < 12) {
			*end = (char *)(p + n);
			return neg ? -v : v;
		}
	}
	return strtol(s, end, 10);
}

static bool parse_bounds(const char *s, int b[4])
{
	/* "[x1,y1][x2,y2]" */
	long v[4];
	const char *p = s;
	for (int i = 0; i < 4; i++) {
		char *end;
		if (i % 2 == 0) {
			if (*p != '[')
				return false;
			p++;
		} else {
			if (*p != ',')
				return false;
			p++;
		}
		v[i] = read_long(p, &end);
		if (end == p || v[i] < -1000000 || v[i] > 1000000)
			return false;
		p = end;
		if (i % 2 == 1) {
			if (*p != ']')
				return false;
			p++;
		}
	}
	if (*p)
		return false;
	for (int i = 0; i < 4; i++)
		b[i] = (int)v[i];
	return true;
}

/* The attributes the model reads; any other attribute is kept only for the raw view. */
enum attr_id {
	A_OTHER,
	A_TEXT,
	A_ID,
	A_CLASS,
	A_PKG,
	A_DESC,
	A_HINT,
	A_BOUNDS,
	A_CLICKABLE,
	A_LONG_CLICKABLE,
	A_FOCUSABLE,
	A_FOCUSED,
	A_PASSWORD,
	A_SCROLLABLE,
	A_CHECKABLE,
	A_CHECKED,
	A_SELECTED,
	A_ENABLED,
	A_VISIBLE,
	A_COUNT
};

static const char *const attr_names[A_COUNT] = {
    [A_TEXT] = "text",           [A_ID] = "resource-id",         [A_CLASS] = "class",         [A_PKG] = "package",
    [A_DESC] = "content-desc",   [A_HINT] = "hint",              [A_BOUNDS] = "bounds",       [A_CLICKABLE] = "clickable",
    [A_LONG_CLICKABLE] = "long-clickable", [A_FOCUSABLE] = "focusable", [A_FOCUSED] = "focused",
    [A_PASSWORD] = "password",   [A_SCROLLABLE] = "scrollable",  [A_CHECKABLE] = "checkable", [A_CHECKED] = "checked",
    [A_SELECTED] = "selected",   [A_ENABLED] = "enabled",        [A_VISIBLE] = "visible-to-user",
};

static enum attr_id attr_id_of(const char *name)
{
	for (int i = 1; i < A_COUNT; i++)
		if (!strcmp(name, attr_names[i]))
			return (enum attr_id)i;
	return A_OTHER;
}

static void raw_defaults(raw_node *r)
{
	r->text = r->id = r->cls = r->pkg = r->desc = r->hint = r->bounds = empty_str;
	r->enabled = true;
}

static void apply_attr(raw_node *r, enum attr_id id, const char *v, size_t vlen)
{
	bool t = vlen == 4 && !memcmp(v, "true", 4);
	switch (id) {
	case A_TEXT: r->text = v; break;
	case A_ID: r->id = v; break;
	case A_CLASS: r->cls = v; break;
	case A_PKG: r->pkg = v; break;
	case A_DESC: r->desc = v; break;
	case A_HINT: r->hint = v; break;
	case A_BOUNDS: r->bounds = v; break;
	case A_CLICKABLE: r->clickable = t; break;
	case A_LONG_CLICKABLE: r->long_clickable = t; break;
	case A_FOCUSABLE: r->focusable = t; break;
	case A_FOCUSED: r->focused = t; break;
	case A_PASSWORD: r->password = t; break;
	case A_SCROLLABLE: r->scrollable = t; break;
	case A_CHECKABLE: r->checkable = t; break;
	case A_CHECKED: r->checked = t; break;
	case A_SELECTED: r->selected = t; break;
	case A_ENABLED: r->enabled = t; break;
	case A_VISIBLE: r->invisible = !t; break;
	default: break;
	}
}

static const char *class_short(const char *cls)
{
	const char *dot = strrchr(cls, '.');
	return dot ? dot + 1 : cls;
}

/* Whether @h starts with @word (lower-case ASCII) in any case. */
static bool ci_starts(const unsigned char *h, const char *word)
{
	for (size_t k = 0; word[k]; k++) {
		unsigned char c = h[k];
		if (c >= 'A' && c <= 'Z')
			c |= 0x20;
		if (c != (unsigned char)word[k])
			return false;
	}
	return true;
}

static bool is_edit_class(const char *cls)
{
	return strstr(cls, "EditText") != NULL || !strcmp(cls, "android.widget.AutoCompleteTextView") ||
	       !strcmp(cls, "android.widget.MultiAutoCompleteTextView") ||
	       /* iOS (WebDriverAgent) text inputs: docs/ios.md */
	       !strcmp(cls, "XCUIElementTypeTextField") || !strcmp(cls, "XCUIElementTypeSecureTextField") ||
	       !strcmp(cls, "XCUIElementTypeSearchField") || !strcmp(cls, "XCUIElementTypeTextView");
}

static void assign_role(sw__element *e)
{
	const char *shortname = class_short(e->cls);
	if (e->edit)
		e->role = "text-field";
	else if (e->scrollable)
		e->role = "scrollable";
	else if (e->clickable || e->long_clickable)
		e->role = "button";
	else if (strstr(shortname, "Image"))
		e->role = "image";
	else if (e->text[0] || !strcmp(shortname, "TextView"))
		e->role = "text";
	else if (shortname[0])
		e->role = shortname;
	else
		e->role = "node";
	e->role_len = strlen(e->role);
}

/* Overlay kinds by class or id wording. Text fields and list rows are never overlays. */
static const struct {
	const char *word, *kind;
} overlay_words[] = {
    {"snackbar", "snackbar"}, {"toast", "toast"},     {"banner", "banner"},   {"bottom_sheet", "sheet"},
    {"bottomsheet", "sheet"}, {"popup", "popup"},     {"tooltip", "tooltip"}, {"dialog", "dialog"},
    {"alert", "dialog"},      {"overlay", "overlay"},
};

/* Marks in *found (bit i: overlay_words[i]) each word that @hay holds in any case: one pass over @hay, which
 * costs less than one case-insensitive search per word on a 50,000-node dump. */
static void overlay_words_in(const char *hay, unsigned *found)
{
	for (const unsigned char *h = (const unsigned char *)hay; *h; h++) {
		unsigned cand; /* the words starting with this letter */
		switch (*h | 0x20) {
		case 's': cand = 1u << 0; break;
		case 't': cand = 1u << 1 | 1u << 6; break;
		case 'b': cand = 1u << 2 | 1u << 3 | 1u << 4; break;
		case 'p': cand = 1u << 5; break;
		case 'd': cand = 1u << 7; break;
		case 'a': cand = 1u << 8; break;
		case 'o': cand = 1u << 9; break;
		default: continue;
		}
		for (size_t i = 0; cand >> i; i++)
			if ((cand >> i & 1u) && ci_starts(h, overlay_words[i].word))
				*found |= 1u << i;
	}
}

/* What the parse asks of a class name, worked out once per run of nodes of one class (a dump repeats
 * its classes: a 50,000-row table is 50,000 nodes of two or three classes). */
typedef struct cls_memo {
	const char *cls; /* the class last worked out (a string of the screen's arena) */
	bool list, webview, compose, edit;
	unsigned words; /* overlay_words found in the class name */
} cls_memo;

static const cls_memo *cls_info(cls_memo *m, const char *cls)
{
	if (m->cls && (m->cls == cls || !strcmp(m->cls, cls)))
		return m;
	m->cls = cls;
	m->list = strstr(cls, "RecyclerView") || strstr(cls, "ListView");
	m->webview = strstr(cls, "WebView") != NULL;
	m->compose = strstr(cls, "ComposeView") != NULL; /* AndroidComposeView too */
	m->edit = is_edit_class(cls);
	m->words = 0;
	overlay_words_in(cls, &m->words);
	return m;
}

static const char *overlay_kind_of(const raw_node *r, const cls_memo *ci)
{
	unsigned found = ci->words;
	overlay_words_in(r->id, &found);
	for (size_t i = 0; found && i < SW_ARRAY_SIZE(overlay_words); i++)
		if (found & (1u << i))
			return overlay_words[i].kind;
	return NULL;
}

static bool is_dismiss_word(const char *s)
{
	static const char *const words[] = {"dismiss",   "close",    "not now", "got it",
	                                    "no thanks", "\xc3\x97", "x",       "skip"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(words); i++) {
		if (!strcasecmp(s, words[i]))
			return true;
	}
	return false;
}

static bool on_screen(const int b[4], int w, int h)
{
	if (b[2] <= b[0] || b[3] <= b[1])
		return false;
	if (w > 0 && h > 0 && (b[2] <= 0 || b[3] <= 0 || b[0] >= w || b[1] >= h))
		return false;
	return true;
}

void sw__screen_free(sw__screen *s)
{
	if (!s)
		return;
	free(s->arena);
	free(s->attrs);
	free(s->els);
	free(s->overlays);
	free(s);
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	h ^= 0x1f;
	h *= 1099511628211ULL;
	return h;
}

static uint64_t element_hash(const sw__element *e)
{
	uint64_t h = 1469598103934665603ULL;
	h = fnv(h, e->cls);
	h = fnv(h, e->id);
	h = fnv(h, e->desc);
	if (!e->edit) {
		h = fnv(h, e->text);
		h = fnv(h, e->label);
	}
	for (int i = 0; i < 4; i++) {
		h ^= (uint64_t)(unsigned)e->bounds[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* Streaming parse state: libxml2 SAX2 callbacks fill the node list without building a tree. */
enum { SAX_OK, SAX_TOO_MANY, SAX_OVER_CAP, SAX_NOMEM, SAX_TOO_LARGE };

typedef struct sax_state {
	char *arena;
	size_t arena_len, arena_cap;
	sw__attr *attrs;
	size_t n_attrs, cap_attrs;
	raw_node *raw;
	size_t n_raw, cap_raw;
	size_t *open_idx;
	size_t n_open;
	size_t level;      /* element nesting; the root is level 1 */
	size_t skip_level; /* nonzero: inside a non-node element at this level, whose subtree is ignored */
	size_t elements;
	size_t size_hint; /* bytes of the dump */
	cls_memo memo;
	int rotation;
	bool root_ok;
	int error;
	/* attribute names as interned by the parser's dictionary, resolved once per parse */
	struct {
		const xmlChar *key;
		const char *name;
		enum attr_id id;
	} names[256]; /* direct-mapped by address */
} sax_state;

/*
 * Copies @n bytes to the arena with a terminating NUL, turning "&#38;" back into '&' (how libxml2 hands over an
 * escaped ampersand of an attribute value when entities are not substituted).
 */
static const char *arena_put(sax_state *st, const char *v, size_t n)
{
	if (n + 1 > st->arena_cap - st->arena_len) {
		st->error = SAX_TOO_LARGE;
		return NULL;
	}
	char *dst = st->arena + st->arena_len, *d = dst;
	const char *end = v + n;
	if (n < 32) {
		/* the usual short value: one pass */
		while (v < end) {
			char c = *v;
			if (c == '&' && end - v >= 5 && !memcmp(v, "&#38;", 5)) {
				*d++ = '&';
				v += 5;
			} else {
				*d++ = c;
				v++;
			}
		}
		*d++ = '\0';
		st->arena_len = (size_t)(d - st->arena);
		return dst;
	}
	for (;;) {
		const char *amp = memchr(v, '&', (size_t)(end - v));
		if (!amp) {
			memcpy(d, v, (size_t)(end - v));
			d += end - v;
			break;
		}
		memcpy(d, v, (size_t)(amp - v));
		d += amp - v;
		*d++ = '&';
		v = (end - amp >= 5 && !memcmp(amp, "&#38;", 5)) ? amp + 5 : amp + 1;
	}
	*d++ = '\0';
	st->arena_len = (size_t)(d - st->arena);
	return dst;
}

/* "prefix:localname" in the arena. */
static const char *qname(sax_state *st, const xmlChar *prefix, const xmlChar *localname)
{
	size_t pl = strlen((const char *)prefix), ll = strlen((const char *)localname);
	if (pl + ll + 2 > st->arena_cap - st->arena_len) {
		st->error = SAX_TOO_LARGE;
		return NULL;
	}
	char *dst = st->arena + st->arena_len;
	memcpy(dst, prefix, pl);
	dst[pl] = ':';
	memcpy(dst + pl + 1, localname, ll + 1);
	st->arena_len += pl + ll + 2;
	return dst;
}

/* An element below the root starts at @depth: counted, and the subtrees it ends are closed. */
static bool element_begin(sax_state *st, size_t depth)
{
	if (++st->elements > (size_t)SW__SNAPSHOT_MAX_NODES * 8) {
		st->error = SAX_TOO_MANY;
		return false;
	}
	while (st->n_open > 0 && st->raw[st->open_idx[st->n_open - 1]].depth >= depth) {
		st->raw[st->open_idx[st->n_open - 1]].subtree_end = st->n_raw;
		st->n_open--;
	}
	return true;
}

/* Room for @n more attributes; false (error set) when memory runs out. */
static bool attrs_room(sax_state *st, size_t n)
{
	if (n <= st->cap_attrs - st->n_attrs)
		return true;
	size_t nc = st->cap_attrs ? st->cap_attrs : st->size_hint / 16 + 1024;
	while (nc - st->n_attrs < n)
		nc *= 2;
	sw__attr *na = realloc(st->attrs, nc * sizeof(*na));
	if (!na) {
		st->error = SAX_NOMEM;
		return false;
	}
	st->attrs = na;
	st->cap_attrs = nc;
	sw__hint_huge_pages(na, nc * sizeof(*na));
	return true;
}

/* A <node> starts: its raw node, defaults set, attributes to come (NULL: error set). */
static raw_node *node_begin(sax_state *st)
{
	if (st->n_raw >= SW__SNAPSHOT_MAX_NODES) {
		st->error = SAX_OVER_CAP;
		return NULL;
	}
	if (st->n_raw == st->cap_raw) {
		/* a dump spends some 350 bytes per node: size for that at once, then double */
		size_t nc = st->cap_raw ? st->cap_raw * 2 : st->size_hint / 256 + 256;
		if (nc > SW__SNAPSHOT_MAX_NODES)
			nc = SW__SNAPSHOT_MAX_NODES;
		raw_node *nr = realloc(st->raw, nc * sizeof(*nr));
		if (nr)
			st->raw = nr;
		size_t *no = realloc(st->open_idx, nc * sizeof(*no));
		if (no)
			st->open_idx = no;
		if (!nr || !no) {
			st->error = SAX_NOMEM;
			return NULL;
		}
		st->cap_raw = nc;
		sw__hint_huge_pages(nr, nc * sizeof(*nr));
	}
	raw_node *r = &st->raw[st->n_raw];
	memset(r, 0, sizeof(*r));
	raw_defaults(r);
	r->attr_first = st->n_attrs;
	return r;
}

/* The node's attributes are all in: its bounds, its list context, and it is open. */
static void node_finish(sax_state *st, raw_node *r, size_t depth)
{
	r->n_attrs = st->n_attrs - r->attr_first;
	r->depth = depth;
	r->b_ok = parse_bounds(r->bounds, r->b);
	if (st->n_open > 0)
		r->in_list = st->raw[st->open_idx[st->n_open - 1]].child_in_list;
	r->child_in_list = r->in_list || cls_info(&st->memo, r->cls)->list;
	st->open_idx[st->n_open++] = st->n_raw;
	st->n_raw++;
}

static void sax_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri, int nb_ns,
                      const xmlChar **ns, int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
	(void)nb_ns;
	(void)ns;
	(void)nb_defaulted;
	sax_state *st = ((xmlParserCtxtPtr)ctx)->_private;
	st->level++;
	if (st->error || (st->skip_level && st->level > st->skip_level))
		return;
	/* like the tree builder, a name whose prefix is not bound keeps "prefix:" */
	const char *name = (const char *)localname;
	if (prefix && !uri) {
		name = qname(st, prefix, localname);
		if (!name)
			return;
	}
	if (st->level == 1) {
		st->root_ok = !strcmp(name, "hierarchy");
		for (int k = 0; k < nb_attributes; k++) {
			const xmlChar **a = attributes + 5 * k;
			if (!strcmp((const char *)a[0], "rotation")) {
				const char *v = arena_put(st, (const char *)a[3], (size_t)(a[4] - a[3]));
				if (v)
					st->rotation = atoi(v);
			}
		}
		return;
	}
	size_t depth = st->level - 2;
	if (!element_begin(st, depth))
		return;
	if (strcmp(name, "node") != 0) {
		st->skip_level = st->level;
		return;
	}
	raw_node *r = node_begin(st);
	if (!r || !attrs_room(st, (size_t)nb_attributes))
		return;
	for (int k = 0; k < nb_attributes; k++) {
		const xmlChar **a = attributes + 5 * k;
		sw__attr *at = &st->attrs[st->n_attrs];
		enum attr_id id = A_OTHER;
		if (a[1] && !a[2]) {
			at->name = qname(st, a[1], a[0]);
		} else {
			size_t slot = ((uintptr_t)a[0] >> 3) & (SW_ARRAY_SIZE(st->names) - 1);
			if (st->names[slot].key == a[0]) {
				at->name = st->names[slot].name;
				id = st->names[slot].id;
			} else {
				id = attr_id_of((const char *)a[0]);
				at->name = id != A_OTHER ? attr_names[id]
				                         : arena_put(st, (const char *)a[0], strlen((const char *)a[0]));
				if (at->name) {
					st->names[slot].key = a[0];
					st->names[slot].name = at->name;
					st->names[slot].id = id;
				}
			}
		}
		size_t before = st->arena_len;
		at->value = arena_put(st, (const char *)a[3], (size_t)(a[4] - a[3]));
		if (!at->name || !at->value)
			return;
		apply_attr(r, id, at->value, st->arena_len - before - 1);
		st->n_attrs++;
	}
	node_finish(st, r, depth);
}

static void sax_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
	(void)localname;
	(void)prefix;
	(void)uri;
	sax_state *st = ((xmlParserCtxtPtr)ctx)->_private;
	if (st->skip_level == st->level)
		st->skip_level = 0;
	st->level--;
}

/* ---- the plain-dump reader ----------------------------------------------------------------------
 *
 * Dumps nearly always come in one plain shape: uiautomator's, and the hierarchy the iOS driver writes
 * from a WebDriverAgent source (<hierarchy rotation="0"><node a="v" ...>...</node></hierarchy>, the
 * five predefined entities and &#9; &#10; &#13;, UTF-8). That shape is read here in one pass over the
 * bytes, into the same nodes the libxml2 callbacks above make. Anything else at all (a DTD, a comment,
 * a namespace, text between tags, another element, another entity, a literal tab or line break in a
 * value, a byte that is not well-formed UTF-8 or not an XML character, a repeated attribute, deep
 * nesting, a limit reached) makes it give up, and the whole dump is read again by libxml2, which then
 * decides: so the plain reader never accepts a dump that libxml2 would refuse, and never reads one
 * differently (check-snapshot compares the two readers on every dump it has, and on damaged copies).
 */

#define PLAIN_MAX_DEPTH 200         /* libxml2 refuses past 256 levels: deeper dumps are its to judge */
#define PLAIN_MAX_VALUE ((size_t)1 << 20)
#define PLAIN_MAX_OTHER_NAMES 32

typedef struct plain {
	sax_state *st;
	const char *p, *end;
	/* attribute names that are none of attr_names, copied to the arena once per parse */
	const char *other[PLAIN_MAX_OTHER_NAMES];
	size_t other_len[PLAIN_MAX_OTHER_NAMES];
	size_t n_other;
	/* the class and package values of the node before: a node with the same one shares its string (a
	 * dump repeats them; one copy fewer, and the class lookups see the same pointer) */
	const char *last[A_COUNT];
	size_t last_len[A_COUNT];
} plain;

static inline bool is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

static inline void skip_ws(plain *x)
{
	while (x->p < x->end && is_ws(*x->p))
		x->p++;
}

/* Name bytes of the plain shape: 1 may start a name, 2 may follow (ASCII letters, '_'; digits, '-', '.'). */
static const unsigned char NAME_CLASS[256] = {
    ['-'] = 2, ['.'] = 2, ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2, ['7'] = 2,
    ['8'] = 2, ['9'] = 2, ['_'] = 3, ['A'] = 3, ['B'] = 3, ['C'] = 3, ['D'] = 3, ['E'] = 3, ['F'] = 3, ['G'] = 3,
    ['H'] = 3, ['I'] = 3, ['J'] = 3, ['K'] = 3, ['L'] = 3, ['M'] = 3, ['N'] = 3, ['O'] = 3, ['P'] = 3, ['Q'] = 3,
    ['R'] = 3, ['S'] = 3, ['T'] = 3, ['U'] = 3, ['V'] = 3, ['W'] = 3, ['X'] = 3, ['Y'] = 3, ['Z'] = 3, ['a'] = 3,
    ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3, ['g'] = 3, ['h'] = 3, ['i'] = 3, ['j'] = 3, ['k'] = 3,
    ['l'] = 3, ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3, ['r'] = 3, ['s'] = 3, ['t'] = 3, ['u'] = 3,
    ['v'] = 3, ['w'] = 3, ['x'] = 3, ['y'] = 3, ['z'] = 3,
};

static bool name_char(unsigned char c, bool first)
{
	return NAME_CLASS[c] & (first ? 1 : 2);
}

/* The known attribute of a name, or A_OTHER. */
static enum attr_id attr_id_of_n(const char *n, size_t len)
{
	static const unsigned char lens[A_COUNT] = {
	    [A_TEXT] = 4,       [A_ID] = 11,        [A_CLASS] = 5,      [A_PKG] = 7,         [A_DESC] = 12,
	    [A_HINT] = 4,       [A_BOUNDS] = 6,     [A_CLICKABLE] = 9,  [A_LONG_CLICKABLE] = 14, [A_FOCUSABLE] = 9,
	    [A_FOCUSED] = 7,    [A_PASSWORD] = 8,   [A_SCROLLABLE] = 10, [A_CHECKABLE] = 9,  [A_CHECKED] = 7,
	    [A_SELECTED] = 8,   [A_ENABLED] = 7,    [A_VISIBLE] = 15,
	};
	for (int i = 1; i < A_COUNT; i++)
		if (lens[i] == len && attr_names[i][0] == n[0] && !memcmp(attr_names[i], n, len))
			return (enum attr_id)i;
	return A_OTHER;
}

/* The length of the well-formed UTF-8 sequence of a non-ASCII XML character at @p (0: not one). */
static size_t utf8_xml_char(const unsigned char *p, const unsigned char *end)
{
	uint32_t cp = 0;
	size_t n = sw__utf8_decode(p, (size_t)(end - p), &cp);
	return n >= 2 && cp != 0xfffe && cp != 0xffff ? n : 0;
}

/* Bytes a value may hold as they are: printable ASCII except the quotes, '&' and '<'. */
static const unsigned char PLAIN_SAFE[256] = {
#define R8(v) v, v, v, v, v, v, v, v
    R8(0), R8(0), R8(0), R8(0), /* 0x00-0x1f */
    1, 1, 0, 1, 1, 1, 0, 0, R8(1), R8(1), 1, 1, 1, 1, 0, 1, 1, 1, /* 0x20-0x3f: no " & ' < */
    R8(1), R8(1), R8(1), R8(1), R8(1), R8(1), R8(1), 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40-0x7f */
#undef R8
};

/*
 * A quoted value at x->p, decoded into the arena as libxml2 hands it over (with arena_put's '&'):
 * the value, and its length in *vlen; NULL when the reader gives up.
 */
static const char *plain_value(plain *x, size_t *vlen)
{
	sax_state *st = x->st;
	if (x->p >= x->end || (*x->p != '"' && *x->p != '\''))
		return NULL;
	char q = *x->p++;
	const char *v = x->p;
	/* decoding never lengthens: the raw bytes bound the room needed */
	const char *close = memchr(v, q, (size_t)(x->end - v));
	if (!close || (size_t)(close - v) > PLAIN_MAX_VALUE || (size_t)(close - v) + 1 > st->arena_cap - st->arena_len)
		return NULL;
	char *dst = st->arena + st->arena_len, *d = dst;
	const unsigned char *p = (const unsigned char *)v, *e = (const unsigned char *)close;
	while (p < e) {
		const unsigned char *run = p;
		while (p < e && PLAIN_SAFE[*p])
			p++;
		memcpy(d, run, (size_t)(p - run));
		d += p - run;
		if (p == e)
			break;
		unsigned char c = *p;
		if (c >= 0x80) {
			size_t n = utf8_xml_char(p, e);
			if (!n)
				return NULL;
			memcpy(d, p, n);
			d += n;
			p += n;
			continue;
		}
		if (c == '\'' || c == '"') { /* the other quote */
			*d++ = (char)c;
			p++;
			continue;
		}
		if (c != '&')
			return NULL; /* '<', or a control character, a tab or a line break (libxml2 normalises those) */
		static const struct {
			const char *ent;
			size_t n;
			char c;
		} ents[] = {{"&amp;", 5, '&'},  {"&lt;", 4, '<'},   {"&gt;", 4, '>'},   {"&quot;", 6, '"'},
		            {"&apos;", 6, '\''}, {"&#10;", 5, '\n'}, {"&#13;", 5, '\r'}, {"&#9;", 4, '\t'},
		            {"&#38;", 5, '&'}};
		size_t k = 0;
		while (k < SW_ARRAY_SIZE(ents) &&
		       ((size_t)(e - p) < ents[k].n || memcmp(p, ents[k].ent, ents[k].n) != 0))
			k++;
		if (k == SW_ARRAY_SIZE(ents))
			return NULL;
		*d++ = ents[k].c;
		p += ents[k].n;
	}
	*d++ = '\0';
	*vlen = (size_t)(d - dst) - 1;
	st->arena_len = (size_t)(d - st->arena);
	x->p = close + 1;
	return dst;
}

/* One attribute name (NUL-terminated, lives with the screen) and its id; NULL when the reader gives up. */
static const char *plain_name(plain *x, enum attr_id *id)
{
	const char *n = x->p;
	if (x->p >= x->end || !name_char((unsigned char)*x->p, true))
		return NULL;
	while (x->p < x->end && name_char((unsigned char)*x->p, false))
		x->p++;
	size_t len = (size_t)(x->p - n);
	if (len > 64 || (len >= 3 && (n[0] | 0x20) == 'x' && (n[1] | 0x20) == 'm' && (n[2] | 0x20) == 'l'))
		return NULL; /* xmlns and the reserved xml names are libxml2's */
	*id = attr_id_of_n(n, len);
	if (*id != A_OTHER)
		return attr_names[*id];
	for (size_t i = 0; i < x->n_other; i++)
		if (x->other_len[i] == len && !memcmp(x->other[i], n, len))
			return x->other[i];
	if (x->n_other == PLAIN_MAX_OTHER_NAMES)
		return NULL;
	sax_state *st = x->st;
	const char *copy = arena_put(st, n, len);
	if (!copy)
		return NULL;
	x->other[x->n_other] = copy;
	x->other_len[x->n_other++] = len;
	return copy;
}

/*
 * The attributes of a start tag, up to its '>' or "/>" (*empty): each to @r (a node) or, for the root
 * (@r NULL), its rotation read. False when the reader gives up.
 */
static bool plain_attrs(plain *x, raw_node *r, bool *empty)
{
	sax_state *st = x->st;
	uint32_t seen = 0; /* known attributes already set (a repeat is libxml2's error to report) */
	const char *others[PLAIN_MAX_OTHER_NAMES]; /* the other names of this tag (copies are unique) */
	size_t n_others = 0;
	for (;;) {
		bool spaced = x->p < x->end && is_ws(*x->p);
		skip_ws(x);
		if (x->p >= x->end)
			return false;
		if (*x->p == '>' || (*x->p == '/' && x->end - x->p >= 2 && x->p[1] == '>')) {
			*empty = *x->p == '/';
			x->p += *empty ? 2 : 1;
			return true;
		}
		if (!spaced)
			return false;
		enum attr_id id = A_OTHER;
		const char *name = plain_name(x, &id);
		if (!name)
			return false;
		if (id != A_OTHER) {
			if (seen & (1u << id))
				return false;
			seen |= 1u << id;
		} else {
			for (size_t i = 0; i < n_others; i++)
				if (others[i] == name)
					return false;
			if (n_others == PLAIN_MAX_OTHER_NAMES)
				return false;
			others[n_others++] = name;
		}
		skip_ws(x);
		if (x->p >= x->end || *x->p != '=')
			return false;
		x->p++;
		skip_ws(x);
		size_t vlen = 0;
		if (!r) {
			/* the root: only its rotation is read */
			const char *v = plain_value(x, &vlen);
			if (!v)
				return false;
			if (!strcmp(name, "rotation"))
				st->rotation = atoi(v);
			continue;
		}
		if (!attrs_room(st, 1))
			return false;
		const char *v = plain_value(x, &vlen);
		if (!v)
			return false;
		if (id == A_CLASS || id == A_PKG) {
			if (x->last[id] && x->last_len[id] == vlen && !memcmp(x->last[id], v, vlen)) {
				st->arena_len = (size_t)(v - st->arena); /* v was the arena's last string */
				v = x->last[id];
			} else {
				x->last[id] = v;
				x->last_len[id] = vlen;
			}
		}
		sw__attr *at = &st->attrs[st->n_attrs++];
		at->name = name;
		at->value = v;
		apply_attr(r, id, v, vlen);
	}
}

static bool plain_lit(plain *x, const char *lit, size_t n)
{
	if ((size_t)(x->end - x->p) < n || memcmp(x->p, lit, n) != 0)
		return false;
	x->p += n;
	return true;
}

/* The whole dump in the plain shape; false (the state then half-filled) when the reader gives up. */
static bool plain_parse(sax_state *st, const char *xml, size_t len)
{
	plain x = {.st = st, .p = xml, .end = xml + len};
	static const char decl1[] = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>";
	static const char decl2[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
	if (!plain_lit(&x, decl1, sizeof(decl1) - 1))
		(void)plain_lit(&x, decl2, sizeof(decl2) - 1);
	skip_ws(&x);
	bool empty = false;
	if (!plain_lit(&x, "<hierarchy", 10) || x.p >= x.end || (!is_ws(*x.p) && *x.p != '>' && *x.p != '/'))
		return false;
	if (!plain_attrs(&x, NULL, &empty))
		return false;
	st->root_ok = true;
	size_t depth = 0; /* nodes open */
	while (!empty) {
		skip_ws(&x);
		if (x.end - x.p < 2 || *x.p != '<')
			return false; /* text between tags, or the end before the root closed */
		if (x.p[1] == '/') {
			x.p += 2;
			if (depth == 0) {
				if (!plain_lit(&x, "hierarchy", 9))
					return false;
			} else if (!plain_lit(&x, "node", 4))
				return false;
			skip_ws(&x);
			if (!plain_lit(&x, ">", 1))
				return false;
			if (depth == 0)
				break;
			depth--;
			continue;
		}
		x.p++;
		if (!plain_lit(&x, "node", 4) || x.p >= x.end || (!is_ws(*x.p) && *x.p != '>' && *x.p != '/'))
			return false;
		if (depth >= PLAIN_MAX_DEPTH || !element_begin(st, depth))
			return false;
		raw_node *r = node_begin(st);
		if (!r)
			return false;
		bool leaf = false;
		if (!plain_attrs(&x, r, &leaf))
			return false;
		node_finish(st, r, depth);
		if (!leaf)
			depth++;
	}
	skip_ws(&x);
	return x.p == x.end && !st->error;
}

/* Back to an empty state for the libxml2 reader (the buffers are kept). */
static void state_reset(sax_state *st)
{
	st->arena_len = 0;
	st->n_attrs = 0;
	st->n_raw = 0;
	st->n_open = 0;
	st->level = 0;
	st->skip_level = 0;
	st->elements = 0;
	memset(&st->memo, 0, sizeof(st->memo));
	st->rotation = 0;
	st->root_ok = false;
	st->error = 0;
	memset(st->names, 0, sizeof(st->names));
}

static int fail(sw_error **err, const char *msg)
{
	return sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED",
	                     "Take the snapshot again; if dumps keep failing, use qa_screenshot", "%s", msg);
}

int sw__snapshot_parse(const char *xml, size_t len, int screen_w, int screen_h, sw__screen **out, sw_error **err)
{
	return sw__snapshot_parse_with(xml, len, screen_w, screen_h, true, out, err);
}

int sw__snapshot_parse_with(const char *xml, size_t len, int screen_w, int screen_h, bool plain_reader,
                            sw__screen **out, sw_error **err)
{
	int rc = SW_OK;
	xmlParserCtxtPtr ctxt = NULL;
	xmlDoc *doc = NULL;
	sax_state st;
	sw__screen *s = NULL;

	memset(&st, 0, sizeof(st));
	if (!xml || len == 0)
		return fail(err, "The UI dump was empty");
	if (len > SW__SNAPSHOT_MAX_BYTES)
		return fail(err, "The UI dump is larger than the 16 MiB limit");
	if (len > INT32_MAX)
		return fail(err, "The UI dump is too large");

	/* attribute names and values never take more bytes than the dump itself; twice that is ample */
	st.arena_cap = 2 * len + 64;
	st.size_hint = len;
	st.arena = malloc(st.arena_cap);
	if (!st.arena) {
		rc = sw__error_nomem(err);
		goto out;
	}
	sw__hint_huge_pages(st.arena, st.arena_cap);
	const char *reader = "plain";
	if (plain_reader && plain_parse(&st, xml, len))
		goto parsed;
	reader = "libxml2";
	state_reset(&st);
	xmlInitParser();
	ctxt = xmlCreateMemoryParserCtxt(xml, (int)len);
	if (!ctxt) {
		rc = sw__error_nomem(err);
		goto out;
	}
	/*
	 * The options of a tree parse (no network, no entity substitution); elements go to our callbacks (no tree is
	 * built) while the document, DTD and entity handling stay libxml2's own, so a DTD is still seen and refused.
	 */
	xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS |
	                            XML_PARSE_NOCDATA);
	ctxt->_private = &st;
	ctxt->sax->startElementNs = sax_start;
	ctxt->sax->endElementNs = sax_end;
	ctxt->sax->characters = NULL;
	ctxt->sax->ignorableWhitespace = NULL;
	ctxt->sax->cdataBlock = NULL;
	ctxt->sax->comment = NULL;
	ctxt->sax->processingInstruction = NULL;
	ctxt->sax->reference = NULL;
	xmlParseDocument(ctxt);
	bool well_formed = ctxt->wellFormed;
	doc = ctxt->myDoc;
	ctxt->myDoc = NULL;
	if (!well_formed || !doc) {
		rc = fail(err, "The UI dump is not well-formed XML");
		goto out;
	}
	if (doc->intSubset || doc->extSubset) {
		rc = fail(err, "The UI dump declares a DTD, which is not accepted");
		goto out;
	}
	if (!st.root_ok) {
		rc = fail(err, "The UI dump has no <hierarchy> root element");
		goto out;
	}
	if (st.error == SAX_TOO_MANY) {
		rc = fail(err, "The UI dump has too many nodes");
		goto out;
	}
	if (st.error == SAX_OVER_CAP) {
		rc = fail(err, "The UI dump has more than 50000 nodes");
		goto out;
	}
	if (st.error == SAX_TOO_LARGE) {
		rc = fail(err, "The UI dump is too large");
		goto out;
	}
	if (st.error) {
		rc = sw__error_nomem(err);
		goto out;
	}
parsed:;
	raw_node *raw = st.raw;
	size_t n_raw = st.n_raw;
	while (st.n_open > 0)
		raw[st.open_idx[--st.n_open]].subtree_end = n_raw;

	s = calloc(1, sizeof(*s));
	if (!s) {
		rc = sw__error_nomem(err);
		goto out;
	}
	s->rotation = st.rotation;
	s->reader = reader;

	s->node_count = n_raw;
	if (n_raw > 0)
		s->package = raw[0].pkg;
	/*
	 * The geometry of this dump: the extent of its (first) window, in the coordinates of the current rotation, and
	 * at least the caller's screen size turned to the dump's rotation. A dialog-only dump
	 * is smaller than the screen; a landscape dump, or an app window larger than `wm size`, is larger than the
	 * size the device reports: nothing inside the dump's own windows is ever dropped as off screen.
	 */
	int dw = 0, dh = 0;
	if (n_raw > 0 && raw[0].b_ok) {
		dw = raw[0].b[2];
		dh = raw[0].b[3];
	}
	int ww = screen_w, wh = screen_h;
	if ((st.rotation == 1 || st.rotation == 3) && ww > 0 && wh > 0 && ww < wh) {
		ww = screen_h; /* `wm size` is the natural (portrait) size; the dump is turned */
		wh = screen_w;
	}
	s->width = dw;
	s->height = dh;
	/* a window that does not start at the origin (a dialog alone) bounds its elements but is not the screen */
	bool full = n_raw > 0 && raw[0].b_ok && raw[0].b[0] == 0 && raw[0].b[1] == 0;
	s->geometry = dw > 0 && dh > 0 ? (full ? "dump" : "window") : NULL;
	if (ww > 0 && wh > 0) {
		if (!s->geometry || !full || (ww >= dw && wh >= dh))
			s->geometry = "device";
		else if (ww > dw || wh > dh)
			s->geometry = "dump+device";
		s->width = ww > dw ? ww : dw;
		s->height = wh > dh ? wh : dh;
	}
	if (!s->geometry)
		s->geometry = "unknown";

	s->els = calloc(n_raw ? n_raw : 1, sizeof(*s->els));
	if (!s->els) {
		rc = sw__error_nomem(err);
		goto out;
	}
	sw__hint_huge_pages(s->els, (n_raw ? n_raw : 1) * sizeof(*s->els));
	size_t overlay_cap = 0;
	cls_memo memo = {0};
	for (size_t i = 0; i < n_raw; i++) {
		raw_node *r = &raw[i];
		bool clickable = r->clickable || r->long_clickable;
		if (clickable) {
			s->clickable_count++;
			bool named = r->text[0] || r->desc[0] || r->id[0];
			for (size_t j = i + 1; !named && j < r->subtree_end; j++)
				named = raw[j].text[0] || raw[j].desc[0] || raw[j].id[0];
			if (!named)
				s->unidentified_clickable++;
		}
		const cls_memo *ci = cls_info(&memo, r->cls);
		if (ci->webview && r->b_ok && r->b[2] > r->b[0] && r->b[3] > r->b[1]) {
			size_t area = (size_t)(r->b[2] - r->b[0]) * (size_t)(r->b[3] - r->b[1]);
			if (area > s->webview_area_max)
				s->webview_area_max = area;
		}
		if (ci->compose)
			s->compose_seen = true;

		/* overlays: a container with an overlay signal, or a window of another package */
		const char *okind = NULL;
		if (r->b_ok && on_screen(r->b, s->width, s->height)) {
			if (!ci->edit && !r->in_list)
				okind = overlay_kind_of(r, ci);
			if (!okind && r->depth == 0 && i > 0 && r->pkg[0] && s->package && strcmp(r->pkg, s->package))
				okind = "window";
		}
		if (okind) {
			bool nested = false;
			for (size_t k = 0; k < s->n_overlays; k++)
				if (i < s->overlays[k].subtree_end && i >= s->overlays[k].node_index)
					nested = true;
			if (!nested) {
				if (s->n_overlays == overlay_cap) {
					size_t nc = overlay_cap ? overlay_cap * 2 : 4;
					sw__overlay *no = realloc(s->overlays, nc * sizeof(*no));
					if (!no) {
						rc = sw__error_nomem(err);
						goto out;
					}
					s->overlays = no;
					overlay_cap = nc;
				}
				sw__overlay *o = &s->overlays[s->n_overlays++];
				memset(o, 0, sizeof(*o));
				o->kind = okind;
				o->pkg = r->pkg;
				memcpy(o->bounds, r->b, sizeof(o->bounds));
				o->node_index = i;
				o->subtree_end = r->subtree_end;
				o->label = r->desc[0] ? r->desc : r->text;
				for (size_t j = i + 1; !o->label[0] && j < r->subtree_end; j++)
					if (raw[j].text[0] && !raw[j].clickable)
						o->label = raw[j].text;
			}
		}

		if (r->absorbed)
			continue;
		bool edit = ci->edit || r->password;
		bool keep = clickable || r->checkable || r->scrollable || edit || r->text[0] || r->desc[0];
		if (!keep)
			continue;
		/* an element left out is counted, by reason */
		if (r->invisible) {
			s->omitted_invisible++;
			continue;
		}
		if (!r->b_ok || r->b[2] <= r->b[0] || r->b[3] <= r->b[1]) {
			s->omitted_no_size++;
			continue;
		}
		if (!on_screen(r->b, s->width, s->height)) {
			s->omitted_offscreen++;
			continue;
		}
		sw__element *e = &s->els[s->n_els++];
		e->cls = r->cls;
		e->id = r->id;
		const char *slash = strrchr(r->id, '/');
		e->short_id = slash ? slash + 1 : r->id;
		e->desc = r->desc;
		e->pkg = r->pkg;
		e->hint = r->hint;
		e->raw_text_chars = 0;
		for (const unsigned char *c = (const unsigned char *)r->text; *c; c++)
			if ((*c & 0xc0) != 0x80)
				e->raw_text_chars++;
		e->secure = r->password;
		e->edit = edit;
		e->text = r->password ? SW__SECURE_VALUE : r->text;
		e->label = r->desc;
		if (!e->label[0] && edit && r->hint[0] && strcmp(r->hint, r->text) != 0)
			e->label = r->hint;
		if (!e->label[0] && !e->text[0] && (clickable || r->checkable) && !edit) {
			/* a clickable container takes the first text of its subtree as its label */
			for (size_t j = i + 1; j < r->subtree_end; j++) {
				raw_node *c = &raw[j];
				if (c->clickable || c->long_clickable || c->checkable || is_edit_class(c->cls))
					break;
				const char *t = c->desc[0] ? c->desc : c->text;
				if (t[0] && !c->password) {
					e->label = t;
					if (!c->scrollable)
						c->absorbed = true;
					break;
				}
			}
		}
		memcpy(e->bounds, r->b, sizeof(e->bounds));
		e->has_bounds = r->b[0] || r->b[1] || r->b[2] || r->b[3];
		e->clickable = r->clickable;
		e->long_clickable = r->long_clickable;
		e->focusable = r->focusable;
		e->focused = r->focused;
		e->scrollable = r->scrollable;
		e->checkable = r->checkable;
		e->checked = r->checked;
		e->selected = r->selected;
		e->enabled = r->enabled;
		e->node_index = i;
		e->subtree_end = r->subtree_end;
		e->attrs = st.attrs + r->attr_first;
		e->n_attrs = r->n_attrs;
		assign_role(e);
		e->hash = element_hash(e);
	}
	/* A dismiss control inside an unnamed container still marks it an overlay (a banner). */
	for (size_t i = 0; i < s->n_els; i++) {
		sw__element *e = &s->els[i];
		const char *name = e->label[0] ? e->label : e->text;
		if (!(e->clickable && is_dismiss_word(name)))
			continue;
		/* find the nearest enclosing node smaller than the screen */
		for (size_t j = e->node_index; j-- > 0;) {
			raw_node *p = &raw[j];
			if (p->subtree_end <= e->node_index || !p->b_ok || p->depth == 0)
				continue;
			size_t area = (size_t)(p->b[2] - p->b[0]) * (size_t)(p->b[3] - p->b[1]);
			size_t screen = (size_t)s->width * (size_t)s->height;
			if (strstr(p->cls, "RecyclerView") || strstr(p->cls, "ListView") || area * 2 > screen)
				break;
			bool known = false;
			for (size_t k = 0; k < s->n_overlays; k++)
				if (j >= s->overlays[k].node_index && j < s->overlays[k].subtree_end)
					known = true;
			if (known)
				break;
			if (s->n_overlays == overlay_cap) {
				size_t nc = overlay_cap ? overlay_cap * 2 : 4;
				sw__overlay *no = realloc(s->overlays, nc * sizeof(*no));
				if (!no) {
					rc = sw__error_nomem(err);
					goto out;
				}
				s->overlays = no;
				overlay_cap = nc;
			}
			sw__overlay *o = &s->overlays[s->n_overlays++];
			memset(o, 0, sizeof(*o));
			o->kind = "banner";
			o->pkg = p->pkg;
			memcpy(o->bounds, p->b, sizeof(o->bounds));
			o->node_index = j;
			o->subtree_end = p->subtree_end;
			o->label = "";
			for (size_t k = j + 1; k < p->subtree_end; k++)
				if (raw[k].text[0] && !raw[k].clickable) {
					o->label = raw[k].text;
					break;
				}
			break;
		}
	}
	s->arena = st.arena;
	s->attrs = st.attrs;
	st.arena = NULL;
	st.attrs = NULL;
	*out = s;
	s = NULL;
out:
	free(st.arena);
	free(st.attrs);
	free(st.raw);
	free(st.open_idx);
	if (doc)
		xmlFreeDoc(doc);
	if (ctxt)
		xmlFreeParserCtxt(ctxt);
	sw__screen_free(s);
	return rc;
}

/* ---- element lines ------------------------------------------------------ */

static bool plain_token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (!(isalnum(c) || c == '_' || c == '.' || c == '-' || c == '$'))
			return false;
	}
	return true;
}

/* Appends @s JSON-quoted, cut at 80 UTF-16 units with "..." appended, never inside a «redacted» placeholder. */
static void put_capped(sw_buf *b, const char *s)
{
	size_t len = strlen(s);
	if (sw__utf16_len(s, len) <= SW__SNAPSHOT_MAX_LABEL_CHARS) {
		sw__buf_json_string(b, s, len);
		return;
	}
	size_t cut = sw__utf16_prefix_bytes(s, len, SW__SNAPSHOT_MAX_LABEL_CHARS);
	const size_t plen = sizeof(SW__REDACTED_VALUE) - 1;
	for (const char *p = strstr(s, SW__REDACTED_VALUE); p; p = strstr(p + 1, SW__REDACTED_VALUE)) {
		size_t at = (size_t)(p - s);
		if (at >= cut)
			break;
		if (at + plen > cut) {
			cut = at;
			break;
		}
	}
	char *tmp = malloc(cut + 4);
	if (!tmp) {
		b->failed = true;
		return;
	}
	memcpy(tmp, s, cut);
	memcpy(tmp + cut, "...", 4);
	sw__buf_json_string(b, tmp, cut + 3);
	free(tmp);
}

static const char *redacted(const char *s, sw_snapshot_redact_fn redact, void *ud, char **owned)
{
	*owned = NULL;
	if (!redact || !s[0])
		return s;
	*owned = redact(s, ud);
	return *owned ? *owned : s;
}

void sw__element_line(sw_buf *b, const sw__element *e, sw_snapshot_redact_fn redact, void *ud)
{
	char *o_label, *o_text, *o_id;
	const char *label = redacted(e->label, redact, ud, &o_label);
	const char *text = redacted(e->text, redact, ud, &o_text);
	const char *id = redacted(e->short_id, redact, ud, &o_id);

	sw__buf_printf(b, "@e%u [", e->ref);
	sw__buf_append(b, e->role, e->role_len);
	sw__buf_puts(b, "] ");
	put_capped(b, label[0] ? label : text);
	if (id[0]) {
		sw__buf_puts(b, " #");
		if (plain_token(id))
			sw__buf_puts(b, id);
		else
			sw__buf_json_string(b, id, strlen(id));
	}
	if (label[0] && text[0] && strcmp(label, text) != 0) {
		sw__buf_puts(b, " text=");
		put_capped(b, text);
	}
	if (e->has_bounds)
		sw__buf_printf(b, " [%d,%d][%d,%d]", e->bounds[0], e->bounds[1], e->bounds[2], e->bounds[3]);
	bool nc = !e->clickable && !e->long_clickable;
	if (e->focused || e->secure || nc) {
		const char *sep = "";
		sw__buf_puts(b, " (");
		if (e->focused) {
			sw__buf_puts(b, "focused");
			sep = ",";
		}
		if (e->secure) {
			sw__buf_puts(b, sep);
			sw__buf_puts(b, "secure");
			sep = ",";
		}
		if (nc) {
			sw__buf_puts(b, sep);
			sw__buf_puts(b, "non-clickable");
		}
		sw__buf_putc(b, ')');
	}
	free(o_label);
	free(o_text);
	free(o_id);
}
