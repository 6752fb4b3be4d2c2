/* resolve.c: finding the installable app a project already built (qa_resolve_artifact): walk, layouts, ranking. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifacts-internal.h"

#define MAX_DEPTH 10
#define MAX_VISITED 500000 /* directory entries looked at */
#define MAX_FOUND 2000     /* artifact paths kept for ranking */
#define MAX_INSPECTED 40   /* the best-looking ones get their metadata read */
#define MAX_CANDIDATES 5

static const char *const skip_dirs[] = {"node_modules", ".git", ".swipium", "Pods", ".gradle", NULL};

/*
 * Whether @path is inside the project, by core's one confinement rule (realpath of both: a symlink out of the
 * root and <root>/../x are outside). Returns 1 inside, 0 outside, -1 when @path does not resolve. @real_out
 * (nullable, transfer full) gets the real path in both first cases.
 */
static int inside_root(const char *root_real, const char *path, char **real_out)
{
	char *real = NULL;
	int rc = sw__confine(root_real, path, SW__CONFINE_EXISTING, &real, NULL);
	int in = rc == SW_OK ? 1 : rc == SW_EDENIED ? 0 : -1;
	if (in == 0) {
		free(real);
		real = realpath(path, NULL);
		if (!real)
			in = -1;
	}
	if (in < 0) {
		free(real);
		return -1;
	}
	if (real_out)
		*real_out = real;
	else
		free(real);
	return in;
}

typedef struct found {
	char *path;   /* as found (under the root or DerivedData) */
	char *real;   /* realpath */
	bool outside; /* realpath outside the root */
	int pre;      /* ranking by path alone */
	json_t *cand; /* the candidate once inspected */
	double mtime;
} found;

typedef struct walk {
	const char *root_real;
	found *items;
	size_t n, cap;
	size_t visited;
	size_t dropped;       /* artifacts beyond MAX_FOUND */
	bool truncated;       /* MAX_VISITED reached */
	size_t bad_names;     /* paths that are not valid UTF-8: no JSON can carry them */
	const char *platform; /* android | ios | any */
	bool in_derived;
} walk;

static const char *artifact_type(const char *name, bool is_dir)
{
	const char *dot = strrchr(name, '.');
	if (!dot || dot == name)
		return NULL;
	if (is_dir)
		return !strcmp(dot, ".app") ? "app" : NULL;
	if (!strcmp(dot, ".apk"))
		return "apk";
	if (!strcmp(dot, ".aab"))
		return "aab";
	if (!strcmp(dot, ".ipa"))
		return "ipa";
	return NULL;
}

static bool platform_wants(const char *platform, const char *type)
{
	bool ios = !strcmp(type, "ipa") || !strcmp(type, "app");
	if (!platform || !strcmp(platform, "any"))
		return true;
	return !strcmp(platform, "ios") == ios;
}

/* debug | release | unknown, from the variant folder or the file name. */
static const char *build_type_of(const char *path)
{
	const char *best = "unknown";
	const char *p = path;
	while (p && *p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		char part[256];
		if (n < sizeof(part)) {
			memcpy(part, p, n);
			part[n] = '\0';
			for (char *c = part; *c; c++)
				if (*c >= 'A' && *c <= 'Z')
					*c = (char)(*c - 'A' + 'a');
			if (!strcmp(part, "debug") || strstr(part, "-debug") || strstr(part, "debug-iphone") ||
			    sw__str_has_prefix(part, "debug."))
				best = "debug";
			else if (!strcmp(part, "release") || strstr(part, "-release") ||
			         strstr(part, "release-iphone") || sw__str_has_prefix(part, "release."))
				best = "release";
		}
		p = slash ? slash + 1 : NULL;
	}
	return best;
}

/* Known output folders of Gradle, Flutter and Xcode rank above a stray file. */
static bool known_layout(const char *path)
{
	return strstr(path, "/build/outputs/apk/") || strstr(path, "/build/outputs/bundle/") ||
	       strstr(path, "/build/app/outputs/flutter-apk/") || strstr(path, "/build/app/outputs/bundle/") ||
	       strstr(path, "/Build/Products/");
}

static void add_found(walk *w, const char *path, const char *type)
{
	if (!platform_wants(w->platform, type))
		return;
	if (!sw__utf8_valid(path, strlen(path))) {
		w->bad_names++;
		return;
	}
	if (w->n >= MAX_FOUND) {
		w->dropped++;
		return;
	}
	char *real = NULL;
	int in = inside_root(w->root_real, path, &real);
	if (in < 0)
		return; /* a dangling symlink */
	if (w->n == w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 32;
		found *ni = realloc(w->items, nc * sizeof(*ni));
		if (!ni) {
			free(real);
			w->dropped++;
			return;
		}
		w->items = ni;
		w->cap = nc;
	}
	found *f = &w->items[w->n++];
	memset(f, 0, sizeof(*f));
	f->path = sw__strdup(path);
	f->real = real;
	f->outside = w->in_derived || !in;
	struct stat st;
	f->mtime = stat(path, &st) == 0 ? (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9 : 0;
	int pre = 0;
	if (!strstr(path, "androidTest") && !strstr(path, "-test.apk"))
		pre += 100;
	if (!strcmp(type, "apk") || !strcmp(type, "app"))
		pre += 40;
	if (known_layout(path))
		pre += 10;
	if (!strcmp(build_type_of(path), "debug"))
		pre += 5;
	if (strstr(path, "-iphonesimulator/"))
		pre += 5;
	f->pre = pre;
}

static void walk_dir(walk *w, const char *dir, int depth)
{
	if (depth > MAX_DEPTH || w->truncated)
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (++w->visited > MAX_VISITED) {
			w->truncated = true;
			break;
		}
		const char *name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		bool skip = false;
		for (int i = 0; skip_dirs[i]; i++)
			skip = skip || !strcmp(name, skip_dirs[i]);
		if (skip)
			continue;
		char *p = sw__path_join(dir, name);
		if (!p)
			continue;
		struct stat lst;
		if (lstat(p, &lst) != 0) {
			free(p);
			continue;
		}
		if (S_ISDIR(lst.st_mode)) {
			const char *t = artifact_type(name, true);
			if (t)
				add_found(w, p, t); /* an .app bundle: never walked into */
			else
				walk_dir(w, p, depth + 1);
		} else if (S_ISREG(lst.st_mode)) {
			const char *t = artifact_type(name, false);
			if (t)
				add_found(w, p, t);
		} else if (S_ISLNK(lst.st_mode)) {
			/* a symlinked artifact counts (its realpath decides inside-ness); symlinked folders are not
			 * walked */
			struct stat st;
			if (stat(p, &st) == 0) {
				const char *t = artifact_type(name, S_ISDIR(st.st_mode));
				if (t)
					add_found(w, p, t);
			}
		}
		free(p);
	}
	closedir(d);
}

static int cmp_pre(const void *a, const void *b)
{
	const found *x = a, *y = b;
	if (x->pre != y->pre)
		return y->pre - x->pre;
	return (x->mtime < y->mtime) - (x->mtime > y->mtime);
}

static bool installable_on(json_t *cand, const char *target)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(cand, "installableOn"), i,
	                   v) if (!strcmp(json_string_value(v), target)) return true;
	return false;
}

/* The final score: the path's, then what the metadata says. */
static int score_of(const found *f, const char *want_type, const char *require)
{
	int s = f->pre * 10;
	json_t *c = f->cand;
	if (!json_is_null(json_object_get(c, "appId")))
		s += 300;
	if (json_array_size(json_object_get(c, "installableOn")))
		s += 200;
	if (require && installable_on(c, require))
		s += 2000;
	const char *bt = json_string_value(json_object_get(c, "buildType"));
	if (want_type && strcmp(want_type, "any") != 0 && bt && !strcmp(bt, want_type))
		s += 1000;
	return s;
}

typedef struct scored {
	found *f;
	int score;
} scored;

static int cmp_scored(const void *a, const void *b)
{
	const scored *x = a, *y = b;
	if (x->score != y->score)
		return y->score - x->score;
	return (x->f->mtime < y->f->mtime) - (x->f->mtime > y->f->mtime);
}

static json_t *layouts(const char *root, bool allow_outside, const char *home)
{
	static const char *const rel[] = {"app/build/outputs/apk",
	                                  "app/build/outputs/bundle",
	                                  "android/app/build/outputs/apk",
	                                  "android/app/build/outputs/bundle",
	                                  "build/app/outputs/flutter-apk",
	                                  "build/app/outputs/bundle",
	                                  "build/Build/Products",
	                                  "ios/build/Build/Products",
	                                  NULL};
	json_t *arr = json_array();
	char *all = NULL;
	if (asprintf(&all, "%s (every folder to depth %d, skipping node_modules, .git, .swipium, Pods, .gradle)", root,
	             MAX_DEPTH) >= 0)
		json_array_append_new(arr, json_string(all));
	free(all);
	for (int i = 0; rel[i]; i++) {
		char *p = sw__path_join(root, rel[i]);
		if (p && sw__is_dir(p))
			json_array_append_new(arr, json_string(p));
		free(p);
	}
	if (allow_outside && home) {
		char *dd = sw__asprintf("%s/Library/Developer/Xcode/DerivedData/*/Build/Products", home);
		if (dd)
			json_array_append_new(arr, json_string(dd));
		free(dd);
	}
	return arr;
}

static void walk_derived_data(walk *w, const char *home)
{
	char *base = sw__asprintf("%s/Library/Developer/Xcode/DerivedData", home);
	DIR *d = base ? opendir(base) : NULL;
	struct dirent *de;
	w->in_derived = true;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *prod = sw__asprintf("%s/%s/Build/Products", base, de->d_name);
		if (prod && sw__is_dir(prod))
			walk_dir(w, prod, MAX_DEPTH - 3);
		free(prod);
	}
	w->in_derived = false;
	if (d)
		closedir(d);
	free(base);
}

static void finish_candidate(found *f, json_t *cand)
{
	json_object_set_new(cand, "path", json_string(f->path));
	if (strcmp(f->path, f->real) != 0)
		json_object_set_new(cand, "realPath", json_string(f->real));
	json_object_set_new(cand, "buildType", json_string(build_type_of(f->path)));
	json_object_set_new(cand, "outsideRoot", json_boolean(f->outside));
	if (strstr(f->path, "androidTest"))
		json_array_append_new(json_object_get(cand, "warnings"),
		                      json_string("an instrumentation-test APK (androidTest), not the app itself"));
}

static int resolve_path(const char *root, const char *root_real, const char *path, bool allow_outside, json_t *res,
                        sw_error **err)
{
	char *joined = path[0] == '/' ? sw__strdup(path) : sw__path_join(root, path);
	if (!joined)
		return sw__error_nomem(err);
	char *real = NULL;
	int in = inside_root(root_real, joined, &real);
	if (in < 0) {
		int rc = sw__error_set(err, SW_ENOTFOUND, "NO_BUILD_ARTIFACT",
		                       "Check the path, or leave path out to search the project", "%s does not exist",
		                       joined);
		free(joined);
		return rc;
	}
	if (!in && !allow_outside) {
		int rc =
		    sw__error_set(err, SW_EDENIED, "ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL",
		                  "Pass allowOutsideRoot:true to use it (an install of it then asks at medium risk)",
		                  "%s resolves to %s, outside the project root %s", joined, real, root_real);
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:s,s:s}", "path", joined, "realPath", real));
		free(joined);
		free(real);
		return rc;
	}
	json_t *cand = NULL;
	int rc = sw__artifact_inspect_json(joined, &cand, err);
	if (rc == SW_OK) {
		found f = {.path = joined, .real = real, .outside = !in};
		finish_candidate(&f, cand);
		json_object_set(res, "best", cand);
		json_object_set_new(res, "candidates", json_pack("[o]", cand));
		json_object_set_new(res, "searchedLocations", json_pack("[s]", joined));
	}
	free(joined);
	free(real);
	return rc;
}

int sw__artifact_resolve_json(const char *root, json_t *opts, const char *home, json_t **out, sw_error **err)
{
	const char *platform = json_string_value(json_object_get(opts, "platform"));
	const char *build_type = json_string_value(json_object_get(opts, "buildType"));
	const char *path = json_string_value(json_object_get(opts, "path"));
	const char *require = json_string_value(json_object_get(opts, "requireInstallableOn"));
	/* internal: only artifacts of this type (qa_bundletool's default .aab) */
	const char *want_type = json_string_value(json_object_get(opts, "type"));
	bool allow_outside = json_is_true(json_object_get(opts, "allowOutsideRoot"));
	if (!platform && require)
		platform = sw__str_has_prefix(require, "ios") ? "ios" : "android";
	char *root_real = realpath(root, NULL);
	if (!root_real)
		return sw__error_set(err, SW_ENOTFOUND, "PROJECT_ROOT_UNRESOLVED", NULL,
		                     "The project root %s does not exist", root);
	json_t *res = json_object();
	int rc = SW_OK;
	walk w = {.root_real = root_real, .platform = platform ? platform : "any"};
	scored *sc = NULL;
	if (path) {
		rc = resolve_path(root, root_real, path, allow_outside, res, err);
		goto out;
	}
	walk_dir(&w, root, 0);
	if (allow_outside && home)
		walk_derived_data(&w, home);
	json_t *searched = layouts(root, allow_outside, home);
	json_object_set_new(res, "searchedLocations", searched);
	json_t *warnings = json_array();
	json_object_set_new(res, "warnings", warnings);
	if (w.truncated)
		json_array_append_new(warnings,
		                      json_sprintf("the search stopped after %d directory entries", MAX_VISITED));
	if (w.bad_names)
		json_array_append_new(
		    warnings, json_sprintf("%zu artifact(s) left out: their paths are not valid UTF-8", w.bad_names));
	if (w.dropped)
		json_array_append_new(warnings, json_sprintf("%zu more artifacts were not ranked", w.dropped));
	/* symlinks out of the project only count with allowOutsideRoot */
	size_t kept = 0, outside = 0;
	for (size_t i = 0; i < w.n; i++) {
		if (w.items[i].outside && !allow_outside) {
			outside++;
			free(w.items[i].path);
			free(w.items[i].real);
			continue;
		}
		w.items[kept++] = w.items[i];
	}
	w.n = kept;
	if (outside)
		json_array_append_new(warnings,
		                      json_sprintf("%zu artifact(s) lead outside the project root (symlinks): pass "
		                                   "allowOutsideRoot:true to consider them",
		                                   outside));
	if (w.n > 1) /* qsort wants a real array even for none */
		qsort(w.items, w.n, sizeof(*w.items), cmp_pre);
	size_t ninspect = w.n < MAX_INSPECTED ? w.n : MAX_INSPECTED;
	sc = calloc(ninspect ? ninspect : 1, sizeof(*sc));
	if (!sc) {
		rc = sw__error_nomem(err);
		goto out;
	}
	size_t ns = 0, filtered = 0;
	for (size_t i = 0; i < ninspect; i++) {
		found *f = &w.items[i];
		if (sw__artifact_inspect_json(f->path, &f->cand, NULL) != SW_OK)
			continue;
		finish_candidate(f, f->cand);
		const char *type = json_string_value(json_object_get(f->cand, "type"));
		if (want_type && (!type || strcmp(want_type, type) != 0)) {
			json_decref(f->cand);
			f->cand = NULL;
			continue;
		}
		const char *bt = json_string_value(json_object_get(f->cand, "buildType"));
		if (build_type && strcmp(build_type, "any") != 0 && strcmp(bt, "unknown") != 0 &&
		    strcmp(bt, build_type)) {
			filtered++;
			continue;
		}
		sc[ns].f = f;
		sc[ns].score = score_of(f, build_type, require);
		ns++;
	}
	qsort(sc, ns, sizeof(*sc), cmp_scored);
	if (filtered)
		json_array_append_new(warnings,
		                      json_sprintf("%zu artifact(s) of the other build type left out (buildType %s)",
		                                   filtered, build_type));
	if (w.n > ninspect)
		json_array_append_new(warnings,
		                      json_sprintf("%zu lower-ranked artifacts were not inspected", w.n - ninspect));
	if (ns == 0) {
		if (outside) {
			rc = sw__error_set(
			    err, SW_EDENIED, "ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL",
			    "Pass allowOutsideRoot:true to use it (an install of it then asks at medium risk)",
			    "The only build artifacts found lead outside the project root %s", root_real);
		} else {
			rc = sw__error_set(err, SW_ENOTFOUND, "NO_BUILD_ARTIFACT",
			                   "Build the app first: qa_build {platform} plans the project's own build",
			                   "No %s build artifact (.apk, .aab, .ipa, .app) was found under %s",
			                   platform && strcmp(platform, "any") ? platform : "installable", root);
		}
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:O}", "searchedLocations", searched));
		goto out;
	}
	/* an Android target with only bundles: bundletool first */
	bool android_target =
	    (platform && !strcmp(platform, "android")) || (require && sw__str_has_prefix(require, "android"));
	bool only_aab = true, any_android = false;
	for (size_t i = 0; i < ns; i++) {
		const char *t = json_string_value(json_object_get(sc[i].f->cand, "type"));
		if (!strcmp(t, "apk") || !strcmp(t, "aab"))
			any_android = true;
		if (strcmp(t, "aab") != 0)
			only_aab = false;
	}
	if (only_aab && !want_type && (android_target || any_android)) {
		rc = sw__error_set(err, SW_EUNSUPPORTED, "AAB_NEEDS_BUNDLETOOL",
		                   "qa_bundletool {sessionId} converts it to an installable universal APK",
		                   "Only an Android App Bundle was found (%s): a device installs APKs", sc[0].f->path);
		if (err && *err)
			sw__error_take_details(
			    *err, json_pack("{s:s,s:O}", "aab", sc[0].f->path, "searchedLocations", searched));
		goto out;
	}
	json_t *cands = json_array();
	for (size_t i = 0; i < ns && i < MAX_CANDIDATES; i++)
		json_array_append(cands, sc[i].f->cand);
	if (ns > MAX_CANDIDATES)
		json_object_set_new(res, "moreCandidates", json_integer((json_int_t)(ns - MAX_CANDIDATES)));
	json_object_set(res, "best", json_array_get(cands, 0));
	json_object_set_new(res, "candidates", cands);
	if (require && !installable_on(json_array_get(cands, 0), require))
		json_array_append_new(warnings, json_sprintf("no candidate is installable on %s", require));
out:
	if (rc == SW_OK)
		*out = res;
	else
		json_decref(res);
	for (size_t i = 0; i < w.n; i++) {
		free(w.items[i].path);
		free(w.items[i].real);
		json_decref(w.items[i].cand);
	}
	free(w.items);
	free(sc);
	free(root_real);
	return rc;
}

int sw_artifact_resolve(sw_ctx *ctx, const char *root, const char *options_json, char **out_json, sw_error **err)
{
	if (!root || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "root and out_json must not be NULL");
	json_t *opts = NULL;
	if (options_json && *options_json) {
		opts = json_loads(options_json, 0, NULL);
		if (!json_is_object(opts)) {
			json_decref(opts);
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
		}
	}
	const char *home = ctx ? sw_ctx_get_home(ctx) : getenv("HOME");
	json_t *res = NULL;
	int rc = sw__artifact_resolve_json(root, opts, home, &res, err);
	json_decref(opts);
	if (rc != SW_OK)
		return rc;
	*out_json = sw__json_compact(res);
	json_decref(res);
	return *out_json ? SW_OK : sw__error_nomem(err);
}
