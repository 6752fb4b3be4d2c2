/* tok.c: tokenizers for JS/TS/JSX/TSX, Kotlin, Groovy, Java, Swift and Dart source.
 *
 * One scanner with per-language rules for what matters to the framework rules: strings (with their
 * escapes, raw and multi-line forms, and interpolations whose code is tokenized in place), comments
 * (nested where the language nests them), JS regular expressions and JSX (tags, attributes, {expressions}
 * and text children, so that an apostrophe in "Don't" is text, not a string). Any byte sequence is
 * accepted; nesting of interpolations and JSX is capped so hostile input cannot exhaust the stack. */
#include <stdlib.h>
#include <string.h>

#include "appscan-internal.h"

#define NEST_MAX 64

typedef struct lexer {
	const char *s;
	size_t n, i;
	uint32_t line;
	sw__lang lang;
	sw__toks *t;
} lexer;

static bool is_id_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}

static bool is_id_char(unsigned char c)
{
	return is_id_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int cur(const lexer *l)
{
	return l->i < l->n ? (unsigned char)l->s[l->i] : -1;
}

static int peek(const lexer *l, size_t k)
{
	return l->i + k < l->n ? (unsigned char)l->s[l->i + k] : -1;
}

static bool nests_comments(sw__lang lang)
{
	return lang == SW__LANG_KOTLIN || lang == SW__LANG_GROOVY || lang == SW__LANG_SWIFT || lang == SW__LANG_DART;
}

/* Appends a token; answers its index, or -1 when out of memory (the list is then marked failed). */
static long push(lexer *l, sw__tokkind kind, size_t off, size_t len)
{
	sw__toks *t = l->t;
	if (t->failed)
		return -1;
	if (off > UINT32_MAX || len > UINT32_MAX) {
		t->failed = true;
		return -1;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		sw__tok *v = realloc(t->v, cap * sizeof(*v));
		if (!v) {
			t->failed = true;
			return -1;
		}
		t->v = v;
		t->cap = cap;
	}
	sw__tok *k = &t->v[t->n];
	k->kind = (uint8_t)kind;
	k->line = l->line;
	k->off = (uint32_t)off;
	k->len = (uint32_t)len;
	k->sv = 0;
	k->match = -1;
	return (long)t->n++;
}

static void skip_space(lexer *l)
{
	while (l->i < l->n) {
		int c = cur(l);
		if (c == '\n') {
			l->line++;
			l->i++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			l->i++;
		} else if (c == '/' && peek(l, 1) == '/') {
			while (l->i < l->n && l->s[l->i] != '\n')
				l->i++;
		} else if (c == '/' && peek(l, 1) == '*') {
			int depth = 1;
			l->i += 2;
			while (l->i < l->n && depth > 0) {
				if (l->s[l->i] == '*' && peek(l, 1) == '/') {
					depth--;
					l->i += 2;
				} else if (nests_comments(l->lang) && l->s[l->i] == '/' && peek(l, 1) == '*') {
					depth++;
					l->i += 2;
				} else {
					if (l->s[l->i] == '\n')
						l->line++;
					l->i++;
				}
			}
		} else if (c == '#' && l->i == 0 && peek(l, 1) == '!') {
			while (l->i < l->n && l->s[l->i] != '\n') /* a shebang line */
				l->i++;
		} else {
			break;
		}
	}
}

static void lex_run(lexer *l, int close);

/* Decodes one backslash escape at l->i (just past the backslash) into @val. */
static void escape(lexer *l, sw_buf *val)
{
	int c = cur(l);
	if (c < 0)
		return;
	l->i++;
	switch (c) {
	case 'n': sw__buf_putc(val, '\n'); break;
	case 't': sw__buf_putc(val, '\t'); break;
	case 'r': sw__buf_putc(val, '\r'); break;
	case '0':
		sw__buf_putc(val, '?'); /* a NUL is kept out of values (they are C strings) */
		break;
	case '\n':
		l->line++; /* a line continuation */
		break;
	default: sw__buf_putc(val, (char)c); break;
	}
}

/* Ends a string token: T_STR with its decoded value, or T_TMPL when it interpolated code. */
static void finish_string(lexer *l, long idx, size_t start, bool interp, sw_buf *val)
{
	if (idx < 0) {
		sw__buf_free(val);
		return;
	}
	sw__tok *k = &l->t->v[idx];
	k->len = (uint32_t)(l->i - start);
	if (interp) {
		k->kind = SW__T_TMPL;
	} else {
		sw_buf *strs = &l->t->strs;
		if (strs->len == 0)
			sw__buf_putc(strs, '\0'); /* offset 0 is the empty string */
		size_t at = strs->len;
		if (val->len == 0) {
			k->sv = 0;
		} else {
			sw__buf_append(strs, val->data, val->len);
			sw__buf_putc(strs, '\0');
			if (strs->failed || at > UINT32_MAX)
				l->t->failed = true;
			else
				k->sv = (uint32_t)at;
		}
	}
	sw__buf_free(val);
}

/* Interpolated code: tokenized in place up to its closing bracket (or plain text past the nesting cap). */
static void interpolation(lexer *l, int close)
{
	if (l->t->depth >= NEST_MAX) {
		int depth = 1;
		while (l->i < l->n && depth > 0) {
			int c = cur(l);
			if (c == (close == '}' ? '{' : '('))
				depth++;
			else if (c == close)
				depth--;
			else if (c == '\n')
				l->line++;
			l->i++;
		}
		return;
	}
	l->t->depth++;
	lex_run(l, close);
	l->t->depth--;
}

/*
 * A quoted string starting at l->i (on its first quote; @prefix bytes of r/#/@ before it already skipped by
 * the caller are counted in @start). @q the quote, @triple three of them, @raw no escapes, @hashes the
 * number of Swift '#' delimiters.
 */
static void lex_quoted(lexer *l, size_t start, int q, bool triple, bool raw, int hashes)
{
	long idx = push(l, SW__T_STR, start, 0);
	sw_buf val = SW_BUF_INIT;
	bool interp = false;
	l->i += triple ? 3 : 1;
	bool dollar =
	    l->lang == SW__LANG_KOTLIN || l->lang == SW__LANG_DART || (l->lang == SW__LANG_GROOVY && q == '"');
	if (l->lang == SW__LANG_DART && raw)
		dollar = false;
	while (l->i < l->n) {
		int c = cur(l);
		if (c == q) {
			if (!triple) {
				int h = 0;
				while (h < hashes && peek(l, 1 + (size_t)h) == '#')
					h++;
				if (h == hashes) {
					l->i += 1 + (size_t)hashes;
					break;
				}
			} else if (peek(l, 1) == q && peek(l, 2) == q) {
				int h = 0;
				while (h < hashes && peek(l, 3 + (size_t)h) == '#')
					h++;
				if (h == hashes) {
					l->i += 3;
					while (cur(l) == q) /* """" ends with a quote of content */
						l->i++, sw__buf_putc(&val, (char)q);
					l->i += (size_t)hashes;
					break;
				}
			}
			sw__buf_putc(&val, (char)c);
			l->i++;
			continue;
		}
		if (c == '\n') {
			l->line++;
			if (!triple && l->lang != SW__LANG_JS && l->lang != SW__LANG_TS)
				break; /* an unterminated one-line string ends at the line */
			if (!triple)   /* nor does JS allow one; stop here too */
				break;
			sw__buf_putc(&val, '\n');
			l->i++;
			continue;
		}
		if (l->lang == SW__LANG_SWIFT && c == '\\') {
			int h = 0;
			while (h < hashes && peek(l, 1 + (size_t)h) == '#')
				h++;
			if (h == hashes) {
				l->i += 1 + (size_t)hashes;
				if (cur(l) == '(') {
					l->i++;
					interp = true;
					interpolation(l, ')');
				} else {
					escape(l, &val);
				}
				continue;
			}
			sw__buf_putc(&val, '\\');
			l->i++;
			continue;
		}
		if (c == '\\' && !raw) {
			l->i++;
			escape(l, &val);
			continue;
		}
		if (c == '$' && dollar) {
			if (peek(l, 1) == '{') {
				l->i += 2;
				interp = true;
				interpolation(l, '}');
				continue;
			}
			if (peek(l, 1) >= 0 && is_id_start((unsigned char)peek(l, 1)) && peek(l, 1) != '$') {
				l->i++;
				size_t b = l->i;
				while (l->i < l->n && is_id_char((unsigned char)l->s[l->i]) && l->s[l->i] != '$')
					l->i++;
				push(l, SW__T_IDENT, b, l->i - b);
				interp = true;
				continue;
			}
		}
		sw__buf_putc(&val, (char)c);
		l->i++;
	}
	finish_string(l, idx, start, interp, &val);
}

/* A JS template literal `...${e}...`. */
static void lex_template(lexer *l)
{
	size_t start = l->i;
	long idx = push(l, SW__T_STR, start, 0);
	sw_buf val = SW_BUF_INIT;
	bool interp = false;
	l->i++;
	while (l->i < l->n) {
		int c = cur(l);
		if (c == '`') {
			l->i++;
			break;
		}
		if (c == '\\') {
			l->i++;
			escape(l, &val);
			continue;
		}
		if (c == '$' && peek(l, 1) == '{') {
			l->i += 2;
			interp = true;
			interpolation(l, '}');
			continue;
		}
		if (c == '\n')
			l->line++;
		sw__buf_putc(&val, (char)c);
		l->i++;
	}
	finish_string(l, idx, start, interp, &val);
}

static const char *const PUNCT3[] = {"===", "!==", "...", "..<", "**=", "<<=", ">>=", "&&=", "||=", "?\?=", NULL};
static const char *const PUNCT2[] = {"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "..", "::", "->", "++",
                                     "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "!!", "?:", NULL};

static void lex_punct(lexer *l)
{
	for (const char *const *p = PUNCT3; *p; p++)
		if (l->i + 3 <= l->n && !memcmp(l->s + l->i, *p, 3)) {
			push(l, SW__T_PUNCT, l->i, 3);
			l->i += 3;
			return;
		}
	for (const char *const *p = PUNCT2; *p; p++)
		if (l->i + 2 <= l->n && !memcmp(l->s + l->i, *p, 2)) {
			push(l, SW__T_PUNCT, l->i, 2);
			l->i += 2;
			return;
		}
	push(l, SW__T_PUNCT, l->i, 1);
	l->i++;
}

static bool prev_is(const lexer *l, const char *text)
{
	return l->t->n && sw__tok_is(l->t, l->t->n - 1, text);
}

/* In JS, whether the next token starts an expression (so '/' is a regex and '<' may open JSX). */
static bool js_expr_position(const lexer *l)
{
	const sw__toks *t = l->t;
	if (!t->n)
		return true;
	const sw__tok *k = &t->v[t->n - 1];
	if (k->kind == SW__T_IDENT) {
		static const char *const kw[] = {"return", "typeof",     "case",    "do",   "else",  "in",
		                                 "of",     "new",        "delete",  "void", "throw", "yield",
		                                 "await",  "instanceof", "default", NULL};
		for (const char *const *w = kw; *w; w++)
			if (sw__tok_is(t, t->n - 1, *w))
				return true;
		return false;
	}
	if (k->kind != SW__T_PUNCT)
		return false;
	return !(prev_is(l, ")") || prev_is(l, "]") || prev_is(l, "}") || prev_is(l, "++") || prev_is(l, "--") ||
	         prev_is(l, "!!"));
}

static void lex_regex(lexer *l)
{
	size_t start = l->i++;
	bool cls = false;
	while (l->i < l->n) {
		int c = cur(l);
		if (c == '\n')
			break; /* not a regex after all: stop at the line */
		if (c == '\\') {
			l->i += 2;
			continue;
		}
		if (c == '[')
			cls = true;
		else if (c == ']')
			cls = false;
		else if (c == '/' && !cls) {
			l->i++;
			break;
		}
		l->i++;
	}
	if (l->i > l->n)
		l->i = l->n;
	while (l->i < l->n && is_id_char((unsigned char)l->s[l->i]))
		l->i++;
	push(l, SW__T_NUM, start, l->i - start); /* an opaque literal */
}

/* A JSX tag or attribute name: letters, digits, '-', ':' (pushed as one identifier). */
static bool jsx_name(lexer *l)
{
	if (!(cur(l) >= 0 && is_id_start((unsigned char)cur(l))))
		return false;
	size_t b = l->i;
	while (l->i < l->n && (is_id_char((unsigned char)l->s[l->i]) || l->s[l->i] == '-' || l->s[l->i] == ':'))
		l->i++;
	push(l, SW__T_IDENT, b, l->i - b);
	return true;
}

static void jsx_element(lexer *l);

/* {expression} inside JSX: '{', the code, '}' all pushed. */
static void jsx_expression(lexer *l)
{
	push(l, SW__T_PUNCT, l->i, 1);
	l->i++;
	lex_run(l, '}');
	push(l, SW__T_PUNCT, l->i - 1, 1);
}

static void jsx_children(lexer *l)
{
	while (l->i < l->n && !l->t->failed) {
		int c = cur(l);
		if (c == '\n') {
			l->line++;
			l->i++;
		} else if (c == '{') {
			jsx_expression(l);
		} else if (c == '<' && peek(l, 1) == '/') {
			push(l, SW__T_PUNCT, l->i, 2);
			l->i += 2;
			skip_space(l);
			while (jsx_name(l)) {
				if (cur(l) != '.')
					break;
				push(l, SW__T_PUNCT, l->i, 1);
				l->i++;
			}
			skip_space(l);
			if (cur(l) == '>') {
				push(l, SW__T_PUNCT, l->i, 1);
				l->i++;
			}
			return;
		} else if (c == '<' &&
		           (peek(l, 1) == '>' || (peek(l, 1) >= 0 && is_id_start((unsigned char)peek(l, 1))))) {
			jsx_element(l);
		} else {
			l->i++;
		}
	}
}

/* A JSX element from its '<': the tag name, attributes, and for an open tag its children up to the close. */
static void jsx_element(lexer *l)
{
	l->t->depth++;
	push(l, SW__T_PUNCT, l->i, 1);
	l->i++;
	skip_space(l);
	if (cur(l) == '>') {
		push(l, SW__T_PUNCT, l->i, 1);
		l->i++;
		jsx_children(l);
		goto out;
	}
	while (jsx_name(l)) {
		if (cur(l) != '.')
			break;
		push(l, SW__T_PUNCT, l->i, 1);
		l->i++;
	}
	while (l->i < l->n && !l->t->failed) {
		skip_space(l);
		int c = cur(l);
		if (c == '/' && peek(l, 1) == '>') {
			push(l, SW__T_PUNCT, l->i, 2);
			l->i += 2;
			break;
		}
		if (c == '>') {
			push(l, SW__T_PUNCT, l->i, 1);
			l->i++;
			jsx_children(l);
			break;
		}
		if (c == '{') {
			jsx_expression(l);
			continue;
		}
		if (jsx_name(l))
			continue;
		if (c == '=') {
			push(l, SW__T_PUNCT, l->i, 1);
			l->i++;
			skip_space(l);
			c = cur(l);
			if (c == '"' || c == '\'') {
				/* attribute strings have no escapes and may span lines */
				size_t start = l->i++;
				long idx = push(l, SW__T_STR, start, 0);
				sw_buf val = SW_BUF_INIT;
				while (l->i < l->n && l->s[l->i] != c) {
					if (l->s[l->i] == '\n')
						l->line++;
					sw__buf_putc(&val, l->s[l->i++]);
				}
				if (l->i < l->n)
					l->i++;
				finish_string(l, idx, start, false, &val);
			} else if (c == '<' && l->t->depth < NEST_MAX) {
				jsx_element(l);
			}
			continue;
		}
		break; /* not JSX after all (a type argument, a comparison): back to code */
	}
out:
	l->t->depth--;
}

/* One token at l->i (after blanks and comments). */
static void lex_token(lexer *l)
{
	int c = cur(l);
	bool js = l->lang == SW__LANG_JS || l->lang == SW__LANG_TS;
	size_t start = l->i;
	if (is_digit((unsigned char)c) || (c == '.' && peek(l, 1) >= 0 && is_digit((unsigned char)peek(l, 1)) && js)) {
		l->i++;
		while (l->i < l->n && (is_id_char((unsigned char)l->s[l->i]) ||
		                       (l->s[l->i] == '.' && peek(l, 1) >= 0 && is_digit((unsigned char)peek(l, 1)))))
			l->i++;
		push(l, SW__T_NUM, start, l->i - start);
		return;
	}
	if (l->lang == SW__LANG_DART && c == 'r' && (peek(l, 1) == '\'' || peek(l, 1) == '"')) {
		int q = peek(l, 1);
		l->i++;
		bool triple = peek(l, 1) == q && peek(l, 2) == q;
		lex_quoted(l, start, q, triple, true, 0);
		return;
	}
	if (is_id_start((unsigned char)c)) {
		while (l->i < l->n && is_id_char((unsigned char)l->s[l->i]))
			l->i++;
		push(l, SW__T_IDENT, start, l->i - start);
		return;
	}
	if (c == '`') {
		if (js) {
			lex_template(l);
			return;
		}
		if (l->lang == SW__LANG_KOTLIN || l->lang == SW__LANG_SWIFT || l->lang == SW__LANG_GROOVY) {
			/* a quoted identifier: `default` */
			l->i++;
			size_t b = l->i;
			while (l->i < l->n && l->s[l->i] != '`' && l->s[l->i] != '\n')
				l->i++;
			push(l, SW__T_IDENT, b, l->i - b);
			if (cur(l) == '`')
				l->i++;
			return;
		}
	}
	if (c == '"') {
		bool triple =
		    peek(l, 1) == '"' && peek(l, 2) == '"' && l->lang != SW__LANG_JS && l->lang != SW__LANG_TS;
		lex_quoted(l, start, '"', triple, false, 0);
		return;
	}
	if (c == '\'') {
		if (js || l->lang == SW__LANG_DART || l->lang == SW__LANG_GROOVY) {
			bool triple = !js && peek(l, 1) == '\'' && peek(l, 2) == '\'';
			lex_quoted(l, start, '\'', triple, false, 0);
			return;
		}
		if (l->lang == SW__LANG_KOTLIN || l->lang == SW__LANG_JAVA) {
			/* a character literal */
			l->i++;
			for (int k = 0; k < 12 && l->i < l->n && l->s[l->i] != '\'' && l->s[l->i] != '\n'; k++)
				l->i += l->s[l->i] == '\\' ? 2 : 1;
			if (l->i < l->n && l->s[l->i] == '\'')
				l->i++;
			if (l->i > l->n)
				l->i = l->n;
			push(l, SW__T_NUM, start, l->i - start);
			return;
		}
	}
	if (c == '#' && l->lang == SW__LANG_SWIFT) {
		int h = 0;
		while (peek(l, (size_t)h) == '#')
			h++;
		if (peek(l, (size_t)h) == '"') {
			l->i += (size_t)h;
			bool triple = peek(l, 1) == '"' && peek(l, 2) == '"';
			lex_quoted(l, start, '"', triple, true, h);
			return;
		}
	}
	if (js && c == '/' && js_expr_position(l)) {
		lex_regex(l);
		return;
	}
	if (c == '<' && l->lang == SW__LANG_JS && l->t->depth < NEST_MAX && js_expr_position(l) &&
	    (peek(l, 1) == '>' || (peek(l, 1) >= 0 && is_id_start((unsigned char)peek(l, 1))))) {
		jsx_element(l);
		return;
	}
	lex_punct(l);
}

/* Tokens up to an unmatched @close (consumed, not pushed), or to the end when @close is 0. */
static void lex_run(lexer *l, int close)
{
	int depth = 0;
	for (;;) {
		skip_space(l);
		if (l->i >= l->n || l->t->failed)
			return;
		int c = cur(l);
		if (close && depth == 0 && c == close) {
			l->i++;
			return;
		}
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		lex_token(l);
	}
}

static void match_brackets(sw__toks *t)
{
	if (t->failed || !t->n)
		return;
	long *stack = malloc(t->n * sizeof(*stack));
	if (!stack) {
		t->failed = true;
		return;
	}
	size_t sp = 0;
	for (size_t i = 0; i < t->n; i++) {
		sw__tok *k = &t->v[i];
		if (k->kind != SW__T_PUNCT || k->len != 1)
			continue;
		char c = t->src[k->off];
		if (c == '(' || c == '[' || c == '{') {
			stack[sp++] = (long)i;
		} else if (c == ')' || c == ']' || c == '}') {
			char want = c == ')' ? '(' : c == ']' ? '[' : '{';
			/* an unmatched closer is ignored; an opener left open by broken code is dropped */
			size_t j = sp;
			while (j > 0 && t->src[t->v[stack[j - 1]].off] != want)
				j--;
			if (j == 0)
				continue;
			sp = j - 1;
			t->v[stack[sp]].match = (int32_t)i;
			k->match = (int32_t)stack[sp];
		}
	}
	free(stack);
}

void sw__tokenize(sw__lang lang, const char *src, size_t len, sw__toks *out)
{
	memset(out, 0, sizeof(*out));
	out->src = src;
	out->src_len = len;
	if (len > UINT32_MAX) {
		out->failed = true;
		return;
	}
	lexer l = {src, len, 0, 1, lang, out};
	lex_run(&l, 0);
	match_brackets(out);
}

void sw__toks_free(sw__toks *t)
{
	if (!t)
		return;
	free(t->v);
	sw__buf_free(&t->strs);
	memset(t, 0, sizeof(*t));
}

bool sw__tok_is(const sw__toks *t, size_t i, const char *text)
{
	if (i >= t->n)
		return false;
	const sw__tok *k = &t->v[i];
	if (k->kind != SW__T_PUNCT && k->kind != SW__T_IDENT)
		return false;
	size_t n = strlen(text);
	return k->len == n && !memcmp(t->src + k->off, text, n);
}

bool sw__tok_ident(const sw__toks *t, size_t i, const char *name)
{
	return i < t->n && t->v[i].kind == SW__T_IDENT && sw__tok_is(t, i, name);
}

bool sw__tok_kind(const sw__toks *t, size_t i, sw__tokkind kind)
{
	return i < t->n && t->v[i].kind == kind;
}

const char *sw__tok_str(const sw__toks *t, size_t i)
{
	if (i >= t->n || t->v[i].kind != SW__T_STR)
		return NULL;
	if (!t->strs.data)
		return "";
	return t->strs.data + t->v[i].sv;
}

char *sw__tok_text(const sw__toks *t, size_t i)
{
	if (i >= t->n)
		return NULL;
	return sw__strndup(t->src + t->v[i].off, t->v[i].len);
}

char *sw__tok_dotted(const sw__toks *t, size_t i, size_t *end)
{
	if (!sw__tok_kind(t, i, SW__T_IDENT))
		return NULL;
	sw_buf b = SW_BUF_INIT;
	sw__buf_append(&b, t->src + t->v[i].off, t->v[i].len);
	i++;
	while ((sw__tok_is(t, i, ".") || sw__tok_is(t, i, "?.")) && sw__tok_kind(t, i + 1, SW__T_IDENT)) {
		sw__buf_putc(&b, '.');
		sw__buf_append(&b, t->src + t->v[i + 1].off, t->v[i + 1].len);
		i += 2;
	}
	if (end)
		*end = i;
	return sw__buf_steal(&b, NULL);
}
