/* check-visual.c: unit tests of the visual concern: hostile PNGs, diffs, template matching, confined paths, providers.
 */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../libswipium/visual/visual-internal.h"

/* ---- PNG builders (libpng directly, so every colour type can be produced) ---- */

struct mem {
	unsigned char *d;
	size_t n, cap;
};

static void mem_write(png_structp p, png_bytep d, size_t n)
{
	struct mem *m = png_get_io_ptr(p);
	if (m->n + n > m->cap) {
		m->cap = (m->n + n) * 2;
		m->d = realloc(m->d, m->cap);
		ck_assert_ptr_nonnull(m->d);
	}
	memcpy(m->d + m->n, d, n);
	m->n += n;
}

static void mem_flush(png_structp p)
{
	(void)p;
}

/* Encodes @rows (already in the target layout) with the given IHDR fields; palette/trns optional. */
static struct mem make_png(int w, int h, int depth, int ctype, int interlace, unsigned char **rows, png_colorp pal,
                           int npal, png_bytep trns, int ntrns)
{
	struct mem m = {0};
	png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop i = png_create_info_struct(p);
	ck_assert(!setjmp(png_jmpbuf(p)));
	png_set_write_fn(p, &m, mem_write, mem_flush);
	png_set_IHDR(p, i, (png_uint_32)w, (png_uint_32)h, depth, ctype, interlace, PNG_COMPRESSION_TYPE_DEFAULT,
	             PNG_FILTER_TYPE_DEFAULT);
	if (pal)
		png_set_PLTE(p, i, pal, npal);
	if (trns)
		png_set_tRNS(p, i, trns, ntrns, NULL);
	png_set_rows(p, i, rows);
	png_write_png(p, i, PNG_TRANSFORM_IDENTITY, NULL);
	png_destroy_write_struct(&p, &i);
	return m;
}

static const unsigned char *px(const sw_image *img, int x, int y)
{
	return sw_image_pixels(img) + ((size_t)y * (size_t)sw_image_width(img) + (size_t)x) * 4;
}

#define ck_px(img, x, y, r, g, b, a)                                                                                   \
	do {                                                                                                           \
		const unsigned char *p_ = px(img, x, y);                                                               \
		ck_assert_msg(p_[0] == (r) && p_[1] == (g) && p_[2] == (b) && p_[3] == (a),                            \
		              "pixel %d,%d is %u,%u,%u,%u, expected %u,%u,%u,%u", x, y, p_[0], p_[1], p_[2], p_[3],    \
		              (unsigned)(r), (unsigned)(g), (unsigned)(b), (unsigned)(a));                             \
	} while (0)

static sw_image *decode_ok(struct mem m)
{
	sw_image *img = NULL;
	sw_error *err = NULL;
	int rc = sw_image_decode(m.d, m.n, &img, &err);
	ck_assert_msg(rc == SW_OK, "decode failed: %s", err ? sw_error_message(err) : "?");
	free(m.d);
	return img;
}

/* ---- decode ---- */

START_TEST(test_roundtrip_rgba)
{
	sw_image *img = NULL;
	ck_assert_int_eq(sw_image_new(7, 5, NULL, &img, NULL), SW_OK);
	sw_image_fill(img, 2, 1, 3, 2, 0x123456);
	unsigned char *png = NULL;
	size_t len = 0;
	ck_assert_int_eq(sw_image_encode(img, &png, &len, NULL), SW_OK);
	sw_image *back = NULL;
	ck_assert_int_eq(sw_image_decode(png, len, &back, NULL), SW_OK);
	ck_assert_int_eq(sw_image_width(back), 7);
	ck_assert_int_eq(sw_image_height(back), 5);
	ck_assert_mem_eq(sw_image_pixels(back), sw_image_pixels(img), 7 * 5 * 4);
	ck_px(back, 3, 2, 0x12, 0x34, 0x56, 255);
	ck_px(back, 0, 0, 0, 0, 0, 0);
	sw_free(png);
	sw_image_free(img);
	sw_image_free(back);
}
END_TEST

START_TEST(test_palette_with_transparency)
{
	png_color pal[3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
	png_byte trns[3] = {255, 128, 0};
	/* 2-bit palette indexes: row 0 = 0,1,2,1 ; row 1 = 2,2,0,0 */
	unsigned char r0[1] = {0x19}, r1[1] = {0xA0};
	unsigned char *rows[2] = {r0, r1};
	sw_image *img = decode_ok(make_png(4, 2, 2, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE, rows, pal, 3, trns, 3));
	ck_px(img, 0, 0, 255, 0, 0, 255);
	ck_px(img, 1, 0, 0, 255, 0, 128);
	ck_px(img, 2, 0, 0, 0, 255, 0);
	ck_px(img, 0, 1, 0, 0, 255, 0);
	ck_px(img, 3, 1, 255, 0, 0, 255);
	sw_image_free(img);
}
END_TEST

START_TEST(test_gray_depths)
{
	/* 1-bit gray: 1,0,1,1,0,0,0,1 */
	unsigned char g1[1] = {0xB1};
	unsigned char *rows1[1] = {g1};
	sw_image *img = decode_ok(make_png(8, 1, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, rows1, NULL, 0, NULL, 0));
	ck_px(img, 0, 0, 255, 255, 255, 255);
	ck_px(img, 1, 0, 0, 0, 0, 255);
	ck_px(img, 7, 0, 255, 255, 255, 255);
	sw_image_free(img);
	/* 16-bit gray: 0xFFFF, 0x0000, 0x8080 (big-endian samples) */
	unsigned char g16[6] = {0xFF, 0xFF, 0x00, 0x00, 0x80, 0x80};
	unsigned char *rows16[1] = {g16};
	img = decode_ok(make_png(3, 1, 16, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, rows16, NULL, 0, NULL, 0));
	ck_px(img, 0, 0, 255, 255, 255, 255);
	ck_px(img, 1, 0, 0, 0, 0, 255);
	ck_px(img, 2, 0, 128, 128, 128, 255);
	sw_image_free(img);
	/* gray + alpha 8-bit */
	unsigned char ga[4] = {10, 20, 200, 255};
	unsigned char *rowsga[1] = {ga};
	img = decode_ok(make_png(2, 1, 8, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_INTERLACE_NONE, rowsga, NULL, 0, NULL, 0));
	ck_px(img, 0, 0, 10, 10, 10, 20);
	ck_px(img, 1, 0, 200, 200, 200, 255);
	sw_image_free(img);
}
END_TEST

START_TEST(test_rgb16_and_interlaced)
{
	unsigned char c16[12] = {0xFF, 0xFF, 0x00, 0x00, 0x80, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00};
	unsigned char *rows[1] = {c16};
	sw_image *img = decode_ok(make_png(2, 1, 16, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, rows, NULL, 0, NULL, 0));
	ck_px(img, 0, 0, 255, 0, 128, 255);
	ck_px(img, 1, 0, 0, 255, 0, 255);
	sw_image_free(img);
	/* Adam7 interlaced RGB, 9x9 with a distinct value per pixel */
	unsigned char data[9][27];
	unsigned char *irows[9];
	for (int y = 0; y < 9; y++) {
		for (int x = 0; x < 9; x++) {
			data[y][x * 3] = (unsigned char)(x * 20);
			data[y][x * 3 + 1] = (unsigned char)(y * 20);
			data[y][x * 3 + 2] = 7;
		}
		irows[y] = data[y];
	}
	img = decode_ok(make_png(9, 9, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_ADAM7, irows, NULL, 0, NULL, 0));
	for (int y = 0; y < 9; y++)
		for (int x = 0; x < 9; x++)
			ck_px(img, x, y, x * 20, y * 20, 7, 255);
	sw_image_free(img);
}
END_TEST

static struct mem valid_png(int w, int h)
{
	sw_image *img = NULL;
	ck_assert_int_eq(sw_image_new(w, h, NULL, &img, NULL), SW_OK);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			sw_image_fill(img, x, y, 1, 1, (unsigned)(x * 7919 + y * 104729) & 0xffffff);
	unsigned char *png = NULL;
	size_t len = 0;
	ck_assert_int_eq(sw_image_encode(img, &png, &len, NULL), SW_OK);
	sw_image_free(img);
	struct mem m = {malloc(len), len, len};
	memcpy(m.d, png, len);
	sw_free(png);
	return m;
}

static void expect_decode_error(const void *d, size_t n, int code, const char *needle)
{
	sw_image *img = NULL;
	sw_error *err = NULL;
	int rc = sw_image_decode(d, n, &img, &err);
	ck_assert_int_eq(rc, code);
	ck_assert_ptr_null(img);
	ck_assert_ptr_nonnull(err);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	ck_assert_msg(strstr(sw_error_message(err), needle), "message \"%s\" lacks \"%s\"", sw_error_message(err),
	              needle);
	sw_error_free(err);
}

START_TEST(test_truncated_and_corrupt)
{
	struct mem m = valid_png(64, 64);
	/* cut at every 97th byte: each prefix is refused cleanly */
	for (size_t cut = 0; cut < m.n - 12; cut += 97)
		expect_decode_error(m.d, cut, SW_EINVAL, cut < 8 ? "not a PNG" : "");
	expect_decode_error(m.d, m.n / 2, SW_EINVAL, "truncated");
	/* a flipped byte in the image data: CRC mismatch */
	unsigned char *c = malloc(m.n);
	memcpy(c, m.d, m.n);
	c[m.n / 2] ^= 0x5a;
	expect_decode_error(c, m.n, SW_EINVAL, "corrupt");
	/* garbage after a real signature */
	memset(c + 8, 0xEE, m.n - 8);
	expect_decode_error(c, m.n, SW_EINVAL, "corrupt");
	free(c);
	free(m.d);
	expect_decode_error("GIF89a not a png at all", 23, SW_EINVAL, "not a PNG");
	expect_decode_error("", 0, SW_EINVAL, "not a PNG");
}
END_TEST

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* A PNG of only a signature, an IHDR announcing @w x @h, and IEND: no pixel data at all. */
static size_t header_only_png(unsigned char *out, uint32_t w, uint32_t h)
{
	static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
	memcpy(out, sig, 8);
	unsigned char *c = out + 8;
	put32(c, 13);
	memcpy(c + 4, "IHDR", 4);
	put32(c + 8, w);
	put32(c + 12, h);
	c[16] = 8; /* depth */
	c[17] = 6; /* RGBA */
	c[18] = c[19] = c[20] = 0;
	put32(c + 21, (uint32_t)crc32(0, c + 4, 17));
	unsigned char *e = c + 25;
	put32(e, 0);
	memcpy(e + 4, "IEND", 4);
	put32(e + 8, (uint32_t)crc32(0, e + 4, 4));
	return 8 + 25 + 12;
}

START_TEST(test_huge_header_refused_before_allocation)
{
	unsigned char buf[64];
	size_t n = header_only_png(buf, 20000, 20000);
	/* SW_ELIMIT (not a "truncated" parse error): the size was refused right after IHDR, before any pixel row */
	expect_decode_error(buf, n, SW_EINVAL, "20000 x 20000");
	n = header_only_png(buf, 16000, 16000); /* each side fine, too many pixels */
	expect_decode_error(buf, n, SW_EINVAL, "16000 x 16000");
	n = header_only_png(buf, 100, 100); /* an honest size without data: a clear parse error */
	expect_decode_error(buf, n, SW_EINVAL, "corrupt");
	/* found by tests/fuzz/fuzz-png.c: a chunk announcing 1.6 GB in a tiny file is refused before any allocation */
	n = header_only_png(buf, 1, 1) - 12;
	put32(buf + n, 0x65000000u);
	memcpy(buf + n + 4, "zTXt", 4);
	memcpy(buf + n + 8, "k\0\0x", 4);
	n += 12;
	expect_decode_error(buf, n, SW_EINVAL, "announces 1694498816 bytes");
}
END_TEST

START_TEST(test_crop_scale)
{
	sw_image *img = NULL, *c = NULL, *s = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_image_new(10, 10, NULL, &img, NULL), SW_OK);
	sw_image_fill(img, 0, 0, 10, 10, 0xffffff);
	sw_image_fill(img, 4, 4, 2, 2, 0x000000);
	ck_assert_int_eq(sw_image_crop(img, 4, 4, 2, 2, &c, NULL), SW_OK);
	ck_px(c, 0, 0, 0, 0, 0, 255);
	ck_px(c, 1, 1, 0, 0, 0, 255);
	ck_assert_int_eq(sw_image_crop(img, 9, 9, 2, 2, &s, &err), SW_EINVAL);
	ck_assert_ptr_null(s);
	sw_error_free(err);
	ck_assert_int_eq(sw_image_scale(img, 5, 5, &s, NULL), SW_OK);
	ck_px(s, 2, 2, 0, 0, 0, 255);
	ck_px(s, 0, 0, 255, 255, 255, 255);
	sw_image_free(s);
	ck_assert_int_eq(sw_image_scale(c, 8, 8, &s, NULL), SW_OK);
	ck_assert_int_eq(sw_image_width(s), 8);
	ck_px(s, 4, 4, 0, 0, 0, 255);
	sw_image_free(s);
	sw_image_free(c);
	sw_image_free(img);
}
END_TEST

/* ---- diff ---- */

static sw_image *white(int w, int h)
{
	sw_image *img = NULL;
	ck_assert_int_eq(sw_image_new(w, h, NULL, &img, NULL), SW_OK);
	sw_image_fill(img, 0, 0, w, h, 0xffffff);
	return img;
}

static json_t *diff(const sw_image *a, const sw_image *b, const char *opts, sw_image **pic)
{
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_visual_diff(a, b, opts, &out, pic, &err), SW_OK);
	json_t *j = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(j);
	sw_free(out);
	return j;
}

static void ck_box(json_t *b, int x, int y, int w, int h)
{
	ck_assert_int_eq(json_integer_value(json_object_get(b, "x")), x);
	ck_assert_int_eq(json_integer_value(json_object_get(b, "y")), y);
	ck_assert_int_eq(json_integer_value(json_object_get(b, "width")), w);
	ck_assert_int_eq(json_integer_value(json_object_get(b, "height")), h);
}

START_TEST(test_diff_regions_exact)
{
	sw_image *a = white(200, 300), *b = white(200, 300), *pic = NULL;
	sw_image_fill(b, 10, 20, 30, 30, 0xff0000);   /* 900 px */
	sw_image_fill(b, 150, 200, 30, 60, 0x0000ff); /* 1800 px */
	sw_image_fill(b, 100, 100, 1, 1, 0xfafafa);   /* below the pixel threshold: not a change */
	json_t *r = diff(a, b, NULL, &pic);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "changedPixels")), 2700);
	ck_assert(fabs(json_number_value(json_object_get(r, "changedRatio")) - 2700.0 / 60000) < 1e-9);
	ck_assert(json_is_false(json_object_get(r, "pass")));
	json_t *regs = json_object_get(r, "regions");
	ck_assert_int_eq(json_array_size(regs), 2);
	ck_box(json_array_get(regs, 0), 150, 200, 30, 60); /* largest first */
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(regs, 0), "pixels")), 1800);
	ck_box(json_array_get(regs, 1), 10, 20, 30, 30);
	ck_box(json_object_get(r, "changedBox"), 10, 20, 170, 240);
	/* the picture: red over changes, dimmed gray elsewhere, frames around regions */
	ck_assert_ptr_nonnull(pic);
	const unsigned char *p = px(pic, 20, 30);
	ck_assert_int_eq(p[0], 255);
	ck_assert_int_lt(p[1], 80);
	p = px(pic, 100, 150);
	ck_assert(p[0] == p[1] && p[1] == p[2] && p[0] < 255 && p[0] > 96);
	p = px(pic, 10 - 4 - 1, 30); /* left of the first region, past the padding (200 / 80 < 4): the frame */
	ck_assert(p[0] == 255 && p[1] == 0 && p[2] == 255);
	p = px(pic, 9, 30); /* the padding between frame and change stays gray */
	ck_assert(p[0] == p[1] && p[1] == p[2]);
	sw_image_free(pic);
	json_decref(r);
	/* a generous threshold passes; ignored areas leave the count */
	r = diff(a, b, "{\"threshold\":0.05}", NULL);
	ck_assert(json_is_true(json_object_get(r, "pass")));
	json_decref(r);
	r = diff(a, b, "{\"ignore\":[{\"x\":140,\"y\":190,\"width\":60,\"height\":100}]}", NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "changedPixels")), 900);
	ck_assert_int_eq(json_array_size(json_object_get(r, "regions")), 1);
	json_decref(r);
	sw_image_free(a);
	sw_image_free(b);
}
END_TEST

START_TEST(test_diff_identical_and_mismatch)
{
	sw_image *a = white(50, 40), *b = white(50, 40), *c = white(40, 50), *pic = NULL;
	json_t *r = diff(a, b, NULL, &pic);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "changedPixels")), 0);
	ck_assert(json_is_true(json_object_get(r, "pass")));
	ck_assert(json_is_null(json_object_get(r, "changedBox")));
	ck_assert_int_eq(json_array_size(json_object_get(r, "regions")), 0);
	sw_image_free(pic);
	json_decref(r);
	pic = (sw_image *)1;
	r = diff(a, c, NULL, &pic);
	ck_assert(json_is_true(json_object_get(r, "sizeMismatch")));
	ck_assert(json_is_false(json_object_get(r, "pass")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "baseline"), "width")), 50);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "current"), "width")), 40);
	ck_assert_ptr_null(pic);
	json_decref(r);
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_visual_diff(a, b, "{\"threshold\":2}", &out, NULL, &err), SW_EINVAL);
	ck_assert_ptr_null(out);
	sw_error_free(err);
	sw_image_free(a);
	sw_image_free(b);
	sw_image_free(c);
}
END_TEST

/* ---- template matching ---- */

static sw_image *noise_screen(int w, int h, unsigned seed)
{
	sw_image *img = NULL;
	ck_assert_int_eq(sw_image_new(w, h, NULL, &img, NULL), SW_OK);
	/* smooth-ish texture: blocks of random colour so coarse levels keep structure */
	srand(seed);
	for (int y = 0; y < h; y += 6)
		for (int x = 0; x < w; x += 6)
			sw_image_fill(img, x, y, 6, 6, (unsigned)rand() & 0xffffff);
	return img;
}

static json_t *find(const sw_image *s, const sw_image *t, const char *opts)
{
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_visual_find_image(s, t, opts, &out, &err), SW_OK);
	json_t *j = json_loads(out, 0, NULL);
	sw_free(out);
	return j;
}

START_TEST(test_find_image)
{
	sw_image *screen = noise_screen(1080, 2400, 7), *t = NULL;
	ck_assert_int_eq(sw_image_crop(screen, 333, 1717, 200, 80, &t, NULL), SW_OK);
	json_t *r = find(screen, t, NULL);
	ck_assert(json_is_true(json_object_get(r, "found")));
	ck_box(json_object_get(r, "bbox"), 333, 1717, 200, 80);
	ck_assert_msg(json_number_value(json_object_get(r, "score")) > 0.99, "%s", json_dumps(r, 0));
	ck_assert_int_gt(json_integer_value(json_object_get(r, "levels")), 1); /* a pyramid, not brute force */
	json_decref(r);
	sw_image_free(t);
	/* a small template (one level) at an odd position */
	ck_assert_int_eq(sw_image_crop(screen, 1001, 7, 12, 12, &t, NULL), SW_OK);
	r = find(screen, t, NULL);
	ck_box(json_object_get(r, "bbox"), 1001, 7, 12, 12);
	json_decref(r);
	sw_image_free(t);
	/* something that is not on the screen */
	sw_image *other = noise_screen(200, 80, 99);
	r = find(screen, other, NULL);
	ck_assert(json_is_false(json_object_get(r, "found")));
	ck_assert(json_number_value(json_object_get(r, "score")) < 0.85);
	json_decref(r);
	/* larger than the screen: a clear error */
	char *out = NULL;
	sw_error *err = NULL;
	ck_assert_int_eq(sw_visual_find_image(other, screen, NULL, &out, &err), SW_EINVAL);
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	ck_assert(strstr(sw_error_message(err), "larger than the screen"));
	sw_error_free(err);
	sw_image_free(other);
	sw_image_free(screen);
}
END_TEST

START_TEST(test_find_image_flat_template)
{
	sw_image *screen = white(300, 300), *t = NULL;
	sw_image_fill(screen, 100, 120, 40, 20, 0x3366cc);
	sw_image_fill(screen, 108, 126, 24, 8, 0xffffff); /* a "label" inside the button */
	ck_assert_int_eq(sw_image_crop(screen, 100, 120, 40, 20, &t, NULL), SW_OK);
	json_t *r = find(screen, t, NULL);
	ck_box(json_object_get(r, "bbox"), 100, 120, 40, 20);
	ck_assert(json_is_true(json_object_get(r, "found")));
	json_decref(r);
	sw_image_free(t);
	sw_image_free(screen);
}
END_TEST

/* ---- paths ---- */

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/check-visual-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	return strdup(tmpl);
}

#define expect_refused(rc_, err_, code_)                                                                               \
	do {                                                                                                           \
		int r_ = (rc_);                                                                                        \
		ck_assert_int_lt(r_, 0);                                                                               \
		ck_assert_ptr_nonnull(err_);                                                                           \
		ck_assert_str_eq(sw_error_failure_code(err_), (code_));                                                \
		sw_error_free(err_);                                                                                   \
	} while (0)

START_TEST(test_baseline_names_and_symlinks)
{
	char *root = tmpdir(), *outside = tmpdir(), *p = NULL, cmd[600];
	sw_error *err = NULL;
	static const char *const bad[] = {
	    "../x", "..",  ".hidden", "a/b",
	    "",     "x y", "a\\b",    "0123456789012345678901234567890123456789012345678901234567890123456789"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = NULL;
		expect_refused(sw_visual_baseline_path(root, bad[i], 1, &p, &err), err, "VISUAL_PATH_REFUSED");
		ck_assert_ptr_null(p);
	}
	ck_assert_int_eq(sw_visual_baseline_path(root, "home-screen_v2.1", 1, &p, NULL), SW_OK);
	char *real = realpath(root, NULL);
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/.swipium/baselines/home-screen_v2.1.png", real);
	ck_assert_str_eq(p, want);
	free(p);
	p = NULL;
	/* a baseline that is a symlink leading out */
	snprintf(cmd, sizeof(cmd), "ln -s %s/evil.png %s/.swipium/baselines/out.png", outside, root);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "touch %s/evil.png", outside);
	ck_assert_int_eq(system(cmd), 0);
	err = NULL;
	expect_refused(sw_visual_baseline_path(root, "out", 0, &p, &err), err, "VISUAL_PATH_REFUSED");
	/* the baselines folder itself symlinked out */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/.swipium/baselines && ln -s %s %s/.swipium/baselines", root, outside,
	         root);
	ck_assert_int_eq(system(cmd), 0);
	err = NULL;
	expect_refused(sw_visual_baseline_path(root, "fine", 1, &p, &err), err, "VISUAL_PATH_REFUSED");
	/* templates */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/img && touch %s/img/t.png && ln -s %s/evil.png %s/img/link.png", root,
	         root, outside, root);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(sw_visual_resolve_path(root, "img/t.png", &p, NULL), SW_OK);
	snprintf(want, sizeof(want), "%s/img/t.png", real);
	ck_assert_str_eq(p, want);
	free(p);
	p = NULL;
	err = NULL;
	expect_refused(sw_visual_resolve_path(root, "img/link.png", &p, &err), err, "VISUAL_PATH_REFUSED");
	err = NULL;
	expect_refused(sw_visual_resolve_path(root, "../../etc/passwd", &p, &err), err, "VISUAL_PATH_REFUSED");
	err = NULL;
	expect_refused(sw_visual_resolve_path(root, "/etc/passwd", &p, &err), err, "VISUAL_PATH_REFUSED");
	err = NULL;
	expect_refused(sw_visual_resolve_path(root, "img/missing.png", &p, &err), err, "INVALID_ARGUMENT");
	free(real);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", root, outside);
	ck_assert_int_eq(system(cmd), 0);
	free(root);
	free(outside);
}
END_TEST

/* ---- providers ---- */

static json_t *provider(const char *root, const char *kind, sw_error **err)
{
	char *out = NULL;
	int rc = sw_visual_provider(root, kind, &out, err);
	if (rc != SW_OK)
		return NULL;
	json_t *j = json_loads(out, 0, NULL);
	sw_free(out);
	return j;
}

START_TEST(test_provider_config)
{
	char *root = tmpdir();
	unsetenv("SWIPIUM_OCR_CMD");
	unsetenv("SWIPIUM_VISUAL_MASK_CMD");
	json_t *p = provider(root, "ocr", NULL);
	ck_assert(json_is_false(json_object_get(p, "configured")));
	json_decref(p);
	setenv("SWIPIUM_OCR_CMD", "python3 'my dir/ocr.py' \"--lang=eng x\" {image}", 1);
	p = provider(root, "ocr", NULL);
	json_t *argv = json_object_get(p, "argv");
	ck_assert_int_eq(json_array_size(argv), 4);
	ck_assert_str_eq(json_string_value(json_array_get(argv, 1)), "my dir/ocr.py");
	ck_assert_str_eq(json_string_value(json_array_get(argv, 2)), "--lang=eng x");
	ck_assert_str_eq(json_string_value(json_object_get(p, "origin")), "env:SWIPIUM_OCR_CMD");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "timeoutMs")), 30000);
	json_decref(p);
	setenv("SWIPIUM_OCR_CMD", "[\"/usr/bin/ocr\", \"$(rm -rf ~)\"]", 1);
	p = provider(root, "ocr", NULL);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "argv"), 1)), "$(rm -rf ~)");
	json_decref(p);
	sw_error *err = NULL;
	setenv("SWIPIUM_OCR_CMD", "/usr/bin/git log", 1);
	ck_assert_ptr_null(provider(root, "ocr", &err));
	ck_assert_str_eq(sw_error_failure_code(err), "GIT_SCOPE_FORBIDDEN");
	sw_error_free(err);
	err = NULL;
	setenv("SWIPIUM_OCR_CMD", "ocr 'unterminated", 1);
	ck_assert_ptr_null(provider(root, "ocr", &err));
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	/* config.json wins over the environment */
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/.swipium", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.swipium/config.json", root);
	FILE *f = fopen(path, "w");
	fputs("{\"ocrCommand\":{\"command\":[\"ocr-tool\",\"{image}\"],\"io\":\"json\",\"timeoutMs\":1234},"
	      "\"visualMaskCommand\":[\"masker\"]}",
	      f);
	fclose(f);
	p = provider(root, "ocr", NULL);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "argv"), 0)), "ocr-tool");
	ck_assert_str_eq(json_string_value(json_object_get(p, "io")), "json");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "timeoutMs")), 1234);
	ck_assert(strstr(json_string_value(json_object_get(p, "origin")), "unreviewed"));
	json_decref(p);
	p = provider(root, "mask", NULL);
	ck_assert(json_is_true(json_object_get(p, "configured")));
	json_decref(p);
	f = fopen(path, "w");
	fputs("{\"ocrCommand\":42}", f);
	fclose(f);
	err = NULL;
	ck_assert_ptr_null(provider(root, "ocr", &err));
	ck_assert_str_eq(sw_error_failure_code(err), "INVALID_ARGUMENT");
	sw_error_free(err);
	unsetenv("SWIPIUM_OCR_CMD");
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
	free(root);
}
END_TEST

/* Writes an executable provider script into @root and points SWIPIUM_OCR_CMD at it. */
static void script(const char *root, const char *name, const char *body, const char *env)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
	if (env)
		setenv(env, path, 1);
}

static int ocr(const char *root, const char *opts, sw_redactor *red, json_t **res, sw_error **err)
{
	struct mem m = valid_png(40, 30);
	char *out = NULL;
	int rc = sw_visual_ocr(root, m.d, m.n, opts, red, &out, err);
	free(m.d);
	*res = out ? json_loads(out, 0, NULL) : NULL;
	sw_free(out);
	return rc;
}

static json_t *ocr_fail(const char *root, const char *opts, sw_redactor *red, const char *code)
{
	json_t *res = NULL;
	sw_error *err = NULL;
	ck_assert_int_lt(ocr(root, opts, red, &res, &err), 0);
	ck_assert_ptr_null(res);
	ck_assert_str_eq(sw_error_failure_code(err), code);
	json_t *d = json_loads(sw_error_details_json(err) ? sw_error_details_json(err) : "{}", 0, NULL);
	sw_error_free(err);
	return d;
}

START_TEST(test_ocr_providers)
{
	char *root = tmpdir();
	unsetenv("SWIPIUM_OCR_CMD");
	unsetenv("SWIPIUM_VISUAL_MASK_CMD");
	json_t *d = ocr_fail(root, "{\"query\":\"x\"}", NULL, "OCR_NOT_CONFIGURED");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(d, "exampleProvider"), "script")),
	                 ".swipium/ocr_tesseract.py");
	json_decref(d);

	/* a good provider: reports its image path (to check the temp folder goes away) and its cwd */
	script(root, "good.sh",
	       "echo \"[{\\\"text\\\":\\\"Sign  IN "
	       "now\\\",\\\"confidence\\\":0.93,\\\"bbox\\\":{\\\"x\\\":60,\\\"y\\\":1040,"
	       "\\\"width\\\":960,\\\"height\\\":140}},{\\\"text\\\":\\\"$1|$(pwd)\\\",\\\"confidence\\\":0.5,"
	       "\\\"bbox\\\":"
	       "{\\\"x\\\":0,\\\"y\\\":0,\\\"width\\\":1,\\\"height\\\":1}}]\"",
	       "SWIPIUM_OCR_CMD");
	json_t *r = NULL;
	ck_assert_int_eq(ocr(root, "{\"query\":\"sign in\"}", NULL, &r, NULL), SW_OK);
	ck_assert(json_is_true(json_object_get(r, "found")));
	ck_box(json_object_get(r, "bbox"), 60, 1040, 960, 140);
	const char *info = json_string_value(json_object_get(json_array_get(json_object_get(r, "regions"), 1), "text"));
	char img[PATH_MAX] = "", cwd[PATH_MAX] = "";
	ck_assert_int_eq(sscanf(info, "%[^|]|%s", img, cwd), 2);
	ck_assert(strstr(img, "/swipium-visual-") && strstr(img, "/screen.png"));
	ck_assert_int_ne(access(img, F_OK), 0); /* deleted after the call */
	char *real = realpath(root, NULL);
	ck_assert_str_eq(cwd, real);
	free(real);
	json_decref(r);
	/* below minConfidence: not found, but the near miss is shown */
	ck_assert_int_eq(ocr(root, "{\"query\":\"sign in\",\"minConfidence\":0.95}", NULL, &r, NULL), SW_OK);
	ck_assert(json_is_false(json_object_get(r, "found")));
	ck_assert_ptr_nonnull(json_object_get(r, "bestBelowMinConfidence"));
	json_decref(r);

	/* "item 1" is the line "Item 1", not the more confident "Item 12"; whole words beat substrings */
	script(
	    root, "tiers.sh",
	    "echo '[{\"text\":\"Item 12\",\"confidence\":0.99,\"bbox\":{\"x\":1,\"y\":1,\"width\":1,\"height\":1}},"
	    "{\"text\":\"Item 1\",\"confidence\":0.9,\"bbox\":{\"x\":2,\"y\":2,\"width\":2,\"height\":2}},"
	    "{\"text\":\"see Item 1 here\",\"confidence\":0.95,\"bbox\":{\"x\":3,\"y\":3,\"width\":3,\"height\":3}}]'",
	    "SWIPIUM_OCR_CMD");
	ck_assert_int_eq(ocr(root, "{\"query\":\"ITEM  1\"}", NULL, &r, NULL), SW_OK);
	ck_box(json_object_get(r, "bbox"), 2, 2, 2, 2);
	ck_assert_int_eq(json_array_size(json_object_get(r, "matches")), 3);
	json_decref(r);
	ck_assert_int_eq(ocr(root, "{\"query\":\"item 1 h\"}", NULL, &r, NULL), SW_OK);
	ck_box(json_object_get(r, "bbox"), 3, 3, 3, 3);
	json_decref(r);

	/* garbage on stdout, exit 0 */
	script(root, "garbage.sh", "echo 'Tesseract Open Source OCR Engine'; echo '<<<binary>>>'", "SWIPIUM_OCR_CMD");
	d = ocr_fail(root, "{\"query\":\"x\"}", NULL, "OCR_PROVIDER_FAILED");
	ck_assert_int_eq(json_integer_value(json_object_get(d, "exitCode")), 0);
	ck_assert(json_is_false(json_object_get(d, "timedOut")));
	ck_assert(strstr(json_string_value(json_object_get(d, "reason")), "not the provider JSON"));
	json_decref(d);
	/* wrong shape: confidence in percent */
	script(root, "percent.sh",
	       "echo '[{\"text\":\"a\",\"confidence\":93,\"bbox\":{\"x\":1,\"y\":1,\"width\":1,\"height\":1}}]'",
	       "SWIPIUM_OCR_CMD");
	d = ocr_fail(root, "{\"query\":\"x\"}", NULL, "OCR_PROVIDER_FAILED");
	ck_assert(strstr(json_string_value(json_object_get(d, "reason")), "region 0"));
	json_decref(d);
	/* non-zero exit with a secret in stderr: redacted */
	sw_redactor *red = NULL;
	ck_assert_int_eq(sw_redactor_new(&red, NULL), SW_OK);
	ck_assert_int_eq(sw_redactor_add_secret(red, "hunter2-secret", NULL), SW_OK);
	script(root, "fail.sh", "echo 'model missing; token hunter2-secret rejected' >&2; exit 3", "SWIPIUM_OCR_CMD");
	d = ocr_fail(root, "{\"query\":\"x\"}", red, "OCR_PROVIDER_FAILED");
	ck_assert_int_eq(json_integer_value(json_object_get(d, "exitCode")), 3);
	const char *se = json_string_value(json_object_get(d, "stderr"));
	ck_assert(strstr(se, "model missing"));
	ck_assert(!strstr(se, "hunter2-secret"));
	json_decref(d);
	/* a provider that hangs (and leaves a child holding stdout): killed at the timeout */
	script(root, "hang.sh", "(sleep 60; echo late) & sleep 60", "SWIPIUM_OCR_CMD");
	d = ocr_fail(root, "{\"query\":\"x\",\"timeoutMs\":300}", NULL, "OCR_PROVIDER_FAILED");
	ck_assert(json_is_true(json_object_get(d, "timedOut")));
	ck_assert(json_is_null(json_object_get(d, "exitCode")));
	json_decref(d);
	/* a provider that does not exist */
	setenv("SWIPIUM_OCR_CMD", "/nonexistent/ocr-tool {image}", 1);
	d = ocr_fail(root, "{\"query\":\"x\"}", NULL, "OCR_PROVIDER_FAILED");
	ck_assert(strstr(json_string_value(json_object_get(d, "reason")), "cannot run"));
	json_decref(d);

	/* mask first: the OCR provider reads the masked copy; io json gets the v1 line on stdin */
	script(root, "mask.sh", "echo '{\"regions\":[{\"bbox\":{\"x\":0,\"y\":0,\"width\":10,\"height\":10}}]}'",
	       "SWIPIUM_VISUAL_MASK_CMD");
	script(root, "json.sh",
	       "read line; case \"$line\" in *swipium.visual.provider.v1*masked.png*) t=ok;; *) t=bad;; esac\n"
	       "echo \"{\\\"text\\\":\\\"stdin-$t\\\",\\\"confidence\\\":1,\\\"bbox\\\":{\\\"x\\\":0,\\\"y\\\":0,"
	       "\\\"width\\\":5,\\\"height\\\":5}}\"",
	       NULL);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/.swipium", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.swipium/config.json", root);
	FILE *f = fopen(path, "w");
	fprintf(f, "{\"ocrCommand\":{\"command\":[\"%s/json.sh\"],\"io\":\"json\"}}", root);
	fclose(f);
	sw_error *e2 = NULL;
	int rc2 = ocr(root, "{\"query\":\"STDIN-OK\"}", NULL, &r, &e2);
	ck_assert_msg(rc2 == SW_OK, "%s %s", e2 ? sw_error_message(e2) : "", e2 ? sw_error_details_json(e2) : "");
	ck_assert(json_is_true(json_object_get(r, "found")));
	ck_assert_int_eq(json_integer_value(json_object_get(r, "masked")), 1);
	json_decref(r);
	unsetenv("SWIPIUM_OCR_CMD");
	unsetenv("SWIPIUM_VISUAL_MASK_CMD");
	sw_redactor_free(red);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
	free(root);
}
END_TEST

static Suite *visual_suite(void)
{
	Suite *s = suite_create("visual");
	TCase *tc = tcase_create("decode");
	tcase_add_test(tc, test_roundtrip_rgba);
	tcase_add_test(tc, test_palette_with_transparency);
	tcase_add_test(tc, test_gray_depths);
	tcase_add_test(tc, test_rgb16_and_interlaced);
	tcase_add_test(tc, test_truncated_and_corrupt);
	tcase_add_test(tc, test_huge_header_refused_before_allocation);
	tcase_add_test(tc, test_crop_scale);
	suite_add_tcase(s, tc);
	tc = tcase_create("diff");
	tcase_add_test(tc, test_diff_regions_exact);
	tcase_add_test(tc, test_diff_identical_and_mismatch);
	suite_add_tcase(s, tc);
	tc = tcase_create("match");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_find_image);
	tcase_add_test(tc, test_find_image_flat_template);
	suite_add_tcase(s, tc);
	tc = tcase_create("paths");
	tcase_add_test(tc, test_baseline_names_and_symlinks);
	suite_add_tcase(s, tc);
	tc = tcase_create("providers");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_provider_config);
	tcase_add_test(tc, test_ocr_providers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(visual_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
