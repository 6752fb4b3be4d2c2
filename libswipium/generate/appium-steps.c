/* appium-steps.c: each resolved step as one call of the suite's actions module (TypeScript/JavaScript or Python). */
#include "appium-internal.h"

#include <string.h>

void sw__ap_lit(const ap_suite *s, sw_buf *b, const char *text)
{
	if (s->python)
		sw__cg_py_string(b, text ? text : "");
	else
		sw__cg_js_string(b, text ? text : "", '\'');
}

void sw__ap_comment(const ap_suite *s, sw_buf *b, const char *text)
{
	/* A comment is for a reader: a paragraph-long label is cut (head and tail kept) and says so. */
	const char *t = text ? text : "";
	size_t len = strlen(t), units = sw__utf8_valid(t, len) ? sw__utf16_len(t, len) : len;
	char *cut = units > AP_COMMENT_MAX ? sw__utf8_cap(t, len, AP_COMMENT_MAX, 0) : NULL;
	if (units > AP_COMMENT_MAX && !cut) {
		b->failed = true;
		return;
	}
	if (s->python)
		sw__cg_py_comment(b, cut ? cut : t);
	else
		sw__cg_js_line_comment(b, cut ? cut : t);
	if (cut)
		sw__buf_printf(b, " [cut to %d of %zu characters]", AP_COMMENT_MAX, units);
	free(cut);
}

/* The element reference Screen.member, or the language's null. */
static void elem_ref(const ap_suite *s, sw_buf *b, const ap_step *st, long elem)
{
	if (elem < 0) {
		sw__buf_puts(b, s->python ? "None" : "null");
		return;
	}
	const ap_screen *sc = &s->screens[st->screen];
	sw__buf_printf(b, "%s.%s", sc->cls, sc->elems[elem].member);
}

/* The typed value: envOr(DATA_VAR, 'recorded') for plain data, else literals and requireEnv('VAR') joined. */
static void value_expr(const ap_suite *s, sw_buf *b, const ap_step *st)
{
	const char *env_or = s->python ? "env_or" : "envOr";
	const char *require = s->python ? "require_env" : "requireEnv";
	if (st->data_var) {
		sw_buf lit = SW_BUF_INIT;
		for (size_t i = 0; i < st->npieces; i++)
			sw__buf_puts(&lit, st->pieces[i].text);
		sw__buf_printf(b, "%s(", env_or);
		sw__ap_lit(s, b, st->data_var);
		sw__buf_puts(b, ", ");
		sw__ap_lit(s, b, lit.data ? lit.data : "");
		sw__buf_putc(b, ')');
		if (lit.failed)
			b->failed = true;
		sw__buf_free(&lit);
		return;
	}
	if (st->npieces == 0) {
		sw__ap_lit(s, b, "");
		return;
	}
	for (size_t i = 0; i < st->npieces; i++) {
		if (i)
			sw__buf_puts(b, " + ");
		if (st->pieces[i].is_var) {
			sw__buf_printf(b, "%s(", require);
			sw__ap_lit(s, b, st->pieces[i].text);
			sw__buf_putc(b, ')');
		} else {
			sw__ap_lit(s, b, st->pieces[i].text);
		}
	}
}

/* "await tap(" in TypeScript/JavaScript, "actions.tap(driver, " in Python. */
static void call(const ap_suite *s, sw_buf *b, const char *indent, const char *js, const char *py, bool args)
{
	if (s->python)
		sw__buf_printf(b, "%sactions.%s(driver%s", indent, py, args ? ", " : "");
	else
		sw__buf_printf(b, "%sawait %s(", indent, js);
}

static void end_call(const ap_suite *s, sw_buf *b)
{
	sw__buf_puts(b, s->python ? ")\n" : ");\n");
}

static void step_comment(const ap_suite *s, sw_buf *b, const char *indent, size_t i, const ap_step *st)
{
	const ap_screen *sc = &s->screens[st->screen];
	const char *label = json_string_value(json_object_get(st->json, "label"));
	sw__buf_printf(b, "%s%s Step %zu: %s on screen ", indent, s->python ? "#" : "//", i + 1, st->kind);
	sw__ap_comment(s, b, sc->raw);
	if (label && *label) {
		sw__buf_puts(b, ", label ");
		sw__ap_comment(s, b, label);
	}
	sw__buf_putc(b, '\n');
}

void sw__ap_emit_steps(const ap_suite *s, sw_buf *b, const char *indent)
{
	for (size_t i = 0; i < s->nsteps; i++) {
		const ap_step *st = &s->steps[i];
		const char *k = st->kind;
		if (!strcmp(k, "visualCheck")) {
			/* Never a text assertion: a person looks at the screen. */
			const char *label = json_string_value(json_object_get(st->json, "label"));
			sw__buf_printf(b, "%s%s Step %zu: TODO(manual visual check, not automated): compare screen ",
			               indent, s->python ? "#" : "//", i + 1);
			sw__ap_comment(s, b, s->screens[st->screen].raw);
			if (label && *label) {
				sw__buf_puts(b, ", checkpoint ");
				sw__ap_comment(s, b, label);
			}
			sw__buf_puts(b, " with its approved baseline by eye.\n");
			continue;
		}
		step_comment(s, b, indent, i, st);
		if (!strcmp(k, "tap")) {
			call(s, b, indent, "tap", "tap", true);
			elem_ref(s, b, st, st->elem);
		} else if (!strcmp(k, "type")) {
			call(s, b, indent, "typeInto", "type_into", true);
			elem_ref(s, b, st, st->elem);
			sw__buf_puts(b, ", ");
			value_expr(s, b, st);
			if (st->submit) {
				end_call(s, b);
				call(s, b, indent, "pressKey", "press_key", true);
				sw__ap_lit(s, b, "enter");
			}
		} else if (!strcmp(k, "openUrl")) {
			call(s, b, indent, "openUrl", "open_url", true);
			sw__ap_lit(s, b, st->url);
		} else if (!strcmp(k, "clear")) {
			call(s, b, indent, "clear", "clear", true);
			elem_ref(s, b, st, st->elem);
		} else if (!strcmp(k, "swipe")) {
			call(s, b, indent, "swipe", "swipe", true);
			sw__ap_lit(s, b, st->direction);
			sw__buf_puts(b, ", ");
			elem_ref(s, b, st, st->elem);
		} else if (!strcmp(k, "scroll")) {
			if (st->until >= 0) {
				call(s, b, indent, "scrollUntilVisible", "scroll_until_visible", true);
				elem_ref(s, b, st, st->until);
				sw__buf_puts(b, ", ");
				sw__ap_lit(s, b, st->direction);
				sw__buf_printf(b, ", %ld", st->max_scrolls);
			} else {
				call(s, b, indent, "scroll", "scroll", true);
				sw__ap_lit(s, b, st->direction);
			}
		} else if (!strcmp(k, "back")) {
			call(s, b, indent, "back", "back", false);
		} else if (!strcmp(k, "key")) {
			call(s, b, indent, "pressKey", "press_key", true);
			sw__ap_lit(s, b, st->key);
		} else if (!strcmp(k, "launch")) {
			call(s, b, indent, "launchApp", "launch_app", false);
		} else if (!strcmp(k, "wait")) {
			if (st->elem >= 0) {
				call(s, b, indent, "waitFor", "wait_for", true);
				elem_ref(s, b, st, st->elem);
				sw__buf_printf(b, ", %ld", st->wait_ms);
			} else if (s->python) {
				sw__buf_printf(b, "%sactions.pause(%ld", indent, st->wait_ms);
			} else {
				sw__buf_printf(b, "%sawait pause(%ld", indent, st->wait_ms);
			}
		} else { /* assertText: resolve_steps admitted nothing else */
			if (st->elem >= 0 && strcmp(s->screens[st->screen].elems[st->elem].strategy, "text")) {
				call(s, b, indent, "assertElementText", "assert_element_text", true);
				elem_ref(s, b, st, st->elem);
				sw__buf_puts(b, ", ");
			} else {
				call(s, b, indent, "assertTextVisible", "assert_text_visible", true);
			}
			sw__ap_lit(s, b, st->expected);
		}
		end_call(s, b);
	}
}
