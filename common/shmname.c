/*
 * The naming convention of a job's shared-memory segments, shared by the
 * shm transport (which creates them) and mpirun (which removes leftovers).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tern/err.h"
#include "tern/shmname.h"

int tern_shmname_prefix(char *buf, size_t len, const char *jobid)
{
    int n = snprintf(buf, len, "tern-%u-%s-", (unsigned)geteuid(), jobid);
    return n > 0 && (size_t)n < len ? 0 : TERN_EINVAL;
}

int tern_shmname_remove_all(const char *jobid)
{
    char prefix[128], name[300];
    if (tern_shmname_prefix(prefix, sizeof prefix, jobid))
        return 0;
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    int removed = 0;
    size_t plen = strlen(prefix);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        snprintf(name, sizeof name, "/%s", e->d_name);
        removed += shm_unlink(name) == 0;
    }
    closedir(d);
    return removed;
}
