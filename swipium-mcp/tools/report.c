/* report.c: qa_report (group `run`): assemble, deep-redact and save the report, render the requested export. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

/* The one place that knows the library's assembly call. (transfer full) */
static int assemble(sw_session *s, json_t *args, char **report, sw_error **err)
{
	json_t *opts = json_object();
	if (json_object_get(args, "baseline"))
		json_object_set(opts, "baseline", json_object_get(args, "baseline"));
	if (json_object_get(args, "trendRoot"))
		json_object_set(opts, "trendRoot", json_object_get(args, "trendRoot"));
	char *text = json_dumps(opts, JSON_COMPACT);
	json_decref(opts);
	int rc = text ? sw_report_assemble(s, text, report, err) : SW_ENOMEM;
	free(text);
	return rc;
}

static const struct export_kind {
	const char *format;
	int render; /* sw_report_format, or -1 */
	const char *suffix;
	const char *mime;
} exports[] = {
    {"junit", SW_REPORT_JUNIT, ".xml", "application/xml"},
    {"sarif", SW_REPORT_SARIF, ".sarif.json", "application/sarif+json"},
    {"github-summary", SW_REPORT_GITHUB_SUMMARY, ".summary.md", "text/markdown"},
    {"markdown", SW_REPORT_MARKDOWN, ".md", "text/markdown"},
    {"playwright", -1, ".playwright.json", "application/json"},
};

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

/* The artifact manifest: every artifact of the session with its size and SHA-256. */
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
		FILE *f = path ? fopen(path, "rb") : NULL;
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		long size = ftell(f);
		rewind(f);
		char *buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
		size_t got = buf ? fread(buf, 1, (size_t)size, f) : 0;
		fclose(f);
		char hex[65] = "";
		if (buf)
			sw_sha256_hex(buf, got, hex);
		free(buf);
		json_array_append_new(rows, json_pack("{s:O,s:O,s:O,s:I,s:s}", "uri", json_object_get(a, "uri"), "kind",
		                                      json_object_get(a, "kind"), "mime", json_object_get(a, "mime"),
		                                      "bytes", (json_int_t)got, "sha256", hex));
	}
	json_decref(arts);
	return json_pack("{s:s,s:I,s:o}", "sessionId", sw_session_id(s), "createdAt", (json_int_t)ms, "artifacts",
	                 rows);
}

static void qa_report(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *format = json_string_value(json_object_get(args, "format"));
	if (!format)
		format = "summary";
	int64_t ms = sw_wall_ms();
	char *raw = NULL, *redacted = NULL;
	sw_error *err = NULL;
	json_t *report = NULL, *payload = NULL;
	/* A run must not leave the device offline: put airplane mode back before the report records
	 * finalNetwork. A device that is gone leaves the restore pending; the report says so. */
	char *restore = NULL;
	sw_error *restore_err = NULL;
	if (sw_devctl_network_restore(mcp_call_ctx(call), s, "qa_report", &restore, &restore_err) != SW_OK)
		sw_error_free(restore_err);
	sw_free(restore);
	if (assemble(s, args, &raw, &err) != SW_OK)
		goto fail;
	/* Deep redaction of every key and string before anything is saved or rendered. */
	if (sw_redactor_redact_json(sw_session_redactor(s), raw, &redacted, &err) != SW_OK)
		goto fail;
	report = json_loads(redacted, 0, NULL);
	if (!json_is_object(report)) {
		mcp_fail(call, "UNKNOWN", "The assembled report is not a JSON object.", NULL);
		goto out;
	}
	char name[64];
	snprintf(name, sizeof(name), "report-%lld.json", (long long)ms);
	json_t *meta = save(s, "report", name, "application/json", redacted, strlen(redacted), "QA report", &err);
	if (!meta)
		goto fail;
	const char *sid = sw_session_id(s);
	payload = json_pack("{s:s,s:O}", "sessionId", sid, "reportUri", json_object_get(meta, "uri"));
	json_decref(meta);

	json_t *man = manifest(s, ms);
	if (man) {
		char *mt = json_dumps(man, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		snprintf(name, sizeof(name), "manifest-%lld.json", (long long)ms);
		json_t *mm =
		    mt ? save(s, "manifest", name, "application/json", mt, strlen(mt), "Artifact manifest", NULL)
		       : NULL;
		if (mm)
			json_object_set(payload, "manifestUri", json_object_get(mm, "uri"));
		json_decref(mm);
		free(mt);
		json_decref(man);
	}

	/* The export, saved beside the report. */
	char *body = NULL;
	const char *export_mime = NULL;
	char export_name[96] = "";
	const char *export_kind = "report";
	if (!strcmp(format, "flow")) {
		char *actions = NULL, *app = NULL;
		(void)sw_session_get_json(s, "recordedActions", &actions, NULL);
		(void)sw_session_get_json(s, "appId", &app, NULL);
		json_t *appj = app ? json_loads(app, JSON_DECODE_ANY, NULL) : NULL;
		char flow_name[64];
		snprintf(flow_name, sizeof(flow_name), "recorded-%s", sid);
		sw_error *ferr = NULL;
		if (sw_export_flow(actions ? actions : "[]", flow_name, json_string_value(appj), &body, &ferr) !=
		    SW_OK) {
			json_object_set_new(
			    payload, "warnings",
			    json_pack("[s]", sw_error_message(ferr) ? sw_error_message(ferr) : "no flow"));
			sw_error_free(ferr);
		}
		json_decref(appj);
		sw_free(actions);
		sw_free(app);
		export_mime = "application/yaml";
		export_kind = "flow";
		snprintf(export_name, sizeof(export_name), "recorded-%lld.yaml", (long long)ms);
	} else {
		for (size_t i = 0; i < sizeof(exports) / sizeof(exports[0]); i++) {
			if (strcmp(exports[i].format, format) != 0)
				continue;
			export_mime = exports[i].mime;
			snprintf(export_name, sizeof(export_name), "report-%lld%s", (long long)ms, exports[i].suffix);
			if (exports[i].render < 0) {
				if (sw_export_playwright(redacted, &body, &err) != SW_OK)
					goto fail;
			} else {
				sw_report *r = NULL;
				sw_report_render_options ro = SW_REPORT_RENDER_OPTIONS_INIT;
				ro.project_root = sw_session_root(s);
				char *gate = NULL;
				if (sw_report_load_data(redacted, strlen(redacted), &r, &err) != SW_OK ||
				    sw_report_render(r, (sw_report_format)exports[i].render, &ro, &body, NULL, &gate,
				                     &err) != SW_OK) {
					sw_report_free(r);
					goto fail;
				}
				json_t *g = gate ? json_loads(gate, 0, NULL) : NULL;
				if (g)
					json_object_set_new(payload, "releaseGate", g);
				sw_free(gate);
				sw_report_free(r);
			}
		}
	}
	if (body) {
		json_t *em = save(s, export_kind, export_name, export_mime, body, strlen(body), "Report export", &err);
		if (!em) {
			sw_free(body);
			goto fail;
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
	json_t *es = json_object_get(report, "executiveSummary");
	const char *risk = json_string_value(json_object_get(es, "risk"));
	const char *next_action = json_string_value(json_object_get(es, "nextAction"));
	char *summary = NULL;
	if (asprintf(&summary, "Report saved (%s): release risk %s. %s", format, risk ? risk : "unknown",
	             next_action ? next_action : "") < 0)
		summary = NULL;
	if (body && strcmp(format, "summary") != 0) {
		/* Text exports are also shown inline (the saved file is complete; this copy is capped). */
		size_t len = strlen(body), cap = 1 << 20;
		json_t *t = json_stringn(body, len < cap ? len : cap);
		if (t)
			mcp_add_content(call, json_pack("{s:s,s:o}", "type", "text", "text", t));
	}
	sw_free(body);
	mcp_next(call, "swipium report --format junit --session %s (CI renders the saved report)", sid);
	mcp_ok(call, payload, summary ? summary : "Report saved.");
	payload = NULL;
	free(summary);
	goto out;
fail:
	mcp_fail_err(call, err);
out:
	sw_error_free(err);
	json_decref(payload);
	json_decref(report);
	sw_free(raw);
	sw_free(redacted);
}

const struct mcp_tool mcp_tool_qa_report = {
    .name = "qa_report",
    .group = "run",
    .description = "Saves the session's report (deep-redacted) for `swipium report` and renders an export: "
                   "summary, markdown, json, junit, sarif, github-summary, playwright, flow.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"format\":{\"type\":\"string\",\"enum\":[\"summary\",\"markdown\",\"json\",\"junit\",\"sarif\","
              "\"github-summary\",\"playwright\",\"flow\"]},"
              "\"baseline\":{\"type\":\"string\",\"description\":\"A baseline report.json path to compare with.\"},"
              "\"trendRoot\":{\"type\":\"string\",\"description\":\"Project root whose run history gives trends.\"}},"
              "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_report,
};
