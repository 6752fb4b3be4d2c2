/* check-consent.c: unit tests of the consent gate: ids, binding, expiry, pre-approval, prompts, refusals, ledger. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../libswipium/consent/consent-internal.h"

static int64_t fake_now = 1700000000000;

static int64_t fake_clock(void *ud)
{
	(void)ud;
	return fake_now;
}

static void clear_env(void)
{
	unsetenv("SWIPIUM_CONSENT_PREAPPROVE");
	unsetenv("SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE");
	unsetenv("SWIPIUM_REQUIRE_ELICITATION");
}

static sw_consent_store *new_store(void)
{
	clear_env();
	sw_consent_store *s = NULL;
	ck_assert_int_eq(sw_consent_store_new(NULL, &s, NULL), SW_OK);
	sw__consent_store_set_clock(s, fake_clock, NULL);
	return s;
}

/* Runs the gate; returns the parsed result (SW_OK) or NULL and the error in *err. */
static json_t *gate(sw_consent_store *s, const char *req, sw_error **err)
{
	char *out = NULL;
	int rc = sw_consent_gate(s, req, &out, err);
	if (rc != SW_OK) {
		ck_assert_ptr_null(out);
		return NULL;
	}
	json_error_t je;
	json_t *v = json_loads(out, 0, &je);
	ck_assert_ptr_nonnull(v);
	free(out);
	return v;
}

/* Mints an envelope for session @sid and target @target; returns its consentId (caller frees). */
static char *mint(sw_consent_store *s, const char *sid, const char *action, const char *target)
{
	char req[512];
	snprintf(req, sizeof(req),
	         "{\"sessionId\":\"%s\",\"tool\":\"qa_app_control\",\"action\":\"%s\",\"explain\":\"wipe\","
	         "\"affects\":{\"appId\":\"%s\"}}",
	         sid, action, target);
	json_t *v = gate(s, req, NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert(json_is_true(json_object_get(v, "requiresConsent")));
	char *id = strdup(json_string_value(json_object_get(json_object_get(v, "envelope"), "consentId")));
	json_decref(v);
	return id;
}

static json_t *redeem(sw_consent_store *s, const char *sid, const char *action, const char *target, const char *id,
                      const char *approve, sw_error **err)
{
	char req[512];
	snprintf(req, sizeof(req),
	         "{\"sessionId\":\"%s\",\"tool\":\"qa_app_control\",\"action\":\"%s\",\"explain\":\"wipe\","
	         "\"affects\":{\"appId\":\"%s\"},\"consentId\":\"%s\",\"approve\":%s}",
	         sid, action, target, id, approve);
	return gate(s, req, err);
}

START_TEST(test_envelope_and_single_use)
{
	sw_consent_store *s = new_store();
	json_t *v =
	    gate(s,
	         "{\"sessionId\":\"s1\",\"tool\":\"qa_app_control\",\"action\":\"app_clear_data\",\"explain\":"
	         "\"Clears app data\",\"exactCommand\":\"adb shell pm clear com.x\",\"affects\":{\"appId\":\"com.x\"}}",
	         NULL);
	ck_assert_ptr_nonnull(v);
	json_t *env = json_object_get(v, "envelope");
	const char *id = json_string_value(json_object_get(env, "consentId"));
	ck_assert_uint_eq(strlen(id), 32);
	ck_assert_str_eq(json_string_value(json_object_get(env, "risk")), "high");
	char next[128];
	snprintf(next, sizeof(next), "To approve, re-call this tool with consentId=\"%s\" and approve=true", id);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(env, "next"), 0)), next);
	const char *text = json_string_value(json_object_get(v, "text"));
	ck_assert_ptr_nonnull(
	    strstr(text, "\xf0\x9f\x94\x90 Consent required (high): Clears app data\nWill run: adb shell pm "
	                 "clear com.x\nTo approve, re-call this tool with consentId=\""));
	ck_assert_ptr_nonnull(strstr(text, "and approve=true.\n\n```json\n{\n  \"requiresConsent\": true,"));
	json_t *row = json_object_get(v, "ledgerRow");
	ck_assert_str_eq(json_string_value(json_object_get(row, "status")), "requested");
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(row, "id"))), 8);
	ck_assert_uint_eq(sw_consent_store_pending(s), 1);

	char *cid = strdup(id);
	json_decref(v);
	v = redeem(s, "s1", "app_clear_data", "com.x", cid, "true", NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	ck_assert_str_eq(json_string_value(json_object_get(v, "mechanism")), "client-assertion");
	row = json_object_get(v, "ledgerRow");
	ck_assert_str_eq(json_string_value(json_object_get(row, "status")), "approved");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(row, "consent"), "approvalMechanism")),
	                 "client-assertion");
	json_decref(v);
	ck_assert_uint_eq(sw_consent_store_pending(s), 0);

	/* reuse: refused, a fresh challenge says why */
	v = redeem(s, "s1", "app_clear_data", "com.x", cid, "true", NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_null(json_object_get(v, "approved"));
	env = json_object_get(v, "envelope");
	ck_assert_str_eq(json_string_value(json_object_get(env, "consentNote")), "unknown or already-used consentId");
	ck_assert_str_eq(json_string_value(json_object_get(env, "previousConsentId")), cid);
	ck_assert_str_ne(json_string_value(json_object_get(env, "consentId")), cid);
	json_decref(v);
	free(cid);
	sw_consent_store_free(s);
}
END_TEST

START_TEST(test_forged_and_binding)
{
	sw_consent_store *s = new_store();
	char *id = mint(s, "A", "app_clear_data", "com.x");
	/* forged ids */
	const char *forged[] = {"00000000000000000000000000000000", "", "../../etc", "'; DROP", NULL};
	for (size_t i = 0; forged[i]; i++) {
		json_t *v = redeem(s, "A", "app_clear_data", "com.x", forged[i], "true", NULL);
		ck_assert_ptr_nonnull(v);
		ck_assert_ptr_null(json_object_get(v, "approved"));
		json_decref(v);
	}
	/* each forged attempt minted a fresh challenge; the original is still there */
	ck_assert_uint_eq(sw_consent_store_pending(s), 5);

	/* another session: refused and the id is NOT burned */
	json_t *v = redeem(s, "B", "app_clear_data", "com.x", id, "true", NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "envelope"), "consentNote")),
	                 "consent was issued for a different session");
	json_decref(v);
	/* another action */
	v = redeem(s, "A", "app_fresh_start", "com.x", id, "true", NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "envelope"), "consentNote")),
	                 "consent is for \"app_clear_data\", not \"app_fresh_start\"");
	json_decref(v);
	/* another target */
	v = redeem(s, "A", "app_clear_data", "com.evil", id, "true", NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "envelope"), "consentNote")),
	                 "consent does not match the affected target");
	json_decref(v);
	/* no session at all while it was issued in one */
	v = gate(
	    s,
	    "{\"tool\":\"qa_app_control\",\"action\":\"app_clear_data\",\"explain\":\"wipe\",\"affects\":{\"appId\":"
	    "\"com.x\"},\"consentId\":\"x\",\"approve\":true}",
	    NULL);
	json_decref(v);
	/* after all that, the rightful owner can still use it, once */
	v = redeem(s, "A", "app_clear_data", "com.x", id, "true", NULL);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	json_decref(v);
	free(id);
	sw_consent_store_free(s);
}
END_TEST

START_TEST(test_targets_canonical)
{
	sw_consent_store *s = new_store();
	json_t *v =
	    gate(s,
	         "{\"sessionId\":\"A\",\"tool\":\"t\",\"action\":\"geo_set\",\"explain\":\"e\",\"affects\":{\"lat\":1,"
	         "\"lng\":{\"b\":2,\"a\":3}}}",
	         NULL);
	char *id = strdup(json_string_value(json_object_get(json_object_get(v, "envelope"), "consentId")));
	json_decref(v);
	char req[512];
	/* same targets, keys in another order: JSON-equal, accepted */
	snprintf(req, sizeof(req),
	         "{\"sessionId\":\"A\",\"tool\":\"t\",\"action\":\"geo_set\",\"explain\":\"other words\",\"affects\":{"
	         "\"lng\":{\"a\":3,\"b\":2},\"lat\":1},\"consentId\":\"%s\",\"approve\":true}",
	         id);
	v = gate(s, req, NULL);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	json_decref(v);
	free(id);
	sw_consent_store_free(s);
}
END_TEST

START_TEST(test_expiry_and_cap)
{
	sw_consent_store *s = new_store();
	char *id = mint(s, "A", "geo_set", "t");
	fake_now += SW_CONSENT_TTL_MS - 1;
	char *id2 = mint(s, "A", "geo_set", "t");
	fake_now += 1;
	json_t *v = redeem(s, "A", "geo_set", "t", id, "true", NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "envelope"), "consentNote")),
	                 "consent expired; re-call without consentId for a fresh challenge");
	json_decref(v);
	v = redeem(s, "A", "geo_set", "t", id2, "true", NULL);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	json_decref(v);
	free(id);
	free(id2);

	/* at most 200 pending: the oldest is dropped */
	char *first = mint(s, "A", "geo_set", "t0");
	for (int i = 1; i < 200; i++)
		free(mint(s, "A", "geo_set", "tx"));
	ck_assert_uint_eq(sw_consent_store_pending(s), 200);
	free(mint(s, "A", "geo_set", "tx"));
	ck_assert_uint_eq(sw_consent_store_pending(s), 200);
	v = redeem(s, "A", "geo_set", "t0", first, "true", NULL);
	ck_assert_ptr_null(json_object_get(v, "approved"));
	json_decref(v);
	free(first);
	sw_consent_store_free(s);
}
END_TEST

START_TEST(test_decline_by_approve_false)
{
	sw_consent_store *s = new_store();
	char *id = mint(s, "A", "install_app", "com.x");
	sw_error *err = NULL;
	json_t *v = redeem(s, "A", "install_app", "com.x", id, "false", &err);
	ck_assert_ptr_null(v);
	ck_assert_int_eq(sw_error_code(err), SW_EDENIED);
	ck_assert_str_eq(sw_error_failure_code(err), "CONSENT_DECLINED");
	json_error_t je;
	json_t *d = json_loads(sw_error_details_json(err), 0, &je);
	ck_assert(json_is_false(json_object_get(d, "retrySafe")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(d, "ledgerRow"), "status")), "refused");
	json_decref(d);
	sw_error_free(err);
	/* burned */
	ck_assert_uint_eq(sw_consent_store_pending(s), 0);
	free(id);
	sw_consent_store_free(s);
}
END_TEST

START_TEST(test_require_elicitation)
{
	sw_consent_store *s = new_store();
	setenv("SWIPIUM_REQUIRE_ELICITATION", " 1 ", 1);
	sw_error *err = NULL;
	json_t *v =
	    gate(s, "{\"sessionId\":\"A\",\"tool\":\"qa_metro\",\"action\":\"start_metro\",\"explain\":\"e\"}", &err);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(sw_error_failure_code(err), "CONSENT_REFUSED");
	json_error_t je;
	json_t *d = json_loads(sw_error_details_json(err), 0, &je);
	ck_assert(json_is_false(json_object_get(d, "retrySafe")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(d, "ledgerRow"), "consent"),
	                                                   "approvalMechanism")),
	                 "policy");
	json_decref(d);
	sw_error_free(err);
	ck_assert_uint_eq(sw_consent_store_pending(s), 0);
	/* pre-approval still wins */
	setenv("SWIPIUM_CONSENT_PREAPPROVE", "geo_set", 1);
	v = gate(s, "{\"sessionId\":\"A\",\"tool\":\"qa_geolocation\",\"action\":\"geo_set\",\"explain\":\"e\"}", NULL);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	ck_assert_str_eq(json_string_value(json_object_get(v, "mechanism")), "operator-policy");
	json_decref(v);
	clear_env();
	sw_consent_store_free(s);
}
END_TEST

START_TEST(test_preapproval_rules)
{
	sw_consent_store *s = new_store();
	setenv("SWIPIUM_CONSENT_PREAPPROVE", "install_app, build_from_source wda_non_loopback,instal-app,*,risk<=high",
	       1);
	char *rep = NULL;
	ck_assert_int_eq(sw_consent_preapproval_json(&rep, NULL), SW_OK);
	json_error_t je;
	json_t *r = json_loads(rep, 0, &je);
	free(rep);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(r, "honoured"), 0)), "install_app");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "honoured")), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "blocked")), 2);
	json_t *unknown = json_object_get(r, "unknown");
	ck_assert_uint_eq(json_array_size(unknown), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(unknown, 0), "suggestion")), "install_app");
	ck_assert_ptr_null(json_object_get(json_array_get(unknown, 1), "suggestion"));
	json_decref(r);

	/* a run-code action needs the RUN_CODE tier */
	sw_error *err = NULL;
	json_t *v = gate(s, "{\"tool\":\"qa_build\",\"action\":\"build_from_source\",\"explain\":\"e\"}", &err);
	ck_assert(json_is_true(json_object_get(v, "requiresConsent")));
	json_decref(v);
	setenv("SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE", "1", 1);
	v = gate(s, "{\"tool\":\"qa_build\",\"action\":\"build_from_source\",\"explain\":\"e\"}", &err);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	json_decref(v);
	/* wda_non_loopback: never, whatever the tier */
	v = gate(s, "{\"tool\":\"qa_wda\",\"action\":\"wda_non_loopback\",\"explain\":\"e\"}", &err);
	ck_assert(json_is_true(json_object_get(v, "requiresConsent")));
	json_decref(v);

	/* test_this_plan covers a build step only when build_from_source itself is honoured */
	setenv("SWIPIUM_CONSENT_PREAPPROVE", "test_this_plan", 1);
	const char *plan =
	    "{\"tool\":\"qa_test_this\",\"action\":\"test_this_plan\",\"explain\":\"e\","
	    "\"exactCommand\":\"\\u2022 build: ./gradlew assembleDebug\\n\\u2022 install: adb install x.apk\"}";
	v = gate(s, plan, &err);
	ck_assert(json_is_true(json_object_get(v, "requiresConsent")));
	json_decref(v);
	setenv("SWIPIUM_CONSENT_PREAPPROVE", "test_this_plan,build_from_source", 1);
	v = gate(s, plan, &err);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	json_decref(v);
	setenv("SWIPIUM_CONSENT_PREAPPROVE", "test_this_plan", 1);
	v = gate(s,
	         "{\"tool\":\"qa_test_this\",\"action\":\"test_this_plan\",\"explain\":\"e\",\"affects\":{\"steps\":[{"
	         "\"kind\":\"boot\"},{\"kind\":\"install\"}]}}",
	         &err);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	json_decref(v);
	ck_assert_ptr_null(err);
	clear_env();
	sw_consent_store_free(s);
}
END_TEST

START_TEST(test_suggestions)
{
	ck_assert_str_eq(sw__consent_suggest("Install-App"), "install_app");
	ck_assert_str_eq(sw__consent_suggest("geo.sett"), "geo_set");
	ck_assert_str_eq(sw__consent_suggest("network change"), "network_change");
	ck_assert_ptr_null(sw__consent_suggest("rm -rf"));
	ck_assert_uint_eq(sw__consent_edit_distance("kitten", "sitting"), 3);
}
END_TEST

/* ---- host prompts ---------------------------------------------------- */

typedef struct host_state {
	const char *answer; /* JSON to return */
	int rc;
	int calls;
	char *last_request;
	sw_consent_store *store;
	char *reentrant_id; /* consentId seen while the prompt was open */
} host_state;

static int ask(void *ud, const char *request_json, char **answer_json)
{
	host_state *h = ud;
	h->calls++;
	free(h->last_request);
	h->last_request = strdup(request_json);
	json_error_t je;
	json_t *req = json_loads(request_json, 0, &je);
	h->reentrant_id = strdup(json_string_value(json_object_get(req, "consentId")));
	json_decref(req);
	if (h->store) {
		/* while the prompt is open, an approve:true re-call must not answer it */
		char r[512];
		snprintf(r, sizeof(r),
		         "{\"sessionId\":\"A\",\"tool\":\"t\",\"action\":\"screen_record\",\"explain\":\"e\","
		         "\"consentId\":\"%s\",\"approve\":true}",
		         h->reentrant_id);
		char *out = NULL;
		sw_error *err = NULL;
		int rc = sw_consent_gate(h->store, r, &out, &err);
		ck_assert_int_eq(rc, SW_EDENIED);
		ck_assert_str_eq(sw_error_failure_code(err), "CONSENT_REFUSED");
		ck_assert_ptr_nonnull(strstr(sw_error_message(err), "awaiting the out-of-band user prompt"));
		sw_error_free(err);
	}
	if (h->rc != SW_OK)
		return h->rc;
	*answer_json = strdup(h->answer);
	return SW_OK;
}

static json_t *gate_elicit(sw_consent_store *s, host_state *h, sw_error **err)
{
	sw_host_ops ops = {SW_HOST_OPS_VERSION, ask};
	ck_assert_int_eq(sw_consent_store_set_host(s, &ops, h, NULL), SW_OK);
	return gate(
	    s, "{\"sessionId\":\"A\",\"tool\":\"t\",\"action\":\"screen_record\",\"explain\":\"e\",\"canElicit\":true}",
	    err);
}

START_TEST(test_host_outcomes)
{
	sw_consent_store *s = new_store();
	host_state h = {.answer = "{\"action\":\"accept\",\"content\":{\"approve\":true},\"answeredInMs\":9000}"};
	h.store = s;
	json_t *v = gate_elicit(s, &h, NULL);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	ck_assert_str_eq(json_string_value(json_object_get(v, "mechanism")), "elicitation");
	json_decref(v);
	ck_assert_ptr_nonnull(strstr(h.last_request,
	                             "\"message\":\"Swipium requests consent (risk: \\\"medium\\\") for "
	                             "action \\\"screen_record\\\".\\nDetails: \\\"e\\\"\""));
	ck_assert_uint_eq(sw_consent_store_pending(s), 0);
	h.store = NULL;
	/* the prompt's consent id is spent */
	v = redeem(s, "A", "screen_record", "x", h.reentrant_id, "true", NULL);
	ck_assert_ptr_null(json_object_get(v, "approved"));
	json_decref(v);

	struct {
		const char *answer;
		int rc;
		const char *code;
		bool retry_safe, automatic, failure;
	} cases[] = {
	    {"{\"action\":\"accept\",\"content\":{\"approve\":false},\"answeredInMs\":5000}", SW_OK, "CONSENT_DECLINED",
	     false, false, false},
	    {"{\"action\":\"decline\",\"answeredInMs\":20}", SW_OK, "CONSENT_DECLINED", false, true, false},
	    {"{\"action\":\"cancel\",\"answeredInMs\":3000}", SW_OK, "CONSENT_CANCELLED", true, false, false},
	    {"not json", SW_OK, "CONSENT_CANCELLED", true, false, true},
	    {NULL, SW_ETIMEOUT, "CONSENT_CANCELLED", true, false, true},
	    {NULL, SW_EIO, "CONSENT_CANCELLED", true, false, true},
	    {NULL, SW_ECANCELLED, "CONSENT_CANCELLED", true, false, true},
	};
	size_t before = sw_consent_store_pending(s);
	for (size_t i = 0; i < SW_ARRAY_SIZE(cases); i++) {
		free(h.reentrant_id);
		h.reentrant_id = NULL;
		h.answer = cases[i].answer;
		h.rc = cases[i].rc;
		sw_error *err = NULL;
		v = gate_elicit(s, &h, &err);
		ck_assert_ptr_null(v);
		ck_assert_str_eq(sw_error_failure_code(err), cases[i].code);
		json_error_t je;
		json_t *d = json_loads(sw_error_details_json(err), 0, &je);
		ck_assert_int_eq(json_is_true(json_object_get(d, "retrySafe")), cases[i].retry_safe);
		ck_assert_int_eq(json_is_true(json_object_get(d, "likelyAutomatic")), cases[i].automatic);
		ck_assert_int_eq(json_object_get(d, "elicitationFailure") != NULL, cases[i].failure);
		ck_assert_ptr_nonnull(json_object_get(d, "answeredInMs"));
		ck_assert_str_eq(json_string_value(json_object_get(d, "action")), "screen_record");
		/* only likelyAutomatic errors name the pre-approval variable */
		ck_assert_int_eq(strstr(sw_error_hint(err), "SWIPIUM_CONSENT_PREAPPROVE") != NULL, cases[i].automatic);
		json_decref(d);
		sw_error_free(err);
		ck_assert_uint_eq(sw_consent_store_pending(s), before);
	}
	free(h.reentrant_id);
	free(h.last_request);
	sw_consent_store_free(s);
}
END_TEST

START_TEST(test_deferred_prompt)
{
	sw_consent_store *s = new_store();
	const char *req = "{\"sessionId\":\"A\",\"tool\":\"t\",\"action\":\"network_change\",\"explain\":\"offline\","
	                  "\"canElicit\":true,\"affects\":{\"mode\":\"offline\"}}";
	json_t *v = gate(s, req, NULL);
	ck_assert(json_is_true(json_object_get(v, "elicitationRequired")));
	char *id = strdup(json_string_value(json_object_get(v, "consentId")));
	ck_assert_ptr_nonnull(json_object_get(json_object_get(v, "elicitation"), "requestedSchema"));
	json_decref(v);
	/* approve:true cannot answer the open prompt */
	sw_error *err = NULL;
	char r[512];
	snprintf(r, sizeof(r),
	         "{\"sessionId\":\"A\",\"tool\":\"t\",\"action\":\"network_change\",\"explain\":\"offline\","
	         "\"affects\":{\"mode\":\"offline\"},\"consentId\":\"%s\",\"approve\":true}",
	         id);
	v = gate(s, r, &err);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(sw_error_failure_code(err), "CONSENT_REFUSED");
	sw_error_free(err);
	err = NULL;
	ck_assert_uint_eq(sw_consent_store_pending(s), 1);
	/* an answer from another session does not burn it */
	snprintf(r, sizeof(r),
	         "{\"sessionId\":\"B\",\"tool\":\"t\",\"action\":\"network_change\",\"explain\":\"offline\","
	         "\"affects\":{\"mode\":\"offline\"},\"consentId\":\"%s\",\"elicitationAnswer\":{\"action\":\"accept\","
	         "\"content\":{\"approve\":true}}}",
	         id);
	v = gate(s, r, &err);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(sw_error_failure_code(err), "CONSENT_CANCELLED");
	sw_error_free(err);
	ck_assert_uint_eq(sw_consent_store_pending(s), 1);
	/* the real answer */
	snprintf(r, sizeof(r),
	         "{\"sessionId\":\"A\",\"tool\":\"t\",\"action\":\"network_change\",\"explain\":\"offline\","
	         "\"affects\":{\"mode\":\"offline\"},\"consentId\":\"%s\",\"elicitationAnswer\":{\"action\":\"accept\","
	         "\"content\":{\"approve\":true}}}",
	         id);
	v = gate(s, r, NULL);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	ck_assert_str_eq(json_string_value(json_object_get(v, "mechanism")), "elicitation");
	json_decref(v);
	/* replayed answer */
	err = NULL;
	v = gate(s, r, &err);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(sw_error_failure_code(err), "CONSENT_CANCELLED");
	sw_error_free(err);
	free(id);
	sw_consent_store_free(s);
}
END_TEST

/* ---- prompts ---------------------------------------------------------- */

static bool has_forbidden(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		uint32_t cp;
		size_t k = sw__utf8_decode(p, strlen((const char *)p), &cp);
		ck_assert_uint_gt(k, 0);
		if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
		    (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
		    (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF)
			return true;
		p += k;
	}
	return false;
}

START_TEST(test_sanitize)
{
	char *out;
	const char *in = "  line1\nline2\r\n\tRLO:\xe2\x80\xae"
	                 "evil\xe2\x80\xac zw\xe2\x80\x8bsp\xef\xbb\xbf LS\xe2\x80\xa8 end  ";
	ck_assert_int_eq(sw_consent_sanitize(in, strlen(in), 100, &out, NULL), SW_OK);
	ck_assert_str_eq(out, "line1 line2 RLO: evil zw sp LS end");
	free(out);
	ck_assert_int_eq(sw_consent_sanitize("abcdef", 6, 4, &out, NULL), SW_OK);
	ck_assert_str_eq(out, "abc\xe2\x80\xa6");
	free(out);
	ck_assert_int_eq(sw_consent_sanitize("abcd", 4, 4, &out, NULL), SW_OK);
	ck_assert_str_eq(out, "abcd");
	free(out);
	ck_assert_int_eq(sw_consent_sanitize("a\xff"
	                                     "b",
	                                     3, 10, &out, NULL),
	                 SW_OK);
	ck_assert_str_eq(out, "a\xef\xbf\xbd"
	                      "b");
	free(out);
}
END_TEST

START_TEST(test_prompt_hostile)
{
	/* a 10 MB explain full of newlines, bidi overrides and zero-width characters, and a 10 MB command step */
	size_t big = 10u << 20;
	char *explain = malloc(big + 1);
	char *step = malloc(big + 1);
	const char pat[] = "x\n\xe2\x80\xae\xe2\x80\x8b\"}";
	const char spat[] = "y\r\xe2\x80\xae\xe2\x81\xa6\xc2\x85";
	for (size_t i = 0; i < big; i++) {
		explain[i] = pat[i % (sizeof(pat) - 1)];
		step[i] = spat[i % (sizeof(spat) - 1)];
	}
	explain[big] = step[big] = '\0';
	json_t *req = json_pack("{s:s, s:s, s:s, s:s, s:[s, s, s, s, s, s]}", "tool", "qa_flow_run", "action",
	                        "flow_mutation_run", "risk", "high", "explain", explain, "exactCommand",
	                        "sh -c 'echo hi'\nFake line: \"Approve\"", "   ", "step3", step, "step5", "step6");
	free(explain);
	free(step);
	char *req_text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	char *prompt = NULL;
	ck_assert_int_eq(sw_consent_prompt(req_text, &prompt, NULL), SW_OK);
	json_error_t je;
	json_t *p = json_loads(prompt, 0, &je);
	free(prompt);
	const char *msg = json_string_value(json_object_get(p, "message"));
	ck_assert_uint_le(sw__utf16_len(msg, strlen(msg)), 2000);
	/* exactly the line structure we wrote: no line break came from the repository */
	size_t lines = 1;
	for (const char *q = msg; *q; q++)
		lines += *q == '\n';
	ck_assert_msg(lines == 8, "prompt has %zu lines:\n%s", lines, msg);
	ck_assert(sw__str_has_prefix(msg,
	                             "Swipium requests consent (risk: \"high\") for action \"flow_mutation_run\".\n"
	                             "Details: \"x "));
	ck_assert_ptr_nonnull(strstr(msg, "\n  \"sh -c 'echo hi'\"\n  \"Fake line: \\\"Approve\\\"\"\n"));
	ck_assert_ptr_nonnull(strstr(msg, "(and 2 more step(s) not shown)"));
	/* each repo value is capped: the details line holds at most 600 characters inside its quotes */
	const char *d = strstr(msg, "Details: ");
	const char *e = strchr(d, '\n');
	ck_assert_uint_le((size_t)(e - d), strlen("Details: ") + 2 + 600 * 3);
	/* remove our own newlines and nothing forbidden is left */
	char *copy = strdup(msg);
	for (char *q = copy; *q; q++)
		if (*q == '\n')
			*q = ' ';
	ck_assert(!has_forbidden(copy));
	free(copy);
	json_t *schema = json_object_get(p, "requestedSchema");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(schema, "required"), 0)), "approve");
	json_decref(p);

	/* the gate works on the 10 MB request as well, linearly, and refuses it: a 10 MB step cannot be shown */
	sw_consent_store *s = new_store();
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_consent_gate(s, req_text, &out, &err), SW_EDENIED);
	ck_assert_str_eq(sw_error_failure_code(err), "UNSAFE_ACTION_REFUSED");
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "at most 500 per step"));
	sw_error_free(err);
	sw_consent_store_free(s);
	free(req_text);
}
END_TEST

/* Commands given as argv lists: quoted whole, hidden characters spelled out, refused when a prompt could not
 * show them all (issue 11 item 2). */
START_TEST(test_commands_shown_whole_or_refused)
{
	sw_consent_store *s = new_store();
	sw_error *err = NULL;
	/* quoting: each argument in single quotes, an apostrophe escaped, a line break and a bidi override spelled */
	json_t *r = gate(s,
	                 "{\"tool\":\"qa_visual\",\"action\":\"ocr_run\",\"canElicit\":true,\"commands\":["
	                 "{\"label\":\"mask\",\"argv\":[\"python3\",\"it's.py\"],\"origin\":\"env:SWIPIUM_VISUAL_MASK_CMD\"},"
	                 "{\"label\":\"ocr\",\"argv\":[\"sh\",\"-c\",\"echo a\\nrm -rf ~ \\u202e  x\"],"
	                 "\"origin\":\"config:.swipium/config.json (unreviewed)\"}]}",
	                 &err);
	ck_assert_ptr_nonnull(r);
	const char *msg = json_string_value(json_object_get(json_object_get(r, "elicitation"), "message"));
	ck_assert_ptr_nonnull(msg);
	ck_assert_msg(strstr(msg, "\"mask: 'python3' 'it'\\\\''s.py' (from env:SWIPIUM_VISUAL_MASK_CMD)\"") != NULL, "%s",
	              msg);
	ck_assert_msg(strstr(msg, "\"ocr: 'sh' '-c' 'echo a<U+000A>rm -rf ~ <U+202E> <U+0020>x' (from "
	                          "config:.swipium/config.json (unreviewed))\"") != NULL,
	              "%s", msg);
	json_decref(r);
	/* an argument long enough that its step passes 500 characters: refused, no prompt, a ledger row */
	char longarg[700];
	memset(longarg, 'a', sizeof(longarg) - 1);
	longarg[sizeof(longarg) - 1] = '\0';
	json_t *req = json_pack("{s:s,s:s,s:b,s:[{s:s,s:[s,s],s:s}]}", "tool", "qa_visual", "action", "ocr_run",
	                        "canElicit", 1, "commands", "label", "ocr", "argv", "python3", longarg, "origin",
	                        "config:.swipium/config.json (unreviewed)");
	char *text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	ck_assert_ptr_null(gate(s, text, &err));
	free(text);
	ck_assert_int_eq(sw_error_code(err), SW_EDENIED);
	ck_assert_str_eq(sw_error_failure_code(err), "UNSAFE_ACTION_REFUSED");
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "at most 500 per step"));
	json_t *d = json_loads(sw_error_details_json(err), 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(d, "ledgerRow"), "status")), "refused");
	json_decref(d);
	sw_error_free(err);
	err = NULL;
	/* five commands: a prompt shows four steps, so it is refused too (the envelope path as well) */
	ck_assert_ptr_null(gate(s,
	                        "{\"tool\":\"t\",\"action\":\"ocr_run\",\"commands\":[{\"argv\":[\"a\"]},{\"argv\":[\"b\"]},"
	                        "{\"argv\":[\"c\"]},{\"argv\":[\"d\"]},{\"argv\":[\"e\"]}]}",
	                        &err));
	ck_assert_str_eq(sw_error_failure_code(err), "UNSAFE_ACTION_REFUSED");
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "at most 4"));
	sw_error_free(err);
	err = NULL;
	/* four steps of 432 characters: the details are shortened so every step is shown whole */
	req = json_pack("{s:s,s:s,s:b,s:s,s:[]}", "tool", "t", "action", "ocr_run", "canElicit", 1, "explain",
	                "An explanation that is long enough to be shortened when room runs out. An explanation that is "
	                "long enough to be shortened when room runs out. An explanation that is long enough.",
	                "commands");
	char arg[431];
	memset(arg, 'b', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = '\0';
	for (int i = 0; i < 4; i++)
		json_array_append_new(json_object_get(req, "commands"), json_pack("{s:[s]}", "argv", arg));
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	r = gate(s, text, &err);
	free(text);
	ck_assert_msg(r != NULL, "%s", err ? sw_error_message(err) : "");
	msg = json_string_value(json_object_get(json_object_get(r, "elicitation"), "message"));
	ck_assert_uint_le(sw__utf16_len(msg, strlen(msg)), 2000);
	const char *q = msg;
	for (int i = 0; i < 4; i++) {
		q = strstr(q, arg);
		ck_assert_msg(q != NULL, "step %d not whole in %s", i, msg);
		q += strlen(arg);
	}
	json_decref(r);
	/* malformed commands are an argument error */
	ck_assert_ptr_null(gate(s, "{\"tool\":\"t\",\"action\":\"ocr_run\",\"commands\":[{\"argv\":[1]}]}", &err));
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	sw_consent_store_free(s);
}
END_TEST

START_TEST(test_ledger_row)
{
	char *row = NULL;
	ck_assert_int_eq(
	    sw_consent_ledger_row("{\"tool\":\"qa_network\",\"action\":\"network_change\",\"target\":\"airplane\","
	                          "\"status\":\"restored\",\"consent\":{\"consentId\":\"abc\",\"approved\":true,"
	                          "\"approvalMechanism\":\"elicitation\"},\"detail\":\"back online\"}",
	                          &row, NULL),
	    SW_OK);
	json_error_t je;
	json_t *r = json_loads(row, JSON_PRESERVE_ORDER, &je);
	ck_assert_ptr_nonnull(r);
	const char *order[] = {"id", "at", "tool", "action", "risk", "target", "consent", "status", "detail"};
	size_t i = 0;
	const char *key;
	json_t *val;
	json_object_foreach(r, key, val)
	{
		ck_assert_str_eq(key, order[i]);
		i++;
	}
	ck_assert_uint_eq(i, 9);
	ck_assert_str_eq(json_string_value(json_object_get(r, "risk")), "medium");
	json_t *c = json_object_get(r, "consent");
	ck_assert(json_is_true(json_object_get(c, "required")));
	ck_assert_str_eq(json_string_value(json_object_get(c, "consentId")), "abc");
	json_decref(r);
	free(row);
	sw_error *err = NULL;
	ck_assert_int_eq(sw_consent_ledger_row("{\"tool\":\"t\",\"action\":\"a\",\"status\":\"done\"}", &row, &err),
	                 SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_consent_ledger_row("[]", &row, &err), SW_EINVAL);
	sw_error_free(err);
}
END_TEST

START_TEST(test_bad_requests)
{
	sw_consent_store *s = new_store();
	const char *bad[] = {
	    "not json",
	    "[]",
	    "{\"tool\":\"t\",\"action\":\"rm_rf\",\"explain\":\"e\"}",
	    "{\"action\":\"geo_set\",\"explain\":\"e\"}",
	    "{\"tool\":\"t\",\"action\":\"geo_set\",\"risk\":\"extreme\"}",
	    "{\"tool\":\"t\",\"action\":\"geo_set\",\"sessionId\":5}",
	    "{\"tool\":\"t\",\"action\":\"geo_set\",\"consentId\":{}}",
	    "{\"tool\":\"t\",\"action\":\"geo_set\",\"exactCommand\":5}",
	    NULL,
	};
	for (size_t i = 0; bad[i]; i++) {
		sw_error *err = NULL;
		char *out = NULL;
		ck_assert_int_eq(sw_consent_gate(s, bad[i], &out, &err), SW_EINVAL);
		ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
		ck_assert_ptr_null(out);
		sw_error_free(err);
	}
	ck_assert_uint_eq(sw_consent_store_pending(s), 0);
	sw_host_ops old = {99, ask};
	sw_error *err = NULL;
	ck_assert_int_eq(sw_consent_store_set_host(s, &old, NULL, &err), SW_EINVAL);
	sw_error_free(err);
	char *acts = NULL;
	ck_assert_int_eq(sw_consent_actions_json(&acts, NULL), SW_OK);
	json_error_t je;
	json_t *a = json_loads(acts, 0, &je);
	ck_assert_uint_eq(json_array_size(a), 23);
	json_decref(a);
	free(acts);
	sw_consent_store_free(s);
	sw_consent_store_free(NULL);
}
END_TEST

/* ---- logging ------------------------------------------------------------ */

typedef struct log_capture {
	char lines[16][1024];
	int n;
} log_capture;

static void capture(sw_log_level level, const char *msg, const char *fields_json, void *ud)
{
	log_capture *c = ud;
	if (c->n < 16)
		snprintf(c->lines[c->n++], sizeof(c->lines[0]), "%d %s %s", (int)level, msg, fields_json);
}

static const char *find_line(const log_capture *c, const char *needle)
{
	for (int i = 0; i < c->n; i++)
		if (strstr(c->lines[i], needle))
			return c->lines[i];
	return NULL;
}

START_TEST(test_logs)
{
	clear_env();
	sw_ctx *ctx = NULL;
	ck_assert_int_eq(sw_ctx_new(&ctx, NULL), SW_OK);
	log_capture c = {0};
	sw_ctx_set_log_fn(ctx, capture, &c);
	sw_ctx_set_log_level(ctx, SW_LOG_DEBUG);
	setenv("SWIPIUM_CONSENT_PREAPPROVE", "instal_app,wda_non_loopback,geo_set,start_metro", 1);
	sw_consent_store *s = NULL;
	ck_assert_int_eq(sw_consent_store_new(ctx, &s, NULL), SW_OK);
	const char *l = find_line(&c, "unknown action name");
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_nonnull(strstr(l, "\"suggestion\":\"install_app\""));
	l = find_line(&c, "cannot be pre-approved");
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_nonnull(strstr(l, "wda_non_loopback"));
	ck_assert_ptr_nonnull(strstr(l, "start_metro"));
	l = find_line(&c, "without a prompt");
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_nonnull(strstr(l, "[\"geo_set\"]"));
	ck_assert_int_eq(c.n, 3);

	json_t *v = gate(s,
	                 "{\"tool\":\"qa_geolocation\",\"action\":\"geo_set\",\"explain\":\"e\","
	                 "\"exactCommand\":\"adb emu geo fix 1 2\"}",
	                 NULL);
	ck_assert(json_is_true(json_object_get(v, "approved")));
	const char *id = json_string_value(json_object_get(v, "consentId"));
	l = find_line(&c, "consent approved by operator policy (SWIPIUM_CONSENT_PREAPPROVE), no prompt shown");
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_nonnull(strstr(l, id));
	ck_assert_ptr_nonnull(strstr(l, "adb emu geo fix 1 2"));
	ck_assert_int_eq(l[0], '0' + SW_LOG_WARN);
	json_decref(v);
	sw_consent_store_free(s);
	sw_ctx_free(ctx);
	clear_env();
}
END_TEST

static Suite *consent_suite(void)
{
	Suite *s = suite_create("consent");
	TCase *tc = tcase_create("ids");
	tcase_add_test(tc, test_envelope_and_single_use);
	tcase_add_test(tc, test_forged_and_binding);
	tcase_add_test(tc, test_targets_canonical);
	tcase_add_test(tc, test_expiry_and_cap);
	tcase_add_test(tc, test_decline_by_approve_false);
	tcase_add_test(tc, test_bad_requests);
	suite_add_tcase(s, tc);
	tc = tcase_create("policy");
	tcase_add_test(tc, test_require_elicitation);
	tcase_add_test(tc, test_preapproval_rules);
	tcase_add_test(tc, test_suggestions);
	tcase_add_test(tc, test_logs);
	suite_add_tcase(s, tc);
	tc = tcase_create("prompts");
	tcase_add_test(tc, test_host_outcomes);
	tcase_add_test(tc, test_deferred_prompt);
	tcase_add_test(tc, test_sanitize);
	tcase_add_test(tc, test_prompt_hostile);
	tcase_add_test(tc, test_commands_shown_whole_or_refused);
	tcase_add_test(tc, test_ledger_row);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(consent_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
