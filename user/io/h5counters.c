/* Counter totals per region: /rank<N>/perf_events/<region>/ (FORMAT.md), from the per-call columns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5counters.h"
#include "io/h5write.h"

/* Metadata counter_events' i-th name, malloc'd; NULL when it has none. */
static char *event_name(const struct sb_profile *p, unsigned i)
{
	const struct sb_meta *m = sb_profile_meta(p, "counter_events");
	const char *s = m && !m->is_int && m->s ? m->s : NULL, *end;
	unsigned k;

	for (k = 0; s && k < i; k++) {
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	if (!s || !*s || *s == ',')
		return NULL;
	end = strchr(s, ',');
	return strndup(s, end ? (size_t)(end - s) : strlen(s));
}

int sb_counter_totals_init(struct sb_counter_totals *t, const struct sb_profile *p)
{
	char buf[32];
	unsigned i;

	memset(t, 0, sizeof(*t));
	while (t->n < SB_COUNTER_SLOTS && (p->columns & SB_COL_METRIC(SB_METRIC_COUNTER + t->n)))
		t->n++;
	if (!t->n)
		return 0;
	for (i = 0; i < t->n; i++) {
		t->names[i] = event_name(p, i);
		if (!t->names[i]) {
			snprintf(buf, sizeof(buf), "counter_%u", i);
			t->names[i] = strdup(buf);
		}
		if (!t->names[i])
			return -ENOMEM;
	}
	t->sum = calloc(p->n_pairs ? p->n_pairs * t->n : 1, sizeof(*t->sum));
	t->unknown = calloc(p->n_pairs ? p->n_pairs : 1, sizeof(*t->unknown));
	return t->sum && t->unknown ? 0 : -ENOMEM;
}

void sb_counter_totals_add(struct sb_counter_totals *t, const struct sb_profile *p,
			   const struct sb_event *rows, size_t n)
{
	const struct sb_pair *q;
	size_t r;
	unsigned i;
	int64_t v;

	for (r = 0; r < n && t->n; r++, t->row++) {
		while (t->pair < p->n_pairs &&
		       t->row >= p->pairs[t->pair].offset + p->pairs[t->pair].count)
			t->pair++;
		q = t->pair < p->n_pairs ? &p->pairs[t->pair] : NULL;
		if (!q || t->row < q->offset)
			continue;
		for (i = 0; i < t->n; i++) {
			v = rows[r].metric[SB_METRIC_COUNTER + i];
			if (v >= 0)
				t->sum[t->pair * t->n + i] += (uint64_t)v;
			else if (!i)
				t->unknown[t->pair]++;
		}
	}
}

static int fail(const char *path, const char *what, struct sb_error *err)
{
	return sb_fail(err, EIO, "%s: cannot write %s", path, what);
}

/* A 1-D attribute of variable-length UTF-8 strings. */
static int put_names_attr(hid_t obj, const char *key, char *const *v, unsigned n)
{
	hsize_t dim = n;
	hid_t t = sb_h5_str_type(), s = H5Screate_simple(1, &dim, NULL), a = H5I_INVALID_HID;
	int ret = -1;

	if (t >= 0 && s >= 0)
		a = H5Acreate2(obj, key, t, s, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0 && H5Awrite(a, t, v) >= 0)
		ret = 0;
	if (a >= 0)
		H5Aclose(a);
	if (s >= 0)
		H5Sclose(s);
	if (t >= 0)
		H5Tclose(t);
	return ret;
}

static int put_calls_attr(hid_t obj, int64_t calls)
{
	hid_t s = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
	int ret = -1;

	if (s >= 0)
		a = H5Acreate2(obj, "calls", H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &calls) >= 0)
		ret = 0;
	if (a >= 0)
		H5Aclose(a);
	if (s >= 0)
		H5Sclose(s);
	return ret;
}

static int put_values(hid_t g, const uint64_t *v, unsigned n)
{
	hsize_t dim = n;
	hid_t s = H5Screate_simple(1, &dim, NULL), d = H5I_INVALID_HID;
	int ret = -1;

	if (s >= 0)
		d = H5Dcreate2(g, "values", H5T_STD_U64LE, s, H5P_DEFAULT, H5P_DEFAULT,
			       H5P_DEFAULT);
	if (d >= 0 && H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)
		ret = 0;
	if (d >= 0)
		H5Dclose(d);
	if (s >= 0)
		H5Sclose(s);
	return ret;
}

/* The group at name, created with its parents as needed (names as UTF-8). */
static hid_t open_or_create(hid_t file, const char *name)
{
	hid_t lcpl, g;

	if (H5Lexists(file, name, H5P_DEFAULT) > 0)
		return H5Gopen2(file, name, H5P_DEFAULT);
	lcpl = H5Pcreate(H5P_LINK_CREATE);
	if (lcpl < 0)
		return lcpl;
	g = H5I_INVALID_HID;
	if (H5Pset_create_intermediate_group(lcpl, 1) >= 0 &&
	    H5Pset_char_encoding(lcpl, H5T_CSET_UTF8) >= 0)
		g = H5Gcreate2(file, name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
	H5Pclose(lcpl);
	return g;
}

/* A name HDF5 takes as one link: a region named "a/b" or "." has no group of its own. */
static bool one_link(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".");
}

static int write_pair(hid_t file, const char *path, const struct sb_profile *p,
		      const struct sb_counter_totals *t, size_t k, struct sb_error *err)
{
	const struct sb_pair *q = &p->pairs[k];
	const char *region = p->regions[q->region].name;
	char rank[48], *name;
	hid_t dir, g;
	int ret;

	snprintf(rank, sizeof(rank), "rank%u/perf_events", q->rank);
	dir = open_or_create(file, rank);
	if (dir < 0)
		return fail(path, rank, err);
	g = H5Gcreate2(dir, region, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Gclose(dir);
	if (g < 0 || put_calls_attr(g, (int64_t)q->count) ||
	    put_names_attr(g, "event_names", t->names, t->n) || put_values(g, t->sum + k * t->n, t->n))
		ret = -1;
	else
		ret = 0;
	if (g >= 0)
		H5Gclose(g);
	if (!ret)
		return 0;
	name = malloc(strlen(rank) + strlen(region) + 2);
	if (!name)
		return sb_fail(err, ENOMEM, "%s: out of memory", path);
	sprintf(name, "%s/%s", rank, region);
	ret = fail(path, name, err);
	free(name);
	return ret;
}

int sb_h5_write_perf_events(hid_t file, const char *path, const struct sb_profile *p,
			    const struct sb_counter_totals *t, struct sb_error *err)
{
	size_t k;
	int ret;

	for (k = 0; k < p->n_pairs && t->n; k++) {
		if (!one_link(p->regions[p->pairs[k].region].name))
			continue;
		ret = write_pair(file, path, p, t, k, err);
		if (ret)
			return ret;
	}
	return 0;
}

void sb_counter_totals_free(struct sb_counter_totals *t)
{
	unsigned i;

	for (i = 0; i < SB_COUNTER_SLOTS; i++)
		free(t->names[i]);
	free(t->sum);
	free(t->unknown);
	memset(t, 0, sizeof(*t));
}
