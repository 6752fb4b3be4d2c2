/* resources.c: resource templates, resources/list (scoped, capped) and resources/read (shared caps). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

#define LIST_CAP 100
#define SESSION_PREFIX "swipium://session/"
#define PROJECT_PREFIX "swipium://project/"

json_t *mcp_resource_templates(void)
{
	return json_pack("[{s:s,s:s,s:s},{s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s}]", "uriTemplate",
	                 "swipium://session/{sessionId}/{kind}/{name}", "name", "session-artifact", "description",
	                 "Evidence saved by a session: screenshots, dumps, reports, logs, videos.", "uriTemplate",
	                 "swipium://project/{projectId}/app-map", "name", "app-map", "description",
	                 "The project's whole app map (.swipium/app-map.json).", "mimeType", "application/json",
	                 "uriTemplate", "swipium://project/{projectId}/app-map/{kind}/{id}", "name", "app-map-entry",
	                 "description", "One feature, screen or test-suite entry of the app map.", "mimeType",
	                 "application/json");
}

static json_t *load_json_text(char *text)
{
	json_t *v = text ? json_loads(text, 0, NULL) : NULL;
	sw_free(text);
	return v;
}

/* Sends a resources/list or resources/read @result; in the stateless era it says the answer is complete, not
 * cacheable and private to the caller. */
static void send_resource_result(struct mcp_server *s, const json_t *id, json_t *result)
{
	if (s->era == MCP_ERA_STATELESS) {
		json_object_set_new(result, "resultType", json_string("complete"));
		json_object_set_new(result, "ttlMs", json_integer(0));
		json_object_set_new(result, "cacheScope", json_string("private"));
	}
	mcp_send_result(s, id, result);
}

/* One JSON text content of a resources/read answer. */
static json_t *json_contents(const char *uri, const char *text, size_t len)
{
	json_t *content = json_pack("{s:s,s:s}", "uri", uri, "mimeType", "application/json");
	json_t *t = json_stringn(text, len);
	json_object_set_new(content, "text", t ? t : json_string("[swipium: not valid UTF-8]"));
	return json_pack("{s:[o]}", "contents", content);
}

/* Runs on the worker: every session used in this process, newest first, sensitive ones never. */
void mcp_resources_list(struct mcp_server *s, struct mcp_inflight *req)
{
	json_t *resources = json_array();
	json_t *roots_seen = json_object();
	if (!s->store) {
		sw_error *err = NULL;
		if (sw_store_open(s->ctx, &s->store, &err) != SW_OK)
			sw_error_free(err);
	}
	json_t *sessions = NULL;
	if (s->store) {
		char *text = NULL;
		if (sw_store_sessions_json(s->store, &text, NULL) == SW_OK)
			sessions = load_json_text(text);
	}
	size_t listed = 0, total = 0;
	for (size_t i = json_array_size(sessions); i-- > 0;) {
		json_t *e = json_array_get(sessions, i);
		const char *id = json_string_value(json_object_get(e, "id"));
		const char *root = json_string_value(json_object_get(e, "root"));
		if (!id || json_is_true(json_object_get(e, "sensitive")))
			continue;
		if (root)
			json_object_set_new(roots_seen, root, json_true());
		sw_session *sess = NULL;
		if (sw_store_get_session(s->store, id, &sess, NULL) != SW_OK)
			continue;
		char *text = NULL;
		json_t *arts = sw_artifact_list(sess, &text, NULL) == SW_OK ? load_json_text(text) : NULL;
		for (size_t j = json_array_size(arts); j-- > 0;) {
			json_t *a = json_array_get(arts, j);
			const char *uri = json_string_value(json_object_get(a, "uri"));
			if (!uri)
				continue;
			total++;
			if (listed >= LIST_CAP)
				continue;
			const char *slash = strrchr(uri, '/');
			json_t *r = json_pack("{s:s,s:s}", "uri", uri, "name", slash ? slash + 1 : uri);
			json_t *mime = json_object_get(a, "mime");
			if (json_is_string(mime))
				json_object_set(r, "mimeType", mime);
			json_t *bytes = json_object_get(a, "bytes");
			if (json_is_integer(bytes))
				json_object_set(r, "size", bytes);
			json_array_append_new(resources, r);
			listed++;
		}
		json_decref(arts);
	}
	json_decref(sessions);
	if (total > listed && listed > 0) {
		json_t *last = json_array_get(resources, listed - 1);
		char note[200];
		snprintf(note, sizeof(note),
		         "Listing capped at %d of %zu session artifacts (newest first); read the rest by URI or with "
		         "qa_get_artifact.",
		         LIST_CAP, total);
		json_object_set_new(last, "description", json_string(note));
	}
	/* App maps of the roots in use (the client's MCP roots and the sessions' roots). */
	char **roots = mcp_client_roots(s, req);
	for (char **r = roots; r && *r; r++)
		json_object_set_new(roots_seen, *r, json_true());
	mcp_strv_free(roots);
	const char *root;
	json_t *unused;
	size_t maps = 0, suites = 0, suites_total = 0;
	json_object_foreach(roots_seen, root, unused)
	{
		char pid[SW_PROJECT_ID_SIZE], uri[128];
		int has_map = 0;
		sw_error *err = NULL;
		/* registering keeps the URI resolvable after a restart (~/.swipium/projects.json) */
		if (sw_appmap_project_register(s->ctx, root, pid, &has_map, &err) != SW_OK) {
			sw_error_free(err);
			continue;
		}
		/* the canonical suite of the root, under the app-map entry template */
		char *suite_uri = NULL;
		int has_suite = 0;
		if (sw_suite_resource_uri(s->ctx, root, &suite_uri, &has_suite, NULL) == SW_OK && has_suite &&
		    suites_total++ < LIST_CAP) {
			json_array_append_new(resources,
			                      json_pack("{s:s,s:s,s:s,s:s}", "uri", suite_uri, "name", "test-suite", "mimeType",
			                                "application/json", "description", root));
			suites++;
		}
		sw_free(suite_uri);
		if (!has_map || maps >= LIST_CAP)
			continue;
		snprintf(uri, sizeof(uri), PROJECT_PREFIX "%s/app-map", pid);
		json_array_append_new(resources, json_pack("{s:s,s:s,s:s,s:s}", "uri", uri, "name", "app-map", "mimeType",
		                                           "application/json", "description", root));
		maps++;
	}
	if (suites_total > suites) {
		/* the cap is stated on the last suite entry listed */
		for (size_t i = json_array_size(resources); i-- > 0;) {
			json_t *r = json_array_get(resources, i);
			const char *nm = json_string_value(json_object_get(r, "name"));
			if (!nm || strcmp(nm, "test-suite"))
				continue;
			char note[200];
			snprintf(note, sizeof(note), "Listing capped at %d of %zu test suites; read the rest by URI.", LIST_CAP,
			         suites_total);
			json_object_set_new(r, "description", json_string(note));
			break;
		}
	}
	json_decref(roots_seen);
	if (atomic_load(&req->cancelled)) {
		json_decref(resources);
		return;
	}
	json_t *result = json_pack("{s:o}", "resources", resources);
	send_resource_result(s, req->id, result);
}

static void not_found(struct mcp_server *s, const json_t *id, const char *uri, const char *why)
{
	char *shown = sw_text_cap(uri, (size_t)-1, 1000, SW_CAP_HEAD_TAIL);
	char *reason = sw_text_cap(why, (size_t)-1, 400, SW_CAP_HEAD_TAIL);
	char *msg = NULL;
	if (asprintf(&msg, "Resource not found: %s: %s", shown ? shown : "", reason ? reason : "") < 0)
		msg = NULL;
	mcp_send_error(s, id, RPC_INVALID_PARAMS, msg ? msg : "Resource not found",
	               json_pack("{s:o}", "uri", mcp_json_text(shown)));
	free(msg);
	sw_free(shown);
	sw_free(reason);
}

static char *base64(const unsigned char *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc(((n + 2) / 3) * 4 + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v =
		    (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		out[o++] = t[(v >> 18) & 63];
		out[o++] = t[(v >> 12) & 63];
		out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? t[v & 63] : '=';
	}
	out[o] = '\0';
	return out;
}

char *mcp_base64(const unsigned char *p, size_t n);
char *mcp_base64(const unsigned char *p, size_t n)
{
	return base64(p, n);
}

/* The root of project @pid: a session of this process, else ~/.swipium/projects.json. (transfer full) */
static char *root_of_project(struct mcp_server *s, const char *pid, size_t pid_len)
{
	if (pid_len != SW_PROJECT_ID_SIZE - 1)
		return NULL;
	char want[SW_PROJECT_ID_SIZE];
	memcpy(want, pid, pid_len);
	want[pid_len] = '\0';
	char *text = NULL;
	char *found = NULL;
	if (s->store && sw_store_sessions_json(s->store, &text, NULL) == SW_OK) {
		json_t *sessions = load_json_text(text);
		size_t i;
		json_t *e;
		json_array_foreach(sessions, i, e)
		{
			const char *root = json_string_value(json_object_get(e, "root"));
			char id[SW_PROJECT_ID_SIZE];
			int has_map = 0;
			if (root && sw_appmap_project_register(s->ctx, root, id, &has_map, NULL) == SW_OK && !strcmp(id, want)) {
				found = strdup(root);
				break;
			}
		}
		json_decref(sessions);
	}
	if (!found && sw_appmap_project_root(s->ctx, want, &text, NULL) == SW_OK) {
		found = strdup(text);
		sw_free(text);
	}
	return found;
}

/* Percent-decoding of one URI segment; NULL for a bad escape or an embedded NUL. (transfer full) */
static char *pct_decode(const char *p, size_t n)
{
	char *out = malloc(n + 1);
	size_t o = 0;
	for (size_t i = 0; out && i < n; i++) {
		if (p[i] == '%') {
			if (i + 2 >= n || !isxdigit((unsigned char)p[i + 1]) || !isxdigit((unsigned char)p[i + 2])) {
				free(out);
				return NULL;
			}
			char hex[3] = {p[i + 1], p[i + 2], 0};
			long c = strtol(hex, NULL, 16);
			if (c == 0) {
				free(out);
				return NULL;
			}
			out[o++] = (char)c;
			i += 2;
		} else {
			out[o++] = p[i];
		}
	}
	if (out)
		out[o] = '\0';
	return out;
}

/* Every session redactor of this process that holds a secret (a resource read names no session). */
static size_t all_redactors(struct mcp_server *s, sw_redactor **out, size_t max)
{
	char *text = NULL;
	if (!s->store || sw_store_sessions_json(s->store, &text, NULL) != SW_OK)
		return 0;
	json_t *list = load_json_text(text);
	size_t n = 0, i;
	json_t *e;
	json_array_foreach(list, i, e)
	{
		const char *id = json_string_value(json_object_get(e, "id"));
		sw_session *sess = NULL;
		if (n < max && id && sw_store_get_session(s->store, id, &sess, NULL) == SW_OK && sess &&
		    sw_session_redactor(sess) && sw_redactor_count(sw_session_redactor(sess)) > 0)
			out[n++] = sw_session_redactor(sess);
	}
	json_decref(list);
	return n;
}

/* The canonical suite (.swipium/test-suite.json) of @root: missing is "not found", corrupt says so. */
static void read_suite(struct mcp_server *s, struct mcp_inflight *req, const char *uri, const char *root)
{
	sw_redactor *rs[256];
	size_t n = all_redactors(s, rs, sizeof(rs) / sizeof(rs[0]));
	char *text = NULL;
	size_t len = 0;
	int truncated = 0;
	sw_error *err = NULL;
	int rc = sw_suite_resource_read(root, rs, n, &text, &len, &truncated, &err);
	if (rc == SW_ENOTFOUND || rc == SW_EDENIED) {
		not_found(s, req->id, uri, err ? sw_error_message(err) : "no test suite");
		sw_error_free(err);
		return;
	}
	if (rc != SW_OK) {
		/* a corrupt file: an error naming the problem, never an empty suite */
		char *msg = sw_text_capf(1500, SW_CAP_HEAD_TAIL, "Test suite unreadable: %s%s%s",
		                         err ? sw_error_message(err) : "out of memory",
		                         err && sw_error_hint(err) ? ". " : "",
		                         err && sw_error_hint(err) ? sw_error_hint(err) : "");
		char *shown = sw_text_cap(uri, (size_t)-1, 1000, SW_CAP_HEAD_TAIL);
		mcp_send_error(s, req->id, RPC_INTERNAL_ERROR, msg ? msg : "Test suite unreadable",
		               json_pack("{s:o, s:s}", "uri", mcp_json_text(shown), "failureCode",
		                         err && sw_error_failure_code(err) ? sw_error_failure_code(err) : "UNKNOWN"));
		sw_free(msg);
		sw_free(shown);
		sw_error_free(err);
		return;
	}
	json_t *result = json_contents(uri, text, len);
	sw_free(text);
	(void)truncated;
	send_resource_result(s, req->id, result);
}

static void read_app_map(struct mcp_server *s, struct mcp_inflight *req, const char *uri)
{
	const char *rest = uri + strlen(PROJECT_PREFIX);
	const char *slash = strchr(rest, '/');
	if (!slash || strncmp(slash, "/app-map", 8) != 0 || (slash[8] && slash[8] != '/')) {
		not_found(s, req->id, uri, "not a Swipium resource URI");
		return;
	}
	char *root = root_of_project(s, rest, (size_t)(slash - rest));
	if (!root) {
		not_found(s, req->id, uri, "no known project has that id (it is recorded when a tool or a session uses it)");
		return;
	}
	char *kind = NULL, *id = NULL;
	if (slash[8] == '/') {
		/* app-map/{kind}/{id}: one feature, screen or test-suite entry */
		const char *k = slash + 9;
		const char *sep = strchr(k, '/');
		kind = sep ? pct_decode(k, (size_t)(sep - k)) : NULL;
		id = sep ? pct_decode(sep + 1, strlen(sep + 1)) : NULL;
		if (!kind || !id || !*id || (strcmp(kind, "feature") && strcmp(kind, "screen") && strcmp(kind, "test-suite"))) {
			free(kind);
			free(id);
			free(root);
			not_found(s, req->id, uri, "the entry kind is feature, screen or test-suite, followed by its id");
			return;
		}
	}
	if (kind && !strcmp(kind, "test-suite") && !strcmp(id, SW_SUITE_RESOURCE_ID)) {
		free(kind);
		free(id);
		read_suite(s, req, uri, root);
		free(root);
		return;
	}
	char *text = NULL;
	sw_error *err = NULL;
	int rc = sw_appmap_resource(s->ctx, root, kind, id, &text, &err);
	free(kind);
	free(id);
	free(root);
	if (rc != SW_OK) {
		not_found(s, req->id, uri, err ? sw_error_message(err) : "out of memory");
		sw_error_free(err);
		return;
	}
	json_t *result = json_contents(uri, text, text ? strlen(text) : 0);
	sw_free(text);
	send_resource_result(s, req->id, result);
}

void mcp_resources_read(struct mcp_server *s, struct mcp_inflight *req)
{
	json_t *params = json_object_get(req->msg, "params");
	const char *uri = json_string_value(json_object_get(params, "uri"));
	if (!uri) {
		mcp_send_error(s, req->id, RPC_INVALID_PARAMS, "Invalid params: resources/read needs a \"uri\" string",
		               NULL);
		return;
	}
	if (!s->store) {
		sw_error *err = NULL;
		if (sw_store_open(s->ctx, &s->store, &err) != SW_OK)
			sw_error_free(err);
	}
	if (!strncmp(uri, PROJECT_PREFIX, strlen(PROJECT_PREFIX))) {
		read_app_map(s, req, uri);
		return;
	}
	if (strncmp(uri, SESSION_PREFIX, strlen(SESSION_PREFIX)) != 0 || !s->store) {
		not_found(s, req->id, uri, "not a Swipium resource URI");
		return;
	}
	char *data = NULL, *meta_text = NULL;
	size_t len = 0;
	sw_error *err = NULL;
	if (sw_artifact_read(s->store, uri, 0, &data, &len, &meta_text, &err) != SW_OK) {
		not_found(s, req->id, uri, sw_error_message(err));
		sw_error_free(err);
		return;
	}
	json_t *meta = load_json_text(meta_text);
	const char *mime = json_string_value(json_object_get(meta, "mime"));
	json_t *content = json_pack("{s:s,s:s}", "uri", uri, "mimeType", mime ? mime : "application/octet-stream");
	if (!data) {
		const char *note = json_string_value(json_object_get(meta, "note"));
		json_object_set_new(content, "text", json_string(note ? note : "[swipium: not inlined]"));
		json_object_set_new(content, "mimeType", json_string("text/plain"));
	} else if (json_is_true(json_object_get(meta, "text"))) {
		json_t *t = json_stringn(data, len);
		json_object_set_new(content, "text", t ? t : json_string("[swipium: not valid UTF-8]"));
	} else {
		char *b = base64((const unsigned char *)data, len);
		json_object_set_new(content, "blob", json_string(b ? b : ""));
		free(b);
	}
	sw_free(data);
	json_decref(meta);
	json_t *result = json_pack("{s:[o]}", "contents", content);
	send_resource_result(s, req->id, result);
}
