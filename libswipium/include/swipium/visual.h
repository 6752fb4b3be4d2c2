/* swipium/visual.h: pixel checks: PNG images, diffs against baselines, template matching, OCR and mask providers. */
#ifndef SWIPIUM_VISUAL_H
#define SWIPIUM_VISUAL_H

#include <stddef.h>

#include <swipium/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sw_redactor;

/**
 * An image in memory: 8-bit RGBA, rows top to bottom, no padding. Every PNG
 * colour type (palette, gray, gray+alpha, RGB, RGBA, 1 to 16 bits, interlaced)
 * is normalised to this form when decoded.
 */
typedef struct sw_image sw_image;

/** The largest side and pixel count sw_image_decode() accepts (checked before any pixel is allocated). */
#define SW_IMAGE_MAX_SIDE 16384
#define SW_IMAGE_MAX_PIXELS (40u * 1000u * 1000u)

/**
 * Decodes a PNG held in memory. A header announcing more than
 * SW_IMAGE_MAX_SIDE per side or SW_IMAGE_MAX_PIXELS pixels is refused before
 * pixels are allocated; so is data that is not a PNG, is truncated or corrupt:
 * SW_EINVAL, failure code INVALID_ARGUMENT (the message says which).
 * @out: (transfer full) free with sw_image_free().
 */
SW_API int sw_image_decode(const void *png, size_t len, sw_image **out, sw_error **err);
/** sw_image_decode() on a file (at most 64 MiB). @out: (transfer full) */
SW_API int sw_image_load(const char *path, sw_image **out, sw_error **err);
/** A new image of @width x @height; @rgba (nullable) is copied, else the image is transparent black. */
SW_API int sw_image_new(int width, int height, const unsigned char *rgba, sw_image **out, sw_error **err);
/** Frees @img. NULL is accepted. */
SW_API void sw_image_free(sw_image *img);
/** Width in pixels. */
SW_API int sw_image_width(const sw_image *img);
/** Height in pixels. */
SW_API int sw_image_height(const sw_image *img);
/** The RGBA8 pixels, width*height*4 bytes. (transfer none) */
SW_API const unsigned char *sw_image_pixels(const sw_image *img);
/** Encodes @img as an 8-bit RGBA PNG. @png: (transfer full) free with sw_free(). */
SW_API int sw_image_encode(const sw_image *img, unsigned char **png, size_t *len, sw_error **err);
/** The rectangle @x, @y, @w x @h of @img; it must lie inside the image. @out: (transfer full) */
SW_API int sw_image_crop(const sw_image *img, int x, int y, int w, int h, sw_image **out, sw_error **err);
/** @img resized to @w x @h (area average when shrinking, bilinear when enlarging). @out: (transfer full) */
SW_API int sw_image_scale(const sw_image *img, int w, int h, sw_image **out, sw_error **err);
/** Paints the rectangle @x, @y, @w x @h (clipped to the image) with an opaque colour 0xRRGGBB. */
SW_API void sw_image_fill(sw_image *img, int x, int y, int w, int h, unsigned rgb);

/**
 * Compares @current with @baseline. @options_json (nullable):
 * {threshold (ratio of changed pixels that still passes, default 0.02),
 *  pixelThreshold (0..255: a pixel changed when a channel moved by more,
 *  default 24), cell (grid cell in pixels for the regions, default 8),
 *  maxRegions (default 20), ignore ([{x,y,width,height}] areas left out)}.
 * @result_json: (transfer full) {width, height, changedPixels, totalPixels,
 * changedRatio, threshold, pass, regions [{x,y,width,height,pixels}] (largest
 * first), regionCount, changedBox ({x,y,width,height} or null)}. Images of
 * different sizes are not an error: the result is {sizeMismatch:true,
 * baseline {width,height}, current {width,height}, pass:false,
 * changedRatio:1} and no diff image.
 * @diff_out (nullable): (transfer full) a picture of the difference: a dimmed
 * grayscale copy of @current with changed pixels in red and each region
 * framed; NULL on a size mismatch.
 */
SW_API int sw_visual_diff(const sw_image *baseline, const sw_image *current, const char *options_json,
                          char **result_json, sw_image **diff_out, sw_error **err);

/**
 * Finds @templ in @screen: normalised cross-correlation on grayscale,
 * searched coarse to fine over an image pyramid and refined at full
 * resolution around the best candidates (never a full-resolution brute force).
 * @options_json (nullable): {minScore (default 0.85)}.
 * @result_json: (transfer full) {found, score (0..1), minScore, bbox
 * {x,y,width,height}, center {x,y}, levels}. A template larger than the
 * screen is SW_EINVAL / INVALID_ARGUMENT.
 */
SW_API int sw_visual_find_image(const sw_image *screen, const sw_image *templ, const char *options_json,
                                char **result_json, sw_error **err);

/**
 * The file of baseline @name: `<project_root>/.swipium/baselines/<name>.png`.
 * @name must match [A-Za-z0-9._-]{1,64} and not start with "."; the
 * baselines folder and an existing file are resolved through symlinks and
 * must stay inside the project root. Failure code VISUAL_PATH_REFUSED.
 * With @create non-zero the folder is created (0700). @out: (transfer full)
 */
SW_API int sw_visual_baseline_path(const char *project_root, const char *name, int create, char **out, sw_error **err);

/**
 * Resolves a user-given image path (relative to @project_root or absolute)
 * through symlinks; it must exist and stay inside the project root
 * (VISUAL_PATH_REFUSED otherwise). @out: (transfer full) the real path.
 */
SW_API int sw_visual_resolve_path(const char *project_root, const char *path, char **out, sw_error **err);

/**
 * Which provider command is configured for @kind ("ocr" or "mask"):
 * `.swipium/config.json` `ocrCommand` / `visualMaskCommand` (an argv array,
 * or {command, io, timeoutMs}) wins over SWIPIUM_OCR_CMD /
 * SWIPIUM_VISUAL_MASK_CMD (a JSON argv array, or words split on blanks with
 * '…' and "…" quoting; never a shell). @out_json: (transfer full)
 * {configured:false} or {configured:true, kind, argv [], origin
 * ("env:SWIPIUM_OCR_CMD" | "config:.swipium/config.json (unreviewed)"), io
 * ("argv" | "json"), timeoutMs}. A git provider is GIT_SCOPE_FORBIDDEN; a
 * malformed setting is INVALID_ARGUMENT.
 */
SW_API int sw_visual_provider(const char *project_root, const char *kind, char **out_json, sw_error **err);

/**
 * find_text: writes @png into a private temporary folder (0700, deleted
 * afterwards) and runs the mask provider (when configured) and then the OCR
 * provider on it, with the project root as working directory and each
 * provider's timeout (default 30 s; the child's process group is killed on
 * expiry). `{image}` in an argv is replaced by the real path of the PNG
 * (the masked copy for OCR when a mask ran); without a placeholder the path
 * is appended as the last argument.
 * @options_json (nullable): {query, minConfidence (default 0.8), timeoutMs}.
 * @redactor (nullable) scrubs OCR text and provider stderr.
 * @out_json: (transfer full) {found, query, minConfidence, text?, confidence?,
 * bbox?, matches [...], regions [{text, confidence, bbox}], masked (count of
 * masked areas or null)}.
 * Failures: OCR_NOT_CONFIGURED (details exampleProvider), GIT_SCOPE_FORBIDDEN,
 * OCR_PROVIDER_FAILED (details {provider, exitCode, timedOut, stderr, reason}).
 */
SW_API int sw_visual_ocr(const char *project_root, const void *png, size_t png_len, const char *options_json,
                         struct sw_redactor *redactor, char **out_json, sw_error **err);

#ifdef __cplusplus
}
#endif

#endif
