/* suite-internal.h: what the suite concern's files share (POM YAML, the canonical suite store); never installed. */
#ifndef SW_SUITE_INTERNAL_H
#define SW_SUITE_INTERNAL_H

#include "sw-internal.h"

/* Limits for repository YAML (pages, tests, suites): untrusted input. */
#define SW_SUITE_YAML_MAX_BYTES (1024u * 1024u)
#define SW_SUITE_YAML_MAX_DEPTH 16
#define SW_SUITE_YAML_MAX_NODES 20000
#define SW_SUITE_YAML_MAX_SCALAR 65536
/* test-suite.json is read whole; a bigger one is refused, never truncated. */
#define SW_SUITE_JSON_MAX_BYTES (256u * 1024u * 1024u)

#define SW_SUITE_FILE ".swipium/test-suite.json"

/*
 * Parses one YAML document into JSON: maps become objects, sequences arrays; a quoted scalar is a
 * string, an unquoted one an integer, a decimal, true/false, null (`~`, `null`, empty) or else a string. Refuses anchors, aliases, tags, duplicate
 * keys, several documents and anything over the limits above: SW_EINVAL with @failure_code and a
 * message "<path>:<line>:<col>: ...". (transfer full)
 */
int sw__suite_yaml_load(const char *text, size_t len, const char *path, const char *failure_code, json_t **out,
                        sw_error **err);

/* Appends @s as a YAML double-quoted scalar (every control character, quote and backslash escaped). */
void sw__suite_yaml_quote(sw_buf *b, const char *s);
/*
 * Appends a Flow V2 file for @flow {name, appId?, setup?[], steps[], teardown?[]}, where a step is a
 * string (bare word) or a one-key object whose value is a string, a number array or a flat object.
 */
void sw__suite_flow_yaml(sw_buf *b, const json_t *flow);

/* Reads a confined project file (@rel relative to @root) of at most @max bytes. */
int sw__suite_read_confined(const char *root, const char *rel, size_t max, char **text, size_t *len, char **real_out,
                            sw_error **err);

/* ---- page objects (pages.c) ---------------------------------------------------------------------- */

/*
 * Loads page objects into @pages (object: page name -> {file, elements: {name -> locator object}}),
 * from @files (array of paths relative to .swipium/) or, when NULL, every .yaml/.yml file in .swipium/pages.
 * Problems are appended to @items as {level:"error"|"warning", code, file, page?, element?, message}.
 * A file that resolves outside the project fails the call (UNSAFE_ACTION_REFUSED) when @strict, else is
 * an error item. *@found (nullable) is set to whether .swipium/pages exists.
 */
int sw__suite_pages_load(const char *root, const json_t *files, bool strict, json_t *pages, json_t *items,
                         bool *found, sw_error **err);

/* The Flow V2 selector for a normalized locator {kind, value} (NULL for coordinates). (transfer full) */
char *sw__suite_locator_selector(const json_t *loc);

/*
 * Normalizes one element description (a selector string or a one-locator map) into
 * {kind: id|accessibilityId|name|predicate|classChain|text|selector|coordinates, value?, x?, y?, secret?}.
 * Returns NULL and sets *@why when it is not one.
 */
json_t *sw__suite_locator_parse(const json_t *v, const char **why);

/* The page-object locator checks of one element (coordinate-only, locale-fragile, dynamic) into @items. */
void sw__suite_lint_locator(const char *file, const char *page, const char *element, const json_t *loc,
                            json_t *items);

/* ---- the canonical suite store (store.c) ----------------------------------------------------------- */

typedef struct sw__suite_doc {
	char *root;
	char *path;    /* confined real path of test-suite.json */
	json_t *doc;   /* the whole document {schemaVersion, ..., cases[]} */
	bool existed;  /* the file was there */
	int lock_fd;   /* cross-process lock while open for writing, else -1 */
} sw__suite_doc;

/*
 * Opens the suite of @root. @for_write takes the cross-process lock. A file that does not parse, or is
 * not a suite, fails with SW_EPARSE: nothing is ever replaced by an empty suite. With @for_write and
 * @set_aside_corrupt, a corrupt file is renamed to `test-suite.json.corrupt-<time>` first, and the
 * call carries on with an empty suite (the note in *@aside_note, transfer full, says where it went).
 */
int sw__suite_open(const char *root, bool for_write, bool set_aside_corrupt, sw__suite_doc *d, char **aside_note,
                   sw_error **err);
/* Writes the document atomically (confined, pretty JSON). */
int sw__suite_save(sw__suite_doc *d, sw_error **err);
void sw__suite_close(sw__suite_doc *d);

/* Cases array of the document (created when missing). (transfer none) */
json_t *sw__suite_cases(json_t *doc);

/* Lower-cased, trimmed, whitespace-collapsed copy of @s (NULL is ""). (transfer full) */
char *sw__suite_norm(const char *s);
/* The dedupe key of a case: feature + objective + normalized steps. (transfer full) */
char *sw__suite_case_key(const json_t *c);
/* The FEATURE token of a case's id (upper-case letters, digits, `_`; "GENERAL" when none). (transfer full) */
char *sw__suite_feature_token(const char *feature);
/* The number NNN of an id TC-<token>-NNN of @token, or -1. */
long sw__suite_id_number(const char *id, const char *token);

#endif
