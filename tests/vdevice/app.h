/* app.h: the scripted app model (YAML) and its live state: screens, focus, keyboard, dialogs, scrolling. */
#ifndef VDEVICE_APP_H
#define VDEVICE_APP_H

#include "vdevice.h"

/* Android key codes the model understands (subset of KeyEvent). */
enum {
	VD_KEY_HOME = 3,
	VD_KEY_BACK = 4,
	VD_KEY_DPAD_CENTER = 23,
	VD_KEY_TAB = 61,
	VD_KEY_ENTER = 66,
	VD_KEY_DEL = 67,
	VD_KEY_MENU = 82,
	VD_KEY_ESCAPE = 111,
	VD_KEY_FORWARD_DEL = 112,
	VD_KEY_MOVE_HOME = 122,
	VD_KEY_MOVE_END = 123,
	VD_KEY_APP_SWITCH = 187,
};

/* Loads @path; on failure returns NULL and writes a message naming the problem into @err. */
struct vd_app *vd_app_load(const char *path, char *err, size_t errlen);
void vd_app_free(struct vd_app *app);

/* Installed packages (system ones plus the app when installed), in install order. */
size_t vd_app_package_count(const struct vd_app *app);
const char *vd_app_package_at(const struct vd_app *app, size_t i);
bool vd_app_is_installed(const struct vd_app *app, const char *pkg);
/* Marks @pkg installed (the app's own package, or a bare package without screens). */
bool vd_app_install(struct vd_app *app, struct vd_device *d, const char *pkg);
bool vd_app_uninstall(struct vd_app *app, struct vd_device *d, const char *pkg);
/* The package a streamed install without a marker installs (the model's app). */
const char *vd_app_main_package(const struct vd_app *app);
const char *vd_app_version_name(const struct vd_app *app);
/* The launcher activity of @pkg as "pkg/.Activity", or NULL. (transfer none) */
const char *vd_app_launcher_component(const struct vd_app *app, const char *pkg);

/* Foreground window: package and full activity class name. (transfer none) */
void vd_app_foreground(const struct vd_app *app, const char **pkg, const char **activity);

/*
 * Starts an activity. @activity may be NULL (launcher activity), ".Name" or a full class name.
 * Returns 0, -1 when the activity does not exist, -2 when the package is not installed.
 */
int vd_app_start(struct vd_app *app, struct vd_device *d, const char *pkg, const char *activity);
/* Opens a URL through the model's deep links; returns false when nothing handles it. */
bool vd_app_open_url(struct vd_app *app, struct vd_device *d, const char *url, const char **component);
void vd_app_force_stop(struct vd_app *app, struct vd_device *d, const char *pkg);
void vd_app_clear_data(struct vd_app *app, struct vd_device *d, const char *pkg);

void vd_app_tap(struct vd_app *app, struct vd_device *d, int x, int y);
void vd_app_long_press(struct vd_app *app, struct vd_device *d, int x, int y);
void vd_app_swipe(struct vd_app *app, struct vd_device *d, int x1, int y1, int x2, int y2);
void vd_app_key(struct vd_app *app, struct vd_device *d, int code);
/* Types already-unescaped ASCII text into the focused field (no field: ignored, like Android). */
void vd_app_text(struct vd_app *app, struct vd_device *d, const char *text);

/* Writes the uiautomator XML of the active window. */
bool vd_app_dump_xml(struct vd_app *app, struct vd_device *d, struct vd_buf *xml);
bool vd_app_keyboard_shown(const struct vd_app *app, int *top);
bool vd_app_dialog_shown(const struct vd_app *app);
bool vd_app_secure(const struct vd_app *app);

/* dumpsys sections with the lines real devices print. */
void vd_app_dumpsys_window(struct vd_app *app, struct vd_buf *b);
void vd_app_dumpsys_activities(struct vd_app *app, struct vd_buf *b);
void vd_app_dumpsys_input_method(struct vd_app *app, struct vd_buf *b);
void vd_app_dumpsys_package(struct vd_app *app, const char *pkg, struct vd_buf *b);

/* Renders the screen as RGBA pixels (VD_SCREEN_W x VD_SCREEN_H); caller frees. */
uint8_t *vd_app_render(struct vd_app *app);

#endif
