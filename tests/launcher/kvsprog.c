/*
 * Exercises the wire-up store directly through include/tern/boot.h: several
 * rounds of put / fence / get across all ranks, a missing key, a value too
 * long for the buffer, then finalize. Also runs as a singleton (no mpirun).
 * Exits 0 when every check holds, else prints the failed check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tern/boot.h"
#include "tern/err.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "rank %d: check failed: %s " \
    "(line %d)\n", info.rank, #cond, __LINE__); exit(1); } } while (0)

int main(void)
{
    struct tern_boot_info info;
    CHECK(tern_boot_init(&info) == 0);
    CHECK(getenv("TERN_JOB_SECRET") == NULL);
    CHECK(info.size >= 1 && info.rank < info.size && info.local_ranks);
    for (int round = 0; round < 3; round++) {
        char key[32], val[64], got[64];
        snprintf(key, sizeof key, "k%d", round);
        snprintf(val, sizeof val, "rank %d round %d", info.rank, round);
        CHECK(tern_boot_put(key, val, strlen(val) + 1) == 0);
        CHECK(tern_boot_fence() == 0);
        for (int r = 0; r < info.size; r++) {
            size_t len = sizeof got;
            snprintf(val, sizeof val, "rank %d round %d", r, round);
            CHECK(tern_boot_get(r, key, got, &len) == 0);
            CHECK(len == strlen(val) + 1 && strcmp(got, val) == 0);
        }
    }
    size_t len = 4;
    char small[4];
    CHECK(tern_boot_get(0, "no-such-key", small, &len) == TERN_ENOTFOUND);
    len = sizeof small;
    CHECK(tern_boot_get(0, "k0", small, &len) == TERN_ETRUNCATE && len > 4);
    CHECK(tern_boot_fence() == 0);
    CHECK(tern_boot_finalize() == 0);
    printf("kvs ok rank %d of %d\n", info.rank, info.size);
    return 0;
}
