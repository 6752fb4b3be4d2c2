/* cli.h: what the `swipium` subcommands share: the dispatch signature and output helpers. */
#ifndef SW_CLI_H
#define SW_CLI_H

#include <stdio.h>

#include <swipium/swipium.h>

/* Exit codes every subcommand uses. */
enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAIL = 1,  /* the command ran and found a problem (gate blocked, verify failed, ...) */
	CLI_EXIT_USAGE = 2, /* bad arguments or missing input */
};

/* A subcommand receives the arguments after its own name. */
typedef int (*cli_cmd_fn)(int argc, char **argv);

int cmd_serve(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_suite(int argc, char **argv);

/* The swipium-mcp beside this binary (or in the build tree's swipium-mcp/), or NULL. (transfer full) */
char *cli_find_mcp(void);

/* The path of this executable's directory (for finding swipium-mcp beside it). */
char *cli_self_dir(void);

/* A context whose logs go to stderr as JSON lines. Exits the process on failure. */
sw_ctx *cli_ctx_new(void);

#endif
