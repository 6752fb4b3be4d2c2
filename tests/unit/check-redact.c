/* check-redact.c: unit tests of the redactor: matching rules, spellings, JSON/XML structure, guard, threads. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../libswipium/redact/redact-internal.h"

#define M SW_REDACTED_MARKER

static sw_redactor *new_with(const char *const *secrets)
{
	sw_redactor *r = NULL;
	ck_assert_int_eq(sw_redactor_new(&r, NULL), SW_OK);
	for (size_t i = 0; secrets && secrets[i]; i++)
		ck_assert_int_eq(sw_redactor_add_secret(r, secrets[i], NULL), SW_OK);
	return r;
}

/* Redacts @in as text and compares with @want. */
static void expect_text(sw_redactor *r, const char *in, const char *want)
{
	char *out = NULL;
	size_t len = 0;
	ck_assert_int_eq(sw_redactor_redact_text(r, in, strlen(in), &out, &len, NULL, NULL), SW_OK);
	ck_assert_msg(strcmp(out, want) == 0, "redact(\"%s\") = \"%s\", want \"%s\"", in, out, want);
	ck_assert_uint_eq(len, strlen(out));
	free(out);
}

START_TEST(test_anywhere_and_lengths)
{
	const char *s[] = {"hunter22", "abcd", "xy", NULL};
	sw_redactor *r = new_with(s);
	expect_text(r, "pw=hunter22;", "pw=" M ";");
	expect_text(r, "hunter22hunter22", M M);
	expect_text(r, "xabcdx", "x" M "x");          /* 4+ characters: anywhere, even inside words */
	expect_text(r, "xy is short", "xy is short"); /* under 3: never */
	ck_assert_int_eq(sw_redactor_add_secret(r, "\xff\xff", NULL), SW_OK); /* two invalid bytes: two characters */
	expect_text(r, "a\xff\xff\xff", "a\xff\xff\xff");
	ck_assert_uint_eq(sw_redactor_short_count(r), 2);
	char *out = NULL;
	int partial = -1;
	ck_assert_int_eq(sw_redactor_redact_text(r, "xy", 2, &out, NULL, &partial, NULL), SW_OK);
	ck_assert_int_eq(partial, 1);
	free(out);
	char *note = NULL;
	ck_assert_int_eq(sw_redactor_partial_note(r, &note, NULL), SW_OK);
	ck_assert_str_eq(note, "2 secret value(s) shorter than 3 characters were not redacted (matching them would "
	                       "corrupt ordinary text).");
	free(note);
	/* duplicates and empty values are ignored */
	ck_assert_int_eq(sw_redactor_add_secret(r, "abcd", NULL), SW_OK);
	ck_assert_int_eq(sw_redactor_add_secret(r, "", NULL), SW_OK);
	ck_assert_uint_eq(sw_redactor_count(r), 4);
	sw_redactor_free(r);

	sw_redactor *e = new_with(NULL);
	ck_assert_int_eq(sw_redactor_partial_note(e, &note, NULL), SW_OK);
	ck_assert_ptr_null(note);
	expect_text(e, "nothing registered", "nothing registered");
	sw_redactor_free(e);
}
END_TEST

START_TEST(test_short_pin_tokens)
{
	const char *s[] = {"123", "4321", "1234567", NULL};
	sw_redactor *r = new_with(s);
	/* the reference's own examples */
	expect_text(r, "CVV 123", "CVV " M);
	expect_text(r, "cvv=123", "cvv=" M);
	expect_text(r, "is 123.", "is " M ".");
	expect_text(r, "12345", "12345");
	expect_text(r, "@e123", "@e123");
	expect_text(r, "v1.123.0", "v1.123.0");
	expect_text(r, "20260928", "20260928");
	/* 4-7 digits are tokens too */
	expect_text(r, "pin 4321 ok", "pin " M " ok");
	expect_text(r, "id 143210", "id 143210");
	expect_text(r, "_4321", "_4321");
	expect_text(r, "4321_", "4321_");
	expect_text(r, "code: 1234567!", "code: " M "!");
	expect_text(r, "91234567", "91234567");
	/* a letter or number in another script is not a boundary */
	expect_text(r,
	            "\xd9\xa3"
	            "123",
	            "\xd9\xa3"
	            "123"); /* ARABIC-INDIC DIGIT THREE */
	expect_text(r,
	            "\xc3\xa9"
	            "123",
	            "\xc3\xa9"
	            "123"); /* e acute */
	expect_text(r,
	            "\xc2\xbf"
	            "123?",
	            "\xc2\xbf" M "?"); /* inverted question mark is punctuation */
	sw_redactor_free(r);

	const char *w[] = {"abc", "12345678", NULL};
	r = new_with(w);
	expect_text(r, "abc", M);
	expect_text(r, "(abc)", "(" M ")");
	expect_text(r, "abcd", "abcd");
	expect_text(r, "xabc", "xabc");
	expect_text(r, "1abc", "1abc");
	expect_text(r, "_abc_", "_" M "_");                    /* non-digit tokens only look at letters and numbers */
	expect_text(r, "acct 912345678901", "acct 9" M "901"); /* 8+ digits: anywhere */
	sw_redactor_free(r);
}
END_TEST

START_TEST(test_spellings)
{
	const char *s[] = {"p\"&<'wd", "t\xc3\xa9st\\x", NULL};
	sw_redactor *r = new_with(s);
	expect_text(r, "raw p\"&<'wd.", "raw " M ".");
	expect_text(r, "json \"p\\\"&<'wd\"", "json \"" M "\"");
	expect_text(r, "xml p&quot;&amp;&lt;&apos;wd", "xml " M);
	expect_text(r, "xml p&quot;&amp;&lt;&#39;wd", "xml " M);
	expect_text(r, "t\xc3\xa9st\\\\x", M); /* JSON-escaped backslash */
	expect_text(r, "t\\u00e9st\\\\x", M);  /* ASCII-only JSON */
	expect_text(r, "t\xc3\xa9st\\x", M);
	sw_redactor_free(r);
}
END_TEST

START_TEST(test_overlaps_and_markers)
{
	const char *s[] = {"abcd", "cdefgh", "dact", "xyzw", "abcdxyzwQ", NULL};
	sw_redactor *r = new_with(s);
	/* overlapping matches: the longer one wins, as if the longest spellings were replaced first */
	expect_text(r, "abcdefgh", "ab" M);
	expect_text(r, "abcdxyzwQ", M);
	/* a longer candidate that dies must not hide a later match */
	expect_text(r, "abcdxyzwR", M M "R");
	/* ... also when the text ends while that longer candidate is still growing */
	expect_text(r, "abcdxyzw", M M);
	/* shorter matches displaced by a longer one still go where they fit whole */
	const char *u[] = {"abcdef", "bcde", "fghijklmno", "mypass", "passw0rd-long-token", NULL};
	sw_redactor *r2 = new_with(u);
	expect_text(r2, "abcdefghijklmno", "a" M M);
	expect_text(r2, "mypassw0rd-long-token!", "my" M "!");
	expect_text(r2, "mypass passw0rd-long-token", M " " M);
	sw_redactor_free(r2);
	/* a secret spelled inside the marker is not re-redacted, and the output passes the guard */
	char *out = NULL;
	size_t n;
	const char *in = "old " M " and dact";
	ck_assert_int_eq(sw_redactor_redact_text(r, in, strlen(in), &out, &n, NULL, NULL), SW_OK);
	ck_assert_str_eq(out, "old " M " and " M);
	ck_assert_int_eq(sw_redactor_guard(r, out, n, NULL), SW_OK);
	free(out);
	sw_redactor_free(r);

	/* a replacement next to a short token makes it a token: the output is stable */
	const char *t[] = {"123", "wxyz", NULL};
	r = new_with(t);
	expect_text(r, "123wxyz", M M);
	expect_text(r, "wxyz123", M M);
	ck_assert_int_eq(sw_redactor_guard(r, M M, strlen(M M), NULL), SW_OK);
	sw_redactor_free(r);
}
END_TEST

START_TEST(test_guard_and_contains)
{
	const char *s[] = {"s3cr3t-token-value", "9876", NULL};
	sw_redactor *r = new_with(s);
	const char *bad = "steps:\n  - type: s3cr3t-token-value\n";
	sw_error *err = NULL;
	ck_assert_int_eq(sw_redactor_guard(r, bad, strlen(bad), &err), SW_ESECRET);
	ck_assert_str_eq(sw_error_failure_code(err), "SECRET_IN_GENERATED_OUTPUT");
	ck_assert_ptr_null(strstr(sw_error_message(err), "s3cr3t"));
	sw_error_free(err);
	const char *ok = "steps:\n  - type: ${SWIPIUM_TEST_TOKEN}\n  - id 98765\n";
	ck_assert_int_eq(sw_redactor_guard(r, ok, strlen(ok), NULL), SW_OK);
	ck_assert_int_eq(sw_redactor_contains(r, "pin 9876", 8), 1);
	ck_assert_int_eq(sw_redactor_contains(r, "pin 98765", 9), 0);
	/* a value containing a secret becomes one */
	ck_assert_int_eq(sw_redactor_add_value_if_contains_secret(r, "my pin is 9876 ok", NULL), 1);
	ck_assert_int_eq(sw_redactor_add_value_if_contains_secret(r, "plain", NULL), 0);
	ck_assert_uint_eq(sw_redactor_count(r), 3);
	sw_redactor_free(r);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_int_eq(sw_redact_is_secret_name("SWIPIUM_VERIFICATION_CODE"), 1);
	ck_assert_int_eq(sw_redact_is_secret_name("userPassword"), 1);
	ck_assert_int_eq(sw_redact_is_secret_name("api_KEY"), 1);
	ck_assert_int_eq(sw_redact_is_secret_name("SWIPIUM_TEST_OTP"), 1);
	ck_assert_int_eq(sw_redact_is_secret_name("email"), 0);
	ck_assert_int_eq(sw_redact_is_secret_name("username"), 0);
	ck_assert_int_eq(sw_redact_is_secret_name(NULL), 0);

	ck_assert_int_eq(sw_redact_is_secure_label("Password"), 1);
	ck_assert_int_eq(sw_redact_is_secure_label("com.app:id/passwd_field"), 1);
	ck_assert_int_eq(sw_redact_is_secure_label("One-time code"), 1);
	ck_assert_int_eq(sw_redact_is_secure_label("onetime"), 1);
	ck_assert_int_eq(sw_redact_is_secure_label("Enter PIN"), 1);
	ck_assert_int_eq(sw_redact_is_secure_label("pin_field"), 0); /* \b: '_' is a word character */
	ck_assert_int_eq(sw_redact_is_secure_label("spinner"), 0);
	ck_assert_int_eq(sw_redact_is_secure_label("Card number"), 1);
	ck_assert_int_eq(sw_redact_is_secure_label("cardnumber"), 1);
	ck_assert_int_eq(sw_redact_is_secure_label("Security code"), 1);
	ck_assert_int_eq(sw_redact_is_secure_label("CVV"), 1);
	ck_assert_int_eq(sw_redact_is_secure_label("Email"), 0);

	sw_redactor *r = new_with(NULL);
	ck_assert_int_eq(sw_redactor_add_value_if_secret_name(r, "SWIPIUM_TEST_PASSWORD", "pw-value", NULL), 1);
	ck_assert_int_eq(sw_redactor_add_value_if_secret_name(r, "SWIPIUM_TEST_EMAIL", "a@b.c", NULL), 0);
	ck_assert_uint_eq(sw_redactor_count(r), 1);
	sw_redactor_free(r);
}
END_TEST

static char *redact_json(sw_redactor *r, const char *in)
{
	char *out = NULL;
	sw_error *err = NULL;
	int rc = sw_redactor_redact_json(r, in, &out, &err);
	ck_assert_msg(rc == SW_OK, "redact_json failed: %s", err ? sw_error_message(err) : "?");
	return out;
}

START_TEST(test_json_structural)
{
	const char *s[] = {"alpha", "beta", "1234", NULL};
	sw_redactor *r = new_with(s);
	/* whitespace and numbers kept byte for byte, strings and keys redacted */
	const char *in = "{\n    \"user alpha\": \"x alpha y\",\n    \"n\": 1234,\n    \"list\": [ \"1234\", 1.50e3, "
	                 "true, null ]\n}";
	char *out = redact_json(r, in);
	ck_assert_str_eq(out, "{\n    \"user " M "\": \"x " M " y\",\n    \"n\": 1234,\n    \"list\": [ \"" M
	                      "\", 1.50e3, true, null ]\n}");
	free(out);
	/* colliding keys after redaction: #2, #3 in order */
	out = redact_json(r, "{\"alpha\":1,\"beta\":2,\"" M "\":3}");
	ck_assert_str_eq(out, "{\"" M "\":1,\"" M "#2\":2,\"" M "#3\":3}");
	free(out);
	/* geometry values untouched, also nested; siblings still redacted */
	out = redact_json(r, "{\"bounds\":\"[1234,0][5,5]\",\"frame\":{\"x\":\"1234\"},\"text\":\"1234\"}");
	ck_assert_str_eq(out, "{\"bounds\":\"[1234,0][5,5]\",\"frame\":{\"x\":\"1234\"},\"text\":\"" M "\"}");
	free(out);
	/* escaped spellings inside JSON strings are decoded first */
	out = redact_json(r, "[\"\\u0061lpha\", \"b\\u0065ta\\n\"]");
	ck_assert_str_eq(out, "[\"" M "\", \"" M "\\n\"]");
	free(out);
	/* unchanged strings keep their original escapes */
	out = redact_json(r, "\"\\/x\\u00e9\"");
	ck_assert_str_eq(out, "\"\\/x\\u00e9\"");
	free(out);

	const char *bad[] = {"",     "{",   "{\"a\" 1}", "[1,]",       "{\"a\":1}x", "\"abc",
	                     "[01]", "tru", "{1:2}",     "[\"\x01\"]", NULL};
	for (size_t i = 0; bad[i]; i++) {
		char *o = NULL;
		sw_error *err = NULL;
		ck_assert_msg(sw_redactor_redact_json(r, bad[i], &o, &err) == SW_EINVAL, "accepted bad JSON %s",
		              bad[i]);
		ck_assert_ptr_null(o);
		ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
		sw_error_free(err);
	}
	/* deep nesting is bounded, not a stack overflow */
	size_t depth = 200000;
	char *deep = malloc(2 * depth + 1);
	memset(deep, '[', depth);
	memset(deep + depth, ']', depth);
	deep[2 * depth] = '\0';
	char *o = NULL;
	ck_assert_int_eq(sw_redactor_redact_json(r, deep, &o, NULL), SW_EINVAL);
	free(deep);
	sw_redactor_free(r);
}
END_TEST

START_TEST(test_jansson_tree)
{
	const char *s[] = {"alpha", "beta", "1234", NULL};
	sw_redactor *r = new_with(s);
	json_t *v = json_pack("{s:s, s:s, s:i, s:[s, i], s:s, s:{s:s}}", "alpha", "a", "beta", "b", "count", 1234,
	                      "arr", "alpha beta", 7, "bounds", "1234", "rect", "k", "alpha");
	json_t *red = sw__redactor_redact_jansson(r, v);
	ck_assert_ptr_nonnull(red);
	char *text = sw__json_compact(red);
	ck_assert_str_eq(text, "{\"" M "\":\"a\",\"" M "#2\":\"b\",\"count\":1234,\"arr\":[\"" M " " M
	                       "\",7],\"bounds\":\"1234\",\"rect\":{\"k\":\"alpha\"}}");
	free(text);
	json_decref(red);
	json_decref(v);
	sw_redactor_free(r);
}
END_TEST

START_TEST(test_xml_structural)
{
	const char *s[] = {"p&ss<1", "node", "4321", NULL};
	sw_redactor *r = new_with(s);
	const char *in = "<?xml version='1.0'?><hierarchy><node text=\"p&amp;ss&lt;1\" bounds=\"[0,0][4321,10]\" "
	                 "index='4321' desc='4321'>x 4321 y<!-- node 4321 --><![CDATA[p&ss<1]]></node></hierarchy>";
	char *out = NULL;
	size_t n;
	ck_assert_int_eq(sw_redactor_redact_xml(r, in, strlen(in), &out, &n, NULL), SW_OK);
	ck_assert_str_eq(out,
	                 "<?xml version='1.0'?><hierarchy><node text=\"" M "\" bounds=\"[0,0][4321,10]\" "
	                 "index='4321' desc='" M "'>x " M " y<!-- " M " " M " --><![CDATA[" M "]]></node></hierarchy>");
	free(out);
	/* malformed markup falls back to plain text: still redacted, never a crash */
	const char *broken = "<a b=\"4321 <c 4321";
	ck_assert_int_eq(sw_redactor_redact_xml(r, broken, strlen(broken), &out, &n, NULL), SW_OK);
	ck_assert_ptr_null(strstr(out, "4321"));
	free(out);
	sw_redactor_free(r);
}
END_TEST

START_TEST(test_artifacts)
{
	const char *s[] = {"tok-123456", "ab", NULL};
	sw_redactor *r = new_with(s);
	ck_assert_int_eq(sw_redact_mime_is_text("text/plain; charset=utf-8"), 1);
	ck_assert_int_eq(sw_redact_mime_is_text("application/vnd.api+json"), 1);
	ck_assert_int_eq(sw_redact_mime_is_text("application/x-ndjson"), 1);
	ck_assert_int_eq(sw_redact_mime_is_text("image/png"), 0);
	ck_assert_int_eq(sw_redact_mime_is_text("application/octet-stream"), 0);
	char *out;
	size_t n;
	const char *tag;
	const char *js = "{\"bounds\": \"tok-123456\", \"t\": \"tok-123456\"}";
	ck_assert_int_eq(sw_redactor_redact_artifact(r, "application/json", js, strlen(js), &out, &n, &tag, NULL),
	                 SW_OK);
	ck_assert_str_eq(out, "{\"bounds\": \"tok-123456\", \"t\": \"" M "\"}");
	ck_assert_str_eq(tag, "partial");
	free(out);
	/* JSON that does not parse is redacted as text */
	const char *notjs = "{oops tok-123456";
	ck_assert_int_eq(sw_redactor_redact_artifact(r, "application/json", notjs, strlen(notjs), &out, &n, &tag, NULL),
	                 SW_OK);
	ck_assert_str_eq(out, "{oops " M);
	free(out);
	const char bin[] = {'t', 'o', 'k', '-', '1', '2', '3', '4', '5', '6', 0, 1};
	ck_assert_int_eq(sw_redactor_redact_artifact(r, "image/png", bin, sizeof(bin), &out, &n, &tag, NULL), SW_OK);
	ck_assert_uint_eq(n, sizeof(bin));
	ck_assert_int_eq(memcmp(out, bin, n), 0);
	ck_assert_str_eq(tag, "not-applied");
	free(out);
	sw_redactor_free(r);
	const char *s2[] = {"tok-123456", NULL};
	r = new_with(s2);
	ck_assert_int_eq(sw_redactor_redact_artifact(r, "text/x-log", "a tok-123456", 12, &out, &n, &tag, NULL), SW_OK);
	ck_assert_str_eq(tag, "applied");
	ck_assert_str_eq(out, "a " M);
	free(out);
	sw_redactor_free(r);
}
END_TEST

/* Secrets of every kind, every spelling, in one text: nothing survives. */
START_TEST(test_every_kind_every_spelling)
{
	const char *s[] = {"4821", "pa\"ss&<word", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", NULL};
	sw_redactor *r = new_with(s);
	sw_buf b = SW_BUF_INIT;
	for (size_t i = 0; s[i]; i++) {
		sw__buf_printf(&b, "raw %s\n", s[i]);
		sw__buf_puts(&b, "json ");
		sw__buf_json_string(&b, s[i], strlen(s[i]));
		sw__buf_puts(&b, "\nxml ");
		for (const char *p = s[i]; *p; p++)
			sw__buf_puts(&b, *p == '&'   ? "&amp;"
			                 : *p == '<' ? "&lt;"
			                 : *p == '"' ? "&quot;"
			                             : (char[]){*p, 0});
		sw__buf_putc(&b, '\n');
	}
	char *out;
	size_t n;
	ck_assert_int_eq(sw_redactor_redact_text(r, b.data, b.len, &out, &n, NULL, NULL), SW_OK);
	ck_assert_ptr_null(strstr(out, "4821"));
	ck_assert_ptr_null(strstr(out, "ss&<word"));
	ck_assert_ptr_null(strstr(out, "ss&amp;&lt;word"));
	ck_assert_ptr_null(strstr(out, "pa\\\"ss"));
	ck_assert_ptr_null(strstr(out, "pa&quot;ss"));
	ck_assert_ptr_null(strstr(out, "ghp_16C7e42F"));
	ck_assert_int_eq(sw_redactor_guard(r, out, n, NULL), SW_OK);
	free(out);
	sw__buf_free(&b);
	sw_redactor_free(r);
}
END_TEST

/* Hundreds of secrets and a long text: the result is right (speed is measured in bench/). */
START_TEST(test_many_secrets)
{
	sw_redactor *r = new_with(NULL);
	char v[64];
	for (int i = 0; i < 300; i++) {
		snprintf(v, sizeof(v), "secret-%03d-value", i);
		ck_assert_int_eq(sw_redactor_add_secret(r, v, NULL), SW_OK);
	}
	sw_buf b = SW_BUF_INIT;
	for (int i = 0; i < 20000; i++)
		sw__buf_printf(&b, "line %d secret-%03d-value and secret-%03d-valu\n", i, i % 300, (i + 7) % 300);
	char *out;
	size_t n;
	ck_assert_int_eq(sw_redactor_redact_text(r, b.data, b.len, &out, &n, NULL, NULL), SW_OK);
	ck_assert_ptr_null(strstr(out, "-value"));
	/* every line kept its near miss */
	size_t near = 0;
	for (const char *p = out; (p = strstr(p, "-valu\n")); p++)
		near++;
	ck_assert_uint_eq(near, 20000);
	free(out);
	sw__buf_free(&b);
	sw_redactor_free(r);
}
END_TEST

/*
 * Linearity sanity (not timed): a text that is nothing but overlapping
 * candidates, where a longer secret's prefix keeps every short match pending.
 * Each replacement may step back at most the longest spelling, so this ends
 * well inside the test timeout and the result is exact.
 */
START_TEST(test_pathological_overlaps)
{
	char longer[64];
	memset(longer, 'a', 40);
	strcpy(longer + 40, "b");
	const char *s[] = {"aaaa", longer, NULL};
	sw_redactor *r = new_with(s);
	size_t n = 1u << 20;
	char *text = malloc(n + 1);
	memset(text, 'a', n);
	text[n] = '\0';
	char *out;
	size_t out_len;
	ck_assert_int_eq(sw_redactor_redact_text(r, text, n, &out, &out_len, NULL, NULL), SW_OK);
	ck_assert_uint_eq(out_len, (n / 4) * strlen(M));
	ck_assert_ptr_null(strchr(out, 'a' + 0) ? strstr(out, "aaaa") : NULL);
	free(out);
	/* the longer secret wins where it fits */
	memcpy(text + n - 41, longer, 41);
	ck_assert_int_eq(sw_redactor_redact_text(r, text, n, &out, &out_len, NULL, NULL), SW_OK);
	ck_assert(sw__str_has_suffix(out, M));
	ck_assert_int_eq(sw_redactor_guard(r, out, out_len, NULL), SW_OK);
	free(out);
	free(text);
	sw_redactor_free(r);
}
END_TEST

typedef struct thread_arg {
	sw_redactor *r;
	int id;
	int failures;
} thread_arg;

static void *reader(void *p)
{
	thread_arg *a = p;
	for (int i = 0; i < 300; i++) {
		char *out;
		const char *in = "fixed-secret-0 and more text";
		if (sw_redactor_redact_text(a->r, in, strlen(in), &out, NULL, NULL, NULL) != SW_OK ||
		    strstr(out, "fixed-secret-0"))
			a->failures++;
		free(out);
	}
	return NULL;
}

static void *writer(void *p)
{
	thread_arg *a = p;
	char v[64];
	for (int i = 0; i < 200; i++) {
		snprintf(v, sizeof(v), "writer-%d-%d", a->id, i);
		if (sw_redactor_add_secret(a->r, v, NULL) != SW_OK)
			a->failures++;
	}
	return NULL;
}

START_TEST(test_threads)
{
	const char *s[] = {"fixed-secret-0", NULL};
	sw_redactor *r = new_with(s);
	pthread_t t[6];
	thread_arg a[6];
	for (int i = 0; i < 6; i++) {
		a[i] = (thread_arg){r, i, 0};
		pthread_create(&t[i], NULL, i < 4 ? reader : writer, &a[i]);
	}
	for (int i = 0; i < 6; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(a[i].failures, 0);
	}
	ck_assert_uint_eq(sw_redactor_count(r), 401);
	ck_assert_int_eq(sw_redactor_contains(r, "x writer-5-199 y", 16), 1);
	sw_redactor_free(r);
}
END_TEST

START_TEST(test_bad_arguments)
{
	sw_error *err = NULL;
	ck_assert_int_eq(sw_redactor_new(NULL, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_redactor_add_secret(NULL, "x", &err), SW_EINVAL);
	sw_error_free(err);
	sw_redactor *r = new_with(NULL);
	char *out = NULL;
	ck_assert_int_eq(sw_redactor_redact_text(r, NULL, 5, &out, NULL, NULL, NULL), SW_EINVAL);
	ck_assert_int_eq(sw_redactor_redact_json(r, NULL, &out, NULL), SW_EINVAL);
	ck_assert_ptr_null(out);
	ck_assert_int_eq(sw_redactor_contains(NULL, "x", 1), 0);
	sw_redactor_free(r);
	sw_redactor_free(NULL);
}
END_TEST

static Suite *redact_suite(void)
{
	Suite *s = suite_create("redact");
	TCase *tc = tcase_create("matching");
	tcase_add_test(tc, test_anywhere_and_lengths);
	tcase_add_test(tc, test_short_pin_tokens);
	tcase_add_test(tc, test_spellings);
	tcase_add_test(tc, test_overlaps_and_markers);
	tcase_add_test(tc, test_guard_and_contains);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_every_kind_every_spelling);
	tcase_add_test(tc, test_many_secrets);
	tcase_add_test(tc, test_pathological_overlaps);
	tcase_add_test(tc, test_bad_arguments);
	suite_add_tcase(s, tc);
	tc = tcase_create("structure");
	tcase_add_test(tc, test_json_structural);
	tcase_add_test(tc, test_jansson_tree);
	tcase_add_test(tc, test_xml_structural);
	tcase_add_test(tc, test_artifacts);
	suite_add_tcase(s, tc);
	tc = tcase_create("threads");
	tcase_add_test(tc, test_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(redact_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
