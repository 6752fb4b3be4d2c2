/* process.c: processes.json: the child processes this server manages, with a fingerprint for safe reaping. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store-internal.h"
#include "sw-proc.h"

#define PROCESSES_CAP 100

/* Runs `ps -o <field>= -p <pid>` under the C locale; returns its output with whitespace runs folded. */
static char *ps_field(int pid, const char *field)
{
	char pidbuf[32], fmt[32];
	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	snprintf(fmt, sizeof(fmt), "%s=", field);
	const char *argv[] = {"ps", "-o", fmt, "-p", pidbuf, NULL};
	char *envp[] = {(char *)"LC_ALL=C", (char *)"LANG=C", (char *)"PATH=/usr/bin:/bin:/usr/sbin:/sbin", NULL};
	/* the core runner; PATH lookup happens in the child with the environment above */
	sw__proc_opts po = {.timeout_ms = 5000, .max_out = 65536, .search_path = true, .envp = envp};
	sw__proc_result r;
	if (sw__proc_run(argv, &po, &r, NULL) != SW_OK)
		return NULL;
	sw_buf b = SW_BUF_INIT;
	sw__buf_append(&b, r.out, r.out_len);
	sw__proc_result_clear(&r);
	char *raw = sw__buf_steal(&b, NULL);
	if (!raw)
		return NULL;
	/* normalise whitespace: trim, and fold runs into one space */
	size_t o = 0;
	bool space = false;
	for (size_t i = 0; raw[i]; i++) {
		if (strchr(" \t\r\n", raw[i])) {
			space = o > 0;
			continue;
		}
		if (space)
			raw[o++] = ' ';
		space = false;
		raw[o++] = raw[i];
	}
	raw[o] = '\0';
	if (!o) {
		free(raw);
		return NULL;
	}
	return raw;
}

static int read_processes(sw_store *store, const char *path, json_t **out)
{
	char *text = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	int rc = sw__read_file(path, 16 * 1024 * 1024, &text, &len, &e);
	sw_error_free(e);
	if (rc == SW_ENOTFOUND) {
		*out = json_array();
		return SW_OK;
	}
	json_t *arr = rc == SW_OK ? json_loadb(text, len, 0, NULL) : NULL;
	free(text);
	if (!json_is_array(arr)) {
		json_decref(arr);
		sw__store_set_aside(store, path, "processes.json is not a JSON array");
		*out = json_array();
		return SW_OK;
	}
	*out = arr;
	return SW_OK;
}

/* Applies @edit to processes.json under its lock. */
static int edit_processes(sw_store *store, json_t *add, int remove_pid, sw_error **err)
{
	char *path = sw__path_join(store->dir, "processes.json");
	if (!path)
		return sw__error_nomem(err);
	int rc = sw__mkdirs(store->dir, 0700, err);
	if (rc) {
		free(path);
		return rc;
	}
	int lfd = sw__store_lock(path, err);
	if (lfd < 0) {
		free(path);
		return lfd;
	}
	json_t *arr = NULL;
	read_processes(store, path, &arr);
	if (!arr) {
		rc = sw__error_nomem(err);
		goto out;
	}
	size_t n = json_array_size(arr);
	for (size_t i = n; i-- > 0;) {
		json_t *pid = json_object_get(json_array_get(arr, i), "pid");
		json_int_t p = json_is_integer(pid) ? json_integer_value(pid) : -1;
		if (p == remove_pid || (add && p == json_integer_value(json_object_get(add, "pid"))))
			json_array_remove(arr, i);
	}
	if (add)
		json_array_append(arr, add);
	while (json_array_size(arr) > PROCESSES_CAP)
		json_array_remove(arr, 0);
	char *text = sw__json_pretty(arr);
	if (!text)
		rc = sw__error_nomem(err);
	else
		rc = sw_file_write_atomic(path, text, strlen(text), 0, err);
	free(text);
out:
	json_decref(arr);
	sw__store_unlock(lfd);
	free(path);
	return rc;
}

SW_API int sw_store_process_add(sw_store *store, int pid, const char *kind, const char *session_id,
                                const char *endpoint, sw_error **err)
{
	if (!store || pid <= 0 || !kind ||
	    (strcmp(kind, "metro") && strcmp(kind, "wda") && strcmp(kind, "recording") && strcmp(kind, "emulator")))
		return sw__error_set(
		    err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		    "sw_store_process_add: pid > 0 and kind metro|wda|recording|emulator are required");
	char *start = ps_field(pid, "lstart");
	char *cmd = ps_field(pid, "command");
	char *server_start = ps_field((int)getpid(), "lstart");
	char *iso = sw__iso_now();
	json_t *e = json_object();
	int rc = SW_OK;
	if (!e || !iso) {
		rc = sw__error_nomem(err);
		goto out;
	}
	json_object_set_new(e, "pid", json_integer(pid));
	json_object_set_new(e, "kind", json_string(kind));
	json_object_set_new(e, "serverPid", json_integer(getpid()));
	if (session_id)
		json_object_set_new(e, "sessionId", json_string(session_id));
	json_object_set_new(e, "startedAt", json_string(iso));
	if (endpoint)
		json_object_set_new(e, "endpoint", json_string(endpoint));
	/* without a fingerprint an entry is never signalled later, only dropped */
	if (start)
		json_object_set_new(e, "procStart", json_string(start));
	if (cmd)
		json_object_set_new(e, "command", json_string(cmd));
	json_object_set_new(e, "groupLeader", json_boolean(getpgid(pid) == pid));
	if (server_start)
		json_object_set_new(e, "serverStart", json_string(server_start));
	rc = edit_processes(store, e, -1, err);
out:
	json_decref(e);
	free(start);
	free(cmd);
	free(server_start);
	free(iso);
	return rc;
}

SW_API int sw_store_process_remove(sw_store *store, int pid, sw_error **err)
{
	if (!store || pid <= 0)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_store_process_remove: bad arguments");
	return edit_processes(store, NULL, pid, err);
}

SW_API int sw_store_processes_json(sw_store *store, char **out, sw_error **err)
{
	if (!store || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_store_processes_json: bad arguments");
	char *path = sw__path_join(store->dir, "processes.json");
	if (!path)
		return sw__error_nomem(err);
	json_t *arr = NULL;
	read_processes(store, path, &arr);
	free(path);
	char *text = arr ? sw__json_compact(arr) : NULL;
	json_decref(arr);
	if (!text)
		return sw__error_nomem(err);
	*out = text;
	return SW_OK;
}

/* ---- the orphan sweep ------------------------------------------------------ */

#define WDA_ADOPT_MAX_AGE_MS (12LL * 3600 * 1000)

static const char *base_name(const char *tok, size_t len, size_t *blen)
{
	const char *b = tok;
	for (size_t i = 0; i < len; i++)
		if (tok[i] == '/')
			b = tok + i + 1;
	*blen = len - (size_t)(b - tok);
	return b;
}

/* The part of a command line that identifies a process of @kind (see docs/sessions.md). */
static char *command_key(const char *kind, const char *cmd)
{
	const char *p = cmd;
	if (!strcmp(kind, "metro")) {
		/* drop the launchers in front: node, npx, npm, env and env's NAME=value words */
		for (;;) {
			const char *sp = strchr(p, ' ');
			size_t len = sp ? (size_t)(sp - p) : strlen(p), bl;
			const char *b = base_name(p, len, &bl);
			bool launcher = (bl == 4 && !strncmp(b, "node", 4)) || (bl == 3 && !strncmp(b, "npx", 3)) ||
			                (bl == 3 && !strncmp(b, "npm", 3)) || (bl == 3 && !strncmp(b, "env", 3)) ||
			                (memchr(p, '=', len) && p[0] != '-');
			if (!launcher || !sp)
				break;
			p = sp + 1;
		}
		return sw__strdup(p);
	}
	const char *sp = strchr(p, ' ');
	size_t len = sp ? (size_t)(sp - p) : strlen(p), bl;
	const char *b = base_name(p, len, &bl);
	return sw__asprintf("%.*s%s", (int)bl, b, sp ? sp : "");
}

/* Is the server that recorded @e still running (same pid and the same start time)? */
static bool server_alive(const json_t *e)
{
	json_t *sp = json_object_get(e, "serverPid");
	const char *ss = json_string_value(json_object_get(e, "serverStart"));
	if (!json_is_integer(sp) || json_integer_value(sp) <= 0)
		return false;
	int pid = (int)json_integer_value(sp);
	if (pid == (int)getpid())
		return true;
	if (kill(pid, 0) != 0)
		return false;
	char *now = ps_field(pid, "lstart");
	bool same = now && ss && !strcmp(now, ss);
	free(now);
	return same;
}

/* GET <endpoint>/status answers 2xx within 1.5 s. Without libcurl nothing can be probed: not healthy. */
static bool wda_healthy(const char *endpoint)
{
	if (!endpoint || (!sw__str_has_prefix(endpoint, "http://") && !sw__str_has_prefix(endpoint, "https://")))
		return false;
	size_t n = strlen(endpoint);
	char *url = sw__asprintf("%.*s/status", (int)(n && endpoint[n - 1] == '/' ? n - 1 : n), endpoint);
	long code = 0;
	if (url && sw__http_get(url, 1500, &code, NULL, 0, NULL) != SW_OK)
		code = 0;
	free(url);
	return code >= 200 && code < 300;
}

static int64_t iso_ms(const char *s)
{
	struct tm tm = {0};
	int ms = 0;
	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
	                 &tm.tm_sec, &ms) < 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000 + ms;
}

/* @probe_wda false (start-up): a WDA entry young enough to adopt is kept as it is, unprobed (no HTTP, so no
 * libcurl at start-up): the first iOS call sweeps again with the probe (drivers/ios/wda-managed.c). */
static int sweep(sw_store *store, bool probe_wda, char **summary_json, sw_error **err);

SW_API int sw_store_sweep_processes(sw_store *store, char **summary_json, sw_error **err)
{
	return sweep(store, true, summary_json, err);
}

SW_API int sw_store_sweep_processes_startup(sw_store *store, char **summary_json, sw_error **err)
{
	return sweep(store, false, summary_json, err);
}

static int sweep(sw_store *store, bool probe_wda, char **summary_json, sw_error **err)
{
	if (!store)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_store_sweep_processes: store is NULL");
	char *path = sw__path_join(store->dir, "processes.json");
	if (!path)
		return sw__error_nomem(err);
	if (!sw__is_file(path)) {
		free(path);
		if (summary_json)
			*summary_json =
			    sw__strdup("{\"checked\":0,\"reaped\":0,\"adopted\":0,\"dropped\":0,\"kept\":0}");
		return summary_json && !*summary_json ? sw__error_nomem(err) : SW_OK;
	}
	int lfd = sw__store_lock(path, err);
	if (lfd < 0) {
		free(path);
		return lfd;
	}
	json_t *arr = NULL, *keep = json_array();
	read_processes(store, path, &arr);
	size_t checked = 0, reaped = 0, adopted = 0, dropped = 0, kept = 0, deferred = 0;
	char *self_start = ps_field((int)getpid(), "lstart");
	int rc = SW_OK;
	if (!arr || !keep) {
		rc = sw__error_nomem(err);
		goto out;
	}
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
	{
		checked++;
		if (server_alive(e)) {
			json_array_append(keep, e); /* a live server (maybe this one) owns it */
			kept++;
			continue;
		}
		json_t *jp = json_object_get(e, "pid");
		const char *kind = json_string_value(json_object_get(e, "kind"));
		const char *start = json_string_value(json_object_get(e, "procStart"));
		const char *cmd = json_string_value(json_object_get(e, "command"));
		int pid = json_is_integer(jp) ? (int)json_integer_value(jp) : 0;
		if (pid <= 1 || !kind || !start || !cmd) {
			dropped++; /* no fingerprint: never signalled */
			continue;
		}
		char *now_start = ps_field(pid, "lstart"), *now_cmd = ps_field(pid, "command");
		char *k1 = now_cmd ? command_key(kind, cmd) : NULL, *k2 = now_cmd ? command_key(kind, now_cmd) : NULL;
		bool same = now_start && !strcmp(now_start, start) && k1 && k2 && !strcmp(k1, k2);
		free(now_start);
		free(now_cmd);
		free(k1);
		free(k2);
		if (!same) {
			dropped++; /* gone, or the pid now belongs to another program */
			continue;
		}
		bool adopt = !strcmp(kind, "emulator");
		if (!strcmp(kind, "wda")) {
			int64_t age = sw_wall_ms() - iso_ms(json_string_value(json_object_get(e, "startedAt")));
			if (!probe_wda && age >= 0 && age < WDA_ADOPT_MAX_AGE_MS) {
				json_array_append(keep, e); /* decided by the first iOS call, which probes /status */
				deferred++;
				continue;
			}
			adopt = age >= 0 && age < WDA_ADOPT_MAX_AGE_MS &&
			        wda_healthy(json_string_value(json_object_get(e, "endpoint")));
		}
		if (adopt) {
			json_t *c = json_deep_copy(e);
			if (c) {
				json_object_set_new(c, "serverPid", json_integer(getpid()));
				if (self_start)
					json_object_set_new(c, "serverStart", json_string(self_start));
				json_array_append_new(keep, c);
			}
			adopted++;
			continue;
		}
		bool leader = json_is_true(json_object_get(e, "groupLeader"));
		kill(leader ? -pid : pid, SIGTERM);
		reaped++;
		json_t *f = json_pack("{s:i, s:s, s:b}", "pid", pid, "kind", kind, "group", leader);
		sw__log(store->ctx, SW_LOG_INFO, f, "stopped an orphaned managed process");
		json_decref(f);
	}
	if (json_array_size(keep) != json_array_size(arr) || adopted) {
		char *text = sw__json_pretty(keep);
		if (!text)
			rc = sw__error_nomem(err);
		else
			rc = sw_file_write_atomic(path, text, strlen(text), 0, err);
		free(text);
	}
	if (rc == SW_OK && summary_json) {
		json_t *sum =
		    json_pack("{s:I, s:I, s:I, s:I, s:I}", "checked", (json_int_t)checked, "reaped", (json_int_t)reaped,
		              "adopted", (json_int_t)adopted, "dropped", (json_int_t)dropped, "kept", (json_int_t)kept);
		if (sum && deferred)
			json_object_set_new(sum, "deferred", json_integer((json_int_t)deferred));
		*summary_json = sum ? sw__json_compact(sum) : NULL;
		json_decref(sum);
		if (!*summary_json)
			rc = sw__error_nomem(err);
	}
out:
	free(self_start);
	json_decref(arr);
	json_decref(keep);
	sw__store_unlock(lfd);
	free(path);
	return rc;
}
