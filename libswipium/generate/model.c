/* model.c: the session's recorded actions turned into the generation model of gen-internal.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gen-internal.h"
#include "gen-text.h"
#include <swipium/redact.h>

static const char *sget(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static bool usable(const char *s)
{
	return s && s[0] && !strstr(s, "${") && !strstr(s, SW_REDACTED_MARKER) && !strpbrk(s, "\n\r");
}

/* The locator of what an action acted on: durable handles first, then text, then a point. (transfer full) */
static json_t *locator_of(const json_t *el, const json_t *target, const json_t *point, const char **quality)
{
	const char *rid = sget(el, "resourceId"), *ax = sget(el, "accessibilityId");
	if (!rid && target && sget(target, "id"))
		rid = sget(target, "id");
	if (usable(rid)) {
		*quality = "durable";
		return json_pack("{ss,ss}", "strategy", "id", "value", rid);
	}
	if (usable(ax)) {
		*quality = "durable";
		return json_pack("{ss,ss}", "strategy", "accessibility_id", "value", ax);
	}
	const char *texts[] = {sget(el, "text"), sget(el, "label"), ax, target ? sget(target, "text") : NULL};
	for (size_t i = 0; i < SW_ARRAY_SIZE(texts); i++) {
		char *part = sw__gen_safe_part(texts[i]);
		if (part) {
			*quality = "semi";
			json_t *l = json_pack("{ss,ss}", "strategy", "text", "value", part);
			free(part);
			return l;
		}
	}
	int x = -1, y = -1;
	json_t *b = json_object_get(el, "bounds");
	if (json_array_size(b) == 4) {
		x = (int)((json_integer_value(json_array_get(b, 0)) + json_integer_value(json_array_get(b, 2))) / 2);
		y = (int)((json_integer_value(json_array_get(b, 1)) + json_integer_value(json_array_get(b, 3))) / 2);
	} else if (json_array_size(point) == 2) {
		x = (int)json_integer_value(json_array_get(point, 0));
		y = (int)json_integer_value(json_array_get(point, 1));
	} else if (target && json_is_number(json_object_get(target, "x")) &&
	           json_is_number(json_object_get(target, "y"))) {
		x = (int)json_number_value(json_object_get(target, "x"));
		y = (int)json_number_value(json_object_get(target, "y"));
	}
	if (x < 0 || y < 0)
		return NULL;
	*quality = "brittle";
	return json_pack("{ss,ss,si,si}", "strategy", "coordinates", "value", "", "x", x, "y", y);
}

/* The raw label of the element (untrusted; redacted already when it showed a registered secret). */
static const char *label_of(const json_t *el, const json_t *target)
{
	const char *c[] = {sget(el, "label"),
	                   sget(el, "text"),
	                   sget(el, "accessibilityId"),
	                   sget(el, "hint"),
	                   target ? sget(target, "text") : NULL,
	                   sget(el, "id")};
	for (size_t i = 0; i < SW_ARRAY_SIZE(c); i++)
		if (c[i] && c[i][0])
			return c[i];
	return NULL;
}

static bool word_in(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = s ? strcasestr(s, w) : NULL; p; p = strcasestr(p + 1, w))
		if ((p == s || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]))
			return true;
	return false;
}

/* The field kind of an element, for a secret found only at generation (its text held a redacted value). */
static const char *field_kind(const json_t *el)
{
	const char *c[] = {sget(el, "id"), sget(el, "hint"), sget(el, "label"), sget(el, "accessibilityId")};
	for (size_t i = 0; i < SW_ARRAY_SIZE(c); i++) {
		const char *s = c[i];
		if (!s)
			continue;
		if (word_in(s, "otp") || strcasestr(s, "verification") || strcasestr(s, "one-time"))
			return "otp";
		if (word_in(s, "pin"))
			return "pin";
		if (strcasestr(s, "token"))
			return "token";
		if (strcasestr(s, "password") || strcasestr(s, "passcode") || word_in(s, "pwd"))
			return "password";
	}
	return json_is_true(json_object_get(el, "secure")) ? "password" : "secret";
}

static const char *kind_var(const char *kind)
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

/* NAME of a text that is exactly one ${NAME}, else NULL. (transfer full) */
static char *only_var(const char *t)
{
	size_t n = t ? strlen(t) : 0;
	if (n < 4 || t[0] != '$' || t[1] != '{' || t[n - 1] != '}')
		return NULL;
	for (size_t i = 2; i + 1 < n; i++)
		if (!(isalnum((unsigned char)t[i]) || t[i] == '_'))
			return NULL;
	return sw__strndup(t + 2, n - 3);
}

typedef struct model_ctx {
	int secret_n;      /* SWIPIUM_SECRET_<n> handed out */
	int input_n;       /* SWIPIUM_INPUT_<n>: typed text that held a ${...} no one resolved */
	json_t *variables; /* [{name, secret, reason}] */
} model_ctx;

static void add_var(model_ctx *m, const char *name, bool secret, const char *reason)
{
	size_t i;
	json_t *v;
	json_array_foreach(m->variables, i, v) if (!strcmp(sget(v, "name"), name)) return;
	json_array_append_new(m->variables, json_pack("{ss,sb,ss}", "name", name, "secret", secret, "reason", reason));
}

/* The text a type step replays, with every secret as a placeholder (sets secretKind on @step). */
static void typed_text(model_ctx *m, const json_t *a, json_t *step)
{
	const json_t *el = json_object_get(a, "element");
	const char *text = sget(a, "text");
	bool secret = json_is_true(json_object_get(a, "secret"));
	const char *kind = sget(a, "secretKind");
	char *var = only_var(text);
	char buf[160];
	if (var) {
		/* an existing ${VAR} is kept, with the SWIPIUM_ prefix the flow runner reads from the environment */
		if (!sw__str_has_prefix(var, "SWIPIUM_"))
			snprintf(buf, sizeof(buf), "SWIPIUM_%s", var);
		else
			snprintf(buf, sizeof(buf), "%s", var);
		if (!secret && sw_redact_is_secret_name(buf))
			secret = true;
		if (secret && !kind)
			kind = field_kind(el);
		add_var(m, buf, secret, secret ? "a secret typed when recorded" : "a placeholder typed when recorded");
	} else if (secret || !text || strstr(text, SW_REDACTED_MARKER)) {
		secret = true;
		if (!kind)
			kind = field_kind(el);
		const char *kv = kind_var(kind);
		if (kv)
			snprintf(buf, sizeof(buf), "%s", kv);
		else
			snprintf(buf, sizeof(buf), "SWIPIUM_SECRET_%d", ++m->secret_n);
		add_var(m, buf, true, "a secret typed when recorded (needs human data)");
	} else if (strstr(text, "${")) {
		/* a literal that a flow would read as a reference: replayed from a variable, never as a reference */
		snprintf(buf, sizeof(buf), "SWIPIUM_INPUT_%d", ++m->input_n);
		add_var(m, buf, false, "typed text that looks like a ${...} reference; pass the literal text");
	} else {
		json_object_set_new(step, "text", json_string(text));
		free(var);
		return;
	}
	free(var);
	char ph[180];
	snprintf(ph, sizeof(ph), "${%s}", buf);
	json_object_set_new(step, "text", json_string(ph));
	if (secret)
		json_object_set_new(step, "secretKind", json_string(kind ? kind : "secret"));
}

static json_t *base_step(const char *kind, const json_t *a)
{
	json_t *st = json_pack("{ss}", "kind", kind);
	if (sget(a, "screen"))
		json_object_set_new(st, "screen", json_string(sget(a, "screen")));
	if (json_object_get(a, "seq"))
		json_object_set(st, "seq", json_object_get(a, "seq"));
	return st;
}

static bool set_locator(json_t *st, const json_t *a)
{
	const json_t *el = json_object_get(a, "element");
	const json_t *target = json_object_get(a, "target");
	const char *q = NULL;
	json_t *loc = locator_of(el, target, json_object_get(a, "point"), &q);
	if (!loc)
		return false;
	json_object_set_new(st, "locator", loc);
	json_object_set_new(st, "quality", json_string(q));
	const char *label = label_of(el, target);
	if (label)
		json_object_set_new(st, "label", json_string(label));
	if (el && json_object_get(el, "id") && !json_object_get(st, "elementId"))
		json_object_set(st, "elementId", json_object_get(el, "id"));
	return true;
}

/*
 * A satisfied wait for an element (qa_act's, or a flow run's assertVisible) is the text assertion the run made:
 * an assertText step that expects what was waited for (the text asked for, else the found element's text). A
 * timed-out wait asserted nothing. Text that showed a registered secret is never expected; text that would read
 * as a ${NAME} reference or runs over lines is expected by its longest clean part. (transfer full)
 */
static json_t *assertion_of(const json_t *a, const char **why)
{
	if (!json_is_true(json_object_get(a, "satisfied"))) {
		*why = "the wait timed out when recorded: the element never showed, so nothing was asserted";
		return NULL;
	}
	const json_t *f = json_object_get(a, "for"), *el = json_object_get(a, "element");
	const char *asked = sget(f, "text");
	const char *shown = json_is_true(json_object_get(el, "secure")) ? NULL : sget(el, "text");
	const char *raw = asked ? asked : shown;
	if ((raw && strstr(raw, SW_REDACTED_MARKER)) || (sget(f, "id") && strstr(sget(f, "id"), SW_REDACTED_MARKER))) {
		*why = "the asserted text showed a value registered as a secret: it is never written into a test";
		return NULL;
	}
	char *part = raw ? sw__gen_safe_part(raw) : NULL;
	json_t *loc = NULL;
	const char *q = "semi";
	const char *rid = sget(el, "resourceId");
	if (asked) {
		if (!part) {
			*why = "no part of the asserted text can be matched literally (it is only a ${...} reference)";
			return NULL;
		}
		/* the element's id when the expected text is only a part of what it shows (its text is then checked
		 * to contain it), else the text itself */
		if (usable(rid) && (!shown || strcmp(part, shown) != 0)) {
			loc = json_pack("{ss,ss}", "strategy", "id", "value", rid);
			q = "durable";
		} else {
			loc = json_pack("{ss,ss}", "strategy", "text", "value", part);
		}
	} else if (usable(sget(f, "id"))) {
		loc = json_pack("{ss,ss}", "strategy", "id", "value", sget(f, "id"));
		q = "durable";
	} else {
		loc = locator_of(el, NULL, NULL, &q);
		if (loc && !strcmp(sget(loc, "strategy"), "coordinates")) {
			json_decref(loc);
			loc = NULL;
		}
	}
	if (!loc) {
		free(part);
		*why = "the asserted element has no id or text to find it by";
		return NULL;
	}
	/* without a text to expect (an id whose element shows none), the assertion is that the element shows up */
	json_t *st = base_step(part ? "assertText" : "wait", a);
	json_object_set_new(st, part ? "locator" : "untilVisible", loc);
	json_object_set_new(st, "quality", json_string(q));
	if (part) {
		json_object_set_new(st, "expected", json_string(part));
		json_object_set_new(st, "label", json_string(raw));
	}
	if (el && json_object_get(el, "id"))
		json_object_set(st, "elementId", json_object_get(el, "id"));
	free(part);
	return st;
}

/* One recorded action as a model step, or NULL with *why set when it cannot be replayed. (transfer full) */
static json_t *step_of(model_ctx *m, const json_t *a, const char **why)
{
	const char *tool = sget(a, "tool"), *action = sget(a, "action");
	*why = NULL;
	if (tool && !strcmp(tool, "qa_visual") && action && !strcmp(action, "visualCheck")) {
		json_t *st = base_step("visualCheck", a);
		json_object_set_new(st, "label",
		                    json_string(sget(a, "assertion") ? sget(a, "assertion") : "visual check"));
		if (sget(a, "screenshotUri"))
			json_object_set_new(st, "evidence", json_string(sget(a, "screenshotUri")));
		return st;
	}
	if (tool && strcmp(tool, "qa_act") != 0 && strcmp(tool, "qa_smoke") != 0) {
		*why = "not a qa_act or qa_smoke action";
		return NULL;
	}
	if (!action) {
		*why = "no action name";
		return NULL;
	}
	if (sget(a, "failureCode")) {
		*why = "the action failed when it was recorded";
		return NULL;
	}
	json_t *st = NULL;
	if (!strcmp(action, "tap") || !strcmp(action, "type") || !strcmp(action, "clear")) {
		st = base_step(action, a);
		if (!set_locator(st, a)) {
			json_decref(st);
			*why = "the target has no id, text or point (a snapshot ref does not replay)";
			return NULL;
		}
		if (!strcmp(action, "type"))
			typed_text(m, a, st);
		if (json_is_true(json_object_get(a, "submit")))
			json_object_set_new(st, "submit", json_true());
	} else if (!strcmp(action, "swipe") || !strcmp(action, "scroll")) {
		const char *dir = sget(a, "direction");
		if (!dir) {
			*why = "no direction";
			return NULL;
		}
		st = base_step(action, a);
		json_object_set_new(st, "direction", json_string(dir));
		json_t *until = json_object_get(a, "untilVisible");
		if (!strcmp(action, "scroll") && json_is_object(until)) {
			const char *q = NULL;
			json_t *loc = locator_of(NULL, until, NULL, &q);
			if (loc && strcmp(json_string_value(json_object_get(loc, "strategy")), "coordinates") != 0) {
				json_object_set_new(st, "untilVisible", loc);
				if (sget(until, "text"))
					json_object_set_new(st, "label", json_string(sget(until, "text")));
			} else {
				json_decref(loc);
				json_object_set_new(st, "untilVisible", json_null());
			}
			json_object_set_new(
			    st, "maxScrolls",
			    json_integer(json_is_number(json_object_get(a, "maxScrolls"))
			                     ? (json_int_t)json_number_value(json_object_get(a, "maxScrolls"))
			                     : 8));
		}
	} else if (!strcmp(action, "press")) {
		const char *key = sget(a, "key");
		if (!key) {
			*why = "no key";
			return NULL;
		}
		st = base_step(!strcmp(key, "back") ? "back" : "key", a);
		json_object_set_new(st, "key", json_string(key));
	} else if (!strcmp(action, "open_url")) {
		const char *url = sget(a, "url");
		if (!url) {
			*why = "no url";
			return NULL;
		}
		st = base_step("openUrl", a);
		json_object_set_new(st, "url", json_string(url));
	} else if (!strcmp(action, "wait") && json_is_boolean(json_object_get(a, "satisfied")) &&
	           json_is_object(json_object_get(a, "for"))) {
		return assertion_of(a, why);
	} else if (!strcmp(action, "wait")) {
		st = base_step("wait", a);
		json_t *f = json_object_get(a, "for");
		if (json_is_object(f) && (sget(f, "text") || sget(f, "id"))) {
			const char *q = NULL;
			json_t *loc = locator_of(NULL, f, NULL, &q);
			if (loc)
				json_object_set_new(st, "untilVisible", loc);
			if (sget(f, "text"))
				json_object_set_new(st, "label", json_string(sget(f, "text")));
		}
	} else {
		*why = "an action generation does not know";
		return NULL;
	}
	return st;
}

int sw__gen_model(const json_t *recorded, const char *app_id, const char *platform, json_t **model_out, sw_error **err)
{
	model_ctx m = {0, 0, json_array()};
	json_t *steps = json_array(), *skipped = json_array();
	size_t i, used = 0;
	json_int_t first_seq = 0;
	json_t *a;
	json_array_foreach(recorded, i, a)
	{
		if (!json_is_object(a))
			continue;
		if (!first_seq)
			first_seq = json_integer_value(json_object_get(a, "seq"));
		const char *why = NULL;
		json_t *st = step_of(&m, a, &why);
		if (st && !json_object_get(st, "screen") && json_array_size(steps) &&
		    sget(json_array_get(steps, json_array_size(steps) - 1), "screen"))
			/* a flow run's assertion names no screen: it checked the one the run was on */
			json_object_set(st, "screen",
			                json_object_get(json_array_get(steps, json_array_size(steps) - 1), "screen"));
		if (st) {
			json_array_append_new(steps, st);
			used++;
		} else {
			json_t *sk = json_pack("{si,ss}", "index", (int)i, "reason", why ? why : "unknown");
			if (sget(a, "action"))
				json_object_set_new(sk, "action", json_string(sget(a, "action")));
			json_array_append_new(skipped, sk);
		}
	}
	/* "platform" only when the session's device said it: the appium target's platform rule reads its absence */
	json_t *model = json_pack("{ss,ss*,so,so,so,si,sI}", "appId", app_id ? app_id : "", "platform",
	                          platform && *platform ? platform : NULL, "steps", steps, "skipped", skipped,
	                          "variables", m.variables, "recorded", (int)json_array_size(recorded),
	                          "droppedBeforeRecording", first_seq > 1 ? first_seq - 1 : (json_int_t)0);
	if (!model)
		return sw__error_nomem(err);
	*model_out = model;
	return SW_OK;
}
