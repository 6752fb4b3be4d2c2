/* bench-suite.c: the canonical suite at 5,000 cases against 500 in the same run: qa_suite_update of N cases into a
 * suite of N (half of them match by the dedupe key, half are new), the JUnit export and the lint. Linear is 10x;
 * the bound is 12x; a pairwise comparison of cases would be 100x. The sizes run interleaved, 7 times;
 * the minimum and the median of each are printed, in wall-clock time and in the process's CPU time. The minimum
 * wall-clock ratio decides (exit 1 over 12x). With valgrind on PATH each step is also run once per size under
 * callgrind, counting only the instructions inside that step: printed as evidence of the work done (load and
 * cache effects left out), it does not decide. Usage: bench-suite [N] [--reps=R] [--no-valgrind] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/wait.h>

#include <swipium/swipium.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The CPU time of this process (user + system): what the step cost while it ran, without the time other work on
 * the machine held the core. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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
	double update, junit, lint;       /* wall clock */
	double cupdate, cjunit, clint;    /* CPU */
} times;

/* The measured calls, one function each, never inlined: callgrind's --toggle-collect counts only inside them. */
__attribute__((noinline)) void bench_measure_update(const char *root, const char *batch);
__attribute__((noinline)) void bench_measure_junit(const char *root);
__attribute__((noinline)) void bench_measure_lint(const char *root);

void bench_measure_update(const char *root, const char *batch)
{
	sw_error *err = NULL;
	char *out = NULL;
	must(sw_suite_update(root, batch, NULL, &out, &err), err, "update");
	sw_free(out);
}

void bench_measure_junit(const char *root)
{
	sw_error *err = NULL;
	char *out = NULL;
	must(sw_suite_export(root, "{\"format\":\"junit\"}", NULL, &out, &err), err, "export");
	sw_free(out);
}

void bench_measure_lint(const char *root)
{
	sw_error *err = NULL;
	char *out = NULL;
	must(sw_suite_lint(root, "{}", &out, &err), err, "lint");
	sw_free(out);
}

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
	double t0 = now_s(), c0 = cpu_s();
	bench_measure_update(root, batch);
	t.update = now_s() - t0;
	t.cupdate = cpu_s() - c0;
	t0 = now_s(), c0 = cpu_s();
	bench_measure_junit(root);
	t.junit = now_s() - t0;
	t.cjunit = cpu_s() - c0;
	t0 = now_s(), c0 = cpu_s();
	bench_measure_lint(root);
	t.lint = now_s() - t0;
	t.clint = cpu_s() - c0;
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The instructions callgrind counts inside bench_measure_<step> for one run at @n cases; -1 when it cannot. */
static double instructions(const char *self, const char *base, int n, const char *step)
{
	char out[700], fn[64], tog[96], nbuf[32];
	snprintf(out, sizeof(out), "%s/callgrind-%s-%d.out", base, step, n);
	snprintf(fn, sizeof(fn), "bench_measure_%s", step);
	snprintf(tog, sizeof(tog), "--toggle-collect=%s", fn);
	snprintf(nbuf, sizeof(nbuf), "%d", n);
	char outarg[800];
	snprintf(outarg, sizeof(outarg), "--callgrind-out-file=%s", out);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		execlp("valgrind", "valgrind", "--tool=callgrind", "--collect-atstart=no", tog, outarg, self, "--one", nbuf,
		       base, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	FILE *f = fopen(out, "r");
	if (!f)
		return -1;
	char line[512];
	double v = -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7))
			v = strtod(strchr(line, ':') + 1, NULL);
	fclose(f);
	remove(out);
	return v;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--one")) {
		/* one run at N cases in @base (under callgrind, started by the parent) */
		char dir[600];
		snprintf(dir, sizeof(dir), "%s/one-XXXXXX", argv[3]);
		if (!mkdtemp(dir))
			return 1;
		run(dir, atoi(argv[2]), 0);
		return 0;
	}
	int big = 5000, reps = 7;
	bool use_valgrind = true;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-valgrind"))
			use_valgrind = false;
		else if (!strncmp(argv[i], "--reps=", 7))
			reps = atoi(argv[i] + 7);
		else
			big = atoi(argv[i]);
	}
	int small = big / 10;
	char tmpl[] = "/tmp/sw-bench-suite-XXXXXX";
	if (!mkdtemp(tmpl) || small < 1 || reps < 1 || reps > 99)
		return 1;
	double sv[3][99], lv[3][99], sc[3][99], lc[3][99];
	for (int rep = 0; rep < reps; rep++) {
		/* interleaved: small, large, small, large...; each in a fresh project, so load hits both sizes alike */
		times a = run(tmpl, small, rep), b = run(tmpl, big, rep);
		sv[0][rep] = a.update, sv[1][rep] = a.junit, sv[2][rep] = a.lint;
		lv[0][rep] = b.update, lv[1][rep] = b.junit, lv[2][rep] = b.lint;
		sc[0][rep] = a.cupdate, sc[1][rep] = a.cjunit, sc[2][rep] = a.clint;
		lc[0][rep] = b.cupdate, lc[1][rep] = b.cjunit, lc[2][rep] = b.clint;
	}
	printf("bench-suite: %d runs interleaved; %d vs %d cases (linear = 10x, bound 12x)\n", reps, big, small);
	printf("%-26s %9s %9s %8s %9s %9s %8s %9s %12s\n", "step", "small min", "large min", "min ratio", "small med",
	       "large med", "med ratio", "cpu ratio", "instr ratio");
	const char *names[] = {"qa_suite_update N into N", "qa_suite_export junit", "qa_suite_lint"};
	const char *steps[] = {"update", "junit", "lint"};
	int over = 0;
	for (int i = 0; i < 3; i++) {
		qsort(sv[i], (size_t)reps, sizeof(double), cmp_double);
		qsort(lv[i], (size_t)reps, sizeof(double), cmp_double);
		qsort(sc[i], (size_t)reps, sizeof(double), cmp_double);
		qsort(lc[i], (size_t)reps, sizeof(double), cmp_double);
		double rcpu = lc[i][0] / sc[i][0];
		double smin = sv[i][0], lmin = lv[i][0], smed = sv[i][reps / 2], lmed = lv[i][reps / 2];
		double r = lmin / smin, rmed = lmed / smed;
		double is = use_valgrind ? instructions(argv[0], tmpl, small, steps[i]) : -1;
		double il = is > 0 ? instructions(argv[0], tmpl, big, steps[i]) : -1;
		char ir[32] = "n/a";
		if (is > 0 && il > 0)
			snprintf(ir, sizeof(ir), "%.2fx", il / is);
		printf("%-26s %9.1f %9.1f %7.2fx %9.1f %9.1f %7.2fx %8.2fx %12s\n", names[i], smin * 1e3, lmin * 1e3, r,
		       smed * 1e3, lmed * 1e3, rmed, rcpu, ir);
		/* the bound is on wall-clock time: the minimum over the runs decides (the least disturbed by other work) */
		if (r > 12.0)
			over = 1;
		if (is > 0 && il > 0)
			printf("%-26s instructions: %.0f (small) %.0f (large)\n", "", is, il);
	}
	double load[3] = {0, 0, 0};
	if (getloadavg(load, 3) == 3)
		printf("load average after the runs: %.2f %.2f %.2f (2 cores here; other work inflates the small sizes most)\n",
		       load[0], load[1], load[2]);
	printf("exit: %s (the minimum wall-clock ratio of each step against 12x)\n", over ? "1, over the bound" : "0");
	if (nftw(tmpl, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return 1;
	return over;
}
