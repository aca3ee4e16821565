/* MPI calls as regions: the source's helpers other code may test. */
#ifndef SB_MPI_CALLS_H
#define SB_MPI_CALLS_H

#include <stdbool.h>

/* Whether a command line starts an MPI launcher (mpiexec, mpirun, srun, ...). */
bool sb_mpi_launcher(char *const *cmd);

#endif
