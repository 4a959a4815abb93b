/*
 * The set of known user objects (object.h): an open-addressing hash table
 * of pointers with linear probing. Empty slots hold 0 and removed entries
 * a tombstone, so probe chains stay intact; when live entries and
 * tombstones fill half of it, the table is rebuilt without tombstones,
 * twice as large if the live entries alone fill a quarter. Callers hold the library's lock (thread levels up to
 * SERIALIZED), like every object operation.
 */
#include <stdlib.h>

#include "libmpi/core/object.h"
#include "tern/err.h"

#define EMPTY ((uintptr_t)0)
#define TOMBSTONE ((uintptr_t)1)

static uintptr_t *slots;
static size_t cap;          /* A power of two, or 0 before the first add. */
static size_t filled;       /* Live entries and tombstones. */

/* Objects are at least 16-byte aligned, so the low bits carry nothing. */
static size_t home(uintptr_t key)
{
    return (size_t)(((key >> 4) * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The slot holding key, or the empty slot where a probe for it ends. */
static size_t probe(uintptr_t key)
{
    size_t i = home(key);
    while (slots[i] != key && slots[i] != EMPTY)
        i = (i + 1) & (cap - 1);
    return i;
}

/* Rebuilds the table without tombstones, twice as large unless removals
 * made most of the filled slots tombstones. */
static int rebuild(void)
{
    size_t live = 0;
    for (size_t i = 0; i < cap; i++)
        live += slots[i] > TOMBSTONE;
    size_t ncap = !cap ? 256 : 4 * (live + 1) > cap ? 2 * cap : cap;
    uintptr_t *old = slots, *n = calloc(ncap, sizeof(*n));
    size_t ocap = cap;
    if (!n)
        return TERN_ENOMEM;
    slots = n;
    cap = ncap;
    filled = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i] > TOMBSTONE) {
            slots[probe(old[i])] = old[i];
            filled++;
        }
    free(old);
    return 0;
}

int tern_obj_room(void)
{
    return 2 * (filled + 1) > cap ? rebuild() : 0;
}

int tern_obj_add(const void *obj)
{
    uintptr_t key = (uintptr_t)obj;
    if (tern_obj_room())
        return TERN_ENOMEM;
    size_t i = probe(key);
    if (slots[i] == EMPTY) {
        slots[i] = key;
        filled++;
    }
    return 0;
}

void tern_obj_remove(const void *obj)
{
    if (!cap)
        return;
    size_t i = probe((uintptr_t)obj);
    if (slots[i] != EMPTY)
        slots[i] = TOMBSTONE;
}

int tern_obj_known(const void *h)
{
    uintptr_t key = (uintptr_t)h;
    return cap && key > TOMBSTONE && slots[probe(key)] == key;
}
