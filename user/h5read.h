/* Reading scope-profiler HDF5 profiles (schema 1, 2 and 3, ours and theirs) into the model. */
#ifndef SB_H5READ_H
#define SB_H5READ_H

#include "error.h"
#include "model.h"

/*
 * Read path fully into p (initialized here; the caller frees it with
 * sb_profile_free). The file is not trusted: anything inconsistent is
 * reported as "path: cause" in err and returns -errno, leaving p empty.
 */
int sb_h5_read(const char *path, struct sb_profile *p, struct sb_error *err);

#endif
