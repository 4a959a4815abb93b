/*
 * The predefined communicators. Context ids: 0 and 1 belong to
 * MPI_COMM_WORLD (point-to-point and collectives), 2 and 3 to MPI_COMM_SELF.
 */
#include <stdio.h>
#include <stdlib.h>

#include "libmpi/core/comm.h"
#include "libmpi/core/errhandler.h"
#include "libmpi/core/object.h"
#include "tern/err.h"

static struct tern_comm world, self;
static int self_world_rank;

int tern_comm_init(int world_rank, int world_size)
{
    world.world = malloc(sizeof(int) * (size_t)world_size);
    if (!world.world)
        return TERN_ENOMEM;
    for (int r = 0; r < world_size; r++)
        world.world[r] = r;
    world.magic = TERN_MAGIC_COMM;
    world.ctx = 0;
    world.rank = world_rank;
    world.size = world_size;
    world.handle = MPI_COMM_WORLD;
    world.errh = tern_errh_get(MPI_ERRORS_ARE_FATAL);
    snprintf(world.name, sizeof(world.name), "MPI_COMM_WORLD");

    self_world_rank = world_rank;
    self.magic = TERN_MAGIC_COMM;
    self.ctx = 2;
    self.rank = 0;
    self.size = 1;
    self.world = &self_world_rank;
    self.handle = MPI_COMM_SELF;
    self.errh = tern_errh_get(MPI_ERRORS_ARE_FATAL);
    snprintf(self.name, sizeof(self.name), "MPI_COMM_SELF");
    return 0;
}

void tern_comm_finalize(void)
{
    free(world.world);
    world.world = NULL;
    world.magic = 0;
    self.magic = 0;
}

struct tern_comm *tern_comm_get(MPI_Comm h)
{
    struct tern_comm *c;
    if (h == MPI_COMM_WORLD)
        c = &world;
    else if (h == MPI_COMM_SELF)
        c = &self;
    else if (tern_handle_is_predefined(h))
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
