/*
 * Communicators: intracommunicators, and intercommunicators (intercomm.c),
 * which add a remote group and an intracommunicator over their local group.
 *
 * A communicator is a group (whose world[] array comm->world points into),
 * this process's rank in it, its error handler, its name, its cached
 * attributes, and three context ids:
 *
 *   ctx        point-to-point traffic of the user;
 *   ctx + 1    its collectives (collectives/), tagged with coll_seq++;
 *   gctx       the scratch context of MPI_Comm_create_group called with this
 *              communicator as the parent, tagged with the user's tag.
 *
 * Context ids. MPI_COMM_WORLD has ctx 0 (and 1), MPI_COMM_SELF ctx 2 (and
 * 3); their scratch contexts are 4 and 5. Every other communicator takes
 * three consecutive ids M, M+1, M+2 (ctx = M, gctx = M + 2). Each process
 * keeps next_ctx, the smallest id it has never used (6 at start). A creation
 * that is collective over a parent gathers every member's next_ctx, takes
 * the maximum M, and every member then sets next_ctx = M + 3;
 * MPI_Comm_create_group does the same among the group's members only, over
 * point-to-point messages on the parent's gctx. Ids are therefore
 * never reused on any process, and every member of a new communicator
 * receives on ids no other communicator of that process ever had, whatever
 * the order and overlap of creations: a message can only match in the
 * communicator it was sent on (a message that arrives before its receiver
 * has created the communicator waits in the unexpected queue under that id).
 * The processes of the parent outside the group of an MPI_Comm_create_group
 * call neither take part nor learn of it; that is harmless, because an id
 * only has to be fresh on the processes that receive on it. MPI_Comm_create
 * gives disjoint groups the same ids, which is harmless for the same reason.
 * MPI_Comm_idup cannot agree in one step and takes its ids from a space of
 * its own, from TERN_CTX_NB_BASE up, with a counter of its own (next_nb_ctx;
 * comm_idup.c says why and how).
 *
 * Lifetime. A user communicator is a heap object whose handle is its
 * address. It counts references: one for the user's handle, one for each
 * request that names it (tern_request_hold_comm) and for each nonblocking
 * operation in flight. MPI_Comm_free runs the attributes' delete callbacks,
 * marks the object TERN_MAGIC_DEAD (so the handle is rejected from then on)
 * and drops the user's reference. When the last reference goes the object
 * moves to a graveyard and its memory is reclaimed at the next creation or
 * free, or at MPI_Finalize, never while a caller may still be looking at it
 * (the completion of a failed request reports through its communicator's
 * error handler right after dropping the request's reference). A reference
 * taken again before that (a nonblocking operation posting its next step)
 * takes the object back out of the graveyard.
 * MPI_COMM_WORLD and MPI_COMM_SELF are static; counting their references
 * does nothing.
 *
 * Errors: 0 or a negative TERN_E* code.
 */
#ifndef TERN_CORE_COMM_H
#define TERN_CORE_COMM_H

#include <stdint.h>

#include <mpi.h>

#include "collectives/signature.h"
#include "libmpi/core/attr.h"
#include "libmpi/core/group.h"

struct tern_errhandler;
struct tern_group;
struct tern_coll_nodes;
struct tern_coll_shm;
struct tern_topo;
struct tern_request;

#define TERN_CTX_STEP 3   /* Context ids each new communicator takes. */
/* An intercommunicator takes three times as many: its own and its two
 * hidden intracommunicators' (intercomm.c). */
#define TERN_INTER_CTX_STEPS 3
#define TERN_CTX_NB_BASE (1u << 30) /* First id of MPI_Comm_idup's space. */

struct tern_comm {
    uint32_t magic;
    uint32_t ctx;
    uint64_t coll_seq;              /* Number of the next collective call. */
    int rank;
    int size;
    int *world;                     /* world[r] = world rank of rank r. */
    MPI_Comm handle;                /* The handle users see. */
    struct tern_errhandler *errh;
    char name[MPI_MAX_OBJECT_NAME]; /* "" until set, for user communicators. */

    uint32_t gctx;                  /* Scratch context of Comm_create_group. */
    int refs;
    struct tern_group *group;       /* Owns world[]. */
    struct tern_attr_list attrs;
    struct tern_comm *prev, *next;  /* Live (or graveyard) list. */
    int where;                      /* Which of the two lists, if any. */
    /* A collective call failed on this rank: messages of it may stay
     * unreceived (collectives/leftovers.c). */
    int coll_failed;
    /* The host layout of collectives/nodes.h, computed on first use: one
     * allocation, freed with the communicator. */
    struct tern_coll_nodes *nodes;
    /* Its slot for collectives in shared memory (collectives/shm.h), once
     * its ranks agreed on one; freed with it. */
    struct tern_coll_shm *shm;
    /* Its process topology (topo.h), NULL if none; freed with it. */
    struct tern_topo *topo;
    /* The stamps of its last collective calls on this rank, call number
     * seq at index seq % TERN_COLL_RECENT, for the answers to inquiries
     * that come after a call completed (collectives/notice.h). */
    struct tern_coll_stamp coll_recent[TERN_COLL_RECENT];
    /* An intercommunicator (intercomm.c): group, rank and size above are
     * those of the local group; `remote` is the remote group, whose ranks
     * point-to-point calls name, `local` an intracommunicator over the
     * local group for the library's own agreements, and `both` one over
     * both groups (the group whose rank 0 has the lower world rank
     * first), on which its collective calls run. NULL all three in an
     * intracommunicator. */
    struct tern_group *remote;
    struct tern_comm *local, *both;
};

/* The world rank of the process that rank r of c names in a send: r of the
 * remote group of an intercommunicator, else of c's group. */
static inline int tern_comm_peer(const struct tern_comm *c, int r)
{
    return c->remote ? c->remote->world[r] : c->world[r];
}

/* How many ranks a send or receive on c may name. */
static inline int tern_comm_peers(const struct tern_comm *c)
{
    return c->remote ? c->remote->size : c->size;
}

/* Sets up the predefined communicators from the world rank and size. */
int tern_comm_init(int world_rank, int world_size);
/* Deletes MPI_COMM_SELF's attributes (then MPI_COMM_WORLD's), newest first,
 * through their delete callbacks: the first thing MPI_Finalize does. */
int tern_comm_finalize_attrs(void);
/* Frees every communicator, group and keyval left. */
void tern_comm_finalize(void);

/* The communicator behind a handle, or NULL if it is not a valid one. */
struct tern_comm *tern_comm_get(MPI_Comm h);

struct tern_comm *tern_comm_world(void);
struct tern_comm *tern_comm_self(void);

/* Calls fn for MPI_COMM_WORLD, MPI_COMM_SELF and every communicator not
 * destroyed yet (also one that the program freed and whose memory is not
 * reclaimed yet). */
void tern_comm_each(void (*fn)(struct tern_comm *c, void *arg), void *arg);

/* The name for messages: the user's name, or "an unnamed communicator". */
const char *tern_comm_label(const struct tern_comm *c);

void tern_comm_retain(struct tern_comm *c);
void tern_comm_release(struct tern_comm *c);

/* Context ids (see above): this process's next_ctx, and the update after a
 * creation that agreed on M. TERN_EOTHER when the ids are exhausted. */
uint32_t tern_comm_next_ctx(void);
int tern_comm_take_ctx(uint32_t m);
/* The same for MPI_Comm_idup's space: next_nb_ctx, and taking m there. */
uint32_t tern_comm_next_nb_ctx(void);
int tern_comm_take_nb_ctx(uint32_t m);

/* A new communicator over group g (which it retains) with ids m, m+1, m+2,
 * the parent's error handler, no name and no attributes; this process must
 * be a member of g. */
int tern_comm_new(const struct tern_comm *parent, struct tern_group *g, uint32_t m,
                  struct tern_comm **out);

/* Gives c the ids from m on: m to m + 2, and for an intercommunicator its
 * hidden intracommunicators the next TERN_CTX_STEP each (MPI_Comm_idup
 * creates its communicator before the ids are agreed). */
void tern_comm_set_ids(struct tern_comm *c, uint32_t m);

/* Drops a communicator the user never saw (its creation failed half-way,
 * or the library made it for itself): no callbacks run. */
void tern_comm_discard(struct tern_comm *c);

/* MPI_Comm_free: delete callbacks, then the user's reference. On a callback
 * error the communicator stays valid. Predefined ones give TERN_ECOMM. */
int tern_comm_free(struct tern_comm *c);

/* Creation (comm_create.c). Collective over parent, except create_group
 * (over g's members only). *out is NULL where the standard gives
 * MPI_COMM_NULL. */
int tern_comm_dup(struct tern_comm *parent, struct tern_comm **out);
/* The library's own duplicate: new context ids and the topology, but no
 * attributes (no user callback runs) and no name. */
int tern_comm_dup_bare(struct tern_comm *parent, struct tern_comm **out);
/* MPI_Comm_idup (comm_idup.c): *out exists at once and gets its context
 * ids when *req completes. */
int tern_comm_idup(struct tern_comm *parent, struct tern_comm **out,
                   struct tern_request **req);
int tern_comm_split(struct tern_comm *parent, int color, int key,
                    struct tern_comm **out);
/* MPI_COMM_TYPE_SHARED and the hardware split types; see comm_create.c. */
int tern_comm_split_type(struct tern_comm *parent, int type, int key,
                         struct tern_comm **out);
int tern_comm_create(struct tern_comm *parent, struct tern_group *g,
                     struct tern_comm **out);
int tern_comm_create_group(struct tern_comm *parent, struct tern_group *g, int tag,
                           struct tern_comm **out);
/* *result = MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL. */
int tern_comm_compare(const struct tern_comm *a, const struct tern_comm *b, int *result);

/* Intercommunicators (intercomm.c). MPI_Intercomm_create, collective over
 * local (an intracommunicator); peer_comm, remote_leader, tag and
 * leader_rc (the leader's verdict on those: an error there fails the call
 * on every local member) matter on the local leader only. TERN_ECOMM if
 * the two groups share a process. */
int tern_intercomm_create(struct tern_comm *local, int local_leader,
                          struct tern_comm *peer_comm, int remote_leader, int tag,
                          int leader_rc, struct tern_comm **out);
/* MPI_Intercomm_merge: the group whose members passed high = 0 comes
 * first (the one whose rank 0 has the lower world rank when both passed
 * the same). */
int tern_intercomm_merge(struct tern_comm *inter, int high, struct tern_comm **out);
/* The duplicate of an intercommunicator (new context ids, no attributes:
 * tern_comm_dup copies those). */
int tern_intercomm_dup(struct tern_comm *inter, struct tern_comm **out);
/* The same without an agreement, on the ids m on (tern_comm_set_ids). */
int tern_intercomm_dup_on(struct tern_comm *inter, uint32_t m, struct tern_comm **out);
/* MPI_Comm_split and MPI_Comm_create of an intercommunicator (g: a group
 * of the local group's processes); *out NULL for MPI_COMM_NULL. */
int tern_intercomm_split(struct tern_comm *inter, int color, int key, struct tern_comm **out);
int tern_intercomm_create_from(struct tern_comm *inter, const struct tern_group *g,
                               struct tern_comm **out);

#endif
