/*
 * The tags of an MPI call region the PMPI library began (mpi/pmpi.c): its
 * markers carry 127 bytes of tags, less than an MPI call's, so they say just
 * "mpi" and the region gets the uprobe path's tags from its name here.
 */
#include <string.h>

#include "analysis/mpi_name.h"
#include "record/sources/mpi_names.h"

/* The operation named op in regions ("send"), -1 when none is. */
static int op_of(const char *op)
{
	unsigned int i;

	for (i = 0; i < SB_MPI_N_OPS; i++) {
		if (!strcmp(sb_mpi_op_name(i), op))
			return (int)i;
	}
	return -1;
}

const char *sb_mpi_region_tags(const char *name, const char *tags, char *out, size_t size)
{
	char again[SB_NAME_MAX], full[SB_MPI_TAGS_MAX];
	struct sb_mpi_event e = { .type = SB_EV_MPI, .request = -1 };
	struct sb_mpi_call c;
	int op;

	if (!tags || strcmp(tags, "mpi") || sb_mpi_parse(name, &c))
		return tags;
	op = op_of(c.op);
	if (op < 0 || (c.request[0] && (e.request = op_of(c.request)) < 0))
		return tags;
	e.op = (unsigned int)op;
	e.bytes = c.bytes;
	e.peer = (int32_t)c.peer;
	e.root = (int32_t)c.root;
	e.tag = (int32_t)c.tag;
	e.comm = (int32_t)c.comm;
	/* Only a name the uprobe path would have made gets its tags. */
	if (sb_mpi_format(&e, again, sizeof(again), full, sizeof(full)) || strcmp(again, name) ||
	    strlen(full) >= size)
		return tags;
	memcpy(out, full, strlen(full) + 1);
	return out;
}
