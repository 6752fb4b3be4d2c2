/* check-wda-readers.c: the iOS driver's two readers of WebDriverAgent XML sources (wda-source.c), the plain
 * reader and libxml2, give the same hierarchy byte for byte, the same counts and the same failure for
 * every source: the fuzz seeds, hand-made edge cases, a large table, and thousands of damaged copies of
 * them (a fixed seed, so a failure repeats). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"
#include "../../libswipium/drivers/ios/wda-source-internal.h"

static size_t n_ok, n_failed, n_plain;
/* FNV-1a of every hierarchy made, printed: the same across changes of the writer means the same output */
static unsigned long long out_hash = 1469598103934665603ULL;

static void hash_in(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out_hash ^= (unsigned char)s[i];
		out_hash *= 1099511628211ULL;
	}
}

static void compare(const char *xml, size_t len, size_t node_limit)
{
	char *a = NULL, *b = NULL;
	size_t al = 0, bl = 0;
	sw__wda_source_stats sa = {0}, sb = {0};
	sw_error *ea = NULL, *eb = NULL;
	int ra = sw__wda_source_convert_with(xml, len, "com.example.shop", node_limit, true, &a, &al, &sa, &ea);
	int rb = sw__wda_source_convert_with(xml, len, "com.example.shop", node_limit, false, &b, &bl, &sb, &eb);
	if (ra != rb || (ra == SW_OK && (al != bl || memcmp(a, b, al) != 0))) {
		char *shown = sw__utf8_cap(xml, len, 300, SW_CAP_HEAD);
		ck_abort_msg("readers disagree (%d vs %d: %s / %s) on: %s\n%s\n%s", ra, rb, ea ? sw_error_message(ea) : "",
		             eb ? sw_error_message(eb) : "", shown ? shown : "?", a ? a : "", b ? b : "");
	}
	if (ra == SW_OK) {
		hash_in(a, al);
		ck_assert_uint_eq(sa.nodes, sb.nodes);
		ck_assert_uint_eq(sa.hidden, sb.hidden);
		ck_assert_uint_eq(sa.bad_frames, sb.bad_frames);
		ck_assert_uint_eq(sa.empty_frames, sb.empty_frames);
		ck_assert(!sb.plain);
		n_ok++;
		n_plain += sa.plain;
	} else {
		ck_assert_str_eq(sw_error_message(ea), sw_error_message(eb));
		ck_assert_str_eq(sw_error_failure_code(ea), sw_error_failure_code(eb));
		n_failed++;
	}
	free(a);
	free(b);
	sw_error_free(ea);
	sw_error_free(eb);
}

static const char *const HAND[] = {
    "<XCUIElementTypeApplication type=\"XCUIElementTypeApplication\" name=\"A\" label=\"A\" x=\"0\" y=\"0\" "
    "width=\"390\" height=\"844\"/>",
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<AppiumAUT>\n  <XCUIElementTypeApplication type=\"XCUIElementTypeApplication\" "
    "x=\"0\" y=\"0\" width=\"390\" height=\"844\">\n    <XCUIElementTypeButton type=\"XCUIElementTypeButton\" name=\"go\" "
    "label=\"Go &amp; see &#38; &lt;now&gt; &quot;q&quot; &apos;s&apos;&#10;&#13;&#9;\" enabled=\"false\" x=\"1.5\" "
    "y=\"2\" width=\"100\" height=\"40\"/>\n  </XCUIElementTypeApplication>\n</AppiumAUT>\n",
    "<XCUIElementTypeApplication x=\"0\" y=\"0\" width=\"390\" height=\"844\"><XCUIElementTypeStaticText "
    "value=\"&amp;#38;\" label='it\"s' x=\"inf\" y=\"nan\" width=\"-1\" height=\"0\"/><XCUIElementTypeOther "
    "visible=\"false\" x=\"0\" y=\"0\" width=\"10\" height=\"10\"><XCUIElementTypeButton name=\"hidden\" x=\"0\" y=\"0\" "
    "width=\"10\" height=\"10\"/></XCUIElementTypeOther></XCUIElementTypeApplication>",
    "<XCUIElementTypeApplication><XCUIElementTypeSecureTextField value=\"\xe2\x80\xa2\xe2\x80\xa2\" x=\"0\" y=\"0\" "
    "width=\"10\" height=\"10\"/><XCUIElementTypeStaticText label=\"caf\xc3\xa9 \xf0\x9f\x98\x80\" x=\"0\" y=\"0\" "
    "width=\"10\" height=\"10\"/></XCUIElementTypeApplication>",
    /* libxml2's to read or refuse */
    "<XCUIElementTypeWindow x=\"0\" y=\"0\" width=\"1\" height=\"1\"/>",
    "<XCUIElementTypeApplication label=\"a\nb\"/>",
    "<XCUIElementTypeApplication label=\"&#65;\"/>",
    "<XCUIElementTypeApplication><!-- c --></XCUIElementTypeApplication>",
    "<XCUIElementTypeApplication label=\"a\" label=\"b\"/>",
    "<XCUIElementTypeApplication label=\"a\"name=\"b\"/>",
    "<XCUIElementTypeApplication label=\"bad \xc3\x28\"/>",
    "<XCUIElementTypeApplication label=\"\xed\xa0\x80\"/>",
    "<XCUIElementTypeApplication label=\"\xef\xbf\xbe\"/>",
    "<XCUIElementTypeApplication label=\"\x01\"/>",
    "<XCUIElementTypeApplication label=\"<\"/>",
    "<XCUIElementTypeApplication>text</XCUIElementTypeApplication>",
    "<XCUIElementTypeApplication><XCUIElementTypeButton></XCUIElementTypeApplication>",
    "<XCUIElementTypeApplication></XCUIElementTypeButton>",
    "<XCUIElementTypeApplication/>trailing",
    "<XCUIElementTypeApplication/><XCUIElementTypeApplication/>",
    "<!DOCTYPE x [<!ENTITY e \"e\">]><XCUIElementTypeApplication label=\"&e;\"/>",
    "<XCUIElementTypeApplication xmlns:q=\"urn:q\" q:label=\"x\"/>",
    "<q:XCUIElementTypeApplication/>",
    "<XCUIElementTypeApplication><![CDATA[x]]></XCUIElementTypeApplication>",
    "<?xml version='1.0'?><XCUIElementTypeApplication/>",
    "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><XCUIElementTypeApplication label=\"caf\xe9\"/>",
    "\xef\xbb\xbf<XCUIElementTypeApplication/>",
    "<XCUIElementTypeApplication label=\"cut",
    "   ",
};

START_TEST(test_readers_agree_on_every_source)
{
	char *data[128];
	size_t lens[128], n = 0;
	const char *root = getenv("SWIPIUM_SOURCE_ROOT");
	ck_assert_ptr_nonnull(root);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus-wda-source", root);
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	while ((e = readdir(d)) && n < 64) {
		if (e->d_name[0] == '.')
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		sw_error *err = NULL;
		ck_assert_int_eq(sw__read_file(path, 1 << 24, &data[n], &lens[n], &err), 0);
		n++;
	}
	closedir(d);
	ck_assert_uint_ge(n, 4);
	size_t n_seeds = n;
	for (size_t i = 0; i < SW_ARRAY_SIZE(HAND); i++) {
		data[n] = sw__strdup(HAND[i]);
		lens[n++] = strlen(HAND[i]);
	}
	/* a table of 3,000 rows, every seventh hidden */
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<XCUIElementTypeApplication type=\"XCUIElementTypeApplication\" "
	                 "name=\"Shop\" label=\"Shop\" x=\"0\" y=\"0\" width=\"390\" height=\"844\">\n<XCUIElementTypeTable "
	                 "type=\"XCUIElementTypeTable\" x=\"0\" y=\"0\" width=\"390\" height=\"844\">\n");
	for (int i = 0; i < 3000; i++)
		sw__buf_printf(&b,
		               "  <XCUIElementTypeStaticText type=\"XCUIElementTypeStaticText\" name=\"row%d\" label=\"Row %d\" "
		               "value=\"caf\xc3\xa9 %d\" enabled=\"true\" visible=\"%s\" x=\"0\" y=\"%d\" width=\"390\" "
		               "height=\"44.5\"/>\n",
		               i, i, i, i % 7 ? "true" : "false", 44 * i);
	sw__buf_puts(&b, "</XCUIElementTypeTable>\n</XCUIElementTypeApplication>\n");
	ck_assert(!b.failed);
	data[n] = b.data;
	lens[n++] = b.len;
	/* the seeds and the table are WDA's own shape: the plain reader reads them */
	for (size_t i = 0; i < n; i++) {
		if (i < n_seeds || i == n - 1) {
			size_t before = n_plain;
			compare(data[i], lens[i], 0);
			ck_assert_msg(n_plain == before + 1, "source #%zu was not read by the plain reader", i);
		} else
			compare(data[i], lens[i], 0);
		compare(data[i], lens[i], 3); /* the node limit reached early */
	}
	static const char pick[] = "&<>\"' \n\t=/:#;x0\x80\xc3\xed\xef\x01!?";
	unsigned long long rng = 0x2545f4914f6cdd1dULL;
	for (size_t i = 0; i < n; i++) {
		if (!lens[i] || lens[i] > 100000)
			continue;
		for (int m = 0; m < 400; m++) {
			char *c = malloc(lens[i] + 8);
			ck_assert_ptr_nonnull(c);
			memcpy(c, data[i], lens[i]);
			size_t len = lens[i];
			for (int k = 0; k < 1 + m % 3; k++) {
				rng ^= rng << 13;
				rng ^= rng >> 7;
				rng ^= rng << 17;
				size_t at = (size_t)(rng >> 8) % len;
				char ch = pick[(rng >> 40) % (sizeof(pick) - 1)];
				switch ((rng >> 50) % 4) {
				case 0:
				case 1: c[at] = ch; break;
				case 2: len = at ? at : len; break;
				default:
					memmove(c + at + 1, c + at, len - at);
					c[at] = ch;
					len++;
					break;
				}
			}
			compare(c, len, m % 5 ? 0 : 4);
			free(c);
		}
	}
	/* the JSON form's seeds go through the same writer: their hierarchies join the hash */
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus-wda-source-json", root);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[8192], *js = NULL, *h = NULL;
		size_t jl = 0, hl = 0;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		sw_error *err = NULL;
		ck_assert_int_eq(sw__read_file(path, 1 << 24, &js, &jl, &err), 0);
		if (sw__wda_source_convert(js, jl, "com.example.shop", 0, &h, &hl, NULL, &err) == SW_OK)
			hash_in(h, hl);
		else
			hash_in(sw_error_message(err), strlen(sw_error_message(err)));
		sw_error_free(err);
		free(h);
		free(js);
	}
	closedir(d);
	/* the big table: a cut at many places, so the limit and the cut meet in every state */
	for (size_t cut = 1; cut < lens[n - 1]; cut += 997)
		compare(data[n - 1], cut, 0);
	for (size_t i = 0; i < n; i++)
		free(data[i]);
	fprintf(stderr, "sources converted alike %zu (%zu by the plain reader), refused alike %zu, hierarchies %016llx\n",
	        n_ok, n_plain, n_failed, out_hash);
	ck_assert_uint_gt(n_plain, 100);
	ck_assert_uint_gt(n_ok - n_plain, 20);
	ck_assert_uint_gt(n_ok, 300);
	ck_assert_uint_gt(n_failed, 300);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wda-readers");
	TCase *tc = tcase_create("readers");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_readers_agree_on_every_source);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
