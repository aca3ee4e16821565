/* record's -o: %h, %p, %r, %n and %% expanded, so each recorder and file has its own name. */
#ifndef SB_OUTPATH_H
#define SB_OUTPATH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

/* What -o's fields stand for in one file of one recording. */
struct sb_outpath_fields {
	const char *host;	/* %h: the short host name (cut at the first dot) */
	pid_t pid;		/* %p */
	int64_t rank;		/* %r: the process's MPI rank, "x" when < 0 */
	const char *ranks;	/* %r under -a: the --ranks list as written; NULL: rank */
	int64_t index;		/* %n: record --rotate's file number; < 0: %n refused */
};

/*
 * tmpl with each field of v expanded and %% as one %, into *out (malloc'd).
 * 0, -ENOMEM, or -EINVAL with err naming any other % sequence.
 */
int sb_outpath_expand(const char *tmpl, const struct sb_outpath_fields *v, char **out,
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
