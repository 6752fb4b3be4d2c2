/* bench-store.c: session store cost: n notes, then the persisted state, for n = 1,000 and 10,000 (the ratio shows
 * linearity). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <swipium/redact.h>
#include <swipium/swipium.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Appends n notes, reads the state once and writes it once; returns seconds. */
static double run(sw_store *store, const char *root, int n)
{
	sw_session *s = NULL;
	if (sw_session_create(store, root, NULL, NULL, &s, NULL) != SW_OK)
		exit(1);
	sw_redactor_add_secret(sw_session_redactor(s), "bench-secret-value", NULL);
	double t0 = now_s();
	for (int i = 0; i < n; i++) {
		char note[200];
		snprintf(note, sizeof(note),
		         "{\"workflow\":\"wf%d\",\"outcome\":\"%s\",\"reason\":\"step %d saw bench-secret-value\"}", i,
		         i % 4 ? "pass" : "fail", i);
		if (sw_session_add_note(s, note, NULL) != SW_OK)
			exit(1);
	}
	char *state = NULL;
	if (sw_session_state_json(s, &state, NULL) != SW_OK || sw_session_flush(s, NULL) != SW_OK)
		exit(1);
	double t = now_s() - t0;
	sw_free(state);
	return t;
}

int main(void)
{
	char tmpl[] = "/tmp/sw-bench-store-XXXXXX";
	if (!mkdtemp(tmpl))
		return 1;
	sw_ctx *ctx = NULL;
	sw_store *store = NULL;
	if (sw_ctx_new(&ctx, NULL) || sw_ctx_set_home(ctx, tmpl, NULL) || sw_store_open(ctx, &store, NULL))
		return 1;
	double small = 1e9, large = 1e9;
	for (int rep = 0; rep < 3; rep++) {
		double a = run(store, tmpl, 1000), b = run(store, tmpl, 10000);
		small = a < small ? a : small;
		large = b < large ? b : large;
	}
	printf("notes+state  1,000: %.1f ms\n", small * 1e3);
	printf("notes+state 10,000: %.1f ms\n", large * 1e3);
	printf("ratio 10,000 / 1,000: %.1f (linear = 10, quadratic = 100)\n", large / small);
	sw_store_free(store);
	sw_ctx_free(ctx);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	return system(cmd) == 0 ? 0 : 1;
}
