/* lines.c: the inverse of element lines: `@eN [role] "name" #id text="..." [x1,y1][x2,y2] (flags)` to an object. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot-internal.h"

/* Reads a JSON string starting at *p (which must be '"'); advances past it. */
static json_t *read_json_string(const char **p)
{
	const char *s = *p;
	if (*s != '"')
		return NULL;
	const char *q = s + 1;
	while (*q && *q != '"') {
		if (*q == '\\') {
			if (!q[1])
				return NULL;
			q += 2;
		} else if ((unsigned char)*q < 0x20)
			return NULL;
		else
			q++;
	}
	if (*q != '"')
		return NULL;
	q++;
	json_error_t jerr;
	json_t *v = json_loadb(s, (size_t)(q - s), JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (!json_is_string(v)) {
		json_decref(v);
		return NULL;
	}
	*p = q;
	return v;
}

static bool read_int(const char **p, int *out)
{
	const char *s = *p;
	char *end;
	if (!(isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))))
		return false;
	long v = strtol(s, &end, 10);
	if (v < -1000000 || v > 1000000)
		return false;
	*out = (int)v;
	*p = end;
	return true;
}

/* "[x1,y1][x2,y2]" */
static bool read_bounds(const char **p, int b[4])
{
	const char *s = *p;
	for (int k = 0; k < 2; k++) {
		if (*s != '[')
			return false;
		s++;
		if (!read_int(&s, &b[2 * k]) || *s != ',')
			return false;
		s++;
		if (!read_int(&s, &b[2 * k + 1]) || *s != ']')
			return false;
		s++;
	}
	*p = s;
	return true;
}

static bool is_token_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == '$';
}

int sw_snapshot_parse_element_line(const char *line, char **out_json, sw_error **err)
{
	if (!line || !out_json)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "line and out_json must not be NULL");
	const char *p = line;
	json_t *o = NULL, *name = NULL, *id = NULL, *text = NULL, *bounds = json_null();
	bool focused = false, secure = false, nonclick = false;
	char ref[24];
	char *role = NULL;

	if (p[0] != '@' || p[1] != 'e' || !isdigit((unsigned char)p[2]) || p[2] == '0')
		goto bad;
	size_t n = 2;
	while (isdigit((unsigned char)p[n]))
		n++;
	if (n - 1 > 10)
		goto bad;
	memcpy(ref, p, n);
	ref[n] = '\0';
	p += n;
	if (p[0] != ' ' || p[1] != '[')
		goto bad;
	p += 2;
	const char *rend = strchr(p, ']');
	if (!rend || rend == p)
		goto bad;
	for (const char *c = p; c < rend; c++)
		if (*c == '[' || *c == '"' || (unsigned char)*c < 0x20)
			goto bad;
	role = sw__strndup(p, (size_t)(rend - p));
	if (!role)
		goto nomem;
	p = rend + 1;
	if (*p != ' ')
		goto bad;
	p++;
	if (!(name = read_json_string(&p)))
		goto bad;
	if (p[0] == ' ' && p[1] == '#') {
		p += 2;
		if (*p == '"') {
			if (!(id = read_json_string(&p)))
				goto bad;
		} else {
			const char *s = p;
			while (is_token_char(*p))
				p++;
			if (p == s)
				goto bad;
			id = json_stringn(s, (size_t)(p - s));
		}
	}
	if (!strncmp(p, " text=\"", 7)) {
		p += 6;
		if (!(text = read_json_string(&p)))
			goto bad;
	}
	if (p[0] == ' ' && p[1] == '[') {
		int b[4];
		p++;
		if (!read_bounds(&p, b))
			goto bad;
		bounds = json_pack("[iiii]", b[0], b[1], b[2], b[3]);
	}
	if (p[0] == ' ' && p[1] == '(') {
		p += 2;
		const char *close = strchr(p, ')');
		if (!close || close[1] != '\0')
			goto bad;
		/* flags appear in a fixed order, each at most once */
		static const char *const order[] = {"focused", "secure", "non-clickable"};
		size_t next = 0;
		while (p < close) {
			const char *comma = memchr(p, ',', (size_t)(close - p));
			const char *end = comma ? comma : close;
			size_t len = (size_t)(end - p);
			size_t k = next;
			while (k < SW_ARRAY_SIZE(order) && !(strlen(order[k]) == len && !memcmp(order[k], p, len)))
				k++;
			if (k == SW_ARRAY_SIZE(order))
				goto bad;
			if (k == 0)
				focused = true;
			else if (k == 1)
				secure = true;
			else
				nonclick = true;
			next = k + 1;
			p = comma ? comma + 1 : close;
			if (comma && comma + 1 == close)
				goto bad;
		}
		if (!focused && !secure && !nonclick)
			goto bad;
		p = close + 1;
	}
	if (*p != '\0')
		goto bad;
	o = json_pack("{sssssososososbsbsb}", "ref", ref, "role", role, "name", name, "id", id ? id : json_null(),
	              "text", text ? text : json_null(), "bounds", bounds, "clickable", !nonclick, "focused", focused,
	              "secure", secure);
	name = id = text = bounds = NULL;
	free(role);
	if (!o)
		return sw__error_nomem(err);
	char *txt = sw__json_compact(o);
	json_decref(o);
	if (!txt)
		return sw__error_nomem(err);
	*out_json = txt;
	return SW_OK;
nomem:
	json_decref(name);
	json_decref(id);
	json_decref(text);
	json_decref(bounds);
	return sw__error_nomem(err);
bad:
	free(role);
	json_decref(name);
	json_decref(id);
	json_decref(text);
	json_decref(bounds);
	return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "Not an element line");
}
