/* options.c: the one options loader: unknown keys and wrong types are INVALID_ARGUMENT, never ignored. */
#include <string.h>

#include "sw-internal.h"

static const char *type_name(sw__opt_type t)
{
	switch (t) {
	case SW__OPT_STRING: return "a string";
	case SW__OPT_BOOL: return "a boolean";
	case SW__OPT_INTEGER: return "an integer";
	case SW__OPT_NUMBER: return "a number";
	case SW__OPT_OBJECT: return "an object";
	case SW__OPT_ARRAY: return "an array";
	case SW__OPT_STRING_ARRAY: return "an array of strings";
	case SW__OPT_ANY: break;
	}
	return "any value";
}

static bool type_ok(const sw__opt *o, const json_t *v)
{
	if (json_is_null(v) && o->nullable)
		return true;
	switch (o->type) {
	case SW__OPT_STRING: return json_is_string(v);
	case SW__OPT_BOOL: return json_is_boolean(v);
	case SW__OPT_INTEGER: return json_is_integer(v);
	case SW__OPT_NUMBER: return json_is_number(v);
	case SW__OPT_OBJECT: return json_is_object(v);
	case SW__OPT_ARRAY: return json_is_array(v);
	case SW__OPT_STRING_ARRAY: {
		if (!json_is_array(v))
			return false;
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) if (!json_is_string(e)) return false;
		return true;
	}
	case SW__OPT_ANY: return true;
	}
	return false;
}

static const sw__opt *find(const sw__opt *spec, const char *key)
{
	for (const sw__opt *o = spec; o && o->name; o++)
		if (!strcmp(o->name, key))
			return o;
	return NULL;
}

int sw__options_check(const json_t *opts, const sw__opt *spec, const char *what, sw_error **err)
{
	if (!opts)
		return SW_OK;
	if (!json_is_object(opts))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass a JSON object.", "%s must be a JSON object",
		                     what);
	sw_buf unknown = SW_BUF_INIT, wrong = SW_BUF_INIT, accepted = SW_BUF_INIT;
	json_t *names = json_array(), *types = json_array();
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)opts, key, v)
	{
		const sw__opt *o = find(spec, key);
		if (!o) {
			sw__buf_printf(&unknown, "%s\"%s\"", unknown.len ? ", " : "", key);
			json_array_append_new(names, json_string(key));
		} else if (!type_ok(o, v)) {
			sw__buf_printf(&wrong, "%s\"%s\" must be %s%s", wrong.len ? "; " : "", key, type_name(o->type),
			               o->nullable ? " or null" : "");
			json_array_append_new(types, json_string(key));
		}
	}
	int rc = SW_OK;
	if (unknown.len || wrong.len) {
		for (const sw__opt *o = spec; o && o->name; o++)
			sw__buf_printf(&accepted, "%s%s", accepted.len ? ", " : "", o->name);
		rc = sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "%s: %s%s%s%s (accepted: %s)", what,
		                   unknown.len ? "unknown option " : "", unknown.len ? unknown.data : "",
		                   unknown.len && wrong.len ? "; " : "", wrong.len ? wrong.data : "",
		                   accepted.len ? accepted.data : "none");
		if (err && *err)
			sw__error_take_details(*err, json_pack("{s:O,s:O}", "unknownOptions", names, "wrongTypes", types));
	}
	json_decref(names);
	json_decref(types);
	sw__buf_free(&unknown);
	sw__buf_free(&wrong);
	sw__buf_free(&accepted);
	return rc;
}

int sw__options_load(const char *text, const sw__opt *spec, const char *what, json_t **out, sw_error **err)
{
	*out = NULL;
	json_t *o = NULL;
	if (text && text[0]) {
		json_error_t je;
		o = json_loads(text, JSON_DECODE_ANY, &je);
		if (!o)
			return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass a JSON object.",
			                     "%s are not valid JSON: %s", what, je.text);
	} else {
		o = json_object();
		if (!o)
			return sw__error_nomem(err);
	}
	int rc = sw__options_check(o, spec, what, err);
	if (rc < 0) {
		json_decref(o);
		return rc;
	}
	*out = o;
	return SW_OK;
}

int sw__opt_whole(const json_t *opts, const char *key, long def, long min, long clamp, long *out, json_t *notes,
                  sw_error **err)
{
	json_t *v = json_object_get(opts, key);
	*out = def;
	if (!v)
		return SW_OK;
	double d = json_number_value(v);
	if (!json_is_number(v) || d != (double)(long long)d || d < (double)min)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", "Pass a whole number.",
		                     "%s must be a whole number, %ld or more", key, min);
	if (d > (double)clamp) {
		if (notes)
			json_array_append_new(notes, json_sprintf("%s %.0f was clamped to %ld", key, d, clamp));
		d = (double)clamp;
	}
	*out = (long)d;
	return SW_OK;
}
