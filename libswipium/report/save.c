/* save.c: the report pipeline every frontend uses: restore the network, assemble, deep-redact, save, write the
 * artifact manifest (hashes streamed from disk) and the export. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"
#include <swipium/device.h>
#include <swipium/exports.h>
#include <swipium/session.h>

static const struct export_kind {
	const char *format;
	int render; /* sw_report_format, or -1 (playwright), -2 (flow), -3 (the report itself) */
	const char *suffix;
	const char *mime;
	const char *kind;
} exports[] = {
    {"summary", -3, NULL, NULL, NULL},
    {"json", -3, NULL, NULL, NULL},
    {"junit", SW_REPORT_JUNIT, ".xml", "application/xml", "report"},
    {"sarif", SW_REPORT_SARIF, ".sarif.json", "application/sarif+json", "report"},
    {"github-summary", SW_REPORT_GITHUB_SUMMARY, ".summary.md", "text/markdown", "report"},
    {"markdown", SW_REPORT_MARKDOWN, ".md", "text/markdown", "report"},
    {"playwright", -1, ".playwright.json", "application/json", "report"},
    {"flow", -2, ".yaml", "application/yaml", "flow"},
};

static const sw__opt save_opts[] = {
    {"format", SW__OPT_STRING, false},     {"baseline", SW__OPT_STRING, false}, {"trendRoot", SW__OPT_STRING, false},
    {"restoreNetwork", SW__OPT_BOOL, false}, {"tool", SW__OPT_STRING, false},    {NULL}};

/* Saves one artifact; its metadata (transfer full) or NULL with *err set. */
static json_t *save(sw_session *s, const char *kind, const char *name, const char *mime, const char *data, size_t len,
                    const char *label, sw_error **err)
{
	char *meta = NULL;
	if (sw_artifact_save(s, kind, name, mime, data, len, label, &meta, err) != SW_OK)
		return NULL;
	json_t *m = json_loads(meta, 0, NULL);
	sw_free(meta);
	return m;
}

/* The artifact manifest: every artifact of the session with its size and SHA-256, hashed while streaming. */
static json_t *manifest(sw_session *s, int64_t ms)
{
	char *text = NULL;
	if (sw_artifact_list(s, &text, NULL) != SW_OK)
		return NULL;
	json_t *arts = json_loads(text, 0, NULL);
	sw_free(text);
	json_t *rows = json_array();
	size_t i;
	json_t *a;
	json_array_foreach(arts, i, a)
	{
		const char *path = json_string_value(json_object_get(a, "path"));
		char hex[65];
		uint64_t bytes = 0;
		if (!path || sw_sha256_file_hex(path, hex, &bytes, NULL) != SW_OK)
			continue;
		json_array_append_new(rows, json_pack("{s:O,s:O,s:O,s:I,s:s}", "uri", json_object_get(a, "uri"), "kind",
		                                      json_object_get(a, "kind"), "mime", json_object_get(a, "mime"),
		                                      "bytes", (json_int_t)bytes, "sha256", hex));
	}
	json_decref(arts);
	return json_pack("{s:s,s:I,s:o}", "sessionId", sw_session_id(s), "createdAt", (json_int_t)ms, "artifacts",
	                 rows);
}

/* The recorded actions of the session as a flow (format flow); a warning instead when there is none. */
static int flow_export(sw_session *s, json_t *payload, char **body)
{
	json_t *actions = NULL, *app = NULL;
	(void)sw__session_get(s, "recordedActions", &actions, NULL);
	(void)sw__session_get(s, "appId", &app, NULL);
	char *aj = actions && !json_is_null(actions) ? sw__json_compact(actions) : NULL;
	char flow_name[64];
	snprintf(flow_name, sizeof(flow_name), "recorded-%s", sw_session_id(s));
	sw_error *ferr = NULL;
	if (sw_export_flow(aj ? aj : "[]", flow_name, json_string_value(app), body, &ferr) != SW_OK) {
		json_object_set_new(payload, "warnings",
		                    json_pack("[s]", sw_error_message(ferr) ? sw_error_message(ferr) : "no flow"));
		sw_error_free(ferr);
	}
	free(aj);
	json_decref(actions);
	json_decref(app);
	return SW_OK;
}

int sw__report_save(sw_ctx *ctx, sw_session *s, const json_t *opts, json_t **result, json_t **report_meta,
                    char **export_body, sw_error **err)
{
	int rc = sw__options_check(opts, save_opts, "sw_report_save options", err);
	if (rc < 0)
		return rc;
	const char *format = json_string_value(json_object_get(opts, "format"));
	if (!format)
		format = "summary";
	const struct export_kind *ek = NULL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(exports); i++)
		if (!strcmp(exports[i].format, format))
			ek = &exports[i];
	if (!ek)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "format \"%s\" is not one of summary, markdown, json, junit, sarif, github-summary, "
		                     "playwright, flow",
		                     format);
	const char *tool = json_string_value(json_object_get(opts, "tool"));
	int64_t ms = sw_wall_ms();
	char *raw = NULL, *redacted = NULL, *body = NULL;
	json_t *report = NULL, *payload = NULL, *meta = NULL;

	/* A run must not leave the device offline: put airplane mode back before the report records
	 * finalNetwork. A device that is gone leaves the restore pending; the report says so. */
	if (ctx && !json_is_false(json_object_get(opts, "restoreNetwork"))) {
		char *restore = NULL;
		sw_error *restore_err = NULL;
		if (sw_devctl_network_restore(ctx, s, tool ? tool : "qa_report", &restore, &restore_err) != SW_OK)
			sw_error_free(restore_err);
		json_t *rj = restore ? json_loads(restore, 0, NULL) : NULL;
		sw_free(restore);
		payload = json_object();
		if (payload && json_is_true(json_object_get(rj, "restored")))
			json_object_set_new(payload, "networkRestored", json_true());
		json_decref(rj);
	}
	if (!payload)
		payload = json_object();
	if (!payload) {
		rc = sw__error_nomem(err);
		goto out;
	}
	json_t *aopts = json_object();
	if (aopts && json_object_get(opts, "baseline"))
		json_object_set(aopts, "baseline", json_object_get(opts, "baseline"));
	if (aopts && json_object_get(opts, "trendRoot"))
		json_object_set(aopts, "trendRoot", json_object_get(opts, "trendRoot"));
	char *aj = aopts ? sw__json_compact(aopts) : NULL;
	json_decref(aopts);
	rc = aj ? sw_report_assemble(s, aj, &raw, err) : sw__error_nomem(err);
	free(aj);
	if (rc < 0)
		goto out;
	/* Deep redaction of every key and string before anything is saved or rendered. */
	if ((rc = sw_redactor_redact_json(sw_session_redactor(s), raw, &redacted, err)) < 0)
		goto out;
	report = json_loads(redacted, 0, NULL);
	if (!json_is_object(report)) {
		rc = sw__error_set(err, SW_EPARSE, "UNKNOWN", NULL, "The assembled report is not a JSON object.");
		goto out;
	}
	char name[96];
	snprintf(name, sizeof(name), "report-%lld.json", (long long)ms);
	if (!(meta = save(s, "report", name, "application/json", redacted, strlen(redacted), "QA report", err))) {
		rc = err && *err ? sw_error_code(*err) : SW_EIO;
		goto out;
	}
	json_object_set_new(payload, "sessionId", json_string(sw_session_id(s)));
	json_object_set(payload, "reportUri", json_object_get(meta, "uri"));
	json_object_set(payload, "reportPath", json_object_get(meta, "path"));

	json_t *man = manifest(s, ms);
	if (man) {
		char *mt = json_dumps(man, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		snprintf(name, sizeof(name), "manifest-%lld.json", (long long)ms);
		json_t *mm =
		    mt ? save(s, "manifest", name, "application/json", mt, strlen(mt), "Artifact manifest", NULL) : NULL;
		if (mm)
			json_object_set(payload, "manifestUri", json_object_get(mm, "uri"));
		json_decref(mm);
		free(mt);
		json_decref(man);
	}

	/* The export, saved beside the report. */
	if (ek->render == -2) {
		flow_export(s, payload, &body);
		snprintf(name, sizeof(name), "recorded-%lld%s", (long long)ms, ek->suffix);
	} else if (ek->render == -1) {
		if ((rc = sw_export_playwright(redacted, &body, err)) < 0)
			goto out;
		snprintf(name, sizeof(name), "report-%lld%s", (long long)ms, ek->suffix);
	} else if (ek->render >= 0) {
		sw_report *r = NULL;
		sw_report_render_options ro = SW_REPORT_RENDER_OPTIONS_INIT;
		ro.project_root = sw_session_root(s);
		char *gate = NULL;
		if ((rc = sw_report_load_data(redacted, strlen(redacted), &r, err)) < 0 ||
		    (rc = sw_report_render(r, (sw_report_format)ek->render, &ro, &body, NULL, &gate, err)) < 0) {
			sw_report_free(r);
			goto out;
		}
		json_t *g = gate ? json_loads(gate, 0, NULL) : NULL;
		if (g)
			json_object_set_new(payload, "releaseGate", g);
		sw_free(gate);
		sw_report_free(r);
		snprintf(name, sizeof(name), "report-%lld%s", (long long)ms, ek->suffix);
	}
	if (body) {
		json_t *em = save(s, ek->kind, name, ek->mime, body, strlen(body), "Report export", err);
		if (!em) {
			rc = err && *err ? sw_error_code(*err) : SW_EIO;
			goto out;
		}
		json_object_set(payload, "exportUri", json_object_get(em, "uri"));
		json_object_set_new(payload, "exportFormat", json_string(format));
		json_decref(em);
	} else if (!strcmp(format, "json")) {
		json_object_set(payload, "exportUri", json_object_get(payload, "reportUri"));
		json_object_set_new(payload, "exportFormat", json_string("json"));
	}
	static const char *const keys[] = {
	    "executiveSummary",   "appVerdict", "coverageVerdict", "toolVerdict", "outcomeTally",
	    "findingOccurrences", NULL};
	for (int i = 0; keys[i]; i++)
		if (json_object_get(report, keys[i]))
			json_object_set(payload, keys[i], json_object_get(report, keys[i]));
	*result = payload;
	payload = NULL;
	if (report_meta) {
		*report_meta = meta;
		meta = NULL;
	}
	if (export_body) {
		*export_body = body;
		body = NULL;
	}
	rc = SW_OK;
out:
	json_decref(payload);
	json_decref(report);
	json_decref(meta);
	sw_free(raw);
	sw_free(redacted);
	sw_free(body);
	return rc;
}

SW_API int sw_report_save(sw_ctx *ctx, sw_session *s, const char *options_json, char **result_json,
                          char **export_body, sw_error **err)
{
	if (!s || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "session and result_json must not be NULL");
	*result_json = NULL;
	if (export_body)
		*export_body = NULL;
	json_t *opts = NULL, *res = NULL;
	int rc = sw__options_load(options_json, save_opts, "sw_report_save options", &opts, err);
	if (rc < 0)
		return rc;
	rc = sw__report_save(ctx, s, opts, &res, NULL, export_body, err);
	json_decref(opts);
	if (rc < 0)
		return rc;
	*result_json = json_dumps(res, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(res);
	return *result_json ? SW_OK : sw__error_nomem(err);
}
