/* session.c: reading and changing a session's state: fields, appended records, the ledger, counters, budget. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"
#include "store-redact.h"

#define LEDGER_CAP 500
#define TOOL_ERRORS_CAP 200
#define RECORDED_ACTIONS_CAP 300
#define TOOL_ERROR_MESSAGE_MAX 500

static const struct {
	const char *name;
	int minutes;
} profiles[] = {
    {"guardrail", 8},
    {"login_smoke", 10},
    {"full_smoke", 15},
    {"install_smoke", 20},
};

static const char *const budget_keys[] = {"maxMinutes", "maxActions", "maxScreenshots", "maxSnapshotFailures",
                                          "maxNoChangeActions"};

static const char *const counter_keys[] = {"actions", "screenshots", "snapshotFailures", "noChangeActions"};

static bool in_list(const char *k, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(k, list[i]))
			return true;
	return false;
}

/* Fixture metadata only: values, field values and seed specs never reach state.json. */
static json_t *fixture_metadata(const json_t *fx)
{
	if (!json_is_object(fx))
		return NULL;
	json_t *m = json_deep_copy(fx);
	if (!m)
		return NULL;
	json_object_del(m, "value");
	json_object_del(m, "seed");
	json_t *fields = json_object_get(m, "fields");
	const char *k;
	json_t *f;
	json_object_foreach(fields, k, f)
	{
		if (json_is_object(f))
			json_object_del(f, "value");
	}
	return m;
}

static int set_fixtures_locked(sw_session *s, const json_t *arr, sw_error **err)
{
	if (!json_is_array(arr))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "fixtures must be an array of objects");
	json_t *out = json_array();
	if (!out)
		return sw__error_nomem(err);
	size_t i;
	json_t *fx;
	json_array_foreach(arr, i, fx)
	{
		json_t *m = fixture_metadata(fx);
		if (!m || !json_is_string(json_object_get(m, "name"))) {
			json_decref(m);
			json_decref(out);
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "fixtures[%zu] must be an object with a string name", i);
		}
		json_array_append_new(out, m);
	}
	json_object_set_new(s->state, "fixtures", out);
	/*
	 * A secret field's value is a secret of the session from the moment it is given, not only once a
	 * seed or a text entry reads it: whatever tool later echoes it (a suite case, a note, a result) is
	 * redacted. The same rule as the fixtures' loader (flows/seed.c); seed header values count too.
	 */
	json_array_foreach(arr, i, fx)
	{
		const char *k;
		json_t *fld;
		json_object_foreach(json_object_get(fx, "fields"), k, fld)
		{
			const char *v = json_string_value(json_object_get(fld, "value"));
			if (v && *v && (json_is_true(json_object_get(fld, "secret")) || sw_redact_is_secret_name(k)))
				(void)sw_redactor_add_secret(s->redactor, v, NULL);
		}
		json_t *seed = json_object_get(fx, "seed");
		json_t *specs[2] = {seed, json_object_get(seed, "cleanup")};
		for (int j = 0; j < 2; j++) {
			json_t *hv;
			json_object_foreach(json_object_get(specs[j], "headers"), k, hv)
			{
				if (json_string_length(hv) >= 3)
					(void)sw_redactor_add_secret(s->redactor, json_string_value(hv), NULL);
			}
		}
	}
	/* the whole objects stay in memory only, for seeds and text entry (sw__session_fixtures_live) */
	json_t *live = json_deep_copy(arr);
	if (live) {
		json_decref(s->fixtures_live);
		s->fixtures_live = live;
	}
	return SW_OK;
}

json_t *sw__session_fixtures_live(struct sw_session *s)
{
	if (!s)
		return NULL;
	pthread_mutex_lock(&s->lock);
	json_t *out = s->fixtures_live ? json_deep_copy(s->fixtures_live) : NULL;
	pthread_mutex_unlock(&s->lock);
	return out;
}

static int check_budget(const json_t *b, sw_error **err)
{
	if (!json_is_object(b))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "budget must be an object");
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)b, k, v)
	{
		if (!in_list(k, budget_keys, SW_ARRAY_SIZE(budget_keys)))
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
			                     "Accepted: maxMinutes, maxActions, maxScreenshots, maxSnapshotFailures, "
			                     "maxNoChangeActions.",
			                     "budget.%s is not a budget field", k);
		if (!json_is_number(v) || json_number_value(v) < 0 || !isfinite(json_number_value(v)))
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "budget.%s must be a non-negative number", k);
	}
	return SW_OK;
}

int sw__session_apply_options(sw_session *s, json_t *opts, sw_error **err)
{
	if (!opts)
		return SW_OK;
	const char *k;
	json_t *v;
	json_object_foreach(opts, k, v)
	{
		if (json_is_null(v) || !strcmp(k, "sessionDir"))
			continue;
		if (!strcmp(k, "responseMode")) {
			const char *m = json_string_value(v);
			if (!m || (strcmp(m, "compact") && strcmp(m, "normal") && strcmp(m, "verbose")))
				return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
				                     "responseMode must be compact, normal or verbose");
			json_object_set(s->state, "responseMode", v);
		} else if (!strcmp(k, "sensitive")) {
			if (!json_is_boolean(v))
				return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
				                     "sensitive must be a boolean");
			s->sensitive = json_is_true(v);
			json_object_set(s->state, "sensitive", v);
		} else if (!strcmp(k, "profile")) {
			const char *p = json_string_value(v);
			size_t i;
			for (i = 0; p && i < SW_ARRAY_SIZE(profiles); i++)
				if (!strcmp(p, profiles[i].name))
					break;
			if (!p || i == SW_ARRAY_SIZE(profiles))
				return sw__error_set(
				    err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
				    "profile must be guardrail, login_smoke, full_smoke or install_smoke");
			json_object_set(s->state, "budgetProfile", v);
			json_object_set_new(json_object_get(s->state, "budget"), "maxMinutes",
			                    json_integer(profiles[i].minutes));
		} else if (!strcmp(k, "budget")) {
			int rc = check_budget(v, err);
			if (rc)
				return rc;
		} else if (!strcmp(k, "fixtures")) {
			int rc = set_fixtures_locked(s, v, err);
			if (rc)
				return rc;
		} else {
			return sw__error_set(
			    err, SW_EINVAL, "INVALID_ARGUMENT",
			    "Accepted: responseMode, sensitive, profile, budget, fixtures, sessionDir.",
			    "unknown session option \"%s\"", k);
		}
	}
	/* an explicit budget wins over the profile's time budget */
	json_t *b = json_object_get(opts, "budget");
	json_object_foreach(b, k, v) json_object_set(json_object_get(s->state, "budget"), k, v);
	return SW_OK;
}

/* ---- identity -------------------------------------------------------------- */

SW_API const char *sw_session_id(const sw_session *s)
{
	return s ? s->id : NULL;
}

SW_API const char *sw_session_dir(const sw_session *s)
{
	return s ? s->dir : NULL;
}

SW_API const char *sw_session_root(const sw_session *s)
{
	return s ? s->root : NULL;
}

SW_API int64_t sw_session_created_at(const sw_session *s)
{
	return s ? s->created_at : 0;
}

SW_API sw_store *sw_session_store(const sw_session *s)
{
	return s ? s->store : NULL;
}

SW_API int sw_session_is_sensitive(const sw_session *s)
{
	return s && s->sensitive;
}

SW_API int sw_session_redaction_degraded(const sw_session *s)
{
	return s && s->redaction_degraded;
}

SW_API int sw_session_input_set(sw_session *s, const char *name, const char *value, sw_error **err)
{
	if (!s || !name || !*name || !value)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "session, name and value are required");
	if (!sw__utf8_valid(value, strlen(value)))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "the value of %s is not UTF-8", name);
	pthread_mutex_lock(&s->lock);
	if (!s->input_values)
		s->input_values = json_object();
	int rc = s->input_values && json_object_set_new(s->input_values, name, json_string(value)) == 0 ? SW_OK : SW_ENOMEM;
	pthread_mutex_unlock(&s->lock);
	return rc == SW_OK ? SW_OK : sw__error_nomem(err);
}

SW_API char *sw_session_input_get(sw_session *s, const char *name)
{
	if (!s || !name)
		return NULL;
	pthread_mutex_lock(&s->lock);
	const char *v = json_string_value(json_object_get(s->input_values, name));
	char *out = v ? sw__strdup(v) : NULL;
	pthread_mutex_unlock(&s->lock);
	return out;
}

SW_API struct sw_redactor *sw_session_redactor(sw_session *s)
{
	return s ? s->redactor : NULL;
}

/* ---- whole state ------------------------------------------------------------ */

/* Applies what other processes journaled since the last look (one stat when nothing changed). */
static void catch_up(sw_session *s)
{
	if (sw__journal_changed(s))
		sw__journal_catch_up_locked(s);
}

SW_API int sw_session_state_json(sw_session *s, char **out, sw_error **err)
{
	if (!s || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_session_state_json: bad arguments");
	pthread_mutex_lock(&s->lock);
	catch_up(s);
	json_t *copy = json_deep_copy(s->state);
	pthread_mutex_unlock(&s->lock);
	sw__session_redact_state(s, copy);
	char *text = copy ? sw__json_pretty(copy) : NULL;
	json_decref(copy);
	if (!text)
		return sw__error_nomem(err);
	*out = text;
	return SW_OK;
}

int sw__session_get(sw_session *s, const char *key, json_t **out, sw_error **err)
{
	if (!s || !key || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_session_get_json: bad arguments");
	if (!sw__state_key_known(key))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "\"%s\" is not a session state field",
		                     key);
	pthread_mutex_lock(&s->lock);
	catch_up(s);
	json_t *v = json_object_get(s->state, key);
	json_t *copy = v ? sw__session_redacted_copy(s, v) : json_null();
	pthread_mutex_unlock(&s->lock);
	if (!copy)
		return sw__error_nomem(err);
	*out = copy;
	return SW_OK;
}

SW_API int sw_session_get_json(sw_session *s, const char *key, char **out, sw_error **err)
{
	json_t *copy = NULL;
	int rc = sw__session_get(s, key, &copy, err);
	if (rc < 0)
		return rc;
	char *text = sw__json_compact(copy);
	json_decref(copy);
	if (!text)
		return sw__error_nomem(err);
	*out = text;
	return SW_OK;
}

static json_t *parse_value(const char *text, sw_error **err)
{
	if (!text)
		return json_null();
	json_error_t jerr;
	json_t *v = json_loads(text, JSON_DECODE_ANY, &jerr);
	if (!v)
		sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "not valid JSON: %s", jerr.text);
	return v;
}

/* clang-format off */
static const char *const settable_keys[] = {
	"device", "driverKind", "wdaUrl", "appId", "headless", "metroPid", "network", "chosenTarget",
	"lastTestThisArgs", "mode", "responseMode", "auth", "milestones", "budgetProfile", "exploration", "fixtures",
	"budget", "screenshotCount",
};
/* clang-format on */

SW_API int sw_session_set_json(sw_session *s, const char *key, const char *value_json, sw_error **err)
{
	if (!s || !key)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_session_set_json: bad arguments");
	json_t *v = parse_value(value_json, err);
	if (!v)
		return SW_EINVAL;
	int rc = sw__session_set(s, key, v, err);
	json_decref(v);
	return rc;
}

int sw__session_set(sw_session *s, const char *key, json_t *v, sw_error **err)
{
	if (!s || !key || !v)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_session_set_json: bad arguments");
	if (!in_list(key, settable_keys, SW_ARRAY_SIZE(settable_keys)))
		return sw__error_set(
		    err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		    "\"%s\" cannot be set directly (identity fields and appended records have their own calls)", key);
	int rc = SW_OK;
	pthread_mutex_lock(&s->lock);
	if (!strcmp(key, "fixtures")) {
		rc = set_fixtures_locked(s, v, err);
	} else if (!strcmp(key, "budget")) {
		rc = check_budget(v, err);
		if (rc == SW_OK) {
			const char *k;
			json_t *bv;
			json_object_foreach(v, k, bv) json_object_set(json_object_get(s->state, "budget"), k, bv);
		}
	} else if ((!strcmp(key, "network") || !strcmp(key, "auth") || !strcmp(key, "milestones")) &&
	           !json_is_object(v)) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s must be an object", key);
	} else if (!strcmp(key, "responseMode") && (!json_is_string(v) || (strcmp(json_string_value(v), "compact") &&
	                                                                   strcmp(json_string_value(v), "normal") &&
	                                                                   strcmp(json_string_value(v), "verbose")))) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "responseMode must be compact, normal or verbose");
	} else {
		json_object_set(s->state, key, v);
	}
	if (rc == SW_OK)
		sw__session_touch(s);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* Keeps the last @cap items of @arr. Removing from the front in one block keeps this linear. */
static void cap_array(json_t *arr, size_t cap)
{
	size_t n = json_array_size(arr);
	if (n <= cap)
		return;
	/* Rebuild when far over the cap, else drop the single oldest item. */
	if (n - cap == 1) {
		json_array_remove(arr, 0);
		return;
	}
	json_t *keep = json_array();
	if (!keep)
		return;
	for (size_t i = n - cap; i < n; i++)
		json_array_append(keep, json_array_get(arr, i));
	json_array_clear(arr);
	json_array_extend(arr, keep);
	json_decref(keep);
}

/* clang-format off */
static const char *const appendable_keys[] = {
	"notes", "findings", "toolErrors", "recordedActions", "envChanges", "workarounds", "inputs", "generatedValues",
};
/* clang-format on */

/* Keeps the newest "at" of notes and findings for the summary. */
static void summary_saw(sw_session *s, const char *key, const json_t *item)
{
	char *slot = !strcmp(key, "notes") ? s->notes_last_at : !strcmp(key, "findings") ? s->findings_last_at : NULL;
	const char *at = json_string_value(json_object_get(item, "at"));
	if (slot && at && strcmp(at, slot) > 0)
		snprintf(slot, sizeof(s->notes_last_at), "%s", at);
}

void sw__session_summary_rebuild(sw_session *s)
{
	s->notes_last_at[0] = s->findings_last_at[0] = '\0';
	static const char *const keys[] = {"notes", "findings"};
	for (size_t k = 0; k < 2; k++) {
		size_t i;
		json_t *it;
		json_array_foreach(json_object_get(s->state, keys[k]), i, it) summary_saw(s, keys[k], it);
	}
}

/* Adds @item to the list @key in memory (caps, summary, dirty); the journal is the caller's. */
static int append_memory_locked(sw_session *s, const char *key, json_t *item, sw_error **err)
{
	json_t *arr = json_object_get(s->state, key);
	if (!json_is_array(arr)) {
		arr = json_array();
		if (!arr)
			return sw__error_nomem(err);
		json_object_set_new(s->state, key, arr);
	}
	if (json_array_append(arr, item) != 0)
		return sw__error_nomem(err);
	if (!strcmp(key, "toolErrors"))
		cap_array(arr, TOOL_ERRORS_CAP);
	else if (!strcmp(key, "recordedActions"))
		cap_array(arr, RECORDED_ACTIONS_CAP);
	summary_saw(s, key, item);
	sw__session_touch(s);
	return SW_OK;
}

/* Appends in memory and to the journal; *persisted says whether the journal line reached the disk. */
static int append_locked_p(sw_session *s, const char *key, json_t *item, bool *persisted, sw_error **err)
{
	int rc = append_memory_locked(s, key, item, err);
	if (rc == SW_OK) {
		bool ok = sw__journal_append_locked(s, key, item) == SW_OK;
		if (persisted)
			*persisted = ok;
	}
	return rc;
}

static int append_locked(sw_session *s, const char *key, json_t *item, sw_error **err)
{
	return append_locked_p(s, key, item, NULL, err);
}

static void put_ledger_row_locked(sw_session *s, json_t *row);

void sw__session_apply_record_locked(sw_session *s, const char *key, json_t *value)
{
	if (!strcmp(key, "counters")) {
		json_t *c = json_object_get(s->state, "counters");
		const char *k;
		json_t *d;
		json_object_foreach(value, k, d)
		{
			if (!json_is_integer(d) || !json_is_object(c))
				continue;
			json_int_t v = (json_int_t)json_number_value(json_object_get(c, k)) + json_integer_value(d);
			json_object_set_new(c, k, json_integer(v < 0 ? 0 : v));
			if (!strcmp(k, "screenshots"))
				json_object_set_new(s->state, "screenshotCount", json_integer(v < 0 ? 0 : v));
		}
		sw__session_touch(s);
	} else if (!strcmp(key, "artifacts")) {
		sw__session_put_artifact_locked(s, value);
	} else if (!strcmp(key, "mutations")) {
		if (json_is_object(value))
			put_ledger_row_locked(s, value);
	} else if (in_list(key, appendable_keys, SW_ARRAY_SIZE(appendable_keys))) {
		(void)append_memory_locked(s, key, value, NULL);
	}
}

static int append_p(sw_session *s, const char *key, json_t *item_in, int *persisted, char **warning, sw_error **err);

SW_API int sw_session_append_json(sw_session *s, const char *key, const char *item_json, sw_error **err)
{
	return sw_session_append_json_persisted(s, key, item_json, NULL, NULL, err);
}

SW_API int sw_session_append_json_persisted(sw_session *s, const char *key, const char *item_json, int *persisted,
                                            char **warning, sw_error **err)
{
	if (persisted)
		*persisted = 0;
	if (warning)
		*warning = NULL;
	if (!s || !key || !item_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_session_append_json: bad arguments");
	json_t *item = parse_value(item_json, err);
	if (!item)
		return SW_EINVAL;
	int rc = append_p(s, key, item, persisted, warning, err);
	json_decref(item);
	return rc;
}

int sw__session_append(sw_session *s, const char *key, json_t *item_in, sw_error **err)
{
	return append_p(s, key, item_in, NULL, NULL, err);
}

static int append_p(sw_session *s, const char *key, json_t *item_in, int *persisted, char **warning, sw_error **err)
{
	if (!s || !key || !item_in)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_session_append_json: bad arguments");
	if (!in_list(key, appendable_keys, SW_ARRAY_SIZE(appendable_keys)))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "\"%s\" is not an appendable session list", key);
	/* the item is changed (at, value) before it is kept: work on a copy */
	json_t *item = json_deep_copy(item_in);
	if (!item)
		return sw__error_nomem(err);
	int rc = SW_OK;
	if (json_is_object(item) && !json_object_get(item, "at") && strcmp(key, "inputs") &&
	    strcmp(key, "generatedValues")) {
		char *iso = sw__iso_now();
		json_object_set_new(item, "at", iso ? json_string(iso) : json_null());
		free(iso);
	}
	if (!strcmp(key, "inputs")) {
		/* supplied values never reach the disk: {varName, secret, source, at} only */
		if (!json_is_object(item)) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "an input must be an object");
			goto out;
		}
		json_object_del(item, "value");
		if (!json_object_get(item, "at")) {
			char *iso = sw__iso_now();
			json_object_set_new(item, "at", iso ? json_string(iso) : json_null());
			free(iso);
		}
	} else if (!strcmp(key, "generatedValues") && json_is_object(item) &&
	           json_is_true(json_object_get(item, "secret"))) {
		json_object_set_new(item, "value", json_string("<redacted>"));
	}
	bool on_disk = false;
	pthread_mutex_lock(&s->lock);
	rc = append_locked_p(s, key, item, &on_disk, err);
	if (rc == SW_OK && persisted)
		*persisted = on_disk;
	if (rc == SW_OK && !on_disk && warning)
		*warning = sw__asprintf("Recorded in memory only: it is not on disk yet (%s). It is saved when the session "
		                        "folder %s can be written again; free disk space or fix its permissions.",
		                        s->write_error ? s->write_error : "the session journal cannot be written", s->dir);
	pthread_mutex_unlock(&s->lock);
out:
	json_decref(item);
	return rc;
}

SW_API int sw_session_add_note(sw_session *s, const char *note_json, sw_error **err)
{
	return sw_session_append_json(s, "notes", note_json, err);
}

SW_API int sw_session_add_finding(sw_session *s, const char *finding_json, sw_error **err)
{
	return sw_session_append_json(s, "findings", finding_json, err);
}

SW_API int sw_session_add_tool_error(sw_session *s, const char *tool, const char *failure_code, const char *message,
                                     sw_error **err)
{
	if (!s || !tool)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_session_add_tool_error: bad arguments");
	char *iso = sw__iso_now();
	char *msg = NULL;
	if (message) {
		char *clean = sw__utf8_sanitize(message, strlen(message));
		if (clean) {
			size_t cut = sw__utf16_prefix_bytes(clean, strlen(clean), TOOL_ERROR_MESSAGE_MAX);
			clean[cut] = '\0';
		}
		msg = clean;
	}
	json_t *item = json_object();
	if (!iso || !item || (message && !msg)) {
		free(iso);
		free(msg);
		json_decref(item);
		return sw__error_nomem(err);
	}
	json_object_set_new(item, "at", json_string(iso));
	json_object_set_new(item, "tool", json_string(tool));
	json_object_set_new(item, "failureCode", failure_code ? json_string(failure_code) : json_null());
	if (msg)
		json_object_set_new(item, "message", json_string(msg));
	free(iso);
	free(msg);
	pthread_mutex_lock(&s->lock);
	int rc = append_locked(s, "toolErrors", item, err);
	pthread_mutex_unlock(&s->lock);
	json_decref(item);
	return rc;
}

SW_API int sw_session_add_env_change(sw_session *s, const char *text, sw_error **err)
{
	if (!s || !text)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_session_add_env_change: bad arguments");
	char *iso = sw__iso_now();
	char *line = iso ? sw__asprintf("%s %s", iso, text) : NULL;
	free(iso);
	json_t *item = line ? json_string(line) : NULL;
	free(line);
	if (!item)
		return sw__error_nomem(err);
	pthread_mutex_lock(&s->lock);
	int rc = append_locked(s, "envChanges", item, err);
	pthread_mutex_unlock(&s->lock);
	json_decref(item);
	return rc;
}

SW_API int sw_session_mark_milestone(sw_session *s, const char *name, sw_error **err)
{
	if (!s || !name || !*name)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_session_mark_milestone: bad arguments");
	pthread_mutex_lock(&s->lock);
	json_t *m = json_object_get(s->state, "milestones");
	if (!json_is_object(m)) {
		m = json_object();
		json_object_set_new(s->state, "milestones", m);
	}
	if (m && !json_object_get(m, name)) {
		char *iso = sw__iso_now();
		json_object_set_new(m, name, iso ? json_string(iso) : json_null());
		free(iso);
		sw__session_touch(s);
	}
	pthread_mutex_unlock(&s->lock);
	return SW_OK;
}

SW_API int sw_session_ledger_append(sw_session *s, const char *row_json, sw_error **err)
{
	if (!s || !row_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_session_ledger_append: bad arguments");
	json_t *row = parse_value(row_json, err);
	if (!row)
		return SW_EINVAL;
	if (!json_is_object(row)) {
		json_decref(row);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "a ledger row must be a JSON object");
	}
	pthread_mutex_lock(&s->lock);
	put_ledger_row_locked(s, row);
	/* journaled too: another process's save never drops an audited row */
	(void)sw__journal_append_locked(s, "mutations", row);
	pthread_mutex_unlock(&s->lock);
	json_decref(row);
	/* the ledger is written synchronously: the row is on disk when this returns */
	return sw__session_save(s, err);
}

/* Adds a ledger row, or replaces the row with its id (status updates). Caller holds s->lock. */
static void put_ledger_row_locked(sw_session *s, json_t *row)
{
	json_t *arr = json_object_get(s->state, "mutations");
	if (!json_is_array(arr)) {
		arr = json_array();
		json_object_set_new(s->state, "mutations", arr);
	}
	const char *id = json_string_value(json_object_get(row, "id"));
	bool replaced = false;
	if (id) {
		/* status updates of one mutation replace its row; search from the newest */
		for (size_t i = json_array_size(arr); i-- > 0;) {
			const char *rid = json_string_value(json_object_get(json_array_get(arr, i), "id"));
			if (rid && !strcmp(rid, id)) {
				json_array_set(arr, i, row);
				replaced = true;
				break;
			}
		}
	}
	if (!replaced) {
		json_array_append(arr, row);
		cap_array(arr, LEDGER_CAP);
	}
	sw__session_touch(s);
}

/* ---- counters and budget ---------------------------------------------------- */

SW_API int sw_session_counter_add(sw_session *s, const char *counter, long delta, sw_error **err)
{
	if (!s || !counter || !in_list(counter, counter_keys, SW_ARRAY_SIZE(counter_keys)))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "unknown counter \"%s\" (actions, screenshots, snapshotFailures, noChangeActions)",
		                     counter ? counter : "");
	pthread_mutex_lock(&s->lock);
	json_t *c = json_object_get(s->state, "counters");
	json_int_t v = (json_int_t)json_number_value(json_object_get(c, counter)) + delta;
	if (v < 0)
		v = 0;
	json_object_set_new(c, counter, json_integer(v));
	if (!strcmp(counter, "screenshots"))
		json_object_set_new(s->state, "screenshotCount", json_integer(v));
	sw__session_touch(s);
	if (delta) {
		/* a step, not a value: two processes on one session add up */
		json_t *step = json_pack("{s:I}", counter, (json_int_t)delta);
		if (step)
			(void)sw__journal_append_locked(s, "counters", step);
		json_decref(step);
	}
	pthread_mutex_unlock(&s->lock);
	return SW_OK;
}

SW_API int sw_session_summary_json(sw_session *s, char **out, sw_error **err)
{
	if (!s || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_session_summary_json: bad arguments");
	pthread_mutex_lock(&s->lock);
	catch_up(s);
	json_t *st = s->state;
	json_t *o = json_pack("{s:I, s:s, s:I, s:s, s:I, s:I, s:I, s:b, s:s?}", "notes",
	                      (json_int_t)json_array_size(json_object_get(st, "notes")), "notesLastAt", s->notes_last_at,
	                      "findings", (json_int_t)json_array_size(json_object_get(st, "findings")), "findingsLastAt",
	                      s->findings_last_at, "recordedActions",
	                      (json_int_t)json_array_size(json_object_get(st, "recordedActions")), "toolErrors",
	                      (json_int_t)json_array_size(json_object_get(st, "toolErrors")), "artifacts",
	                      (json_int_t)json_array_size(json_object_get(st, "artifacts")), "persisted",
	                      s->write_error == NULL, "writeError", s->write_error);
	pthread_mutex_unlock(&s->lock);
	char *text = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	if (!text)
		return sw__error_nomem(err);
	*out = text;
	return SW_OK;
}

SW_API int sw_session_counter_reset(sw_session *s, const char *counter, sw_error **err)
{
	if (!s || !counter || !in_list(counter, counter_keys, SW_ARRAY_SIZE(counter_keys)))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "unknown counter \"%s\"",
		                     counter ? counter : "");
	pthread_mutex_lock(&s->lock);
	json_object_set_new(json_object_get(s->state, "counters"), counter, json_integer(0));
	sw__session_touch(s);
	pthread_mutex_unlock(&s->lock);
	return SW_OK;
}

static void fmt_num(char *buf, size_t n, double d)
{
	if (d == floor(d) && fabs(d) < 1e15)
		snprintf(buf, n, "%lld", (long long)d);
	else
		snprintf(buf, n, "%g", d);
}

SW_API int sw_session_budget_exhausted(sw_session *s, char **reason)
{
	if (!s)
		return 0;
	static const struct {
		const char *counter, *limit, *what;
	} rules[] = {
	    {"actions", "maxActions", "action budget reached"},
	    {"screenshots", "maxScreenshots", "screenshot budget reached"},
	    {"snapshotFailures", "maxSnapshotFailures", "snapshot failure budget reached"},
	    {"noChangeActions", "maxNoChangeActions", "no-change action budget reached"},
	};
	char *why = NULL;
	pthread_mutex_lock(&s->lock);
	json_t *b = json_object_get(s->state, "budget"), *c = json_object_get(s->state, "counters");
	double max_min = json_number_value(json_object_get(b, "maxMinutes"));
	double elapsed_min = (double)(sw_wall_ms() - s->created_at) / 60000.0;
	if (json_is_number(json_object_get(b, "maxMinutes")) && elapsed_min >= max_min) {
		char m[32];
		fmt_num(m, sizeof(m), max_min);
		why = sw__asprintf("time budget reached (%s min)", m);
	}
	for (size_t i = 0; !why && i < SW_ARRAY_SIZE(rules); i++) {
		json_t *lim = json_object_get(b, rules[i].limit);
		if (!json_is_number(lim))
			continue;
		double used = json_number_value(json_object_get(c, rules[i].counter));
		double max = json_number_value(lim);
		if (used >= max) {
			char u[32], m[32];
			fmt_num(u, sizeof(u), used);
			fmt_num(m, sizeof(m), max);
			why = sw__asprintf("%s (%s/%s)", rules[i].what, u, m);
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (!why)
		return 0;
	if (reason)
		*reason = why;
	else
		free(why);
	return 1;
}
