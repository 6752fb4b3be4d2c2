/* session-rig.h: one session of its own for a unit test: a fresh HOME under /tmp, a project folder "app" in it, a
 * context on that HOME, its store and one session on the project. Header only, for tests/unit/check-*.c. */
#ifndef SW_TEST_SESSION_RIG_H
#define SW_TEST_SESSION_RIG_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "sw-internal.h"

struct session_rig {
	char home[64];
	char *root; /* <home>/app */
	sw_ctx *ctx;
	sw_store *store;
	sw_session *s; /* owned by the store */
};

/* Opens the rig; @name goes into the folder's name (/tmp/sw-<name>-XXXXXX). */
static inline void session_rig_open(struct session_rig *r, const char *name)
{
	snprintf(r->home, sizeof(r->home), "/tmp/sw-%s-XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(r->home));
	r->root = sw__path_join(r->home, "app");
	ck_assert_int_eq(mkdir(r->root, 0755), 0);
	r->ctx = NULL;
	r->store = NULL;
	r->s = NULL;
	ck_assert_int_eq(sw_ctx_new(&r->ctx, NULL), SW_OK);
	ck_assert_int_eq(sw_ctx_set_home(r->ctx, r->home, NULL), SW_OK);
	ck_assert_int_eq(sw_store_open(r->ctx, &r->store, NULL), SW_OK);
	ck_assert_int_eq(sw_session_create(r->store, r->root, "explicit", NULL, &r->s, NULL), SW_OK);
}

/* Frees the store (and its session), the context and the root's name; the folder stays for the caller. */
static inline void session_rig_close(struct session_rig *r)
{
	sw_store_free(r->store);
	sw_ctx_free(r->ctx);
	free(r->root);
}

#endif
