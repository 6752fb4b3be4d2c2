/* snapshot-internal.h: the parsed screen model shared by snapshots, actions and benches; never installed. */
#ifndef SW_SNAPSHOT_INTERNAL_H
#define SW_SNAPSHOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sw-internal.h"
#include <swipium/snapshot.h>

/* Limits on what a dump may hold before it is refused. */
#define SW__SNAPSHOT_MAX_BYTES ((size_t)16 * 1024 * 1024)
#define SW__SNAPSHOT_MAX_NODES 50000
/* Element lines: presentation cap and name cap (TOOLS.md §6.1). */
#define SW__SNAPSHOT_MAX_PRESENTED 60
#define SW__SNAPSHOT_MAX_LABEL_CHARS 80
#define SW__SECURE_VALUE                                                                                               \
	"\xc2\xab"                                                                                                     \
	"secure"                                                                                                       \
	"\xc2\xbb"
#define SW__REDACTED_VALUE                                                                                             \
	"\xc2\xab"                                                                                                     \
	"redacted"                                                                                                     \
	"\xc2\xbb"

/* One attribute of a dump node as dumped (entities decoded), in document order. */
typedef struct sw__attr {
	const char *name;
	const char *value;
} sw__attr;

/* One interactive element. Strings point into the screen's string arena (never NULL, "" when absent). */
typedef struct sw__element {
	unsigned ref;
	const char *cls;
	const char *role;
	size_t role_len;
	const char *id;       /* full resource-id */
	const char *short_id; /* the part after '/' */
	const char *desc;
	const char *text;  /* SW__SECURE_VALUE for password fields */
	const char *label; /* desc, else hint of a field, else text adopted from a child; "" when none */
	const char *pkg;
	const char *hint;
	size_t raw_text_chars; /* characters of the text attribute as dumped (bullets of a password too) */
	int bounds[4];
	bool has_bounds;
	bool clickable, long_clickable, focusable, focused, secure, scrollable, checkable, checked, selected, enabled;
	bool edit;
	size_t node_index;  /* pre-order index of the node in the document */
	size_t subtree_end; /* one past the last node index of its subtree */
	const sw__attr *attrs; /* the node's raw attributes */
	size_t n_attrs;
	uint64_t hash;
} sw__element;

typedef struct sw__overlay {
	const char *kind;
	const char *label;
	const char *pkg;
	const char *hint;
	size_t raw_text_chars; /* characters of the text attribute as dumped (bullets of a password too) */
	int bounds[4];
	size_t node_index, subtree_end;
	unsigned dismiss_ref; /* 0 when none */
} sw__overlay;

typedef struct sw__screen {
	char *arena;    /* every string of the screen */
	sw__attr *attrs; /* raw attributes of all nodes */
	sw__element *els;
	size_t n_els;
	sw__overlay *overlays;
	size_t n_overlays;
	size_t node_count;
	size_t clickable_count;
	size_t unidentified_clickable;
	size_t webview_area_max;
	bool compose_seen;
	int width, height, rotation;
	/* "dump" (its first window covers the screen), "device" (the caller's size covers the dump), "dump+device" (each
	 * extends the other), "window" (a window not at the origin, no device size), "unknown" */
	const char *geometry;
	/* interactive or labelled elements left out of els, by reason */
	size_t omitted_offscreen, omitted_no_size, omitted_invisible;
	const char *package;
	const char *reader; /* which reader read the dump: "plain" or "libxml2" (parse.c) */
} sw__screen;

/*
 * Parses a dump into a screen (refs unassigned). Fails with SNAPSHOT_FAILED. @screen_w x @screen_h (0: unknown)
 * is the device's natural screen size; the geometry is the dump's windows, at least that size turned to the
 * dump's rotation.
 */
int sw__snapshot_parse(const char *xml, size_t len, int screen_w, int screen_h, sw__screen **out, sw_error **err);
/* The same with the plain-dump reader (parse.c) allowed or not: @plain_reader false reads every dump with
 * libxml2 alone, which is how check-snapshot shows that both readers give one screen. */
int sw__snapshot_parse_with(const char *xml, size_t len, int screen_w, int screen_h, bool plain_reader,
                            sw__screen **out, sw_error **err);
void sw__screen_free(sw__screen *s);

/* Appends the element line of @e to @b, passing strings through @redact (nullable). */
void sw__element_line(sw_buf *b, const sw__element *e, sw_snapshot_redact_fn redact, void *ud);

/* Assigns refs to @cur, reusing those of @prev (nullable) for the same elements; *next_ref advances. */
void sw__snapshot_assign_refs(sw__screen *cur, const sw__screen *prev, unsigned *next_ref);

/* The current screen of a tracker (the previous one lives only during sw_snapshot_take_xml). (nullable) */
const sw__screen *sw__snapshot_current(const sw_snapshot_tracker *t);
/* Finds an element of the current screen by ref number. (nullable) */
const sw__element *sw__snapshot_find_ref(const sw_snapshot_tracker *t, unsigned ref);
/* Resolves a target object ({ref|text|id|selector, index}) to an element; errors carry the failure code. */
int sw__snapshot_resolve_target(sw_snapshot_tracker *t, json_t *target, const sw__element **out, sw_error **err);
/* The overlay covering the center of @e that @e is not part of, or NULL. */
const sw__overlay *sw__snapshot_overlay_over(const sw__screen *s, const sw__element *e);
/* Redacts with the tracker's redactor; returns a malloc'd copy. */
char *sw__snapshot_redact(const sw_snapshot_tracker *t, const char *text);
/* The inspect object of @e. */
json_t *sw__snapshot_element_json(const sw_snapshot_tracker *t, const sw__element *e, bool raw);
/* Element line of @e as a JSON string value, or a verbose object. */
json_t *sw__snapshot_element_repr(const sw_snapshot_tracker *t, const sw__element *e, bool verbose);

/*
 * Inside sw_snapshot_take_xml: compares the current screen with the previous one: elements added and
 * removed, and state changes of elements that stayed (checked, selected,
 * text). Returns true when anything changed (positions moving count, since
 * a moved element is a new element).
 */
bool sw__snapshot_compare(const sw_snapshot_tracker *t, json_t **added, json_t **removed, json_t **state_changed,
                          size_t *n_added, size_t *n_removed, bool verbose);

#endif
