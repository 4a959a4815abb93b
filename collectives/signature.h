/*
 * A collective call's signature, carried in the tag of each of its
 * messages, so that ranks that disagree about a call find out instead of
 * waiting for each other for ever.
 *
 * A tag of the collective context is, from the low bits up: the call's
 * sequence number on the communicator (TERN_COLL_SEQ_BITS bits), then the
 * signature: the collective (5 bits: its kind + 1, 0 for the schedules
 * that the library runs inside other calls, such as MPI_Comm_idup's), the
 * algorithm's index in the collective's menu (3 bits: the automatic
 * choice depends only on what all ranks pass alike, so ranks that chose
 * differently passed counts or types that do not match), and for the
 * rooted collectives the root's two low bits.
 *
 * A message of another signature never matches a receive of this call,
 * so the ranks never mix the data of different calls. A rank whose call
 * waits for a message then looks among the messages that arrived
 * unexpectedly (sched_run.c): one from a rank it waits for, with the same
 * sequence number and another signature, shows that the two ranks made
 * different calls, and the call fails with a line that says how they
 * differ. The check is rigorous for the ranks it waits for: such a rank
 * sends its messages of a call in order, so one from a later call cannot
 * arrive before the message this rank waits for, however far the sequence
 * numbers wrap (2^20 calls).
 */
#ifndef TERN_COLLECTIVES_SIGNATURE_H
#define TERN_COLLECTIVES_SIGNATURE_H

#include <stddef.h>
#include <stdint.h>

struct tern_coll_algo;
struct tern_coll_args;

#define TERN_COLL_SEQ_BITS 20
#define TERN_COLL_SEQ_MASK ((1 << TERN_COLL_SEQ_BITS) - 1)

/* The signature of the messages a rank sends in a call that failed on it
 * with error `code` (a message did not fit, another rank made another
 * call), in place of the data of every send left in the call: empty
 * messages that no receive matches, whose ranks then fail too, with the
 * same error, instead of going on with what the failed rank did not
 * compute. The collective's bits are all ones, the code is in the bits of
 * the algorithm and the root. */
int tern_coll_signature_failed(int code);

/* The signature of an inquiry (notice.h): a failed call's bits with
 * code 0, which no failed call has. */
int tern_coll_signature_inquiry(void);

/* The signature of the answer to an inquiry about a call that has
 * completed on the rank asked (notice.h): a failed call's bits with all
 * ones for its code, which no failed call has. */
int tern_coll_signature_completed(void);

/* The signature bits of a call that runs `algo`, in their place in the
 * tag (to be ORed into the sequence number); the same from the
 * collective, the algorithm's index in its menu and the root (0 for the
 * collectives without one). */
int tern_coll_signature(const struct tern_coll_args *a, const struct tern_coll_algo *algo);
int tern_coll_signature_of(int kind, int index, int root);

/* A call as another rank's call compares with it: its whole number on the
 * communicator, its tag (the number's low bits and the signature) and its
 * whole root (0 for the collectives without one). */
struct tern_coll_stamp {
    uint64_t seq;
    int tag;
    int root;
};

/* How many of its last calls a communicator remembers (comm.h). */
#define TERN_COLL_RECENT 8

/* What identifies a call, as far as the ranks can compare it: the
 * collective (kind + 1; 0 for the library's own schedules), the index of
 * its algorithm in the menu, the root (or some of its bits), and, if the
 * rank failed in it, its error (else 0). */
struct tern_coll_call_id {
    int kind, algo, root, failed;
};

/* The call that a tag's signature names (its root: the two bits the tag
 * has of it). */
struct tern_coll_call_id tern_coll_call_id_of(int tag);

/* The MPI function of the call that a tag's signature names ("MPI_Bcast",
 * or words for the library's own schedules). */
const char *tern_coll_tag_call(int tag);

/* Whether a tag is a notice's (notice.h: a failed call's, an inquiry's,
 * an answer's) rather than a call's data. */
int tern_coll_tag_is_notice(int tag);

/* The rule that a rank which made other calls than the others broke, as
 * the lines that report it end. */
#define TERN_COLL_SAME_CALLS \
    "every rank must make the same collective calls on a communicator, in the same order"

/* Explains, into buf, how rank src's call differs from this rank's, and
 * returns the error the call fails with: the other rank's error if it
 * failed, TERN_EOTHER for another collective, TERN_EROOT for another root,
 * TERN_ETRUNCATE for another algorithm (other counts or types). */
int tern_coll_explain_conflict(const struct tern_coll_call_id *mine,
                               const struct tern_coll_call_id *theirs, int src, char *buf,
                               size_t len);

/* The same for a message tagged `theirs` that rank `src` sent
 * to this rank's call, tagged `mine` (same sequence number). */
int tern_coll_signature_conflict(int mine, int theirs, int src, char *buf, size_t len);

#endif
