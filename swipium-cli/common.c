/* common.c: helpers shared by the subcommands: self location, logging to stderr. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

char *cli_self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return strdup(buf[0] ? buf : "/");
}

static void log_to_stderr(sw_log_level level, const char *msg, const char *fields_json, void *userdata)
{
	static const char *const names[] = {"debug", "info", "warn", "error"};
	(void)userdata;
	/* One JSON object per line; msg is escaped by hand to keep this file free of jansson. */
	fprintf(stderr, "{\"level\":\"%s\",\"msg\":\"", names[level]);
	for (const char *p = msg; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
			fprintf(stderr, "\\%c", c);
		else if (c < 0x20)
			fprintf(stderr, "\\u%04x", c);
		else
			fputc(c, stderr);
	}
	fprintf(stderr, "\",\"fields\":%s}\n", fields_json);
}

sw_ctx *cli_ctx_new(void)
{
	sw_ctx *ctx = NULL;
	sw_error *err = NULL;
	if (sw_ctx_new(&ctx, &err) != SW_OK) {
		fprintf(stderr, "swipium: %s\n", sw_error_message(err));
		sw_error_free(err);
		exit(CLI_EXIT_FAIL);
	}
	sw_ctx_set_log_fn(ctx, log_to_stderr, NULL);
	return ctx;
}
