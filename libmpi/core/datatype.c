/*
 * Datatype objects: the predefined table, handle lookup, reference counts
 * and the contiguity test. The layout engine is in dtype_build.c and
 * dtype_struct.c (the constructors) and dtype_pack.c (packing and element
 * counts); the representation is described in datatype.h.
 *
 * The predefined types are a table indexed by the low byte of the standard
 * ABI handle (0x200 to 0x2ff), filled at load time from the C types the
 * compiler sees, so sizes, alignments and the layout of the pair types are
 * the ABI's. Each entry's layout is one RUN, or for a pair type with a gap
 * inside (MPI_SHORT_INT) a LIST of two RUNs, in a static node array.
 */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "libmpi/core/datatype.h"
#include "libmpi/core/object.h"
#include "tern/err.h"

#define DT_BASE 0x200
#define DT_SLOTS 0x100

static struct tern_dtype table[DT_SLOTS];
static struct tern_dtype_node table_nodes[DT_SLOTS][3];

struct pair_layout {
    size_t size, extent, off2, len1, len2, align;
};

#define PAIR(t1, t2) \
    { sizeof(t1) + sizeof(t2), sizeof(struct { t1 a; t2 b; }), \
      offsetof(struct { t1 a; t2 b; }, b), sizeof(t1), sizeof(t2), \
      _Alignof(struct { t1 a; t2 b; }) }

static struct tern_dtype *slot(MPI_Datatype h, const char *name)
{
    size_t i = (uintptr_t)h - DT_BASE;
    struct tern_dtype *dt = &table[i];
    dt->magic = TERN_MAGIC_DTYPE;
    dt->handle = h;
    dt->basic = dt;
    dt->name = name;
    dt->predefined = 1;
    dt->committed = 1;
    dt->combiner = MPI_COMBINER_NAMED;
    dt->nelem = 1;
    dt->node = table_nodes[i];
    return dt;
}

static void set_simple(MPI_Datatype h, const char *name, size_t size, size_t align)
{
    struct tern_dtype *dt = slot(h, name);
    dt->size = size;
    dt->extent = (MPI_Aint)size;
    dt->true_extent = (MPI_Aint)size;
    dt->align = align;
    dt->nnode = 1;
    dt->node[0] = (struct tern_dtype_node){ .kind = TERN_DT_RUN, .span = 1, .size = size };
}

/* A C type's size and alignment. */
#define SIMPLE(h, t) set_simple((h), #h, sizeof(t), _Alignof(t))

static void set_pair(MPI_Datatype h, const char *name, struct pair_layout p)
{
    struct tern_dtype *dt = slot(h, name);
    dt->size = p.size;
    dt->extent = (MPI_Aint)p.extent;
    dt->true_extent = (MPI_Aint)(p.off2 + p.len2);
    dt->align = p.align;
    dt->nelem = 2;
    dt->pair_first = p.len1;
    if (p.off2 == p.len1) {
        dt->nnode = 1;
        dt->node[0] = (struct tern_dtype_node){ .kind = TERN_DT_RUN, .span = 1, .size = p.size };
        return;
    }
    dt->nnode = 3;
    dt->node[0] = (struct tern_dtype_node){ .kind = TERN_DT_LIST, .span = 3, .size = p.size, .count = 2 };
    dt->node[1] = (struct tern_dtype_node){ .kind = TERN_DT_RUN, .span = 1, .size = p.len1 };
    dt->node[2] = (struct tern_dtype_node){ .kind = TERN_DT_RUN, .span = 1, .size = p.len2,
                                            .disp = (MPI_Aint)p.off2 };
}

static void fill_c_types(void)
{
    SIMPLE(MPI_CHAR, char);
    SIMPLE(MPI_SIGNED_CHAR, signed char);
    SIMPLE(MPI_UNSIGNED_CHAR, unsigned char);
    set_simple(MPI_BYTE, "MPI_BYTE", 1, 1);
    set_simple(MPI_PACKED, "MPI_PACKED", 1, 1);
    SIMPLE(MPI_WCHAR, wchar_t);
    SIMPLE(MPI_SHORT, short);
    SIMPLE(MPI_UNSIGNED_SHORT, unsigned short);
    SIMPLE(MPI_INT, int);
    SIMPLE(MPI_UNSIGNED, unsigned);
    SIMPLE(MPI_LONG, long);
    SIMPLE(MPI_UNSIGNED_LONG, unsigned long);
    /* The standard's tables name these two first and their synonyms
     * (MPI_LONG_LONG, MPI_C_FLOAT_COMPLEX, the same handles) second; the
     * default name is the first, as in MPICH and Open MPI. */
    set_simple(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", sizeof(long long), _Alignof(long long));
    SIMPLE(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    SIMPLE(MPI_FLOAT, float);
    SIMPLE(MPI_DOUBLE, double);
    SIMPLE(MPI_LONG_DOUBLE, long double);
    SIMPLE(MPI_C_BOOL, _Bool);
    SIMPLE(MPI_CXX_BOOL, _Bool);
    SIMPLE(MPI_INT8_T, int8_t);
    SIMPLE(MPI_UINT8_T, uint8_t);
    SIMPLE(MPI_INT16_T, int16_t);
    SIMPLE(MPI_UINT16_T, uint16_t);
    SIMPLE(MPI_INT32_T, int32_t);
    SIMPLE(MPI_UINT32_T, uint32_t);
    SIMPLE(MPI_INT64_T, int64_t);
    SIMPLE(MPI_UINT64_T, uint64_t);
    SIMPLE(MPI_AINT, MPI_Aint);
    SIMPLE(MPI_COUNT, MPI_Count);
    SIMPLE(MPI_OFFSET, MPI_Offset);
    set_simple(MPI_C_COMPLEX, "MPI_C_COMPLEX", sizeof(float _Complex),
               _Alignof(float _Complex));
    SIMPLE(MPI_C_DOUBLE_COMPLEX, double _Complex);
    SIMPLE(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    SIMPLE(MPI_CXX_FLOAT_COMPLEX, float _Complex);
    SIMPLE(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
    SIMPLE(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);
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
 * INTEGER, REAL and LOGICAL, as the standard ABI assumes, and the
 * alignment of their components (a COMPLEX aligns as its REAL parts). */
static void fill_fortran_types(void)
{
    set_simple(MPI_INTEGER, "MPI_INTEGER", 4, 4);
    set_simple(MPI_REAL, "MPI_REAL", 4, 4);
    set_simple(MPI_LOGICAL, "MPI_LOGICAL", 4, 4);
    set_simple(MPI_CHARACTER, "MPI_CHARACTER", 1, 1);
    set_simple(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8);
    set_simple(MPI_COMPLEX, "MPI_COMPLEX", 8, 4);
    set_simple(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 8);
    set_simple(MPI_2REAL, "MPI_2REAL", 8, 4);
    set_simple(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 8);
    set_simple(MPI_2INTEGER, "MPI_2INTEGER", 8, 4);
    set_simple(MPI_LOGICAL1, "MPI_LOGICAL1", 1, 1);
    set_simple(MPI_LOGICAL2, "MPI_LOGICAL2", 2, 2);
    set_simple(MPI_LOGICAL4, "MPI_LOGICAL4", 4, 4);
    set_simple(MPI_LOGICAL8, "MPI_LOGICAL8", 8, 8);
    set_simple(MPI_LOGICAL16, "MPI_LOGICAL16", 16, 16);
    set_simple(MPI_INTEGER1, "MPI_INTEGER1", 1, 1);
    set_simple(MPI_INTEGER2, "MPI_INTEGER2", 2, 2);
    set_simple(MPI_INTEGER4, "MPI_INTEGER4", 4, 4);
    set_simple(MPI_INTEGER8, "MPI_INTEGER8", 8, 8);
    set_simple(MPI_INTEGER16, "MPI_INTEGER16", 16, 16);
    set_simple(MPI_REAL2, "MPI_REAL2", 2, 2);
    set_simple(MPI_REAL4, "MPI_REAL4", 4, 4);
    set_simple(MPI_REAL8, "MPI_REAL8", 8, 8);
    set_simple(MPI_REAL16, "MPI_REAL16", 16, 16);
    set_simple(MPI_COMPLEX4, "MPI_COMPLEX4", 4, 2);
    set_simple(MPI_COMPLEX8, "MPI_COMPLEX8", 8, 4);
    set_simple(MPI_COMPLEX16, "MPI_COMPLEX16", 16, 8);
    set_simple(MPI_COMPLEX32, "MPI_COMPLEX32", 32, 16);
}

__attribute__((constructor)) static void fill_table(void)
{
    fill_c_types();
    fill_pair_types();
    fill_fortran_types();
}

const struct tern_dtype *tern_dtype_lookup(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h;
    if (tern_handle_is_predefined(h)) {
        if (v > DT_BASE && v < DT_BASE + DT_SLOTS) {
            const struct tern_dtype *dt = &table[v - DT_BASE];
            return dt->magic == TERN_MAGIC_DTYPE ? dt : NULL;
        }
        return NULL;
    }
    if (!tern_obj_known(h))
        return NULL;
    const struct tern_dtype *dt = (const struct tern_dtype *)h;
    if (dt->magic != TERN_MAGIC_DTYPE || dt->dead || dt->predefined)
        return NULL;
    return dt;
}

const struct tern_dtype *tern_dtype_get(MPI_Datatype h)
{
    const struct tern_dtype *dt = tern_dtype_lookup(h);
    return dt && dt->committed ? dt : NULL;
}

void tern_dtype_retain(const struct tern_dtype *dt)
{
    if (!dt->predefined)
        ((struct tern_dtype *)dt)->refs++;
}

void tern_dtype_release(const struct tern_dtype *cdt)
{
    if (cdt->predefined)
        return;
    struct tern_dtype *dt = (struct tern_dtype *)cdt;
    if (--dt->refs > 0)
        return;
    for (size_t i = 0; i < dt->nkid; i++)
        tern_dtype_release(dt->kid[i]);
    free(dt->kid);
    free(dt->kid_count);
    free(dt->node);
    free(dt->ent);
    free(dt->ints);
    free(dt->addrs);
    free(dt->larges);
    dt->magic = TERN_MAGIC_DEAD;
    tern_obj_remove(dt);
    free(dt);
}

void tern_dtype_free(struct tern_dtype *dt)
{
    dt->dead = 1;
    tern_dtype_release(dt);
}

int tern_dtype_contig(const struct tern_dtype *dt, size_t count)
{
    if (count == 0 || dt->size == 0)
        return 1;
    if (dt->nnode != 1 || dt->node[0].disp != 0)
        return 0;
    return count == 1 || (MPI_Aint)dt->size == dt->extent;
}

static void *dup_array(const void *a, size_t n, size_t elem, int *bad)
{
    if (!n)
        return NULL;
    void *p = malloc(n * elem);
    if (!p)
        *bad = 1;
    else
        memcpy(p, a, n * elem);
    return p;
}

int tern_dtype_set_args(struct tern_dtype *dt, size_t nints, const int *ints,
                        size_t naddrs, const MPI_Aint *addrs,
                        size_t nlarge, const MPI_Count *larges)
{
    int bad = 0;
    dt->ints = dup_array(ints, nints, sizeof(*ints), &bad);
    dt->addrs = dup_array(addrs, naddrs, sizeof(*addrs), &bad);
    dt->larges = dup_array(larges, nlarge, sizeof(*larges), &bad);
    dt->nints = nints;
    dt->naddrs = naddrs;
    dt->nlarge = nlarge;
    return bad ? TERN_ENOMEM : 0;
}

/* A layout is self-contained (entry indexes are into its own array), so a
 * clone copies the arrays as they are. */
int tern_dtype_clone(const struct tern_dtype *old, struct tern_dtype **out)
{
    struct tern_dtype *dt = malloc(sizeof(*dt));
    if (!dt)
        return TERN_ENOMEM;
    *dt = *old;
    if (tern_obj_add(dt)) {
        free(dt);
        return TERN_ENOMEM;
    }
    dt->handle = (MPI_Datatype)dt;
    dt->name = dt->namebuf;
    dt->namebuf[0] = '\0';
    dt->refs = 1;
    dt->dead = 0;
    /* A new handle starts without attributes. */
    dt->attrs = (struct tern_attr_list){ 0 };
    int bad = 0;
    size_t nk = old->nkid;
    dt->kid = dup_array(old->kid, nk, sizeof(*old->kid), &bad);
    dt->kid_count = dup_array(old->kid_count, nk, sizeof(*old->kid_count), &bad);
    dt->node = dup_array(old->node, old->nnode, sizeof(*old->node), &bad);
    dt->ent = dup_array(old->ent, old->nent, sizeof(*old->ent), &bad);
    dt->ints = NULL;
    dt->addrs = NULL;
    dt->larges = NULL;
    if (!bad)
        bad = tern_dtype_set_args(dt, old->nints, old->ints, old->naddrs, old->addrs,
                                  old->nlarge, old->larges) != 0;
    if (bad) {
        dt->nkid = 0;  /* No references were taken yet. */
        tern_dtype_release(dt);
        return TERN_ENOMEM;
    }
    for (size_t i = 0; i < nk; i++)
        tern_dtype_retain(dt->kid[i]);
    *out = dt;
    return 0;
}
