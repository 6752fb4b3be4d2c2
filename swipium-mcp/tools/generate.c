/* generate.c: qa_generate (generate group): parses the call, asks the consents, calls sw_generate, prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mcp.h"

static const char *str(json_t *args, const char *k)
{
	return json_string_value(json_object_get(args, k));
}

/* 1 record first, 0 not, -1 not a valid value (the library says so): true, false, or "auto" (no session). */
static int bootstrap_wanted(json_t *args, sw_session *s)
{
	json_t *b = json_object_get(args, "bootstrap");
	if (!b || json_is_null(b) || (json_is_string(b) && !strcmp(json_string_value(b), "auto")))
		return s == NULL;
	return json_is_boolean(b) ? json_is_true(b) : -1;
}

/*
 * Records first (target appium, nothing recorded): the bootstrap plan (in mode plan that is the answer), its one
 * test_this_plan consent when it asks for one, a new session for a call without one, then the prepare and the
 * crawl. 0: *@boot (transfer full) holds what was done and *@s the session; else the call is answered.
 */
static int bootstrap(mcp_call *call, json_t *args, json_t *o, bool plan, const char *root, const char *source,
                     sw_session **s, json_t **boot)
{
	json_t *po = json_deep_copy(o);
	json_object_del(po, "root");
	json_object_set_new(po, "listedTools", mcp_listed_tools());
	char *pj = json_dumps(po, JSON_COMPACT), *pout = NULL;
	json_decref(po);
	sw_error *err = NULL;
	int rc = pj ? sw_generate_bootstrap_plan(mcp_call_ctx(call), *s, root, pj, &pout, &err) : SW_ENOMEM;
	free(pj);
	if (rc != SW_OK) {
		if (err)
			mcp_fail_err(call, err);
		else
			mcp_fail(call, "UNKNOWN", "qa_generate ran out of memory.", NULL);
		sw_error_free(err);
		return -1;
	}
	json_t *bp = json_loads(pout, 0, NULL);
	if (plan) {
		char summary[400];
		sw_text_snprintf(
		    summary, sizeof(summary),
		    "qa_generate appium (plan): nothing recorded yet; generate would record first (%s), then "
		    "write a %s suite for %s (%s). Nothing was run or written.",
		    json_array_size(json_object_get(bp, "blockers"))
		        ? "blocked, see blockers"
		        : (json_is_true(json_object_get(json_object_get(bp, "consent"), "required"))
		               ? "after one test_this_plan consent"
		               : "no consent needed"),
		    str(json_object_get(bp, "appium"), "language"), str(bp, "primaryPlatform"),
		    str(bp, "platformSource"));
		mcp_next(call,
		         "qa_generate {target: \"appium\", projectRoot: ...} (mode generate) to record and write it");
		mcp_ok(call, bp, summary);
		sw_free(pout);
		return -1;
	}
	json_t *blocker = json_array_get(json_object_get(bp, "blockers"), 0);
	json_t *consent = json_object_get(bp, "consent");
	if (!blocker && json_is_true(json_object_get(consent, "required"))) {
		char explain[600];
		sw_text_snprintf(
		    explain, sizeof(explain),
		    "qa_generate has nothing recorded to turn into an Appium suite: prepare the emulator for "
		    "%s (%s, launch it), crawl its safe controls to record a run, then write the suite.",
		    mcp_cap(call, root, 200),
		    json_is_true(json_object_get(json_object_get(bp, "artifactChoice"), "insideProjectRoot"))
		        ? "install the project's APK"
		        : "install an APK from outside the project");
		json_t *affects = json_pack("{s:s,s:o}", "projectRoot", root, "steps", mcp_plan_consent_steps(bp));
		mcp_plan_affects_artifact(affects, json_object_get(bp, "artifactChoice"),
		                          json_object_get(bp, "targetChoice"));
		struct mcp_consent_request req = {
		    .action = "test_this_plan",
		    .risk = str(consent, "risk"),
		    .explain = explain,
		    .affects = affects,
		    .session = *s,
		    .commands = mcp_plan_consent_commands(bp),
		};
		if (mcp_call_consent_take(call, args, &req) == MCP_CONSENT_ANSWERED) {
			json_decref(bp);
			sw_free(pout);
			return -1;
		}
	}
	json_decref(bp);
	if (!*s && !blocker) {
		sw_store *store = mcp_call_store(call);
		if (!store) {
			sw_free(pout);
			return -1;
		}
		if (sw_session_create(store, root, source, NULL, s, &err) != SW_OK) {
			mcp_fail_err(call, err);
			sw_error_free(err);
			sw_free(pout);
			return -1;
		}
		call->session = *s;
	}
	char *bout = NULL;
	rc = *s || blocker ? sw_generate_bootstrap_run(mcp_call_ctx(call), *s, pout, mcp_call_abort, call, &bout, &err)
	                   : SW_EINVAL;
	sw_free(pout);
	if (rc != SW_OK) {
		if (err)
			mcp_fail_err(call, err);
		else
			mcp_fail(call, "UNKNOWN", "qa_generate could not record first.", NULL);
		sw_error_free(err);
		return -1;
	}
	*boot = json_loads(bout, 0, NULL);
	sw_free(bout);
	return 0;
}

/*
 * Asks the consent @action (the whole @cmd shown, @affects stolen). True when the call is answered already (a
 * prompt, a refusal or an error was sent: the caller returns); false when it was approved, and then @flag is set
 * true in the library options @o.
 */
static bool ask(mcp_call *call, json_t *args, sw_session *s, const char *action, const char *risk, const char *explain,
                const char *cmd, json_t *affects, json_t *o, const char *flag)
{
	const struct mcp_consent_request req = {
	    .action = action, .risk = risk, .explain = explain, .exact_command = cmd, .affects = affects, .session = s};
	if (mcp_call_consent_take(call, args, &req) == MCP_CONSENT_ANSWERED) /* releases @affects */
		return true;
	json_object_set_new(o, flag, json_true());
	return false;
}

static void qa_generate(mcp_call *call, json_t *args)
{
	const char *target = str(args, "target");
	const char *mode = str(args, "mode") ? str(args, "mode") : "generate";
	bool plan = !strcmp(mode, "plan");
	sw_session *s = NULL;
	if (json_object_get(args, "sessionId") && mcp_call_session(call, NULL, &s) != 0)
		return;
	if (!json_object_get(args, "sessionId") && target && strcmp(target, "appium") != 0) {
		mcp_fail(
		    call, "INVALID_ARGUMENT",
		    "qa_generate needs sessionId for this target: the session's recorded actions are what it generates "
		    "from (only target appium may start without one).",
		    NULL);
		return;
	}
	char *root = NULL, *source = NULL;
	const char *root_arg = str(args, "projectRoot");
	if (root_arg || !s) {
		if (mcp_call_project_root(call, root_arg, &root, &source) != 0)
			return;
	}
	json_t *o = json_deep_copy(args);
	static const char *const drop[] = {"sessionId", "projectRoot",        "consentId",
	                                   "approve",   "freshStateApproved", "automationWriteApproved"};
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		json_object_del(o, drop[i]);
	if (root)
		json_object_set_new(o, "root", json_string(root));
	/* appium with nothing recorded and bootstrap (auto without a session): record first, then generate */
	json_t *boot = NULL;
	if (target && !strcmp(target, "appium") && bootstrap_wanted(args, s) == 1 && sw_generate_needs_recording(s)) {
		int brc = bootstrap(call, args, o, plan, root ? root : sw_session_root(s), source, &s, &boot);
		if (brc != 0) {
			json_decref(o);
			sw_free(root);
			sw_free(source);
			return;
		}
	}
	sw_free(source);
	/* appium integrateIntoProject writes into the app's own project: automation_project_write first */
	if (!plan && target && !strcmp(target, "appium") &&
	    json_is_true(json_object_get(args, "integrateIntoProject"))) {
		const char *where = root ? root : (s ? sw_session_root(s) : "the project");
		char *cmd = NULL;
		if (asprintf(&cmd, "write the generated Appium suite into %s (existing files are never overwritten)",
		             where) < 0)
			cmd = NULL;
		bool answered =
		    ask(call, args, s, "automation_project_write", "medium",
		        "qa_generate adds a generated Appium suite to the app's project; it never overwrites "
		        "a file.",
		        cmd, json_pack("[s]", where), o, "automationWriteApproved");
		free(cmd);
		if (answered) {
			json_decref(o);
			sw_free(root);
			return;
		}
	}
	/* a fresh_state replay with a state profile: the profile's every step in the suite_fresh_state_replay prompt */
	const char *replay = str(args, "replay");
	bool fresh = !plan && s && target && !strcmp(target, "suite") && replay && !strcmp(replay, "fresh_state") &&
	             str(args, "stateProfile");
	if (fresh) {
		json_t *po = json_pack("{ss,ss}", "root", root ? root : sw_session_root(s), "stateProfile",
		                       str(args, "stateProfile"));
		char *pj = json_dumps(po, JSON_COMPACT), *pout = NULL;
		json_decref(po);
		sw_error *pe = NULL;
		int prc = pj ? sw_generate_state_profile(pj, &pout, &pe) : SW_ENOMEM;
		free(pj);
		if (prc != SW_OK) {
			if (pe)
				mcp_fail_err(call, pe);
			else
				mcp_fail(call, "UNKNOWN", "qa_generate ran out of memory.", NULL);
			sw_error_free(pe);
			json_decref(o);
			sw_free(root);
			return;
		}
		json_t *prof = json_loads(pout, 0, NULL);
		sw_free(pout);
		bool answered =
		    ask(call, args, s, "suite_fresh_state_replay", str(prof, "risk") ? str(prof, "risk") : "high",
		        "qa_generate runs the state profile's prepare steps (from the repository, unreviewed), "
		        "then the generated suite, then its teardown steps, on the session's device.",
		        str(prof, "exactCommand"), json_pack("[O]", json_object_get(prof, "path")), o,
		        "freshStateApproved");
		json_decref(prof);
		if (answered) {
			json_decref(o);
			sw_free(root);
			return;
		}
	}
	/* a same-session or fresh-state replay runs the compiled flows on the session's device now */
	sw_drive *d = NULL;
	if (!plan && s && target && !strcmp(target, "suite") && replay && (!strcmp(replay, "same_session") || fresh)) {
		if (!(d = mcp_drive_get(call, s))) {
			json_decref(o);
			sw_free(root);
			return;
		}
		sw_drive_set_abort(d, mcp_call_abort, call);
	}
	char *oj = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	sw_free(root);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = oj ? sw_generate(mcp_call_ctx(call), s, d, oj, &out, &err) : SW_ENOMEM;
	if (d)
		sw_drive_set_abort(d, NULL, NULL);
	free(oj);
	if (rc != SW_OK) {
		if (err)
			mcp_fail_err(call, err);
		else
			mcp_fail(call, "UNKNOWN", "qa_generate ran out of memory.", NULL);
		sw_error_free(err);
		json_decref(boot);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	if (boot) {
		/* the recording this call made first, and the session it lives in */
		json_object_set_new(res, "bootstrap", boot);
		json_object_set_new(res, "sessionId", json_string(sw_session_id(s)));
	}
	size_t nfiles = json_array_size(json_object_get(res, "files"));
	bool saved = json_is_true(json_object_get(res, "saved"));
	char summary[400];
	sw_text_snprintf(summary, sizeof(summary), "qa_generate %s (%s): %lld step(s), %zu file(s) %s%s%s", target,
	                 mode, (long long)json_integer_value(json_object_get(res, "steps")), nfiles,
	                 saved ? "written" : (plan ? "planned, nothing written" : "returned, not saved"),
	                 json_object_get(res, "ciReady")
	                     ? (json_is_true(json_object_get(res, "ciReady")) ? "; CI ready" : "; not CI ready")
	                     : "",
	                 json_array_size(json_object_get(res, "skipped")) ? "; some actions skipped (see skipped)"
	                                                                  : "");
	if (target && (!strcmp(target, "flow") || !strcmp(target, "suite")) && saved)
		mcp_next(call, "qa_flow_check {flow: ...} on the written flow, then qa_flow_run to replay it");
	else if (plan)
		mcp_next(call, "qa_generate {mode: \"generate\"} to build the files");
	mcp_ok(call, res, summary);
}

#define GEN_STR "{\"type\":\"string\"}"
#define GEN_BOOL "{\"type\":\"boolean\"}"

const struct mcp_tool mcp_tool_qa_generate = {
    .name = "qa_generate",
    .group = "generate",
    .description = "Turn the session's recorded actions into a Flow V2 flow, page objects with a locator audit, a POM "
                   "suite with compiled flows and a replay gate, a TC-xxx test-case catalog, or an Appium suite. "
                   "Secrets become ${SWIPIUM_*} placeholders; mode plan writes and runs nothing.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"target\":{\"type\":\"string\",\"enum\":[\"flow\",\"pom\",\"suite\",\"testcases\",\"appium\"]},"
              "\"mode\":{\"type\":\"string\",\"enum\":[\"plan\",\"generate\"]},"
              "\"sessionId\":" GEN_STR ",\"name\":" GEN_STR ",\"save\":" GEN_BOOL ","
              "\"budgetProfile\":{\"type\":\"string\",\"enum\":[\"guardrail\",\"login_smoke\",\"full_smoke\","
              "\"install_smoke\"]},"
              "\"compile\":" GEN_BOOL ","
              "\"replay\":{\"type\":\"string\",\"enum\":[\"none\",\"dry_run\",\"same_session\",\"fresh_state\"]},"
              "\"stateProfile\":" GEN_STR ","
              "\"format\":{\"type\":\"string\",\"enum\":[\"yaml\",\"markdown\",\"both\"]},"
              "\"projectRoot\":" GEN_STR ","
              "\"bootstrap\":{\"anyOf\":[{\"type\":\"boolean\"},{\"type\":\"string\",\"enum\":[\"auto\"]}]},"
              "\"feature\":" GEN_STR ",\"device\":" GEN_STR ","
              "\"language\":{\"type\":\"string\",\"enum\":[\"auto\",\"javascript\",\"typescript\",\"python\"]},"
              "\"platform\":{\"type\":\"string\",\"enum\":[\"auto\",\"android\",\"ios\",\"both\"]},"
              "\"backend\":{\"type\":\"string\",\"enum\":[\"auto\",\"appium\",\"swipium_flow\"]},"
              "\"integrateIntoProject\":" GEN_BOOL ",\"includeCi\":" GEN_BOOL ",\"candidateOnly\":" GEN_BOOL ","
              "\"brittleThreshold\":{\"type\":\"number\"},"
              "\"consentId\":" GEN_STR ",\"approve\":" GEN_BOOL "},\"required\":[\"target\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_generate,
};
