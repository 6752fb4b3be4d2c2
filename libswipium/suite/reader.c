/* reader.c: test-suite.json a case at a time. A small scanner cuts the file into its top-level members and the
 * bytes of each case; each case is parsed alone (a small tree, freed at once), so reading 5,000 cases never
 * builds, walks and frees one tree of the whole file. Anything the scanner does not expect sends the text to
 * the whole-file parse, whose result and error text are the same as sw__suite_open's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <fcntl.h>

#include "suite-internal.h"

#define SCAN_MAX_DEPTH 1000 /* deeper than this is left to the whole-file parse (jansson's own limit) */

static size_t ws(const char *t, size_t len, size_t p)
{
	while (p < len && (t[p] == ' ' || t[p] == '\n' || t[p] == '\r' || t[p] == '\t'))
		p++;
	return p;
}

/* The end of the string opening at @p (one past its closing quote), or 0. */
static size_t skip_string(const char *t, size_t len, size_t p)
{
	for (p++; p < len;) {
		const char *q = memchr(t + p, '"', len - p);
		if (!q)
			return 0;
		size_t at = (size_t)(q - t), back = 0;
		while (at - back > p && t[at - back - 1] == '\\') /* an odd run of backslashes escapes it */
			back++;
		if (!(back & 1))
			return at + 1;
		p = at + 1;
	}
	return 0;
}

/* The end of the value starting at @p, or 0. Only its extent: jansson checks the bytes. */
static size_t skip_value(const char *t, size_t len, size_t p)
{
	if (p >= len)
		return 0;
	if (t[p] == '"')
		return skip_string(t, len, p);
	if (t[p] == '{' || t[p] == '[') {
		size_t depth = 0;
		while (p < len) {
			char ch = t[p];
			if (ch == '"') {
				if (!(p = skip_string(t, len, p)))
					return 0;
				continue;
			}
			if (ch == '{' || ch == '[') {
				if (++depth > SCAN_MAX_DEPTH)
					return 0;
			} else if (ch == '}' || ch == ']') {
				if (--depth == 0)
					return p + 1;
			}
			p++;
		}
		return 0;
	}
	size_t s = p;
	while (p < len && !strchr(",]} \n\r\t", t[p]) && t[p])
		p++;
	return p > s ? p : 0;
}

static bool add_span(sw__suite_scan *s, size_t off, size_t len)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		size_t *sp = realloc(s->span, cap * 2 * sizeof(*sp));
		if (!sp)
			return false;
		s->span = sp;
		s->cap = cap;
	}
	s->span[2 * s->n] = off;
	s->span[2 * s->n + 1] = len;
	s->n++;
	return true;
}

void sw__suite_scan_free(sw__suite_scan *s)
{
	json_decref(s->head);
	free(s->span);
	memset(s, 0, sizeof(*s));
}

bool sw__suite_scan_text(const char *t, size_t len, sw__suite_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->head = json_object();
	if (!s->head)
		return false;
	size_t p = ws(t, len, 0);
	if (p >= len || t[p] != '{')
		goto no;
	p = ws(t, len, p + 1);
	if (p < len && t[p] == '}') {
		p++;
		goto end;
	}
	for (;;) {
		if (p >= len || t[p] != '"')
			goto no;
		size_t ke = skip_string(t, len, p);
		if (!ke)
			goto no;
		json_t *k = json_loadb(t + p, ke - p, JSON_DECODE_ANY, NULL);
		const char *key = json_string_value(k);
		if (!key || json_object_get(s->head, key)) { /* a duplicate member: jansson says where */
			json_decref(k);
			goto no;
		}
		p = ws(t, len, ke);
		if (p >= len || t[p] != ':') {
			json_decref(k);
			goto no;
		}
		p = ws(t, len, p + 1);
		if (!strcmp(key, "cases")) {
			if (p >= len || t[p] != '[' || json_object_set_new(s->head, key, json_array())) {
				json_decref(k);
				goto no;
			}
			p = ws(t, len, p + 1);
			if (p < len && t[p] == ']') {
				p++;
			} else {
				for (;;) {
					if (p >= len || t[p] != '{') {
						json_decref(k);
						goto no;
					}
					size_t e = skip_value(t, len, p);
					if (!e || !add_span(s, p, e - p)) {
						json_decref(k);
						goto no;
					}
					p = ws(t, len, e);
					if (p < len && t[p] == ',') {
						p = ws(t, len, p + 1);
						continue;
					}
					if (p < len && t[p] == ']') {
						p++;
						break;
					}
					json_decref(k);
					goto no;
				}
			}
		} else {
			size_t e = skip_value(t, len, p);
			json_t *v = e ? json_loadb(t + p, e - p, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL) : NULL;
			if (!v || json_object_set_new(s->head, key, v)) {
				json_decref(k);
				goto no;
			}
			p = e;
		}
		json_decref(k);
		p = ws(t, len, p);
		if (p < len && t[p] == ',') {
			p = ws(t, len, p + 1);
			continue;
		}
		if (p < len && t[p] == '}') {
			p++;
			break;
		}
		goto no;
	}
end:
	if (ws(t, len, p) != len)
		goto no;
	return true;
no:
	sw__suite_scan_free(s);
	return false;
}

json_t *sw__suite_scan_case(const sw__suite_scan *s, const char *text, size_t i)
{
	json_t *c = json_loadb(text + s->span[2 * i], s->span[2 * i + 1], JSON_REJECT_DUPLICATES, NULL);
	if (c && !json_is_object(c)) {
		json_decref(c);
		c = NULL;
	}
	return c;
}

/* ---- the suite file ------------------------------------------------------------------------------------ */

static bool grow_cases(sw__suite_file *f, size_t n)
{
	if (n <= f->cap)
		return true;
	size_t cap = f->cap ? f->cap : n > 64 ? n : 64; /* first: as many as the file holds */
	while (cap < n)
		cap *= 2;
	struct sw__suite_entry *c = realloc(f->cases, cap * sizeof(*c));
	if (!c)
		return false;
	memset(c + f->cap, 0, (cap - f->cap) * sizeof(*c));
	f->cases = c;
	f->cap = cap;
	return true;
}

static void drop_cases(sw__suite_file *f)
{
	for (size_t i = 0; i < f->n; i++)
		json_decref(f->cases[i].tree);
	free(f->cases);
	f->cases = NULL;
	f->n = f->cap = 0;
	sw__text_arena_free(&f->texts);
}

void sw__suite_file_close(sw__suite_file *f)
{
	if (f->lock_fd >= 0) {
		flock(f->lock_fd, LOCK_UN);
		close(f->lock_fd);
	}
	f->lock_fd = -1;
	drop_cases(f);
	json_decref(f->head);
	free(f->text);
	free(f->root);
	free(f->path);
	sw__buf_free(&f->scratch);
	f->head = NULL;
	f->text = f->root = f->path = NULL;
}

/* A line break and the indentation of @depth (two spaces a level), as sw__json_pretty writes them. */
/* Whether @slice (a case at depth 2 of the file) is byte for byte what saving @c writes. */
static bool canonical(sw__suite_file *f, const json_t *c, const char *slice, size_t len)
{
	f->scratch.len = 0;
	sw__json_pretty_at(&f->scratch, c, 2);
	return !f->scratch.failed && f->scratch.len == len && !memcmp(f->scratch.data, slice, len);
}

/* A missing "cases" or "idCounters" is added, as sw__suite_open does (same order). */
static int fill_head(sw__suite_file *f, sw_error **err)
{
	if (!json_object_get(f->head, "cases") && json_object_set_new(f->head, "cases", json_array()))
		return sw__error_nomem(err);
	if (!json_object_get(f->head, "idCounters") && json_object_set_new(f->head, "idCounters", json_object()))
		return sw__error_nomem(err);
	return SW_OK;
}

/* The whole-file parse: sw__suite_open's result for anything the scanner left. *@reason set when unusable. */
static int whole(sw__suite_file *f, sw__suite_visit visit, void *ud, char reason[300], sw_error **err)
{
	json_error_t je;
	json_t *doc = json_loadb(f->text, f->len, JSON_REJECT_DUPLICATES, &je);
	const char *why = doc ? sw__suite_not_a_suite(doc) : NULL;
	if (!doc || why) {
		if (!doc)
			snprintf(reason, 300, "it is not valid JSON (line %d, column %d: %s)", je.line, je.column,
			         je.text);
		else
			snprintf(reason, 300, "it is not a test suite: %s", why);
		json_decref(doc);
		return SW_EPARSE;
	}
	json_t *cases = json_object_get(doc, "cases");
	size_t n = json_array_size(cases);
	if (!grow_cases(f, n)) {
		json_decref(doc);
		return sw__error_nomem(err);
	}
	for (size_t i = 0; i < n; i++)
		f->cases[i] = (struct sw__suite_entry){.tree = json_incref(json_array_get(cases, i))};
	f->n = n;
	if (cases)
		json_object_set_new(doc, "cases", json_array()); /* the placeholder keeps the member's place */
	json_decref(f->head);
	f->head = doc;
	int rc = fill_head(f, err);
	if (rc == SW_OK && visit) {
		if ((rc = visit(ud, SIZE_MAX, NULL, err)) == SW_OK)
			for (size_t i = 0; i < n && rc == SW_OK; i++)
				rc = visit(ud, i, f->cases[i].tree, err);
	}
	return rc;
}

int sw__suite_file_open(const char *root, bool for_write, bool set_aside_corrupt, sw__suite_file *f, char **aside_note,
                        sw__suite_visit visit, void *ud, sw_error **err)
{
	memset(f, 0, sizeof(*f));
	f->lock_fd = -1;
	f->texts.block = 256 * 1024; /* the texts of changed cases: a few large blocks */
	f->root = sw__strdup(root);
	if (!f->root)
		return sw__error_nomem(err);
	int rc;
	if (for_write) {
		f->lock_fd = sw__confine_open(root, SW_SUITE_LOCK_FILE, O_RDWR | O_CREAT, 0644,
		                              SW__CONFINE_MKDIRS | SW__CONFINE_SHARED, NULL, err);
		if (f->lock_fd < 0) {
			rc = f->lock_fd;
			f->lock_fd = -1;
			goto fail;
		}
		while (flock(f->lock_fd, LOCK_EX) != 0 && errno == EINTR)
			;
	}
	sw_error *e = NULL;
	rc = sw__suite_read_confined(root, SW_SUITE_FILE, SW_SUITE_JSON_MAX_BYTES, &f->text, &f->len, &f->path, &e);
	if (rc == SW_ENOTFOUND) {
		sw_error_free(e);
		f->head = sw__suite_empty_doc();
		return f->head ? SW_OK : sw__error_nomem(err);
	}
	if (rc < 0) {
		sw__error_propagate(err, e);
		goto fail;
	}
	f->existed = true;
	char reason[300] = "";
	sw__suite_scan s;
	bool scanned = sw__suite_scan_text(f->text, f->len, &s);
	if (scanned && !sw__suite_not_a_suite(s.head)) {
		if (!grow_cases(f, s.n)) {
			sw__suite_scan_free(&s);
			rc = sw__error_nomem(err);
			goto fail;
		}
		f->head = s.head;
		s.head = NULL;
		rc = SW_OK;
		size_t i;
		for (i = 0; i < s.n && rc == SW_OK; i++) {
			json_t *c = sw__suite_scan_case(&s, f->text, i);
			if (!c)
				break;
			f->cases[i] = (struct sw__suite_entry){.off = s.span[2 * i], .len = s.span[2 * i + 1]};
			f->n = i + 1;
			if (visit)
				rc = visit(ud, i, c, err);
			/* a case the caller did not keep is written back as its bytes when they are already in that
			 * form */
			if (for_write && rc == SW_OK && !f->cases[i].tree)
				f->cases[i].verbatim = canonical(f, c, f->text + s.span[2 * i], s.span[2 * i + 1]);
			json_decref(c);
		}
		bool all = i == s.n && rc == SW_OK;
		sw__suite_scan_free(&s);
		if (rc < 0)
			goto fail;
		if (all) {
			if ((rc = fill_head(f, err)) < 0)
				goto fail;
			return SW_OK;
		}
		/* a case that does not parse alone: the whole-file parse says why, with its line and column */
		drop_cases(f);
	} else if (scanned) {
		sw__suite_scan_free(&s);
	}
	rc = whole(f, visit, ud, reason, err);
	if (rc == SW_OK)
		return SW_OK;
	if (rc != SW_EPARSE)
		goto fail;
	bool aside = false;
	rc = sw__suite_unusable(root, for_write, set_aside_corrupt, reason, aside_note, &aside, err);
	if (aside) {
		drop_cases(f);
		json_decref(f->head);
		f->existed = false;
		f->head = sw__suite_empty_doc();
		if (!f->head)
			return sw__error_nomem(err);
		return visit ? visit(ud, SIZE_MAX, NULL, err) : SW_OK;
	}
fail:
	sw__suite_file_close(f);
	return rc;
}

void sw__suite_file_keep(sw__suite_file *f, size_t i, const json_t *c)
{
	if (i < f->n && !f->cases[i].tree && !f->cases[i].own)
		f->cases[i].tree = json_incref((json_t *)c);
}

int sw__suite_file_release(sw__suite_file *f, size_t i, sw_error **err)
{
	struct sw__suite_entry *e = i < f->n ? &f->cases[i] : NULL;
	if (!e || !e->tree)
		return SW_OK;
	if (e->len && canonical(f, e->tree, f->text + e->off, e->len)) {
		e->verbatim = true; /* its bytes are what saving writes */
		json_decref(e->tree);
		e->tree = NULL;
		return SW_OK;
	}
	json_t *c = e->tree; /* written now, as text (put drops the tree) */
	json_incref(c);
	int rc = sw__suite_file_put(f, i, c, err);
	json_decref(c);
	return rc;
}

json_t *sw__suite_file_case(const sw__suite_file *f, size_t i)
{
	const struct sw__suite_entry *e = &f->cases[i];
	if (e->tree)
		return json_incref(e->tree);
	if (e->own)
		return json_loadb(e->own, e->own_len, JSON_REJECT_DUPLICATES, NULL);
	return json_loadb(f->text + e->off, e->len, JSON_REJECT_DUPLICATES, NULL);
}

int sw__suite_file_put(sw__suite_file *f, size_t i, const json_t *c, sw_error **err)
{
	if (i > f->n || (i == f->n && !grow_cases(f, f->n + 1)))
		return sw__error_nomem(err);
	f->scratch.len = 0;
	sw__json_pretty_at(&f->scratch, c, 2);
	char *text = f->scratch.failed ? NULL : sw__text_arena_copy(&f->texts, f->scratch.data, f->scratch.len);
	if (!text)
		return sw__error_nomem(err);
	if (i == f->n) {
		memset(&f->cases[i], 0, sizeof(f->cases[i]));
		f->n++;
	}
	struct sw__suite_entry *e = &f->cases[i];
	json_decref(e->tree);
	e->tree = NULL;
	e->own = text; /* a text put before stays in the blocks, unused */
	e->own_len = f->scratch.len;
	e->verbatim = false;
	return SW_OK;
}

int sw__suite_file_save(sw__suite_file *f, sw_error **err)
{
	char *now = sw__iso_now();
	json_object_set_new(f->head, "updatedAt", json_string(now ? now : ""));
	free(now);
	char *head = sw__json_pretty(f->head);
	if (!head)
		return sw__error_nomem(err);
	/* the members at depth 1 are indented by two spaces and no string holds a raw line break, so this is the
	 * "cases" member of the top level and nothing else */
	static const char mark[] = "\n  \"cases\": []";
	char *at = f->n ? strstr(head, mark) : NULL;
	sw_buf b = SW_BUF_INIT;
	sw__buf_reserve(&b, f->len + f->len / 4 + 4096);
	int rc = SW_OK;
	if (f->n && !at) {
		/* not expected; the whole document as one tree then */
		json_t *doc = json_deep_copy(f->head), *cases = json_array();
		for (size_t i = 0; doc && cases && i < f->n; i++)
			json_array_append_new(cases, sw__suite_file_case(f, i));
		json_object_set_new(doc, "cases", cases);
		char *all = doc && json_array_size(cases) == f->n ? sw__json_pretty(doc) : NULL;
		json_decref(doc);
		if (!all)
			rc = sw__error_nomem(err);
		else
			sw__buf_puts(&b, all);
		free(all);
	} else if (!at) {
		sw__buf_puts(&b, head);
	} else {
		size_t lead = (size_t)(at - head) + sizeof(mark) - 3; /* up to and with the ": " */
		sw__buf_append(&b, head, lead);
		sw__buf_putc(&b, '[');
		for (size_t i = 0; i < f->n && rc == SW_OK; i++) {
			struct sw__suite_entry *e = &f->cases[i];
			sw__buf_puts(&b, i ? ",\n    " : "\n    ");
			if (e->own) { /* written when it was put */
				sw__buf_append(&b, e->own, e->own_len);
			} else if (e->verbatim && !e->tree) { /* unchanged and already in the form written */
				sw__buf_append(&b, f->text + e->off, e->len);
			} else {
				json_t *c = sw__suite_file_case(f, i);
				if (!c) {
					rc = sw__error_nomem(err);
					break;
				}
				sw__json_pretty_at(&b, c, 2);
				json_decref(c);
			}
		}
		sw__buf_puts(&b, "\n  ]");
		sw__buf_puts(&b, at + sizeof(mark) - 1);
	}
	free(head);
	sw__buf_putc(&b, '\n');
	size_t len = 0;
	char *out = sw__buf_steal(&b, &len);
	if (rc == SW_OK && !out)
		rc = sw__error_nomem(err);
	if (rc == SW_OK)
		rc = sw_project_write_file(f->root, SW_SUITE_FILE, out, len, SW_WRITE_MKDIRS | SW_WRITE_SHARED, err);
	free(out);
	return rc;
}
