/* diff.c: pixel diff against a baseline: changed ratio, changed regions (grid components), the picture of the
 * difference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "visual-internal.h"

/* One grid cell: the exact bounds of its changed pixels, and how many changed. */
struct cell {
	int x0, y0, x1, y1; /* inclusive bounds; x0 > x1 when the cell has no change */
	unsigned n;
	int label;
};

struct region {
	int x0, y0, x1, y1;
	size_t pixels;
};

static int region_cmp(const void *a, const void *b)
{
	const struct region *ra = a, *rb = b;
	if (ra->pixels != rb->pixels)
		return ra->pixels < rb->pixels ? 1 : -1;
	if (ra->y0 != rb->y0)
		return ra->y0 < rb->y0 ? -1 : 1;
	return ra->x0 < rb->x0 ? -1 : ra->x0 > rb->x0;
}

static json_t *box_json(int x0, int y0, int x1, int y1)
{
	return json_pack("{sisisisi}", "x", x0, "y", y0, "width", x1 - x0 + 1, "height", y1 - y0 + 1);
}

static double opt_num(json_t *o, const char *key, double def)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : def;
}

/* Draws a frame of thickness @t (clipped) in @rgb around [x0,x1] x [y0,y1]. */
static void frame(sw_image *img, int x0, int y0, int x1, int y1, int t, unsigned rgb)
{
	x0 -= t;
	y0 -= t;
	x1 += t;
	y1 += t;
	int w = x1 - x0 + 1, h = y1 - y0 + 1;
	sw_image_fill(img, x0, y0, w, t, rgb);
	sw_image_fill(img, x0, y1 - t + 1, w, t, rgb);
	sw_image_fill(img, x0, y0, t, h, rgb);
	sw_image_fill(img, x1 - t + 1, y0, t, h, rgb);
}

SW_API int sw_visual_diff(const sw_image *base, const sw_image *cur, const char *options_json, char **result_json,
                          sw_image **diff_out, sw_error **err)
{
	if (!base || !cur || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_visual_diff: missing image");
	json_t *opts = NULL;
	if (options_json) {
		opts = json_loads(options_json, 0, NULL);
		if (!json_is_object(opts)) {
			json_decref(opts);
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
			                     "diff options must be a JSON object");
		}
	}
	double threshold = opt_num(opts, "threshold", 0.02);
	double pixel_threshold = opt_num(opts, "pixelThreshold", 24);
	int cellsz = (int)opt_num(opts, "cell", 8);
	int max_regions = (int)opt_num(opts, "maxRegions", 20);
	if (!(threshold >= 0 && threshold <= 1) || !(pixel_threshold >= 0 && pixel_threshold <= 255) || cellsz < 1 ||
	    cellsz > 256 || max_regions < 0) {
		json_decref(opts);
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "threshold must be 0..1, pixelThreshold 0..255 and cell 1..256");
	}
	int rc = SW_OK;
	json_t *res = NULL;
	uint8_t *changed = NULL, *ignore = NULL;
	struct cell *cells = NULL;
	int *stack = NULL;
	struct region *regions = NULL;
	sw_image *pic = NULL;

	if (base->w != cur->w || base->h != cur->h) {
		res = json_pack("{sbs{sisi}s{sisi}sbsfsfs[]sn}", "sizeMismatch", 1, "baseline", "width", base->w,
		                "height", base->h, "current", "width", cur->w, "height", cur->h, "pass", 0,
		                "changedRatio", 1.0, "threshold", threshold, "regions", "changedBox");
		goto done;
	}
	int w = cur->w, h = cur->h;
	size_t n = (size_t)w * (size_t)h;
	changed = calloc(n, 1);
	if (!changed) {
		rc = sw__error_nomem(err);
		goto out;
	}
	json_t *ign = json_object_get(opts, "ignore");
	if (json_array_size(ign)) {
		ignore = calloc(n, 1);
		if (!ignore) {
			rc = sw__error_nomem(err);
			goto out;
		}
		size_t i;
		json_t *r;
		json_array_foreach(ign, i, r)
		{
			long rx = (long)opt_num(r, "x", 0), ry = (long)opt_num(r, "y", 0);
			long rw = (long)opt_num(r, "width", 0), rh = (long)opt_num(r, "height", 0);
			for (long y = ry < 0 ? 0 : ry; y < ry + rh && y < h; y++)
				for (long x = rx < 0 ? 0 : rx; x < rx + rw && x < w; x++)
					ignore[(size_t)y * (size_t)w + (size_t)x] = 1;
		}
	}
	int gw = (w + cellsz - 1) / cellsz, gh = (h + cellsz - 1) / cellsz;
	size_t ncells = (size_t)gw * (size_t)gh;
	cells = malloc(ncells * sizeof(*cells));
	if (!cells) {
		rc = sw__error_nomem(err);
		goto out;
	}
	for (size_t c = 0; c < ncells; c++)
		cells[c] = (struct cell){INT32_MAX, INT32_MAX, -1, -1, 0, -1};
	int pt = (int)pixel_threshold;
	size_t nchanged = 0;
	for (int y = 0; y < h; y++) {
		const unsigned char *a = base->px + (size_t)y * (size_t)w * 4, *b = cur->px + (size_t)y * (size_t)w * 4;
		struct cell *row = cells + (size_t)(y / cellsz) * (size_t)gw;
		for (int x = 0; x < w; x++, a += 4, b += 4) {
			int d0 = abs(a[0] - b[0]), d1 = abs(a[1] - b[1]), d2 = abs(a[2] - b[2]), d3 = abs(a[3] - b[3]);
			int d = d0 > d1 ? d0 : d1;
			d = d > d2 ? d : d2;
			d = d > d3 ? d : d3;
			if (d <= pt)
				continue;
			size_t at = (size_t)y * (size_t)w + (size_t)x;
			if (ignore && ignore[at])
				continue;
			changed[at] = 1;
			nchanged++;
			struct cell *c = row + x / cellsz;
			c->n++;
			if (x < c->x0)
				c->x0 = x;
			if (x > c->x1)
				c->x1 = x;
			if (y < c->y0)
				c->y0 = y;
			if (y > c->y1)
				c->y1 = y;
		}
	}
	/* Connected components of changed cells (8-neighbourhood): one region each, with exact pixel bounds. */
	stack = malloc(ncells * sizeof(*stack));
	size_t nreg = 0, capreg = 16;
	regions = malloc(capreg * sizeof(*regions));
	if (!stack || !regions) {
		rc = sw__error_nomem(err);
		goto out;
	}
	for (size_t c0 = 0; c0 < ncells; c0++) {
		if (!cells[c0].n || cells[c0].label >= 0)
			continue;
		if (nreg == capreg) {
			struct region *nr = realloc(regions, capreg * 2 * sizeof(*regions));
			if (!nr) {
				rc = sw__error_nomem(err);
				goto out;
			}
			regions = nr;
			capreg *= 2;
		}
		struct region *rg = &regions[nreg];
		*rg = (struct region){INT32_MAX, INT32_MAX, -1, -1, 0};
		size_t sp = 0;
		stack[sp++] = (int)c0;
		cells[c0].label = (int)nreg;
		while (sp) {
			int ci = stack[--sp];
			struct cell *c = &cells[ci];
			rg->pixels += c->n;
			rg->x0 = c->x0 < rg->x0 ? c->x0 : rg->x0;
			rg->y0 = c->y0 < rg->y0 ? c->y0 : rg->y0;
			rg->x1 = c->x1 > rg->x1 ? c->x1 : rg->x1;
			rg->y1 = c->y1 > rg->y1 ? c->y1 : rg->y1;
			int cx = ci % gw, cy = ci / gw;
			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++) {
					int nx = cx + dx, ny = cy + dy;
					if (nx < 0 || ny < 0 || nx >= gw || ny >= gh)
						continue;
					size_t ni = (size_t)ny * (size_t)gw + (size_t)nx;
					if (cells[ni].n && cells[ni].label < 0) {
						cells[ni].label = (int)nreg;
						stack[sp++] = (int)ni;
					}
				}
		}
		nreg++;
	}
	qsort(regions, nreg, sizeof(*regions), region_cmp);
	double ratio = n ? (double)nchanged / (double)n : 0;
	json_t *jregions = json_array();
	int bx0 = INT32_MAX, by0 = INT32_MAX, bx1 = -1, by1 = -1;
	for (size_t i = 0; i < nreg; i++) {
		struct region *rg = &regions[i];
		bx0 = rg->x0 < bx0 ? rg->x0 : bx0;
		by0 = rg->y0 < by0 ? rg->y0 : by0;
		bx1 = rg->x1 > bx1 ? rg->x1 : bx1;
		by1 = rg->y1 > by1 ? rg->y1 : by1;
		if ((int)i < max_regions) {
			json_t *b = box_json(rg->x0, rg->y0, rg->x1, rg->y1);
			json_object_set_new(b, "pixels", json_integer((json_int_t)rg->pixels));
			json_array_append_new(jregions, b);
		}
	}
	res = json_pack("{sisisIsIsfsfsbsosisn}", "width", w, "height", h, "changedPixels", (json_int_t)nchanged,
	                "totalPixels", (json_int_t)n, "changedRatio", ratio, "threshold", threshold, "pass",
	                ratio <= threshold, "regions", jregions, "regionCount", (int)nreg, "changedBox");
	if (res && nreg)
		json_object_set_new(res, "changedBox", box_json(bx0, by0, bx1, by1));
	if (res && pixel_threshold != 24)
		json_object_set_new(res, "pixelThreshold", json_real(pixel_threshold));

	if (diff_out) {
		/* The picture: the current screen in dimmed grayscale, changes in red, each region framed. */
		pic = sw__image_alloc(w, h);
		if (!pic) {
			rc = sw__error_nomem(err);
			goto out;
		}
		const unsigned char *s = cur->px;
		unsigned char *d = pic->px;
		for (size_t i = 0; i < n; i++, s += 4, d += 4) {
			unsigned luma = (s[0] * 77u + s[1] * 150u + s[2] * 29u) >> 8;
			if (changed[i]) {
				d[0] = 255;
				d[1] = (unsigned char)(luma / 5);
				d[2] = (unsigned char)(luma / 5);
			} else {
				unsigned char g = (unsigned char)(96 + luma * 3 / 8);
				d[0] = d[1] = d[2] = g;
			}
			d[3] = 255;
		}
		/* frames stand a little away from the change so that even a few pixels get a visible ring */
		int t = w / 200 > 2 ? w / 200 : 2, pad = w / 80 > 4 ? w / 80 : 4;
		for (size_t i = 0; i < nreg && (int)i < (max_regions ? max_regions : 20); i++)
			frame(pic, regions[i].x0 - pad, regions[i].y0 - pad, regions[i].x1 + pad, regions[i].y1 + pad,
			      t, 0xff00ff);
	}
done:
	if (!res) {
		rc = sw__error_nomem(err);
		goto out;
	}
	*result_json = sw__json_compact(res);
	if (!*result_json) {
		rc = sw__error_nomem(err);
		goto out;
	}
	if (diff_out) {
		*diff_out = pic;
		pic = NULL;
	}
out:
	json_decref(res);
	json_decref(opts);
	free(changed);
	free(ignore);
	free(cells);
	free(stack);
	free(regions);
	sw_image_free(pic);
	return rc;
}
