/* The roofline's points: per region, the group's FLOP rate and bandwidth summed over threads. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/roofline.h"
#include "counters/likwid.h"
#include "io/h5counters.h"

/* Per region: the rates of the threads that have both, summed. */
struct region_sum {
	double mflops, mbs;
	bool any;
};

static const char *meta_str(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	return m && !m->is_int && m->s ? m->s : NULL;
}

/* How well a metric's name fits the bandwidth axis: main memory first, then any other. */
static int bandwidth_rank(const char *name)
{
	if (!strstr(name, "MBytes/s"))
		return 0;
	if (!strncmp(name, "Memory bandwidth", 16))
		return 3;
	return strstr(name, "emory") ? 2 : 1;
}

/* The first FLOP rate and the best bandwidth of g; false when it lacks either. */
static bool pick_metrics(const struct sb_likwid_group *g, int *flop, int *bw)
{
	int best = 0, k;
	unsigned m;

	*flop = *bw = -1;
	for (m = 0; m < g->n_metrics; m++) {
		if (*flop < 0 && strstr(g->metrics[m].name, "MFLOP/s"))
			*flop = (int)m;
		k = bandwidth_rank(g->metrics[m].name);
		if (k > best) {
			best = k;
			*bw = (int)m;
		}
	}
	return *flop >= 0 && *bw >= 0;
}

/* Each (region, thread)'s rates by the group's formulas, as the file's metrics hold them. */
static void sum_threads(struct region_sum *sums, const struct sb_counter_totals *t,
			const struct sb_profile *p, int64_t rank, const struct sb_likwid_group *g,
			int flop, int bw)
{
	const struct sb_meta *hz = sb_profile_meta(p, "cpu_clock_hz");
	double inverse_clock = hz && hz->is_int && hz->i > 0 ? 1.0 / (double)hz->i : NAN;
	const struct sb_counter_thread *th;
	const struct sb_pair *q;
	double f, b, s;
	size_t i;

	for (i = 0; i < t->n_threads; i++) {
		th = &t->threads[i];
		q = &p->pairs[th->pair];
		if (rank >= 0 && q->rank != (uint64_t)rank)
			continue;
		s = (double)th->ns / 1e9;
		f = sb_likwid_eval(g, (unsigned)flop, th->counts, s, inverse_clock);
		b = sb_likwid_eval(g, (unsigned)bw, th->counts, s, inverse_clock);
		/* A thread with either undefined (no time, uncounted) would skew the ratio. */
		if (!isfinite(f) || !isfinite(b))
			continue;
		sums[q->region].mflops += f;
		sums[q->region].mbs += b;
		sums[q->region].any = true;
	}
}

static int take_points(struct sb_roofline *r, const struct region_sum *sums, size_t n)
{
	size_t i;

	r->points = calloc(n ? n : 1, sizeof(*r->points));
	if (!r->points)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		/* Log axes: a zero rate has no place on them. */
		if (!sums[i].any || sums[i].mflops <= 0 || sums[i].mbs <= 0)
			continue;
		r->points[r->n_points++] = (struct sb_roofline_point){
			.region = (uint32_t)i,
			.gflops = sums[i].mflops / 1e3,
			.gbs = sums[i].mbs / 1e3,
			.intensity = sums[i].mflops / sums[i].mbs,
		};
	}
	return 0;
}

static int build(struct sb_roofline *r, const struct sb_profile *p, int64_t rank,
		 const struct sb_likwid_group *g, int flop, int bw)
{
	struct sb_counter_totals t;
	struct region_sum *sums = calloc(p->n_regions ? p->n_regions : 1, sizeof(*sums));
	int ret = -ENOMEM;

	if (!sums)
		return -ENOMEM;
	if (sb_counter_totals_init(&t, p) ||
	    sb_counter_totals_add(&t, p, p->events, p->counters, p->n_events))
		goto out;
	sum_threads(sums, &t, p, rank, g, flop, bw);
	r->flop_metric = strdup(g->metrics[flop].name);
	r->bw_metric = strdup(g->metrics[bw].name);
	if (r->flop_metric && r->bw_metric)
		ret = take_points(r, sums, p->n_regions);
out:
	sb_counter_totals_free(&t);
	free(sums);
	return ret;
}

int sb_roofline_build(struct sb_roofline *r, const struct sb_profile *p, int64_t rank)
{
	const char *group = meta_str(p, "counter_group"), *arch = meta_str(p, "counter_group_arch");
	struct sb_error ignored = { .msg = "" };
	struct sb_likwid_group g;
	int flop, bw, ret;

	memset(r, 0, sizeof(*r));
	if (!group || !arch || !*arch || !p->events || !p->counters || !sb_profile_counter_slots(p))
		return 0;
	/* Another machine may lack LIKWID's files: then there is no chart, as the file has no metrics. */
	if (sb_likwid_group_load_arch(arch, group, &g, &ignored))
		return 0;
	r->available = pick_metrics(&g, &flop, &bw);
	ret = r->available ? build(r, p, rank, &g, flop, bw) : 0;
	sb_likwid_group_free(&g);
	return ret;
}

void sb_roofline_free(struct sb_roofline *r)
{
	free(r->flop_metric);
	free(r->bw_metric);
	free(r->points);
	memset(r, 0, sizeof(*r));
}
