/*
 * Groups: constructors, set operations, range expansion, rank translation
 * and comparison, against results worked out by hand, plus a randomized
 * cross-check of the set operations against a naive reference.
 *
 * The module is told this process is world rank 2 of 10, so each result's
 * own rank can be checked too.
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "libmpi/core/group.h"
#include "tern/err.h"
#include "tests/unit/cunit_main.h"

#define ME 2
#define WORLD 10

static struct tern_group *make(int n, const int *world)
{
    struct tern_group *g = NULL;
    CU_ASSERT_EQUAL_FATAL(tern_group_from_world(n, world, &g), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    return g;
}

static struct tern_group *world_group(void)
{
    int w[WORLD];
    for (int i = 0; i < WORLD; i++)
        w[i] = i;
    return make(WORLD, w);
}

/* 1 if g holds exactly the world ranks `want` in that order. */
static int holds(const struct tern_group *g, int n, const int *want)
{
    if (g->size != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (g->world[i] != want[i])
            return 0;
    return 1;
}

static void test_basics(void)
{
    tern_group_init(ME, WORLD);
    struct tern_group *w = world_group();
    CU_ASSERT_EQUAL(w->size, WORLD);
    CU_ASSERT_EQUAL(w->rank, ME);
    CU_ASSERT_PTR_EQUAL(tern_group_get(w->handle), w);
    CU_ASSERT_PTR_EQUAL(tern_group_get(MPI_GROUP_EMPTY), tern_group_empty());
    CU_ASSERT_PTR_NULL(tern_group_get(MPI_GROUP_NULL));
    CU_ASSERT_EQUAL(tern_group_empty()->size, 0);
    CU_ASSERT_EQUAL(tern_group_empty()->rank, MPI_UNDEFINED);
    CU_ASSERT_EQUAL(tern_group_rank_of(w, 7), 7);

    int other[] = { 4, 9 };
    struct tern_group *o = make(2, other);
    CU_ASSERT_EQUAL(o->rank, MPI_UNDEFINED);      /* World rank 2 is not in it. */
    CU_ASSERT_EQUAL(tern_group_rank_of(o, 9), 1);
    CU_ASSERT_EQUAL(tern_group_rank_of(o, 2), MPI_UNDEFINED);

    /* References: the object lives until the last release. */
    tern_group_retain(o);
    tern_group_release(o);
    CU_ASSERT_PTR_EQUAL(tern_group_get(o->handle), o);
    tern_group_release(o);
    tern_group_release(w);
    /* The empty group ignores references. */
    tern_group_release(tern_group_empty());
    CU_ASSERT_PTR_EQUAL(tern_group_get(MPI_GROUP_EMPTY), tern_group_empty());
}

static void test_incl_excl(void)
{
    tern_group_init(ME, WORLD);
    struct tern_group *w = world_group(), *g;
    int in[] = { 7, 2, 5 };
    CU_ASSERT_EQUAL(tern_group_incl(w, 3, in, &g), 0);
    CU_ASSERT(holds(g, 3, (int[]){ 7, 2, 5 }));
    CU_ASSERT_EQUAL(g->rank, 1);

    /* Incl from a permuted group picks by rank in that group. */
    struct tern_group *g2;
    int sel[] = { 2, 0 };
    CU_ASSERT_EQUAL(tern_group_incl(g, 2, sel, &g2), 0);
    CU_ASSERT(holds(g2, 2, (int[]){ 5, 7 }));
    CU_ASSERT_EQUAL(g2->rank, MPI_UNDEFINED);
    tern_group_release(g2);

    int ex[] = { 0, 9, 3 };
    CU_ASSERT_EQUAL(tern_group_excl(w, 3, ex, &g2), 0);
    CU_ASSERT(holds(g2, 7, (int[]){ 1, 2, 4, 5, 6, 7, 8 }));
    CU_ASSERT_EQUAL(g2->rank, 1);
    tern_group_release(g2);

    /* Empty results are MPI_GROUP_EMPTY. */
    CU_ASSERT_EQUAL(tern_group_incl(w, 0, NULL, &g2), 0);
    CU_ASSERT_PTR_EQUAL(g2, tern_group_empty());
    int all[] = { 2, 0, 1 };
    CU_ASSERT_EQUAL(tern_group_excl(g, 3, all, &g2), 0);
    CU_ASSERT_PTR_EQUAL(g2, tern_group_empty());
    CU_ASSERT_EQUAL(tern_group_excl(g, 0, NULL, &g2), 0);
    CU_ASSERT(holds(g2, 3, (int[]){ 7, 2, 5 }));
    tern_group_release(g2);
    tern_group_release(g);
    tern_group_release(w);
}

static void test_check_ranks(void)
{
    tern_group_init(ME, WORLD);
    int w4[] = { 3, 1, 4, 8 };
    struct tern_group *g = make(4, w4);
    int bad = -1, dup = -1;
    CU_ASSERT_EQUAL(tern_group_check_ranks(g, 4, (int[]){ 3, 0, 2, 1 }, &bad, &dup), 0);
    CU_ASSERT_EQUAL(tern_group_check_ranks(g, 3, (int[]){ 0, 4, 1 }, &bad, &dup), TERN_ERANK);
    CU_ASSERT_EQUAL(bad, 1);
    CU_ASSERT_EQUAL(dup, 0);
    CU_ASSERT_EQUAL(tern_group_check_ranks(g, 2, (int[]){ -1, 0 }, &bad, &dup), TERN_ERANK);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(tern_group_check_ranks(g, 4, (int[]){ 2, 3, 0, 3 }, &bad, &dup), TERN_ERANK);
    CU_ASSERT_EQUAL(bad, 3);
    CU_ASSERT_EQUAL(dup, 1);
    /* MPI_PROC_NULL is no rank to include. */
    CU_ASSERT_EQUAL(tern_group_check_ranks(g, 1, (int[]){ MPI_PROC_NULL }, &bad, &dup), TERN_ERANK);
    tern_group_release(g);
}

static void expect_ranges(const struct tern_group *g, int n, const int (*r)[3],
                          int want_n, const int *want)
{
    int *list = NULL, count = -1, bad = -1;
    CU_ASSERT_EQUAL_FATAL(tern_group_expand_ranges(g, n, r, &list, &count, &bad), 0);
    CU_ASSERT_EQUAL(count, want_n);
    if (count == want_n)
        CU_ASSERT(want_n == 0 || !memcmp(list, want, sizeof(int) * (size_t)want_n));
    free(list);
}

static void test_ranges(void)
{
    tern_group_init(ME, WORLD);
    struct tern_group *w = world_group(), *g;
    expect_ranges(w, 1, (const int[][3]){ { 0, 9, 3 } }, 4, (int[]){ 0, 3, 6, 9 });
    expect_ranges(w, 1, (const int[][3]){ { 9, 0, -4 } }, 3, (int[]){ 9, 5, 1 });
    expect_ranges(w, 1, (const int[][3]){ { 4, 4, 7 } }, 1, (int[]){ 4 });
    /* Direction and stride disagree: no rank. */
    expect_ranges(w, 1, (const int[][3]){ { 5, 2, 1 } }, 0, NULL);
    /* Several triplets, in order; the last one's end is never reached. */
    expect_ranges(w, 2, (const int[][3]){ { 1, 2, 1 }, { 8, 6, -2 } }, 4, (int[]){ 1, 2, 8, 6 });

    int *list = NULL, count, bad = -1;
    CU_ASSERT_EQUAL(tern_group_expand_ranges(w, 2, (const int[][3]){ { 0, 1, 1 }, { 3, 4, 0 } },
                                             &list, &count, &bad), TERN_EARG);
    CU_ASSERT_EQUAL(bad, 1);
    CU_ASSERT_EQUAL(tern_group_expand_ranges(w, 1, (const int[][3]){ { 8, 12, 2 } },
                                             &list, &count, &bad), TERN_ERANK);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(tern_group_expand_ranges(w, 2, (const int[][3]){ { 0, 6, 3 }, { 7, 0, -4 } },
                                             &list, &count, &bad), TERN_ERANK);
    CU_ASSERT_EQUAL(bad, 1);   /* 7 is new, 3 was named by the first triplet. */
    CU_ASSERT_EQUAL(tern_group_expand_ranges(w, 2, (const int[][3]){ { 0, 6, 3 }, { 7, 1, -3 } },
                                             &list, &count, &bad), 0);
    CU_ASSERT_EQUAL(count, 6); /* 0 3 6 7 4 1: all distinct. */
    free(list);
    CU_ASSERT_EQUAL(tern_group_expand_ranges(w, 2, (const int[][3]){ { 0, 6, 3 }, { 6, 0, -3 } },
                                             &list, &count, &bad), TERN_ERANK);
    CU_ASSERT_EQUAL(bad, 1);   /* 6 was named by the first triplet. */

    /* Range incl/excl through the expanded list. */
    int *l2;
    CU_ASSERT_EQUAL(tern_group_expand_ranges(w, 1, (const int[][3]){ { 1, 9, 4 } },
                                             &l2, &count, &bad), 0);
    CU_ASSERT_EQUAL(tern_group_excl(w, count, l2, &g), 0);
    CU_ASSERT(holds(g, 7, (int[]){ 0, 2, 3, 4, 6, 7, 8 }));
    tern_group_release(g);
    free(l2);
    tern_group_release(w);
}

static void test_set_ops(void)
{
    tern_group_init(ME, WORLD);
    struct tern_group *a = make(3, (int[]){ 5, 1, 3 });
    struct tern_group *b = make(4, (int[]){ 3, 4, 1, 0 });
    struct tern_group *g;

    CU_ASSERT_EQUAL(tern_group_union(a, b, &g), 0);
    CU_ASSERT(holds(g, 5, (int[]){ 5, 1, 3, 4, 0 }));
    tern_group_release(g);
    CU_ASSERT_EQUAL(tern_group_union(b, a, &g), 0);
    CU_ASSERT(holds(g, 5, (int[]){ 3, 4, 1, 0, 5 }));
    tern_group_release(g);

    CU_ASSERT_EQUAL(tern_group_intersection(a, b, &g), 0);
    CU_ASSERT(holds(g, 2, (int[]){ 1, 3 }));
    tern_group_release(g);
    CU_ASSERT_EQUAL(tern_group_intersection(b, a, &g), 0);
    CU_ASSERT(holds(g, 2, (int[]){ 3, 1 }));
    tern_group_release(g);

    CU_ASSERT_EQUAL(tern_group_difference(a, b, &g), 0);
    CU_ASSERT(holds(g, 1, (int[]){ 5 }));
    tern_group_release(g);
    CU_ASSERT_EQUAL(tern_group_difference(b, a, &g), 0);
    CU_ASSERT(holds(g, 2, (int[]){ 4, 0 }));
    tern_group_release(g);

    /* Empty results and empty operands. */
    CU_ASSERT_EQUAL(tern_group_difference(a, a, &g), 0);
    CU_ASSERT_PTR_EQUAL(g, tern_group_empty());
    struct tern_group *c = make(2, (int[]){ 9, 2 });
    CU_ASSERT_EQUAL(tern_group_intersection(a, c, &g), 0);
    CU_ASSERT_PTR_EQUAL(g, tern_group_empty());
    CU_ASSERT_EQUAL(tern_group_union(tern_group_empty(), c, &g), 0);
    CU_ASSERT(holds(g, 2, (int[]){ 9, 2 }));
    CU_ASSERT_EQUAL(g->rank, 1);
    tern_group_release(g);
    CU_ASSERT_EQUAL(tern_group_union(tern_group_empty(), tern_group_empty(), &g), 0);
    CU_ASSERT_PTR_EQUAL(g, tern_group_empty());
    tern_group_release(a);
    tern_group_release(b);
    tern_group_release(c);
}

static void test_translate(void)
{
    tern_group_init(ME, WORLD);
    struct tern_group *a = make(3, (int[]){ 5, 1, 3 });
    struct tern_group *b = make(4, (int[]){ 3, 4, 1, 0 });
    int in[] = { 2, 0, MPI_PROC_NULL, 1 }, out[4] = { -7, -7, -7, -7 };
    CU_ASSERT_EQUAL(tern_group_translate(a, 4, in, b, out), 0);
    CU_ASSERT_EQUAL(out[0], 0);
    CU_ASSERT_EQUAL(out[1], MPI_UNDEFINED);
    CU_ASSERT_EQUAL(out[2], MPI_PROC_NULL);
    CU_ASSERT_EQUAL(out[3], 2);
    int bad = -1;
    CU_ASSERT_EQUAL(tern_group_check_translate(a, 4, in, &bad), 0);
    CU_ASSERT_EQUAL(tern_group_check_translate(a, 2, (int[]){ 1, 3 }, &bad), TERN_ERANK);
    CU_ASSERT_EQUAL(bad, 1);
    CU_ASSERT_EQUAL(tern_group_check_translate(a, 1, (int[]){ MPI_ANY_SOURCE }, &bad), TERN_ERANK);
    /* Into the empty group everything is undefined. */
    CU_ASSERT_EQUAL(tern_group_translate(a, 1, (int[]){ 0 }, tern_group_empty(), out), 0);
    CU_ASSERT_EQUAL(out[0], MPI_UNDEFINED);
    tern_group_release(a);
    tern_group_release(b);
}

static void test_compare(void)
{
    tern_group_init(ME, WORLD);
    struct tern_group *a = make(3, (int[]){ 5, 1, 3 });
    struct tern_group *a2 = make(3, (int[]){ 5, 1, 3 });
    struct tern_group *p = make(3, (int[]){ 3, 5, 1 });
    struct tern_group *d = make(3, (int[]){ 5, 1, 4 });
    struct tern_group *s = make(2, (int[]){ 5, 1 });
    int r = 0;
    CU_ASSERT_EQUAL(tern_group_compare(a, a, &r), 0);
    CU_ASSERT_EQUAL(r, MPI_IDENT);
    CU_ASSERT_EQUAL(tern_group_compare(a, a2, &r), 0);
    CU_ASSERT_EQUAL(r, MPI_IDENT);
    CU_ASSERT_EQUAL(tern_group_compare(a, p, &r), 0);
    CU_ASSERT_EQUAL(r, MPI_SIMILAR);
    CU_ASSERT_EQUAL(tern_group_compare(a, d, &r), 0);
    CU_ASSERT_EQUAL(r, MPI_UNEQUAL);
    CU_ASSERT_EQUAL(tern_group_compare(a, s, &r), 0);
    CU_ASSERT_EQUAL(r, MPI_UNEQUAL);
    CU_ASSERT_EQUAL(tern_group_compare(tern_group_empty(), tern_group_empty(), &r), 0);
    CU_ASSERT_EQUAL(r, MPI_IDENT);
    CU_ASSERT_EQUAL(tern_group_compare(tern_group_empty(), s, &r), 0);
    CU_ASSERT_EQUAL(r, MPI_UNEQUAL);
    tern_group_release(a);
    tern_group_release(a2);
    tern_group_release(p);
    tern_group_release(d);
    tern_group_release(s);
}

/* A random group: a random subset of 0..n-1 in random order. */
static struct tern_group *random_group(int n, unsigned *seed)
{
    int w[64], k = 0;
    for (int i = 0; i < n; i++)
        if (rand_r(seed) % 2)
            w[k++] = i;
    for (int i = k - 1; i > 0; i--) {
        int j = rand_r(seed) % (i + 1), t = w[i];
        w[i] = w[j];
        w[j] = t;
    }
    struct tern_group *g = NULL;
    CU_ASSERT_EQUAL_FATAL(tern_group_from_world(k, w, &g), 0);
    return g;
}

static int naive_in(const struct tern_group *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w)
            return 1;
    return 0;
}

/* The set operations against the textbook definitions, on random groups. */
static void test_random(void)
{
    tern_group_init(ME, 40);
    unsigned seed = 12345;
    for (int iter = 0; iter < 300; iter++) {
        struct tern_group *a = random_group(40, &seed), *b = random_group(40, &seed);
        struct tern_group *u, *x, *d;
        CU_ASSERT_EQUAL_FATAL(tern_group_union(a, b, &u), 0);
        CU_ASSERT_EQUAL_FATAL(tern_group_intersection(a, b, &x), 0);
        CU_ASSERT_EQUAL_FATAL(tern_group_difference(a, b, &d), 0);
        int want[80], n = 0;
        for (int i = 0; i < a->size; i++)
            want[n++] = a->world[i];
        for (int i = 0; i < b->size; i++)
            if (!naive_in(a, b->world[i]))
                want[n++] = b->world[i];
        CU_ASSERT(holds(u, n, want));
        CU_ASSERT_EQUAL(u->rank, naive_in(u, ME) ? tern_group_rank_of(u, ME) : MPI_UNDEFINED);
        n = 0;
        for (int i = 0; i < a->size; i++)
            if (naive_in(b, a->world[i]))
                want[n++] = a->world[i];
        CU_ASSERT(holds(x, n, want));
        n = 0;
        for (int i = 0; i < a->size; i++)
            if (!naive_in(b, a->world[i]))
                want[n++] = a->world[i];
        CU_ASSERT(holds(d, n, want));
        /* Translation a -> b agrees with looking each member up. */
        int in[64], out[64];
        for (int i = 0; i < a->size; i++)
            in[i] = i;
        CU_ASSERT_EQUAL(tern_group_translate(a, a->size, in, b, out), 0);
        for (int i = 0; i < a->size; i++)
            CU_ASSERT_EQUAL(out[i], tern_group_rank_of(b, a->world[i]));
        tern_group_release(a);
        tern_group_release(b);
        tern_group_release(u);
        tern_group_release(x);
        tern_group_release(d);
    }
    tern_group_finalize();
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "basics", test_basics },
        { "incl_excl", test_incl_excl },
        { "check_ranks", test_check_ranks },
        { "ranges", test_ranges },
        { "set_ops", test_set_ops },
        { "translate", test_translate },
        { "compare", test_compare },
        { "random", test_random },
        { NULL, NULL }
    };
    return cunit_run("group", tests);
}
