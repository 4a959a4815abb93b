/*
 * The doorbell's sleeping side and its wake-up, on a shared futex. The
 * memory-ordering argument that makes sure no wake-up is lost is in
 * doorbell.h; this file only keeps the orders it relies on.
 */
#include <errno.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tern/log.h"
#include "transports/shm/doorbell.h"

int tern_shm_doorbell_asym;

static long membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

int tern_shm_doorbell_register(void)
{
    long cmds = membarrier(MEMBARRIER_CMD_QUERY);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) ||
        !(cmds & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED))
        return 0;
    return membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val,
                  const struct timespec *timeout)
{
    /* No FUTEX_PRIVATE_FLAG: the word lives in memory shared between
     * processes. */
    return syscall(SYS_futex, (uint32_t *)addr, op, val, timeout, NULL, 0);
}

uint32_t tern_shm_doorbell_arm(struct tern_shm_doorbell *db)
{
    /* Acquire keeps the store below from moving above this load. */
    uint32_t ticket = atomic_load_explicit(&db->word, memory_order_acquire);
    atomic_store_explicit(&db->sleeping, 1, memory_order_seq_cst);
    if (!tern_shm_doorbell_asym || membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0)
        atomic_thread_fence(memory_order_seq_cst);
    return ticket;
}

void tern_shm_doorbell_disarm(struct tern_shm_doorbell *db)
{
    atomic_store_explicit(&db->sleeping, 0, memory_order_relaxed);
}

int tern_shm_doorbell_sleep(struct tern_shm_doorbell *db, uint32_t ticket,
                            int timeout_ms)
{
    struct timespec ts, *tsp = NULL;
    int rc = 0;

    if (timeout_ms >= 0) {
        ts.tv_sec = timeout_ms / 1000;
        ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
        tsp = &ts;
    }
    /* EAGAIN (the word moved on since the ticket: a sender rang) and EINTR
     * (a signal) are both early, harmless returns. */
    if (futex(&db->word, FUTEX_WAIT, ticket, tsp) != 0 && errno == ETIMEDOUT)
        rc = TERN_ETIMEDOUT;
    tern_shm_doorbell_disarm(db);
    return rc;
}

void tern_shm_doorbell_wake(struct tern_shm_doorbell *db)
{
    atomic_fetch_add_explicit(&db->word, 1, memory_order_seq_cst);
    futex(&db->word, FUTEX_WAKE, 1, NULL);
}
