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
/* the cross-process lock beside it, held while the suite is open for writing */
#define SW_SUITE_LOCK_FILE ".swipium/test-suite.json.lock"

/*
 * Parses one YAML document into JSON: maps become objects, sequences arrays; a quoted scalar is a
 * string, an unquoted one an integer, a decimal, true/false, null (`~`, `null`, empty) or else a string. Refuses anchors, aliases, tags, duplicate
 * keys, several documents and anything over the limits above: SW_EINVAL with @failure_code and a
 * message "<path>:<line>:<col>: ...". (transfer full)
 */
int sw__suite_yaml_load(const char *text, size_t len, const char *path, const char *failure_code, json_t **out,
                        sw_error **err);

/* A formatted message capped at @max characters on a character boundary (the items and errors of this concern). */
char *sw__suite_vmsg(size_t max, const char *fmt, va_list ap) SW_PRINTF(2, 0);

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
/* sw__suite_norm appended to @b (no separate allocation). */
void sw__suite_norm_into(sw_buf *b, const char *s);
/* The dedupe key of @c written into @b (emptied first): the same text as sw__suite_case_key; b->failed on OOM. */
void sw__suite_case_key_into(sw_buf *b, const json_t *c);
/* The dedupe key of a case: feature + objective + normalized steps. (transfer full) */
char *sw__suite_case_key(const json_t *c);
/* The FEATURE token of a case's id (upper-case letters, digits, `_`; "GENERAL" when none). (transfer full) */
char *sw__suite_feature_token(const char *feature);
/* The number NNN of an id TC-<token>-NNN of @token, or -1. */
long sw__suite_id_number(const char *id, const char *token);

/* ---- a string -> number hash index (index.c): open addressing, keys copied into an arena ------------- */

/* Texts copied into large blocks, freed together (suite/index.c). */
typedef struct sw__text_arena {
	struct sw__text_block *blocks;
	size_t block; /* bytes per block (0: 64 KiB); a longer text gets a block of its own */
} sw__text_arena;
/* A NUL-terminated copy of @len bytes of @s in @a, or NULL when out of memory. */
char *sw__text_arena_copy(sw__text_arena *a, const char *s, size_t len);
void sw__text_arena_free(sw__text_arena *a);

typedef struct sw__sindex_slot {
	const char *key;
	size_t len;
	uint64_t hash; /* 0: empty */
	long value;
} sw__sindex_slot;

typedef struct sw__sindex {
	sw__sindex_slot *slots;
	size_t cap, n;
	sw__text_arena keys;
} sw__sindex;

void sw__sindex_init(sw__sindex *x);
void sw__sindex_free(sw__sindex *x);
/* Room for @n keys without growing (false when out of memory). */
bool sw__sindex_reserve(sw__sindex *x, size_t n);
/* Whether @key is in the index; its value into *@value (nullable). */
bool sw__sindex_get(const sw__sindex *x, const char *key, long *value);
/* The value slot of @key, inserted with @value when missing (*@existed says which). NULL when out of memory. */
long *sw__sindex_put(sw__sindex *x, const char *key, long value, bool *existed);
/* sw__sindex_put, and the index's own copy of @key into *@stored (valid until sw__sindex_free). */
long *sw__sindex_put_key(sw__sindex *x, const char *key, long value, bool *existed, const char **stored);

/* ---- the suite a case at a time (reader.c) ---------------------------------------------------------- */

/*
 * Cuts test-suite.json text into its top-level members and the bytes of each element of "cases", without
 * building one tree of the whole file. Returns false (nothing kept) when the text is anything but a plain
 * object of members whose "cases" is an array of objects: the caller then parses the text whole, so every
 * error keeps jansson's own line and column. Each case's bytes are checked by sw__suite_scan_case. An
 * update request is cut the same way (its "cases" member).
 */
typedef struct sw__suite_scan {
	json_t *head;  /* the top-level members in file order; "cases" is an empty array in its place */
	size_t n, cap; /* cases */
	size_t *span;  /* 2 * n: offset and length of each case in the text */
} sw__suite_scan;

bool sw__suite_scan_text(const char *text, size_t len, sw__suite_scan *s);
/* Parses case @i (JSON_REJECT_DUPLICATES); NULL when its bytes are not one JSON object. (transfer full) */
json_t *sw__suite_scan_case(const sw__suite_scan *s, const char *text, size_t i);
void sw__suite_scan_free(sw__suite_scan *s);

/* The suite file held as its top-level members plus one entry per case: the case's original bytes, its
 * re-written text (after a change) or nothing yet (a new case's text is set by sw__suite_file_put). */
typedef struct sw__suite_file {
	char *root;
	char *path;   /* confined real path of test-suite.json */
	bool existed; /* the file was there */
	int lock_fd;  /* cross-process lock while open for writing, else -1 */
	char *text;   /* the file's bytes */
	size_t len;
	json_t *head; /* top-level members; "cases" an empty array in its place */
	size_t n, cap;
	struct sw__suite_entry {
		size_t off, len; /* the original bytes in text (len 0: none) */
		char *own;       /* the case's text (as written at depth 2) once put, in @texts; else NULL */
		size_t own_len;
		json_t *tree;    /* its tree: from a whole-file parse or kept by sw__suite_file_keep; else NULL */
		bool verbatim;   /* opened for writing: the original bytes are what saving the case writes */
	} *cases;
	sw__text_arena texts; /* where the texts put live (256 KiB blocks) */
	sw_buf scratch;  /* reused while writing one case */
} sw__suite_file;

/*
 * Called with each case of the file in order while it is opened (@c borrowed). With @i == SIZE_MAX and @c
 * NULL: forget what the earlier calls gathered (the suite turned out unusable and was set aside, or it is
 * visited again from a whole-file parse). A failure stops the open and is returned.
 */
typedef int (*sw__suite_visit)(void *ud, size_t i, const json_t *c, sw_error **err);

/* sw__suite_open's rules (lock, corrupt file refused or set aside, same messages), a case at a time. */
int sw__suite_file_open(const char *root, bool for_write, bool set_aside_corrupt, sw__suite_file *f,
                        char **aside_note, sw__suite_visit visit, void *ud, sw_error **err);
/* From a visit: keep case @i's tree @c (borrowed) for sw__suite_file_case, instead of parsing it again. */
void sw__suite_file_keep(sw__suite_file *f, size_t i, const json_t *c);
/* Drops case @i's kept tree once the caller is done with it (the case is kept as its bytes or its text):
 * freed while it is still in the cache, not in one sweep at the close. */
int sw__suite_file_release(sw__suite_file *f, size_t i, sw_error **err);
/* Case @i parsed again (or its tree). NULL when out of memory. (transfer full) */
json_t *sw__suite_file_case(const sw__suite_file *f, size_t i);
/* Sets case @i (@i == f->n appends) to @c (borrowed): kept as its text. */
int sw__suite_file_put(sw__suite_file *f, size_t i, const json_t *c, sw_error **err);
/* Writes the suite atomically (confined, pretty JSON, byte for byte what sw__suite_save writes). */
int sw__suite_file_save(sw__suite_file *f, sw_error **err);
void sw__suite_file_close(sw__suite_file *f);

/* store.c helpers the reader shares: why @doc is not a suite (or NULL), a new empty suite, and the
 * refusal or set-aside of an unusable file (*@aside_taken says it was set aside and the caller starts empty). */
const char *sw__suite_not_a_suite(const json_t *doc);
json_t *sw__suite_empty_doc(void);
int sw__suite_unusable(const char *root, bool for_write, bool set_aside_corrupt, const char *reason,
                       char **aside_note, bool *aside_taken, sw_error **err);

#endif
