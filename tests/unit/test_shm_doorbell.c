/*
 * Unit tests of the shared-memory doorbell (transports/shm/doorbell.h): a
 * sleep that times out, a receiver in another process woken by a sender
 * within bounded time, a ping-pong in which both sides sleep before
 * every packet, which would stall on any lost wake-up, and one store that
 * wakes two sleepers through tern_shm_doorbell_ring_all.
 */
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "transports/shm/doorbell.h"
#include "tests/unit/test_shm_util.h"

#define CELLS 4
#define CELL 64

/* Two doorbells and two rings (one towards each side) in shared memory. */
struct pair {
    struct tern_shm_doorbell db[2];
    struct tern_shm_ring *ring[2];
};

static struct pair *new_pair(void)
{
    size_t rb = tern_shm_ring_bytes(CELLS, CELL);
    char *mem = shared_map(4096 + 2 * rb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    struct pair *p = (struct pair *)mem;
    for (int i = 0; i < 2; i++) {
        p->ring[i] = (struct tern_shm_ring *)(mem + 4096 + (size_t)i * rb);
        tern_shm_ring_init(p->ring[i], CELLS, CELL);
    }
    return p;
}

static void free_pair(struct pair *p)
{
    munmap(p, 4096 + 2 * tern_shm_ring_bytes(CELLS, CELL));
}

/* The receiver's side of block(): arm, re-check, sleep. */
static int block_on(struct pair *p, int me, int timeout_ms)
{
    uint32_t ticket = tern_shm_doorbell_arm(&p->db[me]);
    if (tern_shm_ring_ready(p->ring[me])) {
        tern_shm_doorbell_disarm(&p->db[me]);
        return 0;
    }
    return tern_shm_doorbell_sleep(&p->db[me], ticket, timeout_ms);
}

static void send_to(struct pair *p, int to, uint32_t v)
{
    while (tern_shm_ring_push(p->ring[to], &v, sizeof(v), NULL, 0) != 0)
        sched_yield();
    tern_shm_doorbell_ring(&p->db[to]);
}

/* Blocks until a packet is there, then returns its value. */
static uint32_t recv_blocking(struct pair *p, int me, int timeout_ms)
{
    struct tern_shm_cell *c;
    uint32_t v;

    while ((c = tern_shm_ring_peek(p->ring[me])) == NULL)
        if (block_on(p, me, timeout_ms) == TERN_ETIMEDOUT)
            return UINT32_MAX;
    memcpy(&v, c->data, sizeof(v));
    tern_shm_ring_pop(p->ring[me]);
    return v;
}

static void test_timeout(void)
{
    struct pair *p = new_pair();
    double t0 = now_s();

    CU_ASSERT_EQUAL(block_on(p, 0, 100), TERN_ETIMEDOUT);
    double dt = now_s() - t0;
    CU_ASSERT(dt >= 0.09 && dt < 5.0);
    CU_ASSERT_EQUAL(atomic_load(&p->db[0].sleeping), 0);
    /* A packet already waiting makes block return at once. */
    send_to(p, 0, 7);
    t0 = now_s();
    CU_ASSERT_EQUAL(block_on(p, 0, 10000), 0);
    CU_ASSERT(now_s() - t0 < 1.0);
    free_pair(p);
}

/* Child: sleeps with a 20 s timeout until the parent's packet arrives;
 * exits 0 when it got the right value. */
static int sleeper(void *arg)
{
    return recv_blocking(arg, 1, 20000) == 42 ? 0 : 1;
}

static void test_wake_across_fork(void)
{
    struct pair *p = new_pair();
    pid_t pid = fork_child(sleeper, p);
    CU_ASSERT_FATAL(pid > 0);

    /* Wait until the child announced that it sleeps, then give it time to
     * enter the kernel, so the wake really has to come through the futex. */
    double t0 = now_s();
    while (!atomic_load(&p->db[1].sleeping) && now_s() - t0 < 10)
        usleep(1000);
    CU_ASSERT(atomic_load(&p->db[1].sleeping) == 1);
    usleep(100000);
    double t1 = now_s();
    send_to(p, 1, 42);
    CU_ASSERT_EQUAL(wait_child(pid, 5), 0);
    /* Woken well before its 20 s timeout. */
    CU_ASSERT(now_s() - t1 < 5.0);
    free_pair(p);
}

#define ROUNDS 20000

/* Echoes ROUNDS packets, sleeping before each one. */
static int echo(void *arg)
{
    struct pair *p = arg;
    for (uint32_t i = 0; i < ROUNDS; i++) {
        uint32_t v = recv_blocking(p, 1, 10000);
        if (v != i)
            return 1;
        send_to(p, 0, v);
    }
    return 0;
}

static void test_no_lost_wakeup(void)
{
    struct pair *p = new_pair();
    double t0 = now_s();
    pid_t pid = fork_child(echo, p);
    uint32_t bad = 0;

    CU_ASSERT_FATAL(pid > 0);
    /* A lost wake-up shows as a 10 s timeout (UINT32_MAX) here or there. */
    for (uint32_t i = 0; i < ROUNDS && !bad; i++) {
        send_to(p, 1, i);
        bad = recv_blocking(p, 0, 10000) != i;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(wait_child(pid, 15), 0);
    printf("(%d blocking round trips in %.2f s) ", ROUNDS, now_s() - t0);
    free_pair(p);
}

/* A flag that several processes wait for, each on its own doorbell,
 * set once and announced with tern_shm_doorbell_ring_all. */
struct flag_bells {
    _Atomic uint32_t flag;
    struct tern_shm_doorbell db[3];
};

static struct flag_bells *bells_shared;

/* Child i (1 or 2): sleeps on its doorbell until the flag is set; exits 0
 * once it saw the flag, 1 if a 20 s sleep ran out first. */
static int flag_sleeper(void *arg)
{
    struct tern_shm_doorbell *db = arg;
    for (;;) {
        uint32_t ticket = tern_shm_doorbell_arm(db);
        if (atomic_load(&bells_shared->flag)) {
            tern_shm_doorbell_disarm(db);
            return 0;
        }
        if (tern_shm_doorbell_sleep(db, ticket, 20000) == TERN_ETIMEDOUT)
            return 1;
    }
}

static void test_ring_all(void)
{
    struct flag_bells *b = shared_map(sizeof *b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    bells_shared = b;
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        pid[i] = fork_child(flag_sleeper, &b->db[i + 1]);
        CU_ASSERT_FATAL(pid[i] > 0);
    }
    /* Both asleep in the kernel, so that only the futex can wake them. */
    double t0 = now_s();
    while ((!atomic_load(&b->db[1].sleeping) || !atomic_load(&b->db[2].sleeping)) &&
           now_s() - t0 < 10)
        usleep(1000);
    usleep(100000);
    struct tern_shm_doorbell *const dbs[] = { &b->db[1], &b->db[2] };
    double t1 = now_s();
    atomic_store_explicit(&b->flag, 1, memory_order_release);
    tern_shm_doorbell_ring_all(dbs, 2);
    for (int i = 0; i < 2; i++)
        CU_ASSERT_EQUAL(wait_child(pid[i], 5), 0);
    CU_ASSERT(now_s() - t1 < 5.0);
    munmap(b, sizeof *b);
}

/* The same ping-pong with senders that do not fence and receivers that call
 * membarrier() instead (doorbell.h, asymmetric mode). Both processes
 * register before the fork; the mode flag is inherited. */
static void test_no_lost_wakeup_asym(void)
{
    if (!tern_shm_doorbell_register()) {
        printf("(membarrier not available here: skipped) ");
        return;
    }
    tern_shm_doorbell_asym = 1;
    test_no_lost_wakeup();
    tern_shm_doorbell_asym = 0;
}

int main(void)
{
    static const struct test_entry tests[] = {
        { "sleep times out", test_timeout },
        { "sender wakes a sleeping receiver across fork", test_wake_across_fork },
        { "no lost wake-up in a blocking ping-pong", test_no_lost_wakeup },
        { "no lost wake-up without sender fences (membarrier)", test_no_lost_wakeup_asym },
        { "one store, several sleepers woken by ring_all", test_ring_all },
        { NULL, NULL },
    };
    return run_suite("shm doorbell", tests);
}
