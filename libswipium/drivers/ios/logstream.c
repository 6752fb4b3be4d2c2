/* logstream.c: one `xcrun simctl spawn <udid> log stream --style compact` per simulator handle, read into a
 * bounded buffer by a thread of its own, so that the act loop's health check reads the simulator's log without
 * starting a process after every action (`log show` costs a process start, and on a Mac a search of the log
 * store, per call).
 *
 * What the buffer can answer is tracked by stamps ("MM-DD HH:MM:SS.mmm", the simulator's log clock, which is
 * the host's local time):
 *  - cover: the stream holds every line stamped after it (set when the stream's first output arrives, and
 *    moved forward when the oldest lines are dropped to keep the buffer within its bound);
 *  - gap: a complete `log show` that started after the stream was live, and whose newest line was stamped
 *    at gap, proved that nothing was logged between gap and cover: a read from gap on is answered too.
 * Any other read is "not covered" and the caller runs `log show`.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ios-internal.h"

#define LS_KEEP_MAX ((size_t)8 << 20)  /* the buffer never holds more than this ... */
#define LS_KEEP_AFTER ((size_t)6 << 20) /* ... and is cut down to this when it would */
#define LS_STAMP 18                     /* "MM-DD HH:MM:SS.mmm" */

struct sw__ios_logstream {
	pid_t pid;
	int fd;
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool live;     /* its first output arrived */
	bool ended;    /* EOF, a read error or a stop */
	bool stopping; /* the owner asked the reader to go */
	char *data;    /* complete lines, then at most one partial line at the end */
	size_t len, cap;
	char cover[LS_STAMP + 1]; /* "" until live */
	char gap[LS_STAMP + 1];   /* "" when unknown */
	unsigned long dropped_lines;
};

/* A `log stream/show --style compact` line starts "YYYY-MM-DD HH:MM:SS.mmm ": its stamp from offset 5, or NULL. */
static const char *line_stamp(const char *l, size_t n)
{
	if (n < 24 || l[4] != '-' || l[7] != '-' || l[10] != ' ' || l[13] != ':' || l[16] != ':' || l[19] != '.' ||
	    l[23] != ' ')
		return NULL;
	for (int i = 0; i < 23; i++)
		if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && i != 19 && (l[i] < '0' || l[i] > '9'))
			return NULL;
	return l + 5;
}

static void stamp_now(char out[LS_STAMP + 1])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	localtime_r(&ts.tv_sec, &tm);
	char b[32];
	snprintf(b, sizeof(b), "%02d-%02d %02d:%02d:%02d.%03ld", (tm.tm_mon + 1) % 100, tm.tm_mday % 100,
	         tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100, (ts.tv_nsec / 1000000) % 1000);
	memcpy(out, b, LS_STAMP);
	out[LS_STAMP] = '\0';
}

/* Drops the oldest whole lines until at most LS_KEEP_AFTER bytes are kept; cover becomes the newest dropped
 * stamp (lines after it are all kept) and gap is forgotten (what it vouched for is gone). Under mu. */
static void trim(sw__ios_logstream *ls)
{
	size_t cut = 0;
	const char *newest = NULL;
	while (ls->len - cut > LS_KEEP_AFTER) {
		const char *nl = memchr(ls->data + cut, '\n', ls->len - cut);
		if (!nl)
			break; /* one partial line: kept whole below the hard bound by the reader */
		size_t n = (size_t)(nl - (ls->data + cut));
		const char *st = line_stamp(ls->data + cut, n);
		if (st)
			newest = st;
		cut += n + 1;
		ls->dropped_lines++;
	}
	if (newest)
		memcpy(ls->cover, newest, LS_STAMP);
	ls->gap[0] = '\0';
	memmove(ls->data, ls->data + cut, ls->len - cut);
	ls->len -= cut;
}

static void *reader(void *arg)
{
	sw__ios_logstream *ls = arg;
	char chunk[65536];
	for (;;) {
		pthread_mutex_lock(&ls->mu);
		bool stop = ls->stopping;
		pthread_mutex_unlock(&ls->mu);
		if (stop)
			break;
		struct pollfd p = {ls->fd, POLLIN, 0};
		int pr = poll(&p, 1, 200);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0)
			continue;
		ssize_t n = pr < 0 ? -1 : read(ls->fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		pthread_mutex_lock(&ls->mu);
		if (n <= 0) {
			ls->ended = true;
			pthread_cond_broadcast(&ls->cv);
			pthread_mutex_unlock(&ls->mu);
			break;
		}
		if (!ls->live) {
			stamp_now(ls->cover);
			ls->live = true;
			pthread_cond_broadcast(&ls->cv);
		}
		if (ls->len + (size_t)n > ls->cap) {
			size_t want = ls->cap ? ls->cap : 65536;
			while (want < ls->len + (size_t)n)
				want *= 2;
			char *nd = realloc(ls->data, want);
			if (!nd) {
				ls->ended = true; /* out of memory: the stream stops answering, `log show` takes over */
				pthread_cond_broadcast(&ls->cv);
				pthread_mutex_unlock(&ls->mu);
				break;
			}
			ls->data = nd;
			ls->cap = want;
		}
		memcpy(ls->data + ls->len, chunk, (size_t)n);
		ls->len += (size_t)n;
		if (ls->len > LS_KEEP_MAX)
			trim(ls);
		if (ls->len > LS_KEEP_MAX) {
			/* one line longer than the whole bound: it cannot be kept, and the stream no longer vouches for
			 * anything before the next line */
			ls->len = 0;
			stamp_now(ls->cover);
			ls->gap[0] = '\0';
			ls->dropped_lines++;
		}
		pthread_mutex_unlock(&ls->mu);
	}
	return NULL;
}

int sw__ios_logstream_start(const char *udid, sw__ios_logstream **out, sw_error **err)
{
	*out = NULL;
	char *xcrun = sw__ios_xcrun(err);
	if (!xcrun)
		return SW_EUNSUPPORTED;
	sw__ios_logstream *ls = calloc(1, sizeof(*ls));
	int fds[2] = {-1, -1};
	if (!ls || pipe2(fds, O_CLOEXEC) != 0) {
		int e = errno;
		free(ls);
		free(xcrun);
		return ls ? sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "Could not make a pipe: %s", strerror(e))
		          : sw__error_nomem(err);
	}
	pthread_mutex_init(&ls->mu, NULL);
	sw__cond_init_monotonic(&ls->cv);
	ls->fd = fds[0];
	sw__argv a = SW_ARGV_INIT;
	const char *args[] = {"simctl", "spawn", udid, "log", "stream", "--style", "compact", NULL};
	sw__argv_add(&a, xcrun);
	sw__argv_addv(&a, args);
	const char *const *argv = sw__argv_finish(&a, err);
	int rc = argv ? sw__proc_spawn(argv, NULL, fds[1], &ls->pid, err) : SW_ENOMEM;
	close(fds[1]);
	sw__argv_free(&a);
	free(xcrun);
	if (rc == SW_OK) {
		if (pthread_create(&ls->thread, NULL, reader, ls) == 0)
			ls->thread_started = true;
		else
			rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "Could not start the log reader thread");
	}
	if (rc != SW_OK) {
		sw__ios_logstream_free(ls);
		return rc;
	}
	*out = ls;
	return SW_OK;
}

bool sw__ios_logstream_wait_live(sw__ios_logstream *ls, int timeout_ms)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&ls->mu);
	while (!ls->live && !ls->ended)
		if (pthread_cond_timedwait(&ls->cv, &ls->mu, &until) == ETIMEDOUT)
			break;
	bool live = ls->live && !ls->ended;
	pthread_mutex_unlock(&ls->mu);
	return live;
}

bool sw__ios_logstream_ended(sw__ios_logstream *ls)
{
	pthread_mutex_lock(&ls->mu);
	bool e = ls->ended;
	pthread_mutex_unlock(&ls->mu);
	return e;
}

void sw__ios_logstream_mark_live(sw__ios_logstream *ls, char out[19])
{
	pthread_mutex_lock(&ls->mu);
	if (ls->live && !ls->ended)
		memcpy(out, ls->cover, LS_STAMP + 1);
	else
		out[0] = '\0';
	pthread_mutex_unlock(&ls->mu);
}

void sw__ios_logstream_shown(sw__ios_logstream *ls, const char *live_at, const char *since, const char *text, size_t len)
{
	if (!live_at || !live_at[0])
		return; /* the show started before the stream was live: it vouches for nothing the stream lacks */
	/* the newest stamped line of the show, else @since (nothing was logged from since on) */
	const char *newest = NULL;
	const char *end = text + len;
	while (end > text && !newest) {
		const char *nl = end;
		if (nl > text && nl[-1] == '\n')
			nl--;
		const char *start = nl;
		while (start > text && start[-1] != '\n')
			start--;
		newest = line_stamp(start, (size_t)(nl - start));
		end = start;
	}
	char g[LS_STAMP + 1];
	if (newest) {
		memcpy(g, newest, LS_STAMP);
		g[LS_STAMP] = '\0';
	} else if (since && strlen(since) >= LS_STAMP) {
		memcpy(g, since, LS_STAMP);
		g[LS_STAMP] = '\0';
	} else {
		return;
	}
	pthread_mutex_lock(&ls->mu);
	/* still the same stream window as when the show started (no trim since): keep the lowest proof */
	if (ls->live && !ls->ended && !strcmp(ls->cover, live_at) && (!ls->gap[0] || strcmp(g, ls->gap) < 0))
		memcpy(ls->gap, g, LS_STAMP + 1);
	pthread_mutex_unlock(&ls->mu);
}

int sw__ios_logstream_read(sw__ios_logstream *ls, const char *since, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	if (!since || strlen(since) < LS_STAMP)
		return 0;
	pthread_mutex_lock(&ls->mu);
	int rc = 0;
	if (ls->ended)
		rc = -1;
	else if (ls->live && (strncmp(since, ls->cover, LS_STAMP) > 0 || (ls->gap[0] && strncmp(since, ls->gap, LS_STAMP) >= 0)))
		rc = 1;
	if (rc == 1) {
		/* the complete lines stamped at or after @since: from the end back to the first older stamp */
		size_t full = ls->len;
		while (full > 0 && ls->data[full - 1] != '\n')
			full--;
		size_t from = full;
		while (from > 0) {
			size_t e = from - 1; /* the '\n' ending the line before @from */
			size_t s = e;
			while (s > 0 && ls->data[s - 1] != '\n')
				s--;
			const char *st = line_stamp(ls->data + s, e - s);
			if (st && strncmp(st, since, LS_STAMP) < 0)
				break;
			from = s;
		}
		/* lines without a stamp right after the cut continue an older message: not ours */
		while (from < full) {
			const char *nl = memchr(ls->data + from, '\n', full - from);
			if (line_stamp(ls->data + from, (size_t)(nl - (ls->data + from))))
				break;
			from = (size_t)(nl - ls->data) + 1;
		}
		char *t = malloc(full - from + 1);
		if (t) {
			memcpy(t, ls->data + from, full - from);
			t[full - from] = '\0';
			*text = t;
			*len = full - from;
		} else {
			rc = 0; /* no memory for the copy: `log show` answers instead */
		}
	}
	pthread_mutex_unlock(&ls->mu);
	return rc;
}

void sw__ios_logstream_free(sw__ios_logstream *ls)
{
	if (!ls)
		return;
	pthread_mutex_lock(&ls->mu);
	ls->stopping = true;
	pthread_mutex_unlock(&ls->mu);
	if (ls->pid > 0)
		sw__proc_stop(ls->pid, SIGTERM, 1000);
	if (ls->thread_started)
		pthread_join(ls->thread, NULL);
	if (ls->fd >= 0)
		close(ls->fd);
	pthread_mutex_destroy(&ls->mu);
	pthread_cond_destroy(&ls->cv);
	free(ls->data);
	free(ls);
}
