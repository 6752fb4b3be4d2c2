/* cmd-scan.c: `swipium scan [path] [--check|--dry-run|--no-write]`: what this project is and whether it can be tested now. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"

static const char scan_usage[] =
    "Usage: swipium scan [path] [--check | --dry-run | --no-write]\n"
    "\n"
    "Says what the project at path (default: the current folder) is and whether it can be tested now:\n"
    "READY, PARTIAL or BLOCKED, the framework, app id, artifacts, devices and a list of what to fix.\n"
    "Unless BLOCKED or inspecting only, writes .swipium/config.json (the scan result), and when absent\n"
    ".swipium/fixtures.json, .swipium/flows/README.md and .swipium/packs/. Never edits .gitignore.\n"
    "\n"
    "  --check, --dry-run, --no-write   inspect only; write nothing\n"
    "  --help, -h                       show this help\n";

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static void print_list(json_t *arr, const char *key, size_t max)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
	{
		if (i == max) {
			printf(", +%zu more", json_array_size(arr) - max);
			break;
		}
		printf("%s%s", i ? ", " : "", key ? str(v, key) : json_string_value(v));
	}
}

static void print_result(json_t *r)
{
	printf("%s\n", str(r, "verdict"));
	json_t *reasons = json_object_get(r, "frameworkReasons");
	printf("framework: %s", str(r, "framework"));
	if (json_array_size(reasons))
		printf(" (%s)", json_string_value(json_array_get(reasons, 0)));
	if (json_string_value(json_object_get(r, "appRoot")) && strcmp(str(r, "appRoot"), "."))
		printf(", app in %s", str(r, "appRoot"));
	printf("\n");
	if (json_string_value(json_object_get(r, "appId")))
		printf("appId: %s (from %s)\n", str(r, "appId"), str(r, "appIdSource"));
	else
		printf("appId: not found\n");
	json_t *mono = json_object_get(r, "monorepo");
	json_t *apps = json_object_get(mono, "apps");
	if (json_is_true(json_object_get(mono, "detected"))) {
		printf("monorepo: %zu mobile app(s)", json_array_size(apps));
		size_t i;
		json_t *a;
		json_array_foreach(apps, i, a) printf("%s%s (%s)", i ? ", " : ": ", str(a, "path"), str(a, "framework"));
		printf("\n");
		if (json_array_size(apps) > 1 || !json_object_get(r, "appRoot"))
			json_array_foreach(apps, i, a) printf("  scan one: swipium scan %s\n", str(a, "path"));
	}
	json_t *arts = json_object_get(r, "artifacts");
	if (json_array_size(arts)) {
		printf("artifacts: %zu installable (", (size_t)json_integer_value(json_object_get(r, "installableArtifacts")));
		print_list(arts, "path", 3);
		printf(")\n");
	} else {
		printf("artifacts: none\n");
	}
	json_t *dev = json_object_get(r, "devices");
	json_t *emus = json_object_get(dev, "onlineEmulators"), *avds = json_object_get(dev, "avds");
	printf("devices: ");
	if (json_array_size(emus)) {
		printf("online ");
		print_list(emus, NULL, 3);
	}
	if (json_array_size(avds)) {
		printf("%sAVD(s) that can boot: ", json_array_size(emus) ? "; " : "");
		print_list(avds, NULL, 3);
	}
	if (!json_array_size(emus) && !json_array_size(avds))
		printf("none");
	printf("\n");
	json_t *metro = json_object_get(r, "metro");
	printf("metro: %s (%s)\n", json_is_true(json_object_get(metro, "needed")) ? "needed for debug builds" : "not needed",
	       str(metro, "why"));
	json_t *fresh = json_object_get(r, "freshStart");
	printf("fresh start: %s (%s)\n", json_is_true(json_object_get(fresh, "safe")) ? "safe" : "unsafe on debug builds",
	       str(fresh, "why"));
	json_t *auth = json_object_get(r, "likelyAuth");
	printf("likely auth: %s (%s)\n", json_is_true(json_object_get(auth, "likely")) ? "yes" : "not detected",
	       str(auth, "why"));
	printf("recommended profile: %s\n", str(r, "recommendedProfile"));
	json_t *fix = json_object_get(r, "toFix");
	if (json_array_size(fix)) {
		printf("to fix:\n");
		size_t i;
		json_t *v;
		json_array_foreach(fix, i, v) printf("  - %s\n", json_string_value(v));
	}
	json_t *notes = json_object_get(r, "notes");
	size_t i;
	json_t *v;
	json_array_foreach(notes, i, v) printf("note: %s\n", json_string_value(v));
	json_t *written = json_object_get(r, "written"), *kept = json_object_get(r, "kept");
	if (json_array_size(written)) {
		printf("wrote: ");
		print_list(written, NULL, 10);
		printf("\n");
	}
	if (json_array_size(kept)) {
		printf("kept (already there): ");
		print_list(kept, NULL, 10);
		printf("\n");
	}
}

int cmd_scan(int argc, char **argv)
{
	const char *path = NULL;
	unsigned flags = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(scan_usage, stdout);
			return CLI_EXIT_OK;
		}
		if (!strcmp(a, "--check") || !strcmp(a, "--dry-run") || !strcmp(a, "--no-write")) {
			flags |= SW_SCAN_NO_WRITE;
		} else if (a[0] == '-' && a[1]) {
			char *shown = sw_text_cap(a, (size_t)-1, 200, SW_CAP_HEAD_TAIL);
			fprintf(stderr, "swipium scan: unknown flag %s\n\n%s", shown ? shown : "", scan_usage);
			sw_free(shown);
			return CLI_EXIT_USAGE;
		} else if (path) {
			fprintf(stderr, "swipium scan: one path only\n\n%s", scan_usage);
			return CLI_EXIT_USAGE;
		} else {
			path = a;
		}
	}
	char *abs = realpath(path ? path : ".", NULL);
	struct stat st;
	if (!abs || stat(abs, &st) != 0 || !S_ISDIR(st.st_mode)) {
		char *shown = sw_text_cap(path ? path : ".", (size_t)-1, 2000, SW_CAP_HEAD_TAIL);
		printf("Path not found: %s\n", shown ? shown : "");
		sw_free(shown);
		free(abs);
		return CLI_EXIT_USAGE;
	}
	printf("Scanning %s\n", abs);
	fflush(stdout);
	sw_ctx *ctx = cli_ctx_new();
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_project_scan(ctx, abs, flags, &out, &err);
	int code = CLI_EXIT_OK;
	if (rc != SW_OK) {
		fprintf(stderr, "swipium scan: %s (%s)\n", sw_error_message(err), sw_error_failure_code(err));
		if (sw_error_hint(err))
			fprintf(stderr, "  %s\n", sw_error_hint(err));
		sw_error_free(err);
		code = CLI_EXIT_FAIL;
	} else {
		json_t *r = json_loads(out, 0, NULL);
		print_result(r);
		json_decref(r);
	}
	sw_free(out);
	sw_ctx_free(ctx);
	free(abs);
	return code;
}
