/* consent.c: asks for consent the way the connection allows: elicitation/create, InputRequiredResult, or the envelope.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp.h"

#define CONSENT_KEY "swipium_consent"

char *mcp_args_hash(const json_t *args);

/* Form elicitation counts when declared as `elicitation: {}` or with a `form` member (url-only does not). */
static bool caps_form_elicitation(const json_t *caps)
{
	json_t *el = json_object_get(caps, "elicitation");
	if (!json_is_object(el))
		return false;
	if (json_object_size(el) == 0)
		return true;
	return json_object_get(el, "form") != NULL;
}

static bool can_elicit(mcp_call *call)
{
	struct mcp_server *s = call->srv;
	if (s->era == MCP_ERA_STATELESS)
		return caps_form_elicitation(call->meta_caps);
	pthread_mutex_lock(&s->lock);
	bool ok = caps_form_elicitation(s->client_caps);
	pthread_mutex_unlock(&s->lock);
	return ok;
}

static sw_consent_store *consent_store(mcp_call *call)
{
	struct mcp_server *s = call->srv;
	if (!s->consent) {
		sw_error *err = NULL;
		if (sw_consent_store_new(s->ctx, &s->consent, &err) != SW_OK) {
			mcp_fail_err(call, err);
			sw_error_free(err);
			return NULL;
		}
	}
	return s->consent;
}

static void ledger(mcp_call *call, sw_session *sess, json_t *row)
{
	if (!sess || !json_is_object(row))
		return;
	char *text = json_dumps(row, JSON_COMPACT | JSON_PRESERVE_ORDER);
	sw_error *err = NULL;
	if (text && sw_session_ledger_append(sess, text, &err) != SW_OK) {
		mcp_log(SW_LOG_WARN, "could not append a mutation-ledger row",
		        json_pack("{s:s}", "error", sw_error_message(err)));
		sw_error_free(err);
	}
	free(text);
	(void)call;
}

static void random_token(char out[64])
{
	unsigned char raw[32];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	if (fd >= 0) {
		while (got < sizeof(raw)) {
			ssize_t n = read(fd, raw + got, sizeof(raw) - got);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		close(fd);
	}
	if (got < sizeof(raw)) {
		/* /dev/urandom unreadable: fall back to a hash of time and address (still unguessable enough
		 * for a local stdio peer, and never reused). */
		char seed[128];
		snprintf(seed, sizeof(seed), "%lld-%p-%d", (long long)sw_wall_ms(), (void *)out, (int)getpid());
		char hex[65];
		sw_sha256_hex(seed, strlen(seed), hex);
		for (size_t i = 0; i < 32; i++)
			raw[i] = (unsigned char)strtol((char[]){hex[2 * i], hex[2 * i + 1], 0}, NULL, 16);
	}
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t o = 0;
	memcpy(out, "swp1.", 5);
	o = 5;
	for (size_t i = 0; i < 32; i += 3) {
		unsigned v = (unsigned)raw[i] << 16;
		if (i + 1 < 32)
			v |= (unsigned)raw[i + 1] << 8;
		if (i + 2 < 32)
			v |= raw[i + 2];
		out[o++] = b64[(v >> 18) & 63];
		out[o++] = b64[(v >> 12) & 63];
		if (i + 1 < 32)
			out[o++] = b64[(v >> 6) & 63];
		if (i + 2 < 32)
			out[o++] = b64[v & 63];
	}
	out[o] = '\0';
}

/* 2026-07-28: mint a single-use requestState bound to this call and answer with an InputRequiredResult. */
static void input_required(mcp_call *call, const char *consent_id, json_t *elicitation, sw_session *sess)
{
	struct mcp_request_state *st = calloc(1, sizeof(*st));
	char *hash = mcp_args_hash(call->args);
	if (!st || !hash) {
		free(st);
		free(hash);
		mcp_fail(call, "UNKNOWN", "Out of memory while asking for consent.", NULL);
		return;
	}
	random_token(st->token);
	snprintf(st->consent_id, sizeof(st->consent_id), "%s", consent_id);
	snprintf(st->tool, sizeof(st->tool), "%s", call->tool->name);
	snprintf(st->args_hash, sizeof(st->args_hash), "%s", hash);
	free(hash);
	snprintf(st->session_id, sizeof(st->session_id), "%s", sess ? sw_session_id(sess) : "");
	st->issued_at_ms = sw_monotonic_ms();
	pthread_mutex_lock(&call->srv->lock);
	/* Bound the table: drop the oldest beyond the consent cap. */
	size_t n = 0;
	struct mcp_request_state **pp = &call->srv->states;
	while (*pp) {
		if (++n >= SW_CONSENT_MAX_PENDING) {
			struct mcp_request_state *old = *pp;
			*pp = old->next;
			json_decref(old->request);
			free(old);
			continue;
		}
		pp = &(*pp)->next;
	}
	st->next = call->srv->states;
	call->srv->states = st;
	pthread_mutex_unlock(&call->srv->lock);

	json_t *params = json_pack("{s:s,s:O,s:O}", "mode", "form", "message", json_object_get(elicitation, "message"),
	                           "requestedSchema", json_object_get(elicitation, "requestedSchema"));
	json_decref(call->input_required);
	call->input_required =
	    json_pack("{s:s,s:{s:{s:s,s:o}},s:s}", "resultType", "input_required", "inputRequests", CONSENT_KEY,
	              "method", "elicitation/create", "params", params, "requestState", st->token);
}

/* 2025 era: send elicitation/create and turn the client's answer into the gate's elicitationAnswer. */
static json_t *elicit_now(mcp_call *call, json_t *elicitation)
{
	struct mcp_server *s = call->srv;
	json_t *params = json_pack("{s:O,s:O}", "message", json_object_get(elicitation, "message"), "requestedSchema",
	                           json_object_get(elicitation, "requestedSchema"));
	if (!strcmp(s->legacy_version, "2025-11-25"))
		json_object_set_new(params, "mode", json_string("form"));
	int64_t t0 = sw_monotonic_ms();
	const char *why = NULL;
	json_t *resp =
	    mcp_client_request(s, "elicitation/create", params, SW_CONSENT_PROMPT_TIMEOUT_MS, call->req, &why);
	int64_t took = sw_monotonic_ms() - t0;
	json_t *result = resp ? json_object_get(resp, "result") : NULL;
	json_t *answer;
	if (json_is_object(result) && json_is_string(json_object_get(result, "action"))) {
		answer = json_pack("{s:O,s:I}", "action", json_object_get(result, "action"), "answeredInMs",
		                   (json_int_t)took);
		if (json_is_object(json_object_get(result, "content")))
			json_object_set(answer, "content", json_object_get(result, "content"));
	} else {
		char failure[128];
		snprintf(failure, sizeof(failure), "%s: %s",
		         why && (!strcmp(why, "aborted") || !strcmp(why, "transport closed")) ? "abort" : "transport",
		         why ? why : "malformed answer");
		answer = json_pack("{s:s,s:I,s:s}", "action", "cancel", "answeredInMs", (json_int_t)took, "failure",
		                   failure);
	}
	json_decref(resp);
	return answer;
}

enum mcp_consent_outcome mcp_call_consent(mcp_call *call, json_t *args, const struct mcp_consent_request *req)
{
	return mcp_call_consent_via(call, args, req, NULL, NULL);
}

enum mcp_consent_outcome mcp_call_consent_via(mcp_call *call, json_t *args, const struct mcp_consent_request *req,
                                              mcp_consent_gate_fn gate, void *gate_ud)
{
	sw_consent_store *cs = consent_store(call);
	if (!cs)
		return MCP_CONSENT_ANSWERED;
	bool elicit = can_elicit(call);
	json_t *g = json_pack("{s:s,s:s,s:s,s:b}", "tool", call->tool->name, "action", req->action, "explain",
	                      req->explain ? req->explain : "", "canElicit", elicit);
	if (req->risk)
		json_object_set_new(g, "risk", json_string(req->risk));
	if (req->exact_command)
		json_object_set_new(g, "exactCommand", json_string(req->exact_command));
	if (req->commands)
		json_object_set(g, "commands", req->commands);
	if (req->affects)
		json_object_set(g, "affects", req->affects);
	if (req->session)
		json_object_set_new(g, "sessionId", json_string(sw_session_id(req->session)));
	/* only qa_test_this's envelope carries the sessionId (it may have made the session for this call) */
	if (req->session && !strcmp(call->tool->name, "qa_test_this"))
		json_object_set_new(g, "includeSessionId", json_true());
	json_t *cid = json_object_get(args, "consentId");
	json_t *approve = json_object_get(args, "approve");
	if (json_is_string(cid))
		json_object_set(g, "consentId", cid);
	if (json_is_boolean(approve))
		json_object_set(g, "approve", approve);

	/* A 2026-07-28 retry: the redeemed requestState names the consent, inputResponses carries the answer. */
	if (call->redeemed) {
		json_object_set_new(g, "consentId", json_string(call->redeemed->consent_id));
		json_object_del(g, "approve");
		json_t *resp = json_object_get(json_object_get(call->params, "inputResponses"), CONSENT_KEY);
		json_t *answer = NULL;
		int64_t age = sw_monotonic_ms() - call->redeemed->issued_at_ms;
		if (age > SW_CONSENT_PROMPT_TIMEOUT_MS)
			answer = json_pack("{s:s,s:I,s:s}", "action", "cancel", "answeredInMs", (json_int_t)age,
			                   "failure", "transport: answer arrived after the 10-minute prompt timeout");
		else if (json_is_object(resp) && json_is_string(json_object_get(resp, "action"))) {
			answer = json_pack("{s:O,s:I}", "action", json_object_get(resp, "action"), "answeredInMs",
			                   (json_int_t)age);
			if (json_is_object(json_object_get(resp, "content")))
				json_object_set(answer, "content", json_object_get(resp, "content"));
		}
		if (answer)
			json_object_set_new(g, "elicitationAnswer", answer);
		else
			json_object_del(g, "consentId"); /* no answer for our key: ask afresh */
	}

	enum mcp_consent_outcome outcome = MCP_CONSENT_ANSWERED;
	for (int round = 0; round < 2; round++) {
		char *gtext = json_dumps(g, JSON_COMPACT | JSON_PRESERVE_ORDER);
		char *rtext = NULL;
		sw_error *err = NULL;
		int rc = !gtext ? SW_ENOMEM
		         : gate ? gate(cs, gtext, &rtext, &err, gate_ud)
		                : sw_consent_gate(cs, gtext, &rtext, &err);
		free(gtext);
		if (rc != SW_OK) {
			const char *details = err ? sw_error_details_json(err) : NULL;
			json_t *d = details ? json_loads(details, 0, NULL) : NULL;
			ledger(call, req->session, json_object_get(d, "ledgerRow"));
			json_decref(d);
			/* mcp_fail_err copies the details; the ledger row is internal. */
			mcp_fail_err(call, err);
			json_object_del(call->payload, "ledgerRow");
			sw_error_free(err);
			break;
		}
		json_t *r = json_loads(rtext, 0, NULL);
		sw_free(rtext);
		ledger(call, req->session, json_object_get(r, "ledgerRow"));
		if (json_is_true(json_object_get(r, "approved"))) {
			outcome = MCP_CONSENT_APPROVED;
			json_decref(r);
			break;
		}
		if (json_is_true(json_object_get(r, "requiresConsent"))) {
			json_t *env = json_incref(json_object_get(r, "envelope"));
			mcp_ok(call, env, json_string_value(json_object_get(r, "text")));
			call->text_verbatim = true;
			json_decref(r);
			break;
		}
		if (json_is_true(json_object_get(r, "elicitationRequired"))) {
			const char *consent_id = json_string_value(json_object_get(r, "consentId"));
			json_t *el = json_object_get(r, "elicitation");
			if (call->srv->era == MCP_ERA_STATELESS || round > 0) {
				if (round > 0) {
					mcp_fail(
					    call, "CONSENT_CANCELLED",
					    "The consent prompt was asked again after it was answered; nothing ran.",
					    NULL);
				} else {
					input_required(call, consent_id ? consent_id : "", el, req->session);
				}
				json_decref(r);
				break;
			}
			json_t *answer = elicit_now(call, el);
			json_object_set_new(g, "consentId", json_string(consent_id ? consent_id : ""));
			json_object_del(g, "approve");
			json_object_set_new(g, "elicitationAnswer", answer);
			json_decref(r);
			continue;
		}
		json_decref(r);
		mcp_fail(call, "UNKNOWN", "The consent gate gave an answer this server does not understand.", NULL);
		break;
	}
	json_decref(g);
	return outcome;
}
