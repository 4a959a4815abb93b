/*
 * Private to the datatype constructors: the program under construction,
 * the bounds accumulator and the type object they fill in, shared by
 * dtype_build.c (this machinery, hvector and hindexed) and dtype_struct.c
 * (struct, subarray, resized and dup).
 *
 * A constructor starts with an empty `struct prog` and an empty `struct
 * bounds` on its stack and a new type from tern_dtype_new(), which holds
 * one reference. It copies the old types' node trees into the program and
 * wraps them in repetitions, shows the bounds accumulator every placement
 * of an old type, and ends with tern_dtype_finish(), which hands the
 * program's arrays to the type and sets its bounds, or frees the arrays and
 * the type. The program functions record a failed allocation in `nomem`
 * instead of returning it, so a constructor calls them in a row and
 * tern_dtype_finish() reports TERN_ENOMEM once.
 *
 * Bound arithmetic is done in 128 bits (`wide`), saturated at
 * +-TERN_DTYPE_WIDE_SAT, far beyond MPI_Aint, so sums of a few values never
 * overflow and a result that does not fit is reported instead of wrapping.
 *
 * Nothing else includes this header, so its types and static inline
 * helpers keep the short names they had inside one file; the functions the
 * two files share are tern_dtype_*.
 */
#ifndef TERN_CORE_DTYPE_BUILD_H
#define TERN_CORE_DTYPE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "libmpi/core/datatype.h"

typedef __int128 wide;

#define TERN_DTYPE_WIDE_SAT ((wide)1 << 100)

static inline wide sat(wide v)
{
    return v > TERN_DTYPE_WIDE_SAT ? TERN_DTYPE_WIDE_SAT
         : v < -TERN_DTYPE_WIDE_SAT ? -TERN_DTYPE_WIDE_SAT : v;
}

/* a * b, saturated at +-TERN_DTYPE_WIDE_SAT (so sums of a few never
 * overflow). */
static inline wide wmul(wide a, wide b)
{
    a = sat(a);
    b = sat(b);
    if (a == 0 || b == 0)
        return 0;
    wide ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
    if (ma > TERN_DTYPE_WIDE_SAT / mb)
        return (a < 0) != (b < 0) ? -TERN_DTYPE_WIDE_SAT : TERN_DTYPE_WIDE_SAT;
    return a * b;
}

static inline int fits_aint(wide v)
{
    return v >= (wide)PTRDIFF_MIN && v <= (wide)PTRDIFF_MAX;
}

/* ---- The program under construction ---------------------------------- */

struct prog {
    struct tern_dtype_node *node;
    size_t nn, capn;
    struct tern_dtype_ent *ent;
    size_t ne, cape;
    int nomem;
};

/* Appends one node. */
void tern_dtype_prog_push(struct prog *p, struct tern_dtype_node n);

/* Appends a copy of dt's tree with its root moved by disp. */
void tern_dtype_prog_copy(struct prog *p, const struct tern_dtype *dt, MPI_Aint disp);

/* Removes the node at r, the head of the last subtree. */
void tern_dtype_prog_remove_head(struct prog *p, size_t r);

/* Makes the last subtree (starting at r) `count` copies, `stride` apart:
 * a run touching its next copy grows, a vector whose copies continue at
 * the new stride grows, anything else gets a VEC node on top. */
void tern_dtype_prog_repeat(struct prog *p, size_t r, size_t count, MPI_Aint stride);

/* ---- Bounds ----------------------------------------------------------- */

struct bounds {
    int marker, data;
    wide mlb, mub;       /* Explicit (marker) bounds seen. */
    wide tlb, tub;       /* Data bytes seen. */
    size_t align;
};

/* Copies of t were placed at displacements from pmin to pmax. */
void tern_dtype_bounds_place(struct bounds *b, const struct tern_dtype *t, wide pmin,
                             wide pmax);

/* Copies k*stride for k in [0, n) span displacements [min, max]. */
void tern_dtype_bounds_span(size_t n, wide stride, wide *lo, wide *hi);

/* ---- Type objects ----------------------------------------------------- */

/* A new derived type with one reference and room for nkid kids, or NULL
 * when out of memory. */
struct tern_dtype *tern_dtype_new(size_t nkid);

/* Makes kid i of dt n copies of `kid`, taking a reference on it. */
void tern_dtype_add_kid(struct tern_dtype *dt, size_t i, const struct tern_dtype *kid,
                        size_t n);

/* Takes over the program, or on failure frees it and the type. */
int tern_dtype_finish(struct tern_dtype *dt, struct prog *p, const struct bounds *b,
                      const char **why, struct tern_dtype **out);

/* total = a * b * c, failing when it exceeds what MPI_Count holds. */
int tern_dtype_size_product(size_t a, size_t b, size_t c, size_t *total, const char **why);

#endif
