/* appium-js.c: the WebdriverIO suite (TypeScript or JavaScript) under .swipium/automation/js/. */
#include "appium-internal.h"

#include <string.h>

static int add_template(json_t *files, const char *rel, const char *name, sw_error **err)
{
	const char *text = sw__ap_template(name);
	if (!text)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "the Appium template %s is missing from this build",
		                     name);
	return sw__ap_add_file(files, AP_JS_ROOT, rel, sw__strdup(text), err);
}

static char *buf_done(sw_buf *b)
{
	if (b->failed) {
		sw__buf_free(b);
		return NULL;
	}
	return sw__buf_steal(b, NULL);
}

static char *recorded_file(const ap_suite *s, const char *ext)
{
	sw_buf b = SW_BUF_INIT;
	const char *recorded = s->recorded;
	sw__buf_printf(&b,
	               "// recorded.%s: what swipium recorded, as data (written by swipium qa_generate).\n"
	               "// The app id comes from the device: it is a string here, never code.\n",
	               ext);
	sw__buf_puts(&b, "export const RECORDED_APP_ID = ");
	sw__ap_lit(s, &b, s->app_id ? s->app_id : "");
	sw__buf_puts(&b, ";\n");
	sw__buf_printf(&b, "export const RECORDED_PLATFORM%s = ", s->typescript ? ": string" : "");
	sw__ap_lit(s, &b, recorded);
	sw__buf_puts(&b, ";\n/** The platform when SWIPIUM_PLATFORM is not set (chosen from: ");
	sw__cg_js_block_comment(&b, s->platform_source);
	sw__buf_puts(&b, "). */\nexport const DEFAULT_PLATFORM = ");
	sw__ap_lit(s, &b, s->primary);
	sw__buf_puts(&b, ";\n");
	return buf_done(&b);
}

static char *screen_file(const ap_suite *s, const ap_screen *sc, const char *ext)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_printf(&b, "// %s.%s: the locators of one recorded screen (written by swipium qa_generate).\n",
	               sc->module, ext);
	sw__buf_puts(&b, "// Screen: ");
	sw__ap_comment(s, &b, sc->raw);
	sw__buf_puts(&b, "\n// Labels and ids are recorded screen text: they appear only in strings and comments.\n");
	sw__buf_puts(&b, "import { locator } from '../support/actions.js';\n\n");
	sw__buf_printf(&b, "export class %s {\n", sc->cls);
	for (size_t i = 0; i < sc->n; i++) {
		const ap_elem *e = &sc->elems[i];
		sw__buf_printf(&b, "  // %s locator", e->quality);
		if (e->label && *e->label) {
			sw__buf_puts(&b, ", label ");
			sw__ap_comment(s, &b, e->label);
		}
		sw__buf_putc(&b, '\n');
		if (!strcmp(e->quality, "brittle"))
			sw__buf_puts(
			    &b, "  // Fix in the app: give this element a resource-id (Android) or an "
			        "accessibilityIdentifier (iOS); a screen coordinate breaks on another screen size.\n");
		else if (!strcmp(e->quality, "semi"))
			sw__buf_puts(&b,
			             "  // Fix in the app: a resource-id or accessibility id survives copy changes and "
			             "translations; this locator matches the visible text.\n");
		/* JavaScript has no readonly: a static field (ES2022) there. */
		sw__buf_printf(&b, "  %s%s = locator(", s->typescript ? "static readonly " : "static ", e->member);
		sw__ap_lit(s, &b, e->strategy);
		sw__buf_puts(&b, ", ");
		sw__ap_lit(s, &b, e->value ? e->value : "");
		if (!e->value)
			sw__buf_printf(&b, ", %ld, %ld", e->x, e->y);
		sw__buf_puts(&b, ");\n");
	}
	sw__buf_puts(&b, "}\n");
	return buf_done(&b);
}

static char *spec_file(const ap_suite *s, const char *ext)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_printf(&b, "// smoke.e2e.%s: the recorded run, step by step (written by swipium qa_generate).\n", ext);
	sw__buf_puts(&b,
	             "// Recorded labels appear only in strings and comments; secrets come from the environment.\n");
	/* Only the helpers this run calls, in a stable order. */
	static const char *const helpers[] = {"assertElementText",
	                                      "assertTextVisible",
	                                      "back",
	                                      "clear",
	                                      "launchApp",
	                                      "openUrl",
	                                      "pause",
	                                      "pressKey",
	                                      "scroll",
	                                      "scrollUntilVisible",
	                                      "swipe",
	                                      "tap",
	                                      "typeInto",
	                                      "waitFor"};
	bool used[SW_ARRAY_SIZE(helpers)] = {false};
	bool env_or = false, require_env = false;
	for (size_t i = 0; i < s->nsteps; i++) {
		const ap_step *st = &s->steps[i];
		const char *k = st->kind, *h = NULL;
		if (!strcmp(k, "tap"))
			h = "tap";
		else if (!strcmp(k, "type"))
			h = "typeInto";
		else if (!strcmp(k, "clear"))
			h = "clear";
		else if (!strcmp(k, "swipe"))
			h = "swipe";
		else if (!strcmp(k, "scroll"))
			h = st->until >= 0 ? "scrollUntilVisible" : "scroll";
		else if (!strcmp(k, "back"))
			h = "back";
		else if (!strcmp(k, "key"))
			h = "pressKey";
		else if (!strcmp(k, "launch"))
			h = "launchApp";
		else if (!strcmp(k, "openUrl"))
			h = "openUrl";
		else if (!strcmp(k, "wait"))
			h = st->elem >= 0 ? "waitFor" : "pause";
		else if (!strcmp(k, "assertText"))
			h = st->elem >= 0 && strcmp(s->screens[st->screen].elems[st->elem].strategy, "text")
			        ? "assertElementText"
			        : "assertTextVisible";
		for (size_t j = 0; h && j < SW_ARRAY_SIZE(helpers); j++)
			if (!strcmp(helpers[j], h))
				used[j] = true;
		for (size_t j = 0; !strcmp(k, "type") && st->submit && j < SW_ARRAY_SIZE(helpers); j++)
			if (!strcmp(helpers[j], "pressKey")) /* a submitted field presses enter */
				used[j] = true;
		if (!strcmp(k, "type")) {
			env_or = env_or || st->data_var;
			for (size_t j = 0; j < st->npieces; j++)
				require_env = require_env || st->pieces[j].is_var;
		}
	}
	bool any = false;
	for (size_t j = 0; j < SW_ARRAY_SIZE(helpers); j++)
		if (used[j]) {
			sw__buf_printf(&b, "%s%s", any ? ", " : "import { ", helpers[j]);
			any = true;
		}
	if (any)
		sw__buf_puts(&b, " } from '../support/actions.js';\n");
	if (env_or || require_env)
		sw__buf_printf(&b, "import { %s%s%s } from '../support/env.js';\n", env_or ? "envOr" : "",
		               env_or && require_env ? ", " : "", require_env ? "requireEnv" : "");
	for (size_t i = 0; i < s->nscreens; i++) {
		if (s->screens[i].referenced)
			sw__buf_printf(&b, "import { %s } from '../screens/%s.js';\n", s->screens[i].cls,
			               s->screens[i].module);
	}
	sw__buf_putc(&b, '\n');
	sw__buf_puts(&b, "describe(");
	sw__ap_lit(s, &b, s->title);
	sw__buf_puts(&b, ", () => {\n  it('replays the recorded steps', async () => {\n");
	sw__ap_emit_steps(s, &b, "    ");
	sw__buf_puts(&b, "  });\n});\n");
	return buf_done(&b);
}

static char *package_json(const ap_suite *s)
{
	json_t *dev =
	    json_pack("{s:s, s:s, s:s, s:s, s:s}", "@wdio/cli", "^9.0.0", "@wdio/local-runner", "^9.0.0",
	              "@wdio/mocha-framework", "^9.0.0", "@wdio/spec-reporter", "^9.0.0", "webdriverio", "^9.0.0");
	if (dev && s->typescript) {
		json_object_set_new(dev, "typescript", json_string("^5.4.0"));
		json_object_set_new(dev, "@types/node", json_string("^20.0.0"));
	}
	json_t *pkg =
	    dev ? json_pack("{s:s, s:b, s:s, s:s, s:{s:s, s:s}, s:o}", "name", s->package_name, "private", 1,
	                    "description", "Appium smoke suite generated by swipium qa_generate", "type", "module",
	                    "scripts", "test", s->typescript ? "wdio run ./wdio.conf.ts" : "wdio run ./wdio.conf.js",
	                    "typecheck", s->typescript ? "tsc --noEmit -p ." : "node --check wdio.conf.js",
	                    "devDependencies", dev)
	        : NULL;
	char *text = pkg ? sw__json_pretty(pkg) : NULL;
	json_decref(pkg);
	char *out = text ? sw__asprintf("%s\n", text) : NULL;
	free(text);
	return out;
}

int sw__ap_emit_js(const ap_suite *s, json_t *files, sw_error **err)
{
	const char *ext = s->typescript ? "ts" : "js";
	char rel[256], tpl[64];
	int rc;
	if ((rc = sw__ap_add_file(files, AP_JS_ROOT, "package.json", package_json(s), err)) < 0)
		return rc;
	if (s->typescript && (rc = add_template(files, "tsconfig.json", "tsconfig.json", err)) < 0)
		return rc;
	snprintf(rel, sizeof(rel), "wdio.conf.%s", ext);
	if ((rc = add_template(files, rel, rel, err)) < 0)
		return rc;
	static const char *const support[] = {"env", "capabilities", "actions"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(support); i++) {
		snprintf(rel, sizeof(rel), "support/%s.%s", support[i], ext);
		snprintf(tpl, sizeof(tpl), "%s.%s", support[i], ext);
		if ((rc = add_template(files, rel, tpl, err)) < 0)
			return rc;
	}
	snprintf(rel, sizeof(rel), "support/recorded.%s", ext);
	if ((rc = sw__ap_add_file(files, AP_JS_ROOT, rel, recorded_file(s, ext), err)) < 0)
		return rc;
	for (size_t i = 0; i < s->nscreens; i++) {
		snprintf(rel, sizeof(rel), "screens/%s.%s", s->screens[i].module, ext);
		if ((rc = sw__ap_add_file(files, AP_JS_ROOT, rel, screen_file(s, &s->screens[i], ext), err)) < 0)
			return rc;
	}
	snprintf(rel, sizeof(rel), "specs/smoke.e2e.%s", ext);
	return sw__ap_add_file(files, AP_JS_ROOT, rel, spec_file(s, ext), err);
}
