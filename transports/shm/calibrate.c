/*
 * The start-up measurement of the copy through the cells against the
 * single-copy read (see calibrate.h).
 *
 * The leader sends rounds until enough samples count (SAMPLES below); a
 * round is, at each of the two sizes, one message each way: COPY carries the bytes in the packet and the follower
 * copies them out, READ carries the leader's buffer address and the
 * follower reads them with CMA. Each message is answered by an ACK, and the
 * leader times the message from before its push until the ACK arrived, so
 * both ways pay the same two packet hand-overs. The fastest of the rounds
 * counts, which leaves out the interruptions of a busy machine. The rings
 * are empty before and after: nothing else runs on them until the
 * transport is ready.
 *
 * The leader writes its buffer once, not before every message. That is how
 * benchmarks send (OSU, IMB: the same buffer again and again), and there
 * the read wins by far where it wins at all. A sender that has just
 * written its data makes the read pull those lines out of its cache, and
 * then the cells do as well or better (docs/protocols.md has the figures);
 * Open MPI and MPICH read in one copy in both cases.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"
#include "transports/shm/calibrate.h"
#include "transports/shm/cma.h"

/* Rounds run until each way at each size has SAMPLES that count, at most
 * MAX_ROUNDS; with fewer than MIN_SAMPLES the measurement is void. A sample
 * counts only when the two ranks ran on different CPUs: on one CPU every
 * message is two context switches, which says nothing about the copies
 * (unbound ranks on a busy host share a CPU now and then). */
#define SAMPLES 12
#define MIN_SAMPLES 4
#define MAX_ROUNDS 64

/* The largest message measured, the size of each side's buffer. */
#define SIZE_MAX_MEASURED 16384

/* Polls before a waiting rank starts yielding its core, which a peer that
 * shares the core needs to answer. */
#define SPIN_POLLS 2000

/* How long local ranks 0 and 1 wait for each other's next packet, and the
 * others for the answer, before they look whether the rank they wait for
 * still runs: they wait on while it does (a busy host delays a rank's
 * start-up by many seconds: 8 ranks of a test on 2 cores beside other
 * jobs, load 15, took more than 10 s), and give up once it has ended. */
#define TIMEOUT_NS (10L * 1000000000L)
#define WAIT_NS (30L * 1000000000L)

enum { PKT_COPY = 1, PKT_READ, PKT_ACK, PKT_DONE };

struct calib_pkt {
    uint32_t kind;
    uint32_t len;
    uint64_t addr;          /* PKT_READ: the leader's buffer. */
    int32_t cpu;            /* Where the sender of the packet runs. */
    uint32_t failed;        /* PKT_ACK: 1 when the read failed. */
};

/* Each side's buffer: static, so that measuring cannot run out of memory. */
static char buffer[SIZE_MAX_MEASURED];

/* Whether the process `pid` still runs (a zombie counts until it is
 * reaped; 0 when pid is not known). */
static int runs(pid_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* Whether a wait that began at *start (0: not yet) has lasted `limit` ns
 * while process `pid` ended: then 1. Else 0, and the clock starts again
 * each time the limit passes with pid still running. */
static int gave_up(uint64_t *start, uint64_t limit, pid_t pid)
{
    uint64_t t = tern_clock_ns();
    if (!*start)
        *start = t;
    else if (t - *start > limit) {
        if (!runs(pid))
            return 1;
        *start = t;
    }
    return 0;
}

/* The next packet from the partner, process `partner`; NULL once the
 * partner has ended. */
static struct tern_shm_cell *wait_packet(struct tern_shm_ring *in, pid_t partner)
{
    uint64_t start = 0;
    for (long polls = 0;; polls++) {
        struct tern_shm_cell *c = tern_shm_ring_peek(in);
        if (c)
            return c;
        if (polls < SPIN_POLLS)
            continue;
        if (gave_up(&start, TIMEOUT_NS, partner))
            return NULL;
        sched_yield();
    }
}

/* Pushes a packet, waiting while the ring is full (it never is: one packet
 * travels at a time). */
static int push(struct tern_shm_ring *out, const struct calib_pkt *h,
                const void *payload, size_t len)
{
    int rc;
    while ((rc = tern_shm_ring_push(out, h, sizeof *h, payload, len)) == TERN_EAGAIN)
        sched_yield();
    return rc;
}

/* Sends one message of n bytes the given way; its time in *ns, or -1 when
 * the two ranks ran on the same CPU. A read that failed on the follower's
 * side ends the measurement with TERN_EIO. */
static int exchange(struct tern_shm_ring *out, struct tern_shm_ring *in, pid_t partner,
                    char *src, size_t n, uint32_t kind, double *ns)
{
    struct calib_pkt h = { .kind = kind, .len = (uint32_t)n,
                           .addr = (uint64_t)(uintptr_t)src, .cpu = sched_getcpu() };
    uint64_t t0 = tern_clock_ns();
    int rc = push(out, &h, kind == PKT_COPY ? src : NULL, kind == PKT_COPY ? n : 0);
    if (rc)
        return rc;
    struct tern_shm_cell *c = wait_packet(in, partner);
    if (!c)
        return TERN_ETIMEDOUT;
    *ns = (double)(tern_clock_ns() - t0);
    struct calib_pkt ack;
    memcpy(&ack, c->data, sizeof ack);
    tern_shm_ring_pop(in);
    if (ack.cpu == sched_getcpu())
        *ns = -1;
    return ack.kind == PKT_ACK && !ack.failed ? 0 : TERN_EIO;
}

/* The two sizes: the larger as big as a packet holds, up to
 * SIZE_MAX_MEASURED, in whole KiB; the smaller a quarter of it. */
static void choose_sizes(size_t max_packet, size_t size[2])
{
    size_t big = max_packet - sizeof(struct calib_pkt);
    if (big > SIZE_MAX_MEASURED)
        big = SIZE_MAX_MEASURED;
    big &= ~(size_t)1023;
    size[1] = big;
    size[0] = big / 4;
}

/* Local rank 0's half: measures over the rings and fills *c. Returns 0,
 * TERN_EIO when a read failed on the partner's side, TERN_EAGAIN when too
 * few samples counted, or TERN_ETIMEDOUT. */
static int lead(const struct tern_shm_calib_link *link, struct tern_shm_costs *c)
{
    choose_sizes(tern_shm_ring_max_packet(link->out), c->size);
    memset(buffer, 0x5a, c->size[1]);
    int rc = 0, counted[2][2] = { { 0 } }, fewest = 0;
    for (int s = 0; s < 2; s++)
        c->copy[s] = c->read[s] = 1e18;
    for (int round = 0; round < MAX_ROUNDS && fewest < SAMPLES && !rc; round++) {
        for (int s = 0; s < 2 && !rc; s++) {
            /* Alternate which way goes first, so that neither always finds
             * the caches as the other left them. */
            for (int k = 0; k < 2 && !rc; k++) {
                int read = (k + round) % 2;
                double ns = 0;
                rc = exchange(link->out, link->in, link->pid, buffer, c->size[s],
                              read ? PKT_READ : PKT_COPY, &ns);
                double *best = read ? &c->read[s] : &c->copy[s];
                if (rc || ns < 0)
                    continue;
                counted[s][read]++;
                if (ns < *best)
                    *best = ns;
            }
        }
        fewest = counted[0][0];
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 2; k++)
                fewest = counted[s][k] < fewest ? counted[s][k] : fewest;
    }
    struct calib_pkt done = { .kind = PKT_DONE };
    int rc2 = push(link->out, &done, NULL, 0);
    if (!rc && fewest < MIN_SAMPLES)
        rc = TERN_EAGAIN;
    return rc ? rc : rc2;
}

/* Takes this process off `cpu` for the measurement, if its affinity allows
 * another one, keeping the old mask in *saved: unbound ranks that answer
 * each other tend to stay on one CPU, where no sample would count (1 run
 * in 6 with 8 ranks on 2 cores). Returns whether it moved. */
static int move_off(int cpu, cpu_set_t *saved)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof *saved, saved) != 0)
        return 0;
    cpu_set_t others = *saved;
    CPU_CLR(cpu, &others);
    if (CPU_COUNT(&others) == 0)
        return 0;
    return sched_setaffinity(0, sizeof others, &others) == 0;
}

/* Local rank 1's half: copies or reads what the leader sends until it
 * says it is done. Returns 0 or TERN_ETIMEDOUT. */
static int follow(struct tern_shm_ring *out, struct tern_shm_ring *in, pid_t leader)
{
    char *dst = buffer;
    int rc = 0, moved = 0;
    cpu_set_t saved;
    for (;;) {
        struct tern_shm_cell *c = wait_packet(in, leader);
        if (!c) {
            rc = TERN_ETIMEDOUT;
            break;
        }
        struct calib_pkt h;
        memcpy(&h, c->data, sizeof h);
        if (!moved && h.kind != PKT_DONE && h.cpu == sched_getcpu())
            moved = move_off(h.cpu, &saved);
        size_t n = h.len <= SIZE_MAX_MEASURED ? h.len : SIZE_MAX_MEASURED;
        int failed = 0;
        if (h.kind == PKT_COPY)
            memcpy(dst, c->data + sizeof h, n);
        else if (h.kind == PKT_READ)
            failed = tern_shm_cma_read(leader, dst, h.addr, n) != 0;
        tern_shm_ring_pop(in);
        if (h.kind == PKT_DONE)
            break;
        /* A failed read is answered too, so that the leader stops measuring
         * and keeps the copy through the cells. */
        struct calib_pkt ack = { .kind = PKT_ACK, .cpu = sched_getcpu(),
                                 .failed = (uint32_t)failed };
        rc = push(out, &ack, NULL, 0);
        if (rc)
            break;
    }
    if (moved)
        sched_setaffinity(0, sizeof saved, &saved);
    return rc;
}

/* Smallest power of two >= x (x <= 2^62). */
static size_t pow2_at_least(double x)
{
    size_t p = 1;
    while ((double)p < x)
        p <<= 1;
    return p;
}

size_t tern_shm_contig_eager_max(const struct tern_shm_costs *c)
{
    double dn = (double)(c->size[1] - c->size[0]);
    double copy_slope = (c->copy[1] - c->copy[0]) / dn;
    double read_slope = (c->read[1] - c->read[0]) / dn;
    if (dn <= 0 || copy_slope <= read_slope)
        return 0;
    /* The lines a + b n meet where the read's extra fixed cost is paid
     * back by its saving per byte. */
    double copy_base = c->copy[0] - copy_slope * (double)c->size[0];
    double read_base = c->read[0] - read_slope * (double)c->size[0];
    double cross = (read_base - copy_base) / (copy_slope - read_slope);
    /* Within the sizes measured, only two answers: whether MPI_Send of a
     * few KiB blocks until the receiver comes should depend on the
     * machine, not on the noise of one start-up. */
    if (cross <= (double)c->size[1])
        cross = TERN_SHM_EAGER_MIN;
    if (cross > (double)((size_t)1 << 40))
        return 0;
    return pow2_at_least(cross);
}

/* Local rank 0: measures (when it can) and publishes the answer. */
static int publish(_Atomic uint64_t *shared, int measure,
                   const struct tern_shm_calib_link *link, uint64_t *eager_max)
{
    uint64_t v = TERN_SHM_READ_NEVER;
    int rc = 0;
    if (measure && link) {
        struct tern_shm_costs c;
        rc = lead(link, &c);
        if (rc == 0) {
            size_t max = tern_shm_contig_eager_max(&c);
            v = max ? max : TERN_SHM_READ_NEVER;
            TERN_LOG(2, "shm: %zu B / %zu B took %.2f / %.2f us through the cells and "
                     "%.2f / %.2f us read in one copy", c.size[0], c.size[1],
                     c.copy[0] / 1e3, c.copy[1] / 1e3, c.read[0] / 1e3, c.read[1] / 1e3);
            if (max)
                TERN_LOG(2, "shm: contiguous messages over %zu B go single copy", max);
            else
                TERN_LOG(2, "shm: the copy through the cells wins at every size");
        } else if (rc == TERN_EIO) {
            TERN_LOG(1, "shm: a single-copy read failed while measuring it at start-up; "
                     "messages on this host go through the cells");
            rc = 0;
        } else if (rc == TERN_EAGAIN) {
            TERN_LOG(2, "shm: local ranks 0 and 1 shared a CPU while measuring single-copy "
                     "reads; messages on this host go through the cells");
            rc = 0;
        } else {
            tern_log("shm: local rank 1 (rank %d) ended during the start-up measurement "
                     "of single-copy reads", link->world);
        }
    }
    atomic_store_explicit(shared, v, memory_order_release);
    *eager_max = v;
    return rc;
}

int tern_shm_calibrate(_Atomic uint64_t *shared, int local_rank, int measure,
                       const struct tern_shm_calib_link *link, pid_t leader,
                       uint64_t *eager_max)
{
    if (local_rank == 0)
        return publish(shared, measure, link, eager_max);
    *eager_max = TERN_SHM_READ_NEVER;
    if (!measure)
        return 0;
    if (local_rank == 1 && link && follow(link->out, link->in, link->pid) != 0) {
        tern_log("shm: local rank 0 (rank %d) ended during the start-up measurement of "
                 "single-copy reads", link->world);
        return TERN_ETIMEDOUT;
    }
    /* Others sleep in short naps: on a host with more ranks than cores they
     * must leave the cores to the two that measure. */
    uint64_t start = 0;
    uint64_t v;
    while ((v = atomic_load_explicit(shared, memory_order_acquire)) == 0) {
        if (gave_up(&start, WAIT_NS, leader)) {
            tern_log("shm: no answer from local rank 0 after %ld s of waiting for its "
                     "start-up measurement of single-copy reads, and it %s", WAIT_NS / 1000000000L,
                     leader > 0 ? "has ended" : "may have ended (its pid is not known here)");
            return TERN_ETIMEDOUT;
        }
        struct timespec nap = { 0, 20000 };
        nanosleep(&nap, NULL);
    }
    *eager_max = v;
    return 0;
}
