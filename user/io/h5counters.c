/* Counter totals per region: /rank<N>/perf_events/<region>/ (FORMAT.md), from the per-call columns. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/likwid.h"
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
	t->n = sb_profile_counter_slots(p);
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
	t->per_thread = sb_profile_meta(p, "counter_group") != NULL;
	sb_hashmap_init(&t->thread_of);
	return t->sum && t->unknown ? 0 : -ENOMEM;
}

/* The accumulator of (pair, thread), created empty; NULL when out of memory. */
static struct sb_counter_thread *thread_acc(struct sb_counter_totals *t, size_t pair,
					    int64_t thread)
{
	uint64_t *at = sb_hashmap_get(&t->thread_of, pair, (uint64_t)(thread + 1));
	struct sb_counter_thread *grown;
	size_t cap;

	if (at)
		return &t->threads[*at];
	if (t->n_threads == t->cap_threads) {
		cap = t->cap_threads ? 2 * t->cap_threads : 16;
		grown = realloc(t->threads, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		t->threads = grown;
		t->cap_threads = cap;
	}
	if (sb_hashmap_put(&t->thread_of, pair, (uint64_t)(thread + 1), t->n_threads))
		return NULL;
	t->threads[t->n_threads] = (struct sb_counter_thread){ .pair = pair, .thread = thread };
	return &t->threads[t->n_threads++];
}

static int add_thread_row(struct sb_counter_totals *t, const struct sb_event *e,
			  const int64_t *counts)
{
	struct sb_counter_thread *a = thread_acc(t, t->pair, e->thread);
	unsigned i;

	if (!a)
		return -ENOMEM;
	a->calls++;
	a->ns += e->end - e->start;
	for (i = 0; i < t->n; i++)
		if (counts[i] >= 0)
			a->counts[i] += (double)counts[i];
	return 0;
}

int sb_counter_totals_add(struct sb_counter_totals *t, const struct sb_profile *p,
			  const struct sb_event *rows, const int64_t *counters, size_t n)
{
	const int64_t *counts;
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
		counts = counters + r * sb_counter_stride(t->n);
		for (i = 0; i < t->n; i++) {
			v = counts[i];
			if (v >= 0)
				t->sum[t->pair * t->n + i] += (uint64_t)v;
			else if (!i)
				t->unknown[t->pair]++;
		}
		if (t->per_thread && add_thread_row(t, &rows[r], counts))
			return -ENOMEM;
	}
	return 0;
}

static int fail(const char *path, const char *what, struct sb_error *err)
{
	return sb_fail(err, EIO, "%s: cannot write %s", path, what);
}

static int put_str_attr(hid_t obj, const char *key, const char *v)
{
	hid_t t = sb_h5_str_type(), s = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
	int ret = -1;

	if (t >= 0 && s >= 0)
		a = H5Acreate2(obj, key, t, s, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0 && H5Awrite(a, t, &v) >= 0)
		ret = 0;
	if (a >= 0)
		H5Aclose(a);
	if (s >= 0)
		H5Sclose(s);
	if (t >= 0)
		H5Tclose(t);
	return ret;
}

static int put_i64_attr(hid_t obj, const char *key, int64_t v)
{
	hid_t s = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
	int ret = -1;

	if (s >= 0)
		a = H5Acreate2(obj, key, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0)
		ret = 0;
	if (a >= 0)
		H5Aclose(a);
	if (s >= 0)
		H5Sclose(s);
	return ret;
}

/* A dataset of cols values (rows < 0) or of rows x cols, from v. */
static int put_array(hid_t g, const char *name, hid_t ftype, hid_t mtype, long rows, hsize_t cols,
		     const void *v)
{
	hsize_t dims[2] = { rows < 0 ? cols : (hsize_t)rows, cols };
	int rank = rows < 0 ? 1 : 2;
	hid_t s, d = H5I_INVALID_HID;
	int ret = -1;

	s = H5Screate_simple(rank, dims, NULL);
	if (s >= 0)
		d = H5Dcreate2(g, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (d >= 0 && (!dims[0] || !dims[rank - 1] ||
		       H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0))
		ret = 0;
	if (d >= 0)
		H5Dclose(d);
	if (s >= 0)
		H5Sclose(s);
	return ret;
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
	if (g < 0 || put_i64_attr(g, "calls", (int64_t)q->count) ||
	    put_names_attr(g, "event_names", t->names, t->n) ||
	    put_array(g, "values", H5T_STD_U64LE, H5T_NATIVE_UINT64, -1, t->n, t->sum + k * t->n))
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

/* ---- /rank<N>/likwid/regions/<g>/ ---- */

/* What every region's LIKWID result shares: the group, its counters and metrics. */
struct likwid_out {
	hid_t file;
	const char *path;
	const struct sb_counter_totals *t;
	struct sb_likwid_group g;
	bool have_group;		/* the group file loaded: its metrics can be evaluated */
	const char *group_name;
	char *counter_names[SB_COUNTER_SLOTS];
	char *metric_names[SB_LIKWID_MAX_METRICS];
	unsigned n_metrics;
	double inverse_clock;		/* 1 / the CPU's nominal Hz; NaN unknown */
};

static const char *meta_str(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	return m && !m->is_int && m->s ? m->s : NULL;
}

/* Field i of a comma-separated list, malloc'd ("" past its end); NULL when out of memory. */
static char *list_field(const char *list, unsigned i)
{
	const char *s = list ? list : "", *end;

	while (i-- && s)
		s = (s = strchr(s, ',')) ? s + 1 : NULL;
	if (!s)
		return strdup("");
	end = strchr(s, ',');
	return strndup(s, end ? (size_t)(end - s) : strlen(s));
}

static int likwid_setup(struct likwid_out *o, const struct sb_profile *p)
{
	const struct sb_meta *hz = sb_profile_meta(p, "cpu_clock_hz");
	const char *arch = meta_str(p, "counter_group_arch");
	struct sb_error ignored = { .msg = "" };
	unsigned i;

	o->group_name = meta_str(p, "counter_group");
	o->inverse_clock = hz && hz->is_int && hz->i > 0 ? 1.0 / (double)hz->i : NAN;
	for (i = 0; i < o->t->n; i++) {
		o->counter_names[i] = list_field(meta_str(p, "counter_group_counters"), i);
		if (!o->counter_names[i])
			return -ENOMEM;
	}
	/* Another machine may lack LIKWID's files: the events still go out, without metrics. */
	o->have_group = arch && *arch &&
			!sb_likwid_group_load_arch(arch, o->group_name, &o->g, &ignored);
	for (i = 0; o->have_group && i < o->g.n_metrics; i++)
		o->metric_names[o->n_metrics++] = o->g.metrics[i].name;
	return 0;
}

static void likwid_free(struct likwid_out *o)
{
	unsigned i;

	for (i = 0; i < SB_COUNTER_SLOTS; i++)
		free(o->counter_names[i]);
	if (o->have_group)
		sb_likwid_group_free(&o->g);
}

/* The per-thread arrays of one index row's threads th[0..nt). */
static int put_threads(const struct likwid_out *o, hid_t g, const struct sb_counter_thread *th,
		       size_t nt)
{
	unsigned n = o->t->n, k, m;
	int64_t *cpus = malloc((nt + 1) * sizeof(*cpus)), *calls = malloc((nt + 1) * sizeof(*calls));
	double *times = malloc((nt + 1) * sizeof(*times));
	double *events = malloc((n * nt + 1) * sizeof(*events));
	double *metrics = malloc((o->n_metrics * nt + 1) * sizeof(*metrics));
	int ret = -ENOMEM;
	size_t i;

	if (!cpus || !calls || !times || !events || !metrics)
		goto out;
	for (i = 0; i < nt; i++) {
		/* A thread's counters follow it over CPUs: no one CPU is its. */
		cpus[i] = -1;
		calls[i] = (int64_t)th[i].calls;
		times[i] = (double)th[i].ns / 1e9;
		for (k = 0; k < n; k++)
			events[k * nt + i] = th[i].counts[k];
		for (m = 0; m < o->n_metrics; m++)
			metrics[m * nt + i] = sb_likwid_eval(&o->g, m, th[i].counts, times[i],
							     o->inverse_clock);
	}
	ret = put_array(g, "cpus", H5T_STD_I64LE, H5T_NATIVE_INT64, -1, nt, cpus) ||
	      put_array(g, "times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, -1, nt, times) ||
	      put_array(g, "call_counts", H5T_STD_I64LE, H5T_NATIVE_INT64, -1, nt, calls) ||
	      put_array(g, "events", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, nt, events) ||
	      put_array(g, "metrics", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, o->n_metrics, nt,
			metrics) ? -EIO : 0;
out:
	free(cpus);
	free(calls);
	free(times);
	free(events);
	free(metrics);
	return ret;
}
/* The LIKWID result of index row k, whose threads are th[0..nt). */
static int likwid_pair(const struct likwid_out *o, const struct sb_profile *p, size_t k,
		       const struct sb_counter_thread *th, size_t nt, struct sb_error *err)
{
	const struct sb_pair *q = &p->pairs[k];
	const char *region = p->regions[q->region].name;
	char dir[64], *name = strdup(region), *c;
	hid_t d, g = H5I_INVALID_HID;
	int ret = -1;

	if (!name)
		return sb_fail(err, ENOMEM, "%s: out of memory", o->path);
	/* scope-profiler's own group names: the region's, '/' written as '|'. */
	for (c = name; *c; c++)
		if (*c == '/')
			*c = '|';
	/* "." is no link name; its calls keep their columns. */
	if (!one_link(name)) {
		free(name);
		return 0;
	}
	snprintf(dir, sizeof(dir), "rank%u/likwid/regions", q->rank);
	d = open_or_create(o->file, dir);
	if (d >= 0)
		g = H5Gcreate2(d, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g >= 0 && !put_str_attr(g, "tag", region) && !put_i64_attr(g, "group_id", -1) &&
	    !put_str_attr(g, "group_name", o->group_name) &&
	    !put_str_attr(g, "source", "scope-bpf") &&
	    !put_names_attr(g, "event_names", o->t->names, o->t->n) &&
	    !put_names_attr(g, "counter_names", o->counter_names, o->t->n) &&
	    !put_names_attr(g, "metric_names", (char *const *)o->metric_names, o->n_metrics))
		ret = put_threads(o, g, th, nt);
	if (g >= 0)
		H5Gclose(g);
	if (d >= 0)
		H5Gclose(d);
	if (ret == -ENOMEM)
		ret = sb_fail(err, ENOMEM, "%s: out of memory", o->path);
	else if (ret)
		ret = sb_fail(err, EIO, "%s: cannot write %s/%s", o->path, dir, name);
	free(name);
	return ret;
}

int sb_h5_write_likwid(hid_t file, const char *path, const struct sb_profile *p,
		       const struct sb_counter_totals *t, struct sb_error *err)
{
	struct likwid_out o = { .file = file, .path = path, .t = t };
	size_t k, first = 0, end;
	int ret;

	if (!t->n || !t->per_thread)
		return 0;
	ret = likwid_setup(&o, p);
	if (ret) {
		likwid_free(&o);
		return sb_fail(err, ENOMEM, "%s: out of memory", path);
	}
	/* Rows stream pair by pair: each pair's threads are next to each other. */
	for (k = 0; k < p->n_pairs && !ret; k++) {
		for (end = first; end < t->n_threads && t->threads[end].pair == k; end++)
			;
		if (end > first)
			ret = likwid_pair(&o, p, k, t->threads + first, end - first, err);
		first = end;
	}
	likwid_free(&o);
	return ret;
}

void sb_counter_totals_free(struct sb_counter_totals *t)
{
	unsigned i;

	for (i = 0; i < SB_COUNTER_SLOTS; i++)
		free(t->names[i]);
	free(t->sum);
	free(t->unknown);
	free(t->threads);
	sb_hashmap_free(&t->thread_of);
	memset(t, 0, sizeof(*t));
}
