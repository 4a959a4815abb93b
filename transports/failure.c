/*
 * The end of a job after a network transport lost a peer (failure.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "tern/boot.h"
#include "tern/clock.h"
#include "tern/log.h"
#include "transports/failure.h"

void tern_tp_failure_set(struct tern_tp_failure *f, const char *fmt, ...)
{
    if (f->at_ms)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
    TERN_LOG(1, "%s", f->msg);
    f->at_ms = tern_clock_ms();
}

void tern_tp_failure_check(struct tern_tp_failure *f)
{
    if (!f->at_ms || tern_clock_ms() - f->at_ms <= f->grace_ms)
        return;
    tern_flush_stdio();
    tern_boot_abort(1, f->msg);
    /* Returns only when the launcher cannot be reached either. */
    tern_log("%s; the launcher cannot be reached, so this rank exits", f->msg);
    _exit(1);
}
