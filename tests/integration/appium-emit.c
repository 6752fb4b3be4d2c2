/* appium-emit.c: test driver of the Appium emitter: a step model and qa_generate parameters in, the files out.
 *
 * Usage: appium-emit MODEL.json PARAMS.json OUTDIR
 * Writes every generated file under OUTDIR (its path relative to the project root) and prints the report as
 * JSON; on a refusal prints {"failureCode", "message", "hint", "details"} and exits 2, writing nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen-internal.h"

static int write_under(const char *root, const char *rel, const char *content)
{
	char *path = sw__path_join(root, rel);
	char *slash = path ? strrchr(path, '/') : NULL;
	if (!slash)
		return -1;
	*slash = '\0';
	int rc = sw__mkdirs(path, 0755, NULL);
	*slash = '/';
	FILE *f = rc == 0 ? fopen(path, "wb") : NULL;
	free(path);
	if (!f)
		return -1;
	size_t n = strlen(content);
	int ok = fwrite(content, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: appium-emit MODEL.json PARAMS.json OUTDIR\n");
		return 64;
	}
	json_error_t je;
	json_t *model = json_load_file(argv[1], 0, &je);
	json_t *params = json_load_file(argv[2], 0, &je);
	if (!model || !params) {
		fprintf(stderr, "appium-emit: bad JSON: %s\n", je.text);
		return 64;
	}
	json_t *files = NULL, *report = NULL;
	sw_error *err = NULL;
	int rc = sw__gen_appium(model, params, &files, &report, &err);
	if (rc < 0) {
		const char *details = sw_error_details_json(err);
		json_t *out = json_pack("{s:s?, s:s?, s:s?, s:o?}", "failureCode", sw_error_failure_code(err),
		                        "message", sw_error_message(err), "hint", sw_error_hint(err), "details",
		                        details ? json_loads(details, 0, NULL) : NULL);
		char *text = json_dumps(out, JSON_INDENT(2) | JSON_SORT_KEYS);
		puts(text);
		free(text);
		json_decref(out);
		sw_error_free(err);
		json_decref(model);
		json_decref(params);
		return 2;
	}
	size_t i;
	json_t *f;
	int status = 0;
	json_array_foreach(files, i, f)
	{
		if (write_under(argv[3], json_string_value(json_object_get(f, "path")),
		                json_string_value(json_object_get(f, "content"))) < 0) {
			fprintf(stderr, "appium-emit: cannot write %s\n",
			        json_string_value(json_object_get(f, "path")));
			status = 1;
		}
	}
	char *text = json_dumps(report, JSON_INDENT(2) | JSON_SORT_KEYS);
	puts(text);
	free(text);
	json_decref(files);
	json_decref(report);
	json_decref(model);
	json_decref(params);
	return status;
}
