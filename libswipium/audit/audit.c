/* audit.c: qa_mobile_audit's checklist, options, plan (no device), consent request, release impact and the
 * issue-ledger entries of failed and blocked checks. The device part is in run.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "audit-internal.h"
#include <swipium/issues.h>
#include <swipium/redact.h>

/* clang-format off */
const sw__audit_check_def sw__audit_checks[] = {
	/* smoke */
	{"smoke.launch", SW__AUDIT_SMOKE, "app launches and stays in front",
	 "Launches the session's app and reads which window is in front.",
	 "screenshot; the foreground window as a log line", "high", "blocker_app_bug", true, false},
	{"smoke.health", SW__AUDIT_SMOKE, "baseline health is clean",
	 "Runs the health check: crashes and ANRs in logcat since the last check, the foreground app, error "
	 "surfaces on screen.", "the health verdict and findings as log lines", "high", "app_bug", true, false},
	{"smoke.screen", SW__AUDIT_SMOKE, "first screen shows content",
	 "Dumps the UI hierarchy of the launched app; a screen without a single labelled node fails.",
	 "the UI dump", "high", "app_bug", true, false},
	/* account_cycle */
	{"account.create", SW__AUDIT_ACCOUNT, "disposable account can be created",
	 "Only in a test or staging environment (a disposable fixture or .swipium/test-data-policy.json): fills "
	 "the sign-up form with a generated e-mail and a random password registered as a secret (session inputs "
	 "SWIPIUM_TEST_USERNAME / SWIPIUM_TEST_PASSWORD, typed as placeholders) and taps Sign up.", "the environment as a log line; UI dumps before and after; screenshot", "high", "app_bug", true, true},
	{"account.logout", SW__AUDIT_ACCOUNT, "generated account can log out",
	 "Taps a visible Log out / Sign out control (never a destructive one) and looks for the login screen.",
	 "UI dumps before and after; screenshot", "high", "app_bug", true, false},
	{"account.login", SW__AUDIT_ACCOUNT, "generated account can log back in",
	 "Types the generated account into the login form (as placeholders, the password as a secret) and "
	 "taps Log in / Sign in.", "UI dump after; screenshot", "high", "app_bug", true, true},
	{"account.forgot_password", SW__AUDIT_ACCOUNT, "forgot-password entry point works",
	 "Taps Forgot password on the login screen, checks that a reset screen opens, and goes back. Nothing is "
	 "submitted.", "UI dump of the reset screen", "medium", "app_bug", true, false},
	/* store_compliance */
	{"store.privacy_policy", SW__AUDIT_STORE, "privacy policy is reachable",
	 "Looks for a privacy policy link on the current screen.", "the UI dump and the matching label",
	 "high", "store_compliance", true, false},
	{"store.terms", SW__AUDIT_STORE, "terms of service are reachable",
	 "Looks for terms of service / terms of use on the current screen.", "the UI dump and the matching label",
	 "medium", "store_compliance", true, false},
	{"store.account_deletion", SW__AUDIT_STORE, "in-app account deletion is offered",
	 "Looks for an account deletion entry point (stores require one when an account can be created). "
	 "Nothing is tapped.", "the UI dump and the matching label", "high", "store_compliance", true, false},
	{"store.subscription", SW__AUDIT_STORE, "subscription can be managed or restored",
	 "Looks for manage-subscription or restore-purchases controls.", "the UI dump and the matching label",
	 "medium", "store_compliance", true, false},
	{"store.paywall", SW__AUDIT_STORE, "paywall shows restore and terms",
	 "When a paywall is on screen, checks that it offers restore purchases and a terms or privacy link. "
	 "Nothing is bought.", "the UI dump and the labels found", "medium", "store_compliance", true, false},
	{"store.build_metadata", SW__AUDIT_STORE, "build artifact identifies the app",
	 "Reads the project's installable build (sw_artifact_inspect): app id, version name and code, "
	 "minimum SDK; the app id must be the audited app.", "the artifact facts as log lines", "medium",
	 "store_compliance", false, false},
	{"store.release_build", SW__AUDIT_STORE, "build is releasable",
	 "Debuggable flag, target SDK and sensitive permissions of the build.", "the artifact facts",
	 "high", "store_compliance", false, false},
	/* resilience */
	{"resilience.offline", SW__AUDIT_RESILIENCE, "app survives going offline",
	 "Turns airplane mode on (unless it already is), waits, and runs the health check.",
	 "screenshot; the health verdict as a log line", "high", "app_bug", true, false},
	{"resilience.reconnect", SW__AUDIT_RESILIENCE, "app survives coming back online",
	 "Turns airplane mode off, waits, and runs the health check.", "screenshot; the health verdict",
	 "medium", "app_bug", true, false},
	{"resilience.relaunch", SW__AUDIT_RESILIENCE, "app relaunches after a force stop",
	 "Force-stops and launches the app, then runs the health check.", "screenshot; the health verdict",
	 "high", "app_bug", true, false},
	{"resilience.rotation", SW__AUDIT_RESILIENCE, "app survives rotation",
	 "Rotates to landscape, runs the health check, and puts the orientation back as it was found.",
	 "screenshot; the rotation read back and the health verdict", "medium", "app_bug", true, false},
	/* release_gate's own */
	{"release.locator_readiness", SW__AUDIT_GATE, "locators are ready for automation",
	 "Lints the page objects' locators (coordinate-only, locale-fragile, dynamic).", "the lint items",
	 "medium", "improvement", false, false},
	{"release.issue_recurrence", SW__AUDIT_GATE, "no fixed issue came back",
	 "Reads the project's issue ledger (before this run logs anything) for reopened issues.",
	 "the ledger counts as a log line", "high", "app_bug", false, false},
};
/* clang-format on */
const size_t sw__audit_check_count = SW_ARRAY_SIZE(sw__audit_checks);

static const struct {
	const char *name;
	unsigned mask;
} profiles[] = {
    {"smoke", SW__AUDIT_SMOKE},
    {"account_cycle", SW__AUDIT_ACCOUNT},
    {"store_compliance", SW__AUDIT_STORE},
    {"resilience", SW__AUDIT_RESILIENCE},
    {"release_gate", SW__AUDIT_SMOKE | SW__AUDIT_ACCOUNT | SW__AUDIT_STORE | SW__AUDIT_RESILIENCE | SW__AUDIT_GATE},
};

static const sw__opt audit_opts[] = {
    {"profile", SW__OPT_STRING, false},
    {"mode", SW__OPT_STRING, false},
    {"allowGeneratedData", SW__OPT_BOOL, false},
    {"allowTestAccountDeletion", SW__OPT_BOOL, false},
    {"offlineMode", SW__OPT_BOOL, false},
    {"sourceRevision", SW__OPT_OBJECT, false},
    {"targetApp", SW__OPT_STRING, false},
    {NULL, 0, false},
};

static const sw__opt revision_opts[] = {
    {"commit", SW__OPT_STRING, false},
    {"buildVersion", SW__OPT_STRING, false},
    {"branch", SW__OPT_STRING, false},
    {NULL, 0, false},
};

void sw__audit_opts_clear(sw__audit_opts *o)
{
	json_decref(o->raw);
	memset(o, 0, sizeof(*o));
}

int sw__audit_opts_load(const char *options_json, sw__audit_opts *o, sw_error **err)
{
	memset(o, 0, sizeof(*o));
	int rc = sw__options_load(options_json, audit_opts, "qa_mobile_audit arguments", &o->raw, err);
	if (rc != SW_OK)
		return rc;
	rc = sw__options_check(json_object_get(o->raw, "sourceRevision"), revision_opts, "sourceRevision", err);
	if (rc != SW_OK)
		goto bad;
	o->profile = json_string_value(json_object_get(o->raw, "profile"));
	if (!o->profile) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "pass profile: smoke, account_cycle, "
		                   "store_compliance, resilience or release_gate",
		                   "profile is required");
		goto bad;
	}
	for (size_t i = 0; i < SW_ARRAY_SIZE(profiles); i++)
		if (!strcmp(o->profile, profiles[i].name))
			o->mask = profiles[i].mask;
	if (!o->mask) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                   "profile must be smoke, account_cycle, store_compliance, resilience or release_gate "
		                   "(got \"%s\")",
		                   o->profile);
		goto bad;
	}
	const char *mode = json_string_value(json_object_get(o->raw, "mode"));
	if (mode && strcmp(mode, "plan") && strcmp(mode, "execute")) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "mode must be plan or execute (got \"%s\")",
		                   mode);
		goto bad;
	}
	o->execute = mode && !strcmp(mode, "execute");
	o->allow_generated = json_is_true(json_object_get(o->raw, "allowGeneratedData"));
	o->allow_deletion = json_is_true(json_object_get(o->raw, "allowTestAccountDeletion"));
	json_t *off = json_object_get(o->raw, "offlineMode");
	o->offline_mode_given = off != NULL;
	o->offline_mode = !json_is_false(off);
	return SW_OK;
bad:
	sw__audit_opts_clear(o);
	return rc;
}

bool sw__audit_needs_network(unsigned mask)
{
	return (mask & SW__AUDIT_RESILIENCE) != 0;
}

/* The session's appId (transfer full, NULL when unset). */
static char *session_app(sw_session *s)
{
	if (!s)
		return NULL;
	json_t *v = NULL;
	char *app = NULL;
	if (sw__session_get(s, "appId", &v, NULL) == SW_OK && json_is_string(v))
		app = sw__strdup(json_string_value(v));
	json_decref(v);
	return app;
}

json_t *sw__audit_audited(sw_session *s, const char *root, const sw__audit_opts *o)
{
	const char *target = json_string_value(json_object_get(o->raw, "targetApp"));
	char *app = session_app(s);
	json_t *a = json_object();
	json_object_set_new(a, "targetApp", target ? json_string(target) : app ? json_string(app) : json_null());
	json_object_set_new(a, "appId", app ? json_string(app) : json_null());
	json_t *rev = json_object_get(o->raw, "sourceRevision");
	json_object_set_new(a, "sourceRevision", rev ? json_deep_copy(rev) : json_null());
	const char *r = s ? sw_session_root(s) : root;
	json_object_set_new(a, "projectRoot", r ? json_string(r) : json_null());
	if (s)
		json_object_set_new(a, "sessionId", json_string(sw_session_id(s)));
	free(app);
	return a;
}

/* The profile names of a check's bit. */
static const char *profile_name(unsigned bit)
{
	switch (bit) {
	case SW__AUDIT_SMOKE:
		return "smoke";
	case SW__AUDIT_ACCOUNT:
		return "account_cycle";
	case SW__AUDIT_STORE:
		return "store_compliance";
	case SW__AUDIT_RESILIENCE:
		return "resilience";
	default:
		return "release_gate";
	}
}

static json_t *safety_contract(const sw__audit_opts *o)
{
	json_t *c = json_object();
	json_object_set_new(c, "evidence",
	                    json_string("No check passes without evidence (a screenshot, a UI dump or a log line); a "
	                                "check that could not look is blocked, never passed."));
	json_object_set_new(c, "ledger", json_string("Failed and blocked checks are logged to .swipium/issues-log.jsonl "
	                                             "with their evidence URIs."));
	if (o->mask & SW__AUDIT_RESILIENCE)
		json_object_set_new(
		    c, "network",
		    json_string("Execute asks the network_change consent before any device command. The airplane "
		                "state found before the first check is recorded and put back (on or off) after the last "
		                "check, after a failure and on cancellation; the orientation likewise."));
	if (o->mask & SW__AUDIT_ACCOUNT)
		json_object_set_new(
		    c, "accounts",
		    json_string(o->allow_generated
		                    ? "allowGeneratedData: the account cycle uses a disposable generated account (a "
		                      "generated e-mail, a random password kept as a secret), and only in a test or "
		                      "staging environment (a disposable fixture or .swipium/test-data-policy.json)."
		                    : "Without allowGeneratedData the account cycle is blocked: nothing is typed or "
		                      "tapped for it."));
	json_object_set_new(c, "deletion",
	                    json_string(o->allow_deletion
	                                    ? "allowTestAccountDeletion only ever concerns the disposable account this "
	                                      "run created; a real account is never deleted."
	                                    : "No account is deleted: allowTestAccountDeletion is not set, and a real "
	                                      "account is never deleted in any case."));
	json_object_set_new(c, "purchases", json_string("Nothing is bought: paywalls are read, never confirmed."));
	json_object_set_new(c, "synchronous", json_string("Execute runs inside the call, to completion or cancellation "
	                                                  "(no job); a cancelled check is not logged."));
	return c;
}

int sw_audit_plan(sw_session *s, const char *root, const char *options_json, char **out_json, sw_error **err)
{
	sw__audit_opts o;
	int rc = sw__audit_opts_load(options_json, &o, err);
	if (rc != SW_OK)
		return rc;
	json_t *checks = json_array();
	json_t *plist = json_array();
	for (unsigned bit = 1; bit <= SW__AUDIT_GATE; bit <<= 1)
		if (o.mask & bit)
			json_array_append_new(plist, json_string(profile_name(bit)));
	for (size_t i = 0; i < sw__audit_check_count; i++) {
		const sw__audit_check_def *d = &sw__audit_checks[i];
		if (!(o.mask & d->profile))
			continue;
		json_t *c = json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:b}", "id", d->id, "profile", profile_name(d->profile),
		                      "title", d->title, "what", d->what, "evidence", d->evidence, "touchesDevice",
		                      d->touches_device, "typesText", d->types_text);
		if (d->profile == SW__AUDIT_ACCOUNT && !o.allow_generated)
			json_object_set_new(c, "blockedBecause",
			                    json_string("allowGeneratedData is not true: blocked, nothing typed or tapped"));
		if ((!strcmp(d->id, "resilience.offline") || !strcmp(d->id, "resilience.reconnect")) && !o.offline_mode)
			json_object_set_new(c, "notEvaluatedBecause", json_string("offlineMode is false"));
		json_array_append_new(checks, c);
	}
	json_t *consent = sw__audit_needs_network(o.mask)
	                      ? json_pack("{s:b,s:s,s:s,s:s}", "required", 1, "action", "network_change", "risk",
	                                  "medium", "when", "execute, before any device command")
	                      : json_pack("{s:b}", "required", 0);
	json_t *notes = json_array();
	if (!s)
		json_array_append_new(notes, json_string("execute needs a prepared session (sessionId with an app)"));
	size_t n = json_array_size(checks);
	json_t *res = json_pack("{s:s,s:s,s:o,s:o,s:I,s:o,s:o,s:o,s:o}", "mode", "plan", "profile", o.profile,
	                        "profiles", plist, "checks", checks, "checkCount", (json_int_t)n, "safetyContract",
	                        safety_contract(&o), "consent", consent, "audited", sw__audit_audited(s, root, &o),
	                        "notes", notes);
	*out_json = res ? sw__json_compact(res) : NULL;
	json_decref(res);
	sw__audit_opts_clear(&o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

int sw_audit_consent_request(sw_session *s, const char *options_json, char **out_json, sw_error **err)
{
	sw__audit_opts o;
	int rc = sw__audit_opts_load(options_json, &o, err);
	if (rc != SW_OK)
		return rc;
	json_t *res;
	if (!o.execute || !sw__audit_needs_network(o.mask)) {
		res = json_pack("{s:b}", "required", 0);
	} else {
		/* the serial the session is bound to, from its state: nothing is asked of the device */
		json_t *dev = NULL;
		const char *serial = NULL;
		if (s && sw__session_get(s, "device", &dev, NULL) == SW_OK)
			serial = json_string_value(json_object_get(dev, "serial"));
		char *cmd = sw__asprintf("adb%s%s shell settings get global airplane_mode_on\n"
		                         "adb%s%s shell cmd connectivity airplane-mode enable\n"
		                         "adb%s%s shell cmd connectivity airplane-mode disable\n"
		                         "(then the state found first is put back: enable or disable)",
		                         serial ? " -s " : "", serial ? serial : "", serial ? " -s " : "",
		                         serial ? serial : "", serial ? " -s " : "", serial ? serial : "");
		char *app = session_app(s);
		res = json_pack("{s:b,s:s,s:s,s:s,s:s?,s:{s:s,s:s,s:s?,s:s?}}", "required", 1, "action", "network_change",
		                "risk", "medium", "explain",
		                "The resilience checks turn airplane mode on and off to test the app offline and back "
		                "online. The airplane state found first is put back at the end, also after a failure "
		                "or a cancellation.",
		                "exactCommand", cmd, "affects", "network", "airplane mode toggled, then restored",
		                "profile", o.profile, "device", serial, "appId", app);
		free(cmd);
		free(app);
		json_decref(dev);
	}
	*out_json = res ? sw__json_compact(res) : NULL;
	json_decref(res);
	sw__audit_opts_clear(&o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

json_t *sw__audit_counts(json_t *checks)
{
	json_int_t pass = 0, fail = 0, blocked = 0, ne = 0;
	size_t i;
	json_t *c;
	json_array_foreach(checks, i, c) {
		const char *st = json_string_value(json_object_get(c, "status"));
		if (!st)
			continue;
		if (!strcmp(st, "pass"))
			pass++;
		else if (!strcmp(st, "fail"))
			fail++;
		else if (!strcmp(st, "blocked"))
			blocked++;
		else
			ne++;
	}
	return json_pack("{s:I,s:I,s:I,s:I,s:I}", "pass", pass, "fail", fail, "blocked", blocked, "notEvaluated", ne,
	                 "total", (json_int_t)json_array_size(checks));
}

json_t *sw__audit_release_impact(json_t *checks)
{
	json_t *reasons = json_array(), *blocking = json_array();
	bool block = false, caution = false;
	size_t i;
	json_t *c;
	json_array_foreach(checks, i, c) {
		const char *st = json_string_value(json_object_get(c, "status"));
		const char *sev = json_string_value(json_object_get(c, "severity"));
		const char *id = json_string_value(json_object_get(c, "id"));
		if (!st || !strcmp(st, "pass"))
			continue;
		if (!strcmp(st, "fail") && sev && (!strcmp(sev, "high") || !strcmp(sev, "blocker"))) {
			block = true;
			json_array_append_new(blocking, json_string(id));
			char *r = sw__asprintf("%s failed (severity %s)", id, sev);
			json_array_append_new(reasons, json_string(r ? r : id));
			free(r);
		} else {
			caution = true;
			char *r = sw__asprintf("%s %s", id, !strcmp(st, "fail")      ? "failed"
			                                    : !strcmp(st, "blocked") ? "is blocked"
			                                                             : "was not evaluated");
			json_array_append_new(reasons, json_string(r ? r : id));
			free(r);
		}
	}
	const char *verdict = block ? "block" : caution ? "caution" : "ship";
	if (!json_array_size(checks)) {
		verdict = "caution";
		json_array_append_new(reasons, json_string("no check ran"));
	}
	return json_pack("{s:s,s:o,s:o}", "verdict", verdict, "reasons", reasons, "blockingChecks", blocking);
}

int sw__audit_log_issue(sw_session *s, const char *profile, json_t *check, sw_error **err)
{
	const char *st = json_string_value(json_object_get(check, "status"));
	const char *id = json_string_value(json_object_get(check, "id"));
	const char *title = json_string_value(json_object_get(check, "title"));
	bool failed = st && !strcmp(st, "fail");
	/* the profile is not part of the title: the same check is the same issue under release_gate */
	(void)profile;
	char *t = sw__asprintf("Mobile audit: %s (%s) %s", title ? title : "check", id ? id : "?",
	                       failed ? "failed" : "is blocked");
	json_t *uris = json_array();
	sw_buf lines = SW_BUF_INIT;
	const char *reason = json_string_value(json_object_get(check, "reason"));
	sw__buf_puts(&lines, reason ? reason : "");
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(check, "evidence"), i, e) {
		const char *uri = json_string_value(json_object_get(e, "uri"));
		const char *line = json_string_value(json_object_get(e, "line"));
		if (uri)
			json_array_append_new(uris, json_string(uri));
		if (line)
			sw__buf_printf(&lines, "\n%s: %s", json_string_value(json_object_get(e, "kind")), line);
	}
	char *summary = sw__buf_steal(&lines, NULL);
	/* a blocked check is a gate or missing data, not a bug of the app */
	const char *category = json_string_value(json_object_get(check, failed ? "category" : "blockedCategory"));
	json_t *req = json_pack("{s:s,s:s,s:s?,s:s,s:s,s:s,s:o,s:s,s:s,s:s}", "mode", "log", "title", t ? t : "audit",
	                        "summary", summary, "category", category ? category : "expected_gate", "severity",
	                        failed ? json_string_value(json_object_get(check, "severity")) : "low", "platform",
	                        "android", "evidenceUris", uris, "sessionId", sw_session_id(s), "source",
	                        "qa_mobile_audit", "auditCheckId", id ? id : "?");
	free(t);
	free(summary);
	json_t *fc = json_object_get(check, "failureCode");
	if (req && json_is_string(fc))
		json_object_set(req, "failureCode", fc);
	/* auditCheckId is a verify_fixed key, not a log field: kept in the check, not sent */
	json_object_del(req, "auditCheckId");
	char *rj = req ? sw__json_compact(req) : NULL;
	json_decref(req);
	if (!rj)
		return sw__error_nomem(err);
	char *out = NULL;
	int rc = sw_issues_run(sw_session_root(s), rj, sw_session_redactor(s), &out, err);
	free(rj);
	if (rc == SW_OK) {
		json_t *r = json_loads(out, 0, NULL);
		json_t *issue = json_object_get(r, "issue");
		json_t *iid = json_object_get(issue, "issueId");
		if (iid)
			json_object_set(check, "issueId", iid);
		if (json_object_get(issue, "state"))
			json_object_set(check, "issueState", json_object_get(issue, "state"));
		if (json_object_get(r, "outcome"))
			json_object_set(check, "issueOutcome", json_object_get(r, "outcome"));
		json_decref(r);
	}
	sw_free(out);
	return rc;
}

/* Lower-cases ASCII letters in place. */
static void fold(char *s)
{
	for (; s && *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static void collect(xmlNode *n, json_t *out, size_t depth)
{
	for (; n && depth < 200; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (json_array_size(out) >= 20000)
			return;
		xmlChar *text = xmlGetProp(n, (const xmlChar *)"text");
		xmlChar *desc = xmlGetProp(n, (const xmlChar *)"content-desc");
		xmlChar *rid = xmlGetProp(n, (const xmlChar *)"resource-id");
		xmlChar *click = xmlGetProp(n, (const xmlChar *)"clickable");
		xmlChar *bounds = xmlGetProp(n, (const xmlChar *)"bounds");
		xmlChar *pw = xmlGetProp(n, (const xmlChar *)"password");
		const char *tx = text && *text ? (const char *)text : NULL;
		const char *ds = desc && *desc ? (const char *)desc : NULL;
		if (tx || ds || (rid && *rid)) {
			char *label = sw__asprintf("%s%s%s", tx ? tx : "", tx && ds ? " " : "", ds ? ds : "");
			fold(label);
			int x1 = 0, y1 = 0, x2 = 0, y2 = 0;
			if (bounds)
				(void)sscanf((const char *)bounds, "[%d,%d][%d,%d]", &x1, &y1, &x2, &y2);
			/* what a screen shows is untrusted: the text quoted in evidence is cut on a character boundary */
			char *shown = sw__cap(tx ? tx : (ds ? ds : ""), 200);
			json_t *o = json_pack("{s:s,s:s,s:s,s:b,s:b,s:[i,i,i,i]}", "label", label ? label : "", "text",
			                      shown ? shown : "", "id", rid ? (const char *)rid : "", "clickable",
			                      click && !strcmp((const char *)click, "true"), "password",
			                      pw && !strcmp((const char *)pw, "true"), "bounds", x1, y1, x2, y2);
			if (o)
				json_array_append_new(out, o);
			free(shown);
			free(label);
		}
		xmlFree(text);
		xmlFree(desc);
		xmlFree(rid);
		xmlFree(click);
		xmlFree(bounds);
		xmlFree(pw);
		collect(n->children, out, depth + 1);
	}
}

json_t *sw__audit_dump_nodes(const char *xml, size_t len)
{
	json_t *out = json_array();
	if (!xml || !len || len > (size_t)16 << 20)
		return out;
	/* no network, no entity expansion, no DTD loading: the dump is device data */
	xmlDoc *doc = xmlReadMemory(xml, (int)len, "dump.xml", NULL,
	                            XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
	if (doc) {
		collect(xmlDocGetRootElement(doc), out, 0);
		xmlFreeDoc(doc);
	}
	return out;
}
