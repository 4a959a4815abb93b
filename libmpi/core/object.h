/*
 * Handles and the objects behind them.
 *
 * Predefined handles are the standard ABI's small integers (< 0x1000); the
 * library maps them to static objects through per-kind tables. Handles that
 * users create are pointers to heap objects whose first field is a magic
 * number naming the kind, so a stale or foreign pointer is rejected with the
 * right error class instead of being dereferenced blindly.
 */
#ifndef TERN_CORE_OBJECT_H
#define TERN_CORE_OBJECT_H

#include <stdint.h>

#define TERN_PREDEFINED_MAX 0x1000

enum tern_magic {
    TERN_MAGIC_COMM = 0x436f6d6d,     /* "Comm" */
    TERN_MAGIC_REQUEST = 0x52657175,  /* "Requ" */
    TERN_MAGIC_ERRH = 0x45727268,     /* "Errh" */
    TERN_MAGIC_DTYPE = 0x44747970,    /* "Dtyp" */
    TERN_MAGIC_MESSAGE = 0x4d657367,  /* "Mesg" */
    TERN_MAGIC_GROUP = 0x47727570,    /* "Grup" */
    TERN_MAGIC_OP = 0x4f706572,       /* "Oper" */
    TERN_MAGIC_DEAD = 0x44656164      /* "Dead": freed, caught on reuse */
};

static inline int tern_handle_is_predefined(const void *h)
{
    return (uintptr_t)h < TERN_PREDEFINED_MAX;
}

#endif
