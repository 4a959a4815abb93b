/*
 * The distributed-array constructor (MPI_Type_create_darray), built from
 * the other constructors as the standard's reference construction is.
 *
 * The API layer (libmpi/api/type_darray_api.c) checks the arguments and
 * hands down, for each dimension in C order (the last one varies fastest),
 * the blocks of global indices this process owns: `nfull` blocks of `blen`
 * indices starting at `first`, `step` indices apart, then possibly one
 * shorter block of `tail` indices starting at `tailstart`. Every
 * distribution reduces to this: a cyclic(darg) distribution over p
 * processes has step p * darg; a block distribution is one block; no
 * distribution is one block of the whole dimension.
 *
 * Dimensions are built innermost first. Each one places copies of the
 * previous level (old type for the innermost) at its indices: the full
 * blocks as an hvector, the short one beside it in a struct, and the
 * result is resized to the whole dimension (lb 0, extent gsize times the
 * previous level's extent), so the next dimension strides over whole rows.
 * Those intermediate types are released at the end; the darray itself gets
 * the last level's layout with the old type as its only kid (one copy per
 * element it holds) and explicit bounds covering the whole global array,
 * as the standard's construction with resized types gives.
 *
 * Cost: O(ndims * nodes of the old type), never proportional to the sizes:
 * a cyclic dimension is one VEC node, a block dimension a run or a VEC.
 */
#include "libmpi/core/datatype.h"
#include "libmpi/core/dtype_build.h"
#include "tern/err.h"

/* One dimension over `cur`, whose extent is one index of this dimension;
 * the result is resized to gsize indices. */
static int one_dim(const struct tern_dtype_darray_dim *d, const struct tern_dtype *cur,
                   struct tern_dtype **out, const char **why)
{
    struct tern_dtype *blocks = NULL, *both = NULL;
    wide ext = cur->extent;
    wide step = wmul((wide)d->step, ext), first = wmul((wide)d->first, ext);
    wide tail = wmul((wide)d->tailstart, ext), whole = wmul((wide)d->gsize, ext);
    if (!fits_aint(step) || !fits_aint(first) || !fits_aint(tail) || !fits_aint(whole)) {
        *why = "the array's extent does not fit in MPI_Aint";
        return TERN_ECOUNT;
    }
    int rc = tern_dtype_hvector(d->nfull, d->blen, (MPI_Aint)step, cur, &blocks, why);
    if (!rc) {
        size_t bl[2] = { 1, d->tail };
        MPI_Aint disp[2] = { (MPI_Aint)first, (MPI_Aint)tail };
        const struct tern_dtype *types[2] = { blocks, cur };
        rc = tern_dtype_struct(d->tail ? 2 : 1, bl, disp, types, &both, why);
    }
    if (!rc)
        rc = tern_dtype_resized(both, 0, (MPI_Aint)whole, out);
    if (blocks)
        tern_dtype_release(blocks);
    if (both)
        tern_dtype_release(both);
    return rc;
}

int tern_dtype_darray(int ndims, const struct tern_dtype_darray_dim *dims,
                      const struct tern_dtype *old, struct tern_dtype **out,
                      const char **why)
{
    const struct tern_dtype *cur = old;
    struct tern_dtype *level = NULL;
    wide elems = 1;
    int rc = 0;
    for (int d = ndims - 1; d >= 0 && !rc; d--) {
        struct tern_dtype *next = NULL;
        rc = one_dim(&dims[d], cur, &next, why);
        if (level)
            tern_dtype_release(level);
        level = next;
        cur = next;
        elems = wmul(elems, (wide)(dims[d].nfull * dims[d].blen + dims[d].tail));
    }
    if (rc)
        return rc;

    /* The darray: the last level's layout and bounds, the old type as kid. */
    struct prog p = { 0 };
    struct bounds b = { 0 };
    struct tern_dtype *dt = tern_dtype_new(1);
    if (!dt) {
        tern_dtype_release(level);
        return TERN_ENOMEM;
    }
    tern_dtype_add_kid(dt, 0, old, (size_t)elems);
    dt->size = level->size;
    tern_dtype_prog_copy(&p, level, 0);
    tern_dtype_bounds_place(&b, level, 0, 0);
    b.marker = 1;
    b.mlb = 0;
    b.mub = level->extent;
    tern_dtype_release(level);
    return tern_dtype_finish(dt, &p, &b, why, out);
}
