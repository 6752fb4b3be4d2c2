/*
 * latency.c: the latency profile of the virtual device and its count of adb invocations.
 *
 * Every adb invocation the device serves (one `adb shell`/`adb exec-out` command, one sync session, one line
 * of an interactive shell) gets a modelled cost in milliseconds: what the same command costs on an x86_64
 * Android emulator (bench/README.md gives each figure and its source). With `--latency emulator[:SCALE]`
 * the device sleeps that cost times SCALE before it answers, so benchmarks see a realistic clock in a
 * fraction of the time; with `--stats FILE` it appends one JSON line per invocation (the command, the bytes
 * it printed, the modelled cost), whether the profile is on or off.
 */
#include "vdevice.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every invocation: the adb round trip and the device shell's start. */
#define BASE_MS 30.0
/* Moving bytes over adb: about 10 MB/s on an emulator (0.1 ms per KB). */
#define TRANSFER_MS_PER_BYTE (1.0 / 10000.0)

bool vd_latency_parse(const char *s, struct vd_options *o)
{
	if (!s || !*s || strcmp(s, "off") == 0) {
		o->latency = false;
		return true;
	}
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	if (n != 8 || strncmp(s, "emulator", 8) != 0)
		return false;
	double scale = 1.0;
	if (colon) {
		char *end;
		errno = 0;
		scale = strtod(colon + 1, &end);
		if (errno || *end || !(scale > 0.0) || scale > 10.0)
			return false;
	}
	o->latency = true;
	o->latency_scale = scale;
	return true;
}

static bool is(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}

/* The modelled cost of one program, in milliseconds (bench/README.md, "The latency profile"). */
static double cost_of(int argc, char **argv, size_t out_bytes)
{
	const char *p = argc > 0 ? argv[0] : "";
	const char *base = strrchr(p, '/');
	p = base ? base + 1 : p;
	const char *a1 = argc > 1 ? argv[1] : "";
	if (is(p, "uiautomator"))
		return is(a1, "dump") ? 2100.0 : 600.0;
	if (is(p, "input")) {
		/* tap, text, keyevent: the Java process start dominates; a swipe also lasts its duration */
		for (int i = 1; i < argc; i++)
			if (is(argv[i], "swipe") || is(argv[i], "draganddrop")) {
				double dur = argc - i == 6 ? atof(argv[argc - 1]) : 300.0;
				return 600.0 + (dur > 0 ? dur : 0);
			}
		return 600.0;
	}
	if (is(p, "screencap")) {
		for (int i = 1; i < argc; i++) {
			size_t n = strlen(argv[i]);
			if (is(argv[i], "-p") || (n > 4 && strcmp(argv[i] + n - 4, ".png") == 0))
				return 1500.0;
		}
		return 700.0;
	}
	if (is(p, "dumpsys")) {
		if (is(a1, "gfxinfo") || is(a1, "input_method") || is(a1, "battery"))
			return 100.0;
		if (is(a1, "window") || is(a1, "activity") || is(a1, "package"))
			return 300.0;
		return 200.0;
	}
	if (is(p, "logcat")) {
		for (int i = 1; i < argc; i++)
			if (is(argv[i], "-c"))
				return 50.0;
		return 20.0 + (double)out_bytes / 5000.0; /* reading and formatting: about 5 MB/s */
	}
	if (is(p, "am") || is(p, "monkey"))
		return 1000.0;
	if (is(p, "pm") || is(p, "cmd"))
		return 500.0;
	if (is(p, "settings") || is(p, "wm"))
		return 300.0;
	if (is(p, "sleep") && argc > 1)
		return atof(argv[1]) * 1000.0;
	return 2.0; /* toybox programs: echo, cat, getprop, date, grep... */
}

void vd_latency_begin(struct vd_device *d)
{
	d->inv_model_ms = BASE_MS;
}

void vd_latency_charge(struct vd_device *d, int argc, char **argv, size_t out_bytes)
{
	d->inv_model_ms += cost_of(argc, argv, out_bytes);
}

void vd_json_str(FILE *f, const char *s, size_t max)
{
	fputc('"', f);
	size_t n = 0;
	for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c && n < max; c++, n++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20 || *c >= 0x7f)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

void vd_latency_end(struct vd_device *d, const char *service, const char *cmd, size_t bytes)
{
	double ms = d->inv_model_ms + (double)bytes * TRANSFER_MS_PER_BYTE;
	d->inv_model_ms = 0;
	d->inv_seq++;
	if (d->opt.stats_path && !d->stats) {
		d->stats = fopen(d->opt.stats_path, "a");
		if (!d->stats) {
			fprintf(stderr, "vdevice: cannot open the stats file %s: %s\n", d->opt.stats_path,
			        strerror(errno));
			d->opt.stats_path = NULL;
		}
	}
	if (d->stats) {
		fprintf(d->stats, "{\"seq\":%ld,\"service\":", d->inv_seq);
		vd_json_str(d->stats, service, 32);
		fputs(",\"cmd\":", d->stats);
		vd_json_str(d->stats, cmd, 4000);
		fprintf(d->stats, ",\"bytes\":%zu,\"modelMs\":%.1f,\"latency\":%s}\n", bytes, ms,
		        d->opt.latency ? "true" : "false");
		fflush(d->stats);
	}
	if (d->opt.latency && ms > 0) {
		double wall = ms * d->opt.latency_scale;
		struct timespec ts = {(time_t)(wall / 1000.0), (long)((wall - (double)(long)(wall / 1000.0) * 1000.0) * 1e6)};
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
}
