/* retention.c: pruning old session folders (the automatic prune and `swipium gc`) and compacting projects.json. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store-internal.h"

#define DAY_MS 86400000LL
#define PROJECTS_CAP 200

SW_API long sw_retention_env(const char *value, long def, int *disabled, int *invalid)
{
	if (disabled)
		*disabled = 0;
	if (invalid)
		*invalid = 0;
	if (!value)
		return def;
	while (*value == ' ' || *value == '\t' || *value == '\n' || *value == '\r')
		value++;
	size_t n = strlen(value);
	while (n > 0 && strchr(" \t\r\n", value[n - 1]))
		n--;
	if (n == 0)
		return def;
	if ((n == 3 && !strncasecmp(value, "off", 3)) || (n == 5 && !strncasecmp(value, "false", 5)) ||
	    (n == 5 && !strncasecmp(value, "never", 5))) {
		if (disabled)
			*disabled = 1;
		return 0;
	}
	/* whole numbers only: "0.5", "1e1", "-3" or "abc" fall back to the default */
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (value[i] < '0' || value[i] > '9' || i >= 12) {
			if (invalid)
				*invalid = 1;
			return def;
		}
		v = v * 10 + (value[i] - '0');
	}
	if (v == 0) {
		if (disabled)
			*disabled = 1;
		return 0;
	}
	return v;
}

/* ---- file-tree helpers (nftw has no userdata; the prune runs on one thread at a time) ---- */

static _Thread_local uint64_t tree_bytes;
static _Thread_local int tree_errors;

static int size_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode))
		tree_bytes += (uint64_t)st->st_size;
	return 0;
}

static int rm_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	int r = (type == FTW_DP || type == FTW_D) ? rmdir(path) : unlink(path);
	if (r != 0 && errno != ENOENT)
		tree_errors++;
	return 0;
}

static uint64_t tree_size(const char *dir)
{
	tree_bytes = 0;
	(void)nftw(dir, size_cb, 16, FTW_PHYS);
	return tree_bytes;
}

static int tree_remove(const char *dir)
{
	tree_errors = 0;
	if (nftw(dir, rm_cb, 16, FTW_PHYS | FTW_DEPTH) != 0)
		tree_errors++;
	return tree_errors;
}

static int64_t mtime_ms(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

typedef struct {
	char *dir;
	int64_t last;
} candidate;

static int cmp_newest(const void *a, const void *b)
{
	const candidate *x = a, *y = b;
	return x->last < y->last ? 1 : x->last > y->last ? -1 : strcmp(x->dir, y->dir);
}

/* ---- projects.json ---------------------------------------------------------- */

static int64_t last_seen_ms(const json_t *v)
{
	if (json_is_number(v))
		return (int64_t)json_number_value(v);
	const char *s = json_string_value(v);
	if (!s)
		return 0;
	struct tm tm = {0};
	int ms = 0;
	if (sscanf(s, "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
	           &tm.tm_sec, &ms) < 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000 + ms;
}

typedef struct {
	const char *key;
	json_t *entry;
	int64_t seen;
} proj;

static int cmp_proj(const void *a, const void *b)
{
	const proj *x = a, *y = b;
	return x->seen < y->seen ? 1 : x->seen > y->seen ? -1 : 0;
}

static void compact_projects(sw_store *store, bool dry_run, json_t *summary)
{
	char *path = sw__path_join(store->dir, "projects.json");
	if (!path)
		return;
	size_t before = 0, after = 0;
	int lfd = -1;
	char *text = NULL;
	json_t *doc = NULL, *kept = NULL;
	proj *list = NULL;
	if (!sw__is_file(path))
		goto done;
	sw_error *e = NULL;
	lfd = dry_run ? -1 : sw__store_lock(path, &e);
	if (!dry_run && lfd < 0) {
		sw__log_warn(store->ctx, "projects.json not compacted: %s", sw_error_message(e));
		sw_error_free(e);
		json_object_set_new(summary, "errors",
		                    json_integer(json_integer_value(json_object_get(summary, "errors")) + 1));
		goto done;
	}
	size_t len = 0;
	if (sw__read_file(path, 64 * 1024 * 1024, &text, &len, NULL) != SW_OK)
		goto done;
	doc = json_loadb(text, len, 0, NULL);
	json_t *projects = json_object_get(doc, "projects");
	if (!json_is_object(projects)) {
		if (!dry_run)
			sw__store_set_aside(store, path, "projects.json is not a project registry");
		else
			sw__log_warn(store->ctx, "projects.json is corrupt; a real run sets it aside");
		json_object_set_new(summary, "errors",
		                    json_integer(json_integer_value(json_object_get(summary, "errors")) + 1));
		goto done;
	}
	before = json_object_size(projects);
	list = calloc(before ? before : 1, sizeof(*list));
	if (!list)
		goto done;
	size_t n = 0;
	const char *k;
	json_t *v;
	json_object_foreach(projects, k, v)
	{
		const char *root = json_string_value(json_object_get(v, "root"));
		struct stat st;
		if (!root || stat(root, &st) != 0)
			continue;
		list[n].key = k;
		list[n].entry = v;
		list[n].seen = last_seen_ms(json_object_get(v, "lastSeenAt"));
		n++;
	}
	qsort(list, n, sizeof(*list), cmp_proj);
	if (n > PROJECTS_CAP)
		n = PROJECTS_CAP;
	after = n;
	if (!dry_run && after != before) {
		kept = json_object();
		for (size_t i = 0; kept && i < n; i++)
			json_object_set(kept, list[i].key, list[i].entry);
		json_t *out = json_pack("{s:i, s:O}", "schemaVersion", 1, "projects", kept);
		char *ot = out ? sw__json_compact(out) : NULL;
		json_decref(out);
		sw_error *we = NULL;
		if (!ot || sw_file_write_atomic(path, ot, strlen(ot), 0, &we) != SW_OK) {
			sw__log_warn(store->ctx, "cannot write projects.json: %s",
			             we ? sw_error_message(we) : "out of memory");
			json_object_set_new(summary, "errors",
			                    json_integer(json_integer_value(json_object_get(summary, "errors")) + 1));
		}
		sw_error_free(we);
		free(ot);
	}
done:
	json_object_set_new(summary, "projects",
	                    json_pack("{s:I, s:I, s:I}", "before", (json_int_t)before, "after", (json_int_t)after,
	                              "removed", (json_int_t)(before - after)));
	free(list);
	json_decref(kept);
	json_decref(doc);
	free(text);
	sw__store_unlock(lfd);
	free(path);
}

/* ---- the prune ------------------------------------------------------------------- */

SW_API int sw_store_prune(sw_store *store, const sw_prune_options *opts, char **summary_json, sw_error **err)
{
	if (!store || !opts || opts->version != SW_PRUNE_OPTIONS_VERSION)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_store_prune: missing options or unknown options version");
	if (opts->days < 0 || opts->keep < 0)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "days and keep must be non-negative");
	json_t *summary = json_object();
	json_t *deleted_dirs = json_array();
	json_t *registry = NULL, *registered = json_object();
	candidate *cands = NULL;
	size_t n_cands = 0, cap_cands = 0;
	size_t scanned = 0, deleted = 0;
	uint64_t bytes = 0;
	int errors = 0;
	const char *skipped = NULL;
	int rc = SW_OK;
	if (!summary || !deleted_dirs || !registered) {
		rc = sw__error_nomem(err);
		goto out;
	}
	int64_t now = sw_wall_ms();
	int64_t cutoff = opts->days > now / DAY_MS ? 0 : now - (int64_t)opts->days * DAY_MS;

	if (sw__store_read_registry(store, &registry) != SW_OK) {
		/* rebuilt from the session folders, so every session still there stays registered and kept */
		if (sw__store_repair_registry(store, &registry) == SW_OK) {
			json_object_set_new(summary, "registryRebuilt",
			                    json_integer((json_int_t)json_array_size(registry)));
			goto registered;
		}
		skipped = "registry.json unreadable or corrupt, no session dir deleted (fail closed)";
		errors++;
		sw__log_warn(store->ctx, "retention prune skipped: %s", skipped);
		goto finish;
	}
registered:;
	size_t i;
	json_t *it;
	json_array_foreach(registry, i, it)
	{
		const char *d = json_string_value(json_object_get(it, "dir"));
		char *r = d ? sw__path_resolve(NULL, d) : NULL;
		if (r)
			json_object_set_new(registered, r, json_true());
		free(r);
	}

	DIR *runs = opendir(store->runs_dir);
	if (!runs)
		goto finish; /* no runs folder: nothing to prune */
	struct dirent *pe;
	while ((pe = readdir(runs))) {
		if (pe->d_name[0] == '.')
			continue;
		char *pdir = sw__path_join(store->runs_dir, pe->d_name);
		struct stat pst;
		if (!pdir || lstat(pdir, &pst) != 0 || !S_ISDIR(pst.st_mode)) {
			free(pdir);
			continue;
		}
		DIR *pd = opendir(pdir);
		if (!pd) {
			errors++;
			free(pdir);
			continue;
		}
		n_cands = 0;
		struct dirent *se;
		while ((se = readdir(pd))) {
			if (!strcmp(se->d_name, ".") || !strcmp(se->d_name, ".."))
				continue;
			char *sdir = sw__path_join(pdir, se->d_name);
			struct stat sst, fst;
			if (!sdir || lstat(sdir, &sst) != 0 || !S_ISDIR(sst.st_mode)) {
				free(sdir);
				continue;
			}
			int64_t last = mtime_ms(&sst);
			char *sf = sw__path_join(sdir, "state.json");
			if (sf && stat(sf, &fst) == 0 && mtime_ms(&fst) > last)
				last = mtime_ms(&fst);
			free(sf);
			if (n_cands == cap_cands) {
				size_t nc = cap_cands ? cap_cands * 2 : 64;
				candidate *ncands = realloc(cands, nc * sizeof(*ncands));
				if (!ncands) {
					free(sdir);
					errors++;
					break;
				}
				cands = ncands;
				cap_cands = nc;
			}
			cands[n_cands].dir = sdir;
			cands[n_cands].last = last;
			n_cands++;
			scanned++;
		}
		closedir(pd);
		qsort(cands, n_cands, sizeof(*cands), cmp_newest);
		size_t removed_here = 0;
		for (size_t c = 0; c < n_cands; c++) {
			bool go = c >= (size_t)opts->keep && cands[c].last < cutoff &&
			          !json_object_get(registered, cands[c].dir) &&
			          !sw__store_is_live_dir(store, cands[c].dir);
			if (go) {
				bytes += tree_size(cands[c].dir);
				if (opts->dry_run) {
					deleted++;
					json_array_append_new(deleted_dirs, json_string(cands[c].dir));
				} else if (tree_remove(cands[c].dir) == 0) {
					deleted++;
					removed_here++;
					json_array_append_new(deleted_dirs, json_string(cands[c].dir));
				} else {
					errors++;
					sw__log_warn(store->ctx, "could not delete session dir %s", cands[c].dir);
				}
			}
			free(cands[c].dir);
		}
		if (!opts->dry_run && removed_here > 0 && removed_here == n_cands)
			(void)rmdir(pdir); /* fails harmlessly when something else lives there */
		free(pdir);
	}
	closedir(runs);

finish:
	json_object_set_new(summary, "runsDir", json_string(store->runs_dir));
	json_object_set_new(summary, "scanned", json_integer((json_int_t)scanned));
	json_object_set_new(summary, "deleted", json_integer((json_int_t)deleted));
	json_object_set(summary, "deletedDirs", deleted_dirs);
	json_object_set_new(summary, "bytes", json_integer((json_int_t)bytes));
	json_object_set_new(summary, "errors", json_integer(errors));
	if (skipped)
		json_object_set_new(summary, "skipped", json_string(skipped));
	json_object_set_new(summary, "dryRun", json_boolean(opts->dry_run));
	json_object_set_new(summary, "days", json_integer(opts->days));
	json_object_set_new(summary, "keep", json_integer(opts->keep));
	if (opts->compact_projects)
		compact_projects(store, opts->dry_run, summary);
	if (summary_json) {
		*summary_json = sw__json_compact(summary);
		if (!*summary_json)
			rc = sw__error_nomem(err);
	}
out:
	free(cands);
	json_decref(summary);
	json_decref(deleted_dirs);
	json_decref(registry);
	json_decref(registered);
	return rc;
}

int sw__store_run_auto_prune(sw_store *store)
{
	int disabled = 0, invalid = 0;
	long days = sw_retention_env(getenv("SWIPIUM_RETENTION_DAYS"), 30, &disabled, &invalid);
	if (invalid)
		sw__log_warn(store->ctx, "SWIPIUM_RETENTION_DAYS is not a whole number of days; using 30");
	if (disabled)
		return SW_OK;
	int kdis = 0, kinv = 0;
	long keep = sw_retention_env(getenv("SWIPIUM_RETENTION_KEEP"), 20, &kdis, &kinv);
	if (kinv)
		sw__log_warn(store->ctx, "SWIPIUM_RETENTION_KEEP is not a whole number; using 20");
	sw_prune_options o = SW_PRUNE_OPTIONS_INIT;
	o.days = days;
	o.keep = kdis ? 0 : keep;
	char *sum = NULL;
	int rc = sw_store_prune(store, &o, &sum, NULL);
	if (rc == SW_OK) {
		json_t *f = json_loads(sum, 0, NULL);
		if (f)
			json_object_del(f, "deletedDirs");
		sw__log(store->ctx, SW_LOG_INFO, f, "retention prune done");
		json_decref(f);
	}
	free(sum);
	return rc;
}
