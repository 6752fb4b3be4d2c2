/* store-helper.c: drives the session store through the public API for the crash-safety and secret-scan tests. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <swipium/redact.h>
#include <swipium/swipium.h>

static sw_ctx *ctx;
static sw_store *store;

static void die(const char *what, sw_error *err)
{
	fprintf(stderr, "store-helper: %s: %s\n", what, err ? sw_error_message(err) : "failed");
	exit(1);
}

#define CHECK(call, what)                                                                                              \
	do {                                                                                                           \
		sw_error *e_ = NULL;                                                                                   \
		if ((call) != SW_OK)                                                                                   \
			die(what, e_);                                                                                 \
	} while (0)

/* JSON text of a jansson value built with json_pack. */
static char *js(json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	if (!s)
		die("json", NULL);
	return s;
}

static void open_store(void)
{
	if (sw_ctx_new(&ctx, NULL) != SW_OK || sw_store_open(ctx, &store, NULL) != SW_OK)
		die("open", NULL);
}

/* Writes sessions forever (until killed): notes, ledger rows (synchronous), artifacts, new sessions. */
static int mode_write(const char *root)
{
	open_store();
	sw_session *s = NULL;
	sw_error *err = NULL;
	if (sw_session_create(store, root, "arg", NULL, &s, &err) != SW_OK)
		die("create", err);
	for (unsigned long i = 0;; i++) {
		char buf[256];
		snprintf(buf, sizeof(buf), "{\"workflow\":\"wf%lu\",\"outcome\":\"pass\",\"reason\":\"iteration %lu\"}",
		         i, i);
		if (sw_session_add_note(s, buf, &err) != SW_OK)
			die("note", err);
		if (i % 3 == 0) {
			snprintf(buf, sizeof(buf),
			         "{\"id\":\"%08lx\",\"at\":%lu,\"tool\":\"qa_network\",\"action\":\"network_change\","
			         "\"risk\":\"medium\",\"target\":{\"mode\":\"offline\"},\"status\":\"executed\"}",
			         i, i);
			if (sw_session_ledger_append(s, buf, &err) != SW_OK)
				die("ledger", err);
		}
		if (i % 5 == 0) {
			snprintf(buf, sizeof(buf), "log line %lu\n", i);
			if (sw_artifact_save(s, "logs", "run.log", "text/plain", buf, strlen(buf), NULL, NULL, &err) !=
			    SW_OK)
				die("artifact", err);
		}
		if (i % 40 == 39 && sw_session_create(store, root, "arg", NULL, &s, &err) != SW_OK)
			die("create", err);
	}
	return 0;
}

/* Reloads every listed session id; fails when one does not come back. */
static int mode_reload(int argc, char **argv)
{
	open_store();
	for (int i = 0; i < argc; i++) {
		sw_session *s = NULL;
		sw_error *err = NULL;
		if (sw_store_get_session(store, argv[i], &s, &err) != SW_OK)
			die(argv[i], err);
		char *st = NULL;
		if (sw_session_state_json(s, &st, &err) != SW_OK)
			die("state", err);
		sw_free(st);
	}
	sw_store_free(store);
	sw_ctx_free(ctx);
	return 0;
}

static char *xml_escape(const char *in)
{
	size_t n = 0;
	char *out = malloc(strlen(in) * 6 + 1);
	if (!out)
		die("oom", NULL);
	for (const char *p = in; *p; p++) {
		const char *rep = *p == '&'    ? "&amp;"
		                  : *p == '<'  ? "&lt;"
		                  : *p == '>'  ? "&gt;"
		                  : *p == '"'  ? "&quot;"
		                  : *p == '\'' ? "&apos;"
		                               : NULL;
		if (rep) {
			memcpy(out + n, rep, strlen(rep));
			n += strlen(rep);
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return out;
}

static int job_with_secrets(sw_job *job, void *ud, char **result, sw_error **err)
{
	const char *const *sec = ud;
	char *detail = js(json_pack("{s:s, s:s}", "phase", "login", "statusText", sec[0]));
	char *prog = NULL;
	if (asprintf(&prog, "typing %s then %s", sec[0], sec[2]) < 0)
		return SW_ENOMEM;
	sw_job_set_progress(job, prog, detail, err);
	free(prog);
	free(detail);
	*result =
	    js(json_pack("{s:s, s:s, s:{s:s}}", "state", "completed", "summary", sec[1], "nested", sec[2], sec[0]));
	return SW_OK;
}

/* Registers secrets of every kind, then uses the session everywhere a secret could leak. */
static int mode_secrets(const char *root, int argc, char **argv)
{
	/* argv: password token pin three */
	if (argc < 4)
		die("usage: secrets ROOT PASSWORD TOKEN PIN THREE", NULL);
	const char *pw = argv[0], *tok = argv[1], *pin = argv[2], *three = argv[3];
	open_store();
	sw_session *s = NULL;
	sw_error *err = NULL;
	if (sw_session_create(store, root, "arg", NULL, &s, &err) != SW_OK)
		die("create", err);
	sw_redactor *r = sw_session_redactor(s);
	for (int i = 0; i < 4; i++)
		CHECK(sw_redactor_add_secret(r, argv[i], &e_), "secret");
	char *t;
	t = js(json_pack("{s:s, s:s, s:s, s:s}", "workflow", "login", "outcome", "fail", "reason",
	                 "password field kept", "recommendedSetup", pw));
	CHECK(sw_session_add_note(s, t, &e_), "note");
	free(t);
	char *line = NULL;
	if (asprintf(&line, "typed %s with pin %s and code %s.", pw, pin, three) < 0)
		die("oom", NULL);
	t = js(json_pack("{s:s, s:s, s:s, s:s}", "severity", "high", "kind", "app_error_boundary", "detail", line,
	                 "evidence", tok));
	CHECK(sw_session_add_finding(s, t, &e_), "finding");
	free(t);
	CHECK(sw_session_add_tool_error(s, "qa_act", "ELEMENT_NOT_FOUND", line, &e_), "tool error");
	CHECK(sw_session_add_env_change(s, line, &e_), "env change");
	t = js(json_pack("{s:s, s:s, s:s}", "goal", "test_login", "goalText", line, tok, "as a key"));
	CHECK(sw_session_set_json(s, "lastTestThisArgs", t, &e_), "lastTestThisArgs");
	free(t);
	t = js(json_pack("{s:s, s:b, s:s, s:s}", "varName", "SWIPIUM_TEST_PASSWORD", "secret", 1, "source", "blocker",
	                 "value", pw));
	CHECK(sw_session_append_json(s, "inputs", t, &e_), "input");
	free(t);
	t = js(json_pack("{s:s, s:s, s:s, s:b}", "fixture", "acct", "field", "pin", "value", pin, "secret", 1));
	CHECK(sw_session_append_json(s, "generatedValues", t, &e_), "generated");
	free(t);
	t = js(json_pack("{s:s, s:s, s:s, s:s, s:{s:s}}", "kind", "type", "text", tok, "placeholder",
	                 "${SWIPIUM_TEST_TOKEN}", "selector", line, "target", "label", pw));
	CHECK(sw_session_append_json(s, "recordedActions", t, &e_), "action");
	free(t);
	t = js(json_pack("{s:s, s:I, s:s, s:s, s:s, s:{s:s}, s:s, s:s}", "id", "a1b2c3d4", "at", (json_int_t)1, "tool",
	                 "qa_act", "action", "destructive_ui_candidate", "risk", "high", "target", "text", pw, "status",
	                 "executed", "detail", line));
	CHECK(sw_session_ledger_append(s, t, &e_), "ledger");
	free(t);
	/* artifacts: plain text, JSON with escaped spellings, XML with entity spellings, a label */
	CHECK(sw_artifact_save(s, "logs", "app.log", "text/plain", line, strlen(line), pw, NULL, &e_), "log");
	t = js(json_pack("{s:s, s:s, s:[s, s]}", "password", pw, tok, "key holds the token", "list", pin, line));
	CHECK(sw_artifact_save(s, "report", "report-1.json", "application/json", t, strlen(t), NULL, NULL, &e_),
	      "json");
	free(t);
	/* XML: the password's XML-escaped spelling inside an attribute and as text */
	char *xml = NULL, *pwx = xml_escape(pw);
	if (asprintf(&xml, "<hierarchy><node text=\"%s\" bounds=\"[0,0][1,1]\"/><n>%s</n><!-- %s --></hierarchy>", pwx,
	             tok, pin) < 0)
		die("oom", NULL);
	CHECK(sw_artifact_save(s, "dump", "dump-1.xml", "application/xml", xml, strlen(xml), NULL, NULL, &e_), "xml");
	free(xml);
	free(pwx);
	/* a job whose progress and result carry secrets */
	char *jid = NULL;
	static const char *secs[3];
	secs[0] = pw;
	secs[1] = tok;
	secs[2] = pin;
	CHECK(sw_job_start(s, "test_this", job_with_secrets, (void *)secs, NULL, &jid, &e_), "job");
	char *st = NULL;
	CHECK(sw_job_status_json(s, jid, 50000, NULL, NULL, &st, &e_), "job status");
	printf("%s\n%s\n", sw_session_id(s), st);
	sw_free(st);
	sw_free(jid);
	free(line);
	sw_store_free(store); /* flushes */
	sw_ctx_free(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "write"))
		return mode_write(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "reload"))
		return mode_reload(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "secrets"))
		return mode_secrets(argv[2], argc - 3, argv + 3);
	fprintf(stderr, "usage: store-helper write ROOT | reload ID... | secrets ROOT PASSWORD TOKEN PIN THREE\n");
	return 2;
}
