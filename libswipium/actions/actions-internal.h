/* actions-internal.h: the typed drive calls other library modules use (flows), without the session's books. */
#ifndef SW_ACTIONS_INTERNAL_H
#define SW_ACTIONS_INTERNAL_H

#include "sw-internal.h"
#include <swipium/actions.h>

/* The options sw_drive_snapshot() and sw_drive_act() accept (the checked-options tables). */
extern const sw__opt sw__drive_snapshot_opts[];
extern const sw__opt sw__drive_act_opts[];

/*
 * sw_drive_act() on a parsed argument object (borrowed), *res (transfer full): the action and, with a
 * session attached, the health check after it, but none of the books (recorded actions, counters):
 * the flow runner keeps its own.
 */
int sw__drive_act(sw_drive *d, const json_t *args, json_t **res, sw_error **err);
/* sw_drive_snapshot() on parsed options (borrowed, nullable), without counting snapshot failures. */
int sw__drive_snapshot(sw_drive *d, const json_t *opts, json_t **res, sw_error **err);
/* The session attached to @d, or NULL. */
sw_session *sw__drive_session(const sw_drive *d);
/* The device of @d (transfer none). */
sw_device *sw__drive_dev(const sw_drive *d);
/* Hands @dev to @d: it is freed with the drive (sw_drive_bind). */
void sw__drive_own_device(sw_drive *d, sw_device *dev);
/*
 * Steps that run back to back (a flow): a selector resolves on the snapshot the previous act settled on
 * instead of a new dump (nothing else acted in between). Off by default: between two tool calls the world
 * may change.
 */
void sw__drive_trust_settled(sw_drive *d, bool on);
/* The raw hierarchy the current snapshot was made from (the autopilot reads descendants' text), or NULL. */
const char *sw__drive_last_xml(const sw_drive *d, size_t *len);

/*
 * What the last sw__drive_act() acted on (NULL when it reached no element and knew no screen): {element?:
 * {resourceId?, id?, accessibilityId?, text?, label?, hint?, class?, secure?, editable?, bounds}, screen?,
 * point?, secret?, secretKind?, placeholders?}. (transfer full; the drive forgets it)
 */
json_t *sw__drive_take_acted(sw_drive *d);

/*
 * Records one act a tool ran through sw__drive_act() (the flow runner for qa_smoke) the way sw_drive_act()
 * records qa_act's: @args (borrowed) as given with tool = @tool, what the act touched, seq, at, failureCode,
 * in @s (the drive's own session when NULL).
 * @record_text (nullable) replaces the typed text (the step's own ${VAR}, never the resolved value); @secret:
 * the step said the text is secret (a literal is then not recorded). No-op without a session.
 */
void sw__drive_record(sw_drive *d, sw_session *s, const json_t *args, const char *tool, const char *record_text,
                      bool secret, int rc, sw_error **err);

#endif
