/* check-report.c: unit tests of the report module: loading, release gate, escaping, fingerprints, caps, discovery. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../libswipium/catalog/catalog-internal.h"
#include "../../libswipium/report/report-internal.h"

/* ---- helpers ------------------------------------------------------------ */

static char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/sw-report-XXXXXX";
	char *d = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(d);
	return strdup(d);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char *p = sw__path_join(dir, rel);
	ck_assert_int_eq(sw_file_write_atomic(p, text, strlen(text), SW_WRITE_MKDIRS, NULL), SW_OK);
	free(p);
}

static json_t *parse(const char *text)
{
	char *msg = NULL;
	json_t *j = sw__report_parse_json(text, strlen(text), &msg);
	ck_assert_msg(j != NULL, "parse failed: %s", msg ? msg : "?");
	return j;
}

/* Gate decision of @report_text under @policy_text (NULL: no policy). */
static json_t *gate_of(const char *report_text, const char *policy_text)
{
	json_t *r = parse(report_text);
	json_t *p = policy_text ? parse(policy_text) : NULL;
	json_t *g = sw__gate_eval(r, p);
	ck_assert_ptr_nonnull(g);
	json_decref(r);
	json_decref(p);
	return g;
}

static const char *reason_of(const json_t *g)
{
	return json_string_value(json_object_get(g, "reason"));
}

typedef void (*esc_fn)(sw_buf *, const char *, size_t);

static char *esc(esc_fn fn, const char *s, size_t len)
{
	sw_buf b = SW_BUF_INIT;
	fn(&b, s, len);
	return sw__buf_steal(&b, NULL);
}

#define ESC_EQ(fn, in, expected)                                                                                       \
	do {                                                                                                           \
		char *got_ = esc(fn, in, sizeof(in) - 1);                                                              \
		ck_assert_str_eq(got_, expected);                                                                      \
		free(got_);                                                                                            \
	} while (0)

static char *render(const char *report_text, sw_report_format fmt, const char *root, size_t *len)
{
	sw_report *r = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_report_load_data(report_text, strlen(report_text), &r, &err), SW_OK);
	sw_report_render_options opts = SW_REPORT_RENDER_OPTIONS_INIT;
	opts.project_root = root;
	char *out = NULL, *gate = NULL;
	ck_assert_int_eq(sw_report_render(r, fmt, &opts, &out, len, &gate, &err), SW_OK);
	ck_assert_ptr_nonnull(gate);
	sw_free(gate);
	sw_report_free(r);
	return out;
}

static const char FAIL_REPORT[] =
    "{\"sessionId\":\"s1\",\"appId\":\"com.x\",\"findings\":["
    "{\"severity\":\"high\",\"kind\":\"native_crash\",\"failureCode\":\"NATIVE_CRASH\",\"detail\":\"boom\"},"
    "{\"severity\":\"medium\",\"kind\":\"rn_logbox_error\",\"failureCode\":\"LOGBOX\",\"detail\":\"warn\"}],"
    "\"testOutcomes\":["
    "{\"workflow\":\"login\",\"outcome\":\"pass\"},"
    "{\"workflow\":\"checkout\",\"outcome\":\"fail\",\"category\":\"app_bug\",\"steps\":[{\"ok\":true},"
    "{\"ok\":false,\"failureCode\":\"ASSERTION_FAILED\"}]},"
    "{\"workflow\":\"profile\",\"outcome\":\"blocked\",\"category\":\"missing_test_data\"},"
    "{\"workflow\":\"search\",\"outcome\":\"fail\"}]}";

/* ---- release gate --------------------------------------------------------- */

START_TEST(test_gate_no_policy_blocks_every_failure)
{
	json_t *g = gate_of(FAIL_REPORT, NULL);
	ck_assert(json_is_true(json_object_get(g, "block")));
	ck_assert_str_eq(
	    reason_of(g),
	    "release blocked: checkout: ASSERTION_FAILED, search: UNKNOWN, finding:native_crash: NATIVE_CRASH");
	char *text = sw__json_compact(g);
	ck_assert_str_eq(text, "{\"block\":true,\"blocked\":[\"checkout: ASSERTION_FAILED\",\"search: UNKNOWN\","
	                       "\"finding:native_crash: NATIVE_CRASH\"],\"warned\":[],\"suppressed\":[],\"reason\":"
	                       "\"release blocked: checkout: ASSERTION_FAILED, search: UNKNOWN, finding:native_crash: "
	                       "NATIVE_CRASH\"}");
	free(text);
	json_decref(g);
}
END_TEST

START_TEST(test_gate_all_pass)
{
	json_t *g = gate_of(
	    "{\"findings\":[{\"severity\":\"low\",\"kind\":\"x\"}],\"testOutcomes\":["
	    "{\"workflow\":\"a\",\"outcome\":\"pass\"},{\"workflow\":\"b\",\"outcome\":\"skipped\"},"
	    "{\"workflow\":\"c\",\"outcome\":\"not_applicable\"},{\"workflow\":\"d\",\"outcome\":\"blocked\"}]}",
	    NULL);
	ck_assert(json_is_false(json_object_get(g, "block")));
	ck_assert_str_eq(reason_of(g), "all required flows passed");
	json_decref(g);
}
END_TEST

START_TEST(test_gate_warn_and_synonyms)
{
	/* blockOn names only a code that does not occur, so warnOn decides; synonyms apply to warnOn. */
	json_t *g =
	    gate_of(FAIL_REPORT, "{\"blockOn\":[\"NO_DEVICE\"],\"warnOn\":[\"crash\",\"App-Bug\",\"unknown\"]}");
	ck_assert(json_is_false(json_object_get(g, "block")));
	ck_assert_str_eq(reason_of(g), "passed with warnings: checkout: ASSERTION_FAILED, search: UNKNOWN, "
	                               "finding:native_crash: NATIVE_CRASH");
	json_decref(g);
	/* visual_diff is the other spelling of ASSERTION_FAILED; errorboundary maps to itself. */
	g = gate_of(FAIL_REPORT, "{\"blockOn\":[\"x\"],\"warnOn\":[\"visual_diff\",\"UNKNOWN\",\"native crash\"]}");
	ck_assert(json_is_false(json_object_get(g, "block")));
	json_decref(g);
	/* A code that neither list matches stays blocked. */
	g = gate_of(FAIL_REPORT, "{\"blockOn\":[\"x\"],\"warnOn\":[\"crash\"]}");
	ck_assert(json_is_true(json_object_get(g, "block")));
	ck_assert_str_eq(reason_of(g), "release blocked: checkout: ASSERTION_FAILED, search: UNKNOWN");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(g, "warned"), 0)),
	                 "finding:native_crash: NATIVE_CRASH");
	json_decref(g);
}
END_TEST

START_TEST(test_gate_empty_block_on_ignores_warn_on)
{
	json_t *g = gate_of(FAIL_REPORT, "{\"warnOn\":[\"failed_required_flow\"]}");
	ck_assert(json_is_true(json_object_get(g, "block")));
	ck_assert_uint_eq(json_array_size(json_object_get(g, "warned")), 0);
	json_decref(g);
	/* failed_required_flow in blockOn matches every failure; it beats warnOn. */
	g = gate_of(FAIL_REPORT, "{\"blockOn\":[\"failed_required_flow\"],\"warnOn\":[\"crash\"]}");
	ck_assert_uint_eq(json_array_size(json_object_get(g, "blocked")), 3);
	json_decref(g);
	g = gate_of(FAIL_REPORT, "{\"blockOn\":[\"crash\"],\"warnOn\":[\"failed-required-flow\"]}");
	ck_assert_str_eq(reason_of(g), "release blocked: finding:native_crash: NATIVE_CRASH");
	ck_assert_uint_eq(json_array_size(json_object_get(g, "warned")), 2);
	json_decref(g);
}
END_TEST

START_TEST(test_gate_ignore_known_is_exact)
{
	/* ignoreKnown uses exact normalised equality: no synonyms, no failed_required_flow. */
	json_t *g = gate_of(FAIL_REPORT, "{\"ignoreKnown\":[\"crash\",\"app_bug\",\"failed_required_flow\"]}");
	ck_assert_uint_eq(json_array_size(json_object_get(g, "suppressed")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(g, "blocked")), 3);
	json_decref(g);
	g = gate_of(FAIL_REPORT, "{\"ignoreKnown\":[\"native-crash\",\"assertion_failed\",\"Unknown\"]}");
	ck_assert(json_is_false(json_object_get(g, "block")));
	ck_assert_str_eq(reason_of(g), "passed (suppressed known issues: checkout: ASSERTION_FAILED, search: UNKNOWN, "
	                               "finding:native_crash: NATIVE_CRASH)");
	json_decref(g);
}
END_TEST

START_TEST(test_gate_codes)
{
	/* Outcome code: first truthy step failureCode, then category, then UNKNOWN; finding: failureCode ?? kind. */
	json_t *g = gate_of("{\"findings\":[{\"severity\":\"high\",\"kind\":\"anr\"},{\"severity\":\"high\"}],"
	                    "\"testOutcomes\":[{\"workflow\":\"w\",\"outcome\":\"fail\",\"category\":\"other\","
	                    "\"steps\":[{\"failureCode\":\"\"},{\"failureCode\":null}]},"
	                    "{\"outcome\":\"fail\",\"category\":null}]}",
	                    NULL);
	ck_assert_str_eq(reason_of(g), "release blocked: w: other, undefined: UNKNOWN, finding:anr: anr, "
	                               "finding:undefined: UNKNOWN");
	json_decref(g);
}
END_TEST

START_TEST(test_policy_norm)
{
	sw_buf b = SW_BUF_INIT;
	sw__policy_norm(&b, "Native_Crash-1 \xC4\xB0\xE2\x84\xAA\xC3\xA9",
	                strlen("Native_Crash-1 \xC4\xB0\xE2\x84\xAA\xC3\xA9"));
	ck_assert_str_eq(b.data, "nativecrash1ik");
	sw__buf_free(&b);
}
END_TEST

START_TEST(test_policy_file)
{
	char *dir = make_tmpdir();
	json_t *r = parse(FAIL_REPORT);
	/* Absent, invalid and null policies all mean "no policy". */
	ck_assert_ptr_null(sw__policy_load(dir));
	write_file(dir, ".swipium/policy.json", "{not json");
	ck_assert_ptr_null(sw__policy_load(dir));
	write_file(dir, ".swipium/policy.json", "null");
	ck_assert_ptr_null(sw__policy_load(dir));
	write_file(dir, ".swipium/policy.json", "{\"blockOn\":[\"x\"],\"warnOn\":[\"failed_required_flow\"]}");
	json_t *p = sw__policy_load(dir);
	ck_assert_ptr_nonnull(p);
	json_t *g = sw__gate_eval(r, p);
	ck_assert(json_is_false(json_object_get(g, "block")));
	json_decref(g);
	json_decref(p);
	/* Through the public API. */
	sw_report *rep = NULL;
	ck_assert_int_eq(sw_report_load_data(FAIL_REPORT, strlen(FAIL_REPORT), &rep, NULL), SW_OK);
	char *gate = NULL;
	ck_assert_int_eq(sw_report_gate(rep, dir, &gate, NULL), SW_OK);
	int block = -1;
	char *reason = NULL;
	ck_assert_int_eq(sw_report_gate_verdict(gate, &block, &reason, NULL), SW_OK);
	ck_assert_int_eq(block, 0);
	ck_assert(sw__str_has_prefix(reason, "passed with warnings: "));
	sw_free(reason);
	sw_free(gate);
	ck_assert_int_eq(sw_report_gate(rep, NULL, &gate, NULL), SW_OK);
	ck_assert_int_eq(sw_report_gate_verdict(gate, &block, NULL, NULL), SW_OK);
	ck_assert_int_eq(block, 1);
	sw_free(gate);
	ck_assert_int_eq(sw_report_gate_verdict("{\"block\":1}", &block, NULL, NULL), SW_EINVAL);
	sw_report_free(rep);
	json_decref(r);
	free(dir);
}
END_TEST

/* ---- escaping -------------------------------------------------------------- */

START_TEST(test_xml_escape)
{
	ESC_EQ(sw__xml_escape, "a&b<c>d\"e'f\tg\r\nh", "a&amp;b&lt;c&gt;d&quot;e'f\tg&#13;&#10;h");
	/* NUL, ESC, VT, FF, U+FFFE, U+FFFF become U+FFFD; U+007F and astral characters stay. */
	ESC_EQ(sw__xml_escape, "x\0\x1b[1m\x0b\x0c\xEF\xBF\xBE\xEF\xBF\xBF\x7f\xF0\x9F\x98\x80",
	       "x\xEF\xBF\xBD\xEF\xBF\xBD[1m\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\x7f\xF0\x9F\x98\x80");
}
END_TEST

START_TEST(test_md_escape)
{
	ESC_EQ(sw__md_text, "<b>&</b> \\ ` * _ [ ] # | ~ ok",
	       "&lt;b&gt;&amp;&lt;/b&gt; \\\\ \\` \\* \\_ \\[ \\] \\# \\| \\~ ok");
	ESC_EQ(sw__md_text_line, "a\r\nb\nc\rd", "a b c d");
	ESC_EQ(sw__table_cell, "a|b", "a\\|b");
	ESC_EQ(sw__md_code, "plain", "`plain`");
	ESC_EQ(sw__md_code, "a`b``c```d", "`` a`b`c`d ``");
	ESC_EQ(sw__md_code, "l1\r\nl2\nl3", "`l1 l2 l3`");
	/* cell: md text, then the pipe escaped again (the double escaping of the reference), line breaks as <br>. */
	ESC_EQ(sw__md_cell, "a|b\r\nc\nd<e>", "a\\\\|b<br>c<br>d&lt;e&gt;");
	ESC_EQ(sw__md_link_dest, "swipium://s/x/a b|c).png", "swipium://s/x/a%20b%7Cc%29.png");
}
END_TEST

START_TEST(test_clip)
{
	/* 2001 ASCII characters: 1999 kept plus an ellipsis. */
	char *s = malloc(2002);
	memset(s, 'a', 2001);
	s[2001] = '\0';
	sw_buf b = SW_BUF_INIT;
	sw__clip(&b, s, 2001, 2000);
	ck_assert_uint_eq(b.len, 1999 + 3);
	ck_assert(sw__str_has_suffix(b.data, "a\xE2\x80\xA6"));
	b.len = 0;
	sw__clip(&b, s, 2000, 2000);
	ck_assert_uint_eq(b.len, 2000);
	sw__buf_free(&b);
	free(s);
	/* Astral characters count two UTF-16 units and are never split. */
	const char emoji[] = "\xF0\x9F\x98\x80\xF0\x9F\x98\x80\xF0\x9F\x98\x80"; /* 6 units */
	sw_buf c = SW_BUF_INIT;
	sw__clip(&c, emoji, sizeof(emoji) - 1, 6);
	ck_assert_str_eq(c.data, emoji);
	c.len = 0;
	sw__clip(&c, emoji, sizeof(emoji) - 1, 5);
	ck_assert_str_eq(c.data, "\xF0\x9F\x98\x80\xF0\x9F\x98\x80\xE2\x80\xA6");
	c.len = 0;
	sw__clip(&c, emoji, sizeof(emoji) - 1, 4);
	ck_assert_str_eq(c.data, "\xF0\x9F\x98\x80\xE2\x80\xA6");
	sw__buf_free(&c);
	json_t *v = parse("[null,\"\",\"abc\",{\"a\":[1,2]},12.5]");
	const char *expect[] = {"-", "-", "abc", "{\"a\":[1,2]}", "12.5"};
	for (size_t i = 0; i < 5; i++) {
		sw_buf d = SW_BUF_INIT;
		sw__compact_value(&d, json_array_get(v, i), 180);
		ck_assert_str_eq(d.data, expect[i]);
		sw__buf_free(&d);
	}
	sw_buf d = SW_BUF_INIT;
	sw__compact_value(&d, NULL, 180);
	ck_assert_str_eq(d.data, "-");
	sw__buf_free(&d);
	json_decref(v);
}
END_TEST

/* ---- fingerprints ------------------------------------------------------------ */

static void scrub_eq(const char *in, const char *expected)
{
	sw_buf low = SW_BUF_INIT, out = SW_BUF_INIT;
	sw__js_lower(&low, in, strlen(in));
	sw__scrub_volatile(&out, sw__buf_cstr(&low), low.len);
	ck_assert_str_eq(sw__buf_cstr(&out), expected);
	sw__buf_free(&low);
	sw__buf_free(&out);
}

START_TEST(test_scrub_volatile)
{
	scrub_eq("Crash at 2026-11-30T12:00:01.123Z in main", "crash at :ts in main");
	scrub_eq("on 2026-11-30 and 2026-11-30 10:11+02:00", "on :ts and :ts");
	scrub_eq("session 3F2A9C1E-7B4D-4E8A-9C21-5D6E7F8A9B0C failed", "session :uuid failed");
	scrub_eq("mail Jane.Doe+qa@example.co.uk now", "mail :email now");
	scrub_eq("header Bearer abc.DEF-123_x== sent", "header :token sent");
	scrub_eq("order 12345 item-42 v1.2.3 pid=991", "order :id :id :id pid=:id");
	scrub_eq("  many \t\n spaces\xC2\xA0here  ", "many spaces here");
	scrub_eq("no volatile parts", "no volatile parts");
	scrub_eq("x-1.", ":id.");
}
END_TEST

START_TEST(test_stable_hash)
{
	sw__str a[] = {{"NATIVE_CRASH", 12}, {"native_crash", 12}, {"Home", 4}, {"crash id 1234 at 2026-01-01", 27}};
	sw__str b[] = {{"native_crash", 12}, {"NATIVE_CRASH", 12}, {"home", 4}, {"crash id 9876 at 2027-02-02", 27}};
	sw__str c[] = {{"NATIVE_CRASH", 12}, {"native_crash", 12}, {"Home", 4}, {"other crash", 11}};
	char ha[17], hb[17], hc[17];
	sw__stable_hash(a, 4, ha);
	sw__stable_hash(b, 4, hb);
	sw__stable_hash(c, 4, hc);
	ck_assert_str_eq(ha, hb);
	ck_assert_str_ne(ha, hc);
	ck_assert_uint_eq(strlen(ha), 16);
	/* The hash input is "native_crash|native_crash|home|crash id :id at :ts". */
	char hex[65];
	const char *in = "native_crash|native_crash|home|crash id :id at :ts";
	sw_sha256_hex(in, strlen(in), hex);
	ck_assert_int_eq(strncmp(ha, hex, 16), 0);
}
END_TEST

START_TEST(test_sarif_occurrences_and_anchor)
{
	char *dir = make_tmpdir();
	char *app = sw__path_join(dir, "apps/mobile");
	char *git = sw__path_join(dir, ".git");
	ck_assert_int_eq(mkdir(git, 0700), 0);
	free(git);
	write_file(app, "package.json", "{}");
	write_file(app, "src/Login.tsx", "x");
	write_file(app, ".swipium/app-map.json",
	           "{\"staticTopology\":{\"screens\":[{\"id\":\"login\",\"name\":\"Login Screen\",\"sourceFiles\":"
	           "[\"../escape.tsx\",\"/abs.tsx\",\"missing.tsx\",\"src/Login.tsx\"]}]},"
	           "\"features\":[{\"id\":\"f1\",\"title\":\"Checkout\",\"sourceFiles\":[\"src/Login.tsx\"]}]}");
	const char *rep =
	    "{\"appId\":\"a\",\"findings\":["
	    "{\"severity\":\"high\",\"kind\":\"anr\",\"detail\":\"ANR pid 1234\",\"screen\":\"LOGIN SCREEN\"},"
	    "{\"severity\":\"high\",\"kind\":\"anr\",\"detail\":\"ANR pid 5678\",\"screen\":\"login screen\"}],"
	    "\"testOutcomes\":[{\"workflow\":\"checkout\",\"outcome\":\"fail\"},"
	    "{\"workflow\":\"other\",\"outcome\":\"fail\",\"reason\":\"r\",\"missingPrecondition\":\"m\"}]}";
	size_t len = 0;
	char *out = render(rep, SW_REPORT_SARIF, app, &len);
	json_t *doc = parse(out);
	json_t *results = json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "results");
	ck_assert_uint_eq(json_array_size(results), 4);
	const char *fp1 = json_string_value(
	    json_object_get(json_object_get(json_array_get(results, 0), "partialFingerprints"), "swipium/v1"));
	const char *fp2 = json_string_value(json_object_get(
	    json_object_get(json_array_get(results, 1), "partialFingerprints"), "primaryLocationLineHash"));
	ck_assert(sw__str_has_suffix(fp1, ":1"));
	ck_assert(sw__str_has_suffix(fp2, ":2"));
	ck_assert_int_eq(strncmp(fp1, fp2, 16), 0);
	const char *uris[4];
	for (size_t i = 0; i < 4; i++)
		uris[i] = json_string_value(json_object_get(
		    json_object_get(
		        json_object_get(json_array_get(json_object_get(json_array_get(results, i), "locations"), 0),
		                        "physicalLocation"),
		        "artifactLocation"),
		    "uri"));
	ck_assert_str_eq(uris[0], "apps/mobile/src/Login.tsx");
	ck_assert_str_eq(uris[2], "apps/mobile/src/Login.tsx");
	ck_assert_str_eq(uris[3], "apps/mobile/package.json");
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(json_array_get(results, 3), "message"), "text")),
	    "other: r; m");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(results, 2), "ruleId")), "WORKFLOW_FAILED");
	json_t *rules = json_object_get(
	    json_object_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "tool"), "driver"),
	    "rules");
	ck_assert_uint_eq(json_array_size(rules), 2);
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(json_array_get(rules, 1), "shortDescription"), "text")),
	    "Swipium workflow failed");
	json_decref(doc);
	free(out);
	char *prefix = sw__git_prefix(dir);
	ck_assert_str_eq(prefix, "");
	free(prefix);
	free(app);
	free(dir);
}
END_TEST

/* ---- caps and exports ------------------------------------------------------ */

START_TEST(test_summary_cap)
{
	/* Lines of 100 bytes: the cut keeps whole lines and the note, within the cap. */
	sw_buf b = SW_BUF_INIT;
	for (int i = 0; i < 20; i++) {
		for (int k = 0; k < 99; k++)
			sw__buf_putc(&b, 'x');
		sw__buf_putc(&b, i == 19 ? 'y' : '\n');
	}
	size_t len = 0;
	char *body = sw__buf_steal(&b, &len);
	size_t out_len = 0;
	char *out = sw__summary_cap(body, len, 1000, &out_len);
	ck_assert_uint_le(out_len, 1000);
	ck_assert(sw__str_has_suffix(out, "See the JUnit/SARIF/Markdown exports for the full report."));
	ck_assert(strstr(out, "xxx\n\n> \xE2\x9A\xA0\xEF\xB8\x8F Summary truncated at 900 KB") != NULL);
	/* (1000 - note) / 100 whole lines survive. */
	size_t note = strlen(strstr(out, "\n\n> "));
	ck_assert_uint_eq(out_len - note, ((1000 - note) / 100) * 100 - 1);
	free(out);
	/* Under the cap nothing changes. */
	char *small = strdup("abc");
	out = sw__summary_cap(small, 3, 1000, &out_len);
	ck_assert_str_eq(out, "abc");
	free(out);
}
END_TEST

START_TEST(test_summary_cap_real_report)
{
	/* 30,000 findings of 100 bytes each exceed 900 KB. */
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "{\"findings\":[");
	for (int i = 0; i < 30000; i++)
		sw__buf_printf(&b, "%s{\"severity\":\"low\",\"kind\":\"k\",\"detail\":\"%0100d\"}", i ? "," : "", i);
	sw__buf_puts(&b, "],\"testOutcomes\":[");
	for (int i = 0; i < 30000; i++)
		sw__buf_printf(&b, "%s{\"workflow\":\"w%d\",\"outcome\":\"blocked\",\"reason\":\"%0100d\"}",
		               i ? "," : "", i, i);
	sw__buf_puts(&b, "]}");
	size_t len = 0;
	char *out = render(b.data, SW_REPORT_GITHUB_SUMMARY, NULL, &len);
	ck_assert_uint_le(len, SW__SUMMARY_CAP);
	ck_assert_uint_gt(len, SW__SUMMARY_CAP - 300);
	ck_assert(strstr(out, "Summary truncated at 900 KB") != NULL);
	free(out);
	sw__buf_free(&b);
}
END_TEST

START_TEST(test_summary_counts_coerce)
{
	/* count > 1 compares like JavaScript: the string "3" counts, "x" and 1 do not. */
	const char *rep = "{\"findings\":[{\"severity\":\"low\",\"kind\":\"a\",\"detail\":\"d1\",\"count\":\"3\"},"
	                  "{\"severity\":\"low\",\"kind\":\"b\",\"detail\":\"d2\",\"count\":\"x\"},"
	                  "{\"severity\":\"low\",\"kind\":\"c\",\"detail\":\"d3\",\"count\":1}],\"testOutcomes\":[]}";
	size_t len = 0;
	char *out = render(rep, SW_REPORT_GITHUB_SUMMARY, NULL, &len);
	ck_assert(strstr(out, "| d1 (\xC3\x97" "3) |"));
	ck_assert(strstr(out, "| d2 |"));
	ck_assert(strstr(out, "| d3 |"));
	ck_assert(strstr(out, "Findings: **0 high** \xC2\xB7 0 medium \xC2\xB7 3 low. Workflows: none recorded."));
	free(out);
}
END_TEST

START_TEST(test_json_export)
{
	/* Index keys first (JavaScript order), releaseGate replaces the old key in place, numbers as JS prints them. */
	const char *rep =
	    "{\"9\":1,\"b\":2,\"10\":3,\"01\":4,\"releaseGate\":\"old\",\"findings\":[],\"testOutcomes\":[],"
	    "\"n\":[1.0,-0,1e21,1.5e-7,12345678901234567890,0.1],\"s\":\"nul\\u0000 \\ud800 end\"}";
	size_t len = 0;
	char *out = render(rep, SW_REPORT_JSON, NULL, &len);
	const char *expect =
	    "{\n  \"9\": 1,\n  \"10\": 3,\n  \"b\": 2,\n  \"01\": 4,\n  \"releaseGate\": {\n    \"block\": false,\n"
	    "    \"blocked\": [],\n    \"warned\": [],\n    \"suppressed\": [],\n"
	    "    \"reason\": \"all required flows passed\"\n  },\n  \"findings\": [],\n  \"testOutcomes\": [],\n"
	    "  \"n\": [\n    1,\n    0,\n    1e+21,\n    1.5e-7,\n    12345678901234567000,\n    0.1\n  ],\n"
	    "  \"s\": \"nul\\u0000 \xEF\xBF\xBD end\"\n}";
	ck_assert_str_eq(out, expect);
	ck_assert_uint_eq(len, strlen(expect));
	free(out);
}
END_TEST

START_TEST(test_junit_counts_and_lenient)
{
	char *dir = make_tmpdir();
	write_file(dir, ".swipium/policy.json",
	           "{\"blockOn\":[\"crash\"],\"warnOn\":[\"app_bug\"],\"ignoreKnown\":[\"unknown\"]}");
	size_t len = 0;
	char *out = render(FAIL_REPORT, SW_REPORT_JUNIT, dir, &len);
	ck_assert(
	    strstr(out, "<testsuites name=\"swipium.com.x\" tests=\"6\" failures=\"1\" errors=\"0\" time=\"0\">"));
	ck_assert(strstr(out, "<testsuite name=\"swipium.com.x\" tests=\"4\" failures=\"0\" errors=\"0\" skipped=\"3\" "
	                      "time=\"0\">"));
	ck_assert(strstr(out, "<property name=\"swipium.skipped\" value=\"3\"></property>"));
	ck_assert(strstr(out, "<skipped message=\"policy warned (release gate not blocked): app_bug\"></skipped>"));
	ck_assert(strstr(out, "<skipped message=\"policy suppressed (release gate not blocked): fail\"></skipped>"));
	ck_assert(strstr(out, "<failure message=\"NATIVE_CRASH\">boom</failure>"));
	ck_assert(strstr(out, "<property name=\"swipium.releaseGate\" value=\"fail\"></property>"));
	ck_assert(sw__str_has_suffix(out, "</testsuites>"));
	free(out);
	/* Time: seconds with at most three decimals. */
	out = render("{\"phaseTimings\":{\"totalMs\":412345.678},\"findings\":[],\"testOutcomes\":[]}", SW_REPORT_JUNIT,
	             NULL, &len);
	ck_assert(strstr(out, "time=\"412.346\""));
	ck_assert(!strstr(out, ".findings"));
	free(out);
	free(dir);
}
END_TEST

START_TEST(test_huge_strings_render)
{
	/* A 4 MB detail with control characters renders in every format. */
	size_t n = 4u * 1024u * 1024u;
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "{\"appId\":\"big\",\"findings\":[{\"severity\":\"high\",\"kind\":\"anr\",\"detail\":\"");
	for (size_t i = 0; i < n / 8; i++)
		sw__buf_puts(&b, "ab|\\u001b1 ");
	sw__buf_puts(&b, "\"}],\"testOutcomes\":[]}");
	for (int f = SW_REPORT_JUNIT; f <= SW_REPORT_JSON; f++) {
		size_t len = 0;
		char *out = render(b.data, (sw_report_format)f, NULL, &len);
		ck_assert_uint_gt(len, 100);
		free(out);
	}
	sw__buf_free(&b);
}
END_TEST

/* ---- loading ------------------------------------------------------------------ */

START_TEST(test_load_errors)
{
	sw_report *r = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_report_load_data("{\"findings\":[]", 14, &r, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_load_data("{\"findings\":{},\"testOutcomes\":[]}", 33, &r, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_load_data("[]", 2, &r, &err), SW_EINVAL);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_load_file("/nonexistent/r.json", &r, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_message(err), "Report file not found: /nonexistent/r.json");
	sw_error_free(err);
	err = NULL;
	char *dir = make_tmpdir();
	write_file(dir, "bad.json", "{\"findings\": [");
	write_file(dir, "other.json", "{\"a\":1}");
	char *bad = sw__path_join(dir, "bad.json"), *other = sw__path_join(dir, "other.json");
	ck_assert_int_eq(sw_report_load_file(bad, &r, &err), SW_EINVAL);
	char *prefix = sw__asprintf("Could not read report %s: ", bad);
	ck_assert(sw__str_has_prefix(sw_error_message(err), prefix));
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_load_file(other, &r, &err), SW_EINVAL);
	char *msg = sw__asprintf("%s is not a Swipium report JSON (missing findings/testOutcomes).", other);
	ck_assert_str_eq(sw_error_message(err), msg);
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_load_file(dir, &r, &err), SW_EINVAL);
	sw_error_free(err);
	/* Raw invalid UTF-8 is read as U+FFFD, like Node's decoder. */
	const char *bad_utf8 = "{\"sessionId\":\"a\xff\",\"findings\":[],\"testOutcomes\":[]}";
	ck_assert_int_eq(sw_report_load_data(bad_utf8, strlen(bad_utf8), &r, NULL), SW_OK);
	ck_assert_str_eq(sw_report_session_id(r), "a\xEF\xBF\xBD");
	sw_report_free(r);
	sw_report_free(NULL);
	const char *numeric = "{\"sessionId\":12,\"findings\":[],\"testOutcomes\":[]}";
	ck_assert_int_eq(sw_report_load_data(numeric, strlen(numeric), &r, NULL), SW_OK);
	ck_assert_str_eq(sw_report_session_id(r), "12");
	sw_report_free(r);
	const char *no_id = "{\"findings\":[],\"testOutcomes\":[]}";
	ck_assert_int_eq(sw_report_load_data(no_id, strlen(no_id), &r, NULL), SW_OK);
	ck_assert_ptr_null(sw_report_session_id(r));
	sw_report_free(r);
	sw_report_format fmt;
	ck_assert_int_eq(sw_report_format_parse("github-summary", &fmt), SW_OK);
	ck_assert_int_eq(fmt, SW_REPORT_GITHUB_SUMMARY);
	ck_assert_int_eq(sw_report_format_parse("xml", &fmt), SW_EINVAL);
	ck_assert_str_eq(sw_report_format_name(SW_REPORT_SARIF), "sarif");
	free(prefix);
	free(msg);
	free(bad);
	free(other);
	free(dir);
}
END_TEST

/* ---- discovery ------------------------------------------------------------------ */

static void session(const char *home, const char *root, const char *hash, const char *id, const char *created,
                    const char *artifacts)
{
	char *rel = sw__asprintf(".swipium/runs/%s/%s/state.json", hash, id);
	char *state = sw__asprintf("{\"id\":\"%s\",\"root\":\"%s\",\"createdAt\":%s,\"artifacts\":%s}", id, root,
	                           created, artifacts);
	write_file(home, rel, state);
	free(rel);
	free(state);
}

START_TEST(test_find)
{
	char *home = make_tmpdir(), *root = make_tmpdir();
	char hex[65];
	sw_sha256_hex(root, strlen(root), hex);
	hex[16] = '\0';
	char *path = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_report_find(home, root, NULL, &path, &err), SW_EINVAL);
	char *msg =
	    sw__asprintf("No Swipium session with a report found for project %s (looked in %s/.swipium).\nRun "
	                 "the agent step first and make sure it calls qa_report (any format) before the session ends.",
	                 root, home);
	ck_assert_str_eq(sw_error_message(err), msg);
	free(msg);
	sw_error_free(err);
	err = NULL;

	/* s1: report through its artifacts (the newest by createdAt); s2: newer, only a report/ dir; s3: newest, none.
	 */
	char *s1 = sw__asprintf("%s/.swipium/runs/%s/s1", home, hex);
	char *arts = sw__asprintf(
	    "[{\"kind\":\"report\",\"mime\":\"application/json\",\"path\":\"%s/report/report-2.json\","
	    "\"createdAt\":\"2026-01-01T00:00:02.000Z\"},"
	    "{\"kind\":\"report\",\"mime\":\"application/json\",\"path\":\"%s/report/report-1.json\","
	    "\"createdAt\":\"2026-01-01T00:00:01.000Z\"},"
	    "{\"kind\":\"report\",\"mime\":\"application/json\",\"path\":\"%s/report/report-3.sarif.json\","
	    "\"createdAt\":\"2026-01-01T00:00:09.000Z\"}]",
	    s1, s1, s1);
	session(home, root, hex, "s1", "1000", arts);
	write_file(s1, "report/report-1.json", "{}");
	write_file(s1, "report/report-2.json", "{}");
	write_file(s1, "report/report-3.sarif.json", "{}");
	ck_assert_int_eq(sw_report_find(home, root, NULL, &path, NULL), SW_OK);
	char *expect = sw__asprintf("%s/report/report-2.json", s1);
	ck_assert_str_eq(path, expect);
	free(expect);
	sw_free(path);

	session(home, root, hex, "s2", "2000", "[]");
	char *s2 = sw__asprintf("%s/.swipium/runs/%s/s2", home, hex);
	write_file(s2, "report/report-9.json", "{}");
	write_file(s2, "report/report-10.json", "{}");
	write_file(s2, "report/report-11.xml", "{}");
	session(home, root, hex, "s3", "3000", "[]");
	/* Another project's session in the same runs dir is ignored. */
	session(home, "/elsewhere", hex, "s4", "4000", "[]");
	write_file(home, ".swipium/runs/x/s4/report/report-1.json", "{}");
	ck_assert_int_eq(sw_report_find(home, root, NULL, &path, NULL), SW_OK);
	expect = sw__asprintf("%s/report/report-10.json", s2);
	ck_assert_str_eq(path, expect);
	free(expect);
	sw_free(path);

	ck_assert_int_eq(sw_report_find(home, root, "s1", &path, NULL), SW_OK);
	ck_assert(sw__str_has_suffix(path, "/s1/report/report-2.json"));
	sw_free(path);
	ck_assert_int_eq(sw_report_find(home, root, "s3", &path, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_message(err), "Session s3 has no persisted report yet. Call qa_report for it first.");
	sw_error_free(err);
	err = NULL;
	ck_assert_int_eq(sw_report_find(home, root, "s4", &path, &err), SW_EINVAL);
	msg = sw__asprintf("No persisted Swipium session \"s4\" for project %s.", root);
	ck_assert_str_eq(sw_error_message(err), msg);
	free(msg);
	sw_error_free(err);

	/* A session registered in registry.json outside runs/ counts too, and a newer one wins. */
	char *outside = sw__asprintf("%s/custom-session", home);
	char *reg = sw__asprintf("[{\"id\":\"s5\",\"dir\":\"%s\"},{\"id\":\"bad\"},7]", outside);
	write_file(home, ".swipium/registry.json", reg);
	char *state = sw__asprintf("{\"id\":\"s5\",\"root\":\"%s/.\",\"createdAt\":5000}", root);
	write_file(outside, "state.json", state);
	write_file(outside, "report/report-0001.json", "{}");
	ck_assert_int_eq(sw_report_find(home, root, NULL, &path, NULL), SW_OK);
	expect = sw__asprintf("%s/report/report-0001.json", outside);
	ck_assert_str_eq(path, expect);
	free(expect);
	sw_free(path);
	free(outside);
	free(reg);
	free(state);
	free(arts);
	free(s1);
	free(s2);
	free(home);
	free(root);
}
END_TEST

/* ---- catalog ---------------------------------------------------------------------- */

START_TEST(test_catalog)
{
	ck_assert_uint_eq(sw_catalog_count(), 137);
	char *list = NULL;
	ck_assert_int_eq(sw_catalog_list_json(&list, NULL), SW_OK);
	json_t *arr = parse(list);
	ck_assert_uint_eq(json_array_size(arr), 137);
	static const struct {
		const char *bucket;
		size_t n;
	} buckets[] = {
	    {"app_bug", 10}, {"environment", 71}, {"missing_data", 10}, {"mcp_limitation", 30}, {"unsafe_refused", 16}};
	for (size_t b = 0; b < 5; b++) {
		size_t n = 0;
		for (size_t i = 0; i < json_array_size(arr); i++) {
			json_t *e = json_array_get(arr, i);
			n += !strcmp(json_string_value(json_object_get(e, "bucket")), buckets[b].bucket);
			const char *summary = json_string_value(json_object_get(e, "summary"));
			ck_assert(summary && *summary && summary[strlen(summary) - 1] != '.');
			ck_assert(json_string_length(json_object_get(e, "recovery")) > 10);
		}
		ck_assert_uint_eq(n, buckets[b].n);
	}
	json_decref(arr);
	sw_free(list);
	char *entry = NULL;
	ck_assert_int_eq(sw_catalog_lookup("LOGBOX", &entry, NULL), SW_OK);
	json_t *e = parse(entry);
	ck_assert_str_eq(json_string_value(json_object_get(e, "bucket")), "app_bug");
	ck_assert(json_is_true(json_object_get(e, "retrySafe")));
	ck_assert(json_is_true(json_object_get(e, "finding")));
	json_decref(e);
	sw_free(entry);
	sw_error *err = NULL;
	ck_assert_int_eq(sw_catalog_lookup("logbox", &entry, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
}
END_TEST

/*
 * Each catalog code carries its one sw_result (the raises that spell it are checked by
 * check-catalog-results.py): a real result for every code but UNKNOWN, whose result is the failure's own.
 */
START_TEST(test_catalog_results)
{
	ck_assert_uint_eq(sw__catalog_size(), sw_catalog_count());
	for (size_t i = 0; i < sw__catalog_size(); i++) {
		const sw__catalog_entry *e = sw__catalog_at(i);
		if (!strcmp(e->code, "UNKNOWN")) {
			ck_assert_int_eq(e->result, SW_OK);
			continue;
		}
		ck_assert_msg(e->result < 0 && e->result != SW_ENOMEM && strcmp(sw_strerror(e->result), "SW_E?") != 0,
		              "%s carries no sw_result", e->code);
		/* a raise that computes its code at run time gets the table's result, whatever it guessed */
		ck_assert_int_eq(sw__catalog_result(e->code, SW_EIO), e->result);
		ck_assert_int_eq(sw__catalog_result(e->code, SW_ELIMIT), e->result);
	}
	ck_assert_int_eq(sw__catalog_result("INVALID_ARGUMENT", SW_ENOTFOUND), SW_EINVAL);
	ck_assert_int_eq(sw__catalog_result("NO_DEVICE", SW_EDEVICE), SW_ENOTFOUND);
	ck_assert_int_eq(sw__catalog_result("UNKNOWN", SW_ELIMIT), SW_ELIMIT);
	ck_assert_int_eq(sw__catalog_result("NOT_A_CODE", SW_EIO), SW_EIO);
	ck_assert_int_eq(sw__catalog_result(NULL, SW_EIO), SW_EIO);
}
END_TEST

START_TEST(test_markdown_automation_tables)
{
	json_t *r = json_pack("{s:{s:s,s:i,s:{s:i,s:i,s:i,s:i,s:i,s:i},s:[{s:s,s:s,s:s,s:s,s:s}],"
	                      "s:[{s:s,s:s,s:i,s:i,s:i,s:i}]}}",
	                      "automationReadiness", "grade", "B", "score", 81, "locatorCoverage", "totalActions", 10,
	                      "durableActions", 7, "nativeFallbackActions", 1, "textActions", 1, "coordinateActions", 1,
	                      "durablePct", 70, "workflowGrades", "workflow", "login", "grade", "A", "outcome", "pass",
	                      "evidence", "a | b", "fix", "none", "screenGrades", "screen", "Home", "grade", "B", "score",
	                      80, "actionCount", 5, "durableLocatorPct", 60, "weakActions", 2);
	size_t len = 0;
	char *md = sw__render_markdown(r, &len);
	ck_assert_ptr_nonnull(md);
	ck_assert_ptr_nonnull(strstr(md, "Grade **B** (81/100)"));
	ck_assert_ptr_nonnull(strstr(md, "| --- | --- | --- | --- | --- | --- |\n| 10 | 7 | 1 | 1 | 1 | 70 |"));
	ck_assert_ptr_nonnull(strstr(md, "| --- | --- | --- | --- | --- |\n| login | A | pass | a \\| b | none |"));
	ck_assert_ptr_nonnull(strstr(md, "| --- | --- | --- | --- | --- | --- |\n| Home | B | 80 | 5 | 60 | 2 |"));
	free(md);
	json_decref(r);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("gate");
	tcase_add_test(tc, test_gate_no_policy_blocks_every_failure);
	tcase_add_test(tc, test_gate_all_pass);
	tcase_add_test(tc, test_markdown_automation_tables);
	tcase_add_test(tc, test_gate_warn_and_synonyms);
	tcase_add_test(tc, test_gate_empty_block_on_ignores_warn_on);
	tcase_add_test(tc, test_gate_ignore_known_is_exact);
	tcase_add_test(tc, test_gate_codes);
	tcase_add_test(tc, test_policy_norm);
	tcase_add_test(tc, test_policy_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("escaping");
	tcase_add_test(tc, test_xml_escape);
	tcase_add_test(tc, test_md_escape);
	tcase_add_test(tc, test_clip);
	suite_add_tcase(s, tc);
	tc = tcase_create("fingerprints");
	tcase_add_test(tc, test_scrub_volatile);
	tcase_add_test(tc, test_stable_hash);
	tcase_add_test(tc, test_sarif_occurrences_and_anchor);
	suite_add_tcase(s, tc);
	tc = tcase_create("exports");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_summary_cap);
	tcase_add_test(tc, test_summary_cap_real_report);
	tcase_add_test(tc, test_json_export);
	tcase_add_test(tc, test_summary_counts_coerce);
	tcase_add_test(tc, test_junit_counts_and_lenient);
	tcase_add_test(tc, test_huge_strings_render);
	suite_add_tcase(s, tc);
	tc = tcase_create("loading");
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_find);
	suite_add_tcase(s, tc);
	tc = tcase_create("catalog");
	tcase_add_test(tc, test_catalog);
	tcase_add_test(tc, test_catalog_results);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(report_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
