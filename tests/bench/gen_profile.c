/* Writes a large, realistic, deterministic profile for make bench, generating its events on the fly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5write.h"
#include "model/model.h"

#define RANKS 4
#define THREADS 4
#define US 1000			/* ns */
#define STEP (1000 * US)	/* one step of one thread */
#define T0 1000000000LL		/* the run's start, ns */
#define SEED 0x5eedULL

/*
 * One step of a stencil code, as positions in pre-order: parent before
 * children, starts increasing, children inside their parent. A thread runs
 * it over and over, each thread 1 us behind the one before, so by start the
 * calls of a rank go (step, position, thread), which numbers them.
 */
struct pos {
	const char *region;
	int parent;		/* position; -1 top level */
	int64_t off;		/* start within the step */
	int64_t dur;		/* nominal duration; leaves run shorter at random */
	int offcpu_pct;		/* leaves: share of the call spent blocked */
};

static const struct pos tmpl[] = {
	{ "step", -1, 0, 990 * US, 0 },
	{ "stencil", 0, 10 * US, 400 * US, 0 },
	{ "stencil_x", 1, 20 * US, 180 * US, 0 },
	{ "kernel", 2, 30 * US, 150 * US, 0 },
	{ "stencil_y", 1, 210 * US, 180 * US, 0 },
	{ "kernel", 4, 220 * US, 150 * US, 0 },
	{ "boundary", 4, 372 * US, 16 * US, 0 },
	{ "apply_bc", 1, 395 * US, 10 * US, 0 },
	{ "halo", 0, 420 * US, 300 * US, 0 },
	{ "pack", 8, 430 * US, 40 * US, 0 },
	{ "mpi_isend", 8, 480 * US, 20 * US, 0 },
	{ "mpi_irecv", 8, 510 * US, 20 * US, 0 },
	{ "mpi_wait", 8, 540 * US, 120 * US, 70 },
	{ "unpack", 8, 670 * US, 40 * US, 0 },
	{ "reduce", 0, 730 * US, 150 * US, 0 },
	{ "local_sum", 14, 740 * US, 50 * US, 0 },
	{ "mpi_allreduce", 14, 800 * US, 70 * US, 60 },
	{ "diagnostics", 0, 890 * US, 80 * US, 0 },
	{ "norm", 17, 900 * US, 30 * US, 0 },
	{ "log_write", 17, 940 * US, 25 * US, 40 },
};

#define P (sizeof(tmpl) / sizeof(tmpl[0]))

/* One step of one thread, all positions. */
struct inst {
	int64_t start[P];
	int64_t end[P];
	int64_t offcpu[P];	/* inclusive of the children's */
	int64_t own[P];
};

struct gen {
	struct sb_event_stream base;
	uint64_t steps;		/* per thread */
	uint32_t region_of[P];	/* position -> region id */
	size_t pair;		/* pair being streamed */
	uint64_t k;		/* its next call */
	int n_pos[RANKS * P];	/* per pair: how many positions its region has */
	int pos[RANKS * P][P];	/* and which */
};

static uint64_t mix(uint64_t h)
{
	h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ h >> 27) * 0x94d049bb133111ebULL;
	return h ^ h >> 31;
}

static bool is_leaf(size_t p)
{
	return p + 1 == P || tmpl[p + 1].parent != (int)p;
}

/* Thread t of rank r, step s: leaves take 50-100% of their nominal time. */
static void instance(uint32_t r, uint32_t t, uint64_t s, struct inst *in)
{
	int64_t base = T0 + (int64_t)s * STEP + t * US;
	uint64_t h;
	size_t p;

	for (p = 0; p < P; p++) {
		in->start[p] = base + tmpl[p].off;
		in->end[p] = in->start[p] + tmpl[p].dur;
		in->offcpu[p] = 0;
		if (is_leaf(p)) {
			h = mix(SEED ^ ((uint64_t)r << 56) ^ ((uint64_t)t << 48) ^ (s << 8) ^ p);
			in->end[p] = in->start[p] + tmpl[p].dur / 2 +
				     (int64_t)(h % (uint64_t)(tmpl[p].dur / 2 + 1));
			in->offcpu[p] = (in->end[p] - in->start[p]) * tmpl[p].offcpu_pct / 100;
		}
		in->own[p] = in->end[p] - in->start[p];
	}
	/* Children follow their parent: fold them in from the back. */
	for (p = P - 1; p > 0; p--) {
		in->offcpu[tmpl[p].parent] += in->offcpu[p];
		in->own[tmpl[p].parent] -= in->end[p] - in->start[p];
	}
}

static int64_t call_id(uint64_t s, size_t p, uint32_t t)
{
	return (int64_t)((s * P + p) * THREADS + t);
}

/* Call k of pair i, in start order: (step, position among the region's, thread). */
static void call_of(const struct gen *g, size_t i, uint64_t k, uint64_t *s, size_t *p,
		    uint32_t *t)
{
	uint64_t per_step = (uint64_t)g->n_pos[i] * THREADS;

	*s = k / per_step;
	*p = (size_t)g->pos[i][k % per_step / THREADS];
	*t = (uint32_t)(k % THREADS);
}

static ssize_t gen_read(struct sb_event_stream *st, struct sb_event *rows, int64_t *counters,
			size_t max)
{
	struct gen *g = (struct gen *)st;
	uint64_t count, s;
	struct inst in;
	size_t n = 0, p;
	uint32_t t, r;

	(void)counters;	/* the profile has no counter columns */

	while (n < max && g->pair < RANKS * P) {
		count = (uint64_t)g->n_pos[g->pair] * THREADS * g->steps;
		if (!g->n_pos[g->pair] || g->k == count) {
			g->pair++;
			g->k = 0;
			continue;
		}
		r = (uint32_t)(g->pair / P);
		call_of(g, g->pair, g->k++, &s, &p, &t);
		instance(r, t, s, &in);
		rows[n++] = (struct sb_event){
			.start = in.start[p],
			.end = in.end[p],
			.thread = t,
			.call_id = call_id(s, p, t),
			.parent_id = tmpl[p].parent < 0 ? -1 : call_id(s, (size_t)tmpl[p].parent, t),
			.metric = { [SB_METRIC_GPU] = -1, [SB_METRIC_OFFCPU] = in.offcpu[p] },
		};
	}
	return (ssize_t)n;
}

/* Regions, one index row per (rank, region) in region order, threads and metadata. */
static int setup(struct sb_profile *p, struct gen *g)
{
	size_t i, j, q, n_regions;
	uint32_t r, t;
	ssize_t id;

	for (i = 0; i < P; i++) {
		id = sb_profile_find_region(p, tmpl[i].region);
		if (id < 0)
			id = sb_profile_add_region(p, tmpl[i].region, "stencil.c", 100 + (int64_t)i,
						   "[]");
		if (id < 0)
			return -ENOMEM;
		g->region_of[i] = (uint32_t)id;
	}
	n_regions = p->n_regions;
	p->pairs = calloc(RANKS * n_regions, sizeof(*p->pairs));
	if (!p->pairs)
		return -ENOMEM;
	for (r = 0; r < RANKS; r++) {
		for (j = 0; j < n_regions; j++) {
			i = r * n_regions + j;
			g->n_pos[i] = 0;
			for (q = 0; q < P; q++)
				if (g->region_of[q] == j)
					g->pos[i][g->n_pos[i]++] = (int)q;
			p->pairs[i] = (struct sb_pair){ .region = (uint32_t)j, .rank = r,
							.offset = p->n_events,
							.count = (uint64_t)g->n_pos[i] * THREADS * g->steps };
			sb_stats_init(&p->pairs[i].stats);
			p->n_events += p->pairs[i].count;
		}
		for (t = 0; t < THREADS; t++) {
			struct sb_thread th = { .rank = r, .index = t, .tid = 1000 * (r + 1) + t,
						.start_ns = T0, .end_ns = T0 + (int64_t)g->steps * STEP + STEP,
						.cpu_ns = -1, .name = (char *)"worker" };
			if (sb_profile_add_thread(p, &th) < 0)
				return -ENOMEM;
		}
	}
	p->n_pairs = RANKS * n_regions;
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU;
	if (sb_profile_set_int(p, "mpi_size", RANKS) ||
	    sb_profile_set_int(p, "start_time_ns", T0) ||
	    sb_profile_set_int(p, "finalize_time_ns", T0 + (int64_t)g->steps * STEP + STEP) ||
	    sb_profile_set_str(p, "source", "gen_profile"))
		return -ENOMEM;
	return 0;
}

/* Summary statistics and exclusive totals: one pass over every call, holding none. */
static void fill_stats(struct sb_profile *p, struct gen *g)
{
	struct sb_pair *pr;
	struct inst in;
	uint32_t r, t;
	uint64_t s;
	size_t q;

	for (q = 0; q < p->n_pairs; q++)
		p->pairs[q].exclusive_total = 0;
	for (r = 0; r < RANKS; r++)
		for (t = 0; t < THREADS; t++)
			for (s = 0; s < g->steps; s++) {
				instance(r, t, s, &in);
				for (q = 0; q < P; q++) {
					pr = &p->pairs[r * p->n_regions + g->region_of[q]];
					sb_stats_add(&pr->stats, in.start[q], in.end[q], -1);
					pr->exclusive_total += in.own[q];
				}
			}
}

int main(int argc, char **argv)
{
	struct sb_error err = { .msg = "" };
	struct gen g = { .base = { gen_read } };
	struct sb_profile p;
	uint64_t calls = 10000000;
	int r;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: gen_profile FILE [CALLS]\n");
		return 2;
	}
	if (argc == 3)
		calls = strtoull(argv[2], NULL, 10);
	g.steps = calls / (RANKS * THREADS * P);
	if (!g.steps)
		g.steps = 1;
	sb_profile_init(&p);
	r = setup(&p, &g);
	if (!r) {
		fill_stats(&p, &g);
		r = sb_h5_write(argv[1], &p, &g.base, &err);
		if (r)
			fprintf(stderr, "gen_profile: %s\n", err.msg);
	} else {
		fprintf(stderr, "gen_profile: out of memory\n");
	}
	if (!r)
		printf("calls=%zu regions=%zu ranks=%d threads=%d\n", p.n_events, p.n_regions,
		       RANKS, THREADS);
	sb_profile_free(&p);
	return r ? 1 : 0;
}
