/* simctl.c: the one runner of `xcrun simctl`, its error block, `list devices -j` and choosing a simulator. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../catalog/catalog-internal.h"
#include "ios-internal.h"

#define LIST_MAX_OUT ((size_t)16 << 20)

int sw__simctl(const char *const *args, int timeout_ms, int (*abort_fn)(void *), void *abort_ud,
               sw__proc_result *res, sw_error **err)
{
	memset(res, 0, sizeof(*res));
	char *xcrun = sw__ios_xcrun(err);
	if (!xcrun)
		return SW_EUNSUPPORTED;
	sw__argv a = SW_ARGV_INIT;
	sw__argv_add(&a, xcrun);
	sw__argv_add(&a, "simctl");
	sw__argv_addv(&a, args);
	const char *const *argv = sw__argv_finish(&a, err);
	if (!argv) {
		free(xcrun);
		sw__argv_free(&a);
		return SW_ENOMEM;
	}
	sw__proc_opts o = {0};
	o.timeout_ms = timeout_ms;
	o.max_out = LIST_MAX_OUT;
	o.max_err = (size_t)1 << 20;
	o.abort_fn = abort_fn;
	o.abort_ud = abort_ud;
	sw_error *e = NULL;
	int rc = sw__proc_run(argv, &o, res, &e);
	sw__argv_free(&a);
	free(xcrun);
	const char *sub = args[0] ? args[0] : "";
	if (rc != SW_OK) {
		rc = sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Check that `xcrun simctl help` works, then retry",
		                   "xcrun simctl %s could not be started: %s", sub, e ? sw_error_message(e) : "?");
		sw_error_free(e);
		return rc;
	}
	if (res->cancelled) {
		sw__proc_result_clear(res);
		return sw__error_set(err, SW_ECANCELLED, "CANCELLED", NULL, "xcrun simctl %s was cancelled", sub);
	}
	if (res->timed_out) {
		sw__proc_result_clear(res);
		return sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY",
		                     "CoreSimulator may be stuck: quit Simulator.app (or run `xcrun simctl shutdown all`) "
		                     "and retry",
		                     "xcrun simctl %s did not answer within %d s and was stopped", sub,
		                     (timeout_ms ? timeout_ms : 30000) / 1000);
	}
	return SW_OK;
}

void sw__simctl_error_clear(sw__simctl_error *e)
{
	free(e->domain);
	free(e->reason);
	memset(e, 0, sizeof(*e));
	e->code = -1;
}

static const char *skip_blank_lines(const char *p)
{
	while (*p == '\n' || *p == '\r' || *p == ' ' || *p == '\t')
		p++;
	return p;
}

void sw__simctl_error_parse(const char *text, sw__simctl_error *out)
{
	memset(out, 0, sizeof(*out));
	out->code = -1;
	if (!text)
		return;
	const char *h = strstr(text, "An error was encountered processing the command");
	const char *body = text;
	if (h) {
		const char *nl = strchr(h, '\n');
		const char *hend = nl ? nl : h + strlen(h);
		const char *d = strstr(h, "domain=");
		if (d && d < hend) {
			d += 7;
			size_t n = strcspn(d, ",)\n");
			out->domain = sw__strndup(d, n);
		}
		const char *c = strstr(h, "code=");
		if (c && c < hend)
			out->code = strtol(c + 5, NULL, 10);
		body = nl ? nl + 1 : hend;
	}
	/* the reason: the lines up to "Underlying error" (or the end), joined by spaces */
	sw_buf b = SW_BUF_INIT;
	const char *p = skip_blank_lines(body);
	int lines = 0;
	while (*p && lines < 3) {
		size_t n = strcspn(p, "\r\n");
		if (!strncmp(p, "Underlying error", 16))
			break;
		const char *s = p;
		while (n && (*s == '\t' || *s == ' ')) {
			s++;
			n--;
		}
		if (n) {
			if (b.len)
				sw__buf_putc(&b, ' ');
			sw__buf_append(&b, s, n);
			lines++;
		}
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	char *r = sw__buf_steal(&b, NULL);
	if (r && *r) {
		out->reason = sw__utf8_cap(r, strlen(r), 400, SW_CAP_HEAD_TAIL);
		free(r);
	} else
		free(r);
}

int sw__simctl_fail(const char *sub, const sw__proc_result *res, const char *failure_code, const char *hint,
                    sw_error **err)
{
	const char *text = res->err && *res->err ? res->err : res->out;
	sw__simctl_error e;
	sw__simctl_error_parse(text, &e);
	char status[64];
	if (res->signal)
		snprintf(status, sizeof(status), "killed by signal %d", res->signal);
	else
		snprintf(status, sizeof(status), "exit status %d", res->status);
	int rc;
	if (e.domain)
		rc = sw__error_set(err, sw__catalog_result(failure_code, SW_EIO), failure_code, hint, "simctl %s failed: %s (domain=%s, code=%ld, %s)", sub,
		                   e.reason ? e.reason : "no reason given", e.domain, e.code, status);
	else
		rc = sw__error_set(err, sw__catalog_result(failure_code, SW_EIO), failure_code, hint, "simctl %s failed: %s (%s)", sub,
		                   e.reason ? e.reason : "no output", status);
	if (err && *err) {
		json_t *d = json_pack("{s:s,s:i,s:s?,s:s?}", "subcommand", sub, "exitStatus", res->status, "domain",
		                      e.domain, "reason", e.reason);
		if (d && e.code >= 0)
			json_object_set_new(d, "code", json_integer(e.code));
		sw__error_take_details(*err, json_pack("{s:o}", "simctl", d ? d : json_object()));
	}
	sw__simctl_error_clear(&e);
	return rc;
}

/* ---- list ------------------------------------------------------------------------------------ */

char *sw__simctl_runtime_name(const char *key)
{
	static const char prefix[] = "com.apple.CoreSimulator.SimRuntime.";
	if (!key)
		return NULL;
	if (strncmp(key, prefix, sizeof(prefix) - 1) != 0)
		return sw__strdup(key);
	const char *rest = key + sizeof(prefix) - 1;
	size_t plat = strcspn(rest, "-");
	if (!rest[plat])
		return sw__strdup(rest);
	char *out = sw__asprintf("%.*s %s", (int)plat, rest, rest + plat + 1);
	if (!out)
		return NULL;
	for (char *p = out + plat + 1; *p; p++)
		if (*p == '-')
			*p = '.';
	return out;
}

static bool runtime_is_ios(const char *name)
{
	return name && !strncmp(name, "iOS", 3) && (name[3] == ' ' || name[3] == '\0');
}

json_t *sw__simctl_parse_list(const char *text, size_t len, sw_error **err)
{
	json_error_t je;
	json_t *root = len ? json_loadb(text, len, 0, &je) : NULL;
	json_t *devices = json_object_get(root, "devices");
	if (!json_is_object(devices)) {
		json_decref(root);
		char *shown = len ? sw__utf8_cap(text, len, 120, SW_CAP_HEAD) : NULL;
		sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY",
		              "Run `xcrun simctl list devices -j` in a terminal; restart CoreSimulator (quit Simulator.app) "
		              "if it prints anything but JSON",
		              "xcrun simctl list devices -j printed %s, not the JSON device list%s%s%s",
		              !len ? "nothing" : (!root ? "text that is not JSON" : "JSON without a devices object"),
		              shown ? " (\"" : "", shown ? shown : "", shown ? "\")" : "");
		free(shown);
		return NULL;
	}
	json_t *sims = json_array(), *booted = json_array(), *runtimes = json_array(), *unavailable = json_array(),
	       *other = json_array();
	const char *key;
	json_t *arr;
	json_object_foreach(devices, key, arr)
	{
		char *rname = sw__simctl_runtime_name(key);
		bool ios = runtime_is_ios(rname);
		size_t n_ok = 0, i;
		json_t *d;
		json_array_foreach(arr, i, d)
		{
			const char *udid = json_string_value(json_object_get(d, "udid"));
			const char *name = json_string_value(json_object_get(d, "name"));
			const char *state = json_string_value(json_object_get(d, "state"));
			if (!udid || !name)
				continue;
			json_t *avail = json_object_get(d, "isAvailable");
			/* Xcode 10 wrote isAvailable as a string ("YES") for a while; "(unavailable...)" in availability */
			bool ok = json_is_boolean(avail) ? json_is_true(avail)
			                                 : (json_is_string(avail) ? !strcasecmp(json_string_value(avail), "YES")
			                                                          : true);
			const char *av = json_string_value(json_object_get(d, "availability"));
			if (av && strstr(av, "unavailable"))
				ok = false;
			if (!ios) {
				json_array_append_new(other, json_pack("{s:s,s:s,s:s?}", "udid", udid, "name", name, "runtime",
				                                       rname));
				continue;
			}
			if (!ok) {
				const char *why = json_string_value(json_object_get(d, "availabilityError"));
				json_array_append_new(unavailable,
				                      json_pack("{s:s,s:s,s:s?,s:s}", "udid", udid, "name", name, "runtime", rname,
				                                "availabilityError", why && *why ? why : (av ? av : "unavailable")));
				continue;
			}
			bool is_booted = state && !strcmp(state, "Booted");
			json_t *sim = json_pack("{s:s,s:s,s:s,s:s?,s:s,s:b}", "udid", udid, "name", name, "state",
			                        state ? state : "Unknown", "runtime", rname, "runtimeId", key, "booted", is_booted);
			const char *dtype = json_string_value(json_object_get(d, "deviceTypeIdentifier"));
			if (sim && dtype)
				json_object_set_new(sim, "deviceType", json_string(dtype));
			json_array_append_new(sims, sim);
			if (is_booted)
				json_array_append_new(booted, json_string(udid));
			n_ok++;
		}
		if (ios)
			json_array_append_new(runtimes, json_pack("{s:s?,s:s,s:I}", "name", rname, "identifier", key, "devices",
			                                          (json_int_t)n_ok));
		free(rname);
	}
	json_decref(root);
	return json_pack("{s:o,s:o,s:o,s:{s:o,s:o}}", "simulators", sims, "booted", booted, "runtimes", runtimes,
	                 "omitted", "unavailable", unavailable, "otherPlatforms", other);
}

int sw__simctl_list(json_t **out, sw_error **err)
{
	const char *args[] = {"list", "devices", "-j", NULL};
	sw__proc_result r;
	int rc = sw__simctl(args, SW__SIMCTL_QUICK_MS, NULL, NULL, &r, err);
	if (rc != SW_OK)
		return rc;
	if (r.status != 0) {
		rc = sw__simctl_fail("list", &r, "DEVICE_NOT_READY", "Run `xcrun simctl list devices -j` in a terminal", err);
		sw__proc_result_clear(&r);
		return rc;
	}
	if (r.truncated) {
		sw__proc_result_clear(&r);
		return sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", NULL,
		                     "xcrun simctl list devices -j printed more than 16 MiB; not read");
	}
	json_t *l = sw__simctl_parse_list(r.out, r.out_len, err);
	sw__proc_result_clear(&r);
	if (!l)
		return SW_EDEVICE;
	*out = l;
	return SW_OK;
}

int sw_ios_simulators(sw_ctx *ctx, char **out_json, sw_error **err)
{
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	int rc = sw_ios_check(ctx, err);
	if (rc != SW_OK)
		return rc;
	json_t *l = NULL;
	rc = sw__simctl_list(&l, err);
	if (rc != SW_OK)
		return rc;
	char *s = sw__json_compact(l);
	json_decref(l);
	if (!s)
		return sw__error_nomem(err);
	*out_json = s;
	return SW_OK;
}

/* ---- choosing a simulator ---------------------------------------------------------------------- */

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (!n)
		return false;
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return false;
}

static json_t *names_of(json_t *arr)
{
	json_t *o = json_array();
	size_t i;
	json_t *d;
	json_array_foreach(arr, i, d)
	{
		json_array_append_new(o, json_pack("{s:O,s:O,s:O*,s:O*}", "udid", json_object_get(d, "udid"), "name",
		                                   json_object_get(d, "name"), "runtime", json_object_get(d, "runtime"),
		                                   "state", json_object_get(d, "state")));
	}
	return o;
}

/* @a @b @c in a per-thread buffer, @b capped (a caller's text). (transfer none) */
static const char *quoted_what(const char *a, const char *b, const char *c)
{
	static __thread char buf[400];
	char *shown = sw__utf8_cap(b ? b : "", strlen(b ? b : ""), 120, SW_CAP_HEAD_TAIL);
	snprintf(buf, sizeof(buf), "%s%s%s", a, shown ? shown : "", c);
	free(shown);
	return buf;
}

static int fail_with_choices(sw_error **err, int code, const char *fc, json_t *choices, const char *hint,
                             const char *what)
{
	int rc = sw__error_set(err, code, fc, hint, "%s", what ? what : "no iOS simulator fits");
	if (err && *err)
		sw__error_take_details(*err, json_pack("{s:o}", "simulators", choices ? choices : json_array()));
	else
		json_decref(choices);
	return rc;
}

int sw__simctl_pick(json_t *list, const char *device, const char *bound_udid, bool any_for_boot, json_t **out,
                    sw_error **err)
{
	json_t *sims = json_object_get(list, "simulators");
	size_t i;
	json_t *d;
	if (device && *device) {
		json_t *hits = json_array();
		json_array_foreach(sims, i, d)
		{
			const char *udid = json_string_value(json_object_get(d, "udid"));
			if (udid && !strcasecmp(udid, device)) {
				json_decref(hits);
				*out = d;
				return SW_OK;
			}
			if (contains_ci(json_string_value(json_object_get(d, "name")), device))
				json_array_append(hits, d);
		}
		if (json_array_size(hits) == 1) {
			*out = json_array_get(hits, 0);
			json_decref(hits);
			return SW_OK;
		}
		if (json_array_size(hits) > 1) {
			/* an exact name, then the only booted one among them, decides */
			json_t *exact = NULL, *boot = NULL;
			int nb = 0;
			json_array_foreach(hits, i, d)
			{
				if (!strcasecmp(json_string_value(json_object_get(d, "name")), device))
					exact = exact ? exact : d;
				if (json_is_true(json_object_get(d, "booted"))) {
					boot = d;
					nb++;
				}
			}
			json_t *pick = exact ? exact : (nb == 1 ? boot : NULL);
			if (pick) {
				*out = pick;
				json_decref(hits);
				return SW_OK;
			}
			int rc = fail_with_choices(err, SW_EINVAL, "MULTIPLE_DEVICES", names_of(hits),
			                           "Pass the UDID of the simulator to use as device",
			                           quoted_what("\"", device, "\" matches more than one iOS simulator"));
			json_decref(hits);
			return rc;
		}
		json_decref(hits);
		/* not a target: say why (unavailable runtime, another platform) */
		json_t *omitted = json_object_get(list, "omitted");
		json_array_foreach(json_object_get(omitted, "unavailable"), i, d)
		{
			const char *udid = json_string_value(json_object_get(d, "udid"));
			if ((udid && !strcasecmp(udid, device)) || contains_ci(json_string_value(json_object_get(d, "name")), device)) {
				char *what = sw__asprintf("%s (%s) is unavailable: %s", json_string_value(json_object_get(d, "name")),
				                          udid, json_string_value(json_object_get(d, "availabilityError")));
				int rc = fail_with_choices(err, SW_ENOTFOUND, "SIMULATOR_RUNTIME_MISSING", names_of(sims),
				                           "Install its runtime in Xcode (Settings > Platforms) or pick an available "
				                           "simulator",
				                           what ? what : "the simulator is unavailable");
				free(what);
				return rc;
			}
		}
		json_array_foreach(json_object_get(omitted, "otherPlatforms"), i, d)
		{
			const char *udid = json_string_value(json_object_get(d, "udid"));
			if ((udid && !strcasecmp(udid, device)) || contains_ci(json_string_value(json_object_get(d, "name")), device)) {
				char *what = sw__asprintf("%s (%s) is a %s simulator; only iOS simulators are targets",
				                          json_string_value(json_object_get(d, "name")), udid,
				                          json_string_value(json_object_get(d, "runtime")));
				int rc = fail_with_choices(err, SW_ENOTFOUND, "NO_DEVICE", names_of(sims),
				                           "Pick an iPhone or iPad simulator (qa_ios {action: \"list\"})", what ? what : "not an iOS simulator");
				free(what);
				return rc;
			}
		}
		return fail_with_choices(err, SW_ENOTFOUND, "NO_DEVICE", names_of(sims),
		                         "qa_ios {action: \"list\"} lists the simulators; pass a UDID or part of a name",
		                         quoted_what("No iOS simulator matches \"", device, "\""));
	}
	if (bound_udid) {
		json_array_foreach(sims, i, d)
		{
			if (!strcmp(json_string_value(json_object_get(d, "udid")), bound_udid)) {
				*out = d;
				return SW_OK;
			}
		}
	}
	json_t *booted = NULL;
	size_t nb = 0;
	json_array_foreach(sims, i, d)
	{
		if (json_is_true(json_object_get(d, "booted"))) {
			booted = d;
			nb++;
		}
	}
	if (nb == 1) {
		*out = booted;
		return SW_OK;
	}
	if (nb > 1) {
		json_t *b = json_array();
		json_array_foreach(sims, i, d)
		{
			if (json_is_true(json_object_get(d, "booted")))
				json_array_append(b, d);
		}
		int rc = fail_with_choices(err, SW_EINVAL, "MULTIPLE_DEVICES", names_of(b),
		                           "Pass device (a UDID or part of a name) to choose one",
		                           "More than one iOS simulator is booted and none was chosen");
		json_decref(b);
		return rc;
	}
	if (any_for_boot && json_array_size(sims) == 1) {
		*out = json_array_get(sims, 0);
		return SW_OK;
	}
	if (any_for_boot && json_array_size(sims) > 1)
		return fail_with_choices(err, SW_EINVAL, "MULTIPLE_DEVICES", names_of(sims),
		                         "Pass device (a UDID or part of a name) to choose which simulator to boot",
		                         "Several iOS simulators exist and none was chosen");
	if (bound_udid)
		return fail_with_choices(err, SW_ENOTFOUND, "NO_DEVICE", names_of(sims),
		                         "qa_ios {action: \"list\"} lists the simulators; boot one with qa_ios {action: "
		                         "\"boot\", device}",
		                         quoted_what("The session's simulator ", bound_udid, " is no longer listed by simctl"));
	return fail_with_choices(err, SW_ENOTFOUND, "NO_DEVICE", names_of(sims),
	                         "Boot one first: qa_ios {action: \"boot\", device: \"<UDID or name>\"}",
	                         json_array_size(sims) ? "No iOS simulator is booted"
	                                               : "No available iOS simulator exists (create one in Xcode)");
}
