/*
 * The one MPI wrappers.c is built for (mpicc.mpich or mpicc.openmpi): its
 * handles as the uprobe path names them (bpf/mpi.bpf.h). Nothing here refers
 * to the MPI library's data: a preloaded library must load in every process
 * the command starts, MPI or not; its functions are bound at their first call.
 */
#ifndef SB_PMPI_ABI_H
#define SB_PMPI_ABI_H

#include <mpi.h>
#include <stdint.h>

#if defined(OPEN_MPI)
#define PMPI_MINE_SYMBOL "ompi_mpi_comm_world"
#define PMPI_OTHER_SYMBOL "MPII_Version_string"
#define PMPI_MINE_FILE "libscope_bpf_mpi_openmpi.so"
#define PMPI_OTHER_FILE "libscope_bpf_mpi_mpich.so"
#define PMPI_WORLD -1		/* communicators are pointers: the uprobe path names none */
#elif defined(MPICH)
#define PMPI_MINE_SYMBOL "MPII_Version_string"
#define PMPI_OTHER_SYMBOL "ompi_mpi_comm_world"
#define PMPI_MINE_FILE "libscope_bpf_mpi_mpich.so"
#define PMPI_OTHER_FILE "libscope_bpf_mpi_openmpi.so"
#define PMPI_WORLD 0x44000000	/* MPI_COMM_WORLD's Fortran handle, its C handle */
#else
#error "mpi.h is neither MPICH's nor Open MPI's"
#endif

/* The communicator's value in names: MPICH's handle; -1 in Open MPI. */
int32_t pmpi_comm(MPI_Comm comm);
/* A request handle's value, compared with the one seen when it was started. */
uint64_t pmpi_handle(MPI_Request r);
/* A datatype's size in bytes, -1 where the uprobe path cannot know it. */
int64_t pmpi_type_size(MPI_Datatype type);

#endif
