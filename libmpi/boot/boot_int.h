/*
 * Private to libmpi/boot: the client's state shared by boot.c (requests)
 * and watchdog.c (the liveness thread). One process has one connection to
 * mpirun's store; it is used by one thread at a time, and the watchdog only
 * polls it for hang-up, never reads from it.
 */
#ifndef TERN_BOOT_INT_H
#define TERN_BOOT_INT_H

/* Starts the thread that kills this rank (and its process group, when the
 * launcher made one for it: pgid > 0) if the store connection goes away. */
int tern_boot_watchdog_start(int fd, int pgid);
/* Stops and joins the thread; idempotent. */
void tern_boot_watchdog_stop(void);

#endif
