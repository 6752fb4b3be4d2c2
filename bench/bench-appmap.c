/* bench-appmap.c: two processes updating one app map 20 times each (all 40 updates must be present, no reader may
 * see a torn file), against the same 40 updates from one process in the same run. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <swipium/swipium.h>

#define PER_WRITER 20

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void seed_map(const char *root)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/.swipium", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/.swipium/app-map.json", root);
	FILE *f = fopen(p, "w");
	if (!f)
		exit(1);
	fputs("{\"schemaVersion\":1,\"features\":[{\"id\":\"checkout\",\"title\":\"Checkout\"}],"
	      "\"testSuite\":{\"cases\":[]}}\n",
	      f);
	fclose(f);
}

static void writer(const char *home, const char *root, const char *tag)
{
	sw_ctx *ctx = NULL;
	if (sw_ctx_new(&ctx, NULL) != SW_OK || sw_ctx_set_home(ctx, home, NULL) != SW_OK)
		exit(2);
	for (int i = 0; i < PER_WRITER; i++) {
		char req[256], *out = NULL;
		sw_error *err = NULL;
		snprintf(req, sizeof(req),
		         "{\"testCases\":[{\"id\":\"%s-%d\",\"title\":\"case %s %d\",\"featureId\":"
		         "\"checkout\"}]}",
		         tag, i, tag, i);
		if (sw_appmap_update(ctx, root, req, &out, &err) != SW_OK) {
			fprintf(stderr, "update %s-%d: %s\n", tag, i, sw_error_message(err));
			exit(3);
		}
		sw_free(out);
	}
	sw_ctx_free(ctx);
}

/* Cases present in the map on disk, or -1 when it does not parse. */
static long cases_on_disk(const char *root)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/.swipium/app-map.json", root);
	json_t *m = json_load_file(p, 0, NULL);
	if (!m)
		return -1;
	long n = (long)json_array_size(json_object_get(json_object_get(m, "testSuite"), "cases"));
	json_decref(m);
	return n;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	char home[] = "/tmp/sw-bench-appmap-XXXXXX";
	if (!mkdtemp(home))
		return 1;
	char solo[600], duo[600];
	snprintf(solo, sizeof(solo), "%s/solo", home);
	snprintf(duo, sizeof(duo), "%s/duo", home);
	mkdir(solo, 0755);
	mkdir(duo, 0755);
	seed_map(solo);
	seed_map(duo);

	/* baseline: the 40 updates one after another in one process */
	double t0 = now_s();
	writer(home, solo, "a");
	writer(home, solo, "b");
	double solo_s = now_s() - t0;

	/* two processes at once, the parent reading the file as fast as it can meanwhile */
	t0 = now_s();
	pid_t a = fork();
	if (a == 0) {
		writer(home, duo, "a");
		_exit(0);
	}
	pid_t b = fork();
	if (b == 0) {
		writer(home, duo, "b");
		_exit(0);
	}
	long reads = 0, torn = 0;
	int live = 2, failed = 0;
	while (live) {
		long n = cases_on_disk(duo);
		reads++;
		torn += n < 0;
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);
		if (w > 0) {
			live--;
			failed |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
		}
	}
	double duo_s = now_s() - t0;
	long present = cases_on_disk(duo);
	printf("appmap: 2 processes x %d updates: %ld of %d present, %ld torn reads of %ld, %.3f s (%.1f ms/update)\n",
	       PER_WRITER, present, 2 * PER_WRITER, torn, reads, duo_s, duo_s * 1000 / (2 * PER_WRITER));
	printf("appmap: baseline 1 process x %d updates: %.3f s (%.1f ms/update); contended/baseline %.2fx\n",
	       2 * PER_WRITER, solo_s, solo_s * 1000 / (2 * PER_WRITER), duo_s / solo_s);
	if (nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "could not remove %s\n", home);
	return failed || present != 2 * PER_WRITER || torn ? 1 : 0;
}
