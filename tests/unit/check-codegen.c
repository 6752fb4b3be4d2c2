/* check-codegen.c: unit tests of the literal/comment escapers and the identifier builder (generate/codegen.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "codegen-internal.h"

/* The hostile labels of issue 16: each must come out inert in every context. */
static const char *const hostile[] = {
    "Say \"hi\" and 'bye'",
    "C:\\path\\to\\n",
    "${process.exit(1)}",
    "ok\nprocess.exit(7)",
    "ok\r\nimport os; os.system('x')",
    "end */ process.exit(3); /*",
    "doc \"\"\" __import__('os')",
    "Caf\xc3\xa9 \xe2\x82\xac 5 \xe2\x9c\x93 \xf0\x9f\x98\x80",
    "2FA code",
    "a\xe2\x80\xa8"
    "b\xe2\x80\xa9"
    "c",
    "bad \xff\xfe utf8 \xc3",
    "rtl \xe2\x80\xae evil",
    "tab\there \x01 \x7f",
    "{braces} {{x}}",
    "`backtick` ${a}",
    "trailing *",
    "trailing \\",
};

static char *run(void (*fn)(sw_buf *, const char *), const char *s)
{
	sw_buf b = SW_BUF_INIT;
	fn(&b, s);
	ck_assert(!b.failed);
	char *out = sw__buf_steal(&b, NULL);
	ck_assert_ptr_nonnull(out);
	return out;
}

static void js_single(sw_buf *b, const char *s)
{
	sw__cg_js_string(b, s, '\'');
}

static void js_double(sw_buf *b, const char *s)
{
	sw__cg_js_string(b, s, '"');
}

/* No byte that ends a line in JavaScript or Python, no LS/PS, no bidi override, valid UTF-8. */
static void assert_one_safe_line(const char *out)
{
	ck_assert(sw__utf8_valid(out, strlen(out)));
	ck_assert_ptr_null(strchr(out, '\n'));
	ck_assert_ptr_null(strchr(out, '\r'));
	ck_assert_ptr_null(strstr(out, "\xe2\x80\xa8"));
	ck_assert_ptr_null(strstr(out, "\xe2\x80\xa9"));
	ck_assert_ptr_null(strstr(out, "\xe2\x80\xae"));
	for (const unsigned char *p = (const unsigned char *)out; *p; p++)
		ck_assert_msg(*p >= 0x20 && *p != 0x7f, "control byte 0x%02x in %s", *p, out);
}

/* Inside a literal delimited by @q, every @q and every backslash-run is escaped: an unescaped @q
 * would end the literal early. Walks the body and checks each quote is preceded by an odd run of '\'. */
static void assert_quote_closed_once(const char *out, char q)
{
	size_t n = strlen(out);
	ck_assert(n >= 2);
	ck_assert_int_eq(out[0], q);
	ck_assert_int_eq(out[n - 1], q);
	for (size_t i = 1; i + 1 < n; i++) {
		if (out[i] != q)
			continue;
		size_t bs = 0;
		for (size_t j = i; j > 1 && out[j - 1] == '\\'; j--)
			bs++;
		ck_assert_msg(bs % 2 == 1, "unescaped quote at %zu in %s", i, out);
	}
	size_t bs = 0;
	for (size_t j = n - 1; j > 1 && out[j - 1] == '\\'; j--)
		bs++;
	ck_assert_msg(bs % 2 == 0, "closing quote escaped in %s", out);
}

START_TEST(test_js_strings)
{
	for (size_t i = 0; i < SW_ARRAY_SIZE(hostile); i++) {
		char *a = run(js_single, hostile[i]);
		assert_one_safe_line(a);
		assert_quote_closed_once(a, '\'');
		free(a);
		char *d = run(js_double, hostile[i]);
		assert_one_safe_line(d);
		assert_quote_closed_once(d, '"');
		free(d);
	}
	char *s = run(js_single, "a'b\"c\\d\ne\xe2\x80\xa8");
	ck_assert_str_eq(s, "'a\\'b\\\"c\\\\d\\ne\\u2028'");
	free(s);
	s = run(js_single, "\xf3\xa0\x80\x81 tag");
	ck_assert_str_eq(s, "'\\u{E0001} tag'");
	free(s);
	s = run(js_single, "bad \xff end");
	ck_assert_str_eq(s, "'bad \xef\xbf\xbd end'");
	free(s);
	s = run(js_single, "Caf\xc3\xa9");
	ck_assert_str_eq(s, "'Caf\xc3\xa9'");
	free(s);
}
END_TEST

START_TEST(test_js_template)
{
	char *s = run(sw__cg_js_template, "${process.exit(1)} `x` \\");
	ck_assert_str_eq(s, "`\\${process.exit(1)} \\`x\\` \\\\`");
	free(s);
	for (size_t i = 0; i < SW_ARRAY_SIZE(hostile); i++) {
		char *t = run(sw__cg_js_template, hostile[i]);
		assert_one_safe_line(t);
		assert_quote_closed_once(t, '`');
		/* A '$' is always escaped, so no "${" substitution can open. */
		for (const char *p = strchr(t, '$'); p; p = strchr(p + 1, '$'))
			ck_assert_int_eq(p[-1], '\\');
		free(t);
	}
}
END_TEST

START_TEST(test_js_comments)
{
	for (size_t i = 0; i < SW_ARRAY_SIZE(hostile); i++) {
		char *l = run(sw__cg_js_line_comment, hostile[i]);
		assert_one_safe_line(l);
		free(l);
		char *c = run(sw__cg_js_block_comment, hostile[i]);
		assert_one_safe_line(c);
		ck_assert_ptr_null(strstr(c, "*/"));
		/* A body ending in a star would close early on the writer's own closing star-slash. */
		ck_assert(c[0] == '\0' || c[strlen(c) - 1] != '*');
		free(c);
	}
	char *c = run(sw__cg_js_block_comment, "a */ b\nc");
	ck_assert_str_eq(c, "a *\\/ b<U+000A>c");
	free(c);
	c = run(sw__cg_js_block_comment, "x*");
	ck_assert_str_eq(c, "x* ");
	free(c);
}
END_TEST

START_TEST(test_py_strings)
{
	for (size_t i = 0; i < SW_ARRAY_SIZE(hostile); i++) {
		char *s = run(sw__cg_py_string, hostile[i]);
		assert_one_safe_line(s);
		assert_quote_closed_once(s, '"');
		free(s);
		sw_buf b = SW_BUF_INIT;
		sw__buf_puts(&b, "f\"");
		sw__cg_py_fstring_text(&b, hostile[i]);
		sw__buf_putc(&b, '"');
		char *f = sw__buf_steal(&b, NULL);
		assert_one_safe_line(f);
		assert_quote_closed_once(f + 1, '"');
		/* Every brace is doubled: no replacement field can open. */
		for (const char *p = f; *p; p++) {
			if (*p == '{' || *p == '}') {
				ck_assert_int_eq(p[1], *p);
				p++;
			}
		}
		free(f);
		char *d = run(sw__cg_py_docstring_text, hostile[i]);
		assert_one_safe_line(d);
		ck_assert_ptr_null(strstr(d, "\"\"\""));
		ck_assert(d[0] == '\0' || d[strlen(d) - 1] != '"' || (strlen(d) >= 2 && d[strlen(d) - 2] == '\\'));
		free(d);
		char *c = run(sw__cg_py_comment, hostile[i]);
		assert_one_safe_line(c);
		free(c);
	}
	char *s = run(sw__cg_py_string, "a\"b\\c\n\xf3\xa0\x80\x81{x}");
	ck_assert_str_eq(s, "\"a\\\"b\\\\c\\n\\U000E0001{x}\"");
	free(s);
	sw_buf b = SW_BUF_INIT;
	sw__cg_py_fstring_text(&b, "{x} and }");
	char *f = sw__buf_steal(&b, NULL);
	ck_assert_str_eq(f, "{{x}} and }}");
	free(f);
	char *d = run(sw__cg_py_docstring_text, "say \"\"\"");
	ck_assert_str_eq(d, "say \\\"\\\"\\\"");
	free(d);
}
END_TEST

static bool ident_ok(const char *s, bool allow_dollar)
{
	if (!s || !*s || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (const char *p = s; *p; p++) {
		char ch = *p;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		          ch == '_' || (allow_dollar && ch == '$');
		if (!ok)
			return false;
	}
	return true;
}

START_TEST(test_identifiers)
{
	sw_cg_scope *py = sw__cg_scope_new(SW_CG_PY);
	sw_cg_scope *ts = sw__cg_scope_new(SW_CG_TS);
	ck_assert_ptr_nonnull(py);
	ck_assert_ptr_nonnull(ts);
	char *n;

	n = sw__cg_ident(ts, "Log in", SW_CG_CAMEL, NULL);
	ck_assert_str_eq(n, "logIn");
	free(n);
	n = sw__cg_ident(ts, "log-in", SW_CG_CAMEL, NULL); /* same words: unique suffix */
	ck_assert_str_eq(n, "logIn2");
	free(n);
	n = sw__cg_ident(ts, "class", SW_CG_CAMEL, NULL);
	ck_assert_str_eq(n, "class_");
	free(n);
	n = sw__cg_ident(ts, "Continue", SW_CG_CAMEL, NULL);
	ck_assert_str_eq(n, "continue_");
	free(n);
	n = sw__cg_ident(ts, "2FA code", SW_CG_CAMEL, NULL);
	ck_assert_str_eq(n, "n2faCode");
	free(n);
	n = sw__cg_ident(ts, "type", SW_CG_CAMEL, NULL); /* TypeScript's own reserved names */
	ck_assert_str_eq(n, "type_");
	free(n);
	n = sw__cg_ident(ts, "\xe2\x9c\x93 \xf0\x9f\x98\x80", SW_CG_CAMEL, "element"); /* symbols only: fallback */
	ck_assert_str_eq(n, "element");
	free(n);
	n = sw__cg_ident(ts,
	                 "Stra\xc3\x9f"
	                 "e \xc3\x89t\xc3\xa9",
	                 SW_CG_PASCAL, NULL); /* Latin-1 folded */
	ck_assert_str_eq(n, "StrasseEte");
	free(n);
	n = sw__cg_ident(ts, "${process.exit(1)}\nfoo()", SW_CG_PASCAL, NULL);
	ck_assert(ident_ok(n, false));
	ck_assert_str_eq(n, "ProcessExit1Foo");
	free(n);
	n = sw__cg_ident(ts, "bad \xff\xfe", SW_CG_CAMEL, NULL);
	ck_assert_str_eq(n, "bad");
	free(n);

	n = sw__cg_ident(py, "None", SW_CG_PASCAL, NULL);
	ck_assert_str_eq(n, "None_");
	free(n);
	n = sw__cg_ident(py, "class", SW_CG_SNAKE, NULL);
	ck_assert_str_eq(n, "class_");
	free(n);
	n = sw__cg_ident(py, "Continue", SW_CG_PASCAL, NULL); /* not a Python keyword in this case */
	ck_assert_str_eq(n, "Continue");
	free(n);
	n = sw__cg_ident(py, "continue", SW_CG_SNAKE, NULL); /* a keyword once lower-cased */
	ck_assert_str_eq(n, "continue_");
	free(n);
	n = sw__cg_ident(py, "Sign in", SW_CG_UPPER_SNAKE, NULL);
	ck_assert_str_eq(n, "SIGN_IN");
	free(n);
	n = sw__cg_ident(py, "sign-in", SW_CG_UPPER_SNAKE, NULL);
	ck_assert_str_eq(n, "SIGN_IN_2");
	free(n);
	n = sw__cg_ident(py, "2FA", SW_CG_SNAKE, NULL);
	ck_assert_str_eq(n, "n2fa");
	free(n);
	n = sw__cg_ident(py, "__init__", SW_CG_SNAKE, NULL);
	ck_assert_str_eq(n, "init");
	free(n);
	sw__cg_scope_reserve(py, "driver");
	n = sw__cg_ident(py, "Driver", SW_CG_SNAKE, NULL);
	ck_assert_str_eq(n, "driver_2");
	free(n);

	/* Every hostile label gives a valid, unique identifier in every style. */
	for (int c = SW_CG_CAMEL; c <= SW_CG_UPPER_SNAKE; c++) {
		sw_cg_scope *sc = sw__cg_scope_new(c % 2 ? SW_CG_PY : SW_CG_JS);
		json_t *seen = json_object();
		for (size_t i = 0; i < SW_ARRAY_SIZE(hostile); i++) {
			char *id = sw__cg_ident(sc, hostile[i], (sw_cg_case)c, "label");
			ck_assert_msg(ident_ok(id, false), "bad identifier %s", id);
			ck_assert(!sw__cg_is_reserved(c % 2 ? SW_CG_PY : SW_CG_JS, id));
			ck_assert_ptr_null(json_object_get(seen, id));
			json_object_set_new(seen, id, json_true());
			free(id);
		}
		json_decref(seen);
		sw__cg_scope_free(sc);
	}

	/* Deterministic: a fresh scope given the same texts gives the same names. */
	sw_cg_scope *a = sw__cg_scope_new(SW_CG_JS);
	sw_cg_scope *b = sw__cg_scope_new(SW_CG_JS);
	for (size_t i = 0; i < SW_ARRAY_SIZE(hostile); i++) {
		char *x = sw__cg_ident(a, hostile[i], SW_CG_CAMEL, NULL);
		char *y = sw__cg_ident(b, hostile[i], SW_CG_CAMEL, NULL);
		ck_assert_str_eq(x, y);
		free(x);
		free(y);
	}
	sw__cg_scope_free(a);
	sw__cg_scope_free(b);

	/* Long labels stop at 48 characters. */
	n = sw__cg_ident(ts, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", SW_CG_CAMEL,
	                 NULL);
	ck_assert_uint_eq(strlen(n), 48);
	free(n);
	sw__cg_scope_free(py);
	sw__cg_scope_free(ts);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("codegen");
	TCase *tc = tcase_create("escapers");
	tcase_add_test(tc, test_js_strings);
	tcase_add_test(tc, test_js_template);
	tcase_add_test(tc, test_js_comments);
	tcase_add_test(tc, test_py_strings);
	suite_add_tcase(s, tc);
	TCase *ti = tcase_create("identifiers");
	tcase_add_test(ti, test_identifiers);
	suite_add_tcase(s, ti);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
