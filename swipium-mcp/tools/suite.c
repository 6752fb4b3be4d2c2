/* suite.c: qa_flow_compile and the test-suite group (qa_suite_read, _update, _generate, _export, _lint) over libswipium's suite. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

typedef int (*suite_fn)(mcp_call *call, const char *root, sw_session *s, const char *req, char **out, sw_error **err);

/*
 * The shared handler body: optional session, the root (projectRoot, else the session's, else the
 * project-root rule), the library call with the arguments minus projectRoot, and the parsed answer.
 * Returns NULL when the call has been answered. *@root_out (transfer full) for the summary.
 */
static json_t *suite_call(mcp_call *call, json_t *args, suite_fn fn, sw_session **s_out)
{
	sw_session *s = NULL;
	if (json_object_get(args, "sessionId") && mcp_call_session(call, NULL, &s) != 0)
		return NULL;
	const char *arg = json_string_value(json_object_get(args, "projectRoot"));
	char *root = NULL, *source = NULL;
	if (s && !arg) {
		root = strdup(sw_session_root(s));
	} else if (mcp_call_project_root(call, arg, &root, &source) != 0) {
		return NULL;
	}
	json_t *req = json_deep_copy(args);
	json_object_del(req, "projectRoot");
	char *req_text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = req_text && root ? fn(call, root, s, req_text, &out, &err) : SW_ENOMEM;
	free(req_text);
	if (rc != SW_OK) {
		free(root);
		sw_free(source);
		if (err)
			mcp_fail_err(call, err);
		else
			mcp_fail(call, "UNKNOWN", "Out of memory.", NULL);
		sw_error_free(err);
		return NULL;
	}
	json_t *o = json_loads(out, 0, NULL);
	sw_free(out);
	if (!o) {
		free(root);
		sw_free(source);
		mcp_fail(call, "UNKNOWN", "The suite library answered with something unreadable.", NULL);
		return NULL;
	}
	json_object_set_new(o, "projectRoot", json_string(root));
	if (source)
		json_object_set_new(o, "rootSource", json_string(source));
	free(root);
	sw_free(source);
	if (s_out)
		*s_out = s;
	return o;
}

static long long n_of(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_array(v) ? (long long)json_array_size(v) : (long long)json_integer_value(v);
}

/* ---- qa_flow_compile ------------------------------------------------------------------------------ */

static int do_compile(mcp_call *call, const char *root, sw_session *s, const char *req, char **out, sw_error **err)
{
	json_t *r = json_loads(req, 0, NULL);
	json_object_del(r, "sessionId");
	char *t = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	int rc = t ? sw_suite_compile(root, t, out, err) : SW_ENOMEM;
	free(t);
	return rc;
}

static void qa_flow_compile(mcp_call *call, json_t *args)
{
	json_t *o = suite_call(call, args, do_compile, NULL);
	if (!o)
		return;
	char summary[600];
	json_t *flows = json_object_get(o, "flows");
	sw_text_snprintf(summary, sizeof(summary), "Suite %s: %lld of %lld test(s) compiled to .swipium/flows/ and "
	                                           ".swipium/compiled/%s.",
	                 mcp_cap(call, json_string_value(json_object_get(o, "suite")), 200), n_of(o, "compiled"),
	                 n_of(o, "tests"), n_of(o, "failed") ? "; see flows[].errors for the others" : "");
	size_t i;
	json_t *f;
	json_array_foreach(flows, i, f)
	{
		if (json_is_true(json_object_get(f, "ok")))
			mcp_next(call, "qa_flow_run {flow:\"%s\"} to replay it", json_string_value(json_object_get(f, "slug")));
		if (i >= 2)
			break;
	}
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_flow_compile = {
    .name = "qa_flow_compile",
    .group = "flows",
    .description = "Compile a POM suite (.swipium/suites/<suite>, page objects and tests) into checked flows in "
                   ".swipium/flows and .swipium/compiled. No device.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"suite\":{\"type\":\"string\",\"description\":\"Relative to .swipium/ (default suites/smoke.yaml).\"}}}",
    .annot = MCP_ANNOT_I,
    .handler = qa_flow_compile,
};

/* ---- qa_suite_read -------------------------------------------------------------------------------- */

static int do_read(mcp_call *call, const char *root, sw_session *s, const char *req, char **out, sw_error **err)
{
	return sw_suite_read(root, req, out, err);
}

static void qa_suite_read(mcp_call *call, json_t *args)
{
	json_t *o = suite_call(call, args, do_read, NULL);
	if (!o)
		return;
	/* the resource URI of the whole suite (resources/read gives test-suite.json, redacted and capped) */
	char *uri = NULL;
	sw_error *uerr = NULL;
	if (sw_suite_resource_uri(mcp_call_ctx(call), json_string_value(json_object_get(o, "projectRoot")), &uri, NULL,
	                          &uerr) == SW_OK)
		json_object_set_new(o, "uri", json_string(uri));
	sw_free(uri);
	sw_error_free(uerr);
	char summary[400];
	sw_text_snprintf(summary, sizeof(summary), "Test suite: %lld case(s), %lld shown in %lld functionality group(s).",
	                 n_of(o, "total"), n_of(o, "shown"), n_of(o, "functionalities"));
	if (n_of(o, "total") == 0)
		mcp_next(call, "qa_suite_generate to create cases from the app map");
	mcp_ok(call, o, summary);
}

#define STATUS_ENUM "[\"active\",\"draft\",\"deprecated\",\"blocked\",\"manual_only\"]"
#define ROOT_PROPS "\"sessionId\":{\"type\":\"string\"},\"projectRoot\":{\"type\":\"string\"},"

const struct mcp_tool mcp_tool_qa_suite_read = {
    .name = "qa_suite_read",
    .group = "test-suite",
    .description = "Read the canonical test suite (.swipium/test-suite.json), filtered by functionality or status.",
    .schema = "{\"type\":\"object\",\"properties\":{" ROOT_PROPS "\"functionality\":{\"type\":\"string\"},"
              "\"status\":{\"type\":\"string\",\"enum\":" STATUS_ENUM "},"
              "\"format\":{\"type\":\"string\",\"enum\":[\"summary\",\"json\",\"markdown\"]}}}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_suite_read,
};

/* ---- qa_suite_update ------------------------------------------------------------------------------ */

static int do_update(mcp_call *call, const char *root, sw_session *s, const char *req, char **out, sw_error **err)
{
	return sw_suite_update(root, req, s ? sw_session_redactor(s) : NULL, out, err);
}

static void merged_summary(mcp_call *call, json_t *o, const char *what)
{
	char summary[500];
	sw_text_snprintf(summary, sizeof(summary),
	                 "%s: %lld created, %lld updated, %lld unchanged, %lld deprecated, %lld conflict(s); %lld case(s) "
	                 "in the suite.",
	                 what, n_of(o, "created"), n_of(o, "updated"), n_of(o, "unchanged"), n_of(o, "deprecated"),
	                 n_of(o, "conflicts"), n_of(o, "total"));
	mcp_next(call, "qa_suite_lint to check the cases");
	mcp_ok(call, o, summary);
}

static void qa_suite_update(mcp_call *call, json_t *args)
{
	json_t *o = suite_call(call, args, do_update, NULL);
	if (o)
		merged_summary(call, o, "Suite updated");
}

const struct mcp_tool mcp_tool_qa_suite_update = {
    .name = "qa_suite_update",
    .group = "test-suite",
    .description = "Merge cases into .swipium/test-suite.json (dedupe by feature+objective+steps, ids "
                   "TC-<FEATURE>-NNN). Manual cases are never overwritten: conflicts.",
    .schema = "{\"type\":\"object\",\"properties\":{" ROOT_PROPS
              "\"source\":{\"type\":\"string\",\"enum\":[\"report\",\"exploration\",\"feature\",\"ticket\","
              "\"manual\",\"generate\",\"suite\"]},"
              "\"sourceUri\":{\"type\":\"string\"},"
              "\"cases\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
              "\"mergeMode\":{\"type\":\"string\",\"enum\":[\"append\",\"update\",\"replace_generated\"]}},"
              "\"required\":[\"source\"]}",
    .annot = MCP_ANNOT_D,
    .handler = qa_suite_update,
};

/* ---- qa_suite_generate ---------------------------------------------------------------------------- */

static int do_generate(mcp_call *call, const char *root, sw_session *s, const char *req, char **out, sw_error **err)
{
	return sw_suite_generate(mcp_call_ctx(call), root, s, req, out, err);
}

static void qa_suite_generate(mcp_call *call, json_t *args)
{
	json_t *o = suite_call(call, args, do_generate, NULL);
	if (o)
		merged_summary(call, o, "Suite generated");
}

const struct mcp_tool mcp_tool_qa_suite_generate = {
    .name = "qa_suite_generate",
    .group = "test-suite",
    .description = "Generate test cases from the app map's features (and the session's recorded run) into the "
                   "canonical suite; idempotent.",
    .schema = "{\"type\":\"object\",\"properties\":{" ROOT_PROPS "\"feature\":{\"type\":\"string\"},"
              "\"creativity\":{\"type\":\"string\",\"enum\":[\"conservative\",\"standard\",\"creative\","
              "\"adversarial\"]},"
              "\"creativityLevel\":{\"type\":[\"string\",\"number\"],\"description\":\"Deprecated alias of "
              "creativity.\"},"
              "\"includeManualOnly\":{\"type\":\"boolean\"}}}",
    .annot = MCP_ANNOT_W,
    .handler = qa_suite_generate,
};

/* ---- qa_suite_export ------------------------------------------------------------------------------ */

static int do_export(mcp_call *call, const char *root, sw_session *s, const char *req, char **out, sw_error **err)
{
	return sw_suite_export(root, req, s ? sw_session_redactor(s) : NULL, out, err);
}

static void qa_suite_export(mcp_call *call, json_t *args)
{
	json_t *o = suite_call(call, args, do_export, NULL);
	if (!o)
		return;
	char summary[400];
	if (json_is_true(json_object_get(o, "saved")))
		sw_text_snprintf(summary, sizeof(summary), "Exported %lld case(s) as %s: %lld file(s) under "
		                                           ".swipium/test-suite-export/.",
		                 n_of(o, "cases"), json_string_value(json_object_get(o, "format")), n_of(o, "files"));
	else
		sw_text_snprintf(summary, sizeof(summary), "Exported %lld case(s) as %s (%lld bytes, in content; save:true "
		                                           "writes .swipium/test-suite-export/).",
		                 n_of(o, "cases"), json_string_value(json_object_get(o, "format")), n_of(o, "bytes"));
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_suite_export = {
    .name = "qa_suite_export",
    .group = "test-suite",
    .description = "Export the canonical suite as markdown, yaml (a file per case), json or junit; save writes "
                   ".swipium/test-suite-export/.",
    .schema = "{\"type\":\"object\",\"properties\":{" ROOT_PROPS
              "\"format\":{\"type\":\"string\",\"enum\":[\"markdown\",\"yaml\",\"json\",\"junit\"]},"
              "\"save\":{\"type\":\"boolean\"}},\"required\":[\"format\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_suite_export,
};

/* ---- qa_suite_lint -------------------------------------------------------------------------------- */

static int do_lint(mcp_call *call, const char *root, sw_session *s, const char *req, char **out, sw_error **err)
{
	return sw_suite_lint(root, req, out, err);
}

static void qa_suite_lint(mcp_call *call, json_t *args)
{
	json_t *o = suite_call(call, args, do_lint, NULL);
	if (!o)
		return;
	json_t *counts = json_object_get(o, "counts");
	char summary[400];
	sw_text_snprintf(summary, sizeof(summary), "Suite lint: %lld error(s), %lld warning(s) over %lld case(s)%s.",
	                 n_of(counts, "errors"), n_of(counts, "warnings"), n_of(counts, "cases"),
	                 json_is_true(json_object_get(json_object_get(o, "pages"), "found")) ? " and the page objects" : "");
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_suite_lint = {
    .name = "qa_suite_lint",
    .group = "test-suite",
    .description = "Lint the canonical suite (missing results, links, duplicate ids, brittle automation, unsafe "
                   "adversarial cases) and the page objects' locators.",
    .schema = "{\"type\":\"object\",\"properties\":{" ROOT_PROPS
              "\"brittleThreshold\":{\"type\":\"string\",\"enum\":[\"C\",\"D\"]},"
              "\"liveFeatureIds\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_suite_lint,
};
