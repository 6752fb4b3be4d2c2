/* check-store.c: unit tests of the session store: layout, state.json, redaction, ledger, artifacts, rehydration, prune.
 */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <swipium/redact.h>

#include "sw-internal.h"

static char *make_home(void)
{
	char tmpl[] = "/tmp/sw-store-XXXXXX";
	char *d = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(d);
	return strdup(d);
}

/* A project root with a marker so paths look real. */
static char *make_root(const char *home)
{
	char *root = sw__path_join(home, "app");
	ck_assert_int_eq(mkdir(root, 0755), 0);
	return root;
}

typedef struct {
	char *home, *root;
	sw_ctx *ctx;
	sw_store *store;
} fixture;

static void fx_open(fixture *f)
{
	f->home = make_home();
	f->root = make_root(f->home);
	ck_assert_int_eq(sw_ctx_new(&f->ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(f->ctx, f->home, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(f->ctx, &f->store, NULL), SW_OK);
}

static void fx_reopen(fixture *f)
{
	sw_store_free(f->store);
	ck_assert_int_eq(sw_store_open(f->ctx, &f->store, NULL), SW_OK);
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

static json_t *load_json_file(const char *path)
{
	json_error_t e;
	json_t *v = json_load_file(path, 0, &e);
	ck_assert_msg(v != NULL, "%s does not parse: %s", path, e.text);
	return v;
}

static char *slurp(const char *path)
{
	char *t = NULL;
	ck_assert_int_eq(sw__read_file(path, 64 << 20, &t, NULL, NULL), SW_OK);
	return t;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_mode & 0777;
}

START_TEST(test_create_layout_and_key_order)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, "arg", NULL, &s, NULL), SW_OK);
	const char *id = sw_session_id(s);
	ck_assert_uint_eq(strlen(id), 8);
	ck_assert_uint_eq(strspn(id, "0123456789abcdef"), 8);
	char hash[65];
	sw_sha256_hex(f.root, strlen(f.root), hash);
	hash[16] = '\0';
	char *want_dir = sw__asprintf("%s/.swipium/runs/%s/%s", f.home, hash, id);
	ck_assert_str_eq(sw_session_dir(s), want_dir);
	ck_assert_str_eq(sw_session_root(s), f.root);
	char *state_path = sw__path_join(want_dir, "state.json");
	/* written synchronously at creation, private modes */
	ck_assert_int_eq(mode_of(state_path), 0600);
	ck_assert_int_eq(mode_of(want_dir), 0700);
	char *swdir = sw__path_join(f.home, ".swipium");
	ck_assert_int_eq(mode_of(swdir), 0700);
	json_t *st = load_json_file(state_path);
	/* clang-format off */
	static const char *const order[] = {
		"id", "root", "dir", "createdAt", "device", "driverKind", "wdaUrl", "appId", "headless", "metroPid",
		"screenshotCount", "network", "envChanges", "workarounds", "chosenTarget", "lastTestThisArgs", "mode",
		"responseMode", "sensitive", "budget", "counters", "jobs", "artifacts", "findings", "notes", "mutations",
		"recordedActions", "toolErrors", "fixtures", "auth", "milestones", "budgetProfile", "inputs",
		"generatedValues", "exploration",
	};
	/* clang-format on */
	size_t i = 0;
	const char *k;
	json_t *v;
	json_object_foreach(st, k, v)
	{
		ck_assert_uint_lt(i, SW_ARRAY_SIZE(order));
		ck_assert_str_eq(k, order[i]);
		i++;
	}
	ck_assert_uint_eq(i, SW_ARRAY_SIZE(order));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(st, "budget"), "maxActions")), 20);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(st, "budget"), "maxMinutes")), 8);
	/* the pretty form is exactly what sw_session_state_json reports */
	char *text = slurp(state_path), *mem = NULL;
	ck_assert_int_eq(sw_session_state_json(s, &mem, NULL), SW_OK);
	ck_assert_str_eq(text, mem);
	/* registry entry */
	char *reg_path = sw__path_join(swdir, "registry.json");
	json_t *reg = load_json_file(reg_path);
	ck_assert_int_eq(mode_of(reg_path), 0600);
	ck_assert_uint_eq(json_array_size(reg), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(reg, 0), "id")), id);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(reg, 0), "dir")), want_dir);
	json_decref(reg);
	json_decref(st);
	sw_free(mem);
	free(text);
	free(reg_path);
	free(swdir);
	free(state_path);
	free(want_dir);
	fx_close(&f);
}
END_TEST

START_TEST(test_unknown_session)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_store_get_session(f.store, "deadbeef", &s, &err), SW_EINVAL);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	ck_assert_str_eq(sw_error_message(err), "Unknown sessionId \"deadbeef\"");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_session_create(f.store, "relative/path", NULL, NULL, &s, &err), SW_EINVAL);
	sw_error_free(err);
	fx_close(&f);
}
END_TEST

START_TEST(test_options)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, "{\"profile\":\"moon\"}", &s, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, "{\"budget\":{\"maxActions\":-1}}", &s, &err),
	                 SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, "[1]", &s, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(
	    sw_session_create(f.store, f.root, NULL,
	                      "{\"profile\":\"full_smoke\",\"budget\":{\"maxActions\":5},\"responseMode\":\"compact\","
	                      "\"fixtures\":[{\"name\":\"acct\",\"value\":\"hunter22\",\"seed\":{\"type\":\"script\"},"
	                      "\"fields\":{\"email\":{\"value\":\"a@b.c\",\"var\":\"SWIPIUM_TEST_EMAIL\"}}}]}",
	                      &s, &err),
	    SW_OK);
	char *b = NULL;
	ck_assert_int_eq(sw_session_get_json(s, "budget", &b, NULL), SW_OK);
	ck_assert_str_eq(b, "{\"maxMinutes\":15,\"maxActions\":5,\"maxScreenshots\":8,\"maxSnapshotFailures\":3,"
	                    "\"maxNoChangeActions\":3}");
	sw_free(b);
	char *fx = NULL;
	ck_assert_int_eq(sw_session_get_json(s, "fixtures", &fx, NULL), SW_OK);
	ck_assert_str_eq(fx, "[{\"name\":\"acct\",\"fields\":{\"email\":{\"var\":\"SWIPIUM_TEST_EMAIL\"}}}]");
	sw_free(fx);
	char *st = NULL;
	ck_assert_int_eq(sw_session_state_json(s, &st, NULL), SW_OK);
	ck_assert_ptr_null(strstr(st, "hunter22"));
	ck_assert_ptr_nonnull(strstr(st, "\"budgetProfile\": \"full_smoke\""));
	sw_free(st);
	fx_close(&f);
}
END_TEST

START_TEST(test_redacted_persistence)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	/* a note written before the secret is known is still scrubbed when saved */
	ck_assert_int_eq(
	    sw_session_add_note(s, "{\"workflow\":\"login\",\"outcome\":\"fail\",\"reason\":\"typed Sup3rS3cret!\"}",
	                        NULL),
	    SW_OK);
	ck_assert_int_eq(sw_redactor_add_secret(sw_session_redactor(s), "Sup3rS3cret!", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_tool_error(s, "qa_act", "ELEMENT_NOT_FOUND", "no field for Sup3rS3cret!", NULL),
	                 SW_OK);
	ck_assert_int_eq(sw_session_add_env_change(s, "set password Sup3rS3cret!", NULL), SW_OK);
	ck_assert_int_eq(
	    sw_session_set_json(s, "lastTestThisArgs", "{\"goal\":\"smoke\",\"goalText\":\"Sup3rS3cret!\"}", NULL),
	    SW_OK);
	ck_assert_int_eq(
	    sw_session_append_json(
	        s, "inputs",
	        "{\"varName\":\"PASSWORD\",\"secret\":true,\"source\":\"blocker\",\"value\":\"Sup3rS3cret!\"}", NULL),
	    SW_OK);
	ck_assert_int_eq(sw_session_flush(s, NULL), SW_OK);
	char *path = sw__path_join(sw_session_dir(s), "state.json");
	char *text = slurp(path);
	ck_assert_ptr_null(strstr(text, "Sup3rS3cret"));
	ck_assert_ptr_nonnull(strstr(text, SW_REDACTED_MARKER));
	char *notes = NULL;
	ck_assert_int_eq(sw_session_get_json(s, "notes", &notes, NULL), SW_OK);
	ck_assert_ptr_null(strstr(notes, "Sup3rS3cret"));
	ck_assert_ptr_nonnull(strstr(notes, "\"workflow\":\"login\""));
	ck_assert_ptr_nonnull(strstr(notes, "\"at\":\""));
	sw_free(notes);
	/* unknown keys and identity fields are refused */
	sw_error *err = NULL;
	ck_assert_int_eq(sw_session_set_json(s, "id", "\"x\"", &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_session_append_json(s, "mutations", "{}", &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_session_set_json(s, "device", "{oops", &err), SW_EINVAL);
	sw_error_free(err);
	free(text);
	free(path);
	fx_close(&f);
}
END_TEST

START_TEST(test_redaction_keeps_own_keys)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	/* a secret that spells one of the store's own keys */
	ck_assert_int_eq(sw_redactor_add_secret(sw_session_redactor(s), "workflow", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_note(s, "{\"workflow\":\"workflow login\",\"outcome\":\"pass\"}", NULL), SW_OK);
	ck_assert_int_eq(
	    sw_session_set_json(s, "lastTestThisArgs", "{\"flags\":{\"workflowX\":true,\"workflowY\":false}}", NULL),
	    SW_OK);
	char *st = NULL;
	ck_assert_int_eq(sw_session_state_json(s, &st, NULL), SW_OK);
	json_t *j = json_loads(st, 0, NULL);
	json_t *note = json_array_get(json_object_get(j, "notes"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(note, "workflow")), SW_REDACTED_MARKER " login");
	json_t *flags = json_object_get(json_object_get(j, "lastTestThisArgs"), "flags");
	ck_assert_ptr_null(json_object_get(flags, "workflowX"));
	ck_assert(json_is_true(json_object_get(flags, SW_REDACTED_MARKER "X")));
	ck_assert(json_is_false(json_object_get(flags, SW_REDACTED_MARKER "Y")));
	ck_assert_ptr_null(strstr(st, "workflowX"));
	json_decref(j);
	sw_free(st);
	fx_close(&f);
}
END_TEST

START_TEST(test_debounced_save)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_note(s, "{\"workflow\":\"w1\",\"outcome\":\"pass\"}", NULL), SW_OK);
	char *path = sw__path_join(sw_session_dir(s), "state.json");
	/* the saver thread writes it without an explicit flush */
	bool seen = false;
	for (int i = 0; i < 200 && !seen; i++) {
		usleep(20000);
		char *t = slurp(path);
		seen = strstr(t, "\"w1\"") != NULL;
		free(t);
	}
	ck_assert_msg(seen, "the debounced save never wrote the note");
	free(path);
	fx_close(&f);
}
END_TEST

START_TEST(test_ledger_sync_and_cap)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	char *path = sw__path_join(sw_session_dir(s), "state.json");
	ck_assert_int_eq(
	    sw_session_ledger_append(s,
	                             "{\"id\":\"m0000000\",\"at\":1,\"tool\":\"qa_network\",\"action\":\"network_"
	                             "change\",\"risk\":\"medium\",\"target\":{},\"status\":\"requested\"}",
	                             NULL),
	    SW_OK);
	/* on disk before the call returned */
	json_t *st = load_json_file(path);
	json_t *m = json_object_get(st, "mutations");
	ck_assert_uint_eq(json_array_size(m), 1);
	json_decref(st);
	/* same id: the row is replaced (status update), not duplicated */
	ck_assert_int_eq(
	    sw_session_ledger_append(s,
	                             "{\"id\":\"m0000000\",\"at\":2,\"tool\":\"qa_network\",\"action\":\"network_"
	                             "change\",\"risk\":\"medium\",\"target\":{},\"status\":\"executed\"}",
	                             NULL),
	    SW_OK);
	st = load_json_file(path);
	m = json_object_get(st, "mutations");
	ck_assert_uint_eq(json_array_size(m), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(m, 0), "status")), "executed");
	json_decref(st);
	for (int i = 1; i <= 510; i++) {
		char row[200];
		snprintf(row, sizeof(row),
		         "{\"id\":\"r%07d\",\"at\":%d,\"tool\":\"t\",\"action\":\"a\",\"risk\":\"low\",\"target\":{},"
		         "\"status\":\"executed\"}",
		         i, i);
		ck_assert_int_eq(sw_session_ledger_append(s, row, NULL), SW_OK);
	}
	st = load_json_file(path);
	m = json_object_get(st, "mutations");
	ck_assert_uint_eq(json_array_size(m), 500);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(m, 0), "id")), "r0000011");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(m, 499), "id")), "r0000510");
	json_decref(st);
	sw_error *err = NULL;
	ck_assert_int_eq(sw_session_ledger_append(s, "[1,2]", &err), SW_EINVAL);
	sw_error_free(err);
	free(path);
	fx_close(&f);
}
END_TEST

START_TEST(test_caps_tool_errors_and_actions)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	char big[1200];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (int i = 0; i < 250; i++)
		ck_assert_int_eq(sw_session_add_tool_error(s, "qa_act", "UNKNOWN", big, NULL), SW_OK);
	for (int i = 0; i < 350; i++) {
		char a[64];
		snprintf(a, sizeof(a), "{\"kind\":\"tap\",\"n\":%d}", i);
		ck_assert_int_eq(sw_session_append_json(s, "recordedActions", a, NULL), SW_OK);
	}
	char *t = NULL;
	ck_assert_int_eq(sw_session_get_json(s, "toolErrors", &t, NULL), SW_OK);
	json_t *te = json_loads(t, 0, NULL);
	ck_assert_uint_eq(json_array_size(te), 200);
	ck_assert_uint_eq(strlen(json_string_value(json_object_get(json_array_get(te, 0), "message"))), 500);
	json_decref(te);
	sw_free(t);
	ck_assert_int_eq(sw_session_get_json(s, "recordedActions", &t, NULL), SW_OK);
	json_t *ra = json_loads(t, 0, NULL);
	ck_assert_uint_eq(json_array_size(ra), 300);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(ra, 0), "n")), 50);
	json_decref(ra);
	sw_free(t);
	fx_close(&f);
}
END_TEST

START_TEST(test_many_notes)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	ck_assert_int_eq(sw_redactor_add_secret(sw_session_redactor(s), "correct-horse", NULL), SW_OK);
	for (int i = 0; i < 10000; i++) {
		char n[160];
		snprintf(n, sizeof(n), "{\"workflow\":\"wf%d\",\"outcome\":\"%s\",\"reason\":\"r%d correct-horse\"}", i,
		         i % 3 ? "pass" : "fail", i);
		ck_assert_int_eq(sw_session_add_note(s, n, NULL), SW_OK);
	}
	ck_assert_int_eq(sw_session_flush(s, NULL), SW_OK);
	char *path = sw__path_join(sw_session_dir(s), "state.json");
	json_t *st = load_json_file(path);
	ck_assert_uint_eq(json_array_size(json_object_get(st, "notes")), 10000);
	char *text = slurp(path);
	ck_assert_ptr_null(strstr(text, "correct-horse"));
	free(text);
	json_decref(st);
	free(path);
	fx_close(&f);
}
END_TEST

static atomic_uint ledger_seq;

static void *hammer(void *arg)
{
	sw_session *s = arg;
	for (int i = 0; i < 500; i++) {
		char n[128];
		snprintf(n, sizeof(n), "{\"workflow\":\"t%p-%d\",\"outcome\":\"pass\"}", (void *)pthread_self(), i);
		if (sw_session_add_note(s, n, NULL) != SW_OK || sw_session_counter_add(s, "actions", 1, NULL) != SW_OK)
			return (void *)1;
		if (i % 50 == 0) {
			snprintf(n, sizeof(n), "{\"id\":\"%08x\",\"tool\":\"t\",\"status\":\"executed\"}",
			         atomic_fetch_add(&ledger_seq, 1) + 1);
			if (sw_session_ledger_append(s, n, NULL) != SW_OK)
				return (void *)1;
		}
	}
	return NULL;
}

START_TEST(test_concurrent_writers)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	ck_assert_int_eq(sw_redactor_add_secret(sw_session_redactor(s), "zz-secret-zz", NULL), SW_OK);
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, hammer, s), 0);
	for (int i = 0; i < 4; i++) {
		void *r = NULL;
		pthread_join(t[i], &r);
		ck_assert_ptr_null(r);
	}
	ck_assert_int_eq(sw_session_flush(s, NULL), SW_OK);
	char *path = sw__path_join(sw_session_dir(s), "state.json");
	json_t *st = load_json_file(path);
	ck_assert_uint_eq(json_array_size(json_object_get(st, "notes")), 2000);
	ck_assert_uint_eq(json_array_size(json_object_get(st, "mutations")), 40);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(st, "counters"), "actions")), 2000);
	json_decref(st);
	free(path);
	fx_close(&f);
}
END_TEST

START_TEST(test_counters_budget)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, "{\"budget\":{\"maxActions\":2}}", &s, NULL), SW_OK);
	char *why = NULL;
	ck_assert_int_eq(sw_session_budget_exhausted(s, &why), 0);
	ck_assert_int_eq(sw_session_counter_add(s, "actions", 1, NULL), SW_OK);
	ck_assert_int_eq(sw_session_budget_exhausted(s, &why), 0);
	ck_assert_int_eq(sw_session_counter_add(s, "actions", 1, NULL), SW_OK);
	ck_assert_int_eq(sw_session_budget_exhausted(s, &why), 1);
	ck_assert_str_eq(why, "action budget reached (2/2)");
	sw_free(why);
	sw_error *err = NULL;
	ck_assert_int_eq(sw_session_counter_add(s, "bananas", 1, &err), SW_EINVAL);
	sw_error_free(err);
	ck_assert_int_eq(sw_session_counter_add(s, "screenshots", 3, NULL), SW_OK);
	char *c = NULL;
	ck_assert_int_eq(sw_session_get_json(s, "screenshotCount", &c, NULL), SW_OK);
	ck_assert_str_eq(c, "3");
	sw_free(c);
	ck_assert_int_eq(sw_session_counter_add(s, "snapshotFailures", 2, NULL), SW_OK);
	ck_assert_int_eq(sw_session_counter_reset(s, "snapshotFailures", NULL), SW_OK);
	ck_assert_int_eq(sw_session_get_json(s, "counters", &c, NULL), SW_OK);
	ck_assert_str_eq(c, "{\"actions\":2,\"screenshots\":3,\"snapshotFailures\":0,\"noChangeActions\":0}");
	sw_free(c);
	fx_close(&f);
}
END_TEST

START_TEST(test_rehydration)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	char *id = strdup(sw_session_id(s));
	char *dir = strdup(sw_session_dir(s));
	ck_assert_int_eq(sw_session_set_json(s, "device", "\"emulator-5554\"", NULL), SW_OK);
	ck_assert_int_eq(sw_session_set_json(s, "driverKind", "\"direct\"", NULL), SW_OK);
	ck_assert_int_eq(sw_session_set_json(s, "metroPid", "4242", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_note(s, "{\"workflow\":\"w\",\"outcome\":\"pass\"}", NULL), SW_OK);
	ck_assert_int_eq(sw_session_flush(s, NULL), SW_OK);
	ck_assert_int_eq(sw_session_redaction_degraded(s), 0);
	fx_reopen(&f);
	s = NULL;
	ck_assert_int_eq(sw_store_get_session(f.store, id, &s, NULL), SW_OK);
	ck_assert_str_eq(sw_session_dir(s), dir);
	ck_assert_str_eq(sw_session_root(s), f.root);
	char *v = NULL;
	ck_assert_int_eq(sw_session_get_json(s, "device", &v, NULL), SW_OK);
	ck_assert_str_eq(v, "\"emulator-5554\"");
	sw_free(v);
	ck_assert_int_eq(sw_session_get_json(s, "metroPid", &v, NULL), SW_OK);
	ck_assert_str_eq(v, "null"); /* never adopted after a restart */
	sw_free(v);
	ck_assert_int_eq(sw_session_redaction_degraded(s), 0);
	/* secret activity before the restart: degraded */
	ck_assert_int_eq(
	    sw_session_append_json(s, "inputs", "{\"varName\":\"PIN\",\"secret\":true,\"source\":\"blocker\"}", NULL),
	    SW_OK);
	ck_assert_int_eq(sw_session_flush(s, NULL), SW_OK);
	fx_reopen(&f);
	ck_assert_int_eq(sw_store_get_session(f.store, id, &s, NULL), SW_OK);
	ck_assert_int_eq(sw_session_redaction_degraded(s), 1);
	free(id);
	free(dir);
	fx_close(&f);
}
END_TEST

START_TEST(test_rehydration_fills_defaults_and_sets_aside_corrupt)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL, *t = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &t, NULL), SW_OK);
	char *id1 = strdup(sw_session_id(s)), *id2 = strdup(sw_session_id(t));
	char *p1 = sw__path_join(sw_session_dir(s), "state.json"), *p2 = sw__path_join(sw_session_dir(t), "state.json");
	sw_store_free(f.store);
	f.store = NULL;
	/* an old, minimal state (missing most keys, a running job) */
	char *minimal = sw__asprintf("{\"id\":\"%s\",\"root\":\"%s\",\"createdAt\":5,\"budget\":{\"maxActions\":7},"
	                             "\"jobs\":[{\"jobId\":\"j1\",\"kind\":\"test_this\",\"status\":\"running\","
	                             "\"startedAt\":\"x\",\"artifactUris\":[]}],"
	                             "\"auth\":{\"loginPerformed\":true},\"futureField\":1}",
	                             id1, f.root);
	ck_assert_int_eq(sw_file_write_atomic(p1, minimal, strlen(minimal), 0, NULL), SW_OK);
	ck_assert_int_eq(sw_file_write_atomic(p2, "{\"id\": tru", 10, 0, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(f.ctx, &f.store, NULL), SW_OK);
	ck_assert_int_eq(sw_store_get_session(f.store, id1, &s, NULL), SW_OK);
	ck_assert_int_eq(sw_session_redaction_degraded(s), 1);
	char *v = NULL;
	ck_assert_int_eq(sw_session_get_json(s, "budget", &v, NULL), SW_OK);
	ck_assert_str_eq(v, "{\"maxMinutes\":8,\"maxActions\":7,\"maxScreenshots\":8,\"maxSnapshotFailures\":3,"
	                    "\"maxNoChangeActions\":3}");
	sw_free(v);
	ck_assert_int_eq(sw_session_get_json(s, "jobs", &v, NULL), SW_OK);
	json_t *jobs = json_loads(v, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(jobs, 0), "status")), "failed");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(jobs, 0), "error")),
	                 "server restarted while job was running (child process gone)");
	json_decref(jobs);
	sw_free(v);
	ck_assert_int_eq(sw_session_flush(s, NULL), SW_OK);
	json_t *st = load_json_file(p1);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "futureField")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(st, "responseMode")), "normal");
	json_decref(st);
	/* the corrupt one is set aside, never silently replaced */
	sw_error *err = NULL;
	ck_assert_int_eq(sw_store_get_session(f.store, id2, &t, &err), SW_EINVAL);
	sw_error_free(err);
	ck_assert(!sw__is_file(p2));
	char *parent = sw__strdup(p2);
	*strrchr(parent, '/') = '\0';
	DIR *d = opendir(parent);
	bool aside = false;
	struct dirent *e;
	while ((e = readdir(d)))
		aside = aside || sw__str_has_prefix(e->d_name, "state.json.corrupt-");
	closedir(d);
	ck_assert(aside);
	free(parent);
	free(minimal);
	free(p1);
	free(p2);
	free(id1);
	free(id2);
	fx_close(&f);
}
END_TEST

START_TEST(test_corrupt_registry_is_rebuilt_from_the_folders)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	char *id = strdup(sw_session_id(s));
	sw_store_free(f.store);
	char *reg = sw__asprintf("%s/.swipium/registry.json", f.home);
	ck_assert_int_eq(sw_file_write_atomic(reg, "{not json", 9, 0, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(f.ctx, &f.store, NULL), SW_OK);
	/* the earlier session is still known: the registry is rebuilt from runs/<project>/<id>/ */
	ck_assert_int_eq(sw_store_get_session(f.store, id, &s, NULL), SW_OK);
	ck_assert_str_eq(sw_session_id(s), id);
	json_t *r = load_json_file(reg);
	ck_assert_uint_eq(json_array_size(r), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r, 0), "id")), id);
	json_decref(r);
	/* the corrupt file is set aside for a human, never silently dropped */
	char *swdir = sw__asprintf("%s/.swipium", f.home);
	DIR *d = opendir(swdir);
	struct dirent *e;
	bool aside = false;
	while ((e = readdir(d)))
		aside = aside || sw__str_has_prefix(e->d_name, "registry.json.corrupt-");
	closedir(d);
	ck_assert(aside);
	free(swdir);
	/* a new session is added to the rebuilt registry */
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	r = load_json_file(reg);
	ck_assert_uint_eq(json_array_size(r), 2);
	json_decref(r);
	free(reg);
	free(id);
	fx_close(&f);
}
END_TEST

START_TEST(test_session_from_another_process)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	sw_error *err = NULL;
	/* the first lookup loads the registry */
	ck_assert_int_eq(sw_store_get_session(f.store, "00000000", &s, &err), SW_EINVAL);
	sw_error_free(err);
	/* a second store (another process) creates a session afterwards */
	sw_store *other = NULL;
	ck_assert_int_eq(sw_store_open(f.ctx, &other, NULL), SW_OK);
	sw_session *o = NULL;
	ck_assert_int_eq(sw_session_create(other, f.root, NULL, NULL, &o, NULL), SW_OK);
	char *id = strdup(sw_session_id(o));
	sw_store_free(other);
	ck_assert_int_eq(sw_store_get_session(f.store, id, &s, NULL), SW_OK);
	ck_assert_str_eq(sw_session_id(s), id);
	free(id);
	fx_close(&f);
}
END_TEST

START_TEST(test_registry_cap)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	for (int i = 0; i < 205; i++)
		ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	char *reg = sw__asprintf("%s/.swipium/registry.json", f.home);
	json_t *r = load_json_file(reg);
	ck_assert_uint_eq(json_array_size(r), 200);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r, 199), "id")), sw_session_id(s));
	json_decref(r);
	free(reg);
	fx_close(&f);
}
END_TEST

START_TEST(test_artifact_uri_and_names)
{
	char *u = NULL;
	ck_assert_int_eq(sw_artifact_uri("ab12cd34", "report", "report 1#?.json", &u, NULL), SW_OK);
	ck_assert_str_eq(u, "swipium://session/ab12cd34/report/report%201%23%3F.json");
	sw_free(u);
	ck_assert_int_eq(sw_artifact_uri("ab12cd34", "logs", "a:b@c!$&'()*+;=~_-.txt", &u, NULL), SW_OK);
	ck_assert_str_eq(u, "swipium://session/ab12cd34/logs/a:b@c!$&'()*+;=~_-.txt");
	sw_free(u);
	ck_assert_int_eq(sw_artifact_uri("ab12cd34", "x", "\xc3\xa9/%", &u, NULL), SW_OK);
	ck_assert_str_eq(u, "swipium://session/ab12cd34/x/%C3%A9%2F%25");
	sw_free(u);
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"../../etc/passwd", "____etc_passwd"},
	    {"a\\b/c", "a_b_c"},
	    {"x\ny\tz", "x_y_z"},
	    {"  spaced  ", "spaced"},
	    {"", "artifact"},
	    {".", "artifact"},
	    {"...", "_"},
	    {"report-1.json", "report-1.json"},
	    {"a..b", "a_b"},
	};
	for (size_t i = 0; i < SW_ARRAY_SIZE(cases); i++) {
		char *n = NULL;
		ck_assert_int_eq(sw_artifact_sanitize_name(cases[i].in, &n, NULL), SW_OK);
		ck_assert_msg(!strcmp(n, cases[i].out), "sanitize(\"%s\") = \"%s\", want \"%s\"", cases[i].in, n,
		              cases[i].out);
		sw_free(n);
	}
	char longname[400];
	memset(longname, 'a', 300);
	strcpy(longname + 300, ".summary.md");
	char *n = NULL;
	ck_assert_int_eq(sw_artifact_sanitize_name(longname, &n, NULL), SW_OK);
	ck_assert_uint_eq(strlen(n), 180);
	ck_assert(sw__str_has_suffix(n, ".md"));
	sw_free(n);
	/* an extension longer than 16 is not kept */
	memset(longname, 'b', 300);
	strcpy(longname + 300, ".thisisaverylongextension");
	ck_assert_int_eq(sw_artifact_sanitize_name(longname, &n, NULL), SW_OK);
	ck_assert_uint_eq(strlen(n), 180);
	ck_assert_uint_eq(strspn(n, "b"), 180);
	sw_free(n);
}
END_TEST

START_TEST(test_artifact_save_read)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	sw_redactor *r = sw_session_redactor(s);
	ck_assert_int_eq(sw_redactor_add_secret(r, "p@ss\"&<word", NULL), SW_OK);
	char *meta = NULL;
	const char *doc = "{\"typed\":\"p@ss\\\"&<word\",\"n\":1}";
	ck_assert_int_eq(sw_artifact_save(s, "report", "../r.json", "application/json", doc, strlen(doc),
	                                  "label p@ss\"&<word", &meta, NULL),
	                 SW_OK);
	json_t *m = json_loads(meta, 0, NULL);
	char *want_uri = sw__asprintf("swipium://session/%s/report/__r.json", sw_session_id(s));
	ck_assert_str_eq(json_string_value(json_object_get(m, "uri")), want_uri);
	ck_assert_str_eq(json_string_value(json_object_get(m, "redaction")), "applied");
	ck_assert_str_eq(json_string_value(json_object_get(m, "kind")), "report");
	const char *path = json_string_value(json_object_get(m, "path"));
	char *want_path = sw__asprintf("%s/report/__r.json", sw_session_dir(s));
	ck_assert_str_eq(path, want_path);
	ck_assert_int_eq(mode_of(path), 0600);
	char *folder = sw__asprintf("%s/report", sw_session_dir(s));
	ck_assert_int_eq(mode_of(folder), 0700);
	char *disk = slurp(path);
	ck_assert_ptr_null(strstr(disk, "word"));
	ck_assert_ptr_nonnull(strstr(disk, "\"n\":1"));
	ck_assert_ptr_null(strstr(json_string_value(json_object_get(m, "label")), "word"));
	/* read back by URI */
	char *data = NULL, *rmeta = NULL;
	size_t len = 0;
	ck_assert_int_eq(sw_artifact_read(f.store, want_uri, 0, &data, &len, &rmeta, NULL), SW_OK);
	ck_assert_str_eq(data, disk);
	ck_assert_uint_eq(len, strlen(disk));
	sw_free(data);
	sw_free(rmeta);
	/* percent-encoding spelled differently still resolves */
	char *alt = sw__asprintf("swipium://session/%s/%%72eport/__r.json", sw_session_id(s));
	ck_assert_int_eq(sw_artifact_read(f.store, alt, SW_ARTIFACT_READ_METADATA, &data, &len, &rmeta, NULL), SW_OK);
	ck_assert_ptr_null(data);
	sw_free(rmeta);
	free(alt);
	/* binary: untouched, not-applied; screenshots/ folder */
	unsigned char png[] = {0x89, 'P', 'N', 'G', 'p', '@', 's', 's', 0};
	sw_free(meta);
	ck_assert_int_eq(
	    sw_artifact_save(s, "screenshot", "shot.png", "image/png", png, sizeof(png), NULL, &meta, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(meta, "\"redaction\":\"not-applied\""));
	ck_assert_ptr_nonnull(strstr(meta, "/screenshots/shot.png"));
	/* logs folder for logcat; a short secret makes it partial */
	ck_assert_int_eq(sw_redactor_add_secret(r, "42", NULL), SW_OK);
	sw_free(meta);
	ck_assert_int_eq(sw_artifact_save(s, "logcat", "device.log", "text/plain", "line 42\n", 8, NULL, &meta, NULL),
	                 SW_OK);
	ck_assert_ptr_nonnull(strstr(meta, "\"redaction\":\"partial\""));
	ck_assert_ptr_nonnull(strstr(meta, "redactionNote"));
	ck_assert_ptr_nonnull(strstr(meta, "/logs/device.log"));
	/* unknown URIs */
	sw_error *err = NULL;
	ck_assert_int_eq(sw_artifact_read(f.store, "swipium://session/nope/report/x.json", 0, &data, &len, NULL, &err),
	                 SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_artifact_read(f.store, "http://x/y", 0, &data, &len, NULL, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_artifact_save(s, "../evil", "x", "text/plain", "a", 1, NULL, NULL, &err), SW_EINVAL);
	sw_error_free(err);
	char *list = NULL;
	ck_assert_int_eq(sw_artifact_list(s, &list, NULL), SW_OK);
	json_t *l = json_loads(list, 0, NULL);
	ck_assert_uint_eq(json_array_size(l), 3);
	json_decref(l);
	sw_free(list);
	json_decref(m);
	sw_free(meta);
	free(disk);
	free(folder);
	free(want_uri);
	free(want_path);
	fx_close(&f);
}
END_TEST

START_TEST(test_artifact_record_outside_session_refused)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	char *meta = NULL, *uri = NULL;
	ck_assert_int_eq(sw_artifact_save(s, "logs", "a.log", "text/plain", "hello", 5, NULL, &meta, NULL), SW_OK);
	sw_free(meta);
	ck_assert_int_eq(sw_artifact_uri(sw_session_id(s), "logs", "a.log", &uri, NULL), SW_OK);
	char *id = strdup(sw_session_id(s));
	char *path = sw__path_join(sw_session_dir(s), "state.json");
	sw_store_free(f.store);
	/* an edited state.json points the record at a file outside the session folder */
	json_t *st = load_json_file(path);
	json_object_set_new(json_array_get(json_object_get(st, "artifacts"), 0), "path", json_string("/etc/hostname"));
	ck_assert_int_eq(json_dump_file(st, path, 0), 0);
	json_decref(st);
	ck_assert_int_eq(sw_store_open(f.ctx, &f.store, NULL), SW_OK);
	char *data = NULL;
	size_t len = 0;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_artifact_read(f.store, uri, 0, &data, &len, NULL, &err), SW_EINVAL);
	ck_assert_ptr_null(data);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "outside the session folder"));
	sw_error_free(err);
	sw_free(uri);
	free(id);
	free(path);
	fx_close(&f);
}
END_TEST

START_TEST(test_artifact_caps)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	size_t n = (1u << 20) + 5000;
	char *big = malloc(n + 1);
	/* "é" everywhere so a byte cut would split a character */
	for (size_t i = 0; i + 1 < n; i += 2) {
		big[i] = (char)0xc3;
		big[i + 1] = (char)0xa9;
	}
	memcpy(big, "HEAD", 4);
	memcpy(big + n - 4, "TAIL", 4);
	char *meta = NULL;
	ck_assert_int_eq(sw_artifact_save(s, "dump", "big.txt", "text/plain", big, n, NULL, &meta, NULL), SW_OK);
	sw_free(meta);
	ck_assert_int_eq(sw_artifact_save(s, "logs", "big.log", "text/plain", big, n, NULL, &meta, NULL), SW_OK);
	sw_free(meta);
	char *uri = NULL, *data = NULL;
	size_t len = 0;
	ck_assert_int_eq(sw_artifact_uri(sw_session_id(s), "dump", "big.txt", &uri, NULL), SW_OK);
	ck_assert_int_eq(sw_artifact_read(f.store, uri, 0, &data, &len, &meta, NULL), SW_OK);
	ck_assert(sw__str_has_prefix(data, "HEAD"));
	ck_assert_ptr_null(strstr(data, "TAIL"));
	ck_assert_ptr_nonnull(strstr(data, "[swipium: truncated"));
	ck_assert_ptr_nonnull(strstr(data, "/dump/big.txt"));
	ck_assert(sw__utf8_valid(data, len));
	ck_assert_ptr_nonnull(strstr(meta, "\"truncated\":true"));
	sw_free(meta);
	sw_free(data);
	sw_free(uri);
	ck_assert_int_eq(sw_artifact_uri(sw_session_id(s), "logs", "big.log", &uri, NULL), SW_OK);
	ck_assert_int_eq(sw_artifact_read(f.store, uri, 0, &data, &len, &meta, NULL), SW_OK);
	ck_assert(sw__str_has_prefix(data, "[swipium: truncated"));
	ck_assert(sw__str_has_suffix(data, "TAIL"));
	ck_assert_ptr_null(strstr(data, "HEAD"));
	ck_assert(sw__utf8_valid(data, len));
	sw_free(meta);
	sw_free(data);
	sw_free(uri);
	/* binary over 8 MiB: not inlined */
	size_t bn = (8u << 20) + 1;
	char *bin = calloc(1, bn);
	ck_assert_int_eq(sw_artifact_save(s, "recording", "v.mp4", "video/mp4", bin, bn, NULL, &meta, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(meta, "/videos/v.mp4"));
	sw_free(meta);
	ck_assert_int_eq(sw_artifact_uri(sw_session_id(s), "recording", "v.mp4", &uri, NULL), SW_OK);
	data = (char *)1;
	ck_assert_int_eq(sw_artifact_read(f.store, uri, 0, &data, &len, &meta, NULL), SW_OK);
	ck_assert_ptr_null(data);
	ck_assert_ptr_nonnull(strstr(meta, "\"inlined\":false"));
	ck_assert_ptr_nonnull(strstr(meta, "\"note\""));
	sw_free(meta);
	sw_free(uri);
	free(bin);
	free(big);
	fx_close(&f);
}
END_TEST

START_TEST(test_artifact_register_and_sensitive)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	ck_assert_int_eq(sw_redactor_add_secret(sw_session_redactor(s), "tok_ABCDEF123", NULL), SW_OK);
	char *p = NULL;
	ck_assert_int_eq(sw_artifact_path(s, "metro", "metro.log", &p, NULL), SW_OK);
	FILE *fp = fopen(p, "w");
	fputs("bundle tok_ABCDEF123 loaded\n", fp);
	fclose(fp);
	char *meta = NULL;
	ck_assert_int_eq(sw_artifact_register(s, "metro", "metro.log", "text/plain", NULL, &meta, NULL), SW_OK);
	char *disk = slurp(p);
	ck_assert_ptr_null(strstr(disk, "tok_ABCDEF123"));
	ck_assert_int_eq(mode_of(p), 0600);
	free(disk);
	sw_free(meta);
	sw_free(p);
	sw_error *err = NULL;
	ck_assert_int_eq(sw_artifact_register(s, "metro", "missing.log", "text/plain", NULL, NULL, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	sw_session *sens = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, "{\"sensitive\":true}", &sens, NULL), SW_OK);
	ck_assert_int_eq(sw_session_is_sensitive(sens), 1);
	ck_assert_int_eq(sw_artifact_save(sens, "screenshot", "s.png", "image/png", "x", 1, NULL, NULL, &err),
	                 SW_EDENIED);
	ck_assert_str_eq(sw_error_failure_code(err), "SENSITIVE_MODE_REFUSED");
	sw_error_free(err);
	ck_assert_int_eq(sw_artifact_save(sens, "report", "r.json", "application/json", "{}", 2, NULL, NULL, NULL),
	                 SW_OK);
	fx_close(&f);
}
END_TEST

/* ---- retention ---------------------------------------------------------- */

static void make_session_dir(const char *runs, const char *project, const char *id, int age_days, size_t bytes)
{
	char *dir = sw__asprintf("%s/%s/%s", runs, project, id);
	ck_assert_int_eq(sw__mkdirs(dir, 0700, NULL), SW_OK);
	char *st = sw__path_join(dir, "state.json");
	char *body = calloc(1, bytes + 1);
	memset(body, ' ', bytes);
	ck_assert_int_eq(sw_file_write_atomic(st, body, bytes, 0, NULL), SW_OK);
	struct timeval tv[2];
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= (time_t)age_days * 86400;
	tv[1] = tv[0];
	ck_assert_int_eq(utimes(st, tv), 0);
	ck_assert_int_eq(utimes(dir, tv), 0);
	free(body);
	free(st);
	free(dir);
}

START_TEST(test_retention_env)
{
	int dis = 0, inv = 0;
	ck_assert_int_eq(sw_retention_env(NULL, 30, &dis, &inv), 30);
	ck_assert_int_eq(sw_retention_env("  ", 30, &dis, &inv), 30);
	ck_assert_int_eq(sw_retention_env("7", 30, &dis, &inv), 7);
	ck_assert_int_eq(dis, 0);
	ck_assert_int_eq(sw_retention_env(" OFF ", 30, &dis, &inv), 0);
	ck_assert_int_eq(dis, 1);
	ck_assert_int_eq(sw_retention_env("never", 30, &dis, &inv), 0);
	ck_assert_int_eq(dis, 1);
	ck_assert_int_eq(sw_retention_env("0", 30, &dis, &inv), 0);
	ck_assert_int_eq(dis, 1);
	ck_assert_int_eq(sw_retention_env("0.5", 30, &dis, &inv), 30);
	ck_assert_int_eq(inv, 1);
	ck_assert_int_eq(dis, 0);
	ck_assert_int_eq(sw_retention_env("-3", 20, &dis, &inv), 20);
	ck_assert_int_eq(inv, 1);
	ck_assert_int_eq(sw_retention_env("1e1", 20, &dis, &inv), 20);
	ck_assert_int_eq(inv, 1);
}
END_TEST

START_TEST(test_prune_rules)
{
	fixture f;
	fx_open(&f);
	char *runs = sw__asprintf("%s/.swipium/runs", f.home);
	/* project A: 5 sessions aged 40..44 days, plus 2 fresh; keep 2 */
	for (int i = 0; i < 5; i++) {
		char id[16];
		snprintf(id, sizeof(id), "a%07d", i);
		make_session_dir(runs, "aaaaaaaaaaaaaaaa", id, 40 + i, 100);
	}
	make_session_dir(runs, "aaaaaaaaaaaaaaaa", "afresh01", 0, 10);
	make_session_dir(runs, "aaaaaaaaaaaaaaaa", "afresh02", 1, 10);
	/* project B: all old; one registered */
	make_session_dir(runs, "bbbbbbbbbbbbbbbb", "b0000000", 50, 1000);
	make_session_dir(runs, "bbbbbbbbbbbbbbbb", "b0000001", 51, 1000);
	char *regd = sw__asprintf("%s/bbbbbbbbbbbbbbbb/b0000001", runs);
	char *reg = sw__asprintf("[{\"id\":\"b0000001\",\"dir\":\"%s\"}]", regd);
	char *regpath = sw__asprintf("%s/.swipium/registry.json", f.home);
	ck_assert_int_eq(sw_file_write_atomic(regpath, reg, strlen(reg), 0, NULL), SW_OK);
	sw_prune_options o = SW_PRUNE_OPTIONS_INIT;
	o.days = 30;
	o.keep = 2;
	o.dry_run = 1;
	char *sum = NULL;
	ck_assert_int_eq(sw_store_prune(f.store, &o, &sum, NULL), SW_OK);
	json_t *j = json_loads(sum, 0, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "scanned")), 9);
	/* A: fresh two kept by keep; all 5 old ones go. B: keep 2 protects both */
	ck_assert_int_eq(json_integer_value(json_object_get(j, "deleted")), 5);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "bytes")), 500);
	json_decref(j);
	sw_free(sum);
	char *check = sw__asprintf("%s/aaaaaaaaaaaaaaaa/a0000000", runs);
	ck_assert(sw__is_dir(check)); /* dry run deleted nothing */
	o.dry_run = 0;
	o.keep = 0;
	ck_assert_int_eq(sw_store_prune(f.store, &o, &sum, NULL), SW_OK);
	j = json_loads(sum, 0, NULL);
	/* keep 0: A's 5 old + B's unregistered one; the registered one stays */
	ck_assert_int_eq(json_integer_value(json_object_get(j, "deleted")), 6);
	json_decref(j);
	sw_free(sum);
	ck_assert(!sw__is_dir(check));
	ck_assert(sw__is_dir(regd));
	char *fresh = sw__asprintf("%s/aaaaaaaaaaaaaaaa/afresh02", runs);
	ck_assert(sw__is_dir(fresh));
	/* corrupt registry: rebuilt from the session folders, so nothing is deleted, and the summary says so */
	ck_assert_int_eq(sw_file_write_atomic(regpath, "[{\"id\":", 7, 0, NULL), SW_OK);
	o.days = 0;
	ck_assert_int_eq(sw_store_prune(f.store, &o, &sum, NULL), SW_OK);
	j = json_loads(sum, 0, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "deleted")), 0);
	ck_assert_ptr_null(json_object_get(j, "skipped"));
	ck_assert_int_ge(json_integer_value(json_object_get(j, "registryRebuilt")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "errors")), 0);
	json_decref(j);
	sw_free(sum);
	ck_assert(sw__is_dir(fresh));
	/* live sessions are never pruned, even with days 0 and keep 0 */
	ck_assert_int_eq(unlink(regpath), 0);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	ck_assert_int_eq(unlink(regpath), 0);
	usleep(5000);
	ck_assert_int_eq(sw_store_prune(f.store, &o, &sum, NULL), SW_OK);
	ck_assert(sw__is_dir(sw_session_dir(s)));
	ck_assert(!sw__is_dir(fresh));
	sw_free(sum);
	free(fresh);
	free(check);
	free(regpath);
	free(reg);
	free(regd);
	free(runs);
	fx_close(&f);
}
END_TEST

START_TEST(test_projects_compaction)
{
	fixture f;
	fx_open(&f);
	char *path = sw__asprintf("%s/.swipium/projects.json", f.home);
	char *doc = sw__asprintf(
	    "{\"schemaVersion\":1,\"projects\":{"
	    "\"p1\":{\"projectId\":\"p1\",\"root\":\"%s\",\"lastSeenAt\":\"2026-01-01T00:00:00.000Z\",\"appMapPath\":"
	    "\"x\"},"
	    "\"p2\":{\"projectId\":\"p2\",\"root\":\"/nonexistent/root\",\"lastSeenAt\":\"2026-02-01T00:00:00.000Z\"},"
	    "\"p3\":{\"projectId\":\"p3\",\"lastSeenAt\":1}}}",
	    f.root);
	ck_assert_int_eq(sw__mkdirs(sw_store_dir(f.store), 0700, NULL), SW_OK);
	ck_assert_int_eq(sw_file_write_atomic(path, doc, strlen(doc), 0, NULL), SW_OK);
	sw_prune_options o = SW_PRUNE_OPTIONS_INIT;
	o.compact_projects = 1;
	char *sum = NULL;
	ck_assert_int_eq(sw_store_prune(f.store, &o, &sum, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(sum, "\"projects\":{\"before\":3,\"after\":1,\"removed\":2}"));
	sw_free(sum);
	json_t *j = load_json_file(path);
	ck_assert_uint_eq(json_object_size(json_object_get(j, "projects")), 1);
	ck_assert_ptr_nonnull(json_object_get(json_object_get(j, "projects"), "p1"));
	json_decref(j);
	/* a corrupt projects.json is set aside, not replaced */
	ck_assert_int_eq(sw_file_write_atomic(path, "nope", 4, 0, NULL), SW_OK);
	ck_assert_int_eq(sw_store_prune(f.store, &o, &sum, NULL), SW_OK);
	ck_assert(!sw__is_file(path));
	sw_free(sum);
	free(doc);
	free(path);
	fx_close(&f);
}
END_TEST

START_TEST(test_processes)
{
	fixture f;
	fx_open(&f);
	ck_assert_int_eq(sw_store_process_add(f.store, (int)getpid(), "metro", "abcd1234", NULL, NULL), SW_OK);
	ck_assert_int_eq(sw_store_process_add(f.store, (int)getpid(), "metro", "abcd1234", NULL, NULL), SW_OK);
	char *t = NULL;
	ck_assert_int_eq(sw_store_processes_json(f.store, &t, NULL), SW_OK);
	json_t *a = json_loads(t, 0, NULL);
	ck_assert_uint_eq(json_array_size(a), 1);
	json_t *e = json_array_get(a, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "pid")), getpid());
	ck_assert_str_eq(json_string_value(json_object_get(e, "kind")), "metro");
	ck_assert_ptr_nonnull(json_string_value(json_object_get(e, "procStart")));
	ck_assert_ptr_nonnull(json_string_value(json_object_get(e, "command")));
	json_decref(a);
	sw_free(t);
	ck_assert_int_eq(sw_store_process_remove(f.store, (int)getpid(), NULL), SW_OK);
	ck_assert_int_eq(sw_store_processes_json(f.store, &t, NULL), SW_OK);
	ck_assert_str_eq(t, "[]");
	sw_free(t);
	sw_error *err = NULL;
	ck_assert_int_eq(sw_store_process_add(f.store, 1, "shell", NULL, NULL, &err), SW_EINVAL);
	sw_error_free(err);
	fx_close(&f);
}
END_TEST

static pid_t spawn_sleep(bool leader)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (leader)
			setpgid(0, 0);
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	if (leader)
		setpgid(pid, pid);
	usleep(50000); /* let exec happen so ps shows the sleep command */
	return pid;
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

START_TEST(test_process_sweep)
{
	fixture f;
	fx_open(&f);
	pid_t orphan = spawn_sleep(true), emu = spawn_sleep(false), other = spawn_sleep(false);
	ck_assert_int_eq(sw_store_process_add(f.store, (int)orphan, "recording", NULL, NULL, NULL), SW_OK);
	ck_assert_int_eq(sw_store_process_add(f.store, (int)emu, "emulator", NULL, NULL, NULL), SW_OK);
	ck_assert_int_eq(sw_store_process_add(f.store, (int)other, "metro", NULL, NULL, NULL), SW_OK);
	char *t = NULL;
	ck_assert_int_eq(sw_store_processes_json(f.store, &t, NULL), SW_OK);
	json_t *a = json_loads(t, 0, NULL);
	sw_free(t);
	/* pretend a dead server recorded them; give `other` a command that no longer matches */
	pid_t gone = dead_pid();
	size_t i;
	json_t *e;
	json_array_foreach(a, i, e)
	{
		json_object_set_new(e, "serverPid", json_integer(gone));
		if (json_integer_value(json_object_get(e, "pid")) == other)
			json_object_set_new(e, "command", json_string("node metro-other start"));
	}
	json_array_append_new(
	    a, json_pack("{s:i, s:s, s:i}", "pid", (int)other, "kind", "recording", "serverPid", (int)gone));
	json_array_append_new(a, json_pack("{s:i, s:s, s:i, s:s, s:s}", "pid", 999999, "kind", "metro", "serverPid",
	                                   (int)getpid(), "procStart", "x", "command", "y"));
	char *text = json_dumps(a, 0), *path = sw__path_join(sw_store_dir(f.store), "processes.json");
	ck_assert_int_eq(sw_file_write_atomic(path, text, strlen(text), 0, NULL), SW_OK);
	free(text);
	json_decref(a);
	char *sum = NULL;
	ck_assert_int_eq(sw_store_sweep_processes(f.store, &sum, NULL), SW_OK);
	ck_assert_str_eq(sum, "{\"checked\":5,\"reaped\":1,\"adopted\":1,\"dropped\":2,\"kept\":1}");
	sw_free(sum);
	int st = 0;
	ck_assert_int_eq(waitpid(orphan, &st, 0), orphan);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	/* the mismatched and unfingerprinted ones were never signalled */
	ck_assert_int_eq(waitpid(other, &st, WNOHANG), 0);
	ck_assert_int_eq(waitpid(emu, &st, WNOHANG), 0);
	ck_assert_int_eq(sw_store_processes_json(f.store, &t, NULL), SW_OK);
	a = json_loads(t, 0, NULL);
	ck_assert_uint_eq(json_array_size(a), 2);
	json_array_foreach(a, i, e)
	{
		if (json_integer_value(json_object_get(e, "pid")) == emu)
			ck_assert_int_eq(json_integer_value(json_object_get(e, "serverPid")), getpid());
	}
	json_decref(a);
	sw_free(t);
	kill(emu, SIGKILL);
	kill(other, SIGKILL);
	waitpid(emu, NULL, 0);
	waitpid(other, NULL, 0);
	free(path);
	fx_close(&f);
}
END_TEST


/* Two stores on one HOME are two processes on one session (flock is per open file, like two processes). */
static size_t count_notes(sw_session *s, const char *needle)
{
	char *text = NULL;
	ck_assert_int_eq(sw_session_get_json(s, "notes", &text, NULL), SW_OK);
	json_t *arr = json_loads(text, 0, NULL);
	sw_free(text);
	size_t n = 0, i;
	json_t *it;
	json_array_foreach(arr, i, it)
	{
		const char *w = json_string_value(json_object_get(it, "workflow"));
		if (!needle || (w && !strcmp(w, needle)))
			n++;
	}
	json_decref(arr);
	return n;
}

START_TEST(test_two_processes_one_session_keep_every_note)
{
	fixture f;
	fx_open(&f);
	sw_session *a = NULL, *b = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &a, NULL), SW_OK);
	char *id = strdup(sw_session_id(a));
	sw_store *other = NULL;
	ck_assert_int_eq(sw_store_open(f.ctx, &other, NULL), SW_OK);
	ck_assert_int_eq(sw_store_get_session(other, id, &b, NULL), SW_OK); /* B loads before A's fail note */
	int persisted = 0;
	ck_assert_int_eq(sw_session_append_json_persisted(a, "notes", "{\"workflow\":\"checkout\",\"outcome\":\"fail\"}",
	                                                  &persisted, NULL, NULL),
	                 SW_OK);
	ck_assert_int_eq(persisted, 1);
	ck_assert_int_eq(sw_session_flush(a, NULL), SW_OK);
	for (int i = 0; i < 300; i++) {
		char note[96];
		snprintf(note, sizeof(note), "{\"workflow\":\"w%d\",\"outcome\":\"pass\"}", i);
		ck_assert_int_eq(sw_session_add_note(b, note, NULL), SW_OK);
		if (i == 150)
			ck_assert_int_eq(sw_session_flush(b, NULL), SW_OK);
	}
	ck_assert_int_eq(sw_session_ledger_append(a, "{\"id\":\"m1\",\"tool\":\"qa_network\",\"status\":\"applied\"}", NULL),
	                 SW_OK);
	ck_assert_int_eq(sw_session_counter_add(a, "actions", 2, NULL), SW_OK);
	ck_assert_int_eq(sw_session_counter_add(b, "actions", 3, NULL), SW_OK);
	ck_assert_int_eq(sw_session_flush(b, NULL), SW_OK);
	/* each process sees the other's records */
	ck_assert_uint_eq(count_notes(b, "checkout"), 1);
	ck_assert_uint_eq(count_notes(a, NULL), 301);
	sw_store_free(other);
	sw_store_free(f.store);
	/* a third process reads everything back: nobody's save overwrote anybody's notes */
	ck_assert_int_eq(sw_store_open(f.ctx, &f.store, NULL), SW_OK);
	sw_session *c = NULL;
	ck_assert_int_eq(sw_store_get_session(f.store, id, &c, NULL), SW_OK);
	ck_assert_uint_eq(count_notes(c, "checkout"), 1);
	ck_assert_uint_eq(count_notes(c, NULL), 301);
	char *counters = NULL;
	ck_assert_int_eq(sw_session_get_json(c, "counters", &counters, NULL), SW_OK);
	json_t *cj = json_loads(counters, 0, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(cj, "actions")), 5);
	json_decref(cj);
	sw_free(counters);
	char *ledger = NULL;
	ck_assert_int_eq(sw_session_get_json(c, "mutations", &ledger, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(ledger, "\"m1\""));
	sw_free(ledger);
	/* the sole owner compacted the journal: it holds no record any more, and a reload still has them all */
	ck_assert_int_eq(sw_session_flush(c, NULL), SW_OK);
	char *jpath = sw__path_join(sw_session_dir(c), "journal.jsonl");
	char *jtext = slurp(jpath);
	ck_assert_ptr_null(strstr(jtext, "checkout"));
	free(jtext);
	free(jpath);
	fx_reopen(&f);
	ck_assert_int_eq(sw_store_get_session(f.store, id, &c, NULL), SW_OK);
	ck_assert_uint_eq(count_notes(c, NULL), 301);
	free(id);
	fx_close(&f);
}
END_TEST

/* A crash between state.json and journal.pos replays journal lines the checkpoint holds: no record is
 * doubled, and equal records that really were written more than once all stay. */
START_TEST(test_journal_replay_after_a_crash_doubles_nothing)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	char *id = strdup(sw_session_id(s));
	for (int i = 0; i < 40; i++) {
		char note[96];
		snprintf(note, sizeof(note), "{\"workflow\":\"w%d\",\"outcome\":\"pass\"}", i);
		ck_assert_int_eq(sw_session_add_note(s, note, NULL), SW_OK);
	}
	ck_assert_int_eq(sw_session_flush(s, NULL), SW_OK);
	const char *twin = "{\"workflow\":\"twin\",\"outcome\":\"pass\",\"at\":\"2026-01-01T00:00:00.000Z\"}";
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(sw_session_add_note(s, twin, NULL), SW_OK);
	/* the journal and its mark as they are before the next checkpoint */
	char *jpath = sw__path_join(sw_session_dir(s), "journal.jsonl");
	char *pos = sw__path_join(sw_session_dir(s), "journal.pos");
	char *jtext = slurp(jpath), *ptext = slurp(pos);
	ck_assert_ptr_nonnull(strstr(jtext, "twin"));
	sw_store_free(f.store); /* the checkpoint: state.json holds all 43 notes */
	/* the crash: state.json was written, journal.pos (and the compaction) never happened */
	ck_assert_int_eq(sw_file_write_atomic(jpath, jtext, strlen(jtext), 0, NULL), SW_OK);
	ck_assert_int_eq(sw_file_write_atomic(pos, ptext, strlen(ptext), 0, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(f.ctx, &f.store, NULL), SW_OK);
	ck_assert_int_eq(sw_store_get_session(f.store, id, &s, NULL), SW_OK);
	ck_assert_uint_eq(count_notes(s, NULL), 43);
	ck_assert_uint_eq(count_notes(s, "twin"), 3);
	free(jtext);
	free(ptext);
	free(jpath);
	free(pos);
	free(id);
	fx_close(&f);
}
END_TEST

/* journal.pos is written without fsync (SW__WRITE_NO_SYNC): after a crash it may be missing or empty (its data
 * never reached the disk). Either way the load replays the journal from its start and doubles nothing. */
START_TEST(test_lost_or_empty_mark_doubles_nothing)
{
	for (int variant = 0; variant < 2; variant++) {
		fixture f;
		fx_open(&f);
		sw_session *s = NULL;
		ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
		char *id = strdup(sw_session_id(s));
		for (int i = 0; i < 20; i++) {
			char note[96];
			snprintf(note, sizeof(note), "{\"workflow\":\"w%d\",\"outcome\":\"pass\"}", i);
			ck_assert_int_eq(sw_session_add_note(s, note, NULL), SW_OK);
		}
		ck_assert_int_eq(sw_session_flush(s, NULL), SW_OK);
		for (int i = 0; i < 5; i++)
			ck_assert_int_eq(sw_session_add_note(s, "{\"workflow\":\"late\",\"outcome\":\"fail\"}", NULL), SW_OK);
		char *jpath = sw__path_join(sw_session_dir(s), "journal.jsonl");
		char *pos = sw__path_join(sw_session_dir(s), "journal.pos");
		char *jtext = slurp(jpath);
		sw_store_free(f.store);
		ck_assert_int_eq(sw_file_write_atomic(jpath, jtext, strlen(jtext), 0, NULL), SW_OK);
		if (variant == 0)
			unlink(pos);
		else
			ck_assert_int_eq(sw_file_write_atomic(pos, "", 0, 0, NULL), SW_OK);
		ck_assert_int_eq(sw_store_open(f.ctx, &f.store, NULL), SW_OK);
		ck_assert_int_eq(sw_store_get_session(f.store, id, &s, NULL), SW_OK);
		ck_assert_uint_eq(count_notes(s, NULL), 25);
		ck_assert_uint_eq(count_notes(s, "late"), 5);
		free(jtext);
		free(jpath);
		free(pos);
		free(id);
		fx_close(&f);
	}
}
END_TEST

/* A record the disk refuses is still kept in memory, and the call says it is not saved. */
START_TEST(test_unwritable_journal_says_not_persisted)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	char *jpath = sw__path_join(sw_session_dir(s), "journal.jsonl");
	unlink(jpath);
	ck_assert_int_eq(mkdir(jpath, 0700), 0); /* opening it for appending now fails (EISDIR) */
	int persisted = 1;
	char *warning = NULL;
	ck_assert_int_eq(sw_session_append_json_persisted(s, "notes", "{\"workflow\":\"a\",\"outcome\":\"fail\"}",
	                                                  &persisted, &warning, NULL),
	                 SW_OK);
	ck_assert_int_eq(persisted, 0);
	ck_assert_ptr_nonnull(warning);
	ck_assert_ptr_nonnull(strstr(warning, "not on disk"));
	sw_free(warning);
	char *sum = NULL;
	ck_assert_int_eq(sw_session_summary_json(s, &sum, NULL), SW_OK);
	json_t *j = json_loads(sum, 0, NULL);
	ck_assert(json_is_false(json_object_get(j, "persisted")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "notes")), 1);
	json_decref(j);
	sw_free(sum);
	ck_assert_uint_eq(count_notes(s, "a"), 1);
	/* the disk comes back: the next record is persisted, and the checkpoint holds both */
	ck_assert_int_eq(rmdir(jpath), 0);
	ck_assert_int_eq(sw_session_append_json_persisted(s, "notes", "{\"workflow\":\"b\",\"outcome\":\"pass\"}",
	                                                  &persisted, NULL, NULL),
	                 SW_OK);
	ck_assert_int_eq(persisted, 1);
	char *id = strdup(sw_session_id(s));
	fx_reopen(&f);
	ck_assert_int_eq(sw_store_get_session(f.store, id, &s, NULL), SW_OK);
	ck_assert_uint_eq(count_notes(s, NULL), 2);
	free(id);
	free(jpath);
	fx_close(&f);
}
END_TEST

/* Summary counts follow appends and reloads without copying the lists. */
START_TEST(test_summary_counts)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_note(s, "{\"workflow\":\"a\",\"at\":\"2026-01-01T00:00:00.000Z\"}", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_note(s, "{\"workflow\":\"b\",\"at\":\"2026-03-01T00:00:00.000Z\"}", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_note(s, "{\"workflow\":\"c\",\"at\":\"2026-02-01T00:00:00.000Z\"}", NULL), SW_OK);
	ck_assert_int_eq(sw_session_add_finding(s, "{\"title\":\"x\",\"at\":\"2026-01-05T00:00:00.000Z\"}", NULL), SW_OK);
	char *id = strdup(sw_session_id(s));
	for (int round = 0; round < 2; round++) {
		char *sum = NULL;
		ck_assert_int_eq(sw_session_summary_json(s, &sum, NULL), SW_OK);
		json_t *j = json_loads(sum, 0, NULL);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "notes")), 3);
		ck_assert_str_eq(json_string_value(json_object_get(j, "notesLastAt")), "2026-03-01T00:00:00.000Z");
		ck_assert_int_eq(json_integer_value(json_object_get(j, "findings")), 1);
		ck_assert_str_eq(json_string_value(json_object_get(j, "findingsLastAt")), "2026-01-05T00:00:00.000Z");
		ck_assert(json_is_true(json_object_get(j, "persisted")));
		json_decref(j);
		sw_free(sum);
		fx_reopen(&f);
		ck_assert_int_eq(sw_store_get_session(f.store, id, &s, NULL), SW_OK);
	}
	free(id);
	fx_close(&f);
}
END_TEST

/* Evidence is never overwritten, and numbered names go on past every name in use. */
START_TEST(test_artifact_names_never_reused)
{
	fixture f;
	fx_open(&f);
	sw_session *s = NULL;
	ck_assert_int_eq(sw_session_create(f.store, f.root, NULL, NULL, &s, NULL), SW_OK);
	char *meta = NULL, *name = NULL;
	ck_assert_int_eq(sw_artifact_next_name(s, "screenshot", "screenshot", ".png", &name, NULL), SW_OK);
	ck_assert_str_eq(name, "screenshot-001.png");
	ck_assert_int_eq(sw_artifact_save(s, "screenshot", name, "image/png", "one", 3, NULL, &meta, NULL), SW_OK);
	sw_free(meta);
	sw_free(name);
	/* the same name again: a new file beside it, the first stays as it was */
	ck_assert_int_eq(sw_artifact_save(s, "screenshot", "screenshot-001.png", "image/png", "two", 3, NULL, &meta, NULL),
	                 SW_OK);
	json_t *m = json_loads(meta, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(m, "uri")) + strlen(json_string_value(json_object_get(m, "uri"))) -
	                     strlen("screenshot-001-2.png"),
	                 "screenshot-001-2.png");
	json_decref(m);
	sw_free(meta);
	char *p1 = sw__asprintf("%s/screenshots/screenshot-001.png", sw_session_dir(s));
	char *t1 = slurp(p1);
	ck_assert_str_eq(t1, "one");
	free(t1);
	/* a file another process (or an earlier binding) left counts too */
	char *p7 = sw__asprintf("%s/screenshots/screenshot-007.png", sw_session_dir(s));
	ck_assert_int_eq(sw_file_write_atomic(p7, "x", 1, 0, NULL), SW_OK);
	ck_assert_int_eq(sw_artifact_next_name(s, "screenshot", "screenshot", ".png", &name, NULL), SW_OK);
	ck_assert_str_eq(name, "screenshot-008.png");
	sw_free(name);
	/* a recorded artifact whose file is gone is never reused either (a note may point to it) */
	ck_assert_int_eq(sw_artifact_save(s, "screenshot", "screenshot-008.png", "image/png", "8", 1, NULL, NULL, NULL), SW_OK);
	char *p8 = sw__asprintf("%s/screenshots/screenshot-008.png", sw_session_dir(s));
	ck_assert_int_eq(unlink(p8), 0);
	ck_assert_int_eq(unlink(p7), 0);
	ck_assert_int_eq(sw_artifact_next_name(s, "screenshot", "screenshot", ".png", &name, NULL), SW_OK);
	ck_assert_str_eq(name, "screenshot-009.png");
	sw_free(name);
	ck_assert_int_eq(sw_artifact_save(s, "screenshot", "screenshot-008.png", "image/png", "8b", 2, NULL, &meta, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(meta, "screenshot-008-2.png"));
	sw_free(meta);
	free(p1);
	free(p7);
	free(p8);
	fx_close(&f);
}
END_TEST

static Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("sessions");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_create_layout_and_key_order);
	tcase_add_test(tc, test_unknown_session);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_redacted_persistence);
	tcase_add_test(tc, test_redaction_keeps_own_keys);
	tcase_add_test(tc, test_debounced_save);
	tcase_add_test(tc, test_ledger_sync_and_cap);
	tcase_add_test(tc, test_caps_tool_errors_and_actions);
	tcase_add_test(tc, test_many_notes);
	tcase_add_test(tc, test_counters_budget);
	tcase_add_test(tc, test_concurrent_writers);
	tcase_add_test(tc, test_registry_cap);
	tcase_add_test(tc, test_two_processes_one_session_keep_every_note);
	tcase_add_test(tc, test_unwritable_journal_says_not_persisted);
	tcase_add_test(tc, test_journal_replay_after_a_crash_doubles_nothing);
	tcase_add_test(tc, test_lost_or_empty_mark_doubles_nothing);
	tcase_add_test(tc, test_summary_counts);
	suite_add_tcase(s, tc);
	tc = tcase_create("rehydration");
	tcase_add_test(tc, test_rehydration);
	tcase_add_test(tc, test_rehydration_fills_defaults_and_sets_aside_corrupt);
	tcase_add_test(tc, test_corrupt_registry_is_rebuilt_from_the_folders);
	tcase_add_test(tc, test_session_from_another_process);
	suite_add_tcase(s, tc);
	tc = tcase_create("artifacts");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_artifact_uri_and_names);
	tcase_add_test(tc, test_artifact_save_read);
	tcase_add_test(tc, test_artifact_record_outside_session_refused);
	tcase_add_test(tc, test_artifact_caps);
	tcase_add_test(tc, test_artifact_register_and_sensitive);
	tcase_add_test(tc, test_artifact_names_never_reused);
	suite_add_tcase(s, tc);
	tc = tcase_create("retention");
	tcase_add_test(tc, test_retention_env);
	tcase_add_test(tc, test_prune_rules);
	tcase_add_test(tc, test_projects_compaction);
	tcase_add_test(tc, test_processes);
	tcase_add_test(tc, test_process_sweep);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(store_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
