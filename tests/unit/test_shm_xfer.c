/*
 * Unit tests of the cooperative single copy (transports/shm/xfer.h): a
 * receiver that moves a message alone from a sender that never helps, a
 * stream of transfers with a sender that helps whenever it looks, the
 * sender's side driven by hand (a descriptor written by the test, one call
 * of tern_shm_xfer_help, and descriptors it must leave alone), and a sender
 * that died. The transfer area and the doorbell live in shared memory; the
 * buffers are allocated before each fork, so that both processes know
 * their addresses, and filled by the process that owns the data. Where the
 * kernel refuses CMA here, the tests say so and pass without checking.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "tern/err.h"
#include "transports/shm/cma.h"
#include "transports/shm/xfer.h"
#include "tests/unit/test_shm_util.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
/* The largest transfer, plus room after it to detect writes past its end. */
#define BUF_LEN (6 * MIB)
#define POISON 0xEE

/* Shared between the parent (receiver, local rank 0) and the sender child
 * (local rank 1). */
struct ctl {
    _Atomic int ready;      /* The child filled its buffer. */
    _Atomic int stop;       /* The parent has finished with the child. */
    _Atomic long chunks;    /* Chunks the child wrote as a helper. */
    int help;               /* Whether the child calls tern_shm_xfer_help. */
};

static struct {
    void *mem;
    struct tern_shm_xfer_area area;
    struct tern_shm_doorbell *db;
    struct ctl *ctl;
    unsigned char *src;     /* The sender's data, filled in the child only. */
    unsigned char *dst;     /* The receiver's buffer, in the parent. */
} fx;

/* A byte that depends on its position, and differs between positions a
 * whole page or chunk apart, so that a chunk copied to the wrong offset
 * shows. */
static unsigned char pattern(size_t i)
{
    return (unsigned char)(((uint32_t)i * 2654435761u) >> 24);
}

static void fill(unsigned char *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        b[i] = pattern(i);
}

/* The index of the first byte that does not match the pattern, or len. */
static size_t first_bad(const unsigned char *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (b[i] != pattern(i))
            return i;
    return len;
}

/* Whether the receiver's bytes [from, to) still hold the poison. */
static int poisoned(size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (fx.dst[i] != POISON)
            return 0;
    return 1;
}

/* The chunk rule of xfer.c, restated here: a chunk is half the message
 * rounded up to whole 4096-byte pages, at most TERN_SHM_XFER_MAX_CHUNK;
 * the last chunk takes what remains. Returns the number of chunks. */
static uint32_t expect_chunks(size_t len)
{
    size_t c = (len / 2 + 4095) / 4096 * 4096;
    if (c > TERN_SHM_XFER_MAX_CHUNK)
        c = TERN_SHM_XFER_MAX_CHUNK;
    return (uint32_t)((len + c - 1) / c);
}

static void setup(void)
{
    fx.mem = shared_map(tern_shm_xfer_area_bytes(2));
    fx.db = shared_map(sizeof(*fx.db));
    fx.ctl = shared_map(sizeof(*fx.ctl));
    fx.src = malloc(BUF_LEN);
    fx.dst = malloc(BUF_LEN);
    CU_ASSERT_FATAL(fx.mem && fx.db && fx.ctl && fx.src && fx.dst);
    tern_shm_xfer_area_init(&fx.area, fx.mem, 2);
}

static void teardown(void)
{
    munmap(fx.mem, tern_shm_xfer_area_bytes(2));
    munmap(fx.db, sizeof(*fx.db));
    munmap(fx.ctl, sizeof(*fx.ctl));
    free(fx.src);
    free(fx.dst);
}

/* Child: reports whether it may read its parent, then waits to be probed. */
static int probe_parent(void *arg)
{
    int *fds = arg;
    struct tern_shm_cma_id parent;
    int err;
    tern_shm_cma_self(&parent);           /* The same address as in the parent. */
    parent.pid = (int64_t)getppid();
    char ok = (char)tern_shm_cma_probe(&parent, &err), c;
    if (write(fds[1], &ok, 1) != 1 || read(fds[2], &c, 1) != 1)
        return 1;
    return 0;
}

/* Whether CMA works both ways between a parent and its child: the helper
 * writes into the receiver with process_vm_writev, which the kernel allows
 * exactly where it allows process_vm_readv. Probed once per run. */
static int cma_works(void)
{
    static int works = -1;
    int fds[4], err = 0;
    char ok = 0;
    if (works >= 0)
        return works;
    CU_ASSERT_FATAL(pipe(fds) == 0 && pipe(fds + 2) == 0);
    pid_t pid = fork_child(probe_parent, fds);
    CU_ASSERT_FATAL(pid > 0);
    struct tern_shm_cma_id child;
    tern_shm_cma_self(&child);
    child.pid = (int64_t)pid;
    int got = read(fds[0], &ok, 1) == 1;
    CU_ASSERT(got);
    works = got && ok && tern_shm_cma_probe(&child, &err);
    CU_ASSERT(write(fds[3], "x", 1) == 1);
    CU_ASSERT_EQUAL(wait_child(pid, 10), 0);
    for (int i = 0; i < 4; i++)
        close(fds[i]);
    if (!works)
        fprintf(stderr, "\nCMA is refused here (%s): skipping the xfer tests\n",
                err ? strerror(err) : "the child may not read its parent");
    return works;
}

#define SKIP_WITHOUT_CMA()                                                 \
    do {                                                                   \
        if (!cma_works()) {                                                \
            CU_PASS("CMA refused here; test skipped");                     \
            return;                                                        \
        }                                                                  \
    } while (0)

/* Child: fills its buffer, then idles or helps until told to stop. */
static int sender_main(void *arg)
{
    (void)arg;
    fill(fx.src, BUF_LEN);
    atomic_store(&fx.ctl->ready, 1);
    double deadline = now_s() + 60;
    while (!atomic_load(&fx.ctl->stop)) {
        if (fx.ctl->help)
            atomic_fetch_add(&fx.ctl->chunks, tern_shm_xfer_help(&fx.area, 1));
        else
            usleep(200);
        if (now_s() > deadline)
            return 3;
    }
    return 0;
}

static pid_t start_sender(int help)
{
    fx.ctl->help = help;
    pid_t pid = fork_child(sender_main, NULL);
    CU_ASSERT_FATAL(pid > 0);
    double deadline = now_s() + 10;
    while (!atomic_load(&fx.ctl->ready) && now_s() < deadline)
        usleep(100);
    if (!atomic_load(&fx.ctl->ready)) {
        kill(pid, SIGKILL);
        wait_child(pid, 1);
        CU_FAIL_FATAL("the sender child did not fill its buffer in time");
    }
    return pid;
}

static void stop_sender(pid_t pid)
{
    atomic_store(&fx.ctl->stop, 1);
    CU_ASSERT_EQUAL(wait_child(pid, 10), 0);
}

/* One read of len bytes from the sender child, checked; its chunk count
 * (0 below TERN_SHM_XFER_MIN). */
static uint32_t checked_read(pid_t pid, size_t len)
{
    struct tern_shm_xfer *x = &fx.area.xfers[0];
    uint64_t before = atomic_load(&x->claim);
    memset(fx.dst, POISON, len + 4096);
    CU_ASSERT_EQUAL(tern_shm_xfer_read(&fx.area, 0, 1, pid, fx.db, fx.dst,
                                       (uint64_t)(uintptr_t)fx.src, len), 0);
    CU_ASSERT_EQUAL(first_bad(fx.dst, len), len);
    CU_ASSERT(poisoned(len, len + 4096));
    if (len < TERN_SHM_XFER_MIN) {
        /* A short message is read directly: the descriptor is not used. */
        CU_ASSERT_EQUAL(atomic_load(&x->claim), before);
        return 0;
    }
    uint32_t n = expect_chunks(len);
    CU_ASSERT_EQUAL(atomic_load(&x->nchunks), n);
    CU_ASSERT_EQUAL(atomic_load(&x->done), n);
    CU_ASSERT_EQUAL(atomic_load(&x->failed), 0);
    /* A new generation, with every chunk claimed. */
    CU_ASSERT_EQUAL(atomic_load(&x->claim), (((before >> 32) + 1) << 32) | n);
    return n;
}

static void test_receiver_alone(void)
{
    SKIP_WITHOUT_CMA();
    setup();
    pid_t pid = start_sender(0);
    static const size_t sizes[] = { 3 * 4096 + 5, 64 * KIB, MIB + 123, 5 * MIB + 7 };
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
        checked_read(pid, sizes[k]);
    /* The sender never looked, so its help flag is still raised. */
    CU_ASSERT_EQUAL(atomic_load(&fx.area.flags[1].wanted), 1);
    stop_sender(pid);
    CU_ASSERT_EQUAL(atomic_load(&fx.ctl->chunks), 0);
    teardown();
}

static void test_helped(void)
{
    SKIP_WITHOUT_CMA();
    setup();
    pid_t pid = start_sender(1);
    long total = 0;
    for (int round = 0; round < 20; round++)
        total += checked_read(pid, round % 2 ? 3 * MIB : MIB + 4097);
    stop_sender(pid);
    long helped = atomic_load(&fx.ctl->chunks);
    printf("\n    the sender wrote %ld of %ld chunks ", helped, total);
    CU_ASSERT(helped >= 0 && helped <= total);
    teardown();
}

/* Child: fills its buffer and looks for work once; exits with the count. */
static int help_once(void *arg)
{
    (void)arg;
    fill(fx.src, BUF_LEN);
    return tern_shm_xfer_help(&fx.area, 1);
}

/* Writes descriptor 0 by hand as tern_shm_xfer_read would for a transfer of
 * len bytes from `sender` in generation gen with `claimed` chunks already
 * claimed and done, raises rank 1's flag when `want`, runs help_once in a
 * child and returns its exit status. */
static int help_by_hand(size_t len, uint32_t gen, uint32_t claimed, uint32_t sender,
                        uint32_t want)
{
    struct tern_shm_xfer *x = &fx.area.xfers[0];
    memset(fx.dst, POISON, len + 4096);
    atomic_store(&x->done, claimed);
    atomic_store(&x->failed, 0);
    atomic_store(&x->sender, sender);
    atomic_store(&x->nchunks, expect_chunks(len));
    atomic_store(&x->src, (uint64_t)(uintptr_t)fx.src);
    atomic_store(&x->dst, (uint64_t)(uintptr_t)fx.dst);
    atomic_store(&x->len, (uint64_t)len);
    atomic_store(&x->pid, (int64_t)getpid());
    atomic_store(&x->claim, ((uint64_t)gen << 32) | claimed);
    atomic_store(&fx.area.flags[1].wanted, want);
    return wait_child(fork_child(help_once, NULL), 30);
}

/* Checks that a helper left descriptor 0 and the buffer as they were. */
static void check_untouched(size_t len, uint32_t gen, uint32_t claimed)
{
    struct tern_shm_xfer *x = &fx.area.xfers[0];
    CU_ASSERT_EQUAL(atomic_load(&x->claim), ((uint64_t)gen << 32) | claimed);
    CU_ASSERT_EQUAL(atomic_load(&x->done), claimed);
    CU_ASSERT_EQUAL(atomic_load(&x->failed), 0);
    CU_ASSERT(poisoned(0, len + 4096));
}

static void test_sender_side(void)
{
    SKIP_WITHOUT_CMA();
    setup();
    struct tern_shm_xfer *x = &fx.area.xfers[0];
    /* The chunk counts, worked by hand from the rule: 64 KiB + 1 has 32 KiB
     * chunks, the third of one byte; 1 MiB halves; 3 MiB + 5 and 5 MiB + 7
     * take 1 MiB chunks, the last a short one. */
    static const struct { size_t len; uint32_t n; } cases[] = {
        { 64 * KIB + 1, 3 }, { MIB, 2 }, { 3 * MIB + 5, 4 }, { 5 * MIB + 7, 6 },
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        size_t len = cases[k].len;
        uint32_t gen = 7 + (uint32_t)k, n = cases[k].n;
        CU_ASSERT_EQUAL(expect_chunks(len), n);
        /* Nobody else claims: the helper writes every chunk. */
        CU_ASSERT_EQUAL(help_by_hand(len, gen, 0, 1, 1), (int)n);
        CU_ASSERT_EQUAL(atomic_load(&x->done), n);
        CU_ASSERT_EQUAL(atomic_load(&x->failed), 0);
        CU_ASSERT_EQUAL(atomic_load(&x->claim), ((uint64_t)gen << 32) | n);
        CU_ASSERT_EQUAL(atomic_load(&fx.area.flags[1].wanted), 0);
        CU_ASSERT_EQUAL(first_bad(fx.dst, len), len);
        CU_ASSERT(poisoned(len, len + 4096));
    }
    /* A late helper: the flag is raised but every chunk is claimed. */
    size_t len = MIB;
    uint32_t n = expect_chunks(len);
    CU_ASSERT_EQUAL(help_by_hand(len, 20, n, 1, 1), 0);
    check_untouched(len, 20, n);
    CU_ASSERT_EQUAL(atomic_load(&fx.area.flags[1].wanted), 0);
    /* A transfer from another sender (rank 0) is not rank 1's to help. */
    CU_ASSERT_EQUAL(help_by_hand(len, 21, 0, 0, 1), 0);
    check_untouched(len, 21, 0);
    /* Without the flag, rank 1 does not look at all. */
    CU_ASSERT_EQUAL(help_by_hand(len, 22, 0, 1, 0), 0);
    check_untouched(len, 22, 0);
    /* A descriptor being rewritten for the next transfer (closed under the
     * new generation, its fields naming rank 1 and chunks left) is not
     * helped either: the fields may mix two transfers. */
    CU_ASSERT_EQUAL(help_by_hand(len, 23, UINT32_MAX, 1, 1), 0);
    CU_ASSERT_EQUAL(atomic_load(&x->claim), ((uint64_t)23 << 32) | UINT32_MAX);
    CU_ASSERT(poisoned(0, len + 4096));
    teardown();
}

static int exit_now(void *arg)
{
    (void)arg;
    return 0;
}

static void test_sender_died(void)
{
    SKIP_WITHOUT_CMA();
    setup();
    pid_t pid = fork_child(exit_now, NULL);
    CU_ASSERT_FATAL(pid > 0);
    CU_ASSERT_EQUAL(wait_child(pid, 10), 0);
    /* The child is gone and reaped now. */
    fprintf(stderr, "\n(expected error lines follow)\n");
    double t0 = now_s();
    CU_ASSERT_EQUAL(tern_shm_xfer_read(&fx.area, 0, 1, pid, fx.db, fx.dst,
                                       (uint64_t)(uintptr_t)fx.src, MIB), TERN_EPEER);
    CU_ASSERT_EQUAL(atomic_load(&fx.area.xfers[0].done), expect_chunks(MIB));
    CU_ASSERT_EQUAL(tern_shm_xfer_read(&fx.area, 0, 1, pid, fx.db, fx.dst,
                                       (uint64_t)(uintptr_t)fx.src, 4096), TERN_EPEER);
    CU_ASSERT(now_s() - t0 < 5);
    teardown();
}

int main(void)
{
    static const struct test_entry tests[] = {
        { "receiver alone", test_receiver_alone },
        { "helped transfers", test_helped },
        { "sender side by hand", test_sender_side },
        { "sender died", test_sender_died },
        { NULL, NULL },
    };
    return run_suite("shm xfer", tests);
}
