/*
 * The host layout of a communicator and the phases of the two-level
 * algorithms (nodes.h).
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

static struct tern_coll_nodes *compute(const struct tern_comm *c)
{
    int *node_of = malloc((size_t)c->size * sizeof *node_of);
    int nnodes = node_of ? number_hosts(c, node_of) : -1;
    int *count = nnodes > 0 ? calloc((size_t)nnodes, sizeof *count) : NULL;
    if (!count) {
        free(node_of);
        return NULL;
    }
    for (int r = 0; r < c->size; r++)
        count[node_of[r]]++;
    int mine = node_of[c->rank];
    size_t ints = (size_t)c->size + (size_t)nnodes + (size_t)count[mine];
    struct tern_coll_nodes *nd = malloc(sizeof *nd + ints * sizeof(int));
    if (!nd) {
        free(node_of);
        free(count);
        return NULL;
    }
    nd->nnodes = nnodes;
    nd->node = mine;
    nd->nlocal = count[mine];
    nd->max_local = 0;
    for (int k = 0; k < nnodes; k++)
        if (count[k] > nd->max_local)
            nd->max_local = count[k];
    nd->node_of = (int *)(nd + 1);
    nd->leader = nd->node_of + c->size;
    nd->local = nd->leader + nnodes;
    memcpy(nd->node_of, node_of, (size_t)c->size * sizeof(int));
    for (int k = 0; k < nnodes; k++)
        nd->leader[k] = -1;
    int l = 0;
    for (int r = 0; r < c->size; r++) {
        if (nd->leader[node_of[r]] < 0)
            nd->leader[node_of[r]] = r;
        if (node_of[r] == mine) {
            if (r == c->rank)
                nd->lrank = l;
            nd->local[l++] = r;
        }
    }
    free(node_of);
    free(count);
    return nd;
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
    return nd && nd->nnodes >= 2 && nd->max_local >= 2;
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
