/* Sampled stacks in HDF5 (/scope_bpf/samples/, docs/FORMAT.md): write, read, validate. */
#ifndef SB_H5SAMPLES_H
#define SB_H5SAMPLES_H

#include <stddef.h>

#include <hdf5.h>

#include "util/error.h"
#include "model/model.h"

/*
 * Write p->samples under /scope_bpf/samples/ of the open file (nothing when
 * there is no sample row). The profile is needed for the rank count and the
 * thread rows the sample rows point at. path names the file in messages.
 * Returns 0 or -errno with "path: cause" in err.
 */
int sb_h5_write_samples(hid_t file, const char *path, const struct sb_profile *p,
			struct sb_error *err);

/*
 * Read /scope_bpf/samples/ of the open file into p->samples (left empty when
 * the group is absent). Call it once p's metadata, index and thread table are
 * read: sample rows are checked against them. The file is not trusted:
 * anything inconsistent returns -EINVAL with "path: cause" in err and leaves
 * p->samples empty.
 */
int sb_h5_read_samples(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err);

/*
 * The rules both sides enforce: frame ids below the frame count, stacks inside
 * stack_frames, every path's parent an earlier path (so paths form a forest),
 * sample ids in range or -1, ranks below the rank count (at least 1), threads
 * naming a thread row of their rank, sums that fit in 64 bits. Returns 0, or
 * -EINVAL with the broken rule in why.
 */
int sb_h5_check_samples(const struct sb_profile *p, char *why, size_t len);

#endif
