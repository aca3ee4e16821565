/* record --aggregate's rows in HDF5 (/scope_bpf/aggregate/, docs/FORMAT.md): write, read. */
#ifndef SB_H5AGGREGATE_H
#define SB_H5AGGREGATE_H

#include <hdf5.h>

#include "util/error.h"
#include "model/model.h"

/*
 * Write p->agg under /scope_bpf/aggregate/ of the open file (nothing unless
 * p->agg.on). 0 or -errno with "path: cause" in err.
 */
int sb_h5_write_aggregate(hid_t file, const char *path, const struct sb_profile *p,
			  struct sb_error *err);

/*
 * Read /scope_bpf/aggregate/ into p->agg, which the file's storage_layout
 * "aggregate" requires; once the index and thread table are read. The file
 * is not trusted: -EINVAL with "path: cause" in err when it breaks a rule.
 */
int sb_h5_read_aggregate(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err);

#endif
