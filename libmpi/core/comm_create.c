/*
 * Creating communicators: dup, split, split_type, create and create_group.
 *
 * Every creation that is collective over a parent is one allgather over the
 * parent of a small record per process: its next_ctx (comm.h), plus color
 * and key for a split. Each process then computes the same answer locally:
 * M = the largest next_ctx, and for a split the members of its color sorted
 * by (key, parent rank). Cost: one allgather of 4 or 12 bytes per process
 * (ring: p - 1 steps), plus O(p log p) local work for a split.
 *
 * MPI_Comm_create_group involves the group's members only, so it cannot use
 * the parent's collectives. The members find M with a dissemination
 * all-reduce (maximum) over point-to-point messages on the parent's scratch
 * context (gctx) with the user's tag: in round k = 0, 1, ... while 2^k < g,
 * member i sends its current maximum to member (i + 2^k) mod g and takes the
 * maximum with what member (i - 2^k) mod g sent. After ceil(log2 g) rounds
 * every member has seen every value (some twice, harmless for a maximum).
 * Cost: ceil(log2 g) rounds of one 4-byte message each way. Distinct sources
 * per round and the per-pair order of messages keep rounds and successive
 * calls with the same tag apart; calls that overlap in time on one process
 * are told apart by their tags, as the standard asks of the user.
 */
#include <stdlib.h>

#include "collectives/coll.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/group.h"
#include "libmpi/core/object.h"
#include "libmpi/core/topo.h"
#include "libmpi/core/runtime.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

/* Gathers n ints from every member of parent into a new array (free() it):
 * (*all)[r * n + i] is entry i of parent rank r. */
static int gather(struct tern_comm *parent, const int *mine, int n, int **all)
{
    const struct tern_dtype *dt = tern_dtype_get(MPI_INT);
    *all = malloc(sizeof(int) * (size_t)n * (size_t)parent->size);
    if (!*all)
        return TERN_ENOMEM;
    int rc = tern_coll_allgather(mine, (size_t)n, dt, *all, (size_t)n, dt, parent);
    if (rc) {
        free(*all);
        *all = NULL;
    }
    return rc;
}

/* The largest next_ctx of a gathered array with records of n ints, the
 * context id being the first int of each; records this process's use. */
static int agree_ctx(const int *all, int n, int size, uint32_t *m)
{
    uint32_t max = 0;
    for (int r = 0; r < size; r++)
        if ((uint32_t)all[r * n] > max)
            max = (uint32_t)all[r * n];
    *m = max;
    return tern_comm_take_ctx(max);
}

int tern_comm_dup_bare(struct tern_comm *parent, struct tern_comm **out)
{
    if (parent->remote)
        return tern_intercomm_dup(parent, out);
    int mine = (int)tern_comm_next_ctx(), *all;
    uint32_t m;
    int rc = gather(parent, &mine, 1, &all);
    if (rc)
        return rc;
    rc = agree_ctx(all, 1, parent->size, &m);
    free(all);
    struct tern_comm *c = NULL;
    if (!rc)
        rc = tern_comm_new(parent, parent->group, m, &c);
    if (!rc && (rc = tern_topo_dup(parent->topo, &c->topo)))
        tern_comm_discard(c);
    *out = rc ? NULL : c;
    return rc;
}

int tern_comm_dup(struct tern_comm *parent, struct tern_comm **out)
{
    struct tern_comm *c;
    int rc = tern_comm_dup_bare(parent, &c);
    if (!rc && (rc = tern_attr_copy(&parent->attrs, TERN_ATTR_COMM, (void *)parent->handle,
                                    &c->attrs, (void *)c->handle)))
        tern_comm_discard(c);
    *out = rc ? NULL : c;
    return rc;
}

struct member {
    int key;
    int rank;   /* In the parent. */
};

static int by_key_then_rank(const void *pa, const void *pb)
{
    const struct member *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* Builds the communicator of the parent ranks with this process's color,
 * ordered by key then parent rank, from the gathered (ctx, color, key). */
static int build_split(struct tern_comm *parent, const int *all, uint32_t m,
                       struct tern_comm **out)
{
    int color = all[parent->rank * 3 + 1], n = 0;
    struct member *mem = malloc(sizeof(*mem) * (size_t)parent->size);
    int *world = malloc(sizeof(int) * (size_t)parent->size);
    int rc = mem && world ? 0 : TERN_ENOMEM;
    for (int r = 0; !rc && r < parent->size; r++)
        if (all[r * 3 + 1] == color)
            mem[n++] = (struct member){ .key = all[r * 3 + 2], .rank = r };
    if (!rc) {
        qsort(mem, (size_t)n, sizeof(*mem), by_key_then_rank);
        for (int i = 0; i < n; i++)
            world[i] = parent->world[mem[i].rank];
    }
    struct tern_group *g = NULL;
    if (!rc)
        rc = tern_group_from_world(n, world, &g);
    free(mem);
    free(world);
    if (!rc) {
        rc = tern_comm_new(parent, g, m, out);
        tern_group_release(g);
    }
    return rc;
}

int tern_comm_split(struct tern_comm *parent, int color, int key,
                    struct tern_comm **out)
{
    if (parent->remote)
        return tern_intercomm_split(parent, color, key, out);
    int mine[3] = { (int)tern_comm_next_ctx(), color, key }, *all;
    uint32_t m;
    *out = NULL;
    int rc = gather(parent, mine, 3, &all);
    if (rc)
        return rc;
    rc = agree_ctx(all, 3, parent->size, &m);
    if (!rc && color != MPI_UNDEFINED)
        rc = build_split(parent, all, m, out);
    free(all);
    return rc;
}

/*
 * Split types. MPI_COMM_TYPE_SHARED groups the ranks the launcher placed on
 * one host (their node index is the color). MPI_COMM_TYPE_HW_UNGUIDED must
 * give a strict subset of the parent; the host is the only level of the
 * hardware Tern knows, so it gives the host's ranks when the parent spans
 * several hosts and MPI_COMM_NULL otherwise, as the standard allows when no
 * smaller domain exists. MPI_COMM_TYPE_HW_GUIDED and _RESOURCE_GUIDED name
 * the resource in an info key; without info objects no resource can be
 * named, and the standard gives MPI_COMM_NULL for a resource type that is
 * not supported. Every process still takes part in the split, so processes
 * that pass different types (or MPI_UNDEFINED) stay consistent.
 */
int tern_comm_split_type(struct tern_comm *parent, int type, int key,
                         struct tern_comm **out)
{
    int color = MPI_UNDEFINED;
    if (type == MPI_COMM_TYPE_SHARED || type == MPI_COMM_TYPE_HW_UNGUIDED)
        color = tern_rt.boot.node_rank;
    int rc = tern_comm_split(parent, color, key, out);
    if (!rc && *out && type == MPI_COMM_TYPE_HW_UNGUIDED && (*out)->size == parent->size) {
        tern_comm_discard(*out);
        *out = NULL;
    }
    return rc;
}

int tern_comm_create(struct tern_comm *parent, struct tern_group *g,
                     struct tern_comm **out)
{
    if (parent->remote)
        return tern_intercomm_create_from(parent, g, out);
    int mine = (int)tern_comm_next_ctx(), *all;
    uint32_t m;
    *out = NULL;
    int rc = gather(parent, &mine, 1, &all);
    if (rc)
        return rc;
    rc = agree_ctx(all, 1, parent->size, &m);
    free(all);
    if (!rc && g->rank != MPI_UNDEFINED)
        rc = tern_comm_new(parent, g, m, out);
    return rc;
}

/* One round of the dissemination maximum: sends *max to group rank `to`,
 * receives from group rank `from`, keeps the larger. */
static int max_round(struct tern_comm *parent, const struct tern_group *g, int to,
                     int from, int tag, uint32_t *max)
{
    const struct tern_dtype *dt = tern_dtype_get(MPI_INT);
    int out = (int)*max, in = 0;
    int pto = tern_group_rank_of(parent->group, g->world[to]);
    int pfrom = tern_group_rank_of(parent->group, g->world[from]);
    struct tern_request *rr, *sr;
    int rc = tern_p2p_irecv(&in, 1, dt, pfrom, tag, parent, parent->gctx, &rr);
    if (rc)
        return rc;
    rc = tern_p2p_isend(&out, 1, dt, pto, tag, parent, parent->gctx,
                        TERN_SEND_STANDARD, &sr);
    if (!rc) {
        tern_p2p_wait(sr);
        rc = sr->error;
        tern_request_free(sr);
    }
    tern_p2p_wait(rr);
    if (!rc)
        rc = rr->error;
    tern_request_free(rr);
    if ((uint32_t)in > *max)
        *max = (uint32_t)in;
    return rc;
}

int tern_comm_create_group(struct tern_comm *parent, struct tern_group *g, int tag,
                           struct tern_comm **out)
{
    *out = NULL;
    if (g->rank == MPI_UNDEFINED)
        return 0;
    uint32_t m = tern_comm_next_ctx();
    int rc = 0, r = g->rank, n = g->size;
    for (int dist = 1; dist < n && !rc; dist <<= 1)
        rc = max_round(parent, g, (r + dist) % n, (r - dist + n) % n, tag, &m);
    if (!rc)
        rc = tern_comm_take_ctx(m);
    if (!rc)
        rc = tern_comm_new(parent, g, m, out);
    return rc;
}
