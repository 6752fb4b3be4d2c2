/* report.c: the public report API: load a saved report, evaluate its release gate, render an export. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report-internal.h"

/* Far above any real report (10,000 workflows and findings take about 20 MB). */
#define REPORT_MAX_BYTES (512u * 1024u * 1024u)

static const struct {
	const char *name;
	sw_report_format format;
} formats[] = {
    {"junit", SW_REPORT_JUNIT},       {"sarif", SW_REPORT_SARIF}, {"github-summary", SW_REPORT_GITHUB_SUMMARY},
    {"markdown", SW_REPORT_MARKDOWN}, {"json", SW_REPORT_JSON},
};

SW_API int sw_report_format_parse(const char *name, sw_report_format *out)
{
	if (!name || !out)
		return SW_EINVAL;
	for (size_t i = 0; i < SW_ARRAY_SIZE(formats); i++)
		if (!strcmp(name, formats[i].name)) {
			*out = formats[i].format;
			return SW_OK;
		}
	return SW_EINVAL;
}

SW_API const char *sw_report_format_name(sw_report_format format)
{
	for (size_t i = 0; i < SW_ARRAY_SIZE(formats); i++)
		if (formats[i].format == format)
			return formats[i].name;
	return NULL;
}

static bool is_report(const json_t *root)
{
	return json_is_object(root) && json_is_array(json_object_get(root, "findings")) &&
	       json_is_array(json_object_get(root, "testOutcomes"));
}

static int load(const char *data, size_t len, const char *path, sw_report **out, sw_error **err)
{
	char *msg = NULL;
	json_t *root = sw__report_parse_json(data, len, &msg);
	if (!root) {
		int rc;
		if (path)
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "Could not read report %s: %s",
			                   path, msg ? msg : "invalid JSON");
		else
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s", msg ? msg : "invalid JSON");
		free(msg);
		return rc;
	}
	if (!is_report(root)) {
		json_decref(root);
		if (path)
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "%s is not a Swipium report JSON (missing findings/testOutcomes).", path);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "not a Swipium report JSON (missing findings/testOutcomes).");
	}
	sw_report *r = calloc(1, sizeof(*r));
	if (!r) {
		json_decref(root);
		return sw__error_nomem(err);
	}
	r->root = root;
	/* String(sessionId) as the reference prints it; absent (undefined) stays NULL. */
	const json_t *sid = json_object_get(root, "sessionId");
	if (sid) {
		sw_buf b = sw__js_string_buf(sid);
		if (!memchr(sw__buf_cstr(&b), '\0', b.len))
			r->session_id = sw__strdup(sw__buf_cstr(&b));
		sw__buf_free(&b);
	}
	*out = r;
	return SW_OK;
}

SW_API int sw_report_load_data(const char *data, size_t len, sw_report **out, sw_error **err)
{
	if ((!data && len) || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_report_load_data: data and out are required");
	return load(data ? data : "", len, NULL, out, err);
}

SW_API int sw_report_load_file(const char *path, sw_report **out, sw_error **err)
{
	if (!path || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_report_load_file: path and out are required");
	struct stat st;
	if (stat(path, &st) != 0) {
		int e = errno;
		if (e == ENOENT || e == ENOTDIR)
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "Report file not found: %s",
			                     path);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "Could not read report %s: %s", path,
		                     strerror(e));
	}
	if (S_ISDIR(st.st_mode))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "Could not read report %s: EISDIR: illegal operation on a directory, read", path);
	char *data = NULL;
	size_t len = 0;
	sw_error *rerr = NULL;
	if (sw__read_file(path, REPORT_MAX_BYTES, &data, &len, &rerr) != SW_OK) {
		int rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                       "Could not read report %s: %s", path, sw_error_message(rerr));
		sw_error_free(rerr);
		return rc;
	}
	int rc = load(data, len, path, out, err);
	free(data);
	return rc;
}

SW_API void sw_report_free(sw_report *report)
{
	if (!report)
		return;
	json_decref(report->root);
	free(report->session_id);
	free(report);
}

SW_API const char *sw_report_session_id(const sw_report *report)
{
	return report ? report->session_id : NULL;
}

static char *gate_text(const json_t *gate)
{
	return sw__json_compact(gate);
}

SW_API int sw_report_gate(const sw_report *report, const char *project_root, char **gate_json, sw_error **err)
{
	if (!report || !gate_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_report_gate: report and out are required");
	json_t *policy = sw__policy_load(project_root);
	json_t *gate = sw__gate_eval(report->root, policy);
	json_decref(policy);
	char *text = gate ? gate_text(gate) : NULL;
	json_decref(gate);
	if (!text)
		return sw__error_nomem(err);
	*gate_json = text;
	return SW_OK;
}

SW_API int sw_report_gate_verdict(const char *gate_json, int *block, char **reason, sw_error **err)
{
	json_error_t jerr;
	json_t *g = gate_json ? json_loads(gate_json, JSON_ALLOW_NUL, &jerr) : NULL;
	const json_t *b = json_object_get(g, "block"), *r = json_object_get(g, "reason");
	if (!json_is_boolean(b) || !json_is_string(r)) {
		json_decref(g);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "not a release-gate verdict");
	}
	char *copy = NULL;
	if (reason && !(copy = sw__strndup(json_string_value(r), json_string_length(r)))) {
		json_decref(g);
		return sw__error_nomem(err);
	}
	if (block)
		*block = json_is_true(b);
	if (reason)
		*reason = copy;
	json_decref(g);
	return SW_OK;
}

char *sw__render_json(const json_t *r, const json_t *gate, size_t *len)
{
	/* {...report, releaseGate}: the report's keys in order, releaseGate in place of an existing one or last. */
	sw_buf b = SW_BUF_INIT;
	sw__jw *w = malloc(sizeof(*w));
	if (!w)
		return NULL;
	sw__jw_init(w, &b);
	sw__jw_open(w, '{');
	const char *key;
	size_t klen;
	json_t *val;
	bool replaced = false;
	json_object_keylen_foreach((json_t *)r, key, klen, val)
	{
		bool is_gate = klen == 11 && !memcmp(key, "releaseGate", 11);
		sw__jw_keyn(w, key, klen);
		sw__jw_value(w, is_gate ? gate : val);
		replaced |= is_gate;
	}
	if (!replaced) {
		sw__jw_key(w, "releaseGate");
		sw__jw_value(w, gate);
	}
	sw__jw_close(w, '}');
	free(w);
	return sw__buf_steal(&b, len);
}

SW_API int sw_report_render(const sw_report *report, sw_report_format format, const sw_report_render_options *opts,
                            char **out, size_t *len_out, char **gate_json_out, sw_error **err)
{
	if (!report || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_report_render: report and out are required");
	if (opts && opts->version != SW_REPORT_RENDER_OPTIONS_VERSION)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_report_render: options version %u is not supported", opts->version);
	if (!sw_report_format_name(format))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_report_render: unknown format %d",
		                     (int)format);
	const char *root = opts ? opts->project_root : NULL;
	json_t *policy = sw__policy_load(root);
	json_t *gate = sw__gate_eval(report->root, policy);
	json_decref(policy);
	if (!gate)
		return sw__error_nomem(err);
	size_t len = 0;
	char *body = NULL;
	switch (format) {
	case SW_REPORT_JUNIT: body = sw__render_junit(report->root, gate, &len); break;
	case SW_REPORT_SARIF: body = sw__render_sarif(report->root, gate, root, &len); break;
	case SW_REPORT_GITHUB_SUMMARY: body = sw__render_github_summary(report->root, gate, &len); break;
	case SW_REPORT_MARKDOWN: body = sw__render_markdown(report->root, &len); break;
	case SW_REPORT_JSON: body = sw__render_json(report->root, gate, &len); break;
	}
	char *gtext = NULL;
	if (body && gate_json_out && !(gtext = gate_text(gate))) {
		free(body);
		body = NULL;
	}
	json_decref(gate);
	if (!body)
		return sw__error_nomem(err);
	*out = body;
	if (len_out)
		*len_out = len;
	if (gate_json_out)
		*gate_json_out = gtext;
	return SW_OK;
}
