/*
 * Predefined datatypes: sizes and extents as the C compiler lays them out,
 * and pack/unpack of the pair types with gaps.
 */
#include <complex.h>
#include <stddef.h>
#include <string.h>

#include <mpi.h>

#include "libmpi/core/datatype.h"
#include "tests/unit/cunit_main.h"

static void test_sizes(void)
{
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_CHAR)->size, 1);
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_INT)->size, sizeof(int));
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_LONG)->size, sizeof(long));
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_DOUBLE)->size, sizeof(double));
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_LONG_DOUBLE)->size, sizeof(long double));
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_C_DOUBLE_COMPLEX)->size, sizeof(double _Complex));
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_INT64_T)->size, 8);
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_AINT)->size, sizeof(MPI_Aint));
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_WCHAR)->size, sizeof(wchar_t));
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_DOUBLE_INT)->size, sizeof(double) + sizeof(int));
    CU_ASSERT_EQUAL(tern_dtype_get(MPI_DOUBLE_INT)->extent, sizeof(struct { double d; int i; }));
    CU_ASSERT_PTR_NULL(tern_dtype_get(MPI_DATATYPE_NULL));
    CU_ASSERT_PTR_NULL(tern_dtype_get((MPI_Datatype)0x2ff));
}

static void test_contig(void)
{
    CU_ASSERT(tern_dtype_contig(tern_dtype_get(MPI_INT), 1000));
    CU_ASSERT(tern_dtype_contig(tern_dtype_get(MPI_DOUBLE_INT), 1));
    CU_ASSERT(!tern_dtype_contig(tern_dtype_get(MPI_DOUBLE_INT), 2));
    CU_ASSERT(!tern_dtype_contig(tern_dtype_get(MPI_SHORT_INT), 1));
    CU_ASSERT(tern_dtype_contig(tern_dtype_get(MPI_SHORT_INT), 0));
}

static void test_pack_short_int(void)
{
    struct si { short s; int i; } in[3] = { { 1, 10 }, { 2, 20 }, { 3, 30 } }, out[3];
    const struct tern_dtype *dt = tern_dtype_get(MPI_SHORT_INT);
    unsigned char packed[3 * (sizeof(short) + sizeof(int))];
    memset(out, 0x55, sizeof(out));
    tern_dtype_pack(dt, in, 3, packed);
    CU_ASSERT_EQUAL(dt->size * 3, sizeof(packed));
    tern_dtype_unpack(dt, packed, sizeof(packed), out);
    for (int k = 0; k < 3; k++) {
        CU_ASSERT_EQUAL(out[k].s, in[k].s);
        CU_ASSERT_EQUAL(out[k].i, in[k].i);
    }
    /* A short message unpacks only what arrived. */
    struct si part[2];
    memset(part, 0x55, sizeof(part));
    tern_dtype_unpack(dt, packed, dt->size + sizeof(short), part);
    CU_ASSERT_EQUAL(part[0].i, 10);
    CU_ASSERT_EQUAL(part[1].s, 2);
    CU_ASSERT_EQUAL(part[1].i, 0x55555555);
}

int main(void)
{
    static const struct cunit_test tests[] = {
        { "sizes and extents", test_sizes },
        { "contiguity", test_contig },
        { "pack and unpack with a gap", test_pack_short_int },
        { NULL, NULL },
    };
    return cunit_run("predefined datatypes", tests);
}
