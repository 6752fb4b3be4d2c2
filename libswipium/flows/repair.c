/* repair.c: qa_flow_repair: role-restricted selector candidates from the current screen and safe one-line patches. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flow-internal.h"
#include "../actions/actions-internal.h"

/* Levenshtein similarity in [0, 1] over ASCII-lower-cased bytes (inputs capped at SW_FLOW_EDIT_MAX). */
static double similarity(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > SW_FLOW_EDIT_MAX)
		la = SW_FLOW_EDIT_MAX;
	if (lb > SW_FLOW_EDIT_MAX)
		lb = SW_FLOW_EDIT_MAX;
	if (!la && !lb)
		return 1;
	size_t m = la > lb ? la : lb;
	return 1.0 - (double)sw__flow_edit_distance(a, la, b, lb) / (double)m;
}

/* Unicode spaces a label may end or be padded with (U+00A0 and U+202F are common in real apps). */
static bool is_space_cp(uint32_t cp)
{
	return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
	       (cp >= 0x2000 && cp <= 0x200B) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
	       cp == 0x3000 || cp == 0xFEFF;
}

/* @s with every run of Unicode spaces folded to one U+0020 and both ends trimmed: the form every text
 * comparison of the repair uses. (transfer full; NULL only when out of memory) */
static char *norm_text(const char *s)
{
	size_t len = strlen(s);
	sw_buf b = SW_BUF_INIT;
	bool space = false;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = sw__utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (k == 0) {
			cp = 0xFFFD;
			k = 1;
		}
		if (is_space_cp(cp)) {
			space = b.len > 0;
		} else {
			if (space)
				sw__buf_putc(&b, ' ');
			space = false;
			if (cp == 0xFFFD && k == 1)
				sw__buf_puts(&b, "\xef\xbf\xbd");
			else
				sw__buf_append(&b, s + i, k);
		}
		i += k;
	}
	if (!b.data && !b.failed)
		return sw__strdup("");
	return sw__buf_steal(&b, NULL);
}

static bool has_selector(const char *k)
{
	return !strcmp(k, "tap") || !strcmp(k, "assertVisible") || !strcmp(k, "assertNotVisible") ||
	       !strcmp(k, "scrollTo") || !strcmp(k, "waitForVisible") || !strcmp(k, "inputText") || !strcmp(k, "wait");
}

/* Whether @e has the role of the failed target: a field for inputText, else anything but a field. */
static bool role_ok(const char *kind, const json_t *e)
{
	const char *role = json_string_value(json_object_get(e, "role"));
	bool field = role && !strcmp(role, "text-field");
	if (!strcmp(kind, "inputText"))
		return field;
	if (field)
		return false;
	if (!strcmp(kind, "tap"))
		return json_is_true(json_object_get(e, "clickable"));
	return true;
}

/* Replaces the value of a one-line `- kind: value` step on line @line (1-based). */
static int patch_line(const char *text, size_t len, int line, const char *kind, const char *to, char **out,
                      char **from_out)
{
	const char *p = text, *end = text + len;
	for (int l = 1; l < line && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return -1;
		p = nl + 1;
	}
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	const char *q = p;
	while (q < eol && *q == ' ')
		q++;
	if (q >= eol || *q != '-')
		return -1;
	q++;
	while (q < eol && *q == ' ')
		q++;
	size_t kl = strlen(kind);
	if ((size_t)(eol - q) <= kl || strncmp(q, kind, kl) != 0 || q[kl] != ':')
		return -1;
	q += kl + 1;
	while (q < eol && *q == ' ')
		q++;
	const char *vs = q, *ve;
	if (q < eol && (*q == '"' || *q == '\'')) {
		char quote = *q;
		const char *c = q + 1;
		while (c < eol && *c != quote)
			c += (*c == '\\' && quote == '"' && c + 1 < eol) ? 2 : 1;
		if (c >= eol)
			return -1;
		ve = c + 1;
	} else {
		if (q >= eol || *q == '{' || *q == '[' || *q == '|' || *q == '>')
			return -1; /* not a simple selector step */
		const char *c = q;
		while (c < eol && !(*c == ' ' && c + 1 < eol && c[1] == '#'))
			c++;
		ve = c;
		while (ve > vs && (ve[-1] == ' ' || ve[-1] == '\r'))
			ve--;
	}
	const char *rest = ve;
	while (rest < eol && (*rest == ' ' || *rest == '\r'))
		rest++;
	if (rest < eol && *rest != '#')
		return -1;
	sw_buf b = SW_BUF_INIT;
	sw__buf_append(&b, text, (size_t)(vs - text));
	sw__buf_json_string(&b, to, strlen(to));
	sw__buf_append(&b, ve, (size_t)(end - ve));
	if (b.failed) {
		sw__buf_free(&b);
		return -2;
	}
	*from_out = sw__strndup(vs, (size_t)(ve - vs));
	*out = sw__buf_steal(&b, NULL);
	return 0;
}

SW_API int sw_flow_repair(sw_session *session, sw_drive *drive, const char *options_json, char **result_json,
                          sw_error **err)
{
	int rc = SW_OK;
	json_t *opts = NULL, *flow = NULL, *errors = NULL, *snap = NULL, *res = NULL, *cands = json_array();
	char *want = NULL, *path = NULL, *rp = NULL, *text = NULL, *patched = NULL, *from = NULL;
	if (!session || !drive || !options_json || !result_json) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "session, drive, options and result are required");
		goto out;
	}
	opts = json_loads(options_json, 0, NULL);
	json_t *fs = json_object_get(opts, "failedStep");
	if (!json_is_object(opts) || !json_is_integer(fs) || json_integer_value(fs) < 0) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "failedStep (a zero-based step index from failedAtStep) is required");
		goto out;
	}
	const char *root = json_string_value(json_object_get(opts, "root"));
	const char *fy = json_string_value(json_object_get(opts, "flowYaml"));
	if ((rc = sw__flow_load(root, json_string_value(json_object_get(opts, "flow")), fy, &flow, &errors, &path,
	                        err)) < 0)
		goto out;
	json_int_t idx = json_integer_value(fs);
	json_t *step = NULL, *st;
	size_t i;
	json_array_foreach(json_object_get(flow, "steps"), i,
	                   st) if (json_integer_value(json_object_get(st, "index")) == idx) step = st;
	if (!step) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "failedStep %lld is not a valid step of the flow (it has %zu steps)", (long long)idx,
		                   json_array_size(json_object_get(flow, "steps")));
		goto out;
	}
	const char *kind = json_string_value(json_object_get(step, "kind"));
	const char *sel = json_string_value(json_object_get(step, !strcmp(kind, "inputText") ? "into" : "selector"));
	if (!has_selector(kind) || !sel) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "step %lld (%s) has no selector to repair",
		                   (long long)idx, kind);
		goto out;
	}
	bool by_id = sw__str_has_prefix(sel, "id=");
	want = norm_text(by_id ? sel + 3 : sel);
	if (!want) {
		rc = sw__error_nomem(err);
		goto out;
	}
	json_t *sopts = json_pack("{sb}", "verbose", 1);
	rc = sopts ? sw__drive_snapshot(drive, sopts, &snap, err) : sw__error_nomem(err);
	json_decref(sopts);
	if (rc < 0)
		goto out;
	json_t *e;
	json_array_foreach(json_object_get(snap, "elements"), i, e)
	{
		if (!json_is_object(e) || !role_ok(kind, e))
			continue;
		const char *vals[3] = {json_string_value(json_object_get(e, "id")),
		                       json_string_value(json_object_get(e, "text")),
		                       json_string_value(json_object_get(e, "label"))};
		const char *conf = NULL, *why = NULL, *shown = NULL;
		double best = 0;
		char *normed[3] = {NULL, NULL, NULL};
		for (size_t v = 0; v < 3; v++) {
			normed[v] = vals[v] ? norm_text(vals[v]) : NULL;
			const char *s = normed[v];
			if (!s || !s[0])
				continue;
			if (!strcasecmp(s, want)) {
				conf = "high",
				why = v == 0 ? "exact id on the current screen" : "exact text on the current screen";
				shown = s;
				break;
			}
			if (strcasestr(s, want) || strcasestr(want, s)) {
				if (!conf || strcmp(conf, "medium") != 0) {
					conf = "medium", why = "the old text and this one contain each other";
					shown = s;
				}
				continue;
			}
			double sim = similarity(s, want);
			if (sim >= 0.5 && !conf && sim > best) {
				best = sim;
				conf = "low", why = "similar text";
				shown = s;
			}
		}
		if (!conf) {
			for (size_t v = 0; v < 3; v++)
				free(normed[v]);
			continue;
		}
		const char *etext = vals[1] && vals[1][0] ? vals[1] : vals[2];
		char *newsel = by_id && vals[0]    ? sw__asprintf("id=%s", vals[0])
		               : etext && etext[0] ? sw__strdup(etext)
		                                   : sw__asprintf("id=%s", vals[0] ? vals[0] : shown);
		json_t *c =
		    json_pack("{sO,sO,ss,ss,ss}", "ref", json_object_get(e, "ref"), "role", json_object_get(e, "role"),
		              "selector", newsel ? newsel : shown, "confidence", conf, "reason", why);
		free(newsel);
		for (size_t v = 0; v < 3; v++)
			free(normed[v]);
		for (size_t v = 0; v < 3; v++)
			if (vals[v])
				json_object_set_new(c, v == 0 ? "id" : v == 1 ? "text" : "label", json_string(vals[v]));
		if (vals[0])
			json_object_set_new(c, "durableSelector", json_pack("s+", "id=", vals[0]));
		json_array_append_new(cands, c);
	}
	/* rank: high, medium, low (stable within a level) */
	json_t *ranked = json_array();
	const char *levels[] = {"high", "medium", "low"};
	for (size_t l = 0; l < 3; l++)
		json_array_foreach(cands, i, e) if (!strcmp(json_string_value(json_object_get(e, "confidence")),
		                                            levels[l])) json_array_append(ranked, e);
	json_decref(cands);
	cands = ranked;
	json_t *best = json_array_get(cands, 0);
	res = json_pack("{s{sI,ss,ss,sO},sO,sb}", "step", "index", idx, "kind", kind, "selector", sel, "line",
	                json_object_get(step, "line"), "candidates", cands, "applied", 0);
	if (best)
		json_object_set(res, "best", best);
	json_object_set_new(
	    res, "appCodeSuggestion",
	    json_string("Give the element a durable id (Android: android:id / testID; iOS: "
	                "accessibilityIdentifier) and select it with id= so copy changes do not break the flow."));
	if (json_is_true(json_object_get(opts, "apply"))) {
		const char *conf = best ? json_string_value(json_object_get(best, "confidence")) : NULL;
		if (fy) {
			json_object_set_new(res, "note",
			                    json_string("inline flowYaml is never patched; apply works on flow files"));
		} else if (!conf || !strcmp(conf, "low")) {
			json_object_set_new(res, "note",
			                    json_string(conf ? "only a low-confidence candidate: not applied; "
			                                       "check it and edit the flow by hand"
			                                     : "no candidate on the current screen: nothing applied"));
		} else {
			size_t len = 0;
			if ((rc = sw__flow_confine(root, path, &rp, err)) < 0)
				goto out;
			if ((rc = sw__read_file(rp, SW_FLOW_MAX_BYTES, &text, &len, err)) < 0)
				goto out;
			const char *to = json_string_value(json_object_get(best, "selector"));
			int pr = patch_line(text, len, (int)json_integer_value(json_object_get(step, "line")), kind, to,
			                    &patched, &from);
			if (pr == -2) {
				rc = sw__error_nomem(err);
				goto out;
			}
			if (pr < 0) {
				json_object_set_new(res, "note",
				                    json_string("the step is not a simple one-line selector step; "
				                                "edit it by hand"));
			} else {
				/* written where the confined real path says, never through a link that leads out */
				rc = sw_project_write_file(root, rp, patched, strlen(patched), SW_WRITE_KEEP_MODE, err);
				if (rc < 0)
					goto out;
				json_object_set_new(res, "applied", json_true());
				json_object_set_new(res, "patch",
				                    json_pack("{ss,sO,ss,ss}", "path", path, "line",
				                              json_object_get(step, "line"), "from", from, "to", to));
				json_t *spec =
				    json_pack("{ss,ss,ss,ss,ss,s{sb,sb,ss},s{ss,sI,ss,ss}}", "tool", "qa_flow_repair",
				              "action", "automation_project_write", "risk", "low", "target", path,
				              "status", "executed", "consent", "required", 0, "approved", 1,
				              "approvalMechanism", "policy", "detail", "path", path, "line",
				              json_integer_value(json_object_get(step, "line")), "from", sel, "to", to);
				char *sj = sw__json_compact(spec), *row = NULL;
				json_decref(spec);
				if (sj && sw_consent_ledger_row(sj, &row, NULL) == SW_OK)
					sw_session_ledger_append(session, row, NULL);
				free(sj);
				sw_free(row);
			}
		}
	}
	*result_json = sw__json_compact(res);
	if (!*result_json)
		rc = sw__error_nomem(err);
out:
	json_decref(opts);
	json_decref(flow);
	json_decref(errors);
	json_decref(snap);
	json_decref(res);
	json_decref(cands);
	free(want);
	free(path);
	free(rp);
	free(text);
	free(patched);
	free(from);
	return rc;
}
