/*
 * The monotonic clock, in nanoseconds and in milliseconds.
 */
#ifndef TERN_CLOCK_H
#define TERN_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t tern_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline long long tern_clock_ms(void)
{
    return (long long)(tern_clock_ns() / 1000000);
}

#endif
