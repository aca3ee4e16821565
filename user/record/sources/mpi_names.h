/* MPI calls named and tagged per scope-profiler's grammar (FORMAT.md, "MPI call regions"). */
#ifndef SB_MPI_NAMES_H
#define SB_MPI_NAMES_H

#include <stddef.h>
#include <linux/types.h>

#include "region.h"

#define SB_MPI_TAGS_MAX 384

/* The C function of an operation ("MPI_Send"), NULL when op is unknown. */
const char *sb_mpi_function(unsigned int op);
/* The operation's name in regions ("send", "init_thread"), NULL when op is unknown. */
const char *sb_mpi_op_name(unsigned int op);
/* "wait", "collective" or "point-to-point". */
const char *sb_mpi_kind(unsigned int op);

/*
 * The region name ("mpi:send kind=point-to-point bytes=800 peer=1 root=-1
 * tag=7 comm=0") and its tags, comma-separated ("mpi,mpi.kind:point-to-point,
 * ..."). -EINVAL for an unknown operation, -ENOSPC when a buffer is too small.
 */
int sb_mpi_format(const struct sb_mpi_event *e, char *name, size_t name_size, char *tags,
		  size_t tags_size);

/*
 * The tags of a region: tags as given, but for a name of the MPI grammar
 * tagged just "mpi" (the PMPI library's, mpi/pmpi.c), the tags
 * sb_mpi_format gives it, written to out (size bytes, SB_MPI_TAGS_MAX is
 * enough). user/record/sources/mpi_tags.c.
 */
const char *sb_mpi_region_tags(const char *name, const char *tags, char *out, size_t size);

#endif
