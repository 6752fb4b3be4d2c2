/* appium-py.c: the Appium Python suite (pytest or unittest) under .swipium/automation/python/, and ci.example.yml. */
#include "appium-internal.h"

#include <string.h>

/*
 * Every Python file starts with two fixed comment lines: Python reads a coding declaration only on lines 1
 * and 2, so a recorded label (which comes later) can never change how the file is decoded.
 */
#define PY_HEADER(b, file, what)                                                                                       \
	sw__buf_printf((b),                                                                                            \
	               "# %s: %s\n# Written by swipium qa_generate; recorded text is data in strings and comments.\n", \
	               (file), (what))

static char *buf_done(sw_buf *b)
{
	if (b->failed) {
		sw__buf_free(b);
		return NULL;
	}
	return sw__buf_steal(b, NULL);
}

static int add_template(json_t *files, const char *rel, const char *name, sw_error **err)
{
	const char *text = sw__ap_template(name);
	if (!text)
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "the Appium template %s is missing from this build",
		                     name);
	return sw__ap_add_file(files, AP_PY_ROOT, rel, sw__strdup(text), err);
}

/* A docstring body for a reader: long text cut like a comment's (head and tail kept). */
static void docstring(sw_buf *b, const char *text)
{
	size_t len = strlen(text), units = sw__utf8_valid(text, len) ? sw__utf16_len(text, len) : len;
	char *cut = units > AP_COMMENT_MAX ? sw__utf8_cap(text, len, AP_COMMENT_MAX, 0) : NULL;
	if (units > AP_COMMENT_MAX && !cut) {
		b->failed = true;
		return;
	}
	sw__cg_py_docstring_text(b, cut ? cut : text);
	if (cut)
		sw__buf_printf(b, " [cut to %d of %zu characters]", AP_COMMENT_MAX, units);
	free(cut);
}

static char *simple(const char *file, const char *what)
{
	sw_buf b = SW_BUF_INIT;
	PY_HEADER(&b, file, what);
	return buf_done(&b);
}

static char *recorded_file(const ap_suite *s)
{
	sw_buf b = SW_BUF_INIT;
	PY_HEADER(&b, "recorded.py", "what swipium recorded, as data.");
	sw__buf_puts(&b, "RECORDED_APP_ID = ");
	sw__ap_lit(s, &b, s->app_id ? s->app_id : "");
	sw__buf_puts(&b, "\nRECORDED_PLATFORM = ");
	sw__ap_lit(s, &b, s->recorded);
	sw__buf_puts(&b, "\n# The platform when SWIPIUM_PLATFORM is not set (chosen from: ");
	sw__cg_py_comment(&b, s->platform_source);
	sw__buf_puts(&b, ").\nDEFAULT_PLATFORM = ");
	sw__ap_lit(s, &b, s->primary);
	sw__buf_putc(&b, '\n');
	return buf_done(&b);
}

static char *screen_file(const ap_suite *s, const ap_screen *sc)
{
	sw_buf b = SW_BUF_INIT;
	char file[96];
	snprintf(file, sizeof(file), "%s.py", sc->module);
	PY_HEADER(&b, file, "the locators of one recorded screen.");
	sw__buf_puts(&b, "from swipium_support.actions import Locator\n\n\n");
	sw__buf_printf(&b, "class %s:\n    \"\"\"Screen ", sc->cls);
	docstring(&b, sc->raw);
	sw__buf_puts(&b, " (recorded name).\"\"\"\n");
	for (size_t i = 0; i < sc->n; i++) {
		const ap_elem *e = &sc->elems[i];
		sw__buf_printf(&b, "\n    # %s locator", e->quality);
		if (e->label && *e->label) {
			sw__buf_puts(&b, ", label ");
			sw__ap_comment(s, &b, e->label);
		}
		sw__buf_putc(&b, '\n');
		if (!strcmp(e->quality, "brittle"))
			sw__buf_puts(&b, "    # Fix in the app: give this element a resource-id (Android) or an "
			                 "accessibilityIdentifier\n"
			                 "    # (iOS); a screen coordinate breaks on another screen size.\n");
		else if (!strcmp(e->quality, "semi"))
			sw__buf_puts(&b, "    # Fix in the app: a resource-id or accessibility id survives copy "
			                 "changes and translations.\n");
		sw__buf_printf(&b, "    %s = Locator(", e->member);
		sw__ap_lit(s, &b, e->strategy);
		sw__buf_puts(&b, ", ");
		sw__ap_lit(s, &b, e->value ? e->value : "");
		if (!e->value)
			sw__buf_printf(&b, ", %ld, %ld", e->x, e->y);
		sw__buf_puts(&b, ")\n");
	}
	return buf_done(&b);
}

static void imports(const ap_suite *s, sw_buf *b)
{
	bool env_or = false, require_env = false;
	for (size_t i = 0; i < s->nsteps; i++) {
		const ap_step *st = &s->steps[i];
		if (strcmp(st->kind, "type"))
			continue;
		env_or = env_or || st->data_var;
		for (size_t j = 0; j < st->npieces; j++)
			require_env = require_env || st->pieces[j].is_var;
	}
	for (size_t i = 0; i < s->nscreens; i++) {
		if (s->screens[i].referenced)
			sw__buf_printf(b, "from screens.%s import %s\n", s->screens[i].module, s->screens[i].cls);
	}
	sw__buf_puts(b, "from swipium_support import actions\n");
	if (env_or || require_env)
		sw__buf_printf(b, "from swipium_support.env import %s%s%s\n", env_or ? "env_or" : "",
		               env_or && require_env ? ", " : "", require_env ? "require_env" : "");
}

static void title_docstring(const ap_suite *s, sw_buf *b, const char *indent)
{
	sw__buf_printf(b, "%s\"\"\"The recorded run of ", indent);
	docstring(b, s->title);
	sw__buf_puts(b, ", step by step.\"\"\"\n");
}

static char *test_file(const ap_suite *s)
{
	sw_buf b = SW_BUF_INIT;
	PY_HEADER(&b, "test_smoke.py", "the recorded run, step by step; secrets come from the environment.");
	if (!s->pytest)
		sw__buf_puts(&b, "import unittest\n\n");
	imports(s, &b);
	if (!s->pytest)
		sw__buf_puts(&b, "from swipium_support.session import start_driver\n");
	sw__buf_puts(&b, "\n\n");
	if (s->pytest) {
		sw__buf_puts(&b, "def test_recorded_run(driver):\n");
		title_docstring(s, &b, "    ");
		sw__ap_emit_steps(s, &b, "    ");
	} else {
		sw__buf_puts(&b, "class RecordedRunTest(unittest.TestCase):\n");
		title_docstring(s, &b, "    ");
		sw__buf_puts(&b, "\n    def setUp(self):\n        self.driver = start_driver()\n"
		                 "        self.addCleanup(self.driver.quit)\n\n    def test_recorded_run(self):\n"
		                 "        driver = self.driver\n");
		sw__ap_emit_steps(s, &b, "        ");
		sw__buf_puts(&b, "        del driver\n");
	}
	if (!s->pytest)
		sw__buf_puts(&b, "\n\nif __name__ == \"__main__\":\n    unittest.main()\n");
	return buf_done(&b);
}

int sw__ap_emit_py(const ap_suite *s, json_t *files, sw_error **err)
{
	char rel[256];
	int rc;
	const char *reqs = s->pytest ? "Appium-Python-Client>=2.0\nselenium>=4.0\npytest>=7.0\n"
	                             : "Appium-Python-Client>=2.0\nselenium>=4.0\n";
	if ((rc = sw__ap_add_file(files, AP_PY_ROOT, "requirements.txt", sw__strdup(reqs), err)) < 0)
		return rc;
	if ((rc = sw__ap_add_file(files, AP_PY_ROOT, "swipium_support/__init__.py",
	                          simple("swipium_support", "the helpers the recorded test calls."), err)) < 0)
		return rc;
	static const char *const support[] = {"env.py", "capabilities.py", "actions.py", "session.py"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(support); i++) {
		snprintf(rel, sizeof(rel), "swipium_support/%s", support[i]);
		if ((rc = add_template(files, rel, support[i], err)) < 0)
			return rc;
	}
	if ((rc = sw__ap_add_file(files, AP_PY_ROOT, "swipium_support/recorded.py", recorded_file(s), err)) < 0)
		return rc;
	if ((rc = sw__ap_add_file(files, AP_PY_ROOT, "screens/__init__.py",
	                          simple("screens", "one screen object per recorded screen."), err)) < 0)
		return rc;
	for (size_t i = 0; i < s->nscreens; i++) {
		snprintf(rel, sizeof(rel), "screens/%s.py", s->screens[i].module);
		if ((rc = sw__ap_add_file(files, AP_PY_ROOT, rel, screen_file(s, &s->screens[i]), err)) < 0)
			return rc;
	}
	if (s->pytest && (rc = add_template(files, "conftest.py", "conftest.py", err)) < 0)
		return rc;
	if ((rc = sw__ap_add_file(files, AP_PY_ROOT, "tests/__init__.py", simple("tests", "the recorded runs."), err)) <
	    0)
		return rc;
	return sw__ap_add_file(files, AP_PY_ROOT, "tests/test_smoke.py", test_file(s), err);
}

/* ---- ci.example.yml ----------------------------------------------------------- */

/* The environment variables the suite reads for `${VAR}` placeholders, once each, in step order. */
static json_t *placeholder_vars(const ap_suite *s)
{
	json_t *seen = json_array();
	for (size_t i = 0; seen && i < s->nsteps; i++)
		for (size_t j = 0; j < s->steps[i].npieces; j++) {
			if (!s->steps[i].pieces[j].is_var)
				continue;
			const char *v = s->steps[i].pieces[j].text;
			bool dup = false;
			size_t k;
			json_t *x;
			json_array_foreach(seen, k, x) dup = dup || !strcmp(json_string_value(x), v);
			if (!dup)
				json_array_append_new(seen, json_string(v));
		}
	return seen;
}

static void ci_job(const ap_suite *s, sw_buf *b, const char *platform, json_t *vars)
{
	bool ios = !strcmp(platform, "ios");
	const char *dir = s->python ? AP_PY_ROOT : AP_JS_ROOT;
	sw__buf_printf(b,
	               "  smoke-%s:\n    runs-on: %s\n    env:\n      SWIPIUM_PLATFORM: %s\n"
	               "      SWIPIUM_NO_RESET: \"false\"\n      APPIUM_HOST: 127.0.0.1\n",
	               platform, ios ? "macos-latest" : "ubuntu-latest", platform);
	if (ios)
		sw__buf_puts(b, "      IOS_APP: ${{ github.workspace }}/build/App.app\n"
		                "      IOS_DEVICE_NAME: iPhone 15\n");
	else
		sw__buf_puts(b,
		             "      ANDROID_APP: ${{ github.workspace }}/app/build/outputs/apk/debug/app-debug.apk\n");
	size_t i;
	json_t *v;
	/* Names checked by split_value ([A-Za-z_][A-Za-z0-9_]*): safe as YAML keys and in ${{ }}. */
	json_array_foreach(vars, i, v)
	    sw__buf_printf(b, "      %s: ${{ secrets.%s }}\n", json_string_value(v), json_string_value(v));
	sw__buf_puts(b, "    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n"
	                "        with:\n          node-version: 20\n");
	sw__buf_printf(b,
	               "      - name: Install Appium and its %s driver\n        run: |\n"
	               "          npm install -g appium\n          appium driver install %s\n",
	               ios ? "XCUITest" : "UiAutomator2", ios ? "xcuitest" : "uiautomator2");
	if (s->python)
		sw__buf_printf(
		    b,
		    "      - uses: actions/setup-python@v5\n        with:\n          python-version: \"3.11\"\n"
		    "      - name: Install the suite\n        working-directory: %s\n"
		    "        run: python -m pip install -r requirements.txt\n",
		    dir);
	else
		sw__buf_printf(
		    b, "      - name: Install the suite\n        working-directory: %s\n        run: npm install\n",
		    dir);
	sw__buf_puts(b, "      - name: Start Appium\n        run: nohup appium --log appium.log > /dev/null 2>&1 &\n");
	const char *run =
	    s->python ? (s->pytest ? "python -m pytest -q" : "python -m unittest discover -s tests -t .") : "npm test";
	if (ios)
		sw__buf_printf(b,
		               "      - name: Boot a simulator\n        run: xcrun simctl boot \"$IOS_DEVICE_NAME\"\n"
		               "      - name: Run the smoke suite\n        working-directory: %s\n        run: %s\n",
		               dir, run);
	else
		sw__buf_printf(b,
		               "      - name: Run the smoke suite on an emulator\n"
		               "        uses: reactivecircus/android-emulator-runner@v2\n        with:\n"
		               "          api-level: 34\n          arch: x86_64\n          working-directory: %s\n"
		               "          script: %s\n",
		               dir, run);
	sw__buf_puts(
	    b, "      - name: Keep the Appium log\n        if: always()\n        uses: actions/upload-artifact@v4\n"
	       "        with:\n          name: appium-log-");
	sw__buf_puts(b, platform);
	sw__buf_puts(b, "\n          path: appium.log\n");
}

char *sw__ap_ci_example(const ap_suite *s)
{
	json_t *vars = placeholder_vars(s);
	if (!vars)
		return NULL;
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b,
	             "# ci.example.yml: a GitHub Actions job that runs this suite (written by swipium qa_generate).\n"
	             "# Copy it to .github/workflows/, point ANDROID_APP / IOS_APP at your build, and add the\n"
	             "# repository secrets it names: the suite reads every secret from the environment.\n"
	             "name: appium-smoke\non:\n  workflow_dispatch:\njobs:\n");
	bool android = s->both || !strcmp(s->primary, "android");
	bool ios = s->both || !strcmp(s->primary, "ios");
	if (android)
		ci_job(s, &b, "android", vars);
	if (ios)
		ci_job(s, &b, "ios", vars);
	json_decref(vars);
	return buf_done(&b);
}
