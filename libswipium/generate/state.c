/* state.c: state profiles (.swipium/state/<name>.yaml) of qa_generate's fresh_state replay: read, check, run. */
#include <stdlib.h>
#include <string.h>

#include "../flows/flow-internal.h"
#include "../suite/suite-internal.h"
#include "gen-internal.h"
#include "swipium/swipium.h"

#define STATE_MAX_BYTES (256u * 1024u)

static const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int bad(sw_error **err, const char *path, const char *what)
{
	return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
	                     "Fix the state profile (see docs/generate.md, \"State profiles\") and call again.",
	                     "state profile %s: %s", path, what);
}

static bool is_clear(const json_t *st)
{
	return json_is_string(st) && !strcmp(json_string_value(st), "clearState");
}

/* A step as one line of the consent prompt. */
static char *step_line(const json_t *st)
{
	if (json_is_string(st))
		return sw__strdup(json_string_value(st));
	return sw__json_compact(st);
}

/* The profile's relative path: a bare name under .swipium/state/, else a .yaml path inside the project. */
static char *profile_rel(const char *name)
{
	if (strchr(name, '/')) {
		size_t n = strlen(name);
		if (n > 5 && (!strcmp(name + n - 5, ".yaml") || (n > 4 && !strcmp(name + n - 4, ".yml"))))
			return sw__strdup(name);
		return NULL;
	}
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		      *p == '_' || *p == '.'))
			return NULL;
	if (!*name || name[0] == '.')
		return NULL;
	size_t n = strlen(name);
	if (n > 5 && !strcmp(name + n - 5, ".yaml"))
		return sw__asprintf(".swipium/state/%s", name);
	return sw__asprintf(".swipium/state/%s.yaml", name);
}

int sw__gen_state_load(const char *root, const char *name, json_t **out, sw_error **err)
{
	*out = NULL;
	if (!root || !name || !*name)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "stateProfile and a project root are needed");
	char *rel = profile_rel(name);
	if (!rel)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Name a profile under .swipium/state/ (letters, digits, '-', '_', '.'), or give a "
		                     ".yaml path inside the project.",
		                     "stateProfile must be a profile name or a .yaml path inside the project");
	char *text = NULL, *real = NULL;
	size_t len = 0;
	json_t *doc = NULL, *res = NULL;
	int rc = sw__suite_read_confined(root, rel, STATE_MAX_BYTES, &text, &len, &real, err);
	if (rc == SW_ENOTFOUND || (rc < 0 && err && *err && !sw_error_failure_code(*err))) {
		sw_error_free(err ? *err : NULL);
		if (err)
			*err = NULL;
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                   "Write the profile (prepare: and teardown: lists of Flow V2 steps) or name another.",
		                   "state profile %s was not found or could not be read", rel);
	}
	if (rc < 0)
		goto out;
	if ((rc = sw__suite_yaml_load(text, len, rel, "INVALID_ARGUMENT", &doc, err)) < 0)
		goto out;
	if (!json_is_object(doc)) {
		rc = bad(err, rel, "must be a map with prepare: and teardown: lists");
		goto out;
	}
	const char *k;
	json_t *v;
	json_object_foreach(doc, k, v)
	{
		if (strcmp(k, "description") && strcmp(k, "prepare") && strcmp(k, "teardown")) {
			rc = bad(err, rel, "only description, prepare and teardown are allowed keys");
			goto out;
		}
	}
	json_t *prep = json_object_get(doc, "prepare"), *tear = json_object_get(doc, "teardown");
	if ((prep && !json_is_array(prep)) || (tear && !json_is_array(tear))) {
		rc = bad(err, rel, "prepare and teardown must be lists of steps");
		goto out;
	}
	if (json_array_size(prep) + json_array_size(tear) == 0) {
		rc = bad(err, rel, "has no step: a fresh state needs at least one prepare step");
		goto out;
	}
	/* every Flow V2 step is checked by the flow library, as one flow */
	json_t *flow_steps = json_array();
	bool clears = false;
	size_t i;
	json_t *st;
	json_array_foreach(prep, i, st) is_clear(st) ? (void)(clears = true) : (void)json_array_append(flow_steps, st);
	json_array_foreach(tear, i, st) is_clear(st) ? (void)(clears = true) : (void)json_array_append(flow_steps, st);
	const char *risk = clears ? "high" : "low";
	json_t *cmds = json_array();
	if (json_array_size(flow_steps)) {
		json_t *f = json_pack("{ss,sO}", "name", "state profile check", "steps", flow_steps);
		sw_buf b = SW_BUF_INIT;
		sw__suite_flow_yaml(&b, f);
		json_decref(f);
		json_t *po = json_pack("{ss,ss}", "root", root, "flowYaml", b.data ? b.data : "");
		sw__buf_free(&b);
		char *pj = sw__json_compact(po), *pout = NULL;
		json_decref(po);
		sw_error *pe = NULL;
		int prc = pj ? sw_flow_plan(pj, &pout, &pe) : SW_ENOMEM;
		free(pj);
		if (prc < 0) {
			rc = bad(err, rel, pe ? sw_error_message(pe) : "its steps are not valid Flow V2 steps");
			sw_error_free(pe);
			json_decref(flow_steps);
			json_decref(cmds);
			goto out;
		}
		json_t *plan = json_loads(pout, 0, NULL);
		sw_free(pout);
		json_t *c = json_object_get(plan, "consent");
		if (json_is_true(json_object_get(c, "required"))) {
			/* a literal, not the plan's string: the plan is freed below */
			const char *r = sget(c, "risk");
			if (r && !strcmp(r, "high"))
				risk = "high";
			else if (!strcmp(risk, "low"))
				risk = "medium";
		}
		/* what the flow library says a seed or URL does (repository-supplied) goes in the prompt too */
		json_array_extend(cmds, json_object_get(c, "exactCommand"));
		json_decref(plan);
	}
	json_decref(flow_steps);
	sw_buf cmd = SW_BUF_INIT;
	const char *const phases[] = {"prepare", "teardown"};
	json_t *lists[] = {prep, tear};
	for (size_t p = 0; p < 2; p++)
		json_array_foreach(lists[p], i, st)
		{
			char *line = step_line(st);
			if (cmd.len)
				sw__buf_putc(&cmd, '\n');
			sw__buf_printf(&cmd, "%s %zu: %s%s", phases[p], i + 1, line ? line : "?",
			               is_clear(st) ? " (clears the app's data)" : "");
			free(line);
		}
	json_array_foreach(cmds, i, st)
	{
		sw__buf_putc(&cmd, '\n');
		sw__buf_puts(&cmd, json_string_value(st) ? json_string_value(st) : "");
	}
	json_decref(cmds);
	res = json_pack("{ss,ss,ss,so,so,ss}", "name", name, "path", rel, "risk", risk, "prepare",
	                prep ? json_incref(prep) : json_array(), "teardown", tear ? json_incref(tear) : json_array(),
	                "exactCommand", cmd.data ? cmd.data : "");
	sw__buf_free(&cmd);
	if (!res) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*out = res;
	rc = SW_OK;
out:
	free(rel);
	free(real);
	free(text);
	json_decref(doc);
	return rc;
}

SW_API int sw_generate_state_profile(const char *options_json, char **result_json, sw_error **err)
{
	if (!options_json || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_generate_state_profile: options and result are required");
	*result_json = NULL;
	json_t *o = json_loads(options_json, 0, NULL);
	json_t *p = NULL;
	int rc = sw__gen_state_load(sget(o, "root"), sget(o, "stateProfile"), &p, err);
	json_decref(o);
	if (rc < 0)
		return rc;
	*result_json = sw__json_compact(p);
	json_decref(p);
	return *result_json ? SW_OK : sw__error_nomem(err);
}
