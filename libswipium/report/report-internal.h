/* report-internal.h: what the report loader, gate and renderers share inside libswipium. */
#ifndef SW_REPORT_INTERNAL_H
#define SW_REPORT_INTERNAL_H

#include "sw-internal.h"

struct sw_report {
	json_t *root; /* the report object, JS key order, strings valid UTF-8 */
	char *session_id;
};

/* A string slice that may hold NUL bytes. */
typedef struct sw__str {
	const char *s;
	size_t len;
} sw__str;

/* The text of @b as a C string ("" when empty, even if only reserved). */
static inline const char *sw__buf_cstr(const sw_buf *b)
{
	return b->data && b->len ? b->data : "";
}

/* ---- JSON text in, as JavaScript's JSON.parse would read it ---------- */

/*
 * Parses untrusted JSON text: invalid UTF-8 becomes U+FFFD (as Node's UTF-8
 * decoder does), escaped lone surrogates become U+FFFD, NUL escapes are kept,
 * every number is a double, and objects are put in JavaScript's property
 * order (array-index keys first). On failure *msg gets a one-line reason.
 */
json_t *sw__report_parse_json(const char *data, size_t len, char **msg);

/* ---- JavaScript value semantics over json_t (NULL = undefined) -------- */

const json_t *sw__js_get(const json_t *obj, const char *key);
bool sw__js_nullish(const json_t *v);
bool sw__js_truthy(const json_t *v);
bool sw__js_is(const json_t *v, const char *str);
/* Appends String(v); undefined appends "undefined". */
void sw__js_string(sw_buf *b, const json_t *v);
/* String(v) into a fresh buffer (the caller frees .data). */
sw_buf sw__js_string_buf(const json_t *v);
/* `a ?? b`. */
const json_t *sw__js_coalesce(const json_t *a, const json_t *b);
/* Array length, 0 when @v is not an array. */
size_t sw__js_array_len(const json_t *v);
/* Number(v) for a comparison such as `v > 1`: numeric strings count, anything unusable is 0. */
double sw__js_number_coerce(const json_t *v);
/* Number value when @v is a number, else @def. */
double sw__js_number(const json_t *v, double def);

/* ---- text helpers of the exporters (all lengths in UTF-16 units) ------ */

/* XML text: illegal characters to U+FFFD, then & < > " CR LF escaped. */
void sw__xml_escape(sw_buf *b, const char *s, size_t len);
/* Markdown text: & < > as entities, then \ ` * _ [ ] # | ~ backslash-escaped. */
void sw__md_text(sw_buf *b, const char *s, size_t len);
/* sw__md_text for text on a single line: line breaks become spaces first. */
void sw__md_text_line(sw_buf *b, const char *s, size_t len);
/* Inline code span that cannot be broken out of. */
void sw__md_code(sw_buf *b, const char *s, size_t len);
/* Table cell escaping: `|` -> `\|`. */
void sw__table_cell(sw_buf *b, const char *s, size_t len);
/* A free-text table cell: clip to 2000, md text, table cell, line breaks -> <br>. */
void sw__md_cell(sw_buf *b, const char *s, size_t len);
/* Link destination that cannot end the link or the table row. */
void sw__md_link_dest(sw_buf *b, const char *s, size_t len);
/* Appends s clipped to @max UTF-16 units (max-1 units plus an ellipsis when longer). */
void sw__clip(sw_buf *b, const char *s, size_t len, size_t max);
/* compactValue(v, max): "-" for null/undefined/empty, JSON for non-strings, clipped. */
void sw__compact_value(sw_buf *b, const json_t *v, size_t max);
/* String(v) upper-cased (ASCII letters: a risk word); undefined and null are "UNKNOWN". */
void sw__js_upper(sw_buf *b, const json_t *v);
/* Appends @text with CR and LF turned into spaces (a value shown on one line). */
void sw__js_line(sw_buf *b, const sw_buf *text);
/* sw__js_line of String(v). */
void sw__js_line_value(sw_buf *b, const json_t *v);
/* Lower-cases like String.prototype.toLowerCase for the common cases. */
void sw__js_lower(sw_buf *b, const char *s, size_t len);
/* A finding as one text (JUnit's failure detail, SARIF's message): detail + `: "evidence"` + ` Next: nextStep`. */
void sw__finding_text(sw_buf *b, const json_t *f);

/* Replaces NUL bytes (which Markdown renderers turn into U+FFFD anyway) with U+FFFD; frees @body when it copies. */
char *sw__nul_to_replacement(char *body, size_t len, size_t *len_out);

/* scrubVolatile() of already lower-cased text. */
void sw__scrub_volatile(sw_buf *b, const char *s, size_t len);
/* stableHash(parts...): 16 hex chars of sha256 over the scrubbed, lower-cased parts joined by "|". */
void sw__stable_hash(const sw__str *parts, size_t n, char out[17]);

/* ---- release gate ----------------------------------------------------- */

/* Reads <root>/.swipium/policy.json; NULL when absent, unreadable or not usable. */
json_t *sw__policy_load(const char *project_root);
/* The gate decision {block, blocked, warned, suppressed, reason}; @policy may be NULL. */
json_t *sw__gate_eval(const json_t *report, const json_t *policy);
/* The failure code of a failing test outcome as the gate sees it (never NULL, appended to @b). */
void sw__outcome_fail_code(sw_buf *b, const json_t *outcome);
/* The failure code of a high finding as the gate sees it: failureCode ?? kind ?? "UNKNOWN". */
void sw__finding_code(sw_buf *b, const json_t *finding);
/* The first step failure code of an outcome (truthy), or NULL. */
const json_t *sw__outcome_step_code(const json_t *outcome);
/* Policy normalisation: lower case, only [a-z0-9] kept. */
void sw__policy_norm(sw_buf *b, const char *s, size_t len);
/* Does the policy token list @list match @code (with synonyms and failed_required_flow)? */
bool sw__policy_list_matches(const json_t *list, const char *code, size_t code_len, bool synonyms);

/* ---- streaming JSON writer (JSON.stringify(v, null, 2) layout) -------- */

/* Deeper than any document jansson parses (2048) plus the SARIF envelope. */
#define SW__JW_MAX_DEPTH 2100

typedef struct sw__jw {
	sw_buf *b;
	int depth;
	bool after_key;
	unsigned count[SW__JW_MAX_DEPTH];
} sw__jw;

void sw__jw_init(sw__jw *w, sw_buf *b);
/* Opens '{' or '['; close with the matching bracket. */
void sw__jw_open(sw__jw *w, char bracket);
void sw__jw_close(sw__jw *w, char bracket);
void sw__jw_key(sw__jw *w, const char *key);
void sw__jw_keyn(sw__jw *w, const char *key, size_t len);
void sw__jw_str(sw__jw *w, const char *s, size_t len);
/* A literal (number, true, false, null) written as given. */
void sw__jw_raw(sw__jw *w, const char *text);
/* Any JSON value, laid out at the current depth. */
void sw__jw_value(sw__jw *w, const json_t *v);

/* ---- renderers (each returns the body without a final newline) -------- */

char *sw__render_junit(const json_t *r, const json_t *gate, size_t *len);
char *sw__render_sarif(const json_t *r, const json_t *gate, const char *project_root, size_t *len);
char *sw__render_github_summary(const json_t *r, const json_t *gate, size_t *len);
char *sw__render_markdown(const json_t *r, size_t *len);
char *sw__render_json(const json_t *r, const json_t *gate, size_t *len);

/* The GitHub step-summary byte cap and its truncation rule, exposed for tests. */
#define SW__SUMMARY_CAP (900u * 1024u)
char *sw__summary_cap(char *body, size_t len, size_t cap, size_t *len_out);

/* SARIF sources: anchor files for findings and workflows. */
typedef struct sw__sarif_sources sw__sarif_sources;
sw__sarif_sources *sw__sarif_sources_new(const char *project_root, const json_t *report);
void sw__sarif_sources_free(sw__sarif_sources *s);
/* The anchor URI (with monorepo prefix) for a screen / workflow (lower-cased key) or the default. */
const char *sw__sarif_anchor_screen(const sw__sarif_sources *s, const char *lower_screen);
const char *sw__sarif_anchor_workflow(const sw__sarif_sources *s, const char *lower_workflow);
/* The path from the nearest ancestor holding `.git` to @root, with a trailing '/', or "" (transfer full). */
char *sw__git_prefix(const char *root);

/* ---- the report pipeline (save.c) ------------------------------------- */

/*
 * sw_report_save() on parsed options (borrowed): *result (transfer full) as documented there;
 * *report_meta (nullable, transfer full) the saved report's artifact metadata; *export_body (nullable,
 * transfer full) the export text.
 */
int sw__report_save(sw_ctx *ctx, sw_session *s, const json_t *opts, json_t **result, json_t **report_meta,
                    char **export_body, sw_error **err);

#endif
