/* wda-tool.c: qa_wda's library side: the URL rule (loopback, or an approved remote), status, doctor,
 * diagnose, tune, attach (binds WebDriverAgent to the session), logs and stop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ios-internal.h"
#include <swipium/actions.h>

static const sw__opt wda_opts[] = {{"action", SW__OPT_STRING, false},
                                   {"webDriverAgentUrl", SW__OPT_STRING, true},
                                   {"device", SW__OPT_STRING, true},
                                   {"udid", SW__OPT_STRING, true},
                                   {"bundleId", SW__OPT_STRING, true},
                                   {"wdaProjectPath", SW__OPT_STRING, true},
                                   {"derivedDataPath", SW__OPT_STRING, true},
                                   {"scheme", SW__OPT_STRING, true},
                                   {"allowNonLoopback", SW__OPT_BOOL, true},
                                   {"nonLoopbackApproved", SW__OPT_BOOL, true},
                                   {NULL}};

static const char *const ACTIONS[] = {"status", "doctor",   "build", "start", "stop",
                                      "attach", "diagnose", "logs",  "tune",  NULL};

static char *session_str(sw_session *s, const char *key)
{
	json_t *v = NULL;
	if (!s || sw__session_get(s, key, &v, NULL) < 0)
		return NULL;
	char *r = json_is_string(v) ? sw__strdup(json_string_value(v)) : NULL;
	json_decref(v);
	return r;
}

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

static json_t *find_project(const char *given);

/* The URL qa_wda works on: the argument, else the session's attached one, else the default. (transfer full) */
static char *pick_url(sw_session *s, json_t *opts)
{
	const char *u = json_string_value(json_object_get(opts, "webDriverAgentUrl"));
	if (u)
		return sw__strdup(u);
	char *att = session_str(s, "wdaUrl");
	if (att)
		return att;
	json_t *cfg = sw__wda_setting(s, "url"); /* ios.wda.url in .swipium/config.json */
	char *r =
	    sw__strdup(json_is_string(cfg) && *json_string_value(cfg) ? json_string_value(cfg) : SW__WDA_DEFAULT_URL);
	json_decref(cfg);
	return r;
}

static int wda_port_of(const char *base)
{
	const char *h = base ? strstr(base, "://") : NULL;
	h = h ? h + 3 : base;
	const char *c = h ? strrchr(h, ':') : NULL;
	if (c && h[0] == '[' && strchr(c, ']'))
		c = NULL;
	return c ? atoi(c + 1) : 80;
}

/* build / start: the simulator, the project and the whole xcodebuild command, into @o {udid, project, command,
 * commandLine}; nothing runs. NO_DEVICE, NO_ARTIFACT (no WebDriverAgent project), BACKEND_UNSUPPORTED. */
static int build_plan(sw_ctx *ctx, sw_session *s, json_t *opts, const char *action, json_t *o, sw_error **err)
{
	int rc = sw_ios_check(ctx, err);
	if (rc != SW_OK)
		return rc;
	char *xb = sw__which("xcodebuild");
	if (!xb)
		return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED",
		                     "Install Xcode (not only the Command Line Tools) and select it with xcode-select",
		                     "xcodebuild is not on PATH: WebDriverAgent cannot be %s here",
		                     !strcmp(action, "build") ? "built" : "started");
	free(xb);
	if (!strcmp(action, "start") && !json_is_true(json_object_get(o, "loopback")))
		return sw__error_set(
		    err, SW_EINVAL, "INVALID_ARGUMENT",
		    "Pass a loopback webDriverAgentUrl (http://127.0.0.1:<port>): the runner starts on this "
		    "machine",
		    "qa_wda start runs WebDriverAgent here, so its URL must be loopback, not %s",
		    json_string_value(json_object_get(o, "url")));
	const char *dev = json_string_value(json_object_get(opts, "device"));
	if (!dev)
		dev = json_string_value(json_object_get(opts, "udid"));
	char *bound = bound_udid(s);
	if (!dev && !bound)
		return sw__error_set(err, SW_ENOTFOUND, "NO_DEVICE",
		                     "Boot a simulator with qa_ios {action: \"boot\"}, or pass device (its UDID)",
		                     "qa_wda %s needs a simulator UDID: none was given and the session has none bound",
		                     action);
	json_t *list = NULL, *sim = NULL;
	rc = sw__simctl_list(&list, err);
	if (rc == SW_OK)
		rc = sw__simctl_pick(list, dev ? dev : bound, NULL, false, &sim, err);
	if (rc == SW_OK && bound && dev && strcasecmp(json_string_value(json_object_get(sim, "udid")), bound) != 0)
		rc = sw__error_set(err, SW_ESTATE, "STALE_WDA_DEVICE",
		                   "Use the session's simulator, or start another session for the other one",
		                   "The session is bound to %s but qa_wda %s names %s", bound, action,
		                   json_string_value(json_object_get(sim, "udid")));
	free(bound);
	if (rc != SW_OK) {
		json_decref(list);
		return rc;
	}
	json_object_set(o, "udid", json_object_get(sim, "udid"));
	json_t *proj = find_project(json_string_value(json_object_get(opts, "wdaProjectPath")));
	const char *path = json_string_value(json_object_get(proj, "path"));
	if (!path) {
		rc = sw__error_set(
		    err, SW_ENOTFOUND, "NO_ARTIFACT",
		    "Install Appium's XCUITest driver (appium driver install xcuitest), or pass wdaProjectPath "
		    "(the WebDriverAgent.xcodeproj directory)",
		    "No WebDriverAgent project was found (%zu places searched)",
		    json_array_size(json_object_get(proj, "searched")));
		if (*err)
			sw__error_take_details(*err, json_pack("{s:O}", "searched", json_object_get(proj, "searched")));
		json_decref(proj);
		json_decref(list);
		return rc;
	}
	json_t *argv = sw__wda_xcodebuild_argv(
	    path, json_string_value(json_object_get(opts, "scheme")), json_string_value(json_object_get(sim, "udid")),
	    json_string_value(json_object_get(opts, "derivedDataPath")),
	    !strcmp(action, "build") ? "build-for-testing" : "test-without-building");
	json_object_set_new(o, "project", json_string(path));
	json_decref(proj);
	json_decref(list);
	if (!argv)
		return sw__error_nomem(err);
	sw_buf line = SW_BUF_INIT;
	size_t i;
	json_t *v;
	if (!strcmp(action, "start"))
		sw__buf_printf(&line, "USE_PORT=%d ", wda_port_of(json_string_value(json_object_get(o, "url"))));
	json_array_foreach(argv, i, v)
	{
		const char *a = json_string_value(v);
		bool quote = strpbrk(a, " \t'\"$") != NULL;
		sw__buf_printf(&line, "%s%s%s%s", i ? " " : "", quote ? "'" : "", a, quote ? "'" : "");
	}
	json_object_set_new(o, "command", argv);
	json_object_set_new(o, "commandLine", json_string(line.data ? line.data : ""));
	sw__buf_free(&line);
	return SW_OK;
}

int sw_ios_wda_plan(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err)
{
	json_t *opts = NULL;
	int rc = sw__options_load(options_json, wda_opts, "qa_wda options", &opts, err);
	if (rc < 0)
		return rc;
	/* every action is iOS: without a working xcrun simctl each one is BACKEND_UNSUPPORTED naming it */
	if ((rc = sw_ios_check(ctx, err)) != SW_OK) {
		json_decref(opts);
		return rc;
	}
	sw__wda_adopt(ctx, s); /* once per server: what an earlier server left running */
	const char *action = json_string_value(json_object_get(opts, "action"));
	bool known = false;
	for (int i = 0; ACTIONS[i] && action; i++)
		known = known || !strcmp(ACTIONS[i], action);
	if (!known) {
		json_decref(opts);
		return sw__error_set(
		    err, SW_EINVAL, "INVALID_ARGUMENT", "Use status, doctor, attach, diagnose, logs, tune or stop",
		    "action must be status, doctor, build, start, stop, attach, diagnose, logs or tune");
	}
	char *url = pick_url(s, opts), *base = NULL;
	bool loopback = false;
	rc = url ? sw__wda_url_parse(url, &base, &loopback, err) : sw__error_nomem(err);
	free(url);
	if (rc != SW_OK) {
		json_decref(opts);
		return rc;
	}
	bool allowed = loopback || sw__wda_remote_allowed(base);
	bool asks = !allowed && json_is_true(json_object_get(opts, "allowNonLoopback"));
	json_t *o = json_pack("{s:s,s:s,s:b,s:b,s:b}", "action", action, "url", base, "loopback", loopback,
	                      "remoteAllowedByEnv", !loopback && allowed, "needsNonLoopbackConsent", asks);
	free(base);
	if (!o) {
		json_decref(opts);
		return sw__error_nomem(err);
	}
	if (!strcmp(action, "build") || !strcmp(action, "start")) {
		rc = build_plan(ctx, s, opts, action, o, err);
		if (rc != SW_OK) {
			json_decref(o);
			json_decref(opts);
			return rc;
		}
	}
	json_decref(opts);
	if (!allowed && !asks) {
		rc = sw__error_set(
		    err, SW_EDENIED, "DESTRUCTIVE_REFUSED",
		    "Use a loopback URL (http://127.0.0.1:8100), or pass allowNonLoopback:true and approve the "
		    "wda_non_loopback consent, or list the exact URL in SWIPIUM_ALLOW_REMOTE_WDA",
		    "%s is not a loopback address; no request was sent to it",
		    json_string_value(json_object_get(o, "url")));
		json_t *listed = sw__wda_setting(s, "allowNonLoopbackUrls");
		if (*err && listed)
			sw__error_take_details(
			    *err,
			    json_pack("{s:s}", "allowNonLoopbackUrls",
			              "ios.wda.allowNonLoopbackUrls in .swipium/config.json never approves a URL: only "
			              "SWIPIUM_ALLOW_REMOTE_WDA in the server's environment does"));
		json_decref(listed);
		json_decref(o);
		return rc;
	}
	*out_json = sw__json_compact(o);
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* ---- actions ------------------------------------------------------------------------------ */

static json_t *status_of(const char *base, bool *ready)
{
	json_t *v = NULL;
	sw_error *e = NULL;
	*ready = false;
	int64_t t0 = sw_monotonic_ms();
	if (sw__wda_status(base, SW__WDA_STATUS_MS, &v, &e) != SW_OK) {
		json_t *o = json_pack("{s:s,s:b,s:b,s:s,s:s}", "url", base, "reachable", 0, "ready", 0, "failureCode",
		                      sw_error_failure_code(e), "why", sw_error_message(e));
		sw_error_free(e);
		return o;
	}
	*ready = json_is_true(json_object_get(v, "ready"));
	json_t *os = json_object_get(v, "os");
	json_t *o = json_pack("{s:s,s:b,s:b,s:O*,s:O*,s:O*,s:O*,s:I}", "url", base, "reachable", 1, "ready", *ready,
	                      "message", json_object_get(v, "message"), "osVersion", json_object_get(os, "version"),
	                      "build", json_object_get(v, "build"), "device", json_object_get(v, "device"), "latencyMs",
	                      (json_int_t)(sw_monotonic_ms() - t0));
	json_decref(v);
	return o;
}

/* The WebDriverAgent project qa_wda would build: wdaProjectPath, else Appium's copy. (transfer full, nullable) */
static json_t *find_project(const char *given)
{
	json_t *tried = json_array();
	char *found = NULL;
	const char *rel =
	    "node_modules/appium-xcuitest-driver/node_modules/appium-webdriveragent/WebDriverAgent.xcodeproj";
	const char *ahome = getenv("APPIUM_HOME"), *home = getenv("HOME");
	char *cands[5] = {0};
	size_t n = 0;
	if (given)
		cands[n++] = sw__strdup(given);
	else {
		if (ahome && *ahome)
			cands[n++] = sw__asprintf("%s/%s", ahome, rel);
		if (home && *home)
			cands[n++] = sw__asprintf("%s/.appium/%s", home, rel);
		cands[n++] = sw__asprintf("/usr/local/lib/%s", rel);
		cands[n++] = sw__asprintf("/opt/homebrew/lib/%s", rel);
	}
	for (size_t i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		json_array_append_new(tried, json_string(cands[i]));
		if (!found && sw__is_dir(cands[i]))
			found = sw__strdup(cands[i]);
		free(cands[i]);
	}
	json_t *o = json_pack("{s:s?,s:o}", "path", found, "searched", tried);
	free(found);
	return o;
}

static int do_attach(sw_ctx *ctx, sw_session *s, json_t *opts, const char *base, json_t *o, sw_error **err)
{
	const char *dev = json_string_value(json_object_get(opts, "device"));
	if (!dev)
		dev = json_string_value(json_object_get(opts, "udid"));
	char *bound = bound_udid(s);
	if (!dev && !bound)
		return sw__error_set(
		    err, SW_EINVAL, "MULTIPLE_DEVICES",
		    "Pass device (the simulator's UDID), or boot one with qa_ios {action: \"boot\"} first",
		    "qa_wda attach needs to know which simulator WebDriverAgent drives: no device was given "
		    "and the session has none bound");
	json_t *list = NULL, *sim = NULL;
	int rc = sw_ios_check(ctx, err);
	if (rc == SW_OK)
		rc = sw__simctl_list(&list, err);
	if (rc == SW_OK)
		rc = sw__simctl_pick(list, dev ? dev : bound, NULL, false, &sim, err);
	if (rc == SW_OK && bound && dev && strcasecmp(json_string_value(json_object_get(sim, "udid")), bound) != 0)
		rc = sw__error_set(
		    err, SW_ESTATE, "STALE_WDA_DEVICE",
		    "Attach to the session's simulator, or boot the other one with qa_ios {action: \"boot\"} "
		    "first",
		    "The session is bound to %s but attach names %s", bound,
		    json_string_value(json_object_get(sim, "udid")));
	json_t *mg = rc == SW_OK ? sw__wda_managed_at(s, base) : NULL;
	const char *mu = json_string_value(json_object_get(mg, "udid"));
	if (mu && *mu && strcasecmp(mu, json_string_value(json_object_get(sim, "udid"))) != 0) {
		/* a managed runner of another simulator answers there: its elements would be another device's */
		rc = sw__error_set(err, SW_ESTATE, "STALE_WDA_DEVICE",
		                   "Attach to the WebDriverAgent of this simulator (start one with qa_wda {action: "
		                   "\"start\"} on another port), or pass device: the simulator this one drives",
		                   "%s is the managed WebDriverAgent of simulator %s (pid %d), not of %s", base, mu,
		                   (int)json_integer_value(json_object_get(mg, "pid")),
		                   json_string_value(json_object_get(sim, "udid")));
		if (*err)
			sw__error_take_details(*err, json_pack("{s:s,s:s,s:O}", "url", base, "wdaDevice", mu,
			                                       "managedPid", json_object_get(mg, "pid")));
	}
	json_decref(mg);
	if (rc != SW_OK) {
		free(bound);
		json_decref(list);
		return rc;
	}
	bool ready = false;
	json_t *st = status_of(base, &ready);
	if (!ready) {
		rc = sw__error_set(err, SW_EDEVICE, "WDA_UNREACHABLE",
		                   "Start WebDriverAgent for this simulator (xcodebuild test-without-building with "
		                   "USE_PORT), then attach again",
		                   "WebDriverAgent at %s is not ready: %s", base,
		                   json_string_value(json_object_get(st, "why"))
		                       ? json_string_value(json_object_get(st, "why"))
		                       : "its /status says ready:false");
		json_decref(st);
		free(bound);
		json_decref(list);
		return rc;
	}
	char *app = session_str(s, "appId");
	const char *bid = json_string_value(json_object_get(opts, "bundleId"));
	sw__wda *w = sw__wda_new(base, NULL, bid ? bid : app);
	json_t *caps = sw__wda_setting(s, "capabilities"); /* ios.wda.capabilities: merged into alwaysMatch */
	if (w && json_is_object(caps))
		w->extra_caps = json_incref(caps);
	json_decref(caps);
	rc = w ? sw__wda_session_new(w, false, err) : sw__error_nomem(err);
	if (rc == SW_OK) {
		json_t *url = json_string(base), *mode = json_string("structured");
		sw_drive_unbind(s);
		if (url && mode) {
			sw__session_set(s, "wdaUrl", url, NULL);
			sw__session_set(s, "mode", mode, NULL);
		}
		json_decref(url);
		json_decref(mode);
		if (!bound) {
			json_t *rec =
			    json_pack("{s:s,s:O,s:O,s:O*}", "platform", "ios", "serial", json_object_get(sim, "udid"),
			              "name", json_object_get(sim, "name"), "runtime", json_object_get(sim, "runtime"));
			json_t *kind = json_string("simctl");
			if (rec && kind) {
				sw__session_set(s, "device", rec, NULL);
				sw__session_set(s, "driverKind", kind, NULL);
			}
			json_decref(rec);
			json_decref(kind);
		}
		sw__wda_managed_ready(s, base); /* the session's own runner, if that is what answered */
		/* on disk now (not after the save debounce): a server killed next still leaves the binding */
		(void)sw_session_flush(s, NULL);
		json_object_set_new(o, "attached", json_true());
		json_object_set_new(o, "mode", json_string("structured"));
		json_object_set(o, "udid", json_object_get(sim, "udid"));
		json_object_set(o, "name", json_object_get(sim, "name"));
		json_object_set_new(o, "bundleId", bid || app ? json_string(bid ? bid : app) : json_null());
		json_object_set_new(o, "wdaSessionId", json_string(w->sid));
		json_object_set(o, "status", st);
	}
	json_decref(st);
	sw__wda_free(w);
	free(app);
	free(bound);
	json_decref(list);
	return rc;
}

int sw_ios_wda_run(sw_ctx *ctx, sw_session *s, const char *options_json, char **out_json, sw_error **err)
{
	char *pj = NULL;
	int rc = sw_ios_wda_plan(ctx, s, options_json, &pj, err);
	if (rc != SW_OK)
		return rc;
	json_t *plan = json_loads(pj, 0, NULL);
	free(pj);
	json_t *opts = json_loads(options_json ? options_json : "{}", 0, NULL);
	const char *action = json_string_value(json_object_get(plan, "action"));
	const char *base = json_string_value(json_object_get(plan, "url"));
	if (json_is_true(json_object_get(plan, "needsNonLoopbackConsent")) &&
	    !json_is_true(json_object_get(opts, "nonLoopbackApproved"))) {
		rc = sw__error_set(err, SW_EDENIED, "DESTRUCTIVE_REFUSED", "Approve the wda_non_loopback consent",
		                   "%s is not a loopback address and its use was not approved; no request was sent",
		                   base);
		goto out;
	}
	json_t *o =
	    json_pack("{s:s,s:s,s:O}", "action", action, "url", base, "loopback", json_object_get(plan, "loopback"));
	char *attached = session_str(s, "wdaUrl");
	json_object_set_new(o, "attached", json_boolean(attached && !strcmp(attached, base)));
	bool ready = false;
	if (!strcmp(action, "status")) {
		json_object_set_new(o, "status", status_of(base, &ready));
		json_t *mg = sw__wda_managed_at(s, base); /* started, or adopted after a restart, by a server */
		json_object_set_new(o, "managed", mg ? mg : json_false());
	} else if (!strcmp(action, "doctor")) {
		if ((rc = sw_ios_check(ctx, err)) == SW_OK) {
			char *tc = NULL;
			if (sw_ios_toolchain(ctx, &tc, NULL) == SW_OK) {
				json_object_set_new(o, "toolchain", json_loads(tc, 0, NULL));
				sw_free(tc);
			}
			json_object_set_new(o, "status", status_of(base, &ready));
			json_object_set_new(o, "wdaProject",
			                    find_project(json_string_value(json_object_get(opts, "wdaProjectPath"))));
		}
	} else if (!strcmp(action, "diagnose") || !strcmp(action, "tune")) {
		json_object_set_new(o, "status", status_of(base, &ready));
		json_t *rec = json_array();
		if (!ready)
			json_array_append_new(rec,
			                      json_string("WebDriverAgent is not ready at this URL: start it for the "
			                                  "simulator and attach"));
		else if (!strcmp(action, "diagnose")) {
			char *app = session_str(s, "appId");
			sw__wda *w = sw__wda_new(base, NULL, app);
			sw_error *e = NULL;
			int64_t t0 = sw_monotonic_ms();
			char *xml = NULL;
			size_t len = 0;
			int src = w ? sw__wda_source(w, 0, &xml, &len, &e) : SW_ENOMEM;
			json_object_set_new(o, "source",
			                    src == SW_OK ? json_pack("{s:b,s:I,s:I}", "ok", 1, "bytes", (json_int_t)len,
			                                             "ms", (json_int_t)(sw_monotonic_ms() - t0))
			                                 : json_pack("{s:b,s:s?,s:s?}", "ok", 0, "failureCode",
			                                             e ? sw_error_failure_code(e) : NULL, "why",
			                                             e ? sw_error_message(e) : NULL));
			if (src != SW_OK)
				json_array_append_new(rec, json_string("The source could not be read: see source.why"));
			free(xml);
			sw_error_free(e);
			sw__wda_free(w);
			free(app);
		} else {
			/* tune reports; it changes no WebDriverAgent setting */
			json_array_append_new(
			    rec, json_string("snapshotMaxDepth 50 keeps deep React Native trees readable"));
			json_array_append_new(
			    rec, json_string("waitForIdleTimeout 0 stops WebDriverAgent waiting on animated "
			                     "screens (WDA_APP_NOT_IDLE)"));
			json_object_set_new(o, "applied", json_false());
		}
		json_object_set_new(o, "recommendations", rec);
	} else if (!strcmp(action, "attach")) {
		rc = do_attach(ctx, s, opts, base, o, err);
	} else if (!strcmp(action, "logs") || !strcmp(action, "stop")) {
		json_t *m =
		    !strcmp(action, "stop")
		        ? sw__wda_managed_stop_url(s, json_string_value(json_object_get(opts, "webDriverAgentUrl")))
		        : sw__wda_managed_logs(s);
		if (m) {
			json_object_update(o, m);
			const char *mu = json_string_value(json_object_get(m, "url"));
			if (!strcmp(action, "stop") && attached && mu && !strcmp(attached, mu)) {
				/* the attached WebDriverAgent is gone: the session is visual-only again */
				json_t *mode = json_string("visual-only");
				sw_drive_unbind(s);
				sw__session_set(s, "wdaUrl", json_null(), NULL);
				if (mode)
					sw__session_set(s, "mode", mode, NULL);
				json_decref(mode);
				(void)sw_session_flush(s, NULL);
				json_object_set_new(o, "attached", json_false());
				json_object_set_new(o, "mode", json_string("visual-only"));
			}
			json_decref(m);
		} else {
			/* never signal a WebDriverAgent this server did not start */
			json_object_set_new(o, "managed", json_false());
			json_object_set_new(o, !strcmp(action, "stop") ? "stopped" : "logUri",
			                    !strcmp(action, "stop") ? json_false() : json_null());
			json_object_set_new(o, "reason",
			                    json_string("no WebDriverAgent was started by this server for the "
			                                "session; one you started yourself keeps running"));
		}
	} else if (!strcmp(action, "build")) {
		/* a background job: xcodebuild may take minutes (killed after 10); qa_job_cancel stops its group */
		json_object_set(o, "udid", json_object_get(plan, "udid"));
		json_object_set(o, "command", json_object_get(plan, "command"));
		json_object_set(o, "commandLine", json_object_get(plan, "commandLine"));
		json_t *base0 =
		    json_pack("{s:s,s:O,s:O,s:O}", "action", "build", "udid", json_object_get(plan, "udid"), "project",
		              json_object_get(plan, "project"), "command", json_object_get(plan, "command"));
		char *jid = NULL;
		rc = base0 ? sw__wda_build_job(s, json_object_get(plan, "command"), base0, &jid, err)
		           : sw__error_nomem(err);
		json_decref(base0);
		if (rc == SW_OK) {
			json_object_set_new(o, "jobId", json_string(jid));
			json_object_set_new(o, "kind", json_string("wda_build"));
			json_object_set_new(o, "status", json_string("running"));
			json_object_set_new(o, "reason",
			                    json_string("xcodebuild build-for-testing runs as a background job"));
		}
		sw_free(jid);
	} else { /* start: run it, wait for /status, attach */
		json_object_set(o, "udid", json_object_get(plan, "udid"));
		json_object_set(o, "command", json_object_get(plan, "command"));
		rc = sw__wda_managed_start(ctx, s, json_object_get(plan, "command"), base, o, err);
		if (rc == SW_OK && !strcmp(json_string_value(json_object_get(o, "status")), "ready")) {
			json_t *ao = json_object();
			json_t *aopts = json_pack("{s:O,s:O*}", "device", json_object_get(plan, "udid"), "bundleId",
			                          json_object_get(opts, "bundleId"));
			rc = ao && aopts ? do_attach(ctx, s, aopts, base, ao, err) : sw__error_nomem(err);
			if (rc == SW_OK) {
				json_object_set(o, "attached", json_object_get(ao, "attached"));
				json_object_set(o, "mode", json_object_get(ao, "mode"));
				json_object_set(o, "wdaSessionId", json_object_get(ao, "wdaSessionId"));
				json_object_set(o, "name", json_object_get(ao, "name"));
			} else
				json_decref(sw__wda_managed_stop(s)); /* nothing half-started stays behind */
			json_decref(ao);
			json_decref(aopts);
		}
	}
	free(attached);
	if (rc == SW_OK) {
		*out_json = sw__json_compact(o);
		if (!*out_json)
			rc = sw__error_nomem(err);
	}
	json_decref(o);
out:
	json_decref(plan);
	json_decref(opts);
	return rc;
}

int sw_ios_wait_wda(sw_ctx *ctx, sw_session *s, long timeout_ms, int (*abort_fn)(void *ud), void *abort_ud,
                    char **out_json, sw_error **err)
{
	int rc = sw_ios_check(ctx, err);
	if (rc != SW_OK)
		return rc;
	sw__wda_adopt(ctx, s);
	char *url = session_str(s, "wdaUrl"), *base = NULL;
	if (!url)
		url = sw__wda_managed_url(s); /* the one qa_wda start left starting */
	if (!url) {
		json_t *cfg = sw__wda_setting(s, "url"); /* then ios.wda.url */
		url = json_is_string(cfg) ? sw__strdup(json_string_value(cfg)) : NULL;
		json_decref(cfg);
	}
	bool loopback = false;
	rc = sw__wda_url_parse(url ? url : SW__WDA_DEFAULT_URL, &base, &loopback, err);
	free(url);
	if (rc != SW_OK)
		return rc;
	if (!loopback && !sw__wda_remote_allowed(base)) {
		rc =
		    sw__error_set(err, SW_EDENIED, "DESTRUCTIVE_REFUSED", "Attach it with qa_wda and its consent first",
		                  "%s is not a loopback address; qa_wait does not contact it", base);
		free(base);
		return rc;
	}
	int64_t t0 = sw_monotonic_ms();
	json_t *st = NULL;
	bool ready = false;
	for (;;) {
		json_decref(st);
		st = status_of(base, &ready);
		if (ready || sw_monotonic_ms() - t0 >= timeout_ms)
			break;
		if (abort_fn && abort_fn(abort_ud)) {
			json_decref(st);
			free(base);
			return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "qa_wait was cancelled");
		}
		sw__sleep_ms(250);
	}
	if (ready)
		sw__wda_managed_ready(s, base);
	json_t *o = json_pack("{s:s,s:b,s:b,s:I,s:I,s:s,s:o}", "for", "wda_ready", "satisfied", ready, "timedOut",
	                      !ready, "waitedMs", (json_int_t)(sw_monotonic_ms() - t0), "timeoutMs",
	                      (json_int_t)timeout_ms, "url", base, "state", st);
	free(base);
	*out_json = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}
