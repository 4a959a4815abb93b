/*
 * Decoding datatypes: MPI_Type_get_envelope and MPI_Type_get_contents,
 * with their large-count forms.
 *
 * Every derived type keeps its combiner and the arguments its constructor
 * was called with (type_args.c records them), split as the standard lists
 * them: integers and addresses for a type made by an int constructor,
 * integers and large counts for one made by a _c constructor. The int
 * forms refuse the latter (they have no place for large counts; use the
 * _c forms). The datatypes returned by MPI_Type_get_contents are the
 * predefined handles themselves, or for derived types new objects equal
 * to the ones the type was built from (the caller frees them), so they
 * stay valid even when the user freed the originals.
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "tern/err.h"

static int decodable(MPI_Datatype type, int large_form, const struct tern_dtype **dt)
{
    *dt = tern_dtype_lookup(type);
    if (!*dt) {
        if (type == MPI_DATATYPE_NULL)
            tern_api_detail("invalid datatype MPI_DATATYPE_NULL");
        else
            tern_api_detail("invalid datatype %p (not a datatype, or freed)", (void *)type);
        return TERN_ETYPE;
    }
    if (!large_form && (*dt)->nlarge) {
        tern_api_detail("the datatype was made by a large-count constructor: use the _c "
                        "form of this function");
        return TERN_ETYPE;
    }
    return 0;
}

static int envelope(const char *fn, MPI_Datatype type, int large_form, MPI_Count *ni,
                    MPI_Count *na, MPI_Count *nc, MPI_Count *nd, int *combiner)
{
    const struct tern_dtype *dt;
    int rc = decodable(type, large_form, &dt);
    if (!rc)
        rc = tern_check_ptr(combiner, "combiner");
    if (rc)
        return tern_api_error(NULL, fn, rc);
    *combiner = dt->combiner;
    *ni = (MPI_Count)dt->nints;
    *na = (MPI_Count)dt->naddrs;
    *nc = (MPI_Count)dt->nlarge;
    *nd = dt->predefined ? 0 : (MPI_Count)dt->nkid;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner)
{
    MPI_Count ni, na, nc, nd;
    int rc = tern_check_ptr(num_integers, "num_integers");
    if (!rc)
        rc = tern_check_ptr(num_addresses, "num_addresses");
    if (!rc)
        rc = tern_check_ptr(num_datatypes, "num_datatypes");
    if (rc)
        return tern_api_error(NULL, "MPI_Type_get_envelope", rc);
    rc = envelope("MPI_Type_get_envelope", datatype, 0, &ni, &na, &nc, &nd, combiner);
    if (!rc) {
        *num_integers = (int)ni;
        *num_addresses = (int)na;
        *num_datatypes = (int)nd;
    }
    return rc;
}

#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses, MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner)
{
    int rc = tern_check_ptr(num_integers, "num_integers");
    if (!rc)
        rc = tern_check_ptr(num_addresses, "num_addresses");
    if (!rc)
        rc = tern_check_ptr(num_large_counts, "num_large_counts");
    if (!rc)
        rc = tern_check_ptr(num_datatypes, "num_datatypes");
    if (rc)
        return tern_api_error(NULL, "MPI_Type_get_envelope_c", rc);
    return envelope("MPI_Type_get_envelope_c", datatype, 1, num_integers, num_addresses,
                    num_large_counts, num_datatypes, combiner);
}

static int room(MPI_Count max, size_t need, const void *arr, const char *name)
{
    if (need == 0)
        return 0;
    if (max < (MPI_Count)need) {
        tern_api_detail("%s has room for %lld values; the datatype has %zu (ask "
                        "MPI_Type_get_envelope)", name, (long long)max, need);
        return TERN_EARG;
    }
    return tern_check_ptr(arr, name);
}

/* The handles of the kids: predefined ones as they are, derived ones as
 * new clones. */
static int kid_handles(const struct tern_dtype *dt, MPI_Datatype *out)
{
    for (size_t i = 0; i < dt->nkid; i++) {
        struct tern_dtype *c;
        if (dt->kid[i]->predefined) {
            out[i] = dt->kid[i]->handle;
            continue;
        }
        if (tern_dtype_clone(dt->kid[i], &c)) {
            for (size_t j = 0; j < i; j++)
                if (!dt->kid[j]->predefined)
                    tern_dtype_free((struct tern_dtype *)out[j]);
            return TERN_ENOMEM;
        }
        out[i] = c->handle;
    }
    return 0;
}

static int contents(const char *fn, MPI_Datatype type, int large_form, MPI_Count max_i,
                    MPI_Count max_a, MPI_Count max_l, MPI_Count max_d, int *ints,
                    MPI_Aint *addrs, MPI_Count *larges, MPI_Datatype *types)
{
    const struct tern_dtype *dt;
    int rc = decodable(type, large_form, &dt);
    if (!rc && dt->predefined) {
        tern_api_detail("%s is predefined (combiner MPI_COMBINER_NAMED): it has no contents",
                        dt->name);
        rc = TERN_ETYPE;
    }
    if (!rc)
        rc = room(max_i, dt->nints, ints, "array_of_integers");
    if (!rc)
        rc = room(max_a, dt->naddrs, addrs, "array_of_addresses");
    if (!rc)
        rc = room(max_l, dt->nlarge, larges, "array_of_large_counts");
    if (!rc)
        rc = room(max_d, dt->nkid, types, "array_of_datatypes");
    if (!rc)
        rc = kid_handles(dt, types);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    if (dt->nints)
        memcpy(ints, dt->ints, dt->nints * sizeof(*ints));
    if (dt->naddrs)
        memcpy(addrs, dt->addrs, dt->naddrs * sizeof(*addrs));
    if (dt->nlarge)
        memcpy(larges, dt->larges, dt->nlarge * sizeof(*larges));
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents", datatype, 0, max_integers, max_addresses, 0,
                    max_datatypes, array_of_integers, array_of_addresses, NULL,
                    array_of_datatypes);
}

#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses, MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents_c", datatype, 1, max_integers, max_addresses,
                    max_large_counts, max_datatypes, array_of_integers, array_of_addresses,
                    array_of_large_counts, array_of_datatypes);
}
