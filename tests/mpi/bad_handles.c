/*
 * bad_handles: handles that are garbage or freed give an error of the
 * handle's class under MPI_ERRORS_RETURN, never a crash.
 *
 * Garbage: an address no object lives at and that is not even mapped
 * (what an int holding a handle gives back when read as a pointer, as
 * some test suites written for int handles do), the address of an
 * ordinary variable, and an uninitialised request's typical content.
 * Freed: a copy of a handle kept after MPI_Type_free, MPI_Comm_free,
 * MPI_Op_free, MPI_Group_free, MPI_Errhandler_free or the completion of a
 * request. Each is passed to a call of its kind, and to a collective
 * (MPI_Ialltoallw with an array of types whose first entry is garbage).
 * The expected classes are the standard's: MPI_ERR_TYPE, MPI_ERR_COMM,
 * MPI_ERR_REQUEST, MPI_ERR_OP, MPI_ERR_GROUP, and for an error handler
 * the class MPI_ERRHANDLER_NULL gets (MPI_ERR_ERRHANDLER since MPI 4.1,
 * which older headers lack).
 *
 * With other MPIs (pointer handles in Open MPI, int handles in MPICH) such
 * calls may crash: the program is erroneous. The checks run with Tern
 * only; elsewhere it only prints OK.
 */
#include "tt.h"

/* Not mapped on any Linux: the upper half of the address space. */
#define UNMAPPED ((uintptr_t)0x20900000209ull << 20)

static int class_of(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static int errh_class;

#define EXPECT(call, want)                                                     \
    do {                                                                       \
        int cls_ = class_of(call);                                             \
        TT_CHECK(cls_ == (want), "%s returned class %d, expected %s (%d)",    \
                 #call, cls_, #want, (want));                                  \
    } while (0)

static void garbage(void)
{
    int x = 42, out = 0, flag;
    int buf[4] = { 0 };
    void *bad[] = { (void *)UNMAPPED, &x, (void *)0x7ffd12345678ull };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        MPI_Datatype t = (MPI_Datatype)(uintptr_t)bad[i];
        MPI_Comm c = (MPI_Comm)(uintptr_t)bad[i];
        MPI_Request r = (MPI_Request)(uintptr_t)bad[i];
        MPI_Op op = (MPI_Op)(uintptr_t)bad[i];
        MPI_Group g = (MPI_Group)(uintptr_t)bad[i];
        MPI_Errhandler e = (MPI_Errhandler)(uintptr_t)bad[i];
        MPI_Status st;
        EXPECT(MPI_Send(buf, 1, t, tt_rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
        EXPECT(MPI_Type_commit(&t), MPI_ERR_TYPE);
        EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, c), MPI_ERR_COMM);
        EXPECT(MPI_Barrier(c), MPI_ERR_COMM);
        EXPECT(MPI_Wait(&r, &st), MPI_ERR_REQUEST);
        EXPECT(MPI_Test(&r, &flag, &st), MPI_ERR_REQUEST);
        EXPECT(MPI_Allreduce(&x, &out, 1, MPI_INT, op, MPI_COMM_WORLD), MPI_ERR_OP);
        int size;
        EXPECT(MPI_Group_size(g, &size), MPI_ERR_GROUP);
        EXPECT(MPI_Comm_set_errhandler(MPI_COMM_SELF, e), errh_class);
    }

    /* Types read back from an int array, as a test written for int
     * handles passes them: the first entry is garbage. */
    MPI_Datatype types[64];
    int counts[64], displs[64];
    for (int i = 0; i < tt_size; i++) {
        types[i] = MPI_INT;
        counts[i] = 1;
        displs[i] = i * (int)sizeof(int);
    }
    types[0] = (MPI_Datatype)(uintptr_t)UNMAPPED;
    int *sb = calloc((size_t)tt_size, sizeof(int)), *rb = calloc((size_t)tt_size, sizeof(int));
    TT_CHECK(sb && rb, "out of memory");
    MPI_Request req;
    EXPECT(MPI_Ialltoallw(sb, counts, displs, types, rb, counts, displs, types,
                          MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
    free(sb);
    free(rb);
}

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void on_error(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

static void freed(void)
{
    MPI_Datatype t, t_copy;
    TT_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    TT_MPI(MPI_Type_commit(&t));
    t_copy = t;
    TT_MPI(MPI_Type_free(&t));
    int buf[8] = { 0 }, x = 1, out;
    EXPECT(MPI_Send(buf, 1, t_copy, tt_rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);

    MPI_Comm c, c_copy;
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    c_copy = c;
    TT_MPI(MPI_Comm_free(&c));
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, c_copy), MPI_ERR_COMM);

    MPI_Op op, op_copy;
    TT_MPI(MPI_Op_create(add_ints, 1, &op));
    op_copy = op;
    TT_MPI(MPI_Op_free(&op));
    EXPECT(MPI_Allreduce(&x, &out, 1, MPI_INT, op_copy, MPI_COMM_WORLD), MPI_ERR_OP);

    MPI_Errhandler e, e_copy;
    TT_MPI(MPI_Comm_create_errhandler(on_error, &e));
    e_copy = e;
    TT_MPI(MPI_Errhandler_free(&e));
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_SELF, e_copy), errh_class);

    /* A group of its own (one from MPI_Comm_group may be the
     * communicator's, which stays). */
    MPI_Group world, g, g_copy;
    int me = tt_rank;
    TT_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    TT_MPI(MPI_Group_incl(world, 1, &me, &g));
    TT_MPI(MPI_Group_free(&world));
    g_copy = g;
    TT_MPI(MPI_Group_free(&g));
    int size;
    EXPECT(MPI_Group_size(g_copy, &size), MPI_ERR_GROUP);

    MPI_Request r, r_copy;
    TT_MPI(MPI_Irecv(&out, 1, MPI_INT, tt_rank, 7, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Send(&x, 1, MPI_INT, tt_rank, 7, MPI_COMM_WORLD));
    r_copy = r;
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    EXPECT(MPI_Wait(&r_copy, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "bad_handles");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    if (!strncmp(lib, "Tern", 4)) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        errh_class = class_of(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRHANDLER_NULL));
        TT_CHECK(errh_class != MPI_SUCCESS, "MPI_Comm_set_errhandler took MPI_ERRHANDLER_NULL");
        garbage();
        freed();
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    }
    return tt_finish();
}
