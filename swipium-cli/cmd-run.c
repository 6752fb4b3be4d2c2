/* cmd-run.c: `swipium run`: run a saved flow or pack against a device without an MCP client (the CI path). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"

#define MAX_LIST 64

static void run_usage(FILE *f)
{
	fprintf(f,
	        "Usage: swipium run <flow-or-pack> [--root DIR] [--device SERIAL] [--variables K=V ...]\n"
	        "                   [--approve ACTION ...] [--session ID]\n"
	        "\n"
	        "Runs a flow (.swipium/flows/<name>.yaml, or a path inside the project) or a pack\n"
	        "(.swipium/packs/<name>.yaml) on an Android device through adb, records a session and a\n"
	        "report (render it with `swipium report --latest`), and exits 0 when every flow passed,\n"
	        "1 when one failed or was blocked, 2 on a usage error.\n"
	        "\n"
	        "  --root DIR           the project root (default: the project-root rule from the working directory)\n"
	        "  --device SERIAL      the adb serial (default: the only online emulator)\n"
	        "  --variables K=V ...  values for ${K} in the flows (SWIPIUM_* names also come from the environment)\n"
	        "  --approve ACTION ... consents granted up front, e.g. flow_mutation_run; without it (and without\n"
	        "                       SWIPIUM_CONSENT_PREAPPROVE) a mutating flow asks on a terminal and is\n"
	        "                       refused when there is none\n"
	        "  --session ID         record into an existing session of this project instead of a new one\n");
}

struct run_args {
	const char *target, *root, *device, *session;
	const char *vars[MAX_LIST];
	size_t nvars;
	const char *approve[MAX_LIST];
	size_t napprove;
};

static int parse_args(int argc, char **argv, struct run_args *a)
{
	memset(a, 0, sizeof(*a));
	const char **list = NULL;
	size_t *count = NULL;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			run_usage(stdout);
			return 1;
		}
		if (!strcmp(s, "--root") || !strcmp(s, "--device") || !strcmp(s, "--session")) {
			if (i + 1 >= argc || argv[i + 1][0] == '-') {
				fprintf(stderr, "swipium run: %s needs a value\n", s);
				return -1;
			}
			const char **dst = !strcmp(s, "--root")     ? &a->root
			                   : !strcmp(s, "--device") ? &a->device
			                                            : &a->session;
			*dst = argv[++i];
			list = NULL;
			continue;
		}
		if (!strcmp(s, "--variables") || !strcmp(s, "--approve")) {
			bool vars = !strcmp(s, "--variables");
			list = vars ? a->vars : a->approve;
			count = vars ? &a->nvars : &a->napprove;
			if (i + 1 >= argc || argv[i + 1][0] == '-') {
				fprintf(stderr, "swipium run: %s needs at least one value\n", s);
				return -1;
			}
			continue;
		}
		if (s[0] == '-') {
			fprintf(stderr, "swipium run: unknown option %s\n", s);
			return -1;
		}
		if (list) {
			if (*count >= MAX_LIST) {
				fprintf(stderr, "swipium run: too many values (at most %d)\n", MAX_LIST);
				return -1;
			}
			list[(*count)++] = s;
			continue;
		}
		if (a->target) {
			fprintf(stderr, "swipium run: one flow or pack at a time (got \"%s\" and \"%s\")\n", a->target,
			        s);
			return -1;
		}
		a->target = s;
	}
	if (!a->target) {
		fprintf(stderr, "swipium run: name a flow or a pack\n");
		return -1;
	}
	for (size_t i = 0; i < a->nvars; i++) {
		const char *eq = strchr(a->vars[i], '=');
		if (!eq || eq == a->vars[i]) {
			fprintf(stderr, "swipium run: --variables takes NAME=VALUE, got \"%s\"\n", a->vars[i]);
			return -1;
		}
	}
	return 0;
}

static bool approved_flag(const struct run_args *a, const char *action)
{
	for (size_t i = 0; i < a->napprove; i++)
		if (!strcmp(a->approve[i], action))
			return true;
	return false;
}

/* Every --approve name must be a consent action. */
static int check_actions(const struct run_args *a)
{
	char *list = NULL;
	if (sw_consent_actions_json(&list, NULL) != SW_OK)
		return -1;
	json_t *j = json_loads(list, 0, NULL);
	sw_free(list);
	int rc = 0;
	for (size_t i = 0; i < a->napprove; i++) {
		bool ok = false;
		size_t k;
		json_t *e;
		json_array_foreach(j, k, e) if (!strcmp(json_string_value(json_object_get(e, "action")), a->approve[i]))
		    ok = true;
		if (!ok) {
			fprintf(stderr,
			        "swipium run: --approve %s is not a consent action (flows need flow_mutation_run)\n",
			        a->approve[i]);
			rc = -1;
		}
	}
	json_decref(j);
	return rc;
}

/*
 * The consent host of `swipium run`: the library's gate asks it when neither operator
 * pre-approval nor anything else decided. --approve answers accept without a prompt; a
 * terminal gets a prompt on /dev/tty; otherwise the answer is a cancel saying why.
 */
struct run_host {
	const struct run_args *a;
	bool terminal; /* stdin is a terminal and /dev/tty opens */
};

static char *answer_text(const char *action, bool approve, const char *failure, long long ms)
{
	json_t *a = failure ? json_pack("{s:s,s:s}", "action", "cancel", "failure", failure)
	                    : json_pack("{s:s,s:{s:b}}", "action", action, "content", "approve", approve);
	if (a && ms >= 0)
		json_object_set_new(a, "answeredInMs", json_integer(ms));
	char *t = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	return t;
}

/* Prompts on /dev/tty. Returns SW_OK with *yes set, SW_ETIMEOUT, or SW_EIO. */
static int tty_prompt(const char *message, bool *yes)
{
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return SW_EIO;
	dprintf(fd, "\n%s\nApprove? [y/N] ", message);
	char line[32];
	size_t n = 0;
	int rc = SW_OK;
	int64_t deadline = sw_monotonic_ms() + SW_CONSENT_PROMPT_TIMEOUT_MS;
	*yes = false;
	for (;;) {
		int64_t left = deadline - sw_monotonic_ms();
		struct pollfd p = {fd, POLLIN, 0};
		int pr = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0) {
			dprintf(fd, "\n(no answer within 10 minutes)\n");
			rc = SW_ETIMEOUT;
			break;
		}
		char c;
		ssize_t r = pr > 0 ? read(fd, &c, 1) : -1;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = SW_EIO;
			break;
		}
		if (c == '\n')
			break;
		if (n < sizeof(line) - 1)
			line[n++] = c;
	}
	line[n] = '\0';
	if (rc == SW_OK)
		*yes = !strcmp(line, "y") || !strcmp(line, "Y") || !strcasecmp(line, "yes");
	close(fd);
	return rc;
}

static int host_ask(void *userdata, const char *request_json, char **answer_json)
{
	struct run_host *h = userdata;
	json_t *req = json_loads(request_json, 0, NULL);
	const char *action = json_string_value(json_object_get(req, "action"));
	int rc = SW_OK;
	char *ans = NULL;
	if (action && approved_flag(h->a, action)) {
		ans = answer_text("accept", true, NULL, -1);
	} else if (h->terminal) {
		bool yes = false;
		int64_t t0 = sw_monotonic_ms();
		rc = tty_prompt(json_string_value(json_object_get(req, "message")), &yes);
		if (rc == SW_OK)
			ans = answer_text(yes ? "accept" : "decline", yes, NULL, sw_monotonic_ms() - t0);
	} else {
		char why[200];
		sw_text_snprintf(why, sizeof(why), "no terminal to ask on and no --approve %s", action ? action : "");
		ans = answer_text(NULL, false, why, -1);
	}
	json_decref(req);
	if (rc != SW_OK)
		return rc;
	if (!ans)
		return SW_ENOMEM;
	*answer_json = ans;
	return SW_OK;
}

/* The flow_mutation_run consent of one flow, through the library's gate. Returns 1 when approved. */
static int flow_consent(sw_consent_store *cs, sw_session *s, const struct run_args *a, const char *root,
                        const char *flow)
{
	json_t *o = json_pack("{ss,ss}", "root", root, "flow", flow);
	json_t *g = json_pack("{ss,sb,ss}", "tool", "swipium run", "canElicit", 1, "target", flow);
	if (g && approved_flag(a, "flow_mutation_run"))
		json_object_set_new(g, "operatorAnswer", json_string("swipium run --approve flow_mutation_run"));
	char *oj = o ? json_dumps(o, JSON_COMPACT) : NULL, *gj = g ? json_dumps(g, JSON_COMPACT) : NULL;
	json_decref(o);
	json_decref(g);
	char *out = NULL;
	sw_error *err = NULL;
	int approved = 0;
	int rc = oj && gj ? sw_flow_consent(cs, s, oj, gj, &out, &err) : SW_ENOMEM;
	free(oj);
	free(gj);
	if (rc == SW_OK) {
		json_t *r = json_loads(out, 0, NULL);
		approved =
		    !json_is_true(json_object_get(r, "required")) || json_is_true(json_object_get(r, "approved"));
		json_decref(r);
	} else if (rc == SW_EDENIED) {
		fprintf(
		    stderr,
		    "swipium run: flow \"%s\" has mutating or OCR steps and was not approved: %s\n"
		    "  Pass --approve flow_mutation_run, run it on a terminal to be asked, or have the operator set\n"
		    "  SWIPIUM_CONSENT_PREAPPROVE=flow_mutation_run with SWIPIUM_CONSENT_PREAPPROVE_RUN_CODE=1.\n",
		    flow, sw_error_message(err));
	}
	/* any other error (an invalid flow) is reported by sw_flow_run itself */
	sw_error_free(err);
	sw_free(out);
	return approved;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a;
	int pr = parse_args(argc, argv, &a);
	if (pr > 0)
		return CLI_EXIT_OK;
	if (pr < 0 || check_actions(&a) < 0) {
		fprintf(stderr, "\n");
		run_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	int exit_code = CLI_EXIT_USAGE;
	sw_ctx *ctx = cli_ctx_new();
	sw_store *store = NULL;
	sw_session *s = NULL;
	sw_drive *drive = NULL; /* owned by the session */
	sw_consent_store *cs = NULL;
	sw_error *err = NULL;
	char *root = NULL, *source = NULL, *out = NULL, *vars_json = NULL;
	json_t *target = NULL, *vars = json_object();
	sw_ctx_set_log_level(ctx, SW_LOG_WARN);

	char *abs_root = a.root ? realpath(a.root, NULL) : NULL;
	if (a.root && !abs_root) {
		fprintf(stderr, "swipium run: --root %s does not exist\n", a.root);
		goto out;
	}
	sw_root_request req = SW_ROOT_REQUEST_INIT;
	req.project_root = abs_root;
	if (sw_project_root_resolve(&req, &root, &source, &err) != SW_OK) {
		fprintf(stderr, "swipium run: %s\nPass --root <your app's directory>.\n", sw_error_message(err));
		goto out;
	}
	if (sw_flow_resolve_target(root, a.target, &out, &err) != SW_OK) {
		fprintf(stderr, "swipium run: %s: %s\n", sw_error_failure_code(err), sw_error_message(err));
		exit_code = !strcmp(sw_error_failure_code(err), "INVALID_FLOW") ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
		goto out;
	}
	target = json_loads(out, 0, NULL);
	sw_free(out);
	out = NULL;
	for (size_t i = 0; i < a.nvars; i++) {
		const char *eq = strchr(a.vars[i], '=');
		/* the whole name and value, invalid UTF-8 as U+FFFD (a cut name would set another variable) */
		char *name = sw_text_cap(a.vars[i], (size_t)(eq - a.vars[i]), SIZE_MAX, SW_CAP_HEAD);
		char *value = sw_text_cap(eq + 1, (size_t)-1, SIZE_MAX, SW_CAP_HEAD);
		if (name && value)
			json_object_set_new(vars, name, json_string(value));
		sw_free(name);
		sw_free(value);
	}
	vars_json = json_dumps(vars, JSON_COMPACT);

	/* a missing flow is a usage error, found before any device is touched */
	size_t i;
	json_t *fv;
	json_array_foreach(json_object_get(target, "flows"), i, fv)
	{
		json_t *o = json_pack("{ss,sO}", "root", root, "flow", fv);
		char *oj = json_dumps(o, JSON_COMPACT);
		json_decref(o);
		int rc = sw_flow_check(oj, &out, &err);
		free(oj);
		sw_free(out);
		out = NULL;
		if (rc != SW_OK && !strcmp(sw_error_failure_code(err), "FLOW_NOT_FOUND")) {
			fprintf(stderr, "swipium run: %s\n", sw_error_message(err));
			goto out;
		}
		sw_error_free(err);
		err = NULL;
	}

	exit_code = CLI_EXIT_FAIL;
	if (sw_store_open(ctx, &store, &err) != SW_OK) {
		fprintf(stderr, "swipium run: %s\n", sw_error_message(err));
		goto out;
	}
	if (a.session ? sw_store_get_session(store, a.session, &s, &err) != SW_OK
	              : sw_session_create(store, root, source, NULL, &s, &err) != SW_OK) {
		fprintf(stderr, "swipium run: %s\n", sw_error_message(err));
		exit_code = a.session ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
		goto out;
	}
	/* the session's device, as every frontend binds it: health after each action, budget, redaction, books */
	json_t *dopts = json_object();
	if (a.device)
		json_object_set_new(dopts, "serial", json_string(a.device));
	char *doj = json_dumps(dopts, JSON_COMPACT);
	json_decref(dopts);
	int drc = sw_drive_bind(ctx, s, doj, &drive, &err);
	free(doj);
	if (drc != SW_OK) {
		fprintf(stderr, "swipium run: %s: %s\n", sw_error_failure_code(err), sw_error_message(err));
		json_t *note =
		    json_pack("{ss,ss,ss,ss}", "workflow", json_string_value(json_object_get(target, "name")),
		              "outcome", "blocked", "category", "mcp_limitation", "reason", sw_error_message(err));
		char *nj = json_dumps(note, JSON_COMPACT);
		json_decref(note);
		sw_session_add_note(s, nj, NULL);
		free(nj);
		sw_flow_save_report(s, NULL, NULL);
		goto out;
	}

	/* every consent goes through the library's gate: SWIPIUM_CONSENT_PREAPPROVE first, then this host */
	int tty = isatty(STDIN_FILENO) ? open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY) : -1;
	struct run_host host = {&a, tty >= 0};
	if (tty >= 0)
		close(tty);
	sw_host_ops ops = {SW_HOST_OPS_VERSION, host_ask};
	if (sw_consent_store_new(ctx, &cs, &err) != SW_OK ||
	    sw_consent_store_set_host(cs, &ops, &host, &err) != SW_OK) {
		fprintf(stderr, "swipium run: %s\n", sw_error_message(err));
		goto out;
	}

	size_t passed = 0, total = json_array_size(json_object_get(target, "flows"));
	json_array_foreach(json_object_get(target, "flows"), i, fv)
	{
		const char *flow = json_string_value(fv);
		int approved = flow_consent(cs, s, &a, root, flow);
		sw_flow_run_options ro = SW_FLOW_RUN_OPTIONS_INIT;
		ro.root = root;
		ro.flow = flow;
		ro.variables_json = vars_json;
		ro.session = s;
		ro.drive = drive;
		ro.device = sw_drive_device(drive);
		ro.mutations_approved = approved;
		ro.ctx = ctx;
		if (sw_flow_run(&ro, &out, &err) != SW_OK) {
			printf("FAIL  %s: %s: %s\n", flow, sw_error_failure_code(err), sw_error_message(err));
			json_t *note = json_pack("{ss,ss,ss,ss}", "workflow", flow, "outcome", "fail", "category",
			                         "other", "reason", sw_error_message(err));
			char *nj = json_dumps(note, JSON_COMPACT);
			json_decref(note);
			sw_session_add_note(s, nj, NULL);
			free(nj);
			sw_error_free(err);
			err = NULL;
			continue;
		}
		json_t *res = json_loads(out, 0, NULL);
		sw_free(out);
		out = NULL;
		const char *name = json_string_value(json_object_get(res, "name"));
		long long ms = (long long)json_integer_value(json_object_get(res, "durationMs"));
		if (json_is_true(json_object_get(res, "passed"))) {
			passed++;
			printf("PASS  %s (%zu steps, %lld ms)\n", name, json_array_size(json_object_get(res, "steps")),
			       ms);
		} else {
			const char *oc = json_string_value(json_object_get(res, "outcome"));
			/* a budget stop has no failure code: it says "stopped" and the budget's reason */
			const char *fc = json_string_value(json_object_get(res, "failureCode"));
			if (!fc)
				fc = json_is_true(json_object_get(res, "stopped")) ? "stopped" : "UNKNOWN";
			if (json_object_get(res, "failedAtStep"))
				printf("%s %s at %s[%lld] %s: %s: %s\n", !strcmp(oc, "blocked") ? "BLOCK" : "FAIL ",
				       name, json_string_value(json_object_get(res, "failedPhase")),
				       (long long)json_integer_value(json_object_get(res, "failedAtStep")),
				       json_string_value(json_object_get(res, "failedKind")), fc,
				       json_string_value(json_object_get(res, "message")));
			else
				printf("%s %s: %s: %s\n", !strcmp(oc, "blocked") ? "BLOCK" : "FAIL ", name, fc,
				       json_string_value(json_object_get(res, "message")));
		}
		json_decref(res);
	}
	/* the library's one report pipeline, as qa_report: network restore, assemble, redact, save, manifest */
	char *saved = NULL;
	if (sw_report_save(ctx, s, "{\"format\":\"json\",\"tool\":\"swipium run\"}", &saved, NULL, &err) != SW_OK) {
		fprintf(stderr, "swipium run: could not save the report: %s\n", sw_error_message(err));
		goto out;
	}
	json_t *mj = json_loads(saved, 0, NULL);
	sw_free(saved);
	if (json_is_true(json_object_get(mj, "networkRestored")))
		printf("restored the network the flows changed\n");
	printf("%zu of %zu flow(s) passed; session %s; report %s\n", passed, total, sw_session_id(s),
	       json_string_value(json_object_get(mj, "reportPath")));
	printf("Render it with: swipium report --latest --root %s --format junit\n", root);
	json_decref(mj);
	exit_code = passed == total ? CLI_EXIT_OK : CLI_EXIT_FAIL;
out:
	sw_error_free(err);
	sw_consent_store_free(cs);
	sw_store_free(store); /* with the sessions, their bound devices */
	sw_ctx_free(ctx);
	json_decref(target);
	json_decref(vars);
	free(vars_json);
	free(abs_root);
	sw_free(root);
	sw_free(source);
	sw_free(out);
	return exit_code;
}
