/* cmd-init.c: `swipium init <claude|codex|gemini|cursor|vscode>`: register swipium-mcp with an MCP client. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* Runs argv (no shell); returns the exit status or -1 when it could not start. */
static int run(char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
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
	char *argv[8];
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
			doc = json_load_file(path, JSON_DECODE_ANY, &jerr);
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
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		char *dir = strdup(path);
		char *slash = dir ? strrchr(dir, '/') : NULL;
		if (slash)
			*slash = '\0';
		if (dir)
			mkdir(dir, 0755);
		free(dir);
		size_t len = text ? strlen(text) : 0;
		char *withnl = text ? malloc(len + 2) : NULL;
		sw_error *err = NULL;
		if (withnl) {
			memcpy(withnl, text, len);
			withnl[len] = '\n';
			withnl[len + 1] = '\0';
		}
		if (!withnl || sw_file_write_atomic(path, withnl, len + 1, SW_WRITE_SHARED, &err) != SW_OK) {
			fprintf(stderr, "swipium init %s: cannot write %s: %s\n", client, path,
			        err ? sw_error_message(err) : "out of memory");
			sw_error_free(err);
			rc = CLI_EXIT_FAIL;
		} else {
			printf("Wrote %s.\n", path);
		}
		free(withnl);
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
