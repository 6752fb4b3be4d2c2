/* yaml.c: repository YAML (page objects, tests, suites) read as hostile input, and Flow V2 text written quoted. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "../catalog/catalog-internal.h"
#include "suite-internal.h"

typedef struct yl {
	yaml_parser_t p;
	const char *path;
	const char *code;
	size_t nodes;
	sw_error **err;
} yl;

static int yerr(yl *y, const yaml_mark_t *m, const char *fmt, ...) SW_PRINTF(3, 4);
static int yerr(yl *y, const yaml_mark_t *m, const char *fmt, ...)
{
	char *raw = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	char *msg = sw__cap(raw ? raw : "", 400);
	char *where = sw__cap(y->path ? y->path : "(text)", 300);
	int rc = sw__error_set(y->err, sw__catalog_result(y->code, SW_EINVAL), y->code,
	                       "Fix the YAML file (docs/page-objects.md shows each shape) and try again.",
	                       "%s:%d:%d: %s", where ? where : "", m ? (int)m->line + 1 : 1, m ? (int)m->column + 1 : 1,
	                       msg ? msg : "");
	free(msg);
	free(where);
	free(raw);
	return rc;
}

static int next(yl *y, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&y->p, ev))
		return yerr(y, &y->p.problem_mark, "not valid YAML: %s%s%s", y->p.problem ? y->p.problem : "syntax error",
		            y->p.context ? " " : "", y->p.context ? y->p.context : "");
	return SW_OK;
}

/* An unquoted scalar as YAML 1.2's core schema reads it: integers, decimals, true/false; text otherwise. */
static json_t *typed_plain(const char *v, size_t n)
{
	static const char *const T[] = {"true", "True", "TRUE"}, *const F[] = {"false", "False", "FALSE"};
	for (size_t i = 0; i < 3; i++) {
		if (strlen(T[i]) == n && !strncmp(v, T[i], n))
			return json_true();
		if (strlen(F[i]) == n && !strncmp(v, F[i], n))
			return json_false();
	}
	if (n > 0 && n < 20) {
		char tmp[24];
		memcpy(tmp, v, n);
		tmp[n] = '\0';
		size_t i = (tmp[0] == '-' || tmp[0] == '+') ? 1 : 0, digits = 0, dots = 0;
		for (; tmp[i]; i++) {
			if (tmp[i] >= '0' && tmp[i] <= '9')
				digits++;
			else if (tmp[i] == '.')
				dots++;
			else
				break;
		}
		if (!tmp[i] && digits > 0 && dots <= 1)
			return dots ? json_real(strtod(tmp, NULL)) : json_integer((json_int_t)strtoll(tmp, NULL, 10));
	}
	return json_stringn(v, n);
}

static int build(yl *y, yaml_event_t *ev, int depth, json_t **out)
{
	const yaml_mark_t *m = &ev->start_mark;
	if (ev->type == YAML_ALIAS_EVENT)
		return yerr(y, m, "aliases (*name) are not allowed; write the value out");
	if (++y->nodes > SW_SUITE_YAML_MAX_NODES)
		return yerr(y, m, "more than %d YAML nodes; split the file", SW_SUITE_YAML_MAX_NODES);
	if (depth > SW_SUITE_YAML_MAX_DEPTH)
		return yerr(y, m, "nesting deeper than %d levels", SW_SUITE_YAML_MAX_DEPTH);
	if (ev->type == YAML_SCALAR_EVENT) {
		if (ev->data.scalar.anchor)
			return yerr(y, m, "anchors (&name) are not allowed; write each value out");
		if (ev->data.scalar.length > SW_SUITE_YAML_MAX_SCALAR)
			return yerr(y, m, "a value is longer than %d bytes", SW_SUITE_YAML_MAX_SCALAR);
		bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		if (ev->data.scalar.tag && !(plain && ev->data.scalar.plain_implicit) &&
		    strcmp((const char *)ev->data.scalar.tag, YAML_STR_TAG) != 0)
			return yerr(y, m, "YAML tags (%s) are not allowed", (const char *)ev->data.scalar.tag);
		const char *v = (const char *)ev->data.scalar.value;
		size_t n = ev->data.scalar.length;
		if (memchr(v, '\0', n))
			return yerr(y, m, "a value contains a NUL character");
		if (plain && (n == 0 || (n == 1 && v[0] == '~') || (n == 4 && !strncmp(v, "null", 4)))) {
			*out = json_null();
			return SW_OK;
		}
		*out = plain ? typed_plain(v, n) : json_stringn(v, n);
		return *out ? SW_OK : sw__error_nomem(y->err);
	}
	if (ev->type != YAML_SEQUENCE_START_EVENT && ev->type != YAML_MAPPING_START_EVENT)
		return yerr(y, m, "unexpected YAML structure");
	bool map = ev->type == YAML_MAPPING_START_EVENT;
	if (map ? (ev->data.mapping_start.anchor != NULL) : (ev->data.sequence_start.anchor != NULL))
		return yerr(y, m, "anchors (&name) are not allowed; write each value out");
	if (map ? (ev->data.mapping_start.tag != NULL) : (ev->data.sequence_start.tag != NULL))
		return yerr(y, m, "YAML tags are not allowed");
	json_t *node = map ? json_object() : json_array();
	if (!node)
		return sw__error_nomem(y->err);
	int rc = SW_OK;
	for (;;) {
		yaml_event_t kev;
		if ((rc = next(y, &kev)) < 0)
			break;
		if (kev.type == (map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT)) {
			yaml_event_delete(&kev);
			break;
		}
		yaml_mark_t km = kev.start_mark;
		json_t *k = NULL;
		rc = build(y, &kev, depth + 1, &k);
		yaml_event_delete(&kev);
		if (rc < 0)
			break;
		if (!map) {
			json_array_append_new(node, k);
			continue;
		}
		if (!json_is_string(k)) {
			json_decref(k);
			rc = yerr(y, &km, "a key must be a plain word, not a list, a map or null");
			break;
		}
		if (json_object_get(node, json_string_value(k))) {
			rc = yerr(y, &km, "duplicate key \"%s\"; keep only one", json_string_value(k));
			json_decref(k);
			break;
		}
		yaml_event_t vev;
		if ((rc = next(y, &vev)) < 0) {
			json_decref(k);
			break;
		}
		json_t *v = NULL;
		rc = build(y, &vev, depth + 1, &v);
		yaml_event_delete(&vev);
		if (rc < 0) {
			json_decref(k);
			break;
		}
		json_object_set_new(node, json_string_value(k), v);
		json_decref(k);
	}
	if (rc < 0) {
		json_decref(node);
		return rc;
	}
	*out = node;
	return SW_OK;
}

int sw__suite_yaml_load(const char *text, size_t len, const char *path, const char *failure_code, json_t **out,
                        sw_error **err)
{
	yl y = {.path = path, .code = failure_code, .err = err};
	if (len > SW_SUITE_YAML_MAX_BYTES)
		return yerr(&y, NULL, "the file is %zu bytes; at most %u are read", len, SW_SUITE_YAML_MAX_BYTES);
	if (!sw__utf8_valid(text, len))
		return yerr(&y, NULL, "the file is not valid UTF-8 text");
	if (!yaml_parser_initialize(&y.p))
		return sw__error_nomem(err);
	yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
	json_t *doc = NULL;
	int docs = 0, rc = SW_OK;
	for (;;) {
		yaml_event_t ev;
		if ((rc = next(&y, &ev)) < 0)
			break;
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			rc = yerr(&y, &ev.start_mark, "the file holds more than one YAML document; keep one");
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT || t == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		rc = build(&y, &ev, 0, &doc);
		yaml_event_delete(&ev);
		if (rc < 0)
			break;
	}
	yaml_parser_delete(&y.p);
	if (rc < 0) {
		json_decref(doc);
		return rc;
	}
	if (!json_is_object(doc)) {
		json_decref(doc);
		return yerr(&y, NULL, "the file must be a YAML map (keys such as name:); it is %s",
		            doc ? "a list or a single value" : "empty");
	}
	*out = doc;
	return SW_OK;
}

/* ---- writing ------------------------------------------------------------------------------------- */

void sw__suite_yaml_quote(sw_buf *b, const char *s)
{
	sw__buf_putc(b, '"');
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p);
	for (size_t i = 0; i < len;) {
		uint32_t cp = 0;
		size_t n = sw__utf8_decode(p + i, len - i, &cp);
		if (n == 0) {
			sw__buf_puts(b, "\\uFFFD");
			i++;
			continue;
		}
		if (cp == '"')
			sw__buf_puts(b, "\\\"");
		else if (cp == '\\')
			sw__buf_puts(b, "\\\\");
		else if (cp == '\n')
			sw__buf_puts(b, "\\n");
		else if (cp == '\t')
			sw__buf_puts(b, "\\t");
		else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
		         cp == 0xFEFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
			sw__buf_printf(b, "\\u%04X", (unsigned)cp);
		else
			sw__buf_append(b, p + i, n);
		i += n;
	}
	sw__buf_putc(b, '"');
}

static void scalar(sw_buf *b, const json_t *v)
{
	if (json_is_string(v))
		sw__suite_yaml_quote(b, json_string_value(v));
	else if (json_is_integer(v))
		sw__buf_printf(b, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		sw__buf_js_number(b, json_real_value(v));
	else if (json_is_true(v))
		sw__buf_puts(b, "true");
	else if (json_is_false(v))
		sw__buf_puts(b, "false");
	else
		sw__buf_puts(b, "null");
}

/* A flow-style value: scalars, arrays of scalars, objects of scalars. */
static void inline_value(sw_buf *b, const json_t *v)
{
	if (json_is_array(v)) {
		sw__buf_putc(b, '[');
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
		{
			if (i)
				sw__buf_puts(b, ", ");
			inline_value(b, x);
		}
		sw__buf_putc(b, ']');
	} else if (json_is_object(v)) {
		sw__buf_putc(b, '{');
		const char *k;
		json_t *x;
		bool first = true;
		json_object_foreach((json_t *)v, k, x)
		{
			if (!first)
				sw__buf_puts(b, ", ");
			first = false;
			sw__suite_yaml_quote(b, k);
			sw__buf_puts(b, ": ");
			inline_value(b, x);
		}
		sw__buf_putc(b, '}');
	} else {
		scalar(b, v);
	}
}

static void steps(sw_buf *b, const char *key, const json_t *list)
{
	if (!json_is_array(list) || json_array_size(list) == 0)
		return;
	sw__buf_printf(b, "%s:\n", key);
	size_t i;
	json_t *st;
	json_array_foreach(list, i, st)
	{
		sw__buf_puts(b, "  - ");
		if (json_is_string(st)) {
			sw__buf_puts(b, json_string_value(st)); /* bare step words are our own constants */
		} else {
			const char *k;
			json_t *v;
			json_object_foreach((json_t *)st, k, v)
			{
				sw__buf_puts(b, k); /* step names are our own constants */
				sw__buf_puts(b, ": ");
				inline_value(b, v);
				break;
			}
		}
		sw__buf_putc(b, '\n');
	}
}

void sw__suite_flow_yaml(sw_buf *b, const json_t *flow)
{
	sw__buf_puts(b, "# Compiled by swipium from a POM suite (qa_flow_compile); edit the page objects and tests, not this file.\n");
	sw__buf_puts(b, "name: ");
	sw__suite_yaml_quote(b, json_string_value(json_object_get(flow, "name")));
	sw__buf_putc(b, '\n');
	const char *app = json_string_value(json_object_get(flow, "appId"));
	if (app && *app) {
		sw__buf_puts(b, "appId: ");
		sw__suite_yaml_quote(b, app);
		sw__buf_putc(b, '\n');
	}
	steps(b, "setup", json_object_get(flow, "setup"));
	steps(b, "steps", json_object_get(flow, "steps"));
	steps(b, "teardown", json_object_get(flow, "teardown"));
}

/* ---- reading confined files ---------------------------------------------------------------------- */

int sw__suite_read_confined(const char *root, const char *rel, size_t max, char **text, size_t *len, char **real_out,
                            sw_error **err)
{
	char *real = NULL;
	int fd = sw__confine_open(root, rel, O_RDONLY, 0, SW__CONFINE_EXISTING, &real, err);
	if (fd < 0)
		return fd;
	struct stat st;
	int rc = SW_OK;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = sw__error_set(err, SW_EIO, NULL, NULL, "%s is not a readable file", rel);
		goto out;
	}
	if ((uintmax_t)st.st_size > max) {
		rc = sw__error_set(err, SW_ELIMIT, NULL, "Split the file into smaller ones.",
		                   "%s is %lld bytes; at most %zu are read", rel, (long long)st.st_size, max);
		goto out;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = sw__error_nomem(err);
		goto out;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	*text = buf;
	if (len)
		*len = got;
	if (real_out) {
		*real_out = real;
		real = NULL;
	}
out:
	close(fd);
	free(real);
	return rc;
}
