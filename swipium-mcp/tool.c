/* tool.c: tools/call: validation order, the success and error envelopes, response modes, size caps. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp.h"

#define CAP_WHAT 2000
#define CAP_EXTRA_STRING 8000
#define CAP_NAMES 20
#define CAP_NAME_CHARS 100
#define CAP_ENVELOPE 65536

/* ---- tools/list entries ----------------------------------------------------- */

json_t *mcp_tool_entry(const struct mcp_tool *t)
{
	json_t *schema = json_loads(t->schema, 0, NULL);
	if (!json_is_object(schema)) {
		json_decref(schema);
		return NULL;
	}
	if (!json_object_get(schema, "properties"))
		json_object_set_new(schema, "properties", json_object());
	json_object_set_new(schema, "additionalProperties", json_false());
	json_t *ann;
	switch (t->annot) {
	case MCP_ANNOT_RO: ann = json_pack("{s:b,s:b}", "readOnlyHint", 1, "openWorldHint", 0); break;
	case MCP_ANNOT_I:
		ann = json_pack("{s:b,s:b,s:b,s:b}", "readOnlyHint", 0, "destructiveHint", 0, "idempotentHint", 1,
		                "openWorldHint", 0);
		break;
	case MCP_ANNOT_D:
		ann = json_pack("{s:b,s:b,s:b,s:b}", "readOnlyHint", 0, "destructiveHint", 1, "idempotentHint", 0,
		                "openWorldHint", 0);
		break;
	default:
		ann = json_pack("{s:b,s:b,s:b,s:b}", "readOnlyHint", 0, "destructiveHint", 0, "idempotentHint", 0,
		                "openWorldHint", 0);
		break;
	}
	return json_pack("{s:s,s:s,s:o,s:o,s:{s:s}}", "name", t->name, "description", t->description, "inputSchema",
	                 schema, "annotations", ann, "execution", "taskSupport", "forbidden");
}

/* ---- the call context --------------------------------------------------------- */

sw_ctx *mcp_call_ctx(mcp_call *call)
{
	return call->srv->ctx;
}

const char *mcp_call_tool_name(const mcp_call *call)
{
	return call->tool ? call->tool->name : "";
}

int mcp_call_cancelled(mcp_call *call)
{
	return atomic_load(&call->req->cancelled);
}

int mcp_call_abort(void *call)
{
	return mcp_call_cancelled(call);
}

int mcp_call_sleep(mcp_call *call, long ms)
{
	while (ms > 0) {
		if (mcp_call_cancelled(call))
			return -1;
		long step = ms < 50 ? ms : 50;
		struct timespec ts = {0, step * 1000000L};
		nanosleep(&ts, NULL);
		ms -= step;
	}
	return mcp_call_cancelled(call) ? -1 : 0;
}

int mcp_call_project_root(mcp_call *call, const char *project_root, char **root, char **source)
{
	char **roots = project_root ? NULL : mcp_client_roots(call->srv, call->req);
	sw_root_request req = SW_ROOT_REQUEST_INIT;
	req.project_root = project_root;
	req.mcp_roots = (const char *const *)roots;
	sw_error *err = NULL;
	int rc = sw_project_root_resolve(&req, root, source, &err);
	mcp_strv_free(roots);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return -1;
	}
	return 0;
}

/* ---- answering ------------------------------------------------------------------ */

void mcp_ok(mcp_call *call, json_t *payload, const char *summary)
{
	if (call->answered) {
		json_decref(payload);
		return;
	}
	call->answered = true;
	call->is_error = false;
	call->payload = payload ? payload : json_object();
	call->summary = sw_text_cap(summary, (size_t)-1, SIZE_MAX, SW_CAP_HEAD);
}

json_t *mcp_json_text(const char *s)
{
	if (!s)
		return json_string("");
	json_t *j = json_string(s);
	if (j)
		return j;
	char *clean = sw_text_cap(s, (size_t)-1, SIZE_MAX, SW_CAP_HEAD);
	j = json_string(clean ? clean : "");
	sw_free(clean);
	return j;
}

const char *mcp_cap(mcp_call *call, const char *s, size_t max)
{
	char *c = sw_text_cap(s, (size_t)-1, max, SW_CAP_HEAD_TAIL);
	json_t *j = c ? json_string(c) : NULL;
	sw_free(c);
	if (!j)
		return "";
	if (!call->scratch)
		call->scratch = json_array();
	json_array_append_new(call->scratch, j);
	return json_string_value(j);
}

/* vasprintf, then capped at @max characters (head and tail kept); never NULL unless out of memory. */
static char *vcapf(size_t max, const char *fmt, va_list ap)
{
	char *raw = NULL;
	if (vasprintf(&raw, fmt, ap) < 0)
		return NULL;
	char *out = sw_text_cap(raw, (size_t)-1, max, SW_CAP_HEAD_TAIL);
	free(raw);
	return out;
}

void mcp_next(mcp_call *call, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *buf = vcapf(1024, fmt, ap);
	va_end(ap);
	if (!buf)
		return;
	if (!call->next)
		call->next = json_array();
	json_array_append_new(call->next, mcp_json_text(buf));
	sw_free(buf);
}

void mcp_keep_whole_summary(mcp_call *call)
{
	call->keep_whole_summary = true;
}

void mcp_add_content(mcp_call *call, json_t *block)
{
	if (!call->content)
		call->content = json_array();
	json_array_append_new(call->content, block);
}

void mcp_fail(mcp_call *call, const char *failure_code, const char *what, json_t *extra)
{
	if (call->answered) {
		json_decref(extra);
		return;
	}
	call->answered = true;
	call->is_error = true;
	call->failure_code = sw_text_cap(failure_code ? failure_code : "UNKNOWN", (size_t)-1, CAP_NAME_CHARS,
	                                 SW_CAP_HEAD_TAIL);
	call->what = sw_text_cap(what ? what : "The tool failed.", (size_t)-1, CAP_WHAT, SW_CAP_HEAD_TAIL);
	call->payload = extra ? extra : json_object();
}

void mcp_fail_err(mcp_call *call, const sw_error *err)
{
	if (!err) {
		mcp_fail(call, "UNKNOWN", "The operation failed without details.", NULL);
		return;
	}
	json_t *extra = NULL;
	const char *details = sw_error_details_json(err);
	if (details) {
		extra = json_loads(details, 0, NULL);
		if (!json_is_object(extra)) {
			json_decref(extra);
			extra = NULL;
		}
	}
	int code = sw_error_code(err);
	const char *fc = sw_error_failure_code(err);
	if (code == SW_ECANCELLED && (!fc || !strcmp(fc, "UNKNOWN")))
		fc = "CANCELLED";
	bool has_changed = false, has_retry = false;
	bool changed = false, retry = false;
	if (extra) {
		json_t *c = json_object_get(extra, "changedState");
		json_t *r = json_object_get(extra, "retrySafe");
		if (json_is_boolean(c)) {
			has_changed = true;
			changed = json_is_true(c);
			json_object_del(extra, "changedState");
		}
		if (json_is_boolean(r)) {
			has_retry = true;
			retry = json_is_true(r);
			json_object_del(extra, "retrySafe");
		}
		json_t *steps = json_object_get(extra, "nextSteps");
		if (json_is_array(steps)) {
			size_t i;
			json_t *st;
			json_array_foreach(steps, i, st)
			{
				if (json_is_string(st))
					mcp_fail_step(call, "%s", json_string_value(st));
			}
			json_object_del(extra, "nextSteps");
		}
	}
	mcp_fail(call, fc, sw_error_message(err), extra);
	if (has_changed || has_retry)
		mcp_fail_flags(call, has_changed ? changed : false,
		               has_retry ? retry : mcp_catalog_retry_safe(call->failure_code));
	const char *hint = sw_error_hint(err);
	if (hint)
		mcp_fail_step(call, "%s", hint);
}

void mcp_fail_step(mcp_call *call, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *buf = vcapf(CAP_WHAT, fmt, ap);
	va_end(ap);
	if (!buf)
		return;
	if (!call->steps)
		call->steps = json_array();
	json_array_append_new(call->steps, mcp_json_text(buf));
	sw_free(buf);
}

void mcp_fail_flags(mcp_call *call, bool changed_state, bool retry_safe)
{
	call->changed_state = changed_state;
	call->retry_safe = retry_safe ? 1 : 0;
}

void mcp_fail_hint(mcp_call *call, const char *hint)
{
	free(call->hint);
	call->hint = hint ? sw_text_cap(hint, (size_t)-1, CAP_WHAT, SW_CAP_HEAD_TAIL) : NULL;
}

/* ---- size caps -------------------------------------------------------------------- */

/* Keeps the head and tail of a long string around the marker (UTF-16 units, never splitting a character). */
static json_t *cap_string(const char *s, size_t max)
{
	char *c = sw_text_cap(s, (size_t)-1, max, SW_CAP_HEAD_TAIL);
	json_t *j = mcp_json_text(c);
	sw_free(c);
	return j;
}

static void cap_strings_deep(json_t *v, size_t max)
{
	if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x)
		{
			if (json_is_string(x) && json_string_length(x) > max)
				json_object_set_new(v, k, cap_string(json_string_value(x), max));
			else
				cap_strings_deep(x, max);
		}
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
		{
			if (json_is_string(x) && json_string_length(x) > max)
				json_array_set_new(v, i, cap_string(json_string_value(x), max));
			else
				cap_strings_deep(x, max);
		}
	}
}

/* ---- rendering ---------------------------------------------------------------------- */

static json_t *text_block(const char *text)
{
	return json_pack("{s:s,s:o}", "type", "text", "text", mcp_json_text(text));
}

static char *join_lines_uris(const char *summary, const json_t *payload)
{
	static const char *const keys[] = {"artifactUri", "screenshotUri", "reportUri", "exportUri",
	                                   "manifestUri", "dumpUri",       NULL};
	size_t cap = strlen(summary) + 1;
	char *out = strdup(summary);
	for (int i = 0; out && keys[i]; i++) {
		const char *u = json_string_value(json_object_get(payload, keys[i]));
		if (u && !strstr(out, u)) {
			cap += strlen(u) + 1;
			char *n = realloc(out, cap);
			if (!n)
				break;
			out = n;
			strcat(out, "\n");
			strcat(out, u);
		}
	}
	json_t *arr = json_object_get(payload, "artifactUris");
	size_t i;
	json_t *u;
	json_array_foreach(arr, i, u)
	{
		if (!out || !json_is_string(u) || strstr(out, json_string_value(u)))
			continue;
		cap += json_string_length(u) + 1;
		char *n = realloc(out, cap);
		if (!n)
			break;
		out = n;
		strcat(out, "\n");
		strcat(out, json_string_value(u));
	}
	return out;
}

static char *text_with_json(const char *head, json_t *obj, bool pretty)
{
	char *js = json_dumps(obj, pretty ? (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))
	                                  : (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)));
	char *out = NULL;
	if (js && asprintf(&out, "%s\n%s", head, js) < 0)
		out = NULL;
	free(js);
	return out;
}

static bool payload_has_next(const json_t *p)
{
	return json_object_get(p, "nextBestAction") || json_object_get(p, "nextAction") ||
	       json_object_get(p, "nextRecommendedAction") || json_object_get(p, "nextSteps");
}

static json_t *build_success(mcp_call *call)
{
	const char *mode = call->response_mode[0] ? call->response_mode : "normal";
	json_t *sc = json_object();
	const char *summary = call->summary ? call->summary : "";
	const char *nl = strchr(summary, '\n');
	if (call->keep_whole_summary || !nl)
		json_object_set_new(sc, "summary", mcp_json_text(summary));
	else
		json_object_set_new(sc, "summary", json_stringn(summary, (size_t)(nl - summary)));
	json_object_set_new(sc, "ok", json_true());
	json_object_update(sc, call->payload);
	if (call->next && json_array_size(call->next) && !payload_has_next(call->payload))
		json_object_set(sc, "next", call->next);
	if (call->text_verbatim) {
		/* The consent envelope: its own text, the payload as-is (no summary/ok keys). */
		json_decref(sc);
		return json_pack("{s:[o],s:O}", "content", text_block(summary), "structuredContent", call->payload);
	}

	char *text = NULL;
	if (!strcmp(mode, "compact")) {
		text = join_lines_uris(summary, sc);
	} else {
		json_t *copy = json_deep_copy(sc);
		json_object_del(copy, "summary");
		if (!strcmp(mode, "normal") && call->tool && call->tool->rendered_above) {
			json_t *ra = json_array();
			for (const char *const *k = call->tool->rendered_above; *k; k++) {
				if (json_object_get(copy, *k)) {
					json_object_del(copy, *k);
					json_array_append_new(ra, json_string(*k));
				}
			}
			if (json_array_size(ra))
				json_object_set_new(copy, "renderedAbove", ra);
			else
				json_decref(ra);
		}
		text = text_with_json(summary, copy, !strcmp(mode, "verbose"));
		json_decref(copy);
	}
	json_t *content = json_array();
	json_array_append_new(content, text_block(text ? text : summary));
	free(text);
	size_t i;
	json_t *b;
	json_array_foreach(call->content, i, b)
	{
		json_array_append(content, b);
	}
	return json_pack("{s:o,s:o}", "content", content, "structuredContent", sc);
}

static json_t *cap_names(json_t *arr)
{
	json_t *out = json_array();
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
	{
		if (i >= CAP_NAMES)
			break;
		if (json_is_string(v))
			json_array_append_new(out, cap_string(json_string_value(v), CAP_NAME_CHARS));
		else if (json_is_object(v)) {
			json_t *c = json_deep_copy(v);
			json_t *p = json_object_get(c, "path");
			if (json_is_string(p))
				json_object_set_new(c, "path", cap_string(json_string_value(p), CAP_NAME_CHARS));
			json_array_append_new(out, c);
		}
	}
	return out;
}

static json_t *build_error(mcp_call *call)
{
	const char *mode = call->response_mode[0] ? call->response_mode : "normal";
	bool retry = call->retry_safe >= 0 ? call->retry_safe : mcp_catalog_retry_safe(call->failure_code);
	json_t *steps = json_array();
	size_t i;
	json_t *st;
	json_array_foreach(call->steps, i, st)
	{
		json_array_append_new(steps, cap_string(json_string_value(st), CAP_WHAT));
	}
	json_t *sc = json_object();
	json_object_set_new(sc, "ok", json_false());
	json_object_set_new(sc, "failureCode", mcp_json_text(call->failure_code));
	json_object_set_new(sc, "what", cap_string(call->what, CAP_WHAT));
	json_object_set_new(sc, "changedState", json_boolean(call->changed_state));
	json_object_set_new(sc, "retrySafe", json_boolean(retry));
	json_object_set_new(sc, "nextSteps", steps);
	json_t *extra = call->payload;
	static const char *const listed[] = {"unknownArguments", "invalidArguments", "acceptedParameters", NULL};
	for (int k = 0; listed[k]; k++) {
		json_t *a = json_object_get(extra, listed[k]);
		if (json_is_array(a) && strcmp(listed[k], "acceptedParameters") != 0)
			json_object_set_new(extra, listed[k], cap_names(a));
	}
	cap_strings_deep(extra, CAP_EXTRA_STRING);
	const char *key;
	json_t *v;
	json_object_foreach(extra, key, v)
	{
		if (!json_object_get(sc, key))
			json_object_set(sc, key, v);
	}
	if (call->hint)
		json_object_set_new(sc, "clientHint", cap_string(call->hint, CAP_WHAT));
	char *probe = json_dumps(sc, JSON_COMPACT);
	if (probe && strlen(probe) > CAP_ENVELOPE) {
		json_t *dropped = json_array();
		json_object_foreach(extra, key, v)
		{
			json_object_del(sc, key);
			json_array_append_new(dropped, json_string(key));
		}
		json_object_set_new(sc, "extraDropped", dropped);
	}
	free(probe);

	/* Text: the heading lines always, the JSON unless compact. */
	size_t cap = 64 + strlen(json_string_value(json_object_get(sc, "what")));
	json_array_foreach(json_object_get(sc, "nextSteps"), i, st) cap += json_string_length(st) + 8;
	if (call->hint)
		cap += strlen(json_string_value(json_object_get(sc, "clientHint"))) + 8;
	char *head = malloc(cap);
	if (head) {
		int n = snprintf(head, cap, "❌ %s\nchangedState=%s retrySafe=%s",
		                 json_string_value(json_object_get(sc, "what")), call->changed_state ? "true" : "false",
		                 retry ? "true" : "false");
		size_t used = n > 0 ? (size_t)n : 0;
		json_array_foreach(json_object_get(sc, "nextSteps"), i, st)
		{
			n = snprintf(head + used, cap - used, "\nnext: %s", json_string_value(st));
			used += n > 0 ? (size_t)n : 0;
		}
		if (call->hint)
			snprintf(head + used, cap - used, "\nhint: %s",
			         json_string_value(json_object_get(sc, "clientHint")));
	}
	char *text = NULL;
	if (head && strcmp(mode, "compact") != 0)
		text = text_with_json(head, sc, !strcmp(mode, "verbose"));
	json_t *result = json_pack("{s:[o],s:o,s:b}", "content",
	                           text_block(text   ? text
	                                      : head ? head
	                                             : call->what),
	                           "structuredContent", sc, "isError", 1);
	free(text);
	free(head);
	return result;
}

/* ---- the session redactor over the final result ------------------------------------------------- */

/*
 * The redactors that apply to the call's result: its session's (the one the handler looked up, else
 * args.sessionId when known). A call that names no session (qa_get_artifact, a sessionless qa_status)
 * gets every session's of this process, so a secret registered anywhere is never echoed back.
 * Returns the number stored in @out (at most @max).
 */
static size_t call_redactors(mcp_call *call, sw_redactor **out, size_t max)
{
	if (call->session) {
		out[0] = sw_session_redactor(call->session);
		return out[0] ? 1 : 0;
	}
	sw_store *store = call->srv->store;
	if (!store)
		return 0;
	const char *sid = json_string_value(json_object_get(call->args, "sessionId"));
	sw_session *sess = NULL;
	if (sid && sw_store_get_session(store, sid, &sess, NULL) == SW_OK && sess) {
		out[0] = sw_session_redactor(sess);
		return out[0] ? 1 : 0;
	}
	char *text = NULL;
	if (sw_store_sessions_json(store, &text, NULL) != SW_OK)
		return 0;
	json_t *list = json_loads(text, 0, NULL);
	sw_free(text);
	size_t n = 0, i;
	json_t *e;
	json_array_foreach(list, i, e)
	{
		const char *id = json_string_value(json_object_get(e, "id"));
		if (n < max && id && sw_store_get_session(store, id, &sess, NULL) == SW_OK && sess &&
		    sw_session_redactor(sess) && sw_redactor_count(sw_session_redactor(sess)) > 0)
			out[n++] = sw_session_redactor(sess);
	}
	json_decref(list);
	return n;
}

static json_t *redacted_string(sw_redactor *r, const char *s, size_t len)
{
	char *out = NULL;
	size_t n = 0;
	if (sw_redactor_redact_text(r, s, len, &out, &n, NULL, NULL) != SW_OK)
		return json_string(SW_REDACTED_MARKER); /* never the raw text */
	json_t *j = json_stringn(out, n);
	sw_free(out);
	return j ? j : json_string(SW_REDACTED_MARKER);
}

/*
 * Every result a tool gives passes the session redactor here (TOOLS.md §7.4), whatever the handler
 * did: the text of text blocks and embedded text resources, and structuredContent structurally
 * (every key and string at any depth, geometry untouched). Images and blobs are pixels, never redacted.
 */
static void redact_result(sw_redactor *r, json_t *result)
{
	if (!r || !result || sw_redactor_count(r) == 0)
		return;
	size_t i;
	json_t *block;
	json_array_foreach(json_object_get(result, "content"), i, block)
	{
		json_t *text = json_object_get(block, "text");
		if (json_is_string(text))
			json_object_set_new(block, "text",
			                    redacted_string(r, json_string_value(text), json_string_length(text)));
		json_t *res = json_object_get(block, "resource");
		json_t *rt = json_object_get(res, "text");
		if (json_is_string(rt))
			json_object_set_new(res, "text", redacted_string(r, json_string_value(rt), json_string_length(rt)));
	}
	json_t *sc = json_object_get(result, "structuredContent");
	if (!sc)
		return;
	char *raw = json_dumps(sc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
	char *clean = NULL;
	json_t *back = NULL;
	if (raw && sw_redactor_redact_json(r, raw, &clean, NULL) == SW_OK)
		back = json_loads(clean, JSON_DECODE_ANY, NULL);
	free(raw);
	sw_free(clean);
	/* structuredContent that cannot be redacted is not sent (the text block already was redacted) */
	json_object_set_new(result, "structuredContent",
	                    back ? back : json_pack("{s:b,s:s}", "ok", 0, "what", "The result could not be redacted."));
}

static void redact_all(mcp_call *call, json_t *result)
{
	sw_redactor *rs[256];
	size_t n = call_redactors(call, rs, sizeof(rs) / sizeof(rs[0]));
	for (size_t i = 0; i < n; i++)
		redact_result(rs[i], result);
}

/* ---- argument checks ------------------------------------------------------------------ */

static json_t *accepted_parameters(const json_t *schema)
{
	json_t *out = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(schema, "properties"), k, v)
	{
		json_array_append_new(out, json_string(k));
	}
	return out;
}

/* Unknown top-level arguments, then per-field checks. Returns true when the call may run. */
static bool check_arguments(mcp_call *call, const json_t *schema, json_t *args)
{
	json_t *props = json_object_get(schema, "properties");
	json_t *unknown = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(args, k, v)
	{
		if (!json_object_get(props, k))
			json_array_append_new(unknown, json_string(k));
	}
	if (json_array_size(unknown)) {
		/* Each name is shown capped (it is the caller's text and may be anything), at most five of them. */
		char *what = NULL;
		size_t wlen = 0;
		FILE *f = open_memstream(&what, &wlen);
		if (f) {
			fprintf(f, "%s does not accept ", call->tool->name);
			size_t i;
			json_array_foreach(unknown, i, v)
			{
				if (i >= 5)
					break;
				char *name = sw_text_cap(json_string_value(v), (size_t)-1, CAP_NAME_CHARS, SW_CAP_HEAD_TAIL);
				fprintf(f, "%s\"%s\"", i ? ", " : "", name ? name : "");
				sw_free(name);
			}
			if (json_array_size(unknown) > 5)
				fprintf(f, " and %zu more", json_array_size(unknown) - 5);
			fprintf(f, "; nothing ran.");
			fclose(f);
		}
		mcp_fail(call, "INVALID_ARGUMENT", what,
		         json_pack("{s:o,s:o}", "unknownArguments", unknown, "acceptedParameters",
		                   accepted_parameters(schema)));
		free(what);
		mcp_fail_step(call, "Re-call %s with only the accepted parameters (see acceptedParameters).",
		              call->tool->name);
		return false;
	}
	json_decref(unknown);
	json_t *problems = json_array();
	mcp_schema_validate(schema, args, "", problems);
	if (json_array_size(problems)) {
		json_t *first = json_array_get(problems, 0);
		char *path = sw_text_cap(json_string_value(json_object_get(first, "path")), (size_t)-1, 150,
		                         SW_CAP_HEAD_TAIL);
		char *message = sw_text_cap(json_string_value(json_object_get(first, "message")), (size_t)-1, 200,
		                            SW_CAP_HEAD_TAIL);
		char *what = NULL;
		if (asprintf(&what, "%s: %s", path ? path : "", message ? message : "") < 0)
			what = NULL;
		sw_free(path);
		sw_free(message);
		mcp_fail(call, "INVALID_ARGUMENT", what,
		         json_pack("{s:o,s:o}", "invalidArguments", problems, "acceptedParameters",
		                   accepted_parameters(schema)));
		free(what);
		mcp_fail_step(call, "Fix the arguments listed in invalidArguments and call %s again.",
		              call->tool->name);
		return false;
	}
	json_decref(problems);
	return true;
}

/* ---- 2026-07-28 requestState ----------------------------------------------------------- */

char *mcp_args_hash(const json_t *args);
char *mcp_args_hash(const json_t *args)
{
	char *canon = mcp_canonical_json(args);
	if (!canon)
		return NULL;
	char *hex = malloc(65);
	if (hex)
		sw_sha256_hex(canon, strlen(canon), hex);
	free(canon);
	return hex;
}

/* Redeems the requestState of a retried call: single use, bound to tool, args and session. */
static bool redeem_state(mcp_call *call, json_t *token)
{
	struct mcp_server *s = call->srv;
	struct mcp_request_state *found = NULL;
	if (json_is_string(token)) {
		pthread_mutex_lock(&s->lock);
		for (struct mcp_request_state **pp = &s->states; *pp; pp = &(*pp)->next) {
			if (!strcmp((*pp)->token, json_string_value(token))) {
				found = *pp;
				*pp = found->next; /* deleted on first presentation */
				break;
			}
		}
		pthread_mutex_unlock(&s->lock);
	}
	bool ok = found != NULL;
	if (ok) {
		char *hash = mcp_args_hash(call->args);
		const char *sid = json_string_value(json_object_get(call->args, "sessionId"));
		if (!hash || strcmp(found->tool, call->tool->name) != 0 || strcmp(found->args_hash, hash) != 0 ||
		    strcmp(found->session_id, sid ? sid : "") != 0)
			ok = false;
		free(hash);
		/* Expired tokens (older than the consent TTL) are refused too. */
		if (sw_monotonic_ms() - found->issued_at_ms > SW_CONSENT_TTL_MS)
			ok = false;
	}
	if (!ok) {
		if (found) {
			/* A mismatch burns the consent behind the token. */
			json_decref(found->request);
			free(found);
		}
		json_decref(call->raw_error);
		call->raw_error =
		    json_pack("{s:i,s:s,s:{s:s}}", "code", RPC_INVALID_PARAMS, "message",
		              "Invalid or expired requestState", "data", "reason", "invalid_request_state");
		return false;
	}
	call->redeemed = found;
	return true;
}

/* ---- the call ---------------------------------------------------------------------------- */

bool mcp_tool_listed(const char *name)
{
	for (size_t i = 0; name && mcp_tools[i]; i++)
		if (!strcmp(mcp_tools[i]->name, name))
			return true;
	return false;
}

json_t *mcp_listed_tools(void)
{
	json_t *a = json_array();
	for (size_t i = 0; mcp_tools[i]; i++)
		json_array_append_new(a, json_string(mcp_tools[i]->name));
	return a;
}

enum mcp_consent_outcome mcp_call_consent_take(mcp_call *call, json_t *args, const struct mcp_consent_request *req)
{
	enum mcp_consent_outcome oc = mcp_call_consent(call, args, req);
	json_decref(req->commands);
	json_decref(req->affects);
	return oc;
}

void mcp_consent_sessions_put(struct mcp_consent_sessions *t, size_t cap, mcp_call *call, sw_session *s)
{
	const char *cid = json_string_value(json_object_get(call->payload, "consentId"));
	if (!cid || call->is_error)
		return;
	if (cap > MCP_CONSENT_SESSIONS_MAX)
		cap = MCP_CONSENT_SESSIONS_MAX;
	size_t i = t->next++ % cap;
	snprintf(t->slot[i].consent_id, sizeof(t->slot[i].consent_id), "%s", cid);
	snprintf(t->slot[i].session_id, sizeof(t->slot[i].session_id), "%s", sw_session_id(s));
}

const char *mcp_consent_sessions_get(const struct mcp_consent_sessions *t, size_t cap, const char *consent_id)
{
	if (cap > MCP_CONSENT_SESSIONS_MAX)
		cap = MCP_CONSENT_SESSIONS_MAX;
	for (size_t i = 0; consent_id && i < cap; i++)
		if (t->slot[i].consent_id[0] && !strcmp(t->slot[i].consent_id, consent_id))
			return t->slot[i].session_id;
	return NULL;
}

/* The library's test_this_plan request for @plan's consent steps and artifact, asked as if required (the three
 * functions below hand out its parts; the request itself is built once, by sw_test_plan_consent). */
static json_t *plan_request(json_t *plan)
{
	json_t *p = json_deep_copy(plan);
	json_t *consent = json_object_get(p, "consent");
	if (!json_is_object(consent)) {
		consent = json_object();
		json_object_set_new(p, "consent", consent);
	}
	json_object_set_new(consent, "required", json_true());
	char *pj = p ? json_dumps(p, JSON_COMPACT) : NULL, *rj = NULL;
	json_decref(p);
	sw_error *err = NULL;
	json_t *r = pj && sw_test_plan_consent(NULL, pj, &rj, &err) == SW_OK ? json_loads(rj, 0, NULL) : NULL;
	sw_error_free(err);
	free(pj);
	sw_free(rj);
	return r;
}

json_t *mcp_plan_consent_commands(json_t *plan)
{
	json_t *r = plan_request(plan);
	json_t *c = json_object_get(r, "commands");
	json_t *out = json_is_array(c) ? json_incref(c) : json_array();
	json_decref(r);
	return out;
}

json_t *mcp_plan_consent_steps(json_t *plan)
{
	json_t *r = plan_request(plan);
	json_t *st = json_object_get(json_object_get(r, "affects"), "steps");
	json_t *out = json_is_array(st) ? json_incref(st) : json_array();
	json_decref(r);
	return out;
}

void mcp_plan_affects_artifact(json_t *affects, json_t *art, json_t *target_choice)
{
	json_t *plan = json_pack("{s:{s:[]},s:O?,s:O?}", "consent", "steps", "artifactChoice", art, "targetChoice",
	                         target_choice);
	json_t *r = plan_request(plan);
	json_decref(plan);
	static const char *const keys[] = {"apk", "appId", "insideProjectRoot", "sha256", "target", NULL};
	json_t *from = json_object_get(r, "affects");
	for (size_t i = 0; keys[i]; i++)
		if (json_object_get(from, keys[i]))
			json_object_set(affects, keys[i], json_object_get(from, keys[i]));
	json_decref(r);
}

json_t *mcp_args_for_library(const json_t *args, const char *const *drop)
{
	json_t *a = json_deep_copy(args);
	static const char *const mcp_only[] = {"sessionId", "consentId", "approve", NULL};
	for (size_t i = 0; a && mcp_only[i]; i++)
		json_object_del(a, mcp_only[i]);
	for (size_t i = 0; a && drop && drop[i]; i++)
		json_object_del(a, drop[i]);
	return a;
}

int mcp_call_session_root(mcp_call *call, json_t *args, bool run, const struct mcp_consent_sessions *pending,
                          size_t cap, sw_session **s, char **root, char **source)
{
	*s = NULL;
	*root = *source = NULL;
	const char *sid = json_string_value(json_object_get(args, "sessionId"));
	if (!sid && run && pending)
		sid = mcp_consent_sessions_get(pending, cap, json_string_value(json_object_get(args, "consentId")));
	if (sid && mcp_call_session(call, sid, s) != 0)
		return -1;
	const char *root_arg = json_string_value(json_object_get(args, "projectRoot"));
	if (!*s || root_arg)
		return mcp_call_project_root(call, root_arg, root, source);
	*root = strdup(sw_session_root(*s));
	return *root ? 0 : -1;
}

char *mcp_call_plan(mcp_call *call, mcp_plan_fn plan, bool run, sw_session **s, const char *root, const char *source,
                    const char *options_json)
{
	char *pj = NULL;
	sw_error *err = NULL;
	int rc = plan(mcp_call_ctx(call), *s, root, options_json, &pj, &err);
	if (rc == SW_OK && run && !*s) {
		/* the run's session, made only once the arguments are known to be good */
		sw_free(pj);
		pj = NULL;
		sw_store *store = mcp_call_store(call);
		if (!store)
			return NULL;
		if ((rc = sw_session_create(store, root, source, NULL, s, &err)) == SW_OK) {
			call->session = *s;
			rc = plan(mcp_call_ctx(call), *s, root, options_json, &pj, &err);
		}
	}
	if (rc != SW_OK) {
		sw_free(pj);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return NULL;
	}
	return pj;
}

enum mcp_consent_outcome mcp_call_plan_consent(mcp_call *call, json_t *args, sw_session *s, const char *plan_json,
                                               struct mcp_consent_sessions *pending, size_t cap)
{
	char *rj = NULL;
	sw_error *err = NULL;
	if (sw_test_plan_consent(s, plan_json, &rj, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return MCP_CONSENT_ANSWERED;
	}
	json_t *r = json_loads(rj, 0, NULL);
	sw_free(rj);
	enum mcp_consent_outcome oc = MCP_CONSENT_APPROVED;
	if (json_is_true(json_object_get(r, "required"))) {
		struct mcp_consent_request req = {
		    .action = json_string_value(json_object_get(r, "action")),
		    .risk = json_string_value(json_object_get(r, "risk")),
		    .explain = json_string_value(json_object_get(r, "explain")),
		    .affects = json_object_get(r, "affects"),
		    .session = s,
		    .commands = json_object_get(r, "commands"),
		};
		oc = mcp_call_consent(call, args, &req);
		if (oc == MCP_CONSENT_ANSWERED && pending)
			mcp_consent_sessions_put(pending, cap, call, s);
	}
	json_decref(r);
	return oc;
}

char *mcp_call_plan_start(mcp_call *call, json_t *args, sw_session *s, const char *plan_json, mcp_running_fn running,
                          mcp_start_fn start, struct mcp_consent_sessions *pending, size_t cap, json_t *notes)
{
	/* one run at a time on a session: a second call gets the running job, nothing is started twice */
	char *busy = running(s);
	if (busy) {
		mcp_ok_job(call, s, busy, true, notes);
		sw_free(busy);
		return NULL;
	}
	if (mcp_call_plan_consent(call, args, s, plan_json, pending, cap) == MCP_CONSENT_ANSWERED)
		return NULL;
	char *job_id = NULL;
	sw_error *err = NULL;
	if (start(mcp_call_ctx(call), s, plan_json, &job_id, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return NULL;
	}
	return job_id;
}

void mcp_ok_job(mcp_call *call, sw_session *s, const char *job_id, bool already, json_t *notes)
{
	const char *tool = mcp_call_tool_name(call);
	json_t *res = json_pack("{s:s,s:s,s:s}", "sessionId", sw_session_id(s), "jobId", job_id, "state", "running");
	char summary[200];
	if (already) {
		json_object_set_new(res, "alreadyRunning", json_true());
		json_t *n = notes ? json_incref(notes) : json_array();
		char line[200];
		sw_text_snprintf(line, sizeof(line),
		                 "a %s job is already running on this session; this call started nothing: poll the running job",
		                 tool);
		json_array_append_new(n, json_string(line));
		json_object_set_new(res, "notes", n);
		mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000}", sw_session_id(s), job_id);
		sw_text_snprintf(summary, sizeof(summary), "%s job %s is already running; nothing new started.", tool, job_id);
	} else {
		if (json_array_size(notes))
			json_object_set(res, "notes", notes);
		mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000} until it leaves running",
		         sw_session_id(s), job_id);
		sw_text_snprintf(summary, sizeof(summary), "%s started as job %s on session %s.", tool, job_id,
		                 sw_session_id(s));
	}
	mcp_ok(call, res, summary);
}

static const struct mcp_tool *find_tool(const char *name)
{
	for (size_t i = 0; mcp_tools[i]; i++)
		if (!strcmp(mcp_tools[i]->name, name))
			return mcp_tools[i];
	return NULL;
}

static void call_clear(mcp_call *call)
{
	json_decref(call->payload);
	json_decref(call->next);
	json_decref(call->content);
	json_decref(call->steps);
	json_decref(call->input_required);
	json_decref(call->raw_error);
	json_decref(call->scratch);
	free(call->summary);
	free(call->failure_code);
	free(call->what);
	free(call->hint);
	if (call->redeemed) {
		json_decref(call->redeemed->request);
		free(call->redeemed);
	}
}

void mcp_tools_call(struct mcp_server *s, struct mcp_inflight *req)
{
	json_t *id = req->id;
	json_t *params = json_object_get(req->msg, "params");
	const char *name = json_string_value(json_object_get(params, "name"));
	if (!name) {
		mcp_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: tools/call needs a \"name\" string", NULL);
		return;
	}
	json_t *args = json_object_get(params, "arguments");
	if (args && !json_is_object(args) && !json_is_null(args)) {
		mcp_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: \"arguments\" must be an object", NULL);
		return;
	}
	json_t *own_args = json_is_object(args) ? json_incref(args) : json_object();
	bool stateless = s->era == MCP_ERA_STATELESS;
	mcp_call call;
	memset(&call, 0, sizeof(call));
	call.srv = s;
	call.req = req;
	call.params = params;
	call.args = own_args;
	call.retry_safe = -1;
	if (stateless) {
		json_t *meta = json_object_get(params, "_meta");
		call.meta_caps = json_object_get(meta, MCP_META_CAPS);
	}
	int64_t t0 = sw_monotonic_ms();

	const struct mcp_tool *tool = find_tool(name);
	call.tool = tool;
	bool run = true;
	if (mcp_stale_check(&call, name, own_args)) {
		run = false;
	} else if (!tool) {
		char *shown = sw_text_cap(name, (size_t)-1, 120, SW_CAP_HEAD_TAIL);
		char *text = NULL;
		if (asprintf(&text, "MCP error -32602: Tool %s not found", shown ? shown : "") < 0)
			text = NULL;
		sw_free(shown);
		json_t *result = json_pack("{s:[o],s:b}", "content", text_block(text ? text : "Tool not found"), "isError", 1);
		free(text);
		if (stateless)
			json_object_set_new(result, "resultType", json_string("complete"));
		mcp_send_result(s, id, result);
		json_decref(own_args);
		return;
	} else if (mcp_server_fixed() != 0) {
		mcp_send_error(s, id, RPC_INTERNAL_ERROR, "Internal error", NULL);
		json_decref(own_args);
		return;
	} else if (!check_arguments(&call, json_object_get(s->tool_schemas, name), own_args)) {
		run = false;
	} else if (stateless && json_object_get(params, "requestState") &&
	           !redeem_state(&call, json_object_get(params, "requestState"))) {
		run = false;
	}
	if (run)
		tool->handler(&call, own_args);

	long ms = (long)(sw_monotonic_ms() - t0);
	bool cancelled = atomic_load(&req->cancelled) != 0;
	const char *sid = json_string_value(json_object_get(own_args, "sessionId"));
	if (call.input_required)
		mcp_log(SW_LOG_DEBUG, "tool call",
		        json_pack("{s:s,s:I,s:b}", "tool", name, "durationMs", (json_int_t)ms, "inputRequired", 1));
	else
		mcp_log(SW_LOG_DEBUG, "tool call",
		        json_pack("{s:s,s:s*,s:I,s:b,s:s*,s:b}", "tool", name, "sessionId", sid, "durationMs",
		                  (json_int_t)ms, "isError", call.is_error || !call.answered, "failureCode",
		                  call.is_error ? call.failure_code : NULL, "cancelled", cancelled));

	if (cancelled) {
		/* The client gave up on this request: it gets no response (as MCP asks). */
	} else if (call.raw_error) {
		mcp_send_error(s, id, (int)json_integer_value(json_object_get(call.raw_error, "code")),
		               json_string_value(json_object_get(call.raw_error, "message")),
		               json_incref(json_object_get(call.raw_error, "data")));
	} else if (call.input_required) {
		json_t *result = json_deep_copy(call.input_required);
		redact_all(&call, result);
		mcp_send_result(s, id, result);
	} else {
		if (!call.answered)
			mcp_fail(&call, "UNKNOWN", "The tool returned no result.", NULL);
		json_t *result = call.is_error ? build_error(&call) : build_success(&call);
		redact_all(&call, result);
		if (result && stateless)
			json_object_set_new(result, "resultType", json_string("complete"));
		mcp_send_result(s, id, result);
	}
	call_clear(&call);
	json_decref(own_args);
}
