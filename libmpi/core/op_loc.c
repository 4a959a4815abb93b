/*
 * MPI_MINLOC and MPI_MAXLOC on the value-index pair types.
 *
 * The standard defines, for MAXLOC, (u, i) op (v, j) = (max(u, v), k) with
 * k = i if u > v, min(i, j) if u == v, and j if u < v (MINLOC the same with
 * <). Here (u, i) is the element of `in` and (v, j) that of `inout`. When
 * the values are not ordered (a NaN), neither comparison holds and inout
 * keeps its pair.
 *
 * The C pairs are laid out as the C structs below, exactly as the datatype
 * engine describes them (libmpi/core/datatype.c); the Fortran pairs
 * (MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION) are two values of the
 * same type, the index included. Only the value and index fields are
 * written, never the padding between or after them.
 */
#include "libmpi/core/op_kernel.h"

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct two_int { int v; int i; };
struct short_int { short v; int i; };
struct long_double_int { long double v; int i; };
struct two_integer { int v; int i; };       /* Fortran INTEGER is 4 bytes. */
struct two_real { float v; float i; };
struct two_double_precision { double v; double i; };

/*
 * LOC_KERNEL(name, S, cmp) defines the kernel `name` on arrays of struct S:
 * cmp is < for MINLOC and > for MAXLOC.
 */
#define LOC_KERNEL(name, S, cmp)                                                \
    static void name(const void *in_, void *inout_, size_t n)                   \
    {                                                                           \
        const struct S *in = in_;                                               \
        struct S *io = inout_;                                                  \
        for (size_t k = 0; k < n; k++) {                                        \
            if (in[k].v cmp io[k].v) {                                          \
                io[k].v = in[k].v;                                              \
                io[k].i = in[k].i;                                              \
            } else if (in[k].v == io[k].v && in[k].i < io[k].i) {               \
                io[k].i = in[k].i;                                              \
            }                                                                   \
        }                                                                       \
    }

LOC_KERNEL(minloc_float_int, float_int, <)
LOC_KERNEL(minloc_double_int, double_int, <)
LOC_KERNEL(minloc_long_int, long_int, <)
LOC_KERNEL(minloc_2int, two_int, <)
LOC_KERNEL(minloc_short_int, short_int, <)
LOC_KERNEL(minloc_long_double_int, long_double_int, <)
LOC_KERNEL(minloc_2integer, two_integer, <)
LOC_KERNEL(minloc_2real, two_real, <)
LOC_KERNEL(minloc_2double_precision, two_double_precision, <)

LOC_KERNEL(maxloc_float_int, float_int, >)
LOC_KERNEL(maxloc_double_int, double_int, >)
LOC_KERNEL(maxloc_long_int, long_int, >)
LOC_KERNEL(maxloc_2int, two_int, >)
LOC_KERNEL(maxloc_short_int, short_int, >)
LOC_KERNEL(maxloc_long_double_int, long_double_int, >)
LOC_KERNEL(maxloc_2integer, two_integer, >)
LOC_KERNEL(maxloc_2real, two_real, >)
LOC_KERNEL(maxloc_2double_precision, two_double_precision, >)

static tern_op_kernel *const minloc[TERN_OP_E_COUNT_] = {
    [TERN_OP_E_FLOAT_INT] = minloc_float_int,
    [TERN_OP_E_DOUBLE_INT] = minloc_double_int,
    [TERN_OP_E_LONG_INT] = minloc_long_int,
    [TERN_OP_E_2INT] = minloc_2int,
    [TERN_OP_E_SHORT_INT] = minloc_short_int,
    [TERN_OP_E_LONG_DOUBLE_INT] = minloc_long_double_int,
    [TERN_OP_E_2INTEGER] = minloc_2integer,
    [TERN_OP_E_2REAL] = minloc_2real,
    [TERN_OP_E_2DOUBLE_PRECISION] = minloc_2double_precision,
};

static tern_op_kernel *const maxloc[TERN_OP_E_COUNT_] = {
    [TERN_OP_E_FLOAT_INT] = maxloc_float_int,
    [TERN_OP_E_DOUBLE_INT] = maxloc_double_int,
    [TERN_OP_E_LONG_INT] = maxloc_long_int,
    [TERN_OP_E_2INT] = maxloc_2int,
    [TERN_OP_E_SHORT_INT] = maxloc_short_int,
    [TERN_OP_E_LONG_DOUBLE_INT] = maxloc_long_double_int,
    [TERN_OP_E_2INTEGER] = maxloc_2integer,
    [TERN_OP_E_2REAL] = maxloc_2real,
    [TERN_OP_E_2DOUBLE_PRECISION] = maxloc_2double_precision,
};

tern_op_kernel *tern_op_loc_kernel(enum tern_op_kind kind, enum tern_op_elem e)
{
    if ((unsigned)e >= TERN_OP_E_COUNT_)
        return NULL;
    if (kind == TERN_OP_MINLOC)
        return minloc[e];
    if (kind == TERN_OP_MAXLOC)
        return maxloc[e];
    return NULL;
}
