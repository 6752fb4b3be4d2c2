/* visual.c: qa_visual (drive group): assert, baseline, diff, find_image and find_text from screenshots of the bound
 * device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mcp.h"

/* Saves @png as a screenshot-kind artifact named "<prefix>-NNN.png" (the next number never used); returns its URI. */
static char *save_png(mcp_call *call, sw_session *s, const char *prefix, const unsigned char *png, size_t len,
                      const char *label)
{
	char *name = NULL;
	char *meta = NULL;
	sw_error *err = NULL;
	int rc = sw_artifact_next_name(s, "screenshot", prefix, ".png", &name, &err);
	if (rc == SW_OK)
		rc = sw_artifact_save(s, "screenshot", name, "image/png", png, len, label, &meta, &err);
	sw_free(name);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return NULL;
	}
	json_t *m = json_loads(meta, 0, NULL);
	sw_free(meta);
	const char *uri = json_string_value(json_object_get(m, "uri"));
	char *copy = uri ? strdup(uri) : NULL;
	json_decref(m);
	if (!copy)
		mcp_fail(call, "UNKNOWN", "The artifact was saved without a URI.", NULL);
	return copy;
}

/* The device point of a screenshot pixel: Android reports device pixels (scale = screenshot px per device px). */
static json_t *device_point(json_t *space, int x, int y)
{
	double scale = json_number_value(json_object_get(space, "scale"));
	if (scale <= 0)
		scale = 1;
	return json_pack("{sisi}", "x", (int)(x / scale + 0.5), "y", (int)(y / scale + 0.5));
}

static json_t *device_box(json_t *space, json_t *box)
{
	double scale = json_number_value(json_object_get(space, "scale"));
	if (scale <= 0)
		scale = 1;
	return json_pack("{sisisisi}", "x", (int)(json_integer_value(json_object_get(box, "x")) / scale + 0.5), "y",
	                 (int)(json_integer_value(json_object_get(box, "y")) / scale + 0.5), "width",
	                 (int)(json_integer_value(json_object_get(box, "width")) / scale + 0.5), "height",
	                 (int)(json_integer_value(json_object_get(box, "height")) / scale + 0.5));
}

/* tap:true on a match: one coordinate tap through the driver, recorded and budgeted as an action. */
static void maybe_tap(sw_session *s, sw_drive *b, json_t *args, json_t *res, json_t *point)
{
	if (!json_is_true(json_object_get(args, "tap")))
		return;
	if (!json_is_true(json_object_get(res, "found"))) {
		json_object_set_new(res, "tapped", json_false());
		return;
	}
	char *reason = NULL;
	if (sw_session_budget_exhausted(s, &reason) == 1) {
		json_object_set_new(res, "tapped", json_false());
		json_object_set_new(res, "tapSkipped", json_string(reason ? reason : "budget reached"));
		sw_free(reason);
		return;
	}
	sw_free(reason);
	/* recorded as a qa_visual action and counted by the library */
	json_t *rec = json_pack("{sssOsO}", "tool", "qa_visual", "mode", json_object_get(args, "mode"), "tapAt", point);
	char *rj = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
	json_decref(rec);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = rj ? sw_drive_tap_point(b, (int)json_integer_value(json_object_get(point, "x")),
	                                 (int)json_integer_value(json_object_get(point, "y")), rj, &out, &err)
	            : SW_ENOMEM;
	free(rj);
	if (rc != SW_OK) {
		json_object_set_new(res, "tapped", json_false());
		json_object_set_new(res, "tapError", json_string(err ? sw_error_message(err) : "tap failed"));
	} else {
		json_object_set_new(res, "tapped", json_true());
	}
	sw_error_free(err);
	sw_free(out);
}

/* Logs a failed visual assertion as an app_bug issue, as qa_note does for a failure without category. */
static void log_issue(sw_session *s, const char *assertion, const char *reason, const char *uri, json_t *out)
{
	char *title = NULL;
	if (asprintf(&title, "%s%s%s", assertion, reason ? ": " : "", reason ? reason : "") < 0)
		return;
	json_t *req =
	    json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:[s]}", "mode", "log", "title", title, "category", "app_bug",
	              "severity", "medium", "sessionId", sw_session_id(s), "source", "qa_visual", "evidenceUris", uri);
	free(title);
	char *text = req ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	char *result = NULL;
	if (text && sw_issues_run(sw_session_root(s), text, sw_session_redactor(s), &result, NULL) == SW_OK) {
		json_t *r = json_loads(result, 0, NULL);
		json_object_set(out, "issueId", json_object_get(json_object_get(r, "issue"), "issueId"));
		json_decref(r);
	}
	sw_free(result);
	free(text);
}

static const char *str(json_t *args, const char *key)
{
	const char *v = json_string_value(json_object_get(args, key));
	return v && *v ? v : NULL;
}

/* Reads the find_image template: an in-root file, or a swipium:// artifact of a session of the same project. */
static sw_image *load_template(mcp_call *call, sw_session *s, const char *templ)
{
	sw_error *err = NULL;
	sw_image *img = NULL;
	if (!strncmp(templ, "swipium://", 10)) {
		char sid[64] = "";
		if (sscanf(templ, "swipium://session/%63[^/]/", sid) != 1) {
			mcp_fail(call, "VISUAL_PATH_REFUSED",
			         "Only swipium://session/<id>/... artifacts can be templates.", NULL);
			return NULL;
		}
		sw_session *other = NULL;
		sw_store *store = mcp_call_store(call);
		if (!store)
			return NULL;
		if (sw_store_get_session(store, sid, &other, NULL) != SW_OK || !other ||
		    strcmp(sw_session_root(other), sw_session_root(s)) != 0) {
			mcp_fail(call, "VISUAL_PATH_REFUSED",
			         "The template artifact belongs to another project (or no session).", NULL);
			return NULL;
		}
		char *data = NULL, *meta = NULL;
		size_t len = 0;
		if (sw_artifact_read(store, templ, 0, &data, &len, &meta, &err) != SW_OK) {
			mcp_fail_err(call, err);
			sw_error_free(err);
			return NULL;
		}
		sw_free(meta);
		if (!data) {
			mcp_fail(call, "INVALID_ARGUMENT", "The template artifact is too large to read.", NULL);
			return NULL;
		}
		int rc = sw_image_decode(data, len, &img, &err);
		sw_free(data);
		if (rc != SW_OK) {
			mcp_fail_err(call, err);
			sw_error_free(err);
			return NULL;
		}
		return img;
	}
	char *real = NULL;
	if (sw_visual_resolve_path(sw_session_root(s), templ, &real, &err) != SW_OK ||
	    sw_image_load(real, &img, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		sw_free(real);
		return NULL;
	}
	sw_free(real);
	return img;
}

/*
 * find_text's gate: the providers must be configured and the ocr_run consent given. Returns 0 to go on;
 * -1 when the call was answered. @ocr and @mask receive the provider descriptions (transfer full).
 */
static int ocr_gate(mcp_call *call, sw_session *s, json_t *args)
{
	char *ocr_text = NULL, *mask_text = NULL;
	sw_error *err = NULL;
	const char *root = sw_session_root(s);
	if (sw_visual_provider(root, "ocr", &ocr_text, &err) != SW_OK ||
	    sw_visual_provider(root, "mask", &mask_text, &err) != SW_OK) {
		sw_free(ocr_text);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return -1;
	}
	json_t *ocr = json_loads(ocr_text, 0, NULL), *mask = json_loads(mask_text, 0, NULL);
	sw_free(ocr_text);
	sw_free(mask_text);
	int ret = -1;
	if (!json_is_true(json_object_get(ocr, "configured"))) {
		json_t *extra = json_pack("{s{sss[sss]ss}}", "exampleProvider", "script", ".swipium/ocr_tesseract.py",
		                          "ocrCommand", "python3", ".swipium/ocr_tesseract.py", "{image}", "recipe",
		                          "examples/ocr/tesseract-ocr.py wraps Debian's tesseract-ocr; copy it to "
		                          ".swipium/ocr_tesseract.py");
		mcp_fail(call, "OCR_NOT_CONFIGURED", "No OCR provider is configured.", extra);
		mcp_fail_step(call, "set \"ocrCommand\": [\"python3\", \".swipium/ocr_tesseract.py\", \"{image}\"] in "
		                    ".swipium/config.json, or SWIPIUM_OCR_CMD for the server");
		goto out;
	}
	/* the argv lists go to the consent gate whole: it quotes every argument and refuses a prompt that
	 * could not show them all (never cut here, the origin never appended after a cut) */
	json_t *affects = json_object(), *commands = json_array();
	if (json_is_true(json_object_get(mask, "configured"))) {
		json_array_append_new(commands, json_pack("{s:s,s:O,s:O}", "label", "mask", "argv",
		                                          json_object_get(mask, "argv"), "origin",
		                                          json_object_get(mask, "origin")));
		json_object_set(affects, "maskArgv", json_object_get(mask, "argv"));
	}
	json_array_append_new(commands, json_pack("{s:s,s:O,s:O}", "label", "ocr", "argv", json_object_get(ocr, "argv"),
	                                          "origin", json_object_get(ocr, "origin")));
	json_object_set(affects, "ocrArgv", json_object_get(ocr, "argv"));
	json_object_set(affects, "origin", json_object_get(ocr, "origin"));
	struct mcp_consent_request req = {
	    .action = "ocr_run",
	    .risk = "medium",
	    .explain = "Run the configured OCR provider (a program on this machine) on a screenshot of the device to "
	               "find text.",
	    .commands = commands,
	    .affects = affects,
	    .session = s,
	};
	enum mcp_consent_outcome oc = mcp_call_consent_take(call, args, &req);
	if (oc == MCP_CONSENT_APPROVED)
		ret = 0;
out:
	json_decref(ocr);
	json_decref(mask);
	return ret;
}

static void qa_visual(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *mode = json_string_value(json_object_get(args, "mode"));
	static const char *const need[][2] = {{"assert", "assertion"},
	                                      {"baseline", "name"},
	                                      {"diff", "name"},
	                                      {"find_text", "query"},
	                                      {"find_image", "template"}};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!strcmp(mode, need[i][0]) && !str(args, need[i][1])) {
			char what[160];
			sw_text_snprintf(what, sizeof(what), "mode \"%s\" needs a non-empty \"%s\".", mode, need[i][1]);
			mcp_fail(call, "INVALID_ARGUMENT", what, NULL);
			return;
		}
	if (sw_session_is_sensitive(s)) {
		mcp_fail(call, "SENSITIVE_MODE_REFUSED", "This session is sensitive: screen captures are refused.",
		         NULL);
		return;
	}
	if (mcp_budget_stopped(call, s))
		return;
	const char *root = sw_session_root(s);
	const char *name = str(args, "name");
	char *baseline_path = NULL;
	sw_image *templ = NULL, *screen = NULL, *base = NULL, *pic = NULL;
	unsigned char *png = NULL, *dpng = NULL;
	size_t len = 0, dlen = 0;
	char *meta = NULL, *out = NULL, *uri = NULL, *duri = NULL;
	json_t *m = NULL, *res = NULL;
	sw_error *err = NULL;
	char summary[700];
	if (name) {
		if (sw_visual_baseline_path(root, name, !strcmp(mode, "baseline"), &baseline_path, &err) != SW_OK)
			goto fail_err;
		if (!strcmp(mode, "diff") && access(baseline_path, F_OK) != 0) {
			mcp_fail(call, "INVALID_ARGUMENT", "There is no baseline with this name yet.", NULL);
			mcp_fail_step(
			    call,
			    "qa_visual {sessionId: \"%s\", mode: \"baseline\", name: \"%s\"} on the expected screen",
			    sw_session_id(s), name);
			goto out;
		}
	}
	if (!strcmp(mode, "find_image") && !(templ = load_template(call, s, str(args, "template"))))
		goto out;
	if (!strcmp(mode, "find_text") && ocr_gate(call, s, args) != 0)
		goto out;
	sw_drive *b = mcp_drive_get(call, s);
	if (!b)
		goto out;
	sw_drive_set_abort(b, mcp_call_abort, call);
	int rc = sw_drive_screenshot(b, json_is_true(json_object_get(args, "force")), &png, &len, &meta, &err);
	sw_drive_set_abort(b, NULL, NULL);
	if (rc != SW_OK)
		goto fail_err;
	sw_session_counter_add(s, "screenshots", 1, NULL);
	m = json_loads(meta, 0, NULL);
	json_t *space = json_object_get(m, "coordinateSpace");
	res = json_pack("{ss}", "mode", mode);
	json_object_set(res, "coordinateSpace", space);
	json_object_set(res, "secureFieldCheck", json_object_get(m, "secureFieldCheck"));
	if (json_object_get(m, "sensitiveForced"))
		json_object_set(res, "sensitiveForced", json_object_get(m, "sensitiveForced"));
	if (json_object_get(m, "warnings"))
		json_object_set(res, "warnings", json_object_get(m, "warnings"));
	const char *label = str(args, "reason");

	if (!strcmp(mode, "assert")) {
		const char *assertion = str(args, "assertion");
		bool pass = !json_is_false(json_object_get(args, "pass"));
		if (!(uri = save_png(call, s, "visual-assert", png, len, label ? label : assertion)))
			goto out;
		json_t *note = json_pack("{sssss[s]sb}", "workflow", assertion, "outcome", pass ? "pass" : "fail",
		                         "artifactUris", uri, "verifiedVisually", 1);
		if (label)
			json_object_set_new(note, "reason", json_string(label));
		if (!pass)
			json_object_set_new(note, "category", json_string("app_bug"));
		char *nj = json_dumps(note, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(note);
		rc = nj ? sw_session_add_note(s, nj, &err) : SW_ENOMEM;
		free(nj);
		if (rc != SW_OK)
			goto fail_err;
		/* the recording: a manual visual checkpoint for qa_generate */
		(void)sw_session_record_checkpoint(s, assertion, uri, pass, NULL);
		json_object_set_new(res, "assertion", json_string(assertion));
		json_object_set_new(res, "pass", json_boolean(pass));
		json_object_set_new(res, "screenshotUri", json_string(uri));
		json_object_set_new(res, "verifiedVisually", json_true());
		if (!pass)
			log_issue(s, assertion, label, uri, res);
		sw_text_snprintf(summary, sizeof(summary), "Visual assertion recorded as %s: \"%s\" (%s).",
		                 pass ? "pass" : "fail", mcp_cap(call, assertion, 200), uri);
	} else if (!strcmp(mode, "baseline")) {
		bool replaced = access(baseline_path, F_OK) == 0;
		if (sw_project_write_file(root, baseline_path, png, len, 0, &err) != SW_OK)
			goto fail_err;
		char lab[120];
		sw_text_snprintf(lab, sizeof(lab), "baseline %s", name);
		if (!(uri = save_png(call, s, "visual-baseline", png, len, label ? label : lab)))
			goto out;
		char rel[100];
		snprintf(rel, sizeof(rel), ".swipium/baselines/%s.png", name);
		json_object_set_new(res, "name", json_string(name));
		json_object_set_new(res, "baselinePath", json_string(rel));
		json_object_set_new(res, "replaced", json_boolean(replaced));
		json_object_set_new(res, "uri", json_string(uri));
		json_object_set(res, "width", json_object_get(m, "width"));
		json_object_set(res, "height", json_object_get(m, "height"));
		sw_text_snprintf(summary, sizeof(summary), "Baseline \"%s\" %s: %s (%lldx%lld).", name,
		         replaced ? "replaced" : "saved", rel,
		         (long long)json_integer_value(json_object_get(m, "width")),
		         (long long)json_integer_value(json_object_get(m, "height")));
	} else if (!strcmp(mode, "diff")) {
		if (sw_image_load(baseline_path, &base, &err) != SW_OK ||
		    sw_image_decode(png, len, &screen, &err) != SW_OK)
			goto fail_err;
		json_t *o = json_object();
		if (json_is_number(json_object_get(args, "threshold")))
			json_object_set(o, "threshold", json_object_get(args, "threshold"));
		char *oj = json_dumps(o, JSON_COMPACT);
		json_decref(o);
		rc = sw_visual_diff(base, screen, oj, &out, &pic, &err);
		free(oj);
		if (rc != SW_OK)
			goto fail_err;
		json_t *d = json_loads(out, 0, NULL);
		char prefix[100];
		snprintf(prefix, sizeof(prefix), "visual-%s-current", name);
		if (!(uri = save_png(call, s, prefix, png, len, label)))
			goto out;
		if (pic) {
			if (sw_image_encode(pic, &dpng, &dlen, &err) != SW_OK) {
				json_decref(d);
				goto fail_err;
			}
			char lab[120];
			sw_text_snprintf(lab, sizeof(lab), "diff against baseline %s", name);
			snprintf(prefix, sizeof(prefix), "visual-%s-diff", name);
			if (!(duri = save_png(call, s, prefix, dpng, dlen, lab))) {
				json_decref(d);
				goto out;
			}
		}
		json_object_set_new(res, "name", json_string(name));
		json_object_update(res, d);
		json_t *box = json_object_get(d, "changedBox");
		if (json_is_object(box))
			json_object_set_new(res, "changedBox",
			                    json_pack("{sOso}", "screenshot", box, "device", device_box(space, box)));
		json_t *regions = json_object_get(d, "regions");
		json_object_set_new(res, "currentUri", json_string(uri));
		json_object_set_new(res, "diffUri", duri ? json_string(duri) : json_null());
		json_object_set_new(res, "evidence", duri ? json_pack("[ss]", uri, duri) : json_pack("[s]", uri));
		char rel[100];
		snprintf(rel, sizeof(rel), ".swipium/baselines/%s.png", name);
		json_object_set_new(res, "baselinePath", json_string(rel));
		if (json_is_true(json_object_get(d, "sizeMismatch")))
			snprintf(
			    summary, sizeof(summary),
			    "Diff against \"%s\": FAIL, the screen is %lldx%lld but the baseline is %lldx%lld "
			    "(sizeMismatch).",
			    name,
			    (long long)json_integer_value(json_object_get(json_object_get(d, "current"), "width")),
			    (long long)json_integer_value(json_object_get(json_object_get(d, "current"), "height")),
			    (long long)json_integer_value(json_object_get(json_object_get(d, "baseline"), "width")),
			    (long long)json_integer_value(json_object_get(json_object_get(d, "baseline"), "height")));
		else
			sw_text_snprintf(summary, sizeof(summary),
			         "Diff against \"%s\": %s, %.2f%% of pixels changed (threshold %.2f%%), %zu "
			         "region(s); diff image %s",
			         name, json_is_true(json_object_get(d, "pass")) ? "pass" : "FAIL",
			         json_number_value(json_object_get(d, "changedRatio")) * 100,
			         json_number_value(json_object_get(d, "threshold")) * 100, json_array_size(regions),
			         duri ? duri : "(none)");
		json_decref(d);
	} else if (!strcmp(mode, "find_image")) {
		if (sw_image_decode(png, len, &screen, &err) != SW_OK)
			goto fail_err;
		json_t *o = json_object();
		if (json_is_number(json_object_get(args, "minScore")))
			json_object_set(o, "minScore", json_object_get(args, "minScore"));
		char *oj = json_dumps(o, JSON_COMPACT);
		json_decref(o);
		rc = sw_visual_find_image(screen, templ, oj, &out, &err);
		free(oj);
		if (rc != SW_OK)
			goto fail_err;
		if (!(uri = save_png(call, s, "visual-find-image", png, len, label)))
			goto out;
		json_t *d = json_loads(out, 0, NULL);
		json_object_update(res, d);
		json_decref(d);
		json_t *c = json_object_get(res, "center");
		json_t *pt = device_point(space, (int)json_integer_value(json_object_get(c, "x")),
		                          (int)json_integer_value(json_object_get(c, "y")));
		json_object_set_new(res, "devicePoint", pt);
		json_object_set_new(res, "screenshotUri", json_string(uri));
		maybe_tap(s, b, args, res, pt);
		sw_text_snprintf(summary, sizeof(summary), "Template %s (score %.3f, min %.2f) at %lld,%lld %lldx%lld%s.",
		         json_is_true(json_object_get(res, "found")) ? "found" : "not found",
		         json_number_value(json_object_get(res, "score")),
		         json_number_value(json_object_get(res, "minScore")),
		         (long long)json_integer_value(json_object_get(json_object_get(res, "bbox"), "x")),
		         (long long)json_integer_value(json_object_get(json_object_get(res, "bbox"), "y")),
		         (long long)json_integer_value(json_object_get(json_object_get(res, "bbox"), "width")),
		         (long long)json_integer_value(json_object_get(json_object_get(res, "bbox"), "height")),
		         json_is_true(json_object_get(res, "tapped")) ? "; tapped" : "");
	} else { /* find_text */
		json_t *o = json_pack("{ss}", "query", str(args, "query"));
		if (json_is_number(json_object_get(args, "minConfidence")))
			json_object_set(o, "minConfidence", json_object_get(args, "minConfidence"));
		char *oj = json_dumps(o, JSON_COMPACT);
		json_decref(o);
		rc = sw_visual_ocr(root, png, len, oj, sw_session_redactor(s), &out, &err);
		free(oj);
		if (rc != SW_OK)
			goto fail_err;
		if (!(uri = save_png(call, s, "visual-find-text", png, len, label)))
			goto out;
		json_t *d = json_loads(out, 0, NULL);
		json_t *regions = json_object_get(d, "regions");
		json_object_set_new(res, "regionCount", json_integer((json_int_t)json_array_size(regions)));
		while (json_array_size(regions) > 50)
			json_array_remove(regions, json_array_size(regions) - 1);
		json_object_update(res, d);
		json_decref(d);
		json_t *bb = json_object_get(res, "bbox");
		json_t *pt = NULL;
		if (json_is_object(bb)) {
			int cx = (int)(json_integer_value(json_object_get(bb, "x")) +
			               json_integer_value(json_object_get(bb, "width")) / 2);
			int cy = (int)(json_integer_value(json_object_get(bb, "y")) +
			               json_integer_value(json_object_get(bb, "height")) / 2);
			json_object_set_new(res, "center", json_pack("{sisi}", "x", cx, "y", cy));
			pt = device_point(space, cx, cy);
			json_object_set_new(res, "devicePoint", pt);
		}
		json_object_set_new(res, "screenshotUri", json_string(uri));
		if (pt)
			maybe_tap(s, b, args, res, pt);
		sw_text_snprintf(summary, sizeof(summary), "Text \"%s\" %s%s.",
		         mcp_cap(call, json_string_value(json_object_get(res, "query")), 100),
		         json_is_true(json_object_get(res, "found")) ? "found" : "not found",
		         json_is_true(json_object_get(res, "tapped")) ? "; tapped" : "");
	}
	mcp_next(call, "qa_report {sessionId: \"%s\"} when the run is complete", sw_session_id(s));
	mcp_ok(call, res, summary);
	res = NULL;
	goto out;
fail_err:
	mcp_fail_err(call, err);
out:
	sw_error_free(err);
	json_decref(res);
	json_decref(m);
	sw_free(meta);
	sw_free(out);
	sw_free(png);
	sw_free(dpng);
	sw_free(baseline_path);
	free(uri);
	free(duri);
	sw_image_free(templ);
	sw_image_free(screen);
	sw_image_free(base);
	sw_image_free(pic);
}

const struct mcp_tool mcp_tool_qa_visual = {
    .name = "qa_visual",
    .group = "drive",
    .description = "Pixel checks on a screenshot: assert (visually verified note), baseline, diff (ratio, boxes, diff "
                   "PNG), find_image (template), find_text (OCR provider, consent ocr_run).",
    .schema =
        "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
        "\"mode\":{\"type\":\"string\",\"enum\":[\"assert\",\"baseline\",\"diff\",\"find_text\",\"find_image\"]},"
        "\"assertion\":{\"type\":\"string\",\"description\":\"assert: what the screenshot shows.\"},"
        "\"pass\":{\"type\":\"boolean\"},\"reason\":{\"type\":\"string\"},"
        "\"name\":{\"type\":\"string\",\"description\":\"baseline/diff: [A-Za-z0-9._-]{1,64}.\"},"
        "\"threshold\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1,\"description\":\"diff: changed-pixel "
        "ratio that passes (0.02).\"},"
        "\"query\":{\"type\":\"string\"},\"minConfidence\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1},"
        "\"template\":{\"type\":\"string\",\"description\":\"find_image: PNG in the project or swipium:// "
        "artifact.\"},"
        "\"minScore\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1},\"tap\":{\"type\":\"boolean\"},"
        "\"force\":{\"type\":\"boolean\"},\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}},"
        "\"required\":[\"sessionId\",\"mode\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_visual,
};
