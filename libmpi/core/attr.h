/*
 * Attribute caching: keyvals and the attribute lists of objects.
 *
 * A keyval is an int the user gets from MPI_Comm_create_keyval (or the
 * datatype and window forms). It names an entry of one process-wide table
 * holding the kind of object it is for, its copy and delete callbacks and
 * the extra_state given to them. Keyvals count from TERN_KEYVAL_FIRST, above
 * the predefined keys of mpi.h, and are never reused, so a stale one is
 * caught. An entry counts one reference for the user's handle and one per
 * attribute stored under it: MPI_Comm_free_keyval drops the first and makes
 * the keyval invalid for the user, but the callbacks of attributes still
 * stored keep working until the last one goes, as the standard requires.
 *
 * Every object that caches attributes embeds a struct tern_attr_list: a
 * doubly linked list in the order the attributes were set (overwriting one
 * counts as setting it again). Copying (MPI_Comm_dup) goes in that order;
 * deleting them all (freeing the object, MPI_Finalize for MPI_COMM_SELF)
 * goes in reverse, as the standard recommends for MPI_COMM_SELF.
 *
 * The callbacks are the user's functions; they are called with the object's
 * handle and may call MPI themselves. The predefined MPI_*_NULL_COPY_FN (0),
 * MPI_*_DUP_FN (1) and MPI_*_NULL_DELETE_FN (0) are recognised by value.
 * A callback's error code other than MPI_SUCCESS stops the operation: the
 * call returns TERN_EOTHER and tern_attr_cb_error() tells which keyval
 * failed with which code, for the API layer's message.
 *
 * The predefined attributes (MPI_TAG_UB and friends) are not in these lists;
 * the API layer answers them.
 */
#ifndef TERN_CORE_ATTR_H
#define TERN_CORE_ATTR_H

#include <mpi.h>

#define TERN_KEYVAL_FIRST 0x1000

enum tern_attr_kind {
    TERN_ATTR_COMM = 1,
    TERN_ATTR_TYPE,
    TERN_ATTR_WIN
};

struct tern_attr {
    int keyval;
    void *value;
    struct tern_attr *prev, *next;
};

struct tern_attr_list {
    struct tern_attr *head, *tail;   /* Oldest first. */
};

/* Callbacks as given by the user; `kind` says which member is meant. */
union tern_attr_copy_fn {
    MPI_Comm_copy_attr_function *comm;
    MPI_Type_copy_attr_function *type;
    MPI_Win_copy_attr_function *win;
};
union tern_attr_delete_fn {
    MPI_Comm_delete_attr_function *comm;
    MPI_Type_delete_attr_function *type;
    MPI_Win_delete_attr_function *win;
};

/* Creates a keyval for objects of `kind`. */
int tern_keyval_create(int kind, union tern_attr_copy_fn copy,
                       union tern_attr_delete_fn del, void *extra_state,
                       int *keyval);
/* 0 if keyval is a live user keyval for objects of `kind`; TERN_EKEYVAL
 * otherwise (also for the predefined keys). With `freed_ok`, a keyval that
 * the user freed but that attributes still use counts as live: those
 * attributes can still be read and deleted, as the standard requires. */
int tern_keyval_check(int keyval, int kind, int freed_ok);
/* Drops the user's reference; *keyval becomes MPI_KEYVAL_INVALID. */
int tern_keyval_free(int *keyval, int kind);
/* Frees the table (MPI_Finalize), whatever is left in it. */
void tern_attr_finalize(void);

/* Stores value under keyval (checked), deleting an old value first through
 * the delete callback. `obj` is the handle of the object, for callbacks. */
int tern_attr_set(struct tern_attr_list *l, int kind, void *obj, int keyval,
                  void *value);
/* *flag = 1 and *value set if keyval is present. */
void tern_attr_get(const struct tern_attr_list *l, int keyval, void **value,
                   int *flag);
/* Deletes one attribute through its delete callback; absent is no error. */
int tern_attr_delete(struct tern_attr_list *l, int kind, void *obj, int keyval);
/* Deletes every attribute, newest first, through the delete callbacks;
 * stops at the first callback that fails (that attribute stays). */
int tern_attr_delete_all(struct tern_attr_list *l, int kind, void *obj);
/* Copies src's attributes to the empty list dst through the copy
 * callbacks (old_obj and new_obj are the two objects' handles). On an error
 * what was copied is deleted again and dst is left empty. */
int tern_attr_copy(const struct tern_attr_list *src, int kind, void *old_obj,
                   struct tern_attr_list *dst, void *new_obj);
/* Forgets every attribute without calling anything (MPI_Finalize). */
void tern_attr_drop_all(struct tern_attr_list *l);

/* The keyval and the code of the last callback that failed (0 and 0 if
 * none failed since the last call). */
void tern_attr_cb_error(int *keyval, int *code);

#endif
