/*
 * Handles and the objects behind them.
 *
 * Predefined handles are the standard ABI's small integers (< 0x1000); the
 * library maps them to static objects through per-kind tables. Handles that
 * users create are pointers to heap objects whose first field is a magic
 * number naming the kind (TERN_MAGIC_DEAD once the user freed the handle).
 *
 * Before it reads that field, a lookup asks the set of known objects
 * (object.c) whether the pointer is one of the library's: every user
 * object is added when it is made and removed when its memory goes back
 * to the allocator. So a handle that is garbage (an uninitialised
 * MPI_Request, a handle stored in an int and read back, a pointer to
 * something else) or whose memory was freed is rejected with the right
 * error class, never dereferenced. A lookup costs one probe of an
 * open-addressing table, which stays in cache. Requests are the one
 * exception to "freed": their memory stays on a free list and so stays
 * known, and a stale request handle is caught only until a new request
 * reuses the memory.
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
    TERN_MAGIC_INFO = 0x496e666f,     /* "Info" */
    TERN_MAGIC_MEM = 0x4d656d6f,      /* "Memo": MPI_Alloc_mem's blocks */
    TERN_MAGIC_DEAD = 0x44656164      /* "Dead": freed, caught on reuse */
};

static inline int tern_handle_is_predefined(const void *h)
{
    return (uintptr_t)h < TERN_PREDEFINED_MAX;
}

/* Adds a new user object to the known ones (0, or TERN_ENOMEM: the caller
 * then fails the call that makes the object); removes one whose memory is
 * about to be freed. */
int tern_obj_add(const void *obj);
void tern_obj_remove(const void *obj);

/* Makes room for one more object (0 or TERN_ENOMEM), so that the next
 * tern_obj_add cannot fail: for callers that cannot undo what comes
 * between. */
int tern_obj_room(void);

/* Whether h points to a known object, whose first field may be read. */
int tern_obj_known(const void *h);

#endif
