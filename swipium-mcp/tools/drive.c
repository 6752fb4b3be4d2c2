/* drive.c: the device-driving tools: qa_snapshot, qa_inspect, qa_act, qa_screenshot (the device binding is binding.c).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../mcp.h"

/* Appends the element lines to a summary. */
static void lines_into(char **summary, json_t *lines)
{
	size_t i;
	json_t *l;
	json_array_foreach(lines, i, l)
	{
		if (!json_is_string(l))
			continue;
		char *n = NULL;
		if (asprintf(&n, "%s\n%s", *summary, json_string_value(l)) < 0)
			return;
		free(*summary);
		*summary = n;
	}
}

/* ---- qa_snapshot -------------------------------------------------------- */

static const char *const snapshot_rendered[] = {"elements", "diff", NULL};

static void qa_snapshot(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	sw_drive *b = mcp_drive_get(call, s);
	if (!b)
		return;
	json_t *opts = json_object();
	if (json_object_get(args, "filter"))
		json_object_set(opts, "filter", json_object_get(args, "filter"));
	if (json_is_true(json_object_get(args, "diff")))
		json_object_set_new(opts, "diff", json_true());
	char *oj = json_dumps(opts, JSON_COMPACT);
	json_decref(opts);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_drive_snapshot(b, oj, &out, &err); /* counts snapshot failures; verbose from responseMode */
	free(oj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	json_t *diff = json_object_get(res, "diff");
	char *summary = NULL;
	if (asprintf(&summary, "%zu elements%s%s (quality %s)%s", json_array_size(json_object_get(res, "elements")),
	             json_object_get(res, "package") ? " on " : "",
	             json_object_get(res, "package") ? json_string_value(json_object_get(res, "package")) : "",
	             json_string_value(json_object_get(res, "quality")),
	             json_integer_value(json_object_get(res, "elementsOmitted")) > 0 ? "; more with filter" : "") < 0)
		summary = NULL;
	if (summary && diff) {
		char *n = NULL;
		if (asprintf(&n, "%s\ndiff: %lld added, %lld removed", summary,
		             (long long)json_integer_value(json_object_get(diff, "addedCount")),
		             (long long)json_integer_value(json_object_get(diff, "removedCount"))) >= 0) {
			free(summary);
			summary = n;
		}
	}
	if (summary)
		lines_into(&summary, json_object_get(res, "elements"));
	mcp_next(call, "qa_act {sessionId: \"%s\", action: \"tap\", target: {ref: \"@eN\"}}", sw_session_id(s));
	mcp_ok(call, res, summary ? summary : "Snapshot taken.");
	free(summary);
}

const struct mcp_tool mcp_tool_qa_snapshot = {
    .name = "qa_snapshot",
    .group = "drive",
    .description = "Interactive elements as @eN element lines (no screenshot) with a quality verdict; capped at 60, "
                   "filter finds the rest, diff:true returns only changes.",
    .schema =
        "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
        "\"diff\":{\"type\":\"boolean\"},"
        "\"filter\":{\"type\":\"string\",\"description\":\"Case-insensitive substring of text, label, id or role.\"}},"
        "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_snapshot,
    .rendered_above = snapshot_rendered,
};

/* ---- qa_inspect --------------------------------------------------------- */

static void qa_inspect(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	sw_drive *b = mcp_drive_get(call, s);
	if (!b)
		return;
	const char *ref = json_string_value(json_object_get(args, "ref"));
	char *out = NULL;
	sw_error *err = NULL;
	if (sw_snapshot_inspect(sw_drive_tracker(b), ref, &out, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	char summary[600];
	sw_text_snprintf(summary, sizeof(summary), "%s", json_string_value(json_object_get(res, "line")));
	mcp_ok(call, res, summary);
}

const struct mcp_tool mcp_tool_qa_inspect = {
    .name = "qa_inspect",
    .group = "drive",
    .description = "Every attribute of one @eN ref from the latest snapshot (secrets redacted).",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
              "\"ref\":{\"type\":\"string\",\"description\":\"e.g. @e3\"}},\"required\":[\"sessionId\",\"ref\"]}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_inspect,
};

/* ---- qa_act ------------------------------------------------------------- */

static const char *const act_rendered[] = {"elements", "removed", "hint", "stateChanged", NULL};

static void qa_act(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	if (mcp_budget_stopped(call, s))
		return;
	sw_drive *b = mcp_drive_get(call, s);
	if (!b)
		return;
	json_t *a = json_deep_copy(args);
	json_object_del(a, "sessionId");
	char *aj = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	char *out = NULL;
	sw_error *err = NULL;
	/* the library records the action and keeps the counters (sw_drive_bind) */
	sw_drive_set_abort(b, mcp_call_abort, call);
	int rc = sw_drive_act(b, aj, &out, &err);
	sw_drive_set_abort(b, NULL, NULL);
	free(aj);
	if (rc != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	bool changed = json_is_true(json_object_get(res, "changed"));
	const char *action = json_string_value(json_object_get(args, "action"));
	char *summary = NULL;
	if (asprintf(&summary, "%s%s%s: %s%s", action, json_object_get(res, "ref") ? " " : "",
	             json_object_get(res, "ref") ? json_string_value(json_object_get(res, "ref")) : "",
	             changed ? "screen changed" : "no visible change",
	             json_is_true(json_object_get(res, "diffAsFull")) ? " (new screen)" : "") < 0)
		summary = NULL;
	if (summary)
		lines_into(&summary, json_object_get(res, "elements"));
	mcp_next(call, "qa_snapshot {sessionId: \"%s\"} to see the whole screen", sw_session_id(s));
	mcp_ok(call, res, summary ? summary : "Done.");
	free(summary);
}

#define TARGET_SCHEMA                                                                                                  \
	"{\"type\":\"object\",\"properties\":{\"ref\":{\"type\":\"string\"},\"text\":{\"type\":\"string\"},"           \
	"\"id\":{\"type\":\"string\"},\"selector\":{\"type\":\"object\",\"properties\":{\"using\":{\"type\":"          \
	"\"string\","                                                                                                  \
	"\"enum\":[\"accessibility id\",\"name\",\"predicate string\",\"class "                                        \
	"chain\"]},\"value\":{\"type\":\"string\"}},"                                                                  \
	"\"required\":[\"using\",\"value\"]},\"index\":{\"type\":\"number\"},\"x\":{\"type\":\"number\"},"             \
	"\"y\":{\"type\":\"number\"}}}"

const struct mcp_tool mcp_tool_qa_act = {
    .name = "qa_act",
    .group = "drive",
    .description = "Acts on the screen (tap, type, clear, swipe, scroll, press, open_url, wait), settles, and "
                   "returns what changed as element lines.",
    .schema =
        "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
        "\"action\":{\"type\":\"string\",\"enum\":[\"tap\",\"type\",\"clear\",\"swipe\",\"scroll\",\"press\","
        "\"open_url\",\"wait\"]},"
        "\"target\":" TARGET_SCHEMA ","
        "\"text\":{\"type\":\"string\",\"description\":\"For type; ${SWIPIUM_*} placeholders are resolved.\"},"
        "\"mode\":{\"type\":\"string\",\"enum\":[\"replace\",\"append\"]},"
        "\"submit\":{\"type\":\"boolean\"},"
        "\"direction\":{\"type\":\"string\",\"enum\":[\"up\",\"down\",\"left\",\"right\"]},"
        "\"untilVisible\":" TARGET_SCHEMA ","
        "\"maxScrolls\":{\"type\":\"number\"},"
        "\"key\":{\"type\":\"string\",\"enum\":[\"back\",\"home\",\"enter\"]},"
        "\"url\":{\"type\":\"string\"},"
        "\"durationMs\":{\"type\":\"number\"},"
        "\"ignoreOverlay\":{\"type\":\"boolean\"},"
        "\"for\":{\"type\":\"object\",\"properties\":{\"settled\":{\"type\":\"boolean\"},\"ref\":{\"type\":\"string\"},"
        "\"text\":{\"type\":\"string\"},\"id\":{\"type\":\"string\"},\"selector\":{\"type\":\"object\"}}},"
        "\"observe\":{\"type\":\"string\",\"enum\":[\"diff\",\"full\",\"none\"]},"
        "\"timeoutMs\":{\"type\":\"number\"}},"
        "\"required\":[\"sessionId\",\"action\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_act,
    .rendered_above = act_rendered,
};

/* ---- qa_screenshot ------------------------------------------------------ */

static void qa_screenshot(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	if (sw_session_is_sensitive(s)) {
		mcp_fail(call, "SENSITIVE_MODE_REFUSED", "This session is sensitive: screenshots are refused.", NULL);
		return;
	}
	if (mcp_budget_stopped(call, s))
		return;
	sw_drive *b = mcp_drive_get(call, s);
	if (!b)
		return;
	char *meta = NULL;
	sw_error *err = NULL;
	bool force = json_is_true(json_object_get(args, "force"));
	const char *label = json_string_value(json_object_get(args, "reason"));
	if (sw_drive_screenshot_save(b, force, label, &meta, &err) != SW_OK) {
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(meta, 0, NULL);
	sw_free(meta);
	char summary[400];
	sw_text_snprintf(summary, sizeof(summary), "Screenshot %dx%d saved: %s",
	         (int)json_integer_value(json_object_get(res, "width")),
	         (int)json_integer_value(json_object_get(res, "height")),
	         json_string_value(json_object_get(res, "uri")));
	mcp_ok(call, res, summary);
}

const struct mcp_tool mcp_tool_qa_screenshot = {
    .name = "qa_screenshot",
    .group = "drive",
    .description = "Saves a PNG of the screen as a swipium:// artifact with coordinate-space metadata; withheld "
                   "while a secure field is on screen unless force.",
    .schema =
        "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
        "\"force\":{\"type\":\"boolean\"},\"reason\":{\"type\":\"string\",\"description\":\"Shown in the report.\"}},"
        "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_screenshot,
};

/* ---- qa_resolve_target -------------------------------------------------- */

/* Appends the .apk files under @dir (at most @depth levels down, at most 20) to @arr. */
static void apks_under(json_t *arr, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) && json_array_size(arr) < 20) {
		if (e->d_name[0] == '.')
			continue;
		char *p = NULL;
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
			break;
		struct stat st;
		if (lstat(p, &st) == 0) {
			size_t n = strlen(e->d_name);
			if (S_ISREG(st.st_mode) && n > 4 && !strcmp(e->d_name + n - 4, ".apk"))
				json_array_append_new(arr, json_string(p));
			else if (S_ISDIR(st.st_mode) && depth > 0)
				apks_under(arr, p, depth - 1);
		}
		free(p);
	}
	closedir(d);
}

/* The prebuilt APKs of the project: Gradle's output folders of a native or React Native app. */
static json_t *find_apks(const char *root)
{
	json_t *arr = json_array();
	static const char *const dirs[] = {"app/build/outputs/apk", "android/app/build/outputs/apk", NULL};
	for (int i = 0; dirs[i] && arr; i++) {
		char *p = NULL;
		if (asprintf(&p, "%s/%s", root, dirs[i]) < 0)
			break;
		apks_under(arr, p, 3);
		free(p);
	}
	return arr;
}

static void qa_resolve_target(mcp_call *call, json_t *args)
{
	sw_session *s = NULL;
	if (json_object_get(args, "sessionId") && mcp_call_session(call, NULL, &s) != 0)
		return;
	/* the project root: projectRoot (resolved and checked like every tool), else the session's */
	const char *root_arg = json_string_value(json_object_get(args, "projectRoot"));
	char *root = NULL, *source = NULL;
	if (root_arg) {
		if (mcp_call_project_root(call, root_arg, &root, &source) != 0)
			return;
	} else if (s) {
		root = strdup(sw_session_root(s));
	}
	const char *platform = json_string_value(json_object_get(args, "platform"));
	if (platform && !strcmp(platform, "ios")) {
		free(root);
		sw_free(source);
		json_t *io = json_object();
		static const char *const ikeys[] = {"device", "include", NULL};
		for (int i = 0; ikeys[i]; i++)
			if (json_object_get(args, ikeys[i]))
				json_object_set(io, ikeys[i], json_object_get(args, ikeys[i]));
		char *ioj = json_dumps(io, JSON_COMPACT);
		json_decref(io);
		char *iout = NULL;
		sw_error *ierr = NULL;
		int irc = sw_ios_resolve_target(mcp_call_ctx(call), s, ioj, &iout, &ierr);
		free(ioj);
		if (irc != SW_OK) {
			mcp_fail_err(call, ierr);
			sw_error_free(ierr);
			return;
		}
		json_t *ires = json_loads(iout, 0, NULL);
		sw_free(iout);
		json_t *isel = json_object_get(ires, "selected");
		char isum[400];
		sw_text_snprintf(isum, sizeof(isum), "iOS simulator %s (%s, %s)%s.",
		                 json_string_value(json_object_get(isel, "name")),
		                 json_string_value(json_object_get(isel, "runtime")),
		                 json_string_value(json_object_get(isel, "state")),
		                 json_is_true(json_object_get(ires, "willBoot")) ? ": it would be booted" : "");
		mcp_next(call, "qa_ios {sessionId, action: \"boot\", device: \"%s\"}",
		         json_string_value(json_object_get(isel, "udid")));
		mcp_ok(call, ires, isum);
		return;
	}
	json_t *o = json_object();
	static const char *const keys[] = {"device", "preferRealDevice", "include", NULL};
	for (int i = 0; keys[i]; i++)
		if (json_object_get(args, keys[i]))
			json_object_set(o, keys[i], json_object_get(args, keys[i]));
	if (root)
		json_object_set_new(o, "projectRoot", json_string(root));
	char *oj = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_android_resolve_target(mcp_call_ctx(call), oj, &out, &err);
	free(oj);
	if (rc != SW_OK) {
		free(root);
		sw_free(source);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	if (root) {
		json_object_set_new(res, "projectRoot", json_string(root));
		if (source)
			json_object_set_new(res, "rootSource", json_string(source));
		json_t *ctxo = json_object_get(res, "context");
		if (ctxo)
			json_object_set_new(ctxo, "prebuiltApks", find_apks(root));
	}
	free(root);
	sw_free(source);
	char summary[700];
	sw_text_snprintf(summary, sizeof(summary), "Target: %s", json_string_value(json_object_get(res, "reason")));
	if (s)
		mcp_next(call, "qa_prepare_target {sessionId: \"%s\"}", sw_session_id(s));
	else
		mcp_next(call, "qa_start_session then qa_prepare_target");
	mcp_ok(call, res, summary);
}

const struct mcp_tool mcp_tool_qa_resolve_target = {
    .name = "qa_resolve_target",
    .group = "build",
    .description = "Picks the device to test on (online emulator first, else an AVD to boot) without booting "
                   "anything; include adds context and a READY/BLOCKED plan.",
    .schema = "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
              "\"projectRoot\":{\"type\":\"string\"},"
              "\"platform\":{\"type\":\"string\",\"enum\":[\"android\",\"ios\"]},"
              "\"device\":{\"type\":\"string\",\"description\":\"adb serial or AVD name.\"},"
              "\"preferRealDevice\":{\"type\":\"boolean\"},"
              "\"include\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"context\",\"plan\"]}}}}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_resolve_target,
};

/* ---- qa_prepare_target -------------------------------------------------- */

static void qa_prepare_target(mcp_call *call, json_t *args)
{
	sw_session *s;
	if (mcp_call_session(call, NULL, &s) != 0)
		return;
	const char *apk = json_string_value(json_object_get(args, "apk"));
	const char *app = json_string_value(json_object_get(args, "appId"));
	const char *avd = json_string_value(json_object_get(args, "avd"));
	bool force = json_is_true(json_object_get(args, "force"));
	json_t *o = json_object();
	json_t *plan = NULL;
	static const char *const keys[] = {"device", "avd", "headless", "appId", "bindOnly", NULL};
	for (int i = 0; keys[i]; i++)
		if (json_object_get(args, keys[i]))
			json_object_set(o, keys[i], json_object_get(args, keys[i]));
	if (apk && !json_is_true(json_object_get(args, "bindOnly"))) {
		char *pj = NULL;
		sw_error *err = NULL;
		if (sw_artifact_install_plan(sw_session_root(s), apk, &pj, &err) != SW_OK) {
			json_decref(o);
			mcp_fail_err(call, err);
			sw_error_free(err);
			mcp_fail_step(call, "qa_prepare_target {sessionId: \"%s\", appId} for an app already installed",
			              sw_session_id(s));
			return;
		}
		plan = json_loads(pj, 0, NULL);
		sw_free(pj);
		const char *apk_real = json_string_value(json_object_get(plan, "apk"));
		const char *apk_app = json_string_value(json_object_get(plan, "appId"));
		const char *launch_app = app ? app : apk_app;
		/* already installed: launch it, no prompt, nothing sent (force reinstalls) */
		int installed = -1;
		if (!force && apk_app && (!app || !strcmp(app, apk_app))) {
			char *dj = json_dumps(o, JSON_COMPACT);
			sw_error *ierr = NULL;
			if (sw_android_app_installed(mcp_call_ctx(call), dj, apk_app, &installed, &ierr) != SW_OK)
				sw_error_free(ierr);
			free(dj);
		}
		if (installed == 1) {
			json_object_set_new(o, "appId", json_string(apk_app));
			json_object_set_new(plan, "skipped", json_string("already installed on the device; force:true "
			                                                 "reinstalls it"));
		} else {
			json_object_set_new(o, "apk", json_string(apk_real));
			if (launch_app)
				json_object_set_new(o, "appId", json_string(launch_app));
			bool inside = json_is_true(json_object_get(plan, "insideRoot"));
			const char *sha = json_string_value(json_object_get(plan, "sha256"));
			json_t *affects = json_pack("{s:s,s:s,s:b}", "apk", apk_real, "sha256", sha, "insideProjectRoot", inside);
			char explain[1400];
			sw_text_snprintf(explain, sizeof(explain), "Install the APK%s%s%s on the emulator (sha256 %s), then launch %s.",
			                 inside ? "" : " (outside the project)", apk_app ? " of " : "", apk_app ? apk_app : "",
			                 sha, launch_app ? launch_app : "nothing (no app id known)");
			/* the path goes to the gate as an argument: quoted whole, or the prompt is refused */
			json_t *commands = json_pack("[{s:s,s:[s,s,s,s],s:s}]", "label", "install", "argv", "adb", "install",
			                             "-r", apk_real, "origin", "the apk argument");
			struct mcp_consent_request req = {
			    .action = "prepare_plan",
			    .risk = json_string_value(json_object_get(plan, "risk")),
			    .explain = explain,
			    .affects = affects,
			    .session = s,
			    .commands = commands,
			};
			enum mcp_consent_outcome oc = mcp_call_consent_take(call, args, &req);
			if (oc == MCP_CONSENT_ANSWERED) {
				json_decref(o);
				json_decref(plan);
				return;
			}
		}
	}
	const char *launch = json_string_value(json_object_get(o, "appId"));
	char *app_copy = launch ? strdup(launch) : NULL;
	bool installing = json_object_get(o, "apk") != NULL;
	char *oj = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	sw_error *err = NULL;
	if (installing || avd) {
		/* boot and install can take minutes: a job */
		char *job_id = NULL;
		int rc = sw_prepare_target_start(mcp_call_ctx(call), s, oj, &job_id, &err);
		free(oj);
		free(app_copy);
		if (rc != SW_OK) {
			json_decref(plan);
			mcp_fail_err(call, err);
			sw_error_free(err);
			return;
		}
		json_t *res = json_pack("{s:s,s:s}", "jobId", job_id, "status", "running");
		if (plan)
			json_object_set_new(res, "install", plan);
		mcp_next(call, "qa_job_status {sessionId: \"%s\", jobId: \"%s\", waitMs: 45000}", sw_session_id(s),
		         job_id);
		sw_free(job_id);
		mcp_ok(call, res, "Preparing the target in the background (boot, install, launch).");
		return;
	}
	char *out = NULL;
	int rc = sw_prepare_target_run(mcp_call_ctx(call), s, oj, &out, &err);
	free(oj);
	if (rc != SW_OK) {
		json_decref(plan);
		free(app_copy);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	if (plan) {
		json_object_set_new(res, "installed", json_false());
		json_object_set_new(res, "install", plan);
	}
	const char *app_shown = app_copy;
	char summary[300];
	sw_text_snprintf(summary, sizeof(summary), "Bound %s%s%s.",
	         json_string_value(json_object_get(json_object_get(res, "device"), "serial")), app_shown ? "; launched " : "",
	         app_shown ? app_shown : "");
	free(app_copy);
	mcp_next(call, "qa_snapshot {sessionId: \"%s\"}", sw_session_id(s));
	mcp_ok(call, res, summary);
}

const struct mcp_tool mcp_tool_qa_prepare_target = {
    .name = "qa_prepare_target",
    .group = "setup",
    .description = "Binds the online emulator (or boots avd), installs apk (consent prepare_plan), launches appId "
                   "and verifies it is in front; boot and install run as a job.",
    .schema =
        "{\"type\":\"object\",\"properties\":{\"sessionId\":{\"type\":\"string\"},"
        "\"apk\":{\"type\":\"string\"},\"appId\":{\"type\":\"string\"},\"avd\":{\"type\":\"string\"},"
        "\"device\":{\"type\":\"string\",\"description\":\"Required when more than one device is online.\"},"
        "\"headless\":{\"type\":\"boolean\"},\"force\":{\"type\":\"boolean\"},\"bindOnly\":{\"type\":\"boolean\"},"
        "\"allowLaunchWithoutMetro\":{\"type\":\"boolean\"},"
        "\"consentId\":{\"type\":\"string\"},\"approve\":{\"type\":\"boolean\"}},"
        "\"required\":[\"sessionId\"]}",
    .annot = MCP_ANNOT_W,
    .handler = qa_prepare_target,
};
