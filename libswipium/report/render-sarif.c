/* render-sarif.c: the SARIF 2.1.0 export: results anchored to project files, stable fingerprints, catalog rules. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog-internal.h"
#include "report-internal.h"

#define APP_MAP_MAX_BYTES (64u * 1024u * 1024u)

struct sw__sarif_sources {
	char *prefix;        /* monorepo prefix, "" or "apps/mobile/" */
	char *default_uri;   /* prefixed */
	json_t *by_screen;   /* lower-cased screen -> prefixed uri */
	json_t *by_workflow; /* lower-cased workflow -> prefixed uri */
};

char *sw__git_prefix(const char *root)
{
	char *dir = sw__path_resolve(NULL, root);
	if (!dir)
		return NULL;
	size_t len = strlen(dir), end = len;
	char *prefix = NULL;
	/* Walk up from the root; the first directory holding `.git` (dir or file) is the repository top. */
	for (;;) {
		char *probe = end == 0 ? sw__strdup("/.git") : sw__asprintf("%.*s/.git", (int)end, dir);
		struct stat st;
		bool found = probe && stat(probe, &st) == 0;
		free(probe);
		if (found) {
			prefix = end >= len ? sw__strdup("") : sw__asprintf("%s/", dir + end + 1);
			break;
		}
		if (end == 0 || len == 1)
			break;
		while (end > 0 && dir[end - 1] != '/')
			end--;
		if (end > 0)
			end--;
	}
	if (!prefix)
		prefix = sw__strdup("");
	free(dir);
	return prefix;
}

/* A relative path without ".." segments that names an existing regular file under @root. */
static bool usable_source(const char *root, const char *rel, size_t len)
{
	if (len == 0 || rel[0] == '/' || memchr(rel, '\0', len) || memchr(rel, '\\', len))
		return false;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && rel[j] != '/')
			j++;
		if (j - i == 2 && rel[i] == '.' && rel[i + 1] == '.')
			return false;
		i = j + 1;
	}
	char *p = sw__path_join(root, rel);
	bool ok = p && sw__is_file(p);
	free(p);
	return ok;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The first `<dir>/Info.plist` among the sorted child directories of @base (relative @rel_base). */
static char *find_info_plist(const char *root, const char *rel_base)
{
	char *base = rel_base[0] ? sw__path_join(root, rel_base) : sw__strdup(root);
	DIR *d = base ? opendir(base) : NULL;
	char **names = NULL, *found = NULL;
	size_t n = 0, cap = 0;
	if (!d)
		goto out;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "node_modules") || !strcmp(de->d_name, "Pods"))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **nn = realloc(names, nc * sizeof(*nn));
			if (!nn)
				break;
			names = nn, cap = nc;
		}
		if (!(names[n] = sw__strdup(de->d_name)))
			break;
		n++;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n && !found; i++) {
		char *rel = rel_base[0] ? sw__asprintf("%s/%s/Info.plist", rel_base, names[i])
		                        : sw__asprintf("%s/Info.plist", names[i]);
		if (rel && usable_source(root, rel, strlen(rel)))
			found = rel;
		else
			free(rel);
	}
out:
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(base);
	return found;
}

static char *default_source(const char *root)
{
	static const char *const fixed[] = {"app.json",
	                                    "package.json",
	                                    "pubspec.yaml",
	                                    "android/app/build.gradle.kts",
	                                    "android/app/build.gradle",
	                                    "app/build.gradle.kts",
	                                    "app/build.gradle"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(fixed); i++)
		if (usable_source(root, fixed[i], strlen(fixed[i])))
			return sw__strdup(fixed[i]);
	char *plist = find_info_plist(root, "ios");
	if (!plist)
		plist = find_info_plist(root, "");
	if (plist)
		return plist;
	if (usable_source(root, "README.md", 9))
		return sw__strdup("README.md");
	return sw__strdup("package.json");
}

/* The first usable entry of sourceFiles, or NULL. */
static const json_t *first_source(const char *root, const json_t *node)
{
	const json_t *files = sw__js_get(node, "sourceFiles");
	for (size_t i = 0; i < sw__js_array_len(files); i++) {
		const json_t *f = json_array_get(files, i);
		if (json_is_string(f) && usable_source(root, json_string_value(f), json_string_length(f)))
			return f;
	}
	return NULL;
}

static bool lower_eq(const json_t *v, const char *lower)
{
	if (!json_is_string(v))
		return false;
	sw_buf l = SW_BUF_INIT;
	sw__js_lower(&l, json_string_value(v), json_string_length(v));
	bool eq = l.len == strlen(lower) && (l.len == 0 || memcmp(l.data, lower, l.len) == 0);
	sw__buf_free(&l);
	return eq;
}

static void put_uri(json_t *map, const char *key, const char *prefix, const json_t *rel)
{
	char *u = sw__asprintf("%s%s", prefix, json_string_value(rel));
	if (u)
		json_object_set_new(map, key, json_string(u));
	free(u);
}

static const json_t *match_node(const json_t *list, const char *lower, const char *const *keys, size_t nkeys)
{
	for (size_t i = 0; i < sw__js_array_len(list); i++) {
		const json_t *node = json_array_get(list, i);
		for (size_t k = 0; k < nkeys; k++)
			if (lower_eq(sw__js_get(node, keys[k]), lower))
				return node;
	}
	return NULL;
}

sw__sarif_sources *sw__sarif_sources_new(const char *project_root, const json_t *report)
{
	sw__sarif_sources *s = calloc(1, sizeof(*s));
	json_t *map = NULL;
	if (!s)
		return NULL;
	s->by_screen = json_object();
	s->by_workflow = json_object();
	/* Without a project root nothing is read from disk: no prefix, the manifest fallback. */
	const char *root = project_root;
	s->prefix = root ? sw__git_prefix(root) : sw__strdup("");
	char *def = root ? default_source(root) : sw__strdup("package.json");
	if (!s->by_screen || !s->by_workflow || !s->prefix || !def) {
		free(def);
		sw__sarif_sources_free(s);
		return NULL;
	}
	s->default_uri = sw__asprintf("%s%s", s->prefix, def);
	free(def);

	char *path = root ? sw__path_join(root, ".swipium/app-map.json") : NULL;
	char *data = NULL, *msg = NULL;
	size_t len = 0;
	if (path && sw__read_file(path, APP_MAP_MAX_BYTES, &data, &len, NULL) == SW_OK)
		map = sw__report_parse_json(data, len, &msg);
	free(path);
	free(data);
	free(msg);
	if (map) {
		const json_t *topo = sw__js_get(map, "staticTopology");
		const json_t *screens = sw__js_get(topo, "screens");
		const json_t *features = sw__js_get(map, "features");
		if (!json_is_array(features))
			features = sw__js_get(topo, "features");
		static const char *const screen_keys[] = {"id", "name", "route"};
		static const char *const screen_wf_keys[] = {"name", "id"};
		static const char *const feature_keys[] = {"title", "id"};
		const json_t *findings = sw__js_get(report, "findings");
		for (size_t i = 0; i < sw__js_array_len(findings); i++) {
			const json_t *scr = sw__js_get(json_array_get(findings, i), "screen");
			if (!json_is_string(scr))
				continue;
			sw_buf l = SW_BUF_INIT;
			sw__js_lower(&l, json_string_value(scr), json_string_length(scr));
			if (l.len && !memchr(l.data, '\0', l.len) && !json_object_get(s->by_screen, l.data)) {
				const json_t *node = match_node(screens, l.data, screen_keys, 3);
				const json_t *src = node ? first_source(root, node) : NULL;
				if (src)
					put_uri(s->by_screen, l.data, s->prefix, src);
			}
			sw__buf_free(&l);
		}
		const json_t *outcomes = sw__js_get(report, "testOutcomes");
		for (size_t i = 0; i < sw__js_array_len(outcomes); i++) {
			const json_t *wf = sw__js_get(json_array_get(outcomes, i), "workflow");
			if (!json_is_string(wf))
				continue;
			sw_buf l = SW_BUF_INIT;
			sw__js_lower(&l, json_string_value(wf), json_string_length(wf));
			if (l.len && !memchr(l.data, '\0', l.len) && !json_object_get(s->by_workflow, l.data)) {
				const json_t *node = match_node(features, l.data, feature_keys, 2);
				const json_t *src = node ? first_source(root, node) : NULL;
				if (!src) {
					node = match_node(screens, l.data, screen_wf_keys, 2);
					src = node ? first_source(root, node) : NULL;
				}
				if (src)
					put_uri(s->by_workflow, l.data, s->prefix, src);
			}
			sw__buf_free(&l);
		}
		json_decref(map);
	}
	if (!s->default_uri) {
		sw__sarif_sources_free(s);
		return NULL;
	}
	return s;
}

void sw__sarif_sources_free(sw__sarif_sources *s)
{
	if (!s)
		return;
	free(s->prefix);
	free(s->default_uri);
	json_decref(s->by_screen);
	json_decref(s->by_workflow);
	free(s);
}

static const char *lookup(const json_t *map, const char *key, const char *def)
{
	const json_t *v = key ? json_object_get(map, key) : NULL;
	return v ? json_string_value(v) : def;
}

const char *sw__sarif_anchor_screen(const sw__sarif_sources *s, const char *lower_screen)
{
	return lookup(s->by_screen, lower_screen, s->default_uri);
}

const char *sw__sarif_anchor_workflow(const sw__sarif_sources *s, const char *lower_workflow)
{
	return lookup(s->by_workflow, lower_workflow, s->default_uri);
}

/* ---- the document ------------------------------------------------------ */

/* ---- the document ------------------------------------------------------ */

static void kv_str(sw__jw *w, const char *key, const char *s, size_t len)
{
	sw__jw_key(w, key);
	sw__jw_str(w, s, len);
}

static void kv_cstr(sw__jw *w, const char *key, const char *s)
{
	kv_str(w, key, s, strlen(s));
}

static void kv_buf(sw__jw *w, const char *key, const sw_buf *b)
{
	kv_str(w, key, sw__buf_cstr(b), b->len);
}

/* `key: value` when the report has the key (null included, undefined left out, as JSON.stringify does). */
static void kv_if(sw__jw *w, const char *key, const json_t *v)
{
	if (!v)
		return;
	sw__jw_key(w, key);
	sw__jw_value(w, v);
}

static void str_js(sw__jw *w, const json_t *v)
{
	sw_buf b = sw__js_string_buf(v);
	sw__jw_str(w, sw__buf_cstr(&b), b.len);
	sw__buf_free(&b);
}

/*
 * A SARIF artifactLocation.uri must be a valid RFC 3986 URI reference. Report URIs come from untrusted
 * reports and project file names, so every byte outside the characters RFC 3986 allows (spaces, brackets,
 * quotes, control and non-ASCII bytes, a '%' that starts no escape) is percent-encoded; a valid URI passes
 * through unchanged.
 */
static void uri_escape(sw_buf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			    (c && strchr("-._~:/?#@!$&'()*+,;=", c));
		if (c == '%' && i + 2 < len && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2]))
			keep = true;
		if (keep) {
			sw__buf_putc(out, (char)c);
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			sw__buf_append(out, e, 3);
		}
	}
}

static void kv_uri(sw__jw *w, const char *key, const char *s, size_t len)
{
	sw_buf b = SW_BUF_INIT;
	uri_escape(&b, s, len);
	kv_str(w, key, sw__buf_cstr(&b), b.len);
	sw__buf_free(&b);
}

static void anchor(sw__jw *w, const char *uri)
{
	sw__jw_key(w, "locations");
	sw__jw_open(w, '[');
	sw__jw_open(w, '{');
	sw__jw_key(w, "physicalLocation");
	sw__jw_open(w, '{');
	sw__jw_key(w, "artifactLocation");
	sw__jw_open(w, '{');
	kv_uri(w, "uri", uri, strlen(uri));
	kv_cstr(w, "uriBaseId", "%SRCROOT%");
	sw__jw_close(w, '}');
	sw__jw_key(w, "region");
	sw__jw_open(w, '{');
	sw__jw_key(w, "startLine");
	sw__jw_raw(w, "1");
	sw__jw_key(w, "startColumn");
	sw__jw_raw(w, "1");
	sw__jw_key(w, "endLine");
	sw__jw_raw(w, "1");
	sw__jw_key(w, "endColumn");
	sw__jw_raw(w, "2");
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
	sw__jw_close(w, ']');
}

static void related(sw__jw *w, const json_t *uri, int id)
{
	char num[16];
	snprintf(num, sizeof(num), "%d", id);
	sw__jw_open(w, '{');
	sw__jw_key(w, "id");
	sw__jw_raw(w, num);
	sw__jw_key(w, "physicalLocation");
	sw__jw_open(w, '{');
	sw__jw_key(w, "artifactLocation");
	sw__jw_open(w, '{');
	sw_buf text = sw__js_string_buf(uri);
	kv_uri(w, "uri", sw__buf_cstr(&text), text.len);
	sw__buf_free(&text);
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
	sw__jw_key(w, "message");
	sw__jw_open(w, '{');
	kv_cstr(w, "text", "Swipium evidence artifact (resolve with qa_get_artifact)");
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
}

/* Counts occurrences of each base hash and writes partialFingerprints. */
static void fingerprints(sw__jw *w, json_t *seen, const sw__str *parts, size_t n)
{
	char base[17], fp[48];
	sw__stable_hash(parts, n, base);
	json_t *cur = json_object_get(seen, base);
	json_int_t count = (cur ? json_integer_value(cur) : 0) + 1;
	if (cur)
		json_integer_set(cur, count);
	else
		json_object_set_new(seen, base, json_integer(count));
	snprintf(fp, sizeof(fp), "%s:%lld", base, (long long)count);
	sw__jw_key(w, "partialFingerprints");
	sw__jw_open(w, '{');
	kv_cstr(w, "primaryLocationLineHash", fp);
	kv_cstr(w, "swipium/v1", fp);
	sw__jw_close(w, '}');
}

static void clip_into(sw_buf *b, const char *s, size_t len)
{
	sw__clip(b, s, len, 1024);
}

static void text_obj(sw__jw *w, const char *key, const sw_buf *text)
{
	sw__jw_key(w, key);
	sw__jw_open(w, '{');
	kv_buf(w, "text", text);
	sw__jw_close(w, '}');
}

static void rule(sw__jw *w, const char *id, size_t id_len)
{
	const sw__catalog_entry *e = sw__catalog_find(id, id_len);
	sw_buf sd = SW_BUF_INIT, fd = SW_BUF_INIT, raw = SW_BUF_INIT;
	const char *help;
	if (e) {
		clip_into(&sd, e->summary, strlen(e->summary));
		sw__buf_printf(&raw, "%s. Bucket: %s.", e->summary, e->bucket);
		help = e->recovery;
	} else {
		sw_buf spaced = SW_BUF_INIT;
		sw__buf_puts(&raw, "Swipium ");
		for (size_t i = 0; i < id_len; i++)
			sw__buf_putc(&spaced, id[i] == '_' ? ' ' : id[i]);
		sw__js_lower(&raw, sw__buf_cstr(&spaced), spaced.len);
		sw__buf_free(&spaced);
		clip_into(&sd, sw__buf_cstr(&raw), raw.len);
		raw.len = 0;
		sw__buf_puts(&raw, "Swipium mobile QA result \"");
		sw__buf_append(&raw, id, id_len);
		sw__buf_puts(&raw, "\" observed on a device run.");
		help = "Open the linked Swipium evidence (screenshots, logs) for this run and reproduce on a device.";
	}
	clip_into(&fd, sw__buf_cstr(&raw), raw.len);
	sw__jw_open(w, '{');
	kv_str(w, "id", id, id_len);
	kv_str(w, "name", id, id_len);
	text_obj(w, "shortDescription", &sd);
	text_obj(w, "fullDescription", &fd);
	sw__jw_key(w, "help");
	sw__jw_open(w, '{');
	kv_cstr(w, "text", help);
	kv_cstr(w, "markdown", help);
	sw__jw_close(w, '}');
	sw__jw_key(w, "properties");
	sw__jw_open(w, '{');
	sw__jw_key(w, "tags");
	sw__jw_open(w, '[');
	sw__jw_str(w, "swipium", 7);
	sw__jw_str(w, "mobile-qa", 9);
	if (e)
		sw__jw_str(w, e->bucket, strlen(e->bucket));
	sw__jw_close(w, ']');
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
	sw__buf_free(&sd);
	sw__buf_free(&fd);
	sw__buf_free(&raw);
}

static void finding_rule_id(sw_buf *id, const json_t *f)
{
	sw__js_string(id, sw__js_coalesce(sw__js_get(f, "failureCode"), sw__js_get(f, "kind")));
}

static void workflow_rule_id(sw_buf *id, const json_t *o)
{
	const json_t *code = sw__outcome_step_code(o);
	if (!code)
		code = sw__js_get(o, "category");
	if (sw__js_nullish(code))
		sw__buf_puts(id, "WORKFLOW_FAILED");
	else
		sw__js_string(id, code);
}

static const char *usable_key(const sw_buf *lower)
{
	return lower->len && !memchr(lower->data, '\0', lower->len) ? lower->data : NULL;
}

static void finding_result(sw__jw *w, const json_t *f, const sw__sarif_sources *src, json_t *seen)
{
	const json_t *kind = sw__js_get(f, "kind");
	const json_t *sev = sw__js_get(f, "severity");
	const json_t *screen = sw__js_get(f, "screen");
	const json_t *shot = sw__js_get(f, "screenshotUri");
	const json_t *detail = sw__js_get(f, "detail");
	sw_buf id = SW_BUF_INIT, msg = SW_BUF_INIT, kind_s = sw__js_string_buf(kind), screen_s = SW_BUF_INIT,
	       detail_s = SW_BUF_INIT, screen_l = SW_BUF_INIT;
	finding_rule_id(&id, f);
	sw__finding_text(&msg, f);
	if (!sw__js_nullish(screen))
		sw__js_string(&screen_s, screen);
	sw__js_lower(&screen_l, sw__buf_cstr(&screen_s), screen_s.len);
	if (!sw__js_nullish(detail))
		sw__js_string(&detail_s, detail);
	sw__str parts[4] = {{sw__buf_cstr(&id), id.len},
	                    {sw__buf_cstr(&kind_s), kind_s.len},
	                    {sw__buf_cstr(&screen_s), screen_s.len},
	                    {sw__buf_cstr(&detail_s), detail_s.len}};
	const char *level = sw__js_is(sev, "high") ? "error" : sw__js_is(sev, "medium") ? "warning" : "note";
	sw__jw_open(w, '{');
	kv_buf(w, "ruleId", &id);
	kv_cstr(w, "level", level);
	text_obj(w, "message", &msg);
	anchor(w, sw__sarif_anchor_screen(src, usable_key(&screen_l)));
	fingerprints(w, seen, parts, 4);
	bool has_shot = sw__js_truthy(shot);
	if (has_shot) {
		sw__jw_key(w, "relatedLocations");
		sw__jw_open(w, '[');
		related(w, shot, 1);
		sw__jw_close(w, ']');
	}
	sw__jw_key(w, "properties");
	sw__jw_open(w, '{');
	kv_if(w, "severity", sev);
	kv_if(w, "layer", sw__js_get(f, "layer"));
	kv_if(w, "bucket", sw__js_get(f, "bucket"));
	kv_if(w, "screen", screen);
	kv_if(w, "retrySafe", sw__js_get(f, "retrySafe"));
	if (has_shot) {
		sw__jw_key(w, "evidenceUris");
		sw__jw_open(w, '[');
		str_js(w, shot);
		sw__jw_close(w, ']');
	}
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
	sw__buf_free(&id);
	sw__buf_free(&msg);
	sw__buf_free(&kind_s);
	sw__buf_free(&screen_s);
	sw__buf_free(&detail_s);
	sw__buf_free(&screen_l);
}

static void workflow_result(sw__jw *w, const json_t *o, const sw__sarif_sources *src, json_t *seen)
{
	const json_t *wf = sw__js_get(o, "workflow");
	sw_buf id = SW_BUF_INIT, wf_s = sw__js_string_buf(wf), msg = SW_BUF_INIT, wf_l = SW_BUF_INIT;
	workflow_rule_id(&id, o);
	sw__buf_append(&msg, wf_s.data, wf_s.len);
	sw__buf_puts(&msg, ": ");
	bool any = false;
	static const char *const keys[] = {"reason", "missingPrecondition"};
	for (size_t i = 0; i < 2; i++) {
		const json_t *v = sw__js_get(o, keys[i]);
		if (!sw__js_truthy(v))
			continue;
		if (any)
			sw__buf_puts(&msg, "; ");
		sw__js_string(&msg, v);
		any = true;
	}
	if (!any)
		sw__buf_puts(&msg, "workflow failed");
	sw__js_lower(&wf_l, sw__buf_cstr(&wf_s), wf_s.len);
	sw__str parts[3] = {{sw__buf_cstr(&id), id.len}, {"workflow", 8}, {sw__buf_cstr(&wf_s), wf_s.len}};
	sw__jw_open(w, '{');
	kv_buf(w, "ruleId", &id);
	kv_cstr(w, "level", "error");
	text_obj(w, "message", &msg);
	anchor(w, sw__sarif_anchor_workflow(src, usable_key(&wf_l)));
	fingerprints(w, seen, parts, 3);
	const json_t *uris = sw__js_get(o, "artifactUris");
	size_t n = sw__js_array_len(uris);
	if (n) {
		sw__jw_key(w, "relatedLocations");
		sw__jw_open(w, '[');
		for (size_t i = 0; i < n; i++)
			related(w, json_array_get(uris, i), (int)(i + 1));
		sw__jw_close(w, ']');
	}
	sw__jw_key(w, "properties");
	sw__jw_open(w, '{');
	kv_if(w, "workflow", wf);
	kv_if(w, "outcome", sw__js_get(o, "outcome"));
	kv_if(w, "category", sw__js_get(o, "category"));
	if (n) {
		sw__jw_key(w, "evidenceUris");
		sw__jw_open(w, '[');
		for (size_t i = 0; i < n; i++)
			str_js(w, json_array_get(uris, i));
		sw__jw_close(w, ']');
	}
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
	sw__buf_free(&id);
	sw__buf_free(&wf_s);
	sw__buf_free(&msg);
	sw__buf_free(&wf_l);
}

char *sw__render_sarif(const json_t *r, const json_t *gate, const char *project_root, size_t *len)
{
	sw__sarif_sources *src = sw__sarif_sources_new(project_root, r);
	json_t *rule_seen = json_object(), *rule_ids = json_array(), *fp_seen = json_object();
	sw__jw *w = malloc(sizeof(*w));
	sw_buf b = SW_BUF_INIT, auto_id = SW_BUF_INIT;
	char *out = NULL;
	if (!src || !rule_seen || !rule_ids || !fp_seen || !w)
		goto done;
	const json_t *findings = sw__js_get(r, "findings");
	const json_t *outcomes = sw__js_get(r, "testOutcomes");
	size_t nf = sw__js_array_len(findings), no = sw__js_array_len(outcomes);

	/* Rules come first in the document, in the order their results appear. */
	for (size_t i = 0; i < nf + no; i++) {
		sw_buf id = SW_BUF_INIT;
		if (i < nf) {
			finding_rule_id(&id, json_array_get(findings, i));
		} else {
			const json_t *o = json_array_get(outcomes, i - nf);
			if (!sw__js_is(sw__js_get(o, "outcome"), "fail")) {
				sw__buf_free(&id);
				continue;
			}
			workflow_rule_id(&id, o);
		}
		if (!json_object_getn(rule_seen, sw__buf_cstr(&id), id.len)) {
			json_object_setn_new(rule_seen, sw__buf_cstr(&id), id.len, json_true());
			json_array_append_new(rule_ids, json_stringn_nocheck(sw__buf_cstr(&id), id.len));
		}
		sw__buf_free(&id);
	}

	sw__jw_init(w, &b);
	sw__jw_open(w, '{');
	kv_cstr(w, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	kv_cstr(w, "version", "2.1.0");
	sw__jw_key(w, "runs");
	sw__jw_open(w, '[');
	sw__jw_open(w, '{');
	sw__jw_key(w, "tool");
	sw__jw_open(w, '{');
	sw__jw_key(w, "driver");
	sw__jw_open(w, '{');
	kv_cstr(w, "name", "swipium");
	kv_cstr(w, "informationUri", "https://github.com/GeroPalombo/swipium");
	sw__jw_key(w, "rules");
	sw__jw_open(w, '[');
	for (size_t i = 0; i < json_array_size(rule_ids); i++) {
		const json_t *id = json_array_get(rule_ids, i);
		rule(w, json_string_value(id), json_string_length(id));
	}
	sw__jw_close(w, ']');
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');

	const json_t *app = sw__js_get(r, "appId");
	sw__buf_puts(&auto_id, "swipium/");
	if (sw__js_nullish(app))
		sw__buf_puts(&auto_id, "app");
	else
		sw__js_string(&auto_id, app);
	sw__buf_putc(&auto_id, '/');
	sw__jw_key(w, "automationDetails");
	sw__jw_open(w, '{');
	kv_buf(w, "id", &auto_id);
	sw__jw_close(w, '}');
	sw__jw_key(w, "originalUriBaseIds");
	sw__jw_open(w, '{');
	sw__jw_key(w, "%SRCROOT%");
	sw__jw_open(w, '{');
	sw__jw_key(w, "description");
	sw__jw_open(w, '{');
	kv_cstr(w, "text", "The project root Swipium ran against (repository checkout root in CI).");
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
	sw__jw_key(w, "invocations");
	sw__jw_open(w, '[');
	sw__jw_open(w, '{');
	sw__jw_key(w, "executionSuccessful");
	sw__jw_raw(w, "true");
	sw__jw_close(w, '}');
	sw__jw_close(w, ']');

	sw__jw_key(w, "results");
	sw__jw_open(w, '[');
	for (size_t i = 0; i < nf; i++)
		finding_result(w, json_array_get(findings, i), src, fp_seen);
	for (size_t i = 0; i < no; i++) {
		const json_t *o = json_array_get(outcomes, i);
		if (sw__js_is(sw__js_get(o, "outcome"), "fail"))
			workflow_result(w, o, src, fp_seen);
	}
	sw__jw_close(w, ']');

	const json_t *summary = sw__js_get(r, "executiveSummary");
	const json_t *risk = sw__js_get(summary, "risk");
	bool block = gate ? json_is_true(sw__js_get(gate, "block")) : sw__js_is(risk, "block");
	sw__jw_key(w, "properties");
	sw__jw_open(w, '{');
	kv_if(w, "sessionId", sw__js_get(r, "sessionId"));
	kv_if(w, "appId", app);
	kv_if(w, "device", sw__js_get(r, "device"));
	kv_if(w, "releaseRisk", risk);
	kv_if(w, "nextAction", sw__js_get(summary, "nextAction"));
	kv_cstr(w, "releaseGateVerdict", block ? "block" : "pass");
	kv_if(w, "releaseGate", gate);
	sw__jw_close(w, '}');
	sw__jw_close(w, '}');
	sw__jw_close(w, ']');
	sw__jw_close(w, '}');
	out = sw__buf_steal(&b, len);
done:
	free(w);
	sw__buf_free(&b);
	sw__buf_free(&auto_id);
	json_decref(rule_seen);
	json_decref(rule_ids);
	json_decref(fp_seen);
	sw__sarif_sources_free(src);
	return out;
}
