/* cmd-verify.c: `swipium verify`: start the swipium-mcp beside this binary and check what it declares. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"

static const char *const expected_prompts[] = {"swipium_setup_check",         "swipium_guardrail_validation",
                                               "swipium_full_smoke",          "swipium_bug_repro",
                                               "swipium_convert_run_to_flow", NULL};

/* The installed layout has swipium-mcp beside swipium; the build tree has it in ../swipium-mcp/. */
char *cli_find_mcp(void)
{
	char *dir = cli_self_dir();
	if (!dir)
		return NULL;
	static const char *const rel[] = {"/swipium-mcp", "/../swipium-mcp/swipium-mcp", NULL};
	for (int i = 0; rel[i]; i++) {
		char *p = NULL;
		if (asprintf(&p, "%s%s", dir, rel[i]) < 0)
			break;
		if (access(p, X_OK) == 0) {
			char *real = realpath(p, NULL);
			free(p);
			free(dir);
			return real;
		}
		free(p);
	}
	free(dir);
	return NULL;
}

struct peer {
	sw_peer *proc; /* the runner's child: its stdin and stdout */
	int to;        /* its stdin */
	int from;      /* its stdout */
	char *buf;
	size_t len, cap;
};

static int peer_start(struct peer *p, const char *path, sw_error **err)
{
	memset(p, 0, sizeof(*p));
	const char *const argv[] = {path, NULL};
	/* The server's log lines would clutter the verdict; keep errors only. */
	const char *const env[] = {"SWIPIUM_LOG_LEVEL=error", NULL};
	if (sw_peer_start(argv, env, 0, &p->proc, err) != SW_OK)
		return -1;
	p->to = sw_peer_input_fd(p->proc);
	p->from = sw_peer_output_fd(p->proc);
	return 0;
}

static int peer_send(struct peer *p, json_t *msg)
{
	char *line = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (!line)
		return -1;
	size_t n = strlen(line);
	line[n] = '\n';
	const char *q = line;
	size_t left = n + 1;
	while (left > 0) {
		ssize_t w = write(p->to, q, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			free(line);
			return -1;
		}
		q += w;
		left -= (size_t)w;
	}
	free(line);
	return 0;
}

/* Reads messages until the response with @id (others are ignored). (transfer full) */
static json_t *peer_wait(struct peer *p, int id, int timeout_ms)
{
	int64_t t0 = sw_monotonic_ms();
	for (;;) {
		char *nl = p->buf ? memchr(p->buf, '\n', p->len) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - p->buf);
			json_t *msg = json_loadb(p->buf, n, 0, NULL);
			memmove(p->buf, nl + 1, p->len - n - 1);
			p->len -= n + 1;
			if (msg && json_integer_value(json_object_get(msg, "id")) == id &&
			    (json_object_get(msg, "result") || json_object_get(msg, "error")))
				return msg;
			json_decref(msg);
			continue;
		}
		long spent = (long)(sw_monotonic_ms() - t0);
		if (spent >= timeout_ms)
			return NULL;
		struct pollfd pfd = {p->from, POLLIN, 0};
		if (poll(&pfd, 1, (int)(timeout_ms - spent)) <= 0)
			continue;
		if (p->len + 65536 > p->cap) {
			size_t cap = p->cap ? p->cap * 2 : 131072;
			char *nb = realloc(p->buf, cap);
			if (!nb)
				return NULL;
			p->buf = nb;
			p->cap = cap;
		}
		ssize_t r = read(p->from, p->buf + p->len, p->cap - p->len);
		if (r <= 0)
			return NULL;
		p->len += (size_t)r;
	}
}

static void peer_stop(struct peer *p)
{
	(void)sw_peer_finish(p->proc, 5000); /* end of its input, 5 s to exit, then its group is killed */
	free(p->buf);
}

static json_t *rpc(struct peer *p, int id, const char *method, json_t *params)
{
	json_t *msg = json_pack("{s:s,s:i,s:s,s:o}", "jsonrpc", "2.0", "id", id, "method", method, "params",
	                        params ? params : json_object());
	if (peer_send(p, msg) != 0)
		return NULL;
	return peer_wait(p, id, 30000);
}

static void problem(json_t *problems, const char *fmt, const char *a)
{
	char buf[512];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	sw_text_snprintf(buf, sizeof(buf), fmt, a ? a : "");
#pragma GCC diagnostic pop
	json_array_append_new(problems, json_string(buf));
}

int cmd_verify(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("Usage: swipium verify\n"
			       "Starts the swipium-mcp installed beside swipium, lists its tools and prompts, checks "
			       "their\n"
			       "schemas, calls qa_doctor and prints the tool count and schema hash. Exit 1 on a "
			       "problem.\n");
			return CLI_EXIT_OK;
		}
		fprintf(stderr, "swipium verify: unknown argument %s\n", argv[i]);
		return CLI_EXIT_USAGE;
	}
	char *server = cli_find_mcp();
	if (!server) {
		printf("❌ verify FAILED: swipium-mcp was not found beside this swipium binary.\n");
		return CLI_EXIT_FAIL;
	}
	struct peer p;
	signal(SIGPIPE, SIG_IGN);
	sw_error *serr = NULL;
	if (peer_start(&p, server, &serr) != 0) {
		printf("❌ verify FAILED: %s\n", serr ? sw_error_message(serr) : "cannot start swipium-mcp");
		sw_error_free(serr);
		free(server);
		return CLI_EXIT_FAIL;
	}
	json_t *problems = json_array();
	json_t *names = json_array();
	json_t *prompt_names = json_array();
	const char *hash = "?";
	json_int_t doctor_count = -1;
	bool doctor_ran = false;
	json_t *init = rpc(&p, 1, "initialize",
	                   json_pack("{s:s,s:{},s:{s:s,s:s}}", "protocolVersion", "2025-11-25", "capabilities",
	                             "clientInfo", "name", "swipium-verify", "version", sw_version()));
	json_t *tools = NULL, *prompts = NULL, *doctor = NULL;
	if (!init || !json_object_get(init, "result")) {
		problem(problems, "the server did not answer initialize%s", NULL);
		goto report;
	}
	(void)peer_send(&p, json_pack("{s:s,s:s}", "jsonrpc", "2.0", "method", "notifications/initialized"));
	tools = rpc(&p, 2, "tools/list", NULL);
	json_t *list = json_object_get(json_object_get(tools, "result"), "tools");
	if (!json_is_array(list) || json_array_size(list) == 0) {
		problem(problems, "tools/list returned no tools%s", NULL);
		goto report;
	}
	regex_t name_re;
	regcomp(&name_re, "^qa_[a-z0-9_]+$", REG_EXTENDED | REG_NOSUB);
	size_t i;
	json_t *t;
	json_array_foreach(list, i, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *schema = json_object_get(t, "inputSchema");
		if (!name || regexec(&name_re, name, 0, NULL, 0) != 0) {
			problem(problems, "a tool has an invalid name (%s)", name ? name : "none");
			continue;
		}
		size_t j;
		json_t *seen;
		json_array_foreach(names, j, seen)
		{
			if (!strcmp(json_string_value(seen), name))
				problem(problems, "tool %s is listed twice", name);
		}
		json_array_append_new(names, json_string(name));
		if (!json_is_string(json_object_get(t, "description")) ||
		    json_string_length(json_object_get(t, "description")) == 0)
			problem(problems, "tool %s has no description", name);
		if (!json_is_object(schema) || !json_is_string(json_object_get(schema, "type")) ||
		    strcmp(json_string_value(json_object_get(schema, "type")), "object") ||
		    !json_is_false(json_object_get(schema, "additionalProperties")) ||
		    !json_is_object(json_object_get(schema, "properties")) || json_object_get(schema, "$schema"))
			problem(problems, "tool %s has an inputSchema that is not a strict object schema", name);
		json_t *ann = json_object_get(t, "annotations");
		if (!json_is_object(ann) || !json_is_boolean(json_object_get(ann, "readOnlyHint")) ||
		    !json_is_false(json_object_get(ann, "openWorldHint")))
			problem(problems, "tool %s lacks its annotations", name);
	}
	regfree(&name_re);

	prompts = rpc(&p, 3, "prompts/list", NULL);
	json_t *plist = json_object_get(json_object_get(prompts, "result"), "prompts");
	json_array_foreach(plist, i, t)
	{
		if (json_is_string(json_object_get(t, "name")))
			json_array_append(prompt_names, json_object_get(t, "name"));
	}
	for (int k = 0; expected_prompts[k]; k++) {
		bool found = false;
		json_array_foreach(prompt_names, i, t)
		{
			if (!strcmp(json_string_value(t), expected_prompts[k]))
				found = true;
		}
		if (!found)
			problem(problems, "prompt %s is missing", expected_prompts[k]);
	}

	doctor = rpc(&p, 4, "tools/call", json_pack("{s:s,s:{}}", "name", "qa_doctor", "arguments"));
	json_t *res = json_object_get(doctor, "result");
	json_t *sc = json_object_get(res, "structuredContent");
	if (!res || json_is_true(json_object_get(res, "isError")) || !json_is_object(sc)) {
		problem(problems, "qa_doctor did not run%s", NULL);
	} else {
		doctor_ran = true;
		if (json_is_string(json_object_get(sc, "schemaHash")))
			hash = json_string_value(json_object_get(sc, "schemaHash"));
		doctor_count = json_integer_value(json_object_get(sc, "toolCount"));
		if ((size_t)doctor_count != json_array_size(names)) {
			char n[32];
			snprintf(n, sizeof(n), "%lld", (long long)doctor_count);
			problem(problems, "qa_doctor reports %s tools but tools/list has a different count", n);
		}
	}

report:
	peer_stop(&p);
	int rc = CLI_EXIT_OK;
	if (json_array_size(problems) == 0) {
		printf("✅ verify OK: server starts, %zu tools inject (all %lld expected present), schema %s, qa_doctor "
		       "%s.\n",
		       json_array_size(names), (long long)doctor_count, hash, doctor_ran ? "ran" : "ERRORED");
	} else {
		printf("❌ verify FAILED: %zu problem(s) with %s\n", json_array_size(problems), server);
		json_array_foreach(problems, i, t)
		{
			printf("  - %s\n", json_string_value(t));
		}
		rc = CLI_EXIT_FAIL;
	}
	printf("tools (%zu):", json_array_size(names));
	json_array_foreach(names, i, t)
	{
		printf("%s %s", i ? "," : "", json_string_value(t));
	}
	printf("\nprompts (%zu):", json_array_size(prompt_names));
	json_array_foreach(prompt_names, i, t)
	{
		printf("%s %s", i ? "," : "", json_string_value(t));
	}
	printf("\n");
	json_decref(init);
	json_decref(tools);
	json_decref(prompts);
	json_decref(doctor);
	json_decref(problems);
	json_decref(names);
	json_decref(prompt_names);
	free(server);
	return rc;
}
