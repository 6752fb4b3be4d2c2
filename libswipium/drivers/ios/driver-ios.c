/* driver-ios.c: the iOS Simulator behind struct sw_driver_ops.
 *
 * simctl does what it can (screenshots, recordings, apps, URLs); WebDriverAgent, when the session has one
 * attached, reads the UI tree and drives input. Without WDA the simulator is visual-only: the UI tree,
 * typing and the foreground app answer BACKEND_UNSUPPORTED saying so, and taps go through `idb` when it is
 * on PATH. Rotation, network and location have no simctl command and are not announced.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ios-internal.h"
#include <swipium/util.h>

typedef struct ios_dev {
	sw_ctx *ctx;
	char *udid, *name, *runtime, *devtype;
	sw__wda *wda;  /* NULL: visual-only */
	char *app_id;  /* the session's app (WDA's session capability), nullable */
	int pw, ph;    /* the screen in points, once known */
	const char *back_via; /* how the last "back" went: "nav_button" | "edge_swipe" (static), NULL */
	json_t *apps;  /* the last `simctl listapps`, NULL until read (an install forgets it) */
	sw__ios_logstream *ls; /* `log stream` for the act loop's looks, started by the first one (logstream.c) */
	int64_t ls_retry_ms;   /* after a stream that failed or ended: not restarted before this (monotonic) */
} ios_dev;

static void dev_free(ios_dev *d)
{
	if (!d)
		return;
	free(d->udid);
	free(d->name);
	free(d->runtime);
	free(d->devtype);
	free(d->app_id);
	sw__wda_free(d->wda);
	json_decref(d->apps);
	sw__ios_logstream_free(d->ls);
	free(d);
}

static int no_wda(const ios_dev *d, const char *what, sw_error **err)
{
	int rc = sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED",
	                       "Attach WebDriverAgent (qa_wda {action: \"attach\"}) for structured control; qa_screenshot "
	                       "and qa_visual work without it",
	                       "The simulator %s is visual-only (no WebDriverAgent attached): it cannot %s", d->name, what);
	if (err && *err)
		sw__error_take_details(*err, json_pack("{s:s}", "mode", "visual-only"));
	return rc;
}

static int probe(sw_ctx *ctx, const char *options_json, void **state, sw_error **err)
{
	json_t *o = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(o)) {
		json_decref(o);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "iOS driver options must be a JSON object");
	}
	int rc = sw_ios_check(ctx, err);
	json_t *list = NULL, *sim = NULL;
	if (rc == SW_OK)
		rc = sw__simctl_list(&list, err);
	if (rc == SW_OK)
		rc = sw__simctl_pick(list, json_string_value(json_object_get(o, "serial")), NULL, false, &sim, err);
	const char *state_s = json_string_value(json_object_get(sim, "state"));
	if (rc == SW_OK && (!state_s || strcmp(state_s, "Booted") != 0)) {
		rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY",
		                   "Boot it: qa_ios {action: \"boot\", device}, then qa_wait {for: \"simulator_booted\"}",
		                   "The simulator %s (%s) is %s, not Booted", json_string_value(json_object_get(sim, "name")),
		                   json_string_value(json_object_get(sim, "udid")), state_s ? state_s : "in an unknown state");
	}
	ios_dev *d = NULL;
	if (rc == SW_OK) {
		d = calloc(1, sizeof(*d));
		if (!d)
			rc = sw__error_nomem(err);
	}
	if (rc == SW_OK) {
		d->ctx = ctx;
		d->udid = sw__strdup(json_string_value(json_object_get(sim, "udid")));
		d->name = sw__strdup(json_string_value(json_object_get(sim, "name")));
		const char *rt = json_string_value(json_object_get(sim, "runtime"));
		d->runtime = rt ? sw__strdup(rt) : NULL;
		const char *dt = json_string_value(json_object_get(sim, "deviceType"));
		d->devtype = dt ? sw__strdup(dt) : NULL;
		const char *app = json_string_value(json_object_get(o, "appId"));
		d->app_id = app ? sw__strdup(app) : NULL;
		json_t *wda = json_object_get(o, "wda");
		const char *url = json_string_value(json_object_get(wda, "url"));
		if (url) {
			d->wda = sw__wda_new(url, json_string_value(json_object_get(wda, "sessionId")), d->app_id);
			if (!d->wda)
				rc = sw__error_nomem(err);
			else if (json_is_object(json_object_get(wda, "capabilities")))
				d->wda->extra_caps = json_incref(json_object_get(wda, "capabilities"));
		}
		if (rc == SW_OK && (!d->udid || !d->name))
			rc = sw__error_nomem(err);
	}
	json_decref(list);
	json_decref(o);
	if (rc != SW_OK) {
		dev_free(d);
		return rc;
	}
	*state = d;
	return SW_OK;
}

static void release(void *state)
{
	dev_free(state);
}

static int describe(void *state, char **out_json, sw_error **err)
{
	ios_dev *d = state;
	json_t *o = json_pack("{s:s,s:s,s:b,s:b,s:s,s:s?,s:s?,s:s}", "platform", "ios", "serial", d->udid, "emulator", 1,
	                      "simulator", 1, "name", d->name, "runtime", d->runtime, "deviceType", d->devtype, "mode",
	                      d->wda ? "structured" : "visual-only");
	if (o && d->wda) {
		json_object_set_new(o, "wdaUrl", json_string(d->wda->base));
		if (d->wda->sid)
			json_object_set_new(o, "wdaSessionId", json_string(d->wda->sid));
	}
	*out_json = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* ---- simctl helpers ---------------------------------------------------------------------------- */

/* Runs one simctl subcommand on this simulator; a non-zero exit fails with @fc. */
static int simctl_on(ios_dev *d, const char *const *args, int timeout_ms, const char *fc, const char *hint,
                     const char *ok_text, sw_error **err)
{
	sw__proc_result r;
	int rc = sw__simctl(args, timeout_ms, NULL, NULL, &r, err);
	if (rc != SW_OK)
		return rc;
	if (r.status != 0 && !(ok_text && ((r.err && strstr(r.err, ok_text)) || (r.out && strstr(r.out, ok_text)))))
		rc = sw__simctl_fail(args[0], &r, fc, hint, err);
	sw__proc_result_clear(&r);
	(void)d;
	return rc;
}

/* A private temporary directory (0700). (transfer full) */
static char *temp_dir(const char *what, sw_error **err)
{
	const char *base = getenv("TMPDIR");
	char *tmpl = sw__asprintf("%s/swipium-%s-XXXXXX", base && *base ? base : "/tmp", what);
	if (!tmpl || !mkdtemp(tmpl)) {
		int e = errno;
		free(tmpl);
		sw__error_set(err, SW_EIO, "UNKNOWN", "Check that TMPDIR (or /tmp) is writable",
		              "Could not create a temporary directory: %s", strerror(e));
		return NULL;
	}
	return tmpl;
}

static bool png_dims(const unsigned char *p, size_t len, int *w, int *h)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	if (len < 24 || memcmp(p, sig, 8) || memcmp(p + 12, "IHDR", 4))
		return false;
	*w = (int)((unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19]);
	*h = (int)((unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23]);
	return *w > 0 && *h > 0;
}

static int screencap(void *state, unsigned char **png, size_t *len, sw_error **err)
{
	ios_dev *d = state;
	char *dir = temp_dir("shot", err);
	if (!dir)
		return SW_EIO;
	char *file = sw__path_join(dir, "screen.png");
	int rc = file ? SW_OK : sw__error_nomem(err);
	if (rc == SW_OK) {
		const char *args[] = {"io", d->udid, "screenshot", "--type=png", file, NULL};
		rc = simctl_on(d, args, SW__SIMCTL_SHOT_MS, "DEVICE_NOT_READY", "Check that the simulator is Booted and retry",
		               NULL, err);
	}
	char *data = NULL;
	size_t n = 0;
	if (rc == SW_OK)
		rc = sw__read_file(file, (size_t)256 << 20, &data, &n, err);
	int w = 0, h = 0;
	if (rc == SW_OK && !png_dims((const unsigned char *)data, n, &w, &h)) {
		rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Retry the screenshot",
		                   "simctl io screenshot wrote %zu bytes that are not a PNG", n);
	}
	if (file)
		unlink(file);
	rmdir(dir);
	free(file);
	free(dir);
	if (rc != SW_OK) {
		free(data);
		return rc;
	}
	*png = (unsigned char *)data;
	*len = n;
	return SW_OK;
}

/* Points per pixel of a simulator model without WDA to ask: @2x for the SE/8-class phones and iPads, else @3x. */
static int scale_of(const ios_dev *d)
{
	const char *t = d->devtype ? d->devtype : d->name;
	if (!t)
		return 3;
	if (strcasestr(t, "iPad") || strcasestr(t, "iPhone-SE") || strcasestr(t, "iPhone SE") || strcasestr(t, "iPhone-8") ||
	    strcasestr(t, "iPhone 8") || strcasestr(t, "iPhone-11") || strcasestr(t, "iPhone 11") || strcasestr(t, "iPhone-XR") ||
	    strcasestr(t, "iPhone XR"))
		return strcasestr(t, "Pro") && strcasestr(t, "iPhone") ? 3 : 2;
	return 3;
}

static int screen_size(void *state, int *width, int *height, sw_error **err)
{
	ios_dev *d = state;
	if (d->pw > 0 && d->ph > 0) {
		*width = d->pw;
		*height = d->ph;
		return SW_OK;
	}
	if (d->wda) {
		json_t *v = NULL;
		int rc = sw__wda_call(d->wda, "GET", "/window/size", true, NULL, 0, &v, err);
		if (rc != SW_OK)
			return rc;
		json_t *wv = json_object_get(v, "width"), *hv = json_object_get(v, "height");
		if (json_is_number(wv) && json_is_number(hv) && json_number_value(wv) > 0 && json_number_value(hv) > 0) {
			d->pw = (int)json_number_value(wv);
			d->ph = (int)json_number_value(hv);
		}
		json_decref(v);
		if (d->pw <= 0)
			return sw__error_set(err, SW_EDEVICE, "WDA_UNREACHABLE", "Restart WebDriverAgent",
			                     "WebDriverAgent's /window/size answered no usable width and height");
	} else {
		unsigned char *png = NULL;
		size_t n = 0;
		int rc = screencap(d, &png, &n, err);
		if (rc != SW_OK)
			return rc;
		int w = 0, h = 0;
		png_dims(png, n, &w, &h);
		free(png);
		int sc = scale_of(d);
		d->pw = w / sc;
		d->ph = h / sc;
	}
	*width = d->pw;
	*height = d->ph;
	return SW_OK;
}

/* ---- input --------------------------------------------------------------------------------- */

static int idb_run(ios_dev *d, const char *const *args, sw_error **err)
{
	char *idb = sw__which("idb");
	if (!idb)
		return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED",
		                     "Install idb (brew install idb-companion; pip install fb-idb) for taps without WebDriverAgent, "
		                     "or attach WebDriverAgent (qa_wda {action: \"attach\"})",
		                     "The simulator %s is visual-only: neither WebDriverAgent nor idb is there to tap", d->name);
	sw__argv a = SW_ARGV_INIT;
	sw__argv_add(&a, idb);
	sw__argv_addv(&a, args);
	sw__argv_add(&a, "--udid");
	sw__argv_add(&a, d->udid);
	const char *const *argv = sw__argv_finish(&a, err);
	int rc = argv ? SW_OK : SW_ENOMEM;
	sw__proc_result r = {0};
	if (rc == SW_OK) {
		sw__proc_opts o = {0};
		o.timeout_ms = 15000;
		o.max_out = 1 << 20;
		sw_error *e = NULL;
		rc = sw__proc_run(argv, &o, &r, &e);
		if (rc != SW_OK) {
			rc = sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", "Check that `idb list-targets` works",
			                   "idb could not be started: %s", e ? sw_error_message(e) : "?");
			sw_error_free(e);
		} else if (r.timed_out || r.status != 0) {
			char *said = sw__cap(r.err && *r.err ? r.err : r.out, 200);
			rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Check `idb list-targets` and the idb companion",
			                   "idb %s %s failed: %s", args[0], args[1], r.timed_out ? "timed out" : (said ? said : ""));
			free(said);
		}
		sw__proc_result_clear(&r);
	}
	sw__argv_free(&a);
	free(idb);
	return rc;
}

static int tap(void *state, int x, int y, int duration_ms, sw_error **err)
{
	ios_dev *d = state;
	if (!d->wda) {
		char xs[16], ys[16];
		snprintf(xs, sizeof(xs), "%d", x);
		snprintf(ys, sizeof(ys), "%d", y);
		const char *args[] = {"ui", "tap", xs, ys, NULL};
		return idb_run(d, args, err);
	}
	json_t *body = duration_ms > 0 ? json_pack("{s:i,s:i,s:f}", "x", x, "y", y, "duration", duration_ms / 1000.0)
	                               : json_pack("{s:i,s:i}", "x", x, "y", y);
	int rc = sw__wda_call(d->wda, "POST", duration_ms > 0 ? "/wda/touchAndHold" : "/wda/tap", true, body, 0, NULL, err);
	json_decref(body);
	return rc;
}

static int swipe(void *state, int x1, int y1, int x2, int y2, int duration_ms, sw_error **err)
{
	ios_dev *d = state;
	if (!d->wda) {
		char v[4][16];
		snprintf(v[0], 16, "%d", x1);
		snprintf(v[1], 16, "%d", y1);
		snprintf(v[2], 16, "%d", x2);
		snprintf(v[3], 16, "%d", y2);
		const char *args[] = {"ui", "swipe", v[0], v[1], v[2], v[3], NULL};
		return idb_run(d, args, err);
	}
	double secs = duration_ms > 0 ? duration_ms / 1000.0 : 0.3;
	if (secs < 0.1)
		secs = 0.1;
	json_t *body = json_pack("{s:i,s:i,s:i,s:i,s:f}", "fromX", x1, "fromY", y1, "toX", x2, "toY", y2, "duration", secs);
	int rc = sw__wda_call(d->wda, "POST", "/wda/dragfromtoforduration", true, body, 0, NULL, err);
	json_decref(body);
	return rc;
}

/* The value array WDA types: one string per character (UTF-8 code point). */
static json_t *chars_of(const char *text)
{
	json_t *a = json_array();
	for (const char *p = text; a && *p;) {
		size_t n = 1;
		while (p[n] && ((unsigned char)p[n] & 0xc0) == 0x80)
			n++;
		json_array_append_new(a, json_stringn(p, n));
		p += n;
	}
	return a;
}

/* The focused element's WDA id, or NULL when none is focused. (transfer full) */
static char *active_element(ios_dev *d)
{
	json_t *v = NULL;
	if (sw__wda_call(d->wda, "GET", "/element/active", true, NULL, 0, &v, NULL) != SW_OK)
		return NULL;
	const char *id = json_string_value(json_object_get(v, "ELEMENT"));
	if (!id)
		id = json_string_value(json_object_get(v, "element-6066-11e4-a52e-4f735466cecf"));
	char *r = id ? sw__strdup(id) : NULL;
	json_decref(v);
	return r;
}

static int type_text(void *state, const char *text, sw_error **err)
{
	ios_dev *d = state;
	if (!d->wda)
		return no_wda(d, "type text", err);
	json_t *chars = chars_of(text);
	char *eid = active_element(d);
	int rc;
	if (eid) {
		char *path = sw__asprintf("/element/%s/value", eid);
		json_t *body = json_pack("{s:s,s:O}", "text", text, "value", chars);
		rc = path && body ? sw__wda_call(d->wda, "POST", path, true, body, 0, NULL, err) : sw__error_nomem(err);
		json_decref(body);
		free(path);
	} else {
		json_t *body = json_pack("{s:O}", "value", chars);
		rc = body ? sw__wda_call(d->wda, "POST", "/wda/keys", true, body, 0, NULL, err) : sw__error_nomem(err);
		json_decref(body);
	}
	free(eid);
	json_decref(chars);
	return rc;
}

static int keys(ios_dev *d, const char *k, sw_error **err)
{
	json_t *body = json_pack("{s:[s]}", "value", k);
	int rc = sw__wda_call(d->wda, "POST", "/wda/keys", true, body, 0, NULL, err);
	json_decref(body);
	return rc;
}

static int press_key(void *state, const char *key, sw_error **err)
{
	ios_dev *d = state;
	if (!d->wda)
		return no_wda(d, "press keys", err);
	d->back_via = NULL;
	if (!strcmp(key, "home"))
		return sw__wda_call(d->wda, "POST", "/wda/homescreen", false, NULL, 0, NULL, err);
	if (!strcmp(key, "enter"))
		return keys(d, "\n", err);
	if (!strcmp(key, "del"))
		return keys(d, "\b", err);
	if (!strcmp(key, "tab"))
		return keys(d, "\t", err);
	if (!strcmp(key, "back")) {
		/* iOS has no back key: the navigation bar's back button, else the edge swipe */
		json_t *body = json_pack("{s:s,s:s}", "using", "class chain", "value",
		                         "**/XCUIElementTypeNavigationBar/XCUIElementTypeButton[1]");
		json_t *v = NULL;
		sw_error *e = NULL;
		int rc = sw__wda_call(d->wda, "POST", "/element", true, body, 0, &v, &e);
		json_decref(body);
		const char *id = json_string_value(json_object_get(v, "ELEMENT"));
		if (!id)
			id = json_string_value(json_object_get(v, "element-6066-11e4-a52e-4f735466cecf"));
		if (rc == SW_OK && id) {
			char *path = sw__asprintf("/element/%s/click", id);
			rc = path ? sw__wda_call(d->wda, "POST", path, true, NULL, 0, NULL, err) : sw__error_nomem(err);
			free(path);
			json_decref(v);
			if (rc == SW_OK)
				d->back_via = "nav_button";
			return rc;
		}
		json_decref(v);
		if (rc != SW_OK && strcmp(sw_error_failure_code(e), "ELEMENT_NOT_FOUND") != 0) {
			sw__error_propagate(err, e);
			return rc;
		}
		sw_error_free(e);
		int w = 0, h = 0;
		if ((rc = screen_size(d, &w, &h, err)) != SW_OK)
			return rc;
		rc = swipe(d, 2, h / 2, w * 3 / 5, h / 2, 250, err);
		if (rc == SW_OK)
			d->back_via = "edge_swipe";
		return rc;
	}
	return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", "Use back, home, enter, del or tab",
	                     "The iOS simulator has no \"%s\" key", key);
}

static int clear_text(void *state, size_t chars, sw_error **err)
{
	ios_dev *d = state;
	if (!d->wda)
		return no_wda(d, "clear text fields", err);
	char *eid = active_element(d);
	if (eid) {
		char *path = sw__asprintf("/element/%s/clear", eid);
		int rc = path ? sw__wda_call(d->wda, "POST", path, true, NULL, 0, NULL, err) : sw__error_nomem(err);
		free(path);
		free(eid);
		return rc;
	}
	json_t *a = json_array();
	for (size_t i = 0; a && i < chars && i < 4096; i++)
		json_array_append_new(a, json_string("\b"));
	json_t *body = json_pack("{s:o}", "value", a);
	int rc = sw__wda_call(d->wda, "POST", "/wda/keys", true, body, 0, NULL, err);
	json_decref(body);
	return rc;
}

static int dump_ui(void *state, char **xml, size_t *len, sw_error **err)
{
	ios_dev *d = state;
	if (!d->wda)
		return no_wda(d, "read the UI tree (qa_snapshot needs WebDriverAgent)", err);
	char *src = NULL;
	size_t n = 0;
	int rc = sw__wda_source(d->wda, 0, &src, &n, err);
	if (rc != SW_OK)
		return rc;
	rc = sw__wda_source_convert(src, n, d->app_id, 0, xml, len, NULL, err);
	free(src);
	return rc;
}

static int foreground(void *state, char **out_json, sw_error **err)
{
	ios_dev *d = state;
	if (!d->wda)
		return no_wda(d, "tell the foreground app", err);
	json_t *v = NULL;
	int rc = sw__wda_call(d->wda, "GET", "/wda/activeAppInfo", false, NULL, 0, &v, err);
	if (rc != SW_OK)
		return rc;
	json_t *o = json_pack("{s:O?,s:n}", "package", json_object_get(v, "bundleId"), "activity");
	json_decref(v);
	*out_json = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* ---- apps and URLs --------------------------------------------------------------------------- */

static int open_url(void *state, const char *url, sw_error **err)
{
	ios_dev *d = state;
	const char *args[] = {"openurl", d->udid, url, NULL};
	return simctl_on(d, args, SW__SIMCTL_QUICK_MS, "DEVICE_NOT_READY",
	                 "Check that an installed app handles the URL's scheme", NULL, err);
}

static int install(void *state, const char *path, sw_error **err)
{
	ios_dev *d = state;
	json_t *app = NULL;
	int rc = sw__ios_app_check(path, &app, err);
	if (rc != SW_OK)
		return rc;
	const char *args[] = {"install", d->udid, json_string_value(json_object_get(app, "path")), NULL};
	rc = simctl_on(d, args, SW__SIMCTL_INSTALL_MS, "INSTALL_FAILED",
	               "Rebuild the .app for the simulator and install it again", NULL, err);
	json_decref(app);
	json_decref(d->apps);
	d->apps = NULL;
	return rc;
}

static int launch(void *state, const char *app_id, sw_error **err)
{
	ios_dev *d = state;
	if (!app_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "launch needs a bundle id");
	const char *args[] = {"launch", d->udid, app_id, NULL};
	sw__proc_result r;
	int rc = sw__simctl(args, SW__SIMCTL_LAUNCH_MS, NULL, NULL, &r, err);
	if (rc != SW_OK)
		return rc;
	if (r.status != 0) {
		bool unknown = (r.err && (strstr(r.err, "unknown to FrontBoard") || strstr(r.err, "not installed")));
		rc = sw__simctl_fail("launch", &r, unknown ? "BUNDLE_ID_NOT_FOUND" : "APP_LAUNCH_FAILED",
		                     unknown ? "Install the app first: qa_ios {action: \"install\", app}" : NULL, err);
	}
	sw__proc_result_clear(&r);
	return rc;
}

static int force_stop(void *state, const char *app_id, sw_error **err)
{
	ios_dev *d = state;
	if (!app_id)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "terminate needs a bundle id");
	const char *args[] = {"terminate", d->udid, app_id, NULL};
	return simctl_on(d, args, SW__SIMCTL_QUICK_MS, "DEVICE_NOT_READY", NULL, "found nothing to terminate", err);
}

/* ---- properties -------------------------------------------------------------------------------- */

static int properties(void *state, char **out_json, sw_error **err)
{
	ios_dev *d = state;
	int w = 0, h = 0;
	int rc = screen_size(d, &w, &h, err);
	if (rc != SW_OK)
		return rc;
	const char *rel = d->runtime && !strncmp(d->runtime, "iOS ", 4) ? d->runtime + 4 : d->runtime;
	json_t *o = json_pack("{s:s,s:s,s:n,s:s?,s:[],s:n,s:n,s:b,s:{s:i,s:i,s:n,s:s}}", "manufacturer", "Apple", "model",
	                      d->name, "sdk", "release", rel, "abis", "locale", "timezone", "emulator", 1, "screen", "width",
	                      w, "height", h, "density", "unit", "points");
	*out_json = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* The installed apps (`simctl listapps`), read once per handle until an install. (transfer none) */
static json_t *apps_of(ios_dev *d, sw_error **err)
{
	if (!d->apps && sw__simctl_listapps(d->udid, &d->apps, err) != SW_OK)
		d->apps = NULL;
	return d->apps;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The user-installed apps' bundle ids (ApplicationType User), sorted: simctl lists the system apps too. */
static int packages(void *state, char **out_json, sw_error **err)
{
	ios_dev *d = state;
	json_decref(d->apps); /* read now, not cached: qa_device_info asks what is installed at this moment */
	d->apps = NULL;
	json_t *apps = apps_of(d, err);
	if (!apps)
		return SW_EDEVICE;
	size_t n = json_object_size(apps), k = 0;
	const char **ids = calloc(n ? n : 1, sizeof(*ids));
	if (!ids)
		return sw__error_nomem(err);
	const char *bid;
	json_t *info;
	json_object_foreach(apps, bid, info)
	{
		const char *type = json_string_value(json_object_get(info, "ApplicationType"));
		if (type && !strcmp(type, "User"))
			ids[k++] = bid;
	}
	qsort(ids, k, sizeof(*ids), cmp_str);
	json_t *a = json_array();
	for (size_t i = 0; a && i < k; i++)
		json_array_append_new(a, json_string(ids[i]));
	free(ids);
	*out_json = a ? sw__json_compact(a) : NULL;
	json_decref(a);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* ---- the device log (`log show`), in the threadtime shape the health check reads ---------------- */

/* Seconds from @since ("MM-DD HH:MM:SS.mmm" on the simulator's clock, which is the host's local time) to now. */
static long seconds_since(const char *since)
{
	int mo, dd, hh, mi, ss;
	if (!since || sscanf(since, "%2d-%2d %2d:%2d:%2d", &mo, &dd, &hh, &mi, &ss) != 5)
		return -1;
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	int year = tm.tm_year;
	tm.tm_mon = mo - 1;
	tm.tm_mday = dd;
	tm.tm_hour = hh;
	tm.tm_min = mi;
	tm.tm_sec = ss;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (t > now + 86400) { /* December's stamp read in January */
		tm.tm_year = year - 1;
		t = mktime(&tm);
	}
	return t == (time_t)-1 ? -1 : (long)(now - t);
}

/* The bundle id whose executable is @proc (the app's process name in the log), or NULL. (transfer none) */
static const char *bundle_of_process(json_t *apps, const char *proc, size_t n)
{
	const char *bid;
	json_t *info;
	json_object_foreach(apps, bid, info)
	{
		const char *exe = json_string_value(json_object_get(info, "CFBundleExecutable"));
		if (exe && strlen(exe) == n && !strncmp(exe, proc, n))
			return bid;
	}
	return NULL;
}

/*
 * One `log show --style compact` line ("YYYY-MM-DD HH:MM:SS.mmm Ty Process[PID:TID] message") as a threadtime
 * line ("MM-DD HH:MM:SS.mmm PID TID L Tag: message"): the tag is the app's bundle id when the process is an
 * installed app's executable, else the process name. A line of another shape continues the previous message
 * and gets its prefix (@prefix keeps it). Returns false for the header and for lines before any message.
 */
static bool log_line(sw_buf *out, const char *l, size_t n, json_t *apps, char prefix[256])
{
	const char *lb = n > 29 ? memchr(l + 27, '[', n - 27) : NULL;
	bool shaped = n > 29 && isdigit((unsigned char)l[0]) && l[4] == '-' && l[10] == ' ' && l[13] == ':' && l[19] == '.' &&
	              l[23] == ' ' && l[26] == ' ' && lb;
	for (size_t i = 0; shaped && i < 23; i++)
		shaped = (unsigned char)l[i] < 0x80; /* the date and time are ASCII: copied below as whole fields */
	const char *close = shaped ? memchr(lb, ']', n - (size_t)(lb - l)) : NULL;
	const char *colon = close ? memchr(lb, ':', (size_t)(close - lb)) : NULL;
	if (!shaped || !close || !colon) {
		if (!prefix[0] || !n)
			return false;
		sw__buf_puts(out, prefix);
		sw__buf_append(out, l, n);
		sw__buf_putc(out, '\n');
		return true;
	}
	char lvl = 'I';
	if (l[24] == 'E')
		lvl = 'E';
	else if (l[24] == 'F')
		lvl = 'F';
	else if (l[24] == 'D' && l[25] == 'b')
		lvl = 'D';
	const char *proc = l + 27;
	size_t pn = (size_t)(lb - proc);
	long pid = strtol(lb + 1, NULL, 10);
	unsigned long tid = strtoul(colon + 1, NULL, 16);
	const char *bid = bundle_of_process(apps, proc, pn);
	char tag[160];
	if (bid)
		snprintf(tag, sizeof(tag), "%s", bid);
	else {
		size_t k = pn < sizeof(tag) - 1 ? pn : sizeof(tag) - 1;
		while (k > 0 && k < pn && ((unsigned char)proc[k] & 0xC0) == 0x80)
			k--; /* a long process name is cut between two characters, never inside one */
		memcpy(tag, proc, k);
		tag[k] = '\0';
		for (char *c = tag; *c; c++)
			if (*c == ':' || (unsigned char)*c < 0x20)
				*c = '_';
	}
	char day[6], hms[13]; /* "MM-DD" and "HH:MM:SS.mmm" of the ASCII date checked above */
	memcpy(day, l + 5, 5);
	day[5] = '\0';
	memcpy(hms, l + 11, 12);
	hms[12] = '\0';
	snprintf(prefix, 256, "%s %s %5ld %5lu %c %s: ", day, hms, pid, tid, lvl, tag);
	const char *msg = close + 1;
	while (msg < l + n && *msg == ' ')
		msg++;
	sw__buf_puts(out, prefix);
	sw__buf_append(out, msg, (size_t)(l + n - msg));
	sw__buf_putc(out, '\n');
	return true;
}

/* `log show --style compact --last` from @since (NULL: ten minutes), as threadtime lines. A show that starts
 * while this handle's `log stream` is live tells the stream what it proved (logstream.c). */
static int log_show(ios_dev *d, const char *since, char **text, size_t *len, sw_error **err)
{
	char live_at[19] = "";
	if (d->ls)
		sw__ios_logstream_mark_live(d->ls, live_at);
	char last[24];
	long secs = seconds_since(since);
	if (secs < 0)
		snprintf(last, sizeof(last), "10m"); /* nothing given: the last ten minutes */
	else
		snprintf(last, sizeof(last), "%lds", secs + 2 > 86400 ? 86400 : secs + 2);
	const char *args[] = {"spawn", d->udid, "log", "show", "--style", "compact", "--last", last, NULL};
	sw__proc_result r;
	int rc = sw__simctl(args, SW__SIMCTL_LOG_MS, NULL, NULL, &r, err);
	if (rc != SW_OK)
		return rc;
	if (r.status != 0) {
		rc = sw__simctl_fail("spawn log show", &r, "DEVICE_NOT_READY", "Check that the simulator is Booted and retry",
		                     err);
		sw__proc_result_clear(&r);
		return rc;
	}
	if (r.truncated) {
		/* log show prints the oldest lines first: a cut would keep the old ones and lose the newest */
		sw__proc_result_clear(&r);
		return sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Check health again: the next look starts later",
		                     "simctl log show --last %s printed more than the runner keeps; the log was not scanned",
		                     last);
	}
	if (d->ls)
		sw__ios_logstream_shown(d->ls, live_at, since, r.out ? r.out : "", r.out_len);
	json_t *apps = apps_of(d, NULL); /* without the list the tags are process names */
	size_t n = 0;
	char *t = sw__ios_log_convert(r.out ? r.out : "", r.out_len, apps, &n);
	sw__proc_result_clear(&r);
	if (!t)
		return sw__error_nomem(err);
	*text = t;
	*len = n;
	return SW_OK;
}

/* The log slot (qa_check_health, the Metro bridge): always a complete `log show`, whatever the stream holds. */
static int log_read(void *state, const char *since, char **text, size_t *len, sw_error **err)
{
	return log_show(state, since, text, len, err);
}

/*
 * The log for the act loop's look after an action: from the handle's `log stream` when it holds everything
 * from @since on, else `log show` (which starts the stream for the next looks). A line the simulator logged
 * an instant before this read may still be on its way through the stream: it is read by the next look or
 * health check, since those read from the newest line already seen.
 */
static int log_recent(ios_dev *d, const char *since, char **text, size_t *len, sw_error **err)
{
	if (d->ls && sw__ios_logstream_ended(d->ls)) {
		sw__ios_logstream_free(d->ls);
		d->ls = NULL;
		d->ls_retry_ms = sw_monotonic_ms() + 30000;
	}
	if (d->ls) {
		char *raw = NULL;
		size_t n = 0;
		int r = sw__ios_logstream_read(d->ls, since, &raw, &n);
		if (r == 1) {
			json_t *apps = apps_of(d, NULL);
			size_t cn = 0;
			char *t = sw__ios_log_convert(raw, n, apps, &cn);
			free(raw);
			if (!t)
				return sw__error_nomem(err);
			*text = t;
			*len = cn;
			return SW_OK;
		}
		if (r < 0) {
			sw__ios_logstream_free(d->ls);
			d->ls = NULL;
			d->ls_retry_ms = sw_monotonic_ms() + 30000;
		}
	}
	if (!d->ls && since && sw_monotonic_ms() >= d->ls_retry_ms) {
		/* a stream that cannot start (or is not live within 3 s) is no error: `log show` answers, and the
		 * stream is tried again later */
		if (sw__ios_logstream_start(d->udid, &d->ls, NULL) == SW_OK && !sw__ios_logstream_wait_live(d->ls, 3000) &&
		    sw__ios_logstream_ended(d->ls)) {
			sw__ios_logstream_free(d->ls);
			d->ls = NULL;
		}
		if (!d->ls)
			d->ls_retry_ms = sw_monotonic_ms() + 30000;
	}
	return log_show(d, since, text, len, err);
}

/* One look for the act loop: the UI tree (WDA) and, when asked, the log from the stream (log_recent). */
static int observe(void *state, const sw_observe_request *req, sw_observation *out, sw_error **err)
{
	ios_dev *d = state;
	sw_error *e = NULL;
	int rc = dump_ui(d, &out->xml, &out->xml_len, &e);
	if (rc < 0) {
		if (!e || strcmp(sw_error_failure_code(e), "SNAPSHOT_FAILED") != 0) {
			sw__error_propagate(err, e);
			return rc;
		}
		out->xml = NULL;
		out->xml_len = 0;
		out->dump_error = sw__strdup(sw_error_message(e));
		sw_error_free(e);
	}
	if (req->want_log && log_recent(d, req->log_since, &out->log, &out->log_len, NULL) < 0) {
		out->log = NULL;
		out->log_len = 0;
	}
	return SW_OK;
}

char *sw__ios_log_convert(const char *text, size_t len, json_t *apps, size_t *out_len)
{
	sw_buf b = SW_BUF_INIT;
	char prefix[256] = "";
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t step = nl ? n + 1 : n;
		if (n && p[n - 1] == '\r')
			n--;
		log_line(&b, p, n, apps, prefix);
		p += step;
	}
	return sw__buf_steal(&b, out_len);
}

/* The simulator's log prints the host's local time: the offset from UTC now. */
static int clock_offset(void *state, long *offset_s, sw_error **err)
{
	(void)state;
	(void)err;
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	*offset_s = tm.tm_gmtoff;
	return SW_OK;
}

/* ---- recording ---------------------------------------------------------------------------------- */

struct ios_rec {
	pid_t pid;
	bool exited;
	char *dir, *file, *log;
};

static void rec_free(struct ios_rec *r)
{
	if (!r)
		return;
	if (r->file)
		unlink(r->file);
	if (r->log)
		unlink(r->log);
	if (r->dir)
		rmdir(r->dir);
	free(r->file);
	free(r->log);
	free(r->dir);
	free(r);
}

static int record_start(void *state, int time_limit_s, void **rec_out, long *pid_out, sw_error **err)
{
	(void)time_limit_s; /* recordVideo has no time limit: the session's recorder stops it */
	ios_dev *d = state;
	struct ios_rec *r = calloc(1, sizeof(*r));
	if (!r)
		return sw__error_nomem(err);
	r->dir = temp_dir("rec", err);
	if (!r->dir) {
		rec_free(r);
		return SW_EIO;
	}
	r->file = sw__path_join(r->dir, "recording.mp4");
	r->log = sw__path_join(r->dir, "recordVideo.log");
	char *xcrun = sw__ios_xcrun(err);
	if (!r->file || !r->log || !xcrun) {
		free(xcrun);
		rec_free(r);
		return err && *err ? SW_EUNSUPPORTED : sw__error_nomem(err);
	}
	sw__argv a = SW_ARGV_INIT;
	const char *args[] = {"simctl", "io", d->udid, "recordVideo", "--codec", "h264", "--force", r->file, NULL};
	sw__argv_add(&a, xcrun);
	sw__argv_addv(&a, args);
	const char *const *argv = sw__argv_finish(&a, err);
	int fd = open(r->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int rc = fd < 0 ? sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "Could not create %s: %s", r->log, strerror(errno))
	                : (argv ? sw__proc_spawn(argv, NULL, fd, &r->pid, err) : SW_ENOMEM);
	if (fd >= 0)
		close(fd);
	sw__argv_free(&a);
	free(xcrun);
	if (rc < 0) {
		rec_free(r);
		return rc;
	}
	/* a SIGINT before recordVideo is ready kills it without a file: wait (at most 5 s) for its
	 * "Recording started", and fail with what it said when it ends first */
	for (int i = 0; i < 100; i++) {
		char *text = NULL;
		size_t n = 0;
		bool started = sw__read_file(r->log, 1 << 16, &text, &n, NULL) == SW_OK && text && strstr(text, "Recording started");
		if (!started && sw__proc_ended(r->pid, NULL)) {
			r->exited = true;
			char *said = sw__cap(text ? text : "", 300);
			rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Check that the simulator is Booted and retry",
			                   "simctl io recordVideo ended at once: %s", said && *said ? said : "no output");
			free(said);
			free(text);
			rec_free(r);
			return rc;
		}
		free(text);
		if (started)
			break;
		sw__sleep_ms(50);
	}
	*rec_out = r;
	*pid_out = (long)r->pid;
	return SW_OK;
}

static int record_poll(void *rec)
{
	struct ios_rec *r = rec;
	if (!r->exited && sw__proc_ended(r->pid, NULL))
		r->exited = true;
	return r->exited ? 0 : 1;
}

static int record_stop(void *rec, const char *local_path, sw_error **err)
{
	struct ios_rec *r = rec;
	int rc = SW_OK;
	bool killed = false;
	if (record_poll(r)) {
		/* SIGINT is what makes recordVideo finish the MP4; after 10 s it gets SIGKILL */
		int st = sw__proc_stop(r->pid, SIGINT, 10000);
		killed = st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
		r->exited = true;
	}
	if (local_path) {
		char *data = NULL;
		size_t n = 0;
		if (killed)
			rc = sw__error_set(err, SW_EIO, "UNKNOWN", "Stop the recording again; if recordVideo keeps ignoring SIGINT, "
			                                           "restart the simulator",
			                   "simctl recordVideo ignored SIGINT for 10 s and was killed: its MP4 is incomplete and was "
			                   "not kept");
		else if ((rc = sw__read_file(r->file, (size_t)2 << 30, &data, &n, err)) == SW_OK) {
			if (n < 8 || memcmp(data + 4, "ftyp", 4) != 0)
				rc = sw__error_set(err, SW_EIO, "UNKNOWN", "Record again",
				                   "simctl recordVideo wrote %zu bytes that are not an MP4", n);
			else
				rc = sw_file_write_atomic(local_path, data, n, 0, err);
		}
		free(data);
	}
	rec_free(r);
	return rc;
}

/* ---- the table ------------------------------------------------------------------------------------ */

static const struct sw_driver_ops ios_ops = {
    .version = SW_DRIVER_OPS_VERSION,
    .name = "ios",
    .caps = SW_DRIVER_CAP_DUMP | SW_DRIVER_CAP_SCREENCAP | SW_DRIVER_CAP_INPUT | SW_DRIVER_CAP_OPEN_URL |
            SW_DRIVER_CAP_APP | SW_DRIVER_CAP_FOREGROUND | SW_DRIVER_CAP_PROPS | SW_DRIVER_CAP_RECORD |
            SW_DRIVER_CAP_LOGS | SW_DRIVER_CAP_OBSERVE,
    .probe = probe,
    .release = release,
    .describe = describe,
    .dump_ui = dump_ui,
    .screencap = screencap,
    .screen_size = screen_size,
    .tap = tap,
    .type_text = type_text,
    .swipe = swipe,
    .press_key = press_key,
    .open_url = open_url,
    .foreground = foreground,
    .install = install,
    .launch = launch,
    .force_stop = force_stop,
    .clear_text = clear_text,
    .properties = properties,
    .packages = packages,
    .record_start = record_start,
    .record_poll = record_poll,
    .record_stop = record_stop,
    .log_read = log_read,
    .observe = observe,
    .clock_offset = clock_offset,
};

const struct sw_driver_ops *sw__driver_ios(void)
{
	return &ios_ops;
}

SW_API const struct sw_driver_ops *sw_driver_ios(void)
{
	return &ios_ops;
}

/* The WDA warnings (recreated sessions) of a bound device since the last call, moved out. (transfer full) */
json_t *sw__ios_take_warnings(sw_device *dev)
{
	if (!dev || sw_device_ops(dev) != &ios_ops)
		return NULL;
	ios_dev *d = sw__device_state(dev);
	if (!d->wda || !json_array_size(d->wda->warnings))
		return NULL;
	json_t *w = d->wda->warnings;
	d->wda->warnings = json_array();
	return w;
}

/* ---- what qa_act asks the iOS driver on the side ----------------------------------------------- */

/* How the last press of "back" went on a bound iOS device: "nav_button", "edge_swipe", or NULL (taken once). */
const char *sw__ios_take_back_via(sw_device *dev)
{
	if (!dev || sw_device_ops(dev) != &ios_ops)
		return NULL;
	ios_dev *d = sw__device_state(dev);
	const char *v = d->back_via;
	d->back_via = NULL;
	return v;
}

static const char *const SELECTOR_STRATEGIES[] = {"accessibility id", "name", "predicate string", "class chain", NULL};

/* A WDA element reference's id ("ELEMENT" or the W3C key). (transfer none) */
static const char *element_id(json_t *v)
{
	const char *id = json_string_value(json_object_get(v, "ELEMENT"));
	return id ? id : json_string_value(json_object_get(v, "element-6066-11e4-a52e-4f735466cecf"));
}

int sw__ios_selector_bounds(sw_device *dev, json_t *sel, int b[4], bool *handled, sw_error **err)
{
	*handled = false;
	if (!dev || sw_device_ops(dev) != &ios_ops)
		return SW_OK;
	ios_dev *d = sw__device_state(dev);
	if (!d->wda)
		return SW_OK; /* visual-only: the snapshot path answers that the tree cannot be read */
	*handled = true;
	const char *using = json_string_value(json_object_get(sel, "using"));
	const char *value = json_string_value(json_object_get(sel, "value"));
	bool known = false;
	for (int i = 0; using && SELECTOR_STRATEGIES[i]; i++)
		known = known || !strcmp(using, SELECTOR_STRATEGIES[i]);
	if (!known || !value || !value[0] || strlen(value) > 4096) {
		char *shown = sw__cap(using ? using : "(none)", 60);
		int rc = sw__error_set(err, SW_EINVAL, "INVALID_SELECTOR",
		                       "Give selector {using: \"accessibility id\" | \"name\" | \"predicate string\" | \"class "
		                       "chain\", value}",
		                       !known ? "The selector strategy \"%s\" is not one WebDriverAgent is asked with"
		                              : "The selector's value must be a non-empty string of at most 4096 bytes (%s)",
		                       shown ? shown : "?");
		free(shown);
		return rc;
	}
	json_t *body = json_pack("{s:s,s:s}", "using", using, "value", value);
	json_t *v = NULL;
	int rc = body ? sw__wda_call(d->wda, "POST", "/element", true, body, 0, &v, err) : sw__error_nomem(err);
	json_decref(body);
	if (rc != SW_OK)
		return rc;
	const char *id = element_id(v);
	char *path = id ? sw__asprintf("/element/%s/rect", id) : NULL;
	json_decref(v);
	v = NULL;
	if (!path)
		return id ? sw__error_nomem(err)
		          : sw__error_set(err, SW_EDEVICE, "WDA_UNREACHABLE", "Restart WebDriverAgent",
		                          "WebDriverAgent answered POST /element without an element id");
	rc = sw__wda_call(d->wda, "GET", path, true, NULL, 0, &v, err);
	free(path);
	if (rc != SW_OK)
		return rc;
	json_t *jx = json_object_get(v, "x"), *jy = json_object_get(v, "y"), *jw = json_object_get(v, "width"),
	       *jh = json_object_get(v, "height");
	double x = json_number_value(jx), y = json_number_value(jy), w = json_number_value(jw), h = json_number_value(jh);
	bool ok = json_is_number(jx) && json_is_number(jy) && json_is_number(jw) && json_is_number(jh) && isfinite(x) &&
	          isfinite(y) && isfinite(w) && isfinite(h) && w > 0 && h > 0 && fabs(x) < 1e6 && fabs(y) < 1e6 &&
	          w < 1e6 && h < 1e6;
	json_decref(v);
	if (!ok)
		return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND", "Take a new qa_snapshot and pick what is on screen",
		                     "WebDriverAgent found the element (%s) but it has no usable frame", using);
	b[0] = (int)lround(x);
	b[1] = (int)lround(y);
	b[2] = (int)lround(x + w);
	b[3] = (int)lround(y + h);
	return SW_OK;
}

bool sw__ios_visual_only(sw_device *dev)
{
	if (!dev || sw_device_ops(dev) != &ios_ops)
		return false;
	const ios_dev *d = sw__device_state(dev);
	return d->wda == NULL;
}
