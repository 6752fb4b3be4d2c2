/* check-autopilot.c: unit tests of the autopilot's risk classes: plain and hostile labels (case, full-width forms,
 * invisible characters, look-alike letters, labels split or glued, prices, resource ids), safe navigation. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session-rig.h"
#include "sw-internal.h"
#include <swipium/autopilot.h>
#include <swipium/explore.h>

struct want {
	const char *label, *id, *role, *level, *klass;
};

static void check_all(const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *klass = "unset";
		const char *level = sw_risk_classify(w[i].label, w[i].id, w[i].role, &klass);
		ck_assert_msg(!strcmp(level, w[i].level), "\"%s\" (id %s): level %s, want %s", w[i].label,
		              w[i].id ? w[i].id : "-", level, w[i].level);
		ck_assert_msg((!klass && !w[i].klass) || (klass && w[i].klass && !strcmp(klass, w[i].klass)),
		              "\"%s\": class %s, want %s", w[i].label, klass ? klass : "none",
		              w[i].klass ? w[i].klass : "none");
	}
}

START_TEST(high_impact_classes)
{
	static const struct want w[] = {
	    {"Delete account", NULL, "button", "destructive", "account_delete"},
	    {"Delete my account permanently", NULL, NULL, "destructive", "account_delete"},
	    {"Deactivate", NULL, NULL, "destructive", "account_delete"},
	    {"Log out", NULL, NULL, "destructive", "logout"},
	    {"Logout", NULL, NULL, "destructive", "logout"},
	    {"Sign out", NULL, NULL, "destructive", "logout"},
	    {"Upgrade to Pro", NULL, NULL, "destructive", "payment"},
	    {"Subscribe for $4.99/month", NULL, NULL, "destructive", "payment"},
	    {"Start free trial", NULL, NULL, "destructive", "payment"},
	    {"Buy now", NULL, NULL, "destructive", "payment"},
	    {"Pay", NULL, NULL, "destructive", "payment"},
	    {"Renew plan", NULL, NULL, "destructive", "payment"},
	    {"Checkout", NULL, NULL, "destructive", "payment"},
	    {"Proceed 9,99 \xe2\x82\xac", NULL, NULL, "destructive", "payment"}, /* 9,99 € */
	    {"Send", NULL, NULL, "destructive", "message_send"},
	    {"Send feedback", NULL, NULL, "destructive", "message_send"},
	    {"Post", NULL, NULL, "destructive", "message_send"},
	    {"Invite friends", NULL, NULL, "destructive", "external_invite"},
	    {"Share receipt", NULL, NULL, "destructive", "external_invite"},
	    {"Clear all receipts", NULL, NULL, "destructive", "bulk_delete"},
	    {"Delete all", NULL, NULL, "destructive", "bulk_delete"},
	    {"Allow", NULL, NULL, "destructive", "permission_change"},
	    {"Don't allow", NULL, NULL, "destructive", "permission_change"},
	    {"While using the app", NULL, NULL, "destructive", "permission_change"},
	    {"Only this time", NULL, NULL, "destructive", "permission_change"},
	    {"Export my data", NULL, NULL, "destructive", "data_export"},
	    {"Download your data", NULL, NULL, "destructive", "data_export"},
	};
	check_all(w, sizeof(w) / sizeof(w[0]));
}
END_TEST

START_TEST(hostile_labels)
{
	static const struct want w[] = {
	    /* case and spacing */
	    {"  DELETE   ACCOUNT  ", NULL, NULL, "destructive", "account_delete"},
	    {"delete-account", NULL, NULL, "destructive", "account_delete"},
	    /* invisible characters inside the words */
	    {"Dele\xe2\x80\x8bte acc\xc2\xadount", NULL, NULL, "destructive", "account_delete"},
	    {"Log\xe2\x80\x8dout", NULL, NULL, "destructive", "logout"},
	    /* full-width forms */
	    {"\xef\xbc\xa4\xef\xbd\x85\xef\xbd\x8c\xef\xbd\x85\xef\xbd\x94\xef\xbd\x85", NULL, NULL, "destructive",
	     NULL}, /* Ｄｅｌｅｔｅ */
	    /* Cyrillic look-alikes: "Dеlеtе аccount", "Lоg оut" */
	    {"D\xd0\xb5l\xd0\xb5t\xd0\xb5 \xd0\xb0\x63\x63ount", NULL, NULL, "destructive", "account_delete"},
	    {"L\xd0\xbeg \xd0\xbeut", NULL, NULL, "destructive", "logout"},
	    /* a word split in two, and no-break spaces */
	    {"Lo gout", NULL, NULL, "destructive", "logout"},
	    {"Sign\xc2\xa0out", NULL, NULL, "destructive", "logout"},
	    /* emoji and punctuation around the words */
	    {"\xf0\x9f\x97\x91\xef\xb8\x8f Delete!!!", NULL, NULL, "destructive", NULL},
	    /* destructive text far past any display cap */
	    {"Tap here to continue reading the terms of service and all the small print, then choose to remove "
	     "your account",
	     NULL, NULL, "destructive", "account_delete"},
	    /* the label says nothing, the resource id does */
	    {"", "com.example:id/btnDeleteAccount", NULL, "destructive", "account_delete"},
	    {"", "com.example:id/logout_button", NULL, "destructive", "logout"},
	    {"Continue", "com.example:id/purchase_continue", NULL, "destructive", "payment"},
	    /* a negation is still about deleting: never touched */
	    {"Don't delete", NULL, NULL, "destructive", NULL},
	    /* invalid UTF-8 does not hide the words around it */
	    {"Delete \xff\xfe account", NULL, NULL, "destructive", "account_delete"},
	};
	check_all(w, sizeof(w) / sizeof(w[0]));
}
END_TEST

START_TEST(safe_and_unknown)
{
	static const struct want w[] = {
	    {"Navigate up", NULL, "button", "safe", NULL},
	    {"Skip", NULL, NULL, "safe", NULL},
	    {"Next", NULL, NULL, "safe", NULL},
	    {"Get started", NULL, NULL, "safe", NULL},
	    {"Settings", NULL, NULL, "safe", NULL},
	    {"Profile", NULL, NULL, "safe", NULL},
	    {"Insights", NULL, NULL, "safe", NULL},
	    {"Reports", NULL, NULL, "safe", NULL},
	    {"Posts", NULL, NULL, "safe", NULL},
	    {"Address", NULL, NULL, "safe", NULL},
	    {"Corner Coffee  3.20", NULL, NULL, "safe", NULL},
	    {"Cancel", NULL, NULL, "safe", NULL},
	    {"Not now", NULL, NULL, "safe", NULL},
	    {"About", "com.example:id/about", NULL, "safe", NULL},
	    {"Sign in", NULL, NULL, "unknown", NULL},
	    {"Create account", NULL, NULL, "unknown", NULL},
	    {"Save", NULL, NULL, "unknown", NULL},
	    {"Edit profile", NULL, NULL, "unknown", NULL},
	    {"Email", NULL, "text-field", "unknown", NULL},
	    {"", NULL, NULL, "unknown", NULL},
	    {NULL, NULL, NULL, "unknown", NULL},
	};
	check_all(w, sizeof(w) / sizeof(w[0]));
	ck_assert_str_eq(sw_risk_classify("Delete", NULL, NULL, NULL), "destructive"); /* class pointer optional */
}
END_TEST

/* ---- the test_this_plan consent of a plan (plan-consent.c) ---- */

static json_t *consent_of(sw_session *s, json_t *plan)
{
	char *pj = json_dumps(plan, JSON_COMPACT), *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_test_plan_consent(s, pj, &out, &err), SW_OK);
	json_t *r = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(r);
	free(pj);
	sw_free(out);
	return r;
}

START_TEST(plan_consent)
{
	struct session_rig rig;
	session_rig_open(&rig, "autopilot");
	sw_session *s = rig.s;
	const char *home = rig.home, *root = rig.root;

	/* no plan; a plan without a session asks nothing here and binds no session */
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_test_plan_consent(NULL, "{}", &out, &err), SW_OK);
	ck_assert_str_eq(out, "{\"required\":false}");
	sw_free(out);
	out = NULL;
	ck_assert_int_eq(sw_test_plan_consent(s, "[1", &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	ck_assert_ptr_null(out);
	sw_error_free(err);

	/* nothing privileged: none asked */
	json_t *plan = json_pack("{s:s,s:{s:b,s:s,s:s,s:[]}}", "projectRoot", root, "consent", "required", 0, "action",
	                         "test_this_plan", "risk", "low", "steps");
	json_t *r = consent_of(s, plan);
	ck_assert(json_is_false(json_object_get(r, "required")));
	ck_assert_uint_eq(json_object_size(r), 1);
	json_decref(r);
	json_decref(plan);

	/* qa_test_this, an APK from outside the project (a path with a space and a quote): named by its content,
	 * its argv whole in the commands */
	char *apk = sw__path_join(home, "out side's.apk");
	FILE *f = fopen(apk, "w");
	ck_assert_ptr_nonnull(f);
	fputs("not really an apk", f);
	fclose(f);
	char hex[65];
	ck_assert_int_eq(sw_sha256_file_hex(apk, hex, NULL, NULL), SW_OK);
	plan = json_pack("{s:s,s:{s:b,s:s,s:s,s:[{s:s,s:s,s:[s,s,s,s,s,s],s:s}]},s:{s:s,s:s,s:b},s:{s:{s:s}}}",
	                 "projectRoot", root, "consent", "required", 1, "action", "test_this_plan", "risk", "medium",
	                 "steps", "kind", "install", "risk", "medium", "argv", "adb", "-s", "emulator-5554", "install", "-r",
	                 apk, "origin", "the artifact", "artifactChoice", "path", apk, "appId", "com.example.login",
	                 "insideProjectRoot", 0, "targetChoice", "selected", "serial", "emulator-5554");
	r = consent_of(s, plan);
	ck_assert(json_is_true(json_object_get(r, "required")));
	ck_assert_str_eq(json_string_value(json_object_get(r, "action")), "test_this_plan");
	ck_assert_str_eq(json_string_value(json_object_get(r, "risk")), "medium");
	const char *explain = json_string_value(json_object_get(r, "explain"));
	ck_assert_ptr_nonnull(strstr(explain, "Run qa_test_this on "));
	ck_assert_ptr_nonnull(strstr(explain, "install an APK from outside the project"));
	json_t *aff = json_object_get(r, "affects");
	ck_assert_str_eq(json_string_value(json_object_get(aff, "sessionId")), sw_session_id(s));
	ck_assert_str_eq(json_string_value(json_object_get(aff, "sha256")), hex);
	ck_assert_str_eq(json_string_value(json_object_get(aff, "apk")), apk);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(aff, "target"), "serial")), "emulator-5554");
	ck_assert_ptr_null(json_object_get(aff, "feature"));
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(aff, "steps"), 0), "kind")),
	                 "install");
	json_t *argv = json_object_get(json_array_get(json_object_get(r, "commands"), 0), "argv");
	ck_assert_uint_eq(json_array_size(argv), 6);
	ck_assert_str_eq(json_string_value(json_array_get(argv, 5)), apk);
	json_decref(r);
	json_decref(plan);

	/* qa_test_feature: the preparation is its bootstrap plan; a 300-character title is capped in the explain
	 * without splitting a character */
	sw_buf t = SW_BUF_INIT;
	for (int i = 0; i < 300; i++)
		sw__buf_puts(&t, "\xc3\xa9");
	char *title = sw__buf_steal(&t, NULL);
	plan = json_pack("{s:s,s:s,s:s,s:{s:b,s:s,s:s,s:[{s:s,s:s,s:[s],s:s}]},s:{s:{s:s,s:s,s:b}}}", "projectRoot",
	                 root, "featureId", "settings", "featureTitle", title, "consent", "required", 1, "action",
	                 "test_this_plan", "risk", "low", "steps", "kind", "install", "risk", "low", "argv", "adb", "origin",
	                 "the project's APK", "bootstrap", "artifactChoice", "path", "/x/app.apk", "appId", "com.example",
	                 "insideProjectRoot", 1);
	r = consent_of(s, plan);
	explain = json_string_value(json_object_get(r, "explain"));
	ck_assert_ptr_nonnull(strstr(explain, "Prepare the emulator for qa_test_feature on "));
	ck_assert_ptr_nonnull(strstr(explain, "install the project's APK"));
	ck_assert_ptr_nonnull(strstr(explain, SW_CAP_MARKER));
	ck_assert_ptr_null(strstr(explain, title)); /* capped */
	ck_assert(sw_text_is_valid(explain, strlen(explain)));
	aff = json_object_get(r, "affects");
	ck_assert_str_eq(json_string_value(json_object_get(aff, "feature")), "settings");
	ck_assert(json_is_true(json_object_get(aff, "insideProjectRoot")));
	ck_assert_ptr_null(json_object_get(aff, "sha256"));
	json_decref(r);
	r = consent_of(NULL, plan); /* without a session: the same request, no sessionId bound */
	ck_assert_ptr_null(json_object_get(json_object_get(r, "affects"), "sessionId"));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "affects"), "feature")), "settings");
	json_decref(r);
	json_decref(plan);

	unlink(apk);
	free(title);
	free(apk);
	session_rig_close(&rig);
}
END_TEST

static Suite *autopilot_suite(void)
{
	Suite *s = suite_create("autopilot");
	TCase *tc = tcase_create("risk");
	tcase_add_test(tc, high_impact_classes);
	tcase_add_test(tc, hostile_labels);
	tcase_add_test(tc, safe_and_unknown);
	suite_add_tcase(s, tc);
	tc = tcase_create("plan-consent");
	tcase_add_test(tc, plan_consent);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(autopilot_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
