/* check-exports.c: unit tests of the Playwright-style report export and the recorded-flow export. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "sw-internal.h"

START_TEST(test_playwright_one_spec_per_outcome)
{
	const char *report =
	    "{\"sessionId\":\"ab12cd34\",\"findings\":[],\"testOutcomes\":["
	    "{\"at\":\"2026-01-01T00:00:00.000Z\",\"workflow\":\"login\",\"outcome\":\"pass\"},"
	    "{\"workflow\":\"checkout\",\"outcome\":\"fail\",\"category\":\"app_bug\",\"reason\":\"500 error\","
	    "\"artifactUris\":[\"swipium://session/ab12cd34/screenshot/s.png\"]},"
	    "{\"workflow\":\"profile\",\"outcome\":\"blocked\",\"reason\":\"no account\"}]}";
	char *out = NULL;
	ck_assert_int_eq(sw_export_playwright(report, &out, NULL), SW_OK);
	json_t *doc = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	json_t *stats = json_object_get(doc, "stats");
	ck_assert_int_eq(json_integer_value(json_object_get(stats, "expected")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(stats, "unexpected")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(stats, "skipped")), 1);
	json_t *specs = json_object_get(json_array_get(json_object_get(doc, "suites"), 0), "specs");
	ck_assert_int_eq(json_array_size(specs), 3);
	json_t *fail = json_array_get(specs, 1);
	ck_assert_str_eq(json_string_value(json_object_get(fail, "title")), "checkout");
	ck_assert(json_is_false(json_object_get(fail, "ok")));
	json_t *result =
	    json_array_get(json_object_get(json_array_get(json_object_get(fail, "tests"), 0), "results"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(result, "status")), "failed");
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(json_object_get(result, "errors"), 0), "message")),
	    "app_bug: 500 error");
	ck_assert_int_eq(json_array_size(json_object_get(result, "attachments")), 1);
	ck_assert(out[strlen(out) - 1] == '}');
	json_decref(doc);
	free(out);
	sw_error *err = NULL;
	ck_assert_int_eq(sw_export_playwright("{\"findings\":[]}", &out, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_export_playwright("not json", &out, &err), SW_EINVAL);
	sw_error_free(err);
}
END_TEST

/* Parses @yaml with libyaml; returns true when it is one well-formed document. */
static bool yaml_ok(const char *yaml)
{
	yaml_parser_t p;
	yaml_document_t d;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)yaml, strlen(yaml));
	bool ok = yaml_parser_load(&p, &d) && yaml_document_get_root_node(&d) != NULL;
	if (ok)
		yaml_document_delete(&d);
	yaml_parser_delete(&p);
	return ok;
}

START_TEST(test_flow_from_recorded_actions)
{
	const char *actions =
	    "[{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"id\":\"login_btn\",\"ref\":\"@e3\"}},"
	    "{\"tool\":\"qa_act\",\"action\":\"type\",\"target\":{\"text\":\"Email\"},\"text\":\"${SWIPIUM_TEST_EMAIL}"
	    "\"},"
	    "{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"ref\":\"@e9\"}},"
	    "{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"x\":10,\"y\":20}},"
	    "{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"text\":\"Pay\"},\"failureCode\":\"ELEMENT_NOT_"
	    "FOUND\"},"
	    "{\"tool\":\"qa_act\",\"action\":\"scroll\",\"direction\":\"down\",\"untilVisible\":{\"text\":\"Say "
	    "\\\"hi\\\"\"}},"
	    "{\"tool\":\"qa_act\",\"action\":\"press\",\"key\":\"back\"},"
	    "{\"tool\":\"qa_screenshot\"},"
	    "{\"tool\":\"qa_act\",\"action\":\"open_url\",\"url\":\"myapp://x\\ny\"}]";
	char *yaml = NULL;
	ck_assert_int_eq(sw_export_flow(actions, "login smoke", "com.example.app", &yaml, NULL), SW_OK);
	ck_assert_ptr_nonnull(
	    strstr(yaml, "name: \"login smoke\"\nappId: \"com.example.app\"\nsteps:\n  - prepareTarget\n"));
	ck_assert_ptr_nonnull(strstr(yaml, "  - tap: \"id=login_btn\"\n"));
	ck_assert_ptr_nonnull(strstr(yaml, "      into: \"Email\"\n      text: \"${SWIPIUM_TEST_EMAIL}\"\n"));
	ck_assert_ptr_nonnull(strstr(yaml, "  # skipped: tap on @e9"));
	ck_assert_ptr_nonnull(strstr(yaml, "  - tapAt: [10, 20]\n"));
	ck_assert_ptr_nonnull(strstr(yaml, "ELEMENT_NOT_FOUND"));
	ck_assert_ptr_nonnull(strstr(yaml, "  - scrollTo: \"Say \\\"hi\\\"\"\n"));
	ck_assert_ptr_nonnull(strstr(yaml, "  - press: back\n"));
	ck_assert_ptr_nonnull(strstr(yaml, "  - openUrl: \"myapp://x\\ny\"\n"));
	ck_assert(yaml_ok(yaml));
	free(yaml);
}
END_TEST

START_TEST(test_flow_with_nothing_to_replay)
{
	char *yaml = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_export_flow("[{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":{\"ref\":\"@e1\"}}]", NULL,
	                                NULL, &yaml, &err),
	                 SW_ENOTFOUND);
	ck_assert_str_eq(sw_error_failure_code(err), "NO_RECORDED_ACTIONS");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_export_flow("{}", NULL, NULL, &yaml, &err), SW_EINVAL);
	sw_error_free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("exports");
	TCase *tc = tcase_create("exports");
	tcase_add_test(tc, test_playwright_one_spec_per_outcome);
	tcase_add_test(tc, test_flow_from_recorded_actions);
	tcase_add_test(tc, test_flow_with_nothing_to_replay);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
