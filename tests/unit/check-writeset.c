/* check-writeset: core/writeset.c, the set of project files written together (qa_generate's save). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <swipium/util.h>

#include "sw-internal.h"

static char *tmpdir(void)
{
	char *d = strdup("/tmp/check-writeset-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static char *read_all(const char *dir, const char *rel)
{
	char *p = sw__path_join(dir, rel), *data = NULL;
	size_t len = 0;
	int rc = sw__read_file(p, 1 << 20, &data, &len, NULL);
	free(p);
	return rc == SW_OK ? data : NULL;
}

/* The names in @dir (not "." and ".."), counted; a leftover temporary shows here. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void cleanup(const char *dir)
{
	char *cmd = sw__asprintf("rm -rf '%s'", dir);
	(void)!system(cmd);
	free(cmd);
}

START_TEST(test_set_written)
{
	char *dir = tmpdir();
	sw__writeset *ws = sw__writeset_new(dir, SW_WRITE_MKDIRS | SW_WRITE_SHARED);
	ck_assert_ptr_nonnull(ws);
	ck_assert_int_eq(sw__writeset_add(ws, ".swipium/pages/a.yaml", "a: 1\n", 5, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_add(ws, ".swipium/pages/b.yaml", "b: 2\n", 5, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_add(ws, ".swipium/locators/audit.md", "", 0, NULL), SW_OK);
	ck_assert_uint_eq(sw__writeset_count(ws), 3);
	ck_assert_int_eq(sw__writeset_commit(ws, NULL), SW_OK);
	sw__writeset_free(ws);
	char *a = read_all(dir, ".swipium/pages/a.yaml"), *e = read_all(dir, ".swipium/locators/audit.md");
	ck_assert_str_eq(a, "a: 1\n");
	ck_assert_str_eq(e, "");
	free(a);
	free(e);
	char *pages = sw__path_join(dir, ".swipium/pages");
	ck_assert_int_eq(entries(pages), 2); /* no temporary left */
	free(pages);
	/* the same content again: the file is left as it is (same inode), a changed one is replaced */
	struct stat st1, st2, st3;
	char *pa = sw__path_join(dir, ".swipium/pages/a.yaml"), *pb = sw__path_join(dir, ".swipium/pages/b.yaml");
	ck_assert_int_eq(stat(pa, &st1), 0);
	ck_assert_int_eq(stat(pb, &st3), 0);
	ws = sw__writeset_new(dir, SW_WRITE_MKDIRS | SW_WRITE_SHARED);
	ck_assert_int_eq(sw__writeset_add(ws, ".swipium/pages/a.yaml", "a: 1\n", 5, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_add(ws, ".swipium/pages/b.yaml", "b: 3\n", 5, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_commit(ws, NULL), SW_OK);
	sw__writeset_free(ws);
	ck_assert_int_eq(stat(pa, &st2), 0);
	ck_assert_uint_eq(st1.st_ino, st2.st_ino);
	ck_assert_int_eq(stat(pb, &st2), 0);
	ck_assert_uint_ne(st3.st_ino, st2.st_ino);
	char *b = read_all(dir, ".swipium/pages/b.yaml");
	ck_assert_str_eq(b, "b: 3\n");
	free(b);
	free(pa);
	free(pb);
	/* replaced as a whole on a second set (other flags: mode 0600 differs, so it is rewritten) */
	ws = sw__writeset_new(dir, SW_WRITE_MKDIRS);
	ck_assert_int_eq(sw__writeset_add(ws, ".swipium/pages/a.yaml", "new\n", 4, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_commit(ws, NULL), SW_OK);
	sw__writeset_free(ws);
	a = read_all(dir, ".swipium/pages/a.yaml");
	ck_assert_str_eq(a, "new\n");
	free(a);
	cleanup(dir);
	free(dir);
}
END_TEST

/* The third file cannot be written (its folder is a plain file): the first two, written already to temporaries,
 * are not there afterwards, nor any temporary, and an existing file keeps its old content. */
START_TEST(test_failure_in_the_middle_leaves_nothing)
{
	char *dir = tmpdir();
	char *blocker = sw__path_join(dir, "blocker"), *old = sw__path_join(dir, "keep.txt");
	ck_assert_int_eq(sw_file_write_atomic(blocker, "x", 1, 0, NULL), SW_OK);
	ck_assert_int_eq(sw_file_write_atomic(old, "old", 3, 0, NULL), SW_OK);
	sw__writeset *ws = sw__writeset_new(dir, SW_WRITE_MKDIRS);
	ck_assert_int_eq(sw__writeset_add(ws, "keep.txt", "new", 3, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_add(ws, "one.txt", "1", 1, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_add(ws, "blocker/three.txt", "3", 1, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_add(ws, "four.txt", "4", 1, NULL), SW_OK);
	sw_error *err = NULL;
	ck_assert_int_lt(sw__writeset_commit(ws, &err), 0);
	ck_assert_ptr_nonnull(err);
	sw_error_free(err);
	sw__writeset_free(ws);
	char *k = read_all(dir, "keep.txt");
	ck_assert_str_eq(k, "old");
	free(k);
	ck_assert_ptr_null(read_all(dir, "one.txt"));
	ck_assert_int_eq(entries(dir), 2); /* blocker and keep.txt: no temporary, no one.txt */
	free(blocker);
	free(old);
	cleanup(dir);
	free(dir);
}
END_TEST

/* A folder of the set that is a symbolic link out of the project: refused before anything is created, also for
 * the files listed before it. A link to a folder inside the project is followed to its real place. */
START_TEST(test_symlink_out_refused)
{
	char *dir = tmpdir(), *outside = tmpdir();
	char *proj = sw__path_join(dir, "proj"), *link = NULL;
	ck_assert_int_eq(mkdir(proj, 0700), 0);
	link = sw__path_join(proj, "pages");
	ck_assert_int_eq(symlink(outside, link), 0);
	sw__writeset *ws = sw__writeset_new(proj, SW_WRITE_MKDIRS);
	ck_assert_int_eq(sw__writeset_add(ws, "first.txt", "1", 1, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_add(ws, "pages/p.yaml", "p", 1, NULL), SW_OK);
	sw_error *err = NULL;
	ck_assert_int_eq(sw__writeset_commit(ws, &err), SW_EDENIED);
	ck_assert_str_eq(sw_error_failure_code(err), "UNSAFE_ACTION_REFUSED");
	sw_error_free(err);
	sw__writeset_free(ws);
	ck_assert_int_eq(entries(outside), 0);
	ck_assert_int_eq(entries(proj), 1); /* the link only: first.txt was not written either */
	/* a link that stays inside */
	char *inner = sw__path_join(proj, "real");
	ck_assert_int_eq(mkdir(inner, 0700), 0);
	char *l2 = sw__path_join(proj, "alias");
	ck_assert_int_eq(symlink(inner, l2), 0);
	ws = sw__writeset_new(proj, 0);
	ck_assert_int_eq(sw__writeset_add(ws, "alias/x.txt", "x", 1, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_commit(ws, NULL), SW_OK);
	sw__writeset_free(ws);
	char *x = read_all(proj, "real/x.txt");
	ck_assert_str_eq(x, "x");
	free(x);
	/* a final name that is a folder is not replaced */
	ws = sw__writeset_new(proj, 0);
	ck_assert_int_eq(sw__writeset_add(ws, "ok.txt", "o", 1, NULL), SW_OK);
	ck_assert_int_eq(sw__writeset_add(ws, "real", "r", 1, NULL), SW_OK);
	err = NULL;
	ck_assert_int_eq(sw__writeset_commit(ws, &err), SW_EDENIED);
	sw_error_free(err);
	sw__writeset_free(ws);
	ck_assert_ptr_null(read_all(proj, "ok.txt"));
	free(inner);
	free(l2);
	free(link);
	free(proj);
	cleanup(dir);
	cleanup(outside);
	free(dir);
	free(outside);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writeset");
	TCase *tc = tcase_create("writeset");
	tcase_add_test(tc, test_set_written);
	tcase_add_test(tc, test_failure_in_the_middle_leaves_nothing);
	tcase_add_test(tc, test_symlink_out_refused);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
