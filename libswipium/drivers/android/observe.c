/*
 * observe.c: one look at the screen in one adb invocation. The act loop's observation is a single
 * `adb exec-out` of a short shell script: the app's frame counter, the UI hierarchy, the frame counter again
 * (unchanged: nothing was drawn while the hierarchy was read, so the screen had settled), the keyboard state,
 * and the device log since a time stamp. Sections are separated by marker lines; the script and the parser
 * are pure and unit-tested.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "observe.h"

/* marker lines: "@@swipium-obs-NONCE:name"; the nonce keeps a screen that shows such a line from faking one */
#define MARK "@@swipium-obs-"
#define DUMP_FILE "/sdcard/window_dump.xml"

static bool valid_stamp(const char *s)
{
	/* MM-DD hh:mm:ss.mmm (threadtime), nothing a shell would interpret */
	size_t n = strlen(s);
	if (n < 14 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && !strchr("- :.", s[i]))
			return false;
	return s[2] == '-' && s[5] == ' ';
}

static bool valid_pkg(const char *s)
{
	if (!s || !*s || strlen(s) > 255)
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_')
			return false;
	return true;
}

static bool valid_nonce(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n < 4 || n > 32)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]))
			return false;
	return true;
}

char *sw__android_observe_script(const sw__android_obs_req *q)
{
	if (!valid_nonce(q->nonce))
		return NULL;
	const char *k = q->nonce;
	sw_buf b = SW_BUF_INIT;
	bool frames = valid_pkg(q->frames_pkg);
	if (frames)
		sw__buf_printf(&b, "echo " MARK "%s:f0; dumpsys gfxinfo %s | grep -E 'Total frames rendered|visibility=0'; ",
		               k, q->frames_pkg);
	sw__buf_printf(&b, "echo " MARK "%s:dump; ", k);
	if (q->stream_dump)
		sw__buf_puts(&b, "uiautomator dump /dev/tty; ");
	else
		sw__buf_puts(&b, "rm -f " DUMP_FILE "; uiautomator dump " DUMP_FILE " >/dev/null; cat " DUMP_FILE "; ");
	if (frames)
		sw__buf_printf(&b, "echo " MARK "%s:f1; dumpsys gfxinfo %s | grep -E 'Total frames rendered|visibility=0'; ",
		               k, q->frames_pkg);
	if (q->want_keyboard)
		sw__buf_printf(&b, "echo " MARK "%s:ime; dumpsys input_method | grep -E 'mInputShown|mIsInputViewShown|mImeWindowVis'; ", k);
	if (q->want_log) {
		sw__buf_printf(&b, "echo " MARK "%s:log; logcat -d -v threadtime -b main -b system -b crash", k);
		if (q->log_since && valid_stamp(q->log_since))
			sw__buf_printf(&b, " -T '%s'", q->log_since);
		sw__buf_puts(&b, "; ");
	}
	sw__buf_printf(&b, "echo " MARK "%s:end", k);
	return sw__buf_steal(&b, NULL);
}

/* The text between the marker line "MARK name" and the next marker line, or NULL. */
static const char *section(const char *out, const char *nonce, const char *name, size_t *len)
{
	/* marker lines only: a marker must start a line (a node text quoting one does not) */
	char m[80], any[48];
	snprintf(m, sizeof(m), "\n" MARK "%s:%s\n", nonce, name);
	snprintf(any, sizeof(any), "\n" MARK "%s:", nonce);
	const char *p = NULL;
	if (!strncmp(out, m + 1, strlen(m + 1)))
		p = out + strlen(m + 1);
	else if ((p = strstr(out, m)))
		p += strlen(m);
	if (!p)
		return NULL;
	const char *e = strstr(p - 1, any); /* from the marker's own newline: an empty section ends at once */
	*len = !e ? strlen(p) : (e < p ? 0 : (size_t)(e - p));
	return p;
}

/* "Total frames rendered: N" and the visible window "\tpkg/Activity/android.view.ViewRootImpl@x (visibility=0)". */
static void parse_frames(const char *s, size_t len, long *frames, char **activity)
{
	char *t = sw__strndup(s, len);
	if (!t)
		return;
	const char *f = strstr(t, "Total frames rendered:");
	if (f)
		*frames = strtol(f + strlen("Total frames rendered:"), NULL, 10);
	const char *v = strstr(t, "visibility=0");
	if (v && activity && !*activity) {
		const char *ls = v;
		while (ls > t && ls[-1] != '\n')
			ls--;
		while (*ls == ' ' || *ls == '\t')
			ls++;
		const char *slash = strchr(ls, '/');
		const char *end = slash ? strstr(slash + 1, "/android.view.") : NULL;
		if (slash && end && end < v)
			*activity = sw__strndup(ls, (size_t)(end - ls)); /* "pkg/full.Activity" */
	}
	free(t);
}

static bool log_looks_ok(const char *s, size_t len)
{
	/* every line a threadtime line or a "--------- beginning of" divider: anything else is an error message */
	const char *p = s, *end = s + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n > 0 && !(n >= 10 && !strncmp(p, "---------", 9)) &&
		    !(n >= 18 && isdigit((unsigned char)p[0]) && p[2] == '-' && p[5] == ' ' && p[8] == ':'))
			return false;
		p += n + 1;
	}
	return true;
}

int sw__android_observe_parse(const char *out, size_t len, const char *nonce, sw__android_obs *o)
{
	memset(o, 0, sizeof(*o));
	o->frames_before = o->frames_after = -1;
	o->ime_shown = -1;
	char end[48];
	snprintf(end, sizeof(end), MARK "%s:end", nonce ? nonce : "");
	/* the end marker is the last line: the script ran to its end (not cut by a device or adb failure) */
	size_t n_out = out ? strnlen(out, len) : 0;
	while (n_out && isspace((unsigned char)out[n_out - 1]))
		n_out--;
	size_t n_end = strlen(end);
	if (!out || !valid_nonce(nonce) || n_out < n_end || memcmp(out + n_out - n_end, end, n_end) != 0 ||
	    (n_out > n_end && out[n_out - n_end - 1] != '\n'))
		return -1;
	size_t n = 0;
	const char *s = section(out, nonce, "f0", &n);
	if (s)
		parse_frames(s, n, &o->frames_before, &o->focus);
	s = section(out, nonce, "f1", &n);
	if (s)
		parse_frames(s, n, &o->frames_after, &o->focus);
	s = section(out, nonce, "dump", &n);
	if (s) {
		const char *x = NULL, *lim = s + n;
		for (const char *p = s; p < lim && !x; p++)
			if (*p == '<' && (!strncmp(p, "<?xml", 5) || !strncmp(p, "<hierarchy", 10)))
				x = p;
		if (x) {
			/* up to </hierarchy>, else (a broken dump) up to uiautomator's own line: the parser judges it */
			const char *close = NULL;
			for (const char *p = x; p + 12 <= lim; p++)
				if (!strncmp(p, "</hierarchy>", 12))
					close = p + 12;
			if (!close) {
				close = lim;
				for (const char *p = x; p + 22 <= lim; p++)
					if (!strncmp(p, "UI hierchary dumped to", 22)) {
						close = p;
						break;
					}
			}
			o->xml = sw__strndup(x, (size_t)(close - x));
			o->xml_len = o->xml ? (size_t)(close - x) : 0;
		} else {
			size_t k = n;
			while (k && isspace((unsigned char)s[k - 1]))
				k--;
			o->dump_error = k ? sw__utf8_cap(s, k, 300, 0) : sw__strdup("the dump printed nothing");
			/* no hierarchy, no uiautomator message: `uiautomator dump /dev/tty` is not served here */
			o->stream_unsupported = k && !memmem(s, k, "ERROR", 5) && !memmem(s, k, "dumped to", 9);
		}
	}
	s = section(out, nonce, "ime", &n);
	if (s) {
		char *t = sw__strndup(s, n);
		o->ime_shown = t && sw__android_parse_ime_shown(t) ? 1 : 0;
		free(t);
	}
	s = section(out, nonce, "log", &n);
	if (s && log_looks_ok(s, n)) {
		o->log = sw__strndup(s, n);
		o->log_len = o->log ? n : 0;
	}
	return 0;
}

void sw__android_obs_clear(sw__android_obs *o)
{
	free(o->xml);
	free(o->dump_error);
	free(o->log);
	free(o->focus);
	memset(o, 0, sizeof(*o));
}

/* ---- the driver slot ------------------------------------------------------------------------- */

#include <sys/random.h>

#define OBSERVE_TIMEOUT_MS 30000
#define OBSERVE_ATTEMPTS 3

static void nonce_of(char out[17])
{
	unsigned char r[8] = {0};
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		static unsigned long n;
		unsigned long v = (unsigned long)sw_monotonic_ms() ^ (++n * 2654435761u);
		memcpy(r, &v, sizeof(r) < sizeof(v) ? sizeof(r) : sizeof(v));
	}
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
}

int sw__android_observe(void *state, const sw_observe_request *req, sw_observation *out, sw_error **err)
{
	sw__android_dev *d = state;
	int rc = SW_OK;
	for (int attempt = 0; attempt < OBSERVE_ATTEMPTS; attempt++) {
		char nonce[17];
		nonce_of(nonce);
		sw__android_obs_req q = {.nonce = nonce,
		                         .stream_dump = !d->dump_via_file,
		                         .want_keyboard = req->want_keyboard != 0,
		                         .want_log = req->want_log != 0,
		                         .log_since = req->log_since};
		q.frames_pkg = req->frames_app;
		char *script = sw__android_observe_script(&q);
		if (!script)
			return sw__error_nomem(err);
		const char *args[] = {"exec-out", script, NULL};
		sw__proc_result r;
		rc = sw__android_adb_abortable(d->adb, d->serial, args, OBSERVE_TIMEOUT_MS, d->abort_fn, d->abort_ud, &r,
		                               err);
		free(script);
		if (rc < 0)
			return rc;
		sw__android_obs o;
		int prc = sw__android_observe_parse(r.out, r.out_len, nonce, &o);
		sw__proc_result_clear(&r);
		if (prc < 0) {
			/* the script stopped half-way: the device went away or adb failed in between */
			return sw__error_set(err, SW_EDEVICE, "DEVICE_NOT_READY", "Check the device (qa_wait device_online)",
			                     "The device did not finish answering (the observation was cut short)");
		}
		if (o.stream_unsupported && !d->dump_via_file) {
			d->dump_via_file = true; /* this device does not stream the dump to /dev/tty: use the file */
			sw__android_obs_clear(&o);
			attempt--;
			continue;
		}
		sw_observation_clear(out);
		out->xml = o.xml;
		out->xml_len = o.xml_len;
		out->dump_error = o.dump_error;
		out->frames_before = o.frames_before;
		out->frames_after = o.frames_after;
		out->focus = o.focus;
		out->keyboard_shown = o.ime_shown;
		out->log = o.log;
		out->log_len = o.log_len;
		if (out->xml)
			return SW_OK;
		/* "could not get idle state" and friends: look again, bounded, like dump_ui */
	}
	return SW_OK; /* out->xml NULL, out->dump_error says why */
}
