/*
 * The host layout of a communicator and the phases of the two-level
 * algorithms (nodes.h); the blocks of those phases are in nodes_blocks.c.
 */
#include <stdlib.h>
#include <string.h>

#include "collectives/nodes.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/runtime.h"

/* Host numbers of the communicator's ranks: world host ids renumbered in
 * the order of their lowest rank. Returns the number of hosts, or -1. */
static int number_hosts(const struct tern_comm *c, int *node_of)
{
    const int *world_node = tern_rt.boot.node_of;
    int *index = malloc((size_t)tern_rt.boot.size * sizeof *index);
    if (!world_node || !index) {
        free(index);
        return -1;
    }
    for (int i = 0; i < tern_rt.boot.size; i++)
        index[i] = -1;
    int n = 0;
    for (int r = 0; r < c->size; r++) {
        int w = world_node[c->world[r]];
        if (index[w] < 0)
            index[w] = n++;
        node_of[r] = index[w];
    }
    free(index);
    return n;
}

/* Host order (nodes.h): the place of each host's first rank. */
static void first_places(struct tern_coll_nodes *nd, int size)
{
    for (int k = 0; k <= nd->nnodes; k++)
        nd->first[k] = 0;
    for (int r = 0; r < size; r++)
        nd->first[nd->node_of[r] + 1]++;
    for (int k = 0; k < nd->nnodes; k++)
        nd->first[k + 1] += nd->first[k];
}

/* One allocation: the struct, then node_of[size], leader[], local[] and
 * pos[], each at most size long, and first[], at most size + 1. */
static struct tern_coll_nodes *compute(const struct tern_comm *c)
{
    size_t n = (size_t)c->size;
    struct tern_coll_nodes *nd = malloc(sizeof *nd + (5 * n + 1) * sizeof(int));
    int *count = calloc(n, sizeof *count);
    if (!nd || !count)
        goto fail;
    nd->node_of = (int *)(nd + 1);
    nd->nnodes = number_hosts(c, nd->node_of);
    if (nd->nnodes < 0)
        goto fail;
    nd->leader = nd->node_of + n;
    nd->local = nd->leader + n;
    nd->pos = nd->local + n;
    nd->first = nd->pos + n;
    first_places(nd, c->size);
    nd->node = nd->node_of[c->rank];
    nd->nlocal = nd->max_local = 0;
    nd->host_ordered = 1;
    for (int r = 0; r < c->size; r++) {
        int k = nd->node_of[r];
        nd->pos[r] = nd->first[k] + count[k];
        if (nd->pos[r] != r)
            nd->host_ordered = 0;
        if (count[k]++ == 0)
            nd->leader[k] = r;
        if (count[k] > nd->max_local)
            nd->max_local = count[k];
        if (k == nd->node) {
            if (r == c->rank)
                nd->lrank = nd->nlocal;
            nd->local[nd->nlocal++] = r;
        }
    }
    free(count);
    return nd;
fail:
    free(nd);
    free(count);
    return NULL;
}

const struct tern_coll_nodes *tern_coll_nodes(struct tern_comm *comm)
{
    if (!comm->nodes)
        comm->nodes = compute(comm);
    return comm->nodes;
}

int tern_coll_two_level_usable(const struct tern_coll_args *a)
{
    if (a->size != a->comm->size)
        return 0;
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    return nd->nnodes >= 2 && nd->max_local >= 2;
}

int *tern_coll_leaders(struct tern_sched *s, const struct tern_coll_nodes *nd, int root)
{
    int *l = tern_sched_scratch(s, (size_t)nd->nnodes * sizeof *l);
    if (l) {
        memcpy(l, nd->leader, (size_t)nd->nnodes * sizeof *l);
        l[nd->node_of[root]] = root;
    }
    return l;
}

int tern_coll_local_root(const struct tern_coll_nodes *nd, int root)
{
    if (nd->node_of[root] != nd->node)
        return 0;
    int i = 0;
    while (nd->local[i] != root)
        i++;
    return i;
}

void tern_coll_phase(struct tern_sched *s, struct tern_coll_args *sub, const int *view,
                     int n, int me, tern_coll_builder *b)
{
    sub->size = n;
    sub->rank = me;
    if (!b)
        b = tern_coll_choose(sub)->build;
    tern_sched_view(s, view);
    b(s, sub);
    tern_sched_view(s, NULL);
}
