/*
 * Reduce_scatter and Reduce_scatter_block on an intercommunicator: the
 * reduction of one group's input vectors is scattered among the other
 * group, in blocks of recvcount (recvcounts[i] for Reduce_scatter) as the
 * receiving group's own arguments say; the standard has both groups'
 * vectors hold the same number of elements.
 *
 * Steps: each group reduces its vectors to its rank 0 along a binomial
 * tree (reduce_binomial.c, which keeps the ranks' order for a
 * non-commutative op); the two ranks 0 swap their results; each scatters
 * what it got within its group (scatter_binomial.c for equal blocks,
 * scatterv_linear.c otherwise).
 *
 * Cost, N bytes a vector, groups of up to p processes: ceil(log2 p)
 * (alpha + N beta + N gamma) for the reductions, alpha + N beta for the
 * swap, and the scatter's ceil(log2 p) alpha + N beta (binomial) or
 * (p - 1) (alpha' + N/p beta) (linear).
 */
#include "collectives/inter.h"

void tern_coll_inter_reduce_scatter(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_inter v;
    if (tern_coll_inter_view(s, a, &v))
        return;
    int block = a->kind == TERN_COLL_REDUCE_SCATTER_BLOCK;
    size_t n = a->scount;
    void *mine, *theirs = v.me == 0 ? tern_sched_scratch_typed(s, n, a->rdt) : NULL;
    size_t *displs = block ? NULL : tern_sched_scratch(s, sizeof(size_t) * (size_t)v.nlocal);
    if ((v.me == 0 && !theirs) || (!block && !displs) ||
        tern_coll_inter_reduce_local(s, a, &v, n, &mine))
        return;
    if (v.me == 0) {
        tern_sched_send(s, mine, n, a->rdt, v.remote[0]);
        tern_sched_recv(s, theirs, n, a->rdt, v.remote[0]);
        tern_sched_round(s);
    }
    struct tern_coll_args sub = *a;
    sub.kind = block ? TERN_COLL_SCATTER : TERN_COLL_SCATTERV;
    sub.root = 0;
    sub.sbuf = theirs;
    sub.sdt = a->rdt;
    sub.rcount = block ? a->rcount : a->rcounts[v.me];
    if (block) {
        sub.scount = a->rcount;
        tern_coll_inter_phase(s, &sub, &v, tern_coll_scatter_binomial);
        return;
    }
    size_t at = 0;
    for (int i = 0; i < v.nlocal; i++) {
        displs[i] = at;
        at += a->rcounts[i];
    }
    sub.scounts = a->rcounts;
    sub.sdispls = displs;
    tern_coll_inter_phase(s, &sub, &v, tern_coll_scatterv_linear);
}
