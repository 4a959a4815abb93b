/*
 * coll_suite_rooted: MPI_Bcast, MPI_Gather, MPI_Gatherv, MPI_Scatter and
 * MPI_Scatterv against references every rank computes locally (see
 * coll_util.h), for whatever algorithms the library picks; the .test wrapper
 * forces each of Tern's algorithms in turn with TERN_COLL_<NAME>.
 *
 * Matrix: datatypes MPI_INT, MPI_DOUBLE, MPI_2INT, a vector type with gaps
 * and a contiguous type x counts 0, 1, 7 and 1000 x roots 0, p-1 and p/2 x
 * MPI_IN_PLACE at the root and not (Gather(v): sendbuf at the root;
 * Scatter(v): recvbuf at the root). The v forms give every rank a different
 * count (some 0) and place the blocks in reverse rank order with gaps that
 * must stay untouched. Non-roots pass NULL for the root-only buffers.
 * Mixed signatures: the root and the others describe the same data with
 * different types (n vector elements against 2n MPI_INTs, n contiguous
 * triples against 3n MPI_DOUBLEs), for the v forms too. Large: 1 MiB per
 * rank of MPI_INT (and of the vector type for MPI_Bcast) at every root.
 *
 * Uses only the standard MPI API.
 */
#include "coll_util.h"

static int rank, size, ncase;
static const MPI_Comm comm = MPI_COMM_WORLD;

/* Input of rank q in the current case. */
static uint32_t seed_of(int q, int c) { return ct_seed(q, c, 11); }

/* Bcast: the root describes the data as sn elements of st, the others as rn
 * of rt (the same signature). */
static void bcast_case(const struct ct_type *st, size_t sn, const struct ct_type *rt,
                       size_t rn, int root)
{
    int c = ncase++;
    const struct ct_type *t = rank == root ? st : rt;
    size_t n = rank == root ? sn : rn;
    void *buf = ct_alloc(t, n), *exp = ct_alloc(t, n);
    ct_fill(t, CT_SUM, exp, n, seed_of(root, c));
    if (rank == root)
        ct_fill(t, CT_SUM, buf, n, seed_of(root, c));
    TT_MPI(MPI_Bcast(buf, (int)n, t->dt, root, comm));
    CT_CHECK(t, buf, exp, n, "MPI_Bcast case %d: %zu x %s, root %d (sends %zu x %s)", c,
             n, t->name, root, sn, st->name);
    free(buf);
    free(exp);
}

/* Gather: every rank sends sn of st; the root receives rn of rt per rank. */
static void gather_case(const struct ct_type *st, size_t sn, const struct ct_type *rt,
                        size_t rn, int root, int inplace)
{
    int c = ncase++;
    void *sbuf = ct_alloc(st, sn), *rbuf = NULL, *exp = NULL;
    ct_fill(st, CT_SUM, sbuf, sn, seed_of(rank, c));
    if (rank == root) {
        rbuf = ct_alloc(rt, rn * (size_t)size);
        exp = ct_alloc(rt, rn * (size_t)size);
        for (int q = 0; q < size; q++)
            ct_fill_at(rt, CT_SUM, exp, (size_t)q * rn, 0, rn, seed_of(q, c));
        if (inplace)
            ct_fill_at(rt, CT_SUM, rbuf, (size_t)root * rn, 0, rn, seed_of(root, c));
    }
    TT_MPI(MPI_Gather(inplace && rank == root ? MPI_IN_PLACE : sbuf, (int)sn, st->dt,
                      rbuf, (int)rn, rt->dt, root, comm));
    if (rank == root)
        CT_CHECK(rt, rbuf, exp, rn * (size_t)size,
                 "MPI_Gather case %d: %zu x %s per rank, root %d%s (sent as %zu x %s)", c,
                 rn, rt->name, root, inplace ? ", in place" : "", sn, st->name);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* Scatter: the root sends sn of st per rank; every rank receives rn of rt. */
static void scatter_case(const struct ct_type *st, size_t sn, const struct ct_type *rt,
                         size_t rn, int root, int inplace)
{
    int c = ncase++;
    size_t all = sn * (size_t)size;
    void *sbuf = NULL, *rbuf = ct_alloc(rt, rn), *exp = ct_alloc(rt, rn);
    if (rank == root) {
        sbuf = ct_alloc(st, all);
        ct_fill(st, CT_SUM, sbuf, all, seed_of(root, c));
    }
    ct_fill_at(rt, CT_SUM, exp, 0, (size_t)rank * rn, rn, seed_of(root, c));
    int in = inplace && rank == root;
    TT_MPI(MPI_Scatter(sbuf, (int)sn, st->dt, in ? MPI_IN_PLACE : rbuf, (int)rn, rt->dt,
                       root, comm));
    if (!in)
        CT_CHECK(rt, rbuf, exp, rn, "MPI_Scatter case %d: %zu x %s, root %d (sent as %zu x %s)",
                 c, rn, rt->name, root, sn, st->name);
    if (rank == root) {
        void *orig = ct_alloc(st, all);
        ct_fill(st, CT_SUM, orig, all, seed_of(root, c));
        CT_CHECK(st, sbuf, orig, all, "MPI_Scatter case %d: the root's send buffer%s", c,
                 in ? " (in place)" : "");
        free(orig);
    }
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* The v forms' layout, in units of k elements: rank q has cnt[q] elements
 * at dsp[q]; blocks lie in reverse rank order with k elements between
 * them. Returns the extent in elements. */
static size_t v_layout(size_t n, size_t k, int *cnt, int *dsp)
{
    size_t off = k;
    for (int q = size - 1; q >= 0; q--) {
        cnt[q] = n == 0 || q % 3 == 1 ? 0 : (int)((n + (size_t)q) * k);
        dsp[q] = (int)off;
        off += (size_t)cnt[q] + k;
    }
    return off;
}

/* Gatherv: rank q sends about n units of sk elements of st; the root
 * receives them as units of rk elements of rt (the same signature). */
static void gatherv_case(const struct ct_type *st, size_t sk, const struct ct_type *rt,
                         size_t rk, size_t n, int root, int inplace)
{
    int c = ncase++;
    int *cnt = tt_malloc(sizeof(int) * (size_t)size), *dsp = tt_malloc(sizeof(int) * (size_t)size);
    size_t total = v_layout(n, rk, cnt, dsp), mine = (size_t)cnt[rank] / rk * sk;
    void *sbuf = ct_alloc(st, mine), *rbuf = NULL, *exp = NULL;
    ct_fill(st, CT_SUM, sbuf, mine, seed_of(rank, c));
    if (rank == root) {
        rbuf = ct_alloc(rt, total);
        exp = ct_alloc(rt, total);
        for (int q = 0; q < size; q++)
            ct_fill_at(rt, CT_SUM, exp, (size_t)dsp[q], 0, (size_t)cnt[q], seed_of(q, c));
        if (inplace)
            ct_fill_at(rt, CT_SUM, rbuf, (size_t)dsp[root], 0, (size_t)cnt[root],
                       seed_of(root, c));
    }
    TT_MPI(MPI_Gatherv(inplace && rank == root ? MPI_IN_PLACE : sbuf, (int)mine, st->dt,
                       rbuf, rank == root ? cnt : NULL, rank == root ? dsp : NULL, rt->dt,
                       root, comm));
    if (rank == root)
        CT_CHECK(rt, rbuf, exp, total,
                 "MPI_Gatherv case %d: about %zu x %s, root %d%s (sent as %s)", c, n * rk,
                 rt->name, root, inplace ? ", in place" : "", st->name);
    free(cnt);
    free(dsp);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* Scatterv: the root sends units of sk elements of st; rank q receives
 * them as units of rk elements of rt. */
static void scatterv_case(const struct ct_type *st, size_t sk, const struct ct_type *rt,
                          size_t rk, size_t n, int root, int inplace)
{
    int c = ncase++;
    int *cnt = tt_malloc(sizeof(int) * (size_t)size), *dsp = tt_malloc(sizeof(int) * (size_t)size);
    size_t total = v_layout(n, sk, cnt, dsp), mine = (size_t)cnt[rank] / sk * rk;
    void *sbuf = NULL, *rbuf = ct_alloc(rt, mine), *exp = ct_alloc(rt, mine);
    if (rank == root) {
        sbuf = ct_alloc(st, total);
        ct_fill(st, CT_SUM, sbuf, total, seed_of(root, c));
    }
    /* Rank q's block starts at unit dsp[q] / sk of the root's fill. */
    ct_fill_at(rt, CT_SUM, exp, 0, (size_t)dsp[rank] / sk * rk, mine, seed_of(root, c));
    int in = inplace && rank == root;
    TT_MPI(MPI_Scatterv(sbuf, rank == root ? cnt : NULL, rank == root ? dsp : NULL, st->dt,
                        in ? MPI_IN_PLACE : rbuf, (int)mine, rt->dt, root, comm));
    if (!in)
        CT_CHECK(rt, rbuf, exp, mine, "MPI_Scatterv case %d: %zu x %s, root %d (sent as %s)",
                 c, mine, rt->name, root, st->name);
    free(cnt);
    free(dsp);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* Roots 0, p - 1 and p / 2, each once. */
static int roots(int *r)
{
    int n = 0;
    int cand[3] = {0, size - 1, size / 2};
    for (int i = 0; i < 3; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= r[j] == cand[i];
        if (!dup)
            r[n++] = cand[i];
    }
    return n;
}

static void matrix(void)
{
    static const enum ct_tid types[] = {CT_T_INT, CT_T_DOUBLE, CT_T_2INT, CT_T_VEC,
                                        CT_T_CONTIG};
    static const size_t counts[] = {0, 1, 7, 1000};
    int rt[3], nr = roots(rt);
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const struct ct_type *t = &ct_types[types[ti]];
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            size_t n = counts[ci];
            for (int ri = 0; ri < nr; ri++) {
                bcast_case(t, n, t, n, rt[ri]);
                for (int in = 0; in < 2; in++) {
                    gather_case(t, n, t, n, rt[ri], in);
                    scatter_case(t, n, t, n, rt[ri], in);
                    gatherv_case(t, 1, t, 1, n, rt[ri], in);
                    scatterv_case(t, 1, t, 1, n, rt[ri], in);
                }
            }
        }
    }
}

/* The same data described by different types at the root and elsewhere. */
static void mixed(void)
{
    const struct ct_type *vec = &ct_types[CT_T_VEC], *in = &ct_types[CT_T_INT];
    const struct ct_type *con = &ct_types[CT_T_CONTIG], *dbl = &ct_types[CT_T_DOUBLE];
    static const size_t counts[] = {1, 7, 1000};
    int root = size / 2;
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        size_t n = counts[ci];
        bcast_case(vec, n, in, 2 * n, root);
        bcast_case(in, 2 * n, vec, n, root);
        bcast_case(con, n, dbl, 3 * n, root);
        gather_case(vec, n, in, 2 * n, root, 0);
        gather_case(in, 2 * n, vec, n, root, 0);
        gather_case(dbl, 3 * n, con, n, root, 0);
        scatter_case(vec, n, in, 2 * n, root, 0);
        scatter_case(in, 2 * n, vec, n, root, 0);
        scatter_case(con, n, dbl, 3 * n, 0, 0);
        gatherv_case(vec, 1, in, 2, n, root, 0);
        gatherv_case(in, 2, vec, 1, n, 0, 0);
        gatherv_case(dbl, 3, con, 1, n, size - 1, 0);
        scatterv_case(vec, 1, in, 2, n, root, 0);
        scatterv_case(in, 2, vec, 1, n, 0, 0);
        scatterv_case(con, 1, dbl, 3, n, size - 1, 0);
    }
}

/* 1 MiB of data per rank. */
static void large(void)
{
    const struct ct_type *in = &ct_types[CT_T_INT], *vec = &ct_types[CT_T_VEC];
    size_t n = ct_count_for(in, 1 << 20), nv = ct_count_for(vec, 1 << 20);
    int rt[3], nr = roots(rt);
    for (int ri = 0; ri < nr; ri++) {
        bcast_case(in, n, in, n, rt[ri]);
        bcast_case(vec, nv, vec, nv, rt[ri]);
        gather_case(in, n, in, n, rt[ri], ri == 1);
        scatter_case(in, n, in, n, rt[ri], ri == 2);
    }
    gatherv_case(in, 1, in, 1, n, size - 1, 0);
    scatterv_case(in, 1, in, 1, n, 0, 1);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_suite_rooted");
    rank = tt_rank;
    size = tt_size;
    ct_init();
    matrix();
    large();
    mixed(); /* Last: a failure here hides nothing else. */
    ct_finalize();
    return tt_finish();
}
