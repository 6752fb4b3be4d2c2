/* check-clock.c: the core clocks, ISO time and project id; timed work survives wall-clock steps.
 *
 * This executable defines clock_gettime() itself, so every call the statically linked library makes
 * goes through it: CLOCK_REALTIME gets a settable offset (a wall-clock step, as NTP or a user would
 * make), every other clock is the kernel's.
 */
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "session-rig.h"
#include "sw-internal.h"

static _Atomic long long wall_offset_ms;

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	int rc = (int)syscall(SYS_clock_gettime, clk, ts);
	if (rc == 0 && (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE)) {
		long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + atomic_load(&wall_offset_ms) * 1000000LL;
		ts->tv_sec = (time_t)(ns / 1000000000LL);
		ts->tv_nsec = (long)(ns % 1000000000LL);
	}
	return rc;
}

START_TEST(test_iso_time)
{
	char b[SW_ISO_TIME_SIZE];
	ck_assert_str_eq(sw_iso_time(0, b), "1970-01-01T00:00:00.000Z");
	ck_assert_str_eq(sw_iso_time(1700000000123LL, b), "2023-11-14T22:13:20.123Z");
	ck_assert_str_eq(sw_iso_time(-1, b), "1969-12-31T23:59:59.999Z");
	char *a = sw__iso(951782400007LL); /* a leap day */
	ck_assert_str_eq(a, "2000-02-29T00:00:00.007Z");
	free(a);
}
END_TEST

START_TEST(test_project_id)
{
	char hex[65], id[SW_PROJECT_ID_SIZE];
	sw_sha256_hex("/home/u/app", strlen("/home/u/app"), hex);
	sw_project_id("/home/u/app", id);
	ck_assert_uint_eq(strlen(id), 16);
	ck_assert_int_eq(strncmp(id, hex, 16), 0);
}
END_TEST

START_TEST(test_monotonic_ignores_wall_steps)
{
	int64_t w0 = sw_wall_ms(), m0 = sw_monotonic_ms();
	atomic_store(&wall_offset_ms, -3600 * 1000LL);
	int64_t w1 = sw_wall_ms(), m1 = sw_monotonic_ms();
	atomic_store(&wall_offset_ms, 0);
	ck_assert_int_lt(w1, w0 - 3500 * 1000LL); /* the fake step is seen by the wall clock */
	ck_assert_int_ge(m1, m0);
	ck_assert_int_lt(m1 - m0, 1000);
}
END_TEST

/* A condition from sw__cond_init_monotonic() times out after its interval whatever the wall clock does. */
START_TEST(test_timed_wait_ignores_wall_steps)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c;
	ck_assert_int_eq(sw__cond_init_monotonic(&c), 0);
	atomic_store(&wall_offset_ms, 3600 * 1000LL);
	struct timespec dl;
	int64_t t0 = sw_monotonic_ms();
	sw__deadline_in(&dl, 200);
	pthread_mutex_lock(&m);
	int rc = 0;
	while (rc == 0)
		rc = pthread_cond_timedwait(&c, &m, &dl);
	pthread_mutex_unlock(&m);
	atomic_store(&wall_offset_ms, 0);
	int64_t took = sw_monotonic_ms() - t0;
	ck_assert_int_ge(took, 190);
	ck_assert_int_lt(took, 5000);
	pthread_cond_destroy(&c);
}
END_TEST

static bool file_has(const char *path, const char *needle)
{
	char *text = NULL;
	size_t len = 0;
	if (sw__read_file(path, 1 << 24, &text, &len, NULL) != SW_OK)
		return false;
	bool hit = strstr(text, needle) != NULL;
	free(text);
	return hit;
}

/*
 * A note added just before the wall clock steps back an hour is still written by the debounced saver
 * within a few seconds (the debounce counted on CLOCK_REALTIME used to wait out the whole hour).
 */
START_TEST(test_saving_survives_backward_wall_step)
{
	struct session_rig rig;
	session_rig_open(&rig, "clock");
	sw_session *s = rig.s;
	char *state = sw__path_join(sw_session_dir(s), "state.json");
	for (int step = 0; step < 2; step++) {
		const char *text = step ? "after-forward-step" : "after-backward-step";
		char note[128];
		snprintf(note, sizeof(note), "{\"severity\":\"info\",\"text\":\"%s\"}", text);
		ck_assert_int_eq(sw_session_add_note(s, note, NULL), SW_OK);
		atomic_store(&wall_offset_ms, step ? 3600 * 1000LL : -3600 * 1000LL);
		bool saved = false;
		for (int i = 0; i < 300 && !saved; i++) {
			sw__sleep_ms(10);
			saved = file_has(state, text);
		}
		atomic_store(&wall_offset_ms, 0);
		ck_assert_msg(saved, "the note was not saved within 3 s of a wall-clock step (%s)", text);
	}
	free(state);
	session_rig_close(&rig);
	char *cmd = sw__asprintf("rm -rf '%s'", rig.home);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}
END_TEST

static Suite *clock_suite(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("primitives");
	tcase_add_test(tc, test_iso_time);
	tcase_add_test(tc, test_project_id);
	tcase_add_test(tc, test_monotonic_ignores_wall_steps);
	tcase_add_test(tc, test_timed_wait_ignores_wall_steps);
	suite_add_tcase(s, tc);
	tc = tcase_create("steps");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_saving_survives_backward_wall_step);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(clock_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
