/* Reading scope-profiler native traces (.spt v1 and v2, either byte order) into the model. */
#ifndef SB_SPT_READ_H
#define SB_SPT_READ_H

#include "util/error.h"
#include "model/model.h"

#define SB_SPT_MAX_STRING (1u << 16)	/* bytes of a region or source file name */

/*
 * Read path, one rank's trace, into p (initialized here; the caller frees it
 * with sb_profile_free). The file is not trusted: anything inconsistent is
 * "path: cause" in err and returns -EINVAL, leaving p empty.
 */
int sb_spt_read(const char *path, struct sb_profile *p, struct sb_error *err);

/* A trace's calls, one pass over them in nesting order, read from the file as they are needed. */
struct sb_spt_calls;

/*
 * Open the trace at path: p gets the regions, index rows and statistics
 * (p->events NULL), *c the calls, merged by time from the file. Memory: 32 MiB
 * of buffers, plus 16 bytes a call of regions the file does not list by
 * start. Returns as sb_spt_read (p left empty), or -ENOMEM with err set.
 * err also takes what the pass over the calls finds wrong.
 */
int sb_spt_calls_open(const char *path, struct sb_profile *p, struct sb_spt_calls **c,
		      struct sb_error *err);
struct sb_ordered_calls *sb_spt_calls_source(struct sb_spt_calls *c);
void sb_spt_calls_close(struct sb_spt_calls *c);

#endif
