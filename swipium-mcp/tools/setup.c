/* setup.c: the `setup` group tools that need no device: qa_doctor and qa_start_session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../mcp.h"

/* ---- qa_doctor --------------------------------------------------------------------------------- */

static char *find_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = strdup(path);
	char *save = NULL;
	char *found = NULL;
	for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir; dir = strtok_r(NULL, ":", &save)) {
		char cand[4096];
		snprintf(cand, sizeof(cand), "%s/%s", *dir ? dir : ".", prog);
		if (access(cand, X_OK) == 0) {
			found = strdup(cand);
			break;
		}
	}
	free(copy);
	return found;
}

static char *sdk_dir(const char **source)
{
	static const char *const vars[] = {"ANDROID_HOME", "ANDROID_SDK_ROOT", NULL};
	for (int i = 0; vars[i]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			*source = vars[i];
			return strdup(v);
		}
	}
	const char *home = getenv("HOME");
	char *d = NULL;
#ifdef __APPLE__
	if (home && asprintf(&d, "%s/Library/Android/sdk", home) < 0)
		d = NULL;
#else
	if (home && asprintf(&d, "%s/Android/Sdk", home) < 0)
		d = NULL;
#endif
	*source = "default";
	return d;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *tool_path(const char *sdk, const char *sub, const char *prog, bool sdk_first)
{
	char cand[4096];
	if (sdk)
		snprintf(cand, sizeof(cand), "%s/%s/%s", sdk, sub, prog);
	if (sdk_first && sdk && access(cand, X_OK) == 0)
		return strdup(cand);
	char *p = find_on_path(prog);
	if (p)
		return p;
	if (sdk && access(cand, X_OK) == 0)
		return strdup(cand);
	return NULL;
}

static void row(json_t *rows, const char *id, const char *status, const char *detail, const char *fix)
{
	json_t *r = json_pack("{s:s,s:s,s:s}", "id", id, "status", status, "detail", detail);
	if (fix)
		json_object_set_new(r, "fix", json_string(fix));
	json_array_append_new(rows, r);
}

static void qa_doctor(mcp_call *call, json_t *args)
{
	struct mcp_server *srv = call->srv;
	const char *platform = json_string_value(json_object_get(args, "platform"));
	const char *client = json_string_value(json_object_get(args, "client"));
	/* default: both where xcrun is on PATH (decided by the tools, never by the OS name), else android */
	char *xcrun_on_path = platform ? NULL : find_on_path("xcrun");
	if (!platform)
		platform = xcrun_on_path ? "both" : "android";
	free(xcrun_on_path);
	bool want_android = strcmp(platform, "ios") != 0;
	bool want_ios = strcmp(platform, "android") != 0;
	json_t *rows = json_array();
	char detail[4600];

	sw_text_snprintf(detail, sizeof(detail), "libswipium %s (compatible with Swipium %s)", sw_version(),
	         sw_compatible_with());
	row(rows, "library", "ok", detail, NULL);

	bool android_ready = false;
	if (want_android) {
		const char *src = NULL;
		char *sdk = sdk_dir(&src);
		bool have_sdk = is_dir(sdk);
		sw_text_snprintf(detail, sizeof(detail), "%s (%s)%s", sdk ? sdk : "(no HOME)", src,
		         have_sdk ? "" : ": not found");
		row(rows, "android-sdk", have_sdk ? "ok" : "warn", detail,
		    have_sdk ? NULL : "Install the Android SDK or set ANDROID_HOME to it.");
		char *adb = tool_path(have_sdk ? sdk : NULL, "platform-tools", "adb", false);
		sw_text_snprintf(detail, sizeof(detail), "%s",
		         adb ? adb : "adb not found on PATH or in the SDK's platform-tools");
		row(rows, "adb", adb ? "ok" : "error", detail,
		    adb ? NULL : "Install Android platform-tools (Debian: apt-get install adb) or put adb on PATH.");
		char *emu = tool_path(have_sdk ? sdk : NULL, "emulator", "emulator", true);
		sw_text_snprintf(detail, sizeof(detail), "%s", emu ? emu : "emulator not found in the SDK or on PATH");
		row(rows, "emulator", emu ? "ok" : "warn", detail,
		    emu ? NULL
		        : "Install the SDK emulator package to boot AVDs; an already running emulator works without "
		          "it.");
		android_ready = adb != NULL;
		free(sdk);
		free(adb);
		free(emu);
	}
	bool ios_ready = false;
	if (want_ios) {
		char *tj = NULL;
		json_t *tc = sw_ios_toolchain(mcp_call_ctx(call), &tj, NULL) == SW_OK ? json_loads(tj, 0, NULL) : NULL;
		sw_free(tj);
		json_t *xr = json_object_get(tc, "xcrun");
		ios_ready = json_is_true(json_object_get(tc, "available"));
		const char *xp = json_string_value(json_object_get(xr, "path"));
		if (ios_ready)
			sw_text_snprintf(detail, sizeof(detail), "%s simctl help works", xp);
		else
			sw_text_snprintf(detail, sizeof(detail), "%s; iOS tools answer BACKEND_UNSUPPORTED",
			                 json_string_value(json_object_get(tc, "reason")) ? json_string_value(json_object_get(tc, "reason"))
			                                                                  : "xcrun simctl does not work");
		row(rows, "xcrun-simctl", ios_ready ? "ok" : "error", detail,
		    ios_ready ? NULL
		              : json_string_value(json_array_get(json_object_get(tc, "nextSteps"), 0))
		                    ? json_string_value(json_array_get(json_object_get(tc, "nextSteps"), 0))
		                    : "Install Xcode and put xcrun on PATH.");
		json_t *xb = json_object_get(tc, "xcodebuild");
		const char *xbv = json_string_value(json_object_get(xb, "version"));
		const char *xbp = json_string_value(json_object_get(xb, "path"));
		if (xbv)
			sw_text_snprintf(detail, sizeof(detail), "%s (%s)", xbv, xbp);
		else
			sw_text_snprintf(detail, sizeof(detail), "%s", xbp ? "xcodebuild -version failed" : "xcodebuild not on PATH");
		row(rows, "xcodebuild", xbv ? "ok" : "warn", detail,
		    xbv ? NULL : "Install Xcode (xcodebuild builds and starts WebDriverAgent); without it iOS runs visual-only.");
		/* WebDriverAgent: its /status at the default URL and the project qa_wda would build (qa_wda doctor) */
		char *wj = NULL;
		json_t *wd = ios_ready && sw_ios_wda_run(mcp_call_ctx(call), NULL, "{\"action\":\"doctor\"}", &wj, NULL) == SW_OK
		                 ? json_loads(wj, 0, NULL)
		                 : NULL;
		sw_free(wj);
		json_t *ws = json_object_get(wd, "status");
		bool wda_ready = json_is_true(json_object_get(ws, "ready"));
		const char *wurl = json_string_value(json_object_get(wd, "url"));
		if (wda_ready)
			sw_text_snprintf(detail, sizeof(detail), "WebDriverAgent at %s is ready", wurl ? wurl : "?");
		else
			sw_text_snprintf(detail, sizeof(detail),
			                 "WebDriverAgent %s%s: until one is attached iOS runs visual-only (simctl)",
			                 wurl ? "is not ready at " : "was not checked", wurl ? wurl : (ios_ready ? "" : " (no xcrun)"));
		row(rows, "wda", wda_ready ? "ok" : "warn", detail,
		    wda_ready ? "Attach it: qa_wda {action: \"attach\"}"
		              : "Start one (qa_wda {action: \"build\"} then \"start\"), or attach a running one with qa_wda "
		                "{action: \"attach\", webDriverAgentUrl}");
		json_t *wp = json_object_get(wd, "wdaProject");
		const char *wpp = json_string_value(json_object_get(wp, "path"));
		size_t nsearched = json_array_size(json_object_get(wp, "searched"));
		if (wpp)
			sw_text_snprintf(detail, sizeof(detail), "%s", wpp);
		else
			sw_text_snprintf(detail, sizeof(detail), "no WebDriverAgent.xcodeproj found (%zu place(s) searched: %s)",
			                 nsearched,
			                 json_string_value(json_array_get(json_object_get(wp, "searched"), 0))
			                     ? json_string_value(json_array_get(json_object_get(wp, "searched"), 0))
			                     : (ios_ready ? "none" : "not searched without xcrun"));
		row(rows, "wda-project", wpp ? "ok" : "warn", detail,
		    wpp ? NULL
		        : "Install Appium's XCUITest driver (appium driver install xcuitest), or pass wdaProjectPath to qa_wda");
		json_decref(wd);
		const char *idb = json_string_value(json_object_get(json_object_get(tc, "idb"), "path"));
		sw_text_snprintf(detail, sizeof(detail), "%s", idb ? idb : "idb not on PATH (optional: visual-only taps)");
		row(rows, "idb", idb ? "ok" : "warn", detail,
		    idb ? NULL : "Optional: install idb (pip install fb-idb, brew install facebook/fb/idb-companion) for taps without WebDriverAgent.");
		json_decref(tc);
	}

	/* Client freshness: the caller tells us what its tool list looked like. */
	const char *ev = json_string_value(json_object_get(args, "expectedVersion"));
	json_t *etc = json_object_get(args, "expectedToolCount");
	const char *eh = json_string_value(json_object_get(args, "expectedSchemaHash"));
	bool stale = false;
	if (ev || etc || eh) {
		stale = (ev && strcmp(ev, sw_version()) != 0 && strcmp(ev, sw_compatible_with()) != 0) ||
		        (json_is_number(etc) && (size_t)json_number_value(etc) != srv->tool_count) ||
		        (eh && strcmp(eh, srv->schema_hash) != 0);
		sw_text_snprintf(detail, sizeof(detail), "server %s, %zu tools, schema %s%s", sw_version(), srv->tool_count,
		         srv->schema_hash, stale ? ": the client's view differs (stale tool list)" : ": matches");
		row(rows, "client-freshness", stale ? "warn" : "ok", detail,
		    stale ? "Restart the MCP client so it reloads tools/list." : NULL);
	}

	pthread_mutex_lock(&srv->lock);
	const char *client_name = json_string_value(json_object_get(srv->client_info, "name"));
	bool codex = (client && !strcmp(client, "codex")) || (client_name && strstr(client_name, "codex"));
	pthread_mutex_unlock(&srv->lock);
	json_t *codex_obj = NULL;
	if (codex) {
		json_t *visible = json_array();
		char line[4096];
		size_t used = (size_t)snprintf(line, sizeof(line), "env_vars = [");
		for (int i = 0; sw_client_env_vars()[i]; i++) {
			if (getenv(sw_client_env_vars()[i]))
				json_array_append_new(visible, json_string(sw_client_env_vars()[i]));
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s\"%s\"", i ? ", " : "",
			                         sw_client_env_vars()[i]);
		}
		snprintf(line + used, sizeof(line) - used, "]");
		char *names = json_dumps(visible, JSON_COMPACT);
		sw_text_snprintf(detail, sizeof(detail), "visible Swipium-related variables (names only): %s",
		         names ? names : "[]");
		free(names);
		row(rows, "codex-env", "ok", detail, NULL);
		row(rows, "codex-tool-timeout", "warn",
		    "Codex stops tool calls after tool_timeout_sec (default 60 s); some Swipium steps take longer.",
		    "Set tool_timeout_sec = 600 in [mcp_servers.swipium].");
		codex_obj =
		    json_pack("{s:s,s:i,s:o}", "envVarsLine", line, "toolTimeoutSec", 600, "visibleEnvVars", visible);
	}

	bool ready = (want_android && android_ready) || (want_ios && ios_ready);
	json_t *o = json_pack("{s:b,s:s,s:s,s:s,s:s,s:I,s:o}", "ready", ready, "platform", platform, "swipiumVersion",
	                      sw_version(), "compatibleWith", sw_compatible_with(), "schemaHash", srv->schema_hash,
	                      "toolCount", (json_int_t)srv->tool_count, "checks", rows);
	if (stale)
		json_object_set_new(o, "clientHint",
		                    json_string("Your client's tool list is stale: restart it to reload tools/list."));
	if (client)
		json_object_set_new(o, "client", json_string(client));
	if (codex_obj)
		json_object_set_new(o, "codex", codex_obj);
	char summary[300];
	sw_text_snprintf(summary, sizeof(summary), "Swipium %s doctor (%s): %s. %zu tools, schema %s.", sw_version(), platform,
	         ready ? "ready" : "not ready", srv->tool_count, srv->schema_hash);
	if (!ready)
		mcp_next(call, "Fix the rows with status error (each has a fix), then qa_doctor again");
	else
		mcp_next(call, "qa_start_session {projectRoot} to begin");
	mcp_ok(call, o, summary);
}

const struct mcp_tool mcp_tool_qa_doctor = {
    .name = "qa_doctor",
    .group = "setup",
    .description = "Checks what Swipium needs (library, Android SDK/adb/emulator, Xcode on macOS) and whether the "
                   "client's tool list is current; returns schemaHash.",
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"platform\":{\"type\":\"string\",\"enum\":[\"android\",\"ios\",\"both\"]},"
              "\"client\":{\"type\":\"string\",\"enum\":[\"claude\",\"gemini\",\"codex\",\"cursor\",\"vscode\"]},"
              "\"expectedVersion\":{\"type\":\"string\"},"
              "\"expectedToolCount\":{\"type\":\"number\"},"
              "\"expectedSchemaHash\":{\"type\":\"string\",\"description\":\"From an earlier qa_doctor; a "
              "mismatch means a stale client.\"}}}",
    .annot = MCP_ANNOT_RO,
    .handler = qa_doctor,
};

/* ---- qa_start_session -------------------------------------------------------------------------- */

static void qa_start_session(mcp_call *call, json_t *args)
{
	sw_store *store = mcp_call_store(call);
	if (!store)
		return;
	char *root = NULL, *source = NULL;
	if (mcp_call_project_root(call, json_string_value(json_object_get(args, "projectRoot")), &root, &source) != 0)
		return;
	json_t *opts = json_object();
	static const char *const keys[] = {"responseMode", "sensitive", "profile", "budget", "fixtures", NULL};
	for (int i = 0; keys[i]; i++)
		if (json_object_get(args, keys[i]))
			json_object_set(opts, keys[i], json_object_get(args, keys[i]));
	char *opts_text = json_dumps(opts, JSON_COMPACT);
	json_decref(opts);
	sw_session *s = NULL;
	sw_error *err = NULL;
	int rc = sw_session_create(store, root, source, opts_text, &s, &err);
	free(opts_text);
	if (rc != SW_OK) {
		sw_free(root);
		sw_free(source);
		mcp_fail_err(call, err);
		sw_error_free(err);
		return;
	}
	call->session = s;
	char *budget = NULL;
	(void)sw_session_get_json(s, "budget", &budget, NULL);
	json_t *b = budget ? json_loads(budget, 0, NULL) : NULL;
	sw_free(budget);
	const char *mode = json_string_value(json_object_get(args, "responseMode"));
	json_t *o =
	    json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:o}", "sessionId", sw_session_id(s), "projectRoot", root, "rootSource",
	              source, "sessionDir", sw_session_dir(s), "responseMode", mode ? mode : "normal", "sensitive",
	              sw_session_is_sensitive(s), "budget", b ? b : json_null());
	if (json_object_get(args, "profile"))
		json_object_set(o, "profile", json_object_get(args, "profile"));
	if (json_is_array(json_object_get(args, "fixtures")))
		json_object_set_new(o, "fixtureCount",
		                    json_integer((json_int_t)json_array_size(json_object_get(args, "fixtures"))));
	char *summary = NULL;
	if (asprintf(&summary, "Session %s started for %s%s%s", sw_session_id(s), root,
	             !strcmp(source, "cwd") ? "\nproject root taken from server cwd: " : "",
	             !strcmp(source, "cwd") ? root : "") < 0)
		summary = NULL;
	if (summary && !strcmp(source, "cwd")) {
		char *more = NULL;
		if (asprintf(&more, "%s; pass projectRoot to override", summary) >= 0) {
			free(summary);
			summary = more;
		}
		mcp_keep_whole_summary(call);
	}
	mcp_next(call, "qa_note {sessionId: \"%s\", workflow, outcome} after each workflow you check",
	         sw_session_id(s));
	if (mcp_tool_listed("qa_report"))
		mcp_next(call, "qa_report {sessionId: \"%s\"} at the end to save the report", sw_session_id(s));
	mcp_ok(call, o, summary ? summary : "Session started.");
	free(summary);
	sw_free(root);
	sw_free(source);
}

const struct mcp_tool mcp_tool_qa_start_session = {
    .name = "qa_start_session",
    .group = "setup",
    .description = "Starts a QA session on the project root (arg, MCP roots, SWIPIUM_PROJECT_ROOT, "
                   "CLAUDE_PROJECT_DIR, cwd) with a budget and optional fixtures.",
    .schema =
        "{\"type\":\"object\",\"properties\":{"
        "\"projectRoot\":{\"type\":\"string\",\"description\":\"Absolute app repository path.\"},"
        "\"responseMode\":{\"type\":\"string\",\"enum\":[\"compact\",\"normal\",\"verbose\"],"
        "\"description\":\"Text detail for later calls (default normal).\"},"
        "\"sensitive\":{\"type\":\"boolean\",\"description\":\"Refuse every screenshot, recording and log.\"},"
        "\"profile\":{\"type\":\"string\",\"enum\":[\"guardrail\",\"login_smoke\",\"full_smoke\",\"install_smoke\"]},"
        "\"budget\":{\"type\":\"object\",\"properties\":{"
        "\"maxMinutes\":{\"type\":\"number\",\"minimum\":0},\"maxActions\":{\"type\":\"number\",\"minimum\":0},"
        "\"maxScreenshots\":{\"type\":\"number\",\"minimum\":0},"
        "\"maxSnapshotFailures\":{\"type\":\"number\",\"minimum\":0},"
        "\"maxNoChangeActions\":{\"type\":\"number\",\"minimum\":0}}},"
        "\"fixtures\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
        "\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]},"
        "\"description\":\"Test data objects {name, description, fields, seed...}.\"}}}",
    .annot = MCP_ANNOT_W,
    .handler = qa_start_session,
};
