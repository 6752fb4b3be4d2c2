/*
 * app-dump.c: what the device reports about the app model: the uiautomator XML of the active
 * window and the dumpsys window / activity / input_method / package sections.
 */
#include "app-model.h"

#include <stdio.h>
#include <string.h>

/* ---- uiautomator dump --------------------------------------------------------------------------------- */

static const char *tf(bool v)
{
	return v ? "true" : "false";
}

bool vd_app_dump_xml(struct vd_app *app, struct vd_device *d, struct vd_buf *x)
{
	struct vd_layout l;
	vd_app_layout(app, &l, false);
	vd_buf_puts(x, "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">");
	int open = 0; /* depth of the innermost open <node> + 1 */
	for (size_t i = 0; i < l.n; i++) {
		const struct vd_view *v = &l.v[i];
		const struct vd_node *n = v->node;
		for (; open > v->depth; open--)
			vd_buf_puts(x, "</node>");
		bool clickable = v->item != 0 || (n && n->clickable);
		vd_buf_printf(x, "<node index=\"%d\" text=\"", v->index);
		vd_buf_xml(x, v->text);
		vd_buf_puts(x, "\" resource-id=\"");
		vd_buf_xml(x, v->res_id);
		vd_buf_puts(x, "\" class=\"");
		vd_buf_xml(x, v->cls);
		vd_buf_puts(x, "\" package=\"");
		vd_buf_xml(x, v->package);
		vd_buf_puts(x, "\" content-desc=\"");
		vd_buf_xml(x, v->desc);
		vd_buf_printf(x,
		              "\" checkable=\"%s\" checked=\"%s\" clickable=\"%s\" enabled=\"%s\" focusable=\"%s\" "
		              "focused=\"%s\" scrollable=\"%s\" long-clickable=\"%s\" password=\"%s\" selected=\"%s\" "
		              "bounds=\"[%d,%d][%d,%d]\"",
		              tf(n && n->checkable), tf(v->checked), tf(clickable), tf(!n || n->enabled),
		              tf(clickable || (n && n->focusable)), tf(v->focused), tf(n && n->scrollable),
		              tf(n && n->long_clickable), tf(n && n->password), tf(n && n->selected), v->b[0], v->b[1],
		              v->b[2], v->b[3]);
		if (v->has_children) {
			vd_buf_puts(x, ">");
			open = v->depth + 1;
		} else {
			vd_buf_puts(x, " />");
			open = v->depth;
		}
	}
	for (; open > 0; open--)
		vd_buf_puts(x, "</node>");
	vd_buf_puts(x, "</hierarchy>");
	vd_layout_free(&l);
	return !x->failed;
}

/* ---- dumpsys ---------------------------------------------------------------------------------------------- */

void vd_app_dumpsys_window(struct vd_app *app, struct vd_buf *b)
{
	const char *pkg, *act;
	char comp[512];
	vd_app_foreground(app, &pkg, &act);
	vd_app_short_component(pkg, act, comp, sizeof(comp));
	bool ime = vd_app_keyboard_shown(app, NULL);
	vd_buf_puts(b, "WINDOW MANAGER WINDOWS (dumpsys window windows)\n");
	vd_buf_printf(
	    b,
	    "  Window #0 Window{4c3a1f2 u0 InputMethod}:\n"
	    "    mDisplayId=0 rootTaskId=1 mSession=Session{8e1d2b3 1823:u0a10104} "
	    "mClient=android.os.BinderProxy@5f4e3d2\n"
	    "    mOwnerUid=10104 showForAllUsers=false package=com.google.android.inputmethod.latin appop=NONE\n"
	    "    mAttrs={(0,0)(fillxwrap) gr=BOTTOM CENTER_VERTICAL sim={adjust=pan} ty=INPUT_METHOD fmt=TRANSPARENT}\n"
	    "    mHasSurface=%s isReadyForDisplay()=%s mWindowRemovalAllowed=false\n"
	    "    Frames: parent=[0,0][%d,%d] display=[0,0][%d,%d] frame=[0,%d][%d,%d]\n"
	    "    mViewVisibility=%s mHaveFrame=true mObscured=false\n"
	    "    isOnScreen=%s\n    isVisible=%s\n",
	    tf(ime), tf(ime), VD_SCREEN_W, VD_SCREEN_H, VD_SCREEN_W, VD_SCREEN_H, VD_KEYBOARD_TOP, VD_SCREEN_W,
	    VD_SCREEN_H, ime ? "0x0" : "0x8", tf(ime), tf(ime));
	int w = 1;
	if (vd_app_dialog_shown(app))
		vd_buf_printf(
		    b,
		    "  Window #%d Window{7d2e9a1 u0 %s/%s}:\n    mAttrs={(0,0)(wrapxwrap) gr=CENTER ty=APPLICATION "
		    "fmt=TRANSLUCENT fl=DIM_BEHIND}\n    isOnScreen=true\n    isVisible=true\n",
		    w++, pkg, act);
	vd_buf_printf(b,
	              "  Window #%d Window{2b8c4d1 u0 %s/%s}:\n    mAttrs={(0,0)(fillxfill) ty=BASE_APPLICATION%s}\n"
	              "    isOnScreen=true\n    isVisible=true\n",
	              w, pkg, act, vd_app_secure(app) ? " fl=SECURE" : "");
	vd_buf_printf(
	    b,
	    "\n  mGlobalConfiguration={1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long "
	    "port finger -keyb/v/h -nav/h winConfig={ mBounds=Rect(0, 0 - %d, %d) mAppBounds=Rect(0, %d - %d, "
	    "%d) mWindowingMode=fullscreen mDisplayWindowingMode=fullscreen mActivityType=undefined "
	    "mAlwaysOnTop=undefined mRotation=ROTATION_0} s.6}\n",
	    VD_SCREEN_W, VD_SCREEN_H, VD_STATUS_BAR_H, VD_SCREEN_W, VD_SCREEN_H - VD_NAV_BAR_H);
	vd_buf_printf(b, "  mHasPermanentDpad=false\n  mTopFocusedDisplayId=0\n");
	vd_buf_printf(
	    b,
	    "\nWINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n  Display: mDisplayId=0 rootTasks=2\n"
	    "    init=%dx%d %ddpi cur=%dx%d app=%dx%d rng=%dx%d-%dx%d\n    mCurrentRotation=ROTATION_0\n",
	    VD_SCREEN_W, VD_SCREEN_H, VD_DENSITY, VD_SCREEN_W, VD_SCREEN_H, VD_SCREEN_W,
	    VD_SCREEN_H - VD_STATUS_BAR_H - VD_NAV_BAR_H, VD_SCREEN_W, VD_SCREEN_W - VD_STATUS_BAR_H - VD_NAV_BAR_H,
	    VD_SCREEN_H - VD_STATUS_BAR_H - VD_NAV_BAR_H, VD_SCREEN_H - VD_STATUS_BAR_H);
	vd_buf_printf(b, "  mCurrentFocus=Window{%s u0 %s/%s}\n", vd_app_dialog_shown(app) ? "7d2e9a1" : "2b8c4d1", pkg,
	              act);
	vd_buf_printf(b, "  mFocusedApp=ActivityRecord{9f1e7c2 u0 %s t%u}\n", comp,
	              vd_app_current_screen(app) ? app->task_id : 1u);
	vd_buf_puts(b, "  mInputMethodWindow=Window{4c3a1f2 u0 InputMethod}\n");
	vd_buf_printf(b, "  mInputMethodTarget=Window{2b8c4d1 u0 %s/%s}\n", pkg, act);
	vd_buf_printf(b, "  mInTouchMode=true\n  mDisplayFrozen=false\n  mRotation=0 mAltOrientation=false\n");
	vd_buf_printf(b, "  mImeShowing=%s\n", tf(ime));
}

void vd_app_dumpsys_activities(struct vd_app *app, struct vd_buf *b)
{
	const char *pkg, *act;
	char comp[512];
	vd_app_foreground(app, &pkg, &act);
	vd_app_short_component(pkg, act, comp, sizeof(comp));
	unsigned task = vd_app_current_screen(app) ? app->task_id : 1u;
	vd_buf_printf(b,
	              "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
	              "Display #0 (activities from top to bottom):\n"
	              "  * Task{c41d2e3 #%u type=%s A=10163:%s U=0 visible=true visibleRequested=true mode=fullscreen "
	              "translucent=false sz=1}\n"
	              "    mResumedActivity: ActivityRecord{9f1e7c2 u0 %s t%u}\n"
	              "    * Hist #0: ActivityRecord{9f1e7c2 u0 %s t%u}\n\n"
	              "  ResumedActivity: ActivityRecord{9f1e7c2 u0 %s t%u}\n\n"
	              "  mFocusedApp=ActivityRecord{9f1e7c2 u0 %s t%u}\n",
	              task, vd_app_current_screen(app) ? "standard" : "home", pkg, comp, task, comp, task, comp, task,
	              comp, task);
}

void vd_app_dumpsys_input_method(struct vd_app *app, struct vd_buf *b)
{
	const char *pkg, *act;
	vd_app_foreground(app, &pkg, &act);
	bool ime = vd_app_keyboard_shown(app, NULL);
	vd_buf_printf(b,
	              "Current Input Method Manager state:\n"
	              "  mCurMethodId=com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n"
	              "  mCurFocusedWindow=Window{2b8c4d1 u0 %s/%s}\n"
	              "  mCurFocusedWindowSoftInputMode=STATE_UNSPECIFIED|ADJUST_PAN\n"
	              "  mShowRequested=%s mShowExplicitlyRequested=false mShowForced=false mInputShown=%s\n"
	              "  mInFullscreenMode=false\n  mSystemReady=true mInteractive=true\n"
	              "  mIsInputViewShown=%s\n",
	              pkg, act, tf(ime), tf(ime), tf(ime));
}

void vd_app_dumpsys_package(struct vd_app *app, const char *pkg, struct vd_buf *b)
{
	if (!vd_app_is_installed(app, pkg))
		return;
	bool own = strcmp(pkg, app->package) == 0;
	vd_buf_printf(b,
	              "Packages:\n  Package [%s] (3a9c1e0):\n    userId=10163\n    pkg=Package{5b7d2f1 %s}\n"
	              "    versionCode=%d minSdk=24 targetSdk=33\n    versionName=%s\n    flags=[ HAS_CODE "
	              "ALLOW_CLEAR_USER_DATA ]\n",
	              pkg, pkg, 1, own ? app->version : "13");
}
