/* scan-android.c: Android rules: Gradle settings (the modules), manifests of every module (activities,
 * activity-alias, deep links), Jetpack Navigation XML graphs, layouts with password fields, and Kotlin/Java
 * source: constants, classes, and Compose Navigation destinations (composable/dialog/navigation/entry). */
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "appscan-internal.h"

#define ANDROID_NS "http://schemas.android.com/apk/res/android"
#define APP_NS "http://schemas.android.com/apk/res-auto"
#define TOOLS_NS "http://schemas.android.com/tools"

static char *dir_of(const char *rel)
{
	const char *slash = strrchr(rel, '/');
	return slash ? sw__strndup(rel, (size_t)(slash - rel)) : sw__strdup("");
}

static char *join_rel(const char *dir, const char *name)
{
	return *dir ? sw__asprintf("%s/%s", dir, name) : sw__strdup(name);
}

static const char *const AUTH_ARTIFACTS[] = {"firebase-auth",      "play-services-auth", "androidx.credentials",
                                             "net.openid:appauth", "com.auth0.android",  "com.okta.android",
                                             "googleid",           "firebase-ui-auth",   NULL};

/* ---- Gradle ---------------------------------------------------------------------------------------------- */

void sw__scan_gradle(sw__scan *s, const char *rel, const sw__toks *t)
{
	char *dir = dir_of(rel);
	bool settings = sw__str_has_suffix(rel, "settings.gradle") || sw__str_has_suffix(rel, "settings.gradle.kts");
	if (settings) {
		json_t *mods = json_object_get(s->gradle, dir);
		if (!mods) {
			mods = json_object();
			json_object_set_new(s->gradle, dir, mods);
		}
		for (size_t i = 0; i < t->n; i++) {
			if (sw__tok_ident(t, i, "include")) {
				size_t j = i + 1, stop = t->n;
				if (sw__tok_is(t, j, "(") && t->v[j].match > 0) {
					stop = (size_t)t->v[j].match;
					j++;
				}
				unsigned line = t->v[i].line;
				for (; j < stop; j++) {
					const char *v = sw__tok_str(t, j);
					if (v) {
						const char *p = v[0] == ':' ? v + 1 : v;
						char *path = sw__strdup(p);
						for (char *c = path; c && *c; c++)
							if (*c == ':')
								*c = '/';
						char *mdir = path ? join_rel(dir, path) : NULL;
						if (mdir && !json_object_get(mods, v))
							json_object_set_new(mods, v, json_string(mdir));
						free(mdir);
						free(path);
						line = t->v[j].line;
					} else if (sw__tok_is(t, j, ",")) {
						continue;
					} else if (stop == t->n) {
						break; /* Groovy: include ':a', ':b' ends at the first thing that is not
						          a name */
					}
					if (stop == t->n && !sw__tok_is(t, j + 1, ",") && t->v[j].line == line)
						break;
				}
			}
			/* project(':x').projectDir = file('path') moves a module */
			if (sw__tok_ident(t, i, "project") && sw__tok_is(t, i + 1, "(") && sw__tok_str(t, i + 2) &&
			    sw__tok_is(t, i + 3, ")") && sw__tok_is(t, i + 4, ".") &&
			    sw__tok_ident(t, i + 5, "projectDir") && sw__tok_is(t, i + 6, "=")) {
				for (size_t k = i + 7; k < i + 12 && k < t->n; k++)
					if (sw__tok_str(t, k)) {
						char *mdir = join_rel(dir, sw__tok_str(t, k));
						json_object_set_new(mods, sw__tok_str(t, i + 2), json_string(mdir));
						free(mdir);
						break;
					}
			}
		}
	} else {
		for (size_t i = 0; i + 1 < t->n; i++) {
			if (sw__tok_ident(t, i, "namespace")) {
				size_t j = sw__tok_is(t, i + 1, "=") ? i + 2 : i + 1;
				if (sw__tok_str(t, j))
					json_object_set_new(s->namespaces, dir, json_string(sw__tok_str(t, j)));
			}
			const char *v = sw__tok_str(t, i);
			if (v)
				for (const char *const *a = AUTH_ARTIFACTS; *a; a++)
					if (strstr(v, *a)) {
						sw__scan_authlib(s, *a, rel);
						break;
					}
		}
	}
	free(dir);
}

/* ---- Kotlin and Java ---------------------------------------------------------------------------------------- */

typedef struct scope {
	char *name;
	size_t close;
} scope;

/* The '{' opening the body of the declaration whose name is at @i, or 0 when it has none. */
static size_t body_open(const sw__toks *t, size_t i, bool java)
{
	for (size_t j = i + 1; j < t->n && j < i + 400; j++) {
		if (sw__tok_is(t, j, "{"))
			return j;
		if ((sw__tok_is(t, j, "(") || sw__tok_is(t, j, "[")) && t->v[j].match > (int32_t)j) {
			j = (size_t)t->v[j].match;
			continue;
		}
		if (sw__tok_is(t, j, "}") || sw__tok_is(t, j, ";") || sw__tok_is(t, j, "="))
			return 0;
		if (!java && t->v[j].line > t->v[i].line &&
		    (sw__tok_ident(t, j, "fun") || sw__tok_ident(t, j, "val") || sw__tok_ident(t, j, "var") ||
		     sw__tok_ident(t, j, "class") || sw__tok_ident(t, j, "object") ||
		     sw__tok_ident(t, j, "interface") || sw__tok_ident(t, j, "data") || sw__tok_ident(t, j, "sealed") ||
		     sw__tok_ident(t, j, "private") || sw__tok_ident(t, j, "internal") ||
		     sw__tok_ident(t, j, "public") || sw__tok_ident(t, j, "enum") || sw__tok_is(t, j, "@")))
			return 0;
	}
	return 0;
}

static char *qualified(scope *sc, size_t n, const char *name)
{
	sw_buf b = SW_BUF_INIT;
	for (size_t k = 0; k < n; k++)
		if (sc[k].name) {
			sw__buf_puts(&b, sc[k].name);
			sw__buf_putc(&b, '.');
		}
	sw__buf_puts(&b, name);
	return sw__buf_steal(&b, NULL);
}

/* Registers @full and each of its dotted suffixes ("A.B.c", "B.c", "c") as the constant @value. */
static void const_all(sw__scan *s, const char *full, const char *value, const char *rel)
{
	for (const char *p = full; p; p = strchr(p, '.') ? strchr(p, '.') + 1 : NULL)
		sw__scan_const(s, p, value, rel);
}

static bool on_import_line(const sw__toks *t, size_t i)
{
	/* import x.composable; fun NavGraphBuilder.composable(...) declares it: neither is a destination */
	for (size_t k = i; k-- > 0 && t->v[k].line == t->v[i].line;) {
		if (sw__tok_ident(t, k, "import") || sw__tok_ident(t, k, "package") || sw__tok_ident(t, k, "fun"))
			return true;
		if (sw__tok_is(t, k, "(") || sw__tok_is(t, k, "{") || sw__tok_is(t, k, "=") || sw__tok_is(t, k, ")"))
			return false;
	}
	return false;
}

static const char *const NOT_SCREENS[] = {"Modifier",
                                          "Text",
                                          "Box",
                                          "Column",
                                          "Row",
                                          "Surface",
                                          "Scaffold",
                                          "LaunchedEffect",
                                          "DisposableEffect",
                                          "Spacer",
                                          "Icon",
                                          "Image",
                                          "CompositionLocalProvider",
                                          "BackHandler",
                                          "Card",
                                          "LazyColumn",
                                          "MaterialTheme",
                                          "Dialog",
                                          "AlertDialog",
                                          "ModalBottomSheet",
                                          NULL};

static bool stop_listed(const char *n)
{
	for (const char *const *p = NOT_SCREENS; *p; p++)
		if (!strcmp(n, *p))
			return true;
	return false;
}

/* Upper-case calls inside a destination's content lambda: candidates for its screen composable. */
static json_t *content_calls(const sw__toks *t, size_t open, size_t close)
{
	json_t *calls = json_array();
	for (size_t k = open + 1; k < close && json_array_size(calls) < 8; k++) {
		if (!sw__tok_kind(t, k, SW__T_IDENT) || !(sw__tok_is(t, k + 1, "(") || sw__tok_is(t, k + 1, "{")))
			continue;
		if (k > 0 && sw__tok_is(t, k - 1, "."))
			continue;
		char *n = sw__tok_text(t, k);
		if (n && n[0] >= 'A' && n[0] <= 'Z' && !stop_listed(n))
			json_array_append_new(calls, json_string(n));
		free(n);
	}
	return calls;
}

/* The value given to a named argument @name (Kotlin `name = v`), or the first positional one. */
static size_t arg_value(const sw__toks *t, size_t open, size_t close, const char *name, bool positional)
{
	size_t k = open + 1;
	bool first = true;
	while (k < close) {
		if (sw__tok_ident(t, k, name) && sw__tok_is(t, k + 1, "="))
			return k + 2;
		if (first && positional &&
		    !(sw__tok_kind(t, k, SW__T_IDENT) && sw__tok_is(t, k + 1, "=") && !sw__tok_is(t, k + 2, "=")))
			return k;
		first = false;
		while (k < close && !sw__tok_is(t, k, ",")) {
			if ((sw__tok_is(t, k, "(") || sw__tok_is(t, k, "{") || sw__tok_is(t, k, "[")) &&
			    t->v[k].match > (int32_t)k)
				k = (size_t)t->v[k].match;
			k++;
		}
		k++;
	}
	return 0;
}

static void compose_destination(sw__scan *s, const char *rel, const sw__toks *t, size_t i)
{
	char *fn = sw__tok_text(t, i);
	bool graph = !strcmp(fn, "navigation");
	bool dialog = !strcmp(fn, "dialog") || !strcmp(fn, "bottomSheet");
	bool entry = !strcmp(fn, "entry");
	free(fn);
	size_t j = i + 1;
	char *type = NULL;
	if (sw__tok_is(t, j, "<")) {
		size_t end = 0;
		type = sw__tok_dotted(t, j + 1, &end);
		if (!type || !sw__tok_is(t, end, ">")) {
			free(type);
			return;
		}
		j = end + 1;
	}
	size_t aopen = 0, aclose = 0, bopen = 0, bclose = 0;
	if (sw__tok_is(t, j, "(") && t->v[j].match > (int32_t)j) {
		aopen = j;
		aclose = (size_t)t->v[j].match;
		j = aclose + 1;
	}
	if (sw__tok_is(t, j, "{") && t->v[j].match > (int32_t)j) {
		bopen = j;
		bclose = (size_t)t->v[j].match;
	}
	if (!type && !aopen) {
		return;
	}
	if (!bopen && aopen) { /* content = { ... } given as an argument */
		size_t v = arg_value(t, aopen, aclose, "content", false);
		if (v && sw__tok_is(t, v, "{") && t->v[v].match > (int32_t)v) {
			bopen = v;
			bclose = (size_t)t->v[v].match;
		}
	}
	if (entry && !type)
		return; /* entry(key) with a run-time key */
	json_t *sc = json_object();
	if (type) {
		const char *simple = strrchr(type, '.');
		simple = simple ? simple + 1 : type;
		json_object_set_new(sc, "route", json_string(simple));
		json_object_set_new(sc, "name", json_string(simple));
		json_object_set_new(sc, "_key", json_string(type));
	} else {
		size_t v = arg_value(t, aopen, aclose, "route", true);
		const char *lit = v ? sw__tok_str(t, v) : NULL;
		size_t end = 0;
		char *ref = v && !lit ? sw__tok_dotted(t, v, &end) : NULL;
		if (lit) {
			json_object_set_new(sc, "route", json_string(lit));
		} else if (ref && (sw__tok_is(t, end, ",") || end == aclose)) {
			json_object_set_new(sc, "_nameRef", json_string(ref));
			json_object_set_new(sc, "_nameField", json_string("route"));
		} else {
			if (!graph)
				sw__scan_note(s, "computed-screen-name", rel,
				              "navigator screens whose name is computed at run time were left out");
			free(ref);
			json_decref(sc);
			return;
		}
		free(ref);
	}
	free(type);
	if (graph) {
		const char *route = json_string_value(json_object_get(sc, "route"));
		const char *ref = json_string_value(json_object_get(sc, "_nameRef"));
		char *id = sw__asprintf("compose-navigation-graph:%s", route ? route : ref);
		json_array_append_new(s->graphs, json_pack("{sssssss[s]}", "id", id, "route", route ? route : ref,
		                                           "kind", "navigation", "sourceFiles", rel));
		free(id);
		json_decref(sc);
		return;
	}
	json_t *added = sw__scan_screen(s, entry ? "navigation3" : "compose-navigation", dialog ? "dialog" : "screen",
	                                rel, 0.9, NULL);
	json_object_update(added, sc);
	json_decref(sc);
	sw__scan_reason(added, "a Compose Navigation destination in %s (line %u)", rel, t->v[i].line);
	if (bopen)
		json_object_set_new(added, "_calls", content_calls(t, bopen, bclose));
}

static void kotlin_passwords(sw__scan *s, const char *rel, const sw__toks *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (sw__tok_ident(t, i, "PasswordVisualTransformation") ||
		    sw__tok_ident(t, i, "TYPE_TEXT_VARIATION_PASSWORD") ||
		    (sw__tok_ident(t, i, "KeyboardType") && sw__tok_is(t, i + 1, ".") &&
		     sw__tok_ident(t, i + 2, "Password")) ||
		    (sw__tok_ident(t, i, "ContentType") && sw__tok_is(t, i + 1, ".") &&
		     sw__tok_ident(t, i + 2, "Password"))) {
			char *m = sw__tok_text(t, i);
			sw__scan_password(s, rel, m);
			free(m);
			return;
		}
	}
}

/* Layouts a Kotlin/Java file uses: R.layout.x and XxxBinding (view binding of xxx.xml). */
static void layout_refs(sw__scan *s, const char *rel, const sw__toks *t)
{
	json_t *refs = NULL;
	for (size_t i = 0; i + 4 < t->n; i++) {
		char *name = NULL;
		if (sw__tok_ident(t, i, "R") && sw__tok_is(t, i + 1, ".") && sw__tok_ident(t, i + 2, "layout") &&
		    sw__tok_is(t, i + 3, ".") && sw__tok_kind(t, i + 4, SW__T_IDENT))
			name = sw__tok_text(t, i + 4);
		if (!name)
			continue;
		if (!refs)
			refs = json_object();
		json_object_set_new(refs, name, json_true());
		free(name);
	}
	if (refs)
		json_object_set_new(s->layoutrefs, rel, refs);
}

void sw__scan_kotlin(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx, bool java)
{
	scope sc[32];
	size_t nsc = 0;
	kotlin_passwords(s, rel, t);
	layout_refs(s, rel, t);
	for (size_t i = 0; i < t->n; i++) {
		while (nsc && i > sc[nsc - 1].close)
			free(sc[--nsc].name);
		bool kw_class =
		    sw__tok_ident(t, i, "class") || sw__tok_ident(t, i, "object") || sw__tok_ident(t, i, "interface");
		if (kw_class && i > 0 && sw__tok_is(t, i - 1, "."))
			kw_class = false; /* X::class, X.class */
		if (kw_class && sw__tok_ident(t, i, "object") && i > 0 && sw__tok_ident(t, i - 1, "companion")) {
			size_t open = body_open(t, i, java);
			if (open && nsc < 32) {
				sc[nsc].name = NULL; /* companion members are reached as Class.X */
				sc[nsc++].close = (size_t)t->v[open].match;
			}
			continue;
		}
		if (kw_class && sw__tok_kind(t, i + 1, SW__T_IDENT)) {
			char *name = sw__tok_text(t, i + 1);
			bool enum_class = i > 0 && sw__tok_ident(t, i - 1, "enum");
			char *q = qualified(sc, nsc, name);
			sw__scan_symbol(s, name, rel);
			if (idx)
				sw__scan_index_symbol(s, idx, q);
			/* constructor: class Screen(val route: String) */
			size_t j = i + 2;
			if (sw__tok_is(t, j, "<")) {
				while (j < t->n && j < i + 40 && !sw__tok_is(t, j, ">"))
					j++;
				j++;
			}
			if (sw__tok_ident(t, j, "constructor"))
				j++;
			if (sw__tok_is(t, j, "(") && t->v[j].match > (int32_t)j) {
				size_t k = j + 1;
				while (k < (size_t)t->v[j].match && sw__tok_is(t, k, "@"))
					k += 2;
				while (sw__tok_ident(t, k, "private") || sw__tok_ident(t, k, "open") ||
				       sw__tok_ident(t, k, "override"))
					k++;
				if ((sw__tok_ident(t, k, "val") || sw__tok_ident(t, k, "var")) &&
				    sw__tok_kind(t, k + 1, SW__T_IDENT)) {
					char *p = sw__tok_text(t, k + 1);
					json_object_set_new(s->class_params, name, json_string(p));
					free(p);
				}
				j = (size_t)t->v[j].match + 1;
			}
			/* supertypes: object Home : Screen("home"); class A : B(), C; class X extends Y */
			if (sw__tok_is(t, j, ":") || sw__tok_ident(t, j, "extends")) {
				size_t end = 0;
				char *sup = sw__tok_dotted(t, j + 1, &end);
				if (sup) {
					sw__scan_super(s, name, sup);
					if (sw__tok_ident(t, i, "object") && sw__tok_is(t, end, "(") &&
					    sw__tok_str(t, end + 1))
						json_array_append_new(s->kotlin_objs,
						                      json_pack("{ssssssss}", "obj", q, "super", sup,
						                                "value", sw__tok_str(t, end + 1),
						                                "file", rel));
				}
				free(sup);
			}
			size_t open = body_open(t, i + 1, java);
			if (open && nsc < 32) {
				sc[nsc].name = sw__strdup(name);
				sc[nsc++].close = (size_t)t->v[open].match;
				if (enum_class && json_object_get(s->class_params, name)) {
					/* enum entries: HOME("home"), ... */
					const char *param = json_string_value(json_object_get(s->class_params, name));
					for (size_t k = open + 1; k + 2 < (size_t)t->v[open].match; k++) {
						if (sw__tok_is(t, k, ";"))
							break;
						if (sw__tok_kind(t, k, SW__T_IDENT) && sw__tok_is(t, k + 1, "(") &&
						    sw__tok_str(t, k + 2)) {
							char *e = sw__tok_text(t, k);
							char *full = sw__asprintf("%s.%s.%s", q, e, param);
							const_all(s, full, sw__tok_str(t, k + 2), rel);
							free(full);
							free(e);
						}
					}
				}
			}
			free(q);
			free(name);
			continue;
		}
		/* constants: const val X = "a"; val X = "a"; Java static final String X = "a" */
		if ((sw__tok_ident(t, i, "val") || sw__tok_ident(t, i, "var")) && sw__tok_kind(t, i + 1, SW__T_IDENT)) {
			size_t j = i + 2;
			if (sw__tok_is(t, j, ":") && sw__tok_kind(t, j + 1, SW__T_IDENT))
				j += 2;
			if (sw__tok_is(t, j, "=") && sw__tok_str(t, j + 1)) {
				char *name = sw__tok_text(t, i + 1);
				char *q = qualified(sc, nsc, name);
				const_all(s, q, sw__tok_str(t, j + 1), rel);
				free(q);
				free(name);
			}
			continue;
		}
		if (java && sw__tok_ident(t, i, "String") && sw__tok_kind(t, i + 1, SW__T_IDENT) &&
		    sw__tok_is(t, i + 2, "=") && sw__tok_str(t, i + 3)) {
			char *name = sw__tok_text(t, i + 1);
			char *q = qualified(sc, nsc, name);
			const_all(s, q, sw__tok_str(t, i + 3), rel);
			free(q);
			free(name);
			continue;
		}
		if (!java && sw__tok_ident(t, i, "fun")) {
			size_t j = i + 1;
			if (sw__tok_is(t, j, "<") && j + 1 < t->n) {
				while (j < t->n && j < i + 40 && !sw__tok_is(t, j, ">"))
					j++;
				j++;
			}
			size_t end = 0;
			char *name = sw__tok_dotted(t, j, &end);
			if (name && sw__tok_is(t, end, "(")) {
				const char *simple = strrchr(name, '.');
				simple = simple ? simple + 1 : name;
				if (simple[0] >= 'A' && simple[0] <= 'Z')
					sw__scan_symbol(s, simple, rel);
				if (idx && nsc == 0)
					sw__scan_index_symbol(s, idx, simple);
			}
			free(name);
			continue;
		}
		if (!java &&
		    (sw__tok_ident(t, i, "composable") || sw__tok_ident(t, i, "dialog") ||
		     sw__tok_ident(t, i, "navigation") || sw__tok_ident(t, i, "entry") ||
		     sw__tok_ident(t, i, "bottomSheet")) &&
		    !on_import_line(t, i) && !sw__tok_is(t, i + 1, "=") && !(i > 0 && sw__tok_ident(t, i - 1, "val")))
			compose_destination(s, rel, t, i);
	}
	while (nsc)
		free(sc[--nsc].name);
}

/* ---- XML: manifests, navigation graphs, layouts ------------------------------------------------------------- */

static xmlDocPtr parse_xml(sw__scan *s, const char *rel, const char *text, size_t len)
{
	if (len > INT32_MAX)
		return NULL;
	/* no network, no entity expansion, no DTD loading; errors are not printed */
	xmlDocPtr doc =
	    xmlReadMemory(text, (int)len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		sw__scan_note(s, "xml-parse-error", rel, "XML files that do not parse were skipped");
	return doc;
}

static char *attr(xmlNodePtr n, const char *ns, const char *name)
{
	xmlChar *v = ns ? xmlGetNsProp(n, (const xmlChar *)name, (const xmlChar *)ns) : NULL;
	if (!v)
		v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	char *out = sw__utf8_valid((const char *)v, strlen((const char *)v))
	                ? sw__strdup((const char *)v)
	                : sw__utf8_sanitize((const char *)v, strlen((const char *)v));
	xmlFree(v);
	return out;
}

static bool is_el(xmlNodePtr n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

void sw__scan_layout_xml(sw__scan *s, const char *rel, const char *text, size_t len)
{
	xmlDocPtr doc = parse_xml(s, rel, text, len);
	if (!doc)
		return;
	xmlNodePtr stack[64];
	size_t sp = 0;
	xmlNodePtr root = xmlDocGetRootElement(doc);
	if (root)
		stack[sp++] = root;
	while (sp) {
		xmlNodePtr n = stack[--sp];
		if (n->type == XML_ELEMENT_NODE) {
			char *it = attr(n, ANDROID_NS, "inputType");
			char *pw = attr(n, ANDROID_NS, "password");
			char *icon = attr(n, APP_NS, "endIconMode");
			bool hit = (it && strstr(it, "Password") && !strstr(it, "Visible")) ||
			           (pw && !strcmp(pw, "true")) || (icon && !strcmp(icon, "password_toggle"));
			free(it);
			free(pw);
			free(icon);
			if (hit) {
				sw__scan_password(s, rel, "inputType=\"textPassword\"");
				break;
			}
		}
		for (xmlNodePtr c = n->children; c && sp < 64; c = c->next)
			if (c->type == XML_ELEMENT_NODE)
				stack[sp++] = c;
	}
	xmlFreeDoc(doc);
}

static char *full_class(const char *name, const char *pkg)
{
	if (!name)
		return NULL;
	if (name[0] == '.' && pkg)
		return sw__asprintf("%s%s", pkg, name);
	if (!strchr(name, '.') && pkg)
		return sw__asprintf("%s.%s", pkg, name);
	return sw__strdup(name[0] == '.' ? name + 1 : name);
}

static const char *simple_of(const char *fqn)
{
	const char *d = strrchr(fqn, '.');
	return d ? d + 1 : fqn;
}

/* The intent filters of an activity: launcher flag and deep links. */
static void intent_filters(sw__scan *s, xmlNodePtr act, const char *screen_id, const char *rel, json_t *sc)
{
	for (xmlNodePtr f = act->children; f; f = f->next) {
		if (!is_el(f, "intent-filter"))
			continue;
		bool main = false, launcher = false, view = false;
		json_t *data = json_array();
		for (xmlNodePtr c = f->children; c; c = c->next) {
			char *v = attr(c, ANDROID_NS, "name");
			if (is_el(c, "action") && v && !strcmp(v, "android.intent.action.MAIN"))
				main = true;
			if (is_el(c, "action") && v && !strcmp(v, "android.intent.action.VIEW"))
				view = true;
			if (is_el(c, "category") && v && !strcmp(v, "android.intent.category.LAUNCHER"))
				launcher = true;
			free(v);
			if (is_el(c, "data")) {
				char *scheme = attr(c, ANDROID_NS, "scheme"), *host = attr(c, ANDROID_NS, "host");
				char *path = attr(c, ANDROID_NS, "path");
				if (!path)
					path = attr(c, ANDROID_NS, "pathPrefix");
				if (!path)
					path = attr(c, ANDROID_NS, "pathPattern");
				json_array_append_new(
				    data, json_pack("{s:s?,s:s?,s:s?}", "scheme", scheme, "host", host, "path", path));
				free(scheme);
				free(host);
				free(path);
			}
		}
		if (main && launcher && sc)
			json_object_set_new(sc, "launcher", json_true());
		if (view) {
			size_t i;
			json_t *d;
			json_array_foreach(data, i, d)
			{
				json_object_set_new(d, "screen", json_string(screen_id));
				json_object_set_new(d, "source", json_string(rel));
				json_array_append(s->deeplinks, d);
			}
		}
		json_decref(data);
	}
}

static void scan_manifest(sw__scan *s, const char *rel, const char *module_dir, const char *text, size_t len)
{
	xmlDocPtr doc = parse_xml(s, rel, text, len);
	if (!doc)
		return;
	xmlNodePtr root = xmlDocGetRootElement(doc);
	char *pkg = root ? attr(root, NULL, "package") : NULL;
	if (!pkg && module_dir && json_object_get(s->namespaces, module_dir))
		pkg = sw__strdup(json_string_value(json_object_get(s->namespaces, module_dir)));
	for (xmlNodePtr app = root ? root->children : NULL; app; app = app->next) {
		if (!is_el(app, "application"))
			continue;
		for (xmlNodePtr a = app->children; a; a = a->next) {
			bool activity = is_el(a, "activity"), alias = is_el(a, "activity-alias");
			if (!activity && !alias)
				continue;
			char *node = attr(a, TOOLS_NS, "node");
			bool removed = node && !strcmp(node, "remove");
			free(node);
			char *name = attr(a, ANDROID_NS, "name");
			char *fqn = full_class(name, pkg);
			if (removed || !fqn) {
				free(name);
				free(fqn);
				continue;
			}
			if (alias) {
				char *target = attr(a, ANDROID_NS, "targetActivity");
				char *tfqn = full_class(target, pkg);
				if (tfqn) {
					char *to = sw__asprintf("android-manifest:%s", tfqn);
					json_array_append_new(s->edges,
					                      json_pack("{ssssssssss}", "from", fqn, "to", to, "kind",
					                                "alias", "source", rel, "alias", fqn));
					intent_filters(s, a, to, rel, NULL);
					free(to);
				}
				free(target);
				free(tfqn);
			} else {
				json_t *sc = sw__scan_screen(s, "android-manifest", "activity", rel, 0.9, NULL);
				json_object_set_new(sc, "name", json_string(simple_of(fqn)));
				json_object_set_new(sc, "component", json_string(fqn));
				json_object_set_new(sc, "_key", json_string(fqn));
				sw__scan_reason(sc, "an <activity> in %s", rel);
				if (!json_object_get(s->symfile, simple_of(fqn))) {
					json_object_set_new(sc, "confidence", json_real(0.6));
					sw__scan_reason(
					    sc, "its class is not in the project's source (a library's activity?)");
				}
				char *id = sw__asprintf("android-manifest:%s", fqn);
				intent_filters(s, a, id, rel, sc);
				free(id);
			}
			free(name);
			free(fqn);
		}
	}
	free(pkg);
	xmlFreeDoc(doc);
}

static const char *dest_id(const char *v)
{
	if (!v)
		return NULL;
	if (sw__str_has_prefix(v, "@+id/"))
		return v + 5;
	if (sw__str_has_prefix(v, "@id/"))
		return v + 4;
	return v;
}

static void nav_graph(sw__scan *s, const char *rel, xmlNodePtr g, int depth)
{
	if (depth > 16)
		return;
	char *gid = attr(g, ANDROID_NS, "id");
	if (depth > 0 || gid) {
		char *id = sw__asprintf("jetpack-navigation-graph:%s", gid ? dest_id(gid) : rel);
		json_array_append_new(s->graphs,
		                      json_pack("{sssss[s]}", "id", id, "kind", "navigation", "sourceFiles", rel));
		free(id);
	}
	free(gid);
	char *resdir = NULL;
	const char *r = strstr(rel, "/res/navigation");
	if (r)
		resdir = sw__strndup(rel, (size_t)(r - rel) + 5);
	for (xmlNodePtr d = g->children; d; d = d->next) {
		if (is_el(d, "navigation")) {
			nav_graph(s, rel, d, depth + 1);
			continue;
		}
		bool frag = is_el(d, "fragment"), dlg = is_el(d, "dialog"), act = is_el(d, "activity");
		if (!frag && !dlg && !act)
			continue;
		char *idv = attr(d, ANDROID_NS, "id"), *name = attr(d, ANDROID_NS, "name"),
		     *label = attr(d, ANDROID_NS, "label");
		const char *id = dest_id(idv);
		if (!id && !name) {
			free(idv);
			free(name);
			free(label);
			continue;
		}
		json_t *sc;
		char *sid;
		if (act && name) {
			sc = sw__scan_screen(s, "android-manifest", "activity", rel, 0.9, NULL);
			json_object_set_new(sc, "_key", json_string(name));
			json_object_set_new(sc, "name", json_string(simple_of(name)));
			sid = sw__asprintf("android-manifest:%s", name);
		} else {
			sc = sw__scan_screen(s, "jetpack-navigation", dlg ? "dialog" : "fragment", rel, 0.9, NULL);
			json_object_set_new(sc, "_key", json_string(id ? id : name));
			json_object_set_new(sc, "name", json_string(name ? simple_of(name) : id));
			if (id)
				json_object_set_new(sc, "route", json_string(id));
			sid = sw__asprintf("jetpack-navigation:%s", id ? id : name);
		}
		if (name)
			json_object_set_new(sc, "component", json_string(name));
		if (label)
			json_object_set_new(sc, "title", json_string(label));
		sw__scan_reason(sc, "a <%s> destination of the navigation graph %s", (const char *)d->name, rel);
		char *layout = attr(d, TOOLS_NS, "layout");
		if (layout && resdir && sw__str_has_prefix(layout, "@layout/")) {
			char *lp = sw__asprintf("%s/layout/%s.xml", resdir, layout + 8);
			if (sw__scan_has_file(s, lp))
				sw__scan_add_source(sc, lp);
			free(lp);
		}
		free(layout);
		for (xmlNodePtr c = d->children; c; c = c->next) {
			if (is_el(c, "action")) {
				char *dst = attr(c, APP_NS, "destination");
				if (dst) {
					char *to = sw__asprintf("jetpack-navigation:%s", dest_id(dst));
					json_array_append_new(s->edges, json_pack("{ssssssss}", "from", sid, "to", to,
					                                          "kind", "action", "source", rel));
					free(to);
				}
				free(dst);
			} else if (is_el(c, "deepLink")) {
				char *uri = attr(c, APP_NS, "uri");
				if (uri)
					json_array_append_new(s->deeplinks, json_pack("{ssssss}", "uri", uri, "screen",
					                                              sid, "source", rel));
				free(uri);
			}
		}
		free(sid);
		free(idv);
		free(name);
		free(label);
	}
	free(resdir);
}

/* The module (listed in a settings.gradle) that holds @rel, as its dir, or NULL. */
static const char *module_of(sw__scan *s, const char *rel, bool *listed_any)
{
	const char *best = NULL;
	size_t best_len = 0;
	const char *sdir;
	json_t *mods;
	json_object_foreach(s->gradle, sdir, mods)
	{
		*listed_any = true;
		const char *name;
		json_t *d;
		json_object_foreach(mods, name, d)
		{
			const char *dir = json_string_value(d);
			size_t n = strlen(dir);
			if (!strncmp(rel, dir, n) && rel[n] == '/' && n >= best_len) {
				const char *rest = rel + n + 1;
				/* src/<set>/AndroidManifest.xml or AndroidManifest.xml: not a nested module's */
				if (!strcmp(rest, "AndroidManifest.xml") ||
				    (sw__str_has_prefix(rest, "src/") && strchr(rest + 4, '/') &&
				     !strcmp(strchr(rest + 4, '/') + 1, "AndroidManifest.xml"))) {
					best = dir;
					best_len = n;
				}
			}
		}
	}
	return best;
}

void sw__scan_android_finish(sw__scan *s, int (*read)(sw__scan *, const char *, char **, size_t *))
{
	/* layouts with a password field make the classes that inflate them password files */
	const char *file;
	json_t *refs;
	json_object_foreach(s->layoutrefs, file, refs)
	{
		const char *lname;
		json_t *v;
		json_object_foreach(refs, lname, v)
		{
			const char *pfile;
			json_t *m;
			char *suffix = sw__asprintf("/%s.xml", lname);
			json_object_foreach(s->pwfiles, pfile,
			                    m) if (strstr(pfile, "/res/layout") && sw__str_has_suffix(pfile, suffix))
			{
				char *marker = sw__asprintf("layout %s: %s", lname, json_string_value(m));
				sw__scan_password(s, file, marker);
				free(marker);
				break;
			}
			free(suffix);
		}
	}
	/* modules named in settings.gradle that are not in the tree */
	const char *sdir;
	json_t *mods;
	json_object_foreach(s->gradle, sdir, mods)
	{
		const char *name;
		json_t *d;
		json_object_foreach(mods, name, d)
		{
			const char *dir = json_string_value(d);
			size_t n = strlen(dir);
			bool found = false;
			const char *key;
			json_t *x;
			json_object_foreach(s->files, key, x) if (!strncmp(key, dir, n) && key[n] == '/')
			{
				found = true;
				break;
			}
			if (!found)
				sw__scan_note(s, "module-missing", dir,
				              "modules listed in settings.gradle with no files in the tree");
		}
	}
	size_t i;
	json_t *m;
	json_array_foreach(s->manifests, i, m)
	{
		const char *rel = json_string_value(m);
		bool listed_any = false;
		const char *module = module_of(s, rel, &listed_any);
		if (listed_any && !module) {
			sw__scan_note(
			    s, "manifest-outside-modules", rel,
			    "AndroidManifest.xml files outside the modules listed in settings.gradle were not read");
			continue;
		}
		char *text = NULL;
		size_t len = 0;
		if (read(s, rel, &text, &len) != SW_OK)
			continue;
		scan_manifest(s, rel, module, text, len);
		free(text);
	}
	json_array_foreach(s->navxml, i, m)
	{
		const char *rel = json_string_value(m);
		char *text = NULL;
		size_t len = 0;
		if (read(s, rel, &text, &len) != SW_OK)
			continue;
		xmlDocPtr doc = parse_xml(s, rel, text, len);
		free(text);
		if (!doc)
			continue;
		xmlNodePtr root = xmlDocGetRootElement(doc);
		if (is_el(root, "navigation"))
			nav_graph(s, rel, root, 0);
		xmlFreeDoc(doc);
	}
	/* object Home : Screen("home") with class Screen(val route: String): Screen.Home.route is "home" */
	json_array_foreach(s->kotlin_objs, i, m)
	{
		const char *sup = json_string_value(json_object_get(m, "super"));
		const char *ssimple = strrchr(sup, '.') ? strrchr(sup, '.') + 1 : sup;
		const char *param = json_string_value(json_object_get(s->class_params, ssimple));
		if (!param)
			continue;
		char *full = sw__asprintf("%s.%s", json_string_value(json_object_get(m, "obj")), param);
		const_all(s, full, json_string_value(json_object_get(m, "value")),
		          json_string_value(json_object_get(m, "file")));
		free(full);
	}
}
