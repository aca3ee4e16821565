/* Reading scope-profiler HDF5 profiles (schema 1, 2 and 3, ours and theirs) into the model. */
#ifndef SB_H5READ_H
#define SB_H5READ_H

#include "util/error.h"
#include "model/model.h"

/*
 * Read path fully into p (initialized here; the caller frees it with
 * sb_profile_free). The file is not trusted: anything inconsistent is
 * reported as "path: cause" in err and returns -errno, leaving p empty.
 */
int sb_h5_read(const char *path, struct sb_profile *p, struct sb_error *err);

/*
 * Leave the events on disk (p->events NULL, p->n_events set): they are
 * checked and the statistics finished in one pass holding a few hundred KiB.
 * Schema 1, and index rows not in event order, still read them into memory.
 */
#define SB_H5_READ_LEAN 1u

int sb_h5_read_opts(const char *path, struct sb_profile *p, unsigned flags, struct sb_error *err);

/* The events of p, read with SB_H5_READ_LEAN from path, one pass at a time. */
struct sb_h5_source {
	struct sb_event_source base;
	const char *path;
	const struct sb_profile *p;
};

void sb_h5_source_init(struct sb_h5_source *s, const char *path, const struct sb_profile *p);

#endif
