/* Region-by-region comparison of two profiles: sums over ranks, exact p95, deltas, the gate. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/mpi_fns.h"

/* One distinct region name (or MPI function) of one profile, summed over its pairs. */
struct entry {
	const char *name;
	bool mpi_function;
	struct sb_diff_side side;
};

struct table {
	struct entry *e;
	size_t n;
};

struct name_id {
	const char *name;
	uint32_t id;
};

static const char *const metric_names[] = {
	[SB_DIFF_TOTAL] = "total",
	[SB_DIFF_AVG] = "avg",
	[SB_DIFF_P95] = "p95",
	[SB_DIFF_CALLS] = "calls",
	[SB_DIFF_COUNTER] = "counter",
};

int sb_diff_metric_parse(const char *s, enum sb_diff_metric *m)
{
	size_t i;

	/* An event is named by itself, never as "counter". */
	for (i = 0; i < SB_DIFF_COUNTER; i++) {
		if (!strcmp(s, metric_names[i])) {
			*m = (enum sb_diff_metric)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *sb_diff_metric_name(enum sb_diff_metric m)
{
	return metric_names[m];
}

int sb_diff_pct_parse(const char *s, int64_t *millionths)
{
	size_t digits = strspn(s, "0123456789"), frac = 0;
	char *end;
	double v;

	/* Plain decimals only: strtod would also take " 5", "0x5", "1e3", "inf" and "nan". */
	if (s[digits] == '.')
		frac = strspn(s + digits + 1, "0123456789") + 1;
	if (s[digits + frac] || digits + frac == 0 || (!digits && frac == 1))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > 1e9)
		return -EINVAL;
	*millionths = llround(v * SB_DIFF_PCT_SCALE);
	return 0;
}

static int64_t add_sat(int64_t x, int64_t y)
{
	int64_t r;

	if (!__builtin_add_overflow(x, y, &r))
		return r;
	return y > 0 ? INT64_MAX : INT64_MIN + 1;
}

/* b - a, kept off INT64_MIN so it never reads as SB_DIFF_UNKNOWN. */
static int64_t sub_sat(int64_t b, int64_t a)
{
	int64_t r;

	if (__builtin_sub_overflow(b, a, &r))
		return a < 0 ? INT64_MAX : INT64_MIN + 1;
	return r == INT64_MIN ? INT64_MIN + 1 : r;
}

int64_t sb_diff_value(const struct sb_diff_side *s, enum sb_diff_metric metric)
{
	switch (metric) {
	case SB_DIFF_AVG:
		return s->avg;
	case SB_DIFF_P95:
		return s->p95;
	case SB_DIFF_CALLS:
		return s->calls > INT64_MAX ? INT64_MAX : (int64_t)s->calls;
	case SB_DIFF_COUNTER:
		return s->counter;
	default:
		return s->total;
	}
}

bool sb_diff_exceeds(int64_t a, int64_t b, int64_t max_regression)
{
	if (max_regression < 0 || a == SB_DIFF_UNKNOWN || b == SB_DIFF_UNKNOWN || b <= a)
		return false;
	if (a <= 0)
		return true;
	/* (b - a) / a * 100 > limit / SCALE, in integers so the boundary is exact. */
	return (__int128)(b - a) * 100 * SB_DIFF_PCT_SCALE > (__int128)max_regression * a;
}

static void swap64(int64_t *x, int64_t *y)
{
	int64_t t = *x;

	*x = *y;
	*y = t;
}

static int64_t median3(int64_t x, int64_t y, int64_t z)
{
	if (x > y)
		swap64(&x, &y);
	if (y > z)
		y = z;
	return x > y ? x : y;
}

/*
 * Quickselect with a three-way partition: durations repeat a lot (the same
 * loop body, the same timer tick), and equal keys must not make it quadratic.
 */
static int64_t select_kth(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n, lt, gt, i;
	int64_t pivot;

	while (hi - lo > 1) {
		pivot = median3(v[lo], v[lo + (hi - lo) / 2], v[hi - 1]);
		lt = i = lo;
		gt = hi;
		while (i < gt) {
			if (v[i] < pivot)
				swap64(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap64(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[k];
}

int64_t sb_diff_p95(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	/* ceil(0.95 n) = n - floor(n / 20), without overflow or floating point. */
	return select_kth(v, n, n - n / 20 - 1);
}

static int cmp_name_id(const void *pa, const void *pb)
{
	const struct name_id *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return (a->id > b->id) - (a->id < b->id);
}

/* What region i is compared by: its MPI function ("mpi:recv") when f groups them, or its name. */
static const char *row_name(const struct sb_profile *p, const struct sb_mpi_fns *f, size_t i)
{
	return f && f->of[i] >= 0 ? f->name[f->of[i]] : p->regions[i].name;
}

/*
 * Distinct names (f: MPI call regions by function) in name order;
 * entry_of[region id] says which entry a region folds into.
 */
static int collect_names(const struct sb_profile *p, const struct sb_mpi_fns *f,
			 struct table *t, size_t *entry_of)
{
	struct name_id *ids;
	size_t i;

	ids = malloc((p->n_regions + 1) * sizeof(*ids));
	t->e = calloc(p->n_regions + 1, sizeof(*t->e));
	if (!ids || !t->e) {
		free(ids);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_regions; i++)
		ids[i] = (struct name_id){ .name = row_name(p, f, i), .id = (uint32_t)i };
	qsort(ids, p->n_regions, sizeof(*ids), cmp_name_id);
	for (i = 0; i < p->n_regions; i++) {
		if (!t->n || strcmp(t->e[t->n - 1].name, ids[i].name))
			t->e[t->n++].name = ids[i].name;
		entry_of[ids[i].id] = t->n - 1;
		t->e[t->n - 1].mpi_function |= f && f->of[ids[i].id] >= 0;
	}
	free(ids);
	return 0;
}

static bool pair_in_events(const struct sb_profile *p, const struct sb_pair *pr)
{
	return pr->offset <= p->n_events && pr->count <= p->n_events - pr->offset;
}

/* Durations of the calls of these pairs into buf; false when some are not held. */
static bool gather(const struct sb_profile *p, const size_t *pairs, size_t n, int64_t *buf)
{
	const struct sb_event *ev;
	const struct sb_pair *pr;
	size_t i, m = 0;
	uint64_t j;

	for (i = 0; i < n; i++) {
		pr = &p->pairs[pairs[i]];
		if (!pair_in_events(p, pr))
			return false;
		ev = p->events + pr->offset;
		for (j = 0; j < pr->count; j++)
			buf[m++] = sub_sat(ev[j].end, ev[j].start);
	}
	return true;
}

/*
 * Pair indices grouped by entry (counting sort: first[e]..first[e + 1]), so
 * one buffer the size of the busiest region serves every p95.
 */
static int fill_p95(const struct sb_profile *p, struct table *t, const size_t *entry_of)
{
	size_t *first, *order, i, e;
	uint64_t most = 0;
	int64_t *buf;

	first = calloc(t->n + 2, sizeof(*first));
	order = malloc((p->n_pairs + 1) * sizeof(*order));
	if (!first || !order)
		goto nomem;
	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].region < p->n_regions)
			first[entry_of[p->pairs[i].region] + 2]++;
	for (e = 0; e < t->n; e++) {
		first[e + 2] += first[e + 1];
		/* Pairs never overlap, so more calls than events means a broken index. */
		if (t->e[e].side.calls <= p->n_events && t->e[e].side.calls > most)
			most = t->e[e].side.calls;
	}
	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].region < p->n_regions)
			order[first[entry_of[p->pairs[i].region] + 1]++] = i;
	buf = malloc((most + 1) * sizeof(*buf));
	if (!buf)
		goto nomem;
	for (e = 0; e < t->n; e++) {
		if (t->e[e].side.calls > most)
			continue;
		if (gather(p, order + first[e], first[e + 1] - first[e], buf))
			t->e[e].side.p95 = sb_diff_p95(buf, t->e[e].side.calls);
	}
	free(buf);
	free(first);
	free(order);
	return 0;
nomem:
	free(first);
	free(order);
	return -ENOMEM;
}

/* v / n rounded to nearest, for per-rank averages. */
static uint64_t per_rank_u64(uint64_t v, uint32_t n)
{
	return v / n + (v % n >= n - n / 2);
}

/* Calls, total and counts as per-rank averages; avg and p95 stay per call. */
static void average(struct sb_diff_side *s, uint32_t ranks)
{
	s->calls = per_rank_u64(s->calls, ranks);
	if (s->counter != SB_DIFF_UNKNOWN)
		s->counter = (int64_t)per_rank_u64((uint64_t)s->counter, ranks);
	/* Durations of a corrupt file can sum below 0: divide the magnitude. */
	s->total = s->total >= 0 ? (int64_t)per_rank_u64((uint64_t)s->total, ranks) :
		   -(int64_t)per_rank_u64(0 - (uint64_t)s->total, ranks);
}

/* Counter slot slot's known counts of the calls of pair q. */
static int64_t pair_counts(const struct sb_profile *p, const struct sb_pair *q, int slot)
{
	int64_t sum = 0, v;
	uint64_t i;

	for (i = 0; i < q->count && q->offset + i < p->n_events; i++) {
		v = sb_event_metric(p, &p->events[q->offset + i],
				    SB_METRIC_COUNTER + (unsigned)slot);
		if (v > 0)
			sum = add_sat(sum, v);
	}
	return sum;
}

/*
 * Every distinct region name of p (f: MPI call regions by function) with its
 * calls, total, avg and p95 over all ranks, and the counts of counter slot
 * slot (-1: none); calls, total and counts then divided by ranks (1: summed).
 */
static int build_table(const struct sb_profile *p, const struct sb_mpi_fns *f, struct table *t,
		       uint32_t ranks, int slot)
{
	struct sb_diff_side *s;
	size_t *entry_of, i;
	int r;

	*t = (struct table){ 0 };
	entry_of = malloc((p->n_regions + 1) * sizeof(*entry_of));
	if (!entry_of)
		return -ENOMEM;
	r = collect_names(p, f, t, entry_of);
	if (r)
		goto out;
	for (i = 0; i < p->n_pairs; i++) {
		/* Readers reject such rows; a hand-built profile must not crash us either. */
		if (p->pairs[i].region >= p->n_regions)
			continue;
		s = &t->e[entry_of[p->pairs[i].region]].side;
		s->calls += p->pairs[i].count;
		s->total = add_sat(s->total, p->pairs[i].stats.total);
		if (slot >= 0 && p->events)
			s->counter = add_sat(s->counter, pair_counts(p, &p->pairs[i], slot));
	}
	for (i = 0; i < t->n; i++) {
		s = &t->e[i].side;
		s->avg = s->calls ? s->total / (int64_t)s->calls : 0;
		/* No calls: 0 like every other metric; otherwise unknown until the events say. */
		s->p95 = s->calls ? SB_DIFF_UNKNOWN : 0;
		if (slot < 0 || (!p->events && s->calls))
			s->counter = SB_DIFF_UNKNOWN;
	}
	/* p95 sizes its buffer by the calls: it runs before they become averages. */
	if (p->events)
		r = fill_p95(p, t, entry_of);
	for (i = 0; i < t->n && ranks > 1; i++)
		average(&t->e[i].side, ranks);
out:
	free(entry_of);
	return r;
}

static void compare(struct sb_diff_row *row, enum sb_diff_metric m, int64_t max_regression)
{
	int64_t a = sb_diff_value(&row->a, m), b = sb_diff_value(&row->b, m);

	row->has_pct = false;
	row->regression = false;
	if (a == SB_DIFF_UNKNOWN || b == SB_DIFF_UNKNOWN) {
		row->delta = SB_DIFF_UNKNOWN;
		return;
	}
	row->delta = sub_sat(b, a);
	if (a != 0) {
		row->pct = 100.0 * (double)row->delta / (double)a;
		row->has_pct = true;
	} else if (b == 0) {
		row->pct = 0;
		row->has_pct = true;
	}
	row->regression = sb_diff_exceeds(a, b, max_regression);
}

static uint64_t abs_delta(int64_t d)
{
	return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
}

/* Largest |delta| first; unknown deltas last; then by name, so output is stable. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct sb_diff_row *a = pa, *b = pb;
	bool ua = a->delta == SB_DIFF_UNKNOWN, ub = b->delta == SB_DIFF_UNKNOWN;
	uint64_t x, y;

	if (ua != ub)
		return ua - ub;
	if (!ua) {
		x = abs_delta(a->delta);
		y = abs_delta(b->delta);
		if (x != y)
			return x < y ? 1 : -1;
	}
	return strcmp(a->name, b->name);
}

static int cmp_i64_desc(int64_t x, int64_t y)
{
	/* SB_DIFF_UNKNOWN is INT64_MIN, so unknown values sort last by themselves. */
	return (x < y) - (x > y);
}

static int cmp_only_a(const void *pa, const void *pb, void *arg)
{
	const struct sb_diff_row *a = pa, *b = pb;
	enum sb_diff_metric m = *(const enum sb_diff_metric *)arg;
	int c = cmp_i64_desc(sb_diff_value(&a->a, m), sb_diff_value(&b->a, m));

	return c ? c : strcmp(a->name, b->name);
}

static int cmp_only_b(const void *pa, const void *pb, void *arg)
{
	const struct sb_diff_row *a = pa, *b = pb;
	enum sb_diff_metric m = *(const enum sb_diff_metric *)arg;
	int c = cmp_i64_desc(sb_diff_value(&a->b, m), sb_diff_value(&b->b, m));

	return c ? c : strcmp(a->name, b->name);
}

/* Walk both name-ordered tables at once, like a merge, placing each name once. */
static void join(struct sb_diff *d, const struct table *ta, const struct table *tb)
{
	size_t i = 0, j = 0;
	struct sb_diff_row *row;
	int c;

	while (i < ta->n || j < tb->n) {
		if (i == ta->n)
			c = 1;
		else if (j == tb->n)
			c = -1;
		else
			c = strcmp(ta->e[i].name, tb->e[j].name);
		if (c < 0) {
			row = &d->only_a[d->n_only_a++];
			*row = (struct sb_diff_row){ .name = ta->e[i].name,
						     .mpi_function = ta->e[i].mpi_function,
						     .a = ta->e[i].side };
			i++;
		} else if (c > 0) {
			row = &d->only_b[d->n_only_b++];
			*row = (struct sb_diff_row){ .name = tb->e[j].name,
						     .mpi_function = tb->e[j].mpi_function,
						     .b = tb->e[j].side };
			j++;
		} else {
			row = &d->rows[d->n_rows++];
			*row = (struct sb_diff_row){ .name = ta->e[i].name,
						     .mpi_function = ta->e[i].mpi_function ||
								     tb->e[j].mpi_function,
						     .a = ta->e[i].side, .b = tb->e[j].side };
			compare(row, d->metric, d->max_regression);
			d->n_regressions += row->regression;
			i++;
			j++;
		}
	}
}

/* p's MPI functions, which d keeps: the rows are named by them. */
static int group_mpi(struct sb_mpi_fns **f, const struct sb_profile *p)
{
	*f = calloc(1, sizeof(**f));
	return *f ? sb_mpi_fns_build(*f, p) : -ENOMEM;
}

/* d is set up (metric, gate, ranks): its rows, with counter slots slot_a and slot_b (-1 none). */
static int build(struct sb_diff *d, const struct sb_profile *a, const struct sb_profile *b,
		 int slot_a, int slot_b, bool mpi_detail)
{
	enum sb_diff_metric metric = d->metric;
	struct table ta = { 0 }, tb = { 0 };
	int r = 0;

	d->per_rank = d->ranks_a != d->ranks_b;
	if (!mpi_detail) {
		r = group_mpi(&d->fns_a, a);
		if (!r)
			r = group_mpi(&d->fns_b, b);
	}
	if (!r)
		r = build_table(a, d->fns_a, &ta, d->per_rank ? d->ranks_a : 1, slot_a);
	if (!r)
		r = build_table(b, d->fns_b, &tb, d->per_rank ? d->ranks_b : 1, slot_b);
	if (r)
		goto out;
	d->rows = calloc(ta.n + 1, sizeof(*d->rows));
	d->only_a = calloc(ta.n + 1, sizeof(*d->only_a));
	d->only_b = calloc(tb.n + 1, sizeof(*d->only_b));
	if (!d->rows || !d->only_a || !d->only_b) {
		r = -ENOMEM;
		goto out;
	}
	join(d, &ta, &tb);
	qsort(d->rows, d->n_rows, sizeof(*d->rows), cmp_rows);
	qsort_r(d->only_a, d->n_only_a, sizeof(*d->only_a), cmp_only_a, &metric);
	qsort_r(d->only_b, d->n_only_b, sizeof(*d->only_b), cmp_only_b, &metric);
out:
	free(ta.e);
	free(tb.e);
	return r;
}

/* The counter slot of event in p (metadata counter_events and its columns), -1 when none. */
static int counter_slot(const struct sb_profile *p, const char *event, const char **events)
{
	const struct sb_meta *m = sb_profile_meta(p, "counter_events");
	const char *s = m && !m->is_int && m->s ? m->s : "";
	size_t len = strlen(event);
	int slot;

	*events = *s ? s : "none";
	for (slot = 0; slot < SB_COUNTER_SLOTS && *s; slot++) {
		if (!strncmp(s, event, len) && (s[len] == ',' || !s[len]))
			return p->columns & SB_COL_METRIC(SB_METRIC_COUNTER + slot) ? slot : -1;
		s = strchr(s, ',');
		if (!s)
			break;
		s++;
	}
	return -1;
}

int sb_diff_build_opts(struct sb_diff *d, const struct sb_profile *a, const struct sb_profile *b,
		       const struct sb_diff_opts *o, struct sb_error *err)
{
	const char *events_a, *events_b;
	int slot_a, slot_b;

	*d = (struct sb_diff){ .metric = o->metric, .event = o->event,
			       .max_regression = o->max_regression, .ranks_a = o->ranks_a,
			       .ranks_b = o->ranks_b };
	if (o->metric != SB_DIFF_COUNTER)
		return build(d, a, b, -1, -1, o->mpi_detail);
	slot_a = counter_slot(a, o->event, &events_a);
	slot_b = counter_slot(b, o->event, &events_b);
	if (slot_a < 0 || slot_b < 0)
		return sb_fail(err, EINVAL, "--metric %s: not a metric (total, avg, p95, calls) "
			       "nor an event %s counted (its counters: %s)", o->event,
			       slot_a < 0 ? "A" : "B", slot_a < 0 ? events_a : events_b);
	return build(d, a, b, slot_a, slot_b, o->mpi_detail);
}

int sb_diff_build(struct sb_diff *d, const struct sb_profile *a, const struct sb_profile *b,
		  enum sb_diff_metric metric, int64_t max_regression)
{
	struct sb_diff_opts o = { .metric = metric, .max_regression = max_regression,
				  .ranks_a = sb_profile_rank_count(a),
				  .ranks_b = sb_profile_rank_count(b) };

	return sb_diff_build_opts(d, a, b, &o, NULL);
}

const char *sb_diff_label(const struct sb_diff *d)
{
	return d->metric == SB_DIFF_COUNTER && d->event ? d->event : sb_diff_metric_name(d->metric);
}

static void free_fns(struct sb_mpi_fns *f)
{
	if (f)
		sb_mpi_fns_free(f);
	free(f);
}

void sb_diff_free(struct sb_diff *d)
{
	free(d->rows);
	free(d->only_a);
	free(d->only_b);
	free_fns(d->fns_a);
	free_fns(d->fns_b);
	*d = (struct sb_diff){ 0 };
}
