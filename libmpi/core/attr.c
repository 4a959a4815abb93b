/*
 * Keyvals and attribute lists (see attr.h).
 *
 * The keyval table is an array grown by doubling; entry i is keyval
 * TERN_KEYVAL_FIRST + i. An entry whose references all went is marked dead
 * and stays, so its number is never handed out again.
 */
#include <stdint.h>
#include <stdlib.h>

#include "libmpi/core/attr.h"
#include "tern/err.h"

struct keyval {
    int kind;          /* 0 once the entry is dead. */
    int refs;          /* The user's handle plus one per stored attribute. */
    int user_freed;    /* MPI_*_free_keyval was called. */
    union tern_attr_copy_fn copy;
    union tern_attr_delete_fn del;
    void *extra;
};

static struct keyval *table;
static int used, cap;
static int failed_keyval, failed_code;

/* The two predefined callback values. */
#define FN_NULL ((uintptr_t)0)
#define FN_DUP ((uintptr_t)1)

static struct keyval *entry(int keyval)
{
    if (keyval < TERN_KEYVAL_FIRST || keyval - TERN_KEYVAL_FIRST >= used)
        return NULL;
    struct keyval *k = &table[keyval - TERN_KEYVAL_FIRST];
    return k->kind ? k : NULL;
}

static void unref(struct keyval *k)
{
    if (--k->refs == 0)
        k->kind = 0;
}

int tern_keyval_create(int kind, union tern_attr_copy_fn copy,
                       union tern_attr_delete_fn del, void *extra_state,
                       int *keyval)
{
    if (used == cap) {
        if (used >= INT32_MAX - TERN_KEYVAL_FIRST - 1)
            return TERN_ENOMEM;
        int ncap = cap ? 2 * cap : 16;
        struct keyval *t = realloc(table, sizeof(*t) * (size_t)ncap);
        if (!t)
            return TERN_ENOMEM;
        table = t;
        cap = ncap;
    }
    table[used] = (struct keyval){ .kind = kind, .refs = 1, .copy = copy,
                                   .del = del, .extra = extra_state };
    *keyval = TERN_KEYVAL_FIRST + used++;
    return 0;
}

int tern_keyval_check(int keyval, int kind, int freed_ok)
{
    struct keyval *k = entry(keyval);
    return k && k->kind == kind && (freed_ok || !k->user_freed) ? 0 : TERN_EKEYVAL;
}

int tern_keyval_free(int *keyval, int kind)
{
    int rc = tern_keyval_check(*keyval, kind, 0);
    if (rc)
        return rc;
    struct keyval *k = entry(*keyval);
    k->user_freed = 1;
    unref(k);
    *keyval = MPI_KEYVAL_INVALID;
    return 0;
}

void tern_attr_finalize(void)
{
    free(table);
    table = NULL;
    used = cap = 0;
}

void tern_attr_cb_error(int *keyval, int *code)
{
    *keyval = failed_keyval;
    *code = failed_code;
    failed_keyval = failed_code = 0;
}

/* Runs the delete callback of an attribute; 0 or TERN_EOTHER. */
static int call_delete(int kind, void *obj, struct keyval *k, int keyval, void *value)
{
    int rc = MPI_SUCCESS;
    if ((uintptr_t)k->del.comm == FN_NULL)
        return 0;
    switch (kind) {
    case TERN_ATTR_COMM: rc = k->del.comm((MPI_Comm)obj, keyval, value, k->extra); break;
    case TERN_ATTR_TYPE: rc = k->del.type((MPI_Datatype)obj, keyval, value, k->extra); break;
    case TERN_ATTR_WIN: rc = k->del.win((MPI_Win)obj, keyval, value, k->extra); break;
    default: break;
    }
    if (rc == MPI_SUCCESS)
        return 0;
    failed_keyval = keyval;
    failed_code = rc;
    return TERN_EOTHER;
}

/* Runs the copy callback; *flag says whether the attribute is copied. */
static int call_copy(int kind, void *obj, struct keyval *k, int keyval, void *in,
                     void **out, int *flag)
{
    int rc = MPI_SUCCESS;
    *flag = 0;
    if ((uintptr_t)k->copy.comm == FN_NULL)
        return 0;
    if ((uintptr_t)k->copy.comm == FN_DUP) {
        *out = in;
        *flag = 1;
        return 0;
    }
    switch (kind) {
    case TERN_ATTR_COMM: rc = k->copy.comm((MPI_Comm)obj, keyval, k->extra, in, out, flag); break;
    case TERN_ATTR_TYPE: rc = k->copy.type((MPI_Datatype)obj, keyval, k->extra, in, out, flag); break;
    case TERN_ATTR_WIN: rc = k->copy.win((MPI_Win)obj, keyval, k->extra, in, out, flag); break;
    default: break;
    }
    if (rc == MPI_SUCCESS)
        return 0;
    *flag = 0;
    failed_keyval = keyval;
    failed_code = rc;
    return TERN_EOTHER;
}

static struct tern_attr *find(const struct tern_attr_list *l, int keyval)
{
    for (struct tern_attr *a = l->head; a; a = a->next)
        if (a->keyval == keyval)
            return a;
    return NULL;
}

static void unlink_attr(struct tern_attr_list *l, struct tern_attr *a)
{
    if (a->prev)
        a->prev->next = a->next;
    else
        l->head = a->next;
    if (a->next)
        a->next->prev = a->prev;
    else
        l->tail = a->prev;
    a->prev = a->next = NULL;
}

static void append(struct tern_attr_list *l, struct tern_attr *a)
{
    a->next = NULL;
    a->prev = l->tail;
    if (l->tail)
        l->tail->next = a;
    else
        l->head = a;
    l->tail = a;
}

#define KV(keyval) (&table[(keyval) - TERN_KEYVAL_FIRST])

/* Removes attribute a through its delete callback; on a callback error it
 * is put back (as the newest) and the error returned. The table is looked
 * up again after the callback, which may have created keyvals and so moved
 * it. */
static int remove_attr(struct tern_attr_list *l, int kind, void *obj, struct tern_attr *a)
{
    /* Unlinked first, so a callback that looks at the list does not see it. */
    unlink_attr(l, a);
    int rc = call_delete(kind, obj, KV(a->keyval), a->keyval, a->value);
    if (rc) {
        append(l, a);
        return rc;
    }
    unref(KV(a->keyval));
    free(a);
    return 0;
}

int tern_attr_set(struct tern_attr_list *l, int kind, void *obj, int keyval,
                  void *value)
{
    struct tern_attr *old = find(l, keyval);
    if (old) {
        int rc = remove_attr(l, kind, obj, old);
        if (rc)
            return rc;
    }
    struct tern_attr *a = malloc(sizeof(*a));
    if (!a)
        return TERN_ENOMEM;
    a->keyval = keyval;
    a->value = value;
    append(l, a);
    KV(keyval)->refs++;
    return 0;
}

void tern_attr_get(const struct tern_attr_list *l, int keyval, void **value,
                   int *flag)
{
    struct tern_attr *a = find(l, keyval);
    *flag = a != NULL;
    if (a)
        *value = a->value;
}

int tern_attr_delete(struct tern_attr_list *l, int kind, void *obj, int keyval)
{
    struct tern_attr *a = find(l, keyval);
    return a ? remove_attr(l, kind, obj, a) : 0;
}

int tern_attr_delete_all(struct tern_attr_list *l, int kind, void *obj)
{
    while (l->tail) {
        int rc = remove_attr(l, kind, obj, l->tail);
        if (rc)
            return rc;
    }
    return 0;
}

int tern_attr_copy(const struct tern_attr_list *src, int kind, void *old_obj,
                   struct tern_attr_list *dst, void *new_obj)
{
    int rc = 0;
    for (struct tern_attr *a = src->head; a && !rc; a = a->next) {
        void *out = NULL;
        int flag;
        rc = call_copy(kind, old_obj, KV(a->keyval), a->keyval, a->value, &out, &flag);
        if (rc || !flag)
            continue;
        struct tern_attr *c = malloc(sizeof(*c));
        if (!c) {
            rc = TERN_ENOMEM;
            break;
        }
        c->keyval = a->keyval;
        c->value = out;
        append(dst, c);
        KV(a->keyval)->refs++;
    }
    if (rc) {
        /* The copies made so far go again, through their delete callbacks;
         * a second failure is not reported over the first. */
        int kv = failed_keyval, code = failed_code;
        while (dst->tail)
            if (remove_attr(dst, kind, new_obj, dst->tail)) {
                struct tern_attr *t = dst->tail;
                unlink_attr(dst, t);
                unref(KV(t->keyval));
                free(t);
            }
        failed_keyval = kv;
        failed_code = code;
    }
    return rc;
}

void tern_attr_drop_all(struct tern_attr_list *l)
{
    while (l->head) {
        struct tern_attr *a = l->head;
        unlink_attr(l, a);
        if (a->keyval - TERN_KEYVAL_FIRST < used)
            unref(KV(a->keyval));
        free(a);
    }
}
