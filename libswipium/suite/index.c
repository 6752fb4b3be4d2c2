/* index.c: a string -> number hash index (open addressing, keys copied into an arena) for the suite's linear
 * passes: ids, dedupe keys, feature tokens and functionality groups, without a jansson object per entry. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suite-internal.h"

#define ARENA_BLOCK (64u * 1024u)

struct sw__text_block {
	struct sw__text_block *next;
	size_t used, cap;
	char data[];
};

char *sw__text_arena_copy(sw__text_arena *a, const char *s, size_t len)
{
	struct sw__text_block *b = a->blocks;
	if (!b || b->cap - b->used < len + 1) {
		size_t block = a->block ? a->block : ARENA_BLOCK;
		size_t cap = len + 1 > block ? len + 1 : block;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = a->blocks;
		a->blocks = b;
	}
	char *p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

void sw__text_arena_free(sw__text_arena *a)
{
	for (struct sw__text_block *b = a->blocks, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	a->blocks = NULL;
}

static uint64_t hash_of(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a, 64 bits */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1; /* 0 marks an empty slot */
}

void sw__sindex_init(sw__sindex *x)
{
	memset(x, 0, sizeof(*x));
}

void sw__sindex_free(sw__sindex *x)
{
	free(x->slots);
	sw__text_arena_free(&x->keys);
	memset(x, 0, sizeof(*x));
}

static sw__sindex_slot *find(const sw__sindex *x, const char *s, size_t len, uint64_t h)
{
	size_t mask = x->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		sw__sindex_slot *sl = &x->slots[i];
		if (!sl->hash || (sl->hash == h && sl->len == len && !memcmp(sl->key, s, len)))
			return sl;
	}
}

static bool grow(sw__sindex *x)
{
	size_t cap = x->cap ? x->cap * 2 : 64;
	sw__sindex_slot *old = x->slots, *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return false;
	size_t ocap = x->cap;
	x->slots = slots;
	x->cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].hash)
			*find(x, old[i].key, old[i].len, old[i].hash) = old[i];
	free(old);
	return true;
}

bool sw__sindex_reserve(sw__sindex *x, size_t n)
{
	while ((n + 1) * 4 > x->cap * 3)
		if (!grow(x))
			return false;
	return true;
}

bool sw__sindex_get(const sw__sindex *x, const char *key, long *value)
{
	if (!x->cap || !key)
		return false;
	size_t len = strlen(key);
	const sw__sindex_slot *sl = find(x, key, len, hash_of(key, len));
	if (!sl->hash)
		return false;
	if (value)
		*value = sl->value;
	return true;
}

long *sw__sindex_put(sw__sindex *x, const char *key, long value, bool *existed)
{
	return sw__sindex_put_key(x, key, value, existed, NULL);
}

long *sw__sindex_put_key(sw__sindex *x, const char *key, long value, bool *existed, const char **stored)
{
	size_t len = strlen(key);
	uint64_t h = hash_of(key, len);
	if ((x->n + 1) * 4 > x->cap * 3 && !grow(x)) /* at most 3/4 full */
		return NULL;
	sw__sindex_slot *sl = find(x, key, len, h);
	if (existed)
		*existed = sl->hash != 0;
	if (!sl->hash) {
		const char *k = sw__text_arena_copy(&x->keys, key, len);
		if (!k)
			return NULL;
		sl->key = k;
		sl->len = len;
		sl->hash = h;
		sl->value = value;
		x->n++;
	}
	if (stored)
		*stored = sl->key;
	return &sl->value;
}
