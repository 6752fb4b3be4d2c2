/* render.h: PNG encoding of rendered screens (libpng) and the built-in bitmap font used to draw text. */
#ifndef VDEVICE_RENDER_H
#define VDEVICE_RENDER_H

#include "vdevice.h"

/* Encodes RGBA pixels as an RGB PNG appended to @out. */
bool vd_png_encode(const uint8_t *rgba, int width, int height, struct vd_buf *out);

/* Glyph cell of the font, in font pixels (before scaling): 7 rows above the baseline, 2 below. */
#define VD_FONT_W 5
#define VD_FONT_ASCENT 7
#define VD_FONT_H 9

/* The VD_FONT_H row bitmaps (bit 4 = leftmost column) of printable ASCII @ch; '?' for anything else. */
const uint8_t *vd_font_glyph(unsigned char ch);

#endif
