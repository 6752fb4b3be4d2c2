/* check-snapshot-readers.c: the snapshot parser's two readers (parse.c), the plain-dump reader and libxml2,
 * give the same screen for every dump, or fail alike; the plain reader is the one that reads the usual dumps
 * (uiautomator's, and the hierarchy the iOS driver converts from WebDriverAgent sources), and gives way
 * to libxml2 on anything else. Dumps: the test data, the fuzz seeds, converted WDA sources, hand-made
 * edge cases and thousands of damaged copies of them (a fixed seed, so a failure repeats). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw-internal.h"
#include "../../libswipium/drivers/ios/ios-internal.h"
#include "../../libswipium/snapshot/snapshot-internal.h"

static char *read_path(const char *path, size_t *len)
{
	char *buf = NULL;
	sw_error *err = NULL;
	int rc = sw__read_file(path, 1 << 24, &buf, len, &err);
	ck_assert_msg(rc == 0, "cannot read %s", path);
	return buf;
}

static void str_same(const char *a, const char *b, const char *what, size_t i)
{
	ck_assert_msg((a == NULL) == (b == NULL) && (!a || !strcmp(a, b)), "%s of #%zu: \"%s\" vs \"%s\"", what, i,
	              a ? a : "(null)", b ? b : "(null)");
}

/* Every field the snapshot reads later, compared. */
static void screens_same(const sw__screen *a, const sw__screen *b)
{
	ck_assert_uint_eq(a->node_count, b->node_count);
	ck_assert_uint_eq(a->n_els, b->n_els);
	ck_assert_uint_eq(a->n_overlays, b->n_overlays);
	ck_assert_uint_eq(a->clickable_count, b->clickable_count);
	ck_assert_uint_eq(a->unidentified_clickable, b->unidentified_clickable);
	ck_assert_uint_eq(a->webview_area_max, b->webview_area_max);
	ck_assert_int_eq(a->compose_seen, b->compose_seen);
	ck_assert_int_eq(a->width, b->width);
	ck_assert_int_eq(a->height, b->height);
	ck_assert_int_eq(a->rotation, b->rotation);
	str_same(a->geometry, b->geometry, "geometry", 0);
	str_same(a->package, b->package, "package", 0);
	ck_assert_uint_eq(a->omitted_offscreen, b->omitted_offscreen);
	ck_assert_uint_eq(a->omitted_no_size, b->omitted_no_size);
	ck_assert_uint_eq(a->omitted_invisible, b->omitted_invisible);
	for (size_t i = 0; i < a->n_els; i++) {
		const sw__element *x = &a->els[i], *y = &b->els[i];
		str_same(x->cls, y->cls, "class", i);
		str_same(x->role, y->role, "role", i);
		str_same(x->id, y->id, "id", i);
		str_same(x->short_id, y->short_id, "short id", i);
		str_same(x->desc, y->desc, "desc", i);
		str_same(x->text, y->text, "text", i);
		str_same(x->label, y->label, "label", i);
		str_same(x->pkg, y->pkg, "package", i);
		str_same(x->hint, y->hint, "hint", i);
		ck_assert_uint_eq(x->raw_text_chars, y->raw_text_chars);
		ck_assert_mem_eq(x->bounds, y->bounds, sizeof(x->bounds));
		ck_assert_int_eq(x->has_bounds, y->has_bounds);
		ck_assert_int_eq(x->clickable, y->clickable);
		ck_assert_int_eq(x->long_clickable, y->long_clickable);
		ck_assert_int_eq(x->focusable, y->focusable);
		ck_assert_int_eq(x->focused, y->focused);
		ck_assert_int_eq(x->secure, y->secure);
		ck_assert_int_eq(x->scrollable, y->scrollable);
		ck_assert_int_eq(x->checkable, y->checkable);
		ck_assert_int_eq(x->checked, y->checked);
		ck_assert_int_eq(x->selected, y->selected);
		ck_assert_int_eq(x->enabled, y->enabled);
		ck_assert_int_eq(x->edit, y->edit);
		ck_assert_uint_eq(x->node_index, y->node_index);
		ck_assert_uint_eq(x->subtree_end, y->subtree_end);
		ck_assert_uint_eq(x->hash, y->hash);
		ck_assert_uint_eq(x->n_attrs, y->n_attrs);
		for (size_t k = 0; k < x->n_attrs; k++) {
			str_same(x->attrs[k].name, y->attrs[k].name, "attribute name", i);
			str_same(x->attrs[k].value, y->attrs[k].value, "attribute value", i);
		}
	}
	for (size_t i = 0; i < a->n_overlays; i++) {
		const sw__overlay *x = &a->overlays[i], *y = &b->overlays[i];
		str_same(x->kind, y->kind, "overlay kind", i);
		str_same(x->label, y->label, "overlay label", i);
		str_same(x->pkg, y->pkg, "overlay package", i);
		ck_assert_mem_eq(x->bounds, y->bounds, sizeof(x->bounds));
		ck_assert_uint_eq(x->node_index, y->node_index);
		ck_assert_uint_eq(x->subtree_end, y->subtree_end);
	}
}

static size_t n_plain, n_libxml2, n_failed;

/* Both readers on one dump: the same screen, or the same failure. Returns the reader that read it ("" failed). */
static const char *compare(const char *xml, size_t len)
{
	sw__screen *a = NULL, *b = NULL;
	sw_error *ea = NULL, *eb = NULL;
	int ra = sw__snapshot_parse_with(xml, len, 1080, 2400, true, &a, &ea);
	int rb = sw__snapshot_parse_with(xml, len, 1080, 2400, false, &b, &eb);
	if (ra != rb) {
		char *shown = sw__utf8_cap(xml, len, 300, SW_CAP_HEAD);
		ck_abort_msg("readers disagree (%d vs %d: %s / %s) on: %s", ra, rb, ea ? sw_error_message(ea) : "",
		             eb ? sw_error_message(eb) : "", shown ? shown : "?");
	}
	const char *reader = "";
	if (ra == SW_OK) {
		ck_assert_str_eq(b->reader, "libxml2");
		screens_same(a, b);
		reader = a->reader;
		if (!strcmp(reader, "plain"))
			n_plain++;
		else
			n_libxml2++;
	} else {
		ck_assert_str_eq(sw_error_message(ea), sw_error_message(eb));
		ck_assert_str_eq(sw_error_failure_code(ea), sw_error_failure_code(eb));
		n_failed++;
	}
	sw__screen_free(a);
	sw__screen_free(b);
	sw_error_free(ea);
	sw_error_free(eb);
	return reader;
}

typedef struct seeds {
	char *data[128];
	size_t len[128];
	size_t n;
} seeds;

static void add_seed(seeds *s, char *data, size_t len)
{
	ck_assert_uint_lt(s->n, SW_ARRAY_SIZE(s->data));
	s->data[s->n] = data;
	s->len[s->n++] = len;
}

static void add_dir(seeds *s, const char *sub, bool wda)
{
	const char *root = getenv("SWIPIUM_SOURCE_ROOT");
	ck_assert_ptr_nonnull(root);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/%s", root, sub);
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "no %s", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		size_t len = 0;
		char *buf = read_path(path, &len);
		if (!wda) {
			add_seed(s, buf, len);
			continue;
		}
		char *xml = NULL;
		size_t xl = 0;
		sw_error *err = NULL;
		if (sw__wda_source_convert(buf, len, "com.example.shop", 0, &xml, &xl, NULL, &err) == SW_OK)
			add_seed(s, xml, xl);
		sw_error_free(err);
		free(buf);
	}
	closedir(d);
}

static const char *const HAND[] = {
    "<hierarchy rotation=\"0\"/>",
    "<hierarchy/>",
    "  <hierarchy rotation='3'>\n  <node text='it''s' bounds='[0,0][10,10]'/>\n</hierarchy>\n",
    "<hierarchy rotation=\"1\"><node text='say \"hi\"' clickable=\"true\" bounds=\"[0,0][100,100]\"></node ></hierarchy>",
    "<hierarchy><node text=\"a &amp; b &#38; c &lt;x&gt; &quot;q&quot; &apos;s&apos; &#10;&#13;&#9;\" "
    "clickable=\"true\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"&#38;#38;\" clickable=\"true\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\" clickable=\"true\" bounds=\"[0,0][9,9]\"/>"
    "</hierarchy>",
    /* each of these is libxml2's to read (or to refuse) */
    "<hierarchy><node text=\"line\nbreak\ttab\rcr\" clickable=\"true\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"&#65;&#x42;\" clickable=\"true\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><!-- c --><node text=\"x\" clickable=\"true\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"x\" text=\"y\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node index=\"1\" index=\"2\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy rotation=\"1\" rotation=\"2\"/>",
    "<hierarchy><node text=\"x\"bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"bad \xc3\x28 utf8\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"surrogate \xed\xa0\x80\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"nonchar \xef\xbf\xbf\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"overlong \xc0\xaf\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"ctl \x01\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"lt < inside\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"x\" bounds=\"[0,0][100,100]\">text</node></hierarchy>",
    "<hierarchy><node text=\"x\" bounds=\"[0,0][100,100]\"></hierarchy>",
    "<hierarchy><node text=\"x\" bounds=\"[0,0][100,100]\"/></hierarchy>trailing",
    "<hierarchy><node text=\"x\" bounds=\"[0,0][100,100]\"/></hierarchy><!-- after -->",
    "<hierarchy><node text=\"x\" bounds=\"[0,0][100,100]\"/><other clickable=\"true\"/></hierarchy>",
    "<hierarchy><node xmlns:q=\"urn:q\" q:text=\"x\" bounds=\"[0,0][100,100]\"/></hierarchy>",
    "<hierarchy><node text=\"unterminated",
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node text=\"ok\" "
    "clickable=\"true\" bounds=\"[0,0][10,10]\"/></hierarchy>",
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<hierarchy><node text=\"ok\" bounds=\"[0,0][10,10]\"/></hierarchy>",
    "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><hierarchy><node text=\"caf\xe9\" clickable=\"true\" "
    "bounds=\"[0,0][10,10]\"/></hierarchy>",
    " <?xml version=\"1.0\"?><hierarchy/>",
    "\xef\xbb\xbf<hierarchy><node text=\"bom\" clickable=\"true\" bounds=\"[0,0][10,10]\"/></hierarchy>",
    "<hierarchy><node text=\"x\" bounds=\"[0,0][100,100]\"/></node></hierarchy>",
    "<node text=\"no root\" bounds=\"[0,0][100,100]\"/>",
    "",
};

START_TEST(test_readers_agree_on_every_dump)
{
	seeds s = {0};
	add_dir(&s, "tests/data/uiautomator", false);
	add_dir(&s, "tests/fuzz/corpus-uiautomator", false);
	add_dir(&s, "tests/fuzz/corpus-wda-source", true);
	add_dir(&s, "tests/fuzz/corpus-wda-source-json", true);
	for (size_t i = 0; i < SW_ARRAY_SIZE(HAND); i++)
		add_seed(&s, sw__strdup(HAND[i]), strlen(HAND[i]));
	for (size_t i = 0; i < s.n; i++)
		compare(s.data[i], s.len[i]);
	/* damaged copies: bytes changed to what the plain reader has to think about, cuts, and insertions */
	static const char pick[] = "&<>\"' \n\t=/:#;x0\x80\xc3\xed\xef\x01";
	unsigned long long rng = 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < s.n; i++) {
		if (!s.len[i])
			continue;
		for (int m = 0; m < 400; m++) {
			char *c = malloc(s.len[i] + 8);
			ck_assert_ptr_nonnull(c);
			memcpy(c, s.data[i], s.len[i]);
			size_t len = s.len[i];
			int edits = 1 + m % 3;
			for (int k = 0; k < edits; k++) {
				rng ^= rng << 13;
				rng ^= rng >> 7;
				rng ^= rng << 17;
				size_t at = (size_t)(rng >> 8) % len;
				char ch = pick[(rng >> 40) % (sizeof(pick) - 1)];
				switch ((rng >> 50) % 4) {
				case 0:
				case 1: c[at] = ch; break;
				case 2: len = at ? at : len; break; /* cut short */
				default:                            /* one byte more */
					memmove(c + at + 1, c + at, len - at);
					c[at] = ch;
					len++;
					break;
				}
			}
			compare(c, len);
			free(c);
		}
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.data[i]);
	/* the comparison means something only when both readers had their turn, and some dumps failed */
	fprintf(stderr, "dumps read by the plain reader %zu, by libxml2 %zu, refused by both %zu\n", n_plain, n_libxml2,
	        n_failed);
	ck_assert_uint_gt(n_plain, 300);
	ck_assert_uint_gt(n_libxml2, 100);
	ck_assert_uint_gt(n_failed, 100);
}
END_TEST

/* The plain reader reads the usual dumps (else the snapshot would pay libxml2 on every one). */
START_TEST(test_plain_reader_takes_usual_dumps)
{
	const char *root = getenv("SWIPIUM_SOURCE_ROOT");
	ck_assert_ptr_nonnull(root);
	static const char *const usual[] = {"tests/data/uiautomator/login.xml", "tests/data/uiautomator/dialog.xml",
	                                    "tests/data/uiautomator/tall.xml", "tests/data/uiautomator/landscape.xml"};
	for (size_t i = 0; i < SW_ARRAY_SIZE(usual); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", root, usual[i]);
		size_t len = 0;
		char *xml = read_path(path, &len);
		ck_assert_msg(!strcmp(compare(xml, len), "plain"), "%s was not read by the plain reader", usual[i]);
		free(xml);
	}
	/* a converted WDA source of 2,000 rows (the iOS driver's own output) */
	sw_buf b = SW_BUF_INIT;
	sw__buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><XCUIElementTypeApplication type=\"XCUIElementTypeApplication\" "
	                 "name=\"Shop\" label=\"Shop\" enabled=\"true\" visible=\"true\" x=\"0\" y=\"0\" width=\"390\" "
	                 "height=\"844\"><XCUIElementTypeTable type=\"XCUIElementTypeTable\" x=\"0\" y=\"0\" width=\"390\" "
	                 "height=\"844\">");
	for (int i = 0; i < 2000; i++)
		sw__buf_printf(&b,
		               "<XCUIElementTypeStaticText type=\"XCUIElementTypeStaticText\" name=\"row%d\" label=\"Row %d &amp; "
		               "more\" value=\"caf\xc3\xa9 %d\" enabled=\"true\" visible=\"%s\" x=\"0\" y=\"%d\" width=\"390\" "
		               "height=\"44\"/>",
		               i, i, i, i % 7 ? "true" : "false", 44 * i);
	sw__buf_puts(&b, "</XCUIElementTypeTable></XCUIElementTypeApplication>");
	ck_assert(!b.failed);
	char *xml = NULL;
	size_t xl = 0;
	sw_error *err = NULL;
	ck_assert_int_eq(sw__wda_source_convert(b.data, b.len, "com.example.shop", 0, &xml, &xl, NULL, &err), SW_OK);
	ck_assert_str_eq(compare(xml, xl), "plain");
	free(xml);
	sw__buf_free(&b);
	/* the same dump with one comment in it goes to libxml2, with the same screen */
	static const char commented[] = "<hierarchy rotation=\"0\"><!-- c --><node text=\"x\" clickable=\"true\" "
	                                "bounds=\"[0,0][100,100]\"/></hierarchy>";
	ck_assert_str_eq(compare(commented, sizeof(commented) - 1), "libxml2");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot-readers");
	TCase *tc = tcase_create("readers");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_plain_reader_takes_usual_dumps);
	tcase_add_test(tc, test_readers_agree_on_every_dump);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
