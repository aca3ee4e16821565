/* Reading scope-profiler native traces (.spt v1 and v2, either byte order) into the model. */
#ifndef SB_SPT_READ_H
#define SB_SPT_READ_H

#include "analysis/calltree.h"
#include "util/error.h"
#include "model/model.h"

#define SB_SPT_MAX_STRING (1u << 16)	/* bytes of a region or source file name */

/*
 * Read path, one rank's trace, into p (initialized here; the caller frees it
 * with sb_profile_free). The file is not trusted: anything inconsistent is
 * "path: cause" in err and returns -EINVAL, leaving p empty.
 */
int sb_spt_read(const char *path, struct sb_profile *p, struct sb_error *err);

/*
 * A report's call tree (or flat table, as o says) of the trace at path,
 * without holding its calls: p gets the regions, index rows and statistics
 * (p->events NULL), t what sb_calltree_build would make of the whole trace,
 * the calls merged by time from the file. Memory: the tree and 32 MiB of
 * buffers, plus 16 bytes a call of regions the file does not list by start.
 * Returns as sb_spt_read, or -ENOMEM with err set.
 */
int sb_spt_read_tree(const char *path, struct sb_profile *p, const struct sb_ct_opts *o,
		     struct sb_calltree *t, struct sb_error *err);

#endif
