/* check.c: loading flows by name or path, path confinement, the CI policy, and the static check (qa_flow_check). */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flow-internal.h"

/* Real path of @p, or NULL when it does not exist. */
static char *real(const char *p)
{
	char *r = realpath(p, NULL);
	return r;
}

int sw__flow_confine(const char *root, const char *rel, char **real_out, sw_error **err)
{
	sw_error *e = NULL;
	int rc = sw__confine(root, rel, SW__CONFINE_EXISTING, real_out, &e);
	if (rc == SW_ENOTFOUND && e && !strcmp(sw_error_failure_code(e), "UNKNOWN")) {
		sw_error_free(e);
		return sw__error_set(err, SW_ENOTFOUND, "FLOW_NOT_FOUND", NULL, "%s does not exist", rel);
	}
	sw__error_propagate(err, e);
	return rc;
}

/* The file of a flow's baseline: a bare name is a qa_visual baseline (.swipium/baselines/<name>.png), anything
 * else a PNG path inside the project. Both are confined (UNSAFE_ACTION_REFUSED through a link leading out);
 * a missing file is returned as a path for the caller to report. */
int sw__flow_baseline_file(const char *root, const char *name, char **path, sw_error **err)
{
	if (!name || !*name)
		return sw__error_set(err, SW_EINVAL, "INVALID_FLOW", NULL, "the step names no baseline");
	bool bare = name[0] != '.' && strlen(name) <= 64;
	for (const char *c = name; bare && *c; c++)
		bare = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '.' ||
		       *c == '_' || *c == '-';
	char *rel = bare ? sw__asprintf(".swipium/baselines/%s.png", name) : sw__strdup(name);
	if (!rel)
		return sw__error_nomem(err);
	int rc = sw__confine(root, rel, 0, path, err);
	free(rel);
	return rc;
}

static int read_flow_file(const char *path, char **text, size_t *len, sw_error **err)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return sw__error_set(err, SW_ENOTFOUND, "FLOW_NOT_FOUND", NULL, "%s is not a readable file", path);
	if ((unsigned long long)st.st_size > SW_FLOW_MAX_BYTES)
		return sw__error_set(err, SW_EINVAL, "INVALID_FLOW", "Split the flow into smaller flows.",
		                     "%s is %lld bytes; flows over %u bytes are refused before parsing", path,
		                     (long long)st.st_size, SW_FLOW_MAX_BYTES);
	int rc = sw__read_file(path, SW_FLOW_MAX_BYTES, text, len, err);
	if (rc == SW_ELIMIT)
		return sw__error_set(err, SW_EINVAL, "INVALID_FLOW", NULL, "%s is over %u bytes", path,
		                     SW_FLOW_MAX_BYTES);
	return rc;
}

int sw__flow_load(const char *root, const char *flow, const char *flow_yaml, json_t **flow_out, json_t **errors,
                  char **path_out, sw_error **err)
{
	int rc = SW_OK;
	char *text = NULL, *found = NULL;
	size_t len = 0;
	json_t *checked = NULL;
	if (path_out)
		*path_out = NULL;
	if (flow_yaml) {
		len = strlen(flow_yaml);
		return sw__flow_parse(flow_yaml, len, "flowYaml", flow_out, errors, err);
	}
	if (!flow || !flow[0])
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Pass flow (a name under .swipium/flows) or flowYaml.",
		                     "neither flow nor flowYaml was given");
	if (!root)
		return sw__error_set(err, SW_ENOTFOUND, "PROJECT_ROOT_UNRESOLVED", NULL,
		                     "flow \"%s\" needs a project root to be found", flow);
	checked = json_array();
	char *rroot = real(root);
	if (!rroot) {
		rc = sw__error_set(err, SW_ENOTFOUND, "PROJECT_ROOT_UNRESOLVED", NULL, "project root %s does not exist",
		                   root);
		goto out;
	}
	/* candidates: .swipium/flows/<flow>, .swipium/flows/<flow>.yaml/.yml, <root>/<flow> */
	bool plain_name = !strchr(flow, '/');
	const char *suffixes[] = {"", ".yaml", ".yml"};
	for (int pass = 0; pass < 2 && !found; pass++) {
		for (size_t i = 0; i < 3 && !found; i++) {
			if (pass == 0 && !plain_name)
				break;
			char *cand = pass == 0 ? sw__asprintf("%s/.swipium/flows/%s%s", rroot, flow, suffixes[i])
			                       : (flow[0] == '/' ? sw__asprintf("%s%s", flow, suffixes[i])
			                                         : sw__asprintf("%s/%s%s", rroot, flow, suffixes[i]));
			if (!cand) {
				rc = sw__error_nomem(err);
				goto out_root;
			}
			json_array_append_new(checked, json_string(cand));
			if (sw__is_file(cand)) {
				char *rp = NULL;
				sw_error *e2 = NULL;
				if (sw__flow_confine(rroot, cand, &rp, &e2) < 0) {
					free(cand);
					sw__error_propagate(err, e2);
					rc = SW_EDENIED;
					goto out_root;
				}
				found = rp;
			}
			free(cand);
		}
	}
	if (!found) {
		char *list = sw__json_compact(checked);
		rc = sw__error_set(err, SW_ENOTFOUND, "FLOW_NOT_FOUND",
		                   "Create it with `swipium init flows` or pass flowYaml.",
		                   "flow \"%s\" not found; paths checked: %s", flow, list ? list : "");
		free(list);
		goto out_root;
	}
	if ((rc = read_flow_file(found, &text, &len, err)) < 0)
		goto out_root;
	const char *rel = found + strlen(rroot) + (found[strlen(rroot)] == '/');
	if ((rc = sw__flow_parse(text, len, rel, flow_out, errors, err)) < 0)
		goto out_root;
	if (path_out) {
		*path_out = found;
		found = NULL;
	}
out_root:
	free(rroot);
out:
	free(found);
	free(text);
	json_decref(checked);
	return rc;
}

/* ---- CI policy --------------------------------------------------------------- */

json_t *sw__flow_policy_allow(const char *root)
{
	if (!root)
		return NULL;
	char *p = sw__asprintf("%s/.swipium/policy.json", root), *text = NULL;
	if (!p)
		return NULL;
	size_t len;
	json_t *allow = NULL;
	if (sw__read_file(p, 1u << 20, &text, &len, NULL) == SW_OK) {
		json_t *j = json_loadb(text, len, 0, NULL);
		json_t *a = json_object_get(j, "ciAllowMutations");
		if (json_is_array(a))
			allow = json_incref(a);
		json_decref(j);
	}
	free(text);
	free(p);
	return allow;
}

/* Lower-case letters and digits only: "Network-Toggle" -> "networktoggle". */
static void norm(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (; *in && n + 1 < cap; in++)
		if (isalnum((unsigned char)*in))
			out[n++] = (char)tolower((unsigned char)*in);
	out[n] = '\0';
}

bool sw__flow_policy_allows(const json_t *allow, const json_t *step)
{
	const char *k = json_string_value(json_object_get(step, "kind"));
	if (!k || !json_is_array(allow))
		return false;
	static const char *const net[] = {"networkoffline", "networkonline", "network",
	                                  "networktoggle",  "connectivity",  NULL};
	static const char *const seed[] = {"seed", "seeds", "fixtures", "fixtureseed", NULL};
	static const char *const restart[] = {"restartapp", "restart", "lifecycle", "appcontrol", NULL};
	static const char *const url[] = {"openurl", NULL};
	const char *const *set = !strcmp(k, "seed")         ? seed
	                         : !strcmp(k, "restartApp") ? restart
	                         : !strcmp(k, "openUrl")    ? url
	                                                    : net;
	size_t i;
	json_t *t;
	json_array_foreach(allow, i, t)
	{
		const char *s = json_string_value(t);
		if (!s)
			continue;
		if (!strcmp(s, "*"))
			return true;
		char n[64];
		norm(s, n, sizeof(n));
		if (!strcmp(n, "all") || !strcmp(n, "mutatingsteps"))
			return true;
		for (size_t j = 0; set[j]; j++) {
			if (set == net && j < 2) {
				/* the step name itself allows only that step */
				char kn[64];
				norm(k, kn, sizeof(kn));
				if (!strcmp(n, set[j]) && !strcmp(kn, set[j]))
					return true;
				continue;
			}
			if (!strcmp(n, set[j]))
				return true;
		}
	}
	return false;
}

/* ---- lint ------------------------------------------------------------------------ */

static const char *const SELECTOR_KEYS[] = {"selector", "into"};

static bool is_native_ios(const char *s)
{
	return sw__str_has_prefix(s, "accessibility id=") || sw__str_has_prefix(s, "name=") ||
	       sw__str_has_prefix(s, "predicate string=") || sw__str_has_prefix(s, "class chain=");
}

static void warn(json_t *w, const json_t *step, const char *code, const char *fmt, ...) SW_PRINTF(4, 5);
static void warn(json_t *w, const json_t *step, const char *code, const char *fmt, ...)
{
	char *raw = NULL, *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	/* capped on a character boundary (a flow's text can be anything): never an invalid string, never lost */
	msg = sw__cap(raw ? raw : "", 500);
	free(raw);
	json_t *o = json_pack("{ss,ss?}", "code", code, "message", msg);
	free(msg);
	if (!o)
		return;
	if (step) {
		json_object_set(o, "phase", json_object_get(step, "phase"));
		json_object_set(o, "step", json_object_get(step, "index"));
		json_object_set(o, "kind", json_object_get(step, "kind"));
		json_object_set(o, "line", json_object_get(step, "line"));
	} else {
		json_object_set_new(o, "line", json_integer(1)); /* about the whole flow: its first line */
	}
	json_array_append_new(w, o);
}

static void lint_selector(json_t *w, const json_t *step, const char *sel, const char *platform)
{
	if (!sel)
		return;
	bool android = platform && !strcmp(platform, "android");
	bool ios = platform && !strcmp(platform, "ios");
	bool cross = !platform || !strcmp(platform, "cross-platform");
	const char *by = json_string_value(json_object_get(step, "by"));
	if (is_native_ios(sel) || (by && !strcmp(by, "accessibility id"))) {
		if (android || cross)
			warn(
			    w, step, "PLATFORM_SPECIFIC_LOCATOR",
			    "\"%s\" is an iOS (WebDriverAgent) locator; it fails on Android. Use plain text or id= for "
			    "Android, or keep this flow iOS-only",
			    sel);
		return;
	}
	if (sw__str_has_prefix(sel, "id=") || (by && !strcmp(by, "id"))) {
		if (ios || cross)
			warn(w, step, "PLATFORM_SPECIFIC_LOCATOR",
			     "\"%s\" is an Android resource-id locator; on iOS use accessibility id= (testID / "
			     "accessibilityIdentifier)",
			     sel);
		return;
	}
	if (sw__str_has_prefix(sel, "//") || sw__str_has_prefix(sel, "xpath=")) {
		warn(w, step, "BRITTLE_LOCATOR", "\"%s\" looks like an XPath; flows match text or ids, not XPaths",
		     sel);
		return;
	}
	size_t n = strlen(sel);
	bool digits = n > 0;
	for (const char *c = sel; *c; c++)
		if (!isdigit((unsigned char)*c) && *c != '.' && *c != ',' && *c != ' ')
			digits = false;
	if (digits)
		warn(w, step, "BRITTLE_LOCATOR",
		     "\"%s\" matches a number shown on screen, which changes with data; add a durable id (testID / "
		     "resource-id) and use id=",
		     sel);
	else if (sw__utf16_len(sel, n) > 40) {
		char *head = sw__utf8_cap(sel, n, 41, SW_CAP_HEAD);
		warn(w, step, "BRITTLE_LOCATOR",
		     "the text locator \"%s\" is long and breaks on any copy change; prefer a durable id (id=)",
		     head ? head : "");
		free(head);
	}
}

json_t *sw__flow_lint(const json_t *flow, const json_t *errors, const char *platform, bool ci, const char *root,
                      const json_t *variables)
{
	json_t *res = json_object(), *warnings = json_array(), *vars = json_array(), *mut = json_array();
	const char *phases[] = {"setup", "steps", "teardown"};
	size_t total = 0, coords = 0, located = 0;
	bool has_ocr = false, has_visual = false;
	for (size_t p = 0; p < 3; p++) {
		size_t i;
		json_t *st;
		json_array_foreach(json_object_get(flow, phases[p]), i, st)
		{
			total++;
			const char *k = json_string_value(json_object_get(st, "kind"));
			sw__flow_step_variables(st, vars);
			if (sw__flow_step_mutating(st))
				json_array_append_new(
				    mut, json_pack("{sO,sO,sO,sO}", "phase", json_object_get(st, "phase"), "step",
				                   json_object_get(st, "index"), "kind", json_object_get(st, "kind"),
				                   "line", json_object_get(st, "line")));
			if (sw__flow_step_ocr(st))
				has_ocr = true;
			if (sw__flow_step_visual(st))
				has_visual = true;
			const char *tp = json_string_value(json_object_get(st, "template"));
			if (!tp)
				tp = json_string_value(json_object_get(st, "baseline"));
			if (tp) {
				bool escapes = tp[0] == '/' || strstr(tp, "..") != NULL;
				if (root) {
					char *rp = NULL;
					sw_error *e2 = NULL;
					escapes = (json_object_get(st, "template") ? sw__flow_confine(root, tp, &rp, &e2)
					                                           : sw__flow_baseline_file(root, tp, &rp, &e2)) ==
					          SW_EDENIED;
					free(rp);
					sw_error_free(e2);
				}
				if (escapes)
					warn(warnings, st, "UNSAFE_ACTION_REFUSED",
					     "\"%s\" points outside the project root; qa_flow_run refuses it. Keep "
					     "templates and "
					     "baselines inside the project",
					     tp);
			}
			if (!strcmp(k, "tapAt")) {
				coords++;
				warn(warnings, st, "BRITTLE_LOCATOR",
				     "tapAt [%lld, %lld] taps a coordinate that moves with screen size and layout; tap "
				     "a "
				     "selector instead",
				     (long long)json_integer_value(json_object_get(st, "x")),
				     (long long)json_integer_value(json_object_get(st, "y")));
			}
			for (size_t s = 0; s < SW_ARRAY_SIZE(SELECTOR_KEYS); s++) {
				const char *sel = json_string_value(json_object_get(st, SELECTOR_KEYS[s]));
				if (sel && strcmp(k, "note") != 0) {
					located++;
					lint_selector(warnings, st, sel, platform);
				}
			}
		}
	}
	if (coords > 0 && located == 0)
		warn(warnings, NULL, "COORDINATE_ONLY_FLOW",
		     "every interaction of this flow is a coordinate tap; it breaks on another screen size. Use "
		     "selectors "
		     "(text or id=)");
	if (has_ocr)
		warn(warnings, NULL, "CONSENT_REQUIRED",
		     "OCR steps (tapOcrText, assertOcrText) run only with the flow_mutation_run consent and never in "
		     "sensitive sessions");
	if (json_array_size(mut) > 0)
		warn(warnings, NULL, "MUTATING_STEPS",
		     "this flow has %zu mutating step(s); qa_flow_run asks for the flow_mutation_run consent and "
		     "qa_smoke "
		     "never runs it",
		     json_array_size(mut));
	size_t nerr = json_array_size(errors);
	json_object_set_new(res, "ok", json_boolean(nerr == 0));
	json_object_set_new(res, "valid", json_boolean(nerr == 0));
	json_object_set(res, "name", json_object_get(flow, "name"));
	json_object_set(res, "mode", json_object_get(flow, "mode"));
	json_object_set_new(res, "stepCount", json_integer((json_int_t)total));
	json_object_set_new(res, "errors", json_deep_copy(errors));
	json_object_set_new(res, "warnings", warnings);
	json_object_set_new(res, "variables", vars);
	json_object_set_new(res, "mutatingSteps", mut);
	json_object_set_new(res, "needsConsent", json_boolean(json_array_size(mut) > 0 || has_ocr));
	json_object_set_new(res, "usesVisualSteps", json_boolean(has_visual));
	if (ci) {
		json_t *ciobj = json_object(), *missing = json_array(), *blocked = json_array();
		size_t i;
		json_t *v;
		json_array_foreach(vars, i, v)
		{
			const char *n = json_string_value(v);
			if (variables && json_object_get(variables, n))
				continue;
			if (!sw__str_has_prefix(n, "SWIPIUM_")) {
				json_array_append_new(
				    missing, json_pack("{ss,ss}", "name", n, "reason",
				                       "only SWIPIUM_* names are read from the environment; pass it "
				                       "explicitly or rename it"));
			} else if (!getenv(n)) {
				json_array_append_new(
				    missing, json_pack("{ss,ss}", "name", n, "reason", "not set in this environment"));
			}
		}
		json_t *allow = sw__flow_policy_allow(root);
		json_array_foreach(mut, i, v)
		{
			size_t p;
			json_t *st = NULL, *cand;
			for (p = 0; p < 3 && !st; p++) {
				size_t j;
				json_array_foreach(
				    json_object_get(flow, phases[p]), j,
				    cand) if (json_equal(json_object_get(cand, "phase"), json_object_get(v, "phase")) &&
				              json_equal(json_object_get(cand, "index"), json_object_get(v, "step")))
				    st = cand;
			}
			if (!sw__flow_policy_allows(allow, st))
				json_array_append(blocked, v);
		}
		json_object_set_new(ciobj, "policyFound", json_boolean(allow != NULL));
		json_decref(allow);
		json_object_set_new(ciobj, "missingVariables", missing);
		json_object_set_new(ciobj, "mutationsNotAllowed", blocked);
		json_object_set_new(
		    ciobj, "ready",
		    json_boolean(nerr == 0 && json_array_size(missing) == 0 && json_array_size(blocked) == 0));
		json_object_set_new(res, "ci", ciobj);
	}
	return res;
}

/* What sw_flow_check() and sw_flow_plan() accept; anything else is INVALID_ARGUMENT (the one options loader). */
static const sw__opt flow_opts[] = {
    {"root", SW__OPT_STRING, false},     {"flow", SW__OPT_STRING, false}, {"flowYaml", SW__OPT_STRING, false},
    {"platform", SW__OPT_STRING, false}, {"ci", SW__OPT_BOOL, false},     {"variables", SW__OPT_OBJECT, false},
    {"backend", SW__OPT_STRING, false},  {NULL}};

int sw__flow_load_options(const char *options_json, json_t **opts, json_t **flow_out, json_t **errors, char **path_out,
                          sw_error **err)
{
	*opts = NULL;
	if (!options_json || !options_json[0])
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	int rc = sw__options_load(options_json, flow_opts, "flow options", opts, err);
	if (rc < 0)
		return rc;
	return sw__flow_load(json_string_value(json_object_get(*opts, "root")),
	                     json_string_value(json_object_get(*opts, "flow")),
	                     json_string_value(json_object_get(*opts, "flowYaml")), flow_out, errors, path_out, err);
}

/* ---- public: qa_flow_check ----------------------------------------------------------- */

SW_API int sw_flow_check(const char *options_json, char **result_json, sw_error **err)
{
	int rc = SW_OK;
	json_t *opts = NULL, *flow = NULL, *errors = NULL, *res = NULL;
	char *path = NULL;
	if (!options_json || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options and result must not be NULL");
	if ((rc = sw__flow_load_options(options_json, &opts, &flow, &errors, &path, err)) < 0)
		goto out;
	const char *root = json_string_value(json_object_get(opts, "root"));
	const char *platform = json_string_value(json_object_get(opts, "platform"));
	res = sw__flow_lint(flow, errors, platform, json_is_true(json_object_get(opts, "ci")), root,
	                    json_object_get(opts, "variables"));
	if (!res) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (path)
		json_object_set_new(res, "path", json_string(path));
	*result_json = sw__json_compact(res);
	if (!*result_json)
		rc = sw__error_nomem(err);
out:
	json_decref(opts);
	json_decref(flow);
	json_decref(errors);
	json_decref(res);
	free(path);
	return rc;
}
