/* record's -o: %h, %p, %r and %% expanded, so one recorder per node can name its own file. */
#ifndef SB_OUTPATH_H
#define SB_OUTPATH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

/*
 * tmpl with %h as host cut at its first dot (the short host name), %p as pid,
 * %r as rank (or "x" when rank < 0) and %% as one %, into *out (malloc'd).
 * 0, -ENOMEM, or -EINVAL with err naming any other % sequence.
 */
int sb_outpath_expand(const char *tmpl, const char *host, pid_t pid, int64_t rank, char **out,
		      struct sb_error *err);

/* Whether tmpl asks for %field (a literal "%%field" does not). */
bool sb_outpath_wants(const char *tmpl, char field);

/*
 * The MPI rank the launcher gave process pid, from its environment
 * (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID, first found);
 * -1 when it has none or cannot be read.
 */
int64_t sb_outpath_rank_of(pid_t pid);

#endif
