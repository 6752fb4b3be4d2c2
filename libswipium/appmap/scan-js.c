/* scan-js.c: React Native rules: package.json facts, React Navigation navigators (JSX and static configs),
 * string constants and enums for their names, and Expo Router's file routes. */
#include <stdlib.h>
#include <string.h>

#include "appscan-internal.h"

static const char *const AUTH_PACKAGES[] = {"@react-native-firebase/auth",
                                            "expo-auth-session",
                                            "expo-apple-authentication",
                                            "expo-local-authentication",
                                            "@react-native-google-signin/google-signin",
                                            "react-native-app-auth",
                                            "@clerk/clerk-expo",
                                            "@clerk/clerk-react",
                                            "react-native-auth0",
                                            "@auth0/auth0-react",
                                            "aws-amplify",
                                            "@aws-amplify/auth",
                                            "@supabase/supabase-js",
                                            "@okta/okta-react-native",
                                            "react-native-fbsdk-next",
                                            "@invertase/react-native-apple-authentication",
                                            "firebase",
                                            NULL};

static char *dir_of(const char *rel)
{
	const char *slash = strrchr(rel, '/');
	return slash ? sw__strndup(rel, (size_t)(slash - rel)) : sw__strdup("");
}

static bool any_file_under(const sw__scan *s, const char *dir)
{
	size_t n = strlen(dir);
	const char *key;
	json_t *v;
	json_object_foreach(s->files, key, v) if (!strncmp(key, dir, n) && key[n] == '/') return true;
	return false;
}

void sw__scan_package_json(sw__scan *s, const char *rel, const char *text, size_t len)
{
	json_t *pkg = json_loadb(text, len, 0, NULL);
	if (!json_is_object(pkg)) {
		sw__scan_note(s, "json-parse-error", rel, "package.json files that do not parse were skipped");
		json_decref(pkg);
		return;
	}
	const char *sections[] = {"dependencies", "devDependencies", "peerDependencies"};
	bool expo_router = false;
	for (size_t k = 0; k < SW_ARRAY_SIZE(sections); k++) {
		const char *name;
		json_t *v;
		json_object_foreach(json_object_get(pkg, sections[k]), name, v)
		{
			if (!strcmp(name, "expo-router") && k != 2)
				expo_router = true;
			if (sw__str_has_prefix(name, "@react-navigation/"))
				s->rn_nav_dep = true;
			for (const char *const *a = AUTH_PACKAGES; *a; a++)
				if (!strcmp(name, *a) && k == 0)
					sw__scan_authlib(s, name, rel);
		}
	}
	if (expo_router) {
		char *dir = dir_of(rel);
		char *src_app = *dir ? sw__asprintf("%s/src/app", dir) : sw__strdup("src/app");
		char *app = *dir ? sw__asprintf("%s/app", dir) : sw__strdup("app");
		const char *use = any_file_under(s, src_app) ? src_app : app;
		json_array_append_new(s->expo_apps, json_pack("{ssss}", "dir", dir, "appDir", use));
		free(dir);
		free(src_app);
		free(app);
	}
	json_decref(pkg);
}

/* ---- constants: const X = 'a'; const R = {A: 'a', B: {C: 'c'}}; enum E {A = 'a'} -------------------- */

static void object_consts(sw__scan *s, const sw__toks *t, size_t open, const char *prefix, const char *rel, int depth)
{
	if (t->v[open].match < 0 || depth > 6)
		return;
	size_t close = (size_t)t->v[open].match;
	size_t i = open + 1;
	while (i < close) {
		char *key = NULL;
		if (sw__tok_kind(t, i, SW__T_IDENT))
			key = sw__tok_text(t, i);
		else if (sw__tok_str(t, i))
			key = sw__strdup(sw__tok_str(t, i));
		if (key && (sw__tok_is(t, i + 1, ":") || sw__tok_is(t, i + 1, "="))) {
			char *full = sw__asprintf("%s.%s", prefix, key);
			if (sw__tok_str(t, i + 2) &&
			    (sw__tok_is(t, i + 3, ",") || i + 3 >= close || sw__tok_is(t, i + 3, "}")))
				sw__scan_const(s, full, sw__tok_str(t, i + 2), rel);
			else if (sw__tok_is(t, i + 2, "{"))
				object_consts(s, t, i + 2, full, rel, depth + 1);
			free(full);
		}
		free(key);
		/* on to the next entry at this level */
		while (i < close && !sw__tok_is(t, i, ",")) {
			if (t->v[i].match > (int32_t)i &&
			    (sw__tok_is(t, i, "{") || sw__tok_is(t, i, "(") || sw__tok_is(t, i, "[")))
				i = (size_t)t->v[i].match;
			i++;
		}
		i++;
	}
}

static void js_consts(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx)
{
	for (size_t i = 0; i + 2 < t->n; i++) {
		bool decl = sw__tok_ident(t, i, "const") || sw__tok_ident(t, i, "let") || sw__tok_ident(t, i, "var");
		if (decl && sw__tok_kind(t, i + 1, SW__T_IDENT)) {
			char *name = sw__tok_text(t, i + 1);
			size_t j = i + 2;
			if (sw__tok_is(t, j, ":")) /* a type annotation: const X: string = 'a' */
				while (j < t->n && j < i + 12 && !sw__tok_is(t, j, "="))
					j++;
			if (sw__tok_is(t, j, "=")) {
				if (sw__tok_str(t, j + 1))
					sw__scan_const(s, name, sw__tok_str(t, j + 1), rel);
				else if (sw__tok_is(t, j + 1, "{"))
					object_consts(s, t, j + 1, name, rel, 0);
				if (name[0] >= 'A' && name[0] <= 'Z')
					sw__scan_symbol(s, name, rel);
				if (idx && (i == 0 || sw__tok_ident(t, i - 1, "export")))
					sw__scan_index_symbol(s, idx, name);
			}
			free(name);
		} else if (sw__tok_ident(t, i, "enum") && sw__tok_kind(t, i + 1, SW__T_IDENT) &&
		           sw__tok_is(t, i + 2, "{")) {
			char *name = sw__tok_text(t, i + 1);
			object_consts(s, t, i + 2, name, rel, 0);
			if (idx)
				sw__scan_index_symbol(s, idx, name);
			free(name);
		} else if ((sw__tok_ident(t, i, "function") || sw__tok_ident(t, i, "class")) &&
		           sw__tok_kind(t, i + 1, SW__T_IDENT)) {
			char *name = sw__tok_text(t, i + 1);
			if (name[0] >= 'A' && name[0] <= 'Z')
				sw__scan_symbol(s, name, rel);
			if (idx && i > 0 && (sw__tok_ident(t, i - 1, "export") || sw__tok_ident(t, i - 1, "default")))
				sw__scan_index_symbol(s, idx, name);
			free(name);
		}
	}
}

/* ---- what a file exports as default (Expo Router's route component) ---------------------------------- */

static void js_default_export(sw__scan *s, const char *rel, const sw__toks *t)
{
	for (size_t i = 0; i + 1 < t->n; i++) {
		if (!sw__tok_ident(t, i, "export"))
			continue;
		if (sw__tok_ident(t, i + 1, "default")) {
			size_t j = i + 2;
			if (sw__tok_ident(t, j, "async"))
				j++;
			char *name = NULL;
			if ((sw__tok_ident(t, j, "function") || sw__tok_ident(t, j, "class")) &&
			    sw__tok_kind(t, j + 1, SW__T_IDENT))
				name = sw__tok_text(t, j + 1);
			else if (sw__tok_kind(t, j, SW__T_IDENT) && !sw__tok_ident(t, j, "function") &&
			         !sw__tok_ident(t, j, "class") &&
			         (sw__tok_is(t, j + 1, ";") || j + 1 >= t->n || t->v[j + 1].line > t->v[j].line))
				name = sw__tok_text(t, j);
			else if (sw__tok_kind(t, j, SW__T_IDENT) && sw__tok_is(t, j + 1, "(") &&
			         sw__tok_kind(t, j + 2, SW__T_IDENT) && sw__tok_is(t, j + 3, ")"))
				name = sw__tok_text(t, j + 2); /* export default memo(Screen) */
			json_object_set_new(s->jsinfo, rel, json_pack("{s:s?}", "default", name));
			free(name);
			return;
		}
		if (sw__tok_is(t, i + 1, "{") && t->v[i + 1].match > 0) {
			size_t close = (size_t)t->v[i + 1].match;
			bool has_default = false;
			for (size_t j = i + 2; j < close; j++)
				if (sw__tok_ident(t, j, "default"))
					has_default = true;
			if (has_default && sw__tok_ident(t, close + 1, "from") && sw__tok_str(t, close + 2)) {
				json_object_set_new(s->jsinfo, rel,
				                    json_pack("{ss}", "from", sw__tok_str(t, close + 2)));
				return;
			}
		}
	}
}

/* ---- React Navigation -------------------------------------------------------------------------------- */

/* A name given as 'x', {'x'}, {`x`}, {CONST} or {Enum.Member}: fills the screen; false when computed. */
static bool name_value(const sw__toks *t, size_t i, json_t *sc)
{
	if (sw__tok_str(t, i)) {
		json_object_set_new(sc, "name", json_string(sw__tok_str(t, i)));
		json_object_set_new(sc, "route", json_string(sw__tok_str(t, i)));
		return true;
	}
	if (!sw__tok_is(t, i, "{") || t->v[i].match < 0)
		return false;
	size_t close = (size_t)t->v[i].match;
	if (close == i + 2 && sw__tok_str(t, i + 1)) {
		json_object_set_new(sc, "name", json_string(sw__tok_str(t, i + 1)));
		json_object_set_new(sc, "route", json_string(sw__tok_str(t, i + 1)));
		return true;
	}
	size_t end = 0;
	char *ref = sw__tok_dotted(t, i + 1, &end);
	if (ref && end == close) {
		json_object_set_new(sc, "_nameRef", json_string(ref));
		json_object_set_new(sc, "_routeIsName", json_true());
		free(ref);
		return true;
	}
	free(ref);
	return false;
}

static char *component_value(const sw__toks *t, size_t i)
{
	if (!sw__tok_is(t, i, "{") || t->v[i].match < 0)
		return NULL;
	size_t end = 0;
	char *ref = sw__tok_dotted(t, i + 1, &end);
	if (ref && end == (size_t)t->v[i].match)
		return ref;
	free(ref);
	return NULL;
}

/* <X.Screen name=... component={...}> (or <Screen> when the file uses React Navigation itself). */
static void rn_jsx_screens(sw__scan *s, const char *rel, const sw__toks *t, bool file_uses_rn)
{
	for (size_t i = 0; i + 2 < t->n; i++) {
		if (!sw__tok_is(t, i, "<"))
			continue;
		size_t end = 0;
		char *tag = sw__tok_dotted(t, i + 1, &end);
		if (!tag)
			continue;
		bool dotted = strchr(tag, '.') != NULL;
		bool is_screen =
		    (dotted && sw__str_has_suffix(tag, ".Screen")) || (!strcmp(tag, "Screen") && file_uses_rn);
		free(tag);
		if (!is_screen || !(s->rn_nav_dep || file_uses_rn))
			continue;
		json_t *sc = json_pack("{ss}", "kind", "screen");
		bool named = false, computed = false;
		char *component = NULL, *required = NULL;
		size_t j = end;
		while (j < t->n && !sw__tok_is(t, j, ">") && !sw__tok_is(t, j, "/>")) {
			if (sw__tok_is(t, j, "{") && t->v[j].match > (int32_t)j) {
				j = (size_t)t->v[j].match + 1;
				continue;
			}
			if (sw__tok_kind(t, j, SW__T_IDENT) && sw__tok_is(t, j + 1, "=")) {
				if (sw__tok_ident(t, j, "name")) {
					named = true;
					computed = !name_value(t, j + 2, sc);
				} else if (sw__tok_ident(t, j, "component")) {
					free(component);
					component = component_value(t, j + 2);
				} else if (sw__tok_ident(t, j, "getComponent") && sw__tok_is(t, j + 2, "{") &&
				           t->v[j + 2].match > 0) {
					for (size_t k = j + 3; k < (size_t)t->v[j + 2].match; k++)
						if (sw__tok_ident(t, k, "require") && sw__tok_is(t, k + 1, "(") &&
						    sw__tok_str(t, k + 2)) {
							free(required);
							required = sw__strdup(sw__tok_str(t, k + 2));
							break;
						}
				}
			}
			j++;
		}
		if (!component && sw__tok_is(t, j, ">")) {
			/* children: a render function or element; its first component tag is the screen */
			for (size_t k = j + 1; k < t->n && k < j + 400 && !sw__tok_is(t, k, "</"); k++)
				if (sw__tok_is(t, k, "<") && sw__tok_kind(t, k + 1, SW__T_IDENT)) {
					char *c = sw__tok_dotted(t, k + 1, NULL);
					if (c && c[0] >= 'A' && c[0] <= 'Z') {
						component = c;
						break;
					}
					free(c);
				}
		}
		if (!named || computed) {
			if (named)
				sw__scan_note(s, "computed-screen-name", rel,
				              "navigator screens whose name is computed at run time were left out");
			json_decref(sc);
			free(component);
			free(required);
			continue;
		}
		json_t *added = sw__scan_screen(s, "react-navigation", "screen", rel, 0.9, NULL);
		json_object_update(added, sc);
		json_decref(sc);
		sw__scan_reason(added, "a React Navigation <Screen> in %s (line %u)", rel, t->v[i].line);
		if (component)
			json_object_set_new(added, "component", json_string(component));
		if (required) {
			char *dir = dir_of(rel);
			json_object_set_new(added, "_require", json_pack("{ssss}", "dir", dir, "spec", required));
			free(dir);
		}
		free(component);
		free(required);
	}
}

/* One entry of a static `screens: {...}` config. */
static void rn_static_entry(sw__scan *s, const char *rel, const sw__toks *t, size_t i, size_t stop, unsigned line)
{
	json_t *sc = json_object();
	size_t v = 0;
	char *component = NULL;
	if (sw__tok_kind(t, i, SW__T_IDENT) && (sw__tok_is(t, i + 1, ",") || i + 1 == stop)) {
		char *n = sw__tok_text(t, i); /* shorthand { Home } */
		json_object_set_new(sc, "name", json_string(n));
		json_object_set_new(sc, "route", json_string(n));
		component = n;
	} else if ((sw__tok_kind(t, i, SW__T_IDENT) || sw__tok_str(t, i)) && sw__tok_is(t, i + 1, ":")) {
		char *n = sw__tok_str(t, i) ? sw__strdup(sw__tok_str(t, i)) : sw__tok_text(t, i);
		json_object_set_new(sc, "name", json_string(n));
		json_object_set_new(sc, "route", json_string(n));
		free(n);
		v = i + 2;
	} else if (sw__tok_is(t, i, "[") && t->v[i].match > 0 && sw__tok_is(t, (size_t)t->v[i].match + 1, ":")) {
		size_t end = 0;
		char *ref = sw__tok_dotted(t, i + 1, &end);
		if (!ref || end != (size_t)t->v[i].match) {
			free(ref);
			sw__scan_note(s, "computed-screen-name", rel,
			              "navigator screens whose name is computed at run time were left out");
			json_decref(sc);
			return;
		}
		json_object_set_new(sc, "_nameRef", json_string(ref));
		json_object_set_new(sc, "_routeIsName", json_true());
		free(ref);
		v = (size_t)t->v[i].match + 2;
	} else {
		json_decref(sc);
		return;
	}
	if (v && !component) {
		if (sw__tok_is(t, v, "{") && t->v[v].match > 0) {
			size_t close = (size_t)t->v[v].match;
			for (size_t k = v + 1; k < close; k++) {
				if (sw__tok_is(t, k, "{") || sw__tok_is(t, k, "(") || sw__tok_is(t, k, "[")) {
					if (t->v[k].match > (int32_t)k)
						k = (size_t)t->v[k].match;
					continue;
				}
				if (sw__tok_ident(t, k, "screen") && sw__tok_is(t, k + 1, ":"))
					component = sw__tok_dotted(t, k + 2, NULL);
			}
			if (!component) { /* a group or a nested navigator config, not a screen */
				json_decref(sc);
				return;
			}
		} else {
			component = sw__tok_dotted(t, v, NULL);
		}
	}
	json_t *added = sw__scan_screen(s, "react-navigation", "screen", rel, 0.9, NULL);
	json_object_update(added, sc);
	json_decref(sc);
	sw__scan_reason(added, "an entry of a static navigator config in %s (line %u)", rel, line);
	if (component)
		json_object_set_new(added, "component", json_string(component));
	free(component);
}

static void rn_static_screens(sw__scan *s, const char *rel, const sw__toks *t)
{
	for (size_t i = 0; i + 2 < t->n; i++) {
		if (!sw__tok_kind(t, i, SW__T_IDENT) || !sw__tok_is(t, i + 1, "(") || t->v[i + 1].match < 0)
			continue;
		char *fn = sw__tok_text(t, i);
		bool nav = fn && sw__str_has_prefix(fn, "create") && sw__str_has_suffix(fn, "Navigator");
		free(fn);
		if (!nav)
			continue;
		size_t close = (size_t)t->v[i + 1].match;
		for (size_t k = i + 2; k + 2 < close; k++) {
			if (!(sw__tok_ident(t, k, "screens") && sw__tok_is(t, k + 1, ":") && sw__tok_is(t, k + 2, "{")))
				continue;
			size_t open = k + 2;
			if (t->v[open].match < 0)
				break;
			size_t oclose = (size_t)t->v[open].match;
			size_t e = open + 1;
			while (e < oclose) {
				rn_static_entry(s, rel, t, e, oclose, t->v[e].line);
				while (e < oclose && !sw__tok_is(t, e, ",")) {
					if ((sw__tok_is(t, e, "{") || sw__tok_is(t, e, "(") || sw__tok_is(t, e, "[")) &&
					    t->v[e].match > (int32_t)e)
						e = (size_t)t->v[e].match;
					e++;
				}
				e++;
			}
			k = oclose;
		}
		i = close;
	}
}

static void js_passwords(sw__scan *s, const char *rel, const sw__toks *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (sw__tok_ident(t, i, "secureTextEntry")) {
			if (sw__tok_is(t, i + 1, "=") && sw__tok_is(t, i + 2, "{") && sw__tok_ident(t, i + 3, "false"))
				continue;
			if (sw__tok_is(t, i + 1, ":") && sw__tok_ident(t, i + 2, "false"))
				continue;
			sw__scan_password(s, rel, "secureTextEntry");
			return;
		}
		if ((sw__tok_ident(t, i, "textContentType") || sw__tok_ident(t, i, "autoComplete")) &&
		    (sw__tok_is(t, i + 1, "=") || sw__tok_is(t, i + 1, ":"))) {
			const char *v = sw__tok_str(t, i + 2);
			if (!v && sw__tok_is(t, i + 2, "{"))
				v = sw__tok_str(t, i + 3);
			if (v && (!strcmp(v, "password") || !strcmp(v, "newPassword") ||
			          !strcmp(v, "current-password") || !strcmp(v, "new-password"))) {
				sw__scan_password(s, rel, "textContentType password");
				return;
			}
		}
	}
}

static bool in_expo_app_dir(const sw__scan *s, const char *rel)
{
	size_t i;
	json_t *a;
	json_array_foreach(s->expo_apps, i, a)
	{
		const char *d = json_string_value(json_object_get(a, "appDir"));
		size_t n = strlen(d);
		if (!strncmp(rel, d, n) && rel[n] == '/')
			return true;
	}
	return false;
}

void sw__scan_js(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx)
{
	js_consts(s, rel, t, idx);
	js_passwords(s, rel, t);
	bool expo_route = in_expo_app_dir(s, rel);
	js_default_export(s, rel, t); /* also outside app/: a route may re-export a screen from elsewhere */
	if (sw__scan_is_test_path(rel) || expo_route)
		return; /* Expo Router's <Stack.Screen> entries configure file routes; tests hold fake navigators */
	bool uses_rn = false;
	for (size_t i = 0; i < t->n && !uses_rn; i++) {
		const char *v = sw__tok_str(t, i);
		if (v && sw__str_has_prefix(v, "@react-navigation/"))
			uses_rn = true;
	}
	rn_jsx_screens(s, rel, t, uses_rn);
	if (uses_rn || s->rn_nav_dep)
		rn_static_screens(s, rel, t);
}

/* ---- Expo Router file routes --------------------------------------------------------------------------- */

static const char *const JS_EXTS[] = {".tsx", ".ts", ".jsx", ".js", NULL};

/* A module specifier imported from @from_dir resolved to a project file, or NULL. */
static char *resolve_module(const sw__scan *s, const char *from_dir, const char *pkg_dir, const char *spec)
{
	char *bases[3] = {NULL, NULL, NULL};
	if (sw__str_has_prefix(spec, "./") || sw__str_has_prefix(spec, "../")) {
		char *joined = *from_dir ? sw__asprintf("%s/%s", from_dir, spec) : sw__strdup(spec);
		/* normalise a/b/../c and ./ */
		char *parts[64];
		size_t np = 0;
		for (char *tok = strtok(joined, "/"); tok && np < 64; tok = strtok(NULL, "/")) {
			if (!strcmp(tok, "."))
				continue;
			if (!strcmp(tok, "..")) {
				if (np)
					np--;
				continue;
			}
			parts[np++] = tok;
		}
		sw_buf b = SW_BUF_INIT;
		for (size_t i = 0; i < np; i++) {
			if (i)
				sw__buf_putc(&b, '/');
			sw__buf_puts(&b, parts[i]);
		}
		bases[0] = sw__buf_steal(&b, NULL);
		free(joined);
	} else if (sw__str_has_prefix(spec, "@/") || sw__str_has_prefix(spec, "~/")) {
		bases[0] = *pkg_dir ? sw__asprintf("%s/%s", pkg_dir, spec + 2) : sw__strdup(spec + 2);
		bases[1] = *pkg_dir ? sw__asprintf("%s/src/%s", pkg_dir, spec + 2) : sw__asprintf("src/%s", spec + 2);
	} else {
		return NULL;
	}
	char *found = NULL;
	for (size_t b = 0; b < 2 && bases[b] && !found; b++) {
		if (sw__scan_has_file(s, bases[b])) {
			found = sw__strdup(bases[b]);
			break;
		}
		for (const char *const *e = JS_EXTS; *e && !found; e++) {
			char *c = sw__asprintf("%s%s", bases[b], *e);
			if (sw__scan_has_file(s, c))
				found = c;
			else
				free(c);
			if (!found) {
				c = sw__asprintf("%s/index%s", bases[b], *e);
				if (sw__scan_has_file(s, c))
					found = c;
				else
					free(c);
			}
		}
	}
	free(bases[0]);
	free(bases[1]);
	return found;
}

static bool is_route_ext(const char *name, size_t *base_len)
{
	for (const char *const *e = JS_EXTS; *e; e++)
		if (sw__str_has_suffix(name, *e)) {
			*base_len = strlen(name) - strlen(*e);
			return true;
		}
	return false;
}

static void expo_route(sw__scan *s, const char *pkg_dir, const char *app_dir, const char *rel)
{
	const char *sub = rel + strlen(app_dir) + 1;
	if (sw__scan_is_test_path(sub))
		return;
	char *copy = sw__strdup(sub);
	if (!copy)
		return;
	char *last = strrchr(copy, '/');
	char *file = last ? last + 1 : copy;
	size_t base_len = 0;
	if (!is_route_ext(file, &base_len)) {
		free(copy);
		return;
	}
	file[base_len] = '\0';
	/* platform variants: index.ios.tsx is the index route on iOS; .web files are not for the device */
	char *pdot = strrchr(file, '.');
	if (pdot && !strcmp(pdot, ".web")) {
		free(copy);
		return;
	}
	if (pdot && (!strcmp(pdot, ".ios") || !strcmp(pdot, ".android") || !strcmp(pdot, ".native")))
		*pdot = '\0';
	bool layout = !strcmp(file, "_layout");
	bool not_found = !strcmp(file, "+not-found");
	if (!layout && (file[0] == '_' || (file[0] == '+' && !not_found) || sw__str_has_suffix(file, "+api") ||
	                sw__str_has_suffix(file, "+middleware"))) {
		sw__scan_note(
		    s, "not-a-screen", rel,
		    "Expo Router files that are not screens (+html, +api, +middleware, +native-intent, _sitemap) "
		    "were not listed");
		free(copy);
		return;
	}
	sw_buf route = SW_BUF_INIT;
	json_t *params = json_array();
	char *save = NULL;
	size_t nseg = 0;
	char *segs[128];
	if (last) {
		*last = '\0';
		for (char *seg = strtok_r(copy, "/", &save); seg && nseg < 127; seg = strtok_r(NULL, "/", &save))
			segs[nseg++] = seg;
	}
	if (!layout && !(strcmp(file, "index") == 0))
		segs[nseg++] = file;
	for (size_t i = 0; i < nseg; i++) {
		const char *seg = segs[i];
		size_t n = strlen(seg);
		if (n >= 2 && seg[0] == '(' && seg[n - 1] == ')')
			continue; /* a group: not part of the URL */
		if (n >= 2 && seg[0] == '[' && seg[n - 1] == ']') {
			const char *p = seg + 1;
			if (sw__str_has_prefix(p, "..."))
				p += 3;
			json_array_append_new(params, json_stringn(p, strlen(p) - 1));
		}
		sw__buf_putc(&route, '/');
		sw__buf_puts(&route, seg);
	}
	if (!route.len)
		sw__buf_putc(&route, '/');
	char *r = sw__buf_steal(&route, NULL);
	if (layout) {
		char *id = sw__asprintf("expo-router-layout:%s", r);
		json_array_append_new(s->layouts, json_pack("{sssss[s]}", "id", id, "route", r, "sourceFiles", rel));
		free(id);
	} else {
		json_t *sc = sw__scan_screen(s, "expo-router", not_found ? "not-found" : "screen", rel, 0.95, NULL);
		sw__scan_reason(sc, "an Expo Router file route (%s)", rel);
		json_object_set_new(sc, "route", json_string(r));
		json_object_set_new(sc, "app", json_string(*pkg_dir ? pkg_dir : "."));
		if (json_array_size(params))
			json_object_set(sc, "params", params);
		json_t *info = json_object_get(s->jsinfo, rel);
		const char *comp = json_string_value(json_object_get(info, "default"));
		const char *from = json_string_value(json_object_get(info, "from"));
		if (from) {
			char *dir = dir_of(rel);
			char *target = resolve_module(s, dir, pkg_dir, from);
			if (target) {
				sw__scan_add_source(sc, target);
				comp =
				    json_string_value(json_object_get(json_object_get(s->jsinfo, target), "default"));
				sw__scan_reason(sc, "the route re-exports %s", target);
			}
			free(target);
			free(dir);
		}
		if (comp)
			json_object_set_new(sc, "component", json_string(comp));
		json_object_set_new(sc, "name", json_string(comp ? comp : not_found ? "not-found" : r));
	}
	free(r);
	json_decref(params);
	free(copy);
}

void sw__scan_expo_routes(sw__scan *s)
{
	size_t i;
	json_t *a;
	json_array_foreach(s->expo_apps, i, a)
	{
		const char *dir = json_string_value(json_object_get(a, "dir"));
		const char *app = json_string_value(json_object_get(a, "appDir"));
		size_t n = strlen(app);
		/* the walk's file set, in sorted order for a stable scan */
		json_t *list = json_array();
		const char *key;
		json_t *v;
		json_object_foreach(s->files, key, v) if (!strncmp(key, app, n) && key[n] == '/')
		    json_array_append_new(list, json_string(key));
		size_t k;
		json_array_foreach(list, k, v) expo_route(s, dir, app, json_string_value(v));
		json_decref(list);
	}
	/* getComponent={() => require('./X')} names a file */
	json_array_foreach(s->screens, i, a)
	{
		json_t *req = json_object_get(a, "_require");
		if (!req)
			continue;
		char *target = resolve_module(s, json_string_value(json_object_get(req, "dir")), "",
		                              json_string_value(json_object_get(req, "spec")));
		if (target)
			sw__scan_add_source(a, target);
		free(target);
	}
}
