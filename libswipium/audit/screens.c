/* screens.c: the screens a session has seen (its UI dumps and explore graphs), for the store label checks. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-internal.h"
#include <swipium/session.h>

#define MAX_SCREENS 300 /* screens read per audit; the rest are counted as not available */

static void not_available(json_t *out, const char *name, const char *why)
{
	json_object_set_new(out, "notAvailable",
	                    json_integer(json_integer_value(json_object_get(out, "notAvailable")) + 1));
	json_t *reasons = json_object_get(out, "notAvailableReasons");
	if (json_array_size(reasons) < 20) {
		char *t = sw__asprintf("%s: %s", name ? name : "?", why ? why : "not readable");
		json_array_append_new(reasons, json_string(t ? t : "not readable"));
		free(t);
	}
}

static void add_screen(json_t *out, const char *source, const char *uri, const char *name, json_t *nodes)
{
	json_t *sc =
	    json_pack("{s:s,s:s,s:s*,s:o}", "source", source, "name", name ? name : "", "uri", uri, "nodes", nodes);
	json_array_append_new(json_object_get(out, "screens"), sc);
}

/* Reads the artifact @uri through the store (redacted, capped) with its parsed metadata; false (and the screen
 * @name listed as not available) when the store cannot read it. */
static bool read_artifact(sw_session *s, json_t *out, const char *uri, const char *name, char **data, size_t *len,
                          json_t **m)
{
	char *meta = NULL;
	sw_error *e = NULL;
	*data = NULL;
	*len = 0;
	*m = NULL;
	if (sw_artifact_read(sw_session_store(s), uri, 0, data, len, &meta, &e) != SW_OK) {
		not_available(out, name, e ? sw_error_message(e) : "not readable");
		sw_error_free(e);
		return false;
	}
	*m = meta ? json_loads(meta, 0, NULL) : NULL;
	sw_free(meta);
	return true;
}

/* A dump artifact: its labelled nodes, read back through the store (redacted, capped). */
static void read_dump(sw_session *s, json_t *out, const char *uri, const char *name)
{
	char *data;
	size_t len;
	json_t *m;
	if (!read_artifact(s, out, uri, name, &data, &len, &m))
		return;
	if (!data) {
		not_available(out, name, "not inlined");
	} else if (json_is_true(json_object_get(m, "truncated"))) {
		not_available(out, name, "the dump is over the 1 MB read cap");
	} else {
		json_t *nodes = sw__audit_dump_nodes(data, len);
		if (json_array_size(nodes))
			add_screen(out, "ui_dump", uri, name, nodes);
		else {
			json_decref(nodes);
			not_available(out, name, "the dump has no labelled node or does not parse");
		}
	}
	json_decref(m);
	sw_free(data);
}

static char *folded(const char *s)
{
	char *f = sw__strdup(s ? s : "");
	for (char *p = f; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return f;
}

/* An explore graph artifact: each node is a screen, its elements' labels (and title) its labels. */
static void read_graph(sw_session *s, json_t *out, const char *uri, const char *name, size_t *budget)
{
	char *data;
	size_t len;
	json_t *m;
	if (!read_artifact(s, out, uri, name, &data, &len, &m))
		return;
	json_t *g = data && !json_is_true(json_object_get(m, "truncated")) ? json_loadb(data, len, 0, NULL) : NULL;
	json_decref(m);
	sw_free(data);
	if (!json_is_array(json_object_get(g, "nodes"))) {
		not_available(out, name, "the screen graph is truncated or not readable");
		json_decref(g);
		return;
	}
	size_t i, k;
	json_t *n, *el;
	json_array_foreach(json_object_get(g, "nodes"), i, n)
	{
		const char *title = json_string_value(json_object_get(n, "title"));
		char *sname = sw__asprintf("%s screen %zu%s%s", name, i + 1, title && *title ? " " : "",
		                           title && *title ? title : "");
		char *shown = sw__cap(sname, 200);
		free(sname);
		if (*budget == 0) {
			not_available(out, shown, "over the audit's screen cap");
			free(shown);
			continue;
		}
		(*budget)--;
		json_t *nodes = json_array();
		json_array_foreach(json_object_get(n, "elements"), k, el)
		{
			const char *l = json_string_value(json_object_get(el, "label"));
			if (!l || !*l)
				continue;
			char *f = folded(l), *t = sw__cap(l, 200);
			json_array_append_new(
			    nodes, json_pack("{s:s,s:s,s:b}", "label", f ? f : "", "text", t ? t : "", "clickable", 1));
			free(f);
			free(t);
		}
		if (title && *title) {
			char *f = folded(title), *t = sw__cap(title, 200);
			json_array_append_new(
			    nodes, json_pack("{s:s,s:s,s:b}", "label", f ? f : "", "text", t ? t : "", "clickable", 0));
			free(f);
			free(t);
		}
		add_screen(out, "explore", uri, shown, nodes);
		free(shown);
	}
	json_decref(g);
}

json_t *sw__audit_seen_screens(sw_session *s, const char *skip_uri)
{
	json_t *out = json_pack("{s:[],s:i,s:[]}", "screens", "notAvailable", 0, "notAvailableReasons");
	char *text = NULL;
	if (!out || sw_artifact_list(s, &text, NULL) != SW_OK) {
		sw_free(text);
		return out;
	}
	json_t *arts = json_loads(text, 0, NULL);
	sw_free(text);
	size_t budget = MAX_SCREENS;
	/* newest first: the latest state of a screen is the one that counts */
	for (size_t i = json_array_size(arts); i-- > 0;) {
		json_t *a = json_array_get(arts, i);
		const char *kind = json_string_value(json_object_get(a, "kind"));
		const char *uri = json_string_value(json_object_get(a, "uri"));
		const char *mime = json_string_value(json_object_get(a, "mime"));
		if (!kind || !uri || (skip_uri && !strcmp(uri, skip_uri)))
			continue;
		const char *slash = strrchr(uri, '/');
		const char *name = slash ? slash + 1 : uri;
		if (!strcmp(kind, "dump")) {
			if (budget == 0) {
				not_available(out, name, "over the audit's screen cap");
				continue;
			}
			budget--;
			read_dump(s, out, uri, name);
		} else if (!strcmp(kind, "explore") && mime && !strcmp(mime, "application/json")) {
			read_graph(s, out, uri, name, &budget);
		}
	}
	json_decref(arts);
	return out;
}
