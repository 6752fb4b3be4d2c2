/* health.c: app health: logcat crash/ANR scanning, on-screen error surfaces and overlays, foreground check. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "../catalog/catalog-internal.h"
#include "../device/devctl-internal.h"
#include "health-internal.h"

struct kind_info {
	const char *kind, *severity, *layer, *code;
};

static const struct kind_info kinds[] = {
    {"native_crash", "high", "native", "NATIVE_CRASH"},
    {"anr", "high", "native", "ANR"},
    {"wrong_foreground_app", "medium", "native", "WRONG_FOREGROUND"},
    {"wda_unreachable", "high", "native", "WDA_UNREACHABLE"},
    {"permission_dialog", "medium", "native", "PERMISSION_DIALOG"},
    {"native_alert", "medium", "native", "NATIVE_ALERT"},
    {"rn_redbox", "high", "app", "REDBOX"},
    {"rn_logbox_error", "medium", "app", "LOGBOX"},
    {"app_error_boundary", "high", "app", "ERROR_BOUNDARY"},
    {"webview_error", "high", "app", "ERROR_BOUNDARY"},
    {"unknown_error_surface", "high", "app", "BACKEND_ERROR"},
    /* the check itself could not look (the device dropped, a read failed): never "healthy" */
    {"health_unchecked", "medium", "native", "DEVICE_NOT_READY"},
};

static const struct kind_info *kind_info(const char *kind)
{
	for (size_t i = 0; kind && i < SW_ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].kind, kind))
			return &kinds[i];
	return NULL;
}

const char *sw_health_kind_code(const char *kind)
{
	const struct kind_info *k = kind_info(kind);
	return k ? k->code : "UNKNOWN";
}

/* A finding object for @kind; @evidence may be NULL. Long texts are cut at 300 characters. */
static json_t *finding(const char *kind, const char *detail, const char *evidence)
{
	const struct kind_info *k = kind_info(kind);
	json_t *f = json_pack("{s:s,s:s,s:s,s:s}", "kind", kind, "severity", k ? k->severity : "medium", "layer",
	                      k ? k->layer : "app", "failureCode", k ? k->code : "UNKNOWN");
	if (!f)
		return NULL;
	char *d = sw__utf8_sanitize(detail, strlen(detail));
	if (d && strlen(d) > 300)
		strcpy(d + 297, "...");
	json_object_set_new(f, "detail", json_string(d ? d : ""));
	free(d);
	if (evidence && *evidence) {
		char *e = sw__utf8_sanitize(evidence, strlen(evidence));
		if (e && strlen(e) > 300)
			strcpy(e + 297, "...");
		if (e)
			json_object_set_new(f, "evidence", json_string(e));
		free(e);
	}
	return f;
}

/* ---- logcat ------------------------------------------------------------ */

/* A threadtime line: "MM-DD HH:MM:SS.mmm  PID  TID L Tag: message". */
struct lc_line {
	char ts[19]; /* "MM-DD HH:MM:SS.mmm" */
	char level;
	const char *tag, *msg; /* into a private copy of the line */
	size_t tag_len;
};

static bool parse_line(char *line, struct lc_line *l)
{
	size_t n = strlen(line);
	if (n < 20 || !isdigit((unsigned char)line[0]) || line[2] != '-' || line[5] != ' ' || line[8] != ':' ||
	    line[14] != '.')
		return false;
	memcpy(l->ts, line, 18);
	l->ts[18] = '\0';
	char *p = line + 18;
	/* PID TID */
	for (int k = 0; k < 2; k++) {
		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	while (*p == ' ')
		p++;
	if (!*p || !strchr("VDIWEFA", *p) || p[1] != ' ')
		return false;
	l->level = *p;
	p += 2;
	while (*p == ' ')
		p++;
	char *colon = strstr(p, ": ");
	if (!colon) {
		l->tag = p;
		l->tag_len = strlen(p);
		l->msg = "";
		return true;
	}
	l->tag = p;
	char *te = colon;
	while (te > p && te[-1] == ' ')
		te--;
	l->tag_len = (size_t)(te - p);
	l->msg = colon + 2;
	return true;
}

static bool tag_is(const struct lc_line *l, const char *tag)
{
	return l->tag_len == strlen(tag) && !strncmp(l->tag, tag, l->tag_len);
}

/* The package a crash line names: "Process: PKG, PID: N", ">>> PKG <<<", "pid N (PKG)", "ANR in PKG". */
static char *pkg_from(const char *msg, const char *after, const char *stops)
{
	const char *p = strstr(msg, after);
	if (!p)
		return NULL;
	p += strlen(after);
	size_t n = strcspn(p, stops);
	return n ? sw__strndup(p, n) : NULL;
}

static bool pkg_matches(const char *app, const char *pkg)
{
	if (!app || !*app)
		return true;
	if (!pkg)
		return false;
	size_t n = strlen(app);
	/* "com.example.app:remote" is a process of the app */
	return !strncmp(pkg, app, n) && (pkg[n] == '\0' || pkg[n] == ':');
}

static char *line_marker(const struct lc_line *l, const char *raw)
{
	char hex[65];
	sw_sha256_hex(raw, strlen(raw), hex);
	hex[16] = '\0';
	return sw__asprintf("%s#%s", l->ts, hex);
}

int sw_health_scan_logcat(const char *logcat, const char *options_json, char **out_json, sw_error **err)
{
	if (!logcat || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_health_scan_logcat: logcat and out_json are required");
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(opts)) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	}
	const char *app = json_string_value(json_object_get(opts, "appId"));
	const char *marker = json_string_value(json_object_get(opts, "marker"));
	const char *since = json_string_value(json_object_get(opts, "since"));

	/* Split into lines once; find where to start. */
	char *copy = strdup(logcat);
	if (!copy) {
		json_decref(opts);
		return sw__error_nomem(err);
	}
	size_t cap = 64, n = 0;
	char **lines = malloc(cap * sizeof(*lines));
	for (char *save = NULL, *t = lines ? strtok_r(copy, "\n", &save) : NULL; t; t = strtok_r(NULL, "\n", &save)) {
		size_t tl = strlen(t);
		if (tl && t[tl - 1] == '\r')
			t[tl - 1] = '\0';
		if (n == cap) {
			char **nl = realloc(lines, cap * 2 * sizeof(*lines));
			if (!nl)
				break;
			lines = nl;
			cap *= 2;
		}
		lines[n++] = t;
	}
	if (!lines) {
		free(copy);
		json_decref(opts);
		return sw__error_nomem(err);
	}
	size_t start = 0;
	bool marker_found = false;
	char *last_marker = NULL;
	if (marker && *marker) {
		for (size_t i = n; i-- > 0;) {
			struct lc_line l;
			char *tmp = strdup(lines[i]);
			if (tmp && parse_line(tmp, &l) && !strncmp(l.ts, marker, 18)) {
				char *m = line_marker(&l, lines[i]);
				if (m && !strcmp(m, marker)) {
					start = i + 1;
					marker_found = true;
				}
				free(m);
			}
			free(tmp);
			if (marker_found)
				break;
		}
	}

	json_t *findings = json_array();
	size_t scanned = 0;
	/* an event in progress: crash blocks span several lines */
	const char *in_kind = NULL;
	for (size_t i = start; i < n; i++) {
		char *raw = lines[i];
		char *tmp = strdup(raw);
		struct lc_line l;
		if (!tmp || !parse_line(tmp, &l)) {
			free(tmp);
			continue;
		}
		if (!marker_found && since && *since && strcmp(l.ts, since) < 0) {
			free(tmp);
			continue;
		}
		scanned++;
		free(last_marker);
		last_marker = line_marker(&l, raw);
		const char *msg = l.msg;
		char *pkg = NULL;
		const char *kind = NULL;
		char *detail = NULL;
		if (tag_is(&l, "AndroidRuntime") && !strncmp(msg, "FATAL EXCEPTION", 15)) {
			/* the next line names the process; the one after, the exception */
			const char *proc = i + 1 < n ? strstr(lines[i + 1], "Process: ") : NULL;
			pkg = proc ? pkg_from(proc, "Process: ", ", \n") : NULL;
			const char *exc = NULL;
			if (i + 2 < n) {
				char *t2 = strdup(lines[i + 2]);
				struct lc_line l2;
				if (t2 && parse_line(t2, &l2) && tag_is(&l2, "AndroidRuntime"))
					exc = strstr(lines[i + 2], l2.msg);
				free(t2);
			}
			kind = "native_crash";
			detail = sw__asprintf("App process %s crashed: %s", pkg ? pkg : "(unknown)",
			                      exc ? exc : "FATAL EXCEPTION");
			in_kind = "java";
		} else if ((l.level == 'F' || l.level == 'E') && tag_is(&l, "libc") &&
		           !strncmp(msg, "Fatal signal", 12)) {
			pkg = pkg_from(msg, "pid ", "");
			if (pkg) {
				/* "pid 4242 (com.example.app)" */
				char *open = strchr(pkg, '(');
				char *close = open ? strchr(open, ')') : NULL;
				char *p2 = open && close ? sw__strndup(open + 1, (size_t)(close - open - 1)) : NULL;
				free(pkg);
				pkg = p2;
			}
			size_t sl = strcspn(msg, ",");
			char *sig = sw__strndup(msg, sl);
			kind = "native_crash";
			detail = sw__asprintf("Native crash in %s: %s", pkg ? pkg : "(unknown)", sig ? sig : msg);
			free(sig);
			in_kind = "native";
		} else if (tag_is(&l, "DEBUG") && strstr(msg, "*** *** ***")) {
			/* a tombstone without a libc line before it: the ">>> pkg <<<" line follows */
			if (in_kind && !strcmp(in_kind, "native")) {
				free(tmp);
				continue;
			}
			for (size_t k = i + 1; k < n && k < i + 6 && !pkg; k++)
				pkg = pkg_from(lines[k], ">>> ", " <");
			kind = "native_crash";
			detail = sw__asprintf("Native crash (tombstone) in %s", pkg ? pkg : "(unknown)");
			in_kind = "native";
		} else if (tag_is(&l, "ActivityManager") && !strncmp(msg, "ANR in ", 7)) {
			pkg = pkg_from(msg, "ANR in ", " (\n");
			const char *reason = NULL;
			for (size_t k = i + 1; k < n && k < i + 6; k++) {
				const char *r = strstr(lines[k], "Reason: ");
				if (r) {
					reason = r + 8;
					break;
				}
			}
			kind = "anr";
			detail = sw__asprintf("App %s is not responding (ANR)%s%s", pkg ? pkg : "(unknown)",
			                      reason ? ": " : "", reason ? reason : "");
			in_kind = NULL;
		} else if (strstr(msg, "*** Terminating app due to uncaught exception")) {
			/* iOS: the simulator driver's lines carry the app's bundle id as their tag */
			pkg = l.tag_len ? sw__strndup(l.tag, l.tag_len) : NULL;
			const char *what = strstr(msg, "*** Terminating app due to uncaught exception") + 4;
			kind = "native_crash";
			detail = sw__asprintf("App process %s crashed: %s", pkg ? pkg : "(unknown)", what);
			in_kind = NULL;
		} else if (!tag_is(&l, "DEBUG") && !tag_is(&l, "AndroidRuntime") && !tag_is(&l, "libc")) {
			in_kind = NULL;
		}
		if (kind && pkg_matches(app, pkg)) {
			json_t *f = finding(kind, detail ? detail : kind, raw);
			if (f) {
				json_object_set_new(f, "logcatAt", json_string(l.ts));
				json_array_append_new(findings, f);
			}
		}
		free(detail);
		free(pkg);
		free(tmp);
	}
	json_t *res = json_pack("{s:o,s:o,s:I}", "findings", findings, "marker",
	                        last_marker ? json_string(last_marker) : (marker ? json_string(marker) : json_null()),
	                        "linesScanned", (json_int_t)scanned);
	free(last_marker);
	free(lines);
	free(copy);
	json_decref(opts);
	*out_json = res ? json_dumps(res, JSON_COMPACT) : NULL;
	json_decref(res);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* ---- UI ---------------------------------------------------------------- */

struct ui_node {
	char *text, *desc, *rid, *pkg, *cls;
	int b[4];
	bool clickable;
};

struct ui {
	struct ui_node *v;
	size_t n, cap;
};

static char *attr(xmlNode *x, const char *name)
{
	xmlChar *v = xmlGetProp(x, (const xmlChar *)name);
	char *r = strdup(v ? (const char *)v : "");
	xmlFree(v);
	return r;
}

static void collect(xmlNode *x, struct ui *u)
{
	for (; x; x = x->next) {
		if (x->type == XML_ELEMENT_NODE && !xmlStrcmp(x->name, (const xmlChar *)"node")) {
			if (u->n == u->cap) {
				size_t nc = u->cap ? u->cap * 2 : 64;
				struct ui_node *nv = realloc(u->v, nc * sizeof(*nv));
				if (!nv)
					return;
				u->v = nv;
				u->cap = nc;
			}
			struct ui_node *nd = &u->v[u->n++];
			memset(nd, 0, sizeof(*nd));
			nd->text = attr(x, "text");
			nd->desc = attr(x, "content-desc");
			nd->rid = attr(x, "resource-id");
			nd->pkg = attr(x, "package");
			nd->cls = attr(x, "class");
			char *b = attr(x, "bounds");
			if (!b || sscanf(b, "[%d,%d][%d,%d]", &nd->b[0], &nd->b[1], &nd->b[2], &nd->b[3]) != 4)
				memset(nd->b, 0, sizeof(nd->b));
			free(b);
			char *c = attr(x, "clickable");
			nd->clickable = c && !strcmp(c, "true");
			free(c);
		}
		collect(x->children, u);
	}
}

static void ui_free(struct ui *u)
{
	for (size_t i = 0; i < u->n; i++) {
		free(u->v[i].text);
		free(u->v[i].desc);
		free(u->v[i].rid);
		free(u->v[i].pkg);
		free(u->v[i].cls);
	}
	free(u->v);
}

static bool icontains(const char *hay, const char *needle)
{
	if (!hay || !needle)
		return false;
	size_t nl = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (!strncasecmp(p, needle, nl))
			return true;
	return false;
}

static bool rid_is(const struct ui_node *n, const char *suffix)
{
	size_t a = strlen(n->rid), b = strlen(suffix);
	return a >= b && !strcmp(n->rid + a - b, suffix);
}

static json_t *point_of(const struct ui_node *n)
{
	json_t *p = json_pack("{s:i,s:i}", "x", (n->b[0] + n->b[2]) / 2, "y", (n->b[1] + n->b[3]) / 2);
	if (p && *n->text)
		json_object_set_new(p, "text", json_string(n->text));
	if (p && *n->rid)
		json_object_set_new(p, "resourceId", json_string(n->rid));
	if (p && !*n->text && *n->desc)
		json_object_set_new(p, "contentDesc", json_string(n->desc));
	return p;
}

/* The first node whose text equals one of @texts (case-insensitive) or whose resource-id ends with @rid. */
static const struct ui_node *find_button(const struct ui *u, size_t from, size_t to, const char *const *texts,
                                         const char *rid)
{
	for (size_t i = from; i < to; i++) {
		const struct ui_node *n = &u->v[i];
		if (rid && *n->rid && rid_is(n, rid))
			return n;
		for (size_t k = 0; texts && texts[k]; k++)
			if ((*n->text && !strcasecmp(n->text, texts[k])) ||
			    (*n->desc && !strcasecmp(n->desc, texts[k])))
				return n;
	}
	return NULL;
}

/* The first text of a node other than @skip that is longer than a button label. */
static const char *first_text(const struct ui *u, const struct ui_node *skip, const char *exclude_sub)
{
	for (size_t i = 0; i < u->n; i++) {
		const struct ui_node *n = &u->v[i];
		if (n == skip || !*n->text || strlen(n->text) < 8)
			continue;
		if (exclude_sub && icontains(n->text, exclude_sub))
			continue;
		return n->text;
	}
	return NULL;
}

static const char *const boundary_phrases[] = {"Something went wrong", "An unexpected error occurred",
                                               "Unexpected error",     "Oops! Something",
                                               "Application error",    NULL};
static const char *const webview_phrases[] = {"Webpage not available", "net::ERR_", "This site can't be reached", NULL};

static void add_overlay(json_t *overlays, const char *kind, const char *title, json_t *dismiss, json_t *extra,
                        bool back)
{
	json_t *o = json_pack("{s:s,s:s,s:o,s:b}", "kind", kind, "title", title ? title : "", "dismiss",
	                      dismiss ? dismiss : json_null(), "backDismissible", back);
	if (!o)
		return;
	if (extra)
		json_object_update(o, extra);
	json_decref(extra);
	json_array_append_new(overlays, o);
}

int sw_health_scan_ui(const char *xml, size_t len, const char *options_json, char **out_json, sw_error **err)
{
	if (!xml || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_health_scan_ui: xml and out_json are required");
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(opts)) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	}
	const char *app = json_string_value(json_object_get(opts, "appId"));
	if (len > (size_t)64 * 1024 * 1024) {
		json_decref(opts);
		return sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", NULL, "the UI dump is larger than 64 MiB");
	}
	xmlDoc *doc =
	    xmlReadMemory(xml, (int)len, "dump.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		json_decref(opts);
		return sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "take a new snapshot",
		                     "the UI dump is not valid XML");
	}
	struct ui u = {0};
	collect(xmlDocGetRootElement(doc), &u);
	xmlFreeDoc(doc);

	json_t *findings = json_array(), *overlays = json_array();
	bool have_redbox = false, have_logbox = false, have_perm = false, have_alert = false, have_boundary = false,
	     have_web = false, have_sys = false;
	for (size_t i = 0; i < u.n; i++) {
		const struct ui_node *n = &u.v[i];
		/* React Native RedBox: its ids, or its two buttons */
		if (!have_redbox && (icontains(n->rid, ":id/rn_redbox") || !strcmp(n->text, "Dismiss (ESC)") ||
		                     !strcmp(n->text, "Reload (R, R)"))) {
			have_redbox = true;
			static const char *const dis[] = {"Dismiss (ESC)", "Dismiss", NULL};
			const struct ui_node *b = find_button(&u, 0, u.n, dis, "rn_redbox_dismiss_button");
			const char *title = NULL, *msg = NULL;
			for (size_t k = 0; k < u.n; k++) {
				const struct ui_node *t = &u.v[k];
				if (!*t->text || strstr(t->cls, "Button") || icontains(t->text, "Dismiss") ||
				    icontains(t->text, "Reload"))
					continue;
				if (!title)
					title = t->text;
				else if (!msg) {
					msg = t->text;
					break;
				}
			}
			char *d = sw__asprintf("React Native RedBox: %s", title ? title : "red error screen");
			json_array_append_new(findings,
			                      finding("rn_redbox", d ? d : "React Native RedBox", msg ? msg : title));
			free(d);
			add_overlay(overlays, "rn_redbox", title, b ? point_of(b) : NULL, NULL, false);
		}
		/* LogBox: the notification (content-desc / ids mention LogBox) or the inspector */
		if (!have_logbox && (icontains(n->desc, "logbox") || icontains(n->rid, "logbox"))) {
			have_logbox = true;
			static const char *const dis[] = {"Dismiss", "×", NULL};
			static const char *const mini[] = {"Minimize", NULL};
			const struct ui_node *b = find_button(&u, i, u.n, dis, "logbox_dismiss");
			const struct ui_node *m = find_button(&u, 0, u.n, mini, NULL);
			const char *msg = NULL;
			for (size_t k = i; k < u.n && !msg; k++)
				if (*u.v[k].text && strlen(u.v[k].text) > 3)
					msg = u.v[k].text;
			if (!msg && *n->desc)
				msg = n->desc;
			char *d = sw__asprintf("React Native LogBox: %s", msg ? msg : "a console error or warning");
			json_array_append_new(findings, finding("rn_logbox_error", d ? d : "React Native LogBox", msg));
			free(d);
			json_t *extra = m ? json_pack("{s:o}", "minimize", point_of(m)) : NULL;
			add_overlay(overlays, "rn_logbox_error", msg, b ? point_of(b) : NULL, extra, false);
		}
		/* runtime permission prompt */
		if (!have_perm &&
		    (icontains(n->pkg, "permissioncontroller") || rid_is(n, ":id/permission_allow_button"))) {
			have_perm = true;
			static const char *const allow[] = {"Allow", "While using the app", "Only this time", NULL};
			static const char *const deny[] = {"Don't allow", "Deny", "Don’t allow", NULL};
			const struct ui_node *a = find_button(&u, 0, u.n, allow, ":id/permission_allow_button");
			const struct ui_node *dn = find_button(&u, 0, u.n, deny, ":id/permission_deny_button");
			const struct ui_node *msgn = find_button(&u, 0, u.n, NULL, ":id/permission_message");
			const char *msg = msgn ? msgn->text : first_text(&u, NULL, NULL);
			char *d = sw__asprintf("Permission dialog: %s", msg ? msg : "a runtime permission prompt");
			json_array_append_new(findings, finding("permission_dialog", d ? d : "Permission dialog", msg));
			free(d);
			json_t *extra = json_object();
			if (a)
				json_object_set_new(extra, "allow", point_of(a));
			if (dn)
				json_object_set_new(extra, "deny", point_of(dn));
			add_overlay(overlays, "permission_dialog", msg, NULL, extra, false);
		}
		/* native AlertDialog (and the system crash / ANR dialogs, which are alerts too) */
		if (!have_alert && !have_perm &&
		    (rid_is(n, "android:id/alertTitle") || !strcmp(n->rid, "android:id/message") ||
		     !strcmp(n->rid, "android:id/aerr_close"))) {
			have_alert = true;
			const struct ui_node *t = find_button(&u, 0, u.n, NULL, "android:id/alertTitle");
			const char *title = t ? t->text : n->text;
			const struct ui_node *neg = find_button(&u, 0, u.n, NULL, "android:id/button2");
			const struct ui_node *pos = find_button(&u, 0, u.n, NULL, "android:id/button1");
			const char *kind = "native_alert";
			char *d = NULL;
			if (icontains(title, "isn't responding") || icontains(title, "is not responding") ||
			    find_button(&u, 0, u.n, NULL, "android:id/aerr_wait")) {
				kind = "anr";
				d = sw__asprintf("System dialog: %s", title);
				have_sys = true;
			} else if (icontains(title, "keeps stopping") || icontains(title, "has stopped") ||
			           find_button(&u, 0, u.n, NULL, "android:id/aerr_close")) {
				kind = "native_crash";
				d = sw__asprintf("System dialog: %s", title);
				have_sys = true;
			} else {
				d = sw__asprintf("Native alert: %s", title && *title ? title : "(untitled)");
			}
			json_array_append_new(findings, finding(kind, d ? d : kind, title));
			free(d);
			json_t *extra = json_object();
			if (pos)
				json_object_set_new(extra, "positive", point_of(pos));
			/* an AlertDialog is cancelable unless the app says otherwise: BACK is worth one try */
			add_overlay(overlays, have_sys ? kind : "native_alert", title, neg ? point_of(neg) : NULL,
			            extra, true);
		}
		if (!have_boundary && *n->text) {
			for (size_t k = 0; boundary_phrases[k]; k++)
				if (icontains(n->text, boundary_phrases[k]) &&
				    (!app || !*n->pkg || !strcmp(n->pkg, app))) {
					have_boundary = true;
					const char *ev = first_text(&u, n, NULL);
					char *d = sw__asprintf("Error boundary: %s", n->text);
					json_array_append_new(findings, finding("app_error_boundary", d ? d : n->text,
					                                        ev ? ev : n->text));
					free(d);
					break;
				}
		}
		if (!have_web && *n->text) {
			for (size_t k = 0; webview_phrases[k]; k++)
				if (icontains(n->text, webview_phrases[k])) {
					have_web = true;
					char *d = sw__asprintf("WebView error page: %s", n->text);
					json_array_append_new(findings,
					                      finding("webview_error", d ? d : n->text, n->text));
					free(d);
					break;
				}
		}
	}
	ui_free(&u);
	json_t *res = json_pack("{s:o,s:o}", "findings", findings, "overlays", overlays);
	json_decref(opts);
	*out_json = res ? json_dumps(res, JSON_COMPACT) : NULL;
	json_decref(res);
	return *out_json ? SW_OK : sw__error_nomem(err);
}

/* ---- the whole check --------------------------------------------------- */

static void warn(json_t *warnings, const char *what, const sw_error *e)
{
	char *w = sw__asprintf("%s: %s", what, e ? sw_error_message(e) : "failed");
	if (w)
		json_array_append_new(warnings, json_string(w));
	free(w);
}

/* The first error that says the device itself could not be reached (its code and message). */
struct lost {
	char code[64];
	char *msg;
};

static bool device_level(const char *code)
{
	return code && (!strcmp(code, "NO_DEVICE") || !strcmp(code, "DEVICE_NOT_READY") ||
	                !strcmp(code, "ADB_NOT_FOUND") || !strcmp(code, "ADB_SERVER_GONE"));
}

static void note_device_error(struct lost *l, const sw_error *e)
{
	if (!e || l->msg || !device_level(sw_error_failure_code(e)))
		return;
	snprintf(l->code, sizeof(l->code), "%s", sw_error_failure_code(e));
	l->msg = sw__strdup(sw_error_message(e));
}

/* "MM-DD HH:MM:SS.mmm" of @ms (UTC, as the emulator's logcat prints by default). */
static void logcat_stamp(int64_t ms, char out[40])
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	char b[20];
	strftime(b, sizeof(b), "%m-%d %H:%M:%S", &tm);
	snprintf(out, 40, "%s.%03d", b, (int)(ms % 1000));
}

/*
 * @host_ms (host epoch ms) on the device's log clock: logcat prints the device's local time; the driver
 * knows the offset (read once per device handle). Without it, UTC.
 */
static int64_t device_ms(sw_device *dev, int64_t host_ms)
{
	long off = 0;
	if (sw_device_clock_offset(dev, &off, NULL) != SW_OK)
		off = 0;
	return host_ms + (int64_t)off * 1000;
}

static void record(sw_session *s, json_t *f, const char *screen)
{
	json_t *c = json_deep_copy(f);
	if (!c)
		return;
	char *now = sw__iso_now();
	if (now)
		json_object_set_new(c, "at", json_string(now));
	free(now);
	if (screen && *screen && !json_object_get(c, "screen"))
		json_object_set_new(c, "screen", json_string(screen));
	json_object_del(c, "logcatAt");
	json_object_del(c, "overlay");
	char *t = json_dumps(c, JSON_COMPACT);
	if (t)
		sw_session_add_finding(s, t, NULL);
	free(t);
	json_decref(c);
}

/* A logcat marker starts with its 18-character ASCII time stamp ("MM-DD HH:MM:SS.mmm") and a '#':
 * copy that stamp into out (40 bytes) when the marker has that shape, else leave out as it is. */
static void marker_stamp(const char *marker, char out[40])
{
	if (!marker || strlen(marker) < 19 || marker[18] != '#')
		return;
	memcpy(out, marker, 18);
	out[18] = '\0';
}

int sw_health_check(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json, char **out_json,
                    sw_error **err)
{
	if (!s || !dev || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_health_check: session, device and out_json are required");
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(opts)) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	}
	(void)ctx;
	int rc = SW_OK;
	struct lost lost = {{0}, NULL};
	char *app = json_string_value(json_object_get(opts, "appId"))
	                ? strdup(json_string_value(json_object_get(opts, "appId")))
	                : sw__dc_session_app(s);
	json_t *findings = json_array(), *warnings = json_array(), *overlays = json_array();
	json_t *checked = json_pack("{s:b,s:b,s:b}", "foreground", 0, "logcat", 0, "ui", 0);
	json_t *fg = json_null();
	json_t *fg_is_app = json_null();
	char *screen = NULL;

	/* 1. logcat since the last check: a crash or ANR that happened in between is caught even if the app recovered
	 */
	{
		char *lc = NULL;
		size_t lcl = 0;
		sw_error *e = NULL;
		char since[40], from[40];
		logcat_stamp(device_ms(dev, sw_session_created_at(s)), since);
		json_t *devrec = sw__dc_session_get(s, "device");
		const char *marker = json_string_value(json_object_get(devrec, "logcatMarker"));
		/* read from the last marker's time on (its line is skipped by the scan), else from the session's start:
		 * the bytes since the last look, never the whole buffer; a cleared or wrapped buffer only loses lines
		 * that are gone from the device anyway */
		snprintf(from, sizeof(from), "%s", since);
		marker_stamp(marker, from);
		const char *given_log = json_string_value(json_object_get(opts, "log"));
		const char *given_from = json_string_value(json_object_get(opts, "logSince"));
		int lrc;
		if (given_log && given_from && !strcmp(given_from, from)) {
			/* the caller read the log itself from the stamp this check would use (the act loop's observation) */
			lc = sw__strdup(given_log);
			lcl = lc ? strlen(lc) : 0;
			lrc = lc ? SW_OK : sw__error_nomem(&e);
		} else {
			lrc = sw_device_log_read(dev, from, &lc, &lcl, &e);
		}
		if (lrc == SW_OK) {
			json_t *lo = json_pack("{s:s}", "since", since);
			if (app)
				json_object_set_new(lo, "appId", json_string(app));
			if (marker)
				json_object_set_new(lo, "marker", json_string(marker));
			char *lot = json_dumps(lo, JSON_COMPACT);
			json_decref(lo);
			char *res = NULL;
			if (sw_health_scan_logcat(lc, lot, &res, &e) == SW_OK) {
				json_t *r = json_loads(res, 0, NULL);
				json_array_extend(findings, json_object_get(r, "findings"));
				json_t *m = json_object_get(r, "marker");
				if (json_is_string(m) && json_is_object(devrec)) {
					json_object_set(devrec, "logcatMarker", m);
					sw__dc_session_set(s, "device", devrec, NULL);
				}
				json_object_set_new(checked, "logcat", json_true());
				json_decref(r);
			} else {
				warn(warnings, "logcat scan", e);
			}
			sw_free(res);
			free(lot);
		} else {
			warn(warnings, "logcat", e);
			note_device_error(&lost, e);
		}
		json_decref(devrec);
		sw_error_free(e);
		sw_free(lc);
	}

	/* 2. foreground (the caller may pass what it just read: {package, activity}) */
	{
		char *fj = NULL;
		sw_error *e = NULL;
		json_t *given_fg = json_object_get(opts, "foreground");
		if (json_is_string(json_object_get(given_fg, "package")))
			fj = json_dumps(given_fg, JSON_COMPACT);
		if (fj || sw_device_foreground(dev, &fj, &e) == SW_OK) {
			json_decref(fg);
			fg = json_loads(fj, 0, NULL);
			if (!fg)
				fg = json_null();
			const char *pkg = json_string_value(json_object_get(fg, "package"));
			const char *act = json_string_value(json_object_get(fg, "activity"));
			if (act)
				screen = strdup(act);
			json_object_set_new(checked, "foreground", json_true());
			if (app && pkg) {
				bool is_app = !strcmp(pkg, app);
				json_decref(fg_is_app);
				fg_is_app = json_boolean(is_app);
				if (!is_app && !icontains(pkg, "permissioncontroller")) {
					char *d = sw__asprintf("%s is not in the foreground (%s is)", app, pkg);
					json_array_append_new(findings, finding("wrong_foreground_app",
					                                        d ? d : "wrong foreground app", pkg));
					free(d);
				}
			}
		} else {
			warn(warnings, "foreground", e);
			note_device_error(&lost, e);
		}
		sw_error_free(e);
		sw_free(fj);
	}

	/* 3. the screen */
	if (rc == SW_OK) {
		const char *given = json_string_value(json_object_get(opts, "xml"));
		char *xml = NULL;
		size_t xl = 0;
		sw_error *e = NULL;
		int drc = given ? SW_OK : sw_device_dump_ui(dev, &xml, &xl, &e);
		if (drc == SW_OK) {
			char *res = NULL;
			const char *x = given ? given : xml;
			json_t *uo = app ? json_pack("{s:s}", "appId", app) : json_object();
			char *uot = json_dumps(uo, JSON_COMPACT);
			json_decref(uo);
			if (sw_health_scan_ui(x, given ? strlen(given) : xl, uot, &res, &e) == SW_OK) {
				json_t *r = json_loads(res, 0, NULL);
				json_array_extend(findings, json_object_get(r, "findings"));
				json_array_extend(overlays, json_object_get(r, "overlays"));
				json_object_set_new(checked, "ui", json_true());
				json_decref(r);
			} else {
				warn(warnings, "screen", e);
			}
			sw_free(res);
			free(uot);
		} else {
			warn(warnings, "screen dump", e);
			note_device_error(&lost, e);
		}
		sw_error_free(e);
		sw_free(xml);
	}

	/* a check that could not look says so: never healthy, and the session keeps a finding for the report */
	bool all_checked = json_is_true(json_object_get(checked, "foreground")) &&
	                   json_is_true(json_object_get(checked, "logcat")) && json_is_true(json_object_get(checked, "ui"));
	bool looked = json_is_true(json_object_get(checked, "foreground")) || json_is_true(json_object_get(checked, "logcat"));
	if (!all_checked) {
		sw_buf b = SW_BUF_INIT;
		sw__buf_puts(&b, "the health check could not look at");
		const char *parts[] = {"logcat", "foreground", "ui"};
		const char *names[] = {" the device log", " the foreground app", " the screen"};
		bool first = true;
		for (size_t k = 0; k < 3; k++)
			if (!json_is_true(json_object_get(checked, parts[k]))) {
				sw__buf_puts(&b, first ? "" : ",");
				sw__buf_puts(&b, names[k]);
				first = false;
			}
		if (lost.msg) {
			sw__buf_puts(&b, ": ");
			sw__buf_puts(&b, lost.msg);
		}
		char *d = sw__buf_steal(&b, NULL);
		json_t *f = finding("health_unchecked", d ? d : "the health check could not look", NULL);
		free(d);
		if (f && !looked && lost.msg)
			record(s, f, NULL); /* the call fails below: the session still keeps it for the report */
		if (f)
			json_array_append_new(findings, f);
	}
	if (!looked && lost.msg) {
		/* the device itself is gone: an error, not a verdict */
		rc = sw__error_set(err, sw__catalog_result(lost.code, SW_EDEVICE), lost.code,
		                   !strcmp(lost.code, "ADB_SERVER_GONE") ? "Start adb again (adb start-server), then qa_wait device_online"
		                                                        : "qa_wait {for: \"device_online\"}, then check health again",
		                   "the health check could not reach the device: %s", lost.msg);
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:O,s:b}", "checked", checked, "healthy", 0));
	}

	if (rc == SW_OK) {
		/* a logcat event already recorded (its line is the evidence) is not recorded twice */
		json_t *known = sw__dc_session_get(s, "findings");
		size_t i;
		json_t *f;
		for (i = json_array_size(findings); i-- > 0;) {
			f = json_array_get(findings, i);
			if (!json_object_get(f, "logcatAt"))
				continue;
			size_t k;
			json_t *g;
			bool dup = false;
			json_array_foreach(known, k, g) dup =
			    dup || (json_equal(json_object_get(g, "evidence"), json_object_get(f, "evidence")) &&
			            json_equal(json_object_get(g, "kind"), json_object_get(f, "kind")));
			if (dup)
				json_array_remove(findings, i);
		}
		json_decref(known);
		bool healthy = json_array_size(findings) == 0 && all_checked;
		const char *verdict = !all_checked && json_array_size(findings) == 1 ? "degraded"
		                      : json_array_size(findings)                    ? "findings"
		                                                                     : "healthy";
		json_array_foreach(findings, i, f)
		{
			record(s, f, screen);
			json_object_del(f, "logcatAt");
		}
		json_t *res = json_pack("{s:b,s:O,s:O,s:O,s:O,s:O,s:O}", "healthy", healthy, "findings", findings,
		                        "foreground", fg, "foregroundIsApp", fg_is_app, "checked", checked, "overlays",
		                        overlays, "warnings", warnings);
		if (res)
			json_object_set_new(res, "verdict", json_string(verdict));
		if (app && res)
			json_object_set_new(res, "appId", json_string(app));
		*out_json = res ? json_dumps(res, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		json_decref(res);
		if (!*out_json)
			rc = sw__error_nomem(err);
	}
	json_decref(findings);
	json_decref(warnings);
	json_decref(overlays);
	json_decref(checked);
	json_decref(fg);
	json_decref(fg_is_app);
	free(screen);
	free(app);
	free(lost.msg);
	json_decref(opts);
	return rc;
}

/* ---- clearing overlays ------------------------------------------------------ */

/* The overlays on screen now (scan of a fresh dump) and whether the keyboard is up. */
static int overlays_now(sw_device *dev, const char *app, json_t **overlays, bool *keyboard, sw_error **err)
{
	char *xml = NULL;
	size_t xl = 0;
	int rc = sw_device_dump_ui(dev, &xml, &xl, err);
	if (rc != SW_OK)
		return rc;
	json_t *uo = app ? json_pack("{s:s}", "appId", app) : json_object();
	char *uot = json_dumps(uo, JSON_COMPACT);
	json_decref(uo);
	char *res = NULL;
	rc = sw_health_scan_ui(xml, xl, uot, &res, err);
	free(uot);
	sw_free(xml);
	if (rc != SW_OK)
		return rc;
	json_t *r = json_loads(res, 0, NULL);
	sw_free(res);
	*overlays = json_incref(json_object_get(r, "overlays"));
	json_decref(r);
	if (!*overlays)
		*overlays = json_array();
	*keyboard = false;
	char *kb = NULL;
	if (sw_device_keyboard(dev, &kb, NULL) == SW_OK) {
		json_t *k = json_loads(kb, 0, NULL);
		*keyboard = json_is_true(json_object_get(k, "shown"));
		json_decref(k);
	}
	sw_free(kb);
	return SW_OK;
}

static json_t *first_of(json_t *overlays, const char *kind)
{
	size_t i;
	json_t *o;
	json_array_foreach(overlays, i, o)
	{
		const char *k = json_string_value(json_object_get(o, "kind"));
		if (!kind || (k && !strcmp(k, kind)))
			return o;
	}
	return NULL;
}

static int tap_point(sw_device *dev, json_t *p, sw_error **err)
{
	if (!json_is_object(p))
		return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND", NULL, "the overlay has no such control");
	return sw_device_tap(dev, (int)json_integer_value(json_object_get(p, "x")),
	                     (int)json_integer_value(json_object_get(p, "y")), 0, err);
}

static json_t *kinds_of(json_t *overlays, bool keyboard)
{
	json_t *a = json_array();
	if (keyboard)
		json_array_append_new(a, json_string("keyboard"));
	size_t i;
	json_t *o;
	json_array_foreach(overlays, i, o) json_array_append(a, json_object_get(o, "kind"));
	return a;
}

int sw_health_clear_overlay(sw_ctx *ctx, sw_session *s, sw_device *dev, const char *options_json, char **out_json,
                            sw_error **err)
{
	(void)ctx;
	json_t *opts = options_json ? json_loads(options_json, 0, NULL) : json_object();
	if (!json_is_object(opts)) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "options must be a JSON object");
	}
	const char *strategy = json_string_value(json_object_get(opts, "strategy"));
	if (!strategy)
		strategy = "auto";
	static const char *const strategies[] = {"auto",
	                                         "hide_keyboard",
	                                         "press_back",
	                                         "tap_outside",
	                                         "minimize_logbox",
	                                         "dismiss_logbox",
	                                         "allow_permission",
	                                         "deny_permission",
	                                         "dismiss_toast_if_possible",
	                                         NULL};
	bool known = false;
	for (size_t i = 0; strategies[i]; i++)
		known = known || !strcmp(strategies[i], strategy);
	if (!known) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "unknown strategy \"%s\"", strategy);
	}
	char *app = s ? sw__dc_session_app(s) : NULL;
	json_t *before = NULL, *after = NULL;
	bool kb_before = false, kb_after = false;
	int rc = overlays_now(dev, app, &before, &kb_before, err);
	if (rc != SW_OK)
		goto out;
	const char *applied = NULL;
	const char *note = NULL;
	const char *eff = strategy;
	if (!strcmp(eff, "auto")) {
		json_t *top = json_array_size(before) ? json_array_get(before, json_array_size(before) - 1) : NULL;
		const char *k = top ? json_string_value(json_object_get(top, "kind")) : NULL;
		if (kb_before)
			eff = "hide_keyboard";
		else if (!k)
			eff = NULL;
		else if (!strcmp(k, "rn_redbox") || !strcmp(k, "rn_logbox_error"))
			eff = "dismiss_logbox";
		else if (!strcmp(k, "permission_dialog")) {
			eff = NULL;
			note = "a permission dialog is a decision: use strategy allow_permission or deny_permission";
		} else
			eff = json_is_true(json_object_get(top, "backDismissible")) ? "press_back" : NULL;
	}
	if (!eff) {
		/* nothing to do, or nothing safe to do automatically */
	} else if (!strcmp(eff, "hide_keyboard")) {
		if (kb_before) {
			rc = sw_device_hide_keyboard(dev, err);
			applied = "hide_keyboard";
		}
	} else if (!strcmp(eff, "press_back")) {
		/* BACK on a bare screen would navigate away: only with an overlay up */
		if (kb_before || json_array_size(before)) {
			rc = sw_device_press_key(dev, "back", err);
			applied = "press_back";
		} else {
			note = "no overlay on screen: BACK was not pressed (it would navigate away)";
		}
	} else if (!strcmp(eff, "tap_outside")) {
		json_t *o = first_of(before, "native_alert");
		if (o) {
			int w = 0, h = 0;
			if (sw_device_screen_size(dev, &w, &h, NULL) != SW_OK)
				w = 1080;
			rc = sw_device_tap(dev, w / 2, 120, 0, err);
			applied = "tap_outside";
		} else {
			note = "no dialog on screen to tap outside of";
		}
	} else if (!strcmp(eff, "minimize_logbox") || !strcmp(eff, "dismiss_logbox")) {
		json_t *o = first_of(before, "rn_logbox_error");
		if (!o)
			o = first_of(before, "rn_redbox");
		json_t *p = o ? json_object_get(o, !strcmp(eff, "minimize_logbox") && json_object_get(o, "minimize")
		                                       ? "minimize"
		                                       : "dismiss")
		              : NULL;
		if (p && json_is_object(p)) {
			rc = tap_point(dev, p, err);
			applied = eff;
		} else {
			note = o ? "the LogBox/RedBox has no control for this" : "no LogBox or RedBox on screen";
		}
	} else if (!strcmp(eff, "allow_permission") || !strcmp(eff, "deny_permission")) {
		json_t *o = first_of(before, "permission_dialog");
		json_t *p = o ? json_object_get(o, !strcmp(eff, "allow_permission") ? "allow" : "deny") : NULL;
		if (p) {
			rc = tap_point(dev, p, err);
			applied = eff;
		} else {
			note = o ? "the permission dialog has no such button" : "no permission dialog on screen";
		}
	} else if (!strcmp(eff, "dismiss_toast_if_possible")) {
		note = "toasts cannot be dismissed on Android; they disappear on their own after a few seconds";
	}
	if (rc != SW_OK)
		goto out;
	if (applied) {
		usleep(300 * 1000);
		rc = overlays_now(dev, app, &after, &kb_after, err);
		if (rc != SW_OK)
			goto out;
	} else {
		after = json_incref(before);
		kb_after = kb_before;
	}
	json_t *bk = kinds_of(before, kb_before), *ak = kinds_of(after, kb_after);
	json_t *cleared = json_array();
	size_t i;
	json_t *k;
	json_array_foreach(bk, i, k)
	{
		bool still = false;
		size_t j;
		json_t *k2;
		json_array_foreach(ak, j, k2) still = still || json_equal(k, k2);
		if (!still)
			json_array_append(cleared, k);
	}
	if (applied && !strcmp(applied, "hide_keyboard") && kb_after) {
		json_decref(bk);
		json_decref(ak);
		json_decref(cleared);
		rc = sw__error_set(err, SW_ESTATE, "KEYBOARD_NOT_DISMISSIBLE",
		                   "press enter, tap the keyboard's Done key, or use strategy tap_outside",
		                   "the soft keyboard stayed up after hiding it");
		goto out;
	}
	json_t *res = json_pack("{s:s,s:o,s:o,s:o,s:o,s:b}", "strategy", strategy, "applied",
	                        applied ? json_string(applied) : json_null(), "before", bk, "cleared", cleared,
	                        "remaining", ak, "nothingCleared", json_array_size(cleared) == 0);
	if (kb_before)
		json_object_set_new(res, "keyboardHidden", json_boolean(!kb_after));
	if (note)
		json_object_set_new(res, "note", json_string(note));
	*out_json = json_dumps(res, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(res);
	if (!*out_json)
		rc = sw__error_nomem(err);
out:
	json_decref(before);
	json_decref(after);
	free(app);
	json_decref(opts);
	return rc;
}

void sw__health_log_since(sw_session *s, sw_device *dev, char out[40])
{
	logcat_stamp(device_ms(dev, sw_session_created_at(s)), out);
	json_t *devrec = sw__dc_session_get(s, "device");
	const char *marker = json_string_value(json_object_get(devrec, "logcatMarker"));
	marker_stamp(marker, out);
	json_decref(devrec);
}
