/* audit-internal.h: the pieces of the release audit (qa_mobile_audit) shared by audit.c and run.c; never installed. */
#ifndef SW_AUDIT_INTERNAL_H
#define SW_AUDIT_INTERNAL_H

#include <stdbool.h>

#include "sw-internal.h"
#include <swipium/audit.h>

/* The five profiles; release_gate runs the checks of the four others plus its own. */
enum sw__audit_profile {
	SW__AUDIT_SMOKE = 1u << 0,
	SW__AUDIT_ACCOUNT = 1u << 1,
	SW__AUDIT_STORE = 1u << 2,
	SW__AUDIT_RESILIENCE = 1u << 3,
	SW__AUDIT_GATE = 1u << 4, /* the release gate's own checks */
};

/* One entry of the checklist. */
typedef struct sw__audit_check_def {
	const char *id;       /* "resilience.offline" */
	unsigned profile;     /* one SW__AUDIT_* bit */
	const char *title;    /* short, stable: it is part of the issue ledger's identity */
	const char *what;     /* what execute does, for the plan */
	const char *evidence; /* what it keeps as evidence, for the plan */
	const char *severity; /* of a failure: blocker|high|medium|low */
	const char *category; /* issue-ledger category of a failure */
	bool touches_device;
	bool types_text; /* only with allowGeneratedData */
} sw__audit_check_def;

/* The parsed options. */
typedef struct sw__audit_opts {
	json_t *raw;         /* the options object (owned) */
	const char *profile; /* borrowed from raw */
	unsigned mask;       /* the profiles it covers */
	bool execute;
	bool allow_generated;
	bool allow_deletion;
	bool offline_mode; /* default true */
	bool offline_mode_given;
} sw__audit_opts;

/* Parses and checks @options_json (INVALID_ARGUMENT naming the problem). Clear with sw__audit_opts_clear. */
int sw__audit_opts_load(const char *options_json, sw__audit_opts *o, sw_error **err);
void sw__audit_opts_clear(sw__audit_opts *o);

/* The checklist table and its size. */
extern const sw__audit_check_def sw__audit_checks[];
extern const size_t sw__audit_check_count;

/* Whether the profiles of @mask need the network_change consent (resilience is among them). */
bool sw__audit_needs_network(unsigned mask);

/* {targetApp, sourceRevision, projectRoot} of the run (transfer full). */
json_t *sw__audit_audited(sw_session *s, const char *root, const sw__audit_opts *o);

/* The release impact of a finished check list (transfer full). */
json_t *sw__audit_release_impact(json_t *checks);
/* {pass, fail, blocked, notEvaluated, total} (transfer full). */
json_t *sw__audit_counts(json_t *checks);

/*
 * Logs a failed or blocked check to the project's issue ledger with its evidence URIs; sets issueId and
 * issueState on @check. Returns SW_OK or the ledger's error (the check stays as it is).
 */
int sw__audit_log_issue(sw_session *s, const char *profile, json_t *check, sw_error **err);

/* The lower-cased labels of a UI dump's nodes (text and content-desc), for keyword checks (transfer full). */
json_t *sw__audit_dump_nodes(const char *xml, size_t len);

/*
 * Every screen the session has seen, newest first (screens.c): its UI dump artifacts and the nodes of its
 * explore screen graphs, except the artifact @skip_uri. {screens[{source: ui_dump|explore, name, uri, nodes
 * (as sw__audit_dump_nodes)}], notAvailable (recorded but not readable: missing, over the cap, not parsing),
 * notAvailableReasons[] (at most 20)}. (transfer full)
 */
json_t *sw__audit_seen_screens(sw_session *s, const char *skip_uri);

/*
 * The release facts of an APK's manifest (transfer full): {targetSdk: int|null, debuggable?: bool (absent when
 * the manifest has no <application>), permissions[], warnings[]}. Never fails: what could not be read is a
 * warning.
 */
json_t *sw__audit_apk_facts(const char *path);

/* The lowest targetSdkVersion Google Play takes for new apps and updates (API 35 since 31 August 2025). */
#define SW__AUDIT_MIN_TARGET_SDK 35

#endif
