/* scan-apple.c: iOS rules: SwiftUI views that are screens (named as screens, or pushed, presented, used as a
 * navigation destination, a tab or the window's root), UIKit view controllers (not containers, not abstract
 * bases), storyboard scenes and their segues, password fields and auth frameworks. */
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "appscan-internal.h"

static const char *const AUTH_MODULES[] = {
    "FirebaseAuth", "GoogleSignIn",        "AuthenticationServices", "Auth0", "AppAuth",
    "Supabase",     "LocalAuthentication", "AWSCognitoAuthPlugin",   NULL};

/* UIKit controllers that are screens when subclassed; containers are not screens. */
static const char *const UIKIT_SCREENS[] = {"UIViewController", "UITableViewController", "UICollectionViewController",
                                            "UIHostingController", NULL};

/* The contexts whose content is a screen, and why. */
static const struct {
	const char *call;
	const char *why;
} USES[] = {
    {"navigationDestination", "used as a navigationDestination"},
    {"sheet", "presented as a sheet"},
    {"fullScreenCover", "presented as a fullScreenCover"},
    {"popover", "presented as a popover"},
    {"NavigationLink", "pushed by a NavigationLink"},
    {"WindowGroup", "the root of a WindowGroup"},
    {"TabView", "a tab of a TabView"},
    {"UIHostingController", "hosted by a UIHostingController"},
};

static void record_uses(sw__scan *s, const sw__toks *t, size_t from, size_t to, const char *why)
{
	for (size_t k = from; k < to && k < t->n; k++) {
		if (!sw__tok_kind(t, k, SW__T_IDENT) || !(sw__tok_is(t, k + 1, "(") || sw__tok_is(t, k + 1, "{")))
			continue;
		if (k > 0 && sw__tok_is(t, k - 1, "."))
			continue;
		char *n = sw__tok_text(t, k);
		if (n && n[0] >= 'A' && n[0] <= 'Z' && !json_object_get(s->swift_uses, n))
			json_object_set_new(s->swift_uses, n, json_string(why));
		free(n);
	}
}

void sw__scan_swift(sw__scan *s, const char *rel, const sw__toks *t, json_t *idx)
{
	int depth = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (sw__tok_is(t, i, "{"))
			depth++;
		else if (sw__tok_is(t, i, "}") && depth > 0)
			depth--;
		if (sw__tok_ident(t, i, "import") && sw__tok_kind(t, i + 1, SW__T_IDENT)) {
			char *m = sw__tok_text(t, i + 1);
			for (const char *const *a = AUTH_MODULES; *a; a++)
				if (!strcmp(m, *a))
					sw__scan_authlib(s, *a, rel);
			free(m);
		}
		if (sw__tok_ident(t, i, "SecureField") ||
		    (sw__tok_ident(t, i, "isSecureTextEntry") && sw__tok_is(t, i + 1, "=") &&
		     sw__tok_ident(t, i + 2, "true")))
			sw__scan_password(s, rel,
			                  sw__tok_ident(t, i, "SecureField") ? "SecureField" : "isSecureTextEntry");
		bool is_struct = sw__tok_ident(t, i, "struct"), is_class = sw__tok_ident(t, i, "class");
		if ((is_struct || is_class) && sw__tok_kind(t, i + 1, SW__T_IDENT) &&
		    !(i > 0 && sw__tok_is(t, i - 1, "."))) {
			char *name = sw__tok_text(t, i + 1);
			sw__scan_symbol(s, name, rel);
			if (idx)
				sw__scan_index_symbol(s, idx, name);
			size_t j = i + 2;
			if (sw__tok_is(t, j, "<")) /* generic parameters */
				while (j < t->n && j < i + 40 && !sw__tok_is(t, j, ">"))
					j++;
			if (sw__tok_is(t, j, ">"))
				j++;
			if (sw__tok_is(t, j, ":")) {
				j++;
				while (j < t->n && !sw__tok_is(t, j, "{") && !sw__tok_ident(t, j, "where")) {
					size_t end = 0;
					char *sup = sw__tok_dotted(t, j, &end);
					if (sup) {
						const char *simple = strrchr(sup, '.') ? strrchr(sup, '.') + 1 : sup;
						if (is_struct && !strcmp(simple, "View") && depth == 0)
							json_object_set_new(s->swift_views, name, json_string(rel));
						if (is_class)
							sw__scan_super(s, name, simple);
						free(sup);
						j = end;
					} else {
						j++;
					}
					if (sw__tok_is(t, j, "<")) /* UIHostingController<Root> */
						while (j < t->n && !sw__tok_is(t, j, ">") && !sw__tok_is(t, j, "{"))
							j++;
					if (sw__tok_is(t, j, ">"))
						j++;
					if (sw__tok_is(t, j, ","))
						j++;
				}
			}
			free(name);
			continue;
		}
		for (size_t u = 0; u < SW_ARRAY_SIZE(USES); u++) {
			if (!sw__tok_ident(t, i, USES[u].call))
				continue;
			size_t j = i + 1, aopen = 0;
			if (sw__tok_is(t, j, "(") && t->v[j].match > (int32_t)j) {
				aopen = j;
				j = (size_t)t->v[j].match + 1;
			}
			size_t copen = sw__tok_is(t, j, "{") && t->v[j].match > (int32_t)j ? j : 0;
			if (!strcmp(USES[u].call, "NavigationLink")) {
				/* destination: X(), or the first closure when no value:/destination: is given (not the
				 * label) */
				size_t k;
				bool value = false;
				for (k = aopen ? aopen + 1 : 0; aopen && k < (size_t)t->v[aopen].match; k++) {
					if (sw__tok_ident(t, k, "destination") && sw__tok_is(t, k + 1, ":")) {
						/* only the destination argument, up to the next top-level comma (not
						 * label:) */
						size_t e = k + 2;
						while (e < (size_t)t->v[aopen].match && !sw__tok_is(t, e, ",")) {
							if ((sw__tok_is(t, e, "(") || sw__tok_is(t, e, "{") ||
							     sw__tok_is(t, e, "[")) &&
							    t->v[e].match > (int32_t)e)
								e = (size_t)t->v[e].match;
							e++;
						}
						record_uses(s, t, k + 2, e, USES[u].why);
						break;
					}
					if ((sw__tok_is(t, k, "(") || sw__tok_is(t, k, "{") || sw__tok_is(t, k, "[")) &&
					    t->v[k].match > (int32_t)k)
						k = (size_t)t->v[k].match;
					if (sw__tok_ident(t, k, "value") && sw__tok_is(t, k + 1, ":"))
						value = true;
				}
				if (!value && copen && !(aopen && k < (size_t)t->v[aopen].match))
					record_uses(s, t, copen + 1, (size_t)t->v[copen].match, USES[u].why);
				break;
			}
			if (aopen && (!strcmp(USES[u].call, "UIHostingController")))
				record_uses(s, t, aopen + 1, (size_t)t->v[aopen].match, USES[u].why);
			if (copen)
				record_uses(s, t, copen + 1, (size_t)t->v[copen].match, USES[u].why);
			break;
		}
	}
}

static bool is_el(xmlNodePtr n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static char *prop(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	char *out = sw__utf8_valid((const char *)v, strlen((const char *)v))
	                ? sw__strdup((const char *)v)
	                : sw__utf8_sanitize((const char *)v, strlen((const char *)v));
	xmlFree(v);
	return out;
}

static bool scene_element(xmlNodePtr n)
{
	return is_el(n, "viewController") || is_el(n, "tableViewController") || is_el(n, "collectionViewController") ||
	       is_el(n, "hostingController") || is_el(n, "pageViewController");
}

/* Every scene element below @n, in document order. */
static void collect_scenes(xmlNodePtr n, xmlNodePtr *out, size_t *count, size_t cap, int depth)
{
	if (depth > 64)
		return;
	for (xmlNodePtr c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (scene_element(c) && *count < cap)
			out[(*count)++] = c;
		collect_scenes(c, out, count, cap, depth + 1);
	}
}

static void find_segues(xmlNodePtr n, json_t *list, int depth)
{
	if (depth > 64)
		return;
	for (xmlNodePtr c = n->children; c; c = c->next) {
		if (is_el(c, "segue")) {
			char *d = prop(c, "destination"), *kind = prop(c, "kind");
			if (d)
				json_array_append_new(list, json_pack("{sss:s?}", "destination", d, "kind", kind));
			free(d);
			free(kind);
		} else if (c->type == XML_ELEMENT_NODE && !scene_element(c)) {
			find_segues(c, list, depth + 1);
		}
	}
}

static void scan_storyboard(sw__scan *s, const char *rel, const char *text, size_t len)
{
	if (len > INT32_MAX)
		return;
	xmlDocPtr doc =
	    xmlReadMemory(text, (int)len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		sw__scan_note(s, "xml-parse-error", rel, "XML files that do not parse were skipped");
		return;
	}
	xmlNodePtr root = xmlDocGetRootElement(doc);
	xmlNodePtr scenes[512];
	size_t n = 0;
	if (root)
		collect_scenes(root, scenes, &n, 512, 0);
	json_t *ids = json_object(); /* element id -> screen id */
	for (size_t i = 0; i < n; i++) {
		char *id = prop(scenes[i], "id"), *cls = prop(scenes[i], "customClass"),
		     *sbid = prop(scenes[i], "storyboardIdentifier");
		char *title = prop(scenes[i], "title");
		json_t *sc;
		char *sid;
		if (cls) {
			sc = sw__scan_screen(s, "uikit", "view-controller", rel, 0.9, NULL);
			json_object_set_new(sc, "_key", json_string(cls));
			json_object_set_new(sc, "name", json_string(cls));
			json_object_set_new(sc, "component", json_string(cls));
			sid = sw__asprintf("uikit:%s", cls);
		} else {
			char *key = sw__asprintf("%s:%s", rel, sbid ? sbid : id ? id : "?");
			sc = sw__scan_screen(s, "storyboard", "scene", rel, 0.8, NULL);
			json_object_set_new(sc, "_key", json_string(key));
			json_object_set_new(sc, "name",
			                    json_string(sbid    ? sbid
			                                : title ? title
			                                        : (const char *)scenes[i]->name));
			sid = sw__asprintf("storyboard:%s", key);
			free(key);
		}
		if (title)
			json_object_set_new(sc, "title", json_string(title));
		sw__scan_reason(sc, "a <%s> scene of the storyboard %s", (const char *)scenes[i]->name, rel);
		if (id)
			json_object_set_new(ids, id, json_string(sid));
		free(sid);
		free(id);
		free(cls);
		free(sbid);
		free(title);
	}
	for (size_t i = 0; i < n; i++) {
		char *id = prop(scenes[i], "id");
		const char *from = id ? json_string_value(json_object_get(ids, id)) : NULL;
		json_t *segs = json_array();
		find_segues(scenes[i], segs, 0);
		size_t k;
		json_t *g;
		json_array_foreach(segs, k, g)
		{
			const char *to = json_string_value(
			    json_object_get(ids, json_string_value(json_object_get(g, "destination"))));
			if (from && to)
				json_array_append_new(s->edges,
				                      json_pack("{sssssssss:s?}", "from", from, "to", to, "source", rel,
				                                "kind", "segue", "segue",
				                                json_string_value(json_object_get(g, "kind"))));
		}
		json_decref(segs);
		free(id);
	}
	json_decref(ids);
	xmlFreeDoc(doc);
}

/* The UIKit screen base a class reaches through its superclasses, or NULL. */
static const char *uikit_base(sw__scan *s, const char *cls, int depth, unsigned *budget)
{
	/* the superclass graph may have cycles and fan-out (hostile source): depth and steps are bounded */
	if (depth > 8 || *budget == 0)
		return NULL;
	(*budget)--;
	size_t i;
	json_t *sup;
	json_array_foreach(json_object_get(s->supers, cls), i, sup)
	{
		const char *n = json_string_value(sup);
		for (const char *const *b = UIKIT_SCREENS; *b; b++)
			if (!strcmp(n, *b))
				return *b;
		const char *via = uikit_base(s, n, depth + 1, budget);
		if (via)
			return via;
	}
	return NULL;
}

void sw__scan_apple_finish(sw__scan *s, int (*read)(sw__scan *, const char *, char **, size_t *))
{
	/* SwiftUI: top-level views named as screens or used where a screen goes */
	const char *name;
	json_t *file;
	json_object_foreach(s->swift_views, name, file)
	{
		const char *why = json_string_value(json_object_get(s->swift_uses, name));
		bool named = sw__str_has_suffix(name, "Screen") || sw__str_has_suffix(name, "Page");
		if (!why && !named)
			continue;
		json_t *sc = sw__scan_screen(s, "swiftui", "view", json_string_value(file), why ? 0.9 : 0.75, NULL);
		json_object_set_new(sc, "name", json_string(name));
		json_object_set_new(sc, "component", json_string(name));
		sw__scan_reason(sc, "a SwiftUI view %s", why ? why : "named as a screen");
	}
	/* UIKit: view controllers, not containers, not abstract bases (a controller other project controllers extend)
	 */
	json_t *has_sub = json_object();
	const char *cls;
	json_t *sups;
	json_object_foreach(s->supers, cls, sups)
	{
		size_t i;
		json_t *sup;
		json_array_foreach(sups, i, sup) json_object_set_new(has_sub, json_string_value(sup), json_true());
	}
	json_object_foreach(s->supers, cls, sups)
	{
		unsigned budget = 256;
		const char *base = uikit_base(s, cls, 0, &budget);
		const char *def = json_string_value(json_object_get(s->symfile, cls));
		if (!base || !def || !sw__str_has_suffix(def, ".swift"))
			continue;
		if (json_object_get(has_sub, cls) || sw__str_has_prefix(cls, "Base") || strstr(cls, "Abstract")) {
			sw__scan_note(s, "abstract-base", def,
			              "view controllers that other controllers extend were not listed");
			continue;
		}
		json_t *sc = sw__scan_screen(s, "uikit", "view-controller", def, 0.85, NULL);
		json_object_set_new(sc, "_key", json_string(cls));
		json_object_set_new(sc, "name", json_string(cls));
		json_object_set_new(sc, "component", json_string(cls));
		sw__scan_reason(sc, "a %s subclass", base);
	}
	json_decref(has_sub);
	size_t i;
	json_t *sb;
	json_array_foreach(s->storyboards, i, sb)
	{
		char *text = NULL;
		size_t len = 0;
		if (read(s, json_string_value(sb), &text, &len) != SW_OK)
			continue;
		scan_storyboard(s, json_string_value(sb), text, len);
		free(text);
	}
}
