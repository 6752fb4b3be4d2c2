/* appscan.c: the static scanner's walk, its limits and notes, and the final static topology. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appscan-internal.h"

#define FILE_MAX_BYTES (2u * 1024 * 1024)
#define BINARY_PROBE 8192
#define NOTE_PATHS_MAX 10
#define INDEX_FILES_MAX 5000
#define INDEX_SYMBOLS_MAX 100

/* Folders never entered: dependencies, build outputs, tool state. */
static const char *const SKIP_DIRS[] = {"node_modules", "build", "dist",     "Pods",  ".gradle", ".dart_tool",
                                        "DerivedData",  ".git",  ".swipium", ".expo", ".build",  ".cxx",
                                        ".idea",        ".next", ".turbo",   NULL};

typedef enum ftype {
	F_NONE,
	F_JS,
	F_TS,
	F_KOTLIN,
	F_JAVA,
	F_SWIFT,
	F_DART,
	F_PACKAGE_JSON,
	F_PUBSPEC,
	F_GRADLE_SETTINGS,
	F_GRADLE_BUILD,
	F_MANIFEST,
	F_NAVXML,
	F_LAYOUT,
	F_STORYBOARD,
} ftype;

typedef struct work {
	char *rel;
	char *real; /* for a symlinked file: its real path inside the project */
	ftype type;
	int order;
} work;

typedef struct walker {
	sw__scan *s;
	work *v;
	size_t n, cap;
	long max_files, max_depth;
	bool capped;
	bool failed;
} walker;

void sw__scan_note(sw__scan *s, const char *code, const char *path, const char *fmt, ...)
{
	json_t *n = json_object_get(s->notes, code);
	if (!n) {
		va_list ap;
		va_start(ap, fmt);
		char *msg = NULL;
		if (vasprintf(&msg, fmt, ap) < 0)
			msg = NULL;
		va_end(ap);
		n = json_pack("{sssssIs[]}", "code", code, "message", msg ? msg : code, "count", (json_int_t)0,
		              "paths");
		free(msg);
		if (!n)
			return;
		json_object_set_new(s->notes, code, n);
	}
	json_object_set_new(n, "count", json_integer(json_integer_value(json_object_get(n, "count")) + 1));
	json_t *paths = json_object_get(n, "paths");
	if (path && json_array_size(paths) < NOTE_PATHS_MAX) {
		char *clean = sw__utf8_valid(path, strlen(path)) ? NULL : sw__utf8_sanitize(path, strlen(path));
		json_array_append_new(paths, json_string(clean ? clean : path));
		free(clean);
	}
}

json_t *sw__scan_screen(sw__scan *s, const char *router, const char *kind, const char *file, double confidence,
                        const char *reason)
{
	json_t *sc = json_pack("{sssss[]sfs[]}", "router", router, "kind", kind, "sourceFiles", "confidence",
	                       confidence, "reasons");
	if (!sc)
		return NULL;
	if (file) {
		json_array_append_new(json_object_get(sc, "sourceFiles"), json_string(file));
		json_object_set_new(sc, "_file", json_string(file));
	}
	if (reason)
		json_array_append_new(json_object_get(sc, "reasons"), json_string(reason));
	json_array_append_new(s->screens, sc);
	return sc;
}

void sw__scan_reason(json_t *screen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg && screen)
		json_array_append_new(json_object_get(screen, "reasons"), json_string(msg));
	free(msg);
}

void sw__scan_const(sw__scan *s, const char *name, const char *value, const char *file)
{
	(void)file;
	if (!name || !value || !sw__utf8_valid(value, strlen(value)))
		return;
	json_t *old = json_object_get(s->consts, name);
	if (!old)
		json_object_set_new(s->consts, name, json_string(value));
	else if (json_is_string(old) && strcmp(json_string_value(old), value))
		json_object_set_new(s->consts, name, json_null()); /* two definitions disagree: not resolvable */
}

void sw__scan_symbol(sw__scan *s, const char *name, const char *file)
{
	if (name && *name && !json_object_get(s->symfile, name))
		json_object_set_new(s->symfile, name, json_string(file));
}

void sw__scan_super(sw__scan *s, const char *cls, const char *super)
{
	if (!cls || !super)
		return;
	json_t *a = json_object_get(s->supers, cls);
	if (!a) {
		a = json_array();
		json_object_set_new(s->supers, cls, a);
	}
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v) if (!strcmp(json_string_value(v), super)) return; /* once each */
	if (json_array_size(a) < 16)
		json_array_append_new(a, json_string(super));
}

void sw__scan_index_symbol(sw__scan *s, json_t *entry, const char *name)
{
	(void)s;
	if (!entry || !name)
		return;
	json_t *syms = json_object_get(entry, "symbols");
	if (json_array_size(syms) < INDEX_SYMBOLS_MAX)
		json_array_append_new(syms, json_string(name));
	else
		json_object_set_new(entry, "symbolsTruncated", json_true());
}

bool sw__scan_has_file(const sw__scan *s, const char *rel)
{
	return rel && json_object_get(s->files, rel) != NULL;
}

void sw__scan_password(sw__scan *s, const char *file, const char *marker)
{
	if (!json_object_get(s->pwfiles, file))
		json_object_set_new(s->pwfiles, file, json_string(marker));
}

void sw__scan_authlib(sw__scan *s, const char *name, const char *file)
{
	size_t i;
	json_t *v;
	json_array_foreach(s->authlibs, i, v) if (!strcmp(json_string_value(json_object_get(v, "name")), name)) return;
	json_array_append_new(s->authlibs, json_pack("{ssss}", "name", name, "source", file));
}

bool sw__scan_is_test_path(const char *rel)
{
	const char *p = rel;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (slash) {
			/* a folder: __tests__, __mocks__, __typechecks__, __foo-tests__, e2e, .storybook, stories */
			if (n >= 4 && p[0] == '_' && p[1] == '_' && p[n - 1] == '_' && p[n - 2] == '_')
				return true;
			if ((n == 3 && !memcmp(p, "e2e", 3)) || (n == 10 && !memcmp(p, ".storybook", 10)) ||
			    (n == 7 && !memcmp(p, "stories", 7)) || (n == 5 && !memcmp(p, "tests", 5)) ||
			    (n == 4 && !memcmp(p, "test", 4)) || (n == 8 && !memcmp(p, "androidTest", 8 + 3)) ||
			    (n == 11 && !memcmp(p, "androidTest", 11)) || (n == 8 && !memcmp(p, "testFixtures", 8)))
				return true;
		} else {
			/* a file: *.test.*, *.spec.*, *.stories.*, *.story.*, *.e2e.*, *.test-d.* */
			static const char *const marks[] = {".test.", ".spec.",   ".stories.", ".story.",
			                                    ".e2e.",  ".test-d.", NULL};
			for (const char *const *m = marks; *m; m++)
				if (strstr(p, *m))
					return true;
		}
		if (!slash)
			break;
		p = slash + 1;
	}
	return false;
}

/* ---- auth words ------------------------------------------------------------ */

/* Splits @name into lower-case words (camelCase, digits, separators) into @out (NUL-separated, double NUL). */
static void words_of(const char *name, char *out, size_t cap)
{
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)name;
	size_t n = strlen(name);
	for (size_t i = 0; i < n && o + 3 < cap; i++) {
		unsigned char c = p[i];
		bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (!alpha) {
			if (o && out[o - 1])
				out[o++] = '\0';
			continue;
		}
		bool upper = c >= 'A' && c <= 'Z';
		if (upper && i > 0 && o && out[o - 1]) {
			unsigned char pc = p[i - 1];
			bool prev_lower = (pc >= 'a' && pc <= 'z') || (pc >= '0' && pc <= '9');
			bool next_lower = i + 1 < n && p[i + 1] >= 'a' && p[i + 1] <= 'z';
			bool prev_upper = pc >= 'A' && pc <= 'Z';
			if (prev_lower || (prev_upper && next_lower))
				out[o++] = '\0';
		}
		out[o++] = (char)(upper ? c - 'A' + 'a' : c);
	}
	if (o && out[o - 1])
		out[o++] = '\0';
	out[o] = '\0';
}

bool sw__scan_auth_words(const char *name, char *why, size_t why_len)
{
	if (!name)
		return false;
	char w[512];
	words_of(name, w, sizeof(w));
	static const char *const single[] = {
	    "login",          "logon",        "signin",   "signup",   "register", "registration", "auth",
	    "authentication", "authenticate", "password", "passcode", "otp",      "mfa",          "2fa",
	    "oauth",          "sso",          NULL};
	const char *prev = NULL;
	for (const char *p = w; *p; p += strlen(p) + 1) {
		for (const char *const *s = single; *s; s++)
			if (!strcmp(p, *s)) {
				snprintf(why, why_len, "the name has the word '%s'", p);
				return true;
			}
		if (prev && ((!strcmp(prev, "sign") && (!strcmp(p, "in") || !strcmp(p, "up"))) ||
		             (!strcmp(prev, "log") && !strcmp(p, "in")) ||
		             (!strcmp(prev, "forgot") && !strcmp(p, "password")) ||
		             (!strcmp(prev, "create") && !strcmp(p, "account")) ||
		             (!strcmp(prev, "two") && !strcmp(p, "factor")))) {
			snprintf(why, why_len, "the name has the words '%s %s'", prev, p);
			return true;
		}
		prev = p;
	}
	return false;
}

/* ---- the walk --------------------------------------------------------------- */

static ftype classify(const char *rel, const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!strcmp(name, "package.json"))
		return F_PACKAGE_JSON;
	if (!strcmp(name, "pubspec.yaml"))
		return F_PUBSPEC;
	if (!strcmp(name, "settings.gradle") || !strcmp(name, "settings.gradle.kts"))
		return F_GRADLE_SETTINGS;
	if (!strcmp(name, "build.gradle") || !strcmp(name, "build.gradle.kts"))
		return F_GRADLE_BUILD;
	if (!strcmp(name, "AndroidManifest.xml"))
		return F_MANIFEST;
	if (!dot)
		return F_NONE;
	if (!strcmp(dot, ".xml")) {
		if (strstr(rel, "/res/navigation/") || sw__str_has_prefix(rel, "res/navigation/") ||
		    strstr(rel, "/res/navigation-"))
			return F_NAVXML;
		if (strstr(rel, "/res/layout"))
			return F_LAYOUT;
		return F_NONE;
	}
	if (!strcmp(dot, ".storyboard"))
		return F_STORYBOARD;
	if (sw__str_has_suffix(name, ".d.ts") || sw__str_has_suffix(name, ".min.js"))
		return F_NONE;
	if (!strcmp(dot, ".js") || !strcmp(dot, ".jsx") || !strcmp(dot, ".tsx") || !strcmp(dot, ".mjs") ||
	    !strcmp(dot, ".cjs"))
		return F_JS;
	if (!strcmp(dot, ".ts") || !strcmp(dot, ".mts") || !strcmp(dot, ".cts"))
		return F_TS;
	if (!strcmp(dot, ".kt") || (!strcmp(dot, ".kts") && !sw__str_has_suffix(name, ".gradle.kts")))
		return F_KOTLIN;
	if (!strcmp(dot, ".java"))
		return F_JAVA;
	if (!strcmp(dot, ".swift"))
		return F_SWIFT;
	if (!strcmp(dot, ".dart") && !sw__str_has_suffix(name, ".g.dart") && !sw__str_has_suffix(name, ".freezed.dart"))
		return F_DART;
	return F_NONE;
}

static int type_order(ftype t)
{
	switch (t) {
	case F_PACKAGE_JSON:
	case F_PUBSPEC: return 0;
	case F_GRADLE_SETTINGS:
	case F_GRADLE_BUILD: return 1;
	default: return 2;
	}
}

static void add_work(walker *w, const char *rel, const char *real, ftype type)
{
	if (w->failed)
		return;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		work *v = realloc(w->v, cap * sizeof(*v));
		if (!v) {
			w->failed = true;
			return;
		}
		w->v = v;
		w->cap = cap;
	}
	work *k = &w->v[w->n];
	k->rel = sw__strdup(rel);
	k->real = real ? sw__strdup(real) : NULL;
	k->type = type;
	k->order = type_order(type);
	if (!k->rel) {
		w->failed = true;
		return;
	}
	w->n++;
}

static bool skip_dir_name(const char *name)
{
	for (const char *const *d = SKIP_DIRS; *d; d++)
		if (!strcmp(name, *d))
			return true;
	return false;
}

static void walk(walker *w, const char *abs, const char *rel, long depth)
{
	sw__scan *s = w->s;
	if (w->capped || w->failed)
		return;
	DIR *d = opendir(abs);
	if (!d) {
		sw__scan_note(s, "unreadable-folder", *rel ? rel : ".",
		              "folders that could not be opened were not scanned");
		return;
	}
	struct dirent *e;
	/* entries are sorted so that the walk (and the file cap) is the same on every run */
	char **names = NULL;
	size_t n = 0, cap = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			char **nv = realloc(names, nc * sizeof(*nv));
			if (!nv)
				break;
			names = nv;
			cap = nc;
		}
		names[n] = sw__strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	for (size_t i = 0; i + 1 < n; i++) /* insertion sort is fine for a folder's listing */
		for (size_t j = i + 1; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *tmp = names[j];
			names[j] = names[j - 1];
			names[j - 1] = tmp;
		}
	for (size_t k = 0; k < n; k++) {
		const char *name = names[k];
		char *child_rel = *rel ? sw__asprintf("%s/%s", rel, name) : sw__strdup(name);
		char *child_abs = sw__path_join(abs, name);
		if (!child_rel || !child_abs) {
			w->failed = true;
			goto next;
		}
		struct stat st;
		if (!sw__utf8_valid(name, strlen(name))) {
			sw__scan_note(s, "bad-file-name", child_rel,
			              "file or folder names that are not UTF-8 were skipped (shown escaped)");
			goto next;
		}
		if (lstat(child_abs, &st) != 0)
			goto next;
		if (S_ISLNK(st.st_mode)) {
			struct stat tst;
			if (stat(child_abs, &tst) != 0) {
				sw__scan_note(s, "broken-symlink", child_rel,
				              "symbolic links whose target is missing were skipped");
				goto next;
			}
			if (S_ISDIR(tst.st_mode)) {
				sw__scan_note(s, "symlink-folder-not-followed", child_rel,
				              "symlinked folders are never followed");
				goto next;
			}
			if (!S_ISREG(tst.st_mode))
				goto next;
			char *real = realpath(child_abs, NULL);
			if (!real || strncmp(real, s->root, s->root_len) || real[s->root_len] != '/') {
				sw__scan_note(s, "symlink-outside-project", child_rel,
				              "symlinked files whose real path is outside the project were not read");
				free(real);
				goto next;
			}
			s->files_seen++;
			json_object_set_new(s->files, child_rel, json_true());
			ftype t = classify(child_rel, name);
			if (t != F_NONE) {
				if ((uint64_t)tst.st_size > FILE_MAX_BYTES)
					sw__scan_note(s, "file-too-large", child_rel,
					              "files over 2 MB were neither read nor hashed");
				else
					add_work(w, child_rel, real, t);
			}
			free(real);
			goto next;
		}
		if (S_ISDIR(st.st_mode)) {
			if (skip_dir_name(name)) {
				s->folders_skipped++;
				goto next;
			}
			if (depth + 1 > w->max_depth) {
				sw__scan_note(s, "depth-cap", child_rel,
				              "folders deeper than %ld levels were not scanned", w->max_depth);
				goto next;
			}
			walk(w, child_abs, child_rel, depth + 1);
			goto next;
		}
		if (!S_ISREG(st.st_mode))
			goto next;
		if ((long)s->files_seen >= w->max_files) {
			sw__scan_note(s, "file-cap", child_rel, "the scan stopped after %ld files (option maxFiles)",
			              w->max_files);
			w->capped = true;
			goto next;
		}
		s->files_seen++;
		json_object_set_new(s->files, child_rel, json_true());
		ftype t = classify(child_rel, name);
		if (t != F_NONE) {
			if ((uint64_t)st.st_size > FILE_MAX_BYTES)
				sw__scan_note(s, "file-too-large", child_rel,
				              "files over 2 MB were neither read nor hashed");
			else
				add_work(w, child_rel, NULL, t);
		}
	next:
		free(child_rel);
		free(child_abs);
		if (w->capped || w->failed) {
			for (size_t r = k; r < n; r++) /* this name and the ones not walked */
				free(names[r]);
			break;
		}
		free(names[k]);
		names[k] = NULL;
	}
	free(names);
}

/* Reads a project file (rel path) for a rule: regular, at most 2 MB, no NUL in its first 8 KB. */
static int read_rel(sw__scan *s, const char *rel, char **out, size_t *len)
{
	if (s->mem_rel) { /* sw__appscan_buffer: the one file is in memory */
		if (strcmp(rel, s->mem_rel))
			return SW_ENOTFOUND;
		if (s->mem_len > FILE_MAX_BYTES) {
			sw__scan_note(s, "file-too-large", rel, "files over 2 MB were neither read nor hashed");
			return SW_ELIMIT;
		}
		if (memchr(s->mem_text, '\0', s->mem_len < BINARY_PROBE ? s->mem_len : BINARY_PROBE)) {
			sw__scan_note(s, "binary-file", rel,
			              "binary files (a NUL byte in the first 8 KB) were not parsed");
			return SW_EPARSE;
		}
		char *copy = malloc(s->mem_len + 1);
		if (!copy)
			return SW_ENOMEM;
		memcpy(copy, s->mem_text, s->mem_len);
		copy[s->mem_len] = '\0';
		s->files_read++;
		s->bytes_read += s->mem_len;
		*out = copy;
		*len = s->mem_len;
		return SW_OK;
	}
	char *abs = sw__path_join(s->root, rel);
	if (!abs)
		return SW_ENOMEM;
	int fd = open(abs, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	free(abs);
	if (fd < 0)
		return SW_EIO;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return SW_EIO;
	}
	if ((uint64_t)st.st_size > FILE_MAX_BYTES) {
		close(fd);
		sw__scan_note(s, "file-too-large", rel, "files over 2 MB were neither read nor hashed");
		return SW_ELIMIT;
	}
	size_t want = (size_t)st.st_size;
	char *buf = malloc(want + 1);
	if (!buf) {
		close(fd);
		return SW_ENOMEM;
	}
	size_t got = 0;
	while (got < want) {
		ssize_t r = read(fd, buf + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	if (memchr(buf, '\0', got < BINARY_PROBE ? got : BINARY_PROBE)) {
		sw__scan_note(s, "binary-file", rel, "binary files (a NUL byte in the first 8 KB) were not parsed");
		free(buf);
		return SW_EPARSE;
	}
	s->files_read++;
	s->bytes_read += got;
	*out = buf;
	*len = got;
	return SW_OK;
}

/* A symlinked file is read from its real path (already confined by the walk). */
static int read_work(sw__scan *s, const work *k, char **out, size_t *len)
{
	if (!k->real)
		return read_rel(s, k->rel, out, len);
	const char *inside = k->real + s->root_len + 1;
	return read_rel(s, inside, out, len);
}

static int work_cmp(const void *a, const void *b)
{
	const work *x = a, *y = b;
	if (x->order != y->order)
		return x->order - y->order;
	return strcmp(x->rel, y->rel);
}

static const char *lang_name(ftype t)
{
	switch (t) {
	case F_JS: return "js";
	case F_TS: return "ts";
	case F_KOTLIN: return "kotlin";
	case F_JAVA: return "java";
	case F_SWIFT: return "swift";
	case F_DART: return "dart";
	default: return "xml";
	}
}

static void process(sw__scan *s, const work *k)
{
	switch (k->type) {
	case F_MANIFEST: json_array_append_new(s->manifests, json_string(k->rel)); return;
	case F_NAVXML: json_array_append_new(s->navxml, json_string(k->rel)); return;
	case F_STORYBOARD: json_array_append_new(s->storyboards, json_string(k->rel)); return;
	default: break;
	}
	char *text = NULL;
	size_t len = 0;
	if (read_work(s, k, &text, &len) != SW_OK)
		return;
	json_t *idx = NULL;
	if (s->index && k->type >= F_JS && k->type <= F_DART) {
		if (json_array_size(s->index) < INDEX_FILES_MAX) {
			idx = json_pack("{sssss[]}", "path", k->rel, "lang", lang_name(k->type), "symbols");
			json_array_append_new(s->index, idx);
		} else {
			sw__scan_note(s, "code-index-cap", k->rel, "the code index lists at most %d files",
			              INDEX_FILES_MAX);
		}
	}
	sw__toks t;
	switch (k->type) {
	case F_PACKAGE_JSON: sw__scan_package_json(s, k->rel, text, len); break;
	case F_PUBSPEC: sw__scan_pubspec(s, k->rel, text, len); break;
	case F_LAYOUT: sw__scan_layout_xml(s, k->rel, text, len); break;
	case F_GRADLE_SETTINGS:
	case F_GRADLE_BUILD:
		sw__tokenize(sw__str_has_suffix(k->rel, ".kts") ? SW__LANG_KOTLIN : SW__LANG_GROOVY, text, len, &t);
		sw__scan_gradle(s, k->rel, &t);
		sw__toks_free(&t);
		break;
	case F_JS:
	case F_TS:
		sw__tokenize(k->type == F_JS ? SW__LANG_JS : SW__LANG_TS, text, len, &t);
		sw__scan_js(s, k->rel, &t, idx);
		sw__toks_free(&t);
		break;
	case F_KOTLIN:
	case F_JAVA:
		sw__tokenize(k->type == F_KOTLIN ? SW__LANG_KOTLIN : SW__LANG_JAVA, text, len, &t);
		sw__scan_kotlin(s, k->rel, &t, idx, k->type == F_JAVA);
		sw__toks_free(&t);
		break;
	case F_SWIFT:
		sw__tokenize(SW__LANG_SWIFT, text, len, &t);
		sw__scan_swift(s, k->rel, &t, idx);
		sw__toks_free(&t);
		break;
	case F_DART:
		sw__tokenize(SW__LANG_DART, text, len, &t);
		sw__scan_dart(s, k->rel, &t, idx);
		sw__toks_free(&t);
		break;
	default: break;
	}
	free(text);
}

/* ---- resolution and output ---------------------------------------------------- */

/* The value of a constant reference "A.B.C": the full name, then with leading qualifiers dropped. */
static const char *resolve_ref(sw__scan *s, const char *ref)
{
	const char *p = ref;
	while (p) {
		json_t *v = json_object_get(s->consts, p);
		if (json_is_string(v))
			return json_string_value(v);
		if (v) /* ambiguous */
			return NULL;
		p = strchr(p, '.');
		if (p)
			p++;
	}
	return NULL;
}

static const char *router_rank[] = {"expo-router",
                                    "react-navigation",
                                    "compose-navigation",
                                    "navigation3",
                                    "jetpack-navigation",
                                    "go_router",
                                    "flutter-routes",
                                    "auto_route",
                                    "swiftui",
                                    "storyboard",
                                    "uikit",
                                    "android-manifest",
                                    NULL};

void sw__scan_add_source(json_t *sc, const char *file)
{
	json_t *files = json_object_get(sc, "sourceFiles");
	size_t i;
	json_t *v;
	json_array_foreach(files, i, v) if (!strcmp(json_string_value(v), file)) return;
	json_array_append_new(files, json_string(file));
}

/* Resolves names and routes given as constants; answers false when the screen must be dropped. */
static bool resolve_screen(sw__scan *s, json_t *sc)
{
	const char *file = json_string_value(json_object_get(sc, "_file"));
	json_t *ref = json_object_get(sc, "_nameRef");
	if (ref) {
		const char *val = resolve_ref(s, json_string_value(ref));
		if (!val) {
			sw__scan_note(
			    s, "unresolved-screen-name", file,
			    "screen names or routes given as constants that were not found in the project (or defined "
			    "twice with different values) were left out");
			return false;
		}
		const char *field = json_string_value(json_object_get(sc, "_nameField"));
		json_object_set_new(sc, field ? field : "name", json_string(val));
		if (json_is_true(json_object_get(sc, "_routeIsName")))
			json_object_set_new(sc, "route", json_string(val));
		sw__scan_reason(sc, "%s resolved from the constant %s", field ? field : "name", json_string_value(ref));
	}
	json_t *parts = json_object_get(sc, "_pathParts");
	if (parts) {
		sw_buf b = SW_BUF_INIT;
		size_t i;
		json_t *p;
		json_array_foreach(parts, i, p)
		{
			const char *piece = json_string_value(json_object_get(p, "lit"));
			const char *r = json_string_value(json_object_get(p, "ref"));
			if (r) {
				piece = resolve_ref(s, r);
				if (!piece) {
					sw__buf_free(&b);
					sw__scan_note(s, "unresolved-screen-name", file,
					              "screen names or routes given as constants that were not found "
					              "in the project (or "
					              "defined twice with different values) were left out");
					return false;
				}
			}
			if (!piece)
				continue;
			/* go_router: a child path joins its parent's with one '/'; an absolute one stands alone */
			if (piece[0] == '/') {
				b.len = 0;
				sw__buf_puts(&b, piece);
			} else if (*piece) {
				if (!b.len || b.data[b.len - 1] != '/')
					sw__buf_putc(&b, '/');
				sw__buf_puts(&b, piece);
			}
		}
		if (!b.len)
			sw__buf_putc(&b, '/');
		char *route = sw__buf_steal(&b, NULL);
		if (route) {
			if (route[0] != '/') {
				char *abs = sw__asprintf("/%s", route);
				free(route);
				route = abs;
			}
			json_object_set_new(sc, "route", json_string(route));
			if (!json_object_get(sc, "name"))
				json_object_set_new(sc, "name", json_string(route));
		}
		free(route);
	}
	/* the component: the symbol's defining file is a source file too */
	json_t *calls = json_object_get(sc, "_calls");
	if (calls && !json_object_get(sc, "component")) {
		const char *best = NULL;
		size_t i;
		json_t *c;
		json_array_foreach(calls, i, c)
		{
			const char *n = json_string_value(c);
			if (sw__str_has_suffix(n, "Screen") || sw__str_has_suffix(n, "Route") ||
			    sw__str_has_suffix(n, "Page")) {
				best = n;
				break;
			}
		}
		if (!best)
			json_array_foreach(calls, i, c) if (!best && json_object_get(s->symfile, json_string_value(c)))
			    best = json_string_value(c);
		if (best)
			json_object_set_new(sc, "component", json_string(best));
	}
	const char *comp = json_string_value(json_object_get(sc, "component"));
	if (comp) {
		const char *simple = strrchr(comp, '.');
		simple = simple ? simple + 1 : comp;
		const char *def = json_string_value(json_object_get(s->symfile, simple));
		if (def)
			sw__scan_add_source(sc, def);
	}
	if (!json_object_get(sc, "name")) {
		const char *route = json_string_value(json_object_get(sc, "route"));
		json_object_set_new(sc, "name", json_string(comp ? comp : route ? route : "screen"));
	}
	return true;
}

static void judge_auth(sw__scan *s, json_t *sc)
{
	json_t *reasons = json_array();
	char why[160];
	const char *name = json_string_value(json_object_get(sc, "name"));
	const char *route = json_string_value(json_object_get(sc, "route"));
	const char *comp = json_string_value(json_object_get(sc, "component"));
	if (sw__scan_auth_words(name, why, sizeof(why)))
		json_array_append_new(reasons, json_string(why));
	else if (route && sw__scan_auth_words(route, why, sizeof(why)))
		json_array_append_new(reasons, json_sprintf("the route has an auth word (%s)", why));
	else if (comp && sw__scan_auth_words(comp, why, sizeof(why)))
		json_array_append_new(reasons, json_sprintf("the component has an auth word (%s)", why));
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(sc, "sourceFiles"), i, f)
	{
		json_t *m = json_object_get(s->pwfiles, json_string_value(f));
		if (m) {
			json_array_append_new(reasons, json_sprintf("%s has a password field (%s)",
			                                            json_string_value(f), json_string_value(m)));
			break;
		}
	}
	if (json_array_size(reasons))
		json_object_set_new(sc, "auth", json_pack("{sbsO}", "likely", 1, "reasons", reasons));
	json_decref(reasons);
}

static int screen_cmp(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	return strcmp(json_string_value(json_object_get(x, "id")), json_string_value(json_object_get(y, "id")));
}

/* Ids, duplicates merged (same id: one screen, source files and reasons joined), internal fields dropped. */
static json_t *finish_screens(sw__scan *s)
{
	json_t *byid = json_object();
	json_t *out = json_array();
	size_t i;
	json_t *sc;
	json_array_foreach(s->screens, i, sc)
	{
		if (!resolve_screen(s, sc))
			continue;
		const char *router = json_string_value(json_object_get(sc, "router"));
		const char *key = json_string_value(json_object_get(sc, "_key"));
		if (!key)
			key = json_string_value(json_object_get(sc, "route"));
		if (!key)
			key = json_string_value(json_object_get(sc, "name"));
		char *id = sw__asprintf("%s:%s", router, key ? key : "?");
		json_t *old = json_object_get(byid, id);
		if (old) {
			size_t k;
			json_t *f;
			json_array_foreach(json_object_get(sc, "sourceFiles"), k, f)
			    sw__scan_add_source(old, json_string_value(f));
			if (json_real_value(json_object_get(sc, "confidence")) >
			    json_real_value(json_object_get(old, "confidence")))
				json_object_set(old, "confidence", json_object_get(sc, "confidence"));
			json_array_foreach(json_object_get(sc, "reasons"), k, f)
			{
				if (json_array_size(json_object_get(old, "reasons")) < 8)
					json_array_append(json_object_get(old, "reasons"), f);
			}
			free(id);
			continue;
		}
		json_object_set_new(sc, "id", json_string(id));
		json_object_set(byid, id, sc);
		free(id);
		json_array_append(out, sc);
	}
	json_decref(byid);
	json_t *auth_ids = json_array();
	json_array_foreach(out, i, sc)
	{
		/* only files that exist stay; internal fields go */
		json_t *files = json_object_get(sc, "sourceFiles");
		for (size_t k = json_array_size(files); k-- > 0;)
			if (!sw__scan_has_file(s, json_string_value(json_array_get(files, k))))
				json_array_remove(files, k);
		judge_auth(s, sc);
		if (json_object_get(sc, "auth"))
			json_array_append(auth_ids, json_object_get(sc, "id"));
		const char *key;
		json_t *v;
		void *tmp;
		json_object_foreach_safe(sc, tmp, key, v) if (key[0] == '_') json_object_del(sc, key);
	}
	/* sort by id: the same tree gives the same output */
	size_t n = json_array_size(out);
	json_t **v = calloc(n ? n : 1, sizeof(*v));
	if (v) {
		for (size_t k = 0; k < n; k++)
			v[k] = json_incref(json_array_get(out, k));
		qsort(v, n, sizeof(*v), screen_cmp);
		json_array_clear(out);
		for (size_t k = 0; k < n; k++)
			json_array_append_new(out, v[k]);
		free(v);
	}
	json_t *ret = json_pack("{soso}", "screens", out, "authIds", auth_ids);
	return ret;
}

static void scan_init(sw__scan *s, char *real)
{
	memset(s, 0, sizeof(*s));
	s->root = real;
	s->root_len = strlen(real);
	if (s->root_len == 1) /* "/" itself */
		s->root_len = 0;
	s->files = json_object();

	s->screens = json_array();
	s->layouts = json_array();
	s->graphs = json_array();
	s->edges = json_array();
	s->deeplinks = json_array();
	s->notes = json_object();
	s->consts = json_object();
	s->symfile = json_object();
	s->supers = json_object();
	s->pwfiles = json_object();
	s->authlibs = json_array();
	s->expo_apps = json_array();
	s->gradle = json_object();
	s->namespaces = json_object();
	s->manifests = json_array();
	s->navxml = json_array();
	s->storyboards = json_array();
	s->swift_uses = json_object();
	s->swift_views = json_object();
	s->swift_vcs = json_object();
	s->jsinfo = json_object();
	s->kotlin_objs = json_array();
	s->class_params = json_object();
	s->layoutrefs = json_object();
}

/* Rules that need the whole tree, then the staticTopology object (transfer full). */
static json_t *scan_result(sw__scan *s, const char *fw, int64_t t0, json_t *project)
{
	sw__scan_expo_routes(s);
	sw__scan_android_finish(s, read_rel);
	sw__scan_apple_finish(s, read_rel);
	json_t *fin = finish_screens(s);
	json_t *screens = json_object_get(fin, "screens");
	/* the monorepo app each screen belongs to (sw_project_detect's app paths), or "." for a one-app root */
	json_t *apps = json_object_get(json_object_get(project, "monorepo"), "apps");
	const char *app_root = json_string_value(json_object_get(project, "appRoot"));
	size_t si;
	json_t *sc;
	json_array_foreach(screens, si, sc)
	{
		if (json_object_get(sc, "app"))
			continue;
		const char *first = json_string_value(json_array_get(json_object_get(sc, "sourceFiles"), 0));
		const char *best = NULL;
		size_t best_len = 0, ai;
		json_t *app;
		json_array_foreach(apps, ai, app)
		{
			const char *ap = json_string_value(json_object_get(app, "path"));
			size_t n = ap ? strlen(ap) : 0;
			if (first && n > best_len && !strncmp(first, ap, n) && first[n] == '/') {
				best = ap;
				best_len = n;
			}
		}
		if (!best && app_root && !strcmp(app_root, "."))
			best = ".";
		if (best)
			json_object_set_new(sc, "app", json_string(best));
	}
	/* routers by screens found, best first */
	json_t *routers = json_array();
	const char *router = "none";
	size_t best = 0;
	for (const char *const *r = router_rank; *r; r++) {
		size_t count = 0, i;
		json_t *x;
		json_array_foreach(screens, i, x) if (!strcmp(json_string_value(json_object_get(x, "router")), *r))
		    count++;
		if (count) {
			json_array_append_new(routers, json_string(*r));
			if (count > best) {
				best = count;
				router = *r;
			}
		}
	}
	if (!json_array_size(screens))
		sw__scan_note(s, "no-router-found", NULL,
		              "no screen was found in the source (no known router, navigator, manifest or storyboard)");

	json_t *notes = json_array();
	const char *key;
	json_t *v;
	json_object_foreach(s->notes, key, v) json_array_append(notes, v);
	json_t *pw = json_array();
	json_object_foreach(s->pwfiles, key, v)
	    json_array_append_new(pw, json_pack("{ssso}", "file", key, "marker", json_incref(v)));

	json_t *res = json_object();
	json_object_set_new(res, "framework", json_string(fw ? fw : "unknown"));
	json_object_set_new(res, "router", json_string(router));
	json_object_set_new(res, "routers", routers);
	json_object_set(res, "screens", screens);
	json_object_set(res, "layouts", s->layouts);
	json_object_set(res, "graphs", s->graphs);
	json_object_set(res, "edges", s->edges);
	json_object_set(res, "deepLinks", s->deeplinks);
	json_object_set_new(res, "auth",
	                    json_pack("{sOsOso}", "screens", json_object_get(fin, "authIds"), "libraries", s->authlibs,
	                              "passwordFields", pw));
	json_object_set_new(res, "parserNotes", notes);
	if (s->index)
		json_object_set_new(res, "codeIndex",
		                    json_pack("{sOsb}", "files", s->index, "truncated",
		                              json_object_get(s->notes, "code-index-cap") != NULL));
	json_object_set_new(res, "stats",
	                    json_pack("{sIsIsIsIsIsI}", "filesSeen", (json_int_t)s->files_seen, "filesRead",
	                              (json_int_t)s->files_read, "filesNotRead",
	                              (json_int_t)(s->files_seen - s->files_read), "bytesRead",
	                              (json_int_t)s->bytes_read, "foldersSkipped", (json_int_t)s->folders_skipped, "ms",
	                              (json_int_t)(sw_monotonic_ms() - t0)));
	json_decref(fin);
	return res;
}

static const sw__opt OPTS[] = {
    {"maxFiles", SW__OPT_INTEGER, false},
    {"maxDepth", SW__OPT_INTEGER, false},
    {"codeIndex", SW__OPT_BOOL, false},
    {"project", SW__OPT_OBJECT, true},
    {NULL, 0, false},
};

static void scan_free(sw__scan *s)
{
	free(s->root);
	json_t **all[] = {&s->files,       &s->screens,   &s->layouts, &s->graphs,      &s->edges,
	                  &s->deeplinks,   &s->notes,     &s->consts,  &s->symfile,     &s->supers,
	                  &s->pwfiles,     &s->authlibs,  &s->index,   &s->expo_apps,   &s->gradle,
	                  &s->namespaces,  &s->manifests, &s->navxml,  &s->storyboards, &s->swift_uses,
	                  &s->swift_views, &s->swift_vcs, &s->jsinfo,  &s->kotlin_objs, &s->class_params,
	                  &s->layoutrefs};
	for (size_t i = 0; i < SW_ARRAY_SIZE(all); i++) {
		json_decref(*all[i]);
		*all[i] = NULL;
	}
}

int sw_appscan_static(const char *root, const char *options_json, char **out_json, sw_error **err)
{
	if (!root || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_appscan_static: root and out_json are required");
	if (root[0] != '/')
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass an absolute path.",
		                     "the project root '%s' is not an absolute path", root);
	json_t *opts = NULL;
	int rc = sw__options_load(options_json, OPTS, "sw_appscan_static options", &opts, err);
	if (rc != SW_OK)
		return rc;
	char *real = realpath(root, NULL);
	struct stat st;
	if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass an existing project folder.",
		                     "the project root '%s' is not an existing folder", root);
	}
	int64_t t0 = sw_monotonic_ms();
	sw__scan s;
	scan_init(&s, real);
	json_t *want_index = json_object_get(opts, "codeIndex");
	if (!want_index || json_is_true(want_index))
		s.index = json_array();

	walker w = {&s, NULL, 0, 0, 50000, 32, false, false};
	json_t *mf = json_object_get(opts, "maxFiles"), *md = json_object_get(opts, "maxDepth");
	if (mf)
		w.max_files = (long)json_integer_value(mf);
	if (md)
		w.max_depth = (long)json_integer_value(md);
	if (w.max_files < 1 || w.max_depth < 1) {
		scan_free(&s);
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "maxFiles and maxDepth must be at least 1");
	}
	walk(&w, s.root_len ? s.root : "/", "", 0);
	if (w.failed) {
		for (size_t i = 0; i < w.n; i++)
			free(w.v[i].rel), free(w.v[i].real);
		free(w.v);
		scan_free(&s);
		json_decref(opts);
		return sw__error_nomem(err);
	}
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), work_cmp);
	for (size_t i = 0; i < w.n; i++) {
		process(&s, &w.v[i]);
		free(w.v[i].rel);
		free(w.v[i].real);
	}
	free(w.v);

	/* the project's framework: the caller's detection, or the one detector's */
	json_t *project = json_incref(json_object_get(opts, "project"));
	if (!project || json_is_null(project)) {
		json_decref(project);
		project = NULL;
		char *pj = NULL;
		if (sw_project_detect(s.root_len ? s.root : "/", &pj, NULL) == SW_OK)
			project = json_loads(pj, 0, NULL);
		sw_free(pj);
	}
	const char *fw = json_string_value(json_object_get(project, "appFramework"));
	if (!fw)
		fw = json_string_value(json_object_get(project, "framework"));

	json_t *res = scan_result(&s, fw, t0, project);
	char *text = sw__json_compact(res);
	json_decref(res);
	json_decref(project);
	json_decref(opts);
	scan_free(&s);
	if (!text)
		return sw__error_nomem(err);
	*out_json = text;
	return SW_OK;
}

int sw__appscan_buffer(const char *rel, const char *text, size_t len, char **out_json)
{
	sw__scan s;
	char *root = sw__strdup("/nonexistent-sw-appscan-buffer");
	if (!root)
		return SW_ENOMEM;
	scan_init(&s, root);
	s.index = json_array();
	s.mem_rel = rel;
	s.mem_text = text;
	s.mem_len = len;
	const char *name = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	s.files_seen = 1;
	json_object_set_new(s.files, rel, json_true());
	work k = {(char *)rel, NULL, classify(rel, name), 0};
	if (k.type != F_NONE)
		process(&s, &k);
	json_t *res = scan_result(&s, "unknown", sw_monotonic_ms(), NULL);
	char *textout = sw__json_compact(res);
	json_decref(res);
	scan_free(&s);
	if (!textout)
		return SW_ENOMEM;
	*out_json = textout;
	return SW_OK;
}
