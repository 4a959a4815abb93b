/*
 * Conversions between handles and ints (MPI_Comm_toint, MPI_Comm_fromint
 * and the same for every handle kind), and address arithmetic.
 *
 * A predefined handle already is a small integer. A handle the user created
 * is a pointer; it gets the next free integer from 0x1000 up the first time
 * it is converted, kept in one table for all kinds, so the conversions
 * round-trip for the life of the process.
 */
#include <stdint.h>
#include <stdlib.h>

#include <mpi.h>

#include "libmpi/core/object.h"

static void **table;
static int used, cap;

static int to_int(void *h)
{
    if (tern_handle_is_predefined(h))
        return (int)(uintptr_t)h;
    for (int i = 0; i < used; i++)
        if (table[i] == h)
            return TERN_PREDEFINED_MAX + i;
    if (used == cap) {
        int ncap = cap ? 2 * cap : 64;
        void **t = realloc(table, sizeof(void *) * (size_t)ncap);
        if (!t)
            return -1;
        table = t;
        cap = ncap;
    }
    table[used] = h;
    return TERN_PREDEFINED_MAX + used++;
}

static void *from_int(int i)
{
    if (i >= 0 && i < TERN_PREDEFINED_MAX)
        return (void *)(uintptr_t)i;
    i -= TERN_PREDEFINED_MAX;
    return i >= 0 && i < used ? table[i] : NULL;
}

#pragma weak MPI_Comm_toint = PMPI_Comm_toint
int PMPI_Comm_toint(MPI_Comm comm)
{
    return to_int((void *)comm);
}

#pragma weak MPI_Comm_fromint = PMPI_Comm_fromint
MPI_Comm PMPI_Comm_fromint(int comm)
{
    return (MPI_Comm)from_int(comm);
}

#pragma weak MPI_Errhandler_toint = PMPI_Errhandler_toint
int PMPI_Errhandler_toint(MPI_Errhandler errhandler)
{
    return to_int((void *)errhandler);
}

#pragma weak MPI_Errhandler_fromint = PMPI_Errhandler_fromint
MPI_Errhandler PMPI_Errhandler_fromint(int errhandler)
{
    return (MPI_Errhandler)from_int(errhandler);
}

#pragma weak MPI_File_toint = PMPI_File_toint
int PMPI_File_toint(MPI_File file)
{
    return to_int((void *)file);
}

#pragma weak MPI_File_fromint = PMPI_File_fromint
MPI_File PMPI_File_fromint(int file)
{
    return (MPI_File)from_int(file);
}

#pragma weak MPI_Group_toint = PMPI_Group_toint
int PMPI_Group_toint(MPI_Group group)
{
    return to_int((void *)group);
}

#pragma weak MPI_Group_fromint = PMPI_Group_fromint
MPI_Group PMPI_Group_fromint(int group)
{
    return (MPI_Group)from_int(group);
}

#pragma weak MPI_Info_toint = PMPI_Info_toint
int PMPI_Info_toint(MPI_Info info)
{
    return to_int((void *)info);
}

#pragma weak MPI_Info_fromint = PMPI_Info_fromint
MPI_Info PMPI_Info_fromint(int info)
{
    return (MPI_Info)from_int(info);
}

#pragma weak MPI_Message_toint = PMPI_Message_toint
int PMPI_Message_toint(MPI_Message message)
{
    return to_int((void *)message);
}

#pragma weak MPI_Message_fromint = PMPI_Message_fromint
MPI_Message PMPI_Message_fromint(int message)
{
    return (MPI_Message)from_int(message);
}

#pragma weak MPI_Op_toint = PMPI_Op_toint
int PMPI_Op_toint(MPI_Op op)
{
    return to_int((void *)op);
}

#pragma weak MPI_Op_fromint = PMPI_Op_fromint
MPI_Op PMPI_Op_fromint(int op)
{
    return (MPI_Op)from_int(op);
}

#pragma weak MPI_Request_toint = PMPI_Request_toint
int PMPI_Request_toint(MPI_Request request)
{
    return to_int((void *)request);
}

#pragma weak MPI_Request_fromint = PMPI_Request_fromint
MPI_Request PMPI_Request_fromint(int request)
{
    return (MPI_Request)from_int(request);
}

#pragma weak MPI_Session_toint = PMPI_Session_toint
int PMPI_Session_toint(MPI_Session session)
{
    return to_int((void *)session);
}

#pragma weak MPI_Session_fromint = PMPI_Session_fromint
MPI_Session PMPI_Session_fromint(int session)
{
    return (MPI_Session)from_int(session);
}

#pragma weak MPI_Type_toint = PMPI_Type_toint
int PMPI_Type_toint(MPI_Datatype datatype)
{
    return to_int((void *)datatype);
}

#pragma weak MPI_Type_fromint = PMPI_Type_fromint
MPI_Datatype PMPI_Type_fromint(int datatype)
{
    return (MPI_Datatype)from_int(datatype);
}

#pragma weak MPI_Win_toint = PMPI_Win_toint
int PMPI_Win_toint(MPI_Win win)
{
    return to_int((void *)win);
}

#pragma weak MPI_Win_fromint = PMPI_Win_fromint
MPI_Win PMPI_Win_fromint(int win)
{
    return (MPI_Win)from_int(win);
}

#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
