/* app-load.c: reads an app model YAML file (libyaml document API) into struct vd_app, with precise errors. */
#include "app-model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_NODES 20000
#define MAX_DEPTH 32

struct loader {
	yaml_document_t doc;
	char *err;
	size_t errlen;
	bool failed;
	size_t nodes;
};

static bool fail(struct loader *L, yaml_node_t *at, const char *fmt, ...) VD_PRINTF(3, 4);

static bool fail(struct loader *L, yaml_node_t *at, const char *fmt, ...)
{
	if (L->failed)
		return false;
	L->failed = true;
	int n = 0;
	if (at)
		n = snprintf(L->err, L->errlen, "line %zu: ", at->start_mark.line + 1);
	if (n < 0 || (size_t)n >= L->errlen)
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(L->err + n, L->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

static yaml_node_t *get(struct loader *L, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&L->doc, p->key);
		if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
			return yaml_document_get_node(&L->doc, p->value);
	}
	return NULL;
}

/* Rejects keys that are not in @allowed (a NULL-terminated list): typos should not pass silently. */
static bool check_keys(struct loader *L, yaml_node_t *map, const char *what, const char *const *allowed)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return fail(L, map, "%s must be a mapping", what);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&L->doc, p->key);
		if (!k || k->type != YAML_SCALAR_NODE)
			return fail(L, k, "%s has a key that is not a string", what);
		bool ok = false;
		for (size_t i = 0; allowed[i] && !ok; i++)
			ok = strcmp(allowed[i], (const char *)k->data.scalar.value) == 0;
		if (!ok)
			return fail(L, k, "%s: unknown key '%s'", what, (const char *)k->data.scalar.value);
	}
	return true;
}

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool get_str(struct loader *L, yaml_node_t *map, const char *key, char **out)
{
	yaml_node_t *n = get(L, map, key);
	if (!n)
		return true;
	if (!scalar(n))
		return fail(L, n, "'%s' must be a string", key);
	free(*out);
	*out = vd_strdup(scalar(n));
	return *out != NULL || fail(L, n, "out of memory");
}

static bool get_bool(struct loader *L, yaml_node_t *map, const char *key, bool *out)
{
	yaml_node_t *n = get(L, map, key);
	const char *s = scalar(n);
	if (!n)
		return true;
	if (s && (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0)) {
		*out = true;
		return true;
	}
	if (s && (strcmp(s, "false") == 0 || strcmp(s, "no") == 0)) {
		*out = false;
		return true;
	}
	return fail(L, n, "'%s' must be true or false", key);
}

static bool parse_int_node(struct loader *L, yaml_node_t *n, const char *what, long lo, long hi, long *out)
{
	const char *s = scalar(n);
	char *end;
	if (!s)
		return fail(L, n, "%s must be a number", what);
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi)
		return fail(L, n, "%s must be an integer in %ld..%ld, got '%s'", what, lo, hi, s);
	*out = v;
	return true;
}

/* bounds: [x1, y1, x2, y2] or "[x1,y1][x2,y2]" as uiautomator prints them. */
static bool get_bounds(struct loader *L, yaml_node_t *map, const char *key, int b[4], bool required)
{
	yaml_node_t *n = get(L, map, key);
	if (!n)
		return !required || fail(L, map, "'%s' is required", key);
	long v[4];
	if (n->type == YAML_SEQUENCE_NODE) {
		if (n->data.sequence.items.top - n->data.sequence.items.start != 4)
			return fail(L, n, "'%s' must have 4 numbers [x1, y1, x2, y2]", key);
		for (int i = 0; i < 4; i++)
			if (!parse_int_node(L, yaml_document_get_node(&L->doc, n->data.sequence.items.start[i]), key,
			                    -100000, 100000, &v[i]))
				return false;
	} else if (!scalar(n) || sscanf(scalar(n), "[%ld,%ld][%ld,%ld]", &v[0], &v[1], &v[2], &v[3]) != 4) {
		return fail(L, n, "'%s' must be [x1, y1, x2, y2] or \"[x1,y1][x2,y2]\"", key);
	}
	if (v[2] < v[0] || v[3] < v[1] || labs(v[0]) > 100000 || labs(v[1]) > 100000 || labs(v[2]) > 100000 ||
	    labs(v[3]) > 100000)
		return fail(L, n, "'%s' must have x1 <= x2 and y1 <= y2", key);
	for (int i = 0; i < 4; i++)
		b[i] = (int)v[i];
	return true;
}

static const struct {
	const char *name;
	int code;
} key_names[] = {
    {"BACK", VD_KEY_BACK}, {"ENTER", VD_KEY_ENTER}, {"HOME", VD_KEY_HOME},     {"MENU", VD_KEY_MENU},
    {"TAB", VD_KEY_TAB},   {"DEL", VD_KEY_DEL},     {"ESCAPE", VD_KEY_ESCAPE}, {"DPAD_CENTER", VD_KEY_DPAD_CENTER},
};

static void cond_free(struct vd_cond *c)
{
	if (!c)
		return;
	free(c->var);
	free(c->equals);
	free(c->not_equals);
	free(c);
}

void vd_actions_free(struct vd_actions *a)
{
	for (size_t i = 0; i < a->n; i++) {
		struct vd_action *x = &a->v[i];
		cond_free(x->when);
		free(x->go);
		free(x->dialog);
		free(x->log);
		free(x->crash);
		for (size_t k = 0; k < x->n_set; k++) {
			free(x->set_keys[k]);
			free(x->set_values[k]);
		}
		free(x->set_keys);
		free(x->set_values);
		for (size_t k = 0; k < x->n_clear; k++)
			free(x->clear[k]);
		free(x->clear);
	}
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

static bool load_cond(struct loader *L, yaml_node_t *n, struct vd_cond **out)
{
	static const char *const keys[] = {"field", "var", "equals", "not_equals", "empty", NULL};
	if (!check_keys(L, n, "when", keys))
		return false;
	struct vd_cond *c = calloc(1, sizeof(*c));
	if (!c)
		return fail(L, n, "out of memory");
	*out = c;
	c->empty = -1;
	bool empty = false;
	if (!get_str(L, n, "field", &c->var) || !get_str(L, n, "var", &c->var) ||
	    !get_str(L, n, "equals", &c->equals) || !get_str(L, n, "not_equals", &c->not_equals) ||
	    !get_bool(L, n, "empty", &empty))
		return false;
	if (get(L, n, "empty"))
		c->empty = empty ? 1 : 0;
	if (!c->var)
		return fail(L, n, "'when' needs 'field' (a node id) or 'var'");
	return true;
}

static bool load_action(struct loader *L, yaml_node_t *n, struct vd_action *a)
{
	static const char *const keys[] = {"when",          "go",  "clear_stack", "dialog", "dismiss", "toggle", "exit",
	                                   "hide_keyboard", "log", "set",         "clear",  "crash", "anr", NULL};
	if (!check_keys(L, n, "action", keys))
		return false;
	yaml_node_t *w = get(L, n, "when");
	if (w && !load_cond(L, w, &a->when))
		return false;
	if (!get_str(L, n, "go", &a->go) || !get_bool(L, n, "clear_stack", &a->clear_stack) ||
	    !get_str(L, n, "dialog", &a->dialog) || !get_bool(L, n, "dismiss", &a->dismiss) ||
	    !get_bool(L, n, "toggle", &a->toggle) || !get_bool(L, n, "exit", &a->exit) ||
	    !get_bool(L, n, "hide_keyboard", &a->hide_keyboard) || !get_str(L, n, "log", &a->log) ||
	    !get_str(L, n, "crash", &a->crash) || !get_bool(L, n, "anr", &a->anr))
		return false;
	if (a->crash && strcmp(a->crash, "java") != 0 && strcmp(a->crash, "native") != 0)
		return fail(L, n, "'crash' must be java or native");
	yaml_node_t *set = get(L, n, "set");
	if (set) {
		if (set->type != YAML_MAPPING_NODE)
			return fail(L, set, "'set' must be a mapping of variable: value");
		size_t cnt = (size_t)(set->data.mapping.pairs.top - set->data.mapping.pairs.start);
		a->set_keys = calloc(cnt + 1, sizeof(char *));
		a->set_values = calloc(cnt + 1, sizeof(char *));
		if (!a->set_keys || !a->set_values)
			return fail(L, set, "out of memory");
		for (yaml_node_pair_t *p = set->data.mapping.pairs.start; p < set->data.mapping.pairs.top; p++) {
			const char *k = scalar(yaml_document_get_node(&L->doc, p->key));
			const char *v = scalar(yaml_document_get_node(&L->doc, p->value));
			if (!k || !v)
				return fail(L, set, "'set' entries must be strings");
			a->set_keys[a->n_set] = vd_strdup(k);
			a->set_values[a->n_set++] = vd_strdup(v);
		}
	}
	yaml_node_t *clr = get(L, n, "clear");
	if (clr) {
		if (clr->type != YAML_SEQUENCE_NODE)
			return fail(L, clr, "'clear' must be a list of field ids");
		size_t cnt = (size_t)(clr->data.sequence.items.top - clr->data.sequence.items.start);
		a->clear = calloc(cnt + 1, sizeof(char *));
		if (!a->clear)
			return fail(L, clr, "out of memory");
		for (size_t i = 0; i < cnt; i++) {
			const char *s = scalar(yaml_document_get_node(&L->doc, clr->data.sequence.items.start[i]));
			if (!s)
				return fail(L, clr, "'clear' entries must be strings");
			a->clear[a->n_clear++] = vd_strdup(s);
		}
	}
	return true;
}

/* An action is a mapping, or a list of mappings of which the first whose `when` holds runs. */
static bool load_actions(struct loader *L, yaml_node_t *n, struct vd_actions *out)
{
	if (!n)
		return true;
	size_t cnt =
	    n->type == YAML_SEQUENCE_NODE ? (size_t)(n->data.sequence.items.top - n->data.sequence.items.start) : 1;
	out->v = calloc(cnt ? cnt : 1, sizeof(*out->v));
	if (!out->v)
		return fail(L, n, "out of memory");
	for (size_t i = 0; i < cnt; i++) {
		yaml_node_t *item = n->type == YAML_SEQUENCE_NODE
		                        ? yaml_document_get_node(&L->doc, n->data.sequence.items.start[i])
		                        : n;
		out->n++;
		if (!load_action(L, item, &out->v[i]))
			return false;
	}
	return true;
}

void vd_node_free_children(struct vd_node *n)
{
	for (size_t i = 0; i < n->n_children; i++) {
		struct vd_node *c = n->children[i];
		vd_node_free_children(c);
		free(c->id);
		free(c->cls);
		free(c->res_id);
		free(c->text);
		free(c->desc);
		free(c->hint);
		free(c->package);
		vd_actions_free(&c->on_tap);
		vd_actions_free(&c->on_submit);
		vd_actions_free(&c->on_long_press);
		cond_free(c->show_when);
		if (c->items) {
			free(c->items->text);
			free(c->items->desc);
			free(c->items->id);
			free(c->items->cls);
			vd_actions_free(&c->items->on_tap);
			free(c->items);
		}
		free(c);
	}
	free(n->children);
	n->children = NULL;
	n->n_children = 0;
}

static bool load_nodes(struct loader *L, yaml_node_t *seq, struct vd_node *parent, int depth);

static bool load_items(struct loader *L, yaml_node_t *n, struct vd_node *node)
{
	static const char *const keys[] = {"count",       "height", "text",   "content-desc",
	                                   "resource-id", "class",  "on_tap", NULL};
	if (!check_keys(L, n, "items", keys))
		return false;
	struct vd_items *it = calloc(1, sizeof(*it));
	if (!it)
		return fail(L, n, "out of memory");
	node->items = it;
	long count = 0, height = 150;
	yaml_node_t *c = get(L, n, "count");
	if (!c || !parse_int_node(L, c, "items.count", 0, 100000, &count))
		return c ? false : fail(L, n, "'items' needs 'count'");
	yaml_node_t *h = get(L, n, "height");
	if (h && !parse_int_node(L, h, "items.height", 10, 2000, &height))
		return false;
	it->count = count;
	it->height = (int)height;
	if (!get_str(L, n, "text", &it->text) || !get_str(L, n, "content-desc", &it->desc) ||
	    !get_str(L, n, "resource-id", &it->id) || !get_str(L, n, "class", &it->cls))
		return false;
	if (!it->cls)
		it->cls = vd_strdup("android.widget.TextView");
	return load_actions(L, get(L, n, "on_tap"), &it->on_tap);
}

static bool load_node(struct loader *L, yaml_node_t *n, struct vd_node *node, int depth)
{
	static const char *const keys[] = {
	    "id",       "class",     "text",           "resource-id", "content-desc", "hint",      "package",
	    "bounds",   "clickable", "focusable",      "password",    "scrollable",   "enabled",   "checkable",
	    "checked",  "selected",  "long-clickable", "editable",    "on_tap",       "on_submit", "on_long_press",
	    "children", "items",     "show_when",      NULL};
	if (!check_keys(L, n, "node", keys))
		return false;
	if (++L->nodes > MAX_NODES)
		return fail(L, n, "too many nodes (at most %d)", MAX_NODES);
	node->enabled = true;
	if (!get_str(L, n, "id", &node->id) || !get_str(L, n, "class", &node->cls) ||
	    !get_str(L, n, "text", &node->text) || !get_str(L, n, "resource-id", &node->res_id) ||
	    !get_str(L, n, "content-desc", &node->desc) || !get_str(L, n, "hint", &node->hint) ||
	    !get_str(L, n, "package", &node->package) || !get_bounds(L, n, "bounds", node->b, true))
		return false;
	if (!node->cls)
		node->cls = vd_strdup("android.view.View");
	node->editable = node->cls && strstr(node->cls, "EditText") != NULL;
	node->clickable = node->editable || strstr(node->cls, "Button") != NULL;
	node->focusable = node->editable;
	node->checkable =
	    strstr(node->cls, "CheckBox") || strstr(node->cls, "Switch") || strstr(node->cls, "RadioButton");
	node->clickable |= node->checkable;
	if (!get_bool(L, n, "editable", &node->editable) || !get_bool(L, n, "clickable", &node->clickable) ||
	    !get_bool(L, n, "focusable", &node->focusable) || !get_bool(L, n, "password", &node->password) ||
	    !get_bool(L, n, "scrollable", &node->scrollable) || !get_bool(L, n, "enabled", &node->enabled) ||
	    !get_bool(L, n, "checkable", &node->checkable) || !get_bool(L, n, "checked", &node->checked_init) ||
	    !get_bool(L, n, "selected", &node->selected) || !get_bool(L, n, "long-clickable", &node->long_clickable))
		return false;
	node->checked = node->checked_init;
	if (node->editable && !node->id)
		return fail(L, n, "an editable node needs an 'id' (its field name)");
	if (!load_actions(L, get(L, n, "on_tap"), &node->on_tap) ||
	    !load_actions(L, get(L, n, "on_submit"), &node->on_submit) ||
	    !load_actions(L, get(L, n, "on_long_press"), &node->on_long_press))
		return false;
	if (node->on_tap.n)
		node->clickable = true;
	if (node->on_long_press.n)
		node->long_clickable = true;
	yaml_node_t *show = get(L, n, "show_when");
	if (show && !load_cond(L, show, &node->show_when))
		return false;
	yaml_node_t *items = get(L, n, "items");
	if (items && !load_items(L, items, node))
		return false;
	return load_nodes(L, get(L, n, "children"), node, depth + 1);
}

static bool load_nodes(struct loader *L, yaml_node_t *seq, struct vd_node *parent, int depth)
{
	if (!seq)
		return true;
	if (depth > MAX_DEPTH)
		return fail(L, seq, "nodes nested deeper than %d", MAX_DEPTH);
	if (seq->type != YAML_SEQUENCE_NODE)
		return fail(L, seq, "'nodes'/'children' must be a list");
	size_t cnt = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	parent->children = calloc(cnt ? cnt : 1, sizeof(*parent->children));
	if (!parent->children)
		return fail(L, seq, "out of memory");
	for (size_t i = 0; i < cnt; i++) {
		struct vd_node *c = calloc(1, sizeof(*c));
		if (!c)
			return fail(L, seq, "out of memory");
		parent->children[parent->n_children++] = c;
		if (!load_node(L, yaml_document_get_node(&L->doc, seq->data.sequence.items.start[i]), c, depth))
			return false;
	}
	return true;
}

static char *full_activity(const char *pkg, const char *act)
{
	if (act[0] == '.')
		return vd_strdup_printf("%s%s", pkg, act);
	return vd_strdup(act);
}

static bool load_screen(struct loader *L, struct vd_app *app, const char *name, yaml_node_t *n, struct vd_screen *s)
{
	static const char *const keys[] = {"activity", "title", "dialog",   "cancelable", "secure", "bounds",
	                                   "nodes",    "keys",  "on_enter", "package",    NULL};
	s->name = vd_strdup(name);
	s->cancelable = true;
	char *act = NULL;
	if (!check_keys(L, n, "screen", keys) || !get_str(L, n, "activity", &act) ||
	    !get_str(L, n, "title", &s->title) || !get_bool(L, n, "dialog", &s->dialog) ||
	    !get_bool(L, n, "cancelable", &s->cancelable) || !get_bool(L, n, "secure", &s->secure) ||
	    !get_str(L, n, "package", &s->package)) {
		free(act);
		return false;
	}
	s->activity = full_activity(app->package, act ? act : app->launcher_activity);
	free(act);
	int full[4] = {0, 0, VD_SCREEN_W, VD_SCREEN_H};
	int dlg[4] = {90, 900, 990, 1500};
	memcpy(s->b, s->dialog ? dlg : full, sizeof(s->b));
	if (!get_bounds(L, n, "bounds", s->b, false))
		return false;
	memcpy(s->root.b, s->b, sizeof(s->b));
	s->root.cls = vd_strdup("android.widget.FrameLayout");
	s->root.enabled = true;
	if (!load_nodes(L, get(L, n, "nodes"), &s->root, 0) || !load_actions(L, get(L, n, "on_enter"), &s->on_enter))
		return false;
	yaml_node_t *keysn = get(L, n, "keys");
	if (keysn) {
		if (keysn->type != YAML_MAPPING_NODE)
			return fail(L, keysn, "'keys' must map key names (BACK, ENTER...) to actions");
		size_t cnt = (size_t)(keysn->data.mapping.pairs.top - keysn->data.mapping.pairs.start);
		s->keys = calloc(cnt ? cnt : 1, sizeof(*s->keys));
		if (!s->keys)
			return fail(L, keysn, "out of memory");
		for (yaml_node_pair_t *p = keysn->data.mapping.pairs.start; p < keysn->data.mapping.pairs.top; p++) {
			yaml_node_t *kn = yaml_document_get_node(&L->doc, p->key);
			const char *k = scalar(kn);
			int code = -1;
			for (size_t i = 0; k && i < VD_ARRAY_SIZE(key_names); i++)
				if (strcmp(key_names[i].name, k) == 0)
					code = key_names[i].code;
			if (code < 0)
				return fail(L, kn,
				            "unknown key '%s' (BACK, ENTER, HOME, MENU, TAB, DEL, ESCAPE, DPAD_CENTER)",
				            k ? k : "?");
			s->keys[s->n_keys].code = code;
			if (!load_actions(L, yaml_document_get_node(&L->doc, p->value), &s->keys[s->n_keys++].actions))
				return false;
		}
	}
	return true;
}

static void screen_free(struct vd_screen *s)
{
	free(s->name);
	free(s->activity);
	free(s->title);
	free(s->package);
	free(s->root.cls);
	vd_node_free_children(&s->root);
	for (size_t i = 0; i < s->n_keys; i++)
		vd_actions_free(&s->keys[i].actions);
	free(s->keys);
	vd_actions_free(&s->on_enter);
}

void vd_app_free(struct vd_app *app)
{
	if (!app)
		return;
	for (size_t i = 0; i < app->n_screens; i++)
		screen_free(&app->screens[i]);
	free(app->screens);
	for (size_t i = 0; i < app->n_links; i++) {
		free(app->links[i].prefix);
		free(app->links[i].screen);
		free(app->links[i].var);
	}
	free(app->links);
	for (size_t i = 0; i < app->n_packages; i++)
		free(app->packages[i]);
	free(app->packages);
	for (size_t i = 0; i < app->n_vars; i++) {
		free(app->var_keys[i]);
		free(app->var_values[i]);
	}
	free(app->var_keys);
	free(app->var_values);
	free(app->package);
	free(app->label);
	free(app->version);
	free(app->launcher_activity);
	for (size_t i = 0; i < app->n_persist; i++)
		free(app->persist[i]);
	free(app->persist);
	free(app);
}

static long screen_index(const struct vd_app *app, const char *name)
{
	for (size_t i = 0; name && i < app->n_screens; i++)
		if (strcmp(app->screens[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* Every screen named by an action must exist. */
static bool check_refs(struct loader *L, struct vd_app *app, const struct vd_actions *a, const char *where)
{
	for (size_t i = 0; i < a->n; i++) {
		const char *go = a->v[i].go;
		if (go && strcmp(go, "back") != 0 && screen_index(app, go) < 0)
			return fail(L, NULL, "%s: 'go: %s' names no screen", where, go);
		if (a->v[i].dialog) {
			long d = screen_index(app, a->v[i].dialog);
			if (d < 0 || !app->screens[d].dialog)
				return fail(L, NULL, "%s: 'dialog: %s' names no dialog screen", where, a->v[i].dialog);
		}
	}
	return true;
}

static bool check_node_refs(struct loader *L, struct vd_app *app, const struct vd_node *n, const char *screen)
{
	for (size_t i = 0; i < n->n_children; i++) {
		const struct vd_node *c = n->children[i];
		if (!check_refs(L, app, &c->on_tap, screen) || !check_refs(L, app, &c->on_submit, screen) ||
		    !check_refs(L, app, &c->on_long_press, screen) ||
		    (c->items && !check_refs(L, app, &c->items->on_tap, screen)) || !check_node_refs(L, app, c, screen))
			return false;
	}
	return true;
}

static const char *const system_packages[] = {
    "android",
    "com.android.settings",
    "com.android.systemui",
    "com.android.chrome",
    "com.android.vending",
    "com.google.android.inputmethod.latin",
    VD_LAUNCHER_PKG,
    "com.android.shell",
};

static bool load_app(struct loader *L, struct vd_app *app, yaml_node_t *root)
{
	static const char *const keys[] = {"package", "label",     "version", "launcher_activity", "installed", "start",
	                                   "screens", "deeplinks", "persist", NULL};
	if (!check_keys(L, root, "the document", keys) || !get_str(L, root, "package", &app->package) ||
	    !get_str(L, root, "label", &app->label) || !get_str(L, root, "version", &app->version) ||
	    !get_str(L, root, "launcher_activity", &app->launcher_activity))
		return false;
	if (!app->package)
		return fail(L, root, "'package' is required (e.g. com.example.login)");
	for (const char *p = app->package; *p; p++)
		if (!(*p == '.' || *p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return fail(L, get(L, root, "package"), "'package' must look like com.example.app");
	if (!app->label)
		app->label = vd_strdup(app->package);
	if (!app->version)
		app->version = vd_strdup("1.0");
	if (!app->launcher_activity)
		app->launcher_activity = vd_strdup(".MainActivity");
	bool installed = true;
	if (!get_bool(L, root, "installed", &installed))
		return false;
	yaml_node_t *screens = get(L, root, "screens");
	if (!screens || screens->type != YAML_MAPPING_NODE)
		return fail(L, screens ? screens : root, "'screens' must be a mapping of screen name to screen");
	size_t cnt = (size_t)(screens->data.mapping.pairs.top - screens->data.mapping.pairs.start);
	if (cnt == 0)
		return fail(L, screens, "'screens' is empty");
	app->screens = calloc(cnt, sizeof(*app->screens));
	if (!app->screens)
		return fail(L, screens, "out of memory");
	for (yaml_node_pair_t *p = screens->data.mapping.pairs.start; p < screens->data.mapping.pairs.top; p++) {
		const char *name = scalar(yaml_document_get_node(&L->doc, p->key));
		if (!name)
			return fail(L, screens, "screen names must be strings");
		if (screen_index(app, name) >= 0)
			return fail(L, screens, "screen '%s' is defined twice", name);
		struct vd_screen *s = &app->screens[app->n_screens++];
		if (!load_screen(L, app, name, yaml_document_get_node(&L->doc, p->value), s))
			return false;
	}
	char *start = NULL;
	if (!get_str(L, root, "start", &start))
		return false;
	long si = start ? screen_index(app, start) : 0;
	free(start);
	if (si < 0 || app->screens[si].dialog)
		return fail(L, get(L, root, "start"), "'start' must name a screen that is not a dialog");
	app->start = (size_t)si;
	yaml_node_t *persist = get(L, root, "persist");
	if (persist) {
		if (persist->type != YAML_SEQUENCE_NODE)
			return fail(L, persist, "'persist' must be a list of variable names");
		size_t n = (size_t)(persist->data.sequence.items.top - persist->data.sequence.items.start);
		app->persist = calloc(n ? n : 1, sizeof(char *));
		if (!app->persist)
			return fail(L, persist, "out of memory");
		for (size_t i = 0; i < n; i++) {
			const char *name = scalar(yaml_document_get_node(&L->doc, persist->data.sequence.items.start[i]));
			if (!name || !*name)
				return fail(L, persist, "'persist' entries must be variable names");
			if (!(app->persist[app->n_persist++] = vd_strdup(name)))
				return fail(L, persist, "out of memory");
		}
	}
	yaml_node_t *links = get(L, root, "deeplinks");
	if (links) {
		if (links->type != YAML_SEQUENCE_NODE)
			return fail(L, links, "'deeplinks' must be a list of {prefix, screen, var}");
		size_t n = (size_t)(links->data.sequence.items.top - links->data.sequence.items.start);
		app->links = calloc(n ? n : 1, sizeof(*app->links));
		if (!app->links)
			return fail(L, links, "out of memory");
		for (size_t i = 0; i < n; i++) {
			static const char *const lkeys[] = {"prefix", "screen", "var", NULL};
			yaml_node_t *ln = yaml_document_get_node(&L->doc, links->data.sequence.items.start[i]);
			struct vd_deeplink *l = &app->links[app->n_links++];
			if (!check_keys(L, ln, "deeplink", lkeys) || !get_str(L, ln, "prefix", &l->prefix) ||
			    !get_str(L, ln, "screen", &l->screen) || !get_str(L, ln, "var", &l->var))
				return false;
			if (!l->prefix || screen_index(app, l->screen) < 0)
				return fail(L, ln, "a deeplink needs 'prefix' and an existing 'screen'");
		}
	}
	for (size_t i = 0; i < app->n_screens; i++) {
		struct vd_screen *s = &app->screens[i];
		if (!check_node_refs(L, app, &s->root, s->name) || !check_refs(L, app, &s->on_enter, s->name))
			return false;
		for (size_t k = 0; k < s->n_keys; k++)
			if (!check_refs(L, app, &s->keys[k].actions, s->name))
				return false;
	}
	app->packages = calloc(VD_ARRAY_SIZE(system_packages) + 64, sizeof(char *));
	if (!app->packages)
		return fail(L, root, "out of memory");
	for (size_t i = 0; i < VD_ARRAY_SIZE(system_packages); i++)
		app->packages[app->n_packages++] = vd_strdup(system_packages[i]);
	if (installed)
		app->packages[app->n_packages++] = vd_strdup(app->package);
	return true;
}

struct vd_app *vd_app_load(const char *path, char *err, size_t errlen)
{
	struct loader L = {.err = err, .errlen = errlen};
	struct vd_app *app = NULL;
	yaml_parser_t parser;
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &L.doc)) {
		snprintf(err, errlen, "line %zu: YAML error: %s", parser.problem_mark.line + 1,
		         parser.problem ? parser.problem : "unknown");
		yaml_parser_delete(&parser);
		fclose(f);
		return NULL;
	}
	yaml_node_t *root = yaml_document_get_root_node(&L.doc);
	app = calloc(1, sizeof(*app));
	if (!root) {
		fail(&L, NULL, "the file is empty");
	} else if (!app) {
		fail(&L, NULL, "out of memory");
	} else if (load_app(&L, app, root)) {
		app->dialog = -1;
		app->task_id = 12;
	}
	yaml_document_delete(&L.doc);
	yaml_parser_delete(&parser);
	fclose(f);
	if (L.failed) {
		vd_app_free(app);
		return NULL;
	}
	return app;
}
