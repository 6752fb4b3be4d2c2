/* cmd-serve.c: `swipium` / `swipium serve`: exec the swipium-mcp installed beside this binary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	char *const args[] = {path, NULL};
	execv(path, args);
	fprintf(stderr, "swipium: cannot start %s: %s\n", path, strerror(errno));
	free(path);
	return CLI_EXIT_FAIL;
}
