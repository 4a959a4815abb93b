/*
 * A network transport's lost peer: the first failure is recorded and, unless
 * the launcher ends the job first (mpirun names a crashed rank better), the
 * rank aborts the job with that line once a grace period has passed.
 */
#ifndef TERN_TRANSPORTS_FAILURE_H
#define TERN_TRANSPORTS_FAILURE_H

struct tern_tp_failure {
    long long at_ms;   /* When the first failure was recorded, or 0. */
    long grace_ms;     /* How long the launcher gets to end the job. */
    char msg[512];     /* The line the job ends with. */
};

/* Records a failure (the first one only) and logs it at verbose level 1. */
void tern_tp_failure_set(struct tern_tp_failure *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Aborts the job once the grace period after a failure has passed; called
 * from progress. Returns at once otherwise. */
void tern_tp_failure_check(struct tern_tp_failure *f);

#endif
