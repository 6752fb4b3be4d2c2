/* check-flows.c: unit tests of Flow V2: the corpus in tests/data/flows, limits, and the runner over a scripted device.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sw-internal.h"
#include "../../libswipium/flows/flow-internal.h"

/* ---- helpers ------------------------------------------------------------------ */

static char tmp[256];

static void mk_tmp(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/check-flows-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	char *real = realpath(tmp, NULL);
	snprintf(tmp, sizeof(tmp), "%s", real);
	free(real);
}

static void rm_tmp(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *rel, const char *text)
{
	char p[512], dir[512];
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	snprintf(dir, sizeof(dir), "%s", p);
	*strrchr(dir, '/') = '\0';
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *read_all(const char *path)
{
	char *out = NULL;
	size_t len;
	if (sw__read_file(path, 64u << 20, &out, &len, NULL) != SW_OK)
		return NULL;
	return out;
}

/* Runs sw_flow_check; returns the result or NULL with @code set. */
static json_t *check(const char *opts, char code[64], char msg[1024])
{
	char *out = NULL;
	sw_error *err = NULL;
	if (sw_flow_check(opts, &out, &err) != SW_OK) {
		snprintf(code, 64, "%s", sw_error_failure_code(err) ? sw_error_failure_code(err) : "");
		snprintf(msg, 1024, "%s", sw_error_message(err));
		sw_error_free(err);
		return NULL;
	}
	code[0] = msg[0] = '\0';
	json_t *j = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_ptr_nonnull(j);
	return j;
}

static bool has_warning(json_t *res, const char *code)
{
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(res, "warnings"), i,
	                   w) if (!strcmp(json_string_value(json_object_get(w, "code")), code)) return true;
	return false;
}

/* ---- the corpus -------------------------------------------------------------------- */

START_TEST(test_corpus)
{
	const char *src = getenv("SWIPIUM_SOURCE_ROOT");
	ck_assert_ptr_nonnull(src);
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/tests/data/flows", src);
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	struct dirent *de;
	int checked = 0;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 6 || strcmp(de->d_name + n - 5, ".yaml") != 0)
			continue;
		char side[600];
		snprintf(side, sizeof(side), "%s/%.*s.expect.json", dir, (int)(n - 5), de->d_name);
		char *st = read_all(side);
		ck_assert_msg(st != NULL, "%s has no sidecar %s", de->d_name, side);
		json_t *exp = json_loads(st, 0, NULL);
		free(st);
		ck_assert_msg(exp != NULL, "sidecar of %s is not JSON", de->d_name);
		json_t *opts = json_pack("{ss,ss}", "root", dir, "flow", de->d_name);
		if (json_object_get(exp, "platform"))
			json_object_set(opts, "platform", json_object_get(exp, "platform"));
		if (json_object_get(exp, "ci"))
			json_object_set(opts, "ci", json_object_get(exp, "ci"));
		char *oj = json_dumps(opts, 0), code[64], msg[1024];
		json_decref(opts);
		json_t *res = check(oj, code, msg);
		free(oj);
		const char *status = json_string_value(json_object_get(exp, "status"));
		const char *contains = json_string_value(json_object_get(exp, "contains"));
		if (!strcmp(status, "error")) {
			ck_assert_msg(res == NULL, "%s: expected an error, got a result", de->d_name);
			ck_assert_msg(!strcmp(code, json_string_value(json_object_get(exp, "code"))), "%s: code %s",
			              de->d_name, code);
			ck_assert_msg(!contains || strstr(msg, contains), "%s: message \"%s\" lacks \"%s\"", de->d_name,
			              msg, contains);
		} else {
			ck_assert_msg(res != NULL, "%s: unexpected error %s: %s", de->d_name, code, msg);
			bool valid = json_is_true(json_object_get(res, "valid"));
			ck_assert_msg(valid == !strcmp(status, "valid"), "%s: valid=%d", de->d_name, valid);
			json_t *errs = json_object_get(res, "errors");
			if (json_object_get(exp, "errors"))
				ck_assert_msg(json_array_size(errs) ==
				                  (size_t)json_integer_value(json_object_get(exp, "errors")),
				              "%s: %zu errors", de->d_name, json_array_size(errs));
			if (contains) {
				json_t *e0 = json_array_get(errs, 0);
				char full[1200];
				snprintf(full, sizeof(full), "%lld:%lld: %s",
				         (long long)json_integer_value(json_object_get(e0, "line")),
				         (long long)json_integer_value(json_object_get(e0, "column")),
				         json_string_value(json_object_get(e0, "message")));
				ck_assert_msg(strstr(full, contains), "%s: first error \"%s\" lacks \"%s\"", de->d_name,
				              full, contains);
			}
			json_t *ws = json_object_get(exp, "warnings");
			if (json_is_array(ws) && json_array_size(ws) == 0)
				ck_assert_msg(json_array_size(json_object_get(res, "warnings")) == 0,
				              "%s: unexpected warnings", de->d_name);
			size_t i;
			json_t *w;
			json_array_foreach(ws, i, w)
			    ck_assert_msg(has_warning(res, json_string_value(w)), "%s: no %s warning", de->d_name,
			                  json_string_value(w));
			if (json_object_get(exp, "steps"))
				ck_assert_int_eq(json_integer_value(json_object_get(res, "stepCount")),
				                 json_integer_value(json_object_get(exp, "steps")));
			json_t *mv = json_object_get(exp, "missingVariables");
			json_t *ci = json_object_get(res, "ci");
			json_array_foreach(mv, i, w)
			{
				bool found = false;
				size_t j;
				json_t *m;
				json_array_foreach(json_object_get(ci, "missingVariables"), j,
				                   m) if (json_equal(json_object_get(m, "name"), w)) found = true;
				ck_assert_msg(found, "%s: %s not reported missing", de->d_name, json_string_value(w));
			}
			if (json_object_get(exp, "mutationsNotAllowed"))
				ck_assert_int_eq(json_array_size(json_object_get(ci, "mutationsNotAllowed")),
				                 json_integer_value(json_object_get(exp, "mutationsNotAllowed")));
			json_decref(res);
		}
		json_decref(exp);
		checked++;
	}
	closedir(d);
	ck_assert_int_ge(checked, 20);
}
END_TEST

START_TEST(test_ten_megabytes_refused)
{
	mk_tmp();
	size_t n = 10u * 1024u * 1024u + 1;
	char *big = malloc(n + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, '#', n);
	memcpy(big, "name: big\n", 10);
	big[10] = '#';
	big[n] = '\0';
	for (size_t i = 100; i < n; i += 100)
		big[i] = '\n';
	write_file(".swipium/flows/big.yaml", "");
	char p[512];
	snprintf(p, sizeof(p), "%s/.swipium/flows/big.yaml", tmp);
	FILE *f = fopen(p, "w");
	fwrite(big, 1, n, f);
	fclose(f);
	char code[64], msg[1024], *opts = NULL;
	ck_assert_int_gt(asprintf(&opts, "{\"root\":\"%s\",\"flow\":\"big\"}", tmp), 0);
	ck_assert_ptr_null(check(opts, code, msg));
	ck_assert_str_eq(code, "INVALID_FLOW");
	ck_assert_ptr_nonnull(strstr(msg, "refused before parsing"));
	free(opts);
	json_t *o = json_pack("{ss}", "flowYaml", big);
	char *oj = json_dumps(o, 0);
	json_decref(o);
	ck_assert_ptr_null(check(oj, code, msg));
	ck_assert_str_eq(code, "INVALID_FLOW");
	free(oj);
	free(big);
	rm_tmp();
}
END_TEST

START_TEST(test_flow_lookup)
{
	mk_tmp();
	char code[64], msg[1024], *opts = NULL;
	/* neither flow nor flowYaml */
	ck_assert_ptr_null(check("{}", code, msg));
	ck_assert_str_eq(code, "INVALID_ARGUMENT");
	/* missing flow lists the paths checked */
	ck_assert_int_gt(asprintf(&opts, "{\"root\":\"%s\",\"flow\":\"nope\"}", tmp), 0);
	ck_assert_ptr_null(check(opts, code, msg));
	ck_assert_str_eq(code, "FLOW_NOT_FOUND");
	ck_assert_ptr_nonnull(strstr(msg, ".swipium/flows/nope.yaml"));
	free(opts);
	/* a flow file that is a symlink out of the root */
	write_file("outside-target.yaml", "name: x\nsteps: [waitForIdle]\n");
	char sub[512], link[600];
	snprintf(sub, sizeof(sub), "%s/project", tmp);
	mkdir(sub, 0700);
	snprintf(link, sizeof(link), "%s/project/.swipium", tmp);
	mkdir(link, 0700);
	snprintf(link, sizeof(link), "%s/project/.swipium/flows", tmp);
	mkdir(link, 0700);
	snprintf(link, sizeof(link), "%s/project/.swipium/flows/escape.yaml", tmp);
	char target[600];
	snprintf(target, sizeof(target), "%s/outside-target.yaml", tmp);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_gt(asprintf(&opts, "{\"root\":\"%s\",\"flow\":\"escape\"}", sub), 0);
	ck_assert_ptr_null(check(opts, code, msg));
	ck_assert_str_eq(code, "UNSAFE_ACTION_REFUSED");
	free(opts);
	/* a path flow with .. out of the root */
	ck_assert_int_gt(asprintf(&opts, "{\"root\":\"%s\",\"flow\":\"../outside-target.yaml\"}", sub), 0);
	ck_assert_ptr_null(check(opts, code, msg));
	ck_assert_str_eq(code, "UNSAFE_ACTION_REFUSED");
	free(opts);
	rm_tmp();
}
END_TEST

START_TEST(test_policy_tokens)
{
	mk_tmp();
	write_file(".swipium/flows/m.yaml",
	           "name: m\nsteps:\n  - networkOffline\n  - networkOnline\n  - restartApp\n"
	           "  - seed: acct\n  - openUrl: \"x://${SWIPIUM_ID}\"\n  - openUrl: \"x://fixed\"\n");
	char code[64], msg[1024], *opts = NULL;
	ck_assert_int_gt(asprintf(&opts, "{\"root\":\"%s\",\"flow\":\"m\",\"ci\":true}", tmp), 0);
	struct {
		const char *policy;
		int blocked;
	} cases[] = {
	    {NULL, 5},
	    {"{\"ciAllowMutations\":[]}", 5},
	    {"{\"ciAllowMutations\":[\"Network-Toggle\"]}", 3},
	    {"{\"ciAllowMutations\":[\"networkOffline\"]}", 4},
	    {"{\"ciAllowMutations\":[\"FIXTURE_SEED\", \"app control\"]}", 3},
	    {"{\"ciAllowMutations\":[\"open_url\", \"lifecycle\", \"seeds\", \"connectivity\"]}", 0},
	    {"{\"ciAllowMutations\":[\"*\"]}", 0},
	    {"{\"ciAllowMutations\":[\"Mutating Steps\"]}", 0},
	    {"{\"ciAllowMutations\":[\"everything\"]}", 5},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char p[512];
		snprintf(p, sizeof(p), "%s/.swipium/policy.json", tmp);
		unlink(p);
		if (cases[i].policy)
			write_file(".swipium/policy.json", cases[i].policy);
		json_t *res = check(opts, code, msg);
		ck_assert_ptr_nonnull(res);
		json_t *ci = json_object_get(res, "ci");
		ck_assert_msg(json_array_size(json_object_get(ci, "mutationsNotAllowed")) == (size_t)cases[i].blocked,
		              "policy %s: %zu blocked", cases[i].policy ? cases[i].policy : "(none)",
		              json_array_size(json_object_get(ci, "mutationsNotAllowed")));
		json_decref(res);
	}
	free(opts);
	rm_tmp();
}
END_TEST

/* ---- a scripted device: a login screen and a home screen ----------------------------------- */

struct fake {
	int screen; /* 0 login, 1 home */
	char email[256], password[256];
	int focused; /* 0 none, 1 email, 2 password */
	char typed[4096];
	int taps, launches, stops, presses, urls;
	const char *button; /* the sign-in button's text */
	int shift;          /* moves a block of the screenshot */
	int last_x, last_y; /* the last tap */
};
static struct fake F;

static int f_probe(sw_ctx *ctx, const char *o, void **state, sw_error **err)
{
	(void)ctx, (void)o, (void)err;
	*state = &F;
	return SW_OK;
}
static void f_release(void *s)
{
	(void)s;
}
static int f_describe(void *s, char **out, sw_error **err)
{
	(void)s, (void)err;
	*out = strdup("{\"platform\":\"android\",\"serial\":\"fake-1\",\"emulator\":true}");
	return SW_OK;
}
#define NODE(text, id, cls, clickable, password, focused, b)                                                           \
	"<node index=\"0\" text=\"" text "\" resource-id=\"" id "\" class=\"" cls "\" package=\"com.example.login\" "  \
	"content-desc=\"\" checkable=\"false\" checked=\"false\" clickable=\"" clickable "\" enabled=\"true\" "        \
	"focusable=\"true\" focused=\"" focused                                                                        \
	"\" scrollable=\"false\" long-clickable=\"false\" password=\"" password "\" selected=\"false\" bounds=\"" b    \
	"\" />"
static int f_dump(void *s, char **xml, size_t *len, sw_error **err)
{
	(void)s, (void)err;
	char buf[8192];
	if (F.screen == 1) {
		snprintf(
		    buf, sizeof(buf),
		    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
		    "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
		    "package=\"com.example.login\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
		    "clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" scrollable=\"false\" "
		    "long-clickable=\"false\" password=\"false\" selected=\"false\" bounds=\"[0,0][1080,2400]\">" NODE(
		        "Home", "com.example.login:id/home_title", "android.widget.TextView", "false", "false", "false",
		        "[60,260][1020,380]") "</node></hierarchy>");
	} else {
		char pw[300];
		size_t n = strlen(F.password);
		memset(pw, 0x2022 & 0 ? 0 : '*', n < 299 ? n : 299);
		pw[n < 299 ? n : 299] = '\0';
		snprintf(
		    buf, sizeof(buf),
		    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
		    "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
		    "package=\"com.example.login\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
		    "clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" scrollable=\"false\" "
		    "long-clickable=\"false\" password=\"false\" selected=\"false\" bounds=\"[0,0][1080,2400]\">"
		    "<node index=\"0\" text=\"Welcome back\" resource-id=\"com.example.login:id/title\" "
		    "class=\"android.widget.TextView\" package=\"com.example.login\" content-desc=\"\" "
		    "checkable=\"false\" "
		    "checked=\"false\" clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" "
		    "scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" "
		    "bounds=\"[60,260][1020,380]\" />"
		    "<node index=\"1\" text=\"%s\" resource-id=\"com.example.login:id/email\" "
		    "class=\"android.widget.EditText\" "
		    "package=\"com.example.login\" content-desc=\"Email\" checkable=\"false\" checked=\"false\" "
		    "clickable=\"true\" enabled=\"true\" focusable=\"true\" focused=\"%s\" scrollable=\"false\" "
		    "long-clickable=\"false\" password=\"false\" selected=\"false\" bounds=\"[60,520][1020,660]\" />"
		    "<node index=\"2\" text=\"%s\" resource-id=\"com.example.login:id/password\" "
		    "class=\"android.widget.EditText\" package=\"com.example.login\" content-desc=\"Password\" "
		    "checkable=\"false\" checked=\"false\" clickable=\"true\" enabled=\"true\" focusable=\"true\" "
		    "focused=\"%s\" scrollable=\"false\" long-clickable=\"false\" password=\"true\" selected=\"false\" "
		    "bounds=\"[60,700][1020,840]\" />"
		    "<node index=\"3\" text=\"%s\" resource-id=\"com.example.login:id/sign_in\" "
		    "class=\"android.widget.Button\" "
		    "package=\"com.example.login\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
		    "clickable=\"true\" "
		    "enabled=\"true\" focusable=\"true\" focused=\"false\" scrollable=\"false\" "
		    "long-clickable=\"false\" "
		    "password=\"false\" selected=\"false\" bounds=\"[60,1040][1020,1180]\" />"
		    "</node></hierarchy>",
		    F.email, F.focused == 1 ? "true" : "false", pw, F.focused == 2 ? "true" : "false", F.button);
	}
	*xml = strdup(buf);
	*len = strlen(buf);
	return SW_OK;
}
static int f_size(void *s, int *w, int *h, sw_error **err)
{
	(void)s, (void)err;
	*w = 1080;
	*h = 2400;
	return SW_OK;
}
static int f_tap(void *s, int x, int y, int d, sw_error **err)
{
	(void)s, (void)d, (void)err;
	F.taps++;
	F.last_x = x;
	F.last_y = y;
	if (F.screen != 0)
		return SW_OK;
	if (y >= 520 && y <= 660)
		F.focused = 1;
	else if (y >= 700 && y <= 840)
		F.focused = 2;
	else if (y >= 1040 && y <= 1180 && !strcmp(F.password, "hunter2"))
		F.screen = 1;
	return SW_OK;
}
static int f_type(void *s, const char *text, sw_error **err)
{
	(void)s, (void)err;
	strncat(F.typed, text, sizeof(F.typed) - strlen(F.typed) - 1);
	char *field = F.focused == 1 ? F.email : F.focused == 2 ? F.password : NULL;
	if (field)
		strncat(field, text, 255 - strlen(field));
	return SW_OK;
}
static int f_clear(void *s, size_t n, sw_error **err)
{
	(void)s, (void)n, (void)err;
	if (F.focused == 1)
		F.email[0] = '\0';
	if (F.focused == 2)
		F.password[0] = '\0';
	return SW_OK;
}
static int f_swipe(void *s, int a, int b, int c, int d, int e, sw_error **err)
{
	(void)s, (void)a, (void)b, (void)c, (void)d, (void)e, (void)err;
	return SW_OK;
}
static int f_key(void *s, const char *k, sw_error **err)
{
	(void)s, (void)err;
	F.presses++;
	if (!strcmp(k, "back"))
		F.screen = 0;
	return SW_OK;
}
static int f_url(void *s, const char *u, sw_error **err)
{
	(void)s, (void)u, (void)err;
	F.urls++;
	return SW_OK;
}
static int f_keyboard(void *s, char **out, sw_error **err)
{
	(void)s, (void)err;
	*out = strdup("{\"shown\":false,\"frame\":null}");
	return SW_OK;
}
static int f_hide(void *s, sw_error **err)
{
	(void)s, (void)err;
	return SW_OK;
}
static int f_fg(void *s, char **out, sw_error **err)
{
	(void)s, (void)err;
	*out = strdup("{\"package\":\"com.example.login\",\"activity\":\".LoginActivity\"}");
	return SW_OK;
}
static int f_launch(void *s, const char *app, sw_error **err)
{
	(void)s, (void)app, (void)err;
	F.launches++;
	F.screen = 0;
	return SW_OK;
}
static int f_stop(void *s, const char *app, sw_error **err)
{
	(void)s, (void)app, (void)err;
	F.stops++;
	return SW_OK;
}

/* A 540x1200 screen: grey, with a few coloured blocks (distinct for template matching); F.shift moves one. */
static int f_screencap(void *st, unsigned char **png, size_t *len, sw_error **err)
{
	(void)st;
	sw_image *img = NULL;
	int rc = sw_image_new(540, 1200, NULL, &img, err);
	if (rc < 0)
		return rc;
	sw_image_fill(img, 0, 0, 540, 1200, 0x808080);
	sw_image_fill(img, 40, 100, 200, 80, 0x2040c0);
	sw_image_fill(img, 60, 120, 60, 40, 0xf0f020);
	sw_image_fill(img, 300 + F.shift, 500, 120, 120, 0xc02020);
	sw_image_fill(img, 330 + F.shift, 530, 30, 60, 0x20c020);
	rc = sw_image_encode(img, png, len, err);
	sw_image_free(img);
	return rc;
}

static const struct sw_driver_ops FAKE = {
    .version = SW_DRIVER_OPS_VERSION,
    .name = "fake",
    .caps = SW_DRIVER_CAP_DUMP | SW_DRIVER_CAP_SCREENCAP | SW_DRIVER_CAP_INPUT | SW_DRIVER_CAP_OPEN_URL |
            SW_DRIVER_CAP_APP | SW_DRIVER_CAP_KEYBOARD | SW_DRIVER_CAP_FOREGROUND,
    .probe = f_probe,
    .release = f_release,
    .describe = f_describe,
    .dump_ui = f_dump,
    .screencap = f_screencap,
    .screen_size = f_size,
    .tap = f_tap,
    .type_text = f_type,
    .swipe = f_swipe,
    .press_key = f_key,
    .open_url = f_url,
    .keyboard = f_keyboard,
    .hide_keyboard = f_hide,
    .foreground = f_fg,
    .launch = f_launch,
    .force_stop = f_stop,
    .clear_text = f_clear,
};

struct rig {
	sw_ctx *ctx;
	sw_store *store;
	sw_session *s;
	sw_device *dev;
	sw_drive *drive;
};

static void rig_up_opts(struct rig *r, const char *session_opts)
{
	mk_tmp();
	memset(&F, 0, sizeof(F));
	F.button = "Sign in";
	char home[512];
	snprintf(home, sizeof(home), "%s/home", tmp);
	mkdir(home, 0700);
	ck_assert_int_eq(sw_ctx_new(&r->ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(r->ctx, home, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(r->ctx, &r->store, NULL), SW_OK);
	ck_assert_int_eq(sw_session_create(r->store, tmp, "arg", session_opts, &r->s, NULL), SW_OK);
	ck_assert_int_eq(sw_device_open(r->ctx, &FAKE, NULL, &r->dev, NULL), SW_OK);
	ck_assert_int_eq(sw_drive_new(r->dev, &r->drive, NULL), SW_OK);
}

static void rig_up(struct rig *r)
{
	rig_up_opts(r, NULL);
}

static void rig_down(struct rig *r)
{
	sw_drive_free(r->drive);
	sw_device_free(r->dev);
	sw_store_free(r->store);
	sw_ctx_free(r->ctx);
	rm_tmp();
}

static json_t *run_flow(struct rig *r, const char *flow, const char *yaml, const char *vars, int approved)
{
	sw_flow_run_options o = SW_FLOW_RUN_OPTIONS_INIT;
	o.root = tmp;
	o.flow = flow;
	o.flow_yaml = yaml;
	o.variables_json = vars;
	o.session = r->s;
	o.drive = r->drive;
	o.device = r->dev;
	o.mutations_approved = approved;
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_flow_run(&o, &out, &err);
	ck_assert_msg(rc == SW_OK, "run failed: %s", err ? sw_error_message(err) : "");
	json_t *j = json_loads(out, 0, NULL);
	sw_free(out);
	return j;
}

static const char *LOGIN = "name: login\nappId: com.example.login\nsteps:\n  - prepareTarget\n"
                           "  - inputText: {into: \"Email\", text: \"${SWIPIUM_TEST_EMAIL}\"}\n"
                           "  - inputText: {into: \"Password\", text: \"${SWIPIUM_TEST_PASSWORD}\"}\n"
                           "  - tap: \"Sign in\"\n  - assertVisible: \"Home\"\n";

static bool file_tree_contains(const char *dir, const char *needle)
{
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "grep -r -q -F -- '%s' '%s'", needle, dir);
	return system(cmd) == 0;
}

/* The drive's options go through the one options loader; with a session attached the drive keeps its books. */
START_TEST(test_drive_checked_options_and_books)
{
	struct rig r;
	rig_up(&r);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_drive_snapshot(r.drive, "{\"fitler\":\"Sign\"}", &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "\"fitler\""));
	ck_assert_ptr_nonnull(strstr(sw_error_details_json(err), "\"unknownOptions\":[\"fitler\"]"));
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_drive_snapshot(r.drive, "{\"filter\":3}", &out, &err), SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "\"filter\" must be a string"));
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_drive_act(r.drive, "{\"action\":\"tap\",\"taget\":{\"text\":\"Sign in\"}}", &out, &err),
	                 SW_EINVAL);
	ck_assert_ptr_nonnull(strstr(sw_error_message(err), "\"taget\""));
	sw_error_free(err);
	err = NULL;
	ck_assert_ptr_null(out);
	/* the books: with the session attached, an act is recorded as given and counted */
	sw_drive_set_session(r.drive, r.ctx, r.s);
	ck_assert_int_eq(sw_drive_snapshot(r.drive, "{\"filter\":\"Sign\"}", &out, &err), SW_OK);
	sw_free(out);
	ck_assert_int_eq(sw_drive_act(r.drive, "{\"action\":\"tap\",\"target\":{\"text\":\"Sign in\"}}", &out, &err),
	                 SW_OK);
	sw_free(out);
	char *rec = NULL, *counters = NULL;
	ck_assert_int_eq(sw_session_get_json(r.s, "recordedActions", &rec, NULL), SW_OK);
	json_t *rj = json_loads(rec, 0, NULL);
	ck_assert_uint_eq(json_array_size(rj), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rj, 0), "tool")), "qa_act");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(json_array_get(rj, 0), "target"), "text")),
	                 "Sign in");
	json_decref(rj);
	ck_assert_int_eq(sw_session_get_json(r.s, "counters", &counters, NULL), SW_OK);
	json_t *cj = json_loads(counters, 0, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(cj, "actions")), 1);
	json_decref(cj);
	sw_free(rec);
	sw_free(counters);
	/* a flow keeps its own books: its steps are counted, never recorded as qa_act calls */
	json_t *res = run_flow(&r, NULL, "name: t\nsteps:\n  - tap: \"Sign in\"\n", NULL, 0);
	json_decref(res);
	ck_assert_int_eq(sw_session_get_json(r.s, "recordedActions", &rec, NULL), SW_OK);
	rj = json_loads(rec, 0, NULL);
	ck_assert_uint_eq(json_array_size(rj), 1);
	json_decref(rj);
	sw_free(rec);
	sw_drive_set_session(r.drive, NULL, NULL);
	rig_down(&r);
}
END_TEST

START_TEST(test_run_login_secret_redacted)
{
	struct rig r;
	rig_up(&r);
	setenv("SWIPIUM_TEST_EMAIL", "qa@example.com", 1);
	setenv("SWIPIUM_TEST_PASSWORD", "hunter2", 1);
	json_t *res = run_flow(&r, NULL, LOGIN, NULL, 0);
	ck_assert_msg(json_is_true(json_object_get(res, "passed")), "%s", json_dumps(res, 0));
	ck_assert_str_eq(json_string_value(json_object_get(res, "outcome")), "pass");
	ck_assert_int_eq(F.screen, 1);
	ck_assert_int_eq(F.launches, 1);
	char *dumped = json_dumps(res, 0);
	ck_assert_ptr_null(strstr(dumped, "hunter2"));
	free(dumped);
	char *meta = NULL;
	ck_assert_int_eq(sw_flow_save_report(r.s, &meta, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(meta, "report-"));
	sw_free(meta);
	sw_session_flush(r.s, NULL);
	char home[512];
	snprintf(home, sizeof(home), "%s/home", tmp);
	ck_assert(file_tree_contains(home, "\"workflow\": \"login\""));
	ck_assert(!file_tree_contains(home, "hunter2"));
	json_decref(res);
	unsetenv("SWIPIUM_TEST_PASSWORD");
	unsetenv("SWIPIUM_TEST_EMAIL");
	rig_down(&r);
}
END_TEST

START_TEST(test_run_explicit_variables_and_failure)
{
	struct rig r;
	rig_up(&r);
	/* a wrong password: the assertion fails at step 4, teardown still runs */
	const char *yaml = "name: wrong\nappId: com.example.login\nsteps:\n  - prepareTarget\n"
	                   "  - inputText: {into: \"Email\", text: \"${EMAIL}\"}\n"
	                   "  - inputText: {into: \"Password\", text: \"${MY_PASSWORD}\"}\n"
	                   "  - tap: \"Sign in\"\n  - assertVisible: \"Home\"\n  - note: never reached\n"
	                   "teardown:\n  - press: back\n  - press: back\n";
	json_t *res = run_flow(&r, NULL, yaml, "{\"EMAIL\":\"a@b.c\",\"MY_PASSWORD\":\"swordfish9\"}", 0);
	ck_assert(!json_is_true(json_object_get(res, "passed")));
	ck_assert_str_eq(json_string_value(json_object_get(res, "outcome")), "fail");
	ck_assert_int_eq(json_integer_value(json_object_get(res, "failedAtStep")), 4);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failedPhase")), "steps");
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "ASSERTION_FAILED");
	ck_assert_int_eq(F.presses, 2); /* both teardown steps ran */
	ck_assert_str_eq(F.email, "a@b.c");
	/* assertion failures do not point at repair */
	char *d = json_dumps(res, 0);
	ck_assert_ptr_null(strstr(d, "qa_flow_repair"));
	ck_assert_ptr_null(strstr(d, "swordfish9"));
	free(d);
	char *state = NULL;
	ck_assert_int_eq(sw_session_state_json(r.s, &state, NULL), SW_OK);
	ck_assert_ptr_null(strstr(state, "swordfish9"));
	sw_free(state);
	json_decref(res);
	rig_down(&r);
}
END_TEST

START_TEST(test_env_only_swipium_names)
{
	struct rig r;
	rig_up(&r);
	setenv("AWS_SECRET_ACCESS_KEY", "AKIAEXFILTRATEME12345", 1);
	json_t *res = run_flow(
	    &r, NULL, "name: aws\nsteps:\n  - inputText: {into: \"Email\", text: \"${AWS_SECRET_ACCESS_KEY}\"}\n", NULL,
	    0);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "MISSING_FIXTURE");
	ck_assert_str_eq(json_string_value(json_object_get(res, "outcome")), "blocked");
	const char *msg = json_string_value(json_object_get(res, "message"));
	ck_assert_ptr_nonnull(strstr(msg, "${AWS_SECRET_ACCESS_KEY}"));
	ck_assert_ptr_nonnull(strstr(msg, "SWIPIUM_AWS_SECRET_ACCESS_KEY"));
	ck_assert_ptr_null(strstr(msg, "AKIA"));
	ck_assert_str_eq(F.typed, "");
	ck_assert_int_eq(F.taps, 0);
	/* a missing variable never points to repair */
	char *d = json_dumps(res, 0);
	ck_assert_ptr_null(strstr(d, "qa_flow_repair"));
	free(d);
	json_decref(res);
	res = run_flow(&r, NULL, "name: home\nsteps:\n  - openUrl: \"file://${HOME}/.ssh/id_rsa\"\n", NULL, 1);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "MISSING_FIXTURE");
	ck_assert_int_eq(F.urls, 0);
	json_decref(res);
	unsetenv("AWS_SECRET_ACCESS_KEY");
	rig_down(&r);
}
END_TEST

START_TEST(test_consent_and_confinement)
{
	struct rig r;
	rig_up(&r);
	/* mutating step without consent: nothing runs */
	json_t *res = run_flow(
	    &r, NULL, "name: m\nappId: com.example.login\nsteps:\n  - tap: \"Sign in\"\n  - restartApp\n", NULL, 0);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "CONSENT_REFUSED");
	ck_assert_str_eq(json_string_value(json_object_get(res, "outcome")), "blocked");
	ck_assert_int_eq(F.taps + F.launches + F.stops, 0);
	json_decref(res);
	/* with consent it runs */
	res = run_flow(&r, NULL, "name: m\nappId: com.example.login\nsteps:\n  - restartApp\n", NULL, 1);
	ck_assert(json_is_true(json_object_get(res, "passed")));
	ck_assert_int_eq(F.stops, 1);
	json_decref(res);
	/* OCR steps also need the consent */
	res = run_flow(&r, NULL, "name: o\nsteps:\n  - tap: \"Sign in\"\n  - assertOcrText: Total\n", NULL, 0);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "CONSENT_REFUSED");
	json_decref(res);
	/* template paths: ../../etc/passwd and a symlink out of the root, refused before anything runs */
	int taps = F.taps;
	res = run_flow(&r, NULL, "name: t\nsteps:\n  - tap: \"Sign in\"\n  - tapImage: ../../etc/passwd\n", NULL, 1);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "UNSAFE_ACTION_REFUSED");
	json_decref(res);
	write_file(".swipium/templates/readme", "x");
	char link[512];
	snprintf(link, sizeof(link), "%s/.swipium/templates/button.png", tmp);
	ck_assert_int_eq(symlink("/etc/passwd", link), 0);
	res = run_flow(
	    &r, NULL,
	    "name: t\nsteps:\n  - tap: \"Sign in\"\n  - assertImage: {template: .swipium/templates/button.png}\n", NULL,
	    1);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "UNSAFE_ACTION_REFUSED");
	ck_assert_int_eq(F.taps, taps);
	json_decref(res);
	/* invalid flows are errors, not runs */
	sw_flow_run_options o = SW_FLOW_RUN_OPTIONS_INIT;
	o.root = tmp, o.flow_yaml = "name: x\nsteps:\n  - tapp: y\n", o.session = r.s, o.drive = r.drive,
	o.device = r.dev;
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_flow_run(&o, &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_FLOW");
	sw_error_free(err);
	rig_down(&r);
}
END_TEST

START_TEST(test_repair_renamed_button)
{
	struct rig r;
	rig_up(&r);
	F.button = "Sign in";
	write_file(".swipium/flows/renamed.yaml",
	           "name: renamed\nsteps:\n  - tap: \"Sign in to your account\"  # old label\n"
	           "  - assertVisible: Home\n");
	json_t *res = run_flow(&r, "renamed", NULL, NULL, 0);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "ELEMENT_NOT_FOUND");
	ck_assert_int_eq(json_integer_value(json_object_get(res, "failedAtStep")), 0);
	char *d = json_dumps(res, 0);
	ck_assert_ptr_nonnull(strstr(d, "qa_flow_repair"));
	free(d);
	json_decref(res);
	char *opts = NULL, *out = NULL;
	ck_assert_int_gt(asprintf(&opts, "{\"root\":\"%s\",\"flow\":\"renamed\",\"failedStep\":0}", tmp), 0);
	ck_assert_int_eq(sw_flow_repair(r.s, r.drive, opts, &out, NULL), SW_OK);
	free(opts);
	res = json_loads(out, 0, NULL);
	sw_free(out);
	json_t *best = json_object_get(res, "best");
	ck_assert_str_eq(json_string_value(json_object_get(best, "selector")), "Sign in");
	ck_assert_str_eq(json_string_value(json_object_get(best, "confidence")), "medium");
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(res, "candidates"), i, c)
	    ck_assert_str_ne(json_string_value(json_object_get(c, "role")), "text-field");
	ck_assert(!json_is_true(json_object_get(res, "applied")));
	json_decref(res);
	/* apply: the file is patched atomically and the patch is ledgered */
	ck_assert_int_gt(asprintf(&opts, "{\"root\":\"%s\",\"flow\":\"renamed\",\"failedStep\":0,\"apply\":true}", tmp),
	                 0);
	ck_assert_int_eq(sw_flow_repair(r.s, r.drive, opts, &out, NULL), SW_OK);
	free(opts);
	res = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert(json_is_true(json_object_get(res, "applied")));
	json_decref(res);
	char p[512];
	snprintf(p, sizeof(p), "%s/.swipium/flows/renamed.yaml", tmp);
	char *text = read_all(p);
	ck_assert_ptr_nonnull(strstr(text, "  - tap: \"Sign in\"  # old label\n"));
	free(text);
	char *state = NULL;
	ck_assert_int_eq(sw_session_state_json(r.s, &state, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(state, "qa_flow_repair"));
	sw_free(state);
	/* the patched flow now passes up to the password check */
	res = run_flow(&r, "renamed", NULL, NULL, 0);
	ck_assert_int_eq(F.taps > 0, 1);
	json_decref(res);
	/* inline YAML is never patched */
	ck_assert_int_eq(
	    sw_flow_repair(r.s, r.drive,
	                   "{\"flowYaml\":\"name: x\\nsteps:\\n  - tap: Sign in now please\\n\",\"failedStep\":0,"
	                   "\"apply\":true}",
	                   &out, NULL),
	    SW_OK);
	res = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert(!json_is_true(json_object_get(res, "applied")));
	json_decref(res);
	/* an input step only gets text fields */
	ck_assert_int_eq(
	    sw_flow_repair(r.s, r.drive,
	                   "{\"flowYaml\":\"name: x\\nsteps:\\n  - inputText: {into: E-mail address, text: a}\\n\","
	                   "\"failedStep\":0}",
	                   &out, NULL),
	    SW_OK);
	res = json_loads(out, 0, NULL);
	sw_free(out);
	json_array_foreach(json_object_get(res, "candidates"), i, c)
	    ck_assert_str_eq(json_string_value(json_object_get(c, "role")), "text-field");
	json_decref(res);
	rig_down(&r);
}
END_TEST

START_TEST(test_plan_and_templates)
{
	mk_tmp();
	char *out = NULL;
	ck_assert_int_eq(
	    sw_flow_plan(
	        "{\"flowYaml\":\"name: p\\nsteps:\\n  - seed: acct\\n  - tap: \\\"accessibility id=x\\\"\\n\"}", &out,
	        NULL),
	    SW_OK);
	json_t *p = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_int_eq(json_object_size(json_object_get(p, "backends")), 5);
	json_t *c = json_object_get(p, "consent");
	ck_assert(json_is_true(json_object_get(c, "required")));
	ck_assert_str_eq(json_string_value(json_object_get(c, "risk")), "high");
	json_t *ad = json_object_get(json_object_get(p, "backends"), "android-direct");
	/* a seed runs on every backend (host programs, HTTP, deep links); an unresolved fixture keeps the risk high */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ad, 0), "support")), "native");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ad, 1), "support")), "unsupported");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(json_object_get(c, "exactCommand"), 0)),
	                             "not declared"));
	json_decref(p);
	/* init flows: writes, keeps, forces */
	ck_assert_int_eq(sw_flow_init_templates(tmp, 0, &out, NULL), SW_OK);
	p = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_int_eq(json_array_size(json_object_get(p, "written")), 9);
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(p, "written"), i, w)
	{
		const char *rel = json_string_value(w);
		if (!strstr(rel, "/flows/"))
			continue;
		char opts[800], code[64], msg[1024];
		snprintf(opts, sizeof(opts), "{\"root\":\"%s\",\"flow\":\"%s\"}", tmp, rel);
		json_t *res = check(opts, code, msg);
		ck_assert_msg(res && json_is_true(json_object_get(res, "valid")), "template %s: %s", rel, msg);
		json_decref(res);
	}
	json_decref(p);
	write_file(".swipium/flows/login-smoke.yaml", "name: mine\nsteps: [waitForIdle]\n");
	ck_assert_int_eq(sw_flow_init_templates(tmp, 0, &out, NULL), SW_OK);
	p = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_int_eq(json_array_size(json_object_get(p, "written")), 0);
	ck_assert_int_eq(json_array_size(json_object_get(p, "kept")), 9);
	json_decref(p);
	char path[512];
	snprintf(path, sizeof(path), "%s/.swipium/flows/login-smoke.yaml", tmp);
	char *t = read_all(path);
	ck_assert_str_eq(t, "name: mine\nsteps: [waitForIdle]\n");
	free(t);
	ck_assert_int_eq(sw_flow_init_templates(tmp, 1, &out, NULL), SW_OK);
	sw_free(out);
	t = read_all(path);
	ck_assert_ptr_nonnull(strstr(t, "SWIPIUM_TEST_PASSWORD"));
	free(t);
	/* packs */
	ck_assert_int_eq(sw_flow_resolve_target(tmp, "smoke", &out, NULL), SW_OK);
	p = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_str_eq(json_string_value(json_object_get(p, "kind")), "pack");
	ck_assert_int_eq(json_array_size(json_object_get(p, "flows")), 3);
	json_decref(p);
	write_file(".swipium/packs/bad.yaml", "name: bad\nflows: &x [a]\n");
	sw_error *err = NULL;
	ck_assert_int_eq(sw_flow_resolve_target(tmp, "bad", &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_FLOW");
	sw_error_free(err);
	rm_tmp();
}
END_TEST

START_TEST(test_visual_steps)
{
	struct rig r;
	rig_up(&r);
	/* a template cut from the screen, and a baseline of the same screen */
	unsigned char *png = NULL;
	size_t len = 0;
	ck_assert_int_eq(f_screencap(NULL, &png, &len, NULL), SW_OK);
	sw_image *screen = NULL, *crop = NULL;
	ck_assert_int_eq(sw_image_decode(png, len, &screen, NULL), SW_OK);
	free(png);
	ck_assert_int_eq(sw_image_crop(screen, 280, 480, 160, 160, &crop, NULL), SW_OK);
	write_file(".swipium/templates/readme", "x");
	write_file(".swipium/baselines/readme", "x");
	char p[512];
	ck_assert_int_eq(sw_image_encode(crop, &png, &len, NULL), SW_OK);
	snprintf(p, sizeof(p), "%s/.swipium/templates/block.png", tmp);
	FILE *f = fopen(p, "wb");
	fwrite(png, 1, len, f);
	fclose(f);
	free(png);
	ck_assert_int_eq(sw_image_encode(screen, &png, &len, NULL), SW_OK);
	snprintf(p, sizeof(p), "%s/.swipium/baselines/home.png", tmp);
	f = fopen(p, "wb");
	fwrite(png, 1, len, f);
	fclose(f);
	free(png);
	sw_image_free(crop);
	sw_image_free(screen);
	/* a secure field on screen withholds the capture */
	json_t *res = run_flow(&r, NULL, "name: v\nsteps:\n  - assertImage: .swipium/templates/block.png\n", NULL, 0);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "CAPTURE_WITHHELD_SECURE");
	json_decref(res);
	F.screen = 1; /* the home screen has no secure field */
	res = run_flow(&r, NULL,
	               "name: v\nsteps:\n  - assertImage: .swipium/templates/block.png\n"
	               "  - tapImage: {template: .swipium/templates/block.png, minScore: 0.9}\n  - assertDiff: home\n",
	               NULL, 0);
	ck_assert_msg(json_is_true(json_object_get(res, "passed")), "%s", json_dumps(res, 0));
	ck_assert_int_eq(F.last_x, 360);
	ck_assert_int_eq(F.last_y, 560);
	json_decref(res);
	/* the screen changed: the diff fails, and a template that moved off the match fails too */
	F.shift = 100;
	res = run_flow(&r, NULL, "name: v\nsteps:\n  - assertDiff: {baseline: home, threshold: 0.001}\n", NULL, 0);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "ASSERTION_FAILED");
	json_decref(res);
	res = run_flow(&r, NULL, "name: v\nsteps:\n  - assertDiff: nobaseline\n", NULL, 0);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "MISSING_FIXTURE");
	json_decref(res);
	/* OCR with consent but no provider: VISUAL_ONLY_SCREEN */
	unsetenv("SWIPIUM_OCR_CMD");
	res = run_flow(&r, NULL, "name: o\nsteps:\n  - assertOcrText: Total\n", NULL, 1);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "VISUAL_ONLY_SCREEN");
	json_decref(res);
	rig_down(&r);
	/* a sensitive session refuses OCR steps before anything runs, and image steps capture nothing */
	rig_up_opts(&r, "{\"sensitive\":true}");
	res = run_flow(&r, NULL, "name: o\nsteps:\n  - tap: \"Sign in\"\n  - assertOcrText: Total\n", NULL, 1);
	ck_assert_str_eq(json_string_value(json_object_get(res, "failureCode")), "UNSAFE_ACTION_REFUSED");
	ck_assert_int_eq(F.taps, 0);
	json_decref(res);
	res = run_flow(&r, NULL, "name: o\nsteps:\n  - assertVisual: the screen\n  - screenshot: x\n", NULL, 0);
	ck_assert(json_is_true(json_object_get(res, "passed")));
	ck_assert(json_is_true(json_object_get(json_array_get(json_object_get(res, "steps"), 0), "skipped")));
	json_decref(res);
	rig_down(&r);
}
END_TEST

/* sw_flow_consent's explainMaxBytes: checked, and the explain cut on a UTF-8 boundary. */
START_TEST(test_flow_consent_explain_cap)
{
	sw_ctx *ctx = NULL;
	sw_consent_store *cs = NULL;
	ck_assert_int_eq(sw_ctx_new(&ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_consent_store_new(ctx, &cs, NULL), SW_OK);
	sw_buf yaml = SW_BUF_INIT;
	sw__buf_puts(&yaml, "name: ");
	for (int i = 0; i < 500; i++)
		sw__buf_puts(&yaml, "\xc3\xa9");
	sw__buf_puts(&yaml, "\nappId: com.example.login\nsteps:\n  - restartApp\n");
	json_t *o = json_pack("{ss}", "flowYaml", yaml.data);
	char *oj = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	sw__buf_free(&yaml);
	char *out = NULL;
	sw_error *err = NULL;
	static const char *const bad[] = {"{\"explainMaxBytes\":0}", "{\"explainMaxBytes\":\"9\"}",
	                                  "{\"explainMaxBytes\":-4}"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(sw_flow_consent(cs, NULL, oj, bad[i], &out, &err), SW_EINVAL);
		ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
		ck_assert_ptr_null(out);
		sw_error_free(err);
		err = NULL;
	}
	/* 10 bytes of `Run flow "` then 2-byte characters: 99 falls inside one and backs off to 98 */
	ck_assert_int_eq(sw_flow_consent(cs, NULL, oj, "{\"canElicit\":false,\"explainMaxBytes\":99}", &out, &err),
	                 SW_OK);
	json_t *r = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert(json_is_true(json_object_get(r, "requiresConsent")));
	const char *ex = json_string_value(json_object_get(json_object_get(r, "envelope"), "explain"));
	ck_assert_ptr_nonnull(ex);
	ck_assert_uint_eq(strlen(ex), 98);
	ck_assert(sw__utf8_valid(ex, strlen(ex)));
	ck_assert(!strncmp(ex, "Run flow \"\xc3\xa9", 12));
	json_decref(r);
	sw_free(out);
	/* without the member the explain is whole */
	ck_assert_int_eq(sw_flow_consent(cs, NULL, oj, "{\"canElicit\":false}", &out, &err), SW_OK);
	r = json_loads(out, 0, NULL);
	ex = json_string_value(json_object_get(json_object_get(r, "envelope"), "explain"));
	ck_assert_ptr_nonnull(ex);
	ck_assert_uint_gt(strlen(ex), 1000);
	json_decref(r);
	sw_free(out);
	free(oj);
	sw_consent_store_free(cs);
	sw_ctx_free(ctx);
}
END_TEST

START_TEST(test_run_saved_flows)
{
	struct rig r;
	rig_up(&r);
	write_file(".swipium/flows/a-pass.yaml", "name: welcome\nsteps:\n  - assertVisible: Welcome back\n");
	write_file(".swipium/flows/b-mutating.yaml", "name: restart\nappId: x\nsteps:\n  - restartApp\n");
	write_file(".swipium/flows/c-invalid.yaml", "name: bad\nsteps:\n  - tapp: x\n");
	write_file(".swipium/flows/notes.txt", "not a flow");
	sw_flow_run_options o = SW_FLOW_RUN_OPTIONS_INIT;
	o.root = tmp, o.session = r.s, o.drive = r.drive, o.device = r.dev, o.mutations_approved = 1;
	char *out = NULL;
	ck_assert_int_eq(sw_flow_run_saved(&o, &out, NULL), SW_OK);
	json_t *res = json_loads(out, 0, NULL);
	sw_free(out);
	ck_assert_int_eq(json_array_size(json_object_get(res, "flows")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "passed")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "blocked")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "failed")), 1);
	json_t *b = json_array_get(json_object_get(res, "flows"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(b, "category")), "destructive_refused");
	ck_assert_int_eq(F.stops + F.launches, 0); /* never ran, even though the caller said approved */
	json_decref(res);
	char *notes = NULL;
	ck_assert_int_eq(sw_session_get_json(r.s, "notes", &notes, NULL), SW_OK);
	ck_assert_ptr_nonnull(strstr(notes, "qa_flow_run {flow: \\\"b-mutating.yaml\\\"}"));
	sw_free(notes);
	rig_down(&r);
}
END_TEST

/*
 * The runner and qa_act answer from their tables: every step kind the parser accepts has a handler, and an
 * unknown action is refused with the table's list of actions (nothing reaches the device).
 */
START_TEST(test_step_and_action_tables)
{
	size_t n = 0;
	const char *const *kinds = sw__flow_step_kinds(&n);
	ck_assert_uint_ge(n, 20);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(sw__flow_step_runnable(kinds[i]), "step %s parses but the runner has no handler", kinds[i]);
	ck_assert(!sw__flow_step_runnable("tapp"));
	ck_assert(!sw__flow_step_runnable(NULL));
	struct rig r;
	rig_up(&r);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_drive_act(r.drive, "{\"action\":\"doubletap\"}", &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	ck_assert_str_eq(sw_error_message(err),
	                 "action must be one of tap, type, clear, swipe, scroll, press, open_url, wait");
	ck_assert_ptr_nonnull(strstr(sw_error_details_json(err), "\"changedState\":false"));
	ck_assert_ptr_null(out);
	sw_error_free(err);
	err = NULL;
	/* each known action still needs what it needs */
	ck_assert_int_eq(sw_drive_act(r.drive, "{\"action\":\"clear\"}", &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_message(err), "action clear needs a target");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_drive_act(r.drive, "{\"action\":\"scroll\",\"direction\":\"sideways\"}", &out, &err),
	                 SW_EINVAL);
	ck_assert_str_eq(sw_error_message(err), "action scroll needs direction up, down, left or right");
	sw_error_free(err);
	ck_assert_int_eq(F.taps + F.presses + F.urls, 0);
	rig_down(&r);
}
END_TEST

static Suite *flows_suite(void)
{
	Suite *s = suite_create("flows");
	TCase *tc = tcase_create("flows");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_corpus);
	tcase_add_test(tc, test_drive_checked_options_and_books);
	tcase_add_test(tc, test_step_and_action_tables);
	tcase_add_test(tc, test_ten_megabytes_refused);
	tcase_add_test(tc, test_flow_lookup);
	tcase_add_test(tc, test_policy_tokens);
	tcase_add_test(tc, test_run_login_secret_redacted);
	tcase_add_test(tc, test_run_explicit_variables_and_failure);
	tcase_add_test(tc, test_env_only_swipium_names);
	tcase_add_test(tc, test_consent_and_confinement);
	tcase_add_test(tc, test_repair_renamed_button);
	tcase_add_test(tc, test_plan_and_templates);
	tcase_add_test(tc, test_visual_steps);
	tcase_add_test(tc, test_run_saved_flows);
	tcase_add_test(tc, test_flow_consent_explain_cap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(flows_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
