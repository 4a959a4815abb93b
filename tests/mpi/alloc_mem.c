/*
 * alloc_mem: MPI_Alloc_mem and MPI_Free_mem.
 *
 *  - Blocks of 0, 1, 4 KiB + 1 and 4 MiB bytes, each usable to its last
 *    byte, distinct, and (Tern's promise, not the standard's) 64-byte
 *    aligned; the 4 MiB one asks mpi_minimum_memory_alignment 4096, which
 *    the standard's info key makes binding, and gets it.
 *  - Such blocks as send and receive buffers: 4 MiB around a ring, which
 *    on one host goes through the single-copy path, checked byte by byte.
 *  - MPI_Free_mem(NULL) succeeds, as free(NULL) does.
 *  - Errors (MPI_ERRORS_RETURN on MPI_COMM_SELF, where the standard sends
 *    errors of calls without a communicator): a negative size and a NULL
 *    baseptr (MPI_ERR_ARG); freeing memory from malloc, a pointer into a
 *    block, or a block twice (MPI_ERR_ARG), none of which disturbs the
 *    blocks still allocated.
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

#define BIG (4 << 20)

static void check_block(char *p, size_t n, int seed)
{
    TT_CHECK(((uintptr_t)p & 63) == 0, "block of %zu bytes at %p is not 64-byte aligned", n, p);
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(i * 7 + (size_t)seed);
    for (size_t i = 0; i < n; i++)
        TT_CHECK(p[i] == (char)(i * 7 + (size_t)seed), "byte %zu of a %zu-byte block", i, n);
}

static void blocks(void)
{
    const size_t sizes[] = { 0, 1, 4097, BIG };
    char *p[4];
    MPI_Info hints;
    TT_MPI(MPI_Info_create(&hints));
    TT_MPI(MPI_Info_set(hints, "mpi_minimum_memory_alignment", "4096"));
    for (int i = 0; i < 4; i++) {
        TT_MPI(MPI_Alloc_mem((MPI_Aint)sizes[i], i == 3 ? hints : MPI_INFO_NULL, &p[i]));
        check_block(p[i], sizes[i], i);
    }
    TT_MPI(MPI_Info_free(&hints));
    TT_CHECK(((uintptr_t)p[3] & 4095) == 0, "mpi_minimum_memory_alignment 4096 gave %p", p[3]);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            TT_CHECK(p[i] != p[j], "blocks %d and %d are both at %p", i, j, p[i]);
    for (int i = 0; i < 4; i++)
        TT_MPI(MPI_Free_mem(p[i]));
    TT_MPI(MPI_Free_mem(NULL));
}

static void as_buffers(void)
{
    char *out, *in;
    TT_MPI(MPI_Alloc_mem(BIG, MPI_INFO_NULL, &out));
    TT_MPI(MPI_Alloc_mem(BIG, MPI_INFO_NULL, &in));
    for (size_t i = 0; i < BIG; i++)
        out[i] = (char)(i * 13 + (size_t)tt_rank);
    int next = (tt_rank + 1) % tt_size, prev = (tt_rank + tt_size - 1) % tt_size;
    TT_MPI(MPI_Sendrecv(out, BIG, MPI_CHAR, next, 1, in, BIG, MPI_CHAR, prev, 1,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < BIG; i++)
        TT_CHECK(in[i] == (char)(i * 13 + (size_t)prev), "byte %zu from rank %d", i, prev);
    TT_MPI(MPI_Free_mem(out));
    TT_MPI(MPI_Free_mem(in));
}

static void errors(void)
{
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    void *p = NULL, *keep = NULL;
    TT_MPI(MPI_Alloc_mem(100, MPI_INFO_NULL, &keep));
    memset(keep, 0x5a, 100);
    TT_EXPECT_CLASS(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_ARG);
    TT_CHECK(p == NULL, "a failed MPI_Alloc_mem set the pointer");
    TT_EXPECT_CLASS(MPI_Alloc_mem(8, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    char *m = malloc(256);
    TT_CHECK(m != NULL, "malloc");
    TT_EXPECT_CLASS(MPI_Free_mem(m + 64), MPI_ERR_ARG);
    TT_EXPECT_CLASS(MPI_Free_mem(m), MPI_ERR_ARG);
    free(m);
    TT_EXPECT_CLASS(MPI_Free_mem((char *)keep + 8), MPI_ERR_ARG);
    TT_MPI(MPI_Alloc_mem(10, MPI_INFO_NULL, &p));
    TT_MPI(MPI_Free_mem(p));
    TT_EXPECT_CLASS(MPI_Free_mem(p), MPI_ERR_ARG);
    for (int i = 0; i < 100; i++)
        TT_CHECK(((unsigned char *)keep)[i] == 0x5a, "byte %d of a live block changed", i);
    TT_MPI(MPI_Free_mem(keep));
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "alloc_mem");
    blocks();
    as_buffers();
    errors();
    return tt_finish();
}
