/* fuzz-jsonrpc.c: libFuzzer target for swipium-mcp's JSON-RPC reader (line framing + message classification). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_line(void *ud, const char *line, size_t len, bool too_large)
{
	size_t *count = ud;
	(*count)++;
	if (too_large)
		return;
	struct mcp_msg m;
	mcp_msg_parse(line, len, &m);
	/* Whatever came in, the answer the server would build must serialise as one line. */
	json_t *reply = m.kind == MCP_MSG_INVALID ? mcp_error_msg(m.id, m.err_code, m.err_message, NULL) : NULL;
	if (reply) {
		char *text = mcp_json_line(reply);
		if (!text || strchr(text, '\n'))
			abort();
		free(text);
		json_decref(reply);
	}
	if (m.kind == MCP_MSG_REQUEST && (!m.method || !m.id))
		abort();
	if (m.kind == MCP_MSG_RESPONSE && !m.id)
		abort();
	mcp_msg_clear(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A small cap so the over-long-line path is reached too; input is fed in uneven chunks. */
	struct mcp_reader r;
	mcp_reader_init(&r, 4096);
	size_t count = 0, off = 0, step = 1;
	while (off < size) {
		size_t n = size - off < step ? size - off : step;
		if (mcp_reader_feed(&r, (const char *)data + off, n, on_line, &count) != 0)
			break;
		off += n;
		step = step * 3 % 257 + 1;
	}
	mcp_reader_finish(&r, on_line, &count);
	mcp_reader_free(&r);
	return 0;
}
