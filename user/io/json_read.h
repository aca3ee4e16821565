/* Reading scope-profiler JSON profiles (format_version 1) into the model. */
#ifndef SB_JSON_READ_H
#define SB_JSON_READ_H

#include "util/error.h"
#include "model/model.h"

#define SB_JSON_MAX_FILE (1ull << 30)	/* larger JSON files are refused, not loaded */
#define SB_JSON_MAX_META 4096		/* metadata members */

/*
 * Read path into p (initialized here; the caller frees it with
 * sb_profile_free). The file is not trusted: anything that is not strict
 * JSON or not the scope-profiler layout is "path: cause" in err and returns
 * -EINVAL, leaving p empty.
 */
int sb_json_read(const char *path, struct sb_profile *p, struct sb_error *err);

#endif
