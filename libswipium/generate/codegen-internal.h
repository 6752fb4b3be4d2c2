/* codegen-internal.h: untrusted text into generated source: literal and comment escapers, identifier builder. */
#ifndef SW_CODEGEN_INTERNAL_H
#define SW_CODEGEN_INTERNAL_H

#include "sw-internal.h"

/*
 * Everything here takes text that came from a screen (labels, ids, typed values): it may hold any bytes.
 * Invalid UTF-8 becomes U+FFFD first, so the output is always valid UTF-8. A literal written by these
 * functions evaluates to exactly that sanitised text; a comment body never ends the comment and never
 * starts a new line. Characters that can hide or reorder source (C0/C1 controls, line and paragraph
 * separators, bidirectional controls, zero-width and tag characters, the BOM) are escaped in literals
 * and shown as <U+XXXX> in comments.
 */

typedef enum sw_cg_lang {
	SW_CG_JS, /* JavaScript */
	SW_CG_TS, /* TypeScript (JavaScript's rules plus its own reserved words) */
	SW_CG_PY, /* Python 3 */
} sw_cg_lang;

/* A JavaScript/TypeScript string literal with its quotes (@quote: '\'' or '"'). */
void sw__cg_js_string(sw_buf *b, const char *s, char quote);
/* The body of a template literal (between the backticks): backticks, backslashes and every '$' escaped. */
void sw__cg_js_template_text(sw_buf *b, const char *s);
/* A whole template literal `...` holding @s and no substitution. */
void sw__cg_js_template(sw_buf *b, const char *s);
/* Text safe after "// " (no line terminator, LS/PS included). */
void sw__cg_js_line_comment(sw_buf *b, const char *s);
/* Text safe inside a block comment: a line comment's rules, and no "*" "/" pair. */
void sw__cg_js_block_comment(sw_buf *b, const char *s);

/* A Python str literal in double quotes. */
void sw__cg_py_string(sw_buf *b, const char *s);
/* The literal part of an f-string body (inside f"..."): a string's escapes, braces doubled. */
void sw__cg_py_fstring_text(sw_buf *b, const char *s);
/* The body of a """docstring""" (one line: quotes, backslashes and line breaks escaped). */
void sw__cg_py_docstring_text(sw_buf *b, const char *s);
/* Text safe after "# " (no line break; never a coding declaration, which callers keep off lines 1-2). */
void sw__cg_py_comment(sw_buf *b, const char *s);

/* Identifier styles. */
typedef enum sw_cg_case {
	SW_CG_CAMEL,       /* loginButton */
	SW_CG_PASCAL,      /* LoginButton */
	SW_CG_SNAKE,       /* login_button */
	SW_CG_UPPER_SNAKE, /* LOGIN_BUTTON */
} sw_cg_case;

/* True when @name is reserved in @lang (keywords, literals, and names the language treats specially). */
bool sw__cg_is_reserved(sw_cg_lang lang, const char *name);

/* A set of identifiers already taken in one scope (a class, a module, a folder of files). */
typedef struct sw_cg_scope sw_cg_scope;
sw_cg_scope *sw__cg_scope_new(sw_cg_lang lang);
void sw__cg_scope_free(sw_cg_scope *sc);
/* Marks @name as taken (the helpers a generated file defines itself). */
void sw__cg_scope_reserve(sw_cg_scope *sc, const char *name);

/*
 * An identifier for @raw in style @c, valid in the scope's language and unique in it (the name is taken):
 * words are runs of ASCII letters and digits, Latin-1 letters are folded to ASCII (é -> e, ß -> ss), any
 * other character separates words; at most 6 words and 48 characters. An empty result becomes @fallback
 * (itself sanitised; "item" when NULL), a leading digit gets the prefix "n", a reserved word the suffix
 * "_", a taken name the suffix 2, 3, ... ("_2" in snake styles). Deterministic: the same raw texts in the
 * same order give the same names. Returns a new string (NULL only when out of memory).
 */
char *sw__cg_ident(sw_cg_scope *sc, const char *raw, sw_cg_case c, const char *fallback);

#endif
