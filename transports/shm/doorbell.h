/*
 * A per-rank doorbell in shared memory, so that an idle receiver can sleep
 * in the kernel (futex) instead of spinning, while senders pay no system call
 * unless the receiver really sleeps.
 *
 * Receiver, in block():
 *     ticket = tern_shm_doorbell_arm(db);     announce "I am about to sleep"
 *     if (any incoming ring has a packet)      re-check after announcing
 *         tern_shm_doorbell_disarm(db);
 *     else
 *         tern_shm_doorbell_sleep(db, ticket, timeout_ms);
 * Sender, after publishing a packet into the receiver's ring:
 *     tern_shm_doorbell_ring(db);
 *
 * Why no wake-up is lost: arm() stores sleeping = 1 and then issues a full
 * fence before the receiver re-checks its rings; ring() issues a full fence
 * after the packet's sequence word was stored and before it loads sleeping.
 * Of two stores each followed by a full fence and a load of the other's
 * location, at least one load sees the other store (store-buffer litmus). So
 * either the receiver sees the packet and does not sleep, or the sender sees
 * sleeping == 1 and bumps the futex word. The ticket was read before
 * sleeping = 1 was stored (release), the sender reads sleeping with acquire
 * before bumping, so the bump happens after the ticket was read and FUTEX_WAIT, which
 * compares the word with the ticket inside the kernel, returns at once or is
 * woken by the FUTEX_WAKE that follows the bump.
 *
 * One doorbell has one receiver (its owner) and any number of senders.
 *
 * Asymmetric mode: the sender's full fence costs a synchronous cache miss on
 * every packet (it waits for the store into the receiver's ring to leave
 * the store buffer), which cuts small-message bandwidth by a third. When
 * every rank on the host registered for MEMBARRIER_CMD_GLOBAL_EXPEDITED,
 * senders use only a compiler barrier and the receiver, in arm(), calls
 * membarrier() instead of its own fence. That call runs a full barrier on
 * every CPU that runs a registered process (and a context switch is one for
 * those not running), so each sender either published its packet before
 * that barrier, and the receiver's re-check sees it, or loads sleeping after
 * it, and sees 1. The receiver only arms after it polled and yielded for a
 * while, so the system call is off every fast path. Not on a host with more
 * ranks than cores (shm.c): there ranks sleep every few messages and each
 * membarrier() interrupts the core of the rank that has work.
 */
#ifndef TERN_SHM_DOORBELL_H
#define TERN_SHM_DOORBELL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "transports/shm/ring.h"

struct tern_shm_doorbell {
    alignas(TERN_SHM_CACHE_LINE) _Atomic uint32_t sleeping; /* 1 while armed. */
    _Atomic uint32_t word;                                  /* The futex word. */
};

/* 1 when all ranks on this host use the asymmetric mode above; set once by
 * shm.c at start-up, before any packet is sent. */
extern int tern_shm_doorbell_asym;

/* Registers this process for the asymmetric mode; 1 if it can take part. */
int tern_shm_doorbell_register(void);

/* Receiver: announces that it is about to sleep; returns the ticket. */
uint32_t tern_shm_doorbell_arm(struct tern_shm_doorbell *db);

/* Receiver: withdraws the announcement without sleeping. */
void tern_shm_doorbell_disarm(struct tern_shm_doorbell *db);

/* Receiver: sleeps until rung or timeout_ms passes (negative: no timeout),
 * then disarms. Returns 0 when woken (possibly spuriously) or TERN_ETIMEDOUT. */
int tern_shm_doorbell_sleep(struct tern_shm_doorbell *db, uint32_t ticket,
                            int timeout_ms);

/* Sender's slow path: bumps the futex word and wakes the receiver. */
void tern_shm_doorbell_wake(struct tern_shm_doorbell *db);

/* Sender: rings n doorbells after one store (a flag every one of their
 * owners reads). One fence serves them all: each load of `sleeping` still
 * follows the store and the fence. */
static inline void tern_shm_doorbell_ring_all(struct tern_shm_doorbell *const *dbs, int n)
{
    if (tern_shm_doorbell_asym)
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n; i++)
        if (atomic_load_explicit(&dbs[i]->sleeping, memory_order_acquire))
            tern_shm_doorbell_wake(dbs[i]);
}

/* Sender: wakes the receiver if it announced that it sleeps. Costs a fence
 * (none in asymmetric mode) and a load of a line that stays cached while the
 * receiver is awake. */
static inline void tern_shm_doorbell_ring(struct tern_shm_doorbell *db)
{
    tern_shm_doorbell_ring_all(&db, 1);
}

#endif
