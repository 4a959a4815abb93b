/*
 * The progress engine and the transports' lifecycle.
 *
 * tern_progress() polls every transport that serves a peer, then retries the
 * outgoing work that transports refused earlier. Every blocking call and
 * every MPI_Test* goes through it; there is no progress thread.
 *
 * Waiting adapts (TERN_WAIT=auto): poll for a while, then sched_yield so
 * other ranks on an oversubscribed host can run, then block in the
 * transport (futex for shm) with a timeout. When this host has more ranks
 * than cores the poll phase is skipped, since spinning there only steals the
 * core from the rank we are waiting for, and the yield phase is short, since
 * every rank still yielding is one more task each core switches through
 * before the rank that has work gets its turn. The poll phase is also
 * skipped for a while when a rank finds that it was switched out against
 * its will: the cores are busy with other work (see `contended`).
 */
#include <limits.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libmpi/core/comm.h"
#include "libmpi/p2p/p2p.h"
#include "libmpi/p2p/peer.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"
#include "transports/registry.h"

struct tern_p2p_state tern_p2p;

enum wait_mode { WAIT_AUTO, WAIT_POLL, WAIT_YIELD, WAIT_BLOCK };

static const struct tern_tp_ops *active[8];
static int n_active;
static const struct tern_tp_ops *blocker; /* The one that can sleep. */
static int block_ms;                       /* For how long at a time. */
static enum wait_mode wait_mode;
static long spin_polls, yield_ns, eager_cap, report_transports, warn_ns;

/* The smallest eager limit: the notices between the ranks of a collective
 * (collectives/notice.h, 24 bytes at most) are read where they wait, as
 * they arrived, which a message that went rendezvous never is. */
#define EAGER_MIN 64
static int (*progress_hook)(void);
static void (*notice_hook)(void);      /* tern_p2p_watch_notices() */
static unsigned long notices_seen;

/*
 * The yield phase on an oversubscribed host. On the reference 2-vCPU VM a
 * context switch between ranks costs 8-15 us of CPU, so the time per hop of
 * a token ring is set by how many switches each hop takes. With the 2 ms
 * phase every waiting rank stays runnable and each hop of an 8-rank ring took
 * 3.8 switches; with 100 us the ranks that wait longest sleep on the futex
 * and it took 3.1. Medians in us per hop, 2 ms vs 100 us (Open MPI in the
 * same session): quiet host, 9 runs, 8 ranks 20.7 vs 20.7 (18.2), 4 ranks
 * 7.6 vs 6.4 (5.9), 3 ranks 3.9 vs 3.8 (3.8); host shared with other jobs,
 * 5 runs, 8 ranks 34.5 vs 11.6 (43.1), 4 ranks 17.7 vs 11.0 (21.4), 3 ranks
 * 18.4 vs 9.7 (9.5). Windows of 20 and 50 us lost at 4 ranks on the quiet
 * host (7.5 us), where a lap is shorter than the window and waiters that
 * went to sleep must be woken with a futex call. At 8 ranks a 20 us window
 * made the ring faster (7 runs, medians 15.1 vs 19.0; Open MPI 25.0) but
 * an Allreduce of 64 KiB three times slower (220 vs 78 us), since ranks that
 * wait for the slowest one's reduction fall asleep and must be woken.
 */
#define OVERSUB_YIELD_US 100

/*
 * Polling pays only while the rank we wait for has a core of its own. The
 * count of ranks on a host cannot tell when the cores are busy with other
 * work: another job, or the other "hosts" of a test cluster of network
 * namespaces on one machine (tests/cluster: 6 ranks on 2 cores, 2 per
 * "host"). So a wait that outlasted its poll phase asks the kernel whether
 * this thread was switched out against its will since the last such wait:
 * preempted, or a sched_yield of its yield phase let another task run. If
 * it was, the waits of the next CONTENDED_HOLD_NS skip polling, and the
 * first wait after that asks again. On that cluster (tests/cluster/mpi.sh),
 * coll_suite_reduce took 3.9 s with 20000 polls per wait, 0.6 s with none
 * (TERN_WAIT_SPIN=0) and 0.4-1.8 s with this check; next to two busy
 * processes, as under `make -j2 check`, 32 s, 2.3 s and 2.1 s. Two ranks
 * alone on two cores kept their latency, barrier and allreduce times.
 * The price: when mpirun forwards a rank's output, its switch counts too,
 * so a rank that prints a line every few milliseconds waits without
 * polling, and its small messages take about 0.05 us longer. Counting only
 * preemptions (from the end of the previous long wait), or asking for 4
 * switches, missed the cluster's contention: coll_suite_reduce took 3.9 s
 * again.
 */
#define CONTENDED_HOLD_NS (100L * 1000000L)
static int contended;
static uint64_t contended_until;
/* This thread's involuntary switches at its last check (-1: none yet).
 * Per thread: with MPI_THREAD_SERIALIZED, threads take turns in the
 * library, and each counts its own. */
static __thread long switches_seen = -1;

/* At the end of a wait's poll phase, at `now`: updates `contended`. */
static void check_contention(uint64_t now)
{
    if (contended && now < contended_until)
        return;
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return;
    contended = switches_seen >= 0 && ru.ru_nivcsw != switches_seen;
    switches_seen = ru.ru_nivcsw;
    if (contended)
        contended_until = now + CONTENDED_HOLD_NS;
}

/* A rank whose packets come through two transports sleeps in one of them
 * this long at a time, so a packet on the other waits at most this long
 * once the rank has been idle past the yield phase. */
#define MIXED_SLEEP_MS 1

/* A blocking call that has waited this long without progress says so,
 * once per process (TERN_WAIT_WARN_S): a program whose ranks disagree (one
 * never sends what another receives, calls another collective, passed
 * other counts) otherwise hangs without a word. A correct program that
 * waits this long (a rank idle while another computes) gets one line. */
#define WAIT_WARN_S 300

/* While a wait spins, the clock is read every this many polls (tens of
 * microseconds at least), so that short waits never pay for it; once it
 * yields or sleeps, at every poll (where a system call costs more). */
#define WARN_POLLS 1024

/* How long MPI_Finalize waits for unmatched sends before it says so. */
#define FINALIZE_WARN_NS (10L * 1000000000L)

void tern_p2p_read_tunables(int oversubscribed)
{
    const char *m = tern_env_str("TERN_WAIT", "auto",
        "How blocked calls wait: auto (poll, then yield, then sleep), poll, yield or block");
    wait_mode = !strcmp(m, "poll") ? WAIT_POLL : !strcmp(m, "yield") ? WAIT_YIELD
              : !strcmp(m, "block") ? WAIT_BLOCK : WAIT_AUTO;
    spin_polls = tern_env_long("TERN_WAIT_SPIN", oversubscribed ? 0 : 20000,
        "Polls before a waiting rank starts to yield (auto mode)");
    yield_ns = tern_env_long("TERN_WAIT_YIELD_US",
        oversubscribed ? OVERSUB_YIELD_US : 2000,
        "Microseconds a waiting rank yields before it sleeps (auto mode; "
        "shorter by default when the host has more ranks than cores)") * 1000;
    eager_cap = tern_env_long("TERN_EAGER_MAX", 0,
        "Largest message sent eagerly, in bytes (0: as large as the transport's packet; "
        "a value too small for the library's own small messages is raised)");
    if (eager_cap > 0 && eager_cap < EAGER_MIN) {
        tern_log("TERN_EAGER_MAX=%ld is below %d bytes, which the library's own small "
                 "messages need; using %d", eager_cap, EAGER_MIN, EAGER_MIN);
        eager_cap = EAGER_MIN;
    }
    report_transports = tern_env_long("TERN_REPORT_TRANSPORTS", 0,
        "1: each rank prints which transport serves each peer (mpirun --report-transports)");
    long warn_s = tern_env_long("TERN_WAIT_WARN_S", WAIT_WARN_S,
        "Seconds a blocking call waits without progress before the rank says what it "
        "waits for, once (0: never)");
    warn_ns = warn_s <= 0 ? 0 : warn_s > LONG_MAX / 1000000000L ? LONG_MAX
            : warn_s * 1000000000L;
}

static int run_phase(int (*phase)(const struct tern_tp_ops *, const struct tern_boot_info *),
                     const struct tern_boot_info *boot)
{
    const struct tern_tp_ops *const *list;
    int n = tern_tp_list(&list);
    for (int i = 0; i < n; i++) {
        int rc = phase(list[i], boot);
        if (rc)
            return rc;
    }
    return 0;
}

static int do_init(const struct tern_tp_ops *t, const struct tern_boot_info *b) { return t->init(b); }
static int do_connect(const struct tern_tp_ops *t, const struct tern_boot_info *b) { (void)b; return t->connect(); }
static int do_ready(const struct tern_tp_ops *t, const struct tern_boot_info *b) { (void)b; return t->ready(); }
static int do_finalize(const struct tern_tp_ops *t, const struct tern_boot_info *b) { (void)b; return t->finalize(); }

static void note_active(const struct tern_tp_ops *t)
{
    for (int i = 0; i < n_active; i++)
        if (active[i] == t)
            return;
    active[n_active++] = t;
}

/* Picks each peer's transport and the limits the protocols use. */
static int setup_peers(const struct tern_boot_info *boot)
{
    tern_p2p.npeers = boot->size;
    tern_p2p.peers = calloc((size_t)boot->size, sizeof(struct tern_peer));
    const struct tern_tp_ops **chosen = calloc((size_t)boot->size, sizeof *chosen);
    if (!tern_p2p.peers || !chosen) {
        free(chosen);
        return TERN_ENOMEM;
    }
    for (int r = 0; r < boot->size; r++) {
        struct tern_peer *p = &tern_p2p.peers[r];
        p->tp = tern_tp_select(r);
        chosen[r] = p->tp;
        if (!p->tp) {
            tern_log("no transport reaches rank %d (TERN_TRANSPORTS allows too few?)", r);
            free(chosen);
            return TERN_ENOTSUP;
        }
        struct tern_tp_caps caps = { 0 };
        p->tp->caps(r, &caps);
        p->chunk_max = caps.max_packet - sizeof(struct tern_pkt);
        p->eager_max = p->chunk_max;
        if (caps.eager_max && caps.eager_max < p->eager_max)
            p->eager_max = caps.eager_max;
        if (eager_cap > 0 && (size_t)eager_cap < p->eager_max)
            p->eager_max = (size_t)eager_cap;
        p->single_copy_min = caps.single_copy && (p->tp->get_bulk || p->tp->read_start)
                                 ? caps.single_copy_min : SIZE_MAX;
        p->contig_eager_max = p->eager_max;
        if (p->single_copy_min != SIZE_MAX && caps.contig_eager_max &&
            caps.contig_eager_max < p->eager_max)
            p->contig_eager_max = caps.contig_eager_max;
        note_active(p->tp);
        if (p->single_copy_min == SIZE_MAX)
            TERN_LOG(2, "rank %d: transport %s, eager up to %zu bytes, larger pipelined",
                     r, p->tp->name, p->eager_max);
        else
            TERN_LOG(2, "rank %d: transport %s, eager up to %zu bytes (%zu if contiguous), "
                     "single copy from %zu", r, p->tp->name, p->eager_max,
                     p->contig_eager_max, p->single_copy_min);
    }
    if (report_transports || tern_verbose >= 1)
        tern_tp_report(chosen, boot->size);
    free(chosen);
    /* A wait sleeps in one transport. When another one also brings packets
     * (shm within the host and tcp across hosts), the sleep is cut to
     * MIXED_SLEEP_MS, since the other transport cannot wake it. A transport
     * that cannot block at all leaves only yielding. */
    blocker = NULL;
    block_ms = 100;
    for (int i = 0; i < n_active; i++) {
        if (active[i] == &tern_self_ops)
            continue;
        if (!active[i]->block) {
            blocker = NULL;
            break;
        }
        if (blocker)
            block_ms = MIXED_SLEEP_MS;
        else
            blocker = active[i];
    }
    return 0;
}

int tern_p2p_init(const struct tern_boot_info *boot)
{
    tern_p2p_read_tunables(boot->oversubscribed);
    int rc = run_phase(do_init, boot);
    if (!rc)
        rc = tern_boot_fence();
    if (!rc)
        rc = run_phase(do_connect, boot);
    if (!rc)
        rc = tern_boot_fence();
    if (!rc)
        rc = run_phase(do_ready, boot);
    if (!rc)
        rc = setup_peers(boot);
    return rc;
}

void tern_p2p_watch_notices(int mask, int bits, void (*hook)(void))
{
    tern_p2p.notice_mask = mask;
    tern_p2p.notice_bits = bits & mask;
    notice_hook = hook;
}

/* For a wait that found nothing to do: runs the notice hook if notices
 * arrived since it last ran. */
static void idle_notices(void)
{
    if (notice_hook && tern_p2p.notice_arrivals != notices_seen) {
        notices_seen = tern_p2p.notice_arrivals;
        notice_hook();
    }
}

struct finalize_wait {
    uint64_t start;
    int warned;
};

/* True once this rank owes nothing to others. A program whose sends were
 * never received waits here forever, so after a while say why, once. */
static int nothing_owed(void *arg)
{
    struct finalize_wait *w = arg;
    if (!tern_p2p.pending && !tern_p2p.active_sends)
        return 1;
    if (!w->warned && (long)(tern_clock_ns() - w->start) > FINALIZE_WARN_NS) {
        w->warned = 1;
        tern_log("MPI_Finalize is waiting for %d send(s) that no receive has matched; "
                 "every message must be received before MPI_Finalize", tern_p2p.active_sends);
    }
    return 0;
}

/* Polls after the fence of MPI_Finalize at most this often: enough to take
 * in what has arrived, bounded in case a transport always has work. */
#define FINAL_POLLS 16

/* What a rank does while it waits in MPI_Finalize's fence. */
static int fence_work(void)
{
    int n = tern_progress();
    if (n <= 0)
        idle_notices();
    return n;
}

int tern_p2p_quiesce(void)
{
    /* Finish what this rank still owes others (queued packets, sends the
     * user freed) before the job-wide fence. Progress goes on during the
     * fence: a transport may have taken a packet that its provider sends
     * only when polled, while the peer still waits for it. */
    struct finalize_wait w = { tern_clock_ns(), 0 };
    tern_p2p_wait_until(nothing_owed, &w);
    int rc = tern_boot_fence_while(fence_work);
    /* What the peers sent before the fence and has reached this rank goes
     * into the queues, for MPI_Finalize's report of what no call took. */
    for (int i = 0; i < FINAL_POLLS && tern_progress() > 0; i++)
        ;
    return rc;
}

int tern_p2p_finalize(void)
{
    int rc = run_phase(do_finalize, NULL);
    free(tern_p2p.peers);
    /* Messages no receive took (those of collectives that ranks gave up,
     * signature.h) go with the queue. */
    for (struct tern_unexp *u; (u = tern_p2p.mq.unexp_head);) {
        tern_p2p.mq.unexp_head = u->next;
        tern_unexp_free(u);
    }
    tern_unexp_drop_cache();
    tern_p2p_send_release();
    memset(&tern_p2p, 0, sizeof(tern_p2p));
    n_active = 0;
    return rc;
}

int tern_progress(void)
{
    int n = 0;
    for (int i = 0; i < n_active; i++) {
        int rc = active[i]->progress();
        if (rc > 0)
            n += rc;
    }
    if (tern_p2p.pending)
        n += tern_p2p_flush();
    if (progress_hook)
        n += progress_hook();
    tern_p2p.progress_calls++;
    if (n > 0)
        tern_p2p.progress_busy++;
    return n;
}

void tern_progress_set_hook(int (*hook)(void))
{
    progress_hook = hook;
}

/* One step of waiting after `idle` fruitless polls of at most `spin`,
 * since `since`. */
static void back_off(long idle, long spin, uint64_t since)
{
    if (wait_mode == WAIT_POLL || (wait_mode == WAIT_AUTO && idle < spin))
        return;
    int may_block = blocker && !tern_p2p.pending;
    if (wait_mode == WAIT_YIELD || !may_block ||
        (wait_mode == WAIT_AUTO && (long)(tern_clock_ns() - since) < yield_ns)) {
        sched_yield();
        return;
    }
    tern_p2p.sleeps++;
    blocker->block(block_ms);
}

/* The condition the current wait waits for, for tern_p2p_recheck(). */
static int (*wait_cond)(void *);
static void *wait_arg;

int tern_p2p_recheck(void)
{
    if (wait_cond && wait_cond(wait_arg))
        return 1;
    return progress_hook && progress_hook() > 0;
}

/* Whether a long wait was reported (once per process). */
static int warned;

/* The report of a wait that has lasted `ns`: what the caller's describe()
 * says, or what any wait may be stuck on. */
static void report_long_wait(long ns, void (*describe)(void *, char *, size_t), void *arg)
{
    char what[512] = "a blocking call";
    if (describe)
        describe(arg, what, sizeof what);
    warned = 1;
    tern_log("%s has waited %ld s without progress. It returns only once the ranks it "
             "waits for make the matching calls: the same collectives in the same order with "
             "matching counts, a send for each receive, a receive for each send. "
             "(TERN_WAIT_WARN_S=0 turns this message off.)", what, ns / 1000000000L);
}

void tern_p2p_wait_until(int (*cond)(void *), void *arg)
{
    tern_p2p_wait_described(cond, arg, NULL);
}

void tern_p2p_wait_described(int (*cond)(void *), void *arg,
                             void (*describe)(void *arg, char *buf, size_t len))
{
    long idle = 0, polls = 0, spin = contended ? 0 : spin_polls;
    uint64_t since = 0, start = 0;
    int (*outer_cond)(void *) = wait_cond;
    void *outer_arg = wait_arg;
    wait_cond = cond;
    wait_arg = arg;
    while (!cond(arg)) {
        if (warn_ns && !warned
            && (++polls % WARN_POLLS == 0 || (idle >= spin && wait_mode != WAIT_POLL))) {
            uint64_t now = tern_clock_ns();
            if (!start)
                start = now;
            else if ((long)(now - start) >= warn_ns)
                report_long_wait((long)(now - start), describe, arg);
        }
        if (tern_progress() > 0) {
            idle = since = start = 0;
            spin = contended ? 0 : spin_polls;
            continue;
        }
        /* The clock starts when polling ends, so the yield phase runs its
         * full length before the first sleep. */
        if (++idle >= spin && !since) {
            since = tern_clock_ns();
            if (wait_mode == WAIT_AUTO && spin_polls)
                check_contention(since);
        }
        if (idle >= spin || idle % WARN_POLLS == 0)
            idle_notices();
        back_off(idle, spin, since);
    }
    wait_cond = outer_cond;
    wait_arg = outer_arg;
}

static int request_done(void *r)
{
    return ((struct tern_request *)r)->done;
}

/* For the report of a long wait: the operation behind r. */
static void describe_request(void *arg, char *buf, size_t len)
{
    const struct tern_request *r = arg;
    const char *comm = r->comm ? tern_comm_label(r->comm) : "its communicator";
    if (r->kind == TERN_REQ_RECV && r->rank == MPI_ANY_SOURCE)
        snprintf(buf, len, "a receive from any rank on %s", comm);
    else if (r->kind == TERN_REQ_RECV)
        snprintf(buf, len, "a receive from rank %d on %s", r->rank, comm);
    else if (r->kind == TERN_REQ_SEND)
        snprintf(buf, len, "a send to rank %d on %s", r->rank, comm);
    else if (r->call)
        snprintf(buf, len, "%s on %s", r->call, comm);
    else
        snprintf(buf, len, "a nonblocking collective on %s", comm);
}

void tern_p2p_wait(struct tern_request *r)
{
    if (!r->done)
        tern_p2p_wait_described(request_done, r, describe_request);
}
