/* state.c: the state.json document: its key order, defaults, and the checks applied when loading one. */
#include <string.h>

#include "store-internal.h"

/* Top-level keys of state.json in the order the reference writes them. */
/* clang-format off */
static const char *const state_keys[] = {
	"id", "root", "dir", "createdAt", "device", "driverKind", "wdaUrl", "appId", "headless", "metroPid",
	"screenshotCount", "network", "envChanges", "workarounds", "chosenTarget", "lastTestThisArgs", "mode",
	"responseMode", "sensitive", "budget", "counters", "jobs", "artifacts", "findings", "notes", "mutations",
	"recordedActions", "toolErrors", "fixtures", "auth", "milestones", "budgetProfile", "inputs",
	"generatedValues", "exploration",
};
/* clang-format on */

bool sw__state_key_known(const char *key)
{
	for (size_t i = 0; key && i < SW_ARRAY_SIZE(state_keys); i++)
		if (!strcmp(key, state_keys[i]))
			return true;
	return false;
}

static json_t *default_budget(void)
{
	return json_pack("{s:i, s:i, s:i, s:i, s:i}", "maxMinutes", 8, "maxActions", 20, "maxScreenshots", 8,
	                 "maxSnapshotFailures", 3, "maxNoChangeActions", 3);
}

static json_t *default_counters(void)
{
	return json_pack("{s:i, s:i, s:i, s:i}", "actions", 0, "screenshots", 0, "snapshotFailures", 0,
	                 "noChangeActions", 0);
}

/* The default value of one key (a new reference, or NULL for keys without a default). */
static json_t *default_for(const char *key, int64_t created_at)
{
	if (!strcmp(key, "device") || !strcmp(key, "driverKind") || !strcmp(key, "wdaUrl") || !strcmp(key, "appId") ||
	    !strcmp(key, "metroPid") || !strcmp(key, "chosenTarget") || !strcmp(key, "lastTestThisArgs") ||
	    !strcmp(key, "budgetProfile") || !strcmp(key, "exploration"))
		return json_null();
	if (!strcmp(key, "headless") || !strcmp(key, "sensitive"))
		return json_false();
	if (!strcmp(key, "screenshotCount"))
		return json_integer(0);
	if (!strcmp(key, "network"))
		return json_pack("{s:b, s:n}", "changed", 0, "originalAirplane");
	if (!strcmp(key, "mode"))
		return json_string("structured");
	if (!strcmp(key, "responseMode"))
		return json_string("normal");
	if (!strcmp(key, "budget"))
		return default_budget();
	if (!strcmp(key, "counters"))
		return default_counters();
	if (!strcmp(key, "auth"))
		return json_object();
	if (!strcmp(key, "milestones")) {
		char *iso = sw__iso(created_at);
		json_t *m = iso ? json_pack("{s:s}", "session_start", iso) : NULL;
		free(iso);
		return m;
	}
	/* every other key is an array */
	return json_array();
}

json_t *sw__state_new(const char *id, const char *root, const char *dir, int64_t created_at)
{
	json_t *st = json_object();
	if (!st)
		return NULL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(state_keys); i++) {
		const char *k = state_keys[i];
		json_t *v;
		if (!strcmp(k, "id"))
			v = json_string(id);
		else if (!strcmp(k, "root"))
			v = json_string(root);
		else if (!strcmp(k, "dir"))
			v = json_string(dir);
		else if (!strcmp(k, "createdAt"))
			v = json_integer(created_at);
		else
			v = default_for(k, created_at);
		if (!v || json_object_set_new(st, k, v) != 0) {
			json_decref(st);
			return NULL;
		}
	}
	return st;
}

/* The value must have the default's JSON type (null defaults accept anything). */
static bool type_fits(const json_t *v, const json_t *def)
{
	if (json_is_null(def))
		return true;
	if (json_is_boolean(def))
		return json_is_boolean(v);
	if (json_is_number(def))
		return json_is_number(v);
	return json_typeof(v) == json_typeof(def);
}

static bool any_secret(const json_t *arr)
{
	size_t i;
	json_t *it;
	json_array_foreach(arr, i, it)
	{
		if (json_is_true(json_object_get(it, "secret")))
			return true;
	}
	return false;
}

json_t *sw__state_normalize(json_t *loaded, bool *degraded)
{
	if (!json_is_object(loaded))
		return NULL;
	json_t *id = json_object_get(loaded, "id"), *root = json_object_get(loaded, "root");
	if (!json_is_string(id) || !json_is_string(root))
		return NULL;
	json_t *created = json_object_get(loaded, "createdAt");
	int64_t created_at = json_is_number(created) ? (int64_t)json_number_value(created) : 0;
	json_t *out = json_object();
	if (!out)
		return NULL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(state_keys); i++) {
		const char *k = state_keys[i];
		json_t *v = json_object_get(loaded, k);
		json_t *def = NULL;
		if (!strcmp(k, "id") || !strcmp(k, "root")) {
			json_object_set(out, k, v);
			continue;
		}
		if (!strcmp(k, "dir") || !strcmp(k, "createdAt")) {
			json_object_set_new(out, k, v ? json_incref(v) : json_null());
			continue;
		}
		def = default_for(k, created_at);
		if (!def)
			goto fail;
		if (v && type_fits(v, def)) {
			json_decref(def);
			if (!strcmp(k, "budget") || !strcmp(k, "counters")) {
				/* fill missing members from the defaults */
				json_t *d = !strcmp(k, "budget") ? default_budget() : default_counters();
				json_t *merged = d ? json_deep_copy(d) : NULL;
				json_decref(d);
				if (!merged)
					goto fail;
				const char *mk;
				json_t *mv;
				json_object_foreach(merged, mk, mv)
				{
					json_t *lv = json_object_get(v, mk);
					if (json_is_number(lv) && json_number_value(lv) >= 0)
						json_object_set(merged, mk, lv);
				}
				json_object_set_new(out, k, merged);
			} else {
				json_object_set(out, k, v);
			}
		} else {
			json_object_set_new(out, k, def);
		}
	}
	/* keys this version does not know are kept after the known ones */
	const char *k;
	json_t *v;
	json_object_foreach(loaded, k, v)
	{
		if (!json_object_get(out, k))
			json_object_set(out, k, v);
	}
	/* a Metro process from an earlier server is never adopted by a reloaded session */
	json_object_set_new(out, "metroPid", json_null());
	sw__jobs_fail_stale(json_object_get(out, "jobs"));
	if (degraded) {
		json_t *auth = json_object_get(out, "auth");
		*degraded = any_secret(json_object_get(out, "inputs")) ||
		            any_secret(json_object_get(out, "generatedValues")) ||
		            json_is_true(json_object_get(auth, "loginPerformed"));
	}
	return out;
fail:
	json_decref(out);
	return NULL;
}
