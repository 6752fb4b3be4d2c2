/* app-model.h: the parsed app model (screens, nodes, actions) shared by app.c, app-load.c and render.c. */
#ifndef VDEVICE_APP_MODEL_H
#define VDEVICE_APP_MODEL_H

#include "app.h"

#define VD_MAX_STACK 32
#define VD_MAX_FIELD 4096
#define VD_STATUS_BAR_H 63
#define VD_NAV_BAR_H 63
#define VD_KEYBOARD_TOP 1560
#define VD_LAUNCHER_PKG "com.google.android.apps.nexuslauncher"
#define VD_LAUNCHER_ACT "com.android.launcher3.uioverrides.QuickstepLauncher"

struct vd_cond {
	char *var;    /* field id or variable name */
	char *equals; /* NULL: not tested */
	char *not_equals;
	int empty; /* -1 not tested, 0 must be non-empty, 1 must be empty */
};

struct vd_action {
	struct vd_cond *when; /* NULL: always */
	char *go;             /* screen name, or "back" */
	bool clear_stack;     /* go replaces the whole back stack */
	char *dialog;         /* show this dialog screen */
	bool dismiss;         /* close the dialog */
	bool toggle;          /* toggle the node's checked state */
	bool exit;            /* finish the app (back to the launcher) */
	bool hide_keyboard;
	char *log; /* "Tag: message" or "W/Tag: message" */
	char *crash; /* "java" or "native": the process dies with a FATAL EXCEPTION / tombstone in logcat */
	bool anr;    /* logs an "ANR in <pkg>" entry (the app stays in front, frozen) */
	char **set_keys, **set_values;
	size_t n_set;
	char **clear; /* field ids to empty */
	size_t n_clear;
};

struct vd_actions {
	struct vd_action *v;
	size_t n;
};

struct vd_items {
	long count;
	int height;
	char *text; /* template with {n} */
	char *desc; /* template */
	char *id;   /* resource-id template */
	char *cls;
	struct vd_actions on_tap;
};

struct vd_node {
	char *id; /* model id: field name, tap target name */
	char *cls, *res_id, *text, *desc, *hint, *package;
	int b[4];
	bool clickable, focusable, password, scrollable, enabled, checkable, checked_init, selected, long_clickable,
	    editable;
	struct vd_actions on_tap, on_submit, on_long_press;
	struct vd_node **children;
	size_t n_children;
	struct vd_items *items;    /* generated list rows (scrollable containers) */
	struct vd_cond *show_when; /* the node (and its children) exist only while this holds */
	/* live state */
	bool checked;
	int scroll; /* content offset in pixels */
};

struct vd_key_binding {
	int code;
	struct vd_actions actions;
};

struct vd_screen {
	char *name;
	char *activity; /* full class name */
	char *title;
	char *package; /* windows of another package (a permission prompt); NULL = the app */
	bool dialog;
	bool cancelable;
	bool secure;
	int b[4];            /* dialog frame */
	struct vd_node root; /* children = the screen's nodes */
	struct vd_key_binding *keys;
	size_t n_keys;
	struct vd_actions on_enter;
};

struct vd_deeplink {
	char *prefix;
	char *screen;
	char *var; /* variable receiving the rest of the URL */
};

struct vd_app {
	char *package, *label, *version, *launcher_activity;
	struct vd_screen *screens;
	size_t n_screens;
	size_t start;
	struct vd_deeplink *links;
	size_t n_links;
	char **persist; /* variables that survive the process dying (cleared only by `pm clear`) */
	size_t n_persist;
	char **packages; /* installed, in order */
	size_t n_packages;
	/* live state */
	bool running;
	bool foreground; /* the app (not the launcher) is in front */
	size_t stack[VD_MAX_STACK];
	size_t depth;
	long dialog; /* screen index or -1 */
	struct vd_node *focus;
	bool keyboard;
	char **var_keys, **var_values;
	size_t n_vars;
	unsigned task_id;
};

/* A node as laid out on screen right now. */
struct vd_view {
	const struct vd_node *node;
	int b[4];
	char *text; /* displayed text (hint, dots for passwords, templates expanded) */
	char *desc;
	char *res_id;
	const char *cls;
	const char *package;
	const struct vd_actions *on_tap;
	long item; /* list row number (1-based) or 0 */
	int depth;
	int index; /* among siblings */
	bool has_children;
	bool focused;
	bool checked;
};

struct vd_layout {
	struct vd_view *v;
	size_t n;
	bool dim;           /* a dialog sits over the screen: draw the screen dimmed first */
	size_t dialog_from; /* views from this index belong to the dialog */
	int frame[4];
};

/* Lays out the visible screen (and dialog). */
bool vd_app_layout(struct vd_app *app, struct vd_layout *out, bool include_background);
void vd_layout_free(struct vd_layout *l);

const struct vd_screen *vd_app_current_screen(const struct vd_app *app);
/* "com.example/.Main" when the class is inside the package, as ActivityRecord prints it. */
void vd_app_short_component(const char *pkg, const char *activity, char *out, size_t n);
const char *vd_app_var(const struct vd_app *app, const char *name);

/* app-load.c */
void vd_actions_free(struct vd_actions *a);
void vd_node_free_children(struct vd_node *n);

#endif
