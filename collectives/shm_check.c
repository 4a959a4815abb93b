/*
 * Members of a communicator in different calls, through shared memory
 * (shm.h): a rank whose operation waits long looks at what the others
 * published for the same operation. Three things tell which call a member
 * made: the sig in the top bits of its cell's size (set with its input),
 * the last operation it finished (coll_area.h: `finished`), and the one
 * it has waited in for long (`stuck`, set here). A member that finished
 * this operation as another call, or waits in it as another call, or put
 * an input in for another call, made another call: both members give the
 * operation up, and a member that gave up finishes with the sig of a
 * failed call, which makes the members that wait for it give up too.
 * A member in MPI_Finalize, or one that freed the communicator, sets its
 * `stuck` to the operation it would have made next, with a sig that no
 * call has: a member that waits in that operation or a later one gives it
 * up, as the member never comes.
 *
 * A member that made its call on messages publishes nothing here, so the
 * wait also looks at the messages that arrived (as a schedule does,
 * sched_run.c, and notice.h): one of this call's number with another
 * signature, or an inquiry about another call from a rank that waits for
 * a message from this one, fails the operation, and every other rank then
 * gets a failure notice.
 *
 * Nothing of this runs before a wait has lasted TERN_COLL_SHM_CHECK_POLLS
 * polls, and then at most once per TERN_COLL_SHM_CHECK_NS (a waiting rank
 * that sleeps polls when woken, or every 100 ms), except the sig that every
 * input and every finish carry: one more word (or top bits) in lines that
 * the operation writes anyway.
 */
#include <stdio.h>

#include "collectives/notice.h"
#include "collectives/shm.h"
#include "collectives/signature.h"
#include "libmpi/p2p/p2p.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"
#include "transports/shm/doorbell.h"

#define SIG_BITS 16
#define KIND_BITS TERN_COLL_SHM_SIG_KIND_BITS
#define SIG_MASK ((1u << SIG_BITS) - 1)

#define FAILED_KIND ((1u << KIND_BITS) - 1)

/* A member's `stuck` word once it makes no more operations in the slot,
 * with the number of the next one it would have built: the kind of a failed
 * call with no error code (it is in MPI_Finalize), or with all code bits
 * set (it freed the communicator). No operation has either sig. */
#define FINALIZED_SIG FAILED_KIND
#define FREED_SIG SIG_MASK

/* What a sig says, as signature.h compares calls (the algorithm is shm). */
static struct tern_coll_call_id decode(uint16_t sig)
{
    int kind = (int)(sig & FAILED_KIND);
    return (struct tern_coll_call_id){
        .kind = kind,
        .root = (int)(sig >> KIND_BITS),
        .failed = kind == (int)FAILED_KIND ? -(int)(sig >> KIND_BITS) : 0,
    };
}

/* Gives op up with error rc, which `why` explains (the failure of another
 * rank only at verbose level 1: that rank says why). */
static void give_up(struct tern_coll_shm_op *op, int rc, const char *why, int failure)
{
    op->failed = rc;
    const char *call = op->call ? op->call : "a collective run inside another MPI call";
    if (!failure)
        tern_log("%s on %s (through shared memory): %s", call, tern_comm_label(op->comm), why);
    else
        TERN_LOG(1, "%s on %s (through shared memory): %s", call, tern_comm_label(op->comm),
                 why);
    /* Ended here, as a failed call: the members waiting for this rank see
     * it, and the next operation may start. */
    uint16_t sig = op->sig;
    op->sig = (uint16_t)(FAILED_KIND | (unsigned)-op->failed << KIND_BITS);
    tern_coll_shm_finish(op);
    op->sig = sig;
}

void tern_coll_shm_fail(struct tern_coll_shm_op *op, int r, uint16_t theirs)
{
    if (op->failed)
        return;
    struct tern_coll_call_id mine = decode(op->sig), other = decode(theirs);
    char why[400];
    int rc = tern_coll_explain_conflict(&mine, &other, r, why, sizeof why);
    give_up(op, rc, why, other.failed);
}

/* Whether a message shows that another rank made another call for op, as
 * a schedule looks (sched_run.c): an inquiry about another call from a
 * rank that waits for this one, or a message of the call's number with
 * another signature, from a rank that ran an algorithm on messages (or
 * failed) and went on. Gives op up if so: drops the call's messages that
 * wait here, and sends every other rank a failure notice, since a rank
 * that waits for a message does not look at shared memory. */
static int messages_differ(struct tern_coll_shm_op *op)
{
    unsigned long n = tern_p2p_unexp_arrivals();
    if (n == op->arrivals_seen)
        return 0;
    op->arrivals_seen = n;
    struct tern_comm *comm = op->comm;
    const struct tern_coll_stamp *c = &op->stamp;
    char why[400];
    int from, failure = 0;
    /* Inquiries first, as they have another signature too. */
    int rc = tern_coll_inquiries(comm, c, &from, why, sizeof why);
    if (!rc)
        rc = tern_coll_conflict(comm, c, -1, &from, &failure, why, sizeof why);
    if (!rc)
        return 0;
    give_up(op, rc, why, failure);
    tern_coll_fail_call(comm, c, rc);
    return 1;
}

/* Whether a `stuck` word is a mark that its member left the slot. */
static int has_left(uint64_t word)
{
    return (word & SIG_MASK) == FINALIZED_SIG || (word & SIG_MASK) == FREED_SIG;
}

/* Whether member r's `stuck` word says that it called MPI_Finalize or
 * freed the communicator before this operation, which it will then never
 * make; gives op up if so. */
static int left(struct tern_coll_shm_op *op, int r, uint64_t word)
{
    uint64_t sig = word & SIG_MASK;
    if (!has_left(word) || word >> SIG_BITS > op->seq)
        return 0;
    char why[200];
    snprintf(why, sizeof why, "rank %d %s without making this call: " TERN_COLL_SAME_CALLS, r,
             sig == FREED_SIG ? "freed the communicator" : "called MPI_Finalize");
    give_up(op, TERN_EOTHER, why, 0);
    return 1;
}

/* Whether a word of member r (seq << 16 | sig) shows it in this
 * operation as another call; gives op up if so. */
static int differs(struct tern_coll_shm_op *op, int r, uint64_t word)
{
    if (word >> SIG_BITS != op->seq || (word & SIG_MASK) == op->sig)
        return 0;
    tern_coll_shm_fail(op, r, (uint16_t)(word & SIG_MASK));
    return 1;
}

int tern_coll_shm_check_due(struct tern_coll_shm_op *op)
{
    if (op->failed)
        return op->failed;
    uint64_t now = tern_clock_ns();
    if (op->checked_ns && now - op->checked_ns < TERN_COLL_SHM_CHECK_NS)
        return 0;
    op->checked_ns = now;
    /* Until this rank finished its operations before op (nonblocking
     * ones), op has not started here. */
    if (op->sh->done_seq != op->seq - 1)
        return 0;
    const struct tern_shm_coll_slot *v = &op->sh->view;
    int me = op->comm->rank;
    uint64_t word = op->seq << SIG_BITS | op->sig;
    uint64_t mine = atomic_load_explicit(&v->reduced[me].stuck, memory_order_relaxed);
    /* An operation still in flight as this rank left keeps the mark. */
    if (mine != word && !has_left(mine)) {
        atomic_store_explicit(&v->reduced[me].stuck, word, memory_order_release);
        tern_coll_shm_wake_others(op);
    }
    for (int r = 0; r < op->comm->size; r++) {
        if (r == me)
            continue;
        const struct tern_shm_coll_cell *c = tern_coll_shm_cell(op, r);
        uint64_t cell = atomic_load_explicit(&c->seq, memory_order_acquire) == op->seq
                      ? op->seq << SIG_BITS | c->bytes >> TERN_COLL_SHM_SIG_SHIFT : 0;
        uint64_t stuck = atomic_load_explicit(&v->reduced[r].stuck, memory_order_acquire);
        if (left(op, r, stuck) || differs(op, r, stuck) ||
            differs(op, r, atomic_load_explicit(&v->reduced[r].finished,
                                                memory_order_acquire)) ||
            differs(op, r, cell))
            return op->failed;
    }
    return messages_differ(op) ? op->failed : 0;
}

int tern_coll_shm_final_check(const struct tern_comm *comm, char *why, size_t len)
{
    const struct tern_coll_shm *sh = comm->shm;
    if (!sh || sh->slot < 0)
        return 0;
    for (int r = 0; r < comm->size; r++) {
        uint64_t d = atomic_load_explicit(&sh->view.reduced[r].done, memory_order_acquire);
        if (d != sh->done_seq) {
            snprintf(why, len, "rank %d made %s collective calls through shared memory than "
                     "this rank did (%llu against %llu)", r, d > sh->done_seq ? "more" : "fewer",
                     (unsigned long long)d, (unsigned long long)sh->done_seq);
            return TERN_EOTHER;
        }
    }
    for (uint64_t set = 0; set < TERN_SHM_COLL_CELL_SETS; set++) {
        const struct tern_shm_coll_cell *mine = tern_shm_coll_cell(&sh->view, set, comm->rank);
        uint64_t seq = atomic_load_explicit(&mine->seq, memory_order_acquire);
        uint16_t sig = (uint16_t)(mine->bytes >> TERN_COLL_SHM_SIG_SHIFT);
        if (!seq)
            continue;
        for (int r = 0; r < comm->size; r++) {
            const struct tern_shm_coll_cell *c = tern_shm_coll_cell(&sh->view, set, r);
            uint16_t theirs = (uint16_t)(c->bytes >> TERN_COLL_SHM_SIG_SHIFT);
            if (atomic_load_explicit(&c->seq, memory_order_acquire) != seq || theirs == sig)
                continue;
            struct tern_coll_call_id m = decode(sig), t = decode(theirs);
            char how[400];
            int rc = tern_coll_explain_conflict(&m, &t, r, how, sizeof how);
            snprintf(why, len, "in one of the last %d calls through shared memory, %s",
                     TERN_SHM_COLL_CELL_SETS, how);
            return rc;
        }
    }
    for (int r = 0; r < comm->size; r++)
        if (atomic_load_explicit(&sh->view.reduced[r].digest, memory_order_acquire) !=
            sh->digest) {
            snprintf(why, len, "rank %d made another collective call through shared memory "
                     "than this rank did, earlier than the last %d calls: "
                     TERN_COLL_SAME_CALLS, r, TERN_SHM_COLL_CELL_SETS);
            return TERN_EOTHER;
        }
    return 0;
}

void tern_coll_shm_leave(const struct tern_comm *comm, int freed)
{
    const struct tern_coll_shm *sh = comm->shm;
    if (!sh || sh->slot < 0)
        return;
    _Atomic uint64_t *stuck = &sh->view.reduced[comm->rank].stuck;
    /* A communicator freed already stays freed at MPI_Finalize. */
    if ((atomic_load_explicit(stuck, memory_order_relaxed) & SIG_MASK) == FREED_SIG)
        return;
    uint64_t sig = freed ? FREED_SIG : FINALIZED_SIG;
    atomic_store_explicit(stuck, (sh->next_seq + 1) << SIG_BITS | sig, memory_order_release);
    tern_shm_doorbell_ring_all(sh->bells, sh->nbells);
}

static void finalizing(struct tern_comm *comm, void *arg)
{
    (void)arg;
    tern_coll_shm_leave(comm, 0);
}

void tern_coll_shm_finalizing(void)
{
    tern_comm_each(finalizing, NULL);
}
