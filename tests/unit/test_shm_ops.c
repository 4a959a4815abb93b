/*
 * End-to-end tests of tern_shm_ops, the shared-memory transport as the p2p
 * core drives it, with three forked "ranks" on one host. The wire-up store
 * and the p2p core are replaced by small fakes in this file: a key-value
 * table and a fence barrier in shared memory, and a packet checker.
 *
 * Each scenario runs the lifecycle init / fence / connect / fence / ready,
 * checks that the segment is gone from /dev/shm after ready, streams packets
 * of varied lengths between every pair in both directions with checked
 * order and contents, wakes blocked ranks, reads a buffer with get_bulk when
 * single copy is on, and finalizes. It runs with TERN_SHM_CMA=auto, with
 * CMA refused by a seccomp filter (as in a container), and with
 * TERN_SHM_CMA=off; a rank alone on its host must create nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tern/boot.h"
#include "tern/err.h"
#include "tern/p2p.h"
#include "transports/shm/cma.h"
#include "transports/transport.h"
#include "tests/unit/test_shm_util.h"

#define NRANKS 3
#define NPACKETS 20000
#define BULK_LEN (1024 * 1024 + 5)

/* ---- The fake wire-up store, in memory shared by the forked ranks. ---- */

struct kv {
    int rank;
    char key[TERN_BOOT_KEY_MAX];
    size_t len;
    unsigned char value[256];
};

struct fake_store {
    atomic_flag lock;
    atomic_int arrived;
    atomic_int generation;
    int nranks;
    int nkv;
    struct kv kv[64];
};

static struct fake_store *store;
static int my_rank;

int tern_boot_put(const char *key, const void *value, size_t len)
{
    if (len > sizeof(store->kv[0].value))
        return TERN_EINVAL;
    while (atomic_flag_test_and_set(&store->lock))
        sched_yield();
    struct kv *e = &store->kv[store->nkv++];
    e->rank = my_rank;
    snprintf(e->key, sizeof(e->key), "%s", key);
    memcpy(e->value, value, len);
    e->len = len;
    atomic_flag_clear(&store->lock);
    return 0;
}

int tern_boot_get(int rank, const char *key, void *value, size_t *len)
{
    int rc = TERN_ENOTFOUND;

    while (atomic_flag_test_and_set(&store->lock))
        sched_yield();
    for (int i = 0; i < store->nkv; i++) {
        struct kv *e = &store->kv[i];
        if (e->rank == rank && strcmp(e->key, key) == 0) {
            rc = e->len <= *len ? 0 : TERN_EINVAL;
            if (rc == 0)
                memcpy(value, e->value, e->len);
            *len = e->len;
            break;
        }
    }
    atomic_flag_clear(&store->lock);
    return rc;
}

int tern_boot_fence(void)
{
    int gen = atomic_load(&store->generation);

    if (atomic_fetch_add(&store->arrived, 1) + 1 == store->nranks) {
        atomic_store(&store->arrived, 0);
        atomic_fetch_add(&store->generation, 1);
    } else {
        while (atomic_load(&store->generation) == gen)
            sched_yield();
    }
    return 0;
}

/* ---- The fake p2p core: checks order and contents per sender. ---- */

struct pkt_hdr {
    uint32_t src;
    uint32_t seq;
};

static uint32_t next_seq[NRANKS];
static int bad_packets;
static int wake_packets;

/* Packet seq from src to anyone has seq % 997 payload bytes of a pattern;
 * seq UINT32_MAX is a wake-up packet without payload. */
static size_t payload_len(uint32_t seq, size_t max)
{
    return (size_t)seq % 997 % (max - sizeof(struct pkt_hdr) + 1);
}

static unsigned char pattern(uint32_t src, uint32_t seq, size_t i)
{
    return (unsigned char)(src * 31 + seq + i);
}

/* Nothing but packets wakes a rank here. */
int tern_p2p_recheck(void)
{
    return 0;
}

void tern_p2p_recv_packet(int src, const void *pkt, size_t len)
{
    struct pkt_hdr h;
    const unsigned char *p = pkt;

    memcpy(&h, pkt, sizeof(h));
    if (h.seq == UINT32_MAX) {
        wake_packets++;
        return;
    }
    int ok = h.src == (uint32_t)src && h.seq == next_seq[src]++;
    for (size_t i = sizeof(h); ok && i < len; i++)
        ok = p[i] == pattern(h.src, h.seq, i - sizeof(h));
    bad_packets += !ok;
}

/* ---- The ranks. ---- */

/* Sends one packet, making progress while the ring is full. */
static int send_all(int to, uint32_t seq, size_t max)
{
    unsigned char payload[65536];
    struct pkt_hdr h = { (uint32_t)my_rank, seq };
    size_t n = seq == UINT32_MAX ? 0 : payload_len(seq, max);

    for (size_t i = 0; i < n; i++)
        payload[i] = pattern(h.src, seq, i);
    int rc;
    /* Three ranks may share fewer cores: yield when nothing moves. */
    while ((rc = tern_shm_ops.send(to, &h, sizeof(h), payload, n)) == TERN_EAGAIN)
        if (tern_shm_ops.progress() == 0)
            sched_yield();
    return rc;
}

/* Streams NPACKETS to every peer while receiving theirs. */
static int exchange(size_t max)
{
    uint32_t sent[NRANKS] = { 0 };
    double deadline = now_s() + 60;
    int done;

    do {
        done = 1;
        for (int to = 0; to < NRANKS; to++) {
            if (to == my_rank || sent[to] == NPACKETS)
                continue;
            if (send_all(to, sent[to]++, max) != 0)
                return 1;
            done = 0;
        }
        if (tern_shm_ops.progress() == 0 && done)
            sched_yield();
        for (int from = 0; from < NRANKS; from++)
            if (from != my_rank && next_seq[from] < NPACKETS)
                done = 0;
        if (now_s() > deadline)
            return 2;
    } while (!done);
    return bad_packets ? 3 : 0;
}

/* Rank 0 waits, then wakes the others, which block until they are woken. */
static int block_and_wake(void)
{
    if (my_rank == 0) {
        usleep(100000);
        for (int to = 1; to < NRANKS; to++)
            if (send_all(to, UINT32_MAX, 0) != 0)
                return 1;
        return 0;
    }
    double t0 = now_s();
    while (wake_packets == 0 && now_s() - t0 < 10) {
        if (tern_shm_ops.block(20000) != 0)
            return 1;
        tern_shm_ops.progress();
    }
    return wake_packets == 1 && now_s() - t0 < 10 ? 0 : 2;
}

struct scenario {
    int cma;          /* 1 when CMA works here and TERN_SHM_CMA=auto. */
    unsigned refuse;  /* Ranks (bit mask) with a seccomp filter like Docker's. */
};

/* Single copy works between a and b when CMA is on and neither refuses. */
static int expect_single_copy(const struct scenario *sc, int a, int b)
{
    return sc->cma && !(sc->refuse & (1u << a)) && !(sc->refuse & (1u << b));
}

/* Rank 0 publishes a buffer; each rank checks its caps towards every peer,
 * and the others read rank 0's buffer when single copy is on. */
static int bulk(const struct scenario *sc)
{
    static unsigned char buf[BULK_LEN];
    struct tern_tp_caps caps;

    if (my_rank == 0) {
        uint64_t addr = (uint64_t)(uintptr_t)buf;
        for (size_t i = 0; i < BULK_LEN; i++)
            buf[i] = pattern(7, 7, i);
        tern_boot_put("test.buf", &addr, sizeof(addr));
    }
    tern_boot_fence();
    for (int peer = 0; peer < NRANKS; peer++) {
        tern_shm_ops.caps(peer, &caps);
        if (peer != my_rank
            && caps.single_copy != expect_single_copy(sc, my_rank, peer))
            return 1;
    }
    tern_shm_ops.caps(0, &caps);
    if (my_rank == 0 || !caps.single_copy)
        return 0;
    uint64_t addr;
    size_t len = sizeof(addr);
    if (tern_boot_get(0, "test.buf", &addr, &len) != 0)
        return 2;
    if (tern_shm_ops.get_bulk(0, buf, addr, 0, BULK_LEN) != 0)
        return 3;
    for (size_t i = 0; i < BULK_LEN; i++)
        if (buf[i] != pattern(7, 7, i))
            return 4;
    return 0;
}

/* Counts the files in /dev/shm that belong to the job "unit-ops". */
static int segments_left(void)
{
    char prefix[64];
    int n = 0;
    DIR *d = opendir("/dev/shm");
    struct dirent *e;

    snprintf(prefix, sizeof(prefix), "tern-%u-unit-ops-", (unsigned)geteuid());
    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* Runs the phases up to ready; returns 0 or a failure code. */
static int bring_up(const struct tern_boot_info *b)
{
    if (tern_shm_ops.init(b) != 0 || tern_boot_fence() != 0)
        return 10;
    if (tern_shm_ops.connect() != 0 || tern_boot_fence() != 0)
        return 11;
    if (tern_shm_ops.ready() != 0 || tern_boot_fence() != 0)
        return 12;
    /* After ready the segment's name is gone, and the pipes are there. */
    if (segments_left() != 0)
        return 13;
    for (int r = 0; r < NRANKS; r++)
        if (tern_shm_ops.reachable(r) != (r != my_rank))
            return 14;
    return 0;
}

/* Makes process_vm_readv fail with EPERM in this process, as the default
 * seccomp profile of container runtimes does. Returns 0 or -1. */
static int refuse_cma(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int rank_main(int rank, const struct scenario *sc)
{
    int local_ranks[NRANKS] = { 0, 1, 2 };
    struct tern_boot_info b = { .rank = rank, .size = NRANKS, .local_rank = rank,
                                .local_size = NRANKS, .local_ranks = local_ranks,
                                .jobid = "unit-ops" };
    struct tern_tp_caps caps;

    my_rank = rank;
    if ((sc->refuse & (1u << rank)) && refuse_cma() != 0)
        return 5;
    int rc = bring_up(&b);
    if (rc != 0)
        return rc;
    tern_shm_ops.caps((rank + 1) % NRANKS, &caps);
    if (caps.max_packet < 1024)
        return 20;
    if ((rc = exchange(caps.max_packet)) != 0)
        return 30 + rc;
    tern_boot_fence();
    if ((rc = block_and_wake()) != 0)
        return 40 + rc;
    if ((rc = bulk(sc)) != 0)
        return 50 + rc;
    tern_boot_fence();
    return tern_shm_ops.finalize() == 0 ? 0 : 60;
}

static int rank_0(void *sc) { return rank_main(0, sc); }
static int rank_1(void *sc) { return rank_main(1, sc); }
static int rank_2(void *sc) { return rank_main(2, sc); }

/* Forks the three ranks and checks that each one exits with 0. */
static void run_scenario(struct scenario *sc)
{
    int (*fns[NRANKS])(void *) = { rank_0, rank_1, rank_2 };
    pid_t pids[NRANKS];

    store = shared_map(sizeof(*store));
    CU_ASSERT_PTR_NOT_NULL_FATAL(store);
    store->nranks = NRANKS;
    for (int r = 0; r < NRANKS; r++)
        pids[r] = fork_child(fns[r], sc);
    for (int r = 0; r < NRANKS; r++) {
        int status = wait_child(pids[r], 90);
        if (status != 0)
            fprintf(stderr, "\nrank %d failed with code %d\n", r, status);
        CU_ASSERT_EQUAL(status, 0);
    }
    munmap(store, sizeof(*store));
}

/* Whether CMA works between two sibling processes here, as between ranks:
 * one child publishes its identity and waits, another probes it. */
static int idle_sibling(void *arg)
{
    struct tern_shm_cma_id *id = arg;
    tern_shm_cma_self(id);
    for (double t0 = now_s(); now_s() - t0 < 10; )
        usleep(1000);
    return 0;
}

static int probing_sibling(void *arg)
{
    struct tern_shm_cma_id *id = arg;
    int err;
    while (atomic_load((_Atomic int64_t *)&id->pid) == 0)
        usleep(1000);
    return tern_shm_cma_probe(id, &err) ? 0 : 1;
}

static int siblings_can_cma(void)
{
    struct tern_shm_cma_id *id = shared_map(sizeof(*id));
    CU_ASSERT_PTR_NOT_NULL_FATAL(id);
    pid_t idle = fork_child(idle_sibling, id);
    int ok = wait_child(fork_child(probing_sibling, id), 20) == 0;
    kill(idle, SIGKILL);
    wait_child(idle, 10);
    munmap(id, sizeof(*id));
    return ok;
}

static void test_cma_auto(void)
{
    struct scenario sc = { .cma = siblings_can_cma() };

    if (!sc.cma)
        fprintf(stderr, "\nCMA is refused here: expecting the pipelined copy\n");
    setenv("TERN_SHM_CMA", "auto", 1);
    run_scenario(&sc);
}

/* Rank 2 alone refuses: 0 and 1 can still read it, yet single copy must be
 * off with it in both directions, and stay on between 0 and 1. */
static void test_cma_refused_by_one(void)
{
    struct scenario sc = { .cma = siblings_can_cma(), .refuse = 1u << 2 };

    setenv("TERN_SHM_CMA", "auto", 1);
    run_scenario(&sc);
}

static void test_cma_refused(void)
{
    struct scenario sc = { .cma = 0, .refuse = 7 };

    setenv("TERN_SHM_CMA", "auto", 1);
    run_scenario(&sc);
}

static void test_cma_off(void)
{
    struct scenario sc = { .cma = 0 };

    setenv("TERN_SHM_CMA", "off", 1);
    run_scenario(&sc);
    unsetenv("TERN_SHM_CMA");
}

/* A rank alone on its host: init creates nothing, nothing is reachable. */
static int alone(void *arg)
{
    int self = 5;
    struct tern_boot_info b = { .rank = 5, .size = 8, .local_rank = 0,
                                .local_size = 1, .local_ranks = &self,
                                .jobid = "unit-alone" };
    (void)arg;
    if (tern_shm_ops.init(&b) != 0 || tern_shm_ops.connect() != 0
        || tern_shm_ops.ready() != 0)
        return 1;
    for (int r = 0; r < 8; r++)
        if (tern_shm_ops.reachable(r))
            return 2;
    return store->nkv == 0 && tern_shm_ops.finalize() == 0 ? 0 : 3;
}

static void test_alone(void)
{
    store = shared_map(sizeof(*store));
    CU_ASSERT_PTR_NOT_NULL_FATAL(store);
    store->nranks = 1;
    CU_ASSERT_EQUAL(wait_child(fork_child(alone, NULL), 10), 0);
    munmap(store, sizeof(*store));
}

int main(void)
{
    static const struct test_entry tests[] = {
        { "three ranks, TERN_SHM_CMA=auto", test_cma_auto },
        { "three ranks, CMA refused by seccomp in one", test_cma_refused_by_one },
        { "three ranks, CMA refused by seccomp in all", test_cma_refused },
        { "three ranks, TERN_SHM_CMA=off", test_cma_off },
        { "a rank alone on its host creates nothing", test_alone },
        { NULL, NULL },
    };
    return run_suite("shm transport", tests);
}
