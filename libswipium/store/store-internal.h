/* store-internal.h: the store's and sessions' private structures, shared by the store's files (sessions, jobs, artifacts). */
#ifndef SW_STORE_INTERNAL_H
#define SW_STORE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sw-internal.h"

struct sw_job;

struct sw_store {
	sw_ctx *ctx;
	char *dir;            /* <home>/.swipium */
	char *runs_dir;       /* <home>/.swipium/runs */
	pthread_mutex_t lock; /* sessions[], registry state, saver state */
	pthread_cond_t cond;  /* wakes the saver thread */
	struct sw_session **sessions;
	size_t n_sessions, cap_sessions;
	bool registry_loaded;
	json_t *registry; /* id -> dir of registry.json, read once (lazy) */
	pthread_t saver;
	bool saver_started;
	bool stopping;
	int64_t prune_at; /* when the automatic prune runs (sw_monotonic_ms); 0 = never / done */
};

struct sw_session {
	sw_store *store;
	pthread_mutex_t lock;      /* state, dirty, jobs */
	pthread_mutex_t save_lock; /* serialises writes of state.json */
	pthread_cond_t job_cond;   /* signalled whenever a job leaves running */
	char *id, *dir, *root, *state_path;
	int64_t created_at;
	json_t *state; /* raw in-memory state in key order; redacted when it leaves */
	bool dirty;
	int64_t dirty_since; /* sw_monotonic_ms() of the first unsaved change */
	bool sensitive;
	bool redaction_degraded;
	struct sw_redactor *redactor;
	struct sw_job **jobs;
	size_t n_jobs, cap_jobs;
	/* what another module keeps with the session (the bound device's drive), freed with the session */
	void *attached;
	void (*attached_free)(void *);
	/* journal.c: the session journal and the owner lock */
	char writer[17];       /* this session object's writer id in journal lines */
	int journal_fd;        /* journal.jsonl opened for appending, or -1 */
	int owner_fd;          /* owner.lock, held shared while the session is live here, or -1 */
	char journal_gen[40];  /* generation of the journal the state holds ("" before any compaction) */
	int64_t journal_pos;   /* bytes of the journal applied to state */
	unsigned long journal_ino; /* inode of the journal when last looked at */
	size_t journal_skipped;    /* unreadable journal lines */
	bool journal_replaying;    /* loading: drop lines the checkpoint already holds */
	json_t *replay_base;       /* loading: records of the checkpoint, key -> {record text: count} */
	unsigned save_failures;    /* failed saves in a row (backoff of the saver) */
	int64_t save_retry_at;     /* sw_monotonic_ms() before which the saver does not retry */
	char *write_error;     /* why the last journal append or save failed; NULL when the last one worked */
	/* summary counters (qa_status costs the same for 10 or 10,000 notes) */
	char notes_last_at[40], findings_last_at[40];
	/* values answered through qa_continue_from_blocker: name -> string, memory only, never persisted */
	json_t *input_values;
	/* the fixtures given inline (qa_start_session), whole: values, fields and seeds; memory only, never persisted */
	json_t *fixtures_live;
};

/* ---- store.c ----------------------------------------------------------- */
/* 8 lowercase hex digits from the kernel's random source. */
void sw__store_random_id(char out[9]);
/* Marks the session dirty (caller holds s->lock) so the saver writes it within ~150 ms. */
void sw__session_touch(struct sw_session *s);
/* Serialises and writes state.json now. Takes save_lock and s->lock itself. */
int sw__session_save(struct sw_session *s, sw_error **err);
/* A redacted deep copy of @v (caller holds s->lock). */
json_t *sw__session_redacted_copy(struct sw_session *s, const json_t *v);
/* Redacts a copy of the whole state in place, leaving id, root and dir as they are. */
void sw__session_redact_state(struct sw_session *s, json_t *state);
/* Redacted copy of a text (never NULL unless out of memory). */
char *sw__session_redact_text(struct sw_session *s, const char *text);
/* Advisory lock on <path>.lock (flock, waits up to 5 s). Returns the fd or a negative code. */
int sw__store_lock(const char *path, sw_error **err);
void sw__store_unlock(int fd);
/* Renames a corrupt state file aside as <path>.corrupt-<ms>; logs a warning. */
void sw__store_set_aside(sw_store *store, const char *path, const char *why);
/* Default key-ordered state for a new session. */
json_t *sw__state_new(const char *id, const char *root, const char *dir, int64_t created_at);
/* True when @key is one of state.json's top-level keys (the list sw__state_new() writes in order). */
bool sw__state_key_known(const char *key);
/* Rebuilds a loaded state in key order with defaults filled in. Returns NULL when it is not a session. */
json_t *sw__state_normalize(json_t *loaded, bool *degraded);

/* registry.json as an array; SW_EPARSE when it exists but is unreadable or not an array. */
int sw__store_read_registry(sw_store *store, json_t **out);
/* Reads registry.json under its lock; a corrupt one is set aside and rebuilt from the session folders. */
int sw__store_repair_registry(sw_store *store, json_t **out);
/* Is @dir the folder of a session live in this store? */
bool sw__store_is_live_dir(sw_store *store, const char *dir);
/* The automatic prune (environment-configured); run by the saver thread. */
int sw__store_run_auto_prune(sw_store *store);
/* Applies qa_start_session options to a new session (caller owns s exclusively). */
int sw__session_apply_options(struct sw_session *s, json_t *opts, sw_error **err);

/* Applies a record read from the journal (caller holds s->lock): appends it, or replaces an artifact. */
void sw__session_apply_record_locked(struct sw_session *s, const char *key, json_t *value);
/* Adds or replaces (same uri) an artifact record (caller holds s->lock). */
void sw__session_put_artifact_locked(struct sw_session *s, json_t *rec);
/* Recomputes the summary counters from the state (load, caller holds s->lock or owns s). */
void sw__session_summary_rebuild(struct sw_session *s);

/* ---- journal.c --------------------------------------------------------- */
void sw__journal_init(struct sw_session *s);
void sw__journal_close(struct sw_session *s);
/* Takes the session's shared owner lock (owner.lock in its folder). */
void sw__journal_own(struct sw_session *s);
/* Appends one redacted record line. SW_OK when it is on disk; else s->write_error says why. */
int sw__journal_append_locked(struct sw_session *s, const char *key, const json_t *value);
/* Applies lines other writers appended since the last look. */
void sw__journal_catch_up_locked(struct sw_session *s);
/* journal.pos: the journal generation and offset the state.json checkpoint holds. */
int sw__journal_write_mark(struct sw_session *s, json_t *mark, sw_error **err);
void sw__journal_read_mark(struct sw_session *s);
/* Cheap (one stat): did the journal change since the last catch-up? */
bool sw__journal_changed(struct sw_session *s);
/* After a checkpoint: replaces the journal by an empty one of a new generation when this process is
 * the only owner and nothing was appended since. Caller holds s->lock. */
bool sw__journal_try_compact_locked(struct sw_session *s);

/* ---- jobs (jobs/job.c) ------------------------------------------------- */
/* Cancels and joins every job thread of @s (store shutdown); frees the job objects. */
void sw__session_jobs_shutdown(struct sw_session *s);
/* Marks jobs persisted as running as failed (rehydration). Caller holds s->lock. */
void sw__jobs_fail_stale(json_t *jobs);

#endif
