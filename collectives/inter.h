/*
 * Collectives on intercommunicators.
 *
 * The standard's meaning: the data of one group goes to the other. Bcast,
 * Reduce, Gather(v) and Scatter(v) have a root in one group (it passes
 * MPI_ROOT, the rest of its group MPI_PROC_NULL and take no part; the
 * other group passes the root's rank in the remote group); Allreduce gives
 * each group the reduction of the other group's inputs, Allgather(v) the
 * other group's blocks, Alltoall(v, w) exchanges a block with each remote
 * process; Barrier returns once every process of both groups has entered.
 * MPI_IN_PLACE is not allowed (libmpi/api/ rejects it).
 *
 * They run as schedules on the intracommunicator over both groups
 * (comm->both, libmpi/core/intercomm.c): a builder's sends and receives
 * name ranks of that communicator, and an algorithm written for a whole
 * intracommunicator runs within this rank's group through a view of the
 * group's ranks there (tern_coll_inter_phase). The arguments: a->comm is
 * the intercommunicator; a->size and a->rank are those of the local group;
 * the receive side's counts describe the remote group's blocks. One
 * algorithm each, in inter_<collective>.c; each file gives its cost.
 */
#ifndef TERN_COLLECTIVES_INTER_H
#define TERN_COLLECTIVES_INTER_H

#include "collectives/algo.h"

/* The two groups as ranks of comm->both: local[i] is local rank i's,
 * remote[j] remote rank j's; in scratch of the schedule. */
struct tern_coll_inter {
    int nlocal, nremote, me;
    int *local, *remote;
};

/* Fills v for a's intercommunicator; 0, or -1 when memory ran out (the
 * schedule has the error). */
int tern_coll_inter_view(struct tern_sched *s, const struct tern_coll_args *a,
                         struct tern_coll_inter *v);

/* Runs algorithm b within this rank's group, with sub's arguments (size
 * and rank become the group's). */
void tern_coll_inter_phase(struct tern_sched *s, struct tern_coll_args *sub,
                           const struct tern_coll_inter *v, tern_coll_builder *b);

/* Reduces this group's inputs (n elements of a's type and op, from
 * a->sbuf) to its rank 0 along a binomial tree (reduce_binomial.c, which
 * keeps the ranks' order for a non-commutative op), then ends the round.
 * *out: where the result lands on rank 0 (schedule scratch), NULL on the
 * others. -1 when memory ran out (the schedule has the error). */
int tern_coll_inter_reduce_local(struct tern_sched *s, const struct tern_coll_args *a,
                                 const struct tern_coll_inter *v, size_t n, void **out);

/* The builder of `kind` on an intercommunicator; NULL where the standard
 * defines none (Scan, Exscan, the neighbourhood collectives). */
tern_coll_builder *tern_coll_inter_builder(enum tern_coll_kind kind);

tern_coll_builder tern_coll_inter_barrier;
tern_coll_builder tern_coll_inter_bcast;
tern_coll_builder tern_coll_inter_reduce;
tern_coll_builder tern_coll_inter_allreduce;
/* Gather and Gatherv, Scatter and Scatterv. */
tern_coll_builder tern_coll_inter_gather;
tern_coll_builder tern_coll_inter_scatter;
/* Alltoall, Alltoallv and Alltoallw; Allgather and Allgatherv. */
tern_coll_builder tern_coll_inter_alltoall;
/* Reduce_scatter and Reduce_scatter_block. */
tern_coll_builder tern_coll_inter_reduce_scatter;

#endif
