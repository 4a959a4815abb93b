/*
 * Datatype constructors: how each MPI_Type_create_* becomes the compact
 * layout described in datatype.h, and the type's bounds. This file holds
 * the machinery every constructor shares (dtype_build.h) and the vector
 * and indexed constructors; dtype_struct.c holds struct, subarray, resized
 * and dup.
 *
 * Every constructor works the same way: copy the old type's node tree into
 * a growing program, wrap it in the repetitions the constructor asks for
 * (tern_dtype_prog_repeat(), which merges instead of nesting whenever the
 * copies touch), and let a bounds accumulator see every placement of an
 * old type to work out lb, extent, true lb and true extent by the
 * standard's typemap rules. Bound arithmetic is done in 128 bits,
 * saturated far beyond MPI_Aint, so any result that does not fit is
 * reported instead of wrapping.
 *
 * Cost: O(nodes of the old types + entries) per constructor, never
 * proportional to counts; hindexed/struct also O(count) for their lists.
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/core/datatype.h"
#include "libmpi/core/dtype_build.h"
#include "libmpi/core/object.h"
#include "tern/err.h"

static wide wmin(wide a, wide b) { return a < b ? a : b; }
static wide wmax(wide a, wide b) { return a > b ? a : b; }

/* ---- The program under construction ---------------------------------- */

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

void tern_dtype_prog_push(struct prog *p, struct tern_dtype_node n)
{
    if (p->nomem || grow((void **)&p->node, &p->capn, p->nn + 1, sizeof(n))) {
        p->nomem = 1;
        return;
    }
    p->node[p->nn++] = n;
}

/* Appends a copy of dt's tree with its root moved by disp. */
void tern_dtype_prog_copy(struct prog *p, const struct tern_dtype *dt, MPI_Aint disp)
{
    if (p->nomem || dt->nnode == 0)
        return;
    if (grow((void **)&p->node, &p->capn, p->nn + dt->nnode, sizeof(*p->node)) ||
        grow((void **)&p->ent, &p->cape, p->ne + dt->nent, sizeof(*p->ent))) {
        p->nomem = 1;
        return;
    }
    size_t r = p->nn;
    memcpy(p->node + r, dt->node, dt->nnode * sizeof(*p->node));
    if (dt->nent)
        memcpy(p->ent + p->ne, dt->ent, dt->nent * sizeof(*p->ent));
    for (size_t i = r; i < r + dt->nnode; i++)
        if (p->node[i].kind == TERN_DT_IDX)
            p->node[i].ent += p->ne;
    p->node[r].disp += disp;
    p->nn += dt->nnode;
    p->ne += dt->nent;
}

/* Puts a new node in front of the last subtree (which starts at r). */
static void insert_head(struct prog *p, size_t r, struct tern_dtype_node head)
{
    if (p->nomem || grow((void **)&p->node, &p->capn, p->nn + 1, sizeof(head))) {
        p->nomem = 1;
        return;
    }
    memmove(p->node + r + 1, p->node + r, (p->nn - r) * sizeof(head));
    p->nn++;
    head.span = (uint32_t)(p->nn - r);
    p->node[r] = head;
}

void tern_dtype_prog_remove_head(struct prog *p, size_t r)
{
    memmove(p->node + r, p->node + r + 1, (p->nn - r - 1) * sizeof(*p->node));
    p->nn--;
}

/* Makes the last subtree (starting at r) `count` copies, `stride` apart:
 * a run touching its next copy grows, a vector whose copies continue at
 * the new stride grows, anything else gets a VEC node on top. */
void tern_dtype_prog_repeat(struct prog *p, size_t r, size_t count, MPI_Aint stride)
{
    if (p->nomem || count == 1 || r >= p->nn)
        return;
    struct tern_dtype_node *n = &p->node[r];
    if (n->kind == TERN_DT_RUN && (wide)n->size == stride) {
        n->size *= count;
        return;
    }
    if (n->kind == TERN_DT_VEC && (wide)n->stride * (wide)n->count == stride) {
        n->count *= count;
        n->size *= count;
        return;
    }
    struct tern_dtype_node head = {
        .kind = TERN_DT_VEC, .disp = n->disp, .size = n->size * count,
        .count = count, .stride = stride,
    };
    n->disp = 0;
    insert_head(p, r, head);
}

/* ---- Bounds ----------------------------------------------------------- */

/* Copies of t were placed at displacements from pmin to pmax. */
void tern_dtype_bounds_place(struct bounds *b, const struct tern_dtype *t, wide pmin,
                             wide pmax)
{
    if (t->explicit_bounds) {
        wide lo = pmin + t->lb, hi = pmax + t->lb + t->extent;
        b->mlb = b->marker ? wmin(b->mlb, lo) : lo;
        b->mub = b->marker ? wmax(b->mub, hi) : hi;
        b->marker = 1;
    }
    if (t->size > 0) {
        wide lo = pmin + t->true_lb, hi = pmax + t->true_lb + t->true_extent;
        b->tlb = b->data ? wmin(b->tlb, lo) : lo;
        b->tub = b->data ? wmax(b->tub, hi) : hi;
        b->data = 1;
    }
    if (t->align > b->align)
        b->align = t->align;
}

/* Copies k*stride for k in [0, n) span displacements [min, max]. */
void tern_dtype_bounds_span(size_t n, wide stride, wide *lo, wide *hi)
{
    wide last = wmul((wide)(n ? n - 1 : 0), stride);
    *lo = wmin(0, last);
    *hi = wmax(0, last);
}

static int set_bounds(struct tern_dtype *dt, const struct bounds *b, const char **why)
{
    wide lb = 0, ub = 0, tlb = 0, tub = 0;
    if (b->data) {
        tlb = b->tlb;
        tub = b->tub;
    }
    if (b->marker) {
        lb = b->mlb;
        ub = b->mub;
    } else if (b->data) {
        lb = tlb;
        ub = tub;
        wide ext = ub - lb;
        if (b->align > 1 && ext % (wide)b->align)
            ub += (wide)b->align - ext % (wide)b->align;
    }
    if (!fits_aint(lb) || !fits_aint(ub) || !fits_aint(ub - lb) || !fits_aint(tlb) ||
        !fits_aint(tub - tlb)) {
        *why = "its bounds do not fit in MPI_Aint";
        return TERN_ECOUNT;
    }
    dt->lb = (MPI_Aint)lb;
    dt->extent = (MPI_Aint)(ub - lb);
    dt->true_lb = (MPI_Aint)tlb;
    dt->true_extent = (MPI_Aint)(tub - tlb);
    dt->explicit_bounds = (uint8_t)b->marker;
    dt->align = b->align ? b->align : 1;
    return 0;
}

/* ---- Type objects ----------------------------------------------------- */

struct tern_dtype *tern_dtype_new(size_t nkid)
{
    struct tern_dtype *dt = calloc(1, sizeof(*dt));
    if (!dt || tern_obj_add(dt)) {
        free(dt);
        return NULL;
    }
    dt->kid = calloc(nkid ? nkid : 1, sizeof(*dt->kid));
    dt->kid_count = calloc(nkid ? nkid : 1, sizeof(*dt->kid_count));
    if (!dt->kid || !dt->kid_count) {
        free(dt->kid);
        free(dt->kid_count);
        tern_obj_remove(dt);
        free(dt);
        return NULL;
    }
    dt->magic = TERN_MAGIC_DTYPE;
    dt->handle = (MPI_Datatype)dt;
    dt->name = dt->namebuf;
    dt->refs = 1;
    dt->nkid = nkid;
    return dt;
}

void tern_dtype_add_kid(struct tern_dtype *dt, size_t i, const struct tern_dtype *kid,
                        size_t n)
{
    tern_dtype_retain(kid);
    dt->kid[i] = (struct tern_dtype *)kid;
    dt->kid_count[i] = n;
}

/* Sets basic and nelem from the kids. */
static void set_kind_of_data(struct tern_dtype *dt)
{
    const struct tern_dtype *basic = NULL;
    int mixed = 0;
    dt->nelem = 0;
    for (size_t i = 0; i < dt->nkid; i++) {
        const struct tern_dtype *k = dt->kid[i];
        dt->nelem += dt->kid_count[i] * k->nelem;
        if (dt->kid_count[i] == 0 || k->size == 0)
            continue;
        if (!k->basic || (basic && basic != k->basic))
            mixed = 1;
        basic = k->basic;
    }
    if (!basic && dt->nkid)
        basic = dt->kid[0]->basic;
    dt->basic = mixed ? NULL : basic;
}

/* Takes over the program, or on failure frees it and the type. */
int tern_dtype_finish(struct tern_dtype *dt, struct prog *p, const struct bounds *b,
                      const char **why, struct tern_dtype **out)
{
    int rc = p->nomem ? TERN_ENOMEM : set_bounds(dt, b, why);
    if (rc) {
        free(p->node);
        free(p->ent);
        tern_dtype_release(dt);
        return rc;
    }
    if (dt->size == 0) {
        p->nn = 0;
        p->ne = 0;
    }
    dt->node = p->node;
    dt->nnode = (uint32_t)p->nn;
    dt->ent = p->ent;
    dt->nent = p->ne;
    set_kind_of_data(dt);
    *out = dt;
    return 0;
}

/* total = a * b * c, failing when it exceeds what MPI_Count holds. */
int tern_dtype_size_product(size_t a, size_t b, size_t c, size_t *total, const char **why)
{
    wide t = wmul(wmul((wide)a, (wide)b), (wide)c);
    if (t > (wide)PTRDIFF_MAX) {
        *why = "its size in bytes does not fit in MPI_Count";
        return TERN_ECOUNT;
    }
    *total = (size_t)t;
    return 0;
}

int tern_dtype_hvector(size_t count, size_t blocklen, MPI_Aint stride,
                       const struct tern_dtype *old, struct tern_dtype **out,
                       const char **why)
{
    struct prog p = { 0 };
    struct bounds b = { 0 };
    size_t size;
    int rc = tern_dtype_size_product(count, blocklen, old->size, &size, why);
    if (rc)
        return rc;
    struct tern_dtype *dt = tern_dtype_new(1);
    if (!dt)
        return TERN_ENOMEM;
    tern_dtype_add_kid(dt, 0, old, count * blocklen);
    dt->size = size;
    if (size) {
        tern_dtype_prog_copy(&p, old, 0);
        tern_dtype_prog_repeat(&p, 0, blocklen, old->extent);
        tern_dtype_prog_repeat(&p, 0, count, stride);
    }
    if (count && blocklen) {
        wide lo1, hi1, lo2, hi2;
        tern_dtype_bounds_span(count, stride, &lo1, &hi1);
        tern_dtype_bounds_span(blocklen, old->extent, &lo2, &hi2);
        tern_dtype_bounds_place(&b, old, sat(lo1 + lo2), sat(hi1 + hi2));
    }
    return tern_dtype_finish(dt, &p, &b, why, out);
}

/* Entries of an IDX node over a contiguous child merge when they touch. */
static void merge_entries(struct prog *p, size_t r)
{
    struct tern_dtype_node *n = &p->node[r];
    struct tern_dtype_node *child = &p->node[r + 1];
    if (child->kind != TERN_DT_RUN || (wide)child->size != n->stride)
        return;
    struct tern_dtype_ent *e = p->ent + n->ent;
    size_t w = 0;
    for (size_t i = 0; i < n->count; i++) {
        e[i].disp += child->disp;
        if (w && (wide)e[w - 1].disp + (wide)e[w - 1].count * n->stride == e[i].disp)
            e[w - 1].count += e[i].count;
        else
            e[w++] = e[i];
    }
    child->disp = 0;
    /* The merged-away entries stay unused in the array: the child's own
     * entries follow them. */
    n->count = w;
}

/* Blocks of equal length at equal spacing: the displacement step, or 0. */
static int regular(size_t n, const size_t *bl, const MPI_Aint *d, wide *step)
{
    size_t first = SIZE_MAX, prev = 0, seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (!bl[i])
            continue;
        if (first == SIZE_MAX) {
            first = i;
        } else if (bl[i] != bl[first]) {
            return 0;
        } else if (seen == 1) {
            *step = (wide)d[i] - d[prev];
            if (!fits_aint(*step))
                return 0;
        } else if ((wide)d[i] - d[prev] != *step) {
            return 0;
        }
        prev = i;
        seen++;
    }
    return seen >= 2;
}

/* Builds the IDX program of an hindexed type (entries with length > 0). */
static void build_indexed(struct prog *p, size_t count, const size_t *bl,
                          const MPI_Aint *d, const struct tern_dtype *old, size_t size)
{
    size_t used = 0, only = 0;
    for (size_t i = 0; i < count; i++)
        if (bl[i]) {
            used++;
            only = i;
        }
    wide step = 0;
    if (used == 1 || regular(count, bl, d, &step)) {
        size_t first = only;
        for (size_t i = count; i-- > 0;)
            if (bl[i])
                first = i;
        tern_dtype_prog_copy(p, old, d[first]);
        tern_dtype_prog_repeat(p, 0, bl[first], old->extent);
        if (used > 1)
            tern_dtype_prog_repeat(p, 0, used, (MPI_Aint)step);
        return;
    }
    if (grow((void **)&p->ent, &p->cape, used, sizeof(*p->ent))) {
        p->nomem = 1;
        return;
    }
    for (size_t i = 0; i < count; i++)
        if (bl[i])
            p->ent[p->ne++] = (struct tern_dtype_ent){ .disp = d[i], .count = bl[i] };
    struct tern_dtype_node head = {
        .kind = TERN_DT_IDX, .size = size, .count = used, .stride = old->extent, .ent = 0,
    };
    tern_dtype_prog_push(p, head);
    tern_dtype_prog_copy(p, old, 0);
    if (p->nomem)
        return;
    p->node[0].span = (uint32_t)p->nn;
    merge_entries(p, 0);
    size_t pos = 0;
    for (size_t i = 0; i < p->node[0].count; i++) {
        p->ent[i].pos = pos;
        pos += p->ent[i].count * old->size;
    }
    if (p->node[0].count == 1) {
        struct tern_dtype_ent e = p->ent[0];
        tern_dtype_prog_remove_head(p, 0);
        p->node[0].disp += e.disp;
        tern_dtype_prog_repeat(p, 0, e.count, old->extent);
    }
}

int tern_dtype_hindexed(size_t count, const size_t *blocklens,
                        const MPI_Aint *displs, const struct tern_dtype *old,
                        struct tern_dtype **out, const char **why)
{
    struct prog p = { 0 };
    struct bounds b = { 0 };
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        if (__builtin_add_overflow(total, blocklens[i], &total)) {
            *why = "its size in bytes does not fit in MPI_Count";
            return TERN_ECOUNT;
        }
    size_t size;
    int rc = tern_dtype_size_product(total, 1, old->size, &size, why);
    if (rc)
        return rc;
    struct tern_dtype *dt = tern_dtype_new(1);
    if (!dt)
        return TERN_ENOMEM;
    tern_dtype_add_kid(dt, 0, old, total);
    dt->size = size;
    if (size)
        build_indexed(&p, count, blocklens, displs, old, size);
    for (size_t i = 0; i < count; i++) {
        if (!blocklens[i])
            continue;
        wide lo, hi;
        tern_dtype_bounds_span(blocklens[i], old->extent, &lo, &hi);
        tern_dtype_bounds_place(&b, old, lo + displs[i], hi + displs[i]);
    }
    return tern_dtype_finish(dt, &p, &b, why, out);
}
