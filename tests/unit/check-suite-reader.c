/* check-suite-reader.c: test-suite.json read a case at a time (suite/reader.c) against the whole-file read
 * (sw__suite_open / sw__suite_save): the same cases, the same refusals with the same message (line and column),
 * the same set-aside of a corrupt file and byte for byte the same file written. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../libswipium/suite/suite-internal.h"

static char *new_project(const char *text, size_t len)
{
	char tmpl[] = "/tmp/sw-check-reader-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	char *dot = sw__asprintf("%s/.swipium", tmpl);
	ck_assert_int_eq(mkdir(dot, 0700), 0);
	if (text) {
		char *path = sw__asprintf("%s/test-suite.json", dot);
		FILE *f = fopen(path, "wb");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(text, 1, len, f), len);
		fclose(f);
		free(path);
	}
	free(dot);
	return sw__strdup(tmpl);
}

static void remove_project(char *root)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
	free(root);
}

static char *slurp(const char *root, const char *rel, size_t *len)
{
	char *path = sw__asprintf("%s/%s", root, rel);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	sw_buf b = SW_BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sw__buf_append(&b, chunk, n);
	fclose(f);
	return sw__buf_steal(&b, len);
}

/* The visits: each case compactly, in order (a reset empties the list). */
static int collect(void *ud, size_t i, const json_t *c, sw_error **err)
{
	json_t *list = ud;
	(void)err;
	if (!c) {
		json_array_clear(list);
		return SW_OK;
	}
	ck_assert_uint_eq(i, json_array_size(list));
	json_array_append_new(list, json_deep_copy(c));
	return SW_OK;
}

typedef struct outcome {
	int rc;
	char *message; /* the error's message, or NULL */
	json_t *cases; /* what was read */
} outcome;

static outcome read_whole(const char *root)
{
	outcome o = {0, NULL, NULL};
	sw__suite_doc d;
	sw_error *err = NULL;
	o.rc = sw__suite_open(root, false, false, &d, NULL, &err);
	if (o.rc == SW_OK) {
		o.cases = json_deep_copy(sw__suite_cases(d.doc));
		sw__suite_close(&d);
	} else {
		o.message = sw__strdup(sw_error_message(err));
	}
	sw_error_free(err);
	return o;
}

static outcome read_streamed(const char *root)
{
	outcome o = {0, NULL, json_array()};
	sw__suite_file f;
	sw_error *err = NULL;
	o.rc = sw__suite_file_open(root, false, false, &f, NULL, collect, o.cases, &err);
	if (o.rc == SW_OK) {
		ck_assert_uint_eq(f.n, json_array_size(o.cases));
		for (size_t i = 0; i < f.n; i++) { /* read again, a case at a time */
			json_t *c = sw__suite_file_case(&f, i);
			ck_assert_msg(json_equal(c, json_array_get(o.cases, i)), "case %zu read again differs", i);
			json_decref(c);
		}
		sw__suite_file_close(&f);
	} else {
		o.message = sw__strdup(sw_error_message(err));
		json_decref(o.cases);
		o.cases = NULL;
	}
	sw_error_free(err);
	return o;
}

/* Both reads of @text agree; returns the number of cases (-1 when both refused it). */
static long same_read(const char *text, size_t len)
{
	char *root = new_project(text, len);
	outcome a = read_whole(root), b = read_streamed(root);
	ck_assert_int_eq(a.rc, b.rc);
	long n = -1;
	if (a.rc == SW_OK) {
		ck_assert_msg(json_equal(a.cases, b.cases), "the cases differ for: %.200s", text);
		n = (long)json_array_size(a.cases);
	} else {
		ck_assert_str_eq(a.message, b.message);
	}
	free(a.message);
	free(b.message);
	json_decref(a.cases);
	json_decref(b.cases);
	/* a refused file is left as it was */
	size_t got = 0;
	char *after = slurp(root, SW_SUITE_FILE, &got);
	ck_assert_uint_eq(got, len);
	ck_assert_int_eq(memcmp(after, text, len), 0);
	free(after);
	remove_project(root);
	return n;
}

START_TEST(cases_whose_strings_hold_structure)
{
	static const char text[] =
	    "{\"schemaVersion\": 1, \"note\": \"a ] and a } and a \\\" here\", \"cases\": [\n"
	    "  {\"id\": \"TC-A-001\", \"title\": \"ends with ]\", \"steps\": [\"}\", \"]\", \"{[\", \"\\\\\"]},\n"
	    "  {\"id\": \"TC-A-002\", \"title\": \"quote \\\" then ] then \\\\\\\" then }\", \"n\": [1, 2.5, -3e2]},\n"
	    "  {\"id\": \"TC-A-003\", \"title\": \"ü ✓ 日本語 🙂 \\u00fc \\ud83d\\ude42\", \"x\": {\"y\": {\"z\": "
	    "[[], {}]}}},\n"
	    "  {\"title\": \"backslash at the end \\\\\"}\n"
	    "], \"idCounters\": {\"A\": 3}, \"tail\": [true, false, null]}\n";
	ck_assert_int_eq(same_read(text, sizeof(text) - 1), 4);
	/* and the scanner itself cut it (not the whole-file parse standing in) */
	sw__suite_scan sc;
	ck_assert(sw__suite_scan_text(text, sizeof(text) - 1, &sc));
	ck_assert_uint_eq(sc.n, 4);
	for (size_t i = 0; i < sc.n; i++) {
		json_t *c = sw__suite_scan_case(&sc, text, i);
		ck_assert_msg(c != NULL, "case %zu was not cut whole", i);
		json_decref(c);
	}
	ck_assert_str_eq(json_string_value(json_object_get(sc.head, "note")), "a ] and a } and a \" here");
	ck_assert(json_is_array(json_object_get(sc.head, "cases")));
	sw__suite_scan_free(&sc);
	static const char empty[] = " { \"cases\" : [ ] } ";
	ck_assert_int_eq(same_read(empty, sizeof(empty) - 1), 0);
	static const char none[] = "{}";
	ck_assert_int_eq(same_read(none, sizeof(none) - 1), 0);
}
END_TEST

START_TEST(hostile_files_are_refused_with_the_same_message)
{
	static const char *const bad[] = {
	    "{\"cases\": [{\"id\": \"x\", \"title\": \"cut off",               /* truncated inside a string */
	    "{\"cases\": [{\"id\": \"x\"}, {\"id\": \"y\"",                    /* truncated inside a case */
	    "{\"cases\": [{\"id\": \"x\"}]",                                   /* truncated at the top */
	    "{\"cases\": [{\"id\": \"x\", \"title\": \"a\", \"id\": \"y\"}]}", /* a duplicate key inside a case */
	    "{\"cases\": [{\"a\": {\"b\": 1, \"b\": 2}}]}",                    /* ... deeper in a case */
	    "{\"cases\": [], \"cases\": []}",                                  /* a duplicate member */
	    "{\"cases\": {\"id\": \"x\"}}",                                    /* cases is not an array */
	    "{\"cases\": \"[]\"}",                                             /* ... a string holding one */
	    "{\"cases\": [{\"id\": \"x\"}, 7]}",                               /* an entry is not an object */
	    "{\"cases\": [{\"id\": \"x\"},]}",                                 /* a trailing comma */
	    "{\"cases\": [{\"id\": \"x\"}]} {}",                               /* something after the object */
	    "[{\"id\": \"x\"}]",                                               /* not an object */
	    "{\"idCounters\": [1], \"cases\": []}",                            /* idCounters not an object */
	    "{\"cases\": [{\"title\": \"\x01 control\"}]}",                    /* a raw control character */
	    "{\"cases\": [{\"title\": \"\xff not UTF-8\"}]}",                  /* invalid UTF-8 */
	    "\xef\xbb\xbf{\"cases\": []}",                                     /* a byte order mark */
	    "",                                                                /* empty */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(same_read(bad[i], strlen(bad[i])) == -1, "file %zu was read", i);
	/* a NUL byte between two cases */
	static const char nul[] = "{\"cases\": [{\"id\": \"x\"}\0, {\"id\": \"y\"}]}";
	ck_assert_int_eq(same_read(nul, sizeof(nul) - 1), -1);
	/* nesting deeper than the scanner follows is left to the whole-file parse (same answer either way) */
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "{\"cases\": [{\"deep\": ");
	for (int i = 0; i < 1500; i++)
		sw__buf_putc(&b, '[');
	for (int i = 0; i < 1500; i++)
		sw__buf_putc(&b, ']');
	sw__buf_puts(&b, "}]}");
	size_t len = 0;
	char *deep = sw__buf_steal(&b, &len);
	ck_assert_int_eq(same_read(deep, len), 1);
	free(deep);
}
END_TEST

/* Every cut and many one-byte changes of a valid suite read the same both ways (accepted alike with the same
 * cases, or refused alike with the same message): the scanner never accepts what the whole-file parse refuses. */
START_TEST(mutated_files_read_the_same_both_ways)
{
	static const char base[] = "{\"schemaVersion\": 1, \"cases\": [\n"
	                           "  {\"id\": \"TC-A-001\", \"title\": \"a ] b\", \"steps\": [\"} x\", \"q \\\" \\\\\"]},\n"
	                           "  {\"id\": \"TC-A-002\", \"n\": [1, -2.5e3, true, null], \"o\": {\"k\": {}}}\n"
	                           "], \"idCounters\": {\"A\": 2}}\n";
	size_t len = sizeof(base) - 1;
	ck_assert_int_eq(same_read(base, len), 2);
	char buf[sizeof(base)];
	for (size_t cut = 0; cut < len; cut++) /* every truncation */
		same_read(base, cut);
	static const char swaps[] = "\"\\{}[],: x0\n";
	unsigned seed = 16;
	for (int k = 0; k < 400; k++) { /* one byte changed at a pseudo-random place */
		seed = seed * 1103515245u + 12345u;
		size_t at = (seed >> 8) % len;
		memcpy(buf, base, len);
		buf[at] = swaps[(seed >> 20) % (sizeof(swaps) - 1)];
		same_read(buf, len);
	}
}
END_TEST

START_TEST(a_corrupt_file_is_set_aside_never_emptied)
{
	static const char text[] = "{\"cases\": [{\"id\": \"TC-A-001\", \"id\": \"again\"}]}";
	char *root = new_project(text, sizeof(text) - 1);
	/* read-only: refused, left as it is */
	sw__suite_file f;
	sw_error *err = NULL;
	json_t *seen = json_array();
	ck_assert_int_eq(sw__suite_file_open(root, false, false, &f, NULL, collect, seen, &err), SW_EPARSE);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "line 1, column"));
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "duplicate object key"));
	sw_error_free(err);
	err = NULL;
	/* for writing: set aside, an empty suite, what was visited forgotten */
	char *note = NULL;
	ck_assert_int_eq(sw__suite_file_open(root, true, true, &f, &note, collect, seen, &err), SW_OK);
	ck_assert_uint_eq(f.n, 0);
	ck_assert_uint_eq(json_array_size(seen), 0);
	ck_assert_ptr_nonnull(note);
	ck_assert_ptr_nonnull(strstr(note, "test-suite.json.corrupt-"));
	ck_assert_int_eq(sw__suite_file_save(&f, &err), SW_OK);
	sw__suite_file_close(&f);
	free(note);
	/* the corrupt bytes are kept beside the new suite */
	char *dir = sw__asprintf("%s/.swipium", root);
	DIR *dh = opendir(dir);
	ck_assert_ptr_nonnull(dh);
	struct dirent *de;
	bool kept = false;
	while ((de = readdir(dh))) {
		if (strncmp(de->d_name, "test-suite.json.corrupt-", 24))
			continue;
		char *rel = sw__asprintf(".swipium/%s", de->d_name);
		size_t n = 0;
		char *back = slurp(root, rel, &n);
		kept = back && n == sizeof(text) - 1 && !memcmp(back, text, n);
		free(back);
		free(rel);
	}
	closedir(dh);
	free(dir);
	ck_assert(kept);
	size_t n = 0;
	char *fresh = slurp(root, SW_SUITE_FILE, &n);
	json_t *doc = json_loads(fresh, JSON_REJECT_DUPLICATES, NULL);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "cases")), 0);
	json_decref(doc);
	free(fresh);
	json_decref(seen);
	remove_project(root);
}
END_TEST

/* @text without its top-level "updatedAt" line (the time of the save). */
static char *without_stamp(const char *text)
{
	char *out = sw__strdup(text);
	char *at = strstr(out, "\n  \"updatedAt\": \"");
	ck_assert_ptr_nonnull(at);
	char *end = strchr(at + 1, '\n');
	ck_assert_ptr_nonnull(end);
	memmove(at, end, strlen(end) + 1);
	return out;
}

/* Saving through each read writes the same bytes (but for the time), whatever the file's own layout. */
static void same_save(const char *text)
{
	char *root = new_project(text, strlen(text));
	sw_error *err = NULL;
	sw__suite_doc d;
	ck_assert_int_eq(sw__suite_open(root, true, false, &d, NULL, &err), SW_OK);
	ck_assert_int_eq(sw__suite_save(&d, &err), SW_OK);
	sw__suite_close(&d);
	char *whole = slurp(root, SW_SUITE_FILE, NULL);
	remove_project(root);
	root = new_project(text, strlen(text));
	sw__suite_file f;
	ck_assert_int_eq(sw__suite_file_open(root, true, false, &f, NULL, NULL, NULL, &err), SW_OK);
	ck_assert_int_eq(sw__suite_file_save(&f, &err), SW_OK);
	sw__suite_file_close(&f);
	char *streamed = slurp(root, SW_SUITE_FILE, NULL);
	char *a = without_stamp(whole), *b = without_stamp(streamed);
	ck_assert_str_eq(a, b);
	/* and once more from the file just written (its cases are copied as their bytes now) */
	ck_assert_int_eq(sw__suite_file_open(root, true, false, &f, NULL, NULL, NULL, &err), SW_OK);
	for (size_t i = 0; i < f.n; i++)
		ck_assert_msg(f.cases[i].verbatim, "case %zu of a file we wrote is not taken as written", i);
	ck_assert_int_eq(sw__suite_file_save(&f, &err), SW_OK);
	sw__suite_file_close(&f);
	char *again = slurp(root, SW_SUITE_FILE, NULL), *c = without_stamp(again);
	ck_assert_str_eq(a, c);
	free(a);
	free(b);
	free(c);
	free(whole);
	free(streamed);
	free(again);
	remove_project(root);
}

START_TEST(saving_writes_what_the_whole_file_save_writes)
{
	same_save("{\"cases\":[{\"id\":\"TC-A-001\",\"steps\":[\"a\",\"b\"],\"links\":{},\"tags\":[]},"
	          "{\"title\":\"\\u00fc \\ud83d\\ude42 \\\" \\\\ ] "
	          "}\",\"n\":1,\"r\":[2.5,-3e2,1e21,0.000001,1.0,-0.0],\"b\":[true,false],\"x\":[{\"y\":null}]}],"
	          "\"schemaVersion\":1,\"updatedAt\":\"then\"}");
	same_save("{\n\t\"kind\" : \"swipium.test-suite\" ,\n\"cases\" : [ { \"id\" : \"TC-B-001\" } ] }");
	same_save("{\"updatedAt\": \"then\", \"cases\": []}");
	same_save("{\"updatedAt\": \"then\"}");
}
END_TEST

START_TEST(index_keeps_every_key)
{
	sw__sindex x;
	sw__sindex_init(&x);
	char key[32];
	for (long i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "k%ld", i);
		bool existed = true;
		long *v = sw__sindex_put(&x, key, i, &existed);
		ck_assert_ptr_nonnull(v);
		ck_assert(!existed);
	}
	ck_assert(sw__sindex_put(&x, "k7", 0, NULL) != NULL);
	for (long i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "k%ld", i);
		long v = -1;
		ck_assert(sw__sindex_get(&x, key, &v));
		ck_assert_int_eq(v, i);
	}
	ck_assert(!sw__sindex_get(&x, "k20000", NULL));
	ck_assert(!sw__sindex_get(&x, "", NULL));
	ck_assert(sw__sindex_put(&x, "", 5, NULL) != NULL);
	ck_assert(sw__sindex_get(&x, "", NULL));
	ck_assert_uint_eq(x.n, 20001);
	sw__sindex_free(&x);
}
END_TEST

static Suite *reader_suite(void)
{
	Suite *s = suite_create("suite-reader");
	TCase *tc = tcase_create("reader");
	tcase_add_test(tc, cases_whose_strings_hold_structure);
	tcase_add_test(tc, hostile_files_are_refused_with_the_same_message);
	tcase_add_test(tc, mutated_files_read_the_same_both_ways);
	tcase_add_test(tc, a_corrupt_file_is_set_aside_never_emptied);
	tcase_add_test(tc, saving_writes_what_the_whole_file_save_writes);
	tcase_add_test(tc, index_keeps_every_key);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reader_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
