/* tool.h: the tool framework of swipium-mcp: how a tool is declared, what a handler may call, how it answers. */
#ifndef MCP_TOOL_H
#define MCP_TOOL_H

/*
 * Adding a tool (the full how-to is in docs/mcp-server.md, "Adding a tool"):
 *   1. Write swipium-mcp/tools/<family>.c with a handler and a
 *      `const struct mcp_tool mcp_tool_<name> = {...}` definition.
 *   2. Add `extern const struct mcp_tool mcp_tool_<name>;` and one `&mcp_tool_<name>,` line
 *      to the registry in swipium-mcp/tools.c, and the file to swipium-mcp/meson.build.
 * A tool is listed in tools/list only when it is in that registry, so register it only
 * once it works end to end.
 *
 * A handler runs on the server's worker thread, one call at a time. It receives the
 * validated arguments (unknown arguments and schema violations never reach it), calls
 * the library, and answers exactly once with mcp_ok() or one of the mcp_fail*()
 * functions. It must not write to stdout or stderr; log through mcp_call_ctx().
 *
 * This header only grows: fields are appended to struct mcp_tool, functions are added.
 */

#include <stdbool.h>

#include <jansson.h>

#include <swipium/swipium.h>

/* Annotation sets (TOOLS.md §0.2). Every tool also carries openWorldHint:false. */
enum mcp_annot {
	MCP_ANNOT_RO = 0, /* readOnlyHint:true */
	MCP_ANNOT_W,      /* readOnly false, destructive false, idempotent false */
	MCP_ANNOT_I,      /* readOnly false, destructive false, idempotent true */
	MCP_ANNOT_D,      /* readOnly false, destructive true, idempotent false */
};

typedef struct mcp_call mcp_call;

/* A tool handler. @args is the validated argument object (never NULL, borrowed). */
typedef void (*mcp_tool_fn)(mcp_call *call, json_t *args);

struct mcp_tool {
	const char *name;        /* "qa_status" */
	const char *group;       /* README group: start, setup, build, device, drive, run, ... */
	const char *description; /* short; every tools/list byte counts (the 55-tool list must fit 45 KB) */
	/*
	 * The inputSchema as JSON text: {"type":"object","properties":{...},"required":[...]}.
	 * The framework adds "additionalProperties":false. Supported keywords (checked by
	 * the validator): type (string, or an array of types), enum, properties, required,
	 * items, minimum, maximum, minLength, additionalProperties (nested objects), description.
	 */
	const char *schema;
	enum mcp_annot annot;
	mcp_tool_fn handler;
	/* Response-mode fields this tool's summary already shows (left out of normal-mode JSON); NULL-terminated. */
	const char *const *rendered_above;
};

/* ---- context of a call ---------------------------------------------------- */

/* The library context. (transfer none) */
sw_ctx *mcp_call_ctx(mcp_call *call);
/* The session store, opened on first use; NULL (and the call already failed) when it cannot be opened. */
sw_store *mcp_call_store(mcp_call *call);
/* The name of the tool being called. (transfer none) */
const char *mcp_call_tool_name(const mcp_call *call);

/*
 * Looks up args.sessionId (or @session_id when non-NULL). On failure the call is
 * answered with INVALID_ARGUMENT (`Unknown sessionId "…"`) and -1 is returned; the
 * handler then just returns. The session's responseMode applies to this call's text.
 */
int mcp_call_session(mcp_call *call, const char *session_id, sw_session **out);

/* Non-zero once the client cancelled this call (notifications/cancelled) or the server is shutting down. */
int mcp_call_cancelled(mcp_call *call);
/* An sw_abort_fn for library long-polls: pass mcp_call_abort and the call as userdata. */
int mcp_call_abort(void *call);
/* Sleeps up to @ms, waking on cancellation. Returns 0, or -1 when cancelled. */
int mcp_call_sleep(mcp_call *call, long ms);

/*
 * Resolves the project root by the project-root rule (TOOLS.md §7.3) with the client's
 * MCP roots on 2025-era connections. @project_root is the explicit argument (nullable).
 * On failure the call is answered (INVALID_ARGUMENT / PROJECT_ROOT_UNRESOLVED) and -1
 * is returned. @root and @source: (transfer full) free with sw_free().
 */
int mcp_call_project_root(mcp_call *call, const char *project_root, char **root, char **source);

/* ---- consent --------------------------------------------------------------- */

/*
 * What a consent-gated tool asks for. The handler fills it and calls mcp_call_consent().
 * Every string is borrowed for the duration of the call.
 */
struct mcp_consent_request {
	const char *action;        /* one of the 23 consent actions, e.g. "install_app" */
	const char *risk;          /* low | medium | high */
	const char *explain;       /* one or two sentences for the human */
	const char *exact_command; /* nullable: the command that will run, one step per line */
	json_t *affects;           /* nullable (borrowed): the targets, compared JSON-equal on re-call */
	sw_session *session;       /* nullable: the session the consent is bound to */
	json_t *commands;          /* nullable (borrowed): [{label, argv, cwd?, origin}] argv lists the library quotes
	                              itself and refuses (UNSAFE_ACTION_REFUSED) when a prompt cannot show them whole;
	                              use it, not exact_command, for any command built from repository data */
};

/* Outcome of mcp_call_consent(). */
enum mcp_consent_outcome {
	MCP_CONSENT_APPROVED = 0, /* go ahead: the ledger row says how it was approved */
	MCP_CONSENT_ANSWERED =
	    1, /* the call was answered (envelope, InputRequiredResult or a CONSENT_* error): return */
};

/*
 * Asks for consent the way this connection allows, in the spec's order: operator
 * pre-approval, form elicitation (elicitation/create on 2025-era connections,
 * InputRequiredResult on 2026-07-28), else the portable requiresConsent envelope
 * (re-call with consentId + approve:true, read from @args). Returns
 * MCP_CONSENT_APPROVED or MCP_CONSENT_ANSWERED.
 */
enum mcp_consent_outcome mcp_call_consent(mcp_call *call, json_t *args, const struct mcp_consent_request *req);

/*
 * A consent gate that stands in for sw_consent_gate(): same contract (@gate_json in, @result_json
 * out freed with sw_free, SW_EDENIED refusals in @err). It may append the ledger rows itself and drop
 * them from what it returns (sw_flow_consent() does).
 */
typedef int (*mcp_consent_gate_fn)(sw_consent_store *store, const char *gate_json, char **result_json, sw_error **err,
                                   void *ud);

/*
 * mcp_call_consent() with the gate call made by @gate (nullable: sw_consent_gate()), for a library
 * piece that builds its own request, such as a flow's flow_mutation_run consent. The members this
 * server decides (tool, canElicit, consentId, approve, elicitationAnswer) reach @gate in @gate_json.
 */
enum mcp_consent_outcome mcp_call_consent_via(mcp_call *call, json_t *args, const struct mcp_consent_request *req,
                                              mcp_consent_gate_fn gate, void *gate_ud);

/*
 * mcp_call_consent() for a request whose @req->affects and @req->commands this function takes (both
 * nullable): it releases them once the gate has answered, whatever the outcome.
 */
enum mcp_consent_outcome mcp_call_consent_take(mcp_call *call, json_t *args, const struct mcp_consent_request *req);

/*
 * Remembers which session a consent asked without sessionId belongs to, so that the re-call with only
 * consentId finds it. A tool keeps one table (static, zero-initialised, the worker thread its only user);
 * @cap (at most MCP_CONSENT_SESSIONS_MAX) is how many consents it remembers before the oldest is forgotten.
 */
#define MCP_CONSENT_SESSIONS_MAX 64
struct mcp_consent_sessions {
	struct {
		char consent_id[96];
		char session_id[24];
	} slot[MCP_CONSENT_SESSIONS_MAX];
	size_t next;
};
/* After mcp_call_consent() answered the call: records the consentId the answer asked for, bound to @s. */
void mcp_consent_sessions_put(struct mcp_consent_sessions *t, size_t cap, mcp_call *call, sw_session *s);
/* The session id recorded for @consent_id (nullable), or NULL. (transfer none: lives in @t) */
const char *mcp_consent_sessions_get(const struct mcp_consent_sessions *t, size_t cap, const char *consent_id);

/*
 * A plan's consent steps (`consent.steps` of an autopilot plan: kind, argv, origin, risk) as the request's
 * commands ({label, argv, origin}). (transfer full)
 */
json_t *mcp_plan_consent_commands(json_t *plan);
/* The same steps as the affects' `steps` ({kind, risk}). (transfer full) */
json_t *mcp_plan_consent_steps(json_t *plan);
/*
 * Adds an artifact choice (@art: path, appId, insideProjectRoot; nullable) to @affects as apk, appId,
 * insideProjectRoot and, for an APK from outside the project, its sha256; then @target_choice's selected
 * target (nullable) as target.
 */
void mcp_plan_affects_artifact(json_t *affects, json_t *art, json_t *target_choice);

/*
 * A copy of @args for the library: without sessionId, consentId and approve (the server's, never a library
 * option) and without the NULL-terminated names of @drop (nullable). (transfer full)
 */
json_t *mcp_args_for_library(const json_t *args, const char *const *drop);

/*
 * The session and project root of a call. The session: args.sessionId, else, for a plan-then-run tool's run (@run:
 * qa_test_this, qa_test_feature), the one @pending (nullable) recorded for args.consentId, else none (*s NULL). The root:
 * args.projectRoot or, without a session, the project-root rule (@source says where it came from), else the
 * session's own (@source NULL). @root and @source: (transfer full, free()). On failure the call is answered
 * (unknown sessionId, unresolved root) and -1 is returned.
 */
int mcp_call_session_root(mcp_call *call, json_t *args, bool run, const struct mcp_consent_sessions *pending,
                          size_t cap, sw_session **s, char **root, char **source);

/* A library planner: sw_test_this_plan(), sw_test_feature_plan(). */
typedef int (*mcp_plan_fn)(sw_ctx *ctx, sw_session *s, const char *root, const char *options_json, char **plan_json,
                           sw_error **err);

/*
 * The plan of @options_json on *s (nullable). A run (@run) without a session is planned once without one (bad
 * options fail before anything is made), then the run's session is created on @root (@source) and bound to the
 * call, and planned again on it. Returns the plan (transfer full, sw_free()), or NULL when the call was answered
 * with the failure.
 */
char *mcp_call_plan(mcp_call *call, mcp_plan_fn plan, bool run, sw_session **s, const char *root, const char *source,
                    const char *options_json);

/*
 * Asks the test_this_plan consent of an autopilot plan (@plan_json; the request is the library's
 * sw_test_plan_consent(): its explain, risk, affects and every command argv whole) the way mcp_call_consent()
 * does, bound to @s. MCP_CONSENT_APPROVED when the plan asks none or it was given; MCP_CONSENT_ANSWERED when the
 * call was answered, after recording in @pending (nullable) that the consent asked belongs to @s.
 */
enum mcp_consent_outcome mcp_call_plan_consent(mcp_call *call, json_t *args, sw_session *s, const char *plan_json,
                                               struct mcp_consent_sessions *pending, size_t cap);

/* A library run's job: sw_test_this_running() / sw_test_this_start(), sw_test_feature_running() / ..._start(). */
typedef char *(*mcp_running_fn)(sw_session *s);
typedef int (*mcp_start_fn)(sw_ctx *ctx, sw_session *s, const char *plan_json, char **job_id, sw_error **err);

/*
 * Starts the job of @plan_json on @s, once: a job of the kind already running (@running) is the answer (nothing
 * started, mcp_ok_job() with @notes), then the plan's consent (mcp_call_plan_consent() with @pending), then
 * @start. Returns the new job's id (transfer full, sw_free(); the caller answers), or NULL when the call was
 * answered.
 */
char *mcp_call_plan_start(mcp_call *call, json_t *args, sw_session *s, const char *plan_json, mcp_running_fn running,
                          mcp_start_fn start, struct mcp_consent_sessions *pending, size_t cap, json_t *notes);

/*
 * Answers a call that started the job @job_id on @s, or (@already) found it running and started nothing:
 * {sessionId, jobId, state: "running", alreadyRunning?, notes?} and the qa_job_status next step, the summary
 * naming the tool. @notes (borrowed, nullable): the call's notes; the already-running line is appended to them.
 */
void mcp_ok_job(mcp_call *call, sw_session *s, const char *job_id, bool already, json_t *notes);

/* The names of the listed tools, registration order. (transfer full) */
json_t *mcp_listed_tools(void);

/* ---- answering ------------------------------------------------------------- */

/*
 * Success. @payload (stolen; NULL means {}) becomes structuredContent after `summary`
 * and `ok:true`; `next` entries added with mcp_next() come last (left out when the payload
 * has nextBestAction / nextAction / nextRecommendedAction / nextSteps).
 * @summary is the text headline (may hold several lines; structuredContent.summary keeps
 * the first line unless @keep_whole_summary was set with mcp_keep_whole_summary()).
 */
void mcp_ok(mcp_call *call, json_t *payload, const char *summary);
/* Adds a next-step hint ("qa_report {sessionId} to ..."); call before or after mcp_ok(). */
void mcp_next(mcp_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Keeps every summary line in structuredContent.summary. */
void mcp_keep_whole_summary(mcp_call *call);
/* Appends one more MCP content block (stolen), e.g. an image or an embedded resource. */
void mcp_add_content(mcp_call *call, json_t *block);

/*
 * Failure with a catalog code. @what is one sentence; @extra (stolen, nullable) holds
 * code-specific fields. retrySafe defaults to the catalog's value for the code.
 */
void mcp_fail(mcp_call *call, const char *failure_code, const char *what, json_t *extra);
/* Failure from a library error (failure code, message, hint, details). @err is borrowed. */
void mcp_fail_err(mcp_call *call, const sw_error *err);
/* Adds a nextSteps entry to the failure (call before or after mcp_fail*). */
void mcp_fail_step(mcp_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Overrides changedState (default false) and retrySafe (default from the catalog). */
void mcp_fail_flags(mcp_call *call, bool changed_state, bool retry_safe);
/* Sets the error's clientHint line. */
void mcp_fail_hint(mcp_call *call, const char *hint);

/*
 * Text that is always valid in a result: a JSON string of @s in which invalid UTF-8 became
 * U+FFFD (NULL is ""). Never NULL unless out of memory. (transfer full)
 */
json_t *mcp_json_text(const char *s);

/*
 * @s capped at @max characters (UTF-16 units) around the "…" marker, never splitting a
 * character, invalid UTF-8 as U+FFFD; NULL is "". For echoing a caller's or a device's text
 * inside a summary or a `what`. (transfer none: owned by the call, valid until it returns)
 */
const char *mcp_cap(mcp_call *call, const char *s, size_t max);

/* True when @name is listed by this build (suggest only listed tools in next / nextBestAction). */
bool mcp_tool_listed(const char *name);

/* The tools registry (swipium-mcp/tools.c): NULL-terminated, registration order. */
extern const struct mcp_tool *const mcp_tools[];

#endif
