/*
 * Groups: ordered sets of processes, each named by its rank in
 * MPI_COMM_WORLD.
 *
 * A group is an array world[0..size-1] of distinct world ranks; group rank i
 * is the process world[i]. Groups are immutable once built, so one object can
 * be shared: a communicator keeps its group (comm->world points into it),
 * MPI_Comm_group hands out the same object again, and every holder counts
 * one reference. tern_group_release() frees the object with the last one.
 *
 * MPI_GROUP_EMPTY is a static object of size 0 that every operation with an
 * empty result returns; retaining or releasing it does nothing, so users may
 * free it like any other group. MPI_GROUP_NULL names no group.
 *
 * Set operations need to know whether a world rank belongs to a group. They
 * build an inverse map (world rank -> group rank) of the world's size, so
 * each costs O(world size + group sizes) time and memory, without sorting.
 *
 * The operations take arguments already checked (tern_group_check_ranks and
 * tern_group_expand_ranges do the checks the API layer reports) and return
 * 0 or a negative TERN_E* code; the new group comes back with one reference.
 * Live heap groups are kept in a list, so tern_group_finalize() frees what
 * the program did not.
 */
#ifndef TERN_CORE_GROUP_H
#define TERN_CORE_GROUP_H

#include <stdint.h>

#include <mpi.h>

struct tern_group {
    uint32_t magic;
    int refs;
    int size;
    int rank;                 /* This process's rank, or MPI_UNDEFINED. */
    int *world;               /* world[i] = world rank of group rank i. */
    MPI_Group handle;
    struct tern_group *prev, *next;   /* The list of live heap groups. */
};

/* Tells the module this process's world rank and the world's size; called
 * by tern_comm_init() (and by unit tests) before any group is built. */
void tern_group_init(int world_rank, int world_size);
/* Frees every group still alive. */
void tern_group_finalize(void);

/* The group behind a handle (MPI_GROUP_EMPTY included), or NULL. */
struct tern_group *tern_group_get(MPI_Group h);
struct tern_group *tern_group_empty(void);

/* A new group of `size` members whose world ranks are copied from `world`;
 * an empty one is MPI_GROUP_EMPTY. */
int tern_group_from_world(int size, const int *world, struct tern_group **out);

void tern_group_retain(struct tern_group *g);
void tern_group_release(struct tern_group *g);

/* The rank in g of a world rank, or MPI_UNDEFINED. O(size). */
int tern_group_rank_of(const struct tern_group *g, int world_rank);

/* Checks a list of n ranks of g: each in 0..size-1 and none twice. Returns 0,
 * or TERN_ERANK with *bad the index of the first offending entry and *dup
 * set to 1 when it repeats an earlier one (0 when out of range). */
int tern_group_check_ranks(const struct tern_group *g, int n, const int *ranks,
                           int *bad, int *dup);

/* Expands n (first, last, stride) triplets into the ranks they name, in
 * order, into a new array *out of *nout entries (free() it). A triplet whose
 * direction disagrees with its stride names no rank. Returns 0, TERN_EARG
 * (a zero stride) or TERN_ERANK (a rank out of range or named twice), with
 * *bad the index of the offending triplet. */
int tern_group_expand_ranges(const struct tern_group *g, int n, const int ranges[][3],
                             int **out, int *nout, int *bad);

/* The standard's group constructors; ranks as checked above. */
int tern_group_incl(const struct tern_group *g, int n, const int *ranks,
                    struct tern_group **out);
int tern_group_excl(const struct tern_group *g, int n, const int *ranks,
                    struct tern_group **out);
int tern_group_union(const struct tern_group *a, const struct tern_group *b,
                     struct tern_group **out);
int tern_group_intersection(const struct tern_group *a, const struct tern_group *b,
                            struct tern_group **out);
int tern_group_difference(const struct tern_group *a, const struct tern_group *b,
                          struct tern_group **out);

/* ranks2[i] = rank in b of rank ranks1[i] of a: MPI_PROC_NULL stays
 * MPI_PROC_NULL, a process not in b gives MPI_UNDEFINED. ranks1 must hold
 * valid ranks of a or MPI_PROC_NULL (tern_group_check_translate). */
int tern_group_translate(const struct tern_group *a, int n, const int *ranks1,
                         const struct tern_group *b, int *ranks2);
/* 0, or TERN_ERANK with *bad the index of the first invalid entry. */
int tern_group_check_translate(const struct tern_group *a, int n, const int *ranks1,
                               int *bad);

/* *result = MPI_IDENT (same members, same order), MPI_SIMILAR (same
 * members, another order) or MPI_UNEQUAL. */
int tern_group_compare(const struct tern_group *a, const struct tern_group *b,
                       int *result);

#endif
