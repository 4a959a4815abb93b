/*
 * Datatype constructors of struct, subarray, resized and dup, on the
 * machinery of dtype_build.c (dtype_build.h): each copies its old types'
 * trees into a program and lets the bounds accumulator see every
 * placement, as the vector and indexed constructors do. Their API entries
 * are in libmpi/api/type_struct_api.c.
 *
 * A struct is a LIST node over one child per field, neighbouring fields
 * that are touching runs merged into one; with one child or none the
 * LIST node goes. A subarray is its old type repeated once per dimension,
 * innermost first, and its bounds are those of the whole array, as the
 * standard defines it. Resized keeps the old layout and sets explicit
 * bounds; dup keeps the layout and the bounds as they were.
 *
 * Cost: O(nodes of the old types) per constructor, never proportional to
 * counts; struct also O(count) for its fields.
 */
#include "libmpi/core/datatype.h"
#include "libmpi/core/dtype_build.h"
#include "tern/err.h"

/* Appends one struct field as a LIST child, merging it into the previous
 * child when both are runs that touch. */
static void add_field(struct prog *p, size_t bl, MPI_Aint disp, const struct tern_dtype *t,
                      size_t *children, size_t *last)
{
    size_t r = p->nn;
    tern_dtype_prog_copy(p, t, disp);
    tern_dtype_prog_repeat(p, r, bl, t->extent);
    if (p->nomem)
        return;
    struct tern_dtype_node *n = &p->node[r];
    if (*children && p->node[*last].kind == TERN_DT_RUN && n->kind == TERN_DT_RUN &&
        (wide)p->node[*last].disp + (wide)p->node[*last].size == n->disp) {
        p->node[*last].size += n->size;
        p->nn--;
        return;
    }
    *last = r;
    (*children)++;
}

int tern_dtype_struct(size_t count, const size_t *blocklens,
                      const MPI_Aint *displs,
                      const struct tern_dtype *const *types,
                      struct tern_dtype **out, const char **why)
{
    struct prog p = { 0 };
    struct bounds b = { 0 };
    size_t size = 0;
    for (size_t i = 0; i < count; i++) {
        size_t s;
        int rc = tern_dtype_size_product(blocklens[i], 1, types[i]->size, &s, why);
        if (rc || __builtin_add_overflow(size, s, &size) || size > (size_t)PTRDIFF_MAX) {
            *why = "its size in bytes does not fit in MPI_Count";
            return TERN_ECOUNT;
        }
    }
    struct tern_dtype *dt = tern_dtype_new(count);
    if (!dt)
        return TERN_ENOMEM;
    dt->size = size;
    struct tern_dtype_node head = { .kind = TERN_DT_LIST, .size = size };
    tern_dtype_prog_push(&p, head);
    size_t children = 0, last = 0;
    for (size_t i = 0; i < count; i++) {
        tern_dtype_add_kid(dt, i, types[i], blocklens[i]);
        if (!blocklens[i])
            continue;
        if (types[i]->size)
            add_field(&p, blocklens[i], displs[i], types[i], &children, &last);
        wide lo, hi;
        tern_dtype_bounds_span(blocklens[i], types[i]->extent, &lo, &hi);
        tern_dtype_bounds_place(&b, types[i], lo + displs[i], hi + displs[i]);
    }
    if (!p.nomem) {
        p.node[0].count = children;
        p.node[0].span = (uint32_t)p.nn;
        if (children <= 1)
            tern_dtype_prog_remove_head(&p, 0);
    }
    return tern_dtype_finish(dt, &p, &b, why, out);
}

int tern_dtype_subarray(int ndims, const size_t *sizes, const size_t *subsizes,
                        const size_t *starts, const struct tern_dtype *old,
                        struct tern_dtype **out, const char **why)
{
    struct prog p = { 0 };
    struct bounds b = { 0 };
    wide stride = old->extent, lo = 0, hi = 0, elems = 1, disp = 0;
    size_t size = old->size;
    for (int d = ndims - 1; d >= 0; d--) {
        if (tern_dtype_size_product(size, subsizes[d], 1, &size, why))
            return TERN_ECOUNT;
        wide l, h;
        tern_dtype_bounds_span(subsizes[d], stride, &l, &h);
        disp = sat(disp + wmul((wide)starts[d], stride));
        lo = sat(lo + l);
        hi = sat(hi + h);
        elems = wmul(elems, (wide)subsizes[d]);
        stride = wmul(stride, (wide)sizes[d]);
    }
    if (!fits_aint(stride) || !fits_aint(disp)) {
        *why = "the array's extent does not fit in MPI_Aint";
        return TERN_ECOUNT;
    }
    struct tern_dtype *dt = tern_dtype_new(1);
    if (!dt)
        return TERN_ENOMEM;
    tern_dtype_add_kid(dt, 0, old, (size_t)elems);
    dt->size = size;
    if (size) {
        wide dstride = old->extent;
        tern_dtype_prog_copy(&p, old, 0);
        for (int d = ndims - 1; d >= 0; d--) {
            tern_dtype_prog_repeat(&p, 0, subsizes[d], (MPI_Aint)dstride);
            dstride *= (wide)sizes[d];
        }
        if (!p.nomem)
            p.node[0].disp += (MPI_Aint)disp;
    }
    tern_dtype_bounds_place(&b, old, sat(lo + disp), sat(hi + disp));
    /* The standard defines the subarray as resized to the whole array. */
    b.marker = 1;
    b.mlb = 0;
    b.mub = stride;
    return tern_dtype_finish(dt, &p, &b, why, out);
}

int tern_dtype_resized(const struct tern_dtype *old, MPI_Aint lb,
                       MPI_Aint extent, struct tern_dtype **out)
{
    struct prog p = { 0 };
    struct bounds b = { 0 };
    const char *why;
    struct tern_dtype *dt = tern_dtype_new(1);
    if (!dt)
        return TERN_ENOMEM;
    tern_dtype_add_kid(dt, 0, old, 1);
    dt->size = old->size;
    tern_dtype_prog_copy(&p, old, 0);
    tern_dtype_bounds_place(&b, old, 0, 0);
    b.marker = 1;
    b.mlb = lb;
    b.mub = (wide)lb + extent;
    return tern_dtype_finish(dt, &p, &b, &why, out);
}

int tern_dtype_dup(const struct tern_dtype *old, struct tern_dtype **out)
{
    struct prog p = { 0 };
    struct bounds b = { 0 };
    const char *why;
    struct tern_dtype *dt = tern_dtype_new(1);
    if (!dt)
        return TERN_ENOMEM;
    tern_dtype_add_kid(dt, 0, old, 1);
    dt->size = old->size;
    tern_dtype_prog_copy(&p, old, 0);
    tern_dtype_bounds_place(&b, old, 0, 0);
    if (!old->explicit_bounds) {
        /* Same bounds as the old type, without padding them again. */
        b.marker = 1;
        b.mlb = old->lb;
        b.mub = (wide)old->lb + old->extent;
    }
    int rc = tern_dtype_finish(dt, &p, &b, &why, out);
    if (!rc)
        dt->explicit_bounds = old->explicit_bounds;
    return rc;
}
