/* jsonrpc.c: line framing with a size cap, and JSON-RPC 2.0 message classification. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>
#include <stdint.h>

#include <swipium/util.h>

#include "jsonrpc.h"

void mcp_reader_init(struct mcp_reader *r, size_t max)
{
	memset(r, 0, sizeof(*r));
	r->max = max;
}

void mcp_reader_free(struct mcp_reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

static void deliver(struct mcp_reader *r, const char *line, size_t len, mcp_line_fn fn, void *ud)
{
	if (len > 0 && line[len - 1] == '\r')
		len--;
	fn(ud, line, len, false);
	(void)r;
}

int mcp_reader_feed(struct mcp_reader *r, const char *data, size_t n, mcp_line_fn fn, void *ud)
{
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t chunk = nl ? (size_t)(nl - data) : n;
		if (r->discarding) {
			if (nl) {
				r->discarding = false;
				fn(ud, NULL, 0, true);
			}
		} else if (r->len + chunk > r->max) {
			/* Over the cap: forget what was buffered and skip to the end of the line. */
			r->len = 0;
			if (nl)
				fn(ud, NULL, 0, true);
			else
				r->discarding = true;
		} else if (nl && r->len == 0) {
			/* Fast path: the whole line is in the caller's buffer. */
			deliver(r, data, chunk, fn, ud);
		} else {
			if (r->len + chunk + 1 > r->cap) {
				size_t cap = r->cap ? r->cap : 4096;
				while (cap < r->len + chunk + 1)
					cap *= 2;
				char *nb = realloc(r->buf, cap);
				if (!nb)
					return -1;
				r->buf = nb;
				r->cap = cap;
			}
			memcpy(r->buf + r->len, data, chunk);
			r->len += chunk;
			if (nl) {
				r->buf[r->len] = '\0';
				size_t len = r->len;
				r->len = 0;
				deliver(r, r->buf, len, fn, ud);
			}
		}
		if (!nl)
			break;
		data += chunk + 1;
		n -= chunk + 1;
	}
	/* Give back memory after a large message so a long session stays small. */
	if (r->len == 0 && r->cap > 65536) {
		free(r->buf);
		r->buf = NULL;
		r->cap = 0;
	}
	return 0;
}

void mcp_reader_finish(struct mcp_reader *r, mcp_line_fn fn, void *ud)
{
	if (r->discarding) {
		r->discarding = false;
		fn(ud, NULL, 0, true);
	} else if (r->len > 0) {
		size_t len = r->len;
		r->len = 0;
		deliver(r, r->buf, len, fn, ud);
	}
}

static void invalid(struct mcp_msg *m, int code, const char *msg)
{
	m->kind = MCP_MSG_INVALID;
	m->err_code = code;
	sw_text_snprintf(m->err_message, sizeof(m->err_message), "%s", msg);
}

static bool valid_id(const json_t *id)
{
	/* MCP request ids are strings or integers (never null). */
	return id && (json_is_string(id) || json_is_integer(id));
}

/* \u0000 escapes inside JSON strings become \ufffd in place: a C string can not carry NUL, and the request
 * keeps its id and its answer (jansson would refuse the whole message). */
static void fix_nul_escapes(char *s, size_t len)
{
	bool in_string = false;
	for (size_t i = 0; i < len; i++) {
		if (!in_string) {
			in_string = s[i] == '"';
		} else if (s[i] == '"') {
			in_string = false;
		} else if (s[i] == '\\' && i + 1 < len) {
			if (s[i + 1] == 'u' && i + 5 < len && !memcmp(s + i + 2, "0000", 4))
				memcpy(s + i + 2, "fffd", 4);
			i++; /* the escaped character is never a quote or a backslash that counts */
		}
	}
}

/* After a decode with every number as a real: whole values that fit an int64 become integers again. */
static json_t *ints_back(json_t *v)
{
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d == floor(d) && d >= -9007199254740992.0 && d <= 9007199254740992.0) {
			json_t *i = json_integer((json_int_t)d);
			json_decref(v);
			return i;
		}
	} else if (json_is_object(v)) {
		const char *k;
		json_t *x;
		void *tmp;
		json_object_foreach_safe(v, tmp, k, x) json_object_set_new(v, k, ints_back(json_incref(x)));
	} else if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++)
			json_array_set_new(v, i, ints_back(json_incref(json_array_get(v, i))));
	}
	return v;
}

void mcp_msg_parse(const char *line, size_t len, struct mcp_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->bytes = len;
	json_error_t jerr;
	/*
	 * What JSON.parse reads, this server reads: invalid UTF-8 bytes become U+FFFD and an escaped lone
	 * surrogate becomes \ufffd, so such a request gets its normal answer (with its id) instead of -32700.
	 */
	char *fixed = NULL;
	bool valid = sw_text_is_valid(line, len);
	if ((!valid || memmem(line, len, "\\u", 2)) && !memchr(line, '\0', len)) {
		if (valid) {
			fixed = malloc(len + 1);
			if (fixed) {
				memcpy(fixed, line, len);
				fixed[len] = '\0';
			}
		} else {
			fixed = sw_text_cap(line, len, SIZE_MAX, SW_CAP_HEAD);
		}
		if (fixed) {
			len = strlen(fixed);
			sw_json_fix_lone_surrogates(fixed, len);
			fix_nul_escapes(fixed, len);
			line = fixed;
		}
	}
	m->root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (!m->root && strstr(jerr.text, "too big integer")) {
		/* JSON.parse reads 2^64 as a number: so does this server (a double), and the request is answered */
		m->root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &jerr);
		if (m->root)
			m->root = ints_back(m->root);
	}
	sw_free(fixed);
	if (!m->root) {
		char msg[160];
		sw_text_snprintf(msg, sizeof(msg), "Parse error: %s", jerr.text);
		invalid(m, RPC_PARSE_ERROR, msg);
		return;
	}
	if (json_is_array(m->root)) {
		invalid(m, RPC_INVALID_REQUEST,
		        "Invalid Request: JSON-RPC batches are not supported by MCP; send one message per line");
		return;
	}
	if (!json_is_object(m->root)) {
		invalid(m, RPC_INVALID_REQUEST, "Invalid Request: a message must be a JSON object");
		return;
	}
	json_t *id = json_object_get(m->root, "id");
	if (valid_id(id))
		m->id = id;
	json_t *ver = json_object_get(m->root, "jsonrpc");
	if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0") != 0) {
		invalid(m, RPC_INVALID_REQUEST, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
		return;
	}
	json_t *method = json_object_get(m->root, "method");
	json_t *params = json_object_get(m->root, "params");
	if (method) {
		if (!json_is_string(method) || json_string_length(method) == 0) {
			invalid(m, RPC_INVALID_REQUEST, "Invalid Request: \"method\" must be a non-empty string");
			return;
		}
		m->method = json_string_value(method);
		if (params && !json_is_object(params)) {
			invalid(m, RPC_INVALID_PARAMS, "Invalid params: \"params\" must be an object");
			return;
		}
		m->params = params;
		if (id && !m->id) {
			invalid(m, RPC_INVALID_REQUEST, "Invalid Request: \"id\" must be a string or an integer");
			return;
		}
		m->kind = id ? MCP_MSG_REQUEST : MCP_MSG_NOTIFICATION;
		return;
	}
	json_t *result = json_object_get(m->root, "result");
	json_t *error = json_object_get(m->root, "error");
	if (m->id && (result != NULL) != (error != NULL)) {
		m->kind = MCP_MSG_RESPONSE;
		m->result = result;
		m->error = error;
		return;
	}
	invalid(m, RPC_INVALID_REQUEST, "Invalid Request: neither a request, a notification nor a response");
}

void mcp_msg_clear(struct mcp_msg *m)
{
	json_decref(m->root);
	memset(m, 0, sizeof(*m));
}

char *mcp_json_line(const json_t *v)
{
	/* 15 significant digits: 0.1 is written 0.1, not jansson's default 0.10000000000000001. */
	return json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
}

json_t *mcp_error_msg(const json_t *id, int code, const char *message, json_t *data)
{
	/* Total: a message that is not valid UTF-8 is sent with U+FFFD, never dropped with the answer. */
	char *clean = message && !sw_text_is_valid(message, strlen(message))
	                  ? sw_text_cap(message, (size_t)-1, SIZE_MAX, SW_CAP_HEAD)
	                  : NULL;
	json_t *e = json_pack("{s:i,s:s}", "code", code, "message", clean ? clean : message ? message : "error");
	sw_free(clean);
	if (!e)
		e = json_pack("{s:i,s:s}", "code", code, "message", "error");
	if (e && data)
		json_object_set_new(e, "data", data);
	else
		json_decref(data);
	json_t *msg = json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id ? (json_t *)id : json_null(), "error", e);
	return msg;
}
