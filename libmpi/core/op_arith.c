/*
 * Arithmetic kernels: MPI_SUM, MPI_PROD, MPI_MAX and MPI_MIN.
 *
 * Integers: SUM and PROD use the unsigned type of the width for signed and
 * unsigned data alike. Two's complement gives the same bits, and unsigned
 * arithmetic wraps where signed overflow would be undefined. MAX and MIN
 * need the signedness, so they have both.
 *
 * Floating point: one IEEE operation per element, in the operand order
 * in[i] op inout[i], never reassociated. MAX and MIN are
 * inout[i] = inout[i] > in[i] ? inout[i] : in[i] (and < for MIN), what a
 * plain C comparison does, and what Open MPI and MPICH compute: when either
 * value is a NaN, or the two compare equal (+0 and -0), the result is in's.
 * This is also exactly the x86 MAXPD/MINPD instruction, so it vectorizes.
 *
 * Complex: SUM adds the real and imaginary parts as two floating-point
 * arrays (the same bits as complex addition); PROD is C's complex
 * multiplication, with its Annex G handling of infinities and NaNs.
 */
#include <complex.h>
#include <stdint.h>

#include "libmpi/core/op_kernel.h"

/* SUM and PROD on integers, unsigned of each width. */
TERN_OP_VECTOR_KERNEL(sum_u8, uint8_t, a + b)
TERN_OP_VECTOR_KERNEL(sum_u16, uint16_t, a + b)
TERN_OP_VECTOR_KERNEL(sum_u32, uint32_t, a + b)
TERN_OP_VECTOR_KERNEL(sum_u64, uint64_t, a + b)
TERN_OP_VECTOR_KERNEL(prod_u8, uint8_t, a * b)
TERN_OP_VECTOR_KERNEL(prod_u16, uint16_t, (uint32_t)a * b) /* No int overflow. */
TERN_OP_VECTOR_KERNEL(prod_u32, uint32_t, a * b)
TERN_OP_VECTOR_KERNEL(prod_u64, uint64_t, a * b)

/* MAX and MIN on integers. */
TERN_OP_VECTOR_KERNEL(max_i8, int8_t, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(max_u8, uint8_t, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(max_i16, int16_t, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(max_u16, uint16_t, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(max_i32, int32_t, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(max_u32, uint32_t, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(max_i64, int64_t, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(max_u64, uint64_t, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(min_i8, int8_t, b < a ? b : a)
TERN_OP_VECTOR_KERNEL(min_u8, uint8_t, b < a ? b : a)
TERN_OP_VECTOR_KERNEL(min_i16, int16_t, b < a ? b : a)
TERN_OP_VECTOR_KERNEL(min_u16, uint16_t, b < a ? b : a)
TERN_OP_VECTOR_KERNEL(min_i32, int32_t, b < a ? b : a)
TERN_OP_VECTOR_KERNEL(min_u32, uint32_t, b < a ? b : a)
TERN_OP_VECTOR_KERNEL(min_i64, int64_t, b < a ? b : a)
TERN_OP_VECTOR_KERNEL(min_u64, uint64_t, b < a ? b : a)

#ifdef TERN_OP_HAVE_INT128
typedef unsigned __int128 u128;
typedef __int128 i128;
TERN_OP_SCALAR_KERNEL(sum_u128, u128, a + b)
TERN_OP_SCALAR_KERNEL(prod_u128, u128, a * b)
TERN_OP_SCALAR_KERNEL(max_i128, i128, b > a ? b : a)
TERN_OP_SCALAR_KERNEL(max_u128, u128, b > a ? b : a)
TERN_OP_SCALAR_KERNEL(min_i128, i128, b < a ? b : a)
TERN_OP_SCALAR_KERNEL(min_u128, u128, b < a ? b : a)
#endif

/* Floating point. */
TERN_OP_VECTOR_KERNEL(sum_f32, float, a + b)
TERN_OP_VECTOR_KERNEL(sum_f64, double, a + b)
TERN_OP_VECTOR_KERNEL(prod_f32, float, a * b)
TERN_OP_VECTOR_KERNEL(prod_f64, double, a * b)
TERN_OP_VECTOR_KERNEL(max_f32, float, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(max_f64, double, b > a ? b : a)
TERN_OP_VECTOR_KERNEL(min_f32, float, b < a ? b : a)
TERN_OP_VECTOR_KERNEL(min_f64, double, b < a ? b : a)
TERN_OP_SCALAR_KERNEL(sum_fld, long double, a + b)
TERN_OP_SCALAR_KERNEL(prod_fld, long double, a * b)
TERN_OP_SCALAR_KERNEL(max_fld, long double, b > a ? b : a)
TERN_OP_SCALAR_KERNEL(min_fld, long double, b < a ? b : a)
#ifdef TERN_OP_HAVE_F16
TERN_OP_SCALAR_KERNEL(sum_f16, _Float16, a + b)
TERN_OP_SCALAR_KERNEL(prod_f16, _Float16, a * b)
TERN_OP_SCALAR_KERNEL(max_f16, _Float16, b > a ? b : a)
TERN_OP_SCALAR_KERNEL(min_f16, _Float16, b < a ? b : a)
TERN_OP_SCALAR_KERNEL(prod_c16, _Complex _Float16, a * b)
#endif
#ifdef TERN_OP_HAVE_F128
TERN_OP_SCALAR_KERNEL(sum_f128, _Float128, a + b)
TERN_OP_SCALAR_KERNEL(prod_f128, _Float128, a * b)
TERN_OP_SCALAR_KERNEL(max_f128, _Float128, b > a ? b : a)
TERN_OP_SCALAR_KERNEL(min_f128, _Float128, b < a ? b : a)
TERN_OP_SCALAR_KERNEL(prod_c128, _Complex _Float128, a * b)
#endif

/* Complex products; complex sums are sums of 2n real numbers. */
TERN_OP_SCALAR_KERNEL(prod_c32, float _Complex, a * b)
TERN_OP_SCALAR_KERNEL(prod_c64, double _Complex, a * b)
TERN_OP_SCALAR_KERNEL(prod_cld, long double _Complex, a * b)

static void sum_c32(const void *in, void *inout, size_t n)
{
    sum_f32(in, inout, 2 * n);
}

static void sum_c64(const void *in, void *inout, size_t n)
{
    sum_f64(in, inout, 2 * n);
}

static void sum_cld(const void *in, void *inout, size_t n)
{
    sum_fld(in, inout, 2 * n);
}

#ifdef TERN_OP_HAVE_F16
static void sum_c16(const void *in, void *inout, size_t n)
{
    sum_f16(in, inout, 2 * n);
}
#endif

#ifdef TERN_OP_HAVE_F128
static void sum_c128(const void *in, void *inout, size_t n)
{
    sum_f128(in, inout, 2 * n);
}
#endif

/* The kernels by op and element kind; a missing entry means the op is not
 * available for that kind in this build. */
static tern_op_kernel *const table[TERN_OP_MIN + 1][TERN_OP_E_COUNT_] = {
    [TERN_OP_SUM] = {
        [TERN_OP_E_I8] = sum_u8, [TERN_OP_E_U8] = sum_u8,
        [TERN_OP_E_I16] = sum_u16, [TERN_OP_E_U16] = sum_u16,
        [TERN_OP_E_I32] = sum_u32, [TERN_OP_E_U32] = sum_u32,
        [TERN_OP_E_I64] = sum_u64, [TERN_OP_E_U64] = sum_u64,
        [TERN_OP_E_F32] = sum_f32, [TERN_OP_E_F64] = sum_f64,
        [TERN_OP_E_FLD] = sum_fld,
        [TERN_OP_E_C32] = sum_c32, [TERN_OP_E_C64] = sum_c64,
        [TERN_OP_E_CLD] = sum_cld,
#ifdef TERN_OP_HAVE_INT128
        [TERN_OP_E_I128] = sum_u128, [TERN_OP_E_U128] = sum_u128,
#endif
#ifdef TERN_OP_HAVE_F16
        [TERN_OP_E_F16] = sum_f16, [TERN_OP_E_C16] = sum_c16,
#endif
#ifdef TERN_OP_HAVE_F128
        [TERN_OP_E_F128] = sum_f128, [TERN_OP_E_C128] = sum_c128,
#endif
    },
    [TERN_OP_PROD] = {
        [TERN_OP_E_I8] = prod_u8, [TERN_OP_E_U8] = prod_u8,
        [TERN_OP_E_I16] = prod_u16, [TERN_OP_E_U16] = prod_u16,
        [TERN_OP_E_I32] = prod_u32, [TERN_OP_E_U32] = prod_u32,
        [TERN_OP_E_I64] = prod_u64, [TERN_OP_E_U64] = prod_u64,
        [TERN_OP_E_F32] = prod_f32, [TERN_OP_E_F64] = prod_f64,
        [TERN_OP_E_FLD] = prod_fld,
        [TERN_OP_E_C32] = prod_c32, [TERN_OP_E_C64] = prod_c64,
        [TERN_OP_E_CLD] = prod_cld,
#ifdef TERN_OP_HAVE_INT128
        [TERN_OP_E_I128] = prod_u128, [TERN_OP_E_U128] = prod_u128,
#endif
#ifdef TERN_OP_HAVE_F16
        [TERN_OP_E_F16] = prod_f16, [TERN_OP_E_C16] = prod_c16,
#endif
#ifdef TERN_OP_HAVE_F128
        [TERN_OP_E_F128] = prod_f128, [TERN_OP_E_C128] = prod_c128,
#endif
    },
    [TERN_OP_MAX] = {
        [TERN_OP_E_I8] = max_i8, [TERN_OP_E_U8] = max_u8,
        [TERN_OP_E_I16] = max_i16, [TERN_OP_E_U16] = max_u16,
        [TERN_OP_E_I32] = max_i32, [TERN_OP_E_U32] = max_u32,
        [TERN_OP_E_I64] = max_i64, [TERN_OP_E_U64] = max_u64,
        [TERN_OP_E_F32] = max_f32, [TERN_OP_E_F64] = max_f64,
        [TERN_OP_E_FLD] = max_fld,
#ifdef TERN_OP_HAVE_INT128
        [TERN_OP_E_I128] = max_i128, [TERN_OP_E_U128] = max_u128,
#endif
#ifdef TERN_OP_HAVE_F16
        [TERN_OP_E_F16] = max_f16,
#endif
#ifdef TERN_OP_HAVE_F128
        [TERN_OP_E_F128] = max_f128,
#endif
    },
    [TERN_OP_MIN] = {
        [TERN_OP_E_I8] = min_i8, [TERN_OP_E_U8] = min_u8,
        [TERN_OP_E_I16] = min_i16, [TERN_OP_E_U16] = min_u16,
        [TERN_OP_E_I32] = min_i32, [TERN_OP_E_U32] = min_u32,
        [TERN_OP_E_I64] = min_i64, [TERN_OP_E_U64] = min_u64,
        [TERN_OP_E_F32] = min_f32, [TERN_OP_E_F64] = min_f64,
        [TERN_OP_E_FLD] = min_fld,
#ifdef TERN_OP_HAVE_INT128
        [TERN_OP_E_I128] = min_i128, [TERN_OP_E_U128] = min_u128,
#endif
#ifdef TERN_OP_HAVE_F16
        [TERN_OP_E_F16] = min_f16,
#endif
#ifdef TERN_OP_HAVE_F128
        [TERN_OP_E_F128] = min_f128,
#endif
    },
};

tern_op_kernel *tern_op_arith_kernel(enum tern_op_kind kind, enum tern_op_elem e)
{
    if ((unsigned)kind > TERN_OP_MIN || (unsigned)e >= TERN_OP_E_COUNT_)
        return NULL;
    return table[kind][e];
}
