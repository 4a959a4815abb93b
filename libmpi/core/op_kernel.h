/*
 * Private to the op module: the element kinds that kernels work on and the
 * loop macros the kernel files share.
 *
 * op.c maps every predefined datatype to an element kind (MPI_INT and
 * MPI_INTEGER4 are both TERN_OP_E_I32 here) and a type class; the kernel
 * files (op_arith.c, op_logic.c, op_loc.c) each give a lookup from (op kind,
 * element kind) to a kernel, or NULL when they have none. A kernel computes
 * inout[i] = in[i] op inout[i] for n elements laid out as C arrays of the
 * element (for the pair types: arrays of the C struct, as the datatype
 * engine lays out MPI_DOUBLE_INT and the others).
 */
#ifndef TERN_CORE_OP_KERNEL_H
#define TERN_CORE_OP_KERNEL_H

#include <stddef.h>

#include "libmpi/core/op.h"

/* The wider types exist when the compiler has them (GCC on x86-64 does). */
#if defined(__SIZEOF_INT128__)
#define TERN_OP_HAVE_INT128 1
#endif
#if defined(__FLT16_MAX__)
#define TERN_OP_HAVE_F16 1
#endif
#if defined(__FLT128_MAX__)
#define TERN_OP_HAVE_F128 1
#endif

enum tern_op_elem {
    TERN_OP_E_NONE,    /* Not reducible (MPI_CHAR, MPI_PACKED ...). */
    /* Integers by width and signedness; logical and byte types use the
     * unsigned kinds of their width. */
    TERN_OP_E_I8, TERN_OP_E_U8,
    TERN_OP_E_I16, TERN_OP_E_U16,
    TERN_OP_E_I32, TERN_OP_E_U32,
    TERN_OP_E_I64, TERN_OP_E_U64,
    TERN_OP_E_I128, TERN_OP_E_U128,
    /* Binary floating point: IEEE half, single, double, x87 extended (C long
     * double) and IEEE quad (Fortran REAL*16). */
    TERN_OP_E_F16, TERN_OP_E_F32, TERN_OP_E_F64, TERN_OP_E_FLD, TERN_OP_E_F128,
    /* Complex numbers made of two of the above. */
    TERN_OP_E_C16, TERN_OP_E_C32, TERN_OP_E_C64, TERN_OP_E_CLD, TERN_OP_E_C128,
    /* The value-index pairs of MINLOC and MAXLOC. */
    TERN_OP_E_FLOAT_INT, TERN_OP_E_DOUBLE_INT, TERN_OP_E_LONG_INT,
    TERN_OP_E_2INT, TERN_OP_E_SHORT_INT, TERN_OP_E_LONG_DOUBLE_INT,
    TERN_OP_E_2INTEGER, TERN_OP_E_2REAL, TERN_OP_E_2DOUBLE_PRECISION,
    TERN_OP_E_COUNT_
};

typedef void tern_op_kernel(const void *in, void *inout, size_t n);

/* SUM, PROD, MAX, MIN on integers, floating point and complex. */
tern_op_kernel *tern_op_arith_kernel(enum tern_op_kind kind, enum tern_op_elem e);
/* LAND, LOR, LXOR, BAND, BOR, BXOR on integers of every width. */
tern_op_kernel *tern_op_logic_kernel(enum tern_op_kind kind, enum tern_op_elem e);
/* MINLOC, MAXLOC on the pair types. */
tern_op_kernel *tern_op_loc_kernel(enum tern_op_kind kind, enum tern_op_elem e);

/* Clones of a hot loop for AVX-512, AVX2 and the baseline ISA; the dynamic
 * loader picks one through an ifunc when the library is loaded. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TERN_OP_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TERN_OP_CLONES
#endif

/* Bytes per block of the vector loop below. */
#define TERN_OP_BLOCK 256

/*
 * TERN_OP_VECTOR_KERNEL(name, T, expr) defines the kernel
 *     static void name(const void *in, void *inout, size_t n)
 * that sets inout[i] = expr for n elements of type T, where expr reads
 * `a` (in[i], the left operand) and `b` (inout[i]). The work is done by
 * name_loop, whose restrict-qualified typed parameters tell the compiler
 * the buffers do not overlap. The loop runs in blocks of TERN_OP_BLOCK bytes
 * with a constant trip count, which GCC vectorizes even at -O2 (whose cost
 * model only takes loops that need no scalar remainder), then finishes the
 * remainder one element at a time. Each element is computed on its own, so
 * the result is the same as a plain loop's, bit for bit.
 */
#define TERN_OP_VECTOR_KERNEL(name, T, expr)                                    \
    TERN_OP_CLONES static void name##_loop(const T *restrict in,                \
                                           T *restrict io, size_t n)            \
    {                                                                           \
        enum { per_block = TERN_OP_BLOCK / sizeof(T) };                         \
        size_t i = 0;                                                           \
        for (; n - i >= per_block; i += per_block)                              \
            for (size_t j = 0; j < per_block; j++) {                            \
                T a = in[i + j], b = io[i + j];                                 \
                io[i + j] = (expr);                                             \
            }                                                                   \
        for (; i < n; i++) {                                                    \
            T a = in[i], b = io[i];                                             \
            io[i] = (expr);                                                     \
        }                                                                       \
    }                                                                           \
    static void name(const void *in, void *inout, size_t n)                     \
    {                                                                           \
        name##_loop(in, inout, n);                                              \
    }

/* The same for element types no vector unit handles (x87 long double,
 * quad precision, complex products): a plain loop, built once. */
#define TERN_OP_SCALAR_KERNEL(name, T, expr)                                    \
    static void name(const void *in_, void *inout_, size_t n)                   \
    {                                                                           \
        const T *in = in_;                                                      \
        T *io = inout_;                                                         \
        for (size_t i = 0; i < n; i++) {                                        \
            T a = in[i], b = io[i];                                             \
            io[i] = (expr);                                                     \
        }                                                                       \
    }

#endif
