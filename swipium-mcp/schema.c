/* schema.c: the JSON Schema subset tool arguments are checked against, and canonical JSON for hashing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

static void problem(json_t *problems, const char *path, const char *msg)
{
	json_array_append_new(problems, json_pack("{s:s,s:s}", "path", path[0] ? path : "(arguments)", "message", msg));
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "object";
	case JSON_ARRAY: return "array";
	case JSON_STRING: return "string";
	case JSON_INTEGER: return "integer";
	case JSON_REAL: return "number";
	case JSON_TRUE:
	case JSON_FALSE: return "boolean";
	case JSON_NULL: return "null";
	}
	return "unknown";
}

static bool type_matches(const char *want, const json_t *v)
{
	if (!strcmp(want, "number"))
		return json_is_number(v);
	if (!strcmp(want, "integer")) {
		if (json_is_integer(v))
			return true;
		/* 3.0 is an integer in JSON Schema. */
		return json_is_real(v) && isfinite(json_real_value(v)) &&
		       floor(json_real_value(v)) == json_real_value(v);
	}
	return !strcmp(want, type_name(v));
}

static void join_path(char *out, size_t n, const char *base, const char *key)
{
	/* The caller's key is shown capped at 100 characters; the whole path never ends inside a character. */
	char *k = sw_text_cap(key, (size_t)-1, 100, SW_CAP_HEAD_TAIL);
	if (base[0])
		sw_text_snprintf(out, n, "%s.%s", base, k ? k : "");
	else
		sw_text_snprintf(out, n, "%s", k ? k : "");
	sw_free(k);
}

void mcp_schema_validate(const json_t *schema, const json_t *value, const char *path, json_t *problems)
{
	if (!json_is_object(schema) || json_array_size(problems) >= 20)
		return;
	json_t *type = json_object_get(schema, "type");
	if (json_is_string(type)) {
		if (!type_matches(json_string_value(type), value)) {
			char msg[128];
			snprintf(msg, sizeof(msg), "Expected %s, received %s", json_string_value(type),
			         type_name(value));
			problem(problems, path, msg);
			return;
		}
	} else if (json_is_array(type)) {
		bool ok = false;
		size_t i;
		json_t *t;
		json_array_foreach(type, i, t)
		{
			if (json_is_string(t) && type_matches(json_string_value(t), value))
				ok = true;
		}
		if (!ok) {
			char msg[96];
			snprintf(msg, sizeof(msg), "Unexpected type %s", type_name(value));
			problem(problems, path, msg);
			return;
		}
	}
	json_t *en = json_object_get(schema, "enum");
	if (json_is_array(en)) {
		bool ok = false;
		size_t i;
		json_t *e;
		json_array_foreach(en, i, e)
		{
			if (json_equal(e, (json_t *)value))
				ok = true;
		}
		if (!ok) {
			char allowed[512] = "";
			size_t used = 0;
			json_array_foreach(en, i, e)
			{
				if (json_is_string(e) && used < sizeof(allowed) - 64)
					used += (size_t)snprintf(allowed + used, sizeof(allowed) - used, "%s'%s'",
					                         i ? " | " : "", json_string_value(e));
			}
			char msg[600];
			snprintf(msg, sizeof(msg), "Invalid enum value. Expected %s", allowed);
			problem(problems, path, msg);
			return;
		}
	}
	if (json_is_number(value)) {
		double d = json_number_value(value);
		json_t *min = json_object_get(schema, "minimum");
		json_t *max = json_object_get(schema, "maximum");
		char lim[96];
		if (json_is_number(min) && d < json_number_value(min)) {
			snprintf(lim, sizeof(lim), "Number must be greater than or equal to %g",
			         json_number_value(min));
			problem(problems, path, lim);
		}
		if (json_is_number(max) && d > json_number_value(max)) {
			snprintf(lim, sizeof(lim), "Number must be less than or equal to %g", json_number_value(max));
			problem(problems, path, lim);
		}
	}
	if (json_is_string(value)) {
		json_t *minl = json_object_get(schema, "minLength");
		if (json_is_integer(minl) && (json_int_t)json_string_length(value) < json_integer_value(minl))
			problem(problems, path, "String must not be empty");
	}
	if (json_is_array(value)) {
		json_t *items = json_object_get(schema, "items");
		size_t i;
		json_t *item;
		json_array_foreach(value, i, item)
		{
			char p[256];
			sw_text_snprintf(p, sizeof(p), "%s[%zu]", path[0] ? path : "", i);
			mcp_schema_validate(items, item, p, problems);
		}
	}
	if (json_is_object(value)) {
		json_t *props = json_object_get(schema, "properties");
		json_t *req = json_object_get(schema, "required");
		size_t i;
		json_t *r;
		json_array_foreach(req, i, r)
		{
			if (json_is_string(r) && !json_object_get(value, json_string_value(r))) {
				char p[256];
				join_path(p, sizeof(p), path, json_string_value(r));
				problem(problems, p, "Required");
			}
		}
		const char *key;
		json_t *v;
		json_t *addl = json_object_get(schema, "additionalProperties");
		json_object_foreach((json_t *)value, key, v)
		{
			char p[256];
			join_path(p, sizeof(p), path, key);
			json_t *ps = json_is_object(props) ? json_object_get(props, key) : NULL;
			if (ps)
				mcp_schema_validate(ps, v, p, problems);
			else if (json_is_object(addl))
				mcp_schema_validate(addl, v, p, problems);
			else if (json_is_false(addl) && path[0]) {
				char *k = sw_text_cap(key, (size_t)-1, 100, SW_CAP_HEAD_TAIL);
				char msg[600];
				sw_text_snprintf(msg, sizeof(msg), "Unrecognized key '%s'", k ? k : "");
				sw_free(k);
				problem(problems, p, msg);
			}
		}
	}
}

/* ---- canonical JSON ------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static json_t *canon(const json_t *v)
{
	if (json_is_object(v)) {
		size_t n = json_object_size(v);
		const char **keys = calloc(n ? n : 1, sizeof(char *));
		json_t *out = json_object();
		if (!keys || !out) {
			free(keys);
			json_decref(out);
			return NULL;
		}
		size_t i = 0;
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)v, k, x)
		{
			keys[i++] = k;
		}
		qsort(keys, n, sizeof(char *), cmp_str);
		for (i = 0; i < n; i++)
			json_object_set_new(out, keys[i], canon(json_object_get(v, keys[i])));
		free(keys);
		return out;
	}
	if (json_is_array(v)) {
		json_t *out = json_array();
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
		{
			json_array_append_new(out, canon(x));
		}
		return out;
	}
	return json_deep_copy(v);
}

char *mcp_canonical_json(const json_t *v)
{
	json_t *c = canon(v);
	if (!c)
		return NULL;
	char *t = json_dumps(c, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	json_decref(c);
	return t;
}
