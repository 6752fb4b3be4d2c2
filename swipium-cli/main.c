/* main.c: `swipium` argument dispatch: --help, --version, serve, and the subcommand table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const struct {
	const char *name;
	cli_cmd_fn fn;
} commands[] = {
	{"serve", cmd_serve},
	{"gc", cmd_gc},
	{"report", cmd_report},
	{"verify", cmd_verify},
	{"init", cmd_init},
	{"run", cmd_run},
	{"scan", cmd_scan},
	{"suite", cmd_suite},
};

static void usage(FILE *f)
{
	fprintf(f,
		"swipium %s: MCP server for mobile QA (Android emulator / iOS simulator)\n"
		"(compatible with Swipium %s)\n"
		"\n"
		"Usage:\n"
		"  swipium [serve]            run the stdio MCP server (swipium-mcp)\n"
		"  swipium report --format junit|sarif|github-summary|markdown|json\n"
		"                 [--latest | --session <id> | --report <file>] [--root <dir>]\n"
		"                 [--out <file>] [--fail-on-gate]\n"
		"                             render a saved QA report for CI\n"
		"  swipium gc [--dry-run] [--days N] [--keep N]\n"
		"                             delete old session folders under ~/.swipium/runs\n"
		"  swipium init <claude|codex|gemini|cursor|vscode> [--apply] [--scope local|user|project]\n"
		"                 [--cwd <app dir>]\n"
		"                             register swipium-mcp with an MCP client (preview without --apply)\n"
		"  swipium init flows [--root <dir>] [--force]\n"
		"                             write starter flows to .swipium/flows/ and the smoke pack\n"
		"  swipium run <flow-or-pack> [--root DIR] [--device SERIAL] [--variables K=V ...]\n"
		"                 [--approve ACTION ...] [--session ID]\n"
		"                             run saved flows on a device without an MCP client (CI)\n"
		"  swipium scan [path] [--check|--dry-run|--no-write]\n"
		"                             is this project testable now (READY/PARTIAL/BLOCKED); writes .swipium/ starters\n"
		"  swipium suite <lint|compile|init> [projectRoot] [--suite <file>]\n"
		"                             audit page objects, compile a POM suite into flows, or show the steps\n"
		"  swipium verify             start swipium-mcp, check its tools and prompts, run qa_doctor\n"
		"  swipium --help | -h        show this help\n"
		"  swipium --version | -v     print the version\n"
		"\n"
		"Docs: README.md and docs/ in the source tree.\n",
		sw_version(), sw_compatible_with());
}

int main(int argc, char **argv)
{
	sw_error *harden_err = NULL;
	if (sw_process_disable_core_dumps(&harden_err) != SW_OK) {
		fprintf(stderr, "swipium: warning: %s\n", sw_error_message(harden_err));
		sw_error_free(harden_err);
	}
	if (argc < 2)
		return cmd_serve(0, argv + argc);
	const char *word = argv[1];
	if (!strcmp(word, "--help") || !strcmp(word, "-h") || !strcmp(word, "help")) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (!strcmp(word, "--version") || !strcmp(word, "-v") || !strcmp(word, "version")) {
		printf("%s\n", sw_version());
		return CLI_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(word, commands[i].name)) {
			int code = commands[i].fn(argc - 2, argv + 2);
			sw_drivers_shutdown(NULL); /* an adb server this run had to start does not outlive it */
			return code;
		}
	}
	if (word[0] == '-') {
		/* A client configured with flags such as --stdio still gets a server. */
		fprintf(stderr, "swipium: ignoring unrecognized flag(s)");
		for (int i = 1; i < argc; i++)
			if (argv[i][0] == '-')
				fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, ", starting the stdio MCP server (see swipium --help)\n");
		return cmd_serve(0, argv + argc);
	}
	fprintf(stderr, "swipium: unknown command \"%s\"\n\n", word);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
