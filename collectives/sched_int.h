/*
 * What the schedule engine's files share and builders do not use: the
 * cache of scratch buffers (sched_scratch.c) and the growth of a
 * schedule's arrays (sched.c).
 */
#ifndef TERN_COLLECTIVES_SCHED_INT_H
#define TERN_COLLECTIVES_SCHED_INT_H

#include <stddef.h>

/* A buffer of at least `bytes`, 16-byte aligned, from the cache or malloc;
 * NULL when memory runs out. */
void *tern_scratch_get(size_t bytes);

/* Gives a buffer from tern_scratch_get back: the cache keeps it, or it is
 * freed. */
void tern_scratch_put(void *p);

/* Doubles the capacity of *arr (elements of `elem` bytes), which may still
 * be the inline array `inline_arr`: 0, or TERN_ENOMEM with *arr unchanged. */
int tern_sched_grow(void **arr, int *cap, size_t elem, const void *inline_arr);

#endif
