/* redact.c: registered secrets, their spellings, and the Aho-Corasick matcher that replaces them in text. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "redact-internal.h"
#include "alnum-table.h"

#define MARKER SW_REDACTED_MARKER
#define MARKER_LEN (sizeof(MARKER) - 1)
/* A replacement can expose a new whole-token neighbour; passes repeat until nothing changes. */
#define MAX_PASSES 8
/* 16-bit hash of three bytes for the start filter. */
#define FIRST3(a, b, c) ((((unsigned)(a) << 9) ^ ((unsigned)(b) << 4) ^ (unsigned)(c) ^ ((unsigned)(a) >> 7)) & 0xFFFFu)
/* Nesting of re-scans before a winning match; each level holds strictly shorter matches. */
#define MAX_DEPTH 4096

typedef struct secret {
	char *value;
	size_t len;
	bool is_short; /* under 3 UTF-16 units: never matched */
} secret;

typedef struct pattern {
	uint32_t len;
	bool token;  /* whole-token match only */
	bool digits; /* all-digit value: the digit token rules */
} pattern;

/*
 * A complete DFA over byte classes. While building, delta[state * nclasses + class]
 * and has_out; for scanning, trans (the same table, premultiplied and flagged). State 0 is the root.
 */
typedef struct automaton {
	uint32_t nstates;
	uint32_t nclasses;
	uint8_t cls[256];
	uint8_t first3[65536 / 8]; /* bit set: some spelling starts with three bytes of this hash (FIRST3) */
	uint32_t *delta;
	uint32_t *depth;
	int32_t *term;     /* pattern ending exactly at this state, or -1 */
	uint32_t *outlink; /* nearest proper suffix state with a term, 0 for none */
	uint8_t *has_out;
	uint32_t *trans;   /* delta as (target * nclasses) << 1 | target has output */
	bool marker_bytes; /* a spelling holds a byte of the marker's quotes (0xC2, 0xAB, 0xBB) */
	pattern *pats;
	uint32_t npats;
} automaton;

struct sw_redactor {
	pthread_rwlock_t lock;
	secret *secrets;
	size_t nsecrets, cap;
	size_t nshort;
	bool dirty;
	automaton ac;
};

/* ---- Unicode and names ------------------------------------------------- */

bool sw__unicode_is_alnum(uint32_t cp)
{
	if (cp < 0x80)
		return isalnum((int)cp) != 0;
	size_t lo = 0, hi = SW_ARRAY_SIZE(sw_alnum_ranges);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < sw_alnum_ranges[mid][0])
			hi = mid;
		else if (cp > sw_alnum_ranges[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* Case-insensitive ASCII substring search. */
static const char *find_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (strncasecmp(p, needle, n) == 0)
			return p;
	return NULL;
}

SW_API int sw_redact_is_secret_name(const char *name)
{
	static const char *const words[] = {"pass", "secret", "token", "otp", "pin", "cvv", "key", "code"};
	if (!name)
		return 0;
	for (size_t i = 0; i < SW_ARRAY_SIZE(words); i++)
		if (find_ci(name, words[i]))
			return 1;
	return 0;
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Matches "<a>.?<b>" (any one character or none between the two words), case-insensitive. */
static bool has_words_gap(const char *s, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	for (const char *p = s; *p; p++) {
		if (strncasecmp(p, a, la) != 0)
			continue;
		const char *q = p + la;
		if (strncasecmp(q, b, lb) == 0)
			return true;
		if (*q) {
			/* skip one whole UTF-8 character */
			q++;
			while ((*q & 0xC0) == 0x80)
				q++;
			if (strncasecmp(q, b, lb) == 0)
				return true;
		}
	}
	return false;
}

SW_API int sw_redact_is_secure_label(const char *text)
{
	static const char *const words[] = {"password", "passwd", "otp", "cvv", "secret", "token"};
	if (!text)
		return 0;
	for (size_t i = 0; i < SW_ARRAY_SIZE(words); i++)
		if (find_ci(text, words[i]))
			return 1;
	for (const char *p = text; (p = find_ci(p, "pin")); p++)
		if (!is_word_char(p[3]))
			return 1;
	if (has_words_gap(text, "one", "time") || has_words_gap(text, "card", "number") ||
	    has_words_gap(text, "security", "code"))
		return 1;
	return 0;
}

/* ---- registry ---------------------------------------------------------- */

SW_API int sw_redactor_new(sw_redactor **out, sw_error **err)
{
	if (!out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_redactor_new: out is NULL");
	sw_redactor *r = calloc(1, sizeof(*r));
	if (!r)
		return sw__error_nomem(err);
	if (pthread_rwlock_init(&r->lock, NULL) != 0) {
		free(r);
		return sw__error_nomem(err);
	}
	*out = r;
	return SW_OK;
}

static void automaton_clear(automaton *ac)
{
	free(ac->delta);
	free(ac->depth);
	free(ac->term);
	free(ac->outlink);
	free(ac->has_out);
	free(ac->trans);
	free(ac->pats);
	memset(ac, 0, sizeof(*ac));
}

SW_API void sw_redactor_free(sw_redactor *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nsecrets; i++) {
		/* wipe the value before releasing it */
		memset(r->secrets[i].value, 0, r->secrets[i].len);
		free(r->secrets[i].value);
	}
	free(r->secrets);
	automaton_clear(&r->ac);
	pthread_rwlock_destroy(&r->lock);
	free(r);
}

/* Length in UTF-16 units (JavaScript's String.length); an invalid byte counts as one U+FFFD. */
static size_t units_of(const char *s, size_t len)
{
	size_t units = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = sw__utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (k == 0) {
			k = 1;
			cp = 0xFFFD;
		}
		units += cp >= 0x10000 ? 2 : 1;
		i += k;
	}
	return units;
}

static int add_locked(sw_redactor *r, const char *value, size_t len, sw_error **err)
{
	for (size_t i = 0; i < r->nsecrets; i++)
		if (r->secrets[i].len == len && memcmp(r->secrets[i].value, value, len) == 0)
			return SW_OK;
	if (r->nsecrets == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 16;
		secret *n = realloc(r->secrets, ncap * sizeof(*n));
		if (!n)
			return sw__error_nomem(err);
		r->secrets = n;
		r->cap = ncap;
	}
	char *copy = sw__strndup(value, len);
	if (!copy)
		return sw__error_nomem(err);
	bool is_short = units_of(value, len) < SW_REDACT_MIN_CHARS;
	r->secrets[r->nsecrets++] = (secret){copy, len, is_short};
	if (is_short)
		r->nshort++;
	else
		r->dirty = true;
	return SW_OK;
}

SW_API int sw_redactor_add_secret(sw_redactor *r, const char *value, sw_error **err)
{
	if (!r || !value)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_redactor_add_secret: redactor or value is NULL");
	size_t len = strlen(value);
	if (len == 0)
		return SW_OK;
	pthread_rwlock_wrlock(&r->lock);
	int rc = add_locked(r, value, len, err);
	pthread_rwlock_unlock(&r->lock);
	return rc;
}

SW_API int sw_redactor_add_value_if_secret_name(sw_redactor *r, const char *name, const char *value, sw_error **err)
{
	if (!r || !name || !value)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_redactor_add_value_if_secret_name: redactor, name or value is NULL");
	if (!sw_redact_is_secret_name(name))
		return 0;
	int rc = sw_redactor_add_secret(r, value, err);
	return rc < 0 ? rc : 1;
}

SW_API int sw_redactor_add_value_if_contains_secret(sw_redactor *r, const char *value, sw_error **err)
{
	if (!r || !value)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_redactor_add_value_if_contains_secret: redactor or value is NULL");
	if (!sw_redactor_contains(r, value, strlen(value)))
		return 0;
	int rc = sw_redactor_add_secret(r, value, err);
	return rc < 0 ? rc : 1;
}

SW_API size_t sw_redactor_count(const sw_redactor *cr)
{
	sw_redactor *r = (sw_redactor *)cr;
	if (!r)
		return 0;
	pthread_rwlock_rdlock(&r->lock);
	size_t n = r->nsecrets;
	pthread_rwlock_unlock(&r->lock);
	return n;
}

SW_API size_t sw_redactor_short_count(const sw_redactor *cr)
{
	sw_redactor *r = (sw_redactor *)cr;
	if (!r)
		return 0;
	pthread_rwlock_rdlock(&r->lock);
	size_t n = r->nshort;
	pthread_rwlock_unlock(&r->lock);
	return n;
}

SW_API int sw_redactor_partial_note(const sw_redactor *r, char **out, sw_error **err)
{
	if (!r || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_redactor_partial_note: NULL argument");
	size_t n = sw_redactor_short_count(r);
	if (n == 0) {
		*out = NULL;
		return SW_OK;
	}
	char *s = sw__asprintf("%zu secret value(s) shorter than 3 characters were not redacted "
	                       "(matching them would corrupt ordinary text).",
	                       n);
	if (!s)
		return sw__error_nomem(err);
	*out = s;
	return SW_OK;
}

/* ---- spellings --------------------------------------------------------- */

typedef struct spelling {
	char *s;
	size_t len;
	bool token, digits;
} spelling;

typedef struct spelling_list {
	spelling *v;
	size_t n, cap;
} spelling_list;

static bool list_push(spelling_list *l, sw_buf *b, bool token, bool digits)
{
	if (b->failed || !b->data)
		return false;
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].len == b->len && memcmp(l->v[i].s, b->data, b->len) == 0) {
			/* the same bytes registered as anywhere and as token: anywhere wins */
			if (!token)
				l->v[i].token = false, l->v[i].digits = false;
			sw__buf_free(b);
			return true;
		}
	}
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		spelling *n = realloc(l->v, ncap * sizeof(*n));
		if (!n)
			return false;
		l->v = n;
		l->cap = ncap;
	}
	size_t len;
	char *s = sw__buf_steal(b, &len);
	if (!s)
		return false;
	l->v[l->n++] = (spelling){s, len, token, digits};
	return true;
}

static void list_free(spelling_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		memset(l->v[i].s, 0, l->v[i].len);
		free(l->v[i].s);
	}
	free(l->v);
}

static void xml_escape(sw_buf *b, const char *s, size_t len, const char *apos)
{
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '&': sw__buf_puts(b, "&amp;"); break;
		case '<': sw__buf_puts(b, "&lt;"); break;
		case '>': sw__buf_puts(b, "&gt;"); break;
		case '"': sw__buf_puts(b, "&quot;"); break;
		case '\'': sw__buf_puts(b, apos); break;
		default: sw__buf_putc(b, s[i]);
		}
	}
}

/* The JSON string body with every non-ASCII character as \uXXXX (Python's ensure_ascii spelling). */
static void json_ascii_escape(sw_buf *b, const char *s, size_t len)
{
	sw_buf tmp = SW_BUF_INIT;
	sw__buf_json_string(&tmp, s, len);
	if (tmp.failed || tmp.len < 2) {
		b->failed = true;
		sw__buf_free(&tmp);
		return;
	}
	const unsigned char *p = (const unsigned char *)tmp.data + 1;
	size_t n = tmp.len - 2;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = p[i] < 0x80 ? 0 : sw__utf8_decode(p + i, n - i, &cp);
		if (k == 0) {
			sw__buf_putc(b, (char)p[i]);
			i++;
			continue;
		}
		if (cp >= 0x10000) {
			uint32_t v = cp - 0x10000;
			sw__buf_printf(b, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
		} else {
			sw__buf_printf(b, "\\u%04x", cp);
		}
		i += k;
	}
	sw__buf_free(&tmp);
}

static bool all_digits(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return len > 0;
}

static bool add_spellings(spelling_list *l, const secret *sec)
{
	size_t units = units_of(sec->value, sec->len);
	bool digits = all_digits(sec->value, sec->len);
	bool token = units < 4 || (digits && sec->len < 8);
	bool ok = true;
	bool has_special = strpbrk(sec->value, "&<>\"'") != NULL;
	bool non_ascii = false;
	for (size_t i = 0; i < sec->len; i++)
		non_ascii |= (unsigned char)sec->value[i] >= 0x80;

	sw_buf b = SW_BUF_INIT;
	sw__buf_append(&b, sec->value, sec->len);
	ok &= list_push(l, &b, token, digits);
	if (has_special) {
		sw_buf x = SW_BUF_INIT;
		xml_escape(&x, sec->value, sec->len, "&apos;");
		ok &= list_push(l, &x, token, digits);
		sw_buf y = SW_BUF_INIT;
		xml_escape(&y, sec->value, sec->len, "&#39;");
		ok &= list_push(l, &y, token, digits);
	}
	sw_buf j = SW_BUF_INIT;
	sw__buf_json_string(&j, sec->value, sec->len);
	if (!j.failed && j.len >= 2) {
		sw_buf body = SW_BUF_INIT;
		sw__buf_append(&body, j.data + 1, j.len - 2);
		ok &= list_push(l, &body, token, digits);
	} else {
		ok = false;
	}
	sw__buf_free(&j);
	if (non_ascii) {
		sw_buf a = SW_BUF_INIT;
		json_ascii_escape(&a, sec->value, sec->len);
		ok &= list_push(l, &a, token, digits);
	}
	return ok;
}

/* ---- automaton --------------------------------------------------------- */

static int build(sw_redactor *r)
{
	spelling_list l = {0};
	automaton ac = {0};
	uint32_t *fail = NULL, *queue = NULL;
	int rc = SW_ENOMEM;

	for (size_t i = 0; i < r->nsecrets; i++)
		if (!r->secrets[i].is_short && !add_spellings(&l, &r->secrets[i]))
			goto out;

	size_t total = 1;
	bool used[256] = {false};
	for (size_t i = 0; i < l.n; i++) {
		if (l.v[i].len > UINT32_MAX || total > UINT32_MAX - l.v[i].len)
			goto out;
		total += l.v[i].len;
		for (size_t k = 0; k < l.v[i].len; k++)
			used[(unsigned char)l.v[i].s[k]] = true;
	}
	/* bytes that occur in no spelling share class 0; when all 256 occur, each byte is its own class */
	size_t nused = 0;
	for (int c = 0; c < 256; c++)
		nused += used[c];
	ac.nclasses = 1;
	for (int c = 0; c < 256; c++)
		ac.cls[c] = nused == 256 ? (uint8_t)c : used[c] ? (uint8_t)(ac.nclasses++) : 0;
	if (nused == 256)
		ac.nclasses = 256;
	/* premultiplied, flagged transitions must fit in 32 bits */
	if (total > (UINT32_MAX >> 1) / ac.nclasses)
		goto out;
	ac.delta = calloc(total * ac.nclasses, sizeof(uint32_t));
	ac.depth = calloc(total, sizeof(uint32_t));
	ac.term = malloc(total * sizeof(int32_t));
	ac.outlink = calloc(total, sizeof(uint32_t));
	ac.has_out = calloc(total, 1);
	ac.pats = calloc(l.n ? l.n : 1, sizeof(pattern));
	fail = calloc(total, sizeof(uint32_t));
	queue = malloc(total * sizeof(uint32_t));
	if (!ac.delta || !ac.depth || !ac.term || !ac.outlink || !ac.has_out || !ac.pats || !fail || !queue)
		goto out;
	for (size_t i = 0; i < total; i++)
		ac.term[i] = -1;
	ac.nstates = 1;
	const uint32_t nc = ac.nclasses;

	for (size_t i = 0; i < l.n; i++) {
		uint32_t s = 0;
		for (size_t k = 0; k < l.v[i].len; k++) {
			uint32_t *slot = &ac.delta[(size_t)s * nc + ac.cls[(unsigned char)l.v[i].s[k]]];
			if (*slot == 0) {
				*slot = ac.nstates;
				ac.depth[ac.nstates] = ac.depth[s] + 1;
				ac.nstates++;
			}
			s = *slot;
		}
		ac.pats[i] = (pattern){(uint32_t)l.v[i].len, l.v[i].token, l.v[i].digits};
		ac.term[s] = (int32_t)i;
	}
	ac.npats = (uint32_t)l.n;

	/* breadth-first: failure links, then the missing transitions borrowed from the failure state */
	size_t qh = 0, qt = 0;
	queue[qt++] = 0;
	while (qh < qt) {
		uint32_t s = queue[qh++];
		for (uint32_t c = 0; c < nc; c++) {
			uint32_t *slot = &ac.delta[(size_t)s * nc + c];
			uint32_t u = *slot;
			/* entries of s are still trie children here: borrowed links are filled in below */
			if (u != 0) {
				uint32_t f = s == 0 ? 0 : ac.delta[(size_t)fail[s] * nc + c];
				fail[u] = f;
				ac.outlink[u] = ac.term[f] >= 0 ? f : ac.outlink[f];
				ac.has_out[u] = ac.term[u] >= 0 || ac.outlink[u] != 0;
				queue[qt++] = u;
			} else {
				*slot = s == 0 ? 0 : ac.delta[(size_t)fail[s] * nc + c];
			}
		}
	}
	/* every spelling has at least 3 bytes: a hash of its first three filters where a match can start */
	for (size_t i = 0; i < l.n; i++) {
		const unsigned char *u = (const unsigned char *)l.v[i].s;
		unsigned h = FIRST3(u[0], u[1], u[2]);
		ac.first3[h >> 3] |= (uint8_t)(1u << (h & 7));
	}
	ac.marker_bytes = used[0xC2] || used[0xAB] || used[0xBB];
	/* the scanning table: premultiplied rows with the output flag in bit 0 */
	ac.trans = malloc((size_t)ac.nstates * nc * sizeof(uint32_t));
	if (!ac.trans)
		goto out;
	for (size_t k = 0; k < (size_t)ac.nstates * nc; k++) {
		uint32_t target = ac.delta[k];
		ac.trans[k] = ((target * nc) << 1) | ac.has_out[target];
	}
	/* scanning needs only trans, depth, term and outlink */
	free(ac.delta);
	ac.delta = NULL;
	free(ac.has_out);
	ac.has_out = NULL;
	automaton_clear(&r->ac);
	r->ac = ac;
	memset(&ac, 0, sizeof(ac));
	r->dirty = false;
	rc = SW_OK;
out:
	automaton_clear(&ac);
	free(fail);
	free(queue);
	list_free(&l);
	return rc;
}

/* Takes the read lock with an automaton that covers every registered secret. */
static int read_lock_built(sw_redactor *r)
{
	pthread_rwlock_rdlock(&r->lock);
	if (!r->dirty)
		return SW_OK;
	pthread_rwlock_unlock(&r->lock);
	pthread_rwlock_wrlock(&r->lock);
	int rc = r->dirty ? build(r) : SW_OK;
	pthread_rwlock_unlock(&r->lock);
	if (rc < 0)
		return rc;
	pthread_rwlock_rdlock(&r->lock);
	return SW_OK;
}

/* ---- matching ---------------------------------------------------------- */

static uint32_t cp_before(const unsigned char *t, size_t p)
{
	size_t b = p - 1;
	size_t lim = p >= 4 ? p - 4 : 0;
	while (b > lim && (t[b] & 0xC0) == 0x80)
		b--;
	uint32_t cp;
	if (sw__utf8_decode(t + b, p - b, &cp) == p - b)
		return cp;
	return t[p - 1] < 0x80 ? t[p - 1] : 0xFFFD;
}

static uint32_t cp_at(const unsigned char *t, size_t n, size_t p)
{
	uint32_t cp;
	if (sw__utf8_decode(t + p, n - p, &cp) > 0)
		return cp;
	return t[p] < 0x80 ? t[p] : 0xFFFD;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Whether a match of @pat at t[p..p+len) counts. @left_marker: a replacement
 * ends right before p, so the left side is a boundary.
 */
static bool accept(const unsigned char *t, size_t n, size_t p, const pattern *pat, bool left_marker)
{
	size_t e = p + pat->len;
	/* occurrences inside a marker (a secret such as "dact") are not secrets in the text */
	size_t q0 = e > MARKER_LEN ? e - MARKER_LEN : 0;
	for (size_t q = q0; q <= p; q++)
		if (q + MARKER_LEN <= n && t[q] == 0xC2 && memcmp(t + q, MARKER, MARKER_LEN) == 0)
			return false;
	if (!pat->token)
		return true;
	if (pat->digits) {
		if (p > 0 && !left_marker) {
			uint32_t c = cp_before(t, p);
			if (c == '_' || c == '@' || sw__unicode_is_alnum(c))
				return false;
			if (c == '.' && p >= 2 && is_digit(t[p - 2]))
				return false;
		}
		if (e < n) {
			uint32_t c = cp_at(t, n, e);
			if (c == '_' || sw__unicode_is_alnum(c))
				return false;
			if (c == '.' && e + 1 < n && is_digit(t[e + 1]))
				return false;
		}
		return true;
	}
	if (p > 0 && !left_marker && sw__unicode_is_alnum(cp_before(t, p)))
		return false;
	if (e < n && sw__unicode_is_alnum(cp_at(t, n, e)))
		return false;
	return true;
}

/*
 * One pass over t[start..n). Overlapping matches are settled the way
 * replacing the longest spellings first would settle them: the longer match
 * wins, and between equals the one that starts first. Text before a winner
 * that displaced shorter candidates is scanned again on its own (it can only
 * hold shorter matches, so the recursion ends). @left_marker: a replacement
 * ends right at @start. With @out NULL it only answers whether an accepted
 * match exists. Returns the number of replacements (1/0 for the check).
 * *recheck is set when a whole-token candidate was turned down: a later
 * replacement next to it may make it a token, so the caller scans again.
 */
static size_t scan(const automaton *ac, const unsigned char *t, size_t start, size_t n, bool left_marker, sw_buf *out,
                   bool *recheck, unsigned depth)
{
	const uint32_t nc = ac->nclasses;
	const uint32_t *tr = ac->trans;
	const uint8_t *cls = ac->cls, *first3 = ac->first3;
	size_t pos = start, i = start, cs = 0, cl = 0, first = 0, replaced = 0;
	bool have = false, displaced = false;
	uint32_t row = 0; /* state * nclasses */

	if (ac->npats == 0) {
		if (out)
			sw__buf_append(out, t + start, n - start);
		return 0;
	}
	for (;;) {
		uint32_t e;
		if (i >= n) {
			if (!have)
				break;
			goto emit;
		}
		if (!have) {
			/* the hot loop: one table load per byte, leaving only on a state with output */
			for (;;) {
				if (row == 0) {
					/* at the root: skip every position where no spelling can start */
					/* eight positions at a time without a branch each, then the exact one */
					while (i + 10 <= n) {
						unsigned hit = 0;
						for (unsigned k = 0; k < 8; k++) {
							unsigned h = FIRST3(t[i + k], t[i + k + 1], t[i + k + 2]);
							hit |= (unsigned)first3[h >> 3] >> (h & 7);
						}
						if (hit & 1)
							break;
						i += 8;
					}
					while (i + 2 < n) {
						unsigned h = FIRST3(t[i], t[i + 1], t[i + 2]);
						if (first3[h >> 3] & (1u << (h & 7)))
							break;
						i++;
					}
					if (i + 2 >= n)
						goto done;
				}
				e = tr[row + cls[t[i]]];
				row = e >> 1;
				if (e & 1)
					break;
				if (++i == n)
					goto done;
			}
		} else {
			e = tr[row + cls[t[i]]];
			row = e >> 1;
			/* no match still growing can reach back into the candidate: it is final */
			if (cs + cl + ac->depth[row / nc] <= i + 1)
				goto emit;
			if (!(e & 1)) {
				i++;
				continue;
			}
		}
		uint32_t st = row / nc;
		for (uint32_t u = ac->term[st] >= 0 ? st : ac->outlink[st]; u; u = ac->outlink[u]) {
			const pattern *pat = &ac->pats[ac->term[u]];
			size_t p = i + 1 - pat->len;
			if (p < pos)
				continue;
			/* after the candidate: found again once it is replaced; overlapping: only a longer one wins */
			if (have && (p >= cs + cl || pat->len <= cl))
				continue;
			if (!accept(t, n, p, pat, left_marker && p == pos)) {
				if (pat->token && recheck)
					*recheck = true;
				continue;
			}
			if (!out)
				return 1;
			if (!have || p < first)
				first = p;
			displaced |= have;
			have = true;
			cs = p;
			cl = pat->len;
		}
		i++;
		continue;
	emit:
		if (displaced && first < cs && depth < MAX_DEPTH) {
			/* shorter matches displaced by this one may leave whole ones before it */
			sw__buf_append(out, t + pos, first - pos);
			replaced += scan(ac, t, first, cs, left_marker && first == pos, out, recheck, depth + 1);
		} else {
			sw__buf_append(out, t + pos, cs - pos);
		}
		sw__buf_append(out, MARKER, MARKER_LEN);
		replaced++;
		pos = i = cs + cl;
		left_marker = true;
		row = 0;
		have = displaced = false;
	}
done:
	if (!out)
		return 0;
	sw__buf_append(out, t + pos, n - pos);
	return replaced;
}

/* Redacts with the read lock held. Appends to @b; returns true when something changed. */
static bool redact_locked(sw_redactor *r, sw_buf *b, const char *s, size_t len)
{
	size_t base = b->len;
	bool recheck = false;
	size_t replaced = scan(&r->ac, (const unsigned char *)s, 0, len, false, b, &recheck, 0);
	if (replaced == 0 || b->failed)
		return replaced != 0;
	/*
	 * A replacement can only create a new match next to a marker: a token
	 * whose neighbour was replaced, or a spelling that holds marker bytes.
	 * Only then scan again, until stable.
	 */
	for (int pass = 1; pass < MAX_PASSES && (recheck || r->ac.marker_bytes); pass++) {
		size_t n = b->len - base;
		char *copy = sw__strndup(b->data + base, n);
		if (!copy) {
			b->failed = true;
			break;
		}
		if (!scan(&r->ac, (const unsigned char *)copy, 0, n, false, NULL, NULL, 0)) {
			free(copy);
			break;
		}
		b->len = base;
		recheck = false;
		scan(&r->ac, (const unsigned char *)copy, 0, n, false, b, &recheck, 0);
		free(copy);
	}
	return true;
}

bool sw__redactor_redact_into(sw_redactor *r, sw_buf *b, const char *s, size_t len)
{
	if (read_lock_built(r) < 0) {
		b->failed = true;
		return false;
	}
	bool changed = redact_locked(r, b, s, len);
	pthread_rwlock_unlock(&r->lock);
	return changed;
}

int sw__redactor_redact_str(sw_redactor *r, const char *s, size_t len, char **out, size_t *out_len)
{
	sw_buf b = SW_BUF_INIT;
	if (!sw__buf_reserve(&b, len + 1))
		return SW_ENOMEM;
	bool changed = sw__redactor_redact_into(r, &b, s, len);
	if (b.failed) {
		sw__buf_free(&b);
		return SW_ENOMEM;
	}
	size_t n;
	char *res = sw__buf_steal(&b, &n);
	if (!res)
		return SW_ENOMEM;
	*out = res;
	if (out_len)
		*out_len = n;
	return changed ? 1 : 0;
}

SW_API int sw_redactor_redact_text(sw_redactor *r, const char *in, size_t len, char **out, size_t *out_len,
                                   int *partial_out, sw_error **err)
{
	if (!r || (!in && len) || !out)
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL,
		                     "sw_redactor_redact_text: NULL argument");
	int rc = sw__redactor_redact_str(r, in ? in : "", len, out, out_len);
	if (rc < 0)
		return sw__error_nomem(err);
	if (partial_out)
		*partial_out = sw_redactor_short_count(r) > 0;
	return SW_OK;
}

SW_API int sw_redactor_contains(sw_redactor *r, const char *text, size_t len)
{
	if (!r || !text)
		return 0;
	if (read_lock_built(r) < 0)
		return 1; /* cannot tell: assume the worst */
	int found = scan(&r->ac, (const unsigned char *)text, 0, len, false, NULL, NULL, 0) != 0;
	pthread_rwlock_unlock(&r->lock);
	return found;
}

SW_API int sw_redactor_guard(sw_redactor *r, const char *text, size_t len, sw_error **err)
{
	if (!r || (!text && len))
		return sw__error_set(err, SW_EINVAL, "INVALID_ARGUMENT", NULL, "sw_redactor_guard: NULL argument");
	if (!text || !sw_redactor_contains(r, text, len))
		return SW_OK;
	return sw__error_set(err, SW_ESECRET, "SECRET_IN_GENERATED_OUTPUT",
	                     "Use a ${SWIPIUM_*} placeholder instead of the literal value, then generate again.",
	                     "The generated output contains a registered secret value; nothing was written.");
}
