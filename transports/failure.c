/*
 * The end of a job after a network transport lost a peer (failure.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "tern/boot.h"
#include "tern/log.h"
#include "transports/failure.h"

static long long clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void tern_tp_failure_set(struct tern_tp_failure *f, const char *fmt, ...)
{
    if (f->at_ms)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
    TERN_LOG(1, "%s", f->msg);
    f->at_ms = clock_ms();
}

void tern_tp_failure_check(struct tern_tp_failure *f)
{
    if (!f->at_ms || clock_ms() - f->at_ms <= f->grace_ms)
        return;
    tern_boot_abort(1, f->msg);
    /* Returns only when the launcher cannot be reached either. */
    tern_log("%s; the launcher cannot be reached, so this rank exits", f->msg);
    _exit(1);
}
