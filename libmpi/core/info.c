/*
 * Info objects (see info.h): an array of (key, value) pairs in insertion
 * order, searched linearly (programs set a handful of hints), and the
 * predefined MPI_INFO_ENV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "libmpi/core/info.h"
#include "libmpi/core/object.h"
#include "tern/err.h"

/* MPI_INFO_ENV, filled on first use. */
static struct tern_info env = {
    .magic = TERN_MAGIC_INFO, .handle = MPI_INFO_ENV, .predefined = 1
};
static int env_filled;

struct tern_info *tern_info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        /* Out of memory here leaves keys out; the object stays valid. */
        if (!env_filled)
            (void)tern_info_set_env(&env, 0, NULL);
        env_filled = 1;
        return &env;
    }
    if (tern_handle_is_predefined(h) || !tern_obj_known(h))
        return NULL;
    struct tern_info *info = (struct tern_info *)h;
    return info->magic == TERN_MAGIC_INFO ? info : NULL;
}

struct tern_info *tern_info_create(void)
{
    struct tern_info *info = calloc(1, sizeof(*info));
    if (!info || tern_obj_add(info)) {
        free(info);
        return NULL;
    }
    info->magic = TERN_MAGIC_INFO;
    info->handle = (MPI_Info)info;
    return info;
}

struct tern_info *tern_info_dup(const struct tern_info *src)
{
    struct tern_info *info = tern_info_create();
    for (int k = 0; info && k < src->n; k++)
        if (tern_info_set(info, src->entries[k].key, src->entries[k].value)) {
            tern_info_free(info);
            info = NULL;
        }
    return info;
}

void tern_info_free(struct tern_info *info)
{
    for (int k = 0; k < info->n; k++) {
        free(info->entries[k].key);
        free(info->entries[k].value);
    }
    free(info->entries);
    info->magic = TERN_MAGIC_DEAD;
    tern_obj_remove(info);
    free(info);
}

/* The index of key in info, or -1. */
static int find(const struct tern_info *info, const char *key)
{
    for (int k = 0; k < info->n; k++)
        if (strcmp(info->entries[k].key, key) == 0)
            return k;
    return -1;
}

const char *tern_info_value(const struct tern_info *info, const char *key)
{
    int k = find(info, key);
    return k < 0 ? NULL : info->entries[k].value;
}

int tern_info_set(struct tern_info *info, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return TERN_ENOMEM;
    int k = find(info, key);
    if (k >= 0) {
        free(info->entries[k].value);
        info->entries[k].value = v;
        return 0;
    }
    if (info->n == info->cap) {
        int ncap = info->cap ? 2 * info->cap : 8;
        struct tern_info_entry *e = realloc(info->entries, sizeof(*e) * (size_t)ncap);
        if (!e) {
            free(v);
            return TERN_ENOMEM;
        }
        info->entries = e;
        info->cap = ncap;
    }
    char *kc = strdup(key);
    if (!kc) {
        free(v);
        return TERN_ENOMEM;
    }
    info->entries[info->n++] = (struct tern_info_entry){ kc, v };
    return 0;
}

int tern_info_delete(struct tern_info *info, const char *key)
{
    int k = find(info, key);
    if (k < 0)
        return TERN_EINFO_NOKEY;
    free(info->entries[k].key);
    free(info->entries[k].value);
    info->n--;
    memmove(&info->entries[k], &info->entries[k + 1],
            sizeof(info->entries[0]) * (size_t)(info->n - k));
    return 0;
}

/* The command line, its words each followed by a null, in buf (at most cap
 * bytes): from argv, or from /proc/self/cmdline when argv is NULL. Returns
 * the bytes written; a word that does not fit is cut or left out. */
static size_t command_line(int argc, char *argv[], char *buf, size_t cap)
{
    size_t len = 0;
    if (!argv) {
        FILE *f = fopen("/proc/self/cmdline", "r");
        if (f) {
            len = fread(buf, 1, cap, f);
            fclose(f);
        }
        return len;
    }
    for (int k = 0; k < argc && argv[k]; k++) {
        size_t n = strlen(argv[k]) + 1;
        if (len + n > cap)
            break;
        memcpy(buf + len, argv[k], n);
        len += n;
    }
    return len;
}

int tern_info_set_env(struct tern_info *info, int argc, char *argv[])
{
    /* One value's worth: every word, and the arguments joined, fit. */
    char line[TERN_INFO_VAL_MAX + 1];
    size_t len = command_line(argc, argv, line, TERN_INFO_VAL_MAX);
    line[len] = '\0';
    int rc = 0;
    if (len && line[0])
        rc = tern_info_set(info, "command", line);
    size_t first = strlen(line) + 1;
    for (size_t k = first; k + 1 < len; k++)
        if (line[k] == '\0')
            line[k] = ' ';
    if (!rc && first < len && line[first])
        rc = tern_info_set(info, "argv", line + first);
    struct utsname u;
    int named = uname(&u) == 0;
    if (!rc && named)
        rc = tern_info_set(info, "host", u.nodename);
    if (!rc && named)
        rc = tern_info_set(info, "arch", u.machine);
    if (!rc && getcwd(line, sizeof(line)))
        rc = tern_info_set(info, "wdir", line);
    return rc;
}
