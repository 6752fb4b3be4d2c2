/* render-report.c: renders a saved swipium report to a CI format using only libswipium's public API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/swipium.h>
#include <swipium/report.h>

static int usage(FILE *to, const char *argv0)
{
	fprintf(to,
	        "usage: %s REPORT.json [FORMAT [PROJECT_ROOT]]\n"
	        "  FORMAT: junit (default), sarif, github-summary, markdown, json\n"
	        "  PROJECT_ROOT: where .swipium/policy.json and SARIF anchor files are looked up\n"
	        "Prints the rendered report on stdout and the release gate on stderr.\n"
	        "Exit status: 0 rendered, 1 rendered but the gate blocks, 2 error.\n",
	        argv0);
	return to == stdout ? 0 : 2;
}

/* Prints a library error the way a user needs it: what failed, the product failure code, what to do. */
static void print_error(const char *what, int rc, const sw_error *err)
{
	fprintf(stderr, "render-report: %s: %s [%s %s]\n", what, err ? sw_error_message(err) : "failed",
	        sw_strerror(rc), err ? sw_error_failure_code(err) : "UNKNOWN");
	if (err && sw_error_hint(err))
		fprintf(stderr, "  hint: %s\n", sw_error_hint(err));
}

int main(int argc, char **argv)
{
	sw_report *report = NULL;
	sw_error *err = NULL;
	char *body = NULL;
	size_t len = 0;
	char *gate = NULL;
	char *reason = NULL;
	int block = 0;
	sw_report_format format = SW_REPORT_JUNIT;
	sw_report_render_options opts = SW_REPORT_RENDER_OPTIONS_INIT;
	int status = 2;
	int rc;

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
		return usage(stdout, argv[0]);
	if (argc < 2 || argc > 4)
		return usage(stderr, argv[0]);
	if (argc >= 3 && sw_report_format_parse(argv[2], &format) != SW_OK) {
		fprintf(stderr, "render-report: unknown format \"%s\"\n", argv[2]);
		return usage(stderr, argv[0]);
	}
	if (argc == 4)
		opts.project_root = argv[3];

	rc = sw_report_load_file(argv[1], &report, &err);
	if (rc != SW_OK) {
		print_error("cannot load the report", rc, err);
		goto out;
	}
	rc = sw_report_render(report, format, &opts, &body, &len, &gate, &err);
	if (rc != SW_OK) {
		print_error("cannot render the report", rc, err);
		goto out;
	}

	if (fwrite(body, 1, len, stdout) != len || putchar('\n') == EOF || fflush(stdout) != 0) {
		perror("render-report: stdout");
		goto out;
	}
	/* The verdict is JSON; sw_report_gate_verdict() reads it for consumers without a JSON parser. */
	rc = sw_report_gate_verdict(gate, &block, &reason, &err);
	if (rc != SW_OK) {
		print_error("cannot read the release gate", rc, err);
		goto out;
	}
	fprintf(stderr, "Release gate: %s: %s\n", block ? "BLOCK" : "PASS", reason);
	status = block ? 1 : 0;

out:
	sw_free(reason);
	sw_free(gate);
	sw_free(body);
	sw_report_free(report);
	sw_error_free(err);
	return status;
}
