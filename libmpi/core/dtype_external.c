/*
 * The "external32" data representation (MPI_Pack_external and friends):
 * every basic value big-endian, at the fixed size the standard's
 * external32 table gives it, one after the other with no padding.
 *
 * Packing goes through the ordinary pack walker (dtype_pack.c) into a
 * native buffer, a batch of whole elements at a time, and then converts
 * that buffer value by value into the caller's; unpacking converts first
 * and unpacks after. The native packed stream of an element is its kids'
 * packed streams in order (kid_count[i] copies of kid[i], datatype.h), so
 * the conversion follows the same construction tree down to the
 * predefined types: a type made of one predefined type is one tight loop,
 * a struct recurses per field.
 *
 * Each predefined type converts as one or two parts of the same kind:
 * raw bytes, signed or unsigned integers (sign- or zero-extended, or
 * truncated, where the native and external sizes differ: MPI_LONG is 8
 * bytes here but 4 in external32, MPI_WCHAR 4 and 2), IEEE floating point
 * (byte order only), and long double, which external32 stores as IEEE
 * quadruple precision: from the x87 80-bit format the exponent is kept and
 * the 63 fraction bits move to the top of the 112, and back they are
 * truncated to 63. Complex types are two parts, the pair types (MPI_FLOAT_INT
 * ...) their value and an int. Values that do not fit the external size
 * are truncated, as other implementations do.
 *
 * Cost: one pass of the pack walker and one conversion pass over the
 * data; memory is a bounce buffer of at most max(64 KiB, one element).
 */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libmpi/core/datatype.h"
#include "tern/err.h"

enum ext_kind { X_NONE, X_RAW, X_SINT, X_UINT, X_FLT, X_LDBL };

struct ext_part {
    uint8_t kind, nsize, xsize, reps;
};

struct ext_desc {
    struct ext_part part[2];
    uint8_t nparts;
};

#define DT_BASE 0x200
static struct ext_desc desc[0x100];

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG 1
#else
#define HOST_BIG 0
#endif

#if LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 113
#define LDBL_KIND X_LDBL
#else
#define LDBL_KIND X_NONE
#endif

/* reps values of `kind`, each xsize bytes in external32. */
static void one(MPI_Datatype h, int kind, int xsize, int reps)
{
    struct ext_desc *d = &desc[(uintptr_t)h - DT_BASE];
    d->nparts = 1;
    d->part[0] = (struct ext_part){ (uint8_t)kind, 0, (uint8_t)xsize, (uint8_t)reps };
}

/* A pair type: a value of `kind` then an int. */
static void pair(MPI_Datatype h, int kind, int xsize)
{
    struct ext_desc *d = &desc[(uintptr_t)h - DT_BASE];
    d->nparts = 2;
    d->part[0] = (struct ext_part){ (uint8_t)kind, 0, (uint8_t)xsize, 1 };
    d->part[1] = (struct ext_part){ X_SINT, 0, 4, 1 };
}

static void fill_c(void)
{
    MPI_Datatype raw[] = { MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_PACKED,
                           MPI_C_BOOL, MPI_CXX_BOOL, MPI_INT8_T, MPI_UINT8_T, MPI_CHARACTER,
                           MPI_LOGICAL1, MPI_INTEGER1 };
    for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
        one(raw[i], X_RAW, 1, 1);
    one(MPI_WCHAR, X_UINT, 2, 1);
    one(MPI_SHORT, X_SINT, 2, 1);
    one(MPI_UNSIGNED_SHORT, X_UINT, 2, 1);
    one(MPI_INT, X_SINT, 4, 1);
    one(MPI_UNSIGNED, X_UINT, 4, 1);
    one(MPI_LONG, X_SINT, 4, 1);
    one(MPI_UNSIGNED_LONG, X_UINT, 4, 1);
    one(MPI_LONG_LONG, X_SINT, 8, 1);
    one(MPI_UNSIGNED_LONG_LONG, X_UINT, 8, 1);
    one(MPI_INT16_T, X_SINT, 2, 1);
    one(MPI_UINT16_T, X_UINT, 2, 1);
    one(MPI_INT32_T, X_SINT, 4, 1);
    one(MPI_UINT32_T, X_UINT, 4, 1);
    one(MPI_INT64_T, X_SINT, 8, 1);
    one(MPI_UINT64_T, X_UINT, 8, 1);
    one(MPI_AINT, X_SINT, 8, 1);
    one(MPI_COUNT, X_SINT, 8, 1);
    one(MPI_OFFSET, X_SINT, 8, 1);
    one(MPI_FLOAT, X_FLT, 4, 1);
    one(MPI_DOUBLE, X_FLT, 8, 1);
    one(MPI_LONG_DOUBLE, LDBL_KIND, 16, 1);
    one(MPI_C_FLOAT_COMPLEX, X_FLT, 4, 2);
    one(MPI_CXX_FLOAT_COMPLEX, X_FLT, 4, 2);
    one(MPI_C_DOUBLE_COMPLEX, X_FLT, 8, 2);
    one(MPI_CXX_DOUBLE_COMPLEX, X_FLT, 8, 2);
    one(MPI_C_LONG_DOUBLE_COMPLEX, LDBL_KIND, 16, 2);
    one(MPI_CXX_LONG_DOUBLE_COMPLEX, LDBL_KIND, 16, 2);
    pair(MPI_FLOAT_INT, X_FLT, 4);
    pair(MPI_DOUBLE_INT, X_FLT, 8);
    pair(MPI_LONG_INT, X_SINT, 4);
    pair(MPI_2INT, X_SINT, 4);
    pair(MPI_SHORT_INT, X_SINT, 2);
    pair(MPI_LONG_DOUBLE_INT, LDBL_KIND, 16);
}

/* Fortran types: INTEGER and LOGICAL as integers of their size, REAL as
 * IEEE values, COMPLEX as two REALs. */
static void fill_fortran(void)
{
    one(MPI_INTEGER, X_SINT, 4, 1);
    one(MPI_LOGICAL, X_UINT, 4, 1);
    one(MPI_REAL, X_FLT, 4, 1);
    one(MPI_DOUBLE_PRECISION, X_FLT, 8, 1);
    one(MPI_COMPLEX, X_FLT, 4, 2);
    one(MPI_DOUBLE_COMPLEX, X_FLT, 8, 2);
    one(MPI_2REAL, X_FLT, 4, 2);
    one(MPI_2DOUBLE_PRECISION, X_FLT, 8, 2);
    one(MPI_2INTEGER, X_SINT, 4, 2);
    one(MPI_LOGICAL2, X_UINT, 2, 1);
    one(MPI_LOGICAL4, X_UINT, 4, 1);
    one(MPI_LOGICAL8, X_UINT, 8, 1);
    one(MPI_LOGICAL16, X_UINT, 16, 1);
    one(MPI_INTEGER2, X_SINT, 2, 1);
    one(MPI_INTEGER4, X_SINT, 4, 1);
    one(MPI_INTEGER8, X_SINT, 8, 1);
    one(MPI_INTEGER16, X_SINT, 16, 1);
    one(MPI_REAL2, X_FLT, 2, 1);
    one(MPI_REAL4, X_FLT, 4, 1);
    one(MPI_REAL8, X_FLT, 8, 1);
    one(MPI_REAL16, X_FLT, 16, 1);
    one(MPI_COMPLEX4, X_FLT, 2, 2);
    one(MPI_COMPLEX8, X_FLT, 4, 2);
    one(MPI_COMPLEX16, X_FLT, 8, 2);
    one(MPI_COMPLEX32, X_FLT, 16, 2);
}

__attribute__((constructor)) static void fill_desc(void)
{
    fill_c();
    fill_fortran();
}

/* The conversion of a predefined type, with the native sizes of its parts
 * taken from the type (a pair type's value is pair_first bytes). */
static struct ext_desc desc_of(const struct tern_dtype *basic)
{
    struct ext_desc d = desc[(uintptr_t)basic->handle - DT_BASE];
    if (d.nparts == 1) {
        d.part[0].nsize = (uint8_t)(basic->size / d.part[0].reps);
    } else if (d.nparts == 2) {
        d.part[0].nsize = (uint8_t)basic->pair_first;
        d.part[1].nsize = (uint8_t)(basic->size - basic->pair_first);
    }
    return d;
}

static size_t desc_size(const struct ext_desc *d)
{
    size_t s = 0;
    for (int i = 0; i < d->nparts; i++)
        s += (size_t)d->part[i].xsize * d->part[i].reps;
    return s;
}

int tern_dtype_ext32_size(const struct tern_dtype *dt, size_t *out, const char **why)
{
    if (dt->basic) {
        struct ext_desc dd = desc_of(dt->basic);
        const struct ext_desc *d = &dd;
        for (int i = 0; i < d->nparts; i++)
            if (d->part[i].kind == X_NONE) {
                *why = dt->basic->name;
                return TERN_ENOTSUP;
            }
        if (!d->nparts) {
            *why = dt->basic->name;
            return TERN_ENOTSUP;
        }
        size_t per = dt->basic->size ? dt->size / dt->basic->size : 0;
        *out = per * desc_size(d);
        return 0;
    }
    size_t total = 0;
    for (size_t i = 0; i < dt->nkid; i++) {
        size_t k, part;
        int rc = tern_dtype_ext32_size(dt->kid[i], &k, why);
        if (rc)
            return rc;
        if (__builtin_mul_overflow(k, dt->kid_count[i], &part) ||
            __builtin_add_overflow(total, part, &total)) {
            *why = "its external32 size does not fit in MPI_Count";
            return TERN_ECOUNT;
        }
    }
    *out = total;
    return 0;
}

/* Copies n bytes reversing their order when the host is little-endian. */
static void to_big(unsigned char *dst, const unsigned char *src, size_t n)
{
    if (HOST_BIG)
        memcpy(dst, src, n);
    else
        for (size_t i = 0; i < n; i++)
            dst[i] = src[n - 1 - i];
}

/* An integer of ns native bytes to xs external bytes, or back. */
static void conv_int(unsigned char *dst, const unsigned char *src, size_t ns, size_t xs,
                     int is_signed, int unpack)
{
    if (ns == xs) {
        to_big(dst, src, ns);
        return;
    }
    /* Sizes differ (8 and 4, 4 and 2): through a 64-bit value. */
    size_t from = unpack ? xs : ns, to = unpack ? ns : xs;
    unsigned char le[8] = { 0 }, fill;
    if (unpack)
        for (size_t i = 0; i < from; i++)
            le[i] = src[from - 1 - i];
    else if (HOST_BIG)
        for (size_t i = 0; i < from; i++)
            le[i] = src[from - 1 - i];
    else
        memcpy(le, src, from);
    fill = is_signed && (le[from - 1] & 0x80) ? 0xff : 0;
    for (size_t i = from; i < 8; i++)
        le[i] = fill;
    if (!unpack || HOST_BIG)
        for (size_t i = 0; i < to; i++)
            dst[i] = le[to - 1 - i];
    else
        memcpy(dst, le, to);
}

/* The native long double's bytes (little-endian x87 or binary128) and
 * the 16 big-endian bytes of IEEE quadruple precision. */
static void conv_ldbl(unsigned char *dst, const unsigned char *src, int unpack)
{
#if LDBL_MANT_DIG == 64
    uint64_t m, hi, lo;
    uint16_t se;
    if (!unpack) {
        memcpy(&m, src, 8);
        memcpy(&se, src + 8, 2);
        hi = (uint64_t)se << 48 | (m & 0x7fffffffffffffffULL) >> 15;
        lo = m << 49;
        for (int i = 0; i < 8; i++) {
            dst[i] = (unsigned char)(hi >> (56 - 8 * i));
            dst[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
        }
        return;
    }
    hi = lo = 0;
    for (int i = 0; i < 8; i++) {
        hi = hi << 8 | src[i];
        lo = lo << 8 | src[8 + i];
    }
    se = (uint16_t)(hi >> 48);
    m = (hi & 0xffffffffffffULL) << 15 | lo >> 49;
    if (se & 0x7fff)
        m |= 1ULL << 63;
    memset(dst, 0, sizeof(long double));
    memcpy(dst, &m, 8);
    memcpy(dst + 8, &se, 2);
#else
    (void)unpack;
    to_big(dst, src, 16);
#endif
}

/* n values of one part, from src to dst. */
static void conv_part(const struct ext_part *p, unsigned char **dst, const unsigned char **src,
                      size_t n, int unpack)
{
    size_t ns = unpack ? p->xsize : p->nsize, nd = unpack ? p->nsize : p->xsize;
    for (size_t i = 0; i < n; i++, *src += ns, *dst += nd) {
        switch (p->kind) {
        case X_RAW:
            **dst = **src;
            break;
        case X_SINT:
        case X_UINT:
            conv_int(*dst, *src, p->nsize, p->xsize, p->kind == X_SINT, unpack);
            break;
        case X_FLT:
            to_big(*dst, *src, p->nsize);
            break;
        case X_LDBL:
            conv_ldbl(*dst, *src, unpack);
            break;
        default:
            break;
        }
    }
}

/* n elements of dt between the native packed stream and external32. */
static void conv(const struct tern_dtype *dt, unsigned char **dst, const unsigned char **src,
                 size_t n, int unpack)
{
    if (!dt->size || !n)
        return;
    if (dt->basic) {
        struct ext_desc dd = desc_of(dt->basic);
        const struct ext_desc *d = &dd;
        size_t values = n * (dt->size / dt->basic->size);
        if (d->nparts == 1) {
            conv_part(&d->part[0], dst, src, values * d->part[0].reps, unpack);
            return;
        }
        for (size_t v = 0; v < values; v++)
            for (int i = 0; i < d->nparts; i++)
                conv_part(&d->part[i], dst, src, d->part[i].reps, unpack);
        return;
    }
    for (size_t e = 0; e < n; e++)
        for (size_t i = 0; i < dt->nkid; i++)
            conv(dt->kid[i], dst, src, dt->kid_count[i], unpack);
}

/* Elements per batch through the bounce buffer. */
static size_t batch_of(const struct tern_dtype *dt, size_t count)
{
    size_t k = (64 * 1024) / dt->size;
    if (k < 1)
        k = 1;
    return k < count ? k : count;
}

int tern_dtype_ext32_pack(const struct tern_dtype *dt, const void *user, size_t count,
                          void *out)
{
    if (!count || !dt->size)
        return 0;
    size_t k = batch_of(dt, count);
    unsigned char *tmp = malloc(k * dt->size);
    if (!tmp)
        return TERN_ENOMEM;
    unsigned char *dst = out;
    for (size_t done = 0; done < count; done += k) {
        if (k > count - done)
            k = count - done;
        tern_dtype_pack_range(dt, user, count, done * dt->size, k * dt->size, tmp);
        const unsigned char *src = tmp;
        conv(dt, &dst, &src, k, 0);
    }
    free(tmp);
    return 0;
}

int tern_dtype_ext32_unpack(const struct tern_dtype *dt, const void *in, size_t count,
                            void *user)
{
    if (!count || !dt->size)
        return 0;
    size_t k = batch_of(dt, count);
    unsigned char *tmp = malloc(k * dt->size);
    if (!tmp)
        return TERN_ENOMEM;
    const unsigned char *src = in;
    for (size_t done = 0; done < count; done += k) {
        if (k > count - done)
            k = count - done;
        unsigned char *dst = tmp;
        conv(dt, &dst, &src, k, 1);
        tern_dtype_unpack_range(dt, tmp, count, done * dt->size, k * dt->size, user);
    }
    free(tmp);
    return 0;
}
