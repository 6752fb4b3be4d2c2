/* map-store.c: the app-map file: locked read-modify-write, history, corrupt-map recovery, .gitignore, projects.json. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <swipium/project.h>
#include <swipium/util.h>
#include <swipium/version.h>

#include "map-internal.h"

#define LOCK_TIMEOUT_MS 15000
#define PROJECTS_CAP 200

/* ---- small JSON helpers ------------------------------------------------------------------------- */

json_t *sw__mj_arr(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_array(v) ? v : NULL;
}

json_t *sw__mj_obj(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_object(v) ? v : NULL;
}

const char *sw__mj_str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

json_t *sw__mj_arr_ensure(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	if (json_is_array(v))
		return v;
	v = json_array();
	json_object_set_new(obj, key, v);
	return json_object_get(obj, key);
}

json_t *sw__mj_obj_ensure(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	if (json_is_object(v))
		return v;
	v = json_object();
	json_object_set_new(obj, key, v);
	return json_object_get(obj, key);
}

json_t *sw__mj_find(json_t *arr, const char *key, const char *value, size_t *idx)
{
	size_t i;
	json_t *e;
	if (!value)
		return NULL;
	json_array_foreach(arr, i, e)
	{
		const char *s = json_string_value(json_object_get(e, key));
		if (s && !strcmp(s, value)) {
			if (idx)
				*idx = i;
			return e;
		}
	}
	return NULL;
}

void sw__map_note(sw__map *h, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	if (!h->notes)
		h->notes = json_array();
	char *clean = sw__utf8_sanitize(s, strlen(s));
	json_array_append_new(h->notes, json_string(clean ? clean : "?"));
	free(clean);
	free(s);
}

/* ---- shape -------------------------------------------------------------------------------------- */

/* Top-level sections and the JSON type each must have when present. */
static const struct {
	const char *key;
	json_type type;
} sections[] = {
    {"project", JSON_OBJECT},         {"appIdentity", JSON_OBJECT}, {"staticTopology", JSON_OBJECT},
    {"runtimeTopology", JSON_OBJECT}, {"features", JSON_ARRAY},     {"auth", JSON_OBJECT},
    {"codeIndex", JSON_OBJECT},       {"testSuite", JSON_OBJECT},   {"automation", JSON_OBJECT},
    {"provenance", JSON_ARRAY},       {"confidence", JSON_OBJECT},  {"coverage", JSON_OBJECT},
};

/* Lists inside sections, checked the same way. */
static const struct {
	const char *section, *key;
} lists[] = {
    {"staticTopology", "screens"},  {"staticTopology", "edges"},  {"staticTopology", "parserNotes"},
    {"runtimeTopology", "screens"}, {"runtimeTopology", "edges"}, {"testSuite", "cases"},
    {"automation", "suites"},       {"auth", "screens"},          {"codeIndex", "files"},
};

bool sw__map_valid(const json_t *v, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	if (!json_is_object(v)) {
		*why = "it is not a JSON object";
		return false;
	}
	json_t *sv = json_object_get(v, "schemaVersion");
	if (sv && !json_is_integer(sv)) {
		*why = "schemaVersion is not a number";
		return false;
	}
	if (json_integer_value(sv) > SW__MAP_SCHEMA_VERSION) {
		*why = "it was written by a newer Swipium (schemaVersion above 1)";
		return false;
	}
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		json_t *s = json_object_get(v, sections[i].key);
		if (s && json_typeof(s) != sections[i].type) {
			*why = "a section has the wrong type";
			return false;
		}
	}
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		json_t *s = json_object_get(v, lists[i].section);
		json_t *l = json_object_get(s, lists[i].key);
		if (l && !json_is_array(l)) {
			*why = "a list inside a section is not an array";
			return false;
		}
	}
	return true;
}

json_t *sw__map_new(const char *root)
{
	char *det = NULL;
	json_t *d = NULL;
	if (sw_project_detect(root, &det, NULL) == SW_OK)
		d = json_loads(det, 0, NULL);
	sw_free(det);
	char *now = sw__iso_now();
	json_t *platforms = json_object_get(d, "platforms");
	json_t *m = json_pack(
	    "{s:i, s:s, s:s?, s:s?, s:{s:s, s:s, s:O?, s:O?}, s:{}, s:{s:s, s:s?, s:[], s:[], s:[], s:[]},"
	    " s:{s:[], s:[], s:[]}, s:[], s:{s:b, s:[], s:[], s:[]}, s:{s:[]}, s:{s:[]}, s:{s:[]}, s:[],"
	    " s:{s:f, s:f, s:f}, s:{s:{}}}",
	    "schemaVersion", SW__MAP_SCHEMA_VERSION, "generator", "swipium " SW_VERSION_STRING, "createdAt", now,
	    "updatedAt", now, "project", "root", root, "framework",
	    sw__mj_str(d, "framework") ? sw__mj_str(d, "framework") : "unknown", "platforms",
	    json_is_array(platforms) ? platforms : NULL, "monorepo", json_object_get(d, "monorepo"), "appIdentity",
	    "staticTopology", "framework", sw__mj_str(d, "framework") ? sw__mj_str(d, "framework") : "unknown",
	    "router", NULL, "screens", "edges", "deepLinks", "parserNotes", "runtimeTopology", "screens", "edges",
	    "sources", "features", "auth", "likely", 0, "screens", "libraries", "reasons", "codeIndex", "files",
	    "testSuite", "cases", "automation", "suites", "provenance", "confidence", "overall", 0.0, "static", 0.0,
	    "runtime", 0.0, "coverage", "features");
	free(now);
	json_t *ids = json_object_get(d, "appIds");
	json_t *ident = json_object_get(m, "appIdentity");
	size_t i;
	json_t *e;
	json_array_foreach(ids, i, e)
	{
		const char *plat = sw__mj_str(e, "platform");
		if (plat && !json_object_get(ident, plat))
			json_object_set_new(ident, plat,
			                    json_pack("{s:O?, s:O?}", "id", json_object_get(e, "id"), "source",
			                              json_object_get(e, "source")));
	}
	if (sw__mj_str(d, "appId"))
		json_object_set(ident, "appId", json_object_get(d, "appId"));
	json_decref(d);
	return m;
}

/* ---- paths, lock ---------------------------------------------------------------------------------- */

static int unwritable(sw_error **err, const char *root, const char *what, int e)
{
	return sw__error_set(err, SW_EIO, "ARTIFACT_PATH_UNWRITABLE",
	                     "Make <project>/.swipium a writable folder (it is a file, or the tree is read-only); the "
	                     "read-only app-map tools keep working meanwhile.",
	                     "Cannot write the app map of %s: %s (%s); nothing was replaced", root, what,
	                     e ? strerror(e) : "not a folder");
}

static int take_lock(const char *root, sw_error **err)
{
	sw_error *e = NULL;
	char *dot = sw__path_join(root, ".swipium");
	struct stat dst;
	bool not_dir = dot && lstat(dot, &dst) == 0 && !S_ISDIR(dst.st_mode) && !S_ISLNK(dst.st_mode);
	free(dot);
	if (not_dir)
		return unwritable(err, root, ".swipium is a file, not a folder", ENOTDIR);
	if (sw__confine_mkdirs(root, ".swipium", 0755, NULL, &e) < 0) {
		if (sw_error_code(e) == SW_EDENIED) {
			sw__error_propagate(err, e);
			return SW_EDENIED;
		}
		sw_error_free(e);
		int en = errno;
		struct stat st;
		char *p = sw__path_join(root, ".swipium");
		bool is_file = p && lstat(p, &st) == 0 && !S_ISDIR(st.st_mode);
		free(p);
		return unwritable(err, root, is_file ? ".swipium is not a folder" : ".swipium cannot be created",
		                  is_file ? ENOTDIR : en);
	}
	int fd = sw__confine_open(root, SW__MAP_PATH ".lock", O_RDWR | O_CREAT, 0644, 0, NULL, &e);
	if (fd < 0) {
		if (sw_error_code(e) == SW_EDENIED) {
			sw__error_propagate(err, e);
			return SW_EDENIED;
		}
		sw_error_free(e);
		return unwritable(err, root, "the lock file .swipium/app-map.json.lock cannot be created", errno);
	}
	for (long waited = 0;; waited += 10) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int en = errno;
			close(fd);
			return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "Cannot lock %s/" SW__MAP_PATH ".lock: %s",
			                     root, strerror(en));
		}
		if (waited >= LOCK_TIMEOUT_MS) {
			close(fd);
			return sw__error_set(err, SW_ETIMEOUT, "UNKNOWN",
			                     "Another Swipium process is writing this app map; retry in a moment.",
			                     "Timed out after %d ms waiting for %s/" SW__MAP_PATH ".lock",
			                     LOCK_TIMEOUT_MS, root);
		}
		sw__sleep_ms(10);
	}
}

/* Reads a confined project file. SW_ENOTFOUND when absent. */
static int read_confined(const char *root, const char *rel, char **data, size_t *len, sw_error **err)
{
	char *real = NULL;
	int rc = sw__confine(root, rel, 0, &real, err);
	if (rc < 0)
		return rc;
	struct stat st;
	if (lstat(real, &st) != 0) {
		free(real);
		return SW_ENOTFOUND;
	}
	int fd = sw__confine_open(root, rel, O_RDONLY, 0, 0, NULL, err);
	free(real);
	if (fd < 0)
		return fd;
	sw_buf b = SW_BUF_INIT;
	char tmp[65536];
	ssize_t n;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0) {
		if (b.len + (size_t)n > SW__MAP_MAX_BYTES) {
			close(fd);
			sw__buf_free(&b);
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s is larger than %u MB", rel,
			                     SW__MAP_MAX_BYTES >> 20);
		}
		sw__buf_append(&b, tmp, (size_t)n);
	}
	close(fd);
	if (n < 0 || b.failed) {
		sw__buf_free(&b);
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "Cannot read %s", rel);
	}
	*data = sw__buf_steal(&b, len);
	return *data ? SW_OK : sw__error_nomem(err);
}

/* Parses and checks @data; NULL with *why on failure. */
static json_t *parse_map(const char *data, size_t len, const char **why)
{
	json_error_t je;
	json_t *v = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
	if (!v) {
		*why = "it is not valid JSON";
		return NULL;
	}
	if (!sw__map_valid(v, why)) {
		json_decref(v);
		return NULL;
	}
	return v;
}

static int cmp_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

/* History file names, newest first (their names sort by time). (transfer full, NULL-terminated) */
static char **history_names(const char *root, size_t *n_out)
{
	*n_out = 0;
	char *dir = NULL;
	if (sw__confine(root, SW__MAP_HISTORY, 0, &dir, NULL) < 0)
		return NULL;
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return NULL;
	size_t n = 0, cap = 16;
	char **v = calloc(cap + 1, sizeof(char *));
	struct dirent *de;
	while (v && (de = readdir(d))) {
		if (strncmp(de->d_name, "app-map-", 8) || !sw__str_has_suffix(de->d_name, ".json"))
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap * 2 + 1) * sizeof(char *));
			if (!nv)
				break;
			v = nv;
			cap *= 2;
		}
		v[n++] = sw__strdup(de->d_name);
		v[n] = NULL;
	}
	closedir(d);
	if (v)
		qsort(v, n, sizeof(char *), cmp_desc);
	*n_out = n;
	return v;
}

static void strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* The newest history copy that parses: its map, bytes and name. */
static json_t *newest_good_history(const char *root, char **raw, size_t *raw_len, char **name)
{
	size_t n;
	char **names = history_names(root, &n);
	json_t *found = NULL;
	for (size_t i = 0; i < n && !found; i++) {
		char *rel = sw__asprintf(SW__MAP_HISTORY "/%s", names[i]);
		char *data = NULL;
		size_t len = 0;
		const char *why;
		if (rel && read_confined(root, rel, &data, &len, NULL) == SW_OK &&
		    (found = parse_map(data, len, &why))) {
			*raw = data;
			*raw_len = len;
			*name = sw__strdup(names[i]);
			data = NULL;
		}
		free(data);
		free(rel);
	}
	strv_free(names);
	return found;
}

static char *stamp(void)
{
	int64_t ms = sw_wall_ms();
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	char b[64];
	snprintf(b, sizeof(b), "%04d%02d%02dT%02d%02d%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
	         tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	return sw__strdup(b);
}

/* Renames the corrupt map aside (never deleted) and restores the newest good history copy. Under the lock. */
static void recover(sw__map *h, const char *why)
{
	char *ts = stamp();
	char *aside_rel = sw__asprintf(SW__MAP_PATH ".corrupt-%s", ts ? ts : "unknown");
	char *from = NULL, *to = NULL;
	bool moved = false;
	if (aside_rel && sw__confine(h->root, SW__MAP_PATH, 0, &from, NULL) == SW_OK &&
	    sw__confine(h->root, aside_rel, 0, &to, NULL) == SW_OK) {
		for (int i = 1; i < 100; i++) {
			struct stat st;
			if (lstat(to, &st) != 0)
				break;
			free(to);
			free(aside_rel);
			aside_rel = sw__asprintf(SW__MAP_PATH ".corrupt-%s-%d", ts ? ts : "unknown", i);
			to = NULL;
			if (!aside_rel || sw__confine(h->root, aside_rel, 0, &to, NULL) != SW_OK)
				break;
		}
		moved = to && rename(from, to) == 0;
	}
	char *name = NULL;
	h->map = newest_good_history(h->root, &h->raw, &h->raw_len, &name);
	if (moved && h->map) {
		sw_error *e = NULL;
		if (sw_project_write_file(h->root, SW__MAP_PATH, h->raw, h->raw_len, SW_WRITE_SHARED, &e) == SW_OK)
			sw__map_note(h,
			             "app-map.json could not be used (%s); it was kept as %s and the newest good copy, "
			             "app-map.history/%s, was restored and used",
			             why, aside_rel, name);
		else
			sw__map_note(h,
			             "app-map.json could not be used (%s); it was kept as %s; the newest good copy, "
			             "app-map.history/%s, is used but could not be restored: %s",
			             why, aside_rel, name, sw_error_message(e));
		sw_error_free(e);
	} else if (moved) {
		sw__map_note(h,
		             "app-map.json could not be used (%s); it was kept as %s; there is no good copy in "
		             "app-map.history/, so the project has no app map until qa_app_map_build makes one",
		             why, aside_rel);
	} else if (h->map) {
		sw__map_note(
		    h,
		    "app-map.json could not be used (%s) and could not be renamed aside; the newest good copy, "
		    "app-map.history/%s, is used without touching the project",
		    why, name);
	} else {
		sw__map_note(h, "app-map.json could not be used (%s) and there is no good copy in app-map.history/",
		             why);
	}
	free(name);
	free(from);
	free(to);
	free(aside_rel);
	free(ts);
}

/* Loads the map into h (h->lock_fd says whether recovery may write). */
static int load(sw__map *h, sw_error **err)
{
	char *data = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	int rc = read_confined(h->root, SW__MAP_PATH, &data, &len, &e);
	if (rc == SW_ENOTFOUND)
		return SW_OK;
	h->existed = true;
	if (rc == SW_EDENIED) {
		sw__error_propagate(err, e);
		return rc;
	}
	const char *why = NULL;
	json_t *m = NULL;
	if (rc == SW_OK) {
		m = parse_map(data, len, &why);
	} else {
		why = sw_error_message(e);
	}
	if (m) {
		sw_error_free(e);
		h->map = m;
		h->raw = data;
		h->raw_len = len;
		return SW_OK;
	}
	free(data);
	char *why_copy = sw__strdup(why ? why : "unreadable");
	sw_error_free(e);
	if (h->lock_fd < 0) {
		/* a reader: take the lock only to repair; when it cannot be had, use history in memory */
		sw_error *le = NULL;
		int fd = h->no_repair ? -1 : take_lock(h->root, &le);
		sw_error_free(le);
		if (fd >= 0) {
			/* another process may have repaired it meanwhile */
			data = NULL;
			if (read_confined(h->root, SW__MAP_PATH, &data, &len, NULL) == SW_OK &&
			    (m = parse_map(data, len, &why))) {
				h->map = m;
				h->raw = data;
				h->raw_len = len;
			} else {
				free(data);
				recover(h, why_copy);
			}
			flock(fd, LOCK_UN);
			close(fd);
		} else {
			char *name = NULL;
			h->map = newest_good_history(h->root, &h->raw, &h->raw_len, &name);
			if (h->map)
				sw__map_note(
				    h,
				    "app-map.json could not be used (%s); %s, so it stays as it is and the newest good "
				    "copy, app-map.history/%s, is used",
				    why_copy, h->no_repair ? "this call writes nothing" : ".swipium cannot be written",
				    name);
			else
				sw__map_note(h,
				             "app-map.json could not be used (%s) and there is no good copy in history",
				             why_copy);
			free(name);
		}
	} else {
		recover(h, why_copy);
	}
	free(why_copy);
	return SW_OK;
}

/* ---- projects.json ------------------------------------------------------------------------------ */

static char *projects_path(sw_ctx *ctx)
{
	const char *home = ctx ? sw_ctx_get_home(ctx) : NULL;
	return home && *home ? sw__asprintf("%s/.swipium/projects.json", home) : NULL;
}

static int projects_lock(const char *path)
{
	char *lp = sw__asprintf("%s.lock", path);
	int fd = lp ? open(lp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
	free(lp);
	if (fd < 0)
		return -1;
	for (long waited = 0; waited < LOCK_TIMEOUT_MS; waited += 10) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		sw__sleep_ms(10);
	}
	close(fd);
	return -1;
}

static json_t *projects_load(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	json_t *doc = NULL;
	if (sw__read_file(path, 16u << 20, &text, &len, NULL) == SW_OK)
		doc = json_loadb(text, len, 0, NULL);
	free(text);
	if (!json_is_object(json_object_get(doc, "projects"))) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

static int cmp_seen(const void *a, const void *b)
{
	const char *x = json_string_value(json_object_get(*(json_t *const *)a, "lastSeenAt"));
	const char *y = json_string_value(json_object_get(*(json_t *const *)b, "lastSeenAt"));
	return strcmp(y ? y : "", x ? x : "");
}

/* Records @root (real) as @id; rewrites the file only when the entry is new, moved or an hour old. */
static int projects_touch(sw_ctx *ctx, const char *root, const char *id, sw_error **err)
{
	char *path = projects_path(ctx);
	if (!path)
		return SW_OK;
	char *dir = sw__asprintf("%s/.swipium", sw_ctx_get_home(ctx));
	int rc = dir ? sw__mkdirs(dir, 0700, err) : sw__error_nomem(err);
	free(dir);
	if (rc < 0) {
		free(path);
		return rc;
	}
	json_t *doc = projects_load(path);
	json_t *cur = json_object_get(json_object_get(doc, "projects"), id);
	char *now = sw__iso_now();
	const char *seen = sw__mj_str(cur, "lastSeenAt");
	bool fresh = seen && now && !strcmp(sw__mj_str(cur, "root") ? sw__mj_str(cur, "root") : "", root) &&
	             strncmp(seen, now, 13) == 0; /* same hour */
	json_decref(doc);
	if (fresh) {
		free(now);
		free(path);
		return SW_OK;
	}
	int lfd = projects_lock(path);
	if (lfd < 0) {
		free(now);
		free(path);
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "cannot lock ~/.swipium/projects.json");
	}
	doc = projects_load(path);
	if (!doc) {
		struct stat st;
		if (lstat(path, &st) == 0) {
			/* not a registry: keep it aside, never lose it */
			char *ts = stamp();
			char *aside = sw__asprintf("%s.corrupt-%s", path, ts ? ts : "x");
			if (aside)
				(void)rename(path, aside);
			free(aside);
			free(ts);
		}
		doc = json_pack("{s:i, s:{}}", "schemaVersion", 1, "projects");
	}
	json_t *projects = json_object_get(doc, "projects");
	char *map_path = sw__path_join(root, SW__MAP_PATH);
	json_object_set_new(projects, id,
	                    json_pack("{s:s, s:s, s:s, s:s}", "projectId", id, "root", root, "lastSeenAt",
	                              now ? now : "", "appMapPath", map_path ? map_path : ""));
	free(map_path);
	if (json_object_size(projects) > PROJECTS_CAP) {
		size_t n = json_object_size(projects), k = 0;
		json_t **v = calloc(n, sizeof(*v));
		const char *key;
		json_t *e;
		json_object_foreach(projects, key, e) if (v) v[k++] = e;
		if (v) {
			qsort(v, k, sizeof(*v), cmp_seen);
			json_t *kept = json_object();
			for (size_t i = 0; i < PROJECTS_CAP && i < k; i++) {
				const char *pid = sw__mj_str(v[i], "projectId");
				if (pid)
					json_object_set(kept, pid, v[i]);
			}
			json_object_set_new(doc, "projects", kept);
			free(v);
		}
	}
	char *text = sw__json_compact(doc);
	json_decref(doc);
	rc = text ? sw_file_write_atomic(path, text, strlen(text), 0, err) : sw__error_nomem(err);
	free(text);
	free(now);
	flock(lfd, LOCK_UN);
	close(lfd);
	free(path);
	return rc;
}

SW_API int sw_appmap_project_register(sw_ctx *ctx, const char *root, char id_out[17], int *has_map_out, sw_error **err)
{
	if (!root || !id_out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_appmap_project_register: bad arguments");
	char *real = realpath(root, NULL);
	if (!real || !sw__is_dir(real)) {
		free(real);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass an existing project folder.",
		                     "Project root %s is not an existing folder", root);
	}
	char id[SW_PROJECT_ID_SIZE];
	sw_project_id(real, id);
	int rc = projects_touch(ctx, real, id, err);
	if (rc == SW_OK) {
		memcpy(id_out, id, SW_PROJECT_ID_SIZE);
		if (has_map_out) {
			char *p = NULL;
			*has_map_out =
			    sw__confine(real, SW__MAP_PATH, SW__CONFINE_EXISTING, &p, NULL) == SW_OK && sw__is_file(p);
			free(p);
		}
	}
	free(real);
	return rc;
}

SW_API int sw_appmap_project_root(sw_ctx *ctx, const char *project_id, char **root_out, sw_error **err)
{
	if (!project_id || !root_out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_appmap_project_root: bad arguments");
	char *path = projects_path(ctx);
	json_t *doc = path ? projects_load(path) : NULL;
	free(path);
	const char *root = sw__mj_str(json_object_get(json_object_get(doc, "projects"), project_id), "root");
	char *real = root ? realpath(root, NULL) : NULL;
	char id[SW_PROJECT_ID_SIZE];
	if (real)
		sw_project_id(real, id);
	int rc;
	if (real && !strcmp(id, project_id) && sw__is_dir(real)) {
		*root_out = real;
		real = NULL;
		rc = SW_OK;
	} else {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "No known project has id %s",
		                   project_id);
	}
	free(real);
	json_decref(doc);
	return rc;
}

/* ---- open / commit ---------------------------------------------------------------------------------- */

int sw__map_open(sw_ctx *ctx, const char *root, unsigned flags, sw__map *h, sw_error **err)
{
	memset(h, 0, sizeof(*h));
	h->lock_fd = -1;
	if (!root || root[0] != '/')
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass projectRoot as an absolute folder path.",
		                     "Project root %s is not an absolute path", root ? root : "(none)");
	h->root = realpath(root, NULL);
	if (!h->root || !sw__is_dir(h->root)) {
		free(h->root);
		h->root = NULL;
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass projectRoot as an existing folder.",
		                     "Project root %s is not an existing folder", root);
	}
	char id[SW_PROJECT_ID_SIZE];
	sw_project_id(h->root, id);
	h->id = sw__strdup(id);
	h->uri = sw__asprintf("swipium://project/%s/app-map", id);
	if (!h->id || !h->uri)
		return sw__error_nomem(err);
	h->no_repair = (flags & SW__MAP_NO_REPAIR) != 0;
	if (flags & SW__MAP_WRITE) {
		int fd = take_lock(h->root, err);
		if (fd < 0)
			return fd;
		h->lock_fd = fd;
	}
	int rc = load(h, err);
	if (rc < 0)
		return rc;
	sw_error *pe = NULL;
	if (projects_touch(ctx, h->root, id, &pe) != SW_OK)
		sw__map_note(h,
		             "the project could not be recorded in ~/.swipium/projects.json (%s); its URI resolves "
		             "while this server runs",
		             sw_error_message(pe));
	sw_error_free(pe);
	return SW_OK;
}

static bool ignores_swipium(const char *text)
{
	const char *p = text;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		static const char *const forms[] = {".swipium",   ".swipium/",   "/.swipium",  "/.swipium/",
		                                    ".swipium/*", "/.swipium/*", ".swipium/**"};
		for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
			if (n == strlen(forms[i]) && !strncmp(p, forms[i], n))
				return true;
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

/* The nearest ancestor of @root (itself included) holding .git, a folder or a file; read, never run. */
static bool in_git(const char *root)
{
	char *dir = sw__strdup(root);
	bool found = false;
	while (dir) {
		char *probe = sw__asprintf("%s/.git", strcmp(dir, "/") ? dir : "");
		struct stat st;
		found = probe && lstat(probe, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
		free(probe);
		if (found || !strcmp(dir, "/"))
			break;
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			break;
	}
	free(dir);
	return found;
}

static void gitignore_once(sw__map *h)
{
	if (!in_git(h->root))
		return;
	char *data = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	int rc = read_confined(h->root, ".gitignore", &data, &len, &e);
	if (rc != SW_OK && rc != SW_ENOTFOUND) {
		sw__map_note(h, ".gitignore was left alone: %s", sw_error_message(e));
		sw_error_free(e);
		return;
	}
	sw_error_free(e);
	e = NULL;
	if (data && ignores_swipium(data)) {
		free(data);
		return;
	}
	sw_buf b = SW_BUF_INIT;
	if (data && len) {
		sw__buf_append(&b, data, len);
		if (data[len - 1] != '\n')
			sw__buf_putc(&b, '\n');
	}
	sw__buf_puts(&b, "# Swipium's local state (app map, sessions' project files)\n.swipium/\n");
	free(data);
	if (b.failed) {
		sw__buf_free(&b);
		return;
	}
	if (sw_project_write_file(h->root, ".gitignore", b.data, b.len, SW_WRITE_SHARED | SW_WRITE_KEEP_MODE, &e) ==
	    SW_OK)
		sw__map_note(h, "added .swipium/ to %s/.gitignore (first app-map write in this git repository)",
		             h->root);
	else
		sw__map_note(h, ".gitignore was left alone: %s", sw_error_message(e));
	sw_error_free(e);
	sw__buf_free(&b);
}

static void history_keep(sw__map *h)
{
	if (!h->raw)
		return;
	char *ts = stamp();
	char *rel = sw__asprintf(SW__MAP_HISTORY "/app-map-%s-%d.json", ts ? ts : "x", (int)getpid());
	sw_error *e = NULL;
	if (!rel ||
	    sw_project_write_file(h->root, rel, h->raw, h->raw_len, SW_WRITE_MKDIRS | SW_WRITE_SHARED, &e) != SW_OK)
		sw__map_note(h, "the previous map could not be kept in app-map.history/: %s",
		             e ? sw_error_message(e) : "out of memory");
	sw_error_free(e);
	free(rel);
	free(ts);
	size_t n;
	char **names = history_names(h->root, &n);
	for (size_t i = SW__MAP_HISTORY_KEEP; i < n; i++) {
		char *old = sw__asprintf(SW__MAP_HISTORY "/%s", names[i]);
		char *real = NULL;
		if (old && sw__confine(h->root, old, SW__CONFINE_EXISTING, &real, NULL) == SW_OK)
			(void)unlink(real);
		free(real);
		free(old);
	}
	strv_free(names);
}

int sw__map_commit(sw__map *h, json_t *map, sw_error **err)
{
	if (h->lock_fd < 0)
		return sw__error_set(err, SW_ESTATE, "UNKNOWN", NULL, "the app map was not opened for writing");
	char *now = sw__iso_now();
	json_object_set_new(map, "schemaVersion", json_integer(SW__MAP_SCHEMA_VERSION));
	json_object_set_new(map, "updatedAt", json_string(now ? now : ""));
	if (!json_object_get(map, "createdAt"))
		json_object_set_new(map, "createdAt", json_string(now ? now : ""));
	free(now);
	char *text = sw__json_pretty(map);
	if (!text)
		return sw__error_nomem(err);
	bool first = !h->existed;
	history_keep(h);
	sw_error *e = NULL;
	int rc = sw_project_write_file(h->root, SW__MAP_PATH, text, strlen(text), SW_WRITE_SHARED, &e);
	if (rc != SW_OK) {
		free(text);
		if (sw_error_code(e) == SW_EDENIED) {
			sw__error_propagate(err, e);
			return rc;
		}
		rc = unwritable(err, h->root, sw_error_message(e), 0);
		sw_error_free(e);
		return rc;
	}
	free(h->raw);
	h->raw = text;
	h->raw_len = strlen(text);
	h->existed = true;
	if (first)
		gitignore_once(h);
	return SW_OK;
}

void sw__map_close(sw__map *h)
{
	if (!h)
		return;
	if (h->lock_fd >= 0) {
		flock(h->lock_fd, LOCK_UN);
		close(h->lock_fd);
	}
	json_decref(h->map);
	json_decref(h->notes);
	free(h->raw);
	free(h->root);
	free(h->id);
	free(h->uri);
	memset(h, 0, sizeof(*h));
	h->lock_fd = -1;
}

json_t *sw__map_answer(const sw__map *h)
{
	return json_pack("{s:s, s:s, s:s}", "projectId", h->id, "uri", h->uri, "projectRoot", h->root);
}

void sw__map_answer_notes(const sw__map *h, json_t *answer)
{
	if (json_array_size(h->notes))
		json_object_set(answer, "notes", h->notes);
}

/* ---- exploration graphs ----------------------------------------------------------------------------- */

int sw__map_latest_graph(const char *session_dir, json_t **graph_out, char **path_out, sw_error **err)
{
	char *dir = session_dir ? sw__path_join(session_dir, "explore") : NULL;
	DIR *d = dir ? opendir(dir) : NULL;
	json_t *best = NULL;
	char *best_path = NULL, *best_fin = NULL;
	time_t best_mtime = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = sw__asprintf("%s/%s/graph.json", dir, de->d_name);
		struct stat st;
		char *text = NULL;
		size_t len = 0;
		if (!p || lstat(p, &st) != 0 || !S_ISREG(st.st_mode) ||
		    sw__read_file(p, SW__MAP_MAX_BYTES, &text, &len, NULL) != SW_OK) {
			free(p);
			continue;
		}
		json_t *g = json_loadb(text, len, 0, NULL);
		free(text);
		const char *fin = sw__mj_str(g, "finishedAt");
		if (!json_is_object(g) || !json_is_array(json_object_get(g, "nodes"))) {
			json_decref(g);
			free(p);
			continue;
		}
		int c = !best ? 1 : strcmp(fin ? fin : "", best_fin ? best_fin : "");
		if (c > 0 || (c == 0 && st.st_mtime > best_mtime)) {
			json_decref(best);
			free(best_path);
			free(best_fin);
			best = g;
			best_path = p;
			best_fin = sw__strdup(fin ? fin : "");
			best_mtime = st.st_mtime;
		} else {
			json_decref(g);
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	free(best_fin);
	if (!best) {
		free(best_path);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Run qa_explore in the session first.",
		                     "The session has no exploration graph (explore/<jobId>/graph.json)");
	}
	*graph_out = best;
	if (path_out)
		*path_out = best_path;
	else
		free(best_path);
	return SW_OK;
}
