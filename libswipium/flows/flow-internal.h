/* flow-internal.h: the Flow V2 model shared by the parser, checker, runner and repair (never installed). */
#ifndef SW_FLOW_INTERNAL_H
#define SW_FLOW_INTERNAL_H

#include "sw-internal.h"

/* Limits applied before and while parsing: a flow is untrusted repository input. */
#define SW_FLOW_MAX_BYTES (10u * 1024u * 1024u) /* whole file, refused before parsing */
#define SW_FLOW_MAX_DEPTH 16                    /* nested collections */
#define SW_FLOW_MAX_NODES 20000                 /* scalars + collections in one document */
#define SW_FLOW_MAX_STEPS 500                   /* per section */
#define SW_FLOW_MAX_SCALAR 65536                /* bytes of one scalar */

/*
 * A parsed flow as JSON: {name, mode, appId?, fixtures?, budgetProfile?,
 * setup[], steps[], teardown[]}. Each step is {kind, phase, index, line,
 * column, ...kind fields} (see parse.c).
 *
 * Parsing fails (SW_EINVAL, INVALID_FLOW) for YAML that does not parse or
 * breaks a limit; schema problems are collected in @errors (array of
 * {line, column, phase?, step?, kind?, message}) and the flow is still
 * returned with the valid steps. @path (nullable) names the file in messages.
 */
int sw__flow_parse(const char *text, size_t len, const char *path, json_t **flow, json_t **errors, sw_error **err);

/* Reads a pack file ({name?, flows: [names]}) into @names. */
int sw__flow_parse_pack(const char *text, size_t len, const char *path, json_t *names, sw_error **err);

/* The step kinds the parser accepts (*n of them). */
const char *const *sw__flow_step_kinds(size_t *n);
/* Whether the runner's step table (run.c) has a handler for @kind. */
bool sw__flow_step_runnable(const char *kind);

/* Step classification. */
bool sw__flow_step_mutating(const json_t *step);
bool sw__flow_step_ocr(const json_t *step);
bool sw__flow_step_visual(const json_t *step);
/* The names of the ${VAR} references in every string of @step (appended to @names, unique). */
void sw__flow_step_variables(const json_t *step, json_t *names);

/*
 * Loads a flow from @root + @flow (name under .swipium/flows, with or without
 * .yaml, or a path inside the project) or from @flow_yaml. @path_out (nullable)
 * receives the resolved real path of a file flow (NULL for inline YAML).
 * FLOW_NOT_FOUND lists the paths checked; INVALID_ARGUMENT without either.
 */
int sw__flow_load(const char *root, const char *flow, const char *flow_yaml, json_t **flow_out, json_t **errors,
                  char **path_out, sw_error **err);

/* The longest input sw__flow_edit_distance() compares; longer ones are cut to it. */
#define SW_FLOW_EDIT_MAX 64
/* Levenshtein distance between a[0..la) and b[0..lb), ASCII letters compared case-insensitively. */
size_t sw__flow_edit_distance(const char *a, size_t la, const char *b, size_t lb);

/*
 * The common start of the public calls that take options {root?, flow?, flowYaml?, ...}: parses
 * @options_json into @opts (an object, else INVALID_ARGUMENT) and loads its flow with
 * sw__flow_load(). What was set is the caller's to free, on failure too.
 */
int sw__flow_load_options(const char *options_json, json_t **opts, json_t **flow_out, json_t **errors, char **path_out,
                          sw_error **err);

/*
 * Confines @rel (a template or baseline path from a flow) to @root after
 * resolving symlinks. Returns the real path or fails UNSAFE_ACTION_REFUSED.
 */
int sw__flow_confine(const char *root, const char *rel, char **real_out, sw_error **err);
/*
 * The file of a flow step's baseline: a bare name is a qa_visual baseline (.swipium/baselines/<name>.png),
 * anything else a PNG path inside the project; both confined like sw__flow_confine() (a missing file is not
 * an error here: the path is returned).
 */
int sw__flow_baseline_file(const char *root, const char *name, char **path, sw_error **err);

/* sw_flow_plan() with the session's inline fixtures too (nullable): a seed's prompt line says what it runs. */
int sw__flow_plan_for(const char *options_json, struct sw_session *session, char **result_json, sw_error **err);

/* Reads .swipium/policy.json's ciAllowMutations; NULL when absent or unreadable. */
json_t *sw__flow_policy_allow(const char *root);
/* Non-zero when the ciAllowMutations tokens in @allow permit @step. */
bool sw__flow_policy_allows(const json_t *allow, const json_t *step);

/* The static check of a parsed flow (lint, brittle locators, CI preflight). */
json_t *sw__flow_lint(const json_t *flow, const json_t *errors, const char *platform, bool ci, const char *root,
                      const json_t *variables);

#endif
