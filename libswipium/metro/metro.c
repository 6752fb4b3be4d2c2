/* metro.c: qa_metro: the project's Metro bundler as a managed process, its /status probe and the device's reverse. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sw-internal.h"
#include "sw-managed.h"
#include "sw-proc.h"
#include <swipium/driver.h>
#include <swipium/metro.h>
#include <swipium/project.h>
#include <swipium/session.h>
#include <swipium/util.h>

#define METRO_DEFAULT_PORT 8081
#define STATUS_TIMEOUT_MS 3000
#define START_WATCH_MS 2500
#define STOP_GRACE_MS 5000
#define EVIDENCE_MAX 20

/* ---- the Metro processes this server started ------------------------------------------ */

/* this server's Metro children, one per session (the shared table of core/managed.c) */
static sw__managed_table metros = SW__MANAGED_TABLE_INIT;

/* ---- small probes ---------------------------------------------------------------------- */

/* 8081, or SWIPIUM_METRO_PORT from the server's environment (never from the repository). */
int sw__metro_port(void)
{
	const char *e = getenv("SWIPIUM_METRO_PORT");
	if (e && *e) {
		char *end = NULL;
		long p = strtol(e, &end, 10);
		if (end && !*end && p >= 1 && p <= 65535)
			return (int)p;
	}
	return METRO_DEFAULT_PORT;
}

/* Does something accept connections on 127.0.0.1:@port (within 1 s)? */
static bool tcp_listening(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bool ok = false;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
		ok = true;
	} else if (errno == EINPROGRESS) {
		struct pollfd p = {fd, POLLOUT, 0};
		int e = 0;
		socklen_t el = sizeof(e);
		ok = poll(&p, 1, 1000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0;
	}
	close(fd);
	return ok;
}

/* GET /status answered "packager-status:running" within 3 s (a Metro that never answers is false, not a hang). */
static bool metro_serving(int port, char **why)
{
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/status", port);
	char *body = NULL;
	long status = 0;
	sw_error *e = NULL;
	int rc = sw__http_get(url, STATUS_TIMEOUT_MS, &status, &body, 4096, &e);
	bool ok = rc == SW_OK && body && strstr(body, "packager-status:running");
	if (!ok && why)
		*why = rc != SW_OK ? sw__strdup(sw_error_message(e))
		                   : sw__asprintf("GET /status answered HTTP %ld without packager-status:running", status);
	free(body);
	sw_error_free(e);
	return ok;
}

/* ---- the project and the device -------------------------------------------------------- */

struct plan {
	json_t *argv; /* [npx, ...] */
	char *cwd;
	const char *framework;
	int port;
	char *serial;   /* NULL: no device to reverse (an iOS Simulator), or none found */
	bool ios;
};

static void plan_clear(struct plan *p)
{
	json_decref(p->argv);
	free(p->cwd);
	free(p->serial);
	memset(p, 0, sizeof(*p));
}

/* The framework and the command from the project detector; UNSUPPORTED_FRAMEWORK unless React Native / Expo. */
static int project_plan(sw_session *s, struct plan *p, sw_error **err)
{
	const char *root = sw_session_root(s);
	char *dj = NULL;
	int rc = sw_project_detect(root, &dj, err);
	if (rc != SW_OK)
		return rc;
	json_t *d = json_loads(dj, 0, NULL);
	sw_free(dj);
	const char *app_root = json_string_value(json_object_get(d, "appRoot"));
	const char *fw = json_string_value(json_object_get(d, app_root ? "appFramework" : "framework"));
	if (!fw)
		fw = json_string_value(json_object_get(d, "framework"));
	p->port = sw__metro_port();
	if (fw && !strcmp(fw, "expo")) {
		p->framework = "expo";
		p->argv = json_pack("[s,s,s,s,s,s]", "npx", "expo", "start", "--dev-client", "--port", "");
	} else if (fw && !strcmp(fw, "bare-react-native")) {
		p->framework = "bare-react-native";
		p->argv = json_pack("[s,s,s,s,s]", "npx", "react-native", "start", "--port", "");
	} else {
		rc = sw__error_set(err, SW_EUNSUPPORTED, "UNSUPPORTED_FRAMEWORK",
		                   "qa_metro is for React Native and Expo projects; other apps embed their code",
		                   "%s is a %s project, not React Native or Expo: it has no Metro bundler to start", root,
		                   fw ? fw : "unknown");
		json_decref(d);
		return rc;
	}
	char port_s[16];
	snprintf(port_s, sizeof(port_s), "%d", p->port);
	json_array_set_new(p->argv, json_array_size(p->argv) - 1, json_string(port_s));
	char *cwd = NULL;
	/* the app folder of a monorepo, through the one confinement rule */
	rc = sw__confine(root, app_root ? app_root : ".", SW__CONFINE_EXISTING, &cwd, err);
	json_decref(d);
	if (rc != SW_OK)
		return rc;
	p->cwd = cwd;
	return p->argv ? SW_OK : sw__error_nomem(err);
}

/* The session's device, else the single online one (MULTIPLE_DEVICES, NO_DEVICE). *ios for an iOS session. */
static int open_device(sw_ctx *ctx, sw_session *s, const char *serial, sw_device **dev, bool *ios, sw_error **err)
{
	*dev = NULL;
	*ios = false;
	json_t *bound = NULL;
	const char *want = serial;
	if (!want && sw__session_get(s, "device", &bound, NULL) >= 0) {
		const char *platform = json_string_value(json_object_get(bound, "platform"));
		if (platform && !strcmp(platform, "ios")) {
			*ios = true;
			json_decref(bound);
			return SW_OK;
		}
		want = json_string_value(json_object_get(bound, "serial"));
	}
	json_t *o = want ? json_pack("{s:s}", "serial", want) : NULL;
	char *oj = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	json_decref(bound);
	int rc = sw_device_open(ctx, sw_driver_android(), oj, dev, err);
	free(oj);
	return rc;
}

static char *device_serial(sw_device *dev)
{
	char *desc = NULL;
	if (!dev || sw_device_describe(dev, &desc, NULL) != SW_OK)
		return NULL;
	json_t *d = json_loads(desc, 0, NULL);
	sw_free(desc);
	const char *serial = json_string_value(json_object_get(d, "serial"));
	char *out = serial ? sw__strdup(serial) : NULL;
	json_decref(d);
	return out;
}

/* 1 when the device's tcp:@port leads to the host's tcp:@port, 0 when not, -1 when it could not be read. */
static int reverse_set(sw_device *dev, int port)
{
	char *lj = NULL;
	if (sw_device_reverse_list(dev, &lj, NULL) != SW_OK)
		return -1;
	json_t *l = json_loads(lj, 0, NULL);
	sw_free(lj);
	char spec[16];
	snprintf(spec, sizeof(spec), "tcp:%d", port);
	int found = 0;
	size_t i;
	json_t *e;
	json_array_foreach(l, i, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "device")) ? json_string_value(json_object_get(e, "device")) : "", spec) &&
		    !strcmp(json_string_value(json_object_get(e, "host")) ? json_string_value(json_object_get(e, "host")) : "", spec))
			found = 1;
	}
	json_decref(l);
	return found;
}

static void set_metro_pid(sw_session *s, pid_t pid)
{
	json_t *v = pid > 0 ? json_integer(pid) : json_null();
	if (v)
		sw__session_set(s, "metroPid", v, NULL);
	json_decref(v);
}

/* ---- plan / status ----------------------------------------------------------------------- */

SW_API int sw_metro_plan(sw_ctx *ctx, sw_session *s, char **out_json, sw_error **err)
{
	if (!ctx || !s || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_metro_plan: ctx, session and out_json are required");
	*out_json = NULL;
	struct plan p = {0};
	int rc = project_plan(s, &p, err);
	sw_device *dev = NULL;
	if (rc == SW_OK)
		rc = open_device(ctx, s, NULL, &dev, &p.ios, err);
	if (rc == SW_OK) {
		p.serial = device_serial(dev);
		json_t *o = json_pack("{s:s,s:i,s:s,s:O,s:s?,s:s}", "framework", p.framework, "port", p.port, "cwd", p.cwd,
		                      "argv", p.argv, "device", p.serial, "platform", p.ios ? "ios" : "android");
		*out_json = o ? sw__json_compact(o) : NULL;
		json_decref(o);
		if (!*out_json)
			rc = sw__error_nomem(err);
	}
	sw_device_free(dev);
	plan_clear(&p);
	return rc;
}

/* Red-box texts of React Native on the screen (a failed bundle load). */
static const char *const redbox_marks[] = {"Unable to load script", "Could not connect to development server",
                                           "Error connecting to Metro", "Unable to resolve module",
                                           "No apps connected", NULL};

static json_t *redbox_from_screen(sw_device *dev, json_t *notes)
{
	char *xml = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	json_t *lines = json_array();
	if (sw_device_dump_ui(dev, &xml, &len, &e) != SW_OK) {
		json_array_append_new(notes, json_sprintf("the screen could not be read for a red box: %s", sw_error_message(e)));
		sw_error_free(e);
		return json_pack("{s:n,s:o}", "detected", "lines", lines);
	}
	for (int i = 0; redbox_marks[i]; i++)
		if (xml && strstr(xml, redbox_marks[i]))
			json_array_append_new(lines, json_string(redbox_marks[i]));
	sw_free(xml);
	return json_pack("{s:b,s:o}", "detected", json_array_size(lines) > 0, "lines", lines);
}

static json_t *log_evidence(sw_device *dev, json_t *notes)
{
	char *text = NULL;
	size_t len = 0;
	sw_error *e = NULL;
	json_t *out = json_array();
	if (sw_device_log_read(dev, NULL, &text, &len, &e) != SW_OK) {
		json_array_append_new(notes, json_sprintf("the device log could not be read: %s", sw_error_message(e)));
		sw_error_free(e);
		return out;
	}
	/* the last EVIDENCE_MAX lines that name React Native or its packager */
	size_t matched = 0;
	const char *p = text ? text : "";
	json_t *all = json_array();
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = sw__utf8_cap(p, n, 400, SW_CAP_HEAD_TAIL);
		if (line && (strstr(line, "ReactNative") || strstr(line, "ReactNativeJS") || strstr(line, "Metro") ||
		             strstr(line, "development server") || strstr(line, "packager"))) {
			json_array_append_new(all, json_string(line));
			matched++;
		}
		free(line);
		p += n + (nl ? 1 : 0);
	}
	sw_free(text);
	size_t from = matched > EVIDENCE_MAX ? matched - EVIDENCE_MAX : 0;
	for (size_t i = from; i < matched; i++)
		json_array_append(out, json_array_get(all, i));
	if (from)
		json_array_append_new(notes, json_sprintf("%zu earlier React Native log line(s) left out", from));
	json_decref(all);
	return out;
}

SW_API int sw_metro_status(sw_ctx *ctx, sw_session *s, int diagnose, char **out_json, sw_error **err)
{
	if (!ctx || !s || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_metro_status: ctx, session and out_json are required");
	*out_json = NULL;
	struct plan p = {0};
	sw_error *perr = NULL;
	if (project_plan(s, &p, &perr) != SW_OK) {
		p.port = sw__metro_port(); /* status still answers for a project we cannot start Metro for */
		p.framework = NULL;
	}
	json_t *notes = json_array();
	if (perr) {
		json_array_append_new(notes, json_string(sw_error_message(perr)));
		sw_error_free(perr);
	}
	bool listening = tcp_listening(p.port);
	char *why = NULL;
	bool serving = listening && metro_serving(p.port, &why);
	if (!listening)
		why = sw__asprintf("nothing listens on 127.0.0.1:%d", p.port);
	sw_device *dev = NULL;
	sw_error *derr = NULL;
	json_t *problem = NULL;
	int rev = -1;
	if (open_device(ctx, s, NULL, &dev, &p.ios, &derr) != SW_OK) {
		problem = json_pack("{s:s,s:s}", "failureCode", sw_error_failure_code(derr), "what", sw_error_message(derr));
		sw_error_free(derr);
	} else if (dev) {
		p.serial = device_serial(dev);
		rev = reverse_set(dev, p.port);
	}
	sw__managed m;
	bool ours = sw__managed_find(&metros, sw_session_id(s), &m, false) && !sw__proc_ended(m.pid, NULL);
	bool ready = serving && (p.ios || rev == 1);
	json_t *o = json_pack("{s:s?,s:i,s:b,s:o,s:b,s:b,s:o,s:s?,s:s}", "framework", p.framework, "port", p.port,
	                      "metroListening", listening, "reverseSet", p.ios ? json_true() : rev < 0 ? json_null() : json_boolean(rev),
	                      "serving", serving, "ready", ready, "metroPid", ours ? json_integer(m.pid) : json_null(),
	                      "device", p.serial, "platform", p.ios ? "ios" : "android");
	if (o && !serving && why)
		json_object_set_new(o, "servingProblem", json_string(why));
	if (o && problem)
		json_object_set_new(o, "deviceProblem", problem);
	else
		json_decref(problem);
	if (o && diagnose) {
		json_t *recovery = json_array();
		if (dev) {
			json_object_set_new(o, "redBox", redbox_from_screen(dev, notes));
			json_object_set_new(o, "logEvidence", log_evidence(dev, notes));
		}
		if (!listening)
			json_array_append_new(recovery, json_string("qa_metro {action: \"start\"} to start Metro (consent start_metro)"));
		else if (!serving)
			json_array_append_new(recovery, json_sprintf("port %d answers but is not a running Metro: stop what holds it, "
			                                             "then qa_metro {action: \"start\"}", p.port));
		if (dev && rev != 1)
			json_array_append_new(recovery, json_sprintf("the device cannot reach port %d: qa_metro {action: \"start\"} "
			                                             "sets adb reverse tcp:%d tcp:%d", p.port, p.port, p.port));
		if (ready)
			json_array_append_new(recovery, json_string("Metro is ready: relaunch the app with qa_prepare_target so it "
			                                            "loads the bundle"));
		json_object_set_new(o, "recovery", recovery);
	}
	if (o && json_array_size(notes))
		json_object_set(o, "notes", notes);
	json_decref(notes);
	free(why);
	sw_device_free(dev);
	plan_clear(&p);
	*out_json = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* ---- start / stop -------------------------------------------------------------------------- */

/* The last lines of the Metro log at @path, capped. (transfer full) */
static char *log_tail(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	if (sw__read_file(path, 1024 * 1024, &text, &len, NULL) != SW_OK)
		return sw__strdup("");
	char *tail = sw__utf8_cap(text, len, 800, SW_CAP_TAIL);
	free(text);
	return tail;
}

static char *register_log(sw_session *s, const char *name)
{
	char *meta = NULL;
	if (!s || !name[0] || sw_artifact_register(s, "metro", name, "text/plain", "Metro output", &meta, NULL) != SW_OK)
		return NULL;
	json_t *m = json_loads(meta, 0, NULL);
	sw_free(meta);
	const char *u = json_string_value(json_object_get(m, "uri"));
	char *uri = u ? sw__strdup(u) : NULL;
	json_decref(m);
	return uri;
}

/* Removes the reverse of @port from the device @serial; 1 removed, 0 none there, -1 could not. */
static int unreverse(sw_ctx *ctx, sw_session *s, const char *serial, int port, json_t *notes)
{
	sw_device *dev = NULL;
	bool ios = false;
	sw_error *e = NULL;
	int removed = -1;
	if (open_device(ctx, s, serial && serial[0] ? serial : NULL, &dev, &ios, &e) == SW_OK && dev) {
		int r = 0;
		if (sw_device_reverse_remove(dev, port, &r, &e) == SW_OK)
			removed = r;
	}
	if (e) {
		if (notes)
			json_array_append_new(notes, json_sprintf("the reverse of tcp:%d was not removed: %s", port, sw_error_message(e)));
		sw_error_free(e);
	}
	sw_device_free(dev);
	return removed;
}

SW_API int sw_metro_start(sw_ctx *ctx, sw_session *s, char **out_json, sw_error **err)
{
	if (!ctx || !s || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_metro_start: ctx, session and out_json are required");
	*out_json = NULL;
	struct plan p = {0};
	sw_device *dev = NULL;
	int log_fd = -1;
	char *log_name = NULL, *log_path = NULL;
	json_t *notes = json_array();
	int rc = project_plan(s, &p, err);
	if (rc == SW_OK)
		rc = open_device(ctx, s, NULL, &dev, &p.ios, err);
	if (rc != SW_OK)
		goto out;
	p.serial = device_serial(dev);
	sw__managed m;
	bool started_now = false;
	if (sw__managed_find(&metros, sw_session_id(s), &m, false) && !sw__proc_ended(m.pid, NULL)) {
		json_array_append_new(notes, json_sprintf("Metro %d started earlier for this session is still running", (int)m.pid));
		goto report_running;
	}
	bool listening = tcp_listening(p.port), reused = false;
	char *why = NULL;
	if (listening && !metro_serving(p.port, &why)) {
		rc = sw__error_set(err, SW_EIO, "METRO_FAILED",
		                   "Stop the program that holds the port (or set SWIPIUM_METRO_PORT for the server), then retry",
		                   "port %d on this machine is taken by something that is not a running Metro (%s); nothing "
		                   "was started", p.port, why ? why : "no packager status");
		free(why);
		goto out;
	}
	reused = listening;
	/* the reverse first: a device that refuses it gets no Metro either */
	if (dev && sw_device_reverse_add(dev, p.port, p.port, err) != SW_OK) {
		sw_error *e = *err;
		*err = NULL;
		rc = sw__error_set(err, SW_EIO, "METRO_FAILED",
		                   "Check the device (adb devices) and that nothing on it holds the port, then retry",
		                   "adb reverse tcp:%d tcp:%d failed, so the device cannot reach Metro: %s; nothing was started",
		                   p.port, p.port, e ? sw_error_message(e) : "refused");
		if (*err && e)
			sw__error_take_details(*err, json_pack("{s:s,s:s?,s:i}", "deviceFailureCode", sw_error_failure_code(e),
			                                       "device", p.serial, "port", p.port));
		sw_error_free(e);
		goto out;
	}
	if (reused) {
		json_array_append_new(notes, json_sprintf("a Metro not started by this server already serves port %d: reused, "
		                                          "not restarted (its pid is not known here)", p.port));
		json_t *o = json_pack("{s:b,s:b,s:s,s:i,s:n,s:s?,s:b,s:b,s:b,s:O}", "started", 0, "reused", 1, "framework",
		                      p.framework, "port", p.port, "metroPid", "device", p.serial, "reverseSet", dev != NULL,
		                      "serving", 1, "ready", 1, "notes", notes);
		*out_json = o ? sw__json_compact(o) : NULL;
		json_decref(o);
		rc = *out_json ? SW_OK : sw__error_nomem(err);
		goto out;
	}
	/* the log: a metro artifact, written by Metro itself and registered (redacted) when it stops */
	if ((rc = sw_artifact_next_name(s, "metro", "metro", ".log", &log_name, err)) != SW_OK ||
	    (rc = sw_artifact_path(s, "metro", log_name, &log_path, err)) != SW_OK)
		goto undo_reverse;
	log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (log_fd < 0) {
		rc = sw__error_set(err, SW_EIO, "ARTIFACT_PATH_UNWRITABLE", NULL, "cannot write the Metro log %s: %s", log_path,
		                   strerror(errno));
		goto undo_reverse;
	}
	sw__argv a = SW_ARGV_INIT;
	size_t i;
	json_t *v;
	json_array_foreach(p.argv, i, v) sw__argv_add(&a, json_string_value(v));
	const char *const *argv = sw__argv_finish(&a, err);
	pid_t pid = -1;
	sw__proc_opts po = {.search_path = true, .cwd = p.cwd};
	rc = argv ? sw__proc_spawn(argv, &po, log_fd, &pid, err) : SW_ENOMEM;
	sw__argv_free(&a);
	close(log_fd);
	log_fd = -1;
	if (rc != SW_OK) {
		sw_error *e = *err;
		*err = NULL;
		rc = sw__error_set(err, SW_EIO, "METRO_FAILED", "Install Node.js (npx) and the project's dependencies, then retry",
		                   "Metro could not be started in %s: %s", p.cwd, e ? sw_error_message(e) : "spawn failed");
		sw_error_free(e);
		goto undo_reverse;
	}
	memset(&m, 0, sizeof(m));
	m.pid = pid;
	m.port = p.port;
	snprintf(m.sid, sizeof(m.sid), "%s", sw_session_id(s));
	snprintf(m.device, sizeof(m.device), "%s", p.serial ? p.serial : "");
	snprintf(m.log_name, sizeof(m.log_name), "%s", log_name);
	char endpoint[64];
	snprintf(endpoint, sizeof(endpoint), "http://127.0.0.1:%d", p.port);
	snprintf(m.endpoint, sizeof(m.endpoint), "%s", endpoint);
	sw_error *pe = NULL;
	if (sw_store_process_add(sw_session_store(s), (int)pid, "metro", sw_session_id(s), endpoint, &pe) != SW_OK) {
		json_array_append_new(notes, json_sprintf("not recorded in processes.json: %s", sw_error_message(pe)));
		sw_error_free(pe);
	}
	if (!sw__managed_put(&metros, &m))
		json_array_append_new(notes, json_string("too many Metro processes: this one is not stopped at server shutdown"));
	set_metro_pid(s, pid);
	started_now = true;
	/* watch the start: an exit at once is a failure with the log's words; serving early is ready */
	int64_t until = sw_monotonic_ms() + START_WATCH_MS;
	int status = 0;
	while (sw_monotonic_ms() < until) {
		if (sw__proc_ended(pid, &status)) {
			sw__managed gone;
			sw__managed_find(&metros, sw_session_id(s), &gone, true);
			sw_store_process_remove(sw_session_store(s), (int)pid, NULL);
			set_metro_pid(s, 0);
			char *tail = log_tail(log_path);
			char *uri = register_log(s, log_name);
			rc = sw__error_set(err, SW_EIO, "METRO_FAILED", "Read the Metro log (logUri), fix the project, then retry",
			                   "Metro exited at once (%s %d): %s", WIFEXITED(status) ? "status" : "signal",
			                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), tail ? tail : "");
			if (*err)
				sw__error_take_details(*err, json_pack("{s:s?,s:i}", "logUri", uri, "port", p.port));
			free(tail);
			free(uri);
			goto undo_reverse;
		}
		if (tcp_listening(p.port) && metro_serving(p.port, NULL))
			break;
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
report_running:;
	{
		bool serving = metro_serving(p.port, NULL);
		int rev = dev ? reverse_set(dev, p.port) : 1;
		sw__managed cur;
		bool have = sw__managed_find(&metros, sw_session_id(s), &cur, false);
		json_t *o = json_pack("{s:b,s:b,s:s,s:i,s:o,s:O,s:s,s:s?,s:b,s:b,s:b,s:b,s:s?,s:O}", "started", started_now,
		                      "reused", 0, "framework", p.framework, "port", p.port, "metroPid",
		                      have ? json_integer(cur.pid) : json_null(), "argv", p.argv, "cwd", p.cwd, "device", p.serial,
		                      "metroListening", tcp_listening(p.port), "reverseSet", rev == 1, "serving", serving, "ready",
		                      serving && rev == 1, "logPath", log_path, "notes", notes);
		*out_json = o ? sw__json_compact(o) : NULL;
		json_decref(o);
		rc = *out_json ? SW_OK : sw__error_nomem(err);
	}
	goto out;
undo_reverse:
	if (dev) {
		int r = 0;
		sw_device_reverse_remove(dev, p.port, &r, NULL); /* nothing half-done: the device's port is as it was */
	}
out:
	if (log_fd >= 0)
		close(log_fd);
	sw_free(log_name);
	sw_free(log_path);
	json_decref(notes);
	sw_device_free(dev);
	plan_clear(&p);
	return rc;
}

static json_t *stop_one(sw_ctx *ctx, sw_session *s, const sw__managed *m, json_t *notes)
{
	int st = sw__proc_stop(m->pid, SIGTERM, STOP_GRACE_MS);
	if (s) {
		sw_store_process_remove(sw_session_store(s), (int)m->pid, NULL);
		set_metro_pid(s, 0);
	}
	char *uri = register_log(s, m->log_name);
	int removed = m->device[0] ? unreverse(ctx, s, m->device, m->port, notes) : 0;
	json_t *o = json_pack("{s:b,s:i,s:b,s:s?,s:i}", "stopped", 1, "pid", (int)m->pid, "reverseRemoved", removed == 1,
	                      "logUri", uri, "port", m->port);
	if (o && st != -1 && WIFSIGNALED(st))
		json_object_set_new(o, "endedBy", json_string(WTERMSIG(st) == SIGKILL ? "SIGKILL" : "SIGTERM"));
	free(uri);
	return o;
}

SW_API int sw_metro_stop(sw_ctx *ctx, sw_session *s, char **out_json, sw_error **err)
{
	if (!ctx || !s || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_metro_stop: ctx, session and out_json are required");
	*out_json = NULL;
	json_t *notes = json_array();
	sw__managed m;
	json_t *o;
	if (sw__managed_find(&metros, sw_session_id(s), &m, true)) {
		o = stop_one(ctx, s, &m, notes);
	} else {
		/* nothing of ours: never signal a pid this process did not start; the reverse still goes */
		int port = sw__metro_port();
		json_array_append_new(notes, json_string("no Metro started by this server for the session: nothing was signalled"));
		int removed = unreverse(ctx, s, NULL, port, notes);
		o = json_pack("{s:b,s:n,s:b,s:i}", "stopped", 0, "pid", "reverseRemoved", removed == 1, "port", port);
	}
	if (o)
		json_object_set(o, "notes", notes);
	json_decref(notes);
	*out_json = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

SW_API void sw_metro_shutdown(sw_ctx *ctx, sw_store *store)
{
	for (;;) {
		sw__managed m;
		if (!sw__managed_pop(&metros, &m))
			break;
		sw_session *s = NULL;
		if (store)
			sw_store_get_session(store, m.sid, &s, NULL);
		json_t *o = stop_one(ctx, s, &m, NULL);
		if (ctx)
			sw__log_info(ctx, "Metro %d stopped at shutdown", (int)m.pid);
		json_decref(o);
	}
}
