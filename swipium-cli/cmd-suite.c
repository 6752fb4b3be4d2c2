/* cmd-suite.c: `swipium suite <lint|compile|init> [projectRoot] [--suite <file>]`: POM suites without an MCP client. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

static const char SUITE_USAGE[] =
    "Usage: swipium suite <lint|compile|init> [projectRoot] [--suite <file>]\n"
    "\n"
    "  lint      audit the page objects in .swipium/pages (coordinate-only, locale-fragile and dynamic\n"
    "            locators, files that do not parse)\n"
    "  compile   compile .swipium/<suite> (default suites/smoke.yaml) into .swipium/flows/<slug>.yaml and\n"
    "            .swipium/compiled/<slug>.flow.yaml, each checked like qa_flow_check\n"
    "  init      print the six steps from a recorded run to a suite CI replays\n"
    "\n"
    "  projectRoot       the app's folder (default: the current directory)\n"
    "  --suite <file>    compile: the suite, relative to .swipium/\n"
    "  -h, --help        show this help\n"
    "\n"
    "Exit status: lint 0 clean, 1 an error item, 2 no .swipium/pages; compile 0 when every test compiled\n"
    "(at least one), else 2; init 0; 2 on a usage error.\n";

/* Repository text on a terminal line: every control byte (ESC, CR, BEL, DEL, C1 such as CSI) shows as '?'. */
static void print_safe(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		bool c1 = p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F;
		fputc(c1 || *p < 0x20 || *p == 0x7f ? '?' : (char)*p, f);
		p += c1 ? 2 : 1;
	}
}

static int usage(const char *msg)
{
	if (msg) {
		print_safe(stderr, msg);
		fputs("\n\n", stderr);
	}
	fputs(SUITE_USAGE, stderr);
	return CLI_EXIT_USAGE;
}

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static int fail(const char *what, sw_error *err)
{
	fprintf(stderr, "swipium suite %s: ", what);
	print_safe(stderr, err ? sw_error_message(err) : "out of memory or an unreadable answer");
	fputc('\n', stderr);
	sw_error_free(err);
	return CLI_EXIT_USAGE;
}

static int run_lint(const char *root)
{
	char *out = NULL;
	sw_error *err = NULL;
	if (sw_suite_pages_lint(root, &out, &err) != SW_OK)
		return fail("lint", err);
	json_t *r = json_loads(out, 0, NULL);
	sw_free(out);
	if (!r)
		return fail("lint", NULL);
	int rc;
	if (!json_is_true(json_object_get(r, "pagesFound"))) {
		printf("No page objects: %s/.swipium/pages does not exist.\n", root);
		printf("Generate them with qa_generate {target:\"suite\"} or write them (docs/page-objects.md).\n");
		rc = CLI_EXIT_USAGE;
	} else {
		size_t i;
		json_t *it;
		json_array_foreach(json_object_get(r, "items"), i, it)
		{
			printf("%-7s %s ", str(it, "level"), str(it, "code"));
			print_safe(stdout, str(it, "message"));
			fputc('\n', stdout);
		}
		long long ne = json_integer_value(json_object_get(r, "errors"));
		printf("%lld page object(s): %lld error(s), %lld warning(s)\n",
		       (long long)json_integer_value(json_object_get(r, "pages")), ne,
		       (long long)json_integer_value(json_object_get(r, "warnings")));
		rc = ne ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	json_decref(r);
	return rc;
}

static int run_compile(const char *root, const char *suite)
{
	json_t *req = suite ? json_pack("{s:s}", "suite", suite) : json_object();
	char *req_text = json_dumps(req, JSON_COMPACT), *out = NULL;
	json_decref(req);
	sw_error *err = NULL;
	int rc = req_text ? sw_suite_compile(root, req_text, &out, &err) : SW_ENOMEM;
	free(req_text);
	if (rc != SW_OK)
		return fail("compile", err);
	json_t *r = json_loads(out, 0, NULL);
	sw_free(out);
	if (!r)
		return fail("compile", NULL);
	size_t i, j;
	json_t *f, *e;
	json_array_foreach(json_object_get(r, "flows"), i, f)
	{
		bool ok = json_is_true(json_object_get(f, "ok"));
		printf("%s ", ok ? "ok  " : "FAIL");
		print_safe(stdout, str(f, "test"));
		if (ok)
			printf(" -> %s", str(f, "flowPath"));
		fputc('\n', stdout);
		json_array_foreach(json_object_get(f, "errors"), j, e)
		{
			fputs("       ", stdout);
			print_safe(stdout, str(e, "at"));
			fputs(": ", stdout);
			print_safe(stdout, str(e, "message"));
			fputc('\n', stdout);
		}
	}
	json_array_foreach(json_object_get(r, "suiteErrors"), i, e)
	{
		fputs("suite: ", stdout);
		print_safe(stdout, str(e, "message"));
		fputc('\n', stdout);
	}
	printf("%lld of %lld test(s) compiled\n", (long long)json_integer_value(json_object_get(r, "compiled")),
	       (long long)json_integer_value(json_object_get(r, "tests")));
	rc = json_is_true(json_object_get(r, "ok")) ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	json_decref(r);
	return rc;
}

int cmd_suite(int argc, char **argv)
{
	const char *sub = NULL, *root_arg = NULL, *suite = NULL;
	for (int i = 0; i < argc; i++) {
		const char *t = argv[i];
		if (!strcmp(t, "-h") || !strcmp(t, "--help")) {
			fputs(SUITE_USAGE, stdout);
			return CLI_EXIT_OK;
		}
		if (!strncmp(t, "--suite=", 8)) {
			suite = t + 8;
		} else if (!strcmp(t, "--suite")) {
			if (i + 1 >= argc || !strncmp(argv[i + 1], "--", 2))
				return usage("--suite needs a value");
			suite = argv[++i];
		} else if (t[0] == '-') {
			/* the argument is shown whole up to 150 characters, never cut inside one */
			char *m = sw_text_capf(170, SW_CAP_HEAD, "Unknown argument: %s", t);
			int rc = usage(m ? m : "Unknown argument");
			sw_free(m);
			return rc;
		} else if (!sub) {
			sub = t;
		} else if (!root_arg) {
			root_arg = t;
		} else {
			return usage("Too many arguments");
		}
	}
	if (!sub)
		return usage("Missing subcommand: lint, compile or init");
	if (!strcmp(sub, "init")) {
		fputs(sw_suite_init_guide(), stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(sub, "lint") && strcmp(sub, "compile"))
		return usage("Unknown subcommand: use lint, compile or init");
	if (suite && strcmp(sub, "compile"))
		return usage("--suite applies to compile only");
	if (suite && !*suite)
		return usage("--suite needs a value");
	char *root = realpath(root_arg ? root_arg : ".", NULL);
	if (!root) {
		fputs("Path not found: ", stderr);
		print_safe(stderr, root_arg ? root_arg : ".");
		fprintf(stderr, " (%s)\n", strerror(errno));
		return CLI_EXIT_USAGE;
	}
	int rc = !strcmp(sub, "lint") ? run_lint(root) : run_compile(root, suite);
	free(root);
	return rc;
}
