/* bench-visual.c: diff of two 1080 x 2400 screenshots and a 200 x 80 template search, against decoding the two PNGs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <swipium/swipium.h>

/*
 * Usage: bench-visual [RUNS]   (default 15)
 * Builds two screen-like 1080 x 2400 images (status bar, text rows in a blocky font, buttons, a few
 * differences between the two), encodes them as PNG, then times in the same run (median of RUNS):
 *   baseline: sw_image_decode of both PNGs,
 *   diff:     sw_visual_diff of the two images, picture of the difference included,
 *   encode:   sw_image_encode of that picture (what qa_visual saves as the diff artifact),
 *   find:     sw_visual_find_image of a 200 x 80 crop of the second screen,
 * and prints each against the baseline. For scale, it also times a full-resolution brute-force NCC at 2,000
 * positions and extrapolates to every position of the template on the screen.
 */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void check(int rc, sw_error *err, const char *what)
{
	if (rc != SW_OK) {
		fprintf(stderr, "bench-visual: %s failed: %s\n", what, err ? sw_error_message(err) : sw_strerror(rc));
		exit(1);
	}
}

/* A 5 x 7 "glyph" drawn 4x, from a seed (deterministic). */
static void glyph(sw_image *img, int x, int y, unsigned seed, unsigned rgb)
{
	for (int r = 0; r < 7; r++)
		for (int c = 0; c < 5; c++) {
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) & 1)
				sw_image_fill(img, x + c * 4, y + r * 4, 4, 4, rgb);
		}
}

static sw_image *screen(int variant)
{
	sw_image *img = NULL;
	check(sw_image_new(1080, 2400, NULL, &img, NULL), NULL, "image");
	sw_image_fill(img, 0, 0, 1080, 2400, 0xffffff);
	sw_image_fill(img, 0, 0, 1080, 63, 0x202124);
	sw_image_fill(img, 0, 2337, 1080, 63, 0x000000);
	for (int row = 0; row < 13; row++) {
		int y = 230 + row * 160;
		int chars = 6 + (row * 7) % 14;
		for (int i = 0; i < chars; i++) {
			unsigned seed = (unsigned)(row * 131 + i * 17 + (variant && (row == 4 || row == 9) ? 999 : 0));
			glyph(img, 60 + i * 24, y + 40, seed, 0x202124);
		}
		sw_image_fill(img, 60, y + 150, 960, 2, 0xdadce0);
	}
	sw_image_fill(img, 60, 2150, 960, 140, variant ? 0x1565c0 : 0x1a73e8);
	for (int i = 0; i < 7; i++)
		glyph(img, 450 + i * 24, 2200, (unsigned)(7000 + i), 0xffffff);
	return img;
}

/* Full-resolution NCC of the template at (x, y): what a brute-force search pays per position. */
static double ncc_at(const float *s, int sw, const float *t, int tw, int th, double tmean, double tnorm, int x, int y)
{
	double ws = 0, wq = 0, dot = 0;
	for (int r = 0; r < th; r++) {
		const float *p = s + (size_t)(y + r) * (size_t)sw + (size_t)x, *q = t + (size_t)r * (size_t)tw;
		for (int c = 0; c < tw; c++) {
			ws += p[c];
			wq += (double)p[c] * p[c];
			dot += (double)p[c] * (q[c] - tmean);
		}
	}
	double n = (double)tw * th, var = wq - ws * ws / n;
	return var > 0 && tnorm > 0 ? dot / (sqrt(var) * tnorm) : 0;
}

static float *gray(const sw_image *img)
{
	size_t n = (size_t)sw_image_width(img) * (size_t)sw_image_height(img);
	float *g = malloc(n * sizeof(float));
	const unsigned char *p = sw_image_pixels(img);
	for (size_t i = 0; g && i < n; i++)
		g[i] = (float)(p[i * 4] * 0.299 + p[i * 4 + 1] * 0.587 + p[i * 4 + 2] * 0.114);
	return g;
}

static double brute_force_estimate(const sw_image *screen, const sw_image *templ)
{
	int sw = sw_image_width(screen), sh = sw_image_height(screen);
	int tw = sw_image_width(templ), th = sw_image_height(templ);
	float *s = gray(screen), *t = gray(templ);
	if (!s || !t)
		exit(1);
	double mean = 0, norm = 0;
	for (int i = 0; i < tw * th; i++)
		mean += t[i];
	mean /= tw * th;
	for (int i = 0; i < tw * th; i++)
		norm += (t[i] - mean) * (t[i] - mean);
	norm = sqrt(norm);
	const int probes = 2000;
	double sink = 0, t0 = now_s();
	for (int i = 0; i < probes; i++)
		sink += ncc_at(s, sw, t, tw, th, mean, norm, (i * 7919) % (sw - tw + 1), (i * 104729) % (sh - th + 1));
	double per = (now_s() - t0) / probes;
	free(s);
	free(t);
	if (sink == 12345.678)
		printf(" ");
	return per * (double)(sw - tw + 1) * (double)(sh - th + 1);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 15;
	if (runs < 1 || runs > 1000) {
		fprintf(stderr, "usage: bench-visual [RUNS 1..1000]\n");
		return 2;
	}
	sw_image *a = screen(0), *b = screen(1), *t = NULL;
	unsigned char *pa = NULL, *pb = NULL;
	size_t la = 0, lb = 0;
	check(sw_image_encode(a, &pa, &la, NULL), NULL, "encode a");
	check(sw_image_encode(b, &pb, &lb, NULL), NULL, "encode b");
	check(sw_image_crop(b, 420, 2150, 200, 80, &t, NULL), NULL, "crop");
	double *dec = calloc((size_t)runs, sizeof(double)), *dif = calloc((size_t)runs, sizeof(double));
	double *enc = calloc((size_t)runs, sizeof(double)), *fnd = calloc((size_t)runs, sizeof(double));
	if (!dec || !dif || !enc || !fnd)
		return 1;
	char *last_diff = NULL, *last_find = NULL;
	size_t diff_png_len = 0;
	for (int r = 0; r < runs; r++) {
		sw_image *da = NULL, *db = NULL, *pic = NULL;
		sw_error *err = NULL;
		double t0 = now_s();
		check(sw_image_decode(pa, la, &da, &err), err, "decode a");
		check(sw_image_decode(pb, lb, &db, &err), err, "decode b");
		double t1 = now_s();
		char *res = NULL;
		check(sw_visual_diff(da, db, NULL, &res, &pic, &err), err, "diff");
		double t2 = now_s();
		unsigned char *dp = NULL;
		check(sw_image_encode(pic, &dp, &diff_png_len, &err), err, "encode diff");
		double t3 = now_s();
		char *fres = NULL;
		check(sw_visual_find_image(db, t, NULL, &fres, &err), err, "find");
		double t4 = now_s();
		dec[r] = t1 - t0;
		dif[r] = t2 - t1;
		enc[r] = t3 - t2;
		fnd[r] = t4 - t3;
		sw_free(last_diff);
		sw_free(last_find);
		last_diff = res;
		last_find = fres;
		sw_free(dp);
		sw_image_free(da);
		sw_image_free(db);
		sw_image_free(pic);
	}
	qsort(dec, (size_t)runs, sizeof(double), cmp_double);
	qsort(dif, (size_t)runs, sizeof(double), cmp_double);
	qsort(enc, (size_t)runs, sizeof(double), cmp_double);
	qsort(fnd, (size_t)runs, sizeof(double), cmp_double);
	double d = dec[runs / 2];
	printf("screens: 1080 x 2400, PNGs of %zu and %zu bytes; template 200 x 80; median of %d runs\n", la, lb, runs);
	printf("baseline  decode both PNGs        %8.2f ms\n", d * 1e3);
	printf("diff      ratio+regions+picture   %8.2f ms  = %.2f x decode\n", dif[runs / 2] * 1e3, dif[runs / 2] / d);
	printf("encode    diff picture (%zu bytes) %8.2f ms  = %.2f x decode\n", diff_png_len, enc[runs / 2] * 1e3,
	       enc[runs / 2] / d);
	printf("find      200 x 80 template       %8.2f ms  = %.2f x decode\n", fnd[runs / 2] * 1e3, fnd[runs / 2] / d);
	double brute = brute_force_estimate(b, t);
	printf("brute     full-resolution NCC     %8.0f ms  = %.0f x decode (estimated from 2,000 positions)\n",
	       brute * 1e3, brute / d);
	printf("diff result: %.300s\n", last_diff);
	printf("find result: %s\n", last_find);
	sw_free(last_diff);
	sw_free(last_find);
	sw_free(pa);
	sw_free(pb);
	sw_image_free(a);
	sw_image_free(b);
	sw_image_free(t);
	free(dec);
	free(dif);
	free(enc);
	free(fnd);
	return 0;
}
