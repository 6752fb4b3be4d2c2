/* visual-internal.h: what the files of the visual concern share; never installed. */
#ifndef SW_VISUAL_INTERNAL_H
#define SW_VISUAL_INTERNAL_H

#include <stdint.h>

#include "sw-internal.h"
#include <swipium/visual.h>

struct sw_image {
	int w, h;
	unsigned char *px; /* w * h * 4 */
};

/* Allocates an image without touching its pixels. NULL when out of memory. */
sw_image *sw__image_alloc(int w, int h);
/* 8-bit luma (BT.601) of every pixel, w*h bytes; NULL when out of memory. (transfer full, free()) */
uint8_t *sw__image_gray(const sw_image *img);

#endif
