/* appium.c: qa_generate's appium target: the step model resolved to screens, locators and steps, then written. */
#include "appium-internal.h"

#include <math.h>
#include <strings.h>
#include <stdio.h>
#include <string.h>

/* Bounds of what a generated suite does: scrolls per step, waits. */
#define AP_MAX_SCROLLS_DEFAULT 8
#define AP_MAX_SCROLLS_CAP 50
#define AP_WAIT_DEFAULT_MS 1000
#define AP_WAIT_CAP_MS 60000

static const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

int sw__ap_android_keycode(const char *key)
{
	static const struct {
		const char *name;
		int code;
	} keys[] = {{"back", 4},       {"home", 3},         {"enter", 66},      {"tab", 61},     {"delete", 67},
	            {"backspace", 67}, {"search", 84},      {"menu", 82},       {"escape", 111}, {"space", 62},
	            {"volume_up", 24}, {"volume_down", 25}, {"app_switch", 187}};
	if (!key)
		return -1;
	for (size_t i = 0; i < SW_ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].name, key))
			return keys[i].code;
	return -1;
}

int sw__ap_add_file(json_t *files, const char *root, const char *rel, char *content, sw_error **err)
{
	if (!content)
		return sw__error_nomem(err);
	char *path = sw__path_join(root, rel);
	json_t *f = path ? json_pack("{s:s, s:s}", "path", path, "content", content) : NULL;
	free(path);
	free(content);
	if (!f || json_array_append_new(files, f) < 0)
		return sw__error_nomem(err);
	return SW_OK;
}

static void suite_free(ap_suite *s)
{
	for (size_t i = 0; i < s->nscreens; i++) {
		ap_screen *sc = &s->screens[i];
		for (size_t j = 0; j < sc->n; j++)
			free(sc->elems[j].member);
		free(sc->elems);
		free(sc->cls);
		free(sc->module);
		sw__cg_scope_free(sc->members);
		json_decref(sc->index);
	}
	free(s->screens);
	for (size_t i = 0; i < s->nsteps; i++) {
		for (size_t j = 0; j < s->steps[i].npieces; j++)
			free(s->steps[i].pieces[j].text);
		free(s->steps[i].pieces);
		free(s->steps[i].data_var);
	}
	free(s->steps);
	free(s->title);
	free(s->package_name);
	json_decref(s->notes);
	json_decref(s->screen_index);
}

/* Fails the call for step @i (1-based in the message): nothing is emitted. The label stays out of the message. */
static int unemittable(sw_error **err, size_t i, const char *kind, const char *why)
{
	int rc = sw__error_set(err, SW_EUNSUPPORTED, "UNEMITTABLE_STEP",
	                       "Re-record the step with a target that has a resource-id, accessibility id or text, or "
	                       "generate target flow, which replays it through swipium.",
	                       "Step %zu (%s) cannot be expressed as Appium code: %s; no file was generated", i + 1,
	                       kind ? kind : "no kind", why);
	if (err && *err)
		sw__error_take_details(*err,
		                       json_pack("{s:I, s:s}", "step", (json_int_t)(i + 1), "kind", kind ? kind : ""));
	return rc;
}

/* ---- screens and elements ------------------------------------------------ */

static size_t screen_of(ap_suite *s, sw_cg_scope *classes, sw_cg_scope *modules, sw_cg_lang lang, const char *raw,
                        sw_error **err)
{
	if (!raw || !*raw)
		raw = "app";
	json_t *known = json_object_get(s->screen_index, raw);
	if (known)
		return (size_t)json_integer_value(known);
	ap_screen *grown = realloc(s->screens, (s->nscreens + 1) * sizeof(*grown));
	if (!grown) {
		sw__error_nomem(err);
		return SIZE_MAX;
	}
	s->screens = grown;
	ap_screen *sc = &s->screens[s->nscreens];
	memset(sc, 0, sizeof(*sc));
	sc->raw = raw;
	/* "Login" -> LoginScreen, "LoginScreen" stays; the module is the snake form of the class. */
	size_t rl = strlen(raw);
	bool has_suffix = rl >= 6 && !strcasecmp(raw + rl - 6, "screen");
	char *named = has_suffix ? sw__strdup(raw) : sw__asprintf("%s screen", raw);
	sc->cls = named ? sw__cg_ident(classes, named, SW_CG_PASCAL, "app screen") : NULL;
	sc->module = named ? sw__cg_ident(modules, named, SW_CG_SNAKE, "app screen") : NULL;
	free(named);
	sc->members = sw__cg_scope_new(lang);
	sc->index = json_object();
	s->nscreens++;
	if (!sc->cls || !sc->module || !sc->members || !sc->index ||
	    json_object_set_new(s->screen_index, raw, json_integer((json_int_t)(s->nscreens - 1))) < 0) {
		sw__error_nomem(err);
		return SIZE_MAX;
	}
	/* Names a class body cannot take (static members of a function, the helpers' own). */
	static const char *const taken[] = {"name", "length", "caller",   "arguments", "prototype", "apply",
	                                    "bind", "call",   "toString", "screen",    "driver",    "find"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(taken); i++)
		sw__cg_scope_reserve(sc->members, taken[i]);
	return s->nscreens - 1;
}

static bool strategy_known(const char *st)
{
	return st && (!strcmp(st, "id") || !strcmp(st, "accessibility_id") || !strcmp(st, "text") ||
	              !strcmp(st, "coordinates"));
}

/* The tail of a resource id ("com.app:id/sign_in" -> "sign_in") names an element better than the whole. */
static const char *id_tail(const char *v)
{
	const char *slash = strrchr(v, '/');
	if (slash && slash[1])
		return slash + 1;
	const char *colon = strrchr(v, ':');
	return colon && colon[1] ? colon + 1 : v;
}

static const char *quality_of(const json_t *step, const char *strategy)
{
	const char *q = sget(step, "quality");
	if (q && (!strcmp(q, "durable") || !strcmp(q, "semi") || !strcmp(q, "brittle")))
		return q;
	if (!strcmp(strategy, "coordinates"))
		return "brittle";
	return strcmp(strategy, "text") ? "durable" : "semi";
}

/* The element of @loc on screen @si (shared when the same locator comes back); -1 with *why on a bad locator. */
static long elem_of(ap_suite *s, size_t si, const json_t *loc, const json_t *step, const char *label, bool py,
                    const char **why, sw_error **err)
{
	ap_screen *sc = &s->screens[si];
	const char *st = sget(loc, "strategy");
	if (!json_is_object(loc) || !strategy_known(st)) {
		*why = "its locator strategy is missing or not one of id, accessibility_id, text, coordinates";
		return -1;
	}
	const char *value = NULL;
	long x = 0, y = 0;
	if (!strcmp(st, "coordinates")) {
		json_t *jx = json_object_get(loc, "x"), *jy = json_object_get(loc, "y");
		if (!json_is_number(jx) || !json_is_number(jy) || !isfinite(json_number_value(jx)) ||
		    !isfinite(json_number_value(jy)) || json_number_value(jx) < 0 || json_number_value(jy) < 0 ||
		    json_number_value(jx) > 100000 || json_number_value(jy) > 100000) {
			*why = "its coordinates are missing or not a point on a screen";
			return -1;
		}
		x = lround(json_number_value(jx));
		y = lround(json_number_value(jy));
	} else {
		value = sget(loc, "value");
		if (!value || !*value) {
			*why = "its locator has no value";
			return -1;
		}
	}
	/* The same locator on the same screen is one element: "strategy\x1fvalue" or "coordinates\x1fx,y". */
	char *key = value ? sw__asprintf("%s\x1f%s", st, value) : sw__asprintf("%s\x1f%ld,%ld", st, x, y);
	if (!key) {
		sw__error_nomem(err);
		return -2;
	}
	json_t *known = json_object_get(sc->index, key);
	if (known) {
		free(key);
		return (long)json_integer_value(known);
	}
	if (json_object_set_new(sc->index, key, json_integer((json_int_t)sc->n)) < 0) {
		free(key);
		sw__error_nomem(err);
		return -2;
	}
	free(key);
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 8;
		ap_elem *grown = realloc(sc->elems, cap * sizeof(*grown));
		if (!grown) {
			sw__error_nomem(err);
			return -2;
		}
		sc->elems = grown;
		sc->cap = cap;
	}
	ap_elem *e = &sc->elems[sc->n];
	memset(e, 0, sizeof(*e));
	e->strategy = st;
	e->value = value;
	e->x = x;
	e->y = y;
	e->label = label;
	e->quality = quality_of(step, st);
	const char *basis = label && *label ? label : (value ? (!strcmp(st, "id") ? id_tail(value) : value) : NULL);
	char point[64];
	if (!basis) {
		snprintf(point, sizeof(point), "point %ld %ld", x, y);
		basis = point;
	}
	e->member = sw__cg_ident(sc->members, basis, py ? SW_CG_UPPER_SNAKE : SW_CG_CAMEL, "element");
	if (!e->member) {
		sw__error_nomem(err);
		return -2;
	}
	sc->n++;
	return (long)(sc->n - 1);
}

/* ---- typed values ---------------------------------------------------------- */

static bool var_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > 64 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

static int add_piece(ap_step *st, const char *text, size_t n, bool is_var, sw_error **err)
{
	if (n == 0)
		return SW_OK;
	ap_piece *grown = realloc(st->pieces, (st->npieces + 1) * sizeof(*grown));
	if (!grown)
		return sw__error_nomem(err);
	st->pieces = grown;
	st->pieces[st->npieces].text = sw__strndup(text, n);
	st->pieces[st->npieces].is_var = is_var;
	if (!st->pieces[st->npieces].text)
		return sw__error_nomem(err);
	st->npieces++;
	return SW_OK;
}

/* Splits a typed value into literal text and `${VAR}` placeholders (read from the environment at run time). */
static int split_value(ap_step *st, const char *text, sw_error **err)
{
	const char *p = text, *lit = text;
	int rc = SW_OK;
	while ((p = strstr(p, "${")) != NULL) {
		const char *close = strchr(p + 2, '}');
		if (!close)
			break;
		if (!var_name_ok(p + 2, (size_t)(close - p - 2))) {
			p += 2;
			continue;
		}
		if ((rc = add_piece(st, lit, (size_t)(p - lit), false, err)) < 0 ||
		    (rc = add_piece(st, p + 2, (size_t)(close - p - 2), true, err)) < 0)
			return rc;
		p = lit = close + 1;
	}
	return add_piece(st, lit, strlen(lit), false, err);
}

static const char *secret_var(const char *kind)
{
	if (!kind)
		return NULL;
	if (!strcmp(kind, "password"))
		return "SWIPIUM_TEST_PASSWORD";
	if (!strcmp(kind, "otp"))
		return "SWIPIUM_TEST_OTP";
	if (!strcmp(kind, "token"))
		return "SWIPIUM_TEST_TOKEN";
	if (!strcmp(kind, "pin"))
		return "SWIPIUM_TEST_PIN";
	return NULL;
}

static int resolve_type(ap_suite *s, ap_step *st, size_t i, sw_cg_scope *datavars, unsigned *secret_n, sw_error **err)
{
	const char *text = sget(st->json, "text");
	if (!text)
		return unemittable(err, i, st->kind, "it has no text to type");
	const char *kind = sget(st->json, "secretKind");
	int rc = split_value(st, text, err);
	if (rc < 0)
		return rc;
	bool all_vars = st->npieces > 0;
	for (size_t j = 0; j < st->npieces; j++)
		all_vars = all_vars && st->pieces[j].is_var;
	if (kind && !all_vars) {
		/* A secret field whose value is not a placeholder: the value is dropped, never written. */
		for (size_t j = 0; j < st->npieces; j++)
			free(st->pieces[j].text);
		st->npieces = 0;
		const char *var = secret_var(kind);
		char fallback[48];
		if (!var) {
			snprintf(fallback, sizeof(fallback), "SWIPIUM_SECRET_%u", ++*secret_n);
			var = fallback;
		}
		if ((rc = add_piece(st, var, strlen(var), true, err)) < 0)
			return rc;
		json_array_append_new(s->notes,
		                      json_sprintf("Step %zu types a secret that was not a placeholder: the suite "
		                                   "reads it from %s and holds no value.",
		                                   i + 1, var));
		return SW_OK;
	}
	bool all_literal = true;
	for (size_t j = 0; j < st->npieces; j++)
		all_literal = all_literal && !st->pieces[j].is_var;
	if (all_literal) {
		/* Plain test data: the recorded text is the default, SWIPIUM_DATA_<FIELD> overrides it. */
		const ap_screen *sc = &s->screens[st->screen];
		const char *field = st->elem >= 0 ? sc->elems[st->elem].member : "text";
		char *raw = sw__asprintf("swipium data %s %s", sc->cls, field);
		st->data_var = raw ? sw__cg_ident(datavars, raw, SW_CG_UPPER_SNAKE, "swipium data") : NULL;
		free(raw);
		if (!st->data_var)
			return sw__error_nomem(err);
	}
	return SW_OK;
}

/* ---- the steps ------------------------------------------------------------- */

static bool direction_ok(const char *d)
{
	return d && (!strcmp(d, "up") || !strcmp(d, "down") || !strcmp(d, "left") || !strcmp(d, "right"));
}

/* Keys as the model names them ("enter", "KEYCODE_ENTER", "Enter") to the emitter's names. */
static const char *normal_key(const char *k, char buf[32])
{
	if (!k)
		return NULL;
	if (!strncasecmp(k, "KEYCODE_", 8))
		k += 8;
	size_t n = strlen(k);
	if (n == 0 || n >= 32)
		return NULL;
	for (size_t i = 0; i <= n; i++)
		buf[i] = (char)(k[i] >= 'A' && k[i] <= 'Z' ? k[i] - 'A' + 'a' : k[i]);
	if (!strcmp(buf, "del"))
		return "delete";
	if (!strcmp(buf, "return"))
		return "enter";
	return sw__ap_android_keycode(buf) >= 0 ? buf : NULL;
}

static int resolve_steps(ap_suite *s, const json_t *steps, sw_cg_lang lang, sw_error **err)
{
	sw_cg_scope *classes = sw__cg_scope_new(lang), *modules = sw__cg_scope_new(lang);
	sw_cg_scope *datavars = sw__cg_scope_new(lang);
	int rc = SW_OK;
	unsigned secret_n = 0;
	if (!classes || !modules || !datavars) {
		rc = sw__error_nomem(err);
		goto out;
	}
	/* Names the generated modules use themselves. */
	static const char *const reserved[] = {"Locator",  "locator",  "screens", "support",  "swipium_support",
	                                       "tests",    "conftest", "appium",  "selenium", "pytest",
	                                       "unittest", "os",       "sys"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(reserved); i++) {
		sw__cg_scope_reserve(classes, reserved[i]);
		sw__cg_scope_reserve(modules, reserved[i]);
	}
	size_t n = json_array_size(steps);
	s->steps = calloc(n ? n : 1, sizeof(*s->steps));
	if (!s->steps) {
		rc = sw__error_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *js = json_array_get(steps, i);
		ap_step *st = &s->steps[s->nsteps++];
		st->json = js;
		st->kind = sget(js, "kind");
		st->elem = st->until = -1;
		if (!json_is_object(js) || !st->kind) {
			rc = unemittable(err, i, NULL, "it is not a step object with a kind");
			goto out;
		}
		st->screen = screen_of(s, classes, modules, lang, sget(js, "screen"), err);
		if (st->screen == SIZE_MAX) {
			rc = SW_ENOMEM;
			goto out;
		}
		const char *k = st->kind, *why = NULL;
		const json_t *loc = json_object_get(js, "locator");
		const char *label = sget(js, "label");
		bool needs_loc = !strcmp(k, "tap") || !strcmp(k, "clear");
		bool may_loc = needs_loc || !strcmp(k, "type") || !strcmp(k, "swipe") || !strcmp(k, "wait") ||
		               !strcmp(k, "assertText") || !strcmp(k, "scroll");
		if (!strcmp(k, "visualCheck")) {
			s->manual++;
			continue;
		}
		static const char *const kinds[] = {"tap", "type",   "clear", "swipe",      "scroll",      "back",
		                                    "key", "launch", "wait",  "assertText", "visualCheck", "openUrl"};
		bool known = false;
		for (size_t j = 0; j < SW_ARRAY_SIZE(kinds); j++)
			known = known || !strcmp(kinds[j], k);
		if (!known) {
			rc = unemittable(err, i, k, "swipium has no Appium code for this kind of step");
			goto out;
		}
		if (needs_loc && !json_is_object(loc)) {
			rc = unemittable(err, i, k, "it has no locator");
			goto out;
		}
		/* A wait for an element names it untilVisible (qa_act's "for"). */
		if (!strcmp(k, "wait") && !json_is_object(loc) && json_is_object(json_object_get(js, "untilVisible")))
			loc = json_object_get(js, "untilVisible");
		if (may_loc && json_is_object(loc)) {
			st->elem = elem_of(s, st->screen, loc, js, label, s->python, &why, err);
			if (st->elem == -2) {
				rc = SW_ENOMEM;
				goto out;
			}
			if (st->elem < 0) {
				rc = unemittable(err, i, k, why);
				goto out;
			}
			s->screens[st->screen].referenced = true;
			const ap_elem *e = &s->screens[st->screen].elems[st->elem];
			if (!strcmp(k, "clear") && !e->value) {
				rc = unemittable(err, i, k, "a field cannot be cleared by a screen coordinate");
				goto out;
			}
		}
		if (!strcmp(k, "type")) {
			if ((rc = resolve_type(s, st, i, datavars, &secret_n, err)) < 0)
				goto out;
			st->submit = json_is_true(json_object_get(js, "submit"));
		} else if (!strcmp(k, "openUrl")) {
			st->url = sget(js, "url");
			if (!st->url || !*st->url) {
				rc = unemittable(err, i, k, "it has no URL to open");
				goto out;
			}
		} else if (!strcmp(k, "swipe") || !strcmp(k, "scroll")) {
			st->direction = sget(js, "direction");
			if (!direction_ok(st->direction)) {
				rc = unemittable(err, i, k, "its direction is not up, down, left or right");
				goto out;
			}
			const json_t *until = json_object_get(js, "untilVisible");
			if (!strcmp(k, "scroll") && json_is_object(until)) {
				st->until = elem_of(s, st->screen, until, js, NULL, s->python, &why, err);
				if (st->until == -2) {
					rc = SW_ENOMEM;
					goto out;
				}
				if (st->until >= 0)
					s->screens[st->screen].referenced = true;
				if (st->until < 0 || !s->screens[st->screen].elems[st->until].value) {
					rc = unemittable(
					    err, i, k,
					    st->until < 0
					        ? why
					        : "it scrolls until a coordinate is visible, which no screen shows");
					goto out;
				}
				json_t *m = json_object_get(js, "maxScrolls");
				st->max_scrolls =
				    json_is_integer(m) ? (long)json_integer_value(m) : AP_MAX_SCROLLS_DEFAULT;
				if (st->max_scrolls < 1)
					st->max_scrolls = 1;
				if (st->max_scrolls > AP_MAX_SCROLLS_CAP) {
					json_array_append_new(
					    s->notes,
					    json_sprintf("Step %zu asked for %ld scrolls; the suite stops after %d.",
					                 i + 1, st->max_scrolls, AP_MAX_SCROLLS_CAP));
					st->max_scrolls = AP_MAX_SCROLLS_CAP;
				}
			}
		} else if (!strcmp(k, "key")) {
			char buf[32];
			st->key = normal_key(sget(js, "key"), buf);
			if (!st->key) {
				rc = unemittable(
				    err, i, k,
				    "its key is not one the Appium drivers can press (back, home, enter, ...)");
				goto out;
			}
			/* buf is on this frame: keep the table's own string. */
			static const char *const names[] = {"back",      "home",        "enter",     "tab",    "delete",
			                                    "backspace", "search",      "menu",      "escape", "space",
			                                    "volume_up", "volume_down", "app_switch"};
			for (size_t j = 0; j < SW_ARRAY_SIZE(names); j++)
				if (!strcmp(names[j], st->key))
					st->key = names[j];
		} else if (!strcmp(k, "wait")) {
			json_t *ms = json_object_get(js, "ms");
			if (!ms)
				ms = json_object_get(js, "timeoutMs");
			if (!ms)
				ms = json_object_get(js, "durationMs");
			st->wait_ms = json_is_number(ms) ? (long)json_number_value(ms) : AP_WAIT_DEFAULT_MS;
			if (st->wait_ms < 0)
				st->wait_ms = 0;
			if (st->wait_ms > AP_WAIT_CAP_MS)
				st->wait_ms = AP_WAIT_CAP_MS;
			if (st->elem >= 0 && !s->screens[st->screen].elems[st->elem].value) {
				rc = unemittable(err, i, k, "it waits for a screen coordinate, which cannot appear");
				goto out;
			}
		} else if (!strcmp(k, "assertText")) {
			st->expected = sget(js, "expected");
			if (!st->expected || !*st->expected) {
				rc = unemittable(err, i, k, "it has no expected text");
				goto out;
			}
			if (st->elem >= 0 && !s->screens[st->screen].elems[st->elem].value) {
				rc = unemittable(err, i, k, "a screen coordinate has no text to compare");
				goto out;
			}
		}
	}
out:
	sw__cg_scope_free(classes);
	sw__cg_scope_free(modules);
	sw__cg_scope_free(datavars);
	return rc;
}

/* ---- parameters ----------------------------------------------------------- */

static int resolve_params(ap_suite *s, const json_t *model, const json_t *params, sw_error **err)
{
	const char *lang = sget(params, "language");
	/* qa_generate passes the resolved project root as "root"; "projectRoot" is the tool's own name for it. */
	const char *root = sget(params, "root") ? sget(params, "root") : sget(params, "projectRoot");
	ap_project pr;
	sw__ap_project_detect(root, &pr);
	if (lang && strcmp(lang, "auto") && strcmp(lang, "typescript") && strcmp(lang, "javascript") &&
	    strcmp(lang, "python"))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Use auto, javascript, typescript or python.",
		                     "language must be auto, javascript, typescript or python");
	if (!lang || !strcmp(lang, "auto")) {
		/* A project with a package.json gets WebdriverIO, one with only Python files a Python suite. */
		if (pr.typescript)
			lang = "typescript";
		else if (pr.javascript)
			lang = "javascript";
		else if (pr.python)
			lang = "python";
		else
			lang = "typescript";
		json_array_append_new(s->notes, json_sprintf("language auto: %s (%s).", lang,
		                                             pr.typescript || pr.javascript || pr.python
		                                                 ? "what the project already uses"
		                                                 : "no JavaScript or Python project files found"));
	}
	s->python = !strcmp(lang, "python");
	s->typescript = !strcmp(lang, "typescript");
	s->pytest = s->python && pr.pytest;

	const char *pl = sget(params, "platform");
	if (pl && strcmp(pl, "auto") && strcmp(pl, "android") && strcmp(pl, "ios") && strcmp(pl, "both"))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Use auto, android, ios or both.",
		                     "platform must be auto, android, ios or both");
	const char *session = sget(model, "platform");
	if (pl && (!strcmp(pl, "android") || !strcmp(pl, "ios"))) {
		s->primary = pl;
		s->platform_source = "argument";
	} else if (session && (!strcmp(session, "android") || !strcmp(session, "ios"))) {
		s->primary = session;
		s->platform_source = "session_device";
	} else if (pr.only_platform) {
		s->primary = pr.only_platform;
		s->platform_source = "project_profile";
	} else {
		s->primary = "android";
		s->platform_source = "default";
	}
	s->recorded = session && (!strcmp(session, "android") || !strcmp(session, "ios")) ? session : s->primary;
	s->both = pl && !strcmp(pl, "both");
	s->include_ci = json_is_true(json_object_get(params, "includeCi"));
	s->app_id = sget(model, "appId");
	const char *name = sget(params, "name");
	if (!name || !*name)
		name = s->app_id && *s->app_id ? s->app_id : "app";
	s->title = sw__strdup(name);
	sw_cg_scope *one = sw__cg_scope_new(SW_CG_JS);
	char *slug = one ? sw__cg_ident(one, name, SW_CG_SNAKE, "app") : NULL;
	sw__cg_scope_free(one);
	if (slug)
		for (char *p = slug; *p; p++)
			if (*p == '_')
				*p = '-';
	s->package_name = slug ? sw__asprintf("swipium-%s-e2e", slug) : NULL;
	free(slug);
	if (!s->title || !s->package_name)
		return sw__error_nomem(err);
	return SW_OK;
}

/* ---- the entry point -------------------------------------------------------- */

int sw__gen_appium(const json_t *model, const json_t *params, json_t **files_out, json_t **report_out, sw_error **err)
{
	if (!files_out || !report_out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw__gen_appium needs both outputs");
	const json_t *steps = json_object_get(model, "steps");
	if (!json_is_object(model) || !json_is_array(steps))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "the generation model has no steps array");
	if (json_array_size(steps) == 0)
		return sw__error_set(
		    err, SW_ENOTFOUND, "NO_RECORDED_ACTIONS",
		    "Drive the app with qa_act (or use bootstrap) first; its actions are what the suite "
		    "replays.",
		    "Nothing was recorded in this session, so there is no Appium suite to generate");
	ap_suite s;
	memset(&s, 0, sizeof(s));
	json_t *files = NULL, *report = NULL;
	int rc;
	s.notes = json_array();
	s.screen_index = json_object();
	if (!s.notes || !s.screen_index) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if ((rc = resolve_params(&s, model, params, err)) < 0)
		goto out;
	if ((rc = resolve_steps(&s, steps, s.python ? SW_CG_PY : (s.typescript ? SW_CG_TS : SW_CG_JS), err)) < 0)
		goto out;
	files = json_array();
	if (!files) {
		rc = sw__error_nomem(err);
		goto out;
	}
	rc = s.python ? sw__ap_emit_py(&s, files, err) : sw__ap_emit_js(&s, files, err);
	if (rc < 0)
		goto out;
	const char *root = s.python ? AP_PY_ROOT : AP_JS_ROOT;
	if (s.include_ci && (rc = sw__ap_add_file(files, root, "ci.example.yml", sw__ap_ci_example(&s), err)) < 0)
		goto out;

	/* The locator audit: unique locators by quality; over the brittle threshold the suite is a candidate. */
	size_t durable = 0, semi = 0, brittle = 0;
	for (size_t i = 0; i < s.nscreens; i++)
		for (size_t j = 0; j < s.screens[i].n; j++) {
			const char *q = s.screens[i].elems[j].quality;
			if (!strcmp(q, "brittle"))
				brittle++;
			else if (!strcmp(q, "semi"))
				semi++;
			else
				durable++;
		}
	size_t total = durable + semi + brittle;
	double pct = total ? 100.0 * (double)brittle / (double)total : 0.0;
	json_t *th = json_object_get(params, "brittleThreshold");
	double threshold = json_is_number(th) ? json_number_value(th) : 40.0;
	if (!isfinite(threshold) || threshold < 0 || threshold > 100) {
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Give a percentage from 0 to 100 (default 40).",
		                   "brittleThreshold must be a number from 0 to 100");
		goto out;
	}
	bool over = pct > threshold;
	bool candidate_only = json_is_true(json_object_get(params, "candidateOnly"));
	const char *status = candidate_only || over ? "candidate" : "runnable";
	if (over)
		json_array_append_new(s.notes,
		                      json_sprintf("%zu of %zu locators are screen coordinates (%.0f%% > %.0f%%): "
		                                   "the suite is a candidate until the app gives those elements ids.",
		                                   brittle, total, pct, threshold));
	size_t emitted = 0;
	for (size_t i = 0; i < s.nsteps; i++)
		if (strcmp(s.steps[i].kind, "visualCheck"))
			emitted++;
	json_t *paths = json_array();
	size_t nf;
	json_t *f;
	json_array_foreach(files, nf, f) json_array_append(paths, json_object_get(f, "path"));
	report =
	    json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:f, s:f, s:b}, "
	              "s:s, s:b, s:o, s:o}",
	              "language", s.python ? "python" : (s.typescript ? "typescript" : "javascript"), "runner",
	              s.python ? (s.pytest ? "pytest" : "unittest") : "wdio-mocha", "framework",
	              s.python ? "appium-python-client" : "webdriverio", "root", root, "primaryPlatform", s.primary,
	              "platformSource", s.platform_source, "platforms",
	              s.both ? json_pack("[ss]", "android", "ios") : json_pack("[s]", s.primary), "screens",
	              (json_int_t)s.nscreens, "steps", (json_int_t)s.nsteps, "stepsEmitted", (json_int_t)emitted,
	              "manualCheckpoints", (json_int_t)s.manual, "locators", "total", (json_int_t)total, "durable",
	              (json_int_t)durable, "semi", (json_int_t)semi, "brittle", (json_int_t)brittle, "brittlePercent",
	              round(pct * 10) / 10, "brittleThreshold", threshold, "overThreshold", over, "status", status,
	              "candidateOnly", candidate_only, "files", paths, "notes", json_incref(s.notes));
	if (!report) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*files_out = files;
	*report_out = report;
	files = report = NULL;
	rc = SW_OK;
out:
	json_decref(files);
	json_decref(report);
	suite_free(&s);
	return rc;
}

int sw__gen_appium_choices(const json_t *model, const json_t *params, json_t **out, sw_error **err)
{
	ap_suite s;
	memset(&s, 0, sizeof(s));
	s.notes = json_array();
	s.screen_index = json_object();
	int rc = s.notes && s.screen_index ? resolve_params(&s, model, params, err) : sw__error_nomem(err);
	if (rc == SW_OK) {
		*out = json_pack("{s:s, s:s, s:s, s:s, s:O}", "language",
		                 s.python ? "python" : (s.typescript ? "typescript" : "javascript"), "runner",
		                 s.python ? (s.pytest ? "pytest" : "unittest") : "wdio-mocha", "primaryPlatform",
		                 s.primary, "platformSource", s.platform_source, "notes", s.notes);
		if (!*out)
			rc = sw__error_nomem(err);
	}
	suite_free(&s);
	return rc;
}
