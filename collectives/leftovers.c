/*
 * MPI_Finalize's look at what the collective calls left behind.
 *
 * Ranks that disagree about a collective call find out while one of them
 * waits (signature.h, notice.h, shm_check.c). Some disagreements leave no
 * rank waiting: two ranks that each take themselves for the root of an
 * MPI_Bcast only send, and so does a rank that makes one MPI_Bcast more
 * than the others, as its root. Their calls return, and the only traces
 * are a message that no call received, in the queue of the rank it was
 * sent to, or, through shared memory, two inputs for one operation that
 * name different calls, or members that finished different numbers of
 * operations. So MPI_Finalize, once every rank has reached it
 * (what was sent before is then here, or on its way over a network),
 * looks for both on each communicator and reports the first it finds.
 *
 * Notices (a failed call's, inquiries) are not data and are left alone.
 * So is a communicator on which a collective call failed on this rank:
 * the messages of that call may stay on purpose, and the failure was
 * reported when it happened. Shared memory holds the inputs of the last
 * TERN_SHM_COLL_CELL_SETS operations only; for older ones the members'
 * digests of the operations they finished say that they differ, not
 * where (shm_check.c). Of a communicator freed and
 * destroyed before MPI_Finalize only its messages are looked at, and only
 * for the last TERN_COLL_RETIRED_MAX such communicators (retired.h).
 */
#include <stdint.h>
#include <stdio.h>

#include "collectives/coll.h"
#include "collectives/retired.h"
#include "collectives/shm.h"
#include "collectives/signature.h"
#include "libmpi/core/comm.h"
#include "libmpi/p2p/p2p.h"
#include "tern/log.h"

struct unreceived {
    uint32_t ctx;    /* The collective context looked at. */
    long count;
    int src, tag;    /* The earliest one's. */
};

static int count(const struct tern_unexp_info *m, void *arg)
{
    struct unreceived *u = arg;
    if (m->ctx != u->ctx || tern_coll_tag_is_notice(m->tag))
        return 0;
    if (u->count++ == 0) {
        u->src = m->src;
        u->tag = m->tag;
    }
    return 0;
}

/* Whether the call whose number has the low bits `bits` is one this rank
 * made, rather than one to come that only the sender made (coll_seq: the
 * number of this rank's next call). */
static int made_here(uint64_t coll_seq, int bits)
{
    const uint64_t wrap = (uint64_t)TERN_COLL_SEQ_MASK + 1;
    uint64_t ahead = ((uint64_t)bits - coll_seq) & TERN_COLL_SEQ_MASK;
    return ahead >= wrap / 2 && coll_seq >= wrap - ahead;
}

static const char *const rule =
    "every rank must make the same collective calls on a communicator, in the same "
    "order, with the same root, counts and types";

/* Reports the messages on collective context ctx (of the communicator
 * `label`, whose next call would have had number coll_seq) that no call
 * received; 1 if there are any. */
static int report_unreceived(uint32_t ctx, uint64_t coll_seq, const char *label)
{
    struct unreceived u = { ctx, 0, 0, 0 };
    tern_p2p_unexp_each(count, &u);
    if (!u.count)
        return 0;
    tern_log("MPI_Finalize: rank %d sent this rank a message of %s on %s that %s (%ld such "
             "message(s) in all): the ranks made different calls there, so their results are "
             "not what the program meant; %s",
             u.src, tern_coll_tag_call(u.tag), label,
             made_here(coll_seq, u.tag & TERN_COLL_SEQ_MASK)
                 ? "no call of this rank received"
                 : "belongs to a collective call this rank never made",
             u.count, rule);
    return 1;
}

static void report(struct tern_comm *c, void *arg)
{
    (void)arg;
    if (c->coll_failed || report_unreceived(c->ctx + 1, c->coll_seq, tern_comm_label(c)))
        return;
    char why[500];
    if (tern_coll_shm_final_check(c, why, sizeof why))
        tern_log("MPI_Finalize: on %s, %s; the results are not what the program meant",
                 tern_comm_label(c), why);
}

static void report_retired(const struct tern_coll_retired *r, void *arg)
{
    (void)arg;
    if (!r->failed)
        report_unreceived(r->ctx, r->coll_seq, "a communicator freed before MPI_Finalize");
}

void tern_coll_report_leftovers(void)
{
    tern_comm_each(report, NULL);
    tern_coll_retired_each(report_retired, NULL);
}
