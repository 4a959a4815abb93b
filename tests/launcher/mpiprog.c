/*
 * One small MPI program for the launcher tests; argv[1] picks what it does.
 * It uses only MPI_Init, MPI_Comm_rank/size, MPI_Abort and MPI_Finalize
 * (and one wrong MPI_Send), so it exercises the launcher and the wire-up,
 * not the rest of the library.
 *
 *   hello                  print one line per rank, finalize
 *   exit R N               finalize, then rank R exits with N
 *   segv R                 rank R dies of SIGSEGV; the others wait
 *   nofinalize R           rank R exits 0 without MPI_Finalize; others wait
 *   abort R N              rank R prints a line, calls MPI_Abort(N); others wait
 *   fatal R                rank R prints a line, calls MPI_Send with count -1
 *                          under MPI_ERRORS_ARE_FATAL; others wait
 *   sleep S                every rank sleeps S seconds, then finalizes
 *   stdin                  every rank reports what it read from stdin
 *   lines N                every rank writes N long lines in small pieces
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void wait_to_be_killed(void)
{
    sleep(60);
    fprintf(stderr, "rank %d was not killed\n", rank);
    exit(99);
}

/* Writes each line in three write() calls to invite interleaving. */
static void lines(int n)
{
    char line[200];
    for (int i = 0; i < n; i++) {
        int len = snprintf(line, sizeof line, "rank %d line %d %s\n", rank, i,
                           "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopq");
        int a = len / 3, b = 2 * len / 3;
        if (write(1, line, (size_t)a) < 0 || write(1, line + a, (size_t)(b - a)) < 0 ||
            write(1, line + b, (size_t)(len - b)) < 0)
            exit(98);
    }
}

static void read_stdin(void)
{
    char buf[4096];
    size_t total = 0;
    ssize_t n;
    char first[64] = "";
    while ((n = read(0, buf, sizeof buf)) > 0) {
        if (total == 0)
            snprintf(first, sizeof first, "%.*s", (int)strcspn(buf, "\n") < 60 ?
                     (int)strcspn(buf, "\n") : 60, buf);
        total += (size_t)n;
    }
    printf("rank %d read %zu bytes: %s\n", rank, total, first);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hello";
    int a = argc > 2 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(mode, "hello")) {
        printf("hello from rank %d of %d\n", rank, size);
    } else if (!strcmp(mode, "exit")) {
        MPI_Finalize();
        return rank == a ? b : 0;
    } else if (!strcmp(mode, "segv")) {
        if (rank == a)
            raise(SIGSEGV);
        wait_to_be_killed();
    } else if (!strcmp(mode, "nofinalize")) {
        if (rank == a)
            return 0;
        wait_to_be_killed();
    } else if (!strcmp(mode, "abort")) {
        if (rank == a) {
            /* Still in stdio's buffer (stdout is a pipe): MPI_Abort must
             * flush it. */
            printf("rank %d aborts\n", rank);
            MPI_Abort(MPI_COMM_WORLD, b);
        }
        wait_to_be_killed();
    } else if (!strcmp(mode, "fatal")) {
        if (rank == a) {
            printf("rank %d errs\n", rank);
            MPI_Send(&rank, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
        wait_to_be_killed();
    } else if (!strcmp(mode, "sleep")) {
        sleep((unsigned)a);
    } else if (!strcmp(mode, "stdin")) {
        read_stdin();
    } else if (!strcmp(mode, "lines")) {
        lines(a);
    }
    MPI_Finalize();
    return 0;
}
