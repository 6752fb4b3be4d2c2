/* check-suite.c: unit tests of the suite concern's rules: the YAML loader's refusals, quoting that round-trips any
 * label, the slug, the dedupe key and the id helpers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../libswipium/suite/suite-internal.h"

/* Loads "k: <quoted s>" back and returns the value of k (transfer full), or NULL when it did not load. */
static char *round_trip(const char *s)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "k: ");
	sw__suite_yaml_quote(&b, s);
	sw__buf_putc(&b, '\n');
	size_t len = 0;
	char *text = sw__buf_steal(&b, &len);
	json_t *doc = NULL;
	sw_error *err = NULL;
	char *out = NULL;
	if (sw__suite_yaml_load(text, len, "t.yaml", "INVALID_FLOW", &doc, &err) == SW_OK)
		out = sw__strdup(json_string_value(json_object_get(doc, "k")));
	sw_error_free(err);
	json_decref(doc);
	free(text);
	return out;
}

START_TEST(quoting_round_trips_hostile_labels)
{
	static const char *const labels[] = {
	    "plain",
	    "both \"quotes\" and 'single'",
	    "back\\slash \\n not a newline",
	    "${SWIPIUM_TEST_PASSWORD} and ${HOME}",
	    "line one\nprocess.exit(1) // code",
	    "*/ \"\"\" ''' -->",
	    "\x1b[31mred\x1b[0m bell\a tab\t cr\r",
	    "ü ✓ 日本語 🙂",
	    "- leading dash: colon # hash",
	    "",
	    "  spaces around  ",
	    "\xc2\x9b C1 CSI",
	    "\xe2\x80\xa8 line separator",
	};
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		char *back = round_trip(labels[i]);
		ck_assert_msg(back != NULL, "label %zu did not load back", i);
		ck_assert_str_eq(back, labels[i]);
		free(back);
	}
}
END_TEST

static int load_code(const char *text, char code[64])
{
	json_t *doc = NULL;
	sw_error *err = NULL;
	int rc = sw__suite_yaml_load(text, strlen(text), "x.yaml", "INVALID_FLOW", &doc, &err);
	snprintf(code, 64, "%s", err ? sw_error_failure_code(err) : "");
	if (err)
		ck_assert_ptr_nonnull(strstr(sw_error_message(err), "x.yaml:"));
	sw_error_free(err);
	json_decref(doc);
	return rc;
}

START_TEST(loader_refuses_hostile_yaml)
{
	static const char *const bad[] = {
	    "a: &x 1\nb: *x\n",                    /* anchors and aliases */
	    "a: !!python/object:os.system x\n",    /* tags */
	    "a: 1\na: 2\n",                        /* duplicate keys */
	    "a: 1\n---\nb: 2\n",                   /* two documents */
	    "- a\n- b\n",                          /* not a map */
	    "",                                    /* empty */
	    "a: [unclosed\n",                      /* syntax */
	    "a: \"\\xff\"\n",                      /* fine YAML... */
	};
	char code[64];
	for (size_t i = 0; i + 1 < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(load_code(bad[i], code) < 0, "input %zu was accepted", i);
		ck_assert_str_eq(code, "INVALID_FLOW");
	}
	/* ...whose escaped value is not UTF-8 is still data, never a crash */
	json_t *doc = NULL;
	(void)sw__suite_yaml_load(bad[7], strlen(bad[7]), "x.yaml", "INVALID_FLOW", &doc, NULL);
	json_decref(doc);
	/* nesting deeper than the limit */
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "a: ");
	for (int i = 0; i < 40; i++)
		sw__buf_putc(&b, '[');
	for (int i = 0; i < 40; i++)
		sw__buf_putc(&b, ']');
	sw__buf_putc(&b, '\n');
	char *deep = sw__buf_steal(&b, NULL);
	ck_assert_int_lt(load_code(deep, code), 0);
	free(deep);
	/* invalid UTF-8 in the file */
	ck_assert_int_lt(load_code("a: \xff\xfe\n", code), 0);
}
END_TEST

START_TEST(plain_scalars_are_typed)
{
	json_t *doc = NULL;
	const char *t = "i: 500\nr: 0.5\nt: true\nn: ~\ns: \"500\"\nw: yes\n";
	ck_assert_int_eq(sw__suite_yaml_load(t, strlen(t), NULL, "INVALID_FLOW", &doc, NULL), SW_OK);
	ck_assert(json_is_integer(json_object_get(doc, "i")));
	ck_assert(json_is_real(json_object_get(doc, "r")));
	ck_assert(json_is_true(json_object_get(doc, "t")));
	ck_assert(json_is_null(json_object_get(doc, "n")));
	ck_assert_str_eq(json_string_value(json_object_get(doc, "s")), "500");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "w")), "yes");
	json_decref(doc);
}
END_TEST

START_TEST(slug_rule)
{
	static const char *const pairs[][2] = {
	    {"login smoke", "login-smoke"}, {"a  b\tc", "a-b-c"}, {"x/../y", "x-..-y"},
	    {"ü", "-"},                     {"ok_1.2-3", "ok_1.2-3"}, {"", ""},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char *s = sw_suite_slug(pairs[i][0]);
		ck_assert_str_eq(s, pairs[i][1]);
		free(s);
	}
}
END_TEST

START_TEST(dedupe_key_ignores_spacing_and_case)
{
	json_t *a = json_pack("{s:s, s:s, s:[s, s]}", "feature", "Login", "objective", "Sign in works", "steps",
	                      "Open the app", "Tap  Sign in");
	json_t *b = json_pack("{s:s, s:s, s:[s, s]}", "feature", " login ", "objective", "sign   IN works\n", "steps",
	                      "  open the\tapp ", "TAP SIGN IN");
	json_t *c = json_pack("{s:s, s:s, s:[s]}", "feature", "login", "objective", "Sign in works", "steps",
	                      "Open the app Tap Sign in");
	char *ka = sw__suite_case_key(a), *kb = sw__suite_case_key(b), *kc = sw__suite_case_key(c);
	ck_assert_str_eq(ka, kb);
	ck_assert_str_ne(ka, kc); /* the step boundaries count */
	free(ka);
	free(kb);
	free(kc);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}
END_TEST

START_TEST(feature_tokens_and_ids)
{
	static const char *const pairs[][2] = {
	    {"login", "LOGIN"}, {"user profile", "USER_PROFILE"}, {"  --a-b-- ", "A_B"}, {"", "GENERAL"}, {"日本", "GENERAL"},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char *t = sw__suite_feature_token(pairs[i][0]);
		ck_assert_str_eq(t, pairs[i][1]);
		free(t);
	}
	ck_assert_int_eq(sw__suite_id_number("TC-LOGIN-007", "LOGIN"), 7);
	ck_assert_int_eq(sw__suite_id_number("TC-LOGIN-", "LOGIN"), -1);
	ck_assert_int_eq(sw__suite_id_number("TC-LOGINX-001", "LOGIN"), -1);
	ck_assert_int_eq(sw__suite_id_number("TC-LOGIN-1a", "LOGIN"), -1);
}
END_TEST

/* Reads a whole file (transfer full). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return sw__strdup(buf);
}

START_TEST(generate_from_a_recorded_run_keeps_secrets_out)
{
	char home[] = "/tmp/check-suite-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(home));
	char *root = sw__asprintf("%s/app", home);
	ck_assert_int_eq(sw__mkdirs(root, 0700, NULL), SW_OK);
	sw_ctx *ctx = NULL;
	sw_store *store = NULL;
	sw_session *s = NULL;
	ck_assert_int_eq(sw_ctx_new(&ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(ctx, home, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(ctx, &store, NULL), SW_OK);
	ck_assert_int_eq(sw_session_create(store, root, NULL, NULL, &s, NULL), SW_OK);
	/* what h16gen's recording keeps: the element touched; a secure field's text is the typed secret */
	ck_assert_int_eq(sw_session_append_json(s, "recordedActions",
	                                        "{\"tool\":\"qa_act\",\"action\":\"type\",\"target\":\"@e2\","
	                                        "\"text\":\"${SWIPIUM_TEST_PASSWORD}\",\"secret\":true,"
	                                        "\"element\":{\"id\":\"password\",\"text\":\"S3cretPass!\","
	                                        "\"secure\":true}}",
	                                        NULL),
	                 SW_OK);
	ck_assert_int_eq(sw_session_append_json(s, "recordedActions",
	                                        "{\"tool\":\"qa_act\",\"action\":\"tap\",\"target\":\"@e3\","
	                                        "\"element\":{\"label\":\"Sign in as S3cretPass!\",\"id\":\"go\"}}",
	                                        NULL),
	                 SW_OK);
	ck_assert_int_eq(sw_redactor_add_secret(sw_session_redactor(s), "S3cretPass!", NULL), SW_OK);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_suite_generate(ctx, root, s, "{}", &out, &err);
	ck_assert_msg(rc == SW_OK, "%s", err ? sw_error_message(err) : "");
	json_t *r = json_loads(out, 0, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(r, "created")), 1);
	json_decref(r);
	sw_free(out);
	char *path = sw__asprintf("%s/.swipium/test-suite.json", root);
	char *text = slurp(path);
	ck_assert_ptr_null(strstr(text, "S3cretPass!"));
	ck_assert_ptr_nonnull(strstr(text, "Type the test value into \\\"password\\\""));
	ck_assert_ptr_nonnull(strstr(text, "Tap \\\"Sign in as"));
	free(text);
	free(path);
	sw_store_free(store);
	sw_ctx_free(ctx);
	free(root);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *suite_suite(void)
{
	Suite *s = suite_create("suite");
	TCase *tc = tcase_create("rules");
	tcase_add_test(tc, quoting_round_trips_hostile_labels);
	tcase_add_test(tc, loader_refuses_hostile_yaml);
	tcase_add_test(tc, plain_scalars_are_typed);
	tcase_add_test(tc, slug_rule);
	tcase_add_test(tc, dedupe_key_ignores_spacing_and_case);
	tcase_add_test(tc, feature_tokens_and_ids);
	tcase_add_test(tc, generate_from_a_recorded_run_keeps_secrets_out);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
