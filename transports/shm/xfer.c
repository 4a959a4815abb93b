/*
 * Cooperative single copy (see xfer.h).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tern/err.h"
#include "transports/shm/cma.h"
#include "transports/shm/xfer.h"

/* Polls of the done count before the receiver starts yielding its core,
 * which the sender may need to finish its chunk when ranks outnumber
 * cores; and between checks that the sender is still alive. */
#define SPIN_POLLS 1024
#define ALIVE_CHECK_POLLS 65536

/* The chunk index of a descriptor that is being rewritten: no claim takes
 * a chunk at or past nchunks, which is always smaller. */
#define CLOSED UINT32_MAX

/* Whether process_vm_writev works from this process; a sender that failed
 * once stops helping (the probe at start-up only tried reads). */
static int write_refused;

size_t tern_shm_xfer_area_bytes(int local_size)
{
    return (size_t)local_size
           * (sizeof(struct tern_shm_xfer) + sizeof(struct tern_shm_xfer_flag));
}

void tern_shm_xfer_area_init(struct tern_shm_xfer_area *a, void *mem, int local_size)
{
    a->xfers = mem;
    a->flags = (struct tern_shm_xfer_flag *)(a->xfers + local_size);
    a->local_size = local_size;
}

/* Takes the next chunk of generation gen: its index, or -1 when none is
 * left or the descriptor moved on to another transfer. */
static long claim(struct tern_shm_xfer *x, uint32_t gen, uint32_t nchunks)
{
    uint64_t c = atomic_load_explicit(&x->claim, memory_order_acquire);
    for (;;) {
        if ((uint32_t)(c >> 32) != gen || (uint32_t)c >= nchunks)
            return -1;
        if (atomic_compare_exchange_weak_explicit(&x->claim, &c, c + 1,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire))
            return (long)(uint32_t)c;
    }
}

/* The chunk size for a len-byte transfer: half of it, so that each side
 * takes one, up to 1 MiB, so that a sender that comes late still finds
 * work; in whole pages. Fewer, larger chunks beat many small ones, since
 * each is a system call that pins its pages (latency, 2 ranks, 1 MiB:
 * halves 27 us, quarters 33, eighths 35-39, 64 KiB chunks 43; 4 MiB:
 * halves 204-211, quarters 196-203). */
static size_t chunk_size(size_t len)
{
    size_t c = (len / 2 + 4095) & ~(size_t)4095;
    return c < TERN_SHM_XFER_MAX_CHUNK ? c : TERN_SHM_XFER_MAX_CHUNK;
}

/* Chunk i of a len-byte transfer: its offset and size (0 past the end). */
static size_t chunk_at(size_t len, long i, size_t *bytes)
{
    size_t c = chunk_size(len), off = (size_t)i * c;
    if (off >= len) {
        *bytes = 0;
        return 0;
    }
    *bytes = len - off < c ? len - off : c;
    return off;
}

static void finish_chunk(struct tern_shm_xfer *x)
{
    atomic_fetch_add_explicit(&x->done, 1, memory_order_release);
}

/* Waits until all n chunks are done; TERN_EPEER if the sender died with a
 * chunk claimed. */
static int wait_done(struct tern_shm_xfer *x, uint32_t n, pid_t spid)
{
    for (long polls = 1;
         atomic_load_explicit(&x->done, memory_order_acquire) < n; polls++) {
        if (polls % ALIVE_CHECK_POLLS == 0 && kill(spid, 0) != 0 && errno == ESRCH)
            return TERN_EPEER;
        if (polls > SPIN_POLLS)
            sched_yield();
    }
    return 0;
}

int tern_shm_xfer_read(const struct tern_shm_xfer_area *a, int me, int sender, pid_t spid,
                       struct tern_shm_doorbell *db, void *local, uint64_t remote,
                       size_t len)
{
    if (len < TERN_SHM_XFER_MIN || len / TERN_SHM_XFER_MAX_CHUNK >= CLOSED - 1)
        return tern_shm_cma_read(spid, local, remote, len);
    uint32_t n = (uint32_t)((len + chunk_size(len) - 1) / chunk_size(len));
    struct tern_shm_xfer *x = &a->xfers[me];
    uint32_t gen = (uint32_t)(atomic_load_explicit(&x->claim, memory_order_relaxed) >> 32) + 1;
    /* Close the descriptor under the new generation before touching its
     * fields: a helper that still holds the old generation then fails
     * every claim, whatever mix of old and new fields it read (help_one). */
    atomic_store_explicit(&x->claim, (uint64_t)gen << 32 | CLOSED, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&x->done, 0, memory_order_relaxed);
    atomic_store_explicit(&x->failed, 0, memory_order_relaxed);
    atomic_store_explicit(&x->sender, (uint32_t)sender, memory_order_relaxed);
    atomic_store_explicit(&x->nchunks, n, memory_order_relaxed);
    atomic_store_explicit(&x->src, remote, memory_order_relaxed);
    atomic_store_explicit(&x->dst, (uint64_t)(uintptr_t)local, memory_order_relaxed);
    atomic_store_explicit(&x->len, (uint64_t)len, memory_order_relaxed);
    atomic_store_explicit(&x->pid, (int64_t)getpid(), memory_order_relaxed);
    atomic_store_explicit(&x->claim, (uint64_t)gen << 32, memory_order_release);
    atomic_store_explicit(&a->flags[sender].wanted, 1, memory_order_seq_cst);
    tern_shm_doorbell_ring(db);

    int rc = 0;
    long i;
    while ((i = claim(x, gen, n)) >= 0) {
        size_t bytes, off = chunk_at(len, i, &bytes);
        if (!rc)
            rc = tern_shm_cma_read(spid, (char *)local + off, remote + off, bytes);
        finish_chunk(x);
    }
    int wrc = wait_done(x, n, spid);
    if (wrc)
        return wrc;
    uint32_t failed = atomic_load_explicit(&x->failed, memory_order_acquire);
    if (failed && !rc) {
        size_t bytes, off = chunk_at(len, (long)failed - 1, &bytes);
        rc = tern_shm_cma_read(spid, (char *)local + off, remote + off, bytes);
    }
    return rc;
}

/* Writes n bytes at src in this process to dst in process pid. */
static int write_to(pid_t pid, const char *src, uint64_t dst, size_t n)
{
    while (n > 0) {
        struct iovec l = { .iov_base = (void *)src, .iov_len = n };
        struct iovec r = { .iov_base = (void *)(uintptr_t)dst, .iov_len = n };
        ssize_t w = process_vm_writev(pid, &l, 1, &r, 1, 0);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        src += w;
        dst += (uint64_t)w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes the chunks of x that remain to claim, if x is a transfer from this
 * rank; how many it wrote. */
/* Buffers of sends given up (tern_shm_xfer_forget): their owner may have
 * freed them, so this rank writes no chunk from them; a receiver copies
 * such a transfer alone. The last few are kept: a buffer given up long ago
 * is not helped either, which only costs speed. */
#define FORGOTTEN 8
static struct {
    uint64_t lo, hi;
} forgotten[FORGOTTEN];
static unsigned nforgotten;

void tern_shm_xfer_forget(const void *buf, size_t len)
{
    unsigned i = nforgotten++ % FORGOTTEN;
    forgotten[i].lo = (uint64_t)(uintptr_t)buf;
    forgotten[i].hi = forgotten[i].lo + len;
}

static int is_forgotten(uint64_t src, size_t len)
{
    for (unsigned i = 0; i < FORGOTTEN && i < nforgotten; i++)
        if (src < forgotten[i].hi && forgotten[i].lo < src + len)
            return 1;
    return 0;
}

static int help_one(struct tern_shm_xfer *x, int me)
{
    uint64_t c = atomic_load_explicit(&x->claim, memory_order_acquire);
    uint32_t gen = (uint32_t)(c >> 32);
    if ((uint32_t)c == CLOSED ||
        atomic_load_explicit(&x->sender, memory_order_relaxed) != (uint32_t)me)
        return 0;
    uint32_t n = atomic_load_explicit(&x->nchunks, memory_order_relaxed);
    const char *src = (const char *)(uintptr_t)atomic_load_explicit(&x->src, memory_order_relaxed);
    uint64_t dst = atomic_load_explicit(&x->dst, memory_order_relaxed);
    size_t len = (size_t)atomic_load_explicit(&x->len, memory_order_relaxed);
    pid_t pid = (pid_t)atomic_load_explicit(&x->pid, memory_order_relaxed);
    /* If any field above is a later transfer's, the receiver closed the
     * descriptor under a later generation before writing it; this fence
     * (with the receiver's) makes the claims below see that and fail. */
    atomic_thread_fence(memory_order_acquire);
    if (nforgotten && is_forgotten((uint64_t)(uintptr_t)src, len))
        return 0;
    int wrote = 0;
    long i;
    while (!write_refused && (i = claim(x, gen, n)) >= 0) {
        size_t bytes, off = chunk_at(len, i, &bytes);
        if (bytes && write_to(pid, src + off, dst + off, bytes) != 0) {
            /* The receiver reads this chunk itself once the others are done. */
            write_refused = 1;
            atomic_store_explicit(&x->failed, (uint32_t)i + 1, memory_order_relaxed);
        }
        finish_chunk(x);
        wrote++;
    }
    return wrote;
}

int tern_shm_xfer_help(const struct tern_shm_xfer_area *a, int me)
{
    struct tern_shm_xfer_flag *f = &a->flags[me];
    if (!atomic_load_explicit(&f->wanted, memory_order_relaxed) ||
        !atomic_exchange_explicit(&f->wanted, 0, memory_order_acq_rel))
        return 0;
    int wrote = 0;
    for (int r = 0; r < a->local_size; r++)
        if (r != me)
            wrote += help_one(&a->xfers[r], me);
    return wrote;
}
