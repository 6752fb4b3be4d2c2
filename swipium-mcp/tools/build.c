/* build.c: the `build` group tools over libswipium's artifacts: qa_resolve_artifact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

/* ---- qa_resolve_artifact ------------------------------------------------------------------------ */

static void qa_resolve_artifact(mcp_call *call, json_t *args)
{
	sw_session *s;
	char *root, *source;
	if (mcp_call_session_root(call, args, false, NULL, 0, &s, &root, &source) != 0)
		return;
	json_t *o = json_object();
	static const char *const keys[] = {"platform", "buildType", "path", "allowOutsideRoot", "requireInstallableOn",
	                                   NULL};
	for (int i = 0; keys[i]; i++)
		if (json_object_get(args, keys[i]))
			json_object_set(o, keys[i], json_object_get(args, keys[i]));
	char *oj = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_artifact_resolve(mcp_call_ctx(call), root, oj, &out, &err);
	free(oj);
	if (rc != SW_OK) {
		const char *code = sw_error_failure_code(err);
		mcp_fail_err(call, err);
		if (!strcmp(code, "NO_BUILD_ARTIFACT") && mcp_tool_listed("qa_build"))
			mcp_fail_step(call, "qa_build {projectRoot: \"%s\", platform} to plan the project's own build",
			              root);
		else if (!strcmp(code, "AAB_NEEDS_BUNDLETOOL") && mcp_tool_listed("qa_bundletool"))
			mcp_fail_step(call, "qa_bundletool {sessionId} to convert the bundle to an APK");
		else if (!strcmp(code, "ARTIFACT_OUTSIDE_ROOT_REQUIRES_APPROVAL"))
			mcp_fail_step(
			    call, "qa_resolve_artifact with allowOutsideRoot: true, if that file is the app to test");
		sw_error_free(err);
		free(root);
		sw_free(source);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	json_object_set_new(res, "projectRoot", json_string(root));
	if (source)
		json_object_set_new(res, "rootSource", json_string(source));
	json_t *best = json_object_get(res, "best");
	const char *app = json_string_value(json_object_get(best, "appId"));
	char summary[1200];
	sw_text_snprintf(summary, sizeof(summary), "Best artifact: %s (%s %s%s%s), %zu candidate(s).",
	                 json_string_value(json_object_get(best, "path")),
	                 json_string_value(json_object_get(best, "type")),
	                 json_string_value(json_object_get(best, "buildType")), app ? ", " : ", no app id",
	                 app ? app : "", json_array_size(json_object_get(res, "candidates")));
	const char *type = json_string_value(json_object_get(best, "type"));
	if (type && !strcmp(type, "apk")) {
		if (s)
			mcp_next(call,
			         "qa_prepare_target {sessionId: \"%s\", apk: \"%s\"%s%s%s} to install and launch it",
			         sw_session_id(s), json_string_value(json_object_get(best, "path")),
			         app ? ", appId: \"" : "", app ? app : "", app ? "\"" : "");
		else
			mcp_next(call, "qa_start_session, then qa_prepare_target {sessionId, apk} to install it");
	}
	mcp_ok(call, res, summary);
	free(root);
	sw_free(source);
}

const struct mcp_tool mcp_tool_qa_resolve_artifact = {
    .name = "qa_resolve_artifact",
    .group = "build",
    .description = "Finds the app the project already built (.apk/.aab/.ipa/.app in Gradle, Flutter, Xcode outputs) "
                   "and reads app id, versions, minSdk, ABIs; ranked candidates.",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"platform\":{\"type\":\"string\",\"enum\":[\"android\",\"ios\",\"any\"]},"
              "\"buildType\":{\"type\":\"string\",\"enum\":[\"debug\",\"release\",\"any\"]},"
              "\"path\":{\"type\":\"string\",\"description\":\"Read this artifact only.\"},"
              "\"allowOutsideRoot\":{\"type\":\"boolean\",\"description\":\"Also outside the root "
              "(symlinks out, Xcode DerivedData).\"},"
              "\"requireInstallableOn\":{\"type\":\"string\",\"enum\":[\"android-emulator\",\"android-real\","
              "\"ios-simulator\",\"ios-real\"]}}}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_resolve_artifact,
};
