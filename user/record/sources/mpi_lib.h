/* An MPI library's traced functions, found in its dynamic symbol table. */
#ifndef SB_MPI_LIB_H
#define SB_MPI_LIB_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "region.h"

struct sb_mpi_lib {
	uint32_t abi;			/* SB_MPI_ABI_MPICH or SB_MPI_ABI_OMPI (| where sizes are) */
	uint64_t offset[SB_MPI_N_OPS];	/* file offset of each operation's code, 0: not probed */
	int n_probes;			/* operations with an offset */
};

/* Whether a mapped file's name says it may be an MPI library (libmpi*, libmpich*). */
bool sb_mpi_lib_name(const char *path);

/*
 * Read the library at path: each operation's MPI_X (or PMPI_X where MPI_X is
 * missing), one probe per address: MPICH's MPI_X is a weak alias of PMPI_X,
 * and an operation whose code another one already has is not probed again.
 * Returns 1 for an MPI library (it exports MPI_Init or PMPI_Init), 0 for any
 * other file, -errno when it cannot be read.
 */
int sb_mpi_lib_read(const char *path, struct sb_mpi_lib *lib);

/* Whether the library's datatype handles give their sizes (MPICH's builtins, Open MPI's). */
bool sb_mpi_lib_sizes_known(const struct sb_mpi_lib *lib);

#endif
