/*
 * Communicator objects: the predefined ones, references, context ids, and
 * freeing (see comm.h). The creation algorithms live in comm_create.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/shm.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/errhandler.h"
#include "libmpi/core/group.h"
#include "libmpi/core/object.h"
#include "libmpi/core/topo.h"
#include "tern/err.h"

static struct tern_comm world, self;
static uint32_t next_ctx = 6;
static uint32_t next_nb_ctx = TERN_CTX_NB_BASE;
static struct tern_comm *live;       /* User communicators not yet freed. */
static struct tern_comm *graveyard;  /* Freed, last reference gone. */
static int finalizing;               /* tern_comm_finalize destroys them all. */

static void setup_predefined(struct tern_comm *c, struct tern_group *g, uint32_t ctx,
                             uint32_t gctx, MPI_Comm h, const char *name)
{
    c->magic = TERN_MAGIC_COMM;
    c->ctx = ctx;
    c->gctx = gctx;
    c->coll_seq = 0;
    c->group = g;
    c->world = g->world;
    c->rank = g->rank;
    c->size = g->size;
    c->handle = h;
    c->errh = tern_errh_get(MPI_ERRORS_ARE_FATAL);
    c->refs = 1;
    c->attrs.head = c->attrs.tail = NULL;
    snprintf(c->name, sizeof(c->name), "%s", name);
}

int tern_comm_init(int world_rank, int world_size)
{
    tern_group_init(world_rank, world_size);
    int *ranks = malloc(sizeof(int) * (size_t)world_size);
    if (!ranks)
        return TERN_ENOMEM;
    for (int r = 0; r < world_size; r++)
        ranks[r] = r;
    struct tern_group *gw, *gs;
    int rc = tern_group_from_world(world_size, ranks, &gw);
    free(ranks);
    if (rc)
        return rc;
    rc = tern_group_from_world(1, &world_rank, &gs);
    if (rc) {
        tern_group_release(gw);
        return rc;
    }
    setup_predefined(&world, gw, 0, 4, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    setup_predefined(&self, gs, 2, 5, MPI_COMM_SELF, "MPI_COMM_SELF");
    next_ctx = 6;
    next_nb_ctx = TERN_CTX_NB_BASE;
    return 0;
}

int tern_comm_finalize_attrs(void)
{
    int rc = tern_attr_delete_all(&self.attrs, TERN_ATTR_COMM, (void *)MPI_COMM_SELF);
    if (!rc)
        rc = tern_attr_delete_all(&world.attrs, TERN_ATTR_COMM, (void *)MPI_COMM_WORLD);
    return rc;
}

/* Frees the memory of a communicator (its attributes are gone already, or
 * are dropped without callbacks at MPI_Finalize). */
static void destroy(struct tern_comm *c)
{
    tern_attr_drop_all(&c->attrs);
    tern_group_release(c->group);
    tern_errh_release(c->errh);
    free(c->nodes);
    tern_coll_shm_free(c);
    tern_coll_retire(c);
    tern_topo_free(c->topo);
    if (c->remote)
        tern_group_release(c->remote);
    /* An intercommunicator's own intracommunicators (at MPI_Finalize,
     * destroyed as live ones). */
    if (c->local && !finalizing)
        tern_comm_discard(c->local);
    if (c->both && !finalizing)
        tern_comm_discard(c->both);
    c->magic = TERN_MAGIC_DEAD;
    tern_obj_remove(c);
    free(c);
}

enum { IN_NONE, IN_LIVE, IN_GRAVEYARD };

static void unlink_comm(struct tern_comm **list, struct tern_comm *c)
{
    c->where = IN_NONE;
    if (c->prev)
        c->prev->next = c->next;
    else
        *list = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void push(struct tern_comm **list, struct tern_comm *c)
{
    c->where = list == &live ? IN_LIVE : IN_GRAVEYARD;
    c->prev = NULL;
    c->next = *list;
    if (*list)
        (*list)->prev = c;
    *list = c;
}

/* Reclaims the graveyard (see comm.h for why it is not done at once). */
static void reap(void)
{
    while (graveyard) {
        struct tern_comm *c = graveyard;
        unlink_comm(&graveyard, c);
        destroy(c);
    }
}

void tern_comm_finalize(void)
{
    reap();
    finalizing = 1;
    while (live) {
        struct tern_comm *c = live;
        unlink_comm(&live, c);
        destroy(c);
    }
    finalizing = 0;
    tern_attr_drop_all(&world.attrs);
    tern_attr_drop_all(&self.attrs);
    world.magic = 0;
    self.magic = 0;
    world.group = self.group = NULL;
    world.world = self.world = NULL;
    free(world.nodes);
    free(self.nodes);
    world.nodes = self.nodes = NULL;
    tern_coll_shm_free(&world);
    tern_coll_shm_free(&self);
    tern_group_finalize();
    tern_attr_finalize();
}

struct tern_comm *tern_comm_get(MPI_Comm h)
{
    struct tern_comm *c;
    if (h == MPI_COMM_WORLD)
        c = &world;
    else if (h == MPI_COMM_SELF)
        c = &self;
    else if (tern_handle_is_predefined(h) || !tern_obj_known(h))
        return NULL;
    else
        c = (struct tern_comm *)h;
    return c->magic == TERN_MAGIC_COMM ? c : NULL;
}

struct tern_comm *tern_comm_world(void)
{
    return &world;
}

struct tern_comm *tern_comm_self(void)
{
    return &self;
}

void tern_comm_each(void (*fn)(struct tern_comm *c, void *arg), void *arg)
{
    fn(&world, arg);
    fn(&self, arg);
    for (struct tern_comm *c = live; c; c = c->next)
        fn(c, arg);
    for (struct tern_comm *c = graveyard; c; c = c->next)
        fn(c, arg);
}

const char *tern_comm_label(const struct tern_comm *c)
{
    return c->name[0] ? c->name : "an unnamed communicator";
}

static int is_predefined(const struct tern_comm *c)
{
    return c == &world || c == &self;
}

void tern_comm_retain(struct tern_comm *c)
{
    /* A reference taken after the last one went (a nonblocking operation
     * that posts its next step) takes the object out of the graveyard, so it
     * is not reclaimed under that operation, and back among the live ones. */
    if (c->refs++ == 0 && c->where == IN_GRAVEYARD) {
        unlink_comm(&graveyard, c);
        push(&live, c);
    }
}

void tern_comm_release(struct tern_comm *c)
{
    if (--c->refs > 0 || is_predefined(c))
        return;
    if (c->where == IN_LIVE)
        unlink_comm(&live, c);
    push(&graveyard, c);
}

uint32_t tern_comm_next_ctx(void)
{
    return next_ctx;
}

int tern_comm_take_ctx(uint32_t m)
{
    if (m > TERN_CTX_NB_BASE - TERN_CTX_STEP)
        return TERN_EOTHER;
    next_ctx = m + TERN_CTX_STEP;
    return 0;
}

uint32_t tern_comm_next_nb_ctx(void)
{
    return next_nb_ctx;
}

/* Ids stay below INT32_MAX: the agreement carries them as MPI_INT. */
int tern_comm_take_nb_ctx(uint32_t m)
{
    if (m < TERN_CTX_NB_BASE || m > (uint32_t)INT32_MAX - TERN_CTX_STEP)
        return TERN_EOTHER;
    next_nb_ctx = m + TERN_CTX_STEP;
    return 0;
}

int tern_comm_new(const struct tern_comm *parent, struct tern_group *g, uint32_t m,
                  struct tern_comm **out)
{
    reap();
    struct tern_comm *c = calloc(1, sizeof(*c));
    if (!c || tern_obj_add(c)) {
        free(c);
        return TERN_ENOMEM;
    }
    tern_group_retain(g);
    c->magic = TERN_MAGIC_COMM;
    c->ctx = m;
    c->gctx = m + 2;
    c->group = g;
    c->world = g->world;
    c->rank = g->rank;
    c->size = g->size;
    c->handle = (MPI_Comm)c;
    c->errh = parent->errh;
    tern_errh_retain(c->errh);
    c->refs = 1;
    push(&live, c);
    *out = c;
    return 0;
}

void tern_comm_set_ids(struct tern_comm *c, uint32_t m)
{
    c->ctx = m;
    c->gctx = m + 2;
    if (c->remote) {
        tern_comm_set_ids(c->local, m + TERN_CTX_STEP);
        tern_comm_set_ids(c->both, m + 2 * TERN_CTX_STEP);
    }
}

void tern_comm_discard(struct tern_comm *c)
{
    c->magic = TERN_MAGIC_DEAD;
    tern_comm_release(c);
}

int tern_comm_free(struct tern_comm *c)
{
    if (is_predefined(c))
        return TERN_ECOMM;
    reap();
    int rc = tern_attr_delete_all(&c->attrs, TERN_ATTR_COMM, (void *)c->handle);
    if (rc)
        return rc;
    c->magic = TERN_MAGIC_DEAD;
    /* Members still waiting in a shared-memory operation of c that this
     * rank never made learn that it will not come (its operations in
     * flight finish as they would). */
    tern_coll_shm_leave(c, 1);
    tern_comm_release(c);
    return 0;
}

int tern_comm_compare(const struct tern_comm *a, const struct tern_comm *b, int *result)
{
    if (a == b) {
        *result = MPI_IDENT;
        return 0;
    }
    if (!a->remote != !b->remote) {
        *result = MPI_UNEQUAL;
        return 0;
    }
    int rc = tern_group_compare(a->group, b->group, result);
    /* Intercommunicators: the weaker of the two groups' answers. */
    int remote = MPI_IDENT;
    if (!rc && a->remote)
        rc = tern_group_compare(a->remote, b->remote, &remote);
    if (!rc && remote != MPI_IDENT && *result != MPI_UNEQUAL)
        *result = remote;
    if (!rc && *result == MPI_IDENT)
        *result = MPI_CONGRUENT;
    return rc;
}
