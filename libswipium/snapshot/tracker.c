/* tracker.c: per-session snapshot state: stable @eN refs, STALE_REF, the 60-element cap, filter, diff, quality. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot-internal.h"

struct sw_snapshot_tracker {
	sw__screen *cur;
	sw__screen *prev;
	unsigned next_ref; /* refs 1..next_ref-1 have been handed out */
	unsigned failures;
	unsigned max_failures;
	bool visual_only;
	sw_snapshot_redact_fn redact;
	void *redact_ud;
};

int sw_snapshot_tracker_new(sw_snapshot_tracker **out, sw_error **err)
{
	if (!out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "out must not be NULL");
	sw_snapshot_tracker *t = calloc(1, sizeof(*t));
	if (!t)
		return sw__error_nomem(err);
	t->next_ref = 1;
	t->max_failures = 3;
	*out = t;
	return SW_OK;
}

void sw_snapshot_tracker_free(sw_snapshot_tracker *t)
{
	if (!t)
		return;
	sw__screen_free(t->cur);
	sw__screen_free(t->prev);
	free(t);
}

void sw_snapshot_tracker_set_redactor(sw_snapshot_tracker *t, sw_snapshot_redact_fn fn, void *userdata)
{
	if (!t)
		return;
	t->redact = fn;
	t->redact_ud = userdata;
}

void sw_snapshot_tracker_set_max_failures(sw_snapshot_tracker *t, unsigned max_failures)
{
	if (t)
		t->max_failures = max_failures ? max_failures : 1;
}

unsigned sw_snapshot_tracker_failures(const sw_snapshot_tracker *t)
{
	return t ? t->failures : 0;
}

int sw_snapshot_tracker_has_snapshot(const sw_snapshot_tracker *t)
{
	return t && t->cur;
}

const sw__screen *sw__snapshot_current(const sw_snapshot_tracker *t)
{
	return t->cur;
}

char *sw__snapshot_redact(const sw_snapshot_tracker *t, const char *text)
{
	if (t && t->redact && text[0]) {
		char *r = t->redact(text, t->redact_ud);
		if (r)
			return r;
	}
	return sw__strdup(text);
}

/* ---- refs --------------------------------------------------------------- */

static bool same_element(const sw__element *a, const sw__element *b)
{
	if (a->hash != b->hash || a->edit != b->edit)
		return false;
	if (strcmp(a->cls, b->cls) || strcmp(a->id, b->id) || strcmp(a->desc, b->desc))
		return false;
	if (!a->edit && (strcmp(a->text, b->text) || strcmp(a->label, b->label)))
		return false;
	return memcmp(a->bounds, b->bounds, sizeof(a->bounds)) == 0;
}

void sw__snapshot_assign_refs(sw__screen *cur, const sw__screen *prev, unsigned *next_ref)
{
	size_t size = 0;
	size_t *table = NULL;
	bool *used = NULL;
	if (prev && prev->n_els > 0) {
		size = 16;
		while (size < prev->n_els * 2)
			size *= 2;
		table = malloc(size * sizeof(*table));
		used = calloc(prev->n_els, sizeof(*used));
		if (!table || !used) {
			free(table);
			free(used);
			table = NULL;
			used = NULL;
		} else {
			for (size_t i = 0; i < size; i++)
				table[i] = SIZE_MAX;
			for (size_t i = 0; i < prev->n_els; i++) {
				size_t h = (size_t)prev->els[i].hash & (size - 1);
				while (table[h] != SIZE_MAX)
					h = (h + 1) & (size - 1);
				table[h] = i;
			}
		}
	}
	for (size_t i = 0; i < cur->n_els; i++) {
		sw__element *e = &cur->els[i];
		e->ref = 0;
		if (table) {
			for (size_t h = (size_t)e->hash & (size - 1); table[h] != SIZE_MAX; h = (h + 1) & (size - 1)) {
				size_t j = table[h];
				if (!used[j] && same_element(e, &prev->els[j])) {
					used[j] = true;
					e->ref = prev->els[j].ref;
					break;
				}
			}
		}
		if (!e->ref)
			e->ref = (*next_ref)++;
	}
	free(table);
	free(used);
}

const sw__element *sw__snapshot_find_ref(const sw_snapshot_tracker *t, unsigned ref)
{
	if (!t->cur)
		return NULL;
	for (size_t i = 0; i < t->cur->n_els; i++)
		if (t->cur->els[i].ref == ref)
			return &t->cur->els[i];
	return NULL;
}

static int parse_ref(const char *ref, unsigned *out)
{
	const char *p = ref;
	if (*p == '@')
		p++;
	if (p[0] != 'e' || !isdigit((unsigned char)p[1]))
		return -1;
	char *end;
	unsigned long v = strtoul(p + 1, &end, 10);
	if (*end || v == 0 || v > 0xffffffffUL)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int lookup_ref(sw_snapshot_tracker *t, const char *ref, const sw__element **out, sw_error **err)
{
	unsigned n;
	if (!ref || parse_ref(ref, &n) < 0)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Refs look like \"@e3\", taken from qa_snapshot", "\"%s\" is not an element ref",
		                     ref ? ref : "(null)");
	if (!t->cur)
		return sw__error_set(err, SW_ESTATE, "STALE_REF", "Call qa_snapshot first, then use one of its refs",
		                     "No snapshot has been taken yet, so %s means nothing", ref);
	const sw__element *e = sw__snapshot_find_ref(t, n);
	if (e) {
		*out = e;
		return SW_OK;
	}
	if (n < t->next_ref)
		return sw__error_set(err, SW_ESTATE, "STALE_REF",
		                     "Call qa_snapshot again and use a ref from the new snapshot",
		                     "@e%u is from an older snapshot; that element is no longer on screen", n);
	return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND", "Use a ref listed by the latest qa_snapshot",
	                     "@e%u was never handed out by a snapshot", n);
}

/* ---- element objects ---------------------------------------------------- */

static json_t *redacted_str(const sw_snapshot_tracker *t, const char *s)
{
	char *r = sw__snapshot_redact(t, s);
	if (!r)
		return NULL;
	json_t *j = json_string(r);
	free(r);
	return j;
}

static json_t *bounds_json(const int b[4])
{
	return json_pack("[iiii]", b[0], b[1], b[2], b[3]);
}

json_t *sw__snapshot_element_repr(const sw_snapshot_tracker *t, const sw__element *e, bool verbose)
{
	if (!verbose) {
		sw_buf b = SW_BUF_INIT;
		sw__element_line(&b, e, t ? t->redact : NULL, t ? t->redact_ud : NULL);
		if (b.failed) {
			sw__buf_free(&b);
			return NULL;
		}
		json_t *j = json_stringn(b.data, b.len);
		sw__buf_free(&b);
		return j;
	}
	json_t *o = json_object();
	if (!o)
		return NULL;
	char ref[16];
	snprintf(ref, sizeof(ref), "@e%u", e->ref);
	json_object_set_new(o, "ref", json_string(ref));
	json_object_set_new(o, "role", json_string(e->role));
	if (e->label[0])
		json_object_set_new(o, "label", redacted_str(t, e->label));
	if (e->short_id[0])
		json_object_set_new(o, "id", redacted_str(t, e->short_id));
	if (e->text[0])
		json_object_set_new(o, "text", redacted_str(t, e->text));
	json_object_set_new(o, "bounds", bounds_json(e->bounds));
	json_object_set_new(o, "clickable", json_boolean(e->clickable || e->long_clickable));
	if (e->focused)
		json_object_set_new(o, "focused", json_true());
	if (e->secure)
		json_object_set_new(o, "secure", json_true());
	return o;
}

json_t *sw__snapshot_element_json(const sw_snapshot_tracker *t, const sw__element *e, bool raw)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	char ref[16];
	snprintf(ref, sizeof(ref), "@e%u", e->ref);
	json_object_set_new(o, "ref", json_string(ref));
	json_object_set_new(o, "role", json_string(e->role));
	json_object_set_new(o, "class", json_string(e->cls));
	json_object_set_new(o, "id", redacted_str(t, e->short_id));
	json_object_set_new(o, "resourceId", redacted_str(t, e->id));
	json_object_set_new(o, "contentDesc", redacted_str(t, e->desc));
	json_object_set_new(o, "text", redacted_str(t, e->text));
	json_object_set_new(o, "label", redacted_str(t, e->label));
	json_object_set_new(o, "package", json_string(e->pkg));
	json_object_set_new(o, "bounds", bounds_json(e->bounds));
	json_object_set_new(o, "center",
	                    json_pack("[ii]", (e->bounds[0] + e->bounds[2]) / 2, (e->bounds[1] + e->bounds[3]) / 2));
	json_object_set_new(o, "flags",
	                    json_pack("{sbsbsbsbsbsbsbsbsbsb}", "clickable", e->clickable, "longClickable",
	                              e->long_clickable, "focusable", e->focusable, "focused", e->focused, "secure",
	                              e->secure, "scrollable", e->scrollable, "checkable", e->checkable, "checked",
	                              e->checked, "selected", e->selected, "enabled", e->enabled));
	json_object_set_new(o, "line", sw__snapshot_element_repr(t, e, false));
	if (raw && e->attrs) {
		json_t *attrs = json_object();
		for (size_t k = 0; attrs && k < e->n_attrs; k++) {
			const char *v = e->attrs[k].value;
			const char *name = e->attrs[k].name;
			if ((e->secure && !strcmp(name, "text")))
				json_object_set_new(attrs, name, json_string(SW__SECURE_VALUE));
			else if (!strcmp(name, "bounds") || !strcmp(name, "index"))
				json_object_set_new(attrs, name, json_string(v));
			else
				json_object_set_new(attrs, name, redacted_str(t, v));
		}
		if (attrs)
			json_object_set_new(o, "attributes", attrs);
	}
	return o;
}

/* ---- cap, filter, quality ---------------------------------------------- */

static unsigned relevance(const sw__element *e)
{
	return (e->focused ? 4u : 0u) + ((e->clickable || e->long_clickable) ? 2u : 0u) +
	       ((e->edit || e->scrollable) ? 1u : 0u);
}

static bool matches_filter(const sw_snapshot_tracker *t, const sw__element *e, const char *filter)
{
	if (!filter || !filter[0])
		return true;
	const char *fields[] = {e->text, e->label, e->id, e->role};
	for (size_t i = 0; i < SW_ARRAY_SIZE(fields); i++) {
		if (!fields[i][0])
			continue;
		char *r = sw__snapshot_redact(t, fields[i]);
		bool hit = r && strcasestr(r, filter) != NULL;
		free(r);
		if (hit)
			return true;
	}
	return false;
}

/*
 * Marks in @keep at most SW__SNAPSHOT_MAX_PRESENTED of the candidate
 * elements, the most relevant first, ties in document order. Returns the
 * number of candidates.
 */
static size_t choose(const sw_snapshot_tracker *t, const sw__screen *s, const char *filter, bool *keep, size_t *n_kept)
{
	size_t by_score[8] = {0};
	size_t n_cand = 0;
	for (size_t i = 0; i < s->n_els; i++) {
		keep[i] = matches_filter(t, &s->els[i], filter);
		if (keep[i]) {
			n_cand++;
			by_score[relevance(&s->els[i])]++;
		}
	}
	size_t room = SW__SNAPSHOT_MAX_PRESENTED;
	if (n_cand <= room) {
		*n_kept = n_cand;
		return n_cand;
	}
	/* highest scores first; the lowest admitted score is cut in document order */
	unsigned threshold = 0;
	size_t take_at_threshold = 0;
	for (int sc = 7; sc >= 0; sc--) {
		if (by_score[sc] >= room) {
			threshold = (unsigned)sc;
			take_at_threshold = room;
			room = 0;
			break;
		}
		room -= by_score[sc];
		threshold = (unsigned)sc;
		take_at_threshold = by_score[sc];
	}
	size_t taken = 0;
	for (size_t i = 0; i < s->n_els; i++) {
		if (!keep[i])
			continue;
		unsigned sc = relevance(&s->els[i]);
		if (sc > threshold)
			taken++;
		else if (sc == threshold && take_at_threshold > 0) {
			take_at_threshold--;
			taken++;
		} else
			keep[i] = false;
	}
	*n_kept = taken;
	return n_cand;
}

static json_t *quality_json(const sw__screen *s, const char **verdict_out, json_t **reasons_out)
{
	double unid = s->clickable_count ? (double)s->unidentified_clickable / (double)s->clickable_count : 0.0;
	size_t with_id = 0;
	for (size_t i = 0; i < s->n_els; i++)
		if (s->els[i].id[0])
			with_id++;
	double id_cov = s->n_els ? (double)with_id / (double)s->n_els : 0.0;
	double screen = (double)s->width * (double)s->height;
	double webview = screen > 0 ? (double)s->webview_area_max / screen : 0.0;
	if (webview > 1.0)
		webview = 1.0;
	bool compose_no_tag = s->compose_seen && with_id == 0;

	json_t *reasons = json_array();
	int level = 0; /* 0 good, 1 partial, 2 poor */
	if (s->n_els == 0) {
		json_array_append_new(reasons, json_string("no interactive or readable elements in the hierarchy"));
		level = 2;
	}
	if (s->clickable_count > 0 && unid > 0.5) {
		json_array_append_new(reasons, json_string("most clickable elements have no text, description or id"));
		level = 2;
	} else if (s->clickable_count > 0 && unid > 0.2) {
		json_array_append_new(reasons, json_string("some clickable elements have no text, description or id"));
		if (level < 1)
			level = 1;
	}
	if (webview >= 0.5) {
		json_array_append_new(reasons,
		                      json_string("a WebView covers most of the screen; its content may be missing"));
		if (level < 1)
			level = 1;
	}
	if (compose_no_tag) {
		json_array_append_new(reasons,
		                      json_string("Jetpack Compose screen without test tags (no resource ids)"));
		if (level < 1)
			level = 1;
	}
	static const char *const names[] = {"good", "partial", "poor"};
	json_t *q = json_object();
	json_object_set_new(q, "verdict", json_string(names[level]));
	json_object_set(q, "reasons", reasons);
	json_object_set_new(q, "signals",
	                    json_pack("{sIsIsfsfsfsb}", "nodeCount", (json_int_t)s->node_count, "clickableCount",
	                              (json_int_t)s->clickable_count, "unidentifiedClickableRatio", unid, "idCoverage",
	                              id_cov, "webviewDominance", webview, "composeNoTestTag", compose_no_tag));
	*verdict_out = names[level];
	*reasons_out = reasons;
	return q;
}

static json_t *overlays_json(const sw_snapshot_tracker *t, const sw__screen *s)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < s->n_overlays; i++) {
		const sw__overlay *o = &s->overlays[i];
		json_t *j = json_object();
		json_object_set_new(j, "kind", json_string(o->kind));
		json_object_set_new(j, "label", redacted_str(t, o->label));
		json_object_set_new(j, "package", json_string(o->pkg));
		json_object_set_new(j, "bounds", bounds_json(o->bounds));
		/* the first clickable element inside it, to dismiss it */
		for (size_t k = 0; k < s->n_els; k++) {
			const sw__element *e = &s->els[k];
			if (e->node_index > o->node_index && e->node_index < o->subtree_end && e->clickable) {
				char ref[16];
				snprintf(ref, sizeof(ref), "@e%u", e->ref);
				json_object_set_new(j, "dismissRef", json_string(ref));
				break;
			}
		}
		json_array_append_new(arr, j);
	}
	return arr;
}

const sw__overlay *sw__snapshot_overlay_over(const sw__screen *s, const sw__element *e)
{
	int cx = (e->bounds[0] + e->bounds[2]) / 2, cy = (e->bounds[1] + e->bounds[3]) / 2;
	for (size_t i = s->n_overlays; i-- > 0;) {
		const sw__overlay *o = &s->overlays[i];
		if (e->node_index >= o->node_index && e->node_index < o->subtree_end)
			continue; /* part of the overlay itself */
		/* only an overlay later in the document is drawn above the target */
		if (o->node_index < e->node_index && o->subtree_end > e->node_index)
			continue;
		if (o->node_index < e->node_index)
			continue;
		if (cx >= o->bounds[0] && cx < o->bounds[2] && cy >= o->bounds[1] && cy < o->bounds[3])
			return o;
	}
	return NULL;
}

/* ---- diff --------------------------------------------------------------- */

static void add_change(json_t *arr, const sw_snapshot_tracker *t, const sw__element *e, const char *field, json_t *from,
                       json_t *to)
{
	char ref[16];
	snprintf(ref, sizeof(ref), "@e%u", e->ref);
	json_array_append_new(arr, json_pack("{sssssoso}", "ref", ref, "field", field, "from", from, "to", to));
}

bool sw__snapshot_compare(const sw_snapshot_tracker *t, json_t **added, json_t **removed, json_t **state_changed,
                          size_t *n_added, size_t *n_removed, bool verbose)
{
	const sw__screen *cur = t->cur, *prev = t->prev;
	*added = json_array();
	*removed = json_array();
	*state_changed = json_array();
	*n_added = *n_removed = 0;
	if (!cur)
		return false;
	/* refs are unique per screen; a sorted merge would do, but screens are small enough for a bitmap */
	unsigned max_ref = t->next_ref;
	unsigned char *in_prev = calloc((size_t)max_ref + 1, 1);
	unsigned char *in_cur = calloc((size_t)max_ref + 1, 1);
	const sw__element **prev_by_ref = calloc((size_t)max_ref + 1, sizeof(*prev_by_ref));
	bool changed = false;
	if (!in_prev || !in_cur || !prev_by_ref)
		goto out;
	if (prev)
		for (size_t i = 0; i < prev->n_els; i++) {
			in_prev[prev->els[i].ref] = 1;
			prev_by_ref[prev->els[i].ref] = &prev->els[i];
		}
	for (size_t i = 0; i < cur->n_els; i++) {
		const sw__element *e = &cur->els[i];
		in_cur[e->ref] = 1;
		if (!in_prev[e->ref]) {
			(*n_added)++;
			json_array_append_new(*added, sw__snapshot_element_repr(t, e, verbose));
			continue;
		}
		const sw__element *p = prev_by_ref[e->ref];
		if (p->checked != e->checked)
			add_change(*state_changed, t, e, "checked", json_boolean(p->checked), json_boolean(e->checked));
		if (p->selected != e->selected)
			add_change(*state_changed, t, e, "selected", json_boolean(p->selected),
			           json_boolean(e->selected));
		if (strcmp(p->text, e->text) != 0 || (e->secure && p->raw_text_chars != e->raw_text_chars))
			add_change(*state_changed, t, e, "value", redacted_str(t, p->text), redacted_str(t, e->text));
	}
	if (prev)
		for (size_t i = 0; i < prev->n_els; i++) {
			const sw__element *p = &prev->els[i];
			if (!in_cur[p->ref]) {
				(*n_removed)++;
				json_array_append_new(*removed, sw__snapshot_element_repr(t, p, verbose));
			}
		}
	changed = *n_added > 0 || *n_removed > 0 || json_array_size(*state_changed) > 0;
out:
	free(in_prev);
	free(in_cur);
	free(prev_by_ref);
	return changed;
}

/* ---- the snapshot call -------------------------------------------------- */

int sw_snapshot_record_failure(sw_snapshot_tracker *t, const char *why, sw_error **err)
{
	if (!t)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "tracker must not be NULL");
	t->failures++;
	if (t->failures >= t->max_failures) {
		t->visual_only = true;
		return sw__error_set(
		    err, SW_EUNSUPPORTED, "VISUAL_ONLY_SCREEN",
		    "Use qa_screenshot and coordinate taps for this screen; each later snapshot tries "
		    "one dump again",
		    "The UI hierarchy could not be read %u times in a row (%s); this screen is visual-only",
		    t->failures, why ? why : "dump failed");
	}
	return sw__error_set(err, SW_EDEVICE, "SNAPSHOT_FAILED", "Take the snapshot again",
	                     "The UI hierarchy could not be read: %s", why ? why : "dump failed");
}

int sw_snapshot_take_xml(sw_snapshot_tracker *t, const char *xml, size_t len, const char *options_json, char **out_json,
                         sw_error **err)
{
	int rc = SW_OK;
	json_t *opts = NULL, *res = NULL;
	sw__screen *s = NULL;
	bool *keep = NULL;
	if (!t || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "tracker and out_json must not be NULL");
	if (options_json && options_json[0]) {
		json_error_t jerr;
		opts = json_loads(options_json, 0, &jerr);
		if (!opts || !json_is_object(opts)) {
			rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                   "snapshot options are not a JSON object");
			goto out;
		}
	}
	const char *filter = json_string_value(json_object_get(opts, "filter"));
	bool want_diff = json_is_true(json_object_get(opts, "diff"));
	bool verbose = json_is_true(json_object_get(opts, "verbose"));
	json_t *screen = json_object_get(opts, "screen");
	int sw = (int)json_integer_value(json_object_get(screen, "width"));
	int sh = (int)json_integer_value(json_object_get(screen, "height"));

	sw_error *perr = NULL;
	rc = sw__snapshot_parse(xml, len, sw, sh, &s, &perr);
	if (rc < 0) {
		const char *why = perr ? sw_error_message(perr) : "unreadable dump";
		rc = sw_snapshot_record_failure(t, why, err);
		sw_error_free(perr);
		goto out;
	}
	bool recovered = t->visual_only;
	t->failures = 0;
	t->visual_only = false;
	sw__snapshot_assign_refs(s, t->cur, &t->next_ref);
	sw__screen_free(t->prev);
	t->prev = t->cur;
	t->cur = s;
	s = NULL;
	const sw__screen *cur = t->cur;

	res = json_object();
	keep = calloc(cur->n_els ? cur->n_els : 1, sizeof(*keep));
	if (!res || !keep) {
		rc = sw__error_nomem(err);
		goto out;
	}
	size_t n_kept = 0;
	size_t n_cand = choose(t, cur, filter, keep, &n_kept);
	json_t *els = json_array();
	for (size_t i = 0; i < cur->n_els; i++)
		if (keep[i])
			json_array_append_new(els, sw__snapshot_element_repr(t, &cur->els[i], verbose));
	json_object_set_new(res, "elements", els);
	json_object_set_new(res, "elementCount", json_integer((json_int_t)cur->n_els));
	json_object_set_new(res, "elementsOmitted", json_integer((json_int_t)(n_cand - n_kept)));
	/* elements of the dump outside the list for another reason than its size: counted, never hidden */
	size_t left_out = cur->omitted_offscreen + cur->omitted_no_size + cur->omitted_invisible;
	json_object_set_new(res, "elementsLeftOut", json_integer((json_int_t)left_out));
	if (left_out) {
		json_t *why = json_object();
		if (cur->omitted_offscreen)
			json_object_set_new(why, "offscreen", json_integer((json_int_t)cur->omitted_offscreen));
		if (cur->omitted_no_size)
			json_object_set_new(why, "noSize", json_integer((json_int_t)cur->omitted_no_size));
		if (cur->omitted_invisible)
			json_object_set_new(why, "invisible", json_integer((json_int_t)cur->omitted_invisible));
		json_object_set_new(res, "leftOutReasons", why);
	}
	if (filter && filter[0]) {
		json_object_set_new(res, "filter", json_string(filter));
		json_object_set_new(res, "matched", json_integer((json_int_t)n_cand));
	}
	if (n_cand > n_kept)
		json_object_set_new(res, "hint",
		                    json_pack("s", "Busy screen: showing the 60 most relevant elements. Use filter to "
		                                   "find others, or qa_inspect for one ref."));
	const char *verdict;
	json_t *reasons;
	json_t *q = quality_json(cur, &verdict, &reasons);
	json_object_set_new(res, "quality", json_string(verdict));
	json_object_set_new(res, "qualityReasons", reasons);
	json_object_set_new(res, "snapshotQuality", q);
	json_object_set_new(res, "overlays", overlays_json(t, cur));
	json_t *kb = json_object_get(opts, "keyboard");
	if (kb)
		json_object_set(res, "keyboard", kb);
	json_object_set_new(
	    res, "screen",
	    json_pack("{sisisiss}", "width", cur->width, "height", cur->height, "rotation", cur->rotation, "source",
	              cur->geometry ? cur->geometry : "unknown"));
	if (cur->package && cur->package[0])
		json_object_set_new(res, "package", json_string(cur->package));
	if (recovered)
		json_object_set_new(res, "modeRecovered", json_true());
	if (want_diff) {
		json_t *added, *removed, *sc;
		size_t na, nr;
		bool changed = sw__snapshot_compare(t, &added, &removed, &sc, &na, &nr, verbose);
		json_object_set_new(res, "diff",
		                    json_pack("{sosososbsIsI}", "added", added, "removed", removed, "stateChanged", sc,
		                              "changed", changed, "addedCount", (json_int_t)na, "removedCount",
		                              (json_int_t)nr));
	}
	char *txt = sw__json_compact(res);
	if (!txt) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*out_json = txt;
out:
	/* the previous screen only serves this call (refs, diff): one parsed document stays alive between calls */
	sw__screen_free(t ? t->prev : NULL);
	if (t)
		t->prev = NULL;
	free(keep);
	json_decref(opts);
	json_decref(res);
	sw__screen_free(s);
	return rc;
}

/* sw__snapshot_element_json() of @e (@raw: its raw attributes too) as compact text in *out_json. */
static int element_out(const sw_snapshot_tracker *t, const sw__element *e, bool raw, char **out_json, sw_error **err)
{
	json_t *o = sw__snapshot_element_json(t, e, raw);
	char *txt = o ? sw__json_compact(o) : NULL;
	json_decref(o);
	if (!txt)
		return sw__error_nomem(err);
	*out_json = txt;
	return SW_OK;
}

int sw_snapshot_inspect(sw_snapshot_tracker *t, const char *ref, char **out_json, sw_error **err)
{
	if (!t || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "tracker and out_json must not be NULL");
	const sw__element *e;
	int rc = lookup_ref(t, ref, &e, err);
	if (rc < 0)
		return rc;
	return element_out(t, e, true, out_json, err);
}

/* ---- target resolution -------------------------------------------------- */

typedef bool (*match_fn)(const sw__element *e, const char *v, bool exact);

static bool match_text(const sw__element *e, const char *v, bool exact)
{
	if (e->secure)
		return exact ? !strcmp(e->label, v) : !strcasecmp(e->label, v);
	const char *f[] = {e->text, e->label, e->desc};
	for (size_t i = 0; i < SW_ARRAY_SIZE(f); i++)
		if (f[i][0] && (exact ? !strcmp(f[i], v) : !strcasecmp(f[i], v)))
			return true;
	return false;
}

static bool match_text_sub(const sw__element *e, const char *v, bool exact)
{
	(void)exact;
	if (e->secure)
		return strcasestr(e->label, v) != NULL;
	return strcasestr(e->text, v) || strcasestr(e->label, v);
}

static bool match_id(const sw__element *e, const char *v, bool exact)
{
	if (!e->id[0])
		return false;
	if (exact)
		return !strcmp(e->id, v) || !strcmp(e->short_id, v);
	return !strcasecmp(e->id, v) || !strcasecmp(e->short_id, v);
}

static bool match_class(const sw__element *e, const char *v, bool exact)
{
	const char *dot = strrchr(e->cls, '.');
	const char *s = dot ? dot + 1 : e->cls;
	return exact ? (!strcmp(e->cls, v) || !strcmp(s, v)) : (!strcasecmp(e->cls, v) || !strcasecmp(s, v));
}

static int find_matches(const sw__screen *s, match_fn fn, const char *v, const sw__element **hits, size_t max,
                        size_t *n)
{
	*n = 0;
	for (int pass = 0; pass < 2 && *n == 0; pass++)
		for (size_t i = 0; i < s->n_els; i++)
			if (fn(&s->els[i], v, pass == 0)) {
				if (*n < max)
					hits[*n] = &s->els[i];
				(*n)++;
			}
	return 0;
}

int sw__snapshot_resolve_target(sw_snapshot_tracker *t, json_t *target, const sw__element **out, sw_error **err)
{
	if (!json_is_object(target))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "target must be an object");
	const char *ref = json_string_value(json_object_get(target, "ref"));
	if (ref)
		return lookup_ref(t, ref, out, err);
	if (!t->cur)
		return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND", "Call qa_snapshot first",
		                     "There is no snapshot to look the target up in");
	match_fn fn = NULL;
	const char *v = NULL, *what = NULL;
	json_t *sel = json_object_get(target, "selector");
	if ((v = json_string_value(json_object_get(target, "text")))) {
		fn = match_text;
		what = "text";
	} else if ((v = json_string_value(json_object_get(target, "id")))) {
		fn = match_id;
		what = "id";
	} else if (json_is_object(sel)) {
		const char *using = json_string_value(json_object_get(sel, "using"));
		v = json_string_value(json_object_get(sel, "value"));
		if (!using || !v)
			return sw__error_set(err, SW_EINVAL, "INVALID_SELECTOR",
			                     "Give selector.using and selector.value",
			                     "The selector needs both using and value");
		if (!strcmp(using, "accessibility id") || !strcmp(using, "name")) {
			fn = !strcmp(using, "name") ? match_text : match_id;
			what = using;
		} else if (!strcmp(using, "class chain") || !strcmp(using, "predicate string")) {
			if (!strcmp(using, "class chain")) {
				fn = match_class;
				what = using;
			} else
				return sw__error_set(err, SW_EUNSUPPORTED, "BACKEND_UNSUPPORTED",
				                     "Use text, id or a ref on Android",
				                     "Predicate-string selectors are an iOS feature");
		} else
			return sw__error_set(err, SW_EINVAL, "INVALID_SELECTOR", NULL, "Unknown selector kind \"%s\"",
			                     using);
	}
	if (!fn || !v)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Give target.ref, target.text, target.id or target.selector",
		                     "The target names no element");
	const sw__element *hits[64];
	size_t n;
	find_matches(t->cur, fn, v, hits, SW_ARRAY_SIZE(hits), &n);
	if (n == 0 && fn == match_text)
		find_matches(t->cur, match_text_sub, v, hits, SW_ARRAY_SIZE(hits), &n);
	json_t *idx = json_object_get(target, "index");
	if (n == 0)
		return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND",
		                     "Call qa_snapshot (with filter) to see what is on screen",
		                     "No element on screen matches %s \"%s\"", what, v);
	if (json_is_number(idx)) {
		double d = json_number_value(idx);
		if (d < 0 || d >= (double)n || d >= (double)SW_ARRAY_SIZE(hits) || d != (double)(size_t)d)
			return sw__error_set(err, SW_ENOTFOUND, "ELEMENT_NOT_FOUND", NULL,
			                     "index %g is out of range: %zu elements match %s \"%s\"", d, n, what, v);
		*out = hits[(size_t)d];
		return SW_OK;
	}
	if (n > 1) {
		int rc = sw__error_set(err, SW_EINVAL, "AMBIGUOUS_SELECTOR",
		                       "Use a ref from qa_snapshot, or add target.index",
		                       "%zu elements match %s \"%s\"", n, what, v);
		if (err && *err) {
			json_t *refs = json_array();
			for (size_t i = 0; i < n && i < SW_ARRAY_SIZE(hits); i++) {
				char r[16];
				snprintf(r, sizeof(r), "@e%u", hits[i]->ref);
				json_array_append_new(refs, json_string(r));
			}
			sw__error_take_details(*err, json_pack("{so}", "candidates", refs));
		}
		return rc;
	}
	*out = hits[0];
	return SW_OK;
}

int sw_snapshot_resolve(sw_snapshot_tracker *t, const char *target_json, char **out_json, sw_error **err)
{
	if (!t || !target_json || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "arguments must not be NULL");
	json_error_t jerr;
	json_t *target = json_loads(target_json, 0, &jerr);
	if (!target)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "target is not valid JSON: %s",
		                     jerr.text);
	const sw__element *e = NULL;
	int rc = sw__snapshot_resolve_target(t, target, &e, err);
	json_decref(target);
	if (rc < 0)
		return rc;
	return element_out(t, e, false, out_json, err);
}
