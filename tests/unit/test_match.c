/*
 * The matching engine: wildcards, posting order, arrival order, cancel;
 * and the cache that unexpected entries come from.
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "libmpi/p2p/match.h"
#include "tests/unit/cunit_main.h"

static struct tern_request *recv_req(uint32_t ctx, int src, int tag)
{
    struct tern_request *r = calloc(1, sizeof(*r));
    r->ctx = ctx;
    r->rank = src;
    r->tag = tag;
    return r;
}

static struct tern_unexp *message(uint32_t ctx, int src, int tag)
{
    struct tern_unexp *u = calloc(1, sizeof(*u));
    u->ctx = ctx;
    u->src = src;
    u->tag = tag;
    return u;
}

static void test_fits(void)
{
    CU_ASSERT(tern_match_fits(0, 1, 5, 0, 1, 5));
    CU_ASSERT(tern_match_fits(0, MPI_ANY_SOURCE, 5, 0, 3, 5));
    CU_ASSERT(tern_match_fits(0, 1, MPI_ANY_TAG, 0, 1, 77));
    CU_ASSERT(tern_match_fits(0, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 2, 0));
    CU_ASSERT(!tern_match_fits(0, 1, 5, 1, 1, 5));   /* Other context. */
    CU_ASSERT(!tern_match_fits(0, 1, 5, 0, 2, 5));   /* Other source. */
    CU_ASSERT(!tern_match_fits(0, 1, 5, 0, 1, 6));   /* Other tag. */
    /* ANY_TAG never matches the negative tags internal traffic may use. */
    CU_ASSERT(!tern_match_fits(0, 1, MPI_ANY_TAG, 0, 1, -7));
}

static void test_posted_order(void)
{
    struct tern_matchq q = { 0 };
    struct tern_request *a = recv_req(0, MPI_ANY_SOURCE, 1);
    struct tern_request *b = recv_req(0, 2, 1);
    struct tern_request *c = recv_req(0, 2, MPI_ANY_TAG);
    tern_match_post(&q, a);
    tern_match_post(&q, b);
    tern_match_post(&q, c);
    /* The earliest fitting receive wins, whatever its wildcards. */
    CU_ASSERT_PTR_EQUAL(tern_match_posted(&q, 0, 2, 1), a);
    CU_ASSERT_PTR_EQUAL(tern_match_posted(&q, 0, 2, 9), c);
    CU_ASSERT_PTR_EQUAL(tern_match_posted(&q, 0, 2, 1), b);
    CU_ASSERT_PTR_NULL(tern_match_posted(&q, 0, 2, 1));
    CU_ASSERT_PTR_NULL(q.posted_head);
    CU_ASSERT_PTR_NULL(q.posted_tail);
    free(a);
    free(b);
    free(c);
}

static void test_unexpected_order(void)
{
    struct tern_matchq q = { 0 };
    struct tern_unexp *m[4] = { message(0, 1, 7), message(0, 2, 7), message(0, 1, 8),
                                message(3, 1, 7) };
    for (int i = 0; i < 4; i++)
        tern_match_add_unexp(&q, m[i]);
    /* Peeking does not remove. */
    CU_ASSERT_PTR_EQUAL(tern_match_unexp(&q, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, 0), m[0]);
    CU_ASSERT_PTR_EQUAL(tern_match_unexp(&q, 0, 1, 8, 1), m[2]);
    CU_ASSERT_PTR_EQUAL(tern_match_unexp(&q, 0, MPI_ANY_SOURCE, 7, 1), m[0]);
    CU_ASSERT_PTR_EQUAL(tern_match_unexp(&q, 0, MPI_ANY_SOURCE, 7, 1), m[1]);
    CU_ASSERT_PTR_NULL(tern_match_unexp(&q, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, 1));
    CU_ASSERT_PTR_EQUAL(tern_match_unexp(&q, 3, 1, 7, 1), m[3]);
    CU_ASSERT_PTR_NULL(q.unexp_head);
    CU_ASSERT_PTR_NULL(q.unexp_tail);
    /* The tail is kept right: adding after draining works. */
    tern_match_add_unexp(&q, m[0]);
    CU_ASSERT_PTR_EQUAL(tern_match_unexp(&q, 0, 1, 7, 1), m[0]);
    for (int i = 0; i < 4; i++)
        free(m[i]);
}

static void test_unpost(void)
{
    struct tern_matchq q = { 0 };
    struct tern_request *a = recv_req(0, 1, 1), *b = recv_req(0, 1, 2);
    tern_match_post(&q, a);
    tern_match_post(&q, b);
    CU_ASSERT_EQUAL(tern_match_unpost(&q, b), 1);
    CU_ASSERT_EQUAL(tern_match_unpost(&q, b), 0);
    CU_ASSERT_PTR_EQUAL(q.posted_tail, a);
    struct tern_request *c = recv_req(0, 1, 3);
    tern_match_post(&q, c);
    CU_ASSERT_PTR_EQUAL(tern_match_posted(&q, 0, 1, 3), c);
    CU_ASSERT_PTR_EQUAL(tern_match_posted(&q, 0, 1, 1), a);
    free(a);
    free(b);
    free(c);
}

/* Every byte of an entry's data is writable (ASan checks it). */
static void fill(struct tern_unexp *u, size_t payload)
{
    memset(u->data, 0x5a, payload);
}

static void test_unexp_cache_reuses(void)
{
    /* A freed entry comes back for any payload of its size class. */
    struct tern_unexp *a = tern_unexp_alloc(8192);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    fill(a, 8192);
    tern_unexp_free(a);
    struct tern_unexp *b = tern_unexp_alloc(5000);
    CU_ASSERT_PTR_EQUAL(b, a);
    fill(b, 8192);                   /* The class's whole room is there. */
    /* Another class does not take it. */
    tern_unexp_free(b);
    struct tern_unexp *c = tern_unexp_alloc(100);
    CU_ASSERT_PTR_NOT_EQUAL(c, a);
    fill(c, 100);
    CU_ASSERT_PTR_EQUAL(tern_unexp_alloc(8192), a);
    tern_unexp_free(a);
    tern_unexp_free(c);
    /* Zero-byte (envelope only) entries are cached too. */
    struct tern_unexp *z = tern_unexp_alloc(0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(z);
    tern_unexp_free(z);
    CU_ASSERT_PTR_EQUAL(tern_unexp_alloc(0), z);
    tern_unexp_free(z);
    tern_unexp_drop_cache();
}

static void test_unexp_cache_bounded(void)
{
    /* A burst of 32 KiB entries is kept up to the budget (4 MiB: 128 of
     * them) and the rest goes back to malloc. The cache hands out the last
     * kept first, so a second burst starts with entries 127, 126, ... 0 of
     * the first (a larger budget would start with entry 199). */
    enum { BURST = 200, KEPT = 128 };
    struct tern_unexp *u[BURST], *v[BURST];
    for (int i = 0; i < BURST; i++) {
        u[i] = tern_unexp_alloc(32768);
        CU_ASSERT_PTR_NOT_NULL_FATAL(u[i]);
        fill(u[i], 32768);
    }
    for (int i = 0; i < BURST; i++)
        tern_unexp_free(u[i]);
    int in_order = 0;
    for (int i = 0; i < BURST; i++) {
        v[i] = tern_unexp_alloc(32768);
        CU_ASSERT_PTR_NOT_NULL_FATAL(v[i]);
        in_order += i < KEPT && v[i] == u[KEPT - 1 - i];
    }
    CU_ASSERT_EQUAL(in_order, KEPT);
    for (int i = 0; i < BURST; i++)
        tern_unexp_free(v[i]);
    /* Larger than the largest class: never cached, still usable. */
    struct tern_unexp *big = tern_unexp_alloc(1 << 20);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    fill(big, 1 << 20);
    tern_unexp_free(big);
    tern_unexp_drop_cache();
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "envelope fits", test_fits },
        { "posted receives match in posting order", test_posted_order },
        { "unexpected messages match in arrival order", test_unexpected_order },
        { "unposting a receive", test_unpost },
        { "unexpected entries are reused by size class", test_unexp_cache_reuses },
        { "the unexpected-entry cache is bounded", test_unexp_cache_bounded },
        { NULL, NULL },
    };
    return cunit_run("matching engine", tests);
}
