/*
 * Call signatures in collective tags (signature.h).
 */
#include <ctype.h>
#include <stdio.h>

#include "collectives/algo.h"
#include "collectives/signature.h"
#include "tern/err.h"

#define KIND_BITS 5
#define ALGO_BITS 3
#define ROOT_BITS 2

#define KIND_SHIFT TERN_COLL_SEQ_BITS
#define ALGO_SHIFT (KIND_SHIFT + KIND_BITS)
#define ROOT_SHIFT (ALGO_SHIFT + ALGO_BITS)

_Static_assert(TERN_COLL_NKINDS + 1 < (1 << KIND_BITS),
               "a kind + 1 fits its field, below the failed calls' all ones");
_Static_assert(-TERN_EOTHER < (1 << (ALGO_BITS + ROOT_BITS)) - 1,
               "EOTHER fits a failed call's bits, below a completed call's answer");
#define FAILED_KIND ((1 << KIND_BITS) - 1)
/* A failed call's code goes where the algorithm and the root go; code 0
 * is an inquiry's, all ones a completed call's answer. */
#define CODE_BITS (ALGO_BITS + ROOT_BITS)
#define COMPLETED_CODE ((1 << CODE_BITS) - 1)
_Static_assert(ROOT_SHIFT + ROOT_BITS <= 30, "a tag stays a non-negative int");

static int field(int tag, int shift, int bits)
{
    return (tag >> shift) & ((1 << bits) - 1);
}

int tern_coll_signature_failed(int code)
{
    int c = -code > 0 && -code < COMPLETED_CODE ? -code : -TERN_EOTHER;
    return FAILED_KIND << KIND_SHIFT | c << ALGO_SHIFT;
}

int tern_coll_signature_inquiry(void)
{
    return FAILED_KIND << KIND_SHIFT;
}

int tern_coll_signature_completed(void)
{
    return FAILED_KIND << KIND_SHIFT | COMPLETED_CODE << ALGO_SHIFT;
}

int tern_coll_signature_of(int kind, int index, int root)
{
    return (kind + 1) << KIND_SHIFT | (index & ((1 << ALGO_BITS) - 1)) << ALGO_SHIFT |
           (root & ((1 << ROOT_BITS) - 1)) << ROOT_SHIFT;
}

int tern_coll_signature(const struct tern_coll_args *a, const struct tern_coll_algo *algo)
{
    return tern_coll_signature_of((int)a->kind, tern_coll_algo_index(a->kind, algo),
                                  tern_coll_rooted(a->kind) ? a->root : 0);
}

/* "MPI_Bcast", or what the library's own schedules are. */
static const char *call_of(int kind_field)
{
    if (kind_field == 0)
        return "a collective that Tern runs inside another MPI call (such as MPI_Comm_idup)";
    return tern_coll_call_name((enum tern_coll_kind)(kind_field - 1));
}

const char *tern_coll_tag_call(int tag)
{
    return call_of(field(tag, KIND_SHIFT, KIND_BITS));
}

int tern_coll_tag_is_notice(int tag)
{
    return field(tag, KIND_SHIFT, KIND_BITS) == FAILED_KIND;
}

int tern_coll_explain_conflict(const struct tern_coll_call_id *mine,
                               const struct tern_coll_call_id *theirs, int src, char *buf,
                               size_t len)
{
    if (theirs->failed) {
        snprintf(buf, len, "rank %d failed in this call and gave up (its own error says why)",
                 src);
        return theirs->failed;
    }
    if (mine->kind != theirs->kind) {
        snprintf(buf, len, "rank %d called %s where this rank called %s: every rank must "
                 "call the same collectives on a communicator, in the same order",
                 src, call_of(theirs->kind), call_of(mine->kind));
        return TERN_EOTHER;
    }
    if (mine->root != theirs->root) {
        snprintf(buf, len, "rank %d passed %s another root than this rank did: every rank "
                 "must pass the same root", src, call_of(mine->kind));
        return TERN_EROOT;
    }
    enum tern_coll_kind k = (enum tern_coll_kind)(mine->kind - 1);
    char var[48];
    snprintf(var, sizeof var, "TERN_COLL_%s", tern_coll_kind_name(k));
    for (char *c = var; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    snprintf(buf, len, "rank %d runs %s with algorithm %s, this rank with %s: the ranks "
             "passed counts or types that do not match (or set %s differently)", src,
             call_of(mine->kind), tern_coll_algo_name(k, theirs->algo),
             tern_coll_algo_name(k, mine->algo), var);
    return TERN_ETRUNCATE;
}

struct tern_coll_call_id tern_coll_call_id_of(int tag)
{
    return (struct tern_coll_call_id){
        .kind = field(tag, KIND_SHIFT, KIND_BITS),
        .algo = field(tag, ALGO_SHIFT, ALGO_BITS),
        .root = field(tag, ROOT_SHIFT, ROOT_BITS),
        .failed = field(tag, KIND_SHIFT, KIND_BITS) == FAILED_KIND
                      ? -field(tag, ALGO_SHIFT, CODE_BITS) : 0,
    };
}

int tern_coll_signature_conflict(int mine, int theirs, int src, char *buf, size_t len)
{
    struct tern_coll_call_id m = tern_coll_call_id_of(mine), t = tern_coll_call_id_of(theirs);
    return tern_coll_explain_conflict(&m, &t, src, buf, len);
}
