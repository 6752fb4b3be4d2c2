/* store.c: the session store: layout under ~/.swipium, registry.json, debounced saves, lazy rehydration. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store-internal.h"
#include "store-redact.h"

#define SAVE_DEBOUNCE_MS 150
#define REGISTRY_CAP 200
#define LOCK_TIMEOUT_MS 5000
#define AUTO_PRUNE_DELAY_MS 15000
#define STATE_MAX_BYTES ((size_t)512 * 1024 * 1024)

/* ---- small helpers ------------------------------------------------------ */

void sw__store_random_id(char out[9])
{
	unsigned char r[4] = {0};
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		/* the kernel source never fails for 4 bytes; mix the clock in as a last resort */
		uint64_t t = (uint64_t)sw_wall_ms() ^ ((uint64_t)getpid() << 20);
		for (size_t i = 0; i < 4; i++)
			r[i] ^= (unsigned char)(t >> (8 * i));
	}
	snprintf(out, 9, "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
}

int sw__store_lock(const char *path, sw_error **err)
{
	char *lp = sw__asprintf("%s.lock", path);
	if (!lp)
		return sw__error_nomem(err);
	int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		int rc =
		    sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot open lock file %s: %s", lp, strerror(errno));
		free(lp);
		return rc;
	}
	/* flock is released by the kernel when its holder dies, so a stale lock cannot block us */
	for (long waited = 0;; waited += 10) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot lock %s: %s", lp, strerror(errno));
			close(fd);
			free(lp);
			return rc;
		}
		if (waited >= LOCK_TIMEOUT_MS) {
			int rc = sw__error_set(
			    err, SW_ETIMEOUT, "UNKNOWN",
			    "Another swipium process holds the lock; retry, or remove the stale lock file.",
			    "timed out after %d ms waiting for the lock %s", LOCK_TIMEOUT_MS, lp);
			close(fd);
			free(lp);
			return rc;
		}
		sw__sleep_ms(10);
	}
	free(lp);
	return fd;
}

void sw__store_unlock(int fd)
{
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
}

void sw__store_set_aside(sw_store *store, const char *path, const char *why)
{
	char *aside = sw__asprintf("%s.corrupt-%lld", path, (long long)sw_wall_ms());
	if (!aside)
		return;
	if (rename(path, aside) == 0) {
		json_t *f = json_pack("{s:s, s:s, s:s}", "path", path, "setAsideAs", aside, "reason", why);
		sw__log(store->ctx, SW_LOG_WARN, f, "corrupt state file set aside: %s (%s); carrying on without it",
		        path, why);
		json_decref(f);
	}
	free(aside);
}

/* ---- redaction glue ---------------------------------------------------- */

char *sw__session_redact_text(struct sw_session *s, const char *text)
{
	return sw__redact_glue_text(s->redactor, text);
}

/*
 * Keys of the store's own records. They are never renamed by redaction: a
 * secret that happens to spell "status" or "mode" must not break the
 * structure that a reload reads back. Keys outside this list (caller-supplied
 * objects) are redacted like values.
 */
/* clang-format off */
static const char *const own_keys[] = {
	"action", "actions", "appId", "appMapPath", "approvalMechanism", "approved", "artifactUris", "artifacts",
	"at", "auth", "authedAtStart", "budget", "budgetProfile", "category", "changed", "chosenTarget", "consent",
	"consentId", "count", "counters", "createdAt", "detail", "device", "dir", "driverKind", "endedAt",
	"envChanges", "error", "evidence", "exploration", "failureCode", "field", "fields", "findings", "firstAt",
	"fixture", "fixtures", "flags", "generatedValues", "generator", "goal", "goalText", "headless", "id",
	"inputs", "jobId", "jobs", "kind", "label", "lastAt", "lastEvent", "lastTestThisArgs", "layer", "ledgerUri",
	"logUri", "loginPerformed", "loginPerformedAt", "loginScreenSeen", "loginScreenSeenAt", "maxActions",
	"maxMinutes", "maxNoChangeActions", "maxScreenshots", "maxSnapshotFailures", "message", "metroPid",
	"milestones", "mime", "mode", "mutations", "name", "network", "nextExpected", "noChangeActions", "notes",
	"originalAirplane", "outcome", "path", "payloadHash", "phase", "progress", "progressDetail", "reason",
	"recordedActions", "redaction", "redactionNote", "required", "responseMode", "result", "resultText", "risk",
	"root", "screen", "screenshotCount", "screenshotUri", "screenshots", "secret", "sensitive", "severity",
	"snapshotFailures", "source", "startedAt", "state", "status", "statusText", "steps", "target", "tool",
	"toolErrors", "updatedAt", "uri", "userActionRequired", "value", "varName", "wdaUrl", "workarounds",
	"workflow",
};
/* clang-format on */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_own_key(const char *k)
{
	return bsearch(&k, own_keys, SW_ARRAY_SIZE(own_keys), sizeof(own_keys[0]), cmp_str) != NULL;
}

static void redact_walk(struct sw_session *s, json_t *v, int depth)
{
	if (depth > 64)
		return;
	if (json_is_string(v)) {
		const char *in = json_string_value(v);
		char *r = sw__redact_glue_text(s->redactor, in);
		if (r && strcmp(r, in) != 0)
			json_string_set(v, r);
		free(r);
	} else if (json_is_array(v)) {
		size_t i;
		json_t *it;
		json_array_foreach(v, i, it) redact_walk(s, it, depth + 1);
	} else if (json_is_object(v)) {
		const char *k;
		json_t *it;
		json_t *renamed = NULL;
		json_object_foreach(v, k, it)
		{
			redact_walk(s, it, depth + 1);
			if (is_own_key(k))
				continue;
			char *rk = sw__redact_glue_text(s->redactor, k);
			if (rk && strcmp(rk, k) != 0) {
				if (!renamed)
					renamed = json_array();
				json_array_append_new(renamed, json_pack("[s,s]", k, rk));
			}
			free(rk);
		}
		/* a key that carried a secret is replaced; a collision gets "#2", "#3" ... */
		size_t i;
		json_t *pair;
		json_array_foreach(renamed, i, pair)
		{
			const char *oldk = json_string_value(json_array_get(pair, 0));
			const char *newk = json_string_value(json_array_get(pair, 1));
			json_t *val = json_incref(json_object_get(v, oldk));
			json_object_del(v, oldk);
			char *key = sw__strdup(newk);
			for (int n = 2; key && json_object_get(v, key); n++) {
				free(key);
				key = sw__asprintf("%s#%d", newk, n);
			}
			if (key)
				json_object_set(v, key, val);
			json_decref(val);
			free(key);
		}
		json_decref(renamed);
	}
}

json_t *sw__session_redacted_copy(struct sw_session *s, const json_t *v)
{
	json_t *copy = json_deep_copy(v);
	if (copy && sw__redact_glue_active(s->redactor))
		redact_walk(s, copy, 0);
	return copy;
}

void sw__session_redact_state(struct sw_session *s, json_t *state)
{
	if (!state || !sw__redact_glue_active(s->redactor))
		return;
	/* identity fields stay as they are: they are ids and paths the store chose, and a reload needs them */
	const char *k;
	json_t *it;
	json_object_foreach(state, k, it)
	{
		if (!strcmp(k, "id") || !strcmp(k, "root") || !strcmp(k, "dir"))
			continue;
		redact_walk(s, it, 1);
	}
}

/* ---- saving -------------------------------------------------------------- */

void sw__session_touch(struct sw_session *s)
{
	if (!s->dirty) {
		s->dirty = true;
		s->dirty_since = sw_monotonic_ms(); /* an interval: never the wall clock */
	}
}

int sw__session_save(struct sw_session *s, sw_error **err)
{
	pthread_mutex_lock(&s->save_lock);
	/* the session's lock file: another process on this session merges and writes in turn, never over us */
	int lfd = sw__store_lock(s->state_path, NULL);
	pthread_mutex_lock(&s->lock);
	/* records other processes journaled since our last look go into this checkpoint */
	sw__journal_catch_up_locked(s);
	json_t *copy = json_deep_copy(s->state);
	json_t *mark = json_pack("{s:s, s:I}", "gen", s->journal_gen, "offset", (json_int_t)s->journal_pos);
	bool was_dirty = s->dirty;
	s->dirty = false;
	pthread_mutex_unlock(&s->lock);
	/* redact and serialise outside the session lock: appenders are not held up by a big state */
	sw__session_redact_state(s, copy);
	char *text = copy ? sw__json_pretty(copy) : NULL;
	json_decref(copy);
	int rc;
	if (!text) {
		rc = sw__error_nomem(err);
		goto fail;
	}
	sw_error *werr = NULL;
	rc = sw__mkdirs(s->dir, 0700, &werr);
	if (rc == SW_OK)
		rc = sw_file_write_atomic(s->state_path, text, strlen(text), 0, &werr);
	free(text);
	/* after the checkpoint, how much of the journal it holds (a crash in between replays a few lines twice,
	 * which the load drops as duplicates; never the other way round, which would lose them) */
	if (rc == SW_OK)
		rc = sw__journal_write_mark(s, mark, &werr);
	json_decref(mark);
	if (rc != SW_OK) {
		pthread_mutex_lock(&s->lock);
		unsigned fails = ++s->save_failures;
		/* the saver retries after 0.5 s, 1 s, 2 s ... at most 10 s apart, and says so once */
		int64_t wait = fails >= 5 ? 10000 : 500L << (fails - 1);
		s->save_retry_at = sw_monotonic_ms() + wait;
		pthread_mutex_unlock(&s->lock);
		json_t *f = json_pack("{s:s, s:s, s:i}", "sessionId", s->id, "error", sw_error_message(werr), "attempt",
		                      (int)fails);
		sw__log(s->store->ctx, fails == 1 ? SW_LOG_ERROR : SW_LOG_DEBUG, f,
		        "cannot write session state; retrying until the disk can be written again");
		json_decref(f);
		pthread_mutex_lock(&s->lock);
		free(s->write_error);
		s->write_error = sw__asprintf("cannot write state.json: %s", sw_error_message(werr));
		pthread_mutex_unlock(&s->lock);
		sw__error_propagate(err, werr);
		goto fail;
	}
	pthread_mutex_lock(&s->lock);
	free(s->write_error);
	s->write_error = NULL;
	if (s->save_failures)
		sw__log_info(s->store->ctx, "session %s state written again after %u failed attempt(s)", s->id,
		             s->save_failures);
	s->save_failures = 0;
	s->save_retry_at = 0;
	/* the checkpoint holds the whole journal: a sole owner starts a fresh one */
	(void)sw__journal_try_compact_locked(s);
	pthread_mutex_unlock(&s->lock);
	sw__store_unlock(lfd);
	pthread_mutex_unlock(&s->save_lock);
	return SW_OK;
fail:
	if (was_dirty) {
		pthread_mutex_lock(&s->lock);
		sw__session_touch(s);
		pthread_mutex_unlock(&s->lock);
	}
	sw__store_unlock(lfd);
	pthread_mutex_unlock(&s->save_lock);
	return rc;
}

SW_API int sw_session_flush(sw_session *s, sw_error **err)
{
	if (!s)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_session_flush: session is NULL");
	return sw__session_save(s, err);
}

SW_API int sw_store_flush_all(sw_store *store, sw_error **err)
{
	if (!store)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_store_flush_all: store is NULL");
	int first = SW_OK;
	pthread_mutex_lock(&store->lock);
	size_t n = store->n_sessions;
	pthread_mutex_unlock(&store->lock);
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&store->lock);
		sw_session *s = store->sessions[i];
		pthread_mutex_unlock(&store->lock);
		pthread_mutex_lock(&s->lock);
		bool dirty = s->dirty;
		pthread_mutex_unlock(&s->lock);
		if (!dirty)
			continue;
		int rc = sw__session_save(s, first == SW_OK ? err : NULL);
		if (rc != SW_OK && first == SW_OK)
			first = rc;
	}
	return first;
}

/* The saver thread: writes sessions whose first unsaved change is SAVE_DEBOUNCE_MS old. */
static void *saver_main(void *arg)
{
	sw_store *store = arg;
	pthread_mutex_lock(&store->lock);
	while (!store->stopping) {
		struct timespec ts;
		sw__deadline_in(&ts, 50);
		pthread_cond_timedwait(&store->cond, &store->lock, &ts);
		if (store->stopping)
			break;
		int64_t now = sw_monotonic_ms();
		for (size_t i = 0; i < store->n_sessions; i++) {
			sw_session *s = store->sessions[i];
			pthread_mutex_lock(&s->lock);
			bool due = s->dirty && now - s->dirty_since >= SAVE_DEBOUNCE_MS && now >= s->save_retry_at;
			pthread_mutex_unlock(&s->lock);
			if (!due)
				continue;
			/* sessions are never removed while the store lives, so s stays valid unlocked */
			pthread_mutex_unlock(&store->lock);
			(void)sw__session_save(s, NULL);
			pthread_mutex_lock(&store->lock);
		}
		if (store->prune_at && now >= store->prune_at) {
			store->prune_at = 0;
			pthread_mutex_unlock(&store->lock);
			(void)sw__store_run_auto_prune(store);
			pthread_mutex_lock(&store->lock);
		}
	}
	pthread_mutex_unlock(&store->lock);
	return NULL;
}

/* ---- open / free --------------------------------------------------------- */

SW_API int sw_store_open(sw_ctx *ctx, sw_store **out, sw_error **err)
{
	if (!ctx || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_store_open: ctx and out are required");
	sw_store *store = calloc(1, sizeof(*store));
	if (!store)
		return sw__error_nomem(err);
	store->ctx = ctx;
	store->dir = sw__path_join(sw_ctx_get_home(ctx), ".swipium");
	store->runs_dir = store->dir ? sw__path_join(store->dir, "runs") : NULL;
	if (!store->dir || !store->runs_dir) {
		free(store->dir);
		free(store->runs_dir);
		free(store);
		return sw__error_nomem(err);
	}
	pthread_mutex_init(&store->lock, NULL);
	sw__cond_init_monotonic(&store->cond);
	if (pthread_create(&store->saver, NULL, saver_main, store) == 0)
		store->saver_started = true;
	else
		sw__log_warn(ctx, "cannot start the state saver thread; state is written on every change");
	*out = store;
	return SW_OK;
}

static void session_free(sw_session *s)
{
	if (!s)
		return;
	if (s->attached && s->attached_free)
		s->attached_free(s->attached);
	sw__journal_close(s);
	json_decref(s->state);
	json_decref(s->input_values);
	json_decref(s->fixtures_live);
	sw__redact_glue_free(s->redactor);
	free(s->jobs);
	free(s->id);
	free(s->dir);
	free(s->root);
	free(s->state_path);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->save_lock);
	pthread_cond_destroy(&s->job_cond);
	free(s);
}

SW_API void sw_store_free(sw_store *store)
{
	if (!store)
		return;
	for (size_t i = 0; i < store->n_sessions; i++)
		sw__session_jobs_shutdown(store->sessions[i]);
	pthread_mutex_lock(&store->lock);
	store->stopping = true;
	pthread_cond_broadcast(&store->cond);
	pthread_mutex_unlock(&store->lock);
	if (store->saver_started)
		pthread_join(store->saver, NULL);
	(void)sw_store_flush_all(store, NULL);
	for (size_t i = 0; i < store->n_sessions; i++)
		session_free(store->sessions[i]);
	free(store->sessions);
	json_decref(store->registry);
	pthread_mutex_destroy(&store->lock);
	pthread_cond_destroy(&store->cond);
	free(store->dir);
	free(store->runs_dir);
	free(store);
}

SW_API const char *sw_store_dir(const sw_store *store)
{
	return store ? store->dir : NULL;
}

/* ---- registry.json ------------------------------------------------------- */

/*
 * Reads registry.json. Returns SW_OK with an array (empty when the file is
 * absent), SW_EPARSE when it exists but is unreadable or not an array.
 */
int sw__store_read_registry(sw_store *store, json_t **out)
{
	char *path = sw__path_join(store->dir, "registry.json");
	if (!path)
		return SW_ENOMEM;
	char *text = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	int rc = sw__read_file(path, 64 * 1024 * 1024, &text, &len, &e);
	free(path);
	if (rc == SW_ENOTFOUND) {
		sw_error_free(e);
		*out = json_array();
		return *out ? SW_OK : SW_ENOMEM;
	}
	sw_error_free(e);
	if (rc != SW_OK)
		return SW_EPARSE;
	json_t *arr = json_loadb(text, len, 0, NULL);
	free(text);
	if (!json_is_array(arr)) {
		json_decref(arr);
		return SW_EPARSE;
	}
	*out = arr;
	return SW_OK;
}

typedef struct {
	char *dir;
	int64_t mtime;
} found_session;

static int cmp_found(const void *a, const void *b)
{
	const found_session *x = a, *y = b;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime ? 1 : strcmp(x->dir, y->dir);
}

/*
 * The registry rebuilt from the session folders runs/<project id>/<session id>/ that hold a state.json,
 * oldest first by the state's modification time, the newest REGISTRY_CAP kept. Sessions in a custom
 * sessionDir cannot be found this way.
 */
static json_t *registry_from_folders(sw_store *store)
{
	json_t *arr = json_array();
	found_session *found = NULL;
	size_t n = 0, cap = 0;
	DIR *runs = arr ? opendir(store->runs_dir) : NULL;
	struct dirent *pe;
	while (runs && (pe = readdir(runs))) {
		if (pe->d_name[0] == '.')
			continue;
		char *pdir = sw__path_join(store->runs_dir, pe->d_name);
		DIR *pd = pdir ? opendir(pdir) : NULL;
		struct dirent *se;
		while (pd && (se = readdir(pd))) {
			if (se->d_name[0] == '.')
				continue; /* any other folder with a state.json is kept registered: gc errs on keeping */
			char *sdir = sw__path_join(pdir, se->d_name);
			char *sf = sdir ? sw__path_join(sdir, "state.json") : NULL;
			struct stat st;
			if (sf && lstat(sf, &st) == 0 && S_ISREG(st.st_mode)) {
				if (n == cap) {
					size_t nc = cap ? cap * 2 : 64;
					found_session *nf = realloc(found, nc * sizeof(*nf));
					if (!nf) {
						free(sdir);
						free(sf);
						break;
					}
					found = nf;
					cap = nc;
				}
				found[n].dir = sdir;
				found[n].mtime = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
				n++;
				sdir = NULL;
			}
			free(sdir);
			free(sf);
		}
		if (pd)
			closedir(pd);
		free(pdir);
	}
	if (runs)
		closedir(runs);
	if (n)
		qsort(found, n, sizeof(*found), cmp_found);
	for (size_t i = 0; i < n; i++) {
		if (arr && i + REGISTRY_CAP >= n)
			json_array_append_new(arr, json_pack("{s:s, s:s}", "id", strrchr(found[i].dir, '/') + 1, "dir",
			                                     found[i].dir));
		free(found[i].dir);
	}
	free(found);
	return arr;
}

/* Caller holds the registry file lock: a corrupt registry.json is set aside and rebuilt from the folders. */
static json_t *registry_repair_locked(sw_store *store, const char *path)
{
	sw__store_set_aside(store, path, "registry.json is not a JSON array");
	json_t *arr = registry_from_folders(store);
	char *text = arr ? sw__json_pretty(arr) : NULL;
	sw_error *e = NULL;
	if (text && sw_file_write_atomic(path, text, strlen(text), 0, &e) == SW_OK) {
		json_t *f = json_pack("{s:I}", "sessions", (json_int_t)json_array_size(arr));
		sw__log(store->ctx, SW_LOG_WARN, f, "registry.json rebuilt from the session folders");
		json_decref(f);
	} else {
		sw__log_warn(store->ctx, "cannot write the rebuilt registry.json: %s", e ? sw_error_message(e) : "no memory");
	}
	sw_error_free(e);
	free(text);
	return arr;
}

int sw__store_repair_registry(sw_store *store, json_t **out)
{
	char *path = sw__path_join(store->dir, "registry.json");
	if (!path)
		return SW_ENOMEM;
	int lfd = sw__store_lock(path, NULL);
	if (lfd < 0) {
		free(path);
		return SW_EIO;
	}
	json_t *arr = NULL;
	int rc = sw__store_read_registry(store, &arr);
	if (rc == SW_EPARSE) {
		arr = registry_repair_locked(store, path);
		rc = arr ? SW_OK : SW_ENOMEM;
	}
	sw__store_unlock(lfd);
	free(path);
	*out = arr;
	return rc;
}

static int registry_add(sw_store *store, const char *id, const char *dir, sw_error **err)
{
	char *path = sw__path_join(store->dir, "registry.json");
	if (!path)
		return sw__error_nomem(err);
	int rc = sw__mkdirs(store->dir, 0700, err);
	if (rc)
		goto out_path;
	int lfd = sw__store_lock(path, err);
	if (lfd < 0) {
		rc = lfd;
		goto out_path;
	}
	json_t *arr = NULL;
	if (sw__store_read_registry(store, &arr) != SW_OK)
		arr = registry_repair_locked(store, path);
	if (!arr) {
		rc = sw__error_nomem(err);
		goto out_lock;
	}
	json_array_append_new(arr, json_pack("{s:s, s:s}", "id", id, "dir", dir));
	while (json_array_size(arr) > REGISTRY_CAP)
		json_array_remove(arr, 0);
	char *text = sw__json_pretty(arr);
	json_decref(arr);
	if (!text) {
		rc = sw__error_nomem(err);
		goto out_lock;
	}
	rc = sw_file_write_atomic(path, text, strlen(text), 0, err);
	free(text);
out_lock:
	sw__store_unlock(lfd);
out_path:
	free(path);
	return rc;
}

/* Loads the registry once per store (id -> dir); a corrupt one is rebuilt from the session folders. */
static void registry_load_locked(sw_store *store)
{
	if (store->registry_loaded)
		return;
	store->registry_loaded = true;
	store->registry = json_object();
	json_t *arr = NULL;
	if (sw__store_read_registry(store, &arr) != SW_OK && sw__store_repair_registry(store, &arr) != SW_OK) {
		sw__log_warn(store->ctx, "registry.json is unreadable or corrupt; no earlier session is reloaded");
	} else {
		size_t i;
		json_t *it;
		json_array_foreach(arr, i, it)
		{
			json_t *id = json_object_get(it, "id"), *dir = json_object_get(it, "dir");
			if (json_is_string(id) && json_is_string(dir) && store->registry)
				json_object_set(store->registry, json_string_value(id), dir);
		}
		json_decref(arr);
	}
	const char *days = getenv("SWIPIUM_RETENTION_DAYS");
	int disabled = 0;
	(void)sw_retention_env(days, 30, &disabled, NULL);
	if (!disabled)
		store->prune_at = sw_monotonic_ms() + AUTO_PRUNE_DELAY_MS;
}

/* ---- sessions ------------------------------------------------------------- */

static sw_session *find_live_locked(sw_store *store, const char *id)
{
	for (size_t i = 0; i < store->n_sessions; i++)
		if (!strcmp(store->sessions[i]->id, id))
			return store->sessions[i];
	return NULL;
}

static sw_session *session_alloc(sw_store *store, const char *id, const char *root, const char *dir)
{
	sw_session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->store = store;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->save_lock, NULL);
	sw__cond_init_monotonic(&s->job_cond);
	sw__journal_init(s);
	s->id = sw__strdup(id);
	s->root = sw__strdup(root);
	s->dir = sw__strdup(dir);
	s->state_path = sw__path_join(dir, "state.json");
	s->redactor = sw__redact_glue_new();
	if (!s->id || !s->root || !s->dir || !s->state_path || !s->redactor) {
		session_free(s);
		return NULL;
	}
	return s;
}

static int add_live_locked(sw_store *store, sw_session *s)
{
	if (store->n_sessions == store->cap_sessions) {
		size_t nc = store->cap_sessions ? store->cap_sessions * 2 : 16;
		sw_session **ns = realloc(store->sessions, nc * sizeof(*ns));
		if (!ns)
			return SW_ENOMEM;
		store->sessions = ns;
		store->cap_sessions = nc;
	}
	store->sessions[store->n_sessions++] = s;
	return SW_OK;
}

SW_API int sw_session_create(sw_store *store, const char *project_root, const char *root_source,
                             const char *options_json, sw_session **out, sw_error **err)
{
	if (!store || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_session_create: store and out are required");
	if (!project_root || project_root[0] != '/')
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Pass the absolute path of the app's repository as projectRoot.",
		                     "projectRoot must be an absolute path (got \"%s\")",
		                     project_root ? project_root : "");
	json_t *opts = NULL;
	if (options_json && *options_json) {
		json_error_t jerr;
		opts = json_loads(options_json, 0, &jerr);
		if (!json_is_object(opts)) {
			json_decref(opts);
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "session options must be a JSON object");
		}
	}
	int rc = SW_OK;
	char *root = sw__path_resolve(NULL, project_root);
	char *dir = NULL;
	sw_session *s = NULL;
	if (!root) {
		rc = sw__error_nomem(err);
		goto out;
	}
	char hash[SW_PROJECT_ID_SIZE];
	sw_project_id(root, hash);
	char id[9];
	json_t *custom = json_object_get(opts, "sessionDir");
	pthread_mutex_lock(&store->lock);
	registry_load_locked(store);
	do {
		sw__store_random_id(id);
	} while (find_live_locked(store, id) || json_object_get(store->registry, id));
	pthread_mutex_unlock(&store->lock);
	if (json_is_string(custom)) {
		const char *cd = json_string_value(custom);
		if (cd[0] != '/') {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                   "sessionDir must be an absolute path (got \"%s\")", cd);
			goto out;
		}
		dir = sw__path_resolve(NULL, cd);
	} else if (custom && !json_is_null(custom)) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sessionDir must be a string");
		goto out;
	} else {
		dir = sw__asprintf("%s/%s/%s", store->runs_dir, hash, id);
	}
	if (!dir) {
		rc = sw__error_nomem(err);
		goto out;
	}
	s = session_alloc(store, id, root, dir);
	if (!s) {
		rc = sw__error_nomem(err);
		goto out;
	}
	s->created_at = sw_wall_ms();
	s->state = sw__state_new(id, root, dir, s->created_at);
	if (!s->state) {
		rc = sw__error_nomem(err);
		goto out;
	}
	rc = sw__session_apply_options(s, opts, err);
	if (rc)
		goto out;
	(void)root_source; /* callers report rootSource themselves; it is not part of state.json */
	rc = sw__mkdirs(dir, 0700, err);
	if (rc)
		goto out;
	/* private even when a folder already existed with looser modes (chmod failure is ignored) */
	(void)chmod(store->dir, 0700);
	(void)chmod(store->runs_dir, 0700);
	if (!json_is_string(custom)) {
		char *pdir = sw__path_join(store->runs_dir, hash);
		if (pdir)
			(void)chmod(pdir, 0700);
		free(pdir);
	}
	(void)chmod(dir, 0700);
	sw__journal_own(s);
	rc = sw__session_save(s, err);
	if (rc)
		goto out;
	rc = registry_add(store, id, dir, err);
	if (rc)
		goto out;
	pthread_mutex_lock(&store->lock);
	rc = add_live_locked(store, s);
	if (rc == SW_OK && store->registry)
		json_object_set_new(store->registry, id, json_string(dir));
	pthread_mutex_unlock(&store->lock);
	if (rc) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*out = s;
	s = NULL;
out:
	session_free(s);
	json_decref(opts);
	free(root);
	free(dir);
	return rc;
}

/* Reads and checks one session's state.json. Returns NULL (after logging) when unusable. */
static sw_session *load_session(sw_store *store, const char *want_id, const char *dir)
{
	char *path = sw__path_join(dir, "state.json");
	char *text = NULL;
	size_t len = 0;
	sw_session *s = NULL;
	json_t *loaded = NULL, *norm = NULL;
	if (!path)
		return NULL;
	sw_error *e = NULL;
	if (sw__read_file(path, STATE_MAX_BYTES, &text, &len, &e) != SW_OK) {
		json_t *f = json_pack("{s:s, s:s}", "sessionId", want_id, "error", sw_error_message(e));
		sw__log(store->ctx, SW_LOG_WARN, f, "session state unreadable; not reloaded");
		json_decref(f);
		sw_error_free(e);
		goto out;
	}
	json_error_t jerr;
	loaded = json_loadb(text, len, 0, &jerr);
	bool degraded = false;
	norm = sw__state_normalize(loaded, &degraded);
	if (!norm) {
		sw__store_set_aside(store, path, "state.json is not a session state object");
		goto out;
	}
	const char *id = json_string_value(json_object_get(norm, "id"));
	if (strcmp(id, want_id) != 0) {
		json_t *f = json_pack("{s:s, s:s}", "sessionId", want_id, "found", id);
		sw__log(store->ctx, SW_LOG_WARN, f, "registry entry points at another session; not reloaded");
		json_decref(f);
		goto out;
	}
	s = session_alloc(store, id, json_string_value(json_object_get(norm, "root")), dir);
	if (!s)
		goto out;
	json_object_set_new(norm, "dir", json_string(dir));

	json_t *c = json_object_get(norm, "createdAt");
	s->created_at = json_is_number(c) ? (int64_t)json_number_value(c) : 0;
	s->sensitive = json_is_true(json_object_get(norm, "sensitive"));
	s->redaction_degraded = degraded;
	s->state = norm;
	norm = NULL;
	sw__session_summary_rebuild(s);
	sw__journal_own(s);
	/* how much of the journal this checkpoint holds; the rest is replayed */
	sw__journal_read_mark(s);
	s->replay_base = json_object(); /* key -> {record text: count} of the checkpoint, built on first use */
	s->journal_replaying = true;
	sw__journal_catch_up_locked(s);
	s->journal_replaying = false;
	json_decref(s->replay_base);
	s->replay_base = NULL;
	if (s->journal_skipped) {
		json_t *f = json_pack("{s:s, s:I}", "sessionId", s->id, "lines", (json_int_t)s->journal_skipped);
		sw__log(store->ctx, SW_LOG_WARN, f, "unreadable session journal lines skipped");
		json_decref(f);
	}
	/* what changed on reload (failed jobs, dropped metroPid) is written back soon */
	sw__session_touch(s);
out:
	json_decref(loaded);
	json_decref(norm);
	free(text);
	free(path);
	return s;
}

SW_API int sw_store_get_session(sw_store *store, const char *id, sw_session **out, sw_error **err)
{
	if (!store || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_store_get_session: store and out are required");
	if (!id)
		id = "";
	pthread_mutex_lock(&store->lock);
	registry_load_locked(store);
	sw_session *s = find_live_locked(store, id);
	if (!s && !json_object_get(store->registry, id)) {
		/* another process (e.g. `swipium run`) may have registered it since the first load */
		json_t *arr = NULL;
		if (*id && sw__store_read_registry(store, &arr) == SW_OK) {
			size_t i;
			json_t *it;
			json_array_foreach(arr, i, it)
			{
				const char *eid = json_string_value(json_object_get(it, "id"));
				json_t *edir = json_object_get(it, "dir");
				if (eid && !strcmp(eid, id) && json_is_string(edir) && store->registry)
					json_object_set(store->registry, eid, edir);
			}
		}
		json_decref(arr);
	}
	if (!s) {
		json_t *dir = json_object_get(store->registry, id);
		if (json_is_string(dir)) {
			s = load_session(store, id, json_string_value(dir));
			if (s && add_live_locked(store, s) != SW_OK) {
				session_free(s);
				s = NULL;
			}
		}
	}
	pthread_mutex_unlock(&store->lock);
	if (!s)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Call qa_start_session to get a sessionId.",
		                     "Unknown sessionId \"%s\"", id);
	*out = s;
	return SW_OK;
}

SW_API int sw_store_sessions_json(sw_store *store, char **out, sw_error **err)
{
	if (!store || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_store_sessions_json: bad arguments");
	json_t *arr = json_array();
	if (!arr)
		return sw__error_nomem(err);
	pthread_mutex_lock(&store->lock);
	for (size_t i = 0; i < store->n_sessions; i++) {
		sw_session *s = store->sessions[i];
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:I, s:b}", "id", s->id, "root", s->root, "dir",
		                                     s->dir, "createdAt", (json_int_t)s->created_at, "sensitive",
		                                     s->sensitive));
	}
	pthread_mutex_unlock(&store->lock);
	char *text = sw__json_compact(arr);
	json_decref(arr);
	if (!text)
		return sw__error_nomem(err);
	*out = text;
	return SW_OK;
}

/* Is @dir (resolved) a session directory that is live in this store? */
bool sw__store_is_live_dir(sw_store *store, const char *dir)
{
	bool live = false;
	pthread_mutex_lock(&store->lock);
	for (size_t i = 0; i < store->n_sessions && !live; i++)
		live = !strcmp(store->sessions[i]->dir, dir);
	pthread_mutex_unlock(&store->lock);
	return live;
}

void *sw__session_attached(sw_session *s)
{
	return s ? s->attached : NULL;
}

void sw__session_attach(sw_session *s, void *obj, void (*free_fn)(void *))
{
	if (!s)
		return;
	void *old = s->attached;
	void (*old_free)(void *) = s->attached_free;
	s->attached = obj;
	s->attached_free = free_fn;
	if (old && old != obj && old_free)
		old_free(old);
}
