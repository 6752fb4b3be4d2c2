/* check-generate.c: unit tests of generate/'s text helpers (YAML through libyaml, Markdown, names, safe parts) and of
 * the recording-to-model rules (placeholders, numbering, skipped and dropped records). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "gen-emit.h"
#include "gen-internal.h"
#include "gen-text.h"
#include <swipium/redact.h>

static const char *const hostile[] = {
    "Say \"hi\" and 'bye'",
    "C:\\path\\to\\n",
    "${process.exit(1)}",
    "ok\nprocess.exit(7)",
    "ok\r\nimport os; os.system('x')",
    "end */ process.exit(3); /*",
    "doc \"\"\" __import__('os')",
    "Caf\xc3\xa9 \xe2\x82\xac 5 \xe2\x9c\x93 \xf0\x9f\x98\x80",
    "2FA code",
    "- item: [x, {y: z}] # not a comment",
    "yes",
    "null",
    "~",
    "  leading and trailing  ",
    "tab\there \x01 \x7f",
    "&anchor *alias !tag %directive @at `tick`",
    "",
};

/* The value of key "v" in the single-mapping YAML document @text, read back with libyaml's parser. */
static char *read_back(const char *text)
{
	yaml_parser_t p;
	yaml_event_t ev;
	ck_assert(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	char *val = NULL;
	bool next_is_value = false;
	for (;;) {
		ck_assert_msg(yaml_parser_parse(&p, &ev), "YAML does not parse: %s", text);
		if (ev.type == YAML_SCALAR_EVENT) {
			if (next_is_value) {
				val = strndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
				next_is_value = false;
			} else if (!strcmp((const char *)ev.data.scalar.value, "v")) {
				next_is_value = true;
			}
		}
		bool end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (end)
			break;
	}
	yaml_parser_delete(&p);
	return val;
}

START_TEST(test_yaml_round_trip)
{
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		json_t *doc = json_pack("{ss}", "v", hostile[i]);
		char *y = NULL;
		ck_assert_int_eq(sw__gen_yaml(doc, "a comment\nwith a line break", &y, NULL), SW_OK);
		ck_assert_msg(strncmp(y, "# a comment with a line break\n", 30) == 0, "%s", y);
		/* one mapping line: a label never adds a line or a key */
		const char *body = strchr(y, '\n') + 1;
		ck_assert_msg(strchr(body, '\n') == body + strlen(body) - 1, "label %zu spans lines: %s", i, y);
		char *back = read_back(y);
		ck_assert_ptr_nonnull(back);
		ck_assert_str_eq(back, hostile[i]);
		free(back);
		free(y);
		json_decref(doc);
	}
	/* special words and numbers stay strings: quoted, not plain */
	json_t *doc = json_pack("{ss,ss,ss}", "a", "yes", "b", "Continue", "c", "42");
	char *y = NULL;
	ck_assert_int_eq(sw__gen_yaml(doc, NULL, &y, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(y, "a: \"yes\""));
	ck_assert_ptr_nonnull(strstr(y, "b: Continue"));
	ck_assert_ptr_nonnull(strstr(y, "c: \"42\""));
	free(y);
	json_decref(doc);
}
END_TEST

START_TEST(test_markdown)
{
	sw_buf b = SW_BUF_INIT;
	sw__gen_md_text(&b, "# h *b* _i_ `c` [l](u) | ~s~ <x> & \\ \nnext");
	char *s = sw__buf_steal(&b, NULL);
	ck_assert_str_eq(s, "\\# h \\*b\\* \\_i\\_ \\`c\\` \\[l\\](u) \\| \\~s\\~ &lt;x&gt; &amp; \\\\  next");
	free(s);
}
END_TEST

START_TEST(test_names)
{
	char *s;
	ck_assert_str_eq((s = sw__gen_ident("2fa_check", false, "e", "element")), "e2faCheck");
	free(s);
	ck_assert_str_eq((s = sw__gen_ident("Login Activity", true, "S", "Main")), "LoginActivity");
	free(s);
	ck_assert_str_eq((s = sw__gen_ident("\"\"\" */ ${}", false, "e", "element")), "element");
	free(s);
	ck_assert_str_eq((s = sw__gen_ident("Überprüfen straße", false, "e", "element")), "uberprufenStrasse");
	free(s);
	ck_assert_str_eq((s = sw__gen_slug("hostile run ${X}/../x")), "hostile-run-X-..-x");
	free(s);
	ck_assert_str_eq((s = sw__gen_slug("../../etc")), "etc");
	free(s);
	ck_assert_str_eq((s = sw__gen_slug("***")), "recorded");
	free(s);
}
END_TEST

START_TEST(test_safe_parts)
{
	char *s;
	ck_assert_str_eq((s = sw__gen_safe_part("Pay the bill ${HOME}")), "Pay the bill");
	free(s);
	ck_assert_str_eq((s = sw__gen_safe_part("a ${X} middle part ${Y} b")), "middle part");
	free(s);
	ck_assert_str_eq((s = sw__gen_safe_part("Hi Ann, your code " SW_REDACTED_MARKER " works")),
	                 "Hi Ann, your code");
	free(s);
	ck_assert_str_eq((s = sw__gen_safe_part("one\n  the longer line  ")), "the longer line");
	free(s);
	ck_assert_str_eq((s = sw__gen_safe_part("cost $${X}")), "cost");
	free(s);
	ck_assert_ptr_null(sw__gen_safe_part("${ONLY}"));
	ck_assert_ptr_null(sw__gen_safe_part("x" SW_REDACTED_MARKER));
	/* a text that reads as a prefix form loses the prefix */
	json_t *loc = json_pack("{ss,ss}", "strategy", "text", "value", "id=evil");
	ck_assert_str_eq((s = sw__gen_flow_selector(loc, "android")), "evil");
	free(s);
	json_decref(loc);
	ck_assert_str_eq((s = sw__gen_defuse("a ${b} c")), "a $ {b} c");
	free(s);
}
END_TEST

static json_t *typed(const char *text, const char *hint, bool secret, const char *kind, int seq)
{
	json_t *a = json_pack("{ss,ss,s{ss},s{ss,ss,ss,s[iiii]},ss,si}", "tool", "qa_act", "action", "type", "target",
	                      "id", "f", "element", "resourceId", "app:id/f", "id", "f", "hint", hint, "bounds", 0, 0,
	                      10, 10, "screen", "S", "seq", seq);
	if (text)
		json_object_set_new(a, "text", json_string(text));
	else
		json_object_set_new(a, "text", json_null());
	if (secret)
		json_object_set_new(a, "secret", json_true());
	if (kind)
		json_object_set_new(a, "secretKind", json_string(kind));
	return a;
}

START_TEST(test_model_placeholders)
{
	json_t *rec = json_array();
	json_array_append_new(rec, typed(NULL, "Card", true, "secret", 51));
	json_array_append_new(rec, typed(NULL, "Other", true, "secret", 52));
	json_array_append_new(rec, typed("${HOME}/x", "Path", false, NULL, 53));
	json_array_append_new(rec, typed("a " SW_REDACTED_MARKER, "Verification code", false, NULL, 54));
	json_array_append_new(rec, typed("${MY_TOKEN}", "Token", false, NULL, 55));
	json_array_append_new(rec, typed("${SWIPIUM_TEST_PASSWORD}", "Password", true, "password", 56));
	json_array_append_new(rec, typed("plain", "Name", false, NULL, 57));
	json_t *failed = typed("x", "Name", false, NULL, 58);
	json_object_set_new(failed, "failureCode", json_string("ELEMENT_NOT_FOUND"));
	json_array_append_new(rec, failed);
	json_array_append_new(
	    rec, json_pack("{ss,ss,s{ss},si}", "tool", "qa_act", "action", "tap", "target", "ref", "@e3", "seq", 59));
	json_t *m = NULL;
	ck_assert_int_eq(sw__gen_model(rec, "com.x", "android", &m, NULL), SW_OK);
	json_t *steps = json_object_get(m, "steps");
	ck_assert_int_eq(json_array_size(steps), 7);
	const char *want[] = {"${SWIPIUM_SECRET_1}",
	                      "${SWIPIUM_SECRET_2}",
	                      "${SWIPIUM_INPUT_1}",
	                      "${SWIPIUM_TEST_OTP}",
	                      "${SWIPIUM_MY_TOKEN}",
	                      "${SWIPIUM_TEST_PASSWORD}",
	                      "plain"};
	for (size_t i = 0; i < 7; i++)
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(steps, i), "text")), want[i]);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(steps, 3), "secretKind")), "otp");
	ck_assert_ptr_null(json_object_get(json_array_get(steps, 6), "secretKind"));
	ck_assert_int_eq(json_array_size(json_object_get(m, "skipped")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(m, "droppedBeforeRecording")), 50);
	ck_assert_int_eq(json_array_size(json_object_get(m, "variables")), 6);
	/* no text of the model holds the redaction marker or the raw ${HOME} */
	char *dump = json_dumps(steps, 0);
	ck_assert_ptr_null(strstr(dump, SW_REDACTED_MARKER));
	ck_assert_ptr_null(strstr(dump, "${HOME}"));
	free(dump);
	json_decref(m);
	json_decref(rec);
}
END_TEST

START_TEST(test_locator_order)
{
	/* id, then accessibility id, then text, then a point; an id that holds ${ is passed over */
	json_t *rec = json_pack(
	    "[{ss,ss,s{ss,ss,ss,s[iiii]}},{ss,ss,s{ss,ss,s[iiii]}},{ss,ss,s{ss,s[iiii]}},{ss,ss,s{s[iiii]}},"
	    "{ss,ss,s{ss,ss,s[iiii]}}]",
	    "tool", "qa_act", "action", "tap", "element", "resourceId", "a:id/ok", "accessibilityId", "OK", "text",
	    "OK", "bounds", 0, 0, 10, 10, "tool", "qa_act", "action", "tap", "element", "accessibilityId", "close",
	    "text", "Close", "bounds", 0, 0, 10, 10, "tool", "qa_act", "action", "tap", "element", "text", "Next",
	    "bounds", 0, 0, 10, 10, "tool", "qa_act", "action", "tap", "element", "bounds", 0, 0, 100, 50, "tool",
	    "qa_act", "action", "tap", "element", "resourceId", "a:id/${x}", "text", "Go ${x}", "bounds", 0, 0, 10, 10);
	ck_assert_ptr_nonnull(rec);
	json_t *m = NULL;
	ck_assert_int_eq(sw__gen_model(rec, "a", "android", &m, NULL), SW_OK);
	const char *strategy[] = {"id", "accessibility_id", "text", "coordinates", "text"};
	const char *quality[] = {"durable", "durable", "semi", "brittle", "semi"};
	for (size_t i = 0; i < 5; i++) {
		json_t *st = json_array_get(json_object_get(m, "steps"), i);
		ck_assert_str_eq(json_string_value(json_object_get(json_object_get(st, "locator"), "strategy")),
		                 strategy[i]);
		ck_assert_str_eq(json_string_value(json_object_get(st, "quality")), quality[i]);
	}
	json_t *pt = json_object_get(json_array_get(json_object_get(m, "steps"), 3), "locator");
	ck_assert_int_eq(json_integer_value(json_object_get(pt, "x")), 50);
	ck_assert_int_eq(json_integer_value(json_object_get(pt, "y")), 25);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_object_get(json_array_get(json_object_get(m, "steps"), 4), "locator"), "value")),
	                 "Go");
	json_decref(m);
	json_decref(rec);
}
END_TEST

START_TEST(test_assertions)
{
	/* satisfied waits are text assertions; a timed-out one, one that showed a secret and one that is only a
	 * ${...} reference are skipped with their reasons; a part of the text that holds no reference is expected */
	char redacted[64];
	snprintf(redacted, sizeof(redacted), "code %s", SW_REDACTED_MARKER);
	json_t *rec = json_pack(
	    "[{ss,ss,s{ss},sb,s{ss,ss,ss},ss}," /* text asked, element shows it whole */
	    "{ss,ss,s{ss},sb,s{ss,ss,ss},ss},"  /* text asked, element shows more: its id, contains */
	    "{ss,ss,s{ss},sb,s{ss,ss,ss},ss},"  /* id asked: the element's text expected */
	    "{ss,ss,s{ss},sb},"                 /* timed out */
	    "{ss,ss,s{ss},sb},"                 /* showed a secret */
	    "{ss,ss,s{ss},sb},"                 /* only a reference */
	    "{ss,ss,s{ss},sb},"                 /* a flow run's: no element, no screen */
	    "{ss,ss,s{ss},sb,s{ss,ss,sb},ss},"  /* id of a secure field: presence only, never its text */
	    "{ss,ss,s{si},sb,s{ss,ss,ss},ss}]", /* a snapshot ref: the found element's id and text */
	    "tool", "qa_act", "action", "wait", "for", "text", "Welcome", "satisfied", 1, "element", "resourceId",
	    "a:id/title", "id", "title", "text", "Welcome", "screen", "Home", "tool", "qa_act", "action", "wait", "for",
	    "text", "Hi ${x}", "satisfied", 1, "element", "resourceId", "a:id/hi", "id", "hi", "text", "Hi ${x}",
	    "screen", "Home", "tool", "qa_act", "action", "wait", "for", "id", "done", "satisfied", 1, "element",
	    "resourceId", "a:id/done", "id", "done", "text", "All done", "screen", "Done", "tool", "qa_act", "action",
	    "wait", "for", "text", "Nope", "satisfied", 0, "tool", "qa_act", "action", "wait", "for", "text", redacted,
	    "satisfied", 1, "tool", "qa_act", "action", "wait", "for", "text", "${SWIPIUM_X}", "satisfied", 1, "tool",
	    "qa_smoke", "action", "wait", "for", "text", "Ready", "satisfied", 1, "tool", "qa_act", "action", "wait",
	    "for", "id", "pw", "satisfied", 1, "element", "id", "pw", "text", "hunter2", "secure", 1, "screen", "Login",
	    "tool", "qa_act", "action", "wait", "for", "ref", 7, "satisfied", 1, "element", "resourceId", "a:id/total",
	    "id", "total", "text", "Total: 3", "screen", "Cart");
	ck_assert_ptr_nonnull(rec);
	json_t *m = NULL;
	ck_assert_int_eq(sw__gen_model(rec, "a", "android", &m, NULL), SW_OK);
	json_t *steps = json_object_get(m, "steps");
	ck_assert_int_eq(json_array_size(steps), 6);
	const char *kinds[] = {"assertText", "assertText", "assertText", "assertText", "wait", "assertText"};
	const char *expected[] = {"Welcome", "Hi", "All done", "Ready", NULL, "Total: 3"};
	const char *strategy[] = {"text", "id", "id", "text", "id", "id"};
	for (size_t i = 0; i < 6; i++) {
		json_t *st = json_array_get(steps, i);
		ck_assert_str_eq(json_string_value(json_object_get(st, "kind")), kinds[i]);
		json_t *loc = json_object_get(st, i == 4 ? "untilVisible" : "locator");
		ck_assert_str_eq(json_string_value(json_object_get(loc, "strategy")), strategy[i]);
		if (expected[i])
			ck_assert_str_eq(json_string_value(json_object_get(st, "expected")), expected[i]);
		else
			ck_assert_ptr_null(json_object_get(st, "expected"));
	}
	/* the flow run's assertion is on the screen the run was on */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(steps, 3), "screen")), "Done");
	json_t *sk = json_object_get(m, "skipped");
	ck_assert_int_eq(json_array_size(sk), 3);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_array_get(sk, 0), "reason")), "timed out"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_array_get(sk, 1), "reason")), "secret"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_array_get(sk, 2), "reason")), "${...}"));
	char *dump = json_dumps(m, 0);
	ck_assert_ptr_null(strstr(dump, "hunter2"));
	ck_assert_ptr_null(strstr(dump, SW_REDACTED_MARKER));
	free(dump);
	/* every target writes them: the flow asserts the text itself */
	size_t miss = 0;
	json_t *flow = sw__gen_flow_doc(m, "t", NULL, &miss);
	char *ft = json_dumps(flow, 0);
	ck_assert_ptr_nonnull(strstr(ft, "{\"assertVisible\": \"Welcome\"}"));
	ck_assert_ptr_nonnull(strstr(ft, "{\"assertVisible\": \"All done\"}"));
	ck_assert_ptr_null(strstr(ft, "${x}"));
	ck_assert_int_eq(miss, 0);
	free(ft);
	json_decref(flow);
	json_decref(m);
	json_decref(rec);
}
END_TEST

/* The appium plan on a recording without a device: the platform is the project profile's, else the default. */
static json_t *appium_plan(const char *root, const char *platform, const char *extra)
{
	json_t *rec =
	    json_pack("[{ss,ss,s{ss},s{ss,ss,s[iiii]},si}]", "tool", "qa_act", "action", "tap", "target", "id", "ok",
	              "element", "resourceId", "com.x:id/ok", "id", "ok", "bounds", 0, 0, 10, 10, "seq", 1);
	char opts[256];
	snprintf(opts, sizeof(opts), "{\"target\":\"appium\",\"mode\":\"plan\"%s}", extra ? extra : "");
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw__gen_run(NULL, NULL, NULL, NULL, rec, "com.x", platform, root, opts, &out, &err);
	ck_assert_msg(rc == SW_OK, "%s", err ? sw_error_message(err) : "?");
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	json_decref(rec);
	return res;
}

static const char *res_str(const json_t *res, const char *k)
{
	return json_string_value(json_object_get(res, k));
}

START_TEST(test_appium_platform_rule)
{
	char root[] = "/tmp/sw-gen-platform-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	/* nothing in the project, no device: the default, said as the default (never "session_device") */
	json_t *res = appium_plan(root, NULL, NULL);
	ck_assert_str_eq(res_str(res, "primaryPlatform"), "android");
	ck_assert_str_eq(res_str(res, "platformSource"), "default");
	json_decref(res);
	/* an iOS-only project: the project profile decides */
	char path[300];
	snprintf(path, sizeof(path), "%s/App.xcodeproj", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	res = appium_plan(root, NULL, NULL);
	ck_assert_str_eq(res_str(res, "primaryPlatform"), "ios");
	ck_assert_str_eq(res_str(res, "platformSource"), "project_profile");
	json_decref(res);
	/* the session's device wins over the project, the argument over both */
	res = appium_plan(root, "android", NULL);
	ck_assert_str_eq(res_str(res, "platformSource"), "session_device");
	ck_assert_str_eq(res_str(res, "primaryPlatform"), "android");
	json_decref(res);
	res = appium_plan(root, "ios", ",\"platform\":\"android\"");
	ck_assert_str_eq(res_str(res, "platformSource"), "argument");
	ck_assert_str_eq(res_str(res, "primaryPlatform"), "android");
	json_decref(res);
	/* the root given only as the session's default reaches the emitter: language auto reads the project */
	snprintf(path, sizeof(path), "%s/pytest.ini", root);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[pytest]\n", f);
	fclose(f);
	res = appium_plan(root, "android", ",\"language\":\"auto\"");
	json_t *rep = json_object_get(res, "appium");
	ck_assert_str_eq(res_str(rep, "language"), "python");
	ck_assert_str_eq(res_str(rep, "runner"), "pytest");
	json_decref(res);
	unlink(path);
	snprintf(path, sizeof(path), "%s/App.xcodeproj", root);
	rmdir(path);
	rmdir(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("generate");
	TCase *tc = tcase_create("text");
	tcase_add_test(tc, test_yaml_round_trip);
	tcase_add_test(tc, test_markdown);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_safe_parts);
	suite_add_tcase(s, tc);
	TCase *tm = tcase_create("model");
	tcase_add_test(tm, test_model_placeholders);
	tcase_add_test(tm, test_locator_order);
	tcase_add_test(tm, test_appium_platform_rule);
	tcase_add_test(tm, test_assertions);
	suite_add_tcase(s, tm);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
