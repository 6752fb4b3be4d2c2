/* export.c: qa_suite_read and qa_suite_export: the canonical suite as a summary, markdown, YAML, JSON or JUnit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include <swipium/redact.h>
#include <swipium/suite.h>

#include "suite-internal.h"

#define EXPORT_DIR ".swipium/test-suite-export"
#define SUMMARY_CAP 50
#define INLINE_CAP (1024u * 1024u) /* bytes of export text returned in a result */

static const char *str(const json_t *c, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(c, key));
	return s && *s ? s : dflt;
}

/*
 * @s with every character XML 1.0 forbids (C0 controls but tab, newline and CR, U+FFFE/U+FFFF, invalid
 * UTF-8, surrogates) and every C1 control replaced by U+FFFD: an ANSI escape cannot reach a terminal or a
 * CI page through a title. (transfer full)
 */
static char *clean_text(const char *s, bool keep_newlines)
{
	sw_buf b = SW_BUF_INIT;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p);
	for (size_t i = 0; i < len;) {
		uint32_t cp = 0;
		size_t n = sw__utf8_decode(p + i, len - i, &cp);
		if (n == 0) {
			sw__buf_puts(&b, "\xEF\xBF\xBD");
			i++;
			continue;
		}
		bool nl = cp == '\n' || cp == '\r' || cp == '\t';
		if ((cp < 0x20 && !(nl && keep_newlines)) || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0xFFFE ||
		    cp == 0xFFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			sw__buf_puts(&b, nl ? " " : "\xEF\xBF\xBD");
		else
			sw__buf_append(&b, p + i, n);
		i += n;
	}
	sw__buf_putc(&b, '\0');
	return sw__buf_steal(&b, NULL);
}

/* ---- filters and read ---------------------------------------------------------------------------- */

static bool keep(const json_t *c, const char *functionality, const char *status)
{
	if (status && strcmp(str(c, "status", "active"), status))
		return false;
	if (functionality) {
		const char *f = str(c, "functionality", str(c, "feature", "General"));
		char *a = sw__suite_norm(f), *b = sw__suite_norm(functionality);
		bool ok = a && b && !strcmp(a, b);
		free(a);
		free(b);
		if (!ok)
			return false;
	}
	return true;
}

/* Markdown text with every character markdown gives a meaning escaped, on one line. */
static void md_text(sw_buf *b, const char *s)
{
	char *c = clean_text(s, false);
	for (const char *p = c ? c : ""; *p; p++) {
		if (strchr("\\`*_[]<>|#!~{}", *p))
			sw__buf_putc(b, '\\');
		sw__buf_putc(b, *p);
	}
	free(c);
}

static void md_case(sw_buf *b, const json_t *c)
{
	sw__buf_puts(b, "### ");
	md_text(b, str(c, "id", "(no id)"));
	sw__buf_puts(b, ": ");
	md_text(b, str(c, "title", ""));
	sw__buf_puts(b, "\n\n");
	static const char *const fields[][2] = {{"objective", "Objective"}, {"priority", "Priority"},
	                                        {"status", "Status"},       {"type", "Type"},
	                                        {"feature", "Feature"},     {"source", "Source"}};
	for (size_t i = 0; i < SW_ARRAY_SIZE(fields); i++) {
		const char *v = str(c, fields[i][0], NULL);
		if (!v)
			continue;
		sw__buf_printf(b, "- **%s:** ", fields[i][1]);
		md_text(b, v);
		sw__buf_putc(b, '\n');
	}
	const char *lists[][2] = {{"preconditions", "Preconditions"}, {"steps", "Steps"}};
	for (size_t k = 0; k < 2; k++) {
		json_t *l = json_object_get(c, lists[k][0]);
		if (!json_array_size(l))
			continue;
		sw__buf_printf(b, "\n**%s:**\n\n", lists[k][1]);
		size_t i;
		json_t *x;
		json_array_foreach(l, i, x)
		{
			sw__buf_printf(b, "%zu. ", i + 1);
			md_text(b, json_string_value(x));
			sw__buf_putc(b, '\n');
		}
	}
	sw__buf_puts(b, "\n- **Expected:** ");
	md_text(b, str(c, "expected", "(missing)"));
	sw__buf_puts(b, "\n- **Actual:** ");
	md_text(b, str(c, "actual", "(not recorded)"));
	sw__buf_puts(b, "\n- **Last result:** ");
	md_text(b, str(c, "lastResult", "not_run"));
	sw__buf_puts(b, "\n- **Automation:** ");
	md_text(b, str(json_object_get(c, "automation"), "status", "manual"));
	sw__buf_puts(b, "\n\n");
}

/* Cases grouped by functionality, in first-seen order: {name -> [cases]} plus the order. */
static json_t *group(const json_t *cases, const char *functionality, const char *status, size_t *shown)
{
	json_t *groups = json_object();
	size_t i;
	json_t *c;
	*shown = 0;
	json_array_foreach(cases, i, c)
	{
		if (!keep(c, functionality, status))
			continue;
		const char *f = str(c, "functionality", str(c, "feature", "General"));
		json_t *g = json_object_get(groups, f);
		if (!g) {
			g = json_array();
			json_object_set_new(groups, f, g);
		}
		json_array_append(g, c);
		(*shown)++;
	}
	return groups;
}

static char *markdown(const json_t *groups, size_t total)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_printf(&b, "# Test suite\n\n%zu case(s) in %zu functionality group(s), from .swipium/test-suite.json.\n\n",
	               total, json_object_size(groups));
	const char *k;
	json_t *g;
	json_object_foreach((json_t *)groups, k, g)
	{
		sw__buf_puts(&b, "## ");
		md_text(&b, k);
		sw__buf_puts(&b, "\n\n");
		size_t i;
		json_t *c;
		json_array_foreach(g, i, c) md_case(&b, c);
	}
	return sw__buf_steal(&b, NULL);
}

static const sw__opt READ_OPTS[] = {{"functionality", SW__OPT_STRING, true},
                                    {"status", SW__OPT_STRING, true},
                                    {"format", SW__OPT_STRING, true},
                                    {"sessionId", SW__OPT_STRING, true},
                                    {NULL, 0, false}};

SW_API int sw_suite_read(const char *project_root, const char *request_json, char **result_json, sw_error **err)
{
	if (!project_root || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_suite_read: root and result are required");
	json_t *req = NULL, *groups = NULL, *res = NULL;
	sw__suite_doc d = {.lock_fd = -1};
	int rc = sw__options_load(request_json, READ_OPTS, "qa_suite_read", &req, err);
	if (rc < 0)
		goto out;
	const char *format = str(req, "format", "summary");
	const char *status = str(req, "status", NULL);
	const char *functionality = str(req, "functionality", NULL);
	if (strcmp(format, "summary") && strcmp(format, "json") && strcmp(format, "markdown")) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "format must be summary, json or markdown");
		goto out;
	}
	if ((rc = sw__suite_open(project_root, false, false, &d, NULL, err)) < 0)
		goto out;
	json_t *cases = sw__suite_cases(d.doc);
	size_t shown = 0;
	groups = group(cases, functionality, status, &shown);
	json_t *counts = json_object(), *funcs = json_array();
	size_t i;
	json_t *c;
	json_array_foreach(cases, i, c)
	{
		const char *st = str(c, "status", "active");
		json_object_set_new(counts, st, json_integer(json_integer_value(json_object_get(counts, st)) + 1));
	}
	const char *k;
	json_t *g;
	json_object_foreach(groups, k, g) json_array_append_new(
	    funcs, json_pack("{s:s, s:I}", "name", k, "count", (json_int_t)json_array_size(g)));
	res = json_pack("{s:s, s:b, s:I, s:I, s:o, s:o, s:s}", "path", SW_SUITE_FILE, "exists", d.existed, "total",
	                (json_int_t)json_array_size(cases), "shown", (json_int_t)shown, "counts", counts,
	                "functionalities", funcs, "format", format);
	if (!strcmp(format, "markdown")) {
		char *md = markdown(groups, shown);
		size_t mlen = md ? strlen(md) : 0;
		char *head = mlen > INLINE_CAP ? sw__utf8_cap(md, mlen, INLINE_CAP / 2, SW_CAP_HEAD) : NULL;
		json_object_set_new(res, "markdown", json_string(head ? head : md ? md : ""));
		if (head)
			json_object_set_new(res, "markdownTruncated",
			                    json_pack("{s:I, s:s}", "bytes", (json_int_t)mlen, "reason",
			                              "the markdown is larger than a tool result carries; narrow it with "
			                              "functionality / status, or qa_suite_export {format:\"markdown\", "
			                              "save:true}"));
		free(head);
		free(md);
	} else {
		json_t *list = json_array();
		size_t omitted = 0, n = 0, bytes = 0;
		json_object_foreach(groups, k, g)
		{
			json_array_foreach(g, i, c)
			{
				if (!strcmp(format, "json")) {
					char *t = bytes <= INLINE_CAP ? sw__json_compact(c) : NULL;
					bytes += t ? strlen(t) : 0;
					free(t);
					if (bytes <= INLINE_CAP)
						json_array_append(list, c);
					else
						omitted++;
				} else if (n++ < SUMMARY_CAP) {
					json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "id", str(c, "id", ""),
					                                      "title", str(c, "title", ""), "functionality", k, "status",
					                                      str(c, "status", "active"), "priority",
					                                      str(c, "priority", "medium"), "lastResult",
					                                      str(c, "lastResult", "not_run")));
				} else {
					omitted++;
				}
			}
		}
		json_object_set_new(res, "cases", list);
		if (omitted)
			json_object_set_new(res, "omitted",
			                    json_pack("{s:I, s:s}", "cases", (json_int_t)omitted, "reason",
			                              !strcmp(format, "json")
			                                  ? "the cases past 1 MB of JSON are left out; narrow it with "
			                                    "functionality / status, or read .swipium/test-suite.json"
			                                  : "the summary lists 50 cases; pass format json (or markdown), or "
			                                    "narrow it with functionality / status"));
	}
	if (!d.existed)
		json_object_set_new(res, "notes", json_pack("[s]", "the project has no .swipium/test-suite.json yet; "
		                                                   "qa_suite_generate or qa_suite_update creates it"));
	*result_json = sw__json_pretty(res);
	rc = *result_json ? SW_OK : sw__error_nomem(err);
out:
	sw__suite_close(&d);
	json_decref(req);
	json_decref(groups);
	json_decref(res);
	return rc;
}

/* ---- JUnit (libxml2's writer) --------------------------------------------------------------------- */

static void xattr(xmlTextWriterPtr w, const char *name, const char *value)
{
	char *c = clean_text(value, false);
	xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST(c ? c : ""));
	free(c);
}

static void xattr_n(xmlTextWriterPtr w, const char *name, size_t n)
{
	char b[32];
	snprintf(b, sizeof(b), "%zu", n);
	xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST b);
}

static void xtext(xmlTextWriterPtr w, const char *s)
{
	char *c = clean_text(s, true);
	xmlTextWriterWriteString(w, BAD_CAST(c ? c : ""));
	free(c);
}

/* failure, error, skipped or passed for one case. */
static const char *outcome(const json_t *c)
{
	const char *st = str(c, "status", "active");
	const char *r = str(c, "lastResult", "not_run");
	if (!strcmp(r, "failed"))
		return "failure";
	if (!strcmp(r, "blocked") || !strcmp(st, "blocked"))
		return "error";
	if (!strcmp(r, "passed"))
		return "passed";
	return "skipped";
}

/* The JUnit pass over the cases while the file is read: each case's group (functionality, first-seen order)
 * and outcome, so the second pass parses one case at a time in group order. */
typedef struct jgroup {
	char *name, *suite_name;
	size_t count, fail, errs, skipped;
	/* the group's <testcase> elements, written while the file is read, inside two stand-in elements so that
	 * they are indented as in the document */
	xmlBufferPtr buf;
	xmlTextWriterPtr w;
} jgroup;

typedef struct jscan {
	sw__sindex index; /* group name -> position in groups */
	jgroup *groups;
	size_t ngroups, cap;
	size_t n, fail, errs;
} jscan;

static void jscan_free(jscan *j)
{
	sw__sindex_free(&j->index);
	for (size_t i = 0; i < j->ngroups; i++) {
		free(j->groups[i].name);
		free(j->groups[i].suite_name);
		if (j->groups[i].w)
			xmlFreeTextWriter(j->groups[i].w);
		if (j->groups[i].buf)
			xmlBufferFree(j->groups[i].buf);
	}
	free(j->groups);
	memset(j, 0, sizeof(*j));
	sw__sindex_init(&j->index);
}

static void junit_case(xmlTextWriterPtr w, const json_t *c, const char *suite_name)
{
	char *name = sw__asprintf("%s: %s", str(c, "id", "(no id)"), str(c, "title", ""));
	xmlTextWriterStartElement(w, BAD_CAST "testcase");
	xattr(w, "name", name ? name : "");
	xattr(w, "classname", suite_name ? suite_name : "swipium.suite");
	xattr(w, "time", "0");
	const char *o = outcome(c);
	if (strcmp(o, "passed")) {
		xmlTextWriterStartElement(w, BAD_CAST o);
		const char *msg = !strcmp(o, "skipped") ? str(c, "status", "active") : str(c, "actual", o);
		if (!strcmp(o, "skipped") && !strcmp(msg, "active"))
			msg = "not run yet";
		xattr(w, "message", msg);
		xmlTextWriterEndElement(w);
	}
	sw_buf b = SW_BUF_INIT;
	sw__buf_printf(&b, "Objective: %s\n", str(c, "objective", ""));
	size_t j;
	json_t *st;
	json_array_foreach(json_object_get(c, "steps"), j, st)
		sw__buf_printf(&b, "%zu. %s\n", j + 1, json_string_value(st) ? json_string_value(st) : "");
	sw__buf_printf(&b, "Expected: %s\nActual: %s", str(c, "expected", "(missing)"), str(c, "actual", "(not recorded)"));
	char *body = sw__buf_steal(&b, NULL);
	xmlTextWriterStartElement(w, BAD_CAST "system-out");
	xtext(w, body);
	xmlTextWriterEndElement(w);
	free(body);
	xmlTextWriterEndElement(w);
	free(name);
}

static int jscan_case(void *ud, size_t i, const json_t *c, sw_error **err)
{
	jscan *j = ud;
	if (!c) {
		jscan_free(j);
		return SW_OK;
	}
	(void)i;
	j->n++;
	const char *f = str(c, "functionality", str(c, "feature", "General"));
	bool existed = false;
	long *at = sw__sindex_put(&j->index, f, (long)j->ngroups, &existed);
	if (!at)
		return sw__error_nomem(err);
	if (!existed) {
		if (j->ngroups == j->cap) {
			size_t cap = j->cap ? j->cap * 2 : 16;
			jgroup *g = realloc(j->groups, cap * sizeof(*g));
			if (!g)
				return sw__error_nomem(err);
			j->groups = g;
			j->cap = cap;
		}
		jgroup *g = &j->groups[j->ngroups++];
		memset(g, 0, sizeof(*g));
		g->name = sw__strdup(f);
		char *slug = sw_suite_slug(f);
		g->suite_name = sw__asprintf("swipium.suite.%s", slug ? slug : "");
		free(slug);
		g->buf = xmlBufferCreate();
		g->w = g->buf ? xmlNewTextWriterMemory(g->buf, 0) : NULL;
		if (!g->name || !g->w)
			return sw__error_nomem(err);
		xmlTextWriterSetIndent(g->w, 1);
		xmlTextWriterSetIndentString(g->w, BAD_CAST "  ");
		/* declared UTF-8 like the document, so that text is escaped the same way */
		xmlTextWriterStartDocument(g->w, "1.0", "UTF-8", NULL);
		xmlTextWriterStartElement(g->w, BAD_CAST "a");
		xmlTextWriterStartElement(g->w, BAD_CAST "b");
	}
	jgroup *g = &j->groups[*at];
	junit_case(g->w, c, g->suite_name);
	g->count++;
	const char *o = outcome(c);
	g->fail += !strcmp(o, "failure");
	g->errs += !strcmp(o, "error");
	g->skipped += !strcmp(o, "skipped");
	j->fail += !strcmp(o, "failure");
	j->errs += !strcmp(o, "error");
	return SW_OK;
}

/* The group's <testcase> elements as its stand-in wrapper holds them: "\n    <testcase ...>...</testcase>"... */
static bool group_fragment(jgroup *g, const char **frag, size_t *len)
{
	xmlTextWriterEndDocument(g->w);
	xmlFreeTextWriter(g->w);
	g->w = NULL;
	const char *t = (const char *)xmlBufferContent(g->buf);
	const char *s = t ? strstr(t, "<b>") : NULL;
	const char *e = NULL;
	for (const char *p = s; p && (p = strstr(p, "\n  </b>")); p++)
		e = p;
	if (!s || !e || e < s + 3)
		return false;
	*frag = s + 3;
	*len = (size_t)(e - (s + 3));
	return true;
}

/* The JUnit document: each group's element with a stand-in child, replaced by the group's <testcase> elements
 * written while the file was read. NULL when out of memory. */
static char *junit(jscan *j)
{
	xmlBufferPtr buf = xmlBufferCreate();
	xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
	char *out = NULL;
	if (!w)
		goto out;
	xmlTextWriterSetIndent(w, 1);
	xmlTextWriterSetIndentString(w, BAD_CAST "  ");
	xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL);
	xmlTextWriterStartElement(w, BAD_CAST "testsuites");
	xattr(w, "name", "swipium.test-suite");
	xattr_n(w, "tests", j->n);
	xattr_n(w, "failures", j->fail);
	xattr_n(w, "errors", j->errs);
	xattr(w, "time", "0");
	for (size_t gi = 0; gi < j->ngroups; gi++) {
		const jgroup *g = &j->groups[gi];
		xmlTextWriterStartElement(w, BAD_CAST "testsuite");
		xattr(w, "name", g->name);
		xattr_n(w, "tests", g->count);
		xattr_n(w, "failures", g->fail);
		xattr_n(w, "errors", g->errs);
		xattr_n(w, "skipped", g->skipped);
		xattr(w, "time", "0");
		xmlTextWriterStartElement(w, BAD_CAST "x");
		xmlTextWriterEndElement(w);
		xmlTextWriterEndElement(w);
	}
	xmlTextWriterEndDocument(w);
	xmlFreeTextWriter(w);
	w = NULL;
	/* every '<' of a name or message is escaped, so each "\n    <x/>" is a stand-in, in group order */
	static const char mark[] = "\n    <x/>";
	const char *t = (const char *)xmlBufferContent(buf);
	sw_buf b = SW_BUF_INIT;
	size_t gi = 0;
	bool ok = t != NULL;
	for (const char *p; ok && (p = strstr(t, mark)); t = p + sizeof(mark) - 1) {
		const char *frag = NULL;
		size_t flen = 0;
		ok = gi < j->ngroups && group_fragment(&j->groups[gi++], &frag, &flen);
		sw__buf_append(&b, t, (size_t)(p - t));
		if (ok)
			sw__buf_append(&b, frag, flen);
	}
	if (ok && gi == j->ngroups) {
		sw__buf_puts(&b, t);
		out = sw__buf_steal(&b, NULL);
	} else {
		sw__buf_free(&b);
	}
out:
	if (w)
		xmlFreeTextWriter(w);
	if (buf)
		xmlBufferFree(buf);
	return out;
}

/* ---- YAML: one file per case ---------------------------------------------------------------------- */

static void y_field(sw_buf *b, const char *key, const json_t *v)
{
	if (!v)
		return;
	sw__buf_printf(b, "%s: ", key);
	if (json_is_array(v)) {
		if (!json_array_size(v)) {
			sw__buf_puts(b, "[]\n");
			return;
		}
		sw__buf_putc(b, '\n');
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
		{
			sw__buf_puts(b, "  - ");
			char *c = clean_text(json_string_value(x), true);
			sw__suite_yaml_quote(b, c ? c : "");
			free(c);
			sw__buf_putc(b, '\n');
		}
		return;
	}
	if (json_is_object(v)) {
		char *t = sw__json_compact(v); /* JSON is YAML: quoted keys and values */
		char *c = clean_text(t, false);
		sw__buf_puts(b, c ? c : "{}");
		free(c);
		free(t);
		sw__buf_putc(b, '\n');
		return;
	}
	char *c = clean_text(json_string_value(v), true);
	sw__suite_yaml_quote(b, c ? c : "");
	free(c);
	sw__buf_putc(b, '\n');
}

static char *case_yaml(const json_t *c)
{
	sw_buf b = SW_BUF_INIT;
	static const char *const keys[] = {"id",       "title",    "functionality", "feature", "objective",
	                                   "priority", "status",   "type",          "preconditions", "steps",
	                                   "expected", "actual",   "lastResult",    "source",  "sourceUri",
	                                   "tags",     "links",    "automation",    "safety",  "createdAt",
	                                   "updatedAt"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++) {
		const json_t *v = json_object_get(c, keys[i]);
		if (v && (json_is_string(v) || json_is_array(v) || json_is_object(v)))
			y_field(&b, keys[i], v);
	}
	return sw__buf_steal(&b, NULL);
}

static int redact_in_place(sw_redactor *r, char **text, size_t *len, sw_error **err)
{
	if (!r || !*text)
		return SW_OK;
	char *out = NULL;
	size_t n = 0;
	int rc = sw_redactor_redact_text(r, *text, *len, &out, &n, NULL, err);
	if (rc < 0)
		return rc;
	free(*text);
	*text = sw__strndup(out, n);
	*len = n;
	sw_free(out);
	return *text ? SW_OK : sw__error_nomem(err);
}

static const sw__opt EXPORT_OPTS[] = {{"format", SW__OPT_STRING, false},
                                      {"save", SW__OPT_BOOL, true},
                                      {"sessionId", SW__OPT_STRING, true},
                                      {NULL, 0, false}};

SW_API int sw_suite_export(const char *project_root, const char *request_json, sw_redactor *redactor,
                           char **result_json, sw_error **err)
{
	if (!project_root || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_suite_export: root and result are required");
	json_t *req = NULL, *groups = NULL, *files = json_array(), *res = NULL;
	sw__suite_doc d = {.lock_fd = -1};
	sw__suite_file jf = {.lock_fd = -1};
	jscan js;
	memset(&js, 0, sizeof(js));
	sw__sindex_init(&js.index);
	bool existed = false;
	size_t shown = 0;
	char *body = NULL;
	size_t len = 0, bytes = 0;
	int rc = sw__options_load(request_json, EXPORT_OPTS, "qa_suite_export", &req, err);
	if (rc < 0)
		goto out;
	const char *format = str(req, "format", "");
	bool save = json_is_true(json_object_get(req, "save"));
	static const char *const FORMATS[][2] = {
	    {"markdown", "test-suite.md"}, {"json", "test-suite.json"}, {"junit", "test-suite.junit.xml"}, {"yaml", NULL}};
	size_t fi;
	for (fi = 0; fi < SW_ARRAY_SIZE(FORMATS); fi++)
		if (!strcmp(format, FORMATS[fi][0]))
			break;
	if (fi == SW_ARRAY_SIZE(FORMATS)) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "format must be markdown, yaml, json or junit");
		goto out;
	}
	bool is_junit = !strcmp(format, "junit");
	if (is_junit) {
		/* a case at a time: the groups and counts while reading, then each case again in group order */
		if ((rc = sw__suite_file_open(project_root, false, false, &jf, NULL, jscan_case, &js, err)) < 0)
			goto out;
		existed = jf.existed;
		shown = jf.n;
	} else {
		if ((rc = sw__suite_open(project_root, false, false, &d, NULL, err)) < 0)
			goto out;
		existed = d.existed;
		groups = group(sw__suite_cases(d.doc), NULL, NULL, &shown);
	}
	if (!strcmp(format, "yaml")) {
		sw_buf all = SW_BUF_INIT;
		const char *k;
		json_t *g;
		json_t *seen = json_object();
		json_object_foreach(groups, k, g)
		{
			char *dir = sw_suite_slug(k);
			size_t i;
			json_t *c;
			json_array_foreach(g, i, c)
			{
				char *y = case_yaml(c);
				size_t ylen = y ? strlen(y) : 0;
				if ((rc = redact_in_place(redactor, &y, &ylen, err)) < 0) {
					free(y);
					break;
				}
				char *id = sw_suite_slug(str(c, "id", "case"));
				char *rel = sw__asprintf("yaml/%s/%s.yaml", dir && *dir ? dir : "General", id && *id ? id : "case");
				/* a hand-edited duplicate id must not overwrite its twin's file */
				for (int n = 2; rel && json_object_get(seen, rel) && n < 10000; n++) {
					free(rel);
					rel = sw__asprintf("yaml/%s/%s-%d.yaml", dir && *dir ? dir : "General", id && *id ? id : "case", n);
				}
				if (rel)
					json_object_set_new(seen, rel, json_true());
				if (save && rel) {
					char *path = sw__asprintf(EXPORT_DIR "/%s", rel);
					rc = path ? sw_project_write_file(project_root, path, y ? y : "", ylen,
					                                  SW_WRITE_MKDIRS | SW_WRITE_SHARED, err)
					          : sw__error_nomem(err);
					if (rc == SW_OK)
						json_array_append_new(files, json_string(path));
					free(path);
				} else if (rel) {
					sw__buf_printf(&all, "--- # %s\n", rel);
					sw__buf_puts(&all, y ? y : "");
				}
				bytes += ylen;
				free(y);
				free(id);
				free(rel);
				if (rc < 0)
					break;
			}
			free(dir);
			if (rc < 0)
				break;
		}
		json_decref(seen);
		body = sw__buf_steal(&all, &len);
		if (rc < 0)
			goto out;
	} else {
		if (!strcmp(format, "markdown"))
			body = markdown(groups, shown);
		else if (is_junit)
			body = junit(&js);
		else
			body = sw__json_pretty(d.doc);
		if (!body) {
			rc = sw__error_nomem(err);
			goto out;
		}
		len = strlen(body);
		if ((rc = redact_in_place(redactor, &body, &len, err)) < 0)
			goto out;
		bytes = len;
		if (save) {
			char *path = sw__asprintf(EXPORT_DIR "/%s", FORMATS[fi][1]);
			rc = path ? sw_project_write_file(project_root, path, body, len, SW_WRITE_MKDIRS | SW_WRITE_SHARED, err)
			          : sw__error_nomem(err);
			if (rc == SW_OK)
				json_array_append_new(files, json_string(path));
			free(path);
			if (rc < 0)
				goto out;
		}
	}
	res = json_pack("{s:s, s:b, s:I, s:I, s:O, s:b}", "format", format, "saved", save, "cases", (json_int_t)shown,
	                "bytes", (json_int_t)bytes, "files", files, "suiteExists", existed);
	if (!save && len > INLINE_CAP) {
		/* a whole large suite does not fit a tool result: the head, and what was left out said */
		char *head = sw__utf8_cap(body, len, INLINE_CAP / 2, SW_CAP_HEAD);
		json_object_set_new(res, "content", json_string(head ? head : ""));
		json_object_set_new(res, "contentTruncated",
		                    json_pack("{s:I, s:I, s:s}", "bytes", (json_int_t)len, "shownBytes",
		                              (json_int_t)(head ? strlen(head) : 0), "reason",
		                              "the export is larger than a tool result carries; pass save:true to write it whole "
		                              "under .swipium/test-suite-export/"));
		free(head);
	} else if (!save) {
		json_object_set_new(res, "content", json_string(body ? body : ""));
	}
	*result_json = sw__json_pretty(res);
	rc = *result_json ? SW_OK : sw__error_nomem(err);
out:
	sw__suite_close(&d);
	sw__suite_file_close(&jf);
	jscan_free(&js);
	json_decref(req);
	json_decref(groups);
	json_decref(files);
	json_decref(res);
	free(body);
	return rc;
}
