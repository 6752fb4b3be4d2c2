/* plan-consent.c: the one test_this_plan consent request of an autopilot plan (qa_test_this's, or qa_test_feature's
 * when it prepares the device itself): what the person approving reads, what the approval is bound to, and every
 * command it approves, argv whole. */
#include <stdlib.h>
#include <string.h>

#include "autopilot-internal.h"
#include <swipium/autopilot.h>

/* The plan's consent steps twice: as the prompt's @commands {label, argv, origin} (argv never cut) and as
 * affects.steps {kind, risk}. (transfer full, both) */
static void consent_lists(json_t *consent, json_t **commands, json_t **steps)
{
	*commands = json_array();
	*steps = json_array();
	size_t i;
	json_t *cs;
	json_array_foreach(json_object_get(consent, "steps"), i, cs)
	{
		json_t *kind = json_object_get(cs, "kind");
		json_array_append_new(*commands, json_pack("{s:O,s:O,s:O}", "label", kind, "argv",
		                                           json_object_get(cs, "argv"), "origin", json_object_get(cs, "origin")));
		json_array_append_new(*steps, json_pack("{s:O,s:O}", "kind", kind, "risk", json_object_get(cs, "risk")));
	}
}

/* The artifact (@art: path, appId, insideProjectRoot) and the selected target the approval is bound to. */
static void affects_artifact(json_t *affects, json_t *art, json_t *target_choice)
{
	if (json_is_object(art)) {
		json_object_set(affects, "apk", json_object_get(art, "path"));
		json_object_set(affects, "appId", json_object_get(art, "appId"));
		json_object_set(affects, "insideProjectRoot", json_object_get(art, "insideProjectRoot"));
		/* an APK from outside the project is named by its content too */
		const char *path = json_string_value(json_object_get(art, "path"));
		char hex[65];
		if (json_is_false(json_object_get(art, "insideProjectRoot")) && path &&
		    sw_sha256_file_hex(path, hex, NULL, NULL) == SW_OK)
			json_object_set_new(affects, "sha256", json_string(hex));
	}
	json_t *sel = json_object_get(target_choice, "selected");
	if (json_is_object(sel))
		json_object_set(affects, "target", sel);
}

static char *cap(const char *s, size_t max)
{
	return sw_text_cap(s ? s : "", (size_t)-1, max, SW_CAP_HEAD_TAIL);
}

int sw_test_plan_consent(sw_session *s, const char *plan_json, char **request_json, sw_error **err)
{
	*request_json = NULL;
	json_t *plan = plan_json ? json_loads(plan_json, 0, NULL) : NULL;
	if (!json_is_object(plan)) {
		json_decref(plan);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass the plan sw_test_this_plan() or "
		                     "sw_test_feature_plan() returned.", "the plan is not a JSON object");
	}
	json_t *consent = json_object_get(plan, "consent");
	json_t *req;
	if (!json_is_true(json_object_get(consent, "required"))) {
		req = json_pack("{s:b}", "required", 0);
	} else {
		/* a feature plan prepares the device through the qa_test_this plan it keeps under bootstrap */
		const char *feature_id = json_string_value(json_object_get(plan, "featureId"));
		json_t *prep = feature_id ? json_object_get(plan, "bootstrap") : plan;
		json_t *art = json_object_get(prep, "artifactChoice");
		const char *install = json_is_true(json_object_get(art, "insideProjectRoot"))
		                          ? "install the project's APK"
		                          : "install an APK from outside the project";
		char *root = cap(json_string_value(json_object_get(plan, "projectRoot")), 200);
		char *title = feature_id ? cap(json_string_value(json_object_get(plan, "featureTitle")), 120) : NULL;
		char *explain =
		    feature_id ? sw__asprintf("Prepare the emulator for qa_test_feature on %s: %s, launch it, then test the "
		                              "feature \"%s\" with safe taps only and save a report.",
		                              root ? root : "", install, title ? title : "")
		               : sw__asprintf("Run qa_test_this on %s: %s on the emulator, launch it, smoke it and save a "
		                              "report.",
		                              root ? root : "", install);
		sw_free(root);
		sw_free(title);
		json_t *commands, *steps;
		consent_lists(consent, &commands, &steps);
		json_t *affects = s ? json_pack("{s:s}", "sessionId", sw_session_id(s)) : json_object();
		if (affects)
			json_object_set(affects, "projectRoot", json_object_get(plan, "projectRoot"));
		if (affects && feature_id)
			json_object_set_new(affects, "feature", json_string(feature_id));
		if (affects) {
			json_object_set(affects, "steps", steps);
			affects_artifact(affects, art, json_object_get(prep, "targetChoice"));
		}
		req = explain && affects ? json_pack("{s:b,s:s,s:O?,s:s,s:O,s:O}", "required", 1, "action",
		                                     "test_this_plan", "risk", json_object_get(consent, "risk"), "explain",
		                                     explain, "affects", affects, "commands", commands)
		                         : NULL;
		json_decref(commands);
		json_decref(steps);
		json_decref(affects);
		free(explain);
	}
	json_decref(plan);
	*request_json = req ? sw__json_compact(req) : NULL;
	json_decref(req);
	return *request_json ? SW_OK : sw__error_nomem(err);
}
