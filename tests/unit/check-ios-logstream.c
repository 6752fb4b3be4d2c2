/* check-ios-logstream.c: the iOS driver's `log stream` buffer (drivers/ios/logstream.c) never answers a read
 * with a hole. A stand-in `xcrun` on PATH runs `tail -f` on a file the test appends to, so lines arrive
 * through a real pipe and a real reader thread. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sw-internal.h"
#include "../../libswipium/drivers/ios/ios-internal.h"

static char dir[256], feed[300], pidfile[300];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/sw-logstream-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(feed, sizeof(feed), "%s/feed.log", dir);
	snprintf(pidfile, sizeof(pidfile), "%s/stream.pid", dir);
	FILE *f = fopen(feed, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	char xcrun[300];
	snprintf(xcrun, sizeof(xcrun), "%s/xcrun", dir);
	f = fopen(xcrun, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
	        "#!/bin/sh\n"
	        "[ \"$1 $2\" = \"simctl help\" ] && exit 0\n"
	        "if [ \"$2 $4 $5 $6 $7\" = \"spawn log stream --style compact\" ]; then\n"
	        "  echo $$ > '%s'\n"
	        "  echo 'Timestamp               Ty Process[PID:TID]'\n"
	        "  exec tail -n +1 -f '%s'\n"
	        "fi\n"
	        "exit 64\n",
	        pidfile, feed);
	fclose(f);
	chmod(xcrun, 0755);
	char path[1024];
	snprintf(path, sizeof(path), "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path, 1);
}

/* "YYYY-MM-DD HH:MM:SS.mmm" @off_ms from now (local time), and its threadtime stamp (from offset 5). */
static void stamp(long off_ms, char full[32], char tt[24])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + off_ms;
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	localtime_r(&t, &tm);
	char b[24];
	strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(full, 32, "%s.%03d", b, (int)(ms % 1000));
	snprintf(tt, 24, "%s", full + 5);
}

static void append(const char *text)
{
	FILE *f = fopen(feed, "a");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Reads from @since until the answer contains @needle (at most 5 s): the answer (transfer full). */
static char *read_until(sw__ios_logstream *ls, const char *since, const char *needle)
{
	for (int i = 0; i < 250; i++) {
		char *t = NULL;
		size_t n = 0;
		int r = sw__ios_logstream_read(ls, since, &t, &n);
		ck_assert_int_eq(r, 1);
		ck_assert_uint_eq(strlen(t), n);
		if (strstr(t, needle))
			return t;
		free(t);
		sw__sleep_ms(20);
	}
	ck_abort_msg("\"%s\" never arrived", needle);
	return NULL;
}

static int read_rc(sw__ios_logstream *ls, const char *since, char **text)
{
	size_t n = 0;
	*text = NULL;
	return sw__ios_logstream_read(ls, since, text, &n);
}

START_TEST(answers_only_what_it_holds)
{
	setup();
	sw__ios_logstream *ls = NULL;
	sw_error *e = NULL;
	ck_assert_int_eq(sw__ios_logstream_start("UDID-1", &ls, &e), SW_OK);
	ck_assert(sw__ios_logstream_wait_live(ls, 5000));
	char full[32], past[24], a[24], b[24], mid[24], c[24], line[512], *t = NULL;
	/* before the stream began: not its to answer */
	stamp(-3600 * 1000L, full, past);
	ck_assert_int_eq(read_rc(ls, past, &t), 0);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(read_rc(ls, NULL, &t), 0);
	/* lines after its start: the ones stamped at or after the stamp asked, a continuation with its line */
	stamp(2000, full, a);
	snprintf(line, sizeof(line), "%s E  Shop[1:2] first\n  continued\n", full);
	append(line);
	stamp(4000, full, b);
	snprintf(line, sizeof(line), "%s Df Shop[1:2] second\n", full);
	append(line);
	t = read_until(ls, a, "second");
	ck_assert_ptr_nonnull(strstr(t, "first\n  continued\n"));
	free(t);
	stamp(3000, full, mid);
	t = read_until(ls, mid, "second");
	ck_assert_ptr_null(strstr(t, "first"));
	ck_assert_ptr_null(strstr(t, "continued")); /* it belongs to an older line */
	free(t);
	/* a complete `log show` begun while the stream was live proves the stretch from its newest line on */
	char live_at[19];
	sw__ios_logstream_mark_live(ls, live_at);
	ck_assert_str_ne(live_at, "");
	char shown[32], shown_tt[24], older[24], show[512];
	stamp(-600 * 1000L, shown, shown_tt);
	stamp(-700 * 1000L, full, older);
	snprintf(show, sizeof(show), "Timestamp               Ty Process[PID:TID]\n%s Df backboardd[9:9] old\n", shown);
	ck_assert_int_eq(read_rc(ls, shown_tt, &t), 0);
	sw__ios_logstream_shown(ls, live_at, older, show, strlen(show));
	ck_assert_int_eq(read_rc(ls, shown_tt, &t), 1); /* from the show's newest line on */
	ck_assert_ptr_nonnull(strstr(t, "second"));
	free(t);
	ck_assert_int_eq(read_rc(ls, older, &t), 0); /* before it: the show's own lines are not in the buffer */
	/* a show begun before the stream was live proves nothing */
	sw__ios_logstream_shown(ls, "", past, show, strlen(show));
	ck_assert_int_eq(read_rc(ls, past, &t), 0);
	/* past the bound the oldest lines go, and with them what the show vouched for */
	size_t big = (size_t)9 << 20;
	char *fill = malloc(big + 1);
	ck_assert_ptr_nonnull(fill);
	stamp(5000, full, c);
	size_t off = 0;
	while (off + 200 < big)
		off += (size_t)snprintf(fill + off, 200, "%s Df filler[3:3] %0120d\n", full, 7);
	append(fill);
	free(fill);
	stamp(6000, full, c);
	snprintf(line, sizeof(line), "%s Df Shop[1:2] after the flood\n", full);
	append(line);
	t = read_until(ls, c, "after the flood");
	free(t);
	ck_assert_int_eq(read_rc(ls, shown_tt, &t), 0);
	ck_assert_int_eq(read_rc(ls, a, &t), 0); /* "first" was dropped: not answered without it */
	/* the stream ends: the read says so */
	FILE *pf = fopen(pidfile, "r");
	ck_assert_ptr_nonnull(pf);
	int pid = 0;
	ck_assert_int_eq(fscanf(pf, "%d", &pid), 1);
	fclose(pf);
	kill(pid, SIGTERM);
	for (int i = 0; i < 250 && !sw__ios_logstream_ended(ls); i++)
		sw__sleep_ms(20);
	ck_assert(sw__ios_logstream_ended(ls));
	ck_assert_int_eq(read_rc(ls, c, &t), -1);
	sw__ios_logstream_free(ls);
}
END_TEST

START_TEST(a_stream_that_cannot_start_is_never_live)
{
	setup();
	/* the stand-in refuses another program: it exits at once */
	char xcrun[300];
	snprintf(xcrun, sizeof(xcrun), "%s/xcrun", dir);
	FILE *f = fopen(xcrun, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\n[ \"$1 $2\" = \"simctl help\" ] && exit 0\nexit 1\n", f);
	fclose(f);
	sw__ios_logstream *ls = NULL;
	ck_assert_int_eq(sw__ios_logstream_start("UDID-2", &ls, NULL), SW_OK);
	ck_assert(!sw__ios_logstream_wait_live(ls, 5000));
	ck_assert(sw__ios_logstream_ended(ls));
	char *t = NULL;
	ck_assert_int_eq(read_rc(ls, "12-03 08:00:00.000", &t), -1);
	sw__ios_logstream_free(ls);
	sw__ios_logstream_free(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ios-logstream");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, answers_only_what_it_holds);
	tcase_add_test(tc, a_stream_that_cannot_start_is_never_live);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
