/*
 * coll_suite_rscan: MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan
 * and MPI_Exscan against references every rank computes locally (see
 * coll_util.h), for whatever algorithms the library picks; the .test wrapper
 * forces each of Tern's algorithms in turn with TERN_COLL_<NAME>.
 *
 * Matrix: every (type, op) pair of ct_combos x counts 0, 1, 7 and 1000 (per
 * block for the reduce-scatters; Reduce_scatter gives every rank a
 * different block, some empty) x MPI_IN_PLACE and not. In place, the
 * reduce-scatters take the whole input from recvbuf and Scan/Exscan take it
 * from recvbuf. Exscan's result on rank 0 is undefined and not checked.
 * Large: 1 MiB of input per rank (MPI_INT, MPI_SUM) for each collective.
 *
 * Uses only the standard MPI API.
 */
#include "coll_util.h"

#define SALT 31

static int rank, size, ncase;
static const MPI_Comm comm = MPI_COMM_WORLD;

static uint32_t seed_of(int q, int c) { return ct_seed(q, c, SALT); }

/* The input of this rank (n elements), in a fresh buffer. */
static void *input(const struct ct_type *t, enum ct_op op, size_t n, int c)
{
    void *buf = ct_alloc(t, n);
    ct_fill(t, op, buf, n, seed_of(rank, c));
    return buf;
}

/* Reduce_scatter (block = 0: counts differ per rank) or
 * Reduce_scatter_block (block = 1: n per rank). */
static void rs_case(const struct ct_type *t, enum ct_op op, size_t n, int block,
                    int inplace)
{
    int c = ncase++;
    int *cnt = tt_malloc(sizeof(int) * (size_t)size);
    size_t total = 0, off = 0;
    for (int q = 0; q < size; q++) {
        cnt[q] = block ? (int)n : n == 0 || q % 3 == 1 ? 0 : (int)(n + (size_t)q);
        if (q < rank)
            off += (size_t)cnt[q];
        total += (size_t)cnt[q];
    }
    size_t mine = (size_t)cnt[rank];
    void *sbuf = input(t, op, total, c), *exp = ct_alloc(t, mine);
    /* In place, recvbuf holds the whole input and the result replaces its
     * first block; the rest of it is undefined afterwards. */
    void *rbuf = inplace ? input(t, op, total, c) : ct_alloc(t, mine);
    ct_reference(t, op, exp, 0, off, mine, 0, size - 1, c, SALT);
    const void *s = inplace ? MPI_IN_PLACE : sbuf;
    if (block)
        TT_MPI(MPI_Reduce_scatter_block(s, rbuf, (int)n, t->dt, ct_mpi_op(op), comm));
    else
        TT_MPI(MPI_Reduce_scatter(s, rbuf, cnt, t->dt, ct_mpi_op(op), comm));
    ct_check_at(__FILE__, __LINE__, t, rbuf, exp, mine, inplace ? 0 : CT_GUARD,
                "%s case %d: %zu x %s of %zu, %s%s",
                block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter", c, mine, t->name,
                total, ct_op_names[op], inplace ? ", in place" : "");
    free(cnt);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* Scan (ex = 0) or Exscan (ex = 1). */
static void scan_case(const struct ct_type *t, enum ct_op op, size_t n, int ex,
                      int inplace)
{
    int c = ncase++;
    void *sbuf = input(t, op, n, c), *rbuf = inplace ? input(t, op, n, c) : ct_alloc(t, n);
    void *exp = ct_alloc(t, n);
    int hi = ex ? rank - 1 : rank;
    if (hi >= 0)
        ct_reference(t, op, exp, 0, 0, n, 0, hi, c, SALT);
    const void *s = inplace ? MPI_IN_PLACE : sbuf;
    if (ex)
        TT_MPI(MPI_Exscan(s, rbuf, (int)n, t->dt, ct_mpi_op(op), comm));
    else
        TT_MPI(MPI_Scan(s, rbuf, (int)n, t->dt, ct_mpi_op(op), comm));
    if (hi >= 0)
        CT_CHECK(t, rbuf, exp, n, "%s case %d: %zu x %s, %s%s", ex ? "MPI_Exscan" : "MPI_Scan",
                 c, n, t->name, ct_op_names[op], inplace ? ", in place" : "");
    if (!inplace) {
        void *orig = input(t, op, n, c);
        CT_CHECK(t, sbuf, orig, n, "%s case %d: the send buffer changed",
                 ex ? "MPI_Exscan" : "MPI_Scan", c);
        free(orig);
    }
    free(sbuf);
    free(rbuf);
    free(exp);
}

static void matrix(void)
{
    static const size_t counts[] = {0, 1, 7, 1000};
    for (int k = 0; k < CT_NCOMBOS; k++) {
        if (!ct_combo_ok(k))
            continue;
        const struct ct_type *t = &ct_types[ct_combos[k].type];
        enum ct_op op = ct_combos[k].op;
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
            for (int in = 0; in < 2; in++) {
                rs_case(t, op, counts[ci], 0, in);
                rs_case(t, op, counts[ci], 1, in);
                scan_case(t, op, counts[ci], 0, in);
                scan_case(t, op, counts[ci], 1, in);
            }
    }
}

/* 1 MiB of input per rank. */
static void large(void)
{
    const struct ct_type *in = &ct_types[CT_T_INT];
    size_t n = ct_count_for(in, 1 << 20);
    rs_case(in, CT_SUM, n / (size_t)size, 1, 0);
    rs_case(in, CT_SUM, n / (size_t)size, 0, 1);
    scan_case(in, CT_SUM, n, 0, 0);
    scan_case(in, CT_SUM, n, 1, 1);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_suite_rscan");
    rank = tt_rank;
    size = tt_size;
    ct_init();
    matrix();
    large();
    ct_finalize();
    return tt_finish();
}
