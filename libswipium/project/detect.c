/* detect.c: the one project-context detector (framework, platforms, app id, monorepo apps). */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

#include "sw-internal.h"

/* Manifests and configs are small; anything larger is not read (and said so). */
#define MANIFEST_MAX (1024 * 1024)
/* At most this many folders are looked at per workspace pattern. */
#define PATTERN_DIRS_MAX 200
/* At most this many apps are listed. */
#define APPS_MAX 100

static bool is_real_dir(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_real_file(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool has(const char *dir, const char *name)
{
	char *p = sw__path_join(dir, name);
	bool hit = p && is_real_file(p);
	free(p);
	return hit;
}

static bool has_dir(const char *dir, const char *name)
{
	char *p = sw__path_join(dir, name);
	bool hit = p && is_real_dir(p);
	free(p);
	return hit;
}

/* A file of @dir read whole (at most MANIFEST_MAX), or NULL. */
static char *slurp(const char *dir, const char *name)
{
	char *p = sw__path_join(dir, name), *text = NULL;
	if (p && is_real_file(p) && sw__read_file(p, MANIFEST_MAX, &text, NULL, NULL) != SW_OK)
		text = NULL;
	free(p);
	return text;
}

static json_t *load_json(const char *dir, const char *name)
{
	char *text = slurp(dir, name);
	if (!text)
		return NULL;
	json_t *j = json_loads(text, 0, NULL);
	free(text);
	return j;
}

/* Non-zero when @dir holds an entry ending in @suffix (a folder or a file). */
static bool has_suffix_entry(const char *dir, const char *suffix, char **first)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool hit = false;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] != '.' && sw__str_has_suffix(e->d_name, suffix)) {
			if (first && !*first)
				*first = sw__strdup(e->d_name);
			hit = true;
			break;
		}
	}
	closedir(d);
	return hit;
}

static void add_reason(json_t *reasons, const char *fmt, ...) SW_PRINTF(2, 3);
static void add_reason(json_t *reasons, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s)
		json_array_append_new(reasons, json_string(s));
	free(s);
}

static bool dep_in(json_t *pkg, const char *section, const char *name)
{
	return json_object_get(json_object_get(pkg, section), name) != NULL;
}

static bool dep_any(json_t *pkg, const char *name)
{
	return dep_in(pkg, "dependencies", name) || dep_in(pkg, "devDependencies", name);
}

static bool has_platform(json_t *platforms, const char *p)
{
	size_t i;
	json_t *v;
	json_array_foreach(platforms, i, v) if (!strcmp(json_string_value(v), p)) return true;
	return false;
}

static void add_platform(json_t *platforms, const char *p)
{
	if (!has_platform(platforms, p))
		json_array_append_new(platforms, json_string(p));
}

/* An Xcode project directly in @dir, or under its ios/ folder. */
static bool ios_project_in(const char *dir)
{
	if (has_suffix_entry(dir, ".xcodeproj", NULL) || has_suffix_entry(dir, ".xcworkspace", NULL))
		return true;
	char *ios = sw__path_join(dir, "ios");
	bool hit = ios && is_real_dir(ios) &&
	           (has_suffix_entry(ios, ".xcodeproj", NULL) || has_suffix_entry(ios, ".xcworkspace", NULL));
	free(ios);
	return hit;
}

static bool gradle_in(const char *dir)
{
	return has(dir, "settings.gradle") || has(dir, "settings.gradle.kts") || has(dir, "build.gradle") ||
	       has(dir, "build.gradle.kts");
}

/* The quoted value after @key in a Gradle file ("applicationId 'x'", "applicationId = \"x\""), skipping comments. */
static char *gradle_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;
	while (*p) {
		if (p[0] == '/' && p[1] == '/') {
			p = strchr(p, '\n');
			if (!p)
				break;
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			if (!e)
				break;
			p = e + 2;
			continue;
		}
		if (!strncmp(p, key, kl) && (p == text || !(p[-1] == '_' || p[-1] == '.' || ((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z')))) {
			const char *q = p + kl;
			while (*q == ' ' || *q == '\t' || *q == '=' || *q == '(')
				q++;
			if (*q == '"' || *q == '\'') {
				char quote = *q++;
				const char *e = strchr(q, quote);
				if (e && e - q > 0 && e - q < 256 && !memchr(q, '\n', (size_t)(e - q)) && !memchr(q, '$', (size_t)(e - q)))
					return sw__strndup(q, (size_t)(e - q));
			}
		}
		p++;
	}
	return NULL;
}

/* An Android package name: dot-separated Java identifiers, at least two parts. */
static bool android_id_ok(const char *s)
{
	int parts = 1;
	if (!s || !*s)
		return false;
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (c == '.') {
			if (p == s || p[1] == '\0' || p[1] == '.')
				return false;
			parts++;
		} else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
			return false;
		}
	}
	return parts >= 2;
}

static void set_app_id(json_t *ids, const char *platform, const char *id, const char *source)
{
	if (!id || !*id)
		return;
	size_t i;
	json_t *v;
	json_array_foreach(ids, i, v) if (!strcmp(json_string_value(json_object_get(v, "platform")), platform)) return;
	json_array_append_new(ids, json_pack("{ssssss}", "platform", platform, "id", id, "source", source));
}

/* App ids: Expo config first, then the Android Gradle module, then the Xcode project. */
static void find_app_ids(const char *dir, json_t *ids)
{
	json_t *app = load_json(dir, "app.json");
	json_t *expo = json_object_get(app, "expo");
	const char *a = json_string_value(json_object_get(json_object_get(expo, "android"), "package"));
	if (android_id_ok(a))
		set_app_id(ids, "android", a, "app.json expo.android.package");
	const char *i = json_string_value(json_object_get(json_object_get(expo, "ios"), "bundleIdentifier"));
	if (i && *i && strlen(i) < 256)
		set_app_id(ids, "ios", i, "app.json expo.ios.bundleIdentifier");
	json_decref(app);

	static const char *const gradles[] = {"android/app/build.gradle.kts", "android/app/build.gradle",
	                                      "app/build.gradle.kts", "app/build.gradle"};
	for (size_t g = 0; g < SW_ARRAY_SIZE(gradles); g++) {
		char *text = slurp(dir, gradles[g]);
		if (!text)
			continue;
		char *id = gradle_value(text, "applicationId");
		const char *what = "applicationId";
		if (!id) {
			id = gradle_value(text, "namespace");
			what = "namespace";
		}
		if (android_id_ok(id)) {
			char *src = sw__asprintf("%s %s", gradles[g], what);
			set_app_id(ids, "android", id, src ? src : gradles[g]);
			free(src);
		}
		free(id);
		free(text);
		break;
	}

	static const char *const iosdirs[] = {".", "ios"};
	for (size_t d = 0; d < SW_ARRAY_SIZE(iosdirs); d++) {
		char *base = sw__path_join(dir, iosdirs[d]), *proj = NULL;
		if (base && is_real_dir(base) && has_suffix_entry(base, ".xcodeproj", &proj)) {
			char *rel = sw__asprintf("%s/%s/project.pbxproj", iosdirs[d], proj);
			char *text = rel ? slurp(dir, rel) : NULL;
			/* the first PRODUCT_BUNDLE_IDENTIFIER that is a literal and not a test target */
			for (const char *p = text; p && (p = strstr(p, "PRODUCT_BUNDLE_IDENTIFIER = ")); p++) {
				const char *v = p + strlen("PRODUCT_BUNDLE_IDENTIFIER = ");
				if (*v == '"')
					v++;
				size_t n = strcspn(v, "\";\n");
				if (n && n < 256 && !memchr(v, '$', n) && !memmem(v, n, "Tests", 5)) {
					char *id = sw__strndup(v, n);
					char *src = sw__asprintf("%s PRODUCT_BUNDLE_IDENTIFIER", rel);
					set_app_id(ids, "ios", id, src ? src : rel);
					free(src);
					free(id);
					break;
				}
			}
			free(text);
			free(rel);
		}
		free(proj);
		free(base);
	}
}

/*
 * The framework of the one folder @dir (not its workspaces). Reasons say why; *kind_out gets "web" or
 * "desktop" for a JavaScript package that is not a mobile app (else NULL).
 */
static const char *detect_one(const char *dir, json_t *reasons, json_t *platforms, const char **kind_out)
{
	*kind_out = NULL;
	bool android_dir = has_dir(dir, "android"), ios_dir = has_dir(dir, "ios");
	char *pubspec = slurp(dir, "pubspec.yaml");
	if (pubspec) {
		bool flutter = strstr(pubspec, "sdk: flutter") || strstr(pubspec, "flutter:");
		bool app = has(dir, "lib/main.dart") || android_dir || ios_dir;
		free(pubspec);
		if (flutter && app) {
			add_reason(reasons, "pubspec.yaml depends on Flutter%s", has(dir, "lib/main.dart") ? " and lib/main.dart exists" : "");
			if (android_dir)
				add_platform(platforms, "android");
			if (ios_dir)
				add_platform(platforms, "ios");
			if (!android_dir && !ios_dir) {
				add_platform(platforms, "android");
				add_platform(platforms, "ios");
			}
			return "flutter";
		}
		add_reason(reasons, "pubspec.yaml is a Dart%s package, not an app", flutter ? "/Flutter library" : "");
	}
	json_t *pkg = load_json(dir, "package.json");
	if (json_is_object(pkg)) {
		bool rn = dep_in(pkg, "dependencies", "react-native"), expo = dep_in(pkg, "dependencies", "expo"),
		     router = dep_any(pkg, "expo-router");
		bool native_dirs = android_dir || ios_dir || has(dir, "app.json");
		/* a library keeps react-native in devDependencies; an app with native folders or app.json counts */
		if (!rn && dep_in(pkg, "devDependencies", "react-native") && native_dirs)
			rn = true;
		if (!expo && dep_in(pkg, "devDependencies", "expo") && native_dirs)
			expo = true;
		bool expo_config = false;
		json_t *app = load_json(dir, "app.json");
		if (json_object_get(app, "expo"))
			expo_config = true;
		json_decref(app);
		static const char *const configs[] = {"app.config.js", "app.config.ts", "app.config.mjs", "app.config.cjs",
		                                      "app.config.json"};
		for (size_t i = 0; !expo_config && i < SW_ARRAY_SIZE(configs); i++)
			expo_config = has(dir, configs[i]);
		const char *fw = NULL;
		if (expo && (expo_config || router)) {
			fw = "expo";
			add_reason(reasons, "package.json depends on expo with %s",
			           expo_config ? "an Expo app config" : "Expo Router");
		} else if (rn || expo) {
			fw = "bare-react-native";
			add_reason(reasons, "%s", expo ? "package.json depends on expo modules without an Expo app config or Expo Router"
			                               : "package.json depends on react-native without Expo");
		}
		if (fw) {
			if (android_dir)
				add_platform(platforms, "android");
			if (ios_dir)
				add_platform(platforms, "ios");
			if (!android_dir && !ios_dir) {
				/* managed Expo: native projects come from prebuild */
				add_platform(platforms, "android");
				add_platform(platforms, "ios");
			}
			json_decref(pkg);
			return fw;
		}
		if (dep_any(pkg, "electron") || dep_any(pkg, "@tauri-apps/api"))
			*kind_out = "desktop";
		else if (dep_any(pkg, "next") || dep_any(pkg, "react-dom") || dep_any(pkg, "vite") || dep_any(pkg, "vue") ||
		         dep_any(pkg, "@angular/core") || dep_any(pkg, "svelte"))
			*kind_out = "web";
	}
	json_decref(pkg);
	if (gradle_in(dir)) {
		add_reason(reasons, "%s", "Gradle settings or build files at the top");
		add_platform(platforms, "android");
		if (ios_project_in(dir))
			add_platform(platforms, "ios");
		return "native-android";
	}
	if (has_suffix_entry(dir, ".xcodeproj", NULL) || has_suffix_entry(dir, ".xcworkspace", NULL) ||
	    has(dir, "Package.swift")) {
		add_reason(reasons, "%s", "an Xcode project, workspace or Package.swift at the top");
		add_platform(platforms, "ios");
		return "native-ios";
	}
	return "unknown";
}

/* ---- build facts (what qa_build's plan needs; files only, nothing runs) ------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of @dir ending in @suffix, sorted (at most 64), as a JSON array of names. */
static json_t *entries_with_suffix(const char *dir, const char *suffix)
{
	json_t *out = json_array();
	DIR *d = dir ? opendir(dir) : NULL;
	if (!d)
		return out;
	char *names[64];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < SW_ARRAY_SIZE(names))
		if (e->d_name[0] != '.' && sw__str_has_suffix(e->d_name, suffix) && strlen(e->d_name) > strlen(suffix))
			names[n++] = sw__strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (names[i])
			json_array_append_new(out, json_string(names[i]));
		free(names[i]);
	}
	return out;
}

/* Shared Xcode schemes of @container (an .xcodeproj or .xcworkspace folder inside @dir), names only. */
static void add_schemes(const char *dir, const char *container, json_t *schemes)
{
	char *c = sw__path_join(dir, container);
	char *sd = c ? sw__path_join(c, "xcshareddata/xcschemes") : NULL;
	json_t *list = sd && is_real_dir(sd) ? entries_with_suffix(sd, ".xcscheme") : json_array();
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v)
	{
		const char *name = json_string_value(v);
		json_t *stem = json_stringn(name, strlen(name) - strlen(".xcscheme"));
		bool dup = false;
		size_t k;
		json_t *w;
		json_array_foreach(schemes, k, w) dup = dup || json_equal(w, stem);
		if (!dup)
			json_array_append(schemes, stem);
		json_decref(stem);
	}
	json_decref(list);
	free(sd);
	free(c);
}

static json_t *build_facts(const char *app)
{
	json_t *f = json_object();
	json_object_set_new(f, "packageJson", json_boolean(has(app, "package.json")));
	static const char *const locks[] = {"package-lock.json", "yarn.lock", "pnpm-lock.yaml"};
	const char *lock = NULL;
	for (size_t i = 0; !lock && i < SW_ARRAY_SIZE(locks); i++)
		if (has(app, locks[i]))
			lock = locks[i];
	json_object_set_new(f, "lockfile", lock ? json_string(lock) : json_null());
	json_object_set_new(f, "nodeModules", json_boolean(has_dir(app, "node_modules")));
	json_object_set_new(f, "pubspec", json_boolean(has(app, "pubspec.yaml")));
	json_t *appj = load_json(app, "app.json");
	const char *expo_name = json_string_value(json_object_get(json_object_get(appj, "expo"), "name"));
	json_object_set_new(f, "expoName", expo_name ? json_string(expo_name) : json_null());
	json_decref(appj);

	/* Android: the Gradle project in android/, else at the top */
	const char *adir = has_dir(app, "android") ? "android" : gradle_in(app) ? "." : NULL;
	json_t *a = json_object();
	json_object_set_new(a, "dir", adir ? json_string(adir) : json_null());
	json_object_set_new(a, "exists", json_boolean(adir != NULL));
	char *ad = adir ? sw__path_join(app, adir) : NULL;
	json_object_set_new(a, "gradlew", json_boolean(ad && has(ad, "gradlew")));
	json_object_set_new(a, "settings", json_boolean(ad && (has(ad, "settings.gradle") || has(ad, "settings.gradle.kts"))));
	free(ad);
	json_object_set_new(f, "android", a);

	/* iOS: an Xcode project in ios/, else at the top */
	const char *idir = has_dir(app, "ios") ? "ios" : NULL;
	if (!idir && (has_suffix_entry(app, ".xcodeproj", NULL) || has_suffix_entry(app, ".xcworkspace", NULL)))
		idir = ".";
	json_t *io = json_object();
	json_object_set_new(io, "dir", idir ? json_string(idir) : json_null());
	json_object_set_new(io, "exists", json_boolean(idir != NULL));
	char *id = idir ? sw__path_join(app, idir) : NULL;
	json_object_set_new(io, "podfile", json_boolean(id && has(id, "Podfile")));
	json_t *ws = entries_with_suffix(id, ".xcworkspace"), *pr = entries_with_suffix(id, ".xcodeproj");
	json_t *schemes = json_array();
	size_t i;
	json_t *v;
	json_array_foreach(ws, i, v) add_schemes(id, json_string_value(v), schemes);
	json_array_foreach(pr, i, v) add_schemes(id, json_string_value(v), schemes);
	json_object_set_new(io, "workspaces", ws);
	json_object_set_new(io, "projects", pr);
	json_object_set_new(io, "schemes", schemes);
	free(id);
	json_object_set_new(f, "ios", io);
	return f;
}

/* ---- workspaces ----------------------------------------------------------- */

/* The scalar items of the top-level `packages:` sequence of pnpm-workspace.yaml. */
static void pnpm_patterns(const char *text, json_t *out)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	int depth = 0; /* mapping/sequence nesting */
	bool key_next = true, in_packages = false, want_packages = false;
	for (int guard = 0; guard < 100000; guard++) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev))
			break;
		yaml_event_type_t t = ev.type;
		if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
			if (depth == 1 && want_packages && t == YAML_SEQUENCE_START_EVENT)
				in_packages = true;
			want_packages = false;
			depth++;
			key_next = true;
		} else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
			depth--;
			if (depth == 1)
				in_packages = false;
			key_next = true;
		} else if (t == YAML_SCALAR_EVENT) {
			const char *v = (const char *)ev.data.scalar.value;
			if (in_packages && depth == 2)
				json_array_append_new(out, json_string(v));
			else if (depth == 1) {
				if (key_next)
					want_packages = !strcmp(v, "packages");
				else
					want_packages = false;
				key_next = !key_next;
			}
		}
		bool end = t == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (end)
			break;
	}
	yaml_parser_delete(&p);
}

/* Workspace patterns and the manifests that declared them. */
static void workspace_patterns(const char *root, json_t *patterns, json_t *tools)
{
	json_t *pkg = load_json(root, "package.json");
	json_t *ws = json_object_get(pkg, "workspaces");
	if (json_is_object(ws))
		ws = json_object_get(ws, "packages");
	if (json_is_array(ws)) {
		json_array_append_new(tools, json_string("package.json workspaces"));
		size_t i;
		json_t *v;
		json_array_foreach(ws, i, v) if (json_is_string(v)) json_array_append(patterns, v);
	}
	json_decref(pkg);
	char *pnpm = slurp(root, "pnpm-workspace.yaml");
	if (pnpm) {
		json_array_append_new(tools, json_string("pnpm-workspace.yaml"));
		pnpm_patterns(pnpm, patterns);
		free(pnpm);
	}
	json_t *lerna = load_json(root, "lerna.json");
	if (lerna) {
		json_array_append_new(tools, json_string("lerna.json"));
		json_t *pk = json_object_get(lerna, "packages");
		size_t i;
		json_t *v;
		json_array_foreach(pk, i, v) if (json_is_string(v)) json_array_append(patterns, v);
		json_decref(lerna);
	}
	static const char *const others[] = {"nx.json", "turbo.json", "rush.json", "melos.yaml"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(others); i++)
		if (has(root, others[i]))
			json_array_append_new(tools, json_string(others[i]));
}

/* A relative, confined path pattern: no "..", not absolute, no negation. */
static bool pattern_ok(const char *p)
{
	if (!p || !*p || p[0] == '/' || p[0] == '!' || strlen(p) > 200)
		return false;
	for (const char *s = p; *s; s++)
		if (s[0] == '.' && s[1] == '.' && (s == p || s[-1] == '/'))
			return false;
	return true;
}

static bool rel_seen(json_t *seen, const char *rel)
{
	if (json_object_get(seen, rel))
		return true;
	json_object_set_new(seen, rel, json_true());
	return false;
}

static void consider(const char *root, const char *rel, json_t *apps, json_t *skipped, json_t *seen, int *counted)
{
	if (rel_seen(seen, rel))
		return;
	char *dir = sw__path_join(root, rel);
	if (!dir)
		return;
	if (!is_real_dir(dir)) { /* symlinked folders are not followed */
		free(dir);
		return;
	}
	if (has(dir, "package.json") || has(dir, "pubspec.yaml") || gradle_in(dir))
		(*counted)++;
	json_t *reasons = json_array(), *platforms = json_array();
	const char *kind = NULL;
	const char *fw = detect_one(dir, reasons, platforms, &kind);
	if (strcmp(fw, "unknown") != 0) {
		if (json_array_size(apps) < APPS_MAX)
			json_array_append_new(apps, json_pack("{sssssOsO}", "path", rel, "framework", fw, "platforms",
			                                      platforms, "reasons", reasons));
	} else if (kind) {
		json_array_append_new(skipped, json_pack("{ssss}", "path", rel, "kind", kind));
	}
	json_decref(reasons);
	json_decref(platforms);
	free(dir);
}

/* Expands "dir", "dir/<star>" and "dir/<star><star>" (one level) under @root. Other globs are noted and skipped. */
static void expand(const char *root, const char *pattern, json_t *apps, json_t *skipped, json_t *seen, json_t *notes,
                   int *counted)
{
	if (!pattern_ok(pattern)) {
		add_reason(notes, "workspace pattern \"%s\" skipped (absolute, negated or leaving the project)", pattern);
		return;
	}
	char *pat = sw__strdup(pattern);
	if (!pat)
		return;
	size_t n = strlen(pat);
	while (n && pat[n - 1] == '/')
		pat[--n] = '\0';
	if (sw__str_has_prefix(pat, "./"))
		memmove(pat, pat + 2, strlen(pat + 2) + 1);
	char *star = strchr(pat, '*');
	if (!star) {
		consider(root, pat, apps, skipped, seen, counted);
		free(pat);
		return;
	}
	if (!(sw__str_has_suffix(pat, "/*") || sw__str_has_suffix(pat, "/**")) || star != strrchr(pat, '/') + 1 ||
	    strchr(pat, '?') || strchr(pat, '[') || strchr(pat, '{')) {
		add_reason(notes, "workspace pattern \"%s\" is a glob this detector does not expand", pattern);
		free(pat);
		return;
	}
	*strrchr(pat, '/') = '\0';
	char *base = sw__path_join(root, pat);
	DIR *d = base && is_real_dir(base) ? opendir(base) : NULL;
	int seen_dirs = 0;
	if (d) {
		struct dirent *e;
		json_t *names = json_array();
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' || !strcmp(e->d_name, "node_modules"))
				continue;
			if (!sw__utf8_valid(e->d_name, strlen(e->d_name)))
				continue;
			json_array_append_new(names, json_string(e->d_name));
		}
		closedir(d);
		/* readdir order is arbitrary: sort for a stable answer */
		size_t cnt = json_array_size(names);
		const char **sorted = calloc(cnt ? cnt : 1, sizeof(*sorted));
		for (size_t i = 0; sorted && i < cnt; i++)
			sorted[i] = json_string_value(json_array_get(names, i));
		for (size_t i = 1; sorted && i < cnt; i++)
			for (size_t j = i; j > 0 && strcmp(sorted[j - 1], sorted[j]) > 0; j--) {
				const char *t = sorted[j];
				sorted[j] = sorted[j - 1];
				sorted[j - 1] = t;
			}
		for (size_t i = 0; sorted && i < cnt; i++) {
			if (++seen_dirs > PATTERN_DIRS_MAX) {
				char *note = sw__asprintf("workspace pattern \"%s\": only the first %d folders were looked at (%zu)",
				                          pattern, PATTERN_DIRS_MAX, cnt);
				if (note)
					json_array_append_new(notes, json_string(note));
				free(note);
				break;
			}
			char *rel = sw__asprintf("%s/%s", pat, sorted[i]);
			if (rel)
				consider(root, rel, apps, skipped, seen, counted);
			free(rel);
		}
		free(sorted);
		json_decref(names);
	}
	free(base);
	free(pat);
}

SW_API int sw_project_detect(const char *root, char **out_json, sw_error **err)
{
	if (!root || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_project_detect: root and out_json are required");
	if (root[0] != '/' || !sw__is_dir(root))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass the absolute path of the app's folder.",
		                     "project root must be an absolute path to an existing directory (got \"%s\")", root);
	json_t *reasons = json_array(), *platforms = json_array(), *ids = json_array(), *apps = json_array(),
	       *skipped = json_array(), *tools = json_array(), *patterns = json_array(), *notes = json_array(),
	       *seen = json_object();
	const char *kind = NULL;
	const char *fw = detect_one(root, reasons, platforms, &kind);
	bool root_is_app = strcmp(fw, "unknown") != 0;

	int counted = 0;
	workspace_patterns(root, patterns, tools);
	size_t i;
	json_t *v;
	json_array_foreach(patterns, i, v) expand(root, json_string_value(v), apps, skipped, seen, notes, &counted);
	static const char *const conventional[] = {"apps/*", "packages/*", "examples/*", "mobile", "app"};
	for (size_t c = 0; c < SW_ARRAY_SIZE(conventional); c++) {
		/* app/ at the top of an app is its source (Expo Router, Android module), not another app */
		if (!strcmp(conventional[c], "app") && (root_is_app || gradle_in(root)))
			continue;
		expand(root, conventional[c], apps, skipped, seen, notes, &counted);
	}
	if (!root_is_app) {
		/* separate native projects side by side */
		expand(root, "android", apps, skipped, seen, notes, &counted);
		expand(root, "ios", apps, skipped, seen, notes, &counted);
	}
	bool detected = json_array_size(tools) > 0 || counted >= 2 || (!root_is_app && json_array_size(apps) > 0);

	const char *app_root = ".";
	if (!root_is_app && json_array_size(apps) == 1) {
		json_t *only = json_array_get(apps, 0);
		app_root = json_string_value(json_object_get(only, "path"));
	}
	char *app_dir = strcmp(app_root, ".") ? sw__path_join(root, app_root) : sw__strdup(root);
	if (app_dir)
		find_app_ids(app_dir, ids);
	free(app_dir);

	json_t *res = json_object();
	json_object_set_new(res, "root", json_string(root));
	json_object_set_new(res, "framework", json_string(fw));
	json_object_set(res, "reasons", reasons);
	json_object_set(res, "platforms", platforms);
	if (!root_is_app && json_array_size(apps) == 1) {
		/* the one app of a monorepo stands for the project */
		json_t *only = json_array_get(apps, 0);
		json_object_set_new(res, "appRoot", json_string(app_root));
		json_object_set(res, "appFramework", json_object_get(only, "framework"));
		json_object_set(res, "appPlatforms", json_object_get(only, "platforms"));
	} else if (root_is_app) {
		json_object_set_new(res, "appRoot", json_string("."));
	}
	if (kind)
		json_object_set_new(res, "nonMobileKind", json_string(kind));
	if (json_object_get(res, "appRoot")) {
		/* the files a build of the app depends on (qa_build's plan), relative to the app's folder */
		char *dir = strcmp(app_root, ".") ? sw__path_join(root, app_root) : sw__strdup(root);
		if (dir)
			json_object_set_new(res, "build", build_facts(dir));
		free(dir);
	}
	json_object_set(res, "appIds", ids);
	json_t *first_android = NULL;
	json_array_foreach(ids, i, v) if (!first_android && !strcmp(json_string_value(json_object_get(v, "platform")), "android"))
	    first_android = v;
	if (first_android) {
		json_object_set(res, "appId", json_object_get(first_android, "id"));
		json_object_set(res, "appIdSource", json_object_get(first_android, "source"));
	}
	json_t *mono = json_object();
	json_object_set_new(mono, "detected", json_boolean(detected));
	json_object_set(mono, "workspaceManifests", tools);
	json_t *app_list = json_array();
	json_array_foreach(apps, i, v)
	    json_array_append_new(app_list, json_pack("{sOsOsO}", "path", json_object_get(v, "path"), "framework",
	                                              json_object_get(v, "framework"), "platforms",
	                                              json_object_get(v, "platforms")));
	json_object_set_new(mono, "apps", app_list);
	if (json_array_size(skipped))
		json_object_set(mono, "notMobile", skipped);
	json_object_set_new(res, "monorepo", mono);
	if (json_array_size(notes))
		json_object_set(res, "notes", notes);

	*out_json = sw__json_compact(res);
	int rc = *out_json ? SW_OK : sw__error_nomem(err);
	json_decref(res);
	json_decref(reasons);
	json_decref(platforms);
	json_decref(ids);
	json_decref(apps);
	json_decref(skipped);
	json_decref(tools);
	json_decref(patterns);
	json_decref(notes);
	json_decref(seen);
	return rc;
}
