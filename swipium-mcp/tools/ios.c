/* ios.c: qa_ios, the iOS Simulator through the library's simctl driver (list, boot, install, ... erase). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool.h"

/* Consent per action (TOOLS.md §1.2): install install_app medium, privacy_reset low, erase erase_device high. */
static const struct {
	const char *action, *consent, *risk;
} gates[] = {
    {"install", "install_app", "medium"},
    {"privacy_reset", "privacy_reset", "low"},
    {"erase", "erase_device", "high"},
};

static json_t *lib_options(json_t *args)
{
	json_t *o = json_object();
	static const char *const keys[] = {"action", "device", "app", "bundleId", "url", "last", "service", NULL};
	for (int i = 0; keys[i]; i++)
		if (json_object_get(args, keys[i]))
			json_object_set(o, keys[i], json_object_get(args, keys[i]));
	return o;
}

/* The explanation shown with the consent prompt. */
static void explain(char *buf, size_t n, const char *action, const char *service, json_t *plan)
{
	const char *name = json_string_value(json_object_get(plan, "name"));
	const char *udid = json_string_value(json_object_get(plan, "udid"));
	json_t *app = json_object_get(plan, "app");
	if (!strcmp(action, "install"))
		sw_text_snprintf(buf, n, "Install %s (%s)%s on the simulator %s (%s).",
		                 json_string_value(json_object_get(app, "path")),
		                 json_string_value(json_object_get(app, "bundleId")),
		                 json_is_false(json_object_get(app, "insideProjectRoot")) ? ", from outside the project" : "",
		                 name, udid);
	else if (!strcmp(action, "erase"))
		sw_text_snprintf(buf, n,
		                 "Erase the simulator %s (%s): every app, its data and the settings are deleted; it is shut "
		                 "down first.",
		                 name, udid);
	else
		sw_text_snprintf(buf, n, "Reset the privacy permissions (%s) of %s on the simulator %s (%s).",
		                 service ? service : "all",
		                 json_is_string(json_object_get(plan, "bundleId"))
		                     ? json_string_value(json_object_get(plan, "bundleId"))
		                     : "every app",
		                 name, udid);
}

static bool gate(mcp_call *call, json_t *args, sw_session *s, const char *action, const char *oj)
{
	for (size_t i = 0; i < sizeof(gates) / sizeof(gates[0]); i++) {
		if (strcmp(gates[i].action, action) != 0)
			continue;
		char *pj = NULL;
		sw_error *err = NULL;
		if (sw_ios_plan(mcp_call_ctx(call), s, oj, &pj, &err) != SW_OK) {
			mcp_fail_err(call, err);
			sw_error_free(err);
			return false;
		}
		json_t *plan = json_loads(pj, 0, NULL);
		sw_free(pj);
		char why[1500];
		explain(why, sizeof(why), action, json_string_value(json_object_get(args, "service")), plan);
		json_t *affects = json_pack("{s:s,s:O,s:O}", "action", action, "udid", json_object_get(plan, "udid"), "name",
		                            json_object_get(plan, "name"));
		json_t *app = json_object_get(plan, "app");
		if (app)
			json_object_set_new(affects, "app",
			                    json_pack("{s:O,s:O,s:O*}", "path", json_object_get(app, "path"), "bundleId",
			                              json_object_get(app, "bundleId"), "insideProjectRoot",
			                              json_object_get(app, "insideProjectRoot")));
		if (!app && json_object_get(plan, "bundleId"))
			json_object_set(affects, "bundleId", json_object_get(plan, "bundleId"));
		json_t *commands = json_array();
		size_t k;
		json_t *c;
		json_array_foreach(json_object_get(plan, "commands"), k, c)
		{
			json_array_append_new(commands, json_pack("{s:O,s:O,s:s}", "label", json_object_get(c, "label"), "argv",
			                                          json_object_get(c, "argv"), "origin", "the qa_ios arguments"));
		}
		struct mcp_consent_request req = {
		    .action = gates[i].consent,
		    .risk = gates[i].risk,
		    .explain = why,
		    .affects = affects,
		    .session = s,
		    .commands = commands,
		};
		enum mcp_consent_outcome oc = mcp_call_consent_take(call, args, &req);
		json_decref(plan);
		return oc == MCP_CONSENT_APPROVED;
	}
	return true; /* ungated */
}

static void summary_for(char *buf, size_t n, const char *action, json_t *r)
{
	const char *name = json_string_value(json_object_get(r, "name"));
	const char *bid = json_string_value(json_object_get(r, "bundleId"));
	if (!strcmp(action, "list")) {
		json_t *om = json_object_get(r, "omitted");
		sw_text_snprintf(buf, n, "%zu iOS simulator(s), %zu booted; %zu unavailable and %zu of other platforms left out.",
		                 json_array_size(json_object_get(r, "simulators")), json_array_size(json_object_get(r, "booted")),
		                 json_array_size(json_object_get(om, "unavailable")),
		                 json_array_size(json_object_get(om, "otherPlatforms")));
	} else if (!strcmp(action, "boot"))
		sw_text_snprintf(buf, n, "%s %s (%s) and bound it to the session.",
		                 !strcmp(json_string_value(json_object_get(r, "status")), "booted")
		                     ? (json_is_true(json_object_get(r, "alreadyBooted")) ? "Already booted:" : "Booted")
		                     : "Still booting:",
		                 name, json_string_value(json_object_get(r, "runtime")));
	else if (!strcmp(action, "install"))
		sw_text_snprintf(buf, n, "Installed %s on %s.", bid, name);
	else if (!strcmp(action, "launch"))
		sw_text_snprintf(buf, n, "Launched %s on %s.", bid, name);
	else if (!strcmp(action, "terminate"))
		sw_text_snprintf(buf, n, json_is_true(json_object_get(r, "wasRunning")) ? "Terminated %s on %s."
		                                                                         : "%s was not running on %s.",
		                 bid, name);
	else if (!strcmp(action, "openurl"))
		sw_text_snprintf(buf, n, "Opened the URL on %s.", name);
	else if (!strcmp(action, "logs"))
		sw_text_snprintf(buf, n, "Saved %lld log line(s) of %s (last %s).",
		                 (long long)json_integer_value(json_object_get(r, "lines")), name,
		                 json_string_value(json_object_get(r, "last")));
	else if (!strcmp(action, "privacy_reset"))
		sw_text_snprintf(buf, n, "Reset privacy (%s) on %s.", json_string_value(json_object_get(r, "reset")), name);
	else
		sw_text_snprintf(buf, n, "Erased %s.", name);
}

static void qa_ios(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *action = json_string_value(json_object_get(args, "action"));
	json_t *o = lib_options(args);
	char *oj = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!oj) {
		mcp_fail(call, "UNKNOWN", "Out of memory.", NULL);
		return;
	}
	if (!gate(call, args, s, action, oj)) {
		free(oj);
		return;
	}
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_ios_run(mcp_call_ctx(call), s, oj, mcp_call_abort, call, &out, &err);
	free(oj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *r = json_loads(out, 0, NULL);
	sw_free(out);
	char sum[600];
	summary_for(sum, sizeof(sum), action, r);
	const char *sid = sw_session_id(s);
	if (!strcmp(action, "boot") && json_is_string(json_object_get(r, "next")))
		mcp_next(call, "qa_wait {sessionId: \"%s\", for: \"simulator_booted\"}", sid);
	else if (!strcmp(action, "boot") || !strcmp(action, "install"))
		mcp_next(call, "qa_ios {sessionId: \"%s\", action: \"launch\", bundleId}", sid);
	else if (!strcmp(action, "launch") || !strcmp(action, "openurl"))
		mcp_next(call, "qa_screenshot {sessionId: \"%s\"}", sid);
	else if (!strcmp(action, "logs") && json_is_string(json_object_get(r, "logUri")))
		mcp_next(call, "qa_get_artifact {uri: \"%s\"}", json_string_value(json_object_get(r, "logUri")));
	else if (!strcmp(action, "list") && json_array_size(json_object_get(r, "booted")) == 0)
		mcp_next(call, "qa_ios {sessionId: \"%s\", action: \"boot\", device: \"<UDID or name>\"}", sid);
	mcp_ok(call, r, sum);
}

const struct mcp_tool mcp_tool_qa_ios = {
    .name = "qa_ios",
    .group = "setup",
    .description = "iOS Simulator through xcrun simctl: list, boot (binds), install (.app), launch, terminate, "
                   "openurl, logs, privacy_reset, erase; consent per action.",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
              "\"action\":{\"type\":\"string\",\"enum\":[\"list\",\"boot\",\"install\",\"launch\",\"terminate\","
              "\"openurl\",\"logs\",\"privacy_reset\",\"erase\"]},"
              "\"device\":{\"type\":\"string\",\"description\":\"UDID or name substring.\"},"
              "\"app\":{\"type\":\"string\",\"description\":\"Simulator .app bundle.\"},"
              "\"bundleId\":{\"type\":\"string\"},\"url\":{\"type\":\"string\"},"
              "\"last\":{\"type\":\"string\",\"description\":\"Log window, e.g. 5m, 1h.\"},"
              "\"service\":{\"type\":\"string\",\"description\":\"Privacy service (all, location, photos...).\"},"
              "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}},"
              "\"required\":[\"sessionId\",\"action\"]}",
    .annot = MCP_ANNOT_D,
    .handler = qa_ios,
};
