/* toolchain.c: is iOS available here? `xcrun simctl help` exiting 0 decides; xcodebuild and idb are looked up too. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ios-internal.h"

/* How long one look at the tools is trusted (PATH changes are seen at once). */
#define TOOLCHAIN_TTL_MS 5000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *cached;       /* sw_ios_toolchain()'s object */
static int64_t cached_at;    /* sw_monotonic_ms() */
static char *cached_path;    /* the PATH it was made with */
static bool cached_full;     /* xcodebuild -version was run too */

static json_t *tool_row(const char *path)
{
	return json_pack("{s:s?}", "path", path);
}

static char *first_line(const char *s)
{
	if (!s)
		return NULL;
	while (*s == '\n' || *s == '\r' || *s == ' ')
		s++;
	size_t n = strcspn(s, "\r\n");
	return n ? sw__utf8_cap(s, n, 200, SW_CAP_HEAD) : NULL;
}

/* Runs @argv (absolute argv[0]) for a few seconds: true when it exited 0; *out the first line of its output. */
static bool probe(const char *const *argv, char **line)
{
	sw__proc_opts o = {0};
	o.timeout_ms = 10000;
	o.max_out = 64 * 1024;
	sw__proc_result r = {0};
	bool ok = false;
	if (sw__proc_run(argv, &o, &r, NULL) == SW_OK) {
		ok = !r.timed_out && r.status == 0;
		if (line) {
			*line = first_line(ok ? r.out : (r.err && *r.err ? r.err : r.out));
			if (!*line && r.timed_out)
				*line = sw__strdup("did not answer within 10 s");
		}
	} else if (line)
		*line = sw__strdup("could not be started");
	sw__proc_result_clear(&r);
	return ok;
}

static json_t *look(bool full)
{
	char *xcrun = sw__which("xcrun");
	char *xcodebuild = full ? sw__which("xcodebuild") : NULL;
	char *idb = sw__which("idb");
	json_t *o = json_object();
	json_t *steps = json_array();
	bool ok = false;
	char *detail = NULL;
	if (xcrun) {
		const char *argv[] = {xcrun, "simctl", "help", NULL};
		ok = probe(argv, &detail);
	}
	json_t *xr = tool_row(xcrun);
	json_object_set_new(xr, "ok", json_boolean(ok));
	json_object_set_new(xr, "detail", detail ? json_string(detail) : json_null());
	json_object_set_new(o, "xcrun", xr);
	if (!xcrun) {
		json_object_set_new(o, "reason",
		                    json_string("xcrun is not on PATH, so there is no iOS Simulator (xcrun simctl) here"));
		json_array_append_new(steps, json_string("Install Xcode and select it (xcode-select -s "
		                                         "/Applications/Xcode.app), then check that `xcrun simctl help` "
		                                         "works on PATH"));
		json_array_append_new(steps, json_string("Test Android here instead: qa_resolve_target {platform: "
		                                         "\"android\"}"));
	} else if (!ok) {
		char *why = sw__asprintf("%s simctl help failed (%s), so the iOS Simulator cannot be driven", xcrun,
		                         detail ? detail : "no output");
		json_object_set_new(o, "reason", json_string(why ? why : "xcrun simctl help failed"));
		free(why);
		json_array_append_new(steps, json_string("Run `xcrun simctl help` in a terminal and fix what it says "
		                                         "(xcode-select -s /Applications/Xcode.app, accept the Xcode "
		                                         "licence with sudo xcodebuild -license accept)"));
	}
	if (full) {
		json_t *xb = tool_row(xcodebuild);
		char *ver = NULL;
		if (xcodebuild) {
			const char *argv[] = {xcodebuild, "-version", NULL};
			if (!probe(argv, &ver)) {
				free(ver);
				ver = NULL;
			}
		}
		json_object_set_new(xb, "version", ver ? json_string(ver) : json_null());
		free(ver);
		json_object_set_new(o, "xcodebuild", xb);
	}
	json_object_set_new(o, "idb", tool_row(idb));
	json_object_set_new(o, "available", json_boolean(ok));
	if (json_array_size(steps))
		json_object_set_new(o, "nextSteps", steps);
	else
		json_decref(steps);
	free(detail);
	free(xcrun);
	free(xcodebuild);
	free(idb);
	return o;
}

/* The cached look (a new reference), refreshed after TOOLCHAIN_TTL_MS or when PATH changed. */
static json_t *toolchain(bool full)
{
	const char *path = getenv("PATH");
	pthread_mutex_lock(&lock);
	int64_t now = sw_monotonic_ms();
	bool fresh = cached && now - cached_at < TOOLCHAIN_TTL_MS && (cached_full || !full) &&
	             ((!path && !cached_path) || (path && cached_path && !strcmp(path, cached_path)));
	if (!fresh) {
		json_t *o = look(full);
		if (o) {
			json_decref(cached);
			cached = o;
			cached_at = now;
			cached_full = full;
			free(cached_path);
			cached_path = path ? sw__strdup(path) : NULL;
		}
	}
	json_t *r = json_incref(cached);
	pthread_mutex_unlock(&lock);
	return r;
}

int sw_ios_toolchain(sw_ctx *ctx, char **out_json, sw_error **err)
{
	(void)ctx;
	if (!out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out_json must not be NULL");
	json_t *o = toolchain(true);
	char *s = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	if (!s)
		return sw__error_nomem(err);
	*out_json = s;
	return SW_OK;
}

static int unsupported(json_t *o, sw_error **err)
{
	const char *why = json_string_value(json_object_get(o, "reason"));
	int rc = sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED", NULL, "iOS is not available: %s.",
	                       why ? why : "xcrun simctl does not work here");
	if (err && *err) {
		json_t *d = json_pack("{s:O*,s:O*}", "nextSteps", json_object_get(o, "nextSteps"), "xcrun",
		                      json_object_get(o, "xcrun"));
		json_object_set_new(d, "missingTool", json_string("xcrun"));
		sw__error_take_details(*err, d);
	}
	return rc;
}

int sw_ios_check(sw_ctx *ctx, sw_error **err)
{
	(void)ctx;
	json_t *o = toolchain(false);
	if (!o)
		return sw__error_nomem(err);
	int rc = json_is_true(json_object_get(o, "available")) ? SW_OK : unsupported(o, err);
	json_decref(o);
	return rc;
}

char *sw__ios_xcrun(sw_error **err)
{
	json_t *o = toolchain(false);
	if (!o) {
		sw__error_nomem(err);
		return NULL;
	}
	char *p = NULL;
	if (json_is_true(json_object_get(o, "available")))
		p = sw__strdup(json_string_value(json_object_get(json_object_get(o, "xcrun"), "path")));
	else
		unsupported(o, err);
	json_decref(o);
	return p;
}
