/*
 * Single-copy transfers between local ranks with Cross Memory Attach
 * (process_vm_readv): the receiver reads the sender's buffer directly, one
 * copy instead of two through shared cells.
 *
 * The kernel allows it only where the reader may ptrace the target: same
 * user, and not forbidden by Yama (kernel.yama.ptrace_scope >= 1 blocks
 * reading a sibling), by a seccomp filter (the default Docker profile
 * refuses process_vm_readv) or by a missing CAP_SYS_PTRACE in some
 * containers. So it is never assumed: at init each rank reads a known probe
 * word from every local peer, and the p2p core uses single copy with a peer
 * only when the probe worked in both directions.
 */
#ifndef TERN_SHM_CMA_H
#define TERN_SHM_CMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a rank publishes so that its peers can probe it. */
struct tern_shm_cma_id {
    int64_t pid;
    uint64_t probe_addr;
};

/* This process's pid and the address of its probe word. */
void tern_shm_cma_self(struct tern_shm_cma_id *id);

/* Reads the peer's probe word. Returns 1 when CMA works with that peer;
 * otherwise 0, with the errno of the failure in *err (0: wrong value). */
int tern_shm_cma_probe(const struct tern_shm_cma_id *peer, int *err);

/* Reads len bytes at address remote in process pid into local, looping over
 * partial reads. Returns 0, TERN_EPEER when the process is gone, or TERN_EIO;
 * a failure is also reported on stderr. */
int tern_shm_cma_read(pid_t pid, void *local, uint64_t remote, size_t len);

#endif
