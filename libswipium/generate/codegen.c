/* codegen.c: screen text into TypeScript, JavaScript and Python source only as escaped literals and comments. */
#include "codegen-internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Characters that end a line, hide, or reorder source text in an editor or a compiler. */
static bool cp_hidden(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return true;
	switch (cp) {
	case 0x00ad: /* soft hyphen */
	case 0x061c: /* Arabic letter mark */
	case 0x115f:
	case 0x1160:
	case 0x3164: /* Hangul fillers (blank letters) */
	case 0x180e:
	case 0x2028:
	case 0x2029:
	case 0xfeff: return true;
	default: break;
	}
	return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
	       (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}

/* Calls @fn for each code point of @s after invalid sequences became U+FFFD. */
typedef void (*cp_fn)(sw_buf *b, uint32_t cp, const char *bytes, size_t n, void *state);

static void each_cp(sw_buf *b, const char *s, cp_fn fn, void *state)
{
	if (!s)
		return;
	char *clean = sw__utf8_sanitize(s, strlen(s));
	if (!clean) {
		b->failed = true;
		return;
	}
	const unsigned char *p = (const unsigned char *)clean;
	size_t len = strlen(clean);
	size_t i = 0;
	while (i < len) {
		uint32_t cp = 0;
		size_t n = sw__utf8_decode(p + i, len - i, &cp);
		if (n == 0) { /* cannot happen after sanitising; never loop forever */
			cp = 0xfffd;
			n = 1;
		}
		fn(b, cp, clean + i, n, state);
		i += n;
	}
	free(clean);
}

/* ---- JavaScript / TypeScript --------------------------------------------- */

enum { JS_STRING, JS_TEMPLATE };

static void js_escape_cp(sw_buf *b, uint32_t cp)
{
	if (cp <= 0xff)
		sw__buf_printf(b, "\\x%02X", (unsigned)cp);
	else if (cp <= 0xffff)
		sw__buf_printf(b, "\\u%04X", (unsigned)cp);
	else
		sw__buf_printf(b, "\\u{%X}", (unsigned)cp);
}

static void js_cp(sw_buf *b, uint32_t cp, const char *bytes, size_t n, void *state)
{
	int mode = *(int *)state;
	switch (cp) {
	case '\\': sw__buf_puts(b, "\\\\"); return;
	case '\'': sw__buf_puts(b, mode == JS_TEMPLATE ? "'" : "\\'"); return;
	case '"': sw__buf_puts(b, mode == JS_TEMPLATE ? "\"" : "\\\""); return;
	case '`': sw__buf_puts(b, "\\`"); return;
	case '$': sw__buf_puts(b, mode == JS_TEMPLATE ? "\\$" : "$"); return;
	case '\n': sw__buf_puts(b, "\\n"); return;
	case '\r': sw__buf_puts(b, "\\r"); return;
	case '\t': sw__buf_puts(b, "\\t"); return;
	default: break;
	}
	if (cp_hidden(cp))
		js_escape_cp(b, cp);
	else
		sw__buf_append(b, bytes, n);
}

void sw__cg_js_string(sw_buf *b, const char *s, char quote)
{
	int mode = JS_STRING;
	char q = quote == '"' ? '"' : '\'';
	sw__buf_putc(b, q);
	each_cp(b, s, js_cp, &mode);
	sw__buf_putc(b, q);
}

void sw__cg_js_template_text(sw_buf *b, const char *s)
{
	int mode = JS_TEMPLATE;
	each_cp(b, s, js_cp, &mode);
}

void sw__cg_js_template(sw_buf *b, const char *s)
{
	sw__buf_putc(b, '`');
	sw__cg_js_template_text(b, s);
	sw__buf_putc(b, '`');
}

/* Comments: a hidden character is shown as <U+XXXX>; in a block comment "*" never meets "/". */
struct comment_state {
	bool block;
	bool last_star;
};

static void comment_cp(sw_buf *b, uint32_t cp, const char *bytes, size_t n, void *state)
{
	struct comment_state *st = state;
	if (cp_hidden(cp)) {
		sw__buf_printf(b, "<U+%04X>", (unsigned)cp);
		st->last_star = false;
		return;
	}
	if (st->block && cp == '/' && st->last_star)
		sw__buf_putc(b, '\\');
	sw__buf_append(b, bytes, n);
	st->last_star = cp == '*';
}

void sw__cg_js_line_comment(sw_buf *b, const char *s)
{
	struct comment_state st = {false, false};
	each_cp(b, s, comment_cp, &st);
}

void sw__cg_js_block_comment(sw_buf *b, const char *s)
{
	struct comment_state st = {true, false};
	each_cp(b, s, comment_cp, &st);
	/* A body ending in a star would meet the writer's closing slash: keep them apart. */
	if (st.last_star)
		sw__buf_putc(b, ' ');
}

/* ---- Python --------------------------------------------------------------- */

enum { PY_STRING, PY_FSTRING };

static void py_cp(sw_buf *b, uint32_t cp, const char *bytes, size_t n, void *state)
{
	int mode = *(int *)state;
	switch (cp) {
	case '\\': sw__buf_puts(b, "\\\\"); return;
	case '\'': sw__buf_puts(b, "\\'"); return;
	case '"': sw__buf_puts(b, "\\\""); return;
	case '\n': sw__buf_puts(b, "\\n"); return;
	case '\r': sw__buf_puts(b, "\\r"); return;
	case '\t': sw__buf_puts(b, "\\t"); return;
	case '{': sw__buf_puts(b, mode == PY_FSTRING ? "{{" : "{"); return;
	case '}': sw__buf_puts(b, mode == PY_FSTRING ? "}}" : "}"); return;
	default: break;
	}
	if (!cp_hidden(cp))
		sw__buf_append(b, bytes, n);
	else if (cp <= 0xff)
		sw__buf_printf(b, "\\x%02X", (unsigned)cp);
	else if (cp <= 0xffff)
		sw__buf_printf(b, "\\u%04X", (unsigned)cp);
	else
		sw__buf_printf(b, "\\U%08X", (unsigned)cp);
}

void sw__cg_py_string(sw_buf *b, const char *s)
{
	int mode = PY_STRING;
	sw__buf_putc(b, '"');
	each_cp(b, s, py_cp, &mode);
	sw__buf_putc(b, '"');
}

void sw__cg_py_fstring_text(sw_buf *b, const char *s)
{
	int mode = PY_FSTRING;
	each_cp(b, s, py_cp, &mode);
}

void sw__cg_py_docstring_text(sw_buf *b, const char *s)
{
	/* Every quote is escaped, so neither '"""' nor a quote next to the closing one can end the string. */
	int mode = PY_STRING;
	each_cp(b, s, py_cp, &mode);
}

void sw__cg_py_comment(sw_buf *b, const char *s)
{
	struct comment_state st = {false, false};
	each_cp(b, s, comment_cp, &st);
}

/* ---- identifiers ---------------------------------------------------------- */

static const char *const js_reserved[] = {"break",
                                          "case",
                                          "catch",
                                          "class",
                                          "const",
                                          "continue",
                                          "debugger",
                                          "default",
                                          "delete",
                                          "do",
                                          "else",
                                          "enum",
                                          "export",
                                          "extends",
                                          "false",
                                          "finally",
                                          "for",
                                          "function",
                                          "if",
                                          "import",
                                          "in",
                                          "instanceof",
                                          "new",
                                          "null",
                                          "return",
                                          "super",
                                          "switch",
                                          "this",
                                          "throw",
                                          "true",
                                          "try",
                                          "typeof",
                                          "var",
                                          "void",
                                          "while",
                                          "with",
                                          "yield",
                                          "let",
                                          "static",
                                          "implements",
                                          "interface",
                                          "package",
                                          "private",
                                          "protected",
                                          "public",
                                          "await",
                                          "async",
                                          "arguments",
                                          "eval",
                                          "undefined",
                                          "NaN",
                                          "Infinity",
                                          "of",
                                          "get",
                                          "set",
                                          "constructor",
                                          "prototype",
                                          "__proto__",
                                          "hasOwnProperty",
                                          "toString",
                                          "valueOf",
                                          NULL};
static const char *const ts_reserved[] = {
    "abstract", "any",    "as",        "asserts", "bigint",   "boolean",  "declare",  "global",  "infer",     "is",
    "keyof",    "module", "namespace", "never",   "number",   "object",   "readonly", "require", "satisfies", "string",
    "symbol",   "type",   "unique",    "unknown", "override", "accessor", "out",      "from",    NULL};
static const char *const py_reserved[] = {"False",       "None",      "True",
                                          "and",         "as",        "assert",
                                          "async",       "await",     "break",
                                          "class",       "continue",  "def",
                                          "del",         "elif",      "else",
                                          "except",      "finally",   "for",
                                          "from",        "global",    "if",
                                          "import",      "in",        "is",
                                          "lambda",      "nonlocal",  "not",
                                          "or",          "pass",      "raise",
                                          "return",      "try",       "while",
                                          "with",        "yield",     "match",
                                          "case",        "type",      "_",
                                          "self",        "cls",       "print",
                                          "id",          "list",      "dict",
                                          "set",         "tuple",     "str",
                                          "int",         "float",     "bool",
                                          "bytes",       "object",    "len",
                                          "range",       "open",      "input",
                                          "super",       "property",  "staticmethod",
                                          "classmethod", "exec",      "eval",
                                          "compile",     "format",    "iter",
                                          "next",        "map",       "filter",
                                          "vars",        "dir",       "hash",
                                          "help",        "min",       "max",
                                          "sum",         "any",       "all",
                                          "abs",         "Exception", "NotImplemented",
                                          "Ellipsis",    "__debug__", NULL};


bool sw__cg_is_reserved(sw_cg_lang lang, const char *name)
{
	if (!name || !*name)
		return true;
	if (lang == SW_CG_PY)
		return sw__str_one_of(name, py_reserved) || sw__str_has_prefix(name, "__");
	if (sw__str_one_of(name, js_reserved))
		return true;
	return lang == SW_CG_TS && sw__str_one_of(name, ts_reserved);
}

struct sw_cg_scope {
	sw_cg_lang lang;
	json_t *taken; /* lower-cased names: unique even on a case-insensitive file system */
};

sw_cg_scope *sw__cg_scope_new(sw_cg_lang lang)
{
	sw_cg_scope *sc = calloc(1, sizeof(*sc));
	if (!sc)
		return NULL;
	sc->lang = lang;
	sc->taken = json_object();
	if (!sc->taken) {
		free(sc);
		return NULL;
	}
	return sc;
}

void sw__cg_scope_free(sw_cg_scope *sc)
{
	if (!sc)
		return;
	json_decref(sc->taken);
	free(sc);
}

static char *lower_dup(const char *s)
{
	char *d = sw__strdup(s);
	for (char *p = d; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return d;
}

static bool scope_has(const sw_cg_scope *sc, const char *name)
{
	char *k = lower_dup(name);
	bool has = k && json_object_get(sc->taken, k) != NULL;
	free(k);
	return has;
}

void sw__cg_scope_reserve(sw_cg_scope *sc, const char *name)
{
	if (!sc || !name)
		return;
	char *k = lower_dup(name);
	if (k)
		json_object_set_new(sc->taken, k, json_true());
	free(k);
}

/* Latin-1 letters folded to ASCII; NULL for the two symbols (× ÷) that separate words. */
static const char *const latin1_fold[64] = {
    "A", "A",  "A", "A", "A", "A", "AE", "C", "E",  "E",  "E", "E",  "I", "I", "I", "I", "D",  "N", "O",  "O", "O", "O",
    "O", NULL, "O", "U", "U", "U", "U",  "Y", "TH", "ss", "a", "a",  "a", "a", "a", "a", "ae", "c", "e",  "e", "e", "e",
    "i", "i",  "i", "i", "d", "n", "o",  "o", "o",  "o",  "o", NULL, "o", "u", "u", "u", "u",  "y", "th", "y"};

#define IDENT_MAX_WORDS 6
#define IDENT_MAX_LEN 48

struct words {
	char w[IDENT_MAX_WORDS][IDENT_MAX_LEN + 1];
	size_t n;     /* words started */
	size_t total; /* letters kept */
	bool in_word;
};

static void word_add(struct words *ws, const char *letters)
{
	for (const char *p = letters; *p; p++) {
		if (!ws->in_word) {
			if (ws->n >= IDENT_MAX_WORDS)
				return;
			ws->n++;
			ws->in_word = true;
		}
		char *w = ws->w[ws->n - 1];
		size_t wl = strlen(w);
		if (ws->total >= IDENT_MAX_LEN || wl >= IDENT_MAX_LEN)
			return;
		w[wl] = (char)tolower((unsigned char)*p);
		w[wl + 1] = '\0';
		ws->total++;
	}
}

static void words_cp(sw_buf *b, uint32_t cp, const char *bytes, size_t n, void *state)
{
	(void)b;
	(void)bytes;
	(void)n;
	struct words *ws = state;
	char one[2] = {0, 0};
	const char *letters = NULL;
	if (cp < 0x80 && isalnum((int)cp)) {
		one[0] = (char)cp;
		letters = one;
	} else if (cp >= 0xc0 && cp <= 0xff) {
		letters = latin1_fold[cp - 0xc0];
	}
	if (letters)
		word_add(ws, letters);
	else
		ws->in_word = false;
}

static void join_words(sw_buf *out, const struct words *ws, sw_cg_case c)
{
	for (size_t i = 0; i < ws->n; i++) {
		const char *w = ws->w[i];
		if (!*w)
			continue;
		bool snake = c == SW_CG_SNAKE || c == SW_CG_UPPER_SNAKE;
		if (snake && out->len > 0)
			sw__buf_putc(out, '_');
		for (size_t j = 0; w[j]; j++) {
			char ch = w[j];
			if (c == SW_CG_UPPER_SNAKE ||
			    (j == 0 && (c == SW_CG_PASCAL || (c == SW_CG_CAMEL && out->len > 0))))
				ch = (char)toupper((unsigned char)ch);
			sw__buf_putc(out, ch);
		}
	}
}

static void build_base(sw_buf *out, const char *raw, sw_cg_case c)
{
	struct words ws;
	memset(&ws, 0, sizeof(ws));
	sw_buf dummy = SW_BUF_INIT;
	each_cp(&dummy, raw, words_cp, &ws);
	if (dummy.failed)
		out->failed = true;
	sw__buf_free(&dummy);
	join_words(out, &ws, c);
}

char *sw__cg_ident(sw_cg_scope *sc, const char *raw, sw_cg_case c, const char *fallback)
{
	if (!sc)
		return NULL;
	bool upper = c == SW_CG_PASCAL || c == SW_CG_UPPER_SNAKE;
	bool snake = c == SW_CG_SNAKE || c == SW_CG_UPPER_SNAKE;
	sw_buf base = SW_BUF_INIT;
	build_base(&base, raw, c);
	if (!base.failed && base.len == 0)
		build_base(&base, fallback ? fallback : "item", c);
	if (!base.failed && base.len == 0)
		build_base(&base, "item", c);
	if (base.failed || !base.data) {
		sw__buf_free(&base);
		return NULL;
	}
	/* The first form: no leading digit. */
	char *first = sw__asprintf("%s%s", isdigit((unsigned char)base.data[0]) ? (upper ? "N" : "n") : "", base.data);
	sw__buf_free(&base);
	if (!first)
		return NULL;
	char *name = sw__cg_is_reserved(sc->lang, first) ? sw__asprintf("%s_", first) : sw__strdup(first);
	for (unsigned k = 2; name && (scope_has(sc, name) || sw__cg_is_reserved(sc->lang, name)); k++) {
		free(name);
		name = sw__asprintf("%s%s%u", first, snake ? "_" : "", k);
	}
	free(first);
	if (name)
		sw__cg_scope_reserve(sc, name);
	return name;
}
