/* cmd-serve.c: `swipium` / `swipium serve`: become the swipium-mcp installed beside this binary. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

int cmd_serve(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	/* Beside this binary when installed; in ../swipium-mcp/ in a build tree (cli_find_mcp). */
	char *path = cli_find_mcp();
	if (!path) {
		fprintf(stderr, "swipium: swipium-mcp was not found beside this executable (is it installed beside "
		                "swipium?)\n");
		return CLI_EXIT_FAIL;
	}
	/* Replaced, not forked: the MCP client's signals and the server's exit status are the server's own. */
	const char *const args[] = {path, NULL};
	sw_error *err = NULL;
	sw_process_exec(args, 0, &err);
	fprintf(stderr, "swipium: %s\n", err ? sw_error_message(err) : "cannot start swipium-mcp");
	sw_error_free(err);
	free(path);
	return CLI_EXIT_FAIL;
}
