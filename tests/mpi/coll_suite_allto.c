/*
 * coll_suite_allto: MPI_Barrier, MPI_Allgather, MPI_Allgatherv,
 * MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw against references every
 * rank computes locally (see coll_util.h), for whatever algorithms the
 * library picks; the .test wrapper forces each of Tern's algorithms in turn
 * with TERN_COLL_<NAME>.
 *
 * Barrier: no rank leaves before the last one entered (a late rank, 0, p-1
 * or p/2 in turn, sleeps first; entry and exit times on the host's
 * monotonic clock, which all ranks of one host share, are compared at
 * rank 0), and many barriers in a row.
 * The others: datatypes MPI_INT, MPI_DOUBLE, MPI_2INT, a vector type with
 * gaps and a contiguous type x counts 0, 1, 7 and 1000 x MPI_IN_PLACE and
 * not (the rank's own input then sits in recvbuf). The v forms give every
 * pair of ranks a different count (some 0) and place the blocks in
 * reverse order with gaps that must stay untouched; Alltoallw sends each
 * block as n vector elements to be received as 2n MPI_INTs or the other
 * way round, at byte displacements. Mixed signatures for Allgather,
 * Allgatherv and Alltoall too. Large: 1 MiB per rank of MPI_INT for each collective.
 *
 * Uses only the standard MPI API (and the POSIX monotonic clock).
 */
#include "coll_util.h"

#define SALT 41

static int rank, size, ncase;
static const MPI_Comm comm = MPI_COMM_WORLD;

static uint32_t seed_of(int q, int c) { return ct_seed(q, c, SALT); }

/* Barrier ------------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void barrier_case(int late)
{
    double t[2];
    tt_sync();
    if (rank == late)
        tt_sleep_ms(20);
    t[0] = now();
    TT_MPI(MPI_Barrier(comm));
    t[1] = now();
    if (rank != 0) {
        TT_MPI(MPI_Send(t, 2, MPI_DOUBLE, 0, 100, comm));
        return;
    }
    double enter = rank == late ? t[0] : 0, first_exit = t[1];
    for (int q = 1; q < size; q++) {
        double u[2];
        TT_MPI(MPI_Recv(u, 2, MPI_DOUBLE, q, 100, comm, MPI_STATUS_IGNORE));
        if (q == late)
            enter = u[0];
        first_exit = u[1] < first_exit ? u[1] : first_exit;
    }
    TT_CHECK(first_exit >= enter,
             "MPI_Barrier: a rank left %.6f s before rank %d entered", enter - first_exit,
             late);
}

static void barriers(void)
{
    int cand[3] = {0, size - 1, size / 2};
    for (int i = 0; i < 3; i++)
        barrier_case(cand[i]);
    for (int i = 0; i < 50; i++)
        TT_MPI(MPI_Barrier(comm));
}

/* Allgather(v) ------------------------------------------------------------- */

/* Every rank sends sn of st and receives rn of rt per rank. */
static void allgather_case(const struct ct_type *st, size_t sn, const struct ct_type *rt,
                           size_t rn, int inplace)
{
    int c = ncase++;
    size_t all = rn * (size_t)size;
    void *sbuf = ct_alloc(st, sn), *rbuf = ct_alloc(rt, all), *exp = ct_alloc(rt, all);
    ct_fill(st, CT_SUM, sbuf, sn, seed_of(rank, c));
    for (int q = 0; q < size; q++)
        ct_fill_at(rt, CT_SUM, exp, (size_t)q * rn, 0, rn, seed_of(q, c));
    if (inplace)
        ct_fill_at(rt, CT_SUM, rbuf, (size_t)rank * rn, 0, rn, seed_of(rank, c));
    TT_MPI(MPI_Allgather(inplace ? MPI_IN_PLACE : sbuf, (int)sn, st->dt, rbuf, (int)rn,
                         rt->dt, comm));
    CT_CHECK(rt, rbuf, exp, all, "MPI_Allgather case %d: %zu x %s per rank%s (sent as %zu x %s)",
             c, rn, rt->name, inplace ? ", in place" : "", sn, st->name);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* Rank q's block has cnt[q] elements at dsp[q], in reverse rank order with
 * k elements between blocks; counts in units of k elements. Returns the
 * extent in elements. */
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

/* Every rank sends about n units of sk elements of st and receives each
 * block as units of rk elements of rt (the same signature). */
static void allgatherv_case(const struct ct_type *st, size_t sk, const struct ct_type *rt,
                            size_t rk, size_t n, int inplace)
{
    int c = ncase++;
    int *cnt = tt_malloc(sizeof(int) * (size_t)size), *dsp = tt_malloc(sizeof(int) * (size_t)size);
    size_t total = v_layout(n, rk, cnt, dsp), mine = (size_t)cnt[rank] / rk * sk;
    void *sbuf = ct_alloc(st, mine), *rbuf = ct_alloc(rt, total), *exp = ct_alloc(rt, total);
    ct_fill(st, CT_SUM, sbuf, mine, seed_of(rank, c));
    for (int q = 0; q < size; q++)
        ct_fill_at(rt, CT_SUM, exp, (size_t)dsp[q], 0, (size_t)cnt[q], seed_of(q, c));
    if (inplace)
        ct_fill_at(rt, CT_SUM, rbuf, (size_t)dsp[rank], 0, (size_t)cnt[rank],
                   seed_of(rank, c));
    TT_MPI(MPI_Allgatherv(inplace ? MPI_IN_PLACE : sbuf, (int)mine, st->dt, rbuf, cnt, dsp,
                          rt->dt, comm));
    CT_CHECK(rt, rbuf, exp, total,
             "MPI_Allgatherv case %d: about %zu x %s per rank%s (sent as %s)", c, n * rk,
             rt->name, inplace ? ", in place" : "", st->name);
    free(cnt);
    free(dsp);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* Alltoall ------------------------------------------------------------------ */

/* Block q of rank r's input (elements [q sn, (q + 1) sn) of its fill) goes
 * to rank q. In place, the input is in recvbuf, described by rt and rn. */
static void alltoall_case(const struct ct_type *st, size_t sn, const struct ct_type *rt,
                          size_t rn, int inplace)
{
    int c = ncase++;
    size_t sall = sn * (size_t)size, rall = rn * (size_t)size;
    void *sbuf = ct_alloc(st, sall), *rbuf = ct_alloc(rt, rall), *exp = ct_alloc(rt, rall);
    ct_fill(st, CT_SUM, sbuf, sall, seed_of(rank, c));
    if (inplace)
        ct_fill(rt, CT_SUM, rbuf, rall, seed_of(rank, c));
    for (int q = 0; q < size; q++)
        ct_fill_at(rt, CT_SUM, exp, (size_t)q * rn, (size_t)rank * rn, rn, seed_of(q, c));
    TT_MPI(MPI_Alltoall(inplace ? MPI_IN_PLACE : sbuf, (int)sn, st->dt, rbuf, (int)rn,
                        rt->dt, comm));
    CT_CHECK(rt, rbuf, exp, rall, "MPI_Alltoall case %d: %zu x %s per rank%s (sent as %zu x %s)",
             c, rn, rt->name, inplace ? ", in place" : "", sn, st->name);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* Elements rank a sends to rank b in the v and w forms: symmetric, so the
 * in-place forms (which use the receive counts for both ways) apply. */
static int pair_count(size_t n, int a, int b)
{
    if (n == 0 || (a + b) % 3 == 2)
        return 0;
    return (int)n + (a * b + a + b) % 5;
}

/* Rank r's layout for peers: block of peer q has cnt[q] elements at dsp[q],
 * in reverse peer order with `gap` elements between. Returns the extent. */
static size_t a2av_layout(size_t n, int r, int gap, int *cnt, int *dsp)
{
    size_t off = (size_t)gap;
    for (int q = size - 1; q >= 0; q--) {
        cnt[q] = pair_count(n, r, q);
        dsp[q] = (int)off;
        off += (size_t)cnt[q] + (size_t)gap;
    }
    return off;
}

static void alltoallv_case(const struct ct_type *t, size_t n, int inplace)
{
    int c = ncase++;
    size_t sz = sizeof(int) * (size_t)size;
    int *scnt = tt_malloc(sz), *sdsp = tt_malloc(sz), *rcnt = tt_malloc(sz);
    int *rdsp = tt_malloc(sz), *qcnt = tt_malloc(sz), *qdsp = tt_malloc(sz);
    /* Sends with one-element gaps, receives with two; in place both are the
     * receive layout. */
    size_t stot = a2av_layout(n, rank, 1, scnt, sdsp);
    size_t rtot = a2av_layout(n, rank, 2, rcnt, rdsp);
    void *sbuf = ct_alloc(t, stot), *rbuf = ct_alloc(t, rtot), *exp = ct_alloc(t, rtot);
    ct_fill(t, CT_SUM, sbuf, stot, seed_of(rank, c));
    if (inplace) {
        ct_fill(t, CT_SUM, rbuf, rtot, seed_of(rank, c));
        ct_fill(t, CT_SUM, exp, rtot, seed_of(rank, c));
    }
    for (int q = 0; q < size; q++) {
        /* Where peer q keeps what it sends to this rank. */
        a2av_layout(n, q, inplace ? 2 : 1, qcnt, qdsp);
        ct_fill_at(t, CT_SUM, exp, (size_t)rdsp[q], (size_t)qdsp[rank], (size_t)rcnt[q],
                   seed_of(q, c));
    }
    TT_MPI(MPI_Alltoallv(inplace ? MPI_IN_PLACE : sbuf, scnt, sdsp, t->dt, rbuf, rcnt, rdsp,
                         t->dt, comm));
    CT_CHECK(t, rbuf, exp, rtot, "MPI_Alltoallv case %d: about %zu x %s per pair%s", c, n,
             t->name, inplace ? ", in place" : "");
    free(scnt);
    free(sdsp);
    free(rcnt);
    free(rdsp);
    free(qcnt);
    free(qdsp);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* Alltoallw: between ranks a and b the block is pair_count(n, a, b) vector
 * elements on the side whose rank is lower when a + b is odd (higher when
 * even), and twice as many MPI_INTs on the other side. Blocks lie at byte
 * displacements, in reverse peer order, each with room for the larger form
 * and one int after it. */
static const struct ct_type *w_type(int me, int peer, size_t n, int *count)
{
    int vec = (me < peer) == ((me + peer) % 2 == 1);
    *count = pair_count(n, me, peer) * (vec ? 1 : 2);
    return &ct_types[vec ? CT_T_VEC : CT_T_INT];
}

/* Fills cnt, dsp (bytes) and types of rank r; returns the extent in ints. */
static size_t w_layout(size_t n, int r, int *cnt, int *dsp, MPI_Datatype *types)
{
    /* The first block starts at 0: Open MPI 4's one-rank Alltoallw scales
     * the displacements by the extent, which the other places hide. */
    size_t off = 0;
    for (int q = size - 1; q >= 0; q--) {
        const struct ct_type *t = w_type(r, q, n, &cnt[q]);
        dsp[q] = (int)(off * sizeof(int));
        if (types)
            types[q] = t->dt;
        off += 3 * (size_t)pair_count(n, r, q) + 1;
    }
    return off;
}

static void alltoallw_case(size_t n, int inplace)
{
    int c = ncase++;
    const struct ct_type *in = &ct_types[CT_T_INT];
    size_t sz = sizeof(int) * (size_t)size;
    int *cnt = tt_malloc(sz), *dsp = tt_malloc(sz);
    MPI_Datatype *types = tt_malloc(sizeof(MPI_Datatype) * (size_t)size);
    size_t tot = w_layout(n, rank, cnt, dsp, types);
    char *sbuf = ct_alloc(in, tot), *rbuf = ct_alloc(in, tot), *exp = ct_alloc(in, tot);
    for (int q = 0; q < size; q++) {
        int k;
        const struct ct_type *t = w_type(rank, q, n, &k);
        /* What goes to q, seeded by the pair (this rank, q). */
        ct_fill(t, CT_SUM, sbuf + dsp[q], (size_t)k, seed_of(rank, c * 64 + q));
        if (inplace)
            ct_fill(t, CT_SUM, rbuf + dsp[q], (size_t)k, seed_of(rank, c * 64 + q));
        /* What comes from q, seeded by the pair (q, this rank): q describes
         * it with the other type, the same ints. */
        ct_fill(t, CT_SUM, exp + dsp[q], (size_t)k, seed_of(q, c * 64 + rank));
    }
    TT_MPI(MPI_Alltoallw(inplace ? MPI_IN_PLACE : sbuf, cnt, dsp, types, rbuf, cnt, dsp,
                         types, comm));
    CT_CHECK(in, rbuf, exp, tot, "MPI_Alltoallw case %d: about %zu per pair%s", c, n,
             inplace ? ", in place" : "");
    free(cnt);
    free(dsp);
    free(types);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* The matrix ------------------------------------------------------------------ */

static void matrix(void)
{
    static const enum ct_tid types[] = {CT_T_INT, CT_T_DOUBLE, CT_T_2INT, CT_T_VEC,
                                        CT_T_CONTIG};
    static const size_t counts[] = {0, 1, 7, 1000};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const struct ct_type *t = &ct_types[types[ti]];
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            size_t n = counts[ci];
            for (int in = 0; in < 2; in++) {
                allgather_case(t, n, t, n, in);
                allgatherv_case(t, 1, t, 1, n, in);
                alltoall_case(t, n, t, n, in);
                alltoallv_case(t, n, in);
            }
        }
    }
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
        for (int in = 0; in < 2; in++)
            alltoallw_case(counts[ci], in);
}

/* The same data described by different types on the two sides. */
static void mixed(void)
{
    const struct ct_type *vec = &ct_types[CT_T_VEC], *in = &ct_types[CT_T_INT];
    const struct ct_type *con = &ct_types[CT_T_CONTIG], *dbl = &ct_types[CT_T_DOUBLE];
    static const size_t counts[] = {1, 7, 1000};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        size_t n = counts[ci];
        allgather_case(vec, n, in, 2 * n, 0);
        allgather_case(in, 2 * n, vec, n, 0);
        allgather_case(dbl, 3 * n, con, n, 0);
        allgatherv_case(vec, 1, in, 2, n, 0);
        allgatherv_case(in, 2, vec, 1, n, 0);
        allgatherv_case(con, 1, dbl, 3, n, 0);
        alltoall_case(vec, n, in, 2 * n, 0);
        alltoall_case(in, 2 * n, vec, n, 0);
        alltoall_case(con, n, dbl, 3 * n, 0);
    }
}

/* 1 MiB of data per rank (sent and received). */
static void large(void)
{
    const struct ct_type *in = &ct_types[CT_T_INT];
    size_t n = ct_count_for(in, 1 << 20);
    allgather_case(in, n / (size_t)size, in, n / (size_t)size, 0);
    allgatherv_case(in, 1, in, 1, n / (size_t)size, 1);
    alltoall_case(in, n / (size_t)size, in, n / (size_t)size, 1);
    alltoallv_case(in, n / (size_t)size, 0);
    alltoallw_case(n / (size_t)size / 2, 0);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_suite_allto");
    rank = tt_rank;
    size = tt_size;
    ct_init();
    barriers();
    matrix();
    large();
    mixed(); /* Last: a failure here hides nothing else. */
    ct_finalize();
    return tt_finish();
}
