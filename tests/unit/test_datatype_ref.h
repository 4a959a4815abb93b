/*
 * The reference typemap model the datatype unit tests check the engine
 * against (test_datatype.c, test_datatype_struct.c), and the checks built
 * on it.
 *
 * The reference is the standard's definition written out as plain loops:
 * a list of (offset, length) basic entries per element, in typemap order.
 * From it the test derives, for `count` elements, the user-buffer offset of
 * every packed byte, and packs, unpacks and unpacks windows byte by byte.
 * The engine's tree, merging and strided loops share nothing with it.
 *
 * A reference is a value owned by the test that built it and freed with
 * ref_free(). check_type() packs and unpacks a committed type through the
 * engine and asserts with CUnit that every byte lands where the reference
 * says and that no other byte is touched. Every function is static inline
 * so a test that does not use one gets no warning under -Wall -Werror.
 */
#ifndef TEST_DATATYPE_REF_H
#define TEST_DATATYPE_REF_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <mpi.h>

#include "libmpi/core/datatype.h"

/* ---- Reference typemaps ------------------------------------------------ */

struct ref {
    size_t n, cap;
    long *off;
    size_t *len;
};

static inline void ref_add(struct ref *r, long off, size_t len)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->off = realloc(r->off, r->cap * sizeof(*r->off));
        r->len = realloc(r->len, r->cap * sizeof(*r->len));
    }
    r->off[r->n] = off;
    r->len[r->n++] = len;
}

static inline void ref_free(struct ref *r)
{
    free(r->off);
    free(r->len);
    memset(r, 0, sizeof(*r));
}

/* One copy of old at displacement d appended to r. */
static inline void ref_place(struct ref *r, const struct ref *old, long d)
{
    for (size_t i = 0; i < old->n; i++)
        ref_add(r, old->off[i] + d, old->len[i]);
}

static inline struct ref ref_basic(size_t size)
{
    struct ref r = { 0 };
    ref_add(&r, 0, size);
    return r;
}

static inline struct ref ref_hvector(int count, int bl, long stride, const struct ref *old,
                                     long ext)
{
    struct ref r = { 0 };
    for (int i = 0; i < count; i++)
        for (int j = 0; j < bl; j++)
            ref_place(&r, old, i * stride + j * ext);
    return r;
}

static inline struct ref ref_hindexed(int n, const int *bl, const long *disp, const struct ref *old,
                                      long ext)
{
    struct ref r = { 0 };
    for (int i = 0; i < n; i++)
        for (int j = 0; j < bl[i]; j++)
            ref_place(&r, old, disp[i] + j * ext);
    return r;
}

static inline size_t ref_size(const struct ref *r)
{
    size_t s = 0;
    for (size_t i = 0; i < r->n; i++)
        s += r->len[i];
    return s;
}

/* The user offset of every packed byte of count elements. */
static inline long *ref_map(const struct ref *r, long ext, size_t count, size_t *total)
{
    size_t per = ref_size(r), k = 0;
    *total = per * count;
    long *map = malloc((*total ? *total : 1) * sizeof(*map));
    for (size_t e = 0; e < count; e++)
        for (size_t i = 0; i < r->n; i++)
            for (size_t b = 0; b < r->len[i]; b++)
                map[k++] = (long)e * ext + r->off[i] + (long)b;
    return map;
}

/* ---- Checking a type against its reference ----------------------------- */

#define PAD 4096

/* The user buffer spans every offset the map touches, with PAD around. */
static inline void span(const long *map, size_t total, long *lo, long *hi)
{
    *lo = 0;
    *hi = 0;
    for (size_t i = 0; i < total; i++) {
        if (map[i] < *lo)
            *lo = map[i];
        if (map[i] + 1 > *hi)
            *hi = map[i] + 1;
    }
}

static inline void check_windows(const struct tern_dtype *dt, size_t count, const long *map,
                                 size_t total, const unsigned char *user, unsigned char *packed,
                                 unsigned char *buf, size_t blen, unsigned char *ubase)
{
    size_t cuts[][2] = { { 0, 1 }, { 1, 7 }, { 3, total / 3 }, { total / 2, total - total / 2 },
                         { total / 5, total / 4 }, { total - 1, 1 }, { 0, total } };
    unsigned char *win = malloc(total + 1);
    for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
        size_t off = cuts[c][0], len = cuts[c][1];
        if (off >= total || off + len > total || len == 0)
            continue;
        memset(win, 0xEE, total + 1);
        tern_dtype_pack_range(dt, user, count, off, len, win);
        CU_ASSERT(memcmp(win, packed + off, len) == 0);
        CU_ASSERT_EQUAL(win[len], 0xEE);
        /* Unpacking the window writes exactly its bytes. */
        memset(buf, 0x5A, blen);
        tern_dtype_unpack_range(dt, packed + off, count, off, len, ubase);
        int good = 1;
        for (size_t i = 0; i < total; i++) {
            unsigned char want = (i >= off && i < off + len) ? packed[i] : 0x5A;
            if (ubase[map[i]] != want)
                good = 0;
        }
        CU_ASSERT(good);
    }
    free(win);
}

/* Packs and unpacks count elements of dt and compares with the reference. */
static inline void check_type(const struct tern_dtype *dt, const struct ref *r, size_t count)
{
    size_t total;
    long *map = ref_map(r, dt->extent, count, &total), lo, hi;
    CU_ASSERT_EQUAL_FATAL(dt->size * count, total);
    span(map, total, &lo, &hi);
    size_t blen = (size_t)(hi - lo) + 2 * PAD;
    unsigned char *buf = malloc(blen), *src = malloc(blen);
    unsigned char *ubase = buf + PAD - lo, *user = src + PAD - lo;
    unsigned char *packed = malloc(total + 1), *want = malloc(total + 1);
    for (size_t i = 0; i < blen; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    for (size_t i = 0; i < total; i++)
        want[i] = user[map[i]];
    memset(packed, 0xEE, total + 1);
    tern_dtype_pack(dt, user, count, packed);
    CU_ASSERT(memcmp(packed, want, total) == 0);
    CU_ASSERT_EQUAL(packed[total], 0xEE);

    /* Unpack: the typemap's bytes get the data, every other byte stays. */
    memset(buf, 0x5A, blen);
    tern_dtype_unpack(dt, packed, total, ubase);
    unsigned char *expect = malloc(blen);
    memset(expect, 0x5A, blen);
    for (size_t i = 0; i < total; i++)
        expect[PAD - lo + map[i]] = packed[i];
    CU_ASSERT(memcmp(buf, expect, blen) == 0);

    /* A short message: only the first part arrives. */
    size_t part = total * 2 / 3 + (total > 2);
    if (part < total) {
        memset(buf, 0x5A, blen);
        tern_dtype_unpack(dt, packed, part, ubase);
        int good = 1;
        for (size_t i = 0; i < total; i++)
            if (ubase[map[i]] != (i < part ? packed[i] : 0x5A))
                good = 0;
        CU_ASSERT(good);
    }
    check_windows(dt, count, map, total, user, packed, buf, blen, ubase);
    free(expect);
    free(map);
    free(buf);
    free(src);
    free(packed);
    free(want);
}

/* ---- Types made by the engine ---------------------------------------- */

/* The object behind a predefined handle. */
static inline const struct tern_dtype *T(MPI_Datatype h)
{
    return tern_dtype_get(h);
}

static inline void check_bounds(const struct tern_dtype *dt, long lb, long extent, long tlb,
                                long text)
{
    CU_ASSERT_EQUAL(dt->lb, lb);
    CU_ASSERT_EQUAL(dt->extent, extent);
    CU_ASSERT_EQUAL(dt->true_lb, tlb);
    CU_ASSERT_EQUAL(dt->true_extent, text);
}

/* An hvector made by the engine and marked committed; contiguous and
 * vector types are built this way too. A failure ends the test. */
static inline struct tern_dtype *hvec(size_t count, size_t bl, MPI_Aint stride,
                                      const struct tern_dtype *old)
{
    struct tern_dtype *dt = NULL;
    const char *why;
    CU_ASSERT_EQUAL_FATAL(tern_dtype_hvector(count, bl, stride, old, &dt, &why), 0);
    dt->committed = 1;
    return dt;
}

#endif
