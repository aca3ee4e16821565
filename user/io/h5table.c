/* Tables with column roles in HDF5: every kind's columns written and read by one code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5table.h"

static hid_t file_type(enum sb_col_type t)
{
	switch (t) {
	case SB_COL_I64:
		return H5T_STD_I64LE;
	case SB_COL_U64:
		return H5T_STD_U64LE;
	case SB_COL_I32:
		return H5T_STD_I32LE;
	case SB_COL_U32:
		return H5T_STD_U32LE;
	default:
		return H5T_STD_I8LE;
	}
}

static hid_t mem_type(enum sb_col_type t)
{
	switch (t) {
	case SB_COL_I64:
		return H5T_NATIVE_INT64;
	case SB_COL_U64:
		return H5T_NATIVE_UINT64;
	case SB_COL_I32:
		return H5T_NATIVE_INT32;
	case SB_COL_U32:
		return H5T_NATIVE_UINT32;
	default:
		return H5T_NATIVE_INT8;
	}
}

/* Bytes of one value in memory. */
static size_t value_size(enum sb_col_type t)
{
	return t == SB_COL_I64 || t == SB_COL_U64 ? 8 : t == SB_COL_BOOL ? 1 : 4;
}

static void column_name(char *buf, size_t len, const struct sb_kind *k, const struct sb_table *t,
			const struct sb_table_col *c)
{
	snprintf(buf, len, "/%s/%s%s", k->group, t->prefix, c->name);
}

bool sb_h5_kind_present(hid_t file, const struct sb_kind *k)
{
	return H5Lexists(file, "scope_bpf", H5P_DEFAULT) > 0 &&
	       H5Lexists(file, k->group, H5P_DEFAULT) > 0;
}

/* ---- writing ---- */

/* width values a row: gathered, since HDF5 has no selection of a field that is an array. */
static int write_wide(struct sb_h5w *w, const char *name, const struct sb_table_col *c,
		      const char *rows, size_t n, size_t stride)
{
	size_t el = value_size(c->type) * c->width, i;
	hsize_t dim[2] = { n, c->width };
	hid_t s, d = H5I_INVALID_HID;
	char *v;
	int ret = 0;

	v = malloc(n * el + 1);
	if (!v)
		return sb_fail(w->err, ENOMEM, "%s: out of memory", w->path);
	for (i = 0; i < n; i++)
		memcpy(v + i * el, rows + i * stride + c->off, el);
	s = H5Screate_simple(2, dim, NULL);
	if (s >= 0)
		d = H5Dcreate2(w->file, name, file_type(c->type), s, H5P_DEFAULT, H5P_DEFAULT,
			       H5P_DEFAULT);
	if (d < 0 || (n && H5Dwrite(d, mem_type(c->type), H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0))
		ret = sb_fail(w->err, EIO, "%s: cannot write %s", w->path, name);
	if (d >= 0 && H5Dclose(d) < 0 && !ret)
		ret = sb_fail(w->err, EIO, "%s: cannot write %s", w->path, name);
	if (s >= 0)
		H5Sclose(s);
	free(v);
	return ret;
}

int sb_h5_write_table(struct sb_h5w *w, const struct sb_kind *k, const struct sb_table *t,
		      const void *d)
{
	const char *rows = sb_table_rows(t, d);
	size_t n = *sb_table_len(t, d), i;
	const struct sb_table_col *c;
	char name[128];
	int ret = 0;

	if (t->optional && !n)
		return 0;
	if (*t->prefix) {
		snprintf(name, sizeof(name), "%s/%.*s", k->group, (int)strlen(t->prefix) - 1,
			 t->prefix);
		ret = sb_h5_make_group(w, name);
	}
	for (i = 0; i < t->n_cols && !ret; i++) {
		c = &t->cols[i];
		column_name(name, sizeof(name), k, t, c);
		if (c->type == SB_COL_STR)
			ret = sb_h5_put_strings(w, name, rows, n, t->stride, c->off);
		else if (c->width > 1)
			ret = write_wide(w, name, c, rows, n, t->stride);
		else
			/* A bool is one byte holding 0 or 1: it goes out as an int8 as it is. */
			ret = sb_h5_put_field(w, name, file_type(c->type), mem_type(c->type),
					      rows, n, t->stride, c->off);
	}
	return ret;
}

int sb_h5_write_kind(struct sb_h5w *w, const struct sb_kind *k, const void *d)
{
	size_t i;
	int ret;

	ret = sb_h5_make_group(w, "scope_bpf");
	if (!ret)
		ret = sb_h5_make_group(w, k->group);
	for (i = 0; i < k->n_tables && !ret; i++)
		ret = sb_h5_write_table(w, k, &k->tables[i], d);
	return ret;
}

/* ---- reading ---- */

static int check_shape(struct sb_h5_section *r, const struct sb_kind *k, const char *what,
		       hid_t s, hid_t t, const struct sb_table_col *c, hsize_t *dim)
{
	bool str = c->type == SB_COL_STR;
	int rank = c->width > 1 ? 2 : 1;

	if (H5Tget_class(t) != (str ? H5T_STRING : H5T_INTEGER))
		return sb_h5_corrupt(r, "%s has the wrong type (%s expected)", what,
				     str ? "string" : "integer");
	if (str && H5Tis_variable_str(t) <= 0)
		return sb_h5_corrupt(r, "%s is not a variable-length string", what);
	if (H5Sget_simple_extent_ndims(s) != rank ||
	    H5Sget_simple_extent_dims(s, dim, NULL) != rank || (rank == 2 && dim[1] != c->width)) {
		if (rank == 1)
			return sb_h5_corrupt(r, "%s is not a 1-D column", what);
		return sb_h5_corrupt(r, "%s is not an (N,%u) table", what, c->width);
	}
	if (dim[0] > k->max_rows)
		return sb_h5_corrupt(r, "%s declares %llu rows (limit %llu)", what,
				     (unsigned long long)dim[0], (unsigned long long)k->max_rows);
	return 0;
}

/* Open a required column and learn its length; *d is left open only on success. */
static int open_column(struct sb_h5_section *r, const struct sb_kind *k, const char *what,
		       const struct sb_table_col *c, hid_t *d, uint64_t *n)
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
		ret = check_shape(r, k, what, s, t, c, dim);
	if (!ret)
		ret = sb_h5_check_storage(*d, t, dim[0] * c->width, r->file_size, r->path, what,
					  r->err);
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

/* Whole rows of the dataset into a buffer, then each row's values to its field. */
static int read_gathered(struct sb_h5_section *r, const char *what, hid_t d,
			 const struct sb_table_col *c, char *rows, size_t n, size_t stride)
{
	size_t el = value_size(c->type) * c->width, i;
	char *v = malloc(n * el);
	int ret = 0;

	if (!v)
		return sb_h5_section_nomem(r);
	if (H5Dread(d, mem_type(c->type), H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
		ret = sb_h5_corrupt(r, "cannot read %s", what);
	for (i = 0; i < n && !ret; i++) {
		/* Any nonzero byte means true: a bool must never hold anything but 0 or 1. */
		if (c->type == SB_COL_BOOL)
			*(bool *)(rows + i * stride + c->off) = v[i] != 0;
		else
			memcpy(rows + i * stride + c->off, v + i * el, el);
	}
	free(v);
	return ret;
}

static int read_column(struct sb_h5_section *r, const char *what, hid_t d,
		       const struct sb_table_col *c, const struct sb_table *t, char *rows, size_t n)
{
	hid_t ms;
	herr_t rc;
	int ret;

	if (!n)
		return 0;
	if (c->type == SB_COL_STR) {
		ret = sb_h5_get_strings(d, false, H5T_CSET_UTF8, rows, n, t->stride, c->off);
		if (ret == -EIO)
			return sb_h5_corrupt(r, "cannot read %s", what);
		return ret ? sb_h5_section_nomem(r) : 0;
	}
	if (c->type == SB_COL_BOOL || c->width > 1)
		return read_gathered(r, what, d, c, rows, n, t->stride);
	ms = sb_h5_field_space(n, t->stride, c->off, value_size(c->type));
	if (ms < 0)
		return sb_h5_corrupt(r, "cannot read %s", what);
	rc = H5Dread(d, mem_type(c->type), ms, H5S_ALL, H5P_DEFAULT, rows);
	H5Sclose(ms);
	return rc < 0 ? sb_h5_corrupt(r, "cannot read %s", what) : 0;
}

/* Every column must be there with the first one's length, before any row is allocated. */
static int open_table(struct sb_h5_section *r, const struct sb_kind *k, const struct sb_table *t,
		      hid_t *d, uint64_t *n)
{
	char what[128];
	uint64_t len;
	size_t i;
	int ret = 0;

	for (i = 0; i < t->n_cols && !ret; i++) {
		column_name(what, sizeof(what), k, t, &t->cols[i]);
		ret = open_column(r, k, what, &t->cols[i], &d[i], i ? &len : n);
		if (!ret && i && len != *n)
			ret = sb_h5_corrupt(r, "column lengths differ: %s has %llu rows, expected %llu",
					    what, (unsigned long long)len, (unsigned long long)*n);
	}
	return ret;
}

int sb_h5_read_table(struct sb_h5_section *r, const struct sb_kind *k, const struct sb_table *t,
		     void *data)
{
	char what[128], *rows;
	uint64_t n = 0;
	size_t i;
	hid_t *d;
	int ret;

	/* An optional table is a group: all of its columns, or nothing. */
	snprintf(what, sizeof(what), "%s/%.*s", k->group, (int)strlen(t->prefix) - 1, t->prefix);
	if (t->optional && H5Lexists(r->file, what, H5P_DEFAULT) <= 0)
		return 0;
	d = malloc(t->n_cols * sizeof(*d));
	if (!d)
		return sb_h5_section_nomem(r);
	for (i = 0; i < t->n_cols; i++)
		d[i] = H5I_INVALID_HID;
	ret = open_table(r, k, t, d, &n);
	/* n is backed by stored bytes (check_storage), so this allocation cannot be absurd. */
	rows = ret ? NULL : calloc(n ? n : 1, t->stride);
	if (!ret && !rows)
		ret = sb_h5_section_nomem(r);
	if (rows) {
		*(void **)((char *)data + t->arr) = rows;
		*sb_table_len(t, data) = n;
	}
	for (i = 0; i < t->n_cols && !ret; i++) {
		column_name(what, sizeof(what), k, t, &t->cols[i]);
		ret = read_column(r, what, d[i], &t->cols[i], t, rows, n);
	}
	for (i = 0; i < t->n_cols; i++)
		if (d[i] >= 0)
			H5Dclose(d[i]);
	free(d);
	return ret;
}

int sb_h5_read_kind(struct sb_h5_section *r, const struct sb_kind *k, void *d)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < k->n_tables && !ret; i++)
		ret = sb_h5_read_table(r, k, &k->tables[i], d);
	return ret;
}

/* ---- every kind ---- */

int sb_h5_write_kinds(hid_t file, const char *path, const struct sb_profile *p,
		      struct sb_error *err)
{
	struct sb_h5w w = { .path = path, .err = err, .file = file };
	const struct sb_kind *k;
	char why[256];
	size_t i;
	int ret = 0;

	for (i = 0; i < sb_n_kinds && !ret; i++) {
		k = sb_kinds[i];
		if (!sb_kind_recorded(k, p))
			continue;
		if (sb_kind_check(k, p, why, sizeof(why)))
			return sb_fail(err, EINVAL, "%s: cannot write invalid %s: %s", path,
				       k->what, why);
		ret = sb_h5_write_kind(&w, k, sb_kind_data(k, p));
	}
	return ret;
}

static int read_one(struct sb_h5_section *r, const struct sb_kind *k, struct sb_profile *p)
{
	void *d = sb_kind_data(k, p);
	char why[256];
	int ret;

	ret = sb_h5_read_kind(r, k, d);
	if (!ret && sb_kind_check(k, p, why, sizeof(why)))
		ret = sb_h5_corrupt(r, "/%s%s%s", k->group, k->sep, why);
	if (ret)
		sb_kind_free(k, d);
	return ret;
}

int sb_h5_read_kinds(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct sb_h5_section r = { file, path, err, 0 };
	hsize_t size;
	size_t i;
	int ret = 0;

	for (i = 0; i < sb_n_kinds && !ret; i++) {
		if (!sb_h5_kind_present(file, sb_kinds[i]))
			continue;
		if (H5Fget_filesize(file, &size) < 0)
			return sb_h5_corrupt(&r, "cannot read the file size");
		r.file_size = size;
		ret = read_one(&r, sb_kinds[i], p);
	}
	return ret;
}
