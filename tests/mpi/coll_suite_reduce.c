/*
 * coll_suite_reduce: MPI_Reduce and MPI_Allreduce against references every
 * rank computes locally (see coll_util.h), for whatever algorithms the
 * library picks; the .test wrapper forces each of Tern's algorithms in turn
 * with TERN_COLL_<NAME>.
 *
 * Matrix: every (type, op) pair of ct_combos (SUM, MAX, PROD on small ints,
 * BXOR on MPI_INT and MPI_DOUBLE; MINLOC and MAXLOC on MPI_2INT; a
 * commutative user sum on a vector type with gaps and a contiguous type, and
 * with Tern predefined ops on them too; a non-commutative user op) x counts
 * 0, 1, 7 and 1000 x roots 0, p-1 and p/2 (Reduce) x MPI_IN_PLACE and not.
 * Inputs are integers, so every order of combination gives the exact
 * reference; the send buffers must come back unchanged. Non-integer doubles:
 * Allreduce sums whose rounding depends on the order must be close to the
 * reference and bitwise identical on every rank. Large: 1 MiB per rank of
 * MPI_INT (MPI_SUM) and of the vector type (the user sum).
 *
 * Uses only the standard MPI API.
 */
#include <math.h>

#include "coll_util.h"

#define SALT 21

static int rank, size, ncase;
static const MPI_Comm comm = MPI_COMM_WORLD;

static uint32_t seed_of(int q, int c) { return ct_seed(q, c, SALT); }

/* The send buffer must be what it was (the input of this rank). */
static void check_input(const struct ct_type *t, enum ct_op op, const void *sbuf,
                        size_t n, int c, const char *call)
{
    void *orig = ct_alloc(t, n);
    ct_fill(t, op, orig, n, seed_of(rank, c));
    CT_CHECK(t, sbuf, orig, n, "%s case %d: the send buffer changed", call, c);
    free(orig);
}

static void reduce_case(const struct ct_type *t, enum ct_op op, size_t n, int root,
                        int inplace)
{
    int c = ncase++;
    int in = inplace && rank == root;
    void *sbuf = ct_alloc(t, n), *rbuf = NULL, *exp = NULL;
    ct_fill(t, op, sbuf, n, seed_of(rank, c));
    if (rank == root) {
        rbuf = ct_alloc(t, n);
        exp = ct_alloc(t, n);
        ct_reference(t, op, exp, 0, 0, n, 0, size - 1, c, SALT);
        if (in)
            ct_fill(t, op, rbuf, n, seed_of(rank, c));
    }
    TT_MPI(MPI_Reduce(in ? MPI_IN_PLACE : sbuf, rbuf, (int)n, t->dt, ct_mpi_op(op), root,
                      comm));
    if (rank == root)
        CT_CHECK(t, rbuf, exp, n, "MPI_Reduce case %d: %zu x %s, %s, root %d%s", c, n,
                 t->name, ct_op_names[op], root, in ? ", in place" : "");
    check_input(t, op, sbuf, n, c, "MPI_Reduce");
    free(sbuf);
    free(rbuf);
    free(exp);
}

static void allreduce_case(const struct ct_type *t, enum ct_op op, size_t n, int inplace)
{
    int c = ncase++;
    void *sbuf = ct_alloc(t, n), *rbuf = ct_alloc(t, n), *exp = ct_alloc(t, n);
    ct_fill(t, op, sbuf, n, seed_of(rank, c));
    ct_reference(t, op, exp, 0, 0, n, 0, size - 1, c, SALT);
    if (inplace)
        ct_fill(t, op, rbuf, n, seed_of(rank, c));
    TT_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, (int)n, t->dt,
                         ct_mpi_op(op), comm));
    CT_CHECK(t, rbuf, exp, n, "MPI_Allreduce case %d: %zu x %s, %s%s", c, n, t->name,
             ct_op_names[op], inplace ? ", in place" : "");
    if (!inplace)
        check_input(t, op, sbuf, n, c, "MPI_Allreduce");
    free(sbuf);
    free(rbuf);
    free(exp);
}

static void matrix(void)
{
    static const size_t counts[] = {0, 1, 7, 1000};
    int cand[3] = {0, size - 1, size / 2};
    for (int k = 0; k < CT_NCOMBOS; k++) {
        if (!ct_combo_ok(k))
            continue;
        const struct ct_type *t = &ct_types[ct_combos[k].type];
        enum ct_op op = ct_combos[k].op;
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            size_t n = counts[ci];
            for (int ri = 0; ri < 3; ri++) {
                if ((ri == 1 && cand[1] == cand[0]) || (ri == 2 && (cand[2] == cand[0] ||
                                                                    cand[2] == cand[1])))
                    continue;
                for (int in = 0; in < 2; in++)
                    reduce_case(t, op, n, cand[ri], in);
            }
            allreduce_case(t, op, n, 0);
            allreduce_case(t, op, n, 1);
        }
    }
}

/* A non-integer input whose sums round differently in different orders. */
static double frac_input(int q, size_t i)
{
    uint32_t h = ct_hash(ct_seed(q, 0, 99), i, 0);
    return (double)(h % 100000) / 7.0 + 1.0 / (double)(3 + q) - 5000.0;
}

/* Allreduce of non-integer doubles (MPI_DOUBLE with MPI_SUM, or triples of
 * them with the commutative user sum): close
 * to the sum in rank order, and the same bits on every rank. */
static void bitwise_case(const struct ct_type *t, size_t n, int inplace)
{
    size_t nd = n * (size_t)t->nd;
    double *sbuf = tt_malloc(nd * sizeof(double)), *rbuf = tt_malloc(nd * sizeof(double));
    for (size_t i = 0; i < nd; i++)
        sbuf[i] = rbuf[i] = frac_input(rank, i);
    MPI_Op op = t->dt == MPI_DOUBLE ? MPI_SUM : ct_usum_op;
    TT_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, (int)n, t->dt, op, comm));
    for (size_t i = 0; i < nd; i++) {
        double ref = 0, mag = 0;
        for (int q = 0; q < size; q++) {
            ref += frac_input(q, i);
            mag += fabs(frac_input(q, i));
        }
        if (!(fabs(rbuf[i] - ref) <= 1e-12 * mag + 1e-300))
            TT_FAIL("MPI_Allreduce of non-integer %s, %zu elements: value %zu is %.17g, "
                    "expected about %.17g",
                    t->name, n, i, rbuf[i], ref);
    }
    char what[128];
    snprintf(what, sizeof what, "MPI_Allreduce of %zu non-integer %s%s", n, t->name,
             inplace ? " in place" : "");
    ct_same_bytes(comm, rbuf, (int)(nd * sizeof(double)), what);
    free(sbuf);
    free(rbuf);
}

/* 1 MiB of data per rank. */
static void large(void)
{
    const struct ct_type *in = &ct_types[CT_T_INT], *vec = &ct_types[CT_T_VEC];
    size_t n = ct_count_for(in, 1 << 20), nv = ct_count_for(vec, 1 << 20);
    allreduce_case(in, CT_SUM, n, 0);
    allreduce_case(vec, CT_USUM, nv, 1);
    reduce_case(in, CT_SUM, n, size - 1, 0);
    reduce_case(vec, CT_USUM, nv, size / 2, 1);
    if (ct_is_tern)
        allreduce_case(vec, CT_SUM, nv, 0);
    bitwise_case(&ct_types[CT_T_DOUBLE], n / 2, 0);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_suite_reduce");
    rank = tt_rank;
    size = tt_size;
    ct_init();
    matrix();
    static const size_t counts[] = {1, 7, 1000};
    for (size_t ci = 0; ci < 3; ci++) {
        bitwise_case(&ct_types[CT_T_DOUBLE], counts[ci], ci == 1);
        bitwise_case(&ct_types[CT_T_CONTIG], counts[ci], ci == 2);
    }
    large();
    ct_finalize();
    return tt_finish();
}
