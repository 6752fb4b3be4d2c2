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

static void qa_test_feature(mcp_call *call, json_t *args)
{
	const char *mode = json_string_value(json_object_get(args, "mode"));
	if (!mode)
		mode = "plan";
	bool run = strcmp(mode, "plan") != 0;
	bool given_session = json_object_get(args, "sessionId") != NULL;
	sw_session *s = NULL;
	char *root = NULL, *source = NULL;
	if (mcp_call_session_root(call, args, run, &pending, PENDING_CAP, &s, &root, &source) != 0)
		return;
	static const char *const drop[] = {"projectRoot", NULL};
	json_t *opts = mcp_args_for_library(args, drop);
	json_object_set_new(opts, "listedTools", mcp_listed_tools());
	if (!given_session)
		json_object_set_new(opts, "bootstrap", json_true());
	char *oj = json_dumps(opts, JSON_COMPACT);
	json_decref(opts);
	char *pj = mcp_call_plan(call, sw_test_feature_plan, run, &s, root, source, oj);
	if (!pj)
		goto out;
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
	json_decref(plan);

	char *job_id = mcp_call_plan_start(call, args, s, pj, sw_test_feature_running, sw_test_feature_start, &pending,
	                                   PENDING_CAP, NULL);
	if (!job_id)
		goto out;
	mcp_ok_job(call, s, job_id, false, NULL);
	sw_free(job_id);
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
