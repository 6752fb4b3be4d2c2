/* check-appium.c: unit tests of the Appium emitter (generate/appium*.c): refusals, secrets, paths, caps. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "gen-internal.h"

static json_t *model_of(const char *steps_json)
{
	json_error_t je;
	json_t *steps = json_loads(steps_json, 0, &je);
	ck_assert_msg(steps != NULL, "bad fixture: %s", je.text);
	return json_pack("{s:s, s:s, s:o}", "appId", "com.example", "platform", "android", "steps", steps);
}

static json_t *params_of(const char *json)
{
	json_t *p = json_loads(json, 0, NULL);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* Runs the emitter; on success returns the files and sets *report. */
static int run(const char *steps, const char *params, json_t **files, json_t **report, sw_error **err)
{
	json_t *m = model_of(steps), *p = params_of(params);
	*files = *report = NULL;
	int rc = sw__gen_appium(m, p, files, report, err);
	json_decref(m);
	json_decref(p);
	return rc;
}

/* All file contents joined (paths too), for "does this text appear anywhere" checks. */
static char *all_text(const json_t *files)
{
	sw_buf b = SW_BUF_INIT;
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f)
	{
		sw__buf_puts(&b, json_string_value(json_object_get(f, "path")));
		sw__buf_putc(&b, '\n');
		sw__buf_puts(&b, json_string_value(json_object_get(f, "content")));
	}
	return sw__buf_steal(&b, NULL);
}

static const char *content_of(const json_t *files, const char *suffix)
{
	size_t i;
	json_t *f;
	json_array_foreach(files, i,
	                   f) if (sw__str_has_suffix(json_string_value(json_object_get(f, "path")),
	                                             suffix)) return json_string_value(json_object_get(f, "content"));
	return NULL;
}

START_TEST(test_refusals)
{
	static const struct {
		const char *steps;
		const char *code;
		long step;
	} cases[] = {
	    {"[]", "NO_RECORDED_ACTIONS", 0},
	    {"[{\"kind\":\"tap\",\"screen\":\"A\"}]", "UNEMITTABLE_STEP", 1},
	    {"[{\"kind\":\"back\"},{\"kind\":\"pinch\"}]", "UNEMITTABLE_STEP", 2},
	    {"[{\"kind\":\"swipe\",\"direction\":\"sideways\"}]", "UNEMITTABLE_STEP", 1},
	    {"[{\"kind\":\"key\",\"key\":\"power\"}]", "UNEMITTABLE_STEP", 1},
	    {"[{\"kind\":\"type\",\"locator\":{\"strategy\":\"id\",\"value\":\"a\"}}]", "UNEMITTABLE_STEP", 1},
	    {"[{\"kind\":\"tap\",\"locator\":{\"strategy\":\"xpath\",\"value\":\"//a\"}}]", "UNEMITTABLE_STEP", 1},
	    {"[{\"kind\":\"tap\",\"locator\":{\"strategy\":\"coordinates\",\"x\":\"1\",\"y\":2}}]", "UNEMITTABLE_STEP",
	     1},
	    {"[{\"kind\":\"clear\",\"locator\":{\"strategy\":\"coordinates\",\"x\":1,\"y\":2}}]", "UNEMITTABLE_STEP",
	     1},
	    {"[{\"kind\":\"assertText\"}]", "UNEMITTABLE_STEP", 1},
	    {"[{\"kind\":\"scroll\",\"direction\":\"down\",\"untilVisible\":{\"strategy\":\"coordinates\",\"x\":1,"
	     "\"y\":2}}]",
	     "UNEMITTABLE_STEP", 1},
	    {"[\"tap\"]", "UNEMITTABLE_STEP", 0},
	};
	for (size_t i = 0; i < SW_ARRAY_SIZE(cases); i++) {
		for (int py = 0; py < 2; py++) {
			json_t *files, *report;
			sw_error *err = NULL;
			int rc = run(cases[i].steps, py ? "{\"language\":\"python\"}" : "{\"language\":\"typescript\"}",
			             &files, &report, &err);
			ck_assert_msg(rc < 0, "case %zu emitted", i);
			ck_assert_ptr_null(files);
			ck_assert_ptr_null(report);
			ck_assert_str_eq(sw_error_failure_code(err), cases[i].code);
			ck_assert_int_eq(rc,
			                 !strcmp(cases[i].code, "UNEMITTABLE_STEP") ? SW_EUNSUPPORTED : SW_ENOTFOUND);
			ck_assert_ptr_nonnull(sw_error_hint(err));
			if (cases[i].step > 0) {
				json_t *d = sw__error_details(err);
				ck_assert_int_eq(json_integer_value(json_object_get(d, "step")), cases[i].step);
			}
			sw_error_free(err);
		}
	}
}
END_TEST

START_TEST(test_secrets_never_written)
{
	const char *steps =
	    "[{\"kind\":\"type\",\"screen\":\"Login\",\"locator\":{\"strategy\":\"id\",\"value\":\"com.x:id/pin\"},"
	    "\"text\":\"4711-RAW\",\"secretKind\":\"pin\"},"
	    "{\"kind\":\"type\",\"screen\":\"Login\",\"locator\":{\"strategy\":\"id\",\"value\":\"com.x:id/k\"},"
	    "\"text\":\"RAW-OTHER\",\"secretKind\":\"secret\"},"
	    "{\"kind\":\"type\",\"screen\":\"Login\",\"locator\":{\"strategy\":\"id\",\"value\":\"com.x:id/pw\"},"
	    "\"text\":\"${SWIPIUM_TEST_PASSWORD}\",\"secretKind\":\"password\"}]";
	for (int py = 0; py < 2; py++) {
		json_t *files, *report;
		ck_assert_int_eq(run(steps,
		                     py ? "{\"language\":\"python\",\"includeCi\":true}" : "{\"includeCi\":true}",
		                     &files, &report, NULL),
		                 SW_OK);
		char *text = all_text(files);
		ck_assert_ptr_null(strstr(text, "4711-RAW"));
		ck_assert_ptr_null(strstr(text, "RAW-OTHER"));
		ck_assert_ptr_nonnull(strstr(text, "SWIPIUM_TEST_PIN"));
		ck_assert_ptr_nonnull(strstr(text, "SWIPIUM_SECRET_1"));
		ck_assert_ptr_nonnull(strstr(text, py ? "require_env(\"SWIPIUM_TEST_PASSWORD\")"
		                                      : "requireEnv('SWIPIUM_TEST_PASSWORD')"));
		/* The CI example hands every placeholder over from the repository's secrets. */
		ck_assert_ptr_nonnull(
		    strstr(content_of(files, "ci.example.yml"), "SWIPIUM_TEST_PIN: ${{ secrets.SWIPIUM_TEST_PIN }}"));
		size_t secret_notes = 0, n;
		json_t *note;
		json_array_foreach(json_object_get(report, "notes"), n, note) secret_notes +=
		    strstr(json_string_value(note), "secret that was not a placeholder") != NULL;
		ck_assert_uint_eq(secret_notes, 2);
		free(text);
		json_decref(files);
		json_decref(report);
	}
}
END_TEST

static bool path_plain(const char *p)
{
	for (; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '.' || c == '/' || c == '-'))
			return false;
	}
	return true;
}

START_TEST(test_paths_and_determinism)
{
	const char *steps =
	    "[{\"kind\":\"tap\",\"screen\":\"../../etc/"
	    "passwd\\n${x}\",\"locator\":{\"strategy\":\"id\",\"value\":\"a\"}},"
	    "{\"kind\":\"tap\",\"screen\":\"..\",\"locator\":{\"strategy\":\"text\",\"value\":\"b\"}},"
	    "{\"kind\":\"tap\",\"screen\":\"\\u00c9cran d'accueil\",\"locator\":{\"strategy\":\"accessibility_id\","
	    "\"value\":\"c\"}},"
	    "{\"kind\":\"visualCheck\",\"screen\":\"..\",\"label\":\"Logo looks right\"}]";
	const char *params[] = {"{\"language\":\"typescript\"}", "{\"language\":\"javascript\"}",
	                        "{\"language\":\"python\"}"};
	const char *roots[] = {".swipium/automation/js/", ".swipium/automation/js/", ".swipium/automation/python/"};
	for (size_t k = 0; k < 3; k++) {
		json_t *f1, *r1, *f2, *r2;
		ck_assert_int_eq(run(steps, params[k], &f1, &r1, NULL), SW_OK);
		ck_assert_int_eq(run(steps, params[k], &f2, &r2, NULL), SW_OK);
		ck_assert(json_equal(f1, f2));
		ck_assert(json_equal(r1, r2));
		size_t i;
		json_t *f;
		json_array_foreach(f1, i, f)
		{
			const char *p = json_string_value(json_object_get(f, "path"));
			ck_assert_msg(sw__str_has_prefix(p, roots[k]) && path_plain(p) && !strstr(p, ".."), "path %s",
			              p);
		}
		const char *spec =
		    content_of(f1, k == 2 ? "tests/test_smoke.py" : (k ? "smoke.e2e.js" : "smoke.e2e.ts"));
		ck_assert_ptr_nonnull(spec);
		ck_assert_ptr_nonnull(strstr(spec, "TODO(manual visual check, not automated)"));
		ck_assert_ptr_null(strstr(spec, k == 2 ? "assert_text_visible" : "assertTextVisible"));
		static const char *const screen_files[] = {"screens/ecran_d_accueil_screen.ts",
		                                           "screens/ecran_d_accueil_screen.js",
		                                           "screens/ecran_d_accueil_screen.py"};
		ck_assert_ptr_nonnull(content_of(f1, screen_files[k]));
		ck_assert_int_eq(json_integer_value(json_object_get(r1, "manualCheckpoints")), 1);
		ck_assert_int_eq(json_integer_value(json_object_get(r1, "stepsEmitted")), 3);
		json_decref(f1);
		json_decref(r1);
		json_decref(f2);
		json_decref(r2);
	}
}
END_TEST

START_TEST(test_bounds_and_platform)
{
	json_t *files, *report;
	const char *steps =
	    "[{\"kind\":\"scroll\",\"direction\":\"down\",\"untilVisible\":{\"strategy\":\"text\",\"value\":\"Z\"},"
	    "\"maxScrolls\":500},{\"kind\":\"wait\",\"ms\":99999999}]";
	ck_assert_int_eq(run(steps, "{\"platform\":\"ios\"}", &files, &report, NULL), SW_OK);
	const char *spec = content_of(files, "smoke.e2e.ts");
	ck_assert_ptr_nonnull(strstr(spec, "await scrollUntilVisible("));
	ck_assert_ptr_nonnull(strstr(spec, ", 'down', 50);"));
	ck_assert_ptr_nonnull(strstr(spec, "await pause(60000);"));
	ck_assert_str_eq(json_string_value(json_object_get(report, "primaryPlatform")), "ios");
	ck_assert_str_eq(json_string_value(json_object_get(report, "platformSource")), "argument");
	ck_assert_str_eq(json_string_value(json_object_get(report, "language")), "typescript"); /* auto, no project */
	ck_assert_ptr_nonnull(strstr(content_of(files, "support/recorded.ts"), "DEFAULT_PLATFORM = 'ios'"));
	ck_assert_ptr_nonnull(
	    strstr(content_of(files, "support/recorded.ts"), "RECORDED_PLATFORM: string = 'android'"));
	ck_assert_ptr_null(content_of(files, "ci.example.yml"));
	json_decref(files);
	json_decref(report);
	sw_error *err = NULL;
	ck_assert_int_eq(run("[{\"kind\":\"back\"}]", "{\"language\":\"cobol\"}", &files, &report, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(run("[{\"kind\":\"back\"}]", "{\"brittleThreshold\":-1}", &files, &report, &err), SW_EINVAL);
	sw_error_free(err);
}
END_TEST

START_TEST(test_long_label_cut_in_comments_only)
{
	sw_buf v = SW_BUF_INIT;
	for (int i = 0; i < 1000; i++)
		sw__buf_putc(&v, (char)('a' + i % 26));
	char *value = sw__buf_steal(&v, NULL);
	json_t *step = json_pack("{s:s, s:s, s:{s:s, s:s}, s:s}", "kind", "tap", "screen", value, "locator", "strategy",
	                         "text", "value", value, "label", value);
	json_t *m = json_pack("{s:s, s:s, s:[o]}", "appId", "com.example", "platform", "android", "steps", step);
	for (int py = 0; py < 2; py++) {
		json_t *p = params_of(py ? "{\"language\":\"python\"}" : "{}"), *files = NULL, *report = NULL;
		ck_assert_int_eq(sw__gen_appium(m, p, &files, &report, NULL), SW_OK);
		char *text = all_text(files);
		/* the value itself is data the test needs: whole, in a literal */
		ck_assert_ptr_nonnull(strstr(text, value));
		ck_assert_ptr_nonnull(strstr(text, "[cut to 160 of 1000 characters]"));
		ck_assert_ptr_nonnull(strstr(text, SW_CAP_MARKER));
		free(text);
		json_decref(files);
		json_decref(report);
		json_decref(p);
	}
	json_decref(m);
	free(value);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("appium");
	TCase *tc = tcase_create("emitter");
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_secrets_never_written);
	tcase_add_test(tc, test_paths_and_determinism);
	tcase_add_test(tc, test_bounds_and_platform);
	tcase_add_test(tc, test_long_label_cut_in_comments_only);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
