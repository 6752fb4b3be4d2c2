/*
 * bench-generate: each qa_generate target (flow, pom, suite, testcases, appium) on a recording of 2,000 actions
 * against the same target on 200 actions, in the same run on the same kind of data. The output is written (save:
 * true) into a temporary project, through the final secret guard with 20 registered secrets, as qa_generate does.
 * Prints the best of 5 runs of each and the ratio; linear work is 10x. Exit 1 when a ratio is over 12x.
 *
 * Usage: bench-generate [RUNS]
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static double run_once(sw_redactor *red, const json_t *rec, const char *root, const char *target, int *ok)
{
	char opts[512];
	snprintf(opts, sizeof(opts), "{\"target\":\"%s\",\"save\":true,\"root\":\"%s\",\"name\":\"bench\"}", target,
	         root);
	char *out = NULL;
	sw_error *err = NULL;
	double t0 = now_ms();
	int rc = sw__gen_run(NULL, NULL, NULL, red, rec, "com.example.bench", "android", root, opts, &out, &err);
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

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5;
	if (runs < 1)
		runs = 1;
	char root[] = "/tmp/bench-generate-XXXXXX";
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	sw_redactor *red = NULL;
	if (sw_redactor_new(&red, NULL) != SW_OK)
		return 2;
	for (int i = 0; i < 20; i++) {
		char secret[40];
		snprintf(secret, sizeof(secret), "not-in-the-output-%02d-Zq", i);
		sw_redactor_add_secret(red, secret, NULL);
	}
	json_t *small = recording(200), *big = recording(2000);
	static const char *const targets[] = {"flow", "pom", "suite", "testcases", "appium"};
	int bad = 0;
	for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
		double best_s = 1e18, best_b = 1e18;
		int ok_s = 1, ok_b = 1;
		for (int r = 0; r < runs; r++) {
			/* interleaved, so load on the machine hits both sizes alike */
			double s = run_once(red, small, root, targets[t], &ok_s);
			double b = run_once(red, big, root, targets[t], &ok_b);
			best_s = s < best_s ? s : best_s;
			best_b = b < best_b ? b : best_b;
		}
		if (ok_s < 0 || ok_b < 0) {
			printf("generate %-9s: not measured (the Appium emitter is not in this build)\n", targets[t]);
			continue;
		}
		if (!ok_s || !ok_b) {
			bad = 1;
			continue;
		}
		double ratio = best_b / best_s;
		printf("generate %-9s: 200 actions %8.2f ms, 2,000 actions %8.2f ms, ratio %5.2fx%s\n", targets[t],
		       best_s, best_b, ratio, ratio > 12.0 ? "  OVER 12x" : "");
		if (ratio > 12.0)
			bad = 1;
	}
	json_decref(small);
	json_decref(big);
	sw_redactor_free(red);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return bad;
}
