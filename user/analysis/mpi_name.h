/*
 * MPI call region names (FORMAT.md's grammar, scope-profiler's names): which
 * MPI function a name calls, and the arguments that tell its regions apart.
 */
#ifndef SB_MPI_NAME_H
#define SB_MPI_NAME_H

#include <stdbool.h>
#include <stdint.h>

#define SB_MPI_OP_MAX 32
/* "mpi:" or "MPI_" and an operation. */
#define SB_MPI_FN_MAX (4 + SB_MPI_OP_MAX)
/* Every argument sb_mpi_call_details writes, each at its longest. */
#define SB_MPI_DETAIL_MAX 192

/* One region name "mpi:OP kind=K bytes=N peer=P root=R tag=T comm=C[ request=OP]". */
struct sb_mpi_call {
	char op[SB_MPI_OP_MAX];
	char kind[SB_MPI_OP_MAX];
	char request[SB_MPI_OP_MAX];	/* "" when the name has none */
	int64_t bytes, peer, root, tag, comm;	/* -1: unknown */
};

/*
 * Parse an MPI region name. The prefix "mpi:" and an operation are required, and
 * all six keys; keys the grammar does not know are skipped. Returns 0, or
 * -EINVAL when name is not an MPI call region.
 */
int sb_mpi_parse(const char *name, struct sb_mpi_call *c);

/* Whether the call sends a message to peer: a point-to-point send of any mode. */
bool sb_mpi_is_send(const struct sb_mpi_call *c);

/* "mpi:recv": the name's first word, the one row every call of the function shares. */
void sb_mpi_call_function(const struct sb_mpi_call *c, char out[SB_MPI_FN_MAX]);

/* "MPI_Recv": the function as MPI spells it, the region name Score-P and Vampir use. */
void sb_mpi_call_mpi_name(const struct sb_mpi_call *c, char out[SB_MPI_FN_MAX]);

/*
 * "peer=1 bytes=800 tag=7": what tells this region from the function's
 * others, in that order, then root, comm and request. A value of -1 (unknown,
 * MPI_ANY_SOURCE, MPI_ANY_TAG, no root) is left out, and so is comm when it
 * is MPI_COMM_WORLD; "(no arguments known)" when nothing is left.
 */
void sb_mpi_call_details(const struct sb_mpi_call *c, char out[SB_MPI_DETAIL_MAX]);

#endif
