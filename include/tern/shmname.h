/*
 * Names of a job's shared-memory segments. Every segment a job creates is
 * named "tern-<euid>-<jobid>-<anything>" in /dev/shm, so that mpirun can
 * remove what a job left behind when its ranks were killed before they
 * unlinked it themselves.
 */
#ifndef TERN_SHMNAME_H
#define TERN_SHMNAME_H

#include <stddef.h>

/* Writes "tern-<euid>-<jobid>-" (no leading slash); 0 or TERN_EINVAL. */
int tern_shmname_prefix(char *buf, size_t len, const char *jobid);

/* Unlinks every /dev/shm entry of this job; returns how many it removed. */
int tern_shmname_remove_all(const char *jobid);

#endif
