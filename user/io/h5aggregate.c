/*
 * The rows of an aggregate recording under /scope_bpf/aggregate/: one per
 * (rank, thread, region path, window), its rows and region paths as tables
 * (model/aggregate_table.c), the window in the group's attributes and the
 * summed metric columns under values/, named by the recording.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5aggregate.h"
#include "io/h5table.h"

#define GROUP "scope_bpf/aggregate"

/* ---- writing ---- */

/* The group's window_ns and origin_ns. */
static int put_window(struct sb_h5w *w, const struct sb_aggregate *a)
{
	hid_t g = H5Gopen2(w->file, GROUP, H5P_DEFAULT);
	int ret;

	if (g < 0)
		return sb_fail(w->err, EIO, "%s: cannot write %s", w->path, GROUP);
	ret = sb_h5_put_attr_i64(w, g, "window_ns", a->window_ns);
	if (!ret)
		ret = sb_h5_put_attr_i64(w, g, "origin_ns", a->origin_ns);
	H5Gclose(g);
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

int sb_h5_write_aggregate(hid_t file, const char *path, const struct sb_profile *p,
			  struct sb_error *err)
{
	struct sb_h5w w = { .path = path, .err = err, .file = file };
	const struct sb_aggregate *a = &p->agg;
	char why[256];
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
	if (!ret)
		ret = sb_h5_write_table(&w, &sb_agg_kind, &sb_agg_kind.tables[0], a);
	if (!ret)
		ret = write_values(&w, a);
	return ret ? ret : sb_h5_write_table(&w, &sb_agg_kind, &sb_agg_kind.tables[1], a);
}

/* ---- reading ---- */

/* One values/ column, read as a table of its own. */
struct value_col {
	int64_t *v;
	size_t n;
};

static int read_value(struct sb_h5_section *r, const char *name, struct value_col *c)
{
	const struct sb_table_col col = { name, SB_COL_I64, 1, SB_ROLE_VALUE, "", 0, 0 };
	const struct sb_table t = { "values/", &col, 1, sizeof(int64_t),
				    offsetof(struct value_col, v), offsetof(struct value_col, n),
				    false, NULL, false, NULL };

	return sb_h5_read_table(r, &sb_agg_kind, &t, c);
}

/* values/<name> for each metric column this reader knows; others are passed over. */
static int read_values(struct sb_h5_section *r, struct sb_aggregate *a)
{
	struct value_col c = { NULL, 0 };
	unsigned id, k = 0;
	char what[128];
	size_t i;
	int ret = 0;

	a->value_ids = calloc(SB_N_METRICS, sizeof(*a->value_ids));
	a->values = calloc(a->n_rows * SB_N_METRICS + 1, sizeof(*a->values));
	if (!a->value_ids || !a->values)
		return sb_h5_section_nomem(r);
	for (id = 0; id < SB_N_METRICS && !ret; id++) {
		snprintf(what, sizeof(what), "/" GROUP "/values/%s", sb_column(id)->name);
		if (H5Lexists(r->file, "/" GROUP "/values", H5P_DEFAULT) <= 0 ||
		    H5Lexists(r->file, what, H5P_DEFAULT) <= 0)
			continue;
		ret = read_value(r, sb_column(id)->name, &c);
		if (!ret && c.n != a->n_rows)
			ret = sb_h5_corrupt(r, "%s has %zu rows, not %zu", what, c.n, a->n_rows);
		a->value_ids[k] = id;
		for (i = 0; i < a->n_rows && !ret; i++)
			a->values[i * SB_N_METRICS + k] = c.v[i];
		k++;
		free(c.v);
		c = (struct value_col){ NULL, 0 };
	}
	/* Rows were laid out SB_N_METRICS wide: packed to the k columns found. */
	for (i = 0; i < a->n_rows && !ret; i++)
		memmove(a->values + i * k, a->values + i * SB_N_METRICS, k * sizeof(*a->values));
	a->n_values = k;
	return ret;
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
	int ret;

	ret = read_attr(r, "window_ns", &a->window_ns);
	if (!ret)
		ret = read_attr(r, "origin_ns", &a->origin_ns);
	if (!ret)
		ret = sb_h5_read_table(r, &sb_agg_kind, &sb_agg_kind.tables[0], a);
	if (!ret)
		ret = read_values(r, a);
	return ret ? ret : sb_h5_read_table(r, &sb_agg_kind, &sb_agg_kind.tables[1], a);
}

int sb_h5_read_aggregate(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct sb_h5_section r = { file, path, err, 0 };
	char why[256];
	hsize_t size;
	int ret;

	if (!sb_h5_kind_present(file, &sb_agg_kind))
		return sb_h5_corrupt(&r, "storage_layout \"aggregate\" without /" GROUP);
	if (H5Fget_filesize(file, &size) < 0)
		return sb_h5_corrupt(&r, "cannot read the file size");
	r.file_size = size;
	ret = read_all(&r, &p->agg);
	if (!ret && sb_aggregate_check(&p->agg, sb_profile_rank_count(p), why, sizeof(why)))
		ret = sb_h5_corrupt(&r, "/" GROUP ": %s", why);
	return ret;
}
