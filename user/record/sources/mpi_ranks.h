/*
 * MPI ranks: which MPI rank each traced process is, read from the
 * environment its launcher gave it, and the rank rule that numbers the
 * profile by it. Exposed for the unit tests; the recorder knows only
 * sb_mpi_ranks_source.
 */
#ifndef SB_MPI_RANKS_H
#define SB_MPI_RANKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/hashmap.h"

/* Where a rank came from, in the order they are looked for (and trusted). */
enum sb_mpi_var {
	SB_MPI_OMPI,		/* OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE */
	SB_MPI_PMI,		/* PMI_RANK / PMI_SIZE (MPICH Hydra) */
	SB_MPI_PMIX,		/* PMIX_RANK / PMIX_SIZE */
	SB_MPI_SLURM,		/* SLURM_PROCID / SLURM_NTASKS */
	SB_MPI_N_VARS,
};

/* A process's claim to be an MPI rank. */
struct sb_mpi_claim {
	uint32_t rank;
	uint32_t size;		/* world size, 0 when the launcher did not say */
	enum sb_mpi_var var;
};

/* The name of the rank variable of var, e.g. "PMI_RANK". */
const char *sb_mpi_var_name(enum sb_mpi_var var);

/*
 * Find the rank in env[0..n), an environment block as /proc/PID/environ holds
 * it (NUL-separated NAME=VALUE, untrusted: no NUL at the end, entries without
 * '=' and any bytes are possible). The first variable pair of enum sb_mpi_var
 * whose rank is a plain decimal below SB_MAX_RANK and below its size (when the
 * size is given and valid) wins. 1 when found, 0 when not.
 */
int sb_mpi_env_parse(const char *env, size_t n, struct sb_mpi_claim *out);

/* The claim in the environment pid was given at its last exec: 1, 0 when none, -1 unreadable. */
int sb_mpi_claim_of(pid_t pid, struct sb_mpi_claim *out);

/*
 * A claim as the state keeps it, with the order the recorder first saw it,
 * and what the process itself learned from MPI_Comm_rank and MPI_Comm_size
 * on MPI_COMM_WORLD (-1: it did not ask while traced).
 */
struct sb_mpi_seen {
	uint32_t tgid;
	struct sb_mpi_claim claim;
	int32_t own_rank;
	int32_t own_size;
};

/* The source's state. */
struct sb_mpi_ranks {
	struct sb_hashmap index_of;	/* (tgid, 0) -> index in seen */
	struct sb_mpi_seen *seen;	/* in order of each process's first claim */
	size_t n_seen;
	char library[16];		/* "MPICH", "Open MPI", "libmpi"; "" until one is mapped */
	char library_version[32];	/* from the mapped file's name */
	char *library_path;
};

/* Note that tgid claims c (a later claim of the same process replaces it in place). 0 or -ENOMEM. */
int sb_mpi_ranks_claim(struct sb_mpi_ranks *s, uint32_t tgid, const struct sb_mpi_claim *c);

/*
 * Note what tgid learned of MPI_COMM_WORLD (rank, size; -1 not asked), as its
 * MPI_Comm_rank and MPI_Comm_size returned. 0 or -ENOMEM.
 */
int sb_mpi_ranks_learned(struct sb_mpi_ranks *s, uint32_t tgid, int32_t rank, int32_t size);

/*
 * The rank rule (sb_rank_rule_fn, ctx = struct sb_mpi_ranks): a process that
 * learned its rank from MPI_Comm_rank gets it, whatever its environment says;
 * else a process that claims an MPI rank gets it; when several have one
 * rank, the one that learned it wins, then the claim from the earlier
 * variable of enum sb_mpi_var, then the earlier claim. Every
 * other process (no claim, or a lost one) is numbered after the MPI ranks and
 * the world size, in order of its first completed call. Without any claim it
 * is exactly sb_rank_by_first_call.
 */
int sb_mpi_rank_rule(void *ctx, const uint32_t *tgids, size_t n, uint32_t *ranks);

/*
 * The MPI library a mapped file is, from its path: ".../libmpich.so.12.2.2"
 * is "MPICH" version "12.2.2" (the shared object's version in its name, not
 * the release). 1 when it is one, 0 when not.
 */
int sb_mpi_library_of(const char *path, char *name, size_t name_size, char *version,
		      size_t version_size);

void sb_mpi_ranks_free(struct sb_mpi_ranks *s);

#endif
