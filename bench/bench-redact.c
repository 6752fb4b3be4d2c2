/* bench-redact.c: redaction throughput with 1, 10 and 200 secrets over 50 MB, against memchr in the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <swipium/swipium.h>

#define TEXT_MB 50
#define ROUNDS 5

/* CPU time of this thread: the machine may be shared, and waiting for a core is not redaction cost. */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void make_secret(char *out, size_t len)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	for (size_t i = 0; i < len; i++)
		out[i] = alphabet[next_rand() % (sizeof(alphabet) - 1)];
	out[len] = '\0';
}

/* Log-like text: words, numbers, JSON fragments; one of @secrets every ~64 KB. */
static char *make_text(size_t size, char secrets[][40], size_t nsecrets)
{
	static const char *const words[] = {"the",      "session",         "tap",
	                                    "button",   "login",           "2026-11-30T12:00:00Z",
	                                    "INFO",     "{\"id\":",        "\"text\":",
	                                    "screen",   "12345",           "ok",
	                                    "activity", "com.example.app", "[0,0][1080,2400]",
	                                    "password", "field",           "\n"};
	char *t = malloc(size + 64);
	if (!t)
		return NULL;
	size_t n = 0, next_secret = 65536;
	while (n < size) {
		const char *w = words[next_rand() % (sizeof(words) / sizeof(words[0]))];
		if (n >= next_secret && nsecrets) {
			w = secrets[next_rand() % nsecrets];
			next_secret += 65536;
		}
		size_t l = strlen(w);
		if (n + l + 1 > size)
			break;
		memcpy(t + n, w, l);
		n += l;
		t[n++] = ' ';
	}
	memset(t + n, ' ', size - n);
	t[size] = '\0';
	return t;
}

static volatile char absent = '\x01';
static const void *volatile sink;

static double time_memchr(const char *t, size_t size)
{
	double best = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_s();
		sink = memchr(t, absent, size); /* absent: a full pass */
		double dt = now_s() - t0;
		if (dt < best)
			best = dt;
	}
	return best;
}

static double time_redact(sw_redactor *r, const char *t, size_t size, size_t *replaced_out)
{
	double best = 1e9;
	for (int k = 0; k < ROUNDS; k++) {
		char *out = NULL;
		size_t out_len = 0;
		double t0 = now_s();
		if (sw_redactor_redact_text(r, t, size, &out, &out_len, NULL, NULL) != SW_OK) {
			fprintf(stderr, "redaction failed\n");
			exit(1);
		}
		double dt = now_s() - t0;
		size_t replaced = 0;
		for (const char *p = out; (p = strstr(p, SW_REDACTED_MARKER)); p++)
			replaced++;
		*replaced_out = replaced;
		free(out);
		if (dt < best)
			best = dt;
	}
	return best;
}

int main(void)
{
	static char secrets[200][40];
	for (size_t i = 0; i < 200; i++)
		make_secret(secrets[i], 12 + next_rand() % 20);
	size_t size = (size_t)TEXT_MB << 20;
	char *text = make_text(size, secrets, 200);
	if (!text) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	double base = time_memchr(text, size);
	printf("text: %d MB; best of %d runs, thread CPU time; memchr: %.4f s (%.0f MB/s)\n", TEXT_MB, ROUNDS, base,
	       TEXT_MB / base);
	const size_t counts[] = {1, 10, 200};
	double first = 0;
	for (size_t c = 0; c < 3; c++) {
		sw_redactor *r = NULL;
		if (sw_redactor_new(&r, NULL) != SW_OK)
			return 1;
		for (size_t i = 0; i < counts[c]; i++)
			sw_redactor_add_secret(r, secrets[i], NULL);
		size_t replaced = 0;
		double dt = time_redact(r, text, size, &replaced);
		if (c == 0)
			first = dt;
		printf("secrets: %3zu  redact: %.4f s (%.0f MB/s)  ratio to memchr: %.1fx  ratio to 1 secret: %.2fx  "
		       "replaced: %zu\n",
		       counts[c], dt, TEXT_MB / dt, dt / base, dt / first, replaced);
		sw_redactor_free(r);
	}
	free(text);
	return 0;
}
