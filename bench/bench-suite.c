/* bench-suite.c: the canonical suite at 5,000 cases against 500 in the same run: qa_suite_update of N cases into a
 * suite of N (half of them match by the dedupe key, half are new), the JUnit export and the lint. Linear is 10x;
 * the bound is 12x; a pairwise comparison of cases would be 100x. Exit 1 when a ratio is over 12. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <swipium/swipium.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* N cases as an update request; @from offsets the titles, so two batches overlap by half. */
static char *cases_request(int n, int from)
{
	size_t cap = (size_t)n * 400 + 100, len = 0;
	char *b = malloc(cap);
	if (!b)
		exit(1);
	len += (size_t)snprintf(b + len, cap - len, "{\"source\":\"report\",\"mergeMode\":\"update\",\"cases\":[");
	for (int i = 0; i < n; i++) {
		int k = from + i;
		len += (size_t)snprintf(b + len, cap - len,
		                        "%s{\"feature\":\"feature-%d\",\"title\":\"Case %d: \\u001b[31m]]> <b>\","
		                        "\"steps\":[\"Open screen %d\",\"Tap   button %d\",\"Check result\"],"
		                        "\"expected\":\"Result %d shows\",\"lastResult\":\"%s\",\"actual\":\"seen\","
		                        "\"automation\":{\"flow\":\"f%d\",\"locatorGrade\":\"%c\"}}",
		                        i ? "," : "", k % 50, k, k, k, k, k % 5 ? "passed" : "failed", k, "ABCD"[k % 4]);
	}
	snprintf(b + len, cap - len, "]}");
	return b;
}

static void must(int rc, sw_error *err, const char *what)
{
	if (rc != SW_OK) {
		fprintf(stderr, "%s failed: %s\n", what, err ? sw_error_message(err) : "?");
		exit(1);
	}
}

typedef struct times {
	double update, junit, lint;
} times;

static times run(const char *base, int n, int rep)
{
	char root[600];
	snprintf(root, sizeof(root), "%s/p%d-%d", base, n, rep);
	char dot[700];
	snprintf(dot, sizeof(dot), "%s/.swipium", root);
	if (mkdir(root, 0700) != 0 || mkdir(dot, 0700) != 0)
		exit(1);
	sw_error *err = NULL;
	char *out = NULL;
	char *seed = cases_request(n, 0), *batch = cases_request(n, n / 2);
	must(sw_suite_update(root, seed, NULL, &out, &err), err, "seed");
	sw_free(out);
	times t;
	double t0 = now_s();
	must(sw_suite_update(root, batch, NULL, &out, &err), err, "update");
	t.update = now_s() - t0;
	sw_free(out);
	t0 = now_s();
	must(sw_suite_export(root, "{\"format\":\"junit\"}", NULL, &out, &err), err, "export");
	t.junit = now_s() - t0;
	sw_free(out);
	t0 = now_s();
	must(sw_suite_lint(root, "{}", &out, &err), err, "lint");
	t.lint = now_s() - t0;
	sw_free(out);
	free(seed);
	free(batch);
	return t;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static double best(double a, double b)
{
	return a < b ? a : b;
}

int main(int argc, char **argv)
{
	int big = argc > 1 ? atoi(argv[1]) : 5000, small = big / 10;
	char tmpl[] = "/tmp/sw-bench-suite-XXXXXX";
	if (!mkdtemp(tmpl) || small < 1)
		return 1;
	times s = {1e9, 1e9, 1e9}, l = {1e9, 1e9, 1e9};
	for (int rep = 0; rep < 3; rep++) {
		times a = run(tmpl, small, rep), b = run(tmpl, big, rep);
		s.update = best(s.update, a.update);
		s.junit = best(s.junit, a.junit);
		s.lint = best(s.lint, a.lint);
		l.update = best(l.update, b.update);
		l.junit = best(l.junit, b.junit);
		l.lint = best(l.lint, b.lint);
	}
	printf("bench-suite: best of 3; %d vs %d cases (linear = 10x, bound 12x)\n", big, small);
	printf("%-34s %10s %10s %7s\n", "step", "small ms", "large ms", "ratio");
	const char *names[] = {"qa_suite_update N into N", "qa_suite_export junit", "qa_suite_lint"};
	double sv[] = {s.update, s.junit, s.lint}, lv[] = {l.update, l.junit, l.lint};
	int over = 0;
	for (int i = 0; i < 3; i++) {
		double r = lv[i] / sv[i];
		over |= r > 12.0;
		printf("%-34s %10.1f %10.1f %6.1fx\n", names[i], sv[i] * 1e3, lv[i] * 1e3, r);
	}
	if (nftw(tmpl, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return 1;
	return over;
}
