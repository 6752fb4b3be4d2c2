/* actions.c: qa_act and qa_snapshot on a device: target resolution, obstruction rules, typing, scrolling, settling. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sw-internal.h"
#include "../snapshot/snapshot-internal.h"
#include "actions-internal.h"
#include <swipium/actions.h>
#include <swipium/health.h>
#include "../health/health-internal.h"
#include "../drivers/ios/ios-internal.h"

#define SETTLE_MAX_LOOKS 40 /* a safety net: the deadline ends a screen that never settles */
#define SETTLE_DEFAULT_MS 5000
#define WAIT_DEFAULT_MS 8000
#define TIMEOUT_CLAMP_MS SW_LONG_POLL_MAX_MS
#define KEYBOARD_MAX_SHARE 0.55

struct sw_drive {
	sw_device *dev;
	sw_snapshot_tracker *t;
	sw_drive_hooks hooks;
	int (*abort_fn)(void *userdata);
	void *abort_ud;
	char *last_xml;
	size_t last_len;
	int sw, sh;          /* the screen as the last dump laid it out (turned with the rotation) */
	int nat_w, nat_h;    /* the natural (rotation 0) size, learnt from a dump or, failing that, `wm size` */
	json_t *keyboard;    /* {shown, frame} */
	sw_ctx *ctx;         /* borrowed; with session: the health check after every act */
	sw_session *session; /* borrowed */
	sw_device *owned_dev; /* the device sw_drive_bind() opened, freed with the drive */
	/* the act loop */
	int kb_frame[4];      /* the keyboard's frame, read once per rotation (kb_frame_rot) */
	int kb_frame_rot;     /* -1: not read */
	char *obs_log;        /* the log lines the last settle read, for the health check after the act */
	char obs_log_since[40];
	char *obs_focus;      /* "package/Activity" the last settle saw (gfxinfo), or NULL */
	bool no_focus;        /* a look gave no focus (the driver reports none, as on iOS): do not look for it again */
	bool last_settled;    /* the current snapshot is the one an act settled on (nothing acted since) */
	bool trust_settled;   /* back-to-back steps (a flow): a selector resolves on that snapshot, no new dump */
	json_t *acted;        /* what the last act acted on, for the session's recording (sw__drive_take_acted) */
};

/* A copy of what an action needs from an element, valid across snapshots. */
typedef struct target_el {
	unsigned ref;
	int b[4];
	bool secure, focused, edit;
	size_t text_chars;
	char *cls, *id, *label, *text, *hint, *desc;
} target_el;

static void target_clear(target_el *t)
{
	free(t->cls);
	free(t->id);
	free(t->label);
	free(t->text);
	free(t->hint);
	free(t->desc);
	memset(t, 0, sizeof(*t));
}

static void target_copy(target_el *t, const sw__element *e)
{
	memset(t, 0, sizeof(*t));
	t->ref = e->ref;
	memcpy(t->b, e->bounds, sizeof(t->b));
	t->secure = e->secure;
	t->focused = e->focused;
	t->edit = e->edit;
	t->text_chars = e->raw_text_chars;
	t->cls = sw__strdup(e->cls);
	t->id = sw__strdup(e->id);
	t->label = sw__strdup(e->label);
	t->text = sw__strdup(e->text);
	t->hint = sw__strdup(e->hint);
	t->desc = sw__strdup(e->desc);
}

static int cx(const int b[4])
{
	return (b[0] + b[2]) / 2;
}

static int cy(const int b[4])
{
	return (b[1] + b[3]) / 2;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* ---- errors ------------------------------------------------------------- */

static void mark_state(sw_error **err, bool changed_state)
{
	if (!err || !*err)
		return;
	json_t *d = sw__error_details(*err);
	if (d)
		json_object_set_new(d, "changedState", json_boolean(changed_state));
	else
		sw__error_take_details(*err, json_pack("{sb}", "changedState", changed_state));
}

/*
 * An input command that failed because the device or adb was not there never reached the screen: the
 * action changed nothing (the loss is noticed before anything is tapped). Returns @rc.
 */
static int input_failed(sw_error **err, int rc, bool changed_before)
{
	const char *fc = err && *err ? sw_error_failure_code(*err) : NULL;
	if (fc && (!strcmp(fc, "NO_DEVICE") || !strcmp(fc, "ADB_NOT_FOUND")))
		mark_state(err, changed_before);
	return rc;
}

SW_PRINTF(6, 7)
static int act_fail(sw_error **err, bool changed_state, int code, const char *failure, const char *hint,
                    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = sw__error_setv(err, code, failure, hint, fmt, ap);
	va_end(ap);
	mark_state(err, changed_state);
	return rc;
}

static bool cancelled(const sw_drive *d)
{
	return d->abort_fn && d->abort_fn(d->abort_ud) != 0;
}

static int cancel_fail(sw_error **err, bool changed_state)
{
	return act_fail(err, changed_state, SW_ECANCELLED, "CANCELLED", NULL, "The call was cancelled");
}

static bool frame_of(json_t *kb, int f[4]);

/* ---- lifecycle ---------------------------------------------------------- */

int sw_drive_new(sw_device *dev, sw_drive **out, sw_error **err)
{
	if (!dev || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "device and out must not be NULL");
	sw_drive *d = calloc(1, sizeof(*d));
	if (!d)
		return sw__error_nomem(err);
	int rc = sw_snapshot_tracker_new(&d->t, err);
	if (rc < 0) {
		free(d);
		return rc;
	}
	d->dev = dev;
	d->kb_frame_rot = -1;
	*out = d;
	return SW_OK;
}

void sw_drive_free(sw_drive *d)
{
	if (!d)
		return;
	sw_snapshot_tracker_free(d->t);
	free(d->last_xml);
	free(d->obs_log);
	free(d->obs_focus);
	json_decref(d->keyboard);
	json_decref(d->acted);
	sw_device_free(d->owned_dev);
	free(d);
}

void sw_drive_set_hooks(sw_drive *d, const sw_drive_hooks *hooks)
{
	if (!d)
		return;
	if (hooks)
		d->hooks = *hooks;
	else
		memset(&d->hooks, 0, sizeof(d->hooks));
	sw_snapshot_tracker_set_redactor(d->t, d->hooks.redact, d->hooks.userdata);
}

void sw_drive_set_abort(sw_drive *d, int (*abort_fn)(void *userdata), void *userdata)
{
	if (!d)
		return;
	d->abort_fn = abort_fn;
	d->abort_ud = userdata;
}

void sw_drive_set_session(sw_drive *d, sw_ctx *ctx, sw_session *s)
{
	if (!d)
		return;
	d->ctx = ctx;
	d->session = s;
}

void sw__drive_trust_settled(sw_drive *d, bool on)
{
	if (d)
		d->trust_settled = on;
}

sw_snapshot_tracker *sw_drive_tracker(sw_drive *d)
{
	return d ? d->t : NULL;
}

/* ---- observing ---------------------------------------------------------- */

/*
 * The screen geometry when no dump has told it yet (or the dumps were dialogs that do not cover the screen):
 * the device's natural size (`wm size` on Android), once per drive.
 */
static int ensure_geometry(sw_drive *d, sw_error **err)
{
	if (d->sw > 0 && d->sh > 0)
		return SW_OK;
	int w = 0, h = 0;
	int rc = sw_device_screen_size(d->dev, &w, &h, err);
	if (rc < 0)
		return rc;
	d->nat_w = d->sw = w;
	d->nat_h = d->sh = h;
	return SW_OK;
}

/* Takes the geometry of the snapshot just parsed: each dump carries its own size and rotation. */
static void adopt_geometry(sw_drive *d, json_t *res)
{
	json_t *sc = json_object_get(res, "screen");
	const char *src = json_string_value(json_object_get(sc, "source"));
	int w = (int)json_integer_value(json_object_get(sc, "width"));
	int h = (int)json_integer_value(json_object_get(sc, "height"));
	int rot = (int)json_integer_value(json_object_get(sc, "rotation"));
	if (!src || w <= 0 || h <= 0 || !strcmp(src, "unknown"))
		return;
	d->sw = w;
	d->sh = h;
	if (!strcmp(src, "dump") || !strcmp(src, "dump+device")) {
		d->nat_w = (rot == 1 || rot == 3) ? h : w;
		d->nat_h = (rot == 1 || rot == 3) ? w : h;
	}
}

static int refresh_keyboard(sw_drive *d, sw_error **err)
{
	char *kb = NULL;
	int rc = sw_device_keyboard(d->dev, &kb, err);
	if (rc == SW_EUNSUPPORTED) {
		sw_error_free(err ? *err : NULL);
		if (err)
			*err = NULL;
		kb = sw__strdup("{\"shown\":false,\"frame\":null}");
		rc = SW_OK;
	}
	if (rc < 0)
		return rc;
	json_decref(d->keyboard);
	d->keyboard = kb ? json_loads(kb, 0, NULL) : NULL;
	free(kb);
	return SW_OK;
}

/* Feeds @xml to the tracker with the keyboard and screen; @extra (nullable) adds options. */
/* Feeds the dump *@xml (@len bytes, malloc'd) to the tracker. On success the drive keeps it as the last dump and
 * *@xml is NULL (no copy of a dump that can be megabytes); on failure it stays the caller's. */
static int observe(sw_drive *d, char **xml, size_t len, json_t *extra, json_t **res, sw_error **err)
{
	json_t *opts = extra ? json_deep_copy(extra) : json_object();
	if (!opts)
		return sw__error_nomem(err);
	if (d->keyboard)
		json_object_set(opts, "keyboard", d->keyboard);
	if (d->nat_w > 0)
		json_object_set_new(opts, "screen", json_pack("{sisi}", "width", d->nat_w, "height", d->nat_h));
	char *o = sw__json_compact(opts);
	json_decref(opts);
	if (!o)
		return sw__error_nomem(err);
	char *out = NULL;
	int rc = sw_snapshot_take_xml(d->t, *xml, len, o, &out, err);
	free(o);
	if (rc < 0)
		return rc;
	*res = json_loads(out, 0, NULL);
	free(out);
	if (!*res)
		return sw__error_nomem(err);
	adopt_geometry(d, *res);
	free(d->last_xml);
	d->last_xml = *xml;
	d->last_len = len;
	*xml = NULL;
	return SW_OK;
}

/* The package of a dump's first window (the active app), or "" (transfer full). */
static char *dump_package(const char *xml)
{
	const char *p = xml ? strstr(xml, "<node") : NULL;
	p = p ? strstr(p, " package=\"") : NULL;
	if (!p)
		return sw__strdup("");
	p += 10;
	const char *e = strchr(p, '"');
	return e ? sw__strndup(p, (size_t)(e - p)) : sw__strdup("");
}

/* The keyboard state of an observation: shown from the look itself, its frame read once per rotation. */
static void keyboard_from(sw_drive *d, int shown)
{
	if (shown < 0) {
		/* the driver could not tell: ask the keyboard slot, as before */
		sw_error *e = NULL;
		if (refresh_keyboard(d, &e) < 0)
			sw_error_free(e);
		return;
	}
	int rot = sw__snapshot_current(d->t) ? sw__snapshot_current(d->t)->rotation : 0;
	json_t *frame = json_null();
	if (shown && d->kb_frame_rot != rot) {
		char *kb = NULL;
		if (sw_device_keyboard(d->dev, &kb, NULL) == SW_OK) {
			json_t *k = json_loads(kb, 0, NULL);
			int f[4];
			if (frame_of(k, f)) {
				memcpy(d->kb_frame, f, sizeof(f));
				d->kb_frame_rot = rot;
			}
			json_decref(k);
		}
		sw_free(kb);
	}
	if (shown && d->kb_frame_rot == rot)
		frame = json_pack("[iiii]", d->kb_frame[0], d->kb_frame[1], d->kb_frame[2], d->kb_frame[3]);
	json_decref(d->keyboard);
	d->keyboard = json_pack("{sbso}", "shown", shown != 0, "frame", frame ? frame : json_null());
}

/*
 * One look at the screen in one device round trip: the hierarchy and the keyboard, plus the frame counter of
 * @frames_app around the dump and the log from @log_since when asked. A failed dump counts towards
 * visual-only mode (SNAPSHOT_FAILED); device failures pass through.
 */
static int look(sw_drive *d, const char *frames_app, const char *log_since, sw_observation *o, sw_error **err)
{
	sw_observe_request q = {.version = SW_OBSERVE_REQUEST_VERSION,
	                        .frames_app = frames_app && frames_app[0] ? frames_app : NULL,
	                        .want_keyboard = 1,
	                        .want_log = log_since != NULL,
	                        .log_since = log_since};
	int rc = sw_device_observe(d->dev, &q, o, err);
	if (rc < 0)
		return rc;
	if (!o->xml) {
		rc = sw_snapshot_record_failure(d->t, o->dump_error ? o->dump_error : "the dump failed", err);
		sw_observation_clear(o);
		return rc < 0 ? rc : sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", NULL, "the dump failed");
	}
	keyboard_from(d, o->keyboard_shown);
	return SW_OK;
}

static int snapshot_now(sw_drive *d, json_t *extra, json_t **res, sw_error **err)
{
	sw_observation o;
	int rc = look(d, NULL, NULL, &o, err);
	if (rc < 0)
		return rc;
	rc = observe(d, &o.xml, o.xml_len, extra, res, err);
	sw_observation_clear(&o);
	d->last_settled = false;
	return rc;
}

const sw__opt sw__drive_snapshot_opts[] = {
    {"filter", SW__OPT_STRING, false}, {"diff", SW__OPT_BOOL, false}, {"verbose", SW__OPT_BOOL, false}, {NULL}};

int sw__drive_snapshot(sw_drive *d, const json_t *opts, json_t **res, sw_error **err)
{
	if (!d || !res)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "drive and out_json must not be NULL");
	int rc = sw__options_check(opts, sw__drive_snapshot_opts, "snapshot options", err);
	if (rc < 0)
		return rc;
	*res = NULL;
	if (d->trust_settled && d->last_settled && d->last_xml) {
		/* back-to-back steps: the screen is the one the previous act settled on; read it again, no new dump */
		char *xml = sw__strndup(d->last_xml, d->last_len);
		if (!xml)
			return sw__error_nomem(err);
		rc = observe(d, &xml, d->last_len, (json_t *)opts, res, err);
		free(xml);
		return rc;
	}
	return snapshot_now(d, (json_t *)opts, res, err);
}

/*
 * After an action: looks until the screen has settled, then feeds the last look to the tracker with a diff
 * against the pre-action snapshot. One look is one device round trip (hierarchy, keyboard, and the frame
 * counter of the app around the dump); the screen has settled when the app drew no frame while its
 * hierarchy was read, or when two looks in a row give the same hierarchy. A screen that keeps changing
 * gives up at the deadline: *settled false, *signal "deadline". The first look also reads the device log for
 * the health check (@log_since, nullable).
 */
static int settle(sw_drive *d, int timeout_ms, bool verbose, const char *log_since, json_t **res, bool *settled,
                  const char **signal, sw_error **err)
{
	int64_t deadline = sw_monotonic_ms() + timeout_ms;
	sw_observation cur = {0}, prev = {0};
	char *app = NULL;
	int rc = SW_OK;
	*settled = false;
	*signal = "deadline";
	const sw__screen *before = sw__snapshot_current(d->t);
	app = sw__strdup(before && before->package ? before->package : "");
	free(d->obs_log);
	d->obs_log = NULL;
	d->obs_log_since[0] = '\0';
	free(d->obs_focus);
	d->obs_focus = NULL;
	for (int i = 0; i < SETTLE_MAX_LOOKS; i++) {
		if (cancelled(d)) {
			rc = cancel_fail(err, true);
			goto out;
		}
		sw_observation_clear(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
		rc = look(d, app, i == 0 ? log_since : NULL, &cur, err);
		if (rc < 0)
			goto out;
		if (i == 0 && log_since && cur.log) {
			d->obs_log = cur.log;
			cur.log = NULL;
			snprintf(d->obs_log_since, sizeof(d->obs_log_since), "%s", log_since);
		}
		char *pkg = dump_package(cur.xml);
		bool same_app = pkg && app && app[0] && !strcmp(pkg, app);
		if (cur.focus) {
			free(d->obs_focus);
			d->obs_focus = sw__strdup(cur.focus);
		}
		/* the signal: the app drew nothing while its hierarchy was read */
		if (same_app && cur.frames_before >= 0 && cur.frames_after == cur.frames_before) {
			*settled = true;
			*signal = "frames";
		} else if (prev.xml && prev.xml_len == cur.xml_len && !memcmp(prev.xml, cur.xml, cur.xml_len)) {
			*settled = true;
			*signal = "identical dumps";
		}
		if (!same_app && pkg) {
			/* another app came to the front: read its frame counter next time */
			free(app);
			app = pkg;
			pkg = NULL;
		}
		free(pkg);
		if (*settled || sw_monotonic_ms() >= deadline)
			break;
		if (i > 0)
			sleep_ms(150);
	}
	json_t *extra = json_pack("{sbsb}", "diff", true, "verbose", verbose);
	rc = observe(d, &cur.xml, cur.xml_len, extra, res, err);
	json_decref(extra);
	d->last_settled = rc == SW_OK && *settled;
out:
	sw_observation_clear(&prev);
	sw_observation_clear(&cur);
	free(app);
	if (rc < 0)
		mark_state(err, true);
	return rc;
}

/* ---- helpers ------------------------------------------------------------ */

static bool secret_name(const char *s)
{
	if (!s || !s[0])
		return false;
	static const char *const subs[] = {"password",    "passcode",      "passwd",        "card number", "cardnumber",
	                                   "card_number", "security code", "security_code", "secret",      "token"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(subs); i++)
		if (strcasestr(s, subs[i]))
			return true;
	static const char *const words[] = {"pin", "otp", "cvv", "cvc", "pwd", "pw"};
	const char *p = s;
	while (*p) {
		while (*p && !isalnum((unsigned char)*p))
			p++;
		const char *w = p;
		while (isalnum((unsigned char)*p))
			p++;
		size_t n = (size_t)(p - w);
		for (size_t i = 0; n && i < SW_ARRAY_SIZE(words); i++)
			if (strlen(words[i]) == n && !strncasecmp(w, words[i], n))
				return true;
	}
	return false;
}

static bool target_is_secret(const target_el *t)
{
	const char *id = t->id ? strrchr(t->id, '/') : NULL;
	return t->secure || secret_name(t->label) || secret_name(t->hint) || secret_name(t->desc) ||
	       secret_name(id ? id + 1 : t->id);
}

/* True when @s holds @word as a whole word (letters and digits around it do not count as a match). */
static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = s ? strcasestr(s, word) : NULL; p; p = strcasestr(p + 1, word)) {
		bool left = p == s || !isalnum((unsigned char)p[-1]);
		bool right = !isalnum((unsigned char)p[n]);
		if (left && right)
			return true;
	}
	return false;
}

/* The kind of secret a field holds, from its names: what the generated placeholder is called (TOOLS.md §7.4). */
static const char *secret_kind_of(const char *const names[], size_t n, bool secure)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = names[i];
		if (!s || !s[0])
			continue;
		if (has_word(s, "otp") || strcasestr(s, "one-time") || strcasestr(s, "one time") ||
		    strcasestr(s, "verification") || has_word(s, "2fa") || has_word(s, "mfa"))
			return "otp";
		if (has_word(s, "pin") || strcasestr(s, "pincode") || strcasestr(s, "pin_code"))
			return "pin";
		if (strcasestr(s, "token"))
			return "token";
		if (strcasestr(s, "password") || strcasestr(s, "passcode") || strcasestr(s, "passwd") ||
		    has_word(s, "pwd") || has_word(s, "pw"))
			return "password";
	}
	return secure ? "password" : "secret";
}

/*
 * What an act touched, for the recording (TOOLS.md §7.4): the element's resource-id, accessibility id
 * (content-desc), text, label, hint, class and bounds, the screen it was on, and whether the value typed
 * was a secret and of which kind. A secure field's text (bullets) is never copied.
 */
static json_t *acted_json(const target_el *t, const char *screen, bool secret, const char *const names[],
                          size_t n_names)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	if (t && (t->id || t->desc || t->text || t->label || t->b[2] > t->b[0])) {
		json_t *el = json_object();
		const char *short_id = t->id ? strrchr(t->id, '/') : NULL;
		if (t->id && t->id[0]) {
			json_object_set_new(el, "resourceId", json_string(t->id));
			json_object_set_new(el, "id", json_string(short_id ? short_id + 1 : t->id));
		}
		if (t->desc && t->desc[0])
			json_object_set_new(el, "accessibilityId", json_string(t->desc));
		if (t->text && t->text[0] && !t->secure)
			json_object_set_new(el, "text", json_string(t->text));
		if (t->label && t->label[0])
			json_object_set_new(el, "label", json_string(t->label));
		if (t->hint && t->hint[0])
			json_object_set_new(el, "hint", json_string(t->hint));
		if (t->cls && t->cls[0])
			json_object_set_new(el, "class", json_string(t->cls));
		if (t->secure)
			json_object_set_new(el, "secure", json_true());
		if (t->edit)
			json_object_set_new(el, "editable", json_true());
		json_object_set_new(el, "bounds", json_pack("[iiii]", t->b[0], t->b[1], t->b[2], t->b[3]));
		json_object_set_new(o, "element", el);
	}
	if (screen && screen[0])
		json_object_set_new(o, "screen", json_string(screen));
	if (secret) {
		json_object_set_new(o, "secret", json_true());
		json_object_set_new(o, "secretKind", json_string(secret_kind_of(names, n_names, t && t->secure)));
	}
	return o;
}

/* The screen an act starts on: the focused activity's short name, else the dump's package. (transfer full) */
static char *screen_name(const sw_drive *d)
{
	const char *slash = d->obs_focus ? strchr(d->obs_focus, '/') : NULL;
	if (slash && slash[1]) {
		const char *dot = strrchr(slash + 1, '.');
		return sw__strdup(dot && dot[1] ? dot + 1 : slash + 1);
	}
	const sw__screen *scr = sw__snapshot_current(d->t);
	if (scr && scr->package && scr->package[0])
		return sw__strdup(scr->package);
	return NULL;
}

json_t *sw__drive_take_acted(sw_drive *d)
{
	if (!d)
		return NULL;
	json_t *a = d->acted;
	d->acted = NULL;
	return a;
}

/* Replaces ${SWIPIUM_*} placeholders: session inputs first, then the environment. */
static int resolve_placeholders(sw_drive *d, const char *in, char **out, json_t *names, bool *secret, sw_error **err)
{
	sw_buf b = SW_BUF_INIT;
	const char *p = in;
	while (*p) {
		const char *start = strstr(p, "${");
		if (!start) {
			sw__buf_puts(&b, p);
			break;
		}
		const char *close = strchr(start + 2, '}');
		if (!close) {
			sw__buf_puts(&b, p);
			break;
		}
		sw__buf_append(&b, p, (size_t)(start - p));
		char *name = sw__strndup(start + 2, (size_t)(close - start - 2));
		if (!name) {
			sw__buf_free(&b);
			return sw__error_nomem(err);
		}
		bool valid = sw__str_has_prefix(name, "SWIPIUM_") && name[8];
		for (const char *c = name; valid && *c; c++)
			if (!(isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_'))
				valid = false;
		if (!valid) {
			/* not a placeholder we resolve: typed literally */
			sw__buf_append(&b, start, (size_t)(close - start + 1));
			free(name);
			p = close + 1;
			continue;
		}
		char *val = d->hooks.lookup_input ? d->hooks.lookup_input(name, d->hooks.userdata) : NULL;
		if (!val && getenv(name))
			val = sw__strdup(getenv(name));
		if (!val) {
			int rc = act_fail(err, false, SW_ENOTFOUND, "MISSING_TEST_DATA",
			                  "Set the variable in the server's environment or pass it as a session input",
			                  "${%s} is not set, so there is nothing to type", name);
			free(name);
			sw__buf_free(&b);
			return rc;
		}
		json_array_append_new(names, json_string(name));
		if (secret_name(name))
			*secret = true;
		sw__buf_puts(&b, val);
		free(val);
		free(name);
		p = close + 1;
	}
	*out = sw__buf_steal(&b, NULL);
	return *out ? SW_OK : sw__error_nomem(err);
}

static bool frame_of(json_t *kb, int f[4])
{
	json_t *fr = json_object_get(kb, "frame");
	if (json_array_size(fr) != 4)
		return false;
	for (int i = 0; i < 4; i++)
		f[i] = (int)json_integer_value(json_array_get(fr, (size_t)i));
	return f[2] > f[0] && f[3] > f[1];
}

static bool keyboard_shown(const sw_drive *d)
{
	return json_is_true(json_object_get(d->keyboard, "shown"));
}

static bool point_in(const int f[4], int x, int y)
{
	return x >= f[0] && x < f[2] && y >= f[1] && y < f[3];
}

/* The element of the current snapshot that is the same control as @t, even if it moved. */
static const sw__element *find_again(sw_drive *d, const target_el *t)
{
	const sw__element *e = sw__snapshot_find_ref(d->t, t->ref);
	if (e)
		return e;
	const sw__screen *s = sw__snapshot_current(d->t);
	for (size_t i = 0; s && i < s->n_els; i++) {
		const sw__element *c = &s->els[i];
		if (!strcmp(c->cls, t->cls) && !strcmp(c->id, t->id) && !strcmp(c->label, t->label) &&
		    (t->edit || !strcmp(c->text, t->text)))
			return c;
	}
	return NULL;
}

static json_t *overlay_json(const sw__overlay *o)
{
	return json_pack("{sssssss[iiii]}", "kind", o->kind, "label", o->label, "package", o->pkg, "bounds",
	                 o->bounds[0], o->bounds[1], o->bounds[2], o->bounds[3]);
}

/*
 * The keyboard and overlay rules before tapping @t: may hide the keyboard
 * and re-resolve (updating @t). Sets *keyboard_hidden, appends warnings.
 */
static int check_obstruction(sw_drive *d, target_el *t, bool *keyboard_hidden, json_t *warnings, sw_error **err)
{
	*keyboard_hidden = false;
	int rc = SW_OK;
	if (!d->keyboard && (rc = refresh_keyboard(d, err)) < 0)
		return rc;
	/* the keyboard as the last look saw it (the same round trip as the hierarchy the target came from) */
	int f[4];
	int x = cx(t->b), y = cy(t->b);
	if (keyboard_shown(d)) {
		bool known = frame_of(d->keyboard, f);
		double share = known && d->sw > 0 && d->sh > 0
		                   ? (double)(f[2] - f[0]) * (f[3] - f[1]) / ((double)d->sw * d->sh)
		                   : 1.0;
		if (!known || share > KEYBOARD_MAX_SHARE) {
			json_array_append_new(warnings, json_string("the keyboard's frame is unknown; tapped without "
			                                            "checking whether the keyboard covers the target"));
		} else if (point_in(f, x, y)) {
			rc = sw_device_hide_keyboard(d->dev, err);
			if (rc < 0) {
				mark_state(err, false);
				return rc;
			}
			rc = refresh_keyboard(d, err);
			if (rc < 0)
				return rc;
			if (keyboard_shown(d))
				return act_fail(err, false, SW_EDEVICE, "KEYBOARD_OBSTRUCTION",
				                "Press enter, tap Done, or use qa_clear_overlay with tap_outside",
				                "The soft keyboard covers the target and could not be hidden");
			*keyboard_hidden = true;
			json_t *res = NULL;
			rc = snapshot_now(d, NULL, &res, err);
			json_decref(res);
			if (rc < 0) {
				mark_state(err, true);
				return rc;
			}
			const sw__element *e = find_again(d, t);
			if (!e || (keyboard_shown(d) && frame_of(d->keyboard, f) &&
			           point_in(f, cx(e->bounds), cy(e->bounds)))) {
				rc = act_fail(err, true, SW_EDEVICE, "KEYBOARD_OBSTRUCTION",
				              "Take a new qa_snapshot and retry",
				              "The keyboard was hidden but the target is %s; nothing was tapped",
				              e ? "still covered" : "gone");
				json_object_set_new(sw__error_details(*err), "keyboardHidden", json_true());
				return rc;
			}
			target_clear(t);
			target_copy(t, e);
		}
	}
	const sw__screen *s = sw__snapshot_current(d->t);
	const sw__element *e = sw__snapshot_find_ref(d->t, t->ref);
	const sw__overlay *o = (s && e) ? sw__snapshot_overlay_over(s, e) : NULL;
	if (o) {
		rc = act_fail(err, *keyboard_hidden, SW_EDEVICE, "OVERLAY_OBSTRUCTION",
		              "Dismiss it (qa_clear_overlay) or pass ignoreOverlay:true to tap anyway",
		              "A %s is drawn over the target; nothing was tapped", o->kind);
		if (err && *err) {
			json_t *det = sw__error_details(*err);
			json_object_set_new(det, "blockedByOverlay", overlay_json(o));
			if (*keyboard_hidden)
				json_object_set_new(det, "keyboardHidden", json_true());
		}
		return rc;
	}
	return SW_OK;
}

/*
 * target.selector on a driver that resolves selectors itself (an iOS simulator through WebDriverAgent, with the
 * strategy given): the element of the current snapshot at the bounds the driver found, so only what is really
 * on screen counts (the snapshot leaves out hidden, clipped and off-screen elements). *handled false: the
 * snapshot resolves the target.
 */
static int resolve_by_driver(sw_drive *d, json_t *target, const sw__element **out, bool *handled, sw_error **err)
{
	*handled = false;
	json_t *sel = json_object_get(target, "selector");
	if (!json_is_object(sel) || json_object_get(target, "ref") || json_object_get(target, "text") ||
	    json_object_get(target, "id"))
		return SW_OK;
	int b[4];
	int rc = sw__ios_selector_bounds(d->dev, sel, b, handled, err);
	if (!*handled || rc < 0)
		return rc;
	const sw__screen *s = sw__snapshot_current(d->t);
	const sw__element *best = NULL;
	for (size_t i = 0; s && i < s->n_els; i++) {
		const sw__element *e = &s->els[i];
		if (!e->has_bounds || memcmp(e->bounds, b, sizeof(e->bounds)) != 0)
			continue;
		if (!best || ((e->clickable || e->edit) && !(best->clickable || best->edit)))
			best = e;
	}
	int x = cx(b), y = cy(b);
	if (!best || (d->sw > 0 && (x < 0 || y < 0 || x >= d->sw || y >= d->sh)))
		return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND",
		                     "Scroll to it (qa_act {action: \"scroll\", untilVisible}) or take a new qa_snapshot",
		                     "WebDriverAgent found the %s selector's element at [%d,%d][%d,%d], but it is not on "
		                     "screen (hidden, clipped or scrolled away)",
		                     json_string_value(json_object_get(sel, "using")), b[0], b[1], b[2], b[3]);
	*out = best;
	return SW_OK;
}

/* The element @target names: by the driver for a native selector it resolves, else from the snapshot. */
static int lookup_target(sw_drive *d, json_t *target, const sw__element **out, sw_error **err)
{
	bool handled = false;
	int rc = resolve_by_driver(d, target, out, &handled, err);
	if (handled || rc < 0)
		return rc;
	return sw__snapshot_resolve_target(d->t, target, out, err);
}

static int resolve(sw_drive *d, json_t *target, target_el *out, sw_error **err)
{
	const sw__element *e = NULL;
	int rc = lookup_target(d, target, &e, err);
	if (rc < 0) {
		mark_state(err, false);
		return rc;
	}
	target_copy(out, e);
	return SW_OK;
}

/* Makes sure a current snapshot exists; selectors (not refs) always look at a fresh one. */
static int baseline(sw_drive *d, json_t *target, sw_error **err)
{
	bool by_ref = json_is_string(json_object_get(target, "ref"));
	if (sw_snapshot_tracker_has_snapshot(d->t) && (by_ref || !json_is_object(target)))
		return SW_OK;
	/* back-to-back steps (a flow): the snapshot the previous act settled on is the screen as it is */
	if (sw_snapshot_tracker_has_snapshot(d->t) && d->trust_settled && d->last_settled)
		return SW_OK;
	json_t *res = NULL;
	int rc = snapshot_now(d, NULL, &res, err);
	json_decref(res);
	if (rc < 0)
		mark_state(err, false);
	return rc;
}

static int clear_field(sw_drive *d, size_t chars, sw_error **err)
{
	if (chars == 0)
		return SW_OK;
	return sw_device_clear_text(d->dev, chars > 500 ? 500 : chars, err);
}

/* ---- scrolling geometry -------------------------------------------------- */

/* The largest scrollable element of the current snapshot, or NULL. */
static const sw__element *largest_scrollable(sw_drive *d)
{
	const sw__screen *s = sw__snapshot_current(d->t);
	const sw__element *best = NULL;
	long best_area = 0;
	for (size_t i = 0; s && i < s->n_els; i++) {
		const sw__element *e = &s->els[i];
		if (!e->scrollable)
			continue;
		long area = (long)(e->bounds[2] - e->bounds[0]) * (e->bounds[3] - e->bounds[1]);
		if (area > best_area) {
			best = e;
			best_area = area;
		}
	}
	return best;
}

/* Finger path for a scroll that reveals content in @dir (down: finger moves up). */
static void scroll_path(const int box[4], const char *dir, int p[4])
{
	int w = box[2] - box[0], h = box[3] - box[1];
	int x_mid = box[0] + w / 2, y_mid = box[1] + h / 2;
	int top = box[1] + h / 10, bottom = box[3] - h / 10, left = box[0] + w / 10, right = box[2] - w / 10;
	if (!strcmp(dir, "down"))
		p[0] = x_mid, p[1] = bottom, p[2] = x_mid, p[3] = top;
	else if (!strcmp(dir, "up"))
		p[0] = x_mid, p[1] = top, p[2] = x_mid, p[3] = bottom;
	else if (!strcmp(dir, "right"))
		p[0] = right, p[1] = y_mid, p[2] = left, p[3] = y_mid;
	else
		p[0] = left, p[1] = y_mid, p[2] = right, p[3] = y_mid;
}

/* Whether @target is on screen now: center on screen and not under the keyboard. */
static bool visible_now(sw_drive *d, json_t *target)
{
	const sw__element *e = NULL;
	if (lookup_target(d, target, &e, NULL) < 0 || !e)
		return false;
	int x = cx(e->bounds), y = cy(e->bounds);
	if (d->sw > 0 && (x < 0 || y < 0 || x >= d->sw || y >= d->sh))
		return false;
	int f[4];
	if (keyboard_shown(d) && frame_of(d->keyboard, f) && point_in(f, x, y))
		return false;
	return true;
}

/* ---- the action --------------------------------------------------------- */

static bool one_of(const char *s, const char *const *set, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(s, set[i]))
			return true;
	return false;
}

static int invalid(sw_error **err, const char *msg)
{
	return act_fail(err, false, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s", msg);
}

/*
 * The health check after an action: logcat since the last marker, the foreground app, and the dump the action
 * settled on (never a new one). Findings are recorded on the session by sw_health_check; a failing check is
 * reported in the result, never as the action's error.
 */
static void health_after(sw_drive *d, json_t *out)
{
	json_t *o = json_pack("{ss}", "xml", d->last_xml ? d->last_xml : "");
	if (o && d->obs_log && d->obs_log_since[0]) {
		/* the settle's look read the log from the stamp the check would use: no second read */
		json_object_set_new(o, "log", json_string(d->obs_log));
		json_object_set_new(o, "logSince", json_string(d->obs_log_since));
	}
	const sw__screen *scr = sw__snapshot_current(d->t);
	const char *slash = d->obs_focus ? strchr(d->obs_focus, '/') : NULL;
	if (o && scr && scr->package && slash && (size_t)(slash - d->obs_focus) == strlen(scr->package) &&
	    !strncmp(d->obs_focus, scr->package, strlen(scr->package)))
		/* the foreground as the same look saw it: the dump's window and the app's visible activity */
		json_object_set_new(o, "foreground", json_pack("{ssss}", "package", scr->package, "activity", slash + 1));
	char *oj = o ? sw__json_compact(o) : NULL, *hj = NULL;
	json_decref(o);
	sw_error *e = NULL;
	json_t *h = NULL;
	if (oj && sw_health_check(d->ctx, d->session, d->dev, oj, &hj, &e) == SW_OK)
		h = json_loads(hj, 0, NULL);
	if (h) {
		json_object_del(h, "overlays"); /* the observation already lists them */
		bool crashed = false;
		size_t i;
		json_t *f;
		json_array_foreach(json_object_get(h, "findings"), i, f)
		{
			const char *k = json_string_value(json_object_get(f, "kind"));
			crashed = crashed || (k && (!strcmp(k, "native_crash") || !strcmp(k, "anr")));
		}
		json_object_set_new(h, "crashed", json_boolean(crashed));
	} else {
		h = json_pack("{sn,ss}", "healthy", "error", e ? sw_error_message(e) : "the health check failed");
	}
	if (h)
		json_object_set_new(out, "health", h);
	sw_error_free(e);
	sw_free(hj);
	free(oj);
}

/* Shapes the observation part of the result. */
static void add_observation(json_t *out, json_t *res, const char *observe_mode)
{
	json_t *diff = json_object_get(res, "diff");
	json_object_set(out, "changed", json_object_get(diff, "changed"));
	json_object_set(out, "quality", json_object_get(res, "quality"));
	json_object_set(out, "qualityReasons", json_object_get(res, "qualityReasons"));
	json_t *sc = json_object_get(diff, "stateChanged");
	if (json_array_size(sc) > 0)
		json_object_set(out, "stateChanged", sc);
	if (json_array_size(json_object_get(res, "overlays")) > 0)
		json_object_set(out, "overlays", json_object_get(res, "overlays"));
	if (json_object_get(res, "keyboard"))
		json_object_set(out, "keyboard", json_object_get(res, "keyboard"));
	if (!strcmp(observe_mode, "none"))
		return;
	json_int_t added = json_integer_value(json_object_get(diff, "addedCount"));
	json_int_t removed = json_integer_value(json_object_get(diff, "removedCount"));
	json_int_t total = json_integer_value(json_object_get(res, "elementCount"));
	bool full = !strcmp(observe_mode, "full");
	if (!full && added * 2 > total) {
		full = true;
		json_object_set_new(out, "diffAsFull", json_true());
		json_object_set_new(out, "addedCount", json_integer(added));
		json_object_set_new(out, "removedCount", json_integer(removed));
	}
	if (full) {
		json_object_set(out, "elements", json_object_get(res, "elements"));
		json_object_set(out, "elementsOmitted", json_object_get(res, "elementsOmitted"));
		json_object_set(out, "elementsLeftOut", json_object_get(res, "elementsLeftOut"));
		if (json_object_get(res, "leftOutReasons"))
			json_object_set(out, "leftOutReasons", json_object_get(res, "leftOutReasons"));
		if (json_object_get(res, "hint"))
			json_object_set(out, "hint", json_object_get(res, "hint"));
	} else {
		json_object_set(out, "elements", json_object_get(diff, "added"));
		json_object_set(out, "removed", json_object_get(diff, "removed"));
	}
}

/* The keys qa_act takes; values the action checks itself (with its own messages) are SW__OPT_ANY. */
const sw__opt sw__drive_act_opts[] = {
    {"action", SW__OPT_ANY, false},        {"target", SW__OPT_ANY, false},        {"text", SW__OPT_ANY, false},
    {"mode", SW__OPT_ANY, false},          {"submit", SW__OPT_BOOL, false},       {"direction", SW__OPT_STRING, false},
    {"untilVisible", SW__OPT_ANY, false},  {"maxScrolls", SW__OPT_ANY, false},    {"key", SW__OPT_ANY, false},
    {"url", SW__OPT_ANY, false},           {"durationMs", SW__OPT_NUMBER, false}, {"ignoreOverlay", SW__OPT_BOOL, false},
    {"for", SW__OPT_ANY, false},           {"observe", SW__OPT_ANY, false},       {"timeoutMs", SW__OPT_ANY, false},
    {"verbose", SW__OPT_BOOL, false},      {"health", SW__OPT_BOOL, false},       {NULL}};

/* One qa_act call as the action handlers see it: the arguments, what they found, and what they leave behind. */
typedef struct act_call {
	sw_drive *d;
	const char *action;
	json_t *args;     /* the caller's arguments (a copy) */
	json_t *target;   /* args.target, nullable */
	json_t *out;      /* the result being built */
	json_t *res;      /* the last observation, when the handler observed (scroll, wait for an element) */
	json_t *warnings; /* appended to the result */
	json_t *names;    /* placeholder names typed */
	char *typed;      /* the text typed, wiped on the way out */
	target_el tgt;
	int timeout;
	bool coords;          /* the target is a bare {x, y} */
	bool had_snapshot;    /* a snapshot existed before the call */
	bool ignore_overlay;
	bool verbose;
	bool keyboard_hidden; /* the obstruction rules hid the keyboard */
	bool changed_state;   /* something reached the device */
	bool observed;        /* the handler already settled on the screen after its last input (scroll) */
	bool secret;          /* type: the value was treated as a secret */
} act_call;

static void set_ref(json_t *out, unsigned ref)
{
	char s[16];
	snprintf(s, sizeof(s), "@e%u", ref);
	json_object_set_new(out, "ref", json_string(s));
}

static int act_tap(act_call *c, sw_error **err)
{
	sw_drive *d = c->d;
	int rc, x, y, dur = (int)json_integer_value(json_object_get(c->args, "durationMs"));
	if (c->coords) {
		x = (int)json_number_value(json_object_get(c->target, "x"));
		y = (int)json_number_value(json_object_get(c->target, "y"));
		if (!c->had_snapshot && (rc = baseline(d, NULL, err)) < 0)
			return rc;
		/* the recording keeps what was under the point: the smallest clickable element there, if any */
		const sw__screen *scr = sw__snapshot_current(d->t);
		const sw__element *best = NULL;
		long best_area = 0;
		for (size_t i = 0; scr && i < scr->n_els; i++) {
			const sw__element *e = &scr->els[i];
			if (!e->has_bounds || !e->clickable || !point_in(e->bounds, x, y))
				continue;
			long area = (long)(e->bounds[2] - e->bounds[0]) * (long)(e->bounds[3] - e->bounds[1]);
			if (!best || area < best_area)
				best = e, best_area = area;
		}
		if (best)
			target_copy(&c->tgt, best);
	} else {
		if ((rc = baseline(d, c->target, err)) < 0 || (rc = resolve(d, c->target, &c->tgt, err)) < 0)
			return rc;
		if (!c->ignore_overlay &&
		    (rc = check_obstruction(d, &c->tgt, &c->keyboard_hidden, c->warnings, err)) < 0)
			return rc;
		x = cx(c->tgt.b);
		y = cy(c->tgt.b);
		set_ref(c->out, c->tgt.ref);
	}
	c->changed_state = true;
	if ((rc = sw_device_tap(d->dev, x, y, dur > 0 ? dur : 0, err)) < 0)
		return input_failed(err, rc, c->keyboard_hidden);
	json_object_set_new(c->out, "point", json_pack("[ii]", x, y));
	if (c->keyboard_hidden)
		json_object_set_new(c->out, "keyboardHidden", json_true());
	return SW_OK;
}

/* type and clear: focus the field (unless it has focus), clear it, type, submit. */
static int act_type(act_call *c, sw_error **err)
{
	sw_drive *d = c->d;
	int rc;
	bool is_type = !strcmp(c->action, "type");
	const char *text = json_string_value(json_object_get(c->args, "text"));
	const char *mode = json_string_value(json_object_get(c->args, "mode"));
	if (is_type && !text)
		return invalid(err, "action type needs text");
	if (mode && strcmp(mode, "replace") != 0 && strcmp(mode, "append") != 0)
		return invalid(err, "mode must be replace or append");
	bool secret = false;
	if (is_type) {
		if ((rc = resolve_placeholders(d, text, &c->typed, c->names, &secret, err)) < 0)
			return rc;
		/* WebDriverAgent types any character as it is: only Android's input text is ASCII-only */
		bool any_char = !strcmp(sw_device_ops(d->dev)->name, "ios");
		for (const unsigned char *p = (const unsigned char *)c->typed; *p; p++)
			if ((*p >= 0x80 && !any_char) || *p < 0x20 || *p == 0x7f)
				return act_fail(err, false, SW_EUNSUPPORTED, "TEXT_INPUT_UNSUPPORTED",
				                "Type ASCII text only on Android",
				                "The text has %s characters, which Android's input text cannot type",
				                *p >= 0x80 ? "non-ASCII" : "control");
	}
	if ((rc = baseline(d, c->target, err)) < 0 || (rc = resolve(d, c->target, &c->tgt, err)) < 0)
		return rc;
	if (!c->tgt.focused) {
		if (!c->ignore_overlay &&
		    (rc = check_obstruction(d, &c->tgt, &c->keyboard_hidden, c->warnings, err)) < 0)
			return rc;
		c->changed_state = true;
		if ((rc = sw_device_tap(d->dev, cx(c->tgt.b), cy(c->tgt.b), 0, err)) < 0)
			return input_failed(err, rc, c->keyboard_hidden);
	}
	c->changed_state = true;
	if ((!is_type || !mode || !strcmp(mode, "replace")) && (rc = clear_field(d, c->tgt.text_chars, err)) < 0)
		return rc;
	secret = secret || target_is_secret(&c->tgt);
	if (is_type && c->typed[0]) {
		/* register before typing: the value must never leak, even through a failure message */
		if (secret && d->hooks.register_secret)
			d->hooks.register_secret(c->typed, d->hooks.userdata);
		if ((rc = sw_device_type_text(d->dev, c->typed, err)) < 0)
			return rc;
	}
	if (is_type && json_is_true(json_object_get(c->args, "submit")) &&
	    (rc = sw_device_press_key(d->dev, "enter", err)) < 0)
		return rc;
	set_ref(c->out, c->tgt.ref);
	c->secret = is_type && secret;
	if (is_type) {
		json_object_set_new(c->out, "typedChars", json_integer((json_int_t)strlen(c->typed)));
		if (json_array_size(c->names) > 0)
			json_object_set(c->out, "placeholders", c->names);
		if (secret) {
			json_object_set_new(c->out, "redacted", json_true());
			json_object_set_new(c->out, "secret", json_true());
		}
	}
	if (c->keyboard_hidden)
		json_object_set_new(c->out, "keyboardHidden", json_true());
	return SW_OK;
}

static const char *const DIRECTIONS[] = {"up", "down", "left", "right"};

/* swipe and scroll share their checks: a direction and a screen size. */
static int swipe_prepare(act_call *c, const char **dir, sw_error **err)
{
	*dir = json_string_value(json_object_get(c->args, "direction"));
	if (!one_of(*dir, DIRECTIONS, SW_ARRAY_SIZE(DIRECTIONS)))
		return act_fail(err, false, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                "action %s needs direction up, down, left or right", c->action);
	int rc = baseline(c->d, c->target, err);
	return rc < 0 ? rc : ensure_geometry(c->d, err);
}

static int act_swipe(act_call *c, sw_error **err)
{
	sw_drive *d = c->d;
	const char *dir = NULL;
	int rc = swipe_prepare(c, &dir, err);
	if (rc < 0)
		return rc;
	int sx = d->sw / 2, sy = d->sh / 2;
	if (c->target && !c->coords) {
		if ((rc = resolve(d, c->target, &c->tgt, err)) < 0)
			return rc;
		sx = cx(c->tgt.b);
		sy = cy(c->tgt.b);
	} else if (c->coords) {
		sx = (int)json_number_value(json_object_get(c->target, "x"));
		sy = (int)json_number_value(json_object_get(c->target, "y"));
	}
	int dx = d->sw * 2 / 5, dy = d->sh * 2 / 5;
	int ex = sx, ey = sy;
	if (!strcmp(dir, "up"))
		ey = sy - dy;
	else if (!strcmp(dir, "down"))
		ey = sy + dy;
	else if (!strcmp(dir, "left"))
		ex = sx - dx;
	else
		ex = sx + dx;
	/* keep the finger away from the screen edges (system gestures) */
	int mx = d->sw / 20, my = d->sh / 20;
	ex = ex < mx ? mx : (ex > d->sw - mx ? d->sw - mx : ex);
	ey = ey < my ? my : (ey > d->sh - my ? d->sh - my : ey);
	c->changed_state = true;
	if ((rc = sw_device_swipe(d->dev, sx, sy, ex, ey, (int)json_integer_value(json_object_get(c->args, "durationMs")),
	                          err)) < 0)
		return rc;
	json_object_set_new(c->out, "from", json_pack("[ii]", sx, sy));
	json_object_set_new(c->out, "to", json_pack("[ii]", ex, ey));
	return SW_OK;
}

/* scroll: swipes inside the largest scrollable until the target shows, the list ends, or maxScrolls. */
static int act_scroll(act_call *c, sw_error **err)
{
	sw_drive *d = c->d;
	const char *dir = NULL;
	json_t *until = json_object_get(c->args, "untilVisible");
	json_t *jmax = json_object_get(c->args, "maxScrolls");
	int rc = swipe_prepare(c, &dir, err);
	if (rc < 0)
		return rc;
	int max_scrolls = jmax ? (int)json_number_value(jmax) : 8;
	if (max_scrolls < 1 || max_scrolls > 50)
		return invalid(err, "maxScrolls must be between 1 and 50");
	if (until && !json_is_object(until))
		return invalid(err, "untilVisible must be a target object");
	const sw__element *box_el = largest_scrollable(d);
	int box[4] = {0, d->sh / 5, d->sw, d->sh * 4 / 5}, p[4];
	if (box_el)
		memcpy(box, box_el->bounds, sizeof(box));
	json_object_set_new(c->out, "anchoredIn", json_string(box_el ? "scrollable" : "screen"));
	scroll_path(box, dir, p);
	int swipes = 0;
	bool found = until && visible_now(d, until), end = false;
	while (!found && !end && swipes < (until ? max_scrolls : 1)) {
		if (cancelled(d))
			return cancel_fail(err, true);
		c->changed_state = true;
		if ((rc = sw_device_swipe(d->dev, p[0], p[1], p[2], p[3], 400, err)) < 0)
			return rc;
		swipes++;
		json_decref(c->res);
		c->res = NULL;
		bool st;
		const char *sig = NULL;
		if ((rc = settle(d, c->timeout, c->verbose, NULL, &c->res, &st, &sig, err)) < 0)
			return rc;
		if (!json_is_true(json_object_get(json_object_get(c->res, "diff"), "changed")))
			end = true;
		if (until)
			found = visible_now(d, until);
	}
	/* each swipe settled already; with no swipe the screen is looked at once after the call as usual */
	c->observed = c->res != NULL;
	json_object_set_new(c->out, "swipes", json_integer(swipes));
	if (until)
		json_object_set_new(c->out, "untilVisibleFound", json_boolean(found));
	json_object_set_new(c->out, "endOfList", json_boolean(end));
	if (found) {
		const sw__element *e = NULL;
		if (lookup_target(d, until, &e, NULL) == SW_OK && e)
			json_object_set_new(c->out, "found", sw__snapshot_element_repr(d->t, e, c->verbose));
	}
	return SW_OK;
}

static int act_press(act_call *c, sw_error **err)
{
	static const char *const keys[] = {"back", "home", "enter"};
	const char *key = json_string_value(json_object_get(c->args, "key"));
	int rc;
	if (!one_of(key, keys, SW_ARRAY_SIZE(keys)))
		return invalid(err, "action press needs key back, home or enter");
	if (!c->had_snapshot && (rc = baseline(c->d, NULL, err)) < 0)
		return rc;
	c->changed_state = true;
	if ((rc = sw_device_press_key(c->d->dev, key, err)) < 0)
		return input_failed(err, rc, false);
	json_object_set_new(c->out, "key", json_string(key));
	return SW_OK;
}

static int act_open_url(act_call *c, sw_error **err)
{
	const char *url = json_string_value(json_object_get(c->args, "url"));
	int rc;
	if (!url || !url[0] || strchr(url, '\n'))
		return invalid(err, "action open_url needs url");
	if (!c->had_snapshot && (rc = baseline(c->d, NULL, err)) < 0)
		return rc;
	c->changed_state = true;
	return sw_device_open_url(c->d->dev, url, err);
}

/* wait: for an element (looked for until the timeout), or only for the screen to settle. */
static int act_wait(act_call *c, sw_error **err)
{
	sw_drive *d = c->d;
	json_t *forv = json_object_get(c->args, "for");
	int rc;
	if (forv && !json_is_object(forv))
		return invalid(err, "for must be an object");
	bool for_element = forv && (json_object_get(forv, "ref") || json_object_get(forv, "text") ||
	                            json_object_get(forv, "id") || json_object_get(forv, "selector"));
	if (!c->had_snapshot && (rc = baseline(d, NULL, err)) < 0)
		return rc;
	if (!for_element)
		return SW_OK;
	int64_t deadline = sw_monotonic_ms() + c->timeout;
	bool ok = false;
	for (;;) {
		if (cancelled(d))
			return cancel_fail(err, true);
		json_decref(c->res);
		c->res = NULL;
		if ((rc = snapshot_now(d, NULL, &c->res, err)) < 0)
			return rc;
		const sw__element *e = NULL;
		if (lookup_target(d, forv, &e, NULL) == SW_OK && e) {
			ok = true;
			/* the recording keeps what was found: a satisfied wait is the text assertion a run made */
			target_clear(&c->tgt);
			target_copy(&c->tgt, e);
			break;
		}
		if (sw_monotonic_ms() + 250 > deadline)
			break;
		sleep_ms(250);
	}
	json_object_set_new(c->out, "satisfied", json_boolean(ok));
	json_object_set_new(c->out, "timedOut", json_boolean(!ok));
	return SW_OK;
}

/* The actions qa_act knows, in the order its error lists them. */
static const struct act_kind {
	const char *name;
	int (*fn)(act_call *c, sw_error **err);
	bool needs_target;
	int default_timeout_ms;
} ACTIONS[] = {
    {"tap", act_tap, true, SETTLE_DEFAULT_MS},          {"type", act_type, true, SETTLE_DEFAULT_MS},
    {"clear", act_type, true, SETTLE_DEFAULT_MS},       {"swipe", act_swipe, false, SETTLE_DEFAULT_MS},
    {"scroll", act_scroll, false, SETTLE_DEFAULT_MS},   {"press", act_press, false, SETTLE_DEFAULT_MS},
    {"open_url", act_open_url, false, SETTLE_DEFAULT_MS}, {"wait", act_wait, false, WAIT_DEFAULT_MS},
};

static const struct act_kind *act_kind_find(const char *name)
{
	for (size_t i = 0; name && i < SW_ARRAY_SIZE(ACTIONS); i++)
		if (!strcmp(name, ACTIONS[i].name))
			return &ACTIONS[i];
	return NULL;
}

/* "action must be one of tap, type, ...": the list is the table's. */
static int unknown_action(sw_error **err)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "action must be one of ");
	for (size_t i = 0; i < SW_ARRAY_SIZE(ACTIONS); i++)
		sw__buf_printf(&b, "%s%s", i ? ", " : "", ACTIONS[i].name);
	char *msg = sw__buf_steal(&b, NULL);
	int rc = msg ? invalid(err, msg) : sw__error_nomem(err);
	free(msg);
	return rc;
}

int sw__drive_act(sw_drive *d, const json_t *args_in, json_t **out_res, sw_error **err)
{
	int rc = SW_OK;
	act_call c = {.d = d, .warnings = json_array(), .names = json_array()};
	json_t *notes = json_array();
	char *screen = NULL;
	if (!d || !args_in || !out_res) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "drive, args and out_json must not be NULL");
		goto out;
	}
	if (!json_is_object(args_in)) {
		rc = invalid(err, "qa_act arguments must be an object");
		goto out;
	}
	if ((rc = sw__options_check(args_in, sw__drive_act_opts, "qa_act arguments", err)) < 0)
		goto out;
	c.args = json_deep_copy(args_in);
	if (!c.args) {
		rc = sw__error_nomem(err);
		goto out;
	}
	const struct act_kind *kind = act_kind_find(json_string_value(json_object_get(c.args, "action")));
	if (!kind) {
		rc = unknown_action(err);
		goto out;
	}
	c.action = kind->name;
	c.target = json_object_get(c.args, "target");
	if (c.target && !json_is_object(c.target)) {
		rc = invalid(err, "target must be an object");
		goto out;
	}
	json_t *jt = json_object_get(c.args, "timeoutMs");
	c.timeout = kind->default_timeout_ms;
	if (jt) {
		if (!json_is_number(jt) || json_number_value(jt) < 0) {
			rc = invalid(err, "timeoutMs must be a number of milliseconds, 0 or more");
			goto out;
		}
		double v = json_number_value(jt);
		if (v > TIMEOUT_CLAMP_MS) {
			char note[64];
			snprintf(note, sizeof(note), "timeoutMs was clamped to %d", TIMEOUT_CLAMP_MS);
			json_array_append_new(notes, json_string(note));
			v = TIMEOUT_CLAMP_MS;
		}
		c.timeout = (int)v;
	}
	c.ignore_overlay = json_is_true(json_object_get(c.args, "ignoreOverlay"));
	c.verbose = json_is_true(json_object_get(c.args, "verbose"));
	const char *observe_mode = json_string_value(json_object_get(c.args, "observe"));
	static const char *const modes[] = {"diff", "full", "none"};
	if (observe_mode && !one_of(observe_mode, modes, 3)) {
		rc = invalid(err, "observe must be diff, full or none");
		goto out;
	}
	c.had_snapshot = sw_snapshot_tracker_has_snapshot(d->t);
	if (!d->obs_focus && !d->no_focus && d->session && c.had_snapshot) {
		/* the recording names the screen by its activity: learnt once, when no settle has read it yet; a
		 * driver whose looks carry no focus (iOS) is asked once, not before every act */
		const sw__screen *cur = sw__snapshot_current(d->t);
		sw_observation o = {0};
		if (cur && cur->package && look(d, cur->package, NULL, &o, NULL) == SW_OK) {
			if (o.focus)
				d->obs_focus = sw__strdup(o.focus);
			else
				d->no_focus = true;
		}
		sw_observation_clear(&o);
	}
	screen = screen_name(d);
	json_decref(d->acted);
	d->acted = NULL;
	if (!observe_mode)
		observe_mode = c.had_snapshot ? "diff" : "full";
	c.out = json_pack("{ss}", "action", c.action);
	c.coords = c.target && json_is_number(json_object_get(c.target, "x")) &&
	           json_is_number(json_object_get(c.target, "y")) && !json_object_get(c.target, "ref") &&
	           !json_object_get(c.target, "text") && !json_object_get(c.target, "id") &&
	           !json_object_get(c.target, "selector");
	if (kind->needs_target && !c.target) {
		rc = act_fail(err, false, SW_EINVAL, "INVALID_ARGUMENT", NULL, "action %s needs a target", c.action);
		goto out;
	}
	rc = kind->fn(&c, err);
	{
		/* the recording: what was acted on, even when the action failed afterwards */
		const char *const names[] = {c.tgt.id ? (strrchr(c.tgt.id, '/') ? strrchr(c.tgt.id, '/') + 1 : c.tgt.id)
		                                      : NULL,
		                             c.tgt.hint, c.tgt.desc, c.tgt.label};
		bool have_el = c.tgt.id || c.tgt.desc || c.tgt.text || c.tgt.label || c.tgt.b[2] > c.tgt.b[0];
		d->acted = acted_json(have_el ? &c.tgt : NULL, screen, c.secret, names, SW_ARRAY_SIZE(names));
		if (d->acted && json_object_get(c.out, "point"))
			json_object_set(d->acted, "point", json_object_get(c.out, "point"));
		if (d->acted && c.names && json_array_size(c.names))
			json_object_set(d->acted, "placeholders", c.names);
		if (d->acted && json_is_boolean(json_object_get(c.out, "satisfied")))
			json_object_set(d->acted, "satisfied", json_object_get(c.out, "satisfied"));
	}
	free(screen);
	screen = NULL;
	if (rc < 0)
		goto out;

	/* settle and observe (unless the action already did after its last input) */
	bool settled = true;
	const char *signal = NULL;
	if (!c.observed) {
		json_decref(c.res);
		c.res = NULL;
		char since[40];
		bool health = d->session && !json_is_false(json_object_get(c.args, "health"));
		if (health)
			sw__health_log_since(d->session, d->dev, since);
		if ((rc = settle(d, c.timeout, c.verbose, health ? since : NULL, &c.res, &settled, &signal, err)) < 0)
			goto out;
	}
	json_object_set_new(c.out, "settled", json_boolean(settled));
	if (signal && settled)
		json_object_set_new(c.out, "settleSignal", json_string(signal));
	if (signal && !settled) {
		char note[160];
		snprintf(note, sizeof(note),
		         "the screen was still changing at the %d ms deadline (it drew frames and every dump differed); "
		         "the result is the last look",
		         c.timeout);
		json_object_set_new(c.out, "settleTimedOut", json_true());
		json_array_append_new(c.warnings, json_string(note));
	}
	add_observation(c.out, c.res, observe_mode);
	json_object_set_new(c.out, "changedState", json_boolean(c.changed_state));
	if (d->session && !json_is_false(json_object_get(c.args, "health")))
		health_after(d, c.out);
	if (json_array_size(c.warnings))
		json_object_set(c.out, "warnings", c.warnings);
	if (json_array_size(notes))
		json_object_set(c.out, "notes", notes);
	*out_res = json_incref(c.out);
out:
	if (rc < 0 && d)
		d->last_settled = false;
	if (rc < 0 && err && *err && !json_object_get(sw__error_details(*err), "changedState"))
		mark_state(err, c.changed_state);
	if (c.typed) {
		memset(c.typed, 0, strlen(c.typed));
		free(c.typed);
	}
	free(screen);
	target_clear(&c.tgt);
	json_decref(c.args);
	json_decref(c.out);
	json_decref(c.res);
	json_decref(c.warnings);
	json_decref(notes);
	json_decref(c.names);
	return rc;
}

/* ---- screenshots -------------------------------------------------------- */

static bool png_size(const unsigned char *p, size_t len, int *w, int *h)
{
	if (len < 24 || memcmp(p, "\x89PNG\r\n\x1a\n", 8) != 0 || memcmp(p + 12, "IHDR", 4) != 0)
		return false;
	*w = (int)((uint32_t)p[16] << 24 | (uint32_t)p[17] << 16 | (uint32_t)p[18] << 8 | p[19]);
	*h = (int)((uint32_t)p[20] << 24 | (uint32_t)p[21] << 16 | (uint32_t)p[22] << 8 | p[23]);
	return *w > 0 && *h > 0;
}

int sw_drive_screenshot(sw_drive *d, int force, unsigned char **png, size_t *png_len, char **meta_json, sw_error **err)
{
	if (!d || !png || !png_len || !meta_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "arguments must not be NULL");
	/* a fresh tree decides whether a secure field is on screen */
	const char *check = "clear";
	json_t *res = NULL;
	sw_error *e = NULL;
	int rc = snapshot_now(d, NULL, &res, &e);
	json_decref(res);
	if (rc < 0) {
		/* BACKEND_UNSUPPORTED: a driver without a tree (an iOS simulator without WebDriverAgent) */
		if (strcmp(sw_error_failure_code(e), "SNAPSHOT_FAILED") &&
		    strcmp(sw_error_failure_code(e), "VISUAL_ONLY_SCREEN") &&
		    strcmp(sw_error_failure_code(e), "BACKEND_UNSUPPORTED")) {
			sw__error_propagate(err, e);
			return rc;
		}
		sw_error_free(e);
		check = "unverified";
	} else {
		const sw__screen *s = sw__snapshot_current(d->t);
		for (size_t i = 0; s && i < s->n_els; i++)
			if (s->els[i].secure)
				check = "secure";
	}
	if (!strcmp(check, "secure")) {
		if (!force)
			return act_fail(err, false, SW_EDENIED, "CAPTURE_WITHHELD_SECURE",
			                "Leave the password screen first, or pass force:true if the capture is needed",
			                "A secure field is on screen, so the screenshot was withheld");
		check = "forced";
	}
	unsigned char *data = NULL;
	size_t len = 0;
	rc = sw_device_screencap(d->dev, &data, &len, err);
	if (rc < 0)
		return rc;
	int pw = 0, ph = 0;
	if (!png_size(data, len, &pw, &ph)) {
		free(data);
		return sw__error_set(err, SW_EDEVICE, "UNKNOWN", "Retry the screenshot",
		                     "The screen capture is not a PNG");
	}
	if (d->sw <= 0 && ensure_geometry(d, NULL) < 0) {
		d->sw = pw;
		d->sh = ph;
	}
	double scale = d->sw > 0 ? (double)pw / d->sw : 1.0;
	json_t *meta = json_pack("{sisisIs{sssisisf}ss}", "width", pw, "height", ph, "bytes", (json_int_t)len,
	                         "coordinateSpace", "kind", "device-pixels", "width", d->sw, "height", d->sh, "scale",
	                         scale, "secureFieldCheck", check);
	if (meta && !strcmp(check, "forced")) {
		json_object_set_new(meta, "sensitiveForced", json_true());
		json_object_set_new(meta, "warnings",
		                    json_pack("[s]", "a secure field was on screen; the capture was forced"));
	} else if (meta && !strcmp(check, "unverified")) {
		json_object_set_new(
		    meta, "warnings",
		    json_pack("[s]", "the UI tree could not be read, so secure fields were not checked"));
	}
	char *txt = meta ? sw__json_compact(meta) : NULL;
	json_decref(meta);
	if (!txt) {
		free(data);
		return sw__error_nomem(err);
	}
	*png = data;
	*png_len = len;
	*meta_json = txt;
	return SW_OK;
}

sw_session *sw__drive_session(const sw_drive *d)
{
	return d ? d->session : NULL;
}

void sw__drive_own_device(sw_drive *d, sw_device *dev)
{
	if (d)
		d->owned_dev = dev;
}

const char *sw__drive_last_xml(const sw_drive *d, size_t *len)
{
	if (len)
		*len = d ? d->last_len : 0;
	return d ? d->last_xml : NULL;
}

sw_device *sw__drive_dev(const sw_drive *d)
{
	return d ? d->dev : NULL;
}
