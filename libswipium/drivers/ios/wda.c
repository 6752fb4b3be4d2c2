/* wda.c: the WebDriverAgent client: the loopback rule, one JSON request with WDA's envelope and W3C
 * errors, sessions (recreated once on "invalid session id"), and the source. HTTP goes through the
 * core's libcurl, loaded on first use. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ios-internal.h"

/* ---- the loopback rule -------------------------------------------------------------------- */

static bool dotted_loopback(const char *h, size_t n)
{
	int parts = 0;
	long first = -1;
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		long v = 0;
		while (j < n && isdigit((unsigned char)h[j]) && j - i < 4)
			v = v * 10 + (h[j++] - '0');
		if (j == i || v > 255 || (j < n && h[j] != '.'))
			return false;
		if (parts == 0)
			first = v;
		parts++;
		i = j < n ? j + 1 : j;
		if (j < n && j + 1 == n)
			return false; /* a trailing dot */
	}
	return parts == 4 && first == 127;
}

int sw__wda_url_parse(const char *url, char **base_out, bool *loopback, sw_error **err)
{
	const char *p = url;
	size_t sl = 0;
	if (p && !strncasecmp(p, "http://", 7))
		sl = 7;
	else if (p && !strncasecmp(p, "https://", 8))
		sl = 8;
	size_t ulen = p ? strlen(p) : 0;
	if (!sl || ulen > 2048)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass webDriverAgentUrl like http://127.0.0.1:8100",
		                     "webDriverAgentUrl must be an http:// or https:// URL of at most 2048 characters");
	for (const unsigned char *c = (const unsigned char *)p; *c; c++)
		if (*c <= 0x20 || *c == 0x7f)
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass webDriverAgentUrl like http://127.0.0.1:8100",
			                     "webDriverAgentUrl must not contain spaces or control characters");
	const char *auth = p + sl;
	size_t alen = strcspn(auth, "/?#");
	bool userinfo = memchr(auth, '@', alen) != NULL;
	const char *host = auth;
	size_t hlen;
	if (alen && host[0] == '[') {
		const char *close = memchr(host, ']', alen);
		hlen = close ? (size_t)(close - host) + 1 : alen;
	} else
		hlen = strcspn(host, ":/?#");
	if (hlen > alen)
		hlen = alen;
	const char *rest = host + hlen;
	if (!hlen || (rest < auth + alen && (*rest != ':' || strspn(rest + 1, "0123456789") != (size_t)(auth + alen - rest - 1) ||
	                                     auth + alen - rest - 1 == 0 || auth + alen - rest - 1 > 5)))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass webDriverAgentUrl like http://127.0.0.1:8100",
		                     "webDriverAgentUrl has no usable host[:port]");
	bool lo = false;
	if (!userinfo) {
		if (hlen == 9 && !strncasecmp(host, "localhost", 9))
			lo = true;
		else if (hlen == 5 && !memcmp(host, "[::1]", 5))
			lo = true;
		else
			lo = dotted_loopback(host, hlen);
	}
	/* the base: scheme://authority + path, without a trailing '/', query or fragment */
	size_t plen = strcspn(auth + alen, "?#");
	size_t blen = sl + alen + plen;
	while (blen > sl + alen && p[blen - 1] == '/')
		blen--;
	if (base_out) {
		*base_out = sw__strndup(p, blen);
		if (!*base_out)
			return sw__error_nomem(err);
	}
	if (loopback)
		*loopback = lo;
	return SW_OK;
}

bool sw__wda_remote_allowed(const char *base)
{
	const char *env = getenv("SWIPIUM_ALLOW_REMOTE_WDA");
	if (!env || !*env || !base)
		return false;
	size_t bl = strlen(base);
	const char *p = env;
	while (*p) {
		size_t n = strcspn(p, ",");
		const char *s = p;
		size_t m = n;
		while (m && (*s == ' ' || *s == '\t')) {
			s++;
			m--;
		}
		while (m && (s[m - 1] == ' ' || s[m - 1] == '\t' || s[m - 1] == '/'))
			m--;
		if (m == bl && !strncmp(s, base, m))
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

/* ---- requests ------------------------------------------------------------------------------ */

sw__wda *sw__wda_new(const char *base, const char *sid, const char *bundle_id)
{
	sw__wda *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->base = sw__strdup(base);
	w->sid = sid ? sw__strdup(sid) : NULL;
	w->bundle_id = bundle_id ? sw__strdup(bundle_id) : NULL;
	w->warnings = json_array();
	if (!w->base || !w->warnings || (sid && !w->sid) || (bundle_id && !w->bundle_id)) {
		sw__wda_free(w);
		return NULL;
	}
	return w;
}

void sw__wda_free(sw__wda *w)
{
	if (!w)
		return;
	free(w->base);
	free(w->sid);
	free(w->bundle_id);
	json_decref(w->extra_caps);
	json_decref(w->warnings);
	free(w);
}

static long timeout_for(long asked)
{
	return asked > 0 ? asked : SW__WDA_COMMAND_MS;
}

/* A W3C error name to the catalog code a caller sees. */
static const char *code_of_w3c(const char *e)
{
	if (!e)
		return "UNKNOWN";
	if (!strcmp(e, "no such element"))
		return "ELEMENT_NOT_FOUND";
	if (!strcmp(e, "stale element reference"))
		return "STALE_REF";
	if (!strcmp(e, "invalid session id") || !strcmp(e, "session not created"))
		return "WDA_SESSION_FAILED";
	if (!strcmp(e, "invalid selector"))
		return "INVALID_SELECTOR";
	if (!strcmp(e, "invalid argument"))
		return "INVALID_ARGUMENT";
	return "UNKNOWN";
}

static int fail_w3c(const char *what, const char *e, const char *msg, long status, sw_error **err)
{
	const char *code = code_of_w3c(e);
	char *shown = msg ? sw__utf8_cap(msg, strlen(msg), 300, SW_CAP_HEAD_TAIL) : NULL;
	int rc;
	if (!strcmp(code, "ELEMENT_NOT_FOUND"))
		rc = sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND", "Take a fresh qa_snapshot and pick a visible element",
		                   "WebDriverAgent %s: no such element (%s)", what, shown ? shown : "");
	else if (!strcmp(code, "STALE_REF"))
		rc = sw__error_set(err, SW_ESTATE, "STALE_REF", "Take a fresh qa_snapshot: the screen changed",
		                   "WebDriverAgent %s: the element is no longer on screen (%s)", what, shown ? shown : "");
	else if (!strcmp(code, "WDA_SESSION_FAILED"))
		rc = sw__error_set(err, SW_EDEVICE, "WDA_SESSION_FAILED",
		                   "Check that the app is installed and WebDriverAgent runs for this simulator "
		                   "(qa_wda {action: \"status\"}), then attach again",
		                   "WebDriverAgent %s: %s (%s, HTTP %ld)", what, e, shown ? shown : "", status);
	else if (!strcmp(code, "INVALID_SELECTOR"))
		rc = sw__error_set(err, SW_EINVAL, "INVALID_SELECTOR", "Use accessibility id, name, predicate string or class chain",
		                   "WebDriverAgent %s: invalid selector (%s)", what, shown ? shown : "");
	else if (!strcmp(code, "INVALID_ARGUMENT"))
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "WebDriverAgent %s: invalid argument (%s)", what,
		                   shown ? shown : "");
	else
		rc = sw__error_set(err, SW_EDEVICE, "UNKNOWN",
		                   "Retry; if it repeats, read the WebDriverAgent log (qa_wda {action: \"logs\"})",
		                   "WebDriverAgent %s failed: %s (%s, HTTP %ld)", what, e ? e : "unknown error",
		                   shown ? shown : "", status);
	free(shown);
	return rc;
}

static int raw_call(sw__wda *w, const char *method, const char *path, bool in_session, json_t *body, long timeout_ms,
                    size_t max_body, json_t **out, const char **w3c_error, sw_error **err)
{
	*w3c_error = NULL;
	char *url = in_session ? sw__asprintf("%s/session/%s%s", w->base, w->sid, path) : sw__asprintf("%s%s", w->base, path);
	char *bj = body ? sw__json_compact(body) : NULL;
	if (!url || (body && !bj)) {
		free(url);
		free(bj);
		return sw__error_nomem(err);
	}
	sw__http_req req = {method, url, bj, bj ? strlen(bj) : 0, timeout_for(timeout_ms), max_body ? max_body : SW__WDA_BODY_MAX};
	sw__http_resp resp;
	sw_error *e = NULL;
	int rc = sw__http_exchange(&req, &resp, &e);
	free(bj);
	if (rc != SW_OK) {
		bool slow_source = resp.timed_out && strstr(path, "/source");
		if (slow_source)
			rc = sw__error_set(err, SW_ETIMEOUT, "WDA_SOURCE_SLOW",
			                   "The app may be busy: retry once it settles, or narrow the screen",
			                   "WebDriverAgent did not answer %s %s within %ld ms", method, path, req.timeout_ms);
		else if (rc == SW_EUNSUPPORTED)
			rc = sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED",
			                   "Install libcurl (Debian: apt-get install libcurl4)", "%s",
			                   e ? sw_error_message(e) : "libcurl is missing");
		else
			rc = sw__error_set(err, SW_EDEVICE, "WDA_UNREACHABLE",
			                   "Start WebDriverAgent for this simulator (qa_wda {action: \"start\"}) or check its URL",
			                   "WebDriverAgent at %s did not answer %s %s: %s", w->base, method, path,
			                   e ? sw_error_message(e) : "?");
		sw_error_free(e);
		free(url);
		return rc;
	}
	free(url);
	if (resp.capped) {
		free(resp.body);
		return sw__error_set(err, SW_ELIMIT, "WDA_HIERARCHY_TOO_LARGE", "Narrow the screen and retry",
		                     "WebDriverAgent's answer to %s %s is larger than %zu bytes; it was not read", method, path,
		                     req.max_body);
	}
	json_error_t je;
	json_t *root = json_loadb(resp.body, resp.body_len, 0, &je);
	if (!json_is_object(root)) {
		char *shown = sw__utf8_cap(resp.body, resp.body_len, 80, SW_CAP_HEAD);
		rc = sw__error_set(err, SW_EDEVICE, "WDA_UNREACHABLE",
		                   "Check that the URL is WebDriverAgent's (qa_wda {action: \"status\"})",
		                   "%s %s at %s answered HTTP %ld with %s, not WebDriverAgent's JSON%s%s%s", method, path, w->base,
		                   resp.status, resp.body_len ? "a body that is not a JSON object (garbage or cut short)"
		                                              : "an empty body",
		                   shown && *shown ? " (\"" : "", shown && *shown ? shown : "", shown && *shown ? "\")" : "");
		free(shown);
		json_decref(root);
		free(resp.body);
		return rc;
	}
	free(resp.body);
	json_t *value = json_object_get(root, "value");
	const char *e3 = json_string_value(json_object_get(value, "error"));
	if (e3 || resp.status >= 400) {
		static __thread char ebuf[64];
		snprintf(ebuf, sizeof(ebuf), "%s", e3 ? e3 : "unknown error");
		*w3c_error = ebuf;
		rc = fail_w3c(path, ebuf, json_string_value(json_object_get(value, "message")), resp.status, err);
		json_decref(root);
		return rc;
	}
	*out = json_incref(value ? value : json_null());
	const char *sid = json_string_value(json_object_get(root, "sessionId"));
	if (sid && !in_session && !strcmp(path, "/session")) {
		free(w->sid);
		w->sid = sw__strdup(sid);
	}
	json_decref(root);
	return SW_OK;
}

int sw__wda_session_new(sw__wda *w, bool recovering, sw_error **err)
{
	json_t *always = json_object();
	if (w->bundle_id)
		json_object_set_new(always, "bundleId", json_string(w->bundle_id));
	json_object_set_new(always, "shouldTerminateApp", json_false());
	if (recovering)
		json_object_set_new(always, "forceAppLaunch", json_false());
	if (json_is_object(w->extra_caps))
		json_object_update(always, w->extra_caps);
	json_t *body = json_pack("{s:{s:o,s:[]}}", "capabilities", "alwaysMatch", always, "firstMatch");
	json_array_append_new(json_object_get(json_object_get(body, "capabilities"), "firstMatch"), json_object());
	json_t *v = NULL;
	const char *w3c = NULL;
	sw_error *e = NULL;
	free(w->sid);
	w->sid = NULL;
	int rc = raw_call(w, "POST", "/session", false, body, SW__WDA_COMMAND_MS, 0, &v, &w3c, &e);
	json_decref(body);
	if (rc == SW_OK && !w->sid) {
		const char *sid = json_string_value(json_object_get(v, "sessionId"));
		w->sid = sid ? sw__strdup(sid) : NULL;
	}
	json_decref(v);
	if (rc == SW_OK && !w->sid)
		rc = sw__error_set(&e, SW_EDEVICE, "WDA_SESSION_FAILED", "Restart WebDriverAgent and attach again",
		                   "WebDriverAgent created a session without a sessionId");
	if (rc != SW_OK && e && !strcmp(sw_error_failure_code(e), "UNKNOWN")) {
		/* any refusal of POST /session is a session failure */
		rc = sw__error_set(err, SW_EDEVICE, "WDA_SESSION_FAILED",
		                   "Check that the app's bundle id is installed on the simulator, then attach again", "%s",
		                   sw_error_message(e));
		sw_error_free(e);
		return rc;
	}
	sw__error_propagate(err, e);
	return rc;
}

int sw__wda_call(sw__wda *w, const char *method, const char *path, bool in_session, json_t *body, long timeout_ms,
                 json_t **out, sw_error **err)
{
	json_t *v = NULL;
	const char *w3c = NULL;
	if (in_session && !w->sid) {
		int rc = sw__wda_session_new(w, false, err);
		if (rc != SW_OK)
			return rc;
	}
	sw_error *e = NULL;
	int rc = raw_call(w, method, path, in_session, body, timeout_ms, 0, &v, &w3c, &e);
	if (rc != SW_OK && in_session && w3c && !strcmp(w3c, "invalid session id")) {
		/* the session died (WDA restarted, the app crashed): one new session without relaunching, one retry */
		sw_error_free(e);
		e = NULL;
		rc = sw__wda_session_new(w, true, err);
		if (rc != SW_OK)
			return rc;
		json_array_append_new(w->warnings,
		                      json_string("the WebDriverAgent session had ended and was recreated without relaunching "
		                                  "the app (forceAppLaunch:false); check that the screen is the one expected"));
		rc = raw_call(w, method, path, true, body, timeout_ms, 0, &v, &w3c, &e);
	}
	if (rc != SW_OK) {
		sw__error_propagate(err, e);
		return rc;
	}
	if (out)
		*out = v;
	else
		json_decref(v);
	return SW_OK;
}

int sw__wda_status(const char *base, long timeout_ms, json_t **out, sw_error **err)
{
	sw__wda w = {0};
	w.base = (char *)base;
	json_t *v = NULL;
	const char *w3c = NULL;
	int rc = raw_call(&w, "GET", "/status", false, NULL, timeout_ms > 0 ? timeout_ms : SW__WDA_STATUS_MS, 1 << 20, &v,
	                  &w3c, err);
	if (rc != SW_OK)
		return rc;
	if (!json_is_object(v)) {
		json_decref(v);
		return sw__error_set(err, SW_EDEVICE, "WDA_UNREACHABLE", "Check that the URL is WebDriverAgent's",
		                     "%s/status answered without a status object", base);
	}
	*out = v;
	return SW_OK;
}

int sw__wda_source(sw__wda *w, long timeout_ms, char **xml, size_t *len, sw_error **err)
{
	/* read out of the answer's buffer, the JSON form as a fallback (wda-source-fetch.c) */
	return sw__wda_source_get(w, timeout_ms, xml, len, err);
}
