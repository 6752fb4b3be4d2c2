/* wda-managed.c: the WebDriverAgent this server builds and starts itself (qa_wda build / start / stop / logs):
 * xcodebuild through the core runner, one managed runner per session, recorded in processes.json. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ios-internal.h"
#include "sw-managed.h"
#include <swipium/job.h>
#include <swipium/session.h>

extern char **environ;

#define BUILD_TIMEOUT_MS (10 * 60 * 1000)
#define START_WAIT_MS 45000
#define START_BUDGET_MS 120000 /* ios.wda.startupTimeoutMs default */
#define STOP_GRACE_MS 5000

/* this server's WebDriverAgent runners, one per session (the shared table of core/managed.c) */
static sw__managed_table runners = SW__MANAGED_TABLE_INIT;

/* The simulator UDID of "-destination id=<udid>" in an argv or a command line, into @out. */
static void udid_of_command(const char *cmd, char *out, size_t cap)
{
	out[0] = '\0';
	const char *p = cmd ? strstr(cmd, "id=") : NULL;
	while (p && p != cmd && p[-1] != ' ')
		p = strstr(p + 1, "id=");
	if (!p)
		return;
	p += 3;
	size_t n = strcspn(p, " ");
	if (n < cap) {
		memcpy(out, p, n);
		out[n] = '\0';
	}
}

/* Same base URL, a trailing '/' ignored. */
static bool same_base(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	while (la && a[la - 1] == '/')
		la--;
	while (lb && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

/* The port of a loopback base URL such as http://127.0.0.1:8100 (80 when none is written). */
static int url_port(const char *base)
{
	const char *h = strstr(base, "://");
	h = h ? h + 3 : base;
	const char *colon = NULL;
	if (*h == '[') {
		const char *e = strchr(h, ']');
		colon = e && e[1] == ':' ? e + 1 : NULL;
	} else
		colon = strchr(h, ':');
	if (!colon)
		return 80;
	long p = strtol(colon + 1, NULL, 10);
	return p >= 1 && p <= 65535 ? (int)p : -1;
}

/* The xcodebuild argv for @action (build-for-testing or test-without-building). (transfer full) */
json_t *sw__wda_xcodebuild_argv(const char *project, const char *scheme, const char *udid, const char *derived,
                                const char *action)
{
	json_t *a = json_pack("[s,s,s,s,s,s,s]", "xcodebuild", "-project", project, "-scheme",
	                      scheme ? scheme : "WebDriverAgentRunner", "-destination", "");
	if (!a)
		return NULL;
	json_array_set_new(a, 6, json_sprintf("id=%s", udid));
	if (derived) {
		json_array_append_new(a, json_string("-derivedDataPath"));
		json_array_append_new(a, json_string(derived));
	}
	json_array_append_new(a, json_string(action));
	return a;
}

/* Which catalog code a failed build's output points to. */
static const char *build_failure_code(const char *text)
{
	static const char *const signing[] = {"requires a development team",
	                                      "Signing for \"",
	                                      "No signing certificate",
	                                      "Code Signing Error",
	                                      "No profiles for",
	                                      "code signing is required",
	                                      NULL};
	for (int i = 0; signing[i]; i++)
		if (text && strstr(text, signing[i]))
			return "WDA_SIGNING_FAILED";
	return "WDA_BUILD_FAILED";
}

/* The first line of @text with "error" in it, capped (else its tail). (transfer full) */
static char *error_line(const char *text)
{
	if (!text)
		return sw__strdup("");
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *line = sw__strndup(p, len);
		if (line && (strstr(line, "error:") || strstr(line, "encountered an error"))) {
			char *cut = sw__utf8_cap(line, len, 400, SW_CAP_TAIL);
			free(line);
			return cut;
		}
		free(line);
		p = e ? e + 1 : p + len;
	}
	return sw__utf8_cap(text, strlen(text), 400, SW_CAP_TAIL);
}

static const char *const *argv_of(json_t *a, sw__argv *v, sw_error **err)
{
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x) sw__argv_add(v, json_string_value(x));
	return sw__argv_finish(v, err);
}

/* A new log artifact of kind "wda"; its path in @path. (transfer full) */
static int new_log(sw_session *s, const char *stem, char **name, char **path, sw_error **err)
{
	int rc = sw_artifact_next_name(s, "wda", stem, ".log", name, err);
	if (rc == SW_OK && (rc = sw_artifact_path(s, "wda", *name, path, err)) != SW_OK) {
		sw_free(*name);
		*name = NULL;
	}
	return rc;
}

static char *register_log(sw_session *s, const char *name, const char *what)
{
	char *meta = NULL;
	if (!s || !name || !name[0] || sw_artifact_register(s, "wda", name, "text/plain", what, &meta, NULL) != SW_OK)
		return NULL;
	json_t *m = json_loads(meta, 0, NULL);
	sw_free(meta);
	const char *u = json_string_value(json_object_get(m, "uri"));
	char *uri = u ? sw__strdup(u) : NULL;
	json_decref(m);
	return uri;
}

static char *file_tail(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	if (sw__read_file(path, 8 * 1024 * 1024, &text, &len, NULL) != SW_OK)
		return sw__strdup("");
	char *line = error_line(text);
	free(text);
	return line;
}

/* The build's kill timer: 10 min; SWIPIUM_WDA_BUILD_TIMEOUT_MS (a test knob) can only shorten it. */
static int build_timeout_ms(void)
{
	const char *e = getenv("SWIPIUM_WDA_BUILD_TIMEOUT_MS");
	long v = e && *e ? strtol(e, NULL, 10) : 0;
	return v > 0 && v < BUILD_TIMEOUT_MS ? (int)v : BUILD_TIMEOUT_MS;
}

#define BUILD_LOG_CAP (32u * 1024 * 1024)

/* xcodebuild's output as it arrives: kept for the log (capped), the last line shown as the job's progress. */
struct build_sink {
	sw_buf buf;
	size_t dropped, lines;
	sw_job *job;
	int64_t last_progress;
	int timeout_ms;
	bool dirty; /* output arrived since the progress was last set */
	int (*abort_fn)(void *);
	void *abort_ud;
	sw_session *s;
	pid_t pid;     /* xcodebuild's, once it runs */
	bool recorded; /* its processes.json entry is there (from its first output until it ends) */
};

/* The builds this server runs now (their processes.json entries are this server's, with no endpoint). */
static pthread_mutex_t builds_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t builds[8];

static void builds_set(pid_t pid, pid_t with)
{
	pthread_mutex_lock(&builds_lock);
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++)
		if (builds[i] == pid) {
			builds[i] = with;
			break;
		}
	pthread_mutex_unlock(&builds_lock);
}

static bool build_running(pid_t pid)
{
	bool found = false;
	pthread_mutex_lock(&builds_lock);
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]) && !found; i++)
		found = builds[i] == pid;
	pthread_mutex_unlock(&builds_lock);
	return found;
}

/* xcodebuild runs: its pid is kept; it is recorded by build_sink_fn at its first output. */
static void build_started(void *ud, pid_t pid)
{
	struct build_sink *b = ud;
	b->pid = pid;
	builds_set(0, pid);
}

static void build_progress(struct build_sink *b, bool force)
{
	int64_t now = sw_monotonic_ms();
	if (!b->job || (!force && now - b->last_progress < 500))
		return;
	b->last_progress = now;
	b->dirty = false;
	/* the last complete line of the output */
	const char *d = b->buf.data ? b->buf.data : "";
	size_t n = b->buf.len;
	while (n > 0 && (d[n - 1] == '\n' || d[n - 1] == '\r'))
		n--;
	size_t s0 = n;
	while (s0 > 0 && d[s0 - 1] != '\n')
		s0--;
	char *last = sw__utf8_cap(d + s0, n - s0, 300, SW_CAP_TAIL);
	char *text = sw__asprintf("xcodebuild build-for-testing is running: %zu lines of output so far (stopped after "
	                          "%d s)",
	                          b->lines, b->timeout_ms / 1000);
	json_t *det = json_pack("{s:s,s:s,s:s?,s:b}", "phase", "build", "statusText", text ? text : "", "lastEvent",
	                        last && *last ? last : NULL, "userActionRequired", 0);
	char *dj = det ? sw__json_compact(det) : NULL;
	if (text)
		sw_job_set_progress(b->job, text, dj, NULL);
	free(dj);
	json_decref(det);
	free(text);
	free(last);
}

static void build_sink_fn(void *ud, const char *data, size_t len)
{
	struct build_sink *b = ud;
	/* At its first output xcodebuild goes into processes.json (kind wda, no endpoint), so that when this server
	 * dies before the build ends, the next server's sweep stops its process group (a build has no /status to be
	 * adopted by). Not at spawn: a launcher (/usr/bin/xcodebuild's trampoline, env) may still be replacing
	 * itself then, and the command line in the fingerprint would not be the one that runs. */
	if (b->pid > 0 && !b->recorded)
		b->recorded = sw_store_process_add(sw_session_store(b->s), (int)b->pid, "wda", sw_session_id(b->s),
		                                   NULL, NULL) == SW_OK;
	for (size_t i = 0; i < len; i++)
		b->lines += data[i] == '\n';
	size_t room = b->buf.len < BUILD_LOG_CAP ? BUILD_LOG_CAP - b->buf.len : 0;
	size_t take = len < room ? len : room;
	sw__buf_append(&b->buf, data, take);
	b->dropped += len - take;
	b->dirty = true;
	build_progress(b, false);
}

/* Polled by the runner every 50 ms: the caller's cancellation, and the progress of output that came in a burst. */
static int build_abort(void *ud)
{
	struct build_sink *b = ud;
	if (b->dirty)
		build_progress(b, false);
	return b->abort_fn ? b->abort_fn(b->abort_ud) : 0;
}

/* Runs the build; @job (nullable) gets progress, the log artifact and cancellation. The whole output becomes a
 * "wda" log artifact in every outcome (built, failed, timed out, cancelled). */
static int build_exec(sw_session *s, json_t *argv, int (*abort_fn)(void *), void *abort_ud, sw_job *job, json_t *o,
                      sw_error **err)
{
	char *name = NULL, *path = NULL, *uri = NULL;
	int rc = new_log(s, "wda-build", &name, &path, err);
	if (rc != SW_OK)
		return rc;
	sw__argv v = SW_ARGV_INIT;
	const char *const *av = argv_of(argv, &v, err);
	sw__proc_result res = {0};
	struct build_sink sink = {.buf = SW_BUF_INIT,
	                          .job = job,
	                          .timeout_ms = build_timeout_ms(),
	                          .abort_fn = abort_fn,
	                          .abort_ud = abort_ud,
	                          .s = s};
	sw__proc_opts po = {.timeout_ms = sink.timeout_ms,
	                    .search_path = true,
	                    .abort_fn = build_abort,
	                    .abort_ud = &sink,
	                    .term_grace_ms = 5000,
	                    .sink = build_sink_fn,
	                    .sink_ud = &sink,
	                    .on_start = build_started,
	                    .start_ud = &sink};
	build_progress(&sink, true);
	int64_t t0 = sw_monotonic_ms();
	rc = av ? sw__proc_run(av, &po, &res, err) : SW_ENOMEM;
	sw__argv_free(&v);
	if (sink.pid > 0) { /* ended (its group stopped on a timeout or cancel): its entry goes */
		if (sink.recorded)
			sw_store_process_remove(sw_session_store(s), (int)sink.pid, NULL);
		builds_set(sink.pid, 0);
	}
	if (rc != SW_OK && res.exec_errno) {
		sw_error_free(*err);
		*err = NULL;
		rc = sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED",
		                   "Install Xcode and select it with xcode-select, then retry",
		                   "xcodebuild could not be started: %s", strerror(res.exec_errno));
		/* even then the build has its log: what was tried and why it did not run */
		char *line = sw__asprintf("[swipium: xcodebuild could not be started: %s]\n", strerror(res.exec_errno));
		if (line && sw_file_write_atomic(path, line, strlen(line), 0, NULL) == SW_OK)
			uri = register_log(s, name, "xcodebuild build-for-testing output");
		free(line);
		if (uri && job)
			sw_job_add_artifact(job, uri, NULL);
		if (*err && uri)
			sw__error_take_details(*err, json_pack("{s:s}", "logUri", uri));
		goto out;
	}
	if (sink.dropped)
		sw__buf_printf(&sink.buf, "\n[swipium: %zu more bytes of output were not kept: the log keeps 32 MiB]\n",
		               sink.dropped);
	if (res.timed_out)
		sw__buf_printf(&sink.buf, "\n[swipium: stopped after %d ms (the build's time limit)]\n",
		               sink.timeout_ms);
	else if (res.cancelled)
		sw__buf_printf(&sink.buf, "\n[swipium: cancelled; xcodebuild's process group was stopped]\n");
	const char *all = sink.buf.data ? sink.buf.data : "";
	/* the whole output is kept as the build's log (the session's redactor runs when it is registered) */
	if (sw_file_write_atomic(path, all, strlen(all), 0, NULL) == SW_OK)
		uri = register_log(s, name, "xcodebuild build-for-testing output");
	if (uri && job)
		sw_job_add_artifact(job, uri, NULL);
	json_object_set_new(o, "logUri", uri ? json_string(uri) : json_null());
	json_object_set_new(o, "buildMs", json_integer((json_int_t)(sw_monotonic_ms() - t0)));
	json_object_set_new(o, "outputLines", json_integer((json_int_t)sink.lines));
	if (rc == SW_OK && res.status == 0 && !res.timed_out && !res.cancelled) {
		json_object_set_new(o, "built", json_true());
		json_object_set_new(o, "wdaBuildProduct", json_string("WebDriverAgentRunner-Runner.app"));
	} else if (rc == SW_OK || res.timed_out || res.cancelled) {
		sw_error_free(*err);
		*err = NULL;
		const char *code = res.cancelled ? "CANCELLED" : build_failure_code(all);
		char *why = res.timed_out ? sw__asprintf("it ran past %d s and its process group was stopped",
		                                         sink.timeout_ms / 1000)
		                          : (res.cancelled ? sw__strdup("it was cancelled") : error_line(all));
		if (!strcmp(code, "WDA_SIGNING_FAILED"))
			rc = sw__error_set(err, SW_EIO, code,
			                   "Open WebDriverAgent.xcodeproj in Xcode, choose a development team for "
			                   "WebDriverAgentRunner (Signing & Capabilities), then build again",
			                   "Building WebDriverAgent failed on code signing: %s", why ? why : "");
		else if (!strcmp(code, "CANCELLED"))
			rc = sw__error_set(err, SW_ECANCELLED, code, NULL, "The WebDriverAgent build was cancelled");
		else
			rc = sw__error_set(
			    err, SW_EIO, code,
			    "Read the build log (logUri), fix the WebDriverAgent project or Xcode, then build again",
			    "xcodebuild build-for-testing failed (%s): %s",
			    res.timed_out ? "time limit" : (res.signal ? "killed by a signal" : "non-zero exit"),
			    why ? why : "");
		if (*err)
			sw__error_take_details(*err, json_pack("{s:s?,s:b,s:b,s:i}", "logUri", uri, "built", 0,
			                                       "timedOut", res.timed_out, "exitStatus", res.status));
		free(why);
	}
out:
	sw__buf_free(&sink.buf);
	sw__proc_result_clear(&res);
	free(uri);
	sw_free(name);
	sw_free(path);
	return rc;
}

int sw__wda_managed_build(sw_ctx *ctx, sw_session *s, json_t *argv, int (*abort_fn)(void *), void *abort_ud, json_t *o,
                          sw_error **err)
{
	(void)ctx;
	return build_exec(s, argv, abort_fn, abort_ud, NULL, o, err);
}

/* ---- qa_wda build as a job of kind "wda_build" ----------------------------------------------------------- */

struct build_job {
	json_t *argv, *base; /* base: the result's fixed part {udid, command, url} */
};

static void build_job_free(void *ud)
{
	struct build_job *j = ud;
	if (!j)
		return;
	json_decref(j->argv);
	json_decref(j->base);
	free(j);
}

static int build_job_run(sw_job *job, void *ud, char **result_json, sw_error **err)
{
	struct build_job *j = ud;
	sw_session *s = sw_job_session(job);
	json_t *o = json_deep_copy(j->base);
	if (!o)
		return sw__error_nomem(err);
	sw_error *e = NULL;
	int rc = build_exec(s, j->argv, sw_job_abort, job, job, o, &e);
	const char *fc = rc != SW_OK && e ? sw_error_failure_code(e) : NULL;
	if (fc && *fc && strcmp(fc, "CANCELLED") != 0 && strcmp(fc, "UNKNOWN") != 0) {
		/* a failed build is a result {built:false, failureCode, what, logUri, nextSteps}: the job ends failed
		 * with that code (WDA_BUILD_FAILED, WDA_SIGNING_FAILED; BACKEND_UNSUPPORTED when xcodebuild cannot run)
		 */
		json_object_set_new(o, "built", json_false());
		json_object_set_new(o, "failureCode", json_string(sw_error_failure_code(e)));
		json_object_set_new(o, "what", json_string(sw_error_message(e)));
		const char *dj = sw_error_details_json(e);
		json_t *det = dj ? json_loads(dj, 0, NULL) : NULL;
		json_object_set(o, "timedOut",
		                json_object_get(det, "timedOut") ? json_object_get(det, "timedOut") : json_false());
		if (!json_is_string(json_object_get(o, "logUri")))
			json_object_set(o, "logUri",
			                json_object_get(det, "logUri") ? json_object_get(det, "logUri") : json_null());
		json_decref(det);
		json_object_set_new(o, "nextSteps", json_pack("[s]", sw_error_hint(e) ? sw_error_hint(e) : ""));
		sw_error_free(e);
		e = NULL;
		rc = SW_OK;
	} else if (rc == SW_OK)
		json_object_set_new(o, "nextSteps",
		                    json_pack("[s]", "qa_wda {action: \"start\"} runs it (test-without-"
		                                     "building with the same derivedDataPath)"));
	if (rc != SW_OK) {
		*err = e;
		json_decref(o);
		return rc;
	}
	*result_json = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return *result_json ? SW_OK : sw__error_nomem(err);
}

/* The id of the session's running wda_build job, if any. (transfer full, nullable) */
static char *running_build(sw_session *s)
{
	json_t *jobs = NULL;
	if (sw__session_get(s, "jobs", &jobs, NULL) < 0)
		return NULL;
	char *id = NULL;
	size_t i;
	json_t *jb;
	json_array_foreach(jobs, i, jb)
	{
		const char *k = json_string_value(json_object_get(jb, "kind"));
		const char *st = json_string_value(json_object_get(jb, "status"));
		if (!id && k && st && !strcmp(k, "wda_build") && !strcmp(st, "running"))
			id = sw__strdup(json_string_value(json_object_get(jb, "jobId")));
	}
	json_decref(jobs);
	return id;
}

int sw__wda_build_job(sw_session *s, json_t *argv, json_t *base, char **job_id, sw_error **err)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&once);
	char *running = running_build(s);
	if (running) {
		pthread_mutex_unlock(&once);
		int rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                       "Wait for it with qa_job_status, or cancel it with qa_job_cancel",
		                       "a WebDriverAgent build (job %s) is already running on this session; nothing "
		                       "new was started",
		                       running);
		if (*err)
			sw__error_take_details(*err, json_pack("{s:s}", "jobId", running));
		free(running);
		return rc;
	}
	struct build_job *j = calloc(1, sizeof(*j));
	if (!j) {
		pthread_mutex_unlock(&once);
		return sw__error_nomem(err);
	}
	j->argv = json_incref(argv);
	j->base = json_deep_copy(base);
	int rc = j->base ? sw_job_start(s, "wda_build", build_job_run, j, build_job_free, job_id, err)
	                 : sw__error_nomem(err);
	pthread_mutex_unlock(&once);
	if (rc != SW_OK)
		build_job_free(j);
	return rc;
}

/* Does something accept TCP connections at @base's host and @port (within 1 s per address)? */
static bool port_in_use(const char *base, int port)
{
	const char *h = strstr(base, "://");
	h = h ? h + 3 : base;
	char host[96] = "";
	size_t n = 0;
	if (*h == '[') {
		const char *end = strchr(h, ']');
		n = end ? (size_t)(end - h - 1) : 0;
		h++;
	} else
		n = strcspn(h, ":/");
	if (n == 0 || n >= sizeof(host))
		return true; /* not a host we can probe: treat as taken rather than start blind */
	memcpy(host, h, n);
	host[n] = '\0';
	char ps[16];
	snprintf(ps, sizeof(ps), "%d", port);
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	if (getaddrinfo(host, ps, &hints, &res) != 0)
		return true;
	bool used = false;
	for (struct addrinfo *a = res; a && !used; a = a->ai_next) {
		int fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			used = true;
		else if (errno == EINPROGRESS) {
			struct pollfd pf = {fd, POLLOUT, 0};
			int err = 0;
			socklen_t el = sizeof(err);
			used =
			    poll(&pf, 1, 1000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0;
		}
		close(fd);
	}
	freeaddrinfo(res);
	return used;
}

static bool status_ready(const char *base)
{
	json_t *v = NULL;
	sw_error *e = NULL;
	bool ok = sw__wda_status(base, SW__WDA_STATUS_MS, &v, &e) == SW_OK;
	bool ready = ok && json_is_true(json_object_get(json_object_get(v, "value"), "ready"));
	if (ok && !json_object_get(json_object_get(v, "value"), "ready"))
		ready = json_is_true(json_object_get(v, "ready")) || !json_object_get(v, "ready");
	json_decref(v);
	sw_error_free(e);
	return ready;
}

int sw__wda_managed_start(sw_ctx *ctx, sw_session *s, json_t *argv, const char *base, json_t *o, sw_error **err)
{
	(void)ctx;
	sw__managed m;
	if (sw__managed_find(&runners, sw_session_id(s), &m, false) && sw__managed_alive(&m)) {
		int rc = sw__error_set(
		    err, SW_EDEVICE, "WDA_START_FAILED",
		    "Use the running one (qa_wda {action: \"attach\"}), or stop it first (qa_wda {action: "
		    "\"stop\"})",
		    "A WebDriverAgent %s for the session is already running (pid %d, %s)",
		    m.adopted ? "adopted by this server" : "started by this server", (int)m.pid, m.endpoint);
		if (*err)
			sw__error_take_details(*err,
			                       json_pack("{s:i,s:s}", "managedPid", (int)m.pid, "url", m.endpoint));
		return rc;
	}
	int port = url_port(base);
	if (port < 1 || port_in_use(base, port)) {
		int rc = sw__error_set(err, SW_EIO, "WDA_PORT_CONFLICT",
		                       "Stop what listens there, or pass another webDriverAgentUrl (for example "
		                       "http://127.0.0.1:8101), or attach to it if it is your WebDriverAgent",
		                       "Something already answers on %s: no WebDriverAgent was started", base);
		if (*err)
			sw__error_take_details(*err, json_pack("{s:s,s:i}", "url", base, "port", port));
		return rc;
	}
	char *name = NULL, *path = NULL;
	int rc = new_log(s, "wda", &name, &path, err);
	if (rc != SW_OK)
		return rc;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = sw__error_set(err, SW_EIO, "ARTIFACT_PATH_UNWRITABLE", NULL,
		                   "cannot write the WebDriverAgent log %s: %s", path, strerror(errno));
		goto out;
	}
	/* the runner serves on USE_PORT from its environment (as Appium starts it) */
	size_t n_env = 0;
	while (environ && environ[n_env])
		n_env++;
	char **envp = calloc(n_env + 2, sizeof(char *));
	char use_port[32];
	snprintf(use_port, sizeof(use_port), "USE_PORT=%d", port);
	size_t k = 0;
	for (size_t i = 0; envp && i < n_env; i++)
		if (strncmp(environ[i], "USE_PORT=", 9) != 0)
			envp[k++] = environ[i];
	if (envp)
		envp[k] = use_port;
	sw__argv v = SW_ARGV_INIT;
	const char *const *av = envp ? argv_of(argv, &v, err) : NULL;
	pid_t pid = -1;
	sw__proc_opts po = {.search_path = true, .envp = envp};
	rc = av ? sw__proc_spawn(av, &po, fd, &pid, err) : sw__error_nomem(err);
	sw__argv_free(&v);
	free(envp);
	close(fd);
	if (rc != SW_OK) {
		sw_error *e = *err;
		*err = NULL;
		rc = sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED",
		                   "Install Xcode and select it with xcode-select, then retry",
		                   "xcodebuild could not be started: %s", e ? sw_error_message(e) : "spawn failed");
		sw_error_free(e);
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.pid = pid;
	m.port = port;
	snprintf(m.sid, sizeof(m.sid), "%s", sw_session_id(s));
	snprintf(m.endpoint, sizeof(m.endpoint), "%s", base);
	{
		size_t ai;
		json_t *av0;
		json_array_foreach(argv, ai, av0) if (sw__str_has_prefix(json_string_value(av0), "id="))
		    snprintf(m.device, sizeof(m.device), "%s", json_string_value(av0) + 3);
	}
	snprintf(m.log_name, sizeof(m.log_name), "%s", name);
	snprintf(m.log_path, sizeof(m.log_path), "%s", path);
	json_t *notes = json_array();
	sw_error *pe = NULL;
	if (sw_store_process_add(sw_session_store(s), (int)pid, "wda", sw_session_id(s), base, &pe) != SW_OK) {
		json_array_append_new(notes, json_sprintf("not recorded in processes.json: %s", sw_error_message(pe)));
		sw_error_free(pe);
	}
	if (!sw__managed_put(&runners, &m))
		json_array_append_new(notes, json_string("too many managed WebDriverAgents: qa_wda stop and logs do "
		                                         "not know this one"));
	/* the startup budget: ios.wda.startupTimeoutMs (120 s by default); this call waits 45 s of it at most */
	long budget = START_BUDGET_MS;
	json_t *setting = sw__wda_setting(s, "startupTimeoutMs");
	if (json_is_integer(setting) && json_integer_value(setting) > 0)
		budget = (long)json_integer_value(setting);
	json_decref(setting);
	int64_t t0 = sw_monotonic_ms(), until = t0 + (budget < START_WAIT_MS ? budget : START_WAIT_MS);
	const char *e = getenv("SWIPIUM_WDA_START_WAIT_MS"); /* tests shorten the wait; never raised past 45 s */
	if (e && *e) {
		long w = strtol(e, NULL, 10);
		if (w > 0 && t0 + w < until)
			until = t0 + w;
	}
	int status = 0;
	bool ready = false;
	while (sw_monotonic_ms() < until) {
		if (sw__proc_ended(pid, &status)) {
			sw__managed_find(&runners, sw_session_id(s), &m, true);
			sw_store_process_remove(sw_session_store(s), (int)pid, NULL);
			char *why = file_tail(path);
			char *uri = register_log(s, name, "xcodebuild test-without-building output");
			rc = sw__error_set(
			    err, SW_EDEVICE, "WDA_START_FAILED",
			    "Read the log (logUri); build WebDriverAgent first (qa_wda {action: \"build\"}) if it "
			    "was never built for this simulator, then start again",
			    "WebDriverAgent exited before it answered (%s %d): %s",
			    WIFEXITED(status) ? "status" : "signal",
			    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), why ? why : "");
			if (*err)
				sw__error_take_details(*err, json_pack("{s:s?,s:s}", "logUri", uri, "url", base));
			free(why);
			free(uri);
			json_decref(notes);
			goto out;
		}
		if (status_ready(base)) {
			ready = true;
			/* recorded again once it serves: a launcher (a shim, `env`) may have exec'd the program after
			 * the first record, and the next server only adopts a process whose command line is unchanged
			 */
			sw_store_process_add(sw_session_store(s), (int)pid, "wda", sw_session_id(s), base, NULL);
			break;
		}
		struct timespec ts = {0, 200 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (!ready && sw_monotonic_ms() - t0 >= budget) {
		/* the whole startup budget is spent: nothing half-started stays behind */
		sw__managed_find(&runners, sw_session_id(s), &m, true);
		sw__proc_stop(pid, SIGTERM, STOP_GRACE_MS);
		sw_store_process_remove(sw_session_store(s), (int)pid, NULL);
		char *uri = register_log(s, name, "xcodebuild test-without-building output");
		rc = sw__error_set(
		    err, SW_EDEVICE, "WDA_START_FAILED",
		    "Read the log (logUri); raise ios.wda.startupTimeoutMs in .swipium/config.json if the "
		    "simulator is slow, then start again",
		    "WebDriverAgent did not answer /status within its startup time (%ld ms, "
		    "ios.wda.startupTimeoutMs) and was stopped",
		    budget);
		if (*err)
			sw__error_take_details(*err, json_pack("{s:s?,s:s,s:I}", "logUri", uri, "url", base,
			                                       "startupTimeoutMs", (json_int_t)budget));
		free(uri);
		json_decref(notes);
		goto out;
	}
	json_object_set_new(o, "managed", json_true());
	json_object_set_new(o, "pid", json_integer(pid));
	json_object_set_new(o, "port", json_integer(port));
	json_object_set_new(o, "startupMs", json_integer((json_int_t)(sw_monotonic_ms() - t0)));
	json_object_set_new(o, "startupTimeoutMs", json_integer((json_int_t)budget));
	json_object_set_new(o, "status", json_string(ready ? "ready" : "starting"));
	if (!ready) {
		/* it keeps starting in the background: the rest of the budget is the caller's to wait */
		int64_t left = budget - (sw_monotonic_ms() - t0);
		json_object_set_new(o, "remainingStartupMs", json_integer((json_int_t)(left > 0 ? left : 0)));
	}
	json_object_set_new(o, "notes", notes);
out:
	sw_free(name);
	sw_free(path);
	return rc;
}

/* Ends an adopted runner (not our child, so nothing to reap): SIGTERM to its group, SIGKILL after the grace. */
static int stop_adopted(pid_t pid)
{
	kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	for (int64_t until = sw_monotonic_ms() + STOP_GRACE_MS; sw_monotonic_ms() < until;) {
		if (kill(pid, 0) != 0 && errno == ESRCH)
			return SIGTERM;
		sw__sleep_ms(50);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	return SIGKILL;
}

static json_t *stop_one(sw_session *s, sw_store *store, const sw__managed *m)
{
	const char *ended = NULL;
	if (m->adopted)
		ended = stop_adopted(m->pid) == SIGKILL ? "SIGKILL" : "SIGTERM";
	else {
		int st = sw__proc_stop(m->pid, SIGTERM, STOP_GRACE_MS);
		if (st != -1 && WIFSIGNALED(st))
			ended = WTERMSIG(st) == SIGKILL ? "SIGKILL" : "SIGTERM";
	}
	if (store)
		sw_store_process_remove(store, (int)m->pid, NULL);
	char *uri = m->adopted ? NULL : register_log(s, m->log_name, "xcodebuild test-without-building output");
	json_t *o = json_pack("{s:b,s:b,s:b,s:i,s:s,s:s?}", "managed", 1, "stopped", 1, "adopted", m->adopted, "pid",
	                      (int)m->pid, "url", m->endpoint, "logUri", uri);
	if (o && ended)
		json_object_set_new(o, "endedBy", json_string(ended));
	free(uri);
	return o;
}

static bool adopted_at(const sw__managed *m, void *url)
{
	return m->adopted && same_base(m->endpoint, url);
}

static bool alive_at(const sw__managed *m, void *url)
{
	return same_base(m->endpoint, url) && sw__managed_alive(m);
}

/* stop / logs for the session's managed WebDriverAgent; NULL when it has none. @url (nullable): a URL the caller
 * named, which may be an adopted runner whose session is not this one. (transfer full) */
json_t *sw__wda_managed_stop_url(sw_session *s, const char *url)
{
	sw__managed m;
	bool found = sw__managed_find(&runners, sw_session_id(s), &m, true);
	if (!found && url) {
		found = sw__managed_find_if(&runners, adopted_at, (void *)url, &m, true);
	}
	return found ? stop_one(s, sw_session_store(s), &m) : NULL;
}

json_t *sw__wda_managed_stop(sw_session *s)
{
	return sw__wda_managed_stop_url(s, NULL);
}

json_t *sw__wda_managed_logs(sw_session *s)
{
	sw__managed m;
	if (!sw__managed_find(&runners, sw_session_id(s), &m, false))
		return NULL;
	bool running = sw__managed_alive(&m);
	char *text = NULL;
	size_t len = 0;
	char *tail = NULL;
	if (m.log_path[0] && sw__read_file(m.log_path, 8 * 1024 * 1024, &text, &len, NULL) == SW_OK)
		tail = sw__utf8_cap(text, len, 2000, SW_CAP_TAIL);
	free(text);
	json_t *o = json_pack("{s:b,s:i,s:b,s:b,s:s,s:s}", "managed", 1, "pid", (int)m.pid, "running", running,
	                      "adopted", m.adopted, "url", m.endpoint, "logTail", tail ? tail : "");
	if (o && m.adopted)
		json_object_set_new(o, "logNote",
		                    json_string("adopted from an earlier server: its output went to that "
		                                "server's log file, which this server does not read"));
	free(tail);
	return o;
}

/* The session's runner answered ready after qa_wda start said "starting": record its settled command line. */
void sw__wda_managed_ready(sw_session *s, const char *url)
{
	sw__managed m;
	if (sw__managed_find(&runners, sw_session_id(s), &m, false) && !m.adopted && same_base(m.endpoint, url) &&
	    sw__managed_alive(&m))
		sw_store_process_add(sw_session_store(s), (int)m.pid, "wda", sw_session_id(s), m.endpoint, NULL);
}

/* The base URL of the session's managed WebDriverAgent, if one runs. (transfer full, nullable) */
char *sw__wda_managed_url(sw_session *s)
{
	sw__managed m;
	if (!sw__managed_find(&runners, sw_session_id(s), &m, false) || !sw__managed_alive(&m))
		return NULL;
	return sw__strdup(m.endpoint);
}

/* What this server knows of a managed runner at @url: {pid, udid, sessionId, adopted, ownSession}; processes.json
 * is read too, so a runner of another live server is found. NULL when none is recorded. (transfer full) */
json_t *sw__wda_managed_at(sw_session *s, const char *url)
{
	json_t *o = NULL;
	sw__managed m;
	if (sw__managed_find_if(&runners, alive_at, (void *)url, &m, false))
		o = json_pack("{s:i,s:s,s:s,s:b,s:b,s:b}", "pid", (int)m.pid, "udid", m.device, "sessionId", m.sid,
		              "adopted", m.adopted, "ownSession", !strcmp(m.sid, sw_session_id(s)), "thisServer", 1);
	if (o)
		return o;
	char *pj = NULL;
	if (sw_store_processes_json(sw_session_store(s), &pj, NULL) != SW_OK)
		return NULL;
	json_t *arr = json_loads(pj, 0, NULL);
	sw_free(pj);
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
	{
		const char *kind = json_string_value(json_object_get(e, "kind"));
		const char *ep = json_string_value(json_object_get(e, "endpoint"));
		json_t *jp = json_object_get(e, "pid");
		if (o || !kind || strcmp(kind, "wda") || !ep || !same_base(ep, url) || !json_is_integer(jp))
			continue;
		pid_t pid = (pid_t)json_integer_value(jp);
		if (pid <= 1 || (kill(pid, 0) != 0 && errno != EPERM))
			continue;
		char udid[64];
		udid_of_command(json_string_value(json_object_get(e, "command")), udid, sizeof(udid));
		const char *sid = json_string_value(json_object_get(e, "sessionId"));
		o = json_pack("{s:i,s:s,s:s,s:b,s:b,s:b}", "pid", (int)pid, "udid", udid, "sessionId", sid ? sid : "",
		              "adopted", 0, "ownSession", sid && !strcmp(sid, sw_session_id(s)), "thisServer", 0);
	}
	json_decref(arr);
	return o;
}

/* ---- across server restarts ------------------------------------------------------------------------------- */

static pthread_mutex_t adopt_lock = PTHREAD_MUTEX_INITIALIZER;
static bool adopt_done;

/*
 * Once per server, before qa_wda or qa_wait answers: the WebDriverAgents an earlier server started. The store's
 * sweep checks each processes.json entry's fingerprint (start time and command line), adopts a WDA under 12 h old
 * whose /status answers and stops the others; here an adopted one must also say ready:true (else it is stopped
 * and its entry removed), and becomes this server's managed runner for its session: qa_wda stop ends it.
 */
void sw__wda_adopt(sw_ctx *ctx, sw_session *s)
{
	sw_store *store = s ? sw_session_store(s) : NULL;
	if (!store)
		return;
	pthread_mutex_lock(&adopt_lock);
	if (adopt_done) {
		pthread_mutex_unlock(&adopt_lock);
		return;
	}
	adopt_done = true;
	(void)sw_store_sweep_processes(store, NULL, NULL);
	char *pj = NULL;
	json_t *arr = NULL;
	if (sw_store_processes_json(store, &pj, NULL) == SW_OK) {
		arr = json_loads(pj, 0, NULL);
		sw_free(pj);
	}
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
	{
		const char *kind = json_string_value(json_object_get(e, "kind"));
		const char *ep = json_string_value(json_object_get(e, "endpoint"));
		json_t *jp = json_object_get(e, "pid"), *sp = json_object_get(e, "serverPid");
		if (!kind || strcmp(kind, "wda") || !json_is_integer(jp) ||
		    json_integer_value(sp) != (json_int_t)getpid())
			continue;
		pid_t pid = (pid_t)json_integer_value(jp);
		if (pid <= 1 || sw__managed_has_pid(&runners, pid) || (!ep && build_running(pid)))
			continue; /* one this server started itself (a runner, or a build running now) */
		if (!ep || !status_ready(ep)) {
			if (json_is_true(json_object_get(e, "groupLeader")))
				kill(-pid, SIGTERM);
			kill(pid, SIGTERM);
			sw_store_process_remove(store, (int)pid, NULL);
			sw__log_info(ctx, "WebDriverAgent %d (%s) was not ready after the restart: stopped", (int)pid,
			             ep ? ep : "no endpoint");
			continue;
		}
		sw__managed m;
		memset(&m, 0, sizeof(m));
		m.pid = pid;
		m.adopted = true;
		m.port = url_port(ep);
		const char *sid = json_string_value(json_object_get(e, "sessionId"));
		snprintf(m.sid, sizeof(m.sid), "%s", sid ? sid : "");
		snprintf(m.endpoint, sizeof(m.endpoint), "%s", ep);
		udid_of_command(json_string_value(json_object_get(e, "command")), m.device, sizeof(m.device));
		if (sw__managed_put(&runners, &m))
			sw__log_info(ctx, "WebDriverAgent %d at %s adopted after a restart", (int)pid, ep);
	}
	json_decref(arr);
	pthread_mutex_unlock(&adopt_lock);
}

/* Server shutdown leaves every managed WebDriverAgent running (its processes.json entry stays): the next server
 * adopts it while its /status is ready, or stops it. Here its log so far is registered in its session (the
 * runner keeps writing to the file) and the table is emptied. */
SW_API void sw_ios_wda_shutdown(sw_ctx *ctx, sw_store *store)
{
	int n = 0;
	sw__managed m;
	while (sw__managed_pop(&runners, &m)) {
		n++;
		sw_session *s = NULL;
		if (store && !m.adopted && m.log_name[0] && sw_store_get_session(store, m.sid, &s, NULL) == SW_OK && s)
			free(register_log(s, m.log_name,
			                  "xcodebuild test-without-building output (until the server stopped)"));
	}
	if (ctx && n)
		sw__log_info(ctx, "%d WebDriverAgent(s) left running at shutdown (adopted by the next server)", n);
}
