/* fuzz-png.c: libFuzzer target for the PNG decoder (screenshots, baselines, templates: sw_image_decode). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <swipium/swipium.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Properties: nothing crashes or leaks; a decoded image has a size within the
 * documented limits and pixels; re-encoding it and decoding that again gives
 * the same pixels (small images only, so the fuzzer keeps its speed).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sw_image *img = NULL;
	sw_error *err = NULL;
	if (sw_image_decode(data, size, &img, &err) != SW_OK) {
		if (img || !err || !sw_error_message(err))
			abort(); /* a failure always says why and hands back nothing */
		sw_error_free(err);
		return 0;
	}
	int w = sw_image_width(img), h = sw_image_height(img);
	if (w < 1 || h < 1 || w > SW_IMAGE_MAX_SIDE || h > SW_IMAGE_MAX_SIDE ||
	    (uint64_t)w * (uint64_t)h > SW_IMAGE_MAX_PIXELS || !sw_image_pixels(img))
		abort();
	if ((uint64_t)w * (uint64_t)h <= 256u * 256u) {
		unsigned char *png = NULL;
		size_t len = 0;
		if (sw_image_encode(img, &png, &len, NULL) != SW_OK)
			abort();
		sw_image *again = NULL;
		if (sw_image_decode(png, len, &again, NULL) != SW_OK || sw_image_width(again) != w ||
		    sw_image_height(again) != h ||
		    memcmp(sw_image_pixels(again), sw_image_pixels(img), (size_t)w * (size_t)h * 4) != 0)
			abort();
		sw_image_free(again);
		sw_free(png);
	}
	sw_image_free(img);
	return 0;
}
