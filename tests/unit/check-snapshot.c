/* check-snapshot.c: unit tests of snapshots: exact element lines, the cap, refs and STALE_REF, the line parser, hostile
 * XML. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"
#include "../../libswipium/snapshot/snapshot-internal.h"

static char *data_file(const char *name, size_t *len)
{
	const char *root = getenv("SWIPIUM_SOURCE_ROOT");
	ck_assert_ptr_nonnull(root);
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/uiautomator/%s", root, name);
	char *buf = NULL;
	sw_error *err = NULL;
	int rc = sw__read_file(path, 1 << 24, &buf, len, &err);
	ck_assert_msg(rc == 0, "cannot read %s", path);
	return buf;
}

static json_t *take(sw_snapshot_tracker *t, const char *xml, size_t len, const char *opts)
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_snapshot_take_xml(t, xml, len, opts, &out, &err);
	ck_assert_msg(rc == 0, "snapshot failed: %s", err ? sw_error_message(err) : "?");
	json_t *j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(j);
	sw_free(out);
	return j;
}

static json_t *take_file(sw_snapshot_tracker *t, const char *name, const char *opts)
{
	size_t len;
	char *xml = data_file(name, &len);
	json_t *j = take(t, xml, len, opts);
	free(xml);
	return j;
}

static const char *line_at(json_t *res, size_t i)
{
	return json_string_value(json_array_get(json_object_get(res, "elements"), i));
}

START_TEST(test_login_lines_exact)
{
	sw_snapshot_tracker *t = NULL;
	ck_assert_int_eq(sw_snapshot_tracker_new(&t, NULL), 0);
	json_t *res = take_file(t, "login.xml", NULL);
	const char *expect[] = {
	    "@e1 [text] \"Welcome back\" #title [40,120][1040,180] (non-clickable)",
	    "@e2 [text-field] \"Email\" #email [40,200][1040,245] (focused)",
	    "@e3 [text-field] \"\xc2\xabsecure\xc2\xbb\" #pw [40,300][1040,345] (secure)",
	    "@e4 [button] \"Show password\" #show_pw [40,360][400,400]",
	    "@e5 [button] \"Log in\" #login_btn text=\"Sign in\" [40,500][1040,545]",
	    "@e6 [button] \"Forgot password?\" #help [40,600][1040,660]",
	    "@e7 [button] \"Cart\" #\"Cart Button\" [900,40][1040,100]",
	};
	json_t *els = json_object_get(res, "elements");
	ck_assert_int_eq(json_array_size(els), SW_ARRAY_SIZE(expect));
	for (size_t i = 0; i < SW_ARRAY_SIZE(expect); i++)
		ck_assert_str_eq(line_at(res, i), expect[i]);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "elementsOmitted")), 0);
	ck_assert_str_eq(json_string_value(json_object_get(res, "package")), "com.example.login");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(res, "screen"), "width")), 1080);
	/* the password value never appears anywhere in the result */
	char *dump = json_dumps(res, 0);
	ck_assert_ptr_null(strstr(dump, "\xe2\x80\xa2"));
	free(dump);
	json_decref(res);
	sw_snapshot_tracker_free(t);
}
END_TEST

/* Builds a hierarchy from a list of node attribute strings. */
static char *hierarchy(const char **nodes, size_t n)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "<hierarchy rotation=\"0\"><node class=\"android.widget.FrameLayout\" package=\"p\" "
	                 "bounds=\"[0,0][1080,2400]\">");
	for (size_t i = 0; i < n; i++)
		sw__buf_printf(&b, "<node %s />", nodes[i]);
	sw__buf_puts(&b, "</node></hierarchy>");
	return sw__buf_steal(&b, NULL);
}

static const char *single_line(const char *node)
{
	static char out[1024];
	char *xml = hierarchy(&node, 1);
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	json_t *res = take(t, xml, strlen(xml), NULL);
	const char *l = line_at(res, 0);
	snprintf(out, sizeof(out), "%s", l ? l : "(none)");
	json_decref(res);
	sw_snapshot_tracker_free(t);
	free(xml);
	return out;
}

START_TEST(test_line_rules)
{
	/* several flags: fixed order, comma, no spaces */
	ck_assert_str_eq(
	    single_line("class=\"android.widget.EditText\" password=\"true\" focused=\"true\" text=\"x\" "
	                "content-desc=\"PIN\" bounds=\"[1,2][3,4]\""),
	    "@e1 [text-field] \"PIN\" text=\"\xc2\xabsecure\xc2\xbb\" [1,2][3,4] (focused,secure,non-clickable)");
	/* quotes, backslashes and newlines are JSON-escaped */
	ck_assert_str_eq(single_line("class=\"android.widget.TextView\" text=\"say &quot;hi&quot;&#10;a\\b\" "
	                             "bounds=\"[0,0][10,10]\""),
	                 "@e1 [text] \"say \\\"hi\\\"\\na\\\\b\" [0,0][10,10] (non-clickable)");
	/* name capped at 80 UTF-16 units with ... */
	ck_assert_str_eq(
	    single_line(
	        "class=\"android.widget.Button\" clickable=\"true\" text=\"0123456789012345678901234567890123456789"
	        "01234567890123456789012345678901234567890123456789\" bounds=\"[0,0][10,10]\""),
	    "@e1 [button] \"01234567890123456789012345678901234567890123456789012345678901234567890123456789...\" "
	    "[0,0][10,10]");
	/* an empty clickable: "" */
	ck_assert_str_eq(single_line("class=\"android.view.View\" clickable=\"true\" bounds=\"[40,200][1040,245]\""),
	                 "@e1 [button] \"\" [40,200][1040,245]");
	/* scrollable, image roles; id with ':' or '/' in its short form gets quoted */
	ck_assert_str_eq(single_line("class=\"androidx.recyclerview.widget.RecyclerView\" scrollable=\"true\" "
	                             "resource-id=\"com.x:id/list\" bounds=\"[0,100][1080,2000]\""),
	                 "@e1 [scrollable] \"\" #list [0,100][1080,2000] (non-clickable)");
	ck_assert_str_eq(single_line("class=\"android.widget.ImageView\" content-desc=\"Logo\" bounds=\"[0,0][5,5]\""),
	                 "@e1 [image] \"Logo\" [0,0][5,5] (non-clickable)");
	ck_assert_str_eq(single_line("class=\"android.widget.Switch\" checkable=\"true\" content-desc=\"Wifi\" "
	                             "resource-id=\"a:b\" bounds=\"[0,0][5,5]\""),
	                 "@e1 [Switch] \"Wifi\" #\"a:b\" [0,0][5,5] (non-clickable)");
	/* text equal to the label is not repeated */
	ck_assert_str_eq(
	    single_line("class=\"android.widget.Button\" clickable=\"true\" text=\"Go\" content-desc=\"Go\" "
	                "bounds=\"[0,0][5,5]\""),
	    "@e1 [button] \"Go\" [0,0][5,5]");
	/* inverted and off-screen bounds are skipped */
	ck_assert_str_eq(
	    single_line("class=\"android.widget.Button\" clickable=\"true\" text=\"Go\" bounds=\"[50,50][10,10]\""),
	    "(none)");
	ck_assert_str_eq(single_line("class=\"android.widget.Button\" clickable=\"true\" text=\"Go\" "
	                             "bounds=\"[2000,50][2100,60]\""),
	                 "(none)");
}
END_TEST

static char *redact_secret(const char *text, void *ud)
{
	const char *secret = ud;
	const char *p = strstr(text, secret);
	if (!p)
		return NULL;
	sw_buf b = SW_BUF_INIT;
	sw__buf_append(&b, text, (size_t)(p - text));
	sw__buf_puts(&b, "\xc2\xab"
	                 "redacted"
	                 "\xc2\xbb");
	sw__buf_puts(&b, p + strlen(secret));
	return sw__buf_steal(&b, NULL);
}

START_TEST(test_redaction_before_cap)
{
	/* 76 chars, then a secret: the cut must not split the placeholder */
	const char *node =
	    "class=\"android.widget.TextView\" text=\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaahunter2secret tail\" bounds=\"[0,0][10,10]\"";
	char *xml = hierarchy(&node, 1);
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	sw_snapshot_tracker_set_redactor(t, redact_secret, (void *)"hunter2secret");
	json_t *res = take(t, xml, strlen(xml), NULL);
	ck_assert_str_eq(
	    line_at(res, 0),
	    "@e1 [text] \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" "
	    "[0,0][10,10] (non-clickable)");
	char *dump = json_dumps(res, 0);
	ck_assert_ptr_null(strstr(dump, "hunter2"));
	free(dump);
	json_decref(res);
	free(xml);
	sw_snapshot_tracker_free(t);
}
END_TEST

START_TEST(test_cap_priorities)
{
	/* 100 plain texts, 30 buttons, 1 focused field at the end: cap keeps focused + clickables + the first texts */
	const char *nodes[131];
	char *bufs[131];
	for (int i = 0; i < 131; i++) {
		bufs[i] = malloc(256);
		if (i < 100)
			snprintf(bufs[i], 256,
			         "class=\"android.widget.TextView\" text=\"t%d\" bounds=\"[0,%d][100,%d]\"", i, i,
			         i + 1);
		else if (i < 130)
			snprintf(bufs[i], 256,
			         "class=\"android.widget.Button\" clickable=\"true\" text=\"b%d\" "
			         "bounds=\"[100,%d][200,%d]\"",
			         i, i, i + 1);
		else
			snprintf(bufs[i], 256,
			         "class=\"android.widget.EditText\" focused=\"true\" clickable=\"true\" "
			         "text=\"f\" bounds=\"[200,0][300,10]\"");
		nodes[i] = bufs[i];
	}
	char *xml = hierarchy(nodes, 131);
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	json_t *res = take(t, xml, strlen(xml), NULL);
	json_t *els = json_object_get(res, "elements");
	ck_assert_int_eq(json_array_size(els), 60);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "elementsOmitted")), 71);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "elementCount")), 131);
	ck_assert_ptr_nonnull(json_object_get(res, "hint"));
	/* document order restored: t0..t28, then b100..b129, then the field */
	ck_assert_ptr_nonnull(strstr(line_at(res, 0), "\"t0\""));
	ck_assert_ptr_nonnull(strstr(line_at(res, 28), "\"t28\""));
	ck_assert_ptr_nonnull(strstr(line_at(res, 29), "\"b100\""));
	ck_assert_ptr_nonnull(strstr(line_at(res, 58), "\"b129\""));
	ck_assert_ptr_nonnull(strstr(line_at(res, 59), "(focused"));
	json_decref(res);
	/* filter reaches elements over the cap */
	res = take(t, xml, strlen(xml), "{\"filter\":\"T99\"}");
	ck_assert_int_eq(json_array_size(json_object_get(res, "elements")), 1);
	ck_assert_ptr_nonnull(strstr(line_at(res, 0), "\"t99\""));
	json_decref(res);
	for (int i = 0; i < 131; i++)
		free(bufs[i]);
	free(xml);
	sw_snapshot_tracker_free(t);
}
END_TEST

START_TEST(test_refs_stale)
{
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	sw_error *err = NULL;
	char *out = NULL;
	/* before any snapshot */
	ck_assert_int_lt(sw_snapshot_inspect(t, "@e1", &out, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "STALE_REF");
	sw_error_free(err);
	err = NULL;

	json_t *res = take_file(t, "login.xml", NULL);
	json_decref(res);
	ck_assert_int_eq(sw_snapshot_inspect(t, "@e5", &out, &err), 0);
	json_t *o = json_loads(out, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(o, "resourceId")), "com.example.login:id/login_btn");
	ck_assert_str_eq(json_string_value(json_object_get(o, "text")), "Sign in");
	json_decref(o);
	sw_free(out);
	/* the secure field's raw text attribute is masked */
	ck_assert_int_eq(sw_snapshot_inspect(t, "@e3", &out, &err), 0);
	ck_assert_ptr_null(strstr(out, "\xe2\x80\xa2"));
	ck_assert_ptr_nonnull(strstr(out, "\"text\":\"\xc2\xabsecure\xc2\xbb\""));
	sw_free(out);

	/* same screen again: same refs */
	res = take_file(t, "login.xml", "{\"diff\":true}");
	ck_assert_ptr_nonnull(strstr(line_at(res, 4), "@e5 [button] \"Log in\""));
	json_t *diff = json_object_get(res, "diff");
	ck_assert(json_is_false(json_object_get(diff, "changed")));
	json_decref(res);

	/* another screen: login refs are stale, new refs continue the numbering */
	res = take_file(t, "dialog.xml", "{\"diff\":true}");
	ck_assert_ptr_nonnull(strstr(line_at(res, 0), "@e8 [button] \"Buy\""));
	diff = json_object_get(res, "diff");
	ck_assert(json_is_true(json_object_get(diff, "changed")));
	ck_assert_int_eq(json_integer_value(json_object_get(diff, "removedCount")), 7);
	ck_assert_int_eq(json_integer_value(json_object_get(diff, "addedCount")), 3);
	json_decref(res);
	ck_assert_int_lt(sw_snapshot_inspect(t, "@e5", &out, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "STALE_REF");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_lt(sw_snapshot_inspect(t, "@e99", &out, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "ELEMENT_NOT_FOUND");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_lt(sw_snapshot_inspect(t, "e5x", &out, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	sw_snapshot_tracker_free(t);
}
END_TEST

START_TEST(test_state_change_and_text_field_ref)
{
	const char *a[] = {"class=\"android.widget.EditText\" clickable=\"true\" resource-id=\"p:id/name\" text=\"\" "
	                   "bounds=\"[0,0][100,50]\"",
	                   "class=\"android.widget.CheckBox\" clickable=\"true\" checkable=\"true\" checked=\"false\" "
	                   "text=\"Agree\" bounds=\"[0,60][100,100]\""};
	const char *b[] = {
	    "class=\"android.widget.EditText\" clickable=\"true\" resource-id=\"p:id/name\" text=\"Ann\" "
	    "bounds=\"[0,0][100,50]\"",
	    "class=\"android.widget.CheckBox\" clickable=\"true\" checkable=\"true\" checked=\"true\" "
	    "text=\"Agree\" bounds=\"[0,60][100,100]\""};
	char *xa = hierarchy(a, 2), *xb = hierarchy(b, 2);
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	json_decref(take(t, xa, strlen(xa), NULL));
	json_t *res = take(t, xb, strlen(xb), "{\"diff\":true}");
	ck_assert_ptr_nonnull(strstr(line_at(res, 0), "@e1 [text-field] \"Ann\""));
	json_t *diff = json_object_get(res, "diff");
	ck_assert_int_eq(json_integer_value(json_object_get(diff, "addedCount")), 0);
	json_t *sc = json_object_get(diff, "stateChanged");
	ck_assert_int_eq(json_array_size(sc), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(sc, 0), "field")), "value");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(sc, 1), "field")), "checked");
	json_decref(res);
	free(xa);
	free(xb);
	sw_snapshot_tracker_free(t);
}
END_TEST

START_TEST(test_resolve_targets)
{
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	json_decref(take_file(t, "login.xml", NULL));
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_snapshot_resolve(t, "{\"text\":\"Sign in\"}", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"ref\":\"@e5\""));
	sw_free(out);
	ck_assert_int_eq(sw_snapshot_resolve(t, "{\"id\":\"pw\"}", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"ref\":\"@e3\""));
	sw_free(out);
	ck_assert_int_eq(sw_snapshot_resolve(
	                     t,
	                     "{\"selector\":{\"using\":\"accessibility id\",\"value\":\"com.example.login:id/email\"}}",
	                     &out, &err),
	                 0);
	ck_assert_ptr_nonnull(strstr(out, "\"ref\":\"@e2\""));
	sw_free(out);
	/* "password" is a substring of two elements' names: ambiguous */
	ck_assert_int_lt(sw_snapshot_resolve(t, "{\"text\":\"password\"}", &out, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "AMBIGUOUS_SELECTOR");
	ck_assert_ptr_nonnull(strstr(sw_error_details_json(err), "candidates"));
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_snapshot_resolve(t, "{\"text\":\"password\",\"index\":1}", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"ref\":\"@e6\""));
	sw_free(out);
	ck_assert_int_lt(sw_snapshot_resolve(t, "{\"text\":\"Nope\"}", &out, &err), 0);
	ck_assert_str_eq(sw_error_failure_code(err), "ELEMENT_NOT_FOUND");
	sw_error_free(err);
	sw_snapshot_tracker_free(t);
}
END_TEST

static void roundtrip(const char *line, const char *expect_json)
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_snapshot_parse_element_line(line, &out, &err);
	ck_assert_msg(rc == 0, "did not parse: %s", line);
	ck_assert_str_eq(out, expect_json);
	sw_free(out);
}

START_TEST(test_line_parser)
{
	roundtrip("@e3 [button] \"Log in\" #login_btn [40,200][1040,245]",
	          "{\"ref\":\"@e3\",\"role\":\"button\",\"name\":\"Log in\",\"id\":\"login_btn\",\"text\":null,"
	          "\"bounds\":[40,200,1040,245],\"clickable\":true,\"focused\":false,\"secure\":false}");
	roundtrip("@e1 [button] \"Cart\" #\"Cart Button\" text=\"3 items\" [40,200][1040,245]",
	          "{\"ref\":\"@e1\",\"role\":\"button\",\"name\":\"Cart\",\"id\":\"Cart Button\",\"text\":\"3 items\","
	          "\"bounds\":[40,200,1040,245],\"clickable\":true,\"focused\":false,\"secure\":false}");
	roundtrip(
	    "@e2 [text-field] \"\xc2\xabsecure\xc2\xbb\" [40,200][1040,245] (focused,secure,non-clickable)",
	    "{\"ref\":\"@e2\",\"role\":\"text-field\",\"name\":\"\xc2\xabsecure\xc2\xbb\",\"id\":null,\"text\":null,"
	    "\"bounds\":[40,200,1040,245],\"clickable\":false,\"focused\":true,\"secure\":true}");
	roundtrip("@e1 [text] \"Hi \\\"x\\\"\\n\" (non-clickable)",
	          "{\"ref\":\"@e1\",\"role\":\"text\",\"name\":\"Hi \\\"x\\\"\\n\",\"id\":null,\"text\":null,"
	          "\"bounds\":null,\"clickable\":false,\"focused\":false,\"secure\":false}");
	roundtrip("@e12 [node] \"\" #\"com.x:id/list\"",
	          "{\"ref\":\"@e12\",\"role\":\"node\",\"name\":\"\",\"id\":\"com.x:id/list\",\"text\":null,"
	          "\"bounds\":null,\"clickable\":true,\"focused\":false,\"secure\":false}");
	const char *bad[] = {"",
	                     "@e",
	                     "@e0 [x] \"\"",
	                     "e1 [x] \"\"",
	                     "@e1 [x]",
	                     "@e1 [x] \"unterminated",
	                     "@e1 [x] \"a\" (bogus)",
	                     "@e1 [x] \"a\" (non-clickable,focused)",
	                     "@e1 [x] \"a\" ()",
	                     "@e1 [x] \"a\" trailing",
	                     "@e1 [x] \"a\" [1,2][3]",
	                     "@e1 [x] \"a\" (focused,)",
	                     "@e1 [x] \"a\" # ",
	                     "@e1 [x] \"a\" (focused,focused)"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(bad); i++) {
		char *out = NULL;
		sw_error *err = NULL;
		ck_assert_msg(sw_snapshot_parse_element_line(bad[i], &out, &err) == SW_EINVAL, "accepted: %s", bad[i]);
		ck_assert_ptr_null(out);
		sw_error_free(err);
	}
}
END_TEST

START_TEST(test_every_rendered_line_parses_back)
{
	const char *files[] = {"login.xml", "dialog.xml"};
	for (size_t f = 0; f < SW_ARRAY_SIZE(files); f++) {
		sw_snapshot_tracker *t = NULL;
		sw_snapshot_tracker_new(&t, NULL);
		json_t *res = take_file(t, files[f], NULL);
		json_t *verbose = take_file(t, files[f], "{\"verbose\":true}");
		json_t *els = json_object_get(res, "elements");
		for (size_t i = 0; i < json_array_size(els); i++) {
			char *out = NULL;
			ck_assert_int_eq(sw_snapshot_parse_element_line(line_at(res, i), &out, NULL), 0);
			json_t *p = json_loads(out, 0, NULL);
			json_t *v = json_array_get(json_object_get(verbose, "elements"), i);
			ck_assert_str_eq(json_string_value(json_object_get(p, "ref")),
			                 json_string_value(json_object_get(v, "ref")));
			ck_assert(json_equal(json_object_get(p, "bounds"), json_object_get(v, "bounds")));
			ck_assert_int_eq(json_is_true(json_object_get(p, "clickable")),
			                 json_is_true(json_object_get(v, "clickable")));
			json_t *id = json_object_get(v, "id");
			if (id)
				ck_assert_str_eq(json_string_value(json_object_get(p, "id")), json_string_value(id));
			json_decref(p);
			sw_free(out);
		}
		json_decref(res);
		json_decref(verbose);
		sw_snapshot_tracker_free(t);
	}
}
END_TEST

static const char *fail_code(sw_snapshot_tracker *t, const char *xml, size_t len)
{
	static char code[64];
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_snapshot_take_xml(t, xml, len, NULL, &out, &err);
	ck_assert_int_lt(rc, 0);
	ck_assert_ptr_null(out);
	snprintf(code, sizeof(code), "%s", sw_error_failure_code(err));
	sw_error_free(err);
	return code;
}

START_TEST(test_hostile_xml_and_visual_fallback)
{
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	size_t len;
	char *g = data_file("garbage.xml", &len);
	ck_assert_str_eq(fail_code(t, g, len), "SNAPSHOT_FAILED");
	free(g);
	char *e = data_file("empty.xml", &len);
	ck_assert_str_eq(fail_code(t, e, len), "SNAPSHOT_FAILED");
	free(e);
	/* third failure in a row: visual-only */
	char *d = data_file("entities.xml", &len);
	ck_assert_str_eq(fail_code(t, d, len), "VISUAL_ONLY_SCREEN");
	free(d);
	char *w = data_file("wrongroot.xml", &len);
	ck_assert_str_eq(fail_code(t, w, len), "VISUAL_ONLY_SCREEN");
	free(w);
	ck_assert_uint_eq(sw_snapshot_tracker_failures(t), 4);
	/* the first good dump recovers */
	json_t *res = take_file(t, "login.xml", NULL);
	ck_assert(json_is_true(json_object_get(res, "modeRecovered")));
	json_decref(res);
	ck_assert_uint_eq(sw_snapshot_tracker_failures(t), 0);
	res = take_file(t, "login.xml", NULL);
	ck_assert_ptr_null(json_object_get(res, "modeRecovered"));
	json_decref(res);
	/* bad options */
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_snapshot_take_xml(t, "<hierarchy/>", 12, "[1]", &out, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	/* an empty hierarchy is a poor snapshot, not a failure */
	res = take(t, "<hierarchy/>", 12, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(res, "quality")), "poor");
	json_decref(res);
	/* deeply nested input is refused or parsed, never a crash */
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "<hierarchy>");
	for (int i = 0; i < 3000; i++)
		sw__buf_puts(&b, "<node class=\"a\" text=\"x\" bounds=\"[0,0][10,10]\">");
	for (int i = 0; i < 3000; i++)
		sw__buf_puts(&b, "</node>");
	sw__buf_puts(&b, "</hierarchy>");
	ck_assert_int_lt(sw_snapshot_take_xml(t, b.data, b.len, NULL, &out, &err), 0);
	sw_error_free(err);
	sw__buf_free(&b);
	sw_snapshot_tracker_free(t);
}
END_TEST

/* Attribute values are decoded and names keep an unbound prefix; a prefixed <x:node> is not a node. */
START_TEST(test_attribute_decoding_and_prefixes)
{
	static const char xml[] =
	    "<hierarchy rotation=\"1\" xmlns:q=\"urn:q\"><node text=\"a &amp; b &#38; c &lt;x&gt;\" z:other=\"2\" "
	    "q:extra=\"1\" clickable=\"true\" bounds=\"[0,0][100,100]\"/><x:node text=\"skipped\" clickable=\"true\" "
	    "bounds=\"[0,100][100,200]\"><node text=\"inside skipped\" clickable=\"true\" bounds=\"[0,100][100,200]\"/>"
	    "</x:node><q:node text=\"bound\" clickable=\"true\" bounds=\"[0,200][100,300]\"/></hierarchy>";
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	json_t *res = take(t, xml, sizeof(xml) - 1, NULL);
	ck_assert_str_eq(line_at(res, 0), "@e1 [button] \"a & b & c <x>\" [0,0][100,100]");
	ck_assert_uint_eq(json_array_size(json_object_get(res, "elements")), 1);
	json_t *sig = json_object_get(json_object_get(res, "snapshotQuality"), "signals");
	ck_assert_int_eq(json_integer_value(json_object_get(sig, "nodeCount")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(res, "screen"), "rotation")), 1);
	json_decref(res);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_snapshot_inspect(t, "@e1", &out, &err), 0);
	json_t *o = json_loads(out, 0, NULL);
	sw_free(out);
	json_t *attrs = json_object_get(o, "attributes");
	ck_assert_str_eq(json_string_value(json_object_get(attrs, "text")), "a & b & c <x>");
	ck_assert_str_eq(json_string_value(json_object_get(attrs, "z:other")), "2");
	ck_assert_str_eq(json_string_value(json_object_get(attrs, "extra")), "1");
	ck_assert_uint_eq(json_object_size(attrs), 5);
	json_decref(o);
	sw_snapshot_tracker_free(t);
}
END_TEST

START_TEST(test_five_thousand_nodes)
{
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "<hierarchy rotation=\"0\"><node class=\"android.widget.FrameLayout\" package=\"p\" "
	                 "bounds=\"[0,0][1080,2400]\"><node class=\"androidx.recyclerview.widget.RecyclerView\" "
	                 "scrollable=\"true\" resource-id=\"p:id/list\" bounds=\"[0,0][1080,2400]\">");
	for (int i = 0; i < 2500; i++)
		sw__buf_printf(
		    &b,
		    "<node class=\"android.widget.LinearLayout\" clickable=\"true\" bounds=\"[0,%d][1080,%d]\">"
		    "<node class=\"android.widget.TextView\" text=\"Row %d\" bounds=\"[0,%d][1080,%d]\"/></node>",
		    i % 2400, i % 2400 + 1, i, i % 2400, i % 2400 + 1);
	sw__buf_puts(&b, "</node></node></hierarchy>");
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	json_t *res = take(t, b.data, b.len, NULL);
	ck_assert_int_eq(json_array_size(json_object_get(res, "elements")), 60);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "elementCount")), 2501);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "elementsOmitted")), 2441);
	json_t *sig = json_object_get(json_object_get(res, "snapshotQuality"), "signals");
	ck_assert_int_eq(json_integer_value(json_object_get(sig, "nodeCount")), 5002);
	/* rows are not overlays */
	ck_assert_int_eq(json_array_size(json_object_get(res, "overlays")), 0);
	json_decref(res);
	/* same dump again: every ref is kept */
	res = take(t, b.data, b.len, "{\"diff\":true}");
	ck_assert(json_is_false(json_object_get(json_object_get(res, "diff"), "changed")));
	json_decref(res);
	sw__buf_free(&b);
	sw_snapshot_tracker_free(t);
}
END_TEST

START_TEST(test_overlays)
{
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	json_t *res = take_file(t, "dialog.xml", NULL);
	json_t *ov = json_object_get(res, "overlays");
	ck_assert_int_eq(json_array_size(ov), 1);
	json_t *o = json_array_get(ov, 0);
	ck_assert_str_eq(json_string_value(json_object_get(o, "kind")), "snackbar");
	ck_assert_str_eq(json_string_value(json_object_get(o, "label")), "Item added to cart");
	ck_assert_str_eq(json_string_value(json_object_get(o, "dismissRef")), "@e3");
	/* the Buy button sits under the snackbar */
	const sw__element *buy = sw__snapshot_find_ref(t, 1);
	ck_assert_ptr_nonnull(buy);
	ck_assert_ptr_nonnull(sw__snapshot_overlay_over(sw__snapshot_current(t), buy));
	const sw__element *dismiss = sw__snapshot_find_ref(t, 3);
	ck_assert_ptr_null(sw__snapshot_overlay_over(sw__snapshot_current(t), dismiss));
	json_decref(res);
	/* the login screen has none; text fields are never overlays */
	res = take_file(t, "login.xml", NULL);
	ck_assert_int_eq(json_array_size(json_object_get(res, "overlays")), 0);
	ck_assert_str_eq(json_string_value(json_object_get(res, "quality")), "good");
	json_decref(res);
	sw_snapshot_tracker_free(t);
}
END_TEST


/* ---- geometry: each dump carries its own size and rotation (issue 11, item 20) ---- */

#define GEO_NODE(cls, text, b, extra)                                                                             \
	"<node index=\"0\" text=\"" text "\" resource-id=\"\" class=\"" cls "\" package=\"com.example.geo\" "        \
	"content-desc=\"\" clickable=\"" extra "\" enabled=\"true\" bounds=\"" b "\""

static const char *screen_source(json_t *res)
{
	return json_string_value(json_object_get(json_object_get(res, "screen"), "source"));
}

static int screen_dim(json_t *res, const char *k)
{
	return (int)json_integer_value(json_object_get(json_object_get(res, "screen"), k));
}

START_TEST(test_geometry_portrait_and_landscape)
{
	/* portrait: the root window covers 1080x2400; a row below it is counted, not hidden */
	static const char portrait[] =
	    "<hierarchy rotation=\"0\">" GEO_NODE("android.widget.FrameLayout", "", "[0,0][1080,2400]", "false") ">"
	    GEO_NODE("android.widget.Button", "Top", "[40,100][400,200]", "true") " />"
	    GEO_NODE("android.widget.TextView", "Below the window", "[40,2500][400,2600]", "false") " />"
	    GEO_NODE("android.widget.TextView", "Collapsed", "[40,300][40,300]", "false") " />"
	    "<node index=\"4\" text=\"Not shown\" class=\"android.widget.TextView\" visible-to-user=\"false\" "
	    "bounds=\"[40,400][400,500]\" /></node></hierarchy>";
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	json_t *res = take(t, portrait, sizeof(portrait) - 1, "{\"screen\":{\"width\":1080,\"height\":2400}}");
	ck_assert_int_eq(json_array_size(json_object_get(res, "elements")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "elementsLeftOut")), 3);
	json_t *why = json_object_get(res, "leftOutReasons");
	ck_assert_int_eq(json_integer_value(json_object_get(why, "offscreen")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(why, "noSize")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(why, "invisible")), 1);
	ck_assert_int_eq(screen_dim(res, "width"), 1080);
	ck_assert_str_eq(screen_source(res), "device");
	json_decref(res);

	/* landscape: `wm size` still says 1080x2400 (the natural size); the dump is 2400 wide and nothing past
	 * x=1080 is lost */
	static const char landscape[] =
	    "<hierarchy rotation=\"1\">" GEO_NODE("android.widget.FrameLayout", "", "[0,0][2400,1080]", "false") ">"
	    GEO_NODE("android.widget.Button", "Left", "[100,500][400,600]", "true") " />"
	    GEO_NODE("android.widget.Button", "Far right", "[2000,500][2300,600]", "true") " /></node></hierarchy>";
	res = take(t, landscape, sizeof(landscape) - 1, "{\"screen\":{\"width\":1080,\"height\":2400}}");
	ck_assert_int_eq(json_array_size(json_object_get(res, "elements")), 2);
	ck_assert_ptr_nonnull(strstr(line_at(res, 1), "\"Far right\" [2000,500][2300,600]"));
	ck_assert_int_eq(json_integer_value(json_object_get(res, "elementsLeftOut")), 0);
	ck_assert_ptr_null(json_object_get(res, "leftOutReasons"));
	ck_assert_int_eq(screen_dim(res, "width"), 2400);
	ck_assert_int_eq(screen_dim(res, "height"), 1080);
	ck_assert_int_eq(screen_dim(res, "rotation"), 1);
	json_decref(res);
	sw_snapshot_tracker_free(t);
}
END_TEST

START_TEST(test_geometry_dump_larger_than_wm_size_and_dialogs)
{
	/* `wm size` reports an override of 720x1600 but the app window is 1080x2400: the dump decides */
	static const char big[] =
	    "<hierarchy rotation=\"0\">" GEO_NODE("android.widget.FrameLayout", "", "[0,0][1080,2400]", "false") ">"
	    GEO_NODE("android.widget.Button", "Corner", "[800,2000][1060,2300]", "true") " /></node></hierarchy>";
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	json_t *res = take(t, big, sizeof(big) - 1, "{\"screen\":{\"width\":720,\"height\":1600}}");
	ck_assert_int_eq(json_array_size(json_object_get(res, "elements")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(res, "elementsLeftOut")), 0);
	ck_assert_int_eq(screen_dim(res, "width"), 1080);
	ck_assert_int_eq(screen_dim(res, "height"), 2400);
	ck_assert_str_eq(screen_source(res), "dump");
	json_decref(res);
	/* without any device size the dump alone tells the geometry */
	res = take(t, big, sizeof(big) - 1, NULL);
	ck_assert_str_eq(screen_source(res), "dump");
	ck_assert_int_eq(screen_dim(res, "height"), 2400);
	json_decref(res);
	/* a dialog alone: its window bounds its elements but is not the screen */
	static const char dialog[] =
	    "<hierarchy rotation=\"0\">" GEO_NODE("android.widget.FrameLayout", "", "[90,950][990,1450]", "false") ">"
	    GEO_NODE("android.widget.Button", "OK", "[700,1300][950,1420]", "true") " /></node></hierarchy>";
	res = take(t, dialog, sizeof(dialog) - 1, "{\"screen\":{\"width\":1080,\"height\":2400}}");
	ck_assert_str_eq(screen_source(res), "device");
	ck_assert_int_eq(screen_dim(res, "width"), 1080);
	json_decref(res);
	res = take(t, dialog, sizeof(dialog) - 1, NULL);
	ck_assert_str_eq(screen_source(res), "window");
	ck_assert_int_eq(json_array_size(json_object_get(res, "elements")), 1);
	json_decref(res);
	sw_snapshot_tracker_free(t);
}
END_TEST

static Suite *snapshot_suite(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = tcase_create("lines");
	tcase_add_test(tc, test_login_lines_exact);
	tcase_add_test(tc, test_line_rules);
	tcase_add_test(tc, test_redaction_before_cap);
	suite_add_tcase(s, tc);
	tc = tcase_create("cap");
	tcase_add_test(tc, test_cap_priorities);
	tcase_add_test(tc, test_five_thousand_nodes);
	suite_add_tcase(s, tc);
	tc = tcase_create("refs");
	tcase_add_test(tc, test_refs_stale);
	tcase_add_test(tc, test_state_change_and_text_field_ref);
	tcase_add_test(tc, test_resolve_targets);
	suite_add_tcase(s, tc);
	tc = tcase_create("parser");
	tcase_add_test(tc, test_line_parser);
	tcase_add_test(tc, test_every_rendered_line_parses_back);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_add_test(tc, test_hostile_xml_and_visual_fallback);
	tcase_add_test(tc, test_attribute_decoding_and_prefixes);
	suite_add_tcase(s, tc);
	tc = tcase_create("overlays");
	tcase_add_test(tc, test_overlays);
	suite_add_tcase(s, tc);
	tc = tcase_create("geometry");
	tcase_add_test(tc, test_geometry_portrait_and_landscape);
	tcase_add_test(tc, test_geometry_dump_larger_than_wm_size_and_dialogs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(snapshot_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
