/* image.c: PNG decode and encode through libpng (every colour type to RGBA8), crop, scale, fill. */
#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "visual-internal.h"

sw_image *sw__image_alloc(int w, int h)
{
	if (w <= 0 || h <= 0 || w > SW_IMAGE_MAX_SIDE || h > SW_IMAGE_MAX_SIDE)
		return NULL;
	sw_image *img = calloc(1, sizeof(*img));
	if (!img)
		return NULL;
	img->px = malloc((size_t)w * (size_t)h * 4);
	if (!img->px) {
		free(img);
		return NULL;
	}
	img->w = w;
	img->h = h;
	return img;
}

SW_API void sw_image_free(sw_image *img)
{
	if (!img)
		return;
	free(img->px);
	free(img);
}

SW_API int sw_image_width(const sw_image *img)
{
	return img ? img->w : 0;
}

SW_API int sw_image_height(const sw_image *img)
{
	return img ? img->h : 0;
}

SW_API const unsigned char *sw_image_pixels(const sw_image *img)
{
	return img ? img->px : NULL;
}

SW_API int sw_image_new(int width, int height, const unsigned char *rgba, sw_image **out, sw_error **err)
{
	if (!out || width <= 0 || height <= 0 || width > SW_IMAGE_MAX_SIDE || height > SW_IMAGE_MAX_SIDE ||
	    (size_t)width * (size_t)height > SW_IMAGE_MAX_PIXELS)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "An image must be 1 to %d pixels wide and high (got %d x %d)", SW_IMAGE_MAX_SIDE,
		                     width, height);
	sw_image *img = sw__image_alloc(width, height);
	if (!img)
		return sw__error_nomem(err);
	if (rgba)
		memcpy(img->px, rgba, (size_t)width * (size_t)height * 4);
	else
		memset(img->px, 0, (size_t)width * (size_t)height * 4);
	*out = img;
	return SW_OK;
}

uint8_t *sw__image_gray(const sw_image *img)
{
	size_t n = (size_t)img->w * (size_t)img->h;
	uint8_t *g = malloc(n);
	if (!g)
		return NULL;
	const unsigned char *p = img->px;
	for (size_t i = 0; i < n; i++, p += 4)
		g[i] = (uint8_t)((p[0] * 77u + p[1] * 150u + p[2] * 29u) >> 8);
	return g;
}

/* ---- decode ------------------------------------------------------------- */

struct reader {
	const unsigned char *data;
	size_t len, pos;
	jmp_buf jmp;
	char msg[200];
	int code; /* SW_EPARSE or SW_ELIMIT */
};

static void on_png_error(png_structp png, png_const_charp msg)
{
	struct reader *r = png_get_error_ptr(png);
	if (!r->msg[0])
		snprintf(r->msg, sizeof(r->msg), "%s", msg ? msg : "unknown libpng error");
	longjmp(r->jmp, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg; /* warnings (bad ancillary chunks) do not stop a decode */
}

static void on_png_read(png_structp png, png_bytep out, size_t n)
{
	struct reader *r = png_get_io_ptr(png);
	if (n > r->len - r->pos) {
		snprintf(r->msg, sizeof(r->msg), "the data ends after %zu bytes (truncated file)", r->len);
		png_error(png, r->msg);
	}
	memcpy(out, r->data + r->pos, n);
	r->pos += n;
}

SW_API int sw_image_decode(const void *data, size_t len, sw_image **out, sw_error **err)
{
	if (!out || (!data && len))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_image_decode: no output given");
	if (len < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass a PNG file (screenshots are PNG)",
		                     "The image is not a PNG (%zu bytes, no PNG signature)", len);
	/* IHDR must come first: refuse an absurd size before libpng allocates anything. */
	const unsigned char *b = data;
	if (len >= 24 && !memcmp(b + 12, "IHDR", 4)) {
		uint32_t hw = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
		uint32_t hh = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
		if (hw > SW_IMAGE_MAX_SIDE || hh > SW_IMAGE_MAX_SIDE || (uint64_t)hw * hh > SW_IMAGE_MAX_PIXELS)
			return sw__error_set(
			    err, SW_EINVAL, "INVALID_ARGUMENT",
			    "Screenshots and templates larger than 16384 pixels a side are not supported",
			    "The PNG is too large: its header announces %u x %u pixels (limit %d a side, %u "
			    "pixels)",
			    (unsigned)hw, (unsigned)hh, SW_IMAGE_MAX_SIDE, SW_IMAGE_MAX_PIXELS);
	}
	/*
	 * libpng allocates a chunk's announced length before reading it (an 89-byte file announcing a
	 * 1.6 GB zTXt chunk got 1.6 GB): refuse any chunk that claims more bytes than the file still holds.
	 */
	for (size_t pos = 8; pos + 8 <= len;) {
		uint32_t clen =
		    (uint32_t)b[pos] << 24 | (uint32_t)b[pos + 1] << 16 | (uint32_t)b[pos + 2] << 8 | b[pos + 3];
		if (clen > 0x7fffffffu || (uint64_t)clen + 12 > len - pos)
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Re-capture or re-export the image",
			                     "The PNG is corrupt or truncated: a chunk at byte %zu announces %u bytes, "
			                     "but the file has only %zu left",
			                     pos, (unsigned)clen, len - pos - 8);
		if (!memcmp(b + pos + 4, "IEND", 4))
			break;
		pos += (size_t)clen + 12;
	}
	struct reader r = {.data = data, .len = len, .pos = 0, .code = SW_EPARSE};
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, on_png_error, on_png_warning);
	if (!png)
		return sw__error_nomem(err);
	png_infop info = png_create_info_struct(png);
	/* Everything setjmp may come back to is reached through @r or @state, never changed afterwards. */
	struct {
		sw_image *img;
		png_bytep *rows;
	} state = {NULL, NULL}, *volatile st = &state;
	if (!info) {
		png_destroy_read_struct(&png, NULL, NULL);
		return sw__error_nomem(err);
	}
	if (setjmp(r.jmp)) {
		png_destroy_read_struct(&png, &info, NULL);
		free(st->rows);
		sw_image_free(st->img);
		if (r.code == SW_ELIMIT)
			return sw__error_set(
			    err, SW_EINVAL, "INVALID_ARGUMENT",
			    "Screenshots and templates larger than 16384 pixels a side are not supported",
			    "The PNG is too large: %s", r.msg);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Re-capture or re-export the image",
		                     "The PNG is corrupt or truncated: %s", r.msg);
	}
	png_set_read_fn(png, &r, on_png_read);
	/* Chunks such as iCCP or zTXt may not inflate to more than 8 MiB (decompression bombs). */
	png_set_chunk_malloc_max(png, 8u * 1024 * 1024);
	png_read_info(png, info);
	png_uint_32 w = 0, h = 0;
	int depth = 0, ctype = 0, interlace = 0;
	png_get_IHDR(png, info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
	if (w > SW_IMAGE_MAX_SIDE || h > SW_IMAGE_MAX_SIDE || (uint64_t)w * h > SW_IMAGE_MAX_PIXELS) {
		r.code = SW_ELIMIT;
		snprintf(r.msg, sizeof(r.msg), "its header announces %u x %u pixels (limit %d a side, %u pixels)",
		         (unsigned)w, (unsigned)h, SW_IMAGE_MAX_SIDE, SW_IMAGE_MAX_PIXELS);
		longjmp(r.jmp, 1);
	}
	/* Normalise every colour type to 8-bit RGBA. */
	if (ctype == PNG_COLOR_TYPE_PALETTE)
		png_set_palette_to_rgb(png);
	if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8)
		png_set_expand_gray_1_2_4_to_8(png);
	if (png_get_valid(png, info, PNG_INFO_tRNS))
		png_set_tRNS_to_alpha(png);
	if (depth == 16)
		png_set_scale_16(png);
	if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA)
		png_set_gray_to_rgb(png);
	if (!(ctype & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
		png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
	png_set_interlace_handling(png);
	png_read_update_info(png, info);
	if (png_get_rowbytes(png, info) != (size_t)w * 4) {
		snprintf(r.msg, sizeof(r.msg), "unexpected row layout after conversion");
		longjmp(r.jmp, 1);
	}
	st->img = sw__image_alloc((int)w, (int)h);
	st->rows = st->img ? malloc(sizeof(png_bytep) * h) : NULL;
	if (!st->img || !st->rows) {
		snprintf(r.msg, sizeof(r.msg), "out of memory for %u x %u pixels", (unsigned)w, (unsigned)h);
		longjmp(r.jmp, 1);
	}
	for (png_uint_32 y = 0; y < h; y++)
		st->rows[y] = st->img->px + (size_t)y * w * 4;
	png_read_image(png, st->rows);
	sw_image *img = st->img;
	free(st->rows);
	png_destroy_read_struct(&png, &info, NULL);
	*out = img;
	return SW_OK;
}

SW_API int sw_image_load(const char *path, sw_image **out, sw_error **err)
{
	char *data = NULL;
	size_t len = 0;
	if (!path || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_image_load: no path given");
	int rc = sw__read_file(path, 64u * 1024 * 1024, &data, &len, err);
	if (rc < 0)
		return rc;
	sw_error *e = NULL;
	rc = sw_image_decode(data, len, out, &e);
	free(data);
	if (rc < 0) {
		sw__error_set(err, rc, sw_error_failure_code(e), sw_error_hint(e), "%s: %s", path, sw_error_message(e));
		sw_error_free(e);
	}
	return rc;
}

/* ---- encode ------------------------------------------------------------- */

struct writer {
	sw_buf buf;
	jmp_buf jmp;
	char msg[200];
};

static void on_png_werror(png_structp png, png_const_charp msg)
{
	struct writer *w = png_get_error_ptr(png);
	snprintf(w->msg, sizeof(w->msg), "%s", msg ? msg : "unknown libpng error");
	longjmp(w->jmp, 1);
}

static void on_png_write(png_structp png, png_bytep data, size_t n)
{
	struct writer *w = png_get_io_ptr(png);
	sw__buf_append(&w->buf, data, n);
	if (w->buf.failed)
		png_error(png, "out of memory");
}

static void on_png_flush(png_structp png)
{
	(void)png;
}

SW_API int sw_image_encode(const sw_image *img, unsigned char **png_out, size_t *len, sw_error **err)
{
	if (!img || !png_out || !len)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_image_encode: no image given");
	struct writer w = {.buf = SW_BUF_INIT};
	struct writer *volatile wp = &w;
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w, on_png_werror, on_png_warning);
	if (!png)
		return sw__error_nomem(err);
	png_infop info = png_create_info_struct(png);
	png_bytep *rows = malloc(sizeof(png_bytep) * (size_t)img->h);
	png_bytep *volatile rows_v = rows;
	if (!info || !rows) {
		free(rows);
		png_destroy_write_struct(&png, info ? &info : NULL);
		return sw__error_nomem(err);
	}
	if (setjmp(w.jmp)) {
		free(rows_v);
		png_destroy_write_struct(&png, &info);
		sw__buf_free(&wp->buf);
		return sw__error_set(err, SW_EIO, "UNKNOWN", NULL, "PNG encoding failed: %s", wp->msg);
	}
	png_set_write_fn(png, &w, on_png_write, on_png_flush);
	/* Screens are large flat areas: fast deflate with the Sub/Up filters keeps files small and encoding quick. */
	png_set_compression_level(png, 3);
	png_set_filter(png, 0, PNG_FILTER_UP);
	png_set_IHDR(png, info, (png_uint_32)img->w, (png_uint_32)img->h, 8, PNG_COLOR_TYPE_RGB_ALPHA,
	             PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	for (int y = 0; y < img->h; y++)
		rows[y] = img->px + (size_t)y * (size_t)img->w * 4;
	png_set_rows(png, info, rows);
	png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
	png_destroy_write_struct(&png, &info);
	free(rows);
	size_t n = 0;
	char *data = sw__buf_steal(&w.buf, &n);
	if (!data)
		return sw__error_nomem(err);
	*png_out = (unsigned char *)data;
	*len = n;
	return SW_OK;
}

/* ---- geometry ----------------------------------------------------------- */

SW_API int sw_image_crop(const sw_image *img, int x, int y, int w, int h, sw_image **out, sw_error **err)
{
	if (!img || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_image_crop: no image given");
	if (x < 0 || y < 0 || w <= 0 || h <= 0 || x > img->w - w || y > img->h - h)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pick a rectangle inside the image",
		                     "The crop %d,%d %dx%d is outside the %dx%d image", x, y, w, h, img->w, img->h);
	sw_image *c = sw__image_alloc(w, h);
	if (!c)
		return sw__error_nomem(err);
	for (int r = 0; r < h; r++)
		memcpy(c->px + (size_t)r * (size_t)w * 4,
		       img->px + (((size_t)(y + r) * (size_t)img->w) + (size_t)x) * 4, (size_t)w * 4);
	*out = c;
	return SW_OK;
}

/* Area average of the source rectangle [x0,x1) x [y0,y1) (fixed point, 1/256 pixel). */
static void area_avg(const sw_image *img, long x0, long x1, long y0, long y1, unsigned char *dst)
{
	double acc[4] = {0, 0, 0, 0}, total = 0;
	for (long sy = y0 >> 8; sy <= (y1 - 1) >> 8 && sy < img->h; sy++) {
		long top = sy << 8 > y0 ? sy << 8 : y0, bot = (sy + 1) << 8 < y1 ? (sy + 1) << 8 : y1;
		double wy = (double)(bot - top);
		for (long sx = x0 >> 8; sx <= (x1 - 1) >> 8 && sx < img->w; sx++) {
			long left = sx << 8 > x0 ? sx << 8 : x0, right = (sx + 1) << 8 < x1 ? (sx + 1) << 8 : x1;
			double wgt = wy * (double)(right - left);
			const unsigned char *p = img->px + ((size_t)sy * (size_t)img->w + (size_t)sx) * 4;
			for (int k = 0; k < 4; k++)
				acc[k] += p[k] * wgt;
			total += wgt;
		}
	}
	for (int k = 0; k < 4; k++)
		dst[k] = total > 0 ? (unsigned char)(acc[k] / total + 0.5) : 0;
}

SW_API int sw_image_scale(const sw_image *img, int w, int h, sw_image **out, sw_error **err)
{
	if (!img || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_image_scale: no image given");
	if (w <= 0 || h <= 0 || w > SW_IMAGE_MAX_SIDE || h > SW_IMAGE_MAX_SIDE ||
	    (size_t)w * (size_t)h > SW_IMAGE_MAX_PIXELS)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "Cannot scale to %d x %d pixels", w, h);
	sw_image *s = sw__image_alloc(w, h);
	if (!s)
		return sw__error_nomem(err);
	bool shrink = w <= img->w && h <= img->h;
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			unsigned char *d = s->px + ((size_t)y * (size_t)w + (size_t)x) * 4;
			if (shrink) {
				long x0 = (long)x * img->w * 256 / w, x1 = (long)(x + 1) * img->w * 256 / w;
				long y0 = (long)y * img->h * 256 / h, y1 = (long)(y + 1) * img->h * 256 / h;
				area_avg(img, x0, x1 > x0 ? x1 : x0 + 1, y0, y1 > y0 ? y1 : y0 + 1, d);
				continue;
			}
			double fx = ((double)x + 0.5) * img->w / w - 0.5, fy = ((double)y + 0.5) * img->h / h - 0.5;
			if (fx < 0)
				fx = 0;
			if (fy < 0)
				fy = 0;
			int ix = (int)fx, iy = (int)fy;
			int ix1 = ix + 1 < img->w ? ix + 1 : ix, iy1 = iy + 1 < img->h ? iy + 1 : iy;
			double ax = fx - ix, ay = fy - iy;
			const unsigned char *p00 = img->px + ((size_t)iy * (size_t)img->w + (size_t)ix) * 4;
			const unsigned char *p01 = img->px + ((size_t)iy * (size_t)img->w + (size_t)ix1) * 4;
			const unsigned char *p10 = img->px + ((size_t)iy1 * (size_t)img->w + (size_t)ix) * 4;
			const unsigned char *p11 = img->px + ((size_t)iy1 * (size_t)img->w + (size_t)ix1) * 4;
			for (int k = 0; k < 4; k++) {
				double v = (p00[k] * (1 - ax) + p01[k] * ax) * (1 - ay) +
				           (p10[k] * (1 - ax) + p11[k] * ax) * ay;
				d[k] = (unsigned char)(v + 0.5);
			}
		}
	}
	*out = s;
	return SW_OK;
}

SW_API void sw_image_fill(sw_image *img, int x, int y, int w, int h, unsigned rgb)
{
	if (!img || w <= 0 || h <= 0)
		return;
	long x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
	long x1 = (long)x + w > img->w ? img->w : (long)x + w, y1 = (long)y + h > img->h ? img->h : (long)y + h;
	for (long yy = y0; yy < y1; yy++)
		for (long xx = x0; xx < x1; xx++) {
			unsigned char *p = img->px + ((size_t)yy * (size_t)img->w + (size_t)xx) * 4;
			p[0] = (unsigned char)(rgb >> 16);
			p[1] = (unsigned char)(rgb >> 8);
			p[2] = (unsigned char)rgb;
			p[3] = 255;
		}
}
