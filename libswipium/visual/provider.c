/* provider.c: the OCR and mask provider commands: configuration, running them as argv (never a shell) with a timeout,
 * reading their JSON. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sw-proc.h"
#include "visual-internal.h"

#define DEFAULT_TIMEOUT_MS 30000L
#define MAX_STDOUT (8u * 1024 * 1024)
#define MAX_STDERR (64u * 1024)
#define MAX_REGIONS 5000
#define STDERR_SHOWN 2000

/* ---- configuration ------------------------------------------------------ */

/* Splits @s into words: blanks separate, '…' is literal, "…" and a bare backslash escape. No shell. */
static json_t *split_words(const char *s, sw_error **err)
{
	json_t *argv = json_array();
	sw_buf w = SW_BUF_INIT;
	bool in_word = false;
	const char *p = s;
	while (argv) {
		char c = *p;
		if (c == '\0' || isspace((unsigned char)c)) {
			if (in_word) {
				json_array_append_new(argv, json_string(w.data ? w.data : ""));
				sw__buf_free(&w);
				w = (sw_buf)SW_BUF_INIT;
				in_word = false;
			}
			if (c == '\0')
				break;
			p++;
			continue;
		}
		in_word = true;
		if (c == '\'') {
			const char *e = strchr(p + 1, '\'');
			if (!e)
				goto unterminated;
			sw__buf_append(&w, p + 1, (size_t)(e - p - 1));
			p = e + 1;
		} else if (c == '"') {
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				sw__buf_putc(&w, *p++);
			}
			if (*p != '"')
				goto unterminated;
			p++;
		} else if (c == '\\' && p[1]) {
			sw__buf_putc(&w, p[1]);
			p += 2;
		} else {
			sw__buf_putc(&w, c);
			p++;
		}
		if (!w.data)
			sw__buf_puts(&w, "");
	}
	sw__buf_free(&w);
	return argv;
unterminated:
	sw__buf_free(&w);
	json_decref(argv);
	sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
	              "Write the command as a JSON array, e.g. [\"python3\", \"ocr.py\", \"{image}\"]",
	              "The provider command has an unterminated quote");
	return NULL;
}

/* A command value (array of strings, or a string) to an argv array; NULL (and @err) when malformed. */
static json_t *command_argv(json_t *cmd, const char *where, sw_error **err)
{
	json_t *argv = NULL;
	if (json_is_string(cmd)) {
		const char *s = json_string_value(cmd);
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '[') {
			json_t *parsed = json_loads(s, 0, NULL);
			argv = command_argv(parsed, where, err);
			json_decref(parsed);
			return argv;
		}
		argv = split_words(s, err);
		if (!argv)
			return NULL;
	} else if (json_is_array(cmd)) {
		argv = json_deep_copy(cmd);
	}
	size_t i;
	json_t *v;
	bool ok = json_array_size(argv) > 0 && json_array_size(argv) <= 64;
	json_array_foreach(argv, i, v) ok = ok && json_is_string(v) && (i > 0 || json_string_length(v) > 0);
	if (!ok) {
		json_decref(argv);
		sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		              "Use an argv array such as [\"python3\", \".swipium/ocr_tesseract.py\", \"{image}\"]",
		              "%s is not a command: expected a non-empty array of strings (or a command string)",
		              where);
		return NULL;
	}
	return argv;
}

static bool is_git(json_t *argv)
{
	const char *a0 = json_string_value(json_array_get(argv, 0));
	const char *base = a0 ? strrchr(a0, '/') : NULL;
	base = base ? base + 1 : a0;
	return base && (!strcmp(base, "git") || !strncmp(base, "git-", 4));
}

SW_API int sw_visual_provider(const char *project_root, const char *kind, char **out_json, sw_error **err)
{
	if (!kind || !out_json || (strcmp(kind, "ocr") && strcmp(kind, "mask")))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "provider kind must be ocr or mask");
	bool ocr = !strcmp(kind, "ocr");
	const char *key = ocr ? "ocrCommand" : "visualMaskCommand";
	const char *env_name = ocr ? "SWIPIUM_OCR_CMD" : "SWIPIUM_VISUAL_MASK_CMD";
	json_t *cfg = NULL, *argv = NULL, *res = NULL;
	char *origin = NULL;
	const char *io = "argv";
	long timeout = DEFAULT_TIMEOUT_MS;
	int rc = SW_OK;
	if (project_root) {
		char *path = sw__path_join(project_root, ".swipium/config.json");
		char *text = NULL;
		size_t len = 0;
		if (path && sw__is_file(path) && sw__read_file(path, 1024 * 1024, &text, &len, NULL) == SW_OK) {
			cfg = json_loadb(text, len, 0, NULL);
			if (!json_is_object(cfg)) {
				free(text);
				free(path);
				json_decref(cfg);
				return sw__error_set(
				    err, SW_EINVAL, "INVALID_ARGUMENT", "Fix or remove .swipium/config.json",
				    ".swipium/config.json is not a JSON object, so %s cannot be read", key);
			}
		}
		free(text);
		free(path);
	}
	json_t *setting = json_object_get(cfg, key);
	if (setting && !json_is_null(setting)) {
		char where[64];
		snprintf(where, sizeof(where), "config.json %s", key);
		json_t *cmd = setting;
		if (json_is_object(setting)) {
			cmd = json_object_get(setting, "command");
			json_t *jio = json_object_get(setting, "io"), *jt = json_object_get(setting, "timeoutMs");
			if (json_is_string(jio) && !strcmp(json_string_value(jio), "json"))
				io = "json";
			else if (jio && !(json_is_string(jio) && !strcmp(json_string_value(jio), "argv"))) {
				rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
				                   "%s.io must be \"json\" or \"argv\"", where);
				goto out;
			}
			if (jt &&
			    !(json_is_integer(jt) && json_integer_value(jt) > 0 && json_integer_value(jt) <= 600000)) {
				rc = sw__error_set(
				    err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
				    "%s.timeoutMs must be a whole number of milliseconds from 1 to 600000", where);
				goto out;
			}
			if (jt)
				timeout = (long)json_integer_value(jt);
		}
		if (!(argv = command_argv(cmd, where, err))) {
			rc = SW_EINVAL;
			goto out;
		}
		origin = sw__strdup("config:.swipium/config.json (unreviewed)");
	} else {
		const char *env = getenv(env_name);
		if (env && *env) {
			json_t *js = json_string(env);
			argv = js ? command_argv(js, env_name, err) : NULL;
			json_decref(js);
			if (!argv) {
				if (!js)
					sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s is not valid UTF-8",
					              env_name);
				rc = SW_EINVAL;
				goto out;
			}
			origin = sw__asprintf("env:%s", env_name);
		}
	}
	if (!argv) {
		res = json_pack("{sbss}", "configured", 0, "kind", kind);
	} else {
		if (is_git(argv)) {
			rc = sw__error_set(err, SW_EDENIED, "GIT_SCOPE_FORBIDDEN",
			                   "Point the provider at an OCR program, not git",
			                   "swipium never runs git, so git cannot be the %s provider", kind);
			goto out;
		}
		res = json_pack("{sbsssOsssssI}", "configured", 1, "kind", kind, "argv", argv, "origin",
		                origin ? origin : "", "io", io, "timeoutMs", (json_int_t)timeout);
	}
	if (!res || !(*out_json = sw__json_compact(res)))
		rc = sw__error_nomem(err);
out:
	json_decref(cfg);
	json_decref(argv);
	json_decref(res);
	free(origin);
	return rc;
}

/* ---- running ----------------------------------------------------------- */

struct run {
	sw_buf out, errb;
	bool out_over, timed_out, spawn_failed;
	int exit_code; /* -1 when killed by a signal */
	int sig;
	int spawn_errno;
};

/* Runs @argv (PATH lookup) in its own process group with @cwd, feeding @stdin_text (nullable), through the core
 * runner; kills the group after @timeout_ms or when stdout passes MAX_STDOUT. */
static int run_argv(char *const argv[], const char *cwd, const char *stdin_text, long timeout_ms, struct run *r,
                    sw_error **err)
{
	sw__proc_opts o = {
	    .timeout_ms = timeout_ms > 0 ? (int)timeout_ms : 1,
	    .max_out = MAX_STDOUT,
	    .max_err = MAX_STDERR,
	    .kill_on_overflow = true,
	    .search_path = true,
	    .cwd = cwd,
	    .in = stdin_text,
	    .in_len = stdin_text ? strlen(stdin_text) : 0,
	};
	sw__proc_result res;
	sw_error *e = NULL;
	int rc = sw__proc_run((const char *const *)argv, &o, &res, &e);
	if (rc != SW_OK) {
		if (res.exec_errno) {
			/* could not be started: the caller explains it with the provider's origin */
			r->spawn_failed = true;
			r->spawn_errno = res.exec_errno;
			r->exit_code = 127;
			sw_error_free(e);
			return SW_OK;
		}
		sw__error_propagate(err, e);
		return rc;
	}
	sw__buf_append(&r->out, res.out, res.out_len);
	sw__buf_append(&r->errb, res.err, res.err_len);
	r->out_over = res.truncated;
	r->timed_out = res.timed_out;
	r->exit_code = res.status;
	r->sig = res.signal;
	sw__proc_result_clear(&res);
	if (r->out.failed || r->errb.failed)
		return sw__error_nomem(err);
	return SW_OK;
}

/* ---- reading the output -------------------------------------------------- */

/* Parses a provider's stdout into an array of regions; NULL and @why when it is not the contract's JSON. */
static json_t *parse_regions(const char *text, size_t len, bool need_text, char *why, size_t whylen)
{
	json_t *root = json_loadb(text, len, JSON_DECODE_ANY, NULL), *list = NULL;
	if (json_is_array(root)) {
		list = json_incref(root);
	} else if (json_is_object(root) && json_is_array(json_object_get(root, "regions"))) {
		list = json_incref(json_object_get(root, "regions"));
	} else if (json_is_object(root) && json_object_get(root, "bbox")) {
		list = json_pack("[O]", root); /* one region per line, and only one line */
	} else if (!root) {
		/* one JSON object per line */
		list = json_array();
		const char *p = text, *end = text + len;
		while (list && p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl : end;
			const char *a = p;
			while (a < le && isspace((unsigned char)*a))
				a++;
			if (a < le) {
				json_t *o = json_loadb(a, (size_t)(le - a), 0, NULL);
				if (!json_is_object(o)) {
					json_decref(o);
					json_decref(list);
					list = NULL;
					break;
				}
				json_array_append_new(list, o);
			}
			p = le + 1;
		}
		if (list && !json_array_size(list)) {
			json_decref(list);
			list = NULL;
		}
	}
	json_decref(root);
	if (!list) {
		snprintf(why, whylen, "%s",
		         len ? "its output is not the provider JSON ([{text, confidence, bbox}] or "
		               "{\"regions\": [...]})"
		             : "it printed nothing (an empty result is [])");
		return NULL;
	}
	if (json_array_size(list) > MAX_REGIONS) {
		snprintf(why, whylen, "it returned %zu regions (at most %d)", json_array_size(list), MAX_REGIONS);
		json_decref(list);
		return NULL;
	}
	json_t *out = json_array();
	size_t i;
	json_t *r;
	json_array_foreach(list, i, r)
	{
		json_t *b = json_object_get(r, "bbox"), *t = json_object_get(r, "text"),
		       *c = json_object_get(r, "confidence");
		static const char *const keys[] = {"x", "y", "width", "height"};
		bool ok = json_is_object(r) && json_is_object(b);
		for (int k = 0; ok && k < 4; k++)
			ok = json_is_number(json_object_get(b, keys[k]));
		if (ok && need_text)
			ok = json_is_string(t) && json_is_number(c) && json_number_value(c) >= 0 &&
			     json_number_value(c) <= 1;
		if (!ok) {
			snprintf(why, whylen,
			         "region %zu is not {\"text\": string, \"confidence\": 0..1, \"bbox\": {x, y, width, "
			         "height}}",
			         i);
			json_decref(out);
			json_decref(list);
			return NULL;
		}
		json_t *bb = json_pack("{sisisisi}", "x", (int)json_number_value(json_object_get(b, "x")), "y",
		                       (int)json_number_value(json_object_get(b, "y")), "width",
		                       (int)json_number_value(json_object_get(b, "width")), "height",
		                       (int)json_number_value(json_object_get(b, "height")));
		json_t *reg = json_object();
		if (json_is_string(t))
			json_object_set(reg, "text", t);
		if (json_is_number(c))
			json_object_set_new(reg, "confidence", json_real(round(json_number_value(c) * 1000) / 1000));
		json_object_set_new(reg, "bbox", bb);
		json_array_append_new(out, reg);
	}
	json_decref(list);
	return out;
}

/* ---- find_text ----------------------------------------------------------- */

static char *redact(struct sw_redactor *red, const char *s)
{
	char *o = NULL;
	if (red && sw_redactor_redact_text(red, s, strlen(s), &o, NULL, NULL, NULL) == SW_OK)
		return o;
	return sw__strdup(s);
}

/* The failure of a provider: OCR_PROVIDER_FAILED with its fields. */
static int provider_failed(sw_error **err, json_t *prov, const struct run *r, const char *reason,
                           struct sw_redactor *red)
{
	/* stderr: trimmed, the last STDERR_SHOWN bytes (where the error usually is), redacted */
	const char *s = r->errb.data ? r->errb.data : "";
	size_t n = r->errb.len;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	size_t skip = n > STDERR_SHOWN ? n - STDERR_SHOWN : 0;
	while (skip < n && (s[skip] & 0xC0) == 0x80)
		skip++;
	char *tail = sw__strndup(s + skip, n - skip);
	char *clean = tail ? sw__utf8_sanitize(tail, strlen(tail)) : NULL;
	char *red_err = clean ? redact(red, clean) : NULL;
	free(tail);
	free(clean);
	sw_buf cmd = SW_BUF_INIT;
	size_t i;
	json_t *a;
	json_array_foreach(json_object_get(prov, "argv"), i, a)
	{
		if (i)
			sw__buf_putc(&cmd, ' ');
		sw__buf_puts(&cmd, json_string_value(a));
	}
	char *cmdr = redact(red, cmd.data ? cmd.data : "");
	sw__buf_free(&cmd);
	const char *kind = json_string_value(json_object_get(prov, "kind"));
	int rc =
	    sw__error_set(err, SW_EIO, "OCR_PROVIDER_FAILED",
	                  "Run the provider by hand on a screenshot and check it prints [{text, confidence, bbox}]",
	                  "The %s provider failed: %s", !strcmp(kind, "mask") ? "mask" : "OCR", reason);
	if (err && *err) {
		json_t *d = json_object();
		json_object_set_new(d, "provider", json_string(cmdr ? cmdr : ""));
		json_object_set_new(d, "providerKind", json_string(kind));
		json_object_set(d, "origin", json_object_get(prov, "origin"));
		json_object_set_new(d, "exitCode",
		                    r->timed_out || r->exit_code < 0 ? json_null() : json_integer(r->exit_code));
		json_object_set_new(d, "timedOut", json_boolean(r->timed_out));
		json_object_set_new(d, "stderr", json_string(red_err ? red_err : ""));
		json_object_set_new(d, "reason", json_string(reason));
		sw__error_take_details(*err, d);
	}
	free(cmdr);
	sw_free(red_err);
	return rc;
}

/* Runs one provider on @image; on success @regions receives the parsed output. */
static int run_provider(json_t *prov, const char *root, const char *image, int w, int h, long timeout_override,
                        bool need_text, struct sw_redactor *red, json_t **regions, sw_error **err)
{
	json_t *jargv = json_object_get(prov, "argv");
	size_t argc = json_array_size(jargv);
	char **argv = calloc(argc + 2, sizeof(char *));
	if (!argv)
		return sw__error_nomem(err);
	bool placed = false;
	for (size_t i = 0; i < argc; i++) {
		const char *a = json_string_value(json_array_get(jargv, i));
		const char *ph = strstr(a, "{image}");
		if (ph) {
			argv[i] = sw__asprintf("%.*s%s%s", (int)(ph - a), a, image, ph + 7);
			placed = true;
		} else {
			argv[i] = sw__strdup(a);
		}
	}
	if (!placed)
		argv[argc] = sw__strdup(image);
	int rc = SW_OK;
	for (size_t i = 0; i < argc + (placed ? 0 : 1); i++)
		if (!argv[i]) {
			rc = sw__error_nomem(err);
			goto out;
		}
	char *line = NULL;
	if (!strcmp(json_string_value(json_object_get(prov, "io")), "json")) {
		json_t *l = json_pack("{sssssssisi}", "schema", "swipium.visual.provider.v1", "kind",
		                      json_string_value(json_object_get(prov, "kind")), "image", image, "width", w,
		                      "height", h);
		char *c = l ? sw__json_compact(l) : NULL;
		json_decref(l);
		line = c ? sw__asprintf("%s\n", c) : NULL;
		free(c);
		if (!line) {
			rc = sw__error_nomem(err);
			goto out;
		}
	}
	long timeout =
	    timeout_override > 0 ? timeout_override : (long)json_integer_value(json_object_get(prov, "timeoutMs"));
	struct run r = {.out = SW_BUF_INIT, .errb = SW_BUF_INIT};
	rc = run_argv(argv, root, line, timeout, &r, err);
	free(line);
	if (rc == SW_OK) {
		char why[300];
		if (r.spawn_failed) {
			char *prog = sw__cap(argv[0], 100);
			snprintf(why, sizeof(why), "cannot run %s: %s", prog ? prog : "", strerror(r.spawn_errno));
			free(prog);
			rc = provider_failed(err, prov, &r, why, red);
		} else if (r.timed_out) {
			snprintf(why, sizeof(why), "no answer within %ld ms; it was killed", timeout);
			rc = provider_failed(err, prov, &r, why, red);
		} else if (r.out_over) {
			snprintf(why, sizeof(why), "it printed more than %u bytes", MAX_STDOUT);
			rc = provider_failed(err, prov, &r, why, red);
		} else if (r.exit_code != 0) {
			if (r.exit_code < 0)
				snprintf(why, sizeof(why), "it was killed by signal %d", r.sig);
			else
				snprintf(why, sizeof(why), "it exited with status %d", r.exit_code);
			rc = provider_failed(err, prov, &r, why, red);
		} else if (!(*regions =
		                 parse_regions(r.out.data ? r.out.data : "", r.out.len, need_text, why, sizeof(why)))) {
			rc = provider_failed(err, prov, &r, why, red);
		}
	}
	sw__buf_free(&r.out);
	sw__buf_free(&r.errb);
out:
	for (size_t i = 0; i < argc + 1; i++)
		free(argv[i]);
	free(argv);
	return rc;
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char *p = sw__path_join(dir, e->d_name);
			struct stat st;
			if (p && lstat(p, &st) == 0) {
				if (S_ISDIR(st.st_mode))
					remove_tree(p);
				else
					unlink(p);
			}
			free(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* Lower-cased text with runs of blanks folded to one space. (transfer full, free()) */
static char *fold(const char *s)
{
	sw_buf b = SW_BUF_INIT;
	bool space = true;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isspace(c)) {
			if (!space)
				sw__buf_putc(&b, ' ');
			space = true;
			continue;
		}
		sw__buf_putc(&b, (char)tolower(c));
		space = false;
	}
	if (b.len && b.data[b.len - 1] == ' ')
		b.data[--b.len] = '\0';
	return b.data ? sw__buf_steal(&b, NULL) : sw__strdup("");
}

SW_API int sw_visual_ocr(const char *project_root, const void *png, size_t png_len, const char *options_json,
                         struct sw_redactor *red, char **out_json, sw_error **err)
{
	if (!project_root || !png || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_visual_ocr: missing argument");
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	const char *query = json_string_value(json_object_get(opts, "query"));
	double min_conf = json_is_number(json_object_get(opts, "minConfidence"))
	                      ? json_number_value(json_object_get(opts, "minConfidence"))
	                      : 0.8;
	long timeout_override = (long)json_integer_value(json_object_get(opts, "timeoutMs"));
	int rc = SW_OK;
	char *ocr_text = NULL, *mask_text = NULL, *tmp = NULL, *shot = NULL, *masked_path = NULL;
	json_t *ocr = NULL, *mask = NULL, *mask_regions = NULL, *regions = NULL, *res = NULL;
	sw_image *img = NULL;
	if (!query || !*query) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "find_text needs a query");
		goto out;
	}
	if ((rc = sw_visual_provider(project_root, "ocr", &ocr_text, err)) < 0 ||
	    (rc = sw_visual_provider(project_root, "mask", &mask_text, err)) < 0)
		goto out;
	ocr = json_loads(ocr_text, 0, NULL);
	mask = json_loads(mask_text, 0, NULL);
	if (!json_is_true(json_object_get(ocr, "configured"))) {
		rc = sw__error_set(err, SW_ENOTFOUND, "OCR_NOT_CONFIGURED",
		                   "Set SWIPIUM_OCR_CMD or ocrCommand in .swipium/config.json (see exampleProvider)",
		                   "No OCR provider is configured");
		if (err && *err)
			sw__error_take_details(
			    *err, json_pack("{s{sss[sss]ss}}", "exampleProvider", "script", ".swipium/ocr_tesseract.py",
			                    "ocrCommand", "python3", ".swipium/ocr_tesseract.py", "{image}", "recipe",
			                    "examples/ocr/tesseract-ocr.py wraps Debian's tesseract-ocr; copy it to "
			                    ".swipium/ocr_tesseract.py"));
		goto out;
	}
	if ((rc = sw_image_decode(png, png_len, &img, err)) < 0)
		goto out;
	const char *tmpdir = getenv("TMPDIR");
	tmp = sw__asprintf("%s/swipium-visual-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!tmp || !mkdtemp(tmp)) {
		rc = tmp ? sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "Cannot create a temporary folder: %s",
		                         strerror(errno))
		         : sw__error_nomem(err);
		free(tmp);
		tmp = NULL;
		goto out;
	}
	chmod(tmp, 0700);
	shot = sw__path_join(tmp, "screen.png");
	if (!shot) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if ((rc = sw_file_write_atomic(shot, png, png_len, 0, err)) < 0)
		goto out;
	const char *input = shot;
	json_t *masked = json_null();
	if (json_is_true(json_object_get(mask, "configured"))) {
		if ((rc = run_provider(mask, project_root, shot, img->w, img->h, timeout_override, false, red,
		                       &mask_regions, err)) < 0)
			goto out;
		size_t i;
		json_t *r;
		json_array_foreach(mask_regions, i, r)
		{
			json_t *b = json_object_get(r, "bbox");
			sw_image_fill(img, (int)json_integer_value(json_object_get(b, "x")),
			              (int)json_integer_value(json_object_get(b, "y")),
			              (int)json_integer_value(json_object_get(b, "width")),
			              (int)json_integer_value(json_object_get(b, "height")), 0x000000);
		}
		unsigned char *mpng = NULL;
		size_t mlen = 0;
		masked_path = sw__path_join(tmp, "masked.png");
		if (!masked_path) {
			rc = sw__error_nomem(err);
			goto out;
		}
		if ((rc = sw_image_encode(img, &mpng, &mlen, err)) < 0)
			goto out;
		rc = sw_file_write_atomic(masked_path, mpng, mlen, 0, err);
		sw_free(mpng);
		if (rc < 0)
			goto out;
		input = masked_path;
		masked = json_integer((json_int_t)json_array_size(mask_regions));
	}
	if ((rc = run_provider(ocr, project_root, input, img->w, img->h, timeout_override, true, red, &regions, err)) <
	    0) {
		json_decref(masked);
		goto out;
	}
	/*
	 * Match: case-insensitive with blanks folded. A line equal to the query beats one holding it as whole
	 * words, which beats a bare substring ("Item 1" is not "Item 12"); the most confident wins a tier.
	 */
	char *fq = fold(query);
	json_t *matches = json_array(), *best = NULL, *best_any = NULL;
	int best_tier = 0, any_tier = 0;
	size_t i;
	json_t *r;
	json_array_foreach(regions, i, r)
	{
		char *ft = fold(json_string_value(json_object_get(r, "text")));
		const char *at = ft && fq && *fq ? strstr(ft, fq) : NULL;
		if (at) {
			size_t ql = strlen(fq);
			int tier = 1;
			if (!strcmp(ft, fq))
				tier = 3;
			else
				for (; at; at = strstr(at + 1, fq))
					if ((at == ft || !isalnum((unsigned char)at[-1])) &&
					    !isalnum((unsigned char)at[ql]))
						tier = 2;
			double c = json_number_value(json_object_get(r, "confidence"));
			if (c >= min_conf &&
			    (!best || tier > best_tier ||
			     (tier == best_tier && c > json_number_value(json_object_get(best, "confidence"))))) {
				best = r;
				best_tier = tier;
			}
			if (!best_any || tier > any_tier ||
			    (tier == any_tier && c > json_number_value(json_object_get(best_any, "confidence")))) {
				best_any = r;
				any_tier = tier;
			}
			if (json_array_size(matches) < 20)
				json_array_append(matches, r);
		}
		free(ft);
	}
	free(fq);
	/* OCR text leaves the library redacted. */
	json_array_foreach(regions, i, r)
	{
		char *t = redact(red, json_string_value(json_object_get(r, "text")));
		if (t)
			json_object_set_new(r, "text", json_string(t));
		sw_free(t);
	}
	res = json_pack("{sbsssfsososo}", "found", best != NULL, "query", query, "minConfidence", min_conf, "matches",
	                matches, "regions", json_incref(regions), "masked", masked);
	if (res && best) {
		json_object_set(res, "text", json_object_get(best, "text"));
		json_object_set(res, "confidence", json_object_get(best, "confidence"));
		json_object_set(res, "bbox", json_object_get(best, "bbox"));
	} else if (res && best_any) {
		json_object_set_new(res, "bestBelowMinConfidence", json_deep_copy(best_any));
	}
	char *q = res ? redact(red, query) : NULL;
	if (q)
		json_object_set_new(res, "query", json_string(q));
	sw_free(q);
	if (!res || !(*out_json = sw__json_compact(res)))
		rc = sw__error_nomem(err);
out:
	if (tmp)
		remove_tree(tmp);
	free(tmp);
	free(shot);
	free(masked_path);
	sw_free(ocr_text);
	sw_free(mask_text);
	json_decref(ocr);
	json_decref(mask);
	json_decref(mask_regions);
	json_decref(regions);
	json_decref(res);
	json_decref(opts);
	sw_image_free(img);
	return rc;
}
