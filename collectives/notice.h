/*
 * Notices: the messages that ranks send each other about a collective
 * call, rather than its data, when they made different calls.
 *
 * The tags of a call's messages carry its signature (signature.h), so a
 * rank that waits for a message and finds one of another call from the
 * same rank fails with an error. It then sends every other rank a
 * failure notice, and each send left in its call carries one instead of
 * data: a rank that waits for it fails too, with the same error, rather
 * than wait for ever or go on with data nobody computed.
 *
 * Ranks can also disagree without a message: two ranks that each take
 * themselves for the root of an MPI_Reduce or MPI_Gather only receive, and
 * so do a rank in MPI_Gather and one in a shared-memory MPI_Bcast. So a
 * call that has waited TERN_COLL_INQUIRE_AFTER_NS for a message sends each
 * rank it waits for an inquiry: a notice, tagged with the call's number,
 * that says which call this rank waits in (the collective, its algorithm,
 * its whole root, its whole number). A rank whose call of the same number
 * waits too takes the inquiries sent to it (sched_run.c, shm_check.c): one
 * that names another call fails its call, and its failure notice reaches
 * the inquirer; one that names the same call is dropped.
 *
 * A rank also takes the inquiries about a call when the call completes on
 * it, and answers one about another call with a failure notice: a rank
 * that only sends (a Bcast's root) never waits. One about the same call
 * gets an answer that says the call has completed here. So does an
 * inquiry that comes after the call completed (a rank that passed a count
 * of 0 to MPI_Gather returns at once, without a message): the waits of a
 * rank that find nothing to do look for such inquiries once notices have
 * arrived (tern_p2p_watch_notices), and so does MPI_Finalize's fence.
 * Before it answers, the rank drops the messages of that call from the
 * inquirer that no call of its took, and the answer says how many. A
 * rank in MPI_Finalize also answers an inquiry about a call it never
 * made, and so does one about a communicator it freed (from its next
 * idle wait on): it never will, and the inquirer fails with
 * MPI_ERR_OTHER. Ranks that wait in shared memory do not inquire: there
 * MPI_Finalize and the last reference to a communicator publish that the
 * rank makes no more operations (shm_check.c).
 *
 * The inquirer fails its call (MPI_ERR_TRUNCATE) when the answer says
 * messages were dropped, or when its round still waits for a message
 * from the rank that answered: that rank sent its messages of the call
 * before the answer, and messages between two ranks arrive in order, so
 * that one will never come. An inquiry that came while its rank was in
 * the same call is dropped, and the inquirer asks again each time its
 * wait has doubled, in case that call completes without the message. A
 * correct program pays one small message per wait that lasted
 * TERN_COLL_INQUIRE_AFTER_NS, one more each time that wait doubles, and
 * one answer per rank asked (a rank answers the first of a rank's
 * inquiries about a call and drops the others); answers that come after
 * the inquirer's call completed are dropped by its next idle wait. An inquiry carries the
 * call's whole number, so a call whose number comes round to the same 20
 * bits of tag much later drops it.
 */
#ifndef TERN_COLLECTIVES_NOTICE_H
#define TERN_COLLECTIVES_NOTICE_H

#include <stddef.h>
#include <stdint.h>

struct tern_comm;
struct tern_coll_stamp;
struct tern_request;

#define TERN_COLL_INQUIRE_AFTER_NS 50000000u

/* Sends rank `peer` of comm the notice that call c failed on this rank
 * with error `code`; *r: its request (NULL if it completed at once). */
int tern_coll_notify_failure(struct tern_comm *comm, const struct tern_coll_stamp *c, int code,
                             int peer, struct tern_request **r);

/* For call c, given up on this rank with error `code`: receives and drops
 * the messages of c that wait here (of any signature), so that no sender
 * waits for a receive, and sends every other rank a failure notice, left
 * to finish on its own (the rank may never take it). */
void tern_coll_fail_call(struct tern_comm *comm, const struct tern_coll_stamp *c, int code);

/* Whether a message of call c's number that arrived unexpected from rank
 * src (any rank if src < 0) has another signature: then its sender made
 * another call, or failed in this one (*failure = 1: its own error says
 * why). Returns the error c fails with (as tern_coll_explain_conflict
 * does), with the sender in *from and how the calls differ in why; else
 * 0. */
int tern_coll_conflict(struct tern_comm *comm, const struct tern_coll_stamp *c, int src,
                       int *from, int *failure, char *why, size_t len);

/* Sends rank `peer` of comm an inquiry: this rank waits for it in call c. */
void tern_coll_inquire(struct tern_comm *comm, const struct tern_coll_stamp *c, int peer);

/* Takes the inquiries for call c that wait at this rank, from any rank.
 * One about another call fails c: returns the error (as
 * tern_coll_explain_conflict does), with its sender in *from and how the
 * calls differ written into why. Else 0. */
int tern_coll_inquiries(struct tern_comm *comm, const struct tern_coll_stamp *c, int *from,
                        char *why, size_t len);

/* For call c (of MPI function `call`), completed on this rank: takes the
 * inquiries about it that wait here, and answers each that names another
 * call with a failure notice, after a line that says how the calls
 * differ, and each that names this call with the answer that it
 * completed, so that a rank that waits for a message this rank never
 * sends fails instead of waiting for ever. */
void tern_coll_inquiries_after(struct tern_comm *comm, const struct tern_coll_stamp *c,
                               const char *call);

/* Takes the answers for call c that wait here: that a rank has completed
 * the call. One that says the rank dropped messages of this rank's, or
 * from a rank that waits_for(arg, rank) says this rank still waits for,
 * fails c: returns TERN_ETRUNCATE, with why written into why. Else 0. */
int tern_coll_answers(struct tern_comm *comm, const struct tern_coll_stamp *c,
                      int (*waits_for)(void *arg, int rank), void *arg, char *why, size_t len);

/* Has the idle waits of this rank (and MPI_Finalize's fence) answer the
 * inquiries about calls that completed here before they came. */
void tern_coll_notices_init(void);

/* At MPI_Finalize: this rank makes no more calls, so it answers inquiries
 * about calls it never made. */
void tern_coll_notices_finalizing(void);

#endif
