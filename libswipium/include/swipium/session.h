/* swipium/session.h: the session store under ~/.swipium: sessions, their persisted state, artifacts, retention. */
#ifndef SWIPIUM_SESSION_H
#define SWIPIUM_SESSION_H

#include <stdint.h>

#include <swipium/common.h>
#include <swipium/context.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The session store of one process: every session created or reloaded here,
 * `~/.swipium/registry.json`, `processes.json` and the retention prune.
 * Thread-safe: every function below may be called from any thread (jobs run
 * on their own threads).
 */
typedef struct sw_store sw_store;

/**
 * One QA session. Owned by its store (never freed by the caller); a pointer
 * stays valid until sw_store_free().
 */
typedef struct sw_session sw_session;

/* The session's redactor, declared in swipium/redact.h. */
struct sw_redactor;

/* ---- store ------------------------------------------------------------- */

/**
 * Opens the store under `<home>/.swipium` (home from @ctx). Nothing is read
 * yet: the registry is loaded lazily by the first get/list/create call. @ctx
 * must outlive the store.
 */
SW_API int sw_store_open(sw_ctx *ctx, sw_store **out, sw_error **err);

/**
 * Cancels running jobs (and waits for their threads), writes every dirty
 * session synchronously and frees the store. NULL is accepted.
 */
SW_API void sw_store_free(sw_store *store);

/** The `<home>/.swipium` directory. (transfer none) */
SW_API const char *sw_store_dir(const sw_store *store);

/** Writes every session with unsaved changes now. Failures are logged; the first is returned. */
SW_API int sw_store_flush_all(sw_store *store, sw_error **err);

/**
 * Creates a session for @project_root (an absolute directory) and saves it
 * synchronously: `runs/<sha256(root) hex[0:16]>/<id>/state.json` and a
 * registry.json entry. @root_source (nullable) is where the root came from
 * ("arg", "cwd" ...). @options_json (nullable) is an object with any of
 * `responseMode` (compact|normal|verbose), `sensitive` (bool), `profile`
 * (guardrail|login_smoke|full_smoke|install_smoke), `budget` {maxMinutes,
 * maxActions, maxScreenshots, maxSnapshotFailures, maxNoChangeActions:
 * non-negative numbers}, `fixtures` (array; only metadata is persisted) and
 * `sessionDir` (absolute custom directory, still registered). A bad option
 * fails with SW_EINVAL / INVALID_ARGUMENT.
 * @out: (transfer none) the new session, owned by the store.
 */
SW_API int sw_session_create(sw_store *store, const char *project_root, const char *root_source,
                             const char *options_json, sw_session **out, sw_error **err);

/**
 * Finds a session by id: live in this process, or reloaded from disk after a
 * restart (jobs that were running come back `failed`; secrets never come
 * back, so a session with earlier secret activity is flagged
 * redactionDegraded). Unknown id: SW_EINVAL with failure code
 * INVALID_ARGUMENT and the message `Unknown sessionId "<id>"`.
 * @out: (transfer none)
 */
SW_API int sw_store_get_session(sw_store *store, const char *id, sw_session **out, sw_error **err);

/**
 * The sessions known to this process (created here or reloaded) as a JSON
 * array of {id, root, dir, createdAt, sensitive}, oldest first.
 * @out: (transfer full)
 */
SW_API int sw_store_sessions_json(sw_store *store, char **out, sw_error **err);

/* ---- session: identity ------------------------------------------------- */

/** The 8-hex-digit session id. (transfer none) */
SW_API const char *sw_session_id(const sw_session *s);
/** The session directory. (transfer none) */
SW_API const char *sw_session_dir(const sw_session *s);
/** The project root the session works on. (transfer none) */
SW_API const char *sw_session_root(const sw_session *s);
/** Creation time in milliseconds since the epoch. */
SW_API int64_t sw_session_created_at(const sw_session *s);
/** The store that owns @s. (transfer none) */
SW_API sw_store *sw_session_store(const sw_session *s);
/** Non-zero for a session started with sensitive:true (no pixels, video or logs are captured). */
SW_API int sw_session_is_sensitive(const sw_session *s);
/**
 * Non-zero when secrets registered before a restart could not be restored,
 * so redaction of old evidence is incomplete. Never persisted.
 */
SW_API int sw_session_redaction_degraded(const sw_session *s);

/**
 * The session's redactor (swipium/redact.h). Register secrets on it; every
 * text the store persists passes through it. (transfer none)
 */
SW_API struct sw_redactor *sw_session_redactor(sw_session *s);

/**
 * Keeps @value for the input @name (a needs_input answer given through qa_continue_from_blocker) in memory
 * only: never persisted, gone after a restart (the name is still listed in `inputs`). Register a secret
 * value on the redactor as well. Flows read it for ${NAME} after their explicit variables, and the
 * explorer's text entry uses it as a value source. A later answer replaces the earlier one.
 */
SW_API int sw_session_input_set(sw_session *s, const char *name, const char *value, sw_error **err);
/** The in-memory value of input @name, or NULL (transfer full, sw_free). */
SW_API char *sw_session_input_get(sw_session *s, const char *name);

/* ---- session: state ---------------------------------------------------- */

/**
 * The state exactly as persisted to state.json: redacted, keys in the
 * reference order, pretty JSON. @out: (transfer full)
 */
SW_API int sw_session_state_json(sw_session *s, char **out, sw_error **err);

/**
 * One top-level state field as JSON text ("null" when unset), e.g. "device",
 * "counters", "notes". Unknown key: SW_EINVAL. @out: (transfer full)
 */
SW_API int sw_session_get_json(sw_session *s, const char *key, char **out, sw_error **err);

/**
 * Replaces one settable top-level field with @value_json: device,
 * driverKind, wdaUrl, appId, headless, metroPid, network, chosenTarget,
 * lastTestThisArgs, mode, responseMode, auth, milestones, budgetProfile,
 * exploration, fixtures (values, field values and seeds are dropped),
 * budget. Identity fields and the appended arrays are refused (SW_EINVAL).
 * The save is debounced.
 */
SW_API int sw_session_set_json(sw_session *s, const char *key, const char *value_json, sw_error **err);

/**
 * Appends @item_json to one of the state arrays: notes, findings,
 * toolErrors (last 200 kept), recordedActions (last 300 kept), envChanges,
 * workarounds, inputs (values are dropped), generatedValues (secret values
 * stored as "<redacted>"). Free text is redacted before it is kept. An
 * object item without `at` gets the current time (ISO 8601).
 *
 * The record is appended at once, redacted, to the session journal
 * (`journal.jsonl` in the session folder); state.json is a debounced
 * checkpoint of it. Another process on the same session (a second server
 * sharing HOME) applies journal lines it did not write before it saves or
 * reads, so neither overwrites the other's records.
 */
SW_API int sw_session_append_json(sw_session *s, const char *key, const char *item_json, sw_error **err);

/**
 * sw_session_append_json() that also says whether the record reached the
 * disk: *@persisted is 1 when its journal line was written, 0 when it is only
 * in memory (a full or read-only disk), and then *@warning (free with
 * sw_free) says why and what to do. Both out-parameters may be NULL.
 */
SW_API int sw_session_append_json_persisted(sw_session *s, const char *key, const char *item_json, int *persisted,
                                            char **warning, sw_error **err);

/**
 * Counts that cost the same however long the session is:
 * {notes, notesLastAt, findings, findingsLastAt, recordedActions, toolErrors,
 * artifacts, persisted (the last journal append and save worked),
 * writeError?}. The `...LastAt` fields are the newest `at` ("" when none).
 */
SW_API int sw_session_summary_json(sw_session *s, char **out, sw_error **err);

/** Appends a test outcome (qa_note) object. Same as sw_session_append_json(s, "notes", ...). */
SW_API int sw_session_add_note(sw_session *s, const char *note_json, sw_error **err);
/** Appends a finding object. Same as sw_session_append_json(s, "findings", ...). */
SW_API int sw_session_add_finding(sw_session *s, const char *finding_json, sw_error **err);
/**
 * Records a tool error {at, tool, failureCode, message (≤500 chars)}.
 * @failure_code and @message may be NULL.
 */
SW_API int sw_session_add_tool_error(sw_session *s, const char *tool, const char *failure_code, const char *message,
                                     sw_error **err);
/** Records an environment change as the string "<ISO time> <text>". */
SW_API int sw_session_add_env_change(sw_session *s, const char *text, sw_error **err);
/** Sets milestones[@name] to the current ISO time unless it is already set. */
SW_API int sw_session_mark_milestone(sw_session *s, const char *name, sw_error **err);

/**
 * Appends a mutation-ledger row (an object; see swipium/consent.h) to
 * `mutations` (last 500 kept) and writes state.json synchronously before
 * returning. A row whose `id` matches an existing row replaces it (status
 * updates). Structured fields are redacted.
 */
SW_API int sw_session_ledger_append(sw_session *s, const char *row_json, sw_error **err);

/** Writes state.json now (synchronously). */
SW_API int sw_session_flush(sw_session *s, sw_error **err);

/* ---- session: counters and budget --------------------------------------- */

/**
 * Adds @delta to a counter: "actions", "screenshots", "snapshotFailures"
 * (consecutive: pass a negative delta or use sw_session_counter_reset),
 * "noChangeActions". Unknown counter: SW_EINVAL.
 */
SW_API int sw_session_counter_add(sw_session *s, const char *counter, long delta, sw_error **err);
/** Sets a counter back to 0. */
SW_API int sw_session_counter_reset(sw_session *s, const char *counter, sw_error **err);

/**
 * Checks the budget. Returns 1 and sets @reason (transfer full), e.g.
 * "action budget reached (20/20)", when one limit is spent; 0 otherwise.
 */
SW_API int sw_session_budget_exhausted(sw_session *s, char **reason);

/* ---- artifacts --------------------------------------------------------- */

/** How much of an artifact's text was redacted. */
#define SW_REDACTION_APPLIED "applied"
#define SW_REDACTION_PARTIAL "partial"
#define SW_REDACTION_NOT_APPLIED "not-applied"

/**
 * Builds `swipium://session/<id>/<kind>/<name>`, each segment
 * percent-encoded except A-Za-z0-9-._~:@!$&'()*+;= . @out: (transfer full)
 */
SW_API int sw_artifact_uri(const char *session_id, const char *kind, const char *name, char **out, sw_error **err);

/**
 * The sanitised form of an artifact file name: `\`, `/` and C0 controls
 * become `_`, runs of two or more dots become `_`, trimmed, empty or "."
 * becomes "artifact", longer than 180 characters is cut keeping an
 * extension of up to 16. @out: (transfer full)
 */
SW_API int sw_artifact_sanitize_name(const char *name, char **out, sw_error **err);

/**
 * Saves @len bytes as an artifact of @kind in the kind's folder
 * (screenshot: screenshots/, recording: videos/, logs|logcat|metro|wda:
 * logs/, else <kind>/). Evidence is never overwritten: when @name is taken
 * (a file, or a recorded artifact a note may point to) the first free
 * "<stem>-2.<ext>", "-3", ... is used, and @meta_json's uri and path say
 * which. Text mimes are redacted with the session's secrets
 * first; binaries never. @label (nullable) is redacted too. A sensitive
 * session refuses screenshot, recording, log and dump captures
 * (SW_EDENIED / SENSITIVE_MODE_REFUSED).
 * @meta_json: (transfer full) (nullable) {uri, mime, kind, bytes, path,
 * redaction, redactionNote?, label?}.
 */
SW_API int sw_artifact_save(sw_session *s, const char *kind, const char *name, const char *mime, const void *data,
                            size_t len, const char *label, char **meta_json, sw_error **err);

/**
 * The next free numbered name "<stem>-NNN<ext>" (NNN from 001) for an
 * artifact of @kind: one past the highest number among the kind folder's
 * files and the session's recorded artifacts, so numbering goes on after
 * qa_prepare_target, a server restart or another process, and never reuses
 * a name. @out: (transfer full)
 */
SW_API int sw_artifact_next_name(sw_session *s, const char *kind, const char *stem, const char *ext, char **out,
                                 sw_error **err);

/**
 * The path where an artifact of @kind and @name would be saved; its folder
 * is created (0700). Write the file there (e.g. a pulled video), then call
 * sw_artifact_register(). @out: (transfer full)
 */
SW_API int sw_artifact_path(sw_session *s, const char *kind, const char *name, char **out, sw_error **err);

/**
 * Records a file already written at sw_artifact_path(@kind, @name) as an
 * artifact; a text file is redacted in place. @meta_json as in
 * sw_artifact_save.
 */
SW_API int sw_artifact_register(sw_session *s, const char *kind, const char *name, const char *mime, const char *label,
                                char **meta_json, sw_error **err);

/** Flags of sw_artifact_read(). */
enum {
	/** Return metadata only (@data stays NULL). */
	SW_ARTIFACT_READ_METADATA = 1u << 0,
};

/**
 * Reads an artifact by URI (exact, or by percent-decoded segments). Text
 * over 1 MiB comes back as its first MiB (its last MiB for logs and *.log)
 * plus a `[swipium: truncated ...]` line naming the local file, never
 * splitting a UTF-8 character; a binary over 8 MiB is not inlined (@data
 * NULL, meta `inlined:false` and a `note`). Unknown URI: SW_EINVAL with
 * failure code INVALID_ARGUMENT.
 * @data: (transfer full) (nullable), NUL-terminated, @len excludes the NUL.
 * @meta_json: (transfer full) (nullable) {uri, mime, kind, bytes, path,
 * text, inlined, truncated, redaction?, redactionNote?, label?, note?}.
 */
SW_API int sw_artifact_read(sw_store *store, const char *uri, unsigned flags, char **data, size_t *len,
                            char **meta_json, sw_error **err);

/** The session's artifact records as a JSON array. @out: (transfer full) */
SW_API int sw_artifact_list(sw_session *s, char **out, sw_error **err);

/* ---- managed processes (processes.json) --------------------------------- */

/**
 * Records a child process this server manages in `processes.json` (last
 * 100 kept) with its fingerprint (start time and command line).
 * @kind: metro|wda|recording|emulator. @session_id and @endpoint nullable.
 */
SW_API int sw_store_process_add(sw_store *store, int pid, const char *kind, const char *session_id,
                                const char *endpoint, sw_error **err);
/** Removes the entry of @pid from processes.json (no error when absent). */
SW_API int sw_store_process_remove(sw_store *store, int pid, sw_error **err);
/** The processes.json entries as a JSON array. @out: (transfer full) */
SW_API int sw_store_processes_json(sw_store *store, char **out, sw_error **err);

/**
 * The start-up sweep over processes.json. Entries owned by a live server
 * (same pid and start time) are kept. Of the others: an entry without a
 * fingerprint is dropped unsignalled; a process whose start time and command
 * (metro: the command after node/npx/npm/env launchers; others: program
 * basename and identical arguments) still match is adopted when it is an
 * emulator or a WDA under 12 h old whose `/status` answers within 1.5 s,
 * and otherwise sent SIGTERM (its group when it led one); anything else is
 * dropped. Slow (runs `ps`, probes WDA): call it from a background thread.
 * @summary_json: (transfer full) (nullable) {checked, reaped, adopted, dropped, kept}.
 */
SW_API int sw_store_sweep_processes(sw_store *store, char **summary_json, sw_error **err);
/**
 * The same sweep for a server's start-up: it sends no HTTP request (libcurl stays unloaded), so a WDA entry
 * young enough to be adopted is kept unprobed (`deferred` in the summary) for sw_store_sweep_processes(),
 * which the first iOS call runs.
 */
SW_API int sw_store_sweep_processes_startup(sw_store *store, char **summary_json, sw_error **err);

/* ---- retention --------------------------------------------------------- */

/**
 * Reads a retention environment value the reference's way: unset or blank
 * gives @def; off|false|never (any case) or 0 disables (returns 0 and sets
 * *disabled); a negative or non-numeric value gives @def (and sets
 * *invalid so the caller can warn); otherwise floor(value).
 * @disabled and @invalid are nullable.
 */
SW_API long sw_retention_env(const char *value, long def, int *disabled, int *invalid);

typedef struct sw_prune_options {
	unsigned version;     /**< SW_PRUNE_OPTIONS_VERSION */
	long days;            /**< delete sessions whose last activity is older than this many days (0 = now) */
	long keep;            /**< always keep the newest @keep sessions of each project */
	int dry_run;          /**< count only; delete nothing */
	int compact_projects; /**< also compact projects.json (as `swipium gc` does) */
} sw_prune_options;

#define SW_PRUNE_OPTIONS_VERSION 1
#define SW_PRUNE_OPTIONS_INIT                                                                                          \
	{                                                                                                              \
		SW_PRUNE_OPTIONS_VERSION, 30, 20, 0, 0                                                                 \
	}

/**
 * Runs the retention prune over `runs/<project>/<session>`: per project,
 * newest first by last activity (max of the directory's and state.json's
 * mtime), the first @keep stay; of the rest, those older than now - days,
 * not in registry.json and not live in this store are deleted (empty project
 * folders too). An unreadable or non-array registry.json deletes nothing
 * (fail closed; `skipped` says why).
 * @summary_json: (transfer full) {runsDir, scanned, deleted, deletedDirs[],
 * bytes, errors, skipped?, dryRun, days, keep, projects?{before, after,
 * removed}}.
 */
SW_API int sw_store_prune(sw_store *store, const sw_prune_options *opts, char **summary_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
