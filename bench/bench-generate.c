/*
 * bench-generate: each qa_generate target (flow, pom, suite, testcases, appium) on a recording of 2,000 actions
 * against the same target on 200 actions, in the same run on the same kind of data. The output is written (save:
 * true) into a temporary project, through the final secret guard with 20 registered secrets, as qa_generate does.
 * The two sizes run interleaved RUNS times (7); the minimum and the median of each are printed with their ratios;
 * linear work is 10x. The rule decides: exit 1 when the minimum wall-clock ratio of any target is over
 * 12x. With valgrind on PATH each target also runs once per size under callgrind, counting only the instructions
 * inside the measured call; that ratio is printed as evidence (work per action, free of load), it does not decide.
 *
 * Usage: bench-generate [RUNS] [--no-valgrind]
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "../libswipium/generate/gen-internal.h"
#include <swipium/redact.h>
#include <swipium/util.h>

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? 0 : 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* A recording of @n actions over n/8 screens: typing (a secret one too), taps by id, text and point, swipes,
 * scrolls until an element shows, back, and a visual checkpoint now and then. Labels carry hostile text. */
static json_t *recording(int n)
{
	json_t *rec = json_array();
	for (int i = 0; i < n; i++) {
		char screen[32], id[64], rid[96], label[96];
		snprintf(screen, sizeof(screen), "Screen%dActivity", i / 8);
		snprintf(id, sizeof(id), "field_%d", i % 40);
		snprintf(rid, sizeof(rid), "com.example.bench:id/%s", id);
		snprintf(label, sizeof(label), "Label \"%d\" ${X} */ \\ %s", i, i % 3 ? "ok" : "straße");
		json_t *a = NULL;
		int y = 100 + (i % 20) * 100;
		switch (i % 8) {
		case 0:
			a = json_pack("{ss,ss,s{ss},ss,s{ss,ss,ss,s[iiii]},ss,sI}", "tool", "qa_act", "action", "type",
			              "target", "id", id, "text", "hello", "element", "resourceId", rid, "id", id,
			              "hint", "Name", "bounds", 0, y, 1000, y + 90, "screen", screen, "seq",
			              (json_int_t)i + 1);
			break;
		case 1:
			a = json_pack("{ss,ss,s{ss},ss,sb,ss,s{ss,ss,sb,s[iiii]},ss,sI}", "tool", "qa_act", "action",
			              "type", "target", "id", "password", "text", "${SWIPIUM_TEST_PASSWORD}", "secret",
			              1, "secretKind", "password", "element", "resourceId",
			              "com.example.bench:id/password", "id", "password", "secure", 1, "bounds", 0, y,
			              1000, y + 90, "screen", screen, "seq", (json_int_t)i + 1);
			break;
		case 2:
			a = json_pack("{ss,ss,s{ss},s{ss,ss,s[iiii]},ss,sI}", "tool", "qa_act", "action", "tap",
			              "target", "id", id, "element", "resourceId", rid, "text", label, "bounds", 0, y,
			              1000, y + 90, "screen", screen, "seq", (json_int_t)i + 1);
			break;
		case 3:
			a = json_pack("{ss,ss,s{ss},s{ss,s[iiii]},ss,sI}", "tool", "qa_act", "action", "tap", "target",
			              "text", label, "element", "text", label, "bounds", 0, y, 1000, y + 90, "screen",
			              screen, "seq", (json_int_t)i + 1);
			break;
		case 4:
			a = json_pack("{ss,ss,s{sisi},s{s[iiii]},ss,sI}", "tool", "qa_act", "action", "tap", "target",
			              "x", 500, "y", y, "element", "bounds", 0, y - 40, 1000, y + 40, "screen", screen,
			              "seq", (json_int_t)i + 1);
			break;
		case 5:
			a = json_pack("{ss,ss,ss,s{ss},ss,sI}", "tool", "qa_act", "action", "scroll", "direction",
			              "down", "untilVisible", "text", "Settings", "screen", screen, "seq",
			              (json_int_t)i + 1);
			break;
		case 6:
			a = json_pack("{ss,ss,ss,ss,sI}", "tool", "qa_act", "action", i % 16 == 6 ? "swipe" : "press",
			              i % 16 == 6 ? "direction" : "key", i % 16 == 6 ? "up" : "back", "screen", screen,
			              "seq", (json_int_t)i + 1);
			break;
		default:
			a = json_pack("{ss,ss,ss,sb,ss,sI}", "tool", "qa_visual", "action", "visualCheck", "assertion",
			              label, "pass", 1, "screenshotUri", "swipium://artifact/x.png", "seq",
			              (json_int_t)i + 1);
		}
		json_array_append_new(rec, a);
	}
	return rec;
}

/* The measured call, never inlined: callgrind's --toggle-collect counts only inside it. */
__attribute__((noinline)) int bench_measure_generate(sw_redactor *red, const json_t *rec, const char *root,
                                                     const char *opts, char **out, sw_error **err);

int bench_measure_generate(sw_redactor *red, const json_t *rec, const char *root, const char *opts, char **out,
                           sw_error **err)
{
	return sw__gen_run(NULL, NULL, NULL, red, rec, "com.example.bench", "android", root, opts, out, err);
}

static double run_once(sw_redactor *red, const json_t *rec, const char *root, const char *target, int *ok)
{
	char opts[512];
	snprintf(opts, sizeof(opts), "{\"target\":\"%s\",\"save\":true,\"root\":\"%s\",\"name\":\"bench\"}", target,
	         root);
	char *out = NULL;
	sw_error *err = NULL;
	double t0 = now_ms();
	int rc = bench_measure_generate(red, rec, root, opts, &out, &err);
	double t = now_ms() - t0;
	*ok = rc == SW_OK;
	if (rc != SW_OK && err && !strcmp(target, "appium"))
		*ok = -1; /* the Appium emitter is not in this build */
	else if (rc != SW_OK)
		fprintf(stderr, "bench-generate: %s failed: %s\n", target, err ? sw_error_message(err) : "?");
	sw_free(out);
	sw_error_free(err);
	return t;
}

static sw_redactor *redactor(void)
{
	sw_redactor *red = NULL;
	if (sw_redactor_new(&red, NULL) != SW_OK)
		exit(2);
	for (int i = 0; i < 20; i++) {
		char secret[40];
		snprintf(secret, sizeof(secret), "not-in-the-output-%02d-Zq", i);
		sw_redactor_add_secret(red, secret, NULL);
	}
	return red;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The instructions callgrind counts inside bench_measure_generate for one @target run on @n actions; -1 when it
 * cannot (no valgrind, the run failed). */
static double instructions(const char *self, const char *base, int n, const char *target)
{
	char out[700], outarg[800], nbuf[32];
	snprintf(out, sizeof(out), "%s/callgrind-%s-%d.out", base, target, n);
	snprintf(outarg, sizeof(outarg), "--callgrind-out-file=%s", out);
	snprintf(nbuf, sizeof(nbuf), "%d", n);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		execlp("valgrind", "valgrind", "--tool=callgrind", "--collect-atstart=no",
		       "--toggle-collect=bench_measure_generate", outarg, self, "--one", nbuf, target, base, (char *)NULL);
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
	if (argc == 5 && !strcmp(argv[1], "--one")) {
		/* one run of target argv[3] on argv[2] actions into argv[4] (under callgrind, started by the parent) */
		sw_redactor *red = redactor();
		json_t *rec = recording(atoi(argv[2]));
		int ok = 0;
		run_once(red, rec, argv[4], argv[3], &ok);
		json_decref(rec);
		sw_redactor_free(red);
		return ok == 1 ? 0 : 1;
	}
	int runs = 7;
	bool use_valgrind = true;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-valgrind"))
			use_valgrind = false;
		else
			runs = atoi(argv[i]);
	}
	if (runs < 1 || runs > 99)
		runs = 7;
	char root[] = "/tmp/bench-generate-XXXXXX";
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	sw_redactor *red = redactor();
	json_t *small = recording(200), *big = recording(2000);
	static const char *const targets[] = {"flow", "pom", "suite", "testcases", "appium"};
	int bad = 0, instr_over = 0;
	printf("bench-generate: %d runs interleaved, 2,000 vs 200 actions (linear = 10x, bound 12x)\n", runs);
	printf("%-10s %9s %9s %9s %9s %9s %9s %11s\n", "target", "small min", "large min", "min ratio", "small med",
	       "large med", "med ratio", "instr ratio");
	for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
		double ts[99], tb[99];
		int ok_s = 1, ok_b = 1;
		for (int r = 0; r < runs; r++) {
			/* interleaved, so load on the machine hits both sizes alike */
			ts[r] = run_once(red, small, root, targets[t], &ok_s);
			tb[r] = run_once(red, big, root, targets[t], &ok_b);
		}
		if (ok_s < 0 || ok_b < 0) {
			printf("%-10s not measured (the Appium emitter is not in this build)\n", targets[t]);
			continue;
		}
		if (!ok_s || !ok_b) {
			bad = 1;
			continue;
		}
		qsort(ts, (size_t)runs, sizeof(double), cmp_double);
		qsort(tb, (size_t)runs, sizeof(double), cmp_double);
		double ratio = tb[0] / ts[0], rmed = tb[runs / 2] / ts[runs / 2];
		double is = use_valgrind ? instructions(argv[0], root, 200, targets[t]) : -1;
		double il = is > 0 ? instructions(argv[0], root, 2000, targets[t]) : -1;
		char ir[32] = "n/a";
		if (is > 0 && il > 0)
			snprintf(ir, sizeof(ir), "%.2fx", il / is);
		printf("%-10s %9.2f %9.2f %8.2fx %9.2f %9.2f %8.2fx %11s\n", targets[t], ts[0], tb[0], ratio, ts[runs / 2],
		       tb[runs / 2], rmed, ir);
		if (is > 0 && il > 0) {
			printf("%-10s instructions: %.0f (200) %.0f (2,000)\n", "", is, il);
			if (il / is > 12.0)
				instr_over = 1;
		}
		/* the bound is on wall clock: the minimum of RUNS interleaved runs decides */
		if (ratio > 12.0) {
			printf("%-10s OVER: the minimum wall-clock ratio %.2fx is over 12x\n", targets[t], ratio);
			bad = 1;
		}
	}
	if (instr_over)
		printf("note: an instruction ratio is over 12x: more work per action at 2,000 (evidence only)\n");
	json_decref(small);
	json_decref(big);
	sw_redactor_free(red);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return bad;
}
