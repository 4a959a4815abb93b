/*
 * Slot agreement and the flag protocol of the shared-memory collectives;
 * see shm.h.
 */
#include <stdlib.h>

#include "collectives/nodes.h"
#include "collectives/shm.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "tern/err.h"
#include "tern/log.h"
#include "transports/shm/doorbell.h"

int tern_coll_shm_wanted(struct tern_comm *comm)
{
    if (comm->shm || comm->size < 2)
        return 0;
    return tern_coll_nodes(comm)->nnodes == 1;
}

int tern_coll_shm_setup(struct tern_comm *comm)
{
    struct tern_coll_shm *sh = calloc(1, sizeof *sh);
    if (!sh)
        return TERN_ENOMEM;
    /* Set before the allreduce below, which must use messages. */
    sh->slot = -1;
    comm->shm = sh;
    /* The other members' doorbells, rung after each flag this rank sets.
     * Without the memory for them this rank votes against the slot, so
     * that all agree. */
    sh->bells = malloc((size_t)comm->size * sizeof *sh->bells);
    int reach = sh->bells != NULL;
    for (int r = 0; r < comm->size && reach; r++) {
        reach = tern_shm_coll_local(comm->world[r]);
        if (reach && r != comm->rank)
            sh->bells[sh->nbells++] = tern_shm_coll_doorbell(comm->world[r]);
    }
    int mine = comm->rank == 0 && reach ? tern_shm_coll_alloc(comm->size) : -1;
    /* v[0]: rank 0's slot; v[1]: 1 if some rank cannot use it. */
    int v[2] = { mine, !reach };
    int rc = tern_coll_allreduce(MPI_IN_PLACE, v, 2, tern_dtype_get(MPI_INT),
                                 tern_op_get(MPI_MAX), comm);
    if (rc || v[1] || v[0] < 0) {
        if (mine >= 0)
            tern_shm_coll_release(mine, comm->size);
        TERN_LOG(2, "collectives: communicator of %d ranks on one host uses messages (%s)",
                 comm->size, rc ? "agreement failed" : v[1] ? "not every rank uses shm"
                                                           : "no free slot");
        return rc;
    }
    sh->slot = v[0];
    if (tern_shm_coll_slot(sh->slot, &sh->view)) {
        /* Every rank mapped the same segment, so this cannot fail here
         * and succeed elsewhere. */
        sh->slot = -1;
        return TERN_EINTERN;
    }
    TERN_LOG(2, "collectives: communicator of %d ranks uses shared-memory slot %d",
             comm->size, sh->slot);
    return 0;
}

void tern_coll_shm_free(struct tern_comm *comm)
{
    struct tern_coll_shm *sh = comm->shm;
    if (!sh)
        return;
    if (sh->slot >= 0)
        tern_shm_coll_release(sh->slot, 1);
    free(sh->bells);
    free(sh);
    comm->shm = NULL;
}

int tern_coll_shm_usable(const struct tern_coll_args *a)
{
    return a->size == a->comm->size && a->comm->shm && a->comm->shm->slot >= 0;
}

int tern_coll_shm_too_large(size_t count, const struct tern_dtype *dt,
                            const struct tern_coll_args *a)
{
    size_t bytes;
    return __builtin_mul_overflow(count, dt->size, &bytes) || bytes > a->comm->shm->view.buf;
}

void tern_coll_shm_pack(void *to, const void *buf, size_t count, const struct tern_dtype *dt)
{
    if (count == 0 || dt->size == 0)
        return;
    if (tern_dtype_contig(dt, count))
        memcpy(to, (const char *)buf + dt->true_lb, count * dt->size);
    else
        tern_dtype_pack(dt, buf, count, to);
}

void tern_coll_shm_unpack(void *buf, size_t count, const struct tern_dtype *dt,
                          const void *from)
{
    if (count == 0 || dt->size == 0)
        return;
    if (tern_dtype_contig(dt, count))
        memcpy((char *)buf + dt->true_lb, from, count * dt->size);
    else
        tern_dtype_unpack(dt, from, count * dt->size, buf);
}

void tern_coll_shm_op_init(struct tern_coll_shm_op *op, const struct tern_coll_args *a)
{
    tern_coll_shm_op_start(op, a->comm, a->kind, &a->stamp, a->call);
}

void tern_coll_shm_op_start(struct tern_coll_shm_op *op, struct tern_comm *comm,
                            enum tern_coll_kind kind, const struct tern_coll_stamp *stamp,
                            const char *call)
{
    op->sh = comm->shm;
    op->comm = comm;
    op->seq = ++op->sh->next_seq;
    op->no_tiny = 0;
    op->call = call;
    op->sig = tern_coll_shm_sig(kind, stamp->root);
    op->stamp = *stamp;
    op->polls = 0;
    op->checked_ns = 0;
    op->arrivals_seen = 0;
    op->failed = 0;
    op->steps = NULL;
    op->nsteps = op->next = op->first_error = 0;
}

int tern_coll_shm_my_turn(const struct tern_coll_shm_op *op)
{
    return op->sh->done_seq == op->seq - 1;
}

int tern_coll_shm_runnable(const struct tern_coll_args *a)
{
    return a->comm->shm->done_seq == a->comm->shm->next_seq;
}

void tern_coll_shm_finish(const struct tern_coll_shm_op *op)
{
    struct tern_shm_coll_reduced *mine = &op->sh->view.reduced[op->comm->rank];
    uint64_t word = op->seq << 16 | op->sig;
    op->sh->done_seq = op->seq;
    op->sh->digest = tern_coll_shm_digest(op->sh->digest, word);
    /* Three words of one line, which the others read seldom. */
    atomic_store_explicit(&mine->digest, op->sh->digest, memory_order_relaxed);
    atomic_store_explicit(&mine->finished, word, memory_order_relaxed);
    atomic_store_explicit(&mine->done, op->seq, memory_order_release);
    tern_coll_shm_wake_others(op);
}

void tern_coll_shm_synced(const struct tern_coll_shm_op *op)
{
    if (op->sh->all_done < op->seq - 1)
        op->sh->all_done = op->seq - 1;
}

int tern_coll_shm_set_free(const struct tern_coll_shm_op *op, size_t bytes)
{
    struct tern_coll_shm *sh = op->sh;
    int tiny = bytes <= TERN_SHM_COLL_TINY && !op->no_tiny;
    int cell_only = !tiny && (bytes <= TERN_SHM_COLL_INLINE || bytes > sh->view.buf);
    uint64_t sets = cell_only ? TERN_SHM_COLL_CELL_SETS
                  : tiny      ? TERN_SHM_COLL_TINY_SETS
                              : TERN_SHM_COLL_BUF_SETS;
    if (sh->all_done + sets >= op->seq)
        return 1;
    uint64_t least = UINT64_MAX;
    for (int r = 0; r < op->comm->size; r++) {
        uint64_t d = atomic_load_explicit(&sh->view.reduced[r].done, memory_order_acquire);
        least = d < least ? d : least;
    }
    if (least > sh->all_done)
        sh->all_done = least;
    return sh->all_done + sets >= op->seq;
}

void tern_coll_shm_publish(const struct tern_coll_shm_op *op, enum tern_coll_shm_flag f)
{
    atomic_store_explicit(tern_coll_shm_flag(op, f, op->comm->rank), op->seq,
                          memory_order_release);
    tern_coll_shm_wake_others(op);
}

void tern_coll_shm_wake_others(const struct tern_coll_shm_op *op)
{
    tern_shm_doorbell_ring_all(op->sh->bells, op->sh->nbells);
}

int tern_coll_shm_all_reached(const struct tern_coll_shm_op *op, enum tern_coll_shm_flag f)
{
    for (int r = 0; r < op->comm->size; r++)
        if (atomic_load_explicit(tern_coll_shm_flag(op, f, r), memory_order_acquire) < op->seq)
            return 0;
    return 1;
}

void *tern_coll_shm_input_place(const struct tern_coll_shm_op *op, int r, size_t bytes)
{
    const struct tern_shm_coll_slot *v = &op->sh->view;
    if (bytes <= TERN_SHM_COLL_TINY && !op->no_tiny)
        return tern_shm_coll_tiny(v, op->seq, r)->data;
    if (bytes <= TERN_SHM_COLL_INLINE)
        return tern_coll_shm_cell(op, r)->data;
    return bytes <= v->buf ? tern_shm_coll_buf(v, op->seq, r) : NULL;
}

void tern_coll_shm_input_publish(const struct tern_coll_shm_op *op, size_t bytes)
{
    int me = op->comm->rank;
    if (bytes <= TERN_SHM_COLL_TINY && !op->no_tiny) {
        struct tern_shm_coll_tiny *t = tern_shm_coll_tiny(&op->sh->view, op->seq, me);
        atomic_store_explicit(&t->tag, tern_shm_coll_tiny_tag(op->seq, bytes),
                              memory_order_release);
        tern_coll_shm_wake_others(op);
        return;
    }
    tern_coll_shm_cell(op, me)->bytes = (uint64_t)op->sig << TERN_COLL_SHM_SIG_SHIFT | bytes;
    tern_coll_shm_publish(op, TERN_COLL_SHM_INPUT);
}

int tern_coll_shm_input_arrived(struct tern_coll_shm_op *op, int r, uint64_t *bytes)
{
    if (!op->no_tiny) {
        struct tern_shm_coll_tiny *t = tern_shm_coll_tiny(&op->sh->view, op->seq, r);
        uint64_t tag = atomic_load_explicit(&t->tag, memory_order_acquire);
        if (tern_shm_coll_tiny_seq(tag) == op->seq) {
            *bytes = tern_shm_coll_tiny_bytes(tag);
            return 1;
        }
    }
    struct tern_shm_coll_cell *c = tern_coll_shm_cell(op, r);
    if (atomic_load_explicit(&c->seq, memory_order_acquire) < op->seq)
        return 0;
    uint64_t b = c->bytes;
    if (b >> TERN_COLL_SHM_SIG_SHIFT != op->sig) {
        tern_coll_shm_fail(op, r, (uint16_t)(b >> TERN_COLL_SHM_SIG_SHIFT));
        return 0;
    }
    *bytes = b & (((uint64_t)1 << TERN_COLL_SHM_SIG_SHIFT) - 1);
    return 1;
}

int tern_coll_shm_reduce_range(const struct tern_coll_shm_op *op, size_t count,
                               const struct tern_dtype *dt, const struct tern_op *rop,
                               char *out, size_t lo, size_t hi)
{
    int p = op->comm->size, rc = 0;
    size_t all = count * dt->size, off = lo * dt->size, bytes = (hi - lo) * dt->size;
    if (bytes == 0)
        return 0;
    tern_coll_shm_copy(out + off, (char *)tern_coll_shm_input_place(op, p - 1, all) + off,
                       bytes);
    for (int r = p - 2; r >= 0; r--) {
        const char *in = (char *)tern_coll_shm_input_place(op, r, all) + off;
        int e = tern_op_reduce(rop, in, out + off, hi - lo, dt);
        if (e && !rc)
            rc = e;
    }
    return rc;
}

void tern_coll_shm_add_steps(struct tern_sched *s, tern_sched_poll_fn *const *steps, int n,
                             void *arg, void (*messages)(struct tern_sched *s, void *arg))
{
    tern_coll_shm_set_steps(arg, steps, n);
    /* The call's stamp is the schedule's: an algorithm that runs this one
     * as a phase may have passed arguments of its own. */
    ((struct tern_coll_shm_op *)arg)->stamp = s->stamp;
    tern_sched_poll(s, tern_coll_shm_steps, arg);
    if (!messages)
        return;
    tern_sched_round(s);
    tern_sched_call(s, messages, arg);
}
