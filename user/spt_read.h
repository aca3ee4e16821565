/* Reading scope-profiler native traces (.spt v1 and v2, either byte order) into the model. */
#ifndef SB_SPT_READ_H
#define SB_SPT_READ_H

#include "error.h"
#include "model.h"

#define SB_SPT_MAX_STRING (1u << 16)	/* bytes of a region or source file name */

/*
 * Read path, one rank's trace, into p (initialized here; the caller frees it
 * with sb_profile_free). The file is not trusted: anything inconsistent is
 * "path: cause" in err and returns -EINVAL, leaving p empty.
 */
int sb_spt_read(const char *path, struct sb_profile *p, struct sb_error *err);

#endif
