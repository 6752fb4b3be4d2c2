/* cmd-gc.c: `swipium gc`: prune old session folders under ~/.swipium/runs and compact projects.json. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

static const char gc_usage[] =
    "Usage: swipium gc [--dry-run | -n] [--days N] [--keep N]\n"
    "\n"
    "Deletes session folders under ~/.swipium/runs whose last activity is older than N days,\n"
    "that are not listed in ~/.swipium/registry.json, and that are not among the newest\n"
    "sessions of their project. Also drops projects.json entries whose root is gone.\n"
    "\n"
    "  --dry-run, -n   report what would be deleted; delete nothing\n"
    "  --days N        age limit in whole days (default: SWIPIUM_RETENTION_DAYS, else 30)\n"
    "  --keep N        newest sessions kept per project (default: SWIPIUM_RETENTION_KEEP, else 20)\n"
    "  --help, -h      show this help\n";

static int usage_error(const char *msg)
{
	fprintf(stderr, "swipium gc: %s\n\n%s", msg, gc_usage);
	return CLI_EXIT_USAGE;
}

static int count_error(const char *flag, const char *got)
{
	char *shown = sw_text_cap(got, (size_t)-1, 400, SW_CAP_HEAD_TAIL);
	char msg[1400];
	sw_text_snprintf(msg, sizeof(msg), "%s expects a non-negative integer (got %s)", flag, shown ? shown : "");
	sw_free(shown);
	return usage_error(msg);
}

/* A whole, non-negative number of at most 15 digits; anything else is refused. */
static int parse_count(const char *flag, const char *raw, long *out)
{
	if (!raw || !*raw)
		return count_error(flag, "nothing");
	size_t n = strlen(raw);
	if (n > 15 || strspn(raw, "0123456789") != n)
		return count_error(flag, raw);
	*out = strtol(raw, NULL, 10);
	return CLI_EXIT_OK;
}

/* 1024-based sizes: "N B", "x.x KB", "x.x MB", "x.xx GB"; ties round up as JavaScript's toFixed does. */
static void format_bytes(uint64_t b, char *buf, size_t n)
{
	if (b < 1024) {
		snprintf(buf, n, "%" PRIu64 " B", b);
	} else if (b < (uint64_t)1 << 20) {
		uint64_t t = (b * 10 + 512) >> 10;
		snprintf(buf, n, "%" PRIu64 ".%" PRIu64 " KB", t / 10, t % 10);
	} else if (b < (uint64_t)1 << 30) {
		uint64_t t = (b * 10 + ((uint64_t)1 << 19)) >> 20;
		snprintf(buf, n, "%" PRIu64 ".%" PRIu64 " MB", t / 10, t % 10);
	} else {
		uint64_t whole = b >> 30, frac = b & (((uint64_t)1 << 30) - 1);
		uint64_t t = whole * 100 + ((frac * 100 + ((uint64_t)1 << 29)) >> 30);
		snprintf(buf, n, "%" PRIu64 ".%02" PRIu64 " GB", t / 100, t % 100);
	}
}

static long env_default(const char *name, long def, long when_disabled)
{
	const char *v = getenv(name);
	int disabled = 0, invalid = 0;
	long r = sw_retention_env(v, def, &disabled, &invalid);
	if (invalid)
		fprintf(stderr, "swipium gc: ignoring %s=\"%s\" (not a whole non-negative number); using %ld\n", name,
		        v, def);
	return disabled ? when_disabled : r;
}

int cmd_gc(int argc, char **argv)
{
	bool dry_run = false, have_days = false, have_keep = false;
	long days = 0, keep = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(gc_usage, stdout);
			return CLI_EXIT_OK;
		}
		if (!strcmp(a, "--dry-run") || !strcmp(a, "-n")) {
			dry_run = true;
			continue;
		}
		const char *flag = NULL, *raw = NULL;
		if (!strcmp(a, "--days") || !strcmp(a, "--keep")) {
			flag = a;
			raw = i + 1 < argc ? argv[++i] : NULL;
		} else if (!strncmp(a, "--days=", 7) || !strncmp(a, "--keep=", 7)) {
			flag = !strncmp(a, "--days", 6) ? "--days" : "--keep";
			raw = a + 7;
		} else {
			{
				char *shown = sw_text_cap(a, (size_t)-1, 400, SW_CAP_HEAD_TAIL);
				char msg[1400];
				sw_text_snprintf(msg, sizeof(msg), "unknown option %s", shown ? shown : "");
				sw_free(shown);
				return usage_error(msg);
			}
		}
		long v = 0;
		int rc = parse_count(flag, raw, &v);
		if (rc)
			return rc;
		if (!strcmp(flag, "--days")) {
			days = v;
			have_days = true;
		} else {
			keep = v;
			have_keep = true;
		}
	}
	if (!have_days)
		days = env_default("SWIPIUM_RETENTION_DAYS", 30, 30);
	if (!have_keep)
		keep = env_default("SWIPIUM_RETENTION_KEEP", 20, 0);

	sw_ctx *ctx = cli_ctx_new();
	sw_store *store = NULL;
	sw_error *err = NULL;
	char *summary = NULL;
	int exit_code = CLI_EXIT_FAIL;
	if (sw_store_open(ctx, &store, &err) != SW_OK)
		goto fail;
	sw_prune_options opts = SW_PRUNE_OPTIONS_INIT;
	opts.days = days;
	opts.keep = keep;
	opts.dry_run = dry_run;
	opts.compact_projects = 1;
	if (sw_store_prune(store, &opts, &summary, &err) != SW_OK)
		goto fail;
	json_t *s = json_loads(summary, 0, NULL);
	if (!s) {
		fprintf(stderr, "swipium gc: out of memory\n");
		goto out;
	}
	json_t *proj = json_object_get(s, "projects");
	long long before = json_integer_value(json_object_get(proj, "before"));
	long long after = json_integer_value(json_object_get(proj, "after"));
	long long removed = json_integer_value(json_object_get(proj, "removed"));
	long long errors = json_integer_value(json_object_get(s, "errors"));
	const char *skipped = json_string_value(json_object_get(s, "skipped"));
	char bytes[64];
	format_bytes((uint64_t)json_integer_value(json_object_get(s, "bytes")), bytes, sizeof(bytes));
	printf("swipium gc%s: scanned %lld session dir(s) under %s\n", dry_run ? " (dry run)" : "",
	       json_integer_value(json_object_get(s, "scanned")), json_string_value(json_object_get(s, "runsDir")));
	printf("  %s %lld session dir(s) older than %ld day(s) (not registered; newest %ld per project kept)\n",
	       dry_run ? "would delete" : "deleted", json_integer_value(json_object_get(s, "deleted")), days, keep);
	printf("  %s: %s\n", dry_run ? "reclaimable" : "reclaimed", bytes);
	printf("  projects.json: %lld > %lld entr%s", before, after, after == 1 ? "y" : "ies");
	if (removed > 0)
		printf(" (%lld stale %sremoved)", removed, dry_run ? "would be " : "");
	printf("\n");
	if (skipped)
		printf("  prune skipped: %s\n", skipped);
	if (json_is_integer(json_object_get(s, "registryRebuilt")))
		printf("  registry.json was corrupt: set aside and rebuilt from the session folders (%lld registered again)\n",
		       json_integer_value(json_object_get(s, "registryRebuilt")));
	if (errors > 0)
		printf("  %lld entr%s could not be processed (see logs)\n", errors, errors == 1 ? "y" : "ies");
	json_decref(s);
	exit_code = CLI_EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "swipium gc: %s\n", sw_error_message(err));
out:
	sw_free(summary);
	sw_error_free(err);
	sw_store_free(store);
	sw_ctx_free(ctx);
	return exit_code;
}
