/*
 * Reduction operations: the predefined op objects, which types each op is
 * defined for, user ops, and tern_op_reduce, which sends each call to a
 * kernel (op_arith.c, op_logic.c, op_loc.c) or to the user's function.
 *
 * Every predefined datatype has a class (the groups of the standard's
 * table: C integer, Fortran integer, floating point, logical, complex,
 * byte, multi-language, pair) and an element kind (what the kernels work
 * on, e.g. MPI_LONG and MPI_INTEGER8 are both 64-bit signed integers). An
 * op is defined for a type when it accepts the class of the type's basic
 * type and a kernel exists for its element kind. As in MPI 3.1 and later,
 * MPI_AINT, MPI_OFFSET and MPI_COUNT are "multi-language" types (MAX, MIN,
 * SUM, PROD and the bitwise ops, not the logical ones); the Fortran
 * LOGICAL1..16 are logical; REAL16 and COMPLEX32 are IEEE quad precision
 * (gfortran's), REAL2 and COMPLEX4 IEEE half, where the compiler has them.
 *
 * A derived type made of one basic type is reduced in place when its data
 * is one contiguous run of basic elements at the buffer address; otherwise
 * both buffers are packed into temporaries in pieces of at most CHUNK
 * bytes, the basic elements are reduced there, and the result is unpacked
 * into inout.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmpi/core/datatype.h"
#include "libmpi/core/object.h"
#include "libmpi/core/op.h"
#include "libmpi/core/op_kernel.h"
#include "tern/err.h"

/* Type classes, as bits of tern_op.classes. */
enum {
    CL_CINT = 1 << 0,      /* C integer */
    CL_FINT = 1 << 1,      /* Fortran integer */
    CL_FLOAT = 1 << 2,     /* Floating point */
    CL_LOGICAL = 1 << 3,   /* Logical */
    CL_COMPLEX = 1 << 4,   /* Complex */
    CL_BYTE = 1 << 5,      /* Byte */
    CL_MULTI = 1 << 6,     /* Multi-language types: MPI_AINT, MPI_OFFSET, MPI_COUNT */
    CL_PAIR = 1 << 7,      /* The pair types of MINLOC and MAXLOC */
    CL_OTHER = 1 << 8,     /* Characters, MPI_PACKED: no reduction but REPLACE */
    CL_ALL = (1 << 9) - 1
};

/* The standard's table of which classes each predefined op allows, and
 * two extensions that MPICH and Open MPI both make, so that programs written
 * for them run unchanged: the logical ops also take the multi-language
 * types, which are C integers too (MPICH's test suite uses MPI_LOR on
 * MPI_AINT), and MPI_CHAR counts as a C integer of char's signedness
 * (MPICH's op tests reduce it with every arithmetic and bitwise op). */
#define CL_MAXMIN (CL_CINT | CL_FINT | CL_FLOAT | CL_MULTI)
#define CL_SUMPROD (CL_CINT | CL_FINT | CL_FLOAT | CL_COMPLEX | CL_MULTI)
#define CL_LOGIC (CL_CINT | CL_LOGICAL | CL_MULTI)
#define CL_BITS (CL_CINT | CL_FINT | CL_BYTE | CL_MULTI)

#define PREDEFINED(h, k, cls, rma)                                              \
    { .magic = TERN_MAGIC_OP, .handle = h, .name = #h, .commute = 1,            \
      .kind = k, .classes = cls, .rma_only = rma, .refs = 1 }

/* The standard says every predefined op is commutative, MPI_REPLACE and
 * MPI_NO_OP included (Open MPI and MPICH say so too). */
static const struct tern_op predefined[] = {
    PREDEFINED(MPI_SUM, TERN_OP_SUM, CL_SUMPROD, 0),
    PREDEFINED(MPI_PROD, TERN_OP_PROD, CL_SUMPROD, 0),
    PREDEFINED(MPI_MAX, TERN_OP_MAX, CL_MAXMIN, 0),
    PREDEFINED(MPI_MIN, TERN_OP_MIN, CL_MAXMIN, 0),
    PREDEFINED(MPI_LAND, TERN_OP_LAND, CL_LOGIC, 0),
    PREDEFINED(MPI_LOR, TERN_OP_LOR, CL_LOGIC, 0),
    PREDEFINED(MPI_LXOR, TERN_OP_LXOR, CL_LOGIC, 0),
    PREDEFINED(MPI_BAND, TERN_OP_BAND, CL_BITS, 0),
    PREDEFINED(MPI_BOR, TERN_OP_BOR, CL_BITS, 0),
    PREDEFINED(MPI_BXOR, TERN_OP_BXOR, CL_BITS, 0),
    PREDEFINED(MPI_MINLOC, TERN_OP_MINLOC, CL_PAIR, 0),
    PREDEFINED(MPI_MAXLOC, TERN_OP_MAXLOC, CL_PAIR, 0),
    PREDEFINED(MPI_REPLACE, TERN_OP_REPLACE, CL_ALL, 1),
    PREDEFINED(MPI_NO_OP, TERN_OP_NO_OP, CL_ALL, 1),
};

struct type_info {
    MPI_Datatype handle;
    unsigned cls;
    enum tern_op_elem elem;
};

/* The element kind of a C integer or floating type, by its size. */
#define SINT(T)                                                                 \
    (sizeof(T) == 1 ? TERN_OP_E_I8 : sizeof(T) == 2 ? TERN_OP_E_I16             \
     : sizeof(T) == 4 ? TERN_OP_E_I32 : sizeof(T) == 8 ? TERN_OP_E_I64          \
     : TERN_OP_E_NONE)
#define UINT(T)                                                                 \
    (sizeof(T) == 1 ? TERN_OP_E_U8 : sizeof(T) == 2 ? TERN_OP_E_U16             \
     : sizeof(T) == 4 ? TERN_OP_E_U32 : sizeof(T) == 8 ? TERN_OP_E_U64          \
     : TERN_OP_E_NONE)

static const struct type_info types[] = {
    { MPI_CHAR, CL_CINT, CHAR_MIN < 0 ? SINT(char) : UINT(char) },
    { MPI_SIGNED_CHAR, CL_CINT, SINT(signed char) },
    { MPI_UNSIGNED_CHAR, CL_CINT, UINT(unsigned char) },
    { MPI_SHORT, CL_CINT, SINT(short) },
    { MPI_UNSIGNED_SHORT, CL_CINT, UINT(unsigned short) },
    { MPI_INT, CL_CINT, SINT(int) },
    { MPI_UNSIGNED, CL_CINT, UINT(unsigned) },
    { MPI_LONG, CL_CINT, SINT(long) },
    { MPI_UNSIGNED_LONG, CL_CINT, UINT(unsigned long) },
    { MPI_LONG_LONG, CL_CINT, SINT(long long) },
    { MPI_UNSIGNED_LONG_LONG, CL_CINT, UINT(unsigned long long) },
    { MPI_INT8_T, CL_CINT, TERN_OP_E_I8 },
    { MPI_UINT8_T, CL_CINT, TERN_OP_E_U8 },
    { MPI_INT16_T, CL_CINT, TERN_OP_E_I16 },
    { MPI_UINT16_T, CL_CINT, TERN_OP_E_U16 },
    { MPI_INT32_T, CL_CINT, TERN_OP_E_I32 },
    { MPI_UINT32_T, CL_CINT, TERN_OP_E_U32 },
    { MPI_INT64_T, CL_CINT, TERN_OP_E_I64 },
    { MPI_UINT64_T, CL_CINT, TERN_OP_E_U64 },
    { MPI_AINT, CL_MULTI, SINT(MPI_Aint) },
    { MPI_OFFSET, CL_MULTI, SINT(MPI_Offset) },
    { MPI_COUNT, CL_MULTI, SINT(MPI_Count) },
    { MPI_INTEGER, CL_FINT, TERN_OP_E_I32 },
    { MPI_INTEGER1, CL_FINT, TERN_OP_E_I8 },
    { MPI_INTEGER2, CL_FINT, TERN_OP_E_I16 },
    { MPI_INTEGER4, CL_FINT, TERN_OP_E_I32 },
    { MPI_INTEGER8, CL_FINT, TERN_OP_E_I64 },
    { MPI_INTEGER16, CL_FINT, TERN_OP_E_I128 },
    { MPI_FLOAT, CL_FLOAT, TERN_OP_E_F32 },
    { MPI_DOUBLE, CL_FLOAT, TERN_OP_E_F64 },
    { MPI_LONG_DOUBLE, CL_FLOAT, TERN_OP_E_FLD },
    { MPI_REAL, CL_FLOAT, TERN_OP_E_F32 },
    { MPI_DOUBLE_PRECISION, CL_FLOAT, TERN_OP_E_F64 },
    { MPI_REAL2, CL_FLOAT, TERN_OP_E_F16 },
    { MPI_REAL4, CL_FLOAT, TERN_OP_E_F32 },
    { MPI_REAL8, CL_FLOAT, TERN_OP_E_F64 },
    { MPI_REAL16, CL_FLOAT, TERN_OP_E_F128 },
    { MPI_C_BOOL, CL_LOGICAL, UINT(_Bool) },
    { MPI_CXX_BOOL, CL_LOGICAL, UINT(_Bool) },
    { MPI_LOGICAL, CL_LOGICAL, TERN_OP_E_U32 },
    { MPI_LOGICAL1, CL_LOGICAL, TERN_OP_E_U8 },
    { MPI_LOGICAL2, CL_LOGICAL, TERN_OP_E_U16 },
    { MPI_LOGICAL4, CL_LOGICAL, TERN_OP_E_U32 },
    { MPI_LOGICAL8, CL_LOGICAL, TERN_OP_E_U64 },
    { MPI_LOGICAL16, CL_LOGICAL, TERN_OP_E_U128 },
    { MPI_C_FLOAT_COMPLEX, CL_COMPLEX, TERN_OP_E_C32 },
    { MPI_C_DOUBLE_COMPLEX, CL_COMPLEX, TERN_OP_E_C64 },
    { MPI_C_LONG_DOUBLE_COMPLEX, CL_COMPLEX, TERN_OP_E_CLD },
    { MPI_CXX_FLOAT_COMPLEX, CL_COMPLEX, TERN_OP_E_C32 },
    { MPI_CXX_DOUBLE_COMPLEX, CL_COMPLEX, TERN_OP_E_C64 },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, CL_COMPLEX, TERN_OP_E_CLD },
    { MPI_COMPLEX, CL_COMPLEX, TERN_OP_E_C32 },
    { MPI_DOUBLE_COMPLEX, CL_COMPLEX, TERN_OP_E_C64 },
    { MPI_COMPLEX4, CL_COMPLEX, TERN_OP_E_C16 },
    { MPI_COMPLEX8, CL_COMPLEX, TERN_OP_E_C32 },
    { MPI_COMPLEX16, CL_COMPLEX, TERN_OP_E_C64 },
    { MPI_COMPLEX32, CL_COMPLEX, TERN_OP_E_C128 },
    { MPI_BYTE, CL_BYTE, TERN_OP_E_U8 },
    { MPI_FLOAT_INT, CL_PAIR, TERN_OP_E_FLOAT_INT },
    { MPI_DOUBLE_INT, CL_PAIR, TERN_OP_E_DOUBLE_INT },
    { MPI_LONG_INT, CL_PAIR, TERN_OP_E_LONG_INT },
    { MPI_2INT, CL_PAIR, TERN_OP_E_2INT },
    { MPI_SHORT_INT, CL_PAIR, TERN_OP_E_SHORT_INT },
    { MPI_LONG_DOUBLE_INT, CL_PAIR, TERN_OP_E_LONG_DOUBLE_INT },
    { MPI_2INTEGER, CL_PAIR, TERN_OP_E_2INTEGER },
    { MPI_2REAL, CL_PAIR, TERN_OP_E_2REAL },
    { MPI_2DOUBLE_PRECISION, CL_PAIR, TERN_OP_E_2DOUBLE_PRECISION },
    /* MPI_WCHAR, MPI_CHARACTER, MPI_PACKED and any predefined type
     * not listed are CL_OTHER (see classify). */
};

/* The types above by the low byte of their handle (predefined datatype
 * handles are 0x200 to 0x2ff), filled at load time. */
#define TYPE_BASE 0x200
#define TYPE_SLOTS 0x100
static struct type_info by_slot[TYPE_SLOTS];

/* The ops that have kernels (TERN_OP_SUM ... TERN_OP_MAXLOC), by the slot
 * of a predefined type: the kernel, or NULL where the op is not defined for
 * the type. Filled at load time, so that applying an op to a predefined
 * type costs one lookup (an 8-byte MPI_Allreduce applies one twice: its
 * check and its reduction). */
#define KERNEL_KINDS (TERN_OP_MAXLOC + 1)
_Static_assert(KERNEL_KINDS == TERN_OP_REPLACE,
               "the ops with kernels come first in enum tern_op_kind");
static tern_op_kernel *kernels[TYPE_SLOTS][KERNEL_KINDS];

static tern_op_kernel *kernel_for(enum tern_op_kind kind, enum tern_op_elem e);

__attribute__((constructor)) static void fill_by_slot(void)
{
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        uintptr_t slot = (uintptr_t)types[i].handle - TYPE_BASE;
        by_slot[slot] = types[i];
        for (size_t k = 0; k < sizeof(predefined) / sizeof(predefined[0]); k++) {
            const struct tern_op *op = &predefined[k];
            if (op->kind < KERNEL_KINDS && (types[i].cls & op->classes))
                kernels[slot][op->kind] = kernel_for(op->kind, types[i].elem);
        }
    }
}

/* The kernel of a predefined op (other than REPLACE and NO_OP) for a
 * predefined type, or NULL when the op is not defined for it. */
static tern_op_kernel *predefined_kernel(const struct tern_op *op,
                                         const struct tern_dtype *basic)
{
    uintptr_t slot = (uintptr_t)basic->handle - TYPE_BASE;
    if (slot >= TYPE_SLOTS || (unsigned)op->kind >= KERNEL_KINDS)
        return NULL;
    return kernels[slot][op->kind];
}

static const struct type_info other = { MPI_DATATYPE_NULL, CL_OTHER, TERN_OP_E_NONE };

/* The class and element kind of a predefined type. */
static const struct type_info *classify(const struct tern_dtype *basic)
{
    uintptr_t h = (uintptr_t)basic->handle;
    if (h >= TYPE_BASE && h < TYPE_BASE + TYPE_SLOTS && by_slot[h - TYPE_BASE].cls)
        return &by_slot[h - TYPE_BASE];
    return &other;
}

/* The kernel of a predefined op for an element kind, or NULL. */
static tern_op_kernel *kernel_for(enum tern_op_kind kind, enum tern_op_elem e)
{
    switch (kind) {
    case TERN_OP_SUM: case TERN_OP_PROD: case TERN_OP_MAX: case TERN_OP_MIN:
        return tern_op_arith_kernel(kind, e);
    case TERN_OP_LAND: case TERN_OP_LOR: case TERN_OP_LXOR:
    case TERN_OP_BAND: case TERN_OP_BOR: case TERN_OP_BXOR:
        return tern_op_logic_kernel(kind, e);
    case TERN_OP_MINLOC: case TERN_OP_MAXLOC:
        return tern_op_loc_kernel(kind, e);
    default:
        return NULL;
    }
}

const struct tern_op *tern_op_get(MPI_Op h)
{
    for (size_t i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
        if (predefined[i].handle == h)
            return &predefined[i];
    if (tern_handle_is_predefined(h) || !tern_obj_known(h))
        return NULL;
    const struct tern_op *op = (const struct tern_op *)h;
    return op->magic == TERN_MAGIC_OP && !op->freed ? op : NULL;
}

int tern_op_check(const struct tern_op *op, const struct tern_dtype *dt)
{
    if (op->kind == TERN_OP_USER)
        return 0;
    if (!dt->basic)
        return TERN_EOP;
    /* REPLACE and NO_OP take every class. */
    if (op->kind == TERN_OP_REPLACE || op->kind == TERN_OP_NO_OP)
        return 0;
    return predefined_kernel(op, dt->basic) ? 0 : TERN_EOP;
}

const char *tern_op_mismatch(const struct tern_op *op, const struct tern_dtype *dt,
                             char *buf, size_t len)
{
    if (!dt->basic)
        snprintf(buf, len, "%s is not defined for %s%s, which mixes several "
                 "basic datatypes", op->name,
                 dt->name[0] ? "datatype " : "a derived datatype", dt->name);
    else if (!(classify(dt->basic)->cls & op->classes) && dt->basic == dt)
        snprintf(buf, len, "%s is not defined for %s", op->name, dt->name);
    else if (!(classify(dt->basic)->cls & op->classes))
        snprintf(buf, len, "%s is not defined for %s%s (made of %s)", op->name,
                 dt->name[0] ? "datatype " : "a derived datatype", dt->name,
                 dt->basic->name);
    else
        snprintf(buf, len, "%s on %s is not supported by this build of Tern",
                 op->name, dt->basic->name);
    return buf;
}

/* A user function: called on the user's buffers, in pieces of INT_MAX
 * elements when it takes an int count. */
__attribute__((noinline))
static void reduce_user(const struct tern_op *op, const void *in, void *inout,
                        size_t count, const struct tern_dtype *dt)
{
    MPI_Datatype h = dt->handle;
    if (op->fn_c) {
        MPI_Count len = (MPI_Count)count;
        op->fn_c((void *)in, inout, &len, &h);
        return;
    }
    const char *a = in;
    char *b = inout;
    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        op->fn((void *)a, b, &len, &h);
        a += (MPI_Aint)len * dt->extent;
        b += (MPI_Aint)len * dt->extent;
        count -= (size_t)len;
    }
}

/* Bytes of packed data per piece when reducing a derived type. */
#define CHUNK (64 * 1024)
#define ALIGN_UP(n) (((n) + 63) & ~(size_t)63)

/* 1 for the pair types whose C struct has padding (MPI_DOUBLE_INT ...),
 * where packed data and the struct layout differ. */
static int has_gap(const struct tern_dtype *basic)
{
    return basic->extent != (MPI_Aint)basic->size;
}

/* Temporaries for one piece of a derived type: the packed data of in and
 * inout, and, when the basic type has a gap, the same elements laid out as
 * the C struct the kernel expects. */
struct pieces {
    size_t per;          /* Elements of dt per piece. */
    char *pa, *pb;       /* Packed in, packed inout. */
    char *ua, *ub;       /* Struct layout, or NULL without a gap. */
};

static void *alloc_pieces(struct pieces *p, size_t count, const struct tern_dtype *dt)
{
    const struct tern_dtype *basic = dt->basic;
    p->per = CHUNK / dt->size ? CHUNK / dt->size : 1;
    if (p->per > count)
        p->per = count;
    size_t packed = ALIGN_UP(p->per * dt->size);
    size_t unpacked = has_gap(basic)
        ? ALIGN_UP(p->per * dt->size / basic->size * (size_t)basic->extent) : 0;
    char *buf = aligned_alloc(64, 2 * packed + 2 * unpacked);
    if (!buf)
        return NULL;
    p->pa = buf;
    p->pb = buf + packed;
    p->ua = unpacked ? p->pb + packed : NULL;
    p->ub = unpacked ? p->ua + unpacked : NULL;
    return buf;
}

/* A derived type made of one basic type (or a copy for MPI_REPLACE when
 * kern is NULL): piece by piece, pack both buffers, reduce, unpack. */
static int reduce_packed(tern_op_kernel *kern, const void *in, void *inout,
                         size_t count, const struct tern_dtype *dt)
{
    const struct tern_dtype *basic = dt->basic;
    struct pieces p;
    void *buf = alloc_pieces(&p, count, dt);
    if (!buf)
        return TERN_ENOMEM;
    for (size_t done = 0; done < count; done += p.per) {
        size_t k = count - done < p.per ? count - done : p.per;
        size_t bytes = k * dt->size, nb = bytes / basic->size;
        const char *a = (const char *)in + (MPI_Aint)done * dt->extent;
        char *b = (char *)inout + (MPI_Aint)done * dt->extent;
        tern_dtype_pack(dt, a, k, p.pa);
        if (kern) {
            tern_dtype_pack(dt, b, k, p.pb);
            if (p.ua) {
                tern_dtype_unpack(basic, p.pa, bytes, p.ua);
                tern_dtype_unpack(basic, p.pb, bytes, p.ub);
                kern(p.ua, p.ub, nb);
                tern_dtype_pack(basic, p.ub, nb, p.pb);
            } else {
                kern(p.pa, p.pb, nb);
            }
        }
        tern_dtype_unpack(dt, kern ? p.pb : p.pa, bytes, b);
    }
    free(buf);
    return 0;
}

/* MPI_REPLACE: inout = in. */
__attribute__((noinline))
static int replace(const void *in, void *inout, size_t count, const struct tern_dtype *dt)
{
    if (count == 0 || dt->size == 0)
        return 0;
    if (tern_dtype_contig(dt, count)) {
        memcpy(inout, in, count * dt->size);
        return 0;
    }
    return reduce_packed(NULL, in, inout, count, dt);
}

/* A predefined op on a derived type made of one basic type. */
__attribute__((noinline))
static int reduce_derived(tern_op_kernel *kern, const void *in, void *inout, size_t count,
                          const struct tern_dtype *dt)
{
    const struct tern_dtype *basic = dt->basic;
    if (count == 0 || dt->size == 0)
        return 0;
    if (!has_gap(basic) && tern_dtype_contig(dt, count)) {
        /* One run of basic elements at the buffer address. */
        kern(in, inout, count * dt->size / basic->size);
        return 0;
    }
    return reduce_packed(kern, in, inout, count, dt);
}

/* Kept small, with the rare cases in helpers that are not inlined (they
 * would make every call save registers): an 8-byte MPI_Allreduce
 * calls it once per rank, and its cost is on the critical path. */
int tern_op_reduce(const struct tern_op *op, const void *in, void *inout,
                   size_t count, const struct tern_dtype *dt)
{
    if (op->kind == TERN_OP_USER) {
        reduce_user(op, in, inout, count, dt);
        return 0;
    }
    const struct tern_dtype *basic = dt->basic;
    if (!basic)
        return TERN_EOP;
    if (op->kind == TERN_OP_NO_OP)
        return 0;
    if (op->kind == TERN_OP_REPLACE)
        return replace(in, inout, count, dt);
    tern_op_kernel *kern = predefined_kernel(op, basic);
    if (!kern)
        return TERN_EOP;
    if (dt != basic)
        return reduce_derived(kern, in, inout, count, dt);
    /* A predefined type: the user's layout is the kernel's (a kernel
     * does nothing for count 0). */
    kern(in, inout, count);
    return 0;
}

struct tern_op *tern_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c,
                               int commute)
{
    struct tern_op *op = calloc(1, sizeof(*op));
    if (!op || tern_obj_add(op)) {
        free(op);
        return NULL;
    }
    op->magic = TERN_MAGIC_OP;
    op->handle = (MPI_Op)op;
    op->name = "user op";
    op->commute = commute ? 1 : 0;
    op->fn = fn;
    op->fn_c = fn_c;
    op->kind = TERN_OP_USER;
    op->classes = CL_ALL;
    op->refs = 1;
    return op;
}

/* User ops are the only ones of kind TERN_OP_USER. */
static int is_predefined(const struct tern_op *op)
{
    return op->kind != TERN_OP_USER;
}

int tern_op_free(const struct tern_op *op)
{
    if (is_predefined(op))
        return TERN_EOP;
    ((struct tern_op *)op)->freed = 1;
    tern_op_release(op);
    return 0;
}

void tern_op_retain(const struct tern_op *op)
{
    if (!is_predefined(op))
        ((struct tern_op *)op)->refs++;
}

void tern_op_release(const struct tern_op *op)
{
    if (is_predefined(op))
        return;
    struct tern_op *o = (struct tern_op *)op;
    if (--o->refs == 0) {
        o->magic = TERN_MAGIC_DEAD;
        tern_obj_remove(o);
        free(o);
    }
}
