/*
 * console.c: the emulator console on the port below the adb port (what `adb emu` talks to):
 * greeting, `auth <token>` checked against the token file, geo fix, avd name, ping, kill, help, quit.
 */
#include "vdevice.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 4096

struct vd_console {
	struct vd_device *dev;
	char *token; /* NULL or empty: no authentication */
	bool authed;
	struct vd_buf line;
};

static char *read_token(struct vd_device *d)
{
	char path[4096];
	const char *file = d->opt.token_file;
	if (!file) {
		const char *home = getenv("HOME");
		if (!home)
			return NULL;
		snprintf(path, sizeof(path), "%s/.emulator_console_auth_token", home);
		file = path;
	}
	FILE *f = fopen(file, "r");
	if (!f)
		return NULL;
	char buf[256] = {0};
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return n ? vd_strdup(buf) : NULL;
}

struct vd_console *vd_console_new(struct vd_device *d)
{
	struct vd_console *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->dev = d;
	c->token = read_token(d);
	c->authed = c->token == NULL;
	return c;
}

void vd_console_free(struct vd_console *c)
{
	if (!c)
		return;
	free(c->token);
	vd_buf_free(&c->line);
	free(c);
}

void vd_console_greet(struct vd_console *c, struct vd_buf *reply)
{
	if (c->authed) {
		vd_buf_puts(reply, "Android Console: type 'help' for a list of commands\r\nOK\r\n");
		return;
	}
	const char *home = getenv("HOME");
	vd_buf_printf(
	    reply,
	    "Android Console: Authentication required\r\n"
	    "Android Console: type 'auth <auth_token>' to authenticate\r\n"
	    "Android Console: you can find your <auth_token> in \r\n'%s/.emulator_console_auth_token'\r\nOK\r\n",
	    home ? home : "");
}

static bool parse_coord(const char *s, double lo, double hi)
{
	char *end;
	if (!s)
		return false;
	double v = strtod(s, &end);
	return end != s && *end == '\0' && v >= lo && v <= hi;
}

static bool command(struct vd_console *c, char *line, struct vd_buf *reply)
{
	char *argv[16];
	int argc = 0;
	for (char *tok = strtok(line, " \t"); tok && argc < 16; tok = strtok(NULL, " \t"))
		argv[argc++] = tok;
	if (argc == 0)
		return true;
	if (strcmp(argv[0], "quit") == 0 || strcmp(argv[0], "exit") == 0)
		return false;
	if (strcmp(argv[0], "auth") == 0) {
		if (!c->token || (argc == 2 && strcmp(argv[1], c->token) == 0)) {
			c->authed = true;
			vd_buf_puts(reply, "Android Console: type 'help' for a list of commands\r\nOK\r\n");
		} else {
			vd_buf_puts(reply,
			            "KO: authentication token does not match ~/.emulator_console_auth_token\r\n");
		}
		return true;
	}
	if (strcmp(argv[0], "help") == 0 || strcmp(argv[0], "h") == 0 || strcmp(argv[0], "?") == 0) {
		if (!c->authed)
			vd_buf_puts(
			    reply,
			    "Android console command help:\r\n\r\n    help|h|?         print a list of commands\r\n"
			    "    auth             user authentication for the emulator console\r\n"
			    "    quit|exit        quit control session\r\n\r\nOK\r\n");
		else
			vd_buf_puts(
			    reply,
			    "Android console command help:\r\n\r\n    help|h|?         print a list of commands\r\n"
			    "    kill             kill the emulator instance\r\n"
			    "    geo              Geo-location commands\r\n"
			    "    avd              control virtual device execution\r\n"
			    "    ping             check if the emulator is alive\r\n"
			    "    quit|exit        quit control session\r\n\r\n"
			    "try 'help <command>' for command-specific help\r\nOK\r\n");
		return true;
	}
	if (!c->authed) {
		vd_buf_printf(reply, "KO: unknown command, try 'help'\r\n");
		return true;
	}
	if (strcmp(argv[0], "ping") == 0) {
		vd_buf_puts(reply, "I am alive!\r\nOK\r\n");
	} else if (strcmp(argv[0], "avd") == 0 && argc >= 2 && strcmp(argv[1], "name") == 0) {
		vd_buf_printf(reply, "%s\r\nOK\r\n", c->dev->opt.avd_name ? c->dev->opt.avd_name : "vdevice_api33");
	} else if (strcmp(argv[0], "avd") == 0 && argc >= 2 && strcmp(argv[1], "status") == 0) {
		vd_buf_puts(reply, "virtual device is running\r\nOK\r\n");
	} else if (strcmp(argv[0], "geo") == 0 && argc >= 2 && strcmp(argv[1], "fix") == 0) {
		if (argc < 4 || !parse_coord(argv[2], -180, 180) || !parse_coord(argv[3], -90, 90)) {
			vd_buf_puts(reply, "KO: invalid longitude or latitude\r\n");
		} else {
			vd_device_log(c->dev, 'D', "LocationManager", "gps fix lon=%s lat=%s", argv[2], argv[3]);
			snprintf(c->dev->geo_lon, sizeof(c->dev->geo_lon), "%s", argv[2]);
			snprintf(c->dev->geo_lat, sizeof(c->dev->geo_lat), "%s", argv[3]);
			c->dev->geo_set = true;
			vd_buf_puts(reply, "OK\r\n");
		}
	} else if (strcmp(argv[0], "kill") == 0) {
		vd_buf_puts(reply, "OK: killing emulator, bye bye\r\n");
		c->dev->quit = true;
		return false;
	} else {
		vd_buf_printf(reply, "KO: unknown command, try 'help'\r\n");
	}
	return true;
}

bool vd_console_feed(struct vd_console *c, const char *data, size_t n, struct vd_buf *reply)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\r')
			continue;
		if (data[i] != '\n') {
			if (c->line.len >= MAX_LINE) {
				vd_buf_reset(&c->line);
				vd_buf_puts(reply, "KO: line too long\r\n");
			}
			vd_buf_append(&c->line, &data[i], 1);
			continue;
		}
		char *line = vd_strdup(c->line.data ? c->line.data : "");
		vd_buf_reset(&c->line);
		bool keep = line && command(c, line, reply);
		free(line);
		if (!keep)
			return false;
	}
	return true;
}
