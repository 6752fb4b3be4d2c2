/* fuzz-appmap.c: libFuzzer target for the app-map loader (.swipium/app-map.json) and the calls that read a map. */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include <swipium/swipium.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char project[] = "/tmp/sw-fuzz-appmap-XXXXXX";
static sw_ctx *ctx;

static void clear_swipium(void)
{
	char dir[256];
	snprintf(dir, sizeof(dir), "%s/.swipium", project);
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
}

static void must_be_json(const char *text)
{
	json_t *v = json_loads(text, 0, NULL);
	if (!json_is_object(v))
		abort();
	json_decref(v);
}

/*
 * Input: the bytes of app-map.json. Properties: nothing crashes or leaks; a map the in-memory check accepts
 * is read and queried from disk without error; every answer is a JSON object; a map the check refuses is
 * renamed aside by the loader (never answered as a map).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx) {
		if (!mkdtemp(project))
			abort();
		char sw[256];
		snprintf(sw, sizeof(sw), "%s/.swipium", project);
		if (mkdir(sw, 0755) != 0 || sw_ctx_new(&ctx, NULL) != SW_OK ||
		    sw_ctx_set_home(ctx, project, NULL) != SW_OK)
			abort();
	}
	char *summary = NULL;
	int ok = sw_appmap_check((const char *)data, size, &summary, NULL) == SW_OK;
	if (ok)
		must_be_json(summary);
	sw_free(summary);

	clear_swipium();
	char path[256];
	snprintf(path, sizeof(path), "%s/.swipium/app-map.json", project);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	static const char *const reads[] = {"{}", "{\"section\":\"screens\"}", "{\"section\":\"features\"}",
	                                    "{\"section\":\"auth\"}", "{\"section\":\"full\"}"};
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		char *out = NULL;
		sw_error *err = NULL;
		int rc = sw_appmap_read(ctx, project, reads[i], &out, &err);
		if (ok && rc != SW_OK)
			abort();
		if (rc == SW_OK)
			must_be_json(out);
		sw_free(out);
		sw_error_free(err);
	}
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_appmap_query(ctx, project, "{\"query\":\"login checkout screen\",\"limit\":50}", &out, &err);
	if (ok && rc != SW_OK)
		abort();
	if (rc == SW_OK)
		must_be_json(out);
	sw_free(out);
	sw_error_free(err);
	return 0;
}
