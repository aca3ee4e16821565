/* A full trace's calls summed again by record --aggregate's collector: are its totals the trace's? (bench (n)) */

/*
 * Usage: agg_replay FULL.h5. Two recordings of one loop never time their
 * calls alike, so the aggregate's totals are compared with a full trace's on
 * the same calls: every call of FULL.h5 goes through the collector as record
 * --aggregate hands it one (sb_collector_record, one top-level path per
 * region, one thread per thread row of the trace), and the rows' counts,
 * totals, minima and maxima are compared with the trace's, thread by thread
 * and region by region, to the nanosecond. Prints one line:
 *	calls=N rows=R total_ns=T agg_total_ns=A equal_rows=E
 * Exit 0 when every row is equal, 1 when one is not, 2 on errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "io/h5read.h"
#include "model/model.h"
#include "record/collect.h"
#include "region.h"

#define TGID 1
#define SITE 0x10

/* What the trace holds for one (thread, region). */
struct want {
	uint64_t count;
	int64_t total, min, max;
};

static int add_site(struct sb_collector *c, const char *name)
{
	struct sb_site_event e = { .type = SB_EV_SITE, .tgid = TGID, .site = SITE };

	snprintf(e.name, sizeof(e.name), "%s", name);
	return sb_collector_record(c, &e, sizeof(e));
}

/* Thread row t of the trace as thread t + 1 of one process; region r's path is its name's hash. */
static int replay(struct sb_collector *c, const struct sb_profile *p)
{
	size_t k, i;
	int ret;

	for (k = 0; k < p->n_regions; k++) {
		ret = add_site(c, p->regions[k].name);
		if (ret)
			return ret;
	}
	for (k = 0; k < p->n_pairs; k++) {
		const struct sb_pair *q = &p->pairs[k];
		uint64_t h = sb_name_hash(p->regions[q->region].name);

		for (i = q->offset; i < q->offset + q->count; i++) {
			const struct sb_event *e = &p->events[i];
			struct sb_call_event ce = {
				.type = SB_EV_CALL, .tgid = TGID, .tid = (__u32)e->thread + 1,
				.site = SITE, .start = (__u64)e->start, .end = (__u64)e->end,
				.call_id = (__s64)(i - q->offset), .parent_id = -1,
				.path_hash = h, .name_hash = h,
			};

			ret = sb_collector_record(c, &ce, sizeof(ce));
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The trace's own figures for row (thread, region). */
static struct want want_of(const struct sb_profile *p, int64_t thread, const char *region)
{
	struct want w = { .min = INT64_MAX, .max = INT64_MIN };
	size_t k, i;

	for (k = 0; k < p->n_pairs; k++) {
		const struct sb_pair *q = &p->pairs[k];

		if (strcmp(p->regions[q->region].name, region))
			continue;
		for (i = q->offset; i < q->offset + q->count; i++) {
			const struct sb_event *e = &p->events[i];
			int64_t d = e->end - e->start;

			if (e->thread + 1 != thread)
				continue;
			w.count++;
			w.total += d;
			w.min = d < w.min ? d : w.min;
			w.max = d > w.max ? d : w.max;
		}
	}
	return w;
}

/* The collector numbers its own thread rows: the replayed tid says which row of the trace. */
static int64_t tid_of(const struct sb_profile *q, const struct sb_agg_row *r)
{
	size_t t;

	for (t = 0; t < q->n_threads; t++)
		if (q->threads[t].rank == r->rank && q->threads[t].index == r->thread)
			return q->threads[t].tid;
	return -1;
}

int main(int argc, char **argv)
{
	struct sb_profile p;
	struct sb_collector c;
	struct sb_error err = { 0 };
	int64_t total = 0, agg_total = 0;
	size_t i, equal = 0;
	const struct sb_aggregate *a;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FULL.h5\n", argv[0]);
		return 2;
	}
	if (sb_h5_read(argv[1], &p, &err)) {
		fprintf(stderr, "%s: %s\n", argv[1], err.msg);
		return 2;
	}
	for (i = 0; i < p.n_events; i++)
		total += p.events[i].end - p.events[i].start;
	if (sb_collector_init(&c, "/tmp", 1 << 20)) {
		fprintf(stderr, "agg_replay: no memory\n");
		return 2;
	}
	sb_collector_set_aggregate(&c, 0, 0);
	if (replay(&c, &p) || sb_collector_finish(&c)) {
		fprintf(stderr, "agg_replay: the collector refused the calls\n");
		return 2;
	}
	a = &c.prof.agg;
	for (i = 0; i < a->n_rows; i++) {
		const struct sb_agg_row *r = &a->rows[i];
		struct want w = want_of(&p, tid_of(&c.prof, r), a->paths[r->path].name);

		agg_total += r->total;
		equal += w.count == r->count && w.total == r->total && w.min == r->min &&
			 w.max == r->max;
	}
	printf("calls=%zu rows=%zu total_ns=%lld agg_total_ns=%lld equal_rows=%zu\n", p.n_events,
	       a->n_rows, (long long)total, (long long)agg_total, equal);
	ret = equal == a->n_rows && total == agg_total ? 0 : 1;
	sb_collector_free(&c);
	sb_profile_free(&p);
	return ret;
}
