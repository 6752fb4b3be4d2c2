/* fuzz-appscan.c: libFuzzer targets for the static scanner's tokenizers and the framework rules behind them.
 * Built once per language (FUZZ_LANG: 0 JS/TSX, 1 Kotlin (Kotlin, Groovy, Java by the first byte), 2 Swift, 3 Dart,
 * 4 XML (manifest, navigation graph, layout, storyboard by the first byte)): the input is tokenized directly (the
 * token list must stay inside the input, brackets must pair up) and then scanned as a project file, whose result
 * must be valid UTF-8 JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "appscan-internal.h"

#ifndef FUZZ_LANG
#define FUZZ_LANG 0
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tokens(sw__lang lang, const char *src, size_t len)
{
	sw__toks t;
	sw__tokenize(lang, src, len, &t);
	for (size_t i = 0; i < t.n; i++) {
		const sw__tok *k = &t.v[i];
		if ((size_t)k->off + k->len > len)
			abort(); /* a token outside the input */
		if (k->match >= 0) {
			if ((size_t)k->match >= t.n || t.v[k->match].match != (int32_t)i)
				abort(); /* brackets pair up both ways */
		}
		const char *v = sw__tok_str(&t, i);
		if (v && strlen(v) > len)
			abort();
	}
	sw__toks_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 * 1024)
		return 0;
	/* an exact-size copy so that ASan sees any read past the end */
	char *src = malloc(size ? size : 1);
	if (!src)
		abort();
	memcpy(src, data, size);
	const char *rel = "src/App.tsx";
	sw__lang lang = SW__LANG_JS;
	unsigned pick = size ? (unsigned char)src[0] % 3 : 0;
	switch (FUZZ_LANG) {
	case 0:
		rel = pick == 0 ? "src/App.tsx" : pick == 1 ? "app/(tabs)/index.tsx" : "src/routes.ts";
		lang = pick == 2 ? SW__LANG_TS : SW__LANG_JS;
		break;
	case 1:
		rel = pick == 0   ? "app/src/main/java/Nav.kt"
		      : pick == 1 ? "settings.gradle"
		                  : "app/src/main/java/A.java";
		lang = pick == 0 ? SW__LANG_KOTLIN : pick == 1 ? SW__LANG_GROOVY : SW__LANG_JAVA;
		break;
	case 2:
		rel = "App/Views.swift";
		lang = SW__LANG_SWIFT;
		break;
	case 3:
		rel = "lib/router.dart";
		lang = SW__LANG_DART;
		break;
	default:
		rel = pick == 0   ? "AndroidManifest.xml"
		      : pick == 1 ? "app/src/main/res/navigation/nav.xml"
		                  : "App/Main.storyboard";
		break;
	}
	if (FUZZ_LANG != 4)
		check_tokens(lang, src, size);
	char *out = NULL;
	if (sw__appscan_buffer(rel, src, size, &out) == SW_OK) {
		if (!sw__utf8_valid(out, strlen(out)))
			abort();
		json_t *j = json_loads(out, 0, NULL);
		if (!j)
			abort(); /* the result is always JSON */
		json_decref(j);
	}
	sw_free(out);
	free(src);
	return 0;
}
