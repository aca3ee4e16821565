/* Write a profile as scope-profiler schema 2 (columnar) HDF5, atomically, streaming the events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/h5chunks.h"
#include "io/h5counters.h"
#include "io/h5aggregate.h"
#include "io/h5table.h"
#include "io/h5write.h"
#include "util/utf8.h"
#include "io/tmpfile.h"
#include "model/index_rules.h"

/* Rows per event write: bounds memory however long the trace is. */
#define EVENT_CHUNK 65536

/*
 * An event column's chunk, in rows: what create_event_column gives the
 * dataset is what stream_events writes whole, so both take it from here.
 */
static size_t event_chunk_rows(size_t n_events)
{
	return n_events < EVENT_CHUNK ? n_events : EVENT_CHUNK;
}

_Static_assert(sizeof(struct sb_event) == (SB_H5_N_ID_COLUMNS + SB_N_ROW_METRICS) * sizeof(int64_t),
	       "sb_event: packed int64 columns");
_Static_assert(sizeof(struct sb_h5_stats) == 11 * 8, "sb_h5_stats must be packed");

static const struct sb_h5_event_column id_columns[SB_H5_N_ID_COLUMNS] = {
	{ "start_times", 0, offsetof(struct sb_event, start), -1 },
	{ "end_times", 0, offsetof(struct sb_event, end), -1 },
	{ "thread_ids", SB_COL_THREAD, offsetof(struct sb_event, thread), -1 },
	{ "call_ids", SB_COL_CALL_ID, offsetof(struct sb_event, call_id), -1 },
	{ "parent_ids", SB_COL_PARENT_ID, offsetof(struct sb_event, parent_id), -1 },
};

int sb_h5_event_columns(struct sb_h5_event_column *cols)
{
	unsigned id;

	memcpy(cols, id_columns, sizeof(id_columns));
	for (id = 0; id < SB_N_METRICS; id++)
		cols[SB_H5_N_ID_COLUMNS + id] = id < SB_N_ROW_METRICS ?
			(struct sb_h5_event_column){
				sb_column(id)->name, SB_COL_METRIC(id),
				offsetof(struct sb_event, metric) + id * sizeof(int64_t), -1
			} :
			(struct sb_h5_event_column){ sb_column(id)->name, SB_COL_METRIC(id), 0,
						     (int)id };
	return SB_H5_N_ID_COLUMNS + SB_N_METRICS;
}

/*
 * HDF5 hides why a write failed; errno still tells a full disk (or quota, file
 * size limit, I/O error), the cause a user can act on. Other values may be
 * stale leftovers of HDF5's own probing, so they are not shown.
 */
static int storage_errno(void)
{
	return errno == ENOSPC || errno == EDQUOT || errno == EFBIG || errno == EIO ? errno : 0;
}

static int h5fail(struct sb_h5w *w, const char *what)
{
	int e = storage_errno();

	if (e)
		return sb_fail(w->err, e, "%s: cannot write %s: %s", w->path, what, strerror(e));
	return sb_fail(w->err, EIO, "%s: cannot write %s", w->path, what);
}

int sb_h5_section_nomem(const struct sb_h5_section *r)
{
	return sb_fail(r->err, ENOMEM, "%s: out of memory", r->path);
}

static int nomem(struct sb_h5w *w)
{
	return sb_fail(w->err, ENOMEM, "%s: out of memory", w->path);
}

/* ---- shared helpers ---- */

hid_t sb_h5_str_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t < 0)
		return t;
	if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
	    H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
		H5Tclose(t);
		return H5I_INVALID_HID;
	}
	return t;
}

hid_t sb_h5_stats_type(bool file)
{
	static const struct {
		const char *name;
		size_t off;
		char kind;	/* i: int64, u: uint64, f: double */
	} f[] = {
		{ "total", offsetof(struct sb_h5_stats, total), 'i' },
		{ "minimum", offsetof(struct sb_h5_stats, minimum), 'i' },
		{ "maximum", offsetof(struct sb_h5_stats, maximum), 'i' },
		{ "first", offsetof(struct sb_h5_stats, first), 'i' },
		{ "last", offsetof(struct sb_h5_stats, last), 'i' },
		{ "start_minimum", offsetof(struct sb_h5_stats, start_minimum), 'i' },
		{ "end_maximum", offsetof(struct sb_h5_stats, end_maximum), 'i' },
		{ "gpu_count", offsetof(struct sb_h5_stats, gpu_count), 'u' },
		{ "gpu_total", offsetof(struct sb_h5_stats, gpu_total), 'i' },
		{ "mean", offsetof(struct sb_h5_stats, mean), 'f' },
		{ "m2", offsetof(struct sb_h5_stats, m2), 'f' },
	};
	hid_t t, ft;
	size_t i;

	t = H5Tcreate(H5T_COMPOUND, sizeof(struct sb_h5_stats));
	if (t < 0)
		return t;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].kind == 'i')
			ft = file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
		else if (f[i].kind == 'u')
			ft = file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
		else
			ft = file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
		/* All fields are 8 bytes, so the native offsets are also the packed ones. */
		if (H5Tinsert(t, f[i].name, f[i].off, ft) < 0) {
			H5Tclose(t);
			return H5I_INVALID_HID;
		}
	}
	return t;
}

hid_t sb_h5_field_space(uint64_t n, size_t stride, size_t off, size_t elsize)
{
	hsize_t dim, start, step, count = n;
	hid_t s;

	if (!n || !elsize || stride % elsize || off % elsize || off + elsize > stride)
		return H5I_INVALID_HID;
	step = stride / elsize;
	dim = n * step;
	start = off / elsize;
	s = H5Screate_simple(1, &dim, NULL);
	if (s < 0)
		return s;
	if (H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, &step, &count, NULL) < 0) {
		H5Sclose(s);
		return H5I_INVALID_HID;
	}
	return s;
}

/* Compressed chunks never expand more than deflate's ~1000:1; a header claiming more lies. */
#define CHUNK_RATIO 2048
#define CHUNK_SLACK (1ull << 20)

int sb_h5_check_storage(hid_t d, hid_t type, uint64_t n, uint64_t file_size, const char *path,
			const char *what, struct sb_error *err)
{
	uint64_t stored, need, limit;
	H5D_layout_t layout;
	hid_t dcpl;

	if (__builtin_mul_overflow(n, (uint64_t)H5Tget_size(type), &need))
		return sb_fail_at(err, EINVAL, path, "%s declares too many rows", what);
	stored = H5Dget_storage_size(d);
	if (stored > file_size)
		return sb_fail_at(err, EINVAL, path,
				  "%s claims %llu bytes, more than the file holds", what,
				  (unsigned long long)stored);
	dcpl = H5Dget_create_plist(d);
	if (dcpl < 0)
		return sb_fail_at(err, EINVAL, path, "cannot read the layout of %s", what);
	layout = H5Pget_layout(dcpl);
	H5Pclose(dcpl);
	limit = layout == H5D_CHUNKED ? stored * CHUNK_RATIO + CHUNK_SLACK : stored;
	if (need > limit)
		return sb_fail_at(err, EINVAL, path,
				  "%s declares %llu rows but holds only %llu bytes", what,
				  (unsigned long long)n, (unsigned long long)stored);
	return 0;
}

/* Everything the writer dereferences must be there; the index must follow FORMAT.md. */
static int validate(const char *path, const struct sb_profile *p, struct sb_error *err)
{
	char why[256];
	size_t i;
	int ret;

	for (i = 0; i < p->n_regions; i++)
		if (!p->regions[i].name)
			return sb_fail(err, EINVAL, "%s: region %zu has no name", path, i);
	for (i = 0; i < p->n_meta; i++)
		if (!p->meta[i].key || !*p->meta[i].key)
			return sb_fail(err, EINVAL, "%s: metadata entry %zu has no key", path, i);
	ret = sb_profile_check_index(p, why, sizeof(why));
	if (ret)
		return sb_fail(err, ret, "%s: cannot write an invalid profile: %s", path, why);
	return 0;
}

/* ---- columns and attributes ---- */

static hid_t create_column(struct sb_h5w *w, const char *name, hid_t ftype, size_t n)
{
	hsize_t dim = n;
	hid_t s, d;

	s = H5Screate_simple(1, &dim, NULL);
	if (s < 0)
		return s;
	d = H5Dcreate2(w->file, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Sclose(s);
	return d;
}

int sb_h5_put_field(struct sb_h5w *w, const char *name, hid_t ftype, hid_t mtype,
		    const void *base, size_t n, size_t stride, size_t off)
{
	hid_t d, ms = H5I_INVALID_HID;
	int ret = 0;

	d = create_column(w, name, ftype, n);
	if (d < 0)
		return h5fail(w, name);
	if (n) {
		ms = sb_h5_field_space(n, stride, off, H5Tget_size(mtype));
		if (ms < 0 || H5Dwrite(d, mtype, ms, H5S_ALL, H5P_DEFAULT, base) < 0)
			ret = h5fail(w, name);
	}
	if (ms >= 0)
		H5Sclose(ms);
	if (H5Dclose(d) < 0 && !ret)
		ret = h5fail(w, name);
	return ret;
}

static int put_int64s(struct sb_h5w *w, const char *name, const int64_t *v, size_t n)
{
	return sb_h5_put_field(w, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v, n, sizeof(*v), 0);
}

/* Row i's string; one "" for all NULLs, so that put_strings() knows what it did not copy. */
static const char *string_at(const void *rows, size_t i, size_t stride, size_t off)
{
	static const char empty[] = "";
	const char *s = *(const char *const *)((const char *)rows + i * stride + off);

	return s ? s : empty;
}

/* The file says UTF-8 and readers decode it so: replace what is not, rather than lose the file. */
static char *valid_or_dup(const char *s)
{
	return sb_utf8_valid(s) ? (char *)s : sb_utf8_repaired(s);
}

int sb_h5_put_strings(struct sb_h5w *w, const char *name, const void *rows, size_t n,
		      size_t stride, size_t off)
{
	char **tmp;
	hid_t t = H5I_INVALID_HID;
	size_t i;
	int ret = 0;

	tmp = calloc(n ? n : 1, sizeof(*tmp));
	if (!tmp)
		return nomem(w);
	for (i = 0; i < n && !ret; i++) {
		tmp[i] = valid_or_dup(string_at(rows, i, stride, off));
		if (!tmp[i])
			ret = nomem(w);
	}
	if (ret)
		goto out;
	t = sb_h5_str_type();
	if (t < 0)
		ret = h5fail(w, name);
	else
		ret = sb_h5_put_field(w, name, t, t, tmp, n, sizeof(*tmp), 0);
out:
	for (i = 0; i < n; i++)
		if (tmp[i] != string_at(rows, i, stride, off))
			free(tmp[i]);
	free(tmp);
	if (t >= 0)
		H5Tclose(t);
	return ret;
}

int sb_h5_get_strings(hid_t obj, bool attr, H5T_cset_t cset, void *rows, size_t n, size_t stride,
		      size_t off)
{
	char **raw, **dst;
	hid_t mt, space;
	herr_t rc;
	size_t i;
	int ret = 0;

	raw = calloc(n ? n : 1, sizeof(*raw));
	mt = sb_h5_str_type();
	if (!raw || mt < 0) {
		ret = -ENOMEM;
		goto out;
	}
	H5Tset_cset(mt, cset);
	rc = attr ? H5Aread(obj, mt, raw) : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw);
	if (rc < 0)
		ret = -EIO;
	for (i = 0; i < n && !ret; i++) {
		dst = (char **)((char *)rows + i * stride + off);
		*dst = sb_utf8_repaired(raw[i] ? raw[i] : "");
		if (!*dst)
			ret = -ENOMEM;
	}
	/* A failed read may have filled some rows: reclaim always (NULL rows are skipped). */
	space = attr ? H5Aget_space(obj) : H5Dget_space(obj);
	if (space >= 0) {
		H5Dvlen_reclaim(mt, space, H5P_DEFAULT, raw);
		H5Sclose(space);
	}
out:
	if (mt >= 0)
		H5Tclose(mt);
	free(raw);
	return ret;
}

static int put_strings(struct sb_h5w *w, const char *name, const char *const *v, size_t n)
{
	return sb_h5_put_strings(w, name, v, n, sizeof(*v), 0);
}

static int put_attr(struct sb_h5w *w, hid_t obj, const char *key, hid_t ftype, hid_t mtype,
		    const void *value)
{
	hid_t s = H5I_INVALID_HID, acpl = H5I_INVALID_HID, a = H5I_INVALID_HID;
	char *name;
	int ret = 0;

	name = valid_or_dup(key);
	if (!name)
		return nomem(w);
	s = H5Screate(H5S_SCALAR);
	acpl = H5Pcreate(H5P_ATTRIBUTE_CREATE);
	/* Keys are UTF-8 too, so h5py shows non-ASCII names as text. */
	if (s < 0 || acpl < 0 || H5Pset_char_encoding(acpl, H5T_CSET_UTF8) < 0)
		goto fail;
	a = H5Acreate2(obj, name, ftype, s, acpl, H5P_DEFAULT);
	if (a < 0 || H5Awrite(a, mtype, value) < 0)
		goto fail;
	goto out;
fail:
	ret = sb_fail(w->err, EIO, "%s: cannot write attribute '%s'", w->path, name);
out:
	if (a >= 0)
		H5Aclose(a);
	if (acpl >= 0)
		H5Pclose(acpl);
	if (s >= 0)
		H5Sclose(s);
	if (name != key)
		free(name);
	return ret;
}

int sb_h5_put_attr_i64(struct sb_h5w *w, hid_t obj, const char *key, int64_t v)
{
	return put_attr(w, obj, key, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

static int put_attr_str(struct sb_h5w *w, hid_t obj, const char *key, const char *v)
{
	const char *src = v ? v : "";
	char *s = valid_or_dup(src);
	hid_t t;
	int ret;

	if (!s)
		return nomem(w);
	t = sb_h5_str_type();
	ret = t < 0 ? h5fail(w, key) : put_attr(w, obj, key, t, t, &s);
	if (t >= 0)
		H5Tclose(t);
	if (s != src)
		free(s);
	return ret;
}

int sb_h5_make_group(struct sb_h5w *w, const char *name)
{
	hid_t g;

	if (H5Lexists(w->file, name, H5P_DEFAULT) > 0)
		return 0;
	g = H5Gcreate2(w->file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return h5fail(w, name);
	H5Gclose(g);
	return 0;
}

/* ---- the sections of the file ---- */

static int write_root(struct sb_h5w *w, const struct sb_profile *p)
{
	hid_t root = H5Gopen2(w->file, "/", H5P_DEFAULT);
	int ret;

	if (root < 0)
		return h5fail(w, "/");
	ret = sb_h5_put_attr_i64(w, root, "scope_profiler_schema", SB_H5_SCHEMA);
	if (!ret)
		ret = put_attr_str(w, root, "storage_layout", p->agg.on ? "aggregate" : "columnar");
	if (!ret)
		ret = sb_h5_put_attr_i64(w, root, "scope_bpf_format", SB_H5_FORMAT);
	H5Gclose(root);
	return ret;
}

static int write_metadata(struct sb_h5w *w, const struct sb_profile *p)
{
	const struct sb_meta *m;
	hid_t g;
	size_t i;
	int ret = 0;

	g = H5Gcreate2(w->file, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return h5fail(w, "/metadata");
	for (i = 0; i < p->n_meta && !ret; i++) {
		m = &p->meta[i];
		if (m->is_int)
			ret = sb_h5_put_attr_i64(w, g, m->key, m->i);
		else
			ret = put_attr_str(w, g, m->key, m->s);
	}
	/* The reader counts ranks as max(mpi_size, highest rank + 1): always give it one. */
	if (!ret && !sb_profile_meta(p, "mpi_size"))
		ret = sb_h5_put_attr_i64(w, g, "mpi_size", sb_profile_rank_count(p));
	H5Gclose(g);
	return ret;
}

static int write_names(struct sb_h5w *w, const struct sb_profile *p)
{
	const char **v;
	size_t i;
	int ret;

	v = calloc(p->n_regions ? p->n_regions : 1, sizeof(*v));
	if (!v)
		return nomem(w);
	for (i = 0; i < p->n_regions; i++)
		v[i] = p->regions[i].name;
	ret = sb_h5_make_group(w, "region_table");
	if (!ret)
		ret = put_strings(w, "region_table/names", v, p->n_regions);
	free(v);
	return ret;
}

/* Each row carries its region's source location: the model keeps one per region. */
static int write_locations(struct sb_h5w *w, const struct sb_profile *p)
{
	const struct sb_region *r;
	int64_t *lines;
	const char **v;
	size_t i, n = p->n_pairs;
	int ret;

	lines = calloc(n ? n : 1, sizeof(*lines));
	v = calloc(n ? n : 1, sizeof(*v));
	if (!lines || !v) {
		ret = nomem(w);
		goto out;
	}
	for (i = 0; i < n; i++)
		lines[i] = p->regions[p->pairs[i].region].source_line;
	ret = put_int64s(w, "rank_region_index/source_lines", lines, n);
	for (i = 0; i < n && !ret; i++)
		v[i] = p->regions[p->pairs[i].region].source_file;
	if (!ret)
		ret = put_strings(w, "rank_region_index/source_files", v, n);
	for (i = 0; i < n && !ret; i++)
		v[i] = p->regions[p->pairs[i].region].source_text;
	if (!ret)
		ret = put_strings(w, "rank_region_index/source_texts", v, n);
	for (i = 0; i < n && !ret; i++) {
		r = &p->regions[p->pairs[i].region];
		v[i] = r->tags && *r->tags ? r->tags : "[]";
	}
	if (!ret)
		ret = put_strings(w, "rank_region_index/tags", v, n);
out:
	free(lines);
	free(v);
	return ret;
}

static int write_stats(struct sb_h5w *w, const struct sb_profile *p)
{
	static const char name[] = "rank_region_index/summary_statistics";
	struct sb_h5_stats *rows;
	const struct sb_stats *s;
	hid_t ft, mt;
	size_t i;
	int ret;

	rows = calloc(p->n_pairs ? p->n_pairs : 1, sizeof(*rows));
	if (!rows)
		return nomem(w);
	for (i = 0; i < p->n_pairs; i++) {
		s = &p->pairs[i].stats;
		rows[i] = (struct sb_h5_stats){ s->total, s->minimum, s->maximum, s->first, s->last,
						s->start_minimum, s->end_maximum, s->gpu_count,
						s->gpu_total, s->mean, s->m2 };
	}
	ft = sb_h5_stats_type(true);
	mt = sb_h5_stats_type(false);
	if (ft < 0 || mt < 0)
		ret = h5fail(w, name);
	else
		ret = sb_h5_put_field(w, name, ft, mt, rows, p->n_pairs, sizeof(*rows), 0);
	if (ft >= 0)
		H5Tclose(ft);
	if (mt >= 0)
		H5Tclose(mt);
	free(rows);
	return ret;
}

/*
 * An aggregate's rows point at no event (scope-profiler's aggregate layout):
 * event_counts 0, the calls in aggregate_counts.
 */
static int write_aggregate_counts(struct sb_h5w *w, const struct sb_profile *p)
{
	uint64_t *zero = calloc(p->n_pairs + 1, sizeof(*zero));
	int ret;

	if (!zero)
		return nomem(w);
	ret = sb_h5_put_field(w, "rank_region_index/event_counts", H5T_STD_U64LE,
			      H5T_NATIVE_UINT64, zero, p->n_pairs, sizeof(*zero), 0);
	if (!ret)
		ret = sb_h5_put_field(w, "rank_region_index/aggregate_counts", H5T_STD_I64LE,
				      H5T_NATIVE_UINT64, p->pairs, p->n_pairs, sizeof(*p->pairs),
				      offsetof(struct sb_pair, count));
	free(zero);
	return ret;
}

static int write_index(struct sb_h5w *w, const struct sb_profile *p)
{
	const struct sb_pair *q = p->pairs;
	size_t n = p->n_pairs, sz = sizeof(*q);
	int ret;

	ret = sb_h5_make_group(w, "rank_region_index");
	if (!ret)
		ret = sb_h5_put_field(w, "rank_region_index/region_ids", H5T_STD_U32LE,
				H5T_NATIVE_UINT32, q, n, sz, offsetof(struct sb_pair, region));
	if (!ret)
		ret = sb_h5_put_field(w, "rank_region_index/ranks", H5T_STD_U32LE,
				H5T_NATIVE_UINT32, q, n, sz, offsetof(struct sb_pair, rank));
	if (!ret)
		ret = sb_h5_put_field(w, "rank_region_index/event_offsets", H5T_STD_U64LE,
				H5T_NATIVE_UINT64, q, n, sz, offsetof(struct sb_pair, offset));
	if (!ret && p->agg.on)
		ret = write_aggregate_counts(w, p);
	else if (!ret)
		ret = sb_h5_put_field(w, "rank_region_index/event_counts", H5T_STD_U64LE,
				H5T_NATIVE_UINT64, q, n, sz, offsetof(struct sb_pair, count));
	if (!ret)
		ret = sb_h5_put_field(w, "rank_region_index/exclusive_totals", H5T_STD_I64LE,
				H5T_NATIVE_INT64, q, n, sz,
				offsetof(struct sb_pair, exclusive_total));
	if (!ret)
		ret = write_locations(w, p);
	if (!ret)
		ret = write_stats(w, p);
	return ret;
}

/* The event columns being written: their table and their datasets, -1 when left out. */
struct event_cols {
	struct sb_h5_event_column col[SB_H5_MAX_EVENT_COLUMNS];
	hid_t d[SB_H5_MAX_EVENT_COLUMNS];
	unsigned slots;			/* counter slots: the counter rows' layout */
	size_t stride;
	int n;
};

/*
 * The row columns of rows [0, n) into their jobs' values in one pass over
 * the rows: a pass per column read the chunk's rows (3 MiB, more than a
 * cache holds) six times.
 */
static void gather_rows(const struct event_cols *ec, struct sb_h5_chunker *z,
			const struct sb_event *rows, size_t n)
{
	int64_t *dst[SB_H5_MAX_EVENT_COLUMNS];
	size_t off[SB_H5_MAX_EVENT_COLUMNS], k;
	int i, m = 0, j, jobs = 0;

	for (i = 0; i < ec->n; i++) {
		if (ec->d[i] < 0)
			continue;
		if (ec->col[i].counter_id < 0) {
			dst[m] = sb_h5_chunker_job(z, (size_t)jobs)->values;
			off[m++] = ec->col[i].offset;
		}
		jobs++;
	}
	for (k = 0; k < n; k++)
		for (j = 0; j < m; j++)
			memcpy(&dst[j][k], (const char *)&rows[k] + off[j], sizeof(int64_t));
}

/* Counter column i of rows [0, n) into col. */
static void gather_counter(const struct event_cols *ec, int i, const int64_t *counters, size_t n,
			   int64_t *col)
{
	size_t k, pos = sb_counter_pos(ec->slots, (unsigned)ec->col[i].counter_id);

	for (k = 0; k < n; k++)
		col[k] = counters[k * ec->stride + pos];
}

/*
 * Rows [first, first + n) of every open event column, one chunk of each
 * (first is a multiple of the chunk's rows): compressed side by side, then
 * written in column order.
 */
static int write_chunk(struct sb_h5w *w, const struct event_cols *ec, const struct sb_event *rows,
		       const int64_t *counters, struct sb_h5_chunker *z, uint64_t first, size_t n)
{
	struct sb_h5_chunk_job *job;
	size_t jobs = 0;
	int i, ret;

	gather_rows(ec, z, rows, n);
	for (i = 0; i < ec->n; i++) {
		if (ec->d[i] < 0)
			continue;
		job = sb_h5_chunker_job(z, jobs++);
		if (ec->col[i].counter_id >= 0)
			gather_counter(ec, i, counters, n, job->values);
		job->n = n;
	}
	ret = sb_h5_chunker_run(z, jobs);
	if (ret)
		return sb_fail(w->err, ret, "%s: cannot compress /events: %s", w->path,
			       strerror(-ret));
	for (i = 0, jobs = 0; i < ec->n; i++) {
		if (ec->d[i] < 0)
			continue;
		if (sb_h5_chunk_write(ec->d[i], first, sb_h5_chunker_job(z, jobs++)))
			return sb_fail(w->err, EIO, "%s: cannot write /events/%s", w->path,
				       ec->col[i].name);
	}
	return 0;
}

/* Fill rows with want rows of the stream (fewer only at its end); the rows read, or -errno. */
static ssize_t read_full(struct sb_event_stream *s, struct sb_event *rows, int64_t *counters,
			 size_t stride, size_t want)
{
	size_t have = 0;
	ssize_t got;

	while (have < want) {
		got = s->read(s, rows + have, counters ? counters + have * stride : NULL,
			      want - have);
		if (got < 0)
			return got;
		if (got == 0 || (size_t)got > want - have)
			return (ssize_t)have + (got > 0 ? got : 0);
		have += (size_t)got;
	}
	return (ssize_t)have;
}

static int open_columns(const struct event_cols *d)
{
	int i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->d[i] >= 0;
	return n;
}

/* Pull exactly p->n_events rows from the stream, one chunk of every column at a time. */
static int stream_events(struct sb_h5w *w, const struct sb_profile *p, struct sb_event_stream *s,
			 const struct event_cols *d, struct sb_counter_totals *totals)
{
	size_t chunk = event_chunk_rows(p->n_events);
	int cols = open_columns(d);
	struct sb_h5_chunker *z = NULL;
	int64_t *counters = NULL;
	struct sb_event *rows;
	uint64_t done = 0;
	size_t want;
	ssize_t got;
	int ret = 0;

	if (!s)
		return p->n_events ? sb_fail(w->err, EINVAL, "%s: no event stream for %zu events",
					     w->path, p->n_events) : 0;
	rows = malloc((chunk ? chunk : 1) * sizeof(*rows));
	if (d->stride)
		counters = malloc((chunk ? chunk : 1) * d->stride * sizeof(*counters));
	if (chunk)
		z = sb_h5_chunker_new((size_t)cols, chunk,
				      w->threads ? w->threads : sb_h5_chunk_threads((size_t)cols));
	if (!rows || (d->stride && !counters) || (chunk && !z)) {
		free(rows);
		free(counters);
		sb_h5_chunker_free(z);
		return nomem(w);
	}
	while (done < p->n_events && !ret) {
		want = p->n_events - done < chunk ? p->n_events - done : chunk;
		got = read_full(s, rows, counters, d->stride, want);
		if (got < 0)
			ret = sb_fail(w->err, (int)got, "%s: cannot read events: %s", w->path,
				      strerror((int)-got));
		else if ((size_t)got != want)
			ret = sb_fail(w->err, EIO, "%s: event stream delivered %llu of %zu events",
				      w->path, (unsigned long long)(done + (uint64_t)got),
				      p->n_events);
		else
			ret = write_chunk(w, d, rows, counters, z, done, (size_t)got);
		if (!ret && sb_counter_totals_add(totals, p, rows, counters, (size_t)got))
			ret = nomem(w);
		done += got > 0 ? (uint64_t)got : 0;
	}
	/* More rows than announced means the index does not describe them: refuse. */
	if (!ret) {
		got = s->read(s, rows, counters, 1);
		if (got > 0)
			ret = sb_fail(w->err, EIO,
				      "%s: event stream delivered more than %zu events", w->path,
				      p->n_events);
		else if (got < 0)
			ret = sb_fail(w->err, (int)got, "%s: cannot read events: %s", w->path,
				      strerror((int)-got));
	}
	free(rows);
	free(counters);
	sb_h5_chunker_free(z);
	return ret;
}

/*
 * An event column, in chunks of EVENT_CHUNK rows (the rows write_chunk writes
 * at once, compressed by h5chunks.c as these filters would) through shuffle and
 * deflate, filters every HDF5 reader has (h5py, so scope-profiler's reader,
 * without plugins). Sorted timestamps, thread indexes and parent ids differ in
 * their low bytes only: shuffle puts the constant bytes together and level 1
 * takes a 5 M-call loop from 48 to under 2 bytes a call (docs/PERFORMANCE.md).
 */
static hid_t create_event_column(struct sb_h5w *w, const char *name, size_t n)
{
	hsize_t dim = n, chunk = event_chunk_rows(n);
	hid_t s, d = H5I_INVALID_HID, dcpl;

	if (!n)
		return create_column(w, name, H5T_STD_I64LE, n);
	s = H5Screate_simple(1, &dim, NULL);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (s >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, &chunk) >= 0 && H5Pset_shuffle(dcpl) >= 0 &&
	    H5Pset_deflate(dcpl, 1) >= 0)
		d = H5Dcreate2(w->file, name, H5T_STD_I64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (s >= 0)
		H5Sclose(s);
	return d;
}

/* The events, and the counter totals per region summed from them on the way. */
static int write_events(struct sb_h5w *w, const struct sb_profile *p, struct sb_event_stream *s)
{
	struct sb_counter_totals totals;
	struct event_cols ec;
	hid_t *d = ec.d;
	char name[64];
	int i, ret = 0;

	if (sb_counter_totals_init(&totals, p)) {
		sb_counter_totals_free(&totals);
		return nomem(w);
	}
	ec.n = sb_h5_event_columns(ec.col);
	ec.slots = sb_profile_counter_slots(p);
	ec.stride = sb_counter_stride(ec.slots);
	for (i = 0; i < ec.n; i++)
		d[i] = H5I_INVALID_HID;
	ret = sb_h5_make_group(w, "events");
	for (i = 0; i < ec.n && !ret; i++) {
		/* Columns not recorded are left out, never filled with placeholders. */
		if (ec.col[i].bit && !(p->columns & ec.col[i].bit))
			continue;
		/* An exclusive counter column without its inclusive one has no place in a row. */
		if (ec.col[i].counter_id >= 0 &&
		    sb_counter_pos(ec.slots, (unsigned)ec.col[i].counter_id) >= ec.stride)
			continue;
		snprintf(name, sizeof(name), "events/%s", ec.col[i].name);
		d[i] = create_event_column(w, name, p->n_events);
		if (d[i] < 0)
			ret = h5fail(w, name);
	}
	if (!ret)
		ret = stream_events(w, p, s, &ec, &totals);
	for (i = 0; i < ec.n; i++)
		if (d[i] >= 0 && H5Dclose(d[i]) < 0 && !ret)
			ret = h5fail(w, ec.col[i].name);
	if (!ret)
		ret = sb_h5_write_perf_events(w->file, w->path, p, &totals, w->err);
	if (!ret)
		ret = sb_h5_write_likwid(w->file, w->path, p, &totals, w->err);
	sb_counter_totals_free(&totals);
	return ret;
}

static int write_thread_names(struct sb_h5w *w, const struct sb_profile *p)
{
	const char **v;
	int8_t *daemon;
	size_t i, n = p->n_threads;
	int ret;

	v = calloc(n, sizeof(*v));
	daemon = calloc(n, sizeof(*daemon));
	if (!v || !daemon) {
		ret = nomem(w);
		goto out;
	}
	for (i = 0; i < n; i++)
		v[i] = p->threads[i].name;
	ret = sb_h5_put_field(w, "thread_table/daemon", H5T_STD_I8LE, H5T_NATIVE_INT8, daemon, n,
			sizeof(*daemon), 0);
	if (!ret)
		ret = put_strings(w, "thread_table/name", v, n);
out:
	free(v);
	free(daemon);
	return ret;
}

static int write_threads(struct sb_h5w *w, const struct sb_profile *p)
{
	static const struct {
		const char *name;
		size_t off;
	} cols[] = {
		{ "thread_table/index", offsetof(struct sb_thread, index) },
		{ "thread_table/ident", offsetof(struct sb_thread, tid) },
		{ "thread_table/native_id", offsetof(struct sb_thread, tid) },
		{ "thread_table/start_ns", offsetof(struct sb_thread, start_ns) },
		{ "thread_table/end_ns", offsetof(struct sb_thread, end_ns) },
		{ "thread_table/cpu_ns", offsetof(struct sb_thread, cpu_ns) },
	};
	const struct sb_thread *t = p->threads;
	size_t i, n = p->n_threads;
	int ret;

	if (!n)
		return 0;
	ret = sb_h5_make_group(w, "thread_table");
	if (!ret)
		ret = sb_h5_put_field(w, "thread_table/ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32,
				t, n, sizeof(*t), offsetof(struct sb_thread, rank));
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]) && !ret; i++)
		ret = sb_h5_put_field(w, cols[i].name, H5T_STD_I64LE, H5T_NATIVE_INT64, t, n,
				sizeof(*t), cols[i].off);
	if (!ret)
		ret = write_thread_names(w, p);
	return ret;
}

static int write_processes(struct sb_h5w *w, const struct sb_profile *p)
{
	static const struct {
		const char *name;
		size_t off;
	} cols[] = {
		{ "scope_bpf/processes/pid", offsetof(struct sb_process, pid) },
		{ "scope_bpf/processes/ppid", offsetof(struct sb_process, ppid) },
		{ "scope_bpf/processes/rank", offsetof(struct sb_process, rank) },
		{ "scope_bpf/processes/start_ns", offsetof(struct sb_process, start_ns) },
		{ "scope_bpf/processes/end_ns", offsetof(struct sb_process, end_ns) },
		{ "scope_bpf/processes/exit_code", offsetof(struct sb_process, exit_code) },
	};
	const struct sb_process *q = p->processes;
	const char **v;
	size_t i, n = p->n_processes;
	int ret;

	if (!n)
		return 0;
	ret = sb_h5_make_group(w, "scope_bpf");
	if (!ret)
		ret = sb_h5_make_group(w, "scope_bpf/processes");
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]) && !ret; i++)
		ret = sb_h5_put_field(w, cols[i].name, H5T_STD_I64LE, H5T_NATIVE_INT64, q, n,
				sizeof(*q), cols[i].off);
	if (ret)
		return ret;
	v = calloc(n, sizeof(*v));
	if (!v)
		return nomem(w);
	for (i = 0; i < n; i++)
		v[i] = q[i].command;
	ret = put_strings(w, "scope_bpf/processes/command", v, n);
	free(v);
	return ret;
}

static int write_all(struct sb_h5w *w, const struct sb_profile *p, struct sb_event_stream *s)
{
	int ret;

	ret = write_root(w, p);
	if (!ret)
		ret = write_metadata(w, p);
	if (!ret)
		ret = write_names(w, p);
	if (!ret)
		ret = write_index(w, p);
	if (!ret)
		ret = write_events(w, p, s);
	if (!ret)
		ret = write_threads(w, p);
	if (!ret)
		ret = write_processes(w, p);
	if (!ret)
		ret = sb_h5_write_kinds(w->file, w->path, p, w->err);
	if (!ret)
		ret = sb_h5_write_aggregate(w->file, w->path, p, w->err);
	return ret;
}

/*
 * HDF5 opens files only by name: it gets the private file's /proc/self/fd name,
 * never the temporary name, which someone else may have swapped by then.
 */
static int create_file(struct sb_h5w *w, int fd, const char *tmp)
{
	char name[64];
	hid_t fapl;

	sb_tmpfile_fd_path(fd, name, sizeof(name));
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	/* Strong close: an error path that misses a handle still releases the file. */
	if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
		w->file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	if (fapl >= 0)
		H5Pclose(fapl);
	if (w->file < 0 && storage_errno())
		return sb_fail(w->err, errno, "%s: cannot create %s as HDF5: %s", w->path, tmp,
			       strerror(errno));
	if (w->file < 0)
		return sb_fail(w->err, EIO, "%s: cannot create %s as HDF5", w->path, tmp);
	return 0;
}

int sb_h5_check_target(const char *path, struct sb_error *err)
{
	struct stat st;

	/* The profile is renamed into place: never over a device, FIFO or folder. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return sb_fail(err, EINVAL, "%s: exists and is not a regular file; refusing to "
			       "replace it", path);
	return sb_tmpfile_check(path, err);
}

int sb_h5_write(const char *path, const struct sb_profile *p, struct sb_event_stream *events,
		struct sb_error *err)
{
	return sb_h5_write_with(path, p, events, 0, err);
}

int sb_h5_write_with(const char *path, const struct sb_profile *p, struct sb_event_stream *events,
		     unsigned threads, struct sb_error *err)
{
	struct sb_h5w w = { .path = path, .err = err, .file = H5I_INVALID_HID,
			    .threads = threads };
	char *tmp;
	int ret, fd;

	/* Errors are reported once, through err; HDF5's stack dumps would only confuse users. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	ret = sb_h5_check_target(path, err);
	if (!ret)
		ret = validate(path, p, err);
	if (ret)
		return ret;
	/* open() before HDF5 does: HDF5 loses errno, and "Permission denied" is the useful part. */
	fd = sb_tmpfile_create(path, 0666, &tmp);
	if (fd < 0)
		return sb_fail(err, -fd, "%s: cannot create a temporary file beside it: %s", path,
			       strerror(-fd));
	/* From here on errno is HDF5's: a storage error in it is the cause to tell. */
	errno = 0;
	ret = create_file(&w, fd, tmp);
	if (ret)
		goto out;
	ret = write_all(&w, p, events);
	if (H5Fclose(w.file) < 0 && !ret)
		ret = h5fail(&w, "the file (close failed)");
	if (!ret)
		ret = sb_tmpfile_commit(fd, tmp, path, err);
out:
	if (ret)
		sb_tmpfile_discard(fd, tmp);
	close(fd);
	free(tmp);
	return ret;
}
