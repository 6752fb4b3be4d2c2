/* check-issues.c: unit tests of the issue ledger (sw_issues_run). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sw-internal.h"

static char root[256];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/check-issues-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* Runs one request; returns the parsed result, or NULL with *code set to the failure code. */
static json_t *run(const char *req, sw_redactor *r, char code[64])
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_issues_run(root, req, r, &out, &err);
	if (rc != SW_OK) {
		snprintf(code, 64, "%s", sw_error_failure_code(err));
		sw_error_free(err);
		return NULL;
	}
	code[0] = '\0';
	json_t *v = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_ptr_nonnull(v);
	return v;
}

static const char *issue_str(json_t *res, const char *key)
{
	return json_string_value(json_object_get(json_object_get(res, "issue"), key));
}

START_TEST(test_log_dedupes_by_scrubbed_title)
{
	char code[64];
	json_t *a = run("{\"mode\":\"log\",\"title\":\"Checkout crashes on order 12345\",\"platform\":\"android\"}",
	                NULL, code);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(json_string_value(json_object_get(a, "outcome")), "created");
	ck_assert_str_eq(issue_str(a, "state"), "open");
	json_t *b =
	    run("{\"mode\":\"log\",\"title\":\"checkout CRASHES on order 999\",\"platform\":\"android\"}", NULL, code);
	ck_assert_str_eq(json_string_value(json_object_get(b, "outcome")), "observed_again");
	ck_assert_str_eq(issue_str(a, "issueId"), issue_str(b, "issueId"));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(b, "issue"), "occurrences")), 2);
	/* another platform is another issue */
	json_t *c =
	    run("{\"mode\":\"log\",\"title\":\"Checkout crashes on order 1\",\"platform\":\"ios\"}", NULL, code);
	ck_assert_str_ne(issue_str(a, "issueId"), issue_str(c, "issueId"));
	json_decref(a);
	json_decref(b);
	json_decref(c);
}
END_TEST

START_TEST(test_vague_and_missing_titles)
{
	char code[64];
	ck_assert_ptr_null(run("{\"mode\":\"log\",\"title\":\"42 #7 a1b2c3\"}", NULL, code));
	ck_assert_str_eq(code, "ISSUE_LOG_TOO_VAGUE");
	ck_assert_ptr_null(run("{\"mode\":\"log\"}", NULL, code));
	ck_assert_str_eq(code, "INVALID_ARGUMENT");
	ck_assert_ptr_null(run("{\"mode\":\"explode\"}", NULL, code));
	ck_assert_str_eq(code, "INVALID_ARGUMENT");
	ck_assert_ptr_null(run("[1]", NULL, code));
	ck_assert_str_eq(code, "INVALID_ARGUMENT");
}
END_TEST

START_TEST(test_fix_reopen_verify)
{
	char code[64];
	json_t *a = run("{\"mode\":\"log\",\"title\":\"Login button unresponsive\"}", NULL, code);
	const char *id = issue_str(a, "issueId");
	char req[512];
	snprintf(req, sizeof(req), "{\"mode\":\"verify_fixed\",\"issueId\":\"%s\",\"reportUri\":\"swipium://x\"}", id);
	ck_assert_ptr_null(run(req, NULL, code));
	ck_assert_str_eq(code, "ISSUE_EVIDENCE_REQUIRED");
	snprintf(
	    req, sizeof(req),
	    "{\"mode\":\"mark_fixed\",\"issueId\":\"%s\",\"fixedInCommit\":\"abc123\",\"howFixed\":\"debounced tap\"}",
	    id);
	json_t *f = run(req, NULL, code);
	ck_assert_str_eq(issue_str(f, "state"), "fixed");
	ck_assert_ptr_null(run(req, NULL, code));
	ck_assert_str_eq(code, "ISSUE_STATE_INVALID");
	snprintf(req, sizeof(req), "{\"mode\":\"verify_fixed\",\"issueId\":\"%s\"}", id);
	ck_assert_ptr_null(run(req, NULL, code));
	ck_assert_str_eq(code, "ISSUE_EVIDENCE_REQUIRED");
	snprintf(req, sizeof(req), "{\"mode\":\"verify_fixed\",\"fingerprint\":\"%s\",\"testCaseId\":\"TC-1\"}",
	         issue_str(a, "fingerprint"));
	json_t *v = run(req, NULL, code);
	ck_assert_ptr_nonnull(json_object_get(json_object_get(v, "issue"), "verifiedAt"));
	json_t *again = run("{\"mode\":\"log\",\"title\":\"Login button unresponsive\"}", NULL, code);
	ck_assert_str_eq(json_string_value(json_object_get(again, "outcome")), "reopened");
	ck_assert_str_eq(issue_str(again, "state"), "reopened");
	const char *msg = json_string_value(json_object_get(again, "regression"));
	ck_assert_ptr_nonnull(strstr(msg, "abc123"));
	ck_assert_ptr_nonnull(strstr(msg, "debounced tap"));
	ck_assert_ptr_null(run("{\"mode\":\"mark_fixed\",\"issueId\":\"00000000\"}", NULL, code));
	ck_assert_str_eq(code, "ISSUE_NOT_FOUND");
	ck_assert_ptr_null(run("{\"mode\":\"mark_fixed\"}", NULL, code));
	ck_assert_str_eq(code, "INVALID_ARGUMENT");
	json_decref(a);
	json_decref(f);
	json_decref(v);
	json_decref(again);
}
END_TEST

START_TEST(test_suppress_expires_and_hides)
{
	char code[64];
	json_t *a =
	    run("{\"mode\":\"log\",\"title\":\"Flaky network banner\",\"category\":\"environment_noise\"}", NULL, code);
	char req[512];
	snprintf(
	    req, sizeof(req),
	    "{\"mode\":\"suppress\",\"issueId\":\"%s\",\"suppressionReason\":\"known noise\",\"until\":\"2030-01-01\"}",
	    issue_str(a, "issueId"));
	json_t *s = run(req, NULL, code);
	ck_assert_str_eq(issue_str(s, "state"), "suppressed");
	json_t *h = run("{}", NULL, code);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "count")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "suppressed")), 1);
	json_t *h2 = run("{\"includeSuppressed\":true}", NULL, code);
	ck_assert_int_eq(json_integer_value(json_object_get(h2, "count")), 1);
	/* after the date the suppression is gone and the state before it is back */
	json_t *later = run("{\"mode\":\"history\",\"nowMs\":1900000000000}", NULL, code);
	ck_assert_int_eq(json_integer_value(json_object_get(later, "count")), 1);
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(json_object_get(later, "issues"), 0), "state")), "open");
	ck_assert_ptr_null(run("{\"mode\":\"suppress\",\"issueId\":\"x\",\"until\":\"soon\"}", NULL, code));
	json_decref(a);
	json_decref(s);
	json_decref(h);
	json_decref(h2);
	json_decref(later);
}
END_TEST

START_TEST(test_external_change_and_corrupt_lines)
{
	char code[64];
	json_t *a = run("{\"mode\":\"log\",\"title\":\"Profile avatar missing\"}", NULL, code);
	json_decref(a);
	char path[400];
	snprintf(path, sizeof(path), "%s/.swipium/issues-log.jsonl", root);
	FILE *f = fopen(path, "a");
	ck_assert_ptr_nonnull(f);
	fputs("{not json\n", f);
	fputs(
	    "{\"event\":\"log\",\"at\":\"2026-01-05T10:00:00.000Z\",\"issueId\":\"feedf00d\",\"fingerprint\":\"ffff\","
	    "\"title\":\"Added by another "
	    "process\",\"category\":\"app_bug\",\"severity\":\"high\",\"platform\":\"ios\"}\n",
	    f);
	fclose(f);
	json_t *h = run("{\"severity\":\"high\"}", NULL, code);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "count")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "skippedLines")), 1);
	json_t *m =
	    run("{\"mode\":\"metrics\",\"groupBy\":\"month\",\"since\":\"2026-01-01\",\"until\":\"2026-01-31\"}", NULL,
	        code);
	ck_assert_int_eq(json_array_size(json_object_get(m, "periods")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(m, "periods"), 0), "period")),
	                 "2026-01");
	ck_assert_ptr_null(run("{\"mode\":\"metrics\",\"groupBy\":\"year\"}", NULL, code));
	json_decref(h);
	json_decref(m);
}
END_TEST

START_TEST(test_redactor_scrubs_text)
{
	sw_redactor *r = NULL;
	ck_assert_int_eq(sw_redactor_new(&r, NULL), SW_OK);
	ck_assert_int_eq(sw_redactor_add_secret(r, "hunter2secret", NULL), SW_OK);
	char code[64];
	json_t *a = run(
	    "{\"mode\":\"log\",\"title\":\"Password hunter2secret shown in toast\",\"summary\":\"saw hunter2secret\"}",
	    r, code);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_null(strstr(issue_str(a, "title"), "hunter2secret"));
	char path[400];
	snprintf(path, sizeof(path), "%s/.swipium/issues-log.jsonl", root);
	char *text = NULL;
	size_t len = 0;
	ck_assert_int_eq(sw__read_file(path, 1 << 20, &text, &len, NULL), SW_OK);
	ck_assert_ptr_null(strstr(text, "hunter2secret"));
	free(text);
	json_decref(a);
	sw_redactor_free(r);
}
END_TEST

static Suite *issues_suite(void)
{
	Suite *s = suite_create("issues");
	TCase *tc = tcase_create("ledger");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_log_dedupes_by_scrubbed_title);
	tcase_add_test(tc, test_vague_and_missing_titles);
	tcase_add_test(tc, test_fix_reopen_verify);
	tcase_add_test(tc, test_suppress_expires_and_hides);
	tcase_add_test(tc, test_external_change_and_corrupt_lines);
	tcase_add_test(tc, test_redactor_scrubs_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(issues_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
