/*
 * record --mpi=pmpi (the default when launching a command): the command's
 * ranks load scope-bpf's MPI interposition library through LD_PRELOAD, the
 * one built for the MPI the program links (docs/MPI.md, "The PMPI path").
 */
#ifndef SB_MPI_ENV_H
#define SB_MPI_ENV_H

#include "cmd/record_opts.h"
#include "util/error.h"

enum sb_mpi_abi {
	SB_MPI_UNKNOWN,
	SB_MPI_MPICH,
	SB_MPI_OPENMPI,
};

/*
 * Which MPI a command runs: the first of its words that is an executable
 * needing an MPI library says (libmpich*, or MPICH's libmpi.so.12: MPICH;
 * another libmpi.so: Open MPI, whose library wraps its Fortran bindings
 * too), else its launcher (MPICH's Hydra, Open MPI's orterun or prterun),
 * else SB_MPI_UNKNOWN.
 */
enum sb_mpi_abi sb_mpi_command_abi(char *const *cmd);

/*
 * Put the library in LD_PRELOAD (before what was there) for o->cmd, and say
 * so in o->mpi_pmpi. Asked for (--mpi=pmpi): an MPI that cannot be told or
 * a library not built is an error (-ENOENT). By default, those leave MPI
 * calls to the uprobes, said with -v.
 */
int sb_mpi_env_setup(struct record_opts *o, struct sb_error *err);

#endif
