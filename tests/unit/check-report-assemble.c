/* check-report-assemble.c: unit tests of sw_report_assemble: key order, dedupe, verdicts, tallies, secrets, exports. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <swipium/redact.h>
#include <swipium/report.h>
#include <swipium/session.h>

#include "sw-internal.h"

typedef struct {
	char *home, *root;
	sw_ctx *ctx;
	sw_store *store;
	sw_session *s;
} fixture;

static void fx_open(fixture *f)
{
	char tmpl[] = "/tmp/sw-assemble-XXXXXX";
	char *d = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(d);
	f->home = strdup(d);
	f->root = sw__path_join(f->home, "app");
	ck_assert_int_eq(mkdir(f->root, 0755), 0);
	ck_assert_int_eq(sw_ctx_new(&f->ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(f->ctx, f->home, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(f->ctx, &f->store, NULL), SW_OK);
	ck_assert_int_eq(sw_session_create(f->store, f->root, "arg", NULL, &f->s, NULL), SW_OK);
}

static void fx_close(fixture *f)
{
	sw_store_free(f->store);
	sw_ctx_free(f->ctx);
	char *cmd = sw__asprintf("rm -rf '%s'", f->home);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(f->home);
	free(f->root);
}

static void note(fixture *f, const char *json)
{
	sw_error *err = NULL;
	ck_assert_msg(sw_session_add_note(f->s, json, &err) == SW_OK, "add_note %s: %s", json,
	              err ? sw_error_message(err) : "");
}

static void finding(fixture *f, const char *json)
{
	ck_assert_int_eq(sw_session_add_finding(f->s, json, NULL), SW_OK);
}

/* Assembles the report and returns it parsed (key order kept); *text_out (nullable) gets the text. */
static json_t *assemble(fixture *f, const char *opts, char **text_out)
{
	char *text = NULL;
	sw_error *err = NULL;
	int rc = sw_report_assemble(f->s, opts, &text, &err);
	ck_assert_msg(rc == SW_OK, "assemble: %s", err ? sw_error_message(err) : "");
	json_error_t je;
	json_t *r = json_loads(text, 0, &je);
	ck_assert_msg(json_is_object(r), "not JSON: %s", je.text);
	if (text_out)
		*text_out = text;
	else
		sw_free(text);
	return r;
}

static const char *path_str(const json_t *r, const char *a, const char *b)
{
	const json_t *v = json_object_get(r, a);
	if (b)
		v = json_object_get(v, b);
	return json_string_value(v);
}

static json_int_t path_int(const json_t *r, const char *a, const char *b)
{
	const json_t *v = json_object_get(r, a);
	if (b)
		v = json_object_get(v, b);
	ck_assert_msg(json_is_integer(v), "%s.%s is not an integer", a, b ? b : "");
	return json_integer_value(v);
}

START_TEST(test_key_order)
{
	fixture f;
	fx_open(&f);
	json_t *r = assemble(&f, NULL, NULL);
	static const char *const keys[] = {"sessionId",
	                                   "executiveSummary",
	                                   "appId",
	                                   "device",
	                                   "coverage",
	                                   "appVerdict",
	                                   "coverageVerdict",
	                                   "toolVerdict",
	                                   "automationBackend",
	                                   "readiness",
	                                   "automationReadiness",
	                                   "qaLevel",
	                                   "runTestCatalog",
	                                   "persistentSuite",
	                                   "mode",
	                                   "emulatorDisplay",
	                                   "environmentChanges",
	                                   "ciMutations",
	                                   "mutationLedger",
	                                   "workaroundsAttempted",
	                                   "inputsProvided",
	                                   "redactionDegraded",
	                                   "generatedValues",
	                                   "guardrailOverrides",
	                                   "launchedWithoutMetroReady",
	                                   "destructiveGuardrail",
	                                   "finalNetwork",
	                                   "networkRestore",
	                                   "activeRecording",
	                                   "findings",
	                                   "findingOccurrences",
	                                   "toolErrors",
	                                   "highSeverityCount",
	                                   "nativeHealth",
	                                   "appHealth",
	                                   "appHealthFindings",
	                                   "testOutcomes",
	                                   "outcomeTally",
	                                   "categoryTally",
	                                   "outcomeByCategory",
	                                   "outcomesByWorkflow",
	                                   "failureBuckets",
	                                   "visualVerifications",
	                                   "evidenceTaxonomy",
	                                   "declaredPreconditions",
	                                   "authState",
	                                   "budgetProfile",
	                                   "phaseTimings",
	                                   "wda",
	                                   "ci",
	                                   "visualOnly",
	                                   "generatedSuite",
	                                   "exploration",
	                                   "artifacts",
	                                   "counters",
	                                   "prSummary"};
	size_t i = 0;
	const char *k;
	json_t *v;
	json_object_foreach(r, k, v)
	{
		ck_assert_msg(i < SW_ARRAY_SIZE(keys), "extra key %s", k);
		ck_assert_msg(!strcmp(k, keys[i]), "key %zu is %s, expected %s", i, k, keys[i]);
		i++;
	}
	ck_assert_uint_eq(i, SW_ARRAY_SIZE(keys));
	ck_assert_str_eq(path_str(r, "sessionId", NULL), sw_session_id(f.s));
	ck_assert(json_is_null(json_object_get(r, "appId")));
	ck_assert(json_is_null(json_object_get(r, "wda")));
	ck_assert(json_is_null(json_object_get(r, "generatedSuite")));
	ck_assert(json_is_null(json_object_get(r, "persistentSuite")));
	ck_assert_str_eq(path_str(r, "mode", NULL), "structured");
	json_decref(r);

	/* reportLinks comes last, and only with options */
	r = assemble(&f, "{\"baseline\":\"/tmp/base.json\"}", NULL);
	const char *last = NULL;
	json_object_foreach(r, k, v) last = k;
	ck_assert_str_eq(last, "reportLinks");
	ck_assert_str_eq(path_str(r, "reportLinks", "baseline"), "/tmp/base.json");
	json_decref(r);
	fx_close(&f);
}
END_TEST

START_TEST(test_ship)
{
	fixture f;
	fx_open(&f);
	note(&f, "{\"workflow\":\"Login\",\"outcome\":\"pass\"}");
	note(&f, "{\"workflow\":\"Search\",\"outcome\":\"pass\"}");
	json_t *r = assemble(&f, "{}", NULL);
	ck_assert_str_eq(path_str(r, "executiveSummary", "risk"), "ship");
	ck_assert_str_eq(path_str(r, "executiveSummary", "nextAction"),
	                 "No blocking issues found in simulator/emulator evidence.");
	json_t *reasons = json_object_get(json_object_get(r, "executiveSummary"), "reasons");
	ck_assert_uint_eq(json_array_size(reasons), 1);
	ck_assert_str_eq(json_string_value(json_array_get(reasons, 0)), "no blocking findings; native + app healthy");
	ck_assert_str_eq(path_str(r, "appVerdict", "status"), "PASS");
	ck_assert_str_eq(path_str(r, "coverageVerdict", "status"), "COVERED");
	ck_assert_str_eq(path_str(r, "toolVerdict", "status"), "PASS");
	ck_assert_str_eq(path_str(r, "nativeHealth", NULL), "OK");
	ck_assert_str_eq(path_str(r, "appHealth", NULL), "OK");
	ck_assert_int_eq(path_int(r, "outcomeTally", "pass"), 2);
	ck_assert_str_eq(path_str(r, "qaLevel", "level"), "smoke_tested");
	ck_assert_int_eq(path_int(r, "runTestCatalog", "total"), 2);
	json_decref(r);
	/* The session records the device as an object; the report shows its serial as text. */
	ck_assert_int_eq(sw_session_set_json(f.s, "device", "{\"platform\":\"android\",\"serial\":\"emulator-5554\"}", NULL),
			 SW_OK);
	r = assemble(&f, "{}", NULL);
	ck_assert_str_eq(path_str(r, "device", NULL), "emulator-5554");
	json_decref(r);
	fx_close(&f);
}
END_TEST

START_TEST(test_block_and_dedupe)
{
	fixture f;
	fx_open(&f);
	note(&f, "{\"workflow\":\"Login\",\"outcome\":\"pass\"}");
	note(&f, "{\"workflow\":\"Checkout\",\"outcome\":\"fail\",\"category\":\"app_bug\",\"reason\":\"total is "
	         "wrong\",\"artifactUris\":[\"swipium://session/x/screenshot/a.png\"]}");
	note(&f, "{\"workflow\":\"Checkout\",\"outcome\":\"fail\",\"reason\":\"again\",\"artifactUris\":["
	         "\"swipium://session/x/screenshot/a.png\",\"swipium://session/x/screenshot/b.png\"]}");
	/* the same crash three times (two screenshots), a different one once */
	finding(&f, "{\"at\":\"2026-01-01T00:00:02.000Z\",\"severity\":\"high\",\"kind\":\"native_crash\",\"layer\":"
	            "\"native\",\"detail\":\"FATAL EXCEPTION\",\"screenshotUri\":\"u1\"}");
	finding(&f, "{\"at\":\"2026-01-01T00:00:01.000Z\",\"severity\":\"high\",\"kind\":\"native_crash\",\"layer\":"
	            "\"native\",\"detail\":\"FATAL EXCEPTION\",\"screenshotUri\":\"u2\"}");
	finding(&f, "{\"at\":\"2026-01-01T00:00:03.000Z\",\"severity\":\"high\",\"kind\":\"native_crash\",\"layer\":"
	            "\"native\",\"detail\":\"FATAL EXCEPTION\",\"screenshotUri\":\"u1\"}");
	finding(&f, "{\"at\":\"2026-01-01T00:00:04.000Z\",\"severity\":\"low\",\"kind\":\"something_else\","
	            "\"detail\":\"odd\"}");
	json_t *r = assemble(&f, NULL, NULL);
	json_t *es = json_object_get(r, "executiveSummary");
	ck_assert_str_eq(json_string_value(json_object_get(es, "risk")), "block");
	json_t *reasons = json_object_get(es, "reasons");
	ck_assert_uint_eq(json_array_size(reasons), 3);
	ck_assert_str_eq(json_string_value(json_array_get(reasons, 0)), "native crash/ANR detected");
	ck_assert_str_eq(json_string_value(json_array_get(reasons, 1)), "3 high-severity finding(s)");
	ck_assert_str_eq(json_string_value(json_array_get(reasons, 2)), "2 workflow(s) failed");
	ck_assert_str_eq(json_string_value(json_object_get(es, "nextAction")),
	                 "Fix \"Checkout\": total is wrong before shipping.");
	ck_assert_str_eq(path_str(r, "nativeHealth", NULL), "error");
	ck_assert_str_eq(path_str(r, "appVerdict", "status"), "BLOCKED");
	ck_assert_int_eq(path_int(r, "findingOccurrences", NULL), 4);
	ck_assert_int_eq(path_int(r, "highSeverityCount", NULL), 3);

	json_t *fs = json_object_get(r, "findings");
	ck_assert_uint_eq(json_array_size(fs), 2);
	json_t *crash = json_array_get(fs, 0);
	ck_assert_str_eq(path_str(crash, "failureCode", NULL), "NATIVE_CRASH");
	ck_assert_int_eq(path_int(crash, "count", NULL), 3);
	ck_assert_str_eq(path_str(crash, "at", NULL), "2026-01-01T00:00:02.000Z");
	ck_assert_str_eq(path_str(crash, "firstAt", NULL), "2026-01-01T00:00:01.000Z");
	ck_assert_str_eq(path_str(crash, "lastAt", NULL), "2026-01-01T00:00:03.000Z");
	json_t *uris = json_object_get(crash, "screenshotUris");
	ck_assert_uint_eq(json_array_size(uris), 2);
	ck_assert_str_eq(json_string_value(json_array_get(uris, 1)), "u2");
	ck_assert_str_eq(path_str(crash, "bucket", NULL), "app_bug");
	ck_assert(json_is_boolean(json_object_get(crash, "retrySafe")));
	char *entry = NULL;
	ck_assert_int_eq(sw_catalog_lookup("NATIVE_CRASH", &entry, NULL), SW_OK);
	json_t *cat = json_loads(entry, 0, NULL);
	ck_assert_str_eq(path_str(crash, "nextStep", NULL), path_str(cat, "recovery", NULL));
	json_decref(cat);
	sw_free(entry);
	/* record key order: ... failureCode, count, firstAt, lastAt, screenshotUris, bucket, retrySafe, nextStep */
	static const char *const tail[] = {"failureCode",    "count",  "firstAt",   "lastAt",
	                                   "screenshotUris", "bucket", "retrySafe", "nextStep"};
	const char *k;
	json_t *v;
	size_t i = 0, seen = 0;
	json_object_foreach(crash, k, v)
	{
		if (i < SW_ARRAY_SIZE(tail) && !strcmp(k, tail[i])) {
			i++;
			seen++;
		}
	}
	ck_assert_uint_eq(seen, SW_ARRAY_SIZE(tail));
	json_t *odd = json_array_get(fs, 1);
	ck_assert_str_eq(path_str(odd, "failureCode", NULL), "UNKNOWN");
	ck_assert_int_eq(path_int(odd, "count", NULL), 1);
	ck_assert_ptr_null(json_object_get(odd, "screenshotUris"));

	/* outcomes: tally, by workflow (latest outcome, distinct evidence), category tallies */
	ck_assert_int_eq(path_int(r, "outcomeTally", "pass"), 1);
	ck_assert_int_eq(path_int(r, "outcomeTally", "fail"), 2);
	json_t *wf = json_object_get(json_object_get(r, "outcomesByWorkflow"), "Checkout");
	ck_assert_str_eq(path_str(wf, "reason", NULL), "again");
	ck_assert_uint_eq(json_array_size(json_object_get(wf, "artifactUris")), 2);
	ck_assert_int_eq(path_int(r, "categoryTally", "app_bug"), 1);
	ck_assert_int_eq(path_int(r, "failureBuckets", "total"), 4);
	ck_assert_str_eq(path_str(r, "failureBuckets", "dominant"), "app_bug");
	ck_assert_int_eq(path_int(json_object_get(r, "failureBuckets"), "counts", "app_bug"), 3);
	json_decref(r);
	fx_close(&f);
}
END_TEST

START_TEST(test_block_without_failed_workflow)
{
	fixture f;
	fx_open(&f);
	finding(&f, "{\"severity\":\"high\",\"kind\":\"rn_redbox\",\"layer\":\"app\",\"detail\":\"TypeError: x\"}");
	json_t *r = assemble(&f, NULL, NULL);
	json_t *es = json_object_get(r, "executiveSummary");
	json_t *reasons = json_object_get(es, "reasons");
	ck_assert_str_eq(json_string_value(json_array_get(reasons, 0)),
	                 "app-level error surface (ErrorBoundary/RedBox)");
	ck_assert_str_eq(json_string_value(json_array_get(reasons, 1)), "1 high-severity finding(s)");
	ck_assert_str_eq(json_string_value(json_object_get(es, "nextAction")), "Investigate: TypeError: x");
	ck_assert_str_eq(path_str(r, "appHealth", NULL), "error");
	ck_assert_str_eq(path_str(json_array_get(json_object_get(r, "findings"), 0), "failureCode", NULL), "REDBOX");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "appHealthFindings")), 1);
	json_decref(r);
	fx_close(&f);
}
END_TEST

START_TEST(test_caution)
{
	fixture f;
	fx_open(&f);
	note(&f, "{\"workflow\":\"Login\",\"outcome\":\"pass\"}");
	note(&f, "{\"workflow\":\"Checkout\",\"outcome\":\"blocked\",\"category\":\"missing_test_data\","
	         "\"missingPrecondition\":\"no card\",\"recommendedSetup\":\"seed a test card\"}");
	finding(&f, "{\"severity\":\"medium\",\"kind\":\"rn_logbox_error\",\"layer\":\"app\",\"detail\":\"warn\"}");
	ck_assert_int_eq(sw_session_add_env_change(f.s, "GUARDRAIL OVERRIDE: allowLaunchWithoutMetro", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_env_change(f.s, "airplane mode on", NULL), SW_OK);
	json_t *r = assemble(&f, NULL, NULL);
	json_t *es = json_object_get(r, "executiveSummary");
	ck_assert_str_eq(json_string_value(json_object_get(es, "risk")), "caution");
	json_t *reasons = json_object_get(es, "reasons");
	ck_assert_uint_eq(json_array_size(reasons), 3);
	ck_assert_str_eq(json_string_value(json_array_get(reasons, 0)),
	                 "app health degraded (non-fatal warnings/LogBox)");
	ck_assert_str_eq(json_string_value(json_array_get(reasons, 1)),
	                 "1 workflow(s) blocked by missing preconditions");
	ck_assert_str_eq(json_string_value(json_array_get(reasons, 2)), "1 guardrail override(s) used");
	ck_assert_str_eq(json_string_value(json_object_get(es, "nextAction")),
	                 "Provide setup for \"Checkout\": seed a test card, then re-run.");
	ck_assert_str_eq(path_str(r, "appHealth", NULL), "degraded");
	ck_assert_str_eq(path_str(r, "appVerdict", "status"), "PASS_WITH_WARNING");
	ck_assert_str_eq(path_str(r, "coverageVerdict", "status"), "PARTIAL");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "guardrailOverrides")), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "environmentChanges")), 2);
	ck_assert(json_is_true(json_object_get(r, "launchedWithoutMetroReady")));
	/* the blocked note (missing_data) and the LogBox finding (app_bug) tie: the first bucket in order wins */
	json_t *fb = json_object_get(r, "failureBuckets");
	ck_assert_int_eq(path_int(fb, "counts", "missing_data"), 1);
	ck_assert_int_eq(path_int(fb, "counts", "app_bug"), 1);
	ck_assert_int_eq(path_int(fb, "total", NULL), 2);
	ck_assert_int_eq(path_int(fb, "classifiedPct", NULL), 100);
	ck_assert_str_eq(path_str(fb, "dominant", NULL), "app_bug");
	json_decref(r);

	/* no setup named: the generic caution action */
	fixture g;
	fx_open(&g);
	note(&g, "{\"workflow\":\"Pay\",\"outcome\":\"blocked\"}");
	r = assemble(&g, NULL, NULL);
	ck_assert_str_eq(path_str(r, "executiveSummary", "nextAction"), "Review the cautions below before shipping.");
	ck_assert_str_eq(path_str(r, "coverageVerdict", "status"), "BLOCKED");
	json_decref(r);
	fx_close(&g);
	fx_close(&f);
}
END_TEST

START_TEST(test_tool_verdict)
{
	fixture f;
	fx_open(&f);
	ck_assert_int_eq(sw_session_add_tool_error(f.s, "qa_act", "ELEMENT_NOT_FOUND", "no such", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_tool_error(f.s, "qa_act", "ELEMENT_NOT_FOUND", "no such", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_tool_error(f.s, "qa_act", NULL, "weird", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_tool_error(f.s, "qa_act", "CANCELLED", "stop", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_tool_error(f.s, "qa_act", "MISSING_TEST_DATA", "no var", NULL), SW_OK);
	json_t *r = assemble(&f, NULL, NULL);
	json_t *tv = json_object_get(r, "toolVerdict");
	ck_assert_str_eq(path_str(tv, "status", NULL), "PASS");
	ck_assert_int_eq(path_int(tv, "toolErrorCount", NULL), 5);
	ck_assert_int_eq(path_int(tv, "probingCount", NULL), 2);
	ck_assert_int_eq(path_int(tv, "uncodedCount", NULL), 1);
	ck_assert_int_eq(path_int(tv, "degradingCount", NULL), 0);
	json_decref(r);

	/* a real environment failure degrades; the most frequent code comes first */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(sw_session_add_tool_error(f.s, "qa_snapshot", "NO_DEVICE", "gone", NULL), SW_OK);
	r = assemble(&f, NULL, NULL);
	tv = json_object_get(r, "toolVerdict");
	ck_assert_str_eq(path_str(tv, "status", NULL), "DEGRADED");
	ck_assert_int_eq(path_int(tv, "degradingCount", NULL), 3);
	const char *k;
	json_t *v;
	const char *first = NULL;
	json_object_foreach(json_object_get(tv, "toolErrorsByCode"), k, v) if (!first) first = k;
	ck_assert_str_eq(first, "NO_DEVICE");
	ck_assert_int_eq(path_int(json_object_get(tv, "toolErrorsByCode"), "ELEMENT_NOT_FOUND", NULL), 2);
	json_decref(r);

	/* a workflow blocked on a tool limitation blocks the tool verdict and cautions the release */
	note(&f, "{\"workflow\":\"Scan\",\"outcome\":\"fail\",\"category\":\"mcp_limitation\",\"reason\":\"camera\"}");
	r = assemble(&f, NULL, NULL);
	ck_assert_str_eq(path_str(r, "toolVerdict", "status"), "BLOCKED");
	ck_assert_str_eq(path_str(r, "executiveSummary", "risk"), "caution");
	json_decref(r);

	/* only the last 50 tool errors are listed, messages capped at 500 */
	char big[700];
	memset(big, 'm', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	for (int i = 0; i < 60; i++)
		ck_assert_int_eq(sw_session_add_tool_error(f.s, "qa_act", "TIMEOUT", big, NULL), SW_OK);
	r = assemble(&f, NULL, NULL);
	json_t *te = json_object_get(r, "toolErrors");
	ck_assert_uint_eq(json_array_size(te), 50);
	ck_assert_uint_le(strlen(path_str(json_array_get(te, 49), "message", NULL)), 500);
	json_decref(r);
	fx_close(&f);
}
END_TEST

START_TEST(test_no_secrets)
{
	fixture f;
	fx_open(&f);
	ck_assert_int_eq(sw_redactor_add_secret(sw_session_redactor(f.s), "hunter2-secret", NULL), SW_OK);
	ck_assert_int_eq(sw_session_append_json(f.s, "inputs",
	                                        "{\"varName\":\"SWIPIUM_PASSWORD\",\"secret\":true,\"source\":\"needs_"
	                                        "input\",\"value\":\"hunter2-secret\"}",
	                                        NULL),
	                 SW_OK);
	ck_assert_int_eq(sw_session_append_json(f.s, "generatedValues",
	                                        "{\"fixture\":\"user\",\"field\":\"password\",\"varName\":\"PW\","
	                                        "\"generator\":\"password\",\"value\":\"pw-987654\",\"secret\":true}",
	                                        NULL),
	                 SW_OK);
	note(&f, "{\"workflow\":\"Login\",\"outcome\":\"fail\",\"reason\":\"typed hunter2-secret and failed\"}");
	char *text = NULL;
	json_t *r = assemble(&f, NULL, &text);
	ck_assert_ptr_null(strstr(text, "hunter2-secret"));
	ck_assert_ptr_null(strstr(text, "pw-987654"));
	json_t *in = json_array_get(json_object_get(r, "inputsProvided"), 0);
	ck_assert_uint_eq(json_object_size(in), 3);
	ck_assert_str_eq(path_str(in, "varName", NULL), "SWIPIUM_PASSWORD");
	ck_assert(json_is_true(json_object_get(in, "secret")));
	json_t *gv = json_array_get(json_object_get(r, "generatedValues"), 0);
	ck_assert_str_eq(path_str(gv, "value", NULL), "<redacted>");
	sw_free(text);
	json_decref(r);
	fx_close(&f);
}
END_TEST

START_TEST(test_renders_every_format)
{
	fixture f;
	fx_open(&f);
	note(&f, "{\"workflow\":\"Login\",\"outcome\":\"pass\"}");
	note(&f,
	     "{\"workflow\":\"Cart <&>\",\"outcome\":\"fail\",\"category\":\"app_bug\",\"reason\":\"\\\"quoted\\\"\"}");
	note(&f, "{\"workflow\":\"Pay\",\"outcome\":\"blocked\",\"missingPrecondition\":\"card\"}");
	finding(&f, "{\"severity\":\"high\",\"kind\":\"anr\",\"layer\":\"native\",\"detail\":\"not responding\"}");
	ck_assert_int_eq(sw_session_ledger_append(f.s,
	                                          "{\"id\":\"0badc0de\",\"at\":1700000000000,\"tool\":\"qa_network\","
	                                          "\"action\":\"network_change\",\"risk\":\"medium\",\"target\":{"
	                                          "\"network\":\"offline\"},\"status\":\"executed\"}",
	                                          NULL),
	                 SW_OK);
	char *text = NULL;
	json_t *r = assemble(&f, NULL, &text);
	ck_assert_str_eq(path_str(r, "finalNetwork", NULL), "offline");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "mutationLedger")), 1);
	sw_report *rep = NULL;
	sw_error *err = NULL;
	ck_assert_msg(sw_report_load_data(text, strlen(text), &rep, &err) == SW_OK, "load: %s",
	              err ? sw_error_message(err) : "");
	ck_assert_str_eq(sw_report_session_id(rep), sw_session_id(f.s));
	static const sw_report_format fmts[] = {SW_REPORT_JUNIT, SW_REPORT_SARIF, SW_REPORT_GITHUB_SUMMARY,
	                                        SW_REPORT_MARKDOWN, SW_REPORT_JSON};
	for (size_t i = 0; i < SW_ARRAY_SIZE(fmts); i++) {
		char *out = NULL, *gate = NULL;
		sw_report_render_options ro = SW_REPORT_RENDER_OPTIONS_INIT;
		ro.project_root = f.root;
		ck_assert_msg(sw_report_render(rep, fmts[i], &ro, &out, NULL, &gate, &err) == SW_OK, "render %s: %s",
		              sw_report_format_name(fmts[i]), err ? sw_error_message(err) : "");
		ck_assert_ptr_nonnull(out);
		int block = 0;
		ck_assert_int_eq(sw_report_gate_verdict(gate, &block, NULL, NULL), SW_OK);
		ck_assert_int_eq(block, 1);
		if (fmts[i] == SW_REPORT_JUNIT) {
			ck_assert_ptr_nonnull(strstr(out, "failures=\"2\""));
			ck_assert_ptr_nonnull(strstr(out, "Cart &lt;&amp;&gt;"));
		}
		if (fmts[i] == SW_REPORT_GITHUB_SUMMARY)
			ck_assert_ptr_nonnull(strstr(out, "## Swipium QA: \xf0\x9f\x94\xb4 BLOCK"));
		if (fmts[i] == SW_REPORT_MARKDOWN)
			ck_assert_ptr_nonnull(strstr(out, "- Native: \xe2\x9d\x8c error"));
		sw_free(out);
		sw_free(gate);
	}
	sw_report_free(rep);
	sw_free(text);
	json_decref(r);
	fx_close(&f);
}
END_TEST

START_TEST(test_bad_options)
{
	fixture f;
	fx_open(&f);
	char *text = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_report_assemble(f.s, "[1]", &text, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_assemble(f.s, "{\"baseline\":3}", &text, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "baseline"));
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_assemble(f.s, "{not json", &text, &err), SW_EINVAL);
	sw_error_free(err);
	ck_assert_ptr_null(text);
	ck_assert_int_eq(sw_report_assemble(NULL, NULL, &text, NULL), SW_EINVAL);
	/* hostile note and finding shapes never crash and never break the document */
	note(&f, "{\"workflow\":12,\"outcome\":[\"fail\"],\"category\":{}}");
	finding(&f, "{\"severity\":7,\"kind\":null,\"detail\":{\"x\":1},\"screenshotUri\":\"\"}");
	finding(&f, "{\"severity\":7,\"kind\":null,\"detail\":{\"x\":1},\"screenshotUri\":\"\"}");
	json_t *r = assemble(&f, NULL, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 1);
	ck_assert_int_eq(path_int(json_array_get(json_object_get(r, "findings"), 0), "count", NULL), 2);
	ck_assert_str_eq(path_str(r, "executiveSummary", "risk"), "ship");
	json_decref(r);
	fx_close(&f);
}
END_TEST

/* sw_report_save: checked options; the manifest's hash of a large artifact equals the file's, read in pieces. */
START_TEST(test_save_pipeline)
{
	fixture f;
	fx_open(&f);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_report_assemble(f.s, "{\"fitler\":\"x\"}", &out, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "\"fitler\""));
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_save(NULL, f.s, "{\"format\":3}", &out, NULL, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "\"format\" must be a string"));
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_save(NULL, f.s, "{\"format\":\"pdf\"}", &out, NULL, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	/* no report yet: the one "newest report" rule finds none */
	ck_assert_int_eq(sw_session_latest_report(f.s, &out, &err), SW_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "has no persisted report yet"));
	sw_error_free(err);
	err = NULL;
	/* a 6 MiB "recording" (bigger than any read buffer) */
	size_t n = 6u << 20;
	unsigned char *big = malloc(n);
	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (unsigned char)(i * 2654435761u >> 13);
	char want[65];
	sw_sha256_hex(big, n, want);
	ck_assert_int_eq(sw_artifact_save(f.s, "recording", "rec.mp4", "video/mp4", big, n, NULL, NULL, NULL), SW_OK);
	free(big);
	sw_redactor_add_secret(sw_session_redactor(f.s), "hunter2-secret", NULL);
	note(&f, "{\"workflow\":\"login hunter2-secret\",\"outcome\":\"pass\"}");
	char *body = NULL;
	int rc = sw_report_save(NULL, f.s, "{\"format\":\"junit\"}", &out, &body, &err);
	ck_assert_msg(rc == SW_OK, "save: %s", err ? sw_error_message(err) : "");
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(res, "reportUri")), "/report-"));
	ck_assert_str_eq(json_string_value(json_object_get(res, "exportFormat")), "junit");
	ck_assert_ptr_nonnull(json_object_get(res, "manifestUri"));
	ck_assert_ptr_nonnull(body);
	ck_assert_ptr_null(strstr(body, "hunter2-secret"));
	sw_free(body);
	/* the newest report is the saved report, never its export (report-N.xml) */
	char *latest = NULL;
	ck_assert_int_eq(sw_session_latest_report(f.s, &latest, NULL), SW_OK);
	json_t *lj = json_loads(latest, 0, NULL);
	sw_free(latest);
	ck_assert_str_eq(json_string_value(json_object_get(lj, "uri")), json_string_value(json_object_get(res, "reportUri")));
	json_decref(lj);
	/* the saved report is deep-redacted */
	char *saved = NULL;
	ck_assert_int_eq(
	    sw__read_file(json_string_value(json_object_get(res, "reportPath")), 64u << 20, &saved, NULL, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(saved, "login"));
	ck_assert_ptr_null(strstr(saved, "hunter2-secret"));
	free(saved);
	/* the manifest row of the recording: its size and the hash of the whole file */
	char *list = NULL;
	ck_assert_int_eq(sw_artifact_list(f.s, &list, NULL), SW_OK);
	json_t *arts = json_loads(list, 0, NULL);
	sw_free(list);
	const char *mpath = NULL;
	size_t i;
	json_t *a;
	json_array_foreach(arts, i, a) if (!strcmp(json_string_value(json_object_get(a, "kind")), "manifest")) mpath =
	    json_string_value(json_object_get(a, "path"));
	ck_assert_ptr_nonnull(mpath);
	char *mt = NULL;
	ck_assert_int_eq(sw__read_file(mpath, 64u << 20, &mt, NULL, NULL), SW_OK);
	json_t *man = json_loads(mt, 0, NULL);
	free(mt);
	bool seen = false;
	json_array_foreach(json_object_get(man, "artifacts"), i, a)
	{
		if (strcmp(json_string_value(json_object_get(a, "mime")), "video/mp4") != 0)
			continue;
		seen = true;
		ck_assert_int_eq(json_integer_value(json_object_get(a, "bytes")), (json_int_t)n);
		ck_assert_str_eq(json_string_value(json_object_get(a, "sha256")), want);
	}
	ck_assert(seen);
	json_decref(man);
	json_decref(arts);
	json_decref(res);
	fx_close(&f);
}
END_TEST

START_TEST(test_locators_and_session_facts)
{
	fixture f;
	fx_open(&f);
	static const char *const actions[] = {
	    "{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"id\":\"login_button\"}}",
	    "{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"selector\":{\"using\":\"accessibility id\","
	    "\"value\":\"ok\"}}}",
	    "{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"selector\":{\"using\":\"class chain\","
	    "\"value\":\"**/Button\"}}}",
	    "{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"text\":\"Sign in\"}}",
	    "{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"x\":10,\"y\":20}}",
	    "{\"tool\":\"qa_visual\",\"mode\":\"tap\",\"tapAt\":{\"x\":1,\"y\":2}}",
	    "{\"tool\":\"qa_act\",\"action\":\"press\",\"key\":\"back\"}",
	};
	for (size_t i = 0; i < SW_ARRAY_SIZE(actions); i++)
		ck_assert_int_eq(sw_session_append_json(f.s, "recordedActions", actions[i], NULL), SW_OK);
	ck_assert_int_eq(sw_session_set_json(f.s, "headless", "true", NULL), SW_OK);
	ck_assert_int_eq(sw_session_set_json(f.s, "driverKind", "\"adb\"", NULL), SW_OK);
	ck_assert_int_eq(sw_session_set_json(f.s, "auth", "{\"authedAtStart\":true}", NULL), SW_OK);
	note(&f, "{\"workflow\":\"Login\",\"outcome\":\"pass\",\"method\":\"ocr\",\"verifiedVisually\":true}");
	json_t *r = assemble(&f, NULL, NULL);
	json_t *lc = json_object_get(json_object_get(r, "automationReadiness"), "locatorCoverage");
	ck_assert_int_eq(path_int(lc, "totalActions", NULL), 6);
	ck_assert_int_eq(path_int(lc, "durableActions", NULL), 2);
	ck_assert_int_eq(path_int(lc, "nativeFallbackActions", NULL), 1);
	ck_assert_int_eq(path_int(lc, "textActions", NULL), 1);
	ck_assert_int_eq(path_int(lc, "coordinateActions", NULL), 2);
	ck_assert_int_eq(path_int(lc, "durablePct", NULL), 33);
	ck_assert_int_eq(path_int(lc, "nativeOrDurablePct", NULL), 50);
	/* (2*100 + 70 + 40) / 6 = 51.67 -> 52: grade C */
	ck_assert_int_eq(path_int(r, "automationReadiness", "score"), 52);
	ck_assert_str_eq(path_str(r, "automationReadiness", "grade"), "C");
	ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(r, "automationReadiness"), "topFixes")), 2);
	ck_assert_str_eq(path_str(r, "emulatorDisplay", NULL), "headless");
	ck_assert_str_eq(path_str(r, "automationBackend", "kind"), "adb");
	ck_assert_str_eq(path_str(r, "authState", NULL), "authenticated_at_start");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "visualVerifications")), 1);
	ck_assert_int_eq(path_int(r, "evidenceTaxonomy", "ocr"), 1);
	ck_assert_str_eq(path_str(r, "finalNetwork", NULL), "unknown");
	ck_assert(json_is_null(json_object_get(r, "networkRestore")));
	/* test outcome records start with `at` */
	void *it = json_object_iter(json_array_get(json_object_get(r, "testOutcomes"), 0));
	ck_assert_str_eq(json_object_iter_key(it), "at");
	ck_assert(json_is_integer(json_object_get(json_object_get(r, "phaseTimings"), "totalMs")));
	json_decref(r);
	fx_close(&f);
}
END_TEST

/* 10,000 notes and findings assemble (the dedupe is keyed, so this stays linear; speed is measured in bench/). */
START_TEST(test_many)
{
	fixture f;
	fx_open(&f);
	char buf[256];
	for (int i = 0; i < 10000; i++) {
		snprintf(buf, sizeof(buf), "{\"workflow\":\"wf-%d\",\"outcome\":\"%s\"}", i % 100,
		         i % 3 == 0 ? "fail" : "pass");
		note(&f, buf);
		snprintf(buf, sizeof(buf), "{\"severity\":\"low\",\"kind\":\"k%d\",\"detail\":\"d\"}", i % 10);
		finding(&f, buf);
	}
	json_t *r = assemble(&f, NULL, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "findings")), 10);
	ck_assert_int_eq(path_int(json_array_get(json_object_get(r, "findings"), 3), "count", NULL), 1000);
	ck_assert_int_eq(path_int(r, "outcomeTally", "fail"), 3334);
	ck_assert_int_eq(path_int(r, "outcomeTally", "pass"), 6666);
	ck_assert_uint_eq(json_object_size(json_object_get(r, "outcomesByWorkflow")), 100);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "testOutcomes")), 10000);
	json_decref(r);
	fx_close(&f);
}
END_TEST

static Suite *assemble_suite(void)
{
	Suite *s = suite_create("report-assemble");
	TCase *tc = tcase_create("assemble");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_key_order);
	tcase_add_test(tc, test_ship);
	tcase_add_test(tc, test_block_and_dedupe);
	tcase_add_test(tc, test_block_without_failed_workflow);
	tcase_add_test(tc, test_caution);
	tcase_add_test(tc, test_tool_verdict);
	tcase_add_test(tc, test_no_secrets);
	tcase_add_test(tc, test_renders_every_format);
	tcase_add_test(tc, test_bad_options);
	tcase_add_test(tc, test_locators_and_session_facts);
	tcase_add_test(tc, test_save_pipeline);
	tcase_add_test(tc, test_many);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(assemble_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
