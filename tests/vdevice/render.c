/*
 * render.c: draws the screen model into pixels (status bar, node boxes, text in the
 * built-in font, the dimmed background under a dialog, the soft keyboard) and encodes PNG.
 */
#include "app-model.h"
#include "render.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_SCALE 4
#define GLYPH_ADVANCE ((VD_FONT_W + 1) * TEXT_SCALE)

struct canvas {
	uint8_t *px;
	int clip[4];
};

static void fill(struct canvas *c, int x1, int y1, int x2, int y2, uint32_t rgb)
{
	if (x1 < c->clip[0])
		x1 = c->clip[0];
	if (y1 < c->clip[1])
		y1 = c->clip[1];
	if (x2 > c->clip[2])
		x2 = c->clip[2];
	if (y2 > c->clip[3])
		y2 = c->clip[3];
	if (x2 <= x1 || y2 <= y1)
		return;
	/* paint the first row, then copy it down */
	uint8_t *first = c->px + ((size_t)y1 * VD_SCREEN_W + (size_t)x1) * 4;
	for (int x = x1; x < x2; x++) {
		uint8_t *p = first + (size_t)(x - x1) * 4;
		p[0] = (uint8_t)(rgb >> 16);
		p[1] = (uint8_t)(rgb >> 8);
		p[2] = (uint8_t)rgb;
		p[3] = 255;
	}
	for (int y = y1 + 1; y < y2; y++)
		memcpy(c->px + ((size_t)y * VD_SCREEN_W + (size_t)x1) * 4, first, (size_t)(x2 - x1) * 4);
}

static void frame(struct canvas *c, const int b[4], int t, uint32_t rgb)
{
	fill(c, b[0], b[1], b[2], b[1] + t, rgb);
	fill(c, b[0], b[3] - t, b[2], b[3], rgb);
	fill(c, b[0], b[1], b[0] + t, b[3], rgb);
	fill(c, b[2] - t, b[1], b[2], b[3], rgb);
}

static void dim(struct canvas *c)
{
	size_t n = (size_t)VD_SCREEN_W * VD_SCREEN_H;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			c->px[i * 4 + k] = (uint8_t)(c->px[i * 4 + k] * 2 / 5);
}

/* Draws one line of text; non-ASCII UTF-8 sequences show as one glyph ('*' for a bullet, '?' otherwise). */
static void text(struct canvas *c, int x, int y, const char *s, uint32_t rgb, int max_x)
{
	for (const unsigned char *p = (const unsigned char *)s; *p && x + GLYPH_ADVANCE <= max_x; x += GLYPH_ADVANCE) {
		unsigned char ch = *p;
		if (ch >= 0x80) {
			ch = (p[0] == 0xe2 && p[1] == 0x80 && p[2] == 0xa2) ? '*' : '?';
			p++;
			while ((*p & 0xc0) == 0x80)
				p++;
		} else {
			p++;
		}
		const uint8_t *g = vd_font_glyph(ch);
		for (int r = 0; r < VD_FONT_H; r++)
			for (int col = 0; col < VD_FONT_W; col++)
				if (g[r] & (1u << (VD_FONT_W - 1 - col)))
					fill(c, x + col * TEXT_SCALE, y + r * TEXT_SCALE, x + (col + 1) * TEXT_SCALE,
					     y + (r + 1) * TEXT_SCALE, rgb);
	}
}

static int text_width(const char *s)
{
	int n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += (*p & 0xc0) != 0x80;
	return n * GLYPH_ADVANCE - TEXT_SCALE;
}

static bool has(const char *cls, const char *what)
{
	return cls && strstr(cls, what) != NULL;
}

static void draw_view(struct canvas *c, const struct vd_view *v)
{
	const struct vd_node *n = v->node;
	const int *b = v->b;
	int h = b[3] - b[1];
	int ty = b[1] + (h - VD_FONT_ASCENT * TEXT_SCALE) / 2;
	const char *label = v->text && *v->text ? v->text : (v->desc ? v->desc : "");
	if (has(v->cls, "Button") && !has(v->cls, "Radio")) {
		fill(c, b[0], b[1], b[2], b[3], n && !n->enabled ? 0xbdbdbd : 0x1a73e8);
		int w = text_width(label);
		text(c, b[0] + ((b[2] - b[0]) - w) / 2, ty, label, 0xffffff, b[2]);
		return;
	}
	if (n && n->editable) {
		fill(c, b[0], b[1], b[2], b[3], 0xf1f3f4);
		fill(c, b[0], b[3] - 6, b[2], b[3], v->focused ? 0x1a73e8 : 0x80868b);
		text(c, b[0] + 24, ty, label, 0x202124, b[2] - 12);
		return;
	}
	if (has(v->cls, "CheckBox") || has(v->cls, "Switch") || has(v->cls, "RadioButton")) {
		int box[4] = {b[0] + 12, b[1] + h / 2 - 28, b[0] + 68, b[1] + h / 2 + 28};
		frame(c, box, 6, 0x1a73e8);
		if (v->checked)
			fill(c, box[0] + 14, box[1] + 14, box[2] - 14, box[3] - 14, 0x1a73e8);
		text(c, b[0] + 96, ty, label, 0x202124, b[2]);
		return;
	}
	if (has(v->cls, "ImageView") || has(v->cls, "ImageButton")) {
		fill(c, b[0], b[1], b[2], b[3], 0xdadce0);
		text(c, b[0] + 12, ty, label, 0x3c4043, b[2]);
		return;
	}
	if (v->item || (n && n->clickable)) {
		/* list rows and clickable containers: a separator line under them */
		fill(c, b[0], b[3] - 2, b[2], b[3], 0xdadce0);
	}
	if (*label)
		text(c, b[0] + 24, ty, label, v->item == -1 ? 0xffffff : 0x202124, b[2]);
}

static void draw_keyboard(struct canvas *c)
{
	static const char *const rows[] = {"qwertyuiop", "asdfghjkl", "zxcvbnm"};
	fill(c, 0, VD_KEYBOARD_TOP, VD_SCREEN_W, VD_SCREEN_H, 0x303134);
	for (int r = 0; r < 3; r++) {
		int n = (int)strlen(rows[r]);
		int kw = 100, gap = 8;
		int x0 = (VD_SCREEN_W - n * (kw + gap)) / 2;
		int y0 = VD_KEYBOARD_TOP + 40 + r * 150;
		for (int k = 0; k < n; k++) {
			int x = x0 + k * (kw + gap);
			fill(c, x, y0, x + kw, y0 + 130, 0x5f6368);
			char s[2] = {(char)(rows[r][k] - 'a' + 'A'), '\0'};
			text(c, x + (kw - VD_FONT_W * TEXT_SCALE) / 2, y0 + 50, s, 0xffffff, x + kw);
		}
	}
	fill(c, 240, VD_KEYBOARD_TOP + 500, 840, VD_KEYBOARD_TOP + 630, 0x5f6368);
}

uint8_t *vd_app_render(struct vd_app *app)
{
	struct canvas c = {.clip = {0, 0, VD_SCREEN_W, VD_SCREEN_H}};
	c.px = malloc((size_t)VD_SCREEN_W * VD_SCREEN_H * 4);
	if (!c.px)
		return NULL;
	if (vd_app_secure(app)) {
		/* FLAG_SECURE windows capture as black, as on a real device */
		fill(&c, 0, 0, VD_SCREEN_W, VD_SCREEN_H, 0x000000);
		return c.px;
	}
	bool launcher = vd_app_current_screen(app) == NULL;
	fill(&c, 0, 0, VD_SCREEN_W, VD_SCREEN_H, launcher ? 0x3c6e8f : 0xffffff);
	struct vd_layout l;
	vd_app_layout(app, &l, true);
	for (size_t i = 0; i < l.n; i++) {
		if (l.dim && i == l.dialog_from) {
			dim(&c);
			fill(&c, l.frame[0], l.frame[1], l.frame[2], l.frame[3], 0xffffff);
		}
		const struct vd_view *v = &l.v[i];
		/* clip each view to its dialog or screen */
		if (l.dim && i >= l.dialog_from)
			memcpy(c.clip, l.frame, sizeof(c.clip));
		draw_view(&c, v);
		int full[4] = {0, 0, VD_SCREEN_W, VD_SCREEN_H};
		memcpy(c.clip, full, sizeof(c.clip));
	}
	vd_layout_free(&l);
	/* status bar and navigation bar */
	fill(&c, 0, 0, VD_SCREEN_W, VD_STATUS_BAR_H, 0x202124);
	text(&c, 40, 16, "12:00", 0xffffff, 400);
	if (vd_app_keyboard_shown(app, NULL))
		draw_keyboard(&c);
	fill(&c, 0, VD_SCREEN_H - VD_NAV_BAR_H, VD_SCREEN_W, VD_SCREEN_H, 0x000000);
	fill(&c, 440, VD_SCREEN_H - 36, 640, VD_SCREEN_H - 28, 0xffffff);
	return c.px;
}

/* ---- PNG ------------------------------------------------------------------------------------------- */

static void png_write_cb(png_structp png, png_bytep data, png_size_t len)
{
	struct vd_buf *out = png_get_io_ptr(png);
	if (!vd_buf_append(out, data, len))
		png_error(png, "out of memory");
}

static void png_flush_cb(png_structp png)
{
	(void)png;
}

bool vd_png_encode(const uint8_t *rgba, int width, int height, struct vd_buf *out)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	uint8_t *volatile row = malloc((size_t)width * 3);
	bool ok = false;
	if (!png || !info || !row)
		goto out;
	if (setjmp(png_jmpbuf(png)))
		goto out;
	png_set_write_fn(png, out, png_write_cb, png_flush_cb);
	/* Flat UI colours compress well at the fastest level without row filters, and encoding stays cheap. */
	png_set_compression_level(png, 1);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
	png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
	             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (int y = 0; y < height; y++) {
		const uint8_t *src = rgba + (size_t)y * (size_t)width * 4;
		for (int x = 0; x < width; x++)
			memcpy(row + (size_t)x * 3, src + (size_t)x * 4, 3);
		png_write_row(png, row);
	}
	png_write_end(png, info);
	ok = true;
out:
	png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
	free(row);
	return ok;
}
