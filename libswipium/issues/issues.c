/* issues.c: the issue ledger: an append-only JSONL event log replayed into issues under a cross-process lock. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

#include "sw-internal.h"

#define LEDGER_MAX_BYTES ((size_t)256 * 1024 * 1024)

static void iso(int64_t ms, char out[64])
{
	sw_iso_time(ms, out);
}

/* Parses YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM] into epoch ms. Returns false when malformed. */
static bool parse_iso(const char *s, int64_t *out)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
	if (!s || sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return false;
	const char *p = s + n;
	int ms = 0;
	if (*p == 'T' || *p == ' ') {
		int m2 = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &h, &mi, &m2) != 2)
			return false;
		p += 1 + m2;
		if (*p == ':') {
			int m3 = 0;
			if (sscanf(p + 1, "%2d%n", &sec, &m3) != 1)
				return false;
			p += 1 + m3;
			if (*p == '.') {
				p++;
				int digits = 0;
				while (isdigit((unsigned char)*p)) {
					if (digits < 3)
						ms = ms * 10 + (*p - '0');
					digits++;
					p++;
				}
				while (digits > 0 && digits < 3) {
					ms *= 10;
					digits++;
				}
			}
		}
	}
	int tz = 0;
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int th, tm2;
		if (sscanf(p + 1, "%2d:%2d", &th, &tm2) != 2)
			return false;
		tz = (th * 60 + tm2) * (*p == '+' ? 1 : -1);
		p += 6;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return false;
	struct tm tm = {0};
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	time_t t = timegm(&tm);
	*out = ((int64_t)t - (int64_t)tz * 60) * 1000 + ms;
	return true;
}

/* ---- identity ---------------------------------------------------------------------------- */

/* Lower-cases, replaces numbers and id-like tokens (anything with a digit) by '#', keeps letters. */
static char *normalize_title(const char *title, bool *vague)
{
	size_t n = strlen(title);
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	int longest_word = 0;
	const char *p = title;
	while (*p) {
		if (isspace((unsigned char)*p) || (ispunct((unsigned char)*p) && *p != '_' && *p != '-')) {
			if (o > 0 && out[o - 1] != ' ')
				out[o++] = ' ';
			p++;
			continue;
		}
		/* one token */
		const char *start = p;
		bool digit = false;
		while (*p && !isspace((unsigned char)*p) && !(ispunct((unsigned char)*p) && *p != '_' && *p != '-')) {
			if (isdigit((unsigned char)*p))
				digit = true;
			p++;
		}
		if (digit) {
			out[o++] = '#';
		} else {
			int letters = 0;
			for (const char *q = start; q < p; q++) {
				out[o++] = (char)tolower((unsigned char)*q);
				if (isalpha((unsigned char)*q) || ((unsigned char)*q & 0x80))
					letters++;
			}
			if (letters > longest_word)
				longest_word = letters;
		}
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	*vague = longest_word < 3;
	return out;
}

static void fingerprint_of(const char *norm, const char *code_or_cat, const char *platform, char out[17])
{
	char *key = sw__asprintf("%s|%s|%s", norm, code_or_cat ? code_or_cat : "", platform ? platform : "unknown");
	char hex[65];
	sw_sha256_hex(key ? key : "", key ? strlen(key) : 0, hex);
	free(key);
	memcpy(out, hex, 16);
	out[16] = '\0';
}

static void new_id(char out[9])
{
	unsigned char raw[4] = {0};
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, raw, sizeof(raw)) != (ssize_t)sizeof(raw))
			memset(raw, 0, sizeof(raw));
		close(fd);
	}
	if (!raw[0] && !raw[1] && !raw[2] && !raw[3]) {
		int64_t t = sw_wall_ms() ^ (int64_t)getpid();
		memcpy(raw, &t, sizeof(raw));
	}
	snprintf(out, 9, "%02x%02x%02x%02x", raw[0], raw[1], raw[2], raw[3]);
}

/* ---- replay ------------------------------------------------------------------------------ */

static bool is_active(const char *state)
{
	return !strcmp(state, "open") || !strcmp(state, "observed_again") || !strcmp(state, "reopened") ||
	       !strcmp(state, "needs_triage");
}

static const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static void copy_fields(json_t *issue, const json_t *ev, const char *const *keys)
{
	for (int i = 0; keys[i]; i++) {
		json_t *v = json_object_get(ev, keys[i]);
		if (v)
			json_object_set(issue, keys[i], v);
	}
}

/* Applies one event to the issue table (object id -> issue). Unknown or broken events are skipped. */
static void apply(json_t *issues, json_t *order, const json_t *ev)
{
	const char *type = sget(ev, "event");
	const char *id = sget(ev, "issueId");
	const char *at = sget(ev, "at");
	if (!type || !id || !at)
		return;
	json_t *issue = json_object_get(issues, id);
	if (!strcmp(type, "log")) {
		if (!issue) {
			issue =
			    json_pack("{s:s,s:s*,s:s,s:s,s:i}", "issueId", id, "fingerprint", sget(ev, "fingerprint"),
			              "state", "open", "firstSeenAt", at, "occurrences", 0);
			static const char *const keys[] = {"title",    "summary",  "failureCode", "category",
			                                   "severity", "platform", NULL};
			copy_fields(issue, ev, keys);
			json_object_set_new(issue, "evidenceUris", json_array());
			json_object_set_new(issues, id, issue);
			json_array_append_new(order, json_string(id));
		} else {
			const char *state = sget(issue, "state");
			if (state && (!strcmp(state, "fixed")))
				json_object_set_new(issue, "state", json_string("reopened"));
			else if (state && !strcmp(state, "open"))
				json_object_set_new(issue, "state", json_string("observed_again"));
			if (sget(ev, "summary"))
				json_object_set(issue, "summary", json_object_get(ev, "summary"));
		}
		json_object_set_new(issue, "lastSeenAt", json_string(at));
		json_object_set_new(issue, "occurrences",
		                    json_integer(json_integer_value(json_object_get(issue, "occurrences")) + 1));
		json_t *uris = json_object_get(issue, "evidenceUris");
		size_t i;
		json_t *u;
		json_array_foreach(json_object_get(ev, "evidenceUris"), i, u)
		{
			if (json_array_size(uris) < 50 && json_is_string(u))
				json_array_append(uris, u);
		}
		if (sget(ev, "sessionId"))
			json_object_set(issue, "lastSessionId", json_object_get(ev, "sessionId"));
		return;
	}
	if (!issue)
		return;
	if (!strcmp(type, "mark_fixed")) {
		json_object_set_new(issue, "state", json_string("fixed"));
		json_object_set_new(issue, "fixedAt", json_string(at));
		json_object_del(issue, "verifiedAt");
		json_object_del(issue, "verification");
		static const char *const keys[] = {"fixedInCommit", "fixedInVersion", "howFixed", "fixedBy", NULL};
		copy_fields(issue, ev, keys);
	} else if (!strcmp(type, "verify_fixed")) {
		json_object_set_new(issue, "verifiedAt", json_string(at));
		json_object_set(issue, "verification", json_object_get(ev, "evidence"));
	} else if (!strcmp(type, "suppress")) {
		if (strcmp(sget(issue, "state") ? sget(issue, "state") : "", "suppressed") != 0)
			json_object_set(issue, "previousState", json_object_get(issue, "state"));
		json_object_set_new(issue, "state", json_string("suppressed"));
		static const char *const keys[] = {"suppressionReason", "suppressedUntil", "suppressionScope", NULL};
		json_object_del(issue, "suppressedUntil");
		copy_fields(issue, ev, keys);
		json_object_set_new(issue, "suppressedAt", json_string(at));
	} else if (!strcmp(type, "unsuppress")) {
		json_t *prev = json_object_get(issue, "previousState");
		json_object_set(issue, "state", prev ? prev : json_string("open"));
		json_object_del(issue, "previousState");
		json_object_del(issue, "suppressedUntil");
	}
}

/* Expired suppressions fall back to the state before them. */
static void expire(json_t *issues, int64_t now)
{
	const char *k;
	json_t *issue;
	json_object_foreach(issues, k, issue)
	{
		int64_t until;
		const char *state = sget(issue, "state");
		if (state && !strcmp(state, "suppressed") && parse_iso(sget(issue, "suppressedUntil"), &until) &&
		    until <= now) {
			json_t *prev = json_object_get(issue, "previousState");
			json_object_set(issue, "state", prev ? prev : json_string("open"));
			json_object_del(issue, "previousState");
		}
	}
}

/* ---- file --------------------------------------------------------------------------------- */

struct ledger {
	const char *root; /* the project root (borrowed) */
	char *path;       /* the confined real path of .swipium/issues-log.jsonl */
	int lock_fd;
	json_t *issues; /* id -> issue */
	json_t *order;  /* ids in first-seen order */
	json_t *fps;    /* fingerprint -> id */
	size_t skipped;
};

/*
 * The replayed index of the last ledger this process used. It is reused while the file is exactly as
 * this process left it (same inode, size and mtime), so appending N events costs O(N), not O(N^2);
 * any change by another process makes the next call replay the file.
 */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	json_t *issues, *order, *fps;
} cache;

static bool same_file(const struct stat *st)
{
	return cache.dev == st->st_dev && cache.ino == st->st_ino && cache.size == st->st_size &&
	       cache.mtime.tv_sec == st->st_mtim.tv_sec && cache.mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void cache_store(struct ledger *l)
{
	struct stat st;
	if (stat(l->path, &st) != 0)
		return;
	if (!cache.path || strcmp(cache.path, l->path) != 0) {
		free(cache.path);
		cache.path = sw__strdup(l->path);
	}
	cache.dev = st.st_dev;
	cache.ino = st.st_ino;
	cache.size = st.st_size;
	cache.mtime = st.st_mtim;
	json_decref(cache.issues);
	json_decref(cache.order);
	json_decref(cache.fps);
	cache.issues = json_incref(l->issues);
	cache.order = json_incref(l->order);
	cache.fps = json_incref(l->fps);
}

static void ledger_close(struct ledger *l)
{
	if (l->lock_fd >= 0) {
		flock(l->lock_fd, LOCK_UN);
		close(l->lock_fd);
	}
	free(l->path);
	json_decref(l->issues);
	json_decref(l->order);
	json_decref(l->fps);
}

static int ledger_open(struct ledger *l, const char *root, bool create, sw_error **err)
{
	memset(l, 0, sizeof(*l));
	l->root = root;
	l->lock_fd = -1;
	l->issues = json_object();
	l->order = json_array();
	l->fps = json_object();
	char *dir = NULL;
	int rc = SW_OK;
	if (!l->issues || !l->order || !l->fps) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (!sw__is_dir(root)) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass an existing project directory.",
		                   "Project root %s is not a directory", root);
		goto out;
	}
	/* .swipium, the ledger and its lock are confined to the project: a link leading out is refused */
	if (create) {
		if ((rc = sw__confine_mkdirs(root, ".swipium", 0755, &dir, err)) < 0)
			goto out;
	} else if ((rc = sw__confine(root, ".swipium", 0, &dir, err)) < 0) {
		goto out;
	}
	if ((rc = sw__confine(root, ".swipium/issues-log.jsonl", 0, &l->path, err)) < 0)
		goto out;
	if (sw__is_dir(dir)) {
		l->lock_fd = sw__confine_open(root, ".swipium/issues-log.jsonl.lock", O_RDWR | O_CREAT, 0644, 0, NULL, err);
		if (l->lock_fd < 0) {
			rc = l->lock_fd;
			l->lock_fd = -1;
			goto out;
		}
		if (flock(l->lock_fd, LOCK_EX) != 0) {
			rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "Cannot lock %s.lock: %s", l->path, strerror(errno));
			goto out;
		}
	}
	struct stat st;
	if (cache.path && !strcmp(cache.path, l->path) && stat(l->path, &st) == 0 && same_file(&st)) {
		json_decref(l->issues);
		json_decref(l->order);
		json_decref(l->fps);
		l->issues = json_incref(cache.issues);
		l->order = json_incref(cache.order);
		l->fps = json_incref(cache.fps);
		goto out;
	}
	char *text = NULL;
	size_t len = 0;
	if (sw__is_file(l->path)) {
		rc = sw__read_file(l->path, LEDGER_MAX_BYTES, &text, &len, err);
		if (rc != SW_OK)
			goto out;
	}
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		if (n > 0) {
			json_t *ev = json_loadb(line, n, 0, NULL);
			if (json_is_object(ev))
				apply(l->issues, l->order, ev);
			else
				l->skipped++;
			json_decref(ev);
		}
		line = nl ? nl + 1 : line + n;
	}
	free(text);
	const char *k;
	json_t *issue;
	json_object_foreach(l->issues, k, issue)
	{
		const char *fp = sget(issue, "fingerprint");
		if (fp)
			json_object_set_new(l->fps, fp, json_string(k));
	}
out:
	free(dir);
	return rc;
}

static int ledger_append(struct ledger *l, json_t *ev, sw_error **err)
{
	char *line = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!line)
		return sw__error_nomem(err);
	/* l->path is confined; opened again without following a final link (one placed meanwhile is refused) */
	int fd = sw__confine_open(l->root, l->path, O_WRONLY | O_APPEND | O_CREAT, 0644, 0, NULL, err);
	int rc = fd < 0 ? fd : SW_OK;
	size_t n = strlen(line);
	line[n] = '\n';
	/* One write(2) of a whole line under the lock; no fsync: a crash can lose the last events but never
	 * corrupts earlier ones (a torn last line is skipped on replay). */
	if (fd >= 0 && write(fd, line, n + 1) != (ssize_t)(n + 1))
		rc = sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "Cannot append to %s: %s", l->path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(line);
	if (rc == SW_OK)
		apply(l->issues, l->order, ev);
	return rc;
}

/* ---- modes -------------------------------------------------------------------------------- */

static char *scrub(struct sw_redactor *r, const char *s)
{
	if (!s)
		return NULL;
	char *out = NULL;
	if (r && sw_redactor_redact_text(r, s, strlen(s), &out, NULL, NULL, NULL) == SW_OK)
		return out;
	return sw__strdup(s);
}

static void set_scrubbed(json_t *obj, const char *key, const json_t *req, struct sw_redactor *r)
{
	const char *v = sget(req, key);
	if (!v)
		return;
	char *s = scrub(r, v);
	if (s)
		json_object_set_new(obj, key, json_string(s));
	free(s);
}

static json_t *find_issue(struct ledger *l, const json_t *req, sw_error **err, int *rc)
{
	const char *id = sget(req, "issueId");
	const char *fp = sget(req, "fingerprint");
	if (!id && !fp) {
		*rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                    "Pass issueId or fingerprint from a history entry.",
		                    "This mode needs issueId or fingerprint");
		return NULL;
	}
	json_t *issue = id ? json_object_get(l->issues, id) : NULL;
	if (!issue && fp) {
		const char *mapped = sget(l->fps, fp);
		issue = mapped ? json_object_get(l->issues, mapped) : NULL;
	}
	if (!issue) {
		*rc = sw__error_set(err, SW_ENOTFOUND, "ISSUE_NOT_FOUND",
		                    "Call qa_issue_log with mode history to list issues.", "No issue %s in the ledger",
		                    id ? id : fp);
		return NULL;
	}
	return issue;
}

static int mode_log(struct ledger *l, const json_t *req, struct sw_redactor *r, int64_t now, json_t **out,
                    sw_error **err)
{
	const char *title = sget(req, "title");
	if (!title || !*title)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Give the issue a short, specific title.",
		                     "title: Required");
	char *clean = scrub(r, title);
	bool vague = false;
	char *norm = clean ? normalize_title(clean, &vague) : NULL;
	if (!norm) {
		free(clean);
		return sw__error_nomem(err);
	}
	if (vague) {
		free(clean);
		free(norm);
		return sw__error_set(
		    err, SW_EINVAL, "ISSUE_LOG_TOO_VAGUE",
		    "Name the screen, control or behaviour, e.g. \"Checkout button does nothing on the cart screen\".",
		    "The title has no identifying words once numbers and ids are removed");
	}
	const char *code = sget(req, "failureCode");
	const char *category = sget(req, "category") ? sget(req, "category") : "app_bug";
	const char *severity = sget(req, "severity") ? sget(req, "severity") : "medium";
	const char *platform = sget(req, "platform") ? sget(req, "platform") : "unknown";
	char fp[17];
	fingerprint_of(norm, code ? code : category, platform, fp);
	free(norm);
	const char *existing = sget(l->fps, fp);
	char idbuf[9];
	if (!existing)
		new_id(idbuf);
	const char *id = existing ? existing : idbuf;
	json_t *before = existing ? json_deep_copy(json_object_get(l->issues, existing)) : NULL;
	char at[64];
	iso(now, at);
	json_t *ev = json_pack("{s:s,s:s,s:s,s:s,s:s}", "event", "log", "at", at, "issueId", id, "fingerprint", fp,
	                       "title", clean);
	free(clean);
	set_scrubbed(ev, "summary", req, r);
	if (code)
		json_object_set_new(ev, "failureCode", json_string(code));
	json_object_set_new(ev, "category", json_string(category));
	json_object_set_new(ev, "severity", json_string(severity));
	json_object_set_new(ev, "platform", json_string(platform));
	if (json_is_array(json_object_get(req, "evidenceUris")))
		json_object_set(ev, "evidenceUris", json_object_get(req, "evidenceUris"));
	if (sget(req, "sessionId"))
		json_object_set(ev, "sessionId", json_object_get(req, "sessionId"));
	if (sget(req, "source"))
		json_object_set(ev, "source", json_object_get(req, "source"));
	int rc = ledger_append(l, ev, err);
	json_decref(ev);
	if (rc != SW_OK) {
		json_decref(before);
		return rc;
	}
	if (!existing)
		json_object_set_new(l->fps, fp, json_string(id));
	json_t *issue = json_object_get(l->issues, id);
	const char *prev = before ? sget(before, "state") : NULL;
	const char *outcome = !before ? "created" : (prev && !strcmp(prev, "fixed")) ? "reopened" : "observed_again";
	json_t *o = json_pack("{s:s,s:O}", "outcome", outcome, "issue", issue);
	if (!strcmp(outcome, "reopened")) {
		char *msg = sw__asprintf("Regression: this issue was marked fixed%s%s%s%s%s and was seen again.",
		                         sget(before, "fixedInCommit") ? " in " : "",
		                         sget(before, "fixedInCommit") ? sget(before, "fixedInCommit") : "",
		                         sget(before, "howFixed") ? " (\"" : "",
		                         sget(before, "howFixed") ? sget(before, "howFixed") : "",
		                         sget(before, "howFixed") ? "\")" : "");
		if (msg)
			json_object_set_new(o, "regression", json_string(msg));
		free(msg);
	}
	json_decref(before);
	*out = o;
	return SW_OK;
}

static int mode_change(struct ledger *l, const char *mode, const json_t *req, struct sw_redactor *r, int64_t now,
                       json_t **out, sw_error **err)
{
	int rc = SW_OK;
	json_t *issue = find_issue(l, req, err, &rc);
	if (!issue)
		return rc;
	const char *id = sget(issue, "issueId");
	const char *state = sget(issue, "state") ? sget(issue, "state") : "open";
	char at[64];
	iso(now, at);
	json_t *ev = json_pack("{s:s,s:s,s:s}", "event", mode, "at", at, "issueId", id);
	if (!strcmp(mode, "mark_fixed")) {
		if (!is_active(state)) {
			json_decref(ev);
			return sw__error_set(
			    err, SW_ESTATE, "ISSUE_STATE_INVALID",
			    "Only open, observed_again, reopened or needs_triage issues can be marked fixed.",
			    "Issue %s is %s", id, state);
		}
		static const char *const keys[] = {"fixedInCommit", "fixedInVersion", NULL};
		copy_fields(ev, req, keys);
		set_scrubbed(ev, "howFixed", req, r);
		set_scrubbed(ev, "fixedBy", req, r);
	} else if (!strcmp(mode, "verify_fixed")) {
		json_t *evidence = json_object();
		static const char *const keys[] = {"reportUri", "testCaseId", "auditCheckId", NULL};
		copy_fields(evidence, req, keys);
		if (json_array_size(json_object_get(req, "evidenceUris")))
			json_object_set(evidence, "evidenceUris", json_object_get(req, "evidenceUris"));
		if (strcmp(state, "fixed") != 0 || json_object_size(evidence) == 0) {
			json_decref(evidence);
			json_decref(ev);
			return sw__error_set(err, SW_EINVAL, "ISSUE_EVIDENCE_REQUIRED",
			                     "Mark the issue fixed first, then verify it with reportUri, testCaseId, "
			                     "auditCheckId or evidenceUris.",
			                     strcmp(state, "fixed") != 0 ? "Issue %s is not fixed (it is %s)"
			                                                 : "Issue %s: verification needs evidence%s",
			                     id, strcmp(state, "fixed") != 0 ? state : "");
		}
		json_object_set_new(ev, "evidence", evidence);
	} else {
		/* suppress / unsuppress */
		if (json_is_true(json_object_get(req, "unsuppress"))) {
			json_object_set_new(ev, "event", json_string("unsuppress"));
			if (strcmp(state, "suppressed") != 0) {
				json_decref(ev);
				return sw__error_set(err, SW_ESTATE, "ISSUE_STATE_INVALID", NULL,
				                     "Issue %s is not suppressed", id);
			}
		} else {
			const char *until =
			    sget(req, "suppressedUntil") ? sget(req, "suppressedUntil") : sget(req, "until");
			int64_t t;
			if (until && !parse_iso(until, &t)) {
				json_decref(ev);
				return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
				                     "Use an ISO date such as 2026-12-31.",
				                     "suppressedUntil: not an ISO date");
			}
			if (until)
				json_object_set_new(ev, "suppressedUntil", json_string(until));
			set_scrubbed(ev, "suppressionReason", req, r);
			if (sget(req, "suppressionScope"))
				json_object_set(ev, "suppressionScope", json_object_get(req, "suppressionScope"));
		}
	}
	rc = ledger_append(l, ev, err);
	json_decref(ev);
	if (rc != SW_OK)
		return rc;
	*out = json_pack("{s:s,s:O}", "outcome", mode, "issue", json_object_get(l->issues, id));
	return SW_OK;
}

static bool match(const json_t *issue, const json_t *req, const char *key)
{
	const char *want = sget(req, key);
	if (!want)
		return true;
	const char *have = sget(issue, key);
	return have && !strcmp(have, want);
}

static int mode_history(struct ledger *l, const json_t *req, json_t **out, sw_error **err)
{
	int64_t since = 0;
	if (sget(req, "since") && !parse_iso(sget(req, "since"), &since))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Use an ISO date such as 2026-01-31.",
		                     "since: not an ISO date");
	bool with_suppressed = json_is_true(json_object_get(req, "includeSuppressed"));
	json_t *list = json_array();
	size_t total = 0, suppressed = 0;
	for (size_t i = json_array_size(l->order); i-- > 0;) {
		json_t *issue = json_object_get(l->issues, json_string_value(json_array_get(l->order, i)));
		if (!issue)
			continue;
		total++;
		const char *state = sget(issue, "state");
		bool is_suppressed = state && !strcmp(state, "suppressed");
		suppressed += is_suppressed;
		if (is_suppressed && !with_suppressed && !sget(req, "state"))
			continue;
		int64_t last = 0;
		if (since && (!parse_iso(sget(issue, "lastSeenAt"), &last) || last < since))
			continue;
		if (!match(issue, req, "state") || !match(issue, req, "category") || !match(issue, req, "severity") ||
		    !match(issue, req, "platform"))
			continue;
		json_array_append(list, issue);
	}
	*out = json_pack("{s:o,s:I,s:I,s:I}", "issues", list, "count", (json_int_t)json_array_size(list), "total",
	                 (json_int_t)total, "suppressed", (json_int_t)suppressed);
	return SW_OK;
}

static void period_key(int64_t ms, const char *group, char out[16])
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&s, &tm);
	if (!strcmp(group, "day"))
		strftime(out, 16, "%Y-%m-%d", &tm);
	else if (!strcmp(group, "month"))
		strftime(out, 16, "%Y-%m", &tm);
	else
		strftime(out, 16, "%G-W%V", &tm);
}

static void bump(json_t *obj, const char *key, const char *field)
{
	json_t *row = json_object_get(obj, key);
	if (!row) {
		row = json_pack("{s:s,s:i,s:i,s:i}", "period", key, "logged", 0, "fixed", 0, "reopened", 0);
		json_object_set_new(obj, key, row);
	}
	json_object_set_new(row, field, json_integer(json_integer_value(json_object_get(row, field)) + 1));
}

static int mode_metrics(struct ledger *l, const json_t *req, json_t **out, sw_error **err)
{
	int64_t since = 0, until = INT64_MAX;
	if (sget(req, "since") && !parse_iso(sget(req, "since"), &since))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "since: not an ISO date");
	if (sget(req, "until") && !parse_iso(sget(req, "until"), &until))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "until: not an ISO date");
	const char *group = sget(req, "groupBy") ? sget(req, "groupBy") : "week";
	if (strcmp(group, "day") && strcmp(group, "week") && strcmp(group, "month"))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "groupBy: expected day, week or month");
	bool with_suppressed = json_is_true(json_object_get(req, "includeSuppressed"));
	json_t *periods = json_object(), *by_state = json_object(), *by_cat = json_object(), *by_sev = json_object();
	size_t counted = 0;
	const char *k;
	json_t *issue;
	json_object_foreach(l->issues, k, issue)
	{
		const char *state = sget(issue, "state") ? sget(issue, "state") : "open";
		if (!strcmp(state, "suppressed") && !with_suppressed)
			continue;
		int64_t first = 0, fixed = 0;
		bool in = parse_iso(sget(issue, "firstSeenAt"), &first) && first >= since && first <= until;
		char key[16];
		if (in) {
			period_key(first, group, key);
			bump(periods, key, "logged");
		}
		if (parse_iso(sget(issue, "fixedAt"), &fixed) && fixed >= since && fixed <= until) {
			period_key(fixed, group, key);
			bump(periods, key, "fixed");
		}
		if (!strcmp(state, "reopened")) {
			int64_t last = 0;
			if (parse_iso(sget(issue, "lastSeenAt"), &last) && last >= since && last <= until) {
				period_key(last, group, key);
				bump(periods, key, "reopened");
			}
		}
		counted++;
		json_object_set_new(by_state, state,
		                    json_integer(json_integer_value(json_object_get(by_state, state)) + 1));
		const char *cat = sget(issue, "category") ? sget(issue, "category") : "unknown";
		json_object_set_new(by_cat, cat, json_integer(json_integer_value(json_object_get(by_cat, cat)) + 1));
		const char *sev = sget(issue, "severity") ? sget(issue, "severity") : "unknown";
		json_object_set_new(by_sev, sev, json_integer(json_integer_value(json_object_get(by_sev, sev)) + 1));
	}
	/* periods in time order (keys sort lexically by construction) */
	size_t n = json_object_size(periods);
	const char **keys = calloc(n ? n : 1, sizeof(char *));
	json_t *rows = json_array();
	size_t i = 0;
	json_object_foreach(periods, k, issue)
	{
		keys[i++] = k;
	}
	for (size_t a = 1; keys && a < n; a++)
		for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
			const char *t = keys[b];
			keys[b] = keys[b - 1];
			keys[b - 1] = t;
		}
	for (i = 0; keys && i < n; i++)
		json_array_append(rows, json_object_get(periods, keys[i]));
	free(keys);
	json_decref(periods);
	*out = json_pack("{s:s,s:I,s:o,s:o,s:o,s:o}", "groupBy", group, "issues", (json_int_t)counted, "periods", rows,
	                 "byState", by_state, "byCategory", by_cat, "bySeverity", by_sev);
	return SW_OK;
}

SW_API int sw_issues_run(const char *project_root, const char *request_json, struct sw_redactor *redactor,
                         char **result_json, sw_error **err)
{
	if (!project_root || !request_json || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_issues_run: missing argument");
	json_error_t jerr;
	json_t *req = json_loads(request_json, 0, &jerr);
	if (!json_is_object(req)) {
		json_decref(req);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "The request is not a JSON object");
	}
	const char *mode = sget(req, "mode") ? sget(req, "mode") : "history";
	bool writes = !strcmp(mode, "log") || !strcmp(mode, "mark_fixed") || !strcmp(mode, "verify_fixed") ||
	              !strcmp(mode, "suppress");
	if (!writes && strcmp(mode, "history") && strcmp(mode, "metrics")) {
		json_decref(req);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "mode: unknown mode \"%s\"", mode);
	}
	int64_t now = sw_wall_ms();
	json_t *now_override = json_object_get(req, "nowMs");
	if (json_is_integer(now_override))
		now = json_integer_value(now_override);
	struct ledger l;
	pthread_mutex_lock(&cache_lock);
	int rc = ledger_open(&l, project_root, writes, err);
	bool opened = rc == SW_OK;
	json_t *out = NULL;
	if (rc == SW_OK) {
		expire(l.issues, now);
		if (!strcmp(mode, "log"))
			rc = mode_log(&l, req, redactor, now, &out, err);
		else if (writes)
			rc = mode_change(&l, mode, req, redactor, now, &out, err);
		expire(l.issues, now);
		if (rc == SW_OK && !strcmp(mode, "history"))
			rc = mode_history(&l, req, &out, err);
		else if (rc == SW_OK && !strcmp(mode, "metrics"))
			rc = mode_metrics(&l, req, &out, err);
	}
	if (rc == SW_OK && out) {
		json_object_set_new(out, "mode", json_string(mode));
		json_object_set_new(out, "ledgerPath", json_string(l.path));
		if (l.skipped)
			json_object_set_new(out, "skippedLines", json_integer((json_int_t)l.skipped));
		*result_json = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!*result_json)
			rc = sw__error_nomem(err);
	}
	json_decref(out);
	if (opened && sw__is_file(l.path))
		cache_store(&l);
	ledger_close(&l);
	pthread_mutex_unlock(&cache_lock);
	json_decref(req);
	return rc;
}
