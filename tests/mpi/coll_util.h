/*
 * coll_util.h: typed buffers, deterministic inputs and reduction references
 * shared by the collective test programs (tests/mpi/coll_*.c).
 *
 * A test case works on "elements" of one of a few datatypes (struct ct_type):
 * MPI_INT, MPI_DOUBLE, MPI_2INT (a value and an index, for MINLOC and
 * MAXLOC), a vector type (2 ints with a 1-int gap between them, extent 3
 * ints, so consecutive elements interleave data and gaps), a contiguous type
 * of 3 doubles, and a contiguous pair of ints on which a non-commutative user
 * op composes affine maps. Every type is made of one basic type (int or
 * double); an element occupies `ext` basic slots of which `nd` hold data.
 *
 * Buffers come from ct_alloc(), which poisons every byte and adds a guard
 * area after the last element. A check builds the expected buffer the same
 * way (poison, then the expected data slots) and compares every byte, so a
 * collective that writes a gap, writes past the end or leaves an element
 * unwritten fails. Inputs are a hash of (seed, element, slot): each rank can
 * compute any other rank's input, which is how every reference is built
 * locally. Values are small integers (integer-valued doubles), so sums and
 * products are exact in any order.
 *
 * Uses only the standard MPI API; every function is static inline so a
 * program that does not use one gets no warning.
 */
#ifndef COLL_UTIL_H
#define COLL_UTIL_H

#include "tt.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

enum ct_base { CT_INT, CT_DOUBLE };
enum ct_tid { CT_T_INT, CT_T_DOUBLE, CT_T_2INT, CT_T_VEC, CT_T_CONTIG, CT_T_AFFINE,
              CT_NTYPES };
enum ct_op { CT_SUM, CT_MAX, CT_PROD, CT_BXOR, CT_MINLOC, CT_MAXLOC, CT_AFFINE,
             CT_USUM, CT_NOPS };

/* The modulus of the affine maps: products stay below 2^31. */
#define CT_AFFINE_MOD 10007
#define CT_POISON 0xA5
#define CT_GUARD 64

struct ct_type {
    const char *name;
    MPI_Datatype dt;
    enum ct_base base;
    int ext;     /* Basic slots per element extent. */
    int nd;      /* Data slots per element. */
    int slot[3]; /* Which slots hold data. */
};

static struct ct_type ct_types[CT_NTYPES];
static MPI_Op ct_affine_op = MPI_OP_NULL, ct_usum_op = MPI_OP_NULL;
static const char *const ct_op_names[CT_NOPS] = {
    "MPI_SUM", "MPI_MAX", "MPI_PROD", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC",
    "affine (user, non-commutative)", "sum (user, commutative)"};
/* 1 when the library is Tern, which also applies predefined ops to derived
 * types made of one basic type (the standard allows that for accumulate
 * operations only; Open MPI refuses it in reductions). */
static int ct_is_tern;

/* The user op: inout = in then inout, as maps x -> m x + c in (m, c) pairs.
 * Composition is associative but not commutative, so the result is exact
 * and depends on the order of the ranks. */
static inline void ct_affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout;
    if (*dt != ct_types[CT_T_AFFINE].dt)
        TT_FAIL("user op called with a datatype that is not the one passed");
    for (int i = 0; i < *len; i++) {
        long long ma = a[2 * i], ca = a[2 * i + 1], mb = b[2 * i], cb = b[2 * i + 1];
        b[2 * i] = (int)(ma * mb % CT_AFFINE_MOD);
        b[2 * i + 1] = (int)((mb * ca + cb) % CT_AFFINE_MOD);
    }
}

/* The commutative user op: the sum of the data slots of any of the types
 * but the pairs, reading the layout from the datatype handle as a user
 * function must (the gaps of the vector type are left alone). */
static inline void ct_usum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const struct ct_type *t = NULL;
    for (int i = 0; i < CT_NTYPES; i++)
        if (ct_types[i].dt == *dt)
            t = &ct_types[i];
    if (!t || t == &ct_types[CT_T_2INT] || t == &ct_types[CT_T_AFFINE])
        TT_FAIL("user op called with a datatype that is not the one passed");
    for (int e = 0; e < *len; e++)
        for (int k = 0; k < t->nd; k++) {
            size_t s = (size_t)e * (size_t)t->ext + (size_t)t->slot[k];
            if (t->base == CT_INT)
                ((int *)inout)[s] += ((const int *)in)[s];
            else
                ((double *)inout)[s] += ((const double *)in)[s];
        }
}

static inline void ct_settype(enum ct_tid id, const char *name, MPI_Datatype dt,
                              enum ct_base base, int ext, int nd, int s0, int s1,
                              int s2)
{
    struct ct_type *t = &ct_types[id];
    t->name = name;
    t->dt = dt;
    t->base = base;
    t->ext = ext;
    t->nd = nd;
    t->slot[0] = s0;
    t->slot[1] = s1;
    t->slot[2] = s2;
}

/* Creates the derived types and the user op (after MPI_Init). With glibc,
 * large buffers come from the heap and freed memory stays mapped, so the
 * megabyte cases do not spend their time in fresh page faults. */
static inline void ct_init(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
    MPI_Datatype vec, contig, pair;
    TT_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    TT_MPI(MPI_Type_commit(&vec));
    TT_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &contig));
    TT_MPI(MPI_Type_commit(&contig));
    TT_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    TT_MPI(MPI_Type_commit(&pair));
    ct_settype(CT_T_INT, "MPI_INT", MPI_INT, CT_INT, 1, 1, 0, 0, 0);
    ct_settype(CT_T_DOUBLE, "MPI_DOUBLE", MPI_DOUBLE, CT_DOUBLE, 1, 1, 0, 0, 0);
    ct_settype(CT_T_2INT, "MPI_2INT", MPI_2INT, CT_INT, 2, 2, 0, 1, 0);
    ct_settype(CT_T_VEC, "vector(2,1,2,MPI_INT)", vec, CT_INT, 3, 2, 0, 2, 0);
    ct_settype(CT_T_CONTIG, "contiguous(3,MPI_DOUBLE)", contig, CT_DOUBLE, 3, 3, 0, 1, 2);
    ct_settype(CT_T_AFFINE, "contiguous(2,MPI_INT)", pair, CT_INT, 2, 2, 0, 1, 0);
    TT_MPI(MPI_Op_create(ct_affine_fn, 0, &ct_affine_op));
    TT_MPI(MPI_Op_create(ct_usum_fn, 1, &ct_usum_op));
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    TT_MPI(MPI_Get_library_version(lib, &len));
    ct_is_tern = !strncmp(lib, "Tern", 4);
}

static inline void ct_finalize(void)
{
    TT_MPI(MPI_Type_free(&ct_types[CT_T_VEC].dt));
    TT_MPI(MPI_Type_free(&ct_types[CT_T_CONTIG].dt));
    TT_MPI(MPI_Type_free(&ct_types[CT_T_AFFINE].dt));
    TT_MPI(MPI_Op_free(&ct_affine_op));
    TT_MPI(MPI_Op_free(&ct_usum_op));
}

static inline MPI_Op ct_mpi_op(enum ct_op op)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_PROD, MPI_BXOR, MPI_MINLOC,
                                 MPI_MAXLOC};
    if (op == CT_USUM)
        return ct_usum_op;
    return op == CT_AFFINE ? ct_affine_op : ops[op];
}

static inline size_t ct_slotsize(const struct ct_type *t)
{
    return t->base == CT_INT ? sizeof(int) : sizeof(double);
}

/* Bytes spanned by n elements. */
static inline size_t ct_bytes(const struct ct_type *t, size_t n)
{
    return n * (size_t)t->ext * ct_slotsize(t);
}

/* A poisoned buffer for n elements plus the guard area. */
static inline void *ct_alloc(const struct ct_type *t, size_t n)
{
    size_t len = ct_bytes(t, n) + CT_GUARD;
    void *p = tt_malloc(len);
    memset(p, CT_POISON, len);
    return p;
}

static inline void ct_poison(const struct ct_type *t, void *buf, size_t n)
{
    memset(buf, CT_POISON, ct_bytes(t, n) + CT_GUARD);
}

static inline void ct_set(const struct ct_type *t, void *buf, size_t e, int k,
                          long long v)
{
    size_t s = e * (size_t)t->ext + (size_t)t->slot[k];
    if (t->base == CT_INT)
        ((int *)buf)[s] = (int)v;
    else
        ((double *)buf)[s] = (double)v;
}

static inline long long ct_get(const struct ct_type *t, const void *buf, size_t e,
                               int k)
{
    size_t s = e * (size_t)t->ext + (size_t)t->slot[k];
    if (t->base == CT_INT)
        return ((const int *)buf)[s];
    return (long long)((const double *)buf)[s];
}

static inline uint32_t ct_hash(uint32_t seed, size_t e, int k)
{
    uint32_t h = seed ^ ((uint32_t)e * 0x9E3779B1u) ^ ((uint32_t)k * 0x85EBCA77u);
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    return h ^ (h >> 16);
}

/* The seed of one rank's input in one case. */
static inline uint32_t ct_seed(int rank, int casenum, int salt)
{
    return tt_seed((uint32_t)rank + 101u, (uint32_t)casenum + 7u, (uint32_t)salt + 3u);
}

/* The input value with flat data index f (element f / nd, slot k = f % nd)
 * under this seed, in a range that suits op: small nonzero numbers for PROD
 * (exact over 8 ranks), a narrow range with ties for MINLOC/MAXLOC values,
 * valid maps for the affine op. Values depend on the flat index, so a
 * buffer of n vector elements holds what 2n MPI_INTs would. */
static inline long long ct_val(enum ct_op op, uint32_t seed, size_t f, int k)
{
    uint32_t h = ct_hash(seed, f, 0);
    switch (op) {
    case CT_PROD: {
        static const int v[5] = {-2, -1, 1, 2, 3};
        return v[h % 5];
    }
    case CT_MINLOC:
    case CT_MAXLOC:
        return k == 0 ? (long long)(h % 7) - 3 : (long long)(h % 1000);
    case CT_AFFINE:
        return k == 0 ? 1 + (long long)(h % (CT_AFFINE_MOD - 1))
                      : (long long)(h % CT_AFFINE_MOD);
    default:
        return (long long)(h % 2001) - 1000;
    }
}

/* Elements [at, at + n) of buf get the inputs of elements [e0, e0 + n). */
static inline void ct_fill_at(const struct ct_type *t, enum ct_op op, void *buf,
                              size_t at, size_t e0, size_t n, uint32_t seed)
{
    for (size_t e = 0; e < n; e++)
        for (int k = 0; k < t->nd; k++)
            ct_set(t, buf, at + e, k,
                   ct_val(op, seed, (e0 + e) * (size_t)t->nd + (size_t)k, k));
}

static inline void ct_fill(const struct ct_type *t, enum ct_op op, void *buf,
                           size_t n, uint32_t seed)
{
    ct_fill_at(t, op, buf, 0, 0, n, seed);
}

/* acc = acc op x for one element (acc is the left operand). */
static inline void ct_combine(enum ct_op op, int nd, long long *acc,
                              const long long *x)
{
    switch (op) {
    case CT_MINLOC:
    case CT_MAXLOC: {
        int better = op == CT_MINLOC ? x[0] < acc[0] : x[0] > acc[0];
        if (better || (x[0] == acc[0] && x[1] < acc[1])) {
            acc[0] = x[0];
            acc[1] = x[1];
        }
        return;
    }
    case CT_AFFINE: {
        long long m = acc[0] * x[0] % CT_AFFINE_MOD;
        long long c = (x[0] * acc[1] + x[1]) % CT_AFFINE_MOD;
        acc[0] = m;
        acc[1] = c;
        return;
    }
    default:
        break;
    }
    for (int k = 0; k < nd; k++) {
        if (op == CT_SUM || op == CT_USUM)
            acc[k] += x[k];
        else if (op == CT_MAX)
            acc[k] = x[k] > acc[k] ? x[k] : acc[k];
        else if (op == CT_PROD)
            acc[k] *= x[k];
        else
            acc[k] ^= x[k];
    }
}

/* Writes into ref, at element offset `at`, elements [e0, e0 + n) of the
 * reduction of the inputs of ranks[0], ranks[1], ... ranks[nr - 1], in that
 * order, whose seeds are ct_seed(rank, casenum, salt). */
static inline void ct_reference_list(const struct ct_type *t, enum ct_op op, void *ref,
                                     size_t at, size_t e0, size_t n, const int *ranks,
                                     int nr, int casenum, int salt)
{
    long long acc[3], x[3];
    uint32_t *seeds = tt_malloc(sizeof(uint32_t) * (size_t)nr);
    for (int i = 0; i < nr; i++)
        seeds[i] = ct_seed(ranks[i], casenum, salt);
    for (size_t e = e0; e < e0 + n; e++) {
        size_t f = e * (size_t)t->nd;
        for (int k = 0; k < t->nd; k++)
            acc[k] = ct_val(op, seeds[0], f + (size_t)k, k);
        for (int i = 1; i < nr; i++) {
            for (int k = 0; k < t->nd; k++)
                x[k] = ct_val(op, seeds[i], f + (size_t)k, k);
            ct_combine(op, t->nd, acc, x);
        }
        for (int k = 0; k < t->nd; k++)
            ct_set(t, ref, at + e - e0, k, acc[k]);
    }
    free(seeds);
}

/* The same for ranks lo, lo + 1, ..., hi (lo <= hi). */
static inline void ct_reference(const struct ct_type *t, enum ct_op op, void *ref,
                                size_t at, size_t e0, size_t n, int lo, int hi,
                                int casenum, int salt)
{
    int *ranks = tt_malloc(sizeof(int) * (size_t)(hi - lo + 1));
    for (int r = lo; r <= hi; r++)
        ranks[r - lo] = r;
    ct_reference_list(t, op, ref, at, e0, n, ranks, hi - lo + 1, casenum, salt);
    free(ranks);
}

/* The (type, op) pairs every reduction case runs: each predefined op on
 * the basic types it is defined for, MINLOC/MAXLOC on the pair type, the
 * commutative user op on the derived types, the non-commutative user op on
 * its own type, and (tern_only: Tern alone) predefined ops on the derived
 * types. ct_combo_ok() says whether a pair runs with this library. */
struct ct_combo {
    enum ct_tid type;
    enum ct_op op;
    int tern_only;
};
static const struct ct_combo ct_combos[] = {
    {CT_T_INT, CT_SUM, 0},       {CT_T_INT, CT_MAX, 0},     {CT_T_INT, CT_PROD, 0},
    {CT_T_INT, CT_BXOR, 0},      {CT_T_DOUBLE, CT_SUM, 0},  {CT_T_DOUBLE, CT_MAX, 0},
    {CT_T_DOUBLE, CT_PROD, 0},   {CT_T_2INT, CT_MINLOC, 0}, {CT_T_2INT, CT_MAXLOC, 0},
    {CT_T_VEC, CT_USUM, 0},      {CT_T_CONTIG, CT_USUM, 0}, {CT_T_AFFINE, CT_AFFINE, 0},
    {CT_T_VEC, CT_SUM, 1},       {CT_T_VEC, CT_BXOR, 1},    {CT_T_CONTIG, CT_SUM, 1},
    {CT_T_CONTIG, CT_MAX, 1},
};
#define CT_NCOMBOS ((int)(sizeof ct_combos / sizeof ct_combos[0]))

static inline int ct_combo_ok(int k)
{
    return !ct_combos[k].tern_only || ct_is_tern;
}

/* Compares n elements and the guard area byte by byte; what names the case.
 * A difference is reported with the element and slot, and the values.
 * CT_CHECK_PART leaves out the guard area (for a buffer that goes on). */
#define CT_CHECK(t, got, exp, n, ...)                                          \
    ct_check_at(__FILE__, __LINE__, (t), (got), (exp), (n), CT_GUARD, __VA_ARGS__)
#define CT_CHECK_PART(t, got, exp, n, ...)                                     \
    ct_check_at(__FILE__, __LINE__, (t), (got), (exp), (n), 0, __VA_ARGS__)
static inline void ct_check_at(const char *file, int line, const struct ct_type *t,
                               const void *got, const void *exp, size_t n, size_t guard,
                               const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
static inline void ct_check_at(const char *file, int line, const struct ct_type *t,
                               const void *got, const void *exp, size_t n, size_t guard,
                               const char *fmt, ...)
{
    size_t len = ct_bytes(t, n) + guard;
    if (!memcmp(got, exp, len))
        return;
    const unsigned char *g = got, *x = exp;
    size_t i = 0;
    while (g[i] == x[i])
        i++;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    size_t ss = ct_slotsize(t), slot = i / ss, e = slot / (size_t)t->ext;
    if (i >= ct_bytes(t, n))
        tt_fail_at(file, line, "%s: wrote past the end, byte %zu of the guard area",
                   what, i - ct_bytes(t, n));
    int data = 0;
    for (int k = 0; k < t->nd; k++)
        data |= (size_t)t->slot[k] == slot % (size_t)t->ext;
    const unsigned char *gs = g + slot * ss, *xs = x + slot * ss;
    char gv[64], xv[64];
    if (t->base == CT_INT) {
        snprintf(gv, sizeof gv, "%d", ((const int *)got)[slot]);
        snprintf(xv, sizeof xv, "%d", ((const int *)exp)[slot]);
    } else {
        snprintf(gv, sizeof gv, "%.17g", ((const double *)got)[slot]);
        snprintf(xv, sizeof xv, "%.17g", ((const double *)exp)[slot]);
    }
    tt_fail_at(file, line, "%s: element %zu of %zu (%s), %s slot %zu: expected %s%s, got %s%s",
               what, e, n, t->name, data ? "data" : "gap", slot % (size_t)t->ext, xv,
               xs[0] == CT_POISON && xs[1] == CT_POISON ? " (poison: untouched)" : "", gv,
               gs[0] == CT_POISON && gs[1] == CT_POISON ? " (poison: untouched)" : "");
}

/* The number of elements of t in `bytes` bytes (at least 1). */
static inline size_t ct_count_for(const struct ct_type *t, size_t bytes)
{
    size_t n = bytes / ((size_t)t->nd * ct_slotsize(t));
    return n ? n : 1;
}

/* Fails (rank 0 of comm aborts the job) unless every rank of comm holds the
 * same len bytes in buf. Built on point-to-point (tag 29999 on comm), so a
 * broken collective cannot hide another's failure. */
static inline void ct_same_bytes(MPI_Comm comm, const void *buf, int len,
                                 const char *what)
{
    int r, p;
    TT_MPI(MPI_Comm_rank(comm, &r));
    TT_MPI(MPI_Comm_size(comm, &p));
    if (r != 0) {
        TT_MPI(MPI_Send(buf, len, MPI_BYTE, 0, 29999, comm));
        return;
    }
    unsigned char *other = tt_malloc((size_t)len);
    for (int q = 1; q < p; q++) {
        TT_MPI(MPI_Recv(other, len, MPI_BYTE, q, 29999, comm, MPI_STATUS_IGNORE));
        if (memcmp(other, buf, (size_t)len)) {
            int i = 0;
            while (other[i] == ((const unsigned char *)buf)[i])
                i++;
            TT_FAIL("%s: rank %d's result differs from rank 0's at byte %d of %d", what,
                    q, i, len);
        }
    }
    free(other);
}

#endif /* COLL_UTIL_H */
