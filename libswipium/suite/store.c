/* store.c: the canonical suite file (.swipium/test-suite.json): locked, atomic, never replaced when corrupt. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suite-internal.h"


static json_t *empty_doc(void)
{
	return json_pack("{s:i, s:s, s:{}, s:[]}", "schemaVersion", 1, "kind", "swipium.test-suite", "idCounters",
	                 "cases");
}

/* Why @doc is not a suite, or NULL. */
static const char *not_a_suite(const json_t *doc)
{
	if (!json_is_object(doc))
		return "the top level is not a JSON object";
	const json_t *cases = json_object_get(doc, "cases");
	if (cases && !json_is_array(cases))
		return "\"cases\" is not an array";
	size_t i;
	const json_t *c;
	json_array_foreach(cases, i, c) if (!json_is_object(c)) return "an entry of \"cases\" is not an object";
	const json_t *ctr = json_object_get(doc, "idCounters");
	if (ctr && !json_is_object(ctr))
		return "\"idCounters\" is not an object";
	return NULL;
}

static char *stamp(void)
{
	char *iso = sw__iso_now();
	if (!iso)
		return NULL;
	for (char *p = iso; *p; p++)
		if (*p == ':')
			*p = '-';
	return iso;
}

/* Renames the corrupt file aside (never deleted): test-suite.json.corrupt-<time>. (transfer full: its name) */
static char *set_aside(const char *root, sw_error **err)
{
	char *ts = stamp();
	char *rel = NULL, *from = NULL, *to = NULL;
	int rc = sw__confine(root, SW_SUITE_FILE, 0, &from, err);
	for (int i = 0; rc == SW_OK && i < 100; i++) {
		free(rel);
		free(to);
		to = NULL;
		rel = i ? sw__asprintf(SW_SUITE_FILE ".corrupt-%s-%d", ts ? ts : "x", i)
		        : sw__asprintf(SW_SUITE_FILE ".corrupt-%s", ts ? ts : "x");
		if (!rel || (rc = sw__confine(root, rel, 0, &to, err)) != SW_OK)
			break;
		struct stat st;
		if (lstat(to, &st) != 0)
			break;
	}
	if (rc == SW_OK && to && rename(from, to) != 0)
		rc = sw__error_set(err, SW_EIO, NULL, NULL, "could not set the corrupt test-suite.json aside: %s",
		                   strerror(errno));
	free(ts);
	free(from);
	free(to);
	if (rc != SW_OK) {
		free(rel);
		return NULL;
	}
	return rel;
}

json_t *sw__suite_empty_doc(void)
{
	return empty_doc();
}

const char *sw__suite_not_a_suite(const json_t *doc)
{
	return not_a_suite(doc);
}

int sw__suite_unusable(const char *root, bool for_write, bool set_aside_corrupt, const char *reason,
                       char **aside_note, bool *aside_taken, sw_error **err)
{
	*aside_taken = false;
	if (for_write && set_aside_corrupt) {
		char *aside = set_aside(root, err);
		if (!aside)
			return SW_EIO;
		if (aside_note)
			*aside_note = sw__asprintf("%s could not be used (%s); it was kept as %s and a new suite was started: "
			                           "copy any cases you need from it",
			                           SW_SUITE_FILE, reason, aside);
		free(aside);
		*aside_taken = true;
		return SW_OK;
	}
	return sw__error_set(err, SW_EPARSE, "UNKNOWN",
	                     "Fix the JSON by hand (or restore it from version control), or move it away to start a new "
	                     "suite; qa_suite_update sets a corrupt file aside as test-suite.json.corrupt-<time>.",
	                     "%s cannot be read: %s. It was left untouched and is not treated as an empty suite",
	                     SW_SUITE_FILE, reason);
}

int sw__suite_open(const char *root, bool for_write, bool set_aside_corrupt, sw__suite_doc *d, char **aside_note,
                   sw_error **err)
{
	memset(d, 0, sizeof(*d));
	d->lock_fd = -1;
	d->root = sw__strdup(root);
	if (!d->root)
		return sw__error_nomem(err);
	int rc;
	if (for_write) {
		/* the lock lives beside the file; .swipium linked out of the project is refused here */
		d->lock_fd = sw__confine_open(root, SW_SUITE_LOCK_FILE, O_RDWR | O_CREAT, 0644,
		                              SW__CONFINE_MKDIRS | SW__CONFINE_SHARED, NULL, err);
		if (d->lock_fd < 0) {
			rc = d->lock_fd;
			d->lock_fd = -1;
			goto fail;
		}
		while (flock(d->lock_fd, LOCK_EX) != 0 && errno == EINTR)
			;
	}
	char *text = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	rc = sw__suite_read_confined(root, SW_SUITE_FILE, SW_SUITE_JSON_MAX_BYTES, &text, &len, &d->path, &e);
	if (rc == SW_ENOTFOUND) {
		sw_error_free(e);
		d->doc = empty_doc();
		return d->doc ? SW_OK : sw__error_nomem(err);
	}
	if (rc < 0) {
		sw__error_propagate(err, e);
		goto fail;
	}
	d->existed = true;
	json_error_t je;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	const char *why = doc ? not_a_suite(doc) : NULL;
	if (doc && !why) {
		d->doc = doc;
		if (!json_object_get(doc, "cases"))
			json_object_set_new(doc, "cases", json_array());
		if (!json_object_get(doc, "idCounters"))
			json_object_set_new(doc, "idCounters", json_object());
		return SW_OK;
	}
	char reason[300];
	if (!doc)
		snprintf(reason, sizeof(reason), "it is not valid JSON (line %d, column %d: %s)", je.line, je.column,
		         je.text);
	else
		snprintf(reason, sizeof(reason), "it is not a test suite: %s", why);
	json_decref(doc);
	bool aside = false;
	rc = sw__suite_unusable(root, for_write, set_aside_corrupt, reason, aside_note, &aside, err);
	if (aside) {
		d->existed = false;
		d->doc = empty_doc();
		return d->doc ? SW_OK : sw__error_nomem(err);
	}
fail:
	sw__suite_close(d);
	return rc;
}

int sw__suite_save(sw__suite_doc *d, sw_error **err)
{
	char *now = sw__iso_now();
	json_object_set_new(d->doc, "updatedAt", json_string(now ? now : ""));
	free(now);
	char *text = sw__json_pretty(d->doc);
	if (!text)
		return sw__error_nomem(err);
	size_t len = strlen(text);
	char *nl = realloc(text, len + 2);
	if (!nl) {
		free(text);
		return sw__error_nomem(err);
	}
	nl[len++] = '\n';
	nl[len] = '\0';
	int rc = sw_project_write_file(d->root, SW_SUITE_FILE, nl, len, SW_WRITE_MKDIRS | SW_WRITE_SHARED, err);
	free(nl);
	return rc;
}

void sw__suite_close(sw__suite_doc *d)
{
	if (d->lock_fd >= 0) {
		flock(d->lock_fd, LOCK_UN);
		close(d->lock_fd);
	}
	d->lock_fd = -1;
	json_decref(d->doc);
	d->doc = NULL;
	free(d->root);
	free(d->path);
	d->root = d->path = NULL;
}

json_t *sw__suite_cases(json_t *doc)
{
	json_t *c = json_object_get(doc, "cases");
	if (!json_is_array(c)) {
		c = json_array();
		json_object_set_new(doc, "cases", c);
	}
	return c;
}

void sw__suite_norm_into(sw_buf *b, const char *s)
{
	bool space = false, any = false;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	if (!sw__buf_reserve(b, strlen((const char *)p)))
		return;
	for (; *p; p++) {
		if (isspace(*p)) {
			space = any;
			continue;
		}
		if (space)
			b->data[b->len++] = ' ';
		space = false;
		any = true;
		b->data[b->len++] = (char)tolower(*p);
	}
	b->data[b->len] = '\0';
}

char *sw__suite_norm(const char *s)
{
	sw_buf b = SW_BUF_INIT;
	sw__suite_norm_into(&b, s);
	sw__buf_putc(&b, '\0');
	return sw__buf_steal(&b, NULL);
}

void sw__suite_case_key_into(sw_buf *b, const json_t *c)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
	sw__suite_norm_into(b, json_string_value(json_object_get(c, "feature")));
	sw__buf_putc(b, '\x1f');
	const char *obj = json_string_value(json_object_get(c, "objective"));
	sw__suite_norm_into(b, obj && *obj ? obj : json_string_value(json_object_get(c, "title")));
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(c, "steps"), i, st)
	{
		sw__buf_putc(b, '\x1e');
		sw__suite_norm_into(b, json_string_value(st));
	}
}

char *sw__suite_case_key(const json_t *c)
{
	sw_buf b = SW_BUF_INIT;
	sw__suite_case_key_into(&b, c);
	if (b.failed) {
		sw__buf_free(&b);
		return NULL;
	}
	return sw__buf_steal(&b, NULL);
}

char *sw__suite_feature_token(const char *feature)
{
	sw_buf b = SW_BUF_INIT;
	bool sep = false;
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)(feature ? feature : ""); *p && n < 32; p++) {
		if (isalnum(*p)) {
			if (sep && n)
				sw__buf_putc(&b, '_'), n++;
			sep = false;
			sw__buf_putc(&b, (char)toupper(*p));
			n++;
		} else {
			sep = true;
		}
	}
	if (n == 0)
		sw__buf_puts(&b, "GENERAL");
	sw__buf_putc(&b, '\0');
	return sw__buf_steal(&b, NULL);
}

long sw__suite_id_number(const char *id, const char *token)
{
	size_t tl = strlen(token);
	if (!id || strncmp(id, "TC-", 3) || strncmp(id + 3, token, tl) || id[3 + tl] != '-')
		return -1;
	const char *d = id + 4 + tl;
	if (!*d)
		return -1;
	long n = 0;
	for (; *d; d++) {
		if (!isdigit((unsigned char)*d) || n > 100000000)
			return -1;
		n = n * 10 + (*d - '0');
	}
	return n;
}
