/* consent-policy.h: the action table, pre-approval and prompt helpers shared by the consent files. */
#ifndef SW_CONSENT_POLICY_H
#define SW_CONSENT_POLICY_H

#include <stdbool.h>

#include <jansson.h>

typedef struct sw_consent_action {
	const char *name;
	const char *risk; /* default risk */
	bool runs_code;   /* the RUN_CODE pre-approval tier */
	bool preapprovable;
} sw_consent_action;

/* The table entry for @name, or NULL for an unknown action. */
const sw_consent_action *sw__consent_action_find(const char *name);
size_t sw__consent_action_index(const sw_consent_action *a);
size_t sw__consent_action_count(void);
bool sw__consent_risk_valid(const char *risk);

/* SWIPIUM_REQUIRE_ELICITATION is "1" (after trimming). */
bool sw__consent_require_elicitation(void);

/*
 * Reads SWIPIUM_CONSENT_PREAPPROVE (+ _RUN_CODE) from the process environment
 * now: @honoured[i] (sw__consent_action_count() entries) is set for each
 * honoured action; returns the report object of sw_consent_preapproval_json().
 */
json_t *sw__consent_preapproval_read(bool honoured[]);

/* Sanitised, capped copy of in[0..len) (see sw_consent_sanitize()); NULL on OOM. */
char *sw__consent_sanitize(const char *in, size_t len, size_t max_units);

/* {message, requestedSchema} for a prompt. @cmd: string, array of strings or NULL. */
json_t *sw__consent_prompt_build(const char *action, const char *risk, const char *explain, const json_t *cmd);
/* The steps of a command (a string or an array of strings): its non-blank lines. (transfer full) */
json_t *sw__consent_steps(const json_t *cmd);
/* Why the prompt for this request cannot show the whole command (a step over 500 characters, a message over
 * 2,000 even with the details shortened, and with @every_step more than 4 steps), or NULL when it can.
 * (transfer full) */
char *sw__consent_unshowable(const char *action, const char *risk, const char *explain, const json_t *cmd,
                             bool every_step);
/* One prompt step for @command {label?, argv: [string...], origin?}: "label: 'arg' 'arg' (from origin)",
 * each argument quoted with hidden characters spelled <U+XXXX>. NULL when @command is malformed. */
char *sw__consent_command_step(const json_t *command);

#endif
