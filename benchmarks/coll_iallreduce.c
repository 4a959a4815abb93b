/*
 * Overlap of MPI_Iallreduce with computation, in the style of OSU's
 * osu_iallreduce.
 *
 * A size is the whole vector in bytes: size / 4 MPI_FLOAT elements, summed
 * (MPI_SUM) over all ranks.  Per size, two measurements:
 *
 *   pure      MPI_Iallreduce then MPI_Wait at once: each rank's average
 *             time per call is its "pure communication" time T_pure.
 *   overlap   MPI_Iallreduce, then T_pure of busy computation (no MPI call,
 *             unless -t asks for MPI_Test calls spread over it), then
 *             MPI_Wait: the average time per call is the "overall" time,
 *             the time spent computing is "compute".
 *
 * Overlap (%) = 100 * (1 - (overall - compute) / pure), from the averages
 * over the ranks, clamped to 0..100: 100 means the whole communication hid
 * behind the computation, 0 means none of it did (as OSU computes it).
 * The table's average, minimum and maximum are those of the overall time.
 * --verify checks every element of every result, in both measurements.
 * Standard MPI only.
 */
#include "coll_util.h"

static double compute_target;         /* seconds of computation per call */
static double computed;               /* seconds computed, summed over calls */

/* Busy computation for `seconds`, with `ntest` MPI_Test calls on `req`
 * spread over it; returns the time it took. */
static double compute(struct coll *c, double seconds, MPI_Request *req)
{
    volatile double x = 1.0;
    double start = MPI_Wtime(), now;
    int tests = 0, flag;
    MPI_Status st;

    do {
        for (int k = 0; k < 64; k++)
            x = x * 1.0000001 + 1e-9;
        now = MPI_Wtime();
        if (tests < c->ntest && now - start >= seconds * tests / c->ntest) {
            coll_ok(c, MPI_Test(req, &flag, &st), "MPI_Test");
            tests++;
        }
    } while (now - start < seconds);
    return now - start;
}

static int pure(struct coll *c, size_t size, long it)
{
    MPI_Request req;
    MPI_Status st;
    int rc;

    (void)it;
    rc = MPI_Iallreduce(c->sbuf, c->rbuf, (int)(size / sizeof(float)), MPI_FLOAT,
                        MPI_SUM, MPI_COMM_WORLD, &req);
    return rc == MPI_SUCCESS ? MPI_Wait(&req, &st) : rc;
}

static int overlapped(struct coll *c, size_t size, long it)
{
    MPI_Request req;
    MPI_Status st;
    int rc;

    (void)it;
    rc = MPI_Iallreduce(c->sbuf, c->rbuf, (int)(size / sizeof(float)), MPI_FLOAT,
                        MPI_SUM, MPI_COMM_WORLD, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    computed += compute(c, compute_target, &req);
    return MPI_Wait(&req, &st);
}

static void fill(struct coll *c, size_t size, long it)
{
    coll_fill_values((float *)c->sbuf, size / sizeof(float), size, it, c->rank, 0);
}

static void check(struct coll *c, size_t size, long it)
{
    coll_check_sums(c, (const float *)c->rbuf, size / sizeof(float), size, it, 0,
                    "result");
    coll_check_guard(c, c->rbuf, size, size, it, "result");
}

static const struct coll_info info = {
    .name = "iallreduce",
    .title = "Tern Non-blocking Allreduce Overlap Test",
    .call = "MPI_Iallreduce",
    .detail = "MPI_FLOAT, MPI_SUM; size = the whole vector",
    .sizes = "8,64K,1M",
    .elem = sizeof(float),
    .sblocks = COLL_ONE,
    .rblocks = COLL_ONE,
    .iters = 1000,
    .warmup = 100,
    .large = 8192,
    .min_iters = 20,
    .overlap = 1,
    .run = pure,
    .fill = fill,
    .check = check,
};

int main(int argc, char **argv)
{
    struct coll c;

    if (!coll_init(&c, &info, &argc, &argv))
        return c.exit_code;
    for (int k = 0; k < c.nsizes; k++) {
        size_t size = c.sizes[k];
        double t_pure, t_all, t_comp, v[6], s[3], overlap;

        t_pure = coll_time(&c, size, pure);
        compute_target = t_pure;
        computed = 0.0;
        t_all = coll_time(&c, size, overlapped);
        t_comp = computed / c.last_calls;

        coll_stats(&c, t_all * 1e6, v);
        coll_stats(&c, t_comp * 1e6, s);
        v[3] = s[0];
        coll_stats(&c, t_pure * 1e6, s);
        v[4] = s[0];
        overlap = v[4] > 0.0 ? 100.0 * (1.0 - (v[0] - v[3]) / v[4]) : 0.0;
        v[5] = overlap < 0.0 ? 0.0 : overlap > 100.0 ? 100.0 : overlap;
        coll_row(&c, size, v, 6, c.last_iters);
    }
    return coll_finish(&c);
}
