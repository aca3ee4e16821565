/* The CUDA activity of a profile as columns under /scope_bpf/cuda/: written, read, checked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5cuda.h"
#include "io/h5write.h"

#define GROUP "scope_bpf/cuda"
#define MAX_ROWS (1ull << 34)		/* no column may declare more rows */

enum ctype { T_I64, T_I32, T_U32 };

struct column {
	const char *name;
	enum ctype type;
	size_t off;		/* of the field in struct sb_cuda_activity */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define COL(n, t, f) { n, t, offsetof(struct sb_cuda_activity, f) }

/* The 1-D columns, one row per activity; the first one sets the row count. */
static const struct column cols[] = {
	COL("ranks", T_U32, rank),
	COL("kinds", T_I32, kind),
	COL("devices", T_I64, device),
	COL("contexts", T_I64, context),
	COL("streams", T_I64, stream),
	COL("correlation_ids", T_I64, correlation),
	COL("start_times", T_I64, start),
	COL("end_times", T_I64, end),
	COL("name_ids", T_I64, name),
	COL("bytes", T_I64, bytes),
	COL("copy_kinds", T_I64, copy_kind),
	COL("details", T_I64, detail),
	COL("threads", T_I64, thread),
	COL("launch_start_times", T_I64, launch_start),
	COL("launch_end_times", T_I64, launch_end),
	COL("call_ids", T_I64, call_id),
	COL("pairs", T_I64, pair),
};

/* The (N,3) int32 columns: x, y, z of each kernel's grid and block. */
static const struct column dims[] = {
	COL("grids", T_I32, grid),
	COL("blocks", T_I32, block),
};

static hid_t file_type(enum ctype t)
{
	return t == T_I64 ? H5T_STD_I64LE : t == T_I32 ? H5T_STD_I32LE : H5T_STD_U32LE;
}

static hid_t mem_type(enum ctype t)
{
	return t == T_I64 ? H5T_NATIVE_INT64 : t == T_I32 ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32;
}

static int32_t *dims_of(struct sb_cuda_activity *a, const struct column *c)
{
	return (int32_t *)((char *)a + c->off);
}

/* ---- the rules ---- */

struct rules {
	const struct sb_profile *p;
	uint32_t ranks;
	const uint64_t *keys;
	size_t n_keys;
};

static int check_thread(const struct rules *ru, size_t i, const struct sb_cuda_activity *a,
			char *why, size_t len)
{
	if (a->thread < -1 || a->thread > UINT32_MAX)
		return sb_bad(why, len, "threads[%zu]: thread %lld out of range", i,
			      (long long)a->thread);
	/* Without a thread table (not recorded) there is nothing to point at, nothing to check. */
	if (a->thread == -1 || !ru->p->n_threads)
		return 0;
	if (!sb_thread_keys_have(ru->keys, ru->n_keys, a->rank, (uint64_t)a->thread))
		return sb_bad(why, len, "threads[%zu]: thread %lld is not a thread of rank %u", i,
			      (long long)a->thread, a->rank);
	return 0;
}

/* A launching call must be one of the rank's calls: its index row belongs to the same rank. */
static int check_launch(const struct rules *ru, size_t i, const struct sb_cuda_activity *a,
			char *why, size_t len)
{
	const struct sb_profile *p = ru->p;

	if (a->pair < -1 || (a->pair >= 0 && (uint64_t)a->pair >= p->n_pairs))
		return sb_bad(why, len, "pairs[%zu]: index row %lld out of range (%zu rows)", i,
			      (long long)a->pair, p->n_pairs);
	if (a->pair >= 0 && p->pairs[a->pair].rank != a->rank)
		return sb_bad(why, len, "pairs[%zu]: index row %lld is of rank %u, not rank %u", i,
			      (long long)a->pair, p->pairs[a->pair].rank, a->rank);
	if (a->call_id < -1)
		return sb_bad(why, len, "call_ids[%zu]: call id %lld is negative", i,
			      (long long)a->call_id);
	if (a->launch_start != -1 && a->launch_end < a->launch_start)
		return sb_bad(why, len, "launch_end_times[%zu]: launch ends before it starts", i);
	return 0;
}

static int check_sizes(size_t i, const struct sb_cuda_activity *a, char *why, size_t len)
{
	int k;

	if (a->bytes < -1)
		return sb_bad(why, len, "bytes[%zu]: %lld bytes", i, (long long)a->bytes);
	for (k = 0; k < 3; k++) {
		if (a->grid[k] < 0)
			return sb_bad(why, len, "grids[%zu]: negative dimension %d", i, a->grid[k]);
		if (a->block[k] < 0)
			return sb_bad(why, len, "blocks[%zu]: negative dimension %d", i,
				      a->block[k]);
	}
	return 0;
}

static int check_act(const struct rules *ru, size_t i, char *why, size_t len)
{
	const struct sb_cuda_data *d = &ru->p->cuda;
	const struct sb_cuda_activity *a = &d->acts[i];
	int ret;

	if (a->kind < SB_CUDA_ACT_KERNEL || a->kind > SB_CUDA_ACT_SYNC)
		return sb_bad(why, len, "kinds[%zu]: unknown kind %d", i, a->kind);
	if (a->rank >= ru->ranks)
		return sb_bad(why, len, "ranks[%zu]: rank %u out of range (%u ranks)", i, a->rank,
			      ru->ranks);
	if (a->end < a->start)
		return sb_bad(why, len, "end_times[%zu]: ends before it starts (%lld < %lld)", i,
			      (long long)a->end, (long long)a->start);
	if (a->name < -1 || (a->name >= 0 && (uint64_t)a->name >= d->n_names))
		return sb_bad(why, len, "name_ids[%zu]: name %lld out of range (%zu names)", i,
			      (long long)a->name, d->n_names);
	ret = check_sizes(i, a, why, len);
	if (!ret)
		ret = check_thread(ru, i, a, why, len);
	return ret ? ret : check_launch(ru, i, a, why, len);
}

int sb_h5_check_cuda(const struct sb_profile *p, char *why, size_t len)
{
	struct rules ru = { .p = p, .ranks = sb_profile_rank_count(p) };
	uint64_t *keys;
	size_t i;
	int ret = 0;

	/* A profile with activity but no region call still has its one process: rank 0. */
	if (ru.ranks < 1)
		ru.ranks = 1;
	if (ru.ranks > SB_MAX_RANK)
		ru.ranks = SB_MAX_RANK;
	keys = sb_profile_thread_keys(p, &ru.n_keys);
	if (!keys)
		return sb_bad(why, len, "out of memory");
	ru.keys = keys;
	for (i = 0; i < p->cuda.n_acts && !ret; i++)
		ret = check_act(&ru, i, why, len);
	free(keys);
	return ret;
}

/* ---- writing ---- */

/* Three int32 a row: gathered, since HDF5 has no selection of a field that is an array. */
static int write_dims(struct sb_h5w *w, const struct column *c, const struct sb_cuda_data *d)
{
	hsize_t dim[2] = { d->n_acts, 3 };
	hid_t s, ds = H5I_INVALID_HID;
	char name[64];
	int32_t *v;
	size_t i;
	int ret = 0;

	snprintf(name, sizeof(name), GROUP "/%s", c->name);
	v = malloc(d->n_acts * 3 * sizeof(*v));
	if (!v)
		return sb_fail(w->err, ENOMEM, "%s: out of memory", w->path);
	for (i = 0; i < d->n_acts; i++)
		memcpy(v + 3 * i, dims_of(&d->acts[i], c), 3 * sizeof(*v));
	s = H5Screate_simple(2, dim, NULL);
	if (s >= 0)
		ds = H5Dcreate2(w->file, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT,
				H5P_DEFAULT);
	if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
		ret = sb_fail(w->err, EIO, "%s: cannot write %s", w->path, name);
	if (ds >= 0 && H5Dclose(ds) < 0 && !ret)
		ret = sb_fail(w->err, EIO, "%s: cannot write %s", w->path, name);
	if (s >= 0)
		H5Sclose(s);
	free(v);
	return ret;
}

int sb_h5_write_cuda(hid_t file, const char *path, const struct sb_profile *p,
		     struct sb_error *err)
{
	struct sb_h5w w = { .path = path, .err = err, .file = file };
	const struct sb_cuda_data *d = &p->cuda;
	char why[256], name[64];
	size_t i;
	int ret;

	if (!d->n_acts)
		return 0;
	if (sb_h5_check_cuda(p, why, sizeof(why)))
		return sb_fail(err, EINVAL, "%s: cannot write invalid CUDA activity: %s", path, why);
	ret = sb_h5_make_group(&w, "scope_bpf");
	if (!ret)
		ret = sb_h5_make_group(&w, GROUP);
	for (i = 0; i < N(cols) && !ret; i++) {
		snprintf(name, sizeof(name), GROUP "/%s", cols[i].name);
		ret = sb_h5_put_field(&w, name, file_type(cols[i].type), mem_type(cols[i].type),
				      d->acts, d->n_acts, sizeof(*d->acts), cols[i].off);
	}
	for (i = 0; i < N(dims) && !ret; i++)
		ret = write_dims(&w, &dims[i], d);
	if (!ret)
		ret = sb_h5_put_strings(&w, GROUP "/names", d->names, d->n_names,
					sizeof(*d->names), 0);
	return ret;
}

/* ---- reading ---- */

/* The type, rank and extent a column must have; rank 2 means (n, 3). */
static int check_shape(struct sb_h5_section *r, const char *what, hid_t s, hid_t t, bool str, int rank,
		       hsize_t *dim)
{
	if (H5Tget_class(t) != (str ? H5T_STRING : H5T_INTEGER))
		return sb_h5_corrupt(r, "%s has the wrong type (%s expected)", what,
			       str ? "string" : "integer");
	if (str && H5Tis_variable_str(t) <= 0)
		return sb_h5_corrupt(r, "%s is not a variable-length string", what);
	if (H5Sget_simple_extent_ndims(s) != rank ||
	    H5Sget_simple_extent_dims(s, dim, NULL) != rank || (rank == 2 && dim[1] != 3))
		return sb_h5_corrupt(r, "%s is not %s", what, rank == 2 ? "an (N,3) table" : "a 1-D column");
	if (dim[0] > MAX_ROWS)
		return sb_h5_corrupt(r, "%s declares %llu rows (limit %llu)", what,
			       (unsigned long long)dim[0], MAX_ROWS);
	return 0;
}

/* Open a required dataset and learn its row count; d is left open only on success. */
static int open_column(struct sb_h5_section *r, const char *what, bool str, int rank, hid_t *d, uint64_t *n)
{
	hid_t s = H5I_INVALID_HID, t = H5I_INVALID_HID;
	hsize_t dim[2] = { 0, 0 };
	int ret;

	/* H5Lexists fails, rather than says no, when a group on the way is missing. */
	if (H5Lexists(r->file, what, H5P_DEFAULT) <= 0)
		return sb_h5_corrupt(r, "%s is missing", what);
	*d = H5Dopen2(r->file, what, H5P_DEFAULT);
	if (*d < 0)
		return sb_h5_corrupt(r, "%s is not a dataset", what);
	s = H5Dget_space(*d);
	t = H5Dget_type(*d);
	if (s < 0 || t < 0)
		ret = sb_h5_corrupt(r, "cannot read the header of %s", what);
	else
		ret = check_shape(r, what, s, t, str, rank, dim);
	if (!ret)
		ret = sb_h5_check_storage(*d, t, dim[0] * (rank == 2 ? 3 : 1), r->file_size,
					  r->path, what, r->err);
	if (t >= 0)
		H5Tclose(t);
	if (s >= 0)
		H5Sclose(s);
	if (ret) {
		H5Dclose(*d);
		*d = H5I_INVALID_HID;
	}
	*n = dim[0];
	return ret;
}

/* One required column of n rows into its field of each activity. */
static int read_column(struct sb_h5_section *r, const struct column *c, struct sb_cuda_data *dt, uint64_t n)
{
	char what[64];
	uint64_t len;
	hid_t d, ms;
	int ret;

	snprintf(what, sizeof(what), "/" GROUP "/%s", c->name);
	ret = open_column(r, what, false, 1, &d, &len);
	if (ret)
		return ret;
	if (len != n)
		ret = sb_h5_corrupt(r, "column lengths differ: %s has %llu rows, expected %llu", what,
			      (unsigned long long)len, (unsigned long long)n);
	ms = ret || !n ? H5I_INVALID_HID :
	     sb_h5_field_space(n, sizeof(*dt->acts), c->off, H5Tget_size(mem_type(c->type)));
	if (!ret && n && (ms < 0 ||
			  H5Dread(d, mem_type(c->type), ms, H5S_ALL, H5P_DEFAULT, dt->acts) < 0))
		ret = sb_h5_corrupt(r, "cannot read %s", what);
	if (ms >= 0)
		H5Sclose(ms);
	H5Dclose(d);
	return ret;
}

static int read_dims(struct sb_h5_section *r, const struct column *c, struct sb_cuda_data *dt, uint64_t n)
{
	int32_t *v = NULL;
	char what[64];
	uint64_t len, i;
	hid_t d;
	int ret;

	snprintf(what, sizeof(what), "/" GROUP "/%s", c->name);
	ret = open_column(r, what, false, 2, &d, &len);
	if (ret)
		return ret;
	if (len != n)
		ret = sb_h5_corrupt(r, "column lengths differ: %s has %llu rows, expected %llu", what,
			      (unsigned long long)len, (unsigned long long)n);
	if (!ret && n) {
		v = malloc(n * 3 * sizeof(*v));
		if (!v)
			ret = sb_h5_section_nomem(r);
		else if (H5Dread(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
			ret = sb_h5_corrupt(r, "cannot read %s", what);
	}
	for (i = 0; i < n && !ret; i++)
		memcpy(dims_of(&dt->acts[i], c), v + 3 * i, 3 * sizeof(*v));
	free(v);
	H5Dclose(d);
	return ret;
}

static int read_names(struct sb_h5_section *r, struct sb_cuda_data *dt)
{
	const char *what = "/" GROUP "/names";
	uint64_t n;
	hid_t d;
	int ret;

	ret = open_column(r, what, true, 1, &d, &n);
	if (ret)
		return ret;
	dt->names = calloc(n ? n : 1, sizeof(*dt->names));
	if (!dt->names) {
		H5Dclose(d);
		return sb_h5_section_nomem(r);
	}
	/* The count now, so that sb_cuda_data_free releases what was read before a failure. */
	dt->n_names = n;
	ret = n ? sb_h5_get_strings(d, false, H5T_CSET_UTF8, dt->names, n, sizeof(*dt->names), 0) :
		  0;
	H5Dclose(d);
	if (ret == -EIO)
		return sb_h5_corrupt(r, "cannot read %s", what);
	return ret ? sb_h5_section_nomem(r) : 0;
}

static int read_all(struct sb_h5_section *r, struct sb_cuda_data *dt)
{
	char what[64];
	uint64_t n;
	size_t i;
	hid_t d;
	int ret;

	/* The first column's length, backed by stored bytes, sizes the rows. */
	snprintf(what, sizeof(what), "/" GROUP "/%s", cols[0].name);
	ret = open_column(r, what, false, 1, &d, &n);
	if (ret)
		return ret;
	H5Dclose(d);
	dt->acts = calloc(n ? n : 1, sizeof(*dt->acts));
	if (!dt->acts)
		return sb_h5_section_nomem(r);
	dt->n_acts = n;
	for (i = 0; i < N(cols) && !ret; i++)
		ret = read_column(r, &cols[i], dt, n);
	for (i = 0; i < N(dims) && !ret; i++)
		ret = read_dims(r, &dims[i], dt, n);
	return ret ? ret : read_names(r, dt);
}

int sb_h5_read_cuda(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct sb_h5_section r = { file, path, err, 0 };
	char why[256];
	hsize_t size;
	int ret;

	memset(&p->cuda, 0, sizeof(p->cuda));
	if (H5Lexists(file, "scope_bpf", H5P_DEFAULT) <= 0 ||
	    H5Lexists(file, GROUP, H5P_DEFAULT) <= 0)
		return 0;
	if (H5Fget_filesize(file, &size) < 0)
		return sb_h5_corrupt(&r, "cannot read the file size");
	r.file_size = size;
	ret = read_all(&r, &p->cuda);
	if (!ret && sb_h5_check_cuda(p, why, sizeof(why)))
		ret = sb_h5_corrupt(&r, "/" GROUP "/%s", why);
	if (ret)
		sb_cuda_data_free(&p->cuda);
	return ret;
}
