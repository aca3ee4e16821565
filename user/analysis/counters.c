/*
 * `report --counters`: per region (MPI call regions per function) sums of the
 * counter columns, and IPC and miss ratios.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/counters.h"
#include "analysis/mpi_fns.h"

/* The figures perf stat shows, each from two of perf's generic events. */
static const struct {
	const char *name, *num, *den;
	bool percent;
} known_ratios[] = {
	{ "IPC", "instructions", "cycles", false },
	{ "cache miss %", "cache-misses", "cache-references", true },
	{ "branch miss %", "branch-misses", "branches", true },
	{ "major fault %", "major-faults", "page-faults", true },
};

_Static_assert(sizeof(known_ratios) / sizeof(known_ratios[0]) <= SB_COUNTER_MAX_RATIOS,
	       "room for every known ratio");

static int slot_of(const struct sb_counter_report *r, const char *name)
{
	unsigned i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->names[i], name))
			return (int)i;
	return -1;
}

/* Names from metadata counter_events, counter_<i> where it has none. */
static int take_names(struct sb_counter_report *r, const struct sb_profile *p)
{
	const struct sb_meta *m = sb_profile_meta(p, "counter_events");
	const char *s = m && !m->is_int && m->s ? m->s : "", *end;
	char buf[32];
	unsigned i;

	for (i = 0; i < r->n; i++) {
		end = strchr(s, ',');
		if (*s && end != s) {
			r->names[i] = strndup(s, end ? (size_t)(end - s) : strlen(s));
		} else {
			snprintf(buf, sizeof(buf), "counter_%u", i);
			r->names[i] = strdup(buf);
		}
		if (!r->names[i])
			return -ENOMEM;
		s = end ? end + 1 : "";
	}
	return 0;
}

static void take_ratios(struct sb_counter_report *r)
{
	size_t k;
	int num, den;

	for (k = 0; k < sizeof(known_ratios) / sizeof(known_ratios[0]); k++) {
		num = slot_of(r, known_ratios[k].num);
		den = slot_of(r, known_ratios[k].den);
		if (num < 0 || den < 0)
			continue;
		r->ratios[r->n_ratios++] = (struct sb_counter_ratio){
			known_ratios[k].name, num, den, known_ratios[k].percent };
	}
}

/*
 * The counts of calls calls (model.h's counter row: r->n inclusive counts,
 * then r->n exclusive ones): one call's, or an aggregate row's sums.
 */
static void add_calls(struct sb_counter_report *r, struct sb_counter_row *row,
		      const int64_t *counts, uint64_t calls)
{
	unsigned i;
	int64_t v;

	row->calls += calls;
	if (counts[0] < 0)
		row->unknown += calls;
	for (i = 0; i < r->n; i++) {
		v = counts[i];
		if (v > 0)
			row->incl[i] += (uint64_t)v;
		v = counts[r->n + i];
		if (v > 0)
			row->excl[i] += (uint64_t)v;
	}
}

static void add_row(const struct sb_counter_report *r, struct sb_counter_row *to,
		    const struct sb_counter_row *from)
{
	unsigned i;

	to->calls += from->calls;
	to->unknown += from->unknown;
	for (i = 0; i < r->n; i++) {
		to->incl[i] += from->incl[i];
		to->excl[i] += from->excl[i];
	}
}

/*
 * Each MPI call region's row into its function's, the row of the function's
 * first region: counts are sums over calls, so the function's are exact.
 */
static int fold_mpi(struct sb_counter_report *r, const struct sb_profile *p)
{
	struct sb_counter_row *to;
	int32_t fn;
	size_t i;
	int ret;

	r->fns = calloc(1, sizeof(*r->fns));
	if (!r->fns)
		return -ENOMEM;
	ret = sb_mpi_fns_build(r->fns, p);
	for (i = 0; !ret && i < p->n_regions; i++) {
		fn = r->fns->of[i];
		if (fn < 0)
			continue;
		to = &r->rows[r->fns->first[fn]];
		to->name = r->fns->name[fn];
		if (to == &r->rows[i])
			continue;
		add_row(r, to, &r->rows[i]);
		/* Dropped with the regions no call reached. */
		r->rows[i].calls = 0;
	}
	return ret;
}

/* An aggregate's rows: a row of which a call had unknown counts counts as unknown whole. */
static void add_aggregate(struct sb_counter_report *r, const struct sb_profile *p, int64_t rank)
{
	const struct sb_aggregate *a = &p->agg;
	int64_t counts[2 * SB_COUNTER_SLOTS];
	ssize_t region;
	size_t i;
	unsigned k;

	for (i = 0; i < a->n_rows; i++) {
		region = sb_profile_find_region(p, a->paths[a->rows[i].path].name);
		if ((rank >= 0 && a->rows[i].rank != (uint64_t)rank) || region < 0)
			continue;
		for (k = 0; k < r->n; k++) {
			counts[k] = sb_agg_value(a, i, SB_METRIC_COUNTER + k);
			counts[r->n + k] = sb_agg_value(a, i, SB_METRIC_COUNTER_EXCL + k);
		}
		add_calls(r, &r->rows[region], counts, a->rows[i].count);
	}
}

static int by_own_first_event(const void *a, const void *b)
{
	const struct sb_counter_row *x = a, *y = b;

	if (x->excl[0] != y->excl[0])
		return x->excl[0] < y->excl[0] ? 1 : -1;
	return x->region < y->region ? -1 : x->region > y->region;
}

int sb_counter_report_build(struct sb_counter_report *r, const struct sb_profile *p, int64_t rank,
			    bool mpi_detail, struct sb_error *err)
{
	const struct sb_pair *q;
	size_t i, k;
	uint64_t j;

	memset(r, 0, sizeof(*r));
	r->n = p->agg.on ? sb_agg_counter_slots(&p->agg) : sb_profile_counter_slots(p);
	if (!r->n || (!p->counters && !p->agg.on))
		return sb_fail(err, EINVAL, "no counters in this profile (record them with -e)");
	if (take_names(r, p))
		return -ENOMEM;
	take_ratios(r);
	r->rows = calloc(p->n_regions ? p->n_regions : 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	for (i = 0; i < p->n_regions; i++)
		r->rows[i] = (struct sb_counter_row){ .region = (uint32_t)i,
						      .name = p->regions[i].name };
	if (p->agg.on)
		add_aggregate(r, p, rank);
	for (k = 0; k < p->n_pairs && !p->agg.on; k++) {
		q = &p->pairs[k];
		if (rank >= 0 && q->rank != (uint64_t)rank)
			continue;
		for (j = 0; j < q->count; j++)
			add_calls(r, &r->rows[q->region],
				  &p->counters[(q->offset + j) * sb_counter_stride(r->n)], 1);
	}
	if (!mpi_detail && fold_mpi(r, p))
		return -ENOMEM;
	for (i = 0; i < p->n_regions; i++)
		if (r->rows[i].calls)
			r->rows[r->n_rows++] = r->rows[i];
	qsort(r->rows, r->n_rows, sizeof(*r->rows), by_own_first_event);
	return 0;
}

double sb_counter_ratio_value(const struct sb_counter_report *r, unsigned k,
			      const struct sb_counter_row *row)
{
	const struct sb_counter_ratio *x = &r->ratios[k];
	double v;

	if (!row->incl[x->den])
		return NAN;
	v = (double)row->incl[x->num] / (double)row->incl[x->den];
	return x->percent ? 100 * v : v;
}

void sb_counter_report_free(struct sb_counter_report *r)
{
	unsigned i;

	for (i = 0; i < SB_COUNTER_SLOTS; i++)
		free(r->names[i]);
	free(r->rows);
	if (r->fns)
		sb_mpi_fns_free(r->fns);
	free(r->fns);
	memset(r, 0, sizeof(*r));
}
