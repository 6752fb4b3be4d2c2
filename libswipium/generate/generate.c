/* generate.c: sw_generate (qa_generate): targets, plan and generate, the secret guard, confined atomic writes, replay.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen-emit.h"
#include "gen-internal.h"
#include "gen-text.h"
#include "../suite/suite-internal.h"
#include <swipium/driver.h>
#include <swipium/flow.h>
#include <swipium/generate.h>
#include <swipium/project.h>
#include <swipium/redact.h>
#include <swipium/suite.h>
#include <swipium/util.h>

static const sw__opt gen_opts[] = {{"target", SW__OPT_STRING, false},
                                   {"mode", SW__OPT_STRING, false},
                                   {"root", SW__OPT_STRING, false},
                                   {"name", SW__OPT_STRING, false},
                                   {"save", SW__OPT_BOOL, false},
                                   {"budgetProfile", SW__OPT_STRING, false},
                                   {"compile", SW__OPT_BOOL, false},
                                   {"replay", SW__OPT_STRING, false},
                                   {"stateProfile", SW__OPT_STRING, false},
                                   {"freshStateApproved", SW__OPT_BOOL, false},
                                   {"format", SW__OPT_STRING, false},
                                   {"bootstrap", SW__OPT_ANY, false},
                                   {"feature", SW__OPT_STRING, false},
                                   {"device", SW__OPT_STRING, false},
                                   {"language", SW__OPT_STRING, false},
                                   {"platform", SW__OPT_STRING, false},
                                   {"backend", SW__OPT_STRING, false},
                                   {"integrateIntoProject", SW__OPT_BOOL, false},
                                   {"includeCi", SW__OPT_BOOL, false},
                                   {"candidateOnly", SW__OPT_BOOL, false},
                                   {"brittleThreshold", SW__OPT_NUMBER, false},
                                   {"automationWriteApproved", SW__OPT_BOOL, false},
                                   {NULL}};

/* Which target takes which parameter (the rest are ignored with a note). */
static const struct {
	const char *param;
	const char *targets;
} PARAM_TARGETS[] = {
    {"budgetProfile", "flow"},
    {"compile", "suite"},
    {"replay", "suite"},
    {"stateProfile", "suite"},
    {"freshStateApproved", "suite"},
    {"format", "testcases"},
    {"bootstrap", "appium"},
    {"feature", "appium"},
    {"device", "appium"},
    {"language", "appium"},
    {"platform", "appium"},
    {"backend", "appium"},
    {"integrateIntoProject", "appium"},
    {"includeCi", "appium"},
    {"candidateOnly", "appium"},
    {"brittleThreshold", "appium pom suite"},
    {"automationWriteApproved", "appium"},
};

static const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int invalid(sw_error **err, const char *msg)
{
	return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s", msg);
}

/* One output file: path relative to the root, its text, and what it is. */
static void add_file(json_t *files, const char *path, char *content, const char *kind)
{
	json_array_append_new(files,
	                      json_pack("{ss,ss,ss}", "path", path, "content", content ? content : "", "kind", kind));
	free(content);
}

static int add_yaml(json_t *files, const char *path, const json_t *doc, const char *comment, const char *kind,
                    sw_error **err)
{
	char *text = NULL;
	int rc = sw__gen_yaml(doc, comment, &text, err);
	if (rc < 0)
		return rc;
	add_file(files, path, text, kind);
	return SW_OK;
}

/* ---- the final guard and the writes ----------------------------------------------------- */

/* Every output, the name and every path against the session's registered secret values. */
static int guard(sw_redactor *red, const char *name, const json_t *files, sw_error **err)
{
	if (!red)
		return SW_OK;
	int rc = sw_redactor_guard(red, name, strlen(name), err);
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f)
	{
		if (rc < 0)
			break;
		const char *p = sget(f, "path"), *c = sget(f, "content");
		if ((rc = sw_redactor_guard(red, p, strlen(p), err)) < 0 ||
		    (rc = sw_redactor_guard(red, c, strlen(c), err)) < 0)
			break;
	}
	if (rc < 0 && err && *err)
		sw__error_take_details(*err, json_pack("{ss,sb}", "hint",
		                                       "A value registered as a secret would be written. Nothing was "
		                                       "written; pick a name without it, or type secrets through "
		                                       "${SWIPIUM_*} placeholders.",
		                                       "written", 0));
	return rc;
}

/*
 * Writes @files (each {path, content, kind, keep}) under @root as one set (core/writeset.c): temporary names,
 * flushed, renamed; a failure leaves none of it. A file marked "keep" is listed in @kept instead; with
 * @compile_only only the page, test and suite files (what qa_flow_compile reads) are written.
 */
static int write_set(const char *root, unsigned flags, json_t *files, bool compile_only, json_t *kept, sw_error **err)
{
	sw__writeset *ws = sw__writeset_new(root, flags);
	if (!ws)
		return sw__error_nomem(err);
	int rc = SW_OK;
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f)
	{
		const char *kind = sget(f, "kind");
		if (compile_only && strcmp(kind, "page") != 0 && strcmp(kind, "test") != 0 &&
		    strcmp(kind, "suite") != 0)
			continue;
		if (json_is_true(json_object_get(f, "keep"))) {
			if (kept)
				json_array_append(kept, json_object_get(f, "path"));
			continue;
		}
		json_t *c = json_object_get(f, "content");
		if ((rc = sw__writeset_add(ws, sget(f, "path"), json_string_value(c), json_string_length(c), err)) < 0)
			break;
	}
	if (rc == SW_OK)
		rc = sw__writeset_commit(ws, err);
	sw__writeset_free(ws);
	return rc;
}

/*
 * Confines every path first (nothing is written when one is refused), then writes them as one set. With
 * @keep_existing (appium integrateIntoProject) a file that exists already is left as it is and listed in
 * @kept instead.
 */
static int write_all(const char *root, json_t *files, bool keep_existing, json_t *kept, sw_error **err)
{
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f)
	{
		char *real = NULL;
		int rc = sw__confine(root, sget(f, "path"), 0, &real, err);
		if (rc == SW_OK && keep_existing && real && access(real, F_OK) == 0)
			json_object_set_new(f, "keep", json_true());
		free(real);
		if (rc < 0)
			return rc;
	}
	return write_set(root, SW_WRITE_MKDIRS | SW_WRITE_SHARED, files, false, kept, err);
}

/* ---- flow checks and replay ------------------------------------------------------------- */

static json_t *check_flow(const char *root, const char *yaml, bool ci)
{
	json_t *o = json_pack("{ss,sb}", "flowYaml", yaml, "ci", ci);
	if (root)
		json_object_set_new(o, "root", json_string(root));
	char *oj = sw__json_compact(o), *out = NULL;
	json_decref(o);
	sw_error *e = NULL;
	int rc = oj ? sw_flow_check(oj, &out, &e) : SW_ENOMEM;
	free(oj);
	json_t *res = rc == SW_OK ? json_loads(out, 0, NULL) : NULL;
	sw_free(out);
	if (!res)
		res = json_pack("{sb,s[{ss}]}", "valid", 0, "errors", "message",
		                e ? sw_error_message(e) : "the flow could not be checked");
	sw_error_free(e);
	return res;
}

static json_t *replay_flow(sw_ctx *ctx, sw_session *s, sw_drive *d, const char *root, const char *yaml, bool approved)
{
	sw_flow_run_options o = SW_FLOW_RUN_OPTIONS_INIT;
	o.mutations_approved = approved;
	o.root = root;
	o.flow_yaml = yaml;
	o.session = s;
	o.drive = d;
	o.device = sw_drive_device(d);
	o.ctx = ctx;
	char *out = NULL;
	sw_error *e = NULL;
	int rc = sw_flow_run(&o, &out, &e);
	json_t *res = rc == SW_OK ? json_loads(out, 0, NULL) : NULL;
	sw_free(out);
	if (!res)
		res =
		    json_pack("{ss,ss,ss}", "outcome", "fail", "failureCode", e ? sw_error_failure_code(e) : "UNKNOWN",
		              "message", e ? sw_error_message(e) : "the flow did not run");
	sw_error_free(e);
	return res;
}

/* ---- targets ----------------------------------------------------------------------------- */

typedef struct gen_run {
	sw_ctx *ctx;
	sw_session *s;
	sw_drive *drive;
	json_t *opts;
	json_t *model;
	const char *root;
	const char *target;
	const char *name; /* the generation's name */
	char *slug;
	bool plan;
	json_t *files; /* [{path, content, kind}] */
	json_t *res;   /* the result being built */
	json_t *notes;
	sw_redactor *red;  /* the session's secrets (nullable): the final guard */
	bool flow_invalid; /* the flow target's text does not pass the checker: it is not written */
} gen_run;

/* ---- the suite compiler on the generated files ---------------------------------------------- */

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char *p = sw__path_join(dir, de->d_name);
			struct stat st;
			if (p && lstat(p, &st) == 0) {
				if (S_ISDIR(st.st_mode))
					remove_tree(p);
				else
					(void)unlink(p);
			}
			free(p);
		}
		closedir(d);
	}
	(void)rmdir(dir);
}

/*
 * Compiles the generated suite with sw_suite_compile(), in a private folder of its own (0700, removed after), so
 * that nothing reaches the project before every output passed the guard, and mode plan writes nothing there at
 * all. The pages, tests and suite are guarded first (they are what the staging folder holds). *@result: the
 * compiler's answer; *@text: the compiled flow of the one test (NULL when it did not compile). (transfer full)
 */
static int compile_staged(gen_run *g, json_t **result, char **text, sw_error **err)
{
	*result = NULL;
	*text = NULL;
	int rc = guard(g->red, g->name, g->files, err);
	if (rc < 0)
		return rc;
	const char *tmp = getenv("TMPDIR");
	char *dir = sw__asprintf("%s/swipium-gen-compile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!dir || !mkdtemp(dir)) {
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "could not make a folder to compile the suite in");
		free(dir);
		return rc;
	}
	/* a private folder removed afterwards: one set, no flush to the disk */
	rc = write_set(dir, SW_WRITE_MKDIRS | SW__WRITE_NO_SYNC, g->files, true, NULL, err);
	if (rc < 0)
		goto out;
	char *out = NULL;
	rc = sw_suite_compile(dir, "{\"suite\":\"suites/smoke.yaml\"}", &out, err);
	if (rc < 0)
		goto out;
	*result = json_loads(out, 0, NULL);
	sw_free(out);
	if (!*result) {
		rc = sw__error_nomem(err);
		goto out;
	}
	json_t *entry = json_array_get(json_object_get(*result, "flows"), 0);
	const char *cp = sget(entry, "compiledPath");
	if (json_is_true(json_object_get(entry, "ok")) && cp) {
		char *full = sw__path_join(dir, cp);
		size_t len = 0;
		if (!full || sw__read_file(full, SW_SUITE_YAML_MAX_BYTES, text, &len, err) < 0)
			rc = full ? SW_EIO : sw__error_nomem(err);
		free(full);
	}
out:
	remove_tree(dir);
	free(dir);
	return rc;
}

static int target_flow(gen_run *g, sw_error **err)
{
	size_t miss = 0;
	json_t *doc = sw__gen_flow_doc(g->model, g->name, sget(g->opts, "budgetProfile"), &miss);
	char *path = sw__asprintf(".swipium/flows/%s.yaml", g->slug);
	int rc = add_yaml(g->files, path, doc, "Generated by Swipium (qa_generate target flow) from a recorded run.",
	                  "flow", err);
	json_decref(doc);
	free(path);
	if (rc < 0)
		return rc;
	if (miss) {
		char note[120];
		snprintf(note, sizeof(note), "%zu step(s) have no Flow V2 form and were left out", miss);
		json_array_append_new(g->notes, json_string(note));
	}
	json_t *chk = check_flow(g->root, sget(json_array_get(g->files, 0), "content"), false);
	g->flow_invalid = !json_is_true(json_object_get(chk, "valid"));
	json_object_set_new(g->res, "check", chk);
	return SW_OK;
}

static double brittle_threshold(const gen_run *g)
{
	json_t *t = json_object_get(g->opts, "brittleThreshold");
	return json_is_number(t) ? json_number_value(t) : 40.0;
}

/* Page objects and the locator audit (pom, and the first part of suite). *refs_out: per-step references. */
static int pages_and_audit(gen_run *g, json_t **pages_out, json_t **refs_out, sw_error **err)
{
	json_t *refs = NULL;
	json_t *pages = sw__gen_pom(g->model, &refs);
	const char *pn;
	json_t *p;
	int rc = SW_OK;
	json_object_foreach(pages, pn, p)
	{
		char *slug = sw__gen_slug(pn);
		char *path = sw__asprintf(".swipium/pages/%s.yaml", slug);
		json_t *doc = sw__gen_page_doc(p);
		rc = add_yaml(g->files, path, doc,
		              "Page object generated by Swipium from a recorded run; labels are data.", "page", err);
		json_decref(doc);
		free(path);
		free(slug);
		if (rc < 0)
			break;
	}
	json_t *audit = sw__gen_locator_audit(pages, g->name, brittle_threshold(g));
	if (rc == SW_OK) {
		char *path = sw__asprintf(".swipium/locators/%s.yaml", g->slug);
		rc = add_yaml(
		    g->files, path, audit,
		    "Locator audit: durable = resource-id or accessibility id, semi = text, brittle = a point.",
		    "locatorAudit", err);
		free(path);
	}
	json_object_set(g->res, "locatorAudit", json_object_get(audit, "summary"));
	json_object_set_new(g->res, "pages", json_integer((json_int_t)json_object_size(pages)));
	json_decref(audit);
	*pages_out = pages;
	*refs_out = refs;
	return rc;
}

static int target_pom(gen_run *g, sw_error **err)
{
	json_t *pages = NULL, *refs = NULL;
	int rc = pages_and_audit(g, &pages, &refs, err);
	json_decref(pages);
	json_decref(refs);
	return rc;
}

static int testcases_files(gen_run *g, const char *format, const char *flow_path, const char *replay_status,
                           sw_error **err)
{
	json_t *cases = sw__gen_testcases(g->model, g->name, flow_path, replay_status);
	int rc = SW_OK;
	bool yaml = !format || !strcmp(format, "yaml") || !strcmp(format, "both");
	bool md = !format || !strcmp(format, "markdown") || !strcmp(format, "both");
	size_t i;
	json_t *c;
	if (yaml)
		json_array_foreach(cases, i, c)
		{
			char *path = sw__asprintf(".swipium/testcases/%s/%s.yaml", g->slug, sget(c, "id"));
			rc = add_yaml(g->files, path, c, "Test case generated by Swipium from a recorded run.",
			              "testcase", err);
			free(path);
			if (rc < 0)
				break;
		}
	if (rc == SW_OK && md) {
		char *path = sw__asprintf(".swipium/testcases/%s.md", g->slug);
		add_file(g->files, path, sw__gen_testcases_md(cases, g->name), "testcasesMarkdown");
		free(path);
	}
	json_object_set_new(g->res, "testCases", json_integer((json_int_t)json_array_size(cases)));
	json_decref(cases);
	return rc;
}

static int target_testcases(gen_run *g, sw_error **err)
{
	const char *format = sget(g->opts, "format");
	static const char *const formats[] = {"yaml", "markdown", "both", NULL};
	if (format && !sw__str_one_of(format, formats))
		return invalid(err, "format must be yaml, markdown or both");
	return testcases_files(g, format, NULL, "not_run", err);
}

/* The readiness labels of a suite and its ciReady gate. */
static void readiness(gen_run *g, bool compiled, bool all_valid, bool ci_ok, const char *replay, bool replayed_ok,
                      bool brittle_over)
{
	json_t *labels = json_pack("[ss]", "observed", "generated");
	if (compiled)
		json_array_append_new(labels, json_string("compiled"));
	if (compiled && all_valid)
		json_array_append_new(labels, json_string("verified"));
	if (replayed_ok)
		json_array_append_new(labels, json_string("replayed"));
	bool ready = compiled && all_valid && ci_ok && replayed_ok && !brittle_over &&
	             (!strcmp(replay, "same_session") || !strcmp(replay, "fresh_state"));
	if (ready)
		json_array_append_new(labels, json_string("ci_ready"));
	json_object_set_new(g->res, "readiness", labels);
	json_object_set_new(g->res, "ciReady", json_boolean(ready));
	json_t *why = json_array();
	if (!compiled)
		json_array_append_new(why, json_string("the suite was not compiled (compile:false)"));
	else if (!all_valid)
		json_array_append_new(why, json_string("a compiled flow does not pass qa_flow_check"));
	if (!ci_ok)
		json_array_append_new(why,
		                      json_string("a compiled flow needs variables or mutations CI cannot give it"));
	if (!replayed_ok)
		json_array_append_new(
		    why, json_string(!strcmp(replay, "none") || !strcmp(replay, "dry_run")
		                         ? "the suite was not replayed on a device (replay same_session or fresh_state)"
		                         : "the replay did not pass"));
	if (brittle_over)
		json_array_append_new(why,
		                      json_string("more brittle (coordinate) locators than brittleThreshold allows"));
	json_object_set_new(g->res, "ciReadyBlockers", why);
}

/* Runs one state-profile phase: consecutive Flow V2 steps as one flow, clearState through the device. */
static bool state_phase(gen_run *g, const char *phase, const json_t *list, json_t *runs)
{
	const char *app = sget(g->model, "appId");
	json_t *seg = json_array();
	bool ok = true;
	size_t n = json_array_size(list);
	for (size_t i = 0; i <= n && ok; i++) {
		json_t *st = i < n ? json_array_get(list, i) : NULL;
		bool clear = json_is_string(st) && !strcmp(json_string_value(st), "clearState");
		if ((!st || clear) && json_array_size(seg)) {
			json_t *f = json_pack("{ss,sO}", "name", phase, "steps", seg);
			if (app && *app)
				json_object_set_new(f, "appId", json_string(app));
			sw_buf b = SW_BUF_INIT;
			sw__suite_flow_yaml(&b, f);
			json_decref(f);
			json_t *run = replay_flow(g->ctx, g->s, g->drive, g->root, b.data ? b.data : "", true);
			sw__buf_free(&b);
			ok = !strcmp(sget(run, "outcome") ? sget(run, "outcome") : "fail", "pass");
			json_array_append_new(runs, run);
			json_array_clear(seg);
		}
		if (!st || !ok)
			continue;
		if (!clear) {
			json_array_append(seg, st);
			continue;
		}
		sw_error *e = NULL;
		int rc = app && *app ? sw_device_clear_app_data(sw_drive_device(g->drive), app, &e)
		                     : sw__error_set(&e, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                                     "clearState needs the recording's appId, and it has none");
		ok = rc == SW_OK;
		json_t *r = json_pack("{ss,ss}", "step", "clearState", "outcome", ok ? "pass" : "fail");
		if (!ok)
			json_object_set_new(r, "message", json_string(e ? sw_error_message(e) : "clearState failed"));
		json_array_append_new(runs, r);
		sw_error_free(e);
	}
	json_decref(seg);
	return ok;
}

/* prepare, then the compiled suite flow (only when prepare passed), then teardown (always). */
static bool fresh_state_run(gen_run *g, const json_t *prof, const char *flow_text, json_t *rep)
{
	json_t *prep = json_array(), *tear = json_array();
	bool ok = state_phase(g, "state profile prepare", json_object_get(prof, "prepare"), prep);
	bool suite_ok = false;
	if (ok) {
		json_t *run = replay_flow(g->ctx, g->s, g->drive, g->root, flow_text, false);
		suite_ok = !strcmp(sget(run, "outcome") ? sget(run, "outcome") : "fail", "pass");
		json_object_set_new(rep, "run", run);
	} else {
		json_object_set_new(rep, "reason",
		                    json_string("the state profile's prepare failed; the suite was not run"));
	}
	bool tear_ok = state_phase(g, "state profile teardown", json_object_get(prof, "teardown"), tear);
	json_object_set_new(rep, "prepare", prep);
	json_object_set_new(rep, "teardown", tear);
	return ok && suite_ok && tear_ok;
}

static int target_suite(gen_run *g, sw_error **err)
{
	const char *replay = sget(g->opts, "replay") ? sget(g->opts, "replay") : "dry_run";
	static const char *const replays[] = {"none", "dry_run", "same_session", "fresh_state", NULL};
	if (!sw__str_one_of(replay, replays))
		return invalid(err, "replay must be none, dry_run, same_session or fresh_state");
	bool compile = !json_is_false(json_object_get(g->opts, "compile"));
	json_t *pages = NULL, *refs = NULL;
	int rc = pages_and_audit(g, &pages, &refs, err);
	if (rc < 0)
		goto out;
	json_t *test = sw__gen_test_doc(g->model, pages, refs, g->name);
	char *test_path = sw__asprintf(".swipium/tests/%s.yaml", g->slug);
	rc = add_yaml(g->files, test_path, test, "Test generated by Swipium: steps name page-object elements.", "test",
	              err);
	json_decref(test);
	if (rc < 0) {
		free(test_path);
		goto out;
	}
	json_t *suite = json_pack("{ss,s[s]}", "name", "smoke", "tests", test_path + strlen(".swipium/"));
	if (sget(g->model, "appId") && sget(g->model, "appId")[0])
		json_object_set_new(suite, "appId", json_string(sget(g->model, "appId")));
	free(test_path);
	rc = add_yaml(g->files, ".swipium/suites/smoke.yaml", suite,
	              "Suite generated by Swipium (qa_flow_compile reads it).", "suite", err);
	json_decref(suite);
	if (rc < 0)
		goto out;
	char *flow_path = NULL;
	const char *flow_text = NULL;
	bool compiled_ok = true;
	if (compile) {
		/* the suite compiler (qa_flow_compile's) compiles what was just generated: one compile path */
		json_t *cres = NULL;
		char *text = NULL;
		if ((rc = compile_staged(g, &cres, &text, err)) < 0)
			goto out;
		json_t *entry = json_array_get(json_object_get(cres, "flows"), 0);
		compiled_ok = text && json_is_true(json_object_get(entry, "ok"));
		json_object_set_new(g->res, "compile",
		                    json_pack("{sb,sO*,sO*,sI}", "ok", compiled_ok, "errors",
		                              json_object_get(entry, "errors"), "warnings",
		                              json_object_get(entry, "warnings"), "pageIssues",
		                              (json_int_t)json_array_size(json_object_get(cres, "pageIssues"))));
		if (compiled_ok) {
			flow_path = sw__strdup(sget(entry, "flowPath"));
			add_file(g->files, sget(entry, "compiledPath"), sw__strdup(text), "compiledFlow");
			add_file(g->files, flow_path, text, "flow");
			text = NULL;
			flow_text = sget(json_array_get(g->files, json_array_size(g->files) - 1), "content");
		} else {
			json_array_append_new(g->notes,
			                      json_string("the suite compiler did not compile the generated test "
			                                  "(see compile.errors): no compiled flow is written"));
		}
		free(text);
		json_decref(cres);
	}
	/* the replay gate */
	bool all_valid = compiled_ok, ci_ok = true, replayed_ok = false;
	json_t *rep = json_pack("{ss}", "mode", replay);
	if (compile && flow_text) {
		json_t *chk = check_flow(g->root, flow_text, true);
		all_valid =
		    json_is_true(json_object_get(chk, "valid")) ||
		    (json_object_get(chk, "valid") == NULL && json_array_size(json_object_get(chk, "errors")) == 0);
		ci_ok = json_is_true(json_object_get(json_object_get(chk, "ci"), "ready"));
		json_object_set_new(rep, "check", chk);
	}
	const char *status = "not_run";
	if (!strcmp(replay, "none")) {
		status = "not_run";
	} else if (!compile) {
		status = "blocked";
		json_object_set_new(rep, "reason", json_string("compile:false leaves no flow to replay"));
	} else if (!strcmp(replay, "dry_run")) {
		status = all_valid ? "validated" : "invalid";
	} else if (!strcmp(replay, "fresh_state") && !sget(g->opts, "stateProfile")) {
		status = "blocked";
		json_object_set_new(
		    rep, "reason",
		    json_string("fresh_state needs stateProfile (a state profile under .swipium/state/); "
		                "nothing was run"));
	} else if (!strcmp(replay, "fresh_state")) {
		json_t *prof = NULL;
		if ((rc = sw__gen_state_load(g->root, sget(g->opts, "stateProfile"), &prof, err)) < 0) {
			json_decref(rep);
			free(flow_path);
			goto out;
		}
		json_object_set_new(
		    rep, "stateProfile",
		    json_pack("{sO,sO}", "path", json_object_get(prof, "path"), "risk", json_object_get(prof, "risk")));
		if (g->plan) {
			status = "planned";
		} else if (!json_is_true(json_object_get(g->opts, "freshStateApproved"))) {
			status = "blocked";
			json_object_set_new(
			    rep, "reason",
			    json_string("the suite_fresh_state_replay consent was not given; nothing was run"));
		} else if (!g->drive) {
			status = "blocked";
			json_object_set_new(rep, "reason",
			                    json_string("fresh_state replay needs the session's device"));
		} else if (!all_valid) {
			status = "invalid";
		} else {
			replayed_ok = fresh_state_run(g, prof, flow_text, rep);
			status = replayed_ok ? "passed" : "failed";
		}
		json_decref(prof);
	} else if (g->plan) {
		status = "planned";
	} else if (!g->drive) {
		status = "blocked";
		json_object_set_new(rep, "reason", json_string("same_session replay needs the session's device"));
	} else if (!all_valid) {
		status = "invalid";
	} else {
		json_t *run = replay_flow(g->ctx, g->s, g->drive, g->root, flow_text, false);
		replayed_ok = !strcmp(sget(run, "outcome") ? sget(run, "outcome") : "fail", "pass");
		status = replayed_ok ? "passed" : "failed";
		json_object_set_new(rep, "run", run);
	}
	json_object_set_new(rep, "status", json_string(status));
	json_object_set_new(g->res, "replay", rep);
	json_t *audit = json_object_get(g->res, "locatorAudit");
	readiness(g, compile, all_valid, ci_ok, replay, replayed_ok,
	          json_is_true(json_object_get(audit, "overThreshold")));
	rc = testcases_files(g, "both", flow_path, status, err);
	free(flow_path);
out:
	json_decref(pages);
	json_decref(refs);
	return rc;
}

static int target_appium(gen_run *g, sw_error **err)
{
	json_t *files = NULL, *report = NULL;
	/* the emitter looks at the project (language, pytest, the project profile's platform): give it the root the
	 * call resolved, the session's when only sessionId was given */
	json_t *params = json_copy(g->opts);
	if (params && g->root && !sget(params, "root"))
		json_object_set_new(params, "root", json_string(g->root));
	int rc = params ? sw__gen_appium(g->model, params, &files, &report, err) : sw__error_nomem(err);
	json_decref(params);
	if (rc < 0) {
		json_decref(files);
		json_decref(report);
		return rc;
	}
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f)
	{
		if (!sget(f, "path") || !sget(f, "content")) {
			rc = sw__error_set(err, SW_EUNSUPPORTED, "UNEMITTABLE_STEP", NULL,
			                   "the Appium emitter returned a file without a path or content");
			break;
		}
		json_array_append_new(g->files, json_pack("{sO,sO,ss}", "path", json_object_get(f, "path"), "content",
		                                          json_object_get(f, "content"), "kind", "appium"));
	}
	if (rc == SW_OK && json_is_object(report)) {
		json_object_set(g->res, "appium", report);
		/* the platform the suite defaults to, and where that choice came from, also at the top */
		json_object_set(g->res, "primaryPlatform", json_object_get(report, "primaryPlatform"));
		json_object_set(g->res, "platformSource", json_object_get(report, "platformSource"));
	}
	json_decref(files);
	json_decref(report);
	return rc;
}

/* ---- the call ---------------------------------------------------------------------------- */

static char *default_name(const json_t *model)
{
	const char *app = sget(model, "appId");
	if (!app || !app[0])
		return sw__strdup("recorded");
	const char *dot = strrchr(app, '.');
	return sw__asprintf("%s-recorded", dot && dot[1] ? dot + 1 : app);
}

static bool target_takes(const char *target, const char *param)
{
	for (size_t i = 0; i < SW_ARRAY_SIZE(PARAM_TARGETS); i++)
		if (!strcmp(PARAM_TARGETS[i].param, param)) {
			const char *t = PARAM_TARGETS[i].targets;
			size_t n = strlen(target);
			for (const char *p = strstr(t, target); p; p = strstr(p + 1, target))
				if ((p == t || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
					return true;
			return false;
		}
	return true;
}

SW_API int sw_generate(sw_ctx *ctx, sw_session *s, sw_drive *drive, const char *options_json, char **result_json,
                       sw_error **err)
{
	if (!result_json)
		return invalid(err, "sw_generate: result_json must not be NULL");
	/* the recording (redacted on the way out of the session: a registered secret never reaches a generator) */
	json_t *recorded = NULL, *app = NULL, *device = NULL;
	if (s) {
		(void)sw__session_get(s, "recordedActions", &recorded, NULL);
		(void)sw__session_get(s, "appId", &app, NULL);
		(void)sw__session_get(s, "device", &device, NULL);
	}
	const char *platform = json_string_value(json_object_get(device, "platform"));
	int rc = sw__gen_run(ctx, s, drive, s ? sw_session_redactor(s) : NULL, recorded, json_string_value(app),
	                     platform, s ? sw_session_root(s) : NULL, options_json, result_json, err);
	json_decref(recorded);
	json_decref(app);
	json_decref(device);
	return rc;
}

int sw__gen_run(sw_ctx *ctx, sw_session *s, sw_drive *drive, sw_redactor *red, const json_t *recorded_in,
                const char *app_id, const char *platform, const char *session_root, const char *options_json,
                char **result_json, sw_error **err)
{
	json_t *opts = NULL;
	int rc = sw__options_load(options_json, gen_opts, "qa_generate arguments", &opts, err);
	if (rc < 0)
		return rc;
	if (!result_json) {
		json_decref(opts);
		return invalid(err, "sw__gen_run: result_json must not be NULL");
	}
	gen_run g = {
	    .ctx = ctx, .s = s, .drive = drive, .opts = opts, .files = json_array(), .notes = json_array(), .red = red};
	json_t *recorded = NULL, *ignored = json_array();
	g.target = sget(opts, "target");
	static const char *const targets[] = {"flow", "pom", "suite", "testcases", "appium", NULL};
	static const char *const modes[] = {"plan", "generate", NULL};
	const char *mode = sget(opts, "mode") ? sget(opts, "mode") : "generate";
	if (!sw__str_one_of(g.target, targets)) {
		rc = invalid(err, "target must be flow, pom, suite, testcases or appium");
		goto out;
	}
	if (!sw__str_one_of(mode, modes)) {
		rc = invalid(err, "mode must be plan or generate");
		goto out;
	}
	g.plan = !strcmp(mode, "plan");
	if (sw__gen_bootstrap_wanted(opts, s != NULL) < 0) {
		rc = invalid(err, "bootstrap must be true, false or \"auto\"");
		goto out;
	}
	const char *k;
	json_t *v;
	json_object_foreach(opts, k, v) if (!target_takes(g.target, k)) json_array_append_new(ignored, json_string(k));
	g.root = sget(opts, "root") ? sget(opts, "root") : session_root;
	recorded = recorded_in ? json_incref((json_t *)recorded_in) : json_array();
	rc = sw__gen_model(recorded, app_id, platform, &g.model, err);
	if (rc < 0)
		goto out;
	if (json_array_size(json_object_get(g.model, "steps")) == 0) {
		rc = sw__error_set(
		    err, SW_ENOTFOUND, "NO_RECORDED_ACTIONS",
		    !strcmp(g.target, "appium")
		        ? "Drive the app first (qa_act, qa_explore or qa_smoke), or let target appium record first "
		          "(bootstrap: true, or no sessionId with a projectRoot), then generate."
		        : "Drive the app first (qa_act, qa_explore or qa_smoke) in this session, then generate.",
		    "%s: nothing to generate from, the session holds no replayable recorded action "
		    "(%zu recorded, none usable); nothing was written",
		    s ? "This session" : "No session", json_array_size(recorded));
		goto out;
	}
	if (!g.root) {
		rc = invalid(err, "qa_generate needs a project root (projectRoot or a session with one)");
		goto out;
	}
	char *name =
	    sget(opts, "name") && sget(opts, "name")[0] ? sw__strdup(sget(opts, "name")) : default_name(g.model);
	g.name = name;
	g.slug = sw__gen_slug(name);
	bool save_default = !strcmp(g.target, "suite") || !strcmp(g.target, "appium");
	bool save =
	    json_is_boolean(json_object_get(opts, "save")) ? json_is_true(json_object_get(opts, "save")) : save_default;
	if (g.plan && save) {
		save = false;
		json_array_append_new(g.notes, json_string("mode plan: nothing is written or run (save forced off)"));
	}
	g.res = json_pack("{ss,ss,ss}", "target", g.target, "mode", mode, "name", name);
	if (!strcmp(g.target, "flow"))
		rc = target_flow(&g, err);
	else if (!strcmp(g.target, "pom"))
		rc = target_pom(&g, err);
	else if (!strcmp(g.target, "testcases"))
		rc = target_testcases(&g, err);
	else if (!strcmp(g.target, "suite"))
		rc = target_suite(&g, err);
	else
		rc = target_appium(&g, err);
	/* the final guard runs on every output, also in plan and unsaved modes: none of it may carry a secret */
	if (rc == SW_OK)
		rc = guard(red, name, g.files, err);
	if (rc == SW_OK && save && g.flow_invalid) {
		save = false;
		json_array_append_new(g.notes,
		                      json_string("not written: the generated flow does not pass qa_flow_check "
		                                  "(see check); its text is in content"));
	}
	json_t *kept = json_array();
	bool keep_existing = !strcmp(g.target, "appium") && json_is_true(json_object_get(opts, "integrateIntoProject"));
	if (rc == SW_OK && save)
		rc = write_all(g.root, g.files, keep_existing, kept, err);
	if (rc == SW_OK && json_array_size(kept)) {
		char note[160];
		snprintf(note, sizeof(note),
		         "integrateIntoProject never overwrites: %zu existing file(s) were left as they are (see "
		         "keptExisting)",
		         json_array_size(kept));
		json_array_append_new(g.notes, json_string(note));
		json_object_set(g.res, "keptExisting", kept);
	}
	json_decref(kept);
	if (rc < 0) {
		free(name);
		goto out;
	}
	json_t *list = json_array();
	size_t i;
	json_t *f;
	json_array_foreach(g.files, i, f) json_array_append_new(
	    list, json_pack("{sO,sI,sO}", "path", json_object_get(f, "path"), "bytes",
	                    (json_int_t)strlen(sget(f, "content")), "kind", json_object_get(f, "kind")));
	json_object_set_new(g.res, "saved", json_boolean(save));
	json_object_set_new(g.res, "files", list);
	if (!save && !g.plan && json_array_size(g.files) == 1)
		json_object_set(g.res, "content", json_object_get(json_array_get(g.files, 0), "content"));
	else if (!save && !g.plan) {
		json_t *contents = json_array();
		json_array_foreach(g.files, i, f)
		    json_array_append_new(contents, json_pack("{sO,sO}", "path", json_object_get(f, "path"), "content",
		                                              json_object_get(f, "content")));
		json_object_set_new(g.res, "contents", contents);
	}
	json_object_set_new(g.res, "steps",
	                    json_integer((json_int_t)json_array_size(json_object_get(g.model, "steps"))));
	json_object_set(g.res, "skipped", json_object_get(g.model, "skipped"));
	json_object_set(g.res, "variables", json_object_get(g.model, "variables"));
	json_object_set(g.res, "recorded", json_object_get(g.model, "recorded"));
	json_int_t dropped = json_integer_value(json_object_get(g.model, "droppedBeforeRecording"));
	json_object_set_new(g.res, "droppedBeforeRecording", json_integer(dropped));
	if (dropped > 0) {
		char note[200];
		snprintf(
		    note, sizeof(note),
		    "the session keeps the last 300 recorded actions: %lld older action(s) were dropped and are not in "
		    "the output",
		    (long long)dropped);
		json_array_append_new(g.notes, json_string(note));
	}
	if (json_array_size(json_object_get(g.model, "skipped"))) {
		char note[160];
		snprintf(note, sizeof(note),
		         "%zu recorded action(s) could not be replayed and were left out (see skipped)",
		         json_array_size(json_object_get(g.model, "skipped")));
		json_array_append_new(g.notes, json_string(note));
	}
	if (json_array_size(ignored)) {
		sw_buf b = SW_BUF_INIT;
		sw__buf_printf(&b, "ignored for target %s: ", g.target);
		json_array_foreach(ignored, i, f) sw__buf_printf(&b, "%s%s", i ? ", " : "", json_string_value(f));
		char *note = sw__buf_steal(&b, NULL);
		if (note)
			json_array_append_new(g.notes, json_string(note));
		free(note);
		json_object_set(g.res, "ignoredParameters", ignored);
	}
	json_object_set(g.res, "notes", g.notes);
	*result_json = sw__json_compact(g.res);
	free(name);
	rc = *result_json ? SW_OK : sw__error_nomem(err);
out:
	free(g.slug);
	json_decref(g.res);
	json_decref(g.model);
	json_decref(g.files);
	json_decref(g.notes);
	json_decref(recorded);
	json_decref(ignored);
	json_decref(opts);
	return rc;
}
