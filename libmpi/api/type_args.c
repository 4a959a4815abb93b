/*
 * Argument helpers of the datatype constructors (see type_args.h).
 */
#include <stdlib.h>

#include "libmpi/api/api.h"
#include "libmpi/api/type_args.h"
#include "tern/err.h"

int tern_api_type_old(MPI_Datatype h, const struct tern_dtype **out)
{
    *out = tern_dtype_lookup(h);
    if (*out)
        return 0;
    if (h == MPI_DATATYPE_NULL)
        tern_api_detail("invalid datatype MPI_DATATYPE_NULL");
    else
        tern_api_detail("invalid datatype %p (not a datatype, or freed)", (void *)h);
    return TERN_ETYPE;
}

int tern_api_type_nonneg(const char *what, MPI_Count v, long long index)
{
    if (v >= 0)
        return 0;
    if (index < 0)
        tern_api_detail("invalid %s %lld: must be >= 0", what, (long long)v);
    else
        tern_api_detail("invalid %s %lld at index %lld: must be >= 0", what,
                        (long long)v, index);
    return TERN_ECOUNT;
}

int tern_api_type_array(const void *a, MPI_Count n, const char *name)
{
    return n > 0 ? tern_check_ptr(a, name) : 0;
}

int tern_api_type_bytes(MPI_Count v, MPI_Aint ext, const char *what, MPI_Aint *out)
{
    long long r;
    if (!__builtin_mul_overflow((long long)v, (long long)ext, &r)) {
        *out = (MPI_Aint)r;
        return 0;
    }
    tern_api_detail("%s %lld times the old type's extent %lld does not fit in MPI_Aint",
                    what, (long long)v, (long long)ext);
    return TERN_ECOUNT;
}

int tern_api_rec_init(struct tern_api_rec *r, size_t cap)
{
    r->n = 0;
    r->v = malloc((cap ? cap : 1) * sizeof(*r->v));
    r->k = malloc(cap ? cap : 1);
    return r->v && r->k ? 0 : TERN_ENOMEM;
}

void tern_api_rec_put(struct tern_api_rec *r, char kind, MPI_Count v)
{
    r->v[r->n] = v;
    r->k[r->n++] = kind;
}

void tern_api_rec_free(struct tern_api_rec *r)
{
    free(r->v);
    free(r->k);
}

/* Splits the record into the type's ints, addresses and large counts. */
static int rec_store(const struct tern_api_rec *r, struct tern_dtype *dt)
{
    size_t cap = r->n ? r->n : 1, ni = 0, na = 0, nl = 0;
    int *ints = malloc(cap * sizeof(*ints));
    MPI_Aint *addrs = malloc(cap * sizeof(*addrs));
    MPI_Count *larges = malloc(cap * sizeof(*larges));
    int rc = ints && addrs && larges ? 0 : TERN_ENOMEM;
    for (size_t i = 0; !rc && i < r->n; i++) {
        if (r->k[i] == 'i' || (!dt->large && r->k[i] == 'n'))
            ints[ni++] = (int)r->v[i];
        else if (!dt->large)
            addrs[na++] = (MPI_Aint)r->v[i];
        else
            larges[nl++] = r->v[i];
    }
    if (!rc)
        rc = tern_dtype_set_args(dt, ni, ints, na, addrs, nl, larges);
    free(ints);
    free(addrs);
    free(larges);
    return rc;
}

int tern_api_type_made(int rc, const char *why, struct tern_dtype *dt, int combiner,
                       int large, const struct tern_api_rec *args, MPI_Datatype *newtype)
{
    if (rc == TERN_ECOUNT)
        tern_api_detail("the new datatype is too large: %s", why);
    if (rc)
        return rc;
    dt->combiner = combiner;
    dt->large = (uint8_t)large;
    if (args && rec_store(args, dt)) {
        tern_dtype_release(dt);
        return TERN_ENOMEM;
    }
    *newtype = dt->handle;
    return 0;
}

MPI_Count *tern_api_widen_int(const int *a, int n, int *bad)
{
    if (!a || n <= 0)
        return NULL;
    MPI_Count *w = malloc((size_t)n * sizeof(*w));
    if (!w) {
        *bad = 1;
        return NULL;
    }
    for (int i = 0; i < n; i++)
        w[i] = a[i];
    return w;
}

MPI_Count *tern_api_widen_aint(const MPI_Aint *a, int n, int *bad)
{
    if (!a || n <= 0)
        return NULL;
    MPI_Count *w = malloc((size_t)n * sizeof(*w));
    if (!w) {
        *bad = 1;
        return NULL;
    }
    for (int i = 0; i < n; i++)
        w[i] = a[i];
    return w;
}
