/*
 * What the algorithm files of collectives/ share: the arguments of a
 * collective call, the builder signature, and the list of algorithms.
 *
 * One file per algorithm, named <collective>_<algorithm>.c; it opens with
 * the algorithm's steps and its cost in the usual model (alpha = latency
 * per message, beta = time per byte, gamma = time per byte reduced; p =
 * ranks, n = bytes per rank) and defines one builder. A builder adds this
 * rank's steps to a schedule (collectives/sched.h) and returns nothing: the
 * schedule remembers out-of-memory errors. Builders compute everything they
 * need from the arguments while building, so the argument arrays (counts,
 * displacements, types) need not outlive the call that started the
 * collective; user buffers of course must, as MPI says.
 */
#ifndef TERN_COLLECTIVES_ALGO_H
#define TERN_COLLECTIVES_ALGO_H

#include <stddef.h>

#include <mpi.h>

#include "collectives/coll.h"
#include "collectives/sched.h"
#include "libmpi/core/datatype.h"

typedef void tern_coll_builder(struct tern_sched *s, const struct tern_coll_args *a);

/* Runs a blocking call without building a schedule, for algorithms whose
 * schedule costs a noticeable part of the call; 0 or an error code once the
 * call completed, or TERN_EAGAIN when it cannot run this way now (nothing
 * was done: the caller builds the schedule). It exchanges no messages,
 * since it has no tag of its own (tern_coll_run accounts for the tag). */
typedef int tern_coll_runner(const struct tern_coll_args *a);

struct tern_coll_algo {
    const char *name;
    tern_coll_builder *build;
    tern_coll_runner *run;              /* NULL: blocking calls build too. */
    /* Whether the algorithm can run this call (NULL: always). An algorithm
     * forced by TERN_COLL_<NAME> that cannot run is replaced by the default
     * choice, with a note at verbose level 1. */
    int (*usable)(const struct tern_coll_args *a);
};

/* select.c: the algorithm to run for a call (TERN_COLL_<NAME> first). */
const struct tern_coll_algo *tern_coll_select(const struct tern_coll_args *a);
/* The automatic choice alone, for a->size ranks (the phases of node-aware
 * algorithms use it); the collective must have algorithms. */
const struct tern_coll_algo *tern_coll_choose(const struct tern_coll_args *a);
/* Whether a shortcut that runs calls of this kind with `build`'s algorithm
 * may skip the selection: no other algorithm is forced for them, and
 * verbose output does not name the algorithm of each call. */
int tern_coll_may_skip_select(enum tern_coll_kind kind, tern_coll_builder *build);
/* The collective's name as in the MPI call ("bcast"), for messages, and
 * the call's ("MPI_Bcast"). */
const char *tern_coll_kind_name(enum tern_coll_kind kind);
const char *tern_coll_call_name(enum tern_coll_kind kind);
/* An algorithm's index in its collective's menu, and the name at an
 * index: for the signatures of calls (signature.h). */
int tern_coll_algo_index(enum tern_coll_kind kind, const struct tern_coll_algo *algo);
/* The same for the algorithm that `build` builds (0 if none). */
int tern_coll_builder_index(enum tern_coll_kind kind, tern_coll_builder *build);
const char *tern_coll_algo_name(enum tern_coll_kind kind, int index);

/* Helpers for builders. */

/* Byte address of element `i` of a buffer of type dt. */
static inline void *tern_coll_elem(const void *buf, size_t i, const struct tern_dtype *dt)
{
    return (char *)buf + (ptrdiff_t)i * (ptrdiff_t)dt->extent;
}

/* 1 if the reduction op may be applied in any order. */
int tern_coll_commutative(const struct tern_coll_args *a);

/* Reduce_scatter(_block): the elements of rank i's block of the vector
 * (recvcounts[i], or recvcount for the block form). */
static inline size_t tern_coll_rs_block(const struct tern_coll_args *a, int i)
{
    return a->kind == TERN_COLL_REDUCE_SCATTER ? a->rcounts[i] : a->rcount;
}

/* Splitting n elements into `parts` pieces at element boundaries: the
 * first n % parts pieces hold one element more than the others, and piece
 * i starts at element tern_coll_part_off(n, parts, i) (i == parts gives n). */
static inline size_t tern_coll_part_off(size_t n, int parts, int i)
{
    size_t q = n / (size_t)parts, rem = n % (size_t)parts, k = (size_t)i;
    return k * q + (k < rem ? k : rem);
}

/* The builders, one per file. */
tern_coll_builder tern_coll_barrier_dissemination;
tern_coll_builder tern_coll_bcast_binomial;
tern_coll_builder tern_coll_allreduce_recursive_doubling;
tern_coll_builder tern_coll_allreduce_ring;
tern_coll_builder tern_coll_allreduce_rabenseifner;
tern_coll_builder tern_coll_allreduce_reduce_bcast;
tern_coll_builder tern_coll_reduce_scatter_ring;
tern_coll_builder tern_coll_reduce_scatter_reduce_scatterv;
tern_coll_builder tern_coll_scan_recursive_doubling;
tern_coll_builder tern_coll_scan_chain;
tern_coll_builder tern_coll_scan_hillis_steele;
tern_coll_builder tern_coll_exscan_recursive_doubling;
tern_coll_builder tern_coll_exscan_chain;
tern_coll_builder tern_coll_exscan_hillis_steele;
tern_coll_builder tern_coll_allgather_ring;
tern_coll_builder tern_coll_allgather_recursive_doubling;
int tern_coll_allgather_recursive_doubling_usable(const struct tern_coll_args *a);
/* Bruck serves Allgather and Allgatherv. */
tern_coll_builder tern_coll_allgather_bruck;
tern_coll_builder tern_coll_allgatherv_ring;
/* Pairwise and linear serve Alltoall, Alltoallv and Alltoallw. */
tern_coll_builder tern_coll_alltoall_pairwise;
tern_coll_builder tern_coll_alltoall_linear;
tern_coll_builder tern_coll_alltoall_bruck;

/* The rooted collectives: Bcast, Reduce, Gather(v), Scatter(v). */
tern_coll_builder tern_coll_bcast_scatter_allgather;
tern_coll_builder tern_coll_reduce_binomial;
tern_coll_builder tern_coll_reduce_rabenseifner;
tern_coll_builder tern_coll_gather_binomial;
tern_coll_builder tern_coll_gather_linear;
tern_coll_builder tern_coll_gatherv_linear;
tern_coll_builder tern_coll_scatter_binomial;
tern_coll_builder tern_coll_scatter_linear;
tern_coll_builder tern_coll_scatterv_linear;

/* Node-aware (two-level) algorithms; nodes.h has what they share. */
tern_coll_builder tern_coll_barrier_two_level;
tern_coll_builder tern_coll_bcast_two_level;
tern_coll_builder tern_coll_reduce_two_level;
tern_coll_builder tern_coll_allreduce_two_level;
tern_coll_builder tern_coll_allgather_two_level;
tern_coll_builder tern_coll_gather_two_level;
tern_coll_builder tern_coll_scatter_two_level;
tern_coll_builder tern_coll_alltoall_two_level;
tern_coll_builder tern_coll_allgatherv_two_level;
tern_coll_builder tern_coll_gatherv_two_level;
tern_coll_builder tern_coll_scatterv_two_level;
/* Reduce_scatter(_block); Scan and Exscan, when ranks are placed host by
 * host. */
tern_coll_builder tern_coll_reduce_scatter_two_level;
tern_coll_builder tern_coll_scan_two_level;
tern_coll_builder tern_coll_exscan_two_level;

/* The neighbourhood collectives, all five forms. */
tern_coll_builder tern_coll_neighbor_linear;

/* Through shared memory, on one host; shm.h has what they share. */
tern_coll_builder tern_coll_barrier_shm;
tern_coll_runner tern_coll_barrier_shm_run;
tern_coll_builder tern_coll_bcast_shm;
tern_coll_runner tern_coll_bcast_shm_run;
tern_coll_builder tern_coll_reduce_shm;
tern_coll_runner tern_coll_reduce_shm_run;
tern_coll_builder tern_coll_allgather_shm;
tern_coll_runner tern_coll_allgather_shm_run;
tern_coll_builder tern_coll_allreduce_shm;
tern_coll_runner tern_coll_allreduce_shm_run;
int tern_coll_allreduce_shm_usable(const struct tern_coll_args *a);
/* select_reduce.c: the automatic choice of Allreduce among the algorithms
 * that use messages only (the shm one's way for long vectors). */
const struct tern_coll_algo *tern_coll_allreduce_messages(const struct tern_coll_args *a);
/* The same for Bcast and Reduce. */
const struct tern_coll_algo *tern_coll_bcast_messages(const struct tern_coll_args *a);
const struct tern_coll_algo *tern_coll_reduce_messages(const struct tern_coll_args *a);
/* select_move.c: Allgather's or Allgatherv's, by a->kind. */
const struct tern_coll_algo *tern_coll_allgather_messages(const struct tern_coll_args *a);

#endif
