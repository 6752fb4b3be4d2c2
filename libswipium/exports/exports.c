/* exports.c: Playwright-style JSON of a report's outcomes, and recorded qa_act actions as a Flow V2 YAML. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"

static const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* ---- Playwright ------------------------------------------------------------------------------ */

SW_API int sw_export_playwright(const char *report_json, char **out, sw_error **err)
{
	if (!report_json || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_export_playwright: missing argument");
	json_error_t jerr;
	json_t *report = json_loads(report_json, 0, &jerr);
	if (!report)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "Report is not JSON: %s", jerr.text);
	json_t *outcomes = json_object_get(report, "testOutcomes");
	if (!json_is_array(outcomes)) {
		json_decref(report);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "Report has no testOutcomes array");
	}
	const char *sid = sget(report, "sessionId") ? sget(report, "sessionId") : "session";
	char *file = sw__asprintf("swipium-session-%s", sid);
	json_t *specs = json_array();
	json_int_t expected = 0, unexpected = 0, skipped = 0;
	size_t i;
	json_t *o;
	const char *first_at = NULL;
	json_array_foreach(outcomes, i, o)
	{
		const char *outcome = sget(o, "outcome") ? sget(o, "outcome") : "skipped";
		const char *workflow = sget(o, "workflow") ? sget(o, "workflow") : "(unnamed workflow)";
		const char *at = sget(o, "at") ? sget(o, "at") : "";
		if (!first_at && *at)
			first_at = at;
		bool pass = !strcmp(outcome, "pass"), fail = !strcmp(outcome, "fail");
		const char *result_status = pass ? "passed" : fail ? "failed" : "skipped";
		const char *test_status = pass ? "expected" : fail ? "unexpected" : "skipped";
		expected += pass;
		unexpected += fail;
		skipped += !pass && !fail;
		json_t *errors = json_array();
		if (fail) {
			const char *reason = sget(o, "reason");
			char *msg = sw__asprintf("%s%s%s", sget(o, "category") ? sget(o, "category") : "failed",
			                         reason ? ": " : "", reason ? reason : "");
			json_array_append_new(errors, json_pack("{s:s}", "message", msg ? msg : "failed"));
			free(msg);
		}
		json_t *attachments = json_array();
		size_t j;
		json_t *u;
		json_array_foreach(json_object_get(o, "artifactUris"), j, u)
		{
			if (json_is_string(u))
				json_array_append_new(attachments,
				                      json_pack("{s:s,s:s,s:O}", "name", "evidence", "contentType",
				                                "text/uri-list", "path", u));
		}
		json_t *annotations = json_array();
		static const char *const notes[] = {"category",      "reason",           "missingPrecondition",
		                                    "requiredState", "recommendedSetup", NULL};
		for (int k = 0; notes[k]; k++)
			if (sget(o, notes[k]) && !(fail && !strcmp(notes[k], "reason")))
				json_array_append_new(annotations, json_pack("{s:s,s:s}", "type", notes[k],
				                                             "description", sget(o, notes[k])));
		json_t *result = json_pack("{s:i,s:s,s:i,s:o,s:[],s:[],s:i,s:s,s:o}", "workerIndex", 0, "status",
		                           result_status, "duration", 0, "errors", errors, "stdout", "stderr", "retry",
		                           0, "startTime", at, "attachments", attachments);
		json_t *test = json_pack("{s:i,s:o,s:s,s:s,s:s,s:[o],s:s}", "timeout", 0, "annotations", annotations,
		                         "expectedStatus", pass || fail ? "passed" : "skipped", "projectId", "swipium",
		                         "projectName", "swipium", "results", result, "status", test_status);
		char id[32];
		snprintf(id, sizeof(id), "%s-%zu", sid, i + 1);
		json_array_append_new(specs,
		                      json_pack("{s:s,s:b,s:[],s:[o],s:s,s:s,s:I,s:i}", "title", workflow, "ok", !fail,
		                                "tags", "tests", test, "id", id, "file", file ? file : "swipium",
		                                "line", (json_int_t)(i + 1), "column", 0));
	}
	json_t *doc =
	    json_pack("{s:{s:s,s:[{s:s,s:s}]},s:[{s:s,s:s,s:i,s:i,s:o,s:[]}],s:[],s:{s:s,s:i,s:I,s:I,s:I,s:i}}",
	              "config", "rootDir", ".", "projects", "id", "swipium", "name", "swipium", "suites", "title",
	              file ? file : "swipium", "file", file ? file : "swipium", "line", 0, "column", 0, "specs", specs,
	              "suites", "errors", "stats", "startTime", first_at ? first_at : "", "duration", 0, "expected",
	              expected, "skipped", skipped, "unexpected", unexpected, "flaky", 0);
	free(file);
	json_decref(report);
	if (!doc)
		return sw__error_nomem(err);
	*out = sw__json_pretty(doc);
	json_decref(doc);
	return *out ? SW_OK : sw__error_nomem(err);
}

/* ---- Flow V2 ----------------------------------------------------------------------------------- */

static void yq(sw_buf *b, const char *s)
{
	/* A JSON string is a valid YAML double-quoted scalar. */
	sw__buf_json_string(b, s, strlen(s));
}

/* The durable selector of a recorded target, or NULL (a bare @eN ref is not durable). (transfer full) */
static char *selector_of(const json_t *target)
{
	if (!json_is_object(target))
		return NULL;
	if (sget(target, "id"))
		return sw__asprintf("id=%s", sget(target, "id"));
	json_t *sel = json_object_get(target, "selector");
	if (json_is_object(sel) && sget(sel, "using") && sget(sel, "value"))
		return sw__asprintf("%s=%s", sget(sel, "using"), sget(sel, "value"));
	if (sget(target, "text"))
		return sw__strdup(sget(target, "text"));
	return NULL;
}

static bool has_point(const json_t *t)
{
	return json_is_number(json_object_get(t, "x")) && json_is_number(json_object_get(t, "y"));
}

static void comment(sw_buf *b, const char *fmt, const char *a)
{
	sw__buf_puts(b, "  # ");
	for (const char *p = fmt; *p; p++) {
		if (p[0] == '%' && p[1] == 's') {
			for (const char *q = a ? a : ""; *q; q++)
				sw__buf_putc(b, (*q == '\n' || *q == '\r') ? ' ' : *q);
			p++;
		} else {
			sw__buf_putc(b, *p);
		}
	}
	sw__buf_putc(b, '\n');
}

/* Appends the step(s) of one action; returns the number of steps written. */
static int step_of(sw_buf *b, const json_t *a)
{
	const char *action = sget(a, "action");
	json_t *target = json_object_get(a, "target");
	char *sel = selector_of(target);
	int n = 0;
	if (!action) {
		comment(b, "skipped: a recorded action without an action name%s", "");
	} else if (sget(a, "failureCode")) {
		comment(b, "skipped: this action failed when recorded (%s)", sget(a, "failureCode"));
	} else if (!strcmp(action, "tap")) {
		if (sel) {
			sw__buf_puts(b, "  - tap: ");
			yq(b, sel);
			sw__buf_putc(b, '\n');
			n = 1;
		} else if (has_point(target)) {
			sw__buf_printf(b, "  - tapAt: [%lld, %lld]\n",
			               (long long)json_number_value(json_object_get(target, "x")),
			               (long long)json_number_value(json_object_get(target, "y")));
			n = 1;
		} else {
			comment(b, "skipped: tap on %s has no durable selector (snapshot refs do not replay)",
			        sget(target, "ref"));
		}
	} else if (!strcmp(action, "type")) {
		const char *text = sget(a, "text");
		if (!text) {
			comment(b, "skipped: type without text%s", "");
		} else {
			sw__buf_puts(b, "  - inputText:\n");
			if (sel) {
				sw__buf_puts(b, "      into: ");
				yq(b, sel);
				sw__buf_putc(b, '\n');
			}
			sw__buf_puts(b, "      text: ");
			yq(b, text);
			sw__buf_putc(b, '\n');
			n = 1;
		}
	} else if (!strcmp(action, "swipe") && sget(a, "direction")) {
		sw__buf_printf(b, "  - swipe: %s\n", sget(a, "direction"));
		n = 1;
	} else if (!strcmp(action, "scroll") && sget(a, "direction")) {
		char *until = selector_of(json_object_get(a, "untilVisible"));
		if (until) {
			sw__buf_puts(b, "  - scrollTo: ");
			yq(b, until);
			sw__buf_putc(b, '\n');
		} else {
			sw__buf_printf(b, "  - swipe: %s\n", sget(a, "direction"));
		}
		free(until);
		n = 1;
	} else if (!strcmp(action, "press") && sget(a, "key")) {
		sw__buf_printf(b, "  - press: %s\n", sget(a, "key"));
		n = 1;
	} else if (!strcmp(action, "open_url") && sget(a, "url")) {
		sw__buf_puts(b, "  - openUrl: ");
		yq(b, sget(a, "url"));
		sw__buf_putc(b, '\n');
		n = 1;
	} else if (!strcmp(action, "wait")) {
		json_t *f = json_object_get(a, "for");
		char *until = selector_of(f);
		if (until) {
			sw__buf_puts(b, "  - waitForVisible: ");
			yq(b, until);
			sw__buf_putc(b, '\n');
		} else {
			sw__buf_puts(b, "  - waitForIdle\n");
		}
		free(until);
		n = 1;
	} else if (!strcmp(action, "clear")) {
		comment(b, "skipped: clear%s has no Flow V2 step", sel ? " of a field" : "");
	} else {
		comment(b, "skipped: unsupported action %s", action);
	}
	free(sel);
	return n;
}

SW_API int sw_export_flow(const char *recorded_actions_json, const char *name, const char *app_id, char **yaml_out,
                          sw_error **err)
{
	if (!recorded_actions_json || !yaml_out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_export_flow: missing argument");
	json_t *actions = json_loads(recorded_actions_json, JSON_DECODE_ANY, NULL);
	if (!json_is_array(actions)) {
		json_decref(actions);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "Recorded actions are not a JSON array");
	}
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "# Recorded by Swipium from qa_act calls. Review before saving under .swipium/flows/.\n");
	sw__buf_puts(&b, "name: ");
	yq(&b, name && *name ? name : "recorded");
	sw__buf_putc(&b, '\n');
	if (app_id && *app_id) {
		sw__buf_puts(&b, "appId: ");
		yq(&b, app_id);
		sw__buf_putc(&b, '\n');
	}
	sw__buf_puts(&b, "steps:\n  - prepareTarget\n");
	int steps = 0;
	size_t i;
	json_t *a;
	json_array_foreach(actions, i, a)
	{
		const char *tool = sget(a, "tool");
		if (tool && strcmp(tool, "qa_act") != 0)
			continue;
		steps += step_of(&b, a);
	}
	json_decref(actions);
	if (b.failed) {
		sw__buf_free(&b);
		return sw__error_nomem(err);
	}
	if (steps == 0) {
		sw__buf_free(&b);
		return sw__error_set(err, SW_ENOTFOUND, "NO_RECORDED_ACTIONS",
		                     "Drive the app with qa_act first; its actions are what the flow replays.",
		                     "No replayable qa_act action was recorded in this session");
	}
	*yaml_out = sw__buf_steal(&b, NULL);
	return *yaml_out ? SW_OK : sw__error_nomem(err);
}
