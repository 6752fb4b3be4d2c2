/* scan-flutter.c: Flutter rules: MaterialApp/CupertinoApp `routes: {...}` maps, onGenerateRoute (noted as dynamic),
 * go_router GoRoute trees (literal and constant paths, nested routes joined, shell routes), auto_route's @RoutePage,
 * Dart string constants, widget classes, password fields and auth packages in pubspec.yaml. */
#include <stdlib.h>
#include <string.h>

#include "appscan-internal.h"

static const char *const AUTH_PACKAGES[] = {"firebase_auth",
                                            "google_sign_in",
                                            "sign_in_with_apple",
                                            "flutter_appauth",
                                            "amplify_auth_cognito",
                                            "supabase_flutter",
                                            "local_auth",
                                            "auth0_flutter",
                                            "flutter_facebook_auth",
                                            "firebase_ui_auth",
                                            NULL};

/* Wrappers whose child is the screen: the widget a builder shows is the first call that is not one of these. */
static const char *const WRAPPERS[] = {"MaterialPage",
                                       "CupertinoPage",
                                       "CustomTransitionPage",
                                       "NoTransitionPage",
                                       "MaterialPageRoute",
                                       "CupertinoPageRoute",
                                       "PageRouteBuilder",
                                       "BlocProvider",
                                       "MultiBlocProvider",
                                       "ProviderScope",
                                       "ChangeNotifierProvider",
                                       "MultiProvider",
                                       "Consumer",
                                       "Builder",
                                       "FadeTransition",
                                       "SlideTransition",
                                       "Text",
                                       "Key",
                                       "ValueKey",
                                       "GoRouterState",
                                       NULL};

void sw__scan_pubspec(sw__scan *s, const char *rel, const char *text, size_t len)
{
	/* line by line: the package names directly under the top-level `dependencies:` key */
	bool in_deps = false;
	size_t i = 0;
	while (i < len) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		const char *line = text + i;
		size_t n = e - i;
		if (n && line[0] != ' ' && line[0] != '#' && line[0] != '\t')
			in_deps = n >= 13 && !strncmp(line, "dependencies:", 13);
		else if (in_deps && n > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ') {
			size_t k = 2;
			while (k < n && line[k] != ':' && line[k] != ' ')
				k++;
			for (const char *const *a = AUTH_PACKAGES; *a; a++)
				if (k - 2 == strlen(*a) && !strncmp(line + 2, *a, k - 2))
					sw__scan_authlib(s, *a, rel);
		}
		i = e + 1;
	}
}

static bool wrapper(const char *n)
{
	for (const char *const *w = WRAPPERS; *w; w++)
		if (!strcmp(n, *w))
			return true;
	return false;
}

/* The value index of the named argument `name:` at the top level of the call (open paren @open). */
static size_t dart_arg(const sw__toks *t, size_t open, const char *name)
{
	if (t->v[open].match < 0)
		return 0;
	size_t close = (size_t)t->v[open].match;
	for (size_t k = open + 1; k < close; k++) {
		if ((sw__tok_is(t, k, "(") || sw__tok_is(t, k, "[") || sw__tok_is(t, k, "{")) &&
		    t->v[k].match > (int32_t)k) {
			k = (size_t)t->v[k].match;
			continue;
		}
		if (sw__tok_ident(t, k, name) && sw__tok_is(t, k + 1, ":") &&
		    (sw__tok_is(t, k - 1, "(") || sw__tok_is(t, k - 1, ",")))
			return k + 2;
	}
	return 0;
}

/* The end of an argument value starting at @v: the next top-level ',' or the closing bracket. */
static size_t value_end(const sw__toks *t, size_t v)
{
	size_t k = v;
	while (k < t->n) {
		if (sw__tok_is(t, k, ",") || sw__tok_is(t, k, ")") || sw__tok_is(t, k, "]") || sw__tok_is(t, k, "}"))
			return k;
		if ((sw__tok_is(t, k, "(") || sw__tok_is(t, k, "[") || sw__tok_is(t, k, "{")) &&
		    t->v[k].match > (int32_t)k)
			k = (size_t)t->v[k].match;
		k++;
	}
	return k;
}

/* The widget a builder expression shows: the first upper-case call that is not a wrapper. */
static char *shown_widget(const sw__toks *t, size_t from, size_t to)
{
	for (size_t k = from; k < to && k < t->n; k++) {
		if (!sw__tok_kind(t, k, SW__T_IDENT) || !sw__tok_is(t, k + 1, "("))
			continue;
		if (k > 0 && sw__tok_is(t, k - 1, "."))
			continue;
		/* a call with a child: or builder: argument wraps the screen (FadeTransitionPage(child: X()), Builder)
		 */
		if (dart_arg(t, k + 1, "child") || dart_arg(t, k + 1, "builder"))
			continue;
		char *n = sw__tok_text(t, k);
		if (n && n[0] >= 'A' && n[0] <= 'Z' && !wrapper(n))
			return n;
		free(n);
	}
	return NULL;
}

static void goroute(sw__scan *s, const char *rel, const sw__toks *t, size_t open, json_t *parent, int depth);

/* Routes of a `routes: [...]` (or `branches: [...]`) list: GoRoutes get @parts as parent; shells pass it on. */
static void route_list(sw__scan *s, const char *rel, const sw__toks *t, size_t lopen, json_t *parts, int depth)
{
	if (depth > 24 || t->v[lopen].match < 0)
		return;
	size_t lclose = (size_t)t->v[lopen].match;
	for (size_t k = lopen + 1; k < lclose; k++) {
		if (sw__tok_ident(t, k, "GoRoute") && sw__tok_is(t, k + 1, "(") && t->v[k + 1].match > 0) {
			goroute(s, rel, t, k + 1, parts, depth + 1);
			k = (size_t)t->v[k + 1].match;
			continue;
		}
		size_t end = 0;
		char *n = sw__tok_dotted(t, k, &end);
		bool shell = n && (sw__str_has_prefix(n, "ShellRoute") || sw__str_has_prefix(n, "StatefulShellRoute") ||
		                   sw__str_has_prefix(n, "StatefulShellBranch"));
		free(n);
		if (shell && sw__tok_is(t, end, "(") && t->v[end].match > 0) {
			size_t r = dart_arg(t, end, "routes");
			if (!r)
				r = dart_arg(t, end, "branches");
			if (r && sw__tok_is(t, r, "["))
				route_list(s, rel, t, r, parts, depth + 1);
			k = (size_t)t->v[end].match;
		}
	}
}

static void goroute(sw__scan *s, const char *rel, const sw__toks *t, size_t open, json_t *parent, int depth)
{
	size_t pv = dart_arg(t, open, "path");
	if (!pv)
		return;
	json_t *parts = json_copy(parent);
	size_t pend = 0;
	char *ref = NULL;
	if (sw__tok_str(t, pv) && value_end(t, pv) == pv + 1) {
		json_array_append_new(parts, json_pack("{ss}", "lit", sw__tok_str(t, pv)));
	} else if ((ref = sw__tok_dotted(t, pv, &pend)) && value_end(t, pv) == pend) {
		json_array_append_new(parts, json_pack("{ss}", "ref", ref));
	} else {
		sw__scan_note(s, "computed-screen-name", rel,
		              "navigator screens whose name is computed at run time were left out");
		free(ref);
		json_decref(parts);
		return;
	}
	free(ref);
	json_t *sc = sw__scan_screen(s, "go_router", "screen", rel, 0.9, NULL);
	sw__scan_reason(sc, "a go_router GoRoute in %s (line %u)", rel, t->v[open].line);
	json_object_set(sc, "_pathParts", parts);
	size_t nv = dart_arg(t, open, "name");
	if (nv && sw__tok_str(t, nv))
		json_object_set_new(sc, "title", json_string(sw__tok_str(t, nv)));
	size_t bv = dart_arg(t, open, "builder");
	if (!bv)
		bv = dart_arg(t, open, "pageBuilder");
	if (bv) {
		char *w = shown_widget(t, bv, value_end(t, bv));
		if (w) {
			json_object_set_new(sc, "component", json_string(w));
			json_object_set_new(sc, "name", json_string(w));
		}
		free(w);
	}
	size_t rv = dart_arg(t, open, "routes");
	if (rv && sw__tok_is(t, rv, "["))
		route_list(s, rel, t, rv, parts, depth);
	json_decref(parts);
}

static void material_routes(sw__scan *s, const char *rel, const sw__toks *t, size_t open)
{
	if (t->v[open].match < 0)
		return;
	size_t close = (size_t)t->v[open].match;
	size_t k = open + 1;
	while (k < close) {
		json_t *sc = NULL;
		size_t colon = 0;
		if (sw__tok_str(t, k) && sw__tok_is(t, k + 1, ":")) {
			sc = json_pack("{ss}", "route", sw__tok_str(t, k));
			colon = k + 1;
		} else {
			size_t end = 0;
			char *ref = sw__tok_dotted(t, k, &end);
			if (ref && sw__tok_is(t, end, ":")) {
				sc = json_pack("{ssss}", "_nameRef", ref, "_nameField", "route");
				colon = end;
			} else if (ref || sw__tok_kind(t, k, SW__T_TMPL)) {
				sw__scan_note(s, "computed-screen-name", rel,
				              "navigator screens whose name is computed at run time were left out");
			}
			free(ref);
		}
		size_t vend = colon ? value_end(t, colon + 1) : value_end(t, k);
		if (sc) {
			json_t *added = sw__scan_screen(s, "flutter-routes", "screen", rel, 0.9, NULL);
			json_object_update(added, sc);
			json_decref(sc);
			sw__scan_reason(added, "an entry of a MaterialApp routes map in %s (line %u)", rel,
			                t->v[k].line);
			char *w = shown_widget(t, colon + 1, vend);
			if (w)
				json_object_set_new(added, "component", json_string(w));
			free(w);
		}
		k = vend + 1;
	}
}

void sw__scan_dart(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx)
{
	char *scope[16];
	size_t scope_close[16], nsc = 0;
	size_t consumed = 0;
	bool dynamic_noted = false;
	for (size_t i = 0; i < t->n; i++) {
		while (nsc && i > scope_close[nsc - 1])
			free(scope[--nsc]);
		if (sw__tok_ident(t, i, "obscureText") && sw__tok_is(t, i + 1, ":") && sw__tok_ident(t, i + 2, "true"))
			sw__scan_password(s, rel, "obscureText: true");
		if (sw__tok_ident(t, i, "class") && sw__tok_kind(t, i + 1, SW__T_IDENT)) {
			char *name = sw__tok_text(t, i + 1);
			sw__scan_symbol(s, name, rel);
			if (idx)
				sw__scan_index_symbol(s, idx, name);
			size_t j = i + 2;
			if (sw__tok_ident(t, j, "extends")) {
				char *sup = sw__tok_dotted(t, j + 1, NULL);
				sw__scan_super(s, name, sup);
				free(sup);
			}
			/* auto_route: @RoutePage() on the class */
			for (size_t k = i; k-- > 0 && k + 12 > i;) {
				if (sw__tok_is(t, k, "@") && sw__tok_ident(t, k + 1, "RoutePage")) {
					json_t *sc = sw__scan_screen(s, "auto_route", "screen", rel, 0.8, NULL);
					json_object_set_new(sc, "name", json_string(name));
					json_object_set_new(sc, "component", json_string(name));
					sw__scan_reason(sc, "an auto_route @RoutePage class in %s", rel);
					sw__scan_note(s, "auto-route", rel,
					              "auto_route pages are listed by their @RoutePage classes; their "
					              "paths live in the "
					              "generated router and are not read");
					break;
				}
				if (sw__tok_is(t, k, "}") || sw__tok_is(t, k, ";"))
					break;
			}
			while (j < t->n && j < i + 60 && !sw__tok_is(t, j, "{") && !sw__tok_is(t, j, ";"))
				j++;
			if (sw__tok_is(t, j, "{") && t->v[j].match > 0 && nsc < 16) {
				scope[nsc] = name;
				scope_close[nsc++] = (size_t)t->v[j].match;
				name = NULL;
			}
			free(name);
			continue;
		}
		/* constants: [static] const|final [String] x = 'a'; */
		if ((sw__tok_ident(t, i, "const") || sw__tok_ident(t, i, "final")) && i + 3 < t->n) {
			size_t j = i + 1;
			if (sw__tok_ident(t, j, "String"))
				j++;
			if (sw__tok_kind(t, j, SW__T_IDENT) && sw__tok_is(t, j + 1, "=") && sw__tok_str(t, j + 2) &&
			    sw__tok_is(t, j + 3, ";")) {
				char *n = sw__tok_text(t, j);
				sw__scan_const(s, n, sw__tok_str(t, j + 2), rel);
				if (nsc) {
					char *q = sw__asprintf("%s.%s", scope[nsc - 1], n);
					sw__scan_const(s, q, sw__tok_str(t, j + 2), rel);
					free(q);
				}
				free(n);
			}
		}
		if (sw__tok_ident(t, i, "onGenerateRoute") && sw__tok_is(t, i + 1, ":") && !dynamic_noted) {
			sw__scan_note(s, "dynamic-routes", rel,
			              "routes made by onGenerateRoute are decided at run time and are not listed");
			dynamic_noted = true;
		}
		if (sw__tok_ident(t, i, "routes") && sw__tok_is(t, i + 1, ":") && sw__tok_is(t, i + 2, "{"))
			material_routes(s, rel, t, i + 2);
		if (i >= consumed && sw__tok_ident(t, i, "GoRoute") && sw__tok_is(t, i + 1, "(") &&
		    t->v[i + 1].match > 0) {
			json_t *root = json_array();
			goroute(s, rel, t, i + 1, root, 0);
			json_decref(root);
			consumed = (size_t)t->v[i + 1].match;
		}
		if (i >= consumed && (sw__tok_ident(t, i, "ShellRoute") || sw__tok_ident(t, i, "StatefulShellRoute"))) {
			/* the shell's own routes are reached by this loop (it has no path): nothing to do here */
		}
	}
	while (nsc)
		free(scope[--nsc]);
}
