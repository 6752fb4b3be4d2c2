/* clock.c: the library's clocks (monotonic for intervals, wall for timestamps), ISO time, timed waits. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sw-internal.h"

SW_API int64_t sw_monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

SW_API int64_t sw_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

SW_API char *sw_iso_time(int64_t ms, char out[SW_ISO_TIME_SIZE])
{
	int64_t secs = ms / 1000, rem = ms % 1000;
	if (rem < 0) {
		rem += 1000;
		secs--;
	}
	time_t t = (time_t)secs;
	struct tm tm;
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 0) {
		snprintf(out, SW_ISO_TIME_SIZE, "1970-01-01T00:00:00.000Z");
		return out;
	}
	char b[96]; /* roomy for the compiler's worst case; the text is 24 bytes */
	int n = snprintf(b, sizeof(b), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
	                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)rem);
	if (n < 0 || n >= SW_ISO_TIME_SIZE)
		n = 0;
	memcpy(out, b, (size_t)n);
	out[n] = '\0';
	return out;
}

SW_API void sw_project_id(const char *root, char out[SW_PROJECT_ID_SIZE])
{
	char hex[65];
	sw_sha256_hex(root ? root : "", root ? strlen(root) : 0, hex);
	memcpy(out, hex, SW_PROJECT_ID_SIZE - 1);
	out[SW_PROJECT_ID_SIZE - 1] = '\0';
}

char *sw__iso(int64_t ms)
{
	char b[SW_ISO_TIME_SIZE];
	return sw__strdup(sw_iso_time(ms, b));
}

char *sw__iso_now(void)
{
	return sw__iso(sw_wall_ms());
}

void sw__deadline_in(struct timespec *ts, int64_t ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	if (ms < 0)
		ms = 0;
	ts->tv_sec += (time_t)(ms / 1000);
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int sw__cond_init_monotonic(pthread_cond_t *cond)
{
	pthread_condattr_t a;
	int rc = pthread_condattr_init(&a);
	if (rc == 0)
		rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(cond, &a);
	pthread_condattr_destroy(&a);
	return rc;
}

void sw__sleep_ms(int64_t ms)
{
	if (ms <= 0)
		return;
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
