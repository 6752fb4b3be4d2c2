/* fixed.c: the fixed replies (tools/list in both orders, prompts/list, resources/templates/list, the schema hash),
 * built once on first use from the tool table. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

/* ---- fixed replies ------------------------------------------------------- */

static int cmp_tool_name(const void *a, const void *b)
{
	const struct mcp_tool *ta = *(const struct mcp_tool *const *)a;
	const struct mcp_tool *tb = *(const struct mcp_tool *const *)b;
	return strcmp(ta->name, tb->name);
}

static char *dump_result(json_t *result)
{
	char *t = mcp_json_line(result);
	json_decref(result);
	return t;
}

static int build_fixed(struct mcp_server *s)
{
	size_t n = s->tool_count;
	const struct mcp_tool **sorted = calloc(n + 1, sizeof(*sorted));
	json_t *legacy = json_array();
	json_t *byname = json_array();
	json_t *hashed = json_array();
	s->tool_schemas = json_object();
	if (!sorted || !legacy || !byname || !hashed || !s->tool_schemas)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *entry = mcp_tool_entry(mcp_tools[i]);
		if (!entry) {
			mcp_log(SW_LOG_ERROR, "tool schema is not valid JSON",
			        json_pack("{s:s}", "tool", mcp_tools[i]->name));
			return -1;
		}
		json_object_set(s->tool_schemas, mcp_tools[i]->name, json_object_get(entry, "inputSchema"));
		json_array_append_new(legacy, entry);
		sorted[i] = mcp_tools[i];
	}
	qsort(sorted, n, sizeof(*sorted), cmp_tool_name);
	for (size_t i = 0; i < n; i++) {
		json_t *entry = mcp_tool_entry(sorted[i]);
		json_array_append_new(byname, entry);
		/* The schema hash covers what a client validates against, independent of order. */
		json_array_append_new(hashed, json_pack("{s:s,s:s,s:O}", "name", sorted[i]->name, "description",
		                                        sorted[i]->description, "inputSchema",
		                                        json_object_get(entry, "inputSchema")));
	}
	free(sorted);
	char *canon = mcp_canonical_json(hashed);
	json_decref(hashed);
	if (!canon)
		return -1;
	char hex[65];
	sw_sha256_hex(canon, strlen(canon), hex);
	free(canon);
	hex[16] = '\0';
	s->schema_hash = strdup(hex);

	s->tools_list_legacy = dump_result(json_pack("{s:o}", "tools", legacy));
	s->tools_list_sorted = dump_result(json_pack("{s:o,s:s,s:i,s:s}", "tools", byname, "resultType", "complete",
	                                             "ttlMs", 3600000, "cacheScope", "public"));
	s->prompts_list = dump_result(json_pack("{s:o}", "prompts", mcp_prompts_list()));
	s->templates_list = dump_result(json_pack("{s:o}", "resourceTemplates", mcp_resource_templates()));
	if (!s->schema_hash || !s->tools_list_legacy || !s->tools_list_sorted || !s->prompts_list || !s->templates_list)
		return -1;
	return 0;
}

size_t mcp_server_count_tools(void)
{
	size_t n = 0;
	while (mcp_tools[n])
		n++;
	return n;
}

/*
 * Built on first use rather than at start-up: serialising every tool's schema and hashing them is ~80% of
 * the instructions a fresh server runs before it can answer `initialize`, and `initialize` needs none of it.
 */
static pthread_once_t fixed_once = PTHREAD_ONCE_INIT;
static int fixed_rc = -1;

static void build_fixed_once(void)
{
	fixed_rc = build_fixed(mcp_srv);
	if (fixed_rc != 0)
		mcp_log(SW_LOG_ERROR, "could not build the tool list", NULL);
}

int mcp_server_fixed(void)
{
	pthread_once(&fixed_once, build_fixed_once);
	return fixed_rc;
}
