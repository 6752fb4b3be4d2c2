/* wda-source-internal.h: what the two WebDriverAgent source readers (XML in wda-source.c, JSON in
 * wda-source-json.c) and the source fetch (wda-source-fetch.c) share. Never installed. */
#ifndef SW_WDA_SOURCE_INTERNAL_H
#define SW_WDA_SOURCE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ios-internal.h"

/* The converted hierarchy is read by the snapshot parser, which refuses more than 16 MiB. */
#define SW__WDA_HIERARCHY_MAX_BYTES ((size_t)16 << 20)

/* One WDA element as either reader saw it. Strings are NUL-terminated and borrowed (nullable). */
typedef struct sw__wda_el {
	const char *type; /* "XCUIElementTypeButton" or the short "Button" of the JSON form */
	const char *name, *label, *value, *ph;
	const char *ident; /* the JSON form's rawIdentifier (nullable); the XML form has none */
	bool has_ident;    /* the rawIdentifier key was there (null counts) */
	double x, y, w, h;
	bool geo; /* all four finite numbers */
	bool visible, enabled, focused, selected;
} sw__wda_el;

/* Resets @a to an element with no attributes (visible, enabled, no frame). */
void sw__wda_el_init(sw__wda_el *a);

/* The hierarchy's opening (before the first node) and closing text. */
void sw__wda_emit_head(sw_buf *b, size_t expect);
void sw__wda_emit_tail(sw_buf *b);
/*
 * Appends one element's <node ...> opening tag (the caller closes it with "</node>"); false, with nothing
 * appended, when it would take the hierarchy past SW__WDA_HIERARCHY_MAX_BYTES.
 * @hidden_parent: inside a visible="false" subtree; *out_hidden: this element hides its subtree.
 */
bool sw__wda_emit_node(sw_buf *b, const sw__wda_el *a, const char *package, bool hidden_parent, bool *out_hidden,
                       sw__wda_source_stats *st);

/* sw__wda_source_convert with the plain reader (wda-source.c) allowed or not: @plain_reader false reads
 * every XML source with libxml2 alone, which is how check-wda-readers shows both give one hierarchy. */
int sw__wda_source_convert_with(const char *xml, size_t len, const char *package, size_t node_limit,
                                bool plain_reader, char **out, size_t *out_len, sw__wda_source_stats *stats,
                                sw_error **err);

/* "Button" or "XCUIElementTypeButton": whether the type is an Application (the tree's root). */
bool sw__wda_type_is_app(const char *type);

/*
 * A WDA JSON source (the `{"value": {tree}, ...}` answer of GET /source?format=json, or the bare tree
 * object) to the same hierarchy as sw__wda_source_convert. @json is modified in place (strings are
 * decoded where they stand). Same limits and failure codes as the XML reader.
 */
int sw__wda_source_convert_json(char *json, size_t len, const char *package, size_t node_limit, char **out,
                                size_t *out_len, sw__wda_source_stats *stats, sw_error **err);

/* ---- a small pull tokenizer for JSON, decoding strings in place (wda-source-json.c) ---------- */

enum sw__jtok {
	SW__J_ERROR = -1,
	SW__J_END = 0,
	SW__J_OBJ,     /* { */
	SW__J_OBJ_END, /* } */
	SW__J_ARR,     /* [ */
	SW__J_ARR_END, /* ] */
	SW__J_KEY,     /* a member name (s, n) */
	SW__J_STR,     /* a string value (s, n), NUL-terminated in place */
	SW__J_NUM,     /* a number (s, n), not terminated */
	SW__J_TRUE,
	SW__J_FALSE,
	SW__J_NULL,
};

#define SW__JSON_MAX_NESTING 1024

typedef struct sw__jpull {
	char *p, *end;
	const char *why; /* the reason of SW__J_ERROR */
	size_t depth;
	unsigned char stack[SW__JSON_MAX_NESTING]; /* 'o' object, 'a' array */
	/* what may come next: 0 a value, 1 a key or '}', 2 ',' or the container's end, 3 ':' then a value, 4 done */
	int want;
	bool first; /* just after '{' or '[' */
	bool dry;   /* validate strings but leave them as they stand (s, n: the escaped text) */
	char *dst;  /* nullable: the next string is decoded to here instead of where it stands (at or before
	               it in the same buffer), then this is cleared */
	char *s;    /* the token's text */
	size_t n;
} sw__jpull;

void sw__jpull_init(sw__jpull *j, char *buf, size_t len);
enum sw__jtok sw__jpull_next(sw__jpull *j);
/* Skips the value whose first token was just read (@tok); false on a malformed document. */
bool sw__jpull_skip(sw__jpull *j, enum sw__jtok tok);

#endif
