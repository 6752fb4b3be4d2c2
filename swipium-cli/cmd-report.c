/* cmd-report.c: `swipium report`: render a saved QA report for CI and apply the release gate. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char REPORT_USAGE[] =
    "Usage: swipium report --format junit|sarif|github-summary|markdown|json\n"
    "                      [--latest | --session <id> | --report <file>] [--root <dir>]\n"
    "                      [--out <file>] [--fail-on-gate]\n"
    "\n"
    "Renders the report JSON a Swipium QA run saved, for CI. No device is needed.\n"
    "\n"
    "  --format <fmt>    junit, sarif, github-summary, markdown or json (required)\n"
    "  --root <dir>      project root the run used (default: the current directory)\n"
    "  --latest          the newest session of the project that has a report (default)\n"
    "  --session <id>    the report of that session\n"
    "  --report <file>   render this report JSON file instead of looking up a session\n"
    "  --out <file>      write to this file (parent directories are created) instead of stdout\n"
    "  --fail-on-gate    exit 1 when the release-gate policy (.swipium/policy.json) blocks\n"
    "  -h, --help        show this help\n"
    "\n"
    "The line `Release gate: PASS|BLOCK: <reason>` always goes to stderr.\n"
    "Exit status: 0 written; 1 gate blocked with --fail-on-gate; 2 usage error or no report.\n";

typedef struct report_args {
	const char *format, *root, *session, *report, *out;
	int fail_on_gate, help;
	char *error;
} report_args;

static const char *const value_flags[] = {"--format", "--root", "--session", "--report", "--out"};

static const char **value_slot(report_args *a, const char *flag, size_t len)
{
	const char **slots[] = {&a->format, &a->root, &a->session, &a->report, &a->out};
	for (size_t i = 0; i < sizeof(value_flags) / sizeof(value_flags[0]); i++)
		if (strlen(value_flags[i]) == len && !strncmp(flag, value_flags[i], len))
			return slots[i];
	return NULL;
}

static void set_error(report_args *a, char *msg)
{
	if (!a->error)
		a->error = msg;
	else
		free(msg);
}

/* "<prefix><arg><suffix>" in a fresh string. */
static char *format_msg(const char *prefix, const char *arg, const char *suffix)
{
	size_t n = strlen(prefix) + strlen(arg) + strlen(suffix) + 1;
	char *m = malloc(n);
	if (m)
		snprintf(m, n, "%s%s%s", prefix, arg, suffix);
	return m;
}

static void parse_args(report_args *a, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *t = argv[i];
		const char *eq = strncmp(t, "--", 2) == 0 ? strchr(t, '=') : NULL;
		const char **slot;
		if (!strcmp(t, "-h") || !strcmp(t, "--help")) {
			a->help = 1;
		} else if (!strcmp(t, "--latest")) {
			a->session = NULL;
		} else if (!strcmp(t, "--fail-on-gate")) {
			a->fail_on_gate = 1;
		} else if (eq && (slot = value_slot(a, t, (size_t)(eq - t)))) {
			*slot = eq + 1;
		} else if ((slot = value_slot(a, t, strlen(t)))) {
			if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)
				set_error(a, format_msg("", t, " needs a value"));
			else
				*slot = argv[++i];
		} else {
			set_error(a, format_msg("Unknown argument: ", t, ""));
		}
	}
}

/* Prints untrusted text on a terminal line: control characters become '?' so they cannot drive the terminal. */
/* Bytes of a C1 control (U+0080..U+009F, e.g. U+009B CSI) in UTF-8 at s, else 0. */
static size_t c1_control(const unsigned char *s)
{
	return s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F ? 2 : 0;
}

static void put_safe(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (c1_control((const unsigned char *)s)) {
			fputc('?', f);
			s++;
			continue;
		}
		fputc(((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s, f);
	}
}

/*
 * What a terminal gets: a report is untrusted text, so every control character that could drive the
 * terminal (ESC and so every escape sequence, CR, BEL, backspace, DEL, the C1 controls such as CSI)
 * is shown as U+FFFD; newlines and tabs stay. Files and pipes get the bytes unchanged.
 */
static char *tty_safe(const char *s, size_t len, size_t *out_len)
{
	char *out = malloc(len * 3 + 1), *o = out;
	if (!out)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len; i++) {
		size_t c1 = i + 1 < len ? c1_control(p + i) : 0;
		if (c1 || (p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f) {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
			i += c1 ? c1 - 1 : 0;
		} else {
			*o++ = (char)p[i];
		}
	}
	*o = '\0';
	*out_len = (size_t)(o - out);
	return out;
}

static int usage_error(const char *msg)
{
	fprintf(stderr, "%s\n\n%s", msg, REPORT_USAGE);
	return CLI_EXIT_USAGE;
}

static int fail(sw_error *err)
{
	fprintf(stderr, "%s\n", sw_error_message(err));
	sw_error_free(err);
	return CLI_EXIT_USAGE;
}

/* path.resolve(cwd, path): absolute, with "." and ".." segments folded and no trailing slash. */
static char *absolute(const char *cwd, const char *path)
{
	size_t n = strlen(cwd) + strlen(path) + 3;
	char *joined = malloc(n), *out = malloc(n);
	if (!joined || !out) {
		free(joined);
		free(out);
		return NULL;
	}
	snprintf(joined, n, "%s/%s", path[0] == '/' ? "" : cwd, path);
	size_t len = 0;
	char *save = NULL;
	for (char *part = strtok_r(joined, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (!strcmp(part, "."))
			continue;
		if (!strcmp(part, "..")) {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			continue;
		}
		out[len++] = '/';
		size_t pl = strlen(part);
		memcpy(out + len, part, pl);
		len += pl;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	free(joined);
	return out;
}

int cmd_report(int argc, char **argv)
{
	report_args a = {0};
	sw_error *err = NULL;
	sw_report *report = NULL;
	char *cwd = NULL, *root = NULL, *path = NULL, *out_path = NULL, *body = NULL, *gate = NULL, *reason = NULL;
	size_t len = 0;
	int block = 0, rc = CLI_EXIT_USAGE;
	sw_report_format format;

	parse_args(&a, argc, argv);
	if (a.help) {
		fputs(REPORT_USAGE, stdout);
		free(a.error);
		return CLI_EXIT_OK;
	}
	if (a.error) {
		rc = usage_error(a.error);
		free(a.error);
		return rc;
	}
	if (!a.format || !*a.format)
		return usage_error("--format is required");
	if (sw_report_format_parse(a.format, &format) != SW_OK) {
		char *m = format_msg("Unknown --format \"", a.format, "\"");
		rc = usage_error(m ? m : "Unknown --format");
		free(m);
		return rc;
	}

	cwd = getcwd(NULL, 0);
	if (!cwd) {
		fprintf(stderr, "swipium report: cannot read the current directory: %s\n", strerror(errno));
		return CLI_EXIT_USAGE;
	}
	root = absolute(cwd, a.root && *a.root ? a.root : ".");
	if (!root)
		goto oom;
	if (a.report) {
		path = absolute(cwd, a.report);
		if (!path)
			goto oom;
	} else if (sw_report_find(NULL, root, a.session, &path, &err) != SW_OK) {
		rc = fail(err);
		goto out;
	}
	if (sw_report_load_file(path, &report, &err) != SW_OK) {
		rc = fail(err);
		goto out;
	}
	sw_report_render_options opts = SW_REPORT_RENDER_OPTIONS_INIT;
	opts.project_root = root;
	if (sw_report_render(report, format, &opts, &body, &len, &gate, &err) != SW_OK ||
	    sw_report_gate_verdict(gate, &block, &reason, &err) != SW_OK) {
		rc = fail(err);
		goto out;
	}
	if (len == 0 || body[len - 1] != '\n') {
		/* The body comes from the library; append the final newline in a copy of our own. */
		char *nb = malloc(len + 2);
		if (!nb)
			goto oom;
		memcpy(nb, body, len);
		nb[len++] = '\n';
		nb[len] = '\0';
		sw_free(body);
		body = nb;
	}
	if (a.out) {
		out_path = absolute(cwd, a.out);
		if (!out_path)
			goto oom;
		if (sw_file_write_atomic(out_path, body, len, SW_WRITE_MKDIRS | SW_WRITE_SHARED, &err) != SW_OK) {
			fprintf(stderr, "Could not write %s: %s\n", out_path, sw_error_message(err));
			sw_error_free(err);
			goto out;
		}
		const char *sid = sw_report_session_id(report);
		fprintf(stderr, "Wrote %s for session ", a.format);
		put_safe(stderr, sid ? sid : "undefined");
		fprintf(stderr, " > %s\n", out_path);
	} else {
		if (isatty(STDOUT_FILENO)) {
			size_t n = 0;
			char *safe = tty_safe(body, len, &n);
			if (!safe)
				goto oom;
			free(body);
			body = safe;
			len = n;
		}
		if (fwrite(body, 1, len, stdout) != len || fflush(stdout) != 0) {
			fprintf(stderr, "swipium report: cannot write to stdout: %s\n", strerror(errno));
			goto out;
		}
	}
	fprintf(stderr, "Release gate: %s: ", block ? "BLOCK" : "PASS");
	put_safe(stderr, reason);
	fputc('\n', stderr);
	rc = a.fail_on_gate && block ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	goto out;
oom:
	fprintf(stderr, "swipium report: out of memory\n");
	rc = CLI_EXIT_USAGE;
out:
	sw_report_free(report);
	free(body);
	sw_free(gate);
	sw_free(reason);
	sw_free(path);
	free(cwd);
	free(root);
	free(out_path);
	return rc;
}
