/* bench-snapshot.c: cost of one snapshot of a 2,000-node dump against a bare libxml2 parse, and element-line bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <libxml/parser.h>
#include <swipium/swipium.h>

/*
 * Usage: bench-snapshot [SOURCE_ROOT]
 * 1. Builds a 2,000-node uiautomator dump (a scrolling list of 400 rows, each a clickable row with a title, a
 *    subtitle, an icon and a switch) and times, in the same run:
 *      baseline: xmlReadMemory + xmlFreeDoc of the dump,
 *      snapshot: sw_snapshot_take_xml (parse, elements, refs against the previous snapshot, cap, lines, JSON).
 *    Prints both per call and their ratio.
 * 2. For each sample screen (the login and dialog dumps in tests/data/uiautomator, plus the generated dump), prints the
 * bytes of `elements` as element lines and as one JSON object per element, and the ratio (target <= 60%).
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

static char *make_dump(size_t *len)
{
	size_t cap = 1 << 22, n = 0;
	char *b = malloc(cap);
	if (!b)
		exit(1);
#define PUT(...) (n += (size_t)snprintf(b + n, cap - n, __VA_ARGS__))
	PUT("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">");
	PUT("<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
	    "package=\"com.example.list\" "
	    "content-desc=\"\" checkable=\"false\" checked=\"false\" clickable=\"false\" enabled=\"true\" "
	    "focusable=\"false\" "
	    "focused=\"false\" scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" "
	    "bounds=\"[0,0][1080,2400]\">");
	PUT("<node index=\"0\" text=\"\" resource-id=\"com.example.list:id/list\" class=\"androidx.recyclerview.widget."
	    "RecyclerView\" package=\"com.example.list\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
	    "clickable=\"false\" enabled=\"true\" focusable=\"true\" focused=\"false\" scrollable=\"true\" "
	    "long-clickable=\"false\" password=\"false\" selected=\"false\" bounds=\"[0,210][1080,2337]\">");
	/* 2 + 400 * 5 = 2,002 nodes */
	for (int i = 0; i < 400; i++) {
		int y = 210 + (i * 160) % 2100;
		const char *attrs =
		    "package=\"com.example.list\" checkable=\"false\" checked=\"false\" enabled=\"true\" "
		    "focusable=\"false\" focused=\"false\" scrollable=\"false\" long-clickable=\"false\" "
		    "password=\"false\" selected=\"false\"";
		PUT("<node index=\"%d\" text=\"\" resource-id=\"com.example.list:id/row\" "
		    "class=\"android.widget.LinearLayout\" "
		    "content-desc=\"\" clickable=\"true\" %s bounds=\"[0,%d][1080,%d]\">",
		    i, attrs, y, y + 160);
		PUT("<node index=\"0\" text=\"\" resource-id=\"com.example.list:id/icon\" "
		    "class=\"android.widget.ImageView\" "
		    "content-desc=\"\" clickable=\"false\" %s bounds=\"[40,%d][140,%d]\" />",
		    attrs, y + 30, y + 130);
		PUT("<node index=\"1\" text=\"Item %d\" resource-id=\"com.example.list:id/row_title\" "
		    "class=\"android.widget.TextView\" content-desc=\"\" clickable=\"false\" %s "
		    "bounds=\"[180,%d][800,%d]\" />",
		    i, attrs, y + 20, y + 80);
		PUT("<node index=\"2\" text=\"Subtitle of item %d with some detail\" "
		    "resource-id=\"com.example.list:id/row_sub\" "
		    "class=\"android.widget.TextView\" content-desc=\"\" clickable=\"false\" %s "
		    "bounds=\"[180,%d][800,%d]\" />",
		    i, attrs, y + 90, y + 140);
		PUT("<node index=\"3\" text=\"\" resource-id=\"com.example.list:id/fav\" "
		    "class=\"android.widget.Switch\" "
		    "content-desc=\"Favorite %d\" clickable=\"true\" %s bounds=\"[900,%d][1040,%d]\" />",
		    i, attrs, y + 40, y + 120);
		PUT("</node>");
	}
	PUT("</node></node></hierarchy>");
#undef PUT
	*len = n;
	return b;
}

static size_t elements_bytes(sw_snapshot_tracker *t, const char *xml, size_t len, const char *opts)
{
	char *out = NULL;
	if (sw_snapshot_take_xml(t, xml, len, opts, &out, NULL) != SW_OK)
		return 0;
	json_t *j = json_loads(out, 0, NULL);
	sw_free(out);
	char *e = json_dumps(json_object_get(j, "elements"), JSON_COMPACT);
	size_t n = e ? strlen(e) : 0;
	free(e);
	json_decref(j);
	return n;
}

static void compare(const char *name, const char *xml, size_t len)
{
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	size_t lines = elements_bytes(t, xml, len, NULL);
	size_t objects = elements_bytes(t, xml, len, "{\"verbose\":true}");
	sw_snapshot_tracker_free(t);
	if (!lines || !objects)
		return;
	printf("  %-22s lines %6zu B   objects %6zu B   lines/objects %5.1f%%\n", name, lines, objects,
	       100.0 * (double)lines / (double)objects);
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : getenv("SWIPIUM_SOURCE_ROOT");
	size_t len;
	char *dump = make_dump(&len);
	const int iters = 300;

	/* warm up both paths */
	sw_snapshot_tracker *t = NULL;
	sw_snapshot_tracker_new(&t, NULL);
	for (int i = 0; i < 20; i++) {
		xmlFreeDoc(xmlReadMemory(dump, (int)len, "x.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS));
		char *out = NULL;
		sw_snapshot_take_xml(t, dump, len, NULL, &out, NULL);
		sw_free(out);
	}
	/* interleaved, so both see the same machine load; the median and the minimum of each */
	double *bt = calloc((size_t)iters, sizeof(double)), *st = calloc((size_t)iters, sizeof(double));
	if (!bt || !st)
		return 1;
	for (int i = 0; i < iters; i++) {
		double t0 = now_s();
		xmlFreeDoc(xmlReadMemory(dump, (int)len, "x.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS));
		bt[i] = now_s() - t0;
		char *out = NULL;
		t0 = now_s();
		if (sw_snapshot_take_xml(t, dump, len, NULL, &out, NULL) != SW_OK) {
			fprintf(stderr, "bench-snapshot: the generated dump did not parse\n");
			return 1;
		}
		st[i] = now_s() - t0;
		sw_free(out);
	}
	qsort(bt, (size_t)iters, sizeof(double), cmp_double);
	qsort(st, (size_t)iters, sizeof(double), cmp_double);
	double base = bt[iters / 2], snap = st[iters / 2];
	double base_min = bt[0], snap_min = st[0];
	/* Back to back: what a server pays per snapshot, without the heap and page-fault work a freed
	 * libxml2 tree leaves behind for whoever allocates next in the interleaved loop. */
	for (int i = 0; i < iters; i++) {
		char *out = NULL;
		double t0 = now_s();
		if (sw_snapshot_take_xml(t, dump, len, NULL, &out, NULL) != SW_OK)
			return 1;
		st[i] = now_s() - t0;
		sw_free(out);
	}
	qsort(st, (size_t)iters, sizeof(double), cmp_double);
	double b2b = st[iters / 2], b2b_min = st[0];
	free(bt);
	free(st);
	sw_snapshot_tracker_free(t);
	printf("snapshot of a 2,002-node dump (%zu bytes), %d runs each:\n", len, iters);
	printf("  libxml2 parse only (baseline)  median %8.3f ms   min %8.3f ms\n", base * 1e3, base_min * 1e3);
	printf(
	    "  full snapshot (parse + lines)  median %8.3f ms   min %8.3f ms   (%.2fx the bare parse; target < 2 ms)\n",
	    snap * 1e3, snap_min * 1e3, snap / base);
	printf("  full snapshot, back to back    median %8.3f ms   min %8.3f ms   (%.2fx the bare parse)\n", b2b * 1e3,
	       b2b_min * 1e3, b2b / base);

	printf("elements an agent reads, element lines vs one JSON object per element (target <= 60%%):\n");
	const char *samples[] = {"login.xml", "dialog.xml"};
	for (size_t i = 0; root && i < sizeof(samples) / sizeof(samples[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/tests/data/uiautomator/%s", root, samples[i]);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		char *buf = malloc(1 << 20);
		size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
		fclose(f);
		if (n)
			compare(samples[i], buf, n);
		free(buf);
	}
	compare("list-2000-nodes", dump, len);
	free(dump);
	return 0;
}
