/*
 * The predefined datatypes: a table indexed by the low byte of the standard
 * ABI handle (0x200 to 0x2ff), filled at first use from the C types the
 * compiler sees, so sizes and the layout of the pair types are the ABI's.
 */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "libmpi/core/datatype.h"
#include "libmpi/core/object.h"

#define DT_BASE 0x200
#define DT_SLOTS 0x100

static struct tern_dtype table[DT_SLOTS];

struct pair_layout {
    size_t size, extent, off2, len1, len2;
};

#define PAIR(t1, t2) \
    { sizeof(t1) + sizeof(t2), sizeof(struct { t1 a; t2 b; }), \
      offsetof(struct { t1 a; t2 b; }, b), sizeof(t1), sizeof(t2) }

static void set_simple(MPI_Datatype h, const char *name, size_t size)
{
    struct tern_dtype *dt = &table[(uintptr_t)h - DT_BASE];
    dt->magic = TERN_MAGIC_DTYPE;
    dt->name = name;
    dt->size = size;
    dt->extent = size;
    dt->nblocks = 1;
    dt->block[0].offset = 0;
    dt->block[0].len = size;
}

static void set_pair(MPI_Datatype h, const char *name, struct pair_layout p)
{
    struct tern_dtype *dt = &table[(uintptr_t)h - DT_BASE];
    dt->magic = TERN_MAGIC_DTYPE;
    dt->name = name;
    dt->size = p.size;
    dt->extent = p.extent;
    if (p.off2 == p.len1) {
        dt->nblocks = 1;
        dt->block[0] = (struct tern_dtype_block){ 0, p.size };
    } else {
        dt->nblocks = 2;
        dt->block[0] = (struct tern_dtype_block){ 0, p.len1 };
        dt->block[1] = (struct tern_dtype_block){ p.off2, p.len2 };
    }
}

static void fill_c_types(void)
{
    set_simple(MPI_CHAR, "MPI_CHAR", sizeof(char));
    set_simple(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", sizeof(signed char));
    set_simple(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", sizeof(unsigned char));
    set_simple(MPI_BYTE, "MPI_BYTE", 1);
    set_simple(MPI_PACKED, "MPI_PACKED", 1);
    set_simple(MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t));
    set_simple(MPI_SHORT, "MPI_SHORT", sizeof(short));
    set_simple(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(unsigned short));
    set_simple(MPI_INT, "MPI_INT", sizeof(int));
    set_simple(MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(unsigned));
    set_simple(MPI_LONG, "MPI_LONG", sizeof(long));
    set_simple(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(unsigned long));
    set_simple(MPI_LONG_LONG, "MPI_LONG_LONG", sizeof(long long));
    set_simple(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG",
               sizeof(unsigned long long));
    set_simple(MPI_FLOAT, "MPI_FLOAT", sizeof(float));
    set_simple(MPI_DOUBLE, "MPI_DOUBLE", sizeof(double));
    set_simple(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double));
    set_simple(MPI_C_BOOL, "MPI_C_BOOL", sizeof(_Bool));
    set_simple(MPI_CXX_BOOL, "MPI_CXX_BOOL", sizeof(_Bool));
    set_simple(MPI_INT8_T, "MPI_INT8_T", 1);
    set_simple(MPI_UINT8_T, "MPI_UINT8_T", 1);
    set_simple(MPI_INT16_T, "MPI_INT16_T", 2);
    set_simple(MPI_UINT16_T, "MPI_UINT16_T", 2);
    set_simple(MPI_INT32_T, "MPI_INT32_T", 4);
    set_simple(MPI_UINT32_T, "MPI_UINT32_T", 4);
    set_simple(MPI_INT64_T, "MPI_INT64_T", 8);
    set_simple(MPI_UINT64_T, "MPI_UINT64_T", 8);
    set_simple(MPI_AINT, "MPI_AINT", sizeof(MPI_Aint));
    set_simple(MPI_COUNT, "MPI_COUNT", sizeof(MPI_Count));
    set_simple(MPI_OFFSET, "MPI_OFFSET", sizeof(MPI_Offset));
    set_simple(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", sizeof(float _Complex));
    set_simple(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", sizeof(double _Complex));
    set_simple(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX",
               sizeof(long double _Complex));
    set_simple(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", sizeof(float _Complex));
    set_simple(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", sizeof(double _Complex));
    set_simple(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX",
               sizeof(long double _Complex));
}

static void fill_pair_types(void)
{
    set_pair(MPI_FLOAT_INT, "MPI_FLOAT_INT", (struct pair_layout)PAIR(float, int));
    set_pair(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", (struct pair_layout)PAIR(double, int));
    set_pair(MPI_LONG_INT, "MPI_LONG_INT", (struct pair_layout)PAIR(long, int));
    set_pair(MPI_2INT, "MPI_2INT", (struct pair_layout)PAIR(int, int));
    set_pair(MPI_SHORT_INT, "MPI_SHORT_INT", (struct pair_layout)PAIR(short, int));
    set_pair(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT",
             (struct pair_layout)PAIR(long double, int));
}

/* Fortran types have the sizes of a Fortran compiler with default 4-byte
 * INTEGER, REAL and LOGICAL, as the standard ABI assumes. */
static void fill_fortran_types(void)
{
    set_simple(MPI_INTEGER, "MPI_INTEGER", 4);
    set_simple(MPI_REAL, "MPI_REAL", 4);
    set_simple(MPI_LOGICAL, "MPI_LOGICAL", 4);
    set_simple(MPI_CHARACTER, "MPI_CHARACTER", 1);
    set_simple(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8);
    set_simple(MPI_COMPLEX, "MPI_COMPLEX", 8);
    set_simple(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16);
    set_simple(MPI_2REAL, "MPI_2REAL", 8);
    set_simple(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16);
    set_simple(MPI_2INTEGER, "MPI_2INTEGER", 8);
    set_simple(MPI_LOGICAL1, "MPI_LOGICAL1", 1);
    set_simple(MPI_LOGICAL2, "MPI_LOGICAL2", 2);
    set_simple(MPI_LOGICAL4, "MPI_LOGICAL4", 4);
    set_simple(MPI_LOGICAL8, "MPI_LOGICAL8", 8);
    set_simple(MPI_LOGICAL16, "MPI_LOGICAL16", 16);
    set_simple(MPI_INTEGER1, "MPI_INTEGER1", 1);
    set_simple(MPI_INTEGER2, "MPI_INTEGER2", 2);
    set_simple(MPI_INTEGER4, "MPI_INTEGER4", 4);
    set_simple(MPI_INTEGER8, "MPI_INTEGER8", 8);
    set_simple(MPI_INTEGER16, "MPI_INTEGER16", 16);
    set_simple(MPI_REAL2, "MPI_REAL2", 2);
    set_simple(MPI_REAL4, "MPI_REAL4", 4);
    set_simple(MPI_REAL8, "MPI_REAL8", 8);
    set_simple(MPI_REAL16, "MPI_REAL16", 16);
    set_simple(MPI_COMPLEX4, "MPI_COMPLEX4", 4);
    set_simple(MPI_COMPLEX8, "MPI_COMPLEX8", 8);
    set_simple(MPI_COMPLEX16, "MPI_COMPLEX16", 16);
    set_simple(MPI_COMPLEX32, "MPI_COMPLEX32", 32);
}

__attribute__((constructor)) static void fill_table(void)
{
    fill_c_types();
    fill_pair_types();
    fill_fortran_types();
}

const struct tern_dtype *tern_dtype_get(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h;
    if (v > DT_BASE && v < DT_BASE + DT_SLOTS) {
        const struct tern_dtype *dt = &table[v - DT_BASE];
        return dt->magic == TERN_MAGIC_DTYPE ? dt : NULL;
    }
    return NULL;
}

int tern_dtype_contig(const struct tern_dtype *dt, size_t count)
{
    if (count == 0)
        return 1;
    if (dt->nblocks != 1)
        return 0;
    return count == 1 || dt->size == dt->extent;
}

void tern_dtype_pack(const struct tern_dtype *dt, const void *user,
                     size_t count, void *packed)
{
    const char *src = user;
    char *dst = packed;
    for (size_t i = 0; i < count; i++, src += dt->extent)
        for (int b = 0; b < dt->nblocks; b++) {
            memcpy(dst, src + dt->block[b].offset, dt->block[b].len);
            dst += dt->block[b].len;
        }
}

void tern_dtype_unpack(const struct tern_dtype *dt, const void *packed,
                       size_t bytes, void *user)
{
    const char *src = packed;
    char *dst = user;
    /* A truncated or short message unpacks only the bytes that arrived. */
    while (bytes > 0) {
        for (int b = 0; b < dt->nblocks && bytes > 0; b++) {
            size_t n = dt->block[b].len < bytes ? dt->block[b].len : bytes;
            memcpy(dst + dt->block[b].offset, src, n);
            src += n;
            bytes -= n;
        }
        dst += dt->extent;
    }
}
