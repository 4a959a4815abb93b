/*
 * env_basic: the environment calls.
 *
 * Checked on every rank:
 *   - before MPI_Init_thread: MPI_Initialized and MPI_Finalized are false,
 *     MPI_Get_version and MPI_Get_library_version work;
 *   - MPI_Init_thread(MPI_THREAD_FUNNELED, or the level named by argv[1]):
 *     the levels are ordered SINGLE < FUNNELED < SERIALIZED < MULTIPLE, the
 *     provided level is one of them, MPI_Query_thread returns it, and
 *     MPI_Is_thread_main is true on the thread that initialised MPI;
 *   - MPI_Initialized true, MPI_Finalized false while MPI is up;
 *   - MPI_Get_version gives version >= 3 (printed by rank 0, with the
 *     library version string); MPI_Get_library_version gives a non-empty
 *     string shorter than MPI_MAX_LIBRARY_VERSION_STRING;
 *   - MPI_Wtime never goes backwards over many calls and advances by about
 *     the time slept; MPI_Wtick > 0;
 *   - MPI_Get_processor_name: non-empty, length as reported, shorter than
 *     MPI_MAX_PROCESSOR_NAME;
 *   - attributes: MPI_TAG_UB >= 32767; MPI_WTIME_IS_GLOBAL, if set, is 0 or
 *     1;
 *   - MPI_Comm_get_name: "MPI_COMM_WORLD" and "MPI_COMM_SELF"; MPI_COMM_SELF
 *     has size 1 and rank 0;
 *   - after MPI_Finalize: MPI_Initialized and MPI_Finalized are true.
 */
#include "tt.h"

static void check_name(MPI_Comm comm, const char *want)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    TT_MPI(MPI_Comm_get_name(comm, name, &len));
    if (strcmp(name, want) != 0 || len != (int)strlen(want))
        TT_FAIL("MPI_Comm_get_name: expected \"%s\" (length %zu), got \"%s\" "
                "(length %d)", want, strlen(want), name, len);
}

int main(int argc, char **argv)
{
    int flag = -1, version = 0, subversion = -1, len = -1;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];

    tt_name = "env_basic";
    /* Before MPI is initialised. */
    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag) {
        fprintf(stderr, "FAIL env_basic: MPI_Initialized before init: %d\n",
                flag);
        return 1;
    }
    flag = -1;
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag) {
        fprintf(stderr, "FAIL env_basic: MPI_Finalized before init: %d\n", flag);
        return 1;
    }
    if (MPI_Get_version(&version, &subversion) != MPI_SUCCESS || version < 3) {
        fprintf(stderr, "FAIL env_basic: MPI_Get_version before init: %d.%d\n",
                version, subversion);
        return 1;
    }
    if (MPI_Get_library_version(lib, &len) != MPI_SUCCESS || len <= 0) {
        fprintf(stderr, "FAIL env_basic: MPI_Get_library_version before init\n");
        return 1;
    }

    int levels[4] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED,
                     MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
    int required = MPI_THREAD_FUNNELED, provided = -1;
    if (argc > 1) {
        static const char *names[4] = {"single", "funneled", "serialized",
                                       "multiple"};
        for (int i = 0; i < 4; i++)
            if (strcmp(argv[1], names[i]) == 0)
                required = levels[i];
    }
    if (MPI_Init_thread(&argc, &argv, required, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL env_basic: MPI_Init_thread failed\n");
        return 1;
    }
    TT_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &tt_rank));
    TT_MPI(MPI_Comm_size(MPI_COMM_WORLD, &tt_size));

    TT_CHECK(levels[0] < levels[1] && levels[1] < levels[2] &&
                 levels[2] < levels[3],
             "thread levels not ordered: %d %d %d %d", levels[0], levels[1],
             levels[2], levels[3]);
    TT_CHECK(provided == levels[0] || provided == levels[1] ||
                 provided == levels[2] || provided == levels[3],
             "MPI_Init_thread provided %d, not a thread level", provided);
    int q = -1;
    TT_MPI(MPI_Query_thread(&q));
    TT_EQ("MPI_Query_thread", provided, q);
    TT_MPI(MPI_Is_thread_main(&flag));
    TT_EQ("MPI_Is_thread_main on the initialising thread", 1, flag);

    TT_MPI(MPI_Initialized(&flag));
    TT_EQ("MPI_Initialized after init", 1, flag);
    TT_MPI(MPI_Finalized(&flag));
    TT_EQ("MPI_Finalized after init", 0, flag);

    TT_MPI(MPI_Get_version(&version, &subversion));
    TT_CHECK(version >= 3 && subversion >= 0,
             "MPI_Get_version: %d.%d, expected at least 3.0", version,
             subversion);
    len = -1;
    TT_MPI(MPI_Get_library_version(lib, &len));
    TT_CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING &&
                 (int)strlen(lib) <= len,
             "MPI_Get_library_version: length %d, strlen %zu", len,
             strlen(lib));

    /* Wtime and Wtick. */
    double tick = MPI_Wtick(), prev = MPI_Wtime();
    TT_CHECK(tick > 0 && tick < 1, "MPI_Wtick = %g, expected in (0, 1)", tick);
    for (int i = 0; i < 100000; i++) {
        double now = MPI_Wtime();
        if (now < prev)
            TT_FAIL("MPI_Wtime went backwards: %.9f after %.9f", now, prev);
        prev = now;
    }
    double t0 = MPI_Wtime();
    tt_sleep_ms(50);
    double dt = MPI_Wtime() - t0;
    TT_CHECK(dt >= 0.045 && dt < 5.0,
             "MPI_Wtime advanced %.6f s over a 50 ms sleep", dt);

    char host[MPI_MAX_PROCESSOR_NAME];
    len = -1;
    TT_MPI(MPI_Get_processor_name(host, &len));
    TT_CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME &&
                 (int)strlen(host) == len,
             "MPI_Get_processor_name: length %d, strlen %zu", len,
             strlen(host));

    void *attr = NULL;
    flag = 0;
    TT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag));
    TT_CHECK(flag && attr, "MPI_TAG_UB attribute not set");
    int tag_ub = *(int *)attr;
    TT_CHECK(tag_ub >= 32767, "MPI_TAG_UB = %d, expected >= 32767", tag_ub);
    flag = 0;
    TT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &attr, &flag));
    int wg = flag ? *(int *)attr : -1;
    TT_CHECK(!flag || wg == 0 || wg == 1, "MPI_WTIME_IS_GLOBAL = %d", wg);

    check_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    check_name(MPI_COMM_SELF, "MPI_COMM_SELF");
    int ssize = -1, srank = -1;
    TT_MPI(MPI_Comm_size(MPI_COMM_SELF, &ssize));
    TT_MPI(MPI_Comm_rank(MPI_COMM_SELF, &srank));
    TT_EQ("size of MPI_COMM_SELF", 1, ssize);
    TT_EQ("rank in MPI_COMM_SELF", 0, srank);
    TT_CHECK(tt_rank >= 0 && tt_rank < tt_size, "rank %d of size %d", tt_rank,
             tt_size);

    if (tt_rank == 0) {
        printf("env_basic: MPI %d.%d, thread level required %d provided %d, "
               "TAG_UB %d, Wtick %g, WTIME_IS_GLOBAL %d, processor %s\n",
               version, subversion, required, provided, tag_ub, tick, wg, host);
        /* The first line of the library version string. */
        char *nl = strchr(lib, '\n');
        if (nl)
            *nl = '\0';
        printf("env_basic: library: %s\n", lib);
    }

    /* tt_finish without its print, so the state after Finalize can be
     * checked first. */
    int token = 1;
    if (tt_rank == 0) {
        for (int r = 1; r < tt_size; r++)
            TT_MPI(MPI_Recv(&token, 1, MPI_INT, r, TT_TAG_DONE, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
    } else {
        TT_MPI(MPI_Send(&token, 1, MPI_INT, 0, TT_TAG_DONE, MPI_COMM_WORLD));
    }
    TT_MPI(MPI_Finalize());
    int ini = -1, fin = -1;
    if (MPI_Initialized(&ini) != MPI_SUCCESS ||
        MPI_Finalized(&fin) != MPI_SUCCESS || ini != 1 || fin != 1) {
        fprintf(stderr, "FAIL env_basic rank %d/%d: after MPI_Finalize: "
                "MPI_Initialized %d (expected 1), MPI_Finalized %d (expected "
                "1)\n", tt_rank, tt_size, ini, fin);
        return 1;
    }
    if (tt_rank == 0)
        printf("OK env_basic\n");
    return 0;
}
