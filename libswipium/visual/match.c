/* match.c: template matching: normalised cross-correlation, coarse to fine over an image pyramid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "visual-internal.h"

/* One pyramid level of a grayscale image. */
struct level {
	int w, h;
	float *px;
	double *sum, *sq; /* integral images, (w+1) x (h+1); only for the screen */
};

struct cand {
	int x, y;
	double score;
};

#define MAX_LEVELS 6
#define KEEP 8          /* candidates carried from the coarsest level */
#define REFINE_RADIUS 2 /* search window, in pixels of the finer level, around 2x the coarse position */

static void level_free(struct level *l)
{
	free(l->px);
	free(l->sum);
	free(l->sq);
	memset(l, 0, sizeof(*l));
}

/* Half-size level by 2x2 averaging. */
static int half(const struct level *src, struct level *dst)
{
	dst->w = src->w / 2;
	dst->h = src->h / 2;
	dst->px = malloc((size_t)dst->w * (size_t)dst->h * sizeof(float));
	if (!dst->px)
		return -1;
	for (int y = 0; y < dst->h; y++) {
		const float *a = src->px + (size_t)(2 * y) * (size_t)src->w, *b = a + src->w;
		float *d = dst->px + (size_t)y * (size_t)dst->w;
		for (int x = 0; x < dst->w; x++)
			d[x] = (a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1]) * 0.25f;
	}
	return 0;
}

static int integrals(struct level *l)
{
	size_t iw = (size_t)l->w + 1, n = iw * ((size_t)l->h + 1);
	l->sum = calloc(n, sizeof(double));
	l->sq = calloc(n, sizeof(double));
	if (!l->sum || !l->sq)
		return -1;
	for (int y = 0; y < l->h; y++) {
		double rs = 0, rq = 0;
		const float *p = l->px + (size_t)y * (size_t)l->w;
		for (int x = 0; x < l->w; x++) {
			rs += p[x];
			rq += (double)p[x] * p[x];
			l->sum[(size_t)(y + 1) * iw + (size_t)x + 1] = l->sum[(size_t)y * iw + (size_t)x + 1] + rs;
			l->sq[(size_t)(y + 1) * iw + (size_t)x + 1] = l->sq[(size_t)y * iw + (size_t)x + 1] + rq;
		}
	}
	return 0;
}

static double rect(const double *ii, int iw, int x, int y, int w, int h)
{
	return ii[(size_t)(y + h) * (size_t)iw + (size_t)(x + w)] - ii[(size_t)y * (size_t)iw + (size_t)(x + w)] -
	       ii[(size_t)(y + h) * (size_t)iw + (size_t)x] + ii[(size_t)y * (size_t)iw + (size_t)x];
}

/* Template statistics at one level: zero-mean pixels and their norm. */
struct tstats {
	float *z; /* t - mean */
	double norm, mean;
	int w, h;
};

static int tstats_make(const struct level *t, struct tstats *ts)
{
	size_t n = (size_t)t->w * (size_t)t->h;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += t->px[i];
	ts->mean = s / (double)n;
	ts->z = malloc(n * sizeof(float));
	if (!ts->z)
		return -1;
	double q = 0;
	for (size_t i = 0; i < n; i++) {
		ts->z[i] = (float)(t->px[i] - ts->mean);
		q += (double)ts->z[i] * ts->z[i];
	}
	ts->norm = sqrt(q);
	ts->w = t->w;
	ts->h = t->h;
	return 0;
}

/*
 * Score of the template at (x, y): the normalised cross-correlation; for a flat template (or a flat
 * window) NCC says nothing, so 1 - mean absolute difference / 255 decides instead.
 */
static double score_at(const struct level *s, const struct tstats *ts, const float *traw, int x, int y)
{
	double n = (double)ts->w * ts->h;
	double ws = 0, wq = 0;
	if (s->sum) {
		int iw = s->w + 1;
		ws = rect(s->sum, iw, x, y, ts->w, ts->h);
		wq = rect(s->sq, iw, x, y, ts->w, ts->h);
	} else {
		/* refinement levels score a handful of positions: direct sums beat building integral images */
		for (int r = 0; r < ts->h; r++) {
			const float *p = s->px + (size_t)(y + r) * (size_t)s->w + (size_t)x;
			float a = 0, q = 0;
			for (int c = 0; c < ts->w; c++) {
				a += p[c];
				q += p[c] * p[c];
			}
			ws += a;
			wq += q;
		}
	}
	double var = wq - ws * ws / n;
	bool flat_t = ts->norm < 1e-3 * sqrt(n) * 2, flat_w = var < 1e-6 * n * 4;
	if (flat_t || flat_w) {
		if (flat_t && flat_w)
			return 1.0 - fabs(ws / n - ts->mean) / 255.0;
		if (flat_t) {
			/* template flat, window not: mean absolute difference */
			double sad = 0;
			for (int r = 0; r < ts->h; r++) {
				const float *p = s->px + (size_t)(y + r) * (size_t)s->w + (size_t)x;
				const float *t = traw + (size_t)r * (size_t)ts->w;
				for (int c = 0; c < ts->w; c++)
					sad += fabsf(p[c] - t[c]);
			}
			return 1.0 - sad / n / 255.0;
		}
		return 0.0;
	}
	double dot = 0;
	for (int r = 0; r < ts->h; r++) {
		const float *p = s->px + (size_t)(y + r) * (size_t)s->w + (size_t)x;
		const float *z = ts->z + (size_t)r * (size_t)ts->w;
		float acc = 0;
		for (int c = 0; c < ts->w; c++)
			acc += p[c] * z[c];
		dot += acc;
	}
	double v = dot / (ts->norm * sqrt(var));
	return v > 1 ? 1 : v;
}

static void keep_best(struct cand *best, int *nbest, int x, int y, double score, int sep)
{
	/* non-maximum suppression: a candidate close to a better one is dropped, a worse close one replaced */
	int at = -1;
	for (int i = 0; i < *nbest; i++) {
		if (abs(best[i].x - x) <= sep && abs(best[i].y - y) <= sep) {
			if (score <= best[i].score)
				return;
			at = i;
			break;
		}
	}
	if (at < 0) {
		if (*nbest < KEEP)
			at = (*nbest)++;
		else if (score > best[KEEP - 1].score)
			at = KEEP - 1;
		else
			return;
	}
	best[at] = (struct cand){x, y, score};
	for (int i = at; i > 0 && best[i].score > best[i - 1].score; i--) {
		struct cand t = best[i];
		best[i] = best[i - 1];
		best[i - 1] = t;
	}
}

static struct level gray_level(const sw_image *img)
{
	struct level l = {img->w, img->h, NULL, NULL, NULL};
	size_t n = (size_t)img->w * (size_t)img->h;
	l.px = malloc(n * sizeof(float));
	if (!l.px)
		return l;
	const unsigned char *p = img->px;
	for (size_t i = 0; i < n; i++, p += 4)
		l.px[i] = (float)(p[0] * 0.299 + p[1] * 0.587 + p[2] * 0.114);
	return l;
}

SW_API int sw_visual_find_image(const sw_image *screen, const sw_image *templ, const char *options_json,
                                char **result_json, sw_error **err)
{
	if (!screen || !templ || !result_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_visual_find_image: missing image");
	if (templ->w > screen->w || templ->h > screen->h)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT",
		                     "Crop the template from a screenshot of this device; it must fit on the screen",
		                     "The template (%d x %d) is larger than the screen (%d x %d)", templ->w, templ->h,
		                     screen->w, screen->h);
	double min_score = 0.85;
	if (options_json) {
		json_t *o = json_loads(options_json, 0, NULL);
		json_t *v = json_object_get(o, "minScore");
		if (json_is_number(v))
			min_score = json_number_value(v);
		json_decref(o);
	}
	int rc = SW_OK;
	struct level sl[MAX_LEVELS] = {{0}}, tl[MAX_LEVELS] = {{0}};
	struct tstats ts[MAX_LEVELS] = {{0}};
	int levels = 1;
	sl[0] = gray_level(screen);
	tl[0] = gray_level(templ);
	if (!sl[0].px || !tl[0].px) {
		rc = sw__error_nomem(err);
		goto out;
	}
	/* Halve while the template keeps at least 8 pixels on its short side (detail enough to correlate). */
	while (levels < MAX_LEVELS && tl[levels - 1].w / 2 >= 8 && tl[levels - 1].h / 2 >= 8) {
		if (half(&sl[levels - 1], &sl[levels]) < 0 || half(&tl[levels - 1], &tl[levels]) < 0) {
			rc = sw__error_nomem(err);
			goto out;
		}
		levels++;
	}
	for (int l = 0; l < levels; l++)
		if ((l == levels - 1 && integrals(&sl[l]) < 0) || tstats_make(&tl[l], &ts[l]) < 0) {
			rc = sw__error_nomem(err);
			goto out;
		}
	/* Exhaustive search at the coarsest level only. */
	int top = levels - 1;
	struct cand best[KEEP];
	int nbest = 0;
	int sep = (tl[top].w < tl[top].h ? tl[top].w : tl[top].h) / 2;
	if (sep < 2)
		sep = 2;
	for (int y = 0; y + tl[top].h <= sl[top].h; y++)
		for (int x = 0; x + tl[top].w <= sl[top].w; x++) {
			double sc = score_at(&sl[top], &ts[top], tl[top].px, x, y);
			if (nbest < KEEP || sc > best[nbest - 1].score)
				keep_best(best, &nbest, x, y, sc, sep);
		}
	/* Refine each candidate level by level in a small window. */
	struct cand win = {0, 0, -2};
	for (int c = 0; c < nbest; c++) {
		struct cand cur = best[c];
		for (int l = top - 1; l >= 0; l--) {
			struct cand nb = {0, 0, -2};
			int cx = cur.x * 2, cy = cur.y * 2;
			for (int y = cy - REFINE_RADIUS; y <= cy + REFINE_RADIUS; y++)
				for (int x = cx - REFINE_RADIUS; x <= cx + REFINE_RADIUS; x++) {
					if (x < 0 || y < 0 || x + tl[l].w > sl[l].w || y + tl[l].h > sl[l].h)
						continue;
					double sc = score_at(&sl[l], &ts[l], tl[l].px, x, y);
					if (sc > nb.score)
						nb = (struct cand){x, y, sc};
				}
			if (nb.score < -1.5)
				break;
			cur = nb;
		}
		if (cur.score > win.score)
			win = cur;
	}
	if (top == 0 && nbest)
		win = best[0];
	if (win.score < 0)
		win.score = 0;
	double score = round(win.score * 10000) / 10000;
	json_t *res = json_pack("{sbsfsfs{sisisisi}s{sisi}si}", "found", score >= min_score, "score", score, "minScore",
	                        min_score, "bbox", "x", win.x, "y", win.y, "width", templ->w, "height", templ->h,
	                        "center", "x", win.x + templ->w / 2, "y", win.y + templ->h / 2, "levels", levels);
	*result_json = res ? sw__json_compact(res) : NULL;
	json_decref(res);
	if (!*result_json)
		rc = sw__error_nomem(err);
out:
	for (int l = 0; l < MAX_LEVELS; l++) {
		level_free(&sl[l]);
		level_free(&tl[l]);
		free(ts[l].z);
	}
	return rc;
}
