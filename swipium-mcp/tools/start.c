/* start.c: the `start` group: qa_status, qa_job_status, qa_job_cancel, qa_explain_blocker,
 * qa_continue_from_blocker, qa_get_artifact. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

#define GOALS                                                                                                          \
	"\"enum\":[\"smoke\",\"explore\",\"create_automation_suite\",\"release_gate\",\"test_login\",\"reproduce_"     \
	"bug\"]"

static json_t *take_json(char *text)
{
	json_t *v = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
	sw_free(text);
	return v;
}

static bool registered(const char *name)
{
	return mcp_tool_listed(name);
}

static json_t *action(const char *tool, json_t *args, const char *why)
{
	return json_pack("{s:s,s:o,s:s}", "tool", tool, "args", args ? args : json_object(), "why", why);
}

/* ---- qa_status ---------------------------------------------------------------------------- */

static json_t *tool_names(void)
{
	json_t *a = json_array();
	for (size_t i = 0; mcp_tools[i]; i++)
		json_array_append_new(a, json_string(mcp_tools[i]->name));
	return a;
}

static json_t *capability_groups(void)
{
	static const struct {
		const char *group, *purpose;
	} groups[] = {
	    {"start", "Orientation, job polling, blockers and artifacts."},
	    {"setup", "Environment checks and sessions."},
	    {"build", "Finding or building the app artifact."},
	    {"device", "Device state: orientation, location, network, app control."},
	    {"drive", "Observing and driving the screen, and recording outcomes."},
	    {"run", "Smoke runs, exploration and reports."},
	    {"app-map", "The project's app map."},
	    {"feature", "Testing one feature."},
	    {"flows", "Saved replayable flows."},
	    {"generate", "Generated tests and suites."},
	    {"test-suite", "The canonical test suite."},
	    {"issues", "The issue ledger and audits."},
	    {"first-run", "First-run onboarding."},
	};
	json_t *out = json_array();
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		json_t *tools = json_array();
		for (size_t i = 0; mcp_tools[i]; i++)
			if (!strcmp(mcp_tools[i]->group, groups[g].group))
				json_array_append_new(tools, json_string(mcp_tools[i]->name));
		if (json_array_size(tools) == 0) {
			json_decref(tools);
			continue;
		}
		json_array_append_new(out, json_pack("{s:s,s:s,s:o}", "group", groups[g].group, "purpose",
		                                     groups[g].purpose, "tools", tools));
	}
	return out;
}

static void status_orientation(mcp_call *call)
{
	json_t *prompts = json_array();
	json_t *pl = mcp_prompts_list();
	size_t i;
	json_t *p;
	json_array_foreach(pl, i, p)
	{
		json_array_append(prompts, json_object_get(p, "name"));
	}
	json_decref(pl);
	bool test_this = registered("qa_test_this");
	json_t *first = test_this ? action("qa_test_this", json_pack("{s:s}", "mode", "execute"),
	                                   "Runs the whole pipeline as a job.")
	                          : action("qa_start_session", NULL, "Starts a session on the project root.");
	json_t *o = json_pack("{s:b,s:s,s:s}", "orientation", 1, "swipiumVersion", sw_version(), "compatibleWith",
	                      sw_compatible_with());
	json_object_set_new(o, "tools", tool_names());
	json_object_set_new(o, "prompts", prompts);
	json_object_set(o, "firstCall", first);
	json_object_set_new(o, "polling",
	                    json_pack("{s:s,s:{s:s,s:s,s:i},s:s,s:[sss]}", "tool", "qa_job_status", "args", "sessionId",
	                              "<sessionId>", "jobId", "<jobId>", "waitMs", 45000, "until",
	                              "status is no longer running", "terminalStates", "done", "failed", "cancelled"));
	json_object_set_new(o, "report",
	                    json_string("qa_report {sessionId} saves the report; swipium report renders it for CI."));
	json_object_set_new(o, "goals",
	                    json_pack("[ssssss]", "smoke", "explore", "create_automation_suite", "release_gate",
	                              "test_login", "reproduce_bug"));
	json_t *rules = json_object();
	json_object_set_new(rules, "needsInput",
	                    json_string("Ask the user the question verbatim, then qa_continue_from_blocker {sessionId, "
	                                "kind, values}."));
	json_object_set_new(rules, "blocker",
	                    json_string("qa_explain_blocker {failureCode} says what it means and who fixes it; retry "
	                                "only when retrySafe is true."));
	json_object_set_new(
	    rules, "consent",
	    json_string("Relay requiresConsent to the user; re-call with consentId and approve:true only "
	                "after they agree."));
	json_object_set_new(rules, "stop",
	                    json_string("A result with stopped:true means the budget is spent: call qa_report."));
	json_object_set_new(rules, "iosVisualOnly",
	                    json_string("iOS without WebDriverAgent is visual-only: screenshots and visual checks."));
	json_object_set_new(rules, "appMap",
	                    json_string("The app map lives in .swipium/app-map.json and is readable as a resource."));
	json_object_set_new(o, "rules", rules);
	json_object_set_new(o, "capabilityGroups", capability_groups());
	json_object_set_new(o, "nextBestAction", json_deep_copy(first));
	json_decref(first);
	mcp_ok(call, o, "Swipium orientation: no sessionId given. Start with the firstCall below.");
}

static json_t *state_get(sw_session *s, const char *key)
{
	char *text = NULL;
	if (sw_session_get_json(s, key, &text, NULL) != SW_OK)
		return json_null();
	json_t *v = take_json(text);
	return v ? v : json_null();
}

/* The newest report of the session (the library's one rule, as `swipium report` uses): its createdAt, or "". */
static json_t *latest_report(sw_session *s)
{
	char *meta = NULL;
	if (sw_session_latest_report(s, &meta, NULL) != SW_OK)
		return NULL;
	json_t *m = json_loads(meta, 0, NULL);
	sw_free(meta);
	return m;
}

static void status_session(mcp_call *call, sw_session *s, const char *goal)
{
	const char *sid = sw_session_id(s);
	json_t *jobs = state_get(s, "jobs");
	/* counts, not copies: qa_status costs the same after 10 notes or 10,000 */
	char *sum_text = NULL;
	(void)sw_session_summary_json(s, &sum_text, NULL);
	json_t *sum = take_json(sum_text);
	size_t n_notes = (size_t)json_integer_value(json_object_get(sum, "notes"));
	size_t n_findings = (size_t)json_integer_value(json_object_get(sum, "findings"));
	size_t n_recorded = (size_t)json_integer_value(json_object_get(sum, "recordedActions"));
	json_t *device = state_get(s, "device");
	json_t *counters = state_get(s, "counters");
	json_t *budget = state_get(s, "budget");
	json_t *last_job = json_null();
	json_t *running = NULL;
	size_t i;
	json_t *j;
	json_array_foreach(jobs, i, j)
	{
		last_job = j;
		if (!running && json_is_string(json_object_get(j, "status")) &&
		    !strcmp(json_string_value(json_object_get(j, "status")), "running"))
			running = j;
	}
	/* A failed last job whose failure code was not explained yet (qa_explain_blocker marks it). */
	const char *unexplained_code = NULL;
	json_t *milestones = state_get(s, "milestones");
	if (!running && json_is_object(last_job) && json_is_string(json_object_get(last_job, "status")) &&
	    !strcmp(json_string_value(json_object_get(last_job, "status")), "failed")) {
		json_t *result = json_object_get(last_job, "result");
		const char *code = json_string_value(json_object_get(result, "failureCode"));
		if (!code)
			code = json_string_value(
			    json_object_get(json_array_get(json_object_get(result, "blockers"), 0), "failureCode"));
		char key[160];
		sw_text_snprintf(key, sizeof(key), "explained:%s", code ? code : "");
		if (code && !json_object_get(milestones, key))
			unexplained_code = code;
	}
	json_t *latest = latest_report(s);
	const char *report_uri = json_string_value(json_object_get(latest, "uri"));
	const char *report_at = json_string_value(json_object_get(latest, "createdAt"));
	if (!report_at)
		report_at = "";
	const char *notes_at = json_string_value(json_object_get(sum, "notesLastAt"));
	const char *findings_at = json_string_value(json_object_get(sum, "findingsLastAt"));
	if (!notes_at)
		notes_at = "";
	if (!findings_at)
		findings_at = "";

	/* the last qa_test_this job that asked a question: answered since (an input recorded after it ended) or not */
	json_t *asked = NULL;
	bool answered = false;
	if (!running && json_is_object(last_job) && json_is_string(json_object_get(last_job, "kind")) &&
	    !strcmp(json_string_value(json_object_get(last_job, "kind")), "test_this")) {
		json_t *result = json_object_get(last_job, "result");
		const char *state = json_string_value(json_object_get(result, "state"));
		if (state && !strcmp(state, "needs_input") && json_is_object(json_object_get(result, "needsInput"))) {
			asked = json_object_get(result, "needsInput");
			const char *ended = json_string_value(json_object_get(last_job, "endedAt"));
			json_t *inputs = state_get(s, "inputs");
			size_t k;
			json_t *in;
			json_array_foreach(inputs, k, in)
			{
				const char *at = json_string_value(json_object_get(in, "at"));
				if (at && ended && strcmp(at, ended) >= 0)
					answered = true;
			}
			json_decref(inputs);
		}
	}

	json_t *nba = NULL;
	if (asked && answered && registered("qa_test_this")) {
		json_t *resume = json_object_get(json_object_get(asked, "resume"), "args");
		nba = action("qa_test_this", json_is_object(resume) ? json_deep_copy(resume)
		                                                     : json_pack("{s:s,s:s}", "sessionId", sid, "mode", "execute"),
		             "The question of the last qa_test_this run was answered: run the same goal again.");
	} else if (asked && json_is_object(json_object_get(asked, "answerWith"))) {
		json_t *aw = json_object_get(asked, "answerWith");
		nba = action(json_string_value(json_object_get(aw, "tool")), json_deep_copy(json_object_get(aw, "args")),
		             "The last qa_test_this run is waiting for an answer: ask the user its question.");
	} else if (running) {
		nba = action("qa_job_status",
		             json_pack("{s:s,s:O,s:i}", "sessionId", sid, "jobId", json_object_get(running, "jobId"),
		                       "waitMs", 45000),
		             "A job is running: poll it until it leaves running.");
	} else if (unexplained_code) {
		nba = action("qa_explain_blocker",
		             json_pack("{s:s,s:s}", "failureCode", unexplained_code, "sessionId", sid),
		             "The last job was blocked: find out what the failure code means and who fixes it.");
	} else if (json_is_null(device) && registered("qa_test_this")) {
		nba = action("qa_test_this", json_pack("{s:s,s:s}", "sessionId", sid, "mode", "execute"),
		             "No device is bound to this session yet.");
	} else if (json_is_null(device) && registered("qa_prepare_target")) {
		nba = action("qa_prepare_target", json_pack("{s:s}", "sessionId", sid),
		             "No device is bound to this session yet.");
	} else if (strcmp(findings_at, report_at) > 0 && registered("qa_report")) {
		nba = action("qa_report", json_pack("{s:s}", "sessionId", sid),
		             "There are findings newer than the last report.");
	} else if (n_notes == 0 && n_findings == 0 && !json_is_null(device) && n_recorded == 0 &&
	           (registered("qa_smoke") || registered("qa_snapshot"))) {
		bool smoke = registered("qa_smoke");
		nba = action(smoke ? "qa_smoke" : "qa_snapshot", json_pack("{s:s}", "sessionId", sid),
		             smoke ? "A device is bound and nothing ran yet: start with the smoke baseline."
		                   : "A device is bound and nothing ran yet: look at the screen first.");
	} else if (n_notes == 0 && n_findings == 0) {
		nba = action("qa_note",
		             json_pack("{s:s,s:s,s:s}", "sessionId", sid, "workflow", "<workflow>", "outcome", "pass"),
		             "Nothing is recorded yet: record each workflow you check.");
	} else if ((strcmp(notes_at, report_at) > 0 || !report_uri) && registered("qa_report")) {
		/* A release-gate run wants the CI export; other goals the default summary. */
		nba = action("qa_report",
		             goal && !strcmp(goal, "release_gate")
		                 ? json_pack("{s:s,s:s}", "sessionId", sid, "format", "junit")
		                 : json_pack("{s:s}", "sessionId", sid),
		             "Activity happened after the last report.");
	} else if (report_uri) {
		nba = action("qa_get_artifact", json_pack("{s:s}", "uri", report_uri),
		             "The latest report is up to date: read it.");
	} else {
		nba = action("qa_note",
		             json_pack("{s:s,s:s,s:s}", "sessionId", sid, "workflow", "<workflow>", "outcome", "pass"),
		             "Record each further workflow you check.");
	}
	json_t *remaining = json_object();
	json_t *max_actions = json_object_get(budget, "maxActions");
	json_t *max_shots = json_object_get(budget, "maxScreenshots");
	if (json_is_number(max_actions))
		json_object_set_new(remaining, "actions",
		                    json_integer((json_int_t)json_number_value(max_actions) -
		                                 json_integer_value(json_object_get(counters, "actions"))));
	if (json_is_number(max_shots))
		json_object_set_new(remaining, "screenshots",
		                    json_integer((json_int_t)json_number_value(max_shots) -
		                                 json_integer_value(json_object_get(counters, "screenshots"))));
	json_t *o =
	    json_pack("{s:s,s:s,s:O,s:o,s:o,s:o,s:O,s:I,s:I,s:I,s:o,s:o,s:o,s:O,s:o}", "sessionId", sid, "root",
	              sw_session_root(s), "device", device, "appId", state_get(s, "appId"), "mode",
	              state_get(s, "mode"), "budgetRemaining", remaining, "counters", counters, "recordedActions",
	              (json_int_t)n_recorded, "findings", (json_int_t)n_findings, "notes", (json_int_t)n_notes, "workarounds", state_get(s, "workarounds"), "inputsProvided",
	              state_get(s, "inputs"), "readiness",
	              json_pack("{s:b,s:b}", "reportSaved", report_uri != NULL, "deviceBound", !json_is_null(device)),
	              "lastJob", last_job, "nextBestAction", nba);
	if (goal)
		json_object_set_new(o, "goal", json_string(goal));
	char summary[300];
	if (json_is_false(json_object_get(sum, "persisted")))
		json_object_set_new(o, "warnings",
		                    json_pack("[s]", json_string_value(json_object_get(sum, "writeError"))
		                                         ? json_string_value(json_object_get(sum, "writeError"))
		                                         : "the session's last write failed"));
	sw_text_snprintf(summary, sizeof(summary), "Session %s: %zu note(s), %zu finding(s); next: %s", sid, n_notes,
	                 n_findings, json_string_value(json_object_get(nba, "tool")));
	mcp_ok(call, o, summary);
	json_decref(jobs);
	json_decref(sum);
	json_decref(latest);
	json_decref(device);
	json_decref(counters);
	json_decref(budget);
	json_decref(milestones);
}

static void qa_status(mcp_call *call, json_t *args)
{
	if (!json_object_get(args, "sessionId")) {
		status_orientation(call);
		return;
	}
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	status_session(call, s, json_string_value(json_object_get(args, "goal")));
}

const struct mcp_tool mcp_tool_qa_status = {
    .name = "qa_status",
    .group = "start",
    .description = "Orientation without sessionId; with it, session state and nextBestAction.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"sessionId\":{\"type\":\"string\",\"description\":\"Session to report on.\"},"
              "\"goal\":{\"type\":\"string\"," GOALS ",\"description\":\"Biases nextBestAction.\"}}}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_status,
};

/* ---- qa_job_status / qa_job_cancel ------------------------------------------------------------ */

static void qa_job_status(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *job_id = json_string_value(json_object_get(args, "jobId"));
	json_int_t wait = json_integer_value(json_object_get(args, "waitMs"));
	json_t *notes = json_array();
	if (wait > SW_LONG_POLL_MAX_MS) {
		char note[160];
		snprintf(note, sizeof(note), "waitMs was clamped to %d (client timeouts are short); %d is recommended",
		         SW_LONG_POLL_MAX_MS, SW_LONG_POLL_HINT_MS);
		json_array_append_new(notes, json_pack("{s:s}", "note", note));
		wait = SW_LONG_POLL_MAX_MS;
	}
	char *out = NULL;
	sw_error *err = NULL;
	if (sw_job_status_json(s, job_id, (long)wait, mcp_call_abort, call, &out, &err) != SW_OK) {
		json_decref(notes);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *st = take_json(out);
	if (!json_is_object(st)) {
		json_decref(st);
		json_decref(notes);
		mcp_fail(call, "UNKNOWN", "The job record could not be read.", NULL);
		return;
	}
	if (json_array_size(notes)) {
		json_t *flat = json_array();
		size_t i;
		json_t *n;
		json_array_foreach(notes, i, n)
		{
			json_array_append(flat, json_object_get(n, "note"));
		}
		json_object_set_new(st, "notes", flat);
	}
	json_decref(notes);
	const char *status = json_string_value(json_object_get(st, "status"));
	const char *progress = json_string_value(json_object_get(st, "progress"));
	const char *error = json_string_value(json_object_get(st, "error"));
	char summary[700];
	sw_text_snprintf(summary, sizeof(summary), "Job %s (%s): %s%s%s", job_id,
	         json_string_value(json_object_get(st, "kind")) ? json_string_value(json_object_get(st, "kind"))
	                                                        : "job",
	         status ? status : "?", (error || progress) ? " - " : "",
	         mcp_cap(call,
	                 error      ? error
	                 : progress ? progress
	                            : "",
	                 300));
	bool running = status && !strcmp(status, "running");
	if (running)
		mcp_next(call,
		         "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000} until it leaves running",
		         sw_session_id(s), job_id);
	else if (registered("qa_report"))
		mcp_next(call, "qa_report {sessionId: \"%s\"} to save the report", sw_session_id(s));
	mcp_ok(call, st, summary);
	mcp_keep_whole_summary(call);
}

const struct mcp_tool mcp_tool_qa_job_status = {
    .name = "qa_job_status",
    .group = "start",
    .description = "A background job's status and result; waitMs long-polls until it leaves running (max "
                   MCP_STR(SW_LONG_POLL_MAX_MS) ", " MCP_STR(SW_LONG_POLL_HINT_MS) " recommended).",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"jobId\":{\"type\":\"string\"},"
              "\"waitMs\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"Long-poll up to this many ms.\"}},"
              "\"required\":[\"sessionId\",\"jobId\"]}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_job_status,
};

static void qa_job_cancel(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *job_id = json_string_value(json_object_get(args, "jobId"));
	int cancelled = 0;
	sw_error *err = NULL;
	if (sw_job_cancel(s, job_id, &cancelled, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	char summary[200];
	sw_text_snprintf(summary, sizeof(summary),
	         cancelled ? "Job %s cancelled." : "Job %s was not running; nothing to cancel.", job_id);
	mcp_ok(call, json_pack("{s:s,s:b}", "jobId", job_id, "cancelled", cancelled), summary);
}

const struct mcp_tool mcp_tool_qa_job_cancel = {
    .name = "qa_job_cancel",
    .group = "start",
    .description = "Cancels a running job (children stopped, no rollback); cancelled:false when it already ended.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"jobId\":{\"type\":\"string\"}},"
              "\"required\":[\"sessionId\",\"jobId\"]}",
    .annot = MCP_ANNOT_I,
    .handler = qa_job_cancel,
};

/* ---- qa_explain_blocker -------------------------------------------------------------------------- */

static const char *who_fixes(const char *owner)
{
	if (!owner)
		return "Unknown.";
	if (!strcmp(owner, "app"))
		return "The app's developers: this is a problem in the app under test.";
	if (!strcmp(owner, "environment"))
		return "Whoever runs the machine: the emulator, simulator, SDK or network needs attention.";
	if (!strcmp(owner, "swipium"))
		return "Swipium: a limitation or fault of the testing tool, not of the app.";
	return "You or the user: an input, setup step or decision is needed.";
}

static void qa_explain_blocker(mcp_call *call, json_t *args)
{
	const char *code = json_string_value(json_object_get(args, "failureCode"));
	char *text = NULL;
	sw_error *err = NULL;
	if (sw_catalog_lookup(code, &text, &err) != SW_OK) {
		char what[600];
		sw_text_snprintf(what, sizeof(what), "Unknown failureCode \"%s\".", mcp_cap(call, code, 100));
		sw_error_free(err);
		mcp_fail(call, "INVALID_ARGUMENT", what, NULL);
		mcp_fail_step(call, "Pass the failureCode exactly as a Swipium result gave it (e.g. NO_DEVICE).");
		return;
	}
	json_t *e = take_json(text);
	const char *sid = json_string_value(json_object_get(args, "sessionId"));
	if (sid) {
		sw_session *s;
		if (mcp_call_session(call, sid, &s) != 0) {
			json_decref(e);
			return;
		}
		char milestone[160];
		sw_text_snprintf(milestone, sizeof(milestone), "explained:%s", code);
		(void)sw_session_mark_milestone(s, milestone, NULL);
	}
	const char *owner = json_string_value(json_object_get(e, "owner"));
	json_t *o = json_pack(
	    "{s:s,s:O,s:O,s:O,s:O,s:O,s:O,s:s,s:O}", "failureCode", code, "bucket", json_object_get(e, "bucket"),
	    "owner", json_object_get(e, "owner"), "severity", json_object_get(e, "severity"), "retrySafe",
	    json_object_get(e, "retrySafe"), "canSwipiumFix", json_object_get(e, "canSwipiumFix"), "whatItMeans",
	    json_object_get(e, "summary"), "whoFixesIt", who_fixes(owner), "howToFix", json_object_get(e, "recovery"));
	json_t *ctx = json_object_get(args, "context");
	if (ctx)
		json_object_set(o, "context", ctx);
	char summary[400];
	sw_text_snprintf(
	    summary, sizeof(summary), "%s (%s, owner %s): %s", code,
	    json_string_value(json_object_get(e, "bucket")) ? json_string_value(json_object_get(e, "bucket")) : "?",
	    owner ? owner : "?",
	    mcp_cap(call, json_string_value(json_object_get(e, "summary")), 200));
	json_decref(e);
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_explain_blocker = {
    .name = "qa_explain_blocker",
    .group = "start",
    .description =
        "What a failureCode means, who fixes it (bucket, owner), whether a retry is safe, and how to fix it.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"failureCode\":{\"type\":\"string\"},"
              "\"context\":{\"type\":\"string\",\"description\":\"Echoed back.\"},"
              "\"sessionId\":{\"type\":\"string\",\"description\":\"Marks the blocker explained.\"}},"
              "\"required\":[\"failureCode\"]}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_explain_blocker,
};

/* ---- qa_continue_from_blocker ---------------------------------------------------------------------- */

static bool listed(json_t *arr, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
	{
		if (json_is_string(v) && !strcmp(json_string_value(v), name))
			return true;
	}
	return false;
}

static void qa_continue_from_blocker(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *kind = json_string_value(json_object_get(args, "kind"));
	json_t *values = json_object_get(args, "values");
	json_t *secret_fields = json_object_get(args, "secretFields");
	json_t *accepted = json_array(), *ignored = json_array();
	json_t *resume = json_pack("{s:s}", "sessionId", sw_session_id(s));
	char *project_root = NULL;

	if (!strcmp(kind, "monorepo_target")) {
		const char *dir = NULL;
		static const char *const keys[] = {"projectRoot", "target", "path", "dir", NULL};
		for (int k = 0; keys[k] && !dir; k++)
			dir = json_string_value(json_object_get(values, keys[k]));
		char *real = dir ? realpath(dir, NULL) : NULL;
		char *root = realpath(sw_session_root(s), NULL);
		size_t rl = root ? strlen(root) : 0;
		bool inside = real && root && strcmp(real, "/") != 0 && !strncmp(real, root, rl) &&
		              (real[rl] == '/' || real[rl] == '\0');
		if (!inside) {
			free(real);
			free(root);
			json_decref(accepted);
			json_decref(ignored);
			json_decref(resume);
			mcp_fail(call, "INVALID_ARGUMENT",
			         "monorepo_target needs values.projectRoot: an existing directory inside the session's "
			         "project root.",
			         NULL);
			mcp_fail_step(call, "Pick one of the candidate app directories the blocker offered.");
			return;
		}
		project_root = real;
		free(root);
		json_object_set_new(resume, "projectRoot", json_string(project_root));
	}

	const char *key;
	json_t *v;
	json_object_foreach(values, key, v)
	{
		bool secret = sw_redact_is_secret_name(key) || listed(secret_fields, key);
		if (secret && json_is_string(v)) {
			/* Secrets join the redaction set at once; they are kept in memory only. */
			(void)sw_redactor_add_secret(sw_session_redactor(s), json_string_value(v), NULL);
		}
		/* the value itself stays in memory for ${NAME} in flows and the explorer's text entry */
		if (json_is_string(v))
			(void)sw_session_input_set(s, key, json_string_value(v), NULL);
		else if (json_is_boolean(v))
			(void)sw_session_input_set(s, key, json_is_true(v) ? "true" : "false", NULL);
		char *item = NULL;
		json_t *rec =
		    json_pack("{s:s,s:b,s:s}", "varName", key, "secret", secret, "source", "qa_continue_from_blocker");
		item = json_dumps(rec, JSON_COMPACT);
		json_decref(rec);
		if (item)
			(void)sw_session_append_json(s, "inputs", item, NULL);
		free(item);
		if (!strcmp(key, "platform") || !strcmp(key, "device") || !strcmp(key, "target") ||
		    !strcmp(key, "allowOutsideRoot")) {
			json_object_set(resume, key, v);
			json_array_append_new(accepted, json_string(key));
		} else {
			json_array_append_new(accepted, json_string(key));
		}
	}
	size_t i;
	json_array_foreach(secret_fields, i, v)
	{
		if (json_is_string(v) && !json_object_get(values, json_string_value(v)))
			json_array_append_new(
			    ignored, json_pack("{s:O,s:s}", "field", v, "how",
			                       "Listed in secretFields but no value was given; pass it in values."));
	}
	/* the resume of the qa_test_this run that asked: its original goal, goalText and flags, plus the choices */
	json_t *jobs = state_get(s, "jobs");
	json_t *asked_resume = NULL;
	json_array_foreach(jobs, i, v)
	{
		if (json_is_string(json_object_get(v, "kind")) && !strcmp(json_string_value(json_object_get(v, "kind")), "test_this"))
			asked_resume = json_object_get(
			    json_object_get(json_object_get(json_object_get(v, "result"), "needsInput"), "resume"), "args");
	}
	if (json_is_object(asked_resume)) {
		json_t *merged = json_deep_copy(asked_resume);
		json_object_update(merged, resume);
		json_decref(resume);
		resume = merged;
	}
	json_decref(jobs);
	json_t *next;
	if (registered("qa_test_this"))
		next = action("qa_test_this", json_incref(resume), "Resume the run with the answers given.");
	else
		next = action("qa_status", json_pack("{s:s}", "sessionId", sw_session_id(s)),
		              "See what to do next with the answers recorded.");
	json_decref(resume);
	json_t *o =
	    json_pack("{s:s,s:o,s:o,s:o}", "kind", kind, "accepted", accepted, "ignored", ignored, "nextAction", next);
	if (project_root)
		json_object_set_new(o, "projectRoot", json_string(project_root));
	free(project_root);
	char summary[200];
	sw_text_snprintf(summary, sizeof(summary),
	                 "Recorded %zu answer(s) for %s; secrets are redacted and kept in memory only.",
	                 json_array_size(accepted), mcp_cap(call, kind, 60));
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_continue_from_blocker = {
    .name = "qa_continue_from_blocker",
    .group = "start",
    .description = "Answers a needs_input blocker (credentials, monorepo_target...). Secret fields are redacted "
                   "everywhere and never stored.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"sessionId\":{\"type\":\"string\"},"
              "\"kind\":{\"type\":\"string\",\"description\":\"Blocker kind, e.g. credentials, monorepo_target.\"},"
              "\"values\":{\"type\":\"object\",\"additionalProperties\":{\"type\":[\"string\",\"boolean\"]}},"
              "\"secretFields\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
              "\"description\":\"Extra field names to treat as secret.\"}},"
              "\"required\":[\"sessionId\",\"kind\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_continue_from_blocker,
};

/* ---- qa_get_artifact ----------------------------------------------------------------------------- */

char *mcp_base64(const unsigned char *p, size_t n);

static void qa_get_artifact(mcp_call *call, json_t *args)
{
	sw_store *store = mcp_call_store(call);
	if (!store)
		return;
	const char *uri = json_string_value(json_object_get(args, "uri"));
	const char *mode = json_string_value(json_object_get(args, "mode"));
	char *meta_text = NULL;
	sw_error *err = NULL;
	if (sw_artifact_read(store, uri, SW_ARTIFACT_READ_METADATA, NULL, NULL, &meta_text, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		mcp_fail_step(call, "Use a swipium:// URI exactly as a Swipium result returned it.");
		return;
	}
	json_t *meta = take_json(meta_text);
	bool is_text = json_is_true(json_object_get(meta, "text"));
	bool inline_it = mode ? !strcmp(mode, "inline") : is_text;
	const char *mime = json_string_value(json_object_get(meta, "mime"));
	char summary[1200];
	if (!inline_it) {
		sw_text_snprintf(summary, sizeof(summary), "%s (%s, %lld bytes) at %s", mcp_cap(call, uri, 500),
		                 mime ? mime : "?", (long long)json_integer_value(json_object_get(meta, "bytes")),
		                 json_string_value(json_object_get(meta, "path"))
		                     ? mcp_cap(call, json_string_value(json_object_get(meta, "path")), 500)
		                     : "?");
		json_object_set_new(meta, "mode", json_string("metadata"));
		mcp_ok(call, meta, summary);
		return;
	}
	char *data = NULL;
	size_t len = 0;
	json_decref(meta);
	meta_text = NULL;
	if (sw_artifact_read(store, uri, 0, &data, &len, &meta_text, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	meta = take_json(meta_text);
	mime = json_string_value(json_object_get(meta, "mime")); /* the first metadata (and its mime) is gone */
	json_object_set_new(meta, "mode", json_string("inline"));
	if (!data) {
		const char *note = json_string_value(json_object_get(meta, "note"));
		sw_text_snprintf(summary, sizeof(summary), "%s was not inlined: %s", mcp_cap(call, uri, 500),
		                 note ? mcp_cap(call, note, 500) : "too large");
		mcp_ok(call, meta, summary);
		return;
	}
	if (is_text) {
		sw_text_snprintf(summary, sizeof(summary), "%s (%s, %zu bytes shown)", mcp_cap(call, uri, 500),
		                 mime ? mime : "text", len);
		char *clean = sw_text_is_valid(data, len) ? NULL : sw_text_cap(data, len, SIZE_MAX, SW_CAP_HEAD);
		json_t *t = clean ? json_string(clean) : json_stringn(data, len);
		sw_free(clean);
		mcp_add_content(call, json_pack("{s:s,s:o}", "type", "text", "text", t ? t : json_string("")));
	} else {
		char *b64 = mcp_base64((const unsigned char *)data, len);
		sw_text_snprintf(summary, sizeof(summary), "%s (%s, %zu bytes inlined)", mcp_cap(call, uri, 500),
		                 mime ? mime : "binary", len);
		if (mime && !strncmp(mime, "image/", 6))
			mcp_add_content(call, json_pack("{s:s,s:s,s:s}", "type", "image", "data", b64 ? b64 : "",
			                                "mimeType", mime));
		else
			mcp_add_content(call, json_pack("{s:s,s:{s:s,s:s,s:s}}", "type", "resource", "resource", "uri",
			                                uri, "mimeType", mime ? mime : "application/octet-stream",
			                                "blob", b64 ? b64 : ""));
		free(b64);
	}
	sw_free(data);
	mcp_ok(call, meta, summary);
}

const struct mcp_tool mcp_tool_qa_get_artifact = {
    .name = "qa_get_artifact",
    .group = "start",
    .description = "Reads a swipium:// artifact. Text inline by default (1 MB cap); images and other binaries as "
                   "metadata unless mode inline.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"uri\":{\"type\":\"string\",\"description\":\"swipium://session/<id>/<kind>/<name>\"},"
              "\"mode\":{\"type\":\"string\",\"enum\":[\"metadata\",\"inline\"]}},"
              "\"required\":[\"uri\"]}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_get_artifact,
};
