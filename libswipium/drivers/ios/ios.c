/* ios.c: qa_ios's library side: one simctl plan per action (what the consent prompt shows) and its run. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ios-internal.h"
#include <swipium/actions.h>

static const sw__opt run_opts[] = {
    {"action", SW__OPT_STRING, false}, {"device", SW__OPT_STRING, true},  {"app", SW__OPT_STRING, true},
    {"bundleId", SW__OPT_STRING, true}, {"url", SW__OPT_STRING, true},    {"last", SW__OPT_STRING, true},
    {"service", SW__OPT_STRING, true},  {"bootWaitMs", SW__OPT_INTEGER, true}, {NULL}};

static const char *const ACTIONS[] = {"list",   "boot", "install",       "launch", "terminate",
                                      "openurl", "logs", "privacy_reset", "erase",  NULL};

/* One planned action: the chosen simulator, the app, and the argv steps (after "xcrun simctl"). */
typedef struct plan {
	const char *action;
	json_t *opts;
	json_t *list;    /* the parsed list */
	json_t *sim;     /* borrowed from list; NULL for list */
	json_t *app;     /* sw__ios_app_check's object, or NULL */
	const char *bid; /* the bundle id used (borrowed) */
	json_t *steps;   /* [{label, args[]}] */
} plan;

static void plan_clear(plan *p)
{
	json_decref(p->opts);
	json_decref(p->list);
	json_decref(p->app);
	json_decref(p->steps);
	memset(p, 0, sizeof(*p));
}

static const char *opt(const plan *p, const char *k)
{
	return json_string_value(json_object_get(p->opts, k));
}

static bool needs_booted(const char *a)
{
	return strcmp(a, "list") && strcmp(a, "boot") && strcmp(a, "erase");
}

static bool valid_bundle_id(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 255 || !isalnum((unsigned char)s[0]))
		return false;
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
			return false;
	return true;
}

static bool valid_last(const char *s)
{
	size_t n = strspn(s, "0123456789");
	return n >= 1 && n <= 6 && (s[n] == 's' || s[n] == 'm' || s[n] == 'h' || s[n] == 'd') && !s[n + 1];
}

static bool valid_service(const char *s)
{
	size_t n = strlen(s);
	return n && n <= 40 && strspn(s, "abcdefghijklmnopqrstuvwxyz-") == n && s[0] != '-';
}

static bool valid_url(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 4096 || !isalpha((unsigned char)s[0]))
		return false;
	size_t sch = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	if (s[sch] != ':')
		return false;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return false;
	return true;
}

static int bad(sw_error **err, const char *hint, const char *what)
{
	return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", hint, "%s", what);
}

/* The session's bound simulator UDID (device {platform:"ios", serial}). (transfer full, nullable) */
static char *bound_udid(sw_session *s)
{
	json_t *dev = NULL;
	if (!s || sw__session_get(s, "device", &dev, NULL) < 0)
		return NULL;
	const char *plat = json_string_value(json_object_get(dev, "platform"));
	const char *serial = json_string_value(json_object_get(dev, "serial"));
	char *r = plat && !strcmp(plat, "ios") && serial ? sw__strdup(serial) : NULL;
	json_decref(dev);
	return r;
}

static void step(plan *p, const char *label, const char *a0, const char *a1, const char *a2, const char *a3,
                 const char *a4, const char *a5, const char *a6)
{
	const char *v[] = {a0, a1, a2, a3, a4, a5, a6};
	json_t *args = json_array();
	for (size_t i = 0; i < SW_ARRAY_SIZE(v) && v[i]; i++)
		json_array_append_new(args, json_string(v[i]));
	json_array_append_new(p->steps, json_pack("{s:s,s:o}", "label", label, "args", args));
}

static int make_plan(sw_ctx *ctx, sw_session *s, const char *options_json, plan *p, sw_error **err)
{
	memset(p, 0, sizeof(*p));
	int rc = sw__options_load(options_json, run_opts, "sw_ios_run options", &p->opts, err);
	if (rc < 0)
		return rc;
	const char *action = opt(p, "action");
	for (int i = 0; ACTIONS[i] && action; i++)
		if (!strcmp(ACTIONS[i], action))
			p->action = ACTIONS[i];
	if (!p->action)
		return bad(err, "Use one of list, boot, install, launch, terminate, openurl, logs, privacy_reset, erase",
		           "action must be list, boot, install, launch, terminate, openurl, logs, privacy_reset or erase");
	/* argument checks first: a bad argument never spawns anything */
	const char *a = p->action, *bid = opt(p, "bundleId"), *url = opt(p, "url"), *last = opt(p, "last"),
	           *service = opt(p, "service"), *app = opt(p, "app");
	if (bid && !valid_bundle_id(bid))
		return bad(err, "Pass the app's CFBundleIdentifier, e.g. com.example.app",
		           "bundleId must be a bundle identifier (letters, digits, '.', '-', '_'; at most 255)");
	if (!strcmp(a, "install") && !app)
		return bad(err, "Pass app: the path of the simulator .app bundle", "install needs app (a .app bundle)");
	if ((!strcmp(a, "terminate") || !strcmp(a, "launch")) && !bid && !app)
		return bad(err, "Pass bundleId (or app, whose Info.plist names it)", "launch and terminate need bundleId");
	if (!strcmp(a, "openurl") && (!url || !valid_url(url)))
		return bad(err, "Pass url with a scheme, e.g. myapp://home or https://example.com",
		           "openurl needs url: a URL with a scheme, without control characters, at most 4096 characters");
	if (last && !valid_last(last))
		return bad(err, "Use a number and a unit: 90s, 5m, 1h or 2d", "last must look like 5m, 30m, 1h or 90s");
	if (service && !valid_service(service))
		return bad(err, "Use a simctl privacy service: all, location, photos, camera, contacts, microphone...",
		           "service must be a simctl privacy service name (lowercase letters and '-')");
	if ((rc = sw_ios_check(ctx, err)) != SW_OK)
		return rc;
	if (app) {
		char *path = app[0] == '/' || !s ? sw__strdup(app) : sw__path_join(sw_session_root(s), app);
		rc = path ? sw__ios_app_check(path, &p->app, err) : sw__error_nomem(err);
		free(path);
		if (rc != SW_OK)
			return rc;
		if (s) {
			char *root = realpath(sw_session_root(s), NULL);
			const char *ap = json_string_value(json_object_get(p->app, "path"));
			size_t rl = root ? strlen(root) : 0;
			bool inside = root && ap && !strncmp(ap, root, rl) && ap[rl] == '/';
			json_object_set_new(p->app, "insideProjectRoot", json_boolean(inside));
			free(root);
		}
	}
	p->bid = bid ? bid : json_string_value(json_object_get(p->app, "bundleId"));
	if ((rc = sw__simctl_list(&p->list, err)) != SW_OK)
		return rc;
	p->steps = json_array();
	if (!strcmp(a, "list")) {
		step(p, "list", "list", "devices", "-j", NULL, NULL, NULL, NULL);
		return SW_OK;
	}
	char *bound = bound_udid(s);
	rc = sw__simctl_pick(p->list, opt(p, "device"), bound, !strcmp(a, "boot"), &p->sim, err);
	free(bound);
	if (rc != SW_OK)
		return rc;
	const char *udid = json_string_value(json_object_get(p->sim, "udid"));
	const char *state = json_string_value(json_object_get(p->sim, "state"));
	if (needs_booted(a) && strcmp(state, "Booted") != 0) {
		rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", NULL, "%s (%s) is %s, not Booted",
		                   json_string_value(json_object_get(p->sim, "name")), udid, state);
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:[s,s]}", "nextSteps", "qa_ios {action: \"boot\", device} boots it",
			                                       "qa_wait {for: \"simulator_booted\"} waits for a boot under way"));
		return rc;
	}
	if (!strcmp(a, "boot"))
		step(p, "boot", "boot", udid, NULL, NULL, NULL, NULL, NULL);
	else if (!strcmp(a, "erase")) {
		if (strcmp(state, "Shutdown") != 0)
			step(p, "shutdown", "shutdown", udid, NULL, NULL, NULL, NULL, NULL);
		step(p, "erase", "erase", udid, NULL, NULL, NULL, NULL, NULL);
	} else if (!strcmp(a, "install"))
		step(p, "install", "install", udid, json_string_value(json_object_get(p->app, "path")), NULL, NULL, NULL,
		     NULL);
	else if (!strcmp(a, "launch"))
		step(p, "launch", "launch", udid, p->bid, NULL, NULL, NULL, NULL);
	else if (!strcmp(a, "terminate"))
		step(p, "terminate", "terminate", udid, p->bid, NULL, NULL, NULL, NULL);
	else if (!strcmp(a, "openurl"))
		step(p, "openurl", "openurl", udid, url, NULL, NULL, NULL, NULL);
	else if (!strcmp(a, "logs"))
		step(p, "logs", "spawn", udid, "log", "show", "--style", "compact", "--last");
	else if (!strcmp(a, "privacy_reset"))
		step(p, "privacy_reset", "privacy", udid, "reset", service ? service : "all", p->bid, NULL, NULL);
	if (!strcmp(a, "logs")) /* the 8th argument */
		json_array_append_new(json_object_get(json_array_get(p->steps, 0), "args"), json_string(last ? last : "5m"));
	return SW_OK;
}

static json_t *plan_json(const plan *p)
{
	json_t *cmds = json_array();
	size_t i;
	json_t *st;
	json_array_foreach(p->steps, i, st)
	{
		json_t *argv = json_pack("[s,s]", "xcrun", "simctl");
		json_array_extend(argv, json_object_get(st, "args"));
		json_array_append_new(cmds, json_pack("{s:O,s:o}", "label", json_object_get(st, "label"), "argv", argv));
	}
	json_t *o = json_pack("{s:s,s:o}", "action", p->action, "commands", cmds);
	if (p->sim) {
		json_object_set(o, "udid", json_object_get(p->sim, "udid"));
		json_object_set(o, "name", json_object_get(p->sim, "name"));
		json_object_set(o, "runtime", json_object_get(p->sim, "runtime"));
		json_object_set(o, "state", json_object_get(p->sim, "state"));
	}
	if (p->app)
		json_object_set(o, "app", p->app);
	if (p->bid)
		json_object_set_new(o, "bundleId", json_string(p->bid));
	return o;
}

int sw_ios_plan(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	plan p;
	int rc = make_plan(ctx, s, options_json, &p, err);
	if (rc == SW_OK) {
		json_t *o = plan_json(&p);
		*out_json = o ? sw__json_compact(o) : NULL;
		json_decref(o);
		if (!*out_json)
			rc = sw__error_nomem(err);
	}
	plan_clear(&p);
	return rc;
}

/* ---- running ------------------------------------------------------------------------------ */

/* Runs step @i of @p; SW_OK with @res filled (any exit status). */
static int run_step(plan *p, size_t i, int timeout_ms, int (*abort_fn)(void *), void *ud, sw__proc_result *res,
                    sw_error **err)
{
	json_t *args = json_object_get(json_array_get(p->steps, i), "args");
	const char *v[12] = {0};
	for (size_t k = 0; k < json_array_size(args) && k < SW_ARRAY_SIZE(v) - 1; k++)
		v[k] = json_string_value(json_array_get(args, k));
	return sw__simctl(v, timeout_ms, abort_fn, ud, res, err);
}

static bool says(const sw__proc_result *r, const char *needle)
{
	return (r->err && strstr(r->err, needle)) || (r->out && strstr(r->out, needle));
}

/* Binds the session to the simulator: device {platform:"ios", serial, name, runtime}, driverKind "simctl". */
static void bind_session(sw_session *s, json_t *sim)
{
	if (!s)
		return;
	json_t *rec = json_pack("{s:s,s:O,s:O,s:O*}", "platform", "ios", "serial", json_object_get(sim, "udid"), "name",
	                        json_object_get(sim, "name"), "runtime", json_object_get(sim, "runtime"));
	json_t *kind = json_string("simctl");
	sw_drive_unbind(s);
	if (rec && kind) {
		sw__session_set(s, "device", rec, NULL);
		sw__session_set(s, "driverKind", kind, NULL);
	}
	json_decref(rec);
	json_decref(kind);
	/* a simulator without an attached WebDriverAgent is driven visual-only (qa_wda attach changes it) */
	json_t *url = NULL;
	bool wda = sw__session_get(s, "wdaUrl", &url, NULL) == SW_OK && json_is_string(url);
	json_decref(url);
	json_t *mode = json_string(wda ? "structured" : "visual-only");
	if (mode)
		sw__session_set(s, "mode", mode, NULL);
	json_decref(mode);
}

static long boot_wait_ms(const plan *p)
{
	long w = SW__IOS_BOOT_WAIT_MS;
	const char *env = getenv("SWIPIUM_IOS_BOOT_WAIT_MS");
	if (env && *env) {
		char *end = NULL;
		long v = strtol(env, &end, 10);
		if (end && !*end && v >= 0 && v < w)
			w = v;
	}
	json_t *o = json_object_get(p->opts, "bootWaitMs");
	if (json_is_integer(o) && json_integer_value(o) >= 0 && json_integer_value(o) < w)
		w = (long)json_integer_value(o);
	return w;
}

/* The simulator's state now (one list spawn). (transfer full) */
static char *state_of(const char *udid, sw_error **err)
{
	json_t *l = NULL;
	if (sw__simctl_list(&l, err) != SW_OK)
		return NULL;
	char *st = NULL;
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(l, "simulators"), i, d)
	{
		if (!strcmp(json_string_value(json_object_get(d, "udid")), udid))
			st = sw__strdup(json_string_value(json_object_get(d, "state")));
	}
	json_decref(l);
	if (!st)
		sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE", NULL, "The simulator %s disappeared from simctl's list", udid);
	return st;
}

static int do_boot(plan *p, sw_session *s, int (*abort_fn)(void *), void *ud, json_t *o, sw_error **err)
{
	const char *udid = json_string_value(json_object_get(p->sim, "udid"));
	const char *name = json_string_value(json_object_get(p->sim, "name"));
	int64_t t0 = sw_monotonic_ms();
	bool already = false;
	if (strcmp(json_string_value(json_object_get(p->sim, "state")), "Booted") == 0)
		already = true;
	else {
		sw__proc_result r;
		int rc = run_step(p, 0, SW__SIMCTL_BOOT_MS, abort_fn, ud, &r, err);
		if (rc != SW_OK)
			return rc;
		/* 149 "Unable to boot device in current state: Booted" (or Booting) is no failure */
		if (r.status != 0 && (says(&r, "current state: Booted") || says(&r, "current state: Booting")))
			already = says(&r, "current state: Booted");
		else if (r.status != 0) {
			rc = sw__simctl_fail("boot", &r, "SIMULATOR_BOOT_FAILED",
			                     "Shut the simulator down (or erase it) and boot it again", err);
			sw__proc_result_clear(&r);
			return rc;
		}
		sw__proc_result_clear(&r);
	}
	bind_session(s, p->sim);
	long wait = boot_wait_ms(p);
	char *state = already ? sw__strdup("Booted") : NULL;
	while (!state || strcmp(state, "Booted") != 0) {
		free(state);
		state = state_of(udid, err);
		if (!state)
			return SW_EIO;
		if (!strcmp(state, "Booted"))
			break;
		if (!strcmp(state, "Shutdown") && sw_monotonic_ms() - t0 > 2000) {
			int rc = sw__error_set(err, SW_EDEVICE, "SIMULATOR_BOOT_FAILED",
			                       "Read the simulator's log (qa_ios {action: \"logs\"} once booted) or erase it",
			                       "%s (%s) went back to Shutdown while booting", name, udid);
			free(state);
			return rc;
		}
		if (sw_monotonic_ms() - t0 >= wait)
			break;
		if (abort_fn && abort_fn(ud)) {
			free(state);
			return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "Waiting for the boot was cancelled");
		}
		sw__sleep_ms(300);
	}
	bool booted = !strcmp(state, "Booted");
	free(state);
	json_object_set_new(o, "status", json_string(booted ? "booted" : "booting"));
	json_object_set_new(o, "state", json_string(booted ? "Booted" : "Booting"));
	json_object_set_new(o, "alreadyBooted", json_boolean(already));
	json_object_set_new(o, "bound", json_boolean(s != NULL));
	json_object_set_new(o, "elapsedMs", json_integer(sw_monotonic_ms() - t0));
	if (!booted)
		json_object_set_new(o, "next", json_string("qa_wait {sessionId, for: \"simulator_booted\"} until it is "
		                                           "Booted"));
	return SW_OK;
}

static int do_logs(plan *p, sw_session *s, int (*abort_fn)(void *), void *ud, json_t *o, sw_error **err)
{
	sw__proc_result r;
	int rc = run_step(p, 0, SW__SIMCTL_LOG_MS, abort_fn, ud, &r, err);
	if (rc != SW_OK)
		return rc;
	if (r.status != 0) {
		rc = sw__simctl_fail("spawn log show", &r, "DEVICE_NOT_READY", NULL, err);
		sw__proc_result_clear(&r);
		return rc;
	}
	size_t lines = 0;
	for (size_t i = 0; i < r.out_len; i++)
		lines += r.out[i] == '\n';
	json_object_set_new(o, "lines", json_integer((json_int_t)lines));
	json_object_set_new(o, "bytes", json_integer((json_int_t)r.out_len));
	json_object_set_new(o, "last", json_string(opt(p, "last") ? opt(p, "last") : "5m"));
	if (r.truncated)
		json_object_set_new(o, "truncated",
		                    json_string("the log was longer than 16 MiB; the first 16 MiB were kept (ask for a "
		                                "shorter last)"));
	if (s) {
		char *name = NULL, *meta = NULL;
		rc = sw_artifact_next_name(s, "logs", "ios-log", ".txt", &name, err);
		if (rc == SW_OK)
			rc = sw_artifact_save(s, "logs", name, "text/plain", r.out, r.out_len, "iOS simulator log (log show)",
			                      &meta, err);
		free(name);
		if (rc == SW_OK) {
			json_t *m = json_loads(meta, 0, NULL);
			json_object_set(o, "logUri", json_object_get(m, "uri"));
			json_decref(m);
		}
		sw_free(meta);
	}
	sw__proc_result_clear(&r);
	return rc;
}

/* Runs the one-step actions; @fc the failure code of a non-zero exit. */
static int do_simple(plan *p, int timeout_ms, const char *fc, const char *hint, int (*abort_fn)(void *), void *ud,
                     sw__proc_result *keep, sw_error **err)
{
	sw__proc_result r;
	int rc = run_step(p, json_array_size(p->steps) - 1, timeout_ms, abort_fn, ud, &r, err);
	if (rc != SW_OK)
		return rc;
	if (r.status != 0) {
		const char *sub = json_string_value(json_object_get(json_array_get(p->steps, json_array_size(p->steps) - 1),
		                                                    "label"));
		rc = sw__simctl_fail(sub, &r, fc, hint, err);
		sw__proc_result_clear(&r);
		return rc;
	}
	if (keep)
		*keep = r;
	else
		sw__proc_result_clear(&r);
	return SW_OK;
}

int sw_ios_run(sw_ctx *ctx, sw_session *s, const char *options_json, int (*abort_fn)(void *ud), void *abort_ud,
               char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	plan p;
	int rc = make_plan(ctx, s, options_json, &p, err);
	if (rc != SW_OK) {
		plan_clear(&p);
		return rc;
	}
	json_t *o = json_pack("{s:s}", "action", p.action);
	const char *a = p.action;
	if (p.sim) {
		json_object_set(o, "udid", json_object_get(p.sim, "udid"));
		json_object_set(o, "name", json_object_get(p.sim, "name"));
		json_object_set(o, "runtime", json_object_get(p.sim, "runtime"));
	}
	if (!strcmp(a, "list")) {
		json_object_update(o, p.list);
		json_object_set_new(o, "count", json_integer((json_int_t)json_array_size(json_object_get(p.list, "simulators"))));
	} else if (!strcmp(a, "boot")) {
		rc = do_boot(&p, s, abort_fn, abort_ud, o, err);
	} else if (!strcmp(a, "erase")) {
		if (json_array_size(p.steps) == 2) {
			sw__proc_result r;
			rc = run_step(&p, 0, SW__SIMCTL_BOOT_MS, abort_fn, abort_ud, &r, err);
			if (rc == SW_OK && r.status != 0 && !says(&r, "current state: Shutdown"))
				rc = sw__simctl_fail("shutdown", &r, "DEVICE_NOT_READY", NULL, err);
			sw__proc_result_clear(&r);
		}
		if (rc == SW_OK)
			rc = do_simple(&p, SW__SIMCTL_BOOT_MS, "DEVICE_NOT_READY", "Shut the simulator down first, then erase it",
			               abort_fn, abort_ud, NULL, err);
		if (rc == SW_OK) {
			json_object_set_new(o, "erased", json_true());
			json_object_set(o, "wasState", json_object_get(p.sim, "state"));
			json_object_set_new(o, "state", json_string("Shutdown"));
		}
	} else if (!strcmp(a, "install")) {
		rc = do_simple(&p, SW__SIMCTL_INSTALL_MS, "INSTALL_FAILED",
		               "Rebuild the .app for the simulator and install it again", abort_fn, abort_ud, NULL, err);
		if (rc == SW_OK) {
			json_object_set_new(o, "installed", json_true());
			json_object_set(o, "app", p.app);
			json_object_set_new(o, "bundleId", json_string(p.bid));
		}
	} else if (!strcmp(a, "launch")) {
		sw__proc_result r;
		rc = run_step(&p, 0, SW__SIMCTL_LAUNCH_MS, abort_fn, abort_ud, &r, err);
		if (rc == SW_OK && r.status != 0) {
			bool unknown = says(&r, "unknown to FrontBoard") || says(&r, "not installed") ||
			               says(&r, "FBSOpenApplicationErrorDomain, code=4");
			rc = sw__simctl_fail("launch", &r, unknown ? "BUNDLE_ID_NOT_FOUND" : "APP_LAUNCH_FAILED",
			                     unknown ? "Install the app first: qa_ios {action: \"install\", app}" : NULL, err);
		} else if (rc == SW_OK) {
			json_object_set_new(o, "launched", json_true());
			json_object_set_new(o, "bundleId", json_string(p.bid));
			/* the first app launched becomes the session's app (qa_app_control, WDA sessions) */
			json_t *cur = NULL;
			if (s && sw__session_get(s, "appId", &cur, NULL) == SW_OK && !json_is_string(cur)) {
				json_t *v = json_string(p.bid);
				if (v)
					sw__session_set(s, "appId", v, NULL);
				json_decref(v);
				json_object_set_new(o, "sessionApp", json_true());
			}
			json_decref(cur);
			const char *colon = r.out ? strrchr(r.out, ':') : NULL;
			long pid = colon ? strtol(colon + 1, NULL, 10) : 0;
			if (pid > 0)
				json_object_set_new(o, "pid", json_integer(pid));
		}
		sw__proc_result_clear(&r);
	} else if (!strcmp(a, "terminate")) {
		sw__proc_result r;
		rc = run_step(&p, 0, SW__SIMCTL_QUICK_MS, abort_fn, abort_ud, &r, err);
		if (rc == SW_OK && r.status != 0 && !says(&r, "found nothing to terminate"))
			rc = sw__simctl_fail("terminate", &r, "DEVICE_NOT_READY", NULL, err);
		else if (rc == SW_OK) {
			json_object_set_new(o, "terminated", json_boolean(r.status == 0));
			json_object_set_new(o, "wasRunning", json_boolean(r.status == 0));
			json_object_set_new(o, "bundleId", json_string(p.bid));
		}
		sw__proc_result_clear(&r);
	} else if (!strcmp(a, "openurl")) {
		rc = do_simple(&p, SW__SIMCTL_QUICK_MS, "DEVICE_NOT_READY",
		               "Check that an installed app handles the URL's scheme", abort_fn, abort_ud, NULL, err);
		if (rc == SW_OK) {
			json_object_set_new(o, "opened", json_true());
			json_object_set_new(o, "url", json_string(opt(&p, "url")));
		}
	} else if (!strcmp(a, "logs")) {
		rc = do_logs(&p, s, abort_fn, abort_ud, o, err);
	} else if (!strcmp(a, "privacy_reset")) {
		rc = do_simple(&p, SW__SIMCTL_QUICK_MS, "DEVICE_NOT_READY", NULL, abort_fn, abort_ud, NULL, err);
		if (rc == SW_OK) {
			json_object_set_new(o, "reset", json_string(opt(&p, "service") ? opt(&p, "service") : "all"));
			json_object_set_new(o, "bundleId", p.bid ? json_string(p.bid) : json_null());
		}
	}
	if (rc == SW_OK) {
		*out_json = sw__json_compact(o);
		if (!*out_json)
			rc = sw__error_nomem(err);
	}
	json_decref(o);
	plan_clear(&p);
	return rc;
}

/* ---- waiting for a boot --------------------------------------------------------------------- */

int sw_ios_wait_booted(sw_ctx *ctx, sw_session *s, long timeout_ms, int (*abort_fn)(void *ud), void *abort_ud,
                       char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	int rc = sw_ios_check(ctx, err);
	if (rc != SW_OK)
		return rc;
	char *bound = bound_udid(s);
	int64_t t0 = sw_monotonic_ms();
	char *udid = NULL, *name = NULL, *state = NULL;
	for (;;) {
		json_t *l = NULL;
		if ((rc = sw__simctl_list(&l, err)) != SW_OK)
			break;
		json_t *pick = NULL, *d;
		size_t i, n = 0;
		json_array_foreach(json_object_get(l, "simulators"), i, d)
		{
			const char *u = json_string_value(json_object_get(d, "udid"));
			const char *st = json_string_value(json_object_get(d, "state"));
			if (bound ? !strcmp(u, bound) : (!strcmp(st, "Booting") || !strcmp(st, "Booted"))) {
				pick = d;
				n++;
			}
		}
		if (!pick || (!bound && n > 1)) {
			rc = sw__error_set(err, pick ? SW_EINVAL : SW_ENOTFOUND, pick ? "MULTIPLE_DEVICES" : "NO_DEVICE",
			                   "Boot one with qa_ios {action: \"boot\", device} (it binds it to the session), then wait",
			                   "%s", bound ? "The session's simulator is no longer listed by simctl"
			                                : (pick ? "Several simulators are booting or booted and the session has none bound"
			                                        : "No simulator is booting or booted"));
			json_decref(l);
			break;
		}
		free(udid);
		free(name);
		free(state);
		udid = sw__strdup(json_string_value(json_object_get(pick, "udid")));
		name = sw__strdup(json_string_value(json_object_get(pick, "name")));
		state = sw__strdup(json_string_value(json_object_get(pick, "state")));
		json_decref(l);
		if (state && !strcmp(state, "Booted"))
			break;
		if (sw_monotonic_ms() - t0 >= timeout_ms) {
			rc = sw__error_set(err, SW_ETIMEOUT, "SIMULATOR_BOOT_TIMEOUT",
			                   "Call qa_wait again, or shut the simulator down and boot it again if it stays stuck",
			                   "%s (%s) is still %s after %ld ms", name, udid, state, timeout_ms);
			if (err && *err)
				sw__error_take_details(*err, json_pack("{s:s,s:s,s:s,s:I}", "udid", udid, "name", name, "state",
				                                       state, "waitedMs", (json_int_t)(sw_monotonic_ms() - t0)));
			break;
		}
		bool stop = false;
		for (int k = 0; k < 10 && !stop; k++) {
			stop = abort_fn && abort_fn(abort_ud);
			if (!stop)
				sw__sleep_ms(50);
		}
		if (stop) {
			rc = sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_wait was cancelled");
			break;
		}
	}
	if (rc == SW_OK) {
		json_t *o = json_pack("{s:s,s:b,s:b,s:I,s:I,s:{s:s,s:s,s:s}}", "for", "simulator_booted", "satisfied", 1,
		                      "timedOut", 0, "waitedMs", (json_int_t)(sw_monotonic_ms() - t0), "timeoutMs",
		                      (json_int_t)timeout_ms, "state", "udid", udid, "name", name, "simulator", state);
		*out_json = o ? sw__json_compact(o) : NULL;
		json_decref(o);
		if (!*out_json)
			rc = sw__error_nomem(err);
	}
	free(bound);
	free(udid);
	free(name);
	free(state);
	return rc;
}

/* ---- qa_resolve_target {platform: "ios"} ----------------------------------------------------- */

static const sw__opt resolve_opts[] = {{"device", SW__OPT_STRING, true}, {"include", SW__OPT_STRING_ARRAY, true},
                                       {NULL}};

int sw_ios_resolve_target(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	json_t *opts = NULL;
	int rc = sw__options_load(options_json, resolve_opts, "sw_ios_resolve_target options", &opts, err);
	if (rc < 0)
		return rc;
	json_t *list = NULL;
	if ((rc = sw_ios_check(ctx, err)) != SW_OK || (rc = sw__simctl_list(&list, err)) != SW_OK) {
		json_decref(opts);
		return rc;
	}
	const char *device = json_string_value(json_object_get(opts, "device"));
	char *bound = bound_udid(s);
	json_t *sims = json_object_get(list, "simulators"), *sel = NULL, *d;
	size_t i;
	const char *reason = NULL;
	if (device || bound) {
		rc = sw__simctl_pick(list, device, bound, false, &sel, err);
		reason = device ? "the simulator named by device" : "the session's bound simulator";
	} else {
		json_array_foreach(sims, i, d)
		{
			if (!sel && json_is_true(json_object_get(d, "booted"))) {
				sel = d;
				reason = "a booted simulator is preferred";
			}
		}
		if (!sel && json_array_size(sims)) {
			sel = json_array_get(sims, 0);
			reason = "no simulator is booted: the first available one would be booted";
		}
		if (!sel)
			rc = sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE", "Create a simulator in Xcode (Window > Devices and "
			                                                   "Simulators) for an installed iOS runtime",
			                   "No available iOS simulator exists");
	}
	free(bound);
	if (rc != SW_OK) {
		json_decref(list);
		json_decref(opts);
		return rc;
	}
	bool booted = json_is_true(json_object_get(sel, "booted"));
	json_t *alts = json_array();
	json_array_foreach(sims, i, d)
	{
		if (d != sel)
			json_array_append_new(alts, json_pack("{s:O,s:O,s:O,s:O}", "udid", json_object_get(d, "udid"), "name",
			                                      json_object_get(d, "name"), "runtime", json_object_get(d, "runtime"),
			                                      "state", json_object_get(d, "state")));
	}
	json_t *pre = json_array();
	if (!booted)
		json_array_append_new(pre, json_string("boot the simulator (qa_ios {action: \"boot\", device}); nothing "
		                                       "was booted by this call"));
	json_t *o = json_pack("{s:s,s:{s:s,s:O,s:O,s:O,s:O},s:s,s:o,s:o,s:b}", "platform", "ios", "selected", "kind",
	                      "simulator", "udid", json_object_get(sel, "udid"), "name", json_object_get(sel, "name"),
	                      "runtime", json_object_get(sel, "runtime"), "state", json_object_get(sel, "state"), "reason",
	                      reason, "alternatives", alts, "preconditions", pre, "willBoot", !booted);
	json_t *inc = json_object_get(opts, "include");
	json_t *v;
	json_array_foreach(inc, i, v)
	{
		if (!strcmp(json_string_value(v), "context")) {
			json_t *ctxo = json_pack("{s:O,s:O,s:O}", "iosBooted", json_object_get(list, "booted"), "iosAvailable",
			                         sims, "iosOmitted", json_object_get(list, "omitted"));
			json_object_set_new(o, "context", ctxo);
		}
	}
	json_decref(list);
	json_decref(opts);
	*out_json = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}
