/*
 * seed.c: the fixtures a run sees and the seeds of the flow step `seed: <fixture>`.
 *
 * Fixtures come from two places: `.swipium/fixtures.json` (the repository's, read again at each use, so a
 * session rehydrated after a restart has the file's values) and the fixtures given inline to the session
 * (memory only: gone after a restart, as the spec says). A seed puts the app in a known state before a
 * flow: a deep link opened through the drive, an HTTP call, or a program run as an argv. Everything about a
 * seed comes from the repository and is unreviewed: the consent prompt shows it, and no value it carries
 * (header values, bodies, secret fields) is written anywhere.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seed-internal.h"
#include "sw-proc.h"
#include "../actions/actions-internal.h"
#include <swipium/redact.h>
#include <swipium/util.h>

#define FIXTURES_FILE ".swipium/fixtures.json"
#define FIXTURES_MAX (1024 * 1024)
#define SEED_SCRIPT_MS 120000
#define SEED_HTTP_MS 30000

/* Appends @t (owned, nullable) to @notes (nullable). */
static void note(json_t *notes, char *t)
{
	if (notes && t)
		json_array_append_new(notes, json_string(t));
	free(t);
}

/* The file's fixtures (a new array), or NULL when there is no file. */
static json_t *read_file_fixtures(const char *root, json_t *notes)
{
	if (!root)
		return NULL;
	sw_error *e = NULL;
	int fd = sw__confine_open(root, FIXTURES_FILE, O_RDONLY, 0, SW__CONFINE_EXISTING, NULL, &e);
	if (fd < 0) {
		if (sw_error_code(e) != SW_ENOTFOUND)
			note(notes, sw__asprintf("%s was not read: %s", FIXTURES_FILE, sw_error_message(e)));
		sw_error_free(e);
		return NULL;
	}
	sw_buf b = SW_BUF_INIT;
	char chunk[8192];
	ssize_t n;
	bool big = false;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		if (b.len + (size_t)n > FIXTURES_MAX) {
			big = true;
			break;
		}
		sw__buf_append(&b, chunk, (size_t)n);
	}
	close(fd);
	if (big || n < 0 || b.failed) {
		note(notes, sw__asprintf("%s was not read: %s", FIXTURES_FILE, big ? "it is larger than 1 MiB" : "a read failed"));
		sw__buf_free(&b);
		return NULL;
	}
	json_error_t je;
	json_t *doc = json_loadb(b.data ? b.data : "", b.len, 0, &je);
	sw__buf_free(&b);
	if (!doc) {
		note(notes, sw__asprintf("%s is not valid JSON (%s); its fixtures were not used", FIXTURES_FILE, je.text));
		return NULL;
	}
	json_t *list = json_is_array(doc) ? doc : json_object_get(doc, "fixtures");
	if (!json_is_array(list)) {
		note(notes, sw__asprintf("%s has no fixtures array", FIXTURES_FILE));
		json_decref(doc);
		return NULL;
	}
	json_t *out = json_array();
	size_t i;
	json_t *f;
	json_array_foreach(list, i, f)
	{
		if (!json_is_object(f) || !json_is_string(json_object_get(f, "name")) ||
		    !json_string_length(json_object_get(f, "name"))) {
			note(notes, sw__asprintf("%s: fixtures[%zu] has no name and was left out", FIXTURES_FILE, i));
			continue;
		}
		json_array_append(out, f);
	}
	json_decref(doc);
	return out;
}

json_t *sw__fixture_find(const json_t *fixtures, const char *name)
{
	size_t i;
	json_t *f;
	json_array_foreach(fixtures, i, f)
	{
		const char *n = json_string_value(json_object_get(f, "name"));
		if (name && n && !strcmp(n, name))
			return f;
	}
	return NULL;
}

static void register_secrets(sw_session *s, const json_t *fixtures)
{
	sw_redactor *r = s ? sw_session_redactor(s) : NULL;
	if (!r)
		return;
	size_t i;
	json_t *f;
	json_array_foreach(fixtures, i, f)
	{
		const char *k;
		json_t *fld;
		json_object_foreach(json_object_get(f, "fields"), k, fld)
		{
			const char *v = json_string_value(json_object_get(fld, "value"));
			if (v && *v && (json_is_true(json_object_get(fld, "secret")) || sw_redact_is_secret_name(k)))
				sw_redactor_add_secret(r, v, NULL);
		}
		/* header values of a seed may hold tokens: each one is a secret */
		json_t *seed = json_object_get(f, "seed");
		json_t *specs[2] = {seed, json_object_get(seed, "cleanup")};
		for (int j = 0; j < 2; j++) {
			json_t *hv;
			json_object_foreach(json_object_get(specs[j], "headers"), k, hv)
			{
				if (json_string_length(hv) >= 3)
					sw_redactor_add_secret(r, json_string_value(hv), NULL);
			}
		}
	}
}

json_t *sw__fixtures_load(sw_session *s, const char *root, json_t *notes)
{
	json_t *all = read_file_fixtures(root, notes);
	if (!all)
		all = json_array();
	json_t *live = s ? sw__session_fixtures_live(s) : NULL;
	size_t i;
	json_t *f;
	json_array_foreach(live, i, f)
	{
		const char *name = json_string_value(json_object_get(f, "name"));
		if (!name)
			continue;
		/* an inline fixture wins over the file's of the same name */
		size_t k;
		json_t *g;
		json_array_foreach(all, k, g)
		{
			if (!strcmp(json_string_value(json_object_get(g, "name")), name)) {
				json_array_remove(all, k);
				break;
			}
		}
		json_array_append(all, f);
	}
	json_decref(live);
	register_secrets(s, all);
	return all;
}

/* ---- describing a seed (the consent prompt) -------------------------------------------------------------- */

/* The argv of a script seed: an array of strings, or (deprecated) a string split on blanks, never a shell. */
static json_t *argv_of(const json_t *spec)
{
	json_t *c = json_object_get(spec, "command");
	if (json_is_array(c)) {
		size_t i;
		json_t *a;
		if (!json_array_size(c))
			return NULL;
		json_array_foreach(c, i, a) if (!json_is_string(a) || (i == 0 && !json_string_length(a))) return NULL;
		return json_incref(c);
	}
	if (!json_is_string(c))
		return NULL;
	json_t *out = json_array();
	const char *p = json_string_value(c);
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = strcspn(p, " \t");
		if (n)
			json_array_append_new(out, json_stringn(p, n));
		p += n;
	}
	if (!json_array_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

static const char *seed_type(const json_t *spec)
{
	const char *t = json_string_value(json_object_get(spec, "type"));
	if (t && (!strcmp(t, "deeplink") || !strcmp(t, "script") || !strcmp(t, "api")))
		return t;
	return NULL;
}

static const char *http_method(const json_t *spec)
{
	const char *m = json_string_value(json_object_get(spec, "method"));
	if (m)
		return m;
	return json_object_get(spec, "body") ? "POST" : "GET";
}

/* One spec as prompt text appended to @b and as an affects object; false when it is not a valid seed. */
static bool describe_spec(const json_t *spec, sw_buf *b, json_t *aff, bool *script)
{
	const char *type = seed_type(spec);
	if (!type)
		return false;
	json_object_set_new(aff, "type", json_string(type));
	if (!strcmp(type, "script")) {
		json_t *argv = argv_of(spec);
		if (!argv)
			return false;
		*script = true;
		sw__buf_puts(b, "script argv [");
		size_t i;
		json_t *a;
		json_array_foreach(argv, i, a)
		{
			sw__buf_printf(b, "%s'%s'", i ? ", " : "", json_string_value(a));
		}
		sw__buf_puts(b, "] run in the project root");
		json_object_set_new(aff, "argv", argv);
		return true;
	}
	const char *url = json_string_value(json_object_get(spec, "url"));
	if (!url || !*url)
		return false;
	json_object_set_new(aff, "url", json_string(url));
	if (!strcmp(type, "deeplink")) {
		sw__buf_printf(b, "deep link %s opened on the device", url);
		return true;
	}
	const char *m = http_method(spec);
	json_object_set_new(aff, "method", json_string(m));
	sw__buf_printf(b, "HTTP %s %s", m, url);
	json_t *h = json_object_get(spec, "headers");
	if (json_object_size(h)) {
		json_t *names = json_array();
		sw__buf_puts(b, " with headers ");
		const char *k;
		json_t *v;
		size_t n = 0;
		json_object_foreach(h, k, v)
		{
			sw__buf_printf(b, "%s%s: <hidden>", n++ ? ", " : "", k);
			json_array_append_new(names, json_string(k));
		}
		json_object_set_new(aff, "headers", names);
	}
	const char *body = json_string_value(json_object_get(spec, "body"));
	json_t *bj = json_object_get(spec, "body");
	if (bj) {
		char *bt = body ? NULL : json_dumps(bj, JSON_COMPACT | JSON_ENCODE_ANY);
		size_t len = body ? strlen(body) : (bt ? strlen(bt) : 0);
		sw__buf_printf(b, " and a %zu-byte body (not shown)", len);
		free(bt);
	}
	return true;
}

void sw__seed_describe(const json_t *fixtures, const char *name, char **line, json_t **affects, bool *script)
{
	*line = NULL;
	*affects = json_pack("{s:s,s:s}", "kind", "seed", "fixture", name ? name : "");
	json_t *f = sw__fixture_find(fixtures, name);
	json_t *seed = json_object_get(f, "seed");
	sw_buf b = SW_BUF_INIT;
	sw__buf_printf(&b, "seed fixture \"%s\" (repo-supplied, unreviewed): ", name ? name : "");
	bool ok = false;
	if (!f) {
		sw__buf_puts(&b, "not declared in .swipium/fixtures.json or the session; the run fails MISSING_FIXTURE");
		*script = true;
	} else if (!seed) {
		sw__buf_puts(&b, "the fixture declares no seed; the run fails MISSING_FIXTURE");
		*script = true;
	} else if (!(ok = describe_spec(seed, &b, *affects, script))) {
		sw__buf_puts(&b, "its seed is not valid (type deeplink|script|api with url or command); the run fails");
		*script = true;
	}
	json_t *cl = json_object_get(seed, "cleanup");
	if (ok && cl) {
		json_t *caff = json_object();
		sw__buf_puts(&b, "; cleanup at teardown: ");
		if (!describe_spec(cl, &b, caff, script)) {
			sw__buf_puts(&b, "not valid (it will fail)");
			*script = true;
		}
		json_object_set_new(*affects, "cleanup", caff);
	}
	*line = sw__buf_steal(&b, NULL);
}

/* ---- running a seed ------------------------------------------------------------------------------------- */

static int seed_failed(sw_error **err, const char *name, const char *what)
{
	return sw__error_set(err, SW_EIO, "SEED_FAILED",
	                     "Check the seed of the fixture (.swipium/fixtures.json or qa_start_session fixtures) and the "
	                     "service or program it calls, then run the flow again.",
	                     "the seed of fixture \"%s\" failed: %s", name, what);
}

static int subst(const sw__seed_env *env, const char *in, char **out, sw_error **err)
{
	if (env->subst && strstr(in, "${"))
		return env->subst(env->subst_ud, in, out, err);
	*out = sw__strdup(in);
	return *out ? SW_OK : sw__error_nomem(err);
}

static int run_deeplink(const sw__seed_env *env, const char *name, const json_t *spec, json_t *sum, sw_error **err)
{
	char *url = NULL;
	int rc = subst(env, json_string_value(json_object_get(spec, "url")), &url, err);
	if (rc < 0)
		return rc;
	if (!env->drive) {
		free(url);
		return seed_failed(err, name, "no device is bound to open the deep link on");
	}
	json_t *args = json_pack("{s:s,s:s,s:s}", "action", "open_url", "url", url, "observe", "none");
	free(url);
	json_t *res = NULL;
	sw_error *e = NULL;
	rc = args ? sw__drive_act(env->drive, args, &res, &e) : sw__error_nomem(&e);
	json_decref(args);
	json_decref(res);
	if (rc < 0) {
		const char *code = sw_error_failure_code(e);
		if (code && !strcmp(code, "CANCELLED")) {
			sw__error_propagate(err, e);
			return rc;
		}
		rc = seed_failed(err, name, e ? sw_error_message(e) : "the deep link could not be opened");
		sw_error_free(e);
		return rc;
	}
	json_object_set_new(sum, "opened", json_true());
	return SW_OK;
}

static int run_api(const sw__seed_env *env, const char *name, const json_t *spec, json_t *sum, sw_error **err)
{
	char *url = NULL, *body = NULL;
	json_t *headers = json_object();
	int rc = subst(env, json_string_value(json_object_get(spec, "url")), &url, err);
	json_t *bj = json_object_get(spec, "body");
	if (rc == SW_OK && bj) {
		char *bt = json_is_string(bj) ? sw__strdup(json_string_value(bj)) : json_dumps(bj, JSON_COMPACT | JSON_ENCODE_ANY);
		rc = bt ? subst(env, bt, &body, err) : sw__error_nomem(err);
		free(bt);
		if (rc == SW_OK && !json_is_string(bj) && !json_object_get(spec, "headers"))
			json_object_set_new(headers, "Content-Type", json_string("application/json"));
	}
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(spec, "headers"), k, v)
	{
		if (rc < 0)
			break;
		if (!json_is_string(v)) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                   "fixture \"%s\": seed header %s must be a string", name, k);
			break;
		}
		char *hv = NULL;
		if ((rc = subst(env, json_string_value(v), &hv, err)) == SW_OK) {
			sw_redactor *r = sw_session_redactor(env->session);
			if (r && strlen(hv) >= 3)
				sw_redactor_add_secret(r, hv, NULL);
			json_object_set_new(headers, k, json_string(hv));
		}
		free(hv);
	}
	long status = 0;
	if (rc == SW_OK) {
		sw_error *e = NULL;
		rc = sw__http_request(http_method(spec), url, headers, body, SEED_HTTP_MS, &status, NULL, 0, &e);
		if (rc < 0) {
			if (sw_error_code(e) == SW_EINVAL)
				sw__error_propagate(err, e);
			else {
				rc = seed_failed(err, name, sw_error_message(e));
				sw_error_free(e);
			}
		} else if (status >= 400 || status < 100) {
			char what[96];
			snprintf(what, sizeof(what), "the service answered HTTP %ld", status);
			rc = seed_failed(err, name, what);
		}
	}
	json_object_set_new(sum, "method", json_string(http_method(spec)));
	if (status)
		json_object_set_new(sum, "status", json_integer(status));
	free(url);
	free(body);
	json_decref(headers);
	return rc;
}

static int run_script(const sw__seed_env *env, const char *name, const json_t *spec, json_t *sum, sw_error **err)
{
	json_t *argv = argv_of(spec);
	if (!argv)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "fixture \"%s\": a script seed needs command, a non-empty list of strings", name);
	sw__argv a = SW_ARGV_INIT;
	int rc = SW_OK;
	size_t i;
	json_t *s;
	json_array_foreach(argv, i, s)
	{
		char *w = NULL;
		if ((rc = subst(env, json_string_value(s), &w, err)) < 0)
			break;
		sw__argv_add(&a, w);
		free(w);
	}
	json_decref(argv);
	if (rc < 0) {
		sw__argv_free(&a);
		return rc;
	}
	const char *const *v = sw__argv_finish(&a, err);
	if (!v) {
		sw__argv_free(&a);
		return SW_ENOMEM;
	}
	/* a relative program is the project's (./scripts/seed.sh); a bare name is looked up on PATH */
	char *prog = NULL;
	if (strchr(v[0], '/') && v[0][0] != '/') {
		sw_error *ce = NULL;
		if (sw__confine(env->root, v[0], SW__CONFINE_EXISTING, &prog, &ce) < 0) {
			rc = seed_failed(err, name, sw_error_message(ce));
			sw_error_free(ce);
			sw__argv_free(&a);
			return rc;
		}
		free(a.v[0]);
		a.v[0] = prog;
	}
	sw__proc_opts po = {.timeout_ms = SEED_SCRIPT_MS, .max_out = 64 * 1024, .cancel = env->cancel,
	                    .search_path = !strchr(a.v[0], '/'), .cwd = env->root, .term_grace_ms = 2000,
	                    .exit_ends = true};
	sw__proc_result pr = {0};
	sw_error *e = NULL;
	rc = sw__proc_run((const char *const *)a.v, &po, &pr, &e);
	sw__argv_free(&a);
	if (rc < 0) {
		rc = seed_failed(err, name, sw_error_message(e));
		sw_error_free(e);
		return rc;
	}
	if (pr.cancelled) {
		sw__proc_result_clear(&pr);
		return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "the flow run was cancelled during a seed");
	}
	json_object_set_new(sum, "exitStatus", json_integer(pr.status));
	if (pr.timed_out || pr.status != 0) {
		char what[128];
		if (pr.timed_out)
			snprintf(what, sizeof(what), "the program did not finish within %d s", SEED_SCRIPT_MS / 1000);
		else if (pr.signal)
			snprintf(what, sizeof(what), "the program was ended by signal %d", pr.signal);
		else
			snprintf(what, sizeof(what), "the program exited with status %d", pr.status);
		rc = seed_failed(err, name, what);
	}
	/* what the program printed is not kept: it may echo what it was given */
	sw__proc_result_clear(&pr);
	return rc;
}

int sw__seed_run(const sw__seed_env *env, const char *name, const json_t *spec, bool cleanup, json_t **summary,
                 sw_error **err)
{
	*summary = NULL;
	const char *type = seed_type(spec);
	if (!type)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "A seed is {type: deeplink|script|api, url or command, ...}.",
		                     "fixture \"%s\": its %s has no valid type", name, cleanup ? "cleanup seed" : "seed");
	if (env->cancel && *env->cancel)
		return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "the flow run was cancelled");
	json_t *sum = json_pack("{s:s,s:s,s:b}", "fixture", name, "type", type, "cleanup", cleanup);
	if (!sum)
		return sw__error_nomem(err);
	int rc;
	if (strcmp(type, "script") != 0 && !json_string_length(json_object_get(spec, "url")))
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "fixture \"%s\": a %s seed needs a url", name,
		                   type);
	else if (!strcmp(type, "deeplink"))
		rc = run_deeplink(env, name, spec, sum, err);
	else if (!strcmp(type, "api"))
		rc = run_api(env, name, spec, sum, err);
	else
		rc = run_script(env, name, spec, sum, err);
	*summary = sum;
	return rc;
}
