/*
 * shell.c: the device's /system/bin/sh for adb shell and exec: a small POSIX-like parser
 * (quotes, $VAR, ;, &&, ||, |, > and 2> redirections) that runs pipelines of the programs
 * in commands.c, and the streamed install of `cmd package install -S`.
 */
#include "vdevice.h"
#include "app.h"
#include "shell.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_WORDS 256
#define MAX_CMDLINE (256u * 1024u)

/* ---- output -------------------------------------------------------------- */

void vd_out_write(struct vd_out *o, int fd, const void *data, size_t n)
{
	if (!o || !o->buf || n == 0)
		return;
	o->bytes += n;
	if (o->v2) {
		unsigned char h[5] = {(unsigned char)fd, (unsigned char)n, (unsigned char)(n >> 8),
		                      (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
		vd_buf_append(o->buf, h, sizeof(h));
	}
	vd_buf_append(o->buf, data, n);
}

void vd_out_printf(struct vd_out *o, int fd, const char *fmt, ...)
{
	struct vd_buf tmp = {0};
	va_list ap;
	va_start(ap, fmt);
	vd_buf_vprintf(&tmp, fmt, ap);
	va_end(ap);
	vd_out_write(o, fd, tmp.data, tmp.len);
	vd_buf_free(&tmp);
}

/* ---- parsing ------------------------------------------------------------------------------- */

enum tok_kind {
	T_WORD,
	T_SEMI,
	T_AND,
	T_OR,
	T_PIPE,
	T_GT,
	T_GTGT,
	T_LT,
	T_ERR_GT,
	T_ERR_TO_OUT,
	T_OUT_TO_ERR,
	T_END,
};

struct lexer {
	const char *p;
	int last_status;
	const char *error; /* syntax error message, or NULL */
	/* The word as a glob pattern (quoted metacharacters escaped) and whether it has unquoted ones. */
	struct vd_buf pat;
	bool glob;
};

/* What `ls /` shows on an Android 13 emulator: unquoted globs match against it (the shell's cwd). */
static const char *const root_entries[] = {
    "acct",        "apex", "bin",     "bugreports",      "cache",
    "config",      "d",    "data",    "data_mirror",     "debug_ramdisk",
    "dev",         "etc",  "init",    "init.environ.rc", "linkerconfig",
    "metadata",    "mnt",  "odm",     "odm_dlkm",        "oem",
    "postinstall", "proc", "product", "sdcard",          "second_stage_resources",
    "storage",     "sys",  "system",  "system_ext",      "vendor",
    "vendor_dlkm",
};

static void lexer_free(struct lexer *lx)
{
	vd_buf_free(&lx->pat);
}

static const char *env_value(const char *name, int last_status, char *tmp, size_t n)
{
	if (strcmp(name, "?") == 0) {
		snprintf(tmp, n, "%d", last_status);
		return tmp;
	}
	static const char *const env[][2] = {
	    {"HOME", "/"},
	    {"PATH", "/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/odm/bin"},
	    {"USER", "shell"},
	    {"SHELL", "/system/bin/sh"},
	    {"EXTERNAL_STORAGE", "/sdcard"},
	    {"TMPDIR", "/data/local/tmp"},
	    {"ANDROID_DATA", "/data"},
	    {"ANDROID_ROOT", "/system"},
	    {"HOSTNAME", "localhost"},
	};
	for (size_t i = 0; i < VD_ARRAY_SIZE(env); i++)
		if (strcmp(env[i][0], name) == 0)
			return env[i][1];
	return "";
}

/* Appends to the word; @quoted text never globs. */
static void add(struct lexer *lx, struct vd_buf *w, const char *s, size_t n, bool quoted)
{
	vd_buf_append(w, s, n);
	for (size_t i = 0; i < n; i++) {
		bool meta = s[i] == '*' || s[i] == '?' || s[i] == '[';
		if (meta && !quoted)
			lx->glob = true;
		else if (meta || s[i] == '\\')
			vd_buf_append(&lx->pat, "\\", 1);
		vd_buf_append(&lx->pat, &s[i], 1);
	}
}

static void expand_var(struct lexer *lx, struct vd_buf *w)
{
	char name[64], tmp[16];
	size_t n = 0;
	const char *p = lx->p + 1;
	if (*p == '{') {
		p++;
		while (*p && *p != '}' && n + 1 < sizeof(name))
			name[n++] = *p++;
		if (*p == '}')
			p++;
	} else if (*p == '?') {
		name[n++] = *p++;
	} else {
		while ((isalnum((unsigned char)*p) || *p == '_') && n + 1 < sizeof(name))
			name[n++] = *p++;
	}
	name[n] = '\0';
	if (n == 0) {
		add(lx, w, "$", 1, true);
		lx->p++;
		return;
	}
	const char *v = env_value(name, lx->last_status, tmp, sizeof(tmp));
	add(lx, w, v, strlen(v), true);
	lx->p = p;
}

/* Reads the next token; a word goes into @w with quotes removed and variables expanded. */
static enum tok_kind next_token(struct lexer *lx, struct vd_buf *w)
{
	vd_buf_reset(w);
	vd_buf_reset(&lx->pat);
	lx->glob = false;
	while (*lx->p == ' ' || *lx->p == '\t')
		lx->p++;
	if (*lx->p == '#') /* a comment runs to the end of the line */
		while (*lx->p && *lx->p != '\n')
			lx->p++;
	const char *p = lx->p;
	if (!*p)
		return T_END;
	if (p[0] == ';' || p[0] == '\n') {
		lx->p++;
		return T_SEMI;
	}
	if (p[0] == '&' && p[1] == '&') {
		lx->p += 2;
		return T_AND;
	}
	if (p[0] == '|' && p[1] == '|') {
		lx->p += 2;
		return T_OR;
	}
	if (p[0] == '|') {
		lx->p++;
		return T_PIPE;
	}
	if ((p[0] == '>' && p[1] == '&' && p[2] == '2') || (p[0] == '1' && p[1] == '>' && p[2] == '&' && p[3] == '2')) {
		lx->p += p[0] == '1' ? 4 : 3;
		return T_OUT_TO_ERR;
	}
	if (p[0] == '2' && p[1] == '>' && p[2] == '&' && p[3] == '1') {
		lx->p += 4;
		return T_ERR_TO_OUT;
	}
	if (p[0] == '2' && p[1] == '>') {
		lx->p += 2;
		return T_ERR_GT;
	}
	if (p[0] == '>' && p[1] == '>') {
		lx->p += 2;
		return T_GTGT;
	}
	if (p[0] == '>' || (p[0] == '1' && p[1] == '>')) {
		lx->p += p[0] == '1' ? 2 : 1;
		return T_GT;
	}
	if (p[0] == '<') {
		lx->p++;
		return T_LT;
	}
	if (p[0] == '(' || p[0] == ')' || p[0] == '`') {
		/* subshells and command substitution are not emulated: never let them pass as text */
		lx->error = p[0] == '`'
		                ? "syntax error: command substitution is not supported"
		                : (p[0] == '(' ? "syntax error: '(' unexpected" : "syntax error: ')' unexpected");
		return T_END;
	}
	bool any = false;
	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0' || strchr(" \t\n;&|<>", p[1]))) {
		add(lx, w, "/", p[1] == '/' ? 0 : 1, true); /* ~ is $HOME, which is / */
		lx->p++;
		any = true;
	}
	while (*lx->p && !strchr(" \t\n;&|<>()`", *lx->p)) {
		char ch = *lx->p;
		any = true;
		if (ch == '\'') {
			const char *end = strchr(lx->p + 1, '\'');
			if (!end) {
				lx->error = "syntax error: unterminated quoted string";
				return T_END;
			}
			add(lx, w, lx->p + 1, (size_t)(end - lx->p - 1), true);
			lx->p = end + 1;
		} else if (ch == '"') {
			lx->p++;
			while (*lx->p && *lx->p != '"') {
				if (*lx->p == '\\' && lx->p[1] && strchr("\"\\$`", lx->p[1])) {
					add(lx, w, lx->p + 1, 1, true);
					lx->p += 2;
				} else if (*lx->p == '$') {
					expand_var(lx, w);
				} else if (*lx->p == '`') {
					lx->error = "syntax error: command substitution is not supported";
					return T_END;
				} else {
					add(lx, w, lx->p++, 1, true);
				}
			}
			if (*lx->p != '"') {
				lx->error = "syntax error: unterminated quoted string";
				return T_END;
			}
			lx->p++;
		} else if (ch == '\\') {
			if (lx->p[1]) {
				if (lx->p[1] != '\n')
					add(lx, w, lx->p + 1, 1, true);
				lx->p += 2;
			} else {
				lx->p++;
			}
		} else if (ch == '$') {
			if (lx->p[1] == '(') {
				lx->error = "syntax error: command substitution is not supported";
				return T_END;
			}
			expand_var(lx, w);
		} else {
			add(lx, w, lx->p++, 1, false);
		}
	}
	if (!any && (*lx->p == '(' || *lx->p == ')' || *lx->p == '`'))
		return next_token(lx, w); /* reports the syntax error */
	if (!any) {
		/* a lone '&' (background): treat like ';' */
		lx->p++;
		return T_SEMI;
	}
	if (!w->data)
		vd_buf_append(w, "", 0);
	return T_WORD;
}

/* Adds the word to @argv, expanded against the root directory when it has unquoted glob characters. */
static bool add_word(struct lexer *lx, const char *word, char **argv, int *argc, int max)
{
	int before = *argc;
	if (lx->glob && lx->pat.data && !strchr(lx->pat.data, '/'))
		for (size_t i = 0; i < VD_ARRAY_SIZE(root_entries) && *argc < max; i++)
			if (fnmatch(lx->pat.data, root_entries[i], FNM_PERIOD) == 0)
				argv[(*argc)++] = vd_strdup(root_entries[i]);
	if (*argc == before) { /* no match: the word stays as it is, like mksh */
		if (*argc >= max)
			return false;
		argv[(*argc)++] = vd_strdup(word);
	}
	return true;
}

struct simple {
	char *argv[MAX_WORDS + 1];
	int argc;
	char *in_path;  /* < file */
	char *out_path; /* > file */
	bool append;
	bool err_null; /* 2>/dev/null */
	bool err_to_out;
	bool out_to_err;
};

static void simple_free(struct simple *s)
{
	for (int i = 0; i < s->argc; i++)
		free(s->argv[i]);
	free(s->out_path);
	free(s->in_path);
	memset(s, 0, sizeof(*s));
}

static int run_simple(struct vd_device *d, struct simple *s, const char *in, size_t in_len, struct vd_buf *out,
                      struct vd_buf *err, bool *exit_now)
{
	if (s->argc == 0)
		return 0;
	if (strcmp(s->argv[0], "exit") == 0) {
		long v = 0;
		if (s->argc > 1 && !vd_shell_parse_number(s->argv[1], &v)) {
			vd_buf_printf(err, "/system/bin/sh: exit: %s: bad number\n", s->argv[1]);
			v = 2;
		}
		*exit_now = true;
		return (int)(v & 0xff);
	}
	struct vd_cmd c = {
	    .d = d, .argc = s->argc, .argv = s->argv, .in = in, .in_len = in_len, .out = out, .err = err};
	return vd_command_run(&c);
}

/* Runs one pipeline; stdout goes to @final_out (or a file), stderr to @o. */
static int run_pipeline(struct vd_device *d, struct simple *cmds, int n, const char *in, size_t in_len,
                        struct vd_out *o, bool *exit_now)
{
	struct vd_buf pipe_in = {0};
	int status = 0;
	vd_buf_append(&pipe_in, in ? in : "", in_len);
	for (int i = 0; i < n; i++) {
		struct vd_buf out = {0}, err = {0};
		if (cmds[i].in_path) {
			struct vd_file *f = vd_fs_get(&d->fs, cmds[i].in_path);
			vd_buf_reset(&pipe_in);
			if (f) {
				vd_buf_append(&pipe_in, f->data, f->len);
			} else {
				vd_out_printf(o, 2, "/system/bin/sh: can't open %s: No such file or directory\n",
				              cmds[i].in_path);
				vd_buf_free(&pipe_in);
				status = 1;
				continue;
			}
		}
		status = run_simple(d, &cmds[i], pipe_in.data, pipe_in.len, &out, &err, exit_now);
		if (cmds[i].out_to_err) {
			vd_buf_append(&err, out.data, out.len);
			vd_buf_reset(&out);
		}
		if (cmds[i].err_to_out)
			vd_buf_append(&out, err.data, err.len);
		else if (!cmds[i].err_null)
			vd_out_write(o, 2, err.data, err.len);
		vd_buf_free(&pipe_in);
		if (cmds[i].out_path) {
			if (strcmp(cmds[i].out_path, "/dev/null") != 0) {
				struct vd_file *f = vd_fs_get(&d->fs, cmds[i].out_path);
				struct vd_buf content = {0};
				if (cmds[i].append && f)
					vd_buf_append(&content, f->data, f->len);
				vd_buf_append(&content, out.data, out.len);
				if (!vd_fs_writable(cmds[i].out_path) ||
				    !vd_fs_put(&d->fs, cmds[i].out_path, content.data ? content.data : "", content.len,
				               0100660, (uint32_t)time(NULL))) {
					vd_out_printf(o, 2, "/system/bin/sh: can't create %s: Permission denied\n",
					              cmds[i].out_path);
					status = 1;
				}
				vd_buf_free(&content);
			}
			vd_buf_free(&out);
		} else if (i + 1 < n) {
			pipe_in = out;
			continue;
		} else {
			vd_out_write(o, 1, out.data, out.len);
			vd_buf_free(&out);
		}
		vd_buf_free(&err);
	}
	vd_buf_free(&pipe_in);
	return status;
}

int vd_shell_run(struct vd_device *d, const char *cmdline, struct vd_out *o)
{
	return vd_shell_run_input(d, cmdline, NULL, 0, o);
}

int vd_shell_run_input(struct vd_device *d, const char *cmdline, const char *in, size_t in_len, struct vd_out *o)
{
	bool exit_now = false;
	if (strlen(cmdline) > MAX_CMDLINE) {
		vd_out_printf(o, 2, "/system/bin/sh: argument list too long\n");
		return 1;
	}
	struct lexer lx = {.p = cmdline};
	struct vd_buf w = {0};
	struct simple cmds[8];
	int ncmds = 1, status = 0;
	enum tok_kind pending = T_SEMI; /* how the next pipeline is chained to the previous one */
	bool skip = false;
	memset(cmds, 0, sizeof(cmds));
	/* Like mksh, a syntax error anywhere means nothing on the line runs. */
	while (next_token(&lx, &w) != T_END)
		;
	if (lx.error) {
		vd_out_printf(o, 2, "/system/bin/sh: %s\n", lx.error);
		lexer_free(&lx);
		vd_buf_free(&w);
		return 1;
	}
	lx.p = cmdline;
	for (;;) {
		enum tok_kind t = next_token(&lx, &w);
		struct simple *cur = &cmds[ncmds - 1];
		if (lx.error) {
			vd_out_printf(o, 2, "/system/bin/sh: %s\n", lx.error);
			status = 1;
			break;
		}
		if (t == T_WORD) {
			if (!add_word(&lx, w.data, cur->argv, &cur->argc, MAX_WORDS)) {
				vd_out_printf(o, 2, "/system/bin/sh: too many arguments\n");
				status = 2;
				break;
			}
			continue;
		}
		if (t == T_LT) {
			if (next_token(&lx, &w) != T_WORD) {
				vd_out_printf(o, 2, "/system/bin/sh: syntax error: unexpected redirection\n");
				status = 1;
				break;
			}
			free(cur->in_path);
			cur->in_path = vd_strdup(w.data);
			continue;
		}
		if (t == T_GT || t == T_GTGT || t == T_ERR_GT) {
			if (next_token(&lx, &w) != T_WORD) {
				vd_out_printf(o, 2, "/system/bin/sh: syntax error: unexpected redirection\n");
				status = 2;
				break;
			}
			if (t == T_ERR_GT) {
				cur->err_null = true; /* stderr to any file is dropped */
			} else {
				free(cur->out_path);
				cur->out_path = vd_strdup(w.data);
				cur->append = t == T_GTGT;
			}
			continue;
		}
		if (t == T_ERR_TO_OUT) {
			cur->err_to_out = true;
			continue;
		}
		if (t == T_OUT_TO_ERR) {
			cur->out_to_err = true;
			continue;
		}
		if (t == T_PIPE) {
			if (ncmds >= (int)VD_ARRAY_SIZE(cmds) || cur->argc == 0) {
				vd_out_printf(o, 2, "/system/bin/sh: syntax error: unexpected '|'\n");
				status = 2;
				break;
			}
			ncmds++;
			continue;
		}
		/* ; && || or the end: run the pipeline collected so far */
		if (!skip && cmds[0].argc > 0) {
			status = run_pipeline(d, cmds, ncmds, in, in_len, o, &exit_now);
			in = NULL; /* only the first pipeline reads stdin */
			in_len = 0;
			lx.last_status = status;
		}
		for (int i = 0; i < ncmds; i++)
			simple_free(&cmds[i]);
		ncmds = 1;
		if (t == T_END || d->drop_connections || exit_now)
			break;
		pending = t;
		skip = (pending == T_AND && status != 0) || (pending == T_OR && status == 0);
	}
	for (int i = 0; i < (int)VD_ARRAY_SIZE(cmds); i++)
		simple_free(&cmds[i]);
	lexer_free(&lx);
	vd_buf_free(&w);
	return status;
}

bool vd_shell_reads_stdin(const char *cmdline)
{
	struct lexer lx = {.p = cmdline};
	struct vd_buf w = {0};
	bool reads = false, is_cat = false, from_file = false;
	int words = 0;
	enum tok_kind t;
	while ((t = next_token(&lx, &w)) == T_WORD || t == T_GT || t == T_GTGT || t == T_ERR_GT || t == T_ERR_TO_OUT ||
	       t == T_OUT_TO_ERR || t == T_LT) {
		if (t == T_LT)
			from_file = true; /* stdin comes from a file */
		if (t == T_LT || t == T_GT || t == T_GTGT || t == T_ERR_GT) {
			next_token(&lx, &w); /* the redirection target */
			continue;
		}
		if (t != T_WORD)
			continue;
		if (words++ == 0) {
			is_cat = strcmp(w.data, "cat") == 0;
			reads = is_cat || strcmp(w.data, "grep") == 0 || strcmp(w.data, "wc") == 0 ||
			        strcmp(w.data, "head") == 0 || strcmp(w.data, "tail") == 0;
		} else if (is_cat && w.data[0] != '-') {
			reads = false; /* cat FILE */
		}
	}
	vd_buf_free(&w);
	lexer_free(&lx);
	return reads && !from_file && !lx.error;
}

/* ---- streamed install ---------------------------------------------------------------------- */

bool vd_shell_is_streamed_install(const char *cmdline, uint64_t *size)
{
	/* "cmd package 'install' -S 1234" (adb quotes the verb) or "pm install -S 1234" */
	struct lexer lx = {.p = cmdline};
	struct vd_buf w = {0};
	char *words[8] = {0};
	int n = 0;
	bool found = false;
	while (n < 8 && next_token(&lx, &w) == T_WORD)
		words[n++] = vd_strdup(w.data);
	int i = 0;
	if (n >= 1 && words[0] && strcmp(words[0], "cmd") == 0 && n >= 2 && words[1] &&
	    strcmp(words[1], "package") == 0)
		i = 2;
	else if (n >= 1 && words[0] && strcmp(words[0], "pm") == 0)
		i = 1;
	else
		goto out;
	if (i >= n || !words[i] || strcmp(words[i], "install") != 0)
		goto out;
	for (int k = i + 1; k + 1 < n; k++)
		if (words[k] && strcmp(words[k], "-S") == 0) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(words[k + 1] ? words[k + 1] : "", &end, 10);
			if (!errno && *end == '\0' && v <= VD_FS_MAX) {
				*size = v;
				found = true;
			}
		}
out:
	for (int k = 0; k < n; k++)
		free(words[k]);
	lexer_free(&lx);
	vd_buf_free(&w);
	return found;
}

int vd_shell_finish_install(struct vd_device *d, const char *data, size_t len, struct vd_out *out)
{
	struct vd_buf b = {0};
	int r = vd_install_bytes(d, data ? data : "", len, &b);
	vd_out_write(out, 1, b.data, b.len);
	vd_buf_free(&b);
	return r;
}
