/*
 * Intercommunicators: MPI_Intercomm_create, MPI_Intercomm_merge and the
 * duplicate of one (comm.h).
 *
 * An intercommunicator is a communicator whose group, rank and size are
 * those of its local group, with the remote group beside them: a send or
 * receive names a rank of the remote group (tern_comm_peer), and the
 * envelope carries the sender's rank in its own group, which is the rank
 * the receiver's remote group gives it. It also keeps two
 * intracommunicators: one over the local group (`local`), over which its
 * own agreements run, and one over both groups (`both`: the group whose
 * rank 0 has the lower world rank first), on which its collective calls
 * run (collectives/inter.h).
 *
 * Context ids (comm.h): both groups must receive on ids that none of their
 * communicators ever had. Each group finds the largest next_ctx of its
 * members (an allreduce over the local intracommunicator), the two
 * leaders swap theirs, and M is the larger: the intercommunicator takes M,
 * M + 1 and M + 2, its local intracommunicator M + 3 to M + 5 and the one
 * over both groups M + 6 to M + 8. The two groups' local
 * intracommunicators share ids, which is harmless: their members differ
 * (comm.h says why that suffices).
 *
 * The leaders talk over the peer communicator with the user's tag for
 * MPI_Intercomm_create, and over the intercommunicator's collective
 * context (ctx + 1) for a merge or a duplicate, tagged with its call
 * number. Cost: an allreduce and a broadcast within each group and one
 * exchange between the leaders; MPI_Intercomm_create swaps the groups'
 * members too (one more exchange and broadcast of a group's size).
 *
 * MPI_Comm_split and MPI_Comm_create of an intercommunicator gather every
 * process's next_ctx, color and key over the communicator over both
 * groups, as comm_create.c does over a parent: each side of a new
 * intercommunicator is the side's processes with one color, by key and
 * then rank; a color that one side lacks gives MPI_COMM_NULL.
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "collectives/coll.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/group.h"
#include "libmpi/core/op.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

/* What each side tells the other, as MPI_INTs. */
struct side {
    int32_t next_ctx;   /* The largest next_ctx of its members. */
    int32_t size;       /* Its size. */
    int32_t high;       /* MPI_Intercomm_merge's high (0 or 1). */
    int32_t status;     /* In the broadcast: 0, or the leader's error. */
};

#define SIDE_INTS ((int)(sizeof(struct side) / sizeof(int32_t)))

/* Sends nout ints to rank `peer` of via and receives nin from it, on
 * context ctx with `tag`. */
static int swap(const void *out, int nout, void *in, int nin, struct tern_comm *via,
                uint32_t ctx, int peer, int tag)
{
    const struct tern_dtype *dt = tern_dtype_get(MPI_INT);
    struct tern_request *s, *r;
    int rc = tern_p2p_irecv(in, (size_t)nin, dt, peer, tag, via, ctx, &r);
    if (rc)
        return rc;
    rc = tern_p2p_isend(out, (size_t)nout, dt, peer, tag, via, ctx, TERN_SEND_STANDARD, &s);
    if (rc) {
        tern_p2p_cancel(r);
        tern_p2p_wait(r);
        tern_request_free(r);
        return rc;
    }
    tern_p2p_wait(s);
    tern_p2p_wait(r);
    rc = s->error ? s->error : r->error;
    if (!rc && r->st_bytes != (size_t)nin * sizeof(int32_t))
        rc = TERN_ETRUNCATE;
    tern_request_free(s);
    tern_request_free(r);
    return rc;
}

/* Where the leader of this side reaches the other: rank `peer` of `via` on
 * context ctx with `tag` (meaningful on the leader only); an error in
 * failed (its arguments were wrong) stops the leader, which tells the
 * others. */
struct link {
    struct tern_comm *via;
    uint32_t ctx;
    int peer, tag, failed;
};

/* Agrees with the other side: fills mine->next_ctx, swaps *mine for
 * *theirs through the leaders (rank `leader` of local) and gives every
 * member theirs; then takes the ids M (*m) to M + 8. */
static int agree(struct tern_comm *local, int leader, const struct link *l,
                 struct side *mine, struct side *theirs, uint32_t *m)
{
    int32_t next = (int32_t)tern_comm_next_ctx();
    const struct tern_dtype *dt = tern_dtype_get(MPI_INT);
    int rc = tern_coll_allreduce(&next, &mine->next_ctx, 1, dt, tern_op_get(MPI_MAX), local);
    if (rc)
        return rc;
    if (local->rank == leader) {
        theirs->status = l->failed ? l->failed
                                   : swap(mine, SIDE_INTS, theirs, SIDE_INTS, l->via, l->ctx,
                                          l->peer, l->tag);
        if (!theirs->status && (theirs->size < 1 || theirs->next_ctx < 0))
            theirs->status = TERN_EPROTO;
    }
    rc = tern_coll_bcast(theirs, SIDE_INTS, dt, leader, local);
    if (!rc)
        rc = theirs->status;
    if (rc)
        return rc;
    *m = (uint32_t)(mine->next_ctx > theirs->next_ctx ? mine->next_ctx : theirs->next_ctx);
    for (int k = 0; k < TERN_INTER_CTX_STEPS && !rc; k++)
        rc = tern_comm_take_ctx(*m + (uint32_t)k * TERN_CTX_STEP);
    return rc;
}

/* The group of both sides' members, the one whose rank 0 has the lower
 * world rank first unless `first` says which (1: a). */
static int both_groups(const struct tern_group *a, const struct tern_group *b, int first,
                       struct tern_group **out)
{
    if (first < 0)
        first = a->world[0] < b->world[0];
    if (!first) {
        const struct tern_group *t = a;
        a = b;
        b = t;
    }
    int *world = malloc(sizeof(int) * ((size_t)a->size + (size_t)b->size));
    if (!world)
        return TERN_ENOMEM;
    memcpy(world, a->world, sizeof(int) * (size_t)a->size);
    memcpy(world + a->size, b->world, sizeof(int) * (size_t)b->size);
    int rc = tern_group_from_world(a->size + b->size, world, out);
    free(world);
    return rc;
}

/* The intercommunicator over group g (local) and remote with ids m to
 * m + 8, the parent's error handler. */
static int build(const struct tern_comm *parent, struct tern_group *g,
                 struct tern_group *remote, uint32_t m, struct tern_comm **out)
{
    struct tern_comm *c;
    struct tern_group *all;
    int rc = both_groups(g, remote, -1, &all);
    if (rc)
        return rc;
    if ((rc = tern_comm_new(parent, g, m, &c))) {
        tern_group_release(all);
        return rc;
    }
    tern_group_retain(remote);
    c->remote = remote;
    /* Discarding c discards these too (comm.c); tern_comm_set_ids gives
     * them their ids. */
    rc = tern_comm_new(parent, g, m, &c->local);
    if (!rc)
        rc = tern_comm_new(parent, all, m, &c->both);
    tern_group_release(all);
    if (rc) {
        tern_comm_discard(c);
        return rc;
    }
    tern_comm_set_ids(c, m);
    *out = c;
    return 0;
}

/* Whether a world rank of `world` (n of them) is one of g's. */
static int overlaps(const struct tern_group *g, const int *world, int n)
{
    for (int i = 0; i < n; i++)
        if (tern_group_rank_of(g, world[i]) != MPI_UNDEFINED)
            return 1;
    return 0;
}

int tern_intercomm_create(struct tern_comm *local, int local_leader,
                          struct tern_comm *peer_comm, int remote_leader, int tag,
                          int leader_rc, struct tern_comm **out)
{
    struct side mine = { .size = local->size }, theirs = { 0 };
    struct link l = { peer_comm, peer_comm ? peer_comm->ctx : 0, remote_leader, tag,
                      leader_rc };
    uint32_t m;
    int rc = agree(local, local_leader, &l, &mine, &theirs, &m);
    if (rc)
        return rc;
    /* The remote group's world ranks, after a status word. */
    int32_t *remote = malloc(sizeof(int32_t) * ((size_t)theirs.size + 1));
    if (!remote)
        return TERN_ENOMEM;
    if (local->rank == local_leader) {
        remote[0] = swap(local->world, local->size, remote + 1, theirs.size, l.via, l.ctx,
                         l.peer, l.tag);
        if (!remote[0] && overlaps(local->group, (const int *)remote + 1, theirs.size))
            remote[0] = TERN_ECOMM;
    }
    rc = tern_coll_bcast(remote, (size_t)theirs.size + 1, tern_dtype_get(MPI_INT),
                         local_leader, local);
    if (!rc)
        rc = remote[0];
    struct tern_group *rg = NULL;
    if (!rc)
        rc = tern_group_from_world(theirs.size, (const int *)remote + 1, &rg);
    free(remote);
    if (!rc) {
        rc = build(local, local->group, rg, m, out);
        tern_group_release(rg);
    }
    return rc;
}

/* Agreement over an existing intercommunicator: the leaders are the local
 * ranks 0, on its collective context, tagged with its call number. */
static int agree_over(struct tern_comm *inter, struct side *mine, struct side *theirs,
                      uint32_t *m)
{
    struct link l = { inter, inter->ctx + 1, 0, (int)(inter->coll_seq & TERN_COLL_SEQ_MASK), 0 };
    inter->coll_seq++;
    mine->size = inter->size;
    return agree(inter->local, 0, &l, mine, theirs, m);
}

int tern_intercomm_merge(struct tern_comm *inter, int high, struct tern_comm **out)
{
    struct side mine = { .high = high != 0 }, theirs = { 0 };
    uint32_t m;
    int rc = agree_over(inter, &mine, &theirs, &m);
    if (rc)
        return rc;
    /* Both sides order the groups alike: by high, else by their rank 0. */
    struct tern_group *g;
    rc = both_groups(inter->group, inter->remote,
                     mine.high != theirs.high ? !mine.high : -1, &g);
    if (rc)
        return rc;
    rc = tern_comm_new(inter, g, m, out);
    tern_group_release(g);
    return rc;
}

int tern_intercomm_dup_on(struct tern_comm *inter, uint32_t m, struct tern_comm **out)
{
    return build(inter, inter->group, inter->remote, m, out);
}

int tern_intercomm_dup(struct tern_comm *inter, struct tern_comm **out)
{
    struct side mine = { 0 }, theirs = { 0 };
    uint32_t m;
    int rc = agree_over(inter, &mine, &theirs, &m);
    return rc ? rc : tern_intercomm_dup_on(inter, m, out);
}

/* A process of one side of a split: its key, its rank in its group, its
 * world rank. */
struct member {
    int key, rank, world;
};

static int by_key_then_rank(const void *pa, const void *pb)
{
    const struct member *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* The group of the processes of one side (`local`: this process's) that
 * gave `color`, from the gathered records (next_ctx, color, key, rank in
 * its group) of the communicator over both groups; NULL (and 0) when
 * there is none. */
static int side_group(const struct tern_comm *inter, const int *all, int color, int local,
                      struct tern_group **out)
{
    const struct tern_comm *both = inter->both;
    int local_first = both->world[0] == inter->world[0], n = 0;
    struct member *mem = malloc(sizeof(*mem) * (size_t)both->size);
    int *world = malloc(sizeof(int) * (size_t)both->size);
    int rc = mem && world ? 0 : TERN_ENOMEM;
    for (int i = 0; !rc && i < both->size; i++) {
        int is_local = local_first ? i < inter->size : i >= inter->remote->size;
        if (is_local == local && all[4 * i + 1] == color)
            mem[n++] = (struct member){ all[4 * i + 2], all[4 * i + 3], both->world[i] };
    }
    *out = NULL;
    if (!rc && n > 0) {
        qsort(mem, (size_t)n, sizeof(*mem), by_key_then_rank);
        for (int k = 0; k < n; k++)
            world[k] = mem[k].world;
        rc = tern_group_from_world(n, world, out);
    }
    free(mem);
    free(world);
    return rc;
}

int tern_intercomm_split(struct tern_comm *inter, int color, int key, struct tern_comm **out)
{
    const struct tern_dtype *dt = tern_dtype_get(MPI_INT);
    int mine[4] = { (int)tern_comm_next_ctx(), color, key, inter->rank };
    int *all = malloc(sizeof(int) * 4 * (size_t)inter->both->size);
    *out = NULL;
    if (!all)
        return TERN_ENOMEM;
    int rc = tern_coll_allgather(mine, 4, dt, all, 4, dt, inter->both);
    uint32_t m = 0;
    for (int i = 0; !rc && i < inter->both->size; i++)
        if ((uint32_t)all[4 * i] > m)
            m = (uint32_t)all[4 * i];
    for (int k = 0; k < 3 && !rc; k++)
        rc = tern_comm_take_ctx(m + (uint32_t)k * TERN_CTX_STEP);
    struct tern_group *lg = NULL, *rg = NULL;
    if (!rc && color != MPI_UNDEFINED)
        rc = side_group(inter, all, color, 1, &lg);
    if (!rc && lg)
        rc = side_group(inter, all, color, 0, &rg);
    free(all);
    if (!rc && lg && rg)
        rc = build(inter, lg, rg, m, out);
    if (lg)
        tern_group_release(lg);
    if (rg)
        tern_group_release(rg);
    return rc;
}

int tern_intercomm_create_from(struct tern_comm *inter, const struct tern_group *g,
                               struct tern_comm **out)
{
    int in = g->rank != MPI_UNDEFINED;
    return tern_intercomm_split(inter, in ? 0 : MPI_UNDEFINED, in ? g->rank : 0, out);
}
