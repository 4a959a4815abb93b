/*
 * Collective operations, as the rest of the library sees them.
 *
 * Every collective runs on the communicator's hidden context (comm->ctx + 1),
 * so its messages never match the user's receives, and each call takes the
 * next value of comm->coll_seq as its tag, so collectives in flight on one
 * communicator (nonblocking ones) never match each other's messages.
 *
 * Each algorithm is a builder that fills a schedule (collectives/sched.h);
 * the engine runs the schedule, so the blocking call (build, run, wait) and
 * the nonblocking one (build, start, return the request) are the same code.
 * select.c picks the algorithm for a call.
 *
 * Arguments arrive checked by libmpi/api/; MPI_IN_PLACE arrives as the
 * standard's value and each collective applies the standard's meaning.
 * Buffers are (pointer, count, datatype) triples in the user's layout; any
 * datatype the p2p core can send works. Calls return 0 or a TERN_E* code.
 *
 * Arguments (struct tern_coll_args; the API layer has checked and converted
 * them):
 * - counts are size_t; displacements of the v forms are in elements of the
 *   type (as MPI says), those of Alltoallw in bytes;
 * - sbuf == MPI_IN_PLACE is passed through: each builder applies the
 *   standard's meaning of in-place for its collective;
 * - on non-root ranks of rooted collectives, the root-only arguments are
 *   whatever the user passed and must not be used.
 *
 * The blocking functions below are also what other parts of the library use
 * internally (communicator creation needs allgather and allreduce).
 */
#ifndef TERN_COLLECTIVES_COLL_H
#define TERN_COLLECTIVES_COLL_H

#include <stddef.h>

#include <mpi.h>

#include "collectives/signature.h"

struct tern_comm;
struct tern_dtype;
struct tern_op;
struct tern_request;

enum tern_coll_kind {
    TERN_COLL_BARRIER,
    TERN_COLL_BCAST,
    TERN_COLL_REDUCE,
    TERN_COLL_ALLREDUCE,
    TERN_COLL_GATHER,
    TERN_COLL_GATHERV,
    TERN_COLL_SCATTER,
    TERN_COLL_SCATTERV,
    TERN_COLL_ALLGATHER,
    TERN_COLL_ALLGATHERV,
    TERN_COLL_ALLTOALL,
    TERN_COLL_ALLTOALLV,
    TERN_COLL_ALLTOALLW,
    TERN_COLL_REDUCE_SCATTER,
    TERN_COLL_REDUCE_SCATTER_BLOCK,
    TERN_COLL_SCAN,
    TERN_COLL_EXSCAN,
    /* Over the neighbours of a process topology (libmpi/core/topo.h). */
    TERN_COLL_NEIGHBOR_ALLGATHER,
    TERN_COLL_NEIGHBOR_ALLGATHERV,
    TERN_COLL_NEIGHBOR_ALLTOALL,
    TERN_COLL_NEIGHBOR_ALLTOALLV,
    TERN_COLL_NEIGHBOR_ALLTOALLW,
    TERN_COLL_NKINDS
};

struct tern_coll_args {
    enum tern_coll_kind kind;
    struct tern_comm *comm;
    /* The ranks taking part and this rank's index among them: the
     * communicator's size and rank (tern_coll_run sets them), or a subset's
     * while a node-aware algorithm runs one of its phases (sched.h, view).
     * The arrays of the v and w forms are indexed by the rank among those
     * taking part: a phase of a v form gets arrays of its own (the
     * two-level Gather's Gatherv among the hosts, nodes.h), never the
     * user's. */
    int size, rank;
    const void *sbuf;
    void *rbuf;
    size_t scount, rcount;
    const struct tern_dtype *sdt, *rdt;
    /* The v and w forms, and Reduce_scatter's recvcounts (rcounts). */
    const size_t *scounts, *sdispls, *rcounts, *rdispls;
    const struct tern_dtype *const *sdts, *const *rdts;
    const struct tern_op *op;
    int root;
    /* The MPI function ("MPI_Bcast"), for the report of a long wait; NULL
     * for the collectives the library runs inside other calls. */
    const char *call;
    /* The call's number, tag and root (signature.h), which its messages
     * and its shared-memory operation carry: tern_coll_run sets it. */
    struct tern_coll_stamp stamp;
};

/* Starts a for a call of `kind` with buffers sbuf and rbuf (and root, for
 * the rooted kinds): every other field 0 or NULL. Field by field, not with
 * an initializer, which would zero the whole struct with a `rep stosq`
 * whose start-up alone cost about 30 ns per call on the reference
 * machine's AMD cores (7% of a 2-rank 8-byte Allreduce). A new field of
 * the struct must be set here too. */
static inline void tern_coll_args_init(struct tern_coll_args *a, enum tern_coll_kind kind,
                                       const void *sbuf, void *rbuf, int root)
{
    a->kind = kind;
    a->comm = NULL;
    a->size = a->rank = 0;
    a->sbuf = sbuf;
    a->rbuf = rbuf;
    a->scount = a->rcount = 0;
    a->sdt = a->rdt = NULL;
    a->scounts = a->sdispls = a->rcounts = a->rdispls = NULL;
    a->sdts = a->rdts = NULL;
    a->op = NULL;
    a->root = root;
    a->call = NULL;
}

/* Whether a collective of this kind has a root. */
static inline int tern_coll_rooted(enum tern_coll_kind k)
{
    return k == TERN_COLL_BCAST || k == TERN_COLL_REDUCE || k == TERN_COLL_GATHER ||
           k == TERN_COLL_GATHERV || k == TERN_COLL_SCATTER || k == TERN_COLL_SCATTERV;
}

/* Runs a collective over the whole communicator (it sets a->size and
 * a->rank from a->comm): blocking when req is NULL, else *req is the
 * request of the nonblocking call. TERN_ENOTSUP if the collective has no
 * algorithm. */
int tern_coll_run(struct tern_coll_args *a, struct tern_request **req);

/* Prepares comm, whose collectives of this kind will all be nonblocking
 * (a persistent collective's own communicator), as its first blocking
 * collective would: for the kinds with a shared-memory algorithm (Barrier,
 * Bcast, Reduce, Allreduce, Allgather, Allgatherv) it agrees on a slot
 * (shm.h), which nonblocking calls never do. A blocking, collective call
 * over comm. */
int tern_coll_prepare(struct tern_comm *comm, enum tern_coll_kind kind);

/* A blocking barrier in shared memory without the general path's
 * selection and argument block (barrier_shm.c): 1 once it ran the
 * barrier, its result (0 or the call's error) in *rc, or 0, having done
 * nothing, when comm needs tern_coll_run (no slot agreed yet, an
 * operation pending, an algorithm forced, verbose output). */
int tern_coll_barrier_quick(struct tern_comm *comm, const char *call, int *rc);

/* At MPI_Finalize, once every rank has arrived: reports, per
 * communicator, a collective message that no call of this rank received,
 * or inputs in shared memory that name different calls (leftovers.c). */
void tern_coll_report_leftovers(void);

/* Reads TERN_COLL_<NAME> for every collective (at MPI_Init; tern-info). */
void tern_coll_read_tunables(void);

/* At MPI_Init, once the transports are up: reads the tunables and has
 * the idle waits answer inquiries about completed calls (notice.h). */
void tern_coll_init(void);

/* At MPI_Finalize, before its fence: this rank makes no more collective
 * calls; it tells a rank that asks about one it never made (notice.h), and
 * the members of its shared-memory slots, which do not ask (shm_check.c). */
void tern_coll_finalizing(void);

/* Notes, as comm is destroyed, what an answer to an inquiry about one of
 * its collective calls needs (notice.h). */
void tern_coll_retire(const struct tern_comm *comm);

/* Whether the standard defines collective `kind` on an intercommunicator
 * (not Scan, Exscan, the neighbourhood collectives; inter.h). */
int tern_coll_inter_defined(enum tern_coll_kind kind);

/* Shortcuts for blocking calls inside the library. */

int tern_coll_bcast(void *buf, size_t count, const struct tern_dtype *dt,
                    int root, struct tern_comm *comm);
int tern_coll_reduce(const void *sbuf, void *rbuf, size_t count,
                     const struct tern_dtype *dt, const struct tern_op *op,
                     int root, struct tern_comm *comm);
int tern_coll_allreduce(const void *sbuf, void *rbuf, size_t count,
                        const struct tern_dtype *dt, const struct tern_op *op,
                        struct tern_comm *comm);
int tern_coll_allgather(const void *sbuf, size_t scount, const struct tern_dtype *sdt,
                        void *rbuf, size_t rcount, const struct tern_dtype *rdt,
                        struct tern_comm *comm);

#endif
