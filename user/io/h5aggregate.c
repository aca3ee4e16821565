/*
 * The rows of an aggregate recording under /scope_bpf/aggregate/: one per
 * (rank, thread, region path, window), each numeric column a dataset, the
 * histogram an (N, 64) table, the summed metric columns under values/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5aggregate.h"
#include "io/h5write.h"

#define GROUP "scope_bpf/aggregate"
#define MAX_ROWS (1ull << 32)	/* rows grow with paths and windows: far fewer than this */
#define N(a) (sizeof(a) / sizeof((a)[0]))

struct column {
	const char *name;
	bool is_u32;		/* else 64 bits, signed or not as the field */
	bool is_unsigned;
	size_t off;		/* in struct sb_agg_row */
};

#define COL(n, u32, u, f) { n, u32, u, offsetof(struct sb_agg_row, f) }

static const struct column cols[] = {
	COL("rank", true, true, rank),
	COL("thread", false, false, thread),
	COL("path", false, false, path),
	COL("window", false, false, window),
	COL("count", false, true, count),
	COL("total", false, false, total),
	COL("own", false, false, own),
	COL("min", false, false, min),
	COL("max", false, false, max),
};

static hid_t file_type(const struct column *c)
{
	return c->is_u32 ? H5T_STD_U32LE : c->is_unsigned ? H5T_STD_U64LE : H5T_STD_I64LE;
}

static hid_t mem_type(const struct column *c)
{
	return c->is_u32 ? H5T_NATIVE_UINT32 : c->is_unsigned ? H5T_NATIVE_UINT64 :
		H5T_NATIVE_INT64;
}

/* ---- writing ---- */

static int wfail(struct sb_h5w *w, const char *what)
{
	return sb_fail(w->err, EIO, "%s: cannot write %s", w->path, what);
}

/* The group's window_ns and origin_ns. */
static int put_window(struct sb_h5w *w, const struct sb_aggregate *a)
{
	hid_t g = H5Gopen2(w->file, GROUP, H5P_DEFAULT);
	int ret;

	if (g < 0)
		return wfail(w, GROUP);
	ret = sb_h5_put_attr_i64(w, g, "window_ns", a->window_ns);
	if (!ret)
		ret = sb_h5_put_attr_i64(w, g, "origin_ns", a->origin_ns);
	H5Gclose(g);
	return ret;
}

/* The histogram, gathered row by row into one (N, 64) table. */
static int write_hist(struct sb_h5w *w, const struct sb_aggregate *a)
{
	static const char name[] = GROUP "/histogram";
	hsize_t dim[2] = { a->n_rows, SB_AGG_BUCKETS };
	hid_t s, d = H5I_INVALID_HID;
	uint64_t *v;
	size_t i;
	int ret = 0;

	v = malloc((a->n_rows * SB_AGG_BUCKETS + 1) * sizeof(*v));
	if (!v)
		return sb_fail(w->err, ENOMEM, "%s: out of memory", w->path);
	for (i = 0; i < a->n_rows; i++)
		memcpy(v + i * SB_AGG_BUCKETS, a->rows[i].hist, sizeof(a->rows[i].hist));
	s = H5Screate_simple(2, dim, NULL);
	if (s >= 0)
		d = H5Dcreate2(w->file, name, H5T_STD_U64LE, s, H5P_DEFAULT, H5P_DEFAULT,
			       H5P_DEFAULT);
	if (d < 0 || (a->n_rows && H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
					     v) < 0))
		ret = wfail(w, name);
	if (d >= 0 && H5Dclose(d) < 0 && !ret)
		ret = wfail(w, name);
	if (s >= 0)
		H5Sclose(s);
	free(v);
	return ret;
}

/* Each summed metric column as values/<its name>: the names say which they are. */
static int write_values(struct sb_h5w *w, const struct sb_aggregate *a)
{
	char name[128];
	unsigned k;
	int ret;

	ret = sb_h5_make_group(w, GROUP "/values");
	for (k = 0; k < a->n_values && !ret; k++) {
		snprintf(name, sizeof(name), GROUP "/values/%s", sb_column(a->value_ids[k])->name);
		ret = sb_h5_put_field(w, name, H5T_STD_I64LE, H5T_NATIVE_INT64, a->values + k,
				      a->n_rows, a->n_values * sizeof(*a->values), 0);
	}
	return ret;
}

static int write_paths(struct sb_h5w *w, const struct sb_aggregate *a)
{
	int ret;

	ret = sb_h5_make_group(w, GROUP "/paths");
	if (!ret)
		ret = sb_h5_put_field(w, GROUP "/paths/parent", H5T_STD_I64LE, H5T_NATIVE_INT64,
				      a->paths, a->n_paths, sizeof(*a->paths),
				      offsetof(struct sb_region_path, parent));
	if (!ret)
		ret = sb_h5_put_strings(w, GROUP "/paths/name", a->paths, a->n_paths,
					sizeof(*a->paths), offsetof(struct sb_region_path, name));
	return ret;
}

int sb_h5_write_aggregate(hid_t file, const char *path, const struct sb_profile *p,
			  struct sb_error *err)
{
	struct sb_h5w w = { .path = path, .err = err, .file = file };
	const struct sb_aggregate *a = &p->agg;
	char why[256], name[64];
	size_t i;
	int ret;

	if (!a->on)
		return 0;
	if (sb_aggregate_check(a, sb_profile_rank_count(p), why, sizeof(why)))
		return sb_fail(err, EINVAL, "%s: cannot write an invalid aggregate: %s", path, why);
	ret = sb_h5_make_group(&w, "scope_bpf");
	if (!ret)
		ret = sb_h5_make_group(&w, GROUP);
	if (!ret)
		ret = put_window(&w, a);
	for (i = 0; i < N(cols) && !ret; i++) {
		snprintf(name, sizeof(name), GROUP "/%s", cols[i].name);
		ret = sb_h5_put_field(&w, name, file_type(&cols[i]), mem_type(&cols[i]), a->rows,
				      a->n_rows, sizeof(*a->rows), cols[i].off);
	}
	if (!ret)
		ret = write_hist(&w, a);
	if (!ret)
		ret = write_values(&w, a);
	return ret ? ret : write_paths(&w, a);
}

/* ---- reading ---- */

/*
 * Open dataset what, which must be of class cls with n rows of width values
 * (width 1: a 1-D column; n UINT64_MAX: any, then set). d stays open on success.
 */
static int open_set(struct sb_h5_section *r, const char *what, H5T_class_t cls, unsigned width,
		    uint64_t *n, hid_t *d)
{
	hid_t s = H5I_INVALID_HID, t = H5I_INVALID_HID;
	int rank = width > 1 ? 2 : 1, ret = 0;
	hsize_t dim[2] = { 0, 0 };

	if (H5Lexists(r->file, what, H5P_DEFAULT) <= 0)
		return sb_h5_corrupt(r, "%s is missing", what);
	*d = H5Dopen2(r->file, what, H5P_DEFAULT);
	if (*d < 0)
		return sb_h5_corrupt(r, "%s is not a dataset", what);
	s = H5Dget_space(*d);
	t = H5Dget_type(*d);
	if (s < 0 || t < 0 || H5Tget_class(t) != cls ||
	    (cls == H5T_STRING && H5Tis_variable_str(t) <= 0))
		ret = sb_h5_corrupt(r, "%s has the wrong type", what);
	else if (H5Sget_simple_extent_ndims(s) != rank ||
		 H5Sget_simple_extent_dims(s, dim, NULL) != rank || (rank == 2 && dim[1] != width))
		ret = sb_h5_corrupt(r, "%s is not a table of %u column%s", what, width,
			      width == 1 ? "" : "s");
	else if (dim[0] > MAX_ROWS || (*n != UINT64_MAX && dim[0] != *n))
		ret = sb_h5_corrupt(r, "%s has %llu rows, not %llu", what, (unsigned long long)dim[0],
			      (unsigned long long)*n);
	if (!ret)
		ret = sb_h5_check_storage(*d, t, dim[0] * width, r->file_size, r->path, what,
					  r->err);
	if (t >= 0)
		H5Tclose(t);
	if (s >= 0)
		H5Sclose(s);
	if (ret)
		H5Dclose(*d);
	*n = dim[0];
	return ret;
}

/* n rows of width integers of what into buf (n * width of mtype). */
static int read_ints(struct sb_h5_section *r, const char *what, unsigned width, hid_t mtype,
		     void *buf, uint64_t n)
{
	hid_t d;
	int ret;

	ret = open_set(r, what, H5T_INTEGER, width, &n, &d);
	if (ret)
		return ret;
	if (n && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
		ret = sb_h5_corrupt(r, "cannot read %s", what);
	H5Dclose(d);
	return ret;
}

static int read_column(struct sb_h5_section *r, const struct column *c, struct sb_aggregate *a)
{
	size_t sz = c->is_u32 ? 4 : 8, i;
	char what[64];
	char *v;
	int ret;

	snprintf(what, sizeof(what), "/" GROUP "/%s", c->name);
	v = malloc((a->n_rows + 1) * sz);
	if (!v)
		return sb_h5_section_nomem(r);
	ret = read_ints(r, what, 1, mem_type(c), v, a->n_rows);
	for (i = 0; i < a->n_rows && !ret; i++)
		memcpy((char *)&a->rows[i] + c->off, v + i * sz, sz);
	free(v);
	return ret;
}

static int read_hist(struct sb_h5_section *r, struct sb_aggregate *a)
{
	uint64_t *v;
	size_t i;
	int ret;

	v = malloc((a->n_rows * SB_AGG_BUCKETS + 1) * sizeof(*v));
	if (!v)
		return sb_h5_section_nomem(r);
	ret = read_ints(r, "/" GROUP "/histogram", SB_AGG_BUCKETS, H5T_NATIVE_UINT64, v,
			a->n_rows);
	for (i = 0; i < a->n_rows && !ret; i++)
		memcpy(a->rows[i].hist, v + i * SB_AGG_BUCKETS, sizeof(a->rows[i].hist));
	free(v);
	return ret;
}

/* values/<name> for each metric column this reader knows; others are passed over. */
static int read_values(struct sb_h5_section *r, struct sb_aggregate *a)
{
	unsigned id, k = 0;
	int64_t *col;
	char what[128];
	size_t i;
	int ret = 0;

	a->value_ids = calloc(SB_N_METRICS, sizeof(*a->value_ids));
	a->values = calloc(a->n_rows * SB_N_METRICS + 1, sizeof(*a->values));
	col = malloc((a->n_rows + 1) * sizeof(*col));
	if (!a->value_ids || !a->values || !col) {
		free(col);
		return sb_h5_section_nomem(r);
	}
	for (id = 0; id < SB_N_METRICS && !ret; id++) {
		snprintf(what, sizeof(what), "/" GROUP "/values/%s", sb_column(id)->name);
		if (H5Lexists(r->file, "/" GROUP "/values", H5P_DEFAULT) <= 0 ||
		    H5Lexists(r->file, what, H5P_DEFAULT) <= 0)
			continue;
		ret = read_ints(r, what, 1, H5T_NATIVE_INT64, col, a->n_rows);
		a->value_ids[k] = id;
		for (i = 0; i < a->n_rows && !ret; i++)
			a->values[i * SB_N_METRICS + k] = col[i];
		k++;
	}
	free(col);
	/* Rows were laid out SB_N_METRICS wide: packed to the k columns found. */
	for (i = 0; i < a->n_rows && !ret; i++)
		memmove(a->values + i * k, a->values + i * SB_N_METRICS, k * sizeof(*a->values));
	a->n_values = k;
	return ret;
}

static int read_paths(struct sb_h5_section *r, struct sb_aggregate *a)
{
	static const char parent[] = "/" GROUP "/paths/parent", name[] = "/" GROUP "/paths/name";
	uint64_t n = UINT64_MAX;
	int64_t *v;
	size_t i;
	hid_t d;
	int ret;

	ret = open_set(r, parent, H5T_INTEGER, 1, &n, &d);
	if (ret)
		return ret;
	H5Dclose(d);
	a->paths = calloc(n + 1, sizeof(*a->paths));
	v = malloc((n + 1) * sizeof(*v));
	if (!a->paths || !v) {
		free(v);
		return sb_h5_section_nomem(r);
	}
	ret = read_ints(r, parent, 1, H5T_NATIVE_INT64, v, n);
	for (i = 0; i < n && !ret; i++)
		a->paths[i].parent = v[i];
	free(v);
	if (!ret)
		ret = open_set(r, name, H5T_STRING, 1, &n, &d);
	if (ret)
		return ret;
	/* The count now, so that sb_aggregate_free releases what was read before a failure. */
	a->n_paths = n;
	ret = n ? sb_h5_get_strings(d, false, H5T_CSET_UTF8, a->paths, n, sizeof(*a->paths),
				    offsetof(struct sb_region_path, name)) : 0;
	H5Dclose(d);
	if (ret == -EIO)
		return sb_h5_corrupt(r, "cannot read %s", name);
	return ret ? sb_h5_section_nomem(r) : 0;
}

static int read_attr(struct sb_h5_section *r, const char *key, int64_t *v)
{
	hid_t a, t;
	int ret = 0;

	a = H5Aopen_by_name(r->file, "/" GROUP, key, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0)
		return sb_h5_corrupt(r, "/" GROUP " has no attribute %s", key);
	t = H5Aget_type(a);
	if (t < 0 || H5Tget_class(t) != H5T_INTEGER || H5Aread(a, H5T_NATIVE_INT64, v) < 0)
		ret = sb_h5_corrupt(r, "/" GROUP ": attribute %s is not an integer", key);
	if (t >= 0)
		H5Tclose(t);
	H5Aclose(a);
	return ret;
}

static int read_all(struct sb_h5_section *r, struct sb_aggregate *a)
{
	uint64_t n = UINT64_MAX;
	size_t i;
	hid_t d;
	int ret;

	ret = read_attr(r, "window_ns", &a->window_ns);
	if (!ret)
		ret = read_attr(r, "origin_ns", &a->origin_ns);
	/* The first column's length, backed by stored bytes, sizes the rows. */
	if (!ret)
		ret = open_set(r, "/" GROUP "/rank", H5T_INTEGER, 1, &n, &d);
	if (ret)
		return ret;
	H5Dclose(d);
	a->rows = calloc(n + 1, sizeof(*a->rows));
	if (!a->rows)
		return sb_h5_section_nomem(r);
	a->n_rows = n;
	for (i = 0; i < N(cols) && !ret; i++)
		ret = read_column(r, &cols[i], a);
	if (!ret)
		ret = read_hist(r, a);
	if (!ret)
		ret = read_values(r, a);
	return ret ? ret : read_paths(r, a);
}

int sb_h5_read_aggregate(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct sb_h5_section r = { file, path, err, 0 };
	char why[256];
	hsize_t size;
	int ret;

	if (H5Lexists(file, "scope_bpf", H5P_DEFAULT) <= 0 ||
	    H5Lexists(file, GROUP, H5P_DEFAULT) <= 0)
		return sb_h5_corrupt(&r, "storage_layout \"aggregate\" without /" GROUP);
	if (H5Fget_filesize(file, &size) < 0)
		return sb_h5_corrupt(&r, "cannot read the file size");
	r.file_size = size;
	ret = read_all(&r, &p->agg);
	if (!ret && sb_aggregate_check(&p->agg, sb_profile_rank_count(p), why, sizeof(why)))
		ret = sb_h5_corrupt(&r, "/" GROUP ": %s", why);
	return ret;
}
