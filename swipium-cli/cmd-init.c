/* cmd-init.c: `swipium init <claude|codex|gemini|cursor|vscode>`: register swipium-mcp with an MCP client. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"

int cmd_verify(int argc, char **argv);

/* Team-shared files name the program; machine-local registrations use the absolute path. */
#define PORTABLE_COMMAND "swipium-mcp"


/* The core groups (start, setup, build, drive, run) plus eight extras, for Codex's enabled_tools. */
static const char *const codex_core_tools[] = {"qa_test_this",
                                               "qa_status",
                                               "qa_job_status",
                                               "qa_job_cancel",
                                               "qa_explain_blocker",
                                               "qa_continue_from_blocker",
                                               "qa_get_artifact",
                                               "qa_doctor",
                                               "qa_start_session",
                                               "qa_prepare_target",
                                               "qa_prepare_ios_target",
                                               "qa_ios",
                                               "qa_wda",
                                               "qa_resolve_target",
                                               "qa_resolve_artifact",
                                               "qa_build",
                                               "qa_bundletool",
                                               "qa_snapshot",
                                               "qa_inspect",
                                               "qa_act",
                                               "qa_clear_overlay",
                                               "qa_check_health",
                                               "qa_screenshot",
                                               "qa_note",
                                               "qa_visual",
                                               "qa_wait",
                                               "qa_smoke",
                                               "qa_explore",
                                               "qa_report",
                                               "qa_metro",
                                               "qa_app_control",
                                               "qa_app_map_read",
                                               "qa_app_map_query",
                                               "qa_app_map_feature_scope",
                                               "qa_test_feature",
                                               "qa_flow_run",
                                               "qa_generate",
                                               NULL};

static void usage(FILE *f)
{
	fprintf(f, "Usage: swipium init <claude|codex|gemini|cursor|vscode> [--apply] [--scope local|user|project]\n"
	           "                    [--cwd <app dir>]\n"
	           "       swipium init flows [--root <dir>] [--force]   starter flows in .swipium/flows/\n"
	           "Registers swipium-mcp with an MCP client. Without --apply it only shows what it would do.\n"
	           "  --apply          make the change, then run swipium verify\n"
	           "  --scope          local (default), user or project (project writes a team-shared file that\n"
	           "                   names swipium-mcp instead of an absolute path)\n"
	           "  --cwd <dir>      the app repository (default: the current directory)\n");
}

static char *json_quote(const char *s)
{
	json_t *j = json_string(s);
	char *out = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	return out;
}

/* Runs argv (no shell) on our terminal through the library's runner; returns its exit status, or -1 when
 * it could not start or a signal ended it. A signal sent to us while it ran (passed on to it) ends us the
 * same way afterwards, as if we had not been in between. */
static int run(char *const argv[])
{
	int code = -1, sig = 0, passed = 0;
	sw_error *err = NULL;
	if (sw_process_run_attached((const char *const *)argv, SW_PROCESS_SEARCH_PATH, &code, &sig, &passed, &err) !=
	    SW_OK) {
		sw_error_free(err);
		return -1;
	}
	if (passed && (sig == passed || code != 0)) {
		fflush(stdout);
		signal(passed, SIG_DFL);
		raise(passed);
	}
	if (sig)
		fprintf(stderr, "swipium init: %s was ended by signal %d\n", argv[0], sig);
	return code == 127 ? -1 : code;
}

static void print_argv(char *const argv[])
{
	for (int i = 0; argv[i]; i++) {
		bool plain = strcspn(argv[i], " \t\"'$\\") == strlen(argv[i]) && argv[i][0];
		if (plain)
			printf("%s%s", i ? " " : "", argv[i]);
		else {
			char *q = json_quote(argv[i]);
			printf("%s%s", i ? " " : "", q ? q : argv[i]);
			free(q);
		}
	}
	printf("\n");
}

static int init_claude(const char *scope, const char *cmd, bool apply)
{
	char *argv[10]; /* claude mcp add swipium [--scope S] -- CMD, and the NULL: 9 at most */
	int n = 0;
	argv[n++] = "claude";
	argv[n++] = "mcp";
	argv[n++] = "add";
	argv[n++] = "swipium";
	char scope_arg[40];
	if (strcmp(scope, "local") != 0) {
		argv[n++] = "--scope";
		snprintf(scope_arg, sizeof(scope_arg), "%s", scope);
		argv[n++] = scope_arg;
	}
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	if (!apply) {
		printf("Would run:\n  ");
		print_argv(argv);
		return CLI_EXIT_OK;
	}
	int rc = run(argv);
	if (rc != 0) {
		printf("Could not run the claude CLI (%s). Run this yourself:\n  ", rc < 0 ? "not found" : "it failed");
		print_argv(argv);
		return CLI_EXIT_FAIL;
	}
	printf("Registered swipium with Claude Code (%s scope).\n", scope);
	return CLI_EXIT_OK;
}

static int init_gemini(const char *scope, const char *cmd, const char *cwd, bool apply)
{
	const char *gscope = !strcmp(scope, "user") ? "user" : "project";
	char *argv[] = {"gemini", "mcp", "add", "--scope", (char *)gscope, "swipium", (char *)cmd, NULL};
	json_t *entry = !strcmp(gscope, "user")
	                    ? json_pack("{s:s,s:[],s:s,s:i}", "command", cmd, "args", "cwd", cwd, "timeout", 600000)
	                    : json_pack("{s:s,s:[],s:i}", "command", cmd, "args", "timeout", 600000);
	json_t *doc = json_pack("{s:{s:o}}", "mcpServers", "swipium", entry);
	char *snippet = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	int rc = CLI_EXIT_OK;
	if (!apply) {
		printf("Would run:\n  ");
		print_argv(argv);
	} else if (run(argv) != 0) {
		printf("Could not run the gemini CLI. Add this to %s:\n%s\n",
		       !strcmp(gscope, "user") ? "~/.gemini/settings.json"
		                               : ".gemini/settings.json in the app repository",
		       snippet ? snippet : "");
		rc = CLI_EXIT_FAIL;
	} else {
		printf("Registered swipium with Gemini CLI (%s scope).\n", gscope);
	}
	if (!apply)
		printf("Manual alternative (%s):\n%s\n",
		       !strcmp(gscope, "user") ? "~/.gemini/settings.json" : "<cwd>/.gemini/settings.json",
		       snippet ? snippet : "");
	free(snippet);
	return rc;
}

static char *codex_table(const char *cmd, const char *cwd)
{
	char *qcmd = json_quote(cmd), *qcwd = json_quote(cwd);
	size_t cap = 8192;
	char *out = malloc(cap);
	if (!out || !qcmd || !qcwd) {
		free(out);
		free(qcmd);
		free(qcwd);
		return NULL;
	}
	size_t n =
	    (size_t)snprintf(out, cap,
	                     "[mcp_servers.swipium]\n"
	                     "command = %s\n"
	                     "args = []\n"
	                     "cwd = %s\n"
	                     "startup_timeout_sec = 30\n"
	                     "tool_timeout_sec = 600\n"
	                     "# Codex passes only the variables named in env_vars to the server. Test credentials,\n"
	                     "# the Android SDK and CI metadata are read from these names; values stay in your\n"
	                     "# shell. Consent pre-approvals are deliberately not forwarded: set them in an\n"
	                     "# `env = { ... }` table if you really want them.\n"
	                     "env_vars = [",
	                     qcmd, qcwd);
	for (int i = 0; sw_client_env_vars()[i] && n < cap - 64; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s\"%s\"", i ? ", " : "", sw_client_env_vars()[i]);
	n += (size_t)snprintf(
	    out + n, cap - n,
	    "]\n# Optional: expose only the core tools to keep the tool list small.\n# enabled_tools = [");
	for (int i = 0; codex_core_tools[i] && n < cap - 64; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s\"%s\"", i ? ", " : "", codex_core_tools[i]);
	snprintf(out + n, cap - n, "]\n");
	free(qcmd);
	free(qcwd);
	return out;
}

static int init_codex(const char *cmd, const char *cwd, bool apply)
{
	const char *codex_home = getenv("CODEX_HOME");
	char *dir = NULL, *path = NULL;
	if (codex_home && *codex_home)
		dir = strdup(codex_home);
	else if (asprintf(&dir, "%s/.codex", getenv("HOME") ? getenv("HOME") : ".") < 0)
		dir = NULL;
	if (!dir || asprintf(&path, "%s/config.toml", dir) < 0) {
		free(dir);
		return CLI_EXIT_FAIL;
	}
	char *table = codex_table(cmd, cwd);
	FILE *f = fopen(path, "r");
	bool present = false, has_env = false, in_table = false;
	if (f) {
		char line[4096];
		while (fgets(line, sizeof(line), f)) {
			const char *l = line + strspn(line, " \t");
			if (l[0] == '[') {
				char hdr[256];
				snprintf(hdr, sizeof(hdr), "%s", l);
				char *hash = strchr(hdr, '#');
				if (hash)
					*hash = '\0';
				size_t e = strlen(hdr);
				while (e > 0 && strchr(" \t\r\n", hdr[e - 1]))
					hdr[--e] = '\0';
				in_table =
				    !strcmp(hdr, "[mcp_servers.swipium]") || !strcmp(hdr, "[mcp_servers.\"swipium\"]");
				present = present || in_table;
			} else if (in_table && !strncmp(l, "env_vars", 8)) {
				has_env = true;
			}
		}
		fclose(f);
	}
	int rc = CLI_EXIT_OK;
	if (present) {
		printf("Already present: [mcp_servers.swipium] in %s (left unchanged).\n", path);
		if (!has_env) {
			const char *env = strstr(table, "env_vars = [");
			const char *end = env ? strchr(env, '\n') : NULL;
			printf("It has no env_vars line; add this one to the table:\n%.*s\n",
			       env && end ? (int)(end - env) : 0, env ? env : "");
		}
	} else if (!apply) {
		printf("Would append to %s:\n\n%s\n", path, table);
	} else {
		struct stat st;
		if (stat(cwd, &st) != 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "swipium init codex: --cwd %s is not a directory\n", cwd);
			rc = CLI_EXIT_USAGE;
			goto out;
		}
		char *mk = NULL;
		if (asprintf(&mk, "%s", dir) >= 0) {
			mkdir(mk, 0700);
			free(mk);
		}
		f = fopen(path, "a");
		if (!f || fprintf(f, "\n%s", table) < 0 || fclose(f) != 0) {
			fprintf(stderr, "swipium init codex: cannot write %s: %s\n", path, strerror(errno));
			rc = CLI_EXIT_FAIL;
			goto out;
		}
		printf("Appended [mcp_servers.swipium] to %s.\n", path);
	}
	char *qcwd = json_quote(cwd);
	printf("Alternative: codex mcp add swipium --env SWIPIUM_PROJECT_ROOT=%s -- %s\n", cwd, cmd);
	printf("Note: Codex Desktop may not forward env_vars to MCP servers (openai/codex#19425); if a variable is\n"
	       "missing there, put it in an env = { ... } table instead.\n");
	free(qcwd);
out:
	free(table);
	free(dir);
	free(path);
	return rc;
}

/* ---- merging into a client's JSON config without rewriting what is there ---------------------------- */

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && strchr(" \t\r\n", s[i]) && s[i])
		i++;
	return i;
}

/* End of the JSON string starting at s[i] == '"' (one past the closing quote), or 0. */
static size_t skip_string(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return 0;
}

/* End of the JSON value starting at s[i] (the text is known to be valid JSON), or 0. */
static size_t skip_value(const char *s, size_t len, size_t i)
{
	if (i >= len)
		return 0;
	if (s[i] == '"')
		return skip_string(s, len, i);
	if (s[i] != '{' && s[i] != '[') {
		while (i < len && !strchr(",}] \t\r\n", s[i]))
			i++;
		return i;
	}
	int depth = 0;
	for (; i < len; i++) {
		if (s[i] == '"') {
			size_t e = skip_string(s, len, i);
			if (!e)
				return 0;
			i = e - 1;
		} else if (s[i] == '{' || s[i] == '[') {
			depth++;
		} else if (s[i] == '}' || s[i] == ']') {
			if (--depth == 0)
				return i + 1;
		}
	}
	return 0;
}

/* Leading whitespace of the line holding s[i]. */
static char *line_indent(const char *s, size_t i)
{
	size_t b = i;
	while (b > 0 && s[b - 1] != '\n')
		b--;
	size_t e = b;
	while (s[e] == ' ' || s[e] == '\t')
		e++;
	return strndup(s + b, e - b);
}

/*
 * Adds member "@key": @value as the last member of the object whose '{' is at s[at], in the layout of the
 * text around it (indentation of its members, or compact). The rest of the text is kept byte for byte, so
 * numbers, key order and spacing stay as written.
 */
static char *insert_member(const char *s, size_t len, size_t at, const char *key, const json_t *value)
{
	size_t end = skip_value(s, len, at);
	if (!end)
		return NULL;
	size_t close = end - 1, first = skip_ws(s, len, at + 1);
	bool empty = first == close;
	size_t last = close; /* just after the last member's value */
	while (last > at + 1 && strchr(" \t\r\n", s[last - 1]))
		last--;
	bool lines = memchr(s + at + 1, '\n', close - at - 1) != NULL || (empty && memchr(s, '\n', len));
	char *outer = line_indent(s, at), *inner = NULL;
	if (!empty && lines) {
		inner = line_indent(s, first);
	} else if (lines) {
		/* one more step than the enclosing line: the file's own step when it has one, else 2 spaces */
		size_t f0 = skip_ws(s, len, (size_t)(strchr(s, '{') - s) + 1);
		char *step = line_indent(s, f0);
		if (!step || !*step) {
			free(step);
			step = strdup("  ");
		}
		if (asprintf(&inner, "%s%s", outer ? outer : "", step) < 0)
			inner = NULL;
		free(step);
	}
	size_t unit = 2;
	if (inner && outer && strlen(inner) > strlen(outer))
		unit = strlen(inner) - strlen(outer);
	char *k = json_quote(key);
	char *v = json_dumps(value, lines ? (JSON_INDENT(unit) | JSON_PRESERVE_ORDER) : (JSON_COMPACT | JSON_PRESERVE_ORDER));
	char *out = NULL;
	if (k && v && (!lines || (inner && outer))) {
		size_t extra = 0;
		for (const char *c = v; *c; c++)
			extra += *c == '\n';
		size_t cap = len + strlen(k) + strlen(v) + (extra + 2) * (inner ? strlen(inner) : 0) +
		             (outer ? strlen(outer) : 0) + 64;
		out = malloc(cap);
		if (out) {
			size_t n = empty ? at + 1 : last;
			memcpy(out, s, n);
			if (!empty)
				out[n++] = ',';
			if (lines)
				n += (size_t)sprintf(out + n, "\n%s", inner);
			n += (size_t)sprintf(out + n, "%s:%s", k, lines ? " " : "");
			/* the value's own lines carry the member's indentation */
			for (const char *c = v; *c; c++) {
				out[n++] = *c;
				if (*c == '\n' && inner)
					n += (size_t)sprintf(out + n, "%s", inner);
			}
			size_t rest = empty ? close : last; /* between the braces of an empty object: our layout */
			if (empty && lines)
				n += (size_t)sprintf(out + n, "\n%s", outer);
			memcpy(out + n, s + rest, len - rest);
			n += len - rest;
			if (n > 0 && out[n - 1] != '\n')
				out[n++] = '\n'; /* a text file ends with a line break */
			out[n] = '\0';
		}
	}
	free(outer);
	free(inner);
	free(k);
	free(v);
	return out;
}

/* @src (a JSON object) with "swipium": @entry added to its object member @top (which is added when missing);
 * every other byte as written. NULL when the text cannot be merged that way. */
static char *merge_entry(const char *src, size_t len, const char *top, const json_t *entry)
{
	size_t i = skip_ws(src, len, 0);
	if (i >= len || src[i] != '{')
		return NULL;
	size_t root = i, top_at = 0;
	bool found = false;
	i = skip_ws(src, len, i + 1);
	while (i < len && src[i] != '}') {
		if (src[i] != '"')
			return NULL;
		size_t ke = skip_string(src, len, i);
		if (!ke)
			return NULL;
		json_t *key = json_loadb(src + i, ke - i, JSON_DECODE_ANY, NULL);
		bool match = json_is_string(key) && !strcmp(json_string_value(key), top);
		json_decref(key);
		i = skip_ws(src, len, ke);
		if (i >= len || src[i] != ':')
			return NULL;
		i = skip_ws(src, len, i + 1);
		size_t ve = skip_value(src, len, i);
		if (!ve)
			return NULL;
		if (match) {
			/* the last one wins, as it does for the parser */
			found = src[i] == '{';
			top_at = i;
			if (!found)
				return NULL;
		}
		i = skip_ws(src, len, ve);
		if (i < len && src[i] == ',')
			i = skip_ws(src, len, i + 1);
	}
	if (found)
		return insert_member(src, len, top_at, "swipium", entry);
	json_t *wrap = json_pack("{s:O}", "swipium", entry);
	char *out = wrap ? insert_member(src, len, root, top, wrap) : NULL;
	json_decref(wrap);
	return out;
}

/*
 * Where --apply writes @path: the file itself, or the target of a symbolic link when that target is a plain
 * file of this user (a config kept in a dotfiles folder), so the link stays a link. NULL (and *why) otherwise.
 */
static char *write_target(const char *path, const char **why)
{
	struct stat st;
	if (lstat(path, &st) != 0 || S_ISREG(st.st_mode))
		return strdup(path);
	if (!S_ISLNK(st.st_mode)) {
		*why = "it is not a plain file";
		return NULL;
	}
	char *real = realpath(path, NULL);
	if (!real) {
		*why = "it is a symbolic link whose target does not exist";
		return NULL;
	}
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		*why = "it is a symbolic link to something that is not a plain file of yours";
		free(real);
		return NULL;
	}
	return real;
}

static int init_json_file(const char *client, const char *scope, const char *cwd, bool apply)
{
	bool vscode = !strcmp(client, "vscode");
	const char *top = vscode ? "servers" : "mcpServers";
	char *path = NULL;
	if (asprintf(&path, "%s/%s/mcp.json", cwd, vscode ? ".vscode" : ".cursor") < 0)
		return CLI_EXIT_FAIL;
	json_t *entry = json_pack("{s:s,s:s,s:[],s:{s:s}}", "type", "stdio", "command", PORTABLE_COMMAND, "args", "env",
	                          "SWIPIUM_PROJECT_ROOT", "${workspaceFolder}");
	json_t *snippet_doc = json_pack("{s:{s:O}}", top, "swipium", entry);
	char *snippet = json_dumps(snippet_doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(snippet_doc);
	int rc = CLI_EXIT_OK;
	json_t *doc = NULL;
	FILE *f = fopen(path, "r");
	if (f) {
		fseek(f, 0, SEEK_END);
		long size = ftell(f);
		fclose(f);
		if (size > 0) {
			json_error_t jerr;
			/* only checked here (the file is merged as text): integers past 64 bits must not fail it */
			doc = json_load_file(path, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &jerr);
			if (!doc || !json_is_object(doc) ||
			    (json_object_get(doc, top) && !json_is_object(json_object_get(doc, top)))) {
				fprintf(stderr,
				        "swipium init %s: %s is not a JSON object this command can merge into "
				        "(comments and "
				        "trailing commas are not JSON). Add this yourself:\n%s\n",
				        client, path, snippet ? snippet : "");
				rc = CLI_EXIT_USAGE;
				goto out;
			}
		}
	}
	if (!doc)
		doc = json_object();
	if (!json_object_get(doc, top))
		json_object_set_new(doc, top, json_object());
	if (json_object_get(json_object_get(doc, top), "swipium")) {
		printf("Already present: \"swipium\" in %s (left unchanged).\n", path);
		goto out;
	}
	json_object_set(json_object_get(doc, top), "swipium", entry);
	if (!apply) {
		printf("Would write %s with:\n%s\n", path, snippet ? snippet : "");
	} else {
		const char *why = NULL;
		char *target = write_target(path, &why);
		char *orig = NULL, *text = NULL;
		size_t olen = 0;
		if (!target) {
			fprintf(stderr, "swipium init %s: will not write %s: %s. Add this yourself:\n%s\n", client, path,
			        why, snippet ? snippet : "");
			rc = CLI_EXIT_FAIL;
			goto out;
		}
		FILE *rf = fopen(target, "rb");
		if (rf) {
			orig = malloc(1 << 20);
			olen = orig ? fread(orig, 1, (1 << 20) - 1, rf) : 0;
			if (orig)
				orig[olen] = '\0';
			fclose(rf);
		}
		/* an existing file keeps every byte it had (numbers such as 0.1 included): the entry is spliced in */
		if (orig && olen > 0 && strspn(orig, " \t\r\n") < olen) {
			text = merge_entry(orig, olen, top, entry);
		} else {
			char *dumped = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			if (dumped && asprintf(&text, "%s\n", dumped) < 0)
				text = NULL;
			free(dumped);
		}
		free(orig);
		char *dir = strdup(path);
		char *slash = dir ? strrchr(dir, '/') : NULL;
		if (slash)
			*slash = '\0';
		if (dir)
			mkdir(dir, 0755);
		free(dir);
		sw_error *err = NULL;
		/* a new file is 0644 less the umask; an existing one keeps its mode (it may hold tokens) */
		if (!text ||
		    sw_file_write_atomic(target, text, strlen(text), SW_WRITE_SHARED | SW_WRITE_KEEP_MODE, &err) != SW_OK) {
			fprintf(stderr, "swipium init %s: cannot write %s: %s\n", client, target,
			        err ? sw_error_message(err) : "its JSON layout could not be merged; add the entry yourself");
			sw_error_free(err);
			rc = CLI_EXIT_FAIL;
		} else if (strcmp(target, path)) {
			printf("Wrote %s (through the link %s).\n", target, path);
		} else {
			printf("Wrote %s.\n", path);
		}
		free(target);
		free(text);
	}
	if (!strcmp(scope, "user")) {
		if (vscode)
			printf("For all workspaces: code --add-mcp "
			       "'{\"name\":\"swipium\",\"command\":\"%s\",\"args\":[]}'\n",
			       PORTABLE_COMMAND);
		else
			printf("For all projects: add the same \"swipium\" entry to ~/.cursor/mcp.json.\n");
	}
out:
	json_decref(doc);
	json_decref(entry);
	free(snippet);
	free(path);
	return rc;
}

/* `swipium init flows [--root <dir>] [--force]`: the starter flows and the smoke pack. */
static int init_flows(int argc, char **argv)
{
	const char *root = NULL;
	int force = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--force")) {
			force = 1;
		} else if (!strcmp(argv[i], "--root") && i + 1 < argc) {
			root = argv[++i];
		} else if (!strncmp(argv[i], "--root=", 7) && argv[i][7]) {
			root = argv[i] + 7;
		} else {
			fprintf(stderr, "swipium init flows: unknown argument %s\n\n", argv[i]);
			usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	char here[4096];
	if (!root)
		root = getcwd(here, sizeof(here)) ? here : ".";
	char *out = NULL;
	sw_error *err = NULL;
	if (sw_flow_init_templates(root, force, &out, &err) != SW_OK) {
		fprintf(stderr, "swipium init flows: %s: %s\n", sw_error_failure_code(err), sw_error_message(err));
		sw_error_free(err);
		return CLI_EXIT_USAGE;
	}
	json_t *r = json_loads(out, 0, NULL);
	sw_free(out);
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(r, "written"), i, p) printf("  wrote %s\n", json_string_value(p));
	json_array_foreach(json_object_get(r, "kept"), i, p) printf("  kept %s\n", json_string_value(p));
	json_decref(r);
	return CLI_EXIT_OK;
}

int cmd_init(int argc, char **argv)
{
	if (argc > 0 && !strcasecmp(argv[0], "flows"))
		return init_flows(argc - 1, argv + 1);
	const char *client = NULL, *scope = "local";
	char *cwd = NULL;
	bool apply = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			free(cwd);
			return CLI_EXIT_OK;
		} else if (!strcmp(a, "--apply")) {
			apply = true;
		} else if (!strcmp(a, "--scope") || !strncmp(a, "--scope=", 8)) {
			const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v || (strcmp(v, "local") && strcmp(v, "user") && strcmp(v, "project"))) {
				fprintf(stderr, "swipium init: --scope must be local, user or project\n\n");
				usage(stderr);
				free(cwd);
				return CLI_EXIT_USAGE;
			}
			scope = v;
		} else if (!strcmp(a, "--cwd") || !strncmp(a, "--cwd=", 6)) {
			const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v || !*v) {
				fprintf(stderr, "swipium init: --cwd needs a value\n\n");
				usage(stderr);
				free(cwd);
				return CLI_EXIT_USAGE;
			}
			free(cwd);
			cwd = v[0] == '/' ? strdup(v) : NULL;
			if (!cwd) {
				char here[4096];
				if (!getcwd(here, sizeof(here)) || asprintf(&cwd, "%s/%s", here, v) < 0)
					cwd = NULL;
			}
		} else if (!client && a[0] != '-') {
			client = a;
		} else {
			fprintf(stderr, "swipium init: unknown argument %s\n\n", a);
			usage(stderr);
			free(cwd);
			return CLI_EXIT_USAGE;
		}
	}
	static const char *const clients[] = {"claude", "codex", "gemini", "cursor", "vscode", NULL};
	const char *which = NULL;
	for (int i = 0; client && clients[i]; i++)
		if (!strcasecmp(client, clients[i]))
			which = clients[i];
	if (!which) {
		if (client)
			fprintf(stderr, "swipium init: unknown client \"%s\"\n\n", client);
		usage(stderr);
		free(cwd);
		return CLI_EXIT_USAGE;
	}
	if (!cwd) {
		char here[4096];
		cwd = getcwd(here, sizeof(here)) ? strdup(here) : strdup(".");
	}
	char *local = cli_find_mcp();
	const char *machine_local = local ? local : PORTABLE_COMMAND;
	if (!local)
		printf("Note: swipium-mcp was not found beside swipium; the bare name %s is used.\n", PORTABLE_COMMAND);
	int rc;
	if (!strcmp(which, "claude"))
		rc = init_claude(scope, !strcmp(scope, "project") ? PORTABLE_COMMAND : machine_local, apply);
	else if (!strcmp(which, "gemini"))
		rc = init_gemini(scope, !strcmp(scope, "user") ? machine_local : PORTABLE_COMMAND, cwd, apply);
	else if (!strcmp(which, "codex"))
		rc = init_codex(machine_local, cwd, apply);
	else
		rc = init_json_file(which, scope, cwd, apply);
	if (!apply && rc == CLI_EXIT_OK)
		printf("\nPreview only: nothing was changed. Re-run with --apply to make the change.\n");
	if (apply && rc == CLI_EXIT_OK) {
		printf("\n");
		rc = cmd_verify(0, NULL);
	}
	printf("\nSelf-check anytime: swipium verify\n");
	free(local);
	free(cwd);
	return rc;
}
