/* emit.c: the flow, page-object, test, suite, test-case and locator-audit documents built from the model. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gen-emit.h"
#include "gen-text.h"

static const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* ---- selectors -------------------------------------------------------------------------- */

/* Plain text a selector parser would read as a prefix form (id=, name=, ...) is matched by what follows it. */
static char *plain_text_selector(const char *v)
{
	static const char *const prefixes[] = {
	    "id=", "accessibility id=", "name=", "predicate string=", "class chain="};
	for (size_t i = 0; i < SW_ARRAY_SIZE(prefixes); i++)
		if (!strncasecmp(v, prefixes[i], strlen(prefixes[i])))
			return sw__gen_safe_part(v + strlen(prefixes[i]));
	return sw__strdup(v);
}

char *sw__gen_flow_selector(const json_t *loc, const char *platform)
{
	const char *strategy = sget(loc, "strategy"), *value = sget(loc, "value");
	if (!strategy || !value || !strcmp(strategy, "coordinates"))
		return NULL;
	if (!strcmp(strategy, "id"))
		return sw__asprintf("id=%s", value);
	if (!strcmp(strategy, "accessibility_id") && platform && !strcmp(platform, "ios"))
		return sw__asprintf("accessibility id=%s", value);
	/* Android's flow runner matches a content description as plain text */
	char *safe = sw__gen_safe_part(value);
	char *sel = safe ? plain_text_selector(safe) : NULL;
	free(safe);
	return sel;
}

static json_t *point_of(const json_t *loc)
{
	return json_pack("[II]", json_integer_value(json_object_get(loc, "x")),
	                 json_integer_value(json_object_get(loc, "y")));
}

static const char *finger_of_scroll(const char *dir)
{
	if (!strcmp(dir, "down"))
		return "up";
	if (!strcmp(dir, "up"))
		return "down";
	if (!strcmp(dir, "left"))
		return "right";
	return "left";
}

/* ---- flow ------------------------------------------------------------------------------ */

char *sw__gen_defuse(const char *text)
{
	sw_buf b = SW_BUF_INIT;
	for (const char *p = text ? text : ""; *p; p++) {
		sw__buf_putc(&b, *p);
		if (p[0] == '$' && p[1] == '{')
			sw__buf_putc(&b, ' ');
	}
	char *r = sw__buf_steal(&b, NULL);
	return r ? r : sw__strdup("");
}

static json_t *defused(const char *text)
{
	char *d = sw__gen_defuse(text);
	json_t *j = json_string(d ? d : "");
	free(d);
	return j;
}

static json_t *one(const char *k, json_t *v)
{
	json_t *o = json_object();
	json_object_set_new(o, k, v);
	return o;
}

/* Appends the Flow V2 step(s) of @st to @out; returns false when it has none (counted by the caller). */
static bool flow_steps(const json_t *st, const char *platform, json_t *out)
{
	const char *kind = sget(st, "kind");
	const json_t *loc = json_object_get(st, "locator");
	char *sel = loc ? sw__gen_flow_selector(loc, platform) : NULL;
	bool coords = loc && !sel;
	bool ok = true;
	if (!strcmp(kind, "tap")) {
		json_array_append_new(out, coords ? one("tapAt", point_of(loc)) : one("tap", json_string(sel)));
	} else if (!strcmp(kind, "type") || !strcmp(kind, "clear")) {
		json_t *it = json_object();
		if (coords)
			json_array_append_new(out, one("tapAt", point_of(loc)));
		else
			json_object_set_new(it, "into", json_string(sel));
		json_object_set_new(
		    it, "text", json_string(!strcmp(kind, "clear") ? "" : (sget(st, "text") ? sget(st, "text") : "")));
		if (json_is_string(json_object_get(st, "secretKind")))
			json_object_set_new(it, "secret", json_true());
		json_array_append_new(out, one("inputText", it));
		if (json_is_true(json_object_get(st, "submit")))
			json_array_append_new(out, one("press", json_string("enter")));
	} else if (!strcmp(kind, "swipe")) {
		json_array_append_new(out, one("swipe", json_string(sget(st, "direction"))));
	} else if (!strcmp(kind, "scroll")) {
		const json_t *until = json_object_get(st, "untilVisible");
		char *u = json_is_object(until) ? sw__gen_flow_selector(until, platform) : NULL;
		if (u)
			json_array_append_new(out, one("scrollTo", json_string(u)));
		else
			json_array_append_new(out, one("swipe", json_string(finger_of_scroll(sget(st, "direction")))));
		free(u);
	} else if (!strcmp(kind, "back") || !strcmp(kind, "key")) {
		json_array_append_new(out, one("press", json_string(sget(st, "key") ? sget(st, "key") : "back")));
	} else if (!strcmp(kind, "launch")) {
		json_array_append_new(out, json_string("prepareTarget"));
	} else if (!strcmp(kind, "openUrl")) {
		json_array_append_new(out, one("openUrl", json_string(sget(st, "url"))));
	} else if (!strcmp(kind, "wait")) {
		const json_t *until = json_object_get(st, "untilVisible");
		char *u = json_is_object(until) ? sw__gen_flow_selector(until, platform) : NULL;
		json_array_append_new(out, u ? one("waitForVisible", json_string(u)) : json_string("waitForIdle"));
		free(u);
	} else if (!strcmp(kind, "visualCheck")) {
		/* a manual checkpoint: screenshot evidence for a person, never a text assertion */
		json_array_append_new(
		    out, one("assertVisual", defused(sget(st, "label") ? sget(st, "label") : "visual check")));
	} else if (!strcmp(kind, "assertText")) {
		/* a text assertion checks the text: the flow runner matches plain text as a substring of what shows */
		json_t *tl = sget(st, "expected")
		                 ? json_pack("{ss,ss}", "strategy", "text", "value", sget(st, "expected"))
		                 : NULL;
		char *ts = tl ? sw__gen_flow_selector(tl, platform) : NULL;
		json_decref(tl);
		if (ts || sel)
			json_array_append_new(out, one("assertVisible", json_string(ts ? ts : sel)));
		else
			ok = false;
		free(ts);
	} else {
		ok = false;
	}
	free(sel);
	return ok;
}

json_t *sw__gen_flow_doc(const json_t *model, const char *name, const char *budget_profile, size_t *unemitted)
{
	const char *platform = sget(model, "platform");
	json_t *doc = json_pack("{so}", "name", defused(name));
	if (sget(model, "appId") && sget(model, "appId")[0])
		json_object_set_new(doc, "appId", json_string(sget(model, "appId")));
	if (budget_profile)
		json_object_set_new(doc, "budgetProfile", json_string(budget_profile));
	json_t *steps = json_array();
	json_array_append_new(steps, json_string("prepareTarget"));
	size_t i, miss = 0;
	json_t *st;
	json_array_foreach(json_object_get(model, "steps"), i, st) if (!flow_steps(st, platform, steps)) miss++;
	json_object_set_new(doc, "steps", steps);
	if (unemitted)
		*unemitted = miss;
	return doc;
}

/* ---- page objects ---------------------------------------------------------------------- */

static const char *fix_of(const char *quality, const char *platform)
{
	bool ios = platform && !strcmp(platform, "ios");
	if (!strcmp(quality, "semi"))
		return ios ? "give the element an accessibilityIdentifier so it is found without its visible text"
		           : "give the element an android:id (Compose: Modifier.testTag with testTagsAsResourceId; "
		             "React "
		             "Native: testID) so it is found without its visible text";
	if (!strcmp(quality, "brittle"))
		return ios ? "give the element an accessibilityIdentifier and an accessibility label; it is found by a "
		             "screen point only"
		           : "give the element an android:id or a content description (React Native: testID); it is "
		             "found "
		             "by a screen point only";
	return NULL;
}

/* The page-object locator map of a model locator (h16suite's docs/page-objects.md). */
static json_t *element_map(const json_t *loc, const char *platform)
{
	const char *strategy = sget(loc, "strategy"), *value = sget(loc, "value");
	if (!strcmp(strategy, "id"))
		return json_pack("{ss}", "id", value);
	if (!strcmp(strategy, "accessibility_id")) {
		if (platform && !strcmp(platform, "ios"))
			return json_pack("{ss}", "accessibilityId", value);
		/* Android's flow runner finds a content description as text; the durable handle stays beside it */
		char *sel = sw__gen_flow_selector(loc, platform);
		json_t *m = sel ? json_pack("{ss,s{ss}}", "text", sel, "fallback", "accessibilityId", value) : NULL;
		free(sel);
		return m;
	}
	if (!strcmp(strategy, "text")) {
		char *sel = sw__gen_flow_selector(loc, platform);
		json_t *m = sel ? json_pack("{ss}", "text", sel) : NULL;
		free(sel);
		return m;
	}
	return json_pack("{so}", "coordinates", point_of(loc));
}

static bool name_taken(const json_t *obj, const char *name)
{
	return json_object_get(obj, name) != NULL;
}

static char *unique_name(const json_t *taken, const char *base)
{
	if (!name_taken(taken, base))
		return sw__strdup(base);
	for (int n = 2; n < 100000; n++) {
		char *c = sw__asprintf("%s%d", base, n);
		if (!c || !name_taken(taken, c))
			return c;
		free(c);
	}
	return NULL;
}

/* A key that tells two locators apart (strategy, value, point). */
static char *loc_key(const json_t *loc)
{
	return sw__asprintf("%s\x1f%s\x1f%lld\x1f%lld", sget(loc, "strategy"), sget(loc, "value"),
	                    (long long)json_integer_value(json_object_get(loc, "x")),
	                    (long long)json_integer_value(json_object_get(loc, "y")));
}

json_t *sw__gen_pom(const json_t *model, json_t **refs_out)
{
	const char *platform = sget(model, "platform");
	json_t *pages = json_object();     /* page name -> {name, screen, platform, elements} */
	json_t *by_screen = json_object(); /* screen -> page name */
	json_t *by_loc = json_object();    /* page \x1e loc key -> element name */
	json_t *refs = json_array();       /* per model step: {page, element} or null */
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(model, "steps"), i, st)
	{
		const json_t *loc = json_object_get(st, "locator");
		if (!loc) {
			json_array_append_new(refs, json_null());
			continue;
		}
		const char *screen = sget(st, "screen") ? sget(st, "screen") : "Main";
		const char *page = sget(by_screen, screen);
		if (!page) {
			char *base = sw__gen_ident(screen, true, "Screen", "Main");
			char *full =
			    base ? sw__asprintf("%s%s", base, sw__str_has_suffix(base, "Page") ? "" : "Page") : NULL;
			char *pn = full ? unique_name(pages, full) : NULL;
			free(base);
			free(full);
			if (!pn)
				continue;
			json_object_set_new(pages, pn,
			                    json_pack("{ss,ss,ss,s{}}", "name", pn, "screen", screen, "platform",
			                              platform ? platform : "android", "elements"));
			json_object_set_new(by_screen, screen, json_string(pn));
			page = sget(by_screen, screen);
			free(pn);
		}
		json_t *pobj = json_object_get(pages, page);
		json_t *els = json_object_get(pobj, "elements");
		char *lk = loc_key(loc);
		char *k = lk ? sw__asprintf("%s\x1e%s", page, lk) : NULL;
		free(lk);
		const char *el_name = k ? sget(by_loc, k) : NULL;
		if (!el_name && k) {
			const char *hint = sget(st, "elementId") ? sget(st, "elementId") : sget(st, "label");
			char *base = sw__gen_ident(hint, false, "e", "element");
			char *en = base ? unique_name(els, base) : NULL;
			free(base);
			json_t *m = en ? element_map(loc, platform) : NULL;
			if (m) {
				const char *q = sget(st, "quality") ? sget(st, "quality") : "semi";
				json_object_set_new(m, "quality", json_string(q));
				if (sget(st, "label"))
					json_object_set_new(m, "label", json_string(sget(st, "label")));
				if (json_is_string(json_object_get(st, "secretKind")))
					json_object_set_new(m, "secret", json_true());
				const char *fix = fix_of(q, platform);
				if (fix)
					json_object_set_new(m, "fix", json_string(fix));
				json_object_set_new(els, en, m);
				json_object_set_new(by_loc, k, json_string(en));
				el_name = sget(by_loc, k);
			}
			free(en);
		} else if (el_name && json_is_string(json_object_get(st, "secretKind"))) {
			json_object_set_new(json_object_get(els, el_name), "secret", json_true());
		}
		free(k);
		json_array_append_new(refs,
		                      el_name ? json_pack("{ss,ss}", "page", page, "element", el_name) : json_null());
	}
	json_decref(by_screen);
	json_decref(by_loc);
	if (refs_out)
		*refs_out = refs;
	else
		json_decref(refs);
	return pages;
}

json_t *sw__gen_locator_audit(const json_t *pages, const char *name, double brittle_threshold)
{
	json_t *list = json_array();
	size_t n_d = 0, n_s = 0, n_b = 0;
	const char *pn;
	json_t *p;
	json_object_foreach((json_t *)pages, pn, p)
	{
		const char *en;
		json_t *e;
		json_object_foreach(json_object_get(p, "elements"), en, e)
		{
			const char *q = sget(e, "quality") ? sget(e, "quality") : "semi";
			const char *strategy = json_object_get(e, "id")                ? "id"
			                       : json_object_get(e, "accessibilityId") ? "accessibility_id"
			                       : json_object_get(e, "text")            ? "text"
			                                                               : "coordinates";
			json_t *row =
			    json_pack("{ss,ss,ss,ss}", "page", pn, "element", en, "strategy", strategy, "quality", q);
			if (sget(e, "fix"))
				json_object_set_new(row, "fix", json_string(sget(e, "fix")));
			json_array_append_new(list, row);
			if (!strcmp(q, "durable"))
				n_d++;
			else if (!strcmp(q, "brittle"))
				n_b++;
			else
				n_s++;
		}
	}
	size_t total = n_d + n_s + n_b;
	double pct = total ? 100.0 * (double)n_b / (double)total : 0.0;
	json_t *doc = json_pack("{ss,s{sI,sI,sI,sI,sf,sf,sb},so}", "name", name, "summary", "total", (json_int_t)total,
	                        "durable", (json_int_t)n_d, "semi", (json_int_t)n_s, "brittle", (json_int_t)n_b,
	                        "brittlePercent", (double)((long long)(pct * 10 + 0.5)) / 10.0, "brittleThreshold",
	                        brittle_threshold, "overThreshold", pct > brittle_threshold, "locators", list);
	return doc;
}

/* ---- tests and suites ------------------------------------------------------------------ */

static char *ref_text(const json_t *ref)
{
	return sw__asprintf("%s.%s", sget(ref, "page"), sget(ref, "element"));
}

json_t *sw__gen_test_doc(const json_t *model, const json_t *pages, const json_t *refs, const char *name)
{
	const char *platform = sget(model, "platform");
	json_t *doc = json_pack("{so,ss}", "name", defused(name), "description",
	                        "Replays the run an agent recorded with Swipium");
	if (sget(model, "appId") && sget(model, "appId")[0])
		json_object_set_new(doc, "appId", json_string(sget(model, "appId")));
	json_object_set_new(doc, "setup", json_pack("[s]", "prepareTarget"));
	json_t *steps = json_array();
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(model, "steps"), i, st)
	{
		const char *kind = sget(st, "kind");
		const json_t *ref = json_array_get(refs, i);
		char *r = json_is_object(ref) ? ref_text(ref) : NULL;
		const json_t *loc = json_object_get(st, "locator");
		bool coords = loc && !strcmp(sget(loc, "strategy"), "coordinates");
		(void)pages;
		if (!strcmp(kind, "tap") && r) {
			json_array_append_new(steps, one("tap", json_string(r)));
		} else if ((!strcmp(kind, "type") || !strcmp(kind, "clear")) && r) {
			const char *text = !strcmp(kind, "clear") ? "" : (sget(st, "text") ? sget(st, "text") : "");
			json_t *it = json_object();
			if (coords) {
				/* a point cannot be typed into: tap it, then type into the focused field */
				json_array_append_new(steps, one("tap", json_string(r)));
				json_object_set_new(it, "text", json_string(text));
				if (json_is_string(json_object_get(st, "secretKind")))
					json_object_set_new(it, "secret", json_true());
				json_array_append_new(steps, one("inputText", it));
			} else {
				json_object_set_new(it, "into", json_string(r));
				json_object_set_new(it, "text", json_string(text));
				if (json_is_string(json_object_get(st, "secretKind")))
					json_object_set_new(it, "secret", json_true());
				json_array_append_new(steps, one("type", it));
			}
			if (json_is_true(json_object_get(st, "submit")))
				json_array_append_new(steps, one("press", json_string("enter")));
		} else if (!strcmp(kind, "visualCheck")) {
			json_array_append_new(
			    steps, one("visualCheck", defused(sget(st, "label") ? sget(st, "label") : "visual check")));
		} else if (!strcmp(kind, "assertText") && sget(st, "expected")) {
			/* the page-object test's text assertion: the text itself (a map, so no text reads as a
			 * reference) */
			char *t = sw__gen_safe_part(sget(st, "expected"));
			char *ts = t ? plain_text_selector(t) : NULL;
			if (ts && *ts)
				json_array_append_new(steps, one("assertText", json_pack("{ss}", "text", ts)));
			else if (r)
				json_array_append_new(steps, one("assertText", json_string(r)));
			free(t);
			free(ts);
		} else if (!strcmp(kind, "scroll") && json_is_object(json_object_get(st, "untilVisible"))) {
			json_t *m = element_map(json_object_get(st, "untilVisible"), platform);
			if (m)
				json_array_append_new(steps, one("scrollTo", m));
			else
				json_array_append_new(
				    steps, one("swipe", json_string(finger_of_scroll(sget(st, "direction")))));
		} else {
			json_t *tmp = json_array();
			flow_steps(st, platform, tmp);
			json_array_extend(steps, tmp);
			json_decref(tmp);
		}
		free(r);
	}
	json_object_set_new(doc, "steps", steps);
	return doc;
}

json_t *sw__gen_page_doc(const json_t *page)
{
	return json_pack("{sO,sO,sO,sO}", "name", json_object_get(page, "name"), "screen",
	                 json_object_get(page, "screen"), "platform", json_object_get(page, "platform"), "elements",
	                 json_object_get(page, "elements"));
}

/* ---- test cases ------------------------------------------------------------------------ */

/* A person's sentence for a step (the label is data: quoted, never interpreted). (transfer full) */
static char *step_sentence(const json_t *st)
{
	const char *kind = sget(st, "kind"), *label = sget(st, "label");
	const json_t *loc = json_object_get(st, "locator");
	char *what =
	    label ? sw__asprintf("\"%s\"", label)
	    : loc && !strcmp(sget(loc, "strategy"), "coordinates")
	        ? sw__asprintf("the point (%lld, %lld)", (long long)json_integer_value(json_object_get(loc, "x")),
	                       (long long)json_integer_value(json_object_get(loc, "y")))
	    : loc ? sw__asprintf("\"%s\"", sget(loc, "value"))
	          : sw__strdup("the screen");
	char *s;
	if (!strcmp(kind, "tap"))
		s = sw__asprintf("Tap %s", what);
	else if (!strcmp(kind, "type"))
		s = sw__asprintf("Type %s into %s", sget(st, "text") ? sget(st, "text") : "text", what);
	else if (!strcmp(kind, "clear"))
		s = sw__asprintf("Clear %s", what);
	else if (!strcmp(kind, "swipe"))
		s = sw__asprintf("Swipe %s", sget(st, "direction"));
	else if (!strcmp(kind, "scroll"))
		s = json_is_object(json_object_get(st, "untilVisible"))
		        ? sw__asprintf("Scroll %s until %s shows", sget(st, "direction"), what)
		        : sw__asprintf("Scroll %s", sget(st, "direction"));
	else if (!strcmp(kind, "back"))
		s = sw__strdup("Press Back");
	else if (!strcmp(kind, "key"))
		s = sw__asprintf("Press %s", sget(st, "key"));
	else if (!strcmp(kind, "openUrl"))
		s = sw__asprintf("Open the link %s", sget(st, "url"));
	else if (!strcmp(kind, "wait"))
		s = json_is_object(json_object_get(st, "untilVisible")) ? sw__asprintf("Wait until %s shows", what)
		                                                        : sw__strdup("Wait for the screen to settle");
	else if (!strcmp(kind, "visualCheck"))
		s = sw__asprintf("MANUAL visual check: look that %s", what);
	else if (!strcmp(kind, "assertText"))
		s = sw__asprintf("Check that \"%s\" is shown", sget(st, "expected") ? sget(st, "expected") : "");
	else
		s = sw__asprintf("%s %s", kind, what);
	free(what);
	return s;
}

json_t *sw__gen_testcases(const json_t *model, const char *name, const char *flow_path, const char *replay_status)
{
	json_t *cases = json_array();
	json_t *steps = json_array(), *evidence = json_array();
	const char *app = sget(model, "appId");
	json_t *pre = json_array();
	if (app && app[0]) {
		char *p = sw__asprintf("The app %s is installed and launched", app);
		json_array_append_new(pre, json_string(p));
		free(p);
	} else {
		json_array_append_new(pre, json_string("The app is installed and launched"));
	}
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(model, "variables"), i, v)
	{
		char *p =
		    sw__asprintf("${%s} is set%s", sget(v, "name"),
		                 json_is_true(json_object_get(v, "secret")) ? " (a secret: needs human data)" : "");
		json_array_append_new(pre, json_string(p));
		free(p);
	}
	json_t *st, *manual = json_array();
	const char *last_screen = NULL;
	json_array_foreach(json_object_get(model, "steps"), i, st)
	{
		char *s = step_sentence(st);
		json_array_append_new(steps, json_string(s ? s : "step"));
		free(s);
		if (sget(st, "screen"))
			last_screen = sget(st, "screen");
		if (!strcmp(sget(st, "kind"), "visualCheck")) {
			json_array_append(manual, st);
			if (sget(st, "evidence"))
				json_array_append_new(evidence, json_string(sget(st, "evidence")));
		}
	}
	char *base = last_screen ? sw__asprintf("Every step completes without a crash or an error screen, ending on %s",
	                                        last_screen)
	                         : sw__strdup("Every step completes without a crash or an error screen");
	/* the texts the run asserted are part of what is expected (each quoted: data, never read) */
	sw_buf eb = SW_BUF_INIT;
	sw__buf_puts(&eb, base ? base : "");
	size_t asserted = 0;
	json_array_foreach(json_object_get(model, "steps"), i, st)
	{
		if (strcmp(sget(st, "kind"), "assertText") != 0 || !sget(st, "expected"))
			continue;
		sw__buf_printf(&eb, "%s\"%s\"", asserted++ ? ", " : "; the screens show ", sget(st, "expected"));
	}
	free(base);
	char *expected = sw__buf_steal(&eb, NULL);
	char *title = sw__asprintf("%s: the recorded run replays", name);
	char *actual =
	    sw__asprintf("Passed when recorded (%zu step(s))", json_array_size(json_object_get(model, "steps")));
	json_array_append_new(cases,
	                      json_pack("{ss,ss,ss,ss,so,so,ss,ss,s{ss,ss?},ss,so}", "id", "TC-001", "title", title,
	                                "purpose", "Guard the journey an agent walked through against regressions",
	                                "priority", "high", "preconditions", pre, "steps", steps, "expected", expected,
	                                "actual", actual, "automation", "status", "automated", "flow", flow_path,
	                                "replayStatus", replay_status, "evidence", json_deep_copy(evidence)));
	free(expected);
	free(title);
	free(actual);
	json_array_foreach(manual, i, st)
	{
		char id[16];
		snprintf(id, sizeof(id), "TC-%03zu", i + 2);
		const char *label = sget(st, "label") ? sget(st, "label") : "visual check";
		char *t = sw__asprintf("MANUAL visual check: %s", label);
		json_t *ev = json_array();
		if (sget(st, "evidence"))
			json_array_append_new(ev, json_string(sget(st, "evidence")));
		json_array_append_new(
		    cases, json_pack("{ss,ss,ss,ss,s[s],s[s],ss,ss,s{ss},ss,so}", "id", id, "title", t, "purpose",
		                     "A person confirms what a screenshot showed; it is not automated", "priority",
		                     "medium", "preconditions", "The recorded run reached this screen", "steps",
		                     "Look at the screen and compare it with the recorded screenshot", "expected",
		                     label, "actual", "Confirmed visually when recorded", "automation", "status",
		                     "manual", "replayStatus", "manual", "evidence", ev));
		free(t);
	}
	json_decref(manual);
	json_decref(evidence);
	return cases;
}

char *sw__gen_testcases_md(const json_t *cases, const char *name)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "# Test cases: ");
	sw__gen_md_text(&b, name);
	sw__buf_puts(&b, "\n\n");
	size_t i;
	json_t *c;
	json_array_foreach(cases, i, c)
	{
		sw__buf_puts(&b, "## ");
		sw__gen_md_text(&b, sget(c, "id"));
		sw__buf_puts(&b, " ");
		sw__gen_md_text(&b, sget(c, "title"));
		sw__buf_puts(&b, "\n\n- Purpose: ");
		sw__gen_md_text(&b, sget(c, "purpose"));
		sw__buf_puts(&b, "\n- Priority: ");
		sw__gen_md_text(&b, sget(c, "priority"));
		sw__buf_puts(&b, "\n- Automation: ");
		sw__gen_md_text(&b, sget(json_object_get(c, "automation"), "status"));
		sw__buf_puts(&b, "\n- Replay: ");
		sw__gen_md_text(&b, sget(c, "replayStatus"));
		sw__buf_puts(&b, "\n\nPreconditions:\n\n");
		size_t j;
		json_t *x;
		json_array_foreach(json_object_get(c, "preconditions"), j, x)
		{
			sw__buf_puts(&b, "- ");
			sw__gen_md_text(&b, json_string_value(x));
			sw__buf_putc(&b, '\n');
		}
		sw__buf_puts(&b, "\nSteps:\n\n");
		json_array_foreach(json_object_get(c, "steps"), j, x)
		{
			sw__buf_printf(&b, "%zu. ", j + 1);
			sw__gen_md_text(&b, json_string_value(x));
			sw__buf_putc(&b, '\n');
		}
		sw__buf_puts(&b, "\nExpected result: ");
		sw__gen_md_text(&b, sget(c, "expected"));
		sw__buf_puts(&b, "\n\nActual result: ");
		sw__gen_md_text(&b, sget(c, "actual"));
		sw__buf_puts(&b, "\n");
		if (json_array_size(json_object_get(c, "evidence"))) {
			sw__buf_puts(&b, "\nEvidence:\n\n");
			json_array_foreach(json_object_get(c, "evidence"), j, x)
			{
				sw__buf_puts(&b, "- ");
				sw__gen_md_text(&b, json_string_value(x));
				sw__buf_putc(&b, '\n');
			}
		}
		sw__buf_putc(&b, '\n');
	}
	sw__buf_puts(&b, "_Generated by Swipium._\n");
	return sw__buf_steal(&b, NULL);
}
