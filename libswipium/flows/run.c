/* run.c: the Flow V2 runner (setup, fail-fast steps, teardown that always runs) and the read-only plan. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flow-internal.h"
#include "seed-internal.h"
#include "../catalog/catalog-internal.h"
#include "../actions/actions-internal.h"

static void nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

typedef struct runner {
	const sw_flow_run_options *o;
	json_t *flow;
	json_t *vars; /* explicit variables */
	sw_redactor *red;
	bool sensitive;
	char *app_id;
	json_t *artifacts; /* uris */
	json_t *fixtures;  /* the session's fixtures (sw__fixtures_load), read at the first seed or fixture check */
	json_t *cleanups;  /* [{fixture, spec}]: the cleanup seeds of the seeds that ran, run after teardown */
	json_t *notes;     /* what the run wants said (fixtures.json problems) */
	const char *record; /* (nullable) the tool every act is recorded as in the session (qa_smoke), like qa_act's */
	const char *rec_text; /* the typed text as the step wrote it (the recording never holds a resolved value) */
	bool rec_secret;
} runner;

static bool cancelled(const runner *r)
{
	return r->o->cancel && *r->o->cancel;
}

/* ---- variables --------------------------------------------------------------- */

/*
 * Replaces every ${NAME} in @in. Order: explicit variables, then the session's
 * answered inputs (sw_session_input_get), then the process environment for SWIPIUM_* names only. Any other name is never looked up.
 * Values of credential-like names are registered as secrets before use.
 */
static int subst(runner *r, const char *in, char **out, bool *secret, sw_error **err)
{
	sw_buf b = SW_BUF_INIT;
	const char *p = in;
	while (*p) {
		const char *s = strstr(p, "${");
		const char *e = s ? strchr(s + 2, '}') : NULL;
		if (!s || !e) {
			sw__buf_puts(&b, p);
			break;
		}
		sw__buf_append(&b, p, (size_t)(s - p));
		char name[256];
		size_t n = (size_t)(e - s - 2);
		if (n == 0 || n >= sizeof(name)) {
			sw__buf_free(&b);
			return sw__error_set(err, SW_ENOTFOUND, "MISSING_FIXTURE", NULL,
			                     "a ${...} reference in the flow has an empty or too long name");
		}
		memcpy(name, s + 2, n);
		name[n] = '\0';
		const char *val = json_string_value(json_object_get(r->vars, name));
		/* then a value answered through qa_continue_from_blocker this session (memory only) */
		char *answered = !val && r->o->session ? sw_session_input_get(r->o->session, name) : NULL;
		if (answered)
			val = answered;
		if (!val && sw__str_has_prefix(name, "SWIPIUM_"))
			val = getenv(name);
		if (!val) {
			sw__buf_free(&b);
			if (sw__str_has_prefix(name, "SWIPIUM_"))
				return sw__error_set(
				    err, SW_ENOTFOUND, "MISSING_FIXTURE",
				    "Set it in the environment of the server (or `swipium run`), or pass it in "
				    "variables.",
				    "Flow variable ${%s} is not set: pass it in variables (qa_flow_run / swipium run "
				    "--variables %s=...) or export %s.",
				    name, name, name);
			return sw__error_set(
			    err, SW_ENOTFOUND, "MISSING_FIXTURE", "Only SWIPIUM_* names are read from the environment.",
			    "Flow variable ${%s} is not set: pass it in variables (qa_flow_run / swipium run "
			    "--variables %s=...) or rename it SWIPIUM_%s to read it from the environment; "
			    "other environment variables are never read.",
			    name, name, name);
		}
		if (sw_redact_is_secret_name(name)) {
			if (r->red && val[0])
				sw_redactor_add_secret(r->red, val, NULL);
			if (secret)
				*secret = true;
		}
		sw__buf_puts(&b, val);
		free(answered);
		p = e + 1;
	}
	if (b.failed) {
		sw__buf_free(&b);
		return sw__error_nomem(err);
	}
	*out = b.data ? sw__buf_steal(&b, NULL) : sw__strdup("");
	return *out ? SW_OK : sw__error_nomem(err);
}

/* ---- device helpers ------------------------------------------------------------ */

static int act(runner *r, json_t *args, json_t **res, sw_error **err)
{
	if (!args)
		return sw__error_nomem(err);
	json_t *j = NULL;
	int rc = sw__drive_act(r->o->drive, args, &j, err);
	const char *a = json_string_value(json_object_get(args, "action"));
	if (r->record && r->o->session && a && strcmp(a, "wait") != 0) /* settles are not the run's actions */
		sw__drive_record(r->o->drive, r->o->session, args, r->record, r->rec_text, r->rec_secret, rc, err);
	json_decref(args);
	if (rc < 0)
		return rc;
	if (r->o->session)
		sw_session_counter_add(r->o->session, "actions", 1, NULL);
	if (res)
		*res = j;
	else
		json_decref(j);
	return SW_OK;
}

static int settle(runner *r, long timeout_ms, sw_error **err)
{
	return act(r, json_pack("{ss,sI,ss}", "action", "wait", "timeoutMs", (json_int_t)timeout_ms, "observe", "none"),
	           NULL, err);
}

static json_t *snapshot(runner *r, const char *filter, sw_error **err)
{
	json_t *o = json_pack("{sb}", "verbose", 1);
	if (filter)
		json_object_set_new(o, "filter", json_string(filter));
	if (!o) {
		sw__error_nomem(err);
		return NULL;
	}
	json_t *j = NULL;
	int rc = sw__drive_snapshot(r->o->drive, o, &j, err);
	json_decref(o);
	return rc < 0 ? NULL : j;
}

static bool ci_contains(const char *hay, const char *needle)
{
	if (!hay)
		return false;
	return strcasestr(hay, needle) != NULL;
}

static bool ci_equal(const char *a, const char *b)
{
	return a && b && !strcasecmp(a, b);
}

static const char *short_id(const char *id)
{
	const char *s = strrchr(id, '/');
	return s ? s + 1 : id;
}

static bool is_native_ios(const char *s)
{
	return sw__str_has_prefix(s, "accessibility id=") || sw__str_has_prefix(s, "name=") ||
	       sw__str_has_prefix(s, "predicate string=") || sw__str_has_prefix(s, "class chain=");
}

/*
 * Finds the element a flow selector names on the current screen: plain text is a
 * case-insensitive substring of text, description or id (an exact match wins;
 * for taps a clickable one wins); `id=` is a resource id (full or short).
 * *el is NULL when nothing matches. (*el transfer full)
 */
static int find(runner *r, const char *sel, const char *by, bool prefer_clickable, json_t **el, sw_error **err)
{
	*el = NULL;
	bool by_id = (by && !strcmp(by, "id")) || sw__str_has_prefix(sel, "id=");
	if ((by && !strcmp(by, "accessibility id")) || is_native_ios(sel))
		return sw__error_set(
		    err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", "On Android use plain text or id=<resource-id>.",
		    "selector \"%s\" is an iOS WebDriverAgent locator; the Android backend cannot use it", sel);
	const char *want = by_id && sw__str_has_prefix(sel, "id=") ? sel + 3 : sel;
	if (!want[0])
		return sw__error_set(err, SW_EINVAL, "INVALID_FLOW", NULL, "empty selector");
	json_t *snap = snapshot(r, by_id ? short_id(want) : want, err);
	if (!snap)
		return SW_EDEVICE;
	json_t *best = NULL;
	int best_score = -1;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(snap, "elements"), i, e)
	{
		if (!json_is_object(e))
			continue;
		const char *text = json_string_value(json_object_get(e, "text"));
		const char *label = json_string_value(json_object_get(e, "label"));
		const char *id = json_string_value(json_object_get(e, "id"));
		int score = -1;
		if (by_id) {
			if (id && (!strcmp(id, want) || !strcmp(id, short_id(want))))
				score = 10;
		} else {
			if (ci_equal(text, want) || ci_equal(label, want) || ci_equal(id, want))
				score = 10;
			else if (ci_contains(text, want) || ci_contains(label, want) || ci_contains(id, want))
				score = 5;
		}
		if (score < 0)
			continue;
		if (prefer_clickable && json_is_true(json_object_get(e, "clickable")))
			score += 2;
		if (score > best_score) {
			best_score = score;
			best = e;
		}
	}
	if (best)
		*el = json_incref(best);
	json_decref(snap);
	return SW_OK;
}

static json_t *ref_target(const json_t *el)
{
	return json_pack("{sO}", "ref", json_object_get(el, "ref"));
}

static int not_found(sw_error **err, const char *sel)
{
	return sw__error_set(
	    err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND",
	    "Check the screen with qa_snapshot; if the label changed, qa_flow_repair proposes a new selector.",
	    "no element matches \"%s\" on the current screen", sel);
}

/* Polls for @sel until it is visible (or, with @gone, until it is not), at most @timeout_ms. */
static int wait_for(runner *r, const char *sel, const char *by, long timeout_ms, bool gone, bool *met, sw_error **err)
{
	int64_t deadline = sw_monotonic_ms() + timeout_ms;
	for (;;) {
		json_t *el = NULL;
		int rc = find(r, sel, by, false, &el, err);
		if (rc < 0)
			return rc;
		bool present = el != NULL;
		json_decref(el);
		if (present != gone) {
			*met = true;
			return SW_OK;
		}
		if (cancelled(r))
			return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "the flow run was cancelled");
		if (sw_monotonic_ms() + 400 > deadline) {
			*met = false;
			return SW_OK;
		}
		nap(400);
	}
}

static int screenshot(runner *r, const char *label, char **uri)
{
	if (r->sensitive || !r->o->session)
		return SW_OK;
	unsigned char *png = NULL;
	size_t len = 0;
	char *meta = NULL;
	if (sw_drive_screenshot(r->o->drive, 0, &png, &len, &meta, NULL) != SW_OK)
		return SW_OK;
	sw_free(meta);
	char name[64];
	snprintf(name, sizeof(name), "flow-%lld.png", (long long)sw_wall_ms());
	char *am = NULL;
	if (sw_artifact_save(r->o->session, "screenshot", name, "image/png", png, len, label, &am, NULL) == SW_OK) {
		json_t *j = json_loads(am, 0, NULL);
		const char *u = json_string_value(json_object_get(j, "uri"));
		if (u) {
			json_array_append_new(r->artifacts, json_string(u));
			sw_session_counter_add(r->o->session, "screenshots", 1, NULL);
			if (uri)
				*uri = sw__strdup(u);
		}
		json_decref(j);
	}
	sw_free(am);
	sw_free(png);
	return SW_OK;
}

/* ---- visual steps (templates, baselines, OCR) ------------------------------------------ */

static const char *sget(const json_t *st, const char *k)
{
	return json_string_value(json_object_get(st, k));
}

/* The options text {@key: st[@key]} when the step gives @key as a number, else {}. (transfer full, nullable) */
static char *number_option(const json_t *st, const char *key)
{
	json_t *o = json_object();
	if (json_is_number(json_object_get(st, key)))
		json_object_set(o, key, json_object_get(st, key));
	char *oj = sw__json_compact(o);
	json_decref(o);
	return oj;
}

/* A PNG of the screen. Sensitive sessions capture no pixels. (png: transfer full) */
static int capture(runner *r, unsigned char **png, size_t *len, sw_error **err)
{
	if (r->sensitive)
		return sw__error_set(err, SW_EDENIED, "SENSITIVE_MODE_REFUSED", NULL,
		                     "a sensitive session captures no screenshots, so image steps cannot run");
	char *meta = NULL;
	int rc = sw_drive_screenshot(r->o->drive, 0, png, len, &meta, err);
	sw_free(meta);
	if (rc == SW_OK && r->o->session)
		sw_session_counter_add(r->o->session, "screenshots", 1, NULL);
	return rc;
}

static int tap_point(runner *r, long x, long y, sw_error **err)
{
	return act(r,
	           json_pack("{ss,s{sI,sI},ss}", "action", "tap", "target", "x", (json_int_t)x, "y", (json_int_t)y,
	                     "observe", "none"),
	           NULL, err);
}

static int run_visual(runner *r, const json_t *st, json_t *rec, sw_error **err)
{
	const char *k = sget(st, "kind");
	int rc = SW_OK;
	unsigned char *png = NULL;
	size_t len = 0;
	sw_image *screen = NULL, *other = NULL;
	char *path = NULL, *out = NULL, *summary = NULL;
	json_t *res = NULL;
	if ((rc = capture(r, &png, &len, err)) < 0)
		goto out;
	if (sw__flow_step_ocr(st)) {
		json_t *o = json_pack("{ss}", "query", sget(st, "text"));
		if (json_is_number(json_object_get(st, "minConfidence")))
			json_object_set(o, "minConfidence", json_object_get(st, "minConfidence"));
		char *oj = sw__json_compact(o);
		json_decref(o);
		sw_error *e2 = NULL;
		rc = oj ? sw_visual_ocr(r->o->root, png, len, oj, r->red, &out, &e2) : sw__error_nomem(err);
		free(oj);
		if (rc < 0) {
			if (e2 && !strcmp(sw_error_failure_code(e2), "OCR_NOT_CONFIGURED")) {
				sw_error_free(e2);
				rc = sw__error_set(err, SW_EUNSUPPORTED, "VISUAL_ONLY_SCREEN",
				                   "Configure an OCR provider (ocrCommand in .swipium/config.json or "
				                   "SWIPIUM_OCR_CMD).",
				                   "%s needs an OCR provider and none is configured", k);
			} else {
				sw__error_propagate(err, e2);
			}
			goto out;
		}
		res = json_loads(out, 0, NULL);
		if (!json_is_true(json_object_get(res, "found"))) {
			const char *code = !strcmp(k, "tapOcrText") ? "ELEMENT_NOT_FOUND" : "ASSERTION_FAILED";
			rc = sw__error_set(err, sw__catalog_result(code, SW_ESTATE), code, NULL,
			                   "OCR found no \"%s\" on the screen", sget(st, "text"));
			goto out;
		}
		if (!strcmp(k, "tapOcrText")) {
			json_t *b = json_object_get(res, "bbox");
			long x = (long)(json_number_value(json_object_get(b, "x")) +
			                json_number_value(json_object_get(b, "width")) / 2);
			long y = (long)(json_number_value(json_object_get(b, "y")) +
			                json_number_value(json_object_get(b, "height")) / 2);
			if ((rc = tap_point(r, x, y, err)) < 0)
				goto out;
			summary = sw__asprintf("tapped OCR text at (%ld, %ld)", x, y);
		} else {
			summary = sw__asprintf("OCR found the text (confidence %.2f)",
			                       json_number_value(json_object_get(res, "confidence")));
		}
		goto out;
	}
	if ((rc = sw_image_decode(png, len, &screen, err)) < 0)
		goto out;
	if (!strcmp(k, "assertDiff")) {
		const char *name = sget(st, "baseline");
		if ((rc = sw__flow_baseline_file(r->o->root, name, &path, err)) < 0)
			goto out;
		if (!sw__is_file(path)) {
			rc = sw__error_set(err, SW_ENOTFOUND, "MISSING_FIXTURE",
			                   "Save one with qa_visual {mode: \"baseline\"} on the expected screen.",
			                   "there is no baseline \"%s\"", name);
			goto out;
		}
		if ((rc = sw_image_load(path, &other, err)) < 0)
			goto out;
		char *oj = number_option(st, "threshold");
		rc = sw_visual_diff(other, screen, oj, &out, NULL, err);
		free(oj);
		if (rc < 0)
			goto out;
		res = json_loads(out, 0, NULL);
		double ratio = json_number_value(json_object_get(res, "changedRatio"));
		if (!json_is_true(json_object_get(res, "pass"))) {
			rc = sw__error_set(err, SW_ESTATE, "ASSERTION_FAILED", NULL,
			                   json_is_true(json_object_get(res, "sizeMismatch"))
			                       ? "the screen and baseline \"%s\" differ in size"
			                       : "the screen differs from baseline \"%s\"",
			                   name);
			if (err && *err)
				sw__error_take_details(*err, json_pack("{sf}", "changedRatio", ratio));
			goto out;
		}
		summary = sw__asprintf("matches baseline \"%s\" (%.4f changed)", name, ratio);
		goto out;
	}
	/* tapImage / assertImage */
	if ((rc = sw_visual_resolve_path(r->o->root, sget(st, "template"), &path, err)) < 0)
		goto out;
	if ((rc = sw_image_load(path, &other, err)) < 0)
		goto out;
	char *oj = number_option(st, "minScore");
	rc = sw_visual_find_image(screen, other, oj, &out, err);
	free(oj);
	if (rc < 0)
		goto out;
	res = json_loads(out, 0, NULL);
	double score = json_number_value(json_object_get(res, "score"));
	if (!json_is_true(json_object_get(res, "found"))) {
		const char *code = !strcmp(k, "tapImage") ? "ELEMENT_NOT_FOUND" : "ASSERTION_FAILED";
		rc = sw__error_set(err, sw__catalog_result(code, SW_ESTATE), code, NULL, "template %s is not on the screen (best score %.2f)", sget(st, "template"),
		                   score);
		goto out;
	}
	if (!strcmp(k, "tapImage")) {
		json_t *c = json_object_get(res, "center");
		long x = (long)json_number_value(json_object_get(c, "x")),
		     y = (long)json_number_value(json_object_get(c, "y"));
		if ((rc = tap_point(r, x, y, err)) < 0)
			goto out;
		summary = sw__asprintf("tapped the template at (%ld, %ld), score %.2f", x, y, score);
	} else {
		summary = sw__asprintf("template found, score %.2f", score);
	}
out:
	if (summary)
		json_object_set_new(rec, "summary", json_string(summary));
	free(summary);
	sw_free(png);
	sw_image_free(screen);
	sw_image_free(other);
	sw_free(path);
	sw_free(out);
	json_decref(res);
	return rc;
}

/* ---- steps ------------------------------------------------------------------------ */

static int need_app(runner *r, sw_error **err)
{
	if (r->app_id)
		return SW_OK;
	return sw__error_set(err, SW_ENOTFOUND, "MISSING_FIXTURE",
	                     "Add `appId:` to the flow or start the session with an app.",
	                     "the flow names no appId and the session has no app to launch");
}

/* One step as its handler sees it; what the handler owns is freed by run_step. */
typedef struct step_call {
	runner *r;
	const json_t *st;
	json_t *rec;        /* the step's record (summary, skipped, ...) */
	const char *k;      /* the step kind */
	const char *sel;    /* selector, ${NAME}s replaced */
	const char *into;   /* inputText's field, ${NAME}s replaced */
	char *summary;      /* the record's summary (transfer to run_step) */
	json_t *res, *el;   /* owned scratch */
	char *txt;          /* owned scratch */
} step_call;

static long step_timeout(const json_t *st, long dflt)
{
	json_t *t = json_object_get(st, "timeoutMs");
	return json_is_integer(t) ? (long)json_integer_value(t) : dflt;
}

/* prepareTarget, restartApp */
static int step_launch(step_call *c, sw_error **err)
{
	runner *r = c->r;
	bool restart = !strcmp(c->k, "restartApp");
	int rc;
	if (restart || r->app_id) {
		if ((rc = need_app(r, err)) < 0)
			return rc;
		if (restart && (rc = sw_device_force_stop(r->o->device, r->app_id, err)) < 0)
			return rc;
		if ((rc = sw_device_launch(r->o->device, r->app_id, err)) < 0)
			return rc;
		c->summary = sw__asprintf("%s %s", restart ? "restarted" : "launched", r->app_id);
	} else {
		c->summary = sw__strdup("no appId: kept the app on screen");
	}
	return settle(r, 5000, err);
}

static int step_tap(step_call *c, sw_error **err)
{
	int rc = find(c->r, c->sel, NULL, true, &c->el, err);
	if (rc < 0)
		return rc;
	if (!c->el)
		return not_found(err, c->sel);
	rc = act(c->r, json_pack("{ss,so,ss}", "action", "tap", "target", ref_target(c->el), "observe", "none"), NULL,
	         err);
	c->summary = sw__asprintf("tapped %s", json_string_value(json_object_get(c->el, "ref")));
	return rc;
}

static int step_tap_at(step_call *c, sw_error **err)
{
	const json_t *st = c->st;
	int rc = act(c->r,
	             json_pack("{ss,s{sO,sO},ss}", "action", "tap", "target", "x", json_object_get(st, "x"), "y",
	                       json_object_get(st, "y"), "observe", "none"),
	             NULL, err);
	c->summary = sw__asprintf("tapped (%lld, %lld)", (long long)json_integer_value(json_object_get(st, "x")),
	                          (long long)json_integer_value(json_object_get(st, "y")));
	return rc;
}

static int step_input_text(step_call *c, sw_error **err)
{
	runner *r = c->r;
	bool secret = false;
	int rc = subst(r, sget(c->st, "text"), &c->txt, &secret, err);
	if (rc < 0)
		return rc;
	json_t *js = json_object_get(c->st, "secret");
	if (json_is_boolean(js))
		secret = json_is_true(js);
	if (secret && r->red && c->txt[0])
		sw_redactor_add_secret(r->red, c->txt, NULL);
	json_t *target = NULL;
	if (c->into) {
		if ((rc = find(r, c->into, NULL, false, &c->el, err)) < 0)
			return rc;
		if (!c->el)
			return not_found(err, c->into);
		target = ref_target(c->el);
	} else {
		json_t *snap = snapshot(r, NULL, err);
		if (!snap)
			return SW_EDEVICE;
		size_t i;
		json_t *e;
		json_array_foreach(json_object_get(snap, "elements"), i, e)
		{
			if (!target && json_is_object(e) && json_is_true(json_object_get(e, "focused")))
				target = ref_target(e);
		}
		json_decref(snap);
		if (!target)
			return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND",
			                     "Write the step as inputText: {into: <field>, text: ...}.",
			                     "no text field has focus; inputText needs `into` to pick the field");
	}
	r->rec_text = sget(c->st, "text");
	r->rec_secret = secret;
	rc = act(r,
	         json_pack("{ss,so,ss,ss,ss}", "action", "type", "target", target, "text", c->txt, "mode", "replace",
	                   "observe", "none"),
	         NULL, err);
	r->rec_text = NULL;
	r->rec_secret = false;
	c->summary = sw__asprintf("typed %zu characters%s", strlen(c->txt), secret ? " (secret)" : "");
	return rc;
}

/* assertVisible, assertNotVisible */
static int step_assert_visible(step_call *c, sw_error **err)
{
	bool gone = !strcmp(c->k, "assertNotVisible"), met = false;
	int rc = wait_for(c->r, c->sel, NULL, 2000, gone, &met, err);
	if (rc < 0)
		return rc;
	if (!met)
		return sw__error_set(err, SW_ESTATE, "ASSERTION_FAILED", NULL,
		                     gone ? "\"%s\" is still visible" : "\"%s\" is not visible", c->sel);
	c->summary = sw__asprintf("\"%s\" %s", c->sel, gone ? "is not visible" : "is visible");
	const char *raw = sget(c->st, "selector");
	if (!gone && raw && c->r->record && c->r->o->session) {
		/* a text assertion that held: recorded like qa_act's satisfied wait, with the step's own selector (its
		 * ${NAME}s unresolved, never the value); nothing else was acted on, so no element of an earlier act */
		json_decref(sw__drive_take_acted(c->r->o->drive));
		json_t *f =
		    sw__str_has_prefix(raw, "id=") ? json_pack("{ss}", "id", raw + 3) : json_pack("{ss}", "text", raw);
		json_t *rec = json_pack("{ss,so,sb}", "action", "wait", "for", f, "satisfied", 1);
		sw__drive_record(c->r->o->drive, c->r->o->session, rec, c->r->record, NULL, false, SW_OK, NULL);
		json_decref(rec);
	}
	return SW_OK;
}

/* assertVisual, screenshot: evidence, never pixels in a sensitive session */
static int step_evidence(step_call *c, sw_error **err)
{
	(void)err;
	bool shot = !strcmp(c->k, "screenshot");
	if (c->r->sensitive) {
		json_object_set_new(c->rec, "skipped", json_true());
		c->summary = sw__strdup("skipped: sensitive session (no screenshots)");
		return SW_OK;
	}
	char *uri = NULL;
	screenshot(c->r, sget(c->st, shot ? "reason" : "description"), &uri);
	if (shot)
		c->summary = sw__asprintf("screenshot %s", uri ? uri : "not captured");
	else
		c->summary = sw__asprintf("evidence for a human check: %s%s%s", sget(c->st, "description"),
		                          uri ? " " : "", uri ? uri : "");
	free(uri);
	return SW_OK;
}

static int step_swipe(step_call *c, sw_error **err)
{
	runner *r = c->r;
	const json_t *st = c->st;
	int w = 0, h = 0;
	int rc = sw_device_screen_size(r->o->device, &w, &h, err);
	if (rc < 0)
		return rc;
	const char *dir = sget(st, "direction"), *area = sget(st, "area");
	double dist = json_is_number(json_object_get(st, "distance")) ? json_number_value(json_object_get(st, "distance"))
	                                                               : 0.6;
	int cx = w / 2, cy = h / 2;
	if (area && !strcmp(area, "top"))
		cy = h / 4;
	else if (area && !strcmp(area, "bottom"))
		cy = h * 3 / 4;
	else if (area && !strcmp(area, "left"))
		cx = w / 4;
	else if (area && !strcmp(area, "right"))
		cx = w * 3 / 4;
	bool vert = !strcmp(dir, "up") || !strcmp(dir, "down");
	int span = (int)((vert ? h : w) * dist / 2);
	int x1 = cx, y1 = cy, x2 = cx, y2 = cy;
	if (!strcmp(dir, "up"))
		y1 = cy + span, y2 = cy - span;
	else if (!strcmp(dir, "down"))
		y1 = cy - span, y2 = cy + span;
	else if (!strcmp(dir, "left"))
		x1 = cx + span, x2 = cx - span;
	else
		x1 = cx - span, x2 = cx + span;
	int mx = w / 20, my = h / 20;
#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))
	x1 = CLAMP(x1, mx, w - mx), x2 = CLAMP(x2, mx, w - mx), y1 = CLAMP(y1, my, h - my), y2 = CLAMP(y2, my, h - my);
#undef CLAMP
	if ((rc = sw_device_swipe(r->o->device, x1, y1, x2, y2, 400, err)) < 0)
		return rc;
	if (r->record && r->o->session) {
		/* recorded like qa_act's swipe; the screen is the one the last settle read */
		json_t *rec = json_pack("{ss,ss}", "action", "swipe", "direction", dir);
		sw__drive_record(r->o->drive, r->o->session, rec, r->record, NULL, false, SW_OK, NULL);
		json_decref(rec);
	}
	if (r->o->session)
		sw_session_counter_add(r->o->session, "actions", 1, NULL);
	rc = settle(r, 3000, err);
	c->summary = sw__asprintf("swiped %s", dir);
	return rc;
}

static int step_scroll_to(step_call *c, sw_error **err)
{
	runner *r = c->r;
	int swipes = 0, rc;
	for (;;) {
		json_decref(c->el);
		c->el = NULL;
		if ((rc = find(r, c->sel, NULL, false, &c->el, err)) < 0)
			return rc;
		if (c->el)
			break;
		if (swipes >= 8 || cancelled(r))
			return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND",
			                     "Check the list with qa_snapshot; qa_flow_repair proposes a new selector.",
			                     "\"%s\" did not appear after %d swipes", c->sel, swipes);
		json_decref(c->res);
		c->res = NULL;
		if ((rc = act(r, json_pack("{ss,ss,ss}", "action", "scroll", "direction", "down", "observe", "none"),
		              &c->res, err)) < 0)
			return rc;
		swipes++;
		if (json_is_true(json_object_get(c->res, "endOfList"))) {
			json_decref(c->el);
			c->el = NULL;
			if ((rc = find(r, c->sel, NULL, false, &c->el, err)) < 0)
				return rc;
			if (!c->el)
				return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND",
				                     "Check the list with qa_snapshot; qa_flow_repair proposes a new selector.",
				                     "\"%s\" is not in the list (reached its end after %d swipes)", c->sel,
				                     swipes);
			break;
		}
	}
	c->summary = sw__asprintf("\"%s\" visible after %d swipe(s)", c->sel, swipes);
	return SW_OK;
}

static int step_press(step_call *c, sw_error **err)
{
	int rc = act(c->r, json_pack("{ss,ss,ss}", "action", "press", "key", sget(c->st, "key"), "observe", "none"),
	             NULL, err);
	c->summary = sw__asprintf("pressed %s", sget(c->st, "key"));
	return rc;
}

static int step_open_url(step_call *c, sw_error **err)
{
	bool secret = false;
	int rc = subst(c->r, sget(c->st, "url"), &c->txt, &secret, err);
	if (rc < 0)
		return rc;
	rc = act(c->r, json_pack("{ss,ss,ss}", "action", "open_url", "url", c->txt, "observe", "none"), NULL, err);
	c->summary = sw__asprintf("opened %s", sget(c->st, "url"));
	return rc;
}

static int step_wait(step_call *c, sw_error **err)
{
	if (!c->sel) {
		long ms = (long)json_integer_value(json_object_get(c->st, "ms"));
		for (long left = ms; left > 0 && !cancelled(c->r); left -= 100)
			nap(left < 100 ? left : 100);
		c->summary = sw__asprintf("waited %ld ms", ms);
		return SW_OK;
	}
	bool met = false;
	long to = step_timeout(c->st, 10000);
	int rc = wait_for(c->r, c->sel, sget(c->st, "by"), to, false, &met, err);
	if (rc < 0)
		return rc;
	if (!met)
		return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND", NULL, "\"%s\" did not appear within %ld ms",
		                     c->sel, to);
	c->summary = sw__asprintf("\"%s\" appeared", c->sel);
	return SW_OK;
}

static int step_wait_for_idle(step_call *c, sw_error **err)
{
	int rc = settle(c->r, step_timeout(c->st, 3000), err);
	c->summary = sw__strdup("settled");
	return rc;
}

static int step_wait_for_visible(step_call *c, sw_error **err)
{
	bool met = false;
	long to = step_timeout(c->st, 10000);
	int rc = wait_for(c->r, c->sel, sget(c->st, "by"), to, false, &met, err);
	if (rc < 0)
		return rc;
	if (!met)
		return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND",
		                     "Check the screen with qa_snapshot; qa_flow_repair proposes a new selector.",
		                     "\"%s\" did not appear within %ld ms", c->sel, to);
	c->summary = sw__asprintf("\"%s\" appeared", c->sel);
	return SW_OK;
}

static int step_clear_overlay(step_call *c, sw_error **err)
{
	runner *r = c->r;
	json_t *snap = snapshot(r, NULL, err);
	if (!snap)
		return SW_EDEVICE;
	bool kb = json_is_true(json_object_get(json_object_get(snap, "keyboard"), "shown"));
	size_t overlays = json_array_size(json_object_get(snap, "overlays"));
	json_decref(snap);
	int rc = SW_OK;
	if (kb) {
		rc = sw_device_hide_keyboard(r->o->device, err);
		json_object_set_new(c->rec, "nothingCleared", json_false());
		c->summary = sw__strdup("hid the keyboard");
	} else if (overlays > 0) {
		rc = act(r, json_pack("{ss,ss,ss}", "action", "press", "key", "back", "observe", "none"), NULL, err);
		json_object_set_new(c->rec, "nothingCleared", json_false());
		c->summary = sw__strdup("dismissed an overlay with BACK");
	} else {
		json_object_set_new(c->rec, "nothingCleared", json_true());
		c->summary = sw__strdup("nothing to clear: no keyboard and no dismissible overlay");
	}
	return rc;
}

/* networkOffline, networkOnline: airplane mode through the device-control concern (restored at the end) */
static int step_network(step_call *c, sw_error **err)
{
	runner *r = c->r;
	char *nout = NULL;
	int rc = sw_devctl_network(r->o->ctx, r->o->session, r->o->device,
	                           !strcmp(c->k, "networkOffline") ? "offline" : "online", &nout, err);
	if (rc < 0)
		return rc;
	json_t *nj = json_loads(nout, 0, NULL);
	sw_free(nout);
	c->summary = sw__asprintf("network %s", json_string_value(json_object_get(nj, "network")));
	json_decref(nj);
	return settle(r, 3000, err);
}

static json_t *run_fixtures(runner *r)
{
	if (!r->fixtures)
		r->fixtures = sw__fixtures_load(r->o->session, r->o->root, r->notes);
	return r->fixtures;
}

static int seed_subst(void *ud, const char *in, char **out, sw_error **err)
{
	return subst(ud, in, out, NULL, err);
}

/* seed: <fixture>: the fixture's seed (flows/seed.c); its cleanup, if any, runs after teardown */
static int step_seed(step_call *c, sw_error **err)
{
	runner *r = c->r;
	const char *name = sget(c->st, "fixture");
	json_t *f = sw__fixture_find(run_fixtures(r), name);
	if (!f)
		return sw__error_set(err, SW_ENOTFOUND, "MISSING_FIXTURE",
		                     "Declare it in .swipium/fixtures.json (or qa_start_session fixtures) with a seed.",
		                     "fixture \"%s\" is not declared in .swipium/fixtures.json or the session", name);
	json_t *seed = json_object_get(f, "seed");
	if (!json_is_object(seed))
		return sw__error_set(err, SW_ENOTFOUND, "MISSING_FIXTURE",
		                     "Add a seed {type: deeplink|script|api, ...} to the fixture.",
		                     "fixture \"%s\" declares no seed", name);
	sw__seed_env env = {r->o->session, r->o->drive, r->o->root, r->o->cancel, seed_subst, r};
	json_t *sum = NULL;
	int rc = sw__seed_run(&env, name, seed, false, &sum, err);
	if (sum)
		json_object_set_new(c->rec, "seed", sum);
	if (rc < 0)
		return rc;
	json_t *cl = json_object_get(seed, "cleanup");
	if (json_is_object(cl)) {
		if (!r->cleanups)
			r->cleanups = json_array();
		json_array_append_new(r->cleanups, json_pack("{s:s,s:O}", "fixture", name, "spec", cl));
	}
	c->summary = sw__asprintf("seeded fixture %s (%s)", name, json_string_value(json_object_get(seed, "type")));
	if (!strcmp(json_string_value(json_object_get(seed, "type")), "deeplink"))
		return settle(r, 3000, err);
	return SW_OK;
}

static int step_note(step_call *c, sw_error **err)
{
	const char *oc = sget(c->st, "outcome"), *why = sget(c->st, "reason");
	c->summary = sw__asprintf("note %s%s%s", oc, why ? ": " : "", why ? why : "");
	if (oc && !strcmp(oc, "fail"))
		return sw__error_set(err, SW_ESTATE, "ASSERTION_FAILED", NULL, "the flow notes a failure: %s",
		                     why ? why : "(no reason)");
	return SW_OK;
}

/* templates, baselines and OCR: run_visual takes the step as written (no ${NAME} in its selector) */
static int step_visual(step_call *c, sw_error **err)
{
	return run_visual(c->r, c->st, c->rec, err);
}

/* Every step kind the runner knows (the parser's list, sw__flow_step_kinds, must be a subset: check-flows). */
static const struct step_kind {
	const char *name;
	int (*fn)(step_call *c, sw_error **err);
} STEPS[] = {
    {"prepareTarget", step_launch},
    {"restartApp", step_launch},
    {"tap", step_tap},
    {"tapAt", step_tap_at},
    {"tapImage", step_visual},
    {"tapOcrText", step_visual},
    {"inputText", step_input_text},
    {"assertVisible", step_assert_visible},
    {"assertNotVisible", step_assert_visible},
    {"assertImage", step_visual},
    {"assertOcrText", step_visual},
    {"assertVisual", step_evidence},
    {"assertDiff", step_visual},
    {"swipe", step_swipe},
    {"scrollTo", step_scroll_to},
    {"press", step_press},
    {"openUrl", step_open_url},
    {"wait", step_wait},
    {"waitForIdle", step_wait_for_idle},
    {"waitForVisible", step_wait_for_visible},
    {"clearOverlay", step_clear_overlay},
    {"networkOffline", step_network},
    {"networkOnline", step_network},
    {"seed", step_seed},
    {"note", step_note},
    {"screenshot", step_evidence},
};

static const struct step_kind *step_kind_find(const char *name)
{
	for (size_t i = 0; name && i < SW_ARRAY_SIZE(STEPS); i++)
		if (!strcmp(name, STEPS[i].name))
			return &STEPS[i];
	return NULL;
}

bool sw__flow_step_runnable(const char *kind)
{
	return step_kind_find(kind) != NULL;
}

static int run_step(runner *r, const json_t *st, json_t *rec, sw_error **err)
{
	step_call c = {.r = r, .st = st, .rec = rec, .k = sget(st, "kind")};
	const struct step_kind *kind = step_kind_find(c.k);
	if (!kind)
		return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", NULL, "step %s is not supported",
		                     c.k ? c.k : "(no kind)");
	if (kind->fn == step_visual)
		return step_visual(&c, err);
	char *sel_owned = NULL, *into_owned = NULL;
	int rc = SW_OK;
	/* selectors may use ${NAME} too (e.g. assertVisible: "Hello, ${SWIPIUM_TEST_EMAIL}") */
	c.sel = sget(st, "selector");
	if (c.sel && strstr(c.sel, "${")) {
		if ((rc = subst(r, c.sel, &sel_owned, NULL, err)) < 0)
			goto out;
		c.sel = sel_owned;
	}
	c.into = sget(st, "into");
	if (c.into && strstr(c.into, "${")) {
		if ((rc = subst(r, c.into, &into_owned, NULL, err)) < 0)
			goto out;
		c.into = into_owned;
	}
	rc = kind->fn(&c, err);
out:
	if (c.summary)
		json_object_set_new(rec, "summary", json_string(c.summary));
	free(c.summary);
	free(c.txt);
	free(sel_owned);
	free(into_owned);
	json_decref(c.res);
	json_decref(c.el);
	return rc;
}

/* ---- the run ---------------------------------------------------------------------- */

static const char *category_for(const char *code, const char **outcome)
{
	*outcome = "fail";
	if (!code)
		return "other";
	if (!strcmp(code, "MISSING_FIXTURE") || !strcmp(code, "MISSING_TEST_DATA")) {
		*outcome = "blocked";
		return "missing_test_data";
	}
	if (!strncmp(code, "CONSENT_", 8) || !strcmp(code, "UNSAFE_ACTION_REFUSED")) {
		*outcome = "blocked";
		return "destructive_refused";
	}
	if (!strcmp(code, "BACKEND_UNSUPPORTED") || !strcmp(code, "CANCELLED")) {
		*outcome = "blocked";
		return "mcp_limitation";
	}
	if (!strcmp(code, "ASSERTION_FAILED"))
		return "app_bug";
	return "other";
}

static bool locator_drift(const char *code)
{
	return code && (!strcmp(code, "ELEMENT_NOT_FOUND") || !strcmp(code, "AMBIGUOUS_SELECTOR") ||
	                !strcmp(code, "STALE_REF"));
}

/* Checks before anything touches the device: paths, sensitive OCR, consent. */
static int preflight(runner *r, sw_error **err)
{
	const char *phases[] = {"setup", "steps", "teardown"};
	bool needs_consent = false;
	for (size_t p = 0; p < 3; p++) {
		size_t i;
		json_t *st;
		json_array_foreach(json_object_get(r->flow, phases[p]), i, st)
		{
			const char *path = sget(st, "template") ? sget(st, "template") : sget(st, "baseline");
			if (path) {
				char *rp = NULL;
				sw_error *e2 = NULL;
				int rc = sget(st, "template") ? sw__flow_confine(r->o->root, path, &rp, &e2)
				                              : sw__flow_baseline_file(r->o->root, path, &rp, &e2);
				free(rp);
				if (rc == SW_EDENIED) {
					sw__error_propagate(err, e2);
					return rc;
				}
				sw_error_free(e2);
			}
			if (sw__flow_step_ocr(st) && r->sensitive)
				return sw__error_set(
				    err, SW_EDENIED, "UNSAFE_ACTION_REFUSED", NULL,
				    "%s step %zu (%s) reads the screen with OCR, which a sensitive session "
				    "refuses",
				    phases[p], i, sget(st, "kind"));
			if (sw__flow_step_ocr(st) || sw__flow_step_mutating(st))
				needs_consent = true;
		}
	}
	/* the fixtures the flow names must exist (unmet: the flow is blocked, not failed) */
	json_t *want = json_object_get(r->flow, "fixtures");
	size_t wi;
	json_t *w;
	json_array_foreach(want, wi, w)
	{
		const char *fname = json_string_value(w);
		if (fname && !sw__fixture_find(run_fixtures(r), fname))
			return sw__error_set(err, SW_ENOTFOUND, "MISSING_FIXTURE",
			                     "Declare it in .swipium/fixtures.json or in qa_start_session fixtures.",
			                     "the flow needs fixture \"%s\", which neither .swipium/fixtures.json nor the "
			                     "session declares; nothing ran",
			                     fname);
	}
	if (needs_consent && !r->o->mutations_approved)
		return sw__error_set(
		    err, SW_EDENIED, "CONSENT_REFUSED",
		    "Approve flow_mutation_run (qa_flow_run consent, or `swipium run --approve "
		    "flow_mutation_run`).",
		    "the flow has mutating or OCR steps and runs only with the flow_mutation_run consent; "
		    "nothing ran");
	return SW_OK;
}

static char *lookup_app(sw_session *s)
{
	char *a = NULL;
	if (!s || sw_session_get_json(s, "appId", &a, NULL) != SW_OK)
		return NULL;
	json_t *j = json_loads(a, JSON_DECODE_ANY, NULL);
	sw_free(a);
	char *out = json_is_string(j) ? sw__strdup(json_string_value(j)) : NULL;
	json_decref(j);
	return out;
}

/* sw_flow_run(); @record: the run's acts go into the session's recorded actions (qa_smoke). */
static int flow_run(const sw_flow_run_options *o, const char *record, char **result_json, sw_error **err)
{
	int rc = SW_OK;
	json_t *flow = NULL, *errors = NULL, *res = NULL, *steps = json_array(), *next = json_array();
	char *path = NULL;
	runner r = {.o = o, .artifacts = json_array(), .notes = json_array(), .record = record};
	if (!o || o->version != SW_FLOW_RUN_OPTIONS_VERSION || !result_json) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "sw_flow_run: options and result are required");
		goto out;
	}
	if (!o->session || !o->drive || !o->device) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Start a session with qa_start_session first.",
		                   "running a flow needs a session bound to a device");
		goto out;
	}
	if (o->variables_json) {
		r.vars = json_loads(o->variables_json, 0, NULL);
		if (!json_is_object(r.vars)) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                   "variables must be an object of strings");
			goto out;
		}
		const char *k;
		json_t *v;
		json_object_foreach(r.vars, k, v) if (!json_is_string(v))
		{
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "variable %s must be a string", k);
			goto out;
		}
	}
	r.red = sw_session_redactor(o->session);
	r.sensitive = sw_session_is_sensitive(o->session);
	/* register secret-named explicit values before anything can echo them */
	const char *vk;
	json_t *vv;
	json_object_foreach(r.vars, vk, vv) if (sw_redact_is_secret_name(vk) && json_string_length(vv) > 0)
	    sw_redactor_add_secret(r.red, json_string_value(vv), NULL);
	if ((rc = sw__flow_load(o->root, o->flow, o->flow_yaml, &flow, &errors, &path, err)) < 0)
		goto out;
	if (json_array_size(errors) > 0) {
		json_t *e0 = json_array_get(errors, 0);
		rc = sw__error_set(err, SW_EINVAL, "INVALID_FLOW", "Run qa_flow_check for every problem.",
		                   "the flow is invalid (%zu problem(s)); first at %lld:%lld: %s",
		                   json_array_size(errors), (long long)json_integer_value(json_object_get(e0, "line")),
		                   (long long)json_integer_value(json_object_get(e0, "column")),
		                   json_string_value(json_object_get(e0, "message")));
		if (err && *err)
			sw__error_take_details(*err, json_pack("{sO}", "errors", errors));
		goto out;
	}
	r.flow = flow;
	const char *fa = json_string_value(json_object_get(flow, "appId"));
	char *session_app = lookup_app(o->session);
	if (fa && !session_app) {
		/* the session's app is the flow's when it had none (reports name it) */
		json_t *a = json_string(fa);
		char *aj = a ? sw__json_compact(a) : NULL;
		if (aj)
			sw_session_set_json(o->session, "appId", aj, NULL);
		free(aj);
		json_decref(a);
	}
	r.app_id = fa ? sw__strdup(fa) : session_app;
	if (fa)
		free(session_app);
	const char *name = json_string_value(json_object_get(flow, "name"));
	int64_t t0 = sw_monotonic_ms();
	const char *failed_phase = NULL, *failed_kind = NULL;
	char *fail_code = NULL, *fail_msg = NULL, *shot = NULL, *stop_reason = NULL;
	long failed_index = -1;
	sw_error *pe = NULL;
	if (preflight(&r, &pe) < 0) {
		fail_code = sw__strdup(sw_error_failure_code(pe));
		fail_msg = sw__strdup(sw_error_message(pe));
		sw_error_free(pe);
	} else {
		const char *phases[] = {"setup", "steps", "teardown"};
		/* the steps run back to back: a step resolves its selector on the screen the previous step settled on */
		if (o->drive)
			sw__drive_trust_settled(o->drive, true);
		for (size_t p = 0; p < 3 && !stop_reason; p++) {
			bool is_teardown = p == 2;
			if (!is_teardown && fail_code)
				continue;
			size_t i;
			json_t *st;
			json_array_foreach(json_object_get(flow, phases[p]), i, st)
			{
				json_t *rec = json_pack("{ss,sI,sO}", "phase", phases[p], "index", (json_int_t)i,
				                        "kind", json_object_get(st, "kind"));
				sw_error *se = NULL;
				int64_t s0 = sw_monotonic_ms();
				/* the session's budget holds inside a flow: a spent budget ends the flow at this step */
				char *why = NULL;
				if (o->session && sw_session_budget_exhausted(o->session, &why) == 1) {
					stop_reason = why ? why : sw__strdup("budget reached");
					why = NULL;
					failed_phase = phases[p];
					failed_index = (long)i;
					failed_kind = json_string_value(json_object_get(st, "kind"));
					json_object_set_new(rec, "ok", json_false());
					json_object_set_new(rec, "durationMs", json_integer(0));
					json_object_set_new(rec, "stopped", json_true());
					json_object_set_new(rec, "reason", json_string(stop_reason));
					json_array_append_new(steps, rec);
					break;
				}
				sw_free(why);
				int src = cancelled(&r) ? sw__error_set(&se, SW_ECANCELLED, "CANCELLED", NULL,
				                                        "the flow run was cancelled")
				                        : run_step(&r, st, rec, &se);
				json_object_set_new(rec, "durationMs", json_integer(sw_monotonic_ms() - s0));
				json_object_set_new(rec, "ok", json_boolean(src == SW_OK));
				if (src < 0) {
					const char *fc =
					    sw_error_failure_code(se) ? sw_error_failure_code(se) : "UNKNOWN";
					json_object_set_new(rec, "failureCode", json_string(fc));
					json_object_set_new(rec, "message", json_string(sw_error_message(se)));
					if (!fail_code) {
						fail_code = sw__strdup(fc);
						fail_msg = sw__strdup(sw_error_message(se));
						failed_phase = phases[p];
						failed_index = (long)i;
						failed_kind = json_string_value(json_object_get(st, "kind"));
						screenshot(&r, "flow failure", &shot);
					}
				}
				sw_error_free(se);
				json_array_append_new(steps, rec);
				if (src < 0 && !is_teardown)
					break; /* fail-fast; teardown still runs every step */
			}
		}
		/* the cleanup seeds of the seeds that ran, last first, whatever happened before */
		for (size_t ci = json_array_size(r.cleanups); ci-- > 0;) {
			json_t *cl = json_array_get(r.cleanups, ci);
			const char *fname = json_string_value(json_object_get(cl, "fixture"));
			json_t *rec = json_pack("{ss,sI,ss,ss}", "phase", "cleanup", "index",
			                        (json_int_t)(json_array_size(r.cleanups) - 1 - ci), "kind", "seed", "fixture",
			                        fname);
			sw__seed_env env = {o->session, o->drive, o->root, o->cancel, seed_subst, &r};
			json_t *sum = NULL;
			sw_error *se = NULL;
			int64_t s0 = sw_monotonic_ms();
			int src = sw__seed_run(&env, fname, json_object_get(cl, "spec"), true, &sum, &se);
			json_object_set_new(rec, "durationMs", json_integer(sw_monotonic_ms() - s0));
			json_object_set_new(rec, "ok", json_boolean(src == SW_OK));
			if (sum)
				json_object_set_new(rec, "seed", sum);
			char *cs = sw__asprintf("cleanup seed of fixture %s", fname);
			if (cs)
				json_object_set_new(rec, "summary", json_string(cs));
			free(cs);
			if (src < 0) {
				const char *fc = sw_error_failure_code(se) ? sw_error_failure_code(se) : "UNKNOWN";
				json_object_set_new(rec, "failureCode", json_string(fc));
				json_object_set_new(rec, "message", json_string(sw_error_message(se)));
				if (!fail_code) {
					fail_code = sw__strdup(fc);
					fail_msg = sw__strdup(sw_error_message(se));
					failed_phase = "cleanup";
					failed_index = (long)(json_array_size(r.cleanups) - 1 - ci);
					failed_kind = "seed";
				}
			}
			sw_error_free(se);
			json_array_append_new(steps, rec);
		}
	}
	if (o->drive)
		sw__drive_trust_settled(o->drive, false);
	const char *outcome = "pass", *category = NULL;
	if (fail_code)
		category = category_for(fail_code, &outcome);
	if (stop_reason && !fail_code) {
		outcome = "blocked";
		category = "other";
	}
	res = json_pack("{ss?,ss,sb}", "name", name, "outcome", outcome, "passed", fail_code == NULL && !stop_reason);
	if (stop_reason) {
		/* a budget stop is not a failure of the app: stopped, the budget's reason, and the step it stopped at */
		json_object_set_new(res, "stopped", json_true());
		json_object_set_new(res, "reason", json_string(stop_reason));
		if (!fail_code) {
			json_object_set_new(res, "failedAtStep", json_integer(failed_index));
			json_object_set_new(res, "failedPhase", json_string(failed_phase));
			json_object_set_new(res, "failedKind", json_string(failed_kind));
			json_object_set_new(res, "message", json_string(stop_reason));
		}
	}
	if (path)
		json_object_set_new(res, "path", json_string(path));
	if (fail_code) {
		if (failed_phase) {
			json_object_set_new(res, "failedAtStep", json_integer(failed_index));
			json_object_set_new(res, "failedPhase", json_string(failed_phase));
			json_object_set_new(res, "failedKind", json_string(failed_kind));
		}
		json_object_set_new(res, "failureCode", json_string(fail_code));
		json_object_set_new(res, "message", json_string(fail_msg ? fail_msg : ""));
		if (shot)
			json_object_set_new(res, "screenshotUri", json_string(shot));
		const char *sid = sw_session_id(o->session);
		if (locator_drift(fail_code) && failed_phase && !strcmp(failed_phase, "steps")) {
			char *hint =
			    sw__asprintf("qa_flow_repair {sessionId: \"%s\", flow: \"%s\", failedStep: %ld} to "
			                 "propose a new selector",
			                 sid, o->flow ? o->flow : name, failed_index);
			json_array_append_new(next, json_string(hint ? hint : "qa_flow_repair"));
			free(hint);
		} else if (!strcmp(fail_code, "MISSING_FIXTURE"))
			json_array_append_new(next, json_string("pass the missing value in variables (or export a "
			                                        "SWIPIUM_* variable) and run the flow again"));
		else if (!strcmp(fail_code, "CONSENT_REFUSED"))
			json_array_append_new(next,
			                      json_string("approve flow_mutation_run to run mutating or OCR steps"));
		else
			json_array_append_new(next,
			                      json_string("qa_snapshot to see the screen where the flow stopped"));
	}
	if (fail_code && !strcmp(fail_code, "SEED_FAILED"))
		json_array_append_new(next, json_string("fix the fixture's seed (or the service or program it calls) and "
		                                        "run the flow again; nothing the seed printed was kept"));
	if (json_array_size(r.notes))
		json_object_set(res, "notes", r.notes);
	json_object_set_new(res, "steps", json_incref(steps));
	json_object_set_new(res, "nextSteps", json_incref(next));
	json_object_set_new(res, "durationMs", json_integer(sw_monotonic_ms() - t0));

	/* one test outcome per flow run */
	json_t *note = json_pack("{ss,ss,ss}", "workflow", name && name[0] ? name : "flow", "outcome", outcome,
	                         "method", "structured");
	if (category)
		json_object_set_new(note, "category", json_string(category));
	if (fail_code) {
		char *reason = failed_phase
		                   ? sw__asprintf("%s step %ld (%s) failed: %s: %s", failed_phase, failed_index,
		                                  failed_kind, fail_code, fail_msg ? fail_msg : "")
		                   : sw__asprintf("%s: %s", fail_code, fail_msg ? fail_msg : "");
		json_object_set_new(note, "reason", json_string(reason ? reason : fail_code));
		free(reason);
	} else if (stop_reason) {
		char *reason = sw__asprintf("stopped before %s step %ld (%s): %s", failed_phase, failed_index, failed_kind,
		                            stop_reason);
		json_object_set_new(note, "reason", json_string(reason ? reason : stop_reason));
		free(reason);
	} else {
		json_object_set_new(note, "evidenceKind", json_string("structured_locator"));
	}
	if (json_array_size(r.artifacts))
		json_object_set(note, "artifactUris", r.artifacts);
	json_t *nsteps = json_array();
	size_t i;
	json_t *s;
	json_array_foreach(steps, i, s)
	{
		json_t *c = json_pack("{sO,sO,sO,sO,sO}", "index", json_object_get(s, "index"), "phase",
		                      json_object_get(s, "phase"), "kind", json_object_get(s, "kind"), "ok",
		                      json_object_get(s, "ok"), "durationMs", json_object_get(s, "durationMs"));
		if (json_object_get(s, "summary"))
			json_object_set(c, "summary", json_object_get(s, "summary"));
		if (json_object_get(s, "failureCode"))
			json_object_set(c, "failureCode", json_object_get(s, "failureCode"));
		json_array_append_new(nsteps, c);
	}
	json_object_set_new(note, "steps", nsteps);
	char *nj = sw__json_compact(note);
	json_decref(note);
	if (nj)
		sw_session_add_note(o->session, nj, NULL);
	free(nj);
	if (fail_code && strcmp(fail_code, "MISSING_FIXTURE") != 0 && strncmp(fail_code, "CONSENT_", 8) != 0 &&
	    strcmp(fail_code, "CANCELLED") != 0 && strcmp(fail_code, "ASSERTION_FAILED") != 0)
		sw_session_add_tool_error(o->session, "qa_flow_run", fail_code, fail_msg, NULL);
	sw_session_flush(o->session, NULL);
	free(fail_code);
	free(fail_msg);
	free(stop_reason);
	free(shot);

	char *raw = sw__json_compact(res), *red = NULL;
	if (!raw) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (r.red && sw_redactor_count(r.red) > 0 && sw_redactor_redact_json(r.red, raw, &red, NULL) == SW_OK) {
		free(raw);
		raw = red;
	}
	*result_json = raw;
out:
	json_decref(flow);
	json_decref(errors);
	json_decref(res);
	json_decref(steps);
	json_decref(next);
	json_decref(r.vars);
	json_decref(r.artifacts);
	json_decref(r.fixtures);
	json_decref(r.cleanups);
	json_decref(r.notes);
	free(r.app_id);
	free(path);
	return rc;
}

/* ---- plan ------------------------------------------------------------------------------ */

static const char *const BACKENDS[] = {"android-direct", "ios-raw-simulator", "ios-wda", "appium-uiautomator2",
                                       "appium-xcuitest"};

static const char *support(const char *backend, const json_t *st)
{
	const char *k = sget(st, "kind");
	const char *sel = sget(st, "selector") ? sget(st, "selector") : sget(st, "into");
	bool android = strstr(backend, "android") || strstr(backend, "uiautomator2");
	bool raw_ios = !strcmp(backend, "ios-raw-simulator");
	if (sw__flow_step_visual(st))
		return "visual_only"; /* screenshots + template matching / OCR on every backend */
	if (!strcmp(k, "networkOffline") || !strcmp(k, "networkOnline"))
		return android ? "native" : "unsupported"; /* airplane mode: Android only */
	if (!strcmp(k, "seed"))
		return "native"; /* seeds run on the host (programs, HTTP) or open a deep link: every backend */
	if (!strcmp(k, "assertVisual") || !strcmp(k, "screenshot") || !strcmp(k, "note") || !strcmp(k, "wait"))
		return sel && raw_ios ? "visual_only" : "native";
	if (!strcmp(k, "tapAt") || !strcmp(k, "swipe") || !strcmp(k, "openUrl"))
		return "native";
	if (sel) {
		if (raw_ios)
			return "visual_only";
		const char *by = sget(st, "by");
		bool ios_native = is_native_ios(sel) || (by && !strcmp(by, "accessibility id"));
		bool android_id = sw__str_has_prefix(sel, "id=") || (by && !strcmp(by, "id"));
		if (android && ios_native)
			return "unsupported";
		if (!android && android_id)
			return "fallback";
		return "native";
	}
	if (raw_ios && (!strcmp(k, "clearOverlay") || !strcmp(k, "inputText")))
		return "visual_only";
	return "native";
}

SW_API int sw_flow_plan(const char *options_json, char **result_json, sw_error **err)
{
	return sw__flow_plan_for(options_json, NULL, result_json, err);
}

int sw__flow_plan_for(const char *options_json, sw_session *session, char **result_json, sw_error **err)
{
	int rc = SW_OK;
	json_t *opts = NULL, *flow = NULL, *errors = NULL, *res = NULL;
	char *path = NULL;
	if (!options_json || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options and result must not be NULL");
	if ((rc = sw__flow_load_options(options_json, &opts, &flow, &errors, &path, err)) < 0)
		goto out;
	const char *only = json_string_value(json_object_get(opts, "backend"));
	if (json_array_size(errors) > 0) {
		json_t *e0 = json_array_get(errors, 0);
		rc = sw__error_set(err, SW_EINVAL, "INVALID_FLOW", "Run qa_flow_check for every problem.",
		                   "the flow is invalid; first problem at %lld:%lld: %s",
		                   (long long)json_integer_value(json_object_get(e0, "line")),
		                   (long long)json_integer_value(json_object_get(e0, "column")),
		                   json_string_value(json_object_get(e0, "message")));
		goto out;
	}
	json_t *steps = json_array(), *backends = json_object(), *vars = json_array(), *cmds = json_array(),
	       *affects = json_array();
	bool consent = false, script_seed = false;
	size_t repo_lines = 0;
	json_t *fixtures = NULL; /* read at the first seed step: what each seed runs goes in the prompt */
	for (size_t b = 0; b < SW_ARRAY_SIZE(BACKENDS); b++)
		if (!only || !strcmp(only, BACKENDS[b]))
			json_object_set_new(backends, BACKENDS[b], json_array());
	const char *phases[] = {"setup", "steps", "teardown"};
	for (size_t p = 0; p < 3; p++) {
		size_t i;
		json_t *st;
		json_array_foreach(json_object_get(flow, phases[p]), i, st)
		{
			json_array_append_new(steps, json_pack("{ss,sI,sO,sO}", "phase", phases[p], "index",
			                                       (json_int_t)i, "kind", json_object_get(st, "kind"),
			                                       "line", json_object_get(st, "line")));
			sw__flow_step_variables(st, vars);
			const char *bk;
			json_t *arr;
			json_object_foreach(backends, bk, arr) json_array_append_new(
			    arr, json_pack("{ss,sI,sO,ss}", "phase", phases[p], "index", (json_int_t)i, "kind",
			                   json_object_get(st, "kind"), "support", support(bk, st)));
			if (sw__flow_step_mutating(st) || sw__flow_step_ocr(st)) {
				consent = true;
				const char *k = sget(st, "kind");
				char *line = NULL;
				if (!strcmp(k, "openUrl")) {
					line =
					    sw__asprintf("open URL (repo-supplied, unreviewed): %s", sget(st, "url"));
					json_array_append_new(
					    affects, json_pack("{ss,ss}", "kind", "url", "value", sget(st, "url")));
				} else if (!strcmp(k, "seed")) {
					if (!fixtures)
						fixtures = sw__fixtures_load(session,
						                             json_string_value(json_object_get(opts, "root")), NULL);
					json_t *aff = NULL;
					sw__seed_describe(fixtures, sget(st, "fixture"), &line, &aff, &script_seed);
					if (aff) {
						json_object_set_new(aff, "value", json_string(sget(st, "fixture")));
						json_array_append_new(affects, aff);
					}
				} else {
					line = sw__asprintf("%s step %zu: %s", phases[p], i, k);
					json_array_append_new(affects,
					                      json_pack("{ss,ss}", "kind", "step", "value", k));
				}
				/* repository-supplied values (URLs, fixtures) go first, where a prompt shows them */
				bool from_repo = !strcmp(k, "openUrl") || !strcmp(k, "seed");
				if (line && from_repo)
					json_array_insert_new(cmds, repo_lines++, json_string(line));
				else if (line)
					json_array_append_new(cmds, json_string(line));
				free(line);
			}
		}
	}
	json_decref(fixtures);
	res = json_pack("{sO,sO,so,so,so}", "name", json_object_get(flow, "name"), "mode",
	                json_object_get(flow, "mode"), "steps", steps, "backends", backends, "variables", vars);
	json_t *c = json_pack("{sb,ss,ss}", "required", consent, "action", "flow_mutation_run", "risk",
	                      script_seed ? "high" : "medium");
	json_object_set_new(c, "explain",
	                    json_string(consent
	                                    ? "The flow changes device or app state (or reads the screen with OCR); "
	                                      "these steps come from the repository and were not reviewed."
	                                    : "The flow has no mutating or OCR steps; no consent is needed."));
	json_object_set_new(c, "exactCommand", cmds);
	if (repo_lines > 4) /* a prompt shows 4 steps: more repository values would go unseen */
		json_object_set_new(c, "showEveryStep", json_true());
	json_object_set_new(c, "affects", affects);
	json_object_set_new(res, "consent", c);
	if (path)
		json_object_set_new(res, "path", json_string(path));
	*result_json = sw__json_compact(res);
	if (!*result_json)
		rc = sw__error_nomem(err);
out:
	json_decref(opts);
	json_decref(flow);
	json_decref(errors);
	json_decref(res);
	free(path);
	return rc;
}

/* ---- every saved flow (qa_smoke) ------------------------------------------------------------ */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void smoke_note(sw_session *s, const char *workflow, const char *outcome, const char *category,
                       const char *reason)
{
	json_t *n = json_pack("{ss,ss,ss,ss}", "workflow", workflow, "outcome", outcome, "category", category, "reason",
	                      reason);
	char *nj = sw__json_compact(n);
	json_decref(n);
	if (nj)
		sw_session_add_note(s, nj, NULL);
	free(nj);
}

SW_API int sw_flow_run(const sw_flow_run_options *o, char **result_json, sw_error **err)
{
	return flow_run(o, NULL, result_json, err);
}

SW_API int sw_flow_run_recorded(const sw_flow_run_options *o, const char *tool, char **result_json, sw_error **err)
{
	return flow_run(o, tool && *tool ? tool : "qa_flow_run", result_json, err);
}

SW_API int sw_flow_run_saved(const sw_flow_run_options *o, char **result_json, sw_error **err)
{
	if (!o || o->version != SW_FLOW_RUN_OPTIONS_VERSION || !o->root || !o->session || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_flow_run_saved: options with a root and a session are required");
	char *dir = sw__asprintf("%s/.swipium/flows", o->root);
	if (!dir)
		return sw__error_nomem(err);
	json_t *list = json_array(), *res = NULL;
	char **names = NULL;
	size_t n = 0, cap = 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' ||
		    !(sw__str_has_suffix(de->d_name, ".yaml") || sw__str_has_suffix(de->d_name, ".yml")))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **nn = realloc(names, nc * sizeof(*nn));
			if (!nn)
				break;
			names = nn;
			cap = nc;
		}
		names[n] = sw__strndup(de->d_name, l);
		if (names[n])
			n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	size_t passed = 0, failed = 0, blocked = 0;
	for (size_t i = 0; i < n; i++) {
		const char *flow = names[i];
		json_t *entry = json_pack("{ss}", "flow", flow);
		json_t *po = json_pack("{ss,ss}", "root", o->root, "flow", flow);
		char *poj = sw__json_compact(po), *plan = NULL;
		json_decref(po);
		sw_error *pe = NULL;
		int prc = poj ? sw_flow_plan(poj, &plan, &pe) : SW_ENOMEM;
		free(poj);
		json_t *pj = prc == SW_OK ? json_loads(plan, 0, NULL) : NULL;
		sw_free(plan);
		if (prc != SW_OK) {
			/* an invalid or unsafe flow file fails visibly instead of silently skipping */
			const char *code = pe && sw_error_failure_code(pe) ? sw_error_failure_code(pe) : "INVALID_FLOW";
			char *reason = sw__asprintf("%s: %s", code, pe ? sw_error_message(pe) : "cannot be read");
			smoke_note(o->session, flow, "fail", "other", reason ? reason : code);
			json_object_set_new(entry, "outcome", json_string("fail"));
			json_object_set_new(entry, "failureCode", json_string(code));
			free(reason);
			failed++;
		} else if (json_is_true(json_object_get(json_object_get(pj, "consent"), "required"))) {
			const char *name = json_string_value(json_object_get(pj, "name"));
			char *reason =
			    sw__asprintf("flow \"%s\" has mutating or OCR steps and never runs implicitly; run it "
			                 "with qa_flow_run {flow: \"%s\"} and approve flow_mutation_run",
			                 name ? name : flow, flow);
			smoke_note(o->session, name && name[0] ? name : flow, "blocked", "destructive_refused",
			           reason ? reason : "mutating flow");
			json_object_set_new(entry, "name", json_string(name ? name : ""));
			json_object_set_new(entry, "outcome", json_string("blocked"));
			json_object_set_new(entry, "category", json_string("destructive_refused"));
			json_object_set_new(entry, "next", json_pack("s+", "qa_flow_run {flow: \"", flow, "\"}"));
			free(reason);
			blocked++;
		} else {
			sw_flow_run_options ro = *o;
			ro.flow = flow;
			ro.flow_yaml = NULL;
			ro.mutations_approved = 0;
			char *out = NULL;
			sw_error *re = NULL;
			if (flow_run(&ro, "qa_smoke", &out, &re) == SW_OK) {
				json_t *r = json_loads(out, 0, NULL);
				const char *keys[] = {"name", "outcome", "failureCode", "failedAtStep", "failedPhase"};
				for (size_t k = 0; k < SW_ARRAY_SIZE(keys); k++)
					if (json_object_get(r, keys[k]))
						json_object_set(entry, keys[k], json_object_get(r, keys[k]));
				const char *oc = json_string_value(json_object_get(r, "outcome"));
				if (oc && !strcmp(oc, "pass"))
					passed++;
				else if (oc && !strcmp(oc, "blocked"))
					blocked++;
				else
					failed++;
				json_decref(r);
			} else {
				json_object_set_new(entry, "outcome", json_string("fail"));
				json_object_set_new(entry, "failureCode", json_string(sw_error_failure_code(re)));
				failed++;
			}
			sw_free(out);
			sw_error_free(re);
		}
		sw_error_free(pe);
		json_decref(pj);
		json_array_append_new(list, entry);
		if (cancelled(&(runner){.o = o}))
			break;
	}
	res = json_pack("{sO,si,si,si}", "flows", list, "passed", (int)passed, "failed", (int)failed, "blocked",
	                (int)blocked);
	char *raw = sw__json_compact(res), *red = NULL;
	sw_redactor *rd = sw_session_redactor(o->session);
	if (raw && rd && sw_redactor_count(rd) > 0 && sw_redactor_redact_json(rd, raw, &red, NULL) == SW_OK) {
		free(raw);
		raw = red;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(dir);
	json_decref(list);
	json_decref(res);
	if (!raw)
		return sw__error_nomem(err);
	*result_json = raw;
	return SW_OK;
}
