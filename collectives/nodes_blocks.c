/*
 * The blocks of the two-level algorithms, host by host (nodes.h): a
 * buffer's blocks in host order, the pieces each host's leader handles,
 * the v forms' blocks and the sizes the leaders exchange.
 */
#include "collectives/nodes.h"

char *tern_coll_host_packed(struct tern_sched *s, const struct tern_coll_nodes *nd,
                            void *buf, size_t count, const struct tern_dtype *dt)
{
    size_t size = (size_t)nd->first[nd->nnodes];
    if (nd->host_ordered && tern_dtype_contig(dt, count * size))
        return buf;
    return tern_sched_scratch(s, size * count * dt->size);
}

void tern_coll_host_permute(struct tern_sched *s, const struct tern_coll_nodes *nd,
                            void *buf, size_t count, const struct tern_dtype *dt,
                            char *packed, int to_buf)
{
    if (packed == buf)
        return;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int size = nd->first[nd->nnodes];
    size_t bytes = count * dt->size;
    for (int r = 0, run; r < size; r += run) {
        for (run = 1; r + run < size && nd->pos[r + run] == nd->pos[r] + run; run++)
            ;
        void *user = tern_coll_elem(buf, (size_t)r * count, dt);
        char *piece = packed + (size_t)nd->pos[r] * bytes;
        size_t n = (size_t)run * count;
        if (to_buf)
            tern_sched_copy(s, piece, n * dt->size, byte, user, n, dt);
        else
            tern_sched_copy(s, user, n, dt, piece, n * dt->size, byte);
    }
}

int tern_coll_host_pieces(struct tern_sched *s, const struct tern_coll_nodes *nd,
                          size_t bytes, size_t **counts, size_t **displs)
{
    size_t h = (size_t)nd->nnodes;
    *counts = tern_sched_scratch(s, 2 * h * sizeof **counts);
    if (!*counts)
        return -1;
    *displs = *counts + h;
    for (int k = 0; k < nd->nnodes; k++) {
        (*counts)[k] = (size_t)(nd->first[k + 1] - nd->first[k]) * bytes;
        (*displs)[k] = (size_t)nd->first[k] * bytes;
    }
    return 0;
}

int tern_coll_rooted_setup(struct tern_sched *s, const struct tern_coll_nodes *nd,
                           const struct tern_coll_args *a, size_t bytes, void *buf,
                           size_t count, const struct tern_dtype *dt,
                           struct tern_coll_rooted *r)
{
    *r = (struct tern_coll_rooted){ .lroot = tern_coll_local_root(nd, a->root),
                                    .bytes = bytes };
    r->leaders = tern_coll_leaders(s, nd, a->root);
    if (bytes == 0 || !r->leaders)
        return -1;
    if (a->rank == a->root) {
        r->packed = tern_coll_host_packed(s, nd, buf, count, dt);
        if (!r->packed || tern_coll_host_pieces(s, nd, bytes, &r->counts, &r->displs) < 0)
            return -1;
        r->piece = r->packed + r->displs[nd->node];
    } else if (nd->lrank == r->lroot) {
        r->piece = tern_sched_scratch(s, (size_t)nd->nlocal * bytes);
        if (!r->piece)
            return -1;
    }
    return 0;
}

/* Whether the blocks lie in buf back to back in rank order (blocks of no
 * elements may be anywhere); *first is then the displacement of the
 * first. */
static int back_to_back(int size, const size_t *counts, const size_t *displs, size_t *first)
{
    size_t next = 0;
    int seen = 0;
    *first = 0;
    for (int r = 0; r < size; r++) {
        if (counts[r] == 0)
            continue;
        if (!seen) {
            *first = next = displs[r];
            seen = 1;
        }
        if (displs[r] != next)
            return 0;
        next += counts[r];
    }
    return 1;
}

int tern_coll_host_vblocks(struct tern_sched *s, const struct tern_coll_nodes *nd, void *buf,
                           const size_t *counts, const size_t *displs,
                           const struct tern_dtype *dt, struct tern_coll_vblocks *v)
{
    int size = nd->first[nd->nnodes], h = nd->nnodes;
    *v = (struct tern_coll_vblocks){ .buf = buf, .ucounts = counts, .udispls = displs,
                                     .dt = dt };
    v->at = tern_sched_scratch(s, (size_t)(size + 2 * h) * sizeof *v->at);
    int *by_pos = tern_sched_scratch(s, (size_t)size * sizeof *by_pos);
    if (!v->at || !by_pos)
        return -1;
    v->counts = v->at + size;
    v->displs = v->counts + h;
    for (int r = 0; r < size; r++)
        by_pos[nd->pos[r]] = r;
    for (int k = 0; k < h; k++)
        v->counts[k] = 0;
    for (int q = 0; q < size; q++) {
        int r = by_pos[q], k = nd->node_of[r];
        if (q == nd->first[k])
            v->displs[k] = v->total;
        v->at[r] = v->total;
        v->counts[k] += counts[r] * dt->size;
        v->total += counts[r] * dt->size;
    }
    size_t first;
    v->in_buf = nd->host_ordered && back_to_back(size, counts, displs, &first) &&
                tern_dtype_contig(dt, v->total / (dt->size ? dt->size : 1));
    v->packed = v->in_buf ? tern_coll_elem(buf, first, dt) : tern_sched_scratch(s, v->total);
    return v->packed ? 0 : -1;
}

void tern_coll_host_vpermute(struct tern_sched *s, const struct tern_coll_nodes *nd,
                             const struct tern_coll_vblocks *v, int skip, int to_buf)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int size = nd->first[nd->nnodes];
    if (v->in_buf)
        return;
    for (int r = 0; r < size; r++) {
        size_t n = v->ucounts[r], bytes = n * v->dt->size;
        if (bytes == 0 || nd->node_of[r] == skip)
            continue;
        void *user = tern_coll_elem(v->buf, v->udispls[r], v->dt);
        if (to_buf)
            tern_sched_copy(s, v->packed + v->at[r], bytes, byte, user, n, v->dt);
        else
            tern_sched_copy(s, user, n, v->dt, v->packed + v->at[r], bytes, byte);
    }
}

size_t *tern_coll_local_entries(struct tern_sched *s, const struct tern_coll_nodes *nd,
                                const size_t *arr)
{
    size_t *e = tern_sched_scratch(s, (size_t)nd->nlocal * sizeof *e);
    if (e)
        for (int i = 0; i < nd->nlocal; i++)
            e[i] = arr[nd->local[i]];
    return e;
}

/* The leader's step once the sizes arrived (tern_coll_host_sizes): the
 * host's blocks back to back, then the caller's steps in rounds of their
 * own. */
static void sizes_arrived(struct tern_sched *s, void *arg)
{
    struct tern_coll_vhost *v = arg;
    const struct tern_coll_nodes *nd = tern_coll_nodes(v->a.comm);
    v->displs = tern_sched_scratch(s, (size_t)nd->nlocal * sizeof *v->displs);
    if (!v->displs)
        return;
    v->total = 0;
    for (int i = 0; i < nd->nlocal; i++) {
        v->displs[i] = v->total;
        v->total += v->counts[i];
    }
    v->piece = tern_sched_scratch(s, v->total);
    if (!v->piece)
        return;
    v->then(s, nd, v);
    tern_sched_round(s);
}

int tern_coll_host_sizes(struct tern_sched *s, const struct tern_coll_nodes *nd,
                         const struct tern_coll_args *a, int *leaders, size_t mine,
                         void (*then)(struct tern_sched *s, const struct tern_coll_nodes *nd,
                                      struct tern_coll_vhost *v))
{
    int leader = nd->lrank == 0;
    struct tern_coll_vhost *v = tern_sched_scratch(s, sizeof *v);
    if (!v)
        return -1;
    *v = (struct tern_coll_vhost){ .a = *a, .leaders = leaders, .mine = mine, .then = then };
    if (leader && !(v->counts = tern_sched_scratch(s, (size_t)nd->nlocal * sizeof(size_t))))
        return -1;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_GATHER;
    sub.root = 0;
    sub.sbuf = &v->mine;
    sub.rbuf = v->counts;
    sub.scount = sub.rcount = sizeof v->mine;
    sub.sdt = sub.rdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, NULL);
    tern_sched_round(s);
    if (leader) {
        tern_sched_call(s, sizes_arrived, v);
        tern_sched_round(s);
    }
    return 0;
}
