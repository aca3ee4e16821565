/*
 * Any kind of data described as tables (model/table.h) in HDF5: each column
 * a dataset under the kind's group, 1-D or (N, width), written and read from
 * the description alone. The file is not trusted: shapes, types, lengths and
 * stored bytes are checked before anything is allocated.
 */
#ifndef SB_H5TABLE_H
#define SB_H5TABLE_H

#include <stdbool.h>

#include <hdf5.h>

#include "io/h5write.h"
#include "model/model.h"
#include "model/table.h"

/* Whether the file has the kind's group (H5Lexists fails on a missing parent: asked one by one). */
bool sb_h5_kind_present(hid_t file, const struct sb_kind *k);

/* The kind's group and tables from its data d: 0 or -errno with "path: cause" in w->err. */
int sb_h5_write_kind(struct sb_h5w *w, const struct sb_kind *k, const void *d);

/*
 * The kind's tables into d (zeroed by the caller), once the group is known
 * to be there. Every table's array and length are set as soon as allocated,
 * so that the kind's free releases what was read before a failure. 0, or
 * -EINVAL / -ENOMEM with "path: cause" in r->err.
 */
int sb_h5_read_kind(struct sb_h5_section *r, const struct sb_kind *k, void *d);

/* One table of the kind: what sb_h5_write_kind and sb_h5_read_kind do for each. */
int sb_h5_write_table(struct sb_h5w *w, const struct sb_kind *k, const struct sb_table *t,
		      const void *d);
int sb_h5_read_table(struct sb_h5_section *r, const struct sb_kind *k, const struct sb_table *t,
		     void *d);

/*
 * Every recorded kind of p (model/data_kinds.c) under its group, after its rules
 * are checked: 0, or -errno with "path: cause" in err.
 */
int sb_h5_write_kinds(hid_t file, const char *path, const struct sb_profile *p,
		      struct sb_error *err);

/*
 * Every kind the file has into p (each left empty when its group is absent),
 * once p's index and thread table are read. Anything inconsistent returns
 * -EINVAL with "path: cause" in err and leaves that kind empty.
 */
int sb_h5_read_kinds(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err);

#endif
