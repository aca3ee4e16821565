/*
 * Blocking MPI collectives as clock witnesses: no rank leaves one before every
 * rank has entered it, whatever clock each rank's times are on. Found in the
 * index rows alone (first and last call of each row), never in the calls.
 */
#ifndef SB_MPI_SYNC_H
#define SB_MPI_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

/* MPICH's MPI_COMM_WORLD handle, as comm= names it (docs/MPI.md). */
#define SB_MPI_COMM_WORLD 1140850688

/* Metadata: per rank, leaving MPI_Init(_thread) and entering MPI_Finalize (docs/FORMAT.md). */
#define SB_META_MPI_RANK_TIMES "mpi_rank_times"

enum sb_mpi_sync {
	SB_SYNC_NONE,
	SB_SYNC_INIT,		/* MPI_Init, MPI_Init_thread */
	SB_SYNC_FINALIZE,
	SB_SYNC_COLLECTIVE,	/* MPI_Barrier; Allreduce, Allgather, Alltoall of some bytes */
};

/*
 * What region name (scope-profiler's MPI grammar) witnesses. Collectives count
 * on MPICH's COMM_WORLD only, where every rank takes part, and, but for a
 * barrier, with bytes > 0: an empty one may return at once.
 */
enum sb_mpi_sync sb_mpi_sync_kind(const char *name);

/* One call: when it was entered and left. */
struct sb_call_span {
	int64_t entry;
	int64_t exit;
};

/*
 * The first (earliest started) and the last call of index row p. The last
 * call is the one that ended last, its entry from the duration of the call
 * that started last: one thing for calls that follow each other, as one
 * rank's blocking collectives do. false when p has no calls or a time
 * overflows.
 */
bool sb_pair_first_call(const struct sb_pair *p, struct sb_call_span *s);
bool sb_pair_last_call(const struct sb_pair *p, struct sb_call_span *s);

/*
 * SB_META_MPI_RANK_TIMES of p: a JSON list, by rank, of
 * {"rank", "init_exit_ns", "finalize_entry_ns"}, -1 for what a rank did not
 * record; "[]" when no rank called either. NULL when out of memory.
 */
char *sb_mpi_rank_times_json(const struct sb_profile *p);

#endif
