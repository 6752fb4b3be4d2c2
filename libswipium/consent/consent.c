/* consent.c: pending consent ids and the gate that decides every privileged action. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "consent-internal.h"
#include "consent-policy.h"

#define ID_BYTES 16 /* 128 random bits, 32 hex characters */

typedef enum kind {
	KIND_ENVELOPE, /* shown to the agent; redeemed by approve:true (client-assertion) */
	KIND_PROMPT,   /* owned by a prompt (host call or deferred elicitation) */
} kind;

typedef struct pending {
	char id[2 * ID_BYTES + 1];
	int64_t issued_ms;
	char *session; /* NULL: minted outside a session */
	char *action;
	char *targets; /* canonical JSON */
	char *risk;
	kind kind;
} pending;

struct sw_consent_store {
	pthread_mutex_t lock;
	sw_ctx *ctx;
	pending *items; /* in issue order, oldest first */
	size_t n;
	bool has_host;
	sw_host_ops host;
	void *host_userdata;
	int64_t (*now)(void *);
	void *now_userdata;
};

/* ---- clock --------------------------------------------------------------- */

/* Consent ids expire after an interval, so the default clock is the monotonic one. */
static int64_t default_clock(void *unused)
{
	(void)unused;
	return sw_monotonic_ms();
}

void sw__consent_store_set_clock(sw_consent_store *s, int64_t (*now_ms)(void *userdata), void *userdata)
{
	pthread_mutex_lock(&s->lock);
	s->now = now_ms ? now_ms : default_clock;
	s->now_userdata = userdata;
	pthread_mutex_unlock(&s->lock);
}

/* ---- store --------------------------------------------------------------- */

/* Logs @msg with @fields and releases them (sw__log does not take ownership). */
static void log_take(sw_ctx *ctx, sw_log_level level, json_t *fields, const char *msg)
{
	sw__log(ctx, level, fields, "%s", msg);
	json_decref(fields);
}

static void log_preapproval(sw_ctx *ctx)
{
	bool honoured[64];
	json_t *rep = sw__consent_preapproval_read(honoured);
	if (!rep)
		return;
	json_t *unknown = json_object_get(rep, "unknown");
	json_t *blocked = json_object_get(rep, "blocked");
	json_t *ok = json_object_get(rep, "honoured");
	if (json_array_size(unknown))
		log_take(ctx, SW_LOG_WARN, json_pack("{s:O}", "unknown", unknown),
		         "SWIPIUM_CONSENT_PREAPPROVE: ignoring unknown action name(s); use exact consent action names");
	if (json_array_size(blocked))
		log_take(ctx, SW_LOG_WARN, json_pack("{s:O}", "blocked", blocked),
		         "SWIPIUM_CONSENT_PREAPPROVE: ignoring action name(s) that cannot be pre-approved here");
	if (json_array_size(ok))
		log_take(ctx, SW_LOG_INFO, json_pack("{s:O}", "actions", ok),
		         "SWIPIUM_CONSENT_PREAPPROVE: operator pre-approves these actions without a prompt");
	json_decref(rep);
}

SW_API int sw_consent_store_new(sw_ctx *ctx, sw_consent_store **out, sw_error **err)
{
	if (!out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_consent_store_new: out is NULL");
	sw_consent_store *s = calloc(1, sizeof(*s));
	if (!s)
		return sw__error_nomem(err);
	s->items = calloc(SW_CONSENT_MAX_PENDING, sizeof(pending));
	if (!s->items || pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s->items);
		free(s);
		return sw__error_nomem(err);
	}
	s->ctx = ctx;
	s->now = default_clock;
	log_preapproval(ctx);
	*out = s;
	return SW_OK;
}

static void pending_clear(pending *p)
{
	free(p->session);
	free(p->action);
	free(p->targets);
	free(p->risk);
	memset(p, 0, sizeof(*p));
}

/* Removes item @i keeping the issue order. */
static void remove_at(sw_consent_store *s, size_t i)
{
	pending_clear(&s->items[i]);
	memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof(pending));
	s->n--;
	memset(&s->items[s->n], 0, sizeof(pending));
}

SW_API void sw_consent_store_free(sw_consent_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		pending_clear(&s->items[i]);
	free(s->items);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

SW_API int sw_consent_store_set_host(sw_consent_store *s, const sw_host_ops *ops, void *userdata, sw_error **err)
{
	if (!s)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_consent_store_set_host: store is NULL");
	if (ops && (ops->version < 1 || ops->version > SW_HOST_OPS_VERSION))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Set version to SW_HOST_OPS_VERSION.",
		                     "sw_host_ops version %u is not supported.", ops->version);
	pthread_mutex_lock(&s->lock);
	s->has_host = ops && ops->ask_consent;
	if (ops)
		s->host = *ops;
	s->host_userdata = userdata;
	pthread_mutex_unlock(&s->lock);
	return SW_OK;
}

/* Drops expired consents. Lock held. */
static void prune_locked(sw_consent_store *s, int64_t now)
{
	for (size_t i = 0; i < s->n;) {
		if (now - s->items[i].issued_ms >= SW_CONSENT_TTL_MS)
			remove_at(s, i);
		else
			i++;
	}
}

SW_API size_t sw_consent_store_pending(sw_consent_store *s)
{
	if (!s)
		return 0;
	pthread_mutex_lock(&s->lock);
	prune_locked(s, s->now(s->now_userdata));
	size_t n = s->n;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* Mints a pending consent. Lock held. Returns its index or -1 on failure. */
static int mint_locked(sw_consent_store *s, const char *session, const char *action, const char *targets,
                       const char *risk, kind k, char id_out[2 * ID_BYTES + 1])
{
	int64_t now = s->now(s->now_userdata);
	prune_locked(s, now);
	if (s->n == SW_CONSENT_MAX_PENDING)
		remove_at(s, 0); /* the oldest goes */
	pending p = {.issued_ms = now, .kind = k};
	if (!sw__random_hex(p.id, ID_BYTES))
		return -1;
	p.session = session ? sw__strdup(session) : NULL;
	p.action = sw__strdup(action);
	p.targets = sw__strdup(targets);
	p.risk = sw__strdup(risk);
	if ((session && !p.session) || !p.action || !p.targets || !p.risk) {
		pending_clear(&p);
		return -1;
	}
	memcpy(id_out, p.id, sizeof(p.id));
	s->items[s->n] = p;
	return (int)s->n++;
}

static ssize_t find_locked(sw_consent_store *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->items[i].id, id) == 0)
			return (ssize_t)i;
	return -1;
}

/* ---- the gate ------------------------------------------------------------ */

typedef struct gate_req {
	json_t *root;
	const char *session, *tool, *action, *risk, *explain, *target_text;
	char *targets; /* canonical */
	char *payload_hash;
	json_t *target; /* for the ledger: the request's target, else its targets object */
	const json_t *exact_command, *affects;
	json_t *built_command; /* the steps built from "commands" (owned) */
	const char *consent_id;
	bool approve, approve_given, can_elicit, include_session, show_every_step;
	const json_t *answer;
	const sw_consent_action *def;
} gate_req;

static void gate_req_free(gate_req *g)
{
	json_decref(g->root);
	free(g->targets);
	free(g->payload_hash);
	json_decref(g->target);
	json_decref(g->built_command);
}

static int parse_request(const char *request_json, gate_req *g, sw_error **err)
{
	json_error_t jerr;
	memset(g, 0, sizeof(*g));
	g->root = json_loads(request_json, 0, &jerr);
	if (!json_is_object(g->root))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "The consent request is not a JSON object (%s).", jerr.text);
	json_t *r = g->root;
	json_t *sid = json_object_get(r, "sessionId");
	if (sid && !json_is_null(sid) && !json_is_string(sid))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "The consent request's sessionId is not a string.");
	g->session = json_string_value(sid);
	g->tool = json_string_value(json_object_get(r, "tool"));
	g->action = json_string_value(json_object_get(r, "action"));
	g->def = sw__consent_action_find(g->action);
	if (!g->tool || !*g->tool)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "The consent request needs a \"tool\" name.");
	if (!g->def)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Use one of the consent action names (docs/consent.md).",
		                     "Unknown consent action \"%s\".", g->action ? g->action : "(missing)");
	g->risk = json_string_value(json_object_get(r, "risk"));
	if (json_object_get(r, "risk") && !sw__consent_risk_valid(g->risk))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "The consent risk must be low, medium or high.");
	if (!g->risk)
		g->risk = g->def->risk;
	g->explain = json_string_value(json_object_get(r, "explain"));
	if (!g->explain)
		g->explain = "";
	g->exact_command = json_object_get(r, "exactCommand");
	if (g->exact_command && !json_is_string(g->exact_command) && !json_is_array(g->exact_command))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "The consent exactCommand must be a string or an array of strings.");
	json_t *commands = json_object_get(r, "commands");
	if (commands) {
		/* argv lists: the gate quotes them itself, so what the prompt shows is what runs */
		if (!json_is_array(commands) || json_array_size(commands) == 0)
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "The consent commands must be a non-empty array of {label, argv, origin}.");
		sw_buf lines = SW_BUF_INIT;
		size_t i;
		json_t *c;
		json_array_foreach(commands, i, c)
		{
			char *step = sw__consent_command_step(c);
			if (!step) {
				sw__buf_free(&lines);
				return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
				                     "Consent command %zu has no argv array of strings.", i + 1);
			}
			if (i)
				sw__buf_putc(&lines, '\n');
			sw__buf_puts(&lines, step);
			free(step);
		}
		/* one line per command (a step never holds a line break: put_arg spells them out) */
		g->built_command = lines.failed ? NULL : json_stringn(lines.data, lines.len);
		sw__buf_free(&lines);
		if (!g->built_command)
			return sw__error_nomem(err);
		g->exact_command = g->built_command;
	}
	g->affects = json_object_get(r, "affects");
	json_t *targets = json_object_get(r, "targets");
	if (!targets)
		targets = json_object_get(r, "affects");
	g->targets = sw__json_canonical(targets);
	if (!g->targets)
		return sw__error_nomem(err);
	char hex[65];
	sw_sha256_hex(g->targets, strlen(g->targets), hex);
	g->payload_hash = sw__strdup(hex);
	g->target_text = json_string_value(json_object_get(r, "target"));
	json_t *target = json_object_get(r, "target");
	if (target)
		g->target = json_deep_copy(target);
	else if (json_is_object(targets))
		g->target = json_deep_copy(targets);
	else if (targets && !json_is_null(targets))
		g->target = json_pack("{s:O}", "targets", targets);
	else
		g->target = json_object();
	if (!g->payload_hash || !g->target)
		return sw__error_nomem(err);
	json_t *cid = json_object_get(r, "consentId");
	if (cid && !json_is_null(cid) && !json_is_string(cid))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "The consentId is not a string.");
	g->consent_id = json_string_value(cid);
	json_t *ap = json_object_get(r, "approve");
	g->approve_given = ap && json_is_boolean(ap);
	g->approve = json_is_true(ap);
	g->can_elicit = json_is_true(json_object_get(r, "canElicit"));
	g->include_session = json_is_true(json_object_get(r, "includeSessionId"));
	g->show_every_step = json_is_true(json_object_get(r, "showEveryStep"));
	g->answer = json_object_get(r, "elicitationAnswer");
	if (g->answer && !json_is_object(g->answer))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "The elicitationAnswer is not an object.");
	return SW_OK;
}

static json_t *row_for(const gate_req *g, const char *consent_id, bool approved, const char *mechanism,
                       const char *status, const char *detail)
{
	return sw__consent_ledger_row(g->tool, g->action, g->risk, g->target, true, consent_id, approved,
	                              g->payload_hash, mechanism, status, detail);
}

static int finish(json_t *res, char **result_json, sw_error **err)
{
	char *s = res ? sw__json_compact(res) : NULL;
	json_decref(res);
	if (!s)
		return sw__error_nomem(err);
	*result_json = s;
	return SW_OK;
}

static int approved(const gate_req *g, const char *id, const char *mechanism, char **result_json, sw_error **err)
{
	json_t *row = row_for(g, id, true, mechanism, "approved", NULL);
	if (!row)
		return sw__error_nomem(err);
	json_t *res = json_pack("{s:b, s:s, s:s, s:s, s:s, s:o}", "approved", 1, "mechanism", mechanism, "consentId",
	                        id, "action", g->action, "risk", g->risk, "ledgerRow", row);
	return finish(res, result_json, err);
}

typedef struct refusal {
	const char *code; /* CONSENT_DECLINED | CONSENT_CANCELLED | CONSENT_REFUSED */
	const char *mechanism;
	const char *reason;  /* nullable */
	const char *failure; /* elicitationFailure, nullable */
	int64_t answered_ms; /* -1: no prompt */
	const char *id;      /* nullable */
	const char *hint;    /* nullable: replaces the default hint */
} refusal;

static int refuse(const gate_req *g, const refusal *f, sw_error **err)
{
	bool declined = strcmp(f->code, "CONSENT_DECLINED") == 0;
	bool cancelled = strcmp(f->code, "CONSENT_CANCELLED") == 0;
	bool automatic = f->answered_ms >= 0 && f->answered_ms < SW_CONSENT_AUTOMATIC_MS && !f->failure;
	char *detail = f->failure  ? sw__asprintf("transport/abort: %s", f->failure)
	               : f->reason ? sw__strdup(f->reason)
	                           : NULL;
	json_t *row = row_for(g, f->id, false, f->mechanism, "refused", detail);
	free(detail);
	json_t *d = json_pack("{s:s, s:b, s:b}", "action", g->action, "retrySafe", cancelled, "changedState", 0);
	if (!row || !d) {
		json_decref(row);
		json_decref(d);
		return sw__error_nomem(err);
	}
	if (f->answered_ms >= 0) {
		json_object_set_new(d, "answeredInMs", json_integer(f->answered_ms));
		json_object_set_new(d, "likelyAutomatic", json_boolean(automatic));
	}
	if (f->failure)
		json_object_set_new(d, "elicitationFailure", json_string(f->failure));
	if (f->reason)
		json_object_set_new(d, "reason", json_string(f->reason));
	json_object_set_new(d, "ledgerRow", row);

	char *hint = NULL;
	if (f->hint)
		hint = sw__strdup(f->hint);
	else if (automatic)
		hint =
		    sw__asprintf("The prompt was answered in %lld ms, which looks automatic (headless clients answer "
		                 "every prompt themselves). Do not retry in a loop: ask the user, or have the operator "
		                 "add \"%s\" to SWIPIUM_CONSENT_PREAPPROVE in the server's environment.",
		                 (long long)f->answered_ms, g->action);
	else if (declined)
		hint = sw__strdup("Do not retry without asking the user.");
	else if (cancelled)
		hint = sw__strdup("Re-call the tool to show a fresh prompt when the user is ready.");
	else if (f->reason)
		hint = sw__strdup("Do not retry without asking the user.");
	else
		hint =
		    sw__strdup("Use a client that supports MCP form elicitation, or have the operator pre-approve the "
		               "action with SWIPIUM_CONSENT_PREAPPROVE in the server's environment.");
	int rc;
	if (declined)
		rc = sw__error_set(err, SW_EDENIED, f->code, hint, "The user declined consent for \"%s\"; nothing ran.",
		                   g->action);
	else if (cancelled)
		rc = sw__error_set(err, SW_EDENIED, f->code, hint,
		                   "The consent prompt for \"%s\" was cancelled%s%s; nothing ran.", g->action,
		                   f->failure || f->reason ? ": " : "",
		                   f->failure  ? f->failure
		                   : f->reason ? f->reason
		                               : "");
	else if (f->reason)
		rc = sw__error_set(err, SW_EDENIED, f->code, hint, "Consent for \"%s\" was refused: %s; nothing ran.",
		                   g->action, f->reason);
	else
		rc = sw__error_set(
		    err, SW_EDENIED, f->code, hint,
		    "Consent for \"%s\" was refused: SWIPIUM_REQUIRE_ELICITATION=1 is set and this client "
		    "cannot show a consent prompt; nothing ran.",
		    g->action);
	free(hint);
	if (err && *err)
		sw__error_take_details(*err, d);
	else
		json_decref(d);
	return rc;
}

/* Turns a prompt answer into the gate's outcome. @answer may be NULL when @failure is set. */
static int conclude_answer(const gate_req *g, const char *id, const json_t *answer, const char *failure,
                           int64_t measured_ms, char **result_json, sw_error **err)
{
	refusal f = {.code = "CONSENT_CANCELLED",
	             .mechanism = "elicitation",
	             .failure = failure,
	             .answered_ms = measured_ms,
	             .id = id};
	if (!failure) {
		json_t *ms = json_object_get(answer, "answeredInMs");
		if (json_is_number(ms) && json_number_value(ms) >= 0)
			f.answered_ms = (int64_t)json_number_value(ms);
		const char *act = json_string_value(json_object_get(answer, "action"));
		const char *fail = json_string_value(json_object_get(answer, "failure"));
		if (fail) {
			f.failure = fail;
		} else if (act && strcmp(act, "accept") == 0) {
			if (json_is_true(json_object_get(json_object_get(answer, "content"), "approve")))
				return approved(g, id, "elicitation", result_json, err);
			f.code = "CONSENT_DECLINED";
		} else if (act && strcmp(act, "decline") == 0) {
			f.code = "CONSENT_DECLINED";
		} else if (!act || strcmp(act, "cancel") != 0) {
			f.failure = "transport: the prompt answer was not accept, decline or cancel";
		}
	}
	return refuse(g, &f, err);
}

static const char *host_failure(int rc)
{
	switch (rc) {
	case SW_ETIMEOUT: return "timeout: no answer within 10 minutes";
	case SW_ECANCELLED: return "abort: the call was cancelled while the prompt was open";
	default: return "transport: the client could not show the prompt";
	}
}

/* Asks through the host. Called without the lock; the pending consent is burned afterwards. */
static int ask_host(sw_consent_store *s, const gate_req *g, const char *id, char **result_json, sw_error **err)
{
	pthread_mutex_lock(&s->lock);
	sw_host_ops host = s->host;
	void *ud = s->host_userdata;
	pthread_mutex_unlock(&s->lock);

	json_t *prompt = sw__consent_prompt_build(g->action, g->risk, g->explain, g->exact_command);
	json_t *req =
	    prompt ? json_pack("{s:s, s:s, s:s, s:O, s:O, s:i}", "consentId", id, "action", g->action, "risk", g->risk,
	                       "message", json_object_get(prompt, "message"), "requestedSchema",
	                       json_object_get(prompt, "requestedSchema"), "timeoutMs", SW_CONSENT_PROMPT_TIMEOUT_MS)
	           : NULL;
	char *req_text = req ? sw__json_compact(req) : NULL;
	json_decref(prompt);
	json_decref(req);
	if (!req_text)
		return sw__error_nomem(err);
	char *answer_text = NULL;
	int64_t t0 = sw_monotonic_ms();
	int hrc = host.ask_consent(ud, req_text, &answer_text);
	int64_t took = sw_monotonic_ms() - t0;
	free(req_text);

	/* single use: whatever the answer, this consent is spent */
	pthread_mutex_lock(&s->lock);
	ssize_t at = find_locked(s, id);
	if (at >= 0)
		remove_at(s, (size_t)at);
	pthread_mutex_unlock(&s->lock);

	json_t *answer = NULL;
	const char *failure = NULL;
	if (hrc != SW_OK) {
		failure = host_failure(hrc);
	} else {
		json_error_t jerr;
		answer = answer_text ? json_loads(answer_text, 0, &jerr) : NULL;
		if (!json_is_object(answer))
			failure = "transport: the prompt answer was not a JSON object";
	}
	free(answer_text);
	int rc = conclude_answer(g, id, answer, failure, took, result_json, err);
	json_decref(answer);
	return rc;
}

/*
 * Checks a presented consentId against the request. Lock held. On a binding
 * mismatch nothing is burned; on a pass the consent is removed (burned).
 * Returns NULL when it passed, else the reason.
 */
static const char *redeem_locked(sw_consent_store *s, const gate_req *g, kind expected, char **reason_buf)
{
	int64_t now = s->now(s->now_userdata);
	ssize_t i = find_locked(s, g->consent_id);
	if (i < 0) {
		prune_locked(s, now);
		return "unknown or already-used consentId";
	}
	pending *p = &s->items[i];
	if (now - p->issued_ms >= SW_CONSENT_TTL_MS) {
		remove_at(s, (size_t)i);
		prune_locked(s, now);
		return "consent expired; re-call without consentId for a fresh challenge";
	}
	if (p->session && (!g->session || strcmp(p->session, g->session) != 0))
		return "consent was issued for a different session";
	if (strcmp(p->action, g->action) != 0) {
		*reason_buf = sw__asprintf("consent is for \"%s\", not \"%s\"", p->action, g->action);
		return *reason_buf ? *reason_buf : "consent is for a different action";
	}
	if (strcmp(p->targets, g->targets) != 0)
		return "consent does not match the affected target";
	if (p->kind != expected)
		return expected == KIND_ENVELOPE ? "consent is awaiting the out-of-band user prompt"
		                                 : "consent is not waiting for a prompt answer";
	remove_at(s, (size_t)i);
	prune_locked(s, now);
	return NULL;
}

/* Pre-approval covers this request (test_this_plan also needs each code-running step honoured). */
static bool preapproved(const gate_req *g, sw_ctx *ctx)
{
	bool honoured[64];
	json_t *rep = sw__consent_preapproval_read(honoured);
	if (!rep)
		return false;
	json_decref(rep);
	if (!honoured[sw__consent_action_index(g->def)])
		return false;
	if (strcmp(g->action, "test_this_plan") != 0)
		return true;
	/* step kinds from affects.steps[].kind and "• kind: cmd" / "kind:" lines of exactCommand */
	json_t *kinds = json_array();
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(g->affects, "steps"), i, st) if (json_is_string(json_object_get(st, "kind")))
	    json_array_append(kinds, json_object_get(st, "kind"));
	const json_t *cmd = g->exact_command;
	for (size_t k = 0; cmd && k < (json_is_array(cmd) ? json_array_size(cmd) : 1); k++) {
		const char *text =
		    json_is_array(cmd) ? json_string_value(json_array_get(cmd, k)) : json_string_value(cmd);
		for (const char *line = text; line && *line;) {
			const char *nl = strchr(line, '\n');
			const char *p = line;
			while (*p == ' ' || *p == '\t')
				p++;
			if (strncmp(p, "\xe2\x80\xa2", 3) == 0) /* • */
				p += 3;
			while (*p == ' ')
				p++;
			const char *w = p;
			while ((*p >= 'a' && *p <= 'z') || *p == '_')
				p++;
			if (p > w && *p == ':')
				json_array_append_new(kinds, json_stringn(w, (size_t)(p - w)));
			line = nl ? nl + 1 : NULL;
		}
	}
	bool ok = true;
	json_array_foreach(kinds, i, st)
	{
		const char *k = json_string_value(st);
		const char *as = strcmp(k, "build") == 0   ? "build_from_source"
		                 : strcmp(k, "metro") == 0 ? "start_metro"
		                 : strcmp(k, "seed") == 0  ? "seed_state"
		                                           : k;
		const sw_consent_action *a = sw__consent_action_find(as);
		if (a && a->runs_code && !honoured[sw__consent_action_index(a)]) {
			log_take(ctx, SW_LOG_WARN, json_pack("{s:s, s:s}", "action", g->action, "step", k),
			         "consent pre-approval of test_this_plan does not cover a step that runs code; asking "
			         "instead");
			ok = false;
		}
	}
	json_decref(kinds);
	return ok;
}

static void log_policy_approval(sw_ctx *ctx, const gate_req *g, const char *id)
{
	json_t *f = json_pack("{s:s, s:s, s:s}", "action", g->action, "consentId", id, "risk", g->risk);
	if (!f)
		return;
	if (g->exact_command) {
		char *cmd = json_is_string(g->exact_command) ? sw__strdup(json_string_value(g->exact_command))
		                                             : sw__json_compact(g->exact_command);
		size_t len = cmd ? strlen(cmd) : 0;
		if (cmd && sw__utf16_len(cmd, len) > 200) {
			char hex[65];
			sw_sha256_hex(cmd, len, hex);
			hex[16] = '\0';
			json_object_set_new(f, "exactCommandSha256", json_string(hex));
			json_object_set_new(f, "exactCommand",
			                    json_stringn(cmd, sw__utf16_prefix_bytes(cmd, len, 200)));
			json_object_set_new(f, "exactCommandLength", json_integer((json_int_t)sw__utf16_len(cmd, len)));
		} else if (cmd) {
			json_object_set_new(f, "exactCommand", json_string(cmd));
		}
		free(cmd);
	} else {
		char *aff = g->affects ? sw__json_compact(g->affects) : NULL;
		if (aff)
			json_object_set_new(f, "affects",
			                    json_stringn(aff, sw__utf16_prefix_bytes(aff, strlen(aff), 200)));
		free(aff);
	}
	sw__log(ctx, SW_LOG_WARN, f,
	        "consent approved by operator policy (SWIPIUM_CONSENT_PREAPPROVE), no prompt shown");
	json_decref(f);
}

static int envelope(sw_consent_store *s, const gate_req *g, const char *note, const char *previous, char **result_json,
                    sw_error **err)
{
	char id[2 * ID_BYTES + 1];
	pthread_mutex_lock(&s->lock);
	int at = mint_locked(s, g->session, g->action, g->targets, g->risk, KIND_ENVELOPE, id);
	pthread_mutex_unlock(&s->lock);
	if (at < 0)
		return sw__error_nomem(err);
	char *next = sw__asprintf("To approve, re-call this tool with consentId=\"%s\" and approve=true", id);
	json_t *env = json_pack("{s:b, s:s, s:s, s:s}", "requiresConsent", 1, "consentId", id, "action", g->action,
	                        "risk", g->risk);
	if (!next || !env) {
		free(next);
		json_decref(env);
		return sw__error_nomem(err);
	}
	if (g->exact_command)
		json_object_set(env, "exactCommand", (json_t *)g->exact_command);
	if (g->affects)
		json_object_set(env, "affects", (json_t *)g->affects);
	json_object_set_new(env, "explain", json_string(g->explain));
	json_object_set_new(env, "next", json_pack("[s]", next));
	if (g->include_session && g->session)
		json_object_set_new(env, "sessionId", json_string(g->session));
	if (note)
		json_object_set_new(env, "consentNote", json_string(note));
	if (previous)
		json_object_set_new(env, "previousConsentId", json_string(previous));

	sw_buf text = SW_BUF_INIT;
	sw__buf_printf(&text, "\xf0\x9f\x94\x90 Consent required (%s): %s\n", g->risk, g->explain);
	if (g->exact_command) {
		sw__buf_puts(&text, "Will run: ");
		if (json_is_string(g->exact_command)) {
			sw__buf_puts(&text, json_string_value(g->exact_command));
		} else {
			size_t i;
			json_t *item;
			json_array_foreach(g->exact_command, i, item)
			{
				if (i)
					sw__buf_putc(&text, '\n');
				if (json_is_string(item))
					sw__buf_puts(&text, json_string_value(item));
			}
		}
		sw__buf_putc(&text, '\n');
	}
	sw__buf_printf(&text, "%s.\n\n```json\n", next);
	char *pretty = sw__json_pretty(env);
	bool pretty_ok = pretty != NULL;
	sw__buf_puts(&text, pretty ? pretty : "");
	sw__buf_puts(&text, "\n```");
	free(pretty);
	free(next);
	json_t *row = row_for(g, id, false, "client-assertion", "requested", note);
	json_t *res = NULL;
	if (!text.failed && row && pretty_ok)
		res = json_pack("{s:b, s:o, s:s%, s:o}", "requiresConsent", 1, "envelope", env, "text", text.data,
		                text.len, "ledgerRow", row);
	else {
		json_decref(env);
		json_decref(row);
	}
	sw__buf_free(&text);
	return finish(res, result_json, err);
}

SW_API int sw_consent_gate(sw_consent_store *s, const char *request_json, char **result_json, sw_error **err)
{
	if (!s || !request_json || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_consent_gate: NULL argument");
	gate_req g;
	int rc = parse_request(request_json, &g, err);
	if (rc < 0)
		goto out;
	const char *note = NULL, *previous = NULL;
	char *reason_buf = NULL;
	bool require = sw__consent_require_elicitation();

	if (g.consent_id && g.answer) {
		/* the answer to a deferred prompt */
		pthread_mutex_lock(&s->lock);
		const char *why = redeem_locked(s, &g, KIND_PROMPT, &reason_buf);
		pthread_mutex_unlock(&s->lock);
		if (why) {
			refusal f = {
			    .code = "CONSENT_CANCELLED", .mechanism = "elicitation", .reason = why, .answered_ms = -1};
			rc = refuse(&g, &f, err);
		} else {
			rc = conclude_answer(&g, g.consent_id, g.answer, NULL, -1, result_json, err);
		}
		free(reason_buf);
		goto out;
	}
	if (g.consent_id) {
		pthread_mutex_lock(&s->lock);
		const char *why = redeem_locked(s, &g, KIND_ENVELOPE, &reason_buf);
		pthread_mutex_unlock(&s->lock);
		if (!why) {
			if (!g.approve) {
				refusal f = {.code = "CONSENT_DECLINED",
				             .mechanism = "client-assertion",
				             .reason = "user did not approve",
				             .answered_ms = -1,
				             .id = g.consent_id};
				rc = refuse(&g, &f, err);
			} else if (require && !g.can_elicit) {
				refusal f = {.code = "CONSENT_REFUSED",
				             .mechanism = "policy",
				             .answered_ms = -1,
				             .id = g.consent_id};
				rc = refuse(&g, &f, err);
			} else {
				rc = approved(&g, g.consent_id, "client-assertion", result_json, err);
			}
			free(reason_buf);
			goto out;
		}
		if (strcmp(why, "consent is awaiting the out-of-band user prompt") == 0) {
			/* an open prompt cannot be answered by approve:true */
			refusal f = {.code = "CONSENT_REFUSED",
			             .mechanism = "client-assertion",
			             .reason = why,
			             .answered_ms = -1,
			             .id = g.consent_id};
			rc = refuse(&g, &f, err);
			free(reason_buf);
			goto out;
		}
		/* refused, never silently replaced: the fresh challenge says why */
		note = why;
		previous = g.consent_id;
	}

	bool pre = preapproved(&g, s->ctx);
	/* never ask about a command the prompt cannot show whole (operator pre-approval shows nothing) */
	char *unshown = pre ? NULL : sw__consent_unshowable(g.action, g.risk, g.explain, g.exact_command,
	                                                           g.built_command || g.show_every_step);
	if (unshown) {
		refusal f = {.code = "UNSAFE_ACTION_REFUSED",
		             .mechanism = "policy",
		             .reason = unshown,
		             .answered_ms = -1,
		             .hint = "Shorten the command (for a repository's .swipium/config.json: move its arguments "
		                     "into a script in the project) so that its consent prompt can show every argument, "
		                     "then call again."};
		rc = refuse(&g, &f, err);
		free(unshown);
	} else if (pre) {
		char id[2 * ID_BYTES + 1];
		if (!sw__random_hex(id, ID_BYTES)) {
			rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "No randomness available for a consent id.");
		} else {
			log_policy_approval(s->ctx, &g, id);
			rc = approved(&g, id, "operator-policy", result_json, err);
		}
	} else if (g.can_elicit) {
		char id[2 * ID_BYTES + 1];
		pthread_mutex_lock(&s->lock);
		bool has_host = s->has_host;
		int at = mint_locked(s, g.session, g.action, g.targets, g.risk, KIND_PROMPT, id);
		pthread_mutex_unlock(&s->lock);
		if (at < 0) {
			rc = sw__error_nomem(err);
		} else if (has_host) {
			rc = ask_host(s, &g, id, result_json, err);
		} else {
			json_t *prompt = sw__consent_prompt_build(g.action, g.risk, g.explain, g.exact_command);
			json_t *row = row_for(&g, id, false, "elicitation", "requested", note);
			json_t *res = prompt && row
			                  ? json_pack("{s:b, s:s, s:o, s:o}", "elicitationRequired", 1, "consentId", id,
			                              "elicitation", prompt, "ledgerRow", row)
			                  : NULL;
			if (!res) {
				json_decref(prompt);
				json_decref(row);
			}
			rc = finish(res, result_json, err);
		}
	} else if (require) {
		refusal f = {.code = "CONSENT_REFUSED", .mechanism = "policy", .answered_ms = -1};
		rc = refuse(&g, &f, err);
	} else {
		rc = envelope(s, &g, note, previous, result_json, err);
	}
	free(reason_buf);
out:
	gate_req_free(&g);
	return rc;
}
