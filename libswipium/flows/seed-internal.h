/* seed-internal.h: fixtures (inline + .swipium/fixtures.json) and the seeds of the flow step `seed:` (never
 * installed). */
#ifndef SW_SEED_INTERNAL_H
#define SW_SEED_INTERNAL_H

#include "sw-internal.h"
#include <swipium/actions.h>
#include <swipium/session.h>

/*
 * The session's fixtures as a run sees them: `.swipium/fixtures.json` of @root (read again at every call,
 * so a session rehydrated after a restart gets the file's live values; the file is confined to @root; its
 * shape is {fixtures: [...]} or a bare array), then the fixtures given inline to the session (memory only),
 * which win by name. Secret field values (secret: true, or a credential-like field name) are registered
 * with the session's redactor before they are returned. Problems with the file (unreadable, not JSON, an
 * entry without a name) are appended to @notes (nullable) as strings and the rest is used.
 * (transfer full; an empty array when there are none)
 */
json_t *sw__fixtures_load(sw_session *s, const char *root, json_t *notes);

/* The fixture named @name in @fixtures (borrowed), or NULL. */
json_t *sw__fixture_find(const json_t *fixtures, const char *name);

/*
 * What a seed does, for the consent prompt: one line ("seed fixture \"acct\" (repo-supplied, unreviewed):
 * script argv ['./seed.sh', 'ann']") and an `affects` entry {kind:"seed", fixture, type, argv|url, method?,
 * headers? (names only), cleanup?}. Header values and the body are never shown (they may hold a token);
 * the body's size is. *@script is set when the seed, or its cleanup, runs a program. A fixture that is
 * missing or has no valid seed gives a line that says so and counts as a script (the prompt errs high).
 */
void sw__seed_describe(const json_t *fixtures, const char *name, char **line, json_t **affects, bool *script);

/* Replaces ${NAME} in @in (the flow's variable rules); transfer full in *@out. */
typedef int (*sw__seed_subst_fn)(void *ud, const char *in, char **out, sw_error **err);

typedef struct sw__seed_env {
	sw_session *session;
	sw_drive *drive;            /* deeplink seeds open their URL through the drive */
	const char *root;           /* script seeds run in it */
	const volatile int *cancel; /* nullable */
	sw__seed_subst_fn subst;    /* nullable: no substitution */
	void *subst_ud;
} sw__seed_env;

/*
 * Runs @spec (a fixture's seed or its cleanup object) of fixture @name: deeplink through the drive, api
 * over HTTP (libcurl), script as an argv (never a shell) in @root with a 120 s limit. Fails SEED_FAILED
 * (a non-zero exit, a timeout, an HTTP status >= 400, a transport error) or INVALID_ARGUMENT (a malformed
 * seed). *@summary (transfer full) says what ran without values: {type, fixture, exitStatus?|status?}.
 * Nothing the seed printed or answered is kept.
 */
int sw__seed_run(const sw__seed_env *env, const char *name, const json_t *spec, bool cleanup, json_t **summary,
                 sw_error **err);

#endif
