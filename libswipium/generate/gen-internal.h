/* gen-internal.h: the generation model qa_generate's emitters share (h16gen writes it, the appium emitter reads it). */
#ifndef SW_GEN_INTERNAL_H
#define SW_GEN_INTERNAL_H

#include "sw-internal.h"

/*
 * The step model (json_t), built from the session's recorded actions by the generation core:
 *
 * {"appId": s, "platform": "android"|"ios" (absent: the session has no device), "steps": [ {
 *     "kind": "tap"|"type"|"clear"|"swipe"|"scroll"|"back"|"key"|"launch"|"wait"|"assertText"|"visualCheck",
 *     "screen": s               raw screen name/id the step ran on,
 *     "locator": {"strategy": "id"|"accessibility_id"|"text"|"coordinates", "value": s, "x": n, "y": n},
 *     "quality": "durable"|"semi"|"brittle",
 *     "text": s                 the typed value: a `${VAR}` placeholder when it was a secret,
 *     "secretKind": "password"|"otp"|"token"|"pin"|"secret"|null,
 *     "direction": s, "untilVisible": locator|null, "maxScrolls": n, "key": s,
 *     "label": s                raw on-screen label: untrusted text, data only,
 *     "expected": s             the text an assertText step expects
 * } ] }
 *
 * Keys that do not apply to a step's kind are absent. The model never holds a registered secret value.
 */

/*
 * The appium target: builds the suite's files from @model for @params (the qa_generate arguments, both
 * borrowed). *files_out (transfer full): an array of {"path": s relative to projectRoot, "content": s};
 * *report_out (transfer full): the target's report object (merged into the result). Nothing is written
 * here: the caller runs the secret guard over every file and writes them. A step that cannot be
 * expressed fails with UNEMITTABLE_STEP.
 */
int sw__gen_appium(const json_t *model, const json_t *params, json_t **files_out, json_t **report_out, sw_error **err);

/*
 * Also in the model: "kind" "openUrl" with "url"; "seq" (the recording's number); for a scroll, "direction" is
 * qa_act's (the content's way; the finger moves the other way); for a swipe, the finger's. Top level:
 * "skipped" [{index, action?, reason}] (recorded actions no step replays), "variables" [{name, secret,
 * reason}] (every ${NAME} the steps need), "recorded" (actions read), "droppedBeforeRecording" (older
 * actions the session's capped list no longer holds).
 */

/* The model of @recorded (the session's recordedActions, borrowed). (*model_out transfer full) */
int sw__gen_model(const json_t *recorded, const char *app_id, const char *platform, json_t **model_out,
                  sw_error **err);

/*
 * sw_generate() on a given recording (borrowed; NULL is none) with the secret guard of @red (nullable: no
 * guard), for benches and tests that hold more than a session keeps. @session_root: the default root.
 */
struct sw_redactor;
int sw__gen_run(sw_ctx *ctx, sw_session *s, sw_drive *drive, struct sw_redactor *red, const json_t *recorded,
                const char *app_id, const char *platform, const char *session_root, const char *options_json,
                char **result_json, sw_error **err);

/* state.c: reads and checks a state profile (see sw_generate_state_profile()); *out: {name, path, risk, prepare[],
 * teardown[], exactCommand}. */
int sw__gen_state_load(const char *root, const char *name, json_t **out, sw_error **err);

/* What the appium target would choose for @params on @model (which may have no steps): {language, runner,
 * primaryPlatform, platformSource, notes[]} (bootstrap plans report it before anything is recorded). */
int sw__gen_appium_choices(const json_t *model, const json_t *params, json_t **out, sw_error **err);

/* bootstrap.c: the bootstrap setting of qa_generate's @opts: 1 (record first), 0, or -1 when it is not true, false
 * or "auto" (auto: record first when the call has no session). */
int sw__gen_bootstrap_wanted(const json_t *opts, bool have_session);

#endif
