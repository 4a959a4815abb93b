/*
 * Wire-up client: the library's side of the launcher's key-value store.
 *
 * Lifecycle: tern_boot_init() once in MPI_Init, then any number of
 * put / fence / get, then tern_boot_finalize() in MPI_Finalize. A process
 * started without mpirun (no TERN_KVS_ADDR in its environment) is a
 * singleton: rank 0 of 1, and put/fence/get work on a local table.
 *
 * Protocol: one TCP connection from each rank to mpirun's store, opened with
 * the HMAC-SHA256 challenge-response of common/auth.h over the job secret.
 * Puts are buffered until the next fence. A fence returns once every rank of
 * the job has reached it; after that every key put before it by any rank is
 * visible to get. Values are opaque bytes up to TERN_BOOT_VALUE_MAX.
 *
 * Liveness: tern_boot_init() starts a watchdog thread that blocks on the
 * store connection; if mpirun goes away (EOF or error) the rank kills itself,
 * so no rank outlives its job.
 *
 * Errors: 0 or a negative TERN_E* code; all calls are blocking and are called
 * from one thread at a time.
 */
#ifndef TERN_BOOT_H
#define TERN_BOOT_H

#include <stddef.h>

#define TERN_BOOT_KEY_MAX 64
#define TERN_BOOT_VALUE_MAX 4096
#define TERN_HOSTNAME_MAX 256

struct tern_boot_info {
    int rank;          /* World rank (TERN_RANK). */
    int size;          /* World size (TERN_SIZE). */
    int local_rank;    /* Index among the ranks on this host (TERN_LOCAL_RANK). */
    int local_size;    /* Ranks on this host (TERN_LOCAL_SIZE). */
    int *local_ranks;  /* World ranks on this host, in local-rank order
                          (TERN_LOCAL_RANKS, "0,1,2"); owned by boot. */
    int node_rank;     /* Index of this host in the job (TERN_NODE_RANK). */
    int *node_of;      /* node_of[r]: the host index of world rank r
                          (TERN_NODE_MAP, "0*2,1*2"); owned by boot. */
    int singleton;     /* 1 when started without mpirun. */
    int oversubscribed; /* 1 when this host has more ranks than online CPUs. */
    char jobid[64];    /* Unique job id (TERN_JOBID), safe in file names. */
    char hostname[TERN_HOSTNAME_MAX];
    char store_addr[128]; /* The launcher's store, "host:port" (TERN_KVS_ADDR);
                             empty for a singleton. */
};

/* Reads the environment, connects and authenticates to the store. */
int tern_boot_init(struct tern_boot_info *info);

/* Publishes key=value for this rank; visible to others after the next fence. */
int tern_boot_put(const char *key, const void *value, size_t len);

/* Collective over all ranks of the job: returns when all have called it. */
int tern_boot_fence(void);

/* The same, calling work() while it waits (about every millisecond when
 * work() returns 0): MPI_Finalize keeps the transports moving, since a
 * fabric provider may transmit what a rank sent last only when called. */
int tern_boot_fence_while(int (*work)(void));

/* Reads the value that `rank` put under `key`. On entry *len is the buffer
 * size, on return the value's length. TERN_ENOTFOUND if the key is absent. */
int tern_boot_get(int rank, const char *key, void *value, size_t *len);

/* Asks the launcher to end the whole job with `code`, printing `msg` (one
 * line) if not NULL. Returns only if the launcher cannot be reached. */
int tern_boot_abort(int code, const char *msg);

/* The job secret (32 bytes) for authenticating rank-to-rank connections;
 * the environment's copy is removed at init. NULL for a singleton. */
const unsigned char *tern_boot_secret(void);

/* Tells the launcher this rank called MPI_Finalize, closes the connection
 * and stops the watchdog. */
int tern_boot_finalize(void);

#endif
