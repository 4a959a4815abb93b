/*
 * p2p_anysource: fan-in to rank 0 with wildcards.
 *
 * Every rank, rank 0 included (to itself), sends K messages to rank 0;
 * message k from rank r has tag r * 100 + k and holds count(r, k) ints whose
 * values depend on r, k and the index. Rank 0 receives all of them with
 * wildcards and checks from each status who sent it (MPI_SOURCE), which one
 * it is (MPI_TAG), its length (MPI_Get_count, MPI_Get_elements), its payload,
 * and that each sender's messages came in order.
 *
 * Phases, each started by rank 0 telling the others to go (so no helper
 * message is ever in flight to rank 0 while it receives with MPI_ANY_TAG):
 *   1. blocking Recv with MPI_ANY_SOURCE and MPI_ANY_TAG;
 *   2. Irecv with MPI_ANY_SOURCE, MPI_ANY_TAG, all posted before the go,
 *      completed with Waitany;
 *   3. for each sender in turn, Recv with a specific source and MPI_ANY_TAG;
 *   4. for each (sender, k), Recv with MPI_ANY_SOURCE and the specific tag.
 */
#include "tt.h"

#define K 6
#define TAG_GO 31000
#define MAXCOUNT 5000

static int count_of(int r, int k)
{
    /* Mix of empty, small and medium messages. */
    static const int c[K] = {0, 1, 7, 1000, 3, MAXCOUNT};
    return c[k] + r % 3;
}

static int value_of(int r, int k, int i)
{
    return r * 1000003 + k * 10007 + i;
}

static int *rbuf;

/* Checks one received message; returns its k. seen[] tracks per-sender
 * order when order_check is set. */
static int check_one(const MPI_Status *st, int *seen, int order_check,
                     const char *phase)
{
    int src = st->MPI_SOURCE, tag = st->MPI_TAG, count = -1, elems = -1;
    if (src < 0 || src >= tt_size)
        TT_FAIL("phase %s: status.MPI_SOURCE %d is not a rank of 0..%d", phase,
                src, tt_size - 1);
    int k = tag - src * 100;
    if (k < 0 || k >= K)
        TT_FAIL("phase %s: message from rank %d has tag %d; expected %d..%d",
                phase, src, tag, src * 100, src * 100 + K - 1);
    if (order_check && k != seen[src])
        TT_FAIL("phase %s: from rank %d expected message %d (tag %d) next, got "
                "message %d (tag %d)", phase, src, seen[src],
                src * 100 + seen[src], k, tag);
    seen[src]++;
    TT_MPI(MPI_Get_count(st, MPI_INT, &count));
    if (count != count_of(src, k))
        TT_FAIL("phase %s: message %d from rank %d: MPI_Get_count(MPI_INT): "
                "expected %d, got %d", phase, k, src, count_of(src, k), count);
    TT_MPI(MPI_Get_elements(st, MPI_INT, &elems));
    if (elems != count_of(src, k))
        TT_FAIL("phase %s: message %d from rank %d: MPI_Get_elements(MPI_INT): "
                "expected %d, got %d", phase, k, src, count_of(src, k), elems);
    for (int i = 0; i < count; i++)
        if (rbuf[i] != value_of(src, k, i))
            TT_FAIL("phase %s: message %d from rank %d: int %d: expected %d, "
                    "got %d", phase, k, src, i, value_of(src, k, i), rbuf[i]);
    return k;
}

static void go_from_zero(void)
{
    int go = 1;
    if (tt_rank == 0) {
        for (int r = 1; r < tt_size; r++)
            TT_MPI(MPI_Send(&go, 1, MPI_INT, r, TAG_GO, MPI_COMM_WORLD));
    } else {
        TT_MPI(MPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    }
}

static int *sbufs[K];
static MPI_Request sreq[K];

/* Every rank starts sending its K messages to rank 0 (nonblocking, so rank 0
 * can send to itself). */
static void start_sends(void)
{
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < count_of(tt_rank, k); i++)
            sbufs[k][i] = value_of(tt_rank, k, i);
        TT_MPI(MPI_Isend(sbufs[k], count_of(tt_rank, k), MPI_INT, 0,
                         tt_rank * 100 + k, MPI_COMM_WORLD, &sreq[k]));
    }
}

static void finish_sends(void)
{
    TT_MPI(MPI_Waitall(K, sreq, MPI_STATUSES_IGNORE));
}

static void check_all_seen(const int *seen, const char *phase)
{
    for (int r = 0; r < tt_size; r++)
        if (seen[r] != K)
            TT_FAIL("phase %s: received %d messages from rank %d, expected %d",
                    phase, seen[r], r, K);
}

static void phase1(int *seen)
{
    go_from_zero();
    start_sends();
    if (tt_rank == 0) {
        memset(seen, 0, sizeof(int) * (size_t)tt_size);
        for (int n = 0; n < K * tt_size; n++) {
            MPI_Status st;
            TT_MPI(MPI_Recv(rbuf, MAXCOUNT + 3, MPI_INT, MPI_ANY_SOURCE,
                            MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            check_one(&st, seen, 1, "1 (Recv ANY_SOURCE ANY_TAG)");
        }
        check_all_seen(seen, "1");
    }
    finish_sends();
}

static void phase2(int *seen)
{
    int n = K * tt_size;
    MPI_Request *rreq = NULL;
    int **bufs = NULL;
    if (tt_rank == 0) {
        rreq = tt_malloc(sizeof *rreq * (size_t)n);
        bufs = tt_malloc(sizeof *bufs * (size_t)n);
        for (int i = 0; i < n; i++) {
            bufs[i] = tt_malloc(sizeof(int) * (MAXCOUNT + 3));
            TT_MPI(MPI_Irecv(bufs[i], MAXCOUNT + 3, MPI_INT, MPI_ANY_SOURCE,
                             MPI_ANY_TAG, MPI_COMM_WORLD, &rreq[i]));
        }
    }
    go_from_zero();
    start_sends();
    if (tt_rank == 0) {
        /* Receives posted in order match in order, so per sender the
         * messages land in increasing request indices. Check order by
         * request index after all completed. */
        MPI_Status *sts = tt_malloc(sizeof *sts * (size_t)n);
        for (int done = 0; done < n; done++) {
            int idx = -1;
            MPI_Status st;
            TT_MPI(MPI_Waitany(n, rreq, &idx, &st));
            if (idx < 0 || idx >= n)
                TT_FAIL("phase 2: MPI_Waitany index %d, expected 0..%d", idx,
                        n - 1);
            if (rreq[idx] != MPI_REQUEST_NULL)
                TT_FAIL("phase 2: MPI_Waitany did not free request %d", idx);
            sts[idx] = st;
        }
        int idx = 0;
        TT_MPI(MPI_Waitany(n, rreq, &idx, MPI_STATUS_IGNORE));
        TT_EQ("phase 2: MPI_Waitany on all-null requests: index", MPI_UNDEFINED,
              idx);
        memset(seen, 0, sizeof(int) * (size_t)tt_size);
        for (int i = 0; i < n; i++) {
            memcpy(rbuf, bufs[i], sizeof(int) * (MAXCOUNT + 3));
            check_one(&sts[i], seen, 1, "2 (Irecv ANY_SOURCE ANY_TAG)");
            free(bufs[i]);
        }
        check_all_seen(seen, "2");
        free(sts);
        free(bufs);
        free(rreq);
    }
    finish_sends();
}

static void phase3(int *seen)
{
    go_from_zero();
    start_sends();
    if (tt_rank == 0) {
        memset(seen, 0, sizeof(int) * (size_t)tt_size);
        /* Senders in reverse order, so later senders' messages wait. */
        for (int r = tt_size - 1; r >= 0; r--)
            for (int k = 0; k < K; k++) {
                MPI_Status st;
                TT_MPI(MPI_Recv(rbuf, MAXCOUNT + 3, MPI_INT, r, MPI_ANY_TAG,
                                MPI_COMM_WORLD, &st));
                if (st.MPI_SOURCE != r)
                    TT_FAIL("phase 3: Recv from rank %d got status.MPI_SOURCE "
                            "%d", r, st.MPI_SOURCE);
                check_one(&st, seen, 1, "3 (Recv source r, ANY_TAG)");
            }
        check_all_seen(seen, "3");
    }
    finish_sends();
}

static void phase4(int *seen)
{
    go_from_zero();
    start_sends();
    if (tt_rank == 0) {
        memset(seen, 0, sizeof(int) * (size_t)tt_size);
        /* Tags in decreasing k: the wanted message is often not the first
         * one queued from its sender. */
        for (int k = K - 1; k >= 0; k--)
            for (int r = 0; r < tt_size; r++) {
                MPI_Status st;
                int tag = r * 100 + k;
                TT_MPI(MPI_Recv(rbuf, MAXCOUNT + 3, MPI_INT, MPI_ANY_SOURCE, tag,
                                MPI_COMM_WORLD, &st));
                if (st.MPI_TAG != tag || st.MPI_SOURCE != r)
                    TT_FAIL("phase 4: Recv(ANY_SOURCE, tag %d) got source %d "
                            "tag %d, expected source %d", tag, st.MPI_SOURCE,
                            st.MPI_TAG, r);
                check_one(&st, seen, 0, "4 (Recv ANY_SOURCE, tag)");
            }
        check_all_seen(seen, "4");
    }
    finish_sends();
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "p2p_anysource");
    if (tt_size > 300)
        TT_FAIL("this test encodes the rank in the tag; at most 300 ranks");
    rbuf = tt_malloc(sizeof(int) * (MAXCOUNT + 3));
    for (int k = 0; k < K; k++)
        sbufs[k] = tt_malloc(sizeof(int) * (MAXCOUNT + 3));
    int *seen = tt_malloc(sizeof(int) * (size_t)tt_size);

    phase1(seen);
    phase2(seen);
    phase3(seen);
    phase4(seen);

    free(seen);
    for (int k = 0; k < K; k++)
        free(sbufs[k]);
    free(rbuf);
    return tt_finish();
}
