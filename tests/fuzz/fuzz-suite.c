/* fuzz-suite.c: libFuzzer target for POM YAML (page objects, tests, suites): the hostile-input loader, element
 * locators with their audit, and the quoting every compiled flow's text goes through. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../libswipium/suite/suite-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every string value (and key) of @v must come back unchanged through "k: <quoted>". */
static void check_round_trip(const json_t *v, const char *key)
{
	if (key) {
		sw_buf b = SW_BUF_INIT;
		sw__buf_puts(&b, "k: ");
		sw__suite_yaml_quote(&b, key);
		size_t len = 0;
		char *text = sw__buf_steal(&b, &len);
		json_t *doc = NULL;
		if (!text || sw__suite_yaml_load(text, len, NULL, "INVALID_FLOW", &doc, NULL) != SW_OK ||
		    strcmp(json_string_value(json_object_get(doc, "k")), key) != 0)
			abort();
		json_decref(doc);
		free(text);
	}
	if (json_is_string(v)) {
		check_round_trip(NULL, json_string_value(v));
	} else if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x) check_round_trip(x, NULL);
	} else if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)v, k, x)
		{
			check_round_trip(NULL, k);
			check_round_trip(x, NULL);
		}
	}
}

/*
 * Input: the bytes of a YAML file. Properties: nothing crashes or leaks; a refusal always names the file
 * and line; what loads is an object whose every text survives quoting; every element of `elements:` is a
 * locator or a reason why not, and the audit of a locator never fails.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = NULL;
	sw_error *err = NULL;
	if (sw__suite_yaml_load((const char *)data, size, "f.yaml", "INVALID_FLOW", &doc, &err) != SW_OK) {
		if (!err || strncmp(sw_error_message(err), "f.yaml:", 7) != 0)
			abort();
		sw_error_free(err);
		return 0;
	}
	if (!json_is_object(doc))
		abort();
	check_round_trip(doc, NULL);
	json_t *items = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(doc, "elements"), k, v)
	{
		const char *why = NULL;
		json_t *loc = sw__suite_locator_parse(v, &why);
		if (!loc && !why)
			abort();
		if (loc) {
			sw__suite_lint_locator("f.yaml", "P", k, loc, items);
			char *sel = sw__suite_locator_selector(loc);
			free(sel);
		}
		json_decref(loc);
	}
	json_decref(items);
	json_decref(doc);
	return 0;
}
