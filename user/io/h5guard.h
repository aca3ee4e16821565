/* Untrusted HDF5 read in a child process: whatever libhdf5 does, the caller gets one error. */
#ifndef SB_H5GUARD_H
#define SB_H5GUARD_H

#include "util/error.h"
#include "model/model.h"

/*
 * sb_h5_read_opts(path, p, flags, err) in a child process, its address space
 * capped to what a file of this size can need, that sends the profile back
 * through a pipe; this process decodes it with every length checked and
 * never runs libhdf5 on the file. A crash or abort inside the library, a
 * read that goes silent past a watchdog sized from the file (an endless
 * loop, an external link to a FIFO) or one that needs more memory than the
 * cap ends the child, and comes back as -EINVAL with "path: corrupt HDF5
 * file (why)" in err. Otherwise returns what sb_h5_read_opts() does.
 */
int sb_h5_read_guarded(const char *path, struct sb_profile *p, unsigned flags,
		       struct sb_error *err);

/*
 * The events of p, read with SB_H5_READ_LEAN by sb_h5_read_guarded(), one pass
 * at a time: each pass reads the file in a child of its own, under the same
 * limits, and only the columns asked for come through the pipe.
 */
struct sb_h5_guarded_source {
	struct sb_event_source base;
	const char *path;
	const struct sb_profile *p;
};

void sb_h5_guarded_source_init(struct sb_h5_guarded_source *s, const char *path,
			       const struct sb_profile *p);

/*
 * For tests: a child about to read the file this variable names aborts, as
 * libhdf5 does when it finds the heap it corrupted (no file is known to make
 * the Debian 12 library do so reliably). "PATH": every child reading PATH;
 * "read:PATH", "pass:PATH": only the whole or lean read, only the passes.
 */
#define SB_H5_TEST_ABORT_ENV "SCOPE_BPF_TEST_ABORT_READING"

#endif
