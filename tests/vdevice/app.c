/*
 * app.c: the live state of the scripted app: back stack, dialog, focus and soft keyboard,
 * field values and variables, scrolling, layout and hit-testing of input events.
 */
#include "app-model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- variables and templates ----------------------------------------------------------- */

const char *vd_app_var(const struct vd_app *app, const char *name)
{
	for (size_t i = 0; i < app->n_vars; i++)
		if (strcmp(app->var_keys[i], name) == 0)
			return app->var_values[i];
	return NULL;
}

static void set_var(struct vd_app *app, const char *name, const char *value)
{
	for (size_t i = 0; i < app->n_vars; i++)
		if (strcmp(app->var_keys[i], name) == 0) {
			char *v = vd_strdup(value);
			if (v) {
				free(app->var_values[i]);
				app->var_values[i] = v;
			}
			return;
		}
	char **k = realloc(app->var_keys, (app->n_vars + 1) * sizeof(char *));
	if (!k)
		return;
	app->var_keys = k;
	char **v = realloc(app->var_values, (app->n_vars + 1) * sizeof(char *));
	if (!v)
		return;
	app->var_values = v;
	k[app->n_vars] = vd_strdup(name);
	v[app->n_vars] = vd_strdup(value);
	if (!k[app->n_vars] || !v[app->n_vars]) {
		free(k[app->n_vars]);
		free(v[app->n_vars]);
		return;
	}
	app->n_vars++;
}

static bool persisted(const struct vd_app *app, const char *name)
{
	for (size_t i = 0; i < app->n_persist; i++)
		if (strcmp(app->persist[i], name) == 0)
			return true;
	return false;
}

/* Forgets the variables; @keep_persisted keeps those the app stores on disk (the process died, data stays). */
static void clear_vars(struct vd_app *app, bool keep_persisted)
{
	size_t kept = 0;
	for (size_t i = 0; i < app->n_vars; i++) {
		if (keep_persisted && persisted(app, app->var_keys[i])) {
			app->var_keys[kept] = app->var_keys[i];
			app->var_values[kept++] = app->var_values[i];
			continue;
		}
		free(app->var_keys[i]);
		free(app->var_values[i]);
	}
	app->n_vars = kept;
}

/* Expands ${var} (variables and field values) and {n} (list row number). */
static char *expand(const struct vd_app *app, const char *tpl, long n)
{
	struct vd_buf b = {0};
	if (!tpl)
		return NULL;
	for (const char *p = tpl; *p;) {
		if (p[0] == '$' && p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			if (end) {
				char *name = vd_strndup(p + 2, (size_t)(end - p - 2));
				const char *v = name ? vd_app_var(app, name) : NULL;
				vd_buf_puts(&b, v ? v : "");
				free(name);
				p = end + 1;
				continue;
			}
		}
		if (n > 0 && strncmp(p, "{n}", 3) == 0) {
			vd_buf_printf(&b, "%ld", n);
			p += 3;
			continue;
		}
		vd_buf_append(&b, p, 1);
		p++;
	}
	if (!b.data)
		return vd_strdup("");
	return b.data;
}

/* ---- screens and packages ----------------------------------------------------------------- */

const struct vd_screen *vd_app_current_screen(const struct vd_app *app)
{
	if (!app->running || !app->foreground || app->depth == 0)
		return NULL;
	return &app->screens[app->stack[app->depth - 1]];
}

size_t vd_app_package_count(const struct vd_app *app)
{
	return app->n_packages;
}

const char *vd_app_package_at(const struct vd_app *app, size_t i)
{
	return i < app->n_packages ? app->packages[i] : NULL;
}

bool vd_app_is_installed(const struct vd_app *app, const char *pkg)
{
	for (size_t i = 0; i < app->n_packages; i++)
		if (strcmp(app->packages[i], pkg) == 0)
			return true;
	return false;
}

const char *vd_app_main_package(const struct vd_app *app)
{
	return app->package;
}

const char *vd_app_version_name(const struct vd_app *app)
{
	return app->version;
}

static void reset_nodes(struct vd_node *n)
{
	for (size_t i = 0; i < n->n_children; i++) {
		n->children[i]->checked = n->children[i]->checked_init;
		n->children[i]->scroll = 0;
		reset_nodes(n->children[i]);
	}
}

/* The process dies: every bit of live state goes (persisted variables stay unless @wipe). */
static void app_kill_data(struct vd_app *app, bool wipe)
{
	app->running = false;
	app->foreground = false;
	app->depth = 0;
	app->dialog = -1;
	app->focus = NULL;
	app->keyboard = false;
	clear_vars(app, !wipe);
	for (size_t i = 0; i < app->n_screens; i++)
		reset_nodes(&app->screens[i].root);
}

static void app_kill(struct vd_app *app)
{
	app_kill_data(app, false);
}

bool vd_app_install(struct vd_app *app, struct vd_device *d, const char *pkg)
{
	if (strcmp(pkg, app->package) == 0)
		app_kill(app); /* an update restarts the app */
	if (vd_app_is_installed(app, pkg))
		return true;
	char **p = realloc(app->packages, (app->n_packages + 1) * sizeof(char *));
	if (!p)
		return false;
	app->packages = p;
	if (!(p[app->n_packages] = vd_strdup(pkg)))
		return false;
	app->n_packages++;
	vd_device_log(d, 'I', "PackageManager", "Package %s codePath changed from null to /data/app/%s-1", pkg, pkg);
	return true;
}

bool vd_app_uninstall(struct vd_app *app, struct vd_device *d, const char *pkg)
{
	for (size_t i = 0; i < app->n_packages; i++) {
		if (strcmp(app->packages[i], pkg) != 0)
			continue;
		if (strcmp(pkg, app->package) == 0)
			app_kill_data(app, true);
		free(app->packages[i]);
		memmove(&app->packages[i], &app->packages[i + 1], (app->n_packages - i - 1) * sizeof(char *));
		app->n_packages--;
		vd_device_log(d, 'I', "PackageManager", "Removing package %s", pkg);
		return true;
	}
	return false;
}

const char *vd_app_launcher_component(const struct vd_app *app, const char *pkg)
{
	static char buf[512];
	if (strcmp(pkg, app->package) != 0 || !vd_app_is_installed(app, pkg))
		return NULL;
	snprintf(buf, sizeof(buf), "%s/%s", pkg, app->launcher_activity);
	return buf;
}

void vd_app_foreground(const struct vd_app *app, const char **pkg, const char **activity)
{
	const struct vd_screen *s = vd_app_current_screen(app);
	*pkg = s ? app->package : VD_LAUNCHER_PKG;
	*activity = s ? s->activity : VD_LAUNCHER_ACT;
	if (s && app->dialog >= 0 && app->screens[app->dialog].package) {
		/* a dialog owned by another package (a permission prompt) is that package's activity */
		*pkg = app->screens[app->dialog].package;
		*activity = app->screens[app->dialog].activity;
	}
}

/* "com.example/.Main" when the class is inside the package, as ActivityRecord prints it. */
void vd_app_short_component(const char *pkg, const char *activity, char *out, size_t n)
{
	size_t pl = strlen(pkg);
	if (strncmp(activity, pkg, pl) == 0 && activity[pl] == '.')
		snprintf(out, n, "%s/%s", pkg, activity + pl);
	else
		snprintf(out, n, "%s/%s", pkg, activity);
}

static void hide_keyboard(struct vd_app *app, struct vd_device *d)
{
	if (app->keyboard)
		vd_device_log(d, 'D', "InputMethodManager", "hideSoftInput");
	app->keyboard = false;
}

static void enter_screen(struct vd_app *app, struct vd_device *d, size_t idx);

static void push_screen(struct vd_app *app, struct vd_device *d, size_t idx, bool clear)
{
	if (clear)
		app->depth = 0;
	if (app->depth == VD_MAX_STACK) {
		memmove(app->stack, app->stack + 1, (VD_MAX_STACK - 1) * sizeof(size_t));
		app->depth--;
	}
	app->stack[app->depth++] = idx;
	enter_screen(app, d, idx);
}

static void run_actions(struct vd_app *app, struct vd_device *d, const struct vd_actions *a, struct vd_node *node,
                        long item);

static void enter_screen(struct vd_app *app, struct vd_device *d, size_t idx)
{
	const struct vd_screen *s = &app->screens[idx];
	char comp[512];
	app->focus = NULL;
	app->dialog = -1;
	hide_keyboard(app, d);
	vd_app_short_component(app->package, s->activity, comp, sizeof(comp));
	vd_device_log(d, 'I', "ActivityTaskManager", "Displayed %s: +212ms", comp);
	run_actions(app, d, &s->on_enter, NULL, 0);
}

int vd_app_start(struct vd_app *app, struct vd_device *d, const char *pkg, const char *activity)
{
	if (!vd_app_is_installed(app, pkg))
		return -2;
	if (strcmp(pkg, VD_LAUNCHER_PKG) == 0) {
		app->foreground = false;
		hide_keyboard(app, d);
		return 0;
	}
	if (strcmp(pkg, app->package) != 0)
		return -1; /* other packages have no activities on this device */
	long target = -1;
	if (activity && *activity) {
		char *full = activity[0] == '.' ? vd_strdup_printf("%s%s", pkg, activity) : vd_strdup(activity);
		char *launcher =
		    vd_strdup_printf("%s%s", app->launcher_activity[0] == '.' ? pkg : "", app->launcher_activity);
		for (size_t i = 0; full && i < app->n_screens && target < 0; i++)
			if (!app->screens[i].dialog && strcmp(app->screens[i].activity, full) == 0)
				target = (long)i;
		bool is_launcher = full && launcher && strcmp(full, launcher) == 0;
		free(full);
		free(launcher);
		if (target < 0)
			return -1;
		if (is_launcher)
			target = (long)app->start;
	} else {
		target = (long)app->start;
	}
	char comp[512];
	vd_app_short_component(pkg, app->screens[target].activity, comp, sizeof(comp));
	vd_device_log(d, 'I', "ActivityTaskManager", "START u0 {flg=0x10000000 cmp=%s} from uid 2000", comp);
	if (app->running && app->depth > 0 && (activity == NULL || (size_t)target == app->start)) {
		/* Like a launcher tap: an app already running comes back where it was. */
		app->foreground = true;
		return 0;
	}
	if (!app->running) {
		vd_device_log(d, 'I', "ActivityManager", "Start proc 4242:%s/u0a163 for next-top-activity {%s}", pkg,
		              comp);
		app->task_id++;
	}
	app->running = true;
	app->foreground = true;
	push_screen(app, d, (size_t)target, !activity || (size_t)target == app->start);
	return 0;
}

bool vd_app_open_url(struct vd_app *app, struct vd_device *d, const char *url, const char **component)
{
	static char comp[512];
	for (size_t i = 0; i < app->n_links; i++) {
		const struct vd_deeplink *l = &app->links[i];
		size_t n = strlen(l->prefix);
		if (strncmp(url, l->prefix, n) != 0 || !vd_app_is_installed(app, app->package))
			continue;
		long idx = -1;
		for (size_t k = 0; k < app->n_screens; k++)
			if (strcmp(app->screens[k].name, l->screen) == 0)
				idx = (long)k;
		if (idx < 0)
			return false;
		if (!app->running)
			app->task_id++;
		app->running = true;
		app->foreground = true;
		if (l->var)
			set_var(app, l->var, url + n);
		vd_device_log(d, 'I', "ActivityTaskManager",
		              "START u0 {act=android.intent.action.VIEW dat=%s} from uid 2000", url);
		push_screen(app, d, (size_t)idx, false);
		vd_app_short_component(app->package, app->screens[idx].activity, comp, sizeof(comp));
		*component = comp;
		return true;
	}
	return false;
}

void vd_app_force_stop(struct vd_app *app, struct vd_device *d, const char *pkg)
{
	if (strcmp(pkg, app->package) != 0 || !app->running)
		return;
	vd_device_log(d, 'I', "ActivityManager", "Force stopping %s appid=10163 user=0: from pid 4300", pkg);
	app_kill(app);
}

void vd_app_clear_data(struct vd_app *app, struct vd_device *d, const char *pkg)
{
	vd_app_force_stop(app, d, pkg);
	if (strcmp(pkg, app->package) == 0)
		app_kill_data(app, true); /* the app's storage goes too */
}

static bool cond_holds(const struct vd_app *app, const struct vd_cond *c);

/* ---- layout ---------------------------------------------------------------------------------------- */

static bool clip(int b[4], const int c[4])
{
	if (b[0] < c[0])
		b[0] = c[0];
	if (b[1] < c[1])
		b[1] = c[1];
	if (b[2] > c[2])
		b[2] = c[2];
	if (b[3] > c[3])
		b[3] = c[3];
	return b[2] > b[0] && b[3] > b[1];
}

static struct vd_view *add_view(struct vd_layout *l)
{
	if (l->n % 64 == 0) {
		struct vd_view *v = realloc(l->v, (l->n + 64) * sizeof(*v));
		if (!v)
			return NULL;
		l->v = v;
	}
	struct vd_view *v = &l->v[l->n++];
	memset(v, 0, sizeof(*v));
	return v;
}

static char *display_text(const struct vd_app *app, const struct vd_node *n)
{
	if (!n->editable)
		return expand(app, n->text, 0);
	const char *value = vd_app_var(app, n->id);
	if (!value || !*value) /* Android reports the hint as the text of an empty field */
		return expand(app, n->hint ? n->hint : "", 0);
	if (!n->password)
		return vd_strdup(value);
	struct vd_buf dots = {0};
	for (const char *p = value; *p; p++)
		vd_buf_puts(&dots, "\xe2\x80\xa2"); /* U+2022 BULLET, as password fields report */
	return dots.data ? dots.data : vd_strdup("");
}

static int content_height(const struct vd_node *n)
{
	int bottom = n->b[3];
	for (size_t i = 0; i < n->n_children; i++)
		if (n->children[i]->b[3] > bottom)
			bottom = n->children[i]->b[3];
	if (n->items) {
		long end = (long)n->b[1] + n->items->count * n->items->height;
		if (end > bottom)
			bottom = (int)(end > 1000000 ? 1000000 : end);
	}
	return bottom - n->b[1];
}

static void layout_node(const struct vd_app *app, const struct vd_node *n, int dy, const int clipr[4], int depth,
                        int index, struct vd_layout *l, const char *pkg);

static void layout_children(const struct vd_app *app, const struct vd_node *n, int dy, const int clipr[4], int depth,
                            struct vd_layout *l, const char *pkg)
{
	int child_dy = dy - (n->scrollable ? n->scroll : 0);
	int inner[4];
	memcpy(inner, clipr, sizeof(inner));
	if (n->scrollable) {
		int nb[4] = {n->b[0], n->b[1] + dy, n->b[2], n->b[3] + dy};
		clip(inner, nb);
	}
	int index = 0;
	for (size_t i = 0; i < n->n_children; i++) {
		size_t before = l->n;
		layout_node(app, n->children[i], child_dy, inner, depth, index, l, pkg);
		index += l->n > before;
	}
	if (!n->items)
		return;
	const struct vd_items *it = n->items;
	long first = (long)((n->scroll) / it->height);
	for (long k = first; k < it->count; k++) {
		int b[4] = {n->b[0], n->b[1] + (int)(k * it->height) + child_dy, n->b[2],
		            n->b[1] + (int)((k + 1) * it->height) + child_dy};
		if (b[1] >= inner[3])
			break;
		if (!clip(b, inner))
			continue;
		struct vd_view *v = add_view(l);
		if (!v)
			return;
		memcpy(v->b, b, sizeof(v->b));
		v->node = NULL;
		v->item = k + 1;
		v->cls = it->cls;
		v->package = pkg;
		v->text = expand(app, it->text ? it->text : "", k + 1);
		v->desc = expand(app, it->desc ? it->desc : "", k + 1);
		v->res_id = expand(app, it->id ? it->id : "", k + 1);
		v->on_tap = &it->on_tap;
		v->depth = depth;
		v->index = index++;
	}
}

static void layout_node(const struct vd_app *app, const struct vd_node *n, int dy, const int clipr[4], int depth,
                        int index, struct vd_layout *l, const char *pkg)
{
	int b[4] = {n->b[0], n->b[1] + dy, n->b[2], n->b[3] + dy};
	if (n->show_when && !cond_holds(app, n->show_when))
		return;
	if (!clip(b, clipr))
		return; /* scrolled off or off-screen: uiautomator does not report it */
	struct vd_view *v = add_view(l);
	if (!v)
		return;
	memcpy(v->b, b, sizeof(v->b));
	v->node = n;
	v->cls = n->cls;
	v->package = n->package ? n->package : pkg;
	v->text = display_text(app, n);
	v->desc = expand(app, n->desc ? n->desc : "", 0);
	v->res_id = vd_strdup(n->res_id ? n->res_id : "");
	v->on_tap = &n->on_tap;
	v->depth = depth;
	v->index = index;
	v->focused = app->focus == n;
	v->checked = n->checked;
	size_t me = l->n - 1;
	layout_children(app, n, dy, clipr, depth + 1, l, pkg);
	l->v[me].has_children = l->n > me + 1;
}

static void layout_root(const struct vd_app *app, const struct vd_screen *s, struct vd_layout *l, const char *pkg)
{
	static const int screen[4] = {0, 0, VD_SCREEN_W, VD_SCREEN_H};
	static struct vd_node content = {
	    .cls = "android.widget.FrameLayout", .res_id = "android:id/content", .enabled = true};
	/* The decor view and android:id/content wrap the app's nodes, as in real dumps. */
	struct vd_view *v = add_view(l);
	if (!v)
		return;
	memcpy(v->b, s->b, sizeof(v->b));
	v->node = &s->root;
	v->cls = "android.widget.FrameLayout";
	v->package = pkg;
	v->text = vd_strdup("");
	v->desc = vd_strdup("");
	v->res_id = vd_strdup("");
	v->has_children = true;
	struct vd_view *c = add_view(l);
	if (!c)
		return;
	int top = s->dialog ? s->b[1] : VD_STATUS_BAR_H;
	int bottom = s->dialog ? s->b[3] : VD_SCREEN_H - VD_NAV_BAR_H;
	int cb[4] = {s->b[0], top, s->b[2], bottom};
	memcpy(c->b, cb, sizeof(c->b));
	c->node = &content;
	c->cls = content.cls;
	c->package = pkg;
	c->text = vd_strdup("");
	c->desc = vd_strdup("");
	c->res_id = vd_strdup(content.res_id);
	c->depth = 1;
	size_t me = l->n - 1;
	int clipr[4];
	memcpy(clipr, screen, sizeof(clipr));
	clip(clipr, s->b);
	layout_children(app, &s->root, 0, clipr, 2, l, pkg);
	l->v[me].has_children = l->n > me + 1;
}

static struct vd_screen launcher_screen = {.root = {.enabled = true}};

static void layout_launcher(const struct vd_app *app, struct vd_layout *l)
{
	struct vd_view *v = add_view(l);
	if (!v)
		return;
	v->b[2] = VD_SCREEN_W;
	v->b[3] = VD_SCREEN_H;
	v->cls = "android.widget.FrameLayout";
	v->package = VD_LAUNCHER_PKG;
	v->text = vd_strdup("");
	v->desc = vd_strdup("");
	v->res_id = vd_strdup("");
	v->node = &launcher_screen.root;
	v->has_children = vd_app_is_installed(app, app->package);
	if (!v->has_children)
		return;
	struct vd_view *icon = add_view(l);
	if (!icon)
		return;
	int b[4] = {60, 1800, 300, 2080};
	memcpy(icon->b, b, sizeof(b));
	icon->cls = "android.widget.TextView";
	icon->package = VD_LAUNCHER_PKG;
	icon->text = vd_strdup(app->label);
	icon->desc = vd_strdup(app->label);
	icon->res_id = vd_strdup("");
	icon->depth = 1;
	icon->item = -1; /* marks the app icon */
}

bool vd_app_layout(struct vd_app *app, struct vd_layout *l, bool include_background)
{
	memset(l, 0, sizeof(*l));
	const struct vd_screen *s = vd_app_current_screen(app);
	if (!s) {
		layout_launcher(app, l);
		return true;
	}
	bool dialog = app->dialog >= 0;
	if (!dialog || include_background)
		layout_root(app, s, l, app->package);
	l->dialog_from = l->n;
	if (dialog) {
		const struct vd_screen *ds = &app->screens[app->dialog];
		l->dim = true;
		memcpy(l->frame, ds->b, sizeof(l->frame));
		layout_root(app, ds, l, ds->package ? ds->package : app->package);
	}
	return true;
}

void vd_layout_free(struct vd_layout *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].text);
		free(l->v[i].desc);
		free(l->v[i].res_id);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- actions ---------------------------------------------------------------------------------------- */

static bool cond_holds(const struct vd_app *app, const struct vd_cond *c)
{
	if (!c)
		return true;
	const char *v = vd_app_var(app, c->var);
	if (!v)
		v = "";
	if (c->equals && strcmp(v, c->equals) != 0)
		return false;
	if (c->not_equals && strcmp(v, c->not_equals) == 0)
		return false;
	if (c->empty == 1 && *v)
		return false;
	if (c->empty == 0 && !*v)
		return false;
	return true;
}

static void go_back(struct vd_app *app, struct vd_device *d)
{
	if (app->depth > 1) {
		app->depth--;
		enter_screen(app, d, app->stack[app->depth - 1]);
		return;
	}
	/* Back on the root activity: the task moves to the background (Android 12+ behaviour). */
	app->foreground = false;
	hide_keyboard(app, d);
}

static void emit_log(struct vd_device *d, const char *line)
{
	/* "W/Tag: message", "Tag: message" or a bare message */
	char level = 'I';
	const char *p = line;
	if (p[0] && p[1] == '/' && strchr("VDIWEF", p[0])) {
		level = p[0];
		p += 2;
	}
	const char *colon = strstr(p, ": ");
	char tag[64] = "vdevice";
	if (colon && (size_t)(colon - p) < sizeof(tag) && !memchr(p, ' ', (size_t)(colon - p))) {
		memcpy(tag, p, (size_t)(colon - p));
		tag[colon - p] = '\0';
		p = colon + 2;
	}
	vd_device_log(d, level, tag, "%s", p);
}

/* The app process dies the way Android logs it: a Java FATAL EXCEPTION or a native tombstone. */
static void crash_app(struct vd_app *app, struct vd_device *d, const char *kind)
{
	const char *pkg = app->package;
	if (strcmp(kind, "native") == 0) {
		vd_device_log(d, 'F', "libc",
		              "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 4259 (RenderThread), "
		              "pid 4242 (%s)",
		              pkg);
		vd_device_log(d, 'F', "DEBUG", "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***");
		vd_device_log(d, 'F', "DEBUG", "Build fingerprint: 'google/sdk_gphone64_x86_64/emu64xa:13/TE1A/1:user/release-keys'");
		vd_device_log(d, 'F', "DEBUG", "pid: 4242, tid: 4259, name: RenderThread  >>> %s <<<", pkg);
		vd_device_log(d, 'F', "DEBUG", "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000");
		vd_device_log(d, 'F', "DEBUG", "      #00 pc 000000000004f2a8  /data/app/%s/lib/x86_64/libnative.so", pkg);
		vd_device_log(d, 'I', "ActivityManager", "Process %s (pid 4242) has died: fg  TOP ", pkg);
	} else {
		vd_device_log(d, 'E', "AndroidRuntime", "FATAL EXCEPTION: main");
		vd_device_log(d, 'E', "AndroidRuntime", "Process: %s, PID: 4242", pkg);
		vd_device_log(d, 'E', "AndroidRuntime",
		              "java.lang.IllegalStateException: Checkout button handler failed");
		vd_device_log(d, 'E', "AndroidRuntime", "\tat %s.MainActivity.onClick(MainActivity.java:42)", pkg);
		vd_device_log(d, 'I', "ActivityManager", "Process %s (pid 4242) has died: fg  TOP ", pkg);
	}
	app_kill(app);
}

static void anr_app(struct vd_app *app, struct vd_device *d)
{
	const char *act = app->launcher_activity ? app->launcher_activity : ".MainActivity";
	vd_device_log(d, 'E', "ActivityManager", "ANR in %s (%s/%s)", app->package, app->package, act);
	vd_device_log(d, 'E', "ActivityManager", "PID: 4242");
	vd_device_log(d, 'E', "ActivityManager",
	              "Reason: Input dispatching timed out (Waiting to send non-key event because the touched window "
	              "has not finished processing certain input events that were delivered to it over 5000.0ms ago.)");
}

static void run_actions(struct vd_app *app, struct vd_device *d, const struct vd_actions *a, struct vd_node *node,
                        long item)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct vd_action *x = &a->v[i];
		if (!cond_holds(app, x->when))
			continue;
		for (size_t k = 0; k < x->n_set; k++) {
			char *v = expand(app, x->set_values[k], item);
			if (v)
				set_var(app, x->set_keys[k], v);
			free(v);
		}
		for (size_t k = 0; k < x->n_clear; k++)
			set_var(app, x->clear[k], "");
		if (x->log) {
			char *line = expand(app, x->log, item);
			if (line)
				emit_log(d, line);
			free(line);
		}
		if (x->toggle && node)
			node->checked = !node->checked;
		if (x->crash) {
			crash_app(app, d, x->crash);
			return;
		}
		if (x->anr)
			anr_app(app, d);
		if (x->hide_keyboard)
			hide_keyboard(app, d);
		if (x->dismiss)
			app->dialog = -1;
		if (x->exit) {
			app->depth = 0;
			app->foreground = false;
			app->running = false;
			hide_keyboard(app, d);
			return;
		}
		if (x->go) {
			if (strcmp(x->go, "back") == 0) {
				go_back(app, d);
			} else {
				for (size_t k = 0; k < app->n_screens; k++)
					if (strcmp(app->screens[k].name, x->go) == 0)
						push_screen(app, d, k, x->clear_stack);
			}
		}
		if (x->dialog) {
			for (size_t k = 0; k < app->n_screens; k++)
				if (strcmp(app->screens[k].name, x->dialog) == 0)
					app->dialog = (long)k;
			hide_keyboard(app, d);
			vd_device_log(d, 'I', "WindowManager", "Adding dialog window for %s", app->package);
		}
		return; /* only the first matching action runs */
	}
}

/* ---- input ------------------------------------------------------------------------------------------ */

static bool inside(const int b[4], int x, int y)
{
	return x >= b[0] && x < b[2] && y >= b[1] && y < b[3];
}

static void tap_view(struct vd_app *app, struct vd_device *d, const struct vd_view *v, bool long_press)
{
	struct vd_node *n = (struct vd_node *)v->node;
	if (v->item == -1) { /* launcher icon */
		vd_app_start(app, d, app->package, NULL);
		return;
	}
	if (n && !n->enabled)
		return;
	if (n && n->editable) {
		if (app->focus != n)
			vd_device_log(d, 'D', "InputMethodManager", "showSoftInput focus=%s",
			              n->res_id ? n->res_id : n->id);
		app->focus = n;
		app->keyboard = true;
		return;
	}
	if (n && n->checkable && !v->on_tap->n)
		n->checked = !n->checked;
	run_actions(app, d, long_press && n ? &n->on_long_press : v->on_tap, n, v->item);
}

/* The first text of @n's subtree (own text, else description, else the children's), as a person reads it. */
static const char *node_label(const struct vd_node *n, int depth)
{
	if (!n || depth > 8)
		return NULL;
	if (n->text && *n->text)
		return n->text;
	if (n->desc && *n->desc)
		return n->desc;
	for (size_t i = 0; i < n->n_children; i++) {
		const char *t = node_label(n->children[i], depth + 1);
		if (t)
			return t;
	}
	return NULL;
}

/*
 * The touch log (--touch-log FILE / $VDEVICE_TOUCH_LOG): one JSON line per touch or key with the screen it
 * landed on and the element that took it (null when nothing did), so tests assert what was touched.
 */
static void touch_log(struct vd_app *app, struct vd_device *d, const char *kind, int x, int y, int key,
                      const struct vd_view *v, const char *outcome)
{
	if (!d || !d->opt.touch_log)
		return;
	FILE *f = fopen(d->opt.touch_log, "a");
	if (!f)
		return;
	const struct vd_screen *s = vd_app_current_screen(app);
	fprintf(f, "{\"kind\":\"%s\",\"x\":%d,\"y\":%d,\"key\":%d,\"screen\":", kind, x, y, key);
	vd_json_str(f, s ? s->name : "launcher", 200);
	fputs(",\"dialog\":", f);
	if (s && app->dialog >= 0)
		vd_json_str(f, app->screens[app->dialog].name, 200);
	else
		fputs("null", f);
	fputs(",\"element\":", f);
	if (v) {
		const struct vd_node *n = v->node;
		fputs("{\"id\":", f);
		vd_json_str(f, n && n->id ? n->id : "", 200);
		fputs(",\"resourceId\":", f);
		vd_json_str(f, v->res_id ? v->res_id : "", 400);
		fputs(",\"label\":", f);
		const char *label = v->text && *v->text ? v->text : v->desc && *v->desc ? v->desc : node_label(n, 0);
		vd_json_str(f, label ? label : "", 400);
		fprintf(f, ",\"item\":%ld}", v->item);
	} else {
		fputs("null", f);
	}
	fputs(",\"outcome\":", f);
	vd_json_str(f, outcome, 40);
	fputs("}\n", f);
	fclose(f);
}

static void touch(struct vd_app *app, struct vd_device *d, int x, int y, bool long_press)
{
	const char *kind = long_press ? "long_press" : "tap";
	if (app->keyboard && y >= VD_KEYBOARD_TOP && vd_app_current_screen(app)) {
		touch_log(app, d, kind, x, y, 0, NULL, "keyboard");
		return; /* the soft keyboard takes the touch */
	}
	struct vd_layout l;
	vd_app_layout(app, &l, false);
	if (l.dim && !inside(l.frame, x, y)) {
		/* outside a dialog: a cancelable one goes away, nothing below is touched */
		touch_log(app, d, kind, x, y, 0, NULL, "outside_dialog");
		if (app->screens[app->dialog].cancelable)
			app->dialog = -1;
		vd_layout_free(&l);
		return;
	}
	for (size_t i = l.n; i-- > 0;) {
		const struct vd_view *v = &l.v[i];
		const struct vd_node *n = v->node;
		bool target = v->item != 0 ||
		              (n && (n->clickable || n->editable || n->checkable || (long_press && n->long_clickable)));
		if (target && inside(v->b, x, y)) {
			touch_log(app, d, kind, x, y, 0, v, "element");
			tap_view(app, d, v, long_press);
			vd_layout_free(&l);
			return;
		}
	}
	touch_log(app, d, kind, x, y, 0, NULL, "nothing");
	vd_layout_free(&l);
}

void vd_app_tap(struct vd_app *app, struct vd_device *d, int x, int y)
{
	touch(app, d, x, y, false);
}

void vd_app_long_press(struct vd_app *app, struct vd_device *d, int x, int y)
{
	touch(app, d, x, y, true);
}

static struct vd_node *find_scrollable(const struct vd_app *app, struct vd_node *n, int x, int y)
{
	if (n->show_when && !cond_holds(app, n->show_when))
		return NULL;
	for (size_t i = n->n_children; i-- > 0;) {
		struct vd_node *hit = find_scrollable(app, n->children[i], x, y);
		if (hit)
			return hit;
	}
	return n->scrollable && inside(n->b, x, y) ? n : NULL;
}

void vd_app_swipe(struct vd_app *app, struct vd_device *d, int x1, int y1, int x2, int y2)
{
	const struct vd_screen *s = vd_app_current_screen(app);
	touch_log(app, d, "swipe", x1, y1, 0, NULL, "swipe");
	if (!s || app->dialog >= 0 || (app->keyboard && y1 >= VD_KEYBOARD_TOP))
		return;
	struct vd_node *n = find_scrollable(app, (struct vd_node *)&s->root, x1, y1);
	if (!n)
		return;
	int max = content_height(n) - (n->b[3] - n->b[1]);
	int off = n->scroll + (y1 - y2);
	if (off > max)
		off = max;
	if (off < 0)
		off = 0;
	if (off != n->scroll)
		vd_device_log(d, 'D', "ViewRootImpl", "scroll %s to %d", n->res_id ? n->res_id : "list", off);
	n->scroll = off;
}

static void collect_editables(struct vd_node *n, struct vd_node **out, size_t *cnt, size_t max)
{
	for (size_t i = 0; i < n->n_children; i++) {
		if (n->children[i]->editable && *cnt < max)
			out[(*cnt)++] = n->children[i];
		collect_editables(n->children[i], out, cnt, max);
	}
}

static bool screen_key(struct vd_app *app, struct vd_device *d, int code)
{
	const struct vd_screen *s = app->dialog >= 0 ? &app->screens[app->dialog] : vd_app_current_screen(app);
	for (size_t i = 0; s && i < s->n_keys; i++)
		if (s->keys[i].code == code) {
			run_actions(app, d, &s->keys[i].actions, NULL, 0);
			return true;
		}
	return false;
}

void vd_app_key(struct vd_app *app, struct vd_device *d, int code)
{
	const struct vd_screen *s = vd_app_current_screen(app);
	touch_log(app, d, "key", 0, 0, code, NULL, "key");
	switch (code) {
	case VD_KEY_HOME:
		app->foreground = false;
		hide_keyboard(app, d);
		return;
	case VD_KEY_BACK:
		if (app->keyboard) {
			if (!d->sticky_keyboard)
				hide_keyboard(app, d);
			return;
		}
		if (!s)
			return;
		if (app->dialog >= 0) {
			if (!screen_key(app, d, code) && app->screens[app->dialog].cancelable)
				app->dialog = -1;
			return;
		}
		if (!screen_key(app, d, code))
			go_back(app, d);
		return;
	case VD_KEY_ESCAPE:
		if (!d->sticky_keyboard)
			hide_keyboard(app, d);
		return;
	case VD_KEY_DEL:
		if (app->focus) {
			const char *v = vd_app_var(app, app->focus->id);
			if (v && *v) {
				char *nv = vd_strndup(v, strlen(v) - 1);
				if (nv)
					set_var(app, app->focus->id, nv);
				free(nv);
			}
		}
		return;
	case VD_KEY_TAB:
		if (s && app->dialog < 0) {
			struct vd_node *eds[64];
			size_t n = 0;
			collect_editables((struct vd_node *)&s->root, eds, &n, 64);
			for (size_t i = 0; i < n; i++)
				if (eds[i] == app->focus) {
					app->focus = eds[(i + 1) % n];
					return;
				}
			if (n)
				app->focus = eds[0];
		}
		return;
	case VD_KEY_ENTER:
		if (screen_key(app, d, code))
			return;
		if (app->focus && app->focus->on_submit.n)
			run_actions(app, d, &app->focus->on_submit, app->focus, 0);
		return;
	default:
		if (!screen_key(app, d, code) && app->focus &&
		    ((code >= 7 && code <= 16) || (code >= 29 && code <= 54) || code == 62)) {
			char ch = code == 62 ? ' ' : code <= 16 ? (char)('0' + code - 7) : (char)('a' + code - 29);
			char s1[2] = {ch, '\0'};
			vd_app_text(app, d, s1);
		}
	}
}

void vd_app_text(struct vd_app *app, struct vd_device *d, const char *text)
{
	if (!app->focus || !vd_app_current_screen(app) || app->dialog >= 0)
		return;
	const char *old = vd_app_var(app, app->focus->id);
	struct vd_buf b = {0};
	vd_buf_puts(&b, old ? old : "");
	vd_buf_puts(&b, text);
	if (b.data && b.len <= VD_MAX_FIELD)
		set_var(app, app->focus->id, b.data);
	vd_buf_free(&b);
}

bool vd_app_keyboard_shown(const struct vd_app *app, int *top)
{
	if (top)
		*top = VD_KEYBOARD_TOP;
	return app->keyboard && vd_app_current_screen(app) != NULL;
}

bool vd_app_dialog_shown(const struct vd_app *app)
{
	return vd_app_current_screen(app) && app->dialog >= 0;
}

bool vd_app_secure(const struct vd_app *app)
{
	const struct vd_screen *s = vd_app_current_screen(app);
	return s && s->secure;
}
