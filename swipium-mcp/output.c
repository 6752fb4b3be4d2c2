/* output.c: the only writer of protocol bytes (stdout) and of JSON log lines (stderr). */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "mcp.h"

void mcp_trim_memory(void)
{
#ifdef __GLIBC__
	/* freed arenas of a large message go back to the system, so a long session stays small */
	malloc_trim(0);
#endif
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void send_line(struct mcp_server *s, const char *line, size_t len)
{
	pthread_mutex_lock(&s->out_lock);
	/* A closed stdout (EPIPE) means the client is gone; the reader sees EOF and shuts down. */
	if (write_all(s->out_fd, line, len) == 0)
		(void)write_all(s->out_fd, "\n", 1);
	pthread_mutex_unlock(&s->out_lock);
}

void mcp_send(struct mcp_server *s, json_t *msg)
{
	if (!msg)
		return;
	char *line = mcp_json_line(msg);
	json_decref(msg);
	if (!line) {
		mcp_log(SW_LOG_ERROR, "could not serialise a protocol message", NULL);
		return;
	}
	send_line(s, line, strlen(line));
	free(line);
}

void mcp_send_result(struct mcp_server *s, const json_t *id, json_t *result)
{
	/* Every request gets exactly one answer: a result that could not be built becomes an internal error. */
	if (!result) {
		mcp_log(SW_LOG_ERROR, "a result could not be built", NULL);
		mcp_send_error(s, id, RPC_INTERNAL_ERROR, "Internal error: the result could not be built", NULL);
		return;
	}
	json_t *msg = json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id ? (json_t *)id : json_null(), "result",
	                        result);
	if (!msg) {
		mcp_send_error(s, id, RPC_INTERNAL_ERROR, "Internal error: the result could not be built", NULL);
		return;
	}
	mcp_send(s, msg);
}

void mcp_send_result_text(struct mcp_server *s, const json_t *id, const char *result_json)
{
	/* Splices a prebuilt result (tools/list ...) without re-serialising it. */
	char *idtext = mcp_json_line(id);
	if (!idtext)
		return;
	size_t n = strlen(idtext) + strlen(result_json) + 40;
	char *line = malloc(n);
	if (line) {
		int len = snprintf(line, n, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}", idtext, result_json);
		if (len > 0)
			send_line(s, line, (size_t)len);
		free(line);
	}
	free(idtext);
}

void mcp_send_error(struct mcp_server *s, const json_t *id, int code, const char *message, json_t *data)
{
	mcp_send(s, mcp_error_msg(id, code, message, data));
}

/* ---- logging -------------------------------------------------------------- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* SWIPIUM_LOG_LEVEL is read on every line: trimmed, lower-cased; unknown means info. */
static sw_log_level env_level(void)
{
	const char *v = getenv("SWIPIUM_LOG_LEVEL");
	if (!v)
		return SW_LOG_INFO;
	while (*v == ' ' || *v == '\t')
		v++;
	size_t n = strlen(v);
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\n' || v[n - 1] == '\r'))
		n--;
	static const char *const names[] = {"debug", "info", "warn", "error"};
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == n && strncasecmp(v, names[i], n) == 0)
			return (sw_log_level)i;
	return SW_LOG_INFO;
}

static void emit(sw_log_level level, const char *msg, json_t *fields)
{
	static const char *const names[] = {"debug", "info", "warn", "error"};
	if (level < env_level())
		return;
	char when[SW_ISO_TIME_SIZE];
	sw_iso_time(sw_wall_ms(), when);
	json_t *line = json_pack("{s:s,s:s,s:s}", "ts", when, "level", names[level], "msg", msg ? msg : "");
	if (!line)
		return;
	if (fields)
		json_object_update_missing(line, fields);
	char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(line);
	if (!text)
		return;
	pthread_mutex_lock(&log_lock);
	size_t n = strlen(text);
	text[n] = '\n';
	(void)write_all(STDERR_FILENO, text, n + 1);
	pthread_mutex_unlock(&log_lock);
	free(text);
}

void mcp_log(sw_log_level level, const char *msg, json_t *fields)
{
	emit(level, msg, fields);
	json_decref(fields);
}

void mcp_log_fn(sw_log_level level, const char *msg, const char *fields_json, void *userdata)
{
	(void)userdata;
	json_t *fields = fields_json ? json_loads(fields_json, 0, NULL) : NULL;
	if (fields && !json_is_object(fields)) {
		json_decref(fields);
		fields = NULL;
	}
	emit(level, msg, fields);
	json_decref(fields);
}
