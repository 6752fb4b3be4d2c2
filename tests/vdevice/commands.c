/*
 * commands.c: the programs of the device's shell (getprop, uiautomator, screencap, input, am, pm,
 * monkey, dumpsys, wm, settings, logcat, and the small file and text tools), printing what an
 * Android 13 emulator prints.
 */
#include "vdevice.h"
#include "app.h"
#include "render.h"
#include "shell.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <time.h>

#define OUT(c, ...) vd_buf_printf((c)->out, __VA_ARGS__)
#define ERR(c, ...) vd_buf_printf((c)->err, __VA_ARGS__)

bool vd_shell_parse_number(const char *s, long *v)
{
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	double f = strtod(s, &end); /* input accepts "540.5" like Android's float parsing */
	if (errno || *end || f < -1e9 || f > 1e9)
		return false;
	*v = (long)f;
	return true;
}

static int not_found(struct vd_cmd *c)
{
	ERR(c, "/system/bin/sh: %s: inaccessible or not found\n", c->argv[0]);
	return 127;
}

/* ---- simple commands ------------------------------------------------------- */

/* `date [+FORMAT]`: the device clock is the host's, in UTC (the vdevice's timezone is GMT). */
static int c_date(struct vd_cmd *c)
{
	const char *fmt = "%a %b %e %H:%M:%S %Z %Y";
	if (c->argc > 2 || (c->argc == 2 && c->argv[1][0] != '+')) {
		ERR(c, "date: bad date %s\n", c->argv[1]);
		return 1;
	}
	if (c->argc == 2)
		fmt = c->argv[1] + 1;
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	char out[256];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	size_t n = strftime(out, sizeof(out), fmt, &tm); /* the user's format, as date(1) takes it */
#pragma GCC diagnostic pop
	OUT(c, "%.*s\n", (int)n, out);
	return 0;
}

static int c_echo(struct vd_cmd *c)
{
	int i = 1;
	bool newline = true;
	if (c->argc > 1 && strcmp(c->argv[1], "-n") == 0) {
		newline = false;
		i = 2;
	}
	for (; i < c->argc; i++)
		OUT(c, "%s%s", c->argv[i], i + 1 < c->argc ? " " : "");
	if (newline)
		OUT(c, "\n");
	return 0;
}

static int c_true(struct vd_cmd *c)
{
	return 0;
}

static int c_false(struct vd_cmd *c)
{
	return 1;
}

static int c_id(struct vd_cmd *c)
{
	if (c->argc > 1 && strcmp(c->argv[1], "-u") == 0) {
		OUT(c, "2000\n");
		return 0;
	}
	OUT(c, "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),"
	       "1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),"
	       "3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0\n");
	return 0;
}

static int c_whoami(struct vd_cmd *c)
{
	OUT(c, "shell\n");
	return 0;
}

static int c_sleep(struct vd_cmd *c)
{
	/* Time does not pass on the virtual device; sleeping only validates its argument. */
	long v;
	if (c->argc < 2 || !vd_shell_parse_number(c->argv[1], &v)) {
		ERR(c, "sleep: Need 1 argument\n");
		return 1;
	}
	return 0;
}

static int c_getprop(struct vd_cmd *c)
{
	if (c->argc < 2) {
		struct vd_buf tmp = {0};
		struct vd_out o = {.buf = &tmp};
		vd_props_print(c->d, &o);
		vd_buf_append(c->out, tmp.data, tmp.len);
		vd_buf_free(&tmp);
		return 0;
	}
	const char *v = vd_prop_get(c->d, c->argv[1]);
	OUT(c, "%s\n", v ? v : (c->argc > 2 ? c->argv[2] : ""));
	return 0;
}

static int c_setprop(struct vd_cmd *c)
{
	if (c->argc != 3) {
		ERR(c, "usage: setprop NAME VALUE\n");
		return 1;
	}
	if (strncmp(c->argv[1], "debug.", 6) != 0 && strncmp(c->argv[1], "persist.", 8) != 0) {
		ERR(c, "Failed to set property '%s' to '%s'.\nSee dmesg for error reason.\n", c->argv[1], c->argv[2]);
		return 1;
	}
	if (strncmp(c->argv[1], "debug.vdevice.", 14) == 0 && !vd_device_control(c->d, c->argv[1] + 14, c->argv[2])) {
		ERR(c, "Failed to set property '%s' to '%s'.\nSee dmesg for error reason.\n", c->argv[1], c->argv[2]);
		return 1;
	}
	vd_props_set(c->d, c->argv[1], c->argv[2]);
	return 0;
}

static int c_cat(struct vd_cmd *c)
{
	int status = 0;
	if (c->argc < 2) {
		vd_buf_append(c->out, c->in, c->in_len);
		return 0;
	}
	for (int i = 1; i < c->argc; i++) {
		struct vd_file *f = vd_fs_get(&c->d->fs, c->argv[i]);
		if (f) {
			vd_buf_append(c->out, f->data, f->len);
		} else if (vd_fs_is_dir(&c->d->fs, c->argv[i])) {
			ERR(c, "cat: %s: Is a directory\n", c->argv[i]);
			status = 1;
		} else {
			ERR(c, "cat: %s: No such file or directory\n", c->argv[i]);
			status = 1;
		}
	}
	return status;
}

static void ls_time(uint32_t t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M", &tm);
}

static int c_ls(struct vd_cmd *c)
{
	bool longfmt = false;
	int status = 0, npaths = 0;
	for (int i = 1; i < c->argc; i++)
		if (c->argv[i][0] == '-')
			longfmt |= strchr(c->argv[i], 'l') != NULL;
		else
			npaths++;
	for (int i = 1; i < c->argc || (npaths == 0 && i == c->argc); i++) {
		const char *path = i < c->argc ? c->argv[i] : "/";
		if (i < c->argc && path[0] == '-')
			continue;
		char *norm = vd_fs_normalize(path);
		struct vd_file *f = vd_fs_get(&c->d->fs, path);
		char when[32];
		if (f) {
			ls_time(f->mtime, when, sizeof(when));
			if (longfmt)
				OUT(c, "-rw-rw---- 1 u0_a163 media_rw %zu %s %s\n", f->len, when, path);
			else
				OUT(c, "%s\n", path);
		} else if (norm && vd_fs_is_dir(&c->d->fs, norm)) {
			size_t n = strlen(norm);
			for (size_t k = 0; k < c->d->fs.n; k++) {
				const char *p = c->d->fs.files[k].path;
				const char *rest = p + n + (n > 1);
				if (strncmp(p, norm, n) != 0 || (n > 1 && p[n] != '/') || strchr(rest, '/'))
					continue;
				ls_time(c->d->fs.files[k].mtime, when, sizeof(when));
				if (longfmt)
					OUT(c, "-rw-rw---- 1 u0_a163 media_rw %zu %s %s\n", c->d->fs.files[k].len, when,
					    rest);
				else
					OUT(c, "%s\n", rest);
			}
		} else {
			ERR(c, "ls: %s: No such file or directory\n", path);
			status = 1;
		}
		free(norm);
		if (i >= c->argc)
			break;
	}
	return status;
}

static int c_rm(struct vd_cmd *c)
{
	bool force = false;
	int status = 0;
	for (int i = 1; i < c->argc; i++) {
		if (c->argv[i][0] == '-') {
			force |= strchr(c->argv[i], 'f') != NULL;
			continue;
		}
		if (vd_fs_remove(&c->d->fs, c->argv[i]))
			continue;
		if (force)
			continue;
		if (vd_fs_is_dir(&c->d->fs, c->argv[i]))
			ERR(c, "rm: %s: is a directory\n", c->argv[i]);
		else
			ERR(c, "rm: %s: No such file or directory\n", c->argv[i]);
		status = 1;
	}
	return status;
}

static int c_mkdir(struct vd_cmd *c)
{
	return 0; /* directories are implicit in the in-memory file system */
}

static int c_touch(struct vd_cmd *c)
{
	for (int i = 1; i < c->argc; i++) {
		if (c->argv[i][0] == '-' || vd_fs_get(&c->d->fs, c->argv[i]))
			continue;
		if (!vd_fs_writable(c->argv[i]) ||
		    !vd_fs_put(&c->d->fs, c->argv[i], "", 0, 0100660, (uint32_t)time(NULL))) {
			ERR(c, "touch: '%s': Permission denied\n", c->argv[i]);
			return 1;
		}
	}
	return 0;
}

/* grep with POSIX regular expressions; -i -v -c -E -F -q are understood. */
static int c_grep(struct vd_cmd *c)
{
	bool icase = false, invert = false, count = false, fixed = false, quiet = false;
	const char *pat = NULL;
	for (int i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (a[0] == '-' && a[1] && !pat) {
			for (const char *p = a + 1; *p; p++) {
				icase |= *p == 'i';
				invert |= *p == 'v';
				count |= *p == 'c';
				fixed |= *p == 'F';
				quiet |= *p == 'q';
			}
		} else if (!pat) {
			pat = a;
		}
	}
	if (!pat) {
		ERR(c, "usage: grep [-civEFq] PATTERN\n");
		return 2;
	}
	regex_t re;
	if (!fixed && regcomp(&re, pat, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0)) != 0) {
		ERR(c, "grep: bad regex '%s'\n", pat);
		return 2;
	}
	long matches = 0;
	const char *p = c->in ? c->in : "", *end = p + c->in_len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = vd_strndup(p, n);
		bool hit = false;
		if (line)
			hit = fixed ? (icase ? strcasestr(line, pat) : strstr(line, pat)) != NULL
			            : regexec(&re, line, 0, NULL, 0) == 0;
		if (hit != invert) {
			matches++;
			if (!count && !quiet)
				OUT(c, "%s\n", line ? line : "");
		}
		free(line);
		p += n + 1;
	}
	if (!fixed)
		regfree(&re);
	if (count)
		OUT(c, "%ld\n", matches);
	return matches ? 0 : 1;
}

static int c_head_tail(struct vd_cmd *c)
{
	long n = 10;
	bool tail = strcmp(c->argv[0], "tail") == 0;
	for (int i = 1; i < c->argc; i++) {
		if (strcmp(c->argv[i], "-n") == 0 && i + 1 < c->argc)
			vd_shell_parse_number(c->argv[++i], &n);
		else if (c->argv[i][0] == '-')
			vd_shell_parse_number(c->argv[i] + 1, &n);
	}
	const char *p = c->in ? c->in : "", *end = p + c->in_len;
	long lines = 0;
	for (const char *q = p; q < end; q++)
		lines += *q == '\n';
	if (c->in_len && end[-1] != '\n')
		lines++;
	long skip = tail ? (lines > n ? lines - n : 0) : 0, idx = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (idx >= skip && (tail || idx < n))
			vd_buf_append(c->out, p, len);
		idx++;
		p += len;
	}
	return 0;
}

static int c_wc(struct vd_cmd *c)
{
	long lines = 0;
	for (size_t i = 0; i < c->in_len; i++)
		lines += c->in[i] == '\n';
	OUT(c, "%ld\n", lines);
	return 0;
}

/* ---- uiautomator / screencap ---------------------------------------------------- */

static void write_file_or_out(struct vd_cmd *c, const char *path, const char *data, size_t len)
{
	if (!path || strcmp(path, "/dev/tty") == 0 || strcmp(path, "/dev/stdout") == 0 || strcmp(path, "-") == 0)
		vd_buf_append(c->out, data, len);
	else
		vd_fs_put(&c->d->fs, path, data, len, 0100660, (uint32_t)time(NULL));
}

static void huge_nodes(struct vd_buf *xml, long n, bool below)
{
	/* Insert n plain nodes just before the closing </hierarchy> (drawn over the app), or right after the opening
	 * <hierarchy> tag (@below: a window under the app's). */
	const char *close = "</hierarchy>";
	char *at = xml->data ? strstr(xml->data, close) : NULL;
	const char *open = below && xml->data ? strstr(xml->data, "<hierarchy") : NULL;
	if (open && strchr(open, '>'))
		at = strchr(open, '>') + 1;
	if (!at)
		return;
	struct vd_buf tail = {0};
	vd_buf_puts(&tail, at);
	xml->len = (size_t)(at - xml->data);
	xml->data[xml->len] = '\0';
	vd_buf_puts(xml,
	            "<node index=\"1\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
	            "package=\"com.android.systemui\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
	            "clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" scrollable=\"false\" "
	            "long-clickable=\"false\" password=\"false\" selected=\"false\" bounds=\"[0,0][1080,2400]\">");
	for (long i = 0; i < n; i++) {
		int y = (int)(i % 2400);
		vd_buf_printf(
		    xml,
		    "<node index=\"%ld\" text=\"\" resource-id=\"\" class=\"android.view.View\" "
		    "package=\"com.android.systemui\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
		    "clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" "
		    "scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" "
		    "bounds=\"[0,%d][1080,%d]\" />",
		    i, y, y + 1);
	}
	vd_buf_puts(xml, "</node>");
	vd_buf_append(xml, tail.data, tail.len);
	vd_buf_free(&tail);
}

/* An animating screen: a progress node whose description changes with every frame, inside the root node. */
static void animate(struct vd_device *d, struct vd_buf *xml)
{
	d->frames += 3;
	const char *close = "</node></hierarchy>";
	char *at = xml->data ? strstr(xml->data, close) : NULL;
	if (!at)
		return;
	struct vd_buf tail = {0};
	vd_buf_puts(&tail, at);
	xml->len = (size_t)(at - xml->data);
	xml->data[xml->len] = '\0';
	vd_buf_printf(xml,
	              "<node index=\"99\" text=\"\" resource-id=\"\" class=\"android.widget.ProgressBar\" package=\"%s\" "
	              "content-desc=\"Loading, frame %ld\" checkable=\"false\" checked=\"false\" clickable=\"false\" "
	              "enabled=\"true\" focusable=\"false\" focused=\"false\" scrollable=\"false\" long-clickable=\"false\" "
	              "password=\"false\" selected=\"false\" bounds=\"[492,2100][588,2196]\" />",
	              vd_app_main_package(d->app), d->frames);
	vd_buf_append(xml, tail.data, tail.len);
	vd_buf_free(&tail);
}

static int c_uiautomator(struct vd_cmd *c)
{
	if (c->argc < 2 || strcmp(c->argv[1], "dump") != 0) {
		ERR(c, "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
		       "help: displays help message\n\nruntest: executes UI automation tests\n\n"
		       "dump: creates an XML dump of current UI hierarchy\n\nevents: prints out accessibility events "
		       "until "
		       "terminated\n");
		return 1;
	}
	const char *path = "/sdcard/window_dump.xml";
	for (int i = 2; i < c->argc; i++)
		if (c->argv[i][0] != '-')
			path = c->argv[i];
	bool to_stdout = strcmp(path, "/dev/tty") == 0 || strcmp(path, "/dev/stdout") == 0;
	if (!to_stdout && !vd_fs_writable(path)) {
		ERR(c, "java.io.FileNotFoundException: %s: open failed: EACCES (Permission denied)\n", path);
		return 1;
	}
	struct vd_buf xml = {0};
	enum vd_dump_mode mode = c->d->opt.dump_mode;
	if (mode != VD_DUMP_NORMAL && c->d->dump_count > 0 && --c->d->dump_count == 0)
		c->d->opt.dump_mode = VD_DUMP_NORMAL; /* this was the last hostile dump */
	switch (mode) {
	case VD_DUMP_FAIL: ERR(c, "ERROR: could not get idle state.\n"); return 0;
	case VD_DUMP_EMPTY: break;
	case VD_DUMP_GARBAGE:
		vd_buf_puts(&xml, "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
		                  "<node index=\"0\" text=\"\x01\x02garbage\" bounds=\"[0,0][10\xff\xfe<<<<&&;;\n");
		break;
	default:
		if (c->d->dump_file) {
			struct vd_file *f = vd_fs_get(&c->d->fs, c->d->dump_file);
			if (!f) {
				ERR(c, "ERROR: null root node returned by UiTestAutomationBridge.\n");
				return 0;
			}
			vd_buf_append(&xml, f->data, f->len);
		} else {
			vd_app_dump_xml(c->d->app, c->d, &xml);
		}
		if (mode == VD_DUMP_HUGE || mode == VD_DUMP_HUGE_BELOW)
			huge_nodes(&xml, c->d->opt.huge_nodes, mode == VD_DUMP_HUGE_BELOW);
		if (c->d->animating)
			animate(c->d, &xml);
	}
	write_file_or_out(c, path, xml.data ? xml.data : "", xml.len);
	vd_buf_free(&xml);
	OUT(c, "UI hierchary dumped to: %s\n", path);
	return 0;
}

static int c_screencap(struct vd_cmd *c)
{
	bool png = false;
	const char *path = NULL;
	for (int i = 1; i < c->argc; i++) {
		if (strcmp(c->argv[i], "-p") == 0)
			png = true;
		else if (strcmp(c->argv[i], "-d") == 0 && i + 1 < c->argc)
			i++;
		else if (c->argv[i][0] != '-')
			path = c->argv[i];
	}
	if (path) {
		size_t n = strlen(path);
		png |= n > 4 && strcmp(path + n - 4, ".png") == 0;
		if (!vd_fs_writable(path)) {
			ERR(c, "Error opening file: %s (Permission denied)\n", path);
			return 1;
		}
	}
	uint8_t *rgba = vd_app_render(c->d->app);
	if (!rgba) {
		ERR(c, "Error: screencap failed\n");
		return 1;
	}
	struct vd_buf img = {0};
	bool ok;
	if (png) {
		ok = vd_png_encode(rgba, VD_SCREEN_W, VD_SCREEN_H, &img);
	} else {
		/* Raw format: width, height, pixel format (1 = RGBA_8888), dataspace, then pixels. */
		unsigned char h[16] = {0};
		uint32_t vals[4] = {VD_SCREEN_W, VD_SCREEN_H, 1, 0};
		for (int i = 0; i < 4; i++)
			for (int k = 0; k < 4; k++)
				h[i * 4 + k] = (unsigned char)(vals[i] >> (8 * k));
		ok = vd_buf_append(&img, h, sizeof(h)) &&
		     vd_buf_append(&img, rgba, (size_t)VD_SCREEN_W * VD_SCREEN_H * 4);
	}
	free(rgba);
	if (ok)
		write_file_or_out(c, path, img.data, img.len);
	vd_buf_free(&img);
	if (!ok) {
		ERR(c, "Error: out of memory\n");
		return 1;
	}
	return 0;
}

/* ---- input ------------------------------------------------------------------------ */

static const struct {
	const char *name;
	int code;
} keycodes[] = {
    {"HOME", VD_KEY_HOME},
    {"BACK", VD_KEY_BACK},
    {"DPAD_CENTER", VD_KEY_DPAD_CENTER},
    {"TAB", VD_KEY_TAB},
    {"ENTER", VD_KEY_ENTER},
    {"DEL", VD_KEY_DEL},
    {"MENU", VD_KEY_MENU},
    {"ESCAPE", VD_KEY_ESCAPE},
    {"FORWARD_DEL", VD_KEY_FORWARD_DEL},
    {"MOVE_HOME", VD_KEY_MOVE_HOME},
    {"MOVE_END", VD_KEY_MOVE_END},
    {"APP_SWITCH", VD_KEY_APP_SWITCH},
    {"POWER", 26},
    {"WAKEUP", 224},
    {"SLEEP", 223},
    {"VOLUME_UP", 24},
    {"VOLUME_DOWN", 25},
    {"SPACE", 62},
    {"DPAD_UP", 19},
    {"DPAD_DOWN", 20},
    {"DPAD_LEFT", 21},
    {"DPAD_RIGHT", 22},
    {"SEARCH", 84},
    {"CLEAR", 28},
};

static bool parse_keycode(const char *s, int *code)
{
	long v;
	if (vd_shell_parse_number(s, &v) && v >= 0 && v < 400) {
		*code = (int)v;
		return true;
	}
	if (strncmp(s, "KEYCODE_", 8) == 0)
		s += 8;
	for (size_t i = 0; i < VD_ARRAY_SIZE(keycodes); i++)
		if (strcmp(keycodes[i].name, s) == 0) {
			*code = keycodes[i].code;
			return true;
		}
	if (strlen(s) == 1 && isalnum((unsigned char)*s)) {
		*code = isdigit((unsigned char)*s) ? 7 + (*s - '0') : 29 + (toupper((unsigned char)*s) - 'A');
		return true;
	}
	return false;
}

static int input_usage(struct vd_cmd *c)
{
	ERR(c,
	    "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\nThe commands and default sources are:\n"
	    "      text <string> (Default: touchscreen)\n      keyevent [--longpress|--doubletap] <key code number or "
	    "name> ... (Default: keyboard)\n      tap <x> <y> (Default: touchscreen)\n      swipe <x1> <y1> <x2> <y2> "
	    "[duration(ms)] (Default: touchscreen)\n      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: "
	    "touchscreen)\n      press (Default: trackball)\n      roll <dx> <dy> (Default: trackball)\n");
	return 1;
}

static int input_run(struct vd_cmd *c);

/* Every input event makes the app draw a few frames (a ripple, a cursor, a transition). */
static int c_input(struct vd_cmd *c)
{
	int r = input_run(c);
	if (r == 0)
		c->d->frames += 4;
	return r;
}

static int input_run(struct vd_cmd *c)
{
	static const char *const sources[] = {"touchscreen",     "keyboard", "mouse",  "touchpad",  "gamepad",
	                                      "touchnavigation", "joystick", "stylus", "trackball", "dpad"};
	int i = 1;
	if (i < c->argc)
		for (size_t k = 0; k < VD_ARRAY_SIZE(sources); k++)
			if (strcmp(c->argv[i], sources[k]) == 0) {
				i++;
				break;
			}
	if (i + 1 < c->argc && strcmp(c->argv[i], "-d") == 0)
		i += 2;
	if (i >= c->argc)
		return input_usage(c);
	const char *sub = c->argv[i++];
	long v[5] = {0};
	int nargs = c->argc - i;
	if (strcmp(sub, "tap") == 0) {
		if (nargs != 2 || !vd_shell_parse_number(c->argv[i], &v[0]) ||
		    !vd_shell_parse_number(c->argv[i + 1], &v[1]))
			return input_usage(c);
		vd_app_tap(c->d->app, c->d, (int)v[0], (int)v[1]);
		return 0;
	}
	if (strcmp(sub, "swipe") == 0 || strcmp(sub, "draganddrop") == 0) {
		if (nargs < 4 || nargs > 5)
			return input_usage(c);
		for (int k = 0; k < nargs; k++)
			if (!vd_shell_parse_number(c->argv[i + k], &v[k]))
				return input_usage(c);
		if (v[0] == v[2] && v[1] == v[3] && nargs == 5 && v[4] >= 500)
			vd_app_long_press(c->d->app, c->d, (int)v[0], (int)v[1]);
		else
			vd_app_swipe(c->d->app, c->d, (int)v[0], (int)v[1], (int)v[2], (int)v[3]);
		return 0;
	}
	if (strcmp(sub, "text") == 0) {
		if (nargs < 1)
			return input_usage(c);
		/* Like Android's InputShellCommand: only the first argument, "%s" becomes a space. */
		const char *t = c->argv[i];
		struct vd_buf txt = {0};
		for (size_t k = 0; t[k]; k++) {
			if ((unsigned char)t[k] >= 0x80 || (unsigned char)t[k] < 0x20) {
				ERR(c, "Exception occurred while executing 'text':\njava.lang.RuntimeException: "
				       "Failed to convert characters to keys\n");
				vd_buf_free(&txt);
				return 255;
			}
			if (t[k] == '%' && t[k + 1] == 's') {
				vd_buf_append(&txt, " ", 1);
				k++;
			} else {
				vd_buf_append(&txt, &t[k], 1);
			}
		}
		vd_app_text(c->d->app, c->d, txt.data ? txt.data : "");
		vd_buf_free(&txt);
		return 0;
	}
	if (strcmp(sub, "keyevent") == 0) {
		bool any = false;
		for (; i < c->argc; i++) {
			int code;
			if (c->argv[i][0] == '-' && c->argv[i][1] == '-')
				continue;
			if (!parse_keycode(c->argv[i], &code)) {
				ERR(c,
				    "Exception occurred while executing "
				    "'keyevent':\njava.lang.IllegalArgumentException: "
				    "Unknown keycode: %s\n",
				    c->argv[i]);
				return 255;
			}
			vd_app_key(c->d->app, c->d, code);
			any = true;
		}
		return any ? 0 : input_usage(c);
	}
	if (strcmp(sub, "press") == 0) {
		vd_app_key(c->d->app, c->d, VD_KEY_DPAD_CENTER);
		return 0;
	}
	if (strcmp(sub, "roll") == 0)
		return 0;
	ERR(c, "Error: Unknown command: %s\n", sub);
	return input_usage(c);
}

/* ---- am / monkey ---------------------------------------------------------------------- */

static int c_am(struct vd_cmd *c)
{
	if (c->argc < 2) {
		ERR(c, "Activity manager (activity) commands:\n  help\n  start [options] <INTENT>\n  force-stop "
		       "<PACKAGE>\n");
		return 1;
	}
	const char *sub = c->argv[1];
	if (strcmp(sub, "force-stop") == 0 || strcmp(sub, "kill") == 0) {
		for (int i = 2; i < c->argc; i++)
			if (strcmp(c->argv[i], "--user") == 0)
				i++;
			else
				vd_app_force_stop(c->d->app, c->d, c->argv[i]);
		return 0;
	}
	if (strcmp(sub, "start") != 0 && strcmp(sub, "start-activity") != 0) {
		ERR(c, "Unknown command: %s\n", sub);
		return 255;
	}
	const char *comp = NULL, *action = NULL, *data = NULL;
	bool wait = false, stop_first = false;
	for (int i = 2; i < c->argc; i++) {
		const char *a = c->argv[i];
		bool has_next = i + 1 < c->argc;
		if (strcmp(a, "-n") == 0 && has_next)
			comp = c->argv[++i];
		else if (strcmp(a, "-a") == 0 && has_next)
			action = c->argv[++i];
		else if (strcmp(a, "-d") == 0 && has_next)
			data = c->argv[++i];
		else if ((strcmp(a, "-c") == 0 || strcmp(a, "-f") == 0 || strcmp(a, "--user") == 0 ||
		          strcmp(a, "-t") == 0) &&
		         has_next)
			i++;
		else if ((strcmp(a, "--es") == 0 || strcmp(a, "--ez") == 0 || strcmp(a, "--ei") == 0) &&
		         i + 2 < c->argc)
			i += 2;
		else if (strcmp(a, "-W") == 0)
			wait = true;
		else if (strcmp(a, "-S") == 0)
			stop_first = true;
		else if (a[0] != '-' && !data && !comp)
			data = a; /* a bare URI */
	}
	struct vd_buf intent = {0};
	vd_buf_puts(&intent, "Intent {");
	if (action)
		vd_buf_printf(&intent, " act=%s", action);
	if (data)
		vd_buf_printf(&intent, " dat=%s", data);
	if (comp)
		vd_buf_printf(&intent, " cmp=%s", comp);
	vd_buf_puts(&intent, " }");
	OUT(c, "Starting: %s\n", intent.data);
	int status = 0;
	const char *started = comp;
	if (comp) {
		char *pkg = vd_strdup(comp);
		char *slash = pkg ? strchr(pkg, '/') : NULL;
		if (!slash) {
			ERR(c, "Error: Bad component name: %s\n", comp);
			status = 255;
		} else {
			*slash = '\0';
			if (stop_first)
				vd_app_force_stop(c->d->app, c->d, pkg);
			int r = vd_app_start(c->d->app, c->d, pkg, slash + 1);
			if (r != 0) {
				const char *act = slash[1] == '.' ? slash + 1 : slash + 1;
				ERR(c, "Error type 3\nError: Activity class {%s/%s%s} does not exist.\n", pkg,
				    act[0] == '.' ? pkg : "", act);
				status = 255;
			}
		}
		free(pkg);
	} else if (data) {
		if (!vd_app_open_url(c->d->app, c->d, data, &started)) {
			ERR(c, "Error: Activity not started, unable to resolve %s\n", intent.data);
			status = 255;
		}
	} else {
		ERR(c, "Error: Activity not started, unable to resolve %s\n", intent.data);
		status = 255;
	}
	if (status == 0 && wait)
		OUT(c, "Status: ok\nLaunchState: COLD\nActivity: %s\nTotalTime: 412\nWaitTime: 415\nComplete\n",
		    started ? started : "");
	vd_buf_free(&intent);
	return status;
}

static int c_monkey(struct vd_cmd *c)
{
	const char *pkg = NULL;
	for (int i = 1; i < c->argc; i++)
		if (strcmp(c->argv[i], "-p") == 0 && i + 1 < c->argc)
			pkg = c->argv[++i];
	for (int i = 1; i < c->argc; i++)
		OUT(c, "  bash arg: %s\n", c->argv[i]);
	if (!pkg || vd_app_start(c->d->app, c->d, pkg, NULL) != 0) {
		OUT(c, "** No activities found to run, monkey aborted.\n");
		return 251;
	}
	OUT(c, "Events injected: 1\n## Network stats: elapsed time=16ms (0ms mobile, 0ms wifi, 16ms not connected)\n");
	return 0;
}

/* ---- packages ---------------------------------------------------------------------------- */

static bool is_system_package(const char *pkg)
{
	return strncmp(pkg, "com.android.", 12) == 0 || strncmp(pkg, "com.google.", 11) == 0 ||
	       strcmp(pkg, "android") == 0;
}

static int pm_list(struct vd_cmd *c, int i)
{
	bool third = false, system = false;
	const char *filter = NULL;
	for (; i < c->argc; i++) {
		if (strcmp(c->argv[i], "-3") == 0)
			third = true;
		else if (strcmp(c->argv[i], "-s") == 0)
			system = true;
		else if (strcmp(c->argv[i], "--user") == 0)
			i++;
		else if (c->argv[i][0] != '-')
			filter = c->argv[i];
	}
	for (size_t k = 0; k < vd_app_package_count(c->d->app); k++) {
		const char *p = vd_app_package_at(c->d->app, k);
		if ((third && is_system_package(p)) || (system && !is_system_package(p)) ||
		    (filter && !strstr(p, filter)))
			continue;
		OUT(c, "package:%s\n", p);
	}
	return 0;
}

static void remember_cert(struct vd_device *d, const char *pkg, uint32_t crc)
{
	for (int i = 0; i < d->n_certs; i++)
		if (strcmp(d->certs[i].pkg, pkg) == 0) {
			d->certs[i].crc = crc;
			return;
		}
	if (d->n_certs < (int)VD_ARRAY_SIZE(d->certs) && strlen(pkg) < sizeof(d->certs[0].pkg)) {
		strcpy(d->certs[d->n_certs].pkg, pkg);
		d->certs[d->n_certs++].crc = crc;
	}
}

/* Is @abi one the device runs? ro.product.cpu.abilist, or on older releases ro.product.cpu.abi and abi2. */
static bool device_runs_abi(struct vd_device *d, const char *abi)
{
	const char *list = vd_prop_get(d, "ro.product.cpu.abilist");
	if (list && *list) {
		size_t n = strlen(abi);
		for (const char *p = list; *p;) {
			const char *e = strchr(p, ',');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			if (l == n && memcmp(p, abi, n) == 0)
				return true;
			p += l + (e ? 1 : 0);
		}
		return false;
	}
	const char *a1 = vd_prop_get(d, "ro.product.cpu.abi"), *a2 = vd_prop_get(d, "ro.product.cpu.abi2");
	return (a1 && strcmp(a1, abi) == 0) || (a2 && strcmp(a2, abi) == 0);
}

/* The reason the package manager would refuse @apk (its Failure line written to @out), or NULL. */
static const char *install_refusal(struct vd_device *d, const char *pkg, const struct vd_apk_info *apk,
                                   struct vd_buf *out)
{
	const char *sdk_s = vd_prop_get(d, "ro.build.version.sdk");
	long sdk = sdk_s && *sdk_s ? strtol(sdk_s, NULL, 10) : 0;
	char line[400];
	if (apk->min_sdk_code[0]) {
		snprintf(line, sizeof(line),
		         "Failure [INSTALL_FAILED_OLDER_SDK: Failed parse during installPackageLI: "
		         "/data/app/vmdl1418865208.tmp/base.apk (at Binary XML file line #7): Requires development "
		         "platform %s but this is a release platform.]\n",
		         apk->min_sdk_code);
		vd_buf_puts(out, line);
		return "preview minSdkVersion";
	}
	if (sdk > 0 && apk->min_sdk > sdk) {
		snprintf(line, sizeof(line),
		         "Failure [INSTALL_FAILED_OLDER_SDK: Failed parse during installPackageLI: "
		         "/data/app/vmdl1418865208.tmp/base.apk (at Binary XML file line #7): Requires newer sdk version "
		         "#%ld (current version is #%ld)]\n",
		         apk->min_sdk, sdk);
		vd_buf_puts(out, line);
		return "minSdkVersion";
	}
	if (apk->has_cert && vd_app_is_installed(d->app, pkg))
		for (int i = 0; i < d->n_certs; i++)
			if (strcmp(d->certs[i].pkg, pkg) == 0 && d->certs[i].crc != apk->cert_crc) {
				snprintf(line, sizeof(line),
				         "Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package %s signatures do not match "
				         "previously installed version; ignoring!]\n",
				         pkg);
				vd_buf_puts(out, line);
				return "signature";
			}
	if (apk->n_abis > 0) {
		bool any = false;
		for (int i = 0; i < apk->n_abis && !any; i++)
			any = device_runs_abi(d, apk->abis[i]);
		if (!any) {
			vd_buf_puts(out, "Failure [INSTALL_FAILED_NO_MATCHING_ABIS: INSTALL_FAILED_NO_MATCHING_ABIS: Failed to "
			                 "extract native libraries, res=-113]\n");
			return "ABI";
		}
	}
	return NULL;
}

int vd_install_bytes(struct vd_device *d, const char *data, size_t len, struct vd_buf *out)
{
	/* A file starting with "vdevice-package: <name>" installs that package; anything else installs the app. */
	const char *pkg = vd_app_main_package(d->app);
	char *named = NULL;
	static const char marker[] = "vdevice-package:";
	bool marked = false;
	if (len > sizeof(marker) && memcmp(data, marker, sizeof(marker) - 1) == 0) {
		marked = true;
		const char *p = data + sizeof(marker) - 1, *end = data + (len < 300 ? len : 300);
		while (p < end && *p == ' ')
			p++;
		const char *e = p;
		while (e < end && (isalnum((unsigned char)*e) || *e == '.' || *e == '_'))
			e++;
		if (e > p)
			pkg = named = vd_strndup(p, (size_t)(e - p));
	} else if ((named = vd_apk_package(data, len))) {
		pkg = named; /* a real APK installs the package its manifest declares */
	}
	if (len == 0) {
		vd_buf_puts(out,
		            "Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/vmdl.tmp/base.apk]\n");
		free(named);
		return 1;
	}
	/* what the package manager checks, in its order: the SDK level, the signature, the native ABIs */
	struct vd_apk_info apk;
	bool is_apk = !marked && vd_apk_read(data, len, &apk);
	if (is_apk && pkg) {
		const char *refusal = install_refusal(d, pkg, &apk, out);
		if (refusal) {
			vd_log("install of %s refused: %s", pkg, refusal);
			free(named);
			return 1;
		}
	}
	bool ok = pkg && vd_app_install(d->app, d, pkg);
	if (ok && is_apk && apk.has_cert)
		remember_cert(d, pkg, apk.cert_crc);
	vd_buf_puts(out, ok ? "Success\n" : "Failure [INSTALL_FAILED_INTERNAL_ERROR]\n");
	free(named);
	return ok ? 0 : 1;
}

static int c_pm(struct vd_cmd *c)
{
	int i = strcmp(c->argv[0], "cmd") == 0 ? 2 : 1;
	if (i >= c->argc) {
		ERR(c, "Package manager (package) commands:\n  list packages\n  path PACKAGE\n  clear PACKAGE\n"
		       "  install PATH\n  uninstall PACKAGE\n");
		return 1;
	}
	const char *sub = c->argv[i++];
	const char *pkg = NULL;
	for (int k = i; k < c->argc; k++)
		if (c->argv[k][0] != '-') {
			pkg = c->argv[k];
			break;
		} else if (strcmp(c->argv[k], "--user") == 0) {
			k++;
		}
	if (strcmp(sub, "list") == 0 && i < c->argc && strcmp(c->argv[i], "packages") == 0)
		return pm_list(c, i + 1);
	if (strcmp(sub, "path") == 0) {
		if (!pkg || !vd_app_is_installed(c->d->app, pkg))
			return 1;
		if (is_system_package(pkg))
			OUT(c, "package:/system/app/%s/%s.apk\n", pkg, pkg);
		else
			OUT(c, "package:/data/app/~~vd4Qx1A2b3C==/%s-Zm9vYmFy==/base.apk\n", pkg);
		return 0;
	}
	if (strcmp(sub, "clear") == 0) {
		if (!pkg || !vd_app_is_installed(c->d->app, pkg)) {
			OUT(c, "Failed\n");
			return 1;
		}
		vd_app_clear_data(c->d->app, c->d, pkg);
		OUT(c, "Success\n");
		return 0;
	}
	if (strcmp(sub, "uninstall") == 0) {
		bool ok = pkg && vd_app_uninstall(c->d->app, c->d, pkg);
		OUT(c, ok ? "Success\n" : "Failure [DELETE_FAILED_INTERNAL_ERROR]\n");
		return ok ? 0 : 1;
	}
	if (strcmp(sub, "install") == 0) {
		struct vd_file *f = pkg ? vd_fs_get(&c->d->fs, pkg) : NULL;
		if (!f) {
			ERR(c, "Error: Can't open file: %s\n", pkg ? pkg : "");
			OUT(c,
			    "Exception occurred while executing 'install':\njava.lang.IllegalArgumentException: Error: "
			    "Can't "
			    "open file: %s\n",
			    pkg ? pkg : "");
			return 255;
		}
		return vd_install_bytes(c->d, f->data, f->len, c->out);
	}
	if (strcmp(sub, "resolve-activity") == 0) {
		const char *comp = pkg ? vd_app_launcher_component(c->d->app, pkg) : NULL;
		if (!comp) {
			OUT(c, "No activity found\n");
			return 0;
		}
		OUT(c, "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n%s\n", comp);
		return 0;
	}
	ERR(c, "Unknown command: %s\n", sub);
	return 255;
}

static int c_cmd(struct vd_cmd *c)
{
	if (c->argc >= 2 && strcmp(c->argv[1], "package") == 0)
		return c_pm(c);
	if (c->argc >= 2 && strcmp(c->argv[1], "activity") == 0) {
		c->argv++;
		c->argc--;
		int r = c_am(c);
		c->argv--;
		c->argc++;
		return r;
	}
	if (c->argc >= 3 && strcmp(c->argv[1], "connectivity") == 0 && strcmp(c->argv[2], "airplane-mode") == 0) {
		if (c->argc == 3) {
			OUT(c, "%s\n", c->d->airplane ? "enabled" : "disabled");
			return 0;
		}
		if (strcmp(c->argv[3], "enable") != 0 && strcmp(c->argv[3], "disable") != 0) {
			ERR(c, "Invalid argument: %s\n", c->argv[3]);
			return 255;
		}
		c->d->airplane = strcmp(c->argv[3], "enable") == 0;
		vd_device_log(c->d, 'I', "ConnectivityService", "Airplane mode %s", c->d->airplane ? "enabled" : "disabled");
		return 0;
	}
	if (c->argc < 2) {
		ERR(c, "cmd: no service specified; use -l to list all services\n");
		return 20;
	}
	ERR(c, "cmd: Can't find service: %s\n", c->argv[1]);
	return 20;
}

/* ---- dumpsys / wm / settings / logcat --------------------------------------------------- */

/* Rewrites the rotation lines of a `dumpsys window` text for the current user_rotation (sizes swap at 90/270). */
static void rotate_window_dump(struct vd_device *d, struct vd_buf *b)
{
	if (d->user_rotation == 0 || !b->data)
		return;
	struct vd_buf o = {0};
	char rot[16], cur[48], want[48];
	snprintf(rot, sizeof(rot), "ROTATION_%d", d->user_rotation * 90);
	snprintf(cur, sizeof(cur), "cur=%dx%d", VD_SCREEN_W, VD_SCREEN_H);
	if (d->user_rotation % 2)
		snprintf(want, sizeof(want), "cur=%dx%d", VD_SCREEN_H, VD_SCREEN_W);
	else
		snprintf(want, sizeof(want), "%s", cur);
	const char *p = b->data, *end = b->data + b->len;
	while (p < end) {
		const char *r = strstr(p, "ROTATION_0"), *c = strstr(p, cur);
		const char *n = r && (!c || r < c) ? r : c;
		if (!n) {
			vd_buf_append(&o, p, (size_t)(end - p));
			break;
		}
		vd_buf_append(&o, p, (size_t)(n - p));
		if (n == r) {
			vd_buf_puts(&o, rot);
			p = n + strlen("ROTATION_0");
		} else {
			vd_buf_puts(&o, want);
			p = n + strlen(cur);
		}
	}
	vd_buf_free(b);
	*b = o;
}

static int c_dumpsys(struct vd_cmd *c)
{
	struct vd_buf b = {0};
	const char *svc = c->argc > 1 ? c->argv[1] : "";
	if (strcmp(svc, "window") == 0) {
		vd_app_dumpsys_window(c->d->app, &b);
		rotate_window_dump(c->d, &b);
	} else if (strcmp(svc, "location") == 0) {
		vd_buf_puts(&b, "Location Manager State:\n  Location Settings:\n    Location Enabled: true\n"
		                "  Last Known Locations:\n");
		if (c->d->geo_set)
			vd_buf_printf(&b, "    gps: Location[gps %s,%s hAcc=5.0 et=+1m0s0ms alt=0.0 vAcc=0.5]\n", c->d->geo_lat,
			              c->d->geo_lon);
	} else if (strcmp(svc, "activity") == 0) {
		vd_app_dumpsys_activities(c->d->app, &b);
	} else if (strcmp(svc, "input_method") == 0) {
		vd_app_dumpsys_input_method(c->d->app, &b);
	} else if (strcmp(svc, "package") == 0 && c->argc > 2) {
		vd_app_dumpsys_package(c->d->app, c->argv[c->argc - 1], &b);
	} else if (strcmp(svc, "gfxinfo") == 0) {
		const char *fg, *act;
		vd_app_foreground(c->d->app, &fg, &act);
		const char *pkg = c->argc > 2 ? c->argv[2] : NULL;
		if (c->d->animating)
			c->d->frames += 2;
		vd_buf_puts(&b, "Applications Graphics Acceleration Info:\nUptime: 8123456 Realtime: 8123456\n");
		if (!pkg || strcmp(pkg, fg) == 0) {
			long janky = c->d->frames / 20;
			vd_buf_printf(&b,
			              "\n** Graphics info for pid 4242 [%s] **\n\nStats since: 8000000000000ns\n"
			              "Total frames rendered: %ld\nJanky frames: %ld (%.2f%%)\n"
			              "50th percentile: 7ms\n90th percentile: 11ms\n95th percentile: 14ms\n"
			              "99th percentile: 25ms\nNumber Missed Vsync: 0\nNumber High input latency: 0\n"
			              "Number Slow UI thread: %ld\nNumber Slow bitmap uploads: 0\nNumber Slow issue draw commands: 0\n",
			              fg, c->d->frames, janky, c->d->frames ? 100.0 * (double)janky / (double)c->d->frames : 0.0,
			              janky);
			/* the app's visible window, as "Profile data in ms" lists each ViewRootImpl */
			vd_buf_printf(&b, "\nProfile data in ms:\n\n\t%s/%s/android.view.ViewRootImpl@5f0e7b1 (visibility=0)\n"
			                  "\nView hierarchy:\n\n  %s/%s/android.view.ViewRootImpl@5f0e7b1\n  24 views, 21.50 kB of "
			                  "render nodes\n\nTotal ViewRootImpl   : 1\n",
			              fg, act, fg, act);
		} else {
			vd_buf_printf(&b, "\nNo process found for: %s\n", pkg);
		}
	} else if (strcmp(svc, "battery") == 0) {
		vd_buf_puts(&b,
		            "Current Battery Service state:\n  AC powered: true\n  USB powered: false\n  status: 2\n"
		            "  health: 2\n  present: true\n  level: 100\n  scale: 100\n  voltage: 5000\n"
		            "  temperature: 250\n  technology: Li-ion\n");
	} else if (svc[0]) {
		ERR(c, "Can't find service: %s\n", svc);
		return 0;
	} else {
		vd_buf_puts(
		    &b, "Currently running services:\n  activity\n  battery\n  input_method\n  location\n  package\n"
		        "  window\n");
	}
	vd_buf_append(c->out, b.data, b.len);
	vd_buf_free(&b);
	return 0;
}

static int c_wm(struct vd_cmd *c)
{
	const char *sub = c->argc > 1 ? c->argv[1] : "";
	if (strcmp(sub, "size") == 0) {
		int w, h;
		char x;
		if (c->argc > 2 && strcmp(c->argv[2], "reset") == 0) {
			c->d->override_w = c->d->override_h = 0;
			return 0;
		}
		if (c->argc > 2) {
			if (sscanf(c->argv[2], "%d%c%d", &w, &x, &h) != 3 || x != 'x' || w < 1 || h < 1 || w > 10000 ||
			    h > 10000) {
				ERR(c, "Error: bad size %s\n", c->argv[2]);
				return 255;
			}
			c->d->override_w = w;
			c->d->override_h = h;
			return 0;
		}
		OUT(c, "Physical size: %dx%d\n", VD_SCREEN_W, VD_SCREEN_H);
		if (c->d->override_w > 0)
			OUT(c, "Override size: %dx%d\n", c->d->override_w, c->d->override_h);
		return 0;
	}
	if (strcmp(sub, "density") == 0) {
		OUT(c, "Physical density: %d\n", VD_DENSITY);
		return 0;
	}
	if (strcmp(sub, "dismiss-keyguard") == 0)
		return 0;
	ERR(c, "Window manager (window) commands:\n  size [reset|WxH|WdpxHdp]\n  density [reset|DENSITY]\n");
	return sub[0] ? 255 : 0;
}

/* A minimal, structurally valid MP4: ftyp, moov (mvhd) and an empty mdat. */
static void put_be32(struct vd_buf *b, uint32_t v)
{
	unsigned char x[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
	                      (unsigned char)v};
	vd_buf_append(b, (const char *)x, 4);
}

static void mp4_file(struct vd_buf *b, uint32_t duration_ms)
{
	put_be32(b, 24);
	vd_buf_append(b, "ftypisom", 8);
	put_be32(b, 0x200);
	vd_buf_append(b, "isomiso2", 8);
	put_be32(b, 8 + 108);
	vd_buf_append(b, "moov", 4);
	put_be32(b, 108);
	vd_buf_append(b, "mvhd", 4);
	put_be32(b, 0);    /* version + flags */
	put_be32(b, 0);    /* creation time */
	put_be32(b, 0);    /* modification time */
	put_be32(b, 1000); /* timescale */
	put_be32(b, duration_ms);
	put_be32(b, 0x00010000); /* rate 1.0 */
	put_be32(b, 0x01000000); /* volume 1.0 + reserved */
	put_be32(b, 0);
	put_be32(b, 0);
	static const uint32_t matrix[9] = {0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000};
	for (int i = 0; i < 9; i++)
		put_be32(b, matrix[i]);
	for (int i = 0; i < 6; i++)
		put_be32(b, 0); /* pre-defined */
	put_be32(b, 1);         /* next track id */
	put_be32(b, 8);
	vd_buf_append(b, "mdat", 4);
}

static int c_screenrecord(struct vd_cmd *c)
{
	const char *path = NULL;
	long limit = 180;
	for (int i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--time-limit") == 0 && i + 1 < c->argc) {
			if (!vd_shell_parse_number(c->argv[++i], &limit) || limit < 1 || limit > 180) {
				ERR(c, "Invalid time limit %s\n", c->argv[i]);
				return 2;
			}
		} else if ((strcmp(a, "--bit-rate") == 0 || strcmp(a, "--size") == 0) && i + 1 < c->argc) {
			i++;
		} else if (a[0] == '-' && a[1]) {
			if (strcmp(a, "--verbose") != 0 && strcmp(a, "--bugreport") != 0) {
				ERR(c, "Unknown option %s\n", a);
				return 2;
			}
		} else {
			path = a;
		}
	}
	if (!path) {
		ERR(c, "Must specify output file (see --help).\n");
		return 2;
	}
	if (!vd_fs_writable(path)) {
		ERR(c, "Unable to open '%s': Permission denied\n", path);
		return 1;
	}
	/* Time does not pass here: the recording ends at once, as if stopped right away. */
	struct vd_buf mp4 = {0};
	mp4_file(&mp4, 1000);
	bool ok = vd_fs_put(&c->d->fs, path, mp4.data, mp4.len, 0100660, (uint32_t)time(NULL));
	vd_buf_free(&mp4);
	if (!ok) {
		ERR(c, "Unable to open '%s': No space left on device\n", path);
		return 1;
	}
	c->d->recordings++;
	return 0;
}

static int c_pkill(struct vd_cmd *c)
{
	/* No long-running process survives on the virtual device: nothing ever matches. */
	if (c->argc < 2) {
		ERR(c, "usage: pkill [-SIGNAL] NAME\n");
		return 2;
	}
	return 1;
}

static int c_settings(struct vd_cmd *c)
{
	int i = 1;
	if (i + 1 < c->argc && strcmp(c->argv[i], "--user") == 0)
		i += 2;
	if (c->argc - i < 3) {
		ERR(c, "usage:  settings [--user <USER_ID> | current] get namespace key\n"
		       "        settings [--user <USER_ID> | current] put namespace key value\n");
		return 255;
	}
	const char *op = c->argv[i], *ns = c->argv[i + 1], *key = c->argv[i + 2];
	if (strcmp(ns, "global") != 0 && strcmp(ns, "system") != 0 && strcmp(ns, "secure") != 0) {
		ERR(c, "Invalid namespace '%s'\n", ns);
		return 255;
	}
	bool airplane = strcmp(key, "airplane_mode_on") == 0;
	bool user_rot = strcmp(ns, "system") == 0 && strcmp(key, "user_rotation") == 0;
	bool accel = strcmp(ns, "system") == 0 && strcmp(key, "accelerometer_rotation") == 0;
	if (strcmp(op, "get") == 0) {
		if (airplane)
			OUT(c, "%d\n", c->d->airplane ? 1 : 0);
		else if (user_rot)
			OUT(c, "%d\n", c->d->user_rotation);
		else if (accel)
			OUT(c, "%d\n", c->d->auto_rotate ? 1 : 0);
		else if (strcmp(key, "development_settings_enabled") == 0 || strcmp(key, "adb_enabled") == 0)
			OUT(c, "1\n");
		else
			OUT(c, "null\n");
		return 0;
	}
	if (strcmp(op, "put") == 0 && c->argc - i >= 4) {
		if (airplane) {
			c->d->airplane = strcmp(c->argv[i + 3], "1") == 0;
			vd_device_log(c->d, 'I', "ConnectivityService", "Airplane mode %s",
			              c->d->airplane ? "enabled" : "disabled");
		} else if (user_rot || accel) {
			long v;
			if (!vd_shell_parse_number(c->argv[i + 3], &v) || v < 0 || (user_rot && v > 3) || (accel && v > 1)) {
				ERR(c, "Invalid value for %s: %s\n", key, c->argv[i + 3]);
				return 255;
			}
			if (user_rot)
				c->d->user_rotation = (int)v;
			else
				c->d->auto_rotate = v == 1;
			vd_device_log(c->d, 'I', "WindowManager", "%s=%ld", key, v);
		}
		return 0;
	}
	ERR(c, "Invalid command: %s\n", op);
	return 255;
}

static int c_logcat(struct vd_cmd *c)
{
	bool dump = false;
	long tail = -1;
	const char *since = NULL;
	for (int i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "-c") == 0) {
			vd_buf_reset(&c->d->logcat);
			return 0;
		}
		if (strcmp(a, "-d") == 0)
			dump = true;
		else if ((strcmp(a, "-t") == 0 || strcmp(a, "-T") == 0) && i + 1 < c->argc) {
			dump = true;
			const char *v = c->argv[++i];
			if (strchr(v, ':')) {
				/* 'MM-DD hh:mm:ss.mmm': the lines since that time (the buffer is in time order) */
				if (strlen(v) < 14 || v[2] != '-' || v[5] != ' ') {
					ERR(c, "unknown time format: %s\n", v);
					return 1;
				}
				since = v;
			} else if (!vd_shell_parse_number(v, &tail)) {
				tail = -1;
			}
		} else if ((strcmp(a, "-v") == 0 || strcmp(a, "-b") == 0 || strcmp(a, "--pid") == 0) && i + 1 < c->argc)
			i++;
	}
	if (!dump) {
		/* A streaming logcat would never end on a device; print what exists and stop. */
		dump = true;
	}
	const char *p = c->d->logcat.data ? c->d->logcat.data : "";
	if (since) {
		size_t n = strlen(since) < 18 ? strlen(since) : 18;
		while (*p && strncmp(p, since, n) < 0) {
			const char *nl = strchr(p, '\n');
			p = nl ? nl + 1 : p + strlen(p);
		}
	}
	if (tail >= 0) {
		/* keep the last @tail lines: walk back over that many line ends */
		const char *q = p + c->d->logcat.len;
		long seen = 0;
		while (q > p && seen <= tail) {
			q--;
			if (*q == '\n' && ++seen > tail)
				q++;
		}
		p = q;
	}
	OUT(c, "--------- beginning of main\n%s", p);
	return 0;
}

static int c_svc(struct vd_cmd *c)
{
	/* svc wifi|data enable|disable: accepted silently, like on a device */
	if (c->argc < 3) {
		ERR(c, "Available commands:\n    help     Show information about the subcommands\n    power    Control "
		       "the "
		       "power manager\n    data     Control mobile data connectivity\n    wifi     Control the Wi-Fi "
		       "manager\n");
		return 1;
	}
	return 0;
}

static int c_reboot(struct vd_cmd *c)
{
	c->d->drop_connections = true;
	return 0;
}

static int c_ps(struct vd_cmd *c)
{
	const char *pkg, *act;
	vd_app_foreground(c->d->app, &pkg, &act);
	OUT(c,
	    "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n"
	    "root             1     0 10782796 9800 do_epoll_wait      0 S init\n"
	    "system         512     1 14893212 198220 do_epoll_wait    0 S system_server\n"
	    "u0_a163       4242   340 14006060 112012 do_epoll_wait    0 S %s\n",
	    pkg);
	return 0;
}

static int c_pidof(struct vd_cmd *c)
{
	const char *pkg, *act;
	vd_app_foreground(c->d->app, &pkg, &act);
	if (c->argc > 1 && strcmp(c->argv[c->argc - 1], pkg) == 0) {
		OUT(c, "4242\n");
		return 0;
	}
	return 1;
}

static const struct {
	const char *name;
	int (*fn)(struct vd_cmd *c);
} commands[] = {
    {"echo", c_echo},
    {"date", c_date},
    {"true", c_true},
    {"false", c_false},
    {"id", c_id},
    {"whoami", c_whoami},
    {"sleep", c_sleep},
    {"getprop", c_getprop},
    {"setprop", c_setprop},
    {"cat", c_cat},
    {"ls", c_ls},
    {"rm", c_rm},
    {"mkdir", c_mkdir},
    {"touch", c_touch},
    {"grep", c_grep},
    {"head", c_head_tail},
    {"tail", c_head_tail},
    {"wc", c_wc},
    {"uiautomator", c_uiautomator},
    {"screencap", c_screencap},
    {"input", c_input},
    {"am", c_am},
    {"monkey", c_monkey},
    {"pm", c_pm},
    {"cmd", c_cmd},
    {"dumpsys", c_dumpsys},
    {"wm", c_wm},
    {"settings", c_settings},
    {"logcat", c_logcat},
    {"reboot", c_reboot},
    {"ps", c_ps},
    {"pidof", c_pidof},
    {"svc", c_svc},
    {"screenrecord", c_screenrecord},
    {"pkill", c_pkill},
};

int vd_command_run(struct vd_cmd *c)
{
	const char *name = c->argv[0];
	const char *base = strrchr(name, '/');
	if (base && (strncmp(name, "/system/bin/", 12) == 0 || strncmp(name, "/system/xbin/", 13) == 0))
		name = base + 1;
	size_t before = c->out->len + c->err->len;
	int status = -1;
	for (size_t i = 0; i < VD_ARRAY_SIZE(commands) && status < 0; i++)
		if (strcmp(commands[i].name, name) == 0)
			status = commands[i].fn(c);
	if (status < 0)
		status = not_found(c);
	vd_latency_charge(c->d, c->argc, c->argv, c->out->len + c->err->len - before);
	return status;
}
