/*
 * screen.c: one screen as the explorer reads it: its controls named the way a person reads them (own text or
 * description, else the text of their descendants), each with a risk, a durable locator and a rank; the
 * screen's signature and title; whether it is a login wall, an OTP screen or a permission prompt.
 *
 * The controls come from the drive's current snapshot (refs, roles, bounds); the names and the risk text come
 * from the raw hierarchy the snapshot was made from, since Compose and Flutter put a button's words in child
 * nodes that the snapshot folds away.
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "actions-internal.h"
#include "autopilot-internal.h"
#include "snapshot-internal.h"

#define MAX_CONTROLS 200
#define RISK_TEXT_MAX 600
#define NAME_MAX_CHARS 80

/* One node of the raw hierarchy, in document (pre-order) order. */
typedef struct rnode {
	char *text, *desc, *cls, *id, *hint, *pkg;
	bool password, clickable;
	size_t subtree_end;
} rnode;

typedef struct rtree {
	rnode *v;
	size_t n, cap;
} rtree;

static char *attr(xmlNode *n, const char *name)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	char *s = sw__strdup(v ? (const char *)v : "");
	xmlFree(v);
	return s;
}

static void walk(xmlNode *n, rtree *t)
{
	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp((const char *)n->name, "node") != 0) {
			walk(n->children, t);
			continue;
		}
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 256;
			rnode *v = realloc(t->v, cap * sizeof(*v));
			if (!v)
				return;
			t->v = v;
			t->cap = cap;
		}
		size_t i = t->n++;
		rnode *r = &t->v[i];
		memset(r, 0, sizeof(*r));
		r->text = attr(n, "text");
		r->desc = attr(n, "content-desc");
		r->cls = attr(n, "class");
		r->id = attr(n, "resource-id");
		r->hint = attr(n, "hint");
		r->pkg = attr(n, "package");
		char *pw = attr(n, "password"), *ck = attr(n, "clickable");
		r->password = pw && !strcmp(pw, "true");
		r->clickable = ck && !strcmp(ck, "true");
		free(pw);
		free(ck);
		walk(n->children, t);
		t->v[i].subtree_end = t->n;
	}
}

static void rtree_free(rtree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].text);
		free(t->v[i].desc);
		free(t->v[i].cls);
		free(t->v[i].id);
		free(t->v[i].hint);
		free(t->v[i].pkg);
	}
	free(t->v);
}

static bool rtree_parse(const char *xml, size_t len, rtree *t)
{
	memset(t, 0, sizeof(*t));
	if (!xml || !len || len > (size_t)16 * 1024 * 1024)
		return false;
	xmlDoc *doc = xmlReadMemory(xml, (int)len, "dump.xml", NULL,
	                            XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE);
	if (!doc)
		return false;
	walk(xmlDocGetRootElement(doc), t);
	xmlFreeDoc(doc);
	return true;
}

/* ---- naming and ranking --------------------------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		h ^= *p;
		h *= 1099511628211ULL;
	}
	h ^= 0x1f; /* field separator */
	h *= 1099511628211ULL;
	return h;
}

static bool has_word(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

static void buf_add_text(sw_buf *b, const char *t)
{
	if (!t || !*t || b->len >= RISK_TEXT_MAX)
		return;
	if (b->len)
		sw__buf_putc(b, ' ');
	size_t n = strlen(t);
	sw__buf_append(b, t, n > RISK_TEXT_MAX ? RISK_TEXT_MAX : n);
}

static bool is_navigation(const ap_control *c, int screen_h)
{
	const char *id = c->res_id;
	return has_word(c->cls, "Tab") || has_word(id, "tab") || has_word(id, "nav") || has_word(id, "menu") ||
	       has_word(c->name, "menu") || (screen_h > 0 && c->b[1] >= screen_h * 85 / 100 && c->b[3] - c->b[1] < 300);
}

static bool is_up(const ap_control *c)
{
	return has_word(c->name, "navigate up") || !strcasecmp(c->name, "back") || has_word(c->res_id, "/up") ||
	       has_word(c->res_id, "_up");
}

static bool is_list_item(const ap_control *c)
{
	return has_word(c->cls, "LinearLayout") || has_word(c->cls, "RelativeLayout") ||
	       has_word(c->cls, "ViewGroup") || has_word(c->res_id, "item") || has_word(c->res_id, "row") ||
	       has_word(c->res_id, "receipt_") || has_word(c->cls, "CardView");
}

static int cmp_rank(const void *a, const void *b)
{
	const ap_control *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? 1 : -1;
	return x->order < y->order ? -1 : 1;
}

static bool looks_like(const char *s, const char *const *words)
{
	for (size_t i = 0; words[i]; i++)
		if (has_word(s, words[i]))
			return true;
	return false;
}

void ap_screen_free(ap_screen *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		free(v->c[i].name);
		free(v->c[i].risk_text);
		free(v->c[i].res_id);
		free(v->c[i].cls);
		free(v->c[i].role);
		free(v->c[i].loc_strategy);
		free(v->c[i].loc_value);
	}
	free(v->c);
	free(v->title);
	free(v->pkg);
	free(v->all_text);
	memset(v, 0, sizeof(*v));
}

/*
 * Reads the drive's current snapshot into @v. @app_id (nullable): the app under test (controls of other
 * packages, except a permission prompt's, are left out).
 */
int ap_screen_read(sw_drive *d, const char *app_id, ap_screen *v, sw_error **err)
{
	memset(v, 0, sizeof(*v));
	const sw__screen *scr = sw__snapshot_current(sw_drive_tracker(d));
	size_t xml_len = 0;
	const char *xml = sw__drive_last_xml(d, &xml_len);
	if (!scr)
		return sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", NULL, "there is no snapshot of the screen");
	rtree t;
	bool have_tree = rtree_parse(xml, xml_len, &t);
	/* the app is on screen when any of its nodes is (a system window may come first in the dump) */
	const char *pkg = scr->package ? scr->package : "";
	for (size_t i = 0; app_id && *app_id && i < scr->n_els; i++)
		if (!strcmp(scr->els[i].pkg, app_id))
			pkg = app_id;
	v->pkg = sw__strdup(pkg);
	v->node_count = scr->node_count;
	v->height = scr->height;
	v->c = calloc(scr->n_els ? (scr->n_els < MAX_CONTROLS ? scr->n_els : MAX_CONTROLS) : 1, sizeof(ap_control));
	if (!v->c || !v->pkg) {
		if (have_tree)
			rtree_free(&t);
		return sw__error_nomem(err);
	}
	uint64_t sig = fnv(14695981039346656037ULL, v->pkg);
	bool has_password = false, has_login_button = false, has_account_field = false, has_code_field = false;
	static const char *const account_words[] = {"email", "e-mail", "username", "user name", "phone", NULL};
	static const char *const login_words[] = {"sign in", "log in", "login", "signin", NULL};
	static const char *const code_words[] = {"code", "otp", "verification", "one-time", NULL};
	sw_buf every = {0};
	for (size_t i = 0; i < scr->n_els; i++) {
		const sw__element *e = &scr->els[i];
		if (every.len < 4000) {
			buf_add_text(&every, e->desc);
			buf_add_text(&every, e->secure ? "" : e->text);
			if (e->edit)
				buf_add_text(&every, e->hint);
		}
		/* the title: the first text that is not a control */
		if (!v->title && !e->clickable && e->text[0] && !e->edit && !e->secure && e->has_bounds)
			v->title = sw__utf8_cap(e->text, strlen(e->text), NAME_MAX_CHARS, 0);
		if (e->secure)
			has_password = true;
		bool actionable = (e->clickable || e->long_clickable || e->checkable || e->edit) && e->enabled &&
		                  e->has_bounds && e->bounds[2] > e->bounds[0] && e->bounds[3] > e->bounds[1];
		if (!actionable || v->n >= MAX_CONTROLS) {
			if (actionable)
				v->left_out++;
			continue;
		}
		ap_control *c = &v->c[v->n];
		c->order = v->n;
		c->ref = e->ref;
		memcpy(c->b, e->bounds, sizeof(c->b));
		c->edit = e->edit;
		c->secure = e->secure;
		c->res_id = sw__strdup(e->id);
		c->cls = sw__strdup(e->cls);
		c->role = sw__strdup(e->role);
		/* the name: own text or description, else the descendants' text */
		sw_buf all = {0};
		const char *own = e->secure ? "" : e->text;
		const char *name = e->desc[0] ? e->desc : own;
		if (e->edit)
			name = e->label[0] ? e->label : e->hint[0] ? e->hint : own;
		buf_add_text(&all, e->desc);
		buf_add_text(&all, own);
		if (e->edit)
			buf_add_text(&all, e->hint);
		if (have_tree && e->node_index < t.n) {
			for (size_t k = e->node_index + 1; k < t.v[e->node_index].subtree_end && k < t.n; k++) {
				if (t.v[k].password)
					continue;
				buf_add_text(&all, t.v[k].desc);
				buf_add_text(&all, t.v[k].text);
				if (!name[0] && (t.v[k].text[0] || t.v[k].desc[0]))
					name = t.v[k].text[0] ? t.v[k].text : t.v[k].desc;
			}
		}
		if (!name[0])
			name = e->label;
		c->name = sw__utf8_cap(name, strlen(name), NAME_MAX_CHARS, 0);
		c->risk_text = all.data ? sw__buf_steal(&all, NULL) : sw__strdup("");
		c->risk = sw_risk_classify(c->risk_text, c->res_id, c->edit ? "text-field" : c->role, &c->klass);
		if (!c->name || !c->risk_text || !c->res_id || !c->cls || !c->role) {
			if (have_tree)
				rtree_free(&t);
			return sw__error_nomem(err);
		}
		/* a permission prompt: every button there changes a permission */
		if (has_word(e->pkg, "permissioncontroller") || has_word(e->id, "permission_allow") ||
		    has_word(e->id, "permission_deny")) {
			v->permission_prompt = true;
			if (!c->klass) {
				c->risk = "destructive";
				c->klass = "permission_change";
			}
		}
		if (app_id && *app_id && e->pkg[0] && strcmp(e->pkg, app_id) != 0 && !v->permission_prompt)
			c->foreign = true;
		if (c->edit && looks_like(c->name, account_words))
			has_account_field = true;
		if (c->edit && looks_like(c->name, code_words))
			has_code_field = true;
		if (!c->edit && looks_like(c->risk_text, login_words))
			has_login_button = true;
		/* the candidate's identity: what it is, not where its ref number happens to be */
		uint64_t h = fnv(14695981039346656037ULL, c->cls);
		h = fnv(h, e->short_id);
		h = fnv(h, c->edit ? c->name : c->risk_text);
		snprintf(c->sig, sizeof(c->sig), "c:%016llx", (unsigned long long)h);
		sig = fnv(sig, c->sig);
		v->n++;
	}
	/* durable locators: a unique resource id, else a unique name, else the ref */
	for (size_t i = 0; i < v->n; i++) {
		ap_control *c = &v->c[i];
		const char *sid = strrchr(c->res_id, '/') ? strrchr(c->res_id, '/') + 1 : c->res_id;
		size_t same_id = 0, same_name = 0;
		for (size_t k = 0; k < scr->n_els; k++) {
			const sw__element *o = &scr->els[k];
			if (c->res_id[0] && !strcmp(o->id, c->res_id))
				same_id++;
			const char *on = o->label[0] ? o->label : o->text;
			if (c->name[0] && !strcmp(on, c->name))
				same_name++;
		}
		if (c->res_id[0] && same_id == 1) {
			c->loc_strategy = sw__strdup("id");
			c->loc_value = sw__strdup(sid);
			c->durable = 2;
		} else if (c->name[0] && same_name == 1 && !c->edit) {
			c->loc_strategy = sw__strdup("text");
			c->loc_value = sw__strdup(c->name);
			c->durable = 1;
		} else {
			c->loc_strategy = sw__strdup("ref");
			c->loc_value = sw__asprintf("@e%u", c->ref);
			c->durable = 0;
		}
		/* rank: navigation first (tabs, menus), then list items, then named safe buttons; durable locators win
		 * ties; going up comes last (the explorer goes back by itself) */
		double r = 0;
		if (is_navigation(c, v->height))
			r += 50;
		else if (is_list_item(c))
			r += 30;
		else if (c->name[0])
			r += 20;
		if (is_up(c))
			r = 1;
		if (c->edit)
			r = 5;
		r += c->durable * 3;
		if (!strcmp(c->risk, "unknown"))
			r -= 10;
		c->rank = r;
	}
	if (v->n > 1)
		qsort(v->c, v->n, sizeof(ap_control), cmp_rank);
	if (have_tree)
		rtree_free(&t);
	if (!v->title)
		v->title = sw__strdup(v->n ? v->c[0].name : "");
	v->all_text = every.data ? sw__buf_steal(&every, NULL) : sw__strdup("");
	v->login_wall = has_password || (has_account_field && has_login_button);
	v->otp = !v->login_wall && has_code_field;
	snprintf(v->sig, sizeof(v->sig), "s:%016llx", (unsigned long long)sig);
	return SW_OK;
}

json_t *ap_control_target(const ap_control *c)
{
	json_t *target = json_object();
	if (!strcmp(c->loc_strategy, "id"))
		json_object_set_new(target, "id", json_string(c->loc_value));
	else if (!strcmp(c->loc_strategy, "text"))
		json_object_set_new(target, "text", json_string(c->loc_value));
	else
		json_object_set_new(target, "ref", json_string(c->loc_value));
	return target;
}

int ap_screen_fresh(sw_drive *d, const char *app_id, ap_screen *v, sw_error **err)
{
	json_t *res = NULL;
	sw__drive_trust_settled(d, false);
	int rc = sw__drive_snapshot(d, NULL, &res, err);
	sw__drive_trust_settled(d, true);
	json_decref(res);
	if (rc < 0)
		return rc;
	return ap_screen_read(d, app_id, v, err);
}

int ap_drive_act(sw_drive *d, json_t *args, json_t **res, sw_error **err)
{
	*res = NULL;
	char *aj = sw__json_compact(args);
	char *out = NULL;
	int rc = aj ? sw_drive_act(d, aj, &out, err) : sw__error_nomem(err);
	free(aj);
	if (rc < 0)
		return rc;
	*res = json_loads(out, 0, NULL);
	sw_free(out);
	return SW_OK;
}

void ap_control_keep(ap_control *dst, const ap_control *src)
{
	*dst = *src;
	dst->name = sw__strdup(src->name);
	dst->loc_strategy = sw__strdup(src->loc_strategy);
	dst->loc_value = sw__strdup(src->loc_value);
}

void ap_control_drop(ap_control *c)
{
	free(c->name);
	free(c->loc_strategy);
	free(c->loc_value);
}
