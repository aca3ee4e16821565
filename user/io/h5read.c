/* Read scope-profiler HDF5 profiles (schema 1, 2, 3) into the model, trusting nothing in them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "io/h5read.h"
#include "io/profile_read.h"
#include "io/h5aggregate.h"
#include "io/h5table.h"
#include "io/h5write.h"
#include "model/index_rules.h"
#include "util/utf8.h"

#define MAX_ROWS (1ull << 34)		/* no column may declare more rows */
#define MAX_STR_SIZE (1u << 20)		/* fixed-length string element size limit */
#define MAX_NAME (1u << 16)		/* link name length limit */
#define READ_BLOCK 65536		/* rows read at once into a field of structs */

/* An optional column the file lacks. */
#define ABSENT 0

/* A thread count per rank, for checking /events/thread_ids. */
struct rank_threads {
	uint32_t rank;
	uint64_t count;
};

struct h5r {
	const char *path;		/* for messages */
	struct sb_error *err;
	hid_t file;
	uint64_t file_size;
	struct sb_profile *p;
	int schema;
	int cb_ret;			/* error from inside an HDF5 iteration callback */
	bool lean;			/* leave the events on disk (SB_H5_READ_LEAN) */
	/* Per index row, until the index is known sane; NULL when the file lacks them. */
	int64_t *lines;
	char **files;
	char **texts;
	char **tags;
	struct sb_h5_stats *fstats;
	/* Thread rows per rank, sorted by rank; has_threads says whether a table exists. */
	bool has_threads;
	struct rank_threads *tcounts;
	size_t n_tcounts;
	/* The event columns a file may have (set by open_file), and an event before reading. */
	struct sb_h5_event_column cols[SB_H5_MAX_EVENT_COLUMNS];
	int n_cols;
	struct sb_event blank;
};

struct col {
	hid_t d;
	uint64_t n;
};

/* The file breaks FORMAT.md: "path: cause", -EINVAL. */
#define corrupt(r, ...) sb_fail_at((r)->err, EINVAL, (r)->path, __VA_ARGS__)

static int nomem(struct h5r *r)
{
	return sb_fail(r->err, ENOMEM, "%s: out of memory", r->path);
}

/*
 * Invalid UTF-8 is replaced by U+FFFD, not rejected: thread names are raw
 * comm bytes, and one odd name must not make a whole profile unreadable.
 */
static char *utf8_copy(const char *s)
{
	if (!s)
		s = "";
	return sb_utf8_repaired(s);
}

static void free_strs(char **v, uint64_t n)
{
	uint64_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Arrays the model grows with its add helpers: those double when the count
 * is a power of two, so the capacity must be the next power of two.
 */
static void *alloc_growable(uint64_t n, size_t size)
{
	uint64_t cap = 1;

	while (cap < n)
		cap <<= 1;
	return calloc(cap, size);
}

/* H5Lexists fails, rather than says no, when a parent is missing: walk the path. */
static bool exists(hid_t loc, const char *path)
{
	char buf[256];
	size_t i, len = strlen(path);

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, path, len + 1);
	for (i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (H5Lexists(loc, buf, H5P_DEFAULT) <= 0)
			return false;
		buf[i] = path[i];
	}
	return true;
}

/* ---- columns ---- */

static int check_col(struct h5r *r, const char *what, H5T_class_t cls, struct col *c)
{
	hid_t s, t;
	hsize_t dim;
	int ret = 0;

	s = H5Dget_space(c->d);
	t = H5Dget_type(c->d);
	if (s < 0 || t < 0) {
		ret = corrupt(r, "cannot read the header of %s", what);
		goto out;
	}
	if (H5Tget_class(t) != cls) {
		ret = corrupt(r, "%s has the wrong type (%s expected)", what,
			      cls == H5T_INTEGER ? "integer" :
			      cls == H5T_STRING ? "string" : "compound");
		goto out;
	}
	if (H5Sget_simple_extent_ndims(s) != 1 || H5Sget_simple_extent_dims(s, &dim, NULL) != 1) {
		ret = corrupt(r, "%s is not a 1-D column", what);
		goto out;
	}
	c->n = dim;
	if (dim > MAX_ROWS) {
		ret = corrupt(r, "%s declares %llu rows (limit %llu)", what,
			      (unsigned long long)dim, MAX_ROWS);
		goto out;
	}
	ret = sb_h5_check_storage(c->d, t, c->n, r->file_size, r->path, what, r->err);
out:
	if (t >= 0)
		H5Tclose(t);
	if (s >= 0)
		H5Sclose(s);
	return ret;
}

/* Open column name under loc (what: its name in messages): 1 open, 0 absent, <0 error. */
static int open_col(struct h5r *r, hid_t loc, const char *name, const char *what, bool required,
		    H5T_class_t cls, struct col *c)
{
	int ret;

	c->d = H5I_INVALID_HID;
	c->n = 0;
	if (!exists(loc, name))
		return required ? corrupt(r, "%s is missing", what) : ABSENT;
	c->d = H5Dopen2(loc, name, H5P_DEFAULT);
	if (c->d < 0)
		return corrupt(r, "%s is not a dataset", what);
	ret = check_col(r, what, cls, c);
	if (ret) {
		H5Dclose(c->d);
		c->d = H5I_INVALID_HID;
		return ret;
	}
	return 1;
}

static void close_col(struct col *c)
{
	if (c->d >= 0)
		H5Dclose(c->d);
	c->d = H5I_INVALID_HID;
}

/* Rows [first, first + n) of a column, contiguous, into buf. */
static herr_t read_block(hid_t d, hid_t mtype, hsize_t first, hsize_t n, void *buf)
{
	hid_t ms = H5Screate_simple(1, &n, NULL), fs = H5Dget_space(d);
	herr_t rc = -1;

	if (ms >= 0 && fs >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &first, NULL, &n, NULL) >= 0)
		rc = H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf);
	if (ms >= 0)
		H5Sclose(ms);
	if (fs >= 0)
		H5Sclose(fs);
	return rc;
}

/*
 * A column into one field of n structs, a block at a time through a
 * contiguous buffer: a strided selection in memory makes libhdf5 build a span
 * tree for each compressed chunk (event columns are chunked), 3-4x the read.
 */
static herr_t read_spread(hid_t d, hid_t mtype, char *base, size_t n, size_t stride, size_t off)
{
	size_t size = H5Tget_size(mtype), block = n < READ_BLOCK ? n : READ_BLOCK, k, i;
	char *buf = malloc(block * size);
	herr_t rc = 0;

	if (!buf)
		return -1;
	for (k = 0; k < n && rc >= 0; k += block) {
		block = n - k < READ_BLOCK ? n - k : READ_BLOCK;
		rc = read_block(d, mtype, k, block, buf);
		for (i = 0; rc >= 0 && i < block; i++)
			memcpy(base + (k + i) * stride + off, buf + i * size, size);
	}
	free(buf);
	return rc;
}

/* Read a whole integer column into one field of n structs. */
static int read_field(struct h5r *r, struct col *c, const char *what, hid_t mtype, void *base,
		      size_t stride, size_t off)
{
	hid_t ms;
	herr_t rc;

	if (!c->n)
		return 0;
	if (off + H5Tget_size(mtype) > stride)
		return corrupt(r, "cannot read %s", what);
	if (stride != H5Tget_size(mtype)) {
		if (read_spread(c->d, mtype, base, c->n, stride, off) < 0)
			return corrupt(r, "cannot read %s", what);
		return 0;
	}
	ms = sb_h5_field_space(c->n, stride, off, H5Tget_size(mtype));
	if (ms < 0)
		return corrupt(r, "cannot read %s", what);
	rc = H5Dread(c->d, mtype, ms, H5S_ALL, H5P_DEFAULT, base);
	H5Sclose(ms);
	if (rc < 0)
		return corrupt(r, "cannot read %s", what);
	return 0;
}

static int check_len(struct h5r *r, const char *what, const struct col *c, uint64_t n)
{
	if (c->n == n)
		return 0;
	return corrupt(r, "column lengths differ: %s has %llu rows, expected %llu", what,
		       (unsigned long long)c->n, (unsigned long long)n);
}

/* Read integer column what (absolute path) of n rows into a field: 1 read, 0 absent, <0 error. */
static int load_ints(struct h5r *r, const char *what, bool required, uint64_t n, hid_t mtype,
		     void *base, size_t stride, size_t off)
{
	struct col c;
	int ret;

	ret = open_col(r, r->file, what, what, required, H5T_INTEGER, &c);
	if (ret <= 0)
		return ret;
	ret = check_len(r, what, &c, n);
	if (!ret)
		ret = read_field(r, &c, what, mtype, base, stride, off);
	close_col(&c);
	return ret ? ret : 1;
}

/* ---- strings, from datasets and attributes alike ---- */

struct src {
	hid_t id;
	bool attr;
};

static herr_t src_read(const struct src *s, hid_t mtype, void *buf)
{
	if (s->attr)
		return H5Aread(s->id, mtype, buf);
	return H5Dread(s->id, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
}

static int read_vlen(struct h5r *r, const struct src *s, hid_t ft, const char *what, uint64_t n,
		     char **out)
{
	int ret = sb_h5_get_strings(s->id, s->attr, H5Tget_cset(ft), out, n, sizeof(*out), 0);

	if (ret == -EIO)
		return corrupt(r, "cannot read %s", what);
	return ret ? nomem(r) : 0;
}

static int read_fixed(struct h5r *r, const struct src *s, hid_t ft, const char *what, uint64_t n,
		      char **out)
{
	size_t size = H5Tget_size(ft);
	hid_t mt = H5I_INVALID_HID;
	char *buf = NULL;
	uint64_t i;
	int ret = 0;

	if (!size || size > MAX_STR_SIZE)
		return corrupt(r, "%s has a bad string size", what);
	/* One more byte than stored, so a NUL-padded string that fills its slot keeps its end. */
	buf = calloc(n, size + 1);
	mt = H5Tcopy(H5T_C_S1);
	if (!buf || mt < 0 || H5Tset_size(mt, size + 1) < 0 ||
	    H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 || H5Tset_cset(mt, H5Tget_cset(ft)) < 0) {
		ret = nomem(r);
		goto out;
	}
	if (src_read(s, mt, buf) < 0) {
		ret = corrupt(r, "cannot read %s", what);
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		buf[i * (size + 1) + size] = '\0';
		out[i] = utf8_copy(buf + i * (size + 1));
		if (!out[i])
			ret = nomem(r);
	}
out:
	if (mt >= 0)
		H5Tclose(mt);
	free(buf);
	return ret;
}

/* n strings from a string dataset or attribute into *out (valid UTF-8, caller frees). */
static int read_strs(struct h5r *r, const struct src *s, const char *what, uint64_t n, char ***out)
{
	char **v;
	hid_t ft;
	int ret;

	ft = s->attr ? H5Aget_type(s->id) : H5Dget_type(s->id);
	if (ft < 0)
		return corrupt(r, "cannot read the type of %s", what);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		H5Tclose(ft);
		return nomem(r);
	}
	if (!n)
		ret = 0;
	else if (H5Tget_class(ft) != H5T_STRING)
		ret = corrupt(r, "%s is not a string", what);
	else if (H5Tis_variable_str(ft) > 0)
		ret = read_vlen(r, s, ft, what, n, v);
	else
		ret = read_fixed(r, s, ft, what, n, v);
	H5Tclose(ft);
	if (ret) {
		free_strs(v, n);
		return ret;
	}
	*out = v;
	return 0;
}

/* String column what of n rows: 1 read, 0 absent, <0 error. */
static int load_strs(struct h5r *r, hid_t loc, const char *name, const char *what, bool required,
		     uint64_t n, char ***out)
{
	struct col c;
	struct src s;
	int ret;

	*out = NULL;
	ret = open_col(r, loc, name, what, required, H5T_STRING, &c);
	if (ret <= 0)
		return ret;
	ret = check_len(r, what, &c, n);
	s = (struct src){ c.d, false };
	if (!ret)
		ret = read_strs(r, &s, what, n, out);
	close_col(&c);
	return ret ? ret : 1;
}

/* ---- attributes ---- */

static hssize_t attr_points(hid_t a)
{
	hid_t s = H5Aget_space(a);
	hssize_t n;

	if (s < 0)
		return -1;
	n = H5Sget_simple_extent_npoints(s);
	H5Sclose(s);
	return n;
}

static H5T_class_t attr_class(hid_t a)
{
	hid_t t = H5Aget_type(a);
	H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;

	if (t >= 0)
		H5Tclose(t);
	return cls;
}

/* A one-value integer attribute: 1 read, 0 not an integer scalar, <0 error. */
static int attr_int(struct h5r *r, hid_t a, const char *what, int64_t *v)
{
	if (attr_class(a) != H5T_INTEGER || attr_points(a) != 1)
		return 0;
	if (H5Aread(a, H5T_NATIVE_INT64, v) < 0)
		return corrupt(r, "cannot read attribute %s", what);
	return 1;
}

/* A one-value string attribute: 1 read, 0 not a string scalar, <0 error. */
static int attr_str(struct h5r *r, hid_t a, const char *what, char **v)
{
	struct src s = { a, true };
	char **one;
	int ret;

	if (attr_class(a) != H5T_STRING || attr_points(a) != 1)
		return 0;
	ret = read_strs(r, &s, what, 1, &one);
	if (ret)
		return ret;
	*v = one[0];
	free(one);
	return 1;
}

/* Open attribute name of obj when it exists: 1 open, 0 absent, <0 error. */
static int open_attr(struct h5r *r, hid_t obj, const char *name, const char *what, hid_t *a)
{
	htri_t has = H5Aexists(obj, name);

	*a = H5I_INVALID_HID;
	if (has < 0)
		return corrupt(r, "cannot read the attributes of %s", what);
	if (!has)
		return ABSENT;
	*a = H5Aopen(obj, name, H5P_DEFAULT);
	if (*a < 0)
		return corrupt(r, "cannot open attribute %s of %s", name, what);
	return 1;
}

static int meta_attr(struct h5r *r, hid_t a, const char *name)
{
	char *key, *s = NULL;
	int64_t v;
	int ret;

	key = utf8_copy(name);
	if (!key)
		return nomem(r);
	ret = attr_int(r, a, name, &v);
	if (ret > 0)
		ret = sb_profile_set_int(r->p, key, v) ? nomem(r) : 0;
	else if (ret == 0 && (ret = attr_str(r, a, name, &s)) > 0)
		ret = sb_profile_set_str(r->p, key, s) ? nomem(r) : 0;
	/* Other types (floats, booleans, arrays) are not part of the contract: skipped. */
	free(s);
	free(key);
	return ret < 0 ? ret : 0;
}

static herr_t meta_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
	struct h5r *r = data;
	hid_t a;

	(void)info;
	a = H5Aopen(loc, name, H5P_DEFAULT);
	if (a < 0) {
		r->cb_ret = corrupt(r, "cannot open /metadata attribute %s", name);
		return -1;
	}
	r->cb_ret = meta_attr(r, a, name);
	H5Aclose(a);
	return r->cb_ret ? -1 : 0;
}

static int read_metadata(struct h5r *r)
{
	hid_t g;
	herr_t rc;

	if (!exists(r->file, "metadata"))
		return 0;
	g = H5Gopen2(r->file, "metadata", H5P_DEFAULT);
	if (g < 0)
		return corrupt(r, "/metadata is not a group");
	r->cb_ret = 0;
	rc = H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, meta_cb, r);
	H5Gclose(g);
	if (r->cb_ret)
		return r->cb_ret;
	return rc < 0 ? corrupt(r, "cannot read /metadata") : 0;
}

/* ---- schema 2 and 3: columnar ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Identity is the name: a second copy would split one region in two. */
static int check_unique_names(struct h5r *r, char **names, uint64_t n)
{
	char **sorted, shown[80];
	uint64_t i;
	int ret = 0;

	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted)
		return nomem(r);
	memcpy(sorted, names, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	for (i = 1; i < n && !ret; i++)
		if (!strcmp(sorted[i], sorted[i - 1]))
			ret = corrupt(r, "region name '%s' appears twice in /region_table/names",
				      sb_read_printable(sorted[i], shown, sizeof(shown)));
	free(sorted);
	return ret;
}

static int read_names(struct h5r *r)
{
	static const char what[] = "/region_table/names";
	struct col c;
	struct src s;
	char **names = NULL;
	uint64_t n, i;
	int ret;

	ret = open_col(r, r->file, what, what, true, H5T_STRING, &c);
	if (ret < 0)
		return ret;
	n = c.n;
	s = (struct src){ c.d, false };
	ret = read_strs(r, &s, what, n, &names);
	close_col(&c);
	if (ret)
		return ret;
	ret = check_unique_names(r, names, n);
	for (i = 0; i < n && !ret; i++)
		if (sb_profile_add_region(r->p, names[i], "", -1, "[]") < 0)
			ret = nomem(r);
	free_strs(names, n);
	return ret;
}

/* A compound missing a field would read as zeros: then recompute from the events instead. */
static bool has_all_stats(hid_t d)
{
	static const char *const fields[] = { "total", "minimum", "maximum", "first", "last",
		"start_minimum", "end_maximum", "gpu_count", "gpu_total", "mean", "m2" };
	hid_t t = H5Dget_type(d);
	bool all = t >= 0;
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]) && all; i++)
		all = H5Tget_member_index(t, fields[i]) >= 0;
	if (t >= 0)
		H5Tclose(t);
	return all;
}

static int read_stats(struct h5r *r, uint64_t n)
{
	static const char what[] = "/rank_region_index/summary_statistics";
	hid_t mt = H5I_INVALID_HID;
	struct col c;
	int ret;

	ret = open_col(r, r->file, what, what, false, H5T_COMPOUND, &c);
	if (ret <= 0)
		return ret;
	ret = check_len(r, what, &c, n);
	if (ret || !has_all_stats(c.d))
		goto out;
	mt = sb_h5_stats_type(false);
	r->fstats = calloc(n ? n : 1, sizeof(*r->fstats));
	if (mt < 0 || !r->fstats)
		ret = nomem(r);
	else
		ret = read_field(r, &c, what, mt, r->fstats, sizeof(*r->fstats), 0);
out:
	if (mt >= 0)
		H5Tclose(mt);
	close_col(&c);
	return ret;
}

static int read_locations(struct h5r *r, uint64_t n)
{
	int ret;

	r->lines = calloc(n ? n : 1, sizeof(*r->lines));
	if (!r->lines)
		return nomem(r);
	ret = load_ints(r, "/rank_region_index/source_lines", false, n, H5T_NATIVE_INT64, r->lines,
			sizeof(*r->lines), 0);
	if (ret == ABSENT) {
		free(r->lines);
		r->lines = NULL;
	}
	if (ret >= 0)
		ret = load_strs(r, r->file, "/rank_region_index/source_files",
				"/rank_region_index/source_files", false, n, &r->files);
	if (ret >= 0)
		ret = load_strs(r, r->file, "/rank_region_index/source_texts",
				"/rank_region_index/source_texts", false, n, &r->texts);
	if (ret >= 0)
		ret = load_strs(r, r->file, "/rank_region_index/tags", "/rank_region_index/tags",
				false, n, &r->tags);
	return ret < 0 ? ret : 0;
}

/* An aggregate's rows hold no event: their calls are counted in aggregate_counts. */
static int read_aggregate_counts(struct h5r *r, uint64_t n)
{
	struct sb_profile *p = r->p;
	uint64_t i;
	int ret;

	for (i = 0; i < n; i++)
		if (p->pairs[i].count || p->pairs[i].offset)
			return corrupt(r, "index row %llu of an aggregate points at events",
				       (unsigned long long)i);
	ret = load_ints(r, "/rank_region_index/aggregate_counts", true, n, H5T_NATIVE_UINT64,
			p->pairs, sizeof(*p->pairs), offsetof(struct sb_pair, count));
	return ret < 0 ? ret : 0;
}

static int read_index(struct h5r *r)
{
	static const char what[] = "/rank_region_index/region_ids";
	struct sb_profile *p = r->p;
	size_t sz = sizeof(*p->pairs);
	struct col c;
	uint64_t n, i;
	int ret;

	ret = open_col(r, r->file, what, what, true, H5T_INTEGER, &c);
	if (ret < 0)
		return ret;
	n = c.n;
	p->pairs = calloc(n ? n : 1, sz);
	if (!p->pairs) {
		close_col(&c);
		return nomem(r);
	}
	p->n_pairs = n;
	for (i = 0; i < n; i++) {
		p->pairs[i].exclusive_total = -1;
		sb_stats_init(&p->pairs[i].stats);
	}
	ret = read_field(r, &c, what, H5T_NATIVE_UINT32, p->pairs, sz,
			 offsetof(struct sb_pair, region));
	close_col(&c);
	if (!ret)
		ret = load_ints(r, "/rank_region_index/ranks", true, n, H5T_NATIVE_UINT32,
				p->pairs, sz, offsetof(struct sb_pair, rank));
	if (ret >= 0)
		ret = load_ints(r, "/rank_region_index/event_offsets", true, n, H5T_NATIVE_UINT64,
				p->pairs, sz, offsetof(struct sb_pair, offset));
	if (ret >= 0)
		ret = load_ints(r, "/rank_region_index/event_counts", true, n, H5T_NATIVE_UINT64,
				p->pairs, sz, offsetof(struct sb_pair, count));
	if (ret >= 0 && p->agg.on)
		ret = read_aggregate_counts(r, n);
	if (ret >= 0)
		ret = load_ints(r, "/rank_region_index/exclusive_totals", false, n,
				H5T_NATIVE_INT64, p->pairs, sz,
				offsetof(struct sb_pair, exclusive_total));
	if (ret >= 0)
		ret = read_locations(r, n);
	if (ret >= 0)
		ret = read_stats(r, n);
	return ret < 0 ? ret : 0;
}

/* The event columns' names in this schema; schema 3 stores gaps and durations. */
static const char *event_col_name(const struct h5r *r, int k, char *buf, size_t len)
{
	if (k < 2 && r->schema == 3)
		return k ? "/events/durations" : "/events/start_deltas";
	snprintf(buf, len, "/events/%s", r->cols[k].name);
	return buf;
}

/* Open event column k (which must exist, when asked for) and check its length: 1, 0 absent, <0. */
static int open_event_col(struct h5r *r, int k, uint64_t n, struct col *c)
{
	char buf[64];
	const char *what = event_col_name(r, k, buf, sizeof(buf));
	int ret;

	ret = open_col(r, r->file, what, what, k < 2, H5T_INTEGER, c);
	if (ret <= 0)
		return ret;
	ret = check_len(r, what, c, n);
	if (ret)
		close_col(c);
	return ret ? ret : 1;
}

/* Whether the index rows cover the n events in order, so one pass knows each event's row. */
static bool rows_tile(const struct sb_profile *p, uint64_t n)
{
	uint64_t next = 0;
	size_t i;

	for (i = 0; i < p->n_pairs; i++) {
		if (p->pairs[i].offset != next || p->pairs[i].count > n - next)
			return false;
		next += p->pairs[i].count;
	}
	return next == n;
}

/* Lean: what the columns are and that they agree, without reading a row. */
static int check_event_cols(struct h5r *r, uint64_t n)
{
	struct col c;
	int k, ret;

	r->p->n_events = n;
	for (k = 0; k < r->n_cols; k++) {
		ret = open_event_col(r, k, n, &c);
		if (ret < 0)
			return ret;
		if (ret > 0 && r->cols[k].bit)
			r->p->columns |= r->cols[k].bit;
		close_col(&c);
	}
	return 0;
}

/* The counter columns into counter rows (model.h), when the file has any. */
static int read_counters(struct h5r *r, uint64_t n)
{
	const struct sb_h5_event_column *ec;
	struct sb_profile *p = r->p;
	unsigned slots = sb_profile_counter_slots(p), pos;
	size_t stride = sb_counter_stride(slots);
	char what[64];
	int k, ret = 0;

	if (!slots)
		return 0;
	if (n > SIZE_MAX / sizeof(*p->counters) / stride || sb_profile_alloc_counters(p))
		return nomem(r);
	for (k = 0; k < r->n_cols && ret >= 0; k++) {
		ec = &r->cols[k];
		if (ec->counter_id < 0 || !(p->columns & ec->bit))
			continue;
		pos = sb_counter_pos(slots, (unsigned)ec->counter_id);
		if (pos >= stride)
			continue;
		snprintf(what, sizeof(what), "/events/%s", ec->name);
		ret = load_ints(r, what, true, n, H5T_NATIVE_INT64, p->counters,
				stride * sizeof(*p->counters), pos * sizeof(*p->counters));
	}
	return ret < 0 ? ret : 0;
}

static int read_events(struct h5r *r)
{
	const struct sb_h5_event_column *ec;
	struct sb_profile *p = r->p;
	const char *first = r->schema == 3 ? "/events/start_deltas" : "/events/start_times";
	const char *second = r->schema == 3 ? "/events/durations" : "/events/end_times";
	char what[64], why[192];
	struct col c;
	uint64_t n, i;
	int k, ret;

	ret = open_col(r, r->file, first, first, true, H5T_INTEGER, &c);
	if (ret < 0)
		return ret;
	n = c.n;
	if (r->lean && rows_tile(p, n)) {
		close_col(&c);
		return check_event_cols(r, n);
	}
	if (sb_read_check_fits(n, sizeof(*p->events), "events", why, sizeof(why))) {
		close_col(&c);
		return corrupt(r, "%s: %s", first, why);
	}
	/* Never NULL, even when empty: a NULL events array means "streamed, not held". */
	p->events = malloc((n ? n : 1) * sizeof(*p->events));
	if (!p->events) {
		close_col(&c);
		return nomem(r);
	}
	p->n_events = n;
	for (i = 0; i < n; i++)
		p->events[i] = r->blank;
	ret = read_field(r, &c, first, H5T_NATIVE_INT64, p->events, sizeof(*p->events),
			 offsetof(struct sb_event, start));
	close_col(&c);
	if (!ret)
		ret = load_ints(r, second, true, n, H5T_NATIVE_INT64, p->events, sizeof(*p->events),
				offsetof(struct sb_event, end));
	for (k = 0; k < r->n_cols && ret >= 0; k++) {
		ec = &r->cols[k];
		if (!ec->bit)
			continue;
		snprintf(what, sizeof(what), "/events/%s", ec->name);
		if (ec->counter_id >= 0) {
			if (exists(r->file, what))
				p->columns |= ec->bit;
			continue;
		}
		ret = load_ints(r, what, false, n, H5T_NATIVE_INT64, p->events, sizeof(*p->events),
				ec->offset);
		if (ret > 0)
			p->columns |= ec->bit;
	}
	return ret < 0 ? ret : read_counters(r, n);
}

static int read_columnar(struct h5r *r)
{
	int ret;

	ret = read_names(r);
	if (!ret)
		ret = read_index(r);
	if (!ret)
		ret = read_events(r);
	return ret;
}

/* ---- schema 1: /rank<N>/regions/<name>/{start_times,end_times} ---- */

/* Name of link i of group g (in name order), malloc'd; NULL on error. */
static char *link_name(hid_t g, hsize_t i)
{
	ssize_t len;
	char *s;

	len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT);
	if (len < 0 || (size_t)len >= MAX_NAME)
		return NULL;
	s = malloc((size_t)len + 1);
	if (s && H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, s, (size_t)len + 1,
				     H5P_DEFAULT) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

static int links(struct h5r *r, hid_t g, const char *what, hsize_t *n)
{
	H5G_info_t info;

	*n = 0;
	if (H5Gget_info(g, &info) < 0)
		return corrupt(r, "cannot list %s", what);
	/* Every link takes bytes in the file: a larger count is a corrupt header. */
	if (info.nlinks > r->file_size)
		return corrupt(r, "%s claims %llu links", what, (unsigned long long)info.nlinks);
	*n = info.nlinks;
	return 0;
}

/* "rank<N>", N decimal without padding: the rank, or -1 for any other name. */
static int64_t rank_of(const char *name)
{
	const char *d = name + 4;
	int64_t v = 0;

	if (strncmp(name, "rank", 4) || !*d || (d[0] == '0' && d[1]))
		return -1;
	for (; *d; d++) {
		if (*d < '0' || *d > '9')
			return -1;
		v = v * 10 + (*d - '0');
		if (v >= SB_MAX_RANK)
			return -1;
	}
	return v;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The ranks that have a group, ascending: schema 1's rank order. */
static int list_ranks(struct h5r *r, uint32_t **ranks, size_t *n)
{
	hsize_t nl, i;
	int64_t rank;
	char sub[64], *name;

	*n = 0;
	*ranks = NULL;
	if (links(r, r->file, "/", &nl))
		return -EINVAL;
	*ranks = calloc(nl ? nl : 1, sizeof(**ranks));
	if (!*ranks)
		return nomem(r);
	for (i = 0; i < nl; i++) {
		name = link_name(r->file, i);
		if (!name)
			return corrupt(r, "cannot list /");
		rank = rank_of(name);
		snprintf(sub, sizeof(sub), "%s/regions", name);
		if (rank >= 0 && exists(r->file, sub))
			(*ranks)[(*n)++] = (uint32_t)rank;
		free(name);
	}
	qsort(*ranks, *n, sizeof(**ranks), cmp_u32);
	return 0;
}

/* JSON list of the tags attribute (a string array), as schema 2 stores it. */
static char *tags_json(char **v, uint64_t n)
{
	size_t len = 3;
	uint64_t i;
	const char *c;
	char *out, *o;

	for (i = 0; i < n; i++)
		len += strlen(v[i]) * 6 + 3;
	out = malloc(len);
	if (!out)
		return NULL;
	o = out;
	*o++ = '[';
	for (i = 0; i < n; i++) {
		if (i)
			*o++ = ',';
		*o++ = '"';
		for (c = v[i]; *c; c++) {
			if (*c == '"' || *c == '\\')
				o += sprintf(o, "\\%c", *c);
			else if ((unsigned char)*c < 0x20)
				o += sprintf(o, "\\u%04x", (unsigned char)*c);
			else
				*o++ = *c;
		}
		*o++ = '"';
	}
	*o++ = ']';
	*o = '\0';
	return out;
}

/* Source location attributes of one schema-1 region group; missing or odd ones stay unknown. */
struct s1_loc {
	char *file;
	int64_t line;
	char *tags;
};

static int read_s1_loc(struct h5r *r, hid_t g, const char *what, struct s1_loc *loc)
{
	struct src s;
	char **v = NULL;
	hssize_t n;
	hid_t a;
	int ret;

	*loc = (struct s1_loc){ NULL, -1, NULL };
	ret = open_attr(r, g, "source_file", what, &a);
	if (ret > 0) {
		ret = attr_str(r, a, what, &loc->file);
		H5Aclose(a);
	}
	if (ret >= 0 && (ret = open_attr(r, g, "source_lineno", what, &a)) > 0) {
		ret = attr_int(r, a, what, &loc->line);
		H5Aclose(a);
	}
	if (ret >= 0 && (ret = open_attr(r, g, "tags", what, &a)) > 0) {
		n = attr_class(a) == H5T_STRING ? attr_points(a) : -1;
		s = (struct src){ a, true };
		ret = n < 0 || n > 4096 ? ABSENT : read_strs(r, &s, what, (uint64_t)n, &v);
		H5Aclose(a);
		if (!ret && v) {
			loc->tags = tags_json(v, (uint64_t)n);
			free_strs(v, (uint64_t)n);
			ret = loc->tags ? 0 : nomem(r);
		}
	}
	return ret < 0 ? ret : 0;
}

static int cmp_event(const void *a, const void *b)
{
	const struct sb_event *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Room for n more events and one more pair, doubling so many small regions stay linear. */
static int reserve(struct h5r *r, uint64_t n, uint64_t *ecap, size_t *pcap)
{
	struct sb_profile *p = r->p;
	uint64_t need = p->n_events + n, cap = *ecap ? *ecap : 64;
	void *q;

	while (cap < need)
		cap *= 2;
	if (cap != *ecap) {
		q = realloc(p->events, cap * sizeof(*p->events));
		if (!q)
			return nomem(r);
		p->events = q;
		*ecap = cap;
	}
	if (p->n_pairs < *pcap)
		return 0;
	q = realloc(p->pairs, (*pcap ? *pcap * 2 : 16) * sizeof(*p->pairs));
	if (!q)
		return nomem(r);
	p->pairs = q;
	*pcap = *pcap ? *pcap * 2 : 16;
	return 0;
}

/* Append one region group's calls as one pair; a group without calls is not a region. */
static int read_s1_calls(struct h5r *r, hid_t g, const char *what, uint32_t rank,
			 const char *name, const struct s1_loc *loc, uint64_t *ecap, size_t *pcap)
{
	struct sb_profile *p = r->p;
	struct sb_event *ev;
	struct sb_pair *q;
	struct col s, e;
	char wa[544], wb[544];
	ssize_t id;
	uint64_t i;
	int ret;

	snprintf(wa, sizeof(wa), "%s/start_times", what);
	snprintf(wb, sizeof(wb), "%s/end_times", what);
	ret = open_col(r, g, "start_times", wa, true, H5T_INTEGER, &s);
	if (ret < 0)
		return ret;
	ret = open_col(r, g, "end_times", wb, true, H5T_INTEGER, &e);
	if (ret >= 0)
		ret = check_len(r, wb, &e, s.n);
	if (ret < 0 || !s.n)
		goto out;
	/* The first location seen is kept. */
	id = sb_profile_find_region(p, name);
	if (id < 0)
		id = sb_profile_add_region(p, name, loc->file, loc->line, loc->tags);
	ret = id < 0 ? nomem(r) : reserve(r, s.n, ecap, pcap);
	if (ret)
		goto out;
	ev = p->events + p->n_events;
	for (i = 0; i < s.n; i++)
		ev[i] = r->blank;
	ret = read_field(r, &s, wa, H5T_NATIVE_INT64, ev, sizeof(*ev),
			 offsetof(struct sb_event, start));
	if (!ret)
		ret = read_field(r, &e, wb, H5T_NATIVE_INT64, ev, sizeof(*ev),
				 offsetof(struct sb_event, end));
	if (ret)
		goto out;
	/* Schema 1 appends calls as they end; the model wants them by start. */
	qsort(ev, s.n, sizeof(*ev), cmp_event);
	q = &p->pairs[p->n_pairs++];
	*q = (struct sb_pair){ .region = (uint32_t)id, .rank = rank, .offset = p->n_events,
			       .count = s.n, .exclusive_total = -1 };
	sb_stats_init(&q->stats);
	p->n_events += s.n;
out:
	close_col(&s);
	close_col(&e);
	return ret < 0 ? ret : 0;
}

static int read_s1_region(struct h5r *r, hid_t regions, const char *name, uint32_t rank,
			  uint64_t *ecap, size_t *pcap)
{
	struct s1_loc loc = { NULL, -1, NULL };
	char what[512], *uname;
	hid_t g;
	int ret;

	uname = utf8_copy(name);
	if (!uname)
		return nomem(r);
	snprintf(what, sizeof(what), "/rank%u/regions/%s", rank, uname);
	g = H5Gopen2(regions, name, H5P_DEFAULT);
	if (g < 0) {
		ret = corrupt(r, "%s is not a group", what);
		goto out;
	}
	ret = read_s1_loc(r, g, what, &loc);
	if (!ret)
		ret = read_s1_calls(r, g, what, rank, uname, &loc, ecap, pcap);
	H5Gclose(g);
out:
	free(loc.file);
	free(loc.tags);
	free(uname);
	return ret;
}

static int read_s1_rank(struct h5r *r, uint32_t rank, uint64_t *ecap, size_t *pcap)
{
	char what[64], *name;
	hsize_t n, i;
	hid_t g;
	int ret;

	snprintf(what, sizeof(what), "/rank%u/regions", rank);
	g = H5Gopen2(r->file, what, H5P_DEFAULT);
	if (g < 0)
		return corrupt(r, "%s is not a group", what);
	ret = links(r, g, what, &n);
	for (i = 0; i < n && !ret; i++) {
		name = link_name(g, i);
		if (!name) {
			ret = corrupt(r, "cannot list %s", what);
			break;
		}
		ret = read_s1_region(r, g, name, rank, ecap, pcap);
		free(name);
	}
	H5Gclose(g);
	return ret;
}

/* Region ids in order of first appearance: ranks ascending, regions by name within a rank. */
static int read_schema1(struct h5r *r)
{
	uint64_t ecap = 0;
	size_t i, n, pcap = 0;
	uint32_t *ranks;
	int ret;

	ret = list_ranks(r, &ranks, &n);
	for (i = 0; i < n && !ret; i++)
		ret = read_s1_rank(r, ranks[i], &ecap, &pcap);
	free(ranks);
	if (!ret && !r->p->events) {
		r->p->events = malloc(sizeof(*r->p->events));
		if (!r->p->events)
			ret = nomem(r);
	}
	return ret;
}

/* ---- thread table ---- */

struct tkey {
	uint64_t key;		/* rank << 32 | index */
};

static int cmp_tkey(const void *a, const void *b)
{
	uint64_t x = ((const struct tkey *)a)->key, y = ((const struct tkey *)b)->key;

	return x < y ? -1 : x > y;
}

/* Within each rank the indexes must be exactly 0..T-1: thread_ids index them. */
static int check_threads(struct h5r *r)
{
	const struct sb_profile *p = r->p;
	const struct sb_thread *t;
	struct tkey *k;
	size_t i, run = 0;
	int ret = 0;

	for (i = 0; i < p->n_threads; i++) {
		t = &p->threads[i];
		if (t->rank >= SB_MAX_RANK)
			return corrupt(r, "/thread_table row %zu: rank %u out of range", i,
				       t->rank);
		if (t->index < 0 || (uint64_t)t->index >= p->n_threads || t->index > UINT32_MAX)
			return corrupt(r, "/thread_table row %zu: index %lld out of range", i,
				       (long long)t->index);
	}
	k = malloc((p->n_threads ? p->n_threads : 1) * sizeof(*k));
	r->tcounts = calloc(p->n_threads ? p->n_threads : 1, sizeof(*r->tcounts));
	if (!k || !r->tcounts) {
		free(k);
		return nomem(r);
	}
	for (i = 0; i < p->n_threads; i++)
		k[i].key = (uint64_t)p->threads[i].rank << 32 | (uint64_t)p->threads[i].index;
	qsort(k, p->n_threads, sizeof(*k), cmp_tkey);
	for (i = 0; i < p->n_threads && !ret; i++) {
		if (i && k[i].key >> 32 != k[i - 1].key >> 32)
			run = 0;
		if ((k[i].key & 0xffffffffu) != run++) {
			ret = corrupt(r, "/thread_table: rank %u has duplicate or missing thread indexes",
				      (unsigned)(k[i].key >> 32));
			break;
		}
		if (run == 1)
			r->tcounts[r->n_tcounts++].rank = (uint32_t)(k[i].key >> 32);
		r->tcounts[r->n_tcounts - 1].count = run;
	}
	free(k);
	return ret;
}

static int read_thread_cols(struct h5r *r, uint64_t n)
{
	static const struct {
		const char *name;
		size_t off;
	} cols[] = {
		{ "/thread_table/start_ns", offsetof(struct sb_thread, start_ns) },
		{ "/thread_table/end_ns", offsetof(struct sb_thread, end_ns) },
		{ "/thread_table/cpu_ns", offsetof(struct sb_thread, cpu_ns) },
	};
	struct sb_thread *t = r->p->threads;
	char **names = NULL;
	uint64_t i;
	int ret;

	ret = load_ints(r, "/thread_table/index", true, n, H5T_NATIVE_INT64, t, sizeof(*t),
			offsetof(struct sb_thread, index));
	/* The OS tid: native_id, or ident from writers that have only that. */
	if (ret >= 0)
		ret = load_ints(r, "/thread_table/native_id", false, n, H5T_NATIVE_INT64, t,
				sizeof(*t), offsetof(struct sb_thread, tid));
	if (ret == ABSENT)
		ret = load_ints(r, "/thread_table/ident", false, n, H5T_NATIVE_INT64, t, sizeof(*t),
				offsetof(struct sb_thread, tid));
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]) && ret >= 0; i++)
		ret = load_ints(r, cols[i].name, false, n, H5T_NATIVE_INT64, t, sizeof(*t),
				cols[i].off);
	if (ret >= 0)
		ret = load_strs(r, r->file, "/thread_table/name", "/thread_table/name", false, n,
				&names);
	for (i = 0; i < n && ret >= 0; i++) {
		t[i].name = names ? names[i] : strdup("");
		if (names)
			names[i] = NULL;
		else if (!t[i].name)
			ret = nomem(r);
	}
	free_strs(names, n);
	return ret < 0 ? ret : 0;
}

static int read_threads(struct h5r *r)
{
	static const char what[] = "/thread_table/ranks";
	struct sb_profile *p = r->p;
	struct col c;
	uint64_t n, i;
	int ret;

	if (!exists(r->file, "thread_table"))
		return 0;
	r->has_threads = true;
	ret = open_col(r, r->file, what, what, true, H5T_INTEGER, &c);
	if (ret < 0)
		return ret;
	n = c.n;
	p->threads = alloc_growable(n, sizeof(*p->threads));
	if (!p->threads) {
		close_col(&c);
		return nomem(r);
	}
	p->n_threads = n;
	for (i = 0; i < n; i++)
		p->threads[i] = (struct sb_thread){ 0, -1, -1, -1, -1, -1, NULL };
	ret = read_field(r, &c, what, H5T_NATIVE_UINT32, p->threads, sizeof(*p->threads),
			 offsetof(struct sb_thread, rank));
	close_col(&c);
	if (!ret)
		ret = read_thread_cols(r, n);
	if (!ret)
		ret = check_threads(r);
	return ret;
}

/* ---- /scope_bpf/processes ---- */

static int read_processes(struct h5r *r)
{
	static const struct {
		const char *name;
		size_t off;
	} cols[] = {
		{ "/scope_bpf/processes/ppid", offsetof(struct sb_process, ppid) },
		{ "/scope_bpf/processes/rank", offsetof(struct sb_process, rank) },
		{ "/scope_bpf/processes/start_ns", offsetof(struct sb_process, start_ns) },
		{ "/scope_bpf/processes/end_ns", offsetof(struct sb_process, end_ns) },
		{ "/scope_bpf/processes/exit_code", offsetof(struct sb_process, exit_code) },
	};
	static const char what[] = "/scope_bpf/processes/pid";
	struct sb_profile *p = r->p;
	struct sb_process *q;
	char **cmds = NULL;
	struct col c;
	uint64_t n, i;
	int ret;

	if (!exists(r->file, "scope_bpf/processes"))
		return 0;
	ret = open_col(r, r->file, what, what, true, H5T_INTEGER, &c);
	if (ret < 0)
		return ret;
	n = c.n;
	q = p->processes = alloc_growable(n, sizeof(*p->processes));
	if (!q) {
		close_col(&c);
		return nomem(r);
	}
	p->n_processes = n;
	for (i = 0; i < n; i++)
		q[i] = (struct sb_process){ -1, -1, -1, -1, -1, -1, NULL };
	ret = read_field(r, &c, what, H5T_NATIVE_INT64, q, sizeof(*q),
			 offsetof(struct sb_process, pid));
	close_col(&c);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]) && ret >= 0; i++)
		ret = load_ints(r, cols[i].name, false, n, H5T_NATIVE_INT64, q, sizeof(*q),
				cols[i].off);
	if (ret >= 0)
		ret = load_strs(r, r->file, "/scope_bpf/processes/command",
				"/scope_bpf/processes/command", false, n, &cmds);
	for (i = 0; i < n && ret >= 0; i++) {
		q[i].command = cmds ? cmds[i] : strdup("");
		if (cmds)
			cmds[i] = NULL;
		else if (!q[i].command)
			ret = nomem(r);
	}
	free_strs(cmds, n);
	return ret < 0 ? ret : 0;
}

/* ---- checks and derived data, for every schema ---- */

static int cmp_rank_threads(const void *a, const void *b)
{
	const struct rank_threads *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Thread ids must index this rank's thread rows; without a table, at least be indexes. */
static uint64_t thread_limit(const struct h5r *r, uint32_t rank)
{
	struct rank_threads key = { rank, 0 }, *t;

	if (!r->has_threads)
		return INT64_MAX;
	t = bsearch(&key, r->tcounts, r->n_tcounts, sizeof(key), cmp_rank_threads);
	return t ? t->count : 0;
}

/* Schema 3: e->end holds the duration; make it the end time, or say why it cannot be. */
static int check_duration(struct h5r *r, uint64_t idx, struct sb_event *e)
{
	int64_t end;

	if (e->end < 0)
		return corrupt(r, "event %llu: negative duration %lld", (unsigned long long)idx,
			       (long long)e->end);
	if (__builtin_add_overflow(e->start, e->end, &end))
		return corrupt(r, "event %llu: start %lld + duration %lld overflows",
			       (unsigned long long)idx, (long long)e->start, (long long)e->end);
	e->end = end;
	return 0;
}

/* Schema 3 stores gaps and durations; rebuild absolute times, refusing any overflow. */
static int decode_deltas(struct h5r *r)
{
	const struct sb_profile *p = r->p;
	const struct sb_pair *q;
	struct sb_event *e;
	int64_t prev;
	uint64_t k;
	size_t i;
	int ret;

	for (i = 0; i < p->n_pairs; i++) {
		q = &p->pairs[i];
		for (k = 0; k < q->count; k++) {
			e = &p->events[q->offset + k];
			if (k && __builtin_add_overflow(prev, e->start, &e->start))
				return corrupt(r, "event %llu: start time overflows",
					       (unsigned long long)(q->offset + k));
			prev = e->start;
			ret = check_duration(r, q->offset + k, e);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Per index row while its events are checked: sums that must not overflow. */
struct pair_check {
	uint64_t limit;		/* thread ids of this rank */
	int64_t total;
	int64_t gpu;
};

static void pair_check_init(struct h5r *r, const struct sb_pair *q, struct pair_check *c)
{
	*c = (struct pair_check){ .limit = thread_limit(r, q->rank) };
}

/*
 * Everything later code computes from a pair's events (durations, totals,
 * thread lookups) must be computable: no call ends before it starts, no sum
 * overflows, every thread id points at a thread row. e is event idx of row.
 */
static int check_event(struct h5r *r, const struct sb_pair *q, size_t row, uint64_t idx,
		       const struct sb_event *e, struct pair_check *c)
{
	const struct sb_profile *p = r->p;
	int64_t d;

	if (e->end < e->start)
		return corrupt(r, "event %llu ends before it starts", (unsigned long long)idx);
	if (__builtin_sub_overflow(e->end, e->start, &d))
		return corrupt(r, "event %llu: duration from %lld to %lld overflows",
			       (unsigned long long)idx, (long long)e->start, (long long)e->end);
	if (__builtin_add_overflow(c->total, d, &c->total) ||
	    (e->metric[SB_METRIC_GPU] > 0 &&
	     __builtin_add_overflow(c->gpu, e->metric[SB_METRIC_GPU], &c->gpu)))
		return corrupt(r, "index row %zu: total time overflows", row);
	if ((p->columns & SB_COL_THREAD) && (e->thread < 0 || (uint64_t)e->thread >= c->limit))
		return corrupt(r, "event %llu: thread id %lld out of range (rank %u has %llu threads)",
			       (unsigned long long)idx, (long long)e->thread, q->rank,
			       (unsigned long long)(c->limit == INT64_MAX ? 0 : c->limit));
	return 0;
}

static int check_pair_events(struct h5r *r, const struct sb_pair *q, size_t row)
{
	struct pair_check c;
	uint64_t k;
	int ret = 0;

	pair_check_init(r, q, &c);
	for (k = 0; k < q->count && !ret; k++)
		ret = check_event(r, q, row, q->offset + k, &r->p->events[q->offset + k], &c);
	return ret;
}

/* A row's statistics before its events: from the file, or empty to be summed. */
static void pair_stats_begin(struct h5r *r, size_t row)
{
	struct sb_pair *q = &r->p->pairs[row];
	const struct sb_h5_stats *f;
	struct sb_stats *s = &q->stats;

	sb_stats_init(s);
	if (!r->fstats)
		return;
	f = &r->fstats[row];
	*s = (struct sb_stats){ f->total, f->minimum, f->maximum, f->first, f->last,
				f->start_minimum, f->end_maximum, f->gpu_count, f->gpu_total,
				f->mean, f->m2, q->count, INT64_MAX, INT64_MIN };
}

/* One event of the row: all of it without stored statistics, else only the starts they lack. */
static void pair_stats_add(struct h5r *r, size_t row, const struct sb_event *e)
{
	struct sb_stats *s = &r->p->pairs[row].stats;

	if (!r->fstats) {
		sb_stats_add(s, e->start, e->end, e->metric[SB_METRIC_GPU]);
		return;
	}
	/* Not on disk: the starts that pick first/last, needed to merge pairs later. */
	if (e->start < s->first_start)
		s->first_start = e->start;
	if (e->start >= s->last_start)
		s->last_start = e->start;
}

static void pair_stats(struct h5r *r, size_t row)
{
	const struct sb_pair *q = &r->p->pairs[row];
	uint64_t k;

	pair_stats_begin(r, row);
	for (k = 0; k < q->count; k++)
		pair_stats_add(r, row, &r->p->events[q->offset + k]);
}

/* ---- events left on disk, read in chunks (SB_H5_READ_LEAN) ---- */

#define EVENT_CHUNK 16384

/* One pass over the event columns; knows each row's index row, to decode schema 3. */
struct h5_events {
	struct sb_event_stream base;
	struct h5r *r;
	unsigned mask;
	hid_t d[SB_H5_MAX_EVENT_COLUMNS];
	uint64_t next;		/* the next event */
	size_t pair;		/* index rows begun */
	uint64_t left;		/* events of the current row still to come */
	int64_t prev;		/* decoded start of the previous event of the row */
	int64_t *col;		/* one column of a read, contiguous (read_rows) */
	size_t col_cap;
};

static void events_close(struct h5_events *e)
{
	int k;

	for (k = 0; k < e->r->n_cols; k++)
		if (e->d[k] >= 0)
			H5Dclose(e->d[k]);
	free(e->col);
	e->col = NULL;
	e->col_cap = 0;
}

/* Rebuild absolute times in rows of schema 3, refusing any overflow. */
static int decode_rows(struct h5_events *e, struct sb_event *rows, size_t n)
{
	const struct sb_profile *p = e->r->p;
	unsigned long long idx;
	bool first;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		first = false;
		while (!e->left && e->pair < p->n_pairs) {
			e->left = p->pairs[e->pair++].count;
			first = true;
		}
		idx = e->next + i;
		if (!e->left)
			return corrupt(e->r, "event %llu: in no index row", idx);
		e->left--;
		if (!first && __builtin_add_overflow(e->prev, rows[i].start, &rows[i].start))
			return corrupt(e->r, "event %llu: start time overflows", idx);
		e->prev = rows[i].start;
		ret = check_duration(e->r, idx, &rows[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Column k of e->col, read contiguous, into the field of rows or counter rows it belongs to. */
static void scatter(const struct h5_events *e, int k, struct sb_event *rows, int64_t *counters,
		    size_t n)
{
	const struct sb_h5_event_column *ec = &e->r->cols[k];
	unsigned slots = sb_profile_counter_slots(e->r->p);
	size_t i, stride, pos;

	if (ec->counter_id < 0) {
		for (i = 0; i < n; i++)
			memcpy((char *)&rows[i] + ec->offset, &e->col[i], sizeof(*e->col));
		return;
	}
	stride = sb_counter_stride(slots);
	pos = sb_counter_pos(slots, (unsigned)ec->counter_id);
	for (i = 0; i < n; i++)
		counters[i * stride + pos] = e->col[i];
}

/*
 * Column k of the next n events, into rows or, a counter column, into counter
 * rows. Read as one contiguous array, then spread: into the field of an array
 * of structs, libhdf5 reads each 8 bytes as a piece of its own.
 */
static int read_rows(struct h5_events *e, int k, struct sb_event *rows, int64_t *counters,
		     size_t n)
{
	hsize_t start = e->next, count = n;
	char buf_name[64];
	herr_t rc = -1;
	hid_t ms, fs;

	if (n > e->col_cap) {
		free(e->col);
		e->col = malloc(n * sizeof(*e->col));
		e->col_cap = e->col ? n : 0;
		if (!e->col)
			return -ENOMEM;
	}
	ms = H5Screate_simple(1, &count, NULL);
	fs = H5Dget_space(e->d[k]);
	if (ms >= 0 && fs >= 0 &&
	    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0)
		rc = H5Dread(e->d[k], H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, e->col);
	if (ms >= 0)
		H5Sclose(ms);
	if (fs >= 0)
		H5Sclose(fs);
	if (rc < 0)
		return corrupt(e->r, "cannot read %s",
			       event_col_name(e->r, k, buf_name, sizeof(buf_name)));
	scatter(e, k, rows, counters, n);
	return 0;
}

static ssize_t events_read(struct sb_event_stream *s, struct sb_event *rows, int64_t *counters,
			   size_t max)
{
	struct h5_events *e = (struct h5_events *)s;
	uint64_t left = e->r->p->n_events - e->next;
	size_t n = left < max ? (size_t)left : max, i;
	size_t stride = sb_counter_stride(sb_profile_counter_slots(e->r->p));
	int k, ret = 0;

	for (i = 0; i < n; i++)
		rows[i] = e->r->blank;
	for (i = 0; counters && i < n * stride; i++)
		counters[i] = -1;
	for (k = 0; k < e->r->n_cols && !ret && n; k++)
		if (e->d[k] >= 0 && (e->r->cols[k].counter_id < 0 || counters))
			ret = read_rows(e, k, rows, counters, n);
	if (!ret && e->r->schema == 3 && (e->mask & SB_COL_TIMES))
		ret = decode_rows(e, rows, n);
	if (ret)
		return ret;
	e->next += n;
	return (ssize_t)n;
}

/* Open the columns in mask (those the profile has) for one pass from the first event. */
static int events_open(struct h5_events *e, struct h5r *r, unsigned mask)
{
	const struct sb_h5_event_column *ec;
	struct col c;
	int k, ret;

	*e = (struct h5_events){ .base = { events_read }, .r = r, .mask = mask };
	for (k = 0; k < r->n_cols; k++)
		e->d[k] = H5I_INVALID_HID;
	for (k = 0; k < r->n_cols; k++) {
		ec = &r->cols[k];
		if (!(mask & (ec->bit ? ec->bit : SB_COL_TIMES)) ||
		    (ec->bit && !(r->p->columns & ec->bit)))
			continue;
		ret = open_event_col(r, k, r->p->n_events, &c);
		if (!ret)
			ret = corrupt(r, "an event column went missing");
		if (ret < 0) {
			events_close(e);
			return ret;
		}
		e->d[k] = c.d;
	}
	return 0;
}

/* Lean: check every event and finish the statistics in one pass, holding one chunk. */
static int check_streamed(struct h5r *r)
{
	const struct sb_profile *p = r->p;
	struct pair_check c;
	struct h5_events e;
	struct sb_event *rows;
	uint64_t left = 0, idx = 0;
	size_t row = 0, i;
	ssize_t got = 0;
	int ret;

	rows = malloc(EVENT_CHUNK * sizeof(*rows));
	if (!rows)
		return nomem(r);
	ret = events_open(&e, r, SB_COL_TIMES | SB_COL_THREAD | SB_COL_GPU);
	if (ret) {
		free(rows);
		return ret;
	}
	while (!ret && (got = events_read(&e.base, rows, NULL, EVENT_CHUNK)) > 0) {
		for (i = 0; i < (size_t)got && !ret; i++, idx++) {
			while (!left && row < p->n_pairs) {
				left = p->pairs[row].count;
				pair_check_init(r, &p->pairs[row], &c);
				pair_stats_begin(r, row++);
			}
			left--;
			ret = check_event(r, &p->pairs[row - 1], row - 1, idx, &rows[i], &c);
			if (!ret)
				pair_stats_add(r, row - 1, &rows[i]);
		}
	}
	if (!ret && got < 0)
		ret = (int)got;
	/* Rows without events still need their statistics set. */
	for (; !ret && row < p->n_pairs; row++)
		pair_stats_begin(r, row);
	events_close(&e);
	free(rows);
	return ret;
}

static int set_str(char **dst, const char *src)
{
	char *s = strdup(src && *src ? src : "");

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* A region takes its first row that knows a location, else its first row (first seen). */
static int apply_locations(struct h5r *r)
{
	struct sb_profile *p = r->p;
	struct sb_region *reg;
	bool *set, *known, knows;
	const char *file;
	int64_t line;
	size_t i;
	int ret = 0;

	set = calloc(p->n_regions ? p->n_regions : 1, sizeof(*set));
	known = calloc(p->n_regions ? p->n_regions : 1, sizeof(*known));
	for (i = 0; i < p->n_pairs && set && known && !ret; i++) {
		file = r->files ? r->files[i] : "";
		line = r->lines && r->lines[i] >= 0 ? r->lines[i] : -1;
		knows = *file || line >= 0;
		if (set[p->pairs[i].region] && (known[p->pairs[i].region] || !knows))
			continue;
		reg = &p->regions[p->pairs[i].region];
		set[p->pairs[i].region] = true;
		known[p->pairs[i].region] = knows;
		reg->source_line = line;
		ret = set_str(&reg->source_file, file);
		if (!ret)
			ret = set_str(&reg->source_text, r->texts ? r->texts[i] : "");
		if (!ret)
			ret = set_str(&reg->tags, r->tags && *r->tags[i] ? r->tags[i] : "[]");
	}
	if (!set || !known || ret)
		ret = nomem(r);
	free(set);
	free(known);
	return ret;
}

/* An aggregate's statistics are the stored ones: it has no events to compute them from. */
static int aggregate_stats(struct h5r *r)
{
	size_t i;

	if (!r->fstats)
		return corrupt(r, "an aggregate without /rank_region_index/summary_statistics");
	for (i = 0; i < r->p->n_pairs; i++)
		pair_stats_begin(r, i);
	return 0;
}

static int finish(struct h5r *r)
{
	char why[256];
	size_t i;
	int ret;

	if (sb_profile_check_index(r->p, why, sizeof(why)))
		return corrupt(r, "%s", why);
	/* Schema 1 and rows out of event order came back held: checked and decoded here. */
	r->lean = r->lean && !r->p->events;
	ret = r->schema == 3 && !r->lean ? decode_deltas(r) : 0;
	/* Schema 1 keeps locations on the region groups, already applied. */
	if (!ret && r->schema != 1)
		ret = apply_locations(r);
	if (!ret)
		ret = read_threads(r);
	if (!ret && r->lean)
		ret = check_streamed(r);
	if (!ret && r->p->agg.on)
		ret = aggregate_stats(r);
	for (i = 0; i < r->p->n_pairs && !ret && !r->lean && !r->p->agg.on; i++)
		ret = check_pair_events(r, &r->p->pairs[i], i);
	for (i = 0; i < r->p->n_pairs && !ret && !r->lean && !r->p->agg.on; i++)
		pair_stats(r, i);
	if (!ret)
		ret = read_processes(r);
	/* Last: sample and CUDA rows are checked against the ranks, threads and pairs read above. */
	if (!ret)
		ret = sb_h5_read_kinds(r->file, r->path, r->p, r->err);
	if (!ret && r->p->agg.on)
		ret = sb_h5_read_aggregate(r->file, r->path, r->p, r->err);
	return ret;
}

/* ---- opening and detection ---- */

static int open_file(struct h5r *r)
{
	struct stat st;
	hid_t fapl;

	r->n_cols = sb_h5_event_columns(r->cols);
	sb_event_blank(&r->blank);

	if (stat(r->path, &st)) {
		if (errno == ENOENT)
			return sb_fail(r->err, ENOENT, "%s: no such file", r->path);
		return sb_fail(r->err, errno, "%s: %s", r->path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return sb_fail(r->err, EINVAL, "%s: not a regular file", r->path);
	r->file_size = (uint64_t)st.st_size;
	if (H5Fis_hdf5(r->path) <= 0)
		return sb_fail(r->err, EINVAL, "%s: not an HDF5 file", r->path);
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	/* Strong close: one H5Fclose releases whatever an error path left open. */
	if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
		r->file = H5Fopen(r->path, H5F_ACC_RDONLY, fapl);
	if (fapl >= 0)
		H5Pclose(fapl);
	if (r->file < 0)
		return sb_fail(r->err, EINVAL,
			       "%s: not an HDF5 file (truncated or corrupt: cannot open it)",
			       r->path);
	return 0;
}

/* Schema 1 has no root attribute: recognise it by its rank<N>/regions groups. */
static int detect_schema1(struct h5r *r)
{
	uint32_t *ranks;
	size_t n;
	int ret;

	ret = list_ranks(r, &ranks, &n);
	free(ranks);
	if (ret)
		return ret;
	if (!n)
		return corrupt(r, "not a scope-profiler profile (no scope_profiler_schema attribute)");
	r->schema = 1;
	return 0;
}

static int check_layout(struct h5r *r)
{
	char *layout = NULL, shown[80];
	hid_t a;
	int ret;

	ret = open_attr(r, r->file, "storage_layout", "/", &a);
	if (ret <= 0)
		return ret;
	ret = attr_str(r, a, "/storage_layout", &layout);
	H5Aclose(a);
	if (ret > 0 && !strcmp(layout, "aggregate"))
		r->p->agg.on = true;
	else if (ret > 0 && strcmp(layout, "columnar"))
		ret = corrupt(r, "unsupported storage_layout '%s' (\"columnar\" and "
			      "\"aggregate\" are known)",
			      sb_read_printable(layout, shown, sizeof(shown)));
	free(layout);
	return ret < 0 ? ret : 0;
}

static int read_schema(struct h5r *r)
{
	int64_t v;
	hid_t a;
	int ret;

	ret = open_attr(r, r->file, "scope_profiler_schema", "/", &a);
	if (ret < 0)
		return ret;
	if (ret == ABSENT)
		return detect_schema1(r);
	ret = attr_int(r, a, "/scope_profiler_schema", &v);
	H5Aclose(a);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return corrupt(r, "scope_profiler_schema is not an integer");
	if (v < 1 || v > 3)
		return corrupt(r, "unsupported scope_profiler_schema %lld (this reader knows 1 to 3)",
			       (long long)v);
	r->schema = (int)v;
	return v == 1 ? 0 : check_layout(r);
}

static int set_format(struct h5r *r)
{
	const struct sb_meta *m = sb_profile_meta(r->p, "source");
	bool ours = m && !m->is_int && m->s && !strcmp(m->s, "scope-bpf");

	r->p->schema = r->schema;
	if (asprintf(&r->p->format, "%s HDF5 (schema %d)", ours ? "scope-bpf" : "scope-profiler",
		     r->schema) < 0) {
		r->p->format = NULL;
		return nomem(r);
	}
	return 0;
}

static void free_scratch(struct h5r *r)
{
	uint64_t n = r->p->n_pairs;

	free(r->lines);
	free_strs(r->files, n);
	free_strs(r->texts, n);
	free_strs(r->tags, n);
	free(r->fstats);
	free(r->tcounts);
}

int sb_h5_read(const char *path, struct sb_profile *p, struct sb_error *err)
{
	return sb_h5_read_opts(path, p, 0, err);
}

int sb_h5_read_opts(const char *path, struct sb_profile *p, unsigned flags, struct sb_error *err)
{
	struct h5r r = { .path = path, .err = err, .file = H5I_INVALID_HID, .p = p,
			 .lean = flags & SB_H5_READ_LEAN };
	int ret;

	sb_profile_init(p);
	/* Errors are reported once, through err; HDF5's stack dumps would only confuse users. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	ret = open_file(&r);
	if (ret)
		return ret;
	ret = read_schema(&r);
	/* Metadata first: it says whose file this is, and nothing else depends on it. */
	if (!ret)
		ret = read_metadata(&r);
	if (!ret)
		ret = r.schema == 1 ? read_schema1(&r) : read_columnar(&r);
	if (!ret)
		ret = finish(&r);
	if (!ret)
		ret = set_format(&r);
	free_scratch(&r);
	H5Fclose(r.file);
	if (ret)
		sb_profile_free(p);
	return ret;
}

/* One pass of a source: its own open file, since passes outlive the read. */
struct h5_pass {
	struct h5r r;
	struct h5_events e;
};

static int source_open(struct sb_event_source *src, unsigned mask, struct sb_event_stream **s,
		       struct sb_error *err)
{
	struct sb_h5_source *h = (struct sb_h5_source *)src;
	struct h5_pass *ps;
	int ret;

	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return sb_fail(err, ENOMEM, "%s: out of memory", h->path);
	ps->r = (struct h5r){ .path = h->path, .err = err, .file = H5I_INVALID_HID,
			      .p = (struct sb_profile *)h->p, .schema = h->p->schema };
	ret = open_file(&ps->r);
	if (!ret)
		ret = events_open(&ps->e, &ps->r, mask);
	if (ret) {
		if (ps->r.file >= 0)
			H5Fclose(ps->r.file);
		free(ps);
		return ret;
	}
	*s = &ps->e.base;
	return 0;
}

static void source_close(struct sb_event_source *src, struct sb_event_stream *s)
{
	struct h5_pass *ps = (struct h5_pass *)((char *)s - offsetof(struct h5_pass, e));

	(void)src;
	events_close(&ps->e);
	H5Fclose(ps->r.file);
	free(ps);
}

void sb_h5_source_init(struct sb_h5_source *s, const char *path, const struct sb_profile *p)
{
	*s = (struct sb_h5_source){ .base = { source_open, source_close }, .path = path, .p = p };
}
