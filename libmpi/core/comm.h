/*
 * Communicators. This issue has MPI_COMM_WORLD and MPI_COMM_SELF only; the
 * structure is the general one: a context id for point-to-point traffic (the
 * next id, ctx + 1, is the hidden context of its collectives), this rank's
 * rank, the size, and the map from communicator rank to world rank.
 */
#ifndef TERN_CORE_COMM_H
#define TERN_CORE_COMM_H

#include <stdint.h>

#include <mpi.h>

struct tern_errhandler;

struct tern_comm {
    uint32_t magic;
    uint32_t ctx;
    int rank;
    int size;
    int *world;                     /* world[r] = world rank of rank r. */
    MPI_Comm handle;                /* The handle users see. */
    struct tern_errhandler *errh;
    char name[MPI_MAX_OBJECT_NAME];
};

/* Sets up the predefined communicators from the world rank and size. */
int tern_comm_init(int world_rank, int world_size);
void tern_comm_finalize(void);

/* The communicator behind a handle, or NULL if it is not a valid one. */
struct tern_comm *tern_comm_get(MPI_Comm h);

struct tern_comm *tern_comm_world(void);
struct tern_comm *tern_comm_self(void);

#endif
