/* swipium/snapshot.h: screen snapshots from UI hierarchy dumps: @eN refs, element lines, diff, quality. */
#ifndef SWIPIUM_SNAPSHOT_H
#define SWIPIUM_SNAPSHOT_H

#include <stddef.h>

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The snapshot state of one session: the latest and the previous snapshot,
 * the `@eN` refs handed out so far and the count of consecutive failed dumps.
 *
 * Refs are stable: an element that is still on screen (same class, resource
 * id, description, text and bounds; a text field keeps its ref while its text
 * changes) keeps its ref in the next snapshot. New elements get new numbers,
 * never reused. A ref handed out earlier whose element is gone answers
 * STALE_REF; a ref never handed out answers ELEMENT_NOT_FOUND.
 */
typedef struct sw_snapshot_tracker sw_snapshot_tracker;

/**
 * Optional text filter for every string that leaves a snapshot (labels,
 * texts, ids, inspect attributes). Returns a newly allocated string (freed
 * with free()) or NULL to keep @text unchanged. The session redactor plugs
 * in here.
 */
typedef char *(*sw_snapshot_redact_fn)(const char *text, void *userdata);

/** Creates an empty tracker. */
SW_API int sw_snapshot_tracker_new(sw_snapshot_tracker **out, sw_error **err);
/** Frees @t. NULL is accepted. */
SW_API void sw_snapshot_tracker_free(sw_snapshot_tracker *t);
/** Sets the redaction filter (NULL removes it). */
SW_API void sw_snapshot_tracker_set_redactor(sw_snapshot_tracker *t, sw_snapshot_redact_fn fn, void *userdata);
/** Sets how many consecutive failed dumps switch to visual-only mode (default 3, minimum 1). */
SW_API void sw_snapshot_tracker_set_max_failures(sw_snapshot_tracker *t, unsigned max_failures);

/**
 * Parses one uiautomator dump (@xml, @len bytes) and makes it the current
 * snapshot of @t. @options_json (nullable) is an object with any of:
 * `filter` (string; case-insensitive substring of text, label, id or role,
 * searched over every element including those over the cap), `diff` (bool:
 * also return `diff` {added, removed, stateChanged} against the previous
 * snapshot), `verbose` (bool: element objects instead of lines),
 * `keyboard` ({shown: bool, frame: [x1,y1,x2,y2]}: the soft keyboard, from
 * the driver), `screen` ({width, height}).
 *
 * Result (JSON object): elements (lines, at most 60, document order),
 * elementCount, elementsOmitted, hint (when capped), quality,
 * qualityReasons, snapshotQuality {verdict, reasons, signals}, overlays,
 * keyboard, screen, package, modeRecovered (when the first good dump after
 * failures), diff (when asked).
 *
 * A dump that is not a hierarchy (garbage, empty, a DTD, over 16 MiB or
 * 50,000 nodes) fails with SNAPSHOT_FAILED and counts as a failed dump;
 * after max_failures in a row it fails with VISUAL_ONLY_SCREEN instead.
 * @out_json: (transfer full)
 */
SW_API int sw_snapshot_take_xml(sw_snapshot_tracker *t, const char *xml, size_t len, const char *options_json,
                                char **out_json, sw_error **err);

/**
 * Records a dump that could not be obtained at all (the device tool failed).
 * Returns SW_EDEVICE with SNAPSHOT_FAILED, or VISUAL_ONLY_SCREEN once the
 * limit of consecutive failures is reached; @why goes into the message.
 */
SW_API int sw_snapshot_record_failure(sw_snapshot_tracker *t, const char *why, sw_error **err);

/** Number of consecutive failed dumps so far. */
SW_API unsigned sw_snapshot_tracker_failures(const sw_snapshot_tracker *t);
/** Non-zero when a current snapshot exists. */
SW_API int sw_snapshot_tracker_has_snapshot(const sw_snapshot_tracker *t);

/**
 * Every attribute of one element of the current snapshot: {ref, role,
 * class, id, resourceId, contentDesc, text, label, bounds, center, flags
 * {clickable, longClickable, focusable, focused, secure, scrollable,
 * checkable, checked, selected, enabled}, line, attributes {raw}}. Secure
 * values are `«secure»`, everything passes the redactor. An old ref fails
 * with STALE_REF, an unknown one with ELEMENT_NOT_FOUND, a malformed one
 * with INVALID_ARGUMENT. @out_json: (transfer full)
 */
SW_API int sw_snapshot_inspect(sw_snapshot_tracker *t, const char *ref, char **out_json, sw_error **err);

/**
 * Finds one element of the current snapshot. @target_json is an object with
 * one of `ref`, `text`, `id` or `selector` {using, value} (and optional
 * `index` to pick among several matches). Text and id match exactly first
 * (id also by its short form after '/'), then case-insensitively. Several
 * matches without index: AMBIGUOUS_SELECTOR; none: ELEMENT_NOT_FOUND.
 * Result: the same object as sw_snapshot_inspect().
 * @out_json: (transfer full)
 */
SW_API int sw_snapshot_resolve(sw_snapshot_tracker *t, const char *target_json, char **out_json, sw_error **err);

/**
 * Parses one element line back into {ref, role, name, id, text, bounds,
 * clickable, focused, secure}; id, text and bounds are null when absent.
 * A string that is not an element line fails with SW_EINVAL (INVALID_ARGUMENT).
 * @out_json: (transfer full)
 */
SW_API int sw_snapshot_parse_element_line(const char *line, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
