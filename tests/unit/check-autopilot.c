/* check-autopilot.c: unit tests of the autopilot's risk classes: plain and hostile labels (case, full-width forms,
 * invisible characters, look-alike letters, labels split or glued, prices, resource ids), safe navigation. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"
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

static Suite *autopilot_suite(void)
{
	Suite *s = suite_create("autopilot");
	TCase *tc = tcase_create("risk");
	tcase_add_test(tc, high_impact_classes);
	tcase_add_test(tc, hostile_labels);
	tcase_add_test(tc, safe_and_unknown);
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
