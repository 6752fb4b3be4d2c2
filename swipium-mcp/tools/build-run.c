/* build-run.c: qa_build, the project's own build over libswipium's build concern: plan (default), or run as a
 * job after the build_from_source consent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

/* The consent's commands: every step with its argv and folder, quoted by the gate. (transfer full) */
static json_t *consent_commands(json_t *plan)
{
	json_t *cmds = json_array();
	static const char *const lists[] = {"prerequisites", "build"};
	for (size_t l = 0; l < 2; l++) {
		size_t i;
		json_t *st;
		json_array_foreach(json_object_get(plan, lists[l]), i, st)
		    json_array_append_new(cmds, json_pack("{s:O,s:O,s:O,s:s}", "label", json_object_get(st, "label"), "argv",
		                                          json_object_get(st, "argv"), "cwd", json_object_get(st, "cwd"),
		                                          "origin", "the project's build files"));
	}
	return cmds;
}

static size_t step_count(json_t *plan)
{
	return json_array_size(json_object_get(plan, "prerequisites")) + json_array_size(json_object_get(plan, "build"));
}

static void qa_build(mcp_call *call, json_t *args)
{
	const char *mode = json_string_value(json_object_get(args, "mode"));
	bool run = mode && !strcmp(mode, "run");
	sw_session *s = NULL;
	if (run && !json_object_get(args, "sessionId")) {
		mcp_fail(call, "INVALID_ARGUMENT", "mode \"run\" needs a sessionId: the build runs as a job of a session.",
		         json_pack("{s:[s]}", "invalidArguments", "sessionId: Required for mode run"));
		mcp_fail_step(call, "qa_start_session {projectRoot}, then qa_build {sessionId, mode: \"run\", platform}");
		return;
	}
	if (json_object_get(args, "sessionId") && mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *root_arg = json_string_value(json_object_get(args, "projectRoot"));
	char *root = NULL, *source = NULL;
	if (s && (run || !root_arg)) {
		root = strdup(sw_session_root(s));
		if (!root) {
			mcp_fail(call, "UNKNOWN", "Out of memory.", NULL);
			return;
		}
	} else if (mcp_call_project_root(call, root_arg, &root, &source) != 0) {
		return;
	}
	json_t *o = json_pack("{s:O}", "platform", json_object_get(args, "platform"));
	if (json_object_get(args, "variant"))
		json_object_set(o, "variant", json_object_get(args, "variant"));
	char *oj = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_build_plan(root, oj, &out, &err);
	free(oj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		const char *code = sw_error_failure_code(err);
		if (!strcmp(code, "UNSUPPORTED_FRAMEWORK") && mcp_tool_listed("qa_resolve_artifact"))
			mcp_fail_step(call, "qa_resolve_artifact {projectRoot: \"%s\"} if the app was built another way", root);
		sw_error_free(err);
		free(root);
		sw_free(source);
		return;
	}
	json_t *plan = json_loads(out, 0, NULL);
	sw_free(out);
	size_t n = step_count(plan);
	const char *fw = json_string_value(json_object_get(plan, "framework"));
	const char *platform = json_string_value(json_object_get(plan, "platform"));
	const char *variant = json_string_value(json_object_get(plan, "variant"));
	if (!run) {
		json_t *res = json_pack("{s:s,s:O,s:s}", "mode", "plan", "plan", plan, "projectRoot", root);
		if (source)
			json_object_set_new(res, "rootSource", json_string(source));
		char *steps = NULL;
		size_t steps_len = 0;
		FILE *m = open_memstream(&steps, &steps_len);
		static const char *const lists[] = {"prerequisites", "build"};
		for (size_t l = 0; m && l < 2; l++) {
			size_t i;
			json_t *st;
			json_array_foreach(json_object_get(plan, lists[l]), i, st)
			    fprintf(m, "\n  %s (in %s)", json_string_value(json_object_get(st, "command")),
			            json_string_value(json_object_get(st, "cwd")));
		}
		if (m)
			fclose(m);
		char *summary = sw_text_capf(4000, SW_CAP_HEAD, "Build plan for %s (%s %s), %zu step(s); nothing ran:%s",
		                             fw, platform, variant, n, steps ? steps : "");
		free(steps);
		mcp_keep_whole_summary(call);
		if (s)
			mcp_next(call, "qa_build {sessionId: \"%s\", mode: \"run\", platform: \"%s\", variant: \"%s\"} to run it "
			         "(asks consent build_from_source)",
			         sw_session_id(s), platform, variant);
		else
			mcp_next(call, "qa_start_session {projectRoot: \"%s\"}, then qa_build {sessionId, mode: \"run\", "
			         "platform: \"%s\"} to run it",
			         root, platform);
		mcp_ok(call, res, summary ? summary : "Build plan ready.");
		sw_free(summary);
		json_decref(plan);
		free(root);
		sw_free(source);
		return;
	}

	/* run: every step, with its folder, is in the prompt; nothing runs before the answer */
	json_t *commands = consent_commands(plan);
	/* the consent is bound to these steps: a plan that changed before the re-call asks again */
	json_t *lines = json_array();
	size_t ci;
	json_t *cv;
	json_array_foreach(commands, ci, cv)
	    json_array_append_new(lines, json_pack("{s:O,s:O}", "argv", json_object_get(cv, "argv"), "cwd",
	                                           json_object_get(cv, "cwd")));
	json_t *affects = json_pack("{s:s,s:s,s:s,s:s,s:o}", "projectRoot", root, "framework", fw, "platform", platform,
	                            "variant", variant, "steps", lines);
	char explain[600];
	sw_text_snprintf(explain, sizeof(explain),
	                 "Build the %s app from source (%s, %s): runs the project's own build tools and scripts (%zu "
	                 "step(s)), which can run any code the project holds and download dependencies.",
	                 platform, fw, variant, n);
	struct mcp_consent_request req = {
	    .action = "build_from_source",
	    .risk = "high",
	    .explain = explain,
	    .affects = affects,
	    .session = s,
	    .commands = commands,
	};
	enum mcp_consent_outcome oc = mcp_call_consent_take(call, args, &req);
	if (oc == MCP_CONSENT_ANSWERED) {
		json_decref(plan);
		free(root);
		sw_free(source);
		return;
	}
	json_t *t = json_object_get(args, "timeoutMs");
	long timeout = json_is_number(t) && json_number_value(t) >= 1 ? (long)json_number_value(t) : SW_BUILD_STEP_TIMEOUT_MS;
	char *pj = json_dumps(plan, JSON_COMPACT);
	char *job_id = NULL;
	rc = pj ? sw_build_start(mcp_call_ctx(call), s, pj, timeout, &job_id, &err) : SW_ENOMEM;
	free(pj);
	if (rc != SW_OK) {
		if (err)
			mcp_fail_err(call, err);
		else
			mcp_fail(call, "UNKNOWN", "Out of memory.", NULL);
		sw_error_free(err);
		json_decref(plan);
		free(root);
		sw_free(source);
		return;
	}
	json_t *res = json_pack("{s:s,s:s,s:s,s:O,s:I}", "mode", "run", "jobId", job_id, "status", "running", "plan",
	                        plan, "timeoutMs", (json_int_t)timeout);
	if (root_arg && strcmp(root_arg, root))
		json_object_set_new(res, "notes",
		                    json_pack("[s]", "projectRoot is ignored in mode run: the session's project is built"));
	mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000}", sw_session_id(s), job_id);
	char summary[400];
	sw_text_snprintf(summary, sizeof(summary), "Building %s (%s %s) in the background: %zu step(s), job %s.", fw,
	                 platform, variant, n, job_id);
	mcp_ok(call, res, summary);
	sw_free(job_id);
	json_decref(plan);
	free(root);
	sw_free(source);
}

const struct mcp_tool mcp_tool_qa_build = {
    .name = "qa_build",
    .group = "build",
    .description = "Plans (default, runs nothing) or runs the project's own build (Gradle, Flutter, Xcode, Expo "
                   "prebuild) as a job after consent build_from_source; returns the built artifact and build log.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"mode\":{\"type\":\"string\",\"enum\":[\"plan\",\"run\"]},"
              "\"sessionId\":{\"type\":\"string\",\"description\":\"Required for run.\"},"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"platform\":{\"type\":\"string\",\"enum\":[\"android\",\"ios\"]},"
              "\"variant\":{\"type\":\"string\",\"enum\":[\"debug\",\"release\"]},"
              "\"timeoutMs\":{\"type\":\"number\",\"minimum\":1,\"description\":\"Per step (run); default "
              "1200000.\"},"
              "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}},"
              "\"required\":[\"platform\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_build,
};
