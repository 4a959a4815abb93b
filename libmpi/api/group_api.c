/*
 * Groups: size, rank, the constructors, rank translation, comparison and
 * MPI_Group_free. Groups belong to no communicator, so errors go to
 * MPI_COMM_SELF's error handler.
 */
#include <stdlib.h>

#include "libmpi/api/api.h"
#include "libmpi/core/group.h"
#include "tern/err.h"

int tern_check_group(MPI_Group h, struct tern_group **out)
{
    *out = tern_group_get(h);
    if (*out)
        return 0;
    if (h == MPI_GROUP_NULL)
        tern_api_detail("invalid group MPI_GROUP_NULL");
    else
        tern_api_detail("invalid group %p (not a group, or freed)", (void *)h);
    return TERN_EGROUP;
}

/* Checks (group, n, array, newgroup) of the constructors that take a list. */
static int check_list(MPI_Group group, struct tern_group **g, int n, const void *arr,
                      const char *arr_name, const void *newgroup)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_group(group, g);
    if (!rc && (n < 0 || n > (*g)->size)) {
        tern_api_detail("invalid n %d: the group has %d members", n, (*g)->size);
        rc = TERN_EARG;
    }
    if (!rc && n > 0)
        rc = tern_check_ptr(arr, arr_name);
    if (!rc)
        rc = tern_check_ptr(newgroup, "newgroup");
    return rc;
}

/* Checks a rank list and says what is wrong with it. */
static int check_ranks(const struct tern_group *g, int n, const int ranks[])
{
    int bad = 0, dup = 0;
    int rc = tern_group_check_ranks(g, n, ranks, &bad, &dup);
    if (rc == TERN_ERANK && dup)
        tern_api_detail("invalid rank ranks[%d] = %d: it appears twice in ranks", bad, ranks[bad]);
    else if (rc == TERN_ERANK)
        tern_api_detail("invalid rank ranks[%d] = %d: the group has ranks 0 to %d",
                        bad, ranks[bad], g->size - 1);
    return rc;
}

static int hand_out(struct tern_group *ng, MPI_Group *newgroup)
{
    *newgroup = ng->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int *size)
{
    struct tern_group *g;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_group(group, &g);
    if (!rc)
        rc = tern_check_ptr(size, "size");
    if (rc)
        return tern_api_error(NULL, "MPI_Group_size", rc);
    *size = g->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    struct tern_group *g;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_group(group, &g);
    if (!rc)
        rc = tern_check_ptr(rank, "rank");
    if (rc)
        return tern_api_error(NULL, "MPI_Group_rank", rc);
    *rank = g->rank;
    return MPI_SUCCESS;
}

static int incl_excl(const char *fn, int excl, MPI_Group group, int n, const int ranks[],
                     MPI_Group *newgroup)
{
    struct tern_group *g, *ng = NULL;
    int rc = check_list(group, &g, n, ranks, "ranks", newgroup);
    if (!rc)
        rc = check_ranks(g, n, ranks);
    if (!rc)
        rc = excl ? tern_group_excl(g, n, ranks, &ng) : tern_group_incl(g, n, ranks, &ng);
    return rc ? tern_api_error(NULL, fn, rc) : hand_out(ng, newgroup);
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_incl", 0, group, n, ranks, newgroup);
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_excl", 1, group, n, ranks, newgroup);
}

static int range_incl_excl(const char *fn, int excl, MPI_Group group, int n,
                           int ranges[][3], MPI_Group *newgroup)
{
    struct tern_group *g, *ng = NULL;
    int *list = NULL, count = 0, bad = 0;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_group(group, &g);
    if (!rc && n < 0) {
        tern_api_detail("invalid n %d", n);
        rc = TERN_EARG;
    }
    if (!rc && n > 0)
        rc = tern_check_ptr(ranges, "ranges");
    if (!rc)
        rc = tern_check_ptr(newgroup, "newgroup");
    if (!rc) {
        rc = tern_group_expand_ranges(g, n, (const int (*)[3])ranges, &list, &count, &bad);
        if (rc == TERN_EARG)
            tern_api_detail("invalid range ranges[%d] = (%d, %d, %d): the stride is 0",
                            bad, ranges[bad][0], ranges[bad][1], ranges[bad][2]);
        else if (rc == TERN_ERANK)
            tern_api_detail("invalid range ranges[%d] = (%d, %d, %d): it names a rank "
                            "outside 0 to %d or one named before", bad, ranges[bad][0],
                            ranges[bad][1], ranges[bad][2], g->size - 1);
    }
    if (!rc)
        rc = excl ? tern_group_excl(g, count, list, &ng) : tern_group_incl(g, count, list, &ng);
    free(list);
    return rc ? tern_api_error(NULL, fn, rc) : hand_out(ng, newgroup);
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl("MPI_Group_range_incl", 0, group, n, ranges, newgroup);
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl("MPI_Group_range_excl", 1, group, n, ranges, newgroup);
}

enum set_op { OP_UNION, OP_INTERSECTION, OP_DIFFERENCE };

static int set_op(const char *fn, enum set_op op, MPI_Group group1, MPI_Group group2,
                  MPI_Group *newgroup)
{
    struct tern_group *a, *b, *ng = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_group(group1, &a);
    if (!rc)
        rc = tern_check_group(group2, &b);
    if (!rc)
        rc = tern_check_ptr(newgroup, "newgroup");
    if (!rc && op == OP_UNION)
        rc = tern_group_union(a, b, &ng);
    else if (!rc && op == OP_INTERSECTION)
        rc = tern_group_intersection(a, b, &ng);
    else if (!rc)
        rc = tern_group_difference(a, b, &ng);
    return rc ? tern_api_error(NULL, fn, rc) : hand_out(ng, newgroup);
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", OP_UNION, group1, group2, newgroup);
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", OP_INTERSECTION, group1, group2, newgroup);
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", OP_DIFFERENCE, group1, group2, newgroup);
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
    struct tern_group *a, *b;
    int bad = 0;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_group(group1, &a);
    if (!rc)
        rc = tern_check_group(group2, &b);
    if (!rc && n < 0) {
        tern_api_detail("invalid n %d", n);
        rc = TERN_EARG;
    }
    if (!rc && n > 0)
        rc = tern_check_ptr(ranks1, "ranks1");
    if (!rc && n > 0)
        rc = tern_check_ptr(ranks2, "ranks2");
    if (!rc && (rc = tern_group_check_translate(a, n, ranks1, &bad)))
        tern_api_detail("invalid rank ranks1[%d] = %d: group1 has ranks 0 to %d "
                        "(or MPI_PROC_NULL)", bad, ranks1[bad], a->size - 1);
    if (!rc)
        rc = tern_group_translate(a, n, ranks1, b, ranks2);
    return rc ? tern_api_error(NULL, "MPI_Group_translate_ranks", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    struct tern_group *a, *b;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_group(group1, &a);
    if (!rc)
        rc = tern_check_group(group2, &b);
    if (!rc)
        rc = tern_check_ptr(result, "result");
    if (!rc)
        rc = tern_group_compare(a, b, result);
    return rc ? tern_api_error(NULL, "MPI_Group_compare", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group *group)
{
    struct tern_group *g;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(group, "group");
    if (!rc)
        rc = tern_check_group(*group, &g);
    if (rc)
        return tern_api_error(NULL, "MPI_Group_free", rc);
    /* MPI_GROUP_EMPTY may be freed too (the constructors return it); that
     * only clears the handle. */
    tern_group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
