/* bootstrap.c: qa_generate target appium with nothing recorded yet: record first (prepare the device from the
 * project, crawl the app's safe controls), then generate from that recording. */
#include <stdlib.h>
#include <string.h>

#include "catalog-internal.h"
#include "gen-internal.h"
#include <swipium/actions.h>
#include <swipium/autopilot.h>
#include <swipium/explore.h>
#include <swipium/generate.h>

/* The crawl that records the run: qa_explore's strict mode (nothing destructive, nothing typed), kept short. */
#define BOOT_DEPTH 3
#define BOOT_MAX_ACTIONS 12
#define BOOT_MAX_SCREENS 6

static const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

SW_API int sw_generate_needs_recording(sw_session *s)
{
	if (!s)
		return true;
	json_t *recorded = NULL, *model = NULL;
	(void)sw__session_get(s, "recordedActions", &recorded, NULL);
	int none = 1;
	if (json_array_size(recorded) && sw__gen_model(recorded, NULL, NULL, &model, NULL) == SW_OK)
		none = json_array_size(json_object_get(model, "steps")) == 0;
	json_decref(model);
	json_decref(recorded);
	return none;
}

/* The bootstrap setting of @opts: true, false, or "auto" (true without a session). -1: not a valid value. */
int sw__gen_bootstrap_wanted(const json_t *opts, bool have_session)
{
	json_t *b = json_object_get(opts, "bootstrap");
	if (!b || json_is_null(b))
		return !have_session;
	if (json_is_boolean(b))
		return json_is_true(b);
	if (json_is_string(b) && !strcmp(json_string_value(b), "auto"))
		return !have_session;
	return -1;
}

static json_t *step_named(const json_t *plan, const char *name)
{
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(plan, "steps"), i,
	                   st) if (sget(st, "step") && !strcmp(sget(st, "step"), name)) return st;
	return NULL;
}

SW_API int sw_generate_bootstrap_plan(sw_ctx *ctx, sw_session *s, const char *root, const char *options_json,
                                      char **plan_json, sw_error **err)
{
	if (!root || !plan_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_generate_bootstrap_plan: root and plan_json are required");
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(opts)) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "qa_generate arguments must be an object");
	}
	int rc = SW_OK;
	json_t *tt = NULL, *choices = NULL, *res = NULL;
	const char *target = sget(opts, "target"), *mode = sget(opts, "mode") ? sget(opts, "mode") : "generate";
	if (!target || strcmp(target, "appium") != 0) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Use target appium.",
		                   "only target appium records first (bootstrap); the other targets need a session's "
		                   "recording");
		goto out;
	}
	if (sw__gen_bootstrap_wanted(opts, s != NULL) < 0) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Give true, false or \"auto\".",
		                   "bootstrap must be true, false or \"auto\"");
		goto out;
	}
	/* what the suite would be (language, platform) before anything is recorded: the model has no device yet */
	json_t *params = json_deep_copy(opts);
	json_object_set_new(params, "root", json_string(root));
	json_t *empty = json_pack("{s:s,s:[]}", "appId", "", "steps");
	rc = sw__gen_appium_choices(empty, params, &choices, err);
	json_decref(empty);
	json_decref(params);
	if (rc < 0)
		goto out;
	/* the device and the app: qa_test_this's plan (find the project's APK, pick the emulator, prepare) */
	json_t *tto = json_pack("{s:s}", "mode", "execute");
	const char *pl = sget(opts, "platform");
	if (pl && (!strcmp(pl, "android") || !strcmp(pl, "ios")))
		json_object_set_new(tto, "platform", json_string(pl));
	if (sget(opts, "device"))
		json_object_set_new(tto, "device", json_string(sget(opts, "device")));
	if (json_is_array(json_object_get(opts, "listedTools")))
		json_object_set(tto, "listedTools", json_object_get(opts, "listedTools"));
	char *ttj = sw__json_compact(tto), *tout = NULL;
	json_decref(tto);
	rc = ttj ? sw_test_this_plan(ctx, s, root, ttj, &tout, err) : sw__error_nomem(err);
	free(ttj);
	if (rc < 0)
		goto out;
	tt = json_loads(tout, 0, NULL);
	sw_free(tout);
	if (!tt) {
		rc = sw__error_nomem(err);
		goto out;
	}
	json_t *steps = json_array();
	static const char *const kept[] = {"resolve_project", "find_artifact", "pick_target", "prepare"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(kept); i++) {
		json_t *st = step_named(tt, kept[i]);
		if (st)
			json_array_append(steps, st);
	}
	json_t *crawl = json_pack("{s:i,s:i,s:i,s:s,s:b}", "depth", BOOT_DEPTH, "maxActions", BOOT_MAX_ACTIONS,
	                          "maxScreens", BOOT_MAX_SCREENS, "safeMode", "strict", "stopOnAuth", 0);
	json_array_append_new(steps, json_pack("{s:s,s:s,s:{s:s,s:O},s:s}", "step", "record", "status",
	                                       json_array_size(json_object_get(tt, "blockers")) ? "blocked" : "planned",
	                                       "tool", "tool", "qa_explore", "args", crawl, "why",
	                                       "crawl the app's safe controls (nothing destructive, nothing typed); "
	                                       "every tap is recorded, then the suite is generated from them"));
	json_t *notes = json_array();
	json_array_extend(notes, json_object_get(choices, "notes"));
	json_array_append_new(notes, json_string("nothing is recorded yet: qa_generate prepares the device from the "
	                                         "project, records a short crawl, then generates from it"));
	if (!strcmp(mode, "plan"))
		json_array_append_new(notes, json_string("mode plan: nothing is written or run (save forced off)"));
	res = json_pack("{s:s,s:s,s:s,s:b,s:[],s:O,s:O,s:{s:b,s:O,s:O,s:o*},s:O,s:O*,s:O*,s:O*,s:O*,s:o}", "target",
	                "appium", "mode", mode, "projectRoot", root, "saved", 0, "files", "primaryPlatform",
	                json_object_get(choices, "primaryPlatform"), "platformSource",
	                json_object_get(choices, "platformSource"), "bootstrap", "needed", 1, "steps", steps, "crawl",
	                crawl, "appId", json_deep_copy(json_object_get(json_object_get(tt, "artifactChoice"), "appId")),
	                "appium", choices, "consent", json_object_get(tt, "consent"), "artifactChoice",
	                json_object_get(tt, "artifactChoice"), "targetChoice", json_object_get(tt, "targetChoice"),
	                "blockers", json_object_get(tt, "blockers"), "notes", notes);
	json_decref(steps);
	json_decref(crawl);
	if (!res) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*plan_json = sw__json_compact(res);
	rc = *plan_json ? SW_OK : sw__error_nomem(err);
out:
	json_decref(res);
	json_decref(choices);
	json_decref(tt);
	json_decref(opts);
	return rc;
}

SW_API int sw_generate_bootstrap_run(sw_ctx *ctx, sw_session *s, const char *plan_json, int (*cancel)(void *),
                                     void *cancel_ud, char **result_json, sw_error **err)
{
	if (!plan_json || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_generate_bootstrap_run: plan and result are required");
	json_t *plan = json_loads(plan_json, 0, NULL);
	if (!json_is_object(plan)) {
		json_decref(plan);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "the bootstrap plan is not a JSON object");
	}
	int rc = SW_OK;
	json_t *res = json_object(), *prep = NULL, *ex = NULL;
	json_t *blocker = json_array_get(json_object_get(plan, "blockers"), 0);
	if (blocker) {
		/* the plan cannot run (no APK, no emulator, iOS...): its own code, its own words, nothing touched */
		const char *code = sget(blocker, "failureCode") ? sget(blocker, "failureCode") : "NO_DEVICE";
		rc =
		    sw__error_set(err, sw__catalog_result(code, SW_ESTATE), code, sget(blocker, "howToFix"),
		                  "qa_generate could not record first: %s. Nothing was run on a device and nothing was "
		                  "written.",
		                  sget(blocker, "whatItMeans") ? sget(blocker, "whatItMeans") : code);
		goto out;
	}
	if (!s) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "sw_generate_bootstrap_run: the session the recording goes into is required");
		goto out;
	}
	const json_t *prep_step = NULL;
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(json_object_get(plan, "bootstrap"), "steps"), i, st)
	{
		if (sget(st, "step") && !strcmp(sget(st, "step"), "prepare"))
			prep_step = st;
	}
	json_t *pargs = json_object_get(json_object_get(prep_step, "tool"), "args");
	json_t *po = json_object();
	static const char *const keys[] = {"device", "avd", "apk", "appId"};
	for (size_t k = 0; k < SW_ARRAY_SIZE(keys); k++)
		if (json_is_string(json_object_get(pargs, keys[k])))
			json_object_set(po, keys[k], json_object_get(pargs, keys[k]));
	char *poj = sw__json_compact(po), *pout = NULL;
	json_decref(po);
	rc = poj ? sw_prepare_target_run(ctx, s, poj, &pout, err) : sw__error_nomem(err);
	free(poj);
	if (rc < 0)
		goto out;
	prep = json_loads(pout, 0, NULL);
	sw_free(pout);
	json_object_set(res, "prepared", prep ? prep : json_null());
	if (cancel && cancel(cancel_ud)) {
		rc = sw__error_set(
		    err, SW_ECANCELLED, "CANCELLED", NULL,
		    "qa_generate was cancelled after preparing the device; nothing was recorded or written");
		goto out;
	}
	json_t *crawl = json_object_get(json_object_get(plan, "bootstrap"), "crawl");
	char *cj = json_is_object(crawl) ? sw__json_compact(crawl) : sw__strdup("{}"), *xout = NULL;
	rc =
	    cj ? sw_explore_run(ctx, s, cj, cancel, cancel_ud, "generate-bootstrap", &xout, err) : sw__error_nomem(err);
	free(cj);
	if (rc < 0)
		goto out;
	ex = json_loads(xout, 0, NULL);
	sw_free(xout);
	json_object_set_new(res, "crawl",
	                    json_pack("{s:O*,s:O*,s:O*,s:O*,s:O*,s:O*}", "state", json_object_get(ex, "state"),
	                              "stoppedReason", json_object_get(ex, "stoppedReason"), "summary",
	                              json_object_get(ex, "summary"), "actions", json_object_get(ex, "actions"),
	                              "screens", json_object_get(ex, "screens"), "graphUri",
	                              json_object_get(ex, "graphUri")));
	const char *stopped = sget(ex, "stoppedReason");
	if ((cancel && cancel(cancel_ud)) || (stopped && !strcmp(stopped, "cancelled"))) {
		rc = sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL,
		                   "qa_generate was cancelled while recording; nothing was written");
		goto out;
	}
	if (sw_generate_needs_recording(s)) {
		/* a login wall, a screen of destructive controls only: the crawl touched nothing a suite could replay
		 */
		rc = sw__error_set(err, SW_ENOTFOUND, "NO_RECORDED_ACTIONS",
		                   "Drive the app past that point with qa_act in this session (sessionId), then call "
		                   "qa_generate again with it.",
		                   "qa_generate recorded first, but the crawl made no replayable action (stopped: %s); "
		                   "there is nothing to generate from and nothing was written",
		                   stopped ? stopped : "unknown");
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:s}", "sessionId", sw_session_id(s)));
		goto out;
	}
	*result_json = sw__json_compact(res);
	rc = *result_json ? SW_OK : sw__error_nomem(err);
out:
	json_decref(ex);
	json_decref(prep);
	json_decref(res);
	json_decref(plan);
	return rc;
}
