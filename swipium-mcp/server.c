/* server.c: protocol eras, method dispatch, the worker thread, requests to the client, cancellation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp.h"

struct mcp_server *mcp_srv;

static const char *const legacy_versions[] = {"2025-11-25", "2025-06-18", NULL};

/* ---- helpers ------------------------------------------------------------- */

static json_t *capabilities(void)
{
	return json_pack("{s:{s:b},s:{s:b},s:{s:b,s:b},s:{}}", "tools", "listChanged", 0, "prompts", "listChanged", 0,
	                 "resources", "subscribe", 0, "listChanged", 0, "logging");
}

static json_t *server_info(void)
{
	return json_pack("{s:s,s:s,s:s}", "name", MCP_SERVER_NAME, "title", "Swipium mobile QA", "version",
	                 sw_version());
}

/* Adds the 2026-07-28 fields to a result object. */
static json_t *stateless_result(json_t *result, bool cacheable_public, bool cache_private)
{
	json_object_set_new(result, "resultType", json_string("complete"));
	if (cacheable_public) {
		json_object_set_new(result, "ttlMs", json_integer(3600000));
		json_object_set_new(result, "cacheScope", json_string("public"));
	} else if (cache_private) {
		json_object_set_new(result, "ttlMs", json_integer(0));
		json_object_set_new(result, "cacheScope", json_string("private"));
	}
	return result;
}

/* Prebuilt result text with the 2026 fields appended (for prompts/list, templates). */
static void send_fixed(struct mcp_server *s, const json_t *id, const char *text, bool stateless)
{
	if (!stateless) {
		mcp_send_result_text(s, id, text);
		return;
	}
	json_t *r = json_loads(text, 0, NULL);
	if (!r) {
		mcp_send_error(s, id, RPC_INTERNAL_ERROR, "Internal error", NULL);
		return;
	}
	mcp_send_result(s, id, stateless_result(r, true, false));
}

static bool has_meta_envelope(const json_t *params)
{
	json_t *meta = params ? json_object_get(params, "_meta") : NULL;
	if (!json_is_object(meta))
		return false;
	const char *key;
	json_t *v;
	json_object_foreach(meta, key, v)
	{
		if (strncmp(key, MCP_META_PREFIX, strlen(MCP_META_PREFIX)) == 0)
			return true;
	}
	return false;
}

/* 2026-07-28: checks the per-request version. Returns false (and answered) on a mismatch. */
static bool check_stateless_version(struct mcp_server *s, const struct mcp_msg *m)
{
	json_t *meta = m->params ? json_object_get(m->params, "_meta") : NULL;
	json_t *v = json_is_object(meta) ? json_object_get(meta, MCP_META_VERSION) : NULL;
	if (!v)
		return true; /* lenient: a request without the key is served as 2026-07-28 */
	if (json_is_string(v) && strcmp(json_string_value(v), MCP_ERA_2026) == 0)
		return true;
	char msg[300];
	char *asked = sw_text_cap(json_is_string(v) ? json_string_value(v) : "(not a string)", (size_t)-1, 64,
	                          SW_CAP_HEAD_TAIL);
	sw_text_snprintf(msg, sizeof(msg), "Unsupported protocol version: %s (supported: %s)", asked ? asked : "",
	                 MCP_ERA_2026);
	sw_free(asked);
	mcp_send_error(
	    s, m->id, RPC_UNSUPPORTED_VERSION, msg,
	    json_pack("{s:O,s:[s]}", "requested", json_is_string(v) ? v : json_null(), "supported", MCP_ERA_2026));
	return false;
}

/* ---- the in-flight table and the worker queue ---------------------------- */

static struct mcp_inflight *inflight_find(struct mcp_server *s, const json_t *id)
{
	for (struct mcp_inflight *f = s->inflight; f; f = f->next)
		if (json_equal(f->id, (json_t *)id))
			return f;
	return NULL;
}

static void inflight_free(struct mcp_inflight *f)
{
	if (!f)
		return;
	json_decref(f->id);
	json_decref(f->msg);
	free(f);
}

static void enqueue(struct mcp_server *s, struct mcp_msg *m)
{
	struct mcp_inflight *f = calloc(1, sizeof(*f));
	if (!f) {
		mcp_send_error(s, m->id, RPC_INTERNAL_ERROR, "Internal error: out of memory", NULL);
		return;
	}
	pthread_mutex_lock(&s->lock);
	if (s->queued >= MCP_MAX_QUEUED_REQUESTS || s->queued_bytes + m->bytes > MCP_MAX_QUEUED_BYTES) {
		/* Bounded memory behind a blocked call: refuse now (the client may retry), never keep all. */
		size_t n = s->queued, bytes = s->queued_bytes;
		pthread_mutex_unlock(&s->lock);
		free(f);
		char msg[300];
		snprintf(msg, sizeof(msg),
		         "Server busy: %zu request(s) (%zu bytes) already wait behind a running call (limits %d and "
		         "%zu bytes); retry after it finished",
		         n, bytes, MCP_MAX_QUEUED_REQUESTS, MCP_MAX_QUEUED_BYTES);
		mcp_send_error(s, m->id, RPC_SERVER_BUSY, msg,
		               json_pack("{s:s,s:I,s:I}", "reason", "queue_full", "queued", (json_int_t)n, "queuedBytes",
		                         (json_int_t)bytes));
		return;
	}
	f->msg = json_incref(m->root);
	f->id = json_incref(m->id);
	f->bytes = m->bytes;
	s->queued++;
	s->queued_bytes += m->bytes;
	f->next = s->inflight;
	s->inflight = f;
	if (s->queue_tail)
		s->queue_tail->qnext = f;
	else
		s->queue_head = f;
	s->queue_tail = f;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static void inflight_remove(struct mcp_server *s, struct mcp_inflight *f)
{
	pthread_mutex_lock(&s->lock);
	for (struct mcp_inflight **pp = &s->inflight; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	inflight_free(f);
}

void *mcp_worker_main(void *arg)
{
	struct mcp_server *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->lock);
		while (!s->queue_head && !s->shutting_down)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->shutting_down) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		struct mcp_inflight *f = s->queue_head;
		s->queue_head = f->qnext;
		if (!s->queue_head)
			s->queue_tail = NULL;
		s->queued--;
		s->queued_bytes -= f->bytes;
		pthread_mutex_unlock(&s->lock);

		if (!atomic_load(&f->cancelled)) {
			const char *method = json_string_value(json_object_get(f->msg, "method"));
			if (!strcmp(method, "tools/call"))
				mcp_tools_call(s, f);
			else if (!strcmp(method, "resources/list"))
				mcp_resources_list(s, f);
			else if (!strcmp(method, "resources/read"))
				mcp_resources_read(s, f);
		}
		bool large = f->bytes >= MCP_TRIM_AFTER_BYTES;
		inflight_remove(s, f);
		if (large)
			mcp_trim_memory();
	}
	return NULL;
}

/* Called by the reader on stdin EOF or a signal: every call stops, nothing new starts. */
void mcp_server_shutdown_calls(struct mcp_server *s)
{
	pthread_mutex_lock(&s->lock);
	s->shutting_down = true;
	for (struct mcp_inflight *f = s->inflight; f; f = f->next)
		atomic_store(&f->cancelled, 1);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* ---- requests to the client ------------------------------------------------ */

json_t *mcp_client_request(struct mcp_server *s, const char *method, json_t *params, long timeout_ms,
                           struct mcp_inflight *call, const char **why)
{
	struct mcp_outgoing *o = calloc(1, sizeof(*o));
	if (!o) {
		json_decref(params);
		*why = "out of memory";
		return NULL;
	}
	pthread_mutex_lock(&s->lock);
	snprintf(o->id, sizeof(o->id), "swipium-%u", ++s->next_out_id);
	o->next = s->outgoing;
	s->outgoing = o;
	pthread_mutex_unlock(&s->lock);

	json_t *msg = json_pack("{s:s,s:s,s:s,s:o}", "jsonrpc", "2.0", "id", o->id, "method", method, "params",
	                        params ? params : json_object());
	mcp_send(s, msg);

	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline); /* s->cond waits on the monotonic clock (main.c) */
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	json_t *resp = NULL;
	*why = NULL;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		if (o->done) {
			resp = o->response;
			o->response = NULL;
			break;
		}
		if (s->shutting_down) {
			*why = "transport closed";
			break;
		}
		if (call && atomic_load(&call->cancelled)) {
			*why = "aborted";
			break;
		}
		if (pthread_cond_timedwait(&s->cond, &s->lock, &deadline) == ETIMEDOUT && !o->done) {
			*why = "timeout";
			break;
		}
	}
	for (struct mcp_outgoing **pp = &s->outgoing; *pp; pp = &(*pp)->next) {
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	json_decref(o->response);
	free(o);
	if (!resp && !*why)
		*why = "no response";
	if (resp && json_object_get(resp, "error")) {
		*why = "the client answered with an error";
		json_decref(resp);
		return NULL;
	}
	return resp;
}

static void route_response(struct mcp_server *s, struct mcp_msg *m)
{
	if (!json_is_string(m->id))
		return;
	pthread_mutex_lock(&s->lock);
	for (struct mcp_outgoing *o = s->outgoing; o; o = o->next) {
		if (!strcmp(o->id, json_string_value(m->id)) && !o->done) {
			o->response = json_incref(m->root);
			o->done = true;
			pthread_cond_broadcast(&s->cond);
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
}

/* ---- methods handled on the reader thread ---------------------------------- */

static void handle_initialize(struct mcp_server *s, struct mcp_msg *m)
{
	if (s->era == MCP_ERA_LEGACY && s->initialized) {
		mcp_send_error(s, m->id, RPC_INVALID_REQUEST, "Invalid Request: the connection is already initialized",
		               NULL);
		return;
	}
	json_t *pv = m->params ? json_object_get(m->params, "protocolVersion") : NULL;
	if (!json_is_string(pv)) {
		mcp_send_error(s, m->id, RPC_INVALID_PARAMS,
		               "Invalid params: initialize needs a protocolVersion string", NULL);
		return;
	}
	const char *chosen = legacy_versions[0];
	for (int i = 0; legacy_versions[i]; i++)
		if (!strcmp(json_string_value(pv), legacy_versions[i]))
			chosen = legacy_versions[i];
	pthread_mutex_lock(&s->lock);
	s->era = MCP_ERA_LEGACY;
	s->initialized = true;
	snprintf(s->legacy_version, sizeof(s->legacy_version), "%s", chosen);
	json_decref(s->client_caps);
	json_t *caps = json_object_get(m->params, "capabilities");
	s->client_caps = json_is_object(caps) ? json_incref(caps) : json_object();
	json_decref(s->client_info);
	s->client_info = json_incref(json_object_get(m->params, "clientInfo"));
	s->roots_stale = true;
	pthread_mutex_unlock(&s->lock);
	json_t *info = s->client_info;
	mcp_log(SW_LOG_DEBUG, "mcp connection era",
	        json_pack("{s:s,s:s,s:s*}", "era", "legacy", "protocolVersion", chosen, "client",
	                  json_is_object(info) ? json_string_value(json_object_get(info, "name")) : NULL));
	mcp_send_result(s, m->id,
	                json_pack("{s:s,s:o,s:o,s:s}", "protocolVersion", chosen, "capabilities", capabilities(),
	                          "serverInfo", server_info(), "instructions", mcp_instructions()));
}

static void handle_discover(struct mcp_server *s, struct mcp_msg *m)
{
	json_t *r = json_pack("{s:[s],s:o,s:o,s:s}", "supportedVersions", MCP_ERA_2026, "capabilities", capabilities(),
	                      "serverInfo", server_info(), "instructions", mcp_instructions());
	json_object_del(json_object_get(r, "capabilities"), "logging");
	mcp_send_result(s, m->id, stateless_result(r, true, false));
}

static void handle_cancelled(struct mcp_server *s, struct mcp_msg *m)
{
	json_t *rid = m->params ? json_object_get(m->params, "requestId") : NULL;
	if (!rid)
		return;
	pthread_mutex_lock(&s->lock);
	struct mcp_inflight *f = inflight_find(s, rid);
	if (f)
		atomic_store(&f->cancelled, 1);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static void handle_request(struct mcp_server *s, struct mcp_msg *m)
{
	const char *method = m->method;
	bool stateless_request = has_meta_envelope(m->params);

	/* The first message decides the era; server/discover alone does not (a probe may precede initialize). */
	if (s->era == MCP_ERA_NONE) {
		if (!strcmp(method, "initialize")) {
			handle_initialize(s, m);
			return;
		}
		if (!strcmp(method, "server/discover")) {
			if (stateless_request && !check_stateless_version(s, m))
				return;
			handle_discover(s, m);
			return;
		}
		if (!strcmp(method, "ping")) {
			mcp_send_result(s, m->id, json_object());
			return;
		}
		if (!stateless_request) {
			mcp_send_error(s, m->id, RPC_INVALID_REQUEST,
			               "Invalid Request: the connection is not initialized. Send initialize "
			               "(protocolVersion 2025-06-18 or 2025-11-25) first, or use 2026-07-28 "
			               "(server/discover, and _meta io.modelcontextprotocol/protocolVersion on every "
			               "request)",
			               NULL);
			return;
		}
		pthread_mutex_lock(&s->lock);
		s->era = MCP_ERA_STATELESS;
		pthread_mutex_unlock(&s->lock);
		mcp_log(SW_LOG_DEBUG, "mcp connection era",
		        json_pack("{s:s,s:s}", "era", "stateless", "protocolVersion", MCP_ERA_2026));
	}
	bool stateless = s->era == MCP_ERA_STATELESS;
	if (stateless && !check_stateless_version(s, m))
		return;

	if (!strcmp(method, "initialize")) {
		if (stateless)
			mcp_send_error(s, m->id, RPC_INVALID_REQUEST,
			               "Invalid Request: this connection speaks 2026-07-28, which has no initialize",
			               NULL);
		else
			handle_initialize(s, m);
		return;
	}
	if (!strcmp(method, "server/discover")) {
		if (stateless)
			handle_discover(s, m);
		else
			mcp_send_error(
			    s, m->id, RPC_METHOD_NOT_FOUND,
			    "Method not found: server/discover (this connection was initialized as 2025-era)", NULL);
		return;
	}
	if (!stateless && (!strcmp(method, "ping") || !strcmp(method, "logging/setLevel"))) {
		mcp_send_result(s, m->id, json_object());
		return;
	}
	if ((!strcmp(method, "tools/list") || !strcmp(method, "prompts/list") ||
	     !strcmp(method, "resources/templates/list")) &&
	    mcp_server_fixed() != 0) {
		mcp_send_error(s, m->id, RPC_INTERNAL_ERROR, "Internal error", NULL);
		return;
	}
	if (!strcmp(method, "tools/list")) {
		if (stateless)
			mcp_send_result_text(s, m->id, s->tools_list_sorted);
		else
			mcp_send_result_text(s, m->id, s->tools_list_legacy);
		return;
	}
	if (!strcmp(method, "prompts/list")) {
		send_fixed(s, m->id, s->prompts_list, stateless);
		return;
	}
	if (!strcmp(method, "prompts/get")) {
		mcp_prompts_get(s, m->id, m->params);
		return;
	}
	if (!strcmp(method, "resources/templates/list")) {
		send_fixed(s, m->id, s->templates_list, stateless);
		return;
	}
	if (!strcmp(method, "tools/call") || !strcmp(method, "resources/list") || !strcmp(method, "resources/read")) {
		pthread_mutex_lock(&s->lock);
		struct mcp_inflight *dup = inflight_find(s, m->id);
		pthread_mutex_unlock(&s->lock);
		if (dup) {
			mcp_send_error(s, m->id, RPC_INVALID_REQUEST,
			               "Invalid Request: this id belongs to a request that is still running; use a "
			               "new id for every request",
			               NULL);
			return;
		}
		enqueue(s, m);
		return;
	}
	char *shown = sw_text_cap(method, (size_t)-1, 120, SW_CAP_HEAD_TAIL);
	char msg[600];
	sw_text_snprintf(msg, sizeof(msg), "Method not found: %s", shown ? shown : "");
	sw_free(shown);
	mcp_send_error(s, m->id, RPC_METHOD_NOT_FOUND, msg, NULL);
}

static void handle_notification(struct mcp_server *s, struct mcp_msg *m)
{
	if (!strcmp(m->method, "notifications/cancelled"))
		handle_cancelled(s, m);
	else if (!strcmp(m->method, "notifications/roots/list_changed")) {
		pthread_mutex_lock(&s->lock);
		s->roots_stale = true;
		pthread_mutex_unlock(&s->lock);
	}
	/* notifications/initialized and anything else: nothing to do. */
}

void mcp_server_handle_line(struct mcp_server *s, const char *line, size_t len, bool too_large)
{
	if (too_large) {
		char msg[160];
		snprintf(msg, sizeof(msg), "Invalid Request: message larger than %zu bytes was discarded",
		         MCP_MAX_MESSAGE_BYTES);
		mcp_send_error(s, NULL, RPC_INVALID_REQUEST, msg, NULL);
		return;
	}
	/* Blank lines between messages are tolerated. */
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len)
		return;
	struct mcp_msg m;
	mcp_msg_parse(line, len, &m);
	switch (m.kind) {
	case MCP_MSG_INVALID: mcp_send_error(s, m.id, m.err_code, m.err_message, NULL); break;
	case MCP_MSG_REQUEST: handle_request(s, &m); break;
	case MCP_MSG_NOTIFICATION: handle_notification(s, &m); break;
	case MCP_MSG_RESPONSE: route_response(s, &m); break;
	}
	mcp_msg_clear(&m);
	if (len >= MCP_TRIM_AFTER_BYTES)
		mcp_trim_memory();
}
