/* feature.c: qa_test_feature (group `feature`) over libswipium's autopilot (swipium/feature.h): arguments in, the
 * plan or the job out. Without sessionId, execute makes a session and asks one test_this_plan consent for the
 * device's preparation, which then runs inside the job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

/* A consent asked for a call without sessionId belongs to the session made for it; the re-call with consentId
 * finds it here. */
static struct mcp_consent_sessions pending;
#define PENDING_CAP 32

/* The plan as text: the objective, then one line per case. */
static char *plan_text(mcp_call *call, json_t *plan, const char *head)
{
	size_t len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "%s", head);
	const char *obj = json_string_value(json_object_get(plan, "objective"));
	if (obj)
		fprintf(f, "\nObjective: %s", mcp_cap(call, obj, 300));
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(plan, "cases"), i, c)
	{
		if (i >= 20) {
			fprintf(f, "\n... and %zu more case(s) in cases[]", json_array_size(json_object_get(plan, "cases")) - i);
			break;
		}
		fprintf(f, "\n%zu. [%s] %s", i + 1, json_string_value(json_object_get(c, "kind")),
		        mcp_cap(call, json_string_value(json_object_get(c, "title")), 200));
	}
	json_array_foreach(json_object_get(plan, "blockers"), i, c)
	fprintf(f, "\nblocked: %s", json_string_value(json_object_get(c, "failureCode")));
	fclose(f);
	return buf;
}

static json_t *consent_affects(json_t *plan, sw_session *s)
{
	json_t *a = json_pack("{s:s,s:O,s:O,s:o}", "sessionId", sw_session_id(s), "projectRoot",
	                      json_object_get(plan, "projectRoot"), "feature", json_object_get(plan, "featureId"),
	                      "steps", mcp_plan_consent_steps(plan));
	json_t *boot = json_object_get(plan, "bootstrap");
	mcp_plan_affects_artifact(a, json_object_get(boot, "artifactChoice"), json_object_get(boot, "targetChoice"));
	return a;
}

static void qa_test_feature(mcp_call *call, json_t *args)
{
	const char *mode = json_string_value(json_object_get(args, "mode"));
	if (!mode)
		mode = "plan";
	bool run = strcmp(mode, "plan") != 0;
	bool given_session = json_object_get(args, "sessionId") != NULL;
	sw_session *s = NULL;
	const char *sid = json_string_value(json_object_get(args, "sessionId"));
	if (!sid && run)
		sid = mcp_consent_sessions_get(&pending, PENDING_CAP,
		                               json_string_value(json_object_get(args, "consentId")));
	if (sid && mcp_call_session(call, sid, &s) != 0)
		return;
	char *root = NULL, *source = NULL;
	const char *root_arg = json_string_value(json_object_get(args, "projectRoot"));
	if (!s || root_arg) {
		if (mcp_call_project_root(call, root_arg, &root, &source) != 0)
			return;
	} else {
		root = strdup(sw_session_root(s));
	}
	json_t *opts = json_deep_copy(args);
	json_object_del(opts, "sessionId");
	json_object_del(opts, "projectRoot");
	json_object_del(opts, "consentId");
	json_object_del(opts, "approve");
	json_object_set_new(opts, "listedTools", mcp_listed_tools());
	if (!given_session)
		json_object_set_new(opts, "bootstrap", json_true());
	char *oj = json_dumps(opts, JSON_COMPACT);
	json_decref(opts);
	char *pj = NULL;
	sw_error *err = NULL;
	int rc = sw_test_feature_plan(mcp_call_ctx(call), s, root, oj, &pj, &err);
	if (rc == SW_OK && run && !s) {
		/* the run's session, made only once the arguments are known to be good */
		sw_free(pj);
		pj = NULL;
		sw_store *store = mcp_call_store(call);
		if (!store)
			goto out;
		if ((rc = sw_session_create(store, root, source, NULL, &s, &err)) == SW_OK) {
			call->session = s;
			rc = sw_test_feature_plan(mcp_call_ctx(call), s, root, oj, &pj, &err);
		}
	}
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		goto out;
	}
	json_t *plan = json_loads(pj, 0, NULL);
	if (source && !given_session)
		json_object_set_new(plan, "rootSource", json_string(source));

	if (!run) {
		json_object_del(plan, "listedTools");
		char head[400];
		sw_text_snprintf(head, sizeof(head), "qa_test_feature plan for \"%s\" (%s, %s): %zu case(s); %s.",
		                 mcp_cap(call, json_string_value(json_object_get(plan, "featureTitle")), 120),
		                 mcp_cap(call, json_string_value(json_object_get(plan, "featureId")), 80),
		                 json_string_value(json_object_get(plan, "scopeSource")),
		                 json_array_size(json_object_get(plan, "cases")),
		                 json_array_size(json_object_get(plan, "blockers")) ? "blocked"
		                 : json_is_true(json_object_get(json_object_get(plan, "consent"), "required"))
		                     ? "execute asks one test_this_plan consent"
		                     : "ready to run");
		char *text = plan_text(call, plan, head);
		mcp_keep_whole_summary(call);
		mcp_ok(call, plan, text ? text : head);
		free(text);
		goto out;
	}

	char *running = sw_test_feature_running(s);
	if (running) {
		json_t *res = json_pack("{s:s,s:s,s:s,s:b,s:[s]}", "sessionId", sw_session_id(s), "jobId", running, "state",
		                        "running", "alreadyRunning", 1, "notes",
		                        "a qa_test_feature job is already running on this session; this call started "
		                        "nothing: poll the running job");
		mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000}", sw_session_id(s), running);
		char summary[200];
		sw_text_snprintf(summary, sizeof(summary), "qa_test_feature job %s is already running; nothing new started.",
		                 running);
		sw_free(running);
		json_decref(plan);
		mcp_ok(call, res, summary);
		goto out;
	}
	json_t *consent = json_object_get(plan, "consent");
	if (json_is_true(json_object_get(consent, "required"))) {
		char explain[600];
		sw_text_snprintf(explain, sizeof(explain),
		                 "Prepare the emulator for qa_test_feature on %s: %s, launch it, then test the feature "
		                 "\"%s\" with safe taps only and save a report.",
		                 mcp_cap(call, root, 200),
		                 json_is_true(json_object_get(
		                     json_object_get(json_object_get(plan, "bootstrap"), "artifactChoice"), "insideProjectRoot"))
		                     ? "install the project's APK"
		                     : "install an APK from outside the project",
		                 mcp_cap(call, json_string_value(json_object_get(plan, "featureTitle")), 120));
		struct mcp_consent_request req = {
		    .action = "test_this_plan",
		    .risk = json_string_value(json_object_get(consent, "risk")),
		    .explain = explain,
		    .affects = consent_affects(plan, s),
		    .session = s,
		    .commands = mcp_plan_consent_commands(plan),
		};
		if (mcp_call_consent_take(call, args, &req) == MCP_CONSENT_ANSWERED) {
			mcp_consent_sessions_put(&pending, PENDING_CAP, call, s);
			json_decref(plan);
			goto out;
		}
	}
	json_decref(plan);
	char *job_id = NULL;
	if (sw_test_feature_start(mcp_call_ctx(call), s, pj, &job_id, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		goto out;
	}
	json_t *res = json_pack("{s:s,s:s,s:s}", "sessionId", sw_session_id(s), "jobId", job_id, "state", "running");
	mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000} until it leaves running",
	         sw_session_id(s), job_id);
	char summary[200];
	sw_text_snprintf(summary, sizeof(summary), "qa_test_feature started as job %s on session %s.", job_id,
	                 sw_session_id(s));
	sw_free(job_id);
	mcp_ok(call, res, summary);
out:
	free(oj);
	sw_free(pj);
	free(root);
	sw_free(source);
}

const struct mcp_tool mcp_tool_qa_test_feature = {
    .name = "qa_test_feature",
    .group = "feature",
    .description = "Tests one named feature: scope from the app map, planned cases (plan, default, changes nothing), "
                   "then a job that walks there with safe taps and records pass/fail/blocked per case.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"feature\":{\"type\":\"string\",\"description\":\"The feature in a few words.\"},"
              "\"mode\":{\"type\":\"string\",\"enum\":[\"plan\",\"execute\",\"interactive\"]},"
              "\"platform\":{\"type\":\"string\",\"enum\":[\"android\",\"ios\"]},"
              "\"device\":{\"type\":\"string\"},"
              "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"},"
              "\"creativity\":{\"type\":\"string\",\"enum\":[\"conservative\",\"standard\",\"creative\","
              "\"adversarial\"]},"
              "\"allowAdversarial\":{\"type\":\"boolean\"},"
              "\"maxScreens\":{\"type\":\"number\"},\"maxActions\":{\"type\":\"number\"},"
              "\"timeoutMs\":{\"type\":\"number\"},"
              "\"generateCases\":{\"type\":\"boolean\"},\"includeCode\":{\"type\":\"boolean\"},"
              "\"limit\":{\"type\":\"number\"}},"
              "\"required\":[\"feature\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_test_feature,
};
