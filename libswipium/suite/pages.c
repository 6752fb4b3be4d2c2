/* pages.c: page objects (the YAML files in .swipium/pages): loading, locators, the locator audit of each element. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite-internal.h"

/* The locator keys of an element map, the Flow V2 selector prefix each compiles to. */
static const struct {
	const char *key;
	const char *prefix; /* NULL: coordinates */
} LOCATORS[] = {
    {"id", "id="},
    {"accessibilityId", "accessibility id="},
    {"name", "name="},
    {"predicate", "predicate string="},
    {"classChain", "class chain="},
    {"text", ""},
    {"coordinates", NULL},
};

static const char *const EXTRA_KEYS[] = {"secret", "quality", "label", "fix", "fallback"};

static bool is_ident(const char *s)
{
	if (!s || !*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static bool parse_coord(const json_t *v, long *out)
{
	const char *s = json_string_value(v);
	if (json_is_integer(v)) {
		*out = (long)json_integer_value(v);
		return *out >= 0 && *out <= 100000;
	}
	if (!s || !*s)
		return false;
	char *end = NULL;
	long n = strtol(s, &end, 10);
	if (*end || n < 0 || n > 100000)
		return false;
	*out = n;
	return true;
}

/* A selector string: which locator kind its prefix names. */
static json_t *from_selector(const char *s)
{
	for (size_t i = 0; i < SW_ARRAY_SIZE(LOCATORS); i++) {
		const char *p = LOCATORS[i].prefix;
		if (p && *p && !strncmp(s, p, strlen(p)))
			return json_pack("{s:s, s:s}", "kind", LOCATORS[i].key, "value", s + strlen(p));
	}
	return json_pack("{s:s, s:s}", "kind", "text", "value", s);
}

json_t *sw__suite_locator_parse(const json_t *v, const char **why)
{
	if (json_is_string(v)) {
		if (!*json_string_value(v)) {
			*why = "the locator is empty";
			return NULL;
		}
		return from_selector(json_string_value(v));
	}
	if (!json_is_object(v)) {
		*why = "an element is a selector string or a map with one locator key (id, accessibilityId, name, "
		       "predicate, classChain, text, coordinates)";
		return NULL;
	}
	json_t *loc = NULL;
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)v, k, x)
	{
		size_t i;
		for (i = 0; i < SW_ARRAY_SIZE(LOCATORS); i++)
			if (!strcmp(k, LOCATORS[i].key))
				break;
		if (i == SW_ARRAY_SIZE(LOCATORS)) {
			size_t e;
			for (e = 0; e < SW_ARRAY_SIZE(EXTRA_KEYS); e++)
				if (!strcmp(k, EXTRA_KEYS[e]))
					break;
			if (e == SW_ARRAY_SIZE(EXTRA_KEYS)) {
				json_decref(loc);
				*why = "unknown key in an element (allowed: id, accessibilityId, name, predicate, classChain, "
				       "text, coordinates, secret, quality, label, fix, fallback)";
				return NULL;
			}
			continue;
		}
		if (loc) {
			json_decref(loc);
			*why = "an element has more than one locator key; keep one (put a second one under fallback:)";
			return NULL;
		}
		if (!LOCATORS[i].prefix) {
			long cx, cy;
			if (!json_is_array(x) || json_array_size(x) != 2 || !parse_coord(json_array_get(x, 0), &cx) ||
			    !parse_coord(json_array_get(x, 1), &cy)) {
				*why = "coordinates must be [x, y], two whole numbers from 0 to 100000";
				return NULL;
			}
			loc = json_pack("{s:s, s:I, s:I}", "kind", "coordinates", "x", (json_int_t)cx, "y", (json_int_t)cy);
		} else {
			if (!json_is_string(x) || !*json_string_value(x)) {
				*why = "a locator value must be non-empty text";
				return NULL;
			}
			loc = json_pack("{s:s, s:s}", "kind", LOCATORS[i].key, "value", json_string_value(x));
		}
	}
	if (!loc) {
		*why = "an element map needs one locator key: id, accessibilityId, name, predicate, classChain, text or "
		       "coordinates";
		return NULL;
	}
	const char *secret = json_string_value(json_object_get(v, "secret"));
	if (json_is_true(json_object_get(v, "secret")) || (secret && !strcmp(secret, "true")))
		json_object_set_new(loc, "secret", json_true());
	return loc;
}

char *sw__suite_locator_selector(const json_t *loc)
{
	const char *kind = json_string_value(json_object_get(loc, "kind"));
	const char *value = json_string_value(json_object_get(loc, "value"));
	if (!kind || !value)
		return NULL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(LOCATORS); i++)
		if (!strcmp(kind, LOCATORS[i].key) && LOCATORS[i].prefix)
			return sw__asprintf("%s%s", LOCATORS[i].prefix, value);
	return NULL;
}

static void item(json_t *items, const char *level, const char *code, const char *file, const char *page,
                 const char *element, const char *fmt, ...) SW_PRINTF(7, 8);
static void item(json_t *items, const char *level, const char *code, const char *file, const char *page,
                 const char *element, const char *fmt, ...)
{
	char *raw = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	char *msg = sw__cap(raw ? raw : "", 600);
	json_t *it = json_pack("{s:s, s:s, s:s, s:s}", "level", level, "code", code, "file", file ? file : "",
	                       "message", msg ? msg : "");
	if (it && page)
		json_object_set_new(it, "page", json_string(page));
	if (it && element)
		json_object_set_new(it, "element", json_string(element));
	json_array_append_new(items, it);
	free(msg);
	free(raw);
}

/* A value that changes between builds or runs: long digit runs, UUIDs, hex ids, list indexes. */
static bool looks_dynamic(const char *s)
{
	size_t digits = 0, hex = 0;
	bool hex_has_digit = false;
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		digits = isdigit(c) ? digits + 1 : 0;
		if (isxdigit(c)) {
			hex++;
			hex_has_digit |= isdigit(c) != 0;
		} else {
			hex = 0;
			hex_has_digit = false;
		}
		if (digits >= 4 || (hex >= 8 && hex_has_digit))
			return true;
		if (c == '[' && isdigit((unsigned char)p[1]))
			return true;
	}
	return false;
}

void sw__suite_lint_locator(const char *file, const char *page, const char *element, const json_t *loc, json_t *items)
{
	const char *kind = json_string_value(json_object_get(loc, "kind"));
	const char *value = json_string_value(json_object_get(loc, "value"));
	if (!kind)
		return;
	if (!strcmp(kind, "coordinates")) {
		item(items, "error", "COORDINATE_ONLY_LOCATOR", file, page, element,
		     "%s.%s is found only by coordinates (%lld, %lld): it breaks on another screen size or layout; give "
		     "the element a testID / resource-id / accessibilityIdentifier and use id: or accessibilityId:",
		     page, element, (long long)json_integer_value(json_object_get(loc, "x")),
		     (long long)json_integer_value(json_object_get(loc, "y")));
		return;
	}
	if (!strcmp(kind, "text") || !strcmp(kind, "name")) {
		char *v = sw__cap(value, 80);
		item(items, "warning", "LOCALE_FRAGILE_LOCATOR", file, page, element,
		     "%s.%s is found by its visible text (\"%s\"): it breaks when the copy changes or the app runs in "
		     "another language; prefer id: or accessibilityId:",
		     page, element, v ? v : "");
		free(v);
	}
	if (value && strstr(value, "${")) {
		item(items, "warning", "VARIABLE_IN_LOCATOR", file, page, element,
		     "%s.%s holds \"${\": a flow would read it as a variable; the compiler uses the longest part "
		     "without ${...}",
		     page, element);
	}
	if (value && looks_dynamic(value)) {
		char *v = sw__cap(value, 80);
		item(items, "warning", "DYNAMIC_LOCATOR", file, page, element,
		     "%s.%s (\"%s\") looks generated (long numbers, a hex id or a list index) and may change between "
		     "builds or runs; use a stable id",
		     page, element, v ? v : "");
		free(v);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The page files under .swipium/pages (relative to .swipium/), sorted. */
static int list_pages(const char *root, json_t *files, bool *found, sw_error **err)
{
	char *dir = NULL;
	int rc = sw__confine(root, ".swipium/pages", SW__CONFINE_EXISTING, &dir, err);
	if (rc == SW_ENOTFOUND) {
		if (err && *err) {
			sw_error_free(*err);
			*err = NULL;
		}
		if (found)
			*found = false;
		return SW_OK;
	}
	if (rc < 0)
		return rc;
	if (found)
		*found = sw__is_dir(dir);
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return SW_OK;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !(sw__str_has_suffix(e->d_name, ".yaml") || sw__str_has_suffix(e->d_name, ".yml")))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn)
				break;
			names = nn;
		}
		names[n] = sw__asprintf("pages/%s", e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(files, json_string(names[i]));
		free(names[i]);
	}
	free(names);
	return SW_OK;
}

static void load_one(const char *root, const char *rel, json_t *pages, json_t *items)
{
	char *path = sw__asprintf(".swipium/%s", rel);
	char *text = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	json_t *doc = NULL;
	if (!path)
		return;
	if (sw__suite_read_confined(root, path, SW_SUITE_YAML_MAX_BYTES, &text, &len, NULL, &e) != SW_OK ||
	    sw__suite_yaml_load(text, len, path, "INVALID_ARGUMENT", &doc, &e) != SW_OK) {
		item(items, "error", "INVALID_PAGE_OBJECT", path, NULL, NULL, "page object %s cannot be used: %s", path,
		     sw_error_message(e));
		goto out;
	}
	const char *name = json_string_value(json_object_get(doc, "name"));
	json_t *elements = json_object_get(doc, "elements");
	if (!is_ident(name)) {
		item(items, "error", "INVALID_PAGE_OBJECT", path, NULL, NULL,
		     "%s needs `name:` made of letters, digits and _ (not starting with a digit)", path);
		goto out;
	}
	if (!json_is_object(elements) || json_object_size(elements) == 0) {
		item(items, "error", "INVALID_PAGE_OBJECT", path, name, NULL,
		     "%s needs `elements:`, a map of element name to locator", path);
		goto out;
	}
	const char *k;
	json_object_foreach(doc, k, elements)
	{
		if (strcmp(k, "name") && strcmp(k, "screen") && strcmp(k, "platform") && strcmp(k, "elements") &&
		    strcmp(k, "description"))
			item(items, "warning", "UNKNOWN_KEY", path, name, NULL,
			     "%s: key \"%s\" is not part of a page object and is ignored", path, k);
	}
	elements = json_object_get(doc, "elements");
	json_t *prev = json_object_get(pages, name);
	if (prev) {
		item(items, "error", "DUPLICATE_PAGE", path, name, NULL, "page %s is defined again in %s (first in %s)", name,
		     path, json_string_value(json_object_get(prev, "file")));
		goto out;
	}
	json_t *els = json_object();
	json_t *v;
	json_object_foreach(elements, k, v)
	{
		const char *why = NULL;
		if (!is_ident(k)) {
			item(items, "error", "INVALID_PAGE_OBJECT", path, name, k,
			     "%s: element name \"%s\" must be letters, digits and _", path, k);
			continue;
		}
		json_t *loc = sw__suite_locator_parse(v, &why);
		if (!loc) {
			item(items, "error", "INVALID_LOCATOR", path, name, k, "%s: %s.%s: %s", path, name, k, why);
			continue;
		}
		sw__suite_lint_locator(path, name, k, loc, items);
		json_object_set_new(els, k, loc);
	}
	json_object_set_new(pages, name, json_pack("{s:s, s:o}", "file", path, "elements", els));
out:
	json_decref(doc);
	sw_error_free(e);
	free(text);
	free(path);
}

int sw__suite_pages_load(const char *root, const json_t *files, bool strict, json_t *pages, json_t *items,
                         bool *found, sw_error **err)
{
	json_t *list = files ? json_incref((json_t *)files) : json_array();
	int rc = SW_OK;
	if (!files && (rc = list_pages(root, list, found, err)) < 0)
		goto out;
	if (files && found)
		*found = true;
	/* every page path is confined before any is read */
	size_t i;
	json_t *f;
	json_array_foreach(list, i, f)
	{
		const char *rel = json_string_value(f);
		if (!rel || !*rel) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "pages[%zu] must be a path", i);
			goto out;
		}
		char *path = sw__asprintf(".swipium/%s", rel), *real = NULL;
		sw_error *e = NULL;
		int crc = path ? sw__confine(root, path, 0, &real, &e) : SW_ENOMEM;
		if (crc == SW_EDENIED) {
			if (strict) {
				char *shown = sw__cap(rel, 200);
				rc = sw__error_set(err, SW_EDENIED, "UNSAFE_ACTION_REFUSED",
				                   "Keep page objects inside the project; remove the link or the ../ path.",
				                   "page object %s resolves outside the project root; nothing was read or written",
				                   shown ? shown : "");
				free(shown);
				sw_error_free(e);
				free(path);
				goto out;
			}
			item(items, "error", "UNSAFE_ACTION_REFUSED", path, NULL, NULL,
			     "%s resolves outside the project root and was not read", path);
			json_array_set_new(list, i, json_null());
		}
		sw_error_free(e);
		free(real);
		free(path);
	}
	json_array_foreach(list, i, f)
	{
		if (json_is_string(f))
			load_one(root, json_string_value(f), pages, items);
	}
out:
	json_decref(list);
	return rc;
}
