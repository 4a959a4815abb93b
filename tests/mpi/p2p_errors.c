/*
 * p2p_errors: argument errors under MPI_ERRORS_RETURN, and error handlers.
 *
 * MPI_ERRORS_RETURN is set on MPI_COMM_WORLD and on MPI_COMM_SELF (an error
 * on MPI_COMM_NULL is not attached to a communicator; MPI 4 raises such
 * errors on MPI_COMM_SELF, earlier versions on MPI_COMM_WORLD). Each bad
 * argument must return an error of the class the standard names:
 *   MPI_COMM_NULL                          -> MPI_ERR_COMM
 *   count -1                               -> MPI_ERR_COUNT
 *   dest/source out of range, or a negative
 *   value that is not MPI_PROC_NULL or
 *   MPI_ANY_SOURCE, MPI_ANY_SOURCE as dest -> MPI_ERR_RANK
 *   tag -5, tag > MPI_TAG_UB, MPI_ANY_TAG
 *   on a send                              -> MPI_ERR_TAG
 *   MPI_DATATYPE_NULL                      -> MPI_ERR_TYPE
 *   NULL buffer with count > 0             -> MPI_ERR_BUFFER
 *   MPI_Request_free / MPI_Cancel of
 *   MPI_REQUEST_NULL                       -> MPI_ERR_REQUEST
 * for Send, Isend, Recv, Irecv (and Ssend, Probe where they apply). No
 * message is ever sent by a failing call, so nothing is left to receive.
 * Also: MPI_Error_class maps each class to itself and MPI_SUCCESS to
 * MPI_SUCCESS; MPI_Error_string gives a non-empty string of the reported
 * length; Comm_get_errhandler returns what was set; Comm_call_errhandler
 * with MPI_ERRORS_RETURN returns MPI_SUCCESS; a user error handler made with
 * Comm_create_errhandler is called with the communicator and the error code
 * both by Comm_call_errhandler and by a failing MPI_Send.
 */
#include "tt.h"
#include <limits.h>

static int nchecked = 0;

static void expect_class(int rc, int want, const char *call, const char *why)
{
    int cls = -1;
    nchecked++;
    if (rc == MPI_SUCCESS)
        TT_FAIL("%s with %s returned MPI_SUCCESS, expected class %d", call, why,
                want);
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS)
        TT_FAIL("%s with %s returned %d, and MPI_Error_class(%d) failed", call,
                why, rc, rc);
    if (cls != want)
        TT_FAIL("%s with %s: error class %d (%s), expected %d", call, why, cls,
                tt_errstr(rc), want);
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    TT_MPI(MPI_Error_string(rc, s, &len));
    if (len <= 0 || len >= MPI_MAX_ERROR_STRING || (int)strlen(s) != len)
        TT_FAIL("MPI_Error_string(%d) (from %s with %s): length %d, strlen %zu",
                rc, call, why, len, strlen(s));
}

/* Runs the four basic calls with one bad argument set. */
static void p2p_calls(void *buf, int count, MPI_Datatype type, int peer,
                      int tag, MPI_Comm comm, int want, const char *why,
                      int check_recv)
{
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    expect_class(MPI_Send(buf, count, type, peer, tag, comm), want, "MPI_Send",
                 why);
    expect_class(MPI_Ssend(buf, count, type, peer, tag, comm), want,
                 "MPI_Ssend", why);
    expect_class(MPI_Isend(buf, count, type, peer, tag, comm, &r), want,
                 "MPI_Isend", why);
    if (!check_recv)
        return;
    expect_class(MPI_Recv(buf, count, type, peer, tag, comm, &st), want,
                 "MPI_Recv", why);
    expect_class(MPI_Irecv(buf, count, type, peer, tag, comm, &r), want,
                 "MPI_Irecv", why);
}

static void argument_errors(void)
{
    int buf[4] = {0}, flag;
    int me = tt_rank;
    MPI_Status st;
    void *attr = NULL;

    TT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag));
    TT_CHECK(flag && attr, "MPI_TAG_UB attribute missing");
    int tag_ub = *(int *)attr;

    p2p_calls(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, MPI_ERR_COMM,
              "MPI_COMM_NULL", 1);
    expect_class(MPI_Probe(0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM, "MPI_Probe",
                 "MPI_COMM_NULL");
    p2p_calls(buf, -1, MPI_INT, me, 0, MPI_COMM_WORLD, MPI_ERR_COUNT,
              "count -1", 1);
    p2p_calls(buf, 1, MPI_INT, tt_size, 0, MPI_COMM_WORLD, MPI_ERR_RANK,
              "peer = size", 1);
    p2p_calls(buf, 1, MPI_INT, -99, 0, MPI_COMM_WORLD, MPI_ERR_RANK, "peer -99",
              1);
    p2p_calls(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_ERR_RANK,
              "dest MPI_ANY_SOURCE", 0);
    expect_class(MPI_Probe(tt_size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK,
                 "MPI_Probe", "source = size");
    p2p_calls(buf, 1, MPI_INT, me, -5, MPI_COMM_WORLD, MPI_ERR_TAG, "tag -5", 1);
    if (tag_ub < INT_MAX)
        p2p_calls(buf, 1, MPI_INT, me, tag_ub + 1, MPI_COMM_WORLD, MPI_ERR_TAG,
                  "tag MPI_TAG_UB + 1", 1);
    p2p_calls(buf, 1, MPI_INT, me, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_ERR_TAG,
              "send tag MPI_ANY_TAG", 0);
    expect_class(MPI_Iprobe(me, -5, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG,
                 "MPI_Iprobe", "tag -5");
    p2p_calls(buf, 1, MPI_DATATYPE_NULL, me, 0, MPI_COMM_WORLD, MPI_ERR_TYPE,
              "MPI_DATATYPE_NULL", 1);
    p2p_calls(NULL, 4, MPI_INT, me, 0, MPI_COMM_WORLD, MPI_ERR_BUFFER,
              "NULL buffer, count 4", 1);

    MPI_Request r = MPI_REQUEST_NULL;
    expect_class(MPI_Request_free(&r), MPI_ERR_REQUEST, "MPI_Request_free",
                 "MPI_REQUEST_NULL");
    r = MPI_REQUEST_NULL;
    expect_class(MPI_Cancel(&r), MPI_ERR_REQUEST, "MPI_Cancel",
                 "MPI_REQUEST_NULL");

    /* The communicator is still usable after all that: a self message. */
    int v = 31, w = 0;
    TT_MPI(MPI_Sendrecv(&v, 1, MPI_INT, me, 1, &w, 1, MPI_INT, me, 1,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TT_EQ("self message after the errors", 31, w);
}

static void classes_and_strings(void)
{
    static const int classes[] = {
        MPI_ERR_BUFFER, MPI_ERR_COUNT,   MPI_ERR_TYPE,    MPI_ERR_TAG,
        MPI_ERR_COMM,   MPI_ERR_RANK,    MPI_ERR_REQUEST, MPI_ERR_ROOT,
        MPI_ERR_GROUP,  MPI_ERR_OP,      MPI_ERR_TOPOLOGY, MPI_ERR_DIMS,
        MPI_ERR_ARG,    MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER,
        MPI_ERR_INTERN, MPI_ERR_IN_STATUS, MPI_ERR_PENDING};
    int cls = -1, len = -1, lastcode = 0, flag = 0;
    char s[MPI_MAX_ERROR_STRING];
    void *attr = NULL;

    TT_MPI(MPI_Error_class(MPI_SUCCESS, &cls));
    TT_EQ("MPI_Error_class(MPI_SUCCESS)", MPI_SUCCESS, cls);
    TT_MPI(MPI_Error_string(MPI_SUCCESS, s, &len));
    TT_CHECK(len > 0 && (int)strlen(s) == len,
             "MPI_Error_string(MPI_SUCCESS): length %d, strlen %zu", len,
             strlen(s));
    TT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &attr, &flag));
    TT_CHECK(flag && attr, "MPI_LASTUSEDCODE attribute missing");
    lastcode = *(int *)attr;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        int c = classes[i];
        TT_CHECK(c > MPI_SUCCESS && c <= MPI_ERR_LASTCODE,
                 "error class %d not in 1..MPI_ERR_LASTCODE=%d", c,
                 MPI_ERR_LASTCODE);
        TT_CHECK(c <= lastcode, "error class %d above MPI_LASTUSEDCODE %d", c,
                 lastcode);
        TT_MPI(MPI_Error_class(c, &cls));
        TT_EQ("MPI_Error_class of a class", c, cls);
        len = -1;
        TT_MPI(MPI_Error_string(c, s, &len));
        if (len <= 0 || len >= MPI_MAX_ERROR_STRING || (int)strlen(s) != len)
            TT_FAIL("MPI_Error_string(%d): length %d, strlen %zu", c, len,
                    strlen(s));
    }
}

static int handler_calls = 0, handler_code = 0;
static MPI_Comm handler_comm = MPI_COMM_NULL;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    handler_code = *code;
}

static void errhandlers(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, mine = MPI_ERRHANDLER_NULL;
    int cls = -1;

    TT_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    TT_CHECK(eh == MPI_ERRORS_RETURN,
             "MPI_Comm_get_errhandler did not return MPI_ERRORS_RETURN, which "
             "was set");
    TT_MPI(MPI_Errhandler_free(&eh));
    TT_CHECK(eh == MPI_ERRHANDLER_NULL,
             "MPI_Errhandler_free did not set MPI_ERRHANDLER_NULL");
    /* Calling MPI_ERRORS_RETURN: nothing happens, MPI_SUCCESS returned. */
    TT_EQ("MPI_Comm_call_errhandler with MPI_ERRORS_RETURN", MPI_SUCCESS,
          MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));

    TT_MPI(MPI_Comm_create_errhandler(my_handler, &mine));
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine));
    TT_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    TT_CHECK(eh == mine, "MPI_Comm_get_errhandler did not return the user "
                         "handler that was set");
    TT_MPI(MPI_Errhandler_free(&eh));

    TT_EQ("MPI_Comm_call_errhandler with a user handler", MPI_SUCCESS,
          MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG));
    TT_EQ("user handler calls after MPI_Comm_call_errhandler", 1,
          handler_calls);
    TT_EQ("user handler code", MPI_ERR_ARG, handler_code);
    TT_CHECK(handler_comm == MPI_COMM_WORLD,
             "user handler got a communicator other than MPI_COMM_WORLD");

    int buf = 0;
    int rc = MPI_Send(&buf, -1, MPI_INT, tt_rank, 0, MPI_COMM_WORLD);
    TT_EQ("user handler calls after MPI_Send(count -1)", 2, handler_calls);
    TT_MPI(MPI_Error_class(handler_code, &cls));
    TT_EQ("class of the code given to the user handler", MPI_ERR_COUNT, cls);
    TT_CHECK(rc != MPI_SUCCESS,
             "MPI_Send(count -1) returned MPI_SUCCESS after the user handler");
    TT_MPI(MPI_Error_class(rc, &cls));
    TT_EQ("class returned by MPI_Send(count -1) under a user handler",
          MPI_ERR_COUNT, cls);

    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TT_MPI(MPI_Errhandler_free(&mine));
    TT_CHECK(mine == MPI_ERRHANDLER_NULL,
             "MPI_Errhandler_free did not set MPI_ERRHANDLER_NULL");
    /* The freed handler is no longer attached: a new error does not call
     * it. */
    rc = MPI_Send(&buf, -1, MPI_INT, tt_rank, 0, MPI_COMM_WORLD);
    TT_EQ("user handler calls after it was replaced", 2, handler_calls);
    expect_class(rc, MPI_ERR_COUNT, "MPI_Send", "count -1 (ERRORS_RETURN again)");
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "p2p_errors");
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    argument_errors();
    classes_and_strings();
    errhandlers();
    if (tt_rank == 0)
        printf("p2p_errors: %d error returns checked per rank\n", nchecked);
    return tt_finish();
}
