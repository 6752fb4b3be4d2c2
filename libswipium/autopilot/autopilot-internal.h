/* autopilot-internal.h: what the autopilot's files share (explore, first run, risk); never installed. */
#ifndef SW_AUTOPILOT_INTERNAL_H
#define SW_AUTOPILOT_INTERNAL_H

#include <pthread.h>

#include "sw-internal.h"
#include <swipium/actions.h>
#include <swipium/explore.h>

#include "seed-internal.h" /* flows/: the fixtures a run sees (sw__fixtures_load) */

/* One control of a screen as the explorer reads it. */
typedef struct ap_control {
	unsigned ref;
	size_t order;
	int b[4];
	char *name;      /* what a person reads: own text or description, else the descendants' text (capped) */
	char *risk_text; /* every text of the control and its subtree (what the risk is read from) */
	char *res_id, *cls, *role;
	const char *risk;  /* safe | unknown | destructive */
	const char *klass; /* high-impact class or NULL */
	char *loc_strategy, *loc_value;
	int durable; /* 2 id, 1 text, 0 ref */
	double rank;
	bool edit, secure, foreign;
	char sig[24]; /* candidate signature "c:<hex>" */
} ap_control;

/* One screen: its controls ranked best first. */
typedef struct ap_screen {
	char sig[24]; /* "s:<hex>" */
	char *title;
	char *pkg;
	char *all_text; /* every text and description on screen, capped (classification) */
	ap_control *c;
	size_t n;
	size_t left_out; /* controls over the cap */
	size_t node_count;
	int height;
	bool login_wall, otp, permission_prompt;
} ap_screen;

/* Reads the drive's current snapshot (screen.c). */
int ap_screen_read(sw_drive *d, const char *app_id, ap_screen *v, sw_error **err);
void ap_screen_free(ap_screen *v);
/* A copy of @src that outlives its screen: its name and locator duplicated, the other texts still @src's (they
 * are not read after the screen is freed) (screen.c). ap_control_drop() frees what it duplicated. */
void ap_control_keep(ap_control *dst, const ap_control *src);
void ap_control_drop(ap_control *c);
/* The act target of a control: {id | text | ref: <locator value>} (screen.c). (transfer full) */
json_t *ap_control_target(const ap_control *c);
/* A fresh look at the screen, never the dump the last action settled on (screen.c). */
int ap_screen_fresh(sw_drive *d, const char *app_id, ap_screen *v, sw_error **err);
/* One qa_act through the drive (recorded in the session, health checked after it): @res its result (transfer
 * full) (screen.c). */
int ap_drive_act(sw_drive *d, json_t *args, json_t **res, sw_error **err);

/* Opens a drive of its own on the session's device, with the session's hooks attached (explore.c). */
int ap_drive_open(sw_ctx *ctx, sw_session *s, sw_drive **out, sw_error **err);
void ap_drive_close(sw_drive *d);

/* sw_explore_run() with @progress (nullable): the job whose progress the crawl sets after each action, so a
 * job that runs the crawl as one of its steps (qa_test_this) reports it (explore.c). */
int ap_explore_run(sw_ctx *ctx, sw_session *s, const char *args_json, sw_abort_fn cancel, void *cancel_ud,
                   const char *job_id, sw_job *progress, char **result_json, sw_error **err);

/* Redacts @text with the session's secrets (transfer full; a copy when nothing is registered). */
char *ap_redact(sw_session *s, const char *text);

/* Session fixtures / policy: "test", "staging", "production", or "unknown" (firstrun.c). */
const char *ap_environment(sw_session *s, const char *policy_path, bool *disposable, json_t *evidence);

/* ---- what the qa_test_this and qa_test_feature jobs share (common.c) ---- */

/* A job's own copy of what it runs: the context's home and the plan. */
struct ap_job {
	char *home;
	json_t *plan;
};
/* Frees an ap_job (NULL-safe); the sw_job_free_fn of ap_job_start_once(). */
void ap_job_free(void *ud);

/* Adds a session note {workflow, outcome, category?, reason?, failureCode?}; failures are ignored. */
void ap_add_note(sw_session *s, const char *workflow, const char *outcome, const char *category, const char *reason,
                 const char *code);

/* The session remembers the device (from @prep.device.serial, adb) and the app, as qa_prepare_target does. */
void ap_remember(sw_session *s, json_t *prep, const char *app);

/* The sw_android_prepare request of a prepare step's @args: device, avd, apk, appId. (transfer full: free()) */
char *ap_prepare_request(const json_t *args);

/* The id of the last running job of @kind on @s, or NULL. (transfer full: free()) */
char *ap_running_job(sw_session *s, const char *kind);

/* One kind of job that runs at most once at a time on a session. */
struct ap_job_kind {
	const char *kind;      /* the sw_job kind */
	const char *tool;      /* the tool named in the refusal */
	const char *hint;      /* the refusal's hint */
	const char *call_key;  /* nullable: the session key the plan's `call` is saved under before the start */
	pthread_mutex_t *lock; /* serialises "is one running? then start one" */
	sw_job_fn run;         /* gets the struct ap_job */
};

/*
 * Starts a job of @k with @plan (taken, also on failure): refuses (INVALID_ARGUMENT, details.jobId) when one is
 * running on @s, unbinds the session's drive (the job opens its own) and starts it.
 */
int ap_job_start_once(sw_ctx *ctx, sw_session *s, const struct ap_job_kind *k, json_t *plan, char **job_id,
                      sw_error **err);

#endif
