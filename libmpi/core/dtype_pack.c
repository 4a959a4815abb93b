/*
 * Packing and unpacking by walking a type's layout tree (datatype.h), and
 * counting basic elements in a packed prefix.
 *
 * One walker serves both directions and any window of the packed stream:
 * a cursor holds the packed pointer, the packed bytes still to skip before
 * the window and the bytes still to copy. A subtree wholly before the
 * window is skipped by its size without being entered; a VEC skips whole
 * copies by division and an IDX finds its first entry by binary search on
 * the entries' packed positions, so starting a window costs O(depth) for
 * regular layouts. Copies stop as soon as the window is full.
 *
 * The inner loop that matters is a VEC over a RUN (vectors, subarrays,
 * columns of matrices): it runs as one strided loop whose copy length is a
 * compile-time constant for runs of 1, 2, 4, 8 and 16 bytes, so those are
 * single loads and stores; runs up to 256 bytes are copied inline as 8-byte
 * words (the last one overlapping), longer ones with memcpy. A run as long
 * as its stride (copies that touch) is copied as one block.
 *
 * Element counts walk the construction instead (the "kids" of a type):
 * the packed form of one element is kid_count[i] packed copies of kid[i],
 * in order, so a prefix of n bytes holds whole copies, found by division,
 * and one partial copy, counted recursively. Types made of one basic type
 * are a division only.
 */
#include <stdint.h>
#include <string.h>

#include "libmpi/core/datatype.h"

struct cursor {
    char *pk;       /* Next packed byte to read or write. */
    size_t skip;    /* Packed bytes still to pass before the window. */
    size_t left;    /* Packed bytes still to copy. */
    int unpack;
};

static void walk(const struct tern_dtype *dt, const struct tern_dtype_node *n,
                 char *base, struct cursor *c);

/* One run of len bytes at addr, clipped to the window. */
static void copy_run(struct cursor *c, char *addr, size_t len)
{
    if (c->skip >= len) {
        c->skip -= len;
        return;
    }
    addr += c->skip;
    len -= c->skip;
    c->skip = 0;
    if (len > c->left)
        len = c->left;
    if (c->unpack)
        memcpy(addr, c->pk, len);
    else
        memcpy(c->pk, addr, len);
    c->pk += len;
    c->left -= len;
}

/* The strided loop with a copy length the compiler knows. */
#define STRIDED_LOOP(L)                                                  \
    do {                                                                 \
        if (unpack)                                                      \
            for (size_t i = 0; i < n; i++, pk += (L), addr += stride)    \
                memcpy(addr, pk, (L));                                   \
        else                                                             \
            for (size_t i = 0; i < n; i++, pk += (L), addr += stride)    \
                memcpy(pk, addr, (L));                                   \
    } while (0)

/* A run of 9 to 256 bytes as 8-byte words, the last one overlapping: a
 * libc call per run costs more than the copy at these lengths. */
static inline void copy_medium(char *dst, const char *src, size_t len)
{
    uint64_t w;
    for (size_t i = 0; i + 8 < len; i += 8) {
        memcpy(&w, src + i, 8);
        memcpy(dst + i, &w, 8);
    }
    memcpy(&w, src + len - 8, 8);
    memcpy(dst + len - 8, &w, 8);
}

/* n whole runs of len bytes, stride apart, all inside the window. */
static void strided(struct cursor *c, char *addr, size_t n, MPI_Aint stride, size_t len)
{
    char *pk = c->pk;
    int unpack = c->unpack;
    switch (len) {
    case 1: STRIDED_LOOP(1); break;
    case 2: STRIDED_LOOP(2); break;
    case 4: STRIDED_LOOP(4); break;
    case 8: STRIDED_LOOP(8); break;
    case 16: STRIDED_LOOP(16); break;
    default:
        if (len > 8 && len <= 256) {
            if (unpack)
                for (size_t i = 0; i < n; i++, pk += len, addr += stride)
                    copy_medium(addr, pk, len);
            else
                for (size_t i = 0; i < n; i++, pk += len, addr += stride)
                    copy_medium(pk, addr, len);
        } else {
            STRIDED_LOOP(len);
        }
        break;
    }
    c->pk += n * len;
    c->left -= n * len;
}

/* `count` copies of the subtree `child`, stride bytes apart from addr. */
static void reps(const struct tern_dtype *dt, const struct tern_dtype_node *child,
                 char *addr, size_t count, MPI_Aint stride, struct cursor *c)
{
    size_t k = 0;
    if (c->skip) {
        k = c->skip / child->size;
        if (k >= count) {
            c->skip -= count * child->size;
            return;
        }
        c->skip -= k * child->size;
    }
    if (child->kind != TERN_DT_RUN) {
        for (; k < count && c->left; k++)
            walk(dt, child, addr + (MPI_Aint)k * stride, c);
        return;
    }
    size_t len = child->size;
    char *a = addr + child->disp + (MPI_Aint)k * stride;
    if ((MPI_Aint)len == stride) {
        copy_run(c, a, (count - k) * len);
        return;
    }
    if (c->skip) {
        copy_run(c, a, len);
        a += stride;
        k++;
    }
    size_t n = c->left / len;
    if (n > count - k)
        n = count - k;
    strided(c, a, n, stride, len);
    k += n;
    a += (MPI_Aint)n * stride;
    if (k < count && c->left)
        copy_run(c, a, len);
}

static void walk_idx(const struct tern_dtype *dt, const struct tern_dtype_node *n,
                     char *addr, struct cursor *c)
{
    const struct tern_dtype_ent *e = dt->ent + n->ent;
    size_t i = 0;
    if (c->skip) {
        size_t lo = 0, hi = n->count;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (e[mid].pos <= c->skip)
                lo = mid;
            else
                hi = mid;
        }
        i = lo;
        c->skip -= e[i].pos;
    }
    for (; i < n->count && c->left; i++)
        reps(dt, n + 1, addr + e[i].disp, e[i].count, n->stride, c);
}

static void walk(const struct tern_dtype *dt, const struct tern_dtype_node *n,
                 char *base, struct cursor *c)
{
    if (c->skip >= n->size) {
        c->skip -= n->size;
        return;
    }
    char *addr = base + n->disp;
    switch (n->kind) {
    case TERN_DT_RUN:
        copy_run(c, addr, n->size);
        break;
    case TERN_DT_VEC:
        reps(dt, n + 1, addr, n->count, n->stride, c);
        break;
    case TERN_DT_IDX:
        walk_idx(dt, n, addr, c);
        break;
    case TERN_DT_LIST: {
        const struct tern_dtype_node *ch = n + 1;
        for (size_t i = 0; i < n->count && c->left; i++, ch += ch->span)
            walk(dt, ch, addr, c);
        break;
    }
    default:
        break;
    }
}

static void run_window(const struct tern_dtype *dt, char *user, size_t count,
                       size_t offset, size_t len, char *packed, int unpack)
{
    if (!len || !dt->size)
        return;
    struct cursor c = { packed, offset, len, unpack };
    reps(dt, dt->node, user, count, dt->extent, &c);
}

void tern_dtype_pack_range(const struct tern_dtype *dt, const void *user,
                           size_t count, size_t offset, size_t len, void *out)
{
    run_window(dt, (char *)user, count, offset, len, out, 0);
}

void tern_dtype_unpack_range(const struct tern_dtype *dt, const void *in,
                             size_t count, size_t offset, size_t len, void *user)
{
    run_window(dt, user, count, offset, len, (char *)in, 1);
}

void tern_dtype_pack(const struct tern_dtype *dt, const void *user,
                     size_t count, void *packed)
{
    run_window(dt, (char *)user, count, 0, count * dt->size, packed, 0);
}

void tern_dtype_unpack(const struct tern_dtype *dt, const void *packed,
                       size_t bytes, void *user)
{
    if (!dt->size)
        return;
    size_t count = bytes / dt->size + (bytes % dt->size != 0);
    run_window(dt, user, count, 0, bytes, (char *)packed, 1);
}

/* Basic elements in `bytes` packed bytes of copies of dt; *partial is set
 * when the bytes end inside a basic element. */
static size_t elems(const struct tern_dtype *dt, size_t bytes, int *partial)
{
    const struct tern_dtype *b = dt->basic;
    if (b) {
        /* A pair's first member alone is one element. */
        size_t rem = bytes % b->size;
        if (rem && rem != b->pair_first)
            *partial = 1;
        return bytes / b->size * b->nelem + (rem && rem == b->pair_first);
    }
    size_t n = bytes / dt->size * dt->nelem, rem = bytes % dt->size;
    for (size_t i = 0; i < dt->nkid && rem; i++) {
        const struct tern_dtype *k = dt->kid[i];
        size_t kb = dt->kid_count[i] * k->size;
        if (rem < kb)
            return n + elems(k, rem, partial);
        n += dt->kid_count[i] * k->nelem;
        rem -= kb;
    }
    return n;
}

MPI_Count tern_dtype_elements(const struct tern_dtype *dt, size_t bytes)
{
    if (dt->size == 0)
        return bytes == 0 ? 0 : MPI_UNDEFINED;
    int partial = 0;
    size_t n = elems(dt, bytes, &partial);
    return partial ? MPI_UNDEFINED : (MPI_Count)n;
}

/* a * b, or SIZE_MAX when it overflows. */
static size_t mul_sat(size_t a, size_t b)
{
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

size_t tern_dtype_elements_bytes(const struct tern_dtype *dt, size_t nelem)
{
    const struct tern_dtype *basic = dt->basic;
    if (basic) {
        size_t whole = mul_sat(nelem / basic->nelem, basic->size);
        return nelem % basic->nelem && whole != SIZE_MAX ? whole + basic->pair_first : whole;
    }
    if (dt->nelem == 0)
        return 0;
    size_t b = mul_sat(nelem / dt->nelem, dt->size), rem = nelem % dt->nelem;
    for (size_t i = 0; i < dt->nkid && rem; i++) {
        const struct tern_dtype *k = dt->kid[i];
        size_t ke = dt->kid_count[i] * k->nelem;
        if (rem < ke)
            return b + tern_dtype_elements_bytes(k, rem);
        b += dt->kid_count[i] * k->size;
        rem -= ke;
    }
    return b;
}
