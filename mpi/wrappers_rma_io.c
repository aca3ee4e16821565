/*
 * One-sided communication and file I/O, wrapped as the uprobe path traces
 * them (docs/MPI.md): a window or a file is no communicator (comm -1 but
 * where one is made), peers are ranks in the window's group. ROMIO's MPI
 * calls inside a file call are part of it: the wrappers pass them through.
 */
#include "wrap.h"

/* One-sided. */
WRAP(Win_create, SB_MPI_WIN_CREATE, (void *base, MPI_Aint size, int disp_unit, MPI_Info info,
     MPI_Comm comm, MPI_Win *win), (base, size, disp_unit, info, comm, win),
     (e.bytes = (int64_t)size, e.comm = pmpi_comm(comm)), NOTHING)
WRAP(Win_allocate, SB_MPI_WIN_ALLOCATE, (MPI_Aint size, int disp_unit, MPI_Info info,
     MPI_Comm comm, void *base, MPI_Win *win), (size, disp_unit, info, comm, base, win),
     (e.bytes = (int64_t)size, e.comm = pmpi_comm(comm)), NOTHING)
WRAP(Win_free, SB_MPI_WIN_FREE, (MPI_Win *win), (win), e.bytes = 0, NOTHING)
WRAP(Put, SB_MPI_PUT, (const void *obuf, int ocount, MPI_Datatype otype, int target,
     MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win),
     (obuf, ocount, otype, target, tdisp, tcount, ttype, win),
     (e.bytes = bytes(ocount, otype), e.peer = target), NOTHING)
WRAP(Get, SB_MPI_GET, (void *obuf, int ocount, MPI_Datatype otype, int target,
     MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win),
     (obuf, ocount, otype, target, tdisp, tcount, ttype, win),
     (e.bytes = bytes(ocount, otype), e.peer = target), NOTHING)
WRAP(Accumulate, SB_MPI_ACCUMULATE, (const void *obuf, int ocount, MPI_Datatype otype,
     int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win),
     (obuf, ocount, otype, target, tdisp, tcount, ttype, op, win),
     (e.bytes = bytes(ocount, otype), e.peer = target), NOTHING)
WRAP(Win_fence, SB_MPI_WIN_FENCE, (int assert_, MPI_Win win), (assert_, win), e.bytes = 0,
     NOTHING)
WRAP(Win_lock, SB_MPI_WIN_LOCK, (int type, int rank, int assert_, MPI_Win win),
     (type, rank, assert_, win), (e.bytes = 0, e.peer = rank), NOTHING)
WRAP(Win_unlock, SB_MPI_WIN_UNLOCK, (int rank, MPI_Win win), (rank, win),
     (e.bytes = 0, e.peer = rank), NOTHING)
WRAP(Win_lock_all, SB_MPI_WIN_LOCK_ALL, (int assert_, MPI_Win win), (assert_, win),
     e.bytes = 0, NOTHING)
WRAP(Win_unlock_all, SB_MPI_WIN_UNLOCK_ALL, (MPI_Win win), (win), e.bytes = 0, NOTHING)
WRAP(Win_flush, SB_MPI_WIN_FLUSH, (int rank, MPI_Win win), (rank, win),
     (e.bytes = 0, e.peer = rank), NOTHING)
WRAP(Win_flush_all, SB_MPI_WIN_FLUSH_ALL, (MPI_Win win), (win), e.bytes = 0, NOTHING)

/* File I/O: count x datatype; the file is no communicator. */
WRAP(File_open, SB_MPI_FILE_OPEN, (MPI_Comm comm, const char *name, int amode, MPI_Info info,
     MPI_File *fh), (comm, name, amode, info, fh),
     (e.bytes = 0, e.comm = pmpi_comm(comm)), NOTHING)
WRAP(File_close, SB_MPI_FILE_CLOSE, (MPI_File *fh), (fh), e.bytes = 0, NOTHING)
WRAP(File_read, SB_MPI_FILE_READ, (MPI_File fh, void *buf, int count, MPI_Datatype type,
     MPI_Status *st), (fh, buf, count, type, st), e.bytes = bytes(count, type), NOTHING)
WRAP(File_write, SB_MPI_FILE_WRITE, (MPI_File fh, const void *buf, int count,
     MPI_Datatype type, MPI_Status *st), (fh, buf, count, type, st),
     e.bytes = bytes(count, type), NOTHING)
WRAP(File_read_all, SB_MPI_FILE_READ_ALL, (MPI_File fh, void *buf, int count,
     MPI_Datatype type, MPI_Status *st), (fh, buf, count, type, st),
     e.bytes = bytes(count, type), NOTHING)
WRAP(File_write_all, SB_MPI_FILE_WRITE_ALL, (MPI_File fh, const void *buf, int count,
     MPI_Datatype type, MPI_Status *st), (fh, buf, count, type, st),
     e.bytes = bytes(count, type), NOTHING)
WRAP(File_read_at, SB_MPI_FILE_READ_AT, (MPI_File fh, MPI_Offset off, void *buf, int count,
     MPI_Datatype type, MPI_Status *st), (fh, off, buf, count, type, st),
     e.bytes = bytes(count, type), NOTHING)
WRAP(File_write_at, SB_MPI_FILE_WRITE_AT, (MPI_File fh, MPI_Offset off, const void *buf,
     int count, MPI_Datatype type, MPI_Status *st), (fh, off, buf, count, type, st),
     e.bytes = bytes(count, type), NOTHING)
WRAP(File_read_at_all, SB_MPI_FILE_READ_AT_ALL, (MPI_File fh, MPI_Offset off, void *buf,
     int count, MPI_Datatype type, MPI_Status *st), (fh, off, buf, count, type, st),
     e.bytes = bytes(count, type), NOTHING)
WRAP(File_write_at_all, SB_MPI_FILE_WRITE_AT_ALL, (MPI_File fh, MPI_Offset off,
     const void *buf, int count, MPI_Datatype type, MPI_Status *st),
     (fh, off, buf, count, type, st), e.bytes = bytes(count, type), NOTHING)
