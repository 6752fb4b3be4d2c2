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
	char *dir = cli_self_dir();
	char path[4096];
	if (!dir || snprintf(path, sizeof(path), "%s/swipium-mcp", dir) >= (int)sizeof(path)) {
		free(dir);
		fprintf(stderr, "swipium: cannot locate this executable's directory to find swipium-mcp\n");
		return CLI_EXIT_FAIL;
	}
	free(dir);
	char *const args[] = {path, NULL};
	execv(path, args);
	fprintf(stderr, "swipium: cannot start %s: %s (is swipium-mcp installed beside swipium?)\n", path,
		strerror(errno));
	return CLI_EXIT_FAIL;
}
