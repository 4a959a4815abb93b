/*
 * Group objects and the standard's set operations on them (see group.h).
 *
 * Membership questions ("is world rank w in group b, and at which rank?")
 * go through an inverse map: an int array indexed by world rank holding the
 * group rank or -1, as long as the largest world rank involved. Building it
 * is O(that length), so every operation is linear, whatever the groups'
 * order.
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/core/group.h"
#include "libmpi/core/object.h"
#include "tern/err.h"

static int my_world_rank;
static struct tern_group empty = {
    .magic = TERN_MAGIC_GROUP, .refs = 1, .size = 0, .rank = MPI_UNDEFINED,
    .world = NULL, .handle = MPI_GROUP_EMPTY
};
static struct tern_group *live;   /* Heap groups not yet freed. */

void tern_group_init(int world_rank, int world_size)
{
    (void)world_size;
    my_world_rank = world_rank;
    empty.magic = TERN_MAGIC_GROUP;
}

void tern_group_finalize(void)
{
    while (live) {
        struct tern_group *g = live;
        live = g->next;
        g->magic = TERN_MAGIC_DEAD;
        tern_obj_remove(g);
        free(g->world);
        free(g);
    }
}

struct tern_group *tern_group_get(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY)
        return &empty;
    if (tern_handle_is_predefined(h) || !tern_obj_known(h))
        return NULL;
    struct tern_group *g = (struct tern_group *)h;
    return g->magic == TERN_MAGIC_GROUP ? g : NULL;
}

struct tern_group *tern_group_empty(void)
{
    return &empty;
}

/* A heap group with room for `size` members, linked into the live list;
 * the caller fills world[] and then calls finish(). */
static struct tern_group *alloc_group(int size)
{
    struct tern_group *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    g->world = malloc(sizeof(int) * (size_t)(size > 0 ? size : 1));
    if (!g->world || tern_obj_add(g)) {
        free(g->world);
        free(g);
        return NULL;
    }
    g->magic = TERN_MAGIC_GROUP;
    g->refs = 1;
    g->size = size;
    g->handle = (MPI_Group)g;
    g->next = live;
    if (live)
        live->prev = g;
    live = g;
    return g;
}

static void free_group(struct tern_group *g)
{
    if (g->prev)
        g->prev->next = g->next;
    else
        live = g->next;
    if (g->next)
        g->next->prev = g->prev;
    g->magic = TERN_MAGIC_DEAD;
    tern_obj_remove(g);
    free(g->world);
    free(g);
}

/* Completes a group whose first n members are filled: an empty result
 * becomes MPI_GROUP_EMPTY, otherwise this process's rank is found. */
static int finish(struct tern_group *g, int n, struct tern_group **out)
{
    if (n == 0) {
        free_group(g);
        *out = &empty;
        return 0;
    }
    g->size = n;
    g->rank = tern_group_rank_of(g, my_world_rank);
    *out = g;
    return 0;
}

int tern_group_from_world(int size, const int *world, struct tern_group **out)
{
    struct tern_group *g = alloc_group(size);
    if (!g)
        return TERN_ENOMEM;
    if (size > 0)
        memcpy(g->world, world, sizeof(int) * (size_t)size);
    return finish(g, size, out);
}

void tern_group_retain(struct tern_group *g)
{
    if (g != &empty)
        g->refs++;
}

void tern_group_release(struct tern_group *g)
{
    if (g != &empty && --g->refs == 0)
        free_group(g);
}

int tern_group_rank_of(const struct tern_group *g, int world_rank)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == world_rank)
            return i;
    return MPI_UNDEFINED;
}

/* The inverse map of g, long enough for every world rank of g and of
 * `other` (which may be NULL): map[w] = rank of w in g, or -1. */
static int *inverse(const struct tern_group *g, const struct tern_group *other, int *len)
{
    int n = 0;
    for (int i = 0; i < g->size; i++)
        if (g->world[i] >= n)
            n = g->world[i] + 1;
    for (int i = 0; other && i < other->size; i++)
        if (other->world[i] >= n)
            n = other->world[i] + 1;
    int *map = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!map)
        return NULL;
    for (int w = 0; w < n; w++)
        map[w] = -1;
    for (int i = 0; i < g->size; i++)
        map[g->world[i]] = i;
    *len = n;
    return map;
}

int tern_group_check_ranks(const struct tern_group *g, int n, const int *ranks,
                           int *bad, int *dup)
{
    char *seen = calloc((size_t)(g->size > 0 ? g->size : 1), 1);
    if (!seen)
        return TERN_ENOMEM;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size || seen[r]) {
            *bad = i;
            *dup = r >= 0 && r < g->size;
            rc = TERN_ERANK;
        } else {
            seen[r] = 1;
        }
    }
    free(seen);
    return rc;
}

/* Adds the ranks of one triplet to list (room for g->size entries). */
static int expand_one(const struct tern_group *g, const int t[3], char *seen,
                      int *list, int *n)
{
    int first = t[0], last = t[1], stride = t[2];
    if (stride == 0)
        return TERN_EARG;
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
        if (r < 0 || r >= g->size || seen[r])
            return TERN_ERANK;
        seen[r] = 1;
        list[(*n)++] = (int)r;
    }
    return 0;
}

int tern_group_expand_ranges(const struct tern_group *g, int n, const int ranges[][3],
                             int **out, int *nout, int *bad)
{
    /* Every rank may appear once, so the list never outgrows the group. */
    int *list = malloc(sizeof(int) * (size_t)(g->size > 0 ? g->size : 1));
    char *seen = calloc((size_t)(g->size > 0 ? g->size : 1), 1);
    int rc = list && seen ? 0 : TERN_ENOMEM, count = 0;
    for (int i = 0; i < n && !rc; i++) {
        rc = expand_one(g, ranges[i], seen, list, &count);
        if (rc)
            *bad = i;
    }
    free(seen);
    if (rc) {
        free(list);
        return rc;
    }
    *out = list;
    *nout = count;
    return 0;
}

int tern_group_incl(const struct tern_group *g, int n, const int *ranks,
                    struct tern_group **out)
{
    struct tern_group *ng = alloc_group(n);
    if (!ng)
        return TERN_ENOMEM;
    for (int i = 0; i < n; i++)
        ng->world[i] = g->world[ranks[i]];
    return finish(ng, n, out);
}

int tern_group_excl(const struct tern_group *g, int n, const int *ranks,
                    struct tern_group **out)
{
    char *drop = calloc((size_t)(g->size > 0 ? g->size : 1), 1);
    struct tern_group *ng = drop ? alloc_group(g->size) : NULL;
    if (!ng) {
        free(drop);
        return TERN_ENOMEM;
    }
    for (int i = 0; i < n; i++)
        drop[ranks[i]] = 1;
    int k = 0;
    for (int i = 0; i < g->size; i++)
        if (!drop[i])
            ng->world[k++] = g->world[i];
    free(drop);
    return finish(ng, k, out);
}

/* The members of `a` that are (keep_common = 1) or are not (0) in `b`, in
 * a's order. */
static int filter(const struct tern_group *a, const struct tern_group *b,
                  int keep_common, struct tern_group **out)
{
    int len;
    int *in_b = inverse(b, a, &len);
    struct tern_group *ng = in_b ? alloc_group(a->size) : NULL;
    if (!ng) {
        free(in_b);
        return TERN_ENOMEM;
    }
    int k = 0;
    for (int i = 0; i < a->size; i++)
        if ((in_b[a->world[i]] >= 0) == keep_common)
            ng->world[k++] = a->world[i];
    free(in_b);
    return finish(ng, k, out);
}

int tern_group_union(const struct tern_group *a, const struct tern_group *b,
                     struct tern_group **out)
{
    /* All of a, then the members of b that are not in a, in b's order. */
    int len;
    int *in_a = inverse(a, b, &len);
    struct tern_group *ng = in_a ? alloc_group(a->size + b->size) : NULL;
    if (!ng) {
        free(in_a);
        return TERN_ENOMEM;
    }
    int k = 0;
    for (int i = 0; i < a->size; i++)
        ng->world[k++] = a->world[i];
    for (int i = 0; i < b->size; i++)
        if (in_a[b->world[i]] < 0)
            ng->world[k++] = b->world[i];
    free(in_a);
    return finish(ng, k, out);
}

int tern_group_intersection(const struct tern_group *a, const struct tern_group *b,
                            struct tern_group **out)
{
    return filter(a, b, 1, out);
}

int tern_group_difference(const struct tern_group *a, const struct tern_group *b,
                          struct tern_group **out)
{
    return filter(a, b, 0, out);
}

int tern_group_check_translate(const struct tern_group *a, int n, const int *ranks1,
                               int *bad)
{
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        if (r != MPI_PROC_NULL && (r < 0 || r >= a->size)) {
            *bad = i;
            return TERN_ERANK;
        }
    }
    return 0;
}

int tern_group_translate(const struct tern_group *a, int n, const int *ranks1,
                         const struct tern_group *b, int *ranks2)
{
    int len;
    int *in_b = inverse(b, a, &len);
    if (!in_b)
        return TERN_ENOMEM;
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        if (r == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else {
            int j = in_b[a->world[r]];
            ranks2[i] = j >= 0 ? j : MPI_UNDEFINED;
        }
    }
    free(in_b);
    return 0;
}

int tern_group_compare(const struct tern_group *a, const struct tern_group *b,
                       int *result)
{
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return 0;
    }
    if (a->size == 0 || !memcmp(a->world, b->world, sizeof(int) * (size_t)a->size)) {
        *result = MPI_IDENT;
        return 0;
    }
    /* Same size and distinct members on both sides: similar exactly when
     * every member of a is in b. */
    int len;
    int *in_b = inverse(b, a, &len);
    if (!in_b)
        return TERN_ENOMEM;
    *result = MPI_SIMILAR;
    for (int i = 0; i < a->size; i++)
        if (in_b[a->world[i]] < 0)
            *result = MPI_UNEQUAL;
    free(in_b);
    return 0;
}
