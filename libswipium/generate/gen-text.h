/* gen-text.h: how generate/ writes untrusted text into YAML and Markdown, and the small naming helpers. */
#ifndef SW_GEN_TEXT_H
#define SW_GEN_TEXT_H

#include "sw-internal.h"

/*
 * @doc (borrowed) as one YAML document written by libyaml's emitter, into *out (transfer full). Objects keep
 * their key order. A string is a plain scalar only when it is an identifier-like word that YAML reads back
 * as the same text (not true/false/yes/no/on/off/null); every other string is double-quoted with libyaml's
 * escapes (quotes, backslashes, line breaks and control characters), so no label becomes YAML structure.
 * Keys are written the same way. A line width of its own is never imposed (no folding). @comment (nullable)
 * is written as the first line, `# ` and the text with line breaks turned into spaces.
 */
int sw__gen_yaml(const json_t *doc, const char *comment, char **out, sw_error **err);

/* Appends @s as Markdown text: &, <, > as entities, \ ` * _ [ ] # | ~ escaped, line breaks as spaces. */
void sw__gen_md_text(sw_buf *b, const char *s);

/*
 * An identifier built from untrusted @text: ASCII letters and digits (other characters split words, which
 * are joined in camel case when @upper_first, or lower camel case otherwise), a leading digit gets @prefix
 * in front, an empty result becomes @fallback. (transfer full)
 */
char *sw__gen_ident(const char *text, bool upper_first, const char *prefix, const char *fallback);

/* The slug of @name: every run of characters other than ASCII letters, digits, `_`, `.` and `-` becomes one
 * `-`; leading dots are dropped; "" becomes "recorded". (transfer full) */
char *sw__gen_slug(const char *name);

/*
 * The longest part of @text holding neither a `${` nor a redaction marker, trimmed; NULL when no part of at
 * least two characters is left. A label that would read as a variable reference is matched by such a part.
 */
char *sw__gen_safe_part(const char *text);

#endif
