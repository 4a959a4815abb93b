/*
 * The host layout of communicators for the node-aware collectives
 * (collectives/nodes.c), on layouts worked out by hand: ranks placed
 * round-robin over 3 hosts, a sub-communicator whose ranks come in an
 * order that numbers the hosts differently from the world, one rank per
 * host, and a single host; then the leaders and local roots of rooted
 * calls, and when a two-level algorithm may run.
 *
 * The launcher's node map is set directly in the runtime (7 world ranks:
 * hosts 0, 1, 2, 0, 1, 2, 0, as `--map-by node` over 3 hosts places them).
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "collectives/nodes.h"
#include "collectives/sched.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/runtime.h"
#include "tests/unit/cunit_main.h"

static int world_node[7] = { 0, 1, 2, 0, 1, 2, 0 };

/* A communicator over the given world ranks, this process being `rank`. */
static struct tern_comm make(int n, int *world, int rank)
{
    tern_rt.boot.size = 7;
    tern_rt.boot.node_of = world_node;
    struct tern_comm c;
    memset(&c, 0, sizeof c);
    c.size = n;
    c.rank = rank;
    c.world = world;
    return c;
}

static void expect_ints(const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        CU_ASSERT_EQUAL(got[i], want[i]);
}

static int usable(struct tern_comm *c, int size)
{
    struct tern_coll_args a = { .kind = TERN_COLL_BARRIER, .comm = c, .size = size };
    return tern_coll_two_level_usable(&a);
}

static void test_round_robin_world(void)
{
    int world[7] = { 0, 1, 2, 3, 4, 5, 6 };
    struct tern_comm c = make(7, world, 4);
    const struct tern_coll_nodes *nd = tern_coll_nodes(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nd);
    CU_ASSERT_PTR_EQUAL(tern_coll_nodes(&c), nd); /* Kept with the communicator. */
    CU_ASSERT_EQUAL(nd->nnodes, 3);
    CU_ASSERT_EQUAL(nd->node, 1);
    CU_ASSERT_EQUAL(nd->nlocal, 2);
    CU_ASSERT_EQUAL(nd->lrank, 1);
    CU_ASSERT_EQUAL(nd->max_local, 3);
    expect_ints(nd->node_of, (int[]){ 0, 1, 2, 0, 1, 2, 0 }, 7);
    expect_ints(nd->leader, (int[]){ 0, 1, 2 }, 3);
    expect_ints(nd->local, (int[]){ 1, 4 }, 2);
    /* Host order: 0, 3, 6 | 1, 4 | 2, 5. */
    expect_ints(nd->first, (int[]){ 0, 3, 5, 7 }, 4);
    expect_ints(nd->pos, (int[]){ 0, 3, 5, 1, 4, 6, 2 }, 7);
    CU_ASSERT_FALSE(nd->host_ordered);
    CU_ASSERT_TRUE(usable(&c, 7));
    /* Inside a phase of another two-level call (a subset), never. */
    CU_ASSERT_FALSE(usable(&c, 3));

    /* Rooted at 3 (host 0): the root stands for host 0 among the leaders;
     * on this rank's host the leader (local index 0) takes part. */
    struct tern_sched s;
    tern_sched_init(&s, &c);
    int *l = tern_coll_leaders(&s, nd, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    expect_ints(l, (int[]){ 3, 1, 2 }, 3);
    CU_ASSERT_EQUAL(tern_coll_local_root(nd, 3), 0);
    CU_ASSERT_EQUAL(tern_coll_local_root(nd, 4), 1);
    tern_sched_free(&s);
    free(c.nodes);

    /* Rank 3 is on the root's host, at local index 1 of 0, 3, 6. */
    c = make(7, world, 3);
    nd = tern_coll_nodes(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nd);
    expect_ints(nd->local, (int[]){ 0, 3, 6 }, 3);
    CU_ASSERT_EQUAL(nd->lrank, 1);
    CU_ASSERT_EQUAL(tern_coll_local_root(nd, 3), 1);
    CU_ASSERT_EQUAL(tern_coll_local_root(nd, 5), 0);
    free(c.nodes);
}

static void test_sub_communicator(void)
{
    /* World ranks 5, 2, 6, 3: hosts 2, 2, 0, 0, numbered 0, 0, 1, 1 in the
     * order of their lowest rank in this communicator. */
    int world[4] = { 5, 2, 6, 3 };
    struct tern_comm c = make(4, world, 2);
    const struct tern_coll_nodes *nd = tern_coll_nodes(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nd);
    CU_ASSERT_EQUAL(nd->nnodes, 2);
    CU_ASSERT_EQUAL(nd->node, 1);
    CU_ASSERT_EQUAL(nd->lrank, 0);
    CU_ASSERT_EQUAL(nd->max_local, 2);
    expect_ints(nd->node_of, (int[]){ 0, 0, 1, 1 }, 4);
    expect_ints(nd->leader, (int[]){ 0, 2 }, 2);
    expect_ints(nd->local, (int[]){ 2, 3 }, 2);
    expect_ints(nd->first, (int[]){ 0, 2, 4 }, 3);
    expect_ints(nd->pos, (int[]){ 0, 1, 2, 3 }, 4);
    CU_ASSERT_TRUE(nd->host_ordered);
    CU_ASSERT_TRUE(usable(&c, 4));
    free(c.nodes);
}

/* The copies between rank order and the packed host order. */
static void test_host_packing(void)
{
    const struct tern_dtype *ints = tern_dtype_get(MPI_INT);
    int buf[7 * 2];
    struct tern_sched s;

    /* Host order is rank order and MPI_INT is contiguous: the receive
     * buffer holds the packed blocks, and nothing is copied. */
    int in_order[4] = { 5, 2, 6, 3 };
    struct tern_comm c = make(4, in_order, 0);
    const struct tern_coll_nodes *nd = tern_coll_nodes(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nd);
    tern_sched_init(&s, &c);
    CU_ASSERT_PTR_EQUAL(tern_coll_host_packed(&s, nd, buf, 2, ints), (char *)buf);
    tern_coll_host_permute(&s, nd, buf, 2, ints, (char *)buf, 1);
    CU_ASSERT_EQUAL(s.nsteps, 0);
    /* The hosts' pieces: 2 ranks of 8 bytes each. */
    size_t *counts, *displs;
    CU_ASSERT_EQUAL_FATAL(tern_coll_host_pieces(&s, nd, 8, &counts, &displs), 0);
    CU_ASSERT_EQUAL(counts[0], 16);
    CU_ASSERT_EQUAL(counts[1], 16);
    CU_ASSERT_EQUAL(displs[0], 0);
    CU_ASSERT_EQUAL(displs[1], 16);
    tern_sched_free(&s);
    free(c.nodes);

    /* Round-robin: no two neighbours in rank order are neighbours in host
     * order, so every rank's block is its own copy, to its place. */
    int world[7] = { 0, 1, 2, 3, 4, 5, 6 };
    c = make(7, world, 0);
    nd = tern_coll_nodes(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nd);
    tern_sched_init(&s, &c);
    char *packed = tern_coll_host_packed(&s, nd, buf, 2, ints);
    CU_ASSERT_PTR_NOT_NULL_FATAL(packed);
    CU_ASSERT_PTR_NOT_EQUAL(packed, (char *)buf);
    tern_coll_host_permute(&s, nd, buf, 2, ints, packed, 1);
    CU_ASSERT_EQUAL_FATAL(s.nsteps, 7);
    for (int r = 0; r < 7; r++) {
        CU_ASSERT_PTR_EQUAL(s.steps[r].src, packed + nd->pos[r] * 8);
        CU_ASSERT_PTR_EQUAL(s.steps[r].dst, &buf[2 * r]);
        CU_ASSERT_EQUAL(s.steps[r].dcount, 2);
    }
    tern_sched_free(&s);
    free(c.nodes);

    /* World ranks 2, 5, 0, 3 (hosts 2, 2, 0, 0) are in host order. Into
     * a packed buffer of its own (as a non-contiguous type needs), the
     * blocks move as one copy. */
    int blocks[4] = { 2, 5, 0, 3 };
    c = make(4, blocks, 0);
    nd = tern_coll_nodes(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nd);
    CU_ASSERT_TRUE(nd->host_ordered);
    tern_sched_init(&s, &c);
    packed = tern_sched_scratch(&s, 4 * 8);
    tern_coll_host_permute(&s, nd, buf, 2, ints, packed, 0);
    CU_ASSERT_EQUAL_FATAL(s.nsteps, 1);
    CU_ASSERT_PTR_EQUAL(s.steps[0].src, buf);
    CU_ASSERT_PTR_EQUAL(s.steps[0].dst, packed);
    CU_ASSERT_EQUAL(s.steps[0].count, 8);
    tern_sched_free(&s);
    free(c.nodes);
}

static void test_flat_layouts(void)
{
    /* One rank per host: the phases would be the flat algorithm. */
    int spread[3] = { 0, 1, 2 };
    struct tern_comm c = make(3, spread, 0);
    const struct tern_coll_nodes *nd = tern_coll_nodes(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nd);
    CU_ASSERT_EQUAL(nd->nnodes, 3);
    CU_ASSERT_EQUAL(nd->max_local, 1);
    CU_ASSERT_FALSE(usable(&c, 3));
    free(c.nodes);

    /* All on one host. */
    int one_host[3] = { 6, 0, 3 };
    c = make(3, one_host, 2);
    nd = tern_coll_nodes(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nd);
    CU_ASSERT_EQUAL(nd->nnodes, 1);
    CU_ASSERT_EQUAL(nd->nlocal, 3);
    CU_ASSERT_EQUAL(nd->lrank, 2);
    CU_ASSERT_FALSE(usable(&c, 3));
    free(c.nodes);
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "round-robin placement, leaders and local roots", test_round_robin_world },
        { "a sub-communicator numbers its own hosts", test_sub_communicator },
        { "blocks packed in host order", test_host_packing },
        { "one rank per host, one host: no two-level", test_flat_layouts },
        { NULL, NULL },
    };
    return cunit_run("node layout", tests);
}
