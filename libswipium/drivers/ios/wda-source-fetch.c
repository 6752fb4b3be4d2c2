/* wda-source-fetch.c: GET /session/<sid>/source, read out of the answer's own buffer.
 *
 * WDA answers the XML form as one JSON string, {"value": "<?xml ...>", "sessionId": ...}: for a
 * 50,000-element screen some 11 MB of escaped text. Loading that with jansson builds a second copy
 * and walks it byte by byte; here the pull tokenizer (wda-source-json.c) decodes the string where it
 * stands and the XML is moved to the front of the same buffer, so the source is held once.
 *
 * Which form is asked for (docs/ios.md): SWIPIUM_WDA_SOURCE_FORMAT=xml|json|auto (default auto). Auto
 * asks for XML, and asks once for the JSON form when WDA answers the XML request with an error of its
 * own (it could not write the XML); the result then carries a warning saying so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "wda-source-internal.h"

enum fmt { F_AUTO, F_XML, F_JSON };

static enum fmt source_format(void)
{
	const char *v = getenv("SWIPIUM_WDA_SOURCE_FORMAT");
	if (v && !strcasecmp(v, "xml"))
		return F_XML;
	if (v && !strcasecmp(v, "json"))
		return F_JSON;
	return F_AUTO;
}

/* The source's timeout: the caller's, else SWIPIUM_WDA_SOURCE_TIMEOUT_MS (only ever lower), else 30 s. */
static long source_timeout(long asked)
{
	if (asked > 0)
		return asked;
	const char *v = getenv("SWIPIUM_WDA_SOURCE_TIMEOUT_MS");
	if (v && *v) {
		char *end = NULL;
		long t = strtol(v, &end, 10);
		if (end && !*end && t >= 100 && t < SW__WDA_COMMAND_MS)
			return t;
	}
	return SW__WDA_COMMAND_MS;
}

/* The W3C error of a failed answer: {"value": {"error", "message"}}; empty strings when absent. */
static void w3c_of(const sw__http_resp *resp, char *error, size_t esz, char **message)
{
	error[0] = '\0';
	*message = NULL;
	if (resp->body_len > ((size_t)1 << 20))
		return;
	json_t *root = json_loadb(resp->body, resp->body_len, 0, NULL);
	json_t *v = json_object_get(root, "value");
	const char *e = json_string_value(json_object_get(v, "error"));
	const char *m = json_string_value(json_object_get(v, "message"));
	if (e)
		snprintf(error, esz, "%s", e);
	if (m)
		*message = sw__utf8_cap(m, strlen(m), 300, SW_CAP_HEAD_TAIL);
	json_decref(root);
}

/*
 * One GET of the source; the raw 2xx body (transfer full). *w3c_failed: WDA answered with an error of
 * its own (not its session's), the case the JSON form may still serve.
 */
static int fetch_once(sw__wda *w, bool json, long timeout_ms, char **body, size_t *len, bool *w3c_failed,
                      bool *session_died, sw_error **err)
{
	*w3c_failed = *session_died = false;
	const char *path = json ? "/source?format=json" : "/source";
	char *url = sw__asprintf("%s/session/%s%s", w->base, w->sid, path);
	if (!url)
		return sw__error_nomem(err);
	sw__http_req req = {"GET", url, NULL, 0, timeout_ms, SW__WDA_BODY_MAX};
	sw__http_resp resp;
	memset(&resp, 0, sizeof(resp));
	sw_error *e = NULL;
	int rc = sw__http_exchange(&req, &resp, &e);
	free(url);
	if (rc != SW_OK) {
		if (resp.timed_out)
			rc = sw__error_set(err, SW_ETIMEOUT, "WDA_SOURCE_SLOW",
			                   "The app may be busy: retry once it settles, or narrow the screen",
			                   "WebDriverAgent did not answer GET %s within %ld ms", path, timeout_ms);
		else if (rc == SW_EUNSUPPORTED)
			rc = sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED",
			                   "Install libcurl (Debian: apt-get install libcurl4)", "%s",
			                   e ? sw_error_message(e) : "libcurl is missing");
		else
			rc = sw__error_set(
			    err, SW_EDEVICE, "WDA_UNREACHABLE",
			    "Start WebDriverAgent for this simulator (qa_wda {action: \"start\"}) or check its URL",
			    "WebDriverAgent at %s did not answer GET %s: %s", w->base, path,
			    e ? sw_error_message(e) : "?");
		sw_error_free(e);
		free(resp.body);
		return rc;
	}
	if (resp.capped) {
		free(resp.body);
		return sw__error_set(err, SW_ELIMIT, "WDA_HIERARCHY_TOO_LARGE", "Narrow the screen and retry",
		                     "WebDriverAgent's answer to GET %s is larger than %zu MiB; it was not read", path,
		                     SW__WDA_BODY_MAX >> 20);
	}
	if (resp.status >= 400) {
		char error[64];
		char *message = NULL;
		w3c_of(&resp, error, sizeof(error), &message);
		if (!strcmp(error, "invalid session id") || !strcmp(error, "session not created")) {
			*session_died = !strcmp(error, "invalid session id");
			rc = sw__error_set(err, SW_EDEVICE, "WDA_SESSION_FAILED",
			                   "Check that the app is installed and WebDriverAgent runs for this simulator "
			                   "(qa_wda {action: \"status\"}), then attach again",
			                   "WebDriverAgent GET %s: %s (%s, HTTP %ld)", path, error,
			                   message ? message : "", resp.status);
		} else {
			*w3c_failed = error[0] != '\0';
			char *shown = error[0] ? NULL : sw__utf8_cap(resp.body, resp.body_len, 80, SW_CAP_HEAD);
			rc = sw__error_set(
			    err, SW_EDEVICE, "SNAPSHOT_FAILED",
			    "Retry; if it repeats, read the WebDriverAgent log (qa_wda {action: \"logs\"})",
			    "WebDriverAgent could not give the screen's source: GET %s answered HTTP %ld%s%s%s%s%s",
			    path, resp.status, error[0] ? " " : "", error[0] ? error : " with no W3C error",
			    message ? " (" : (shown && *shown ? " (\"" : ""), message ? message : (shown ? shown : ""),
			    message ? ")" : (shown && *shown ? "\")" : ""));
			free(shown);
		}
		free(message);
		free(resp.body);
		return rc;
	}
	*body = resp.body;
	*len = resp.body_len;
	return SW_OK;
}

/* One GET with the session made first, and made again once when WDA says it ended. */
static int fetch(sw__wda *w, bool json, long timeout_ms, char **body, size_t *len, bool *w3c_failed, sw_error **err)
{
	if (!w->sid) {
		int rc = sw__wda_session_new(w, false, err);
		if (rc != SW_OK)
			return rc;
	}
	bool died = false;
	sw_error *e = NULL;
	int rc = fetch_once(w, json, timeout_ms, body, len, w3c_failed, &died, &e);
	if (rc != SW_OK && died) {
		sw_error_free(e);
		e = NULL;
		rc = sw__wda_session_new(w, true, err);
		if (rc != SW_OK)
			return rc;
		json_array_append_new(
		    w->warnings,
		    json_string("the WebDriverAgent session had ended and was recreated without relaunching "
		                "the app (forceAppLaunch:false); check that the screen is the one expected"));
		rc = fetch_once(w, json, timeout_ms, body, len, w3c_failed, &died, &e);
	}
	if (rc != SW_OK)
		sw__error_propagate(err, e);
	return rc;
}

/*
 * The XML text of an answer {"value": "<xml>", ...}, decoded in place and moved to the front of @body.
 * SW_OK with *is_text false when the value is not a string (the JSON form, or an error in a 200): the
 * body is then left untouched for the JSON reader. The envelope is read dry (nothing decoded); only the
 * value's string is decoded, where it stands.
 */
static int unwrap_xml(char *body, size_t len, size_t *xml_len, bool *is_text, sw_error **err)
{
	*is_text = false;
	sw__jpull j;
	sw__jpull_init(&j, body, len);
	j.dry = true;
	enum sw__jtok t = sw__jpull_next(&j);
	char *xml = NULL;
	size_t n = 0;
	const char *why = NULL;
	if (t != SW__J_OBJ)
		why = t == SW__J_ERROR ? j.why : "the answer is not a JSON object";
	while (!why) {
		t = sw__jpull_next(&j);
		if (t == SW__J_OBJ_END)
			break;
		if (t != SW__J_KEY) {
			why = j.why ? j.why : "a member name is missing";
			break;
		}
		bool is_value = j.n == 5 && !memcmp(j.s, "value", 5);
		if (is_value && !xml) {
			char *q = j.p;
			while (q < j.end && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t'))
				q++;
			if (q < j.end && *q != '"')
				return SW_OK; /* a tree or an error object: for the JSON reader, untouched */
			j.dry = false;
			j.dst = body; /* decoded straight to the front of the buffer, where the XML is wanted */
			t = sw__jpull_next(&j);
			j.dry = true;
			if (t != SW__J_STR) {
				why = j.why ? j.why : "the value is cut short";
				break;
			}
			xml = j.s;
			n = j.n;
			continue;
		}
		t = sw__jpull_next(&j);
		if (t == SW__J_ERROR || !sw__jpull_skip(&j, t)) {
			why = j.why ? j.why : "a member's value is cut short";
			break;
		}
	}
	if (!why && sw__jpull_next(&j) != SW__J_END)
		why = j.why ? j.why : "text follows the answer";
	if (!why && !xml)
		why = "the answer has no \"value\"";
	if (why) {
		char *shown = xml ? NULL : sw__utf8_cap(body, strnlen(body, len), 80, SW_CAP_HEAD);
		int rc = sw__error_set(
		    err, SW_EDEVICE, "SNAPSHOT_FAILED",
		    "Check that the URL is WebDriverAgent's (qa_wda {action: \"status\"}), then retry",
		    "WebDriverAgent's answer to GET /source is not its JSON (garbage or cut short: %s)%s%s%s", why,
		    shown && *shown ? " (\"" : "", shown && *shown ? shown : "", shown && *shown ? "\")" : "");
		free(shown);
		return rc;
	}
	if (xml != body)
		memmove(body, xml, n);
	body[n] = '\0';
	*xml_len = n;
	*is_text = true;
	return SW_OK;
}

/* The JSON form's answer must be a JSON object (its reader says what else is wrong with it). */
static int json_answer(char *body, size_t len, sw_error **err)
{
	size_t i = 0;
	while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t'))
		i++;
	if (i < len && body[i] == '{')
		return SW_OK;
	char *shown = sw__utf8_cap(body, strnlen(body, len), 80, SW_CAP_HEAD);
	int rc = sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED",
	                       "Check that the URL is WebDriverAgent's (qa_wda {action: \"status\"}), then retry",
	                       "WebDriverAgent's answer to GET /source?format=json is not its JSON (%s)%s%s%s",
	                       len ? "garbage" : "an empty body", shown && *shown ? " (\"" : "",
	                       shown && *shown ? shown : "", shown && *shown ? "\")" : "");
	free(shown);
	return rc;
}

int sw__wda_source_get(sw__wda *w, long timeout_ms, char **out, size_t *out_len, sw_error **err)
{
	enum fmt f = source_format();
	long t = source_timeout(timeout_ms);
	char *body = NULL;
	size_t len = 0;
	bool w3c_failed = false;
	if (f == F_JSON) {
		int rc = fetch(w, true, t, &body, &len, &w3c_failed, err);
		if (rc == SW_OK && (rc = json_answer(body, len, err)) != SW_OK)
			free(body);
		if (rc != SW_OK)
			return rc;
		*out = body;
		*out_len = len;
		return SW_OK;
	}
	sw_error *e = NULL;
	int rc = fetch(w, false, t, &body, &len, &w3c_failed, &e);
	if (rc != SW_OK && w3c_failed && f == F_AUTO) {
		/* WDA could not write the XML form: its JSON form is made without XML */
		sw_error *e2 = NULL;
		int rc2 = fetch(w, true, t, &body, &len, &w3c_failed, &e2);
		if (rc2 == SW_OK && (rc2 = json_answer(body, len, &e2)) != SW_OK)
			free(body);
		if (rc2 == SW_OK) {
			char *warn =
			    sw__asprintf("WebDriverAgent could not give the XML source (%s); its JSON form was read "
			                 "instead",
			                 sw_error_message(e));
			if (warn)
				json_array_append_new(w->warnings, json_string(warn));
			free(warn);
			sw_error_free(e);
			*out = body;
			*out_len = len;
			return SW_OK;
		}
		sw_error_free(e2);
	}
	if (rc != SW_OK) {
		sw__error_propagate(err, e);
		return rc;
	}
	size_t xml_len = 0;
	bool is_text = false;
	rc = unwrap_xml(body, len, &xml_len, &is_text, err);
	if (rc != SW_OK) {
		free(body);
		return rc;
	}
	*out = body;
	*out_len = is_text ? xml_len : len;
	return SW_OK;
}
