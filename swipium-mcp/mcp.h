/* mcp.h: the server's internal state shared by the protocol files (not the tool framework API). */
#ifndef MCP_MCP_H
#define MCP_MCP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include <swipium/swipium.h>

#include "jsonrpc.h"
#include "tool.h"

#define MCP_SERVER_NAME "swipium"
/* A numeric macro as a string literal, for tool descriptions (MCP_STR(SW_LONG_POLL_MAX_MS) is "50000"). */
#define MCP_STR_(x) #x
#define MCP_STR(x) MCP_STR_(x)
#define MCP_ERA_2026 "2026-07-28"
#define MCP_META_PREFIX "io.modelcontextprotocol/"
#define MCP_META_VERSION "io.modelcontextprotocol/protocolVersion"
#define MCP_META_CAPS "io.modelcontextprotocol/clientCapabilities"

enum mcp_era {
	MCP_ERA_NONE = 0, /* nothing decided yet */
	MCP_ERA_LEGACY,   /* initialize handshake: 2025-06-18 / 2025-11-25 */
	MCP_ERA_STATELESS /* 2026-07-28 */
};

/* A request in flight (queued or running on the worker). */
struct mcp_inflight {
	json_t *id;
	json_t *msg; /* the whole request */
	atomic_int cancelled;
	struct mcp_inflight *next;  /* in the in-flight list */
	struct mcp_inflight *qnext; /* in the worker queue */
	size_t bytes;               /* size of the request line */
};

/* A request the server sent to the client (elicitation/create, roots/list). */
struct mcp_outgoing {
	char id[32];
	json_t *response; /* the whole response message once it arrived */
	bool done;
	struct mcp_outgoing *next;
};

/* A minted 2026-era requestState token. */
struct mcp_request_state {
	char token[64];
	char consent_id[80];
	char tool[64];
	char args_hash[65];
	char session_id[40];
	int64_t issued_at_ms;
	json_t *request; /* what the consent asked (action, risk, explain, ...) */
	struct mcp_request_state *next;
};

struct mcp_server {
	sw_ctx *ctx;
	sw_store *store; /* opened lazily by the worker */
	int out_fd;
	pthread_mutex_t out_lock;

	/* Connection state; written by the reader thread, read by the worker under @lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum mcp_era era;
	bool initialized;
	char legacy_version[16];
	json_t *client_caps; /* legacy: from initialize */
	json_t *client_info;
	json_t *roots; /* cached roots (array of paths), NULL = not fetched */
	bool roots_stale;
	bool shutting_down;

	struct mcp_inflight *inflight;   /* every queued or running request */
	struct mcp_inflight *queue_head; /* worker queue */
	struct mcp_inflight *queue_tail;
	size_t queued;       /* requests waiting in the queue (not the running one) */
	size_t queued_bytes; /* their bytes */
	struct mcp_outgoing *outgoing;
	unsigned next_out_id;
	struct mcp_request_state *states;
	struct sw_consent_store *consent; /* opened lazily by the worker */
	pthread_t worker;
	bool worker_started;

	/* Fixed replies (serialised result objects), built on first use: valid once mcp_server_fixed() returned 0.
	 * tools/call checks its arguments against tool_schemas first, so every tool handler may use them. */
	char *tools_list_legacy;
	char *tools_list_sorted;
	char *prompts_list;
	char *templates_list;
	char *schema_hash; /* 16 hex */
	size_t tool_count;
	json_t *tool_schemas; /* name -> parsed inputSchema (with additionalProperties:false) */
};

extern struct mcp_server *mcp_srv;

/* ---- output (any thread) ---- */
void mcp_send(struct mcp_server *s, json_t *msg);                             /* steals @msg */
void mcp_send_result(struct mcp_server *s, const json_t *id, json_t *result); /* steals @result */
void mcp_send_result_text(struct mcp_server *s, const json_t *id, const char *result_json);
void mcp_send_error(struct mcp_server *s, const json_t *id, int code, const char *message, json_t *data);

/* Gives freed heap memory back to the system (after a large message). */
void mcp_trim_memory(void);

/* ---- logging ---- */
void mcp_log(sw_log_level level, const char *msg, json_t *fields); /* steals @fields (nullable) */
void mcp_log_fn(sw_log_level level, const char *msg, const char *fields_json, void *userdata);

/* ---- server.c ---- */
/* Number of entries in mcp_tools (for tool_count, set at start-up). */
size_t mcp_server_count_tools(void);
/* Builds the fixed replies of mcp_srv once, on first use, from any thread; 0, or -1 (logged) on failure. */
int mcp_server_fixed(void);
void mcp_server_handle_line(struct mcp_server *s, const char *line, size_t len, bool too_large);
void *mcp_worker_main(void *arg);
void mcp_server_shutdown_calls(struct mcp_server *s);
const char *mcp_instructions(void);
/* Sends a request to the client and waits for its response (or cancellation / timeout). (transfer full) */
json_t *mcp_client_request(struct mcp_server *s, const char *method, json_t *params, long timeout_ms,
                           struct mcp_inflight *call, const char **why);

/* ---- tool framework internals (tool.c) ---- */
struct mcp_call {
	struct mcp_server *srv;
	struct mcp_inflight *req;
	const struct mcp_tool *tool;
	json_t *params;    /* tools/call params (borrowed) */
	json_t *args;      /* validated arguments (borrowed) */
	json_t *meta_caps; /* 2026: client capabilities from _meta (borrowed, nullable) */
	sw_session *session;
	char response_mode[16];
	/* the answer */
	bool answered;
	bool is_error;
	json_t *payload; /* success payload or error extra */
	char *summary;
	bool keep_whole_summary;
	bool text_verbatim; /* the summary is the whole text block (consent envelope) */
	json_t *next;       /* array of strings */
	json_t *content;    /* extra content blocks */
	char *failure_code;
	char *what;
	json_t *steps;
	bool changed_state;
	int retry_safe; /* -1 = catalog default */
	char *hint;
	/* 2026 consent: the redeemed requestState, or the InputRequiredResult to send */
	struct mcp_request_state *redeemed;
	json_t *input_required; /* a complete result object to send instead of a CallToolResult */
	json_t *raw_error;      /* a JSON-RPC error to send instead of a result: {code,message,data} */
	json_t *scratch;        /* strings handed out by mcp_cap() */
};

/* Runs a tools/call request on the worker; sends the response unless cancelled. */
void mcp_tools_call(struct mcp_server *s, struct mcp_inflight *req);
/* Builds the tools/list entry of a tool. (transfer full) */
json_t *mcp_tool_entry(const struct mcp_tool *t);
/* The catalog's default retry safety of a failure code. */
bool mcp_catalog_retry_safe(const char *code);
/* stale.c: STALE_CLIENT for a 1.5.0 name or call shape; returns true (and answers the call) when stale. */
bool mcp_stale_check(mcp_call *call, const char *name, json_t *args);
/* prompts.c / resources.c */
json_t *mcp_prompts_list(void);
void mcp_prompts_get(struct mcp_server *s, const json_t *id, json_t *params);
json_t *mcp_resource_templates(void);
void mcp_resources_list(struct mcp_server *s, struct mcp_inflight *req);
void mcp_resources_read(struct mcp_server *s, struct mcp_inflight *req);
/* schema.c: validates @args against @schema; appends {path,message} objects to @problems. */
void mcp_schema_validate(const json_t *schema, const json_t *value, const char *path, json_t *problems);
/* canonical JSON (keys sorted recursively) for hashing. (transfer full) */
char *mcp_canonical_json(const json_t *v);
/* Time in ms since the epoch. */
/* The project roots the client announced (2025 era), as a NULL-terminated array (transfer full, free with
 * mcp_strv_free). */
char **mcp_client_roots(struct mcp_server *s, struct mcp_inflight *call);
void mcp_strv_free(char **v);

/* ---- binding.c: the session's device (sw_drive_bind) for the drive, device, visual and flow tools ---- */
/*
 * The session's drive, binding its device on first use (sw_drive_bind: the recorded serial, else the only
 * online device; the session owns it and the drive keeps its books). On failure the call has been answered
 * (NO_DEVICE names the bound serial) and NULL is returned. Worker thread only; (transfer none).
 */
sw_drive *mcp_drive_get(mcp_call *call, sw_session *s);
/* mcp_drive_get, whose NO_DEVICE next step for the bound serial ends with ", then <then>" when @then is set. */
sw_drive *mcp_drive_get_then(mcp_call *call, sw_session *s, const char *then);
/*
 * When the session's budget is used up, answers the call with {stopped: true, reason} (next: qa_report)
 * and returns true; else returns false and the handler goes on.
 */
bool mcp_budget_stopped(mcp_call *call, sw_session *s);

#endif
