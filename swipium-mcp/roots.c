/* roots.c: the project roots a 2025-era client announces (roots/list), cached until the client says they changed. */
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

/* ---- roots (2025 era) ------------------------------------------------------ */

void mcp_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static char *uri_to_path(const char *uri)
{
	if (strncmp(uri, "file://", 7) != 0)
		return NULL;
	const char *p = uri + 7;
	if (*p != '/') {
		/* file://host/path: only localhost is ours */
		if (strncmp(p, "localhost/", 10) != 0)
			return NULL;
		p += 9;
	}
	char *out = malloc(strlen(p) + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; p[i]; i++) {
		if (p[i] == '%' && p[i + 1] && p[i + 2]) {
			char hex[3] = {p[i + 1], p[i + 2], 0};
			char *end;
			long c = strtol(hex, &end, 16);
			if (*end == '\0' && c > 0) {
				out[o++] = (char)c;
				i += 2;
				continue;
			}
		}
		out[o++] = p[i];
	}
	out[o] = '\0';
	return out;
}

char **mcp_client_roots(struct mcp_server *s, struct mcp_inflight *call)
{
	pthread_mutex_lock(&s->lock);
	bool legacy = s->era == MCP_ERA_LEGACY;
	bool can = legacy && json_is_object(json_object_get(s->client_caps, "roots"));
	bool stale = s->roots_stale || !s->roots;
	pthread_mutex_unlock(&s->lock);
	if (!can)
		return NULL;
	if (stale) {
		const char *why = NULL;
		json_t *resp = mcp_client_request(s, "roots/list", NULL, 5000, call, &why);
		json_t *paths = json_array();
		json_t *roots = resp ? json_object_get(json_object_get(resp, "result"), "roots") : NULL;
		size_t i;
		json_t *r;
		json_array_foreach(roots, i, r)
		{
			const char *uri = json_string_value(json_object_get(r, "uri"));
			char *p = uri ? uri_to_path(uri) : NULL;
			if (p)
				json_array_append_new(paths, json_string(p));
			free(p);
		}
		if (!resp)
			mcp_log(SW_LOG_DEBUG, "roots/list failed", json_pack("{s:s}", "why", why ? why : "?"));
		json_decref(resp);
		pthread_mutex_lock(&s->lock);
		json_decref(s->roots);
		s->roots = paths;
		s->roots_stale = false;
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_lock(&s->lock);
	size_t n = json_array_size(s->roots);
	char **v = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; v && i < n; i++)
		v[i] = strdup(json_string_value(json_array_get(s->roots, i)));
	pthread_mutex_unlock(&s->lock);
	return v;
}
