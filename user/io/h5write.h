/* Writing a profile as scope-profiler schema 2 (columnar) HDF5, per docs/FORMAT.md. */
#ifndef SB_H5WRITE_H
#define SB_H5WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "util/error.h"
#include "model/model.h"

#define SB_H5_SCHEMA 2		/* scope_profiler_schema we write */
#define SB_H5_FORMAT 1		/* scope_bpf_format: version of our /scope_bpf extensions */

/*
 * Write p to path: events come from the stream (exactly p->n_events rows, in
 * file order; NULL when there are none), written in bounded chunks. The file
 * appears atomically: a failure leaves any previous file at path untouched.
 * Returns 0 or -errno with "path: cause" in err.
 */
/*
 * Whether path can take a profile: not an existing non-regular file, and
 * sb_tmpfile_check() says it can be written (as the sudo user under sudo).
 */
int sb_h5_check_target(const char *path, struct sb_error *err);

int sb_h5_write(const char *path, const struct sb_profile *p, struct sb_event_stream *events,
		struct sb_error *err);

/*
 * The same, compressing the event columns on at most threads threads (0: one
 * a CPU, io/h5chunks.h): a file written while the command runs takes 1, so
 * the command keeps its CPUs.
 */
int sb_h5_write_with(const char *path, const struct sb_profile *p, struct sb_event_stream *events,
		     unsigned threads, struct sb_error *err);

/* Shared with h5read.c: one HDF5 layout, described once. */

/* An optional event column exists when its bit is set in p->columns; bit 0 = always. */
struct sb_h5_event_column {
	const char *name;
	unsigned bit;
	size_t offset;		/* of the int64_t field in struct sb_event */
	int counter_id;		/* counter column: its id (values in counter rows); else -1 */
};

/* start, end, thread, call and parent ids; then the metric columns. */
#define SB_H5_N_ID_COLUMNS 5
#define SB_H5_MAX_EVENT_COLUMNS (SB_H5_N_ID_COLUMNS + SB_N_METRICS)

/*
 * The event columns in file order: the five above, then each registered
 * metric column by id (model/columns.h). Fills cols, returns how many.
 */
int sb_h5_event_columns(struct sb_h5_event_column *cols);

/* The on-disk summary_statistics row, packed in FORMAT.md's field order. */
struct sb_h5_stats {
	int64_t total;
	int64_t minimum;
	int64_t maximum;
	int64_t first;
	int64_t last;
	int64_t start_minimum;
	int64_t end_maximum;
	uint64_t gpu_count;
	int64_t gpu_total;
	double mean;
	double m2;
};

/* Compound type of struct sb_h5_stats: file (little-endian, packed) or native. */
hid_t sb_h5_stats_type(bool file);
/* Variable-length UTF-8 string type; the caller closes it. */
hid_t sb_h5_str_type(void);

/*
 * A memory selection of one field (offset off, elsize bytes) in each of n
 * structs of size stride, so columns move straight between HDF5 and the
 * model's arrays without gather buffers. n > 0; the caller closes it.
 */
hid_t sb_h5_field_space(uint64_t n, size_t stride, size_t off, size_t elsize);

/* A file being written: path names it in messages, never the temporary file. */
struct sb_h5w {
	const char *path;
	struct sb_error *err;
	hid_t file;
	unsigned threads;	/* compressing the event columns; 0: one a CPU */
};

/*
 * Write dataset name of w->file: field off (of type mtype) of each of n rows
 * of size stride at base, stored as ftype. Returns 0, or -EIO with
 * "path: cannot write name" in w->err.
 */
int sb_h5_put_field(struct sb_h5w *w, const char *name, hid_t ftype, hid_t mtype,
		    const void *base, size_t n, size_t stride, size_t off);

/* Group name of w->file, made unless it exists: 0, or -EIO with "path: cannot write name". */
int sb_h5_make_group(struct sb_h5w *w, const char *name);

/* Scalar int64 attribute key of obj: 0, or -EIO with "path: cannot write key". */
int sb_h5_put_attr_i64(struct sb_h5w *w, hid_t obj, const char *key, int64_t v);

/*
 * The same for the string (a char *) at field off of each row: NULL goes out
 * as "", invalid UTF-8 with each bad byte replaced. -ENOMEM or -EIO.
 */
int sb_h5_put_strings(struct sb_h5w *w, const char *name, const void *rows, size_t n,
		      size_t stride, size_t off);

/*
 * Read the n variable-length strings of dataset (or, with attr, attribute)
 * obj, as character set cset, into the char * at field off of each row of
 * size stride: a missing string as "", invalid UTF-8 with each bad byte
 * replaced by U+FFFD. 0, -ENOMEM, or -EIO when HDF5 cannot read them; rows
 * already filled are the caller's to free.
 */
int sb_h5_get_strings(hid_t obj, bool attr, H5T_cset_t cset, void *rows, size_t n, size_t stride,
		      size_t off);

/* A file whose /scope_bpf section (samples, CUDA, aggregates) is read: path names it. */
struct sb_h5_section {
	hid_t file;
	const char *path;
	struct sb_error *err;
	uint64_t file_size;	/* what declared lengths are checked against */
};

/* The file breaks FORMAT.md: "path: cause", -EINVAL. */
#define sb_h5_corrupt(r, ...) sb_fail_at((r)->err, EINVAL, (r)->path, __VA_ARGS__)

/* "path: out of memory", -ENOMEM. */
int sb_h5_section_nomem(const struct sb_h5_section *r);

/*
 * A header can claim any extent: 0 when n rows of type fit what dataset d
 * holds in a file of file_size bytes, else -EINVAL with "path: cause" in err.
 */
int sb_h5_check_storage(hid_t d, hid_t type, uint64_t n, uint64_t file_size, const char *path,
			const char *what, struct sb_error *err);

#endif
