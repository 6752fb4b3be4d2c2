/* jsonrpc.h: newline-delimited JSON-RPC 2.0 framing and message classification (no I/O, no server state). */
#ifndef MCP_JSONRPC_H
#define MCP_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* JSON-RPC and MCP error codes used by the server. */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	RPC_SERVER_BUSY = -32000, /* implementation-defined server error: the request queue is full */
	RPC_UNSUPPORTED_VERSION = -32022, /* MCP 2026-07-28 UnsupportedProtocolVersion */
};

/* The largest message accepted; a longer line is discarded and answered with -32600. */
#define MCP_MAX_MESSAGE_BYTES ((size_t)4 * 1024 * 1024)
/* Requests (and their bytes) that may wait behind a running call; more are answered "server busy". */
#define MCP_MAX_QUEUED_REQUESTS 1024
#define MCP_MAX_QUEUED_BYTES ((size_t)16 * 1024 * 1024)
/* After a message at least this large is freed, the allocator gives its memory back to the system. */
#define MCP_TRIM_AFTER_BYTES ((size_t)1024 * 1024)

/* Splits a byte stream into lines. Bounded memory: at most max + one read of buffering. */
struct mcp_reader {
	char *buf;
	size_t len;
	size_t cap;
	size_t max;
	bool discarding; /* inside an over-long line: drop bytes until the next newline */
};

/* Receives one line (without the newline or a trailing CR). @too_large: the line was dropped. */
typedef void (*mcp_line_fn)(void *userdata, const char *line, size_t len, bool too_large);

void mcp_reader_init(struct mcp_reader *r, size_t max);
void mcp_reader_free(struct mcp_reader *r);
/* Feeds bytes; calls @fn for every complete line. Returns -1 on allocation failure. */
int mcp_reader_feed(struct mcp_reader *r, const char *data, size_t n, mcp_line_fn fn, void *userdata);
/* At end of input: delivers a last line that had no newline. */
void mcp_reader_finish(struct mcp_reader *r, mcp_line_fn fn, void *userdata);

enum mcp_msg_kind {
	MCP_MSG_INVALID = 0,
	MCP_MSG_REQUEST,
	MCP_MSG_NOTIFICATION,
	MCP_MSG_RESPONSE,
};

/* One parsed message. Pointers borrow from @root. */
struct mcp_msg {
	enum mcp_msg_kind kind;
	json_t *root;       /* owned: free with mcp_msg_clear() */
	const char *method; /* requests and notifications */
	json_t *id;         /* requests and responses; for invalid messages the id when it was readable */
	json_t *params;     /* object or NULL */
	json_t *result;     /* responses */
	json_t *error;      /* responses */
	size_t bytes;       /* length of the line it came from */
	int err_code;       /* invalid: the JSON-RPC error to answer with */
	char err_message[160];
};

/* Parses and classifies one line. Always fills @out (kind MCP_MSG_INVALID on failure). */
void mcp_msg_parse(const char *line, size_t len, struct mcp_msg *out);
void mcp_msg_clear(struct mcp_msg *m);

/* Serialises @v as one protocol line (compact, UTF-8, no newline inside). (transfer full) */
char *mcp_json_line(const json_t *v);
/* Builds {"jsonrpc":"2.0","id":…,"error":{code,message[,data]}}; @data is stolen (nullable). */
json_t *mcp_error_msg(const json_t *id, int code, const char *message, json_t *data);

#endif
