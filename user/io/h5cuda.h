/* CUDA activity in HDF5 (/scope_bpf/cuda/, docs/CUDA.md): write, read, validate. */
#ifndef SB_H5CUDA_H
#define SB_H5CUDA_H

#include <stddef.h>

#include <hdf5.h>

#include "util/error.h"
#include "model/model.h"

/*
 * Write p->cuda under /scope_bpf/cuda/ of the open file (nothing when it has
 * no activity). path names the file in messages. 0 or -errno with
 * "path: cause" in err.
 */
int sb_h5_write_cuda(hid_t file, const char *path, const struct sb_profile *p,
		     struct sb_error *err);

/*
 * Read /scope_bpf/cuda/ into p->cuda (left empty when the group is absent),
 * once p's index and thread table are read. The file is not trusted:
 * anything inconsistent returns -EINVAL with "path: cause" in err and leaves
 * p->cuda empty.
 */
int sb_h5_read_cuda(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err);

/*
 * The rules both sides enforce: kinds known, ranks below the rank count,
 * names, threads and pairs in range or -1 (a pair of the activity's rank),
 * end >= start. 0, or -EINVAL with the broken rule in why.
 */
int sb_h5_check_cuda(const struct sb_profile *p, char *why, size_t len);

#endif
