/* report-find.c: finding the saved report of a project's newest (or a named) session under ~/.swipium. */
#include <dirent.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report-internal.h"

#define STATE_MAX_BYTES (64u * 1024u * 1024u)
#define REGISTRY_MAX_BYTES (16u * 1024u * 1024u)

typedef struct session {
	char *id;
	char *dir;
	double created;
	json_t *state;
	size_t order; /* discovery order, for a stable sort */
} session;

static json_t *read_json(const char *path, size_t max)
{
	char *data = NULL, *msg = NULL;
	size_t len = 0;
	json_t *j = NULL;
	if (sw__read_file(path, max, &data, &len, NULL) == SW_OK)
		j = sw__report_parse_json(data, len, &msg);
	free(data);
	free(msg);
	return j;
}

/* Date.parse for the ISO forms the store writes; 0 when it is not one. */
static double iso_ms(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return 0;
	double frac = 0;
	if (*p == '.') {
		double scale = 100;
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	if (*p != 'Z' || p[1])
		return 0;
	return (double)timegm(&tm) * 1000.0 + frac;
}

static double created_at(const json_t *v)
{
	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_string(v) && !memchr(json_string_value(v), '\0', json_string_length(v)))
		return iso_ms(json_string_value(v));
	return 0;
}

/* `(^|[\\/])report-\d+\.json$` on a path; on match *digits points at the number. */
static bool report_name(const char *path, const char **digits, size_t *ndigits)
{
	const char *base = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	if (strncmp(base, "report-", 7) != 0)
		return false;
	const char *d = base + 7, *e = d;
	while (*e >= '0' && *e <= '9')
		e++;
	if (e == d || strcmp(e, ".json") != 0)
		return false;
	if (digits)
		*digits = d, *ndigits = (size_t)(e - d);
	return true;
}

/* Compares two digit strings numerically. */
static int num_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	while (la > 1 && *a == '0')
		a++, la--;
	while (lb > 1 && *b == '0')
		b++, lb--;
	if (la != lb)
		return la < lb ? -1 : 1;
	return memcmp(a, b, la);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/*
 * The one rule for "the newest report" among a session's artifact records: kind "report", mime
 * application/json, a file named report-<digits>.json (not an export such as report-N.sarif.json) that is
 * still on disk, the latest createdAt winning (the later record on a tie). Relative paths resolve against
 * @dir. Returns the index in @arts, or -1; *abs_out (nullable) gets the absolute path (transfer full).
 */
static long newest_report_artifact(const json_t *arts, const char *dir, char **abs_out)
{
	long best = -1;
	double best_at = 0;
	char *best_abs = NULL;
	for (size_t i = 0; i < sw__js_array_len(arts); i++) {
		const json_t *a = json_array_get(arts, i);
		const json_t *path = sw__js_get(a, "path");
		if (!sw__js_is(sw__js_get(a, "kind"), "report") ||
		    !sw__js_is(sw__js_get(a, "mime"), "application/json") || !json_is_string(path) ||
		    memchr(json_string_value(path), '\0', json_string_length(path)))
			continue;
		const char *p = json_string_value(path);
		if (!report_name(p, NULL, NULL))
			continue;
		char *abs = p[0] == '/' || !dir ? sw__strdup(p) : sw__path_join(dir, p);
		if (!abs || !exists(abs)) {
			free(abs);
			continue;
		}
		double at = created_at(sw__js_get(a, "createdAt"));
		if (best < 0 || at >= best_at) {
			free(best_abs);
			best_abs = abs, best_at = at, best = (long)i;
		} else {
			free(abs);
		}
	}
	if (abs_out)
		*abs_out = best_abs;
	else
		free(best_abs);
	return best;
}

SW_API int sw_session_latest_report(sw_session *s, char **meta_json, sw_error **err)
{
	if (!s || !meta_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "session and meta_json must not be NULL");
	*meta_json = NULL;
	json_t *arts = NULL;
	int rc = sw__session_get(s, "artifacts", &arts, err);
	if (rc < 0)
		return rc;
	long i = newest_report_artifact(arts, NULL, NULL);
	if (i >= 0)
		*meta_json = sw__json_compact(json_array_get(arts, (size_t)i));
	json_decref(arts);
	if (i < 0)
		return sw__error_set(err, SW_ENOTFOUND, "NO_ARTIFACT", "Call qa_report for it first.",
		                     "Session %s has no persisted report yet.", sw_session_id(s));
	return *meta_json ? SW_OK : sw__error_nomem(err);
}

/* The newest report of a session: its report artifacts first, then <dir>/report/report-N.json. */
static char *session_report(const session *s)
{
	char *best = NULL;
	newest_report_artifact(sw__js_get(s->state, "artifacts"), s->dir, &best);
	if (best)
		return best;
	char *rdir = sw__path_join(s->dir, "report");
	DIR *d = rdir ? opendir(rdir) : NULL;
	char *best_name = NULL;
	const char *bd = NULL;
	size_t bl = 0;
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			const char *dg;
			size_t nd;
			if (!report_name(de->d_name, &dg, &nd))
				continue;
			if (!best_name || num_cmp(dg, nd, bd, bl) > 0) {
				char *copy = sw__strdup(de->d_name);
				if (!copy)
					continue;
				free(best_name);
				best_name = copy;
				report_name(best_name, &bd, &bl);
			}
		}
		closedir(d);
	}
	if (best_name)
		best = sw__path_join(rdir, best_name);
	free(best_name);
	free(rdir);
	return best;
}

static int cmp_session(const void *a, const void *b)
{
	const session *x = a, *y = b;
	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

typedef struct list {
	char **dirs;
	size_t n, cap;
} list;

static void add_dir(list *l, char *dir)
{
	if (!dir)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->dirs[i], dir)) {
			free(dir);
			return;
		}
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 32;
		char **nd = realloc(l->dirs, nc * sizeof(*nd));
		if (!nd) {
			free(dir);
			return;
		}
		l->dirs = nd, l->cap = nc;
	}
	l->dirs[l->n++] = dir;
}

static char *home_dir(const char *home)
{
	if (home && *home)
		return sw__strdup(home);
	const char *env = getenv("HOME");
	if (env && *env)
		return sw__strdup(env);
	struct passwd *pw = getpwuid(getuid());
	return sw__strdup(pw && pw->pw_dir ? pw->pw_dir : "/");
}

SW_API int sw_report_find(const char *home, const char *root, const char *session_id, char **report_path,
                          sw_error **err)
{
	if (!report_path)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_report_find: report_path is required");
	int rc = SW_OK;
	char *h = home_dir(home), *root_abs = sw__path_resolve(NULL, root ? root : "."), *root_real = NULL;
	char *store = NULL, *runs = NULL, *registry = NULL;
	list dirs = {NULL, 0, 0};
	session *ss = NULL;
	size_t ns = 0;
	if (!h || !root_abs) {
		rc = sw__error_nomem(err);
		goto out;
	}
	root_real = sw__path_real_or_resolved(root_abs);
	store = sw__path_join(h, ".swipium");
	char hex[SW_PROJECT_ID_SIZE];
	sw_project_id(root_abs, hex);
	runs = store ? sw__asprintf("%s/runs/%s", store, hex) : NULL;
	registry = store ? sw__path_join(store, "registry.json") : NULL;
	if (!root_real || !runs || !registry) {
		rc = sw__error_nomem(err);
		goto out;
	}

	json_t *reg = read_json(registry, REGISTRY_MAX_BYTES);
	for (size_t i = 0; i < sw__js_array_len(reg); i++) {
		const json_t *dir = sw__js_get(json_array_get(reg, i), "dir");
		if (json_is_string(dir) && json_string_length(dir) &&
		    !memchr(json_string_value(dir), '\0', json_string_length(dir)))
			add_dir(&dirs, sw__path_resolve(NULL, json_string_value(dir)));
	}
	json_decref(reg);
	DIR *d = opendir(runs);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char *p = sw__path_join(runs, de->d_name);
			if (p && sw__is_dir(p))
				add_dir(&dirs, p);
			else
				free(p);
		}
		closedir(d);
	}

	ss = calloc(dirs.n ? dirs.n : 1, sizeof(*ss));
	if (!ss) {
		rc = sw__error_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < dirs.n; i++) {
		char *sp = sw__path_join(dirs.dirs[i], "state.json");
		json_t *st = sp ? read_json(sp, STATE_MAX_BYTES) : NULL;
		free(sp);
		const json_t *id = sw__js_get(st, "id"), *sroot = sw__js_get(st, "root");
		bool keep = json_is_string(id) && json_is_string(sroot) &&
		            !memchr(json_string_value(id), '\0', json_string_length(id)) &&
		            !memchr(json_string_value(sroot), '\0', json_string_length(sroot));
		if (keep) {
			char *real = sw__path_real_or_resolved(json_string_value(sroot));
			keep = real && !strcmp(real, root_real);
			free(real);
		}
		if (!keep) {
			json_decref(st);
			continue;
		}
		ss[ns] = (session){sw__strdup(json_string_value(id)), dirs.dirs[i],
		                   created_at(sw__js_get(st, "createdAt")), st, ns};
		ns++;
	}
	qsort(ss, ns, sizeof(*ss), cmp_session);

	if (session_id) {
		for (size_t i = ns; i-- > 0;) {
			if (!ss[i].id || strcmp(ss[i].id, session_id) != 0)
				continue;
			char *p = session_report(&ss[i]);
			if (!p)
				rc = sw__error_set(
				    err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
				    "Session %s has no persisted report yet. Call qa_report for it first.", session_id);
			else
				*report_path = p;
			goto out;
		}
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "No persisted Swipium session \"%s\" for project %s.", session_id, root_abs);
		goto out;
	}
	for (size_t i = ns; i-- > 0;) {
		char *p = session_report(&ss[i]);
		if (p) {
			*report_path = p;
			goto out;
		}
	}
	rc = sw__error_set(
	    err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
	    "No Swipium session with a report found for project %s (looked in %s).\n"
	    "Run the agent step first and make sure it calls qa_report (any format) before the session ends.",
	    root_abs, store);
out:
	for (size_t i = 0; i < ns; i++) {
		free(ss[i].id);
		json_decref(ss[i].state);
	}
	free(ss);
	for (size_t i = 0; i < dirs.n; i++)
		free(dirs.dirs[i]);
	free(dirs.dirs);
	free(h);
	free(root_abs);
	free(root_real);
	free(store);
	free(runs);
	free(registry);
	return rc;
}
