/* appmap.c: the `app-map` group (qa_app_map_build, _read, _query, _feature_scope, _update): arguments in, sw_appmap_*
 * calls, answers out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

typedef int (*appmap_fn)(sw_ctx *ctx, const char *root, const char *request_json, char **out_json, sw_error **err);

/*
 * Runs one library call with the arguments (less projectRoot) as the request. On success returns the answer
 * (with projectRoot and rootSource); on failure answers the call and returns NULL.
 */
static json_t *appmap_run(mcp_call *call, json_t *args, appmap_fn fn, bool with_tools)
{
	sw_session *s;
	char *root, *source;
	if (mcp_call_session_root(call, args, false, NULL, 0, &s, &root, &source) != 0)
		return NULL;
	json_t *req = json_deep_copy(args);
	json_object_del(req, "projectRoot");
	if (with_tools)
		json_object_set_new(req, "tools", mcp_listed_tools());
	if (s)
		json_object_set_new(req, "sessionDir", json_string(sw_session_dir(s)));
	char *req_text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = req_text ? fn(mcp_call_ctx(call), root, req_text, &out, &err) : SW_ENOMEM;
	free(req_text);
	json_t *o = NULL;
	if (rc != SW_OK) {
		const char *code = err ? sw_error_failure_code(err) : "UNKNOWN";
		if (err)
			mcp_fail_err(call, err);
		else
			mcp_fail(call, "UNKNOWN", "Out of memory.", NULL);
		if (!strcmp(code, "NO_APP_MAP") && mcp_tool_listed("qa_app_map_build"))
			mcp_fail_step(call, "qa_app_map_build {projectRoot: \"%s\"} to scan the source into a map",
			              mcp_cap(call, root, 1000));
		sw_error_free(err);
	} else if (!(o = json_loads(out, 0, NULL))) {
		mcp_fail(call, "UNKNOWN", "The app map answered with something unreadable.", NULL);
	} else {
		json_object_set_new(o, "projectRoot", json_string(root));
		if (source)
			json_object_set_new(o, "rootSource", json_string(source));
	}
	sw_free(out);
	free(root);
	sw_free(source);
	return o;
}

static json_int_t count(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(o, "counts"), key));
}

/* ---- qa_app_map_read ------------------------------------------------------------------------------- */

static void qa_app_map_read(mcp_call *call, json_t *args)
{
	json_t *o = appmap_run(call, args, sw_appmap_read, false);
	if (!o)
		return;
	const char *section = json_string_value(json_object_get(o, "section"));
	char summary[600];
	if (!strcmp(section, "feature"))
		sw_text_snprintf(summary, sizeof(summary), "Feature %s: %zu screen(s), %zu test case(s).",
		                 mcp_cap(call, json_string_value(json_object_get(args, "featureId")), 200),
		                 json_array_size(json_object_get(o, "screens")),
		                 json_array_size(json_object_get(o, "testCases")));
	else if (!strcmp(section, "screen"))
		sw_text_snprintf(summary, sizeof(summary), "Screen %s (%s topology), %zu test case(s).",
		                 mcp_cap(call, json_string_value(json_object_get(args, "screenId")), 200),
		                 json_string_value(json_object_get(o, "screenSource")),
		                 json_array_size(json_object_get(o, "screenTestCases")));
	else if (!strcmp(section, "summary") || !strcmp(section, "full"))
		sw_text_snprintf(summary, sizeof(summary),
		                 "App map%s: %lld static screen(s), %lld runtime screen(s), %lld feature(s), %lld auth "
		                 "screen(s), %lld test case(s), %lld suite(s).",
		                 !strcmp(section, "full") ? " (whole map by uri)" : "",
		                 (long long)count(o, "staticScreens"), (long long)count(o, "runtimeScreens"),
		                 (long long)count(o, "features"), (long long)count(o, "authScreens"),
		                 (long long)count(o, "testCases"), (long long)count(o, "automationSuites"));
	else
		sw_text_snprintf(summary, sizeof(summary), "App map section %s%s.", section,
		                 json_object_get(o, "omitted") ? " (capped: the rest by uri)" : "");
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_app_map_read = {
    .name = "qa_app_map_read",
    .group = "app-map",
    .description = "Reads the app map (.swipium/app-map.json): summary, screens, features, auth, automation, "
                   "testSuite; one feature or screen; full map by resource URI.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"section\":{\"type\":\"string\",\"enum\":[\"summary\",\"screens\",\"features\",\"auth\","
              "\"automation\",\"testSuite\",\"full\"]},"
              "\"featureId\":{\"type\":\"string\"},"
              "\"screenId\":{\"type\":\"string\"}}}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_app_map_read,
};

/* ---- qa_app_map_query ------------------------------------------------------------------------------ */

static void qa_app_map_query(mcp_call *call, json_t *args)
{
	json_t *o = appmap_run(call, args, sw_appmap_query, true);
	if (!o)
		return;
	json_t *results = json_object_get(o, "results");
	json_t *top = json_array_get(results, 0);
	char summary[700];
	if (top)
		sw_text_snprintf(summary, sizeof(summary), "%zu result(s) for \"%s\"; best: %s %s (score %.2f).",
		                 json_array_size(results),
		                 mcp_cap(call, json_string_value(json_object_get(args, "query")), 200),
		                 json_string_value(json_object_get(top, "type")),
		                 mcp_cap(call, json_string_value(json_object_get(top, "id")), 200),
		                 json_number_value(json_object_get(top, "score")));
	else
		sw_text_snprintf(summary, sizeof(summary), "Nothing in the app map matches \"%s\".",
		                 mcp_cap(call, json_string_value(json_object_get(args, "query")), 200));
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_app_map_query = {
    .name = "qa_app_map_query",
    .group = "app-map",
    .description = "Searches the app map (features, static and runtime screens, code index, tests): ranked results "
                   "with provenance, files, screens and the next call.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"query\":{\"type\":\"string\"},"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"intent\":{\"type\":\"string\",\"enum\":[\"feature\",\"screen\",\"code\",\"test\",\"freeform\"]},"
              "\"limit\":{\"type\":\"number\",\"minimum\":1,\"maximum\":50}},"
              "\"required\":[\"query\"]}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_app_map_query,
};

/* ---- qa_app_map_update ------------------------------------------------------------------------------ */

static void qa_app_map_update(mcp_call *call, json_t *args)
{
	json_t *o = appmap_run(call, args, sw_appmap_update, false);
	if (!o)
		return;
	char *changes = json_dumps(json_object_get(o, "updated"), JSON_COMPACT);
	char summary[700];
	sw_text_snprintf(summary, sizeof(summary), "App map updated: %s; %lld test case(s), %lld suite(s) in the map.",
	                 mcp_cap(call, changes, 400), (long long)count(o, "testCases"),
	                 (long long)count(o, "automationSuites"));
	free(changes);
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_app_map_update = {
    .name = "qa_app_map_update",
    .group = "app-map",
    .description = "Records tests, a suite, the environment, feature coverage or a note in the app map; same "
                   "test-case id or suite path is overwritten.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"note\":{\"type\":\"string\"},"
              "\"testCases\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
              "\"id\":{\"type\":\"string\"},\"title\":{\"type\":\"string\"},\"featureId\":{\"type\":\"string\"},"
              "\"screenId\":{\"type\":\"string\"},\"status\":{\"type\":\"string\"},\"source\":{\"type\":\"string\"},"
              "\"stale\":{\"type\":\"boolean\"}},\"required\":[\"id\",\"title\"]}},"
              "\"automationSuite\":{\"type\":\"object\",\"properties\":{"
              "\"name\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},\"framework\":{\"type\":\"string\"},"
              "\"linkedFeatureIds\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
              "\"linkedScreenIds\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
              "\"required\":[\"name\",\"path\"]},"
              "\"environment\":{\"type\":\"string\"},"
              "\"featureCoverage\":{\"type\":\"object\",\"properties\":{"
              "\"featureId\":{\"type\":\"string\"},"
              "\"coverage\":{\"type\":\"string\",\"enum\":[\"none\",\"partial\",\"covered\"]}},"
              "\"required\":[\"featureId\",\"coverage\"]}}}",
    .annot = MCP_ANNOT_D,
    .handler = qa_app_map_update,
};

/* ---- qa_app_map_build ------------------------------------------------------------------------------ */

static void qa_app_map_build(mcp_call *call, json_t *args)
{
	json_t *o = appmap_run(call, args, sw_appmap_build, false);
	if (!o)
		return;
	json_t *merged = json_object_get(o, "merged");
	char summary[800];
	sw_text_snprintf(summary, sizeof(summary),
	                 "App map %s (%s): %lld static screen(s), %lld feature(s), %lld auth screen(s), %lld runtime "
	                 "screen(s)%s; %s",
	                 json_is_true(json_object_get(o, "created")) ? "created" : "updated",
	                 json_string_value(json_object_get(o, "mode")), (long long)count(o, "staticScreens"),
	                 (long long)count(o, "features"), (long long)count(o, "authScreens"),
	                 (long long)count(o, "runtimeScreens"), merged ? ", exploration merged" : "",
	                 json_string_value(json_object_get(o, "uri")));
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_app_map_build = {
    .name = "qa_app_map_build",
    .group = "app-map",
    .description = "Builds the app map from the source (Expo Router, React Navigation, Android, SwiftUI/UIKit, "
                   "Flutter) and merges the session's latest exploration; never commits.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"sessionId\":{\"type\":\"string\",\"description\":\"Merges its latest exploration graph.\"},"
              "\"mode\":{\"type\":\"string\",\"enum\":[\"static_only\",\"runtime_merge\",\"full\"]},"
              "\"includeCodeIndex\":{\"type\":\"boolean\"},"
              "\"forceRescan\":{\"type\":\"boolean\"}}}",
    .annot = MCP_ANNOT_W,
    .handler = qa_app_map_build,
};

/* ---- qa_app_map_feature_scope ------------------------------------------------------------------------ */

static void qa_app_map_feature_scope(mcp_call *call, json_t *args)
{
	json_t *o = appmap_run(call, args, sw_appmap_feature_scope, false);
	if (!o)
		return;
	json_t *f = json_object_get(o, "feature");
	char summary[800];
	if (json_is_object(f))
		sw_text_snprintf(summary, sizeof(summary),
		                 "Feature %s (%s): %zu screen(s), %zu test case(s), %zu gap(s)%s.",
		                 mcp_cap(call, json_string_value(json_object_get(f, "id")), 200),
		                 json_string_value(json_object_get(o, "source")),
		                 json_array_size(json_object_get(o, "staticScreens")),
		                 json_array_size(json_object_get(json_object_get(o, "existingTests"), "testCases")),
		                 json_array_size(json_object_get(o, "coverageGaps")),
		                 json_object_get(o, "question") ? "; ambiguous, see question" : "");
	else
		sw_text_snprintf(summary, sizeof(summary), "No feature matches \"%s\" (%s).",
		                 mcp_cap(call, json_string_value(json_object_get(args, "query")), 200),
		                 json_string_value(json_object_get(o, "source")));
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_app_map_feature_scope = {
    .name = "qa_app_map_feature_scope",
    .group = "app-map",
    .description = "A feature's scope: code, static and runtime screens, tests, coverage gaps, strategy; works "
                   "without a map (scans in memory, writes nothing).",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"sessionId\":{\"type\":\"string\",\"description\":\"Adds its runtime evidence.\"},"
              "\"featureId\":{\"type\":\"string\"},"
              "\"query\":{\"type\":\"string\"},"
              "\"platform\":{\"type\":\"string\",\"enum\":[\"android\",\"ios\"]},"
              "\"includeCode\":{\"type\":\"boolean\"},"
              "\"limit\":{\"type\":\"number\",\"minimum\":1,\"maximum\":100}}}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_app_map_feature_scope,
};
