/*
 * Logical and bitwise kernels: MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND,
 * MPI_BOR and MPI_BXOR.
 *
 * Both families depend only on the width of the element, not on its
 * signedness or on whether it is a C integer, a Fortran LOGICAL, a C _Bool
 * or MPI_BYTE, so there is one kernel per width. The logical ops treat any
 * nonzero value as true and store 1 or 0, which is C's convention and
 * gfortran's for LOGICAL. Which types each family accepts is op.c's
 * business.
 */
#include <stdint.h>

#include "libmpi/core/op_kernel.h"

TERN_OP_VECTOR_KERNEL(land_8, uint8_t, (a != 0) & (b != 0))
TERN_OP_VECTOR_KERNEL(land_16, uint16_t, (a != 0) & (b != 0))
TERN_OP_VECTOR_KERNEL(land_32, uint32_t, (a != 0) & (b != 0))
TERN_OP_VECTOR_KERNEL(land_64, uint64_t, (a != 0) & (b != 0))
TERN_OP_VECTOR_KERNEL(lor_8, uint8_t, (a != 0) | (b != 0))
TERN_OP_VECTOR_KERNEL(lor_16, uint16_t, (a != 0) | (b != 0))
TERN_OP_VECTOR_KERNEL(lor_32, uint32_t, (a != 0) | (b != 0))
TERN_OP_VECTOR_KERNEL(lor_64, uint64_t, (a != 0) | (b != 0))
TERN_OP_VECTOR_KERNEL(lxor_8, uint8_t, (a != 0) ^ (b != 0))
TERN_OP_VECTOR_KERNEL(lxor_16, uint16_t, (a != 0) ^ (b != 0))
TERN_OP_VECTOR_KERNEL(lxor_32, uint32_t, (a != 0) ^ (b != 0))
TERN_OP_VECTOR_KERNEL(lxor_64, uint64_t, (a != 0) ^ (b != 0))
TERN_OP_VECTOR_KERNEL(band_8, uint8_t, a & b)
TERN_OP_VECTOR_KERNEL(band_16, uint16_t, a & b)
TERN_OP_VECTOR_KERNEL(band_32, uint32_t, a & b)
TERN_OP_VECTOR_KERNEL(band_64, uint64_t, a & b)
TERN_OP_VECTOR_KERNEL(bor_8, uint8_t, a | b)
TERN_OP_VECTOR_KERNEL(bor_16, uint16_t, a | b)
TERN_OP_VECTOR_KERNEL(bor_32, uint32_t, a | b)
TERN_OP_VECTOR_KERNEL(bor_64, uint64_t, a | b)
TERN_OP_VECTOR_KERNEL(bxor_8, uint8_t, a ^ b)
TERN_OP_VECTOR_KERNEL(bxor_16, uint16_t, a ^ b)
TERN_OP_VECTOR_KERNEL(bxor_32, uint32_t, a ^ b)
TERN_OP_VECTOR_KERNEL(bxor_64, uint64_t, a ^ b)

#ifdef TERN_OP_HAVE_INT128
typedef unsigned __int128 u128;
TERN_OP_SCALAR_KERNEL(land_128, u128, (a != 0) & (b != 0))
TERN_OP_SCALAR_KERNEL(lor_128, u128, (a != 0) | (b != 0))
TERN_OP_SCALAR_KERNEL(lxor_128, u128, (a != 0) ^ (b != 0))
TERN_OP_SCALAR_KERNEL(band_128, u128, a & b)
TERN_OP_SCALAR_KERNEL(bor_128, u128, a | b)
TERN_OP_SCALAR_KERNEL(bxor_128, u128, a ^ b)
#define BY_WIDTH_128(k) [TERN_OP_E_I128] = k, [TERN_OP_E_U128] = k,
#else
#define BY_WIDTH_128(k)
#endif

/* One kernel for the signed and unsigned kinds of each width. */
#define BY_WIDTH(k8, k16, k32, k64, k128)                                       \
    {                                                                           \
        [TERN_OP_E_I8] = k8, [TERN_OP_E_U8] = k8,                               \
        [TERN_OP_E_I16] = k16, [TERN_OP_E_U16] = k16,                           \
        [TERN_OP_E_I32] = k32, [TERN_OP_E_U32] = k32,                           \
        [TERN_OP_E_I64] = k64, [TERN_OP_E_U64] = k64,                           \
        BY_WIDTH_128(k128)                                                      \
    }

static tern_op_kernel *const table[TERN_OP_BXOR + 1][TERN_OP_E_COUNT_] = {
    [TERN_OP_LAND] = BY_WIDTH(land_8, land_16, land_32, land_64, land_128),
    [TERN_OP_LOR] = BY_WIDTH(lor_8, lor_16, lor_32, lor_64, lor_128),
    [TERN_OP_LXOR] = BY_WIDTH(lxor_8, lxor_16, lxor_32, lxor_64, lxor_128),
    [TERN_OP_BAND] = BY_WIDTH(band_8, band_16, band_32, band_64, band_128),
    [TERN_OP_BOR] = BY_WIDTH(bor_8, bor_16, bor_32, bor_64, bor_128),
    [TERN_OP_BXOR] = BY_WIDTH(bxor_8, bxor_16, bxor_32, bxor_64, bxor_128),
};

tern_op_kernel *tern_op_logic_kernel(enum tern_op_kind kind, enum tern_op_elem e)
{
    if (kind < TERN_OP_LAND || kind > TERN_OP_BXOR || (unsigned)e >= TERN_OP_E_COUNT_)
        return NULL;
    return table[kind][e];
}
