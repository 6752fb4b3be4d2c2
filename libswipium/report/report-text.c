/* report-text.c: escaping, clipping and fingerprint helpers shared by the report exporters. */
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "report-internal.h"

static const char ELLIPSIS[] = "\xE2\x80\xA6";    /* U+2026 */
static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

void sw__xml_escape(sw_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	sw__buf_reserve(b, len + len / 8 + 16);
	size_t i = 0, start = 0;
	while (i < len) {
		unsigned char c = p[i];
		const char *rep = NULL;
		size_t n = 1;
		if (c < 0x80) {
			switch (c) {
			case '&': rep = "&amp;"; break;
			case '<': rep = "&lt;"; break;
			case '>': rep = "&gt;"; break;
			case '"': rep = "&quot;"; break;
			case '\r': rep = "&#13;"; break;
			case '\n': rep = "&#10;"; break;
			case '\t': break;
			default:
				if (c < 0x20)
					rep = REPLACEMENT;
			}
		} else {
			uint32_t cp;
			n = sw__utf8_decode(p + i, len - i, &cp);
			if (!n || cp == 0xFFFE || cp == 0xFFFF) {
				rep = REPLACEMENT;
				n = n ? n : 1;
			}
		}
		if (rep) {
			sw__buf_append(b, s + start, i - start);
			sw__buf_puts(b, rep);
			start = i + n;
		}
		i += n;
	}
	sw__buf_append(b, s + start, len - start);
}

void sw__md_text(sw_buf *b, const char *s, size_t len)
{
	sw__buf_reserve(b, len + 16);
	size_t start = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		const char *rep = NULL;
		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '\\': rep = "\\\\"; break;
		case '`': rep = "\\`"; break;
		case '*': rep = "\\*"; break;
		case '_': rep = "\\_"; break;
		case '[': rep = "\\["; break;
		case ']': rep = "\\]"; break;
		case '#': rep = "\\#"; break;
		case '|': rep = "\\|"; break;
		case '~': rep = "\\~"; break;
		default: break;
		}
		if (rep) {
			sw__buf_append(b, s + start, i - start);
			sw__buf_puts(b, rep);
			start = i + 1;
		}
	}
	sw__buf_append(b, s + start, len - start);
}

/* Calls @fn on each piece of s between line breaks (CRLF, LF or a lone CR), with @sep between. */
static void each_line(sw_buf *b, const char *s, size_t len, const char *sep, void (*fn)(sw_buf *, const char *, size_t))
{
	size_t start = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\r' && s[i] != '\n')
			continue;
		fn(b, s + start, i - start);
		sw__buf_puts(b, sep);
		if (s[i] == '\r' && i + 1 < len && s[i + 1] == '\n')
			i++;
		start = i + 1;
	}
	fn(b, s + start, len - start);
}

void sw__md_text_line(sw_buf *b, const char *s, size_t len)
{
	each_line(b, s, len, " ", sw__md_text);
}

void sw__table_cell(sw_buf *b, const char *s, size_t len)
{
	size_t start = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '|')
			continue;
		sw__buf_append(b, s + start, i - start);
		sw__buf_putc(b, '\\');
		start = i; /* the pipe itself goes out with the next run */
	}
	sw__buf_append(b, s + start, len - start);
}

static void md_cell_piece(sw_buf *b, const char *s, size_t len)
{
	sw_buf t = SW_BUF_INIT;
	sw__md_text(&t, s, len);
	sw__table_cell(b, sw__buf_cstr(&t), t.len);
	sw__buf_free(&t);
}

void sw__md_cell(sw_buf *b, const char *s, size_t len)
{
	sw_buf c = SW_BUF_INIT;
	sw__clip(&c, s, len, 2000);
	each_line(b, sw__buf_cstr(&c), c.len, "<br>", md_cell_piece);
	sw__buf_free(&c);
}

static void append_raw(sw_buf *b, const char *s, size_t len)
{
	sw__buf_append(b, s, len);
}

void sw__md_code(sw_buf *b, const char *s, size_t len)
{
	sw_buf flat = SW_BUF_INIT;
	sw__buf_reserve(&flat, len + 1);
	each_line(&flat, s, len, " ", append_raw);
	const char *f = sw__buf_cstr(&flat);
	if (!memchr(f, '`', flat.len)) {
		sw__buf_putc(b, '`');
		sw__buf_append(b, f, flat.len);
		sw__buf_putc(b, '`');
	} else {
		sw__buf_puts(b, "`` ");
		for (size_t i = 0; i < flat.len; i++) {
			if (f[i] == '`' && i > 0 && f[i - 1] == '`')
				continue; /* runs of backticks collapse to one */
			sw__buf_putc(b, f[i]);
		}
		sw__buf_puts(b, " ``");
	}
	sw__buf_free(&flat);
}

void sw__md_link_dest(sw_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		            (c != 0 && strchr("-._~:/?#@!$&'*+,;=%", c) != NULL);
		if (keep) {
			sw__buf_putc(b, (char)c);
		} else {
			sw__buf_putc(b, '%');
			sw__buf_putc(b, hex[c >> 4]);
			sw__buf_putc(b, hex[c & 15]);
		}
	}
}

void sw__clip(sw_buf *b, const char *s, size_t len, size_t max)
{
	/* Cheap exit: a UTF-16 length never exceeds the byte length. */
	if (len <= max || sw__utf16_len(s, len) <= max) {
		sw__buf_append(b, s, len);
		return;
	}
	size_t keep = max > 0 ? sw__utf16_prefix_bytes(s, len, max - 1) : 0;
	sw__buf_append(b, s, keep);
	sw__buf_puts(b, ELLIPSIS);
}

void sw__compact_value(sw_buf *b, const json_t *v, size_t max)
{
	if (sw__js_nullish(v)) {
		sw__buf_putc(b, '-');
		return;
	}
	char *owned = NULL;
	const char *s;
	size_t len;
	if (json_is_string(v)) {
		s = json_string_value(v);
		len = json_string_length(v);
	} else {
		owned = sw__json_compact(v);
		s = owned ? owned : "";
		len = strlen(s);
	}
	if (len == 0)
		sw__buf_putc(b, '-');
	else
		sw__clip(b, s, len, max);
	free(owned);
}

/* ---- lower case --------------------------------------------------------- */

static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_locale_init(void)
{
	utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

void sw__js_lower(sw_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	sw__buf_reserve(b, len);
	size_t i = 0;
	while (i < len) {
		unsigned char c = p[i];
		if (c < 0x80) {
			/* ASCII run: lower-case straight into the reserved buffer. */
			size_t j = i;
			while (j < len && p[j] < 0x80)
				j++;
			if (!sw__buf_reserve(b, j - i))
				return;
			char *d = b->data + b->len;
			for (size_t k = i; k < j; k++)
				d[k - i] = (char)(p[k] >= 'A' && p[k] <= 'Z' ? p[k] + 32 : p[k]);
			b->len += j - i;
			b->data[b->len] = '\0';
			i = j;
			continue;
		}
		uint32_t cp;
		size_t n = sw__utf8_decode(p + i, len - i, &cp);
		if (!n) {
			sw__buf_puts(b, REPLACEMENT);
			i++;
			continue;
		}
		i += n;
		if (cp == 0x130) { /* JavaScript: dotted capital I -> i + combining dot above */
			sw__buf_puts(b, "i\xCC\x87");
			continue;
		}
		pthread_once(&utf8_once, utf8_locale_init);
		uint32_t lo = utf8_locale ? (uint32_t)towlower_l((wint_t)cp, utf8_locale) : cp;
		char enc[4];
		sw__buf_append(b, enc, sw__utf8_encode(lo, enc));
	}
}

/* ---- scrubVolatile ------------------------------------------------------ */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

static size_t digits_at(const char *s, size_t len, size_t i, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (i + k >= len || !is_digit(s[i + k]))
			return 0;
	return n;
}

/* Length of an ISO date or date-time at s[i], or 0. */
static size_t match_iso(const char *s, size_t len, size_t i)
{
	size_t j = i;
	if (!digits_at(s, len, j, 4) || j + 4 >= len || s[j + 4] != '-' || !digits_at(s, len, j + 5, 2) ||
	    j + 7 >= len || s[j + 7] != '-' || !digits_at(s, len, j + 8, 2))
		return 0;
	j += 10;
	/* [t ]hh:mm(:ss(.frac)?)?(z|[+-]hh:?mm)? */
	if (j < len && (s[j] == 't' || s[j] == ' ') && digits_at(s, len, j + 1, 2) && j + 3 < len && s[j + 3] == ':' &&
	    digits_at(s, len, j + 4, 2)) {
		j += 6;
		if (j < len && s[j] == ':' && digits_at(s, len, j + 1, 2)) {
			j += 3;
			if (j + 1 < len && s[j] == '.' && is_digit(s[j + 1])) {
				j++;
				while (j < len && is_digit(s[j]))
					j++;
			}
		}
		if (j < len && s[j] == 'z') {
			j++;
		} else if (j < len && (s[j] == '+' || s[j] == '-') && digits_at(s, len, j + 1, 2)) {
			size_t k = j + 3;
			if (k < len && s[k] == ':')
				k++;
			if (digits_at(s, len, k, 2))
				j = k + 2;
		}
	}
	return j - i;
}

static size_t match_uuid(const char *s, size_t len, size_t i)
{
	static const size_t groups[] = {8, 4, 4, 4, 12};
	size_t j = i;
	for (size_t g = 0; g < 5; g++) {
		if (g) {
			if (j >= len || s[j] != '-')
				return 0;
			j++;
		}
		for (size_t k = 0; k < groups[g]; k++, j++)
			if (j >= len || !is_hex(s[j]))
				return 0;
	}
	return j - i;
}

static bool email_local(char c)
{
	return is_word(c) || c == '.' || c == '+' || c == '-';
}

static bool email_domain(char c)
{
	return is_word(c) || c == '-';
}

/* local@domain(.part)+ starting at a maximal run of local characters. */
static size_t match_email(const char *s, size_t len, size_t i)
{
	if (i > 0 && email_local(s[i - 1]))
		return 0;
	size_t j = i;
	while (j < len && email_local(s[j]))
		j++;
	if (j == i || j >= len || s[j] != '@')
		return 0;
	j++;
	size_t d = j;
	while (j < len && email_domain(s[j]))
		j++;
	if (j == d)
		return 0;
	size_t parts = 0;
	while (j + 1 < len && s[j] == '.' && email_domain(s[j + 1])) {
		j++;
		while (j < len && email_domain(s[j]))
			j++;
		parts++;
	}
	return parts ? j - i : 0;
}

static bool is_space(const char *s, size_t len, size_t i, size_t *n)
{
	unsigned char c = (unsigned char)s[i];
	if (c == ' ' || (c >= '\t' && c <= '\r')) {
		*n = 1;
		return true;
	}
	uint32_t cp;
	size_t k = c >= 0x80 ? sw__utf8_decode((const unsigned char *)s + i, len - i, &cp) : 0;
	if (k && (cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
	          cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF)) {
		*n = k;
		return true;
	}
	return false;
}

static bool token_char(char c)
{
	return is_word(c) || c == '.' || c == '~' || c == '+' || c == '/' || c == '-';
}

static size_t match_bearer(const char *s, size_t len, size_t i)
{
	if (len - i < 7 || memcmp(s + i, "bearer", 6) != 0 || (i > 0 && is_word(s[i - 1])))
		return 0;
	size_t j = i + 6, n;
	size_t sp = j;
	while (j < len && is_space(s, len, j, &n))
		j += n;
	if (j == sp)
		return 0;
	size_t t = j;
	while (j < len && token_char(s[j]))
		j++;
	if (j == t)
		return 0;
	while (j < len && s[j] == '=')
		j++;
	return j - i;
}

typedef size_t (*matcher)(const char *s, size_t len, size_t i);

static void replace_pass(sw_buf *out, const char *s, size_t len, matcher m, const char *with)
{
	size_t i = 0, start = 0;
	sw__buf_reserve(out, len);
	while (i < len) {
		size_t n = m(s, len, i);
		if (n) {
			sw__buf_append(out, s + start, i - start);
			sw__buf_puts(out, with);
			i += n;
			start = i;
		} else {
			i++;
		}
	}
	sw__buf_append(out, s + start, len - start);
}

static bool boundary(const char *s, size_t len, size_t p)
{
	bool before = p > 0 && is_word(s[p - 1]);
	bool after = p < len && is_word(s[p]);
	return before != after;
}

/*
 * \b[\w-]*\d[\w.-]*\b in linear time: from a boundary at i, the [\w-] run must
 * hold a digit, and the match ends at the last boundary inside the [\w.-] run
 * that follows it (which must lie after that digit).
 */
static void id_pass(sw_buf *out, const char *s, size_t len)
{
	size_t i = 0, start = 0;
	size_t run_a_end = 0, first_digit = 0; /* cache for the [\w-] run containing i */
	size_t memo_b_start = (size_t)-1, memo_e = 0;
	bool have_run = false;
	sw__buf_reserve(out, len);
	while (i < len) {
		if (!(is_word(s[i]) || s[i] == '-') || !boundary(s, len, i)) {
			i++;
			have_run = false;
			continue;
		}
		if (!have_run || i >= run_a_end) {
			run_a_end = i;
			first_digit = (size_t)-1;
			while (run_a_end < len && (is_word(s[run_a_end]) || s[run_a_end] == '-')) {
				if (first_digit == (size_t)-1 && is_digit(s[run_a_end]))
					first_digit = run_a_end;
				run_a_end++;
			}
			have_run = true;
		} else if (first_digit != (size_t)-1 && first_digit < i) {
			first_digit = (size_t)-1;
			for (size_t k = i; k < run_a_end; k++)
				if (is_digit(s[k])) {
					first_digit = k;
					break;
				}
		}
		if (first_digit == (size_t)-1) {
			i++;
			continue;
		}
		/* The [\w.-] run from the digit on; memoised by its start run. */
		size_t r2 = first_digit + 1;
		while (r2 < len && (is_word(s[r2]) || s[r2] == '.' || s[r2] == '-'))
			r2++;
		size_t e;
		if (memo_b_start == r2) {
			e = memo_e;
		} else {
			e = r2;
			while (e > first_digit && !boundary(s, len, e))
				e--;
			memo_b_start = r2, memo_e = e;
		}
		if (e <= first_digit) {
			i++;
			continue;
		}
		sw__buf_append(out, s + start, i - start);
		sw__buf_puts(out, ":id");
		i = start = e;
		have_run = false;
	}
	sw__buf_append(out, s + start, len - start);
}

static void collapse_space(sw_buf *out, const char *s, size_t len)
{
	size_t i = 0, n;
	while (i < len && is_space(s, len, i, &n))
		i += n;
	while (i < len) {
		size_t start = i;
		while (i < len && !is_space(s, len, i, &n))
			i++;
		sw__buf_append(out, s + start, i - start);
		size_t gap = i;
		while (i < len && is_space(s, len, i, &n))
			i += n;
		if (i > gap && i < len)
			sw__buf_putc(out, ' ');
	}
}

/* scrubVolatile with caller-owned scratch buffers, so hashing many results does not churn the allocator. */
static void scrub_with(sw_buf *b, const char *s, size_t len, sw_buf *a, sw_buf *c)
{
	a->len = c->len = 0;
	replace_pass(a, s, len, match_iso, ":ts");
	replace_pass(c, sw__buf_cstr(a), a->len, match_uuid, ":uuid");
	a->len = 0;
	replace_pass(a, sw__buf_cstr(c), c->len, match_email, ":email");
	c->len = 0;
	replace_pass(c, sw__buf_cstr(a), a->len, match_bearer, ":token");
	a->len = 0;
	id_pass(a, sw__buf_cstr(c), c->len);
	collapse_space(b, sw__buf_cstr(a), a->len);
}

void sw__scrub_volatile(sw_buf *b, const char *s, size_t len)
{
	sw_buf a = SW_BUF_INIT, c = SW_BUF_INIT;
	scrub_with(b, s, len, &a, &c);
	sw__buf_free(&a);
	sw__buf_free(&c);
}

void sw__stable_hash(const sw__str *parts, size_t n, char out[17])
{
	sw_buf all = SW_BUF_INIT, low = SW_BUF_INIT, a = SW_BUF_INIT, c = SW_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (i)
			sw__buf_putc(&all, '|');
		low.len = 0;
		sw__js_lower(&low, parts[i].s ? parts[i].s : "", parts[i].len);
		scrub_with(&all, sw__buf_cstr(&low), low.len, &a, &c);
	}
	char hex[65];
	sw_sha256_hex(sw__buf_cstr(&all), all.len, hex);
	memcpy(out, hex, 16);
	out[16] = '\0';
	sw__buf_free(&all);
	sw__buf_free(&low);
	sw__buf_free(&a);
	sw__buf_free(&c);
}

char *sw__nul_to_replacement(char *body, size_t len, size_t *len_out)
{
	if (!body || !memchr(body, '\0', len)) {
		if (len_out)
			*len_out = len;
		return body;
	}
	sw_buf b = SW_BUF_INIT;
	sw__buf_reserve(&b, len + 16);
	for (size_t i = 0; i < len; i++) {
		if (body[i])
			sw__buf_putc(&b, body[i]);
		else
			sw__buf_puts(&b, REPLACEMENT);
	}
	free(body);
	return sw__buf_steal(&b, len_out);
}

void sw__js_upper(sw_buf *b, const json_t *v)
{
	sw_buf s = SW_BUF_INIT;
	if (sw__js_nullish(v))
		sw__buf_puts(&s, "UNKNOWN");
	else
		sw__js_string(&s, v);
	for (size_t i = 0; i < s.len; i++)
		if (s.data[i] >= 'a' && s.data[i] <= 'z')
			s.data[i] = (char)(s.data[i] - 32);
	sw__buf_append(b, s.data, s.len);
	sw__buf_free(&s);
}

void sw__js_line(sw_buf *b, const sw_buf *text)
{
	size_t start = b->len;
	sw__buf_append(b, text->data, text->len);
	for (size_t i = start; b->data && i < b->len; i++)
		if (b->data[i] == '\n' || b->data[i] == '\r')
			b->data[i] = ' ';
}

void sw__js_line_value(sw_buf *b, const json_t *v)
{
	sw_buf s = sw__js_string_buf(v);
	sw__js_line(b, &s);
	sw__buf_free(&s);
}

void sw__finding_text(sw_buf *b, const json_t *f)
{
	const json_t *detail = sw__js_get(f, "detail");
	if (!sw__js_nullish(detail))
		sw__js_string(b, detail);
	const json_t *ev = sw__js_get(f, "evidence");
	if (sw__js_truthy(ev)) {
		sw__buf_puts(b, ": \"");
		sw__js_string(b, ev);
		sw__buf_putc(b, '"');
	}
	const json_t *next = sw__js_get(f, "nextStep");
	if (sw__js_truthy(next)) {
		sw__buf_puts(b, " Next: ");
		sw__js_string(b, next);
	}
}
