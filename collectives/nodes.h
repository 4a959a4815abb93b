/*
 * Where a communicator's ranks live, for the node-aware (two-level)
 * algorithms: which host each rank is on, each host's leader, and the
 * ranks that share this rank's host.
 *
 * A two-level algorithm works in phases: the ranks of each host among
 * themselves (over shared memory), then one rank per host (the leaders,
 * over the network), then each host again. Each phase runs an ordinary
 * algorithm, written for a whole communicator, over a subset of the ranks
 * through the schedule's view (sched.h): tern_coll_phase() below.
 *
 * The layout comes from the launcher's node map (TERN_NODE_MAP, the host of
 * every world rank), so computing it takes no messages. Hosts are numbered
 * in the order of their lowest rank in the communicator, and a host's
 * leader is its lowest rank; rooted collectives put the root in its host's
 * place among the leaders (tern_coll_leaders).
 */
#ifndef TERN_COLLECTIVES_NODES_H
#define TERN_COLLECTIVES_NODES_H

#include "collectives/algo.h"

struct tern_comm;

struct tern_coll_nodes {
    int nnodes;         /* Hosts the communicator spans. */
    int node;           /* This rank's host, 0 .. nnodes - 1. */
    int nlocal, lrank;  /* Ranks on this host; this rank's index among them. */
    int max_local;      /* The most ranks of the communicator on one host. */
    int *node_of;       /* [size]: the host of each rank. */
    int *leader;        /* [nnodes]: the lowest rank of each host. */
    int *local;         /* [nlocal]: the ranks on this host, ascending. */
    /* Host order: host 0's ranks ascending, then host 1's, and so on; the
     * gathering algorithms keep everyone's blocks packed in this order, so
     * that each host's blocks are one piece. */
    int *pos;           /* [size]: each rank's place in host order. */
    int *first;         /* [nnodes + 1]: the place of each host's first
                           rank; first[nnodes] is the size. */
    int host_ordered;   /* Whether host order is rank order (pos[r] == r). */
};

/* The layout of comm, computed on first use and kept with the
 * communicator (one allocation, freed with it); NULL if memory runs out,
 * in which case tern_coll_run() fails the call, so the choice functions
 * that read it never see NULL there. */
const struct tern_coll_nodes *tern_coll_nodes(struct tern_comm *comm);

/* Whether a two-level algorithm can run this call and differs from a flat
 * one: the call covers the whole communicator (not a phase of another
 * two-level call), which spans two hosts or more and has two ranks or more
 * on one of them. */
int tern_coll_two_level_usable(const struct tern_coll_args *a);

/* The leaders for a call rooted at `root`: leader[] with the root in its
 * host's place (scratch of the schedule; NULL if memory runs out). */
int *tern_coll_leaders(struct tern_sched *s, const struct tern_coll_nodes *nd, int root);

/* The index in nd->local of this host's rank that takes part in the
 * leaders' phase of a call rooted at `root`: the root on its own host, the
 * leader (index 0) elsewhere. */
int tern_coll_local_root(const struct tern_coll_nodes *nd, int root);

/* The blocks of the two-level Allgather, Gather, Scatter and Alltoall,
 * one per rank: `count` elements of dt, packed into count * dt->size
 * bytes in host order.
 *
 * tern_coll_host_packed: where the blocks of all ranks are packed: buf
 * itself, which holds them in rank order, when that is host order and
 * the blocks are contiguous; otherwise scratch of the schedule (NULL if
 * memory runs out).
 *
 * tern_coll_host_permute: adds the copies from packed to buf (to_buf) or
 * back; none when packed is buf. Ranks whose blocks are neighbours in
 * both orders move as one copy. */
char *tern_coll_host_packed(struct tern_sched *s, const struct tern_coll_nodes *nd,
                            void *buf, size_t count, const struct tern_dtype *dt);
void tern_coll_host_permute(struct tern_sched *s, const struct tern_coll_nodes *nd,
                            void *buf, size_t count, const struct tern_dtype *dt,
                            char *packed, int to_buf);

/* The hosts' pieces of the packed blocks, for the leaders' phase (a v
 * form over one rank per host): counts[k] and displs[k] in bytes, with
 * `bytes` per rank. Scratch of the schedule; 0, or -1 if memory runs
 * out. */
int tern_coll_host_pieces(struct tern_sched *s, const struct tern_coll_nodes *nd,
                          size_t bytes, size_t **counts, size_t **displs);

/* What a rank of a two-level Gather or Scatter works with (below). */
struct tern_coll_rooted {
    int *leaders;               /* tern_coll_leaders() of the root. */
    int lroot;                  /* tern_coll_local_root() of the root. */
    size_t bytes;               /* One block. */
    char *packed;               /* The root: all blocks in host order. */
    char *piece;                /* The root and the ranks that gather or
                                   scatter for their host: its blocks. */
    size_t *counts, *displs;    /* The root: tern_coll_host_pieces(). */
};

/* Sets up *r for a two-level Gather or Scatter in which each block has
 * `bytes` bytes as this rank sees it; buf, count and dt are the root's
 * buffer in rank order (Gather: receive, Scatter: send), only read at the
 * root. Returns 0; -1 when there is nothing to move, or when memory runs
 * out (the schedule then holds the error). */
int tern_coll_rooted_setup(struct tern_sched *s, const struct tern_coll_nodes *nd,
                           const struct tern_coll_args *a, size_t bytes, void *buf,
                           size_t count, const struct tern_dtype *dt,
                           struct tern_coll_rooted *r);

/* The blocks of the two-level Allgatherv, Gatherv and Scatterv: rank r's
 * counts[r] elements of dt at displs[r] (in elements) of buf, packed into
 * bytes in host order (nodes.h). tern_coll_host_vblocks fills *v from the
 * arrays of the whole communicator, which only a rank that knows them all
 * may call (every rank for Allgatherv, the root for Gatherv and Scatterv);
 * it returns 0, or -1 if memory runs out (the schedule then holds the
 * error) or when there is nothing to move and buf is NULL. */
struct tern_coll_vblocks {
    /* The user's layout, read while building. */
    void *buf;
    const size_t *ucounts, *udispls;
    const struct tern_dtype *dt;
    size_t *at;                 /* [size]: each rank's block among the packed bytes. */
    size_t *counts, *displs;    /* [nnodes]: the hosts' pieces, in bytes. */
    size_t total;               /* Bytes of all blocks. */
    /* Where the blocks are packed: in buf itself when the blocks lie there
     * back to back in host order and dt is contiguous (no copies then);
     * otherwise scratch of the schedule. */
    char *packed;
    int in_buf;                 /* Whether packed lies in buf. */
};

int tern_coll_host_vblocks(struct tern_sched *s, const struct tern_coll_nodes *nd, void *buf,
                           const size_t *counts, const size_t *displs,
                           const struct tern_dtype *dt, struct tern_coll_vblocks *v);

/* Adds the copies from v->packed to the user's buffer (to_buf) or back,
 * leaving out the ranks of host `skip` (-1: none); none when the packed
 * blocks are the user's buffer. */
void tern_coll_host_vpermute(struct tern_sched *s, const struct tern_coll_nodes *nd,
                             const struct tern_coll_vblocks *v, int skip, int to_buf);

/* The entries of a per-rank array (counts or displacements of a v form)
 * for this host's ranks, in their order: scratch of the schedule, NULL if
 * memory runs out. */
size_t *tern_coll_local_entries(struct tern_sched *s, const struct tern_coll_nodes *nd,
                                const size_t *arr);

/* Gatherv and Scatterv on a host without the root. There only each rank
 * knows the size of its own block, so the host's ranks first gather those
 * sizes at the leader; once they arrived, a step of the leader lays out the
 * host's piece (counts, displs, total, piece below) and calls `then`, which
 * adds the leader's remaining steps. Those come at the end of the
 * schedule, so tern_coll_host_sizes must be the last thing the leader's
 * builder adds. */
struct tern_coll_vhost {
    struct tern_coll_args a;    /* The call's arguments (this rank's own
                                   buffer only: the user's arrays may be
                                   gone when `then` runs). */
    int *leaders;               /* tern_coll_leaders() of the root. */
    size_t mine;                /* This rank's bytes. */
    size_t *counts, *displs;    /* The leader: [nlocal], in bytes, the host's
                                   blocks back to back in the order of its
                                   ranks. */
    size_t total;               /* The leader: the host's bytes. */
    char *piece;                /* The leader: scratch of `total` bytes. */
    void (*then)(struct tern_sched *s, const struct tern_coll_nodes *nd,
                 struct tern_coll_vhost *v);
};

/* Adds the gathering of the sizes (`mine` bytes from this rank), ending
 * its round, so that the block a rank sends to its leader afterwards
 * cannot be taken for its size; at the leader, also the step that runs
 * `then` (then's steps get a round of their own). Returns 0, or -1 if
 * memory runs out. */
int tern_coll_host_sizes(struct tern_sched *s, const struct tern_coll_nodes *nd,
                         const struct tern_coll_args *a, int *leaders, size_t mine,
                         void (*then)(struct tern_sched *s, const struct tern_coll_nodes *nd,
                                      struct tern_coll_vhost *v));

/* Adds the steps of builder b run over the ranks view[0 .. n - 1] of the
 * communicator, this rank being view[me]; with b NULL, of the algorithm
 * that the automatic selection picks for n ranks (tern_coll_choose). sub
 * holds the call's arguments for the phase (its root an index into view;
 * size and rank are set here). The phase's first steps join the current
 * round: a phase that uses what the previous one received or computed
 * must follow a tern_sched_round(). */
void tern_coll_phase(struct tern_sched *s, struct tern_coll_args *sub, const int *view,
                     int n, int me, tern_coll_builder *b);

#endif
