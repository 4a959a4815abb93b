/*
 * greq: generalized requests (MPI_Grequest_start, MPI_Grequest_complete).
 *
 *  - A request completes only once the program calls
 *    MPI_Grequest_complete: MPI_Test says false before, and calls no
 *    callback.
 *  - MPI_Wait, MPI_Test, MPI_Waitany and MPI_Waitall take the status from
 *    query_fn (source, tag, element count, cancelled) and then call
 *    free_fn once, in that order; MPI_Request_get_status calls query_fn
 *    and leaves the request.
 *  - MPI_Cancel calls cancel_fn with whether the request is complete.
 *  - MPI_Request_free before MPI_Grequest_complete: free_fn runs at
 *    MPI_Grequest_complete, without query_fn; after it: at once (the
 *    standard: at whichever of the two calls comes last; MPICH 4.0 runs
 *    it at MPI_Request_free, and fails here).
 *  - An error code from query_fn is what MPI_Wait returns, and in
 *    MPI_Waitall the status's MPI_ERROR beside MPI_ERR_IN_STATUS (under
 *    MPI_ERRORS_RETURN); free_fn still runs.
 *  - MPI_Grequest_complete twice, or of a request that is not a
 *    generalized one, is MPI_ERR_REQUEST.
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

struct state {
    int value;       /* Put in the status by query_fn. */
    int error;       /* What query_fn returns. */
    int cancelled;   /* Set by cancel_fn; query_fn reports it. */
    int queries, frees, cancels, last_complete;
    char log[16];    /* 'q' and 'f' in the order the callbacks ran. */
};

static void note(struct state *s, char c)
{
    size_t n = strlen(s->log);
    if (n + 1 < sizeof s->log)
        s->log[n] = c;
}

static int query(void *extra, MPI_Status *st)
{
    struct state *s = extra;
    s->queries++;
    note(s, 'q');
    st->MPI_SOURCE = s->value;
    st->MPI_TAG = s->value + 1;
    MPI_Status_set_elements(st, MPI_INT, s->value);
    MPI_Status_set_cancelled(st, s->cancelled);
    return s->error;
}

static int release(void *extra)
{
    struct state *s = extra;
    s->frees++;
    note(s, 'f');
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    struct state *s = extra;
    s->cancels++;
    s->last_complete = complete;
    if (!complete)
        s->cancelled = 1;
    return MPI_SUCCESS;
}

static MPI_Request start(struct state *s, int value)
{
    MPI_Request r;
    memset(s, 0, sizeof *s);
    s->value = value;
    TT_MPI(MPI_Grequest_start(query, release, cancel, s, &r));
    return r;
}

static void check_status(const MPI_Status *st, int value, const char *what)
{
    int count = -1, cancelled = -1;
    TT_EQ(what, value, st->MPI_SOURCE);
    TT_EQ(what, value + 1, st->MPI_TAG);
    TT_MPI(MPI_Get_count(st, MPI_INT, &count));
    TT_EQ(what, value, count);
    TT_MPI(MPI_Test_cancelled(st, &cancelled));
    TT_EQ(what, 0, cancelled);
}

static void completion(void)
{
    struct state s;
    MPI_Status st;
    int flag = 1;

    MPI_Request r = start(&s, 5);
    TT_MPI(MPI_Test(&r, &flag, &st));
    TT_EQ("MPI_Test before MPI_Grequest_complete: flag", 0, flag);
    TT_EQ("callbacks before MPI_Grequest_complete", 0, s.queries + s.frees + s.cancels);
    TT_MPI(MPI_Grequest_complete(r));
    TT_MPI(MPI_Request_get_status(r, &flag, &st));
    TT_EQ("MPI_Request_get_status after completion: flag", 1, flag);
    check_status(&st, 5, "MPI_Request_get_status");
    TT_CHECK(strcmp(s.log, "q") == 0, "MPI_Request_get_status ran callbacks \"%s\"", s.log);
    TT_MPI(MPI_Wait(&r, &st));
    TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left the handle");
    check_status(&st, 5, "MPI_Wait");
    TT_CHECK(strcmp(s.log, "qqf") == 0, "MPI_Wait ran callbacks \"%s\", expected query then "
             "free", s.log);

    r = start(&s, 3);
    TT_MPI(MPI_Grequest_complete(r));
    flag = 0;
    TT_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    TT_EQ("MPI_Test after completion: flag", 1, flag);
    TT_CHECK(strcmp(s.log, "qf") == 0, "MPI_Test with MPI_STATUS_IGNORE ran \"%s\"", s.log);

    /* Beside a message to self, in MPI_Waitany and MPI_Waitall. */
    struct state a, b;
    int v = 0, in = -1, idx = -1;
    MPI_Request reqs[3];
    MPI_Status sts[3];
    reqs[0] = start(&a, 7);
    TT_MPI(MPI_Irecv(&in, 1, MPI_INT, tt_rank, 9, MPI_COMM_WORLD, &reqs[1]));
    reqs[2] = start(&b, 8);
    TT_MPI(MPI_Grequest_complete(reqs[2]));
    TT_MPI(MPI_Waitany(3, reqs, &idx, &st));
    TT_EQ("MPI_Waitany: index of the completed generalized request", 2, idx);
    check_status(&st, 8, "MPI_Waitany");
    TT_MPI(MPI_Send(&v, 1, MPI_INT, tt_rank, 9, MPI_COMM_WORLD));
    TT_MPI(MPI_Grequest_complete(reqs[0]));
    TT_MPI(MPI_Waitall(3, reqs, sts));
    check_status(&sts[0], 7, "MPI_Waitall entry 0");
    TT_CHECK_STATUS(sts[1], tt_rank, 9, MPI_INT, 1, "MPI_Waitall entry 1");
    TT_EQ("free_fn calls", 2, a.frees + b.frees);
}

static void cancel_and_free(void)
{
    struct state s;
    MPI_Status st;
    int cancelled = 0;

    MPI_Request r = start(&s, 2);
    TT_MPI(MPI_Cancel(&r));
    TT_EQ("cancel_fn calls", 1, s.cancels);
    TT_EQ("cancel_fn's complete before MPI_Grequest_complete", 0, s.last_complete);
    TT_MPI(MPI_Grequest_complete(r));
    TT_MPI(MPI_Cancel(&r));
    TT_EQ("cancel_fn's complete after MPI_Grequest_complete", 1, s.last_complete);
    TT_MPI(MPI_Wait(&r, &st));
    TT_MPI(MPI_Test_cancelled(&st, &cancelled));
    TT_EQ("MPI_Test_cancelled of the status query_fn gave", 1, cancelled);

    r = start(&s, 1);
    MPI_Request copy = r;
    TT_MPI(MPI_Request_free(&r));
    TT_EQ("free_fn before MPI_Grequest_complete", 0, s.frees);
    TT_MPI(MPI_Grequest_complete(copy));
    TT_CHECK(strcmp(s.log, "f") == 0, "MPI_Grequest_complete of a freed request ran \"%s\", "
             "expected free_fn only", s.log);

    r = start(&s, 1);
    TT_MPI(MPI_Grequest_complete(r));
    TT_MPI(MPI_Request_free(&r));
    TT_CHECK(strcmp(s.log, "f") == 0, "MPI_Request_free of a completed request ran \"%s\"",
             s.log);
}

static void errors(void)
{
    struct state s, t;
    MPI_Status sts[2];
    int cls = -1;

    MPI_Request r = start(&s, 4);
    s.error = MPI_ERR_OTHER;
    TT_MPI(MPI_Grequest_complete(r));
    int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    TT_EQ("MPI_Wait's error when query_fn fails", MPI_ERR_OTHER, rc);
    TT_EQ("free_fn after a failed query_fn", 1, s.frees);

    MPI_Request reqs[2] = { start(&s, 4), start(&t, 6) };
    s.error = MPI_ERR_OTHER;
    TT_MPI(MPI_Grequest_complete(reqs[0]));
    TT_MPI(MPI_Grequest_complete(reqs[1]));
    rc = MPI_Waitall(2, reqs, sts);
    TT_MPI(MPI_Error_class(rc, &cls));
    TT_EQ("MPI_Waitall's error when one query_fn fails", MPI_ERR_IN_STATUS, cls);
    TT_EQ("MPI_ERROR of the failed one", MPI_ERR_OTHER, sts[0].MPI_ERROR);
    TT_EQ("MPI_ERROR of the other", MPI_SUCCESS, sts[1].MPI_ERROR);
    TT_EQ("free_fn calls after MPI_Waitall", 2, s.frees + t.frees);

    r = start(&s, 1);
    TT_MPI(MPI_Grequest_complete(r));
    MPI_Request copy = r;
    rc = MPI_Grequest_complete(copy);
    TT_MPI(MPI_Error_class(rc, &cls));
    TT_EQ("MPI_Grequest_complete twice", MPI_ERR_REQUEST, cls);
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));

    int v = 0;
    TT_MPI(MPI_Isend(&v, 1, MPI_INT, tt_rank, 10, MPI_COMM_WORLD, &r));
    rc = MPI_Grequest_complete(r);
    TT_MPI(MPI_Error_class(rc, &cls));
    TT_EQ("MPI_Grequest_complete of a send", MPI_ERR_REQUEST, cls);
    TT_MPI(MPI_Recv(&v, 1, MPI_INT, tt_rank, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "greq");
    completion();
    cancel_and_free();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    errors();
    return tt_finish();
}
