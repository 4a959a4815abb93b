/*
 * Info objects: ordered sets of (key, value) strings that carry hints
 * (MPI 4.1, chapter "The Info Object").
 *
 * Objects and lifecycle. A user info is a heap object whose address is its
 * handle, added to the known objects (object.h) when it is made, so that a
 * garbage or freed handle is refused, never read. Nothing in Tern keeps an
 * info beyond the call that was given it (hints are ignored, as the
 * standard allows), so there are no references: tern_info_free() frees the
 * object at once. The one predefined info, MPI_INFO_ENV, is a static object
 * filled on first use with the environment the process started in; it
 * cannot be changed or freed. Info objects exist independently of MPI_Init
 * and MPI_Finalize: the standard lets programs use them at any time.
 *
 * Keys and values. The object keeps its own copies of both strings. Keys
 * keep the order in which they were first set (MPI_Info_get_nthkey numbers
 * them that way); setting a key again replaces its value in place, and
 * deleting one moves the later ones down. Strings are taken as they are:
 * the standard strips leading and trailing blanks only in Fortran. The
 * lengths allowed (TERN_INFO_KEY_MAX, TERN_INFO_VAL_MAX) are checked by
 * libmpi/api/, not here.
 *
 * Errors: functions return 0 or a negative TERN_E* code (TERN_ENOMEM,
 * TERN_EINFO_NOKEY), or NULL where they return an object. Nothing here
 * reports to the user; libmpi/api/ does.
 */
#ifndef TERN_CORE_INFO_H
#define TERN_CORE_INFO_H

#include <stdint.h>

#include <mpi.h>

/* The longest key, in characters: one less than MPI_MAX_INFO_KEY, so that a
 * key and its terminating null fit in the MPI_MAX_INFO_KEY characters that
 * MPI_Info_get_nthkey may write (and at most 255, as the standard asks). */
#define TERN_INFO_KEY_MAX (MPI_MAX_INFO_KEY - 1)
/* The longest value, in characters, as the standard states it. */
#define TERN_INFO_VAL_MAX MPI_MAX_INFO_VAL

struct tern_info_entry {
    char *key;
    char *value;
};

struct tern_info {
    uint32_t magic;                 /* TERN_MAGIC_INFO (TERN_MAGIC_DEAD once freed). */
    MPI_Info handle;                /* The handle users see. */
    int predefined;                 /* MPI_INFO_ENV: never changed nor freed. */
    int n;                          /* Entries in use, in insertion order. */
    int cap;                        /* Entries allocated. */
    struct tern_info_entry *entries;
};

/* The info behind a handle, or NULL when the handle is not a valid info
 * (MPI_INFO_NULL, garbage, or freed). */
struct tern_info *tern_info_get(MPI_Info h);

/* A new, empty info; NULL when out of memory. */
struct tern_info *tern_info_create(void);

/* A new info holding src's pairs in src's order; NULL when out of memory. */
struct tern_info *tern_info_dup(const struct tern_info *src);

/* Frees a user info and invalidates its handle. */
void tern_info_free(struct tern_info *info);

/* The value of key, or NULL when info does not hold key. */
const char *tern_info_value(const struct tern_info *info, const char *key);

/* Adds (key, value), or replaces key's value. 0 or TERN_ENOMEM (info is then
 * unchanged). */
int tern_info_set(struct tern_info *info, const char *key, const char *value);

/* Removes key: 0, or TERN_EINFO_NOKEY when info does not hold it. */
int tern_info_delete(struct tern_info *info, const char *key);

/* Adds the keys of MPI_INFO_ENV that Tern knows: "command" and "argv" from
 * argc and argv (from /proc/self/cmdline when argv is NULL), "host",
 * "arch" and "wdir" (the working directory now). Values longer than
 * TERN_INFO_VAL_MAX are cut. 0 or TERN_ENOMEM. */
int tern_info_set_env(struct tern_info *info, int argc, char *argv[]);

#endif
