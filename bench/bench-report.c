/* bench-report.c: render a 10,000-workflow, 10,000-finding report to each export, timed against parsing it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <swipium/swipium.h>

#define REPEAT 7

static const char *const names[] = {"junit", "sarif", "github-summary", "markdown", "json"};

typedef struct text {
	char *data;
	size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			abort();
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		t->cap = (t->cap + (size_t)n + 1) * 2;
		t->data = realloc(t->data, t->cap);
		if (!t->data)
			abort();
	}
}

/* A report shaped like a long agent run: every finding and outcome carries the usual fields. */
static text make_report(int workflows, int findings)
{
	static const char *const sev[] = {"high", "medium", "low"};
	static const char *const kinds[] = {"native_crash", "rn_logbox_error", "permission_dialog", "anr"};
	static const char *const codes[] = {"NATIVE_CRASH", "LOGBOX", "PERMISSION_DIALOG", "ANR"};
	static const char *const outcomes[] = {"pass", "pass", "fail", "blocked", "skipped"};
	text t = {malloc(1 << 20), 0, 1 << 20};
	if (!t.data)
		abort();
	add(&t, "{\n  \"sessionId\": \"bench0001\",\n  \"executiveSummary\": {\"risk\": \"block\", \"reasons\": "
	        "[\"native crash/ANR detected\"], \"nextAction\": \"Investigate: crash in checkout\"},\n"
	        "  \"appId\": \"com.example.bench\",\n  \"device\": \"emulator-5554\",\n"
	        "  \"coverage\": \"10000 workflows\",\n  \"phaseTimings\": {\"totalMs\": 3600123},\n  \"findings\": [");
	for (int i = 0; i < findings; i++)
		add(&t,
		    "%s\n    {\"at\": \"2026-11-30T10:%02d:%02d.%03dZ\", \"severity\": \"%s\", \"kind\": \"%s\", "
		    "\"layer\": "
		    "\"%s\", \"detail\": \"Finding %d on screen %d: request id 7f3a-%d failed at 2026-11-30T10:00:00Z "
		    "<x> & "
		    "\\\"quoted\\\" | pipe\", \"evidence\": \"Something went wrong (%d)\", \"screen\": \"Screen %d\", "
		    "\"screenshotUri\": \"swipium://session/bench0001/screenshot/shot-%d.png\", \"failureCode\": "
		    "\"%s\", "
		    "\"count\": %d, \"bucket\": \"app_bug\", \"retrySafe\": false, \"nextStep\": \"Read the logs and "
		    "fix "
		    "it.\"}",
		    i ? "," : "", (i / 60) % 60, i % 60, i % 1000, sev[i % 3], kinds[i % 4], i % 2 ? "app" : "native",
		    i, i % 50, i, i, i % 50, i, codes[i % 4], 1 + i % 3);
	add(&t, "\n  ],\n  \"testOutcomes\": [");
	for (int i = 0; i < workflows; i++)
		add(&t,
		    "%s\n    {\"at\": \"2026-11-30T11:00:00.000Z\", \"workflow\": \"workflow %d\", \"outcome\": "
		    "\"%s\", "
		    "\"category\": \"%s\", \"reason\": \"Step %d did not reach the expected screen\", "
		    "\"artifactUris\": "
		    "[\"swipium://session/bench0001/screenshot/wf-%d.png\"], \"steps\": [{\"index\": 0, \"kind\": "
		    "\"tap\", "
		    "\"ok\": true}, {\"index\": 1, \"kind\": \"assertVisible\", \"ok\": false, \"failureCode\": "
		    "\"ASSERTION_FAILED\"}]}",
		    i ? "," : "", i, outcomes[i % 5], i % 5 == 3 ? "missing_test_data" : "app_bug", i % 7, i);
	add(&t,
	    "\n  ],\n  \"outcomeTally\": {\"pass\": %d, \"fail\": %d, \"blocked\": %d, \"skipped\": %d},\n"
	    "  \"artifacts\": [{\"uri\": \"swipium://session/bench0001/report/report-1.json\", \"kind\": \"report\", "
	    "\"mime\": \"application/json\"}]\n}\n",
	    workflows * 2 / 5, workflows / 5, workflows / 5, workflows / 5);
	return t;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double minimum(const double *v, int n)
{
	double m = v[0];
	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static void die(const char *what, sw_error *err)
{
	fprintf(stderr, "bench-report: %s: %s\n", what, err ? sw_error_message(err) : "failed");
	exit(1);
}

/* Child mode: build the report text, then parse it (fmt >= -1) and render it (fmt >= 0); print peak RSS in KiB. */
static int mem_child(int n, int fmt)
{
	text t = make_report(n, n);
	sw_report *r = NULL;
	if (fmt >= -1 && sw_report_load_data(t.data, t.len, &r, NULL) != SW_OK)
		return 1;
	if (fmt >= 0) {
		char *out = NULL;
		if (sw_report_render(r, (sw_report_format)fmt, NULL, &out, NULL, NULL, NULL) != SW_OK)
			return 1;
		sw_free(out);
	}
	sw_report_free(r);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%ld\n", ru.ru_maxrss);
	free(t.data);
	return 0;
}

/* Peak RSS (KiB) of a fresh process doing one step, so earlier runs do not inflate it. */
static long peak_kib(int n, int fmt)
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char ns[16], fs[16];
		snprintf(ns, sizeof(ns), "%d", n);
		snprintf(fs, sizeof(fs), "%d", fmt);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl("/proc/self/exe", "bench-report", "--mem", ns, fs, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char buf[64] = {0};
	ssize_t got = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	return got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? atol(buf) : -1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--mem"))
		return mem_child(atoi(argv[2]), atoi(argv[3]));
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	if (n <= 0)
		n = 10000;
	/* Memory first, while this process is still small: a child inherits its parent's peak RSS across exec. */
	long gen_kib = peak_kib(n, -2), parse_kib = peak_kib(n, -1), render_kib[5];
	for (int f = 0; f < 5; f++)
		render_kib[f] = peak_kib(n, f);
	text t = make_report(n, n);
	sw_error *err = NULL;
	double parse[REPEAT], render[5][REPEAT];
	size_t out_len[5] = {0};
	/* Interleaved runs, best of REPEAT: other load on the machine hits every step alike. */
	for (int k = 0; k < REPEAT; k++) {
		sw_report *r = NULL;
		double t0 = now();
		if (sw_report_load_data(t.data, t.len, &r, &err) != SW_OK)
			die("parse", err);
		parse[k] = now() - t0;
		for (int f = 0; f < 5; f++) {
			char *out = NULL;
			t0 = now();
			if (sw_report_render(r, (sw_report_format)f, NULL, &out, &out_len[f], NULL, &err) != SW_OK)
				die(names[f], err);
			render[f][k] = now() - t0;
			sw_free(out);
		}
		sw_report_free(r);
	}
	double p = minimum(parse, REPEAT);
	printf("swipium %s bench-report: %d workflows + %d findings, report JSON %.1f MB; best of %d runs\n",
	       sw_version(), n, n, (double)t.len / 1e6, REPEAT);
	printf("peak RSS of a process that only builds the JSON text: %.1f MB\n", gen_kib / 1024.0);
	printf("%-16s %10s %10s %10s %14s %14s\n", "step", "ms", "vs parse", "output MB", "peak RSS MB",
	       "added / input");
	printf("%-16s %10.1f %10s %10s %14.1f %14.2f\n", "parse (baseline)", p * 1e3, "1.00", "-", parse_kib / 1024.0,
	       (double)(parse_kib - gen_kib) * 1024.0 / (double)t.len);
	for (int f = 0; f < 5; f++) {
		double m = minimum(render[f], REPEAT);
		long kib = render_kib[f];
		printf("%-16s %10.1f %10.2f %10.1f %14.1f %14.2f\n", names[f], m * 1e3, m / p, (double)out_len[f] / 1e6,
		       kib / 1024.0, (double)(kib - gen_kib) * 1024.0 / (double)t.len);
	}
	printf("(added / input: peak RSS above the text-only process, per byte of report JSON)\n");
	free(t.data);
	return 0;
}
